//! The jury's second look at a contradicted pool lesson: `git lore judge
//! ID VERDICTS` on a pool lesson, and `git lore judge --contradicted`.
//!
//! A lesson waits for it when it is an active entry of `pool/org` or
//! `pool/public`, the counter-observations against it reached
//! `lore.relate.threshold`, and the jury has not upheld it at that many or
//! more (`upheld/…/<N>.json`). The jury is the ledger's: the rubric of the
//! entry's visibility, the same usable-panel, coverage and gate checks
//! ([`crate::review::jury::judge`]). The judges are shown the pool entry,
//! its source artifact when the ledger still has it, and every
//! counter-observation ([`crate::review::rejudge_prompt`]); the offline
//! judges fail grounding at the threshold
//! ([`crate::review::offline_rejudge_panel`]).
//!
//! One signed pool commit, `judge` with `Lore-Pool`, through
//! [`Lore::transact`]:
//! - the ruling failed: the entry's `status` becomes `refuted` (the
//!   lifecycle table's `judge` move, `active → refuted`), nothing else
//!   changes; recall never returns it again;
//! - the ruling passed: an upheld record `upheld/<X>/<Y>/<Z>/<ID>/<N>.json`
//!   (N = the counter-observations judged), the entry unchanged; the lesson
//!   leaves the queue until more are recorded.
//!
//! "Could not judge" (no answer, an unusable panel, a lesson or its
//! counter-evidence that changed while the jury deliberated) writes nothing
//! ([`Rejudged::Unjudged`]). A lesson that does not wait for the jury is
//! refused. This module never prints and reads no clock or environment but
//! [`super::Env`].

use gix::ObjectId;
use serde_json::Value;

use super::backend::Backend;
use super::relate::{observations_against, upheld_at_for, QUEUED_POOLS};
use super::{Lore, LoreError};
use crate::cause::AnyCause;
use crate::event::{Event, Ruling};
use crate::model::{canonical_json, iso, Id, Lesson, LessonStatus, Proposal, ProposalStatus};
use crate::model::{Candidate, Source, Verdict};
use crate::review::relation::records::{self, CounterObservation, UpheldRecord};
use crate::review::{self, JuryOutcome, RubricSet, UnjudgedReason};
use crate::schema::{self, SchemaKind};
use crate::store::{layout, Branch, Change, CommitSpec, Store};
use crate::trailers::Action;

/// A contradicted pool lesson as the jury is shown it, read at one tip.
#[derive(Clone, Debug, PartialEq)]
pub struct Case {
    pub pool: Source,
    pub lesson: Lesson,
    /// The counter-observations against it, by id.
    pub observations: Vec<CounterObservation>,
    /// The most counter-observations the jury upheld it against before.
    pub upheld_at: Option<usize>,
}

impl Case {
    fn ids(&self) -> Vec<Id> {
        self.observations.iter().map(|o| o.id).collect()
    }
}

/// What judging a contradicted lesson again came to.
#[derive(Clone, Debug, PartialEq)]
pub enum Rejudged {
    /// A ruling was recorded in `commit`: `refuted`, or upheld at `count`.
    Recorded {
        pool: Source,
        refuted: bool,
        count: usize,
        verdict: Box<Verdict>,
        commit: ObjectId,
    },
    /// Could not judge: nothing was written; the lesson still waits.
    Unjudged(UnjudgedReason),
}

/// Whether `judge ID` is this module's: a pool holds `id`, and it has
/// counter-observations or the ledger has no proposal of it (a lesson that
/// came with a synced pool). A promoted lesson nobody contradicted is the
/// ledger's, which says it is no longer confirmed.
pub fn judges(lore: &Lore, id: Id) -> Result<bool, LoreError> {
    let Some((_, t)) = super::query::pool_holding(lore, id)? else {
        return Ok(false);
    };
    let contradicted = !lore
        .store
        .paths_at(t, &records::counter_observations_dir(id))?
        .is_empty();
    let on_ledger = lore
        .store
        .read(Branch::Ledger, &layout::proposal_path(id))?
        .is_some();
    Ok(contradicted || !on_ledger)
}

fn read_case(store: &Store, pool: Source, tip: ObjectId, id: Id) -> Result<Case, LoreError> {
    let bytes = store
        .read_at(tip, &layout::lesson_path(id))?
        .ok_or(LoreError::NotFound { id })?;
    let lesson: Lesson =
        serde_json::from_slice(&bytes).map_err(|source| LoreError::UnreadableEntry {
            id,
            said: "its pool entry does not read as a lesson: ",
            source,
        })?;
    let mut observations = observations_against(store, tip, id)?;
    observations.sort_by_key(|o| o.id);
    let upheld_at = upheld_at_for(store, tip, id)?;
    Ok(Case {
        pool,
        lesson,
        observations,
        upheld_at,
    })
}

/// The case of `id`, refused unless it waits for the jury (`threshold` is
/// `lore.relate.threshold`).
pub fn case(lore: &Lore, id: Id, threshold: usize) -> Result<Case, LoreError> {
    let Some((pool, t)) = super::query::pool_holding(lore, id)? else {
        return Err(LoreError::NotFound { id });
    };
    let c = read_case(&lore.store, pool, t, id)?;
    waits(&c, threshold)?;
    Ok(c)
}

/// Refuses a case that does not wait for the jury, saying why.
fn waits(c: &Case, threshold: usize) -> Result<(), LoreError> {
    let id = c.lesson.id;
    let n = c.observations.len();
    let refuse = |why: String| {
        Err(LoreError::Input {
            what: format!("lesson {id} is not waiting for the jury"),
            why,
        })
    };
    if !QUEUED_POOLS.contains(&c.pool) {
        return refuse(format!(
            "it is private (pool/{}), and a private lesson has no jury; `git lore retract {id}` takes it back",
            c.pool
        ));
    }
    if c.lesson.status != LessonStatus::Active {
        return refuse(format!(
            "it is {}; only an active lesson is judged again",
            c.lesson.status
        ));
    }
    if n < threshold {
        return refuse(format!(
            "it has {n} counter-observation{}, and the jury judges a lesson again at lore.relate.threshold ({threshold})",
            if n == 1 { "" } else { "s" }
        ));
    }
    if let Some(u) = c.upheld_at.filter(|&u| u >= n) {
        return refuse(format!(
            "the jury upheld it at {u} counter-observations; it waits again when more are recorded"
        ));
    }
    Ok(())
}

/// The lessons waiting for the jury, per pool, oldest id first.
pub fn queue(lore: &Lore) -> Result<Vec<(Source, Id)>, LoreError> {
    let (list, _) = super::relate::contradictions(lore)?;
    Ok(list
        .into_iter()
        .filter(|c| c.past_threshold)
        .map(|c| (c.pool, c.lesson))
        .collect())
}

/// What the judges are shown: the pool entry as a proposal (its claim,
/// rationale, evidence and scope; its visibility), with the source
/// artifact the ledger kept for it, when the ledger has it.
pub fn as_proposal(lore: &Lore, c: &Case) -> Proposal {
    let l = &c.lesson;
    let ledger = super::query::proposal(lore, l.id).ok();
    Proposal {
        id: l.id,
        artifact_id: ledger
            .as_ref()
            .map(|p| p.artifact_id)
            .or_else(|| l.evidence.artifact_ids.first().copied())
            .unwrap_or(l.id),
        created_at: l.promoted_at.clone(),
        status: ProposalStatus::Confirmed,
        candidate: Candidate {
            claim: l.claim.clone(),
            rationale: l.rationale.clone(),
            evidence: l.evidence.clone(),
            applies_to: l.applies_to.clone(),
        },
        artifact: ledger.and_then(|p| p.artifact),
        model: None,
        visibility: Some(l.visibility),
        confirmed_at: None,
        candidate_before_confirm: None,
        passed_at: None,
        pass_reason: None,
        judged_at: None,
        verdict: None,
        promoted_at: None,
    }
}

/// Runs the rubric's judges on a case: the panel of their answers, or the
/// first judge that gave none (an outage: nothing may be recorded).
pub fn run_panel(
    lore: &Lore,
    c: &Case,
    rubrics: &RubricSet,
    backend: &Backend,
    threshold: usize,
) -> Result<Value, UnjudgedReason> {
    let Some(rubric) = rubrics.rubric_for(c.lesson.visibility) else {
        return Err(UnjudgedReason::NoRubric(c.lesson.visibility));
    };
    let p = as_proposal(lore, c);
    if let Backend::Offline = backend {
        return review::offline_rejudge_panel(&p, rubric, c.observations.len(), threshold)
            .map_err(|e| UnjudgedReason::UnusablePanel(AnyCause::any(e)));
    }
    super::judge::ask_panel(rubric, backend, |judge_type| {
        review::rejudge_prompt(judge_type, &p, rubric, &c.observations)
    })
}

/// Records the given verdicts (`judge --contradicted ID VERDICTS`) on a
/// contradicted pool lesson, or why there are none.
pub fn rejudge(
    lore: &mut Lore,
    id: Id,
    panel: &Result<Value, UnjudgedReason>,
) -> Result<Rejudged, LoreError> {
    let threshold = super::relate::settings(lore)?.threshold.get();
    let rubrics = super::rubrics::rubrics(lore)?;
    let c = case(lore, id, threshold)?;
    record(lore, c, panel, None, &rubrics)
}

/// `judge ID` on a contradicted pool lesson: runs the configured judges on
/// its case (refused unless it waits for the jury) and records their
/// ruling, as `judge --contradicted` does for each lesson of the queue.
pub fn rejudge_one(lore: &mut Lore, backend: &Backend, id: Id) -> Result<Rejudged, LoreError> {
    let threshold = super::relate::settings(lore)?.threshold.get();
    let rubrics = super::rubrics::rubrics(lore)?;
    let c = case(lore, id, threshold)?;
    match run_panel(lore, &c, &rubrics, backend, threshold) {
        Err(why) => Ok(Rejudged::Unjudged(why)),
        Ok(v) => record(lore, c, &Ok(v), Some(backend.model_name()), &rubrics),
    }
}

/// Records the ruling on the case `c`, as the judges were shown it: when
/// the pool no longer holds exactly that case, nothing is recorded
/// ([`UnjudgedReason::Changed`]).
fn record(
    lore: &mut Lore,
    c: Case,
    panel: &Result<Value, UnjudgedReason>,
    model: Option<&str>,
    rubrics: &RubricSet,
) -> Result<Rejudged, LoreError> {
    let id = c.lesson.id;
    let now = lore.env.now;
    let verdicts = match panel {
        Ok(v) => v,
        Err(why) => return Ok(Rejudged::Unjudged(why.clone())),
    };
    let verdict = match review::jury::judge(c.lesson.visibility, rubrics, verdicts)? {
        JuryOutcome::Unjudged(why) => return Ok(Rejudged::Unjudged(why)),
        JuryOutcome::Recorded(v) => v,
    };
    let refuted = !verdict.passed;
    let count = c.observations.len();
    let pool = c.pool;
    let r = lore.transact(Branch::Pool(pool), |tx| {
        // What this attempt builds on must be what the jury judged.
        let Some(base) = tx.base() else {
            return Ok(None);
        };
        if read_case(tx.store(), pool, base, id)? != c {
            return Ok(None);
        }
        let path = layout::lesson_path(id);
        let change = if refuted {
            debug_assert!(crate::event::lifecycle::legal_lesson(
                Action::Judge,
                LessonStatus::Active,
                LessonStatus::Refuted
            ));
            // Only the status changes: every other byte of the entry stays.
            let bytes = tx.read(&path)?.ok_or(LoreError::NotFound { id })?;
            let mut entry: Value =
                serde_json::from_slice(&bytes).map_err(|source| LoreError::UnreadableEntry {
                    id,
                    said: "",
                    source,
                })?;
            entry["status"] = Value::from(LessonStatus::Refuted.as_str());
            Change::Put {
                path,
                bytes: canonical_json(&entry),
            }
        } else {
            let record = UpheldRecord {
                schema_version: records::RECORD_SCHEMA_VERSION,
                lesson_id: id,
                upheld_at: iso(now),
                counter_observations: count,
                counter_observation_ids: c.ids(),
                model: model.map(str::to_owned),
                verdict: verdict.clone(),
            };
            let value = serde_json::to_value(&record).expect("records serialise");
            if let Err(v) = schema::validate(SchemaKind::Upheld, &value) {
                return Err(LoreError::Input {
                    what: format!("the upheld record of lesson {id}"),
                    why: v
                        .iter()
                        .map(ToString::to_string)
                        .collect::<Vec<_>>()
                        .join("; "),
                });
            }
            Change::Put {
                path: records::upheld_path(id, count),
                bytes: canonical_json(&value),
            }
        };
        let event = Event::Rejudge {
            lesson: id,
            pool,
            refuted,
            ruling: Box::new(Ruling::of(&verdict)),
            model: model.map(str::to_owned),
        };
        // `judge ID: refuted: most judges did not pass it (rubric
        // lesson-promotion, score 0.55), 2 counter-observations`.
        let why = crate::review::reason_text(&verdict.reason);
        let under = match (&verdict.rubric_id, verdict.aggregate_score) {
            (Some(r), Some(s)) => format!(" (rubric {r}, score {s})"),
            _ => String::new(),
        };
        let subject = if refuted {
            format!("judge {id}: refuted: {why}{under}, {count} counter-observations")
        } else {
            format!("judge {id}: upheld{under} at {count} counter-observations")
        };
        Ok(Some(tx.commit(CommitSpec::new(
            &subject,
            None,
            event,
            vec![change],
        )?)?))
    })?;
    Ok(match r.value {
        None => Rejudged::Unjudged(UnjudgedReason::Changed),
        Some(commit) => Rejudged::Recorded {
            pool,
            refuted,
            count,
            verdict: Box::new(verdict),
            commit,
        },
    })
}

/// One lesson's turn in `judge --contradicted`.
pub struct Turn {
    pub id: Id,
    pub rejudged: Rejudged,
}

/// `judge --contradicted`: judges every lesson of `queue` ([`queue`], as
/// the caller reported it) again, one ruling recorded before the next
/// lesson is judged. A lesson that stopped waiting meanwhile is passed
/// over. `each` hears about every turn.
pub fn rejudge_all(
    lore: &mut Lore,
    backend: &Backend,
    queue: &[(Source, Id)],
    each: &mut dyn FnMut(&Turn),
) -> Result<Vec<Turn>, LoreError> {
    let threshold = super::relate::settings(lore)?.threshold.get();
    let rubrics = super::rubrics::rubrics(lore)?;
    let mut out = Vec::new();
    for &(_, id) in queue {
        // A lesson that stopped waiting meanwhile is skipped; anything
        // else (an unreadable entry, the store) is an error to report.
        let c = match case(lore, id, threshold) {
            Ok(c) => c,
            Err(LoreError::Input { .. } | LoreError::NotFound { .. }) => continue,
            Err(e) => return Err(e),
        };
        let panel = run_panel(lore, &c, &rubrics, backend, threshold);
        let rejudged = match panel {
            Err(why) => Rejudged::Unjudged(why),
            // Recorded only if the pool still holds the case the judges
            // were shown (checked where the ruling is written).
            Ok(v) => record(lore, c, &Ok(v), Some(backend.model_name()), &rubrics)?,
        };
        let turn = Turn { id, rejudged };
        each(&turn);
        out.push(turn);
    }
    Ok(out)
}
