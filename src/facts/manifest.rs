//! The dependencies a manifest declares, and what changed between two
//! versions of one: the facts a commit's diff supplies.
//!
//! Manifests read (by file name, [`Kind::of_path`]):
//!
//! | file | sections |
//! |---|---|
//! | `package.json` | `dependencies`, `devDependencies`, `peerDependencies`, `optionalDependencies`, `engines`, `overrides`, `resolutions`, `pnpm.overrides`; the owner is `name`@`version` unless `private` |
//! | `Cargo.toml` | `[dependencies]`, `[dev-dependencies]`, `[build-dependencies]`, their `[target.*]` forms, `[workspace.dependencies]`, `[patch.*]`; `rust-version` as the engine `rust` |
//! | `pyproject.toml` | `project.dependencies`, `project.optional-dependencies`, `dependency-groups`, `requires-python` (engine `python`), `build-system.requires`, flit's `tool.flit.metadata` (`requires`, `requires-extra`, `requires-python`), `tool.poetry.*dependencies` (`python` as the engine) |
//! | `requirements*.txt` | every requirement line with a version specifier |
//! | `go.mod` | `require` (one line or a block), `replace`, `go` (engine `go`) |
//! | `Gemfile` | `gem 'name', 'req', …`, `ruby 'version'` (engine `ruby`) |
//!
//! Values that are not versions (`workspace:*`, `file:…`, `link:…`, git
//! and URL sources, `path = …` tables, even with a `version` beside the
//! path: the workspace's own crates) are left out: a lesson cannot be
//! scoped by them. npm aliases (`npm:real@^1.2`) are read as `real`.
//!
//! Bounded: a manifest over [`MAX_MANIFEST_BYTES`] is refused; values over
//! [`super::MAX_VERSION_CHARS`] and names over [`super::MAX_NAME_CHARS`]
//! are left out. Pure: the caller reads the blobs.

use std::collections::BTreeMap;

use serde_json::Value;

use super::{Change, Declarer, Section, Via};
use crate::version::Ecosystem;

/// The largest manifest read.
pub const MAX_MANIFEST_BYTES: usize = 1 << 20;

/// Why a manifest could not be read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ManifestError {
    #[error("{path}: {len} bytes is more than the {max} bytes a manifest may have")]
    TooLarge {
        path: String,
        len: usize,
        max: usize,
    },
    #[error("{path} is not UTF-8")]
    NotUtf8 { path: String },
    #[error("{path} is not valid {format}: {why}")]
    Malformed {
        path: String,
        format: &'static str,
        why: String,
    },
}

/// The kinds of manifest read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    PackageJson,
    CargoToml,
    PyProject,
    Requirements,
    GoMod,
    Gemfile,
}

impl Kind {
    /// The manifest kind of a path, by its file name.
    pub fn of_path(path: &str) -> Option<Kind> {
        let name = path.rsplit(['/', '\\']).next().unwrap_or(path);
        Some(match name {
            "package.json" => Kind::PackageJson,
            "Cargo.toml" => Kind::CargoToml,
            "pyproject.toml" => Kind::PyProject,
            "go.mod" => Kind::GoMod,
            "Gemfile" | "gems.rb" => Kind::Gemfile,
            n if n.starts_with("requirements") && n.ends_with(".txt") => Kind::Requirements,
            _ => return None,
        })
    }

    /// The ecosystem its packages belong to.
    pub fn ecosystem(self) -> Ecosystem {
        match self {
            Kind::PackageJson => Ecosystem::Npm,
            Kind::CargoToml => Ecosystem::Cargo,
            Kind::PyProject | Kind::Requirements => Ecosystem::PyPI,
            Kind::GoMod => Ecosystem::Go,
            Kind::Gemfile => Ecosystem::RubyGems,
        }
    }
}

/// What one manifest declares.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Manifest {
    /// The package it describes, when it names one and is publishable.
    pub owner: Option<Declarer>,
    /// Each declared requirement: (section, package) → range as written.
    pub deps: BTreeMap<(SectionKey, String), String>,
}

/// A [`Section`] usable as a map key.
pub type SectionKey = u8;

fn key(s: Section) -> SectionKey {
    match s {
        Section::Dependencies => 0,
        Section::Dev => 1,
        Section::Optional => 2,
        Section::Peer => 3,
        Section::Engines => 4,
        Section::Overrides => 5,
    }
}

fn section(k: SectionKey) -> Section {
    match k {
        0 => Section::Dependencies,
        1 => Section::Dev,
        2 => Section::Optional,
        3 => Section::Peer,
        4 => Section::Engines,
        _ => Section::Overrides,
    }
}

impl Manifest {
    fn add(&mut self, s: Section, name: &str, value: &str) {
        let name = name.trim();
        let value = value.trim();
        if super::plausible_name(name) && super::plausible_version(value) {
            self.deps
                .entry((key(s), name.to_owned()))
                .or_insert_with(|| value.to_owned());
        }
    }
}

/// Reads a manifest of `kind` from `bytes` (`path` names it in errors).
pub fn parse(kind: Kind, path: &str, bytes: &[u8]) -> Result<Manifest, ManifestError> {
    if bytes.len() > MAX_MANIFEST_BYTES {
        return Err(ManifestError::TooLarge {
            path: path.to_owned(),
            len: bytes.len(),
            max: MAX_MANIFEST_BYTES,
        });
    }
    let text = std::str::from_utf8(bytes).map_err(|_| ManifestError::NotUtf8 {
        path: path.to_owned(),
    })?;
    let malformed = |format: &'static str, why: String| ManifestError::Malformed {
        path: path.to_owned(),
        format,
        why: crate::schema::clip(&why, 200),
    };
    let mut m = Manifest::default();
    match kind {
        Kind::PackageJson => {
            let v: Value =
                serde_json::from_str(text).map_err(|e| malformed("JSON", e.to_string()))?;
            package_json(&v, &mut m);
        }
        Kind::CargoToml => {
            let v: toml::Table =
                toml::from_str(text).map_err(|e| malformed("TOML", e.to_string()))?;
            cargo_toml(&v, &mut m);
        }
        Kind::PyProject => {
            let v: toml::Table =
                toml::from_str(text).map_err(|e| malformed("TOML", e.to_string()))?;
            pyproject(&v, &mut m);
        }
        Kind::Requirements => {
            for line in text.lines() {
                requirement_line(line, Section::Dependencies, &mut m);
            }
        }
        Kind::GoMod => go_mod(text, &mut m),
        Kind::Gemfile => gemfile(text, &mut m),
    }
    Ok(m)
}

/// An npm dependency value as a version range, or `None` for a local,
/// git or URL source. An alias (`npm:real@^1`) gives the real name.
pub fn npm_value<'a>(name: &'a str, value: &'a str) -> Option<(&'a str, &'a str)> {
    let value = value.trim();
    if let Some(alias) = value.strip_prefix("npm:") {
        let at = alias.get(1..)?.find('@')? + 1;
        return Some((&alias[..at], &alias[at + 1..]));
    }
    let local = [
        "workspace:",
        "file:",
        "link:",
        "portal:",
        "patch:",
        "catalog:",
        "git",
        "http:",
        "https:",
        "github:",
    ];
    if local.iter().any(|p| value.starts_with(p))
        || value.contains("://")
        || value.contains('/') && !value.contains(' ')
    {
        return None;
    }
    Some((name, value))
}

fn npm_map(v: Option<&Value>, s: Section, m: &mut Manifest) {
    let Some(Value::Object(map)) = v else { return };
    for (name, value) in map {
        if let Value::String(value) = value {
            if let Some((name, value)) = npm_value(name, value) {
                m.add(s, name, value);
            }
        }
    }
}

/// The package an override key names: `**/foo` → `foo`, `foo@<2` → `foo`,
/// `a>b` → `b`, `@scope/pkg@1` → `@scope/pkg`.
fn override_target(key: &str) -> &str {
    let key = key.rsplit('>').next().unwrap_or(key);
    let key = key.rsplit("**/").next().unwrap_or(key);
    let key = match key.strip_prefix('@') {
        Some(rest) => match rest.find('@') {
            Some(at) => &key[..at + 1],
            None => key,
        },
        None => key.split('@').next().unwrap_or(key),
    };
    key.trim()
}

fn npm_overrides(v: Option<&Value>, m: &mut Manifest, depth: usize) {
    let Some(Value::Object(map)) = v else { return };
    for (k, value) in map {
        match value {
            Value::String(s) if !s.starts_with('$') => {
                if let Some((name, range)) = npm_value(override_target(k), s) {
                    m.add(Section::Overrides, name, range);
                }
            }
            // npm's nested form: {"foo": {".": "1.0", "bar": "2.0"}}.
            Value::Object(inner) if depth < 4 => {
                if let Some(Value::String(s)) = inner.get(".") {
                    if let Some((name, range)) = npm_value(override_target(k), s) {
                        m.add(Section::Overrides, name, range);
                    }
                }
                npm_overrides(Some(value), m, depth + 1);
            }
            _ => {}
        }
    }
}

fn package_json(v: &Value, m: &mut Manifest) {
    npm_map(v.get("dependencies"), Section::Dependencies, m);
    npm_map(v.get("devDependencies"), Section::Dev, m);
    npm_map(v.get("peerDependencies"), Section::Peer, m);
    npm_map(v.get("optionalDependencies"), Section::Optional, m);
    npm_map(v.get("engines"), Section::Engines, m);
    npm_overrides(v.get("overrides"), m, 0);
    npm_overrides(v.get("resolutions"), m, 0);
    npm_overrides(v.get("pnpm").and_then(|p| p.get("overrides")), m, 0);
    let private = v.get("private").and_then(Value::as_bool).unwrap_or(false);
    if let (false, Some(Value::String(name))) = (private, v.get("name")) {
        if super::plausible_name(name) {
            m.owner = Some(Declarer {
                name: name.clone(),
                version: v
                    .get("version")
                    .and_then(Value::as_str)
                    .filter(|s| super::plausible_version(s))
                    .map(str::to_owned),
                from_on: false,
            });
        }
    }
}

fn toml_version(v: &toml::Value) -> Option<&str> {
    match v {
        toml::Value::String(s) => Some(s),
        toml::Value::Table(t) => t.get("version").and_then(toml::Value::as_str),
        _ => None,
    }
}

fn cargo_deps(t: Option<&toml::Value>, s: Section, m: &mut Manifest) {
    let Some(toml::Value::Table(t)) = t else {
        return;
    };
    for (name, v) in t {
        // A path dependency is the workspace's own crate: its version moves
        // with every release, which is no lesson.
        if matches!(v, toml::Value::Table(d) if d.contains_key("path")) {
            continue;
        }
        // A renamed dependency names its real crate in `package`.
        let real = match v {
            toml::Value::Table(d) => d
                .get("package")
                .and_then(toml::Value::as_str)
                .unwrap_or(name),
            _ => name,
        };
        if let Some(range) = toml_version(v) {
            m.add(s, real, range);
        }
    }
}

fn cargo_toml(t: &toml::Table, m: &mut Manifest) {
    let all = |table: &toml::Table, m: &mut Manifest| {
        cargo_deps(table.get("dependencies"), Section::Dependencies, m);
        cargo_deps(table.get("dev-dependencies"), Section::Dev, m);
        cargo_deps(table.get("build-dependencies"), Section::Dev, m);
    };
    all(t, m);
    if let Some(toml::Value::Table(targets)) = t.get("target") {
        for v in targets.values() {
            if let toml::Value::Table(target) = v {
                all(target, m);
            }
        }
    }
    let workspace = t.get("workspace").and_then(toml::Value::as_table);
    if let Some(w) = workspace {
        cargo_deps(w.get("dependencies"), Section::Dependencies, m);
    }
    if let Some(toml::Value::Table(patches)) = t.get("patch") {
        for v in patches.values() {
            cargo_deps(Some(v), Section::Overrides, m);
        }
    }
    let package = t.get("package").and_then(toml::Value::as_table);
    let rust = package
        .and_then(|p| p.get("rust-version"))
        .and_then(toml::Value::as_str)
        .or_else(|| {
            workspace
                .and_then(|w| w.get("package"))
                .and_then(|p| p.get("rust-version"))
                .and_then(toml::Value::as_str)
        });
    if let Some(r) = rust {
        m.add(Section::Engines, "rust", &format!(">={r}"));
    }
    if let Some(p) = package {
        let publish = !matches!(p.get("publish"), Some(toml::Value::Boolean(false)));
        if let (true, Some(name)) = (publish, p.get("name").and_then(toml::Value::as_str)) {
            m.owner = Some(Declarer {
                name: name.to_owned(),
                version: p
                    .get("version")
                    .and_then(toml::Value::as_str)
                    .map(str::to_owned),
                from_on: false,
            });
        }
    }
}

/// One PEP 508 requirement (`requests[socks]>=2.31,<3 ; python_version >=
/// "3.8"`) or requirements-file line: its name and specifier, if it has one.
fn requirement_line(line: &str, s: Section, m: &mut Manifest) {
    let line = line.split(" #").next().unwrap_or(line);
    let line = line.split(';').next().unwrap_or(line);
    // Per-requirement options (`--hash=…`) are not part of the specifier.
    let line = line.split(" -").next().unwrap_or(line).trim();
    if line.is_empty() || line.starts_with(['#', '-']) || line.contains("://") {
        return;
    }
    let end = line
        .find(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-')))
        .unwrap_or(line.len());
    let (name, mut rest) = line.split_at(end);
    rest = rest.trim_start();
    if rest.starts_with('[') {
        rest = rest.split_once(']').map_or("", |(_, r)| r).trim_start();
    }
    // `name (>=1.0)` is the older parenthesised form.
    let spec = rest.trim_start_matches('(').trim_end_matches(')').trim();
    if spec.starts_with(['=', '<', '>', '~', '!']) {
        m.add(s, name, spec);
    }
}

fn poetry_deps(t: Option<&toml::Value>, s: Section, m: &mut Manifest) {
    let Some(toml::Value::Table(t)) = t else {
        return;
    };
    for (name, v) in t {
        if let Some(range) = toml_version(v) {
            if name == "python" {
                m.add(Section::Engines, "python", range);
            } else {
                m.add(s, name, range);
            }
        }
    }
}

/// PEP 508 lines in a TOML array (`["requests>=2.31,<3", …]`).
fn requirement_list(v: Option<&toml::Value>, s: Section, m: &mut Manifest) {
    for d in v
        .and_then(toml::Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(toml::Value::as_str)
    {
        requirement_line(d, s, m);
    }
}

/// PEP 508 lines in a table of arrays (extras, dependency groups).
fn requirement_groups(v: Option<&toml::Value>, s: Section, m: &mut Manifest) {
    for list in v
        .and_then(toml::Value::as_table)
        .into_iter()
        .flat_map(|t| t.values())
    {
        requirement_list(Some(list), s, m);
    }
}

/// A package's metadata table: PEP 621's `[project]` (`dependencies`,
/// `optional-dependencies`) or, before it, flit's `[tool.flit.metadata]`
/// (`requires`, `requires-extra`); both say `requires-python`.
fn python_metadata(p: &toml::Table, deps: &str, extras: &str, m: &mut Manifest) {
    requirement_list(p.get(deps), Section::Dependencies, m);
    requirement_groups(p.get(extras), Section::Optional, m);
    if let Some(r) = p.get("requires-python").and_then(toml::Value::as_str) {
        m.add(Section::Engines, "python", r);
    }
}

fn pyproject(t: &toml::Table, m: &mut Manifest) {
    if let Some(p) = t.get("project").and_then(toml::Value::as_table) {
        python_metadata(p, "dependencies", "optional-dependencies", m);
        if let Some(name) = p.get("name").and_then(toml::Value::as_str) {
            m.owner = Some(Declarer {
                name: name.to_owned(),
                version: p
                    .get("version")
                    .and_then(toml::Value::as_str)
                    .map(str::to_owned),
                from_on: false,
            });
        }
    }
    // Build requirements: what building the package needs
    // (`hatchling >= 1.13.0`).
    requirement_list(
        t.get("build-system").and_then(|b| b.get("requires")),
        Section::Dev,
        m,
    );
    if let Some(f) = t
        .get("tool")
        .and_then(|t| t.get("flit"))
        .and_then(|f| f.get("metadata"))
        .and_then(toml::Value::as_table)
    {
        python_metadata(f, "requires", "requires-extra", m);
        if m.owner.is_none() {
            if let Some(name) = f
                .get("dist-name")
                .or_else(|| f.get("module"))
                .and_then(toml::Value::as_str)
            {
                m.owner = Some(Declarer {
                    name: name.to_owned(),
                    version: None,
                    from_on: false,
                });
            }
        }
    }
    requirement_groups(t.get("dependency-groups"), Section::Dev, m);
    let poetry = t
        .get("tool")
        .and_then(|t| t.get("poetry"))
        .and_then(toml::Value::as_table);
    if let Some(p) = poetry {
        poetry_deps(p.get("dependencies"), Section::Dependencies, m);
        poetry_deps(p.get("dev-dependencies"), Section::Dev, m);
        if let Some(toml::Value::Table(groups)) = p.get("group") {
            for g in groups.values() {
                poetry_deps(g.get("dependencies"), Section::Dev, m);
            }
        }
        if m.owner.is_none() {
            if let Some(name) = p.get("name").and_then(toml::Value::as_str) {
                m.owner = Some(Declarer {
                    name: name.to_owned(),
                    version: p
                        .get("version")
                        .and_then(toml::Value::as_str)
                        .map(str::to_owned),
                    from_on: false,
                });
            }
        }
    }
}

fn go_mod(text: &str, m: &mut Manifest) {
    let mut block: Option<&str> = None;
    for raw in text.lines() {
        let line = raw.split("//").next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        if line == ")" {
            block = None;
            continue;
        }
        let (verb, rest) = match block {
            Some(b) => (b, line),
            None => {
                let (verb, rest) = line.split_once(char::is_whitespace).unwrap_or((line, ""));
                let rest = rest.trim();
                if rest == "(" {
                    block = Some(match verb {
                        "require" => "require",
                        "replace" => "replace",
                        _ => "other",
                    });
                    continue;
                }
                (verb, rest)
            }
        };
        match verb {
            "module" => {
                m.owner = Some(Declarer {
                    name: rest.to_owned(),
                    version: None,
                    from_on: false,
                })
            }
            "go" => m.add(Section::Engines, "go", &format!(">={rest}")),
            "require" => {
                let mut it = rest.split_whitespace();
                if let (Some(path), Some(v)) = (it.next(), it.next()) {
                    m.add(Section::Dependencies, path, v);
                }
            }
            "replace" => {
                if let Some((from, to)) = rest.split_once("=>") {
                    let from = from.split_whitespace().next().unwrap_or("");
                    let mut to = to.split_whitespace();
                    if let (Some(_), Some(v)) = (to.next(), to.next()) {
                        m.add(Section::Overrides, from, v);
                    }
                }
            }
            _ => {}
        }
    }
}

/// The quoted strings of a Gemfile line, in order.
fn quoted(line: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut rest = line;
    while let Some(start) = rest.find(['\'', '"']) {
        let q = rest.as_bytes()[start] as char;
        let after = &rest[start + 1..];
        let Some(end) = after.find(q) else { break };
        out.push(&after[..end]);
        rest = &after[end + 1..];
    }
    out
}

fn gemfile(text: &str, m: &mut Manifest) {
    for raw in text.lines() {
        let line = raw.split('#').next().unwrap_or("").trim();
        if let Some(rest) = line.strip_prefix("gem ") {
            // Only the leading quoted arguments: the name, then requirements.
            let head = rest.split(':').next().unwrap_or(rest);
            let q = quoted(head);
            if let Some((name, reqs)) = q.split_first() {
                if !reqs.is_empty() {
                    m.add(Section::Dependencies, name, &reqs.join(", "));
                }
            }
        } else if let Some(rest) = line.strip_prefix("ruby ") {
            if let Some(v) = quoted(rest).first() {
                let v = if v.starts_with(|c: char| c.is_ascii_digit()) {
                    format!(">= {v}")
                } else {
                    (*v).to_owned()
                };
                m.add(Section::Engines, "ruby", &v);
            }
        }
    }
}

/// The package a manifest declares, as its changes are scoped: the new
/// side's, else the old side's. When the manifest's own version moved in
/// the same change, what changed ships with the new version, so the
/// releases concerned are that version on (`from_on`); when it moved down
/// (a history restarted at `0.0.1`, say), which releases have the change
/// cannot be said, and the version is left out.
fn changed_owner(old: Option<&Declarer>, new: Option<&Declarer>) -> Option<Declarer> {
    use crate::version::declared::release_point;
    let (Some(o), Some(n)) = (old, new) else {
        return new.or(old).cloned();
    };
    let point = |d: &Declarer| d.version.as_deref().and_then(release_point);
    match (point(o), point(n)) {
        (Some(a), Some(b)) if o.name == n.name && b.compare(&a).is_ne() => Some(Declarer {
            version: n.version.clone().filter(|_| b.compare(&a).is_gt()),
            from_on: b.compare(&a).is_gt(),
            ..n.clone()
        }),
        _ => Some(n.clone()),
    }
}

/// What changed between `old` and `new` (either absent: the file was added
/// or removed), as [`Change`]s in section and package order.
pub fn diff(kind: Kind, path: &str, old: Option<&Manifest>, new: Option<&Manifest>) -> Vec<Change> {
    let empty = Manifest::default();
    let (o, n) = (old.unwrap_or(&empty), new.unwrap_or(&empty));
    let owner = changed_owner(o.owner.as_ref(), n.owner.as_ref());
    let mut out = Vec::new();
    let keys: std::collections::BTreeSet<&(SectionKey, String)> =
        o.deps.keys().chain(n.deps.keys()).collect();
    for k in keys {
        let (from, to) = (o.deps.get(k), n.deps.get(k));
        if from == to {
            continue;
        }
        let s = section(k.0);
        let quote = format!(
            "{path} {}: {} {} -> {}",
            section_name(kind, s),
            k.1,
            from.map_or("(none)", String::as_str),
            to.map_or("(none)", String::as_str)
        );
        out.push(Change {
            ecosystem: kind.ecosystem(),
            via: Via::Manifest,
            section: Some(s),
            file: Some(path.to_owned()),
            owner: owner.clone(),
            package: k.1.clone(),
            from: from.cloned(),
            to: to.cloned(),
            quote: super::clip(&quote, super::MAX_QUOTE_CHARS),
            repo: None,
        });
    }
    out
}

/// Keys of a package.json that are never dependencies.
const NOT_DEPENDENCIES: &[&str] = &[
    "name",
    "version",
    "description",
    "main",
    "module",
    "types",
    "typings",
    "license",
    "type",
    "packageManager",
    "author",
    "homepage",
    "private",
    "browser",
    "bin",
    "files",
    "sideEffects",
];

/// The `name → requirement` pairs a fragment of a manifest holds: what an
/// editor's replaced or replacing text says, without the rest of the file.
fn fragment_pairs(kind: Kind, text: &str) -> BTreeMap<String, String> {
    let mut m = Manifest::default();
    match kind {
        Kind::PackageJson => {
            static RE: std::sync::OnceLock<Option<regex::Regex>> = std::sync::OnceLock::new();
            let Some(re) = RE
                .get_or_init(|| {
                    regex::Regex::new(r#""(?P<n>[^"\\]{1,214})"\s*:\s*"(?P<v>[^"\\]{1,128})""#).ok()
                })
                .as_ref()
            else {
                return BTreeMap::new();
            };
            for c in re.captures_iter(text) {
                let (n, v) = (&c["n"], &c["v"]);
                if NOT_DEPENDENCIES.contains(&n) {
                    continue;
                }
                if let Some((name, range)) = npm_value(n, v) {
                    // Only what reads as a version requirement: scripts and
                    // other strings are not dependencies.
                    let starts = range
                        .trim_start()
                        .starts_with(|c: char| c.is_ascii_digit() || "^~<>=*vxX".contains(c));
                    if starts
                        && crate::version::declared::Declared::parse(Ecosystem::Npm, range).is_ok()
                    {
                        m.add(Section::Dependencies, name, range);
                    }
                }
            }
        }
        Kind::CargoToml | Kind::PyProject => {
            static RE: std::sync::OnceLock<Option<regex::Regex>> = std::sync::OnceLock::new();
            let Some(re) = RE
                .get_or_init(|| {
                    regex::Regex::new(r#"(?m)^\s*(?P<n>[A-Za-z0-9][A-Za-z0-9_.\-]*)\s*=\s*(?:"(?P<v>[^"]+)"|\{[^}\n]*\bversion\s*=\s*"(?P<w>[^"]+)")"#).ok()
                })
                .as_ref()
            else {
                return BTreeMap::new();
            };
            for c in re.captures_iter(text) {
                let n = &c["n"];
                if matches!(
                    n,
                    "name"
                        | "version"
                        | "edition"
                        | "description"
                        | "license"
                        | "readme"
                        | "authors"
                ) {
                    continue;
                }
                if let Some(v) = c.name("v").or_else(|| c.name("w")) {
                    m.add(Section::Dependencies, n, v.as_str());
                }
            }
            if kind == Kind::PyProject {
                for quoted in text.split('"').skip(1).step_by(2) {
                    requirement_line(quoted, Section::Dependencies, &mut m);
                }
            }
        }
        Kind::Requirements => {
            for line in text.lines() {
                requirement_line(line, Section::Dependencies, &mut m);
            }
        }
        Kind::GoMod => {
            for line in text.lines() {
                let line = line.split("//").next().unwrap_or("").trim();
                let line = line.strip_prefix("require").map_or(line, str::trim);
                let mut it = line.split_whitespace();
                if let (Some(path), Some(v)) = (it.next(), it.next()) {
                    if v.starts_with('v') && path.contains('.') {
                        m.add(Section::Dependencies, path, v);
                    }
                }
            }
        }
        Kind::Gemfile => gemfile(text, &mut m),
    }
    m.deps.into_iter().map(|((_, n), v)| (n, v)).collect()
}

/// What an edit of a manifest changed: each package whose requirement the
/// replacing text gives differently from the replaced text (absent from
/// the replaced text: added).
pub fn edit_changes(path: &str, old: &str, new: &str) -> Vec<Change> {
    let Some(kind) = Kind::of_path(path) else {
        return Vec::new();
    };
    let (o, n) = (fragment_pairs(kind, old), fragment_pairs(kind, new));
    let mut out = Vec::new();
    for (name, to) in &n {
        let from = o.get(name);
        if from == Some(to) {
            continue;
        }
        let quote = format!(
            "edited {path}: {name} {} -> {to}",
            from.map_or("(none)", String::as_str)
        );
        out.push(Change {
            ecosystem: kind.ecosystem(),
            via: Via::Manifest,
            section: None,
            file: Some(path.to_owned()),
            owner: None,
            package: name.clone(),
            from: from.cloned(),
            to: Some(to.clone()),
            quote: super::clip(&quote, super::MAX_QUOTE_CHARS),
            repo: None,
        });
    }
    out
}

/// The section's name as the manifest spells it, for quotes.
pub fn section_name(kind: Kind, s: Section) -> &'static str {
    match (kind, s) {
        (Kind::PackageJson, Section::Dependencies) => "dependencies",
        (Kind::PackageJson, Section::Dev) => "devDependencies",
        (Kind::PackageJson, Section::Optional) => "optionalDependencies",
        (Kind::PackageJson, Section::Peer) => "peerDependencies",
        (Kind::PackageJson, Section::Engines) => "engines",
        (Kind::PackageJson, Section::Overrides) => "overrides",
        (Kind::CargoToml, Section::Dev) => "dev-dependencies",
        (Kind::CargoToml, Section::Engines) => "rust-version",
        (Kind::CargoToml, Section::Overrides) => "patch",
        (Kind::PyProject, Section::Engines) => "requires-python",
        (Kind::PyProject, Section::Optional) => "optional-dependencies",
        (Kind::PyProject, Section::Dev) => "dependency-groups",
        (Kind::GoMod, Section::Engines) => "go",
        (Kind::GoMod, Section::Overrides) => "replace",
        (Kind::GoMod, _) => "require",
        (Kind::Gemfile, Section::Engines) => "ruby",
        (Kind::Gemfile, _) => "gem",
        _ => "dependencies",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn changes(
        kind: Kind,
        path: &str,
        old: &str,
        new: &str,
    ) -> Vec<(Section, String, Option<String>, Option<String>)> {
        let o = parse(kind, path, old.as_bytes()).unwrap();
        let n = parse(kind, path, new.as_bytes()).unwrap();
        diff(kind, path, Some(&o), Some(&n))
            .into_iter()
            .map(|c| (c.section.unwrap(), c.package, c.from, c.to))
            .collect()
    }

    fn ch(
        s: Section,
        p: &str,
        from: Option<&str>,
        to: Option<&str>,
    ) -> (Section, String, Option<String>, Option<String>) {
        (s, p.into(), from.map(Into::into), to.map(Into::into))
    }

    #[test]
    fn package_json_sections_owner_and_non_versions() {
        let old = r#"{"name":"vite-plugin-x","version":"1.4.0","peerDependencies":{"vite":"^6.0.0 || ^7.0.0"},
            "engines":{"node":"^18.0.0 || >=20.0.0"},"dependencies":{"esbuild":"^0.24.0","local":"workspace:*"},
            "devDependencies":{"alias":"npm:real-pkg@^1.2.0"}}"#;
        let new = r#"{"name":"vite-plugin-x","version":"1.4.0","peerDependencies":{"vite":"^6.4.0 || ^7.0.0"},
            "engines":{"node":"^20.19.0 || >=22.12.0"},"dependencies":{"esbuild":"0.24.0","local":"workspace:^"},
            "devDependencies":{"alias":"npm:real-pkg@^1.3.0"},"pnpm":{"overrides":{"foo@<2>bar":"2.0.1"}}}"#;
        assert_eq!(
            changes(Kind::PackageJson, "package.json", old, new),
            [
                ch(
                    Section::Dependencies,
                    "esbuild",
                    Some("^0.24.0"),
                    Some("0.24.0")
                ),
                ch(Section::Dev, "real-pkg", Some("^1.2.0"), Some("^1.3.0")),
                ch(
                    Section::Peer,
                    "vite",
                    Some("^6.0.0 || ^7.0.0"),
                    Some("^6.4.0 || ^7.0.0")
                ),
                ch(
                    Section::Engines,
                    "node",
                    Some("^18.0.0 || >=20.0.0"),
                    Some("^20.19.0 || >=22.12.0")
                ),
                ch(Section::Overrides, "bar", None, Some("2.0.1")),
            ]
        );
        let m = parse(Kind::PackageJson, "package.json", new.as_bytes()).unwrap();
        assert_eq!(m.owner.unwrap().name, "vite-plugin-x");
        let private = parse(Kind::PackageJson, "p", br#"{"name":"app","private":true}"#).unwrap();
        assert_eq!(private.owner, None);
    }

    #[test]
    fn override_keys_name_their_package() {
        assert_eq!(override_target("**/foo"), "foo");
        assert_eq!(override_target("foo@<2"), "foo");
        assert_eq!(override_target("a>b"), "b");
        assert_eq!(override_target("@scope/pkg@1"), "@scope/pkg");
        assert_eq!(override_target("@scope/pkg"), "@scope/pkg");
    }

    #[test]
    fn cargo_toml_sections() {
        let old = "[package]\nname = \"tool\"\nversion = \"0.3.0\"\nrust-version = \"1.70\"\n[dependencies]\nserde = \"1.0.150\"\nclap = { version = \"4.4\", features = [\"derive\"] }\nlocal = { path = \"../local\" }\n";
        let new = "[package]\nname = \"tool\"\nversion = \"0.3.0\"\nrust-version = \"1.74\"\n[dependencies]\nserde = \"=1.0.150\"\nclap = { version = \"4.5\", features = [\"derive\"] }\nlocal = { path = \"../local\" }\n[target.'cfg(unix)'.dev-dependencies]\nlibc = \"0.2\"\n";
        assert_eq!(
            changes(Kind::CargoToml, "Cargo.toml", old, new),
            [
                ch(Section::Dependencies, "clap", Some("4.4"), Some("4.5")),
                ch(
                    Section::Dependencies,
                    "serde",
                    Some("1.0.150"),
                    Some("=1.0.150")
                ),
                ch(Section::Dev, "libc", None, Some("0.2")),
                ch(Section::Engines, "rust", Some(">=1.70"), Some(">=1.74")),
            ]
        );
    }

    #[test]
    fn flit_metadata_and_build_requirements() {
        // fastapi/fastapi's pyproject.toml before PEP 621 (flit), e.g. at
        // cf5e67590a and 3cbfae16cf.
        let old = "[build-system]\nrequires = [\"flit\"]\n[tool.flit.metadata]\nmodule = \"fastapi\"\nrequires = [\"starlette ==0.13.6\"]\nrequires-python = \">=3.6\"\n[tool.flit.metadata.requires-extra]\nall = [\"ujson >=4.0.1,<6.0.0\"]\n";
        let new = "[build-system]\nrequires = [\"flit >=3.2\"]\n[tool.flit.metadata]\nmodule = \"fastapi\"\nrequires = [\"starlette ==0.14.2\"]\nrequires-python = \">=3.6.1\"\n[tool.flit.metadata.requires-extra]\nall = [\"ujson >=4.0.1,!=4.0.2,<6.0.0\"]\n";
        let m = parse(Kind::PyProject, "pyproject.toml", new.as_bytes()).unwrap();
        assert_eq!(m.owner.as_ref().map(|o| o.name.as_str()), Some("fastapi"));
        assert_eq!(
            changes(Kind::PyProject, "pyproject.toml", old, new),
            [
                ch(
                    Section::Dependencies,
                    "starlette",
                    Some("==0.13.6"),
                    Some("==0.14.2")
                ),
                ch(Section::Dev, "flit", None, Some(">=3.2")),
                ch(
                    Section::Optional,
                    "ujson",
                    Some(">=4.0.1,<6.0.0"),
                    Some(">=4.0.1,!=4.0.2,<6.0.0")
                ),
                ch(Section::Engines, "python", Some(">=3.6"), Some(">=3.6.1")),
            ]
        );
    }

    #[test]
    fn pyproject_requirements_go_and_gemfile() {
        let old = "[project]\nname = \"app\"\nrequires-python = \">=3.8\"\ndependencies = [\"requests>=2.31,<3\", \"urllib3 (<2)\", \"rich[jupyter]>=13 ; python_version >= '3.9'\"]\n";
        let new = "[project]\nname = \"app\"\nrequires-python = \">=3.9\"\ndependencies = [\"requests>=2.32,<3\", \"urllib3 (<1.27)\", \"rich[jupyter]>=13 ; python_version >= '3.9'\"]\n";
        assert_eq!(
            changes(Kind::PyProject, "pyproject.toml", old, new),
            [
                ch(
                    Section::Dependencies,
                    "requests",
                    Some(">=2.31,<3"),
                    Some(">=2.32,<3")
                ),
                ch(Section::Dependencies, "urllib3", Some("<2"), Some("<1.27")),
                ch(Section::Engines, "python", Some(">=3.8"), Some(">=3.9")),
            ]
        );
        let poetry = "[tool.poetry]\nname = \"x\"\n[tool.poetry.dependencies]\npython = \"^3.9\"\npydantic = \"^1.10\"\n";
        let poetry2 = "[tool.poetry]\nname = \"x\"\n[tool.poetry.dependencies]\npython = \"^3.9\"\npydantic = \"<2\"\n";
        assert_eq!(
            changes(Kind::PyProject, "pyproject.toml", poetry, poetry2),
            [ch(
                Section::Dependencies,
                "pydantic",
                Some("^1.10"),
                Some("<2")
            )]
        );
        assert_eq!(
            changes(
                Kind::Requirements,
                "requirements.txt",
                "Django==4.2.10\n# c\n-r base.txt\nflask\n",
                "Django==4.2.11 --hash=sha256:abc\nflask\n"
            ),
            [ch(
                Section::Dependencies,
                "Django",
                Some("==4.2.10"),
                Some("==4.2.11")
            )]
        );
        let go_old = "module example.com/app\n\ngo 1.21\n\nrequire (\n\tgithub.com/spf13/cobra v1.7.0\n\tgolang.org/x/net v0.17.0 // indirect\n)\n";
        let go_new = "module example.com/app\n\ngo 1.22\n\nrequire (\n\tgithub.com/spf13/cobra v1.8.0\n\tgolang.org/x/net v0.17.0 // indirect\n)\nreplace golang.org/x/net => golang.org/x/net v0.16.0\n";
        assert_eq!(
            changes(Kind::GoMod, "go.mod", go_old, go_new),
            [
                ch(
                    Section::Dependencies,
                    "github.com/spf13/cobra",
                    Some("v1.7.0"),
                    Some("v1.8.0")
                ),
                ch(Section::Engines, "go", Some(">=1.21"), Some(">=1.22")),
                ch(
                    Section::Overrides,
                    "golang.org/x/net",
                    None,
                    Some("v0.16.0")
                ),
            ]
        );
        assert_eq!(
            changes(
                Kind::Gemfile,
                "Gemfile",
                "ruby '3.1.0'\ngem 'rails', '~> 7.0.0'\ngem \"pg\"\n",
                "ruby '3.2.0'\ngem 'rails', '~> 7.1', '>= 7.1.2'\ngem \"pg\"\n"
            ),
            [
                ch(
                    Section::Dependencies,
                    "rails",
                    Some("~> 7.0.0"),
                    Some("~> 7.1, >= 7.1.2")
                ),
                ch(Section::Engines, "ruby", Some(">= 3.1.0"), Some(">= 3.2.0")),
            ]
        );
    }

    #[test]
    fn edits_of_fragments() {
        let c = edit_changes(
            "/home/dev/acme-web/package.json",
            "\"vitest\": \"^4.0.5\",\n    \"@vitest/coverage-v8\": \"^4.0.5\"",
            "\"vitest\": \"3.2.4\",\n    \"@vitest/coverage-v8\": \"3.2.4\"",
        );
        let seen: Vec<_> = c
            .iter()
            .map(|c| (c.package.as_str(), c.from.as_deref(), c.to.as_deref()))
            .collect();
        assert_eq!(
            seen,
            [
                ("@vitest/coverage-v8", Some("^4.0.5"), Some("3.2.4")),
                ("vitest", Some("^4.0.5"), Some("3.2.4"))
            ]
        );
        // Scripts are not dependencies.
        assert_eq!(
            edit_changes(
                "package.json",
                "",
                "\"start\": \"node server.js --port 3000\", \"version\": \"1.2.3\""
            ),
            []
        );
        let c = edit_changes(
            "Cargo.toml",
            "serde = \"1.0.190\"\n",
            "serde = { version = \"=1.0.150\", features = [\"derive\"] }\n",
        );
        assert_eq!(c[0].to.as_deref(), Some("=1.0.150"));
        let c = edit_changes("requirements.txt", "urllib3==2.0.0\n", "urllib3==1.26.18\n");
        assert_eq!(c[0].from.as_deref(), Some("==2.0.0"));
        let c = edit_changes(
            "go.mod",
            "\tgithub.com/x/y v1.5.0\n",
            "\tgithub.com/x/y v1.4.0\n",
        );
        assert_eq!(c[0].package, "github.com/x/y");
        assert_eq!(edit_changes("notes.md", "a", "b"), []);
    }

    #[test]
    fn bad_manifests_are_refused_with_their_path() {
        assert_eq!(
            parse(Kind::PackageJson, "pkg/package.json", b"{nope")
                .unwrap_err()
                .to_string(),
            "pkg/package.json is not valid JSON: key must be a string at line 1 column 2"
        );
        let big = vec![b' '; MAX_MANIFEST_BYTES + 1];
        assert!(matches!(
            parse(Kind::GoMod, "go.mod", &big),
            Err(ManifestError::TooLarge { .. })
        ));
        assert!(matches!(
            parse(Kind::Gemfile, "Gemfile", b"\xff"),
            Err(ManifestError::NotUtf8 { .. })
        ));
        assert_eq!(
            Kind::of_path("a/b/requirements-dev.txt"),
            Some(Kind::Requirements)
        );
        assert_eq!(Kind::of_path("package-lock.json"), None);
    }
}
