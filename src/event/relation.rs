//! Relation judgment's actions on a pool — `supersede`, `merge`, `refine`,
//! `contradict`, `relate` — and the jury's second look at a contradicted
//! entry (`judge` on a pool, told from the ledger's by `Lore-Pool`).
//!
//! Each action whole: the trailers it writes and reads, the records it may
//! change ([`rule`], [`touched`]: `merge` and `refine` name several), the
//! entry moves it may make ([`MOVES`]: only `active → superseded`, and
//! `active → refuted` only for a pool `judge` whose ruling failed, against
//! a lesson with counter-observations) and what `verify` checks of the
//! records it wrote ([`check`]). None of them teaches the index anything:
//! recall reads the entries they change at the pool's tip.

use serde_json::Value;

use super::check::{text, Commit, Name, Record, Repo, Side, AGREE};
use super::fields::Fields;
use super::{named, Event, Op, PathKind, Root, Rule, Ruling};
use crate::model::{Id, LessonStatus, Verdict};
use crate::trailers::{Action, TrailerError};

/// The entry moves of these actions: (action, from, to). Contradiction is
/// a signal, not a verdict: `refuted` only by the jury.
pub(super) const MOVES: &[(Action, LessonStatus, LessonStatus)] = &[
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
];

pub(super) fn action(e: &Event) -> Action {
    match e {
        Event::Supersede { .. } => Action::Supersede,
        Event::Merge { .. } => Action::Merge,
        Event::Refine { .. } => Action::Refine,
        Event::Contradict { .. } => Action::Contradict,
        Event::Relate { .. } => Action::Relate,
        Event::Rejudge { .. } => Action::Judge,
        _ => unreachable!("{e:?} is not a relation event"),
    }
}

pub(super) fn write(e: &Event, f: &mut Fields) {
    match e {
        Event::Supersede {
            lesson,
            by,
            surface,
            model,
        } => {
            f.lesson = Some(*lesson);
            f.from = Some(LessonStatus::Active.as_str().into());
            f.status = Some(LessonStatus::Superseded.as_str().into());
            f.targets = vec![*by];
            f.surface = Some(surface.clone());
            f.model = Some(model.clone());
        }
        Event::Merge {
            lesson,
            sources: targets,
            surface,
            model,
        }
        | Event::Refine {
            lesson,
            targets,
            surface,
            model,
        } => {
            f.lesson = Some(*lesson);
            f.targets = targets.clone();
            f.surface = Some(surface.clone());
            f.model = Some(model.clone());
        }
        Event::Contradict {
            lesson,
            by,
            surface,
            model,
        } => {
            f.lesson = Some(*lesson);
            f.targets = vec![*by];
            f.surface = Some(surface.clone());
            f.model = Some(model.clone());
        }
        Event::Relate {
            lesson,
            targets,
            model,
        } => {
            f.lesson = Some(*lesson);
            f.targets = targets.clone();
            f.model = Some(model.clone());
        }
        Event::Rejudge {
            lesson,
            pool,
            refuted,
            ruling,
            model,
        } => {
            f.lesson = Some(*lesson);
            f.from = Some(LessonStatus::Active.as_str().into());
            let to = if *refuted {
                LessonStatus::Refuted
            } else {
                LessonStatus::Active
            };
            f.status = Some(to.as_str().into());
            f.pool = Some(pool.as_str().into());
            f.ruling(ruling);
            f.model = model.clone();
        }
        _ => unreachable!("{e:?} is not a relation event"),
    }
}

/// The relation actions, and `judge` with `Lore-Pool` (without, it is the
/// ledger's, `ledger.rs`).
pub(super) fn read(f: &Fields) -> Option<Result<Event, TrailerError>> {
    let read = || -> Result<Event, TrailerError> {
        Ok(match f.action() {
            Action::Supersede => {
                if f.from.as_deref() != Some(LessonStatus::Active.as_str())
                    || f.status.as_deref() != Some(LessonStatus::Superseded.as_str())
                {
                    return Err(TrailerError::BadField {
                        key: "Lore-Status",
                        why: "a supersede moves an entry from active to superseded".into(),
                    });
                }
                Event::Supersede {
                    lesson: f.need_lesson()?,
                    by: f.one_target()?,
                    surface: f.need("Lore-Surface", &f.surface)?,
                    model: f.need("Lore-Model", &f.model)?,
                }
            }
            Action::Merge => Event::Merge {
                lesson: f.need_lesson()?,
                sources: f.some_targets()?,
                surface: f.need("Lore-Surface", &f.surface)?,
                model: f.need("Lore-Model", &f.model)?,
            },
            Action::Refine => Event::Refine {
                lesson: f.need_lesson()?,
                targets: f.some_targets()?,
                surface: f.need("Lore-Surface", &f.surface)?,
                model: f.need("Lore-Model", &f.model)?,
            },
            Action::Contradict => Event::Contradict {
                lesson: f.need_lesson()?,
                by: f.one_target()?,
                surface: f.need("Lore-Surface", &f.surface)?,
                model: f.need("Lore-Model", &f.model)?,
            },
            Action::Relate => Event::Relate {
                lesson: f.need_lesson()?,
                targets: f.targets.clone(),
                model: f.need("Lore-Model", &f.model)?,
            },
            Action::Judge => rejudge(f)?,
            _ => unreachable!("claimed below"),
        })
    };
    match f.action() {
        Action::Supersede
        | Action::Merge
        | Action::Refine
        | Action::Contradict
        | Action::Relate => {}
        Action::Judge if f.pool.is_some() => {}
        _ => return None,
    }
    Some(read())
}

/// A `judge` on a pool: the jury judged a contradicted entry again.
/// Only `active → refuted` or `active → active` (upheld), and only as a
/// jury ruling (rubric, gate, score, a judge).
fn rejudge(f: &Fields) -> Result<Event, TrailerError> {
    let refuted = match (f.from.as_deref(), f.status.as_deref()) {
        (Some("active"), Some("refuted")) => true,
        (Some("active"), Some("active")) => false,
        _ => {
            return Err(TrailerError::BadField {
                key: "Lore-Status",
                why: "the jury moves a pool entry from active to refuted, or upholds it active"
                    .into(),
            })
        }
    };
    if f.judges.is_empty() {
        return Err(TrailerError::Missing("Lore-Judge"));
    }
    Ok(Event::Rejudge {
        lesson: f.need_lesson()?,
        pool: f.parsed("Lore-Pool", &f.pool)?,
        refuted,
        ruling: Box::new(Ruling {
            rubric: Some(f.need("Lore-Rubric", &f.rubric)?),
            gate: Some(f.need("Lore-Gate", &f.gate)?),
            score: Some(f.score()?.ok_or(TrailerError::Missing("Lore-Score"))?),
            reason: f.need("Lore-Reason", &f.reason)?,
            judges: f.judges.clone(),
        }),
        model: f.model.clone(),
    })
}

pub(super) fn rule(e: &Event) -> Rule {
    let touches: &'static [(PathKind, Op)] = match e {
        // The superseded entry; `merge` also each source's.
        Event::Supersede { .. } | Event::Merge { .. } => &[(PathKind::Lesson, Op::Modify)],
        // One relation record per target.
        Event::Refine { .. } => &[(PathKind::Relation, Op::Add)],
        Event::Contradict { .. } => &[(PathKind::CounterObservation, Op::Add)],
        Event::Relate { .. } => &[(PathKind::Related, Op::Add)],
        // Refuted: the entry's status, nothing else; upheld: one record.
        Event::Rejudge { refuted: true, .. } => &[(PathKind::Lesson, Op::Modify)],
        Event::Rejudge { refuted: false, .. } => &[(PathKind::Upheld, Op::Add)],
        _ => unreachable!("{e:?} is not a relation event"),
    };
    Rule {
        on: super::On::Pool,
        root: Root::Never,
        touches,
    }
}

/// `merge` changes its lesson and each source; `refine` adds one relation
/// record per target, named by the target.
pub(super) fn touched(e: &Event) -> Vec<(PathKind, Op, Option<Id>)> {
    match e {
        Event::Merge {
            lesson, sources, ..
        } => std::iter::once(*lesson)
            .chain(sources.iter().copied())
            .map(|id| (PathKind::Lesson, Op::Modify, Some(id)))
            .collect(),
        Event::Refine { targets, .. } => targets
            .iter()
            .map(|&t| (PathKind::Relation, Op::Add, Some(t)))
            .collect(),
        _ => named(rule(e), lesson(e)),
    }
}

pub(super) fn lesson(e: &Event) -> Option<Id> {
    match e {
        Event::Supersede { lesson, .. }
        | Event::Merge { lesson, .. }
        | Event::Refine { lesson, .. }
        | Event::Contradict { lesson, .. }
        | Event::Relate { lesson, .. }
        | Event::Rejudge { lesson, .. } => Some(*lesson),
        _ => unreachable!("{e:?} is not a relation event"),
    }
}

fn status(v: Option<&Value>) -> Option<LessonStatus> {
    text(v, "status")?.parse().ok()
}

fn id_field(v: Option<&Value>, key: &str) -> Option<String> {
    text(v, key).map(str::to_owned)
}

/// Whether `id`'s pool entry is in the commit's tree.
fn exists<R: Repo>(c: &Commit<'_, R>, id: Id) -> Result<bool, R::Error> {
    c.repo.exists(Side::After, &Name::Lesson(id))
}

pub(super) fn check<R: Repo>(e: &Event, c: &Commit<'_, R>) -> Result<Vec<String>, R::Error> {
    let action = action(e);
    let mut problems = Vec::new();
    // A lesson retired by `by`: active → superseded by `by`, nothing else.
    let retired = |id: Id, by: Id, problems: &mut Vec<String>| {
        let Some(r) = c.entry(id) else { return };
        let (from, to) = (status(r.old.as_ref()), status(r.new.as_ref()));
        match (from, to) {
            (Some(f), Some(t)) if MOVES.contains(&(action, f, t)) => {}
            (f, t) => problems.push(format!(
                "{action}: illegal status transition of {id}: {} -> {}",
                f.map_or("unreadable", |s| s.as_str()),
                t.map_or("unreadable", |s| s.as_str())
            )),
        }
        if let (Some(old), Some(new)) = (&r.old, &r.new) {
            let mut expected = old.clone();
            expected["status"] = Value::from(LessonStatus::Superseded.as_str());
            expected["superseded_by"] = Value::from(by.to_string());
            if *new != expected {
                problems.push(format!(
                    "{action}: {id} may change only its status, to superseded, and superseded_by, to {by}"
                ));
            }
        }
    };
    match e {
        Event::Supersede { lesson, by, .. } => {
            retired(*lesson, *by, &mut problems);
            if !exists(c, *by)? {
                problems.push(format!("supersede: the successor {by} is not in the pool"));
            }
        }
        Event::Merge {
            lesson, sources, ..
        } => {
            for s in sources {
                retired(*s, *lesson, &mut problems);
            }
            if let Some(r) = c.entry(*lesson) {
                problems.extend(check_absorbed(c, *lesson, sources, r));
            }
        }
        Event::Refine {
            lesson,
            targets,
            surface,
            model,
        } => {
            for r in c.all(PathKind::Relation) {
                let Name::Relation { from, to } = r.name else {
                    continue;
                };
                // The trailer carries the decision's surface trimmed.
                let recorded = text(r.new.as_ref(), "surface").map(str::trim);
                if r.new.is_some()
                    && (recorded != Some(surface.as_str())
                        || text(r.new.as_ref(), "model") != Some(model.as_str()))
                {
                    problems.push(format!(
                        "refine: {}: Lore-Surface and Lore-Model are not the record's surface and model ({AGREE})",
                        r.path
                    ));
                }
                if from != *lesson {
                    problems.push(format!(
                        "refine: {} is not a refinement by Lore-Lesson {lesson}",
                        r.path
                    ));
                }
                if id_field(r.new.as_ref(), "from") != Some(lesson.to_string())
                    || id_field(r.new.as_ref(), "to") != Some(to.to_string())
                {
                    problems.push(format!(
                        "refine: {}: from and to are not the path's",
                        r.path
                    ));
                }
            }
            for id in std::iter::once(lesson).chain(targets) {
                if !exists(c, *id)? {
                    problems.push(format!("refine: {id} is not in the pool"));
                }
            }
        }
        Event::Contradict { lesson, by, .. } => {
            for r in c.all(PathKind::CounterObservation) {
                if id_field(r.new.as_ref(), "lesson_id") != Some(lesson.to_string()) {
                    problems.push(format!(
                        "contradict: {}: lesson_id is not Lore-Lesson {lesson}",
                        r.path
                    ));
                }
                let named_id = match r.name {
                    Name::CounterObservation { observation, .. } => Some(observation.to_string()),
                    _ => None,
                };
                if named_id != id_field(r.new.as_ref(), "id") {
                    problems.push(format!(
                        "contradict: {}: the record's id is not its file name",
                        r.path
                    ));
                }
            }
            for id in [lesson, by] {
                if !exists(c, *id)? {
                    problems.push(format!("contradict: {id} is not in the pool"));
                }
            }
        }
        Event::Relate {
            lesson,
            targets,
            model,
        } => {
            for r in c.all(PathKind::Related) {
                if r.new.is_some() && text(r.new.as_ref(), "model") != Some(model.as_str()) {
                    problems.push(format!(
                        "relate: {}: Lore-Model says {model} but the record's model is {} ({AGREE})",
                        r.path,
                        text(r.new.as_ref(), "model").unwrap_or("missing")
                    ));
                }
                if id_field(r.new.as_ref(), "lesson_id") != Some(lesson.to_string()) {
                    problems.push(format!(
                        "relate: {}: lesson_id is not Lore-Lesson {lesson}",
                        r.path
                    ));
                }
                let named: Vec<String> = r
                    .new
                    .as_ref()
                    .and_then(|v| v.get("decisions")?.as_array().cloned())
                    .unwrap_or_default()
                    .iter()
                    .flat_map(|d| {
                        d.get("target_ids")
                            .and_then(Value::as_array)
                            .cloned()
                            .unwrap_or_default()
                    })
                    .filter_map(|t| t.as_str().map(str::to_owned))
                    .collect();
                let trailers: Vec<String> = targets.iter().map(Id::to_string).collect();
                if named != trailers {
                    problems.push(
                        "relate: Lore-Target does not list the ids the record's decisions name"
                            .into(),
                    );
                }
            }
            if !exists(c, *lesson)? {
                problems.push(format!("relate: {lesson} is not in the pool"));
            }
        }
        Event::Rejudge {
            lesson,
            refuted,
            ruling,
            model,
            ..
        } => problems.extend(check_rejudge(c, *lesson, *refuted, ruling, model)?),
        _ => unreachable!("{e:?} is not a relation event"),
    }
    Ok(problems)
}

/// A `judge` on a pool. Refuted: a failed ruling moves the entry
/// `active → refuted` (the `judge` move of [`MOVES`]) and changes nothing
/// else. Upheld: a passed ruling adds `upheld/…/<N>.json` whose record
/// names the lesson, says `N`, lists exactly the counter-observations the
/// commit's tree holds against it (so `N` is their number), and carries the
/// ruling the trailers carry; the entry stays active. Either way the lesson
/// has counter-observations: the jury judges a pool entry again only on
/// counter-evidence.
fn check_rejudge<R: Repo>(
    c: &Commit<'_, R>,
    lesson: Id,
    refuted: bool,
    ruling: &Ruling,
    model: &Option<String>,
) -> Result<Vec<String>, R::Error> {
    let mut problems = Vec::new();
    let mut observed: Vec<String> = c
        .repo
        .counter_observations(lesson)?
        .iter()
        .map(Id::to_string)
        .collect();
    observed.sort();
    if observed.is_empty() {
        problems.push(format!(
            "judge: {lesson} has no counter-observations; the jury judges a pool entry again only on counter-evidence"
        ));
    }
    let passed = ruling.reason == "gate_passed";
    if refuted {
        if passed {
            problems.push(format!(
                "judge: a ruling that passed ({}) cannot refute {lesson}",
                ruling.reason
            ));
        }
        if let Some(r) = c.entry(lesson) {
            let (from, to) = (status(r.old.as_ref()), status(r.new.as_ref()));
            match (from, to) {
                (Some(f), Some(t))
                    if MOVES.contains(&(Action::Judge, f, t)) && t == LessonStatus::Refuted => {}
                (f, t) => problems.push(format!(
                    "judge: illegal status transition of {lesson}: {} -> {}",
                    f.map_or("unreadable", |s| s.as_str()),
                    t.map_or("unreadable", |s| s.as_str())
                )),
            }
            if let (Some(old), Some(new)) = (&r.old, &r.new) {
                let mut expected = old.clone();
                expected["status"] = Value::from(LessonStatus::Refuted.as_str());
                if *new != expected {
                    problems.push(format!(
                        "judge: {lesson} may change only its status, to refuted"
                    ));
                }
            }
        }
        return Ok(problems);
    }
    if !passed {
        problems.push(format!(
            "judge: a ruling that failed ({}) cannot uphold {lesson}",
            ruling.reason
        ));
    }
    let entry = c.repo.read(Side::After, &Name::Lesson(lesson))?;
    let entry_status = entry
        .and_then(|b| serde_json::from_slice::<Value>(&b).ok())
        .and_then(|v| Some(v.get("status")?.as_str()?.to_owned()));
    if entry_status.as_deref() != Some(LessonStatus::Active.as_str()) {
        problems.push(format!(
            "judge: only an active lesson can be upheld; {lesson} is {}",
            entry_status.as_deref().unwrap_or("not in the pool")
        ));
    }
    for r in c.all(PathKind::Upheld) {
        let Some(v) = &r.new else { continue };
        if id_field(r.new.as_ref(), "lesson_id") != Some(lesson.to_string()) {
            problems.push(format!(
                "judge: {}: lesson_id is not Lore-Lesson {lesson}",
                r.path
            ));
        }
        let count = match r.name {
            Name::Upheld { count, .. } => Some(count),
            _ => None,
        };
        let ids: Vec<String> = v
            .get("counter_observation_ids")
            .and_then(Value::as_array)
            .map(|a| {
                a.iter()
                    .filter_map(|x| x.as_str().map(str::to_owned))
                    .collect()
            })
            .unwrap_or_default();
        let said = v.get("counter_observations").and_then(Value::as_u64);
        if count.map(|c| c as u64) != said || said != Some(observed.len() as u64) {
            problems.push(format!(
                "judge: {}: the number in its name and its counter_observations must be the {} counter-observations against {lesson}",
                r.path,
                observed.len()
            ));
        }
        if ids != observed {
            problems.push(format!(
                "judge: {}: counter_observation_ids are not the counter-observations against {lesson}",
                r.path
            ));
        }
        let verdict = v
            .get("verdict")
            .and_then(|d| serde_json::from_value::<Verdict>(d.clone()).ok());
        let agrees = verdict.map(|d| Ruling::of(&d)).as_ref() == Some(ruling)
            && v.get("model").and_then(|x| x.as_str().map(str::to_owned)) == *model;
        if !agrees {
            problems.push(format!(
                "judge: {}: the recorded verdict is not the ruling the trailers carry",
                r.path
            ));
        }
    }
    Ok(problems)
}

/// A merge's lesson stays as it was but for its evidence's artifact and
/// session ids, which may only grow, and only by the sources' own ids.
fn check_absorbed<R>(c: &Commit<'_, R>, lesson: Id, sources: &[Id], r: &Record) -> Vec<String> {
    let mut problems = Vec::new();
    let (Some(old), Some(new)) = (&r.old, &r.new) else {
        return problems;
    };
    if status(r.old.as_ref()) != Some(LessonStatus::Active)
        || status(r.new.as_ref()) != Some(LessonStatus::Active)
    {
        problems.push(format!(
            "merge: the absorbing lesson {lesson} must stay active"
        ));
    }
    let list = |v: &Value, key: &str| -> Vec<String> {
        v.pointer(&format!("/evidence/{key}"))
            .and_then(Value::as_array)
            .map(|a| {
                a.iter()
                    .filter_map(|x| x.as_str().map(str::to_owned))
                    .collect()
            })
            .unwrap_or_default()
    };
    let mut expected = old.clone();
    for key in ["artifact_ids", "session_ids"] {
        let mut allowed = list(old, key);
        for s in sources {
            if let Some(src) = c.entry(*s).and_then(|e| e.old.as_ref()) {
                allowed.extend(list(src, key));
            }
        }
        let got = list(new, key);
        let before = list(old, key);
        if !before.iter().all(|x| got.contains(x)) || !got.iter().all(|x| allowed.contains(x)) {
            problems.push(format!(
                "merge: {lesson}'s evidence.{key} must keep its own and add only the sources'"
            ));
        }
        if let Some(slot) = expected.pointer_mut(&format!("/evidence/{key}")) {
            if let Some(v) = new.pointer(&format!("/evidence/{key}")) {
                *slot = v.clone();
            }
        }
    }
    if *new != expected {
        problems.push(format!(
            "merge: {lesson} may change only its evidence's artifact and session ids"
        ));
    }
    problems
}
