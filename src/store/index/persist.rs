//! Writing the index: what the overlay holds becomes a new layer on top
//! of the chain, merged with the layers under it while they are not
//! geometrically larger ([`Index::persist`]), under the writers' lock
//! (`index.lock`, a `flock` the kernel drops with its process), crash-safe
//! by rename. The merge streams ([`stream`]): each merged table goes to
//! the new layer's file as the layers' tables are read, so a merge into
//! the bottom layer needs memory for what changed, not for the index.

use std::fs;
use std::io::Write;
use std::path::Path;

use super::filter::Filter;
use super::format::{self, Chain, LayerRef, LayerWriter, RefState, Scan, TableData, Tag, Window};
use super::search;
use super::{
    encode_artifact, encode_lesson, layer_tables, name_key, push_summary, push_tombstone,
    read_regular, slot, slot_record, Bytes, Index, Layer, Overlay, StoreError, ARTS, ART_WIDTH,
    COMPACT_FACTOR, LESN, LES_WIDTH, PRIV, PRIV_WIDTH, RCLH, RCLK, RCLK_WIDTH, RCLS, RCLS_WIDTH,
    TOMBSTONE,
};
use crate::search::rank::Totals;

impl Index {
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
    /// What `mem` holds becomes tables in memory ([`fresh`]), written
    /// sorted to a file ([`format::write_layer`]); their size decides what
    /// they absorb. When they absorb layers, they and the layers are
    /// merged straight into the new layer's file ([`stream`]), read and
    /// written a chunk at a time, the header written last; the bytes are
    /// those an encoding of the merged tables in memory would give.
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
    pub(super) fn persist(&mut self) -> Result<bool, StoreError> {
        let mem = std::mem::take(&mut self.mem);
        let written = self.persist_from(&mem);
        if !matches!(written, Ok(true)) {
            self.mem = mem;
        }
        written
    }

    /// [`Index::persist`], with `mem` for what the index's own overlay
    /// holds (which is left alone): a transaction's overlay is written
    /// without a copy of it ([`Index::remember`]).
    pub(super) fn persist_from(&mut self, mem: &Overlay) -> Result<bool, StoreError> {
        let full = self.layers.is_empty();
        let refs: Vec<RefState> = self.refs.values().cloned().collect();
        if !full && mem.len() == 0 {
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
        crate::store::io_ctx(fs::create_dir_all(&layer_dir), || {
            format!("creating {}", layer_dir.display())
        })?;
        let lock_path = dir.join("index.lock");
        let Some(_lock) = crate::store::io_ctx(WriteLock::try_take(&lock_path), || {
            format!("locking {}", lock_path.display())
        })?
        else {
            return Ok(false);
        };
        if !full && read_regular(&self.path, format::MAX_CHAIN) != self.chain {
            return Ok(false);
        }
        let mut start = self.layers.len();
        let mut layers = self.layer_refs(start);
        let mut written = None;
        if mem.len() > 0 {
            // The chain's search totals once this layer is on it,
            // whichever layers it absorbs.
            let totals = self.totals_with(mem);
            let mut tables = fresh(mem, full);
            tables.push(search::totals_table(&totals));
            let mut sum = format::layer_len(&tables);
            while start > 0 && self.layers[start - 1].size < COMPACT_FACTOR * sum {
                start -= 1;
                sum += self.layers[start].size;
            }
            layers.truncate(start);
            let tmp = crate::store::io_ctx(
                tempfile::Builder::new()
                    .prefix("layer-")
                    .suffix(".tab")
                    .tempfile_in(&layer_dir),
                || format!("writing an index layer in {}", layer_dir.display()),
            )?;
            let size = if start == self.layers.len() {
                let (_, _, size) = crate::store::io_ctx(
                    tmp.as_file()
                        .try_clone()
                        .and_then(|file| format::write_layer(tables, file)),
                    || "writing an index layer".into(),
                )?;
                size
            } else {
                // What `mem` holds, as a layer of its own in a file without
                // a name, on top of the layers it absorbs; all merged into
                // the new layer's file as they are read.
                let (file, dirs, size) = crate::store::io_ctx(
                    tempfile::tempfile_in(&layer_dir)
                        .and_then(|file| format::write_layer(tables, file)),
                    || format!("writing an index layer in {}", layer_dir.display()),
                )?;
                let top = Layer {
                    name: String::new(),
                    size,
                    bytes: Bytes::of_file(file),
                    tables: dirs,
                };
                let from: Vec<&Layer> = self.layers[start..].iter().chain([&top]).collect();
                let merged = tmp
                    .as_file()
                    .try_clone()
                    .and_then(|file| format::LayerWriter::new(file, layer_tables()))
                    .map_err(Stop::Io)
                    .and_then(|mut out| {
                        stream(&from, start == 0, &totals, &mut out)?;
                        out.finish().map_err(Stop::Io)
                    });
                match merged {
                    Ok((_, _, size)) => size,
                    Err(Stop::Unreadable) => return Ok(false),
                    Err(Stop::Io(e)) => {
                        return crate::store::io_ctx(Err(e), || "writing an index layer".into())
                    }
                }
            };
            // On disk before any chain names it: after a crash of the
            // machine, a layer whose pages were never written would read
            // as zeros behind a whole header, and only the header is
            // checked when a layer is opened.
            crate::store::io_ctx(tmp.as_file().sync_all(), || "writing an index layer".into())?;
            let (file, path) = crate::store::io_ctx(tmp.keep().map_err(|e| e.error), || {
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
            // Opened as any layer is: its header is checked against the
            // file it describes.
            let bytes = Bytes::of_file(file);
            let tables = match format::read_layer(&bytes) {
                Ok(tables) => tables,
                Err(e) => {
                    let _ = fs::remove_file(&path);
                    return crate::store::io_ctx(Err(std::io::Error::other(e)), || {
                        format!("reading back the index layer {name}")
                    });
                }
            };
            layers.push(LayerRef {
                name: name.clone(),
                size,
            });
            written = Some(Layer {
                name,
                size,
                bytes,
                tables,
            });
        }
        let chain = format::encode_chain(&Chain {
            refs,
            layers: layers.clone(),
        });
        let mut tmp = crate::store::io_ctx(tempfile::NamedTempFile::new_in(&dir), || {
            format!("writing the index in {}", dir.display())
        })?;
        crate::store::io_ctx(tmp.write_all(&chain), || "writing the index".into())?;
        crate::store::io_ctx(tmp.persist(&self.path).map_err(|e| e.error), || {
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
        self.layers.extend(written);
        self.chain = Some(chain);
        Ok(true)
    }
}

/// The tables of a layer holding what `mem` holds (without `SRCT`, the
/// caller's): a new layer on top of the chain, encoded in memory
/// ([`format::encode_layer`]), its size what it costs. `bottom`: no layer
/// lies under it, so the tombstones of gone pool entries and documents
/// are dropped.
pub(super) fn fresh(mem: &Overlay, bottom: bool) -> Vec<TableData> {
    let arts: Vec<u8> = mem
        .artifacts
        .iter()
        .flat_map(|(id, o)| encode_artifact(*id, o))
        .collect();
    let lessons: Vec<u8> = mem
        .lessons
        .iter()
        .flat_map(|(id, e)| encode_lesson(*id, e))
        .collect();
    let mut keys = Vec::new();
    let mut slots = Vec::with_capacity(mem.summaries.len() * RCLS_WIDTH);
    let mut heap = Vec::new();
    for (id, summary) in &mem.summaries {
        let Some(s) = summary else {
            if !bottom {
                push_tombstone(&mut slots, *id);
            }
            continue;
        };
        let bytes = serde_json::to_vec(s).expect("a summary serialises");
        push_summary(&mut slots, &mut heap, *id, &bytes);
        let (names, needed) = s.keys();
        for name in &names {
            keys.extend_from_slice(&name_key(name));
            keys.extend_from_slice(&id.to_bytes());
            keys.push(needed.min(255) as u8);
        }
    }
    let mut tables = vec![
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
            records: arts,
        },
        Filter::table(ARTS, mem.artifacts.keys().map(|id| id.to_bytes())),
        TableData {
            tag: LESN,
            width: LES_WIDTH,
            key: 16,
            records: lessons,
        },
        Filter::table(LESN, mem.lessons.keys().map(|id| id.to_bytes())),
        TableData {
            tag: PRIV,
            width: PRIV_WIDTH,
            key: 20,
            records: super::private::fresh(mem),
        },
    ];
    tables.extend(search::fresh(mem, bottom));
    tables
}

/// Why a streamed merge stopped.
pub(super) enum Stop {
    /// A table of a layer cannot be read. Nothing is written: a table that
    /// cannot be read is never rewritten from what could be, which would
    /// record the new tips over missing entries.
    Unreadable,
    /// Writing the new layer failed.
    Io(std::io::Error),
}

impl From<std::io::Error> for Stop {
    fn from(e: std::io::Error) -> Stop {
        Stop::Io(e)
    }
}

/// Writes the layer holding what `layers` (oldest first) say, the newest
/// word on each key winning, to `out`, table by table as they are read:
/// every table of this build, `SRCT` last, holding `totals`. `bottom`: no
/// layer lies under them, so the tombstones of gone pool entries and
/// documents are dropped.
///
/// Nothing is built whole: each table is a merge of the layers' tables
/// read in key order a chunk at a time ([`Scan`]), written as it goes.
/// What it keeps is about the keys the newer layers replace ([`Walk`])
/// and, for the postings, each document's new row (4 bytes a document);
/// the bytes are the same as [`fresh`] would encode from one overlay of
/// every change the layers hold.
pub(super) fn stream(
    layers: &[&Layer],
    bottom: bool,
    totals: &Totals,
    out: &mut LayerWriter,
) -> Result<(), Stop> {
    recall(layers, bottom, out)?;
    for (tag, width) in [(ARTS, ART_WIDTH), (LESN, LES_WIDTH)] {
        // Every key once: a first walk counts them, for the filter's size.
        let mut filter = Filter::new(Walk::new(layers, tag, 16)?.count(|_| true)?);
        out.table(tag, width, 16)?;
        let mut walk = Walk::new(layers, tag, 16)?;
        while walk.next_key() {
            let h = walk.holders();
            let rec = walk.record(*h.last().expect("a holder"));
            filter.add(&rec[..16]);
            out.push(rec)?;
            walk.advance()?;
        }
        filter.write(tag, out)?;
    }
    super::private::stream(layers, out)?;
    search::stream(layers, bottom, out)?;
    let t = search::totals_table(totals);
    out.table(t.tag, t.width, t.key)?;
    for rec in t.records.chunks_exact(t.width) {
        out.push(rec)?;
    }
    Ok(())
}

/// The recall tables, merged: an entry's slot, summary and keys come from
/// the newest layer that has a slot for it.
fn recall(layers: &[&Layer], bottom: bool, out: &mut LayerWriter) -> Result<(), Stop> {
    // First which entries each layer holds that a newer one replaces, for
    // the keys (which come first in the file).
    let mut replaced: Vec<Vec<[u8; 16]>> = vec![Vec::new(); layers.len()];
    let mut walk = Walk::new(layers, RCLS, 16)?;
    while walk.next_key() {
        let h = walk.holders();
        for &i in &h[..h.len() - 1] {
            replaced[i].push(walk.record(i)[..16].try_into().expect("an id"));
        }
        walk.advance()?;
    }
    out.table(RCLK, RCLK_WIDTH, 24)?;
    union(
        layers,
        RCLK,
        24,
        |i, rec| {
            let id: [u8; 16] = rec[8..24].try_into().expect("an id");
            replaced[i].binary_search(&id).is_err()
        },
        out,
    )?;
    // Then the slots, the summaries laid out in their order, and the
    // summaries themselves.
    out.table(RCLS, RCLS_WIDTH, 16)?;
    let mut at = 0u64;
    let mut walk = Walk::new(layers, RCLS, 16)?;
    while walk.next_key() {
        let h = walk.holders();
        let rec = walk.record(*h.last().expect("a holder"));
        match slot(rec) {
            Some((_, len)) => {
                out.push(&slot_record(&rec[..16], at, len as u32))?;
                at += len as u64;
            }
            None if !bottom => out.push(&slot_record(&rec[..16], 0, TOMBSTONE))?,
            None => {}
        }
        walk.advance()?;
    }
    out.table(RCLH, 1, 0)?;
    let mut heaps = windows(layers, RCLH)?;
    let mut walk = Walk::new(layers, RCLS, 16)?;
    while walk.next_key() {
        let h = walk.holders();
        let w = *h.last().expect("a holder");
        if let Some((off, len)) = slot(walk.record(w)) {
            out.push(heaps[w].slice(off, len).ok_or(Stop::Unreadable)?)?;
        }
        walk.advance()?;
    }
    Ok(())
}

/// One table of several layers walked together in key order: at each key,
/// which of them hold it (oldest first), so that the caller can take the
/// newest word, or the oldest.
pub(super) struct Walk<'l> {
    scans: Vec<Scan<'l>>,
    key: usize,
    /// The layers holding the current key.
    holders: Vec<usize>,
}

impl<'l> Walk<'l> {
    /// A walk of the table `tag` of `layers`, by its records' first `key`
    /// bytes; [`Stop::Unreadable`] when a layer lacks it or it cannot be
    /// read.
    pub(super) fn new(layers: &[&'l Layer], tag: Tag, key: usize) -> Result<Walk<'l>, Stop> {
        Ok(Walk {
            scans: scans(layers, tag)?,
            key,
            holders: Vec::with_capacity(layers.len()),
        })
    }

    /// How many keys are left whose newest record `keep` keeps, walking
    /// them all.
    pub(super) fn count(mut self, keep: impl Fn(&[u8]) -> bool) -> Result<u64, Stop> {
        let mut n = 0;
        while self.next_key() {
            let h = *self.holders.last().expect("a holder");
            n += u64::from(keep(self.record(h)));
            self.advance()?;
        }
        Ok(n)
    }

    /// Moves to the next key; `false` once every table is walked.
    pub(super) fn next_key(&mut self) -> bool {
        self.holders.clear();
        let mut min: Option<&[u8]> = None;
        for (i, s) in self.scans.iter().enumerate() {
            let Some(rec) = s.current() else { continue };
            let k = &rec[..self.key];
            match min.map(|m| k.cmp(m)) {
                Some(std::cmp::Ordering::Greater) => {}
                Some(std::cmp::Ordering::Equal) => self.holders.push(i),
                _ => {
                    min = Some(k);
                    self.holders.clear();
                    self.holders.push(i);
                }
            }
        }
        !self.holders.is_empty()
    }

    /// The current key's holders, by their index in the layers given,
    /// oldest first.
    pub(super) fn holders(&self) -> &[usize] {
        &self.holders
    }

    /// Holder `i`'s record of the current key.
    pub(super) fn record(&self, i: usize) -> &[u8] {
        self.scans[i].current().expect("a holder's record")
    }

    /// Holder `i`'s row of the current key, in its table.
    pub(super) fn row(&self, i: usize) -> u64 {
        self.scans[i].row()
    }

    /// Past the current key.
    pub(super) fn advance(&mut self) -> Result<(), Stop> {
        for &i in &self.holders {
            self.scans[i].advance().ok_or(Stop::Unreadable)?;
        }
        Ok(())
    }
}

/// Scans of the table `tag` of each layer.
fn scans<'l>(layers: &[&'l Layer], tag: Tag) -> Result<Vec<Scan<'l>>, Stop> {
    layers
        .iter()
        .map(|l| Scan::new(&l.bytes, l.table(tag)?))
        .collect::<Option<Vec<_>>>()
        .ok_or(Stop::Unreadable)
}

/// A window on each layer's `tag` table (a heap), for positioned reads.
pub(super) fn windows<'l>(layers: &[&'l Layer], tag: Tag) -> Result<Vec<Window<'l>>, Stop> {
    layers
        .iter()
        .map(|l| Some(Window::new(&l.bytes, l.table(tag)?)))
        .collect::<Option<Vec<_>>>()
        .ok_or(Stop::Unreadable)
}

/// Writes to `out` the records of the table `tag` of `layers` that `keep`
/// keeps (it is given the layer's index and the record, which it may
/// rewrite), in the order of their first `key` bytes. Each layer's kept
/// records must stay in that order, as a layer's own records are.
pub(super) fn union(
    layers: &[&Layer],
    tag: Tag,
    key: usize,
    mut keep: impl FnMut(usize, &mut [u8]) -> bool,
    out: &mut LayerWriter,
) -> Result<(), Stop> {
    let mut scans = scans(layers, tag)?;
    // Each layer's next kept record, rewritten, while it has one.
    let mut heads: Vec<Vec<u8>> = vec![Vec::new(); scans.len()];
    let mut live = vec![false; scans.len()];
    let mut next = |i: usize, s: &mut Scan, head: &mut Vec<u8>| -> Result<bool, Stop> {
        while let Some(rec) = s.current() {
            head.clear();
            head.extend_from_slice(rec);
            s.advance().ok_or(Stop::Unreadable)?;
            if keep(i, head) {
                return Ok(true);
            }
        }
        Ok(false)
    };
    for (i, (s, head)) in scans.iter_mut().zip(&mut heads).enumerate() {
        live[i] = next(i, s, head)?;
    }
    loop {
        let first = (0..heads.len())
            .filter(|&i| live[i])
            .min_by(|&a, &b| heads[a][..key].cmp(&heads[b][..key]));
        let Some(i) = first else { break };
        out.push(&heads[i])?;
        live[i] = next(i, &mut scans[i], &mut heads[i])?;
    }
    Ok(())
}

/// The index writers' lock: `flock` on `index.lock`, which the kernel
/// releases when the file is closed or its process dies, so a killed
/// writer never leaves it held.
pub(crate) struct WriteLock(fs::File);

impl Drop for WriteLock {
    /// Unlocks explicitly: a child forked (to run a program) while the lock
    /// was held shares its open file until it execs, and closing our
    /// descriptor alone would leave the lock held until then.
    fn drop(&mut self) {
        let _ = rustix::fs::flock(&self.0, rustix::fs::FlockOperation::Unlock);
    }
}

impl WriteLock {
    /// The lock, or `None` when another writer holds it.
    pub(crate) fn try_take(path: &Path) -> std::io::Result<Option<WriteLock>> {
        use rustix::fs::{FlockOperation, OFlags};
        use std::os::unix::fs::OpenOptionsExt;
        let file = fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .custom_flags((OFlags::NOFOLLOW | OFlags::NONBLOCK).bits() as i32)
            .open(path)?;
        match rustix::fs::flock(&file, FlockOperation::NonBlockingLockExclusive) {
            Ok(()) => Ok(Some(WriteLock(file))),
            Err(e) if e == rustix::io::Errno::WOULDBLOCK => Ok(None),
            Err(e) => Err(e.into()),
        }
    }
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use gix::ObjectId;

    use super::*;
    use crate::model::{Id, ProposalStatus, Source, Visibility};
    use crate::search::terms::Term;
    use crate::search::{Doc, Place, Posting, Shown, Status};
    use crate::store::index::filter::filter_tag;
    use crate::store::index::{ArtifactOutcome, DocKey, Held, LessonEntry, TABLES};
    use crate::store::layout::Branch;
    use crate::summary::Summary;

    fn id(n: u8) -> Id {
        Id::from_parts(1_700_000_000_000, n as u128)
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
        use crate::model::{AppliesTo, LessonStatus, Scope};
        let (stack, scope) = if versions.is_empty() {
            (
                vec!["vite".to_owned(), "webpack".to_owned()],
                Scope::VersionIndependent {
                    justification: "holds for every release".into(),
                },
            )
        } else {
            (
                versions.iter().map(|(k, _)| (*k).to_owned()).collect(),
                Scope::Versioned {
                    versions: versions
                        .iter()
                        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
                        .collect(),
                },
            )
        };
        Summary {
            id: Id::from_parts(1_780_000_000_000 + u64::from(n), u128::from(n)),
            status: LessonStatus::Active,
            superseded_by: None,
            promoted_at: "2026-08-05T10:00:00Z".into(),
            source: Source::Org,
            visibility: Visibility::Org,
            applies_to: AppliesTo {
                stack,
                scope,
                file_patterns: vec![],
                task_kinds: vec![],
            },
            claim: format!("claim {n}"),
            resolution: format!("resolution {n}"),
            artifacts: vec![art(n)],
        }
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

    /// What a proposal of lesson `l` from artifact `a` teaches the index.
    fn proposed(o: &mut Overlay, a: Id, l: Id) {
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
    }

    /// One round of changes: new artifacts and lessons, some changed, pool
    /// entries added, replaced and removed.
    fn round(r: u32) -> Overlay {
        let mut o = Overlay::default();
        for k in 0..(1 + r % 4) {
            let n = r * 10 + k;
            let a = Id::from_parts(1_700_000_000_000, u128::from(n) + 1_000_000);
            let l = Id::from_parts(1_700_000_000_000, u128::from(n));
            proposed(&mut o, a, l);
            let s = summary_of(n);
            o.docs.insert(DocKey::entry(s.id), Some(doc_of(n, true)));
            o.summaries.insert(s.id, Some(s));
            o.docs.insert(DocKey::proposal(l), Some(doc_of(n, false)));
        }
        // Objects of the private branches: new ones, and one an earlier
        // round knew (whose oldest word stands).
        for k in 0..(1 + r % 3) {
            o.note_private(
                oid(10_000 + r * 10 + k),
                Branch::Ledger,
                Held::Tree { commit: oid(r) },
            );
        }
        if r > 0 {
            o.note_private(
                oid(10_000 + (r - 1) * 10),
                Branch::Pool(Source::Local),
                Held::File { commit: oid(r) },
            );
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
            o.docs.insert(
                DocKey::entry(changed.id),
                Some(doc_of((r - 3) * 10 + 1, true)),
            );
            o.summaries.insert(summary_of((r - 2) * 10).id, None);
            o.docs
                .insert(DocKey::entry(summary_of((r - 2) * 10).id), None);
            // The lesson that moved on leaves the queue.
            o.docs.insert(DocKey::proposal(l), None);
            if r.is_multiple_of(5) {
                let back = summary_of((r - 4) * 10);
                o.docs
                    .insert(DocKey::entry(back.id), Some(doc_of((r - 4) * 10, true)));
                o.summaries.insert(back.id, Some(back));
            }
        }
        o
    }

    /// The words of document `n`: a few of a small vocabulary ([`word`]).
    fn doc_of(n: u32, entry: bool) -> Doc {
        let mut postings: Vec<Posting> = (0..1 + n % 5)
            .map(|k| Posting {
                key: word(n * 3 + k * 7),
                tf: [(n % 3) as u8, (k % 2) as u8, 1, (n % 2) as u8],
                exact: (n + k).is_multiple_of(4),
            })
            .collect();
        postings.sort_by_key(|p| p.key);
        postings.dedup_by_key(|p| p.key);
        Doc {
            place: if entry { Place::Org } else { Place::Pending },
            status: if entry {
                Status::Active
            } else {
                Status::Pending
            },
            lengths: [n as u16 % 7, 3, n as u16 % 11, 1],
            postings,
            shown: (!entry).then(|| Shown {
                claim: format!("claim {n}"),
                stack: vec![format!("pkg{n}")],
            }),
            artifacts: if entry {
                vec![art(n), art(n % 4)]
            } else {
                vec![]
            },
        }
    }

    const WORDS: u32 = 23;

    fn word(i: u32) -> u64 {
        Term::key(&format!("w{}", i % WORDS))
    }

    fn art(n: u32) -> Id {
        Id::from_parts(1_600_000_000_000, u128::from(n))
    }

    fn absorb(all: &mut Overlay, o: &Overlay) {
        all.artifacts
            .extend(o.artifacts.iter().map(|(k, v)| (*k, *v)));
        all.lessons.extend(o.lessons.iter().map(|(k, v)| (*k, *v)));
        all.summaries
            .extend(o.summaries.iter().map(|(k, v)| (*k, v.clone())));
        all.docs.extend(o.docs.iter().map(|(k, v)| (*k, v.clone())));
        for (k, v) in &o.private {
            all.private.entry(*k).or_insert(*v);
        }
    }

    /// Persists round `r`'s changes as the index at `dir` and adds them
    /// to `all`, what one overlay of every change holds: on odd rounds as
    /// a transaction's, which the index writes without copying it.
    fn write_round(dir: &Path, r: u32, all: &mut Overlay) {
        let o = round(r);
        absorb(all, &o);
        let mut index = at(dir, r);
        if r % 2 == 1 {
            index.refs.get_mut("refs/heads/ledger").unwrap().tip = oid(r - 1);
            index.remember(Branch::Ledger, Some(oid(r - 1)), oid(r), &o);
            return;
        }
        index.mem = o;
        index.persist().unwrap();
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
        assert_eq!(got.search_totals(), want.search_totals());
        let q = |text: String| crate::search::Query::parse(&text);
        for i in 0..WORDS {
            assert_eq!(
                got.search(&q(format!("w{i}"))),
                want.search(&q(format!("w{i}"))),
                "the documents holding w{i}"
            );
            // Whether each posting's document is looked up in the newer
            // layers or a layer's dead rows are marked once, the answer
            // is the same.
            let j = (i * 7 + 3) % WORDS;
            for text in [format!("w{i}"), format!("w{i} w{j}"), format!("w{i}-w{j}")] {
                for cost in [0, u64::MAX] {
                    assert_eq!(
                        got.search_with(&q(text.clone()), cost),
                        want.search(&q(text.clone())),
                        "{text}, look-up cost {cost}"
                    );
                }
            }
        }
        for n in 0..700 {
            assert_eq!(got.pool_holders(art(n)), want.pool_holders(art(n)));
        }
        for id in ids {
            assert_eq!(got.shown(*id), want.shown(*id));
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
        assert_eq!(
            got.recall_candidates(names.iter().copied()),
            want.recall_candidates(names.iter().copied()),
            "candidates for every name"
        );
    }

    #[test]
    fn layers_answer_as_one_overlay_of_every_change_would() {
        let dir = tempfile::tempdir().unwrap();
        let mut all = Overlay::default();
        let mut most_layers = 0;
        for r in 0..60 {
            write_round(dir.path(), r, &mut all);
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
            assert!(want.search_totals().docs > 0);
            // The next round's changes still in memory, over the layers:
            // what the overlay says of a document hides the layers' word.
            let (mut got, next) = (got, round(r + 1));
            got.mem = next.clone();
            absorb(&mut want.mem, &next);
            assert_eq!(got.search_totals(), want.search_totals());
            for i in 0..WORDS {
                let q = crate::search::Query::parse(&format!("w{i}"));
                for cost in [0, u64::MAX] {
                    assert_eq!(
                        got.search_with(&q, cost),
                        want.search(&q),
                        "w{i} over an overlay, cost {cost}"
                    );
                }
            }
            assert!((0..WORDS).any(|i| !want
                .search(&crate::search::Query::parse(&format!("w{i}")))
                .found
                .is_empty()));
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

    /// A layer encoded in memory, named by no chain.
    fn in_memory(bytes: Vec<u8>) -> Layer {
        let size = bytes.len() as u64;
        let bytes = Bytes::Memory(bytes);
        let tables = format::read_layer(&bytes).unwrap();
        Layer {
            name: String::new(),
            size,
            bytes,
            tables,
        }
    }

    /// The layer `stream` writes from `layers`, as bytes.
    fn streamed(dir: &Path, layers: &[&Layer], bottom: bool, totals: &Totals) -> Vec<u8> {
        let path = dir.join("streamed.tab");
        let file = fs::File::create(&path).unwrap();
        let mut out = LayerWriter::new(file, layer_tables()).unwrap();
        assert!(stream(layers, bottom, totals, &mut out).is_ok());
        let (_, _, size) = out.finish().unwrap();
        let bytes = fs::read(&path).unwrap();
        assert_eq!(bytes.len() as u64, size);
        bytes
    }

    #[test]
    fn a_streamed_merge_writes_the_layer_one_overlay_of_every_change_would() {
        // One layer per round, as a write adds it (tombstones kept), read
        // from files as the chain's are.
        let dir = tempfile::tempdir().unwrap();
        let totals = Totals {
            docs: 7,
            lengths: [1, 2, 3, 4],
        };
        let rounds = 14;
        let layers: Vec<Layer> = (0..rounds)
            .map(|r| {
                let mut tables = fresh(&round(r), false);
                tables.push(search::totals_table(&Totals::default()));
                let path = dir.path().join(format!("round-{r}.tab"));
                fs::write(&path, format::encode_layer(tables)).unwrap();
                let bytes = Bytes::of_file(fs::File::open(&path).unwrap());
                assert!(matches!(bytes, Bytes::Map(..)));
                let tables = format::read_layer(&bytes).unwrap();
                Layer {
                    name: format!("round-{r}.tab"),
                    size: 0,
                    bytes,
                    tables,
                }
            })
            .collect();
        let mut tombstones = 0;
        for start in 0..rounds as usize {
            for end in start + 1..=rounds as usize {
                let from: Vec<&Layer> = layers[start..end].iter().collect();
                let mut all = Overlay::default();
                for r in start..end {
                    absorb(&mut all, &round(r as u32));
                }
                for bottom in [false, true] {
                    let got = streamed(dir.path(), &from, bottom, &totals);
                    let mut tables = fresh(&all, bottom);
                    tables.push(search::totals_table(&totals));
                    let want = format::encode_layer(tables);
                    assert!(
                        got == want,
                        "rounds {start}..{end}, bottom {bottom}: {} bytes streamed, {} encoded",
                        got.len(),
                        want.len()
                    );
                }
                tombstones += all.summaries.values().filter(|s| s.is_none()).count();
            }
        }
        assert!(tombstones > 0, "no round removed an entry");
        // What a merge reads is checked: a layer without a table, or with
        // a slot past its heap, writes nothing.
        let mut tables = fresh(&round(5), false);
        tables.retain(|t| t.tag != PRIV);
        tables.push(search::totals_table(&totals));
        let lacking = in_memory(format::encode_layer(tables));
        let mut tables = fresh(&round(6), false);
        tables.push(search::totals_table(&totals));
        let heap = tables.iter_mut().find(|t| t.tag == RCLH).unwrap();
        assert!(!heap.records.is_empty());
        heap.records.pop();
        let short = in_memory(format::encode_layer(tables));
        for bad in [&lacking, &short] {
            let file = fs::File::create(dir.path().join("bad.tab")).unwrap();
            let mut out = LayerWriter::new(file, layer_tables()).unwrap();
            assert!(matches!(
                stream(&[&layers[0], bad], false, &totals, &mut out),
                Err(Stop::Unreadable)
            ));
        }
    }

    #[test]
    fn search_looks_only_at_the_cheapest_word_and_counts_every_term_exactly() {
        let dir = tempfile::tempdir().unwrap();
        let mut all = Overlay::default();
        for r in 0..12 {
            write_round(dir.path(), r, &mut all);
        }
        let got = Index::open(dir.path().join("lore/index"));
        assert!(got.layers.len() >= 2, "{} layers", got.layers.len());
        let live: Vec<(&DocKey, &Doc)> = all
            .docs
            .iter()
            .filter_map(|(k, d)| Some((k, d.as_ref()?)))
            .collect();
        let holds = |d: &Doc, i: u32| d.posting(word(i)).is_some();
        let df = |i: u32| live.iter().filter(|(_, d)| holds(d, i)).count() as u64;
        for i in 0..WORDS {
            let j = (i * 5 + 1) % WORDS;
            if i == j {
                continue;
            }
            // "wi-wj": no document holds the whole name, so a match holds
            // both parts, and only documents of the rarer part are read.
            let m = got.search(&crate::search::Query::parse(&format!("w{i}-w{j}")));
            assert_eq!(m.df[&word(i)], df(i), "w{i}");
            assert_eq!(m.df[&word(j)], df(j), "w{j}");
            let rarer = if df(j) < df(i) { j } else { i };
            let found: Vec<DocKey> = m.found.iter().map(|f| f.key).collect();
            let want: Vec<DocKey> = live
                .iter()
                .filter(|(_, d)| holds(d, rarer))
                .map(|(k, _)| **k)
                .collect();
            assert_eq!(found, want, "w{i}-w{j}: the documents of w{rarer}");
            for f in &m.found {
                let d = all.docs[&f.key].as_ref().unwrap();
                for w in [i, j] {
                    assert_eq!(
                        f.find(word(w)).is_some(),
                        holds(d, w),
                        "w{w} in {:?}",
                        f.key
                    );
                }
            }
        }
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
        let other = format::encode_layer(fresh(&Overlay::default(), false));
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

    /// `n` new artifacts, lessons and proposals, from number `from` on.
    fn many(from: u32, n: u32) -> Overlay {
        let mut o = Overlay::default();
        for k in from..from + n {
            let a = Id::from_parts(1_700_000_000_000, u128::from(k) * 7919 + 3);
            let l = Id::from_parts(1_800_000_000_000, u128::from(k) * 7919 + 5);
            proposed(&mut o, a, l);
            o.docs.insert(DocKey::proposal(l), Some(doc_of(k, false)));
        }
        o
    }

    #[test]
    fn a_large_layer_has_filters_and_look_ups_consult_them() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("lore/index");
        let mut all = Overlay::default();
        // The second write absorbs the first (a streamed merge); the third
        // is a layer of its own on top (written from memory).
        for (r, n) in [(0u32, 5000u32), (1, 5000), (2, 4500)] {
            let o = many(r * 10_000, n);
            absorb(&mut all, &o);
            let mut index = at(dir.path(), r);
            index.mem = o;
            assert!(index.persist().unwrap());
        }
        let index = Index::open(path.clone());
        assert_eq!(index.layers.len(), 2);
        for (l, keys) in index.layers.iter().zip([10_000u64, 4500]) {
            for tag in [ARTS, LESN, search::SRCD] {
                let f = l.table(filter_tag(tag).unwrap()).expect("a filter");
                let blocks = (keys as usize * super::super::filter::BITS_PER_KEY).div_ceil(512);
                assert_eq!(
                    f.count as usize,
                    blocks * 64,
                    "{}",
                    String::from_utf8_lossy(&tag)
                );
            }
        }
        // Every record is found; of as many absent ids, few get past the
        // filters to the tables.
        for (l, e) in &all.lessons {
            assert_eq!(index.lesson(*l), Some(*e));
            assert!(index.artifact(e.artifact).is_some());
        }
        let absent =
            (0u32..14_500).map(|k| Id::from_parts(1_800_000_000_000, u128::from(k) * 7919 + 6));
        let passed: usize = absent
            .flat_map(|id| {
                index
                    .layers
                    .iter()
                    .map(move |l| l.may_hold(LESN, &id.to_bytes()))
            })
            .filter(|&p| p)
            .count();
        assert!(passed < 150, "{passed} absent ids passed a filter");
        // The look-up reads the filter first: a filter of zeros hides
        // every lesson of its layer.
        let top = &index.layers[1];
        let f = *top.table(filter_tag(LESN).unwrap()).unwrap();
        let file = dir.path().join("lore/index.d").join(&top.name);
        let mut bytes = fs::read(&file).unwrap();
        bytes[f.offset as usize..][..f.count as usize].fill(0);
        drop(index);
        fs::write(&file, bytes).unwrap();
        let index = Index::open(path);
        let newest = many(20_000, 1).lessons.into_keys().next().unwrap();
        let oldest = many(0, 1).lessons.into_keys().next().unwrap();
        assert_eq!(index.lesson(newest), None);
        assert!(index.lesson(oldest).is_some());
    }

    #[test]
    fn the_artifact_estimate_counts_every_layer_and_the_overlay() {
        let dir = tempfile::tempdir().unwrap();
        let mut all = Overlay::default();
        for r in 0..40 {
            write_round(dir.path(), r, &mut all);
        }
        let mut index = at(dir.path(), 40);
        index.mem = round(40);
        let exact = {
            let mut every = all.artifacts.clone();
            every.extend(index.mem.artifacts.iter().map(|(k, v)| (*k, *v)));
            every.len()
        };
        assert!(index.layers.len() > 1, "the rounds left several layers");
        // Each artifact is written once here, so the estimate is exact.
        assert_eq!(index.artifacts_estimate(), exact);
    }
}
