//! Every answer the index gives — an artifact's outcome, a lesson's
//! entry, the recall candidates for installed packages, pool entries'
//! summaries, counts and ids — read across the layers (newest first, each
//! table searched in place) and what the overlay learned since.

use std::collections::{BTreeMap, BTreeSet, HashSet};

use super::format::{self, Tag};
use super::{
    decode_artifact, decode_lesson, id_at, name_key, slot, ArtifactOutcome, Index, LessonEntry,
    Word, ARTS, ART_WIDTH, LESN, LES_WIDTH, RCLH, RCLK, RCLS, RCLS_WIDTH,
};
use crate::model::Id;
use crate::summary::Summary;

impl Index {
    pub(super) fn layer_lesson(&self, id: Id) -> Option<LessonEntry> {
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
        // The installed names, in order, looked up in each layer by one
        // gallop through its sorted records (a binary search each when the
        // layer is big): the mapped files' pages are touched, not read
        // whole, so this grows with the names installed and the lessons
        // naming them, not with the pools. A lesson's keys all lie in the
        // layer that has its summary; the newest layer with a word on it
        // decides.
        for (k, l) in self.layers.iter().enumerate() {
            let Some(t) = l.table(RCLK) else { continue };
            let mut here: BTreeMap<Id, (usize, usize)> = BTreeMap::new();
            format::each_with_prefixes(&l.bytes, t, wanted.iter().map(|k| &k[..]), |_, r| {
                let e = here.entry(id_at(r, 8)).or_insert((0, r[24] as usize));
                e.0 += 1;
            });
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

    /// About how many artifacts the index knows, read from the layers'
    /// table headers and the overlay without reading a record: what a
    /// batch sizes its packs by. An artifact whose outcome changed after it
    /// reached a layer (a redo) counts once in each layer holding it, so
    /// this is an upper bound, within a few percent in practice.
    pub fn artifacts_estimate(&self) -> usize {
        let layered: u64 = self
            .layers
            .iter()
            .filter_map(|l| l.table(ARTS))
            .map(|t| t.count)
            .sum();
        usize::try_from(layered).unwrap_or(usize::MAX) + self.mem.artifacts.len()
    }

    /// How many artifacts and lessons it knows.
    pub fn counts(&self) -> (usize, usize) {
        (self.artifacts().len(), self.lessons().len())
    }

    /// Every id the index knows, lessons (of the ledger and of every pool)
    /// and artifacts, sorted and without repeats: what an id prefix is
    /// resolved against.
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
        // Pool entries synced from teammates have no ledger record here.
        ids.extend(self.pool_entry_list().into_keys());
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
}
