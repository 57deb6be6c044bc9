//! The one way git-lore asks a model: a [`Backend`] per [`Role`], configured
//! by `lore.<role>.{backend,command,model,timeout}`, and [`Backend::ask`],
//! which runs the program and classifies everything that is not an answer
//! as an [`Outage`].
//!
//! A backend is the built-in offline one (deterministic, no network: each
//! role's caller applies its own offline rules to typed input) or a program
//! that reads the prompt on stdin and prints its answer. The program runs
//! from an argv (never a shell), with a clean environment, a hard timeout
//! that kills its process group, and a cap on what is kept of its output.
//! An empty answer, a missing, hung or crashed program is an outage:
//! nothing may be recorded for it, and retrying is safe.
//!
//! Adding a role is one line in [`Role::spec`] plus its config keys.

use std::time::Duration;

use super::{Lore, LoreError};
use crate::answer::Answer;
use crate::process::{self, Finished, Invocation, ProcessError};

/// At most this much of a model's answer is kept.
pub const MAX_ANSWER: usize = 1 << 20;

/// What a model is asked to do; it names the config keys and the defaults.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// Artifact → lesson candidate (`lore.transform.*`).
    Transform,
    /// The jury (`lore.judge.*`); `{judge}` in the command is the judge type.
    Judge,
    /// Relation judgment of a promoted lesson against its pool
    /// (`lore.relate.*`).
    Relate,
    /// A session transcript → moments worth an artifact (`lore.capture.*`).
    Capture,
}

/// Set in the environment of every model program git-lore starts: every
/// git-lore agent hook is a no-op under it, so a model asked from a hook
/// cannot set the hooks off again.
pub const HOOK_MARKER: &str = "GIT_LORE_HOOK_ACTIVE";

/// One role's config section and defaults.
struct Spec {
    section: &'static str,
    model: &'static str,
    timeout_secs: u64,
}

impl Role {
    fn spec(self) -> Spec {
        let (section, model, timeout_secs) = match self {
            Role::Transform => ("transform", "claude-haiku-4-5-20251001", 20),
            Role::Judge => ("judge", "claude-opus-4-1", 120),
            Role::Relate => ("relate", "claude-opus-4-1", 60),
            Role::Capture => ("capture", "claude-haiku-4-5-20251001", 120),
        };
        Spec {
            section,
            model,
            timeout_secs,
        }
    }

    /// The config key `lore.<role>.<name>`.
    pub fn key(self, name: &str) -> String {
        format!("lore.{}.{name}", self.spec().section)
    }

    /// The program run when the command backend is chosen but none is set:
    /// with every agent hook turned off, so a model asked from a hook
    /// starts no hooks of its own.
    pub fn default_command(self) -> &'static str {
        r#"claude -p --max-turns 1 --settings '{"disableAllHooks": true}' --model {model}"#
    }

    /// The model named when none is configured.
    pub fn default_model(self) -> &'static str {
        self.spec().model
    }

    /// The per-call deadline when none is configured.
    pub fn default_timeout(self) -> Duration {
        Duration::from_secs(self.spec().timeout_secs)
    }
}

/// Why a model gave no answer: nothing may be recorded, and the work must
/// be tried again later.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum Outage {
    /// The model printed nothing (or only white space).
    #[error("the model printed nothing")]
    EmptyOutput,
    /// The offline backend was asked a prompt; it answers typed input only.
    #[error("no model program is configured")]
    NoProgram,
    /// The program could not be started.
    #[error("model program {program:?} could not be started: {why}")]
    NotFound { program: String, why: String },
    /// The program ran past its deadline and was killed.
    #[error("model program {program:?} did not answer within {seconds}s and was killed")]
    TimedOut { program: String, seconds: f64 },
    /// The program exited unsuccessfully.
    #[error("the model program failed ({status}){stderr}")]
    Crashed {
        /// `exited with status 3` or `killed by a signal`.
        status: String,
        /// `": <last line(s) of stderr>"`, or empty.
        stderr: String,
    },
    /// Talking to the program failed.
    #[error("i/o error talking to model program {program:?}: {why}")]
    Io { program: String, why: String },
    /// The program answered with something that is not an answer of the
    /// form asked for (prose, a truncated array): asking again may do.
    #[error("the model's answer cannot be used: {why}")]
    Unusable { why: String },
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
        /// The environment the program runs with.
        env: Vec<(String, String)>,
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

    /// How the backend names itself to a person.
    pub fn describe(&self) -> String {
        match self {
            Backend::Offline => "the offline backend".into(),
            Backend::Command { model, .. } => format!("model {model}"),
        }
    }

    /// Asks the program: `fill` replaces `{name}` placeholders in its argv
    /// (`{judge}` for a judge type). Every way the program can fail to answer
    /// is an [`Outage`]; stderr of a successful run is ignored.
    pub fn ask(&self, prompt: &str, fill: &[(&str, &str)]) -> Result<Answer, Outage> {
        let Backend::Command {
            argv, timeout, env, ..
        } = self
        else {
            return Err(Outage::NoProgram);
        };
        let argv = argv
            .iter()
            .map(|a| {
                fill.iter()
                    .fold(a.clone(), |a, (k, v)| a.replace(&format!("{{{k}}}"), v))
            })
            .collect();
        let inv = Invocation {
            argv,
            env: env.clone(),
            cwd: None,
            timeout: *timeout,
            max_output: MAX_ANSWER,
            new_session: false,
        };
        answer_of(process::run(&inv, prompt.as_bytes()))
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
        let bad = |name: &str, why: String| LoreError::Config {
            key: role.key(name),
            why,
        };
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
                    return Err(bad("model", format!("{model:?} is not a usable name")));
                }
                let text = command.unwrap_or_else(|| role.default_command().to_owned());
                let argv: Vec<String> = shell_words::split(&text)
                    .map_err(|e| bad("command", format!("{text:?} does not parse: {e}")))?
                    .into_iter()
                    .map(|a| a.replace("{model}", &model))
                    .collect();
                if argv.is_empty() {
                    return Err(bad("command", "it is empty".into()));
                }
                let timeout = match cfg("timeout") {
                    None => role.default_timeout(),
                    Some(t) => t
                        .parse::<f64>()
                        .ok()
                        .filter(|s| s.is_finite() && *s > 0.0)
                        .map(Duration::from_secs_f64)
                        .ok_or_else(|| {
                            bad(
                                "timeout",
                                format!("must be a positive number of seconds, got {t:?}"),
                            )
                        })?,
                };
                let mut env: Vec<(String, String)> = lore
                    .env
                    .child_env
                    .iter()
                    .filter(|(k, _)| k != HOOK_MARKER)
                    .cloned()
                    .collect();
                env.push((HOOK_MARKER.to_owned(), "1".to_owned()));
                Ok(Backend::Command {
                    argv,
                    model,
                    timeout,
                    env,
                })
            }
            other => Err(bad(
                "backend",
                format!("must be offline or command, got {other:?}"),
            )),
        }
    }
}

/// The answer in a finished run, or the outage that left none.
fn answer_of(run: Result<Finished, ProcessError>) -> Result<Answer, Outage> {
    let finished = run.map_err(|e| match e {
        ProcessError::NoProgram => Outage::NoProgram,
        ProcessError::NotFound { program, source } => Outage::NotFound {
            program,
            why: source.to_string(),
        },
        ProcessError::TimedOut { program, seconds } => Outage::TimedOut { program, seconds },
        ProcessError::Io { program, source } => Outage::Io {
            program,
            why: source.to_string(),
        },
    })?;
    if !finished.success() {
        return Err(Outage::Crashed {
            status: match finished.code {
                Some(code) => format!("exited with status {code}"),
                None => "killed by a signal".to_owned(),
            },
            stderr: stderr_tail(&finished.stderr),
        });
    }
    Answer::new(&finished.stdout).ok_or(Outage::EmptyOutput)
}

/// The last few hundred characters of stderr, on one line.
fn stderr_tail(stderr: &[u8]) -> String {
    let text = String::from_utf8_lossy(stderr);
    let one_line = crate::content::text::spaced(text.trim());
    let count = one_line.chars().count();
    let tail: String = one_line.chars().skip(count.saturating_sub(200)).collect();
    if tail.is_empty() {
        String::new()
    } else {
        format!(": {tail}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn finished(code: Option<i32>, stdout: &[u8], stderr: &[u8]) -> Result<Finished, ProcessError> {
        Ok(Finished {
            code,
            stdout: stdout.to_vec(),
            stderr: stderr.to_vec(),
            stdout_truncated: false,
        })
    }

    #[test]
    fn every_failure_to_answer_is_an_outage() {
        let refusal = br#"{"eligible":false,"reason":"no_resolution"}"#;
        assert_eq!(
            answer_of(finished(Some(3), refusal, b"boom\nat line 2\n")),
            Err(Outage::Crashed {
                status: "exited with status 3".into(),
                stderr: ": boom at line 2".into()
            })
        );
        assert_eq!(
            answer_of(finished(None, b"", b"")).unwrap_err().to_string(),
            "the model program failed (killed by a signal)"
        );
        assert_eq!(
            answer_of(Err(ProcessError::TimedOut {
                program: "claude".into(),
                seconds: 20.0
            }))
            .unwrap_err()
            .to_string(),
            "model program \"claude\" did not answer within 20s and was killed"
        );
        let missing = answer_of(Err(ProcessError::NotFound {
            program: "claude".into(),
            source: std::io::Error::from(std::io::ErrorKind::NotFound),
        }));
        assert!(
            matches!(missing, Err(Outage::NotFound { ref program, .. }) if program == "claude")
        );
        assert_eq!(
            answer_of(Err(ProcessError::NoProgram)),
            Err(Outage::NoProgram)
        );
        for empty in [&b""[..], b"\n", b" \t\r\n"] {
            assert_eq!(
                answer_of(finished(Some(0), empty, b"warning")),
                Err(Outage::EmptyOutput)
            );
        }
        assert_eq!(
            answer_of(finished(Some(0), refusal, b"a warning on stderr"))
                .unwrap()
                .raw()
                .as_bytes(),
            refusal
        );
    }

    #[test]
    fn the_offline_backend_is_never_asked_a_prompt() {
        assert_eq!(Backend::Offline.ask("x", &[]), Err(Outage::NoProgram));
    }

    #[test]
    fn placeholders_fill_the_argv_not_the_prompt() {
        let b = Backend::Command {
            argv: vec![
                "/bin/sh".into(),
                "-c".into(),
                "printf '%s|' \"$0\"; cat".into(),
                "{judge}".into(),
            ],
            model: "m".into(),
            timeout: Duration::from_secs(10),
            env: vec![("PATH".into(), "/usr/bin:/bin".into())],
        };
        let a = b.ask("{judge} stays", &[("judge", "adversarial")]).unwrap();
        assert_eq!(a.raw(), "adversarial|{judge} stays");
    }
}
