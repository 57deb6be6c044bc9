//! The rules of one commit, whatever range it is checked in: its
//! signature (and, for a merge, whether it is a pure or a `sync` merge),
//! then its event against what it changed — what every action shares (its
//! branch, whether it may be a branch's first commit, exactly the files its
//! rule names, every record valid) and the action's own check
//! ([`Event::check`], in its unit under `src/event/`), which reads through
//! [`StoreRepo`].

use gix::ObjectId;
use serde_json::Value;

use super::merge::{check_merge, is_pure_merge};
use super::policy::{Policy, Trust};
use crate::event::check::{Commit, Name, Record, Repo, Side};
use crate::event::{CommitRef, Event, Op, PathKind, Root, RUBRICS};
use crate::model::{Id, Proposal, Source};
use crate::ops::LoreError;
use crate::review::relation::records::{self, RelationPath};
use crate::review::RubricSet;
use crate::schema::{self, SchemaKind};
use crate::signing::{self, AllowedSigners, SignatureStatus};
use crate::store::layout::{self, RecordPath, POOL_ALLOWED_SIGNERS};
use crate::store::{Branch, ChangedPath, CommitInfo, Store};

/// What one commit's own checks found, before its parents' trust is known.
pub(super) struct Own {
    pub(super) id: ObjectId,
    pub(super) branch: Branch,
    pub(super) parents: Vec<ObjectId>,
    /// Signed by a key allowed at its parent.
    pub(super) signed: bool,
    /// A merge accepted if its parents are (a pure merge, or a clean
    /// `sync` merge by an allowed key); `None` for a single-parent commit.
    pub(super) merge_ok: Option<bool>,
    pub(super) found: Vec<String>,
}

/// The checks of each commit that do not depend on other commits.
pub(super) fn check_own(
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
        let (signed_by, principals) = match &status {
            SignatureStatus::Good {
                fingerprint,
                principal,
            } => (
                Some(fingerprint.clone()),
                Some(principals_of(
                    store,
                    *branch,
                    &info,
                    fingerprint,
                    principal,
                )?),
            ),
            _ => (None, None),
        };
        let merge_ok = if info.parents.len() > 1 {
            Some(match (&info.event, *branch) {
                (Ok(Event::Sync { pool, resolved }), Branch::Pool(tier)) if signed_by.is_some() => {
                    if let Some(p) = &principals {
                        found.extend(identity_problems(&info, p));
                    }
                    if *pool != tier {
                        found.push(format!("sync: Lore-Pool {pool} does not match {branch}"));
                    }
                    found.extend(check_merge(store, tier, &info, resolved)?);
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
            if let Some(p) = &principals {
                found.extend(identity_problems(&info, p));
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
        found.extend(date_problems(store, &info, policy.now)?);
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

/// How far a commit's dates may stray, in seconds: before its parents'
/// (clocks of two machines), and after now (the checking machine's clock).
pub const SKEW: i64 = 24 * 60 * 60;

/// No git-lore commit is dated earlier: 2025-01-01T00:00:00Z, before this
/// trailer format existed.
const EARLIEST: i64 = 1_735_689_600;

/// How a problem names the identity rule (docs/trailers.md).
const SIGNER_IS_AUTHOR: &str = "rule: the signer is the author and committer";

/// How a problem names the dates rule (docs/trailers.md).
const DATES: &str = "rule: dates within a day of the parent and of now";

/// Whom the signers file names for the key `fingerprint` that signed a
/// commit with a good signature: the principal its signature verified for
/// (the file in force at its parent), and for a pool's first commit first
/// the principals the `.lore/allowed_signers` it writes lists for the key —
/// a pin or a host's root signers only vouch for the key, under whatever
/// name the pinning machine gave it.
fn principals_of(
    store: &Store,
    branch: Branch,
    info: &CommitInfo,
    fingerprint: &str,
    principal: &str,
) -> Result<Vec<String>, LoreError> {
    let mut out = Vec::new();
    if info.parents.is_empty() && matches!(branch, Branch::Pool(_)) {
        if let Some(bytes) = store.read_in_tree(info.tree, POOL_ALLOWED_SIGNERS)? {
            let listed =
                AllowedSigners::parse(&String::from_utf8_lossy(&bytes)).unwrap_or_default();
            out.extend(
                listed
                    .keys()
                    .into_iter()
                    .filter(|(_, fp)| fp == fingerprint)
                    .map(|(principals, _)| principals),
            );
        }
    }
    out.push(principal.to_owned());
    Ok(out)
}

/// A commit whose signature counts is authored and committed by a
/// principal the signers file lists its key for (an e-mail address, as ssh
/// matches principals), author and committer the same person: `git log`
/// must not name one person while another's key signed.
fn identity_problems(info: &CommitInfo, principals: &[String]) -> Vec<String> {
    let mut problems = Vec::new();
    let named = principals.first().map_or("", String::as_str);
    for (role, name, email) in [
        ("author", &info.author_name, &info.author_email),
        ("committer", &info.committer_name, &info.committer_email),
    ] {
        if !principals
            .iter()
            .any(|p| signing::principal_names(p, email))
        {
            problems.push(format!(
                "{role} {name} <{email}> is not {named}, whom the signing key is listed for ({SIGNER_IS_AUTHOR}); commit as the key's owner"
            ));
        }
    }
    if problems.is_empty()
        && (info.author_name != info.committer_name || info.author_email != info.committer_email)
    {
        problems.push(format!(
            "author {} <{}> is not the committer {} <{}> ({SIGNER_IS_AUTHOR})",
            info.author_name, info.author_email, info.committer_name, info.committer_email
        ));
    }
    problems
}

/// A commit's author and committer dates lie within [`SKEW`] of its
/// parents' (not before them) and of `now` (not after it), and not before
/// [`EARLIEST`]: a commit of 1970 or of 2099 says something untrue in `git
/// log`, which orders and dates the audit trail by them.
fn date_problems(
    store: &Store,
    info: &CommitInfo,
    now: jiff::Timestamp,
) -> Result<Vec<String>, LoreError> {
    let mut latest_parent: Option<i64> = None;
    for p in &info.parents {
        let t = store.commit_time(*p)?;
        latest_parent = Some(latest_parent.map_or(t, |l| l.max(t)));
    }
    Ok(dates_problems(
        info.author_time,
        info.time,
        latest_parent,
        now.as_second(),
    ))
}

/// [`date_problems`] of an author and a committer date, given the latest
/// parent's committer date (none for a first commit) and now, in seconds.
fn dates_problems(
    author: i64,
    committer: i64,
    latest_parent: Option<i64>,
    now: i64,
) -> Vec<String> {
    let mut problems = Vec::new();
    for (role, t) in [("author", author), ("committer", committer)] {
        if t > now + SKEW {
            problems.push(format!(
                "{role} date {} is later than now ({}) by more than a day ({DATES})",
                date(t),
                date(now)
            ));
        } else if let Some(parent) = latest_parent.filter(|p| t < p - SKEW) {
            problems.push(format!(
                "{role} date {} is earlier than its parent's ({}) by more than a day ({DATES})",
                date(t),
                date(parent)
            ));
        } else if t < EARLIEST {
            problems.push(format!(
                "{role} date {} is before {}, earlier than any git-lore commit ({DATES})",
                date(t),
                date(EARLIEST)
            ));
        }
    }
    problems
}

/// Seconds since the epoch as `YYYY-MM-DDTHH:MM:SSZ`.
fn date(seconds: i64) -> String {
    jiff::Timestamp::from_second(seconds)
        .map(crate::model::iso)
        .unwrap_or_else(|_| format!("{seconds} seconds after the epoch"))
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
                None if layout::is_two_level_record(&t.change.path) => format!(
                    "changed {}, a record at the two-level fan-out of earlier builds; \
                     this build reads records three levels deep (<X>/<Y>/<Z>/) only: move \
                     this repository aside, `git lore init` a new one and ingest its \
                     sources again (docs/decisions.md, \"Three fan-out levels\")",
                    t.change.path
                ),
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

    // Every file written is valid, whatever the action.
    let mut records: Vec<Record> = Vec::with_capacity(matched.len());
    for t in &matched {
        let Some(name) = t.name.clone() else { continue };
        records.push(written(store, branch, t.change, name, &mut problems)?);
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
    if let Event::Edit { .. } = event {
        problems.extend(edit_body(info, &records));
    }
    Ok(problems)
}

/// An edit's message body is the diff of the record it changed
/// ([`crate::review::edit::diff`]): what `git log` shows a reader as the
/// change. One that shows anything else is refused. (When a record does not
/// read as a proposal, its own check says so, and this one says nothing.)
/// It is here rather than with the `edit` action's other rules in
/// `event/ledger.rs` because it needs the commit's message, which a
/// [`Commit`] does not carry, and `review::edit`'s diff, which the event
/// layer below `review` cannot call.
fn edit_body(info: &CommitInfo, records: &[Record]) -> Option<String> {
    let r = records
        .iter()
        .find(|r| r.name.kind() == PathKind::Proposal)?;
    let proposal = |v: &Option<Value>| serde_json::from_value::<Proposal>(v.as_ref()?.clone()).ok();
    let want = crate::review::edit::diff(&proposal(&r.old)?, &proposal(&r.new)?);
    let body = crate::trailers::body(&info.message);
    (body.as_deref().map(str::trim) != Some(want.trim())).then(|| {
        "edit: the message body is not the diff of the record it changed, so `git log` shows \
         another change than the one made (`git lore log -p` shows the change itself)"
            .to_owned()
    })
}

/// One file a commit changed that its rule allows, read, with what is
/// wrong with its content: a record must be JSON valid against its schema,
/// `.lore/rubrics.json` a valid rubrics file. This is the one place a
/// written file's content is checked, whatever the action (each action's
/// own check then reads the [`Record`]): a policy for every file's
/// characters, size, mode and path applies here, once per file.
fn written(
    store: &Store,
    branch: Branch,
    change: &ChangedPath,
    name: Name,
    problems: &mut Vec<String>,
) -> Result<Record, LoreError> {
    let path = &change.path;
    // The content policy first (`crate::content::record`, through
    // `ops::admit`): mode, path and size before anything is read, then
    // the record's text.
    let admitted = match crate::ops::admit::entry(store, change)? {
        Ok(value) => value,
        Err(refused) => {
            problems.extend(refused.iter().map(ToString::to_string));
            return Ok(Record {
                path: path.clone(),
                name,
                old: None,
                new: None,
            });
        }
    };
    if let Name::Config(_) = name {
        if path == RUBRICS && branch == Branch::Ledger {
            let new_bytes = match change.new {
                Some(id) => Some(store.blob(id)?),
                None => None,
            };
            if let Some(bytes) = &new_bytes {
                if let Err(e) = RubricSet::parse(&String::from_utf8_lossy(bytes)) {
                    problems.push(format!("config rubrics: {path} is invalid: {e}"));
                }
            }
        }
        return Ok(Record {
            path: path.clone(),
            name,
            old: None,
            new: None,
        });
    }
    let old = match change.old {
        Some(id) => serde_json::from_slice(&store.blob(id)?).ok(),
        None => None,
    };
    let new: Option<Value> = admitted;
    match &new {
        None if change.new.is_some() => problems.push(format!("{path}: not valid JSON")),
        Some(v) => {
            for p in schema_problems(branch, name.kind(), v) {
                problems.push(format!("{path}: {p}"));
            }
        }
        None => {}
    }
    Ok(Record {
        path: path.clone(),
        name,
        old,
        new,
    })
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

#[cfg(test)]
mod tests {
    use super::*;

    /// 2026-08-05T10:00:00Z.
    const NOW: i64 = 1_785_924_000;
    const DAY: i64 = 24 * 60 * 60;

    #[test]
    fn dates_stay_within_a_day_of_the_parent_and_of_now() {
        // At now, a day after it, a day before the parent: fine.
        assert!(dates_problems(NOW, NOW, Some(NOW - DAY), NOW).is_empty());
        assert!(dates_problems(NOW + DAY, NOW + DAY, Some(NOW), NOW).is_empty());
        assert!(dates_problems(NOW - DAY, NOW - DAY, Some(NOW), NOW).is_empty());
        assert!(dates_problems(EARLIEST, EARLIEST, None, NOW).is_empty());
        // A second past each bound: refused, author and committer each.
        let later = dates_problems(NOW + DAY + 1, NOW, None, NOW);
        assert_eq!(
            later,
            ["author date 2026-08-06T10:00:01Z is later than now (2026-08-05T10:00:00Z) by more than a day (rule: dates within a day of the parent and of now)"]
        );
        let earlier = dates_problems(NOW, NOW - DAY - 1, Some(NOW), NOW);
        assert_eq!(
            earlier,
            ["committer date 2026-08-04T09:59:59Z is earlier than its parent's (2026-08-05T10:00:00Z) by more than a day (rule: dates within a day of the parent and of now)"]
        );
        // 1970: before its parent; a first commit of 1970, before git-lore.
        assert_eq!(dates_problems(86_400, 86_400, Some(NOW), NOW).len(), 2);
        assert_eq!(
            dates_problems(86_400, NOW, None, NOW),
            ["author date 1970-01-02T00:00:00Z is before 2025-01-01T00:00:00Z, earlier than any git-lore commit (rule: dates within a day of the parent and of now)"]
        );
        // 2099.
        assert_eq!(
            dates_problems(4_070_908_800, 4_070_908_800, Some(NOW), NOW).len(),
            2
        );
    }

    fn info(author: (&str, &str), committer: (&str, &str)) -> CommitInfo {
        CommitInfo {
            id: ObjectId::null(gix::hash::Kind::Sha1),
            parents: Vec::new(),
            tree: ObjectId::empty_tree(gix::hash::Kind::Sha1),
            author_name: author.0.into(),
            author_email: author.1.into(),
            author_time: NOW,
            committer_name: committer.0.into(),
            committer_email: committer.1.into(),
            time: NOW,
            subject: String::new(),
            message: String::new(),
            event: Err(crate::trailers::TrailerError::Missing("Lore-Format")),
            payload: Vec::new(),
            signature: None,
        }
    }

    #[test]
    fn the_author_and_committer_are_the_signer() {
        let ana = ("ana", "ana@example.com");
        let listed = vec!["ana@example.com".to_owned()];
        assert!(identity_problems(&info(ana, ana), &listed).is_empty());
        // A pattern, as ssh matches principals.
        assert!(identity_problems(&info(ana, ana), &["*@example.com".into()]).is_empty());
        // A pinned placeholder first, the pool's own file's principal after.
        assert!(identity_problems(
            &info(ana, ana),
            &["root@org".into(), "ana@example.com".into()]
        )
        .is_empty());
        let mallory = ("Mallory", "mallory@example.org");
        assert_eq!(
            identity_problems(&info(mallory, ana), &listed),
            ["author Mallory <mallory@example.org> is not ana@example.com, whom the signing key is listed for (rule: the signer is the author and committer); commit as the key's owner"]
        );
        assert_eq!(identity_problems(&info(mallory, mallory), &listed).len(), 2);
        assert_eq!(
            identity_problems(&info(("Mallory", "ana@example.com"), ana), &listed),
            ["author Mallory <ana@example.com> is not the committer ana <ana@example.com> (rule: the signer is the author and committer)"]
        );
    }
}
