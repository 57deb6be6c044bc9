//! Review: everything that happens to a proposal after ingest, as pure logic
//! over the typed records of [`crate::model`].
//!
//! - [`confirm`](mod@confirm): the human verbs `confirm`, `pass` and `unconfirm` (reference
//!   §3.2) as transitions that return the new proposal, a no-op, or a refusal.
//! - [`edit`](mod@edit): a person corrects a lesson's words and scope until
//!   the jury has judged it (`git lore edit`), and the text they edit.
//! - [`rubric`]: the two builtin rubrics and the rubrics file that overrides
//!   them.
//! - [`jury`]: the usable-panel check, the coverage check, the weighted
//!   per-criterion aggregate and the gate.
//! - [`offline_judges`]: the deterministic built-in judges
//!   ([docs/offline.md](../../docs/offline.md)).
//! - [`promote`]: an approved proposal becomes a Lesson v2 pool entry
//!   (its 13 keys and nothing else).
//! - [`author_key`](mod@author_key): the per-visibility author key derived from the user's
//!   secret, so entries of one author can be told apart without naming them.
//! - [`prompt`]: the prompts for command-backend judges, from
//!   `templates/judge-*.md`.
//! - [`relation`]: relation judgment between a promoted lesson and the live
//!   lessons of its pool (neighbours, the strict verdict parser, effects).
//!
//! The legal status transitions and who may sign a pool are the actions'
//! rules, in [`crate::event`] (`event::lifecycle`, `event::signers`).
//!
//! Nothing here reads the clock, the environment or randomness, touches git,
//! or prints: callers pass `now` and persist the records these functions
//! return. Every refusal is a [`ReviewError`]; "could not judge" is not an
//! error but [`jury::JuryOutcome::Unjudged`], because it is a distinct,
//! retryable outcome (exit code 2), not a usage or state error (exit code 1).

pub mod author_key;
pub mod confirm;
pub mod edit;
pub mod jury;
pub mod offline_judges;
pub mod promote;
pub mod prompt;
pub mod pull_request;
pub mod relation;
pub mod rubric;

pub use author_key::{author_key, parse_secret, secret_from_random};
pub use confirm::{confirm, pass, unconfirm, NoOp, Transition};
pub use edit::{edit, Edit, EditError};
pub use jury::{
    consensus, judge, judge_proposal, panel_slot, parse_panel, Judged, JuryOutcome, UnjudgedReason,
};
pub use offline_judges::{offline_panel, offline_rejudge_panel, offline_verdict};
pub use promote::{build_lesson, mark_promoted};
pub use prompt::{judge_prompt, rejudge_prompt};
pub use rubric::{Criterion, GatePolicy, Rubric, RubricSet};

use crate::model::{Id, ProposalStatus};

/// [`reason_words`], or the code itself when this version has no words
/// for it.
pub fn reason_text(reason: &str) -> &str {
    reason_words(reason).unwrap_or(reason)
}

/// A verdict's or a decline's reason (`Lore-Reason`: `gate_passed`,
/// `no_resolution`) as a person reads it in a commit title or on a
/// terminal: `the jury passed it`, `no fix in it`. A reason this version
/// does not know (one a newer git-lore wrote) is `None`; show the code
/// then.
pub fn reason_words(reason: &str) -> Option<&'static str> {
    Some(match reason {
        "transform_invalid" => "the model's answer was unusable",
        "no_resolution" => "no fix in it",
        "no_versions" => "no package version to scope it by",
        "schema_invalid" => "not a valid lesson",
        "gate_passed" => "the jury passed it",
        "jury_not_majority" => "most judges did not pass it",
        "jury_not_unanimous" => "not every judge passed it",
        "unknown_gate_policy" => "its rubric names a jury rule this version does not know",
        "below_threshold" => "its score is below the rubric's threshold",
        "criterion_floor" => "a criterion scored below the rubric's floor for it",
        "private_no_jury" => "a private lesson needs no jury",
        "disclosure_scan" => "the disclosure scanner found what must not be shared",
        _ => return None,
    })
}

/// Why a review step refused. Messages have a lower-case first letter and
/// no final period, and name the lesson and its status wherever one is
/// involved (`lesson 01K… is not confirmed; its status is: pending`).
#[derive(Debug, thiserror::Error, Clone, PartialEq, Eq)]
pub enum ReviewError {
    /// `--justification` was given but is empty after trimming whitespace.
    #[error("justification is blank after trimming whitespace; omit --justification instead of passing an empty value")]
    BlankJustification,

    /// A justification at private visibility, or a confirm whose resulting
    /// candidate is version_independent at private visibility.
    #[error("version_independent requires org or public visibility: a private lesson runs no jury, so its justification would go unchecked and the lesson would never expire")]
    VersionIndependentAtPrivate,

    /// A repeated confirm that asks for something other than what is recorded.
    #[error("lesson {id} is already confirmed; visibility or scope differs from the request")]
    AlreadyConfirmedDiffers { id: Id },

    /// Confirm of a lesson the human passed on.
    #[error("lesson {id} was passed on; it cannot be confirmed")]
    PassedCannotConfirm { id: Id },

    /// Pass of a lesson already confirmed for the jury.
    #[error("lesson {id} is confirmed for the jury; it cannot be passed on now")]
    ConfirmedCannotPass { id: Id },

    /// Unconfirm of a lesson the human passed on.
    #[error("lesson {id} was passed on, not confirmed; unconfirm does not undo that")]
    PassedCannotUnconfirm { id: Id },

    /// A verb applied to a lesson in a status it cannot start from
    /// (`action` is the past participle: "confirmed", "passed on",
    /// "unconfirmed", "promoted").
    #[error("lesson {id} cannot be {action} from status: {status}")]
    WrongStatus {
        id: Id,
        action: &'static str,
        status: ProposalStatus,
    },

    /// Judge of a lesson that is not `confirmed`.
    #[error("lesson {id} is not confirmed; its status is: {status}")]
    NotConfirmed { id: Id, status: ProposalStatus },

    /// A confirmed lesson without a visibility cannot pick a rubric.
    #[error("lesson {id} is confirmed but has no visibility; it cannot be judged")]
    NoVisibility { id: Id },

    /// The visibility's rubric is missing from the rubric set.
    #[error("rubric {0} is not defined")]
    RubricNotDefined(String),

    /// Promote of a lesson the jury has not decided yet.
    #[error("lesson {id} has not been judged yet; nothing to promote")]
    NotJudged { id: Id },

    /// Promote of a record missing what the pool entry is built from.
    #[error("lesson {id} is malformed; cannot promote (bad or missing: {fields})")]
    Malformed { id: Id, fields: String },

    /// A rubrics file that cannot be used; the string says where and why.
    #[error("invalid rubrics: {0}")]
    InvalidRubrics(String),

    /// A rubrics file that is not JSON of the rubrics file's shape.
    #[error("invalid rubrics: not a rubrics file: {0}")]
    NotRubrics(#[source] crate::cause::Shared<serde_json::Error>),

    /// The offline backend has judges for `standard` and `adversarial` only.
    #[error(
        "no offline judge for judge type {0:?} (the offline judges are: standard, adversarial)"
    )]
    NoOfflineJudge(String),

    /// The author secret file is unusable. The secret itself is never quoted.
    #[error("author secret is unusable: {0}; it must be exactly 64 lowercase hex characters on its first line")]
    BadAuthorSecret(String),

    /// An author key that is not 32 lowercase hex characters.
    #[error("author key must be 32 lowercase hex characters")]
    BadAuthorKey,

    /// An edit refused (`git lore edit`).
    #[error(transparent)]
    Edit(#[from] EditError),
}

/// Rounds to 6 decimal places.
///
/// Judges give scores with a few decimals; sums and means of such decimal
/// fractions in binary floating point land an ulp or so either side of the
/// exact decimal (0.45·0.75 + … can come out as 0.7499999999999999). Without
/// rounding, a lesson could flip from approved to rejected on that ulp, and
/// the stored `aggregate_score` would read as noise. Six decimals is far finer
/// than any judge's precision and far coarser than the accumulated error, and
/// `k / 1e6` of an integer `k` is the double nearest the decimal, so the value
/// prints and compares exactly as written.
pub(crate) fn round6(x: f64) -> f64 {
    (x * 1e6).round() / 1e6
}

/// The reference fixtures in `testdata/`, compiled into the test binary.
#[cfg(test)]
pub(crate) mod testdata {
    use crate::model::{Artifact, Proposal};

    /// The text of one fixture file.
    pub(crate) fn text(name: &str) -> &'static str {
        match name {
            "proposal.pending.json" => include_str!("testdata/proposal.pending.json"),
            "proposal.confirmed.json" => include_str!("testdata/proposal.confirmed.json"),
            "proposal.confirmed-version-independent.json" => {
                include_str!("testdata/proposal.confirmed-version-independent.json")
            }
            "proposal.approved-private.json" => {
                include_str!("testdata/proposal.approved-private.json")
            }
            "proposal.approved-promoted.json" => {
                include_str!("testdata/proposal.approved-promoted.json")
            }
            "proposal.rejected.json" => include_str!("testdata/proposal.rejected.json"),
            "judge-verdicts.pass.json" => include_str!("testdata/judge-verdicts.pass.json"),
            "judge-verdicts.split.json" => include_str!("testdata/judge-verdicts.split.json"),
            "pool-entry.approved-org.json" => include_str!("testdata/pool-entry.approved-org.json"),
            "pool-entry.approved-private.NOT-ingest-valid.json" => {
                include_str!("testdata/pool-entry.approved-private.NOT-ingest-valid.json")
            }
            "archivist-artifact.positive-synthetic.json" => {
                include_str!("testdata/archivist-artifact.positive-synthetic.json")
            }
            "archivist-artifact.real-vitest-no-resolution.json" => {
                include_str!("testdata/archivist-artifact.real-vitest-no-resolution.json")
            }
            "librarian-config.json" => include_str!("testdata/librarian-config.json"),
            other => panic!("no fixture {other}"),
        }
    }

    pub(crate) fn proposal(name: &str) -> Proposal {
        serde_json::from_str(text(name)).unwrap_or_else(|e| panic!("{name}: {e}"))
    }

    pub(crate) fn artifact(name: &str) -> Artifact {
        serde_json::from_str(text(name)).unwrap_or_else(|e| panic!("{name}: {e}"))
    }

    pub(crate) fn json(name: &str) -> serde_json::Value {
        serde_json::from_str(text(name)).unwrap_or_else(|e| panic!("{name}: {e}"))
    }
}

#[cfg(test)]
mod reason_tests {
    /// Every decline and judge reason the trailer vocabulary lists has
    /// words for people.
    #[test]
    fn every_documented_reason_has_words() {
        let doc = include_str!("../../docs/trailers.md");
        let start = doc.find("- decline: `").expect("the reasons are listed");
        let end = start + doc[start..].find("- pass:").expect("pass follows judge");
        let codes: Vec<&str> = doc[start..end].split('`').skip(1).step_by(2).collect();
        assert!(codes.len() >= 12, "{codes:?}");
        for code in codes {
            assert!(super::reason_words(code).is_some(), "{code} has no words");
        }
        assert_eq!(super::reason_words("a_newer_reason"), None);
    }
}
