//! What the index learns: the [`Overlay`] of changes on top of the
//! layers, folded from each commit's event by what its action says it
//! changed ([`crate::event::Learn`]) and, on the private branches, from
//! the objects each commit holds (`private.rs`); catching up with every lore ref from
//! the tips the chain records (or rebuilding, when history was rewritten);
//! and remembering what a transaction published, as a new layer.

use std::collections::{BTreeMap, BTreeSet};

use gix::ObjectId;

use super::format::RefState;
use super::{ArtifactOutcome, DocKey, Index, LessonEntry, RefKind};
use crate::event::{Event, Learn, PathKind};
use crate::model::{DeclineReason, Id, Lesson, Proposal, ProposalStatus, Source, Visibility};
use crate::search::Doc;
use crate::store::layout::{self, Branch};
use crate::store::{Store, StoreError};
use crate::summary::Summary;
use crate::trailers;

/// Changes on top of the layers' tables: learned by catching up, or made by
/// a transaction in progress.
#[derive(Clone, Debug, Default)]
pub struct Overlay {
    pub(super) artifacts: BTreeMap<Id, ArtifactOutcome>,
    pub(super) lessons: BTreeMap<Id, LessonEntry>,
    /// Pool entries learned since the layers: their summaries (`None`: the
    /// entry is gone or does not read).
    pub(super) summaries: BTreeMap<Id, Option<Summary>>,
    /// Searched documents learned since the layers: pool entries and
    /// queued proposals (`None`: gone, unreadable, or no longer queued).
    pub(super) docs: BTreeMap<DocKey, Option<Doc>>,
    /// Objects of the private branches learned since the layers.
    pub(super) private: BTreeMap<ObjectId, super::Private>,
}

impl Overlay {
    pub(crate) fn artifact(&self, id: Id) -> Option<ArtifactOutcome> {
        self.artifacts.get(&id).copied()
    }

    pub(crate) fn lesson(&self, id: Id) -> Option<LessonEntry> {
        self.lessons.get(&id).copied()
    }

    /// Learns from one commit's event on a ref of kind `on`: what the
    /// event's action says it changed ([`Event::learn`]). `base` answers
    /// for lessons this overlay has not seen yet. An event on a ref where it
    /// does not belong teaches nothing (`verify` reports it).
    pub fn fold(&mut self, base: &dyn Fn(Id) -> Option<LessonEntry>, on: RefKind, e: &Event) {
        let pool = match on {
            RefKind::Ledger => None,
            RefKind::Pool(tier) => Some(tier),
        };
        e.learn(
            pool,
            &mut Folding {
                overlay: self,
                base,
            },
        );
    }

    fn update(
        &mut self,
        base: &dyn Fn(Id) -> Option<LessonEntry>,
        lesson: Id,
        f: impl FnOnce(&mut LessonEntry),
    ) {
        if let Some(mut e) = self.lessons.get(&lesson).copied().or_else(|| base(lesson)) {
            f(&mut e);
            self.lessons.insert(lesson, e);
        }
    }

    /// Learns a pool entry's current content.
    pub(crate) fn note_entry(&mut self, id: Id, bytes: Option<&[u8]>) {
        let lesson = bytes
            .and_then(|b| serde_json::from_slice::<Lesson>(b).ok())
            .filter(|l| l.id == id);
        self.summaries.insert(id, lesson.as_ref().map(Summary::of));
        self.docs
            .insert(DocKey::entry(id), lesson.as_ref().map(Doc::of_lesson));
    }

    /// Learns a proposal's current content: searched while it is queued.
    pub(crate) fn note_proposal(&mut self, id: Id, bytes: Option<&[u8]>) {
        let doc = bytes
            .and_then(|b| serde_json::from_slice::<Proposal>(b).ok())
            .filter(|p| p.id == id)
            .and_then(|p| Doc::of_proposal(&p));
        self.docs.insert(DocKey::proposal(id), doc);
    }

    pub(super) fn len(&self) -> usize {
        self.artifacts.len()
            + self.lessons.len()
            + self.summaries.len()
            + self.docs.len()
            + self.private.len()
    }
}

/// An overlay learning from events, with the layers' answers for lessons
/// it has not seen.
struct Folding<'a> {
    overlay: &'a mut Overlay,
    base: &'a dyn Fn(Id) -> Option<LessonEntry>,
}

impl Learn for Folding<'_> {
    fn proposed(&mut self, lesson: Id, artifact: Id) {
        let o = &mut *self.overlay;
        o.artifacts
            .insert(artifact, ArtifactOutcome::Proposed { lesson });
        o.lessons.insert(
            lesson,
            LessonEntry {
                artifact,
                status: ProposalStatus::Pending,
                visibility: None,
                pool: None,
                promoted: false,
            },
        );
    }

    fn declined(&mut self, artifact: Id, reason: DeclineReason) {
        self.overlay.artifacts.insert(
            artifact,
            ArtifactOutcome::Declined {
                reason: Some(reason),
            },
        );
    }

    fn status(&mut self, lesson: Id, status: ProposalStatus) {
        self.overlay
            .update(self.base, lesson, |e| e.status = status)
    }

    fn visibility(&mut self, lesson: Id, visibility: Option<Visibility>) {
        self.overlay
            .update(self.base, lesson, |e| e.visibility = visibility)
    }

    fn stamped(&mut self, lesson: Id) {
        self.overlay
            .update(self.base, lesson, |e| e.promoted = true)
    }

    fn pooled(&mut self, lesson: Id, pool: Source) {
        self.overlay
            .update(self.base, lesson, |e| e.pool = Some(pool))
    }
}

impl Index {
    pub(super) fn catch_up(&mut self, store: &Store) -> Result<(), StoreError> {
        let current: BTreeMap<String, (Branch, ObjectId)> = store
            .lore_refs()?
            .into_iter()
            .map(|(b, tip)| (b.ref_name(), (b, tip)))
            .collect();
        let unchanged = current.len() == self.refs.len()
            && current
                .iter()
                .all(|(name, (_, tip))| self.refs.get(name).map(|r| r.tip) == Some(*tip));
        if unchanged {
            return Ok(());
        }
        let mut pending: Vec<(Branch, Vec<Walked>)> = Vec::new();
        let mut rebuild = self.refs.keys().any(|n| !current.contains_key(n));
        for (name, (branch, tip)) in &current {
            if rebuild {
                break;
            }
            match self.refs.get(name).map(|r| r.tip) {
                Some(old) if old == *tip => {}
                old => match walk(store, *tip, old)? {
                    Some(list) => pending.push((*branch, list)),
                    None => rebuild = true,
                },
            }
        }
        if rebuild {
            *self = Index::empty(self.path.clone());
            self.rebuilt = true;
            pending.clear();
            for (branch, tip) in current.values() {
                let list = walk(store, *tip, None)?.unwrap_or_default();
                pending.push((*branch, list));
            }
        }
        // The ledger first: pool commits refer to lessons it introduced.
        pending.sort_by_key(|(b, _)| *b);
        let mut walked = 0;
        for (branch, list) in pending {
            walked += list.len();
            let mut mem = std::mem::take(&mut self.mem);
            {
                let file = &*self;
                let lookup = |id: Id| file.layer_lesson(id);
                for e in list.iter().filter_map(|(_, e)| e.as_ref()) {
                    mem.fold(&lookup, RefKind::of(branch), e);
                }
            }
            // What a private branch's commits hold never leaves the
            // machine: the guard looks each object up.
            if super::is_private(branch) {
                for (commit, _) in &list {
                    super::private::learn_commit(store, branch, *commit, &mut mem)?;
                }
            }
            // What recall knows of a pool entry is its content as the pool
            // stands now.
            if let (Branch::Pool(_), Some((_, tip))) = (branch, current.get(&branch.ref_name())) {
                let touched: BTreeSet<Id> = list
                    .iter()
                    .filter_map(|(_, e)| e.as_ref())
                    .flat_map(Event::entries_changed)
                    .collect();
                let tree = store.tree_of(*tip)?;
                for id in touched {
                    let bytes = store.read_in_tree(tree, &layout::lesson_path(id))?;
                    mem.note_entry(id, bytes.as_deref());
                }
            }
            // What search knows of a proposal is its record as the ledger
            // stands now.
            if let (Branch::Ledger, Some((_, tip))) = (branch, current.get(&branch.ref_name())) {
                let touched: BTreeSet<Id> = list
                    .iter()
                    .filter_map(|(_, e)| e.as_ref())
                    .flat_map(proposals_changed)
                    .collect();
                if !touched.is_empty() {
                    let tree = store.tree_of(*tip)?;
                    for id in touched {
                        let bytes = store.read_in_tree(tree, &layout::proposal_path(id))?;
                        mem.note_proposal(id, bytes.as_deref());
                    }
                }
            }
            self.mem = mem;
        }
        self.walked = walked;
        for (name, (_, tip)) in current {
            let verified = self.refs.get(&name).and_then(|r| r.verified);
            self.refs.insert(
                name.clone(),
                RefState {
                    name,
                    tip,
                    verified,
                },
            );
        }
        // Best effort: the index is a cache. A repository whose cache cannot
        // be written (read-only, disk full) still answers, by walking
        // history again next time; why is kept for a caller that would
        // make that cost grow ([`Index::take_unwritten`]). What was walked
        // is written as a layer of its own: the cost grows with it, not
        // with the index.
        self.unwritten = self.persist().err();
        Ok(())
    }

    /// After a transaction published `head` on `branch` (starting from
    /// `base`), folds its changes in and writes them as a new layer, so the
    /// next process does not walk them again: a cost that grows with the
    /// changes, not with the index (see [`Index::persist`]). Best effort:
    /// the index is a cache, and a failure here only costs a later
    /// catch-up.
    pub(crate) fn remember(
        mut self,
        branch: Branch,
        base: Option<ObjectId>,
        head: ObjectId,
        overlay: &Overlay,
    ) {
        let name = branch.ref_name();
        if self.refs.get(&name).map(|r| r.tip) != base {
            return;
        }
        let verified = self.refs.get(&name).and_then(|r| r.verified);
        self.refs.insert(
            name.clone(),
            RefState {
                name,
                tip: head,
                verified,
            },
        );
        // Usually the index learned nothing else since it was loaded: the
        // transaction's overlay is written as it is, without a copy.
        if self.mem.len() == 0 {
            let _ = self.persist_from(overlay);
            return;
        }
        for (k, v) in &overlay.artifacts {
            self.mem.artifacts.insert(*k, *v);
        }
        for (k, v) in &overlay.lessons {
            self.mem.lessons.insert(*k, *v);
        }
        for (k, v) in &overlay.summaries {
            self.mem.summaries.insert(*k, v.clone());
        }
        for (k, v) in &overlay.docs {
            self.mem.docs.insert(*k, v.clone());
        }
        for (k, v) in &overlay.private {
            self.mem.private.entry(*k).or_insert(*v);
        }
        let _ = self.persist();
    }
}

/// The proposals (`proposals/…`) an event changes, by [`Event::touched`].
fn proposals_changed(e: &Event) -> Vec<Id> {
    e.touched()
        .into_iter()
        .filter_map(|(kind, _, id)| id.filter(|_| kind == PathKind::Proposal))
        .collect()
}

/// A commit [`walk`] found, with its event (`None`: its trailers do not
/// read as one).
type Walked = (ObjectId, Option<Event>);

/// Every commit reachable from `tip` but not from `stop` with its event,
/// parents before children. `None` when `stop` is given but is not an
/// ancestor of `tip` (history was rewritten). A commit whose trailers do
/// not read as an event (a forge's merge commit, say) has none.
fn walk(
    store: &Store,
    tip: ObjectId,
    stop: Option<ObjectId>,
) -> Result<Option<Vec<Walked>>, StoreError> {
    store.walk_since(tip, stop, |id, message| {
        let (_, lines) = trailers::parse(&String::from_utf8_lossy(message));
        (id, Event::from_trailers(&lines).ok())
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::event::Step;

    fn id(n: u8) -> Id {
        Id::from_parts(1_700_000_000_000, n as u128)
    }

    fn step(from: ProposalStatus, to: ProposalStatus) -> Step {
        Step {
            lesson: id(1),
            artifact: id(2),
            from,
            to,
        }
    }

    #[test]
    fn the_fold_follows_a_lesson_through_its_life() {
        use ProposalStatus::*;
        let none = |_: Id| None;
        let mut o = Overlay::default();
        let ledger = RefKind::Ledger;
        o.fold(
            &none,
            ledger,
            &Event::Propose {
                lesson: id(1),
                artifact: id(2),
                model: None,
                replaces: None,
            },
        );
        assert_eq!(
            o.artifact(id(2)),
            Some(ArtifactOutcome::Proposed { lesson: id(1) })
        );
        o.fold(
            &none,
            ledger,
            &Event::Confirm {
                step: step(Pending, Confirmed),
                visibility: Visibility::Org,
                interactive: true,
            },
        );
        assert_eq!(o.lesson(id(1)).unwrap().visibility, Some(Visibility::Org));
        o.fold(
            &none,
            ledger,
            &Event::Unconfirm {
                step: step(Confirmed, Pending),
            },
        );
        let e = o.lesson(id(1)).unwrap();
        assert_eq!((e.status, e.visibility), (Pending, None));
        // A pool event folded as if it were on the ledger teaches nothing.
        let promote = Event::Promote {
            lesson: id(1),
            artifact: id(2),
            visibility: Visibility::Org,
            pool: Source::Org,
        };
        o.fold(&none, ledger, &promote);
        assert_eq!(o.lesson(id(1)).unwrap().pool, None);
        o.fold(&none, RefKind::Pool(Source::Org), &promote);
        assert_eq!(o.lesson(id(1)).unwrap().pool, Some(Source::Org));
        o.fold(
            &none,
            ledger,
            &Event::Stamp {
                step: step(Pending, Pending),
                visibility: None,
                pool: None,
            },
        );
        assert!(o.lesson(id(1)).unwrap().promoted);
        o.fold(
            &none,
            ledger,
            &Event::Decline {
                artifact: id(9),
                reason: DeclineReason::NoVersions,
                model: None,
                replaces: None,
            },
        );
        assert_eq!(
            o.artifact(id(9)),
            Some(ArtifactOutcome::Declined {
                reason: Some(DeclineReason::NoVersions)
            })
        );
    }

    #[test]
    fn a_transition_of_an_unknown_lesson_asks_the_base() {
        let base_entry = LessonEntry {
            artifact: id(2),
            status: ProposalStatus::Confirmed,
            visibility: Some(Visibility::Public),
            pool: None,
            promoted: false,
        };
        let base = move |l: Id| (l == id(1)).then_some(base_entry);
        let mut o = Overlay::default();
        o.fold(
            &base,
            RefKind::Ledger,
            &Event::Judge {
                step: step(ProposalStatus::Confirmed, ProposalStatus::Rejected),
                visibility: Some(Visibility::Public),
                ruling: Box::new(crate::event::Ruling {
                    rubric: None,
                    gate: None,
                    score: None,
                    reason: "x".into(),
                    judges: vec![],
                }),
                model: None,
            },
        );
        assert_eq!(o.lesson(id(1)).unwrap().status, ProposalStatus::Rejected);
        // A lesson nobody knows stays unknown.
        o.fold(
            &|_| None,
            RefKind::Ledger,
            &Event::Unconfirm {
                step: Step {
                    lesson: id(7),
                    ..step(ProposalStatus::Confirmed, ProposalStatus::Pending)
                },
            },
        );
        assert_eq!(o.lesson(id(7)), None);
    }
}
