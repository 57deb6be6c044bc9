//! The record policy: what an entry a commit writes may be, and which
//! characters the text of a lesson may hold. Every door applies it: ingest
//! to a candidate before it is proposed ([`check_lesson_text`], through
//! `crate::pipeline::validate`), and `verify`, `sync`, the host's
//! pre-receive check and `verify --pool` to every entry a commit writes
//! ([`check_entry`] before the entry is read, then [`check_record`]).
//!
//! The rules, each named by a [`Rule`]:
//!
//! - **mode**: an entry is a regular, non-executable file (`100644`). A
//!   symbolic link (`120000`), an executable (`100755`) or a submodule
//!   (`160000`) is refused: a checkout of a pool would follow, run or fetch
//!   it.
//! - **path**: every part of the path is made of ASCII letters, digits,
//!   `.`, `_` and `-`, none is `.` or `..`, and the whole is at most
//!   [`MAX_PATH_BYTES`]. (Which paths an action may write is
//!   `crate::event`'s rule.)
//! - **record-size**: an entry is at most [`MAX_RECORD_BYTES`]; a ledger
//!   record (`proposals/`, `declined/`), which carries its whole artifact,
//!   at most [`MAX_LEDGER_RECORD_BYTES`].
//! - **field-size**: in a lesson's text, a one-line field is at most
//!   [`MAX_LINE_CHARS`] characters, a multi-line one ([`MULTI_LINE`]) at
//!   most [`MAX_TEXT_CHARS`].
//! - **control**: no control character in a lesson's text ([`super::text`]'s
//!   table); a multi-line field may hold line feeds and tabs, a one-line
//!   field neither (nor a line or paragraph separator).
//! - **bidi**: no bidirectional control anywhere in a lesson's text.
//! - **invisible**: no invisible character in a one-line field; in a
//!   multi-line field, at most [`MAX_INVISIBLE_RUN`] in a row (an emoji's
//!   variation selector and joiner), never a run that hides text.
//!
//! A lesson's text is every string and key of a pool entry (`lessons/…`)
//! and of a proposal's `candidate` and `candidate_before_confirm`
//! (`proposals/…`; `unconfirm` restores the latter). Other records
//! (declines, relation records, `.lore/`) are held to the mode, path and
//! size rules; their text is generated or checked where it is written.
//!
//! Pure: the caller reads the entry; nothing here touches git or prints.

use std::fmt::{self, Write};

use serde_json::Value;

use super::text::{class, Class};

/// The one file mode an entry may have: a regular, non-executable file.
pub const REGULAR_FILE: u32 = 0o100644;

/// The longest path, in bytes.
pub const MAX_PATH_BYTES: usize = 255;

/// The largest entry outside the ledger: twice the largest model answer
/// (`crate::ops::backend::MAX_ANSWER`), which bounds a lesson's text.
pub const MAX_RECORD_BYTES: u64 = 2 << 20;

/// The largest ledger record (a proposal or a decline carries its artifact,
/// itself up to `crate::pipeline::input::MAX_ARTIFACT_BYTES`).
pub const MAX_LEDGER_RECORD_BYTES: u64 = 4 << 20;

/// The longest one-line field of a lesson (a claim, a stack entry, a file
/// pattern, a range), in characters.
pub const MAX_LINE_CHARS: usize = 1_000;

/// The longest multi-line field of a lesson (rationale, resolution,
/// justification), in characters.
pub const MAX_TEXT_CHARS: usize = 20_000;

/// The most invisible characters in a row a multi-line field may hold.
pub const MAX_INVISIBLE_RUN: usize = 2;

/// The fields of a lesson (and of a candidate) that may span lines, as JSON
/// pointers from the lesson.
pub const MULTI_LINE: &[&str] = &[
    "/rationale",
    "/evidence/resolution",
    "/applies_to/scope/justification",
];

/// Which rule an entry broke.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Rule {
    Mode,
    Path,
    RecordSize,
    FieldSize,
    Control,
    Bidi,
    Invisible,
}

impl Rule {
    /// The rule's name, as a refusal and `docs/pools.md` spell it.
    pub fn as_str(self) -> &'static str {
        match self {
            Rule::Mode => "mode",
            Rule::Path => "path",
            Rule::RecordSize => "record-size",
            Rule::FieldSize => "field-size",
            Rule::Control => "control",
            Rule::Bidi => "bidi",
            Rule::Invisible => "invisible",
        }
    }
}

impl fmt::Display for Rule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One thing an entry may not be: the rule, where (a path, or a JSON
/// pointer into the record), and what was found.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{at}: {what} (content rule {rule})")]
pub struct Violation {
    pub rule: Rule,
    pub at: String,
    pub what: String,
}

impl Violation {
    /// A violation whose place and words are shown as one line of text:
    /// a JSON pointer holds the record's own keys, and a message may quote
    /// them, so both are escaped by [`super::text::terminal`] here, once,
    /// whatever prints them.
    fn new(rule: Rule, at: impl Into<String>, what: impl Into<String>) -> Violation {
        Violation {
            rule,
            at: super::text::terminal(&at.into()),
            what: super::text::terminal(&what.into()),
        }
    }
}

/// What a file mode is, in words.
fn mode_name(mode: u32) -> &'static str {
    match mode {
        0o120000 => "a symbolic link",
        0o160000 => "a submodule",
        0o040000 => "a directory",
        m if m & 0o111 != 0 => "an executable file",
        _ => "not a regular file",
    }
}

/// The largest entry `path` may be.
pub fn max_bytes(path: &str) -> u64 {
    if path.starts_with("proposals/") || path.starts_with("declined/") {
        MAX_LEDGER_RECORD_BYTES
    } else {
        MAX_RECORD_BYTES
    }
}

/// The rules an entry is held to before it is read: its mode, its path and
/// its size in bytes.
pub fn check_entry(path: &str, mode: u32, size: u64) -> Result<(), Violation> {
    if mode != REGULAR_FILE {
        return Err(Violation::new(
            Rule::Mode,
            path,
            format!(
                "has mode {mode:06o} ({}); a record is a regular file, mode 100644",
                mode_name(mode)
            ),
        ));
    }
    let part_ok = |p: &str| {
        !p.is_empty()
            && p != "."
            && p != ".."
            && p.bytes()
                .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-'))
    };
    if path.len() > MAX_PATH_BYTES || !path.split('/').all(part_ok) {
        return Err(Violation::new(
            Rule::Path,
            format!("{path:?}"),
            format!(
                "is not a record path: parts of ASCII letters, digits, '.', '_' and '-', none '.' or '..', at most {MAX_PATH_BYTES} bytes"
            ),
        ));
    }
    let max = max_bytes(path);
    if size > max {
        return Err(Violation::new(
            Rule::RecordSize,
            path,
            format!("is {size} bytes, over the limit of {max} bytes for a record"),
        ));
    }
    Ok(())
}

/// Where the lesson text of the record at `path` is, as JSON pointers: the
/// whole of a pool entry; a proposal's candidate and the candidate it held
/// before it was confirmed (which `unconfirm` restores, so it is lesson text
/// too); none for other records.
fn lesson_text_at(path: &str) -> &'static [&'static str] {
    if path.starts_with("lessons/") {
        &[""]
    } else if path.starts_with("proposals/") {
        &["/candidate", "/candidate_before_confirm"]
    } else {
        &[]
    }
}

/// The rules on what an entry holds: for a pool entry, its whole text; for
/// a proposal, its candidates' ([`check_lesson_text`]). Bytes that are not
/// JSON break no rule here (the record's schema check says so).
pub fn check_record(path: &str, bytes: &[u8]) -> Vec<Violation> {
    match serde_json::from_slice::<Value>(bytes) {
        Ok(value) => check_value(path, &value),
        Err(_) => Vec::new(),
    }
}

/// [`check_record`] of a record already parsed.
pub fn check_value(path: &str, value: &Value) -> Vec<Violation> {
    let mut out = Vec::new();
    for base in lesson_text_at(path) {
        let Some(lesson) = value.pointer(base).filter(|v| !v.is_null()) else {
            continue;
        };
        out.extend(check_lesson_text(lesson).into_iter().map(|mut v| {
            v.at = format!("{path} {base}{}", v.at);
            v
        }));
    }
    out
}

/// The character and field-size rules over the text of a lesson or a
/// candidate: every string and every key, each with the JSON pointer of the
/// value at fault. One violation per rule per string.
pub fn check_lesson_text(lesson: &Value) -> Vec<Violation> {
    let mut out = Vec::new();
    walk(lesson, &mut String::new(), &mut out);
    out
}

/// Escapes one JSON-pointer reference token (`~` → `~0`, `/` → `~1`).
pub fn pointer_token(key: &str) -> String {
    key.replace('~', "~0").replace('/', "~1")
}

/// Checks every string and key below `value`, whose JSON pointer is
/// `path` (one buffer for the whole walk: a pointer is built into a string
/// of its own only for a violation).
fn walk(value: &Value, path: &mut String, out: &mut Vec<Violation>) {
    let len = path.len();
    match value {
        Value::String(s) => check_field(s, path, MULTI_LINE.contains(&path.as_str()), out),
        Value::Array(items) => {
            for (i, v) in items.iter().enumerate() {
                let _ = write!(path, "/{i}");
                walk(v, path, out);
                path.truncate(len);
            }
        }
        Value::Object(map) => {
            let versions = path == "/applies_to/scope/versions";
            for (k, v) in map {
                path.push('/');
                if k.contains(['~', '/']) {
                    path.push_str(&pointer_token(k));
                } else {
                    path.push_str(k);
                }
                check_key(k, path, versions, out);
                walk(v, path, out);
                path.truncate(len);
            }
        }
        _ => {}
    }
}

/// A key: one line, nothing hidden. A `versions` key is a package name.
fn check_key(key: &str, at: &str, is_package: bool, out: &mut Vec<Violation>) {
    if let Some(c) = key.chars().find(|&c| class(c) != Class::Text) {
        let rule = match class(c) {
            Class::Bidi => Rule::Bidi,
            Class::Invisible => Rule::Invisible,
            _ => Rule::Control,
        };
        let what = if is_package {
            format!(
                "the versions key {key:?} contains U+{:04X}; a key is a package name",
                c as u32
            )
        } else {
            format!(
                "the key {key:?} contains U+{:04X}; a key is one line of text",
                c as u32
            )
        };
        out.push(Violation::new(rule, at, what));
    }
}

/// The rules of one string field.
fn check_field(s: &str, at: &str, multi_line: bool, out: &mut Vec<Violation>) {
    let max = if multi_line {
        MAX_TEXT_CHARS
    } else {
        MAX_LINE_CHARS
    };
    // Printable ASCII (most of every lesson) breaks no character rule.
    let plain = |b: u8| (0x20..0x7f).contains(&b) || (multi_line && (b == b'\n' || b == b'\t'));
    if s.len() <= max && s.bytes().all(plain) {
        return;
    }
    // Counting stops at the limit: a huge field costs no more than that.
    if s.chars().take(max + 1).count() > max {
        out.push(Violation::new(
            Rule::FieldSize,
            at,
            format!(
                "is over the limit of {max} characters for a {} field",
                if multi_line { "multi-line" } else { "one-line" }
            ),
        ));
    }
    let (mut bidi, mut control, mut invisible) = (None, false, None);
    let mut run = 0;
    for c in s.chars() {
        let k = class(c);
        if k == Class::Invisible {
            run += 1;
            if invisible.is_none() && (!multi_line || run > MAX_INVISIBLE_RUN) {
                invisible = Some(c);
            }
        } else {
            run = 0;
        }
        match k {
            Class::Bidi if bidi.is_none() => bidi = Some(c),
            Class::Control | Class::Separator => control = true,
            Class::LineFeed | Class::Tab if !multi_line => control = true,
            _ => {}
        }
    }
    if let Some(c) = bidi {
        out.push(Violation::new(
            Rule::Bidi,
            at,
            format!(
                "contains the bidirectional control U+{:04X}, which makes text display differently from what it says",
                c as u32
            ),
        ));
    }
    if control {
        out.push(Violation::new(
            Rule::Control,
            at,
            if multi_line {
                "contains a control character"
            } else {
                "contains a control character or line break; it must be one line"
            },
        ));
    }
    if let Some(c) = invisible {
        out.push(Violation::new(
            Rule::Invisible,
            at,
            if multi_line {
                format!(
                    "contains more than {MAX_INVISIBLE_RUN} invisible characters in a row (from U+{:04X}), which hide what the text holds",
                    c as u32
                )
            } else {
                format!(
                    "contains the invisible character U+{:04X}; a one-line field shows everything it holds",
                    c as u32
                )
            },
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn rules(v: &[Violation]) -> Vec<(Rule, &str)> {
        v.iter().map(|v| (v.rule, v.at.as_str())).collect()
    }

    #[test]
    fn only_a_regular_file_of_a_record_path_and_size_is_an_entry() {
        let p = "lessons/K/5/A/01KZ45MKAM734ZS7JK24D2DK5A.json";
        assert_eq!(check_entry(p, 0o100644, 1_000), Ok(()));
        assert_eq!(check_entry(".lore/allowed_signers", 0o100644, 10), Ok(()));
        for (mode, words) in [
            (0o120000, "has mode 120000 (a symbolic link)"),
            (0o100755, "has mode 100755 (an executable file)"),
            (0o160000, "has mode 160000 (a submodule)"),
            (0o100664, "has mode 100664 (not a regular file)"),
        ] {
            let e = check_entry(p, mode, 10).unwrap_err();
            assert_eq!(e.rule, Rule::Mode);
            assert_eq!(
                e.to_string(),
                format!(
                    "{p}: {words}; a record is a regular file, mode 100644 (content rule mode)"
                )
            );
        }
        for bad in [
            "lessons/../x.json",
            "/lessons/x.json",
            "lessons//x.json",
            "lessons/x\u{1b}.json",
            "lessons/\u{202e}x.json",
            "lessons/é.json",
            "lessons/a b.json",
            "lessons/./x.json",
        ] {
            let e = check_entry(bad, 0o100644, 10).unwrap_err();
            assert_eq!(e.rule, Rule::Path, "{bad:?}");
            assert!(e.at.starts_with('"'), "quoted: {}", e.at);
        }
        assert_eq!(
            check_entry(&"a".repeat(256), 0o100644, 1).unwrap_err().rule,
            Rule::Path
        );
        let e = check_entry(p, 0o100644, MAX_RECORD_BYTES + 1).unwrap_err();
        assert_eq!(
            e.to_string(),
            format!("{p}: is 2097153 bytes, over the limit of 2097152 bytes for a record (content rule record-size)")
        );
        assert_eq!(check_entry(p, 0o100644, MAX_RECORD_BYTES), Ok(()));
        let ledger = "proposals/K/5/A/01KZ45MKAM734ZS7JK24D2DK5A.json";
        assert_eq!(
            check_entry(ledger, 0o100644, MAX_LEDGER_RECORD_BYTES),
            Ok(())
        );
        assert_eq!(
            check_entry(ledger, 0o100644, MAX_LEDGER_RECORD_BYTES + 1)
                .unwrap_err()
                .rule,
            Rule::RecordSize
        );
    }

    fn lesson() -> Value {
        json!({
            "claim": "Vitest 4 needs Vite 6",
            "rationale": "One.\n\n\tTwo ❤\u{fe0f} 🏳\u{fe0f}\u{200d}🌈.",
            "evidence": {"resolution": "Pin vitest to 3.2.4.", "session_ids": ["s1"]},
            "applies_to": {
                "stack": ["vite", "vitest"],
                "scope": {"kind": "versioned", "versions": {"vite": "<6"}},
                "file_patterns": [], "task_kinds": []
            }
        })
    }

    #[test]
    fn a_plain_lesson_breaks_no_rule() {
        assert_eq!(check_lesson_text(&lesson()), vec![]);
    }

    #[test]
    fn each_character_rule_names_the_field() {
        /// A field, its text, and the rules it breaks where.
        type Case<'a> = (&'a str, &'a str, &'a [(Rule, &'a str)]);
        let cases: &[Case] = &[
            ("/claim", "a\u{1b}[31mb", &[(Rule::Control, "/claim")]),
            ("/claim", "a\0b\u{7}", &[(Rule::Control, "/claim")]),
            ("/claim", "two\nlines", &[(Rule::Control, "/claim")]),
            ("/claim", "tab\there", &[(Rule::Control, "/claim")]),
            ("/claim", "sep\u{2028}", &[(Rule::Control, "/claim")]),
            ("/claim", "abc\u{202e}gnp.exe", &[(Rule::Bidi, "/claim")]),
            (
                "/claim",
                "zero\u{200b}width",
                &[(Rule::Invisible, "/claim")],
            ),
            ("/claim", "soft\u{ad}hyphen", &[(Rule::Invisible, "/claim")]),
            (
                "/claim",
                "ann\u{fff9}x\u{fffb}",
                &[(Rule::Invisible, "/claim")],
            ),
            (
                "/applies_to/stack/0",
                "vi\u{200d}te",
                &[(Rule::Invisible, "/applies_to/stack/0")],
            ),
            ("/rationale", "fine\nand\ttabs", &[]),
            ("/rationale", "cr\r\n", &[(Rule::Control, "/rationale")]),
            ("/rationale", "bell\u{7}", &[(Rule::Control, "/rationale")]),
            ("/rationale", "x\u{202e}y", &[(Rule::Bidi, "/rationale")]),
            ("/rationale", "two\u{fe0f}\u{200d}ok", &[]),
            (
                "/rationale",
                "tags\u{e0041}\u{e0042}\u{e0043}",
                &[(Rule::Invisible, "/rationale")],
            ),
            (
                "/evidence/resolution",
                "nul\0",
                &[(Rule::Control, "/evidence/resolution")],
            ),
            (
                "/claim",
                "\u{1b}\u{202e}\u{200b}",
                &[
                    (Rule::Bidi, "/claim"),
                    (Rule::Control, "/claim"),
                    (Rule::Invisible, "/claim"),
                ],
            ),
        ];
        for (pointer, text, want) in cases {
            let mut v = lesson();
            *v.pointer_mut(pointer).unwrap() = json!(text);
            let got = check_lesson_text(&v);
            assert_eq!(rules(&got), want.to_vec(), "{pointer} {text:?}");
        }
        let mut v = lesson();
        *v.pointer_mut("/claim").unwrap() = json!("a\u{1b}b");
        assert_eq!(
            check_lesson_text(&v)[0].to_string(),
            "/claim: contains a control character or line break; it must be one line (content rule control)"
        );
        *v.pointer_mut("/claim").unwrap() = json!("a\u{200b}b");
        assert_eq!(
            check_lesson_text(&v)[0].what,
            "contains the invisible character U+200B; a one-line field shows everything it holds"
        );
    }

    #[test]
    fn keys_are_one_line_and_name_their_package() {
        let mut v = lesson();
        v["applies_to"]["scope"]["versions"] = json!({"vite\nx": "<6"});
        v["extra\u{202e}"] = json!(1);
        let got = check_lesson_text(&v);
        assert_eq!(
            got.iter().map(|v| v.to_string()).collect::<Vec<_>>(),
            vec![
                "/applies_to/scope/versions/vite\\nx: the versions key \"vite\\nx\" contains U+000A; a key is a package name (content rule control)",
                "/extra\\u{202e}: the key \"extra\\u{202e}\" contains U+202E; a key is one line of text (content rule bidi)",
            ]
        );
    }

    #[test]
    fn fields_have_a_size() {
        let mut v = lesson();
        v["claim"] = json!("x".repeat(MAX_LINE_CHARS));
        v["rationale"] = json!("é".repeat(MAX_TEXT_CHARS));
        assert_eq!(check_lesson_text(&v), vec![]);
        v["claim"] = json!("x".repeat(MAX_LINE_CHARS + 1));
        v["rationale"] = json!("é".repeat(MAX_TEXT_CHARS + 1));
        assert_eq!(
            check_lesson_text(&v).iter().map(|v| v.to_string()).collect::<Vec<_>>(),
            vec![
                "/claim: is over the limit of 1000 characters for a one-line field (content rule field-size)",
                "/rationale: is over the limit of 20000 characters for a multi-line field (content rule field-size)",
            ]
        );
    }

    #[test]
    fn a_record_is_checked_by_its_kind() {
        let mut bad = lesson();
        bad["claim"] = json!("a\u{202e}b");
        let bytes = serde_json::to_vec(&bad).unwrap();
        let p = "lessons/K/5/A/01KZ45MKAM734ZS7JK24D2DK5A.json";
        let got = check_record(p, &bytes);
        assert_eq!(
            rules(&got),
            vec![(Rule::Bidi, format!("{p} /claim").as_str())]
        );
        // A proposal: its candidate only (the artifact is the input as it came).
        let proposal = json!({"candidate": bad, "artifact": {"detail": "\u{1b}[31m"}});
        let q = "proposals/K/5/A/01KZ45MKAM734ZS7JK24D2DK5A.json";
        let got = check_record(q, &serde_json::to_vec(&proposal).unwrap());
        assert_eq!(
            rules(&got),
            vec![(Rule::Bidi, format!("{q} /candidate/claim").as_str())]
        );
        // The candidate held before confirming is lesson text too:
        // `unconfirm` restores it.
        let held = json!({"candidate": lesson(), "candidate_before_confirm": bad});
        let got = check_record(q, &serde_json::to_vec(&held).unwrap());
        assert_eq!(
            rules(&got),
            vec![(
                Rule::Bidi,
                format!("{q} /candidate_before_confirm/claim").as_str()
            )]
        );
        // Other records, and bytes that are not JSON: nothing here.
        assert_eq!(check_record("declined/5/A/x.json", &bytes), vec![]);
        assert_eq!(check_record(p, b"not json"), vec![]);
    }

    #[test]
    fn a_violation_is_one_line_that_hides_nothing() {
        // A hostile key lands in the JSON pointer and in the message: both
        // are shown escaped, so a refusal cannot forge a line of output or
        // hide text in it.
        let lesson = json!({
            "claim": "ok",
            "k\nfake: refused\u{202e}": "x",
            "tags": {"a\u{3164}\u{200b}b": "y"},
        });
        let got = check_lesson_text(&lesson);
        assert_eq!(got.len(), 2, "{got:?}");
        for v in &got {
            let line = v.to_string();
            assert!(line.chars().all(|c| class(c) == Class::Text), "{line:?}");
        }
        assert_eq!(got[0].at, "/k\\nfake: refused\\u{202e}");
        assert_eq!(got[1].at, "/tags/a\\u{3164}\\u{200b}b");
    }
}
