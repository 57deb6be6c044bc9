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

/// Where the entry `id` of `pool/<pool>` came from; `None` when no commit
/// of that pool adds it. Walks the pool's commits (messages only) from the
/// oldest, and reads the reflog of the remote's verified tip.
pub fn origin(lore: &Lore, pool: Source, id: Id) -> Result<Option<Origin>, LoreError> {
    let branch = Branch::Pool(pool);
    let Some(tip) = lore.store.tip(branch)? else {
        return Ok(None);
    };
    let adds = |e: &Event| match e {
        Event::Promote { lesson, .. } => *lesson == id,
        other => other.entries_changed().contains(&id) && other.lesson() == Some(id),
    };
    let commits = lore
        .store
        .walk_since(tip, None, |c, message| {
            let (_, lines) = crate::trailers::parse(&String::from_utf8_lossy(message));
            Event::from_trailers(&lines)
                .ok()
                .filter(|e| adds(e))
                .map(|_| c)
        })?
        .unwrap_or_default();
    // Parents before children: the first is the one that added it.
    let Some(commit) = commits.into_iter().flatten().next() else {
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
