//! Where records live: branch names and fan-out paths.
//!
//! `X`/`Y`/`Z` are the last three characters of a ULID — its random part —
//! one directory level each, so 32 × 32 × 32 even buckets keep every tree
//! small at any size: a million records are about 30 to a leaf. This module
//! only names things; it reads and writes nothing.

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
    format!("{dir}/{}/{id}.json", id.bucket())
}

/// `proposals/<X>/<Y>/<Z>/<LESSON>.json` on the ledger.
pub fn proposal_path(lesson: Id) -> String {
    fanned("proposals", lesson)
}

/// `declined/<X>/<Y>/<Z>/<ARTIFACT>.json` on the ledger.
pub fn decline_path(artifact: Id) -> String {
    fanned("declined", artifact)
}

/// `lessons/<X>/<Y>/<Z>/<LESSON>.json` on a pool.
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
    let parts: Vec<&str> = path.split('/').collect();
    let [dir, x, y, z, file] = parts.as_slice() else {
        return None;
    };
    let id: Id = file.strip_suffix(".json")?.parse().ok()?;
    if !id.in_bucket(&[x, y, z]) {
        return None;
    }
    match *dir {
        "proposals" => Some(RecordPath::Proposal(id)),
        "declined" => Some(RecordPath::Decline(id)),
        "lessons" => Some(RecordPath::Lesson(id)),
        _ => None,
    }
}

/// Whether `path` is a record at the two-level fan-out of builds before the
/// three-level one (`proposals/<Y>/<Z>/<ID>.json`, `relations/<Y>/<Z>/<FROM>/…`):
/// no record to this build, but named as what it is when refused.
pub fn is_two_level_record(path: &str) -> bool {
    let parts: Vec<&str> = path.split('/').collect();
    let id = match parts.as_slice() {
        ["proposals" | "declined" | "lessons" | "related", _, _, file] => {
            file.strip_suffix(".json")
        }
        ["relations" | "counter-observations" | "upheld", _, _, id, _] => Some(*id),
        _ => None,
    };
    let Some(id) = id.and_then(|id| id.parse::<Id>().ok()) else {
        return false;
    };
    let [_, y, z] = id.fanout();
    parts[1].len() == 1 && parts[1].starts_with(y) && parts[2].len() == 1 && parts[2].starts_with(z)
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
            "proposals/K/0/R/01KZ45MKAM734ZS7JK24D2DK0R.json"
        );
        assert_eq!(classify(&proposal_path(id)), Some(RecordPath::Proposal(id)));
        assert_eq!(classify(&lesson_path(id)), Some(RecordPath::Lesson(id)));
        assert_eq!(classify(&decline_path(id)), Some(RecordPath::Decline(id)));
        for bad in [
            "proposals/K/0/Q/01KZ45MKAM734ZS7JK24D2DK0R.json",
            "proposals/0/K/R/01KZ45MKAM734ZS7JK24D2DK0R.json",
            "proposals/0/R/01KZ45MKAM734ZS7JK24D2DK0R.json",
            "proposals/X/K/0/R/01KZ45MKAM734ZS7JK24D2DK0R.json",
            "proposals/01KZ45MKAM734ZS7JK24D2DK0R.json",
            "elsewhere/K/0/R/01KZ45MKAM734ZS7JK24D2DK0R.json",
        ] {
            assert_eq!(classify(bad), None, "{bad}");
        }
    }

    #[test]
    fn a_record_at_the_two_level_fan_out_is_named_as_such() {
        for old in [
            "proposals/0/R/01KZ45MKAM734ZS7JK24D2DK0R.json",
            "lessons/0/R/01KZ45MKAM734ZS7JK24D2DK0R.json",
            "relations/0/R/01KZ45MKAM734ZS7JK24D2DK0R/01KZ4A1B2C3D4E5F6G7H8J9K0M.json",
        ] {
            assert!(is_two_level_record(old), "{old}");
            assert_eq!(classify(old), None, "{old}");
        }
        for other in [
            "proposals/K/0/R/01KZ45MKAM734ZS7JK24D2DK0R.json",
            "proposals/0/Q/01KZ45MKAM734ZS7JK24D2DK0R.json",
            "notes/0/R/01KZ45MKAM734ZS7JK24D2DK0R.json",
            "proposals/0/R/x.json",
        ] {
            assert!(!is_two_level_record(other), "{other}");
        }
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
