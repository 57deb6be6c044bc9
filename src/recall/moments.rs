//! One lesson per moment: when two active pool entries were made from the
//! same artifact (`evidence.artifact_ids`) — a teammate captured the same
//! moment, and `sync` brought their lesson next to ours — recall lists
//! one of them.
//!
//! Which one: the one in the widest pool (public, then org, then local),
//! then the one promoted first, then the smaller id; its artifacts are
//! then taken, and any other active entry sharing one of them is left
//! out. Only active entries are compared: a superseded, refuted or
//! retracted entry is never recalled itself (a merged lesson and the
//! sources it superseded share artifacts on purpose). An entry without
//! artifact ids is never left out.
//!
//! Pure: it reads summaries only.

use std::collections::{BTreeSet, HashSet};

use crate::model::{Id, LessonStatus};
use crate::summary::Summary;

/// The ids of the active entries left out because a preferred one shares
/// an artifact with them.
pub fn left_out<'a>(summaries: impl IntoIterator<Item = &'a Summary>) -> BTreeSet<Id> {
    let mut active: Vec<&Summary> = summaries
        .into_iter()
        .filter(|s| s.status == LessonStatus::Active)
        .collect();
    active.sort_by(|a, b| {
        b.source
            .cmp(&a.source)
            .then(a.promoted_at.cmp(&b.promoted_at))
            .then(a.id.cmp(&b.id))
    });
    let mut taken: HashSet<Id> = HashSet::new();
    let mut out = BTreeSet::new();
    for s in active {
        if s.artifacts.iter().any(|a| taken.contains(a)) {
            out.insert(s.id);
        } else {
            taken.extend(s.artifacts.iter().copied());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Lesson, Source};

    fn entry(n: u8, source: Source, promoted_at: &str, artifacts: &[u8]) -> Summary {
        let mut l: Lesson = serde_json::from_str(include_str!(
            "../review/testdata/pool-entry.approved-org.json"
        ))
        .unwrap();
        l.id = Id::from_parts(1_700_000_000_000, u128::from(n));
        l.source = source;
        l.promoted_at = promoted_at.into();
        l.evidence.artifact_ids = artifacts
            .iter()
            .map(|a| Id::from_parts(1_600_000_000_000, u128::from(*a)))
            .collect();
        Summary::of(&l)
    }

    fn ids(ns: &[u8]) -> BTreeSet<Id> {
        ns.iter()
            .map(|n| Id::from_parts(1_700_000_000_000, u128::from(*n)))
            .collect()
    }

    #[test]
    fn the_widest_pool_keeps_a_shared_moment() {
        let ours = entry(1, Source::Local, "2026-08-01T00:00:00Z", &[7]);
        let theirs = entry(2, Source::Org, "2026-08-02T00:00:00Z", &[7]);
        let other = entry(3, Source::Local, "2026-08-01T00:00:00Z", &[8]);
        assert_eq!(left_out([&ours, &theirs, &other]), ids(&[1]));
        // In one pool: the one promoted first, then the smaller id.
        let later = entry(4, Source::Org, "2026-08-03T00:00:00Z", &[7]);
        assert_eq!(left_out([&later, &theirs]), ids(&[4]));
        let same = entry(5, Source::Org, "2026-08-02T00:00:00Z", &[7]);
        assert_eq!(left_out([&same, &theirs]), ids(&[5]));
    }

    #[test]
    fn only_active_entries_with_artifacts_are_compared() {
        let merged = entry(1, Source::Org, "2026-08-02T00:00:00Z", &[7, 8]);
        let mut source = entry(2, Source::Org, "2026-08-01T00:00:00Z", &[7]);
        source.status = LessonStatus::Superseded;
        assert!(left_out([&merged, &source]).is_empty());
        let bare = entry(3, Source::Org, "2026-08-01T00:00:00Z", &[]);
        let bare2 = entry(4, Source::Org, "2026-08-01T00:00:00Z", &[]);
        assert!(left_out([&bare, &bare2]).is_empty());
        // A merged lesson takes every artifact it holds.
        let dup = entry(5, Source::Local, "2026-08-01T00:00:00Z", &[8]);
        assert_eq!(left_out([&merged, &dup]), ids(&[5]));
    }
}
