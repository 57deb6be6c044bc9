//! `git lore log`: history read back as events, newest first across
//! branches, each with its signature's standing, and the record diffs a
//! commit made.

use gix::ObjectId;

use super::policy::{Policy, Trust};
use crate::event::Event;
use crate::model::Id;
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
