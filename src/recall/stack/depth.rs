//! The depth budget of the JSON, JSONC and TOML lockfiles and manifests,
//! checked by one linear pass over the text before any parser sees it.
//!
//! Each pass counts the arrays and objects (JSON), plus comments skipped
//! (JSONC), or the arrays, inline tables and dotted-key segments (TOML)
//! open at any point, outside strings and comments, and refuses a text
//! nested deeper than [`MAX_DEPTH`] with [`StackError::TooDeep`]. The
//! parsers keep their own, larger, recursion guards (serde_json 128, toml
//! 80, jsonc-parser 512); this pass makes the budget ours, documented and
//! the same for every format, and names it in the message. Malformed text
//! (an unterminated string, unbalanced brackets) is left to the parser to
//! report: this pass only bounds depth.
//!
//! YAML's depth is bounded by serde-saphyr's budget (see `pnpm`), not
//! here. This file owns the counting only.

use super::{StackError, MAX_DEPTH};

fn too_deep() -> StackError {
    StackError::TooDeep { cap: MAX_DEPTH }
}

/// Index of the byte after the string that opens at `i` (a `"`), escapes
/// skipped; the end of the text if it never closes.
fn skip_json_string(b: &[u8], mut i: usize) -> usize {
    i += 1;
    while i < b.len() {
        match b[i] {
            b'\\' => i += 2,
            b'"' => return i + 1,
            _ => i += 1,
        }
    }
    b.len()
}

/// Refuses JSON nested deeper than [`MAX_DEPTH`]; with `comments`, `//`
/// and `/* */` comments are skipped too (JSONC, as bun writes it).
pub(crate) fn json(text: &str, comments: bool) -> Result<(), StackError> {
    let b = text.as_bytes();
    let mut depth = 0usize;
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'"' => {
                i = skip_json_string(b, i);
                continue;
            }
            b'[' | b'{' => {
                depth += 1;
                if depth > MAX_DEPTH {
                    return Err(too_deep());
                }
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            b'/' if comments && b.get(i + 1) == Some(&b'/') => {
                i = b[i..]
                    .iter()
                    .position(|&c| c == b'\n')
                    .map_or(b.len(), |p| i + p);
                continue;
            }
            b'/' if comments && b.get(i + 1) == Some(&b'*') => {
                i = text[i + 2..].find("*/").map_or(b.len(), |p| i + 2 + p + 2);
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    Ok(())
}

/// Refuses TOML nested deeper than [`MAX_DEPTH`]: arrays and inline tables
/// open, plus the segments of the dotted key being read (`a.b.c = 1` and
/// `[a.b.c]` nest three tables). The key count restarts at each new key
/// (a line at top level, or after `{` or `,` in an inline table); the
/// segments of the keys that lead into an open inline table or array
/// (`a.b = { c.d = … }`) stay counted until it closes.
pub(crate) fn toml(text: &str) -> Result<(), StackError> {
    let b = text.as_bytes();
    let mut depth = 0usize;
    let mut key_dots = 0usize;
    // The key segments held by each open bracket, and their sum.
    let mut held: Vec<usize> = Vec::new();
    let mut held_sum = 0usize;
    let mut in_key = true;
    let mut i = 0;
    let check = |depth: usize, dots: usize| {
        if depth + dots > MAX_DEPTH {
            Err(too_deep())
        } else {
            Ok(())
        }
    };
    while i < b.len() {
        match b[i] {
            b'#' => {
                i = b[i..]
                    .iter()
                    .position(|&c| c == b'\n')
                    .map_or(b.len(), |p| i + p);
                continue;
            }
            b'"' | b'\'' => {
                let quote = b[i];
                let triple = b.get(i + 1) == Some(&quote) && b.get(i + 2) == Some(&quote);
                i = if triple {
                    let close = if quote == b'"' { "\"\"\"" } else { "'''" };
                    let mut j = i + 3;
                    loop {
                        match text[j.min(b.len())..].find(close) {
                            None => break b.len(),
                            Some(p) => {
                                let at = j + p;
                                // `\"""` inside a basic string is escaped.
                                if quote == b'"' && escaped(b, at) {
                                    j = at + 1;
                                    continue;
                                }
                                break at + 3;
                            }
                        }
                    }
                } else {
                    let mut j = i + 1;
                    while j < b.len() && b[j] != quote && b[j] != b'\n' {
                        j += if quote == b'"' && b[j] == b'\\' { 2 } else { 1 };
                    }
                    (j + 1).min(b.len())
                };
                continue;
            }
            b'[' | b'{' => {
                depth += 1;
                // A table header's brackets hold no key of a line before.
                let hold = if in_key { 0 } else { key_dots };
                held.push(hold);
                held_sum += hold;
                if b[i] == b'{' {
                    in_key = true;
                }
                key_dots = 0;
                check(depth, held_sum + key_dots)?;
            }
            b']' | b'}' => {
                depth = depth.saturating_sub(1);
                if let Some(h) = held.pop() {
                    held_sum -= h;
                }
            }
            b'.' if in_key => {
                key_dots += 1;
                check(depth, held_sum + key_dots)?;
            }
            b'=' => in_key = false,
            b',' => {
                in_key = true;
                key_dots = 0;
            }
            b'\n' if depth == 0 => {
                in_key = true;
                key_dots = 0;
            }
            _ => {}
        }
        i += 1;
    }
    Ok(())
}

/// Whether the byte at `at` follows an odd run of backslashes.
fn escaped(b: &[u8], at: usize) -> bool {
    b[..at].iter().rev().take_while(|&&c| c == b'\\').count() % 2 == 1
}

#[cfg(test)]
mod tests {
    use super::*;

    fn nest(open: &str, close: &str, n: usize) -> String {
        format!("{}{}", open.repeat(n), close.repeat(n))
    }

    #[test]
    fn json_depth_is_bounded_at_the_budget() {
        assert_eq!(json(&nest("[", "]", MAX_DEPTH), false), Ok(()));
        assert_eq!(
            json(&nest("[", "]", MAX_DEPTH + 1), false),
            Err(StackError::TooDeep { cap: MAX_DEPTH })
        );
        let objects = format!("{}1{}", "{\"a\":".repeat(MAX_DEPTH + 1), "}".repeat(65));
        assert!(json(&objects, false).is_err());
        // Brackets inside strings, escaped quotes included, do not count.
        let s = format!("[\"\\\"{}\"]", "[".repeat(500));
        assert_eq!(json(&s, false), Ok(()));
        // Comments count as text in JSON and are skipped in JSONC.
        let c = format!("[ // {}\n /* {} */ ]", "[".repeat(100), "{".repeat(100));
        assert!(json(&c, false).is_err());
        assert_eq!(json(&c, true), Ok(()));
        // Unterminated strings and comments end the pass; the parser
        // reports them.
        assert_eq!(json("[\"abc", false), Ok(()));
        assert_eq!(json("[/* abc", true), Ok(()));
    }

    #[test]
    fn toml_depth_counts_arrays_tables_and_dotted_keys() {
        let ok = format!("x = {}\n", nest("[", "]", MAX_DEPTH));
        assert_eq!(toml(&ok), Ok(()));
        let deep = format!("x = {}\n", nest("[", "]", MAX_DEPTH + 1));
        assert_eq!(toml(&deep), Err(StackError::TooDeep { cap: MAX_DEPTH }));
        let dotted = format!("{} = 1\n", vec!["a"; MAX_DEPTH + 2].join("."));
        assert!(toml(&dotted).is_err());
        let header = format!("[{}]\n", vec!["a"; MAX_DEPTH + 2].join("."));
        assert!(toml(&header).is_err());
        let inline = format!("x = {}1{}\n", "{a = ".repeat(MAX_DEPTH + 1), "}".repeat(65));
        assert!(toml(&inline).is_err());
        // Dotted keys inside nested inline tables count with the tables
        // around them: 33 levels of `{a.b = ` nest 66 tables.
        let dotted_inline = format!("x = {}1{}\n", "{a.b = ".repeat(33), "}".repeat(33));
        assert_eq!(
            toml(&dotted_inline),
            Err(StackError::TooDeep { cap: MAX_DEPTH })
        );
        let shallow_inline = format!("x = {}1{}\n", "{a.b = ".repeat(32), "}".repeat(32));
        assert_eq!(toml(&shallow_inline), Ok(()));
        // Dots in values, strings and comments are not key segments; each
        // line's key starts again.
        let flat = "version = 1.5\nname = \"a.b.c.d\"\n# a.b.c\n".repeat(100);
        assert_eq!(toml(&flat), Ok(()));
        let many = "a.b.c = 1\n".repeat(1000);
        assert_eq!(toml(&many), Ok(()));
        // Brackets in every kind of string do not count.
        let strings = format!(
            "a = \"{b}\"\nb = '{b}'\nc = \"\"\"\n{b}\\\"\"\"\n{b}\"\"\"\nd = '''\n{b}'''\n",
            b = "[".repeat(100)
        );
        assert_eq!(toml(&strings), Ok(()));
    }
}
