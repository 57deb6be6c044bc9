//! Capture: a coding agent's session transcript (Claude Code's, or a Codex
//! CLI rollout) in, archivist artifacts out — the pure core of `git lore
//! capture`.
//!
//! ```text
//! hook stdin ──hook──► HookInput (transcript_path, session_id, cwd)
//! transcript ──transcript──► Transcript (events, skipped lines, notes)
//!     │
//!     ├─ offline::moments ─────────────────────────────┐  (deterministic)
//!     └─ prompt::render_prompt ► model ► prompt::parse_answer
//!                                                      ▼
//!                      Vec<Moment> ──artifact::build──► Vec<Captured> (artifacts)
//!                      (ids, provenance, redaction, schema check)
//! ```
//!
//! - [`transcript`]: JSON Lines read streaming and bounded; malformed,
//!   oversized and cut lines skipped and counted; the format told by the
//!   lines.
//! - [`codex`]: a Codex rollout's lines read into the same events (a
//!   `function_call_output` is a tool result, as Claude Code's
//!   `tool_result`).
//! - [`hook`]: the SessionEnd (Claude Code) or Stop (Codex) hook's stdin
//!   JSON.
//! - [`offline`]: the deterministic backend, which picks the moments the
//!   offline transform can turn into lessons.
//! - [`prompt`]: the command backend's prompt (`templates/capture.md`) and
//!   the strict parser of the model's answer.
//! - [`artifact`]: moments become artifacts: content-addressed ids,
//!   provenance, files, secrets redacted.
//! - [`redact`]: disclosure-scanner findings replaced before anything is
//!   kept or sent.
//! - [`report`]: a moment an agent reports itself (the MCP server's
//!   `propose` tool) becomes an artifact the same way, without a
//!   transcript.
//!
//! A [`Moment`] is what a backend proposes: an event of the transcript and
//! what happened there. [`check`] is the one place a moment's fields are
//! bounded; a moment that fails it, or cannot become an artifact, is
//! [`Refused`] on its own, with a [`MomentError`], and the others go on.
//!
//! Pure: no file system, process, clock, environment or randomness. The
//! caller opens the transcript, runs the model, computes the project key
//! and ingests the artifacts.

pub mod artifact;
pub mod codex;
pub mod evidence;
pub mod hook;
mod lines;
pub mod offline;
pub mod prompt;
pub mod redact;
pub mod report;
mod text;
pub mod transcript;

use std::fmt;

pub use artifact::{build, capture_id, ArtifactError, Built, Captured, Provenance, Trigger};
pub use hook::{parse_hook_input, read_hook_input, HookError, HookInput};
pub use prompt::{parse_answer, render_prompt, Answer, AnswerError, Excerpt};
pub use redact::{redact, RedactError, Redacted};
pub use transcript::{
    read_transcript, read_transcript_from, read_transcript_tail, Block, Event, Format, Limits,
    Note, Role, Transcript, TranscriptError,
};

/// The longest summary, in characters. Upstream asks for one sentence under
/// 120; twice that leaves room for package names and versions.
pub const MAX_SUMMARY_CHARS: usize = 240;

/// The longest detail, in characters.
pub const MAX_DETAIL_CHARS: usize = 4000;

/// The most files one moment names.
pub const MAX_FILES: usize = 50;

/// The longest file path, in characters.
pub const MAX_FILE_CHARS: usize = 512;

/// The artifact kinds, as the artifact schema names them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Kind {
    /// A choice made and applied: a fix, a pin, an upgrade, a workaround.
    Decision,
    /// An approach tried that did not work, and why.
    DeadEnd,
    /// A problem left open.
    OpenQuestion,
}

impl Kind {
    /// Every kind, in the schema's order.
    pub const ALL: [Kind; 3] = [Kind::Decision, Kind::DeadEnd, Kind::OpenQuestion];

    /// The schema's spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Decision => "decision",
            Kind::DeadEnd => "dead_end",
            Kind::OpenQuestion => "open_question",
        }
    }

    /// The kind with this spelling.
    pub fn parse(s: &str) -> Option<Kind> {
        Kind::ALL.into_iter().find(|k| k.as_str() == s)
    }
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One moment worth keeping, as a backend proposes it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Moment {
    /// The uuid of the transcript event it is drawn from.
    pub event: String,
    /// What kind of moment.
    pub kind: Kind,
    /// One sentence.
    pub summary: String,
    /// The cause, the evidence, the remedy.
    pub detail: Option<String>,
    /// Files it concerns, as the backend gives them (made relative by
    /// [`artifact::build`]).
    pub files: Vec<String>,
    /// The evidence read from the session (`crate::facts`): the resolver
    /// error, what changed, what succeeded after.
    pub facts: Vec<crate::facts::Fact>,
}

/// Why one moment yields no artifact. The other moments are unaffected.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum MomentError {
    /// The cited event is not in the transcript (as read).
    #[error("cites event {0:?}, which is not in the transcript")]
    NotInTranscript(String),
    /// A required key is absent.
    #[error("has no {0:?}")]
    MissingKey(&'static str),
    /// A key holds the wrong type.
    #[error("{key:?} must be {expected}")]
    WrongType {
        key: &'static str,
        expected: &'static str,
    },
    /// A key the moment shape does not have.
    #[error("has a key {0:?} that a moment does not have (event, kind, summary, detail, files)")]
    UnknownKey(String),
    /// A kind the artifact schema does not have.
    #[error("kind {0:?} is not one of decision, dead_end, open_question")]
    BadKind(String),
    /// The summary is empty after trimming.
    #[error("has an empty summary")]
    EmptySummary,
    /// The summary is too long.
    #[error("has a summary of {chars} characters, over the limit of {limit}")]
    SummaryTooLong { chars: usize, limit: usize },
    /// The detail is too long.
    #[error("has a detail of {chars} characters, over the limit of {limit}")]
    DetailTooLong { chars: usize, limit: usize },
    /// Too many files.
    #[error("names {count} files, over the limit of {limit}")]
    TooManyFiles { count: usize, limit: usize },
    /// A file entry that is no path.
    #[error("names a file {0:?} that is empty, over 512 characters, or holds control, bidi or invisible characters")]
    BadFile(String),
    /// The cited event has no timestamp, so there is no time for the id.
    #[error("cites event {0:?}, which has no timestamp")]
    NoTimestamp(String),
    /// The event's time does not fit an artifact id.
    #[error(
        "cites event {0:?}, whose time is outside what an artifact id can hold (1970 to 10889)"
    )]
    TimeOutOfRange(String),
    /// Text the disclosure scanner flags could not be redacted.
    #[error("holds text the disclosure scanner flags and that could not be redacted: {0}")]
    Secret(#[source] RedactError),
    /// The artifact built from it does not match the artifact schema.
    #[error("does not make a valid artifact: {0}")]
    SchemaInvalid(String),
}

/// A moment that was refused, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Refused {
    /// Its position among the moments (from 0; shown from 1).
    pub index: usize,
    /// The event it cites, when it names one (cut to 80 characters).
    pub event: Option<String>,
    /// Why.
    pub why: MomentError,
}

/// Numbered from 1, naming the event it cites, and redacted: the reason can
/// quote the model's text (a kind, a key, a file), which can hold a secret.
/// A line that cannot be made clean is replaced by one that quotes nothing.
impl fmt::Display for Refused {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let n = self.index + 1;
        let line = match (&self.why, &self.event) {
            // The reason names the event already.
            (MomentError::NotInTranscript(_), _) => format!("moment {n} {}", self.why),
            (_, Some(e)) => format!("moment {n} (event {e:?}) {}", self.why),
            (_, None) => format!("moment {n} (no event) {}", self.why),
        };
        match redact::redact(&line) {
            Ok(r) => f.write_str(&r.text),
            Err(_) => write!(
                f,
                "moment {n}: its text holds what the disclosure scanner flags, so it is not shown"
            ),
        }
    }
}

/// Model or transcript text as a refusal quotes it: redacted first (a
/// secret cut short by clipping no longer scans as one), then cut to `max`
/// characters; text that cannot be made clean is not quoted at all.
pub(crate) fn quote(s: &str, max: usize) -> String {
    match redact::redact(s) {
        Ok(r) => text::clip(&r.text, max),
        Err(_) => "[text the disclosure scanner flags]".to_owned(),
    }
}

/// Checks a moment's fields against the bounds and the transcript: the event
/// is in it, the summary is non-empty and at most [`MAX_SUMMARY_CHARS`], the
/// detail at most [`MAX_DETAIL_CHARS`], at most [`MAX_FILES`] files of 1 to
/// [`MAX_FILE_CHARS`] characters, every one shown as itself
/// ([`crate::content::text::is_shown`]: no control, bidi or invisible
/// character).
pub fn check(m: &Moment, t: &Transcript) -> Result<(), MomentError> {
    if t.event(&m.event).is_none() {
        return Err(MomentError::NotInTranscript(quote(&m.event, 80)));
    }
    let summary = m.summary.trim();
    if summary.is_empty() {
        return Err(MomentError::EmptySummary);
    }
    let chars = summary.chars().count();
    if chars > MAX_SUMMARY_CHARS {
        return Err(MomentError::SummaryTooLong {
            chars,
            limit: MAX_SUMMARY_CHARS,
        });
    }
    if let Some(d) = &m.detail {
        let chars = d.chars().count();
        if chars > MAX_DETAIL_CHARS {
            return Err(MomentError::DetailTooLong {
                chars,
                limit: MAX_DETAIL_CHARS,
            });
        }
    }
    if m.files.len() > MAX_FILES {
        return Err(MomentError::TooManyFiles {
            count: m.files.len(),
            limit: MAX_FILES,
        });
    }
    if let Some(bad) = m.files.iter().find(|f| {
        f.trim().is_empty()
            || f.chars().count() > MAX_FILE_CHARS
            || !f.chars().all(crate::content::text::is_shown)
    }) {
        return Err(MomentError::BadFile(quote(bad, 80)));
    }
    Ok(())
}

/// The fixtures in `testdata/`, for the tests of every capture module.
#[cfg(test)]
pub(crate) mod testdata {
    use super::{read_transcript, Limits, Transcript};

    /// The bytes of one fixture.
    pub(crate) fn fixture(name: &str) -> &'static [u8] {
        match name {
            "version-mismatch" => include_bytes!("testdata/version-mismatch.jsonl"),
            "no-lesson" => include_bytes!("testdata/no-lesson.jsonl"),
            "truncated" => include_bytes!("testdata/truncated.jsonl"),
            "resumed" => include_bytes!("testdata/resumed.jsonl"),
            "secret-in-tool-output" => include_bytes!("testdata/secret-in-tool-output.jsonl"),
            other => panic!("no fixture {other}"),
        }
    }

    /// One fixture, read with the default limits.
    pub(crate) fn transcript(name: &str) -> Transcript {
        read_transcript(fixture(name), Limits::default()).unwrap()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn transcript() -> Transcript {
        testdata::transcript("version-mismatch")
    }

    fn moment() -> Moment {
        Moment {
            event: "00000014-4c1d-4e2a-9b7f-a11ce0000014".into(),
            kind: Kind::Decision,
            summary: "Pinned vitest to 3.2.4.".into(),
            detail: None,
            files: vec!["package.json".into()],
            facts: Vec::new(),
        }
    }

    #[test]
    fn kinds_are_the_schemas() {
        let schema: serde_json::Value =
            serde_json::from_str(crate::schema::SchemaKind::Artifact.text()).unwrap();
        let names: Vec<&str> = Kind::ALL.iter().map(|k| k.as_str()).collect();
        assert_eq!(
            schema["properties"]["kind"]["enum"],
            serde_json::json!(names)
        );
        assert_eq!(Kind::parse("dead_end"), Some(Kind::DeadEnd));
        assert_eq!(Kind::parse("Decision"), None);
    }

    #[test]
    fn moments_are_bounded() {
        let t = transcript();
        assert_eq!(check(&moment(), &t), Ok(()));
        let with = |f: &dyn Fn(&mut Moment)| {
            let mut m = moment();
            f(&mut m);
            check(&m, &t).unwrap_err().to_string()
        };
        assert_eq!(
            with(&|m| m.event = "nope".into()),
            "cites event \"nope\", which is not in the transcript"
        );
        assert_eq!(with(&|m| m.summary = " \n ".into()), "has an empty summary");
        assert_eq!(
            with(&|m| m.summary = "é".repeat(MAX_SUMMARY_CHARS + 1)),
            "has a summary of 241 characters, over the limit of 240"
        );
        assert_eq!(
            with(&|m| m.detail = Some("x".repeat(MAX_DETAIL_CHARS + 1))),
            "has a detail of 4001 characters, over the limit of 4000"
        );
        assert_eq!(
            with(&|m| m.files = vec!["a".into(); MAX_FILES + 1]),
            "names 51 files, over the limit of 50"
        );
        assert_eq!(
            with(&|m| m.files = vec!["a\u{0}b".into()]),
            "names a file \"a\\0b\" that is empty, over 512 characters, or holds control, bidi or invisible characters"
        );
        let mut m = moment();
        m.summary = "é".repeat(MAX_SUMMARY_CHARS);
        assert_eq!(check(&m, &t), Ok(()));
    }
}
