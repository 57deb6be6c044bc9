//! What every fuzz target of git-lore checks, so that a target is one line
//! naming the function it feeds (see `fuzz/README.md`).
//!
//! A parser under fuzzing must return, never panic, never hang (libFuzzer's
//! `-timeout`), and when it refuses, say why in one printable line: its
//! error message is shown to a person and must carry no control character
//! that input could have smuggled into it.

use git_lore::recall::stack::{members::Manifest, Format, StackError};

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

/// A fuzz target in one line: `git_lore_fuzz::target!(|data| f(data));`
/// where `data: &[u8]`.
#[macro_export]
macro_rules! target {
    (|$data:ident| $body:expr) => {
        libfuzzer_sys::fuzz_target!(|$data: &[u8]| $body);
    };
}
