//! The legal status transitions, for proposals on the ledger and for
//! lessons in a pool: the moves each action's unit declares, asked in one
//! place.
//!
//! The lifecycle verbs ([`crate::review::confirm`],
//! [`crate::review::judge_proposal`], [`crate::review::mark_promoted`]) ask
//! [`may_start`] before they change a record, the relation planner and
//! `retract` ask [`legal_lesson`], and `git lore verify` asks [`legal`] and
//! [`legal_lesson`] of every commit in history, so a transition is allowed
//! in exactly one place: the rows of its action's unit
//! (`ledger.rs`: proposals; `pool.rs` and `relation.rs`: pool entries).

use crate::model::{LessonStatus, ProposalStatus};
use crate::trailers::Action;

/// Every legal proposal transition: (action, from, to).
pub const PROPOSAL_TRANSITIONS: &[(Action, ProposalStatus, ProposalStatus)] = super::ledger::MOVES;

/// The legal pool-entry transitions of every action: (action, from, to).
/// An entry is never deleted and never comes back to `active`.
pub fn lesson_transitions() -> impl Iterator<Item = &'static (Action, LessonStatus, LessonStatus)> {
    super::pool::MOVES.iter().chain(super::relation::MOVES)
}

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
    lesson_transitions().any(|m| *m == (action, from, to))
}

#[cfg(test)]
mod tests {
    use super::*;
    use ProposalStatus::*;

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
                "edit pending->pending",
                "edit confirmed->confirmed",
            ]
        );
        assert!(may_start(Action::Judge, Confirmed));
        assert!(!may_start(Action::Judge, Pending));
        assert!(!may_start(Action::Confirm, Passed));
        assert!(may_start(Action::Edit, Pending) && may_start(Action::Edit, Confirmed));
        for judged in [Passed, Approved, Rejected] {
            assert!(!may_start(Action::Edit, judged), "{judged}");
        }
        assert!(!legal_lesson(
            Action::Supersede,
            LessonStatus::Superseded,
            LessonStatus::Active
        ));
        let mut entry_moves = Vec::new();
        for &a in Action::ALL {
            for &f in LessonStatus::ALL {
                for &t in LessonStatus::ALL {
                    if legal_lesson(a, f, t) {
                        entry_moves.push(format!("{a} {f}->{t}"));
                    }
                }
            }
        }
        entry_moves.sort();
        assert_eq!(
            entry_moves,
            [
                "judge active->refuted",
                "merge active->superseded",
                "retract active->retracted",
                "retract refuted->retracted",
                "retract superseded->retracted",
                "supersede active->superseded",
            ]
        );
    }
}
