//! `uv.lock` (lockfile `version = 1`, any `revision`), read with the
//! `toml` crate.
//!
//! A `[[package]]` whose `source` is `editable`, `virtual` or `directory`
//! is the project or a workspace member, its own code, and is left out;
//! `registry`, `git`, `url` and `path` (a built archive) sources are
//! installed. A package without a `version` (a dynamic-version member) is
//! left out. All are attributed to the lockfile's directory.
//!
//! This file owns that reading only.

use serde::de::IgnoredAny;
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
    version: Option<String>,
    source: Option<Source>,
}

/// The source kinds that mark the project's own code; the others
/// (`registry`, `git`, `url`, `path` to an archive) are ignored without
/// being copied.
#[derive(Deserialize)]
struct Source {
    editable: Option<IgnoredAny>,
    #[serde(rename = "virtual")]
    virtual_: Option<IgnoredAny>,
    directory: Option<IgnoredAny>,
}

/// Parses a `uv.lock`.
pub fn parse(bytes: &[u8]) -> Result<Vec<Package>, StackError> {
    let text = text(bytes)?;
    depth::toml(text)?;
    let lock: Lock = toml::from_str(text).map_err(|e| toml_error(text, &e))?;
    match lock.version {
        Some(1) => {}
        Some(v) => {
            return Err(StackError::Unsupported(format!(
                "uv.lock version {v} (known: 1)"
            )))
        }
        None => {
            return Err(StackError::Shape(
                "no top-level `version`: not a uv.lock".to_owned(),
            ))
        }
    }
    let mut out = Vec::new();
    for p in lock.package.unwrap_or_default() {
        let local = p
            .source
            .as_ref()
            .is_some_and(|s| s.editable.is_some() || s.virtual_.is_some() || s.directory.is_some());
        if let (false, Some(version)) = (local, &p.version) {
            out.push(Package::new(&p.name, version, "."));
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::super::testutil::{golden, survives_garbage};
    use super::*;

    #[test]
    fn workspace_lockfile() {
        golden(
            parse,
            "uv.lock",
            &[
                "annotated-types 0.7.0 .",
                "fastapi 0.111.0 .",
                "pydantic 2.7.1 .",
                "pydantic-core 2.18.2 .",
                "starlette 0.37.2 .",
                "torch 2.3.0+cu121 .",
                "typing-extensions 4.11.0 .",
            ],
        );
    }

    #[test]
    fn wrong_shapes_are_clear_errors() {
        let e = |s: &str| parse(s.as_bytes()).unwrap_err().to_string();
        assert_eq!(
            e("version = 2\n"),
            "unsupported uv.lock version 2 (known: 1)"
        );
        assert_eq!(
            e("[[package]]\nname = \"a\"\n"),
            "unexpected content: no top-level `version`: not a uv.lock"
        );
        assert!(
            e("version = 1\n[[package]]\nname = \"a\"\nsource = 3\n").starts_with("invalid TOML: ")
        );
    }

    #[test]
    fn garbage_never_panics() {
        survives_garbage(parse, "uv.lock");
    }
}
