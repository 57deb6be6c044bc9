//! Resolver and installer errors in tool output, read as [`Requirement`]s:
//! who declared what range of which package, and what was found instead.
//!
//! Every edge the tool prints is read, not only the one that failed: the
//! project's own requirements (`by: None`), the chain that led to the
//! conflict, and the conflicting declaration. [`super::lesson`] picks the
//! ones a lesson is about (a requirement the found version does not
//! satisfy).
//!
//! | tool | forms read |
//! |---|---|
//! | npm | `ERESOLVE` with the `npm ERR! ` (npm ≤ 9) and `npm error ` (npm ≥ 10) prefixes and the resolution error report (`eresolve-report.txt`): `Found: x@v`, `[peer\|dev\|…] x@"range" from y@v \| the root project`; `EBADENGINE` blocks (one and several lines) |
//! | pnpm | the peer tree: `└─┬ dep [v]` and `✕ unmet peer x@range: found v` / `✕ missing peer x@range` |
//! | yarn | v1 `"… > dep@v" has unmet\|incorrect peer dependency "x@range"`, the `The engine "node" is incompatible … Expected version "r". Got "v"` error; berry `YN0060` in both wordings |
//! | bun | `incorrect peer dependency "x@v"`: no range and no declarer, so no requirement |
//! | pip | `The conflict is caused by:` (`The user requested x==v`, `dep v depends on x<spec>`), and `dep v requires\|has requirement x<spec>, but you'll have x v` |
//! | uv | `Because dep==v depends on x<spec> and you require\|your project depends on x<spec> …` clauses, `Python<spec>` as the runtime |
//! | poetry | `dep (v) depends on x (spec)`, `depends on both x (s) and y (s)`, `requires Python spec`, `The current project's Python requirement (spec)` |
//! | cargo | `failed to select a version for the requirement `x = "spec"`` / `for `x``, `required by package `dep vV``, the `... which satisfies dependency `x = "spec"` of package `dep vV`` chain, `versions that meet the requirements `spec``, `previously selected package `x vV``; `package `x vV` cannot be built because it requires rustc R or newer, while the currently active rustc version is V` |
//! | go | `go: mod@v requires go >= R (running go V …)`, `go: go.mod requires go >= R (running go V …)`, `go.mod file indicates go R, but maximum version supported by tidy is V`, `note: module requires Go R` |
//! | bundler | `Bundler could not find compatible versions for gem "x":` with `dep (req) was resolved to v, which depends on` / `dep (req) depends on` and the next line `x (req)`, and `Current Bundler version: bundler (v)` |
//!
//! Runtimes are named as in [`super::prose::canonical`]: `node`, `python`
//! (pip's, uv's and poetry's `Python`), `go`, `rust` (cargo's `rustc`),
//! `ruby`; the package managers `npm`, `yarn` and `bundler` keep their
//! names. The project itself is `by: None`.
//!
//! Bounded: at most [`MAX_LINES`] lines and [`super::MAX_FACTS`]
//! requirements; each line is matched by linear regular expressions.

use std::collections::HashMap;
use std::sync::OnceLock;

use regex::Regex;

use super::{clip, Declarer, Requirement, RequirementKind, MAX_QUOTE_CHARS};
use crate::version::Ecosystem;

/// The most lines of one tool output read.
pub const MAX_LINES: usize = 20_000;

struct P {
    npm_edge: Regex,
    npm_found: Regex,
    engine_key: Regex,
    pnpm_node: Regex,
    pnpm_peer: Regex,
    yarn_v1_peer: Regex,
    yarn_engine: Regex,
    yarn_berry_listed: Regex,
    yarn_berry_provides: Regex,
    pip_user: Regex,
    pip_depends: Regex,
    pip_check: Regex,
    uv_clause: Regex,
    uv_root: Regex,
    poetry_depends: Regex,
    poetry_both: Regex,
    poetry_python: Regex,
    poetry_project_python: Regex,
    cargo_req: Regex,
    cargo_for: Regex,
    cargo_required_by: Regex,
    cargo_satisfies: Regex,
    cargo_meet: Regex,
    cargo_selected: Regex,
    cargo_rustc: Regex,
    cargo_old: Regex,
    cargo_compile: Regex,
    go_requires: Regex,
    go_tidy: Regex,
    go_note: Regex,
    go_mod_path: Regex,
    gem_header: Regex,
    gem_resolved: Regex,
    gem_depends: Regex,
    gem_req: Regex,
    mention: Regex,
}

fn p() -> Option<&'static P> {
    static RE: OnceLock<Option<P>> = OnceLock::new();
    RE.get_or_init(|| {
        let r = |s: &str| Regex::new(s).ok();
        const N: &str = r"@?[A-Za-z0-9][A-Za-z0-9_.\-/]*";
        Some(P {
            npm_edge: r(&format!(
                r#"^\s*(?:(?P<kind>peer|peerOptional|dev|optional|prod|bundled)\s+)?(?P<pkg>{N})@"(?P<range>[^"]*)"\s+from\s+(?:the root project|(?P<by>{N})@(?P<byv>\S+))\s*$"#
            ))?,
            npm_found: r(&format!(r"^\s*Found:\s+(?P<pkg>{N})@(?P<v>\S+)\s*$"))?,
            engine_key: r(r"(?P<k>[A-Za-z][A-Za-z0-9_-]*):\s*'(?P<v>[^']*)'")?,
            pnpm_node: r(&format!(r"^(?P<indent>[\s│├└─┬]*?)[├└]─┬\s+(?P<pkg>{N})(?:\s+(?P<v>\d\S*))?\s*$"))?,
            pnpm_peer: r(&format!(
                r#"^(?P<indent>[\s│├└─┬]*?)[├└]──\s+✕\s+(?P<what>unmet|missing)\s+peer\s+(?P<pkg>{N}?)@"?(?P<range>[^":]+?)"?(?::\s+found\s+(?P<found>\S+)(?:\s+in\s+\S+)?)?\s*$"#
            ))?,
            yarn_v1_peer: r(&format!(
                r#"^warning\s+"(?:[^"]*>\s+)?(?P<by>{N})@(?P<byv>[^"\s]+)"\s+has\s+(?:unmet|incorrect)\s+peer\s+dependency\s+"(?P<pkg>{N}?)@(?P<range>[^"]+)""#
            ))?,
            yarn_engine: r(&format!(
                r#"^error\s+(?P<by>{N})@(?P<byv>\S+):\s+The engine "(?P<pkg>[^"]+)" is incompatible with this module\. Expected version "(?P<range>[^"]+)"\. Got "(?P<found>[^"]+)""#
            ))?,
            yarn_berry_listed: r(&format!(
                r"YN0060:\s*│?\s*(?P<pkg>{N}) is listed by your project with version (?P<found>\S+?)(?:\s+\([^)]*\))?, which doesn't satisfy what (?P<by>{N})(?: and other dependencies)? requests?(?: \((?P<range>[^)]+)\))?"
            ))?,
            yarn_berry_provides: r(&format!(
                r"YN0060:\s*│?\s*\S+ provides (?P<pkg>{N})(?:\s+\([^)]*\))? with version (?P<found>\S+?), which doesn't satisfy what (?P<by>{N}) requests(?: \((?P<range>[^)]+)\))?"
            ))?,
            pip_user: r(r"^\s*The user requested(?:\s+\(constraint\))?\s+(?P<pkg>[A-Za-z0-9][A-Za-z0-9._\-]*)(?P<range>[=<>!~].*?)\s*$")?,
            pip_depends: r(r"^\s*(?P<by>[A-Za-z0-9][A-Za-z0-9._\-]*(?:\[[^\]]*\])?)\s+(?P<byv>\S+)\s+depends on\s+(?P<pkg>[A-Za-z0-9][A-Za-z0-9._\-]*)(?P<range>[=<>!~].*?)\s*$")?,
            pip_check: r(r"^\s*(?P<by>[A-Za-z0-9][A-Za-z0-9._\-]*)\s+(?P<byv>\S+)\s+(?:requires|has requirement)\s+(?P<pkg>[A-Za-z0-9][A-Za-z0-9._\-]*)(?P<range>[=<>!~][^,\s]*(?:,\s*[=<>!~][^,\s]*)*),\s+but you'll have\s+(?P<fpkg>\S+)\s+(?P<found>\S+?)\s+which is incompatible")?,
            uv_clause: r(r"(?P<by>[A-Za-z0-9][A-Za-z0-9._\-]*)(?P<byv>[=<>!~][^\s,]*(?:,[=<>!~][^\s,]*)*)\s+depends on\s+(?P<pkg>[A-Za-z0-9][A-Za-z0-9._\-]*)(?P<range>[=<>!~][^\s,]*(?:,[=<>!~][^\s,]*)*)")?,
            uv_root: r(r"(?:you require|your project depends on|your project requires|root depends on)\s+(?P<pkg>[A-Za-z0-9][A-Za-z0-9._\-]*)(?P<range>[=<>!~][^\s,]*(?:,[=<>!~][^\s,]*)*)")?,
            poetry_depends: r(r"(?P<by>[A-Za-z0-9][A-Za-z0-9._\-]*)(?:\s+\((?P<byv>[^)]+)\))?(?:\s+@\s+\S+)?\s+depends on\s+(?P<pkg>[A-Za-z0-9][A-Za-z0-9._\-]*)\s+\((?P<range>[^)]+)\)")?,
            poetry_both: r(r"(?P<by>[A-Za-z0-9][A-Za-z0-9._\-]*)(?:\s+\((?P<byv>[^)]+)\))?(?:\s+@\s+\S+)?\s+depends on both\s+(?P<a>[A-Za-z0-9][A-Za-z0-9._\-]*)\s+\((?P<ar>[^)]+)\)\s+and\s+(?P<b>[A-Za-z0-9][A-Za-z0-9._\-]*)\s+\((?P<br>[^)]+)\)")?,
            poetry_python: r(r"(?P<by>[A-Za-z0-9][A-Za-z0-9._\-]*)\s+\((?P<byv>[^)]+)\)\s+requires Python\s+(?P<range>[^,]+?)(?:,|\s*$)")?,
            poetry_project_python: r(r"The current project(?:'s Python requirement \((?P<r1>[^)]+)\)| must support the following Python versions:\s+(?P<r2>\S+))")?,
            cargo_req: r(r"(?i)failed to select a version for the requirement `(?P<pkg>[A-Za-z0-9_\-]+) = \x22(?P<range>[^\x22]+)\x22`")?,
            cargo_for: r(r"(?i)failed to select a version for `(?P<pkg>[A-Za-z0-9_\-]+)`(?P<old>\s+\(required by `(?P<by>[A-Za-z0-9_\-]+)`\))?")?,
            cargo_required_by: r(r"required by package `(?P<by>[A-Za-z0-9_\-]+) v(?P<byv>[^\s`]+)")?,
            cargo_satisfies: r(r"which satisfies (?:git |path )?dependency `(?P<pkg>[A-Za-z0-9_\-]+)`?(?: = \x22(?P<range>[^\x22]+)\x22`)?(?: \(locked to [^)]*\))?(?: of package `(?P<by>[A-Za-z0-9_\-]+) v(?P<byv>[^\s`]+))?")?,
            cargo_meet: r(r"versions that meet the requirements `(?P<range>[^`]+)`")?,
            cargo_selected: r(r"previously selected package `(?P<pkg>[A-Za-z0-9_\-]+) v(?P<v>[^\s`]+)`")?,
            cargo_rustc: r(r"package `(?P<by>[A-Za-z0-9_\-]+) v(?P<byv>[^\s`]+)` cannot be built because it requires rustc (?P<range>\S+) or newer, while the currently active rustc version is (?P<found>\S+?)\.?$")?,
            cargo_compile: r(r"failed to compile `(?P<by>[A-Za-z0-9_\-]+) v(?P<byv>[^\s`,]+)")?,
            cargo_old: r(r"version (?P<v>\S+) in use by (?P<pkg>[A-Za-z0-9_\-]+) v")?,
            go_requires: r(r"go: (?P<by>\S+?)(?:@(?P<byv>v\S+))? requires go >= (?P<range>[0-9][0-9.]*)(?:;|\s|$)(?:.*?running go (?P<found>[0-9][0-9.]*))?")?,
            go_tidy: r(r"go\.mod file indicates go (?P<range>[0-9][0-9.]*), but maximum version supported by tidy is (?P<found>[0-9][0-9.]*)")?,
            go_note: r(r"note: module requires Go (?P<range>[0-9][0-9.]*)")?,
            go_mod_path: r(r"/pkg/mod/(?P<m>[^@\s]+)@(?P<v>v[^/\s]+)/")?,
            gem_header: r(r#"could not find compatible versions for gem "(?P<pkg>[^"]+)""#)?,
            gem_resolved: r(r"^\s*(?P<by>[A-Za-z0-9][A-Za-z0-9_.\-]*)\s+\((?P<req>[^)]*)\)(?:\s+\S+)?\s+was resolved to\s+(?P<v>[^,\s]+),\s+which depends on\s*$")?,
            gem_depends: r(r"^\s*(?P<by>[A-Za-z0-9][A-Za-z0-9_.\-]*)\s+\((?P<req>[^)]*)\)(?:\s+\S+)?\s+depends on\s*$")?,
            gem_req: r(r"^\s*(?P<pkg>[A-Za-z0-9][A-Za-z0-9_.\-]*)\s+\((?P<req>[^)]*)\)(?:\s+\S+)?\s*$")?,
            mention: r(
                r"(?:^|[^A-Za-z0-9_@/.\-])(?P<name>@?[A-Za-z](?:[A-Za-z0-9_.\-/]*[A-Za-z0-9])?)(?:@v?|\s+v|\s+(?:version\s+)?)(?P<v>[0-9]+(?:\.[0-9]+){1,2})\b",
            )?,
        })
    })
    .as_ref()
}

/// Collects requirements, deduplicated, in the order first printed.
struct Out {
    list: Vec<Requirement>,
}

impl Out {
    #[allow(clippy::too_many_arguments)]
    fn push(
        &mut self,
        ecosystem: Ecosystem,
        tool: &str,
        kind: RequirementKind,
        by: Option<(&str, Option<&str>)>,
        package: &str,
        required: Option<&str>,
        found: Option<&str>,
        quote: &str,
    ) {
        if self.list.len() >= super::MAX_FACTS {
            return;
        }
        let package = runtime_name(package);
        if !super::plausible_name(&package) {
            return;
        }
        let by = by.and_then(|(name, version)| {
            let name = name.trim();
            super::plausible_name(name).then(|| Declarer {
                name: name.to_owned(),
                version: version
                    .map(|v| v.trim().to_owned())
                    .filter(|v| super::plausible_version(v)),
                from_on: false,
            })
        });
        let required = required
            .map(|r| r.trim().to_owned())
            .filter(|r| !r.is_empty() && r.chars().count() <= super::MAX_VERSION_CHARS);
        let found = found
            .map(str::trim)
            .filter(|v| super::plausible_version(v))
            .map(str::to_owned);
        let kind = if super::prose::is_runtime(&package) {
            RequirementKind::Engine
        } else {
            kind
        };
        let same = |r: &Requirement| {
            r.package == package
                && r.required == required
                && r.by.as_ref().map(|b| &b.name) == by.as_ref().map(|b| &b.name)
                && (r.by.as_ref().and_then(|b| b.version.as_ref()).is_none()
                    || by.as_ref().and_then(|b| b.version.as_ref()).is_none()
                    || r.by.as_ref().and_then(|b| b.version.as_ref())
                        == by.as_ref().and_then(|b| b.version.as_ref()))
        };
        if let Some(existing) = self.list.iter_mut().find(|r| same(r)) {
            // The same edge printed again may say more (a version, a found).
            if existing.by.as_ref().is_some_and(|b| b.version.is_none())
                && by.as_ref().is_some_and(|b| b.version.is_some())
            {
                existing.by = by;
            }
            if existing.found.is_none() {
                existing.found = found;
            }
            return;
        }
        self.list.push(Requirement {
            ecosystem,
            tool: tool.to_owned(),
            kind,
            by,
            package,
            required,
            found,
            quote: clip(quote, MAX_QUOTE_CHARS),
        });
    }
}

/// A runtime's one name (`Python` → `python`, `rustc` → `rust`); other
/// names as printed.
fn runtime_name(name: &str) -> String {
    let canonical = super::prose::canonical(name);
    if super::prose::is_runtime(&canonical) {
        canonical
    } else {
        name.to_owned()
    }
}

/// The line without the prefix a tool puts on every line.
fn strip_prefix(line: &str) -> &str {
    let l = line.trim_end_matches('\r');
    for p in [
        "npm ERR! ",
        "npm error ",
        "npm warn ",
        "npm WARN ",
        "npm notice ",
    ] {
        if let Some(rest) = l.strip_prefix(p) {
            return rest;
        }
    }
    for p in ["npm ERR!", "npm error", "npm warn", "npm WARN"] {
        if l == p {
            return "";
        }
    }
    l
}

/// Every requirement the resolver and installer errors in `text` state.
pub fn requirements(text: &str) -> Vec<Requirement> {
    let Some(p) = p() else {
        return Vec::new();
    };
    let lines: Vec<&str> = text.lines().take(MAX_LINES).collect();
    let mut out = Out { list: Vec::new() };
    npm(p, &lines, &mut out);
    pnpm(p, &lines, &mut out);
    yarn(p, &lines, &mut out);
    python(p, &lines, &mut out);
    cargo(p, &lines, &mut out);
    go(p, &lines, &mut out);
    bundler(p, &lines, &mut out);
    out.list
}

/// One `EBADENGINE` block being read.
#[derive(Default)]
struct EngineBlock {
    package: Option<String>,
    required: Vec<(String, String)>,
    current: Vec<(String, String)>,
    quote: String,
    /// Inside a `required: {` that spans lines.
    open: bool,
}

impl EngineBlock {
    fn keys(p: &P, body: &str, into: &mut Vec<(String, String)>) {
        into.extend(
            p.engine_key
                .captures_iter(body)
                .map(|c| (c["k"].to_owned(), c["v"].to_owned())),
        );
    }

    /// Reads one line of the block; true when the block ended.
    fn read(&mut self, p: &P, body: &str) -> bool {
        self.quote.push_str(body);
        self.quote.push(' ');
        if let Some(rest) = body.strip_prefix("package:") {
            self.package = Some(rest.trim().trim_matches([',', '\'']).to_owned());
        } else if body.starts_with("required:") {
            self.open = !body.contains('}');
            Self::keys(p, body, &mut self.required);
        } else if body.starts_with("current:") {
            self.open = false;
            Self::keys(p, body, &mut self.current);
        } else if self.open {
            self.open = !body.starts_with('}');
            Self::keys(p, body, &mut self.required);
        } else if body == "}" {
            return true;
        }
        false
    }

    fn emit(self, out: &mut Out) {
        // A block that names no package says nothing about who.
        let Some(pkg) = self.package.as_deref() else {
            return;
        };
        let Some(at) = pkg.get(1..).and_then(|s| s.rfind('@')).map(|i| i + 1) else {
            return;
        };
        let by = Some((&pkg[..at], Some(&pkg[at + 1..])));
        for (k, range) in &self.required {
            let current = self
                .current
                .iter()
                .find(|(ck, _)| ck == k)
                .map(|(_, v)| v.as_str());
            out.push(
                Ecosystem::Npm,
                "npm",
                RequirementKind::Engine,
                by,
                k,
                Some(range),
                current,
                &self.quote,
            );
        }
    }
}

/// One `x@"range" from y@v` line of an npm report.
struct NpmEdge<'a> {
    peer: bool,
    by: Option<(&'a str, &'a str)>,
    package: &'a str,
    range: &'a str,
    line: &'a str,
}

fn npm(p: &P, lines: &[&str], out: &mut Out) {
    let mut found: HashMap<String, Option<String>> = HashMap::new();
    let mut edges: Vec<NpmEdge<'_>> = Vec::new();
    let mut engine: Option<EngineBlock> = None;
    for raw in lines {
        let line = strip_prefix(raw);
        if line.contains("EBADENGINE") {
            let body = line.split_once("EBADENGINE").map_or("", |(_, b)| b).trim();
            if body.starts_with("Unsupported engine") {
                engine = Some(EngineBlock::default());
            } else if let Some(block) = engine.as_mut() {
                if block.read(p, body) {
                    if let Some(done) = engine.take() {
                        done.emit(out);
                    }
                }
            }
            continue;
        }
        if let Some(c) = p.npm_found.captures(line) {
            let v = &c["v"];
            found.insert(
                c["pkg"].to_owned(),
                (v != "undefined").then(|| v.to_owned()),
            );
            continue;
        }
        if let Some(c) = p.npm_edge.captures(line) {
            edges.push(NpmEdge {
                peer: matches!(
                    c.name("kind").map(|m| m.as_str()),
                    Some("peer" | "peerOptional")
                ),
                by: c
                    .name("by")
                    .map(|b| (b.as_str(), c.name("byv").map_or("", |v| v.as_str()))),
                package: c.name("pkg").map_or("", |m| m.as_str()),
                range: c.name("range").map_or("", |m| m.as_str()),
                line,
            });
        }
    }
    for e in edges {
        let kind = if e.peer {
            RequirementKind::Peer
        } else {
            RequirementKind::Dependency
        };
        let f = found.get(e.package).cloned().flatten();
        out.push(
            Ecosystem::Npm,
            "npm",
            kind,
            e.by.map(|(n, v)| (n, Some(v))),
            e.package,
            Some(e.range),
            f.as_deref(),
            e.line.trim(),
        );
    }
}

/// The column a tree line's content starts at.
fn depth(indent: &str) -> usize {
    indent.chars().count()
}

fn pnpm(p: &P, lines: &[&str], out: &mut Out) {
    if !lines.iter().any(|l| l.contains("peer")) {
        return;
    }
    let mut stack: Vec<(usize, String, Option<String>)> = Vec::new();
    for line in lines {
        if let Some(c) = p.pnpm_node.captures(line) {
            let d = depth(&c["indent"]);
            stack.retain(|(sd, _, _)| *sd < d);
            stack.push((
                d,
                c["pkg"].to_owned(),
                c.name("v").map(|v| v.as_str().to_owned()),
            ));
        } else if let Some(c) = p.pnpm_peer.captures(line) {
            let d = depth(&c["indent"]);
            let parent = stack.iter().rev().find(|(sd, _, _)| *sd < d);
            let by = parent.map(|(_, n, v)| (n.as_str(), v.as_deref()));
            let range = c["range"].trim_matches('"');
            out.push(
                Ecosystem::Npm,
                "pnpm",
                RequirementKind::Peer,
                by,
                &c["pkg"],
                Some(range),
                c.name("found").map(|f| f.as_str()),
                line.trim(),
            );
        }
    }
}

fn yarn(p: &P, lines: &[&str], out: &mut Out) {
    for line in lines {
        let line = line.trim();
        if let Some(c) = p.yarn_v1_peer.captures(line) {
            out.push(
                Ecosystem::Npm,
                "yarn",
                RequirementKind::Peer,
                Some((&c["by"], Some(&c["byv"]))),
                &c["pkg"],
                Some(&c["range"]),
                None,
                line,
            );
        } else if let Some(c) = p.yarn_engine.captures(line) {
            out.push(
                Ecosystem::Npm,
                "yarn",
                RequirementKind::Engine,
                Some((&c["by"], Some(&c["byv"]))),
                &c["pkg"],
                Some(&c["range"]),
                Some(&c["found"]),
                line,
            );
        } else if let Some(c) = p
            .yarn_berry_listed
            .captures(line)
            .or_else(|| p.yarn_berry_provides.captures(line))
        {
            out.push(
                Ecosystem::Npm,
                "yarn",
                RequirementKind::Peer,
                Some((&c["by"], None)),
                &c["pkg"],
                c.name("range").map(|r| r.as_str()),
                Some(&c["found"]),
                line,
            );
        }
    }
}

/// A pip or poetry dependent's version as printed (`0.44.1b0`), or a uv
/// one's specifier without `==` when it is exact (`==2.0.0` → `2.0.0`).
fn dependent_version(v: &str) -> &str {
    v.strip_prefix("==").unwrap_or(v)
}

fn python(p: &P, lines: &[&str], out: &mut Out) {
    let tool = if lines
        .iter()
        .any(|l| l.contains("No solution found when resolving"))
    {
        "uv"
    } else if lines.iter().any(|l| {
        l.contains("SolverProblemError")
            || l.contains("version solving failed")
            || l.contains(") depends on")
    }) {
        "poetry"
    } else {
        "pip"
    };
    let py = Ecosystem::PyPI;
    let dep = RequirementKind::Dependency;
    for raw in lines {
        let line = raw.trim();
        if let Some(c) = p.pip_user.captures(line) {
            out.push(
                py,
                "pip",
                dep,
                None,
                &c["pkg"],
                Some(&c["range"]),
                None,
                line,
            );
        } else if let Some(c) = p.pip_check.captures(line) {
            out.push(
                py,
                "pip",
                dep,
                Some((&c["by"], Some(&c["byv"]))),
                &c["pkg"],
                Some(&c["range"]),
                Some(&c["found"]),
                line,
            );
        } else if let Some(c) = p.pip_depends.captures(line).filter(|_| tool == "pip") {
            out.push(
                py,
                "pip",
                dep,
                Some((&c["by"], Some(&c["byv"]))),
                &c["pkg"],
                Some(&c["range"]),
                None,
                line,
            );
        }
    }
    if tool == "uv" {
        // uv wraps its sentences; read them joined.
        let text = lines.iter().map(|l| l.trim()).collect::<Vec<_>>().join(" ");
        for c in p.uv_clause.captures_iter(&text) {
            let range = c["range"].trim_end_matches('.');
            out.push(
                py,
                "uv",
                dep,
                Some((&c["by"], Some(dependent_version(&c["byv"])))),
                &c["pkg"],
                Some(range),
                None,
                c.get(0).map_or("", |m| m.as_str()),
            );
        }
        for c in p.uv_root.captures_iter(&text) {
            let start = c.get(0).map_or(0, |m| m.start());
            // "we can conclude that your project depends on x" is derived,
            // not declared.
            if text[..start].trim_end().ends_with("conclude that") {
                continue;
            }
            let range = c["range"].trim_end_matches('.');
            out.push(
                py,
                "uv",
                dep,
                None,
                &c["pkg"],
                Some(range),
                None,
                c.get(0).map_or("", |m| m.as_str()),
            );
        }
    }
    if tool == "poetry" {
        let text = lines
            .iter()
            .map(|l| l.trim())
            .collect::<Vec<_>>()
            .join("\n");
        for c in p.poetry_project_python.captures_iter(&text) {
            let r = c
                .name("r1")
                .or_else(|| c.name("r2"))
                .map_or("", |m| m.as_str());
            out.push(
                py,
                "poetry",
                dep,
                None,
                "python",
                Some(r),
                None,
                c.get(0).map_or("", |m| m.as_str()),
            );
        }
        for line in text.lines() {
            for c in p.poetry_both.captures_iter(line) {
                let by = Some((&c["by"], c.name("byv").map(|m| m.as_str())));
                out.push(py, "poetry", dep, by, &c["a"], Some(&c["ar"]), None, line);
                out.push(py, "poetry", dep, by, &c["b"], Some(&c["br"]), None, line);
            }
            for c in p.poetry_depends.captures_iter(line) {
                if line[c.get(0).map_or(0, |m| m.start())..].contains("depends on both") {
                    continue;
                }
                out.push(
                    py,
                    "poetry",
                    dep,
                    Some((&c["by"], c.name("byv").map(|m| m.as_str()))),
                    &c["pkg"],
                    Some(&c["range"]),
                    None,
                    line,
                );
            }
            for c in p.poetry_python.captures_iter(line) {
                out.push(
                    py,
                    "poetry",
                    dep,
                    Some((&c["by"], Some(&c["byv"]))),
                    "python",
                    Some(c["range"].trim()),
                    None,
                    line,
                );
            }
        }
    }
}

/// A `... which satisfies dependency `x = "r"` of package `y vV`` line.
struct ChainEdge {
    by: Option<(String, String)>,
    package: String,
    range: String,
    line: String,
}

fn cargo(p: &P, lines: &[&str], out: &mut Out) {
    let mut i = 0;
    let c_eco = Ecosystem::Cargo;
    let dep = RequirementKind::Dependency;
    // `cargo install x` names the package being built first.
    let mut building: Option<(String, String)> = None;
    while i < lines.len() {
        let line = lines[i].trim();
        if let Some(c) = p.cargo_compile.captures(line) {
            building = Some((c["by"].to_owned(), c["byv"].to_owned()));
        }
        if let Some(c) = p.cargo_rustc.captures(line) {
            out.push(
                c_eco,
                "cargo",
                RequirementKind::Engine,
                Some((&c["by"], Some(&c["byv"]))),
                "rust",
                Some(&format!(">={}", &c["range"])),
                Some(&c["found"]),
                line,
            );
            i += 1;
            continue;
        }
        let head = p
            .cargo_req
            .captures(line)
            .map(|c| (c["pkg"].to_owned(), Some(c["range"].to_owned()), false))
            .or_else(|| {
                p.cargo_for
                    .captures(line)
                    .map(|c| (c["pkg"].to_owned(), None, c.name("old").is_some()))
            });
        let Some((pkg, mut range, old)) = head else {
            i += 1;
            continue;
        };
        let start = i;
        let mut by: Option<(String, Option<String>)> =
            building.as_ref().map(|(n, v)| (n.clone(), Some(v.clone())));
        let mut found: Option<String> = None;
        let mut chain: Vec<ChainEdge> = Vec::new();
        if old {
            if let Some(c) = p.cargo_for.captures(line) {
                by = c.name("by").map(|b| (b.as_str().to_owned(), None));
            }
        }
        i += 1;
        while i < lines.len() {
            let l = lines[i].trim();
            if p.cargo_req.is_match(l)
                || p.cargo_for.is_match(l) && !l.contains("which could resolve")
                || p.cargo_rustc.is_match(l)
            {
                break;
            }
            if let Some(c) = p.cargo_required_by.captures(l) {
                by = Some((c["by"].to_owned(), Some(c["byv"].to_owned())));
            } else if let Some(c) = p.cargo_satisfies.captures(l) {
                if let Some(r) = c.name("range") {
                    let by = c.name("by").map(|b| {
                        (
                            b.as_str().to_owned(),
                            c.name("byv")
                                .map_or(String::new(), |v| v.as_str().to_owned()),
                        )
                    });
                    chain.push(ChainEdge {
                        by,
                        package: c["pkg"].to_owned(),
                        range: r.as_str().to_owned(),
                        line: l.to_owned(),
                    });
                }
            } else if let Some(c) = p.cargo_meet.captures(l) {
                range.get_or_insert_with(|| c["range"].to_owned());
            } else if let Some(c) = p.cargo_selected.captures(l) {
                if c["pkg"] == *pkg {
                    found = Some(c["v"].to_owned());
                }
            } else if let Some(c) = p.cargo_old.captures(l) {
                if c["pkg"] == *pkg {
                    found = Some(c["v"].to_owned());
                }
            }
            i += 1;
        }
        let quote = lines[start..i]
            .iter()
            .map(|l| l.trim())
            .collect::<Vec<_>>()
            .join("\n");
        out.push(
            c_eco,
            "cargo",
            dep,
            by.as_ref().map(|(n, v)| (n.as_str(), v.as_deref())),
            &pkg,
            range.as_deref(),
            found.as_deref(),
            &quote,
        );
        for e in chain {
            // The previously selected package's own requirement on `pkg`
            // is satisfied by what was selected.
            let f = if e.package == pkg {
                found.as_deref()
            } else {
                None
            };
            let by = e.by.as_ref().map(|(n, v)| (n.as_str(), Some(v.as_str())));
            out.push(
                c_eco,
                "cargo",
                dep,
                by,
                &e.package,
                Some(&e.range),
                f,
                &e.line,
            );
        }
    }
}

fn go(p: &P, lines: &[&str], out: &mut Out) {
    let g = Ecosystem::Go;
    let mut last_module: Option<(String, String)> = None;
    let mut notes = 0;
    for raw in lines {
        let line = raw.trim();
        if let Some(c) = p.go_requires.captures(line) {
            let by = c.name("byv").map(|v| (&c["by"], Some(v.as_str())));
            let by = if c["by"].ends_with("go.mod") {
                None
            } else {
                by.or(Some((&c["by"], None)))
            };
            out.push(
                g,
                "go",
                RequirementKind::Engine,
                by,
                "go",
                Some(&format!(">={}", &c["range"])),
                c.name("found").map(|m| m.as_str()),
                line,
            );
        } else if let Some(c) = p.go_tidy.captures(line) {
            out.push(
                g,
                "go",
                RequirementKind::Engine,
                None,
                "go",
                Some(&format!(">={}", &c["range"])),
                Some(&c["found"]),
                line,
            );
        } else if let Some(c) = p.go_note.captures(line) {
            // The module is the one whose file the error above it names,
            // else the project itself.
            let by = if notes == 0 {
                None
            } else {
                last_module
                    .as_ref()
                    .map(|(m, v)| (m.as_str(), Some(v.as_str())))
            };
            out.push(
                g,
                "go",
                RequirementKind::Engine,
                by,
                "go",
                Some(&format!(">={}", &c["range"])),
                None,
                line,
            );
            notes += 1;
        }
        if let Some(c) = p.go_mod_path.captures(line) {
            last_module = Some((c["m"].to_owned(), c["v"].to_owned()));
        }
    }
}

fn bundler(p: &P, lines: &[&str], out: &mut Out) {
    let r = Ecosystem::RubyGems;
    let mut i = 0;
    while i < lines.len() {
        let Some(h) = p.gem_header.captures(lines[i]) else {
            i += 1;
            continue;
        };
        let gem = h["pkg"].to_owned();
        i += 1;
        let mut current: Option<String> = None;
        while i < lines.len() && !p.gem_header.is_match(lines[i]) {
            let line = lines[i];
            let next = lines.get(i + 1).copied().unwrap_or("");
            if line.trim() == "Current Bundler version:" {
                if let Some(c) = p.gem_req.captures(next) {
                    current = Some(c["req"].to_owned());
                }
            } else if let Some(c) = p.gem_resolved.captures(line) {
                // `dep (req) was resolved to v`: the Gemfile asks for
                // `dep (req)`, and `dep v` asks for the next line's gem.
                if !c["req"].trim().is_empty() && c["req"].trim() != ">= 0" {
                    out.push(
                        r,
                        "bundler",
                        RequirementKind::Dependency,
                        None,
                        &c["by"],
                        Some(&c["req"]),
                        None,
                        line.trim(),
                    );
                }
                if let Some(n) = p.gem_req.captures(next) {
                    out.push(
                        r,
                        "bundler",
                        RequirementKind::Dependency,
                        Some((&c["by"], Some(&c["v"]))),
                        &n["pkg"],
                        Some(&n["req"]),
                        None,
                        &format!("{} {}", line.trim(), next.trim()),
                    );
                }
            } else if let Some(c) = p.gem_depends.captures(line) {
                let exact = c["req"].trim().strip_prefix("= ").map(str::to_owned);
                if let Some(n) = p.gem_req.captures(next) {
                    out.push(
                        r,
                        "bundler",
                        RequirementKind::Dependency,
                        Some((&c["by"], exact.as_deref())),
                        &n["pkg"],
                        Some(&n["req"]),
                        None,
                        &format!("{} {}", line.trim(), next.trim()),
                    );
                }
            }
            i += 1;
        }
        if let Some(v) = current {
            for req in out
                .list
                .iter_mut()
                .filter(|q| q.package == gem && q.found.is_none() && q.by.is_some())
            {
                req.found = Some(v.clone());
            }
        }
    }
}

/// Every `name version` mention in `text` (`vite 5.4.21`, `vite@5.4.21`,
/// `Node v18.19`): names as written, versions of two or three numbers.
pub fn mentions(text: &str) -> Vec<(String, String)> {
    let Some(p) = p() else {
        return Vec::new();
    };
    p.mention
        .captures_iter(text)
        .take(1_000)
        .map(|c| (c["name"].to_owned(), c["v"].to_owned()))
        .collect()
}

#[cfg(test)]
mod tests;
