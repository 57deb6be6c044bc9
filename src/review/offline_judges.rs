//! The offline judges: deterministic, network-free scorers for
//! the judge types `standard` and `adversarial`, so that judging works on a
//! fresh machine and in CI. Records judged by them carry `Lore-Model: offline`.
//!
//! Each judge reads the proposal's candidate and its source artifact
//! (`summary` and `detail`, called *the source* below) and returns the
//! verdict object a command-backend judge would print:
//! `{judge_type, score, passed, confidence, criterion_scores, feedback_summary}`.
//!
//! ## Words
//! Text is split into words at every character that is not a letter or a
//! digit, lower-cased; common English function words (`the`, `to`, `until`,
//! `not`, …) and one-letter non-numeric words are dropped; a light stemmer
//! strips `-ing`, `-ed`, `-es` and `-s` from words longer than four letters,
//! so `imports` matches `import`. These are the *content words*. A word's
//! *coverage* by a text is the share of its content words that the text
//! also contains.
//!
//! ## Criteria
//! **grounding** — are the claim and the resolution supported by the source?
//! - standard: `0.5 × claim coverage + 0.5 × resolution coverage`, capped at
//!   0.5 when less than half of the resolution's words are in the source;
//! - adversarial: `0.3 × claim coverage + 0.7 × resolution coverage`, capped
//!   at 0.4 when less than 60 % of them are.
//!
//! **scope_accuracy**, versioned scope — does the scope name what the source
//! names? For each `versions` key: 0 when the key is not named in the source
//! (case-insensitive, whole name); otherwise `base + (1 − base) × f`, where
//! `f` is the share of the range's bounds whose version number the source
//! supports. A bound is supported when a version the source mentions
//! (`5.4.21`, `v4`, `5.x`) starts with the bound's numbers (`>=4` from
//! `4.1.9`, `=5.4.21` from `5.4.21`, trailing `.0`s ignored), or when it is
//! an upper bound `<N`/`<=N` on the next major of a mentioned `N−1.…`
//! (`<6` from `5.4.21`, the usual honest generalisation).
//! - standard: base 0.3; a mention anywhere in the source counts; the next
//!   major counts in full; keys combine by their **mean**;
//! - adversarial: base 0.2; the mention must belong to the key: the stack
//!   name written last before it, at most 48 characters before it, is the
//!   key (`Vite 5.4.21` supports vite; in `vite with vitest 4.1.9` the 4.1.9
//!   is vitest's); the next major counts half; keys combine by their
//!   **minimum**.
//!
//! **scope_accuracy**, version_independent scope — an offline judge cannot
//! know whether a claim holds for every version, so it is conservative: the
//! score is at most 0.75 (standard) or 0.7 (adversarial, exactly the floor).
//! It drops to 0.2 when the justification has fewer than 5 content words or
//! fewer than 3 content words that are not already in the claim and
//! rationale (a restatement); it loses 0.25 when it gives no reason word
//! (`because`, `regardless`, `independent`, `by design`, `specification`,
//! `protocol`, `always`, `never`, …) and 0.3 when it cites a version number.
//!
//! **generality** — a lesson, or a one-session fact? The claim, rationale,
//! resolution and justification are checked for six kinds of session
//! marker: an absolute path (`/home/…`, `/Users/…`, `/tmp/…`, `~/…`,
//! `C:\…`); a time word (`today`, `yesterday`, `this session`, `right now`,
//! …); a ticket or issue reference (`JIRA-123`, `#123`, `issue 42`); a
//! commit sha (7–40 hex with a letter and a digit); first-person narration
//! (`I`, `we`, `our`, `my`, `let's`, …); the source's session id or artifact
//! id. Each kind found costs 0.2 (standard) or 0.3 (adversarial) from 1.0.
//!
//! **disclosure** — [`crate::scanner::scan_lesson`]: 1.0 when clean, 0.0
//! on any finding, for both judges.
//!
//! ## Evidence and junk
//! When the source artifact carries facts (`crate::facts`: a resolver
//! error, a manifest diff, what fixed it), the source the criteria read is
//! the artifact's text **and** its facts (quotes, names, versions), plus
//! the few joining words the fact templates use. Whatever the source, each
//! of these caps a criterion at 0.2, below every builtin floor, with its
//! reason in the feedback:
//! - a claim that starts with a conventional-commit prefix, or is the
//!   commit's subject line → **generality**;
//! - a claim that repeats its resolution → **grounding**;
//! - a stack entry that is a file name (`cargo.lock`) → **scope_accuracy**;
//! - a scope that contradicts the facts — a range that leaves out the
//!   version the evidence shows broken, or takes in the one that fixed it
//!   (`crate::facts::evidence`) → **scope_accuracy**;
//! - a package the facts (or, without facts, the source text) do not name
//!   → **scope_accuracy**.
//!
//! A criterion the offline judges have no rule for is left out of
//! `criterion_scores` and named in the feedback; so is grounding (and a
//! versioned scope_accuracy) when the proposal carries no source artifact.
//! Absence is not zero: the jury's coverage check then decides, and a
//! floored criterion nobody scored means "could not judge", never a
//! rejection.
//!
//! ## A contradicted lesson judged again
//! When the jury judges a pool entry again because counter-observations
//! against it reached `lore.relate.threshold` ([`offline_rejudge_panel`]),
//! the offline judges cannot weigh one observation against another, so the
//! rule is fixed and the same for both judges: counter-observations that
//! reach the threshold **fail grounding** (score 0.0, named in the
//! feedback), whatever the source says; every other criterion is scored as
//! above. Grounding is floored in the builtin rubrics, so the ruling fails
//! and the lesson is refuted. (Counter-observations only come from a
//! relation judge's `contradict`, which the offline relation judge never
//! gives: the evidence was a model's or a person's.)
//!
//! ## Score and pass
//! `score` is the rubric-weighted mean of the criteria this judge scored,
//! normalised by their weights and rounded to 6 decimals. `passed` is
//! `score ≥ score_threshold` (adversarial: `≥ score_threshold + 0.05`, at
//! most 1) and every floored criterion of the rubric scored by this judge at
//! or above its `min_pass`. `confidence` is a fixed 0.5: these are
//! heuristics. `feedback_summary` is one line naming each criterion's score
//! and what lowered it.

use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::sync::OnceLock;

use regex::Regex;
use serde_json::{json, Map, Value};

use super::rubric::Rubric;
use super::{round6, ReviewError};
use crate::model::{Proposal, Scope};
use crate::scanner::scan_lesson;

/// The judge types the offline backend provides.
pub const OFFLINE_JUDGE_TYPES: [&str; 2] = ["standard", "adversarial"];

/// How strict a judge is.
struct Strictness {
    name: &'static str,
    claim_weight: f64,
    resolution_min: f64,
    resolution_cap: f64,
    key_base: f64,
    near_key_only: bool,
    next_major_credit: f64,
    combine_min: bool,
    vi_cap: f64,
    marker_cost: f64,
    pass_margin: f64,
}

const STANDARD: Strictness = Strictness {
    name: "standard",
    claim_weight: 0.5,
    resolution_min: 0.5,
    resolution_cap: 0.5,
    key_base: 0.3,
    near_key_only: false,
    next_major_credit: 1.0,
    combine_min: false,
    vi_cap: 0.75,
    marker_cost: 0.2,
    pass_margin: 0.0,
};

const ADVERSARIAL: Strictness = Strictness {
    name: "adversarial",
    claim_weight: 0.3,
    resolution_min: 0.6,
    resolution_cap: 0.4,
    key_base: 0.2,
    near_key_only: true,
    next_major_credit: 0.5,
    combine_min: true,
    vi_cap: 0.7,
    marker_cost: 0.3,
    pass_margin: 0.05,
};

/// How far after a key's name a version must appear for the adversarial judge.
const NEAR_KEY_CHARS: usize = 48;

/// The verdicts of every judge type the rubric lists, in its order: the panel
/// to hand to [`super::jury::judge`].
pub fn offline_panel(p: &Proposal, rubric: &Rubric) -> Result<Value, ReviewError> {
    rubric
        .judge_types
        .iter()
        .map(|t| offline_verdict(t, p, rubric))
        .collect::<Result<Vec<_>, _>>()
        .map(Value::Array)
}

/// The panel on a pool lesson judged again with `counter` counter-
/// observations against it, `threshold` being `lore.relate.threshold`
/// (see "A contradicted lesson judged again" above). `p` carries the pool
/// entry's claim, rationale, evidence and scope, and its source artifact
/// when the ledger still has it.
pub fn offline_rejudge_panel(
    p: &Proposal,
    rubric: &Rubric,
    counter: usize,
    threshold: usize,
) -> Result<Value, ReviewError> {
    rubric
        .judge_types
        .iter()
        .map(|t| verdict_with(t, p, rubric, Some((counter, threshold))))
        .collect::<Result<Vec<_>, _>>()
        .map(Value::Array)
}

/// One offline judge's verdict on a proposal under a rubric.
pub fn offline_verdict(
    judge_type: &str,
    p: &Proposal,
    rubric: &Rubric,
) -> Result<Value, ReviewError> {
    verdict_with(judge_type, p, rubric, None)
}

/// One offline judge's verdict; `contradicted` is `(counter-observations,
/// threshold)` when a pool lesson is judged again.
fn verdict_with(
    judge_type: &str,
    p: &Proposal,
    rubric: &Rubric,
    contradicted: Option<(usize, usize)>,
) -> Result<Value, ReviewError> {
    let s = match judge_type {
        "standard" => &STANDARD,
        "adversarial" => &ADVERSARIAL,
        other => return Err(ReviewError::NoOfflineJudge(other.to_owned())),
    };
    let facts = p
        .artifact
        .as_ref()
        .map(crate::facts::of_artifact)
        .unwrap_or_default();
    let source = p.artifact.as_ref().map(|a| {
        let mut text = match &a.detail {
            Some(d) => format!("{} {}", a.summary, d),
            None => a.summary.clone(),
        };
        if !facts.is_empty() {
            text.push('\n');
            text.push_str(&crate::facts::evidence_text(&facts));
            text.push_str(TEMPLATE_WORDS);
        }
        text
    });
    let carried = p.artifact.as_ref().map_or(&[][..], |a| a.facts.as_slice());
    let junk = Junk::of(p, carried);

    let mut scores = Map::new();
    let mut notes: Vec<String> = Vec::new();
    for c in &rubric.criteria {
        let scored = match c.name.as_str() {
            "grounding" => match contradicted {
                Some((n, t)) if n >= t => Some((
                    0.0,
                    format!("{n} counter-observations reach the threshold {t}"),
                )),
                _ => source
                    .as_deref()
                    .map(|src| junk.cap(&junk.grounding, grounding(s, p, src))),
            },
            "scope_accuracy" => match (&p.candidate.applies_to.scope, source.as_deref()) {
                (Scope::Versioned { versions }, Some(src)) => Some(junk.cap(
                    &junk.scope,
                    scope_versioned(s, versions, &p.candidate.applies_to.stack, src),
                )),
                (Scope::Versioned { .. }, None) => None,
                (Scope::VersionIndependent { justification }, _) => {
                    Some(junk.cap(&junk.scope, scope_independent(s, p, justification)))
                }
            },
            "generality" => Some(junk.cap(&junk.generality, generality(s, p))),
            "disclosure" => Some(disclosure(p)),
            _ => {
                notes.push(format!("{}: no offline rule, not scored", c.name));
                continue;
            }
        };
        match scored {
            Some((score, why)) => {
                let score = round6(score.clamp(0.0, 1.0));
                let mut note = format!("{} {score:.2}", c.name);
                if !why.is_empty() {
                    let _ = write!(note, " ({why})");
                }
                notes.push(note);
                scores.insert(c.name.clone(), json!(score));
            }
            None => notes.push(format!(
                "{}: no source artifact to check against, not scored",
                c.name
            )),
        }
    }

    let (mut weighted, mut weight) = (0.0, 0.0);
    for c in &rubric.criteria {
        if let Some(v) = scores.get(&c.name).and_then(Value::as_f64) {
            weighted += v * c.weight;
            weight += c.weight;
        }
    }
    let score = if weight > 0.0 {
        round6(weighted / weight)
    } else {
        0.0
    };
    let bar = (rubric.score_threshold + s.pass_margin).min(1.0);
    let floors_held = rubric.criteria.iter().all(|c| match c.min_pass {
        None => true,
        Some(floor) => scores
            .get(&c.name)
            .and_then(Value::as_f64)
            .is_some_and(|v| v >= floor),
    });
    let passed = score >= bar && floors_held;

    Ok(json!({
        "judge_type": s.name,
        "score": score,
        "passed": passed,
        "confidence": 0.5,
        "criterion_scores": scores,
        "feedback_summary": format!("offline {} judge: {}", s.name, notes.join("; ")),
    }))
}

// ---- junk ---------------------------------------------------------------

/// The words the fact templates (`crate::facts::lesson`) join facts with:
/// a lesson drafted from facts is grounded in them, not in these words.
const TEMPLATE_WORDS: &str =
    " requires peer with use pin pinned until upgraded upgrade newer moved \
    into outside stay release releases past later fixes fix above below bug regression security \
    issue crashes breaks build longer supported support accept accepts earlier range inside \
    resolved reported states session edited changed commit manifest widened does version move";

/// What a candidate's words or scope break, by the criterion it lowers,
/// each with its reason. A broken rule caps the criterion below every
/// builtin floor, so the judge fails it and says why.
struct Junk {
    grounding: Vec<String>,
    scope: Vec<String>,
    generality: Vec<String>,
}

/// The score a criterion keeps when a rule of [`Junk`] holds against it.
const JUNK_CAP: f64 = 0.2;

impl Junk {
    /// `facts` are what the artifact carries (a session's or a commit's
    /// evidence); an artifact that carries none is checked against its text.
    fn of(p: &Proposal, facts: &[crate::facts::Fact]) -> Junk {
        use crate::facts::wording::Problem;
        let c = &p.candidate;
        let subject = p
            .artifact
            .as_ref()
            .filter(|a| a.trigger.as_deref() == Some("commit"))
            .map(|a| a.summary.as_str());
        let mut j = Junk {
            grounding: Vec::new(),
            scope: Vec::new(),
            generality: Vec::new(),
        };
        for problem in crate::facts::wording::problems(
            &c.claim,
            &c.evidence.resolution,
            &c.applies_to.stack,
            subject,
        ) {
            let why = problem.to_string();
            match problem {
                Problem::ConventionalPrefix(_) | Problem::CommitSubject => j.generality.push(why),
                Problem::RestatesResolution => j.grounding.push(why),
                Problem::FileInStack(_) => j.scope.push(why),
            }
        }
        if let Scope::Versioned { versions } = &c.applies_to.scope {
            for d in crate::facts::evidence::check(facts, &c.applies_to.stack, versions) {
                j.scope.push(d.to_string());
            }
        }
        // Without facts, every stack entry must at least be named.
        if facts.is_empty() {
            if let Some(a) = &p.artifact {
                let text =
                    format!("{} {}", a.summary, a.detail.as_deref().unwrap_or("")).to_lowercase();
                for entry in &c.applies_to.stack {
                    let (_, bare) = crate::version::split_key(entry);
                    if !text.contains(&bare.to_lowercase()) {
                        j.scope
                            .push(format!("{entry:?} is not a package the source names"));
                    }
                }
            }
        }
        j
    }

    /// `scored`, capped at [`JUNK_CAP`] with the reasons when `reasons` has any.
    fn cap(&self, reasons: &[String], scored: (f64, String)) -> (f64, String) {
        if reasons.is_empty() {
            return scored;
        }
        let (score, why) = scored;
        let mut all: Vec<String> = reasons.to_vec();
        if !why.is_empty() {
            all.push(why);
        }
        (score.min(JUNK_CAP), all.join("; "))
    }
}

// ---- grounding ---------------------------------------------------------

fn grounding(s: &Strictness, p: &Proposal, source: &str) -> (f64, String) {
    let src = content_words(source);
    let (claim_cov, _) = coverage(&p.candidate.claim, &src);
    let (res_cov, missing) = coverage(&p.candidate.evidence.resolution, &src);
    let mut g = s.claim_weight * claim_cov + (1.0 - s.claim_weight) * res_cov;
    if res_cov < s.resolution_min {
        g = g.min(s.resolution_cap);
    }
    let mut why = Vec::new();
    if claim_cov < 1.0 {
        why.push(format!("claim {:.0}% in the source", claim_cov * 100.0));
    }
    if !missing.is_empty() {
        why.push(format!(
            "resolution words not in the source: {}",
            missing.join(", ")
        ));
    }
    (g, why.join("; "))
}

/// The share of `text`'s content words found in `source`, and the missing ones.
fn coverage(text: &str, source: &BTreeSet<String>) -> (f64, Vec<String>) {
    let words = content_words(text);
    if words.is_empty() {
        return (0.0, Vec::new());
    }
    let missing: Vec<String> = words
        .iter()
        .filter(|w| !source.contains(*w))
        .cloned()
        .collect();
    (1.0 - missing.len() as f64 / words.len() as f64, missing)
}

const STOPWORDS: &[&str] = &[
    "a", "an", "the", "and", "or", "but", "if", "then", "else", "of", "to", "in", "on", "at", "by",
    "for", "with", "from", "into", "onto", "over", "under", "about", "as", "is", "are", "was",
    "were", "be", "been", "being", "it", "its", "this", "that", "these", "those", "there", "here",
    "which", "who", "whom", "whose", "what", "when", "where", "why", "how", "not", "no", "nor",
    "can", "cannot", "could", "should", "would", "will", "shall", "may", "might", "must", "do",
    "does", "did", "done", "has", "have", "had", "having", "so", "than", "too", "very", "just",
    "also", "only", "until", "till", "while", "after", "before", "because", "since", "though",
    "although", "via", "per", "each", "every", "any", "all", "some", "such", "same", "other",
    "both", "either", "neither", "yet", "still", "ever", "again", "once", "up", "down", "out",
    "off", "more", "most", "less", "least", "much", "many", "few", "own", "don", "doesn", "isn",
    "aren", "won", "t", "s", "instead", "use", "uses", "used",
];

fn stem(w: &str) -> String {
    if w.len() > 4 && w.chars().all(|c| c.is_ascii_alphabetic()) {
        for suffix in ["ing", "ed", "es", "s"] {
            if let Some(base) = w.strip_suffix(suffix) {
                if suffix == "s" && base.ends_with('s') {
                    break;
                }
                return base.to_owned();
            }
        }
    }
    w.to_owned()
}

fn content_words(text: &str) -> BTreeSet<String> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .filter(|w| !STOPWORDS.contains(&w.as_str()))
        .filter(|w| w.chars().count() > 1 || w.chars().all(|c| c.is_ascii_digit()))
        .map(|w| stem(&w))
        .collect()
}

// ---- scope_accuracy ----------------------------------------------------

fn version_re() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(r"\d+(?:\.(?:\d+|[xX]))*").unwrap_or_else(|e| panic!("version pattern: {e}"))
    })
}

/// A version the source mentions: its numeric components and where it starts.
struct Mention {
    at: usize,
    parts: Vec<u64>,
}

fn mentions(text: &str) -> Vec<Mention> {
    version_re()
        .find_iter(text)
        .filter(|m| {
            let before = &text[..m.start()];
            match before.chars().next_back() {
                None => true,
                Some(c) if c == 'v' || c == 'V' => !before[..before.len() - 1]
                    .chars()
                    .next_back()
                    .is_some_and(char::is_alphanumeric),
                Some(c) => !c.is_alphanumeric() && c != '.',
            }
        })
        .filter_map(|m| {
            let parts: Vec<u64> = m
                .as_str()
                .split('.')
                .map_while(|p| p.parse::<u64>().ok())
                .collect();
            (!parts.is_empty()).then_some(Mention {
                at: m.start(),
                parts,
            })
        })
        .collect()
}

/// Where `name` occurs in `text` as a whole name, case-insensitively: the
/// byte offsets just after each occurrence.
fn name_ends(text: &str, name: &str) -> Vec<usize> {
    let hay = text.to_lowercase();
    let needle = name.to_lowercase();
    if needle.is_empty() || hay.len() != text.len() {
        // Lower-casing changed byte lengths (rare scripts): fall back to an
        // exact-case search so offsets stay valid.
        return exact_name_ends(text, name);
    }
    exact_name_ends(&hay, &needle)
}

fn exact_name_ends(hay: &str, needle: &str) -> Vec<usize> {
    if needle.is_empty() {
        return Vec::new();
    }
    hay.match_indices(needle)
        .filter(|(i, _)| {
            let before_ok = !hay[..*i]
                .chars()
                .next_back()
                .is_some_and(char::is_alphanumeric);
            let after_ok = !hay[i + needle.len()..]
                .chars()
                .next()
                .is_some_and(char::is_alphanumeric);
            before_ok && after_ok
        })
        .map(|(i, _)| i + needle.len())
        .collect()
}

/// The bounds of a range: (operator, numbers with trailing zeros removed).
fn bounds(range: &str) -> Option<Vec<(&str, Vec<u64>)>> {
    range
        .split_whitespace()
        .map(|part| {
            let op_len = part.find(|c: char| c.is_ascii_digit())?;
            let (op, num) = part.split_at(op_len);
            if !matches!(op, "<" | "<=" | ">" | ">=" | "=") {
                return None;
            }
            let mut parts = num
                .split('.')
                .map(|n| n.parse::<u64>().ok())
                .collect::<Option<Vec<_>>>()?;
            while parts.len() > 1 && parts.last() == Some(&0) {
                parts.pop();
            }
            Some((op, parts))
        })
        .collect()
}

fn bound_support(s: &Strictness, op: &str, parts: &[u64], seen: &[&Mention]) -> f64 {
    if seen.iter().any(|m| m.parts.starts_with(parts)) {
        return 1.0;
    }
    let next_major = matches!(op, "<" | "<=")
        && parts.len() == 1
        && parts[0] > 0
        && seen.iter().any(|m| m.parts[0] + 1 == parts[0]);
    if next_major {
        s.next_major_credit
    } else {
        0.0
    }
}

/// The name a version mention belongs to: the stack name that ends last
/// before it, at most [`NEAR_KEY_CHARS`] before it.
fn owner<'a>(m: &Mention, names: &[(&'a str, Vec<usize>)]) -> Option<&'a str> {
    names
        .iter()
        .flat_map(|(n, ends)| ends.iter().map(move |&e| (e, *n)))
        .filter(|&(e, _)| e <= m.at && m.at - e <= NEAR_KEY_CHARS)
        .max_by_key(|&(e, n)| (e, n.len()))
        .map(|(_, n)| n)
}

fn scope_versioned(
    s: &Strictness,
    versions: &std::collections::BTreeMap<String, String>,
    stack: &[String],
    source: &str,
) -> (f64, String) {
    let all = mentions(source);
    let mut names: Vec<&str> = stack
        .iter()
        .map(String::as_str)
        .chain(versions.keys().map(String::as_str))
        .collect();
    names.sort_unstable();
    names.dedup();
    let names: Vec<(&str, Vec<usize>)> = names
        .into_iter()
        .map(|n| (n, name_ends(source, n)))
        .collect();
    let mut key_scores = Vec::new();
    let mut why = Vec::new();
    for (key, range) in versions {
        if name_ends(source, key).is_empty() {
            key_scores.push(0.0);
            why.push(format!("{key} is not named in the source"));
            continue;
        }
        let seen: Vec<&Mention> = if s.near_key_only {
            all.iter()
                .filter(|m| owner(m, &names) == Some(key.as_str()))
                .collect()
        } else {
            all.iter().collect()
        };
        let f = match bounds(range) {
            Some(b) if !b.is_empty() => {
                let credits: Vec<f64> = b
                    .iter()
                    .map(|(op, parts)| bound_support(s, op, parts, &seen))
                    .collect();
                credits.iter().sum::<f64>() / credits.len() as f64
            }
            _ => 0.0,
        };
        if f < 1.0 {
            why.push(format!(
                "{key} {range} is not fully supported by the versions the source gives"
            ));
        }
        key_scores.push(s.key_base + (1.0 - s.key_base) * f);
    }
    let score = if key_scores.is_empty() {
        0.0
    } else if s.combine_min {
        key_scores.iter().copied().fold(f64::INFINITY, f64::min)
    } else {
        key_scores.iter().sum::<f64>() / key_scores.len() as f64
    };
    (score, why.join("; "))
}

const REASON_MARKERS: &[&str] = &[
    "because",
    "regardless",
    "independent",
    "independently",
    "by design",
    "by definition",
    "specification",
    "spec",
    "standard",
    "protocol",
    "posix",
    "rfc",
    "semantics",
    "always",
    "never",
    "inherent",
    "inherently",
    "guaranteed",
    "documented",
    "every version",
    "all versions",
    "any version",
];

fn scope_independent(s: &Strictness, p: &Proposal, justification: &str) -> (f64, String) {
    let words = content_words(justification);
    let mut known = content_words(&p.candidate.claim);
    known.extend(content_words(&p.candidate.rationale));
    let new_words = words.iter().filter(|w| !known.contains(*w)).count();
    if words.len() < 5 {
        return (0.2, "the justification is too short to check".to_owned());
    }
    if new_words < 3 {
        return (0.2, "the justification restates the claim".to_owned());
    }
    let lower = format!(" {} ", justification.to_lowercase());
    let padded = |m: &str| {
        lower.match_indices(m).any(|(i, _)| {
            !lower[..i]
                .chars()
                .next_back()
                .is_some_and(char::is_alphanumeric)
                && !lower[i + m.len()..]
                    .chars()
                    .next()
                    .is_some_and(char::is_alphanumeric)
        })
    };
    let mut score = s.vi_cap;
    let mut why = vec!["version independence cannot be verified offline".to_owned()];
    if !REASON_MARKERS.iter().any(|m| padded(m)) {
        score -= 0.25;
        why.push("the justification gives no reason".to_owned());
    }
    if mentions(justification).iter().any(|m| m.parts.len() > 1) || versionish_v(justification) {
        score -= 0.3;
        why.push("the justification cites a version".to_owned());
    }
    (score, why.join("; "))
}

fn versionish_v(text: &str) -> bool {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| Regex::new(r"\b[vV]\d+\b").unwrap_or_else(|e| panic!("v pattern: {e}")))
        .is_match(text)
}

// ---- generality --------------------------------------------------------

struct Marker {
    what: &'static str,
    re: Regex,
}

fn markers() -> &'static [Marker] {
    static M: OnceLock<Vec<Marker>> = OnceLock::new();
    M.get_or_init(|| {
        let m = |what, pattern: &str| Marker {
            what,
            re: Regex::new(pattern).unwrap_or_else(|e| panic!("marker pattern {pattern:?}: {e}")),
        };
        vec![
            m(
                "an absolute path",
                r#"(?:^|[\s("'`=:])(?:/(?:home|Users|tmp|var|opt|etc|root|mnt|srv|private|Volumes)/|~/|[A-Za-z]:\\)"#,
            ),
            m(
                "a time word",
                r"(?i)\b(?:today|yesterday|tomorrow|tonight|this (?:session|morning|afternoon|evening|week|sprint)|right now|just now|last night)\b",
            ),
            m(
                "a ticket reference",
                r"(?i:\b(?:issue|ticket|bug|jira|pr)\s*#?\d+\b)|(?:^|\s)#\d{2,}\b|\b[A-Z][A-Z0-9]{1,9}-\d{1,6}\b",
            ),
            m("a commit sha", r"\b[0-9a-f]{7,40}\b"),
        ]
    })
}

/// Ticket-like prefixes that are standards, not tickets (`UTF-8`, `SHA-256`).
const NOT_TICKETS: &[&str] = &[
    "UTF", "ISO", "SHA", "RFC", "ES", "ECMA", "CVE", "GHSA", "MD", "AES", "RSA", "HTTP", "TLS",
    "SSL", "IPV", "IPV4", "IPV6", "UTF8", "EC", "ED", "PEP", "JSR", "CWE", "WCAG", "POSIX", "IEEE",
    "X509", "H264", "X86", "ARM",
];

const FIRST_PERSON: &[&str] = &[
    "i", "i'm", "i've", "i'd", "i'll", "we", "we're", "we've", "we'd", "we'll", "our", "ours",
    "my", "mine", "me", "us", "let's",
];

fn generality(s: &Strictness, p: &Proposal) -> (f64, String) {
    let c = &p.candidate;
    let mut text = format!("{}\n{}\n{}", c.claim, c.rationale, c.evidence.resolution);
    if let Scope::VersionIndependent { justification } = &c.applies_to.scope {
        text.push('\n');
        text.push_str(justification);
    }
    let mut found: Vec<&str> = Vec::new();
    for m in markers() {
        let hit = m.re.find_iter(&text).any(|x| match m.what {
            "a ticket reference" => {
                let t = x.as_str().trim();
                match t.split_once('-') {
                    Some((prefix, _))
                        if prefix
                            .chars()
                            .all(|ch| ch.is_ascii_uppercase() || ch.is_ascii_digit()) =>
                    {
                        !NOT_TICKETS.contains(&prefix)
                    }
                    _ => true,
                }
            }
            "a commit sha" => {
                let t = x.as_str();
                t.chars().any(|ch| ch.is_ascii_digit())
                    && t.chars().any(|ch| ch.is_ascii_alphabetic())
            }
            _ => true,
        });
        if hit {
            found.push(m.what);
        }
    }
    let narrated = text.split_whitespace().any(|w| {
        let t = w.trim_matches(|ch: char| !ch.is_alphanumeric() && ch != '\'');
        let l = t.to_lowercase().replace('\u{2019}', "'");
        FIRST_PERSON.contains(&l.as_str()) && t != "US" && !(l == "i" && t == "i")
    });
    if narrated {
        found.push("first-person narration");
    }
    if let Some(a) = &p.artifact {
        let session = a.session_id.as_deref().filter(|id| id.len() >= 6);
        let artifact_id = a.id.to_string();
        let ids = [session, Some(artifact_id.as_str())];
        if ids.iter().flatten().any(|id| text.contains(id)) {
            found.push("the session's own id");
        }
    }
    let score = 1.0 - s.marker_cost * found.len() as f64;
    let why = if found.is_empty() {
        String::new()
    } else {
        format!("session markers: {}", found.join(", "))
    };
    (score, why)
}

// ---- disclosure --------------------------------------------------------

fn disclosure(p: &Proposal) -> (f64, String) {
    let found = scan_lesson(&p.candidate);
    if found.is_empty() {
        return (1.0, String::new());
    }
    let kinds: BTreeSet<String> = found
        .iter()
        .map(|f| format!("{} in {}", f.kind, f.field.as_deref().unwrap_or("text")))
        .collect();
    (
        0.0,
        format!(
            "leaks: {}",
            kinds.into_iter().collect::<Vec<_>>().join(", ")
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Visibility;
    use crate::review::jury::{judge, JuryOutcome};
    use crate::review::rubric::RubricSet;
    use crate::review::testdata;

    /// The reference candidate with its positive source artifact attached.
    fn reference() -> Proposal {
        let mut p = testdata::proposal("proposal.confirmed.json");
        p.artifact = Some(testdata::artifact(
            "archivist-artifact.positive-synthetic.json",
        ));
        p
    }

    fn public() -> Rubric {
        Rubric::builtin_public()
    }

    fn scores(v: &Value) -> Map<String, Value> {
        v["criterion_scores"]
            .as_object()
            .cloned()
            .unwrap_or_default()
    }

    fn score(v: &Value, c: &str) -> f64 {
        v["criterion_scores"][c].as_f64().unwrap_or(f64::NAN)
    }

    /// A proposal drafted from the real ERESOLVE of `npm-error-plugin-legacy-vite7.txt`
    /// and the install that fixed it, as the offline transform writes it.
    fn from_facts() -> Proposal {
        use crate::facts::{command, lesson, resolver, Fact};
        let text = std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/fixtures/resolver/npm-error-plugin-legacy-vite7.txt"
        ))
        .unwrap();
        let mut facts: Vec<Fact> = resolver::requirements(&text)
            .into_iter()
            .map(Fact::Requirement)
            .collect();
        facts.extend(
            command::changes_in_command("npm i -D @vitejs/plugin-legacy@7.0.0")
                .into_iter()
                .map(Fact::Change),
        );
        let d = lesson::draft(&facts, None).unwrap();
        let mut p = reference();
        let a = p.artifact.as_mut().unwrap();
        a.summary = d.claim.clone();
        a.detail = Some(format!("{}\n{}", d.rationale, d.resolution));
        a.facts = facts;
        p.candidate.claim = d.claim;
        p.candidate.rationale = d.rationale;
        p.candidate.evidence.resolution = d.resolution;
        p.candidate.applies_to.stack = d.stack;
        p.candidate.applies_to.scope = Scope::Versioned {
            versions: d.versions,
        };
        p
    }

    fn feedback(v: &Value) -> String {
        v["feedback_summary"].as_str().unwrap_or("").to_owned()
    }

    #[test]
    fn a_lesson_drafted_from_facts_passes_both_judges() {
        let p = from_facts();
        for judge_type in OFFLINE_JUDGE_TYPES {
            let v = offline_verdict(judge_type, &p, &public()).unwrap();
            assert_eq!(v["passed"], true, "{judge_type}: {}", feedback(&v));
        }
    }

    #[test]
    fn junk_lowers_the_right_criterion_and_says_why() {
        let set = RubricSet::builtin();
        let org = set.rubric_for(Visibility::Org).unwrap();
        let check = |p: &Proposal, criterion: &str, reason: &str| {
            for judge_type in OFFLINE_JUDGE_TYPES {
                let v = offline_verdict(judge_type, p, org).unwrap();
                assert!(
                    score(&v, criterion) <= JUNK_CAP,
                    "{judge_type} {criterion}: {}",
                    feedback(&v)
                );
                assert!(
                    feedback(&v).contains(reason),
                    "{judge_type}: {}",
                    feedback(&v)
                );
                assert_eq!(v["passed"], false);
            }
        };
        // A claim that is a commit subject.
        let mut p = from_facts();
        let a = p.artifact.as_mut().unwrap();
        a.trigger = Some("commit".into());
        a.summary = "fix: bump @vitejs/plugin-legacy to 7 (#1234)".into();
        p.candidate.claim = a.summary.clone();
        check(
            &p,
            "generality",
            "the claim starts with a conventional-commit prefix (\"fix:\")",
        );
        check(&p, "generality", "the claim is the commit's subject line");
        // A claim equal to its resolution.
        let mut p = from_facts();
        p.candidate.claim = format!("Fix: {}", p.candidate.evidence.resolution);
        check(&p, "grounding", "the claim repeats the resolution");
        // A stack entry that is a file name.
        let mut p = from_facts();
        p.candidate.applies_to.stack.push("cargo.lock".into());
        check(
            &p,
            "scope_accuracy",
            "stack entry \"cargo.lock\" is a file name, not a package",
        );
        // A scope that contradicts the evidence: the fixed version recalled.
        let mut p = from_facts();
        if let Scope::Versioned { versions } = &mut p.candidate.applies_to.scope {
            versions.insert("@vitejs/plugin-legacy".into(), "<8".into());
        }
        check(
            &p,
            "scope_accuracy",
            "takes in 7.0.0, the version that resolved it",
        );
        // A package absent from the evidence.
        let mut p = from_facts();
        p.candidate.applies_to.stack.push("lodash".into());
        check(
            &p,
            "scope_accuracy",
            "\"lodash\" is not a package the evidence names",
        );
    }

    #[test]
    fn counter_observations_at_the_threshold_fail_grounding_and_the_ruling() {
        let p = reference();
        let set = RubricSet::builtin();
        let rubric = set.rubric_for(Visibility::Org).unwrap();
        let plain = offline_panel(&p, rubric).unwrap();
        // Below the threshold the judges judge as for a proposal.
        assert_eq!(offline_rejudge_panel(&p, rubric, 1, 2).unwrap(), plain);
        let panel = offline_rejudge_panel(&p, rubric, 2, 2).unwrap();
        for (again, before) in panel
            .as_array()
            .unwrap()
            .iter()
            .zip(plain.as_array().unwrap())
        {
            assert_eq!(score(again, "grounding"), 0.0);
            assert_eq!(again["passed"], false);
            assert_eq!(score(again, "generality"), score(before, "generality"));
            assert!(again["feedback_summary"]
                .as_str()
                .unwrap()
                .contains("grounding 0.00 (2 counter-observations reach the threshold 2)"));
        }
        let JuryOutcome::Recorded(v) = judge(Visibility::Org, &set, &panel).unwrap() else {
            panic!("a usable panel")
        };
        assert!(!v.passed, "{v:?}");
    }

    #[test]
    fn verdict_shape_and_determinism() {
        let p = reference();
        let a = offline_verdict("standard", &p, &public()).unwrap();
        let b = offline_verdict("standard", &p, &public()).unwrap();
        assert_eq!(a, b);
        let keys: Vec<&String> = a.as_object().unwrap().keys().collect();
        assert_eq!(
            keys,
            [
                "confidence",
                "criterion_scores",
                "feedback_summary",
                "judge_type",
                "passed",
                "score"
            ]
        );
        let names: Vec<&String> = a["criterion_scores"].as_object().unwrap().keys().collect();
        assert_eq!(
            names,
            ["disclosure", "generality", "grounding", "scope_accuracy"]
        );
        assert!(!a["feedback_summary"].as_str().unwrap().contains('\n'));
        assert_eq!(
            offline_verdict("lenient", &p, &public()).unwrap_err().to_string(),
            "no offline judge for judge type \"lenient\" (the offline judges are: standard, adversarial)"
        );
    }

    #[test]
    fn the_reference_lesson_passes_both_judges_at_both_tiers() {
        let p = reference();
        for r in [Rubric::builtin_org(), public()] {
            let panel = offline_panel(&p, &r).unwrap();
            for v in panel.as_array().unwrap() {
                assert_eq!(v["passed"], json!(true), "{v}");
            }
        }
        let std_v = offline_verdict("standard", &p, &public()).unwrap();
        let adv_v = offline_verdict("adversarial", &p, &public()).unwrap();
        // Resolution "Pin vitest to 3.x until Vite 6 lands": "3" and "land"
        // are not in the source, 4 of 6 words are.
        assert_eq!(score(&std_v, "grounding"), round6(0.5 + 0.5 * 4.0 / 6.0));
        assert_eq!(score(&adv_v, "grounding"), round6(0.3 + 0.7 * 4.0 / 6.0));
        assert!(std_v["feedback_summary"]
            .as_str()
            .unwrap()
            .contains("resolution words not in the source: 3, land"));
        for v in [&std_v, &adv_v] {
            assert_eq!(score(v, "scope_accuracy"), 1.0);
            assert_eq!(score(v, "generality"), 1.0);
            assert_eq!(score(v, "disclosure"), 1.0);
        }
        let set = RubricSet::builtin();
        for vis in [Visibility::Org, Visibility::Public] {
            let panel = offline_panel(&p, set.rubric_for(vis).unwrap()).unwrap();
            let JuryOutcome::Recorded(v) = judge(vis, &set, &panel).unwrap() else {
                panic!("unjudged")
            };
            assert_eq!(v.reason, "gate_passed", "{vis}");
        }
    }

    #[test]
    fn an_invented_lesson_fails_grounding() {
        let mut p = reference();
        p.candidate.claim = "Webpack 5 breaks tree shaking for lodash".into();
        p.candidate.evidence.resolution = "Switch to lodash-es and enable sideEffects false".into();
        for t in OFFLINE_JUDGE_TYPES {
            let v = offline_verdict(t, &p, &public()).unwrap();
            assert!(score(&v, "grounding") < 0.5, "{v}");
            assert_eq!(v["passed"], json!(false));
        }
    }

    #[test]
    fn adversarial_is_stricter_on_partial_resolutions() {
        // Half of the resolution's words are in the source.
        let mut p = reference();
        p.candidate.evidence.resolution = "Pin vitest, bump rollup plugins".into();
        let s = offline_verdict("standard", &p, &public()).unwrap();
        let a = offline_verdict("adversarial", &p, &public()).unwrap();
        assert!(score(&a, "grounding") < score(&s, "grounding"));
        assert_eq!(score(&a, "grounding"), 0.4);
    }

    #[test]
    fn scope_must_name_what_the_source_names() {
        let mut p = reference();
        let set = |p: &mut Proposal, pairs: &[(&str, &str)]| {
            p.candidate.applies_to.scope = Scope::Versioned {
                versions: pairs
                    .iter()
                    .map(|(k, v)| (k.to_string(), v.to_string()))
                    .collect(),
            };
        };
        // Narrow scope straight from the source: full marks from both.
        set(&mut p, &[("vite", "=5.4.21"), ("vitest", ">=4.1.9")]);
        for t in OFFLINE_JUDGE_TYPES {
            assert_eq!(
                score(
                    &offline_verdict(t, &p, &public()).unwrap(),
                    "scope_accuracy"
                ),
                1.0
            );
        }
        // A package the source never names scores 0 for that key.
        set(&mut p, &[("vite", "<6"), ("react", ">=18")]);
        let s = offline_verdict("standard", &p, &public()).unwrap();
        let a = offline_verdict("adversarial", &p, &public()).unwrap();
        assert_eq!(score(&s, "scope_accuracy"), 0.5); // mean of 1.0 and 0.0
        assert_eq!(score(&a, "scope_accuracy"), 0.0); // min
                                                      // A bound the source cannot support.
        set(&mut p, &[("vite", ">=3 <5")]);
        let s = offline_verdict("standard", &p, &public()).unwrap();
        assert_eq!(score(&s, "scope_accuracy"), round6(0.3 + 0.7 * 0.5));
        // Next major: full credit for standard, half for adversarial.
        p.artifact.as_mut().unwrap().detail = Some("Vitest 4.1.9 breaks on Vite 5.4.21.".into());
        p.artifact.as_mut().unwrap().summary = "Vitest 4.1.9 and Vite 5.4.21 mismatch".into();
        set(&mut p, &[("vite", "<6")]);
        assert_eq!(
            score(
                &offline_verdict("standard", &p, &public()).unwrap(),
                "scope_accuracy"
            ),
            1.0
        );
        assert_eq!(
            score(
                &offline_verdict("adversarial", &p, &public()).unwrap(),
                "scope_accuracy"
            ),
            round6(0.2 + 0.8 * 0.5)
        );
        // The adversarial judge wants the version next to the key's name:
        // 4.1.9 belongs to vitest, not to vite.
        set(&mut p, &[("vite", ">=4")]);
        p.artifact.as_mut().unwrap().summary = "Vite mismatch".into();
        p.artifact.as_mut().unwrap().detail =
            Some("Vite fails with vitest; vitest 4.1.9 is installed.".into());
        assert_eq!(
            score(
                &offline_verdict("standard", &p, &public()).unwrap(),
                "scope_accuracy"
            ),
            1.0
        );
        assert_eq!(
            score(
                &offline_verdict("adversarial", &p, &public()).unwrap(),
                "scope_accuracy"
            ),
            0.2
        );
        // "vite" inside "vitest" is not a mention of vite.
        p.artifact.as_mut().unwrap().detail = Some("vitest 4.1.9 is installed.".into());
        p.artifact.as_mut().unwrap().summary = "vitest mismatch".into();
        assert_eq!(
            score(
                &offline_verdict("standard", &p, &public()).unwrap(),
                "scope_accuracy"
            ),
            0.0
        );
    }

    #[test]
    fn version_independent_is_scored_conservatively() {
        let mut p = reference();
        let just = |p: &mut Proposal, j: &str| {
            p.candidate.applies_to.scope = Scope::VersionIndependent {
                justification: j.into(),
            };
        };
        just(
            &mut p,
            "git refuses checkout over uncommitted changes by design, regardless of release line",
        );
        assert_eq!(
            score(
                &offline_verdict("standard", &p, &public()).unwrap(),
                "scope_accuracy"
            ),
            0.75
        );
        assert_eq!(
            score(
                &offline_verdict("adversarial", &p, &public()).unwrap(),
                "scope_accuracy"
            ),
            0.7
        );
        just(
            &mut p,
            "Vitest 4 cannot import vite/module-runner on Vite 5",
        );
        assert_eq!(
            score(
                &offline_verdict("standard", &p, &public()).unwrap(),
                "scope_accuracy"
            ),
            0.2
        );
        just(&mut p, "it just works");
        assert_eq!(
            score(
                &offline_verdict("standard", &p, &public()).unwrap(),
                "scope_accuracy"
            ),
            0.2
        );
        just(
            &mut p,
            "the module runner loader contract differs between bundler generations",
        );
        assert_eq!(
            score(
                &offline_verdict("standard", &p, &public()).unwrap(),
                "scope_accuracy"
            ),
            0.5
        );
        just(
            &mut p,
            "because the module runner loader contract changed in 6.0.0 releases",
        );
        assert_eq!(
            score(
                &offline_verdict("standard", &p, &public()).unwrap(),
                "scope_accuracy"
            ),
            0.45
        );
        // No artifact needed for a version_independent scope.
        p.artifact = None;
        just(
            &mut p,
            "git refuses checkout over uncommitted changes by design, regardless of release line",
        );
        let v = offline_verdict("standard", &p, &public()).unwrap();
        assert_eq!(score(&v, "scope_accuracy"), 0.75);
        assert!(!scores(&v).contains_key("grounding"));
    }

    #[test]
    fn session_markers_cost_generality() {
        let cases = [
            (
                "Fixed /home/alice/src/app/vite.config.ts by pinning",
                "an absolute path",
            ),
            (
                "Today the build broke until vitest was pinned",
                "a time word",
            ),
            ("Pinned vitest per PROJ-1234", "a ticket reference"),
            ("Pinned vitest, see #482", "a ticket reference"),
            ("Reverted 3f9c2ab1 and pinned vitest", "a commit sha"),
            ("I pinned vitest and it worked", "first-person narration"),
            ("We pinned vitest", "first-person narration"),
            (
                "Pinned vitest in session sess-123456",
                "the session's own id",
            ),
        ];
        for (resolution, marker) in cases {
            let mut p = reference();
            if marker == "the session's own id" {
                p.artifact.as_mut().unwrap().session_id = Some("sess-123456".into());
            }
            p.candidate.evidence.resolution = resolution.into();
            let s = offline_verdict("standard", &p, &public()).unwrap();
            let a = offline_verdict("adversarial", &p, &public()).unwrap();
            assert_eq!(score(&s, "generality"), 0.8, "{resolution}");
            assert_eq!(score(&a, "generality"), 0.7, "{resolution}");
            assert!(
                s["feedback_summary"].as_str().unwrap().contains(marker),
                "{resolution}: {s}"
            );
        }
        // Not markers: standards names, I/O, US, version ranges, relative paths.
        for resolution in [
            "Set the charset to UTF-8 and use SHA-256 for the digest",
            "Avoid blocking I/O in US-east regions",
            "Pin vitest >=4 <5 in packages/db/package.json",
            "Use ES-2022 target and RFC-3339 timestamps",
        ] {
            let mut p = reference();
            p.candidate.evidence.resolution = resolution.into();
            let s = offline_verdict("standard", &p, &public()).unwrap();
            assert_eq!(score(&s, "generality"), 1.0, "{resolution}: {s}");
        }
        // Several kinds add up.
        let mut p = reference();
        p.candidate.evidence.resolution = "Today I fixed /tmp/x per JIRA-77".into();
        assert_eq!(
            score(
                &offline_verdict("standard", &p, &public()).unwrap(),
                "generality"
            ),
            0.2
        );
        assert_eq!(
            score(
                &offline_verdict("adversarial", &p, &public()).unwrap(),
                "generality"
            ),
            0.0
        );
    }

    #[test]
    fn a_leak_zeroes_disclosure_and_blocks_public() {
        let mut p = reference();
        p.candidate.rationale = "The CI box ci01.build.internal runs Vite 5.".into();
        let set = RubricSet::builtin();
        let panel = offline_panel(&p, set.rubric_for(Visibility::Public).unwrap()).unwrap();
        for v in panel.as_array().unwrap() {
            assert_eq!(score(v, "disclosure"), 0.0);
            assert_eq!(v["passed"], json!(false));
            let fb = v["feedback_summary"].as_str().unwrap();
            assert!(fb.contains("internal_host in rationale"), "{fb}");
            assert!(
                !fb.contains("ci01.build"),
                "the leak itself is not repeated: {fb}"
            );
        }
        let JuryOutcome::Recorded(v) = judge(Visibility::Public, &set, &panel).unwrap() else {
            panic!()
        };
        assert!(!v.passed);
        assert_eq!(v.failed_criterion.as_deref(), Some("disclosure"));
    }

    #[test]
    fn no_artifact_means_no_grounding_score() {
        let mut p = reference();
        p.artifact = None;
        let v = offline_verdict("standard", &p, &public()).unwrap();
        let names: Vec<String> = scores(&v).keys().cloned().collect();
        assert_eq!(names, ["disclosure", "generality"]);
        assert_eq!(v["passed"], json!(false));
        assert!(v["feedback_summary"]
            .as_str()
            .unwrap()
            .contains("grounding: no source artifact"));
        let set = RubricSet::builtin();
        let panel = offline_panel(&p, set.rubric_for(Visibility::Org).unwrap()).unwrap();
        assert!(matches!(
            judge(Visibility::Org, &set, &panel).unwrap(),
            JuryOutcome::Unjudged(_)
        ));
    }

    #[test]
    fn unknown_criteria_are_left_out() {
        let mut r = Rubric::builtin_org();
        r.criteria[2].name = "novelty".into();
        let v = offline_verdict("standard", &reference(), &r).unwrap();
        assert!(!scores(&v).contains_key("novelty"));
        assert!(v["feedback_summary"]
            .as_str()
            .unwrap()
            .contains("novelty: no offline rule"));
    }

    #[test]
    fn the_real_vitest_artifact_does_not_ground_an_invented_resolution() {
        let mut p = reference();
        p.artifact = Some(testdata::artifact(
            "archivist-artifact.real-vitest-no-resolution.json",
        ));
        let a = offline_verdict("adversarial", &p, &public()).unwrap();
        // "Pin vitest to 3.x until Vite 6 lands": the source never says to pin.
        assert!(score(&a, "grounding") < 0.7, "{a}");
        assert_eq!(a["passed"], json!(false));
    }
}
