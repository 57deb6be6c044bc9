//! Small text helpers shared by the capture modules: bounding, flattening
//! markdown, cutting sentences, tidying a sentence into a summary.
//!
//! Owns only string shaping. It must not decide what a moment is (that is
//! `offline`), nor read, redact or hash anything.

/// Cuts `s` to at most `max` characters, marking a cut with `…`.
pub(crate) fn clip(s: &str, max: usize) -> String {
    crate::schema::clip(s, max)
}

/// Keeps the first `head` and the last `tail` characters of `s`, with a line
/// saying how many were left out between them. Errors and summaries of
/// command output come at its end, so a tool result keeps both ends.
pub(crate) fn head_tail(s: &str, head: usize, tail: usize) -> String {
    let total = s.chars().count();
    if total <= head + tail {
        return s.to_owned();
    }
    let start: String = s.chars().take(head).collect();
    let end: String = s.chars().skip(total - tail).collect();
    format!(
        "{start}\n[… {} characters left out …]\n{end}",
        total - head - tail
    )
}

/// Whether `s` holds a control character other than tab, line feed and
/// carriage return (`crate::content::text`'s table).
pub(crate) fn has_control(s: &str) -> bool {
    use crate::content::text::{class, Class};
    s.chars().any(|c| c != '\r' && class(c) == Class::Control)
}

/// Terminal output made plain text: ANSI escape sequences (CSI
/// `ESC [ … final`, OSC `ESC ] … BEL` or `ESC ] … ESC \\`, and other
/// two-character escapes) are removed, a carriage return ends a line
/// (`\r\n` and a lone `\r` become `\n`), every other control character but
/// tab and line feed is dropped, and so are line and paragraph separators,
/// bidirectional controls and invisible characters (U+202E, U+200B …: the
/// table is `crate::content::text`'s), so that text from a tool's output is
/// text an artifact and a lesson may hold.
pub(crate) fn sanitize(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\u{1b}' => match chars.next() {
                // CSI: parameters and intermediates up to a final byte.
                Some('[') => {
                    for n in chars.by_ref() {
                        if ('\u{40}'..='\u{7e}').contains(&n) {
                            break;
                        }
                    }
                }
                // OSC (and DCS, APC, PM, SOS strings): to BEL or ST.
                Some(']' | 'P' | '_' | '^' | 'X') => {
                    while let Some(n) = chars.next() {
                        if n == '\u{7}' {
                            break;
                        }
                        if n == '\u{1b}' {
                            chars.next_if_eq(&'\\');
                            break;
                        }
                    }
                }
                _ => {}
            },
            // The 8-bit CSI.
            '\u{9b}' => {
                for n in chars.by_ref() {
                    if ('\u{40}'..='\u{7e}').contains(&n) {
                        break;
                    }
                }
            }
            '\r' => {
                chars.next_if_eq(&'\n');
                out.push('\n');
            }
            '\n' | '\t' => out.push(c),
            c if !crate::content::text::is_shown(c) => {}
            c => out.push(c),
        }
    }
    out
}

/// Every run of white space becomes one space; the ends are trimmed.
pub(crate) fn collapse(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Markdown flattened to plain lines: code-fence lines are dropped, heading
/// marks and quote marks removed, and inline code and emphasis markers
/// (`` ` ``, `**`, `__`) deleted, so that `` `vitest` 4.0.5 `` reads as
/// `vitest 4.0.5`. The text of code blocks is kept.
pub(crate) fn plain(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for line in text.lines() {
        let mut t = line.trim_start();
        if t.starts_with("```") || t.starts_with("~~~") {
            continue;
        }
        // Quote marks: "> " (a bare ">" too), never ">=4" or ">5".
        while let Some(rest) = t.strip_prefix("> ") {
            t = rest.trim_start();
        }
        if t == ">" {
            t = "";
        }
        // Heading marks: "#"s followed by a space, never "#123".
        let hashes = t.len() - t.trim_start_matches('#').len();
        if hashes > 0 && t[hashes..].starts_with(' ') {
            t = t[hashes..].trim_start();
        }
        let cleaned = t.replace("**", "").replace("__", "").replace('`', "");
        out.push_str(&cleaned);
        out.push('\n');
    }
    out
}

/// Sentences of `text`, cut exactly as the offline transform cuts them: at
/// `.`, `!` or `?` followed by white space (or the end), and at line breaks;
/// each is trimmed, its white space collapsed, a leading list bullet (`-`,
/// `*`, `•`) dropped; empty ones are skipped.
pub(crate) fn sentences(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut current = String::new();
    let mut chars = text.chars().peekable();
    let flush = |s: &mut String, out: &mut Vec<String>| {
        let t = collapse(s.trim().trim_start_matches(['-', '*', '•']));
        if !t.is_empty() {
            out.push(t);
        }
        s.clear();
    };
    while let Some(c) = chars.next() {
        if c == '\n' {
            flush(&mut current, &mut out);
            continue;
        }
        current.push(c);
        if matches!(c, '.' | '!' | '?') && chars.peek().is_none_or(|n| n.is_whitespace()) {
            flush(&mut current, &mut out);
        }
    }
    flush(&mut current, &mut out);
    out
}

/// A sentence as a summary: a leading first-person subject (`I `, `We `,
/// `I've `, `We've `) before a lower-case word is dropped and the next
/// letter capitalised ("I pinned vitest …" → "Pinned vitest …"), because a
/// lesson's claim is not narration; then the sentence is cut to `max`
/// characters.
pub(crate) fn as_summary(sentence: &str, max: usize) -> String {
    let mut s = sentence.trim();
    for subject in ["I've ", "We've ", "I ", "We "] {
        if let Some(rest) = s.strip_prefix(subject) {
            if rest.starts_with(|c: char| c.is_lowercase()) {
                s = rest;
            }
            break;
        }
    }
    let mut chars = s.chars();
    let capitalised: String = match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    };
    clip(&capitalised, max)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn terminal_output_is_made_plain_text() {
        assert_eq!(
            sanitize("\u{1b}[31mFAIL\u{1b}[39m vitest 4.0.5 fails with vite 5.4.21\r\nFixed by pinning vitest to 3.2.4"),
            "FAIL vitest 4.0.5 fails with vite 5.4.21\nFixed by pinning vitest to 3.2.4"
        );
        assert_eq!(
            sanitize("\u{1b}]8;;https://x.test\u{7}link\u{1b}]8;;\u{1b}\\ 50%\r100%\u{8}\u{7}\u{0}\ttab\u{202e}evil\u{1b}[1;2H\u{9b}2Kend\u{1b}c"),
            "link 50%\n100%\ttabevilend"
        );
        assert!(!has_control(&sanitize("a\u{1b}b\u{7f}c\u{85}d")));
    }

    #[test]
    fn head_and_tail_are_kept() {
        assert_eq!(head_tail("abcdef", 3, 3), "abcdef");
        assert_eq!(
            head_tail("abcdefgh", 2, 3),
            "ab\n[… 3 characters left out …]\nfgh"
        );
        assert_eq!(
            head_tail("ééééé", 1, 1),
            "é\n[… 3 characters left out …]\né"
        );
    }

    #[test]
    fn markdown_is_flattened() {
        let md = "## Fix\n**Cause:** `vitest` 4.0.5 needs __Vite 6__.\n```json\n\"vitest\": \"3.2.4\"\n```\n> quoted `x`";
        assert_eq!(
            plain(md),
            "Fix\nCause: vitest 4.0.5 needs Vite 6.\n\"vitest\": \"3.2.4\"\nquoted x\n"
        );
        assert_eq!(
            plain(">=4 <6\n#123 is open\n> > deep"),
            ">=4 <6\n#123 is open\ndeep\n"
        );
    }

    #[test]
    fn sentences_are_cut_like_the_offline_transform() {
        assert_eq!(
            sentences("Vite 5.4.21 broke. Pinned vite@5.4.20!\n- and a bullet\nWhy? ok"),
            vec![
                "Vite 5.4.21 broke.",
                "Pinned vite@5.4.20!",
                "and a bullet",
                "Why?",
                "ok"
            ]
        );
        assert_eq!(sentences("  \n\n "), Vec::<String>::new());
    }

    #[test]
    fn summaries_drop_a_leading_first_person_subject() {
        assert_eq!(
            as_summary("I pinned vitest to 3.2.4.", 200),
            "Pinned vitest to 3.2.4."
        );
        assert_eq!(
            as_summary("We've downgraded node.", 200),
            "Downgraded node."
        );
        assert_eq!(as_summary("I Pinned it.", 200), "I Pinned it.");
        assert_eq!(as_summary("fix: pin vite.", 200), "Fix: pin vite.");
        assert_eq!(as_summary("Iris pinned it.", 200), "Iris pinned it.");
        assert_eq!(as_summary("abcdef", 3), "Abc…");
    }

    #[test]
    fn control_characters() {
        assert!(!has_control("a\tb\nc\r"));
        assert!(has_control("a\u{0}b"));
        assert!(has_control("a\u{1b}[31m"));
    }
}
