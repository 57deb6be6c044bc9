//! Reading lessons back: one proposal by id, and proposals by status.

use super::{Lore, LoreError};
use crate::model::{Id, Proposal, ProposalStatus};
use crate::store::{layout, Branch, Index, StoreError};

/// Reads the proposal envelope of lesson `id` from the ledger tip.
pub fn read_proposal(lore: &Lore, id: Id) -> Result<Option<Proposal>, LoreError> {
    let path = layout::proposal_path(id);
    match lore.store.read(Branch::Ledger, &path)? {
        None => Ok(None),
        Some(bytes) => serde_json::from_slice(&bytes).map(Some).map_err(|e| {
            StoreError::CorruptRecord {
                branch: "ledger".into(),
                path,
                why: e.to_string(),
            }
            .into()
        }),
    }
}

/// The proposal of `id`, or the upstream refusal `lesson <id> not found`.
pub fn proposal(lore: &Lore, id: Id) -> Result<Proposal, LoreError> {
    read_proposal(lore, id)?.ok_or_else(|| LoreError::Refused(format!("lesson {id} not found")))
}

/// Every proposal in `status`, oldest first (by `created_at`, then id). The
/// index names the candidates, so only those records are read. A record
/// that does not parse is skipped, never fatal.
pub fn list(lore: &Lore, status: ProposalStatus) -> Result<Vec<Proposal>, LoreError> {
    let index = Index::load(&lore.store)?;
    let mut out = Vec::new();
    for (id, entry) in index.lessons() {
        if entry.status != status {
            continue;
        }
        if let Ok(Some(p)) = read_proposal(lore, id) {
            if p.status == status {
                out.push(p);
            }
        }
    }
    out.sort_by(|a, b| a.created_at.cmp(&b.created_at).then(a.id.cmp(&b.id)));
    Ok(out)
}

/// How many proposals are in each status.
pub fn counts(lore: &Lore) -> Result<Vec<(ProposalStatus, usize)>, LoreError> {
    let index = Index::load(&lore.store)?;
    let mut counts: Vec<(ProposalStatus, usize)> =
        ProposalStatus::ALL.iter().map(|s| (*s, 0)).collect();
    for (_, e) in index.lessons() {
        if let Some(c) = counts.iter_mut().find(|(s, _)| *s == e.status) {
            c.1 += 1;
        }
    }
    Ok(counts)
}
