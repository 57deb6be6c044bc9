//! The offline relation judge: deterministic, no network, no model.
//!
//! It decides exactly one thing: presented neighbours that are exact
//! duplicates of the candidate (same normalised claim, same scope) are
//! merged into it, because a second independent observation of the same
//! lesson corroborates it. Everything else needs judgment it does not have,
//! so when no duplicate is presented it abstains (and the candidate stays
//! queued for a real judge).
//!
//! Its answer is JSON in the output contract's shape and goes through the
//! same parser as any model's: the offline judge has no private path to an
//! effect. The duplicate's surface is its normalised claim (cut to
//! [`MAX_CLAIM_SURFACE_CHARS`] characters), and the rationale names it.
//!
//! This module answers; it does not parse, plan or write.

use serde_json::{json, Value};

use super::input::JudgmentInput;
use super::neighbours::{is_exact_duplicate, normalise_claim};

/// The model name the offline judge records (`Lore-Model: offline`).
pub const OFFLINE_MODEL: &str = "offline";

/// The longest claim used as a duplicate's surface, in characters.
pub const MAX_CLAIM_SURFACE_CHARS: usize = 120;

/// The offline judge's answer for `input`.
pub fn offline_verdict(input: &JudgmentInput) -> Value {
    let candidate = input.candidate();
    let duplicates: Vec<String> = input
        .neighbours()
        .iter()
        .filter(|n| is_exact_duplicate(candidate, n))
        .map(|n| n.id.to_string())
        .collect();
    let decision = if duplicates.is_empty() {
        json!({
            "decision": "abstain",
            "target_ids": [],
            "surface": "",
            "rationale": "the offline judge decides exact duplicates only, and none was presented",
            "confidence": 0.0
        })
    } else {
        let claim: String = normalise_claim(&candidate.claim)
            .chars()
            .take(MAX_CLAIM_SURFACE_CHARS)
            .collect();
        let surface = format!("claim \"{claim}\"");
        json!({
            "decision": "merge",
            "target_ids": duplicates,
            "surface": surface,
            "rationale": format!(
                "exact duplicate: the same normalised {surface} under the same version scope corroborates the lesson"
            ),
            "confidence": 1.0
        })
    };
    json!({
        "candidate_id": candidate.id.to_string(),
        "corpus_fingerprint": {"digest": input.corpus_fingerprint().digest()},
        "decisions": [decision]
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::LessonStatus;
    use crate::review::relation::testutil::{lesson, LessonSpec};
    use crate::review::relation::verdict::{parse_verdict, DecisionKind, Parsed, RawVerdict};

    fn parsed(input: &JudgmentInput) -> Parsed {
        parse_verdict(RawVerdict::Json(&offline_verdict(input)), input)
    }

    #[test]
    fn merges_exact_duplicates_and_nothing_else() {
        let cand = lesson(&LessonSpec {
            n: 1,
            ..LessonSpec::default()
        });
        let dup = lesson(&LessonSpec {
            n: 2,
            claim: "  vitest 4 cannot import VITE/module-runner on vite 5. ",
            rationale: "worded differently",
            versions: &[("vitest", ">=4.0.0"), ("Vite", "<6.0")],
            ..LessonSpec::default()
        });
        let other_scope = lesson(&LessonSpec {
            n: 3,
            versions: &[("vite", "<5"), ("vitest", ">=4")],
            ..LessonSpec::default()
        });
        let other_claim = lesson(&LessonSpec {
            n: 4,
            claim: "Vitest 4 cannot import vite/module-runner on Vite 4",
            ..LessonSpec::default()
        });
        let input = JudgmentInput::new(
            cand.clone(),
            [other_scope.clone(), dup.clone(), other_claim.clone()],
        );
        let Parsed::Valid(batch) = parsed(&input) else {
            panic!("the offline answer must parse: {:?}", parsed(&input));
        };
        assert_eq!(batch.decisions().len(), 1);
        let d = &batch.decisions()[0];
        assert_eq!(d.kind(), DecisionKind::Merge);
        assert_eq!(d.targets(), &[dup.id]);
        assert_eq!(
            d.surface(),
            "claim \"vitest 4 cannot import vite/module-runner on vite 5\""
        );
    }

    #[test]
    fn abstains_without_a_duplicate() {
        let cand = lesson(&LessonSpec {
            n: 1,
            ..LessonSpec::default()
        });
        let near = lesson(&LessonSpec {
            n: 2,
            claim: "Vitest 4 cannot import vite/module-runner on Vite 5 with SSR",
            ..LessonSpec::default()
        });
        for neighbours in [vec![], vec![near]] {
            let input = JudgmentInput::new(cand.clone(), neighbours);
            let p = parsed(&input);
            let Parsed::Valid(batch) = &p else {
                panic!("{p:?}");
            };
            assert!(batch.is_all_abstain());
            assert!(p.leaves_candidate_queued());
        }
    }

    #[test]
    fn a_superseded_duplicate_is_not_presented_so_not_merged() {
        let cand = lesson(&LessonSpec {
            n: 1,
            ..LessonSpec::default()
        });
        let gone = lesson(&LessonSpec {
            n: 2,
            status: LessonStatus::Superseded,
            ..LessonSpec::default()
        });
        let input = JudgmentInput::new(cand, [gone]);
        let Parsed::Valid(batch) = parsed(&input) else {
            panic!()
        };
        assert!(batch.is_all_abstain());
    }
}
