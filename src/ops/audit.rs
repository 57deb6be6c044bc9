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

mod relation;

use std::collections::HashMap;

use gix::ObjectId;
use serde_json::Value;

use super::{Env, Lore, LoreError};
use crate::event::{CommitRef, ConfigTopic, Event, On, Op, PathKind, Root, Step};
use crate::model::{Id, LessonStatus, ProposalStatus, Source};
use crate::review::{lifecycle, signers, RubricSet};
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

/// A changed file, classified.
struct Touched<'a> {
    kind: Option<PathKind>,
    /// The id a record is named by.
    id: Option<Id>,
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

/// Checks a single-parent commit's event against what it changed.
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
    let belongs = matches!(
        (rule.on, branch),
        (On::Either, _) | (On::Ledger, Branch::Ledger) | (On::Pool, Branch::Pool(_))
    );
    if !belongs {
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
        .map(|c| {
            if c.path.starts_with(".lore/") {
                return Touched {
                    kind: Some(PathKind::Config),
                    id: None,
                    change: c,
                };
            }
            let (kind, id) = match layout::classify(&c.path) {
                Some(RecordPath::Proposal(id)) => (Some(PathKind::Proposal), Some(id)),
                Some(RecordPath::Decline(id)) => (Some(PathKind::Decline), Some(id)),
                Some(RecordPath::Lesson(id)) => (Some(PathKind::Lesson), Some(id)),
                None => relation::classify(&c.path),
            };
            Touched {
                kind,
                id,
                change: c,
            }
        })
        .collect();

    // The rule: exactly the listed files, each named by the event.
    let named = match event {
        Event::Decline { artifact, .. } => Some(*artifact),
        _ => event.lesson(),
    };
    let mut expected: Vec<(PathKind, Op, Option<Id>)> = event.touched();
    let mut matched: Vec<&Touched> = Vec::new();
    for t in &touched {
        let slot = expected.iter().position(|(k, op, id)| {
            Some(*k) == t.kind
                && (*op == Op::Any || *op == t.op())
                && (*k == PathKind::Config || t.id == *id)
        });
        match slot {
            Some(i) => {
                if expected[i].0 != PathKind::Config {
                    expected.remove(i);
                }
                matched.push(t);
            }
            None => problems.push(match t.kind {
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
    let config_touched = matched.iter().any(|t| t.kind == Some(PathKind::Config));
    for (k, _, _) in &expected {
        if *k != PathKind::Config || !config_touched {
            problems.push(format!(
                "{action} must {}",
                describe(rule.touches, named, true)
            ));
            break;
        }
    }

    // Schema validity of every record written.
    let mut records: HashMap<PathKind, (Option<Value>, Option<Value>)> = HashMap::new();
    let mut each: Vec<relation::Record> = Vec::new();
    for t in &matched {
        let Some(kind) = t.kind else { continue };
        let new = match super::admit::entry(store, t.change)? {
            Ok(new) => new,
            Err(refused) => {
                problems.extend(refused.iter().map(ToString::to_string));
                continue;
            }
        };
        if kind == PathKind::Config {
            continue;
        }
        let read = |id: Option<ObjectId>| -> Result<Option<Value>, LoreError> {
            Ok(match id {
                None => None,
                Some(id) => serde_json::from_slice(&store.blob(id)?).ok(),
            })
        };
        let old = read(t.change.old)?;
        match &new {
            None if t.change.new.is_some() => {
                problems.push(format!("{}: not valid JSON", t.change.path))
            }
            Some(v) => {
                for p in schema_problems(branch, kind, v) {
                    problems.push(format!("{}: {p}", t.change.path));
                }
            }
            None => {}
        }
        each.push(relation::Record {
            path: t.change.path.clone(),
            kind,
            id: t.id,
            old: old.clone(),
            new: new.clone(),
        });
        records.insert(kind, (old, new));
    }
    let record = |k: PathKind| records.get(&k).cloned().unwrap_or((None, None));

    // One small check per event.
    match event {
        Event::Init => {}
        Event::Propose {
            artifact, replaces, ..
        } => {
            problems.extend(check_propose(*artifact, record(PathKind::Proposal).1));
            if let Some(c) = replaces {
                problems.extend(check_replaces(store, info, *artifact, c)?);
            }
        }
        Event::Decline {
            reason,
            replaces,
            artifact,
            ..
        } => {
            if let Some(c) = replaces {
                problems.extend(check_replaces(store, info, *artifact, c)?);
            }
            let new = record(PathKind::Decline).1;
            if new
                .as_ref()
                .and_then(|v| v.get("reason")?.as_str().map(str::to_owned))
                != Some(reason.as_str().to_owned())
            {
                problems.push("decline: Lore-Reason does not match the record's reason".into());
            }
        }
        Event::Confirm { step, .. }
        | Event::Unconfirm { step }
        | Event::Pass { step, .. }
        | Event::Judge { step, .. }
        | Event::Stamp { step, .. } => {
            let (old, new) = record(PathKind::Proposal);
            problems.extend(check_step(event, step, old, new));
        }
        Event::Promote {
            lesson,
            visibility,
            pool,
            ..
        } => {
            let new = record(PathKind::Lesson).1;
            problems.extend(check_promote(branch, *lesson, *visibility, *pool, new));
        }
        Event::Config { topic } => {
            problems.extend(check_config(store, branch, info, *topic, &matched, signer)?)
        }
        Event::Retract {
            lesson, from, pool, ..
        } => {
            let (old, new) = record(PathKind::Lesson);
            problems.extend(check_retract(branch, *lesson, *from, *pool, old, new));
        }
        // A merge: never reaches here (checked whole in `check_commits`).
        Event::Sync { .. } => problems.push("sync must be a merge commit".into()),
        Event::Supersede { .. }
        | Event::Merge { .. }
        | Event::Refine { .. }
        | Event::Contradict { .. }
        | Event::Relate { .. }
        | Event::Rejudge { .. } => problems.extend(relation::check(store, info, event, &each)?),
    }
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

fn status_of(v: &Option<Value>) -> Option<ProposalStatus> {
    v.as_ref()?.get("status")?.as_str()?.parse().ok()
}

/// `Lore-Replaces` (an `ingest --redo` outcome) must name a decline of the
/// same artifact in this commit's own history, and the artifact must be
/// declined when the commit lands.
fn check_replaces(
    store: &Store,
    info: &CommitInfo,
    artifact: Id,
    replaces: &CommitRef,
) -> Result<Vec<String>, LoreError> {
    // Only a commit this one descends from: a decline on another branch,
    // in quarantine or dangling is history nobody verified as this one's.
    // A name that resolves to no commit is no decline; a store that cannot
    // be read is an error, not a finding. The ancestry walk comes last, for
    // a decline of the right artifact only.
    let named = match store.resolve(replaces.as_str()).ok() {
        Some(id) => Some((id, store.commit_info(id)?.event)),
        None => None,
    };
    let mut problems = Vec::new();
    match named {
        Some((id, Ok(Event::Decline { artifact: a, .. }))) if a == artifact => {
            if store.merge_base(id, info.id)? != Some(id) {
                problems.push(format!(
                    "Lore-Replaces names {}, which is not in this commit's history",
                    replaces.as_str()
                ));
            }
        }
        Some(_) => problems.push(format!(
            "Lore-Replaces names {}, which is not a decline of artifact {artifact}",
            replaces.as_str()
        )),
        None => problems.push(format!(
            "Lore-Replaces names {}, which is not in this commit's history",
            replaces.as_str()
        )),
    }
    let declined = match info.parents.first() {
        Some(p) => store
            .read_at(*p, &layout::decline_path(artifact))?
            .is_some(),
        None => false,
    };
    if !declined {
        problems.push(format!(
            "Lore-Replaces: artifact {artifact} was not declined before this commit"
        ));
    }
    Ok(problems)
}

fn check_propose(artifact: Id, new: Option<Value>) -> Vec<String> {
    let mut problems = Vec::new();
    let Some(v) = &new else { return problems };
    if v.get("artifact_id").and_then(Value::as_str) != Some(artifact.to_string().as_str()) {
        problems.push("propose: Lore-Artifact does not match the proposal's artifact_id".into());
    }
    if status_of(&new) != Some(ProposalStatus::Pending) {
        problems.push("propose: a new proposal must be pending".into());
    }
    problems
}

fn check_step(event: &Event, step: &Step, old: Option<Value>, new: Option<Value>) -> Vec<String> {
    let action = event.action();
    let (Some(o), Some(n)) = (status_of(&old), status_of(&new)) else {
        return if old.is_some() && new.is_some() {
            vec![format!("{action}: proposal status unreadable")]
        } else {
            Vec::new() // the rule check already said what is missing
        };
    };
    let mut problems = Vec::new();
    if (step.from, step.to) != (o, n) {
        problems.push(format!(
            "{action}: trailers say {} -> {} but the record went {o} -> {n}",
            step.from, step.to
        ));
    }
    if !lifecycle::legal(action, o, n) {
        problems.push(format!("{action}: illegal status transition {o} -> {n}"));
    }
    problems
}

fn check_promote(
    branch: Branch,
    lesson: Id,
    visibility: crate::model::Visibility,
    pool: Source,
    new: Option<Value>,
) -> Vec<String> {
    let mut problems = Vec::new();
    if branch != Branch::Pool(pool) || visibility.source() != pool {
        problems.push(format!(
            "promote: Lore-Pool {pool} and Lore-Visibility {visibility} do not match {branch}"
        ));
    }
    let Some(v) = new else { return problems };
    if v.get("id").and_then(Value::as_str) != Some(lesson.to_string().as_str()) {
        problems.push("promote: the entry's id is not Lore-Lesson".into());
    }
    if v.get("status").and_then(Value::as_str) != Some(LessonStatus::Active.as_str()) {
        problems.push("promote: a new pool entry must be active".into());
    }
    if v.get("visibility").and_then(Value::as_str) != Some(visibility.as_str()) {
        problems.push("promote: the entry's visibility is not Lore-Visibility".into());
    }
    problems
}

fn check_config(
    store: &Store,
    branch: Branch,
    info: &CommitInfo,
    topic: ConfigTopic,
    matched: &[&Touched],
    signer: Option<&str>,
) -> Result<Vec<String>, LoreError> {
    let mut problems = Vec::new();
    if topic == ConfigTopic::Rubrics {
        let path = layout::RUBRICS_PATH;
        for t in matched {
            if t.change.path != path {
                problems.push(format!(
                    "config rubrics may change only {path}; it changed {}",
                    t.change.path
                ));
            }
        }
        let Some(bytes) = store.read_in_tree(info.tree, path)? else {
            problems.push(format!("config rubrics: {path} is missing"));
            return Ok(problems);
        };
        if let Err(e) = RubricSet::parse(&String::from_utf8_lossy(&bytes)) {
            problems.push(format!("config rubrics: {path} is invalid: {e}"));
        }
        return Ok(problems);
    }
    let Branch::Pool(tier) = branch else {
        return Ok(problems); // the rule check said it does not belong here
    };
    for t in matched {
        if !signers::FILES.contains(&t.change.path.as_str()) {
            problems.push(format!(
                "config {topic} may change only the signer files under .lore/; it changed {}",
                t.change.path
            ));
        }
    }
    let text = |b: Option<Vec<u8>>| b.map(|b| String::from_utf8_lossy(&b).into_owned());
    let mut before = signers::State::default();
    if let Some(p) = info.parents.first() {
        let tree = store.tree_of(*p)?;
        for (path, slot) in signers::FILES.iter().zip([
            &mut before.allowed,
            &mut before.threshold,
            &mut before.proposed,
            &mut before.proposed_threshold,
            &mut before.acks,
        ]) {
            *slot = text(store.read_in_tree(tree, path)?);
        }
    }
    let mut after = signers::State::default();
    for (path, slot) in signers::FILES.iter().zip([
        &mut after.allowed,
        &mut after.threshold,
        &mut after.proposed,
        &mut after.proposed_threshold,
        &mut after.acks,
    ]) {
        *slot = text(store.read_in_tree(info.tree, path)?);
    }
    problems.extend(signers::check(
        tier,
        topic,
        &before,
        &after,
        signer,
        info.parents.is_empty(),
    ));
    Ok(problems)
}

/// A retraction changes only the entry's status, to `retracted`, from the
/// status the trailers name, by a legal move.
fn check_retract(
    branch: Branch,
    lesson: Id,
    from: LessonStatus,
    pool: Source,
    old: Option<Value>,
    new: Option<Value>,
) -> Vec<String> {
    let mut problems = Vec::new();
    if branch != Branch::Pool(pool) {
        problems.push(format!("retract: Lore-Pool {pool} does not match {branch}"));
    }
    let (Some(old), Some(new)) = (old, new) else {
        return problems; // the rule check said what is missing
    };
    let status = |v: &Value| v.get("status").and_then(Value::as_str).map(str::to_owned);
    let was = status(&old);
    if was.as_deref() != Some(from.as_str()) {
        problems.push(format!(
            "retract: Lore-From says {from} but the entry was {}",
            was.as_deref().unwrap_or("unreadable")
        ));
    }
    match was.as_deref().and_then(|w| w.parse::<LessonStatus>().ok()) {
        Some(w)
            if !lifecycle::legal_lesson(
                crate::trailers::Action::Retract,
                w,
                LessonStatus::Retracted,
            ) =>
        {
            problems.push(format!(
                "retract: illegal status transition {w} -> retracted"
            ))
        }
        _ => {}
    }
    if new.get("id").and_then(Value::as_str) != Some(lesson.to_string().as_str()) {
        problems.push("retract: the entry's id is not Lore-Lesson".into());
    }
    let mut expected = old.clone();
    expected["status"] = Value::from(LessonStatus::Retracted.as_str());
    if new != expected {
        problems.push("retract: it may change only the entry's status, to retracted".into());
    }
    problems
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
