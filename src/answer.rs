//! What a model program answered, cleaned once for every role.
//!
//! An [`Answer`] exists only for output that is not empty or whitespace:
//! an empty answer is an outage, never a verdict, and is reported before an
//! answer is made. [`Answer::unfenced`] drops markdown fence lines
//! (```` ``` ```` or ```` ```json ````), which models wrap JSON in; roles
//! whose contract forbids any repair (relation judgment) read
//! [`Answer::raw`] instead.
//!
//! Pure: it neither runs programs (`crate::process`) nor decides what an
//! answer means (the pipeline and review modules do).

/// A model's non-empty answer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Answer {
    raw: String,
}

impl Answer {
    /// The answer in `output`, or `None` when it is empty or only white
    /// space. Invalid UTF-8 is replaced, never refused: the parser that reads
    /// the answer reports what it cannot use.
    pub fn new(output: &[u8]) -> Option<Answer> {
        let raw = String::from_utf8_lossy(output).into_owned();
        (!raw.trim().is_empty()).then_some(Answer { raw })
    }

    /// The answer exactly as printed.
    pub fn raw(&self) -> &str {
        &self.raw
    }

    /// The answer with markdown fence lines dropped, trimmed.
    pub fn unfenced(&self) -> String {
        strip_fences(&self.raw).trim().to_owned()
    }
}

/// Drops lines that are only a markdown fence (```` ``` ```` or
/// ```` ```json ````): three backticks and an optional info word.
pub fn strip_fences(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for line in text.split_inclusive('\n') {
        let t = line.trim();
        let is_fence = t.strip_prefix("```").is_some_and(|info| {
            info.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
        });
        if !is_fence {
            out.push_str(line);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_output_is_no_answer() {
        for raw in [&b""[..], b"   ", b"\n\t\n", b"\r\n"] {
            assert_eq!(Answer::new(raw), None, "{raw:?}");
        }
        assert!(Answer::new(b"{}").is_some());
    }

    #[test]
    fn fences_are_dropped_only_as_whole_lines() {
        let a = Answer::new(b"```json\n{\"a\": \"``` inside\"}\n```\n").unwrap();
        assert_eq!(a.unfenced(), "{\"a\": \"``` inside\"}");
        assert_eq!(a.raw(), "```json\n{\"a\": \"``` inside\"}\n```\n");
        let only = Answer::new(b"```\n```").unwrap();
        assert_eq!(only.unfenced(), "");
        // A fence with more than an info word is text, not a fence.
        let prose = Answer::new(b"``` see below\nx").unwrap();
        assert_eq!(prose.unfenced(), "``` see below\nx");
    }
}
