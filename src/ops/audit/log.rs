//! `git lore log`: history read back as events, newest first across
//! branches, each with its signature's standing, and the record diffs a
//! commit made; and where a pool entry came from (`git lore show`): the
//! commit that added it, who signed it, and when a sync took it in.

use gix::ObjectId;

use super::policy::{Policy, Trust};
use crate::event::Event;
use crate::model::{Id, Source};
use crate::ops::{Lore, LoreError};
use crate::signing::SignatureStatus;
use crate::store::Branch;
use crate::trailers::TrailerError;

/// One commit, as `git lore log` shows it.
#[derive(Clone, Debug)]
pub struct LogEntry {
    pub commit: ObjectId,
    pub branch: Branch,
    /// Committer time, seconds since the epoch.
    pub time: i64,
    pub subject: String,
    /// What it did, or why its trailers could not be read.
    pub event: Result<Event, TrailerError>,
    pub signature: SignatureStatus,
}

/// What to show in the log.
#[derive(Clone, Copy, Debug)]
pub enum LogFilter {
    All,
    Lesson(Id),
    Artifact(Id),
}

/// The audit trail, newest first.
pub fn log(
    lore: &Lore,
    filter: LogFilter,
    limit: Option<usize>,
) -> Result<Vec<LogEntry>, LoreError> {
    let mut kept = Vec::new();
    for (branch, id) in lore.store.all_commits()? {
        let info = lore.store.commit_info(id)?;
        let e = info.event.as_ref().ok();
        let keep = match filter {
            LogFilter::All => true,
            LogFilter::Lesson(l) => {
                e.is_some_and(|e| e.lesson() == Some(l) || e.entries_changed().contains(&l))
            }
            LogFilter::Artifact(a) => e.is_some_and(|e| e.artifact() == Some(a)),
        };
        if keep {
            kept.push((branch, info));
        }
    }
    // Newest first across branches; a stable sort keeps each branch's own
    // order (children before parents) among commits of the same second.
    kept.sort_by_key(|(_, info)| std::cmp::Reverse(info.time));
    kept.truncate(limit.unwrap_or(usize::MAX));
    let policy = Policy::local(&lore.store, &lore.env)?;
    let mut trust = Trust::new(&lore.store, &policy);
    let mut out = Vec::with_capacity(kept.len());
    for (branch, info) in kept {
        out.push(LogEntry {
            commit: info.id,
            branch,
            time: info.time,
            signature: trust.status(branch, &info)?,
            subject: info.subject,
            event: info.event,
        });
    }
    Ok(out)
}

/// One record's change in one commit, as text for a diff.
#[derive(Clone, Debug)]
pub struct RecordDiff {
    pub path: String,
    pub old: String,
    pub new: String,
}

/// The record changes a commit made (first parent to commit), as text.
pub fn record_diffs(lore: &Lore, commit: ObjectId) -> Result<Vec<RecordDiff>, LoreError> {
    let info = lore.store.commit_info(commit)?;
    let mut out = Vec::new();
    for c in lore.store.changed_paths(&info)? {
        let text = |id: Option<ObjectId>| -> Result<String, LoreError> {
            Ok(match id {
                Some(id) => String::from_utf8_lossy(&lore.store.blob(id)?).into_owned(),
                None => String::new(),
            })
        };
        out.push(RecordDiff {
            path: c.path.clone(),
            old: text(c.old)?,
            new: text(c.new)?,
        });
    }
    Ok(out)
}

/// Where a pool entry came from.
#[derive(Clone, Debug)]
pub struct Origin {
    pub pool: Source,
    /// The commit that added the entry (its `promote`, or the `merge` that
    /// wrote it).
    pub commit: ObjectId,
    /// That commit's committer time, seconds since the epoch.
    pub time: i64,
    /// Its signature's standing, by the local policy.
    pub signature: SignatureStatus,
    /// The URL of the tier's remote, without a password, when one is
    /// configured.
    pub remote: Option<String>,
    /// When this repository first held a verified remote tip containing the
    /// commit (seconds since the epoch): when `sync` (or `publish`) took it
    /// in. `None` when no verified remote tip did (it was made here), or
    /// the reflog that says it is gone.
    pub synced_at: Option<i64>,
}

/// Where the entry `id` of `pool/<pool>` came from; `None` when the pool
/// does not hold it. Finds the commit that added it ([`adding_commit`]) and
/// reads the reflog of the remote's verified tip.
pub fn origin(lore: &Lore, pool: Source, id: Id) -> Result<Option<Origin>, LoreError> {
    let branch = Branch::Pool(pool);
    let Some(tip) = lore.store.tip(branch)? else {
        return Ok(None);
    };
    let path = crate::store::layout::lesson_path(id);
    let Some(commit) = adding_commit(lore, tip, &path)? else {
        return Ok(None);
    };
    let info = lore.store.commit_info(commit)?;
    let policy = Policy::local(&lore.store, &lore.env)?;
    let signature = Trust::new(&lore.store, &policy).status(branch, &info)?;
    let (remote, synced_at) = match pool {
        Source::Local => (None, None),
        Source::Org | Source::Public => {
            let mut synced_at = None;
            for (reached, at) in lore
                .store
                .ref_log(&crate::ops::remote::verified_ref(pool))?
            {
                if lore.store.merge_base(commit, reached)? == Some(commit) {
                    synced_at = Some(at);
                    break;
                }
            }
            (
                lore.store
                    .remote_url(pool.as_str())
                    .map(|u| crate::ops::remote::display_url(&u)),
                synced_at,
            )
        }
    };
    Ok(Some(Origin {
        pool,
        commit,
        time: info.time,
        signature,
        remote,
        synced_at,
    }))
}

/// The commit that added `path` to the history of `tip`: a pool never
/// removes an entry (retract, supersede and merge change its status), so
/// along the first-parent chain it is present from some commit on. That
/// commit is found by bisection (a few tree look-ups, not a read of every
/// commit); when it is a merge that took the entry from another parent,
/// the search goes on in that parent's history. `None` when `tip` lacks it.
fn adding_commit(lore: &Lore, tip: ObjectId, path: &str) -> Result<Option<ObjectId>, LoreError> {
    let store = &lore.store;
    let has = |c: ObjectId| -> Result<bool, LoreError> {
        Ok(store.blob_id_in_tree(store.tree_of(c)?, path)?.is_some())
    };
    let mut tip = tip;
    // Each round descends into a merged parent: bounded by the history.
    loop {
        if !has(tip)? {
            return Ok(None);
        }
        let chain = store.first_parents(tip)?;
        // chain[..=lo] hold it, chain[hi..] do not.
        let (mut lo, mut hi) = (0usize, chain.len());
        while hi - lo > 1 {
            let mid = lo + (hi - lo) / 2;
            if has(chain[mid])? {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        let found = chain[lo];
        let mut from = None;
        for p in store.parents(found)?.into_iter().skip(1) {
            if has(p)? {
                from = Some(p);
                break;
            }
        }
        match from {
            Some(p) => tip = p,
            None => return Ok(Some(found)),
        }
    }
}
