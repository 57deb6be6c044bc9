//! What never leaves the machine, by object id: the `PRIV` table.
//!
//! The ledger and `pool/local` are *private branches*. Every blob either
//! ever held outside `.lore/` (every version of every proposal, decline,
//! lesson entry, relation record, counter-observation, …) is a private
//! object, and so is every tree at one of their commits that holds such a
//! record. The pre-push guard asks [`Index::private`] about each object a
//! push would send. `.lore/` files are not private: `pool/local`'s
//! signers file is the one `pool/org` starts with, and so is a pool tree
//! that holds nothing else.
//!
//! Learned like the rest of the index, from history alone: what a
//! transaction on a private branch writes ([`Overlay::note_written`]), and,
//! catching up or rebuilding, what each new commit of a private branch
//! holds beyond its parents ([`learn_commit`], through
//! [`Store::introduced`]). Records are only ever added: an object once
//! private stays private, and where two commits introduced the same object
//! the older one is named. A record is the object id (the key), the branch,
//! what the object is and an id: a record's own (the lesson, artifact or
//! lesson related) or the commit that introduced it.

use std::ops::ControlFlow;

use gix::ObjectId;

use super::format::{LayerWriter, Tag};
use super::persist::{Stop, Walk};
use super::{Index, Layer, Overlay};
use crate::model::{Id, Source};
use crate::store::layout::Branch;
use crate::store::{Store, StoreError};

/// The table's tag, and its record width: object id (20, the key),
/// branch (1), what (1), an id (20).
pub(super) const PRIV: Tag = *b"PRIV";
pub(super) const PRIV_WIDTH: usize = 42;
const KEY: usize = 20;

crate::names::string_enum! {
    /// What a private record is, by the directory its path starts with.
    pub enum Record: "private record" {
        Proposal("proposals", 0),
        Decline("declined", 1),
        Lesson("lessons", 2),
        Relation("relations", 3),
        CounterObservation("counter-observations", 4),
        Related("related", 5),
        Upheld("upheld", 6),
    }
}

/// A private object, and where it comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Private {
    /// The private branch it is from: the ledger or `pool/local`.
    pub branch: Branch,
    pub what: Held,
}

/// What a private object is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Held {
    /// The tree of this commit of the branch.
    Tree { commit: ObjectId },
    /// A version of a record, by the id its path names (`proposals/…/<lesson>.json`,
    /// `declined/…/<artifact>.json`, `relations/…/<from>/<to>.json`: `from`, …).
    Record { record: Record, id: Id },
    /// Any other file of the branch outside `.lore/`, first held by this
    /// commit.
    File { commit: ObjectId },
}

/// Whether a branch's objects are private.
pub fn is_private(branch: Branch) -> bool {
    matches!(branch, Branch::Ledger | Branch::Pool(Source::Local))
}

/// What a blob at `path` of a private branch is, introduced by `commit`;
/// `None` under `.lore/`, which is not private.
pub(super) fn held_at(path: &str, commit: ObjectId) -> Option<Held> {
    let mut parts = path.split('/');
    let top = parts.next()?;
    if top == ".lore" {
        return None;
    }
    let id = parts
        .nth(Id::FANOUT_LEVELS)
        .map(|p| p.strip_suffix(".json").unwrap_or(p))
        .and_then(|p| p.parse::<Id>().ok());
    Some(match (top.parse::<Record>(), id) {
        (Ok(record), Some(id)) => Held::Record { record, id },
        _ => Held::File { commit },
    })
}

/// Whether a tree whose top-level names are `names` holds records: it
/// has anything but `.lore/`.
pub(crate) fn holds_records<'n>(mut names: impl Iterator<Item = &'n [u8]>) -> bool {
    names.any(|n| n != b".lore")
}

/// Learns what `commit`, on the private `branch`, holds beyond its
/// parents: its tree when that holds records, and its blobs outside
/// `.lore/`.
pub(super) fn learn_commit(
    store: &Store,
    branch: Branch,
    commit: ObjectId,
    overlay: &mut Overlay,
) -> Result<(), StoreError> {
    let mut root = None;
    let mut blobs = Vec::new();
    // The visit never stops the walk.
    let _ = store.introduced(commit, &mut |o| {
        if o.path.is_empty() {
            root = Some(o.id);
        } else if !o.tree {
            if let Some(what) = held_at(&o.path, commit) {
                blobs.push((o.id, what));
            }
        }
        ControlFlow::Continue(())
    })?;
    if let Some(tree) = root {
        let names = store.top_level(commit)?;
        if holds_records(names.iter().map(|n| n.as_bytes())) {
            overlay.note_private(tree, branch, Held::Tree { commit });
        }
    }
    for (blob, what) in blobs {
        overlay.note_private(blob, branch, what);
    }
    Ok(())
}

pub(super) fn encode(id: ObjectId, p: &Private) -> [u8; PRIV_WIDTH] {
    let mut r = [0u8; PRIV_WIDTH];
    r[..KEY].copy_from_slice(id.as_bytes());
    r[20] = match p.branch {
        Branch::Ledger => 0,
        Branch::Pool(s) => 1 + s.code(),
    };
    match p.what {
        Held::Tree { commit } => {
            r[21] = 0;
            r[22..].copy_from_slice(commit.as_bytes());
        }
        Held::File { commit } => {
            r[21] = 1;
            r[22..].copy_from_slice(commit.as_bytes());
        }
        Held::Record { record, id } => {
            r[21] = 2 + record.code();
            r[22..38].copy_from_slice(&id.to_bytes());
        }
    }
    r
}

pub(super) fn decode(rec: &[u8]) -> Option<Private> {
    let branch = match rec[20] {
        0 => Branch::Ledger,
        b => Branch::Pool(Source::from_code(b - 1)?),
    };
    let oid = || ObjectId::from_bytes_or_panic(&rec[22..42]);
    let what = match rec[21] {
        0 => Held::Tree { commit: oid() },
        1 => Held::File { commit: oid() },
        b => Held::Record {
            record: Record::from_code(b - 2)?,
            id: super::id_at(rec, 22),
        },
    };
    Some(Private { branch, what })
}

impl Overlay {
    /// Learns that `id` is private, unless it is known already: the
    /// oldest word on an object stands.
    pub(super) fn note_private(&mut self, id: ObjectId, branch: Branch, what: Held) {
        self.private.entry(id).or_insert(Private { branch, what });
    }

    /// Learns what one commit a transaction wrote on a private branch
    /// holds beyond its parent: `blobs`, the blobs it wrote with their
    /// paths, and `tree`, its tree when that holds records and is not its
    /// parent's.
    pub(crate) fn note_written<'p>(
        &mut self,
        branch: Branch,
        commit: ObjectId,
        tree: Option<ObjectId>,
        blobs: impl Iterator<Item = (ObjectId, &'p str)>,
    ) {
        if let Some(tree) = tree {
            self.note_private(tree, branch, Held::Tree { commit });
        }
        for (blob, path) in blobs {
            if let Some(what) = held_at(path, commit) {
                self.note_private(blob, branch, what);
            }
        }
    }
}

impl Layer {
    fn private(&self, id: ObjectId) -> Option<Private> {
        let rec = super::format::find(&self.bytes, self.table(PRIV)?, id.as_bytes())?;
        decode(&rec)
    }
}

impl Index {
    /// Whether `id` is a private object, and what it is: every blob the
    /// ledger or `pool/local` ever held outside `.lore/`, and every tree of
    /// theirs that holds records. A look-up per layer (a handful), each a
    /// binary search in place.
    pub fn private(&self, id: ObjectId) -> Option<Private> {
        self.layers
            .iter()
            .find_map(|l| l.private(id))
            .or_else(|| self.mem.private.get(&id).copied())
    }
}

/// The `PRIV` records of `mem`, sorted by object id.
pub(super) fn fresh(mem: &Overlay) -> Vec<u8> {
    mem.private
        .iter()
        .flat_map(|(id, p)| encode(*id, p))
        .collect()
}

/// Writes the `PRIV` table of the layer holding what `layers` (oldest
/// first) hold, the oldest word on each object kept.
pub(super) fn stream(layers: &[&Layer], out: &mut LayerWriter) -> Result<(), Stop> {
    out.table(PRIV, PRIV_WIDTH, KEY)?;
    let mut walk = Walk::new(layers, PRIV, KEY)?;
    let mut last: Option<[u8; KEY]> = None;
    while walk.next_key() {
        let h = walk.holders();
        let rec = walk.record(h[0]);
        let key: [u8; KEY] = rec[..KEY].try_into().expect("a key");
        // One record a key, even where a layer has two.
        if last != Some(key) {
            out.push(rec)?;
            last = Some(key);
        }
        walk.advance()?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn oid(b: u8) -> ObjectId {
        ObjectId::from_bytes_or_panic(&[b; 20])
    }

    #[test]
    fn records_round_trip() {
        let id: Id = "01KZ45MKAM734ZS7JK24D2DK0R".parse().unwrap();
        for p in [
            Private {
                branch: Branch::Ledger,
                what: Held::Record {
                    record: Record::Proposal,
                    id,
                },
            },
            Private {
                branch: Branch::Pool(Source::Local),
                what: Held::Record {
                    record: Record::Upheld,
                    id,
                },
            },
            Private {
                branch: Branch::Pool(Source::Local),
                what: Held::Tree { commit: oid(7) },
            },
            Private {
                branch: Branch::Ledger,
                what: Held::File { commit: oid(9) },
            },
        ] {
            let rec = encode(oid(1), &p);
            assert_eq!(&rec[..20], oid(1).as_bytes());
            assert_eq!(decode(&rec), Some(p));
        }
    }

    #[test]
    fn paths_say_what_a_private_blob_is() {
        let c = oid(3);
        let id: Id = "01KZ45MKAM734ZS7JK24D2DK0R".parse().unwrap();
        let other: Id = "01KZ45MKAM734ZS7JK24D2DK0S".parse().unwrap();
        let rec = |record, id| Some(Held::Record { record, id });
        assert_eq!(
            held_at(&format!("proposals/K/0/R/{id}.json"), c),
            rec(Record::Proposal, id)
        );
        assert_eq!(
            held_at(&format!("declined/K/0/R/{id}.json"), c),
            rec(Record::Decline, id)
        );
        assert_eq!(
            held_at(&format!("lessons/K/0/R/{id}.json"), c),
            rec(Record::Lesson, id)
        );
        assert_eq!(
            held_at(&format!("relations/K/0/R/{id}/{other}.json"), c),
            rec(Record::Relation, id)
        );
        assert_eq!(
            held_at(&format!("counter-observations/K/0/R/{id}/{other}.json"), c),
            rec(Record::CounterObservation, id)
        );
        assert_eq!(
            held_at(&format!("related/K/0/R/{id}.json"), c),
            rec(Record::Related, id)
        );
        assert_eq!(
            held_at(&format!("upheld/K/0/R/{id}/2.json"), c),
            rec(Record::Upheld, id)
        );
        // Anything else outside `.lore/` is private too, by its commit.
        for path in ["notes.txt", "proposals/x.json", "misc/0/R/junk"] {
            assert_eq!(held_at(path, c), Some(Held::File { commit: c }), "{path}");
        }
        assert_eq!(held_at(".lore/allowed_signers", c), None);
        assert_eq!(held_at(".lore/rubrics.json", c), None);
    }

    #[test]
    fn the_directories_are_the_ones_records_are_written_under() {
        use crate::review::relation::records;
        let id: Id = "01KZ45MKAM734ZS7JK24D2DK0R".parse().unwrap();
        let c = oid(3);
        for (path, record) in [
            (crate::store::layout::proposal_path(id), Record::Proposal),
            (crate::store::layout::decline_path(id), Record::Decline),
            (records::lesson_path(id), Record::Lesson),
            (records::relation_path(id, id), Record::Relation),
            (
                records::counter_observation_path(id, id),
                Record::CounterObservation,
            ),
            (records::related_path(id), Record::Related),
            (records::upheld_path(id, 1), Record::Upheld),
        ] {
            assert_eq!(
                held_at(&path, c),
                Some(Held::Record { record, id }),
                "{path}"
            );
        }
    }

    #[test]
    fn a_tree_of_signers_alone_holds_no_record() {
        assert!(!holds_records([b".lore".as_slice()].into_iter()));
        assert!(!holds_records(std::iter::empty()));
        assert!(holds_records(
            [b".lore".as_slice(), b"lessons".as_slice()].into_iter()
        ));
    }

    #[test]
    fn the_oldest_word_on_an_object_stands() {
        let id: Id = "01KZ45MKAM734ZS7JK24D2DK0R".parse().unwrap();
        let mut o = Overlay::default();
        o.note_private(oid(1), Branch::Ledger, Held::Tree { commit: oid(2) });
        o.note_private(oid(1), Branch::Ledger, Held::Tree { commit: oid(3) });
        o.note_written(
            Branch::Pool(Source::Local),
            oid(4),
            None,
            [
                (oid(5), format!("lessons/K/0/R/{id}.json").as_str()),
                (oid(6), ".lore/allowed_signers"),
            ]
            .into_iter(),
        );
        let recs = fresh(&o);
        let got: Vec<Private> = recs
            .chunks_exact(PRIV_WIDTH)
            .map(|r| decode(r).unwrap())
            .collect();
        assert_eq!(
            got,
            vec![
                Private {
                    branch: Branch::Ledger,
                    what: Held::Tree { commit: oid(2) }
                },
                Private {
                    branch: Branch::Pool(Source::Local),
                    what: Held::Record {
                        record: Record::Lesson,
                        id
                    }
                },
            ]
        );
    }
}
