//! Promote: an approved lesson becomes a Lesson v2 entry on the pool of its
//! visibility; a rejected one is only stamped. The pool entry is written
//! first and the ledger stamp last, so a crash in between is finished by
//! running it again; running it again after it finished is a no-op.
//!
//! A pool's first commit is a `config` commit that names who may sign it
//! (`.lore/allowed_signers`, the repository's own signers); every
//! `promote` commit after it adds exactly one entry and nothing else.

use serde_json::Value;

use super::ledger::transition;
use super::{Lore, LoreError};
use crate::event::{ConfigTopic, Event};
use crate::model::{canonical_json, Id, Lesson, ProposalStatus, Visibility};
use crate::review::{self, NoOp, Transition};
use crate::schema::{self, SchemaKind};
use crate::store::{layout, Branch, Change, CommitSpec, StoreError};

/// What promoting a lesson gave.
pub type Promoted = Result<Transition, LoreError>;

/// The pool a visibility promotes into.
pub fn pool_of(v: Visibility) -> Branch {
    Branch::Pool(v.source())
}

/// `promote ID`. See the module documentation.
pub fn promote(lore: &mut Lore, id: Id) -> Result<Transition, LoreError> {
    let p = super::query::proposal(lore, id)?;
    if p.promoted_at.is_some() {
        return Ok(Transition::Unchanged(NoOp::AlreadyPromoted { id }));
    }
    let now = lore.env.now;
    let approved = p.status == ProposalStatus::Approved;
    if approved {
        // Every check that can refuse comes before the author secret may be
        // created: a refusal writes nothing. The entry is built and checked
        // with a placeholder key first for the same reason.
        let allowed = super::signers::initial_signers(lore)?;
        let mut lesson = review::build_lesson(&p, &"0".repeat(32), now)?;
        check_lesson(&lesson)?;
        let visibility = lesson.visibility;
        lesson.author_key = review::author_key(&author_secret(lore)?, visibility)?;
        lore.transact(pool_of(visibility), |tx| {
            let path = layout::lesson_path(id);
            if tx.read(&path)?.is_some() {
                return Ok(()); // written by an earlier, interrupted promote
            }
            if tx.base().is_none() {
                tx.commit(CommitSpec::new(
                    &format!("config: signers of {}", pool_of(visibility)),
                    None,
                    Event::Config {
                        topic: ConfigTopic::Signers,
                    },
                    vec![Change::Put {
                        path: layout::POOL_ALLOWED_SIGNERS.into(),
                        bytes: allowed.clone().into_bytes(),
                    }],
                )?)?;
            }
            tx.commit(CommitSpec::new(
                &format!("promote {id} into {}", pool_of(visibility)),
                None,
                Event::Promote {
                    lesson: id,
                    artifact: p.artifact_id,
                    visibility,
                    pool: visibility.source(),
                },
                vec![Change::Put {
                    path,
                    bytes: canonical_json(&lesson),
                }],
            )?)?;
            Ok(())
        })?;
    }
    let pool = p.visibility.filter(|_| approved).map(|v| v.source());
    transition(
        lore,
        id,
        |p| Ok(review::mark_promoted(p, now)?),
        |step, after| Event::Stamp {
            step,
            visibility: after.visibility,
            pool,
        },
        |p| match pool {
            Some(src) => format!("promote {}: approved, now in pool/{src}", p.id),
            None => format!("promote {}: {}, kept out of the pools", p.id, p.status),
        },
    )
}

/// Lessons the jury decided that were never stamped promoted: a `judge`
/// interrupted between its verdict and its promote. In id order (oldest
/// first only to within about 17 minutes: [`crate::model::Id::new_lesson`]).
pub fn unpromoted(lore: &Lore) -> Result<Vec<Id>, LoreError> {
    let index = crate::store::Index::load(&lore.store)?;
    Ok(index
        .lessons()
        .into_iter()
        .filter(|(_, e)| {
            matches!(
                e.status,
                ProposalStatus::Approved | ProposalStatus::Rejected
            ) && !e.promoted
        })
        .map(|(id, _)| id)
        .collect())
}

/// `promote --all`: finishes every interrupted promote. `each` hears about
/// every lesson as it is done; a lesson that fails to promote does not stop
/// the others.
pub fn promote_all(
    lore: &mut Lore,
    each: &mut dyn FnMut(Id, &Promoted),
) -> Result<Vec<(Id, Promoted)>, LoreError> {
    let mut out = Vec::new();
    for id in unpromoted(lore)? {
        let done = promote(lore, id);
        each(id, &done);
        out.push((id, done));
    }
    Ok(out)
}

/// A pool entry must be valid against the published schema (a private entry
/// carries `consensus.judges` 0 by design, which only that schema minimum
/// refuses) and agree with itself (`agreed <= judges`).
fn check_lesson(lesson: &Lesson) -> Result<(), LoreError> {
    let bad = |why: String| LoreError::BadPoolEntry { id: lesson.id, why };
    let mut v = serde_json::to_value(lesson).expect("lessons serialise");
    if lesson.visibility == Visibility::Private {
        v["consensus"]["judges"] = Value::from(lesson.consensus.judges.max(1));
    }
    if let Err(violations) = schema::validate(SchemaKind::Lesson, &v) {
        let text: Vec<String> = violations.iter().take(3).map(|x| x.to_string()).collect();
        return Err(bad(text.join("; ")));
    }
    if lesson.consensus.agreed > lesson.consensus.judges {
        return Err(bad("consensus.agreed exceeds judges".into()));
    }
    Ok(())
}

/// The author secret `author_key` is derived from: created on first use
/// (0600, never overwritten — a concurrent creator's secret wins), then only
/// ever read. A malformed secret is refused, never replaced.
fn author_secret(lore: &mut Lore) -> Result<String, LoreError> {
    let path = lore.store.git_dir().join(super::init::AUTHOR_SECRET_PATH);
    if !path.exists() {
        let mut random = [0u8; 32];
        rand::RngCore::fill_bytes(lore.rng(), &mut random);
        let text = format!("{}\n", review::secret_from_random(random));
        match lore.store.write_private_file(
            super::init::AUTHOR_SECRET_PATH,
            text.as_bytes(),
            0o600,
            true,
        ) {
            Ok(_) => {}
            Err(StoreError::Io { source, .. })
                if source.kind() == std::io::ErrorKind::AlreadyExists => {}
            Err(e) => return Err(e.into()),
        }
    }
    let bytes = std::fs::read(&path).map_err(|source| LoreError::File {
        what: "cannot read the author secret",
        path: path.clone(),
        source,
    })?;
    review::parse_secret(&bytes).map_err(|e| LoreError::invalid(path.display().to_string(), e))
}
