//! A pool's own actions on its entries: `promote` (a Lesson v2 entry added),
//! `retract` (an entry taken back) and `sync` (a merge joining a remote
//! pool's history).
//!
//! Each action whole: the trailers it writes and reads, the records it
//! may change ([`rule`]), the entry moves it may make ([`MOVES`]), what the
//! index learns from it ([`learn`]) and what `verify` checks of the records
//! it wrote ([`check`]). A `sync` merge is checked whole, against its two
//! parents, by the audit (`ops/audit/merge.rs`); here only that it is one.

use serde_json::Value;

use super::check::{text, Commit, Repo, AGREE};
use super::fields::Fields;
use super::{Event, Learn, Op, PathKind, Root, Rule};
use crate::model::{Id, LessonStatus, Source, Visibility};
use crate::trailers::{Action, TrailerError};

/// The entry moves of these actions: (action, from, to).
pub(super) const MOVES: &[(Action, LessonStatus, LessonStatus)] = &[
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

pub(super) fn action(e: &Event) -> Action {
    match e {
        Event::Promote { .. } => Action::Promote,
        Event::Retract { .. } => Action::Retract,
        Event::Sync { .. } => Action::Sync,
        _ => unreachable!("{e:?} is not a pool event"),
    }
}

pub(super) fn write(e: &Event, f: &mut Fields) {
    match e {
        Event::Promote {
            lesson,
            artifact,
            visibility,
            pool,
        } => {
            f.lesson = Some(*lesson);
            f.artifact = Some(*artifact);
            f.status = Some(LessonStatus::Active.as_str().into());
            f.visibility = Some(visibility.as_str().into());
            f.pool = Some(pool.as_str().into());
        }
        Event::Retract {
            lesson,
            from,
            pool,
            reason,
        } => {
            f.lesson = Some(*lesson);
            f.from = Some(from.as_str().into());
            f.status = Some(LessonStatus::Retracted.as_str().into());
            f.pool = Some(pool.as_str().into());
            f.reason = Some(reason.clone());
        }
        Event::Sync { pool, resolved } => {
            f.pool = Some(pool.as_str().into());
            f.targets = resolved.clone();
        }
        _ => unreachable!("{e:?} is not a pool event"),
    }
}

/// `promote` without `Lore-From` (with one it is the ledger's stamp,
/// `ledger.rs`), `retract`, `sync`.
pub(super) fn read(f: &Fields) -> Option<Result<Event, TrailerError>> {
    let read = || -> Result<Event, TrailerError> {
        Ok(match f.action() {
            Action::Promote => Event::Promote {
                lesson: f.need_lesson()?,
                artifact: f.need_artifact()?,
                visibility: f.parsed("Lore-Visibility", &f.visibility)?,
                pool: f.parsed("Lore-Pool", &f.pool)?,
            },
            Action::Retract => {
                if f.status.as_deref() != Some(LessonStatus::Retracted.as_str()) {
                    return Err(TrailerError::BadField {
                        key: "Lore-Status",
                        why: "a retraction leaves the entry retracted".into(),
                    });
                }
                Event::Retract {
                    lesson: f.need_lesson()?,
                    from: f.parsed("Lore-From", &f.from)?,
                    pool: f.parsed("Lore-Pool", &f.pool)?,
                    reason: f.need("Lore-Reason", &f.reason)?,
                }
            }
            Action::Sync => Event::Sync {
                pool: f.parsed("Lore-Pool", &f.pool)?,
                resolved: f.targets.clone(),
            },
            _ => unreachable!("claimed below"),
        })
    };
    match f.action() {
        Action::Promote if f.from.is_none() => {}
        Action::Retract | Action::Sync => {}
        _ => return None,
    }
    Some(read())
}

pub(super) fn rule(e: &Event) -> Rule {
    let touches: &'static [(PathKind, Op)] = match e {
        Event::Promote { .. } => &[(PathKind::Lesson, Op::Add)],
        Event::Retract { .. } => &[(PathKind::Lesson, Op::Modify)],
        // A merge: checked as a whole against its parents, not by paths.
        Event::Sync { .. } => &[],
        _ => unreachable!("{e:?} is not a pool event"),
    };
    Rule {
        on: super::On::Pool,
        root: Root::Never,
        touches,
    }
}

pub(super) fn lesson(e: &Event) -> Option<Id> {
    match e {
        Event::Promote { lesson, .. } | Event::Retract { lesson, .. } => Some(*lesson),
        _ => None,
    }
}

pub(super) fn artifact(e: &Event) -> Option<Id> {
    match e {
        Event::Promote { artifact, .. } => Some(*artifact),
        _ => None,
    }
}

/// The index learns which pool a lesson's entry went to.
pub(super) fn learn(e: &Event, pool: Source, k: &mut dyn Learn) {
    if let Event::Promote { lesson, .. } = e {
        k.pooled(*lesson, pool);
    }
}

pub(super) fn check<R: Repo>(e: &Event, c: &Commit<'_, R>) -> Result<Vec<String>, R::Error> {
    Ok(match e {
        Event::Promote {
            lesson,
            artifact,
            visibility,
            pool,
        } => check_promote(c, *lesson, *artifact, *visibility, *pool),
        Event::Retract {
            lesson, from, pool, ..
        } => check_retract(c, *lesson, *from, *pool),
        // A merge never reaches here (the audit checks it whole).
        Event::Sync { .. } => vec!["sync must be a merge commit".into()],
        _ => unreachable!("{e:?} is not a pool event"),
    })
}

fn check_promote<R>(
    c: &Commit<'_, R>,
    lesson: Id,
    artifact: Id,
    visibility: Visibility,
    pool: Source,
) -> Vec<String> {
    let mut problems = Vec::new();
    if c.pool != Some(pool) || visibility.source() != pool {
        problems.push(format!(
            "promote: Lore-Pool {pool} and Lore-Visibility {visibility} do not match {}",
            c.branch()
        ));
    }
    let new = c.record(PathKind::Lesson).1;
    if new.is_none() {
        return problems;
    }
    if text(new, "id") != Some(lesson.to_string().as_str()) {
        problems.push("promote: the entry's id is not Lore-Lesson".into());
    }
    if text(new, "status") != Some(LessonStatus::Active.as_str()) {
        problems.push("promote: a new pool entry must be active".into());
    }
    if text(new, "visibility") != Some(visibility.as_str()) {
        problems.push("promote: the entry's visibility is not Lore-Visibility".into());
    }
    if text(new, "source") != Some(pool.as_str()) {
        problems.push(format!(
            "promote: Lore-Pool says {pool} but the entry's source is {} ({AGREE})",
            text(new, "source").unwrap_or("missing")
        ));
    }
    let evidence: Vec<&str> = new
        .and_then(|v| v.pointer("/evidence/artifact_ids")?.as_array())
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    if !evidence.contains(&artifact.to_string().as_str()) {
        problems.push(format!(
            "promote: Lore-Artifact says {artifact} but the entry's evidence does not name it ({AGREE})"
        ));
    }
    problems
}

/// A retraction changes only the entry's status, to `retracted`, from the
/// status the trailers name, by a legal move.
fn check_retract<R>(
    c: &Commit<'_, R>,
    lesson: Id,
    from: LessonStatus,
    pool: Source,
) -> Vec<String> {
    let mut problems = Vec::new();
    if c.pool != Some(pool) {
        problems.push(format!(
            "retract: Lore-Pool {pool} does not match {}",
            c.branch()
        ));
    }
    let (Some(old), Some(new)) = c.record(PathKind::Lesson) else {
        return problems; // the rule check said what is missing
    };
    let was = text(Some(old), "status");
    if was != Some(from.as_str()) {
        problems.push(format!(
            "retract: Lore-From says {from} but the entry was {}",
            was.unwrap_or("unreadable")
        ));
    }
    match was.and_then(|w| w.parse::<LessonStatus>().ok()) {
        Some(w) if !MOVES.contains(&(Action::Retract, w, LessonStatus::Retracted)) => problems
            .push(format!(
                "retract: illegal status transition {w} -> retracted"
            )),
        _ => {}
    }
    if text(Some(new), "id") != Some(lesson.to_string().as_str()) {
        problems.push("retract: the entry's id is not Lore-Lesson".into());
    }
    let mut expected = old.clone();
    expected["status"] = Value::from(LessonStatus::Retracted.as_str());
    if *new != expected {
        problems.push("retract: it may change only the entry's status, to retracted".into());
    }
    problems
}
