//! Ranges of commits: [`check_commits`] runs each commit's own checks
//! (`commit.rs`) on every core and then decides, oldest first, whether each
//! merge's parents are trusted; [`verify`] picks the commits of a scope;
//! [`standing`] checks the commits since a branch's anchor
//! ([`crate::store::anchor`]) and moves the anchor up when they verify.

use std::collections::HashMap;

use gix::ObjectId;

use super::commit::{check_own, Own};
use super::policy::Policy;
use crate::ops::{Env, Lore, LoreError};
use crate::store::{Branch, Store};

/// One thing wrong with one commit.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Problem {
    pub commit: String,
    pub branch: String,
    pub problem: String,
}

/// Where a branch stands against its anchor.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Standing {
    /// Every commit verified (or the branch does not exist).
    Verified,
    /// Commits since the anchor that do not verify.
    Unverified { problems: Vec<Problem> },
    /// The tip does not descend from the last verified tip.
    Rewritten {
        from: ObjectId,
        to: Option<ObjectId>,
        /// Commits of the old history the new one does not have.
        dropped: usize,
    },
}

/// Works out where `branch` stands when its tip is `tip`: verifies the
/// commits since the anchor and, when they are good, moves the anchor up.
pub(crate) fn standing(
    store: &Store,
    env: &Env,
    branch: Branch,
    tip: Option<ObjectId>,
) -> Result<Standing, LoreError> {
    let anchor = store.anchor(branch)?;
    let Some(tip) = tip else {
        return Ok(match anchor {
            None => Standing::Verified,
            Some(from) => Standing::Rewritten {
                from,
                to: None,
                dropped: store.ancestors(from)?.len(),
            },
        });
    };
    if anchor == Some(tip) {
        return Ok(Standing::Verified);
    }
    let Some(new) = store.walk_since(tip, anchor, |id, _| id)? else {
        let from = anchor.expect("a rewrite has an anchor");
        return Ok(Standing::Rewritten {
            from,
            to: Some(tip),
            dropped: store.range(from, &[tip])?.len(),
        });
    };
    let newest_first: Vec<(Branch, ObjectId)> =
        new.into_iter().rev().map(|c| (branch, c)).collect();
    let policy = Policy::local(store, env)?;
    let problems = check_commits(store, &policy, &newest_first)?;
    if !problems.is_empty() {
        return Ok(Standing::Unverified { problems });
    }
    store.advance_anchor(branch, anchor, tip, env.now)?;
    Ok(Standing::Verified)
}

/// Which commits `verify` checks.
#[derive(Clone, Debug)]
pub enum Scope {
    /// Every commit of every lore branch.
    All,
    /// A revision and its ancestors.
    Rev(String),
    /// `A..B`: commits reachable from `B` but not from `A`.
    Range(String, String),
}

/// What `verify` found.
#[derive(Clone, Debug)]
pub struct Verified {
    /// How many commits were checked.
    pub commits: usize,
    /// Everything wrong; empty when history is clean.
    pub problems: Vec<Problem>,
}

/// Checks the commits of `scope`. An empty list of problems means the
/// history is clean.
pub fn verify(lore: &Lore, scope: &Scope) -> Result<Verified, LoreError> {
    let all = lore.store.all_commits()?;
    let branch_of: HashMap<ObjectId, Branch> = all.iter().map(|(b, c)| (*c, *b)).collect();
    let bad_rev = |rev: &str, e: crate::store::StoreError| {
        LoreError::invalid(format!("bad revision {rev:?}"), e)
    };
    let ids = match scope {
        Scope::All => None,
        Scope::Rev(r) => {
            let tip = lore.store.resolve(r).map_err(|e| bad_rev(r, e))?;
            Some(lore.store.ancestors(tip)?)
        }
        Scope::Range(a, b) => {
            let from = lore.store.resolve(a).map_err(|e| bad_rev(a, e))?;
            let to = lore.store.resolve(b).map_err(|e| bad_rev(b, e))?;
            Some(lore.store.range(to, &[from])?)
        }
    };
    let list: Vec<(Branch, ObjectId)> = match ids {
        Some(ids) => ids
            .into_iter()
            .map(|c| (branch_of.get(&c).copied().unwrap_or(Branch::Ledger), c))
            .collect(),
        None => all,
    };
    let policy = Policy::local(&lore.store, &lore.env)?;
    let mut problems = check_commits(&lore.store, &policy, &list)?;
    if let Scope::All = scope {
        // History that moved backwards, and anchors to bring up to date.
        for &branch in Branch::ALL {
            let tip = lore.store.tip(branch)?;
            match standing(&lore.store, &lore.env, branch, tip)? {
                Standing::Rewritten { from, to, dropped } => problems.push(Problem {
                    commit: to.map(|t| t.to_string()).unwrap_or_default(),
                    branch: branch.to_string(),
                    problem: format!(
                        "{branch} moved from {} to {}, {dropped} commits dropped (accept it with `git lore index --accept-rewrite` if it was intended)",
                        crate::ops::short(&from),
                        to.as_ref().map(crate::ops::short).unwrap_or_else(|| "nothing".into())
                    ),
                }),
                // Unverified commits are in `problems` already.
                Standing::Unverified { .. } | Standing::Verified => {}
            }
        }
    }
    Ok(Verified {
        commits: list.len(),
        problems,
    })
}

/// Below this many commits the checks run on one thread.
const PARALLEL_FROM: usize = 256;

/// Checks `commits` (newest first, each with the branch it is on): the
/// signature, the event against what the commit changed, every record
/// written. A merge's parent that is not in the list counts as trusted: it
/// was checked before.
///
/// Each commit's own checks are independent, so they run on every core
/// (each thread with its own repository handle and signer cache); whether
/// a merge's parents are trusted is then decided oldest first.
pub(crate) fn check_commits(
    store: &Store,
    policy: &Policy,
    commits: &[(Branch, ObjectId)],
) -> Result<Vec<Problem>, LoreError> {
    // Oldest first, so a merge's parents are judged before the merge.
    let oldest_first: Vec<(Branch, ObjectId)> = commits.iter().rev().copied().collect();
    let threads = crate::ops::threads();
    let own: Vec<Own> = if threads == 1 || oldest_first.len() < PARALLEL_FROM {
        check_own(store, policy, &oldest_first)?
    } else {
        let chunk = oldest_first.len().div_ceil(threads);
        let results: Vec<Result<Vec<Own>, LoreError>> = std::thread::scope(|scope| {
            let handles: Vec<_> = oldest_first
                .chunks(chunk)
                .map(|part| {
                    let local = store.handle();
                    scope.spawn(move || check_own(&local, policy, part))
                })
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().expect("a verification thread panicked"))
                .collect()
        });
        let mut all = Vec::with_capacity(oldest_first.len());
        for r in results {
            all.extend(r?);
        }
        all
    };
    let mut problems = Vec::new();
    let mut trusted: HashMap<ObjectId, bool> = HashMap::new();
    for o in own {
        let mut found = o.found;
        let good = match o.merge_ok {
            None => o.signed,
            Some(ok) => {
                let parents_trusted = o.parents.iter().all(|p| trusted.get(p) != Some(&false));
                let good = ok && parents_trusted;
                if !good && found.is_empty() {
                    found.push(if !parents_trusted {
                        "merge commit merges a commit that does not verify".into()
                    } else if o.signed {
                        "merge commit adds changes of its own: only a pure merge, or a sync merge that resolves entries both sides changed, is accepted".into()
                    } else {
                        "merge commit is not signed by an allowed signer and is not a pure merge of trusted parents".into()
                    });
                }
                good
            }
        };
        trusted.insert(o.id, good && found.is_empty());
        problems.extend(found.into_iter().map(|p| Problem {
            commit: o.id.to_string(),
            branch: o.branch.to_string(),
            problem: p,
        }));
    }
    Ok(problems)
}
