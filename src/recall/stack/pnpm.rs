//! `pnpm-lock.yaml`, lockfile versions 5.x (pnpm 7), 6.x (pnpm 8) and 9.x
//! (pnpm 9 and 10).
//!
//! Package keys by version:
//!
//! | version | key under `packages` | peer suffix |
//! |---|---|---|
//! | 5.x | `/name/1.2.3`, `/@scope/name/1.2.3` | `_react@18.2.0` |
//! | 6.x | `/name@1.2.3`, `/@scope/name@1.2.3` | `(react@18.2.0)` |
//! | 9.x | `name@1.2.3`, `@scope/name@1.2.3` (peers only under `snapshots`) | `(react@18.2.0)` |
//!
//! Keys of packages from git or a tarball (`github.com/…`,
//! `name@https://…`) carry `name` and `version` fields, which are used.
//!
//! Every package under `packages` is attributed to the lockfile's own
//! directory (`.`). The direct dependencies of each workspace (`importers`,
//! or the top-level `dependencies` of a single-project 5.x/6.x lockfile)
//! are also attributed to that workspace, so a workspace sees its own
//! version first. `link:`, `file:` and `workspace:` versions are the
//! project's own code and are left out; an alias
//! (`string-width-cjs: string-width@4.2.3`) reports the real package.
//!
//! The YAML is read with serde-saphyr (a safe, pure-Rust parser) under
//! [`yaml_options`]: nesting within [`MAX_DEPTH`], a node count and an
//! alias budget, one document. A file over one is refused with a message
//! naming the budget. `pnpm-workspace.yaml` is read under the same
//! options (`super::members`).
//!
//! This file owns that reading only.

use std::collections::BTreeMap;

use serde::Deserialize;

use super::{
    clean_workspace, detail, is_local_npm_ref, split_npm_spec, text, Package, StackError,
    MAX_DEPTH, MAX_LOCKFILE_BYTES,
};

type Deps = Option<BTreeMap<String, DepRef>>;

#[derive(Deserialize)]
struct Lock {
    #[serde(rename = "lockfileVersion")]
    lockfile_version: Option<Scalar>,
    importers: Option<BTreeMap<String, Importer>>,
    dependencies: Deps,
    #[serde(rename = "devDependencies")]
    dev_dependencies: Deps,
    #[serde(rename = "optionalDependencies")]
    optional_dependencies: Deps,
    packages: Option<BTreeMap<String, Entry>>,
}

#[derive(Deserialize)]
struct Importer {
    dependencies: Deps,
    #[serde(rename = "devDependencies")]
    dev_dependencies: Deps,
    #[serde(rename = "optionalDependencies")]
    optional_dependencies: Deps,
}

/// A scalar whose YAML type is not known in advance (`lockfileVersion` is
/// `5.4` in old lockfiles and `'9.0'` in new ones).
#[derive(Deserialize)]
#[serde(untagged)]
enum Scalar {
    Number(f64),
    Text(String),
    Other(serde::de::IgnoredAny),
}

/// An importer's dependency: a bare version (5.x) or `{specifier, version}`.
#[derive(Deserialize)]
#[serde(untagged)]
enum DepRef {
    Plain(String),
    Spec { version: String },
}

#[derive(Deserialize)]
struct Entry {
    name: Option<String>,
    version: Option<String>,
}

/// Parses a `pnpm-lock.yaml`: every YAML document in it (pnpm 11 and
/// later write an "env" document, pnpm itself and config dependencies,
/// before the project's), merged.
pub fn parse(bytes: &[u8]) -> Result<Vec<Package>, StackError> {
    let text = text(bytes)?;
    let docs: Vec<Lock> =
        serde_saphyr::from_str_multiple_with_options(text, yaml_options()).map_err(yaml_error)?;
    if docs.is_empty() {
        return Err(StackError::Shape(
            "no `lockfileVersion`: not a pnpm lockfile".to_owned(),
        ));
    }
    let mut out = Vec::new();
    for lock in docs {
        read_document(lock, &mut out)?;
    }
    out.sort();
    out.dedup();
    Ok(out)
}

/// Reads one document of a `pnpm-lock.yaml` into `out`.
fn read_document(lock: Lock, out: &mut Vec<Package>) -> Result<(), StackError> {
    let major = major(lock.lockfile_version.as_ref())?;
    for (key, entry) in lock.packages.unwrap_or_default() {
        if let Some((name, version)) = from_key(major, &key, &entry) {
            out.push(Package::new(&name, &version, "."));
        }
    }
    let mut importers: Vec<(String, [Deps; 3])> = Vec::new();
    if let Some(map) = lock.importers {
        for (dir, imp) in map {
            importers.push((
                dir,
                [
                    imp.dependencies,
                    imp.dev_dependencies,
                    imp.optional_dependencies,
                ],
            ));
        }
    } else {
        importers.push((
            ".".to_owned(),
            [
                lock.dependencies,
                lock.dev_dependencies,
                lock.optional_dependencies,
            ],
        ));
    }
    for (dir, groups) in importers {
        let workspace = clean_workspace(&dir);
        for (name, dep) in groups.into_iter().flatten().flatten() {
            let version = match dep {
                DepRef::Plain(v) | DepRef::Spec { version: v } => v,
            };
            if let Some((name, version)) = from_importer(major, &name, &version) {
                out.push(Package::new(&name, &version, &workspace));
            }
        }
    }
    Ok(())
}

/// The most YAML nodes (scalars, sequences, mappings) a file may have: one
/// per two bytes of the largest lockfile, more than any real lockfile of
/// that size holds. It bounds the work per byte, not the file.
const MAX_YAML_NODES: usize = MAX_LOCKFILE_BYTES / 2;

/// The most aliases (`*name`) and anchors (`&name`) a file may use. pnpm
/// writes neither; a few hand-made ones are read, a bomb is refused.
const MAX_YAML_ALIASES: usize = 1_000;

/// The most nodes aliases may replay, in all.
const MAX_ALIAS_REPLAY: usize = 100_000;

/// The most YAML documents a file may hold: pnpm writes one or two (the env
/// document and the project's).
const MAX_YAML_DOCUMENTS: usize = 4;

/// The options every YAML file recall reads is parsed with: the budgets
/// above, [`MAX_DEPTH`] for block and flow nesting, at most
/// [`MAX_YAML_DOCUMENTS`], duplicate keys refused, and errors without a
/// quoted source snippet (a message is one line; see [`yaml_error`]).
pub(crate) fn yaml_options() -> serde_saphyr::Options {
    serde_saphyr::options! {
        budget: serde_saphyr::budget! {
            max_depth: MAX_DEPTH,
            flow_nesting_limit: MAX_DEPTH,
            max_nodes: MAX_YAML_NODES,
            max_events: 2 * MAX_YAML_NODES,
            max_aliases: MAX_YAML_ALIASES,
            max_anchors: MAX_YAML_ALIASES,
            max_documents: MAX_YAML_DOCUMENTS,
        },
        alias_limits: serde_saphyr::alias_limits! {
            max_total_replayed_events: MAX_ALIAS_REPLAY,
            max_replay_stack_depth: MAX_DEPTH,
        },
        with_snippet: false,
    }
}

/// Reads YAML under [`yaml_options`].
pub(crate) fn from_yaml<'de, T: Deserialize<'de>>(text: &'de str) -> Result<T, StackError> {
    serde_saphyr::from_str_with_options(text, yaml_options()).map_err(yaml_error)
}

/// A serde-saphyr error as a [`StackError`]: a budget breach names the
/// budget, anything else is a one-line syntax error.
pub(crate) fn yaml_error(e: serde_saphyr::Error) -> StackError {
    use serde_saphyr::budget::BudgetBreach as B;
    use serde_saphyr::granit_parser::ErrorKind;
    let over = |what: &str, cap: usize| StackError::OverBudget {
        what: what.to_owned(),
        cap,
    };
    // The error itself, out of the wrappers that add where an alias was
    // defined and used, or a source snippet.
    let mut root = &e;
    while let serde_saphyr::Error::AliasError { error, .. }
    | serde_saphyr::Error::WithSnippet { error, .. } = root
    {
        root = error;
    }
    match root {
        serde_saphyr::Error::Budget { breach, .. } => {
            return match breach {
                B::Depth { .. } => StackError::TooDeep { cap: MAX_DEPTH },
                B::Nodes { .. } | B::Events { .. } => over("too many YAML nodes", MAX_YAML_NODES),
                B::Aliases { .. } | B::AliasAnchorRatio { .. } => {
                    over("too many YAML aliases", MAX_YAML_ALIASES)
                }
                B::Anchors { .. } => over("too many YAML anchors", MAX_YAML_ALIASES),
                B::Documents { .. } => over("too many YAML documents", MAX_YAML_DOCUMENTS),
                other => StackError::Syntax {
                    format: "YAML",
                    detail: detail(format!("over a parsing budget ({other:?})")),
                },
            };
        }
        // The scanner's own flow-nesting guard, set to the same budget.
        serde_saphyr::Error::ExternalMessage { source, .. }
            if matches!(&**source, serde_saphyr::ExternalMessageSource::Parser(scan)
                if matches!(scan.kind(), ErrorKind::RecursionLimitExceeded)) =>
        {
            return StackError::TooDeep { cap: MAX_DEPTH };
        }
        serde_saphyr::Error::MultipleDocuments { .. } => {
            return over("more than one YAML document", 1);
        }
        serde_saphyr::Error::AliasReplayLimitExceeded { .. } => {
            return over(
                "YAML aliases that expand to too many nodes",
                MAX_ALIAS_REPLAY,
            );
        }
        _ => {}
    }
    StackError::Syntax {
        format: "YAML",
        detail: detail(e.render_with_formatter(&serde_saphyr::UserMessageFormatter)),
    }
}

/// The lockfile's major version, from `5.4`, `'6.0'`, `'9.0'` or
/// `'5.4-inlineSpecifiers'`.
fn major(v: Option<&Scalar>) -> Result<u32, StackError> {
    let text = match v {
        Some(Scalar::Number(n)) => n.to_string(),
        Some(Scalar::Text(s)) => s.clone(),
        Some(Scalar::Other(_)) => {
            return Err(StackError::Shape(
                "`lockfileVersion` is neither a number nor a string".to_owned(),
            ))
        }
        None => {
            return Err(StackError::Shape(
                "no `lockfileVersion`: not a pnpm lockfile".to_owned(),
            ))
        }
    };
    let digits: String = text.chars().take_while(char::is_ascii_digit).collect();
    match digits.parse::<u32>() {
        Ok(m @ (5 | 6 | 9)) => Ok(m),
        _ => Err(StackError::Unsupported(format!(
            "lockfileVersion {} (known: 5.x, 6.x, 9.x)",
            detail(&text)
        ))),
    }
}

/// Cuts the peer suffix off a version: `_…` in 5.x (after a version that
/// starts with a digit), `(…)` from 6.x on.
fn strip_peers(major: u32, v: &str) -> &str {
    let v = v.split('(').next().unwrap_or(v);
    if major == 5 && v.starts_with(|c: char| c.is_ascii_digit()) {
        v.split('_').next().unwrap_or(v)
    } else {
        v
    }
}

/// `name` and `version` of a 5.x path key (without its leading `/`):
/// `name/1.2.3_peer`, `@scope/name/1.2.3`.
fn split_v5_path(path: &str) -> Option<(String, String)> {
    let n = if path.starts_with('@') { 3 } else { 2 };
    let parts: Vec<&str> = path.splitn(n, '/').collect();
    if parts.len() != n {
        return None;
    }
    let name = parts[..n - 1].join("/");
    let version = strip_peers(5, parts[n - 1]);
    (!version.is_empty()).then(|| (name, version.to_owned()))
}

/// Reads a registry-style key or alias target (`/name/1.2.3`,
/// `/name@1.2.3(peer)`, `name@1.2.3`).
fn split_spec(major: u32, spec: &str) -> Option<(String, String)> {
    match spec.strip_prefix('/') {
        Some(path) if major == 5 => split_v5_path(path),
        Some(path) => split_at_version(major, path),
        None if major >= 9 => split_at_version(major, spec),
        None => None,
    }
}

fn split_at_version(major: u32, spec: &str) -> Option<(String, String)> {
    let (name, version) = split_npm_spec(spec)?;
    let version = strip_peers(major, version);
    (!version.is_empty()).then(|| (name.to_owned(), version.to_owned()))
}

fn from_key(major: u32, key: &str, entry: &Entry) -> Option<(String, String)> {
    if let (Some(name), Some(version)) = (&entry.name, &entry.version) {
        return (!is_local_npm_ref(version)).then(|| (name.clone(), version.clone()));
    }
    let (name, version) = split_spec(major, key)?;
    if is_local_npm_ref(&version) {
        return None;
    }
    match &entry.version {
        // A git or tarball key (`name@https://…`) with a `version` field.
        Some(v) if !version.starts_with(|c: char| c.is_ascii_digit()) => Some((name, v.clone())),
        _ => Some((name, version)),
    }
}

fn from_importer(major: u32, name: &str, version: &str) -> Option<(String, String)> {
    if is_local_npm_ref(version) {
        return None;
    }
    if version.starts_with('/') {
        return split_spec(major, version);
    }
    let bare = strip_peers(major, version);
    if major >= 9 && bare.contains('@') {
        return split_at_version(major, bare);
    }
    Some((name.to_owned(), bare.to_owned()))
}

#[cfg(test)]
mod tests {
    use super::super::testutil::{golden, survives_garbage};
    use super::*;

    #[test]
    fn lockfile_v5_with_importers() {
        golden(
            parse,
            "pnpm-lock.v5.yaml",
            &[
                "body-parser 1.20.1 .",
                "express 4.18.2 .",
                "express 4.18.2 packages/api",
                "js-tokens 4.0.0 .",
                "loose-envify 1.4.0 .",
                "prettier 3.2.5 .",
                "react 18.2.0 .",
                "react 18.2.0 packages/shared",
                "react-dom 18.2.0 .",
                "react-dom 18.2.0 packages/shared",
                "scheduler 0.23.0 .",
                "typescript 5.4.5 .",
                "zod 3.22.4 .",
                "zod 3.22.4 packages/api",
            ],
        );
    }

    #[test]
    fn lockfile_v6_single_project_with_alias_and_git() {
        golden(
            parse,
            "pnpm-lock.v6.yaml",
            &[
                "@tanstack/query-core 5.28.6 .",
                "@tanstack/react-query 5.28.6 .",
                "@types/node 20.12.7 .",
                "@types/prop-types 15.7.12 .",
                "@types/react 18.2.79 .",
                "csstype 3.1.3 .",
                "js-tokens 4.0.0 .",
                "loose-envify 1.4.0 .",
                "pretty-log 0.4.0 .",
                "react 18.3.1 .",
                "string-width 4.2.3 .",
                "undici-types 5.26.5 .",
                "vite 5.2.10 .",
            ],
        );
    }

    #[test]
    fn lockfile_v9_with_workspaces() {
        golden(
            parse,
            "pnpm-lock.v9.yaml",
            &[
                "@types/node 22.7.4 .",
                "js-tokens 4.0.0 .",
                "loose-envify 1.4.0 .",
                "react 18.3.1 .",
                "react 18.3.1 packages/ui",
                "string-width 4.2.3 .",
                "string-width 4.2.3 apps/web",
                "typescript 5.4.5 .",
                "undici-types 6.19.8 .",
                "vite 5.4.21 .",
                "vite 5.4.21 packages/ui",
                "vite 8.0.16 .",
                "vite 8.0.16 apps/web",
                "vitest 4.1.9 .",
            ],
        );
    }

    #[test]
    fn keys_of_every_version() {
        assert_eq!(
            split_spec(5, "/@scope/x/1.0.0_react@18.2.0"),
            Some(("@scope/x".into(), "1.0.0".into()))
        );
        assert_eq!(
            split_spec(5, "/x/1.0.0-beta.1"),
            Some(("x".into(), "1.0.0-beta.1".into()))
        );
        assert_eq!(
            split_spec(6, "/@scope/x@1.0.0(react@18.2.0)(b@1)"),
            Some(("@scope/x".into(), "1.0.0".into()))
        );
        assert_eq!(split_spec(9, "x@1.0.0"), Some(("x".into(), "1.0.0".into())));
        assert_eq!(split_spec(6, "x@1.0.0"), None);
        assert_eq!(split_spec(5, "/x"), None);
        assert_eq!(from_importer(9, "t", "link:../t"), None);
        assert_eq!(
            from_importer(9, "v", "4.1.9(@types/node@22.7.4)(vite@5.4.21)"),
            Some(("v".into(), "4.1.9".into()))
        );
        assert_eq!(
            from_importer(6, "sw", "/string-width@4.2.3"),
            Some(("string-width".into(), "4.2.3".into()))
        );
        assert_eq!(
            from_importer(5, "rd", "18.2.0_react@18.2.0"),
            Some(("rd".into(), "18.2.0".into()))
        );
    }

    #[test]
    fn wrong_shapes_are_clear_errors() {
        let e = |s: &str| parse(s.as_bytes()).unwrap_err().to_string();
        assert_eq!(
            e("lockfileVersion: '3.0'\n"),
            "unsupported lockfileVersion 3.0 (known: 5.x, 6.x, 9.x)"
        );
        assert_eq!(
            e("packages: {}\n"),
            "unexpected content: no `lockfileVersion`: not a pnpm lockfile"
        );
        assert_eq!(
            e("lockfileVersion: [1]\n"),
            "unexpected content: `lockfileVersion` is neither a number nor a string"
        );
        assert!(e("lockfileVersion: '9.0'\npackages:\n  a@1: {name: [1]}\n")
            .starts_with("invalid YAML: "));
        assert!(
            e("lockfileVersion: '9.0'\nimporters:\n  .:\n    dependencies:\n      a: [1]\n")
                .starts_with("invalid YAML: ")
        );
        assert!(e("lockfileVersion: '9.0'\npackages: [\n").starts_with("invalid YAML: "));
        assert!(e("- just\n- a list\n").starts_with("invalid YAML: "));
        // Alias expansion is bounded (a "billion laughs" document).
        let mut bomb = String::from("lockfileVersion: '9.0'\na: &a [x,x,x,x,x,x,x,x,x,x]\n");
        for i in 0..9u8 {
            let (prev, next) = ((b'a' + i) as char, (b'a' + i + 1) as char);
            bomb.push_str(&format!(
                "{next}: &{next} [*{prev},*{prev},*{prev},*{prev},*{prev},*{prev},*{prev},*{prev},*{prev},*{prev}]\n"
            ));
        }
        bomb.push_str("packages: *j\n");
        assert_eq!(
            e(&bomb),
            "YAML aliases that expand to too many nodes, over the budget of 100000 for a lockfile or manifest"
        );
        // Messages are the parser's user-facing ones, on one line.
        assert_eq!(
            e("lockfileVersion: '9.0'\nlockfileVersion: '6.0'\n"),
            "invalid YAML: duplicate mapping key `lockfileVersion` is not allowed here at line 2, column 1"
        );
    }

    /// Issue 20's hostile input (flow sequences nested 100,000 deep, 69 s
    /// with the YAML parser before) and its relatives are refused by the
    /// depth budget, before any work that grows with the nesting.
    #[test]
    fn budgets_refuse_hostile_yaml() {
        let e = |s: &str| parse(s.as_bytes()).unwrap_err().to_string();
        let too_deep = "nested more than 64 levels deep, over the depth budget for a lockfile or manifest; a real one nests fewer than 10";
        let nest = |open: &str, close: &str, n: usize| {
            format!(
                "lockfileVersion: '9.0'\nx: {}{}\n",
                open.repeat(n),
                close.repeat(n)
            )
        };
        assert_eq!(e(&nest("[", "]", 100_000)), too_deep);
        assert_eq!(e(&nest("{a: [", "]}", 1_000)), too_deep);
        assert_eq!(e(&nest("[", "", 100_000)), too_deep);
        let mut block = String::from("lockfileVersion: '9.0'\nx:\n");
        for d in 1..200 {
            block.push_str(&format!("{}- y:\n", "  ".repeat(d)));
        }
        assert_eq!(e(&block), too_deep);
        // The root mapping is one level: 63 more parse.
        let at = nest("[", "]", MAX_DEPTH - 1);
        assert_eq!(parse(at.as_bytes()).map(|p| p.len()), Ok(0));
        assert_eq!(e(&nest("[", "]", MAX_DEPTH)), too_deep);
        let docs = "lockfileVersion: '9.0'\n---\n".repeat(MAX_YAML_DOCUMENTS + 1);
        assert_eq!(
            e(&docs),
            "too many YAML documents, over the budget of 4 for a lockfile or manifest"
        );
    }

    /// pnpm 11 and later write an "env" document (pnpm itself, config
    /// dependencies) before the project's: both are read.
    #[test]
    fn two_document_lockfiles_of_pnpm_11_and_later() {
        let text = "---\nlockfileVersion: '9.0'\n\nimporters:\n\n  .:\n    configDependencies: {}\n    packageManagerDependencies:\n      pnpm:\n        specifier: 12.3.4\n        version: 12.3.4\n\npackages:\n\n  pnpm@12.3.4:\n    resolution: {integrity: sha512-AAAA}\n    hasBin: true\n\nsnapshots:\n\n  pnpm@12.3.4: {}\n\n---\nlockfileVersion: '9.0'\n\nsettings:\n  autoInstallPeers: true\n\nimporters:\n\n  .:\n    dependencies:\n      vite:\n        specifier: ^5.4.0\n        version: 5.4.21\n\npackages:\n\n  vite@5.4.21:\n    resolution: {integrity: sha512-BBBB}\n";
        let got: Vec<String> = parse(text.as_bytes())
            .unwrap()
            .iter()
            .map(|p| format!("{} {} {}", p.name, p.version, p.workspace))
            .collect();
        assert_eq!(got, ["pnpm 12.3.4 .", "vite 5.4.21 ."]);
    }

    #[test]
    fn garbage_never_panics() {
        survives_garbage(parse, "pnpm-lock.v9.yaml");
        survives_garbage(parse, "pnpm-lock.v5.yaml");
    }
}
