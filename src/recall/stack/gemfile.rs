//! `Gemfile.lock` (and Bundler's alternative name `gems.locked`).
//!
//! The `specs:` lists of the `GEM`, `GIT` and `PLUGIN SOURCE` sections are
//! installed gems, one per four-space-indented line `name (version)`;
//! deeper lines are their dependencies and are skipped. A platform-specific
//! gem is written `name (version-platform)`: the version is the part before
//! the first `-`, as Bundler reads it, so `nokogiri (1.16.4-x86_64-linux)`
//! is nokogiri 1.16.4. `PATH` specs are the project's own gems (local
//! paths) and are left out. All are attributed to the file's directory.
//!
//! This file owns that reading only.

use super::{text, Package, StackError};

/// Parses a `Gemfile.lock`.
pub fn parse(bytes: &[u8]) -> Result<Vec<Package>, StackError> {
    let text = text(bytes)?;
    let mut out = Vec::new();
    let mut section = "";
    let mut in_specs = false;
    let mut saw_source = false;
    for (i, raw) in text.lines().enumerate() {
        let line = raw.trim_end();
        if line.is_empty() {
            continue;
        }
        if !line.starts_with(' ') {
            section = line;
            in_specs = false;
            saw_source |= matches!(line, "GEM" | "GIT" | "PATH" | "PLUGIN SOURCE");
            continue;
        }
        if !matches!(section, "GEM" | "GIT" | "PATH" | "PLUGIN SOURCE") {
            continue;
        }
        if line == "  specs:" {
            in_specs = true;
            continue;
        }
        if !in_specs {
            continue;
        }
        let indent = line.len() - line.trim_start_matches(' ').len();
        if indent >= 6 {
            continue;
        }
        let bad = || StackError::Line {
            line: i + 1,
            why: "expected `    name (version)` in a specs list".to_owned(),
        };
        if indent != 4 {
            return Err(bad());
        }
        let (name, version) = line
            .trim_start()
            .strip_suffix(')')
            .and_then(|s| s.split_once(" ("))
            .ok_or_else(bad)?;
        let version = version.split('-').next().unwrap_or(version);
        if name.is_empty() || name.contains(' ') || version.is_empty() {
            return Err(bad());
        }
        if section != "PATH" {
            out.push(Package::new(name, version, "."));
        }
    }
    if !saw_source {
        return Err(StackError::Shape(
            "no GEM, GIT or PATH section: not a Gemfile.lock".to_owned(),
        ));
    }
    out.sort();
    out.dedup();
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::super::testutil::{golden, survives_garbage};
    use super::*;

    #[test]
    fn bundler_lockfile_with_git_path_and_platforms() {
        golden(
            parse,
            "Gemfile.lock",
            &[
                "actionpack 7.1.3.2 .",
                "actionview 7.1.3.2 .",
                "activesupport 7.1.3.2 .",
                "concurrent-ruby 1.2.3 .",
                "fast_jsonapi 1.7.0 .",
                "i18n 1.14.4 .",
                "nokogiri 1.16.4 .",
                "racc 1.7.3 .",
                "rack 3.0.10 .",
                "rails 7.1.3.2 .",
                "turbo-rails 2.0.0.pre.beta.3 .",
            ],
        );
    }

    #[test]
    fn broken_files_are_clear_errors() {
        let e = |s: &str| parse(s.as_bytes()).unwrap_err().to_string();
        assert_eq!(
            e("GEM\n  specs:\n    rack 3.0.10\n"),
            "line 3: expected `    name (version)` in a specs list"
        );
        assert_eq!(
            e("GEM\n  specs:\n   rack (3.0.10)\n"),
            "line 3: expected `    name (version)` in a specs list"
        );
        assert_eq!(
            e("hello\nworld\n"),
            "unexpected content: no GEM, GIT or PATH section: not a Gemfile.lock"
        );
    }

    #[test]
    fn garbage_never_panics() {
        survives_garbage(parse, "Gemfile.lock");
    }
}
