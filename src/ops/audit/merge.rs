//! Merge commits. A *pure* merge — its tree exactly `git merge-tree` of
//! its two parents — is accepted whatever its signer (a forge signs the
//! merges it makes with its own key). A `sync` merge, which resolved
//! entries both sides changed, is checked against [`plan_merge`]: its tree
//! is exactly its first parent with the plan's changes from its second, and
//! `Lore-Target` names exactly the entries that resolved. `sync` builds its
//! merges with the same plan, so what it writes is what this accepts.

use std::collections::BTreeMap;

use gix::ObjectId;

use crate::model::{Id, Lesson, LessonStatus, Source};
use crate::ops::LoreError;
use crate::store::layout::{self, RecordPath};
use crate::store::{CommitInfo, Store};

/// One entry both sides changed, and the side kept.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Resolution {
    pub lesson: Id,
    /// The status kept.
    pub kept: String,
    /// The status of the side not kept.
    pub dropped: String,
    /// Which side was kept: `local` or `remote`.
    pub side: &'static str,
}

/// What merging two pool histories takes from the second.
#[derive(Clone, Debug, Default)]
pub struct MergePlan {
    /// Files to change on top of the first side: path → blob (`None`:
    /// removed).
    pub changes: BTreeMap<String, Option<ObjectId>>,
    pub resolved: Vec<Resolution>,
}

/// How final a pool entry's status is: a merge keeps the more final one.
fn finality(status: Option<LessonStatus>) -> u8 {
    match status {
        Some(LessonStatus::Retracted) => 4,
        Some(LessonStatus::Refuted) => 3,
        Some(LessonStatus::Superseded) => 2,
        Some(LessonStatus::Active) => 1,
        None => 0,
    }
}

pub(crate) fn status_of(bytes: &[u8]) -> Option<LessonStatus> {
    serde_json::from_slice::<Lesson>(bytes)
        .ok()
        .map(|l| l.status)
}

/// Plans the merge of `theirs` into `ours`: every file `theirs` changed
/// since their common ancestor (none: the empty tree) that `ours` did not,
/// and for an entry both changed differently, the version whose status is
/// more final (ties: the larger blob, so both orders agree). `Err` lists
/// what cannot be merged: a `.lore/` file or a non-entry both changed.
pub(crate) fn plan_merge(
    store: &Store,
    ours: ObjectId,
    theirs: ObjectId,
) -> Result<Result<MergePlan, Vec<String>>, LoreError> {
    let base = store.merge_base(ours, theirs)?;
    let base_tree = base.map(|b| store.tree_of(b)).transpose()?;
    let ours_changed: BTreeMap<String, Option<ObjectId>> = store
        .diff(base_tree, Some(store.tree_of(ours)?))?
        .into_iter()
        .map(|c| (c.path, c.new))
        .collect();
    let mut plan = MergePlan::default();
    let mut problems = Vec::new();
    for c in store.diff(base_tree, Some(store.tree_of(theirs)?))? {
        let Some(mine) = ours_changed.get(&c.path) else {
            plan.changes.insert(c.path, c.new);
            continue;
        };
        if *mine == c.new {
            continue; // the same change on both sides
        }
        let Some(RecordPath::Lesson(id)) = layout::classify(&c.path) else {
            problems.push(format!(
                "{} was changed differently here and at the remote; a merge cannot choose between them",
                c.path
            ));
            continue;
        };
        let (Some(mine), Some(other)) = (*mine, c.new) else {
            problems.push(format!(
                "{}: removed on one side, changed on the other",
                c.path
            ));
            continue;
        };
        let (a, b) = (store.blob(mine)?, store.blob(other)?);
        let (sa, sb) = (status_of(&a), status_of(&b));
        let take_theirs = (finality(sb), &b) > (finality(sa), &a);
        let name =
            |s: Option<LessonStatus>| s.map(|s| s.to_string()).unwrap_or("unreadable".into());
        plan.resolved.push(Resolution {
            lesson: id,
            kept: name(if take_theirs { sb } else { sa }),
            dropped: name(if take_theirs { sa } else { sb }),
            side: if take_theirs { "remote" } else { "local" },
        });
        if take_theirs {
            plan.changes.insert(c.path, Some(other));
        }
    }
    Ok(if problems.is_empty() {
        Ok(plan)
    } else {
        Err(problems)
    })
}

/// Checks a `sync` merge commit: its tree is exactly its first parent with
/// [`plan_merge`]'s changes from its second, and `Lore-Target` names
/// exactly the entries that resolved.
pub(super) fn check_merge(
    store: &Store,
    tier: Source,
    info: &CommitInfo,
    resolved: &[Id],
) -> Result<Vec<String>, LoreError> {
    let [ours, theirs] = info.parents[..] else {
        return Ok(vec!["sync must be a merge of exactly two commits".into()]);
    };
    let plan = match plan_merge(store, ours, theirs)? {
        Ok(p) => p,
        Err(problems) => {
            return Ok(problems
                .into_iter()
                .map(|p| format!("sync merge on pool/{tier}: {p}"))
                .collect())
        }
    };
    let actual: BTreeMap<String, Option<ObjectId>> = store
        .diff(Some(store.tree_of(ours)?), Some(info.tree))?
        .into_iter()
        .map(|c| (c.path, c.new))
        .collect();
    let mut problems = Vec::new();
    if actual != plan.changes {
        let first = actual
            .iter()
            .find(|(p, b)| plan.changes.get(*p) != Some(b))
            .map(|(p, _)| p.clone())
            .or_else(|| {
                plan.changes
                    .keys()
                    .find(|p| !actual.contains_key(*p))
                    .cloned()
            })
            .unwrap_or_default();
        problems.push(format!(
            "sync merge: its tree is not the merge of its parents (first difference: {first})"
        ));
    }
    let mut named: Vec<Id> = resolved.to_vec();
    named.sort();
    let mut expected: Vec<Id> = plan.resolved.iter().map(|r| r.lesson).collect();
    expected.sort();
    if named != expected {
        problems.push("sync merge: Lore-Target must name exactly the entries it resolved".into());
    }
    Ok(problems)
}

/// Whether a two-parent commit's tree is exactly the clean merge of its
/// parents (`git merge-tree --write-tree`).
pub(super) fn is_pure_merge(store: &Store, info: &CommitInfo) -> Result<bool, LoreError> {
    if info.parents.len() != 2 {
        return Ok(false);
    }
    let (a, b) = (info.parents[0].to_string(), info.parents[1].to_string());
    let out = store.run_git(&[
        "merge-tree".as_ref(),
        "--write-tree".as_ref(),
        a.as_ref(),
        b.as_ref(),
    ]);
    Ok(match out {
        Ok(bytes) => String::from_utf8_lossy(&bytes).lines().next() == Some(&info.tree.to_string()),
        Err(_) => false,
    })
}
