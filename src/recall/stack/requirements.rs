//! Pinned `requirements*.txt`: every requirement pinned to one exact
//! version with `==` or `===` (`Django==4.2.11`, `requests[socks]==2.31.0
//! ; python_version >= "3.8"`, `torch===2.3.0+cu121`), with `\`
//! continuation lines, `#` comments and per-requirement options
//! (`--hash=…`).
//!
//! Everything else that is a requirement (a range, a wildcard `==2.*`, a
//! bare name, an editable `-e` or a URL requirement) says nothing exact
//! about what is installed: it is left out and counted, and
//! [`parse_counted`] says which. Options (`-r`, `-c`, `--index-url`) are
//! not requirements and are skipped; included files are not followed (the
//! scan finds `requirements*.txt` files itself). All packages are
//! attributed to the file's directory.
//!
//! This file owns that reading only.

use super::{text, Package, Parsed, StackError};

/// How many skipped requirements a note names before `…`.
const NAMED_IN_NOTE: usize = 5;

/// Parses a requirements file; only exact pins count.
pub fn parse(bytes: &[u8]) -> Result<Vec<Package>, StackError> {
    parse_counted(bytes).map(|p| p.packages)
}

/// Parses a requirements file and notes the requirements it left out.
pub fn parse_counted(bytes: &[u8]) -> Result<Parsed, StackError> {
    let text = text(bytes)?;
    let mut packages = Vec::new();
    let mut skipped: Vec<String> = Vec::new();
    for line in logical_lines(text) {
        let line = strip_comment(&line).trim();
        if line.is_empty() {
            continue;
        }
        if line.starts_with('-') {
            if line.starts_with("-e") || line.starts_with("--editable") {
                skipped.push(line.to_owned());
            }
            continue;
        }
        match pin(line) {
            Some((name, version)) => packages.push(Package::new(name, version, ".")),
            None => skipped.push(line.to_owned()),
        }
    }
    let note = (!skipped.is_empty()).then(|| {
        let mut named: Vec<String> = skipped
            .iter()
            .take(NAMED_IN_NOTE)
            .map(|s| super::detail(s.chars().take(40).collect::<String>()))
            .collect();
        if skipped.len() > NAMED_IN_NOTE {
            named.push("…".to_owned());
        }
        format!(
            "{} requirement{} without an exact == pin {} not read: {}",
            skipped.len(),
            if skipped.len() == 1 { "" } else { "s" },
            if skipped.len() == 1 { "was" } else { "were" },
            named.join(", ")
        )
    });
    Ok(Parsed { packages, note })
}

/// Joins `\`-continued lines.
fn logical_lines(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut current = String::new();
    for raw in text.lines() {
        match raw.strip_suffix('\\') {
            Some(head) => {
                current.push_str(head);
                current.push(' ');
            }
            None => {
                current.push_str(raw);
                out.push(std::mem::take(&mut current));
            }
        }
    }
    if !current.is_empty() {
        out.push(current);
    }
    out
}

/// Cuts a `#` comment: a `#` at the start or after whitespace (a `#` inside
/// a URL, `…#egg=x`, is not one).
fn strip_comment(line: &str) -> &str {
    let mut prev_space = true;
    for (i, c) in line.char_indices() {
        if c == '#' && prev_space {
            return &line[..i];
        }
        prev_space = c.is_whitespace();
    }
    line
}

/// `name==version` (or `===`), with optional extras, markers and options.
fn pin(line: &str) -> Option<(&str, &str)> {
    let name_len = line
        .find(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-')))
        .unwrap_or(line.len());
    let name = &line[..name_len];
    if !name.starts_with(|c: char| c.is_ascii_alphanumeric()) {
        return None;
    }
    let mut rest = line[name_len..].trim_start();
    if let Some(extras) = rest.strip_prefix('[') {
        rest = extras.split_once(']')?.1.trim_start();
    }
    let spec = rest.split(';').next().unwrap_or("");
    let spec = spec.split(" --").next().unwrap_or("").trim();
    let version = spec
        .strip_prefix("===")
        .or_else(|| spec.strip_prefix("=="))?
        .trim();
    let exact =
        !version.is_empty() && !version.contains(['*', ',', ' ', '\t', '<', '>', '=', '!', '~']);
    exact.then_some((name, version))
}

#[cfg(test)]
mod tests {
    use super::super::testutil::{fixture, golden, survives_garbage};
    use super::*;

    #[test]
    fn pins_only() {
        golden(
            parse,
            "requirements.txt",
            &[
                "Django 4.2.11 .",
                "certifi 2024.2.2 .",
                "httpx 0.27.0 .",
                "requests 2.31.0 .",
                "torch 2.3.0+cu121 .",
                "zope.interface 6.2 .",
            ],
        );
    }

    #[test]
    fn unpinned_requirements_are_counted_and_named() {
        let parsed = parse_counted(&fixture("requirements.txt")).unwrap();
        assert_eq!(
            parsed.note.as_deref(),
            Some(
                "5 requirements without an exact == pin were not read: flask>=2.3,<3, numpy, urllib3==2.*, -e ./libs/acme-utils, git+https://github.com/acme/pretty@v1.0#"
            )
        );
        let one = parse_counted(b"numpy\n").unwrap();
        assert_eq!(
            one.note.as_deref(),
            Some("1 requirement without an exact == pin was not read: numpy")
        );
        assert_eq!(parse_counted(b"a==1\n").unwrap().note, None);
    }

    #[test]
    fn pin_grammar() {
        assert_eq!(pin("a==1.0"), Some(("a", "1.0")));
        assert_eq!(pin("a [x] == 1.0 ; os_name == 'nt'"), Some(("a", "1.0")));
        assert_eq!(pin("a==1.0 --hash=sha256:00"), Some(("a", "1.0")));
        assert_eq!(pin("a==1.*"), None);
        assert_eq!(pin("a==1.0,!=1.0.1"), None);
        assert_eq!(pin("a>=1"), None);
        assert_eq!(pin("a @ https://x/a.whl"), None);
        assert_eq!(pin("a[x"), None);
        assert_eq!(pin("==1"), None);
        assert_eq!(strip_comment("x # c"), "x ");
        assert_eq!(strip_comment("u#egg=x"), "u#egg=x");
    }

    #[test]
    fn garbage_never_panics() {
        // Requirements text has no structure to violate: junk that is text
        // is counted as unread requirements, not refused.
        let parsed = parse_counted(b"%%%\n!!!\n").unwrap();
        assert!(parsed.packages.is_empty());
        assert!(parsed.note.unwrap().starts_with("2 requirements"));
        survives_garbage(parse, "requirements.txt");
    }
}
