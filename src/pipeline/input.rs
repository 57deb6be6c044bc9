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
//! Limits (decided here): an input read whole ([`read_artifacts`]) over
//! [`MAX_INPUT_BYTES`] (16 MiB) is refused whole — callers should read at
//! most `MAX_INPUT_BYTES + 1` bytes; [`ArtifactStream`] reads JSON Lines of
//! any length a line at a time (a line over [`MAX_LINE_BYTES`] is refused
//! alone), and a single document or array whole, up to the same 16 MiB; an
//! artifact over [`MAX_ARTIFACT_BYTES`] (1 MiB, measured as its compact JSON)
//! is refused alone. Real artifacts are a sentence and a paragraph; the
//! limits keep prompts, records and memory bounded. A UTF-8 byte-order mark
//! is ignored; blank lines in JSON Lines are skipped. An empty input (white
//! space, or a byte-order mark alone) is reported as such.
//!
//! Pure: no file system access (the caller opens files, directories and
//! stdin and hands over a reader).

use serde_json::Value;

use crate::cause::IoCause;
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
    /// The file or stream could not be read.
    #[error("cannot read: {0}")]
    Unreadable(#[source] IoCause),
    /// The directory could not be listed.
    #[error("cannot read: directory: {0}")]
    UnreadableDirectory(#[source] IoCause),
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

/// The longest line read as one artifact of JSON Lines (4 MiB): the
/// artifact limit is on compact JSON, and a line may carry white space.
pub const MAX_LINE_BYTES: usize = 4 * MAX_ARTIFACT_BYTES;

/// Reads the artifacts of one input as they come, holding one line (or, for
/// a single document or array, the one input of at most
/// [`MAX_INPUT_BYTES`]) at a time. Yields what [`read_artifacts`] would for
/// the same bytes up to that limit, and goes on past it for JSON Lines: an
/// input whose first non-blank line is a JSON value by itself, followed by
/// another non-blank line, is JSON Lines of any length, each line limited
/// to [`MAX_LINE_BYTES`]. A read error ends the input with one `Unreadable`
/// item.
pub struct ArtifactStream<R> {
    source: String,
    reader: R,
    /// Lines consumed so far (the number of the last one read).
    line: usize,
    state: StreamState,
    ready: std::collections::VecDeque<Item>,
}

#[derive(PartialEq, Eq)]
enum StreamState {
    Start,
    Lines,
    Done,
}

/// One line read with a bound.
enum Line {
    /// The whole line, appended to the buffer.
    Whole,
    /// Longer than the bound: this many bytes, the rest of it skipped (up
    /// to [`MAX_INPUT_BYTES`]; past that the input ends here, so an endless
    /// line is not read forever).
    TooLong(usize),
}

impl<R: std::io::BufRead> ArtifactStream<R> {
    /// Artifacts read from `reader`, labelled with `source`.
    pub fn new(source: &str, reader: R) -> ArtifactStream<R> {
        ArtifactStream {
            source: source.to_owned(),
            reader,
            line: 0,
            state: StreamState::Start,
            ready: std::collections::VecDeque::new(),
        }
    }

    /// Appends the next line (with its newline) to `buf`, reading at most
    /// `cap` bytes of it; `Ok(None)` at end of input. With `skip`, the rest
    /// of a line over `cap` is read past (see [`Line::TooLong`]); without,
    /// the input ends there.
    fn read_line(
        &mut self,
        buf: &mut Vec<u8>,
        cap: usize,
        skip: bool,
    ) -> std::io::Result<Option<Line>> {
        use std::io::{BufRead, Read};
        let start = buf.len();
        let n = (&mut self.reader)
            .take(cap as u64 + 1)
            .read_until(b'\n', buf)?;
        if n == 0 {
            return Ok(None);
        }
        self.line += 1;
        if n <= cap || buf.ends_with(b"\n") {
            return Ok(Some(Line::Whole));
        }
        // Skip the rest of the line without holding it.
        buf.truncate(start);
        let mut size = n;
        if !skip {
            self.state = StreamState::Done;
            return Ok(Some(Line::TooLong(size)));
        }
        loop {
            if size > MAX_INPUT_BYTES {
                self.state = StreamState::Done;
                break;
            }
            let chunk = self.reader.fill_buf()?;
            if chunk.is_empty() {
                break;
            }
            match chunk.iter().position(|&b| b == b'\n') {
                Some(at) => {
                    size += at;
                    self.reader.consume(at + 1);
                    break;
                }
                None => {
                    let len = chunk.len();
                    size += len;
                    self.reader.consume(len);
                }
            }
        }
        Ok(Some(Line::TooLong(size)))
    }

    fn unreadable(&mut self, e: std::io::Error) {
        self.state = StreamState::Done;
        self.ready.push_back(Item {
            source: format!("{}:{}", self.source, self.line + 1),
            artifact: Err(InputError::Unreadable(e.into())),
        });
    }

    fn line_item(&self, line: &[u8]) -> Item {
        Item {
            source: format!("{}:{}", self.source, self.line),
            artifact: serde_json::from_slice::<Value>(line)
                .map_err(|e| InputError::NotJson(one_line(&e.to_string())))
                .and_then(|v| artifact_from_value(&v)),
        }
    }

    /// Reads up to the second non-blank line to tell JSON Lines from one
    /// document, then queues what is known.
    fn start(&mut self) -> std::io::Result<()> {
        let mut head = Vec::new();
        // The first non-blank line, which may be a whole document's only
        // line: bounded by the input limit, not the line limit.
        let first = loop {
            let from = head.len();
            let cap = (MAX_INPUT_BYTES + 1).saturating_sub(from);
            match self.read_line(&mut head, cap, false)? {
                None => break None,
                Some(Line::TooLong(_)) => {
                    self.state = StreamState::Done;
                    self.ready.push_back(Item {
                        source: self.source.clone(),
                        artifact: Err(InputError::InputTooLarge {
                            limit: MAX_INPUT_BYTES,
                        }),
                    });
                    return Ok(());
                }
                Some(Line::Whole) => {
                    let mut line = &head[from..];
                    if from == 0 {
                        line = line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(line);
                    }
                    if !line.iter().all(u8::is_ascii_whitespace) {
                        break Some((from, self.line));
                    }
                }
            }
        };
        let lines_mode = first.and_then(|(from, n)| {
            let mut line = &head[from..];
            if from == 0 {
                line = line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(line);
            }
            serde_json::from_slice::<Value>(line)
                .is_ok()
                .then_some((from, n))
        });
        let Some((from, first_no)) = lines_mode else {
            return self.whole(head);
        };
        // A JSON value alone on its line: JSON Lines if another non-blank
        // line follows, else one document.
        let mut next = Vec::new();
        let second = loop {
            next.clear();
            match self.read_line(&mut next, MAX_LINE_BYTES, true)? {
                None => break None,
                Some(Line::TooLong(size)) => break Some(Err(size)),
                Some(Line::Whole) if next.iter().all(u8::is_ascii_whitespace) => {}
                Some(Line::Whole) => break Some(Ok(())),
            }
        };
        let Some(second) = second else {
            self.state = StreamState::Done;
            self.ready.extend(read_artifacts(&self.source, &head));
            return Ok(());
        };
        let mut first_line = &head[from..];
        if from == 0 {
            first_line = first_line
                .strip_prefix(b"\xEF\xBB\xBF")
                .unwrap_or(first_line);
        }
        let second_no = self.line;
        self.line = first_no;
        let item = self.line_item(first_line);
        self.ready.push_back(item);
        self.line = second_no;
        let item = match second {
            Ok(()) => self.line_item(&next),
            Err(size) => self.too_long(size),
        };
        self.ready.push_back(item);
        if self.state == StreamState::Start {
            self.state = StreamState::Lines;
        }
        Ok(())
    }

    fn too_long(&self, size: usize) -> Item {
        Item {
            source: format!("{}:{}", self.source, self.line),
            artifact: Err(InputError::ArtifactTooLarge {
                size,
                limit: MAX_ARTIFACT_BYTES,
            }),
        }
    }

    /// Not JSON Lines: the input is one document, read whole up to the
    /// input limit.
    fn whole(&mut self, mut head: Vec<u8>) -> std::io::Result<()> {
        use std::io::Read;
        let room = (MAX_INPUT_BYTES + 1).saturating_sub(head.len());
        (&mut self.reader)
            .take(room as u64)
            .read_to_end(&mut head)?;
        self.state = StreamState::Done;
        self.ready.extend(read_artifacts(&self.source, &head));
        Ok(())
    }
}

impl<R: std::io::BufRead> Iterator for ArtifactStream<R> {
    type Item = Item;

    fn next(&mut self) -> Option<Item> {
        loop {
            if let Some(item) = self.ready.pop_front() {
                return Some(item);
            }
            match self.state {
                StreamState::Done => return None,
                StreamState::Start => {
                    if let Err(e) = self.start() {
                        self.unreadable(e);
                    }
                }
                StreamState::Lines => {
                    let mut buf = Vec::new();
                    match self.read_line(&mut buf, MAX_LINE_BYTES, true) {
                        Ok(None) => self.state = StreamState::Done,
                        Ok(Some(Line::TooLong(size))) => return Some(self.too_long(size)),
                        Ok(Some(Line::Whole)) if buf.iter().all(u8::is_ascii_whitespace) => {}
                        Ok(Some(Line::Whole)) => return Some(self.line_item(&buf)),
                        Err(e) => self.unreadable(e),
                    }
                }
            }
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

    fn streamed(source: &str, bytes: &[u8]) -> Vec<Item> {
        // A small buffer, so lines straddle refills.
        ArtifactStream::new(source, std::io::BufReader::with_capacity(7, bytes)).collect()
    }

    #[test]
    fn streaming_reads_what_reading_whole_reads() {
        let inputs: Vec<Vec<u8>> = vec![
            REAL.as_bytes().to_vec(),
            format!("\u{feff}{REAL}").into_bytes(),
            compact(REAL).into_bytes(),
            format!("{}\n\n", compact(REAL)).into_bytes(),
            format!("[{REAL}, 7, {{\"id\": \"x\"}}, {FREE}]").into_bytes(),
            format!("[{}, {}]", compact(REAL), compact(FREE)).into_bytes(),
            format!(
                "\u{feff}\n{}\n\n{{not json\n{}\n[1]\n{}",
                compact(REAL),
                compact(FREE),
                compact(REAL).replace("\"decision\"", "\"musing\"")
            )
            .into_bytes(),
            REAL.as_bytes()[..REAL.len() - 3].to_vec(),
            b"hello".to_vec(),
            b"".to_vec(),
            b" \n\t\n".to_vec(),
            b"\xEF\xBB\xBF\n".to_vec(),
            b"[]".to_vec(),
            vec![b' '; MAX_INPUT_BYTES + 1],
            "[".repeat(10_000).into_bytes(),
        ];
        for bytes in inputs {
            assert_eq!(
                report(&streamed("s", &bytes)),
                report(&read_artifacts("s", &bytes)),
                "{:?}",
                String::from_utf8_lossy(&bytes[..bytes.len().min(80)])
            );
        }
    }

    #[test]
    fn json_lines_of_any_length_stream_and_a_long_line_is_refused_alone() {
        let line = compact(FREE);
        let n = MAX_INPUT_BYTES / line.len() + 100;
        let mut text = String::with_capacity((line.len() + 1) * (n + 2));
        for i in 0..n {
            text.push_str(&line);
            text.push('\n');
            if i == 7 {
                // An over-long line in the middle: refused alone.
                text.push_str(&" ".repeat(MAX_LINE_BYTES + 10));
                text.push_str("{}\n");
            }
        }
        assert!(text.len() > MAX_INPUT_BYTES);
        let items: Vec<Item> = ArtifactStream::new("big", text.as_bytes()).collect();
        assert_eq!(items.len(), n + 1);
        assert!(items
            .iter()
            .enumerate()
            .all(|(i, it)| i == 8 || it.artifact.is_ok()));
        assert_eq!(
            report(&items[8..9]),
            vec![format!(
                "invalid big:9 is an artifact of {} bytes, over the limit of 1048576 bytes",
                MAX_LINE_BYTES + 12
            )]
        );
        assert_eq!(items[n].source, format!("big:{}", n + 1));
        // Read whole, the same input is refused.
        assert_eq!(read_artifacts("big", text.as_bytes()).len(), 1);
    }

    #[test]
    fn a_single_line_document_over_the_input_limit_is_refused_whole() {
        let mut text = vec![b'['; 10];
        text.extend(vec![b' '; MAX_INPUT_BYTES]);
        text.extend(b"\n{}\n");
        assert_eq!(
            report(&streamed("huge", &text)),
            vec!["invalid huge larger than 16777216 bytes; inputs are limited to that"]
        );
    }

    #[test]
    fn an_endless_line_ends_the_input() {
        use std::io::Read;
        let endless = std::io::BufReader::new(b"{}\n{}\n".chain(std::io::repeat(b'x')));
        let r: Vec<String> = ArtifactStream::new("z", endless)
            .map(|i| match i.artifact {
                Ok(_) => format!("ok {}", i.source),
                Err(e) => format!("{} {e}", i.source),
            })
            .collect();
        assert_eq!(r.len(), 3, "{r:?}");
        assert!(
            r[2].starts_with("z:3 is an artifact of ")
                && r[2].ends_with("over the limit of 1048576 bytes"),
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
