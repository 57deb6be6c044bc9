//! The jury: `judge ID VERDICTS` records verdicts given from outside,
//! `judge ID` runs the configured judges on one confirmed lesson, `judge
//! --all` over every confirmed lesson.
//! Each verdict is one signed ledger commit, promoted right after.
//!
//! "Could not judge" — a panel that is not JSON or not usable, a judge
//! program that gives no answer, a lesson that changed while the jury
//! deliberated — writes nothing: the lesson stays confirmed and the command
//! exits 2. A rejection is a verdict and is recorded.

use serde_json::Value;

use super::backend::Backend;
use super::ledger::{put, read, step};
use super::promote::{promote, Promoted};
use super::{Lore, LoreError};
use crate::cause::AnyCause;
use crate::event::{Event, Ruling};
use crate::model::{Id, Proposal, ProposalStatus, Visibility};
use crate::review::{self, Judged, RubricSet, UnjudgedReason};
use crate::scanner;
use crate::store::{Branch, CommitSpec};

/// The reason a public lesson is blocked by the disclosure scanner.
pub const DISCLOSURE_REASON: &str = "disclosure_scan";

/// `judge ID VERDICTS`: records the jury's verdict (or refuses, or reports
/// that the panel could not be trusted). `panel` is the verdicts, or why
/// they did not parse. `judged` is the record the judges saw, when they
/// were run by git-lore: if the lesson changed since, the verdict is not
/// applied to content the jury never read. `model` names the judges in
/// `Lore-Model`.
pub fn judge(
    lore: &mut Lore,
    id: Id,
    panel: &Result<Value, UnjudgedReason>,
    model: Option<&str>,
    judged: Option<&Proposal>,
) -> Result<Judged, LoreError> {
    let rubrics = super::rubrics::rubrics(lore)?;
    let now = lore.env.now;
    let r = lore.transact(Branch::Ledger, |tx| {
        let before = read(tx, id)?;
        if let Some(seen) = judged {
            if before != *seen {
                if before.status != ProposalStatus::Confirmed {
                    return Ok(Judged::Skipped(before.status));
                }
                return Ok(Judged::Unjudged(UnjudgedReason::Changed));
            }
        }
        let mut after = match review::judge_proposal(&before, &rubrics, panel, now)? {
            Judged::Recorded(p) => *p,
            other => return Ok(other),
        };
        // The disclosure scanner runs on every public lesson, whatever the
        // judges said, and blocks it.
        if after.visibility == Some(Visibility::Public)
            && !scanner::scan_lesson(&after.candidate).is_empty()
        {
            if let Some(v) = after.verdict.as_mut() {
                if v.passed {
                    v.passed = false;
                    v.reason = DISCLOSURE_REASON.into();
                }
                v.failed_criterion
                    .get_or_insert_with(|| "disclosure".into());
            }
            after.status = ProposalStatus::Rejected;
        }
        let verdict = after.verdict.as_ref().expect("a recorded verdict");
        let event = Event::Judge {
            step: step(&before, &after),
            visibility: after.visibility,
            ruling: Box::new(Ruling::of(verdict)),
            model: model.map(str::to_owned),
        };
        // `judge ID: rejected: not every judge passed it (rubric
        // lesson-promotion-public, score 0.7)`; the codes are trailers.
        let subject = format!(
            "judge {}: {}: {}{}",
            after.id,
            after.status,
            crate::review::reason_text(&verdict.reason),
            match (&verdict.rubric_id, verdict.aggregate_score) {
                (Some(r), Some(s)) => format!(" (rubric {r}, score {s})"),
                _ => String::new(),
            }
        );
        tx.commit(CommitSpec::new(&subject, None, event, vec![put(&after)])?)?;
        Ok(Judged::Recorded(Box::new(after)))
    })?;
    Ok(r.value)
}

/// Runs the rubric's judges on one proposal: the panel of their answers, or
/// the first judge that gave none (an outage: nothing may be recorded).
pub fn run_panel(
    p: &Proposal,
    rubrics: &RubricSet,
    backend: &Backend,
) -> Result<Value, UnjudgedReason> {
    let Some(rubric) = p.visibility.and_then(|v| rubrics.rubric_for(v)) else {
        return Ok(Value::Array(Vec::new())); // private: no jury
    };
    if let Backend::Offline = backend {
        return review::offline_panel(p, rubric)
            .map_err(|e| UnjudgedReason::UnusablePanel(AnyCause::any(e)));
    }
    ask_panel(rubric, backend, |judge_type| {
        review::judge_prompt(judge_type, p, rubric)
    })
}

/// Asks each of `rubric`'s judges, in order, the prompt `prompt` writes for
/// it: the panel of their answers, or the first judge that gave none.
pub(crate) fn ask_panel(
    rubric: &review::Rubric,
    backend: &Backend,
    prompt: impl Fn(&str) -> Result<String, review::ReviewError>,
) -> Result<Value, UnjudgedReason> {
    let mut panel = Vec::new();
    for judge_type in &rubric.judge_types {
        let no_answer = |why: AnyCause| UnjudgedReason::NoAnswer {
            judge_type: judge_type.clone(),
            why,
        };
        let prompt = prompt(judge_type).map_err(|e| no_answer(AnyCause::any(e)))?;
        let answer = backend
            .ask(&prompt, &[("judge", judge_type)])
            .map_err(|e| no_answer(AnyCause::any(e)))?;
        panel.push(review::panel_slot(judge_type, &answer));
    }
    Ok(Value::Array(panel))
}

/// One lesson's turn in `judge --all`: what the jury decided, and what
/// promoting it gave when a verdict was recorded.
pub struct Turn {
    pub id: Id,
    pub judged: Judged,
    pub promoted: Option<Promoted>,
    /// Judged by an earlier run that stopped before promoting it; this run
    /// only promoted it.
    pub earlier: bool,
}

/// A lesson found confirmed, as it was read: what `judge ID` names before
/// it asks, and what [`judge_one`] judges. Only [`confirmed`] makes one, so
/// a lesson not confirmed is refused here, before anything is asked (the
/// jury's own transition checks the status again when it writes, against
/// the ledger as it is then).
#[derive(Clone, Debug)]
pub struct Confirmed(Proposal);

impl Confirmed {
    pub fn proposal(&self) -> &Proposal {
        &self.0
    }
}

/// The lesson `id`, if it is confirmed; a lesson in any other status is
/// refused, naming it, before any judge is asked (nothing written).
pub fn confirmed(lore: &Lore, id: Id) -> Result<Confirmed, LoreError> {
    let p = super::query::proposal(lore, id)?;
    if p.status != ProposalStatus::Confirmed {
        return Err(review::ReviewError::NotConfirmed {
            id,
            status: p.status,
        }
        .into());
    }
    Ok(Confirmed(p))
}

/// `judge ID` with no verdicts: runs the configured judges on one
/// confirmed lesson and records their verdict, then promotes it, as `judge
/// --all` does for each. A lesson decided since it was found confirmed is
/// skipped, one changed is not judged (the jury saw the record it was
/// shown); an outage records nothing.
pub fn judge_one(
    lore: &mut Lore,
    backend: &Backend,
    lesson: &Confirmed,
) -> Result<Turn, LoreError> {
    let rubrics = super::rubrics::rubrics(lore)?;
    let p = lesson.proposal();
    let id = p.id;
    let judged = match run_panel(p, &rubrics, backend) {
        Err(why) => Judged::Unjudged(why),
        Ok(v) => judge(lore, id, &Ok(v), Some(backend.model_name()), Some(p))?,
    };
    let promoted = matches!(judged, Judged::Recorded(_)).then(|| promote(lore, id));
    Ok(Turn {
        id,
        judged,
        promoted,
        earlier: false,
    })
}

/// `judge --all`: first finishes every promote an earlier run left undone,
/// then judges every confirmed lesson, one verdict recorded (and promoted)
/// before the next lesson is judged. `each` hears about every lesson as it
/// is done.
pub fn judge_all(
    lore: &mut Lore,
    backend: &Backend,
    each: &mut dyn FnMut(&Turn),
) -> Result<Vec<Turn>, LoreError> {
    let rubrics = super::rubrics::rubrics(lore)?;
    let mut out = Vec::new();
    for id in super::promote::unpromoted(lore)? {
        let p = super::query::proposal(lore, id)?;
        let turn = Turn {
            id,
            promoted: Some(promote(lore, id)),
            judged: Judged::Recorded(Box::new(p)),
            earlier: true,
        };
        each(&turn);
        out.push(turn);
    }
    let confirmed = super::query::list(lore, ProposalStatus::Confirmed)?;
    for p in confirmed {
        let panel = run_panel(&p, &rubrics, backend);
        let judged = match panel {
            Err(why) => Judged::Unjudged(why),
            Ok(v) => judge(lore, p.id, &Ok(v), Some(backend.model_name()), Some(&p))?,
        };
        // A promote that fails does not stop the run: the verdict stands and
        // `git lore promote` finishes it later.
        let promoted = matches!(judged, Judged::Recorded(_)).then(|| promote(lore, p.id));
        let turn = Turn {
            id: p.id,
            judged,
            promoted,
            earlier: false,
        };
        each(&turn);
        out.push(turn);
    }
    Ok(out)
}
