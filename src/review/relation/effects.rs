//! The effects of a valid relation verdict, planned as data before anything
//! is written: one [`Effect`] per future commit, each with its file changes
//! as canonical JSON bytes.
//!
//! Planning is all-or-nothing. Every target is resolved against the given
//! pool snapshot (it exists and is live), every resulting record is built and
//! checked (lesson entries and counter-observations against their published
//! schemas, surfaces and the judge name as one-line trailer values, every
//! status change against the lifecycle table), and only when every effect
//! resolves is the plan returned. Any failure returns an
//! error and no effect at all, so nothing is applied.
//!
//! What each decision does:
//!
//! | decision | effects (in the judge's order) | `Lore-Lesson` | `Lore-Target` |
//! |---|---|---|---|
//! | `supersede` | one per target: the target's entry becomes `superseded`, `superseded_by` = the candidate | the target | the candidate |
//! | `merge` | one for the decision: the candidate absorbs the targets' `artifact_ids` and `session_ids` (union: its own first, then each target's in order, each once) and every target becomes `superseded` by it | the candidate | the targets |
//! | `refine` | one for the decision: a relation record per target; both sides stay active | the candidate | the targets |
//! | `contradict` | one per target: a counter-observation against the target; no status change | the target | the candidate |
//! | `skip` | none of its own | | |
//! | `abstain` | nothing | | |
//!
//! A batch with at least one decision other than `abstain` ends with one
//! `relate` effect: the judgment record `related/<X>/<Y>/<Z>/<candidate>.json`,
//! which marks the candidate as related so it is not asked again. For a
//! batch of `skip` decisions it is the only effect. A batch that only
//! abstains plans nothing, and the candidate stays queued.
//!
//! Effects apply in order; each sees the pool as the previous ones left it
//! (two `merge` decisions each extend the candidate's evidence).
//!
//! A counter-observation is built from the candidate's evidence: its
//! `artifact_ids`, its first session id, its `observed_at`, and the first 12
//! characters of its `author_key` (the contract's counter-observation key is
//! 12 hex characters; the lesson's is 32). Its summary names the candidate,
//! which the contract has no field for. Its id is a ULID whose time is the
//! planning time and whose random part is the first 80 bits of
//! sha256("git-lore counter-observation\0" candidate "\0" target), so a plan
//! is a pure function of its inputs.
//!
//! This module plans; it never writes, signs or commits.

use std::collections::BTreeMap;
use std::num::NonZeroUsize;

use serde::Serialize;
use sha2::{Digest, Sha256};

use crate::event::lifecycle::legal_lesson;
use crate::model::{canonical_json, iso, Id, Lesson, LessonStatus};
use crate::schema::{self, clip, SchemaKind};
use crate::trailers::Action;

use super::records::{
    counter_observation_path, lesson_path, related_path, relation_path, CounterObservation,
    LinkKind, RecordedDecision, RelatedRecord, RelationRecord, COUNTER_OBSERVATION_SCHEMA_VERSION,
    RECORD_SCHEMA_VERSION,
};
use super::verdict::{Decision, DecisionKind, ValidBatch};

/// The longest surface a trailer carries, in characters.
pub const MAX_SURFACE_CHARS: usize = 300;

/// How many counter-observations send a lesson back to the jury by default.
pub const DEFAULT_CONTRADICTION_THRESHOLD: NonZeroUsize = NonZeroUsize::new(2).unwrap();

/// Whether a file is new or replaces an existing one.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ChangeKind {
    /// The path must not exist yet; the store refuses the plan if it does.
    Add,
    /// The path exists (a lesson entry of the snapshot) and is replaced.
    Modify,
}

/// One file written by an effect.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct FileChange {
    pub path: String,
    pub kind: ChangeKind,
    /// Canonical JSON ([`canonical_json`]).
    pub bytes: Vec<u8>,
}

/// A lesson status change made by an effect (only `active → superseded`,
/// as the lifecycle table allows for `supersede` and `merge`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Transition {
    pub lesson: Id,
    pub from: LessonStatus,
    pub to: LessonStatus,
}

/// One future commit.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Effect {
    /// `supersede`, `merge`, `refine`, `contradict` or `relate`
    /// (`Lore-Action`).
    pub action: Action,
    /// The lesson the commit is about (`Lore-Lesson`).
    pub lesson: Id,
    /// The other side (`Lore-Target`, in order).
    pub targets: Vec<Id>,
    /// The decision's surface, trimmed: a one-line trailer value. `None` for
    /// `relate`.
    pub surface: Option<String>,
    /// Status changes this commit makes.
    pub transitions: Vec<Transition>,
    /// The commit subject.
    pub subject: String,
    pub changes: Vec<FileChange>,
}

/// What planning needs besides the verdict and the pool.
#[derive(Clone, Copy, Debug)]
pub struct PlanContext<'a> {
    /// The time the verdict is applied (records' timestamps, ULID time).
    pub now: jiff::Timestamp,
    /// The relation judge: `offline` or a model name (`Lore-Model`).
    pub model: &'a str,
}

/// Why a verdict's effects cannot be planned. Nothing is applied.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EffectError {
    /// The pool snapshot holds one id twice.
    #[error("the pool snapshot holds lesson {0} twice")]
    DuplicateLesson(Id),
    /// The candidate is not in the pool snapshot.
    #[error("lesson {0} is not in the pool")]
    CandidateMissing(Id),
    /// The candidate is no longer active.
    #[error("lesson {id} is not active; its status is: {status}")]
    CandidateNotLive { id: Id, status: &'static str },
    /// A target is not in the pool snapshot.
    #[error("target {target} of {decision} is not in the pool")]
    TargetMissing { target: Id, decision: &'static str },
    /// A target is no longer active.
    #[error("target {target} of {decision} is not active; its status is: {status}")]
    TargetNotLive {
        target: Id,
        decision: &'static str,
        status: &'static str,
    },
    /// A surface that cannot be a one-line trailer value.
    #[error("surface {surface:?} of {decision} cannot be a trailer: {why}")]
    BadSurface {
        surface: String,
        decision: &'static str,
        why: &'static str,
    },
    /// A judge name that cannot be a one-line trailer value.
    #[error("judge model name {0:?} cannot be a trailer: it must be one non-empty line without surrounding white space")]
    BadModel(String),
    /// A time before 1970 or past the ULID range.
    #[error("the time {0} cannot be a ULID time")]
    BadClock(String),
    /// A status change the lifecycle does not allow.
    #[error("lesson {lesson} cannot be moved by {action} from status: {from}")]
    IllegalTransition {
        lesson: Id,
        action: &'static str,
        from: &'static str,
    },
    /// A resulting record fails its schema.
    #[error("the record planned for {path} is invalid: {why}")]
    InvalidRecord { path: String, why: String },
}

/// Plans the effects of `batch` over `pool`, a snapshot of the candidate's
/// pool (see the module doc). An all-`abstain` batch plans nothing.
pub fn plan_effects(
    batch: &ValidBatch,
    pool: &[Lesson],
    ctx: &PlanContext<'_>,
) -> Result<Vec<Effect>, EffectError> {
    if !is_trailer_value(ctx.model) {
        return Err(EffectError::BadModel(clip(ctx.model, 80)));
    }
    let now_ms = u64::try_from(ctx.now.as_millisecond())
        .ok()
        .filter(|ms| *ms < 1 << 48)
        .ok_or_else(|| EffectError::BadClock(ctx.now.to_string()))?;
    let stamp = iso(ctx.now);

    let mut state: BTreeMap<Id, Lesson> = BTreeMap::new();
    for l in pool {
        if state.insert(l.id, l.clone()).is_some() {
            return Err(EffectError::DuplicateLesson(l.id));
        }
    }
    let cand_id = batch.candidate();
    let cand = state
        .get(&cand_id)
        .ok_or(EffectError::CandidateMissing(cand_id))?;
    if cand.status != LessonStatus::Active {
        return Err(EffectError::CandidateNotLive {
            id: cand_id,
            status: cand.status.as_str(),
        });
    }

    let mut effects = Vec::new();
    for d in batch.decisions() {
        if !d.kind().is_relation() {
            continue;
        }
        let surface = surface_value(d)?;
        for &t in d.targets() {
            live_target(&state, t, d.kind())?;
        }
        match d.kind() {
            DecisionKind::Supersede => {
                for &t in d.targets() {
                    effects.push(supersede(&mut state, cand_id, t, &surface)?);
                }
            }
            DecisionKind::Merge => effects.push(merge(&mut state, cand_id, d, &surface)?),
            DecisionKind::Refine => effects.push(refine(cand_id, d, &surface, ctx.model, &stamp)?),
            DecisionKind::Contradict => {
                for &t in d.targets() {
                    effects.push(contradict(&state, cand_id, t, d, &surface, now_ms)?);
                }
            }
            DecisionKind::Skip | DecisionKind::Abstain => {}
        }
    }

    if !batch.is_all_abstain() {
        effects.push(relate(batch, ctx.model, &stamp)?);
    }
    Ok(effects)
}

/// Whether `s` can be a trailer value: one non-empty line, no control
/// characters, no surrounding white space.
fn is_trailer_value(s: &str) -> bool {
    !s.is_empty() && s.trim() == s && !s.chars().any(char::is_control)
}

/// The decision's surface as a trailer value: trimmed, one line, bounded.
fn surface_value(d: &Decision) -> Result<String, EffectError> {
    let trimmed = d.surface().trim();
    let bad = |why| EffectError::BadSurface {
        surface: clip(d.surface(), 80),
        decision: d.kind().as_str(),
        why,
    };
    if trimmed.chars().any(char::is_control) {
        return Err(bad("it contains a line break or control character"));
    }
    if trimmed.chars().count() > MAX_SURFACE_CHARS {
        return Err(bad("it is longer than 300 characters"));
    }
    if trimmed.is_empty() {
        return Err(bad("it is blank"));
    }
    Ok(trimmed.to_owned())
}

fn live_target(state: &BTreeMap<Id, Lesson>, t: Id, kind: DecisionKind) -> Result<(), EffectError> {
    let lesson = state.get(&t).ok_or(EffectError::TargetMissing {
        target: t,
        decision: kind.as_str(),
    })?;
    if lesson.status != LessonStatus::Active {
        return Err(EffectError::TargetNotLive {
            target: t,
            decision: kind.as_str(),
            status: lesson.status.as_str(),
        });
    }
    Ok(())
}

/// Checks a record against its published schema and returns its bytes.
fn checked<T: Serialize>(path: &str, kind: SchemaKind, record: &T) -> Result<Vec<u8>, EffectError> {
    let invalid = |why: String| EffectError::InvalidRecord {
        path: path.to_owned(),
        why: clip(&why, 300),
    };
    let value = serde_json::to_value(record).expect("records serialise");
    schema::validate(kind, &value).map_err(|violations| {
        invalid(
            violations
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join("; "),
        )
    })?;
    Ok(canonical_json(&value))
}

/// Marks `target` superseded by `by` in `state`; returns its new bytes.
fn retire(
    state: &mut BTreeMap<Id, Lesson>,
    target: Id,
    by: Id,
    action: Action,
) -> Result<FileChange, EffectError> {
    let Some(lesson) = state.get_mut(&target) else {
        return Err(EffectError::TargetMissing {
            target,
            decision: action.as_str(),
        });
    };
    if !legal_lesson(action, lesson.status, LessonStatus::Superseded) {
        return Err(EffectError::IllegalTransition {
            lesson: target,
            action: action.as_str(),
            from: lesson.status.as_str(),
        });
    }
    lesson.status = LessonStatus::Superseded;
    lesson.superseded_by = Some(by);
    let path = lesson_path(target);
    let bytes = checked(&path, SchemaKind::Lesson, lesson)?;
    Ok(FileChange {
        path,
        kind: ChangeKind::Modify,
        bytes,
    })
}

fn superseded(lesson: Id) -> Transition {
    Transition {
        lesson,
        from: LessonStatus::Active,
        to: LessonStatus::Superseded,
    }
}

fn supersede(
    state: &mut BTreeMap<Id, Lesson>,
    cand: Id,
    target: Id,
    surface: &str,
) -> Result<Effect, EffectError> {
    let change = retire(state, target, cand, Action::Supersede)?;
    Ok(Effect {
        action: Action::Supersede,
        lesson: target,
        targets: vec![cand],
        surface: Some(surface.to_owned()),
        transitions: vec![superseded(target)],
        subject: format!("supersede {target}: superseded by {cand}"),
        changes: vec![change],
    })
}

fn merge(
    state: &mut BTreeMap<Id, Lesson>,
    cand: Id,
    d: &Decision,
    surface: &str,
) -> Result<Effect, EffectError> {
    let mut merged = state
        .get(&cand)
        .cloned()
        .ok_or(EffectError::CandidateMissing(cand))?;
    for t in d.targets() {
        let Some(source) = state.get(t) else {
            return Err(EffectError::TargetMissing {
                target: *t,
                decision: "merge",
            });
        };
        for a in &source.evidence.artifact_ids {
            if !merged.evidence.artifact_ids.contains(a) {
                merged.evidence.artifact_ids.push(*a);
            }
        }
        for s in &source.evidence.session_ids {
            if !merged.evidence.session_ids.contains(s) {
                merged.evidence.session_ids.push(s.clone());
            }
        }
    }
    let path = lesson_path(cand);
    let bytes = checked(&path, SchemaKind::Lesson, &merged)?;
    state.insert(cand, merged);
    let mut changes = vec![FileChange {
        path,
        kind: ChangeKind::Modify,
        bytes,
    }];
    for &t in d.targets() {
        changes.push(retire(state, t, cand, Action::Merge)?);
    }
    let n = d.targets().len();
    Ok(Effect {
        action: Action::Merge,
        lesson: cand,
        targets: d.targets().to_vec(),
        surface: Some(surface.to_owned()),
        transitions: d.targets().iter().map(|&t| superseded(t)).collect(),
        subject: format!(
            "merge {cand}: absorbs {n} lesson{}",
            if n == 1 { "" } else { "s" }
        ),
        changes,
    })
}

fn refine(
    cand: Id,
    d: &Decision,
    surface: &str,
    model: &str,
    stamp: &str,
) -> Result<Effect, EffectError> {
    let changes = d
        .targets()
        .iter()
        .map(|&t| {
            let path = relation_path(cand, t);
            let record = RelationRecord {
                schema_version: RECORD_SCHEMA_VERSION,
                kind: LinkKind::Refine,
                from: cand,
                to: t,
                surface: d.surface().to_owned(),
                rationale: d.rationale().to_owned(),
                confidence: d.confidence().get(),
                model: model.to_owned(),
                decided_at: stamp.to_owned(),
            };
            let bytes = checked(&path, SchemaKind::Relation, &record)?;
            Ok(FileChange {
                path,
                kind: ChangeKind::Add,
                bytes,
            })
        })
        .collect::<Result<Vec<_>, EffectError>>()?;
    Ok(Effect {
        action: Action::Refine,
        lesson: cand,
        targets: d.targets().to_vec(),
        surface: Some(surface.to_owned()),
        transitions: Vec::new(),
        subject: format!("refine {cand}: refines {}", list(d.targets())),
        changes,
    })
}

/// The counter-observation id: planning time plus 80 bits derived from the
/// pair, so the same plan always names the same file.
fn observation_id(now_ms: u64, cand: Id, target: Id) -> Id {
    let mut h = Sha256::new();
    h.update(b"git-lore counter-observation\0");
    h.update(cand.to_string().as_bytes());
    h.update(b"\0");
    h.update(target.to_string().as_bytes());
    let digest = h.finalize();
    let mut bits = [0u8; 16];
    bits[6..].copy_from_slice(&digest[..10]);
    Id::from_parts(now_ms, u128::from_be_bytes(bits))
}

fn contradict(
    state: &BTreeMap<Id, Lesson>,
    cand: Id,
    target: Id,
    d: &Decision,
    surface: &str,
    now_ms: u64,
) -> Result<Effect, EffectError> {
    let source = state
        .get(&cand)
        .ok_or(EffectError::CandidateMissing(cand))?;
    let id = observation_id(now_ms, cand, target);
    let record = CounterObservation {
        id,
        schema_version: COUNTER_OBSERVATION_SCHEMA_VERSION,
        lesson_id: target,
        observed_at: source.evidence.observed_at.clone(),
        artifact_ids: source.evidence.artifact_ids.clone(),
        session_id: source
            .evidence
            .session_ids
            .first()
            .cloned()
            .unwrap_or_default(),
        summary: format!(
            "lesson {cand} contradicts this on {surface}: {}",
            d.rationale().trim()
        ),
        author_key: source.author_key.chars().take(12).collect(),
    };
    let path = counter_observation_path(target, id);
    let bytes = checked(&path, SchemaKind::CounterObservation, &record)?;
    Ok(Effect {
        action: Action::Contradict,
        lesson: target,
        targets: vec![cand],
        surface: Some(surface.to_owned()),
        transitions: Vec::new(),
        subject: format!("contradict {target}: counter-observation from {cand}"),
        changes: vec![FileChange {
            path,
            kind: ChangeKind::Add,
            bytes,
        }],
    })
}

fn relate(batch: &ValidBatch, model: &str, stamp: &str) -> Result<Effect, EffectError> {
    let cand = batch.candidate();
    let record = RelatedRecord {
        schema_version: RECORD_SCHEMA_VERSION,
        lesson_id: cand,
        related_at: stamp.to_owned(),
        model: model.to_owned(),
        corpus_digest: batch.corpus_digest().to_owned(),
        decisions: batch
            .decisions()
            .iter()
            .map(|d| RecordedDecision {
                decision: d.kind(),
                target_ids: d.targets().to_vec(),
                surface: d.surface().to_owned(),
                rationale: d.rationale().to_owned(),
                confidence: d.confidence().get(),
            })
            .collect(),
    };
    let mut kinds: Vec<&str> = Vec::new();
    for d in batch.decisions() {
        if !kinds.contains(&d.kind().as_str()) {
            kinds.push(d.kind().as_str());
        }
    }
    let path = related_path(cand);
    let bytes = checked(&path, SchemaKind::Related, &record)?;
    Ok(Effect {
        action: Action::Relate,
        lesson: cand,
        targets: batch
            .decisions()
            .iter()
            .flat_map(|d| d.targets().iter().copied())
            .collect(),
        surface: None,
        transitions: Vec::new(),
        subject: format!("relate {cand}: {}", kinds.join(", ")),
        changes: vec![FileChange {
            path,
            kind: ChangeKind::Add,
            bytes,
        }],
    })
}

/// Up to three ids, then a count.
fn list(ids: &[Id]) -> String {
    let shown: Vec<String> = ids.iter().take(3).map(Id::to_string).collect();
    match ids.len() {
        0..=3 => shown.join(", "),
        n => format!("{} and {} more", shown.join(", "), n - 3),
    }
}

/// A lesson with the counter-observations recorded against it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Contradiction {
    pub lesson: Id,
    pub status: LessonStatus,
    /// Distinct counter-observations (by id).
    pub count: usize,
    /// Oldest observation first, then by id.
    pub observations: Vec<CounterObservation>,
}

/// Every lesson of `pool` with at least one counter-observation, by lesson
/// id. Observations are counted once per id; observations of lessons not in
/// the pool are ignored.
pub fn contradictions(pool: &[Lesson], observations: &[CounterObservation]) -> Vec<Contradiction> {
    let mut by_lesson: BTreeMap<Id, BTreeMap<Id, &CounterObservation>> = BTreeMap::new();
    for o in observations {
        by_lesson
            .entry(o.lesson_id)
            .or_default()
            .entry(o.id)
            .or_insert(o);
    }
    let mut seen = std::collections::BTreeSet::new();
    let mut out: Vec<Contradiction> = pool
        .iter()
        .filter(|l| seen.insert(l.id))
        .filter_map(|l| {
            let found = by_lesson.get(&l.id)?;
            let mut observations: Vec<CounterObservation> =
                found.values().map(|o| (*o).clone()).collect();
            observations.sort_by(|a, b| a.observed_at.cmp(&b.observed_at).then(a.id.cmp(&b.id)));
            Some(Contradiction {
                lesson: l.id,
                status: l.status,
                count: observations.len(),
                observations,
            })
        })
        .collect();
    out.sort_by_key(|c| c.lesson);
    out
}

/// The active lessons whose counter-observations reached `threshold`: they
/// go back to the jury with this counter-evidence. Only a jury verdict may
/// set `refuted`; superseded, refuted and retracted lessons are not re-judged.
/// `upheld` is, per lesson, the most counter-observations the jury already
/// upheld it against (its upheld records): such a lesson waits again only
/// when more have been recorded since.
pub fn contradictions_past_threshold(
    pool: &[Lesson],
    observations: &[CounterObservation],
    threshold: NonZeroUsize,
    upheld: &BTreeMap<Id, usize>,
) -> Vec<Contradiction> {
    contradictions(pool, observations)
        .into_iter()
        .filter(|c| {
            c.status == LessonStatus::Active
                && c.count >= threshold.get()
                && upheld.get(&c.lesson).is_none_or(|&n| c.count > n)
        })
        .collect()
}

#[cfg(test)]
mod tests;
