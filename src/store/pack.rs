//! Making a transaction's objects durable: one pack with its index, or loose
//! objects when there are only a few.
//!
//! A transaction writes its blobs and signed commits into memory (gix's
//! object memory, so the transaction reads back what it wrote) and its
//! trees into [`super::trees`], and hands them here at the end of the
//! attempt, before the compare-and-swap; a large one moves its blobs and
//! commits into a [`PackWriter`] as it goes, and the rest join them at the
//! end (the pack's temporary file goes with an attempt that is lost).
//! Above [`LOOSE_MAX`] objects they
//! become one pack (format version 2; each tree whole or, older versions,
//! as the delta of its successor `trees` made; records and commits as
//! deltas of the one before them, within the pack) and its version-2 index,
//! written beside the object store: the pack first, then the index, each to a
//! temporary file that is synced and renamed into place. git and gix only
//! look at packs through their `.idx`, so a pack is invisible until its
//! index is whole, and a crash at any instant leaves at worst an unindexed
//! temporary file that `git gc` removes; the ref has not moved yet.
//!
//! This module writes objects (and, beside a pack, the directory names of
//! its trees, [`PACK_NAMES`], for the background merges) and nothing else:
//! it moves no ref and decides nothing about when objects are reachable.

use std::collections::HashMap;
use std::fs;
use std::io::Write;
use std::os::unix::fs::{FileExt, PermissionsExt};
use std::path::Path;
use std::sync::Arc;

use gix::objs::Kind;
use gix::ObjectId;

use super::trees::{Spilled, Written};
use super::{io_ctx, GixContext, StoreError};

/// Up to this many objects are written loose; more become one pack.
///
/// One record (a blob, the five trees on its fan-out path, a commit: seven
/// objects) or a handful stay loose: a pack per one-record command would
/// leave a pack per command, and every pack is one more index each reader
/// opens until the background repack merges them, while a few loose files
/// cost about what the pack's two files and two renames do. Above it, one
/// pack replaces seven files per commit (see docs/decisions.md for the
/// figures).
pub const LOOSE_MAX: usize = 64;

/// Where one pack holds the trees it stored whole: the pack, open, and the
/// offset of each tree's entry, for [`read_tree`].
#[derive(Clone, Debug)]
pub struct Placed {
    pub pack: Arc<fs::File>,
    pub at: HashMap<ObjectId, u64>,
}

/// Writes a transaction's objects durably into `repo`'s object store:
/// `objects` (its blobs and commits) and `trees` (whole, and as deltas; see
/// [`super::trees`]), all but those already on disk, after what `spool`
/// holds already (the blobs and commits a large transaction moved out of
/// memory as it went). Loose when there are at most [`LOOSE_MAX`] and no
/// spool, else as one pack; then where the pack holds the trees it stored
/// whole.
pub fn persist(
    repo: &gix::Repository,
    objects: &gix::odb::memory::Storage,
    trees: &Written,
    spool: Option<PackWriter>,
) -> Result<Option<Placed>, StoreError> {
    let whole_trees = || trees.whole.iter().filter(|(id, _)| !trees.is_on_disk(id));
    // Trees moved out of memory are never on disk, and leave the file when
    // they are held again (`Trees::write`).
    let spilled = trees.spilled.len();
    let spooled = spool.as_ref().map_or(0, PackWriter::len);
    let count = spooled + objects.len() + whole_trees().count() + spilled + trees.deltas.len();
    if count == 0 {
        return Ok(None);
    }
    // Trees become deltas, and move out of memory, only past LOOSE_MAX
    // objects (`Trees::replaced`).
    if count <= LOOSE_MAX && trees.deltas.is_empty() && spool.is_none() && spilled == 0 {
        // Straight to the repository's own store, not through any memory.
        let store = repo.objects.clone().into_inner();
        let all = objects
            .iter()
            .map(|(id, (kind, data))| (id, *kind, data))
            .chain(whole_trees().map(|(id, data)| (id, Kind::Tree, data)));
        for (id, kind, data) in all {
            // A background `git gc`/`repack` of another process may remove
            // an empty fan-out directory between the moment the object's
            // directory is made and the moment its file is renamed into it
            // (`No such file or directory`). Writing a loose object again
            // is harmless, so a failed write is tried again a few times.
            let mut attempt = 0;
            let written = loop {
                match gix::objs::Write::write_buf(&store, kind, data) {
                    Ok(w) => break w,
                    Err(_) if attempt < 4 => attempt += 1,
                    Err(e) => return Err(e).ctx(|| format!("writing object {id}")),
                }
            };
            debug_assert_eq!(written, *id);
        }
        return Ok(None);
    }
    let dir = repo.objects.store_ref().path().join("pack");
    let mut order = plan(objects);
    let trees_at = order
        .iter()
        .position(|p| p.kind() != Kind::Commit)
        .unwrap_or(order.len());
    let mut whole: Vec<_> = whole_trees().collect();
    whole.sort_unstable_by_key(|(id, _)| **id);
    // The trees moved out of memory first, as one entry of the plan: they
    // are read back in the order they wait in their file. Like the others,
    // they come before every delta, whose base one of them may be.
    let spilled_entry = (!trees.spilled.is_empty()).then(|| Planned {
        id: ObjectId::null(repo.object_hash()),
        body: Body::Spilled,
    });
    let tree_entries = spilled_entry
        .into_iter()
        .chain(whole.into_iter().map(|(id, data)| Planned {
            id: *id,
            body: Body::Whole {
                kind: Kind::Tree,
                data,
            },
        }))
        .chain(trees.deltas.iter().map(|d| Planned {
            id: d.id,
            body: Body::Delta {
                base: d.base,
                delta: &d.delta,
            },
        }));
    order.splice(trees_at..trees_at, tree_entries);
    let (checksum, entries, pack) =
        write_pack(&dir, repo.object_hash(), spool, order, &trees.spilled)?;
    write_names(&repo.git_dir().join(PACK_NAMES), &checksum, trees);
    let at = entries
        .into_iter()
        .filter(|(id, _, _)| trees.is_whole(id) && !trees.is_on_disk(id))
        .map(|(id, _, offset)| (id, offset))
        .collect();
    Ok(Some(Placed {
        pack: Arc::new(pack),
        at,
    }))
}

/// The tree `id`, read from the entry at `offset` of `pack`, whole or a
/// chain of deltas against earlier entries (a repack's), with positioned
/// reads and an inflate per link, its hash checked: where [`persist`]
/// stored it, or where a multi-pack index says it is ([`super::midx`]). A
/// look-up through gix goes through every pack's index and leaves the
/// pages it read mapped into the process. `None` when the entry is not
/// that tree, so that the caller reads it the usual way.
pub(crate) fn read_tree(pack: &fs::File, offset: u64, id: &ObjectId) -> Option<Vec<u8>> {
    let (kind, data) = object_at(pack, offset, READ_DEPTH)?;
    if kind != Kind::Tree {
        return None;
    }
    let actual = gix::objs::compute_hash(id.kind(), Kind::Tree, &data).ok()?;
    (actual == *id).then_some(data)
}

/// Where [`persist`] leaves, for each pack it writes, the directory of
/// each tree the pack holds whole (`lore/pack-names/pack-<hash>`, lines
/// of `<id> <path>`), for the background merges (`super::repack`): named,
/// `git pack-objects` puts the versions of one directory from different
/// packs side by side and stores all but one as deltas.
pub(crate) const PACK_NAMES: &str = "lore/pack-names";

/// Writes the names of the pack `checksum` (see [`PACK_NAMES`]): the
/// newest tree of each directory but the root, when it was written
/// whole. Best effort: the names only make later merges smaller, so a
/// file that cannot be written is left out, never half written (it is
/// renamed into place).
fn write_names(dir: &Path, checksum: &ObjectId, trees: &Written) {
    let mut lines = String::new();
    for (path, id) in &trees.newest {
        if !path.is_empty() && trees.is_whole(id) && !trees.is_on_disk(id) {
            lines.push_str(&format!("{id} {path}\n"));
        }
    }
    if lines.is_empty() || fs::create_dir_all(dir).is_err() {
        return;
    }
    let Ok(mut tmp) = tempfile::Builder::new()
        .prefix("tmp_names_")
        .tempfile_in(dir)
    else {
        return;
    };
    if tmp.write_all(lines.as_bytes()).is_ok() {
        let _ = tmp.persist(dir.join(format!("pack-{checksum}")));
    }
}

/// The pack type numbers of git's pack format.
fn type_number(kind: Kind) -> u8 {
    match kind {
        Kind::Commit => 1,
        Kind::Tree => 2,
        Kind::Blob => 3,
        Kind::Tag => 4,
    }
}

/// The pack type number of a delta against an earlier entry of the pack.
const OFS_DELTA: u8 = 6;

/// The pack entry header: type number and inflated size, little-endian
/// base-128.
fn entry_header(type_number: u8, size: usize, out: &mut Vec<u8>) {
    let mut size = size as u64;
    let mut byte = (type_number << 4) | (size & 0x0f) as u8;
    size >>= 4;
    while size != 0 {
        out.push(byte | 0x80);
        byte = (size & 0x7f) as u8;
        size >>= 7;
    }
    out.push(byte);
}

/// Adds `objects` (blobs and commits a transaction made) to `w`, in the
/// order [`persist`] writes them.
pub fn spool(w: &mut PackWriter, objects: &gix::odb::memory::Storage) -> Result<(), StoreError> {
    for p in plan(objects) {
        if w.contains(&p.id) {
            continue;
        }
        if let Body::Whole { kind, data } = p.body {
            io_ctx(w.add(p.id, kind, data), || {
                format!("writing object {} to a pack", p.id)
            })?;
        }
    }
    Ok(())
}

/// Writes the objects of `order` as `pack-<checksum>.pack` and `.idx` in
/// `dir`, after what `spool` holds already; returns the checksum, what the
/// index holds (id, CRC-32 and offset of each entry, by id) and the pack,
/// open. The index appears last.
fn write_pack(
    dir: &Path,
    hash: gix::hash::Kind,
    spool: Option<PackWriter>,
    order: Vec<Planned<'_>>,
    spilled: &Spilled,
) -> Result<(ObjectId, Vec<IndexEntry>, fs::File), StoreError> {
    let mut w = match spool {
        Some(w) => w,
        None => PackWriter::new(dir, hash)?,
    };
    let ctx = || format!("writing a pack in {}", dir.display());
    for p in &order {
        // A blob made again after its first copy was spooled.
        if w.contains(&p.id) {
            continue;
        }
        let written = match p.body {
            Body::Whole { kind, data } => w.add(p.id, kind, data),
            Body::Delta { base, delta } => w.add_tree_delta(p.id, base, delta),
            Body::Spilled => spilled.each(|id, data| w.add(id, Kind::Tree, data)),
        };
        io_ctx(written, ctx)?;
    }
    w.finish()
}

/// A pack written entry by entry to a temporary file beside the object
/// store: a large transaction moves its blobs and commits here as it
/// makes them ([`super::tx`]), instead of holding them until it ends, and
/// [`persist`] adds the rest. git and gix see none of it until
/// [`PackWriter::finish`] has renamed the pack and written its index;
/// dropped unfinished, the temporary file goes with it.
pub struct PackWriter {
    dir: std::path::PathBuf,
    hash: gix::hash::Kind,
    tmp: tempfile::NamedTempFile,
    /// Entries not yet written to `tmp`, from `flushed` on: written a few
    /// dozen kilobytes at a time rather than a write per entry.
    unflushed: Vec<u8>,
    flushed: u64,
    /// Where the next entry goes.
    offset: u64,
    /// Per entry: its id, the CRC-32 of its bytes and its offset.
    entries: Vec<IndexEntry>,
    deflate: Deflate,
    entry: Vec<u8>,
    /// The entry before the next, when a blob or a commit: its kind,
    /// offset and delta depth, its bytes in `base`. The next one of its
    /// kind may be a delta of it: records of one kind share their keys, and
    /// commits their headers and trailers.
    previous: Option<(Kind, u64, usize)>,
    base: Vec<u8>,
    /// Where each tree is, for the trees that are deltas of it.
    trees: HashMap<ObjectId, u64>,
    /// Where each blob and commit is, to read it back ([`PackWriter::read`]).
    others: HashMap<ObjectId, u64>,
}

impl PackWriter {
    /// An empty pack in `dir` (the object store's `pack/`).
    pub fn new(dir: &Path, hash: gix::hash::Kind) -> Result<PackWriter, StoreError> {
        io_ctx(fs::create_dir_all(dir), || {
            format!("creating {}", dir.display())
        })?;
        let ctx = || format!("creating a pack in {}", dir.display());
        let mut tmp = io_ctx(
            tempfile::Builder::new()
                .prefix("tmp_pack_")
                .permissions(fs::Permissions::from_mode(0o444))
                .tempfile_in(dir),
            ctx,
        )?;
        // The count of entries is written when it is known.
        let mut header = Vec::with_capacity(12);
        header.extend_from_slice(b"PACK");
        header.extend_from_slice(&2u32.to_be_bytes());
        header.extend_from_slice(&0u32.to_be_bytes());
        io_ctx(tmp.write_all(&header), ctx)?;
        Ok(PackWriter {
            dir: dir.to_owned(),
            hash,
            tmp,
            unflushed: Vec::with_capacity(FLUSH_AT + 4096),
            flushed: header.len() as u64,
            offset: header.len() as u64,
            entries: Vec::new(),
            deflate: Deflate::new(),
            entry: Vec::with_capacity(4096),
            previous: None,
            base: Vec::new(),
            trees: HashMap::new(),
            others: HashMap::new(),
        })
    }

    /// How many entries it has.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether it has none.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Whether it holds `id`.
    pub fn contains(&self, id: &ObjectId) -> bool {
        self.others.contains_key(id) || self.trees.contains_key(id)
    }

    /// Adds the object `id` of `kind`: a blob or a commit as a delta of
    /// the entry before it when that is one of its kind and the chain is
    /// short enough, anything else whole.
    pub fn add(&mut self, id: ObjectId, kind: Kind, data: &[u8]) -> std::io::Result<()> {
        let made = match self.previous.take() {
            Some((k, at, depth)) if k == kind && depth < MAX_DELTA_DEPTH => {
                delta_blocks(&self.base, data).map(|d| (d, at, depth + 1))
            }
            _ => None,
        };
        let offset = self.offset;
        let depth = match made {
            Some((delta, at, depth)) => {
                self.write_entry(id, OFS_DELTA, &delta, Some(at))?;
                depth
            }
            None => {
                self.write_entry(id, type_number(kind), data, None)?;
                0
            }
        };
        if kind == Kind::Tree {
            self.trees.insert(id, offset);
        } else {
            self.others.insert(id, offset);
            self.previous = Some((kind, offset, depth));
            self.base.clear();
            self.base.extend_from_slice(data);
        }
        Ok(())
    }

    /// Adds the tree `id` as `delta` of the tree `base`, which must be in
    /// the pack already.
    pub fn add_tree_delta(
        &mut self,
        id: ObjectId,
        base: ObjectId,
        delta: &[u8],
    ) -> std::io::Result<()> {
        let at = self.trees.get(&base).copied().ok_or_else(|| {
            std::io::Error::other(format!(
                "tree {id} is a delta of {base}, which is not before it in the pack"
            ))
        })?;
        self.previous = None;
        let offset = self.offset;
        self.write_entry(id, OFS_DELTA, delta, Some(at))?;
        self.trees.insert(id, offset);
        Ok(())
    }

    fn write_entry(
        &mut self,
        id: ObjectId,
        type_number: u8,
        body: &[u8],
        base: Option<u64>,
    ) -> std::io::Result<()> {
        self.entry.clear();
        entry_header(type_number, body.len(), &mut self.entry);
        if let Some(base) = base {
            ofs_delta_offset(self.offset - base, &mut self.entry);
        }
        self.deflate.stream(body, &mut self.entry)?;
        self.unflushed.extend_from_slice(&self.entry);
        if self.unflushed.len() >= FLUSH_AT {
            self.flush()?;
        }
        self.entries
            .push((id, crc32fast::hash(&self.entry), self.offset));
        self.offset += self.entry.len() as u64;
        Ok(())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.tmp.write_all(&self.unflushed)?;
        self.flushed += self.unflushed.len() as u64;
        self.unflushed.clear();
        Ok(())
    }

    /// The blob or commit `id` as it was added, read back from the file;
    /// `None` if it was not added here or does not read.
    pub fn read(&self, id: &ObjectId) -> Option<(Kind, Vec<u8>)> {
        let at = *self.others.get(id)?;
        let (kind, data) = self.read_at(at, MAX_DELTA_DEPTH)?;
        let actual = gix::objs::compute_hash(self.hash, kind, &data).ok()?;
        (actual == *id).then_some((kind, data))
    }

    /// The object of the entry at `at`, its delta chain (at most `depth`
    /// more links) resolved.
    fn read_at(&self, at: u64, depth: usize) -> Option<(Kind, Vec<u8>)> {
        let file = Spooled {
            file: self.tmp.as_file(),
            flushed: self.flushed,
            unflushed: &self.unflushed,
        };
        object_at(&file, at, depth)
    }

    /// Ends the pack: its count of entries and checksum written, the file
    /// synced and renamed to `pack-<checksum>.pack`, its index written and
    /// renamed beside it, last. Returns the checksum, what the index
    /// holds, and the pack, open.
    pub fn finish(mut self) -> Result<(ObjectId, Vec<IndexEntry>, fs::File), StoreError> {
        io_ctx(self.flush(), || {
            format!("writing a pack in {}", self.dir.display())
        })?;
        let PackWriter {
            dir,
            hash,
            tmp,
            mut entries,
            offset,
            ..
        } = self;
        let ctx = || format!("writing a pack in {}", dir.display());
        let file = tmp.as_file();
        let count = u32::try_from(entries.len())
            .map_err(|_| std::io::Error::other("more than 2^32 objects in one pack"));
        let count = io_ctx(count, ctx)?;
        io_ctx(file.write_all_at(&count.to_be_bytes(), 8), ctx)?;
        // The checksum covers every byte before it, the count included.
        let mut hasher = gix::hash::hasher(hash);
        let mut buf = vec![0u8; 1 << 16];
        let mut at = 0u64;
        while at < offset {
            let n = (offset - at).min(buf.len() as u64) as usize;
            io_ctx(file.read_exact_at(&mut buf[..n], at), ctx)?;
            hasher.update(&buf[..n]);
            at += n as u64;
        }
        let checksum = hasher.try_finalize().ctx(ctx)?;
        io_ctx(file.write_all_at(checksum.as_slice(), offset), ctx)?;
        io_ctx(file.sync_all(), ctx)?;
        let base = dir.join(format!("pack-{checksum}"));
        let pack = io_ctx(
            tmp.persist(base.with_extension("pack"))
                .map_err(|e| e.error),
            ctx,
        )?;

        entries.sort_by_key(|(id, _, _)| *id);
        let idx = index_bytes(hash, &entries, &checksum).ctx(ctx)?;
        let mut tmp = io_ctx(
            tempfile::Builder::new()
                .prefix("tmp_idx_")
                .permissions(fs::Permissions::from_mode(0o444))
                .tempfile_in(&dir),
            ctx,
        )?;
        io_ctx(
            tmp.write_all(&idx).and_then(|()| tmp.as_file().sync_all()),
            ctx,
        )?;
        io_ctx(
            tmp.persist(base.with_extension("idx")).map_err(|e| e.error),
            ctx,
        )?;
        // The renames themselves must be durable before the ref moves.
        io_ctx(fs::File::open(&dir).and_then(|d| d.sync_all()), ctx)?;
        Ok((checksum, entries, pack))
    }
}

/// How many bytes a [`PackWriter`] gathers before it writes them.
const FLUSH_AT: usize = 64 << 10;

/// The object of the entry at `at` of `pack`, its chain of deltas against
/// earlier entries (at most `depth` more links) resolved; `None` for
/// anything else (a delta against an object named by id, as only thin
/// packs have, or bytes that do not read as an entry).
fn object_at(pack: &impl ReadAt, at: u64, depth: usize) -> Option<(Kind, Vec<u8>)> {
    let (type_number, size, header) = read_entry_header(pack, at)?;
    let mut start = at + header as u64;
    let base = match type_number {
        OFS_DELTA => {
            let mut bytes = [0u8; 10];
            let n = read_full(pack, &mut bytes, start)?;
            let (distance, used) = read_ofs_delta_offset(&bytes[..n])?;
            start += used as u64;
            Some(at.checked_sub(distance)?)
        }
        _ => None,
    };
    let data = inflate_at(pack, start, size)?;
    match base {
        Some(base) => {
            let (kind, base) = object_at(pack, base, depth.checked_sub(1)?)?;
            Some((kind, apply(&base, &data)?))
        }
        None => Some((kind_of(type_number)?, data)),
    }
}

/// How long a chain of deltas [`read_tree`] follows (each link a frame of
/// the stack): git's own `pack-objects` makes chains of at most 50 by
/// default, 250 with `--aggressive`.
const READ_DEPTH: usize = 512;

/// Positioned reads: of a file, or of a pack being written.
trait ReadAt {
    fn read_at(&self, buf: &mut [u8], offset: u64) -> std::io::Result<usize>;
}

impl ReadAt for fs::File {
    fn read_at(&self, buf: &mut [u8], offset: u64) -> std::io::Result<usize> {
        FileExt::read_at(self, buf, offset)
    }
}

/// A [`PackWriter`]'s pack as it stands: its file up to `flushed`, then
/// what it has not written yet.
struct Spooled<'a> {
    file: &'a fs::File,
    flushed: u64,
    unflushed: &'a [u8],
}

impl ReadAt for Spooled<'_> {
    fn read_at(&self, buf: &mut [u8], offset: u64) -> std::io::Result<usize> {
        if offset < self.flushed {
            let n = buf.len().min((self.flushed - offset) as usize);
            return FileExt::read_at(self.file, &mut buf[..n], offset);
        }
        let from = usize::try_from(offset - self.flushed).unwrap_or(usize::MAX);
        let rest = self.unflushed.get(from..).unwrap_or_default();
        let n = buf.len().min(rest.len());
        buf[..n].copy_from_slice(&rest[..n]);
        Ok(n)
    }
}

/// Fills `buf` from `offset` on, as far as there are bytes; how many it
/// read, `None` on a read error.
fn read_full(r: &impl ReadAt, buf: &mut [u8], offset: u64) -> Option<usize> {
    let mut got = 0;
    while got < buf.len() {
        match r.read_at(&mut buf[got..], offset + got as u64) {
            Ok(0) => break,
            Ok(k) => got += k,
            Err(_) => return None,
        }
    }
    Some(got)
}

/// The kind of a pack type number of a whole object.
fn kind_of(type_number: u8) -> Option<Kind> {
    Some(match type_number {
        1 => Kind::Commit,
        2 => Kind::Tree,
        3 => Kind::Blob,
        4 => Kind::Tag,
        _ => return None,
    })
}

/// The type number, inflated size and header length of the entry at
/// `offset` of `pack`.
fn read_entry_header(pack: &impl ReadAt, offset: u64) -> Option<(u8, usize, usize)> {
    let mut head = [0u8; 16];
    let n = read_full(pack, &mut head, offset)?;
    let mut bytes = head[..n].iter();
    let mut byte = *bytes.next()?;
    let type_number = (byte >> 4) & 0x07;
    let mut size = u64::from(byte & 0x0f);
    let mut shift = 4;
    while byte & 0x80 != 0 {
        byte = *bytes.next()?;
        size |= u64::from(byte & 0x7f).checked_shl(shift)?;
        shift += 7;
    }
    // Far larger than any object of ours: not an entry we wrote.
    let size = usize::try_from(size).ok().filter(|&s| s <= 1 << 26)?;
    Some((type_number, size, n - bytes.len()))
}

/// The `size` bytes of the zlib stream at `offset` of `pack`, inflated.
fn inflate_at(pack: &impl ReadAt, offset: u64, size: usize) -> Option<Vec<u8>> {
    // At most zlib's bound for `size` bytes (`deflateBound`), with room to
    // spare; what is read past the entry is the next one, and left alone.
    let mut packed = vec![0u8; size + (size >> 12) + (size >> 14) + 64];
    let got = read_full(pack, &mut packed, offset)?;
    let mut data = vec![0u8; size];
    let (status, _, wrote) = gix::zlib::Inflate::default()
        .once(&packed[..got], &mut data)
        .ok()?;
    (status == gix::zlib::Status::StreamEnd && wrote == size).then_some(data)
}

/// The distance back to an `OFS_DELTA`'s base, and how many bytes of
/// `bytes` it took ([`ofs_delta_offset`] read back).
fn read_ofs_delta_offset(bytes: &[u8]) -> Option<(u64, usize)> {
    let mut it = bytes.iter();
    let mut byte = *it.next()?;
    let mut n = u64::from(byte & 0x7f);
    let mut used = 1;
    while byte & 0x80 != 0 {
        byte = *it.next()?;
        used += 1;
        n = n.checked_add(1)?.checked_shl(7)? | u64::from(byte & 0x7f);
    }
    Some((n, used))
}

/// `base` with the git delta `delta` applied; `None` if the delta does
/// not fit `base` or does not end at the size it says.
pub(crate) fn apply(base: &[u8], delta: &[u8]) -> Option<Vec<u8>> {
    let mut pos = 0;
    let mut varint = || {
        let (mut n, mut shift) = (0usize, 0u32);
        loop {
            let b = *delta.get(pos)?;
            pos += 1;
            n |= usize::from(b & 0x7f).checked_shl(shift)?;
            shift += 7;
            if b & 0x80 == 0 {
                return Some(n);
            }
        }
    };
    if varint()? != base.len() {
        return None;
    }
    let size = varint()?;
    let mut out = Vec::with_capacity(size.min(1 << 26));
    while pos < delta.len() {
        let op = delta[pos];
        pos += 1;
        if op & 0x80 != 0 {
            let (mut offset, mut n) = (0usize, 0usize);
            for i in 0..4 {
                if op & (1 << i) != 0 {
                    offset |= usize::from(*delta.get(pos)?) << (8 * i);
                    pos += 1;
                }
            }
            for i in 0..3 {
                if op & (0x10 << i) != 0 {
                    n |= usize::from(*delta.get(pos)?) << (8 * i);
                    pos += 1;
                }
            }
            if n == 0 {
                n = 0x10000;
            }
            out.extend_from_slice(base.get(offset..offset.checked_add(n)?)?);
        } else if op != 0 {
            let n = usize::from(op);
            out.extend_from_slice(delta.get(pos..pos + n)?);
            pos += n;
        } else {
            return None;
        }
    }
    (out.len() == size).then_some(out)
}

/// The longest chain of deltas an object may sit at the end of: each link
/// is one more object to inflate when it is read. git's own default
/// (`pack.depth`): at 10, the root, `proposals` and fan-out trees a chunk
/// rewrites 2,048 times started over whole every eleventh version, and a
/// 100,000 batch's packs were 1.98× fast-import's size instead of 1.84×.
pub(crate) const MAX_DELTA_DEPTH: usize = 50;

/// One object in pack order.
struct Planned<'a> {
    id: ObjectId,
    body: Body<'a>,
}

enum Body<'a> {
    Whole {
        kind: Kind,
        data: &'a [u8],
    },
    /// A tree as a delta of a tree earlier in the pack.
    Delta {
        base: ObjectId,
        delta: &'a [u8],
    },
    /// Every tree moved out of memory ([`Spilled`]), read back as they are
    /// written (the entry's id is none of theirs).
    Spilled,
}

impl Planned<'_> {
    fn kind(&self) -> Kind {
        match self.body {
            Body::Whole { kind, .. } => kind,
            Body::Delta { .. } | Body::Spilled => Kind::Tree,
        }
    }
}

/// Pack order of the blobs and commits: commits, then blobs, each by id.
/// Commits form one group and blobs another, where each may be a delta of
/// the one before it: records of one kind share their keys, and commits
/// their headers and trailers. (Trees come between, from
/// [`super::trees`], with their deltas made.)
fn plan(objects: &gix::odb::memory::Storage) -> Vec<Planned<'_>> {
    let mut order: Vec<Planned<'_>> = objects
        .iter()
        .map(|(id, (kind, data))| Planned {
            id: *id,
            body: Body::Whole { kind: *kind, data },
        })
        .collect();
    order.sort_by_key(|p| (type_number(p.kind()), p.id));
    order
}

/// A git delta under construction: the sizes, then copy and insert
/// instructions.
struct DeltaOut(Vec<u8>);

impl DeltaOut {
    fn new(base: usize, target: usize) -> DeltaOut {
        let mut out = DeltaOut(Vec::with_capacity(target / 4 + 32));
        out.varint(base);
        out.varint(target);
        out
    }

    fn varint(&mut self, mut n: usize) {
        loop {
            let byte = (n & 0x7f) as u8;
            n >>= 7;
            if n == 0 {
                self.0.push(byte);
                break;
            }
            self.0.push(byte | 0x80);
        }
    }

    /// Copies of up to 0xffffff bytes at a 32-bit offset of the base.
    fn copy(&mut self, mut offset: usize, mut size: usize) {
        let out = &mut self.0;
        while size > 0 {
            let n = size.min(0xff_ffff);
            let at = out.len();
            out.push(0x80);
            for i in 0..4 {
                let b = (offset >> (8 * i)) as u8;
                if b != 0 {
                    out[at] |= 1 << i;
                    out.push(b);
                }
            }
            for i in 0..3 {
                let b = (n >> (8 * i)) as u8;
                if b != 0 {
                    out[at] |= 0x10 << i;
                    out.push(b);
                }
            }
            offset += n;
            size -= n;
        }
    }

    /// Literal bytes, at most 127 per instruction.
    fn insert(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(0x7f) {
            self.0.push(chunk.len() as u8);
            self.0.extend_from_slice(chunk);
        }
    }

    /// The delta, if it is at most half of the `target` it makes.
    fn worth_it(self, target: &[u8]) -> Option<Vec<u8>> {
        (self.0.len() <= target.len() / 2).then_some(self.0)
    }
}

/// A git delta that makes `target` from `base`: copy their common prefix,
/// insert what differs, copy their common suffix. `None` unless it is at
/// most half of `target`. For trees: a new version of a tree differs from
/// the last in one entry or two.
pub(crate) fn delta(base: &[u8], target: &[u8]) -> Option<Vec<u8>> {
    if base.len() > u32::MAX as usize {
        return None;
    }
    let prefix = common_prefix(base, target);
    let room = base.len().min(target.len()) - prefix;
    let suffix = common_suffix(&base[base.len() - room..], &target[target.len() - room..]);
    let inserted = target.len() - suffix - prefix;
    // Kept in memory until the pack is written (a chunk's trees hold
    // thousands): sized for what it holds, not for `target`. Two sizes of
    // at most ten bytes, two copies of at most eight bytes each per 16 MiB,
    // and the inserted bytes with a length byte per 127.
    let copies = 8 * (2 + (prefix + suffix) / 0xff_ffff);
    let room_needed = 20 + copies + inserted + inserted.div_ceil(0x7f);
    let mut out = DeltaOut(Vec::with_capacity(room_needed));
    out.varint(base.len());
    out.varint(target.len());
    out.copy(0, prefix);
    out.insert(&target[prefix..target.len() - suffix]);
    out.copy(base.len() - suffix, suffix);
    out.worth_it(target)
}

/// How many bytes `a` and `b` share at their start; compared in blocks
/// (a tree of a large fan-out leaf was tens of kilobytes with two fan-out
/// levels, compared once per commit that rewrites it).
fn common_prefix(a: &[u8], b: &[u8]) -> usize {
    const STEP: usize = 64;
    let n = a.len().min(b.len());
    let mut i = 0;
    while i + STEP <= n && a[i..i + STEP] == b[i..i + STEP] {
        i += STEP;
    }
    while i < n && a[i] == b[i] {
        i += 1;
    }
    i
}

/// How many bytes `a` and `b` share at their end.
fn common_suffix(a: &[u8], b: &[u8]) -> usize {
    const STEP: usize = 64;
    let n = a.len().min(b.len());
    let (a, b) = (&a[a.len() - n..], &b[b.len() - n..]);
    let mut i = 0;
    while i + STEP <= n && a[n - i - STEP..n - i] == b[n - i - STEP..n - i] {
        i += STEP;
    }
    while i < n && a[n - i - 1] == b[n - i - 1] {
        i += 1;
    }
    i
}

/// The length of the blocks of the base [`delta_blocks`] indexes.
const BLOCK: usize = 16;

/// A git delta that makes `target` from `base` wherever they share runs of
/// at least [`BLOCK`] bytes, in any order: what two records or two commits
/// of one batch share (their keys, their trailers, the author line) while
/// the values between differ. `None` unless it is at most half of `target`.
///
/// The base is indexed by its aligned blocks; the target is scanned byte by
/// byte for a block that starts a match, which is then extended both ways.
fn delta_blocks(base: &[u8], target: &[u8]) -> Option<Vec<u8>> {
    if base.len() < BLOCK || target.len() < BLOCK || base.len() > u32::MAX as usize {
        return None;
    }
    // A Rabin-Karp hash of each block, rolled one byte at a time over the
    // target; the table keeps the first block of the base per slot and
    // every candidate is compared byte for byte.
    const P: u64 = 0x0100_0000_01b3;
    let top = (0..BLOCK - 1).fold(1u64, |h, _| h.wrapping_mul(P));
    let hash = |b: &[u8]| {
        b.iter()
            .fold(0u64, |h, &x| h.wrapping_mul(P).wrapping_add(x as u64))
    };
    let slots = (2 * base.len() / BLOCK).next_power_of_two();
    let slot = |h: u64| (h.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 32) as usize & (slots - 1);
    let mut table = vec![u32::MAX; slots];
    for at in (0..=base.len() - BLOCK).step_by(BLOCK) {
        let s = &mut table[slot(hash(&base[at..at + BLOCK]))];
        if *s == u32::MAX {
            *s = at as u32;
        }
    }
    let mut out = DeltaOut::new(base.len(), target.len());
    // Target bytes not yet covered by an instruction start here.
    let mut literal = 0;
    let mut at = 0;
    let mut h = hash(&target[..BLOCK]);
    while at + BLOCK <= target.len() {
        let from = table[slot(h)] as usize;
        if from == u32::MAX as usize || base[from..from + BLOCK] != target[at..at + BLOCK] {
            if at + BLOCK < target.len() {
                h = h
                    .wrapping_sub((target[at] as u64).wrapping_mul(top))
                    .wrapping_mul(P)
                    .wrapping_add(target[at + BLOCK] as u64);
            }
            at += 1;
            continue;
        }
        // Extend the match backwards over the pending literal bytes, then
        // forwards as far as both go.
        let back = base[..from]
            .iter()
            .rev()
            .zip(target[literal..at].iter().rev())
            .take_while(|(a, b)| a == b)
            .count();
        let forward = base[from + BLOCK..]
            .iter()
            .zip(&target[at + BLOCK..])
            .take_while(|(a, b)| a == b)
            .count();
        out.insert(&target[literal..at - back]);
        out.copy(from - back, back + BLOCK + forward);
        at += BLOCK + forward;
        literal = at;
        if at + BLOCK <= target.len() {
            h = hash(&target[at..at + BLOCK]);
        }
    }
    out.insert(&target[literal..]);
    out.worth_it(target)
}

/// The distance back to a delta's base, in git's offset encoding.
fn ofs_delta_offset(mut distance: u64, out: &mut Vec<u8>) {
    let mut bytes = vec![(distance & 0x7f) as u8];
    distance >>= 7;
    while distance != 0 {
        distance -= 1;
        bytes.push(0x80 | (distance & 0x7f) as u8);
        distance >>= 7;
    }
    out.extend(bytes.iter().rev());
}

/// One zlib compressor for every entry of a pack.
///
/// Setting up a compressor allocates and zeroes a few hundred kilobytes of
/// window and hash tables; per entry (six per commit, most of them a few
/// hundred bytes) that was a sixth of a batch's CPU time. Resetting one
/// costs a fraction of it.
struct Deflate {
    z: gix::zlib::stream::deflate::Compress,
    buf: Vec<u8>,
}

impl Deflate {
    fn new() -> Deflate {
        Deflate {
            z: gix::zlib::stream::deflate::Compress::new(gix::zlib::Compression::BEST_SPEED),
            buf: vec![0; 1 << 15],
        }
    }

    /// Appends `data` to `out` as one whole zlib stream.
    fn stream(&mut self, mut data: &[u8], out: &mut Vec<u8>) -> std::io::Result<()> {
        use gix::zlib::stream::deflate::FlushCompress;
        self.z.reset();
        loop {
            let (read, wrote) = (self.z.total_in(), self.z.total_out());
            let status = self
                .z
                .compress(data, &mut self.buf, FlushCompress::Finish)
                .map_err(std::io::Error::other)?;
            out.extend_from_slice(&self.buf[..(self.z.total_out() - wrote) as usize]);
            data = &data[(self.z.total_in() - read) as usize..];
            match status {
                gix::zlib::Status::StreamEnd => return Ok(()),
                gix::zlib::Status::Ok | gix::zlib::Status::BufError => {}
            }
        }
    }
}

/// What the index records of one object: its id, the CRC-32 of its pack
/// entry and the entry's offset.
type IndexEntry = (ObjectId, u32, u64);

/// A version-2 pack index over `entries` (sorted by id).
fn index_bytes(
    hash: gix::hash::Kind,
    entries: &[IndexEntry],
    pack_checksum: &ObjectId,
) -> Result<Vec<u8>, gix::Error> {
    let mut idx = Vec::with_capacity(8 + 1024 + entries.len() * (hash.len_in_bytes() + 8) + 40);
    idx.extend_from_slice(b"\xfftOc");
    idx.extend_from_slice(&2u32.to_be_bytes());
    let mut fanout = [0u32; 256];
    for (id, _, _) in entries {
        fanout[id.as_slice()[0] as usize] += 1;
    }
    let mut total = 0u32;
    for n in fanout {
        total += n;
        idx.extend_from_slice(&total.to_be_bytes());
    }
    for (id, _, _) in entries {
        idx.extend_from_slice(id.as_slice());
    }
    for (_, crc, _) in entries {
        idx.extend_from_slice(&crc.to_be_bytes());
    }
    let mut large = Vec::new();
    for (_, _, offset) in entries {
        if *offset < 0x8000_0000 {
            idx.extend_from_slice(&(*offset as u32).to_be_bytes());
        } else {
            let n = 0x8000_0000u32 | (large.len() / 8) as u32;
            idx.extend_from_slice(&n.to_be_bytes());
            large.extend_from_slice(&offset.to_be_bytes());
        }
    }
    idx.extend_from_slice(&large);
    idx.extend_from_slice(pack_checksum.as_slice());
    let mut hasher = gix::hash::hasher(hash);
    hasher.update(&idx);
    let own = hasher.try_finalize()?;
    idx.extend_from_slice(own.as_slice());
    Ok(idx)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    #[test]
    fn deltas_rebuild_their_target() {
        let base: Vec<u8> = (0..5000u32).map(|i| (i * 7 % 251) as u8).collect();
        let mut inserted = base.clone();
        inserted.splice(1234..1234, (0..300u32).map(|i| i as u8));
        let mut removed = base.clone();
        removed.drain(10..40);
        let mut appended = base.clone();
        appended.extend_from_slice(b"tail");
        for target in [inserted, removed, appended, base.clone()] {
            let d = delta(&base, &target).expect("a small delta");
            assert_eq!(apply(&base, &d).unwrap(), target);
        }
        assert_eq!(delta(&base, b"entirely different"), None, "not worth it");
    }

    #[test]
    fn common_ends_are_found_at_every_position_and_a_tree_delta_holds_only_itself() {
        let naive_prefix = |a: &[u8], b: &[u8]| a.iter().zip(b).take_while(|(x, y)| x == y).count();
        let naive_suffix = |a: &[u8], b: &[u8]| {
            a.iter()
                .rev()
                .zip(b.iter().rev())
                .take_while(|(x, y)| x == y)
                .count()
        };
        let base: Vec<u8> = (0..300u32).map(|i| (i * 7 % 251) as u8).collect();
        for at in 0..base.len() {
            let mut changed = base.clone();
            changed[at] ^= 0xff;
            for len in [0, 1, 63, 64, 65, 128, 200, 300] {
                let (a, b) = (&base[..len.min(300)], &changed[..len.min(300)]);
                assert_eq!(common_prefix(a, b), naive_prefix(a, b), "{at} {len}");
                assert_eq!(common_suffix(a, b), naive_suffix(a, b), "{at} {len}");
                let b = &changed[300 - len.min(300)..];
                assert_eq!(
                    common_suffix(&base, b),
                    naive_suffix(&base, b),
                    "{at} {len}"
                );
            }
        }
        // A leaf of a large fan-out, one entry added: the delta kept in
        // memory is its few bytes, not a quarter of the tree.
        let tree: Vec<u8> = (0..60_000u32).map(|i| (i * 13 % 251) as u8).collect();
        let mut added = tree.clone();
        added.splice(30_000..30_000, (0..59u8).collect::<Vec<_>>());
        let d = delta(&tree, &added).expect("one entry added");
        assert_eq!(apply(&tree, &d).unwrap(), added);
        assert!(
            d.capacity() <= d.len() + 40,
            "{} of {}",
            d.capacity(),
            d.len()
        );
    }

    #[test]
    fn block_deltas_rebuild_their_target() {
        let record = |claim: &str, id: u32| {
            format!(
                r#"{{"schema_version":2,"id":"01J{id:023}","claim":"{claim}","rationale":"the same rationale as every other record of this test, long enough to share","scope":{{"kind":"versioned"}}}}"#
            )
            .into_bytes()
        };
        let base = record("vite 5 breaks vitest 4", 1);
        let target = record("pnpm 9 needs node 18 or later, not 16", 2);
        let d = delta_blocks(&base, &target).expect("records share most of their bytes");
        assert!(
            d.len() < target.len() / 3,
            "{} of {}",
            d.len(),
            target.len()
        );
        assert_eq!(apply(&base, &d).unwrap(), target);
        // Moved and repeated runs, and a target that starts and ends with
        // what the base does not have.
        let base: Vec<u8> = (0..4000u32).map(|i| (i * 7 % 251) as u8).collect();
        let mut target = b"head".to_vec();
        target.extend_from_slice(&base[2000..3000]);
        target.extend_from_slice(&base[100..1100]);
        target.extend_from_slice(&base[100..1100]);
        target.extend_from_slice(b"tail");
        let d = delta_blocks(&base, &target).expect("a small delta");
        assert!(d.len() < 100, "{}", d.len());
        assert_eq!(apply(&base, &d).unwrap(), target);
        assert_eq!(delta_blocks(&base, &[7u8; 3000]), None, "nothing shared");
        assert_eq!(
            delta_blocks(b"short", b"short"),
            None,
            "shorter than a block"
        );
    }

    #[test]
    fn delta_offsets_use_gits_encoding() {
        let mut out = Vec::new();
        ofs_delta_offset(100, &mut out);
        assert_eq!(out, [100]);
        out.clear();
        // 200 = (0 + 1) * 128 + 72: git subtracts one per continuation.
        ofs_delta_offset(200, &mut out);
        assert_eq!(out, [0x80, 72]);
    }

    #[test]
    fn entry_headers_encode_type_and_size_as_git_does() {
        let mut out = Vec::new();
        entry_header(type_number(Kind::Blob), 10, &mut out);
        assert_eq!(out, [0x3a]);
        out.clear();
        entry_header(type_number(Kind::Commit), 100, &mut out);
        // 100 = 0b110_0100: low four bits 0100, then 110.
        assert_eq!(out, [0x80 | 0x10 | 0x04, 0x06]);
        out.clear();
        entry_header(type_number(Kind::Tree), 1 << 20, &mut out);
        assert_eq!(out, [0xa0, 0x80, 0x80, 0x04]);
    }
}
