//! The JSON a coding agent's hook receives on stdin, read bounded and typed.
//!
//! Claude Code hands every hook `session_id`, `transcript_path`, `cwd` and
//! `hook_event_name`; SessionEnd adds `reason` (`clear`, `logout`,
//! `prompt_input_exit`, `other`, …). Codex hands its SessionStart and Stop
//! hooks the same four keys (`transcript_path` `null` for a session that
//! keeps no rollout), plus `model`, `permission_mode`, and `source`
//! (SessionStart) or `turn_id`, `stop_hook_active` and
//! `last_assistant_message` (Stop): openai/codex
//! `codex-rs/hooks/schema/generated/stop.command.input.schema.json` and
//! `codex-rs/hooks/src/events/session_start.rs`. Other keys are ignored, so
//! a newer harness that adds fields is still read. `session_id`, `cwd` and
//! `hook_event_name` are required, and `transcript_path` is a string or
//! `null`; `session_id` is an id as the transcript reader defines one; the
//! paths are non-empty, at most 4096 characters, without control
//! characters. At most [`MAX_HOOK_INPUT_BYTES`] are read.
//!
//! This module only parses. It must not open the transcript, decide whether
//! the event is worth capturing, or print: the caller asks
//! [`HookInput::captures`] and opens `transcript_path`.

use std::io::Read;
use std::path::Path;

use serde_json::Value;

use super::text::{clip, has_control};
use super::transcript::{is_id, MAX_PATH_CHARS};

/// The most read from stdin (64 KiB): the real input is a few hundred bytes.
pub const MAX_HOOK_INPUT_BYTES: usize = 64 << 10;

/// What the hook was told.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HookInput {
    /// The session that ended (for a resumed session, its new id).
    pub session_id: String,
    /// Where its transcript is; `None` when the agent keeps none (Codex
    /// sends `null` for an ephemeral session).
    pub transcript_path: Option<String>,
    /// The directory the session ran in.
    pub cwd: String,
    /// `SessionEnd`, `SessionStart`, `Stop`, …
    pub hook_event_name: String,
    /// Why the session ended (SessionEnd only).
    pub reason: Option<String>,
}

impl HookInput {
    /// The transcript as a path, when there is one.
    pub fn transcript(&self) -> Option<&Path> {
        self.transcript_path.as_deref().map(Path::new)
    }

    /// Whether the hook fired at the end of a session (Claude Code's
    /// SessionEnd).
    pub fn is_session_end(&self) -> bool {
        self.hook_event_name == "SessionEnd"
    }

    /// Whether the hook fired at the end of a turn (Codex's Stop, or Claude
    /// Code's): the session goes on, and a capture takes only what is new
    /// since the last one.
    pub fn is_turn_end(&self) -> bool {
        self.hook_event_name == "Stop"
    }

    /// Whether the hook is one capture acts on: a session's or a turn's end.
    pub fn captures(&self) -> bool {
        self.is_session_end() || self.is_turn_end()
    }
}

/// Why the hook input is unusable.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum HookError {
    /// Reading stdin failed.
    #[error("could not read the hook input: {0}")]
    Io(#[source] crate::cause::IoCause),
    /// More than the cap arrived.
    #[error("the hook input is over the limit of {limit} bytes; a Claude Code hook input is a few hundred")]
    TooLarge { limit: usize },
    /// Not JSON.
    #[error("the hook input is not JSON: {0}")]
    NotJson(String),
    /// JSON, but not an object.
    #[error("the hook input is JSON but not an object")]
    NotAnObject,
    /// A required key is missing, or is not a string.
    #[error("the hook input has no string {0:?}")]
    Missing(&'static str),
    /// A key is present but unusable.
    #[error("the hook input's {field:?} is unusable: {why}")]
    Unusable { field: &'static str, why: String },
}

/// Reads at most [`MAX_HOOK_INPUT_BYTES`] from `reader` and parses them.
pub fn read_hook_input<R: Read>(reader: R) -> Result<HookInput, HookError> {
    let mut bytes = Vec::new();
    reader
        .take(MAX_HOOK_INPUT_BYTES as u64 + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| HookError::Io(e.into()))?;
    parse_hook_input(&bytes)
}

/// Parses the hook input.
pub fn parse_hook_input(bytes: &[u8]) -> Result<HookInput, HookError> {
    if bytes.len() > MAX_HOOK_INPUT_BYTES {
        return Err(HookError::TooLarge {
            limit: MAX_HOOK_INPUT_BYTES,
        });
    }
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    let value: Value =
        serde_json::from_slice(bytes).map_err(|e| HookError::NotJson(clip(&e.to_string(), 200)))?;
    let Value::Object(map) = value else {
        return Err(HookError::NotAnObject);
    };
    let required = |field: &'static str| -> Result<String, HookError> {
        map.get(field)
            .and_then(Value::as_str)
            .map(str::to_owned)
            .ok_or(HookError::Missing(field))
    };
    let path = |field: &'static str| -> Result<String, HookError> {
        let p = required(field)?;
        let why = if p.is_empty() {
            Some("it is empty".to_owned())
        } else if has_control(&p) || p.contains(['\n', '\r', '\t']) {
            Some("it holds control characters".to_owned())
        } else if p.chars().count() > MAX_PATH_CHARS {
            Some(format!("it is over {MAX_PATH_CHARS} characters"))
        } else {
            None
        };
        match why {
            Some(why) => Err(HookError::Unusable { field, why }),
            None => Ok(p),
        }
    };
    let session_id = required("session_id")?;
    if !is_id(&session_id) {
        return Err(HookError::Unusable {
            field: "session_id",
            why: format!(
                "{:?} is not 1 to 128 characters of letters, digits, '-', '_', '.' and ':'",
                clip(&session_id, 60)
            ),
        });
    }
    let hook_event_name = required("hook_event_name")?;
    if !is_id(&hook_event_name) {
        return Err(HookError::Unusable {
            field: "hook_event_name",
            why: format!("{:?} is not an event name", clip(&hook_event_name, 60)),
        });
    }
    let transcript_path = match map.get("transcript_path") {
        Some(Value::Null) => None,
        _ => Some(path("transcript_path")?),
    };
    Ok(HookInput {
        session_id,
        transcript_path,
        cwd: path("cwd")?,
        hook_event_name,
        reason: map
            .get("reason")
            .and_then(Value::as_str)
            .filter(|r| is_id(r))
            .map(str::to_owned),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const FIXTURE: &[u8] = include_bytes!("testdata/session-end-hook.json");

    #[test]
    fn the_session_end_input_is_read() {
        let h = read_hook_input(FIXTURE).unwrap();
        assert_eq!(
            h,
            HookInput {
                session_id: "c4e2a9d7-1b3f-4e8a-a6d5-93f0b7c1e248".into(),
                transcript_path: Some("/home/dev/.claude/projects/-home-dev-acme-web/c4e2a9d7-1b3f-4e8a-a6d5-93f0b7c1e248.jsonl".into()),
                cwd: "/home/dev/acme-web".into(),
                hook_event_name: "SessionEnd".into(),
                reason: Some("prompt_input_exit".into()),
            }
        );
        assert!(h.is_session_end());
        assert_eq!(
            h.transcript()
                .and_then(|t| t.file_name())
                .and_then(|n| n.to_str()),
            Some("c4e2a9d7-1b3f-4e8a-a6d5-93f0b7c1e248.jsonl")
        );
    }

    #[test]
    fn codex_s_stop_and_session_start_inputs_are_read() {
        // Every key Codex's Stop schema requires, as Codex sends them.
        let stop = r#"{"session_id":"0199f3a2-5c1e-7d40-9b8a-2f6e4c1d7a35","turn_id":"0199f3a2-5c4a-7b10-8e2d-91c0a7b3e611","transcript_path":"/home/dev/.codex/sessions/2026/09/02/rollout-2026-09-02T09-00-00-0199f3a2-5c1e-7d40-9b8a-2f6e4c1d7a35.jsonl","cwd":"/home/dev/snowy-admin-web","hook_event_name":"Stop","model":"gpt-5.3-codex","permission_mode":"default","stop_hook_active":false,"last_assistant_message":"The install and the build pass now."}"#;
        let h = parse_hook_input(stop.as_bytes()).unwrap();
        assert!(h.is_turn_end() && h.captures() && !h.is_session_end());
        assert_eq!(h.session_id, "0199f3a2-5c1e-7d40-9b8a-2f6e4c1d7a35");
        assert!(h
            .transcript()
            .unwrap()
            .ends_with("rollout-2026-09-02T09-00-00-0199f3a2-5c1e-7d40-9b8a-2f6e4c1d7a35.jsonl"));
        // An ephemeral session keeps no rollout.
        let none = stop.replace(
            r#""transcript_path":"/home/dev/.codex/sessions/2026/09/02/rollout-2026-09-02T09-00-00-0199f3a2-5c1e-7d40-9b8a-2f6e4c1d7a35.jsonl""#,
            r#""transcript_path":null"#,
        );
        let h = parse_hook_input(none.as_bytes()).unwrap();
        assert_eq!(h.transcript(), None);
        let start = r#"{"session_id":"0199f3a2-5c1e-7d40-9b8a-2f6e4c1d7a35","transcript_path":null,"cwd":"/home/dev/snowy-admin-web","hook_event_name":"SessionStart","model":"gpt-5.3-codex","permission_mode":"default","source":"startup"}"#;
        let h = parse_hook_input(start.as_bytes()).unwrap();
        assert!(!h.captures());
    }

    #[test]
    fn unusable_inputs_are_refused_with_the_reason() {
        let ok = r#""session_id":"s1","transcript_path":"/t.jsonl","cwd":"/p","hook_event_name":"SessionStart""#;
        let h = parse_hook_input(format!("{{{ok},\"source\":\"resume\"}}").as_bytes()).unwrap();
        assert!(!h.is_session_end());
        assert_eq!(h.reason, None);
        for (input, want) in [
            ("".to_owned(), "the hook input is not JSON: EOF while parsing a value at line 1 column 0"),
            ("[]".to_owned(), "the hook input is JSON but not an object"),
            (
                r#"{"transcript_path":"/t","cwd":"/p","hook_event_name":"SessionEnd"}"#.to_owned(),
                "the hook input has no string \"session_id\"",
            ),
            (
                r#"{"session_id":7,"transcript_path":"/t","cwd":"/p","hook_event_name":"SessionEnd"}"#.to_owned(),
                "the hook input has no string \"session_id\"",
            ),
            (
                r#"{"session_id":"a b","transcript_path":"/t","cwd":"/p","hook_event_name":"SessionEnd"}"#.to_owned(),
                "the hook input's \"session_id\" is unusable: \"a b\" is not 1 to 128 characters of letters, digits, '-', '_', '.' and ':'",
            ),
            (
                r#"{"session_id":"s","transcript_path":"","cwd":"/p","hook_event_name":"SessionEnd"}"#.to_owned(),
                "the hook input's \"transcript_path\" is unusable: it is empty",
            ),
            (
                r#"{"session_id":"s","transcript_path":"/t\n.jsonl","cwd":"/p","hook_event_name":"SessionEnd"}"#.to_owned(),
                "the hook input's \"transcript_path\" is unusable: it holds control characters",
            ),
            (
                r#"{"session_id":"s","transcript_path":"/t","hook_event_name":"SessionEnd"}"#.to_owned(),
                "the hook input has no string \"cwd\"",
            ),
        ] {
            assert_eq!(
                parse_hook_input(input.as_bytes()).unwrap_err().to_string(),
                want,
                "{input}"
            );
        }
    }

    #[test]
    fn reading_is_bounded() {
        let pad = " ".repeat(MAX_HOOK_INPUT_BYTES);
        let big = format!("{pad}{}", String::from_utf8_lossy(FIXTURE));
        assert_eq!(
            read_hook_input(big.as_bytes()).unwrap_err(),
            HookError::TooLarge {
                limit: MAX_HOOK_INPUT_BYTES
            }
        );
        // An endless stdin is read only up to the cap.
        assert!(matches!(
            read_hook_input(std::io::repeat(b' ')),
            Err(HookError::TooLarge { .. })
        ));
    }
}
