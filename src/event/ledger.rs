//! The ledger's actions: what happens to an artifact and to the proposal
//! made of it. `propose` and `decline` (ingest's verdicts), `confirm`,
//! `unconfirm`, `edit` and `pass` (a person), `judge` (the jury's verdict)
//! and the stamp `promote` leaves on the proposal.
//!
//! Each action whole: the trailers it writes and reads, the records it
//! may change ([`rule`]), the proposal moves it may make ([`MOVES`]), what
//! the index learns from it ([`learn`]) and what `verify` checks of the
//! records it wrote ([`check`]).

use serde_json::Value;

use super::check::{text, Commit, Name, Repo, Side, AGREE};
use super::fields::Fields;
use super::{named, CommitRef, Event, Learn, Op, PathKind, Root, Rule, Ruling, Step};
use crate::model::{Id, ProposalStatus, Verdict, Visibility};
use crate::trailers::{Action, TrailerError};

use ProposalStatus::*;

/// Every legal proposal transition: (action, from, to).
pub(super) const MOVES: &[(Action, ProposalStatus, ProposalStatus)] = &[
    (Action::Confirm, Pending, Confirmed),
    (Action::Unconfirm, Confirmed, Pending),
    // A person corrects the words or the scope until the jury has judged.
    (Action::Edit, Pending, Pending),
    (Action::Edit, Confirmed, Confirmed),
    (Action::Pass, Pending, Passed),
    (Action::Judge, Confirmed, Approved),
    (Action::Judge, Confirmed, Rejected),
    // Promote stamps the record; its status stays what the jury decided.
    (Action::Promote, Approved, Approved),
    (Action::Promote, Rejected, Rejected),
];

pub(super) fn action(e: &Event) -> Action {
    match e {
        Event::Propose { .. } => Action::Propose,
        Event::Decline { .. } => Action::Decline,
        Event::Confirm { .. } => Action::Confirm,
        Event::Unconfirm { .. } => Action::Unconfirm,
        Event::Edit { .. } => Action::Edit,
        Event::Pass { .. } => Action::Pass,
        Event::Judge { .. } => Action::Judge,
        Event::Stamp { .. } => Action::Promote,
        _ => unreachable!("{e:?} is not a ledger event"),
    }
}

pub(super) fn write(e: &Event, f: &mut Fields) {
    match e {
        Event::Propose {
            lesson,
            artifact,
            model,
            replaces,
        } => {
            f.lesson = Some(*lesson);
            f.artifact = Some(*artifact);
            f.status = Some(Pending.as_str().into());
            f.model = model.clone();
            f.replaces = replaces.as_ref().map(|c| c.as_str().into());
        }
        Event::Decline {
            artifact,
            reason,
            model,
            replaces,
        } => {
            f.artifact = Some(*artifact);
            f.reason = Some(reason.as_str().into());
            f.model = model.clone();
            f.replaces = replaces.as_ref().map(|c| c.as_str().into());
        }
        Event::Confirm {
            step,
            visibility,
            interactive,
        } => {
            f.step(step);
            f.visibility = Some(visibility.as_str().into());
            if !interactive {
                f.interactive = Some("no".into());
            }
        }
        Event::Unconfirm { step } | Event::Edit { step } => f.step(step),
        Event::Pass { step, reason } => {
            f.step(step);
            f.reason = reason.clone();
        }
        Event::Judge {
            step,
            visibility,
            ruling,
            model,
        } => {
            f.step(step);
            f.visibility = visibility.map(|v| v.as_str().into());
            f.ruling(ruling);
            f.model = model.clone();
        }
        Event::Stamp {
            step,
            visibility,
            pool,
        } => {
            f.step(step);
            f.visibility = visibility.map(|v| v.as_str().into());
            f.pool = pool.map(|p| p.as_str().into());
        }
        _ => unreachable!("{e:?} is not a ledger event"),
    }
}

/// The ledger's actions; `judge` without `Lore-Pool` (with one it is the
/// jury's second look at a pool entry, `relation.rs`) and `promote` with
/// `Lore-From` (the stamp; without, the pool entry, `pool.rs`).
pub(super) fn read(f: &Fields) -> Option<Result<Event, TrailerError>> {
    let read = || -> Result<Event, TrailerError> {
        Ok(match f.action() {
            Action::Propose => {
                if f.status.as_deref() != Some(Pending.as_str()) {
                    return Err(TrailerError::BadField {
                        key: "Lore-Status",
                        why: "a proposal is created pending".into(),
                    });
                }
                Event::Propose {
                    lesson: f.need_lesson()?,
                    artifact: f.need_artifact()?,
                    replaces: f.replaces()?,
                    model: f.model.clone(),
                }
            }
            Action::Decline => Event::Decline {
                artifact: f.need_artifact()?,
                reason: f.parsed("Lore-Reason", &f.reason)?,
                replaces: f.replaces()?,
                model: f.model.clone(),
            },
            Action::Confirm => Event::Confirm {
                step: f.need_step()?,
                visibility: f.parsed("Lore-Visibility", &f.visibility)?,
                interactive: match f.interactive.as_deref() {
                    None => true,
                    Some("no") => false,
                    Some(_) => {
                        return Err(TrailerError::BadField {
                            key: "Lore-Interactive",
                            why: "the only value is no".into(),
                        })
                    }
                },
            },
            Action::Unconfirm => Event::Unconfirm {
                step: f.need_step()?,
            },
            Action::Edit => {
                let step = f.need_step()?;
                if step.from != step.to {
                    return Err(TrailerError::BadField {
                        key: "Lore-Status",
                        why: "an edit keeps the status: Lore-Status is Lore-From".into(),
                    });
                }
                Event::Edit { step }
            }
            Action::Pass => Event::Pass {
                step: f.need_step()?,
                reason: f.reason.clone(),
            },
            Action::Judge => Event::Judge {
                step: f.need_step()?,
                visibility: f.optional("Lore-Visibility", &f.visibility)?,
                ruling: Box::new(Ruling {
                    score: f.score()?,
                    rubric: f.rubric.clone(),
                    gate: f.gate.clone(),
                    reason: f.need("Lore-Reason", &f.reason)?,
                    judges: f.judges.clone(),
                }),
                model: f.model.clone(),
            },
            Action::Promote => Event::Stamp {
                step: f.need_step()?,
                visibility: f.optional("Lore-Visibility", &f.visibility)?,
                pool: f.optional("Lore-Pool", &f.pool)?,
            },
            _ => unreachable!("claimed below"),
        })
    };
    match f.action() {
        Action::Propose
        | Action::Decline
        | Action::Confirm
        | Action::Unconfirm
        | Action::Edit
        | Action::Pass => {}
        Action::Judge if f.pool.is_none() => {}
        Action::Promote if f.from.is_some() => {}
        _ => return None,
    }
    Some(read())
}

pub(super) fn rule(e: &Event) -> Rule {
    use super::On::Ledger;
    let touches: &'static [(PathKind, Op)] = match e {
        Event::Propose { .. } => &[(PathKind::Proposal, Op::Add)],
        Event::Decline { replaces: None, .. } => &[(PathKind::Decline, Op::Add)],
        // `ingest --redo`: the earlier decline's record is rewritten.
        Event::Decline {
            replaces: Some(_), ..
        } => &[(PathKind::Decline, Op::Modify)],
        Event::Confirm { .. }
        | Event::Unconfirm { .. }
        | Event::Edit { .. }
        | Event::Pass { .. }
        | Event::Judge { .. }
        | Event::Stamp { .. } => &[(PathKind::Proposal, Op::Modify)],
        _ => unreachable!("{e:?} is not a ledger event"),
    };
    Rule {
        on: Ledger,
        root: Root::Never,
        touches,
    }
}

/// A decline record is named by its artifact, a proposal by its lesson.
pub(super) fn touched(e: &Event) -> Vec<(PathKind, Op, Option<Id>)> {
    let id = match e {
        Event::Decline { artifact, .. } => Some(*artifact),
        _ => lesson(e),
    };
    named(rule(e), id)
}

pub(super) fn lesson(e: &Event) -> Option<Id> {
    match e {
        Event::Propose { lesson, .. } => Some(*lesson),
        Event::Decline { .. } => None,
        _ => step(e).map(|s| s.lesson),
    }
}

pub(super) fn artifact(e: &Event) -> Option<Id> {
    match e {
        Event::Propose { artifact, .. } | Event::Decline { artifact, .. } => Some(*artifact),
        _ => step(e).map(|s| s.artifact),
    }
}

pub(super) fn step(e: &Event) -> Option<&Step> {
    match e {
        Event::Confirm { step, .. }
        | Event::Unconfirm { step }
        | Event::Edit { step }
        | Event::Pass { step, .. }
        | Event::Judge { step, .. }
        | Event::Stamp { step, .. } => Some(step),
        _ => None,
    }
}

/// What the index keeps of the ledger: each artifact's outcome, and each
/// lesson's status, visibility and stamp.
pub(super) fn learn(e: &Event, k: &mut dyn Learn) {
    match e {
        Event::Propose {
            lesson, artifact, ..
        } => k.proposed(*lesson, *artifact),
        Event::Decline {
            artifact, reason, ..
        } => k.declined(*artifact, *reason),
        Event::Confirm {
            step, visibility, ..
        } => {
            k.status(step.lesson, step.to);
            k.visibility(step.lesson, Some(*visibility));
        }
        Event::Unconfirm { step } => {
            k.status(step.lesson, step.to);
            k.visibility(step.lesson, None);
        }
        Event::Pass { step, .. } | Event::Judge { step, .. } => k.status(step.lesson, step.to),
        // The index keeps no words: status and visibility stay as they were.
        Event::Edit { .. } => {}
        Event::Stamp { step, .. } => {
            k.status(step.lesson, step.to);
            k.stamped(step.lesson);
        }
        _ => unreachable!("{e:?} is not a ledger event"),
    }
}

pub(super) fn check<R: Repo>(e: &Event, c: &Commit<'_, R>) -> Result<Vec<String>, R::Error> {
    let mut problems = Vec::new();
    match e {
        Event::Propose {
            lesson,
            artifact,
            replaces,
            model,
        } => {
            let new = c.record(PathKind::Proposal).1;
            problems.extend(check_propose(*artifact, new));
            if new.is_some() {
                agree(
                    &mut problems,
                    "propose",
                    "Lore-Lesson",
                    text(new, "id"),
                    Some(&lesson.to_string()),
                );
                agree(
                    &mut problems,
                    "propose",
                    "Lore-Model",
                    text(new, "model"),
                    model.as_deref(),
                );
            }
            if let Some(r) = replaces {
                problems.extend(check_replaces(c, *artifact, r)?);
            }
        }
        Event::Decline {
            artifact,
            reason,
            replaces,
            model,
        } => {
            if let Some(r) = replaces {
                problems.extend(check_replaces(c, *artifact, r)?);
            }
            let new = c.record(PathKind::Decline).1;
            if text(new, "reason") != Some(reason.as_str()) {
                problems.push("decline: Lore-Reason does not match the record's reason".into());
            }
            if new.is_some() {
                agree(
                    &mut problems,
                    "decline",
                    "Lore-Artifact",
                    text(new, "artifact_id"),
                    Some(&artifact.to_string()),
                );
                agree(
                    &mut problems,
                    "decline",
                    "Lore-Model",
                    text(new, "model"),
                    model.as_deref(),
                );
            }
        }
        _ => {
            let step = step(e).expect("every other ledger event is a step");
            let (old, new) = c.record(PathKind::Proposal);
            problems.extend(check_step(action(e), step, old, new));
            if new.is_some() {
                problems.extend(check_agrees(e, step, new));
            }
            if let (Event::Edit { .. }, Some(old), Some(new)) = (e, old, new) {
                problems.extend(check_edit(old, new));
            }
        }
    }
    Ok(problems)
}

/// `problems` gains one when the trailer `key` says `said` but the record
/// holds `holds` (`None`: absent on that side).
fn agree(
    problems: &mut Vec<String>,
    action: &str,
    key: &str,
    holds: Option<&str>,
    said: Option<&str>,
) {
    if holds != said {
        problems.push(format!(
            "{action}: {key} says {} but the record holds {} ({AGREE})",
            said.unwrap_or("nothing"),
            holds.unwrap_or("nothing")
        ));
    }
}

/// What a transition's trailers say of the proposal it wrote, beyond its
/// status: whose it is, at what visibility, the pass reason, the jury's
/// ruling, the pool a stamp names.
fn check_agrees(e: &Event, step: &Step, new: Option<&Value>) -> Vec<String> {
    let action = action(e).as_str();
    let mut problems = Vec::new();
    let mut said = |key: &str, holds: Option<&str>, said: Option<&str>| {
        agree(&mut problems, action, key, holds, said)
    };
    said(
        "Lore-Lesson",
        text(new, "id"),
        Some(&step.lesson.to_string()),
    );
    said(
        "Lore-Artifact",
        text(new, "artifact_id"),
        Some(&step.artifact.to_string()),
    );
    let visibility = text(new, "visibility");
    match e {
        Event::Confirm { visibility: v, .. } => {
            said("Lore-Visibility", visibility, Some(v.as_str()))
        }
        Event::Unconfirm { .. } => said("Lore-Visibility", visibility, None),
        Event::Pass { reason, .. } => {
            // The trailer is the reason trimmed; none for a blank one.
            let kept = text(new, "pass_reason")
                .map(str::trim)
                .filter(|r| !r.is_empty());
            said("Lore-Reason", kept, reason.as_deref());
        }
        Event::Judge {
            visibility: v,
            ruling,
            ..
        } => {
            said("Lore-Visibility", visibility, v.map(Visibility::as_str));
            let recorded = new
                .and_then(|r| r.get("verdict"))
                .and_then(|v| serde_json::from_value::<Verdict>(v.clone()).ok());
            if recorded.map(|v| Ruling::of(&v)).as_ref() != Some(ruling.as_ref()) {
                problems.push(format!(
                    "judge: the trailers' ruling (Lore-Rubric, Lore-Gate, Lore-Score, Lore-Reason, Lore-Judge) is not the verdict the record holds ({AGREE})"
                ));
            }
        }
        Event::Stamp {
            visibility: v,
            pool,
            ..
        } => {
            said("Lore-Visibility", visibility, v.map(Visibility::as_str));
            // An approved lesson's entry went to its visibility's pool; a
            // rejected one went nowhere.
            let expected = visibility
                .and_then(|v| v.parse::<Visibility>().ok())
                .filter(|_| step.to == Approved)
                .map(|v| v.source());
            if *pool != expected {
                problems.push(format!(
                    "promote: Lore-Pool says {} but the record's {} lesson goes to {} ({AGREE})",
                    pool.map_or("nothing", |p| p.as_str()),
                    step.to,
                    expected.map_or("no pool", |p| p.as_str())
                ));
            }
        }
        _ => {}
    }
    problems
}

fn status_of(v: Option<&Value>) -> Option<ProposalStatus> {
    text(v, "status")?.parse().ok()
}

fn check_propose(artifact: Id, new: Option<&Value>) -> Vec<String> {
    let mut problems = Vec::new();
    if new.is_none() {
        return problems;
    }
    if text(new, "artifact_id") != Some(artifact.to_string().as_str()) {
        problems.push("propose: Lore-Artifact does not match the proposal's artifact_id".into());
    }
    if status_of(new) != Some(Pending) {
        problems.push("propose: a new proposal must be pending".into());
    }
    problems
}

/// `Lore-Replaces` (an `ingest --redo` outcome) must name a decline of the
/// same artifact in this commit's own history, and the artifact must be
/// declined when the commit lands.
fn check_replaces<R: Repo>(
    c: &Commit<'_, R>,
    artifact: Id,
    replaces: &CommitRef,
) -> Result<Vec<String>, R::Error> {
    // Only a commit this one descends from: a decline on another branch,
    // in quarantine or dangling is history nobody verified as this one's.
    // The ancestry walk comes last, for a decline of the right artifact
    // only.
    let mut problems = Vec::new();
    let not_in_history = || {
        format!(
            "Lore-Replaces names {}, which is not in this commit's history",
            replaces.as_str()
        )
    };
    match c.repo.named(replaces)? {
        Some(Some(Event::Decline { artifact: a, .. })) if a == artifact => {
            if !c.repo.descends_from(replaces)? {
                problems.push(not_in_history());
            }
        }
        Some(_) => problems.push(format!(
            "Lore-Replaces names {}, which is not a decline of artifact {artifact}",
            replaces.as_str()
        )),
        None => problems.push(not_in_history()),
    }
    if !c.repo.exists(Side::Before, &Name::Decline(artifact))? {
        problems.push(format!(
            "Lore-Replaces: artifact {artifact} was not declined before this commit"
        ));
    }
    Ok(problems)
}

fn check_step(
    action: Action,
    step: &Step,
    old: Option<&Value>,
    new: Option<&Value>,
) -> Vec<String> {
    let (Some(o), Some(n)) = (status_of(old), status_of(new)) else {
        return if old.is_some() && new.is_some() {
            vec![format!("{action}: proposal status unreadable")]
        } else {
            Vec::new() // the rule check already said what is missing
        };
    };
    let mut problems = Vec::new();
    if (step.from, step.to) != (o, n) {
        problems.push(format!(
            "{action}: trailers say {} -> {} but the record went {o} -> {n}",
            step.from, step.to
        ));
    }
    if !MOVES.contains(&(action, o, n)) {
        problems.push(format!("{action}: illegal status transition {o} -> {n}"));
    }
    problems
}

/// What an `edit` may change of a proposal, as JSON pointers: the words
/// and the scope of its candidate, and the words of the candidate kept from
/// before a confirm that rewrote the scope (so that `unconfirm` keeps the
/// edit). `crate::review::edit` writes exactly these.
pub const EDITABLE: &[&str] = &[
    "/candidate/claim",
    "/candidate/rationale",
    "/candidate/evidence/resolution",
    "/candidate/applies_to/stack",
    "/candidate/applies_to/scope",
    "/candidate_before_confirm/claim",
    "/candidate_before_confirm/rationale",
    "/candidate_before_confirm/evidence/resolution",
];

/// The most paths an `edit` problem names of what it changed beyond
/// [`EDITABLE`].
const NAMED_PATHS: usize = 5;

/// What an `edit` must keep: everything of the proposal but [`EDITABLE`]
/// (the step check already holds its status to pending or confirmed), a
/// scope that is not made version_independent (a choice made at confirm,
/// with a justification) and, for a lesson confirmed version_independent,
/// its stack and scope as confirmed; and the candidate it writes meets the
/// human side's rules (every versions key a stack entry, no range that
/// matches nothing; the schema and the content policy are checked of every
/// record by the audit).
fn check_edit(old: &Value, new: &Value) -> Vec<String> {
    let mut problems = Vec::new();
    let (kept_old, kept_new) = (without_editable(old), without_editable(new));
    if kept_old != kept_new {
        let mut paths = Vec::new();
        differences(&kept_old, &kept_new, String::new(), &mut paths);
        let more = paths.len().saturating_sub(NAMED_PATHS);
        paths.truncate(NAMED_PATHS);
        problems.push(format!(
            "edit may change only the candidate's claim, rationale, resolution, stack and scope; it also changed {}{}",
            paths.join(", "),
            if more > 0 { format!(" and {more} more") } else { String::new() }
        ));
    }
    let kind = |v: &Value| {
        v.pointer("/candidate/applies_to/scope/kind")
            .and_then(Value::as_str)
            .map(str::to_owned)
    };
    let independent = Some("version_independent".to_owned());
    if kind(old) != independent && kind(new) == independent {
        problems.push(
            "edit made the scope version_independent, which is chosen when confirming (`git lore confirm ID org --justification TEXT`), not by an edit".into(),
        );
    }
    if kind(old) == independent {
        for part in ["stack", "scope"] {
            let at = format!("/candidate/applies_to/{part}");
            if old.pointer(&at) != new.pointer(&at) {
                problems.push(format!(
                    "edit changed the {part} of a lesson confirmed version_independent; its scope stays as confirmed until it is unconfirmed"
                ));
            }
        }
    }
    let candidate = new
        .get("candidate")
        .and_then(|c| serde_json::from_value::<crate::model::Candidate>(c.clone()).ok());
    if let Some(c) = candidate {
        if let Err(invalid) = crate::pipeline::validate_confirmed_as_held(&c) {
            problems.push(format!(
                "edit: the edited candidate does not validate: {invalid}"
            ));
        }
    }
    problems
}

/// `v` without the fields an `edit` may change.
fn without_editable(v: &Value) -> Value {
    let mut v = v.clone();
    for pointer in EDITABLE {
        let (parent, key) = pointer.rsplit_once('/').expect("pointers start with /");
        if let Some(Value::Object(m)) = v.pointer_mut(parent) {
            m.remove(key);
        }
    }
    v
}

/// The JSON pointers at which `a` and `b` differ: the deepest object keys
/// whose values are not equal, in key order.
fn differences(a: &Value, b: &Value, at: String, out: &mut Vec<String>) {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            let keys: std::collections::BTreeSet<&String> = x.keys().chain(y.keys()).collect();
            for k in keys {
                let here = format!("{at}/{}", crate::content::record::pointer_token(k));
                match (x.get(k), y.get(k)) {
                    (Some(p), Some(q)) => differences(p, q, here, out),
                    (p, q) if p != q => out.push(here),
                    _ => {}
                }
            }
        }
        _ if a != b => out.push(if at.is_empty() { "/".into() } else { at }),
        _ => {}
    }
}
