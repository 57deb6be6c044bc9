//! The relation-verdict parser: the fail-closed boundary between a judge's
//! answer and anything that could be written.
//!
//! **Tolerance boundary.** A verdict is accepted as JSON text (or bytes that
//! are UTF-8 JSON text) or as an already parsed JSON value, and nothing else:
//! no code-fence extraction, no trailing-comma repair, no case folding, no
//! coercion of a near-miss to the nearest member. Any tolerance added here
//! would be tolerance at the fail-closed boundary itself; a provider that
//! wraps JSON in prose must be unwrapped before this call, by a layer that
//! cannot write. JSON text is read more strictly than `JSON.parse` reads it
//! in one respect: an object with a repeated key is unparseable rather than
//! "last one wins". Text over [`MAX_VERDICT_BYTES`] is refused unread.
//!
//! **The batch is atomic.** One violation voids the whole batch. A voided
//! verdict is [`Parsed::Void`], which has no decisions at all; only
//! [`Parsed::Valid`] carries them, and a [`ValidBatch`] can only be made by
//! this parser. There is no default decision and no fallback member: an
//! absent decision performs nothing.
//!
//! **Failure modes and their precedence** (the first violation found names
//! the mode):
//! 1. nothing came back (no output, JSON `null`, empty or white-space text):
//!    `empty`;
//! 2. text over the size cap, not UTF-8, not JSON, or JSON that is not an
//!    object: `unparseable`;
//! 3. `candidate_id` missing or not the candidate's id: `partial`;
//! 4. a `corpus_fingerprint` echo that disagrees with the input (a string
//!    other than the digest; an object whose `digest` is missing or differs,
//!    or whose `ids` or `count`, when echoed, differ; any other type):
//!    `partial`;
//! 5. `decisions` missing or not an array: `partial`; an empty array: `empty`;
//! 6. then each decision in order, stopping at the first violation:
//!    1. not an object: `partial`;
//!    2. `decision` missing or null: `partial`;
//!    3. `decision` present but not exactly one of the six: `enum_violation`;
//!    4. a per-decision `candidate_id` that is present and not the
//!       candidate's id: `partial`;
//!    5. `target_ids` missing or not an array, empty for a relation
//!       (`refine`, `supersede`, `merge`, `contradict`), or non-empty for
//!       `skip` / `abstain`: `partial`;
//!    6. each target id in order: not a non-blank string: `partial`; the
//!       candidate's own id: `self_reference` (checked before the phantom
//!       gate, so a self-reference is never reported as a phantom id); not
//!       one of the presented ids: `phantom_id`; already named in this batch:
//!       `duplicate_target`;
//!    7. for a relation: `surface` not a non-blank string, `rationale` not a
//!       non-blank string, or a rationale that does not name the surface
//!       (see [`rationale_names_surface`]): `partial`; for `skip` / `abstain`:
//!       a `surface` or `rationale` that is present and not a string:
//!       `partial`;
//!    8. `confidence` not a finite number in [0, 1]: `partial`.
//!
//! The judge runner reports `timeout` (and any transport failure, as
//! `unparseable`) through [`Parsed::void`]; this module never waits.
//!
//! Unknown keys in the envelope and in decisions are ignored. This module
//! parses and counts; it never plans or performs an effect.

use std::fmt;

use serde::de::{self, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::model::Id;
use crate::schema::clip;

use super::input::JudgmentInput;

/// The largest verdict text read, in bytes. A full answer for the largest
/// neighbour pool is a few kilobytes; anything near this is not an answer.
pub const MAX_VERDICT_BYTES: usize = 256 * 1024;

/// How many characters of an offending value a void's detail quotes.
const QUOTE_CHARS: usize = 80;

/// The six decisions. `store` is deliberately absent: persisting a lesson has
/// its own gate (promotion), and "no relation found" is `skip`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DecisionKind {
    /// Judged: no relation.
    Skip,
    /// Both stay active and are linked.
    Refine,
    /// The targets are replaced by the candidate.
    Supersede,
    /// The candidate absorbs the targets, which are replaced by it.
    Merge,
    /// A counter-observation against each target; no status change.
    Contradict,
    /// Could not judge. Distinct from `skip` so that telemetry cannot
    /// mistake an undecided case for a decided one.
    Abstain,
}

impl DecisionKind {
    /// The six, in the contract's order.
    pub const ALL: [DecisionKind; 6] = [
        DecisionKind::Skip,
        DecisionKind::Refine,
        DecisionKind::Supersede,
        DecisionKind::Merge,
        DecisionKind::Contradict,
        DecisionKind::Abstain,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            DecisionKind::Skip => "skip",
            DecisionKind::Refine => "refine",
            DecisionKind::Supersede => "supersede",
            DecisionKind::Merge => "merge",
            DecisionKind::Contradict => "contradict",
            DecisionKind::Abstain => "abstain",
        }
    }

    /// Whether the decision asserts a relation to at least one neighbour.
    pub fn is_relation(self) -> bool {
        !matches!(self, DecisionKind::Skip | DecisionKind::Abstain)
    }

    /// Exact membership: no trimming, no case folding.
    fn from_exact(s: &str) -> Option<DecisionKind> {
        DecisionKind::ALL.into_iter().find(|d| d.as_str() == s)
    }
}

impl fmt::Display for DecisionKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The eight failure modes: a closed set, so the telemetry vocabulary stays
/// stable; the free-text detail discriminates within a mode.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum FailureMode {
    Unparseable,
    Partial,
    PhantomId,
    SelfReference,
    Empty,
    Timeout,
    EnumViolation,
    DuplicateTarget,
}

impl FailureMode {
    pub const ALL: [FailureMode; 8] = [
        FailureMode::Unparseable,
        FailureMode::Partial,
        FailureMode::PhantomId,
        FailureMode::SelfReference,
        FailureMode::Empty,
        FailureMode::Timeout,
        FailureMode::EnumViolation,
        FailureMode::DuplicateTarget,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            FailureMode::Unparseable => "unparseable",
            FailureMode::Partial => "partial",
            FailureMode::PhantomId => "phantom_id",
            FailureMode::SelfReference => "self_reference",
            FailureMode::Empty => "empty",
            FailureMode::Timeout => "timeout",
            FailureMode::EnumViolation => "enum_violation",
            FailureMode::DuplicateTarget => "duplicate_target",
        }
    }
}

impl fmt::Display for FailureMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A confidence: a finite number in [0, 1].
#[derive(Clone, Copy, Debug, PartialEq, PartialOrd, Serialize)]
#[serde(transparent)]
pub struct Confidence(f64);

impl Confidence {
    /// `None` for NaN, infinities and anything outside [0, 1].
    pub fn new(v: f64) -> Option<Confidence> {
        (v.is_finite() && (0.0..=1.0).contains(&v)).then_some(Confidence(v))
    }

    pub fn get(self) -> f64 {
        self.0
    }
}

/// One decision of a valid batch. Only the parser makes these.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Decision {
    decision: DecisionKind,
    target_ids: Vec<Id>,
    surface: String,
    rationale: String,
    confidence: Confidence,
}

impl Decision {
    pub fn kind(&self) -> DecisionKind {
        self.decision
    }

    /// Presented ids, never the candidate, never repeated in the batch;
    /// non-empty exactly for relations.
    pub fn targets(&self) -> &[Id] {
        &self.target_ids
    }

    /// As given; non-blank for relations, possibly empty otherwise.
    pub fn surface(&self) -> &str {
        &self.surface
    }

    /// As given; names the surface for relations, possibly empty otherwise.
    pub fn rationale(&self) -> &str {
        &self.rationale
    }

    pub fn confidence(&self) -> Confidence {
        self.confidence
    }
}

/// A batch that passed every rule. Only the parser makes these.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ValidBatch {
    candidate_id: Id,
    corpus_digest: String,
    decisions: Vec<Decision>,
}

impl ValidBatch {
    pub fn candidate(&self) -> Id {
        self.candidate_id
    }

    /// The digest of the presentation the batch was checked against.
    pub fn corpus_digest(&self) -> &str {
        &self.corpus_digest
    }

    /// At least one, in the judge's order.
    pub fn decisions(&self) -> &[Decision] {
        &self.decisions
    }

    /// Whether every decision is `abstain`: a valid answer that decides
    /// nothing, so the candidate stays queued.
    pub fn is_all_abstain(&self) -> bool {
        self.decisions
            .iter()
            .all(|d| d.decision == DecisionKind::Abstain)
    }
}

/// Why a batch was voided.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct VoidReason {
    pub mode: FailureMode,
    /// Diagnostic only; never used for control flow.
    pub detail: String,
}

impl fmt::Display for VoidReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "verdict voided ({}): {}", self.mode, self.detail)
    }
}

/// The outcome of parsing: a valid batch, or a void that carries no
/// decisions at all.
#[derive(Clone, Debug, PartialEq)]
pub enum Parsed {
    Valid(ValidBatch),
    Void(VoidReason),
}

impl Parsed {
    /// A void, for failures found before or around parsing (a timeout, a
    /// judge that could not be run).
    pub fn void(mode: FailureMode, detail: impl Into<String>) -> Parsed {
        Parsed::Void(VoidReason {
            mode,
            detail: detail.into(),
        })
    }

    /// Whether the candidate stays queued: on every void, and on a valid
    /// batch that only abstains.
    pub fn leaves_candidate_queued(&self) -> bool {
        match self {
            Parsed::Valid(b) => b.is_all_abstain(),
            Parsed::Void(_) => true,
        }
    }
}

/// A judge's answer as it arrived.
#[derive(Clone, Copy, Debug)]
pub enum RawVerdict<'a> {
    /// No output at all.
    Absent,
    /// Raw bytes (a model's stdout); must be UTF-8 JSON text.
    Bytes(&'a [u8]),
    /// JSON text.
    Text(&'a str),
    /// An already parsed JSON value (`null` reads as no output).
    Json(&'a Value),
}

/// Whether a rationale names a surface, lexically: the rationale, lower-cased,
/// contains the whole surface (lower-cased and trimmed), or one of the
/// surface's tokens of at least three characters, where tokens are the runs
/// of `a-z 0-9 _ . -` in the lower-cased surface.
///
/// This is lexical, not semantic: a rationale that refers to the surface
/// only by synonym is rejected, and the batch voids. A false void costs one
/// missed judgment; a vacuous rationale costs an unreviewable write.
pub fn rationale_names_surface(rationale: &str, surface: &str) -> bool {
    let r = rationale.to_lowercase();
    let s = surface.to_lowercase();
    let s = s.trim();
    if !s.is_empty() && r.contains(s) {
        return true;
    }
    s.split(|c: char| !matches!(c, 'a'..='z' | '0'..='9' | '_' | '.' | '-'))
        .filter(|t| t.len() >= 3)
        .any(|t| r.contains(t))
}

/// Parses and validates a verdict against the input the judge was shown.
pub fn parse_verdict(raw: RawVerdict<'_>, input: &JudgmentInput) -> Parsed {
    match envelope(raw) {
        Ok(value) => check(&value, input),
        Err(void) => void,
    }
}

fn void(mode: FailureMode, detail: impl Into<String>) -> Parsed {
    Parsed::void(mode, detail)
}

fn quote(v: &Value) -> String {
    clip(&v.to_string(), QUOTE_CHARS)
}

/// Steps 1 and 2: from the raw answer to a JSON object.
fn envelope(raw: RawVerdict<'_>) -> Result<Map<String, Value>, Parsed> {
    let value = match raw {
        RawVerdict::Absent => return Err(void(FailureMode::Empty, "the judge returned no output")),
        RawVerdict::Json(Value::Null) => {
            return Err(void(FailureMode::Empty, "the judge returned null"))
        }
        RawVerdict::Json(v) => v.clone(),
        RawVerdict::Bytes(b) => {
            if b.len() > MAX_VERDICT_BYTES {
                return Err(too_large(b.len()));
            }
            match std::str::from_utf8(b) {
                Ok(text) => from_text(text)?,
                Err(e) => {
                    return Err(void(
                        FailureMode::Unparseable,
                        format!("the verdict is not UTF-8: {e}"),
                    ))
                }
            }
        }
        RawVerdict::Text(text) => from_text(text)?,
    };
    match value {
        Value::Object(map) => Ok(map),
        other => Err(void(
            FailureMode::Unparseable,
            format!(
                "expected a JSON object, got {}",
                crate::schema::json_type(&other)
            ),
        )),
    }
}

fn too_large(len: usize) -> Parsed {
    void(
        FailureMode::Unparseable,
        format!("the verdict is {len} bytes; the limit is {MAX_VERDICT_BYTES} bytes"),
    )
}

fn from_text(text: &str) -> Result<Value, Parsed> {
    if text.len() > MAX_VERDICT_BYTES {
        return Err(too_large(text.len()));
    }
    if text.trim().is_empty() {
        return Err(void(
            FailureMode::Empty,
            if text.is_empty() {
                "the judge returned an empty string"
            } else {
                "the judge returned only white space"
            },
        ));
    }
    serde_json::from_str::<StrictValue>(text)
        .map(|v| v.0)
        .map_err(|e| {
            void(
                FailureMode::Unparseable,
                format!("the verdict is not JSON: {e}"),
            )
        })
}

/// Steps 3 to 6 over the envelope.
fn check(env: &Map<String, Value>, input: &JudgmentInput) -> Parsed {
    let candidate = input.candidate().id;
    let candidate_text = candidate.to_string();
    let fp = input.corpus_fingerprint();

    match env.get("candidate_id") {
        Some(Value::String(s)) if *s == candidate_text => {}
        other => {
            return void(
                FailureMode::Partial,
                format!(
                    "candidate_id mismatch: expected {candidate_text}, got {}",
                    other.map_or_else(|| "nothing".to_owned(), quote)
                ),
            )
        }
    }

    if let Some(echo) = env.get("corpus_fingerprint") {
        if let Err(why) = echo_agrees(echo, input) {
            return void(
                FailureMode::Partial,
                format!("corpus_fingerprint echo does not match the input: {why}"),
            );
        }
    }

    let items = match env.get("decisions") {
        Some(Value::Array(items)) => items,
        Some(other) => {
            return void(
                FailureMode::Partial,
                format!(
                    "`decisions` is {}, not an array",
                    crate::schema::json_type(other)
                ),
            )
        }
        None => {
            return void(
                FailureMode::Partial,
                "the envelope has no `decisions` array",
            )
        }
    };
    if items.is_empty() {
        return void(FailureMode::Empty, "the envelope carries zero decisions");
    }

    let mut decisions = Vec::with_capacity(items.len());
    let mut named: Vec<Id> = Vec::new();
    for (i, item) in items.iter().enumerate() {
        match check_decision(i, item, &candidate_text, input, &mut named) {
            Ok(d) => decisions.push(d),
            Err(void) => return void,
        }
    }
    Parsed::Valid(ValidBatch {
        candidate_id: candidate,
        corpus_digest: fp.digest().to_owned(),
        decisions,
    })
}

/// How an echoed fingerprint disagrees with the presented one; what the
/// judge wrote is quoted bounded.
#[derive(Debug, thiserror::Error)]
enum EchoError {
    #[error("digest {got} is not {want}")]
    Digest { got: String, want: String },
    #[error("the echoed object has no digest")]
    NoDigest,
    #[error("count {got} is not {want}")]
    Count { got: String, want: usize },
    #[error("ids {0} are not the presented ids")]
    Ids(String),
    #[error("expected the digest or an object, got {0}")]
    NotAnEcho(&'static str),
}

/// Whether an echoed fingerprint agrees with the presented one.
fn echo_agrees(echo: &Value, input: &JudgmentInput) -> Result<(), EchoError> {
    let fp = input.corpus_fingerprint();
    let digest = |got: String| EchoError::Digest {
        got,
        want: fp.digest().to_owned(),
    };
    match echo {
        Value::String(s) if s == fp.digest() => Ok(()),
        Value::String(s) => Err(digest(format!("{:?}", clip(s, 32)))),
        Value::Object(m) => {
            match m.get("digest") {
                Some(Value::String(s)) if s == fp.digest() => {}
                Some(other) => return Err(digest(quote(other))),
                None => return Err(EchoError::NoDigest),
            }
            if let Some(count) = m.get("count") {
                if count.as_u64() != Some(fp.count() as u64) {
                    return Err(EchoError::Count {
                        got: quote(count),
                        want: fp.count(),
                    });
                }
            }
            if let Some(ids) = m.get("ids") {
                let want: Vec<Value> = fp
                    .ids()
                    .iter()
                    .map(|id| Value::String(id.to_string()))
                    .collect();
                if *ids != Value::Array(want) {
                    return Err(EchoError::Ids(quote(ids)));
                }
            }
            Ok(())
        }
        other => Err(EchoError::NotAnEcho(crate::schema::json_type(other))),
    }
}

fn is_blank_or_not_string(v: Option<&Value>) -> bool {
    !matches!(v, Some(Value::String(s)) if !s.trim().is_empty())
}

/// Step 6 for one decision.
fn check_decision(
    i: usize,
    item: &Value,
    candidate_text: &str,
    input: &JudgmentInput,
    named: &mut Vec<Id>,
) -> Result<Decision, Parsed> {
    let at = format!("decisions[{i}]");
    let partial = |why: String| void(FailureMode::Partial, format!("{at} {why}"));
    let Value::Object(d) = item else {
        return Err(partial(format!(
            "is {}, not an object",
            crate::schema::json_type(item)
        )));
    };

    let kind = match d.get("decision") {
        None | Some(Value::Null) => return Err(partial("has no `decision`".to_owned())),
        Some(Value::String(s)) => DecisionKind::from_exact(s),
        Some(_) => None,
    };
    let Some(kind) = kind else {
        return Err(void(
            FailureMode::EnumViolation,
            format!(
                "{at}.decision is not exactly one of the six: {}",
                quote(&d["decision"])
            ),
        ));
    };

    if let Some(own) = d.get("candidate_id") {
        if !matches!(own, Value::String(s) if s == candidate_text) {
            return Err(partial(format!("has candidate_id {}", quote(own))));
        }
    }

    let ids = match d.get("target_ids") {
        Some(Value::Array(ids)) => ids,
        _ => return Err(partial("has no `target_ids` array".to_owned())),
    };
    if kind.is_relation() && ids.is_empty() {
        return Err(partial(format!("has empty target_ids for \"{kind}\"")));
    }
    if !kind.is_relation() && !ids.is_empty() {
        return Err(partial(format!(
            "must have empty target_ids for \"{kind}\""
        )));
    }

    let targets = targets_of(ids, &at, candidate_text, input, named)?;

    let text_of = |key: &str| match d.get(key) {
        Some(Value::String(s)) => s.clone(),
        _ => String::new(),
    };
    if kind.is_relation() {
        if is_blank_or_not_string(d.get("surface")) {
            return Err(partial("has no non-blank `surface`".to_owned()));
        }
        if is_blank_or_not_string(d.get("rationale")) {
            return Err(partial("has no non-blank `rationale`".to_owned()));
        }
        let (surface, rationale) = (text_of("surface"), text_of("rationale"));
        if !rationale_names_surface(&rationale, &surface) {
            return Err(partial(format!(
                "has a rationale that does not name the surface {:?}",
                clip(&surface, QUOTE_CHARS)
            )));
        }
    } else {
        for key in ["surface", "rationale"] {
            if matches!(d.get(key), Some(v) if !v.is_string()) {
                return Err(partial(format!("has a `{key}` that is not a string")));
            }
        }
    }

    let confidence = d
        .get("confidence")
        .and_then(Value::as_f64)
        .and_then(Confidence::new);
    let Some(confidence) = confidence else {
        return Err(partial(format!(
            "has a confidence that is not a number in [0,1]: {}",
            d.get("confidence")
                .map_or_else(|| "nothing".to_owned(), quote)
        )));
    };

    Ok(Decision {
        decision: kind,
        target_ids: targets,
        surface: text_of("surface"),
        rationale: text_of("rationale"),
        confidence,
    })
}

/// The ids a decision targets: each a non-blank string, presented to the
/// judge, not the candidate, and named by no earlier target (`named`
/// collects them across the batch).
fn targets_of(
    ids: &[Value],
    at: &str,
    candidate_text: &str,
    input: &JudgmentInput,
    named: &mut Vec<Id>,
) -> Result<Vec<Id>, Parsed> {
    let fp = input.corpus_fingerprint();
    let mut targets = Vec::with_capacity(ids.len());
    for tid in ids {
        let text = match tid {
            Value::String(s) if !s.trim().is_empty() => s.as_str(),
            other => {
                return Err(void(
                    FailureMode::Partial,
                    format!(
                        "{at} has a target id that is not a non-blank string: {}",
                        quote(other)
                    ),
                ))
            }
        };
        if text == candidate_text {
            return Err(void(
                FailureMode::SelfReference,
                format!("{at}.target_ids names the candidate itself ({candidate_text})"),
            ));
        }
        let presented = fp
            .contains_text(text)
            .then(|| text.parse::<Id>().ok())
            .flatten();
        let Some(id) = presented else {
            return Err(void(
                FailureMode::PhantomId,
                format!(
                    "{at}.target_ids names an id that was never presented: {}",
                    clip(text, 40)
                ),
            ));
        };
        if named.contains(&id) {
            return Err(void(
                FailureMode::DuplicateTarget,
                format!("{at}.target_ids repeats {id}"),
            ));
        }
        named.push(id);
        targets.push(id);
    }
    Ok(targets)
}

/// A JSON value read with one rule more than serde_json's own: an object
/// may not repeat a key.
struct StrictValue(Value);

impl<'de> Deserialize<'de> for StrictValue {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<StrictValue, D::Error> {
        d.deserialize_any(StrictVisitor).map(StrictValue)
    }
}

struct StrictVisitor;

impl<'de> Visitor<'de> for StrictVisitor {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }

    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::from(v))
    }

    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::from(v))
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Value, E> {
        serde_json::Number::from_f64(v)
            .map(Value::Number)
            .ok_or_else(|| E::custom("a number that is not finite"))
    }

    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_owned()))
    }

    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }

    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut out = Vec::new();
        while let Some(StrictValue(v)) = seq.next_element()? {
            out.push(v);
        }
        Ok(Value::Array(out))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut out = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            if out.contains_key(&key) {
                return Err(de::Error::custom(format!(
                    "the key {:?} appears twice in one object",
                    clip(&key, 40)
                )));
            }
            let StrictValue(v) = map.next_value()?;
            out.insert(key, v);
        }
        Ok(Value::Object(out))
    }
}

/// Counters over every parsed batch: how many, how many voided and why, and
/// how many decisions of each kind. A void counts as one `abstain` (never as
/// a `skip`): an undecided case must stay distinguishable from a decided one.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Telemetry {
    pub batches: u64,
    pub voided: u64,
    pub failure_modes: FailureCounts,
    pub decisions: DecisionCounts,
}

/// One counter per failure mode.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FailureCounts {
    pub unparseable: u64,
    pub partial: u64,
    pub phantom_id: u64,
    pub self_reference: u64,
    pub empty: u64,
    pub timeout: u64,
    pub enum_violation: u64,
    pub duplicate_target: u64,
}

/// One counter per decision.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DecisionCounts {
    pub skip: u64,
    pub refine: u64,
    pub supersede: u64,
    pub merge: u64,
    pub contradict: u64,
    pub abstain: u64,
}

impl FailureCounts {
    fn slot(&mut self, mode: FailureMode) -> &mut u64 {
        match mode {
            FailureMode::Unparseable => &mut self.unparseable,
            FailureMode::Partial => &mut self.partial,
            FailureMode::PhantomId => &mut self.phantom_id,
            FailureMode::SelfReference => &mut self.self_reference,
            FailureMode::Empty => &mut self.empty,
            FailureMode::Timeout => &mut self.timeout,
            FailureMode::EnumViolation => &mut self.enum_violation,
            FailureMode::DuplicateTarget => &mut self.duplicate_target,
        }
    }
}

impl DecisionCounts {
    fn slot(&mut self, kind: DecisionKind) -> &mut u64 {
        match kind {
            DecisionKind::Skip => &mut self.skip,
            DecisionKind::Refine => &mut self.refine,
            DecisionKind::Supersede => &mut self.supersede,
            DecisionKind::Merge => &mut self.merge,
            DecisionKind::Contradict => &mut self.contradict,
            DecisionKind::Abstain => &mut self.abstain,
        }
    }
}

impl Telemetry {
    /// Counts one parsed batch.
    pub fn record(&mut self, parsed: &Parsed) {
        bump(&mut self.batches);
        match parsed {
            Parsed::Void(reason) => {
                bump(&mut self.voided);
                bump(self.failure_modes.slot(reason.mode));
                bump(self.decisions.slot(DecisionKind::Abstain));
            }
            Parsed::Valid(batch) => {
                for d in batch.decisions() {
                    bump(self.decisions.slot(d.kind()));
                }
            }
        }
    }
}

fn bump(n: &mut u64) {
    *n = n.saturating_add(1);
}

#[cfg(test)]
mod tests;
