//! Facts → a draft lesson: what a careful engineer writing it by hand
//! would say, one template per signal kind ([`Template`]).
//!
//! **Scope is the broken range the evidence supports**, per package, in
//! the lesson range grammar (`crate::version::declared::lesson_range`):
//!
//! | evidence | scope |
//! |---|---|
//! | `dep dv` requires `pkg` `R`, `found` outside `R` | `pkg`: the interval `R` leaves out around `found` (`^3 \|\| ^4` with 5.0.2 → `>=5`) |
//! | … fixed by upgrading `dep` to `f` | `dep`: below `f` (`<1.0.0`) |
//! | … fixed by pinning `dep` down to `t` | `dep`: from where the requirement starts when the evidence says ("Vitest 4.0 requires" → `>=4`), else above `t` |
//! | … fixed by moving `pkg` into `R` | `dep`: at and below `dv` (`<=0.13.1`), or from where it starts |
//! | a pin after a regression, `^0.24.0` → `0.24.0` | above the pinned version, `>0.24.0`, until a fixed version is known |
//! | a downgrade to avoid a bug, `^28.0.8` → `28.0.6` | above where it went back to, `>28.0.6` |
//! | an upgrade that fixes something, `^4.20.0` → `^4.22.5` | below the new lower bound, `<4.22.5` |
//! | a published package narrows a peer or engine range | the dropped versions (`^6.0.0 \|\| ^7` → `^6.4.0 \|\| ^7`: `>=6 <6.4`), and the package itself above its version (`>1.4.0`) |
//! | an upper bound added or lowered, or a dependency added with one, for a stated reason (`anyio>=3.7.1,<4.0.0`) | from the bound on, `>=4` |
//! | an exact peer (`"3.10.1"`) | the side of it `found` is on (`<3.10.1` or `>3.10.1`: a range cannot say "all but one") |
//!
//! An exact `=x.y.z` scope only when nothing wider is supported, and then
//! the rationale says so. Both sides of a conflict are in the stack and in
//! the scope; a lesson never names a package the evidence does not.
//!
//! **Wording.** The claim states the fact in one sentence ("@vitejs/plugin-legacy
//! 6.0.0 requires vite ^6.0.0; with vite 7.1.11 use @vitejs/plugin-legacy
//! 7.0.0"); the resolution says what to do; the rationale quotes the
//! evidence. A commit's *why* (a regression, an issue reference, "to
//! avoid", "breaking", a security fix) comes from its message, never its
//! subject line as written: a change with no why is a plain bump, and no
//! lesson.
//!
//! Pure: no I/O.

use std::collections::BTreeMap;

use super::prose::{canonical, is_runtime};
use super::{same_package, Change, Fact, Requirement, RequirementKind, Section, Via};
use crate::version::declared::{above, below, from, lesson_range, release_point, up_to, Declared};
use crate::version::{Ecosystem, End, Interval, Point};
use why::{effective_subject, is_bot, message_text, names, why_patterns, why_suffix};
pub use why::{why, Message, Why};

/// Which template wrote a draft.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Template {
    /// A requirement not met, and what resolved it.
    Conflict,
    /// A range pinned to one version after a regression.
    Pin,
    /// A dependency moved back to avoid a bug.
    Downgrade,
    /// A dependency moved up to get a fix.
    Upgrade,
    /// A published package stopped supporting some versions of a peer or
    /// runtime.
    Narrowed,
    /// An override forcing a version.
    Override,
}

impl Template {
    /// The template's name in docs and feedback.
    pub fn as_str(self) -> &'static str {
        match self {
            Template::Conflict => "conflict",
            Template::Pin => "pin",
            Template::Downgrade => "downgrade",
            Template::Upgrade => "upgrade",
            Template::Narrowed => "narrowed",
            Template::Override => "override",
        }
    }
}

/// A lesson as the facts support it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Draft {
    pub template: Template,
    pub claim: String,
    pub rationale: String,
    pub resolution: String,
    pub stack: Vec<String>,
    pub versions: BTreeMap<String, String>,
}

/// Why the facts make no lesson.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Refusal {
    /// Nothing says what resolved it (or, for a commit, why it changed).
    NoResolution,
    /// No range can be stated for the packages involved.
    NoVersions,
}

/// The releases of a package after the version its manifest names: above
/// it, or from it when it is a pre-release of the next (`7.0.0-beta.0`:
/// from 7.0.0 on).
fn next_releases(owner: &super::Declarer, at: &Point) -> Interval {
    if owner.from_on || owner.version.as_deref().is_some_and(|v| v.contains('-')) {
        from(at)
    } else {
        above(at)
    }
}

/// The key a package has in a lesson's stack and scope: npm names and
/// runtimes bare, other ecosystems prefixed (`pypi:urllib3`).
pub fn key(ecosystem: Ecosystem, name: &str) -> String {
    let name = canonical_name(ecosystem, name);
    if ecosystem == Ecosystem::Npm || is_runtime(&name) {
        name
    } else {
        format!("{}:{name}", ecosystem.as_str())
    }
}

/// A runtime's one name; a package's name as its ecosystem normalises it.
fn canonical_name(ecosystem: Ecosystem, name: &str) -> String {
    let c = canonical(name);
    if is_runtime(&c) {
        c
    } else {
        ecosystem.normalize_name(name)
    }
}

/// How a runtime is called in sentences.
fn shown(name: &str) -> String {
    match canonical(name).as_str() {
        "node" => "Node.js".into(),
        "python" => "Python".into(),
        "go" => "Go".into(),
        "rust" => "Rust".into(),
        "ruby" => "Ruby".into(),
        _ => name.to_owned(),
    }
}

fn version_text(v: &str) -> &str {
    v.trim().trim_start_matches(['v', 'V'])
}

/// The lowest release a requirement or version admits (`^1.2.0` → 1.2.0,
/// `=1.0.0` → 1.0.0, `v1.2.3` → 1.2.3).
fn lowest(ecosystem: Ecosystem, text: &str) -> Option<Point> {
    let d = declared(ecosystem, text)?;
    match d.lowest()? {
        End::Incl(p) | End::Excl(p) => Some(p.clone()),
        End::Open => None,
    }
}

/// A requirement or version read in its ecosystem; a bare version is one
/// version (Cargo reads `1.2.3` as `^1.2.3`, but a tool printing a found
/// or target version means that version).
fn declared(ecosystem: Ecosystem, text: &str) -> Option<Declared> {
    let t = text.trim();
    let bare = t.trim_start_matches(['v', '=']).trim_start_matches('=');
    if !bare.is_empty()
        && bare.chars().all(|c| c.is_ascii_digit() || c == '.')
        && ecosystem != Ecosystem::Cargo
    {
        return release_point(bare).map(Declared::exact);
    }
    // A go.mod version is the one version selected; a pre-release or
    // pseudo-version (`v2.4.1-0.20231120145612-d32c104a9a25`) is read as
    // its release, which is how far it got.
    if ecosystem == Ecosystem::Go {
        let base = bare.split(['-', '+']).next().unwrap_or(bare);
        if !base.is_empty() && base.chars().all(|c| c.is_ascii_digit() || c == '.') {
            return release_point(base).map(Declared::exact);
        }
    }
    if let Some(exact) = t.strip_prefix("==").or_else(|| t.strip_prefix('=')) {
        if exact.trim().chars().all(|c| c.is_ascii_digit() || c == '.') {
            return release_point(exact).map(Declared::exact);
        }
    }
    Declared::parse(ecosystem, t).ok()
}

/// Whether a requirement text admits exactly one version.
fn is_exact(ecosystem: Ecosystem, text: &str) -> bool {
    declared(ecosystem, text).is_some_and(|d| {
        matches!(d.intervals(), [i] if matches!((&i.lower, &i.upper), (End::Incl(a), End::Incl(b)) if a.compare(b).is_eq()))
    })
}

/// The highest release a requirement admits, if bounded.
fn highest_end(ecosystem: Ecosystem, text: &str) -> Option<End> {
    declared(ecosystem, text)?
        .intervals()
        .last()
        .map(|i| i.upper.clone())
}

fn range_of(i: &Interval) -> Option<String> {
    lesson_range(i)
}

/// The version found for the requirement: the tool's `found`, else the
/// project's own exact pin of the same package.
fn found_for(r: &Requirement, all: &[Requirement]) -> Option<String> {
    r.found.clone().or_else(|| {
        all.iter()
            .filter(|o| o.by.is_none() && same_package(r.ecosystem, &o.package, &r.package))
            .filter_map(|o| o.required.as_deref())
            .find(|req| is_exact(r.ecosystem, req))
            .map(|req| req.trim_start_matches(['=', 'v']).trim().to_owned())
    })
}

/// The requirements the found version does not meet, most telling first
/// (peers and engines, then the rest, in the order printed).
fn violated(reqs: &[Requirement]) -> Vec<(Requirement, Option<String>)> {
    let mut out: Vec<(Requirement, Option<String>)> = Vec::new();
    for r in reqs.iter().filter(|r| r.by.is_some()) {
        let Some(required) = r.required.as_deref() else {
            continue;
        };
        let Some(d) = declared(r.ecosystem, required) else {
            continue;
        };
        let found = found_for(r, reqs);
        let broken = match found.as_deref().and_then(release_point) {
            Some(v) => !d.contains(&v),
            // Not found: a missing peer is no conflict of versions.
            None => false,
        };
        if broken {
            out.push((r.clone(), found));
        }
    }
    out.sort_by_key(|(r, _)| match r.kind {
        RequirementKind::Peer | RequirementKind::Engine => 0,
        RequirementKind::Dependency => 1,
    });
    out
}

/// What resolved a conflict.
enum Remedy<'a> {
    /// The declarer moved up to `to` (a fixed release).
    DependentUp { to: Point, how: &'a Change },
    /// The declarer moved down to `to`.
    DependentDown { to: Point, how: &'a Change },
    /// The required package moved into the declared range.
    PackageInto { to: String, how: &'a Change },
}

fn remedy<'a>(r: &Requirement, dv: Option<&Point>, changes: &[&'a Change]) -> Option<Remedy<'a>> {
    let by = r.by.as_ref()?;
    let required = declared(r.ecosystem, r.required.as_deref()?)?;
    // The last change of either package is where it ended up; what a
    // person did (a manifest edit, a command) tells it better than the
    // installer's report of it.
    let mut latest_first: Vec<&'a Change> = changes.iter().rev().copied().collect();
    latest_first.sort_by_key(|c| c.via == Via::Installed);
    for c in latest_first {
        let Some(to) = c.to.as_deref() else { continue };
        if same_package(r.ecosystem, &c.package, &by.name) {
            let Some(t) = lowest(c.ecosystem, to) else {
                continue;
            };
            return match dv {
                Some(dv) if t.compare(dv).is_lt() => Some(Remedy::DependentDown { to: t, how: c }),
                Some(dv) if t.compare(dv).is_eq() => continue,
                _ => Some(Remedy::DependentUp { to: t, how: c }),
            };
        }
        if same_package(r.ecosystem, &canonical(&c.package), &canonical(&r.package)) {
            let t = lowest(c.ecosystem, to)?;
            if required.contains(&t) {
                return Some(Remedy::PackageInto {
                    to: version_text(to).trim_start_matches('=').to_owned(),
                    how: c,
                });
            }
        }
    }
    None
}

/// How a change is told in a resolution: the command, or the file.
fn how(c: &Change) -> String {
    match c.via {
        Via::Command => format!(
            " (`{}`)",
            super::clip(c.quote.lines().next().unwrap_or(""), 120)
        ),
        Via::Manifest => c
            .file
            .as_deref()
            .map_or(String::new(), |f| format!(" in {f}")),
        _ => String::new(),
    }
}

/// A requirement in words: `>=6.0` is "6.0 or newer"; others as declared.
fn in_words(required: &str) -> String {
    let r = required.trim();
    match r.strip_prefix(">=") {
        Some(v) if !v.contains([' ', ',', '<', '|']) => format!("{} or newer", v.trim()),
        _ => r.to_owned(),
    }
}

fn tool_said(r: &Requirement) -> String {
    let first = r.quote.lines().next().unwrap_or("").trim();
    let what = match r.tool.as_str() {
        "prose" => "The session states".to_owned(),
        t => format!("{t} reported"),
    };
    format!("{what}: {}", super::clip(first, 300))
}

/// The conflict template.
fn conflict(facts: &[Fact]) -> Option<Result<Draft, Refusal>> {
    let reqs: Vec<Requirement> = facts
        .iter()
        .filter_map(|f| match f {
            Fact::Requirement(r) => Some(r.clone()),
            _ => None,
        })
        .collect();
    let changes: Vec<&Change> = facts
        .iter()
        .filter_map(|f| match f {
            Fact::Change(c) => Some(c),
            _ => None,
        })
        .collect();
    let broken = violated(&reqs);
    if broken.is_empty() {
        return None;
    }
    // The first broken requirement that something resolved.
    let mut first_unresolved = None;
    for (r, found) in &broken {
        let by = r.by.as_ref()?;
        let dv = by.version.as_deref().and_then(release_point);
        let Some(remedy) = remedy(r, dv.as_ref(), &changes) else {
            first_unresolved.get_or_insert(r);
            continue;
        };
        return Some(conflict_draft(r, found.as_deref(), dv.as_ref(), &remedy));
    }
    first_unresolved.map(|_| Err(Refusal::NoResolution))
}

fn conflict_draft(
    r: &Requirement,
    found: Option<&str>,
    dv: Option<&Point>,
    remedy: &Remedy<'_>,
) -> Result<Draft, Refusal> {
    let by = r.by.as_ref().ok_or(Refusal::NoVersions)?;
    let required = r.required.as_deref().ok_or(Refusal::NoVersions)?;
    let decl = declared(r.ecosystem, required).ok_or(Refusal::NoVersions)?;
    let found_point = found.and_then(release_point);
    let gap = decl
        .outside_around(found_point.as_ref())
        .ok_or(Refusal::NoVersions)?;
    let pkg_range = range_of(&gap).ok_or(Refusal::NoVersions)?;
    let starts = by.from_on.then_some(dv).flatten();
    let dep_range = match remedy {
        Remedy::DependentUp { to, .. } => range_of(&below(to)),
        Remedy::DependentDown { to, .. } => match starts {
            Some(s) => range_of(&from(s)),
            None => range_of(&above(to)),
        },
        Remedy::PackageInto { .. } => match (starts, dv) {
            (Some(s), _) => range_of(&from(s)),
            (None, Some(v)) => range_of(&up_to(v)),
            (None, None) => None,
        },
    }
    .ok_or(Refusal::NoVersions)?;
    let pkg_key = key(r.ecosystem, &r.package);
    let dep_key = key(r.ecosystem, &by.name);
    let (pkg, dep) = (shown(&r.package), by.name.clone());
    let dep_at = match (&by.version, by.from_on) {
        (Some(v), true) => format!("{dep} {}+", version_text(v)),
        (Some(v), false) => format!("{dep} {}", version_text(v)),
        (None, _) => dep.clone(),
    };
    let requires = match r.kind {
        RequirementKind::Peer => "requires (peer)",
        _ => "requires",
    };
    let needs = in_words(required);
    let into = match required.trim().strip_prefix(">=") {
        Some(_) => format!("upgraded to {needs}"),
        None => format!("moved into {required}"),
    };
    let with = match found {
        Some(f) => format!("with {pkg} {}", version_text(f)),
        None => format!("with {pkg} {pkg_range}"),
    };
    let (claim, resolution) = match remedy {
        Remedy::DependentUp { to, how: c } => (
            format!(
                "{dep_at} {requires} {pkg} {needs}; {with} use {dep} {}",
                to.text()
            ),
            format!("Upgrade {dep} to {}{}.", to.text(), how(c)),
        ),
        Remedy::DependentDown { to, how: c } => (
            format!(
                "{dep_at} {requires} {pkg} {needs}; {with} pin {dep} to {}",
                to.text()
            ),
            format!(
                "Pin {dep} to {}{} until {pkg} is {into}.",
                to.text(),
                how(c)
            ),
        ),
        Remedy::PackageInto { to, how: c } => (
            format!(
                "{dep_at} {requires} {pkg} {needs}, which {pkg} {} is outside",
                found.map(version_text).unwrap_or("as installed")
            ),
            format!(
                "Move {pkg} to {to}{}, inside the range {dep} accepts.",
                how(c)
            ),
        ),
    };
    let how_quote = match remedy {
        Remedy::DependentUp { how, .. }
        | Remedy::DependentDown { how, .. }
        | Remedy::PackageInto { how, .. } => how,
    };
    let rationale = format!(
        "{} It was resolved by: {}",
        end_sentence(&tool_said(r)),
        end_sentence(&super::clip(
            how_quote.quote.lines().next().unwrap_or(""),
            200
        ))
    );
    let mut versions = BTreeMap::new();
    versions.insert(pkg_key.clone(), pkg_range);
    versions.insert(dep_key.clone(), dep_range);
    Ok(Draft {
        template: Template::Conflict,
        claim,
        rationale,
        resolution,
        stack: sorted(vec![pkg_key, dep_key]),
        versions,
    })
}

fn end_sentence(s: &str) -> String {
    let t = s.trim();
    if t.ends_with(['.', '!', '?', '…']) {
        t.to_owned()
    } else {
        format!("{t}.")
    }
}

fn sorted(mut v: Vec<String>) -> Vec<String> {
    v.sort();
    v.dedup();
    v
}

fn commit_rationale(c: &Change, m: &Message<'_>) -> String {
    let p = why_patterns();
    let subject = p.map_or(m.subject.to_owned(), |p| {
        p.pr_suffix.replace(m.subject, "").into_owned()
    });
    // The pull request the subject names is where the discussion is.
    let pr = p
        .and_then(|p| p.pr_suffix.find(m.subject))
        .map(|s| s.as_str().trim().trim_matches(['(', ')']).to_owned())
        .map(|n| match m.repo {
            Some(r) => format!(" ({r}{n})"),
            None => format!(" ({n})"),
        })
        .unwrap_or_default();
    let whose = m.repo.map_or(String::new(), |r| format!(" in {r}"));
    format!(
        "A commit{whose}{pr} changed {}: \"{}\".",
        c.quote,
        super::clip(&subject, 200)
    )
}

/// Whether `c` is a change worth reading for a lesson: a dependency of a
/// manifest with a version on both sides.
fn both_sides(c: &Change) -> Option<(&str, &str)> {
    Some((c.from.as_deref()?, c.to.as_deref()?))
}

/// Whether a change moved a dependency down (its new lowest release below
/// its old one).
fn to_low_below(eco: Ecosystem, c: &Change) -> bool {
    match (
        c.from.as_deref().and_then(|f| lowest(eco, f)),
        c.to.as_deref().and_then(|t| lowest(eco, t)),
    ) {
        (Some(f), Some(t)) => t.compare(&f).is_lt(),
        _ => false,
    }
}

/// The versions a requirement text excludes one by one (`!=2.1.0`).
fn excluded(text: &str) -> Vec<Point> {
    text.split([',', ' '])
        .filter_map(|t| t.trim().strip_prefix("!="))
        .filter_map(|v| release_point(v.trim()))
        .collect()
}

/// The change templates (a commit's manifest diff and its message).
fn change_draft(facts: &[Fact], m: &Message<'_>) -> Result<Draft, Refusal> {
    let changes: Vec<&Change> = facts
        .iter()
        .filter_map(|f| match f {
            Fact::Change(c) if c.via == Via::Manifest => Some(c),
            _ => None,
        })
        .collect();
    if changes.is_empty() {
        return Err(Refusal::NoVersions);
    }
    // A published package's peer and engine ranges: facts of their own.
    for c in &changes {
        if let Some(d) = published_range(c) {
            return d;
        }
    }
    let said = effective_subject(m).to_lowercase();
    let text = message_text(m).to_lowercase();
    let reverting = said.starts_with("revert") || said.contains("unpin");
    // `perf(x): downgrade y`: the newer y was slower (a downgrade only).
    let slower = (said.starts_with("perf") && !is_bot(m)).then(|| Why {
        problem: "is slower".into(),
        refs: Vec::new(),
        clause: None,
        described: true,
    });
    // "Downgrade survey to v2.1.1": a person moved a dependency back on
    // purpose, which says the newer release has a problem (a downgrade only).
    let moved_back = (["downgrade", "roll back", "rollback"]
        .iter()
        .any(|w| said.contains(w))
        && !is_bot(m))
    .then(|| Why {
        problem: "has a problem".into(),
        refs: Vec::new(),
        clause: None,
        described: false,
    });
    let slower = slower.or(moved_back);
    let reason = why(m);
    if reason.is_none() && slower.is_none() {
        return Err(Refusal::NoResolution);
    }
    let mut best: Option<Draft> = None;
    for c in &changes {
        if matches!(c.section, Some(Section::Peer | Section::Engines)) {
            continue;
        }
        // A change the message does not name is incidental to it, unless
        // it is the commit's only change and the message cites an advisory
        // or issue for it ("Merge pull request from GHSA-…").
        let only = changes.iter().all(|o| o.package == c.package);
        let cited = reason.as_ref().is_some_and(|w| !w.refs.is_empty());
        if !(names(&text, &c.package) || (only && cited)) {
            continue;
        }
        let Some(to_t) = c.to.as_deref() else {
            continue;
        };
        let eco = c.ecosystem;
        let Some(to_low) = lowest(eco, to_t) else {
            continue;
        };
        let pkg = key(eco, &c.package);
        let name = shown(&c.package);
        let exact_to = is_exact(eco, to_t);
        // Every template but a downgrade needs the message's own reason.
        let Some(w) = reason
            .clone()
            .or_else(|| (to_low_below(eco, c)).then(|| slower.clone()).flatten())
        else {
            continue;
        };
        let one = |template: Template,
                   claim: String,
                   resolution: String,
                   range: Option<String>|
         -> Option<Draft> {
            Some(Draft {
                template,
                claim,
                rationale: commit_rationale(c, m),
                resolution,
                stack: vec![pkg.clone()],
                versions: BTreeMap::from([(pkg.clone(), range?)]),
            })
        };
        let draft = match c.from.as_deref() {
            // A dependency added already pinned, with a reason: a pin.
            // (Not in go.mod, where every requirement names one version.)
            None if exact_to && eco != Ecosystem::Go => {
                let v = to_low.text();
                one(
                    Template::Pin,
                    format!("{name} above {v} {}{}", w.problem, why_suffix(&w)),
                    format!("Pin {name} to {v} until a release above {v} fixes it."),
                    range_of(&above(&to_low)),
                )
            }
            // A dependency added with an upper bound, for a reason the
            // message describes: from the bound on is what broke.
            // (Explicit only: the cap a caret or tilde implies, `0.4` in
            // Cargo or `^1.2` in npm, is how every dependency is added.)
            None if w.described && to_t.contains('<') => match highest_end(eco, to_t) {
                Some(End::Excl(p)) => one(
                    Template::Downgrade,
                    format!(
                        "{name} {} and later {}{}",
                        p.text(),
                        w.problem,
                        why_suffix(&w)
                    ),
                    format!(
                        "Keep {name} within {} until a later release fixes it.",
                        to_t.trim()
                    ),
                    range_of(&from(&p)),
                ),
                Some(End::Incl(p)) => one(
                    Template::Downgrade,
                    format!("{name} above {} {}{}", p.text(), w.problem, why_suffix(&w)),
                    format!(
                        "Keep {name} within {} until a later release fixes it.",
                        to_t.trim()
                    ),
                    range_of(&above(&p)),
                ),
                _ => None,
            },
            None => None,
            Some(from_t) => {
                let Some(from_d) = declared(eco, from_t) else {
                    continue;
                };
                let Some(from_low) = lowest(eco, from_t) else {
                    continue;
                };
                let newly_excluded: Vec<Point> = excluded(to_t)
                    .into_iter()
                    .filter(|v| !excluded(from_t).iter().any(|o| o.compare(v).is_eq()))
                    .collect();
                let from_high = highest_end(eco, from_t);
                let to_high = highest_end(eco, to_t);
                let capped = match (&from_high, &to_high) {
                    (Some(End::Open), Some(End::Excl(_) | End::Incl(_))) => true,
                    (Some(End::Excl(f) | End::Incl(f)), Some(End::Excl(t) | End::Incl(t))) => {
                        t.compare(f).is_lt()
                    }
                    _ => false,
                };
                if let Some(v) = newly_excluded.iter().max_by(|a, b| a.compare(b)) {
                    // `!=2.1.0` added: exactly that version, and the lesson says so.
                    let v = v.text();
                    Some(Draft {
                        template: Template::Pin,
                        claim: format!("{name} {v} {}{}; other releases do not", w.problem, why_suffix(&w)),
                        rationale: format!("{} Scoped to exactly {name} {v}: the change excludes that one release.", commit_rationale(c, m)),
                        resolution: format!("Avoid {name} {v}: require a release other than {v}."),
                        stack: vec![pkg.clone()],
                        versions: BTreeMap::from([(pkg.clone(), format!("={v}"))]),
                    })
                } else if exact_to
                    && !is_exact(eco, from_t)
                    && from_d.contains(&to_low)
                    && !reverting
                {
                    // A range pinned to one of its releases (`^0.24.0` →
                    // `0.24.0`, `5.2` → `=5.2.4`): above it is what broke.
                    let v = to_low.text();
                    one(
                        Template::Pin,
                        format!("{name} above {v} {}{}", w.problem, why_suffix(&w)),
                        format!("Pin {name} to {v} until a release above {v} fixes it."),
                        range_of(&above(&to_low)),
                    )
                } else if to_low.compare(&from_low).is_lt() {
                    // Moved back: above the version it went back to (or above
                    // the new range) is what broke.
                    let since = from_low.text();
                    // A range that still admits the version moved away from
                    // (`^3.1.7` → `^3.0.0`) leaves it to the lockfile: from
                    // that version on is what broke, and the person must
                    // stay below it.
                    let still_admits = declared(eco, to_t).is_some_and(|d| d.contains(&from_low));
                    let broken = match to_high.clone() {
                        _ if still_admits => from(&from_low),
                        Some(End::Excl(p)) => from(&p),
                        Some(End::Incl(p)) => above(&p),
                        _ => continue,
                    };
                    let back = if still_admits {
                        format!("below {since}")
                    } else if exact_to {
                        to_low.text()
                    } else {
                        to_t.trim().to_owned()
                    };
                    one(
                        Template::Downgrade,
                        format!(
                            "{name} {since} and later {}{}; {name} {back} does not",
                            w.problem,
                            why_suffix(&w)
                        ),
                        format!("Stay on {name} {back} until a release past {since} fixes it."),
                        range_of(&broken),
                    )
                } else if capped && !to_low.compare(&from_low).is_gt() {
                    // An upper bound added or lowered: from there on is what broke.
                    let (broken, from_cap) = match to_high.clone() {
                        Some(End::Excl(p)) => (from(&p), format!("{} and later", p.text())),
                        Some(End::Incl(p)) => (above(&p), format!("above {}", p.text())),
                        _ => continue,
                    };
                    one(
                        Template::Downgrade,
                        format!("{name} {from_cap} {}{}", w.problem, why_suffix(&w)),
                        format!(
                            "Keep {name} within {} until a later release fixes it.",
                            to_t.trim()
                        ),
                        range_of(&broken),
                    )
                } else if to_low.compare(&from_low).is_gt() && w.described && !reverting {
                    // Moved up to get a fix the message names: below the new
                    // floor is what is broken.
                    let v = to_low.text();
                    one(
                        if c.section == Some(Section::Overrides) {
                            Template::Override
                        } else {
                            Template::Upgrade
                        },
                        format!("{name} below {v} {}{}", w.problem, why_suffix(&w)),
                        format!("Upgrade {name} to {v} or later."),
                        range_of(&below(&to_low)),
                    )
                } else {
                    None
                }
            }
        };
        if let Some(d) = draft {
            // The first change the message names that makes a lesson.
            best = Some(d);
            break;
        }
    }
    best.ok_or(Refusal::NoResolution)
}

/// A published package's peer or engine range narrowed. (Widened ranges —
/// support added — are not lessons: the hand labels of real histories call
/// them plain changes, and an install that needs them says so itself.)
fn published_range(c: &Change) -> Option<Result<Draft, Refusal>> {
    let section = c.section?;
    if !matches!(section, Section::Peer | Section::Engines) {
        return None;
    }
    let owner = c.owner.as_ref()?;
    let (from_t, to_t) = both_sides(c)?;
    let eco = c.ecosystem;
    let (old, new) = (declared(eco, from_t)?, declared(eco, to_t)?);
    let dropped = old.minus(&new);
    let ov = owner.version.as_deref().and_then(release_point);
    let pkg = key(eco, &c.package);
    let owner_key = key(eco, &owner.name);
    let name = shown(&c.package);
    let kind = if section == Section::Peer {
        "peer "
    } else {
        ""
    };
    if let Some(gap) = dropped.intervals().last().filter(|_| !dropped.is_empty()) {
        let Some(ov) = ov else {
            return Some(Err(Refusal::NoVersions));
        };
        let gap_range = range_of(gap)?;
        return Some(Ok(Draft {
            template: Template::Narrowed,
            claim: format!(
                "{} {} requires {kind}{name} {}; {name} {gap_range} is no longer supported",
                owner.name,
                if owner.from_on {
                    format!("{} and later", ov.text())
                } else {
                    format!("releases after {}", ov.text())
                },
                to_t.trim()
            ),
            rationale: format!(
                "The {} manifest of {} {} changed its {}{} range from {} to {} ({}).",
                owner.name,
                owner.name,
                ov.text(),
                kind,
                name,
                from_t.trim(),
                to_t.trim(),
                c.quote
            ),
            resolution: format!(
                "On {name} {gap_range}, stay {} {} {} or move {name} into {}.",
                if owner.from_on { "below" } else { "on" },
                owner.name,
                ov.text(),
                to_t.trim()
            ),
            stack: sorted(vec![pkg.clone(), owner_key.clone()]),
            versions: BTreeMap::from([
                (pkg, gap_range),
                (owner_key, range_of(&next_releases(owner, &ov))?),
            ]),
        }));
    }
    None
}

/// The draft the facts support. `message` is the commit's, for facts from
/// a commit; `None` for a session's.
pub fn draft(facts: &[Fact], message: Option<&Message<'_>>) -> Result<Draft, Refusal> {
    if let Some(result) = conflict(facts) {
        return result;
    }
    match message {
        Some(m) => change_draft(facts, m),
        None => session_change(facts),
    }
}

/// A session with no conflict: a version moved back (a downgrade or a
/// pin) after a failure, stated in the session's own words elsewhere —
/// the conflict template has nothing to bind to, so no lesson here.
fn session_change(facts: &[Fact]) -> Result<Draft, Refusal> {
    let any_change = facts.iter().any(|f| matches!(f, Fact::Change(_)));
    let any_requirement = facts.iter().any(|f| matches!(f, Fact::Requirement(_)));
    if any_requirement && !any_change {
        Err(Refusal::NoResolution)
    } else {
        Err(Refusal::NoVersions)
    }
}

#[cfg(test)]
mod tests;
mod why;
