//! `verify`'s checks of the relation actions (`supersede`, `merge`,
//! `refine`, `contradict`, `relate`) and of the jury's second look at a
//! contradicted pool entry (`judge` on a pool): which relation path a file
//! is, and that each commit's records say what its trailers say.
//!
//! The generic part (branch, root, exactly the files `Event::touched`
//! names, schema validity) is `check_commit`'s; this file adds one small
//! check per action. Status moves are asked of
//! [`lifecycle::legal_lesson`], the table the planner also asks: only
//! `active → superseded`, and `active → refuted` only for a pool `judge`
//! whose ruling failed, against a lesson with counter-observations.
//! It reads only what it is given and the commit's own tree.

use serde_json::Value;

use crate::event::{Event, PathKind};
use crate::model::{Id, LessonStatus};
use crate::review::lifecycle;
use crate::review::relation::records::{self, RelationPath};
use crate::store::{layout, CommitInfo, Store};

use super::LoreError;

/// One record a relation commit changed, as read from its blobs.
pub(super) struct Record {
    pub path: String,
    pub kind: PathKind,
    /// The id the path is named by (for a relation record, its `TO`).
    pub id: Option<Id>,
    pub old: Option<Value>,
    pub new: Option<Value>,
}

/// The kind and naming id of a relation path, `(None, None)` for anything
/// else.
pub(super) fn classify(path: &str) -> (Option<PathKind>, Option<Id>) {
    match records::classify(path) {
        Some(RelationPath::Relation { to, .. }) => (Some(PathKind::Relation), Some(to)),
        Some(RelationPath::CounterObservation { lesson, .. }) => {
            (Some(PathKind::CounterObservation), Some(lesson))
        }
        Some(RelationPath::Related(id)) => (Some(PathKind::Related), Some(id)),
        Some(RelationPath::Upheld { lesson, .. }) => (Some(PathKind::Upheld), Some(lesson)),
        None => (None, None),
    }
}

fn status(v: &Option<Value>) -> Option<LessonStatus> {
    v.as_ref()?.get("status")?.as_str()?.parse().ok()
}

fn id_field(v: &Option<Value>, key: &str) -> Option<String> {
    Some(v.as_ref()?.get(key)?.as_str()?.to_owned())
}

/// Whether `id`'s pool entry exists in the commit's tree.
fn exists(store: &Store, info: &CommitInfo, id: Id) -> Result<bool, LoreError> {
    Ok(store
        .blob_id_in_tree(info.tree, &layout::lesson_path(id))?
        .is_some())
}

/// The checks of one relation commit; `records` are the files it changed
/// that its rule allows.
pub(super) fn check(
    store: &Store,
    info: &CommitInfo,
    event: &Event,
    records: &[Record],
) -> Result<Vec<String>, LoreError> {
    let action = event.action();
    let mut problems = Vec::new();
    let entry = |id: Id| {
        records
            .iter()
            .find(|r| r.kind == PathKind::Lesson && r.id == Some(id))
    };
    // A lesson retired by `by`: active → superseded by `by`, nothing else.
    let retired = |id: Id, by: Id, problems: &mut Vec<String>| {
        let Some(r) = entry(id) else { return };
        let (from, to) = (status(&r.old), status(&r.new));
        match (from, to) {
            (Some(f), Some(t)) if lifecycle::legal_lesson(action, f, t) => {}
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
    match event {
        Event::Supersede { lesson, by, .. } => {
            retired(*lesson, *by, &mut problems);
            if !exists(store, info, *by)? {
                problems.push(format!("supersede: the successor {by} is not in the pool"));
            }
        }
        Event::Merge {
            lesson, sources, ..
        } => {
            for s in sources {
                retired(*s, *lesson, &mut problems);
            }
            if let Some(r) = entry(*lesson) {
                problems.extend(check_absorbed(*lesson, sources, r, &entry));
            }
        }
        Event::Refine {
            lesson, targets, ..
        } => {
            for r in records.iter().filter(|r| r.kind == PathKind::Relation) {
                let Some(to) = r.id else { continue };
                if r.path != records::relation_path(*lesson, to) {
                    problems.push(format!(
                        "refine: {} is not a refinement by Lore-Lesson {lesson}",
                        r.path
                    ));
                }
                if id_field(&r.new, "from") != Some(lesson.to_string())
                    || id_field(&r.new, "to") != Some(to.to_string())
                {
                    problems.push(format!(
                        "refine: {}: from and to are not the path's",
                        r.path
                    ));
                }
            }
            for id in std::iter::once(lesson).chain(targets) {
                if !exists(store, info, *id)? {
                    problems.push(format!("refine: {id} is not in the pool"));
                }
            }
        }
        Event::Contradict { lesson, by, .. } => {
            for r in records
                .iter()
                .filter(|r| r.kind == PathKind::CounterObservation)
            {
                if id_field(&r.new, "lesson_id") != Some(lesson.to_string()) {
                    problems.push(format!(
                        "contradict: {}: lesson_id is not Lore-Lesson {lesson}",
                        r.path
                    ));
                }
                let named_id = records::classify(&r.path).and_then(|p| match p {
                    RelationPath::CounterObservation { observation, .. } => Some(observation),
                    _ => None,
                });
                if named_id.map(|i| i.to_string()) != id_field(&r.new, "id") {
                    problems.push(format!(
                        "contradict: {}: the record's id is not its file name",
                        r.path
                    ));
                }
            }
            for id in [lesson, by] {
                if !exists(store, info, *id)? {
                    problems.push(format!("contradict: {id} is not in the pool"));
                }
            }
        }
        Event::Relate {
            lesson, targets, ..
        } => {
            for r in records.iter().filter(|r| r.kind == PathKind::Related) {
                if id_field(&r.new, "lesson_id") != Some(lesson.to_string()) {
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
            if !exists(store, info, *lesson)? {
                problems.push(format!("relate: {lesson} is not in the pool"));
            }
        }
        Event::Rejudge {
            lesson,
            refuted,
            ruling,
            model,
            ..
        } => problems.extend(check_rejudge(
            store, info, *lesson, *refuted, ruling, model, records,
        )?),
        _ => {}
    }
    Ok(problems)
}

/// A `judge` on a pool. Refuted: a failed ruling moves the entry
/// `active → refuted` (the lifecycle table's `judge` move) and changes
/// nothing else. Upheld: a passed ruling adds `upheld/…/<N>.json` whose
/// record names the lesson, says `N`, lists exactly the counter-observations
/// the commit's tree holds against it (so `N` is their number), and carries
/// the ruling the trailers carry; the entry stays active. Either way the
/// lesson has counter-observations: the jury judges a pool entry again only
/// on counter-evidence.
fn check_rejudge(
    store: &Store,
    info: &CommitInfo,
    lesson: Id,
    refuted: bool,
    ruling: &crate::event::Ruling,
    model: &Option<String>,
    records: &[Record],
) -> Result<Vec<String>, LoreError> {
    let mut problems = Vec::new();
    let mut observed: Vec<String> = store
        .paths_at(info.id, &records::counter_observations_dir(lesson))?
        .into_iter()
        .filter_map(|(path, _)| match records::classify(&path) {
            Some(RelationPath::CounterObservation { observation, .. }) => {
                Some(observation.to_string())
            }
            _ => None,
        })
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
        if let Some(r) = records
            .iter()
            .find(|r| r.kind == PathKind::Lesson && r.id == Some(lesson))
        {
            let (from, to) = (status(&r.old), status(&r.new));
            match (from, to) {
                (Some(f), Some(t))
                    if lifecycle::legal_lesson(crate::trailers::Action::Judge, f, t)
                        && t == LessonStatus::Refuted => {}
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
    let entry = store.read_in_tree(info.tree, &layout::lesson_path(lesson))?;
    let entry_status = entry
        .and_then(|b| serde_json::from_slice::<Value>(&b).ok())
        .and_then(|v| Some(v.get("status")?.as_str()?.to_owned()));
    if entry_status.as_deref() != Some(LessonStatus::Active.as_str()) {
        problems.push(format!(
            "judge: only an active lesson can be upheld; {lesson} is {}",
            entry_status.as_deref().unwrap_or("not in the pool")
        ));
    }
    for r in records.iter().filter(|r| r.kind == PathKind::Upheld) {
        let Some(v) = &r.new else { continue };
        if id_field(&r.new, "lesson_id") != Some(lesson.to_string()) {
            problems.push(format!(
                "judge: {}: lesson_id is not Lore-Lesson {lesson}",
                r.path
            ));
        }
        let count = records::classify(&r.path).and_then(|p| match p {
            RelationPath::Upheld { count, .. } => Some(count),
            _ => None,
        });
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
        let verdict = v.get("verdict");
        let field = |k: &str| verdict.and_then(|d| d.get(k)).cloned();
        let agrees = field("reason").and_then(|x| x.as_str().map(str::to_owned))
            == Some(ruling.reason.clone())
            && field("rubric_id").and_then(|x| x.as_str().map(str::to_owned)) == ruling.rubric
            && field("gate_policy").and_then(|x| x.as_str().map(str::to_owned)) == ruling.gate
            && field("aggregate_score").and_then(|x| x.as_f64()) == ruling.score
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
fn check_absorbed<'a>(
    lesson: Id,
    sources: &[Id],
    r: &Record,
    entry: &dyn Fn(Id) -> Option<&'a Record>,
) -> Vec<String> {
    let mut problems = Vec::new();
    let (Some(old), Some(new)) = (&r.old, &r.new) else {
        return problems;
    };
    if status(&r.old) != Some(LessonStatus::Active) || status(&r.new) != Some(LessonStatus::Active)
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
            if let Some(src) = entry(*s).and_then(|e| e.old.as_ref()) {
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
