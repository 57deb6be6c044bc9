//! The rubrics in force: `.lore/rubrics.json` on the ledger when a `config`
//! commit put one there, else the builtins.

use serde_json::Value;

use super::{Lore, LoreError};
use crate::event::{ConfigTopic, Event};
use crate::model::canonical_json;
use crate::review::RubricSet;
use crate::store::{layout, Branch, Change, CommitSpec};

/// The rubrics in force.
pub fn rubrics(lore: &Lore) -> Result<RubricSet, LoreError> {
    match lore.store.read(Branch::Ledger, layout::RUBRICS_PATH)? {
        None => Ok(RubricSet::builtin()),
        Some(bytes) => RubricSet::parse(&String::from_utf8_lossy(&bytes))
            .map_err(|e| LoreError::invalid(format!("{} on the ledger", layout::RUBRICS_PATH), e)),
    }
}

/// Validates `text` as a rubrics file and commits it to the ledger (a
/// `config` commit, audited like any verdict). `false` when the same
/// rubrics are already in force.
pub fn set_rubrics(lore: &mut Lore, text: &str) -> Result<bool, LoreError> {
    let refused = |e: super::Cause| LoreError::invalid("rubrics file refused", e);
    let set = RubricSet::parse(text).map_err(|e| refused(e.into()))?;
    let value: Value = serde_json::from_str(text).map_err(|e| refused(e.into()))?;
    let bytes = canonical_json(&value);
    let r = lore.transact(Branch::Ledger, |tx| {
        if tx.read(layout::RUBRICS_PATH)?.as_deref() == Some(bytes.as_slice()) {
            return Ok(false);
        }
        let ids: Vec<&str> = set.rubrics().iter().map(|r| r.id.as_str()).collect();
        tx.commit(CommitSpec::new(
            &format!("config: rubrics {}", ids.join(", ")),
            None,
            Event::Config {
                topic: ConfigTopic::Rubrics,
            },
            vec![Change::Put {
                path: layout::RUBRICS_PATH.into(),
                bytes: bytes.clone(),
            }],
        )?)?;
        Ok(true)
    })?;
    Ok(r.value)
}
