//! The audit trail: reading history back as lifecycle events (`git lore log`)
//! and checking it (`git lore verify`).
//!
//! A commit is trusted when its signature is good for a key in the allowed
//! signers in force at its parent: the repository's own file for the ledger,
//! the pool's `.lore/allowed_signers` for a pool (a pool's root commit is
//! anchored in the repository's own file). A merge commit is accepted whatever
//! its signer when it is a pure merge: both parents are trusted and its tree is
//! exactly the clean merge of them. Beyond signatures, verify checks that the
//! trailers agree with what changed and that every touched record is valid.

use std::collections::HashMap;

use gix::ObjectId;
use serde_json::Value;

use super::{Lore, LoreError};
use crate::model::{Id, ProposalStatus};
use crate::schema::{self, SchemaKind};
use crate::signing::{self, AllowedSigners, SignatureStatus};
use crate::store::layout::{self, RecordPath, POOL_ALLOWED_SIGNERS};
use crate::store::{Branch, CommitInfo};
use crate::trailers::{Action, LoreTrailers};

/// One lifecycle event, as `git lore log` shows it.
#[derive(Clone, Debug, serde::Serialize)]
pub struct LogEntry {
    pub commit: String,
    pub branch: String,
    pub date: String,
    pub action: Option<String>,
    pub lesson: Option<String>,
    pub artifact: Option<String>,
    pub from: Option<String>,
    pub to: Option<String>,
    pub reason: Option<String>,
    pub subject: String,
    /// `good`, `bad`, `unknown signer`, `unsigned` or `unverifiable`.
    pub signature: String,
    /// The principal (for a good signature) or key fingerprint.
    pub signer: Option<String>,
    #[serde(skip)]
    pub id: ObjectId,
}

/// One thing wrong with one commit.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Problem {
    pub commit: String,
    pub branch: String,
    pub problem: String,
}

/// The verdict on a commit's signature, with the words `log` prints.
pub fn describe_signature(s: &SignatureStatus) -> (&'static str, Option<String>) {
    match s {
        SignatureStatus::Good { principal, .. } => ("good", Some(principal.clone())),
        SignatureStatus::Bad { .. } => ("bad", None),
        SignatureStatus::UnknownSigner { fingerprint } => {
            ("unknown signer", Some(fingerprint.clone()))
        }
        SignatureStatus::Unsigned => ("unsigned", None),
        SignatureStatus::Unverifiable { .. } => ("unverifiable", None),
    }
}

/// Caches allowed-signers files by the blob or path they came from.
struct Trust<'a> {
    lore: &'a Lore,
    repo_file: Option<AllowedSigners>,
    pool_files: HashMap<ObjectId, AllowedSigners>,
}

impl<'a> Trust<'a> {
    fn new(lore: &'a Lore) -> Result<Trust<'a>, LoreError> {
        Ok(Trust {
            lore,
            repo_file: Some(lore.ledger_allowed_signers()?),
            pool_files: HashMap::new(),
        })
    }

    fn allowed_for(
        &mut self,
        branch: Branch,
        info: &CommitInfo,
    ) -> Result<&AllowedSigners, LoreError> {
        let parent = match (branch, info.parents.first()) {
            (Branch::Pool(_), Some(p)) => Some(*p),
            _ => None,
        };
        let Some(parent) = parent else {
            return Ok(self.repo_file.as_ref().expect("loaded"));
        };
        if !self.pool_files.contains_key(&parent) {
            let text = self
                .lore
                .store
                .read_at(parent, POOL_ALLOWED_SIGNERS)?
                .map(|b| String::from_utf8_lossy(&b).into_owned())
                .unwrap_or_default();
            let parsed = AllowedSigners::parse(&text).unwrap_or_default();
            self.pool_files.insert(parent, parsed);
        }
        Ok(&self.pool_files[&parent])
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
pub fn log(lore: &Lore, filter: LogFilter) -> Result<Vec<LogEntry>, LoreError> {
    let mut trust = Trust::new(lore)?;
    let mut out = Vec::new();
    for (branch, id) in lore.store.all_commits()? {
        let info = lore.store.commit_info(id)?;
        let t = info.trailers.as_ref().ok();
        let keep = match filter {
            LogFilter::All => true,
            LogFilter::Lesson(l) => {
                t.is_some_and(|t| t.lesson == Some(l) || t.targets.contains(&l))
            }
            LogFilter::Artifact(a) => t.is_some_and(|t| t.artifact == Some(a)),
        };
        if !keep {
            continue;
        }
        let status = trust.status(branch, &info)?;
        let (word, signer) = describe_signature(&status);
        out.push(LogEntry {
            commit: id.to_string(),
            branch: branch.to_string(),
            date: jiff::Timestamp::from_second(info.time)
                .map(crate::model::iso)
                .unwrap_or_default(),
            action: t.map(|t| t.action.to_string()),
            lesson: t.and_then(|t| t.lesson).map(|i| i.to_string()),
            artifact: t.and_then(|t| t.artifact).map(|i| i.to_string()),
            from: t.and_then(|t| t.from.clone()),
            to: t.and_then(|t| t.status.clone()),
            reason: t.and_then(|t| t.reason.clone()),
            subject: info.subject.clone(),
            signature: word.to_owned(),
            signer,
            id,
        });
    }
    Ok(out)
}

/// Checks every commit reachable from the given branches (or the given
/// commits). An empty result means the history is clean.
pub fn verify(
    lore: &Lore,
    commits: Option<Vec<ObjectId>>,
) -> Result<(usize, Vec<Problem>), LoreError> {
    let all = lore.store.all_commits()?;
    let branch_of: HashMap<ObjectId, Branch> = all.iter().map(|(b, c)| (*c, *b)).collect();
    let list: Vec<(Branch, ObjectId)> = match commits {
        Some(ids) => ids
            .into_iter()
            .map(|c| (branch_of.get(&c).copied().unwrap_or(Branch::Ledger), c))
            .collect(),
        None => all,
    };
    let mut trust = Trust::new(lore)?;
    let mut problems = Vec::new();
    let mut statuses: HashMap<ObjectId, bool> = HashMap::new();
    // Oldest first, so a merge's parents are judged before the merge.
    for (branch, id) in list.iter().rev() {
        let info = lore.store.commit_info(*id)?;
        let mut say = |p: String| {
            problems.push(Problem {
                commit: id.to_string(),
                branch: branch.to_string(),
                problem: p,
            })
        };
        let status = trust.status(*branch, &info)?;
        let mut trusted = matches!(status, SignatureStatus::Good { .. });
        if !trusted && info.parents.len() > 1 {
            trusted = is_pure_merge(lore, &info, &statuses)?;
            if !trusted {
                say("merge commit is not signed by an allowed signer and is not a pure merge of trusted parents".into());
            }
        } else if !trusted {
            say(match &status {
                SignatureStatus::Unsigned => "unsigned commit".to_owned(),
                SignatureStatus::Bad { reason } => format!("bad signature: {reason}"),
                SignatureStatus::UnknownSigner { fingerprint } => {
                    format!("signed by a key not in the allowed signers ({fingerprint})")
                }
                SignatureStatus::Unverifiable { reason } => {
                    format!("signature cannot be verified: {reason}")
                }
                SignatureStatus::Good { .. } => unreachable!(),
            });
        }
        statuses.insert(*id, trusted);
        if info.parents.len() > 1 {
            continue; // a merge adds nothing of its own to check
        }
        match &info.trailers {
            Err(e) => say(format!("trailers unreadable: {e}")),
            Ok(t) => {
                for p in check_change(lore, *branch, &info, t)? {
                    say(p);
                }
            }
        }
    }
    Ok((list.len(), problems))
}

fn is_pure_merge(
    lore: &Lore,
    info: &CommitInfo,
    trusted: &HashMap<ObjectId, bool>,
) -> Result<bool, LoreError> {
    if info.parents.len() != 2 || !info.parents.iter().all(|p| trusted.get(p) == Some(&true)) {
        return Ok(false);
    }
    let (a, b) = (info.parents[0].to_string(), info.parents[1].to_string());
    let out = lore.store.run_git(&[
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

fn parse_json(bytes: &[u8]) -> Result<Value, String> {
    serde_json::from_slice(bytes).map_err(|e| format!("not valid JSON: {e}"))
}

fn status_of(v: &Value) -> Option<ProposalStatus> {
    v.get("status")?.as_str()?.parse().ok()
}

/// The legal proposal status transitions, by action.
pub fn legal_transition(action: Action, from: ProposalStatus, to: ProposalStatus) -> bool {
    use ProposalStatus::*;
    matches!(
        (action, from, to),
        (Action::Confirm, Pending, Confirmed)
            | (Action::Unconfirm, Confirmed, Pending)
            | (Action::Pass, Pending, Passed)
            | (Action::Judge, Confirmed, Approved)
            | (Action::Judge, Confirmed, Rejected)
            | (Action::Promote, Approved, Approved)
            | (Action::Promote, Rejected, Rejected)
    )
}

/// Checks that a single-parent commit's trailers agree with its changes and
/// that every record it touched is valid.
fn check_change(
    lore: &Lore,
    branch: Branch,
    info: &CommitInfo,
    t: &LoreTrailers,
) -> Result<Vec<String>, LoreError> {
    let mut problems = Vec::new();
    let changes = lore.store.changed_paths(info)?;
    let mut records = Vec::new();
    for c in &changes {
        if c.path.starts_with(".lore/") {
            if !matches!(t.action, Action::Config | Action::Init | Action::Promote) {
                problems.push(format!(
                    "{} changed {} (only init, config and promote commits may)",
                    t.action, c.path
                ));
            }
            continue;
        }
        match layout::classify(&c.path) {
            Some(rp) => records.push((rp, c)),
            None => problems.push(format!(
                "changed {} which is not a git-lore record path",
                c.path
            )),
        }
    }
    // Schema validity of every record written.
    for (rp, c) in &records {
        let Some(new) = c.new else { continue };
        let value = match parse_json(&lore.store.blob(new)?) {
            Ok(v) => v,
            Err(e) => {
                problems.push(format!("{}: {e}", c.path));
                continue;
            }
        };
        let kind = match rp {
            RecordPath::Proposal(_) => SchemaKind::Proposal,
            RecordPath::Decline(_) => SchemaKind::Decline,
            RecordPath::Lesson(_) => SchemaKind::Lesson,
        };
        let mut value = value;
        // Private pool entries carry consensus.judges 0 by design (no jury),
        // which the published schema's minimum of 1 refuses.
        if branch == Branch::Pool(crate::model::Source::Local) {
            if let Some(j) = value.pointer_mut("/consensus/judges") {
                if j == &Value::from(0) {
                    *j = Value::from(1);
                }
            }
        }
        if let Err(violations) = schema::validate(kind, &value) {
            for v in violations.iter().take(3) {
                problems.push(format!(
                    "{}: schema: {} at {:?}",
                    c.path, v.message, v.instance_path
                ));
            }
        }
    }
    let named = |rp: &RecordPath| match rp {
        RecordPath::Proposal(id) | RecordPath::Lesson(id) => (t.lesson == Some(*id)).then_some(()),
        RecordPath::Decline(id) => (t.artifact == Some(*id)).then_some(()),
    };
    match (branch, t.action) {
        (_, Action::Init) | (_, Action::Config) => {
            if !records.is_empty() {
                problems.push(format!("{} commit changed records", t.action));
            }
        }
        (Branch::Ledger, Action::Propose) => match records.as_slice() {
            [(RecordPath::Proposal(id), c)]
                if c.old.is_none() && named(&RecordPath::Proposal(*id)).is_some() =>
            {
                let v = parse_json(&lore.store.blob(c.new.expect("added"))?).unwrap_or(Value::Null);
                if v.get("artifact_id").and_then(Value::as_str)
                    != t.artifact.map(|a| a.to_string()).as_deref()
                {
                    problems.push(
                        "propose: Lore-Artifact does not match the proposal's artifact_id".into(),
                    );
                }
                if status_of(&v) != Some(ProposalStatus::Pending) {
                    problems.push("propose: a new proposal must be pending".into());
                }
            }
            _ => problems.push("propose must add exactly the proposal named by Lore-Lesson".into()),
        },
        (Branch::Ledger, Action::Decline) => match records.as_slice() {
            [(RecordPath::Decline(id), c)]
                if c.old.is_none() && named(&RecordPath::Decline(*id)).is_some() =>
            {
                let v = parse_json(&lore.store.blob(c.new.expect("added"))?).unwrap_or(Value::Null);
                if v.get("reason").and_then(Value::as_str) != t.reason.as_deref() {
                    problems.push("decline: Lore-Reason does not match the record's reason".into());
                }
            }
            _ => problems
                .push("decline must add exactly the decline record named by Lore-Artifact".into()),
        },
        (
            Branch::Ledger,
            action @ (Action::Confirm
            | Action::Unconfirm
            | Action::Pass
            | Action::Judge
            | Action::Promote),
        ) => match records.as_slice() {
            [(RecordPath::Proposal(id), c)] if named(&RecordPath::Proposal(*id)).is_some() => {
                let (Some(old), Some(new)) = (c.old, c.new) else {
                    problems.push(format!("{action} must modify an existing proposal"));
                    return Ok(problems);
                };
                let old = parse_json(&lore.store.blob(old)?)
                    .ok()
                    .and_then(|v| status_of(&v));
                let new = parse_json(&lore.store.blob(new)?)
                    .ok()
                    .and_then(|v| status_of(&v));
                match (old, new) {
                    (Some(o), Some(n)) => {
                        if t.from.as_deref() != Some(o.as_str())
                            || t.status.as_deref() != Some(n.as_str())
                        {
                            problems.push(format!(
                                "{action}: trailers say {} -> {} but the record went {o} -> {n}",
                                t.from.as_deref().unwrap_or("?"),
                                t.status.as_deref().unwrap_or("?")
                            ));
                        }
                        if !legal_transition(action, o, n) {
                            problems
                                .push(format!("{action}: illegal status transition {o} -> {n}"));
                        }
                    }
                    _ => problems.push(format!("{action}: proposal status unreadable")),
                }
            }
            _ => problems.push(format!(
                "{action} must modify exactly the proposal named by Lore-Lesson"
            )),
        },
        (Branch::Pool(_), Action::Promote) => match records.as_slice() {
            [(RecordPath::Lesson(id), c)]
                if c.old.is_none() && named(&RecordPath::Lesson(*id)).is_some() => {}
            _ => problems.push("promote must add exactly the lesson named by Lore-Lesson".into()),
        },
        (
            Branch::Pool(_),
            Action::Supersede
            | Action::Merge
            | Action::Refine
            | Action::Contradict
            | Action::Retract
            | Action::Relate,
        ) => {
            if records
                .iter()
                .any(|(rp, _)| !matches!(rp, RecordPath::Lesson(_)))
            {
                problems.push(format!("{} on a pool may only change lessons", t.action));
            }
        }
        (b, a) => problems.push(format!("action {a} does not belong on {b}")),
    }
    Ok(problems)
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
