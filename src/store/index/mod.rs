//! The derived index: what happened to each artifact and where each lesson
//! stands, answered without walking history.
//!
//! It is a cache under `<gitdir>/lore/index`, never committed and never the
//! source of truth. It records, by full ref name, the tip of every lore ref
//! it was built from ([`format::RefState`]). On load it catches up by
//! walking only the commits since those tips and folding their events
//! ([`Overlay::fold`]); if a recorded tip is no longer an ancestor of its
//! ref (history rewritten, or replaced by a fetch), or the file is of
//! another version or damaged, it is rebuilt from scratch. Deleting the
//! file changes no answer. Everything it knows comes from commit trailers,
//! which `git lore verify` checks against what each commit changed.
//!
//! The file format is [`format`]; the tables are `ARTS` (artifact →
//! outcome), `LESN` (lesson → entry), and recall's three: `RCLK` (the coarse
//! name of every package a pool entry names → the entry), `RCLS` (entry →
//! where its [`Summary`] lies) and `RCLH` (the summaries). The recall tables
//! are the one place the index reads more than trailers: a pool entry's
//! summary comes from its blob. A new table is a new tag: the format's table
//! directory makes it an addition, not a break.

pub mod format;

use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::fs;
use std::io::Write;
use std::path::PathBuf;

use gix::ObjectId;

use self::format::{Bytes, Header, RefState, TableData, TableDir, Tag};
use super::layout::Branch;
use super::{Store, StoreError};
use crate::event::Event;
use crate::model::{DeclineReason, Id, Lesson, ProposalStatus, Source, Visibility};
use crate::recall::summary::Summary;
use crate::store::layout;
use crate::trailers;

const ARTS: Tag = *b"ARTS";
const ART_WIDTH: usize = 34;
const LESN: Tag = *b"LESN";
const LES_WIDTH: usize = 36;
/// Recall keys: 8 bytes of the name's hash, the lesson id, and how many of
/// the lesson's names must be installed for it to apply.
const RCLK: Tag = *b"RCLK";
const RCLK_WIDTH: usize = 25;
/// Recall summaries: the lesson id, then the summary's offset (u64) and
/// length (u32) in the heap.
const RCLS: Tag = *b"RCLS";
const RCLS_WIDTH: usize = 28;
const RCLH: Tag = *b"RCLH";
/// Every table this build writes, with its record width.
const TABLES: [(Tag, usize); 5] = [
    (ARTS, ART_WIDTH),
    (LESN, LES_WIDTH),
    (RCLK, RCLK_WIDTH),
    (RCLS, RCLS_WIDTH),
    (RCLH, 1),
];
/// Catch-ups shorter than this stay in memory instead of rewriting the file.
const PERSIST_AFTER: usize = 64;

/// What history says happened to an artifact.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ArtifactOutcome {
    /// It became this lesson (whose status the lesson entry holds).
    Proposed { lesson: Id },
    /// It was declined; `None` for a reason this build does not know.
    Declined { reason: Option<DeclineReason> },
}

/// Where a lesson stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LessonEntry {
    pub artifact: Id,
    pub status: ProposalStatus,
    pub visibility: Option<Visibility>,
    /// The pool its entry was written to, once promoted.
    pub pool: Option<Source>,
    /// Whether the ledger record carries `promoted_at`.
    pub promoted: bool,
}

/// What a ref holds, as far as folding goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RefKind {
    Ledger,
    Pool(Source),
}

impl RefKind {
    fn of(branch: Branch) -> RefKind {
        match branch {
            Branch::Ledger => RefKind::Ledger,
            Branch::Pool(s) => RefKind::Pool(s),
        }
    }
}

/// Changes on top of the file's tables: learned by catching up, or made by a
/// transaction in progress.
#[derive(Clone, Debug, Default)]
pub struct Overlay {
    artifacts: BTreeMap<Id, ArtifactOutcome>,
    lessons: BTreeMap<Id, LessonEntry>,
    /// Pool entries learned since the file: their summaries (`None`: the
    /// entry is gone or does not read).
    summaries: BTreeMap<Id, Option<Summary>>,
}

impl Overlay {
    pub(crate) fn artifact(&self, id: Id) -> Option<ArtifactOutcome> {
        self.artifacts.get(&id).copied()
    }

    pub(crate) fn lesson(&self, id: Id) -> Option<LessonEntry> {
        self.lessons.get(&id).copied()
    }

    /// Learns from one commit's event on a ref of kind `on`. `base` answers
    /// for lessons this overlay has not seen yet. An event on a ref where it
    /// does not belong teaches nothing (`verify` reports it).
    pub fn fold(&mut self, base: &dyn Fn(Id) -> Option<LessonEntry>, on: RefKind, e: &Event) {
        match (on, e) {
            (
                RefKind::Ledger,
                Event::Propose {
                    lesson, artifact, ..
                },
            ) => {
                self.artifacts
                    .insert(*artifact, ArtifactOutcome::Proposed { lesson: *lesson });
                self.lessons.insert(
                    *lesson,
                    LessonEntry {
                        artifact: *artifact,
                        status: ProposalStatus::Pending,
                        visibility: None,
                        pool: None,
                        promoted: false,
                    },
                );
            }
            (
                RefKind::Ledger,
                Event::Decline {
                    artifact, reason, ..
                },
            ) => {
                self.artifacts.insert(
                    *artifact,
                    ArtifactOutcome::Declined {
                        reason: Some(*reason),
                    },
                );
            }
            (
                RefKind::Ledger,
                Event::Confirm {
                    step, visibility, ..
                },
            ) => self.update(base, step.lesson, |e| {
                e.status = step.to;
                e.visibility = Some(*visibility);
            }),
            (RefKind::Ledger, Event::Unconfirm { step }) => self.update(base, step.lesson, |e| {
                e.status = step.to;
                e.visibility = None;
            }),
            (RefKind::Ledger, Event::Pass { step, .. } | Event::Judge { step, .. }) => {
                self.update(base, step.lesson, |e| e.status = step.to)
            }
            (RefKind::Ledger, Event::Stamp { step, .. }) => self.update(base, step.lesson, |e| {
                e.status = step.to;
                e.promoted = true;
            }),
            (RefKind::Pool(src), Event::Promote { lesson, .. }) => {
                self.update(base, *lesson, |e| e.pool = Some(src))
            }
            _ => {}
        }
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
        let summary = bytes
            .and_then(|b| serde_json::from_slice::<Lesson>(b).ok())
            .filter(|l| l.id == id)
            .map(|l| Summary::of(&l));
        self.summaries.insert(id, summary);
    }

    fn len(&self) -> usize {
        self.artifacts.len() + self.lessons.len() + self.summaries.len()
    }
}

/// The loaded index, caught up to the ref tips it was loaded at.
#[derive(Debug)]
pub struct Index {
    path: PathBuf,
    /// The file's bytes and header, if a usable file was read.
    file: Option<(Bytes, Header)>,
    /// The refs the index (file + `mem`) reflects, by name.
    refs: BTreeMap<String, RefState>,
    mem: Overlay,
    /// Whether the last load rebuilt from scratch.
    pub rebuilt: bool,
    /// How many commits the last load walked.
    pub walked: usize,
}

fn encode_artifact(id: Id, o: &ArtifactOutcome) -> [u8; ART_WIDTH] {
    let mut r = [0u8; ART_WIDTH];
    r[..16].copy_from_slice(&id.to_bytes());
    match o {
        ArtifactOutcome::Proposed { lesson } => {
            r[16..32].copy_from_slice(&lesson.to_bytes());
            r[32] = 1;
        }
        ArtifactOutcome::Declined { reason } => {
            r[32] = 2;
            r[33] = reason.map(|r| r.code()).unwrap_or(255);
        }
    }
    r
}

fn decode_artifact(rec: &[u8]) -> Option<ArtifactOutcome> {
    match rec[32] {
        1 => Some(ArtifactOutcome::Proposed {
            lesson: id_at(rec, 16),
        }),
        2 => Some(ArtifactOutcome::Declined {
            reason: DeclineReason::from_code(rec[33]),
        }),
        _ => None,
    }
}

/// `0` for none, else the value's code plus one.
fn opt_code(code: Option<u8>) -> u8 {
    code.map(|c| c + 1).unwrap_or(0)
}

fn from_opt_code<T>(b: u8, f: fn(u8) -> Option<T>) -> Option<T> {
    b.checked_sub(1).and_then(f)
}

fn encode_lesson(id: Id, e: &LessonEntry) -> [u8; LES_WIDTH] {
    let mut r = [0u8; LES_WIDTH];
    r[..16].copy_from_slice(&id.to_bytes());
    r[16..32].copy_from_slice(&e.artifact.to_bytes());
    r[32] = e.status.code();
    r[33] = opt_code(e.visibility.map(Visibility::code));
    r[34] = opt_code(e.pool.map(Source::code));
    r[35] = u8::from(e.promoted);
    r
}

fn decode_lesson(rec: &[u8]) -> Option<LessonEntry> {
    Some(LessonEntry {
        artifact: id_at(rec, 16),
        status: ProposalStatus::from_code(rec[32])?,
        visibility: from_opt_code(rec[33], Visibility::from_code),
        pool: from_opt_code(rec[34], Source::from_code),
        promoted: rec[35] & 1 == 1,
    })
}

/// The 8-byte key a package name is found under: the first bytes of the
/// sha256 of its coarse form.
fn name_key(coarse: &str) -> [u8; 8] {
    use sha2::{Digest, Sha256};
    let d = Sha256::digest(coarse.as_bytes());
    d[..8].try_into().expect("8 bytes")
}

/// Where a summary lies: (offset, length) in the heap.
fn slot(rec: &[u8]) -> (u64, usize) {
    let off = u64::from_be_bytes(rec[16..24].try_into().expect("8 bytes"));
    let len = u32::from_be_bytes(rec[24..28].try_into().expect("4 bytes")) as usize;
    (off, len)
}

fn push_summary(slots: &mut Vec<u8>, heap: &mut Vec<u8>, id: Id, bytes: &[u8]) {
    slots.extend_from_slice(&id.to_bytes());
    slots.extend_from_slice(&(heap.len() as u64).to_be_bytes());
    slots.extend_from_slice(&(bytes.len() as u32).to_be_bytes());
    heap.extend_from_slice(bytes);
}

fn id_at(data: &[u8], off: usize) -> Id {
    let mut b = [0u8; 16];
    b.copy_from_slice(&data[off..off + 16]);
    Id::from_bytes(b)
}

impl Index {
    fn empty(path: PathBuf) -> Index {
        Index {
            path,
            file: None,
            refs: BTreeMap::new(),
            mem: Overlay::default(),
            rebuilt: false,
            walked: 0,
        }
    }

    /// Reads the header of the index file and keeps the file open for
    /// look-ups; the tables are not read. A missing, old or damaged file
    /// gives an empty index, which catching up rebuilds.
    fn open(path: PathBuf) -> Index {
        let mut index = Index::empty(path);
        // Only a regular file: opening a FIFO put in its place would wait
        // for a writer forever.
        if !fs::symlink_metadata(&index.path).is_ok_and(|m| m.is_file()) {
            return index;
        }
        let Ok(file) = fs::File::open(&index.path) else {
            return index;
        };
        let bytes = Bytes::of_file(file);
        // A file without one of this build's tables, or with one of another
        // width, was written by another build: nothing in it is trusted,
        // and catching up rebuilds. (A file from before recall has no
        // recall tables; read as empty ones, they would hide every lesson
        // until the next rebuild.)
        let of_this_build = |h: &Header| {
            TABLES
                .iter()
                .all(|(tag, width)| h.tables.iter().any(|t| &t.tag == tag && t.width == *width))
        };
        if let Ok(header) = format::read_header(&bytes).map_err(drop).and_then(|h| {
            if of_this_build(&h) {
                Ok(h)
            } else {
                Err(())
            }
        }) {
            index.refs = header
                .refs
                .iter()
                .map(|r| (r.name.clone(), r.clone()))
                .collect();
            index.file = Some((bytes, header));
        }
        index
    }

    /// Loads the index and catches it up with every lore ref.
    pub fn load(store: &Store) -> Result<Index, StoreError> {
        let mut index = Index::open(store.lore_dir().join("index"));
        index.catch_up(store)?;
        Ok(index)
    }

    /// Throws the file away and rebuilds from history.
    pub fn rebuild(store: &Store) -> Result<Index, StoreError> {
        let mut index = Index::empty(store.lore_dir().join("index"));
        index.catch_up(store)?;
        index.rebuilt = true;
        index.persist()?;
        Ok(index)
    }

    /// The refs this index reflects, by name.
    pub fn refs(&self) -> impl Iterator<Item = &RefState> {
        self.refs.values()
    }

    fn table(&self, tag: Tag) -> Option<(&Bytes, &TableDir)> {
        let (bytes, header) = self.file.as_ref()?;
        Some((bytes, header.tables.iter().find(|t| t.tag == tag)?))
    }

    fn catch_up(&mut self, store: &Store) -> Result<(), StoreError> {
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
        let mut pending: Vec<(Branch, Vec<Event>)> = Vec::new();
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
                let lookup = |id: Id| file.file_lesson(id);
                for e in &list {
                    mem.fold(&lookup, RefKind::of(branch), e);
                }
            }
            // What recall knows of a pool entry is its content as the pool
            // stands now.
            if let (Branch::Pool(_), Some((_, tip))) = (branch, current.get(&branch.ref_name())) {
                let touched: BTreeSet<Id> = list.iter().flat_map(Event::entries_changed).collect();
                for id in touched {
                    let bytes = store.read_at(*tip, &layout::lesson_path(id))?;
                    mem.note_entry(id, bytes.as_deref());
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
        if self.rebuilt || walked >= PERSIST_AFTER {
            // Best effort: the index is a cache. A repository whose cache
            // cannot be written (read-only, disk full) still answers, by
            // walking history again next time.
            let _ = self.persist();
        }
        Ok(())
    }

    /// After a transaction published `head` on `branch` (starting from
    /// `base`), folds its changes in and, for a large batch, rewrites the file
    /// so the next process does not walk it again. Best effort: the index is a
    /// cache, and a failure here only costs a later catch-up.
    pub(crate) fn remember(
        mut self,
        branch: Branch,
        base: Option<ObjectId>,
        head: ObjectId,
        overlay: &Overlay,
    ) {
        let name = branch.ref_name();
        if self.refs.get(&name).map(|r| r.tip) != base || overlay.len() < PERSIST_AFTER {
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
        let verified = self.refs.get(&name).and_then(|r| r.verified);
        self.refs.insert(
            name.clone(),
            RefState {
                name,
                tip: head,
                verified,
            },
        );
        let _ = self.persist();
    }

    fn file_artifact(&self, id: Id) -> Option<ArtifactOutcome> {
        let (bytes, t) = self.table(ARTS)?;
        decode_artifact(&format::find(bytes, t, &id.to_bytes())?)
    }

    fn file_lesson(&self, id: Id) -> Option<LessonEntry> {
        let (bytes, t) = self.table(LESN)?;
        decode_lesson(&format::find(bytes, t, &id.to_bytes())?)
    }

    /// What happened to an artifact, if anything.
    pub fn artifact(&self, id: Id) -> Option<ArtifactOutcome> {
        self.mem.artifact(id).or_else(|| self.file_artifact(id))
    }

    /// Where a lesson stands, if it exists.
    pub fn lesson(&self, id: Id) -> Option<LessonEntry> {
        self.mem.lesson(id).or_else(|| self.file_lesson(id))
    }

    /// Every lesson with its entry, in id order.
    pub fn lessons(&self) -> Vec<(Id, LessonEntry)> {
        let mut all: BTreeMap<Id, LessonEntry> = self
            .file_lessons()
            .unwrap_or_default()
            .into_iter()
            .collect();
        all.extend(self.mem.lessons.iter().map(|(k, v)| (*k, *v)));
        all.into_iter().collect()
    }

    /// The pool entries that can apply when the packages whose coarse names
    /// ([`crate::version::coarse_name`]) are `names` are installed: those
    /// whose every needed name is among them ([`Summary::keys`]). A
    /// superset of what applies; recall decides with each ecosystem's exact
    /// rules.
    pub fn recall_candidates<'n>(&self, names: impl Iterator<Item = &'n str>) -> Vec<Id> {
        let wanted: BTreeSet<[u8; 8]> = names.map(name_key).collect();
        // Hits per lesson, and how many it needs.
        let mut hits: BTreeMap<Id, (usize, usize)> = BTreeMap::new();
        // One binary search per installed name: the mapped file's pages are
        // touched, not read whole, so this grows with the names installed
        // and the lessons naming them, not with the pools.
        if let Some((bytes, t)) = self.table(RCLK) {
            for key in &wanted {
                for r in format::find_prefix(bytes, t, key).unwrap_or_default() {
                    let e = hits.entry(id_at(&r, 8)).or_insert((0, r[24] as usize));
                    e.0 += 1;
                }
            }
        }
        for (id, summary) in &self.mem.summaries {
            hits.remove(id);
            if let Some(s) = summary {
                let (names, needed) = s.keys();
                let n = names
                    .iter()
                    .filter(|k| wanted.contains(&name_key(k)))
                    .count();
                hits.insert(*id, (n, needed));
            }
        }
        hits.into_iter()
            .filter(|(_, (n, needed))| *n > 0 && n >= needed)
            .map(|(id, _)| id)
            .collect()
    }

    /// What recall knows of one pool entry.
    pub fn summary(&self, id: Id) -> Option<Summary> {
        if let Some(s) = self.mem.summaries.get(&id) {
            return s.clone();
        }
        let (bytes, t) = self.table(RCLS)?;
        let rec = format::find(bytes, t, &id.to_bytes())?;
        let (off, len) = slot(&rec);
        let (bytes, heap) = self.table(RCLH)?;
        serde_json::from_slice(&format::heap_slice(bytes, heap, off, len)?).ok()
    }

    /// What recall knows of each of `ids` (those it knows), in id order:
    /// the slot table read once, each summary with one read.
    pub fn summaries_of(&self, ids: &[Id]) -> Vec<Summary> {
        let mut out: BTreeMap<Id, Summary> = BTreeMap::new();
        let mut from_file: Vec<Id> = Vec::new();
        for id in ids {
            match self.mem.summaries.get(id) {
                Some(Some(s)) => {
                    out.insert(*id, s.clone());
                }
                Some(None) => {}
                None => from_file.push(*id),
            }
        }
        if let (Some((bytes, slots)), Some((_, heap))) = (self.table(RCLS), self.table(RCLH)) {
            let mut wanted: Vec<(u64, usize)> = from_file
                .iter()
                .filter_map(|id| Some(slot(&format::find(bytes, slots, &id.to_bytes())?)))
                .collect();
            // In heap order: the pages are touched front to back.
            wanted.sort_unstable();
            for (off, len) in wanted {
                if let Some(s) = format::heap_slice(bytes, heap, off, len)
                    .and_then(|b| serde_json::from_slice::<Summary>(&b).ok())
                {
                    out.insert(s.id, s);
                }
            }
        }
        out.into_values().collect()
    }

    /// Every pool entry recall knows, in id order.
    pub fn summaries(&self) -> Vec<Summary> {
        let mut out: BTreeMap<Id, Summary> = BTreeMap::new();
        if let (Some((bytes, slots)), Some((_, heap))) = (self.table(RCLS), self.table(RCLH)) {
            if let (Some(slots), Some(heap)) = (format::all(bytes, slots), format::all(bytes, heap))
            {
                for rec in slots.chunks_exact(RCLS_WIDTH) {
                    let (off, len) = slot(rec);
                    if let Some(s) = heap
                        .get(off as usize..off as usize + len)
                        .and_then(|b| serde_json::from_slice::<Summary>(b).ok())
                    {
                        out.insert(s.id, s);
                    }
                }
            }
        }
        for (id, s) in &self.mem.summaries {
            match s {
                Some(s) => out.insert(*id, s.clone()),
                None => out.remove(id),
            };
        }
        out.into_values().collect()
    }

    /// How many artifacts and lessons it knows.
    pub fn counts(&self) -> (usize, usize) {
        let mut arts: HashSet<Id> = self.mem.artifacts.keys().copied().collect();
        arts.extend(
            self.file_artifacts()
                .unwrap_or_default()
                .into_iter()
                .map(|(id, _)| id),
        );
        (arts.len(), self.lessons().len())
    }

    /// Every artifact with its outcome, in id order.
    pub fn artifacts(&self) -> Vec<(Id, ArtifactOutcome)> {
        let mut all: BTreeMap<Id, ArtifactOutcome> = self
            .file_artifacts()
            .unwrap_or_default()
            .into_iter()
            .collect();
        all.extend(self.mem.artifacts.iter().map(|(k, v)| (*k, *v)));
        all.into_iter().collect()
    }

    /// Every id the index knows, lessons and artifacts, sorted and without
    /// repeats: what an id prefix is resolved against.
    pub fn ids(&self) -> Vec<Id> {
        let mut ids: Vec<Id> = Vec::new();
        for (tag, width) in [(ARTS, ART_WIDTH), (LESN, LES_WIDTH)] {
            if let Some(all) = self.table(tag).and_then(|(b, t)| format::all(b, t)) {
                ids.extend(all.chunks_exact(width).map(|r| id_at(r, 0)));
            }
        }
        ids.extend(self.mem.artifacts.keys());
        ids.extend(self.mem.lessons.keys());
        ids.sort_unstable();
        ids.dedup();
        ids
    }

    /// How many pool entries recall knows of.
    pub fn pool_entries(&self) -> usize {
        let mut ids: HashSet<Id> = self
            .table(RCLS)
            .and_then(|(bytes, t)| format::all(bytes, t))
            .map(|all| all.chunks_exact(RCLS_WIDTH).map(|r| id_at(r, 0)).collect())
            .unwrap_or_default();
        for (id, summary) in &self.mem.summaries {
            if summary.is_some() {
                ids.insert(*id);
            } else {
                ids.remove(id);
            }
        }
        ids.len()
    }

    /// The file's artifact table, decoded in one pass; `None` if it could
    /// not be read.
    fn file_artifacts(&self) -> Option<Vec<(Id, ArtifactOutcome)>> {
        let Some((bytes, t)) = self.table(ARTS) else {
            return Some(Vec::new());
        };
        Some(
            format::all(bytes, t)?
                .chunks_exact(ART_WIDTH)
                .filter_map(|rec| Some((id_at(rec, 0), decode_artifact(rec)?)))
                .collect(),
        )
    }

    /// The file's lesson table, decoded in one pass; `None` if it could not
    /// be read.
    fn file_lessons(&self) -> Option<Vec<(Id, LessonEntry)>> {
        let Some((bytes, t)) = self.table(LESN) else {
            return Some(Vec::new());
        };
        Some(
            format::all(bytes, t)?
                .chunks_exact(LES_WIDTH)
                .filter_map(|rec| Some((id_at(rec, 0), decode_lesson(rec)?)))
                .collect(),
        )
    }

    /// The recall tables as the file has them with `mem`'s summaries laid
    /// over: the file's raw records copied, changed entries replaced. `None`
    /// when the file's tables cannot be read.
    fn recall_tables(&self) -> Option<(Vec<u8>, Vec<u8>, Vec<u8>)> {
        let raw = |tag| match self.table(tag) {
            None => Some(Cow::Borrowed(&[][..])),
            Some((bytes, t)) => format::all(bytes, t),
        };
        let (old_keys, old_slots, old_heap) = (raw(RCLK)?, raw(RCLS)?, raw(RCLH)?);
        let changed = &self.mem.summaries;
        let mut keys = Vec::with_capacity(old_keys.len());
        for rec in old_keys.chunks_exact(RCLK_WIDTH) {
            if !changed.contains_key(&id_at(rec, 8)) {
                keys.extend_from_slice(rec);
            }
        }
        let mut slots = Vec::with_capacity(old_slots.len());
        let mut heap = Vec::with_capacity(old_heap.len());
        for rec in old_slots.chunks_exact(RCLS_WIDTH) {
            let id = id_at(rec, 0);
            if changed.contains_key(&id) {
                continue;
            }
            let (off, len) = slot(rec);
            let bytes = old_heap.get(off as usize..off as usize + len)?;
            push_summary(&mut slots, &mut heap, id, bytes);
        }
        for (id, summary) in changed {
            let Some(summary) = summary else { continue };
            let bytes = serde_json::to_vec(summary).expect("a summary serialises");
            push_summary(&mut slots, &mut heap, *id, &bytes);
            let (names, needed) = summary.keys();
            for name in names {
                keys.extend_from_slice(&name_key(&name));
                keys.extend_from_slice(&id.to_bytes());
                keys.push(needed.min(255) as u8);
            }
        }
        Some((keys, slots, heap))
    }

    fn persist(&mut self) -> Result<(), StoreError> {
        // A table that cannot be read is never rewritten from what could be:
        // that would record the new tips over missing entries.
        let (Some(file_arts), Some(file_lessons)) = (self.file_artifacts(), self.file_lessons())
        else {
            return Ok(());
        };
        let mut arts: BTreeMap<Id, ArtifactOutcome> = file_arts.into_iter().collect();
        arts.extend(self.mem.artifacts.iter().map(|(k, v)| (*k, *v)));
        let mut lessons: BTreeMap<Id, LessonEntry> = file_lessons.into_iter().collect();
        lessons.extend(self.mem.lessons.iter().map(|(k, v)| (*k, *v)));
        let Some((keys, slots, heap)) = self.recall_tables() else {
            return Ok(());
        };
        let refs: Vec<RefState> = self.refs.values().cloned().collect();
        let out = format::encode(
            &refs,
            vec![
                TableData {
                    tag: RCLK,
                    width: RCLK_WIDTH,
                    key: 24,
                    records: keys,
                },
                TableData {
                    tag: RCLS,
                    width: RCLS_WIDTH,
                    key: 16,
                    records: slots,
                },
                TableData {
                    tag: RCLH,
                    width: 1,
                    key: 0,
                    records: heap,
                },
                TableData {
                    tag: ARTS,
                    width: ART_WIDTH,
                    key: 16,
                    records: arts
                        .iter()
                        .flat_map(|(k, v)| encode_artifact(*k, v))
                        .collect(),
                },
                TableData {
                    tag: LESN,
                    width: LES_WIDTH,
                    key: 16,
                    records: lessons
                        .iter()
                        .flat_map(|(k, v)| encode_lesson(*k, v))
                        .collect(),
                },
            ],
        );
        let dir = self.path.parent().expect("index lives in a directory");
        super::io_ctx(fs::create_dir_all(dir), || {
            format!("creating {}", dir.display())
        })?;
        let mut tmp = super::io_ctx(tempfile::NamedTempFile::new_in(dir), || {
            format!("writing the index in {}", dir.display())
        })?;
        super::io_ctx(tmp.write_all(&out), || "writing the index".into())?;
        super::io_ctx(tmp.persist(&self.path).map_err(|e| e.error), || {
            format!("replacing {}", self.path.display())
        })?;
        let bytes = Bytes::Memory(out);
        let header = format::read_header(&bytes).expect("a file this build just encoded");
        self.file = Some((bytes, header));
        self.mem = Overlay::default();
        Ok(())
    }
}

/// The events of every commit reachable from `tip` but not from `stop`,
/// parents before children. `None` when `stop` is given but is not an
/// ancestor of `tip` (history was rewritten). Commits whose trailers do not
/// read as an event (a forge's merge commit, say) contribute nothing.
fn walk(
    store: &Store,
    tip: ObjectId,
    stop: Option<ObjectId>,
) -> Result<Option<Vec<Event>>, StoreError> {
    let events = store.walk_since(tip, stop, |_, message| {
        let (_, lines) = trailers::parse(&String::from_utf8_lossy(message));
        Event::from_trailers(&lines).ok()
    })?;
    Ok(events.map(|list| list.into_iter().flatten().collect()))
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

    #[test]
    fn records_round_trip_through_their_codes() {
        for (i, o) in [
            ArtifactOutcome::Proposed { lesson: id(5) },
            ArtifactOutcome::Declined {
                reason: Some(DeclineReason::SchemaInvalid),
            },
            ArtifactOutcome::Declined { reason: None },
        ]
        .iter()
        .enumerate()
        {
            let rec = encode_artifact(id(i as u8), o);
            assert_eq!(decode_artifact(&rec).as_ref(), Some(o));
        }
        let e = LessonEntry {
            artifact: id(3),
            status: ProposalStatus::Approved,
            visibility: Some(Visibility::Private),
            pool: Some(Source::Local),
            promoted: true,
        };
        assert_eq!(decode_lesson(&encode_lesson(id(4), &e)), Some(e));
        let bare = LessonEntry {
            visibility: None,
            pool: None,
            promoted: false,
            ..e
        };
        assert_eq!(decode_lesson(&encode_lesson(id(4), &bare)), Some(bare));
    }

    #[test]
    fn a_file_of_another_build_is_not_read() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("index");
        let tables = |rclk_width: Option<usize>| {
            TABLES
                .iter()
                .filter_map(|&(tag, width)| {
                    let width = if tag == RCLK { rclk_width? } else { width };
                    Some(TableData {
                        tag,
                        width,
                        key: if width == 1 { 0 } else { 8 },
                        records: vec![0; width * 2],
                    })
                })
                .collect()
        };
        fs::write(&path, format::encode(&[], tables(Some(RCLK_WIDTH)))).unwrap();
        assert!(Index::open(path.clone()).file.is_some());
        // The recall keys of the build before `needed` was kept: 24 bytes.
        fs::write(&path, format::encode(&[], tables(Some(24)))).unwrap();
        assert!(Index::open(path.clone()).file.is_none());
        // The build before recall: no recall keys at all.
        fs::write(&path, format::encode(&[], tables(None))).unwrap();
        assert!(Index::open(path).file.is_none());
    }
}
