//! The index's search tables: an inverted index of every searched lesson
//! ([`crate::search::Doc`]: pool entries, and the ledger's queued
//! proposals), and which pool entries hold which artifacts.
//!
//! | tag | record | width |
//! |---|---|---|
//! | `SRCD` | a document: lesson id and kind (0 a proposal, 1 a pool entry), field lengths (4 × u16), place, status, offset (u64) and length (u32) of what it shows in `SRCH` (length `u32::MAX`: gone) | 39 |
//! | `SRCP` | a posting: 6 bytes of the term's sha256, the document's row in this layer's `SRCD` (u32), its term frequencies (4 bits each for claim, rationale, resolution; 3 for the stack) and whether the term names one of its packages exactly (1 bit) | 12 |
//! | `SRCH` | a heap: a queued proposal's claim and stack, as JSON | 1 |
//! | `SRCT` | one record: how many documents the chain holds up to this layer, and the sum of each field's length over them | 41 |
//! | `POOA` | a pool entry's artifact: artifact id, lesson id, pool | 33 |
//!
//! A document's postings and artifacts lie in the layer that has its
//! `SRCD` record; a newer layer's record replaces them all. `SRCT` is
//! cumulative: a layer's totals are those of the whole chain below and
//! including it, so a query reads the top layer's and adds what the
//! overlay changed ([`Index::search_totals`]); ranking then uses exact
//! statistics, the same whatever the layering. A pool entry is learned
//! with its summary (`Overlay::note_entry`), a proposal from its record
//! whenever a ledger commit touches it (`Overlay::note_proposal`).
//!
//! Answers: the documents that can match a query, newest word on each,
//! and each term's document frequency ([`Index::search`]), the totals, what a queued proposal shows
//! ([`Index::shown`]), the pool entries holding an artifact
//! ([`Index::pool_holders`]), and where each pool entry is and its status
//! ([`Index::pool_entry`], [`Index::pool_entry_list`]: what ids resolve
//! against, `list --all`, `status`).

use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap};

use super::filter::Filter;
use super::format::{self, LayerWriter, TableData, TableDir, Tag};
use super::persist::{Stop, Walk};
use super::{id_at, Index, Layer, Overlay};
use crate::model::{Id, Source};
use crate::search::rank::Totals;
use crate::search::{Doc, Place, Posting, Query, Shown, Status, FIELDS, MAX_TF};

pub(super) const SRCD: Tag = *b"SRCD";
pub(super) const SRCD_WIDTH: usize = 39;
pub(super) const SRCP: Tag = *b"SRCP";
pub(super) const SRCP_WIDTH: usize = 12;
pub(super) const SRCH: Tag = *b"SRCH";
pub(super) const SRCT: Tag = *b"SRCT";
pub(super) const SRCT_WIDTH: usize = 41;
pub(super) const POOA: Tag = *b"POOA";
pub(super) const POOA_WIDTH: usize = 33;
const DOC_KEY: usize = 17;
const GONE: u32 = u32::MAX;

/// A document's key: the lesson id, and whether it is the pool entry
/// (`1`) or the proposal (`0`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct DocKey(pub(super) [u8; DOC_KEY]);

impl DocKey {
    pub fn proposal(id: Id) -> DocKey {
        DocKey::of(id, 0)
    }

    pub fn entry(id: Id) -> DocKey {
        DocKey::of(id, 1)
    }

    fn of(id: Id, kind: u8) -> DocKey {
        let mut k = [0u8; DOC_KEY];
        k[..16].copy_from_slice(&id.to_bytes());
        k[16] = kind;
        DocKey(k)
    }

    pub fn id(&self) -> Id {
        id_at(&self.0, 0)
    }

    /// Whether it is a pool entry's.
    pub fn is_entry(&self) -> bool {
        self.0[16] == 1
    }
}

/// A document found by a term: where it is, its lengths, and its postings
/// of the terms looked up.
#[derive(Clone, Debug, PartialEq)]
pub struct Found {
    pub key: DocKey,
    pub place: Place,
    pub status: Status,
    pub lengths: [u16; FIELDS],
    /// (term key, term frequencies, exact package), for each term looked
    /// up that it has, by key.
    pub postings: Vec<(u64, [u8; FIELDS], bool)>,
}

impl Found {
    /// Its posting of a term key.
    pub fn find(&self, key: u64) -> Option<([u8; FIELDS], bool)> {
        self.postings
            .binary_search_by_key(&key, |p| p.0)
            .ok()
            .map(|i| (self.postings[i].1, self.postings[i].2))
    }
}

/// What [`Index::search`] found.
#[derive(Clone, Debug, PartialEq)]
pub struct Matches {
    /// The live documents that can match, in key order: each holds the
    /// whole term or the rarest part of the query's cheapest word (see
    /// [`cheapest`]); whether it matches every word is the ranking's to
    /// say.
    pub found: Vec<Found>,
    /// How many live documents hold each of the query's term keys.
    pub df: HashMap<u64, u64>,
}

/// The term keys whose documents every match is among: of the word
/// (group) with the fewest documents to look at, its whole term and its
/// rarest part (a document matching the word has the one or every part).
/// Ties go to the earlier word and part, so the choice is the same
/// whatever the layering.
fn cheapest(query: &Query, df: &dyn Fn(u64) -> u64) -> Vec<u64> {
    let mut best: Option<(u64, Vec<u64>)> = None;
    for g in &query.groups {
        let rarest = g.parts.iter().min_by_key(|p| df(p.key)).map(|p| p.key);
        let keys: Vec<u64> = g.whole.iter().map(|w| w.key).chain(rarest).collect();
        let cost = keys.iter().map(|k| df(*k)).sum();
        if best.as_ref().is_none_or(|(c, _)| cost < *c) {
            best = Some((cost, keys));
        }
    }
    best.map(|(_, keys)| keys).unwrap_or_default()
}

fn pack_tf(p: &Posting) -> [u8; 2] {
    let t = |f: usize| p.tf[f].min(MAX_TF[f]);
    [
        (t(0) << 4) | t(1),
        (t(2) << 4) | (t(3) << 1) | u8::from(p.exact),
    ]
}

fn unpack_tf(b: [u8; 2]) -> ([u8; FIELDS], bool) {
    (
        [b[0] >> 4, b[0] & 15, b[1] >> 4, (b[1] >> 1) & 7],
        b[1] & 1 == 1,
    )
}

/// The term key as the index stores it: its six bytes.
fn term_bytes(key: u64) -> [u8; 6] {
    key.to_be_bytes()[2..].try_into().expect("6 bytes")
}

/// A document record as it is read: `None` for a gone document.
struct Record {
    key: DocKey,
    lengths: [u16; FIELDS],
    place: Place,
    status: Status,
    /// Where what it shows lies in the heap; `None` when gone.
    slot: Option<(u64, usize)>,
}

fn decode(rec: &[u8]) -> Option<Record> {
    let key = DocKey(rec[..DOC_KEY].try_into().expect("a key"));
    let lengths = std::array::from_fn(|f| {
        u16::from_be_bytes([rec[DOC_KEY + 2 * f], rec[DOC_KEY + 2 * f + 1]])
    });
    let place = Place::from_code(rec[25])?;
    let status = Status::from_code(rec[26])?;
    let off = u64::from_be_bytes(rec[27..35].try_into().expect("8 bytes"));
    let len = u32::from_be_bytes(rec[35..39].try_into().expect("4 bytes"));
    Some(Record {
        key,
        lengths,
        place,
        status,
        slot: (len != GONE).then_some((off, len as usize)),
    })
}

fn encode(key: DocKey, doc: Option<(&Doc, u64, usize)>) -> [u8; SRCD_WIDTH] {
    let mut r = [0u8; SRCD_WIDTH];
    r[..DOC_KEY].copy_from_slice(&key.0);
    match doc {
        None => r[35..39].copy_from_slice(&GONE.to_be_bytes()),
        Some((d, off, len)) => {
            for (f, l) in d.lengths.iter().enumerate() {
                r[DOC_KEY + 2 * f..DOC_KEY + 2 * f + 2].copy_from_slice(&l.to_be_bytes());
            }
            r[25] = d.place.code();
            r[26] = d.status.code();
            r[27..35].copy_from_slice(&off.to_be_bytes());
            r[35..39].copy_from_slice(&(len as u32).to_be_bytes());
        }
    }
    r
}

fn encode_totals(t: &Totals) -> Vec<u8> {
    let mut r = Vec::with_capacity(SRCT_WIDTH);
    r.push(0);
    r.extend_from_slice(&t.docs.to_be_bytes());
    for l in &t.lengths {
        r.extend_from_slice(&l.to_be_bytes());
    }
    r
}

fn decode_totals(rec: &[u8]) -> Totals {
    let at = |i: usize| u64::from_be_bytes(rec[1 + 8 * i..9 + 8 * i].try_into().expect("8 bytes"));
    Totals {
        docs: at(0),
        lengths: std::array::from_fn(|f| at(1 + f)),
    }
}

/// The `SRCT` table of a layer whose chain adds up to `totals`.
pub(super) fn totals_table(totals: &Totals) -> TableData {
    TableData {
        tag: SRCT,
        width: SRCT_WIDTH,
        key: 1,
        records: encode_totals(totals),
    }
}

impl Layer {
    /// Its word on a document: `None` when it says nothing, `Some(None)`
    /// when it says the document is gone.
    fn doc(&self, key: DocKey) -> Option<Option<Record>> {
        let rec = self.find_key(SRCD, &key.0)?;
        Some(decode(&rec).filter(|r| r.slot.is_some()))
    }

    fn totals(&self) -> Option<Totals> {
        let t = self.table(SRCT)?;
        (t.count == 1).then(|| decode_totals(&format::all(&self.bytes, t).expect("one record")))
    }
}

/// What a document in the overlay stands for, as its lengths: `None` when
/// gone.
fn live(doc: &Option<Doc>) -> Option<&[u16; FIELDS]> {
    doc.as_ref().map(|d| &d.lengths)
}

impl Index {
    /// The newest layer's word on a document, below the overlay.
    fn layer_doc(&self, key: DocKey) -> Option<Record> {
        self.layers.iter().rev().find_map(|l| l.doc(key)).flatten()
    }

    /// How many documents are searched and their field lengths, summed:
    /// the top layer's totals (cumulative), plus what the overlay changed.
    pub fn search_totals(&self) -> Totals {
        self.totals_with(&self.mem)
    }

    /// The same, with `mem` for the overlay.
    pub(super) fn totals_with(&self, mem: &Overlay) -> Totals {
        let mut t = self
            .layers
            .last()
            .and_then(Layer::totals)
            .unwrap_or_default();
        for (n, (key, doc)) in mem.docs.iter().enumerate() {
            // A batch's chunk brings thousands of documents, each looked
            // up in every layer.
            self.release_pages_after(n);
            if let Some(old) = self.layer_doc(*key) {
                t.count(&old.lengths, false);
            }
            if let Some(l) = live(doc) {
                t.count(l, true);
            }
        }
        t
    }

    /// The live documents that can match `query` (every word must match:
    /// [`crate::search::Group`]), each with its postings of the query's
    /// term keys, and how many live documents hold each of those keys.
    ///
    /// Two passes, so that a common word does not turn every lesson into
    /// a candidate: first each key's live postings are counted, newest
    /// word first (one binary search per key and layer, then a walk of its
    /// postings, which lie in row order, without allocating); then only
    /// the documents of the cheapest word (its whole term, or its rarest
    /// part: a document matching the word has one of them) are read, with
    /// their other postings found by a cursor through each key's stored
    /// postings. What the overlay knows of a document, or a newer layer's
    /// record, hides an older layer's; the document frequencies are exact
    /// whatever the layering, so ranking is too.
    pub fn search(&self, query: &Query) -> Matches {
        self.search_with(query, LOOKUP_COST)
    }

    /// [`Index::search`], with the cost of a look-up against a key of a
    /// merge given (see [`Index::liveness`]): 0 looks every posting's
    /// document up, a large one marks a layer's dead rows whenever there
    /// is a posting to check (the tests run both ways).
    pub(crate) fn search_with(&self, query: &Query, lookup_cost: u64) -> Matches {
        let keys = query.keys();
        let mut df: HashMap<u64, u64> = keys.iter().map(|k| (*k, 0)).collect();
        for d in self.mem.docs.values().flatten() {
            for k in &keys {
                if d.posting(*k).is_some() {
                    *df.entry(*k).or_default() += 1;
                }
            }
        }
        let mut seen: Vec<Looked> = Vec::new();
        for (k, l) in self.layers.iter().enumerate().rev() {
            let (Some(docs), Some(posts)) = (l.table(SRCD), l.table(SRCP)) else {
                continue;
            };
            let ranges: Vec<(u64, u64)> = keys
                .iter()
                .map(|&term| {
                    format::prefix_range(&l.bytes, posts, &term_bytes(term)).unwrap_or((0, 0))
                })
                .collect();
            let liveness = self.liveness(k, docs.count, &ranges, lookup_cost);
            for (&term, &range) in keys.iter().zip(&ranges) {
                let mut n = 0u64;
                self.live_postings(k, &liveness, range, |_, _| n += 1);
                *df.entry(term).or_default() += n;
            }
            seen.push(Looked {
                k,
                liveness,
                ranges,
            });
        }
        let df_of = |k: u64| df.get(&k).copied().unwrap_or(0);
        let drivers = cheapest(query, &df_of);
        let at = |k: u64| keys.binary_search(&k).expect("a query key");
        // Each live document is in one place only (the overlay, or the
        // newest layer that has it), so nothing is found twice.
        let mut found: Vec<Found> = Vec::new();
        for (key, doc) in &self.mem.docs {
            let Some(d) = doc else { continue };
            if !drivers.iter().any(|k| d.posting(*k).is_some()) {
                continue;
            }
            let postings = keys
                .iter()
                .filter_map(|k| d.posting(*k).map(|p| (p.key, p.tf, p.exact)))
                .collect();
            found.push(Found {
                key: *key,
                place: d.place,
                status: d.status,
                lengths: d.lengths,
                postings,
            });
        }
        for Looked {
            k,
            liveness,
            ranges,
        } in &seen
        {
            let l = &self.layers[*k];
            let (Some(docs), Some(posts)) = (l.table(SRCD), l.table(SRCP)) else {
                continue;
            };
            let mut rows: Vec<u32> = Vec::new();
            for d in &drivers {
                self.live_postings(*k, liveness, ranges[at(*d)], |row, _| rows.push(row));
            }
            rows.sort_unstable();
            rows.dedup();
            // Each key's postings, as stored, with a cursor: candidates
            // come in row order, as a key's postings do. A candidate is
            // live, so every posting of its row is.
            let lists: Vec<Cow<'_, [u8]>> = ranges
                .iter()
                .map(|&(lo, hi)| postings_in(l, posts, lo, hi))
                .collect();
            let mut from = vec![0usize; keys.len()];
            for row in rows {
                let Some(doc) = format::record_at(&l.bytes, docs, u64::from(row))
                    .as_deref()
                    .and_then(decode)
                else {
                    continue;
                };
                let mut postings = Vec::new();
                for (i, term) in keys.iter().enumerate() {
                    let list = &lists[i][from[i] * SRCP_WIDTH..];
                    let n = partition_point(list, |rec| posting_row(rec) < row);
                    from[i] += n;
                    if let Some(rec) = list.get(n * SRCP_WIDTH..(n + 1) * SRCP_WIDTH) {
                        if posting_row(rec) == row {
                            let (tf, exact) = unpack_tf([rec[10], rec[11]]);
                            postings.push((*term, tf, exact));
                        }
                    }
                }
                found.push(Found {
                    key: doc.key,
                    place: doc.place,
                    status: doc.status,
                    lengths: doc.lengths,
                    postings,
                });
            }
        }
        found.sort_unstable_by_key(|f| f.key);
        Matches { found, df }
    }

    /// How a search tells which of layer `k`'s postings in `ranges` are
    /// of live documents: by looking each posting's document up in the
    /// newer layers when there are few, else by marking, once, every row
    /// whose document is gone or said again above (one merge of sorted
    /// keys, no hashing). The mark costs a pass over the layer's and the
    /// newer layers' keys; `lookup_cost` is what one look-up costs against
    /// a key of that pass.
    fn liveness(&self, k: usize, rows: u64, ranges: &[(u64, u64)], lookup_cost: u64) -> Liveness {
        let checks: u64 = ranges.iter().map(|(lo, hi)| hi - lo).sum();
        let above = &self.layers[k + 1..];
        let newer: u64 = above
            .iter()
            .filter_map(|l| l.table(SRCD))
            .map(|t| t.count)
            .sum::<u64>()
            + self.mem.docs.len() as u64;
        let lookups = checks
            .saturating_mul(above.len() as u64 + 1)
            .saturating_mul(lookup_cost);
        if checks > 0 && lookups > rows + newer {
            Liveness::Marked(self.dead_rows(k))
        } else {
            Liveness::Lookup
        }
    }

    /// The rows of layer `k`'s documents that are not live: gone there,
    /// unreadable, or said again by a newer layer or the overlay; a bit
    /// per row.
    fn dead_rows(&self, k: usize) -> Vec<u64> {
        let l = &self.layers[k];
        let Some(own) = l.all(SRCD) else {
            return Vec::new();
        };
        let n = own.len() / SRCD_WIDTH;
        let mut bits = vec![0u64; n.div_ceil(64)];
        for (i, rec) in own.chunks_exact(SRCD_WIDTH).enumerate() {
            if decode(rec).is_none_or(|r| r.slot.is_none()) {
                bits[i / 64] |= 1 << (i % 64);
            }
        }
        let key_at = |i: usize| &own[i * SRCD_WIDTH..i * SRCD_WIDTH + DOC_KEY];
        let mut hide = |newer: &mut dyn Iterator<Item = &[u8]>| {
            let mut i = 0;
            for key in newer {
                i = format::gallop(i, n, |j| key_at(j) < key);
                if i < n && key_at(i) == key {
                    bits[i / 64] |= 1 << (i % 64);
                }
            }
        };
        hide(&mut self.mem.docs.keys().map(|d| &d.0[..]));
        for a in &self.layers[k + 1..] {
            if let Some(theirs) = a.all(SRCD) {
                hide(&mut theirs.chunks_exact(SRCD_WIDTH).map(|r| &r[..DOC_KEY]));
            }
        }
        bits
    }

    /// Calls `each` with the row and packed term frequencies of every
    /// posting of layer `k` in `range` whose document is live there, in
    /// row order.
    fn live_postings(
        &self,
        k: usize,
        liveness: &Liveness,
        (lo, hi): (u64, u64),
        mut each: impl FnMut(u32, [u8; 2]),
    ) {
        if lo >= hi {
            return;
        }
        let l = &self.layers[k];
        let (Some(docs), Some(posts)) = (l.table(SRCD), l.table(SRCP)) else {
            return;
        };
        let above = &self.layers[k + 1..];
        let list = postings_in(l, posts, lo, hi);
        for rec in list.chunks_exact(SRCP_WIDTH) {
            let row = posting_row(rec);
            let live = match liveness {
                Liveness::Marked(bits) => {
                    let i = row as usize;
                    bits.get(i / 64).is_some_and(|b| b & (1 << (i % 64)) == 0)
                }
                Liveness::Lookup => format::record_at(&l.bytes, docs, u64::from(row))
                    .as_deref()
                    .and_then(decode)
                    .is_some_and(|d| {
                        d.slot.is_some()
                            && !self.mem.docs.contains_key(&d.key)
                            && !above.iter().any(|a| a.doc(d.key).is_some())
                    }),
            };
            if live {
                each(row, [rec[10], rec[11]]);
            }
        }
    }

    /// What a queued proposal shows (its claim and stack), if it is queued.
    pub fn shown(&self, id: Id) -> Option<Shown> {
        let key = DocKey::proposal(id);
        if let Some(doc) = self.mem.docs.get(&key) {
            return doc.as_ref().and_then(|d| d.shown.clone());
        }
        for l in self.layers.iter().rev() {
            match l.doc(key) {
                None => continue,
                Some(None) => return None,
                Some(Some(r)) => {
                    let (off, len) = r.slot?;
                    let bytes = format::heap_slice(&l.bytes, l.table(SRCH)?, off, len)?;
                    return serde_json::from_slice(&bytes).ok();
                }
            }
        }
        None
    }

    /// Where a pool entry is and its status, if the index knows the entry:
    /// one look-up per layer.
    pub fn pool_entry(&self, id: Id) -> Option<(Source, Status)> {
        let key = DocKey::entry(id);
        if let Some(doc) = self.mem.docs.get(&key) {
            return doc.as_ref().and_then(|d| Some((d.place.pool()?, d.status)));
        }
        let r = self.layer_doc(key)?;
        Some((r.place.pool()?, r.status))
    }

    /// Every pool entry the index knows, with its pool and status, in id
    /// order: the newest word on each (its document record), read from
    /// fixed-width records, no summary parsed.
    pub fn pool_entry_list(&self) -> BTreeMap<Id, (Source, Status)> {
        let mut out: BTreeMap<Id, (Source, Status)> = BTreeMap::new();
        for l in &self.layers {
            let Some(all) = l.all(SRCD) else { continue };
            for rec in all.chunks_exact(SRCD_WIDTH) {
                let key = DocKey(rec[..DOC_KEY].try_into().expect("a key"));
                if !key.is_entry() {
                    continue;
                }
                match decode(rec).filter(|r| r.slot.is_some()) {
                    Some(r) => match r.place.pool() {
                        Some(pool) => out.insert(key.id(), (pool, r.status)),
                        None => out.remove(&key.id()),
                    },
                    None => out.remove(&key.id()),
                };
            }
        }
        for (key, doc) in &self.mem.docs {
            if !key.is_entry() {
                continue;
            }
            match doc.as_ref().and_then(|d| Some((d.place.pool()?, d.status))) {
                Some(v) => out.insert(key.id(), v),
                None => out.remove(&key.id()),
            };
        }
        out
    }

    /// The pool entries that hold `artifact` in their evidence, with their
    /// pools, by lesson id.
    pub fn pool_holders(&self, artifact: Id) -> Vec<(Id, Source)> {
        let mut out: BTreeMap<Id, Source> = BTreeMap::new();
        for (key, doc) in &self.mem.docs {
            if let Some(d) = doc {
                if let (Some(pool), true) = (d.place.pool(), d.artifacts.contains(&artifact)) {
                    out.insert(key.id(), pool);
                }
            }
        }
        for (k, l) in self.layers.iter().enumerate() {
            let Some(t) = l.table(POOA) else { continue };
            for rec in format::find_prefix(&l.bytes, t, &artifact.to_bytes()).unwrap_or_default() {
                let lesson = id_at(&rec, 16);
                let key = DocKey::entry(lesson);
                // Only the layer with the newest word on the entry speaks
                // for its artifacts.
                let newer = self.mem.docs.contains_key(&key)
                    || self.layers[k + 1..].iter().any(|n| n.doc(key).is_some());
                if !newer {
                    if let Some(pool) = Source::from_code(rec[32]) {
                        out.insert(lesson, pool);
                    }
                }
            }
        }
        out.into_iter().collect()
    }
}

/// What one look-up of a document key in the newer layers costs (a
/// binary search in each), against one key of a merge of sorted keys:
/// past this ratio a search marks the layer's dead rows instead of
/// looking each posting's document up.
const LOOKUP_COST: u64 = 8;

/// A layer as a search looked at it: its place in the chain, how its live
/// rows are told, and each query key's range of its postings (sorted by
/// term, then row).
struct Looked {
    k: usize,
    liveness: Liveness,
    ranges: Vec<(u64, u64)>,
}

/// How a search tells a layer's live postings (see `Index::liveness`).
enum Liveness {
    /// Each posting's document looked up in the newer layers.
    Lookup,
    /// A bit per row of the layer's documents, set when not live.
    Marked(Vec<u64>),
}

/// The postings `lo..hi` of a layer's `SRCP`, as stored; empty when they
/// cannot be read.
fn postings_in<'l>(l: &'l Layer, posts: &TableDir, lo: u64, hi: u64) -> Cow<'l, [u8]> {
    let width = SRCP_WIDTH as u64;
    usize::try_from((hi - lo) * width)
        .ok()
        .and_then(|len| l.bytes.read(posts.offset + lo * width, len))
        .unwrap_or(Cow::Borrowed(&[]))
}

/// The document row a posting record names.
fn posting_row(rec: &[u8]) -> u32 {
    u32::from_be_bytes(rec[6..10].try_into().expect("4 bytes"))
}

/// How many of the records of `list` (postings, in row order) come before
/// the first for which `before` is false.
fn partition_point(list: &[u8], before: impl Fn(&[u8]) -> bool) -> usize {
    let n = list.len() / SRCP_WIDTH;
    format::gallop(0, n, |j| {
        before(&list[j * SRCP_WIDTH..(j + 1) * SRCP_WIDTH])
    })
}

/// The search tables of a layer holding what `mem` holds (`SRCT` is the
/// caller's, who knows the whole chain); see `persist::fresh`.
pub(super) fn fresh(mem: &Overlay, bottom: bool) -> Vec<TableData> {
    let mut records = Vec::with_capacity(mem.docs.len() * SRCD_WIDTH);
    let mut postings = Vec::new();
    let mut heap = Vec::new();
    let mut artifacts = Vec::new();
    let mut row: u32 = 0;
    for (key, doc) in &mem.docs {
        let Some(d) = doc else {
            if !bottom {
                records.extend_from_slice(&encode(*key, None));
                row += 1;
            }
            continue;
        };
        let shown = d
            .shown
            .as_ref()
            .map(|s| serde_json::to_vec(s).expect("what a proposal shows serialises"));
        let (off, len) = (heap.len() as u64, shown.as_ref().map_or(0, Vec::len));
        heap.extend(shown.into_iter().flatten());
        records.extend_from_slice(&encode(*key, Some((d, off, len))));
        for p in &d.postings {
            postings.extend_from_slice(&term_bytes(p.key));
            postings.extend_from_slice(&row.to_be_bytes());
            postings.extend_from_slice(&pack_tf(p));
        }
        if let Some(pool) = d.place.pool() {
            for artifact in &d.artifacts {
                artifacts.extend_from_slice(&artifact.to_bytes());
                artifacts.extend_from_slice(&key.id().to_bytes());
                artifacts.push(pool.code());
            }
        }
        row += 1;
    }
    let filter = Filter::table(
        SRCD,
        records.chunks_exact(SRCD_WIDTH).map(|r| &r[..DOC_KEY]),
    );
    vec![
        TableData {
            tag: SRCD,
            width: SRCD_WIDTH,
            key: DOC_KEY,
            records,
        },
        filter,
        TableData {
            tag: SRCP,
            width: SRCP_WIDTH,
            key: 10,
            records: postings,
        },
        TableData {
            tag: SRCH,
            width: 1,
            key: 0,
            records: heap,
        },
        TableData {
            tag: POOA,
            width: POOA_WIDTH,
            key: 32,
            records: artifacts,
        },
    ]
}

/// A row no document of the merged layer has.
const NO_ROW: u32 = u32::MAX;

/// Writes the search tables of the layer holding what `layers` (oldest
/// first) hold, the newest word on each document winning with its
/// postings and artifacts (see `persist::stream`): `SRCD`, then `SRCP`
/// (each layer's postings of the documents it wins, renumbered to their
/// new rows: in the order they were in), `SRCH`, `POOA`.
pub(super) fn stream(layers: &[&Layer], bottom: bool, out: &mut LayerWriter) -> Result<(), Stop> {
    // Each layer's documents' new rows, and the documents it holds that
    // are not live in the new layer (replaced, or gone), by key.
    let mut rows: Vec<Vec<u32>> = Vec::with_capacity(layers.len());
    for l in layers {
        let n = l.table(SRCD).ok_or(Stop::Unreadable)?.count;
        rows.push(vec![
            NO_ROW;
            usize::try_from(n).map_err(|_| Stop::Unreadable)?
        ]);
    }
    let mut dead: Vec<Vec<DocKey>> = vec![Vec::new(); layers.len()];
    // What it writes, counted first for the filter's size: every live
    // document, and the gone ones above the bottom.
    let kept = Walk::new(layers, SRCD, DOC_KEY)?.count(|rec| !bottom || winner(rec).is_some())?;
    let mut filter = Filter::new(kept);
    out.table(SRCD, SRCD_WIDTH, DOC_KEY)?;
    let (mut row, mut at) = (0u32, 0u64);
    let mut walk = Walk::new(layers, SRCD, DOC_KEY)?;
    while walk.next_key() {
        let h = walk.holders();
        let (w, older) = h.split_last().expect("a holder");
        let rec = walk.record(*w);
        let key = DocKey(rec[..DOC_KEY].try_into().expect("a key"));
        for &i in older {
            dead[i].push(key);
        }
        match winner(rec) {
            None => {
                dead[*w].push(key);
                if !bottom {
                    filter.add(&key.0);
                    out.push(&encode(key, None))?;
                    row += 1;
                }
            }
            Some((doc, len)) => {
                filter.add(&key.0);
                out.push(&encode(key, Some((&doc, at, len))))?;
                rows[*w][walk.row(*w) as usize] = row;
                row += 1;
                at += len as u64;
            }
        }
        walk.advance()?;
    }
    filter.write(SRCD, out)?;
    out.table(SRCP, SRCP_WIDTH, 10)?;
    super::persist::union(
        layers,
        SRCP,
        10,
        |i, rec| {
            let old = u32::from_be_bytes(rec[6..10].try_into().expect("4 bytes"));
            match rows[i].get(old as usize) {
                Some(&new) if new != NO_ROW => {
                    rec[6..10].copy_from_slice(&new.to_be_bytes());
                    true
                }
                _ => false,
            }
        },
        out,
    )?;
    out.table(SRCH, 1, 0)?;
    let mut heaps = super::persist::windows(layers, SRCH)?;
    let mut walk = Walk::new(layers, SRCD, DOC_KEY)?;
    while walk.next_key() {
        let h = walk.holders();
        let w = *h.last().expect("a holder");
        let rec = walk.record(w);
        if let (
            Some(_),
            Some(Record {
                slot: Some((off, len)),
                ..
            }),
        ) = (winner(rec), decode(rec))
        {
            if len > 0 {
                out.push(heaps[w].slice(off, len).ok_or(Stop::Unreadable)?)?;
            }
        }
        walk.advance()?;
    }
    out.table(POOA, POOA_WIDTH, 32)?;
    super::persist::union(
        layers,
        POOA,
        32,
        |i, rec| {
            dead[i]
                .binary_search(&DocKey::entry(id_at(rec, 16)))
                .is_err()
        },
        out,
    )
}

/// A document record that stays live: the document (its lengths, place
/// and status) and the length of what it shows; `None` when it is gone or
/// does not read.
fn winner(rec: &[u8]) -> Option<(Doc, usize)> {
    let r = decode(rec)?;
    let (_, len) = r.slot?;
    Some((
        Doc {
            place: r.place,
            status: r.status,
            lengths: r.lengths,
            postings: Vec::new(),
            shown: None,
            artifacts: Vec::new(),
        },
        len,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frequencies_pack_into_two_bytes() {
        for tf in [[0, 0, 0, 0], [15, 15, 15, 7], [1, 2, 3, 4], [15, 0, 9, 1]] {
            for exact in [false, true] {
                let p = Posting { key: 7, tf, exact };
                assert_eq!(unpack_tf(pack_tf(&p)), (tf, exact));
            }
        }
    }

    #[test]
    fn a_document_record_round_trips() {
        let doc = Doc {
            place: Place::Org,
            status: Status::Superseded,
            lengths: [3, 400, 65535, 2],
            postings: Vec::new(),
            shown: None,
            artifacts: Vec::new(),
        };
        let key = DocKey::entry(Id::from_parts(1_700_000_000_000, 9));
        let r = decode(&encode(key, Some((&doc, 77, 5)))).unwrap();
        assert_eq!(
            (r.key, r.lengths, r.place, r.status, r.slot),
            (
                key,
                doc.lengths,
                Place::Org,
                Status::Superseded,
                Some((77, 5))
            )
        );
        assert!(decode(&encode(key, None)).unwrap().slot.is_none());
        assert!(key.is_entry() && !DocKey::proposal(key.id()).is_entry());
        let t = Totals {
            docs: 5,
            lengths: [1, 2, 3, u64::MAX],
        };
        assert_eq!(decode_totals(&encode_totals(&t)), t);
        assert_eq!(encode_totals(&t).len(), SRCT_WIDTH);
    }
}
