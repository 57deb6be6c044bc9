//! The judgment input: what the relation judge is shown, and the prompt
//! rendered from it (`templates/relate.md`).
//!
//! The input is one JSON object with six keys:
//! - `candidate`: the lesson under judgment (its Lesson v2 record);
//! - `neighbours`: the presented neighbours (Lesson v2 records), live only,
//!   never the candidate, each id once, in presentation order;
//! - `corpus_fingerprint`: `{ids, count, digest}` of the presented ids;
//! - `surface_hint`: [`SURFACE_HINT`];
//! - `decisions_allowed`: the six decisions, in their fixed order;
//! - `output_contract`: [`OUTPUT_CONTRACT`].
//!
//! The surface hint and the output contract are defined once, here, next to
//! the parser that enforces them; the prompt template carries both verbatim
//! and a test fails if it drifts. A restated contract that drifts makes every
//! batch void while the feature looks wired.
//!
//! This module builds and renders; it does not choose neighbours, call a
//! model or parse verdicts.

use serde::Serialize;

use crate::model::{canonical_json, Id, Lesson};

use super::fingerprint::CorpusFingerprint;
use super::neighbours::{is_live, NeighbourPool, MAX_CAP};
use super::verdict::DecisionKind;

/// The prompt template of the relation judge.
pub const RELATE_TEMPLATE: &str = include_str!("../../../templates/relate.md");

/// How the judge must tell two lessons apart. Embedded verbatim in
/// `templates/relate.md`.
pub const SURFACE_HINT: &str = "\
Judge the SURFACE, not the subject line.

A lesson's surface is what it is about, resolved to IDENTIFIER level: the file
plus the specific key, function, flag, option or command the lesson names.
Take identifiers from `applies_to.file_patterns` AND from the identifiers
named in `claim`, `rationale` and `evidence.resolution`: most lessons name
them only in the text.

Stack and version scope do not discriminate here. Every neighbour you are
shown already shares a stack entry with the candidate and can hold for the
same versions; do not relate two lessons because they share a package, and
do not keep them apart for it.

Two lessons that name the SAME FILE but DIFFERENT identifiers are NOT in
conflict. A worked example that is NOT a contradiction:
  A: a rule-loader frontmatter key is inert  -> surface: rule-loader.mjs frontmatter key \"paths:\"
  B: a rule-loader frontmatter key is live   -> surface: rule-loader.mjs frontmatter key \"expires-at\"
Same file, different keys.

When the surface cannot be resolved to identifier level, answer \"abstain\":
never guess a relation from a file name alone.";

/// The answer's shape and the rules the parser enforces. Embedded verbatim
/// in `templates/relate.md`.
pub const OUTPUT_CONTRACT: &str = "\
Answer with JSON only, exactly this shape:

{\"candidate_id\": \"<the candidate id you were given>\",
 \"corpus_fingerprint\": {\"digest\": \"<the digest you were given>\"},
 \"decisions\": [
   {\"decision\": \"skip|refine|supersede|merge|contradict|abstain\",
    \"target_ids\": [\"<id from the presented neighbours>\"],
    \"surface\": \"<file + identifier this decision is about>\",
    \"rationale\": \"<one sentence that NAMES the surface>\",
    \"confidence\": 0.0}
 ]}

Rules the reader enforces (a violation voids the WHOLE batch: nothing is written):
  - The answer is one JSON object and nothing else: no code fence, no prose.
  - `candidate_id` is the candidate id you were given.
  - `corpus_fingerprint` may be left out; if present it must echo the
    fingerprint you were given (every field you echo must match).
  - `decision` must be one of the six members EXACTLY, lowercase. No other value.
  - `target_ids` must be empty for `skip` and `abstain`, and non-empty otherwise.
  - Every target id must be one of the ids presented to you. Never invent an id.
  - Never put the candidate id in `target_ids`.
  - Never name the same target id twice, in one decision or across the batch.
  - `surface` and `rationale` are required for refine/supersede/merge/contradict,
    and the rationale must name the surface.
  - `confidence` is a number in [0,1] on every decision.
  - Emit `abstain` when you cannot judge. Never guess, never emit a default.";

/// Why a judgment input could not be assembled.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum InputError {
    /// The neighbour pool was built for another lesson.
    #[error("the neighbour pool was built for lesson {pool}, not for lesson {candidate}")]
    OtherCandidate { candidate: Id, pool: Id },
    /// A presented neighbour is missing from the pool snapshot.
    #[error("neighbour {0} is not in the pool snapshot")]
    MissingNeighbour(Id),
}

/// What the judge is shown. Built only by [`JudgmentInput::new`] or
/// [`JudgmentInput::from_pool`], so the fingerprint always describes exactly
/// the neighbours presented.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct JudgmentInput {
    candidate: Lesson,
    neighbours: Vec<Lesson>,
    corpus_fingerprint: CorpusFingerprint,
    surface_hint: &'static str,
    decisions_allowed: [&'static str; 6],
    output_contract: &'static str,
}

impl JudgmentInput {
    /// Assembles the input from already ranked neighbours. Neighbours that
    /// are not live, that are the candidate, or that repeat an earlier id are
    /// left out; at most [`MAX_CAP`] are kept, in the order given (the
    /// caller's ranking is authoritative).
    pub fn new(candidate: Lesson, neighbours: impl IntoIterator<Item = Lesson>) -> JudgmentInput {
        let mut seen = std::collections::BTreeSet::from([candidate.id]);
        let neighbours: Vec<Lesson> = neighbours
            .into_iter()
            .filter(|n| is_live(n) && seen.insert(n.id))
            .take(MAX_CAP)
            .collect();
        let corpus_fingerprint = CorpusFingerprint::of(neighbours.iter().map(|n| n.id));
        JudgmentInput {
            candidate,
            neighbours,
            corpus_fingerprint,
            surface_hint: SURFACE_HINT,
            decisions_allowed: DecisionKind::ALL.map(DecisionKind::as_str),
            output_contract: OUTPUT_CONTRACT,
        }
    }

    /// Assembles the input for the neighbours `pool` chose, reading their
    /// records from the same pool snapshot.
    pub fn from_pool(
        candidate: &Lesson,
        snapshot: &[Lesson],
        pool: &NeighbourPool,
    ) -> Result<JudgmentInput, InputError> {
        if pool.candidate != candidate.id {
            return Err(InputError::OtherCandidate {
                candidate: candidate.id,
                pool: pool.candidate,
            });
        }
        let neighbours = pool
            .presented
            .iter()
            .map(|n| {
                snapshot
                    .iter()
                    .find(|l| l.id == n.id)
                    .cloned()
                    .ok_or(InputError::MissingNeighbour(n.id))
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(JudgmentInput::new(candidate.clone(), neighbours))
    }

    pub fn candidate(&self) -> &Lesson {
        &self.candidate
    }

    pub fn neighbours(&self) -> &[Lesson] {
        &self.neighbours
    }

    pub fn corpus_fingerprint(&self) -> &CorpusFingerprint {
        &self.corpus_fingerprint
    }

    /// The input as canonical JSON (what `relate --input` prints).
    pub fn to_json(&self) -> Vec<u8> {
        canonical_json(self)
    }
}

/// Renders the judge prompt from [`RELATE_TEMPLATE`].
///
/// Placeholders, each replaced in a single pass (text substituted in is
/// never scanned again, so a lesson containing `{{neighbours}}` stays
/// literal):
/// - `{{candidate_id}}`: the candidate's id;
/// - `{{candidate}}`: the candidate as canonical JSON;
/// - `{{neighbours}}`: the presented neighbours as a canonical JSON array;
/// - `{{corpus_fingerprint}}`: `{ids, count, digest}` as canonical JSON;
/// - `{{decisions_allowed}}`: the six decisions, comma-separated.
pub fn render_prompt(input: &JudgmentInput) -> String {
    let json = |bytes: Vec<u8>| String::from_utf8_lossy(&bytes).trim_end().to_owned();
    let values: [(&str, String); 5] = [
        ("candidate_id", input.candidate.id.to_string()),
        ("candidate", json(canonical_json(&input.candidate))),
        ("neighbours", json(canonical_json(&input.neighbours))),
        (
            "corpus_fingerprint",
            json(canonical_json(&input.corpus_fingerprint)),
        ),
        ("decisions_allowed", input.decisions_allowed.join(", ")),
    ];
    crate::template::fill_from(RELATE_TEMPLATE, &values)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::LessonStatus;
    use crate::review::relation::testutil::{lesson, LessonSpec};

    #[test]
    fn template_carries_the_constants_verbatim() {
        assert!(
            RELATE_TEMPLATE.contains(SURFACE_HINT),
            "surface hint drifted"
        );
        assert!(
            RELATE_TEMPLATE.contains(OUTPUT_CONTRACT),
            "output contract drifted"
        );
        for name in [
            "candidate_id",
            "candidate",
            "neighbours",
            "corpus_fingerprint",
            "decisions_allowed",
        ] {
            assert!(
                RELATE_TEMPLATE.contains(&format!("{{{{{name}}}}}")),
                "{name}"
            );
        }
    }

    #[test]
    fn contract_names_every_decision() {
        for d in DecisionKind::ALL {
            assert!(OUTPUT_CONTRACT.contains(d.as_str()), "{d:?}");
        }
    }

    #[test]
    fn input_has_the_six_keys_and_filters_like_the_contract() {
        let cand = lesson(&LessonSpec {
            n: 1,
            ..LessonSpec::default()
        });
        let a = lesson(&LessonSpec {
            n: 2,
            ..LessonSpec::default()
        });
        let gone = lesson(&LessonSpec {
            n: 3,
            status: LessonStatus::Superseded,
            ..LessonSpec::default()
        });
        let input = JudgmentInput::new(cand.clone(), [a.clone(), cand.clone(), gone, a.clone()]);
        assert_eq!(input.neighbours(), std::slice::from_ref(&a));
        assert_eq!(input.corpus_fingerprint().ids(), &[a.id]);
        let v: serde_json::Value = serde_json::from_slice(&input.to_json()).unwrap();
        let keys: Vec<&String> = v.as_object().unwrap().keys().collect();
        assert_eq!(
            keys,
            [
                "candidate",
                "corpus_fingerprint",
                "decisions_allowed",
                "neighbours",
                "output_contract",
                "surface_hint"
            ]
        );
        assert_eq!(
            v["decisions_allowed"],
            serde_json::json!([
                "skip",
                "refine",
                "supersede",
                "merge",
                "contradict",
                "abstain"
            ])
        );
        assert_eq!(v["corpus_fingerprint"]["count"], 1);
        assert_eq!(v["surface_hint"], SURFACE_HINT);
        assert_eq!(v["output_contract"], OUTPUT_CONTRACT);
        assert_eq!(v["candidate"]["id"], cand.id.to_string());
    }

    #[test]
    fn prompt_fills_every_placeholder_once() {
        let mut cand = lesson(&LessonSpec {
            n: 1,
            ..LessonSpec::default()
        });
        cand.claim = "a claim mentioning {{neighbours}} literally".into();
        let a = lesson(&LessonSpec {
            n: 2,
            ..LessonSpec::default()
        });
        let input = JudgmentInput::new(cand.clone(), [a.clone()]);
        let p = render_prompt(&input);
        assert!(p.contains("a claim mentioning {{neighbours}} literally"));
        assert!(!p.contains("{{candidate_id}}") && !p.contains("{{corpus_fingerprint}}"));
        assert!(p.contains(&format!("The candidate is {}.", cand.id)));
        assert!(p.contains(input.corpus_fingerprint().digest()));
        assert!(p.contains(&a.id.to_string()));
        assert!(p.contains(SURFACE_HINT) && p.contains(OUTPUT_CONTRACT));
    }

    #[test]
    fn from_pool_checks_the_candidate_and_the_snapshot() {
        let cand = lesson(&LessonSpec {
            n: 1,
            ..LessonSpec::default()
        });
        let a = lesson(&LessonSpec {
            n: 2,
            ..LessonSpec::default()
        });
        let pool = crate::review::relation::neighbours::neighbour_pool(
            &cand,
            &[cand.clone(), a.clone()],
            &Default::default(),
        )
        .unwrap();
        let input = JudgmentInput::from_pool(&cand, &[cand.clone(), a.clone()], &pool).unwrap();
        assert_eq!(input.neighbours(), std::slice::from_ref(&a));
        assert_eq!(
            JudgmentInput::from_pool(&cand, std::slice::from_ref(&cand), &pool),
            Err(InputError::MissingNeighbour(a.id))
        );
        assert!(matches!(
            JudgmentInput::from_pool(&a, std::slice::from_ref(&a), &pool),
            Err(InputError::OtherCandidate { .. })
        ));
    }
}
