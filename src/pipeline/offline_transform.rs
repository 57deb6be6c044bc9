//! The offline transform backend: deterministic, network-free, no model.
//!
//! It answers exactly as a model would — one line of JSON, a candidate or a
//! refusal — so its answer goes through the same parse, stitch and
//! validation path as any other (`crate::pipeline::transform::decide`).
//! Records made with it say `Lore-Model: offline` (the store's business).
//!
//! **Facts first** ([`evidence`]). An artifact that carries `facts` (a
//! captured session's resolver error and what fixed it; a mined commit's
//! manifest diff), or whose text holds them (a resolver error pasted into
//! the detail, "X requires Y 6 or newer", an install command), is drafted
//! by `crate::facts::lesson`: both sides of a conflict in the stack, each
//! scoped by the broken range the evidence supports, one template per
//! signal kind (see `docs/offline.md`). A mined commit is only ever drafted
//! from its facts: `no_resolution` when its message gives no reason for the
//! change, `no_versions` when no range can be stated.
//!
//! **Then the prose rules**, for an artifact whose facts make no lesson
//! ([`RULES`] is the same text, for the CLI and docs):
//!
//! 1. **Sentences.** The summary and the detail are cut into sentences at
//!    `.`, `!` or `?` followed by whitespace (so `5.4.21` is never cut), and
//!    at line breaks; list bullets are dropped.
//! 2. **Resolution.** The first sentence (summary first, then detail) that
//!    states a resolution is the resolution. A sentence states one when it
//!    matches a cue of [`RESOLUTION_CUES`] ("fixed by", "resolved by", "the
//!    fix was", "fix:", "solution:", "workaround:", "pin"/"pinned", "upgraded
//!    … to", "downgraded", "switched to", "migrated to", "reverted to",
//!    "replaced … with", "set … to"), and is neither a question (ends in `?`)
//!    nor negated or hedged (contains a word of [`DOUBT_WORDS`], such as
//!    "not", "didn't", "maybe", "might"). No such sentence: refuse
//!    `no_resolution`.
//! 3. **Versions.** Every mention of a package with a version: `name 1.2`,
//!    `name 1.2.3`, `name v18`, `name v1.2.3`, `name@18`, `name@1.2.3`,
//!    `name version 1.2.3`. A name starts with a letter (or `@` for a scoped
//!    npm package) and may hold letters, digits, `.`, `_`, `-` and `/`; it is
//!    lower-cased. A bare number needs a `v`, an `@` or a second component
//!    (`Vite 6` is not a mention: too often a count). Not a mention: a
//!    wildcard (`5.x`), four or more components, a pre-release or build
//!    suffix (`5.4.21-beta.1`), a number followed by a unit (`1.5 s`,
//!    `2.5 MB`), a name that is a common word ([`STOP_WORDS`]: `in 5.4`,
//!    `from 1.2`, `to 1.3`).
//! 4. **Scope.** Each name is scoped to exactly the version it was seen at:
//!    `=5.4.21`, and the rationale says so. A name seen at two different
//!    versions is ambiguous and left out. Versions named after the cue in
//!    the resolution sentence are the remedy ("upgrading the image to alpine
//!    3.19.1 fixed it"), not where the problem was seen, and do not scope the
//!    lesson. No name left: refuse `no_versions`.
//! 5. **Candidate.** `claim` = the summary with a leading label or
//!    conventional-commit prefix (`Fix:`, `fix(deps):`) dropped — unless the
//!    summary is the resolution itself, when the claim is the first other
//!    sentence naming a package at a version (the cause); `rationale` = the
//!    first detail sentence that is neither the claim nor the resolution
//!    (else the resolution sentence); `evidence.resolution` = the resolution
//!    sentence; `stack` = the names, sorted; `file_patterns` and
//!    `task_kinds` empty. A claim that would still repeat its resolution is
//!    refused `no_resolution`: it states no fact.
//!
//! The prose rules never generalise (no `<6`, no `>=4`): a sentence is not
//! evidence of a range, and a too-wide lesson misleads. A person can widen
//! the scope with `git lore edit` before confirming.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::OnceLock;

use regex::Regex;
use serde_json::json;

use crate::facts::{self, lesson, wording, Fact};
use crate::model::Artifact;

/// The rules of the offline backend, as the module documentation states them.
pub const RULES: &str = "\
offline transform rules (deterministic, no network, no model):
1. Sentences: summary and detail are cut at '.', '!' or '?' followed by whitespace, and at line breaks.
2. Resolution: the first sentence (summary first) matching a resolution cue -- fixed by/with, resolved by, \
solved by, the fix was/is, fix:, solution:/was, workaround:/was, pin/pinned/pinning, upgraded ... to, \
bumped ... to, downgraded, switched to, migrated to, reverted to, replaced ... with, set ... to -- \
that is not a question and not negated or hedged (not, no, never, didn't, doesn't, can't, maybe, might, perhaps, ...). \
None: refuse no_resolution.
3. Versions: mentions 'name 1.2', 'name 1.2.3', 'name v18', 'name@1.2.3', 'name version 1.2.3' (names lower-cased; \
a bare number needs v, @ or a second component; no wildcards, pre-releases, 4+ components, units or common words as names).
4. Scope: each name at exactly the version seen ('=5.4.21'); a name seen at two versions is left out; versions named after \
the cue in the resolution sentence are the remedy and are not scoped. None left: refuse no_versions.
5. Candidate: claim = summary without a leading label or commit prefix (the cause sentence when the summary is the resolution); \
rationale = first other detail sentence; resolution = the resolution sentence; stack = the names; file_patterns and \
task_kinds empty. Ranges are never widened; the rationale says the scope is exact.
Before these rules: facts (resolver errors, manifest diffs, install commands) are drafted by src/facts/lesson.rs, \
scoped by the broken range; a mined commit is drafted from its facts only.
";

/// The resolution cues (case-insensitive regular expressions over one sentence).
pub const RESOLUTION_CUES: &[&str] = &[
    r"\b(fixed|fixes) (it |this |that )?(by|with|via)\b",
    r"\bthe fix (was|is)\b",
    r"\bfix(ed)?(\([^)]*\))?:",
    r"\b(resolved|solved) (it |this |that )?(by|with|via)\b",
    r"\bsolution( was| is|:)",
    r"\bworkaround( was| is|:)",
    r"\bpin(s|ned|ning)?\b",
    r"\b(upgrad|bump)(e|ed|es|ing)?\b.*\bto\b",
    r"\bdowngrad(e|ed|es|ing)\b",
    r"\bswitch(ed|ing)? (over )?to\b",
    r"\bmigrat(ed|ing) to\b",
    r"\brevert(ed|ing)? to\b",
    r"\breplac(ed|ing) .+ with\b",
    r"\bset (\S+ ){1,3}to\b",
];

/// Words that make a cue sentence untrustworthy: negation and hedging.
pub const DOUBT_WORDS: &[&str] = &[
    "not", "no", "never", "cannot", "can't", "couldn't", "didn't", "doesn't", "don't", "won't",
    "wasn't", "isn't", "aren't", "neither", "nor", "failed", "unable", "maybe", "might", "perhaps",
    "possibly", "probably", "consider", "todo", "tbd", "unclear", "unsure", "whether",
];

/// Words that are never package names in a `name 1.2.3` mention.
pub const STOP_WORDS: &[&str] = &[
    "a",
    "about",
    "above",
    "after",
    "against",
    "an",
    "and",
    "are",
    "around",
    "as",
    "at",
    "be",
    "been",
    "before",
    "below",
    "between",
    "build",
    "bump",
    "bumped",
    "but",
    "by",
    "chapter",
    "downgrade",
    "downgraded",
    "downgrading",
    "during",
    "figure",
    "fix",
    "fixed",
    "for",
    "from",
    "has",
    "have",
    "in",
    "into",
    "is",
    "it",
    "its",
    "item",
    "latest",
    "line",
    "major",
    "minor",
    "of",
    "on",
    "onto",
    "or",
    "over",
    "page",
    "patch",
    "pin",
    "pinned",
    "pinning",
    "release",
    "released",
    "releases",
    "revert",
    "reverted",
    "section",
    "see",
    "since",
    "step",
    "table",
    "than",
    "that",
    "the",
    "then",
    "this",
    "to",
    "under",
    "until",
    "up",
    "upgrade",
    "upgraded",
    "upgrading",
    "use",
    "used",
    "using",
    "v",
    "ver",
    "version",
    "versions",
    "via",
    "vs",
    "was",
    "were",
    "with",
    "within",
];

/// Units that, right after a number, make it a quantity and not a version.
const UNITS: &[&str] = &[
    "%", "b", "kb", "mb", "gb", "tb", "kib", "mib", "gib", "ms", "s", "sec", "secs", "second",
    "seconds", "min", "mins", "minute", "minutes", "h", "hr", "hrs", "hour", "hours", "day",
    "days", "x", "times", "px", "em", "rem",
];

/// What the offline backend found in an artifact.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Analysis {
    /// The resolution sentence, if the artifact states one.
    pub resolution: Option<String>,
    /// Each unambiguous name with its exact range (`=5.4.21`).
    pub versions: BTreeMap<String, String>,
    /// Names seen at more than one version, left out of the scope.
    pub ambiguous: BTreeSet<String>,
}

struct Patterns {
    cues: Vec<Regex>,
    doubt: Regex,
    mention: Regex,
}

fn patterns() -> Option<&'static Patterns> {
    static P: OnceLock<Option<Patterns>> = OnceLock::new();
    P.get_or_init(|| {
        let cues = RESOLUTION_CUES
            .iter()
            // ASCII word boundaries: the cues are English words, and Unicode
            // \b made these the most expensive regexes to build at start-up.
            .map(|c| Regex::new(&format!("(?i){}", c.replace(r"\b", r"(?-u:\b)"))).ok())
            .collect::<Option<Vec<_>>>()?;
        let doubt = Regex::new(&format!(
            r"(?i)(^|[^A-Za-z0-9_'])({})($|[^A-Za-z0-9_'])",
            DOUBT_WORDS
                .iter()
                .map(|w| regex::escape(w))
                .collect::<Vec<_>>()
                .join("|")
        ))
        .ok()?;
        let mention = Regex::new(
            r"(?x)
            (?:^|[^A-Za-z0-9_@/.\-])
            (?P<name>@?[A-Za-z](?:[A-Za-z0-9_.\-/]*[A-Za-z0-9])?)
            (?:
                @ v? (?P<at>[0-9]+(?:\.[0-9]+){0,2})
              | [\ \t]+ (?:version[\ \t]+)? v (?P<vee>[0-9]+(?:\.[0-9]+){0,2})
              | [\ \t]+ (?:version[\ \t]+)? (?P<num>[0-9]+(?:\.[0-9]+){1,2})
            )",
        )
        .ok()?;
        Some(Patterns {
            cues,
            doubt,
            mention,
        })
    })
    .as_ref()
}

/// Rule 1: sentences of `text`, trimmed, bullets dropped, empties skipped.
fn sentences(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut current = String::new();
    let mut chars = text.chars().peekable();
    let mut flush = |s: &mut String| {
        let t = s
            .trim()
            .trim_start_matches(['-', '*', '•'])
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ");
        if !t.is_empty() {
            out.push(t);
        }
        s.clear();
    };
    while let Some(c) = chars.next() {
        if c == '\n' {
            flush(&mut current);
            continue;
        }
        current.push(c);
        if matches!(c, '.' | '!' | '?') && chars.peek().is_none_or(|n| n.is_whitespace()) {
            flush(&mut current);
        }
    }
    flush(&mut current);
    out
}

/// Where the first resolution cue of `sentence` starts, if the sentence
/// states a resolution (rule 2).
fn resolution_cue(p: &Patterns, sentence: &str) -> Option<usize> {
    if sentence.ends_with('?') || p.doubt.is_match(sentence) {
        return None;
    }
    p.cues
        .iter()
        .filter_map(|c| c.find(sentence).map(|m| m.start()))
        .min()
}

/// Whether the text right after a version makes it something else: more
/// components, a wildcard, a pre-release or build suffix, letters, a unit.
fn spoiled_by(after: &str) -> bool {
    let mut it = after.chars();
    match it.next() {
        None => false,
        Some(c) if c.is_alphanumeric() || c == '_' => true,
        Some('.' | '-' | '+') => it.next().is_some_and(|n| n.is_alphanumeric() || n == '*'),
        Some(' ' | '\t') => {
            let rest = after.trim_start();
            let word: String = rest
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '%')
                .collect();
            let next = rest[word.len()..].chars().next();
            UNITS.contains(&word.to_lowercase().as_str())
                && next.is_none_or(|c| !c.is_alphanumeric())
        }
        Some('%') => true,
        Some(_) => false,
    }
}

/// Rule 3: every (name, version) mention, in order.
fn mentions(p: &Patterns, text: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut at = 0;
    while let Some(caps) = p.mention.captures_at(text, at) {
        // The next search starts right after this match: the character after
        // a version is free to be the boundary before the next name.
        let Some(whole) = caps.get(0) else { break };
        at = whole.end();
        let Some(name) = caps.name("name") else {
            continue;
        };
        let Some(version) = caps
            .name("at")
            .or_else(|| caps.name("vee"))
            .or_else(|| caps.name("num"))
        else {
            continue;
        };
        if spoiled_by(&text[version.end()..]) {
            continue;
        }
        let lower = name.as_str().to_lowercase();
        if STOP_WORDS.contains(&lower.as_str()) {
            continue;
        }
        out.push((lower, version.as_str().to_owned()));
    }
    out
}

/// Rules 1–4 over an artifact.
pub fn analyse(artifact: &Artifact) -> Analysis {
    let Some(p) = patterns() else {
        // The patterns are constants (tested); without them, refuse.
        return Analysis {
            resolution: None,
            versions: BTreeMap::new(),
            ambiguous: BTreeSet::new(),
        };
    };
    let all: Vec<String> = sentences(&artifact.summary)
        .into_iter()
        .chain(sentences(artifact.detail.as_deref().unwrap_or("")))
        .collect();
    let found = all
        .iter()
        .enumerate()
        .find_map(|(i, s)| resolution_cue(p, s).map(|cut| (i, cut)));
    let mut seen: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (i, sentence) in all.iter().enumerate() {
        // In the resolution sentence, what follows the cue is the remedy
        // ("upgraded the image to alpine 3.19.1"), not where the problem was.
        let scanned = match found {
            Some((at, cut)) if at == i => &sentence[..cut],
            _ => sentence.as_str(),
        };
        for (name, version) in mentions(p, scanned) {
            seen.entry(name).or_default().insert(version);
        }
    }
    let resolution = found.map(|(i, _)| all[i].clone());
    let mut versions = BTreeMap::new();
    let mut ambiguous = BTreeSet::new();
    for (name, found) in seen {
        let mut it = found.into_iter();
        match (it.next(), it.next()) {
            (Some(only), None) => {
                versions.insert(name, format!("={only}"));
            }
            _ => {
                ambiguous.insert(name);
            }
        }
    }
    Analysis {
        resolution,
        versions,
        ambiguous,
    }
}

/// The facts an artifact carries or its text holds
/// ([`crate::facts::of_artifact`]).
pub fn evidence(artifact: &Artifact) -> Vec<Fact> {
    facts::of_artifact(artifact)
}

fn refusal(reason: &str) -> String {
    json!({"eligible": false, "reason": reason}).to_string()
}

fn candidate(
    claim: &str,
    rationale: &str,
    resolution: &str,
    stack: &[String],
    versions: &BTreeMap<String, String>,
) -> String {
    json!({
        "claim": claim,
        "rationale": rationale,
        "evidence": {"resolution": resolution},
        "applies_to": {
            "stack": stack,
            "scope": {"kind": "versioned", "versions": versions},
            "file_patterns": [],
            "task_kinds": []
        }
    })
    .to_string()
}

fn from_draft(d: &lesson::Draft) -> String {
    candidate(&d.claim, &d.rationale, &d.resolution, &d.stack, &d.versions)
}

/// A claim without a leading label or conventional-commit prefix.
fn unprefixed(text: &str) -> String {
    let mut t = text.trim();
    if let Some(p) = wording::conventional_prefix(t) {
        t = t[t.find(&p).map_or(0, |i| i + p.len())..].trim_start();
    }
    let lower = t.to_ascii_lowercase();
    for label in [
        "cause:",
        "problem:",
        "issue:",
        "note:",
        "fix:",
        "fixed:",
        "solution:",
        "resolution:",
    ] {
        if lower.starts_with(label) {
            t = t[label.len()..].trim_start();
            break;
        }
    }
    t.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The offline backend's answer for `artifact`: one line of JSON, exactly
/// what a model would print (facts first, then rule 5, or a refusal).
pub fn transform(artifact: &Artifact) -> String {
    let facts = evidence(artifact);
    if artifact.trigger.as_deref() == Some("commit") {
        let repo = facts.iter().find_map(|f| match f {
            Fact::Change(c) => c.repo.clone(),
            _ => None,
        });
        let message = lesson::Message {
            subject: &artifact.summary,
            body: artifact.detail.as_deref(),
            repo: repo.as_deref(),
        };
        return match lesson::draft(&facts, Some(&message)) {
            Ok(d) => from_draft(&d),
            Err(lesson::Refusal::NoResolution) => refusal("no_resolution"),
            Err(lesson::Refusal::NoVersions) => refusal("no_versions"),
        };
    }
    if let Ok(d) = lesson::draft(&facts, None) {
        return from_draft(&d);
    }
    let analysis = analyse(artifact);
    let Some(resolution) = analysis.resolution else {
        return refusal("no_resolution");
    };
    if analysis.versions.is_empty() {
        return refusal("no_versions");
    }
    let detail = sentences(artifact.detail.as_deref().unwrap_or(""));
    let mut claim = unprefixed(&artifact.summary);
    if wording::restates(&claim, &resolution) || wording::restates(&artifact.summary, &resolution) {
        // The summary is the fix: the claim is the cause, a sentence that
        // names a package at a version.
        let Some(p) = patterns() else {
            return refusal("no_resolution");
        };
        match detail
            .iter()
            .map(|s| unprefixed(s))
            .find(|s| !mentions(p, s).is_empty() && !wording::restates(s, &resolution))
        {
            Some(cause) => claim = cause,
            None => return refusal("no_resolution"),
        }
    }
    let rationale = detail
        .iter()
        .find(|s| **s != resolution && unprefixed(s) != claim)
        .cloned()
        .unwrap_or_else(|| resolution.clone());
    let seen: Vec<String> = analysis
        .versions
        .iter()
        .map(|(name, range)| format!("{name} {}", range.trim_start_matches('=')))
        .collect();
    let mut rationale = rationale.trim_end().to_owned();
    if !rationale.ends_with(['.', '!', '?']) {
        rationale.push('.');
    }
    let rationale = format!(
        "{rationale} Scoped to exactly the versions seen ({}): the text states no wider range.",
        seen.join(", ")
    );
    let stack: Vec<String> = analysis.versions.keys().cloned().collect();
    candidate(&claim, &rationale, &resolution, &stack, &analysis.versions)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::DeclineReason;
    use crate::pipeline::pregate;
    use crate::pipeline::transform::{decide, Determination};

    fn fixture(name: &str) -> Artifact {
        let text = match name {
            "real-vitest-no-resolution" => {
                include_str!("../../tests/fixtures/artifacts/real-vitest-no-resolution.json")
            }
            "positive-synthetic" => {
                include_str!("../../tests/fixtures/artifacts/positive-synthetic.json")
            }
            "version-free" => include_str!("../../tests/fixtures/artifacts/version-free.json"),
            "provenance-less" => {
                include_str!("../../tests/fixtures/artifacts/provenance-less.json")
            }
            "fix-with-versions" => {
                include_str!("../../tests/fixtures/artifacts/fix-with-versions.json")
            }
            "fix-without-versions" => {
                include_str!("../../tests/fixtures/artifacts/fix-without-versions.json")
            }
            "open-question" => include_str!("../../tests/fixtures/artifacts/open-question.json"),
            "negated-fix" => include_str!("../../tests/fixtures/artifacts/negated-fix.json"),
            "upgrade-fixed" => include_str!("../../tests/fixtures/artifacts/upgrade-fixed.json"),
            "ambiguous-versions" => {
                include_str!("../../tests/fixtures/artifacts/ambiguous-versions.json")
            }
            other => panic!("no fixture {other}"),
        };
        serde_json::from_str(text).unwrap()
    }

    fn outcome(name: &str) -> Determination {
        let a = fixture(name);
        decide(
            &crate::answer::Answer::new(transform(&a).as_bytes()).unwrap(),
            &a,
        )
    }

    fn proposed(name: &str) -> serde_json::Value {
        match outcome(name) {
            Determination::Propose { candidate } => serde_json::to_value(candidate).unwrap(),
            other => panic!("{name}: expected a proposal, got {other:?}"),
        }
    }

    fn refused(name: &str) -> DeclineReason {
        match outcome(name) {
            Determination::Decline { reason, detail } => {
                assert_eq!(detail, None, "{name}: a refusal carries no detail");
                reason
            }
            other => panic!("{name}: expected a decline, got {other:?}"),
        }
    }

    #[test]
    fn the_patterns_compile() {
        assert!(patterns().is_some());
    }

    #[test]
    fn the_real_vitest_artifact_is_declined_no_resolution() {
        let a = fixture("real-vitest-no-resolution");
        assert!(pregate::passes(&a));
        assert_eq!(
            transform(&a),
            r#"{"eligible":false,"reason":"no_resolution"}"#
        );
        assert_eq!(
            refused("real-vitest-no-resolution"),
            DeclineReason::NoResolution
        );
    }

    #[test]
    fn the_positive_synthetic_artifact_is_scoped_to_exactly_what_it_names() {
        let v = proposed("positive-synthetic");
        assert_eq!(
            v["applies_to"],
            json!({
                "stack": ["vite", "vitest"],
                "scope": {"kind": "versioned", "versions": {"vite": "=5.4.21", "vitest": "=4.1.9"}},
                "file_patterns": [],
                "task_kinds": []
            })
        );
        // The summary is the fix: the claim is the cause, never the fix
        // again, and the rationale says the scope is exact.
        assert_eq!(
            v["claim"],
            "Vitest 4.1.9 imports vite/module-runner which is absent in Vite 5.4.21, because Vite 6 has not shipped yet."
        );
        assert_eq!(
            v["rationale"],
            "Vitest 4.1.9 / Vite 5.x mismatch, decided to pin. Scoped to exactly the versions seen (vite 5.4.21, vitest 4.1.9): the text states no wider range."
        );
        assert_eq!(
            v["evidence"]["resolution"],
            "Vitest 4.1.9 / Vite 5.x mismatch, decided to pin"
        );
        assert_eq!(
            v["evidence"]["artifact_ids"],
            json!(["01KZ45MKAM734ZS7JK24D2DK0R"])
        );
    }

    #[test]
    fn the_version_free_artifact_never_reaches_the_transform() {
        let a = fixture("version-free");
        assert!(!pregate::passes(&a));
        // Were it transformed anyway, it has no resolution.
        assert_eq!(refused("version-free"), DeclineReason::NoResolution);
    }

    #[test]
    fn the_provenance_less_artifact_is_schema_invalid_when_it_proposes() {
        // Same text as the positive one minus "decided to pin": no resolution.
        assert_eq!(refused("provenance-less"), DeclineReason::NoResolution);
        let mut a = fixture("positive-synthetic");
        a.session_id = None;
        match decide(
            &crate::answer::Answer::new(transform(&a).as_bytes()).unwrap(),
            &a,
        ) {
            Determination::Decline { reason, detail } => {
                assert_eq!(reason, DeclineReason::SchemaInvalid);
                assert_eq!(
                    detail.as_deref(),
                    Some("no session id: a lesson needs provenance")
                );
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn demo_fixtures_cover_every_outcome() {
        let v = proposed("fix-with-versions");
        assert_eq!(
            v["applies_to"]["scope"]["versions"],
            json!({"next": "=14.2.3", "react": "=18.3.1"})
        );
        assert_eq!(
            v["evidence"]["resolution"],
            "Fixed by pinning react to 18.2.0 in package.json until the next release of Next.js ships the patch."
        );
        assert_eq!(refused("fix-without-versions"), DeclineReason::NoVersions);
        assert_eq!(refused("open-question"), DeclineReason::NoResolution);
        assert_eq!(refused("negated-fix"), DeclineReason::NoResolution);
        let v = proposed("upgrade-fixed");
        assert_eq!(
            v["applies_to"]["scope"]["versions"],
            json!({"openssl": "=3.0.13", "psycopg2-binary": "=2.9.9"})
        );
        let a = fixture("ambiguous-versions");
        let analysis = analyse(&a);
        assert_eq!(analysis.ambiguous, BTreeSet::from(["webpack".to_owned()]));
        assert_eq!(refused("ambiguous-versions"), DeclineReason::NoVersions);
        for name in [
            "fix-with-versions",
            "fix-without-versions",
            "open-question",
            "negated-fix",
            "upgrade-fixed",
            "ambiguous-versions",
        ] {
            let a = fixture(name);
            assert!(pregate::passes(&a), "{name} must pass the pre-gate");
            let v = serde_json::to_value(&a).unwrap();
            assert_eq!(
                crate::schema::validate(crate::schema::SchemaKind::Artifact, &v),
                Ok(()),
                "{name}"
            );
        }
    }

    #[test]
    fn sentences_are_not_cut_inside_versions() {
        assert_eq!(
            sentences("Vite 5.4.21 broke. Pinned vite@5.4.20!\n- and a bullet\nWhy? ok"),
            vec![
                "Vite 5.4.21 broke.",
                "Pinned vite@5.4.20!",
                "and a bullet",
                "Why?",
                "ok"
            ]
        );
    }

    #[test]
    fn resolution_cues_and_doubt() {
        let p = patterns().unwrap();
        for yes in [
            "Fixed by pinning vite.",
            "The fix was to set NODE_OPTIONS to --max-old-space-size=4096.",
            "fix(deps): pin vite to 5.4.21",
            "Solution: use the forks pool.",
            "Workaround: disable isolation.",
            "We pinned vitest to 4.1.8.",
            "Upgrading webpack to 5.90.1 fixed it.",
            "Downgraded node to 18.19.0.",
            "Switched to pnpm 9.1.0.",
            "Resolved by reverting to 2.3.1.",
            "Replaced moment 2.29.4 with dayjs 1.11.10.",
        ] {
            assert!(
                resolution_cue(p, yes).is_some(),
                "{yes:?} states a resolution"
            );
        }
        for no in [
            "What is the correct fix for the vitest/vite version mismatch?",
            "Pinning vite did not fix it.",
            "Maybe pin vite to 5.4.21.",
            "We might switch to pnpm.",
            "Upgrading didn't help.",
            "Vitest 4.1.9 attempts to import vite/module-runner which does not exist in Vite 5.4.21.",
            "The build is slow.",
            "Should we pin it?",
            "Spinning up a new worker.",
        ] {
            assert_eq!(resolution_cue(p, no), None, "{no:?} states no resolution");
        }
    }

    #[test]
    fn version_mentions() {
        let p = patterns().unwrap();
        let m = |t: &str| mentions(p, t);
        assert_eq!(
            m("Vitest 4.1.9 / Vite 5.x with vite@5.4.21, Node v18, @vitest/ui@4.1.9 and node.js 20.11.1."),
            vec![
                ("vitest".to_owned(), "4.1.9".to_owned()),
                ("vite".to_owned(), "5.4.21".to_owned()),
                ("node".to_owned(), "18".to_owned()),
                ("@vitest/ui".to_owned(), "4.1.9".to_owned()),
                ("node.js".to_owned(), "20.11.1".to_owned()),
            ]
        );
        assert_eq!(
            m("react version 18.3.1 and python 3.12"),
            vec![
                ("react".to_owned(), "18.3.1".to_owned()),
                ("python".to_owned(), "3.12".to_owned())
            ]
        );
        for none in [
            "Vite 6 has not shipped",
            "upgraded from 1.2.3 to 1.3.0",
            "in 5.4.21",
            "vite 5.4.x",
            "vite 5.4.21-beta.1",
            "vite 5.4.21+build",
            "lib 1.2.3.4",
            "took 1.5 s",
            "weighs 2.5 MB",
            "rose 3.5%",
            "vite 5.4.21a",
            "1.2.3",
            "_vite 1.2",
        ] {
            assert_eq!(m(none), Vec::<(String, String)>::new(), "{none:?}");
        }
        // Adjacent mentions share their separator.
        assert_eq!(m("foo 1.2 bar 2.3").len(), 2);
    }

    #[test]
    fn output_is_one_line_and_deterministic() {
        let a = fixture("fix-with-versions");
        let first = transform(&a);
        assert!(!first.contains('\n'));
        assert_eq!(first, transform(&a));
        assert!(RULES.contains("no_resolution") && RULES.contains("no_versions"));
    }

    #[test]
    fn huge_details_are_linear() {
        let mut a = fixture("fix-with-versions");
        a.detail = Some("vite 5.4.21 was pinned. ".repeat(40_000));
        let v = transform(&a);
        assert!(v.contains("=5.4.21"), "{v:.200}");
    }
}
