//! Making a transaction's objects durable: one pack with its index, or loose
//! objects when there are only a few.
//!
//! A transaction writes its blobs, trees and signed commits into memory
//! (gix's object memory, so the transaction reads back what it wrote) and
//! hands them here at the end of the attempt, before the compare-and-swap.
//! Above [`LOOSE_MAX`] objects they become one pack (format version 2,
//! every object stored whole, no deltas) and its version-2 index, written
//! beside the object store: the pack first, then the index, each to a
//! temporary file that is synced and renamed into place. git and gix only
//! look at packs through their `.idx`, so a pack is invisible until its
//! index is whole, and a crash at any instant leaves at worst an unindexed
//! temporary file that `git gc` removes; the ref has not moved yet.
//!
//! This module writes objects and nothing else: it moves no ref and decides
//! nothing about when objects are reachable.

use std::fs;
use std::io::Write;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use gix::objs::Kind;
use gix::ObjectId;

use super::{io_ctx, GixContext, StoreError};

/// Up to this many objects are written loose; more become one pack.
///
/// One record (a blob, the four trees on its fan-out path, a commit: six
/// objects) or a handful stay loose: a pack per one-record command would
/// leave a pack per command, and every pack is one more index each reader
/// opens until the background repack merges them, while a few loose files
/// cost about what the pack's two files and two renames do. Above it, one
/// pack replaces six files per commit (see docs/decisions.md for the
/// figures).
pub const LOOSE_MAX: usize = 64;

/// Writes `objects` durably into `repo`'s object store: loose when there
/// are at most [`LOOSE_MAX`], else as one pack. Returns how they were
/// written.
pub fn persist(
    repo: &gix::Repository,
    objects: &gix::odb::memory::Storage,
) -> Result<Written, StoreError> {
    if objects.is_empty() {
        return Ok(Written::Nothing);
    }
    if objects.len() <= LOOSE_MAX {
        // Straight to the repository's own store, not through any memory.
        let store = repo.objects.clone().into_inner();
        for (id, (kind, data)) in objects.iter() {
            let written = gix::objs::Write::write_buf(&store, *kind, data)
                .ctx(|| format!("writing object {id}"))?;
            debug_assert_eq!(written, *id);
        }
        return Ok(Written::Loose(objects.len()));
    }
    let dir = repo.objects.store_ref().path().join("pack");
    let name = write_pack(&dir, repo.object_hash(), objects)?;
    Ok(Written::Pack(name))
}

/// How [`persist`] wrote a transaction's objects.
#[derive(Debug, PartialEq, Eq)]
pub enum Written {
    Nothing,
    /// This many loose objects.
    Loose(usize),
    /// One pack, named by its checksum.
    Pack(ObjectId),
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

/// The pack entry header: type and inflated size, little-endian base-128.
fn entry_header(kind: Kind, size: usize, out: &mut Vec<u8>) {
    let mut size = size as u64;
    let mut byte = (type_number(kind) << 4) | (size & 0x0f) as u8;
    size >>= 4;
    while size != 0 {
        out.push(byte | 0x80);
        byte = (size & 0x7f) as u8;
        size >>= 7;
    }
    out.push(byte);
}

/// A hashing writer: what the pack's trailer checksum covers.
struct Hashing<W> {
    inner: W,
    hasher: gix::hash::Hasher,
}

impl<W: Write> Write for Hashing<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.hasher.update(&buf[..n]);
        Ok(n)
    }
    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

/// Writes `objects` as `pack-<checksum>.pack` and `.idx` in `dir` and
/// returns the checksum. The index appears last.
pub(crate) fn write_pack(
    dir: &Path,
    hash: gix::hash::Kind,
    objects: &gix::odb::memory::Storage,
) -> Result<ObjectId, StoreError> {
    io_ctx(fs::create_dir_all(dir), || {
        format!("creating {}", dir.display())
    })?;
    // Commits, then trees, then blobs, as git orders them; by id within.
    let mut order: Vec<(&ObjectId, &(Kind, Vec<u8>))> = objects.iter().collect();
    order.sort_by_key(|(id, (kind, _))| (type_number(*kind), **id));

    let tmp = io_ctx(
        tempfile::Builder::new()
            .prefix("tmp_pack_")
            .permissions(fs::Permissions::from_mode(0o444))
            .tempfile_in(dir),
        || format!("creating a pack in {}", dir.display()),
    )?;
    let ctx = || format!("writing a pack in {}", dir.display());
    let (checksum, mut entries) = io_ctx(pack_bytes(tmp.as_file(), hash, order), ctx)?;
    let base = dir.join(format!("pack-{checksum}"));
    io_ctx(
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
            .tempfile_in(dir),
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
    io_ctx(fs::File::open(dir).and_then(|d| d.sync_all()), ctx)?;
    Ok(checksum)
}

/// Writes the pack of `order` to `file` and syncs it. Returns its checksum
/// and, per object, its id, the CRC-32 of its entry and its offset.
fn pack_bytes(
    file: &fs::File,
    hash: gix::hash::Kind,
    order: Vec<(&ObjectId, &(Kind, Vec<u8>))>,
) -> std::io::Result<(ObjectId, Vec<(ObjectId, u32, u64)>)> {
    let mut out = Hashing {
        inner: std::io::BufWriter::with_capacity(1 << 16, file),
        hasher: gix::hash::hasher(hash),
    };
    let mut header = Vec::with_capacity(12);
    header.extend_from_slice(b"PACK");
    header.extend_from_slice(&2u32.to_be_bytes());
    header.extend_from_slice(&(order.len() as u32).to_be_bytes());
    out.write_all(&header)?;
    let mut entries: Vec<(ObjectId, u32, u64)> = Vec::with_capacity(order.len());
    let mut offset = header.len() as u64;
    let mut entry = Vec::with_capacity(4096);
    for (id, (kind, data)) in order {
        entry.clear();
        entry_header(*kind, data.len(), &mut entry);
        let mut z =
            gix::zlib::stream::deflate::Write::new(&mut entry, gix::zlib::Compression::BEST_SPEED);
        z.write_all(data)?;
        z.flush()?;
        drop(z);
        out.write_all(&entry)?;
        entries.push((*id, crc32fast::hash(&entry), offset));
        offset += entry.len() as u64;
    }
    let Hashing { inner, hasher } = out;
    let checksum = hasher.try_finalize().map_err(std::io::Error::other)?;
    let mut file = inner.into_inner().map_err(|e| e.into_error())?;
    file.write_all(checksum.as_slice())?;
    file.sync_all()?;
    Ok((checksum, entries))
}

/// A version-2 pack index over `entries` (sorted by id).
fn index_bytes(
    hash: gix::hash::Kind,
    entries: &[(ObjectId, u32, u64)],
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
mod tests {
    use super::*;

    #[test]
    fn entry_headers_encode_type_and_size_as_git_does() {
        let mut out = Vec::new();
        entry_header(Kind::Blob, 10, &mut out);
        assert_eq!(out, [0x3a]);
        out.clear();
        entry_header(Kind::Commit, 100, &mut out);
        // 100 = 0b110_0100: low four bits 0100, then 110.
        assert_eq!(out, [0x80 | 0x10 | 0x04, 0x06]);
        out.clear();
        entry_header(Kind::Tree, 1 << 20, &mut out);
        assert_eq!(out, [0xa0, 0x80, 0x80, 0x04]);
    }
}
