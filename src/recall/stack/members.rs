//! The workspace members a project's manifests declare: the directories,
//! besides the project's own, whose lockfiles recall reads.
//!
//! | manifest | members | left out |
//! |---|---|---|
//! | `package.json` (npm, Yarn, bun) | `workspaces`, a list or `{packages: [...]}` | `!pattern` |
//! | `pnpm-workspace.yaml` | `packages` | `!pattern` |
//! | `Cargo.toml` | `[workspace] members` | `[workspace] exclude` |
//! | `pyproject.toml` (uv) | `[tool.uv.workspace] members` | `[tool.uv.workspace] exclude` |
//! | `pyproject.toml` (Poetry) | path dependencies (`{path = "libs/x"}`) of `[tool.poetry.dependencies]`, its groups and `dev-dependencies` | — |
//! | `go.work` | `use` directives | — |
//!
//! Patterns are globs relative to the manifest's directory (`packages/*`,
//! `crates/**`); Poetry and go.work paths are literal. Each parser is
//! bounded like the lockfile parsers: [`MAX_MANIFEST_BYTES`], [`super::MAX_DEPTH`],
//! and at most [`MAX_PATTERNS`] patterns a manifest. Finding the
//! directories the patterns match is the scan's (`super::scan`); this file
//! owns reading the manifests only.

use std::collections::BTreeMap;

use serde::Deserialize;

use super::{depth, detail, StackError, MAX_MANIFEST_BYTES};

/// The most member patterns one manifest may declare.
pub const MAX_PATTERNS: usize = 1_000;

/// A manifest that can declare workspace members.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Manifest {
    PackageJson,
    PnpmWorkspace,
    CargoToml,
    Pyproject,
    GoWork,
}

/// What one manifest declares.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Declared {
    /// Globs of member directories, relative to the manifest's directory.
    pub include: Vec<String>,
    /// Globs of directories that are not members even if `include`
    /// matches them.
    pub exclude: Vec<String>,
}

impl Manifest {
    /// The manifest a file name is, if any.
    pub fn of_file_name(name: &str) -> Option<Manifest> {
        Some(match name {
            "package.json" => Manifest::PackageJson,
            "pnpm-workspace.yaml" => Manifest::PnpmWorkspace,
            "Cargo.toml" => Manifest::CargoToml,
            "pyproject.toml" => Manifest::Pyproject,
            "go.work" => Manifest::GoWork,
            _ => return None,
        })
    }

    /// Reads the members a manifest declares.
    pub fn parse(self, bytes: &[u8]) -> Result<Declared, StackError> {
        let text = manifest_text(bytes)?;
        let declared = match self {
            Manifest::PackageJson => package_json(text)?,
            Manifest::PnpmWorkspace => pnpm_workspace(text)?,
            Manifest::CargoToml => cargo_toml(text)?,
            Manifest::Pyproject => pyproject(text)?,
            Manifest::GoWork => go_work(text)?,
        };
        let n = declared.include.len() + declared.exclude.len();
        if n > MAX_PATTERNS {
            return Err(StackError::OverBudget {
                what: format!("{n} workspace member patterns"),
                cap: MAX_PATTERNS,
            });
        }
        Ok(declared)
    }
}

/// The checks of `super::text` with the manifest size budget.
fn manifest_text(bytes: &[u8]) -> Result<&str, StackError> {
    if bytes.len() > MAX_MANIFEST_BYTES {
        return Err(StackError::TooLarge {
            size: bytes.len(),
            cap: MAX_MANIFEST_BYTES,
        });
    }
    super::text(bytes)
}

/// Splits `!pattern`s (npm and pnpm exclusions) from the others.
fn split_negated(patterns: Vec<String>) -> Declared {
    let mut d = Declared::default();
    for p in patterns {
        match p.strip_prefix('!') {
            Some(neg) => d.exclude.push(neg.to_owned()),
            None => d.include.push(p),
        }
    }
    d
}

fn package_json(text: &str) -> Result<Declared, StackError> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Workspaces {
        List(Vec<String>),
        Object { packages: Option<Vec<String>> },
    }
    #[derive(Deserialize)]
    struct PackageJson {
        workspaces: Option<Workspaces>,
    }
    depth::json(text, false)?;
    let p: PackageJson = serde_json::from_str(text).map_err(|e| StackError::Syntax {
        format: "JSON",
        detail: detail(e),
    })?;
    Ok(split_negated(match p.workspaces {
        None => Vec::new(),
        Some(Workspaces::List(v)) => v,
        Some(Workspaces::Object { packages }) => packages.unwrap_or_default(),
    }))
}

fn pnpm_workspace(text: &str) -> Result<Declared, StackError> {
    #[derive(Deserialize)]
    struct Workspace {
        packages: Option<Vec<String>>,
    }
    // An empty file is an empty document: no members.
    if text.trim().is_empty() {
        return Ok(Declared::default());
    }
    let w: Option<Workspace> = super::pnpm::from_yaml(text)?;
    Ok(split_negated(
        w.and_then(|w| w.packages).unwrap_or_default(),
    ))
}

fn toml_text<'a, T: Deserialize<'a>>(text: &'a str) -> Result<T, StackError> {
    depth::toml(text)?;
    toml::from_str(text).map_err(|e| super::toml_error(text, &e))
}

fn cargo_toml(text: &str) -> Result<Declared, StackError> {
    #[derive(Deserialize)]
    struct CargoToml {
        workspace: Option<Workspace>,
    }
    #[derive(Deserialize)]
    struct Workspace {
        #[serde(default)]
        members: Vec<String>,
        #[serde(default)]
        exclude: Vec<String>,
    }
    let c: CargoToml = toml_text(text)?;
    Ok(c.workspace.map_or_else(Declared::default, |w| Declared {
        include: w.members,
        exclude: w.exclude,
    }))
}

fn pyproject(text: &str) -> Result<Declared, StackError> {
    #[derive(Deserialize)]
    struct Pyproject {
        tool: Option<Tool>,
    }
    #[derive(Deserialize)]
    struct Tool {
        uv: Option<Uv>,
        poetry: Option<Poetry>,
    }
    #[derive(Deserialize)]
    struct Uv {
        workspace: Option<UvWorkspace>,
    }
    #[derive(Deserialize)]
    struct UvWorkspace {
        #[serde(default)]
        members: Vec<String>,
        #[serde(default)]
        exclude: Vec<String>,
    }
    #[derive(Deserialize)]
    struct Poetry {
        dependencies: Option<Deps>,
        #[serde(rename = "dev-dependencies")]
        dev_dependencies: Option<Deps>,
        group: Option<BTreeMap<String, Group>>,
    }
    #[derive(Deserialize)]
    struct Group {
        dependencies: Option<Deps>,
    }
    type Deps = BTreeMap<String, Dep>;
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Dep {
        Path { path: String },
        Other(serde::de::IgnoredAny),
    }
    let p: Pyproject = toml_text(text)?;
    let mut d = Declared::default();
    let Some(tool) = p.tool else { return Ok(d) };
    if let Some(w) = tool.uv.and_then(|u| u.workspace) {
        d.include.extend(w.members);
        d.exclude.extend(w.exclude);
    }
    if let Some(poetry) = tool.poetry {
        let groups = poetry
            .group
            .unwrap_or_default()
            .into_values()
            .filter_map(|g| g.dependencies);
        for deps in [poetry.dependencies, poetry.dev_dependencies]
            .into_iter()
            .flatten()
            .chain(groups)
        {
            for dep in deps.into_values() {
                if let Dep::Path { path } = dep {
                    d.include.push(globset::escape(&path));
                }
            }
        }
    }
    Ok(d)
}

/// `go.work`: `use DIR` lines and `use ( … )` blocks; `//` comments and
/// the other directives skipped. Paths may be quoted.
fn go_work(text: &str) -> Result<Declared, StackError> {
    let mut d = Declared::default();
    let mut in_use = false;
    for (i, raw) in text.lines().enumerate() {
        let line = raw.split("//").next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        let path = if in_use {
            if line == ")" {
                in_use = false;
                continue;
            }
            line
        } else if let Some(rest) = line.strip_prefix("use") {
            let rest = rest.trim();
            if rest == "(" {
                in_use = true;
                continue;
            }
            if rest.is_empty() || !line[3..].starts_with([' ', '\t']) {
                continue; // `user …`, not a `use` directive
            }
            rest
        } else {
            continue;
        };
        let quoted = [('"', '"'), ('`', '`')]
            .iter()
            .find_map(|&(a, b)| path.strip_prefix(a)?.strip_suffix(b));
        let path = quoted.unwrap_or(path);
        if path.is_empty() || (quoted.is_none() && path.contains(char::is_whitespace)) {
            return Err(StackError::Line {
                line: i + 1,
                why: "expected `use <directory>`".to_owned(),
            });
        }
        d.include.push(globset::escape(path));
    }
    Ok(d)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(m: Manifest, text: &str) -> Result<Declared, StackError> {
        m.parse(text.as_bytes())
    }

    fn inc(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| (*s).to_owned()).collect()
    }

    #[test]
    fn npm_yarn_and_bun_workspaces() {
        let d = parse(
            Manifest::PackageJson,
            r#"{"name": "x", "workspaces": ["packages/*", "apps/web", "!packages/old"]}"#,
        )
        .unwrap();
        assert_eq!(d.include, inc(&["packages/*", "apps/web"]));
        assert_eq!(d.exclude, inc(&["packages/old"]));
        let d = parse(
            Manifest::PackageJson,
            r#"{"workspaces": {"packages": ["libs/*"], "nohoist": ["**/x"]}}"#,
        )
        .unwrap();
        assert_eq!(d.include, inc(&["libs/*"]));
        assert_eq!(
            parse(Manifest::PackageJson, r#"{"name": "solo"}"#).unwrap(),
            Declared::default()
        );
        assert!(parse(Manifest::PackageJson, r#"{"workspaces": 3}"#)
            .unwrap_err()
            .to_string()
            .starts_with("invalid JSON: "));
    }

    #[test]
    fn pnpm_workspaces() {
        let d = parse(
            Manifest::PnpmWorkspace,
            "packages:\n  - 'packages/*'\n  - apps/**\n  - '!**/test/**'\ncatalog:\n  react: ^18\n",
        )
        .unwrap();
        assert_eq!(d.include, inc(&["packages/*", "apps/**"]));
        assert_eq!(d.exclude, inc(&["**/test/**"]));
        assert_eq!(
            parse(Manifest::PnpmWorkspace, "").unwrap(),
            Declared::default()
        );
        assert_eq!(
            parse(Manifest::PnpmWorkspace, "# nothing\n").unwrap(),
            Declared::default()
        );
        assert!(parse(Manifest::PnpmWorkspace, "packages: [\n")
            .unwrap_err()
            .to_string()
            .starts_with("invalid YAML: "));
    }

    #[test]
    fn cargo_uv_and_poetry() {
        let d = parse(
            Manifest::CargoToml,
            "[workspace]\nmembers = [\"crates/*\", \"tools/gen\"]\nexclude = [\"crates/legacy\"]\n",
        )
        .unwrap();
        assert_eq!(d.include, inc(&["crates/*", "tools/gen"]));
        assert_eq!(d.exclude, inc(&["crates/legacy"]));
        assert_eq!(
            parse(Manifest::CargoToml, "[package]\nname = \"x\"\n").unwrap(),
            Declared::default()
        );
        let d = parse(
            Manifest::Pyproject,
            "[project]\nname = \"x\"\n[tool.uv.workspace]\nmembers = [\"packages/*\"]\nexclude = [\"packages/seeds\"]\n",
        )
        .unwrap();
        assert_eq!(d.include, inc(&["packages/*"]));
        assert_eq!(d.exclude, inc(&["packages/seeds"]));
        let d = parse(
            Manifest::Pyproject,
            "[tool.poetry.dependencies]\npython = \"^3.11\"\ncore = {path = \"libs/core\", develop = true}\n\
             [tool.poetry.group.dev.dependencies]\ntools = {path = \"libs/[tools]\"}\npytest = \"^8\"\n",
        )
        .unwrap();
        assert_eq!(d.include, inc(&["libs/core", "libs/[[]tools[]]"]));
    }

    #[test]
    fn go_work_use_directives() {
        let d = parse(
            Manifest::GoWork,
            "go 1.22\n\nuse ./cmd/api // the API\nuse (\n\t./lib\n\t\"./quoted dir\"\n)\nreplace x => y v1\n",
        )
        .unwrap();
        assert_eq!(d.include, inc(&["./cmd/api", "./lib", "./quoted dir"]));
        assert_eq!(
            parse(Manifest::GoWork, "go 1.22\nuse (\n\t./a ./b\n)\n")
                .unwrap_err()
                .to_string(),
            "line 3: expected `use <directory>`"
        );
        let d = parse(
            Manifest::GoWork,
            "go 1.22\nuse (\n\t./lib\n\t.\n)\nuse ./cmd\n",
        )
        .unwrap();
        assert_eq!(d.include, inc(&["./lib", ".", "./cmd"]));
    }

    #[test]
    fn manifests_are_bounded() {
        let big = vec![b' '; MAX_MANIFEST_BYTES + 1];
        assert_eq!(
            Manifest::PackageJson.parse(&big),
            Err(StackError::TooLarge {
                size: MAX_MANIFEST_BYTES + 1,
                cap: MAX_MANIFEST_BYTES
            })
        );
        let deep = format!("{{\"workspaces\": {}{}}}", "[".repeat(100), "]".repeat(100));
        assert_eq!(
            parse(Manifest::PackageJson, &deep),
            Err(StackError::TooDeep {
                cap: super::super::MAX_DEPTH
            })
        );
        // 70: past our budget of 64, short of the toml crate's own 80, so
        // only our check can refuse it.
        let deep = format!(
            "[workspace]\nmembers = {}{}\n",
            "[".repeat(70),
            "]".repeat(70)
        );
        assert_eq!(
            parse(Manifest::CargoToml, &deep),
            Err(StackError::TooDeep {
                cap: super::super::MAX_DEPTH
            })
        );
        let deep = format!("packages: {}{}\n", "[".repeat(100), "]".repeat(100));
        let e = parse(Manifest::PnpmWorkspace, &deep);
        assert!(matches!(e, Err(StackError::TooDeep { .. })), "{e:?}");
        let many: Vec<String> = (0..=MAX_PATTERNS).map(|i| format!("\"p{i}\"")).collect();
        let text = format!("{{\"workspaces\": [{}]}}", many.join(","));
        assert_eq!(
            parse(Manifest::PackageJson, &text).unwrap_err().to_string(),
            format!("{} workspace member patterns, over the budget of {MAX_PATTERNS} for a lockfile or manifest", MAX_PATTERNS + 1)
        );
    }
}
