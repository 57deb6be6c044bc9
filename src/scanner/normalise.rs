//! Text as the rules read it, and the way back to the text as written.
//!
//! Each character of the text becomes:
//! - nothing, when it is invisible ([`is_invisible`]): control characters
//!   but tab, line feed and carriage return; soft hyphen; zero-width space,
//!   joiners and word joiner; bidirectional controls; byte-order mark;
//!   variation selectors; tags; the other default-ignorable code points;
//!   interlinear annotation marks;
//! - itself, when it is other ASCII;
//! - else its compatibility decomposition (NFKD: full-width `ｇ` is `g`,
//!   `ﬁ` is `fi`, a non-breaking space is a space), without combining marks
//!   (`é` is `e`), each remaining non-ASCII character folded to the ASCII
//!   character it imitates when UTS #39's confusables say so (Cyrillic `А`
//!   is `A`, Greek `ο` is `o`). The confusables' prototypes merge `I`, `l`
//!   and `1`, and `O` and `0`: the fold keeps a capital a capital and a
//!   digit a digit, so Cyrillic `І` is `I`. Mappings to more than one
//!   character (curly quotes to two apostrophes) are not taken, but for `m`.
//!
//! NFKD with marks dropped, rather than NFKC: every rule matches ASCII, and
//! a base letter with its marks gone is what a reader sees through.
//!
//! Only changed characters are recorded ([`Normalised::original`] maps a
//! span back), so plain ASCII text costs nothing and memory is linear in
//! the non-ASCII part. What is invisible is the content policy's one table
//! (`crate::content::text`).

use std::borrow::Cow;
use std::ops::Range;

use unicode_normalization::char::{decompose_compatible, is_combining_mark};

/// Whether a character is removed before matching.
pub fn is_invisible(c: char) -> bool {
    use crate::content::text::{class, Class};
    // The one table of characters (`crate::content::text`): controls but
    // the carriage return (kept, as the scanner's line handling reads it),
    // bidi marks and the invisible set.
    c != '\r' && matches!(class(c), Class::Control | Class::Bidi | Class::Invisible)
}

/// A character that changed, and where it was and is.
#[derive(Clone, Debug)]
struct Piece {
    norm: Range<usize>,
    orig: Range<usize>,
}

/// A normalised text and its map back to the original.
pub struct Normalised<'a> {
    text: Cow<'a, str>,
    /// Changed characters in text order; between them, text is copied.
    pieces: Vec<Piece>,
}

impl<'a> Normalised<'a> {
    /// Normalises `text` (see the module documentation).
    pub fn of(text: &'a str) -> Normalised<'a> {
        let plain =
            |b: u8| b.is_ascii() && (!b.is_ascii_control() || matches!(b, b'\t' | b'\n' | b'\r'));
        if text.bytes().all(plain) {
            return Normalised {
                text: Cow::Borrowed(text),
                pieces: Vec::new(),
            };
        }
        let mut out = String::with_capacity(text.len());
        let mut pieces = Vec::new();
        for (i, c) in text.char_indices() {
            if c.is_ascii() && !is_invisible(c) {
                out.push(c);
                continue;
            }
            let start = out.len();
            fold(c, &mut out);
            pieces.push(Piece {
                norm: start..out.len(),
                orig: i..i + c.len_utf8(),
            });
        }
        Normalised {
            text: Cow::Owned(out),
            pieces,
        }
    }

    /// The normalised text.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The span of the original text that `r` (a span of the normalised
    /// text, on char boundaries) came from.
    pub fn original(&self, r: Range<usize>) -> Range<usize> {
        if self.pieces.is_empty() {
            return r;
        }
        let start = self.start(r.start);
        let end = if r.end > r.start {
            self.end(r.end)
        } else {
            start
        };
        start..end.max(start)
    }

    /// The original offset of the character at normalised byte `x`.
    fn start(&self, x: usize) -> usize {
        let i = self.pieces.partition_point(|p| p.norm.start <= x);
        let Some(p) = i.checked_sub(1).map(|i| &self.pieces[i]) else {
            return x;
        };
        if x < p.norm.end {
            p.orig.start
        } else {
            p.orig.end + (x - p.norm.end)
        }
    }

    /// The original offset just past the character that ends at normalised
    /// byte `y` (exclusive, `y > 0`).
    fn end(&self, y: usize) -> usize {
        let x = y - 1;
        let i = self.pieces.partition_point(|p| p.norm.start <= x);
        let Some(p) = i.checked_sub(1).map(|i| &self.pieces[i]) else {
            return y;
        };
        if x < p.norm.end {
            p.orig.end
        } else {
            p.orig.end + (y - p.norm.end)
        }
    }
}

/// Appends what one non-ASCII or invisible character becomes.
fn fold(c: char, out: &mut String) {
    if is_invisible(c) {
        return;
    }
    decompose_compatible(c, |d| {
        if is_combining_mark(d) || is_invisible(d) {
            return;
        }
        if d.is_ascii() {
            out.push(d);
        } else {
            out.push(confusable(d));
        }
    });
}

/// The ASCII character `d` imitates, or `d`.
fn confusable(d: char) -> char {
    let mut buf = [0u8; 4];
    let mut skeleton = unicode_security::skeleton(d.encode_utf8(&mut buf))
        .filter(|s| !is_combining_mark(*s) && !is_invisible(*s));
    let (Some(first), second, None) = (skeleton.next(), skeleton.next(), skeleton.next()) else {
        return d;
    };
    match (first, second) {
        ('l', None) if d.is_uppercase() => 'I',
        ('l', None) if d.is_numeric() => '1',
        ('O', None) if d.is_numeric() => '0',
        ('r', Some('n')) => 'm',
        (a, None) if a.is_ascii_graphic() => a,
        _ => d,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn norm(s: &str) -> String {
        Normalised::of(s).text().to_owned()
    }

    #[test]
    fn disguises_are_seen_through() {
        // Cyrillic А, full-width letters and low line, a zero-width space,
        // a soft hyphen, a combining accent, mathematical bold, a Cyrillic
        // capital I (whose prototype is `l`), bidirectional overrides.
        assert_eq!(norm("\u{410}KIA"), "AKIA");
        assert_eq!(norm("ｇｈｐ＿x"), "ghp_x");
        assert_eq!(norm("gh\u{200B}p_\u{AD}x"), "ghp_x");
        assert_eq!(norm("e\u{301}"), "e");
        assert_eq!(norm("\u{1D400}\u{1D40A}"), "AK");
        assert_eq!(norm("AK\u{406}A"), "AKIA");
        assert_eq!(norm("\u{202E}abc\u{202C}"), "abc");
        assert_eq!(norm("a\u{0}b\u{1b}c\td\ne"), "abc\td\ne");
        // Letters without an ASCII look-alike, and quotes, stay.
        assert_eq!(norm("日本 “q”"), "日本 “q”");
        assert_eq!(norm("\u{A0}"), " ");
    }

    #[test]
    fn spans_map_back_to_the_original() {
        let t = "x \u{200B}ｇｈ\u{410}é z";
        let n = Normalised::of(t);
        assert_eq!(n.text(), "x ghAe z");
        // "ghAe" in the normalised text is "\u{200B}ｇｈ\u{410}é" minus the
        // leading zero-width space.
        let at = n.text().find("ghAe").unwrap();
        let r = n.original(at..at + 4);
        assert_eq!(&t[r], "ｇｈ\u{410}é");
        // Plain text maps to itself.
        let p = Normalised::of("plain");
        assert_eq!(p.original(1..3), 1..3);
        // Every span of every prefix maps onto char boundaries.
        for i in 0..=n.text().len() {
            for j in i..=n.text().len() {
                if n.text().is_char_boundary(i) && n.text().is_char_boundary(j) {
                    let r = n.original(i..j);
                    assert!(t.is_char_boundary(r.start) && t.is_char_boundary(r.end));
                    assert!(r.start <= r.end);
                }
            }
        }
    }
}
