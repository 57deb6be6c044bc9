//! Facts stated in sentences: what a changelog, a migration guide, a
//! tool's message or the assistant says in words.
//!
//! - **Requirements** ([`requirements`]): "Vitest 4.0 requires Vite 6.0 or
//!   newer and Node.js 20 or newer", "Vite requires Node.js version
//!   20.19+", "X needs Y >= 2.1", "X depends on Y 3.x". The declarer's
//!   version, when it has fewer than three components ("Vitest 4.0"), is
//!   where the requirement starts (`from_on`); a full version is the one
//!   seen. A bare required version means "that or newer". What was found
//!   instead is read from the same text: "(you are) using / on / running
//!   / with / installed / is on Y 5.4.21", or any other mention of Y at a
//!   version outside the requirement.
//! - **Changes** ([`changes`]): "pinned vitest to 3.2.4 (and
//!   @vitest/coverage-v8 to 3.2.4)", "downgraded node from 20.1.0 to
//!   18.19.0", "upgraded webpack to 5.90.1", "bumped x from 1.2 to 1.3",
//!   "switched to pnpm 9.1.0", "reverted x to 2.3.1".
//!
//! Runtimes are named one way: `node` (Node.js, nodejs), `python`, `go`
//! (golang), `rust` (rustc), `ruby`. Names are lower-cased. A sentence
//! that negates or hedges ("did not", "might") states nothing.
//!
//! Bounded: the text read is cut at [`MAX_PROSE_CHARS`]; regular
//! expressions are linear.

use std::sync::OnceLock;

use regex::Regex;

use super::{clip, Change, Declarer, Requirement, RequirementKind, Via, MAX_QUOTE_CHARS};
use crate::version::declared::{release_point, Declared};
use crate::version::Ecosystem;

/// The most text read for prose facts.
pub const MAX_PROSE_CHARS: usize = 64_000;

const NAME: &str = r"@?[A-Za-z][A-Za-z0-9_.\-/]*[A-Za-z0-9]|[A-Za-z]";
const VER: &str = r"[0-9]+(?:\.[0-9]+){0,2}";

struct Patterns {
    requires: Regex,
    and_also: Regex,
    found: Regex,
    change: Regex,
    and_to: Regex,
    switched: Regex,
    doubt: Regex,
}

fn patterns() -> Option<&'static Patterns> {
    static P: OnceLock<Option<Patterns>> = OnceLock::new();
    P.get_or_init(|| {
        let requires = Regex::new(&format!(
            r"(?i)(?:^|[^A-Za-z0-9_@/.\-])(?P<by>{NAME})(?:\s+v?(?P<byv>{VER}))?\s+(?:now\s+|also\s+|still\s+)?(?:requires|needs|depends\s+on)\s+(?:at\s+least\s+)?(?P<pkg>{NAME})(?:\s+version)?\s*(?P<op>>=|>|\^|~)?\s*v?(?P<v>{VER})(?P<plus>\+|\s+or\s+(?:newer|later|higher|above|greater)|\.x)?"
        ))
        .ok()?;
        let and_also = Regex::new(&format!(
            r"(?i)^\s*(?:,|and|,\s*and)\s+(?P<pkg>{NAME})(?:\s+version)?\s*(?P<op>>=|>|\^|~)?\s*v?(?P<v>{VER})(?:\+|\s+or\s+(?:newer|later|higher|above|greater))?"
        ))
        .ok()?;
        let found = Regex::new(&format!(
            r"(?i)(?:using|on|running|with|installed|have|has|found|current(?:ly)?(?:\s+is)?)\s+(?P<pkg>{NAME})(?:\s+version)?\s+v?(?P<v>{VER})\b"
        ))
        .ok()?;
        let change = Regex::new(&format!(
            r"(?i)\b(?P<verb>pinn?(?:ed|ing)?|downgrad(?:ed|ing|e)|upgrad(?:ed|ing|e)|bump(?:ed|ing)?|revert(?:ed|ing)?|roll(?:ed|ing)?\s+back|lock(?:ed|ing)?|mov(?:ed|ing|e))\s+(?P<pkg>{NAME})(?:\s+v?(?P<from1>{VER}))?(?:\s+from\s+v?(?P<from>{VER}))?\s+(?:back\s+)?(?:to|at)\s+v?(?P<to>{VER})\b"
        ))
        .ok()?;
        let and_to = Regex::new(&format!(
            r"(?i)^[\s(]*(?:and|,)\s+(?P<pkg>{NAME})\s+(?:to|at)\s+v?(?P<to>{VER})\b"
        ))
        .ok()?;
        let switched = Regex::new(&format!(
            r"(?i)\bswitch(?:ed|ing)?\s+(?:over\s+)?to\s+(?P<pkg>{NAME})(?:\s+version)?\s+v?(?P<to>{VER})\b"
        ))
        .ok()?;
        let doubt = Regex::new(
            r"(?i)\b(?:not|never|didn't|doesn't|don't|won't|cannot|can't|maybe|might|perhaps|possibly|should|could|would|try|trying|if)\b",
        )
        .ok()?;
        Some(Patterns {
            requires,
            and_also,
            found,
            change,
            and_to,
            switched,
            doubt,
        })
    })
    .as_ref()
}

/// The one name of a runtime, or the name lower-cased.
pub fn canonical(name: &str) -> String {
    let lower = name.to_lowercase();
    match lower.as_str() {
        "node.js" | "nodejs" | "node" => "node".into(),
        "golang" | "go" => "go".into(),
        "rustc" | "rust" => "rust".into(),
        "python" | "python3" | "cpython" => "python".into(),
        "ruby" => "ruby".into(),
        _ => lower,
    }
}

/// Whether `name` (canonical) is a runtime or toolchain.
pub fn is_runtime(name: &str) -> bool {
    matches!(name, "node" | "go" | "rust" | "python" | "ruby")
}

/// Sentences, as the offline transform cuts them: at `.`, `!`, `?`
/// followed by white space, and at line breaks.
fn sentences(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    let bytes = text.as_bytes();
    for (i, &b) in bytes.iter().enumerate() {
        let end = match b {
            b'\n' => Some(i),
            b'.' | b'!' | b'?' if bytes.get(i + 1).is_none_or(|n| n.is_ascii_whitespace()) => {
                Some(i + 1)
            }
            _ => None,
        };
        if let Some(e) = end {
            let s = text[start..e].trim();
            if !s.is_empty() {
                out.push(s);
            }
            start = e;
        }
    }
    let s = text[start..].trim();
    if !s.is_empty() {
        out.push(s);
    }
    out
}

fn bounded(text: &str) -> &str {
    match text.char_indices().nth(MAX_PROSE_CHARS) {
        Some((at, _)) => &text[..at],
        None => text,
    }
}

/// The version of `package` that `text` says is in use and that lies
/// outside `required`, if any.
fn found_version(
    p: &Patterns,
    text: &str,
    ecosystem: Ecosystem,
    package: &str,
    required: &Declared,
) -> Option<String> {
    let outside = |v: &str| release_point(v).is_some_and(|pt| !required.contains(&pt));
    let pkg = canonical(package);
    let explicit = p
        .found
        .captures_iter(text)
        .filter(|c| canonical(&c["pkg"]) == pkg)
        .map(|c| c["v"].to_owned())
        .find(|v| outside(v));
    explicit.or_else(|| {
        super::resolver::mentions(text)
            .into_iter()
            .filter(|(n, _)| {
                ecosystem.normalize_name(&canonical(n)) == ecosystem.normalize_name(&pkg)
            })
            .map(|(_, v)| v)
            .find(|v| outside(v))
    })
}

fn required_text(op: Option<&str>, v: &str, plus: Option<&str>) -> String {
    match (op, plus) {
        (Some(op), _) => format!("{op}{v}"),
        (None, Some(".x")) => format!("{v}.x"),
        _ => format!(">={v}"),
    }
}

/// The requirements stated in `text`, read as `ecosystem`'s.
pub fn requirements(text: &str, ecosystem: Ecosystem) -> Vec<Requirement> {
    let Some(p) = patterns() else {
        return Vec::new();
    };
    let text = bounded(text);
    let mut out: Vec<Requirement> = Vec::new();
    for sentence in sentences(text) {
        for caps in p.requires.captures_iter(sentence) {
            let Some(whole) = caps.get(0) else { continue };
            if p.doubt.is_match(&sentence[..whole.start()])
                && sentence[..whole.start()].split_whitespace().count() < 4
            {
                continue;
            }
            let by_name = canonical(&caps["by"]);
            if !super::plausible_name(&by_name) || STOP.contains(&by_name.as_str()) {
                continue;
            }
            let by_version = caps.name("byv").map(|m| m.as_str().to_owned());
            let from_on = by_version
                .as_deref()
                .is_some_and(|v| v.split('.').count() < 3);
            let by = Some(Declarer {
                name: by_name,
                version: by_version,
                from_on,
            });
            let mut reqs = vec![(
                caps["pkg"].to_owned(),
                required_text(
                    caps.name("op").map(|m| m.as_str()),
                    &caps["v"],
                    caps.name("plus").map(|m| m.as_str().trim()),
                ),
            )];
            let mut rest = &sentence[whole.end()..];
            while let Some(more) = p.and_also.captures(rest) {
                let Some(m) = more.get(0) else { break };
                reqs.push((
                    more["pkg"].to_owned(),
                    required_text(more.name("op").map(|m| m.as_str()), &more["v"], None),
                ));
                rest = &rest[m.end()..];
            }
            for (pkg, required) in reqs {
                let package = canonical(&pkg);
                if !super::plausible_name(&package) || STOP.contains(&package.as_str()) {
                    continue;
                }
                let Ok(declared) = Declared::parse(ecosystem, &required) else {
                    continue;
                };
                let found = found_version(p, text, ecosystem, &package, &declared);
                let kind = if is_runtime(&package) {
                    RequirementKind::Engine
                } else {
                    RequirementKind::Dependency
                };
                if out.iter().any(|r| {
                    r.package == package
                        && r.by == by
                        && r.required.as_deref() == Some(required.as_str())
                }) {
                    continue;
                }
                out.push(Requirement {
                    ecosystem,
                    tool: "prose".into(),
                    kind,
                    by: by.clone(),
                    package,
                    required: Some(required),
                    found,
                    quote: clip(sentence, MAX_QUOTE_CHARS),
                });
            }
        }
    }
    out
}

/// Words that are never package names in these sentences.
const STOP: &[&str] = &[
    "it",
    "this",
    "that",
    "which",
    "project",
    "app",
    "package",
    "module",
    "everything",
    "code",
    "version",
    "build",
    "also",
    "and",
    "the",
    "a",
    "an",
    "one",
    "workspace",
    "test",
    "tests",
];

/// The version changes stated in `text`, read as `ecosystem`'s.
pub fn changes(text: &str, ecosystem: Ecosystem) -> Vec<Change> {
    let Some(p) = patterns() else {
        return Vec::new();
    };
    let text = bounded(text);
    let mut out: Vec<Change> = Vec::new();
    let mut push = |pkg: &str, from: Option<&str>, to: &str, quote: &str| {
        let package = canonical(pkg);
        if !super::plausible_name(&package)
            || STOP.contains(&package.as_str())
            || out.len() >= super::command::MAX_CHANGES
        {
            return;
        }
        if out
            .iter()
            .any(|c| c.package == package && c.to.as_deref() == Some(to))
        {
            return;
        }
        out.push(Change {
            ecosystem,
            via: Via::Prose,
            section: None,
            file: None,
            owner: None,
            package,
            from: from.map(str::to_owned),
            to: Some(to.to_owned()),
            quote: clip(quote, MAX_QUOTE_CHARS),
            repo: None,
        });
    };
    for sentence in sentences(text) {
        if sentence.ends_with('?') {
            continue;
        }
        for caps in p.change.captures_iter(sentence) {
            let Some(whole) = caps.get(0) else { continue };
            if p.doubt.is_match(&sentence[..whole.start()]) {
                continue;
            }
            let from = caps
                .name("from")
                .or_else(|| caps.name("from1"))
                .map(|m| m.as_str());
            push(&caps["pkg"], from, &caps["to"], sentence);
            let mut rest = &sentence[whole.end()..];
            while let Some(more) = p.and_to.captures(rest) {
                let Some(m) = more.get(0) else { break };
                push(&more["pkg"], None, &more["to"], sentence);
                rest = &rest[m.end()..];
            }
        }
        for caps in p.switched.captures_iter(sentence) {
            let Some(whole) = caps.get(0) else { continue };
            if !p.doubt.is_match(&sentence[..whole.start()]) {
                push(&caps["pkg"], None, &caps["to"], sentence);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reqs(text: &str) -> Vec<String> {
        requirements(text, Ecosystem::Npm)
            .into_iter()
            .map(|r| {
                let by =
                    r.by.map(|b| {
                        format!(
                            "{}@{}{}",
                            b.name,
                            b.version.unwrap_or_default(),
                            if b.from_on { "+" } else { "" }
                        )
                    })
                    .unwrap_or_default();
                format!(
                    "{by} -> {} {} found {:?} ({:?})",
                    r.package,
                    r.required.unwrap_or_default(),
                    r.found,
                    r.kind
                )
            })
            .collect()
    }

    #[test]
    fn requirement_sentences() {
        assert_eq!(
            reqs("Vitest 4.0 requires Vite 6.0 or newer and Node.js 20 or newer. The `vite/module-runner` entry point it imports was introduced in Vite 6.0; this workspace is on vite 5.4.21."),
            [
                "vitest@4.0+ -> vite >=6.0 found Some(\"5.4.21\") (Dependency)",
                "vitest@4.0+ -> node >=20 found None (Engine)",
            ]
        );
        assert_eq!(
            reqs("You are using Node.js 18.12.0. Vite requires Node.js version 20.19+ or 22.12+. Please upgrade your Node.js version."),
            ["vite@ -> node >=20.19 found Some(\"18.12.0\") (Engine)"]
        );
        assert_eq!(
            reqs("eslint-plugin-react-hooks 4.6.2 needs eslint >=8 <9"),
            ["eslint-plugin-react-hooks@4.6.2 -> eslint >=8 found None (Dependency)"]
        );
        assert_eq!(reqs("It requires 2.0 or newer."), Vec::<String>::new());
        assert_eq!(reqs("This does not require vite 6."), Vec::<String>::new());
    }

    fn chs(text: &str) -> Vec<String> {
        changes(text, Ecosystem::Npm)
            .into_iter()
            .map(|c| format!("{} {:?} -> {:?}", c.package, c.from, c.to))
            .collect()
    }

    #[test]
    fn change_sentences() {
        assert_eq!(
            chs("Fix: pinned vitest to 3.2.4 (and @vitest/coverage-v8 to 3.2.4) in package.json, the newest release line that still supports Vite 5."),
            ["vitest None -> Some(\"3.2.4\")", "@vitest/coverage-v8 None -> Some(\"3.2.4\")"]
        );
        assert_eq!(
            chs("Downgraded node from 20.1.0 to 18.19.0. Switched to pnpm 9.1.0."),
            [
                "node Some(\"20.1.0\") -> Some(\"18.19.0\")",
                "pnpm None -> Some(\"9.1.0\")"
            ]
        );
        assert_eq!(chs("We might pin vite to 5.4.21."), Vec::<String>::new());
        assert_eq!(
            chs("Should we upgrade webpack to 5.90.1?"),
            Vec::<String>::new()
        );
    }
}
