//! Where model work goes: the built-in offline backend, or a configured
//! program that reads a prompt on stdin and prints its answer (DESIGN §4).
//! One configuration shape serves both roles, the transform and the judges:
//! `lore.<role>.backend`, `.command`, `.model`, `.timeout`.

use std::time::Duration;

use super::{Lore, LoreError};

/// What a backend is for; it names the config keys and the defaults.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// Stage 5: artifact → candidate (`lore.transform.*`).
    Transform,
    /// Stage 7: the jury (`lore.judge.*`); `{judge}` in the command is the
    /// judge type.
    Judge,
}

impl Role {
    fn key(self, name: &str) -> String {
        match self {
            Role::Transform => format!("lore.transform.{name}"),
            Role::Judge => format!("lore.judge.{name}"),
        }
    }

    /// The program run when the command backend is chosen but none is set.
    pub fn default_command(self) -> &'static str {
        "claude -p --max-turns 1 --model {model}"
    }

    /// The model named when none is configured.
    pub fn default_model(self) -> &'static str {
        match self {
            Role::Transform => "claude-haiku-4-5-20251001",
            Role::Judge => "claude-opus-4-1",
        }
    }

    /// The per-call deadline when none is configured.
    pub fn default_timeout(self) -> Duration {
        match self {
            Role::Transform => Duration::from_secs(20),
            Role::Judge => Duration::from_secs(120),
        }
    }
}

/// Where one role's model work goes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Backend {
    /// The deterministic built-in backend: no network, no model.
    Offline,
    /// A program: `argv` with `{model}` filled in, the prompt on stdin.
    Command {
        argv: Vec<String>,
        model: String,
        timeout: Duration,
    },
}

impl Backend {
    /// The name recorded in `Lore-Model` (and a proposal's `model`).
    pub fn model_name(&self) -> &str {
        match self {
            Backend::Offline => "offline",
            Backend::Command { model, .. } => model,
        }
    }

    /// The backend the repository's config asks for: `lore.<role>.backend`,
    /// else `command` when `lore.<role>.command` is set, else `offline`.
    /// `choice` (a `--backend` flag) overrides. Every value is checked here,
    /// before any work: a model name becomes a trailer and must be one line.
    pub fn from_config(
        lore: &Lore,
        role: Role,
        choice: Option<&str>,
    ) -> Result<Backend, LoreError> {
        let cfg = |name: &str| lore.store.config_string(&role.key(name));
        let command = cfg("command");
        let kind = choice
            .map(str::to_owned)
            .or_else(|| cfg("backend"))
            .unwrap_or_else(|| {
                if command.is_some() {
                    "command"
                } else {
                    "offline"
                }
                .to_owned()
            });
        match kind.as_str() {
            "offline" => Ok(Backend::Offline),
            "command" => {
                let model = cfg("model").unwrap_or_else(|| role.default_model().to_owned());
                if model.chars().any(char::is_control)
                    || model.trim().is_empty()
                    || model.trim() != model
                {
                    return Err(LoreError::BadInput(format!(
                        "{} is not a usable name: {model:?}",
                        role.key("model")
                    )));
                }
                let text = command.unwrap_or_else(|| role.default_command().to_owned());
                let argv: Vec<String> = shell_words::split(&text)
                    .map_err(|e| {
                        LoreError::BadInput(format!(
                            "{} {text:?} does not parse: {e}",
                            role.key("command")
                        ))
                    })?
                    .into_iter()
                    .map(|a| a.replace("{model}", &model))
                    .collect();
                if argv.is_empty() {
                    return Err(LoreError::BadInput(format!(
                        "{} is empty",
                        role.key("command")
                    )));
                }
                let timeout = match cfg("timeout") {
                    None => role.default_timeout(),
                    Some(t) => t
                        .parse::<f64>()
                        .ok()
                        .filter(|s| s.is_finite() && *s > 0.0)
                        .map(Duration::from_secs_f64)
                        .ok_or_else(|| {
                            LoreError::BadInput(format!(
                                "{} must be a positive number of seconds, got {t:?}",
                                role.key("timeout")
                            ))
                        })?,
                };
                Ok(Backend::Command {
                    argv,
                    model,
                    timeout,
                })
            }
            other => Err(LoreError::BadInput(format!(
                "{} must be offline or command, got {other:?}",
                role.key("backend")
            ))),
        }
    }
}
