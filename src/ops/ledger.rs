//! One proposal on the ledger: read as of a transaction's tip, changed by
//! one signed commit. The lifecycle verbs (`confirm`, `pass`, `unconfirm`,
//! the promote stamp) are all this shape.

use super::{Lore, LoreError};
use crate::event::{Event, Step};
use crate::model::{canonical_json, Id, Proposal};
use crate::review::Transition;
use crate::store::{layout, Branch, Change, CommitSpec, StoreError, Tx};

/// The proposal of lesson `id` as of the transaction's tip.
pub(crate) fn read(tx: &Tx<'_>, id: Id) -> Result<Proposal, LoreError> {
    let path = layout::proposal_path(id);
    let bytes = tx.read(&path)?.ok_or(LoreError::NotFound { id })?;
    serde_json::from_slice(&bytes).map_err(|source| {
        StoreError::Unparsable {
            branch: Branch::Ledger.to_string(),
            path,
            source,
            then: "; refusing to change it",
        }
        .into()
    })
}

/// The file change that writes `p`.
pub(crate) fn put(p: &Proposal) -> Change {
    Change::Put {
        path: layout::proposal_path(p.id),
        bytes: canonical_json(p),
    }
}

/// The step from `before` to `after`.
pub(crate) fn step(before: &Proposal, after: &Proposal) -> Step {
    Step {
        lesson: after.id,
        artifact: after.artifact_id,
        from: before.status,
        to: after.status,
    }
}

/// Applies `decide` to lesson `id` as the ledger stands when the commit
/// lands (re-read on a lost race) and commits the result: `event` says
/// what the commit did, `subject` is its first line.
pub(crate) fn transition(
    lore: &mut Lore,
    id: Id,
    decide: impl Fn(&Proposal) -> Result<Transition, LoreError>,
    event: impl Fn(Step, &Proposal) -> Event,
    subject: impl Fn(&Proposal) -> String,
) -> Result<Transition, LoreError> {
    let r = lore.transact(Branch::Ledger, |tx| {
        let before = read(tx, id)?;
        match decide(&before)? {
            Transition::Unchanged(n) => Ok(Transition::Unchanged(n)),
            Transition::Changed(after) => {
                let e = event(step(&before, &after), &after);
                tx.commit(CommitSpec::new(
                    &subject(&after),
                    None,
                    e,
                    vec![put(&after)],
                )?)?;
                Ok(Transition::Changed(after))
            }
        }
    })?;
    Ok(r.value)
}
