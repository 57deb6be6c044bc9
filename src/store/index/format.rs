//! The index's bytes: a small *chain* file naming the refs the index was
//! built from and its layers, and the layers themselves, each a table
//! directory and fixed-width sorted tables searched in place.
//!
//! The chain (`<gitdir>/lore/index`):
//!
//! ```text
//! magic    "LOREIDX" + version byte (3)                        8 bytes
//! counts   refs: u32, layers: u32                              8 bytes
//! refs     per ref: name length u16, name, tip (20),
//!          flag u8 (1 = verified tip follows), verified (20)
//! layers   per layer, oldest first: name length u16, name,
//!          file length u64
//! check    the first 8 bytes of sha256 over everything above   8 bytes
//! ```
//!
//! A layer (`<gitdir>/lore/index.d/<name>`):
//!
//! ```text
//! magic    "LORETAB" + version byte (1)                        8 bytes
//! count    tables: u32                                         4 bytes
//! tables   per table: tag [u8; 4], record width u32, key width u32,
//!          offset u64, record count u64                        28 bytes
//! check    the first 8 bytes of sha256 over everything above   8 bytes
//! data     each table's records, sorted by key, at its offset
//! ```
//!
//! All integers are big-endian. A table is an addition, never a format
//! break: readers look tables up by tag and ignore tags they do not know.
//! A table with key width 0 (and record width 1) is a *heap*: bytes in the
//! order they were written, which other tables point into by offset.
//! A file of another version, a corrupt header, tables that do not fit the
//! file, or a layer name that is not a plain file name are refused
//! ([`FormatError`]); the caller rebuilds from history.
//!
//! A layer is encoded whole in memory ([`encode_layer`]), or written to
//! its file table by table ([`LayerWriter`]: the same bytes, its header
//! filled in last); a merge reads tables a chunk at a time ([`Scan`],
//! [`Window`]) rather than whole.
//!
//! This module only encodes and decodes. It knows nothing of git history,
//! except that a tip is a 20-byte object id, nor of what a newer layer's
//! record means for an older one's (that is `super`'s).

use std::borrow::Cow;
use std::fs;
use std::os::unix::fs::FileExt;

use gix::ObjectId;
use sha2::{Digest, Sha256};

/// The chain's magic and the version this build writes.
pub const MAGIC: &[u8; 8] = b"LOREIDX\x03";
/// A layer's magic and version.
pub const LAYER_MAGIC: &[u8; 8] = b"LORETAB\x01";
/// At most this many refs, layers and tables: a header is read whole, so a
/// corrupt count must not make it read gigabytes.
const MAX_REFS: u32 = 1 << 16;
const MAX_LAYERS: u32 = 64;
const MAX_TABLES: u32 = 256;
/// A chain longer than this is refused unread.
pub const MAX_CHAIN: u64 = 1 << 24;
const DIR_ENTRY: usize = 28;

/// Why an index file cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum FormatError {
    #[error("not an index file of this version")]
    Version,
    #[error("truncated: {0}")]
    Truncated(&'static str),
    #[error("header checksum does not match")]
    Checksum,
    #[error("inconsistent: {0}")]
    Inconsistent(String),
    #[error("cannot read the index: {0}")]
    Io(#[source] std::io::Error),
}

/// A table's identity: four ASCII bytes.
pub type Tag = [u8; 4];

/// A ref the index reflects, and what was last verified on it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RefState {
    /// The full ref name (`refs/heads/ledger`).
    pub name: String,
    /// The tip the tables reflect: the last tip seen.
    pub tip: ObjectId,
    /// The last tip whose history was verified, if any.
    pub verified: Option<ObjectId>,
}

/// A layer as the chain names it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LayerRef {
    /// Its file name under `index.d/`.
    pub name: String,
    /// Its length in bytes: the file must have exactly this many.
    pub size: u64,
}

/// The decoded chain: the refs the index reflects and its layers, oldest
/// first. A newer layer's record for a key replaces an older one's.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Chain {
    pub refs: Vec<RefState>,
    pub layers: Vec<LayerRef>,
}

/// One table to write: its records, each `width` bytes, keyed by their
/// first `key` bytes. They are sorted here. `key` 0 with `width` 1 is a
/// heap, written as it is.
pub struct TableData {
    pub tag: Tag,
    pub width: usize,
    pub key: usize,
    pub records: Vec<u8>,
}

/// Where a table lies in a layer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TableDir {
    pub tag: Tag,
    pub width: usize,
    pub key: usize,
    pub offset: u64,
    pub count: u64,
}

/// Whether `name` can be a layer's file name: a plain name under
/// `index.d/`, never a path, never hidden.
pub fn is_layer_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 128
        && !name.starts_with('.')
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'))
}

fn put_name(out: &mut Vec<u8>, name: &str) {
    out.extend_from_slice(&(name.len() as u16).to_be_bytes());
    out.extend_from_slice(name.as_bytes());
}

/// Encodes a chain file.
pub fn encode_chain(chain: &Chain) -> Vec<u8> {
    let mut out = Vec::with_capacity(32 + chain.refs.len() * 80 + chain.layers.len() * 40);
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&(chain.refs.len() as u32).to_be_bytes());
    out.extend_from_slice(&(chain.layers.len() as u32).to_be_bytes());
    for r in &chain.refs {
        put_name(&mut out, &r.name);
        out.extend_from_slice(r.tip.as_bytes());
        match r.verified {
            Some(v) => {
                out.push(1);
                out.extend_from_slice(v.as_bytes());
            }
            None => {
                out.push(0);
                out.extend_from_slice(&[0u8; 20]);
            }
        }
    }
    for l in &chain.layers {
        put_name(&mut out, &l.name);
        out.extend_from_slice(&l.size.to_be_bytes());
    }
    let check = Sha256::digest(&out);
    out.extend_from_slice(&check[..8]);
    out
}

/// Reads and checks a chain: version, checksum, layer names, and that
/// nothing follows the checksum.
pub fn read_chain(data: &[u8]) -> Result<Chain, FormatError> {
    let bytes = Bytes::Memory(data.to_vec());
    let mut c = Cursor {
        bytes: &bytes,
        off: 0,
        seen: Vec::new(),
    };
    if c.take(8, "magic").map_err(|_| FormatError::Version)? != MAGIC {
        return Err(FormatError::Version);
    }
    let nrefs = c.u32("ref count")?;
    let nlayers = c.u32("layer count")?;
    if nrefs > MAX_REFS || nlayers > MAX_LAYERS {
        return Err(FormatError::Inconsistent(format!(
            "{nrefs} refs and {nlayers} layers"
        )));
    }
    let mut refs = Vec::with_capacity(nrefs as usize);
    for _ in 0..nrefs {
        let name = c.name("ref name")?;
        let tip = ObjectId::from_bytes_or_panic(&c.take(20, "ref tip")?);
        let flag = c.take(1, "ref flag")?[0];
        let verified = c.take(20, "verified tip")?;
        refs.push(RefState {
            name,
            tip,
            verified: (flag == 1).then(|| ObjectId::from_bytes_or_panic(&verified)),
        });
    }
    let mut layers = Vec::with_capacity(nlayers as usize);
    for _ in 0..nlayers {
        let name = c.name("layer name")?;
        if !is_layer_name(&name) {
            return Err(FormatError::Inconsistent(format!(
                "{name:?} is not a layer name"
            )));
        }
        let size = c.u64("layer size")?;
        layers.push(LayerRef { name, size });
    }
    c.check()?;
    if c.off + 8 != data.len() as u64 {
        return Err(FormatError::Inconsistent("bytes after the chain".into()));
    }
    Ok(Chain { refs, layers })
}

/// Encodes a layer: its tables, each sorted by key.
pub fn encode_layer(tables: Vec<TableData>) -> Vec<u8> {
    let mut head = Vec::with_capacity(64 + tables.len() * DIR_ENTRY);
    head.extend_from_slice(LAYER_MAGIC);
    head.extend_from_slice(&(tables.len() as u32).to_be_bytes());
    let mut offset = (head.len() + tables.len() * DIR_ENTRY + 8) as u64;
    let mut sorted = Vec::with_capacity(tables.len());
    for t in tables {
        let mut recs: Vec<&[u8]> = t.records.chunks_exact(t.width).collect();
        if t.key > 0 {
            recs.sort_unstable_by(|a, b| a[..t.key].cmp(&b[..t.key]));
        }
        let count = recs.len() as u64;
        head.extend_from_slice(&t.tag);
        head.extend_from_slice(&(t.width as u32).to_be_bytes());
        head.extend_from_slice(&(t.key as u32).to_be_bytes());
        head.extend_from_slice(&offset.to_be_bytes());
        head.extend_from_slice(&count.to_be_bytes());
        offset += count * t.width as u64;
        sorted.push(recs.concat());
    }
    let check = Sha256::digest(&head);
    head.extend_from_slice(&check[..8]);
    for s in sorted {
        head.extend_from_slice(&s);
    }
    head
}

/// Where the bytes are: read whole, or searched in place.
#[derive(Debug)]
pub enum Bytes {
    Memory(Vec<u8>),
    /// The file mapped into memory: a look-up touches only the pages it
    /// reads, and nothing is copied. Sound because a layer is written
    /// under a new name and never written again (see `Index::persist`):
    /// the mapped bytes never change under us, and a layer a compaction
    /// deletes stays mapped until we let go of it.
    ///
    /// The file is kept open beside its map: a merge reads whole tables
    /// with positioned reads ([`Scan`], [`Window`]) instead of through the
    /// map, so that the pages it reads do not stay in the process's
    /// resident memory.
    Map(memmap2::Mmap, fs::File),
    /// The file read with positioned reads, where it cannot be mapped.
    File(fs::File),
}

impl Bytes {
    /// The file, mapped when it can be.
    pub fn of_file(file: fs::File) -> Bytes {
        // SAFETY: see `Bytes::Map`; git-lore never modifies a layer once it
        // is written. An empty file cannot be mapped.
        let len = file.metadata().map(|m| m.len()).unwrap_or(0);
        if len > 0 {
            if let Ok(map) = unsafe { memmap2::Mmap::map(&file) } {
                return Bytes::Map(map, file);
            }
        }
        Bytes::File(file)
    }

    /// Lets go of the pages of the map that look-ups have read: the
    /// process no longer holds them resident, and a later look-up finds
    /// them in the page cache again. Random look-ups touch a page each,
    /// and those of a batch's chunk held 35 MB of a million lessons'
    /// index (docs/PERFORMANCE.md, "Issue 24, sixth round").
    pub fn release(&self) {
        if let Bytes::Map(m, _) = self {
            // SAFETY: a read-only map of a file nobody writes (see
            // `Bytes::Map`): the pages it drops are read again from the
            // file, unchanged.
            let _ = unsafe { m.unchecked_advise(memmap2::UncheckedAdvice::DontNeed) };
        }
    }

    fn len(&self) -> Result<u64, FormatError> {
        match self {
            Bytes::Memory(b) => Ok(b.len() as u64),
            Bytes::Map(m, _) => Ok(m.len() as u64),
            Bytes::File(f) => f.metadata().map(|m| m.len()).map_err(FormatError::Io),
        }
    }

    /// `len` bytes at `off`; `None` past the end or on a read error.
    pub fn read(&self, off: u64, len: usize) -> Option<Cow<'_, [u8]>> {
        let start = usize::try_from(off).ok()?;
        let range = start..start.checked_add(len)?;
        match self {
            Bytes::Memory(b) => b.get(range).map(Cow::Borrowed),
            Bytes::Map(m, _) => m.get(range).map(Cow::Borrowed),
            Bytes::File(f) => {
                let mut buf = vec![0u8; len];
                f.read_exact_at(&mut buf, off).ok()?;
                Some(Cow::Owned(buf))
            }
        }
    }

    /// Fills `buf` with the bytes at `off`, from the file itself when there
    /// is one (a mapped file's map is not touched); `None` past the end or
    /// on a read error.
    fn read_into(&self, off: u64, buf: &mut [u8]) -> Option<()> {
        match self {
            Bytes::Memory(b) => {
                let start = usize::try_from(off).ok()?;
                buf.copy_from_slice(b.get(start..start.checked_add(buf.len())?)?);
                Some(())
            }
            Bytes::Map(_, f) | Bytes::File(f) => f.read_exact_at(buf, off).ok(),
        }
    }
}

struct Cursor<'a> {
    bytes: &'a Bytes,
    off: u64,
    /// Everything read so far, for the checksum.
    seen: Vec<u8>,
}

impl Cursor<'_> {
    fn take(&mut self, n: usize, what: &'static str) -> Result<Vec<u8>, FormatError> {
        let b = self
            .bytes
            .read(self.off, n)
            .ok_or(FormatError::Truncated(what))?;
        self.off += n as u64;
        self.seen.extend_from_slice(&b);
        Ok(b.into_owned())
    }

    fn u32(&mut self, what: &'static str) -> Result<u32, FormatError> {
        let b = self.take(4, what)?;
        Ok(u32::from_be_bytes(b.try_into().expect("4 bytes")))
    }

    fn u64(&mut self, what: &'static str) -> Result<u64, FormatError> {
        let b = self.take(8, what)?;
        Ok(u64::from_be_bytes(b.try_into().expect("8 bytes")))
    }

    /// A name: its length (u16), then UTF-8.
    fn name(&mut self, what: &'static str) -> Result<String, FormatError> {
        let len = self.take(2, what)?;
        let len = u16::from_be_bytes([len[0], len[1]]) as usize;
        String::from_utf8(self.take(len, what)?)
            .map_err(|_| FormatError::Inconsistent(format!("a {what} is not UTF-8")))
    }

    /// The 8 checksum bytes that follow what was read: the first 8 of its
    /// sha256.
    fn check(&self) -> Result<(), FormatError> {
        let check = Sha256::digest(&self.seen);
        let stored = self
            .bytes
            .read(self.off, 8)
            .ok_or(FormatError::Truncated("checksum"))?;
        if stored[..] != check[..8] {
            return Err(FormatError::Checksum);
        }
        Ok(())
    }
}

/// Reads and checks a layer's header: version, checksum, and that its
/// tables fill the file exactly.
pub fn read_layer(bytes: &Bytes) -> Result<Vec<TableDir>, FormatError> {
    let mut c = Cursor {
        bytes,
        off: 0,
        seen: Vec::new(),
    };
    if c.take(8, "magic").map_err(|_| FormatError::Version)? != LAYER_MAGIC {
        return Err(FormatError::Version);
    }
    let ntables = c.u32("table count")?;
    if ntables > MAX_TABLES {
        return Err(FormatError::Inconsistent(format!("{ntables} tables")));
    }
    let mut tables = Vec::with_capacity(ntables as usize);
    for _ in 0..ntables {
        let tag: Tag = c.take(4, "table tag")?.try_into().expect("4 bytes");
        let width = c.u32("table width")? as usize;
        let key = c.u32("table key")? as usize;
        let offset = c.u64("table offset")?;
        let count = c.u64("table count")?;
        tables.push(TableDir {
            tag,
            width,
            key,
            offset,
            count,
        });
    }
    c.check()?;
    let data_start = c.off + 8;
    let len = bytes.len()?;
    let mut end = data_start;
    for t in &tables {
        let size = (t.width as u64).checked_mul(t.count);
        let bad = t.width == 0
            || (t.key == 0 && t.width != 1)
            || t.key > t.width
            || t.offset != end
            || size.and_then(|s| s.checked_add(t.offset)).is_none();
        if bad {
            return Err(FormatError::Inconsistent(format!(
                "table {} does not fit",
                String::from_utf8_lossy(&t.tag)
            )));
        }
        end = t.offset + size.expect("checked");
    }
    if end != len {
        return Err(FormatError::Truncated("tables"));
    }
    Ok(tables)
}

/// How many bytes a [`Scan`] or a [`Window`] reads at once.
const CHUNK: usize = 64 << 10;

/// A table's records in key order, read a chunk at a time: a merge reads
/// a table of any size in `CHUNK` (64 KiB) of memory, with positioned reads
/// of the file rather than through its map.
pub struct Scan<'b> {
    bytes: &'b Bytes,
    table: TableDir,
    /// The row [`Scan::current`] is.
    row: u64,
    /// Whole records from row `buf_row` on.
    buf: Vec<u8>,
    buf_row: u64,
    /// How many records a read fetches.
    rows_per_read: u64,
}

impl<'b> Scan<'b> {
    /// A scan of `t` from its first record; `None` when that cannot be
    /// read.
    pub fn new(bytes: &'b Bytes, t: &TableDir) -> Option<Scan<'b>> {
        Scan::with_chunk(bytes, t, CHUNK)
    }

    /// The same, reading about `chunk` bytes (at least a record) at once.
    fn with_chunk(bytes: &'b Bytes, t: &TableDir, chunk: usize) -> Option<Scan<'b>> {
        let mut scan = Scan {
            bytes,
            table: *t,
            row: 0,
            buf: Vec::new(),
            buf_row: 0,
            rows_per_read: (chunk / t.width.max(1)).max(1) as u64,
        };
        scan.fill()?;
        Some(scan)
    }

    /// Reads the records from `row` on into the buffer, unless it holds
    /// `row` or `row` is past the end.
    fn fill(&mut self) -> Option<()> {
        let t = &self.table;
        let held = self.buf.len() as u64 / t.width as u64;
        if self.row >= t.count || (self.row >= self.buf_row && self.row < self.buf_row + held) {
            return Some(());
        }
        let n = self.rows_per_read.min(t.count - self.row);
        self.buf.resize(usize::try_from(n).ok()? * t.width, 0);
        self.buf_row = self.row;
        let off = t
            .offset
            .checked_add(self.row.checked_mul(t.width as u64)?)?;
        self.bytes.read_into(off, &mut self.buf)
    }

    /// The record at the scan's row; `None` past the last.
    pub fn current(&self) -> Option<&[u8]> {
        if self.row >= self.table.count {
            return None;
        }
        let at = (self.row - self.buf_row) as usize * self.table.width;
        Some(&self.buf[at..at + self.table.width])
    }

    /// The row of [`Scan::current`] in its table.
    pub fn row(&self) -> u64 {
        self.row
    }

    /// Moves to the next record; `None` when it cannot be read.
    pub fn advance(&mut self) -> Option<()> {
        self.row += 1;
        self.fill()
    }
}

/// Slices of a heap table, read a chunk at a time: cheap when they are
/// asked for in about the order they lie in, as a merge does.
pub struct Window<'b> {
    bytes: &'b Bytes,
    table: TableDir,
    /// Bytes of the heap from offset `at` on.
    buf: Vec<u8>,
    at: u64,
}

impl<'b> Window<'b> {
    pub fn new(bytes: &'b Bytes, t: &TableDir) -> Window<'b> {
        Window {
            bytes,
            table: *t,
            buf: Vec::new(),
            at: 0,
        }
    }

    /// `len` bytes at `offset` of the heap; `None` outside it (as
    /// [`heap_slice`]) or on a read error.
    pub fn slice(&mut self, offset: u64, len: usize) -> Option<&[u8]> {
        let end = offset.checked_add(len as u64)?;
        if end > self.table.count {
            return None;
        }
        if offset < self.at || end > self.at + self.buf.len() as u64 {
            let n = (len as u64)
                .max(CHUNK as u64)
                .min(self.table.count - offset);
            self.buf.resize(usize::try_from(n).ok()?, 0);
            self.at = offset;
            self.bytes
                .read_into(self.table.offset.checked_add(offset)?, &mut self.buf)?;
        }
        let from = (offset - self.at) as usize;
        Some(&self.buf[from..from + len])
    }
}

/// A layer written to a file table by table, in the order of its
/// directory, each table's records pushed in key order: what
/// [`encode_layer`] would encode, byte for byte, without holding the
/// tables. The header's place is left empty and written last, when every
/// table's offset and count are known. Records pushed out of key order are
/// refused, and so is a layer finished with another number of tables than
/// it was begun with.
pub struct LayerWriter {
    out: std::io::BufWriter<fs::File>,
    /// How many tables the header has room for.
    ntables: usize,
    tables: Vec<TableDir>,
    /// Where the next byte goes.
    offset: u64,
    /// The key of the last record pushed to the current table.
    last: Vec<u8>,
}

impl LayerWriter {
    /// Begins a layer of `ntables` tables at the start of `file`.
    pub fn new(file: fs::File, ntables: usize) -> std::io::Result<LayerWriter> {
        let mut out = std::io::BufWriter::with_capacity(CHUNK, file);
        let head = header_len(ntables);
        std::io::Write::write_all(&mut out, &vec![0u8; head])?;
        Ok(LayerWriter {
            out,
            ntables,
            tables: Vec::with_capacity(ntables),
            offset: head as u64,
            last: Vec::new(),
        })
    }

    /// Begins the next table: records of `width` bytes keyed by their
    /// first `key` (a heap with `key` 0 and `width` 1).
    pub fn table(&mut self, tag: Tag, width: usize, key: usize) -> std::io::Result<()> {
        if self.tables.len() == self.ntables || width == 0 || key > width {
            return Err(std::io::Error::other(format!(
                "index table {}: not one the layer has room for",
                String::from_utf8_lossy(&tag)
            )));
        }
        self.tables.push(TableDir {
            tag,
            width,
            key,
            offset: self.offset,
            count: 0,
        });
        self.last.clear();
        Ok(())
    }

    /// Appends a record to the current table, or bytes to a heap.
    pub fn push(&mut self, rec: &[u8]) -> std::io::Result<()> {
        let Some(t) = self.tables.last_mut() else {
            return Err(std::io::Error::other("an index record before any table"));
        };
        if t.key == 0 {
            t.count += rec.len() as u64;
        } else {
            let key = rec.get(..t.key).filter(|_| rec.len() == t.width);
            let in_order = key.is_some_and(|k| t.count == 0 || *self.last <= *k);
            let Some(key) = key.filter(|_| in_order) else {
                return Err(std::io::Error::other(format!(
                    "index table {}: a record out of key order or of another width",
                    String::from_utf8_lossy(&t.tag)
                )));
            };
            self.last.clear();
            self.last.extend_from_slice(key);
            t.count += 1;
        }
        self.offset += rec.len() as u64;
        std::io::Write::write_all(&mut self.out, rec)
    }

    /// Writes the header in its place: the file (not synced), where its
    /// tables lie, and its length.
    pub fn finish(self) -> std::io::Result<(fs::File, Vec<TableDir>, u64)> {
        if self.tables.len() != self.ntables {
            return Err(std::io::Error::other(format!(
                "an index layer of {} tables, not {}",
                self.tables.len(),
                self.ntables
            )));
        }
        let file = self.out.into_inner().map_err(|e| e.into_error())?;
        let mut head = Vec::with_capacity(header_len(self.ntables));
        head.extend_from_slice(LAYER_MAGIC);
        head.extend_from_slice(&(self.tables.len() as u32).to_be_bytes());
        for t in &self.tables {
            head.extend_from_slice(&t.tag);
            head.extend_from_slice(&(t.width as u32).to_be_bytes());
            head.extend_from_slice(&(t.key as u32).to_be_bytes());
            head.extend_from_slice(&t.offset.to_be_bytes());
            head.extend_from_slice(&t.count.to_be_bytes());
        }
        let check = Sha256::digest(&head);
        head.extend_from_slice(&check[..8]);
        file.write_all_at(&head, 0)?;
        Ok((file, self.tables, self.offset))
    }
}

/// The length of the layer [`encode_layer`] or [`write_layer`] makes of
/// `tables`, without making it.
pub fn layer_len(tables: &[TableData]) -> u64 {
    let data: usize = tables.iter().map(|t| t.records.len()).sum();
    (header_len(tables.len()) + data) as u64
}

/// Writes the layer of `tables` to the start of `file`: the bytes
/// [`encode_layer`] gives, each table's records sorted through a list of
/// their positions (4 bytes a record; none when they come sorted) instead
/// of a copy. Returns the file (not synced), where its tables lie, and its
/// length.
pub fn write_layer(
    tables: Vec<TableData>,
    file: fs::File,
) -> std::io::Result<(fs::File, Vec<TableDir>, u64)> {
    let mut out = LayerWriter::new(file, tables.len())?;
    for t in tables {
        out.table(t.tag, t.width, t.key)?;
        if t.key == 0 {
            out.push(&t.records)?;
            continue;
        }
        let rec = |i: u32| &t.records[i as usize * t.width..][..t.width];
        let n = u32::try_from(t.records.len() / t.width)
            .map_err(|_| std::io::Error::other("an index table of over 2^32 records"))?;
        let sorted = (1..n).all(|i| rec(i - 1)[..t.key] <= rec(i)[..t.key]);
        let mut order: Vec<u32> = Vec::new();
        if !sorted {
            order = (0..n).collect();
            order.sort_by(|&a, &b| rec(a)[..t.key].cmp(&rec(b)[..t.key]));
        }
        for i in 0..n {
            out.push(rec(if sorted { i } else { order[i as usize] }))?;
        }
    }
    out.finish()
}

/// A layer header's length: magic, count, directory, checksum.
fn header_len(ntables: usize) -> usize {
    8 + 4 + ntables * DIR_ENTRY + 8
}

/// Binary search for `key` in a table: the whole record, if present. A
/// look-up reads about log2(n) records, so it costs the same at 100,000
/// records as at 1,000.
///
/// A key outside the table's first and last is answered from those two
/// records alone. Lesson ids begin with the time they were drawn, so a new
/// lesson's id (or a document key made from it) lies past the end of
/// every older layer: the check that it is free then reads two records
/// per layer, which stay in memory, instead of a dozen scattered pages.
pub fn find<'b>(bytes: &'b Bytes, t: &TableDir, key: &[u8]) -> Option<Cow<'b, [u8]>> {
    if t.key == 0 || key.len() != t.key || t.count == 0 {
        return None;
    }
    let key_at = |i: u64| bytes.read(t.offset + i * t.width as u64, t.key);
    if key < &key_at(0)?[..] || key > &key_at(t.count - 1)?[..] {
        return None;
    }
    let (mut lo, mut hi) = (0u64, t.count);
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        let rec = bytes.read(t.offset + mid * t.width as u64, t.width)?;
        match rec[..t.key].cmp(key) {
            std::cmp::Ordering::Less => lo = mid + 1,
            std::cmp::Ordering::Greater => hi = mid,
            std::cmp::Ordering::Equal => return Some(rec),
        }
    }
    None
}

/// The first index in `from..n` for which `before` is false, `before`
/// being true then false along the range: steps of 1, 2, 4, … from
/// `from`, then a binary search in the last step, so that a walk of many
/// ordered look-ups costs what a merge does when they are dense and what
/// binary searches do when they are sparse.
pub fn gallop(from: usize, n: usize, before: impl Fn(usize) -> bool) -> usize {
    let (mut lo, mut step) = (from, 1);
    let mut hi = loop {
        let probe = lo.saturating_add(step - 1);
        if probe >= n {
            break n;
        }
        if !before(probe) {
            break probe;
        }
        lo = probe + 1;
        step *= 2;
    };
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if before(mid) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    lo
}

/// Every record of a table whose key starts with one of `prefixes`, which
/// come in ascending order, each with its prefix, in key order: each
/// look-up gallops on from where the last one ended ([`gallop`]), so that
/// thousands of sorted look-ups cost about a merge's walk of the table
/// when they are dense and a binary search each when they are sparse.
/// Stops at a record it cannot read.
pub fn each_with_prefixes<'p>(
    bytes: &Bytes,
    t: &TableDir,
    prefixes: impl IntoIterator<Item = &'p [u8]>,
    mut each: impl FnMut(&'p [u8], &[u8]),
) {
    let Ok(n) = usize::try_from(t.count) else {
        return;
    };
    let at = |i: usize| record_at(bytes, t, i as u64);
    let mut i = 0usize;
    for prefix in prefixes {
        let k = prefix.len().min(t.key);
        if t.key == 0 {
            return;
        }
        i = gallop(i, n, |j| at(j).is_some_and(|r| r[..k] < prefix[..k]));
        while i < n {
            let Some(rec) = at(i) else { return };
            if rec[..k] != prefix[..k] {
                break;
            }
            each(prefix, &rec);
            i += 1;
        }
    }
}

/// Every record of a table whose key starts with `prefix`, in key order.
pub fn find_prefix<'b>(
    bytes: &'b Bytes,
    t: &TableDir,
    prefix: &[u8],
) -> Option<Vec<Cow<'b, [u8]>>> {
    let (lo, hi) = prefix_range(bytes, t, prefix)?;
    (lo..hi).map(|i| record_at(bytes, t, i)).collect()
}

/// The rows `[lo, hi)` of a table whose key starts with `prefix`: two
/// binary searches, nothing read in between.
pub fn prefix_range(bytes: &Bytes, t: &TableDir, prefix: &[u8]) -> Option<(u64, u64)> {
    if t.key == 0 {
        return None;
    }
    let n = prefix.len().min(t.key);
    let bound = |after: bool| -> Option<u64> {
        let (mut lo, mut hi) = (0u64, t.count);
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            let rec = bytes.read(t.offset + mid * t.width as u64, t.width)?;
            let before = if after {
                rec[..n] <= prefix[..n]
            } else {
                rec[..n] < prefix[..n]
            };
            if before {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        Some(lo)
    };
    Some((bound(false)?, bound(true)?))
}

/// Record `row` of a table (in key order); `None` past its end.
pub fn record_at<'b>(bytes: &'b Bytes, t: &TableDir, row: u64) -> Option<Cow<'b, [u8]>> {
    if row >= t.count {
        return None;
    }
    bytes.read(t.offset + row * t.width as u64, t.width)
}

/// `len` bytes at `offset` of a heap table; `None` outside it.
pub fn heap_slice<'b>(
    bytes: &'b Bytes,
    t: &TableDir,
    offset: u64,
    len: usize,
) -> Option<Cow<'b, [u8]>> {
    if offset.checked_add(len as u64)? > t.count {
        return None;
    }
    bytes.read(t.offset + offset, len)
}

/// A whole table's records, for a full scan; `None` if they cannot be read.
pub fn all<'b>(bytes: &'b Bytes, t: &TableDir) -> Option<Cow<'b, [u8]>> {
    bytes.read(t.offset, usize::try_from(t.count * t.width as u64).ok()?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gallop_finds_what_a_partition_point_does_from_anywhere() {
        let v: Vec<u32> = (0..300).map(|i| i * 3 / 2).collect();
        for from in [0, 1, 7, 150, 299, 300] {
            for x in [0, 1, 2, 100, 101, 448, 449, 1000] {
                let want = from + v[from..].partition_point(|&y| y < x);
                assert_eq!(gallop(from, v.len(), |j| v[j] < x), want, "{x} from {from}");
            }
        }
    }

    fn oid(b: u8) -> ObjectId {
        ObjectId::from_bytes_or_panic(&[b; 20])
    }

    fn sample_chain() -> Chain {
        Chain {
            refs: vec![
                RefState {
                    name: "refs/heads/ledger".into(),
                    tip: oid(1),
                    verified: Some(oid(2)),
                },
                RefState {
                    name: "refs/heads/pool/org".into(),
                    tip: oid(3),
                    verified: None,
                },
            ],
            layers: vec![
                LayerRef {
                    name: "layer-a1B2c3.tab".into(),
                    size: 4096,
                },
                LayerRef {
                    name: "layer-zz.tab".into(),
                    size: 52,
                },
            ],
        }
    }

    fn sample() -> Vec<u8> {
        let mut numbers = Vec::new();
        for k in [9u8, 3, 7, 1] {
            numbers.extend_from_slice(&[k, k, 100 + k]);
        }
        encode_layer(vec![
            TableData {
                tag: *b"NUMS",
                width: 3,
                key: 2,
                records: numbers,
            },
            TableData {
                tag: *b"NONE",
                width: 5,
                key: 1,
                records: Vec::new(),
            },
        ])
    }

    #[test]
    fn a_chain_round_trips() {
        let chain = sample_chain();
        let bytes = encode_chain(&chain);
        assert_eq!(read_chain(&bytes).unwrap(), chain);
        assert_eq!(
            read_chain(&encode_chain(&Chain::default())).unwrap(),
            Chain::default()
        );
    }

    #[test]
    fn a_truncated_or_lengthened_chain_is_refused_at_every_length() {
        let whole = encode_chain(&sample_chain());
        for n in 0..whole.len() {
            assert!(
                read_chain(&whole[..n]).is_err(),
                "accepted a chain cut at {n} of {}",
                whole.len()
            );
        }
        let mut longer = whole.clone();
        longer.push(0);
        assert!(read_chain(&longer).is_err());
    }

    #[test]
    fn a_corrupted_chain_is_refused() {
        let whole = encode_chain(&sample_chain());
        for i in 0..whole.len() {
            let mut bad = whole.clone();
            bad[i] ^= 0x20;
            assert!(read_chain(&bad).is_err(), "accepted a flipped byte at {i}");
        }
        let mut old = whole.clone();
        old[7] = 2;
        assert!(matches!(read_chain(&old), Err(FormatError::Version)));
        // The whole-file index of version 2 is not a chain.
        assert!(matches!(
            read_chain(b"LOREIDX\x02\0\0\0\0\0\0\0\0"),
            Err(FormatError::Version)
        ));
    }

    #[test]
    fn a_layer_name_is_a_plain_file_name() {
        for good in ["layer-AbC123.tab", "x", "a_b.c-d"] {
            assert!(is_layer_name(good), "{good}");
        }
        for bad in ["", ".", "..", ".tmpX", "a/b", "../index", "a\nb", "é"] {
            assert!(!is_layer_name(bad), "{bad:?}");
        }
        let chain = Chain {
            refs: vec![],
            layers: vec![LayerRef {
                name: "../../config".into(),
                size: 1,
            }],
        };
        assert!(matches!(
            read_chain(&encode_chain(&chain)),
            Err(FormatError::Inconsistent(_))
        ));
    }

    #[test]
    fn a_layer_round_trips_and_is_searched_in_place() {
        let bytes = Bytes::Memory(sample());
        let tables = read_layer(&bytes).unwrap();
        let nums = tables.iter().find(|t| &t.tag == b"NUMS").unwrap();
        assert_eq!(nums.count, 4);
        assert_eq!(
            find(&bytes, nums, &[7, 7]).as_deref(),
            Some(&[7, 7, 107][..])
        );
        assert_eq!(find(&bytes, nums, &[8, 8]), None);
        // The first and the last are found; keys before the first, past
        // the last and in every gap are not.
        for (key, rec) in [([1, 1], [1, 1, 101]), ([9, 9], [9, 9, 109])] {
            assert_eq!(find(&bytes, nums, &key).as_deref(), Some(&rec[..]));
        }
        for key in [[0, 0], [1, 0], [1, 2], [3, 4], [9, 8], [9, 10], [255, 0]] {
            assert_eq!(find(&bytes, nums, &key), None, "{key:?}");
        }
        assert_eq!(
            all(&bytes, nums).unwrap(),
            vec![1, 1, 101, 3, 3, 103, 7, 7, 107, 9, 9, 109]
        );
        assert_eq!(
            find_prefix(&bytes, nums, &[3]).unwrap(),
            vec![vec![3, 3, 103]]
        );
        // The same answers from a file.
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("layer");
        std::fs::write(&path, sample()).unwrap();
        // Read with positioned reads, and mapped.
        for file in [
            Bytes::File(std::fs::File::open(&path).unwrap()),
            Bytes::of_file(std::fs::File::open(&path).unwrap()),
        ] {
            let tables = read_layer(&file).unwrap();
            let nums = tables.iter().find(|t| &t.tag == b"NUMS").unwrap();
            assert_eq!(
                find(&file, nums, &[9, 9]).as_deref(),
                Some(&[9, 9, 109][..])
            );
            assert_eq!(find(&file, nums, &[9, 8]), None);
            // Its pages let go of, it answers the same.
            file.release();
            assert_eq!(
                find(&file, nums, &[9, 9]).as_deref(),
                Some(&[9, 9, 109][..])
            );
            assert_eq!(file.read(0, 4).as_deref(), Some(&sample()[..4]));
        }
        assert!(matches!(
            Bytes::of_file(std::fs::File::open(&path).unwrap()),
            Bytes::Map(..)
        ));
    }

    #[test]
    fn a_heap_keeps_its_order_and_is_read_by_offset() {
        let file = encode_layer(vec![TableData {
            tag: *b"HEAP",
            width: 1,
            key: 0,
            records: b"zyx-abc".to_vec(),
        }]);
        let bytes = Bytes::Memory(file);
        let tables = read_layer(&bytes).unwrap();
        let heap = &tables[0];
        assert_eq!(&*heap_slice(&bytes, heap, 4, 3).unwrap(), b"abc");
        assert_eq!(heap_slice(&bytes, heap, 5, 3), None, "past its end");
        assert_eq!(find(&bytes, heap, b"z"), None, "a heap is not searched");
    }

    /// The tables of [`sample`] and a heap, as `encode_layer` takes them.
    fn sample_tables() -> Vec<TableData> {
        let mut numbers = Vec::new();
        for k in 0..40u8 {
            let k = k.wrapping_mul(37);
            numbers.extend_from_slice(&[k, k / 3, 100u8.wrapping_add(k)]);
        }
        vec![
            TableData {
                tag: *b"NUMS",
                width: 3,
                key: 2,
                records: numbers,
            },
            TableData {
                tag: *b"NONE",
                width: 5,
                key: 1,
                records: Vec::new(),
            },
            TableData {
                tag: *b"HEAP",
                width: 1,
                key: 0,
                records: b"zyx-abc-0123456789".to_vec(),
            },
        ]
    }

    #[test]
    fn a_layer_written_table_by_table_is_the_layer_encoded_whole() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("layer");
        let mut out = LayerWriter::new(fs::File::create(&path).unwrap(), 3).unwrap();
        for t in sample_tables() {
            out.table(t.tag, t.width, t.key).unwrap();
            let mut recs: Vec<&[u8]> = t.records.chunks_exact(t.width).collect();
            if t.key > 0 {
                recs.sort_by(|a, b| a[..t.key].cmp(&b[..t.key]));
                for r in recs {
                    out.push(r).unwrap();
                }
            } else {
                // A heap takes bytes in runs of any length.
                for run in t.records.chunks(7) {
                    out.push(run).unwrap();
                }
            }
        }
        let (_, dirs, size) = out.finish().unwrap();
        let want = encode_layer(sample_tables());
        assert_eq!(fs::read(&path).unwrap(), want);
        assert_eq!(size, want.len() as u64);
        assert_eq!(dirs, read_layer(&Bytes::Memory(want)).unwrap());
    }

    #[test]
    fn a_layer_written_from_its_tables_is_the_layer_encoded_whole() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("layer");
        let mut tables = sample_tables();
        // One table that comes sorted, one that does not (NUMS).
        tables.push(TableData {
            tag: *b"SORT",
            width: 2,
            key: 1,
            records: vec![1, 9, 2, 8, 3, 7, 5, 0],
        });
        let want = encode_layer(
            tables
                .iter()
                .map(|t| TableData {
                    records: t.records.clone(),
                    ..*t
                })
                .collect(),
        );
        assert_eq!(layer_len(&tables), want.len() as u64);
        let (_, dirs, size) = write_layer(tables, fs::File::create(&path).unwrap()).unwrap();
        assert_eq!(fs::read(&path).unwrap(), want);
        assert_eq!(size, want.len() as u64);
        assert_eq!(dirs, read_layer(&Bytes::Memory(want)).unwrap());
    }

    #[test]
    fn a_layer_writer_refuses_what_encode_layer_would_not_write() {
        let dir = tempfile::tempdir().unwrap();
        let file = || fs::File::create(dir.path().join("layer")).unwrap();
        // Out of key order (ties are fine), or of another width.
        let mut out = LayerWriter::new(file(), 1).unwrap();
        out.table(*b"NUMS", 3, 2).unwrap();
        out.push(&[1, 1, 9]).unwrap();
        out.push(&[1, 1, 8]).unwrap();
        let e = out.push(&[1, 0, 9]).unwrap_err();
        assert!(e.to_string().contains("out of key order"), "{e}");
        assert!(out.push(&[2, 2]).is_err());
        // Before any table, a table too many, or one too few.
        let mut out = LayerWriter::new(file(), 1).unwrap();
        assert!(out.push(&[1]).is_err());
        out.table(*b"HEAP", 1, 0).unwrap();
        assert!(out.table(*b"MORE", 1, 0).is_err());
        let out = LayerWriter::new(file(), 2).unwrap();
        let e = out.finish().unwrap_err();
        assert!(e.to_string().contains("of 0 tables, not 2"), "{e}");
    }

    #[test]
    fn scans_and_windows_read_a_table_in_chunks_from_memory_a_file_or_a_map() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("layer");
        let whole = encode_layer(sample_tables());
        fs::write(&path, &whole).unwrap();
        let open = || fs::File::open(&path).unwrap();
        for bytes in [
            Bytes::Memory(whole.clone()),
            Bytes::File(open()),
            Bytes::of_file(open()),
        ] {
            let tables = read_layer(&bytes).unwrap();
            let [nums, none, heap] = [0, 1, 2].map(|i| tables[i]);
            for chunk in [1, 3, 7, 64, 1 << 20] {
                let mut scan = Scan::with_chunk(&bytes, &nums, chunk).unwrap();
                let mut got = Vec::new();
                while let Some(rec) = scan.current() {
                    assert_eq!(record_at(&bytes, &nums, scan.row()).unwrap(), rec);
                    got.extend_from_slice(rec);
                    scan.advance().unwrap();
                }
                assert_eq!(got, all(&bytes, &nums).unwrap().into_owned(), "{chunk}");
                let scan = Scan::with_chunk(&bytes, &none, chunk).unwrap();
                assert_eq!(scan.current(), None);
            }
            let mut w = Window::new(&bytes, &heap);
            for (off, len) in [(4, 3), (0, 18), (15, 3), (2, 0), (0, 1)] {
                assert_eq!(
                    w.slice(off, len).unwrap(),
                    &heap_slice(&bytes, &heap, off, len).unwrap()[..]
                );
            }
            assert_eq!(w.slice(16, 3), None, "past its end");
        }
        // A file cut short after it was opened: the scan says so.
        let short = Bytes::File(open());
        let tables = read_layer(&short).unwrap();
        fs::write(&path, &whole[..whole.len() - 20]).unwrap();
        let mut scan = Scan::with_chunk(&short, &tables[0], 30).unwrap();
        let mut read = 0;
        while scan.current().is_some() {
            read += 1;
            if scan.advance().is_none() {
                break;
            }
        }
        assert!(read < tables[0].count, "{read} records");
    }

    #[test]
    fn a_truncated_layer_is_refused_at_every_length() {
        let whole = sample();
        for n in 0..whole.len() {
            let r = read_layer(&Bytes::Memory(whole[..n].to_vec()));
            assert!(r.is_err(), "accepted a layer cut at {n} of {}", whole.len());
        }
        let mut longer = whole.clone();
        longer.push(0);
        assert!(read_layer(&Bytes::Memory(longer)).is_err());
    }

    #[test]
    fn a_corrupted_layer_header_is_refused() {
        let whole = sample();
        let header_len = whole.len() - 12; // the NUMS table's 12 data bytes
        for i in 8..header_len {
            let mut bad = whole.clone();
            bad[i] ^= 0x20;
            assert!(
                read_layer(&Bytes::Memory(bad)).is_err(),
                "accepted a flipped byte at {i}"
            );
        }
        let mut old = whole.clone();
        old[7] = 2;
        assert!(matches!(
            read_layer(&Bytes::Memory(old)),
            Err(FormatError::Version)
        ));
        // A chain is not a layer.
        assert!(matches!(
            read_layer(&Bytes::Memory(encode_chain(&sample_chain()))),
            Err(FormatError::Version)
        ));
    }
}
