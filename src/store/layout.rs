//! Where records live: branch names and fan-out paths.
//!
//! `X`/`Y` are the last two characters of a ULID — its random part — one
//! directory level each, so 32 × 32 even buckets keep every tree small at any
//! size. This module only names things; it reads and writes nothing.

use crate::model::{Id, Source};

/// A lore branch.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Branch {
    /// `refs/heads/ledger`: proposals, their lifecycle, declines. Never pushed.
    Ledger,
    /// `refs/heads/pool/<source>`: promoted lessons of one tier.
    Pool(Source),
}

impl Branch {
    /// Every lore branch, ledger first.
    pub const ALL: &'static [Branch] = &[
        Branch::Ledger,
        Branch::Pool(Source::Local),
        Branch::Pool(Source::Org),
        Branch::Pool(Source::Public),
    ];

    /// The short name, as users type it (`ledger`, `pool/org`).
    pub fn name(self) -> &'static str {
        match self {
            Branch::Ledger => "ledger",
            Branch::Pool(Source::Local) => "pool/local",
            Branch::Pool(Source::Org) => "pool/org",
            Branch::Pool(Source::Public) => "pool/public",
        }
    }

    /// The full ref name.
    pub fn ref_name(self) -> String {
        format!("refs/heads/{}", self.name())
    }

    /// Parses a short or full branch name.
    pub fn parse(s: &str) -> Option<Branch> {
        let short = s.strip_prefix("refs/heads/").unwrap_or(s);
        Branch::ALL.iter().copied().find(|b| b.name() == short)
    }
}

impl std::fmt::Display for Branch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

fn fanned(dir: &str, id: Id) -> String {
    let (x, y) = id.fanout();
    format!("{dir}/{x}/{y}/{id}.json")
}

/// `proposals/<X>/<Y>/<LESSON>.json` on the ledger.
pub fn proposal_path(lesson: Id) -> String {
    fanned("proposals", lesson)
}

/// `declined/<X>/<Y>/<ARTIFACT>.json` on the ledger.
pub fn decline_path(artifact: Id) -> String {
    fanned("declined", artifact)
}

/// `lessons/<X>/<Y>/<LESSON>.json` on a pool.
pub fn lesson_path(lesson: Id) -> String {
    fanned("lessons", lesson)
}

/// The allowed-signers file a pool carries (the `config` action's, named
/// there).
pub const POOL_ALLOWED_SIGNERS: &str = crate::event::signers::ALLOWED;

/// The rubrics file on the ledger (a `config` commit changes it).
pub const RUBRICS_PATH: &str = crate::event::RUBRICS;

/// What kind of record a path holds, and whose id it is named by.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RecordPath {
    Proposal(Id),
    Decline(Id),
    Lesson(Id),
}

/// Classifies a path written by git-lore; `None` for anything else
/// (including a record at the wrong bucket).
pub fn classify(path: &str) -> Option<RecordPath> {
    let mut parts = path.split('/');
    let (dir, x, y, file) = (parts.next()?, parts.next()?, parts.next()?, parts.next()?);
    if parts.next().is_some() {
        return None;
    }
    let id: Id = file.strip_suffix(".json")?.parse().ok()?;
    let (ex, ey) = id.fanout();
    if x.len() != 1 || y.len() != 1 || x.chars().next()? != ex || y.chars().next()? != ey {
        return None;
    }
    match dir {
        "proposals" => Some(RecordPath::Proposal(id)),
        "declined" => Some(RecordPath::Decline(id)),
        "lessons" => Some(RecordPath::Lesson(id)),
        _ => None,
    }
}

/// Whether a record path is safe to write: relative, no empty, `.` or `..`
/// components, only `[A-Za-z0-9._-]` in each component.
pub fn is_safe_path(path: &str) -> bool {
    !path.is_empty()
        && path.len() <= 256
        && path.split('/').all(|c| {
            !c.is_empty()
                && c != "."
                && c != ".."
                && c.bytes()
                    .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-'))
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_fan_out_on_the_random_part() {
        let id: Id = "01KZ45MKAM734ZS7JK24D2DK0R".parse().unwrap();
        assert_eq!(
            proposal_path(id),
            "proposals/0/R/01KZ45MKAM734ZS7JK24D2DK0R.json"
        );
        assert_eq!(classify(&proposal_path(id)), Some(RecordPath::Proposal(id)));
        assert_eq!(classify(&lesson_path(id)), Some(RecordPath::Lesson(id)));
        assert_eq!(
            classify("proposals/0/Q/01KZ45MKAM734ZS7JK24D2DK0R.json"),
            None
        );
        assert_eq!(classify("proposals/01KZ45MKAM734ZS7JK24D2DK0R.json"), None);
    }

    #[test]
    fn unsafe_paths_are_refused() {
        for bad in [
            "", "/abs", "a//b", "../x", "a/../b", "a/./b", "a b", "a\nb", "é",
        ] {
            assert!(!is_safe_path(bad), "{bad:?}");
        }
        assert!(is_safe_path(".lore/allowed_signers"));
    }
}
