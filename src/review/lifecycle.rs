//! The one table of legal status transitions, for proposals on the ledger
//! and for lessons in a pool.
//!
//! The lifecycle verbs ([`super::confirm`], [`super::judge_proposal`],
//! [`super::mark_promoted`]) ask [`may_start`] before they change a record,
//! and `git lore verify` asks [`legal`] of every commit in history, so a
//! transition is allowed in exactly one place.

use crate::model::{LessonStatus, ProposalStatus};
use crate::trailers::Action;

use ProposalStatus::*;

/// Every legal proposal transition: (action, from, to).
pub const PROPOSAL_TRANSITIONS: &[(Action, ProposalStatus, ProposalStatus)] = &[
    (Action::Confirm, Pending, Confirmed),
    (Action::Unconfirm, Confirmed, Pending),
    (Action::Pass, Pending, Passed),
    (Action::Judge, Confirmed, Approved),
    (Action::Judge, Confirmed, Rejected),
    // Promote stamps the record; its status stays what the jury decided.
    (Action::Promote, Approved, Approved),
    (Action::Promote, Rejected, Rejected),
];

/// Every legal pool-entry transition: (action, from, to). An entry is never
/// deleted and never comes back to `active`.
pub const LESSON_TRANSITIONS: &[(Action, LessonStatus, LessonStatus)] = &[
    (
        Action::Supersede,
        LessonStatus::Active,
        LessonStatus::Superseded,
    ),
    (
        Action::Merge,
        LessonStatus::Active,
        LessonStatus::Superseded,
    ),
    (Action::Judge, LessonStatus::Active, LessonStatus::Refuted),
    (
        Action::Retract,
        LessonStatus::Active,
        LessonStatus::Retracted,
    ),
    (
        Action::Retract,
        LessonStatus::Superseded,
        LessonStatus::Retracted,
    ),
    (
        Action::Retract,
        LessonStatus::Refuted,
        LessonStatus::Retracted,
    ),
];

/// Whether `action` may move a proposal from `from` to `to`.
pub fn legal(action: Action, from: ProposalStatus, to: ProposalStatus) -> bool {
    PROPOSAL_TRANSITIONS.contains(&(action, from, to))
}

/// Whether `action` may start from a proposal in `from`.
pub fn may_start(action: Action, from: ProposalStatus) -> bool {
    PROPOSAL_TRANSITIONS
        .iter()
        .any(|&(a, f, _)| a == action && f == from)
}

/// Whether `action` may move a pool entry from `from` to `to`.
pub fn legal_lesson(action: Action, from: LessonStatus, to: LessonStatus) -> bool {
    LESSON_TRANSITIONS.contains(&(action, from, to))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_is_the_lifecycle() {
        // Every pair of statuses, every action: exactly the listed moves.
        let mut legal_moves = Vec::new();
        for &a in Action::ALL {
            for &f in ProposalStatus::ALL {
                for &t in ProposalStatus::ALL {
                    if legal(a, f, t) {
                        legal_moves.push(format!("{a} {f}->{t}"));
                    }
                }
            }
        }
        assert_eq!(
            legal_moves,
            [
                "confirm pending->confirmed",
                "unconfirm confirmed->pending",
                "pass pending->passed",
                "judge confirmed->approved",
                "judge confirmed->rejected",
                "promote approved->approved",
                "promote rejected->rejected",
            ]
        );
        assert!(may_start(Action::Judge, Confirmed));
        assert!(!may_start(Action::Judge, Pending));
        assert!(!may_start(Action::Confirm, Passed));
        assert!(!legal_lesson(
            Action::Supersede,
            LessonStatus::Superseded,
            LessonStatus::Active
        ));
    }
}
