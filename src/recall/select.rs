//! Deciding, per lesson, whether it holds for a project's installed stack,
//! and ordering the ones that do.
//!
//! Rules (the contract `docs/recall.md` describes):
//!
//! - **Status.** Only `active` lessons are evaluated. `retracted` and
//!   `refuted` ones are never recalled. A `superseded` lesson is never
//!   recalled itself: its `superseded_by` chain is followed (cycle-safe) to
//!   the first `active` successor present in the input, which is evaluated
//!   on its own scope like any active lesson; a chain that ends at a
//!   missing, retracted or refuted lesson, or loops, is reported as such.
//!   The same id given twice (one lesson in two pools) counts once, the
//!   most final status winning (retracted, refuted, superseded, active).
//! - **Versioned.** A lesson applies when **every** key of
//!   `scope.versions` is installed and in range, **in one workspace**: the
//!   lesson `{"vite": "<6", "vitest": ">=4"}` does not apply because one
//!   workspace has vite 5 and another vitest 4. A workspace sees its own
//!   packages and, for a name it does not have, those of the nearest
//!   enclosing workspace (as Node resolves `node_modules` upwards). Where a
//!   workspace sees several copies of a package (nested `node_modules`),
//!   one copy in range is enough. Keys outside `versions` (the rest of
//!   `stack`) do not matter.
//! - **Outcomes.** A key whose package no workspace has is `NAME not
//!   installed`; a version out of range is `NAME 8.0.16 is not <6`; a
//!   comparison that cannot be made is `unknown: NAME …` (see
//!   `crate::version::match_version`). A lesson with a key out of range or
//!   absent does not apply; one whose only failures are unknown is
//!   [`Outcome::Unknown`], counted and named, never recalled. When the
//!   stack has more than one workspace, reasons name the workspace they
//!   were judged in (the one that came closest).
//! - **Version-independent.** Applies when any entry of `stack` is
//!   installed in any workspace.
//! - **Names.** A key or stack entry may carry an ecosystem prefix
//!   (`pypi:requests`); without one it names that package in any
//!   ecosystem. Names compare by each ecosystem's normalisation.
//! - **Order.** Most specific first: more keys in `versions`; then more
//!   bounds (a two-sided or exact range counts two, a one-sided range one);
//!   version-independent lessons last. Then newest `promoted_at` first
//!   (compared as text, which orders the `YYYY-MM-DDTHH:MM:SSZ` form every
//!   record uses). Then id.
//!
//! This module is pure and linear in the number of lessons: each distinct
//! key is looked up once.

use std::borrow::Cow;
use std::cell::OnceCell;
use std::cmp::Reverse;
use std::collections::{HashMap, HashSet};

use serde::Serialize;

use super::stack::{Installed, Stack};
use crate::model::{Id, Lesson, LessonStatus, Scope};
use crate::version::{
    coarse_name, decide, normalize_generic, read, read_generic, split_key, Ecosystem, Interval,
    Match, Range, Reading,
};

/// One package that made a lesson apply.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Matched<'a> {
    /// The lesson's key (a `versions` key, or a `stack` entry).
    pub key: &'a str,
    /// The range it was matched against, as the lesson writes it; `None`
    /// for a version-independent lesson.
    pub range: Option<&'a str>,
    /// The installed package (serialised inline: name, version, ecosystem,
    /// source, workspace).
    #[serde(flatten)]
    pub package: &'a Installed,
}

/// What a lesson is for this stack.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome<'a> {
    /// Recalled. `matched` lists, per key, the copy that matched in the
    /// first workspace listed. `workspaces` are the workspaces whose own
    /// packages make it hold; a workspace holding none of the lesson's
    /// packages sees its nearest enclosing workspace's and is not listed.
    Applies {
        matched: Vec<Matched<'a>>,
        workspaces: Vec<&'a str>,
    },
    /// Not recalled: expired (out of range), absent, or not active.
    NotApplies { reasons: Vec<String> },
    /// Not recalled: a comparison could not be made.
    Unknown { reasons: Vec<String> },
}

/// The decision on one lesson.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Decision<'a> {
    pub lesson: &'a Lesson,
    pub outcome: Outcome<'a>,
    /// For a superseded lesson, the active successor that stands in for it.
    pub superseded_by: Option<Id>,
    /// The lesson's [`specificity`], computed once.
    pub specificity: Specificity,
    /// `promoted_at` as a number (its digits), for ordering.
    recency: u64,
}

/// How specific a lesson is: the primary and secondary ordering keys.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct Specificity {
    /// Keys in `scope.versions` (0 for version-independent).
    pub keys: usize,
    /// Bounds over all keys: two for a two-sided or exact range, one for a
    /// one-sided range.
    pub bounds: usize,
}

/// The specificity of a lesson (see the module doc). Bounds are counted as
/// written: two for a two-sided (`>=A <B`) or exact (`=V`) range, one for
/// any other.
pub fn specificity(lesson: &Lesson) -> Specificity {
    match &lesson.applies_to.scope {
        Scope::VersionIndependent { .. } => Specificity { keys: 0, bounds: 0 },
        Scope::Versioned { versions } => Specificity {
            keys: versions.len(),
            bounds: versions
                .values()
                .map(|r| {
                    if r.contains(' ') || r.starts_with('=') {
                        2
                    } else {
                        1
                    }
                })
                .sum(),
        },
    }
}

/// Counts of a selection, by what happened to each lesson.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Counts {
    /// Active lessons that apply.
    pub applies: usize,
    /// Active lessons out of range or whose packages are absent.
    pub not_applies: usize,
    /// Active lessons that could not be decided.
    pub unknown: usize,
    /// Superseded lessons (their successors are counted on their own).
    pub superseded: usize,
    /// Retracted and refuted lessons.
    pub hidden: usize,
}

/// The result of [`select`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Selection<'a> {
    /// The lessons that apply, most specific first.
    pub applies: Vec<Decision<'a>>,
    /// Every other lesson: unknown first, then not applying, superseded,
    /// retracted and refuted; each group most specific first.
    pub others: Vec<Decision<'a>>,
    pub counts: Counts,
}

/// Decides every lesson against the stack (see the module doc).
pub fn select<'a>(lessons: &'a [Lesson], stack: &'a Stack) -> Selection<'a> {
    let index = Index::new(stack);
    let lessons = dedupe(lessons);
    let mut cache = Lookups::default();
    let mut applies = Vec::new();
    let mut others = Vec::with_capacity(lessons.len());
    let mut counts = Counts::default();
    for &lesson in &lessons {
        let (outcome, superseded_by) = match lesson.status {
            LessonStatus::Retracted | LessonStatus::Refuted => {
                counts.hidden += 1;
                let reason = lesson.status.as_str().to_owned();
                (
                    Outcome::NotApplies {
                        reasons: vec![reason],
                    },
                    None,
                )
            }
            LessonStatus::Superseded => {
                counts.superseded += 1;
                let (reason, successor) = successor(lesson, &lessons);
                (
                    Outcome::NotApplies {
                        reasons: vec![reason],
                    },
                    successor,
                )
            }
            LessonStatus::Active => {
                let outcome = index.evaluate(lesson, &mut cache);
                match outcome {
                    Outcome::Applies { .. } => counts.applies += 1,
                    Outcome::NotApplies { .. } => counts.not_applies += 1,
                    Outcome::Unknown { .. } => counts.unknown += 1,
                }
                (outcome, None)
            }
        };
        let decision = Decision {
            lesson,
            outcome,
            superseded_by,
            specificity: specificity(lesson),
            recency: recency(&lesson.promoted_at),
        };
        if matches!(decision.outcome, Outcome::Applies { .. }) {
            applies.push(decision);
        } else {
            others.push(decision);
        }
    }
    let applies = sorted(applies, |_| 0);
    let others = sorted(others, group);
    Selection {
        applies,
        others,
        counts,
    }
}

/// The group of a non-applying decision, for ordering.
fn group(d: &Decision<'_>) -> u8 {
    match (d.lesson.status, &d.outcome) {
        (LessonStatus::Active, Outcome::Unknown { .. }) => 0,
        (LessonStatus::Active, _) => 1,
        (LessonStatus::Superseded, _) => 2,
        _ => 3,
    }
}

/// Orders decisions by group, then specificity, then recency, then id,
/// sorting compact keys rather than the decisions themselves.
fn sorted<'a>(decisions: Vec<Decision<'a>>, group: fn(&Decision<'_>) -> u8) -> Vec<Decision<'a>> {
    type Key = (u8, Reverse<usize>, Reverse<usize>, Reverse<u64>, Id, usize);
    let mut keys: Vec<Key> = decisions
        .iter()
        .enumerate()
        .map(|(i, d)| {
            (
                group(d),
                Reverse(d.specificity.keys),
                Reverse(d.specificity.bounds),
                Reverse(d.recency),
                d.lesson.id,
                i,
            )
        })
        .collect();
    keys.sort_unstable();
    let mut slots: Vec<Option<Decision<'a>>> = decisions.into_iter().map(Some).collect();
    keys.into_iter().filter_map(|k| slots[k.5].take()).collect()
}

/// A `YYYY-MM-DDTHH:MM:SSZ` timestamp as the number its digits spell
/// (`20260805100001`), which orders like the text; anything else is 0
/// (oldest).
fn recency(ts: &str) -> u64 {
    let b = ts.as_bytes();
    let shape = b.len() == 20
        && b[4] == b'-'
        && b[7] == b'-'
        && b[10] == b'T'
        && b[13] == b':'
        && b[16] == b':'
        && b[19] == b'Z';
    if !shape {
        return 0;
    }
    let mut n: u64 = 0;
    for (i, &c) in b[..19].iter().enumerate() {
        if matches!(i, 4 | 7 | 10 | 13 | 16) {
            continue;
        }
        if !c.is_ascii_digit() {
            return 0;
        }
        n = n * 10 + u64::from(c - b'0');
    }
    n
}

/// One lesson per id, the most final status winning (first given among
/// equals), sorted by id so that [`find`] can binary-search it.
fn dedupe(lessons: &[Lesson]) -> Vec<&Lesson> {
    let rank = |s: LessonStatus| match s {
        LessonStatus::Retracted => 3,
        LessonStatus::Refuted => 2,
        LessonStatus::Superseded => 1,
        LessonStatus::Active => 0,
    };
    let mut all: Vec<(Id, Reverse<u8>, usize)> = lessons
        .iter()
        .enumerate()
        .map(|(i, l)| (l.id, Reverse(rank(l.status)), i))
        .collect();
    all.sort_unstable();
    all.dedup_by(|later, kept| later.0 == kept.0);
    all.into_iter().map(|(_, _, i)| &lessons[i]).collect()
}

/// The lesson with this id in a list sorted by id.
fn find<'a>(sorted: &[&'a Lesson], id: Id) -> Option<&'a Lesson> {
    sorted
        .binary_search_by(|l| l.id.cmp(&id))
        .ok()
        .map(|i| sorted[i])
}

/// Follows a superseded lesson's chain to its first active successor.
fn successor(lesson: &Lesson, sorted: &[&Lesson]) -> (String, Option<Id>) {
    let mut seen = HashSet::from([lesson.id]);
    let mut current = lesson;
    loop {
        let Some(next) = current.superseded_by else {
            return if current.id == lesson.id {
                ("superseded, with no successor named".to_owned(), None)
            } else {
                (
                    format!("superseded by {}, which names no successor", current.id),
                    None,
                )
            };
        };
        let Some(found) = find(sorted, next) else {
            return (
                format!("superseded by {next}, which is not in the pools"),
                None,
            );
        };
        if !seen.insert(next) {
            return (format!("superseded in a cycle (through {next})"), None);
        }
        match found.status {
            LessonStatus::Active => return (format!("superseded by {next}"), Some(next)),
            LessonStatus::Superseded => current = found,
            other => {
                return (
                    format!("superseded by {next}, which is {}", other.as_str()),
                    None,
                )
            }
        }
    }
}

/// The stack, indexed for lookups by normalised name and for workspace
/// visibility.
struct Index<'s> {
    packages: &'s [Installed],
    /// Coarse name ([`coarse_name`]) → packages.
    by_name: HashMap<String, Vec<usize>>,
    /// Each package's name normalised by its own ecosystem.
    own: Vec<String>,
    /// Workspace id of each package.
    ws_of: Vec<usize>,
    /// Workspace directories, `.` first when present.
    ws_names: Vec<&'s str>,
    /// For each workspace, itself and its enclosing workspaces, nearest
    /// first.
    chain: Vec<Vec<usize>>,
    /// Each package's version, read by its ecosystem's rules on first use.
    readings: Vec<OnceCell<Reading>>,
}

/// Each distinct lesson key looked up, and each distinct range text
/// parsed, once per selection.
#[derive(Default)]
struct Lookups<'k> {
    slots: HashMap<&'k str, usize>,
    hits: Vec<Vec<usize>>,
    range_slots: HashMap<&'k str, usize>,
    ranges: Vec<Result<Prepared, String>>,
}

/// A lesson range, parsed, with its interval and canonical text.
struct Prepared {
    range: Range,
    interval: Interval,
    text: String,
}

impl<'k> Lookups<'k> {
    /// The slot in `hits` of a key's packages, looked up on first use.
    fn slot(&mut self, index: &Index<'_>, key: &'k str) -> usize {
        if let Some(&s) = self.slots.get(key) {
            return s;
        }
        self.hits.push(index.lookup(key));
        self.slots.insert(key, self.hits.len() - 1);
        self.hits.len() - 1
    }

    /// The slot in `ranges` of a range text, parsed on first use.
    fn range_slot(&mut self, text: &'k str) -> usize {
        if let Some(&s) = self.range_slots.get(text) {
            return s;
        }
        let prepared = Range::parse(text)
            .map(|range| Prepared {
                interval: Interval::of(&range),
                text: range.to_string(),
                range,
            })
            .map_err(|e| e.to_string());
        self.ranges.push(prepared);
        self.range_slots.insert(text, self.ranges.len() - 1);
        self.ranges.len() - 1
    }
}

/// How one key fared in one workspace.
enum KeyResult {
    InRange(usize),
    Absent,
    Out(Vec<String>),
    Unknown(Vec<String>),
}

impl<'s> Index<'s> {
    fn new(stack: &'s Stack) -> Index<'s> {
        let ws_names = stack.workspaces();
        let ws_id: HashMap<&str, usize> =
            ws_names.iter().enumerate().map(|(i, w)| (*w, i)).collect();
        let mut by_name: HashMap<String, Vec<usize>> = HashMap::new();
        let mut ws_of = Vec::with_capacity(stack.packages.len());
        let mut own = Vec::with_capacity(stack.packages.len());
        for (i, p) in stack.packages.iter().enumerate() {
            by_name.entry(coarse_name(&p.name)).or_default().push(i);
            ws_of.push(ws_id[p.workspace.as_str()]);
            own.push(own_name(p));
        }
        let chain: Vec<Vec<usize>> = ws_names
            .iter()
            .map(|w| {
                let mut ids = Vec::new();
                let mut dir = *w;
                loop {
                    if let Some(&id) = ws_id.get(dir) {
                        ids.push(id);
                    }
                    if dir == "." {
                        break;
                    }
                    dir = dir.rfind('/').map_or(".", |at| &dir[..at]);
                }
                ids
            })
            .collect();
        Index {
            packages: &stack.packages,
            by_name,
            own,
            ws_of,
            ws_names,
            chain,
            readings: (0..stack.packages.len()).map(|_| OnceCell::new()).collect(),
        }
    }

    /// The installed packages a lesson key names, in any workspace: those
    /// sharing its coarse form, kept when their own ecosystem's rule (or
    /// the key's named ecosystem) agrees.
    fn lookup(&self, key: &str) -> Vec<usize> {
        let (eco, name) = split_key(key);
        let Some(bucket) = self.by_name.get(&coarse_name(name)) else {
            return Vec::new();
        };
        bucket
            .iter()
            .copied()
            .filter(|&i| {
                let p = &self.packages[i];
                match (eco, p.ecosystem) {
                    (Some(want), Some(got)) if want != got => false,
                    (_, Some(got)) => got.normalize_name(name) == self.own[i],
                    (_, None) => normalize_generic(name) == self.own[i],
                }
            })
            .collect()
    }

    fn evaluate(&self, lesson: &'s Lesson, cache: &mut Lookups<'s>) -> Outcome<'s> {
        match &lesson.applies_to.scope {
            Scope::VersionIndependent { .. } => self.independent(lesson, cache),
            Scope::Versioned { versions } => {
                if versions.is_empty() {
                    return Outcome::Unknown {
                        reasons: vec!["unknown: the lesson's scope names no versions".to_owned()],
                    };
                }
                // A package no workspace has decides alone, before any range
                // is read: most lessons of a large pool end here.
                let slots: Vec<usize> = versions.keys().map(|k| cache.slot(self, k)).collect();
                let absent: Vec<String> = versions
                    .keys()
                    .zip(&slots)
                    .filter(|(_, &s)| cache.hits[s].is_empty())
                    .map(|(k, _)| format!("{} not installed", clip(k)))
                    .collect();
                if !absent.is_empty() {
                    return Outcome::NotApplies { reasons: absent };
                }
                let range_slots: Vec<usize> =
                    versions.values().map(|t| cache.range_slot(t)).collect();
                let mut keys = Vec::with_capacity(versions.len());
                for ((key, text), (&slot, &r)) in
                    versions.iter().zip(slots.iter().zip(&range_slots))
                {
                    let prepared = match &cache.ranges[r] {
                        Ok(p) => p,
                        Err(e) => {
                            return Outcome::Unknown {
                                reasons: vec![format!(
                                    "unknown: {} range {:?} is not valid: {e}",
                                    clip(key),
                                    clip(text)
                                )],
                            }
                        }
                    };
                    if prepared.interval.is_empty() {
                        return Outcome::NotApplies {
                            reasons: vec![format!(
                                "{} {} admits no version (a partial version is a prefix: >4 means from 5.0.0)",
                                clip(key),
                                prepared.text
                            )],
                        };
                    }
                    keys.push((
                        key.as_str(),
                        text.as_str(),
                        prepared,
                        cache.hits[slot].as_slice(),
                    ));
                }
                self.versioned(&keys)
            }
        }
    }

    fn independent(&self, lesson: &'s Lesson, cache: &mut Lookups<'s>) -> Outcome<'s> {
        let mut matched = Vec::new();
        let mut workspaces: Vec<&'s str> = Vec::new();
        for entry in &lesson.applies_to.stack {
            let slot = cache.slot(self, entry);
            let hits = &cache.hits[slot];
            if let Some(&i) = hits.first() {
                matched.push(self.matched(entry, None, i));
            }
            for &i in hits {
                let w = self.packages[i].workspace.as_str();
                if !workspaces.contains(&w) {
                    workspaces.push(w);
                }
            }
        }
        if !matched.is_empty() {
            workspaces.sort();
            return Outcome::Applies {
                matched,
                workspaces,
            };
        }
        let names: Vec<Cow<'_, str>> = lesson.applies_to.stack.iter().map(|s| clip(s)).collect();
        let reason = match names.as_slice() {
            [] => "the lesson names no stack".to_owned(),
            [one] => format!("{one} not installed"),
            many => format!("none of {} is installed", many.join(", ")),
        };
        Outcome::NotApplies {
            reasons: vec![reason],
        }
    }

    fn matched(&self, key: &'s str, range: Option<&'s str>, i: usize) -> Matched<'s> {
        Matched {
            key,
            range,
            package: &self.packages[i],
        }
    }

    fn versioned(&self, keys: &[(&'s str, &'s str, &Prepared, &[usize])]) -> Outcome<'s> {
        // Only workspaces that hold a copy of some key can decide anything:
        // one that holds none sees exactly what its nearest such enclosing
        // workspace sees, so it has the same outcome. This keeps the work
        // proportional to the copies, not to the number of workspaces.
        let mut relevant: Vec<usize> = keys
            .iter()
            .flat_map(|(_, _, _, hits)| hits.iter().map(|&i| self.ws_of[i]))
            .collect();
        relevant.sort_unstable();
        relevant.dedup();
        let qualify = self.ws_names.len() > 1;
        let mut applied: Vec<(usize, Vec<Matched<'s>>)> = Vec::new();
        let mut first_unknown: Option<Vec<String>> = None;
        let mut best: Option<(usize, Vec<String>)> = None;
        for w in relevant {
            let mut in_range = 0;
            let mut matched = Vec::new();
            let mut failures = Vec::new();
            let mut any_hard = false;
            for &(key, text, range, hits) in keys {
                match self.judge(w, key, range, hits) {
                    KeyResult::InRange(i) => {
                        in_range += 1;
                        matched.push(self.matched(key, Some(text), i));
                    }
                    KeyResult::Absent => {
                        any_hard = true;
                        failures.push(format!("{} not installed", clip(key)));
                    }
                    KeyResult::Out(r) => {
                        any_hard = true;
                        failures.extend(r);
                    }
                    KeyResult::Unknown(r) => failures.extend(r),
                }
            }
            if failures.is_empty() {
                applied.push((w, matched));
                continue;
            }
            if qualify {
                let at = format!(" (in {})", self.ws_names[w]);
                for f in &mut failures {
                    f.push_str(&at);
                }
            }
            if !any_hard && first_unknown.is_none() {
                first_unknown = Some(failures);
            } else if best.as_ref().is_none_or(|(n, _)| in_range > *n) {
                best = Some((in_range, failures));
            }
        }
        if let Some((_, matched)) = applied.first() {
            let workspaces = applied.iter().map(|(w, _)| self.ws_names[*w]).collect();
            return Outcome::Applies {
                matched: matched.clone(),
                workspaces,
            };
        }
        if let Some(reasons) = first_unknown {
            return Outcome::Unknown { reasons };
        }
        Outcome::NotApplies {
            reasons: best.map(|(_, r)| r).unwrap_or_default(),
        }
    }

    /// One key in one workspace: the copies visible from `w` are those of
    /// the nearest workspace in its chain that has any.
    fn judge(&self, w: usize, key: &str, range: &Prepared, hits: &[usize]) -> KeyResult {
        let Some(&home) = self.chain[w]
            .iter()
            .find(|&&d| hits.iter().any(|&i| self.ws_of[i] == d))
        else {
            return KeyResult::Absent;
        };
        let mut out = Vec::new();
        let mut unknown = Vec::new();
        for &i in hits.iter().filter(|&&i| self.ws_of[i] == home) {
            let p = &self.packages[i];
            let reading = self.readings[i].get_or_init(|| match p.ecosystem {
                Some(e) => read(e, &p.version),
                None => read_generic(&p.version),
            });
            let pep440 = p.ecosystem == Some(Ecosystem::PyPI);
            let m = decide(reading, pep440, &range.range, &range.interval, &p.version);
            match m {
                Match::InRange => return KeyResult::InRange(i),
                Match::OutOfRange { why } => out.push(format!("{} {why}", clip(key))),
                Match::Unknown { why } => unknown.push(format!("unknown: {} {why}", clip(key))),
            }
        }
        if out.is_empty() {
            KeyResult::Unknown(unknown)
        } else {
            out.extend(unknown);
            KeyResult::Out(out)
        }
    }
}

/// The normalised name of an installed package, by its own ecosystem.
fn own_name(p: &Installed) -> String {
    match p.ecosystem {
        Some(e) => e.normalize_name(&p.name),
        None => normalize_generic(&p.name),
    }
}

/// Lesson text as it appears in a reason: at most 80 characters, control,
/// bidi and invisible characters dropped
/// ([`crate::content::text::is_shown`]; borrowed when already so).
fn clip(s: &str) -> Cow<'_, str> {
    use crate::content::text::is_shown;
    if s.len() <= 80 && s.chars().all(is_shown) {
        return Cow::Borrowed(s);
    }
    let clean: String = s.chars().filter(|&c| is_shown(c)).collect();
    match clean.char_indices().nth(80) {
        None => Cow::Owned(clean),
        Some((at, _)) => Cow::Owned(format!("{}…", &clean[..at])),
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use std::collections::BTreeMap;

    use super::*;
    use crate::model::{AppliesTo, Consensus, Evidence, Source, Visibility};
    use crate::recall::stack::{parse_override, scan, Limits};

    /// A lesson with the given id suffix, scope and promotion time.
    pub(crate) fn lesson(n: u32, versions: &[(&str, &str)], promoted_at: &str) -> Lesson {
        let id = Id::from_parts(1_780_000_000_000 + u64::from(n), u128::from(n));
        let scope = if versions.is_empty() {
            Scope::VersionIndependent {
                justification: "holds for every release".into(),
            }
        } else {
            Scope::Versioned {
                versions: versions
                    .iter()
                    .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
                    .collect::<BTreeMap<_, _>>(),
            }
        };
        let stack = if versions.is_empty() {
            vec!["vite".to_owned(), "webpack".to_owned()]
        } else {
            versions.iter().map(|(k, _)| (*k).to_owned()).collect()
        };
        Lesson {
            id,
            schema_version: 2,
            claim: format!("claim {n}"),
            rationale: format!("rationale {n}"),
            evidence: Evidence {
                artifact_ids: vec![Id::from_parts(1_770_000_000_000, u128::from(n))],
                session_ids: vec!["sess-1".into()],
                project_key: "6a7678979e31".into(),
                observed_at: "2026-08-03T15:59:48Z".into(),
                resolution: format!("resolution {n}"),
            },
            applies_to: AppliesTo {
                stack,
                scope,
                file_patterns: vec![],
                task_kinds: vec![],
            },
            visibility: Visibility::Org,
            consensus: Consensus {
                judges: 2,
                agreed: 2,
                decided_at: "2026-08-05T10:00:00Z".into(),
            },
            status: LessonStatus::Active,
            superseded_by: None,
            source: Source::Org,
            author_key: "a8cf0203e178702412d37d5f796adbdc".into(),
            promoted_at: promoted_at.into(),
        }
    }

    pub(crate) fn stack_of(pkgs: &[(&str, &str, &str)]) -> Stack {
        let mut s = Stack::default();
        for (name, version, workspace) in pkgs {
            s.packages.push(Installed {
                name: (*name).into(),
                version: (*version).into(),
                ecosystem: Some(Ecosystem::Npm),
                source: "package-lock.json".into(),
                workspace: (*workspace).into(),
            });
        }
        s
    }

    fn outcome_of<'a>(sel: &'a Selection<'_>, l: &Lesson) -> &'a Outcome<'a> {
        sel.applies
            .iter()
            .chain(&sel.others)
            .find(|d| d.lesson.id == l.id)
            .map(|d| &d.outcome)
            .unwrap()
    }

    fn reasons(o: &Outcome) -> Vec<String> {
        match o {
            Outcome::Applies { .. } => vec!["applies".into()],
            Outcome::NotApplies { reasons } => reasons.clone(),
            Outcome::Unknown { reasons } => {
                let mut r = reasons.clone();
                r.insert(0, "UNKNOWN".into());
                r
            }
        }
    }

    #[test]
    fn the_vitest_lesson() {
        let vitest = lesson(
            1,
            &[("vite", "<6"), ("vitest", ">=4")],
            "2026-08-05T10:00:01Z",
        );
        let lessons = vec![vitest.clone()];
        let old = stack_of(&[("vite", "5.4.21", "."), ("vitest", "4.1.9", ".")]);
        let sel = select(&lessons, &old);
        assert_eq!(sel.counts.applies, 1);
        match outcome_of(&sel, &vitest) {
            Outcome::Applies {
                matched,
                workspaces,
            } => {
                assert_eq!(workspaces, &["."]);
                let got: Vec<(&str, &str, &str)> = matched
                    .iter()
                    .map(|m| (m.key, m.range.unwrap(), m.package.version.as_str()))
                    .collect();
                assert_eq!(got, [("vite", "<6", "5.4.21"), ("vitest", ">=4", "4.1.9")]);
            }
            other => panic!("{other:?}"),
        }
        let new = stack_of(&[("vite", "8.0.16", "."), ("vitest", "4.1.9", ".")]);
        let sel = select(&lessons, &new);
        assert_eq!(sel.counts.not_applies, 1);
        assert_eq!(
            reasons(outcome_of(&sel, &vitest)),
            ["vite 8.0.16 is not <6"]
        );
        let no_vitest = stack_of(&[("vite", "5.4.21", ".")]);
        let sel = select(&lessons, &no_vitest);
        assert_eq!(reasons(outcome_of(&sel, &vitest)), ["vitest not installed"]);
        let nothing = Stack::default();
        assert_eq!(
            reasons(outcome_of(&select(&lessons, &nothing), &vitest)),
            ["vite not installed", "vitest not installed"]
        );
    }

    #[test]
    fn every_key_must_hold_in_one_workspace() {
        let l = lesson(
            1,
            &[("vite", "<6"), ("vitest", ">=4")],
            "2026-08-05T10:00:01Z",
        );
        let lessons = vec![l.clone()];
        // vite 5 only in apps/a, vitest 4 only in apps/b: never together.
        let split = stack_of(&[("vite", "5.4.21", "apps/a"), ("vitest", "4.1.9", "apps/b")]);
        let sel = select(&lessons, &split);
        assert_eq!(
            reasons(outcome_of(&sel, &l)),
            ["vitest not installed (in apps/a)"]
        );
        // A workspace sees the root's packages: vitest at the root.
        let hoisted = stack_of(&[
            ("vitest", "4.1.9", "."),
            ("vite", "8.0.16", "apps/new"),
            ("vite", "5.4.21", "apps/old"),
        ]);
        match outcome_of(&select(&lessons, &hoisted), &l) {
            Outcome::Applies {
                workspaces,
                matched,
            } => {
                assert_eq!(workspaces, &["apps/old"]);
                assert_eq!(matched[1].package.workspace, ".");
            }
            other => panic!("{other:?}"),
        }
        // The nearest copy wins over the root's.
        let shadow = stack_of(&[
            ("vite", "5.4.21", "."),
            ("vitest", "4.1.9", "."),
            ("vite", "8.0.16", "apps/new"),
        ]);
        match outcome_of(&select(&lessons, &shadow), &l) {
            Outcome::Applies { workspaces, .. } => assert_eq!(workspaces, &["."]),
            other => panic!("{other:?}"),
        }
        // Several copies in one workspace: one in range is enough.
        let nested = stack_of(&[
            ("vite", "8.0.16", "."),
            ("vite", "5.4.21", "."),
            ("vitest", "4.1.9", "."),
        ]);
        assert!(matches!(
            outcome_of(&select(&lessons, &nested), &l),
            Outcome::Applies { .. }
        ));
    }

    #[test]
    fn unknown_is_counted_and_never_recalled() {
        let go = lesson(1, &[("golang.org/x/exp", ">=0.1")], "2026-08-05T10:00:01Z");
        let both = lesson(
            2,
            &[("golang.org/x/exp", ">=0.1"), ("vite", "<6")],
            "2026-08-05T10:00:01Z",
        );
        let mut stack = stack_of(&[("vite", "8.0.16", ".")]);
        stack.packages.push(Installed {
            name: "golang.org/x/exp".into(),
            version: "v0.0.0-20240506185415-9bf2ced13842".into(),
            ecosystem: Some(Ecosystem::Go),
            source: "go.mod".into(),
            workspace: ".".into(),
        });
        let lessons = vec![go.clone(), both.clone()];
        let sel = select(&lessons, &stack);
        assert_eq!(sel.counts.unknown, 1);
        assert_eq!(sel.counts.not_applies, 1);
        assert!(sel.applies.is_empty());
        assert_eq!(
            reasons(outcome_of(&sel, &go)),
            [
                "UNKNOWN",
                "unknown: golang.org/x/exp v0.0.0-20240506185415-9bf2ced13842 is a Go pseudo-version (an untagged commit), which cannot be compared with a release bound"
            ]
        );
        // Out of range beats unknown: the lesson has expired.
        assert_eq!(
            reasons(outcome_of(&sel, &both)),
            [
                "unknown: golang.org/x/exp v0.0.0-20240506185415-9bf2ced13842 is a Go pseudo-version (an untagged commit), which cannot be compared with a release bound",
                "vite 8.0.16 is not <6"
            ]
        );
        assert_eq!(sel.others[0].lesson.id, go.id, "unknown sorts first");
    }

    #[test]
    fn version_independent_lessons_need_one_stack_entry() {
        let l = lesson(1, &[], "2026-08-05T10:00:01Z");
        let lessons = vec![l.clone()];
        let stack = stack_of(&[("webpack", "5.91.0", "apps/x")]);
        let sel = select(&lessons, &stack);
        match outcome_of(&sel, &l) {
            Outcome::Applies {
                matched,
                workspaces,
            } => {
                assert_eq!(matched[0].package.name, "webpack");
                assert_eq!(matched[0].range, None);
                assert_eq!(workspaces, &["apps/x"]);
            }
            other => panic!("{other:?}"),
        }
        let stack = stack_of(&[("react", "18.3.1", ".")]);
        let sel = select(&lessons, &stack);
        assert_eq!(
            reasons(outcome_of(&sel, &l)),
            ["none of vite, webpack is installed"]
        );
    }

    #[test]
    fn statuses_and_supersession_chains() {
        let stack = stack_of(&[("vite", "5.4.21", ".")]);
        let mut a = lesson(1, &[("vite", "<6")], "2026-08-01T00:00:00Z");
        let mut b = lesson(2, &[("vite", "<6")], "2026-08-02T00:00:00Z");
        let c = lesson(3, &[("vite", ">=5 <6")], "2026-08-03T00:00:00Z");
        let mut retracted = lesson(4, &[("vite", "<6")], "2026-08-04T00:00:00Z");
        let mut refuted = lesson(5, &[("vite", "<6")], "2026-08-04T00:00:00Z");
        let mut to_retracted = lesson(6, &[("vite", "<6")], "2026-08-04T00:00:00Z");
        let mut cyc1 = lesson(7, &[("vite", "<6")], "2026-08-04T00:00:00Z");
        let mut cyc2 = lesson(8, &[("vite", "<6")], "2026-08-04T00:00:00Z");
        let mut dangling = lesson(9, &[("vite", "<6")], "2026-08-04T00:00:00Z");
        a.status = LessonStatus::Superseded;
        a.superseded_by = Some(b.id);
        b.status = LessonStatus::Superseded;
        b.superseded_by = Some(c.id);
        retracted.status = LessonStatus::Retracted;
        refuted.status = LessonStatus::Refuted;
        to_retracted.status = LessonStatus::Superseded;
        to_retracted.superseded_by = Some(retracted.id);
        cyc1.status = LessonStatus::Superseded;
        cyc1.superseded_by = Some(cyc2.id);
        cyc2.status = LessonStatus::Superseded;
        cyc2.superseded_by = Some(cyc1.id);
        dangling.status = LessonStatus::Superseded;
        dangling.superseded_by = Some(Id::from_parts(1, 1));
        let lessons = vec![
            a.clone(),
            b.clone(),
            c.clone(),
            retracted.clone(),
            refuted.clone(),
            to_retracted.clone(),
            cyc1.clone(),
            cyc2.clone(),
            dangling.clone(),
        ];
        let sel = select(&lessons, &stack);
        let applied: Vec<Id> = sel.applies.iter().map(|d| d.lesson.id).collect();
        assert_eq!(applied, [c.id], "only the active successor is recalled");
        assert_eq!(
            sel.counts,
            Counts {
                applies: 1,
                not_applies: 0,
                unknown: 0,
                superseded: 6,
                hidden: 2
            }
        );
        let find = |l: &Lesson| sel.others.iter().find(|d| d.lesson.id == l.id).unwrap();
        assert_eq!(find(&a).superseded_by, Some(c.id));
        assert_eq!(
            reasons(&find(&a).outcome),
            [format!("superseded by {}", c.id)]
        );
        assert_eq!(find(&b).superseded_by, Some(c.id));
        assert_eq!(reasons(&find(&retracted).outcome), ["retracted"]);
        assert_eq!(reasons(&find(&refuted).outcome), ["refuted"]);
        assert_eq!(
            reasons(&find(&to_retracted).outcome),
            [format!(
                "superseded by {}, which is retracted",
                retracted.id
            )]
        );
        assert!(reasons(&find(&cyc1).outcome)[0].starts_with("superseded in a cycle"));
        assert_eq!(
            reasons(&find(&dangling).outcome),
            [format!(
                "superseded by {}, which is not in the pools",
                Id::from_parts(1, 1)
            )]
        );
        // The same id twice: the most final status wins.
        let mut copy = c.clone();
        copy.status = LessonStatus::Retracted;
        let twice = vec![c.clone(), copy];
        let sel = select(&twice, &stack);
        assert!(sel.applies.is_empty());
        assert_eq!(sel.counts.hidden, 1);
        assert_eq!(sel.others.len(), 1);
    }

    #[test]
    fn ordering_is_specificity_then_recency_then_id() {
        let stack = stack_of(&[
            ("vite", "5.4.21", "."),
            ("vitest", "4.1.9", "."),
            ("webpack", "5.91.0", "."),
        ]);
        let two_keys = lesson(
            1,
            &[("vite", "<6"), ("vitest", ">=4")],
            "2026-01-01T00:00:00Z",
        );
        let one_two_sided = lesson(2, &[("vite", ">=5 <6")], "2026-09-01T00:00:00Z");
        let one_exact = lesson(3, &[("vite", "=5.4.21")], "2026-03-01T00:00:00Z");
        let one_sided_new = lesson(4, &[("vite", "<6")], "2026-09-01T00:00:00Z");
        let one_sided_old = lesson(5, &[("vite", "<7")], "2026-02-01T00:00:00Z");
        let one_sided_old_b = lesson(6, &[("vite", "<8")], "2026-02-01T00:00:00Z");
        let independent = lesson(7, &[], "2026-12-01T00:00:00Z");
        let lessons = vec![
            independent.clone(),
            one_sided_old_b.clone(),
            one_sided_old.clone(),
            one_sided_new.clone(),
            one_exact.clone(),
            one_two_sided.clone(),
            two_keys.clone(),
        ];
        let sel = select(&lessons, &stack);
        let got: Vec<Id> = sel.applies.iter().map(|d| d.lesson.id).collect();
        assert_eq!(
            got,
            [
                two_keys.id,
                one_two_sided.id,
                one_exact.id,
                one_sided_new.id,
                one_sided_old.id,
                one_sided_old_b.id,
                independent.id
            ]
        );
        assert_eq!(specificity(&two_keys), Specificity { keys: 2, bounds: 2 });
        assert_eq!(specificity(&one_exact), Specificity { keys: 1, bounds: 2 });
        assert_eq!(
            specificity(&independent),
            Specificity { keys: 0, bounds: 0 }
        );
    }

    #[test]
    fn names_normalise_and_keys_may_name_an_ecosystem() {
        let mut stack = Stack::default();
        stack.packages.push(Installed {
            name: "Django".into(),
            version: "4.2.11".into(),
            ecosystem: Some(Ecosystem::PyPI),
            source: "poetry.lock".into(),
            workspace: ".".into(),
        });
        stack.packages.push(Installed {
            name: "serde_json".into(),
            version: "1.0.117".into(),
            ecosystem: Some(Ecosystem::Cargo),
            source: "Cargo.lock".into(),
            workspace: ".".into(),
        });
        let django = lesson(1, &[("django", ">=4.2 <5")], "2026-08-05T10:00:01Z");
        let pypi_django = lesson(2, &[("pypi:Django", "=4")], "2026-08-05T10:00:01Z");
        let npm_django = lesson(3, &[("npm:django", "=4")], "2026-08-05T10:00:01Z");
        let serde = lesson(4, &[("serde-json", ">=1")], "2026-08-05T10:00:01Z");
        let lessons = vec![
            django.clone(),
            pypi_django.clone(),
            npm_django.clone(),
            serde.clone(),
        ];
        let sel = select(&lessons, &stack);
        assert!(matches!(outcome_of(&sel, &django), Outcome::Applies { .. }));
        assert!(matches!(
            outcome_of(&sel, &pypi_django),
            Outcome::Applies { .. }
        ));
        assert_eq!(
            reasons(outcome_of(&sel, &npm_django)),
            ["npm:django not installed"]
        );
        assert!(matches!(outcome_of(&sel, &serde), Outcome::Applies { .. }));
    }

    #[test]
    fn broken_and_empty_ranges_are_not_recalled() {
        let stack = stack_of(&[("vite", "5.4.21", ".")]);
        let broken = lesson(1, &[("vite", "^5")], "2026-08-05T10:00:01Z");
        let empty = lesson(2, &[("vite", ">4 <4.5")], "2026-08-05T10:00:01Z");
        let lessons = vec![broken.clone(), empty.clone()];
        let sel = select(&lessons, &stack);
        assert!(sel.applies.is_empty());
        assert_eq!(
            reasons(outcome_of(&sel, &broken)),
            [
                "UNKNOWN",
                "unknown: vite range \"^5\" is not valid: npm-style '^' ranges are not allowed; write comparators, e.g. \">=5.4.21 <6\""
            ]
        );
        assert_eq!(
            reasons(outcome_of(&sel, &empty)),
            ["vite >4 <4.5 admits no version (a partial version is a prefix: >4 means from 5.0.0)"]
        );
    }

    #[test]
    fn overrides_decide_without_any_lockfile() {
        let l = lesson(
            1,
            &[("vite", "<6"), ("vitest", ">=4")],
            "2026-08-05T10:00:01Z",
        );
        let lessons = vec![l.clone()];
        let tmp = tempfile::tempdir().unwrap();
        let mut stack = scan(tmp.path(), &Limits::default());
        stack.apply_overrides(&[
            parse_override("vite@5.4.21").unwrap(),
            parse_override("vitest@4.1.9").unwrap(),
        ]);
        assert!(matches!(
            outcome_of(&select(&lessons, &stack), &l),
            Outcome::Applies { .. }
        ));
        stack.apply_overrides(&[parse_override("vite@8.0.16").unwrap()]);
        assert_eq!(
            reasons(outcome_of(&select(&lessons, &stack), &l)),
            ["vite 8.0.16 is not <6"]
        );
    }
}
