//! Reading archivist artifacts from bytes: one JSON object, a JSON array of
//! objects, or JSON Lines (one object per line).
//!
//! Each item is checked against `schema/artifact.schema.json`, then typed.
//! A bad item yields an error for that item only; the others are still read.
//! Every item is labelled with where it came from, for the CLI's
//! `invalid <source> <why>` line: `SOURCE` for a single object,
//! `SOURCE[i]` for element `i` (from 0) of an array, `SOURCE:n` for line `n`
//! (from 1) of JSON Lines.
//!
//! Telling the formats apart: input that parses as one JSON value is a single
//! object or an array; otherwise, if its first non-blank line is a JSON value
//! by itself, it is JSON Lines; otherwise it is one malformed document (one
//! error, not one per line of a pretty-printed file).
//!
//! Limits (decided here): an input over [`MAX_INPUT_BYTES`] (16 MiB) is
//! refused whole — callers should read at most `MAX_INPUT_BYTES + 1` bytes; an
//! artifact over [`MAX_ARTIFACT_BYTES`] (1 MiB, measured as its compact JSON)
//! is refused alone. Real artifacts are a sentence and a paragraph; the
//! limits keep prompts, records and memory bounded. A UTF-8 byte-order mark
//! is ignored; blank lines in JSON Lines are skipped. An empty input (white
//! space, or a byte-order mark alone) is reported as such.
//!
//! Pure: no file system access (the CLI reads files, directories and stdin).

use serde_json::Value;

use crate::model::Artifact;
use crate::schema::{self, SchemaKind};

/// The largest input read as a whole (16 MiB).
pub const MAX_INPUT_BYTES: usize = 16 << 20;

/// The largest single artifact, as compact JSON (1 MiB).
pub const MAX_ARTIFACT_BYTES: usize = 1 << 20;

/// Why an input or one of its items yields no artifact.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum InputError {
    /// The whole input is over the size limit.
    #[error("larger than {limit} bytes; inputs are limited to that")]
    InputTooLarge { limit: usize },
    /// One artifact is over the size limit.
    #[error("is an artifact of {size} bytes, over the limit of {limit} bytes")]
    ArtifactTooLarge { size: usize, limit: usize },
    /// Not JSON (or not JSON Lines).
    #[error("is not JSON: {0}")]
    NotJson(String),
    /// JSON, but not an object.
    #[error("is {0}, not an artifact object")]
    NotAnObject(&'static str),
    /// An object that does not match the artifact schema.
    #[error("does not match the artifact schema: {0}")]
    Schema(String),
    /// Schema-valid, but not a valid artifact (e.g. an id past the ULID range).
    #[error("is not a valid artifact: {0}")]
    Type(String),
    /// Nothing but white space (and perhaps a byte-order mark).
    #[error("is empty: there are no artifacts in it")]
    Empty,
    /// The file, directory or stream could not be read.
    #[error("cannot read: {0}")]
    Unreadable(String),
    /// A mined commit that cannot become an artifact.
    #[error(transparent)]
    Commit(#[from] crate::pipeline::commits::CommitError),
}

/// One item read from an input.
#[derive(Clone, Debug, PartialEq)]
pub struct Item {
    /// Where it came from: `SOURCE`, `SOURCE[i]` or `SOURCE:n`.
    pub source: String,
    /// The artifact, or why there is none.
    pub artifact: Result<Artifact, InputError>,
}

fn one_line(s: &str) -> String {
    crate::schema::clip(&s.replace(['\n', '\r'], " "), 300)
}

/// Checks and types one JSON value.
pub fn artifact_from_value(value: &Value) -> Result<Artifact, InputError> {
    if !value.is_object() {
        return Err(InputError::NotAnObject(schema::json_type(value)));
    }
    let size = serde_json::to_vec(value).map_or(usize::MAX, |v| v.len());
    if size > MAX_ARTIFACT_BYTES {
        return Err(InputError::ArtifactTooLarge {
            size,
            limit: MAX_ARTIFACT_BYTES,
        });
    }
    if let Err(violations) = schema::validate(SchemaKind::Artifact, value) {
        let text: Vec<String> = violations.iter().take(5).map(ToString::to_string).collect();
        let more = violations.len().saturating_sub(5);
        let mut why = one_line(&text.join("; "));
        if more > 0 {
            why.push_str(&format!(" (and {more} more)"));
        }
        return Err(InputError::Schema(why));
    }
    serde_json::from_value(value.clone()).map_err(|e| InputError::Type(one_line(&e.to_string())))
}

/// Reads every artifact in `bytes`, labelling items with `source`.
pub fn read_artifacts(source: &str, bytes: &[u8]) -> Vec<Item> {
    let whole = |artifact| {
        vec![Item {
            source: source.to_owned(),
            artifact,
        }]
    };
    if bytes.len() > MAX_INPUT_BYTES {
        return whole(Err(InputError::InputTooLarge {
            limit: MAX_INPUT_BYTES,
        }));
    }
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return whole(Err(InputError::Empty));
    }
    match serde_json::from_slice::<Value>(bytes) {
        Ok(Value::Array(items)) => items
            .iter()
            .enumerate()
            .map(|(i, v)| Item {
                source: format!("{source}[{i}]"),
                artifact: artifact_from_value(v),
            })
            .collect(),
        Ok(value) => whole(artifact_from_value(&value)),
        Err(whole_error) => {
            let mut lines = bytes
                .split(|&b| b == b'\n')
                .enumerate()
                .filter(|(_, l)| !l.iter().all(u8::is_ascii_whitespace));
            let first_is_value = lines
                .next()
                .is_some_and(|(_, l)| serde_json::from_slice::<Value>(l).is_ok());
            if !first_is_value {
                return whole(Err(InputError::NotJson(one_line(&whole_error.to_string()))));
            }
            bytes
                .split(|&b| b == b'\n')
                .enumerate()
                .filter(|(_, l)| !l.iter().all(u8::is_ascii_whitespace))
                .map(|(n, line)| Item {
                    source: format!("{source}:{}", n + 1),
                    artifact: serde_json::from_slice::<Value>(line)
                        .map_err(|e| InputError::NotJson(one_line(&e.to_string())))
                        .and_then(|v| artifact_from_value(&v)),
                })
                .collect()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const REAL: &str =
        include_str!("../../tests/fixtures/artifacts/real-vitest-no-resolution.json");
    const FREE: &str = include_str!("../../tests/fixtures/artifacts/version-free.json");

    fn compact(s: &str) -> String {
        serde_json::to_string(&serde_json::from_str::<Value>(s).unwrap()).unwrap()
    }

    fn report(items: &[Item]) -> Vec<String> {
        items
            .iter()
            .map(|i| match &i.artifact {
                Ok(a) => format!("ok {} {}", i.source, a.id),
                Err(e) => format!("invalid {} {e}", i.source),
            })
            .collect()
    }

    #[test]
    fn a_single_object() {
        assert_eq!(
            report(&read_artifacts("a.json", REAL.as_bytes())),
            vec!["ok a.json 01KZ45MKAM734ZS7JK24D2DK0R"]
        );
        let bom = format!("\u{feff}{REAL}");
        assert_eq!(read_artifacts("a.json", bom.as_bytes()).len(), 1);
        assert!(read_artifacts("a.json", bom.as_bytes())[0].artifact.is_ok());
    }

    #[test]
    fn an_array_with_a_bad_element() {
        let text = format!("[{REAL}, 7, {{\"id\": \"x\"}}, {FREE}]");
        let r = report(&read_artifacts("-", text.as_bytes()));
        assert_eq!(r[0], "ok -[0] 01KZ45MKAM734ZS7JK24D2DK0R");
        assert_eq!(r[1], "invalid -[1] is a number, not an artifact object");
        assert!(
            r[2].starts_with("invalid -[2] does not match the artifact schema: "),
            "{}",
            r[2]
        );
        assert!(
            r[2].contains("(root): \"kind\" is a required property"),
            "{}",
            r[2]
        );
        assert!(r[2].contains("/id: \"x\" does not match"), "{}", r[2]);
        assert_eq!(r[3], "ok -[3] 01KZ45MKGQ7QZWMABQ4H12SHSV");
    }

    #[test]
    fn json_lines_with_bad_lines() {
        let text = format!(
            "{}\n\n{{not json\n{}\n[1]\n{}",
            compact(REAL),
            compact(FREE),
            compact(REAL).replace("\"decision\"", "\"musing\"")
        );
        let r = report(&read_artifacts("s.jsonl", text.as_bytes()));
        assert_eq!(r.len(), 5, "{r:?}");
        assert_eq!(r[0], "ok s.jsonl:1 01KZ45MKAM734ZS7JK24D2DK0R");
        assert!(
            r[1].starts_with("invalid s.jsonl:3 is not JSON: key must be a string"),
            "{}",
            r[1]
        );
        assert_eq!(r[2], "ok s.jsonl:4 01KZ45MKGQ7QZWMABQ4H12SHSV");
        assert_eq!(
            r[3],
            "invalid s.jsonl:5 is an array, not an artifact object"
        );
        assert!(
            r[4].starts_with("invalid s.jsonl:6 does not match the artifact schema: /kind: \"musing\" is not one of"),
            "{}",
            r[4]
        );
    }

    #[test]
    fn a_broken_pretty_document_is_one_error() {
        let broken = &REAL[..REAL.len() - 3];
        let items = read_artifacts("b.json", broken.as_bytes());
        assert_eq!(items.len(), 1);
        assert!(
            report(&items)[0].starts_with("invalid b.json is not JSON: EOF while parsing"),
            "{:?}",
            report(&items)
        );
        assert_eq!(
            report(&read_artifacts("c.json", b"hello")),
            vec!["invalid c.json is not JSON: expected value at line 1 column 1"]
        );
    }

    #[test]
    fn size_limits() {
        let big = vec![b' '; MAX_INPUT_BYTES + 1];
        assert_eq!(
            report(&read_artifacts("huge", &big)),
            vec!["invalid huge larger than 16777216 bytes; inputs are limited to that"]
        );
        let mut v: Value = serde_json::from_str(REAL).unwrap();
        v["detail"] = Value::String("x".repeat(MAX_ARTIFACT_BYTES));
        let text = serde_json::to_string(&v).unwrap();
        let r = report(&read_artifacts("one", text.as_bytes()));
        assert_eq!(
            r,
            vec![format!(
                "invalid one is an artifact of {} bytes, over the limit of 1048576 bytes",
                text.len()
            )]
        );
    }

    #[test]
    fn empty_input_says_so() {
        for empty in [&b""[..], b" \n\t\n", b"\xEF\xBB\xBF", b"\xEF\xBB\xBF\n"] {
            assert_eq!(
                report(&read_artifacts("e", empty)),
                vec!["invalid e is empty: there are no artifacts in it"],
                "{empty:?}"
            );
        }
        // An empty array is a list of no artifacts, said on purpose.
        assert_eq!(read_artifacts("e", b"[]"), vec![]);
    }

    #[test]
    fn schema_valid_but_untypable_ids_are_refused() {
        let text = REAL.replace("01KZ45MKAM734ZS7JK24D2DK0R", "81KZ45MKAM734ZS7JK24D2DK0R");
        let r = report(&read_artifacts("t", text.as_bytes()));
        assert!(
            r[0].starts_with("invalid t is not a valid artifact: not a ULID: \"81KZ45MKAM734ZS7JK24D2DK0R\" is past the largest ULID (its first character must be 0 to 7)"),
            "{r:?}"
        );
    }

    #[test]
    fn nesting_and_noise_do_not_crash() {
        let deep = "[".repeat(100_000);
        assert_eq!(read_artifacts("d", deep.as_bytes()).len(), 1);
        let noise: Vec<u8> = (0..1_000_000u32)
            .map(|i| (i.wrapping_mul(2_654_435_761) >> 24) as u8)
            .collect();
        assert_eq!(read_artifacts("n", &noise).len(), 1);
    }
}
