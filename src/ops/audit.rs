//! The audit trail: reading history back as events (`git lore log`) and
//! checking it (`git lore verify`).
//!
//! A commit is trusted when its signature is good for a key in the allowed
//! signers in force at its parent: the repository's own file for the ledger,
//! the pool's `.lore/allowed_signers` for a pool. A pool's root commit is
//! anchored in the [`Policy`]'s root signers: the repository's own keys and
//! the keys pinned for the pool's remote (`remote add --signer`), or a
//! host's root signers. Checked locally, this repository's own keys are
//! trusted on every pool (it is the user's machine); checked for a remote
//! (`publish`, `sync`, a host), only the pool's own list counts.
//!
//! A merge commit is accepted whatever its signer when it is a pure merge:
//! both parents are trusted and its tree is exactly the clean merge of them.
//! A `sync` merge (one that resolved entries both sides changed) must be
//! signed by a trusted key, and its tree must be exactly what resolving the
//! two parents gives ([`crate::review::sync`]).
//!
//! Beyond signatures, every commit's [`Event`] is checked against what the
//! commit changed: the event's [`crate::event::Rule`] (which branch, whether
//! it may be a branch's first commit, exactly which files it may touch),
//! schema validity of every record written, and one small check per event
//! (statuses agree with the trailers and the move is legal, ids and reasons
//! agree with the records). The relation actions' checks are in
//! `audit/relation.rs`.

use std::collections::HashMap;

use gix::ObjectId;
use serde_json::Value;

use super::{Env, Lore, LoreError};
use crate::event::check::{Commit, Name, Record, Repo, Side};
use crate::event::{CommitRef, Event, Op, PathKind, Root, RUBRICS};
use crate::model::{Id, Source};
use crate::review::relation::records::{self, RelationPath};
use crate::review::RubricSet;
use crate::schema::{self, SchemaKind};
use crate::signing::{self, AllowedSigners, SignatureStatus};
use crate::store::layout::{self, RecordPath, POOL_ALLOWED_SIGNERS};
use crate::store::{Branch, ChangedPath, CommitInfo, Store};
use crate::trailers::TrailerError;

/// One commit, as `git lore log` shows it.
#[derive(Clone, Debug)]
pub struct LogEntry {
    pub commit: ObjectId,
    pub branch: Branch,
    /// Committer time, seconds since the epoch.
    pub time: i64,
    pub subject: String,
    /// What it did, or why its trailers could not be read.
    pub event: Result<Event, TrailerError>,
    pub signature: SignatureStatus,
}

/// One thing wrong with one commit.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Problem {
    pub commit: String,
    pub branch: String,
    pub problem: String,
}

/// Whose signatures a check trusts beyond each pool's own list.
#[derive(Clone, Debug, Default)]
pub struct Policy {
    /// Keys that may sign each pool's first commit (the repository's own
    /// keys are added when [`Policy::own_keys`] is set).
    pub roots: HashMap<Source, AllowedSigners>,
    /// Whether this repository's own keys (its ledger signers) are trusted
    /// everywhere: true for local checks, false for what goes to or comes
    /// from a remote.
    pub own_keys: bool,
    /// The ledger's signers, when there is a ledger (not on a host).
    pub ledger: AllowedSigners,
}

impl Policy {
    /// The local policy: own keys everywhere, roots pinned per remote.
    pub(crate) fn local(store: &Store, env: &Env) -> Result<Policy, LoreError> {
        Ok(Policy {
            roots: super::remote::pins(store)?,
            own_keys: true,
            ledger: super::ledger_allowed_signers(store, env)?,
        })
    }

    /// The policy for history shared with a remote: each pool's own list,
    /// roots signed by our own or pinned keys.
    pub(crate) fn remote(store: &Store, env: &Env) -> Result<Policy, LoreError> {
        Ok(Policy {
            own_keys: false,
            ..Policy::local(store, env)?
        })
    }

    fn root_signers(&self, tier: Source) -> AllowedSigners {
        let pinned = self.roots.get(&tier).cloned().unwrap_or_default();
        pinned.union(&self.ledger)
    }
}

/// Caches allowed-signers lists by the file they are read from: a pool's
/// `.lore/allowed_signers` changes rarely, so the commits of a long history
/// share a handful of files. Each commit's parent is still looked up (its
/// tree's entry for the file), only the parsing is shared.
struct Trust<'a> {
    store: &'a Store,
    policy: &'a Policy,
    /// The root signers of each pool, and the list each blob id (or no
    /// file: `None`) of each pool gives.
    pool_files: HashMap<(Source, SignersAt), AllowedSigners>,
}

/// Where a pool commit's allowed signers come from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum SignersAt {
    /// A root commit: the policy's root signers.
    Root,
    /// The file at the first parent: its blob id, `None` when there is none.
    File(Option<ObjectId>),
}

impl<'a> Trust<'a> {
    fn new(store: &'a Store, policy: &'a Policy) -> Trust<'a> {
        Trust {
            store,
            policy,
            pool_files: HashMap::new(),
        }
    }

    fn allowed_for(
        &mut self,
        branch: Branch,
        info: &CommitInfo,
    ) -> Result<&AllowedSigners, LoreError> {
        let tier = match branch {
            Branch::Pool(tier) => tier,
            Branch::Ledger => return Ok(&self.policy.ledger),
        };
        let at = match info.parents.first() {
            None => SignersAt::Root,
            Some(p) => SignersAt::File(
                self.store
                    .blob_id_in_tree(self.store.tree_of(*p)?, POOL_ALLOWED_SIGNERS)?,
            ),
        };
        let key = (tier, at);
        if !self.pool_files.contains_key(&key) {
            let list = match at {
                SignersAt::Root => self.policy.root_signers(tier),
                SignersAt::File(blob) => {
                    let text = match blob {
                        Some(id) => String::from_utf8_lossy(&self.store.blob(id)?).into_owned(),
                        None => String::new(),
                    };
                    let list = AllowedSigners::parse(&text).unwrap_or_default();
                    if self.policy.own_keys {
                        list.union(&self.policy.ledger)
                    } else {
                        list
                    }
                }
            };
            self.pool_files.insert(key, list);
        }
        Ok(&self.pool_files[&key])
    }

    fn status(&mut self, branch: Branch, info: &CommitInfo) -> Result<SignatureStatus, LoreError> {
        let Some(sig) = &info.signature else {
            return Ok(SignatureStatus::Unsigned);
        };
        let at = jiff::Timestamp::from_second(info.time).ok();
        let allowed = self.allowed_for(branch, info)?;
        Ok(signing::verify_ssh(&info.payload, sig, allowed, at))
    }
}

/// What to show in the log.
#[derive(Clone, Copy, Debug)]
pub enum LogFilter {
    All,
    Lesson(Id),
    Artifact(Id),
}

/// The audit trail, newest first.
pub fn log(
    lore: &Lore,
    filter: LogFilter,
    limit: Option<usize>,
) -> Result<Vec<LogEntry>, LoreError> {
    let mut kept = Vec::new();
    for (branch, id) in lore.store.all_commits()? {
        let info = lore.store.commit_info(id)?;
        let e = info.event.as_ref().ok();
        let keep = match filter {
            LogFilter::All => true,
            LogFilter::Lesson(l) => {
                e.is_some_and(|e| e.lesson() == Some(l) || e.entries_changed().contains(&l))
            }
            LogFilter::Artifact(a) => e.is_some_and(|e| e.artifact() == Some(a)),
        };
        if keep {
            kept.push((branch, info));
        }
    }
    // Newest first across branches; a stable sort keeps each branch's own
    // order (children before parents) among commits of the same second.
    kept.sort_by_key(|(_, info)| std::cmp::Reverse(info.time));
    kept.truncate(limit.unwrap_or(usize::MAX));
    let policy = Policy::local(&lore.store, &lore.env)?;
    let mut trust = Trust::new(&lore.store, &policy);
    let mut out = Vec::with_capacity(kept.len());
    for (branch, info) in kept {
        out.push(LogEntry {
            commit: info.id,
            branch,
            time: info.time,
            signature: trust.status(branch, &info)?,
            subject: info.subject,
            event: info.event,
        });
    }
    Ok(out)
}

/// Which commits `verify` checks.
#[derive(Clone, Debug)]
pub enum Scope {
    /// Every commit of every lore branch.
    All,
    /// A revision and its ancestors.
    Rev(String),
    /// `A..B`: commits reachable from `B` but not from `A`.
    Range(String, String),
}

/// What `verify` found.
#[derive(Clone, Debug)]
pub struct Verified {
    /// How many commits were checked.
    pub commits: usize,
    /// Everything wrong; empty when history is clean.
    pub problems: Vec<Problem>,
}

/// Checks the commits of `scope`. An empty list of problems means the
/// history is clean.
pub fn verify(lore: &Lore, scope: &Scope) -> Result<Verified, LoreError> {
    let all = lore.store.all_commits()?;
    let branch_of: HashMap<ObjectId, Branch> = all.iter().map(|(b, c)| (*c, *b)).collect();
    let bad_rev = |rev: &str, e: crate::store::StoreError| LoreError::Input {
        what: format!("bad revision {rev:?}"),
        why: e.to_string(),
    };
    let ids = match scope {
        Scope::All => None,
        Scope::Rev(r) => {
            let tip = lore.store.resolve(r).map_err(|e| bad_rev(r, e))?;
            Some(lore.store.ancestors(tip)?)
        }
        Scope::Range(a, b) => {
            let from = lore.store.resolve(a).map_err(|e| bad_rev(a, e))?;
            let to = lore.store.resolve(b).map_err(|e| bad_rev(b, e))?;
            Some(lore.store.range(to, &[from])?)
        }
    };
    let list: Vec<(Branch, ObjectId)> = match ids {
        Some(ids) => ids
            .into_iter()
            .map(|c| (branch_of.get(&c).copied().unwrap_or(Branch::Ledger), c))
            .collect(),
        None => all,
    };
    let policy = Policy::local(&lore.store, &lore.env)?;
    let mut problems = check_commits(&lore.store, &policy, &list)?;
    if let Scope::All = scope {
        // History that moved backwards, and anchors to bring up to date.
        for &branch in Branch::ALL {
            let tip = lore.store.tip(branch)?;
            match super::trust::standing(&lore.store, &lore.env, branch, tip)? {
                super::trust::Standing::Rewritten { from, to, dropped } => problems.push(Problem {
                    commit: to.map(|t| t.to_string()).unwrap_or_default(),
                    branch: branch.to_string(),
                    problem: format!(
                        "{branch} moved from {} to {}, {dropped} commits dropped (accept it with `git lore index --accept-rewrite` if it was intended)",
                        super::short(&from),
                        to.as_ref().map(super::short).unwrap_or_else(|| "nothing".into())
                    ),
                }),
                // Unverified commits are in `problems` already.
                super::trust::Standing::Unverified { .. } | super::trust::Standing::Verified => {}
            }
        }
    }
    Ok(Verified {
        commits: list.len(),
        problems,
    })
}

/// What one commit's own checks found, before its parents' trust is known.
struct Own {
    id: ObjectId,
    branch: Branch,
    parents: Vec<ObjectId>,
    /// Signed by a key allowed at its parent.
    signed: bool,
    /// A merge accepted if its parents are (a pure merge, or a clean
    /// `sync` merge by an allowed key); `None` for a single-parent commit.
    merge_ok: Option<bool>,
    found: Vec<String>,
}

/// Below this many commits the checks run on one thread.
const PARALLEL_FROM: usize = 256;

/// Checks `commits` (newest first, each with the branch it is on): the
/// signature, the event against what the commit changed, every record
/// written. A merge's parent that is not in the list counts as trusted: it
/// was checked before.
///
/// Each commit's own checks are independent, so they run on every core
/// (each thread with its own repository handle and signer cache); whether
/// a merge's parents are trusted is then decided oldest first.
pub(crate) fn check_commits(
    store: &Store,
    policy: &Policy,
    commits: &[(Branch, ObjectId)],
) -> Result<Vec<Problem>, LoreError> {
    // Oldest first, so a merge's parents are judged before the merge.
    let oldest_first: Vec<(Branch, ObjectId)> = commits.iter().rev().copied().collect();
    let threads = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1)
        .clamp(1, 8);
    let own: Vec<Own> = if threads == 1 || oldest_first.len() < PARALLEL_FROM {
        check_own(store, policy, &oldest_first)?
    } else {
        let chunk = oldest_first.len().div_ceil(threads);
        let results: Vec<Result<Vec<Own>, LoreError>> = std::thread::scope(|scope| {
            let handles: Vec<_> = oldest_first
                .chunks(chunk)
                .map(|part| {
                    let local = store.handle();
                    scope.spawn(move || check_own(&local, policy, part))
                })
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().expect("a verification thread panicked"))
                .collect()
        });
        let mut all = Vec::with_capacity(oldest_first.len());
        for r in results {
            all.extend(r?);
        }
        all
    };
    let mut problems = Vec::new();
    let mut trusted: HashMap<ObjectId, bool> = HashMap::new();
    for o in own {
        let mut found = o.found;
        let good = match o.merge_ok {
            None => o.signed,
            Some(ok) => {
                let parents_trusted = o.parents.iter().all(|p| trusted.get(p) != Some(&false));
                let good = ok && parents_trusted;
                if !good && found.is_empty() {
                    found.push(if !parents_trusted {
                        "merge commit merges a commit that does not verify".into()
                    } else if o.signed {
                        "merge commit adds changes of its own: only a pure merge, or a sync merge that resolves entries both sides changed, is accepted".into()
                    } else {
                        "merge commit is not signed by an allowed signer and is not a pure merge of trusted parents".into()
                    });
                }
                good
            }
        };
        trusted.insert(o.id, good && found.is_empty());
        problems.extend(found.into_iter().map(|p| Problem {
            commit: o.id.to_string(),
            branch: o.branch.to_string(),
            problem: p,
        }));
    }
    Ok(problems)
}

/// The checks of each commit that do not depend on other commits.
fn check_own(
    store: &Store,
    policy: &Policy,
    oldest_first: &[(Branch, ObjectId)],
) -> Result<Vec<Own>, LoreError> {
    let mut trust = Trust::new(store, policy);
    let mut out = Vec::with_capacity(oldest_first.len());
    for (branch, id) in oldest_first {
        let info = store.commit_info(*id)?;
        let mut found: Vec<String> = Vec::new();
        let status = trust.status(*branch, &info)?;
        let signed_by = match &status {
            SignatureStatus::Good { fingerprint, .. } => Some(fingerprint.clone()),
            _ => None,
        };
        let merge_ok = if info.parents.len() > 1 {
            Some(match (&info.event, *branch) {
                (Ok(Event::Sync { pool, resolved }), Branch::Pool(tier)) if signed_by.is_some() => {
                    if *pool != tier {
                        found.push(format!("sync: Lore-Pool {pool} does not match {branch}"));
                    }
                    found.extend(super::sync::check_merge(store, tier, &info, resolved)?);
                    found.is_empty()
                }
                _ => is_pure_merge(store, &info)?,
            })
        } else {
            if signed_by.is_none() {
                let mut p = signature_problem(&status);
                // What a forge's squash or rebase merge looks like: a
                // commit nobody here signed.
                let ours = match &status {
                    SignatureStatus::UnknownSigner { fingerprint } => {
                        policy.ledger.fingerprints().contains(fingerprint)
                    }
                    _ => false,
                };
                if !policy.own_keys
                    && matches!(branch, Branch::Pool(_))
                    && matches!(
                        status,
                        SignatureStatus::Unsigned | SignatureStatus::UnknownSigner { .. }
                    )
                    && !ours
                {
                    p.push_str(SQUASH_HINT);
                }
                found.push(p);
            }
            match &info.event {
                Err(e) => found.push(format!("trailers unreadable: {e}")),
                Ok(e) => found.extend(check_commit(
                    store,
                    *branch,
                    &info,
                    e,
                    signed_by.as_deref(),
                )?),
            }
            None
        };
        out.push(Own {
            id: *id,
            branch: *branch,
            parents: info.parents.clone(),
            signed: signed_by.is_some(),
            merge_ok,
            found,
        });
    }
    Ok(out)
}

/// Said of an untrusted commit on a shared pool: the usual cause.
const SQUASH_HINT: &str = "; if a pull request was merged by squash or rebase, the forge re-created its signed commits without their signatures: merge pull requests into a pool with a merge commit, so the signed commits stay as they are (reset the branch to the commit before and merge again; see docs/pools.md)";

fn signature_problem(status: &SignatureStatus) -> String {
    match status {
        SignatureStatus::Unsigned => "unsigned commit".to_owned(),
        SignatureStatus::Bad { reason } => format!("bad signature: {reason}"),
        SignatureStatus::UnknownSigner { fingerprint } => {
            format!("signed by a key not in the allowed signers ({fingerprint})")
        }
        SignatureStatus::Unverifiable { reason } => {
            format!("signature cannot be verified: {reason}")
        }
        SignatureStatus::Good { .. } => String::new(),
    }
}

/// Whether a two-parent commit's tree is exactly the clean merge of its
/// parents (`git merge-tree --write-tree`).
fn is_pure_merge(store: &Store, info: &CommitInfo) -> Result<bool, LoreError> {
    if info.parents.len() != 2 {
        return Ok(false);
    }
    let (a, b) = (info.parents[0].to_string(), info.parents[1].to_string());
    let out = store.run_git(&[
        "merge-tree".as_ref(),
        "--write-tree".as_ref(),
        a.as_ref(),
        b.as_ref(),
    ]);
    Ok(match out {
        Ok(bytes) => String::from_utf8_lossy(&bytes).lines().next() == Some(&info.tree.to_string()),
        Err(_) => false,
    })
}

/// A changed file, named.
struct Touched<'a> {
    /// What it is; `None` for a path that is no git-lore record.
    name: Option<Name>,
    change: &'a ChangedPath,
}

impl Touched<'_> {
    fn op(&self) -> Op {
        match (self.change.old, self.change.new) {
            (None, Some(_)) => Op::Add,
            (Some(_), Some(_)) => Op::Modify,
            _ => Op::Any, // removed: only `Any` allows it
        }
    }

    fn kind(&self) -> Option<PathKind> {
        self.name.as_ref().map(Name::kind)
    }
}

/// What a path names, if it is a git-lore record or a `.lore/` file.
fn name_of(path: &str) -> Option<Name> {
    if path.starts_with(".lore/") {
        return Some(Name::Config(path.to_owned()));
    }
    Some(match layout::classify(path) {
        Some(RecordPath::Proposal(id)) => Name::Proposal(id),
        Some(RecordPath::Decline(id)) => Name::Decline(id),
        Some(RecordPath::Lesson(id)) => Name::Lesson(id),
        None => match records::classify(path)? {
            RelationPath::Relation { from, to } => Name::Relation { from, to },
            RelationPath::CounterObservation {
                lesson,
                observation,
            } => Name::CounterObservation {
                lesson,
                observation,
            },
            RelationPath::Related(id) => Name::Related(id),
            RelationPath::Upheld { lesson, count } => Name::Upheld { lesson, count },
        },
    })
}

/// Where the file a name names lives.
fn path_of(name: &Name) -> String {
    match name {
        Name::Proposal(id) => layout::proposal_path(*id),
        Name::Decline(id) => layout::decline_path(*id),
        Name::Lesson(id) => layout::lesson_path(*id),
        Name::Relation { from, to } => records::relation_path(*from, *to),
        Name::CounterObservation {
            lesson,
            observation,
        } => records::counter_observation_path(*lesson, *observation),
        Name::Related(id) => records::related_path(*id),
        Name::Upheld { lesson, count } => records::upheld_path(*lesson, *count),
        Name::Config(path) => path.clone(),
    }
}

fn kind_name(k: PathKind) -> &'static str {
    match k {
        PathKind::Proposal => "a proposal",
        PathKind::Decline => "a decline record",
        PathKind::Lesson => "a pool entry",
        PathKind::Config => "files under .lore/",
        PathKind::Relation => "a relation record",
        PathKind::CounterObservation => "a counter-observation",
        PathKind::Related => "a judgment record",
        PathKind::Upheld => "an upheld record",
    }
}

/// The reads an action's check makes, over the store: the commit's tree
/// and its first parent's.
struct StoreRepo<'a> {
    store: &'a Store,
    info: &'a CommitInfo,
}

impl StoreRepo<'_> {
    fn tree(&self, side: Side) -> Result<Option<ObjectId>, LoreError> {
        Ok(match side {
            Side::After => Some(self.info.tree),
            Side::Before => match self.info.parents.first() {
                Some(p) => Some(self.store.tree_of(*p)?),
                None => None,
            },
        })
    }
}

impl Repo for StoreRepo<'_> {
    type Error = LoreError;

    fn read(&self, side: Side, name: &Name) -> Result<Option<Vec<u8>>, LoreError> {
        Ok(match self.tree(side)? {
            Some(tree) => self.store.read_in_tree(tree, &path_of(name))?,
            None => None,
        })
    }

    fn exists(&self, side: Side, name: &Name) -> Result<bool, LoreError> {
        Ok(match self.tree(side)? {
            Some(tree) => self.store.blob_id_in_tree(tree, &path_of(name))?.is_some(),
            None => false,
        })
    }

    fn counter_observations(&self, lesson: Id) -> Result<Vec<Id>, LoreError> {
        Ok(self
            .store
            .paths_at(self.info.id, &records::counter_observations_dir(lesson))?
            .into_iter()
            .filter_map(|(path, _)| match records::classify(&path) {
                Some(RelationPath::CounterObservation { observation, .. }) => Some(observation),
                _ => None,
            })
            .collect())
    }

    fn named(&self, commit: &CommitRef) -> Result<Option<Option<Event>>, LoreError> {
        // A name that resolves to no commit is no commit; a store that
        // cannot be read is an error, not a finding.
        Ok(match self.store.resolve(commit.as_str()).ok() {
            Some(id) => Some(self.store.commit_info(id)?.event.ok()),
            None => None,
        })
    }

    fn descends_from(&self, commit: &CommitRef) -> Result<bool, LoreError> {
        Ok(match self.store.resolve(commit.as_str()).ok() {
            Some(id) => self.store.merge_base(id, self.info.id)? == Some(id),
            None => false,
        })
    }
}

/// Checks a single-parent commit's event against what it changed: what
/// every action shares (its branch, whether it may be a first commit,
/// exactly the files its rule names, each record valid), then the action's
/// own check ([`Event::check`]).
fn check_commit(
    store: &Store,
    branch: Branch,
    info: &CommitInfo,
    event: &Event,
    signer: Option<&str>,
) -> Result<Vec<String>, LoreError> {
    let action = event.action();
    let rule = event.rule();
    let mut problems = Vec::new();
    let pool = match branch {
        Branch::Ledger => None,
        Branch::Pool(tier) => Some(tier),
    };
    if !rule.on.admits(pool) {
        problems.push(format!("action {action} does not belong on {branch}"));
        return Ok(problems);
    }
    let is_root = info.parents.is_empty();
    match rule.root {
        Root::Only if !is_root => {
            problems.push(format!("{action} is legal only as a branch's first commit"))
        }
        Root::Never if is_root => {
            problems.push(format!("{action} cannot be a branch's first commit"))
        }
        _ => {}
    }

    let changes = store.changed_paths(info)?;
    let touched: Vec<Touched> = changes
        .iter()
        .map(|c| Touched {
            name: name_of(&c.path),
            change: c,
        })
        .collect();

    // The rule: exactly the listed files, each named by the event.
    let mut expected: Vec<(PathKind, Op, Option<Id>)> = event.touched();
    let named = expected.iter().find_map(|(_, _, id)| *id);
    let mut matched: Vec<&Touched> = Vec::new();
    for t in &touched {
        let slot = expected.iter().position(|(k, op, id)| {
            Some(*k) == t.kind()
                && (*op == Op::Any || *op == t.op())
                && (*k == PathKind::Config || t.name.as_ref().and_then(Name::id) == *id)
        });
        match slot {
            Some(i) => {
                if expected[i].0 != PathKind::Config {
                    expected.remove(i);
                }
                matched.push(t);
            }
            None => problems.push(match t.kind() {
                None => format!(
                    "changed {} which is not a git-lore record path",
                    t.change.path
                ),
                Some(_) => format!(
                    "{action} may change only {}; it also changed {}",
                    describe(rule.touches, named, false),
                    t.change.path
                ),
            }),
        }
    }
    let config_touched = matched.iter().any(|t| t.kind() == Some(PathKind::Config));
    for (k, _, _) in &expected {
        if *k != PathKind::Config || !config_touched {
            problems.push(format!(
                "{action} must {}",
                describe(rule.touches, named, true)
            ));
            break;
        }
    }

    // Every file written is valid: each record against its schema, the
    // rubrics file as rubrics.
    let mut records: Vec<Record> = Vec::with_capacity(matched.len());
    for t in &matched {
        let Some(name) = t.name.clone() else { continue };
        if let Name::Config(path) = &name {
            if path == RUBRICS && branch == Branch::Ledger {
                if let Some(bytes) = store.read_in_tree(info.tree, path)? {
                    if let Err(e) = RubricSet::parse(&String::from_utf8_lossy(&bytes)) {
                        problems.push(format!("config rubrics: {path} is invalid: {e}"));
                    }
                }
            }
            records.push(Record {
                path: t.change.path.clone(),
                name,
                old: None,
                new: None,
            });
            continue;
        }
        let read = |id: Option<ObjectId>| -> Result<Option<Value>, LoreError> {
            Ok(match id {
                None => None,
                Some(id) => serde_json::from_slice(&store.blob(id)?).ok(),
            })
        };
        let (old, new) = (read(t.change.old)?, read(t.change.new)?);
        match &new {
            None if t.change.new.is_some() => {
                problems.push(format!("{}: not valid JSON", t.change.path))
            }
            Some(v) => {
                for p in schema_problems(branch, name.kind(), v) {
                    problems.push(format!("{}: {p}", t.change.path));
                }
            }
            None => {}
        }
        records.push(Record {
            path: t.change.path.clone(),
            name,
            old,
            new,
        });
    }

    // What this action checks of its own records.
    let commit = Commit {
        pool,
        root: is_root,
        signer,
        records: &records,
        repo: &StoreRepo { store, info },
    };
    problems.extend(event.check(&commit)?);
    Ok(problems)
}

/// What a rule lets an action change, as words: `add a proposal 01K…`
/// (with the verb) or `a proposal 01K…` (without).
fn describe(touches: &[(PathKind, Op)], named: Option<Id>, verb: bool) -> String {
    if touches.is_empty() {
        return if verb { "change nothing" } else { "nothing" }.into();
    }
    touches
        .iter()
        .map(|(k, op)| {
            let what = match (k, named) {
                (PathKind::Config, _) | (_, None) => kind_name(*k).to_owned(),
                (_, Some(id)) => format!("{} {id}", kind_name(*k)),
            };
            let v = match op {
                Op::Add => "add",
                Op::Modify => "modify",
                Op::Any => "change",
            };
            if verb {
                format!("{v} {what}")
            } else {
                what
            }
        })
        .collect::<Vec<_>>()
        .join(" and ")
}

fn schema_problems(branch: Branch, kind: PathKind, value: &Value) -> Vec<String> {
    let schema_kind = match kind {
        PathKind::Proposal => SchemaKind::Proposal,
        PathKind::Decline => SchemaKind::Decline,
        PathKind::Lesson => SchemaKind::Lesson,
        PathKind::Relation => SchemaKind::Relation,
        PathKind::CounterObservation => SchemaKind::CounterObservation,
        PathKind::Related => SchemaKind::Related,
        PathKind::Upheld => SchemaKind::Upheld,
        PathKind::Config => return Vec::new(),
    };
    let mut value = value.clone();
    // Private pool entries carry consensus.judges 0 by design (no jury),
    // which the published schema's minimum of 1 refuses.
    if branch == Branch::Pool(Source::Local) {
        if let Some(j) = value.pointer_mut("/consensus/judges") {
            if j == &Value::from(0) {
                *j = Value::from(1);
            }
        }
    }
    match schema::validate(schema_kind, &value) {
        Ok(()) => Vec::new(),
        Err(violations) => violations
            .iter()
            .take(3)
            .map(|v| format!("schema: {} at {:?}", v.message, v.instance_path))
            .collect(),
    }
}

/// One record's change in one commit, as text for a diff.
#[derive(Clone, Debug)]
pub struct RecordDiff {
    pub path: String,
    pub old: String,
    pub new: String,
}

/// The record changes a commit made (first parent to commit), as text.
pub fn record_diffs(lore: &Lore, commit: ObjectId) -> Result<Vec<RecordDiff>, LoreError> {
    let info = lore.store.commit_info(commit)?;
    let mut out = Vec::new();
    for c in lore.store.changed_paths(&info)? {
        let text = |id: Option<ObjectId>| -> Result<String, LoreError> {
            Ok(match id {
                Some(id) => String::from_utf8_lossy(&lore.store.blob(id)?).into_owned(),
                None => String::new(),
            })
        };
        out.push(RecordDiff {
            path: c.path.clone(),
            old: text(c.old)?,
            new: text(c.new)?,
        });
    }
    Ok(out)
}
