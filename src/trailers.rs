//! Commit messages and their `Lore-*` trailers: the public contract every
//! git-lore commit carries (documented in `docs/trailers.md`).
//!
//! A message is a one-line subject, an optional body, and a final paragraph of
//! `Key: value` trailer lines — laid out so that `git interpret-trailers
//! --parse` and `git log --format=%(trailers)` read exactly what was written.
//! Values are single-line: a newline, carriage return or any other control
//! character is refused here, before anything is written, never escaped.
//!
//! This module owns the action vocabulary and the lines: checking, rendering
//! and parsing them. What the lines of one commit mean together is an
//! [`crate::event::Event`]; whether they agree with the commit's tree is the
//! audit's business.

use crate::names::string_enum;

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
    /// A trailer the action needs is missing.
    #[error("missing trailer {0}")]
    Missing(&'static str),
    /// A trailer whose value is not what the action needs.
    #[error("trailer {key}: {why}")]
    BadField { key: &'static str, why: String },
    /// A trailer whose value does not parse as what the action needs.
    #[error("trailer {key}: {why}")]
    Unparsable {
        key: &'static str,
        #[source]
        why: crate::cause::AnyCause,
    },
    /// A key that is given once given more often: stock git would read its
    /// values joined, so the commit would say two things.
    #[error("trailer {key} is given {times} times (rule: one value per key; of the Lore- keys only Lore-Target and Lore-Judge repeat)")]
    Repeated { key: &'static str, times: usize },
    /// An action of the vocabulary that this build does not read yet.
    #[error("Lore-Action {0} is reserved but not supported by this version of git-lore")]
    Unsupported(&'static str),
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

string_enum! {
    /// What a commit did. Every git-lore commit names exactly one.
    pub enum Action: "Lore-Action" {
        Init("init", 0),
        Propose("propose", 1),
        Decline("decline", 2),
        Confirm("confirm", 3),
        Unconfirm("unconfirm", 4),
        Pass("pass", 5),
        Judge("judge", 6),
        Promote("promote", 7),
        Relate("relate", 8),
        Supersede("supersede", 9),
        Merge("merge", 10),
        Refine("refine", 11),
        Contradict("contradict", 12),
        Retract("retract", 13),
        Publish("publish", 14),
        Config("config", 15),
        Sync("sync", 16),
        Edit("edit", 17),
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
        trailers: Vec<Trailer>,
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
            trailers,
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

/// The body of a message git-lore wrote: what lies between its subject and
/// its trailer block (the paragraphs between the first and the last, when
/// the last is trailers), `None` when there is nothing there.
pub fn body(message: &str) -> Option<String> {
    let message = message.replace("\r\n", "\n");
    let paragraphs: Vec<&str> = message
        .split("\n\n")
        .map(|p| p.trim_matches('\n'))
        .filter(|p| !p.trim().is_empty())
        .collect();
    let end = if parse(&message).1.is_empty() {
        paragraphs.len()
    } else {
        paragraphs.len().saturating_sub(1)
    };
    (end > 1).then(|| paragraphs[1..end].join("\n\n"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_body_is_what_lies_between_the_subject_and_the_trailers() {
        let t = vec![Trailer::new("Lore-Action", "edit").unwrap()];
        let m = |body: Option<&str>| {
            Message::new("edit x: claim", body, t.clone())
                .unwrap()
                .render()
        };
        assert_eq!(
            body(&m(Some("@@ -1 +1 @@\n-a\n+b"))).as_deref(),
            Some("@@ -1 +1 @@\n-a\n+b")
        );
        assert_eq!(body(&m(Some("one\n\ntwo"))).as_deref(), Some("one\n\ntwo"));
        assert_eq!(body(&m(None)), None);
        assert_eq!(
            body("subject\n\nprose, no trailers\n").as_deref(),
            Some("prose, no trailers")
        );
        assert_eq!(body("subject only\n"), None);
    }

    #[test]
    fn renders_and_parses_back() {
        let lines = vec![
            Trailer::new("Lore-Format", "1").unwrap(),
            Trailer::new("Lore-Action", "judge").unwrap(),
            Trailer::new("Lore-Judge", "standard 0.90 pass").unwrap(),
            Trailer::new("Lore-Judge", "adversarial 0.80 pass").unwrap(),
        ];
        let m = Message::new("judge x: approved", Some("why"), lines.clone()).unwrap();
        let text = m.render();
        assert_eq!(
            text,
            "judge x: approved\n\nwhy\n\nLore-Format: 1\nLore-Action: judge\n\
             Lore-Judge: standard 0.90 pass\nLore-Judge: adversarial 0.80 pass\n"
        );
        let (subject, parsed) = parse(&text);
        assert_eq!(subject, "judge x: approved");
        assert_eq!(parsed, lines);
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
            let err = Trailer::new("Lore-Reason", bad).unwrap_err();
            assert!(
                matches!(err, TrailerError::ControlCharacter { ref key, .. } if key == "Lore-Reason"),
                "{bad:?}: {err}"
            );
        }
        assert!(matches!(
            Trailer::new("Lore-Reason", " padded"),
            Err(TrailerError::BadValue { .. })
        ));
        assert!(matches!(
            Trailer::new("Lore Reason", "x"),
            Err(TrailerError::BadKey(_))
        ));
        assert!(Message::new("two\nlines", None, Vec::new()).is_err());
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
