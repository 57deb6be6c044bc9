//! `Cargo.lock`, format versions 3 (`version = 3`) and 4 (`version = 4`),
//! and the older unversioned form, read with the `toml` crate.
//!
//! Every `[[package]]` with a `source` (a registry, a sparse index or a git
//! repository) is installed; one without a `source` is a workspace member
//! or a path dependency, the project's own code, and is left out. All are
//! attributed to the lockfile's directory: `Cargo.lock` does not say which
//! member uses what.
//!
//! This file owns that reading only.

use serde::Deserialize;

use super::{depth, text, toml_error, Package, StackError};

#[derive(Deserialize)]
struct Lock {
    version: Option<u64>,
    package: Option<Vec<Entry>>,
}

#[derive(Deserialize)]
struct Entry {
    name: String,
    version: String,
    source: Option<String>,
}

/// Parses a `Cargo.lock`.
pub fn parse(bytes: &[u8]) -> Result<Vec<Package>, StackError> {
    let text = text(bytes)?;
    depth::toml(text)?;
    let lock: Lock = toml::from_str(text).map_err(|e| toml_error(text, &e))?;
    if let Some(v) = lock.version {
        if !(1..=4).contains(&v) {
            return Err(StackError::Unsupported(format!(
                "Cargo.lock version {v} (known: 3, 4 and the unversioned form)"
            )));
        }
    }
    let packages = lock.package.ok_or_else(|| {
        StackError::Shape("no `[[package]]` entries: not a Cargo.lock".to_owned())
    })?;
    Ok(packages
        .into_iter()
        .filter(|p| p.source.is_some())
        .map(|p| Package::new(&p.name, &p.version, "."))
        .collect())
}

#[cfg(test)]
mod tests {
    use super::super::testutil::{golden, survives_garbage};
    use super::*;

    #[test]
    fn lockfile_v3_with_git_and_members() {
        golden(
            parse,
            "Cargo.v3.lock",
            &[
                "aho-corasick 1.1.3 .",
                "memchr 2.7.2 .",
                "regex 1.10.4 .",
                "regex-syntax 0.6.29 .",
                "regex-syntax 0.8.3 .",
                "serde 1.0.200 .",
                "tokio 1.37.0 .",
            ],
        );
    }

    #[test]
    fn lockfile_v4_with_sparse_registry() {
        golden(
            parse,
            "Cargo.v4.lock",
            &[
                "anyhow 1.0.86 .",
                "cfg-if 1.0.0 .",
                "getrandom 0.3.0-rc.0 .",
                "tokio 1.40.0 .",
            ],
        );
    }

    #[test]
    fn wrong_shapes_are_clear_errors() {
        let e = |s: &str| parse(s.as_bytes()).unwrap_err().to_string();
        assert_eq!(
            e("version = 9\n[[package]]\nname = \"a\"\nversion = \"1.0.0\"\n"),
            "unsupported Cargo.lock version 9 (known: 3, 4 and the unversioned form)"
        );
        assert_eq!(
            e("version = 4\n"),
            "unexpected content: no `[[package]]` entries: not a Cargo.lock"
        );
        assert!(e("version = 4\n[[package]]\nname = 5\nversion = \"1\"\n")
            .starts_with("invalid TOML: "));
        assert!(e("version = 4\n[[package]]\nname = \"a\"\n").contains("missing field `version`"));
        assert!(e("[[package]\n").starts_with("invalid TOML: "));
    }

    #[test]
    fn garbage_never_panics() {
        survives_garbage(parse, "Cargo.v4.lock");
    }
}
