//! The human verbs: `confirm`, `pass` and
//! `unconfirm`, as pure transitions over a [`Proposal`].
//!
//! Each returns [`Transition::Changed`] with the proposal to write,
//! [`Transition::Unchanged`] when the request is already satisfied (nothing
//! to write, exit 0), or a [`ReviewError`] refusal (nothing to write, exit 1).
//! None of them ever calls a model.
//!
//! | verb | from | result | refused / no-op |
//! |---|---|---|---|
//! | confirm | pending | confirmed, `visibility`, `confirmed_at`; with a justification the scope is *assigned* `{kind: version_independent, justification}` and the old candidate kept in `candidate_before_confirm` | identical repeat → no-op; different repeat → refused; passed → refused; approved/rejected → refused naming the status |
//! | pass | pending | passed, `passed_at`, `pass_reason` | passed → no-op; confirmed → refused; approved/rejected → refused naming the status |
//! | unconfirm | confirmed | pending, the pre-confirm candidate restored, `visibility`, `confirmed_at`, `candidate_before_confirm` removed — byte-identical to the pending record | pending → no-op; passed → refused; approved/rejected → refused naming the status |
//!
//! Rules of `confirm`, in order:
//! 1. A justification that is blank after trimming is refused.
//! 2. A justification at private visibility is refused.
//! 3. The resulting candidate is the current candidate with its scope
//!    replaced when a justification was given. If it is version_independent
//!    at private visibility it is refused (the check is on the *resulting*
//!    candidate, not only on this call's input).
//! 4. Status: pending proceeds. Confirmed is a no-op when the recorded
//!    visibility and candidate equal the request's, else refused. Passed,
//!    approved and rejected are refused.
//!
//! The caller must validate the resulting candidate against the human-side
//! validator (`pipeline::validate::validate_confirmed`) before writing it,
//! and refuse with "candidate does not validate; not confirmed" if it fails.
//! This module does not depend on the schema code.

use std::fmt;

use super::ReviewError;
use crate::event::lifecycle::may_start;
use crate::model::{iso, Candidate, Id, Proposal, ProposalStatus, Scope, Visibility};
use crate::trailers::Action;

/// What a verb did.
#[derive(Debug, Clone, PartialEq)]
pub enum Transition {
    /// The proposal changed; this is the record to write.
    Changed(Box<Proposal>),
    /// The request is already satisfied; nothing to write.
    Unchanged(NoOp),
}

/// Why a verb changed nothing. `Display` gives the line a CLI may print.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NoOp {
    /// An identical repeat of a confirm.
    AlreadyConfirmed { id: Id, visibility: Visibility },
    /// A pass of a lesson already passed on.
    AlreadyPassed { id: Id },
    /// An unconfirm of a lesson that is pending.
    AlreadyPending { id: Id },
    /// A promote of a lesson already stamped `promoted_at`.
    AlreadyPromoted { id: Id },
    /// An edit that asks for what the lesson already says.
    Unedited { id: Id },
}

impl fmt::Display for NoOp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NoOp::AlreadyConfirmed { id, visibility } => {
                write!(f, "lesson {id} is already confirmed at {visibility} visibility; nothing to change")
            }
            NoOp::AlreadyPassed { id } => {
                write!(f, "lesson {id} was already passed on; nothing to change")
            }
            NoOp::AlreadyPending { id } => {
                write!(f, "lesson {id} was already pending; nothing to take back")
            }
            NoOp::AlreadyPromoted { id } => {
                write!(f, "lesson {id} was already promoted; nothing to do")
            }
            NoOp::Unedited { id } => {
                write!(f, "lesson {id} already says that; nothing was written")
            }
        }
    }
}

/// Confirms a pending proposal for the jury at `visibility`.
///
/// `justification`, when given, rewrites the scope to version_independent.
/// See the module documentation for the rules and their order. The caller
/// validates the resulting candidate (`validate_confirmed`) before writing.
pub fn confirm(
    p: &Proposal,
    visibility: Visibility,
    justification: Option<&str>,
    now: jiff::Timestamp,
) -> Result<Transition, ReviewError> {
    if let Some(j) = justification {
        if j.trim().is_empty() {
            return Err(ReviewError::BlankJustification);
        }
        if visibility == Visibility::Private {
            return Err(ReviewError::VersionIndependentAtPrivate);
        }
    }

    let mut resulting = p.candidate.clone();
    if let Some(j) = justification {
        // Assigned, never merged: no stale `versions` key can survive.
        resulting.applies_to.scope = Scope::VersionIndependent {
            justification: j.to_owned(),
        };
    }
    if visibility == Visibility::Private && is_version_independent(&resulting) {
        return Err(ReviewError::VersionIndependentAtPrivate);
    }

    match p.status {
        s if may_start(Action::Confirm, s) => {}
        ProposalStatus::Confirmed => {
            return if p.visibility == Some(visibility) && p.candidate == resulting {
                Ok(Transition::Unchanged(NoOp::AlreadyConfirmed {
                    id: p.id,
                    visibility,
                }))
            } else {
                Err(ReviewError::AlreadyConfirmedDiffers { id: p.id })
            };
        }
        ProposalStatus::Passed => return Err(ReviewError::PassedCannotConfirm { id: p.id }),
        status => {
            return Err(ReviewError::WrongStatus {
                id: p.id,
                action: "confirmed",
                status,
            });
        }
    }

    let rewritten = resulting != p.candidate;
    let mut next = p.clone();
    next.candidate_before_confirm = rewritten.then(|| p.candidate.clone());
    next.candidate = resulting;
    next.status = ProposalStatus::Confirmed;
    next.visibility = Some(visibility);
    next.confirmed_at = Some(iso(now));
    Ok(Transition::Changed(Box::new(next)))
}

/// Passes on a pending proposal: the human's "don't share". Terminal.
///
/// A reason that is empty or whitespace-only is recorded as absent (a
/// writes `null` for an empty reason); any other reason is kept as given.
pub fn pass(
    p: &Proposal,
    reason: Option<&str>,
    now: jiff::Timestamp,
) -> Result<Transition, ReviewError> {
    match p.status {
        s if may_start(Action::Pass, s) => {}
        ProposalStatus::Passed => {
            return Ok(Transition::Unchanged(NoOp::AlreadyPassed { id: p.id }))
        }
        ProposalStatus::Confirmed => return Err(ReviewError::ConfirmedCannotPass { id: p.id }),
        status => {
            return Err(ReviewError::WrongStatus {
                id: p.id,
                action: "passed on",
                status,
            });
        }
    }
    let mut next = p.clone();
    next.status = ProposalStatus::Passed;
    next.passed_at = Some(iso(now));
    next.pass_reason = reason.filter(|r| !r.trim().is_empty()).map(str::to_owned);
    Ok(Transition::Changed(Box::new(next)))
}

/// Takes a confirmation back: confirmed → pending, restoring the candidate
/// as it was before the confirm and removing `visibility`, `confirmed_at`
/// and `candidate_before_confirm`, so that the record serialises to exactly
/// the bytes it had while pending.
pub fn unconfirm(p: &Proposal) -> Result<Transition, ReviewError> {
    match p.status {
        s if may_start(Action::Unconfirm, s) => {}
        ProposalStatus::Pending => {
            return Ok(Transition::Unchanged(NoOp::AlreadyPending { id: p.id }))
        }
        ProposalStatus::Passed => return Err(ReviewError::PassedCannotUnconfirm { id: p.id }),
        status => {
            return Err(ReviewError::WrongStatus {
                id: p.id,
                action: "unconfirmed",
                status,
            });
        }
    }
    let mut next = p.clone();
    if let Some(before) = next.candidate_before_confirm.take() {
        next.candidate = before;
    }
    next.status = ProposalStatus::Pending;
    next.visibility = None;
    next.confirmed_at = None;
    Ok(Transition::Changed(Box::new(next)))
}

fn is_version_independent(c: &Candidate) -> bool {
    matches!(c.applies_to.scope, Scope::VersionIndependent { .. })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::canonical_json;
    use crate::review::testdata::proposal as fixture;

    fn now() -> jiff::Timestamp {
        "2026-08-04T09:00:00Z".parse().unwrap()
    }

    fn changed(t: Transition) -> Proposal {
        match t {
            Transition::Changed(p) => *p,
            Transition::Unchanged(n) => panic!("expected a change, got no-op: {n}"),
        }
    }

    fn with_status(mut p: Proposal, s: ProposalStatus) -> Proposal {
        p.status = s;
        p
    }

    #[test]
    fn confirm_pending_matches_the_reference_record() {
        let p = fixture("proposal.pending.json");
        let got = changed(confirm(&p, Visibility::Org, None, now()).unwrap());
        assert_eq!(
            canonical_json(&got),
            canonical_json(&fixture("proposal.confirmed.json"))
        );
        assert!(got.candidate_before_confirm.is_none());
    }

    #[test]
    fn confirm_with_justification_assigns_the_scope_and_snapshots() {
        let p = fixture("proposal.pending.json");
        let j = "git aborts checkout on a dirty tree regardless of version.";
        let got = changed(confirm(&p, Visibility::Public, Some(j), now()).unwrap());
        assert_eq!(
            canonical_json(&got),
            canonical_json(&fixture("proposal.confirmed-version-independent.json"))
        );
        // Exactly the two keys: no stale `versions` survives the rewrite.
        let scope = serde_json::to_value(&got.candidate.applies_to.scope).unwrap();
        let keys: Vec<&String> = scope.as_object().unwrap().keys().collect();
        assert_eq!(keys, ["justification", "kind"]);
        assert_eq!(got.candidate_before_confirm.as_ref(), Some(&p.candidate));
    }

    #[test]
    fn blank_justification_is_refused_with_the_documented_text() {
        let p = fixture("proposal.pending.json");
        for blank in ["", "   ", "\t\n"] {
            let e = confirm(&p, Visibility::Org, Some(blank), now()).unwrap_err();
            assert_eq!(e, ReviewError::BlankJustification);
            assert_eq!(
                e.to_string(),
                "justification is blank after trimming whitespace; omit --justification instead of passing an empty value"
            );
        }
    }

    #[test]
    fn justification_at_private_is_refused() {
        let p = fixture("proposal.pending.json");
        let e = confirm(&p, Visibility::Private, Some("true everywhere"), now()).unwrap_err();
        assert_eq!(e, ReviewError::VersionIndependentAtPrivate);
        assert!(e
            .to_string()
            .starts_with("version_independent requires org or public visibility"));
    }

    #[test]
    fn resulting_version_independent_candidate_at_private_is_refused() {
        // No justification in this call, but the candidate already carries
        // the version_independent scope: the check is on the result.
        let mut p = fixture("proposal.pending.json");
        p.candidate.applies_to.scope = Scope::VersionIndependent {
            justification: "always".into(),
        };
        let e = confirm(&p, Visibility::Private, None, now()).unwrap_err();
        assert_eq!(e, ReviewError::VersionIndependentAtPrivate);
        // ...and the same candidate at org is fine, with no snapshot.
        let got = changed(confirm(&p, Visibility::Org, None, now()).unwrap());
        assert!(got.candidate_before_confirm.is_none());
    }

    #[test]
    fn identical_repeat_is_a_noop_and_a_different_one_is_refused() {
        let confirmed = fixture("proposal.confirmed.json");
        let t = confirm(&confirmed, Visibility::Org, None, now()).unwrap();
        let id = confirmed.id;
        assert_eq!(
            t,
            Transition::Unchanged(NoOp::AlreadyConfirmed {
                id,
                visibility: Visibility::Org
            })
        );

        let e = confirm(&confirmed, Visibility::Public, None, now()).unwrap_err();
        assert_eq!(
            e.to_string(),
            format!(
                "lesson {id} is already confirmed; visibility or scope differs from the request"
            )
        );
        let e = confirm(&confirmed, Visibility::Org, Some("always true"), now()).unwrap_err();
        assert_eq!(e, ReviewError::AlreadyConfirmedDiffers { id });

        let vi = fixture("proposal.confirmed-version-independent.json");
        let same = "git aborts checkout on a dirty tree regardless of version.";
        assert!(matches!(
            confirm(&vi, Visibility::Public, Some(same), now()).unwrap(),
            Transition::Unchanged(NoOp::AlreadyConfirmed { .. })
        ));
        let e = confirm(&vi, Visibility::Public, Some("a different reason"), now()).unwrap_err();
        assert_eq!(e, ReviewError::AlreadyConfirmedDiffers { id });
    }

    #[test]
    fn confirm_refuses_passed_and_decided_lessons() {
        let p = fixture("proposal.pending.json");
        let id = p.id;
        let e = confirm(
            &with_status(p.clone(), ProposalStatus::Passed),
            Visibility::Org,
            None,
            now(),
        )
        .unwrap_err();
        assert_eq!(
            e.to_string(),
            format!("lesson {id} was passed on; it cannot be confirmed")
        );
        for (s, name) in [
            (ProposalStatus::Approved, "approved"),
            (ProposalStatus::Rejected, "rejected"),
        ] {
            let e = confirm(&with_status(p.clone(), s), Visibility::Org, None, now()).unwrap_err();
            assert_eq!(
                e.to_string(),
                format!("lesson {id} cannot be confirmed from status: {name}")
            );
        }
    }

    #[test]
    fn pass_rules() {
        let p = fixture("proposal.pending.json");
        let id = p.id;
        let got = changed(pass(&p, Some("not for sharing"), now()).unwrap());
        assert_eq!(got.status, ProposalStatus::Passed);
        assert_eq!(got.passed_at.as_deref(), Some("2026-08-04T09:00:00Z"));
        assert_eq!(got.pass_reason.as_deref(), Some("not for sharing"));
        assert_eq!(got.candidate, p.candidate);

        let blank = changed(pass(&p, Some("  "), now()).unwrap());
        assert_eq!(blank.pass_reason, None);

        assert_eq!(
            pass(&got, None, now()).unwrap(),
            Transition::Unchanged(NoOp::AlreadyPassed { id })
        );

        let e = pass(&fixture("proposal.confirmed.json"), None, now()).unwrap_err();
        assert_eq!(
            e.to_string(),
            format!("lesson {id} is confirmed for the jury; it cannot be passed on now")
        );
        let e = pass(&fixture("proposal.rejected.json"), None, now()).unwrap_err();
        assert_eq!(
            e.to_string(),
            format!("lesson {id} cannot be passed on from status: rejected")
        );
    }

    #[test]
    fn unconfirm_round_trips_byte_for_byte() {
        let pending = fixture("proposal.pending.json");
        let before = canonical_json(&pending);
        for just in [
            None,
            Some("git aborts checkout on a dirty tree regardless of version."),
        ] {
            for vis in [Visibility::Org, Visibility::Public] {
                let confirmed = changed(confirm(&pending, vis, just, now()).unwrap());
                assert_ne!(canonical_json(&confirmed), before);
                let back = changed(unconfirm(&confirmed).unwrap());
                assert_eq!(
                    String::from_utf8(canonical_json(&back)).unwrap(),
                    String::from_utf8(before.clone()).unwrap()
                );
            }
        }
        let back =
            changed(unconfirm(&fixture("proposal.confirmed-version-independent.json")).unwrap());
        assert_eq!(canonical_json(&back), before);
    }

    #[test]
    fn unconfirm_refusals_and_noop() {
        let p = fixture("proposal.pending.json");
        let id = p.id;
        let t = unconfirm(&p).unwrap();
        assert_eq!(t, Transition::Unchanged(NoOp::AlreadyPending { id }));
        if let Transition::Unchanged(n) = t {
            assert_eq!(
                n.to_string(),
                format!("lesson {id} was already pending; nothing to take back")
            );
        }
        let e = unconfirm(&with_status(p, ProposalStatus::Passed)).unwrap_err();
        assert_eq!(
            e.to_string(),
            format!("lesson {id} was passed on, not confirmed; unconfirm does not undo that")
        );
        let e = unconfirm(&fixture("proposal.approved-promoted.json")).unwrap_err();
        assert_eq!(
            e.to_string(),
            format!("lesson {id} cannot be unconfirmed from status: approved")
        );
        let e = unconfirm(&fixture("proposal.rejected.json")).unwrap_err();
        assert_eq!(
            e.to_string(),
            format!("lesson {id} cannot be unconfirmed from status: rejected")
        );
    }
}
