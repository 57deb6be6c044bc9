//! Commit messages and their `Lore-*` trailers: the public contract every
//! git-lore commit carries (documented in `docs/trailers.md`).
//!
//! A message is a one-line subject, an optional body, and a final paragraph of
//! `Key: value` trailer lines — laid out so that `git interpret-trailers
//! --parse` and `git log --format=%(trailers)` read exactly what was written.
//! Values are single-line: a newline, carriage return or any other control
//! character is refused here, before anything is written, never escaped.
//!
//! This module owns the vocabulary, rendering and parsing. It does not decide
//! which trailers a given change must carry (the operations do) or check that
//! trailers agree with a commit's tree (the audit does).

use std::fmt;
use std::str::FromStr;

use crate::model::Id;

/// The trailer format this build writes. Readers accept any `1.x` and refuse
/// an unknown major version.
pub const FORMAT: &str = "1";

/// Errors building or reading trailers.
#[derive(Debug, Clone, thiserror::Error, PartialEq, Eq)]
pub enum TrailerError {
    /// A value with a newline, carriage return or other control character.
    #[error("trailer {key} has a control character or line break in its value {value:?}; trailer values must be one line")]
    ControlCharacter { key: String, value: String },
    /// An empty value, or one with leading or trailing white space that git
    /// would silently trim.
    #[error("trailer {key} has an empty or padded value {value:?}")]
    BadValue { key: String, value: String },
    /// A key that is not a trailer token.
    #[error("{0:?} is not a valid trailer key")]
    BadKey(String),
    /// A subject line that is empty or spans lines.
    #[error("commit subject must be one non-empty line without control characters: {0:?}")]
    BadSubject(String),
    /// A body that would be read as part of the trailer block or the subject.
    #[error("commit body must not be empty or contain control characters other than line breaks")]
    BadBody,
    /// `Lore-Format` missing or of an unknown major version.
    #[error("unsupported Lore-Format {0:?}; this git-lore reads format 1")]
    UnsupportedFormat(String),
    /// `Lore-Action` missing or unknown.
    #[error("unknown Lore-Action {0:?}")]
    UnknownAction(String),
    /// A trailer that must hold an id does not.
    #[error("trailer {key} does not hold a ULID: {value:?}")]
    BadId { key: String, value: String },
    /// A trailer required by the format is missing.
    #[error("missing trailer {0}")]
    Missing(&'static str),
}

/// One `Key: value` line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Trailer {
    pub key: String,
    pub value: String,
}

fn valid_key(key: &str) -> bool {
    !key.is_empty()
        && key.len() <= 64
        && key.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')
        && !key.starts_with('-')
}

fn check_value(key: &str, value: &str) -> Result<(), TrailerError> {
    if value.chars().any(|c| c.is_control()) {
        return Err(TrailerError::ControlCharacter {
            key: key.to_owned(),
            value: value.chars().take(80).collect(),
        });
    }
    if value.is_empty() || value.trim() != value {
        return Err(TrailerError::BadValue {
            key: key.to_owned(),
            value: value.to_owned(),
        });
    }
    Ok(())
}

impl Trailer {
    /// A checked trailer: a token key and a one-line, unpadded value.
    pub fn new(key: &str, value: &str) -> Result<Trailer, TrailerError> {
        if !valid_key(key) {
            return Err(TrailerError::BadKey(key.to_owned()));
        }
        check_value(key, value)?;
        Ok(Trailer {
            key: key.to_owned(),
            value: value.to_owned(),
        })
    }
}

/// What a commit did. Every git-lore commit names exactly one.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Action {
    Init,
    Propose,
    Decline,
    Confirm,
    Unconfirm,
    Pass,
    Judge,
    Promote,
    Relate,
    Supersede,
    Merge,
    Refine,
    Contradict,
    Retract,
    Publish,
    Config,
}

impl Action {
    pub const ALL: [Action; 16] = [
        Action::Init,
        Action::Propose,
        Action::Decline,
        Action::Confirm,
        Action::Unconfirm,
        Action::Pass,
        Action::Judge,
        Action::Promote,
        Action::Relate,
        Action::Supersede,
        Action::Merge,
        Action::Refine,
        Action::Contradict,
        Action::Retract,
        Action::Publish,
        Action::Config,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Action::Init => "init",
            Action::Propose => "propose",
            Action::Decline => "decline",
            Action::Confirm => "confirm",
            Action::Unconfirm => "unconfirm",
            Action::Pass => "pass",
            Action::Judge => "judge",
            Action::Promote => "promote",
            Action::Relate => "relate",
            Action::Supersede => "supersede",
            Action::Merge => "merge",
            Action::Refine => "refine",
            Action::Contradict => "contradict",
            Action::Retract => "retract",
            Action::Publish => "publish",
            Action::Config => "config",
        }
    }
}

impl FromStr for Action {
    type Err = TrailerError;
    fn from_str(s: &str) -> Result<Action, TrailerError> {
        Action::ALL
            .into_iter()
            .find(|a| a.as_str() == s)
            .ok_or_else(|| TrailerError::UnknownAction(s.to_owned()))
    }
}

impl fmt::Display for Action {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The `Lore-*` trailers of one commit, typed. Unknown `Lore-*` keys are kept
/// in `other` and otherwise ignored, so a newer minor format still reads.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LoreTrailers {
    pub action: Action,
    pub lesson: Option<Id>,
    pub artifact: Option<Id>,
    /// Status before the change (`Lore-From`).
    pub from: Option<String>,
    /// Status after the change (`Lore-Status`).
    pub status: Option<String>,
    pub visibility: Option<String>,
    pub reason: Option<String>,
    pub rubric: Option<String>,
    pub gate: Option<String>,
    pub score: Option<String>,
    /// One `Lore-Judge: <type> <score> <pass|fail>` per judge.
    pub judges: Vec<String>,
    pub model: Option<String>,
    /// The pool a `promote` wrote to (`local`, `org`, `public`).
    pub pool: Option<String>,
    /// Lessons a relation names (`Lore-Target`), in order.
    pub targets: Vec<Id>,
    /// Unknown `Lore-*` trailers, kept verbatim.
    pub other: Vec<Trailer>,
}

impl LoreTrailers {
    /// Trailers for `action` with nothing else set.
    pub fn new(action: Action) -> LoreTrailers {
        LoreTrailers {
            action,
            lesson: None,
            artifact: None,
            from: None,
            status: None,
            visibility: None,
            reason: None,
            rubric: None,
            gate: None,
            score: None,
            judges: Vec::new(),
            model: None,
            pool: None,
            targets: Vec::new(),
            other: Vec::new(),
        }
    }

    /// The trailer lines in their canonical order. Fails on any value that is
    /// not a single clean line.
    pub fn to_trailers(&self) -> Result<Vec<Trailer>, TrailerError> {
        let mut out = vec![
            Trailer::new("Lore-Format", FORMAT)?,
            Trailer::new("Lore-Action", self.action.as_str())?,
        ];
        let mut opt = |key: &str, v: &Option<String>| -> Result<(), TrailerError> {
            if let Some(v) = v {
                out.push(Trailer::new(key, v)?);
            }
            Ok(())
        };
        opt("Lore-Lesson", &self.lesson.map(|i| i.to_string()))?;
        opt("Lore-Artifact", &self.artifact.map(|i| i.to_string()))?;
        opt("Lore-From", &self.from)?;
        opt("Lore-Status", &self.status)?;
        opt("Lore-Visibility", &self.visibility)?;
        opt("Lore-Pool", &self.pool)?;
        opt("Lore-Rubric", &self.rubric)?;
        opt("Lore-Gate", &self.gate)?;
        opt("Lore-Score", &self.score)?;
        opt("Lore-Reason", &self.reason)?;
        opt("Lore-Model", &self.model)?;
        for t in &self.targets {
            out.push(Trailer::new("Lore-Target", &t.to_string())?);
        }
        for j in &self.judges {
            out.push(Trailer::new("Lore-Judge", j)?);
        }
        for t in &self.other {
            out.push(Trailer::new(&t.key, &t.value)?);
        }
        Ok(out)
    }

    /// Reads the typed trailers from parsed trailer lines. Non-`Lore-*`
    /// trailers are ignored; a missing or unknown-major `Lore-Format` is refused.
    pub fn from_trailers(lines: &[Trailer]) -> Result<LoreTrailers, TrailerError> {
        let get = |k: &str| lines.iter().find(|t| t.key.eq_ignore_ascii_case(k));
        let format = get("Lore-Format").ok_or(TrailerError::Missing("Lore-Format"))?;
        let major = format.value.split('.').next().unwrap_or("");
        if major != FORMAT {
            return Err(TrailerError::UnsupportedFormat(format.value.clone()));
        }
        let action: Action = get("Lore-Action")
            .ok_or(TrailerError::Missing("Lore-Action"))?
            .value
            .parse()?;
        let id = |k: &str| -> Result<Option<Id>, TrailerError> {
            get(k)
                .map(|t| {
                    t.value.parse().map_err(|_| TrailerError::BadId {
                        key: k.to_owned(),
                        value: t.value.clone(),
                    })
                })
                .transpose()
        };
        let s = |k: &str| get(k).map(|t| t.value.clone());
        let mut out = LoreTrailers::new(action);
        out.lesson = id("Lore-Lesson")?;
        out.artifact = id("Lore-Artifact")?;
        out.from = s("Lore-From");
        out.status = s("Lore-Status");
        out.visibility = s("Lore-Visibility");
        out.pool = s("Lore-Pool");
        out.rubric = s("Lore-Rubric");
        out.gate = s("Lore-Gate");
        out.score = s("Lore-Score");
        out.reason = s("Lore-Reason");
        out.model = s("Lore-Model");
        const KNOWN: [&str; 15] = [
            "Lore-Format",
            "Lore-Action",
            "Lore-Lesson",
            "Lore-Artifact",
            "Lore-From",
            "Lore-Status",
            "Lore-Visibility",
            "Lore-Pool",
            "Lore-Rubric",
            "Lore-Gate",
            "Lore-Score",
            "Lore-Reason",
            "Lore-Model",
            "Lore-Judge",
            "Lore-Target",
        ];
        for t in lines {
            if t.key.eq_ignore_ascii_case("Lore-Judge") {
                out.judges.push(t.value.clone());
            } else if t.key.eq_ignore_ascii_case("Lore-Target") {
                out.targets
                    .push(t.value.parse().map_err(|_| TrailerError::BadId {
                        key: "Lore-Target".into(),
                        value: t.value.clone(),
                    })?);
            } else if t.key.len() > 5
                && t.key[..5].eq_ignore_ascii_case("Lore-")
                && !KNOWN.iter().any(|k| k.eq_ignore_ascii_case(&t.key))
            {
                out.other.push(t.clone());
            }
        }
        Ok(out)
    }
}

/// A whole commit message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Message {
    pub subject: String,
    pub body: Option<String>,
    pub trailers: Vec<Trailer>,
}

impl Message {
    /// Checks and assembles a message.
    pub fn new(
        subject: &str,
        body: Option<&str>,
        trailers: &LoreTrailers,
    ) -> Result<Message, TrailerError> {
        if subject.trim().is_empty() || subject.chars().any(|c| c.is_control()) {
            return Err(TrailerError::BadSubject(subject.chars().take(80).collect()));
        }
        let body = match body {
            Some(b) => {
                let b = b.trim();
                if b.is_empty() || b.chars().any(|c| c.is_control() && c != '\n') {
                    return Err(TrailerError::BadBody);
                }
                Some(b.to_owned())
            }
            None => None,
        };
        Ok(Message {
            subject: subject.to_owned(),
            body,
            trailers: trailers.to_trailers()?,
        })
    }

    /// The message as written into the commit: subject, blank line, body and
    /// blank line if any, then the trailer block, ending in a newline.
    pub fn render(&self) -> String {
        let mut s = String::with_capacity(256);
        s.push_str(&self.subject);
        s.push_str("\n\n");
        if let Some(b) = &self.body {
            s.push_str(b);
            s.push_str("\n\n");
        }
        for t in &self.trailers {
            s.push_str(&t.key);
            s.push_str(": ");
            s.push_str(&t.value);
            s.push('\n');
        }
        s
    }
}

fn trailer_line(line: &str) -> Option<Trailer> {
    let (key, value) = line.split_once(':')?;
    let key = key.trim_end();
    if !valid_key(key) {
        return None;
    }
    Some(Trailer {
        key: key.to_owned(),
        value: value.trim().to_owned(),
    })
}

/// Splits a message into its subject and its trailer block, reading trailers
/// the way git does for the messages git-lore writes: the last paragraph,
/// when every line of it is a `Key: value` line or a folded continuation
/// (which is unfolded). A message whose last paragraph is prose has none.
pub fn parse(message: &str) -> (String, Vec<Trailer>) {
    let message = message.replace("\r\n", "\n");
    let subject = message.lines().next().unwrap_or("").to_owned();
    let paragraphs: Vec<&str> = message
        .split("\n\n")
        .map(|p| p.trim_matches('\n'))
        .filter(|p| !p.trim().is_empty())
        .collect();
    if paragraphs.len() < 2 {
        return (subject, Vec::new());
    }
    let last = paragraphs[paragraphs.len() - 1];
    let mut out: Vec<Trailer> = Vec::new();
    for line in last.lines() {
        if line.starts_with([' ', '\t']) {
            match out.last_mut() {
                Some(t) => {
                    t.value.push(' ');
                    t.value.push_str(line.trim());
                }
                None => return (subject, Vec::new()),
            }
        } else if let Some(t) = trailer_line(line) {
            out.push(t);
        } else {
            return (subject, Vec::new());
        }
    }
    (subject, out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn id(s: &str) -> Id {
        s.parse().unwrap()
    }

    #[test]
    fn renders_and_parses_back() {
        let mut t = LoreTrailers::new(Action::Judge);
        t.lesson = Some(id("01KZ4A1B2C3D4E5F6G7H8J9K0M"));
        t.artifact = Some(id("01KZ45MKAM734ZS7JK24D2DK0R"));
        t.from = Some("confirmed".into());
        t.status = Some("approved".into());
        t.score = Some("0.85".into());
        t.judges = vec!["standard 0.90 pass".into(), "adversarial 0.80 pass".into()];
        let m = Message::new(
            "judge 01KZ4A1B2C3D4E5F6G7H8J9K0M: approved",
            Some("why"),
            &t,
        )
        .unwrap();
        let text = m.render();
        assert!(text.starts_with("judge 01KZ4A1B2C3D4E5F6G7H8J9K0M: approved\n\nwhy\n\nLore-Format: 1\nLore-Action: judge\n"));
        assert!(text.ends_with("Lore-Judge: adversarial 0.80 pass\n"));
        let (subject, lines) = parse(&text);
        assert_eq!(subject, "judge 01KZ4A1B2C3D4E5F6G7H8J9K0M: approved");
        assert_eq!(LoreTrailers::from_trailers(&lines).unwrap(), t);
    }

    #[test]
    fn refuses_line_breaks_and_control_characters() {
        for bad in [
            "a\nLore-Status: approved",
            "a\rb",
            "tab\there",
            "nul\0",
            "esc\u{1b}[31m",
        ] {
            let mut t = LoreTrailers::new(Action::Pass);
            t.reason = Some(bad.into());
            let err = t.to_trailers().unwrap_err();
            assert!(
                matches!(err, TrailerError::ControlCharacter { ref key, .. } if key == "Lore-Reason"),
                "{bad:?}: {err}"
            );
        }
        let mut t = LoreTrailers::new(Action::Pass);
        t.reason = Some(" padded".into());
        assert!(matches!(
            t.to_trailers(),
            Err(TrailerError::BadValue { .. })
        ));
        assert!(Message::new("two\nlines", None, &LoreTrailers::new(Action::Init)).is_err());
    }

    #[test]
    fn unknown_major_format_is_refused_and_unknown_keys_kept() {
        let lines = vec![
            Trailer::new("Lore-Format", "2").unwrap(),
            Trailer::new("Lore-Action", "init").unwrap(),
        ];
        assert_eq!(
            LoreTrailers::from_trailers(&lines),
            Err(TrailerError::UnsupportedFormat("2".into()))
        );
        let lines = vec![
            Trailer::new("Lore-Format", "1.4").unwrap(),
            Trailer::new("Lore-Action", "init").unwrap(),
            Trailer::new("Lore-Future", "x").unwrap(),
            Trailer::new("Signed-off-by", "A <a@b>").unwrap(),
        ];
        let t = LoreTrailers::from_trailers(&lines).unwrap();
        assert_eq!(t.other, vec![Trailer::new("Lore-Future", "x").unwrap()]);
    }

    #[test]
    fn prose_last_paragraph_has_no_trailers() {
        assert!(parse("subject\n\nLore-Format: 1\n\njust prose here\n")
            .1
            .is_empty());
        assert!(parse("Lore-Format: 1\n").1.is_empty());
        let (_, t) = parse("s\n\nKey: a\n  folded\nOther: b\n");
        assert_eq!(t[0].value, "a folded");
        assert_eq!(t[1].key, "Other");
    }
}
