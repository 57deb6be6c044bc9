//! The one table of characters, and how each kind of output shows them.
//!
//! Every character is in exactly one [`Class`]:
//!
//! | class | characters | terminal ([`terminal`]) | prose ([`is_shown`]) | JSON ([`json`]) |
//! |---|---|---|---|---|
//! | text | everything else | as is | as is | as is |
//! | line feed, tab | U+000A, U+0009 | `\n`, `\t` | white space | `\n`, `\t` |
//! | control | the rest of C0, DEL, C1 (U+0000–U+001F, U+007F–U+009F) | `\r`, `\x1b` | dropped | `\r`, `\u001b`, `\u007f` |
//! | separator | U+2028, U+2029 | `\u{2028}` | white space | `\u2028` |
//! | bidi | embeddings, overrides, isolates, marks: U+061C, U+200E, U+200F, U+202A–U+202E, U+2066–U+2069 | `\u{202e}` | dropped | `\u202e` |
//! | invisible | characters that show nothing: the soft hyphen, zero-width characters, joiners, fillers, variation selectors, tags, the byte-order mark, interlinear annotation marks (see [`is_invisible`]) | `\u{200b}` | dropped | `\u200b` |
//!
//! So no text can move a terminal's cursor, set its title, write its
//! clipboard, clear its screen, fake a row, or say something other than it
//! shows; and JSON, which is exact, still names every such character in a
//! form a person reading it sees (`\u202e`), parsing back to the same
//! string.
//!
//! The invisible class is Unicode's `Default_Ignorable_Code_Point` less the
//! bidi marks (a class of their own), plus the interlinear annotation marks
//! U+FFF9–U+FFFB (format characters that hide the text between them). An
//! emoji's variation selector or zero-width joiner is invisible too: a
//! terminal shows it as an escape, and a run of them is how text is
//! smuggled past a reader.
//!
//! This module owns only the table and the escaping. What a record may hold
//! is [`super::record`]'s to say; it never prints.

use serde::Serialize;

/// What a character is, as far as showing it goes (the table in the module
/// doc).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Class {
    /// Shown as itself.
    Text,
    /// U+000A.
    LineFeed,
    /// U+0009.
    Tab,
    /// Every other C0 control, DEL, and every C1 control (carriage return,
    /// escape, NUL, BEL, the 8-bit CSI U+009B, NEL U+0085 …).
    Control,
    /// U+2028 LINE SEPARATOR and U+2029 PARAGRAPH SEPARATOR.
    Separator,
    /// A bidirectional embedding, override, isolate or mark.
    Bidi,
    /// A character that shows nothing.
    Invisible,
}

/// The class of `c` (the one table).
pub fn class(c: char) -> Class {
    match c {
        '\n' => Class::LineFeed,
        '\t' => Class::Tab,
        '\u{0}'..='\u{1f}' | '\u{7f}'..='\u{9f}' => Class::Control,
        '\u{2028}' | '\u{2029}' => Class::Separator,
        c if is_bidi(c) => Class::Bidi,
        c if is_invisible(c) => Class::Invisible,
        _ => Class::Text,
    }
}

/// A bidirectional control: the Arabic letter mark U+061C, the marks
/// U+200E and U+200F, the embeddings and overrides U+202A–U+202E, the
/// isolates U+2066–U+2069. It makes text display as something other than
/// what it says.
pub fn is_bidi(c: char) -> bool {
    matches!(c, '\u{061C}' | '\u{200E}' | '\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
}

/// A character that shows nothing: the soft hyphen U+00AD, the combining
/// grapheme joiner U+034F, the Hangul fillers (U+115F, U+1160, U+3164,
/// U+FFA0), the Khmer inherent vowels U+17B4–U+17B5, the Mongolian free
/// variation selectors and vowel separator U+180B–U+180F, the zero-width
/// space, non-joiner and joiner U+200B–U+200D, the word joiner and
/// invisible operators U+2060–U+2065, the deprecated format characters
/// U+206A–U+206F, the variation selectors U+FE00–U+FE0F and
/// U+E0100–U+E01EF, the byte-order mark U+FEFF, the reserved U+FFF0–U+FFF8,
/// the interlinear annotation marks U+FFF9–U+FFFB, the shorthand format
/// controls U+1BCA0–U+1BCA3, the musical format characters
/// U+1D173–U+1D17A, and the tags and the rest of plane 14's ignorables
/// U+E0000–U+E0FFF.
pub fn is_invisible(c: char) -> bool {
    matches!(c,
        '\u{00AD}' | '\u{034F}' | '\u{115F}' | '\u{1160}' | '\u{17B4}' | '\u{17B5}'
        | '\u{180B}'..='\u{180F}' | '\u{200B}'..='\u{200D}' | '\u{2060}'..='\u{2065}'
        | '\u{206A}'..='\u{206F}' | '\u{3164}' | '\u{FE00}'..='\u{FE0F}' | '\u{FEFF}'
        | '\u{FFA0}' | '\u{FFF0}'..='\u{FFFB}' | '\u{1BCA0}'..='\u{1BCA3}'
        | '\u{1D173}'..='\u{1D17A}' | '\u{E0000}'..='\u{E0FFF}')
}

/// A character that hides or reorders text: [`is_bidi`] or
/// [`is_invisible`]. What a normaliser removes before it compares text.
pub fn is_hidden(c: char) -> bool {
    is_bidi(c) || is_invisible(c)
}

/// Whether `c` may appear in one line of prose as itself: of [`Class::Text`].
/// Prose flattens white space first (line feeds, tabs, separators become
/// spaces) and drops every other character this refuses.
pub fn is_shown(c: char) -> bool {
    class(c) == Class::Text
}

/// Text from records, models and remotes as it may reach a terminal: one
/// line, every character that is not [`Class::Text`] shown as a visible
/// escape (`\n`, `\t`, `\r`, `\x1b`, `\u{202e}`).
pub fn terminal(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match class(c) {
            Class::Text => out.push(c),
            Class::LineFeed => out.push_str("\\n"),
            Class::Tab => out.push_str("\\t"),
            Class::Control if c == '\r' => out.push_str("\\r"),
            Class::Control => out.push_str(&format!("\\x{:02x}", c as u32)),
            Class::Separator | Class::Bidi | Class::Invisible => {
                out.push_str(&format!("\\u{{{:04x}}}", c as u32))
            }
        }
    }
    out
}

/// Text made one line by replacing: every control, line feed, tab and
/// separator becomes a space, bidi and invisible characters are dropped.
/// For a message quoted inside another (a program's stderr, a library's
/// error, a commit subject), where the terminal escapes would be noise.
pub fn spaced(s: &str) -> String {
    s.chars()
        .filter_map(|c| match class(c) {
            Class::Text => Some(c),
            Class::LineFeed | Class::Tab | Class::Control | Class::Separator => Some(' '),
            Class::Bidi | Class::Invisible => None,
        })
        .collect()
}

/// JSON text with every character that is not [`Class::Text`], line feed
/// or tab written as `\uXXXX` (lower-case hex, a surrogate pair above
/// U+FFFF). `text` must be JSON as serde_json writes it: outside strings it
/// is ASCII, so only string contents change, and the JSON parses back to
/// the same value.
pub fn escape_json(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match class(c) {
            Class::Text | Class::LineFeed | Class::Tab => out.push(c),
            _ => {
                let mut units = [0u16; 2];
                for u in c.encode_utf16(&mut units) {
                    out.push_str(&format!("\\u{u:04x}"));
                }
            }
        }
    }
    out
}

/// `value` as pretty JSON (no final newline), escaped by [`escape_json`]:
/// what every `--json` output prints.
pub fn json<T: Serialize + ?Sized>(value: &T) -> Result<String, serde_json::Error> {
    Ok(escape_json(&serde_json::to_string_pretty(value)?))
}

/// `value` as one line of JSON, escaped by [`escape_json`].
pub fn json_line<T: Serialize + ?Sized>(value: &T) -> Result<String, serde_json::Error> {
    Ok(escape_json(&serde_json::to_string(value)?))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One character of every class and range of the table, with its class.
    const TABLE: &[(char, Class)] = &[
        ('a', Class::Text),
        ('é', Class::Text),
        (' ', Class::Text),
        ('\u{a0}', Class::Text),
        ('😀', Class::Text),
        ('\u{2027}', Class::Text),
        ('\u{202f}', Class::Text),
        ('\u{fffc}', Class::Text),
        ('\n', Class::LineFeed),
        ('\t', Class::Tab),
        ('\0', Class::Control),
        ('\u{7}', Class::Control),
        ('\r', Class::Control),
        ('\u{1b}', Class::Control),
        ('\u{1f}', Class::Control),
        ('\u{7f}', Class::Control),
        ('\u{85}', Class::Control),
        ('\u{9b}', Class::Control),
        ('\u{9f}', Class::Control),
        ('\u{2028}', Class::Separator),
        ('\u{2029}', Class::Separator),
        ('\u{061c}', Class::Bidi),
        ('\u{200e}', Class::Bidi),
        ('\u{200f}', Class::Bidi),
        ('\u{202a}', Class::Bidi),
        ('\u{202e}', Class::Bidi),
        ('\u{2066}', Class::Bidi),
        ('\u{2069}', Class::Bidi),
        ('\u{00ad}', Class::Invisible),
        ('\u{034f}', Class::Invisible),
        ('\u{115f}', Class::Invisible),
        ('\u{1160}', Class::Invisible),
        ('\u{17b4}', Class::Invisible),
        ('\u{180e}', Class::Invisible),
        ('\u{200b}', Class::Invisible),
        ('\u{200c}', Class::Invisible),
        ('\u{200d}', Class::Invisible),
        ('\u{2060}', Class::Invisible),
        ('\u{2064}', Class::Invisible),
        ('\u{206f}', Class::Invisible),
        ('\u{3164}', Class::Invisible),
        ('\u{fe00}', Class::Invisible),
        ('\u{fe0f}', Class::Invisible),
        ('\u{feff}', Class::Invisible),
        ('\u{ffa0}', Class::Invisible),
        ('\u{fff9}', Class::Invisible),
        ('\u{fffb}', Class::Invisible),
        ('\u{1bca0}', Class::Invisible),
        ('\u{1d173}', Class::Invisible),
        ('\u{e0001}', Class::Invisible),
        ('\u{e0041}', Class::Invisible),
        ('\u{e0100}', Class::Invisible),
        ('\u{e0fff}', Class::Invisible),
    ];

    #[test]
    fn every_character_has_one_class() {
        for &(c, want) in TABLE {
            assert_eq!(class(c), want, "U+{:04X}", c as u32);
            assert_eq!(is_shown(c), want == Class::Text, "U+{:04X}", c as u32);
            assert_eq!(
                is_hidden(c),
                matches!(want, Class::Bidi | Class::Invisible),
                "U+{:04X}",
                c as u32
            );
        }
        // Every C0 and C1 control but line feed and tab is a control.
        for c in ('\u{0}'..='\u{9f}').filter(|c| c.is_control()) {
            if c != '\n' && c != '\t' {
                assert_eq!(class(c), Class::Control, "U+{:04X}", c as u32);
            }
        }
        // The neighbours of each range are text.
        for c in [
            '\u{a0}',
            '\u{ac}',
            '\u{ae}',
            '\u{200a}',
            '\u{2010}',
            '\u{2027}',
            '\u{202f}',
            '\u{205f}',
            '\u{fdff}',
            '\u{fe10}',
            '\u{fffc}',
            '\u{e1000}',
        ] {
            assert_eq!(class(c), Class::Text, "U+{:04X}", c as u32);
        }
    }

    #[test]
    fn a_terminal_gets_every_class_as_text() {
        for (raw, shown) in [
            ("plain é text 😀", "plain é text 😀"),
            ("two\nlines\tand\r", "two\\nlines\\tand\\r"),
            ("\u{1b}]0;title\u{7}", "\\x1b]0;title\\x07"),
            ("\u{1b}]52;c;cGF3bmVk\u{7}", "\\x1b]52;c;cGF3bmVk\\x07"),
            ("\u{1b}[2J\u{1b}[H", "\\x1b[2J\\x1b[H"),
            ("c1 \u{9b}31m \u{85}", "c1 \\x9b31m \\x85"),
            ("nul\0 del\u{7f}", "nul\\x00 del\\x7f"),
            ("abc\u{202e}gnp.exe", "abc\\u{202e}gnp.exe"),
            ("zero\u{200b}width", "zero\\u{200b}width"),
            (
                "soft\u{ad}hyphen\u{fff9}a\u{fffb}",
                "soft\\u{00ad}hyphen\\u{fff9}a\\u{fffb}",
            ),
            ("line\u{2028}sep", "line\\u{2028}sep"),
            ("tag\u{e0041}", "tag\\u{e0041}"),
        ] {
            assert_eq!(terminal(raw), shown, "{raw:?}");
        }
    }

    #[test]
    fn spaced_text_is_one_line_of_what_shows() {
        assert_eq!(
            spaced("a\nb\tc\rd\u{1b}[31me\u{2028}f\u{202e}g\u{200b}h\u{ad}i"),
            "a b c d [31me fghi"
        );
    }

    #[test]
    fn json_names_every_hidden_character_and_parses_back() {
        let s = "a\u{202e}b\u{202c}c\u{200b}d\u{7f}e\u{85}f\u{2028}g\u{e0041}h\u{1b}i\n\t\"é😀";
        let out = json(&serde_json::json!({ "claim": s })).unwrap();
        assert!(out.is_ascii() || !out.chars().any(|c| !is_shown(c) && c != '\n'));
        assert!(out.contains("a\\u202eb\\u202cc\\u200bd\\u007fe\\u0085f\\u2028g\\udb40\\udc41h\\u001bi\\n\\t\\\"é😀"), "{out}");
        let back: serde_json::Value = serde_json::from_str(&out).unwrap();
        assert_eq!(back["claim"], s);
        let line = json_line(&serde_json::json!([s])).unwrap();
        assert!(!line.contains('\n'));
        let back: serde_json::Value = serde_json::from_str(&line).unwrap();
        assert_eq!(back[0], s);
        // Plain JSON is unchanged.
        let plain = serde_json::json!({"a": [1, "x y", null]});
        assert_eq!(
            json(&plain).unwrap(),
            serde_json::to_string_pretty(&plain).unwrap()
        );
    }
}
