//! Encoded layers: runs of text that decode to other text, scanned as text
//! of their own.
//!
//! Three encodings are tried, as gitleaks and trufflehog decode them:
//! - **percent**: a run of non-space characters with at least one `%XX`;
//! - **base64**: a run of 16 or more characters of the standard alphabet
//!   (`+/`) or the URL-safe one (`-_`), padding optional; a run is also
//!   tried from its second, third and fourth character, so a letter put in
//!   front does not hide what follows;
//! - **hex**: a run of 16 or more hex digits, from its first or second.
//!
//! A run counts only when it decodes to text: UTF-8 with no control
//! character but white space. Random bytes (a commit id, an image digest,
//! a `sha512-` integrity) almost never do, so decoding adds no false
//! alarms. A finding inside is reported at the encoded characters that hold
//! it ([`Segment::outer`]).
//!
//! Bounded: at most [`MAX_DEPTH`] layers (base64 of a percent-encoded
//! token is found; a third layer is not looked into), runs of at most
//! [`MAX_RUN`] bytes (longer ones are decoded from their start), and per
//! scan at most [`BUDGET`] bytes of runs and [`MAX_SEGMENTS`] runs decoded;
//! past that, runs are left undecoded.

use std::ops::Range;
use std::sync::OnceLock;

use base64ct::{Base64Unpadded, Base64UrlUnpadded, Encoding as _};
use regex::Regex;

use super::Encoding;

/// How many encodings deep a finding is looked for.
pub const MAX_DEPTH: usize = 2;
/// The shortest base64 or hex run tried.
pub const MIN_RUN: usize = 16;
/// The longest run decoded; a longer one is decoded from its start.
pub const MAX_RUN: usize = 64 * 1024;
/// Bytes of runs decoded per scan, all layers together.
pub const BUDGET: usize = 1024 * 1024;
/// Runs decoded per scan, all layers together.
pub const MAX_SEGMENTS: usize = 4096;

/// What a scan may still decode.
pub struct Budget {
    bytes: usize,
    segments: usize,
}

impl Default for Budget {
    fn default() -> Budget {
        Budget {
            bytes: BUDGET,
            segments: MAX_SEGMENTS,
        }
    }
}

impl Budget {
    fn take(&mut self, n: usize) -> bool {
        if self.segments == 0 || self.bytes < n {
            return false;
        }
        self.segments -= 1;
        self.bytes -= n;
        true
    }
}

/// A run that decoded to text.
pub struct Segment {
    pub encoding: Encoding,
    /// The encoded run, in the text it was found in.
    pub span: Range<usize>,
    /// What it decodes to.
    pub text: String,
    map: Map,
}

enum Map {
    /// The encoded offset (from the span's start) of each decoded byte, and
    /// the encoded length last.
    Percent(Vec<usize>),
    /// Decoded from this offset of the span; three bytes per four
    /// characters.
    Base64(usize),
    /// Decoded from this offset of the span; one byte per two characters.
    Hex(usize),
}

impl Segment {
    /// The encoded span (in the outer text) that holds `r`, a span of the
    /// decoded text.
    pub fn outer(&self, r: Range<usize>) -> Range<usize> {
        let len = self.span.len();
        let (a, b) = match &self.map {
            Map::Percent(starts) => (starts[r.start], starts[r.end]),
            Map::Base64(o) => (
                o + 4 * (r.start / 3),
                (o + 4 * (r.end.saturating_sub(1) / 3) + 4).min(len),
            ),
            Map::Hex(o) => (o + 2 * r.start, (o + 2 * r.end).min(len)),
        };
        self.span.start + a..self.span.start + b
    }
}

fn re(cell: &'static OnceLock<Regex>, pattern: &str) -> &'static Regex {
    cell.get_or_init(|| Regex::new(pattern).unwrap_or_else(|e| panic!("{pattern}: {e}")))
}

/// The runs of `text` that decode to text, within the budget.
pub fn segments(text: &str, budget: &mut Budget) -> Vec<Segment> {
    static PERCENT: OnceLock<Regex> = OnceLock::new();
    static BASE64: OnceLock<Regex> = OnceLock::new();
    static HEX: OnceLock<Regex> = OnceLock::new();
    let mut out = Vec::new();
    if text.contains('%') {
        let percent = re(&PERCENT, r#"[^\s"'<>`]*%[0-9A-Fa-f]{2}[^\s"'<>`]*"#);
        for m in percent.find_iter(text) {
            let run = clip(text, m.start()..m.end());
            if budget.take(run.len()) {
                out.extend(percent_decode(text, run));
            }
        }
    }
    let base64 = re(&BASE64, r"[A-Za-z0-9+/_-]{16,}={0,2}");
    for m in base64.find_iter(text) {
        let run = clip(text, m.start()..m.end());
        let s = &text[run.clone()];
        let standard = s.contains(['+', '/']);
        let url = s.contains(['-', '_']);
        if standard && url {
            continue; // neither alphabet: a path or a name
        }
        if budget.take(run.len()) {
            out.extend(base64_decode(s, run, url));
        }
    }
    let hex = re(&HEX, r"[0-9A-Fa-f]{16,}");
    for m in hex.find_iter(text) {
        let run = clip(text, m.start()..m.end());
        if budget.take(run.len()) {
            out.extend(hex_decode(&text[run.clone()], run));
        }
    }
    out
}

/// A run cut to [`MAX_RUN`] bytes (on a char boundary).
fn clip(text: &str, r: Range<usize>) -> Range<usize> {
    let mut end = r.end.min(r.start + MAX_RUN);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    r.start..end
}

/// Decoded bytes that are text: UTF-8, no control character but white
/// space, and something to read.
fn as_text(bytes: Vec<u8>) -> Option<String> {
    let s = String::from_utf8(bytes).ok()?;
    let ok = s.chars().count() >= 4
        && s.chars()
            .all(|c| !c.is_control() || matches!(c, '\t' | '\n' | '\r'));
    ok.then_some(s)
}

fn percent_decode(text: &str, run: Range<usize>) -> Option<Segment> {
    let enc = text[run.clone()].as_bytes();
    let mut bytes = Vec::with_capacity(enc.len());
    let mut starts = Vec::with_capacity(enc.len() + 1);
    let mut i = 0;
    while i < enc.len() {
        starts.push(i);
        let hex = enc.get(i + 1..i + 3).and_then(|h| {
            let h = std::str::from_utf8(h).ok()?;
            u8::from_str_radix(h, 16)
                .ok()
                .filter(|_| h.bytes().all(|b| b.is_ascii_hexdigit()))
        });
        match (enc[i], hex) {
            (b'%', Some(b)) => {
                bytes.push(b);
                i += 3;
            }
            (b, _) => {
                bytes.push(b);
                i += 1;
            }
        }
    }
    starts.push(enc.len());
    Some(Segment {
        encoding: Encoding::Percent,
        span: run,
        text: as_text(bytes)?,
        map: Map::Percent(starts),
    })
}

fn base64_decode(s: &str, run: Range<usize>, url: bool) -> Option<Segment> {
    let body = s.trim_end_matches('=');
    let decode = |t: &str| {
        if url {
            Base64UrlUnpadded::decode_vec(t)
        } else {
            Base64Unpadded::decode_vec(t)
        }
    };
    for offset in 0..4 {
        let t = body.get(offset..)?;
        if t.len() < MIN_RUN {
            return None;
        }
        // The whole run, else its whole quanta (the last characters of a
        // run need not be canonical).
        let whole = if t.len() % 4 == 1 {
            None
        } else {
            decode(t).ok()
        };
        let decoded = whole.or_else(|| decode(&t[..t.len() - t.len() % 4]).ok());
        if let Some(text) = decoded.and_then(as_text) {
            return Some(Segment {
                encoding: Encoding::Base64,
                span: run,
                text,
                map: Map::Base64(offset),
            });
        }
    }
    None
}

fn hex_decode(s: &str, run: Range<usize>) -> Option<Segment> {
    for offset in 0..2 {
        let t = &s[offset..];
        let t = &t[..t.len() - t.len() % 2];
        if t.len() < MIN_RUN {
            return None;
        }
        if let Some(text) = hex::decode(t).ok().and_then(as_text) {
            return Some(Segment {
                encoding: Encoding::Hex,
                span: run,
                text,
                map: Map::Hex(offset),
            });
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decoded(text: &str) -> Vec<(Encoding, String)> {
        segments(text, &mut Budget::default())
            .into_iter()
            .map(|s| (s.encoding, s.text))
            .collect()
    }

    #[test]
    fn each_encoding_decodes_to_its_text() {
        assert_eq!(
            decoded("x=a%5Fb%20c"),
            [(Encoding::Percent, "x=a_b c".to_owned())]
        );
        // base64 of "hello, decoded world".
        assert_eq!(
            decoded("see aGVsbG8sIGRlY29kZWQgd29ybGQ= here"),
            [(Encoding::Base64, "hello, decoded world".to_owned())]
        );
        // The same after a letter that shifts it.
        assert_eq!(
            decoded("XaGVsbG8sIGRlY29kZWQgd29ybGQ"),
            [(Encoding::Base64, "hello, decoded world".to_owned())]
        );
        // hex of "hello, hex world" (also a base64 run, of random bytes).
        assert_eq!(
            decoded("68656c6c6f2c2068657820776f726c64"),
            [(Encoding::Hex, "hello, hex world".to_owned())]
        );
    }

    #[test]
    fn random_bytes_are_not_text() {
        for t in [
            "3f9a1c2e7b4d5f60718293a4b5c6d7e8f9012345",
            "sha512-M+7h7BFCY/SeILXMJAqiXKKNQ+9LIDYhoW3xigC++Vt8/qTA2PjEv86LqV509PVhUDVNlmhcXIoXeAeVNMJSYt==",
            "sha256:4aabb3243f3eeb909b78bfaeb99ad97f0fd090bc2c5bc0296cbbded694cc3211",
            "packages/ui/src/hooks/useOrders",
            "MyVeryLongJavaPackageName",
        ] {
            assert_eq!(decoded(t), [], "{t}");
        }
    }

    #[test]
    fn spans_map_to_the_encoded_characters() {
        let text = "q=ab%5Fcd";
        let s = &segments(text, &mut Budget::default())[0];
        assert_eq!(s.text, "q=ab_cd");
        // "b_c" is "b%5Fc".
        assert_eq!(&text[s.outer(3..6)], "b%5Fc");
        let text = "aGVsbG8sIGRlY29kZWQgd29ybGQ=";
        let s = &segments(text, &mut Budget::default())[0];
        // "decoded" (bytes 7..14) lies in quanta 2..5: characters 8..20.
        assert_eq!(s.outer(7..14), 8..20);
        let text = "68656c6c6f2c2068657820776f726c64";
        let s = &segments(text, &mut Budget::default())[0];
        assert_eq!(&text[s.outer(7..10)], "686578");
    }

    #[test]
    fn the_budget_bounds_the_work() {
        let run = "aGVsbG8sIGRlY29kZWQgd29ybGQ";
        let many = [run; 10].join(" ");
        let mut budget = Budget {
            bytes: run.len() * 3,
            segments: MAX_SEGMENTS,
        };
        assert_eq!(segments(&many, &mut budget).len(), 3);
        let mut budget = Budget {
            bytes: BUDGET,
            segments: 2,
        };
        assert_eq!(segments(&many, &mut budget).len(), 2);
    }
}
