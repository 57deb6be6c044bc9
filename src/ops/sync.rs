//! `git lore sync <tier>`: bring a remote pool's history in, after every
//! commit of it verified.
//!
//! 1. The tier's pool branch is fetched into a quarantine ref
//!    (`refs/lore/incoming/<tier>`); nothing builds on it yet.
//! 2. Rollback protection: the remote tip must descend from the last one
//!    verified (`refs/lore/remotes/<tier>`), unless the caller accepts it.
//! 3. A remote pool's first commit must be signed by a pinned key (or one
//!    of ours). An unknown one is refused with its fingerprint and the
//!    command that pins it, as ssh does for an unknown host key.
//! 4. Every incoming commit is checked by the remote policy
//!    ([`audit::Policy::remote`]): signed by a key of the pool's own list in
//!    force at its parent, its event agreeing with what it changed, every
//!    entry valid, only legal moves; merges pure, or `sync` merges that
//!    resolve exactly as [`audit::plan_merge`] does. One failing commit rejects the
//!    whole fetch: nothing is integrated.
//! 5. Integration: a fast-forward; a signed `sync` merge when both sides
//!    moved (an entry both changed is taken from the side whose status is
//!    more final: retracted, refuted, superseded, active); or, when the
//!    local pool began separately, the remote's history with the local
//!    pool's own entries promoted again on top (the old tip is kept under
//!    `refs/lore/before-sync/<tier>/<old tip>`, one ref per replaced tip).
//!
//! Every integration is built on the local tip it was decided on: when
//! another write (a `promote`, a `retract`) moves the branch meanwhile,
//! nothing is written and the decision is made again on the new tip, so
//! that write is never dropped. An adopt refused that way deletes the
//! backup it wrote while the branch still reaches the old tip (nothing was
//! replaced); [`sync_racing`] lets a test land a write in that window.

use gix::ObjectId;

use super::audit::{self, plan_merge, status_of, Policy, Problem};
pub use super::audit::{MergePlan, Resolution};
use super::remote::{self, verified_ref};
use super::{trust, Lore, LoreError};
use crate::event::Event;
use crate::model::{Lesson, LessonStatus, Source};
use crate::store::layout::{self, RecordPath};
use crate::store::{Branch, Change, CommitSpec, Store, StoreError};

/// Where a local pool's tip `old` is kept when `sync` replaced its history:
/// named by that tip, so a later replacement never overwrites an earlier
/// one's backup.
pub fn before_sync_ref(tier: Source, old: ObjectId) -> String {
    format!("refs/lore/before-sync/{}/{old}", tier.as_str())
}

/// Where earlier versions kept the one backup of a tier: a ref of that
/// name would stand in the way of the refs under it, so it is moved under
/// its own tip's name when met.
fn legacy_before_sync_ref(tier: Source) -> String {
    format!("refs/lore/before-sync/{}", tier.as_str())
}

/// Where a legacy backup is held while it moves: git cannot hold
/// `before-sync/<tier>` and `before-sync/<tier>/<tip>` at once (a file and
/// a directory of one name), not even within one ref transaction, so the
/// commit is named here, out of both ways, before the legacy name goes.
fn moving_before_sync_ref(tier: Source) -> String {
    format!("refs/lore/before-sync/{}.moving", tier.as_str())
}

/// One ref write of [`legacy_moves`].
#[derive(Clone, Debug, PartialEq, Eq)]
enum RefStep {
    /// Point this ref at the commit, on disk before the next step.
    Keep(String, ObjectId),
    Delete(String),
}

/// The ref writes that move a legacy backup under its tip's name, given
/// what the legacy ref and the holding ref ([`moving_before_sync_ref`],
/// left by a move a crash interrupted) name now. In this order, after any
/// one of them the commit is still named by a ref, and running this again
/// from there finishes the move. `Err` when the two name different commits
/// (not a state this code leaves): nothing is moved.
fn legacy_moves(
    tier: Source,
    legacy: Option<ObjectId>,
    moving: Option<ObjectId>,
) -> Result<Vec<RefStep>, (ObjectId, ObjectId)> {
    let hold = moving_before_sync_ref(tier);
    let mut steps = Vec::new();
    let old = match (legacy, moving) {
        (Some(l), Some(m)) if l != m => return Err((l, m)),
        (Some(l), _) => {
            steps.push(RefStep::Keep(hold.clone(), l));
            steps.push(RefStep::Delete(legacy_before_sync_ref(tier)));
            l
        }
        (None, Some(m)) => m,
        (None, None) => return Ok(steps),
    };
    steps.push(RefStep::Keep(before_sync_ref(tier, old), old));
    steps.push(RefStep::Delete(hold));
    Ok(steps)
}

/// Moves a legacy backup of `tier` under its tip's name ([`legacy_moves`]).
fn move_legacy_backup(lore: &Lore, tier: Source) -> Result<(), LoreError> {
    let store = &lore.store;
    let (legacy, moving) = (legacy_before_sync_ref(tier), moving_before_sync_ref(tier));
    let steps = legacy_moves(tier, store.ref_tip(&legacy)?, store.ref_tip(&moving)?).map_err(
        |(l, m)| LoreError::Input {
            what: format!("the backups of pool/{tier}"),
            why: format!(
                "{legacy} ({l}) and {moving} ({m}) name different commits; keep each under its own tip's name, then sync again: g='git -C {repo}'; $g update-ref {legacy}.legacy {l} && $g update-ref -d {legacy} && $g update-ref {legacy}/{l} {l} && $g update-ref -d {legacy}.legacy && $g update-ref {legacy}/{m} {m} && $g update-ref -d {moving}",
                repo = store.git_dir().display()
            ),
        },
    )?;
    for step in steps {
        match step {
            RefStep::Keep(name, commit) => store.set_ref_durably(&name, commit, lore.env.now)?,
            RefStep::Delete(name) => store.delete_ref(&name)?,
        }
    }
    Ok(())
}

/// How many times `sync` decides again when the local pool keeps moving
/// under it.
const MAX_DECISIONS: u32 = 20;

/// How long one fetch or push may take.
pub(crate) const TRANSFER_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(300);

/// What `sync` may do beyond the default.
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// Pin this root signer (`SHA256:…`) if the remote pool's first commit
    /// is signed by it.
    pub pin: Option<String>,
    /// Accept a remote tip that does not descend from the last verified one.
    pub accept_rollback: bool,
}

/// How the remote's history came in.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum Integration {
    /// The remote has no such pool yet.
    NoRemotePool,
    /// Nothing new.
    UpToDate,
    /// The local pool moved forward to the remote's tip (or was created).
    FastForward,
    /// Both sides moved: a signed `sync` merge.
    Merged { commit: String },
    /// The local pool is now the remote's history with its own entries
    /// promoted again on top: it began separately, or its own commits were
    /// made before this key could sign the pool.
    Adopted {
        readded: usize,
        kept_at: String,
        began_separately: bool,
    },
}

/// What `sync` did, or why it refused.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Report {
    pub tier: Source,
    pub url: String,
    /// The remote's tip, when it has the pool.
    pub remote_tip: Option<String>,
    /// Commits that came in and were verified.
    pub verified: usize,
    /// Entries the local pool did not have before.
    pub new_entries: usize,
    pub integration: Option<Integration>,
    pub resolved: Vec<Resolution>,
    /// Why nothing was integrated: commits that do not verify, or files
    /// both sides changed. Empty when it succeeded.
    pub problems: Vec<Problem>,
    /// A root signer pinned by this run.
    pub pinned: Option<String>,
}

impl Report {
    pub(crate) fn new(tier: Source, url: &str) -> Report {
        Report {
            tier,
            url: remote::display_url(url),
            remote_tip: None,
            verified: 0,
            new_entries: 0,
            integration: None,
            resolved: Vec::new(),
            problems: Vec::new(),
            pinned: None,
        }
    }
}

/// `git lore sync <tier>`. See the module documentation.
pub fn sync(lore: &mut Lore, tier: Source, opts: &Options) -> Result<Report, LoreError> {
    sync_racing(lore, tier, opts, &mut |_| Ok(()))
}

/// [`sync`], running `between` after each decision on the local pool and
/// before its write (given the decision's kind: `fast-forward`, `merge` or
/// `adopt`): the window in which another writer's commit must never be
/// lost. Only for tests that make a write land exactly there; [`sync`] runs
/// nothing in it.
#[doc(hidden)]
pub fn sync_racing(
    lore: &mut Lore,
    tier: Source,
    opts: &Options,
    between: &mut dyn FnMut(&str) -> Result<(), LoreError>,
) -> Result<Report, LoreError> {
    let tier = remote::shared(tier)?;
    let url = remote::url_of(lore, tier)?;
    let mut report = Report::new(tier, &url);
    let Some(theirs) = fetch_verified(lore, tier, &url, opts, &mut report)? else {
        return Ok(report);
    };
    integrate_racing(lore, tier, theirs, &mut report, between)?;
    super::signers::refresh_verify_file(lore)?;
    Ok(report)
}

/// Fetches the tier's pool into quarantine and verifies what is new.
/// `Ok(None)` when there is nothing to integrate (no remote pool, or
/// problems, which are in `report`).
pub(crate) fn fetch_verified(
    lore: &mut Lore,
    tier: Source,
    url: &str,
    opts: &Options,
    report: &mut Report,
) -> Result<Option<ObjectId>, LoreError> {
    let branch = Branch::Pool(tier);
    let incoming = remote::incoming_ref(tier);
    let theirs =
        match lore
            .store
            .fetch_branch(url, &branch.ref_name(), &incoming, TRANSFER_TIMEOUT)?
        {
            crate::store::remote::Fetched::Missing => {
                report.integration = Some(Integration::NoRemotePool);
                return Ok(None);
            }
            crate::store::remote::Fetched::At(tip) => tip,
        };
    report.remote_tip = Some(theirs.to_string());
    // Whatever happens next, the quarantine ref goes: only verified tips
    // are remembered.
    let result = verify_incoming(lore, tier, url, theirs, opts, report);
    lore.store.delete_ref(&incoming)?;
    result
}

fn verify_incoming(
    lore: &mut Lore,
    tier: Source,
    url: &str,
    theirs: ObjectId,
    opts: &Options,
    report: &mut Report,
) -> Result<Option<ObjectId>, LoreError> {
    let branch = Branch::Pool(tier);
    let store = &lore.store;
    let last = store.ref_tip(&verified_ref(tier))?;
    if let Some(last) = last {
        if last != theirs && store.merge_base(last, theirs)? != Some(last) && !opts.accept_rollback
        {
            return Err(LoreError::RemoteRolledBack {
                tier,
                url: remote::display_url(url),
                from: last,
                to: theirs,
                dropped: store.new_commits(last, &[theirs])?.len(),
            });
        }
    }
    let local = store.tip(branch)?;
    // Never build on local history that does not verify.
    trust::ensure(store, &lore.env, branch, local)?;
    let hidden: Vec<ObjectId> = local.into_iter().chain(last).collect();
    let new = store.new_commits(theirs, &hidden)?;
    // The remote pool's first commit, if it comes in now, must be signed by
    // a key this machine pinned (or its own). A `--pin` is written only once
    // every incoming commit verified: a refused sync leaves no trust behind.
    let mut pin: Option<String> = None;
    for id in &new {
        if !store.is_root(*id)? {
            continue;
        }
        let info = store.commit_info(*id)?;
        let policy = Policy::remote(store, &lore.env)?;
        let roots = policy
            .roots
            .get(&tier)
            .cloned()
            .unwrap_or_default()
            .union(&policy.ledger);
        let key = info
            .signature
            .as_deref()
            .and_then(crate::signing::signature_key);
        let Some((key_line, fingerprint)) = key else {
            continue; // unsigned: the checks below say so
        };
        if roots.fingerprints().contains(&fingerprint) {
            continue;
        }
        if opts.pin.as_deref() == Some(fingerprint.as_str()) {
            pin = Some(key_line);
            report.pinned = Some(fingerprint);
            continue;
        }
        return Err(LoreError::UnknownRoot {
            tier,
            url: remote::display_url(url),
            fingerprint,
        });
    }
    let mut policy = Policy::remote(store, &lore.env)?;
    if let Some(key) = &pin {
        let extra = crate::signing::AllowedSigners::parse(&remote::pin_line(tier, key, None))
            .unwrap_or_default();
        let roots = policy.roots.remove(&tier).unwrap_or_default();
        policy.roots.insert(tier, roots.union(&extra));
    }
    let list: Vec<(Branch, ObjectId)> = new.iter().map(|c| (branch, *c)).collect();
    report.problems = audit::check_commits(store, &policy, &list)?;
    report.verified = new.len();
    if !report.problems.is_empty() {
        report.pinned = None;
        return Ok(None);
    }
    if let Some(key) = pin {
        remote::write_pins(store, tier, &[(key, None)], false)?;
    }
    store.set_ref(&verified_ref(tier), theirs, lore.env.now)?;
    Ok(Some(theirs))
}

/// Brings the verified remote tip `theirs` into the local pool, deciding
/// again (a bounded number of times) when the local pool moved between the
/// decision and the write.
pub(crate) fn integrate(
    lore: &mut Lore,
    tier: Source,
    theirs: ObjectId,
    report: &mut Report,
) -> Result<(), LoreError> {
    integrate_racing(lore, tier, theirs, report, &mut |_| Ok(()))
}

/// [`integrate`], with [`sync_racing`]'s `between`.
fn integrate_racing(
    lore: &mut Lore,
    tier: Source,
    theirs: ObjectId,
    report: &mut Report,
    between: &mut dyn FnMut(&str) -> Result<(), LoreError>,
) -> Result<(), LoreError> {
    let mut decisions = 1;
    loop {
        match integrate_once(lore, tier, theirs, report, between) {
            Err(LoreError::Store(StoreError::Moved { branch })) => {
                if decisions == MAX_DECISIONS {
                    return Err(StoreError::Contended {
                        branch,
                        attempts: decisions,
                    }
                    .into());
                }
                decisions += 1;
            }
            r => return r,
        }
    }
}

/// What to do with the remote's tip, decided on the local tip as it is.
#[derive(Clone, Copy, Debug)]
enum Decision {
    UpToDate,
    /// Move the branch from this tip (none: the pool is new here).
    FastForward(Option<ObjectId>),
    /// Merge into this tip.
    Merge(ObjectId),
    /// Replace the history ending at this tip; whether it began
    /// separately.
    Adopt(ObjectId, bool),
}

/// One decision on the local tip as it is now, and its write: a
/// [`StoreError::Moved`] when the tip moved meanwhile (nothing written).
fn integrate_once(
    lore: &mut Lore,
    tier: Source,
    theirs: ObjectId,
    report: &mut Report,
    between: &mut dyn FnMut(&str) -> Result<(), LoreError>,
) -> Result<(), LoreError> {
    let branch = Branch::Pool(tier);
    let local = lore.store.tip(branch)?;
    let decision = match local {
        None => Decision::FastForward(None),
        Some(local) if local == theirs => Decision::UpToDate,
        Some(local) => match lore.store.merge_base(local, theirs)? {
            Some(b) if b == theirs => Decision::UpToDate,
            Some(b) if b == local => Decision::FastForward(Some(local)),
            // Made before this key could sign the pool (or otherwise
            // refused by the remote's rules where they stand): a merge
            // would carry them, and nobody could ever accept it.
            Some(_) if !own_commits_verify(lore, tier, local, theirs)? => {
                Decision::Adopt(local, false)
            }
            Some(_) => Decision::Merge(local),
            None => Decision::Adopt(local, true),
        },
    };
    let integration = match decision {
        Decision::UpToDate => Integration::UpToDate,
        Decision::FastForward(from) => {
            between("fast-forward")?;
            fast_forward(lore, branch, from, theirs)?;
            Integration::FastForward
        }
        Decision::Merge(local) => {
            between("merge")?;
            match merge(lore, tier, local, theirs, report)? {
                Some(commit) => Integration::Merged {
                    commit: commit.to_string(),
                },
                None => return Ok(()), // problems are in the report
            }
        }
        Decision::Adopt(local, began_separately) => {
            between("adopt")?;
            adopt(lore, tier, local, theirs, began_separately)?
        }
    };
    report.new_entries = new_entries(&lore.store, local, lore.store.tip(branch)?)?;
    report.integration = Some(integration);
    Ok(())
}

/// Whether the local pool's commits the remote lacks verify by the
/// remote's rules where they stand.
fn own_commits_verify(
    lore: &Lore,
    tier: Source,
    local: ObjectId,
    theirs: ObjectId,
) -> Result<bool, LoreError> {
    let branch = Branch::Pool(tier);
    let own: Vec<(Branch, ObjectId)> = lore
        .store
        .new_commits(local, &[theirs])?
        .into_iter()
        .map(|c| (branch, c))
        .collect();
    let policy = Policy::remote(&lore.store, &lore.env)?;
    Ok(audit::check_commits(&lore.store, &policy, &own)?.is_empty())
}

/// How many more pool entries `to` holds than `from`: one diff of their
/// trees, which skips every subtree the two share, so it costs what
/// changed, not the pool (counting both pools' entries was half of a sync
/// of 1,000 commits into 1,000,000).
fn new_entries(
    store: &Store,
    from: Option<ObjectId>,
    to: Option<ObjectId>,
) -> Result<usize, LoreError> {
    let tree = |c: Option<ObjectId>| c.map(|c| store.tree_of(c)).transpose();
    let (mut added, mut removed) = (0usize, 0usize);
    for c in store.diff(tree(from)?, tree(to)?)? {
        if !matches!(layout::classify(&c.path), Some(RecordPath::Lesson(_))) {
            continue;
        }
        match (c.old, c.new) {
            (None, Some(_)) => added += 1,
            (Some(_), None) => removed += 1,
            _ => {}
        }
    }
    Ok(added.saturating_sub(removed))
}

fn fast_forward(
    lore: &mut Lore,
    branch: Branch,
    from: Option<ObjectId>,
    to: ObjectId,
) -> Result<(), LoreError> {
    if !lore.store.fast_forward(branch, from, to, lore.env.now)? {
        return Err(StoreError::Moved {
            branch: branch.to_string(),
        }
        .into());
    }
    // Verified on the way in: the anchor follows.
    let anchor = lore.store.anchor(branch)?;
    if anchor == from {
        lore.store
            .advance_anchor(branch, anchor, to, lore.env.now)?;
    }
    // No transaction wrote, but the fetch did: the repository is kept as
    // after any write (the pack it brought gets its commit-graph layer in
    // the background; without one, every later walk of the pool visits its
    // whole history: 38 s for the next sync of 1,000 into 1,000,000).
    lore.wrote = true;
    Ok(())
}

/// Both sides moved: one signed `sync` merge of `local` (the tip the merge
/// was decided on; [`StoreError::Moved`] if the pool moves meanwhile) and
/// `theirs`. `None` (with problems in the report) when the two cannot be
/// merged.
fn merge(
    lore: &mut Lore,
    tier: Source,
    local: ObjectId,
    theirs: ObjectId,
    report: &mut Report,
) -> Result<Option<ObjectId>, LoreError> {
    let branch = Branch::Pool(tier);
    let mut conflicts: Vec<String> = Vec::new();
    let mut resolved: Vec<Resolution> = Vec::new();
    let r = lore.transact(branch, |tx| {
        conflicts.clear();
        // Whether the local commits may be merged at all was decided on
        // `local`: commits added since are decided on again.
        if tx.base() != Some(local) {
            return Err(StoreError::Moved {
                branch: branch.to_string(),
            }
            .into());
        }
        let ours = local;
        let plan = match plan_merge(tx.store(), ours, theirs)? {
            Ok(p) => p,
            Err(problems) => {
                conflicts = problems;
                return Ok(());
            }
        };
        resolved = plan.resolved.clone();
        let mut body = String::new();
        for r in &plan.resolved {
            body.push_str(&format!(
                "{}: {} {} kept over {} ({})\n",
                r.lesson,
                r.side,
                r.kept,
                r.dropped,
                if r.kept == r.dropped {
                    "the same status on both sides; chosen by content"
                } else {
                    "the more final status"
                }
            ));
        }
        let changes = plan
            .changes
            .iter()
            .map(|(path, blob)| match blob {
                Some(b) => Change::Link {
                    path: path.clone(),
                    blob: *b,
                },
                None => Change::Delete { path: path.clone() },
            })
            .collect();
        tx.commit(
            CommitSpec::new(
                // Not the URL: it may carry credentials, and this commit
                // may be published.
                &format!("sync pool/{tier} with its remote"),
                (!body.is_empty()).then_some(body.trim_end()),
                Event::Sync {
                    pool: tier,
                    resolved: plan.resolved.iter().map(|r| r.lesson).collect(),
                },
                changes,
            )?
            .merging(theirs),
        )?;
        Ok(())
    })?;
    if !conflicts.is_empty() {
        report.problems = conflicts
            .into_iter()
            .map(|p| Problem {
                commit: theirs.to_string(),
                branch: branch.to_string(),
                problem: p,
            })
            .collect();
        return Ok(None);
    }
    report.resolved = resolved;
    Ok(r.commits.last().copied())
}

/// Deletes the backup `kept_at` of `local` that an adopt refused (nothing
/// replaced: the pool moved) wrote, while the branch still reaches `local`.
/// Anything that replaces the branch from here on first backs up a tip that
/// reaches `local`, so `local` stays named throughout. When the branch does
/// not reach it (another adopt replaced it meanwhile), the backup stays.
fn forget_backup(
    lore: &Lore,
    branch: Branch,
    local: ObjectId,
    kept_at: &str,
) -> Result<(), LoreError> {
    let store = &lore.store;
    let Some(tip) = store.tip(branch)? else {
        return Ok(());
    };
    if store.merge_base(tip, local)? == Some(local) {
        store.delete_ref(kept_at)?;
    }
    Ok(())
}

/// Takes the remote's history and applies the local pool's own changes
/// again on top of it, signed now: each entry the remote lacks is promoted
/// again (and retracted again if it was), and each entry the local pool
/// retracted and the remote has is retracted. For a local pool that began
/// separately from the remote's, and for local commits the remote's rules
/// would refuse where they stand (made before this key was a signer).
fn adopt(
    lore: &mut Lore,
    tier: Source,
    local: ObjectId,
    theirs: ObjectId,
    began_separately: bool,
) -> Result<Integration, LoreError> {
    let branch = Branch::Pool(tier);
    let own = own_entries(&lore.store, local, theirs)?;
    // The backup stands before the history is replaced.
    let kept_at = before_sync_ref(tier, local);
    move_legacy_backup(lore, tier)?;
    let store = &lore.store;
    let made_here = store.ref_tip(&kept_at)?.is_none();
    store.set_ref_durably(&kept_at, local, lore.env.now)?;
    let readded = own.iter().filter(|(_, new)| *new).count();
    let written = lore.transact_onto(branch, Some(local), theirs, |tx| {
        for (l, new) in &own {
            replay(tx, tier, l, *new)?;
        }
        Ok(())
    });
    if let (Err(LoreError::Store(StoreError::Moved { .. })), true) = (&written, made_here) {
        // Best effort: a backup left behind names history the pool still
        // has, as every refused adopt's did before; sync decides again.
        let _ = forget_backup(lore, branch, local, &kept_at);
    }
    written?;
    Ok(Integration::Adopted {
        readded,
        kept_at,
        began_separately,
    })
}

/// The local pool's entries that adopting `theirs` would lose, as the
/// local pool has them, each with whether the remote lacks it.
fn own_entries(
    store: &Store,
    local: ObjectId,
    theirs: ObjectId,
) -> Result<Vec<(Lesson, bool)>, LoreError> {
    let remote_tree = store.tree_of(theirs)?;
    // (entry as the local pool has it, whether the remote lacks it)
    let mut own: Vec<(Lesson, bool)> = Vec::new();
    for c in store.diff(Some(remote_tree), Some(store.tree_of(local)?))? {
        let (Some(RecordPath::Lesson(id)), Some(blob)) = (layout::classify(&c.path), c.new) else {
            continue;
        };
        let lesson: Lesson = serde_json::from_slice(&store.blob(blob)?).map_err(|source| {
            LoreError::UnreadableEntry {
                id,
                said: "",
                source,
            }
        })?;
        match c.old {
            // Active entries come back as they are, retracted ones as a
            // promote and its retraction. (Superseded and refuted entries
            // need the relation that made them so; they stay in the kept
            // history.)
            None if matches!(
                lesson.status,
                LessonStatus::Active | LessonStatus::Retracted
            ) =>
            {
                own.push((lesson, true))
            }
            // The remote has it: only a local retraction is carried over.
            Some(old) if lesson.status == LessonStatus::Retracted => {
                let theirs_status = status_of(&store.blob(old)?);
                if theirs_status.is_some_and(|s| s != LessonStatus::Retracted) {
                    own.push((lesson, false));
                }
            }
            _ => {}
        }
    }
    Ok(own)
}

/// Carries one of the local pool's entries onto the remote's history: an
/// entry the remote lacks is promoted again, and a local retraction is
/// retracted again.
fn replay(
    tx: &mut crate::store::Tx<'_>,
    tier: Source,
    l: &Lesson,
    new: bool,
) -> Result<(), LoreError> {
    let path = layout::lesson_path(l.id);
    let mut entry = match new {
        true => {
            let mut e = l.clone();
            e.status = LessonStatus::Active;
            e.superseded_by = None;
            tx.commit(CommitSpec::new(
                &format!("promote {} into pool/{tier}", l.id),
                Some("promoted again on top of the remote pool's history by `git lore sync`"),
                Event::Promote {
                    lesson: l.id,
                    artifact: l.evidence.artifact_ids.first().copied().unwrap_or(l.id),
                    visibility: l.visibility,
                    pool: tier,
                },
                vec![Change::Put {
                    path: path.clone(),
                    bytes: crate::model::canonical_json(&e),
                }],
            )?)?;
            e
        }
        false => tx
            .read(&path)?
            .and_then(|b| serde_json::from_slice::<Lesson>(&b).ok())
            .ok_or_else(|| LoreError::BadPoolEntry {
                id: l.id,
                why: "the remote's entry does not read".into(),
            })?,
    };
    if l.status == LessonStatus::Retracted {
        let from = entry.status;
        entry.status = LessonStatus::Retracted;
        tx.commit(CommitSpec::new(
            &format!("retract {} in pool/{tier}", l.id),
            None,
            Event::Retract {
                lesson: l.id,
                from,
                pool: tier,
                reason: "retracted here before the pool was synced".into(),
            },
            vec![Change::Put {
                path,
                bytes: crate::model::canonical_json(&entry),
            }],
        )?)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;

    /// Refs as git keeps them: a name that is a directory of another
    /// cannot be created (`a` and `a/b` never both exist).
    fn apply(refs: &mut BTreeMap<String, ObjectId>, step: &RefStep) {
        match step {
            RefStep::Keep(name, commit) => {
                let clash = refs.keys().any(|r| {
                    r != name
                        && (r.starts_with(&format!("{name}/"))
                            || name.starts_with(&format!("{r}/")))
                });
                assert!(!clash, "git refuses {name} next to {refs:?}");
                refs.insert(name.clone(), *commit);
            }
            RefStep::Delete(name) => {
                refs.remove(name);
            }
        }
    }

    fn state(refs: &BTreeMap<String, ObjectId>) -> (Option<ObjectId>, Option<ObjectId>) {
        let at = |n: String| refs.get(&n).copied();
        (
            at(legacy_before_sync_ref(Source::Org)),
            at(moving_before_sync_ref(Source::Org)),
        )
    }

    #[test]
    fn a_legacy_backup_is_named_by_some_ref_after_every_step_of_its_move() {
        let old = ObjectId::from_hex(b"1111111111111111111111111111111111111111").unwrap();
        let other = ObjectId::from_hex(b"2222222222222222222222222222222222222222").unwrap();
        let start: BTreeMap<String, ObjectId> = [
            (legacy_before_sync_ref(Source::Org), old),
            (before_sync_ref(Source::Public, other), other),
        ]
        .into();
        let moved: BTreeMap<String, ObjectId> = [
            (before_sync_ref(Source::Org, old), old),
            (before_sync_ref(Source::Public, other), other),
        ]
        .into();
        let (l, m) = state(&start);
        let steps = legacy_moves(Source::Org, l, m).unwrap();
        // Interrupted after each step (a crash), then run again.
        for done in 0..=steps.len() {
            let mut refs = start.clone();
            for step in &steps[..done] {
                apply(&mut refs, step);
                assert!(
                    refs.iter()
                        .any(|(n, c)| *c == old && n.starts_with("refs/lore/before-sync/")),
                    "{old} named by no backup after {step:?}: {refs:?}"
                );
            }
            let (l, m) = state(&refs);
            for step in legacy_moves(Source::Org, l, m).unwrap() {
                apply(&mut refs, &step);
            }
            assert_eq!(refs, moved, "resumed after {done} steps");
        }
        assert_eq!(legacy_moves(Source::Org, None, None), Ok(Vec::new()));
        assert_eq!(
            legacy_moves(Source::Org, Some(old), Some(other)),
            Err((old, other))
        );
    }
}
