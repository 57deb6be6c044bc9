//! `yarn.lock`: classic (v1, Yarn 1) and Berry (Yarn 2+, `__metadata`
//! version 4 to 8), read with the `yarn-lock-parser` crate.
//!
//! - The package name is the real one: for Berry, the name in the
//!   `resolution` (`string-width@npm:4.2.3`; a `patch:` entry resolves to
//!   the package it patches); for classic, the target of an `npm:` alias
//!   descriptor (`"string-width-cjs@npm:string-width@^4.2.0"`), else the
//!   descriptor's name.
//! - Workspace entries (`workspace:` descriptors, version
//!   `0.0.0-use.local`) and `link:`, `portal:` and `file:` entries are the
//!   project's own code and are left out.
//! - Every package is attributed to the lockfile's directory (`.`). Berry
//!   also records each workspace's direct dependencies as descriptors; each
//!   is resolved through the entry that carries that descriptor and
//!   attributed to the workspace too. Classic lockfiles do not record
//!   workspaces.
//!
//! This file owns that reading only.

use std::collections::HashMap;

use super::{clean_workspace, detail, is_local_npm_ref, split_npm_spec, text, Package, StackError};

/// Parses a `yarn.lock`.
pub fn parse(bytes: &[u8]) -> Result<Vec<Package>, StackError> {
    let text = text(bytes)?;
    if !text.contains("# yarn lockfile v1") && !text.contains("__metadata:") {
        return Err(StackError::Shape(
            "neither a `# yarn lockfile v1` header nor a `__metadata:` block: not a yarn.lock"
                .to_owned(),
        ));
    }
    let lock = yarn_lock_parser::parse_str(text).map_err(|e| syntax(text, e))?;
    let berry = lock.version >= 2;
    let mut out = Vec::new();
    // (descriptor name, descriptor range) → (real name, version)
    let mut by_descriptor: HashMap<(&str, &str), (String, &str)> = HashMap::new();
    let mut workspaces = Vec::new();
    for entry in &lock.entries {
        if let Some((_, range)) = entry
            .descriptors
            .iter()
            .find(|(_, range)| range.starts_with("workspace:"))
        {
            let dir = clean_workspace(range.trim_start_matches("workspace:"));
            workspaces.push((dir, &entry.dependencies));
            continue;
        }
        let local = entry.version == "0.0.0-use.local"
            || entry.descriptors.iter().any(|(_, r)| is_local_npm_ref(r));
        if local {
            continue;
        }
        let name = real_name(berry, entry);
        for &(d_name, d_range) in &entry.descriptors {
            by_descriptor.insert((d_name, d_range), (name.clone(), entry.version));
        }
        out.push(Package::new(&name, entry.version, "."));
    }
    for (dir, deps) in workspaces {
        for &(name, range) in deps {
            if let Some((real, version)) = by_descriptor.get(&(name, range)) {
                out.push(Package::new(real, version, &dir));
            }
        }
    }
    out.sort();
    out.dedup();
    Ok(out)
}

fn real_name(berry: bool, entry: &yarn_lock_parser::Entry<'_>) -> String {
    if berry {
        if let Some((name, _)) = split_npm_spec(entry.resolved) {
            return name.to_owned();
        }
    }
    for (_, range) in &entry.descriptors {
        if let Some((name, _)) = range.strip_prefix("npm:").and_then(split_npm_spec) {
            return name.to_owned();
        }
    }
    entry.name.to_owned()
}

/// A parse failure, with the line the parser stopped at when it says.
///
/// The crate's error is nom's (`nom::Err<VerboseError<String>>`). It is read
/// through `map` and field access, without naming a nom type, so that nom
/// stays the crate's dependency and not ours: `map`'s closure runs for an
/// error or a failure, not for "incomplete", and an error kind is told
/// apart by its `Debug` text (`Context("entry")`, `Nom(Tag)`, `Char('x')`).
fn syntax(text: &str, e: yarn_lock_parser::YarnLockError) -> StackError {
    let yarn_lock_parser::YarnLockError::Parser { source } = e;
    let mut at = None;
    let _ = source.map(|v| {
        at = v.errors.first().map(|(rest, kind)| {
            let offset = text.len().saturating_sub(rest.len());
            let line = text.get(..offset).map_or(0, |s| s.matches('\n').count()) + 1;
            let kind = format!("{kind:?}");
            let what = match kind
                .strip_prefix("Context(\"")
                .and_then(|c| c.strip_suffix("\")"))
            {
                Some(context) => context.to_owned(),
                None => kind.to_lowercase(),
            };
            format!("line {line}: cannot read the entry here ({what})")
        });
    });
    StackError::Syntax {
        format: "yarn.lock",
        detail: detail(at.unwrap_or_else(|| "the parser stopped before the end".to_owned())),
    }
}

#[cfg(test)]
mod tests {
    use super::super::testutil::{golden, survives_garbage};
    use super::*;

    #[test]
    fn classic_v1() {
        golden(
            parse,
            "yarn.v1.lock",
            &[
                "@babel/code-frame 7.22.13 .",
                "@babel/highlight 7.22.20 .",
                "chalk 2.4.2 .",
                "chalk 4.1.2 .",
                "js-tokens 4.0.0 .",
                "left-pad 1.3.0 .",
                "string-width 4.2.3 .",
                "vite 5.4.21 .",
            ],
        );
    }

    #[test]
    fn berry_with_workspaces_alias_and_patch() {
        golden(
            parse,
            "yarn.berry.lock",
            &[
                "js-tokens 4.0.0 .",
                "loose-envify 1.4.0 .",
                "react 18.3.1 .",
                "react 18.3.1 packages/ui",
                "resolve 1.22.8 .",
                "string-width 4.2.3 .",
                "string-width 4.2.3 apps/web",
                "typescript 5.4.5 .",
                "vite 5.4.21 .",
                "vite 5.4.21 apps/web",
                "vite 8.0.16 .",
                "vite 8.0.16 packages/ui",
            ],
        );
    }

    #[test]
    fn broken_files_are_clear_errors() {
        let e = |s: &str| parse(s.as_bytes()).unwrap_err().to_string();
        assert_eq!(
            e("{\"not\": \"yarn\"}"),
            "unexpected content: neither a `# yarn lockfile v1` header nor a `__metadata:` block: not a yarn.lock"
        );
        let broken = "# THIS IS AN AUTOGENERATED FILE.\n# yarn lockfile v1\n\n\nvite@^5:\n  resolved \"x\"\n";
        let msg = e(broken);
        assert_eq!(
            msg,
            "invalid yarn.lock: line 2: cannot read the entry here (nom(fail))"
        );
        let berry = "__metadata:\n  version: 8\n\n\"left-pad@npm:^1\":\n  version 1.3.0\n";
        assert_eq!(
            e(berry),
            "invalid yarn.lock: line 4: cannot read the entry here (nom(tag))"
        );
    }

    #[test]
    fn garbage_never_panics() {
        survives_garbage(parse, "yarn.v1.lock");
        survives_garbage(parse, "yarn.berry.lock");
    }
}
