//! Where an object is in the packs a multi-pack index covers, found with
//! positioned reads of `objects/pack/multi-pack-index` rather than through
//! a mapping of it.
//!
//! A batch onto a ledger that is already large reads thousands of trees
//! this process did not write. Through gix each look-up binary-searches the
//! mapped multi-pack index, and the kernel maps 64 KB around every page
//! read: 50,000 artifacts onto a million lessons held all 201 MB of the
//! index and 163 MB of pack pages resident (docs/PERFORMANCE.md, "Issue 24,
//! eighth round"). Read with `pread`, a look-up costs a few dozen small
//! reads of pages the page cache keeps, and leaves nothing mapped.
//!
//! The format is git's (`gitformat-pack`, "multi-pack-index"): a header, a
//! table of chunks, the packs' names (`PNAM`), a fan-out (`OIDF`), the
//! sorted ids (`OIDL`), each object's pack and offset (`OOFF`, with `LOFF`
//! for offsets past 2 GB). Anything that does not read as that, or an id
//! it does not hold, is `None`: the caller then asks gix, which stays the
//! authority. This module reads; it writes nothing.

use std::fs;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use gix::ObjectId;

/// The chunks of a multi-pack index this reader needs, by where they are
/// in the file.
#[derive(Debug)]
pub(crate) struct Midx {
    file: fs::File,
    dir: PathBuf,
    hash_len: u64,
    fan: Vec<u32>,
    oidl: u64,
    ooff: u64,
    /// Where `LOFF` starts, and how many offsets it holds.
    loff: Option<(u64, u64)>,
    /// Each pack's index file name (`pack-….idx`), by pack number.
    names: Vec<String>,
    /// Each pack, opened at its first look-up (`None`: it could not be).
    packs: Vec<std::cell::OnceCell<Option<Arc<fs::File>>>>,
}

/// At most this many packs, and this many bytes of their names: a real
/// index names a few dozen.
const MAX_PACKS: u32 = 1 << 16;
const MAX_NAMES: u64 = 16 << 20;

fn read_exact(file: &fs::File, len: usize, at: u64) -> Option<Vec<u8>> {
    let mut buf = vec![0u8; len];
    file.read_exact_at(&mut buf, at).ok()?;
    Some(buf)
}

fn be32(b: &[u8]) -> u32 {
    u32::from_be_bytes(b[..4].try_into().expect("4 bytes"))
}

fn be64(b: &[u8]) -> u64 {
    u64::from_be_bytes(b[..8].try_into().expect("8 bytes"))
}

impl Midx {
    /// The multi-pack index of the pack directory `dir`, if it has one that
    /// reads as one for ids of `hash_len` bytes.
    pub(crate) fn open(dir: &Path, hash_len: usize) -> Option<Midx> {
        let file = fs::File::open(dir.join("multi-pack-index")).ok()?;
        let len = file.metadata().ok()?.len();
        let head = read_exact(&file, 12, 0)?;
        let hash_version = match hash_len {
            20 => 1,
            32 => 2,
            _ => return None,
        };
        if &head[..4] != b"MIDX" || head[4] != 1 || head[5] != hash_version || head[7] != 0 {
            return None;
        }
        let chunks = u64::from(head[6]);
        let npacks = be32(&head[8..]);
        if npacks > MAX_PACKS {
            return None;
        }
        let table = read_exact(&file, (12 * (chunks + 1)) as usize, 12)?;
        // Each chunk runs from its offset to the next one's.
        let mut found = std::collections::HashMap::new();
        for i in 0..chunks as usize {
            let id: [u8; 4] = table[12 * i..12 * i + 4].try_into().ok()?;
            let start = be64(&table[12 * i + 4..]);
            let end = be64(&table[12 * (i + 1) + 4..]);
            if start > end || end > len {
                return None;
            }
            found.insert(id, (start, end - start));
        }
        let chunk = |id: &[u8; 4]| found.get(id).copied();
        let (fan_at, fan_len) = chunk(b"OIDF")?;
        if fan_len != 256 * 4 {
            return None;
        }
        let fan_bytes = read_exact(&file, 1024, fan_at)?;
        let fan: Vec<u32> = fan_bytes.chunks(4).map(be32).collect();
        if fan.windows(2).any(|w| w[0] > w[1]) {
            return None;
        }
        let n = u64::from(fan[255]);
        let hash_len = hash_len as u64;
        let (oidl, oidl_len) = chunk(b"OIDL")?;
        let (ooff, ooff_len) = chunk(b"OOFF")?;
        if oidl_len != n * hash_len || ooff_len != n * 8 {
            return None;
        }
        let loff = match chunk(b"LOFF") {
            Some((at, size)) if size % 8 == 0 => Some((at, size / 8)),
            Some(_) => return None,
            None => None,
        };
        let (pnam, pnam_len) = chunk(b"PNAM")?;
        if pnam_len > MAX_NAMES {
            return None;
        }
        let names_bytes = read_exact(&file, pnam_len as usize, pnam)?;
        let names: Vec<String> = names_bytes
            .split(|b| *b == 0)
            .filter(|n| !n.is_empty())
            .map(|n| String::from_utf8(n.to_vec()).ok())
            .collect::<Option<_>>()?;
        // Only a pack's own name: nothing that could lead out of `dir`.
        let plain = |n: &String| {
            n.starts_with("pack-")
                && n.ends_with(".idx")
                && n.bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'.')
        };
        if names.len() != npacks as usize || !names.iter().all(plain) {
            return None;
        }
        let packs = names.iter().map(|_| std::cell::OnceCell::new()).collect();
        Some(Midx {
            file,
            dir: dir.to_owned(),
            hash_len,
            fan,
            oidl,
            ooff,
            loff,
            names,
            packs,
        })
    }

    /// The pack (open) and offset of the object `id`, if this index holds
    /// it and its pack can be opened.
    pub(crate) fn locate(&self, id: &ObjectId) -> Option<(Arc<fs::File>, u64)> {
        let want = id.as_bytes();
        if want.len() as u64 != self.hash_len {
            return None;
        }
        let first = usize::from(want[0]);
        let mut lo = if first == 0 { 0 } else { self.fan[first - 1] };
        let mut hi = self.fan[first];
        let mut oid = vec![0u8; self.hash_len as usize];
        let row = loop {
            if lo >= hi {
                return None;
            }
            let mid = lo + (hi - lo) / 2;
            self.file
                .read_exact_at(&mut oid, self.oidl + u64::from(mid) * self.hash_len)
                .ok()?;
            match oid.as_slice().cmp(want) {
                std::cmp::Ordering::Equal => break mid,
                std::cmp::Ordering::Less => lo = mid + 1,
                std::cmp::Ordering::Greater => hi = mid,
            }
        };
        let entry = read_exact(&self.file, 8, self.ooff + u64::from(row) * 8)?;
        let (pack, raw) = (be32(&entry) as usize, be32(&entry[4..]));
        let offset = if raw & 0x8000_0000 == 0 {
            u64::from(raw)
        } else {
            let (at, count) = self.loff?;
            let i = u64::from(raw & 0x7fff_ffff);
            if i >= count {
                return None;
            }
            be64(&read_exact(&self.file, 8, at + 8 * i)?)
        };
        Some((self.pack(pack)?, offset))
    }

    /// Pack number `i`, opened once.
    fn pack(&self, i: usize) -> Option<Arc<fs::File>> {
        self.packs
            .get(i)?
            .get_or_init(|| {
                let name = self.names[i].strip_suffix(".idx")?;
                fs::File::open(self.dir.join(format!("{name}.pack")))
                    .ok()
                    .map(Arc::new)
            })
            .clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::tx::tests::{git, host};

    /// Every object of a repository repacked into several packs under a
    /// multi-pack index is found where git says, and each tree reads back
    /// as git has it, deltas resolved; an id it does not hold, and an
    /// index that is not one, give nothing.
    #[test]
    fn every_object_is_found_and_every_tree_reads_back_as_git_has_it() {
        let dir = tempfile::tempdir().unwrap();
        let repo = dir.path().join("r.git");
        let env = host().git_env;
        gix::init_bare(&repo).unwrap();
        // Two packs of many versions of a few directories, so that the
        // repack makes trees into deltas of each other.
        let mut stream = String::new();
        for c in 1..=400u32 {
            let parent = if c > 1 {
                format!("from :{}\n", c - 1)
            } else {
                String::new()
            };
            let body = format!("record {c}\n");
            stream.push_str(&format!(
                "commit refs/heads/main\nmark :{c}\ncommitter t <t@example.com> {c} +0000\ndata 2\nc\n{parent}M 100644 inline d/{}/{}/f{c}\ndata {}\n{body}\n",
                c % 3,
                c % 11,
                body.len()
            ));
            if c == 200 {
                stream.push_str("checkpoint\n");
            }
        }
        git(&repo, &env, &["fast-import", "--quiet"], stream.as_bytes());
        git(&repo, &env, &["repack", "-d", "-q"], b"");
        git(&repo, &env, &["multi-pack-index", "write"], b"");
        let pack_dir = repo.join("objects/pack");
        let midx = Midx::open(&pack_dir, 20).expect("the index reads");
        let all = git(
            &repo,
            &env,
            &[
                "cat-file",
                "--batch-all-objects",
                "--batch-check=%(objectname) %(objecttype) %(deltabase)",
            ],
            b"",
        );
        let mut trees = 0;
        let mut deltas = 0;
        for line in all.lines() {
            let mut f = line.split(' ');
            let (id, kind, base) = (f.next().unwrap(), f.next().unwrap(), f.next().unwrap());
            let oid = ObjectId::from_hex(id.as_bytes()).unwrap();
            let (pack, offset) = midx
                .locate(&oid)
                .unwrap_or_else(|| panic!("{id} not found"));
            if kind == "tree" {
                trees += 1;
                deltas += usize::from(base.bytes().any(|b| b != b'0'));
                let read = super::super::pack::read_tree(&pack, offset, &oid)
                    .unwrap_or_else(|| panic!("tree {id} not read"));
                let raw = std::process::Command::new("git")
                    .args(["--git-dir", repo.to_str().unwrap(), "cat-file", "tree", id])
                    .env_clear()
                    .envs(env.iter().map(|(k, v)| (k, v)))
                    .output()
                    .unwrap()
                    .stdout;
                assert_eq!(read, raw, "tree {id}");
            }
        }
        assert!(
            trees > 1000 && deltas > 500,
            "{deltas} of {trees} trees are deltas"
        );
        assert!(midx
            .locate(&ObjectId::from_bytes_or_panic(&[0xab; 20]))
            .is_none());
        assert!(midx
            .locate(&ObjectId::from_bytes_or_panic(&[0; 20]))
            .is_none());
        // Damaged: truncated, or another file in its place.
        let real = std::fs::read(pack_dir.join("multi-pack-index")).unwrap();
        for bad in [&real[..real.len() / 2], &real[..40], b"MIDX" as &[u8]] {
            std::fs::write(pack_dir.join("multi-pack-index"), bad).unwrap();
            assert!(Midx::open(&pack_dir, 20).is_none(), "{} bytes", bad.len());
        }
        assert!(Midx::open(dir.path(), 20).is_none(), "no index at all");
    }
}
