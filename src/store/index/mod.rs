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
//! changes no answer. What it knows comes from commit trailers, which
//! `git lore verify` checks against what each commit changed, and from the
//! objects of commits (pool entries for recall, private objects for the
//! pre-push guard).
//!
//! The file formats are [`format`]; the tables are `ARTS` (artifact →
//! outcome), `LESN` (lesson → entry), recall's three: `RCLK` (the coarse
//! name of every package a pool entry names → the entry), `RCLS` (entry →
//! where its [`Summary`] lies) and `RCLH` (the summaries), and `PRIV`
//! (every object of the ledger and `pool/local` that never leaves the
//! machine → what it is; `private.rs`). `ARTS`, `LESN` and search's `SRCD`
//! each have a key filter beside them in a layer of 4,096 keys or more
//! (`ARTF`, `LESF`, `SRCF`; `filter.rs`), so that a look-up of a key a
//! layer lacks, the common case in a batch, reads one block of it. The
//! recall tables read pool
//! entries' blobs and `PRIV` reads the trees of private commits: the places
//! the index reads more than trailers. A new table is a new tag: the
//! format's table directory makes it an addition, not a break.
//!
//! Files: this one holds the tables' names and record codecs, the
//! [`Index`] and its layers, and opening a chain; `fold.rs` what the index
//! learns (the [`Overlay`], catching up with history, remembering a
//! transaction); `persist.rs` writing a layer and merging layers under the
//! writers' lock, streamed from the layers' files to the new one;
//! `queries.rs` every answer, read across the layers; `private.rs` the
//! `PRIV` table, what it learns and its look-up; `filter.rs` the key
//! filters' bytes.

mod filter;
mod fold;
pub mod format;
mod persist;
pub(crate) use self::persist::WriteLock;
mod private;
mod queries;
mod search;

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::fs;
use std::io::Read;
use std::path::{Path, PathBuf};

pub use self::fold::Overlay;
use self::format::{Bytes, RefState, TableDir, Tag};
pub(crate) use self::private::holds_records;
pub use self::private::{is_private, Held, Private, Record};
use self::private::{PRIV, PRIV_WIDTH};
pub use self::search::{DocKey, Found};
use super::layout::Branch;
use super::{Store, StoreError};
use crate::model::{DeclineReason, Id, ProposalStatus, Source, Visibility};

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
const TABLES: [(Tag, usize); 11] = [
    (ARTS, ART_WIDTH),
    (LESN, LES_WIDTH),
    (RCLK, RCLK_WIDTH),
    (RCLS, RCLS_WIDTH),
    (RCLH, 1),
    (search::SRCD, search::SRCD_WIDTH),
    (search::SRCP, search::SRCP_WIDTH),
    (search::SRCH, 1),
    (search::SRCT, search::SRCT_WIDTH),
    (search::POOA, search::POOA_WIDTH),
    (PRIV, PRIV_WIDTH),
];
/// How many tables a layer this build writes has: [`TABLES`] and the
/// filters of those that have one ([`filter::filter_tag`]).
fn layer_tables() -> usize {
    TABLES.len()
        + TABLES
            .iter()
            .filter(|(tag, _)| filter::filter_tag(*tag).is_some())
            .count()
}
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
        self.find_key(tag, &id.to_bytes())
    }

    /// The record of `key` in the table `tag`, asking its filter first.
    fn find_key(&self, tag: Tag, key: &[u8]) -> Option<Cow<'_, [u8]>> {
        let t = self.table(tag)?;
        self.may_hold(tag, key)
            .then(|| format::find(&self.bytes, t, key))
            .flatten()
    }

    /// Whether the table `tag` may hold `key`: `false` only when its
    /// filter says it does not ([`filter`]); a table without one may.
    fn may_hold(&self, tag: Tag, key: &[u8]) -> bool {
        filter::filter_tag(tag)
            .and_then(|f| self.table(f))
            .is_none_or(|f| filter::may_hold(&self.bytes, f, key))
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
    /// Why what the last load walked could not be written: the index
    /// still answers, but the next process walks the same history again.
    unwritten: Option<StoreError>,
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

/// A summary's slot: the entry's id (16 bytes), where its summary lies in
/// the heap and its length ([`TOMBSTONE`] for a gone entry, at 0).
fn slot_record(id: &[u8], off: u64, len: u32) -> [u8; RCLS_WIDTH] {
    let mut r = [0u8; RCLS_WIDTH];
    r[..16].copy_from_slice(id);
    r[16..24].copy_from_slice(&off.to_be_bytes());
    r[24..28].copy_from_slice(&len.to_be_bytes());
    r
}

fn push_summary(slots: &mut Vec<u8>, heap: &mut Vec<u8>, id: Id, bytes: &[u8]) {
    slots.extend_from_slice(&slot_record(
        &id.to_bytes(),
        heap.len() as u64,
        bytes.len() as u32,
    ));
    heap.extend_from_slice(bytes);
}

fn push_tombstone(slots: &mut Vec<u8>, id: Id) {
    slots.extend_from_slice(&slot_record(&id.to_bytes(), 0, TOMBSTONE));
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

/// How many look-ups (items, commits of a transaction: two or three
/// look-ups each, or documents whose totals a new layer counts) a caller
/// makes between two releases of the pages they read
/// ([`Index::release_pages_after`]). What stays resident is the pages read
/// since (a read fault maps up to 16 pages around the one it needs); the
/// top of each table's search is read again once per this many.
const RELEASE_EVERY: usize = 1024;

impl Index {
    /// Lets go of the pages of the index's files that look-ups have read
    /// ([`Bytes::release`]) once `done` (the caller's count of look-ups,
    /// or of what makes them) has reached another [`RELEASE_EVERY`]: a
    /// caller making many look-ups calls it with its count as it goes, so
    /// that what stays resident is bounded by the look-ups since the last
    /// release, not by how many were made.
    pub fn release_pages_after(&self, done: usize) {
        if done == 0 || !done.is_multiple_of(RELEASE_EVERY) {
            return;
        }
        for layer in &self.layers {
            layer.bytes.release();
        }
    }

    fn empty(path: PathBuf) -> Index {
        Index {
            path,
            chain: None,
            layers: Vec::new(),
            refs: BTreeMap::new(),
            mem: Overlay::default(),
            rebuilt: false,
            walked: 0,
            unwritten: None,
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

    /// Why what the last load walked could not be written to disk, if it
    /// could not (a full disk, an index directory that is not one). The
    /// index answers all the same; the cost is the next load's, which
    /// walks the same history again. A long batch stops on it
    /// ([`crate::ops::ingest`]): every later chunk would walk more.
    /// Returned with the directory of the index's layers, which the
    /// message names.
    pub fn take_unwritten(&mut self) -> Option<(PathBuf, StoreError)> {
        let e = self.unwritten.take()?;
        Some((self.layer_dir(), e))
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

#[cfg(test)]
mod tests {
    use super::*;

    fn id(n: u8) -> Id {
        Id::from_parts(1_700_000_000_000, n as u128)
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
}
