//! Key filters: a small table beside a keyed table saying which keys it
//! cannot hold, so that a look-up of a key a layer does not have reads one
//! block of the filter instead of a binary search's scattered pages.
//!
//! Most look-ups during a batch miss: a new lesson's id is checked free in
//! every layer, an artifact's id is looked up as a lesson and as an
//! artifact, and a new layer's search totals look every one of its
//! documents up in every layer. Over a million lessons each miss read
//! about a dozen pages per layer, and between two releases of the pages
//! they held about 30 MB (docs/PERFORMANCE.md, "Issue 24, seventh round").
//!
//! The filter is a blocked Bloom filter: 64-byte blocks, [`BITS_PER_KEY`]
//! bits a key rounded up to whole blocks, [`PROBES`] bits set per key in
//! the one block its hash picks. The hash ([`hash`]) is defined here
//! rather than taken from a library's hasher, because it is part of the
//! file format and must not change with a build. A filter table is a heap
//! (key width 0, record width 1) named by its table's tag ([`filter_tag`]);
//! it is optional: a layer without one (written before filters, or with a
//! filter of a length that is not whole blocks) is searched as before.
//!
//! This module only encodes and tests membership; when a table's filter
//! is written is `persist`'s and `search`'s.

use super::format::{Bytes, LayerWriter, TableData, TableDir, Tag};

/// Bytes in a block: a cache line, within one page.
pub const BLOCK: usize = 64;
/// Bits of filter a key: with [`PROBES`] probes in 512-bit blocks, about
/// one absent key in 200 reads its table anyway.
pub const BITS_PER_KEY: usize = 12;
/// Bits set (and tested) per key.
pub const PROBES: u32 = 7;
/// A table of fewer keys has no filter: it is a few dozen pages, which a
/// batch's look-ups read whole anyway, and a layer a one-record write adds
/// stays as small as it was.
pub const MIN_KEYS: u64 = 4096;

/// The filter table of the table `tag`, if it has one.
pub fn filter_tag(tag: Tag) -> Option<Tag> {
    match &tag {
        b"ARTS" => Some(*b"ARTF"),
        b"LESN" => Some(*b"LESF"),
        b"SRCD" => Some(*b"SRCF"),
        _ => None,
    }
}

/// The 64-bit hash of a key: its bytes, eight at a time (big-endian, the
/// last zero-padded), each folded in with splitmix64's finaliser.
pub fn hash(key: &[u8]) -> u64 {
    let mut h = mix(key.len() as u64 ^ 0x9e37_79b9_7f4a_7c15);
    for chunk in key.chunks(8) {
        let mut w = [0u8; 8];
        w[..chunk.len()].copy_from_slice(chunk);
        h = mix(h ^ u64::from_be_bytes(w));
    }
    h
}

fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// The block a key's hash picks among `blocks`, and the bits it sets in
/// it: the hash's high half picks the block, a second mix gives the
/// probes, nine bits each.
fn place(h: u64, blocks: usize) -> (usize, impl Iterator<Item = usize>) {
    let block = ((u128::from(h >> 32) * blocks as u128) >> 32) as usize;
    let bits = mix(h);
    (
        block,
        (0..PROBES).map(move |i| ((bits >> (9 * i)) & 511) as usize),
    )
}

/// A filter being built for `n` keys.
pub struct Filter {
    bytes: Vec<u8>,
}

impl Filter {
    /// An empty filter with room for `n` keys; none at all for fewer than
    /// [`MIN_KEYS`].
    pub fn new(n: u64) -> Filter {
        let bits = (n as usize).saturating_mul(BITS_PER_KEY);
        let blocks = if n < MIN_KEYS {
            0
        } else {
            bits.div_ceil(BLOCK * 8)
        };
        Filter {
            bytes: vec![0; blocks * BLOCK],
        }
    }

    /// Notes that the table holds `key`.
    pub fn add(&mut self, key: &[u8]) {
        if self.bytes.is_empty() {
            return;
        }
        let (block, bits) = place(hash(key), self.bytes.len() / BLOCK);
        let b = &mut self.bytes[block * BLOCK..][..BLOCK];
        for bit in bits {
            b[bit / 8] |= 1 << (bit % 8);
        }
    }

    /// The filter table's bytes.
    pub fn into_bytes(self) -> Vec<u8> {
        self.bytes
    }

    /// The filter table of the table `tag`, holding `keys` (every key the
    /// table holds, each once), to encode with the layer's other tables.
    pub fn table<K: AsRef<[u8]>>(tag: Tag, keys: impl ExactSizeIterator<Item = K>) -> TableData {
        let mut f = Filter::new(keys.len() as u64);
        for k in keys {
            f.add(k.as_ref());
        }
        TableData {
            tag: filter_tag(tag).expect("a table with a filter"),
            width: 1,
            key: 0,
            records: f.into_bytes(),
        }
    }

    /// Writes this filter as the filter table of `tag`, the table `out`
    /// has just written.
    pub fn write(self, tag: Tag, out: &mut LayerWriter) -> std::io::Result<()> {
        out.table(filter_tag(tag).expect("a table with a filter"), 1, 0)?;
        out.push(&self.bytes)
    }
}

/// Whether the table `t` filters may hold `key`, as its filter (the heap
/// `f`) says: `false` only when it certainly does not. A filter that is
/// not whole blocks, or cannot be read, says `true`.
pub fn may_hold(bytes: &Bytes, f: &TableDir, key: &[u8]) -> bool {
    let blocks = f.count as usize / BLOCK;
    if f.key != 0 || blocks == 0 || !(f.count as usize).is_multiple_of(BLOCK) {
        return true;
    }
    let (block, bits) = place(hash(key), blocks);
    let Some(b) = bytes.read(f.offset + (block * BLOCK) as u64, BLOCK) else {
        return true;
    };
    bits.into_iter()
        .all(|bit| b[bit / 8] & (1 << (bit % 8)) != 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(bytes: &[u8]) -> TableDir {
        TableDir {
            tag: *b"LESF",
            width: 1,
            key: 0,
            offset: 0,
            count: bytes.len() as u64,
        }
    }

    #[test]
    fn a_filter_holds_every_key_added_and_few_others() {
        let keys: Vec<[u8; 16]> = (0u64..20_000)
            .map(|i| {
                let mut k = [0u8; 16];
                k[8..].copy_from_slice(&(i * 7919).to_be_bytes());
                k
            })
            .collect();
        let mut f = Filter::new(keys.len() as u64);
        for k in &keys {
            f.add(k);
        }
        let bytes = f.into_bytes();
        assert_eq!(
            bytes.len(),
            20_000 * BITS_PER_KEY / 8 / BLOCK * BLOCK + BLOCK
        );
        let t = table(&bytes);
        let bytes = Bytes::Memory(bytes);
        assert!(keys.iter().all(|k| may_hold(&bytes, &t, k)));
        // Keys of the same shape that were not added: a few pass.
        let passed = (0u64..20_000)
            .filter(|i| {
                let mut k = [0u8; 16];
                k[8..].copy_from_slice(&(i * 7919 + 1).to_be_bytes());
                may_hold(&bytes, &t, &k)
            })
            .count();
        assert!(passed < 200, "{passed} of 20,000 absent keys passed");
    }

    #[test]
    fn a_filter_it_cannot_read_lets_every_key_through() {
        let k = [7u8; 16];
        // A small table has no filter: it is searched.
        for n in [0, 1, MIN_KEYS - 1] {
            let mut f = Filter::new(n);
            f.add(&k);
            assert!(f.into_bytes().is_empty());
        }
        assert!(may_hold(&Bytes::Memory(Vec::new()), &table(&[]), &k));
        let mut f = Filter::new(MIN_KEYS);
        f.add(&[1u8; 16]);
        let one = f.into_bytes();
        assert_eq!(one.len(), MIN_KEYS as usize * BITS_PER_KEY / 8);
        let t = table(&one);
        assert!(!may_hold(&Bytes::Memory(one.clone()), &t, &k));
        // Not whole blocks, or not a heap: no word.
        let short = table(&one[..BLOCK - 1]);
        assert!(may_hold(&Bytes::Memory(one.clone()), &short, &k));
        let keyed = TableDir { key: 1, ..t };
        assert!(may_hold(&Bytes::Memory(one.clone()), &keyed, &k));
        // Past the end of the file: no word either.
        assert!(may_hold(&Bytes::Memory(Vec::new()), &t, &k));
    }

    #[test]
    fn the_hash_is_the_format_s() {
        // Part of the file format: a change here makes every filter
        // written before it wrong.
        assert_eq!(hash(b""), 0xe220_a839_7b1d_cdaf);
        assert_eq!(hash(b"01KBG3ZT0QHX2RN5"), 0x0394_3502_8fb5_35d2);
        assert_eq!(hash(&[0u8; 16]), hash(&[0u8; 16]));
        assert_ne!(hash(&[0u8; 16]), hash(&[0u8; 17]));
    }
}
