//! The audit trail: reading history back as events (`git lore log`) and
//! checking it (`git lore verify`, and the same checks for `sync`,
//! `publish`, a pool host's pre-receive hook and every write's
//! [`crate::ops::trust::ensure`]).
//!
//! - `policy.rs`: whose keys count ([`Policy`]): a commit is trusted when
//!   its signature is good for a key in the allowed signers in force at its
//!   parent — the repository's own file for the ledger, the pool's
//!   `.lore/allowed_signers` for a pool. A pool's root commit is anchored in
//!   the policy's root signers: the repository's own keys and the keys
//!   pinned for the pool's remote (`remote add --signer`), or a host's root
//!   signers. Checked locally, this repository's own keys are trusted on
//!   every pool (it is the user's machine); checked for a remote
//!   (`publish`, `sync`, a host), only the pool's own list counts.
//! - `commit.rs`: the rules of one commit: its signature, then its
//!   [`crate::event::Event`] against what it changed — the event's rule
//!   (which branch, whether it may be a branch's first commit, exactly which
//!   files), every record valid, and the action's own check
//!   ([`crate::event::Event::check`], in its unit under `src/event/`).
//! - `merge.rs`: merges. A merge commit is accepted whatever its signer when
//!   it is a pure merge: both parents are trusted and its tree is exactly
//!   the clean merge of them. A `sync` merge (one that resolved entries both
//!   sides changed) must be signed by a trusted key, and its tree must be
//!   exactly what resolving the two parents gives ([`plan_merge`], which
//!   `sync` also builds its merges with).
//! - `range.rs`: ranges of commits: [`check_commits`] (each commit's own
//!   checks on every core, then whether each merge's parents are trusted),
//!   [`verify`]'s scopes, and [`standing`], the commits since a branch's
//!   anchor.
//! - `log.rs`: `git lore log` and the record diffs it shows.
//!
//! This module reads the repository through the store and decides; it
//! neither writes records nor prints.

mod commit;
mod log;
mod merge;
mod policy;
mod range;

pub use self::log::{log, record_diffs, LogEntry, LogFilter, RecordDiff};
pub(crate) use self::merge::{plan_merge, status_of};
pub use self::merge::{MergePlan, Resolution};
pub(crate) use self::policy::pins;
pub use self::policy::{pins_path, Policy};
pub(crate) use self::range::{check_commits, standing};
pub use self::range::{verify, Problem, Scope, Standing, Verified};
