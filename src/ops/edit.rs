//! `git lore edit ID`: one signed `edit` commit on the ledger that changes
//! a lesson's words or scope, decided by [`crate::review::edit`] on the
//! proposal as it stands when the commit lands (re-read on a lost race).
//! Its message carries the diff of the record. Never calls a model, never
//! prints; the CLI asks for the new values (flags, JSON, an editor).

use super::ledger::{put, read, step};
use super::{Lore, LoreError};
use crate::event::Event;
use crate::model::{Id, Proposal};
use crate::review::{self, Edit, NoOp, ReviewError, Transition};
use crate::store::{Branch, CommitSpec};

/// What an edit did.
#[derive(Clone, Debug, PartialEq)]
pub enum Edited {
    /// The lesson as written, and which of its parts changed (`claim`,
    /// `rationale`, `resolution`, `stack`, `scope`).
    Changed {
        lesson: Box<Proposal>,
        parts: Vec<&'static str>,
    },
    /// The lesson already said that; nothing was written.
    Unchanged(NoOp),
}

/// Applies `e` to lesson `id` and commits the result; nothing is written
/// when it is refused or changes nothing. `opened`: the lesson as it was
/// when the edit was made from it (an editor's file holds every field):
/// refused when the lesson no longer reads so, so that saving never undoes
/// a change made meanwhile.
pub fn edit(
    lore: &mut Lore,
    id: Id,
    e: &Edit,
    opened: Option<&Proposal>,
) -> Result<Edited, LoreError> {
    let r = lore.transact(Branch::Ledger, |tx| {
        let before = read(tx, id)?;
        if opened.is_some_and(|o| *o != before) {
            return Err(
                ReviewError::from(crate::review::edit::EditError::ChangedMeanwhile { id }).into(),
            );
        }
        match review::edit(&before, e).map_err(ReviewError::from)? {
            Transition::Unchanged(n) => Ok(Edited::Unchanged(n)),
            Transition::Changed(after) => {
                let parts = review::edit::changed(&before.candidate, &after.candidate);
                let subject = format!("edit {id}: {}", parts.join(", "));
                let body = review::edit::diff(&before, &after);
                tx.commit(CommitSpec::new(
                    &subject,
                    Some(&body),
                    Event::Edit {
                        step: step(&before, &after),
                    },
                    vec![put(&after)],
                )?)?;
                Ok(Edited::Changed {
                    lesson: after,
                    parts,
                })
            }
        }
    })?;
    Ok(r.value)
}

/// Lesson `id` as it stands, if it may be edited at all: what the editor
/// is opened on. A judged or passed lesson is refused before anyone types.
pub fn editable(lore: &Lore, id: Id) -> Result<Proposal, LoreError> {
    let p = super::query::proposal(lore, id)?;
    review::edit::editable(&p).map_err(ReviewError::from)?;
    Ok(p)
}

/// The editor git would start for a commit message (`git var
/// GIT_EDITOR`), read in the environment the caller handed in.
pub fn editor(lore: &Lore) -> Result<String, LoreError> {
    Ok(lore.store.editor()?)
}
