//! Never build on history that does not verify, and notice history that
//! moves backwards.
//!
//! Each lore branch has an anchor, the last tip whose whole history
//! verified ([`crate::store::anchor`]). Before a command builds on a branch
//! it verifies the commits since the anchor — incrementally, so usually
//! none — and moves the anchor up; a commit that fails is a refusal (exit 1,
//! nothing written, the problem named). A tip that does not descend from
//! its anchor is a rewrite (`ledger moved from X to Y, N commits dropped`),
//! refused the same way until accepted with `git lore index
//! --accept-rewrite`. Reading commands ask the same question and flag the
//! records that unverified commits touched instead of presenting them as
//! facts.

use std::collections::HashSet;

use gix::ObjectId;

pub use super::audit::Standing;
use super::audit::{self, standing};
use super::{Env, Lore, LoreError};
use crate::model::Id;
use crate::store::layout::{self, RecordPath};
use crate::store::{Branch, Store};

/// One branch's standing.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BranchStanding {
    pub branch: Branch,
    pub standing: Standing,
}

/// For a writer about to build on `tip`: `Ok` only when every commit of the
/// branch verified and the branch did not move backwards.
pub(crate) fn ensure(
    store: &Store,
    env: &Env,
    branch: Branch,
    tip: Option<ObjectId>,
) -> Result<(), LoreError> {
    match standing(store, env, branch, tip)? {
        Standing::Verified => Ok(()),
        Standing::Unverified { problems } => {
            let first = &problems[0];
            Err(LoreError::Untrusted {
                branch,
                commit: first.commit.clone(),
                problem: first.problem.clone(),
                more: problems.len() - 1,
            })
        }
        Standing::Rewritten { from, to, dropped } => Err(LoreError::Rewritten {
            branch,
            from,
            to,
            dropped,
        }),
    }
}

/// Where every lore branch stands, for reading commands.
pub fn review(lore: &Lore) -> Result<Vec<BranchStanding>, LoreError> {
    let mut out = Vec::new();
    for &branch in Branch::ALL {
        let tip = lore.store.tip(branch)?;
        out.push(BranchStanding {
            branch,
            standing: standing(&lore.store, &lore.env, branch, tip)?,
        });
    }
    Ok(out)
}

/// The lessons and artifacts that commits which do not verify touched.
pub fn flagged(lore: &Lore, standings: &[BranchStanding]) -> Result<HashSet<Id>, LoreError> {
    let mut ids = HashSet::new();
    for s in standings {
        let Standing::Unverified { problems } = &s.standing else {
            continue;
        };
        let commits: HashSet<&str> = problems.iter().map(|p| p.commit.as_str()).collect();
        for c in commits {
            let Ok(id) = ObjectId::from_hex(c.as_bytes()) else {
                continue;
            };
            let info = lore.store.commit_info(id)?;
            if let Ok(e) = &info.event {
                ids.extend(e.lesson());
                ids.extend(e.artifact());
            }
            for change in lore.store.changed_paths(&info)? {
                match layout::classify(&change.path) {
                    Some(
                        RecordPath::Proposal(i) | RecordPath::Decline(i) | RecordPath::Lesson(i),
                    ) => {
                        ids.insert(i);
                    }
                    None => {}
                }
            }
        }
    }
    Ok(ids)
}

/// What accepting a rewrite did for one branch.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Accepted {
    pub branch: Branch,
    pub from: ObjectId,
    pub to: Option<ObjectId>,
    pub dropped: usize,
}

/// `git lore index --accept-rewrite`: takes every rewritten branch's new
/// history as the verified one — once the commits it adds verify.
pub fn accept_rewrites(lore: &Lore) -> Result<Vec<Accepted>, LoreError> {
    let mut out = Vec::new();
    for &branch in Branch::ALL {
        let tip = lore.store.tip(branch)?;
        let Standing::Rewritten { from, to, dropped } =
            standing(&lore.store, &lore.env, branch, tip)?
        else {
            continue;
        };
        match to {
            None => lore.store.drop_anchor(branch)?,
            Some(to) => {
                let added: Vec<(Branch, ObjectId)> = lore
                    .store
                    .new_commits(to, &[from])?
                    .into_iter()
                    .map(|c| (branch, c))
                    .collect();
                let policy = audit::Policy::local(&lore.store, &lore.env)?;
                let problems = audit::check_commits(&lore.store, &policy, &added)?;
                if let Some(p) = problems.first() {
                    return Err(LoreError::Untrusted {
                        branch,
                        commit: p.commit.clone(),
                        problem: p.problem.clone(),
                        more: problems.len() - 1,
                    });
                }
                lore.store.reset_anchor(branch, to, lore.env.now)?;
            }
        }
        out.push(Accepted {
            branch,
            from,
            to,
            dropped,
        });
    }
    Ok(out)
}
