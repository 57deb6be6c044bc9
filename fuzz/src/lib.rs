//! What every fuzz target of git-lore checks, so that a target is one line
//! naming the function it feeds (see `fuzz/README.md`).
//!
//! A parser under fuzzing must return, never panic, never hang (libFuzzer's
//! `-timeout`), and when it refuses, say why in one printable line: its
//! error message is shown to a person and must carry no control character
//! that input could have smuggled into it. The content policy and the
//! trailer parser are held to more: what each promises about its output.

use git_lore::content::record::{self, Violation};
use git_lore::content::text::{self, Class};
use git_lore::event::Event;
use git_lore::recall::stack::{members::Manifest, Format, StackError};
use git_lore::trailers::{self, Message, Trailer};

/// Checks one refusal's message.
fn check_error(e: &StackError) {
    let msg = e.to_string();
    assert!(!msg.is_empty(), "an empty error message");
    assert!(
        !msg.chars().any(char::is_control),
        "a control character in the error message {msg:?}"
    );
}

/// Feeds one lockfile parser.
pub fn lockfile(format: Format, data: &[u8]) {
    match format.parse(data) {
        Ok(parsed) => {
            for p in &parsed.packages {
                assert!(!p.workspace.is_empty(), "a package without a workspace");
                assert!(
                    !p.workspace.starts_with('/') && !p.workspace.split('/').any(|s| s == ".."),
                    "a workspace that leaves the lockfile's directory: {:?}",
                    p.workspace
                );
            }
        }
        Err(e) => check_error(&e),
    }
}

/// Feeds the workspace-member manifests: the first byte picks which.
pub fn manifest(data: &[u8]) {
    let Some((&which, rest)) = data.split_first() else {
        return;
    };
    let m = match which % 5 {
        0 => Manifest::PackageJson,
        1 => Manifest::PnpmWorkspace,
        2 => Manifest::CargoToml,
        3 => Manifest::Pyproject,
        _ => Manifest::GoWork,
    };
    if let Err(e) = m.parse(rest) {
        check_error(&e);
    }
}

/// Feeds the content policy (`git_lore::content`): the record rules over
/// `data` as a pool entry and as a proposal, and the text table's outputs
/// over `data` as text.
pub fn content(data: &[u8]) {
    for path in [
        "lessons/5/A/01KZ45MKAM734ZS7JK24D2DK5A.json",
        "proposals/5/A/01KZ45MKAM734ZS7JK24D2DK5A.json",
    ] {
        for v in record::check_record(path, data) {
            check_violation(&v);
        }
    }
    let Ok(s) = std::str::from_utf8(data) else {
        return;
    };
    // A terminal and one line of prose get text only.
    let shown = text::terminal(s);
    assert!(
        shown.chars().all(|c| text::class(c) == Class::Text),
        "terminal left {shown:?}"
    );
    let spaced = text::spaced(s);
    assert!(spaced.chars().all(text::is_shown), "spaced left {spaced:?}");
    // JSON gets text, escaped, and parses back to the same string.
    let json = text::json_line(s).expect("a string serialises");
    assert!(
        json.chars().all(|c| text::class(c) == Class::Text),
        "json left {json:?}"
    );
    let back: String = serde_json::from_str(&json).expect("escaped JSON parses");
    assert_eq!(back, s, "escaped JSON read back differently");
    // The record rules agree with the table: a one-line field the policy
    // passes is text only and within its cap; a bidi control never passes.
    let lesson = serde_json::json!({ "claim": s, "rationale": s });
    let refused = record::check_lesson_text(&lesson);
    for v in &refused {
        check_violation(v);
    }
    let claim_refused = refused.iter().any(|v| v.at == "/claim");
    let claim_ok = s.chars().all(|c| text::class(c) == Class::Text)
        && s.chars().count() <= record::MAX_LINE_CHARS;
    assert_eq!(
        !claim_refused, claim_ok,
        "the claim {s:?}: refused {refused:?}"
    );
    if s.chars().any(text::is_bidi) {
        assert!(
            refused.iter().any(|v| v.at == "/rationale"),
            "a bidi control passed in {s:?}"
        );
    }
}

/// A violation is shown to a person: one line of text that hides nothing.
fn check_violation(v: &Violation) {
    let line = v.to_string();
    assert!(
        line.chars().all(|c| text::class(c) == Class::Text),
        "a violation that is not one line of text: {line:?}"
    );
}

/// Feeds the trailer parser (`git_lore::trailers::parse`) and the reading
/// of an event from its lines (`Event::from_trailers`).
pub fn trailers(data: &[u8]) {
    let Ok(message) = std::str::from_utf8(data) else {
        return;
    };
    let (subject, lines) = trailers::parse(message);
    assert!(
        !subject.contains('\n'),
        "a subject of several lines: {subject:?}"
    );
    for t in &lines {
        assert!(
            !t.key.is_empty() && !t.key.contains([':', '\n', ' ']),
            "a bad key {t:?}"
        );
        assert!(!t.value.contains('\n'), "a value of several lines {t:?}");
    }
    // Lines that would be written are read back as written.
    let clean = lines.iter().all(|t| Trailer::new(&t.key, &t.value).is_ok());
    if clean && !lines.is_empty() {
        if let Ok(m) = Message::new(&subject, None, lines.clone()) {
            let (s2, l2) = trailers::parse(&m.render());
            assert_eq!(
                (s2, l2),
                (subject.clone(), lines.clone()),
                "a message did not read back"
            );
        }
    }
    match Event::from_trailers(&lines) {
        Ok(event) => {
            // An event read from clean lines writes them back, and reads
            // back as itself: a commit cannot say two things.
            if let Ok(again) = event.to_trailers() {
                assert_eq!(
                    Event::from_trailers(&again).as_ref(),
                    Ok(&event),
                    "an event that did not read back"
                );
            } else {
                assert!(
                    !clean,
                    "clean lines gave {event:?}, which does not write back"
                );
            }
        }
        Err(e) => {
            let msg = e.to_string();
            assert!(
                !msg.is_empty() && !msg.chars().any(char::is_control),
                "the error {msg:?}"
            );
        }
    }
}

/// A fuzz target in one line: `git_lore_fuzz::target!(|data| f(data));`
/// where `data: &[u8]`.
#[macro_export]
macro_rules! target {
    (|$data:ident| $body:expr) => {
        libfuzzer_sys::fuzz_target!(|$data: &[u8]| $body);
    };
}
