//! Verification anchors: for each lore branch, the last tip whose whole
//! history verified, kept as a ref of its own (`refs/lore/verified/<branch>`).
//!
//! An anchor is what "never build on history that does not verify" and
//! "history never silently moves backwards" are measured against: commits
//! since the anchor are the ones not verified yet, and a tip that does not
//! descend from its anchor is a rewrite. Anchors live in the repository, not
//! in the index cache, so deleting the cache forgets nothing; their moves
//! are in the reflog. The store only reads and moves them; deciding what
//! verifies is the audit's.

use gix::ObjectId;

use super::layout::Branch;
use super::tx::{Expect, SwapError};
use super::{GixContext, Store, StoreError};

/// The full name of `branch`'s anchor.
pub fn anchor_name(branch: Branch) -> String {
    format!("refs/lore/verified/{}", branch.name())
}

impl Store {
    /// The last verified tip of `branch`, if any.
    pub fn anchor(&self, branch: Branch) -> Result<Option<ObjectId>, StoreError> {
        self.ref_tip(&anchor_name(branch))
    }

    /// Moves `branch`'s anchor from `expected` to `new`. `false` when it was
    /// not at `expected` (another process moved it first; never an error).
    pub fn advance_anchor(
        &self,
        branch: Branch,
        expected: Option<ObjectId>,
        new: ObjectId,
        now: jiff::Timestamp,
    ) -> Result<bool, StoreError> {
        match self.move_ref(
            &anchor_name(branch),
            Expect::Is(expected),
            new,
            &self.signature_at(now),
        ) {
            Ok(()) => Ok(true),
            Err(SwapError::Lost) => Ok(false),
            Err(SwapError::Other(e)) => Err(e),
        }
    }

    /// Sets `branch`'s anchor to `new` whatever it was: a rewrite accepted.
    pub fn reset_anchor(
        &self,
        branch: Branch,
        new: ObjectId,
        now: jiff::Timestamp,
    ) -> Result<(), StoreError> {
        match self.move_ref(
            &anchor_name(branch),
            Expect::Any,
            new,
            &self.signature_at(now),
        ) {
            Ok(()) => Ok(()),
            Err(SwapError::Lost) => Err(StoreError::Contended {
                branch: anchor_name(branch),
                attempts: 1,
            }),
            Err(SwapError::Other(e)) => Err(e),
        }
    }

    /// Removes `branch`'s anchor: the branch itself is gone, and that was
    /// accepted.
    pub fn drop_anchor(&self, branch: Branch) -> Result<(), StoreError> {
        let name = anchor_name(branch);
        let Some(r) = self
            .repo()
            .try_find_reference(name.as_str())
            .ctx(|| format!("reading {name}"))?
        else {
            return Ok(());
        };
        r.delete().ctx(|| format!("deleting {name}"))
    }

    /// The repository's identity at `now`, for reflog entries.
    pub(crate) fn signature_at(&self, now: jiff::Timestamp) -> gix::actor::Signature {
        let ident = self.identity();
        gix::actor::Signature {
            name: ident.name.into(),
            email: ident.email.into(),
            time: gix::date::Time::new(now.as_second(), 0),
        }
    }
}
