//! The content policy at the doors that read history: `verify`, `sync`,
//! the host's pre-receive check and `verify --pool` all check each entry a
//! commit writes through [`entry`] (called from the audit's per-commit
//! check), so they refuse the same entries for the same named rule.
//!
//! It reads what the rules need from the store — the entry's size from
//! its object header first, so an oversized entry is refused without being
//! inflated — and asks [`crate::content::record`], which owns the rules. It
//! decides nothing itself and never prints.

use super::LoreError;
use crate::content::record::{self, Violation};
use crate::store::{ChangedPath, Store};

/// Everything the content policy refuses about the entry `change` writes:
/// its mode, path and size ([`record::check_entry`]), then its text
/// ([`record::check_record`]). Empty for a deletion and for an entry that
/// breaks no rule.
pub(crate) fn entry(store: &Store, change: &ChangedPath) -> Result<Vec<Violation>, LoreError> {
    let Some(blob) = change.new else {
        return Ok(Vec::new());
    };
    // A submodule's id names a commit this repository may not have: its
    // mode is refused before anything is read.
    let size = if change.mode == record::REGULAR_FILE {
        store.object_size(blob)?
    } else {
        0
    };
    if let Err(v) = record::check_entry(&change.path, change.mode, size) {
        return Ok(vec![v]);
    }
    if !record::has_text_rules(&change.path) {
        return Ok(Vec::new());
    }
    Ok(record::check_record(&change.path, &store.blob(blob)?))
}
