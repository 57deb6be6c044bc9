//! `--stack NAME@VERSION` overrides: parsing them and merging them into a
//! scanned [`Stack`].
//!
//! Syntax: `NAME@VERSION`, optionally prefixed by an ecosystem
//! (`pypi:requests@2.31.0`). The version follows the last `@`, so scoped
//! npm names work (`@scope/pkg@1.2.3`). At most 256 characters, no
//! whitespace or control characters.
//!
//! Merge rule: an override replaces every installed copy of that package
//! (same normalised name; same ecosystem when the override names one), in
//! every workspace, by one entry in the root workspace (`.`), so every
//! workspace sees the override. Its ecosystem is the one named, else that
//! of the copies it replaced (one entry per ecosystem if the name was
//! installed in several), else none (the version is then compared by the
//! lesson grammar's own reading). With no lockfile at all, overrides are
//! the whole stack.
//!
//! This file owns that syntax and rule only.

use std::collections::BTreeSet;

use super::{scan::finish, Installed, Stack};
use crate::version::{normalize_generic, split_key, Ecosystem};

/// The longest override accepted.
const MAX_OVERRIDE_CHARS: usize = 256;

/// The `source` of an installed package that came from an override.
pub const OVERRIDE_SOURCE: &str = "--stack";

/// Why a `--stack` value was refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum OverrideError {
    #[error("--stack {0:?} has no version: write NAME@VERSION, e.g. vite@5.4.21 or pypi:requests@2.31.0")]
    NoVersion(String),
    #[error("--stack {0:?} has an empty package name")]
    NoName(String),
    #[error("--stack value is longer than {MAX_OVERRIDE_CHARS} characters")]
    TooLong,
    #[error("--stack {0:?} contains whitespace or control characters")]
    BadChars(String),
}

/// A parsed `--stack` value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Override {
    pub name: String,
    pub version: String,
    pub ecosystem: Option<Ecosystem>,
}

/// Parses `NAME@VERSION` or `ECOSYSTEM:NAME@VERSION`.
pub fn parse_override(s: &str) -> Result<Override, OverrideError> {
    if s.chars().count() > MAX_OVERRIDE_CHARS {
        return Err(OverrideError::TooLong);
    }
    if s.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return Err(OverrideError::BadChars(s.escape_debug().to_string()));
    }
    let (ecosystem, spec) = split_key(s);
    let Some(at) = spec.rfind('@').filter(|&at| at > 0) else {
        return Err(OverrideError::NoVersion(s.to_owned()));
    };
    let (name, version) = (&spec[..at], &spec[at + 1..]);
    if version.is_empty() {
        return Err(OverrideError::NoVersion(s.to_owned()));
    }
    if name.is_empty() || name == "@" {
        return Err(OverrideError::NoName(s.to_owned()));
    }
    Ok(Override {
        name: name.to_owned(),
        version: version.to_owned(),
        ecosystem,
    })
}

fn same_package(o: &Override, p: &Installed) -> bool {
    match (o.ecosystem, p.ecosystem) {
        (Some(want), Some(got)) => {
            want == got && want.normalize_name(&o.name) == want.normalize_name(&p.name)
        }
        (Some(_), None) => false,
        (None, Some(got)) => got.normalize_name(&o.name) == got.normalize_name(&p.name),
        (None, None) => normalize_generic(&o.name) == normalize_generic(&p.name),
    }
}

impl Stack {
    /// Merges `--stack` overrides in (see the module doc for the rule).
    pub fn apply_overrides(&mut self, overrides: &[Override]) {
        for o in overrides {
            let mut ecosystems = BTreeSet::new();
            self.packages.retain(|p| {
                let hit = same_package(o, p);
                if hit {
                    ecosystems.insert(p.ecosystem);
                }
                !hit
            });
            if let Some(eco) = o.ecosystem {
                ecosystems = BTreeSet::from([Some(eco)]);
            } else if ecosystems.is_empty() {
                ecosystems.insert(None);
            }
            for ecosystem in ecosystems {
                self.packages.push(Installed {
                    name: o.name.clone(),
                    version: o.version.clone(),
                    ecosystem,
                    source: OVERRIDE_SOURCE.to_owned(),
                    workspace: ".".to_owned(),
                });
            }
        }
        finish(self);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn installed(name: &str, version: &str, eco: Ecosystem, workspace: &str) -> Installed {
        Installed {
            name: name.into(),
            version: version.into(),
            ecosystem: Some(eco),
            source: "package-lock.json".into(),
            workspace: workspace.into(),
        }
    }

    #[test]
    fn parses_names_versions_and_ecosystems() {
        let o = |s: &str| parse_override(s).unwrap();
        assert_eq!(
            o("vite@5.4.21"),
            Override {
                name: "vite".into(),
                version: "5.4.21".into(),
                ecosystem: None
            }
        );
        assert_eq!(
            o("@scope/pkg@1.2.3"),
            Override {
                name: "@scope/pkg".into(),
                version: "1.2.3".into(),
                ecosystem: None
            }
        );
        assert_eq!(
            o("pypi:requests@2.31.0"),
            Override {
                name: "requests".into(),
                version: "2.31.0".into(),
                ecosystem: Some(Ecosystem::PyPI)
            }
        );
        assert_eq!(o("npm:@scope/pkg@1.2.3").ecosystem, Some(Ecosystem::Npm));
        assert_eq!(o("go:github.com/a/b@v1.2.3").name, "github.com/a/b");
        let e = |s: &str| parse_override(s).unwrap_err().to_string();
        assert_eq!(
            e("vite"),
            "--stack \"vite\" has no version: write NAME@VERSION, e.g. vite@5.4.21 or pypi:requests@2.31.0"
        );
        assert_eq!(
            e("@scope/pkg"),
            "--stack \"@scope/pkg\" has no version: write NAME@VERSION, e.g. vite@5.4.21 or pypi:requests@2.31.0"
        );
        assert!(e("vite@").contains("has no version"));
        assert_eq!(e("@@1"), "--stack \"@@1\" has an empty package name");
        assert_eq!(
            e("vite@5 .4"),
            "--stack \"vite@5 .4\" contains whitespace or control characters"
        );
        assert_eq!(
            e("vite@5\n"),
            "--stack \"vite@5\\\\n\" contains whitespace or control characters"
        );
        assert_eq!(
            e(&"a".repeat(300)),
            "--stack value is longer than 256 characters"
        );
    }

    #[test]
    fn overrides_replace_every_copy_and_add_missing_ones() {
        let mut stack = Stack {
            packages: vec![
                installed("vite", "5.4.21", Ecosystem::Npm, "."),
                installed("vite", "8.0.16", Ecosystem::Npm, "apps/web"),
                installed("Requests", "2.30.0", Ecosystem::PyPI, "api"),
                installed("react", "18.3.1", Ecosystem::Npm, "."),
            ],
            ..Stack::default()
        };
        stack.apply_overrides(&[
            parse_override("vite@6.0.1").unwrap(),
            parse_override("requests@2.31.0").unwrap(),
            parse_override("vitest@4.1.9").unwrap(),
            parse_override("pypi:django@5.0").unwrap(),
        ]);
        let got: Vec<String> = stack
            .packages
            .iter()
            .map(|p| {
                format!(
                    "{} {} {} {} {}",
                    p.workspace,
                    p.ecosystem.map_or("-", Ecosystem::as_str),
                    p.name,
                    p.version,
                    p.source
                )
            })
            .collect();
        assert_eq!(
            got,
            [
                ". - vitest 4.1.9 --stack",
                ". npm react 18.3.1 package-lock.json",
                ". npm vite 6.0.1 --stack",
                ". pypi django 5.0 --stack",
                ". pypi requests 2.31.0 --stack",
            ]
        );
    }

    #[test]
    fn overrides_work_with_no_lockfile() {
        let mut stack = Stack::default();
        stack.apply_overrides(&[parse_override("vite@5.4.21").unwrap()]);
        assert_eq!(stack.packages.len(), 1);
        assert_eq!(stack.packages[0].ecosystem, None);
    }
}
