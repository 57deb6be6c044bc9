//! The trees a transaction attempt writes, held in memory until its pack is
//! written: the newest version of each directory whole, and each earlier
//! version as a delta of the version that replaced it, made the moment it
//! is replaced.
//!
//! A chunk of 2,048 commits on a 100,000-lesson ledger rewrites the root,
//! `proposals` and the fan-out directories down to its record with every
//! commit; with the two fan-out levels of the time, its leaf held about 100
//! entries (5.8 KB). Kept whole until the pack was written, those
//! versions were 21 MB of the batch's 39 MB peak of heap; as deltas (an
//! entry added to a tree is an entry missing from its older version) they
//! are a few dozen bytes each. git's own `pack-objects` makes the same
//! choice: the newest version whole, older ones as deltas of newer.
//!
//! Everything in the attempt that reads a tree (gix's tree editor, path
//! look-ups) reads through [`Trees`], a [`gix::objs::Find`] over the trees
//! it holds whole and then the repository. Only versions nothing reads
//! any more become deltas: a tree that is still some directory's newest
//! version stays whole, and a tree written again becomes whole again.
//!
//! A large attempt (one that will be written as a pack) does not hold
//! the newest trees of the fan-out's leaves either: each is moved to a
//! temporary file as soon as it is written ([`Spilled`]) and read back
//! when the leaf is written again or the pack is. A chunk of 4,096
//! records touches some 3,850 of the 32,768 leaves, once each mostly; at
//! a million lessons a leaf is 1.8 KB, and held they were 7 MB of the
//! batch's peak. The directories above the leaves (1,024 of them, each
//! rewritten several times a chunk) stay in memory, where their older
//! versions become deltas.
//!
//! This module keeps trees and nothing else: it moves no ref and writes no
//! file but its own temporary one ([`super::pack`] makes the trees
//! durable, [`super::tx`] decides when).

use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use std::fs;
use std::os::unix::fs::FileExt;
use std::path::Path;
use std::sync::Arc;

use gix::objs::{Find, Kind, WriteTo};
use gix::ObjectId;

use super::pack;
use super::{GixContext, StoreError};

/// One tree stored as a delta of a newer tree of the same transaction.
#[derive(Debug)]
pub struct TreeDelta {
    pub id: ObjectId,
    pub base: ObjectId,
    pub delta: Vec<u8>,
}

/// Trees this process wrote whole into a pack, by id: the pack, open, and
/// the offset of the tree's entry ([`pack::Placed`]), where
/// [`pack::read_tree`] reads it.
pub type Located = HashMap<ObjectId, (Arc<fs::File>, u64)>;

/// Trees of an attempt moved out of memory into a temporary file of the
/// object store's `pack/` directory (deleted when this is dropped), each
/// stored as it is, by id. Written a quarter megabyte at a time and read
/// back in file order when the pack is written ([`Spilled::each`]): a
/// system call per tree made a million-record batch's system time 6 s
/// longer. Best effort: a tree that cannot be written there stays in
/// memory.
#[derive(Debug, Default)]
pub struct Spilled {
    file: Option<fs::File>,
    /// Trees not yet written to `file`, from `flushed` on.
    pending: Vec<u8>,
    flushed: u64,
    /// Where the next tree goes.
    end: u64,
    /// Where each tree is, and its length.
    at: HashMap<ObjectId, (u64, u32)>,
}

/// How many bytes of trees [`Spilled`] gathers before it writes them.
const SPILL_WRITE: usize = 256 << 10;

impl Spilled {
    /// Moves `bytes` (the tree `id`) to the file, made in `dir` if there is
    /// none yet; `false` when it could not be written.
    fn put(&mut self, dir: &Path, id: ObjectId, bytes: &[u8]) -> bool {
        let Ok(len) = u32::try_from(bytes.len()) else {
            return false;
        };
        if self.file.is_none() {
            self.file = fs::create_dir_all(dir)
                .and_then(|()| tempfile::tempfile_in(dir))
                .ok();
        }
        let Some(file) = &self.file else {
            return false;
        };
        if self.pending.len() + bytes.len() > SPILL_WRITE && !self.pending.is_empty() {
            if file.write_all_at(&self.pending, self.flushed).is_err() {
                // What was gathered is still readable from `pending`.
                return false;
            }
            self.flushed += self.pending.len() as u64;
            self.pending.clear();
        }
        self.pending.extend_from_slice(bytes);
        self.at.insert(id, (self.end, len));
        self.end += u64::from(len);
        true
    }

    /// Whether the tree `id` is here.
    pub fn contains(&self, id: &ObjectId) -> bool {
        self.at.contains_key(id)
    }

    /// How many trees are here.
    pub fn len(&self) -> usize {
        self.at.len()
    }

    /// Whether none is.
    pub fn is_empty(&self) -> bool {
        self.at.is_empty()
    }

    /// The bytes at `offset` still gathered, not yet written to the file.
    fn gathered(&self, offset: u64, len: u32) -> Option<&[u8]> {
        let from = usize::try_from(offset.checked_sub(self.flushed)?).ok()?;
        self.pending.get(from..from + len as usize)
    }

    /// The tree `id`, read back; `None` when it is not here.
    pub fn read(&self, id: &ObjectId) -> Option<std::io::Result<Vec<u8>>> {
        let &(offset, len) = self.at.get(id)?;
        if let Some(bytes) = self.gathered(offset, len) {
            return Some(Ok(bytes.to_vec()));
        }
        let file = self.file.as_ref()?;
        let mut bytes = vec![0u8; len as usize];
        Some(file.read_exact_at(&mut bytes, offset).map(|()| bytes))
    }

    /// Calls `f` with each tree here, in the order they were written,
    /// reading the file a few hundred kilobytes at a time.
    pub fn each(
        &self,
        mut f: impl FnMut(ObjectId, &[u8]) -> std::io::Result<()>,
    ) -> std::io::Result<()> {
        let mut order: Vec<(u64, u32, ObjectId)> = self
            .at
            .iter()
            .map(|(id, &(offset, len))| (offset, len, *id))
            .collect();
        order.sort_unstable_by_key(|&(offset, ..)| offset);
        // A window of the file: `buf` holds its bytes from `start`.
        let (mut buf, mut start) = (Vec::new(), 0u64);
        for (offset, len, id) in order {
            let end = offset + u64::from(len);
            if let Some(bytes) = self.gathered(offset, len) {
                f(id, bytes)?;
                continue;
            }
            if offset < start || end > start + buf.len() as u64 {
                let file = self.file.as_ref().ok_or_else(|| {
                    std::io::Error::other("a tree moved out of memory has no file")
                })?;
                let size = (self.flushed - offset).min(SPILL_WRITE.max(len as usize) as u64);
                buf.resize(size as usize, 0);
                file.read_exact_at(&mut buf, offset)?;
                start = offset;
            }
            let from = (offset - start) as usize;
            f(id, &buf[from..from + len as usize])?;
        }
        Ok(())
    }

    /// Forgets the tree `id` (held in memory again, or a delta now); its
    /// bytes stay in the file, unread.
    fn forget(&mut self, id: &ObjectId) {
        self.at.remove(id);
    }
}

/// What a transaction attempt's trees come to when it ends.
#[derive(Debug, Default)]
pub struct Written {
    /// Trees held whole: write those not on disk ([`Written::is_on_disk`]).
    pub whole: HashMap<ObjectId, Vec<u8>>,
    /// Trees to write whole, moved out of memory (never on disk, and not
    /// in `whole` unless written again).
    pub spilled: Spilled,
    /// Trees already in the object store that the attempt was given whole;
    /// those of `located` are on disk too.
    pub on_disk: HashSet<ObjectId>,
    /// Trees to write as deltas, in an order where each base comes before
    /// the deltas made of it (whole trees come before all of them).
    pub deltas: Vec<TreeDelta>,
    /// The newest tree of each directory, by path (`""` is the root); each
    /// is in `whole`, or on disk where `located` says.
    pub newest: HashMap<String, ObjectId>,
    /// How many directories of `newest` have each tree: its keys are the
    /// newest trees.
    pub uses: HashMap<ObjectId, usize>,
    /// Where the trees the attempt started from are, as it was told.
    pub located: Located,
}

/// See the module doc.
pub struct Trees<'r> {
    repo: &'r gix::Repository,
    state: RefCell<State>,
    /// The object store's multi-pack index, read with positioned reads
    /// (opened at the first tree found nowhere else): where the trees this
    /// process did not write are, without mapping the index or the packs.
    midx: std::cell::OnceCell<Option<super::midx::Midx>>,
    /// How many trees were read through `midx` (what a test looks at).
    #[cfg(test)]
    midx_reads: std::cell::Cell<usize>,
}

#[derive(Default)]
struct State {
    /// Trees held whole: the newest version of each directory, and older
    /// ones that could not be deltas.
    whole: HashMap<ObjectId, Vec<u8>>,
    /// Trees to write whole that were moved out of memory: the newest
    /// versions of leaves of a large attempt (see the module doc).
    spilled: Spilled,
    /// Older versions as deltas, in the order they were made; `None` once
    /// the tree was written again (it is whole again).
    deltas: Vec<Option<TreeDelta>>,
    /// Where each tree of `deltas` is.
    delta_at: HashMap<ObjectId, usize>,
    /// The newest tree of each directory.
    newest: HashMap<String, ObjectId>,
    /// The longest chain of deltas that ends at a tree (kept for a tree
    /// that became a delta too: written again, it is whole again and the
    /// chains below it still hang there).
    below: HashMap<ObjectId, usize>,
    /// How many directories have each tree as their newest.
    uses: HashMap<ObjectId, usize>,
    /// Trees already in the object store, kept whole from the last
    /// transaction; those of `located` are on disk too (not copied here:
    /// at a million lessons that is 34,000 ids). Neither is ever written
    /// again, so never a delta and never a base ([`State::is_on_disk`]).
    on_disk: HashSet<ObjectId>,
    /// Where some trees already in the object store are in a pack.
    located: Located,
    /// How many distinct trees the attempt will write, whole or as deltas.
    written: usize,
}

/// Whether a tree is in the object store: given whole (`kept`) or
/// located in a pack.
fn on_disk(kept: &HashSet<ObjectId>, located: &Located, id: &ObjectId) -> bool {
    kept.contains(id) || located.contains_key(id)
}

impl State {
    fn is_on_disk(&self, id: &ObjectId) -> bool {
        on_disk(&self.on_disk, &self.located, id)
    }
}

impl Written {
    /// Whether the tree `id` is in the object store already.
    pub fn is_on_disk(&self, id: &ObjectId) -> bool {
        on_disk(&self.on_disk, &self.located, id)
    }

    /// Whether the tree `id` is to be written whole: held, or moved out.
    pub fn is_whole(&self, id: &ObjectId) -> bool {
        self.whole.contains_key(id) || self.spilled.contains(id)
    }
}

impl<'r> Trees<'r> {
    /// Trees over `repo`, starting from the newest trees of the last
    /// transaction (by path), all on disk: those `kept` with their bytes,
    /// and where in a pack the others are (`located`).
    pub fn new(
        repo: &'r gix::Repository,
        kept_paths: HashMap<String, ObjectId>,
        kept: HashMap<ObjectId, Vec<u8>>,
        located: Located,
    ) -> Trees<'r> {
        // The map of paths is taken as it is, not copied entry by entry: at
        // a million lessons it has 34,000 entries, and a copy made at the
        // start of every transaction left a hole of 3 MB in the heap.
        let mut uses = HashMap::with_capacity(kept_paths.len());
        for id in kept_paths.values() {
            *uses.entry(*id).or_default() += 1;
        }
        let state = State {
            on_disk: kept.keys().copied().collect(),
            whole: kept,
            located,
            newest: kept_paths,
            uses,
            ..State::default()
        };
        Trees {
            repo,
            state: RefCell::new(state),
            midx: std::cell::OnceCell::new(),
            #[cfg(test)]
            midx_reads: std::cell::Cell::new(0),
        }
    }

    /// Writes `tree` (whole, as it is the newest version of its directory)
    /// and returns its id.
    pub fn write(&self, tree: &gix::objs::Tree) -> Result<ObjectId, StoreError> {
        let mut bytes = Vec::with_capacity(tree.size() as usize);
        tree.write_to(&mut bytes).map_err(|e| StoreError::Io {
            context: "serialising a tree".into(),
            source: e,
        })?;
        let id = gix::objs::compute_hash(self.repo.object_hash(), Kind::Tree, &bytes)
            .ctx(|| "hashing a tree".into())?;
        let mut s = self.state.borrow_mut();
        if let Some(at) = s.delta_at.remove(&id) {
            // Written again: whole again, and no longer a delta.
            s.deltas[at] = None;
        } else if !s.whole.contains_key(&id) && !s.spilled.contains(&id) && !s.is_on_disk(&id) {
            s.written += 1;
        }
        // Written again after it was moved out: held again.
        s.spilled.forget(&id);
        s.whole.entry(id).or_insert(bytes);
        Ok(id)
    }

    /// One commit's directories now have these trees (`path`, `new`), each
    /// written with [`Trees::write`]. A directory's previous tree becomes a
    /// delta of its new one when no directory has it any more (every new
    /// tree of the commit is counted before any old one is let go: a tree
    /// one directory leaves may be another's new one) and the attempt
    /// writes more objects than a loose write would take (`held` besides
    /// its trees; trees already on disk do not count): below that,
    /// everything is written whole and loose.
    pub fn replaced(&self, news: &[(&str, ObjectId)], held: usize) {
        let mut s = self.state.borrow_mut();
        let s = &mut *s;
        let mut left = Vec::new();
        for &(path, new) in news {
            *s.uses.entry(new).or_default() += 1;
            if let Some(old) = s.newest.insert(path.to_owned(), new) {
                let uses = s.uses.get_mut(&old).expect("a newest tree is counted");
                *uses -= 1;
                if old != new {
                    left.push((old, new));
                }
            }
        }
        for (old, new) in left {
            if s.uses.get(&old).is_some_and(|&n| n > 0) {
                continue;
            }
            s.uses.remove(&old);
            if s.is_on_disk(&old) {
                // Readable from disk, and not written again.
                s.whole.remove(&old);
                continue;
            }
            let below = s.below.get(&old).copied().unwrap_or(0);
            if s.is_on_disk(&new)
                || below + 1 > pack::MAX_DELTA_DEPTH
                || held + s.written <= pack::LOOSE_MAX
            {
                continue;
            }
            // An older leaf moved out is read back to become a delta.
            let back = match s.whole.contains_key(&old) {
                true => None,
                false => s.spilled.read(&old).and_then(Result::ok),
            };
            let made = match (s.whole.get(&new), s.whole.get(&old).or(back.as_ref())) {
                (Some(base), Some(target)) => pack::delta(base, target),
                _ => None,
            };
            if let Some(delta) = made {
                s.whole.remove(&old);
                s.spilled.forget(&old);
                let at = s.deltas.len();
                s.deltas.push(Some(TreeDelta {
                    id: old,
                    base: new,
                    delta,
                }));
                s.delta_at.insert(old, at);
                let deepest = s.below.entry(new).or_default();
                *deepest = (*deepest).max(below + 1);
            }
        }
        // A large attempt's new leaves wait in the spill file, not in
        // memory (see the module doc). Below that, everything is written
        // loose, straight from memory.
        if held + s.written <= pack::LOOSE_MAX {
            return;
        }
        let dir = self.repo.objects.store_ref().path().join("pack");
        for &(path, new) in news {
            if path.matches('/').count() < crate::model::Id::FANOUT_LEVELS
                || s.is_on_disk(&new)
                || s.spilled.contains(&new)
            {
                continue;
            }
            if let Some(bytes) = s.whole.get(&new) {
                if s.spilled.put(&dir, new, bytes) {
                    s.whole.remove(&new);
                }
            }
        }
    }

    /// The mode and id of the entry at `path` in `tree`, if there is one.
    pub fn entry(
        &self,
        tree: ObjectId,
        path: &str,
    ) -> Result<Option<(gix::objs::tree::EntryMode, ObjectId)>, StoreError> {
        let mut buf = Vec::new();
        let mut at: (gix::objs::tree::EntryMode, ObjectId) =
            (gix::objs::tree::EntryKind::Tree.into(), tree);
        for name in path.split('/') {
            if !at.0.is_tree() {
                return Ok(None);
            }
            let parsed = self.read(at.1, &mut buf)?;
            match parsed.entries.iter().find(|e| e.filename == name) {
                Some(e) => at = (e.mode, e.oid.to_owned()),
                None => return Ok(None),
            }
        }
        Ok(Some(at))
    }

    /// The tree `id`, parsed (a transaction's editor starts from one).
    pub fn tree(&self, id: ObjectId) -> Result<gix::objs::Tree, StoreError> {
        if id.is_empty_tree() {
            return Ok(gix::objs::Tree::empty());
        }
        let mut buf = Vec::new();
        Ok(self.read(id, &mut buf)?.into())
    }

    fn read<'b>(
        &self,
        id: ObjectId,
        buf: &'b mut Vec<u8>,
    ) -> Result<gix::objs::TreeRef<'b>, StoreError> {
        let context = || format!("reading tree {id}");
        let data = self
            .try_find(&id, buf)
            .ctx(context)?
            .ok_or_else(|| StoreError::Io {
                context: context(),
                source: std::io::Error::new(
                    std::io::ErrorKind::NotFound,
                    "not in the object store",
                ),
            })?;
        gix::objs::TreeRef::from_bytes(data.data, self.repo.object_hash()).ctx(context)
    }

    /// How many trees were read through the multi-pack index.
    #[cfg(test)]
    pub fn midx_reads(&self) -> usize {
        self.midx_reads.get()
    }

    /// How many trees are moved out of memory now.
    #[cfg(test)]
    pub fn spilled_len(&self) -> usize {
        self.state.borrow().spilled.len()
    }

    /// Ends the attempt: what to write, and what to keep for the next.
    pub fn finish(self) -> Written {
        let s = self.state.into_inner();
        // A delta's base is newer: made later, or whole. Newest first puts
        // every base before the deltas of it.
        let mut deltas: Vec<TreeDelta> = s.deltas.into_iter().flatten().collect();
        deltas.reverse();
        Written {
            whole: s.whole,
            spilled: s.spilled,
            on_disk: s.on_disk,
            deltas,
            newest: s.newest,
            uses: s.uses,
            located: s.located,
        }
    }
}

impl Find for Trees<'_> {
    fn try_find<'a>(
        &self,
        id: &gix::hash::oid,
        buffer: &'a mut Vec<u8>,
    ) -> gix::Result<Option<gix::objs::Data<'a>>> {
        let state = self.state.borrow();
        let found = state.whole.get(id).map(|bytes| {
            buffer.clear();
            buffer.extend_from_slice(bytes);
        });
        let found = match found {
            Some(()) => Some(()),
            None => match state.spilled.read(&id.to_owned()) {
                Some(read) => {
                    *buffer = read.map_err(gix::Error::from_error)?;
                    Some(())
                }
                None => None,
            },
        };
        let found = found.or_else(|| {
            let (pack, offset) = state.located.get(id)?;
            *buffer = pack::read_tree(pack, *offset, &id.to_owned())?;
            Some(())
        });
        // A tree of the packs the multi-pack index covers (a batch onto a
        // large ledger reads thousands), by positioned reads; anything
        // else, or anything that does not read back as the tree, from gix.
        let found = found.or_else(|| {
            let midx = self.midx.get_or_init(|| {
                let dir = self.repo.objects.store_ref().path().join("pack");
                super::midx::Midx::open(&dir, self.repo.object_hash().len_in_bytes())
            });
            let id = id.to_owned();
            let (pack, offset) = midx.as_ref()?.locate(&id)?;
            *buffer = pack::read_tree(&pack, offset, &id)?;
            #[cfg(test)]
            self.midx_reads.set(self.midx_reads.get() + 1);
            Some(())
        });
        if found.is_some() {
            return Ok(Some(gix::objs::Data::new(
                buffer,
                Kind::Tree,
                self.repo.object_hash(),
            )));
        }
        self.repo.objects.try_find(id, buffer)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use gix::objs::tree::{Entry, EntryKind};

    fn repo() -> (tempfile::TempDir, gix::Repository) {
        let dir = tempfile::tempdir().unwrap();
        let repo = gix::init_bare(dir.path()).unwrap();
        (dir, repo)
    }

    /// Trees moved out of memory read back as they were, whether still
    /// gathered or written to the file, one by one and all in order, but
    /// those forgotten.
    #[test]
    fn spilled_trees_read_back_from_the_file_and_from_what_is_gathered() {
        let dir = tempfile::tempdir().unwrap();
        let mut spilled = Spilled::default();
        let tree = |i: u32| {
            format!("tree {i} ")
                .repeat(100 + (i as usize % 50))
                .into_bytes()
        };
        let id = |i: u32| ObjectId::from_bytes_or_panic(&[&i.to_be_bytes()[..], &[7; 16]].concat());
        let n = 2_000;
        for i in 0..n {
            assert!(spilled.put(dir.path(), id(i), &tree(i)));
        }
        assert!(spilled.flushed > 3 * SPILL_WRITE as u64, "written in parts");
        assert!(!spilled.pending.is_empty(), "the last part is gathered");
        for i in (0..n).step_by(37).chain([n - 1]) {
            assert_eq!(spilled.read(&id(i)).unwrap().unwrap(), tree(i), "tree {i}");
        }
        for i in (0..n).step_by(3) {
            spilled.forget(&id(i));
        }
        assert!(spilled.read(&id(0)).is_none());
        let mut seen = Vec::new();
        spilled.forget(&id(1));
        spilled
            .each(|x, bytes| {
                let i = u32::from_be_bytes(x.as_bytes()[..4].try_into().unwrap());
                assert_eq!(bytes, tree(i), "tree {i}");
                seen.push(i);
                Ok(())
            })
            .unwrap();
        let want: Vec<u32> = (0..n).filter(|i| i % 3 != 0 && *i != 1).collect();
        assert_eq!(seen, want);
    }

    /// A tree of `n` blob entries, as a fan-out leaf grows.
    fn leaf(n: usize) -> gix::objs::Tree {
        let mut entries: Vec<Entry> = (0..n)
            .map(|i| Entry {
                mode: EntryKind::Blob.into(),
                filename: format!("01J{i:023}.json").into(),
                oid: ObjectId::from_bytes_or_panic(&[i as u8; 20]),
            })
            .collect();
        entries.sort();
        gix::objs::Tree { entries }
    }

    /// Every tree `written` holds, whole, with its deltas applied.
    fn rebuild(written: &Written) -> HashMap<ObjectId, Vec<u8>> {
        let mut all = written.whole.clone();
        // Each base comes before the deltas made of it.
        for d in &written.deltas {
            let base = all.get(&d.base).expect("the base comes first");
            let bytes = crate::store::pack::apply(base, &d.delta).unwrap();
            assert_eq!(
                gix::objs::compute_hash(gix::hash::Kind::Sha1, Kind::Tree, &bytes).unwrap(),
                d.id,
                "the delta rebuilds its tree"
            );
            all.insert(d.id, bytes);
        }
        all
    }

    #[test]
    fn older_versions_become_deltas_of_newer_ones_and_rebuild_exactly() {
        let (_dir, repo) = repo();
        let trees = Trees::new(&repo, HashMap::new(), HashMap::new(), HashMap::new());
        let ids: Vec<ObjectId> = (1..=120)
            .map(|n| {
                let id = trees.write(&leaf(n)).unwrap();
                trees.replaced(&[("proposals/0/1", id)], pack::LOOSE_MAX);
                id
            })
            .collect();
        // The newest reads back whole, through the finder.
        assert_eq!(trees.tree(ids[119]).unwrap(), leaf(120));
        assert!(trees
            .entry(ids[119], "01J00000000000000000000000.json")
            .unwrap()
            .is_some());
        let written = trees.finish();
        assert_eq!(written.newest["proposals/0/1"], ids[119]);
        // 120 versions: chains of at most 50 deltas end at a whole tree.
        assert_eq!(
            written.deltas.len(),
            117,
            "all but the newest and two chain ends"
        );
        assert_eq!(written.whole.len(), 3);
        let all = rebuild(&written);
        for (n, id) in ids.iter().enumerate() {
            let mut want = Vec::new();
            leaf(n + 1).write_to(&mut want).unwrap();
            assert_eq!(all[id], want, "version {}", n + 1);
        }
        let depth = |mut id: ObjectId| {
            let mut d = 0;
            while let Some(delta) = written.deltas.iter().find(|x| x.id == id) {
                id = delta.base;
                d += 1;
            }
            d
        };
        assert_eq!(
            ids.iter().map(|id| depth(*id)).max(),
            Some(pack::MAX_DELTA_DEPTH)
        );
    }

    #[test]
    fn a_tree_written_again_is_whole_again_and_a_small_attempt_keeps_all_whole() {
        let (_dir, repo) = repo();
        let trees = Trees::new(&repo, HashMap::new(), HashMap::new(), HashMap::new());
        let (a, b) = (leaf(3), leaf(4));
        for t in [&a, &b, &a] {
            let id = trees.write(t).unwrap();
            trees.replaced(&[("x", id)], pack::LOOSE_MAX);
        }
        let written = trees.finish();
        let a_id = trees_id(&a);
        assert!(written.whole.contains_key(&a_id));
        assert_eq!(written.deltas.len(), 1, "{:?}", written.deltas);
        assert_eq!(written.deltas[0].base, a_id);
        rebuild(&written);

        // Few objects: written loose, so nothing becomes a delta.
        let trees = Trees::new(&repo, HashMap::new(), HashMap::new(), HashMap::new());
        for n in 1..5 {
            let id = trees.write(&leaf(n)).unwrap();
            trees.replaced(&[("x", id)], 0);
        }
        let written = trees.finish();
        assert!(written.deltas.is_empty());
        assert_eq!(written.whole.len(), 4);
    }

    #[test]
    fn trees_already_on_disk_are_neither_deltas_nor_bases() {
        let (_dir, repo) = repo();
        let kept = leaf(5);
        let kept_id = trees_id(&kept);
        let mut bytes = Vec::new();
        kept.write_to(&mut bytes).unwrap();
        let trees = Trees::new(
            &repo,
            HashMap::from([("x".to_owned(), kept_id)]),
            HashMap::from([(kept_id, bytes)]),
            HashMap::new(),
        );
        let id = trees.write(&leaf(6)).unwrap();
        trees.replaced(&[("x", id)], pack::LOOSE_MAX);
        // Back to what is on disk, then on again.
        let back = trees.write(&kept).unwrap();
        trees.replaced(&[("x", back)], pack::LOOSE_MAX);
        let again = trees.write(&leaf(7)).unwrap();
        trees.replaced(&[("x", again)], pack::LOOSE_MAX);
        let written = trees.finish();
        assert!(written
            .deltas
            .iter()
            .all(|d| d.id != kept_id && d.base != kept_id));
        assert!(written.on_disk.contains(&kept_id));
        rebuild(&written);

        // Many trees kept on disk do not make a small attempt a pack.
        let kept: HashMap<ObjectId, Vec<u8>> = (1..=100)
            .map(|n| {
                let mut b = Vec::new();
                leaf(n).write_to(&mut b).unwrap();
                (trees_id(&leaf(n)), b)
            })
            .collect();
        let paths = kept
            .keys()
            .enumerate()
            .map(|(i, id)| (format!("d/{i}"), *id))
            .collect();
        let trees = Trees::new(&repo, paths, kept, HashMap::new());
        for n in 200..203 {
            let id = trees.write(&leaf(n)).unwrap();
            trees.replaced(&[("x", id)], 6);
        }
        assert!(trees.finish().deltas.is_empty(), "a loose write, whole");
    }

    /// In one commit `p` gets a new tree and `q` the tree `p` had: it is
    /// `q`'s newest now, so it stays whole and reads back.
    #[test]
    fn a_tree_one_directory_leaves_and_another_takes_stays_whole() {
        let (_dir, repo) = repo();
        let trees = Trees::new(&repo, HashMap::new(), HashMap::new(), HashMap::new());
        let a = trees.write(&leaf(40)).unwrap();
        trees.replaced(&[("p", a)], pack::LOOSE_MAX);
        let b = trees.write(&leaf(41)).unwrap();
        assert_eq!(trees.write(&leaf(40)).unwrap(), a);
        trees.replaced(&[("p", b), ("q", a)], pack::LOOSE_MAX);
        assert_eq!(trees.tree(a).unwrap(), leaf(40), "q's tree reads back");
        let written = trees.finish();
        assert!(written.deltas.is_empty(), "{:?}", written.deltas);
        assert_eq!(written.newest["q"], a);
    }

    /// A tree two directories move to is the base of both their chains:
    /// the deeper one counts, and the depth still holds after it.
    #[test]
    fn chains_through_a_shared_tree_stay_within_the_depth() {
        let (_dir, repo) = repo();
        let trees = Trees::new(&repo, HashMap::new(), HashMap::new(), HashMap::new());
        // `p` has a chain of 44 deltas below it, `q` one tree.
        for n in 1..=45 {
            let p = trees.write(&leaf(n)).unwrap();
            trees.replaced(&[("p", p)], pack::LOOSE_MAX);
        }
        let q = trees.write(&leaf(99)).unwrap();
        trees.replaced(&[("q", q)], pack::LOOSE_MAX);
        // Both move to one tree, then on together for ten versions.
        for n in 100..=110 {
            let both = trees.write(&leaf(n)).unwrap();
            trees.replaced(&[("p", both), ("q", both)], pack::LOOSE_MAX);
        }
        let written = trees.finish();
        rebuild(&written);
        let depth = |mut id: ObjectId| {
            let mut d = 0;
            while let Some(delta) = written.deltas.iter().find(|x| x.id == id) {
                id = delta.base;
                d += 1;
            }
            d
        };
        let deepest = written.deltas.iter().map(|d| depth(d.id)).max().unwrap();
        assert!(deepest <= pack::MAX_DELTA_DEPTH, "a chain of {deepest}");
        assert!(deepest >= 45, "the chains were made: {deepest}");
    }

    fn trees_id(t: &gix::objs::Tree) -> ObjectId {
        let mut b = Vec::new();
        t.write_to(&mut b).unwrap();
        gix::objs::compute_hash(gix::hash::Kind::Sha1, Kind::Tree, &b).unwrap()
    }
}
