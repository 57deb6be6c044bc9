//! `bun.lock`, the text lockfile of bun 1.1.39 and later (JSON with
//! trailing commas, `lockfileVersion` 0 and 1), read with `jsonc-parser`.
//! The binary `bun.lockb` is not read.
//!
//! Each `packages` entry is keyed by its install path, a `/`-joined list of
//! package names (`vite`, `vitest/vite`, `@acme/web/vite`), and its first
//! element is the package spec `name@version` (the real package, so an
//! alias reports its target). A path that starts with a workspace's
//! package name (from `workspaces`) and goes on is attributed to that
//! workspace's directory; every other path to the lockfile's own (`.`).
//! Workspace, link and file specs are the project's own code and are left
//! out; git and GitHub specs keep their text as the version (recall reports
//! them as unknown).
//!
//! This file owns that reading only.

use std::collections::{BTreeMap, HashMap};

use serde::Deserialize;

use super::{
    clean_workspace, depth, detail, is_local_npm_ref, split_npm_spec, text, Package, StackError,
};

#[derive(Deserialize)]
struct Lock {
    #[serde(rename = "lockfileVersion")]
    lockfile_version: Option<u64>,
    #[serde(default)]
    workspaces: BTreeMap<String, Workspace>,
    packages: Option<BTreeMap<String, Vec<serde_json::Value>>>,
}

#[derive(Deserialize)]
struct Workspace {
    name: Option<String>,
}

/// Parses a `bun.lock`.
pub fn parse(bytes: &[u8]) -> Result<Vec<Package>, StackError> {
    let text = text(bytes)?;
    depth::json(text, true)?;
    // bun writes JSON plus trailing commas; accept exactly that (and
    // comments), none of JSON5's other liberties.
    let options = jsonc_parser::ParseOptions {
        allow_comments: true,
        allow_trailing_commas: true,
        allow_loose_object_property_names: false,
        allow_missing_commas: false,
        allow_single_quoted_strings: false,
        allow_hexadecimal_numbers: false,
        allow_unary_plus_numbers: false,
        allow_bare_decimal_point_numbers: false,
        allow_non_finite_numbers: false,
        allow_extended_string_escapes: false,
    };
    let lock: Lock =
        jsonc_parser::parse_to_serde_value(text, &options).map_err(|e| StackError::Syntax {
            format: "bun.lock (JSONC)",
            detail: detail(e),
        })?;
    match lock.lockfile_version {
        Some(0 | 1) => {}
        Some(n) => {
            return Err(StackError::Unsupported(format!(
                "lockfileVersion {n} (known: 0, 1)"
            )))
        }
        None => {
            return Err(StackError::Shape(
                "no `lockfileVersion`: not a bun.lock".to_owned(),
            ))
        }
    }
    let packages = lock
        .packages
        .ok_or_else(|| StackError::Shape("no `packages` object".to_owned()))?;
    let dirs: HashMap<String, String> = lock
        .workspaces
        .into_iter()
        .filter(|(dir, _)| !dir.is_empty())
        .filter_map(|(dir, ws)| ws.name.map(|name| (name, clean_workspace(&dir))))
        .collect();
    let mut out = Vec::new();
    for (path, value) in packages {
        let Some(spec) = value.first().and_then(serde_json::Value::as_str) else {
            return Err(StackError::Shape(format!(
                "package {:?} does not start with a `name@version` string",
                detail(&path)
            )));
        };
        let Some((name, version)) = split_npm_spec(spec) else {
            return Err(StackError::Shape(format!(
                "package {:?} has spec {:?}, not `name@version`",
                detail(&path),
                detail(spec)
            )));
        };
        if is_local_npm_ref(version) {
            continue;
        }
        let segments = names(&path);
        let workspace = match segments.as_slice() {
            [first, _, ..] => dirs.get(*first).map_or(".", String::as_str),
            _ => ".",
        };
        out.push(Package::new(name, version, workspace));
    }
    out.sort();
    out.dedup();
    Ok(out)
}

/// Splits an install path into package names: `@acme/web/vite` →
/// `["@acme/web", "vite"]`.
fn names(path: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut rest = path;
    while !rest.is_empty() {
        let take = if rest.starts_with('@') {
            rest.match_indices('/')
                .nth(1)
                .map_or(rest.len(), |(i, _)| i)
        } else {
            rest.find('/').unwrap_or(rest.len())
        };
        out.push(&rest[..take]);
        rest = rest.get(take + 1..).unwrap_or("");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::testutil::{golden, survives_garbage};
    use super::*;

    #[test]
    fn text_lockfile_with_workspaces() {
        golden(
            parse,
            "bun.lock",
            &[
                "js-tokens 4.0.0 .",
                "loose-envify 1.4.0 .",
                "pretty-log github:acme/pretty-log#4b2a1c0 .",
                "react 18.3.1 .",
                "string-width 4.2.3 apps/web",
                "typescript 5.4.5 .",
                "vite 5.4.21 .",
                "vite 6.3.5 .",
                "vite 8.0.16 apps/web",
                "vitest 4.1.9 .",
            ],
        );
    }

    #[test]
    fn install_paths_split_into_names() {
        assert_eq!(names("@acme/web/vite"), ["@acme/web", "vite"]);
        assert_eq!(names("vitest/@types/node"), ["vitest", "@types/node"]);
        assert_eq!(names("vite"), ["vite"]);
        assert_eq!(names("@scope"), ["@scope"]);
    }

    #[test]
    fn wrong_shapes_are_clear_errors() {
        let e = |s: &str| parse(s.as_bytes()).unwrap_err().to_string();
        assert_eq!(
            e(r#"{"lockfileVersion": 7, "packages": {}}"#),
            "unsupported lockfileVersion 7 (known: 0, 1)"
        );
        assert_eq!(
            e(r#"{"lockfileVersion": 1}"#),
            "unexpected content: no `packages` object"
        );
        assert_eq!(
            e(r#"{"lockfileVersion": 1, "packages": {"a": [1]}}"#),
            "unexpected content: package \"a\" does not start with a `name@version` string"
        );
        assert_eq!(
            e(r#"{"lockfileVersion": 1, "packages": {"a": ["nope"]}}"#),
            "unexpected content: package \"a\" has spec \"nope\", not `name@version`"
        );
        assert!(e(r#"{"lockfileVersion": 1, "packages": {"a": "x"}}"#)
            .starts_with("invalid bun.lock (JSONC): "));
        assert!(e("{\"lockfileVersion\": 1,").starts_with("invalid bun.lock (JSONC): "));
        let deep = format!(
            "{{\"lockfileVersion\": 1, \"packages\": {{\"a\": {}{}}}}}",
            "[".repeat(5_000),
            "]".repeat(5_000)
        );
        assert!(
            e(&deep).starts_with("nested more than 64 levels deep"),
            "{}",
            e(&deep)
        );
    }

    #[test]
    fn garbage_never_panics() {
        survives_garbage(parse, "bun.lock");
    }
}
