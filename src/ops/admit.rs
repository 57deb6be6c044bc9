//! The content policy at the doors that read history: `verify`, `sync`,
//! the host's pre-receive check and `verify --pool` all read each entry a
//! commit writes through [`entry`] (called from the audit's per-commit
//! check), so they refuse the same entries for the same named rule.
//!
//! It reads what the rules need from the store — the entry's size from
//! its object header first, so an oversized entry is refused without being
//! inflated — and asks [`crate::content::record`], which owns the rules. It
//! decides nothing itself and never prints.

use serde_json::Value;

use super::LoreError;
use crate::content::record::{self, Violation};
use crate::store::{ChangedPath, Store};

/// Reads the entry `change` writes under the content policy: everything
/// the policy refuses about it (its mode, path and size,
/// [`record::check_entry`], before it is read; then its text,
/// [`record::check_record`]), or the entry as JSON (`None` for a deletion,
/// a file that is not `*.json`, or bytes that are not JSON, which the
/// caller's schema check reports).
pub(crate) fn entry(
    store: &Store,
    change: &ChangedPath,
) -> Result<Result<Option<Value>, Vec<Violation>>, LoreError> {
    let Some(blob) = change.new else {
        return Ok(Ok(None));
    };
    // A submodule's id names a commit this repository may not have: its
    // mode is refused before anything is read.
    let size = if change.mode == record::REGULAR_FILE {
        store.object_size(blob)?
    } else {
        0
    };
    if let Err(v) = record::check_entry(&change.path, change.mode, size) {
        return Ok(Err(vec![v]));
    }
    if !change.path.ends_with(".json") {
        return Ok(Ok(None));
    }
    let Ok(value) = serde_json::from_slice::<Value>(&store.blob(blob)?) else {
        return Ok(Ok(None));
    };
    let refused = record::check_value(&change.path, &value);
    Ok(if refused.is_empty() {
        Ok(Some(value))
    } else {
        Err(refused)
    })
}
