//! `git lore retract ID --reason TEXT`: a pool entry is taken back. Its
//! status becomes `retracted` (from active, superseded or refuted) and
//! nothing else changes; nothing is deleted, so the audit trail keeps what
//! was said and when it was withdrawn. Recall never returns a retracted
//! lesson; `publish` carries the retraction to the pool's remote, and
//! `sync` carries it to everyone else.

use super::{Lore, LoreError};
use crate::event::lifecycle;
use crate::event::Event;
use crate::model::{canonical_json, Id, Lesson, LessonStatus, Source};
use crate::store::{layout, Branch, Change, CommitSpec};
use crate::trailers::Action;

/// The longest reason kept, in characters.
pub const MAX_REASON_CHARS: usize = 500;

/// What retracting did in one pool.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Retracted {
    pub pool: Source,
    /// The status the entry had.
    pub from: LessonStatus,
    /// `false`: it was retracted already; nothing was written.
    pub changed: bool,
}

/// Checks a retraction reason: one line of text, not blank, bounded.
pub fn check_reason(reason: &str) -> Result<String, LoreError> {
    let bad = |why: &str| LoreError::Input {
        what: "--reason".into(),
        why: why.into(),
    };
    let r = reason.trim();
    if r.is_empty() {
        return Err(bad("it is blank; say why the lesson is withdrawn"));
    }
    if r.chars().any(char::is_control) {
        return Err(bad(
            "it must be one line of text (no newlines or control characters)",
        ));
    }
    if r.chars().count() > MAX_REASON_CHARS {
        return Err(bad(&format!(
            "it is longer than {MAX_REASON_CHARS} characters"
        )));
    }
    Ok(r.to_owned())
}

/// Retracts lesson `id` in every pool that holds it.
pub fn retract(lore: &mut Lore, id: Id, reason: &str) -> Result<Vec<Retracted>, LoreError> {
    let reason = check_reason(reason)?;
    let path = layout::lesson_path(id);
    let mut out = Vec::new();
    for tier in [Source::Local, Source::Org, Source::Public] {
        let branch = Branch::Pool(tier);
        if lore.store.read(branch, &path)?.is_none() {
            continue;
        }
        let mut done: Option<Retracted> = None;
        lore.transact(branch, |tx| {
            let bytes = tx
                .read(&path)?
                .expect("checked above, and entries are never deleted");
            let mut entry: Lesson =
                serde_json::from_slice(&bytes).map_err(|e| LoreError::BadPoolEntry {
                    id,
                    why: e.to_string(),
                })?;
            let from = entry.status;
            if from == LessonStatus::Retracted {
                done = Some(Retracted {
                    pool: tier,
                    from,
                    changed: false,
                });
                return Ok(());
            }
            if !lifecycle::legal_lesson(Action::Retract, from, LessonStatus::Retracted) {
                return Err(LoreError::Input {
                    what: format!("lesson {id}"),
                    why: format!("a {from} entry cannot be retracted"),
                });
            }
            entry.status = LessonStatus::Retracted;
            tx.commit(CommitSpec::new(
                &format!("retract {id} in pool/{tier}"),
                None,
                Event::Retract {
                    lesson: id,
                    from,
                    pool: tier,
                    reason: reason.clone(),
                },
                vec![Change::Put {
                    path: path.clone(),
                    bytes: canonical_json(&entry),
                }],
            )?)?;
            done = Some(Retracted {
                pool: tier,
                from,
                changed: true,
            });
            Ok(())
        })?;
        out.extend(done);
    }
    if out.is_empty() {
        return Err(LoreError::Input {
            what: format!("lesson {id}"),
            why: "no pool holds it: only promoted lessons can be retracted (`git lore status` lists them)".into(),
        });
    }
    Ok(out)
}
