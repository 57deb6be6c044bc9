//! Promote: an approved proposal becomes a Lesson v2 pool
//! entry with exactly the 13 keys of the published schema.
//!
//! [`build_lesson`] maps the proposal:
//! `{id, schema_version: 2, claim, rationale, evidence, applies_to,
//! visibility, consensus: {judges: len(verdict.judges), agreed: count(passed
//! == true), decided_at: judged_at}, status: active, superseded_by: null,
//! source: private→local | org | public, author_key, promoted_at: now}`.
//! It refuses a confirmed proposal ("has not been judged yet; nothing to
//! promote"), any status other than approved ("cannot be promoted from
//! status: …" — a rejected proposal is recorded on the ledger only), and a
//! record missing what the entry is built from ("is malformed; cannot
//! promote (bad or missing: …)"). It does not look at `promoted_at`: whether
//! the pool already holds the entry (promote again is a no-op) is for the
//! caller to see, and [`mark_promoted`] stamps the proposal last.
//!
//! The caller validates the entry against the lesson schema before writing.
//! A private entry has `consensus.judges` 0 and is, by design, not
//! ingest-valid (it never leaves the machine).

use super::author_key::is_author_key;
use super::confirm::{NoOp, Transition};
use super::jury::consensus;
use super::ReviewError;
use crate::model::{
    iso, Consensus, Lesson, LessonStatus, Proposal, ProposalStatus, Scope, Visibility,
};
use crate::trailers::Action;

/// Refuses a proposal promote cannot start from: not judged yet (the
/// "has not been judged yet" message), or in a status outside `ok`.
fn promotable(p: &Proposal, ok: &[ProposalStatus]) -> Result<(), ReviewError> {
    match p.status {
        s if ok.contains(&s) && crate::event::lifecycle::may_start(Action::Promote, s) => Ok(()),
        ProposalStatus::Confirmed => Err(ReviewError::NotJudged { id: p.id }),
        status => Err(ReviewError::WrongStatus {
            id: p.id,
            action: "promoted",
            status,
        }),
    }
}

/// Builds the pool entry of an approved proposal.
pub fn build_lesson(
    p: &Proposal,
    author_key: &str,
    now: jiff::Timestamp,
) -> Result<Lesson, ReviewError> {
    promotable(p, &[ProposalStatus::Approved])?;
    if !is_author_key(author_key) {
        return Err(ReviewError::BadAuthorKey);
    }

    let c = &p.candidate;
    let mut bad: Vec<&str> = Vec::new();
    if p.visibility.is_none() {
        bad.push("visibility");
    }
    if c.claim.trim().is_empty() {
        bad.push("candidate.claim");
    }
    if c.rationale.trim().is_empty() {
        bad.push("candidate.rationale");
    }
    let e = &c.evidence;
    if e.resolution.trim().is_empty()
        || e.artifact_ids.is_empty()
        || e.session_ids.is_empty()
        || e.session_ids.iter().any(String::is_empty)
        || e.project_key.is_empty()
        || e.observed_at.is_empty()
    {
        bad.push("candidate.evidence");
    }
    let a = &c.applies_to;
    let scope_ok = match &a.scope {
        Scope::Versioned { versions } => !versions.is_empty(),
        Scope::VersionIndependent { justification } => !justification.trim().is_empty(),
    };
    if a.stack.is_empty() || a.stack.iter().any(String::is_empty) || !scope_ok {
        bad.push("candidate.applies_to");
    }
    let judged_at = p.judged_at.as_deref().filter(|t| is_utc_timestamp(t));
    if judged_at.is_none() {
        bad.push("judged_at");
    }
    match (&p.verdict, p.visibility) {
        (None, _) => bad.push("verdict.judges"),
        (Some(v), vis) => {
            // A jury tier needs its judges (the schema wants judges >= 1).
            if v.judges.is_empty() && vis.is_some_and(|v| v != Visibility::Private) {
                bad.push("verdict.judges");
            }
            if !v.passed {
                bad.push("verdict.passed");
            }
        }
    }
    let (Some(visibility), Some(verdict), Some(judged_at), true) =
        (p.visibility, &p.verdict, judged_at, bad.is_empty())
    else {
        return Err(ReviewError::Malformed {
            id: p.id,
            fields: bad.join(", "),
        });
    };

    let (judges, agreed) = consensus(verdict);
    Ok(Lesson {
        id: p.id,
        schema_version: 2,
        claim: c.claim.clone(),
        rationale: c.rationale.clone(),
        evidence: c.evidence.clone(),
        applies_to: c.applies_to.clone(),
        visibility,
        consensus: Consensus {
            judges,
            agreed,
            decided_at: judged_at.to_owned(),
        },
        status: LessonStatus::Active,
        superseded_by: None,
        source: visibility.source(),
        author_key: author_key.to_owned(),
        promoted_at: iso(now),
    })
}

/// Stamps `promoted_at` on a decided proposal, the last step of promote.
/// Approved and rejected proposals can be stamped; a stamped one is a no-op.
pub fn mark_promoted(p: &Proposal, now: jiff::Timestamp) -> Result<Transition, ReviewError> {
    promotable(p, &[ProposalStatus::Approved, ProposalStatus::Rejected])?;
    if p.promoted_at.is_some() {
        return Ok(Transition::Unchanged(NoOp::AlreadyPromoted { id: p.id }));
    }
    let mut next = p.clone();
    next.promoted_at = Some(iso(now));
    Ok(Transition::Changed(Box::new(next)))
}

/// `YYYY-MM-DDTHH:MM[:SS[.frac]]Z` that names a real instant.
fn is_utc_timestamp(s: &str) -> bool {
    s.ends_with('Z')
        && s.len() >= 17
        && s.as_bytes().get(10) == Some(&b'T')
        && s.parse::<jiff::Timestamp>().is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::canonical_json;
    use crate::review::author_key::author_key;
    use crate::review::testdata;

    const ZERO: &str = "0000000000000000000000000000000000000000000000000000000000000000";

    fn t(s: &str) -> jiff::Timestamp {
        s.parse().unwrap()
    }

    #[test]
    fn the_reference_proposal_becomes_the_reference_pool_entry() {
        let p = testdata::proposal("proposal.approved-promoted.json");
        let key = author_key(ZERO, Visibility::Org).unwrap();
        let lesson = build_lesson(&p, &key, t("2026-08-05T10:00:01Z")).unwrap();
        let want = testdata::json("pool-entry.approved-org.json");
        assert_eq!(
            String::from_utf8(canonical_json(&lesson)).unwrap(),
            String::from_utf8(canonical_json(&want)).unwrap()
        );
        assert_eq!(
            serde_json::to_value(&lesson)
                .unwrap()
                .as_object()
                .unwrap()
                .len(),
            13
        );
    }

    #[test]
    fn a_private_proposal_maps_to_source_local_with_no_judges() {
        let p = testdata::proposal("proposal.approved-private.json");
        // The reference private entry reuses the org key; the mapping is what is checked.
        let lesson = build_lesson(
            &p,
            "a8cf0203e178702412d37d5f796adbdc",
            t("2026-08-05T10:00:01Z"),
        )
        .unwrap();
        let want = testdata::json("pool-entry.approved-private.NOT-ingest-valid.json");
        assert_eq!(canonical_json(&lesson), canonical_json(&want));
        assert_eq!(lesson.source.as_str(), "local");
        assert_eq!((lesson.consensus.judges, lesson.consensus.agreed), (0, 0));
    }

    #[test]
    fn consensus_counts_agreement() {
        let mut p = testdata::proposal("proposal.approved-promoted.json");
        let v = p.verdict.as_mut().unwrap();
        v.judges
            .push(serde_json::json!({"judge_type": "standard", "score": 0.6, "passed": false}));
        v.judges
            .push(serde_json::json!({"judge_type": "standard", "score": 0.9, "passed": "true"}));
        let l = build_lesson(
            &p,
            "a8cf0203e178702412d37d5f796adbdc",
            t("2026-08-05T10:00:01Z"),
        )
        .unwrap();
        assert_eq!((l.consensus.judges, l.consensus.agreed), (4, 2));
    }

    #[test]
    fn status_refusals() {
        let key = "a8cf0203e178702412d37d5f796adbdc";
        let now = t("2026-08-05T10:00:01Z");
        let confirmed = testdata::proposal("proposal.confirmed.json");
        let id = confirmed.id;
        let e = build_lesson(&confirmed, key, now).unwrap_err();
        assert_eq!(
            e.to_string(),
            format!("lesson {id} has not been judged yet; nothing to promote")
        );
        let e = build_lesson(&testdata::proposal("proposal.pending.json"), key, now).unwrap_err();
        assert_eq!(
            e.to_string(),
            format!("lesson {id} cannot be promoted from status: pending")
        );
        let e = build_lesson(&testdata::proposal("proposal.rejected.json"), key, now).unwrap_err();
        assert_eq!(
            e.to_string(),
            format!("lesson {id} cannot be promoted from status: rejected")
        );
        let p = testdata::proposal("proposal.approved-promoted.json");
        assert_eq!(
            build_lesson(&p, "A8CF", now).unwrap_err(),
            ReviewError::BadAuthorKey
        );
    }

    #[test]
    fn malformed_records_name_what_is_bad() {
        let key = "a8cf0203e178702412d37d5f796adbdc";
        let now = t("2026-08-05T10:00:01Z");
        let base = testdata::proposal("proposal.approved-promoted.json");
        let id = base.id;

        let mut p = base.clone();
        p.judged_at = None;
        p.verdict = None;
        p.candidate.claim = " ".into();
        let e = build_lesson(&p, key, now).unwrap_err();
        assert_eq!(
            e.to_string(),
            format!("lesson {id} is malformed; cannot promote (bad or missing: candidate.claim, judged_at, verdict.judges)")
        );

        let mut p = base.clone();
        p.visibility = None;
        p.judged_at = Some("yesterday".into());
        p.candidate.evidence.session_ids = vec![String::new()];
        p.candidate.applies_to.stack.clear();
        let e = build_lesson(&p, key, now).unwrap_err();
        assert_eq!(
            e,
            ReviewError::Malformed {
                id,
                fields: "visibility, candidate.evidence, candidate.applies_to, judged_at".into()
            }
        );

        let mut p = base.clone();
        p.verdict.as_mut().unwrap().judges.clear();
        p.verdict.as_mut().unwrap().passed = false;
        let e = build_lesson(&p, key, now).unwrap_err();
        assert_eq!(
            e,
            ReviewError::Malformed {
                id,
                fields: "verdict.judges, verdict.passed".into()
            }
        );
    }

    #[test]
    fn mark_promoted_stamps_once() {
        let now = t("2026-08-05T10:00:01Z");
        let mut p = testdata::proposal("proposal.approved-promoted.json");
        assert_eq!(
            mark_promoted(&p, now).unwrap(),
            Transition::Unchanged(NoOp::AlreadyPromoted { id: p.id })
        );
        p.promoted_at = None;
        let Transition::Changed(stamped) = mark_promoted(&p, now).unwrap() else {
            panic!()
        };
        assert_eq!(
            canonical_json(&*stamped),
            canonical_json(&testdata::proposal("proposal.approved-promoted.json"))
        );
        let Transition::Changed(r) =
            mark_promoted(&testdata::proposal("proposal.rejected.json"), now).unwrap()
        else {
            panic!()
        };
        assert_eq!(r.promoted_at.as_deref(), Some("2026-08-05T10:00:01Z"));
        let e = mark_promoted(&testdata::proposal("proposal.confirmed.json"), now).unwrap_err();
        assert_eq!(e, ReviewError::NotJudged { id: p.id });
    }
}
