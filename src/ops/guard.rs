//! What may leave the machine: the check behind the pre-push hook.
//!
//! The ledger (every proposal, decline and verdict) and `pool/local` (private
//! lessons) never leave the machine, whatever ref, tag, object id or
//! revision expression names them. They are histories of their own, so a
//! pushed commit carries private content exactly when its history reaches
//! the root of either; a commit whose tree holds ledger records
//! (`proposals/`, `declined/`) is refused too, however it was made. Only
//! commits may be pushed: a tree or a blob of the repository could be
//! anything. Deleting a remote ref is always allowed.
//!
//! Client hooks can be skipped (`git push --no-verify`, `core.hooksPath`);
//! the pool host's pre-receive check is the other half.

use std::collections::HashSet;

use gix::ObjectId;

use super::{Lore, LoreError};
use crate::model::Source;
use crate::store::{Branch, ObjectKind};

/// One line of what git hands a pre-push hook.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PushUpdate {
    pub local_ref: String,
    /// `None`: the remote ref is being deleted.
    pub local: Option<ObjectId>,
    pub remote_ref: String,
}

/// A push that must not happen, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Refusal {
    pub local_ref: String,
    pub remote_ref: String,
    pub why: String,
}

/// The branches whose history never leaves the machine.
const PRIVATE: [Branch; 2] = [Branch::Ledger, Branch::Pool(Source::Local)];

/// Top-level directories that only the ledger holds.
const LEDGER_DIRS: [&str; 2] = ["proposals", "declined"];

/// Reads git's pre-push input: `<local ref> <local sha> <remote ref>
/// <remote sha>` per line.
pub fn parse_pre_push(text: &str) -> Result<Vec<PushUpdate>, LoreError> {
    let bad = |line: &str| LoreError::Input {
        what: "pre-push input".into(),
        why: format!(
            "not `<local ref> <sha> <remote ref> <sha>`: {:?}",
            clip(line)
        ),
    };
    let mut out = Vec::new();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let f: Vec<&str> = line.split(' ').collect();
        let [local_ref, local, remote_ref, _remote] = f[..] else {
            return Err(bad(line));
        };
        let local = ObjectId::from_hex(local.as_bytes()).map_err(|_| bad(line))?;
        out.push(PushUpdate {
            local_ref: local_ref.to_owned(),
            local: (!local.is_null()).then_some(local),
            remote_ref: remote_ref.to_owned(),
        });
    }
    Ok(out)
}

fn clip(s: &str) -> String {
    s.chars().take(120).collect()
}

/// Every update in `updates` that would send private content.
pub fn check_push(lore: &Lore, updates: &[PushUpdate]) -> Result<Vec<Refusal>, LoreError> {
    let mut private_roots: Vec<(ObjectId, Branch)> = Vec::new();
    for b in PRIVATE {
        if let Some(tip) = lore.store.tip(b)? {
            for root in lore.store.roots(tip)? {
                private_roots.push((root, b));
            }
        }
    }
    let mut refusals = Vec::new();
    for u in updates {
        let Some(local) = u.local else { continue };
        if let Some(why) = private_content(lore, local, &private_roots)? {
            refusals.push(Refusal {
                local_ref: u.local_ref.clone(),
                remote_ref: u.remote_ref.clone(),
                why,
            });
        }
    }
    Ok(refusals)
}

/// Why pushing `id` would send private content, if it would.
fn private_content(
    lore: &Lore,
    id: ObjectId,
    private_roots: &[(ObjectId, Branch)],
) -> Result<Option<String>, LoreError> {
    let Some((kind, commit)) = lore.store.peel(id)? else {
        return Ok(Some(format!("object {id} is not in the repository")));
    };
    if kind != ObjectKind::Commit {
        return Ok(Some(format!(
            "it names a {kind}, and only commits of pool/org and pool/public may be pushed"
        )));
    }
    let history = lore.store.ancestors(commit)?;
    let reached: HashSet<&ObjectId> = history.iter().collect();
    if let Some((_, branch)) = private_roots.iter().find(|(r, _)| reached.contains(r)) {
        return Ok(Some(format!(
            "its history is the history of {branch}, which never leaves this machine"
        )));
    }
    for c in history {
        if let Some(dir) = lore
            .store
            .top_level(c)?
            .into_iter()
            .find(|n| LEDGER_DIRS.contains(&n.as_str()))
        {
            return Ok(Some(format!(
                "commit {} holds ledger records ({dir}/), which never leave this machine",
                &c.to_string()[..12]
            )));
        }
    }
    Ok(None)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pre_push_lines_are_read_strictly() {
        let zero = "0".repeat(40);
        let a = "a".repeat(40);
        let text = format!(
            "refs/heads/pool/org {a} refs/heads/pool/org {zero}\n(delete) {zero} refs/heads/x {a}\n"
        );
        let u = parse_pre_push(&text).unwrap();
        assert_eq!(u.len(), 2);
        assert_eq!(u[0].local, Some(ObjectId::from_hex(a.as_bytes()).unwrap()));
        assert_eq!(u[1].local, None);
        assert!(parse_pre_push("refs/heads/x abc refs/heads/x").is_err());
        assert!(parse_pre_push(&format!("a {a} b {a} extra")).is_err());
    }
}
