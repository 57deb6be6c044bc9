//! The corpus fingerprint: the set of ids a relation verdict may legally
//! name, and a short digest of it.
//!
//! The valid id set is exactly the ids presented to the judge as neighbours,
//! not the whole pool: a judge cannot legitimately relate the candidate to a
//! lesson it was never shown, and "was this id presented" is checkable
//! without reading the store again. The candidate's own id is not in it.
//!
//! ```text
//! ids    = the presented ids, each once, sorted by their text (byte order)
//! count  = the number of ids
//! digest = the first 16 lower-case hex characters of
//!          sha256(ids joined by "\n"), no trailing newline
//! ```
//!
//! The empty set has the digest of the empty string, `e3b0c44298fc1c14`.
//! The digest lets a verdict that echoes it be checked against the
//! presentation it claims to answer (a stale retry, a reordered or changed
//! pool) for the price of one hash.
//!
//! This module hashes ids only; it decides nothing about which ids are
//! presented.

use serde::Serialize;
use sha2::{Digest, Sha256};

use crate::model::Id;

/// How many hex characters of the sha256 the digest keeps.
pub const DIGEST_HEX_CHARS: usize = 16;

/// `{ids, count, digest}` of the presented neighbours.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct CorpusFingerprint {
    ids: Vec<Id>,
    count: usize,
    digest: String,
}

impl CorpusFingerprint {
    /// The fingerprint of the ids presented to the judge (duplicates and
    /// order do not matter).
    pub fn of(presented: impl IntoIterator<Item = Id>) -> CorpusFingerprint {
        let mut texts: Vec<String> = presented.into_iter().map(|id| id.to_string()).collect();
        texts.sort();
        texts.dedup();
        let digest =
            hex::encode(Sha256::digest(texts.join("\n").as_bytes()))[..DIGEST_HEX_CHARS].to_owned();
        let ids = texts
            .iter()
            .filter_map(|t| t.parse::<Id>().ok())
            .collect::<Vec<_>>();
        CorpusFingerprint {
            count: ids.len(),
            ids,
            digest,
        }
    }

    /// The presented ids, sorted.
    pub fn ids(&self) -> &[Id] {
        &self.ids
    }

    pub fn count(&self) -> usize {
        self.count
    }

    pub fn digest(&self) -> &str {
        &self.digest
    }

    /// Whether `text` is exactly the text of a presented id.
    pub fn contains_text(&self, text: &str) -> bool {
        self.ids
            .binary_search_by(|id| id.to_string().as_str().cmp(text))
            .is_ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn id(s: &str) -> Id {
        s.parse().unwrap()
    }

    #[test]
    fn digest_is_sha256_of_sorted_ids_joined_by_newline() {
        // printf '01KZ45MKAM734ZS7JK24D2DK0R\n01KZ4A1B2C3D4E5F6G7H8J9K0M' | sha256sum | cut -c1-16
        let a = id("01KZ4A1B2C3D4E5F6G7H8J9K0M");
        let b = id("01KZ45MKAM734ZS7JK24D2DK0R");
        let fp = CorpusFingerprint::of([a, b, a]);
        assert_eq!(fp.ids(), &[b, a]);
        assert_eq!(fp.count(), 2);
        assert_eq!(fp.digest(), "3a825b2f49c5b6c0");
        assert_eq!(CorpusFingerprint::of([b, a]), fp, "order does not matter");
        let json = serde_json::to_value(&fp).unwrap();
        assert_eq!(
            json,
            serde_json::json!({
                "ids": ["01KZ45MKAM734ZS7JK24D2DK0R", "01KZ4A1B2C3D4E5F6G7H8J9K0M"],
                "count": 2,
                "digest": "3a825b2f49c5b6c0"
            })
        );
    }

    #[test]
    fn empty_set_digests_the_empty_string() {
        let fp = CorpusFingerprint::of([]);
        assert_eq!((fp.count(), fp.digest()), (0, "e3b0c44298fc1c14"));
        assert!(fp.ids().is_empty());
    }

    #[test]
    fn text_order_is_id_order_and_membership_is_exact() {
        let ids: Vec<Id> = (0..200u64)
            .map(|i| Id::from_parts(1_700_000_000_000 + i * 7919, u128::from(i) * 0x9E37_79B9))
            .collect();
        let fp = CorpusFingerprint::of(ids.iter().rev().copied());
        let mut sorted = ids.clone();
        sorted.sort();
        assert_eq!(fp.ids(), sorted.as_slice());
        for i in &ids {
            assert!(fp.contains_text(&i.to_string()));
            assert!(!fp.contains_text(&i.to_string().to_lowercase()));
        }
        assert!(!fp.contains_text(""));
    }
}
