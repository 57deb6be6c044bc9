//! The derived index: what happened to each artifact and where each lesson
//! stands, answered without walking history.
//!
//! It is a cache under `<gitdir>/lore/`, never committed and never the
//! source of truth: a small chain file `index` naming, by full ref name,
//! the tip of every lore ref it was built from ([`format::RefState`]) and
//! its *layers*, immutable table files under `index.d/`, oldest first. A
//! newer layer's record replaces an older one's; a pool entry that is gone
//! has a tombstone until its layer is merged into the bottom one. A write
//! adds a layer holding what changed and merges the top layers while they
//! are not geometrically smaller than the one below ([`Index::persist`]),
//! so writing costs what changed (amortised), not the whole index, and a
//! look-up searches a handful of files. On load it catches up by walking
//! only the commits since the recorded tips and folding their events
//! ([`Overlay::fold`]); if a recorded tip is no longer an ancestor of its
//! ref (history rewritten, or replaced by a fetch), or a file is of another
//! version or damaged, it is rebuilt from scratch. Deleting the files
//! changes no answer. Everything it knows comes from commit trailers, which
//! `git lore verify` checks against what each commit changed.
//!
//! The file formats are [`format`]; the tables are `ARTS` (artifact →
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
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use gix::ObjectId;

use self::format::{Bytes, Chain, LayerRef, RefState, TableData, TableDir, Tag};
use super::layout::Branch;
use super::{Store, StoreError};
use crate::event::{Event, Learn};
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
/// length (u32) in the heap; a length of [`TOMBSTONE`] says the entry is
/// gone (in a layer above others, which may still have it).
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
/// A summary length that marks a gone pool entry.
const TOMBSTONE: u32 = u32::MAX;
/// A new layer absorbs the one below it while that one is less than this
/// many times its size (see [`Index::persist`]).
const COMPACT_FACTOR: u64 = 2;

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

/// Changes on top of the layers' tables: learned by catching up, or made by
/// a transaction in progress.
#[derive(Clone, Debug, Default)]
pub struct Overlay {
    artifacts: BTreeMap<Id, ArtifactOutcome>,
    lessons: BTreeMap<Id, LessonEntry>,
    /// Pool entries learned since the layers: their summaries (`None`: the
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

/// One layer of the chain, open for look-ups: its file is mapped, its
/// tables are not read.
#[derive(Debug)]
struct Layer {
    name: String,
    size: u64,
    bytes: Bytes,
    tables: Vec<TableDir>,
}

/// What a layer says about a pool entry's summary.
enum Word<'b> {
    /// Nothing: ask an older layer.
    Silent,
    /// The entry is gone (or does not read).
    Gone,
    /// Its summary's JSON.
    Summary(Cow<'b, [u8]>),
}

impl Layer {
    fn table(&self, tag: Tag) -> Option<&TableDir> {
        self.tables.iter().find(|t| t.tag == tag)
    }

    /// A whole table's records; `None` when they cannot be read.
    fn all(&self, tag: Tag) -> Option<Cow<'_, [u8]>> {
        format::all(&self.bytes, self.table(tag)?)
    }

    fn find(&self, tag: Tag, id: Id) -> Option<Cow<'_, [u8]>> {
        format::find(&self.bytes, self.table(tag)?, &id.to_bytes())
    }

    fn artifact(&self, id: Id) -> Option<ArtifactOutcome> {
        decode_artifact(&self.find(ARTS, id)?)
    }

    fn lesson(&self, id: Id) -> Option<LessonEntry> {
        decode_lesson(&self.find(LESN, id)?)
    }

    /// Where this layer keeps `id`'s summary: `None` when it says nothing,
    /// `Some(None)` when it says the entry is gone.
    fn slot_of(&self, id: Id) -> Option<Option<(u64, usize)>> {
        self.find(RCLS, id).map(|rec| slot(&rec))
    }

    fn summary(&self, id: Id) -> Word<'_> {
        match self.slot_of(id) {
            None => Word::Silent,
            Some(None) => Word::Gone,
            Some(Some((off, len))) => match self.heap(off, len) {
                Some(b) => Word::Summary(b),
                None => Word::Gone,
            },
        }
    }

    fn heap(&self, off: u64, len: usize) -> Option<Cow<'_, [u8]>> {
        format::heap_slice(&self.bytes, self.table(RCLH)?, off, len)
    }
}

/// The loaded index, caught up to the ref tips it was loaded at.
#[derive(Debug)]
pub struct Index {
    /// The chain file, `<gitdir>/lore/index`; the layers are in `index.d`
    /// beside it.
    path: PathBuf,
    /// The chain's bytes as they were read, when a usable chain was: a
    /// write adds a layer only if the chain is still these bytes.
    chain: Option<Vec<u8>>,
    /// The chain's layers, oldest first; a newer layer's record for a key
    /// replaces an older one's. Empty when no usable chain was read: then
    /// `mem` holds everything.
    layers: Vec<Layer>,
    /// The refs the index (layers + `mem`) reflects, by name.
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
/// Where a summary lies: (offset, length) in the heap; `None` for a
/// tombstone (the entry is gone).
fn slot(rec: &[u8]) -> Option<(u64, usize)> {
    let off = u64::from_be_bytes(rec[16..24].try_into().expect("8 bytes"));
    let len = u32::from_be_bytes(rec[24..28].try_into().expect("4 bytes"));
    (len != TOMBSTONE).then_some((off, len as usize))
}

fn push_summary(slots: &mut Vec<u8>, heap: &mut Vec<u8>, id: Id, bytes: &[u8]) {
    slots.extend_from_slice(&id.to_bytes());
    slots.extend_from_slice(&(heap.len() as u64).to_be_bytes());
    slots.extend_from_slice(&(bytes.len() as u32).to_be_bytes());
    heap.extend_from_slice(bytes);
}

fn push_tombstone(slots: &mut Vec<u8>, id: Id) {
    slots.extend_from_slice(&id.to_bytes());
    slots.extend_from_slice(&0u64.to_be_bytes());
    slots.extend_from_slice(&TOMBSTONE.to_be_bytes());
}

fn id_at(data: &[u8], off: usize) -> Id {
    let mut b = [0u8; 16];
    b.copy_from_slice(&data[off..off + 16]);
    Id::from_bytes(b)
}

/// Why a chain could not be opened.
enum Unopened {
    /// A layer it names is gone: a compaction replaced it after the chain
    /// was read. Reading the chain again finds its successor.
    Moved,
    /// Missing, of another version, or damaged: rebuilt from history.
    Unusable,
}

impl Index {
    fn empty(path: PathBuf) -> Index {
        Index {
            path,
            chain: None,
            layers: Vec::new(),
            refs: BTreeMap::new(),
            mem: Overlay::default(),
            rebuilt: false,
            walked: 0,
        }
    }

    fn layer_dir(&self) -> PathBuf {
        self.path.with_file_name("index.d")
    }

    /// Reads the chain and opens its layers for look-ups; the tables are
    /// not read. A missing, old or damaged chain or layer gives an empty
    /// index, which catching up rebuilds.
    fn open(path: PathBuf) -> Index {
        // A compaction deletes the layers it replaced right after renaming
        // the new chain into place; a reader caught between the two reads
        // the chain again. Compactions are rare, so a few tries suffice.
        for _ in 0..4 {
            let mut index = Index::empty(path.clone());
            match index.open_chain() {
                Ok(()) => return index,
                Err(Unopened::Moved) => continue,
                Err(Unopened::Unusable) => break,
            }
        }
        Index::empty(path)
    }

    fn open_chain(&mut self) -> Result<(), Unopened> {
        let bytes = read_regular(&self.path, format::MAX_CHAIN).ok_or(Unopened::Unusable)?;
        let chain = format::read_chain(&bytes).map_err(|_| Unopened::Unusable)?;
        let dir = self.layer_dir();
        for l in &chain.layers {
            let path = dir.join(&l.name);
            // Only a regular file: opening a FIFO put in its place would
            // wait for a writer forever.
            let meta = match fs::symlink_metadata(&path) {
                Ok(m) => m,
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Err(Unopened::Moved),
                Err(_) => return Err(Unopened::Unusable),
            };
            if !meta.is_file() || meta.len() != l.size {
                return Err(Unopened::Unusable);
            }
            let file = match fs::File::open(&path) {
                Ok(f) => f,
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Err(Unopened::Moved),
                Err(_) => return Err(Unopened::Unusable),
            };
            let bytes = Bytes::of_file(file);
            let tables = format::read_layer(&bytes).map_err(|_| Unopened::Unusable)?;
            // A layer without one of this build's tables, or with one of
            // another width, was written by another build: nothing in the
            // index is trusted, and catching up rebuilds. (Read as empty
            // tables, missing recall tables would hide every lesson until
            // the next rebuild.)
            let of_this_build = TABLES
                .iter()
                .all(|(tag, width)| tables.iter().any(|t| &t.tag == tag && t.width == *width));
            if !of_this_build {
                return Err(Unopened::Unusable);
            }
            self.layers.push(Layer {
                name: l.name.clone(),
                size: l.size,
                bytes,
                tables,
            });
        }
        self.refs = chain
            .refs
            .iter()
            .map(|r| (r.name.clone(), r.clone()))
            .collect();
        self.chain = Some(bytes);
        Ok(())
    }

    /// Loads the index and catches it up with every lore ref.
    pub fn load(store: &Store) -> Result<Index, StoreError> {
        let mut index = Index::open(store.lore_dir().join("index"));
        index.catch_up(store)?;
        Ok(index)
    }

    /// Throws the index away and rebuilds it from history.
    pub fn rebuild(store: &Store) -> Result<Index, StoreError> {
        let mut index = Index::empty(store.lore_dir().join("index"));
        index.catch_up(store)?;
        index.rebuilt = true;
        // `catch_up` wrote it, unless another process held the lock.
        if !index.persist()? {
            return Err(StoreError::Io {
                context: "another git-lore process is writing the index; run `git lore index --rebuild` again".into(),
                source: std::io::Error::from(std::io::ErrorKind::WouldBlock),
            });
        }
        Ok(index)
    }

    /// The refs this index reflects, by name (what the tests look at).
    #[cfg(test)]
    fn refs(&self) -> impl Iterator<Item = &RefState> {
        self.refs.values()
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
                let lookup = |id: Id| file.layer_lesson(id);
                for e in &list {
                    mem.fold(&lookup, RefKind::of(branch), e);
                }
            }
            // What recall knows of a pool entry is its content as the pool
            // stands now.
            if let (Branch::Pool(_), Some((_, tip))) = (branch, current.get(&branch.ref_name())) {
                let touched: BTreeSet<Id> = list.iter().flat_map(Event::entries_changed).collect();
                let tree = store.tree_of(*tip)?;
                for id in touched {
                    let bytes = store.read_in_tree(tree, &layout::lesson_path(id))?;
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
        // Best effort: the index is a cache. A repository whose cache cannot
        // be written (read-only, disk full) still answers, by walking
        // history again next time. What was walked is written as a layer
        // of its own: the cost grows with it, not with the index.
        let _ = self.persist();
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

    fn layer_lesson(&self, id: Id) -> Option<LessonEntry> {
        self.layers.iter().rev().find_map(|l| l.lesson(id))
    }

    /// What happened to an artifact, if anything.
    pub fn artifact(&self, id: Id) -> Option<ArtifactOutcome> {
        self.mem
            .artifact(id)
            .or_else(|| self.layers.iter().rev().find_map(|l| l.artifact(id)))
    }

    /// Where a lesson stands, if it exists.
    pub fn lesson(&self, id: Id) -> Option<LessonEntry> {
        self.mem.lesson(id).or_else(|| self.layer_lesson(id))
    }

    /// Every lesson with its entry, in id order.
    pub fn lessons(&self) -> Vec<(Id, LessonEntry)> {
        self.every(LESN, LES_WIDTH, decode_lesson, &self.mem.lessons)
    }

    /// Every artifact with its outcome, in id order.
    pub fn artifacts(&self) -> Vec<(Id, ArtifactOutcome)> {
        self.every(ARTS, ART_WIDTH, decode_artifact, &self.mem.artifacts)
    }

    /// Every record of table `tag` (of `width` bytes, read by `decode`) of
    /// every layer, newer over older, then what `mem` holds over them.
    fn every<V: Copy>(
        &self,
        tag: Tag,
        width: usize,
        decode: fn(&[u8]) -> Option<V>,
        mem: &BTreeMap<Id, V>,
    ) -> Vec<(Id, V)> {
        let mut all: BTreeMap<Id, V> = BTreeMap::new();
        for l in &self.layers {
            if let Some(recs) = l.all(tag) {
                all.extend(
                    recs.chunks_exact(width)
                        .filter_map(|rec| Some((id_at(rec, 0), decode(rec)?))),
                );
            }
        }
        all.extend(mem.iter().map(|(k, v)| (*k, *v)));
        all.into_iter().collect()
    }

    /// Whether a layer newer than the `k`th (or `mem`) has a word on `id`'s
    /// summary: then what the `k`th says of it is out of date.
    fn summary_replaced_after(&self, k: usize, id: Id) -> bool {
        self.mem.summaries.contains_key(&id)
            || self.layers[k + 1..].iter().any(|l| l.slot_of(id).is_some())
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
        // One binary search per installed name and layer: the mapped files'
        // pages are touched, not read whole, so this grows with the names
        // installed and the lessons naming them, not with the pools. A
        // lesson's keys all lie in the layer that has its summary; the
        // newest layer with a word on it decides.
        for (k, l) in self.layers.iter().enumerate() {
            let Some(t) = l.table(RCLK) else { continue };
            let mut here: BTreeMap<Id, (usize, usize)> = BTreeMap::new();
            for key in &wanted {
                for r in format::find_prefix(&l.bytes, t, key).unwrap_or_default() {
                    let e = here.entry(id_at(&r, 8)).or_insert((0, r[24] as usize));
                    e.0 += 1;
                }
            }
            for (id, h) in here {
                if !self.summary_replaced_after(k, id) {
                    hits.insert(id, h);
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
        for l in self.layers.iter().rev() {
            match l.summary(id) {
                Word::Silent => continue,
                Word::Gone => return None,
                Word::Summary(b) => return serde_json::from_slice(&b).ok(),
            }
        }
        None
    }

    /// What recall knows of each of `ids` (those it knows), in id order:
    /// each summary found with one search per layer and read with one
    /// read, in heap order.
    pub fn summaries_of(&self, ids: &[Id]) -> Vec<Summary> {
        let mut out: BTreeMap<Id, Summary> = BTreeMap::new();
        // (layer, offset, length) of each summary the layers hold.
        let mut wanted: Vec<(usize, u64, usize)> = Vec::new();
        for id in ids {
            match self.mem.summaries.get(id) {
                Some(Some(s)) => {
                    out.insert(*id, s.clone());
                }
                Some(None) => {}
                None => {
                    for (k, l) in self.layers.iter().enumerate().rev() {
                        match l.slot_of(*id) {
                            None => continue,
                            Some(None) => break,
                            Some(Some((off, len))) => {
                                wanted.push((k, off, len));
                                break;
                            }
                        }
                    }
                }
            }
        }
        // In heap order: the pages are touched front to back.
        wanted.sort_unstable();
        for (k, off, len) in wanted {
            if let Some(s) = self.layers[k]
                .heap(off, len)
                .and_then(|b| serde_json::from_slice::<Summary>(&b).ok())
            {
                out.insert(s.id, s);
            }
        }
        out.into_values().collect()
    }

    /// Every pool entry recall knows, in id order.
    pub fn summaries(&self) -> Vec<Summary> {
        let mut out: BTreeMap<Id, Summary> = BTreeMap::new();
        for l in &self.layers {
            let (Some(slots), Some(heap)) = (l.all(RCLS), l.all(RCLH)) else {
                continue;
            };
            for rec in slots.chunks_exact(RCLS_WIDTH) {
                let id = id_at(rec, 0);
                out.remove(&id);
                if let Some(s) = slot(rec)
                    .and_then(|(off, len)| heap.get(off as usize..off as usize + len))
                    .and_then(|b| serde_json::from_slice::<Summary>(b).ok())
                {
                    out.insert(s.id, s);
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
        (self.artifacts().len(), self.lessons().len())
    }

    /// Every id the index knows, lessons and artifacts, sorted and without
    /// repeats: what an id prefix is resolved against.
    pub fn ids(&self) -> Vec<Id> {
        let mut ids: Vec<Id> = Vec::new();
        for l in &self.layers {
            for (tag, width) in [(ARTS, ART_WIDTH), (LESN, LES_WIDTH)] {
                if let Some(all) = l.all(tag) {
                    ids.extend(all.chunks_exact(width).map(|r| id_at(r, 0)));
                }
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
        let mut ids: HashSet<Id> = HashSet::new();
        for l in &self.layers {
            if let Some(slots) = l.all(RCLS) {
                for rec in slots.chunks_exact(RCLS_WIDTH) {
                    if slot(rec).is_some() {
                        ids.insert(id_at(rec, 0));
                    } else {
                        ids.remove(&id_at(rec, 0));
                    }
                }
            }
        }
        for (id, summary) in &self.mem.summaries {
            if summary.is_some() {
                ids.insert(*id);
            } else {
                ids.remove(id);
            }
        }
        ids.len()
    }

    /// The chain's names for the first `n` layers.
    fn layer_refs(&self, n: usize) -> Vec<LayerRef> {
        self.layers[..n]
            .iter()
            .map(|l| LayerRef {
                name: l.name.clone(),
                size: l.size,
            })
            .collect()
    }

    /// Writes what `mem` holds as a new layer on top of the chain read at
    /// load, and a chain naming it and the refs. The new layer absorbs the
    /// layers under it while the one below is less than [`COMPACT_FACTOR`]
    /// times what it holds so far, so the layers' sizes at least double
    /// downwards: there are about log2(index / smallest write) of them, a
    /// record is rewritten about that many times over its life, and a write
    /// costs what changed, amortised, not the whole index.
    ///
    /// One writer at a time (`index.lock`, an advisory lock the kernel
    /// drops with its process). A writer that finds the lock held, or the
    /// chain changed since it read it, writes nothing: the next load walks
    /// what it would have written. An index loaded without a usable chain
    /// holds everything in `mem`, and replaces whatever chain is there.
    ///
    /// Crash safety: a layer is written whole under a name no chain names,
    /// then the chain is replaced by a rename, and only then are the layers
    /// it no longer names deleted. A SIGKILL at any instant leaves the old
    /// chain or the new one, each naming whole layers. A layer is synced
    /// before the chain that names it is written, so a crash of the machine
    /// leaves at worst a chain cut short (its checks fail, and the index is
    /// rebuilt), never one naming a layer whose data did not reach the
    /// disk.
    ///
    /// Returns whether the index on disk is now this one: `false` when the
    /// lock was held or the chain had moved, and nothing was written.
    fn persist(&mut self) -> Result<bool, StoreError> {
        let full = self.layers.is_empty();
        let refs: Vec<RefState> = self.refs.values().cloned().collect();
        if !full && self.mem.len() == 0 {
            let same = format::encode_chain(&Chain {
                refs: refs.clone(),
                layers: self.layer_refs(self.layers.len()),
            });
            if self.chain.as_ref() == Some(&same) {
                return Ok(true);
            }
        }
        let dir = self
            .path
            .parent()
            .expect("index lives in a directory")
            .to_owned();
        let layer_dir = self.layer_dir();
        super::io_ctx(fs::create_dir_all(&layer_dir), || {
            format!("creating {}", layer_dir.display())
        })?;
        let lock_path = dir.join("index.lock");
        let Some(_lock) = super::io_ctx(WriteLock::try_take(&lock_path), || {
            format!("locking {}", lock_path.display())
        })?
        else {
            return Ok(false);
        };
        if !full && read_regular(&self.path, format::MAX_CHAIN) != self.chain {
            return Ok(false);
        }
        let mut start = self.layers.len();
        let mut new = None;
        if self.mem.len() > 0 {
            let Some(tables) = merge(&[], &self.mem, full) else {
                return Ok(false);
            };
            let fresh = format::encode_layer(tables);
            let mut sum = fresh.len() as u64;
            while start > 0 && self.layers[start - 1].size < COMPACT_FACTOR * sum {
                start -= 1;
                sum += self.layers[start].size;
            }
            new = Some(if start == self.layers.len() {
                fresh
            } else {
                let Some(tables) = merge(&self.layers[start..], &self.mem, start == 0) else {
                    return Ok(false);
                };
                format::encode_layer(tables)
            });
        }
        let mut layers = self.layer_refs(start);
        let mut written = None;
        if let Some(bytes) = new {
            let mut tmp = super::io_ctx(
                tempfile::Builder::new()
                    .prefix("layer-")
                    .suffix(".tab")
                    .tempfile_in(&layer_dir),
                || format!("writing an index layer in {}", layer_dir.display()),
            )?;
            // On disk before any chain names it: after a crash of the
            // machine, a layer whose pages were never written would read
            // as zeros behind a whole header, and only the header is
            // checked when a layer is opened.
            super::io_ctx(
                tmp.write_all(&bytes)
                    .and_then(|()| tmp.as_file().sync_all()),
                || "writing an index layer".into(),
            )?;
            let (_, path) = super::io_ctx(tmp.keep().map_err(|e| e.error), || {
                "keeping an index layer".into()
            })?;
            let name = path
                .file_name()
                .and_then(|n| n.to_str())
                .filter(|n| format::is_layer_name(n))
                .map(str::to_owned);
            let Some(name) = name else {
                let _ = fs::remove_file(&path);
                return Ok(false);
            };
            layers.push(LayerRef {
                name: name.clone(),
                size: bytes.len() as u64,
            });
            written = Some((name, bytes));
        }
        let chain = format::encode_chain(&Chain {
            refs,
            layers: layers.clone(),
        });
        let mut tmp = super::io_ctx(tempfile::NamedTempFile::new_in(&dir), || {
            format!("writing the index in {}", dir.display())
        })?;
        super::io_ctx(tmp.write_all(&chain), || "writing the index".into())?;
        super::io_ctx(tmp.persist(&self.path).map_err(|e| e.error), || {
            format!("replacing {}", self.path.display())
        })?;
        // The layers the chain no longer names, and any a killed writer
        // left: no other writer is at work (the lock), and a reader that
        // read the old chain reads the new one (see `open`).
        if let Ok(entries) = fs::read_dir(&layer_dir) {
            for e in entries.flatten() {
                let name = e.file_name();
                if !layers.iter().any(|l| name.to_str() == Some(&l.name)) {
                    let _ = fs::remove_file(e.path());
                }
            }
        }
        self.layers.truncate(start);
        if let Some((name, bytes)) = written {
            let size = bytes.len() as u64;
            let bytes = Bytes::Memory(bytes);
            let tables = format::read_layer(&bytes).expect("a layer this build just encoded");
            self.layers.push(Layer {
                name,
                size,
                bytes,
                tables,
            });
        }
        self.chain = Some(chain);
        self.mem = Overlay::default();
        Ok(true)
    }
}

/// The tables of one layer holding what `layers` (oldest first) and then
/// `mem` say, the newest word on each key winning. `bottom`: no layer lies
/// under it, so the tombstones of gone pool entries are dropped. `None`
/// when a table cannot be read: a table that cannot be read is never
/// rewritten from what could be, which would record the new tips over
/// missing entries.
fn merge(layers: &[Layer], mem: &Overlay, bottom: bool) -> Option<Vec<TableData>> {
    let mut arts: BTreeMap<Id, [u8; ART_WIDTH]> = BTreeMap::new();
    let mut lessons: BTreeMap<Id, [u8; LES_WIDTH]> = BTreeMap::new();
    // A pool entry's summary (`None`: gone), and its recall keys.
    let mut summaries: BTreeMap<Id, Option<Vec<u8>>> = BTreeMap::new();
    let mut keys: BTreeMap<Id, Vec<[u8; RCLK_WIDTH]>> = BTreeMap::new();
    for l in layers {
        for rec in l.all(ARTS)?.chunks_exact(ART_WIDTH) {
            arts.insert(id_at(rec, 0), rec.try_into().expect("a record"));
        }
        for rec in l.all(LESN)?.chunks_exact(LES_WIDTH) {
            lessons.insert(id_at(rec, 0), rec.try_into().expect("a record"));
        }
        let heap = l.all(RCLH)?;
        // This layer's word on an entry replaces its keys as well: they
        // all lie in the layer that has its summary.
        for rec in l.all(RCLS)?.chunks_exact(RCLS_WIDTH) {
            let id = id_at(rec, 0);
            keys.remove(&id);
            let summary = match slot(rec) {
                None => None,
                Some((off, len)) => Some(heap.get(off as usize..off as usize + len)?.to_vec()),
            };
            summaries.insert(id, summary);
        }
        for rec in l.all(RCLK)?.chunks_exact(RCLK_WIDTH) {
            keys.entry(id_at(rec, 8))
                .or_default()
                .push(rec.try_into().expect("a record"));
        }
    }
    for (id, o) in &mem.artifacts {
        arts.insert(*id, encode_artifact(*id, o));
    }
    for (id, e) in &mem.lessons {
        lessons.insert(*id, encode_lesson(*id, e));
    }
    for (id, summary) in &mem.summaries {
        keys.remove(id);
        let Some(s) = summary else {
            summaries.insert(*id, None);
            continue;
        };
        summaries.insert(
            *id,
            Some(serde_json::to_vec(s).expect("a summary serialises")),
        );
        let (names, needed) = s.keys();
        let recs = names
            .iter()
            .map(|name| {
                let mut r = [0u8; RCLK_WIDTH];
                r[..8].copy_from_slice(&name_key(name));
                r[8..24].copy_from_slice(&id.to_bytes());
                r[24] = needed.min(255) as u8;
                r
            })
            .collect();
        keys.insert(*id, recs);
    }
    let mut slots = Vec::with_capacity(summaries.len() * RCLS_WIDTH);
    let mut heap = Vec::new();
    for (id, summary) in &summaries {
        match summary {
            Some(bytes) => push_summary(&mut slots, &mut heap, *id, bytes),
            None if !bottom => push_tombstone(&mut slots, *id),
            None => {}
        }
    }
    Some(vec![
        TableData {
            tag: RCLK,
            width: RCLK_WIDTH,
            key: 24,
            records: keys.values().flatten().flatten().copied().collect(),
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
            records: arts.values().flatten().copied().collect(),
        },
        TableData {
            tag: LESN,
            width: LES_WIDTH,
            key: 16,
            records: lessons.values().flatten().copied().collect(),
        },
    ])
}

/// A regular file's bytes, if it is one of at most `max` bytes.
fn read_regular(path: &Path, max: u64) -> Option<Vec<u8>> {
    // Only a regular file: opening a FIFO put in its place would wait for
    // a writer forever.
    let meta = fs::symlink_metadata(path).ok()?;
    if !meta.is_file() || meta.len() > max {
        return None;
    }
    let mut out = Vec::with_capacity(meta.len() as usize);
    fs::File::open(path)
        .ok()?
        .take(max + 1)
        .read_to_end(&mut out)
        .ok()?;
    (out.len() as u64 <= max).then_some(out)
}

/// The index writers' lock: `flock` on `index.lock`, which the kernel
/// releases when the file is closed or its process dies, so a killed
/// writer never leaves it held.
struct WriteLock(fs::File);

impl Drop for WriteLock {
    /// Unlocks explicitly: a child forked (to run a program) while the lock
    /// was held shares its open file until it execs, and closing our
    /// descriptor alone would leave the lock held until then.
    fn drop(&mut self) {
        use std::os::unix::io::AsRawFd;
        // SAFETY: `flock` on the descriptor this value owns.
        unsafe { libc::flock(self.0.as_raw_fd(), libc::LOCK_UN) };
    }
}

impl WriteLock {
    /// The lock, or `None` when another writer holds it.
    fn try_take(path: &Path) -> std::io::Result<Option<WriteLock>> {
        use std::os::unix::fs::OpenOptionsExt;
        use std::os::unix::io::AsRawFd;
        let file = fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
            .open(path)?;
        // SAFETY: `flock` on a descriptor this function owns; it touches no
        // memory.
        if unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) } == 0 {
            return Ok(Some(WriteLock(file)));
        }
        let e = std::io::Error::last_os_error();
        if e.kind() == std::io::ErrorKind::WouldBlock {
            Ok(None)
        } else {
            Err(e)
        }
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

    fn oid(n: u32) -> ObjectId {
        let mut b = [7u8; 20];
        b[..4].copy_from_slice(&n.to_be_bytes());
        ObjectId::from_bytes_or_panic(&b)
    }

    fn summary_of(n: u32) -> Summary {
        let names = ["react", "next", "vue", "lodash", "left-pad"];
        let a = names[n as usize % names.len()];
        let b = names[(n as usize + 2) % names.len()];
        let versions: Vec<(&str, &str)> = match n % 3 {
            0 => vec![],
            1 => vec![(a, ">=1")],
            _ => vec![(a, ">=1"), (b, "<9")],
        };
        Summary::of(&crate::recall::select::tests::lesson(
            n,
            &versions,
            "2026-08-05T10:00:00Z",
        ))
    }

    /// An index whose path is `dir/lore/index`, knowing `refs` at tip `t`.
    fn at(dir: &Path, t: u32) -> Index {
        let mut index = Index::open(dir.join("lore/index"));
        let name = "refs/heads/ledger".to_owned();
        index.refs.insert(
            name.clone(),
            RefState {
                name,
                tip: oid(t),
                verified: None,
            },
        );
        index
    }

    /// One round of changes: new artifacts and lessons, some changed, pool
    /// entries added, replaced and removed.
    fn round(r: u32) -> Overlay {
        let mut o = Overlay::default();
        for k in 0..(1 + r % 4) {
            let n = r * 10 + k;
            let a = Id::from_parts(1_700_000_000_000, u128::from(n) + 1_000_000);
            let l = Id::from_parts(1_700_000_000_000, u128::from(n));
            o.artifacts
                .insert(a, ArtifactOutcome::Proposed { lesson: l });
            o.lessons.insert(
                l,
                LessonEntry {
                    artifact: a,
                    status: ProposalStatus::Pending,
                    visibility: None,
                    pool: None,
                    promoted: false,
                },
            );
            let s = summary_of(n);
            o.summaries.insert(s.id, Some(s));
        }
        if r > 2 {
            // An earlier lesson moves on; an earlier entry is replaced by
            // another's content, one is gone, and a gone one comes back.
            let l = Id::from_parts(1_700_000_000_000, u128::from((r - 2) * 10));
            o.lessons.insert(
                l,
                LessonEntry {
                    artifact: id(1),
                    status: ProposalStatus::Approved,
                    visibility: Some(Visibility::Org),
                    pool: Some(Source::Org),
                    promoted: true,
                },
            );
            let changed = summary_of((r - 3) * 10);
            let mut other = summary_of((r - 3) * 10 + 1);
            other.id = changed.id;
            o.summaries.insert(changed.id, Some(other));
            o.summaries.insert(summary_of((r - 2) * 10).id, None);
            if r % 5 == 0 {
                let back = summary_of((r - 4) * 10);
                o.summaries.insert(back.id, Some(back));
            }
        }
        o
    }

    fn absorb(all: &mut Overlay, o: &Overlay) {
        all.artifacts
            .extend(o.artifacts.iter().map(|(k, v)| (*k, *v)));
        all.lessons.extend(o.lessons.iter().map(|(k, v)| (*k, *v)));
        all.summaries
            .extend(o.summaries.iter().map(|(k, v)| (*k, v.clone())));
    }

    /// Every answer of `got` equals `want`'s.
    fn assert_same(got: &Index, want: &Index, ids: &[Id]) {
        assert_eq!(got.lessons(), want.lessons());
        assert_eq!(got.artifacts(), want.artifacts());
        assert_eq!(got.ids(), want.ids());
        assert_eq!(got.counts(), want.counts());
        assert_eq!(got.pool_entries(), want.pool_entries());
        assert_eq!(got.summaries(), want.summaries());
        assert_eq!(got.summaries_of(ids), want.summaries_of(ids));
        for id in ids {
            assert_eq!(got.artifact(*id), want.artifact(*id));
            assert_eq!(got.lesson(*id), want.lesson(*id));
            assert_eq!(got.summary(*id), want.summary(*id), "summary of {id}");
        }
        let names = ["react", "next", "vue", "lodash", "left-pad", "nothing"];
        for a in 0..names.len() {
            for b in a..names.len() {
                let installed = [names[a], names[b]];
                assert_eq!(
                    got.recall_candidates(installed.iter().copied()),
                    want.recall_candidates(installed.iter().copied()),
                    "candidates for {installed:?}"
                );
            }
        }
    }

    #[test]
    fn layers_answer_as_one_overlay_of_every_change_would() {
        let dir = tempfile::tempdir().unwrap();
        let mut all = Overlay::default();
        let mut most_layers = 0;
        for r in 0..60 {
            let o = round(r);
            absorb(&mut all, &o);
            let mut index = at(dir.path(), r);
            index.mem = o;
            index.persist().unwrap();
            let got = Index::open(dir.path().join("lore/index"));
            assert_eq!(got.refs().next().map(|s| s.tip), Some(oid(r)));
            assert!(got.mem.len() == 0 && !got.layers.is_empty());
            most_layers = most_layers.max(got.layers.len());
            let mut want = Index::empty(PathBuf::new());
            want.mem = all.clone();
            let ids: Vec<Id> = want
                .ids()
                .into_iter()
                .chain(all.summaries.keys().copied())
                .collect();
            assert_same(&got, &want, &ids);
            // Only the chain's layers are left.
            let files = fs::read_dir(dir.path().join("lore/index.d"))
                .unwrap()
                .count();
            assert_eq!(files, got.layers.len());
        }
        // Geometric: layers stay about log2 of the writes, not one each.
        assert!(most_layers <= 8, "{most_layers} layers");
        assert!(most_layers >= 2, "layers were merged every time");
    }

    #[test]
    fn a_small_write_onto_a_large_index_does_not_rewrite_it() {
        let dir = tempfile::tempdir().unwrap();
        let mut index = at(dir.path(), 0);
        for r in 0..200 {
            absorb(&mut index.mem, &round(r));
        }
        index.persist().unwrap();
        let bottom = index.layers[0].name.clone();
        let big = index.layers[0].size;
        for r in 200..210 {
            let mut index = at(dir.path(), r);
            index.mem = round(r);
            index.persist().unwrap();
            assert_eq!(
                index.layers[0].name, bottom,
                "the bottom layer was rewritten"
            );
            let added: u64 = index.layers[1..].iter().map(|l| l.size).sum();
            assert!(added * 10 < big, "{added} bytes above a {big}-byte layer");
        }
    }

    #[test]
    fn a_writer_whose_chain_moved_writes_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let mut first = at(dir.path(), 1);
        first.mem = round(1);
        first.persist().unwrap();
        let mut a = at(dir.path(), 2);
        let mut b = at(dir.path(), 3);
        a.mem = round(2);
        b.mem = round(3);
        a.persist().unwrap();
        b.persist().unwrap();
        let got = Index::open(dir.path().join("lore/index"));
        assert_eq!(got.refs().next().map(|s| s.tip), Some(oid(2)), "a's");
        let b_lesson = Id::from_parts(1_700_000_000_000, 30);
        assert!(round(3).lessons.contains_key(&b_lesson));
        assert_eq!(got.lesson(b_lesson), None, "b wrote nothing");
        let files = fs::read_dir(dir.path().join("lore/index.d"))
            .unwrap()
            .count();
        assert_eq!(files, got.layers.len());
        // Nor while another writer holds the lock.
        let lock = WriteLock::try_take(&dir.path().join("lore/index.lock"))
            .unwrap()
            .unwrap();
        assert!(WriteLock::try_take(&dir.path().join("lore/index.lock"))
            .unwrap()
            .is_none());
        let mut c = at(dir.path(), 4);
        c.mem = round(4);
        c.persist().unwrap();
        let got = Index::open(dir.path().join("lore/index"));
        assert_eq!(got.refs().next().map(|s| s.tip), Some(oid(2)));
        drop(lock);
        let mut c = at(dir.path(), 4);
        c.mem = round(4);
        c.persist().unwrap();
        let got = Index::open(dir.path().join("lore/index"));
        assert_eq!(got.refs().next().map(|s| s.tip), Some(oid(4)));
    }

    #[test]
    fn a_loaded_index_without_a_chain_replaces_whatever_is_there() {
        let dir = tempfile::tempdir().unwrap();
        for r in 0..3 {
            let mut index = at(dir.path(), r);
            index.mem = round(r);
            index.persist().unwrap();
        }
        // A rebuild: everything in memory, no layers.
        let mut index = Index::empty(dir.path().join("lore/index"));
        index.refs = at(dir.path(), 9).refs;
        index.mem = round(9);
        // A layer a killed writer left behind.
        fs::write(dir.path().join("lore/index.d/layer-left.tab"), b"half").unwrap();
        index.persist().unwrap();
        let got = Index::open(dir.path().join("lore/index"));
        assert_eq!(got.layers.len(), 1);
        assert_eq!(got.refs().next().map(|s| s.tip), Some(oid(9)));
        let old = Id::from_parts(1_700_000_000_000, 10);
        assert!(round(1).lessons.contains_key(&old));
        assert_eq!(got.lesson(old), None);
        let names: Vec<_> = fs::read_dir(dir.path().join("lore/index.d"))
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names.len(), 1, "{names:?}");
    }

    #[test]
    fn a_damaged_or_missing_layer_gives_an_empty_index() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("lore/index");
        let mut index = at(dir.path(), 0);
        for r in 0..20 {
            absorb(&mut index.mem, &round(r));
        }
        index.persist().unwrap();
        let mut index = at(dir.path(), 20);
        index.mem = round(20);
        index.persist().unwrap();
        let layers: Vec<PathBuf> = {
            let index = Index::open(path.clone());
            assert!(index.layers.len() >= 2);
            index
                .layers
                .iter()
                .map(|l| dir.path().join("lore/index.d").join(&l.name))
                .collect()
        };
        let usable = |want: bool| {
            let index = Index::open(path.clone());
            assert_eq!(!index.layers.is_empty(), want);
            assert_eq!(index.refs.is_empty(), !want);
        };
        usable(true);
        // Cut short (a crash of the machine before the data reached the
        // disk), or one byte longer.
        let whole = fs::read(&layers[1]).unwrap();
        fs::write(&layers[1], &whole[..whole.len() - 1]).unwrap();
        usable(false);
        let mut longer = whole.clone();
        longer.push(0);
        fs::write(&layers[1], &longer).unwrap();
        usable(false);
        // Same size, header damaged.
        let mut bad = whole.clone();
        bad[12] ^= 1;
        fs::write(&layers[1], &bad).unwrap();
        usable(false);
        // Another whole layer in its place (of another size).
        let other = format::encode_layer(merge(&[], &Overlay::default(), false).unwrap());
        fs::write(&layers[1], &other).unwrap();
        usable(false);
        fs::write(&layers[1], &whole).unwrap();
        usable(true);
        fs::remove_file(&layers[0]).unwrap();
        usable(false);
        fs::write(&path, b"garbage").unwrap();
        usable(false);
        fs::remove_file(&path).unwrap();
        usable(false);
    }

    #[test]
    fn a_layer_of_another_build_is_not_read() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("index");
        fs::create_dir_all(dir.path().join("index.d")).unwrap();
        let write = |rclk_width: Option<usize>| {
            let tables = TABLES
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
                .collect();
            let layer = format::encode_layer(tables);
            fs::write(dir.path().join("index.d/layer-x.tab"), &layer).unwrap();
            let chain = Chain {
                refs: vec![],
                layers: vec![LayerRef {
                    name: "layer-x.tab".into(),
                    size: layer.len() as u64,
                }],
            };
            fs::write(&path, format::encode_chain(&chain)).unwrap();
        };
        write(Some(RCLK_WIDTH));
        assert_eq!(Index::open(path.clone()).layers.len(), 1);
        // The recall keys of the build before `needed` was kept: 24 bytes.
        write(Some(24));
        assert!(Index::open(path.clone()).layers.is_empty());
        // The build before recall: no recall keys at all.
        write(None);
        assert!(Index::open(path.clone()).layers.is_empty());
        // The whole-file index of version 2 where the chain is.
        fs::write(&path, b"LOREIDX\x02\0\0\0\0\0\0\0\0").unwrap();
        assert!(Index::open(path).layers.is_empty());
    }
}
