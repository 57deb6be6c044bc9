//! `poetry.lock`, lock-version 1.x (Poetry 1.0–1.4, with
//! `[metadata.files]`) and 2.x (Poetry 1.5 and later, with `files` per
//! package), read with the `toml` crate.
//!
//! A package whose `[package.source]` has `type = "directory"` is a local
//! path dependency, the project's own code, and is left out; `git`, `url`,
//! `file` and `legacy` (a private index) sources are installed. All are
//! attributed to the lockfile's directory.
//!
//! This file owns that reading only.

use serde::Deserialize;

use super::{depth, detail, text, toml_error, Package, StackError};

#[derive(Deserialize)]
struct Lock {
    package: Option<Vec<Entry>>,
    metadata: Option<Metadata>,
}

#[derive(Deserialize)]
struct Metadata {
    #[serde(rename = "lock-version")]
    lock_version: Option<String>,
}

#[derive(Deserialize)]
struct Entry {
    name: String,
    version: String,
    source: Option<Source>,
}

#[derive(Deserialize)]
struct Source {
    #[serde(rename = "type")]
    kind: Option<String>,
}

/// Parses a `poetry.lock`.
pub fn parse(bytes: &[u8]) -> Result<Vec<Package>, StackError> {
    let text = text(bytes)?;
    depth::toml(text)?;
    let lock: Lock = toml::from_str(text).map_err(|e| toml_error(text, &e))?;
    let version = lock.metadata.and_then(|m| m.lock_version).ok_or_else(|| {
        StackError::Shape("no `[metadata]` `lock-version`: not a poetry.lock".to_owned())
    })?;
    if !(version.starts_with("1.") || version.starts_with("2.")) {
        return Err(StackError::Unsupported(format!(
            "poetry.lock lock-version {} (known: 1.x, 2.x)",
            detail(&version)
        )));
    }
    Ok(lock
        .package
        .unwrap_or_default()
        .into_iter()
        .filter(|p| {
            p.source
                .as_ref()
                .and_then(|s| s.kind.as_deref())
                .is_none_or(|k| k != "directory")
        })
        .map(|p| Package::new(&p.name, &p.version, "."))
        .collect())
}

#[cfg(test)]
mod tests {
    use super::super::testutil::{golden, survives_garbage};
    use super::*;

    #[test]
    fn lock_version_1_1() {
        golden(
            parse,
            "poetry.v1.1.lock",
            &[
                "Django 4.2.11 .",
                "asgiref 3.8.1 .",
                "certifi 2024.2.2 .",
                "pytest 8.1.1 .",
                "sqlparse 0.5.0 .",
            ],
        );
    }

    #[test]
    fn lock_version_2_0() {
        golden(
            parse,
            "poetry.v2.lock",
            &[
                "charset-normalizer 3.3.2 .",
                "idna 3.7 .",
                "internal-sdk 1.4.0 .",
                "requests 2.31.0 .",
                "ruamel.yaml 0.18.6 .",
                "urllib3 2.2.1 .",
            ],
        );
    }

    #[test]
    fn wrong_shapes_are_clear_errors() {
        let e = |s: &str| parse(s.as_bytes()).unwrap_err().to_string();
        assert_eq!(
            e("[metadata]\nlock-version = \"3.0\"\n"),
            "unsupported poetry.lock lock-version 3.0 (known: 1.x, 2.x)"
        );
        assert_eq!(
            e("[[package]]\nname = \"a\"\nversion = \"1\"\n"),
            "unexpected content: no `[metadata]` `lock-version`: not a poetry.lock"
        );
        assert!(e("[metadata]\nlock-version = 2.0\n").starts_with("invalid TOML: "));
    }

    #[test]
    fn garbage_never_panics() {
        survives_garbage(parse, "poetry.v2.lock");
    }
}
