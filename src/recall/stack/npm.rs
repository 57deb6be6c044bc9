//! `package-lock.json` and `npm-shrinkwrap.json` (the same format), in
//! `lockfileVersion` 1, 2 and 3.
//!
//! - Versions 2 and 3 list every installed package under `packages`, keyed
//!   by its path: `node_modules/vite`, `node_modules/a/node_modules/b`,
//!   `packages/ui/node_modules/vite`. The workspace is the path before the
//!   first `node_modules/` (`.` when there is none before it). Keys without
//!   `node_modules/` (the root `""`, workspace members) and `link` entries
//!   are the project itself and are left out. An alias
//!   (`"string-width-cjs": "npm:string-width@^4"`) reports its `name`, the
//!   real package.
//! - Version 1 nests `dependencies` by install location; every entry is in
//!   the root workspace. `npm:name@version` aliases report the real name;
//!   `file:` and `link:` versions are the project's own code and are left
//!   out; other non-registry versions (git) are kept as written (recall
//!   reports them as unknown).
//!
//! This file owns that reading only.

use std::collections::BTreeMap;

use serde::Deserialize;

use super::{depth, detail, is_local_npm_ref, split_npm_spec, text, Package, StackError};

#[derive(Deserialize)]
struct Lock {
    #[serde(rename = "lockfileVersion")]
    lockfile_version: Option<u64>,
    packages: Option<BTreeMap<String, Entry>>,
    dependencies: Option<BTreeMap<String, V1Dep>>,
}

#[derive(Deserialize)]
struct Entry {
    name: Option<String>,
    version: Option<String>,
    #[serde(default)]
    link: bool,
}

#[derive(Deserialize)]
struct V1Dep {
    version: Option<String>,
    dependencies: Option<BTreeMap<String, V1Dep>>,
}

/// Parses a `package-lock.json` or `npm-shrinkwrap.json`.
pub fn parse(bytes: &[u8]) -> Result<Vec<Package>, StackError> {
    let text = text(bytes)?;
    depth::json(text, false)?;
    let lock: Lock = serde_json::from_str(text).map_err(|e| StackError::Syntax {
        format: "JSON",
        detail: detail(e),
    })?;
    match lock.lockfile_version {
        Some(2 | 3) => {
            let packages = lock.packages.ok_or_else(|| {
                StackError::Shape("lockfileVersion 2 and 3 need a `packages` object".to_owned())
            })?;
            Ok(from_packages(packages))
        }
        Some(1) => {
            let deps = lock.dependencies.unwrap_or_default();
            Ok(from_v1(deps))
        }
        Some(n) => Err(StackError::Unsupported(format!(
            "lockfileVersion {n} (known: 1, 2, 3)"
        ))),
        None => Err(StackError::Shape(
            "no `lockfileVersion`: not an npm lockfile".to_owned(),
        )),
    }
}

fn from_packages(packages: BTreeMap<String, Entry>) -> Vec<Package> {
    let mut out = Vec::new();
    for (path, entry) in packages {
        let Some(at) = path.find("node_modules/") else {
            continue; // the root or a workspace member: the project itself
        };
        if entry.link {
            continue;
        }
        let Some(version) = entry.version else {
            continue;
        };
        let installed_as = path.rsplit("node_modules/").next().unwrap_or_default();
        let name = entry.name.as_deref().unwrap_or(installed_as);
        if name.is_empty() || is_local_npm_ref(&version) {
            continue;
        }
        let workspace = super::clean_workspace(&path[..at]);
        out.push(Package::new(name, &version, &workspace));
    }
    out
}

fn from_v1(deps: BTreeMap<String, V1Dep>) -> Vec<Package> {
    let mut out = Vec::new();
    let mut todo: Vec<(String, V1Dep)> = deps.into_iter().collect();
    while let Some((name, dep)) = todo.pop() {
        if let Some(nested) = dep.dependencies {
            todo.extend(nested);
        }
        let Some(version) = dep.version else {
            continue;
        };
        if is_local_npm_ref(&version) {
            continue;
        }
        match version.strip_prefix("npm:").and_then(split_npm_spec) {
            Some((real, v)) => out.push(Package::new(real, v, ".")),
            None => out.push(Package::new(&name, &version, ".")),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::testutil::{golden, survives_garbage};
    use super::*;

    #[test]
    fn lockfile_v1() {
        golden(
            parse,
            "package-lock.v1.json",
            &[
                "@babel/code-frame 7.22.13 .",
                "@babel/highlight 7.22.20 .",
                "body-parser 1.20.1 .",
                "chalk 2.4.2 .",
                "chalk 4.1.2 .",
                "express 4.18.2 .",
                "left-pad github:stevemao/left-pad#0e1a7a4e7b62b0bfc3f2c1b5bc6c1f9d0d7b7b2e .",
                "string-width 4.2.3 .",
            ],
        );
    }

    #[test]
    fn lockfile_v2_with_workspaces() {
        golden(
            parse,
            "package-lock.v2.json",
            &[
                "@types/node 20.12.7 .",
                "react 18.3.1 packages/ui",
                "typescript 5.4.5 .",
                "undici-types 5.26.5 .",
                "vite 5.4.21 .",
                "vite 8.0.16 packages/ui",
                "vitest 4.1.9 .",
            ],
        );
    }

    #[test]
    fn lockfile_v3_with_alias_and_nesting() {
        golden(
            parse,
            "package-lock.v3.json",
            &[
                "@esbuild/linux-x64 0.21.5 .",
                "@tanstack/query-core 5.28.6 .",
                "@tanstack/react-query 5.28.6 .",
                "@vitejs/plugin-react 4.2.1 .",
                "loose-envify 1.4.0 .",
                "react 18.3.1 .",
                "rollup 4.18.0 .",
                "string-width 4.2.3 .",
                "vite 5.4.21 .",
            ],
        );
    }

    #[test]
    fn shrinkwrap() {
        golden(
            parse,
            "npm-shrinkwrap.json",
            &["commander 12.0.0 .", "undici 6.11.1 ."],
        );
    }

    #[test]
    fn wrong_shapes_are_clear_errors() {
        let e = |s: &str| parse(s.as_bytes()).unwrap_err().to_string();
        assert_eq!(
            e(r#"{"lockfileVersion": 4, "packages": {}}"#),
            "unsupported lockfileVersion 4 (known: 1, 2, 3)"
        );
        assert_eq!(
            e(r#"{"name": "x"}"#),
            "unexpected content: no `lockfileVersion`: not an npm lockfile"
        );
        assert_eq!(
            e(r#"{"lockfileVersion": 3}"#),
            "unexpected content: lockfileVersion 2 and 3 need a `packages` object"
        );
        assert!(
            e(r#"{"lockfileVersion": 3, "packages": {"node_modules/a": {"version": 5}}}"#)
                .starts_with("invalid JSON: invalid type: integer `5`, expected a string")
        );
        assert!(e(r#"{"lockfileVersion": "3"}"#).starts_with("invalid JSON: invalid type: string"));
        assert!(e(r#"{"lockfileVersion": 3, "packages": ["#).starts_with("invalid JSON: "));
        assert!(e("[]").starts_with("invalid JSON: "), "{}", e("[]"));
        // Nesting is bounded by the depth budget, before parsing: in the
        // v1 dependency tree, where the parser recurses, and in a field it
        // ignores.
        let deep = format!(
            "{{\"lockfileVersion\": 1, \"dependencies\": {}{}}}",
            "{\"a\": {\"dependencies\": ".repeat(40),
            "}}".repeat(40)
        );
        assert_eq!(
            e(&deep),
            "nested more than 64 levels deep, over the depth budget for a lockfile or manifest; a real one nests fewer than 10"
        );
        let ignored = format!(
            "{{\"lockfileVersion\": 3, \"x\": {}{}, \"packages\": {{}}}}",
            "[".repeat(100_000),
            "]".repeat(100_000)
        );
        assert_eq!(
            parse(ignored.as_bytes()),
            Err(StackError::TooDeep {
                cap: super::super::MAX_DEPTH
            })
        );
        // At the budget, a v1 tree still parses.
        let at = format!(
            "{{\"lockfileVersion\": 1, \"dependencies\": {}{{}}{}}}",
            "{\"a\": {\"version\": \"1.0.0\", \"dependencies\": ".repeat(31),
            "}}".repeat(31)
        );
        assert!(parse(at.as_bytes()).is_ok(), "{:?}", parse(at.as_bytes()));
    }

    #[test]
    fn garbage_never_panics() {
        survives_garbage(parse, "package-lock.v3.json");
        survives_garbage(parse, "package-lock.v1.json");
    }
}
