//! `git lore publish <org|public>`: sharing a pool with its remote.
//!
//! - **org**: `pool/org` is pushed as it is, through `git push --atomic
//!   --force-with-lease`, leased to the remote tip `sync` last verified.
//!   When the remote moved meanwhile, the remote's history is synced in
//!   first and the push tried again (a few times). Before anything is
//!   pushed, every commit the remote lacks is checked the way the remote
//!   and every teammate will check it ([`audit::Policy::remote`]): a commit
//!   signed by a key the pool does not list is refused here, with the fix.
//! - **public**: every entry of the local `pool/public` the remote's lacks
//!   (and every retraction of one it has) goes out as its own branch
//!   `review/<lesson-id>`: the remote's `pool/public` plus one signed
//!   commit that adds exactly that entry. A pull-request body is rendered
//!   for each ([`crate::review::pull_request`]). An entry the disclosure
//!   scanner flags is never pushed. A remote with no `pool/public` yet is
//!   started with the local one.
//!
//! Only `refs/heads/pool/org`, `refs/heads/pool/public` and
//! `refs/heads/review/*` are ever named in a push; the pre-push guard
//! refuses the ledger and `pool/local` besides.

use gix::ObjectId;

use super::audit::{self, Policy, Problem};
use super::sync::{self, Options, Report as SyncReport, TRANSFER_TIMEOUT};
use super::{remote, trust, Lore, LoreError};
use crate::event::Event;
use crate::model::{canonical_json, Id, Lesson, LessonStatus, Source, Visibility};
use crate::review::pull_request;
use crate::scanner;
use crate::signing::AllowedSigners;
use crate::store::remote::Pushed;
use crate::store::{layout, Branch, Change, CommitSpec};

/// How many times a push that lost a race is synced and tried again.
const ATTEMPTS: usize = 3;

/// What `publish org` did.
#[derive(Clone, Debug, serde::Serialize)]
pub struct OrgReport {
    pub url: String,
    pub dry_run: bool,
    /// The remote's tip before, and after (what was pushed).
    pub from: Option<String>,
    pub to: Option<String>,
    /// Commits the remote did not have.
    pub commits: usize,
    /// Syncs made because the remote had moved.
    pub synced: Vec<SyncReport>,
    /// Why nothing was pushed, when something would not verify there.
    pub problems: Vec<Problem>,
}

/// One public entry's fate.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Review {
    /// The lesson, or `None` for a change of who may sign.
    pub lesson: Option<Id>,
    /// `add` (a new entry), `retract`, or `signers` (a change of who may
    /// sign).
    pub change: &'static str,
    /// `pushed`, `would_push`, `already_open` or `refused`.
    pub outcome: &'static str,
    /// The review branch.
    pub branch: String,
    /// Why it was refused (disclosure findings).
    pub why: Option<String>,
    /// The pull-request body, and the file it was written to.
    #[serde(skip)]
    pub body: String,
    pub body_file: Option<String>,
    /// The command that opens the pull request.
    pub command: String,
}

/// What `publish public` did.
#[derive(Clone, Debug, serde::Serialize)]
pub struct PublicReport {
    pub url: String,
    pub dry_run: bool,
    /// The remote had no `pool/public`: the local one was pushed whole.
    pub started: bool,
    pub reviews: Vec<Review>,
    pub problems: Vec<Problem>,
}

fn remote_problem(lore: &Lore, tier: Source, p: Problem) -> Problem {
    // The one refusal a newcomer hits: their key is not a signer yet.
    if p.problem.contains("not in the allowed signers") {
        let me = super::signers::key(lore)
            .map(|k| k.fingerprint)
            .unwrap_or_default();
        return Problem {
            problem: format!(
                "{}: this repository's key {me} is not a signer of the remote pool/{tier}; send the line `git lore key` prints to a signer of the pool and ask them to run `git lore trust add {tier}`, then `git lore sync {tier}` and publish again",
                p.problem
            ),
            ..p
        };
    }
    p
}

/// `publish org`. See the module documentation.
pub fn publish_org(lore: &mut Lore, dry_run: bool) -> Result<OrgReport, LoreError> {
    let tier = Source::Org;
    let branch = Branch::Pool(tier);
    let url = remote::url_of(lore, tier)?;
    let mut report = OrgReport {
        url: remote::display_url(&url),
        dry_run,
        from: None,
        to: None,
        commits: 0,
        synced: Vec::new(),
        problems: Vec::new(),
    };
    for _ in 0..ATTEMPTS {
        let Some(local) = lore.store.tip(branch)? else {
            return Err(LoreError::Input {
                what: "pool/org".into(),
                why: "there is nothing to publish: no lesson was promoted to org yet (`git lore status`)".into(),
            });
        };
        trust::ensure(&lore.store, &lore.env, branch, Some(local))?;
        // What the remote has, verified.
        let mut s = SyncReport::new(tier, &url);
        let theirs = sync::fetch_verified(lore, tier, &url, &Options::default(), &mut s)?;
        if !s.problems.is_empty() {
            report.problems = s.problems.clone();
            report.synced.push(s);
            return Ok(report);
        }
        if let Some(t) = theirs {
            if lore.store.merge_base(t, local)? != Some(t) {
                // The remote has commits we lack: bring them in first.
                if dry_run {
                    report.from = Some(t.to_string());
                    report.problems.push(Problem {
                        commit: t.to_string(),
                        branch: branch.to_string(),
                        problem: "the remote has commits this pool lacks; `git lore sync org` (or publish without --dry-run) brings them in first".into(),
                    });
                    return Ok(report);
                }
                sync::integrate(lore, tier, t, &mut s)?;
                let stop = !s.problems.is_empty();
                report.synced.push(s);
                if stop {
                    report.problems = report.synced.last().expect("just pushed").problems.clone();
                    return Ok(report);
                }
                continue;
            }
        }
        let local = lore.store.tip(branch)?.expect("checked above");
        report.from = theirs.map(|t| t.to_string());
        if theirs == Some(local) {
            report.to = Some(local.to_string());
            return Ok(report); // up to date
        }
        // Check what goes out as the remote and every teammate will.
        let hidden: Vec<ObjectId> = theirs.into_iter().collect();
        let outgoing: Vec<(Branch, ObjectId)> = lore
            .store
            .new_commits(local, &hidden)?
            .into_iter()
            .map(|c| (branch, c))
            .collect();
        report.commits = outgoing.len();
        let policy = Policy::remote(&lore.store, &lore.env)?;
        let problems = audit::check_commits(&lore.store, &policy, &outgoing)?;
        if !problems.is_empty() {
            report.problems = problems
                .into_iter()
                .map(|p| remote_problem(lore, tier, p))
                .collect();
            return Ok(report);
        }
        if dry_run {
            report.to = Some(local.to_string());
            return Ok(report);
        }
        let name = branch.ref_name();
        match lore.store.push(
            &url,
            &[format!("{name}:{name}")],
            &[(name.clone(), theirs)],
            TRANSFER_TIMEOUT,
        )? {
            Pushed::Done => {
                lore.store
                    .set_ref(&remote::verified_ref(tier), local, lore.env.now)?;
                report.to = Some(local.to_string());
                return Ok(report);
            }
            Pushed::Stale => continue, // someone pushed first: sync and retry
            Pushed::Refused { lines } => {
                return Err(LoreError::PushRefused {
                    url: remote::display_url(&url),
                    lines: lines.join("; "),
                })
            }
        }
    }
    Err(crate::store::StoreError::Contended {
        branch: format!("{} at {}", branch, remote::display_url(&url)),
        attempts: ATTEMPTS as u32,
    }
    .into())
}

/// Where the pull-request bodies go.
#[derive(Clone, Debug, Default)]
pub struct PublicOptions {
    pub dry_run: bool,
    /// Write each body to `<dir>/<lesson-id>.md` (else the caller prints
    /// them).
    pub body_dir: Option<std::path::PathBuf>,
}

/// `publish public`. See the module documentation.
pub fn publish_public(lore: &mut Lore, opts: &PublicOptions) -> Result<PublicReport, LoreError> {
    let tier = Source::Public;
    let branch = Branch::Pool(tier);
    let url = remote::url_of(lore, tier)?;
    let mut report = PublicReport {
        url: remote::display_url(&url),
        dry_run: opts.dry_run,
        started: false,
        reviews: Vec::new(),
        problems: Vec::new(),
    };
    let Some(local) = lore.store.tip(branch)? else {
        return Err(LoreError::Input {
            what: "pool/public".into(),
            why: "there is nothing to publish: no lesson was promoted to public yet (`git lore status`)".into(),
        });
    };
    trust::ensure(&lore.store, &lore.env, branch, Some(local))?;
    let mut s = SyncReport::new(tier, &url);
    let theirs = sync::fetch_verified(lore, tier, &url, &Options::default(), &mut s)?;
    if !s.problems.is_empty() {
        report.problems = s.problems;
        return Ok(report);
    }
    let Some(theirs) = theirs else {
        return start_public(lore, &url, local, report);
    };
    // The remote's signers decide whether a review commit of ours can
    // ever be merged.
    let pool_signers = AllowedSigners::parse(
        &lore
            .store
            .read_at(theirs, layout::POOL_ALLOWED_SIGNERS)?
            .map(|b| String::from_utf8_lossy(&b).into_owned())
            .unwrap_or_default(),
    )
    .unwrap_or_default();
    let me = super::signers::key(lore)?;
    if !pool_signers.fingerprints().contains(&me.fingerprint) {
        report.problems.push(Problem {
            commit: theirs.to_string(),
            branch: branch.to_string(),
            problem: format!(
                "this repository's key {} is not a signer of the remote pool/public, so a pull request signed by it could never be merged; send the line `git lore key` prints to the pool's maintainers (they run `git lore trust add public`), then `git lore sync public` and publish again",
                me.fingerprint
            ),
        });
        return Ok(report);
    }
    let their_tree = lore.store.tree_of(theirs)?;
    let changes = lore
        .store
        .diff(Some(their_tree), Some(lore.store.tree_of(local)?))?;
    for c in changes {
        let (Some(layout::RecordPath::Lesson(id)), Some(new)) = (layout::classify(&c.path), c.new)
        else {
            continue;
        };
        let entry: Lesson = serde_json::from_slice(&lore.store.blob(new)?).map_err(|source| {
            LoreError::UnreadableEntry {
                id,
                said: "",
                source,
            }
        })?;
        let change = match c.old {
            None => "add",
            Some(old) => {
                let was: Option<Lesson> = serde_json::from_slice(&lore.store.blob(old)?).ok();
                if entry.status == LessonStatus::Retracted
                    && was.is_some_and(|w| w.status != LessonStatus::Retracted)
                {
                    "retract"
                } else {
                    continue; // only additions and retractions are proposed
                }
            }
        };
        report
            .reviews
            .push(review_one(lore, &url, theirs, &entry, change, &me, opts)?);
    }
    if let Some(r) = review_signers(lore, &url, local, theirs, opts)? {
        report.reviews.push(r);
    }
    Ok(report)
}

/// Changes of who may sign (`config` commits: a signer added, a proposal,
/// an acknowledgement) go out as they are, on a branch
/// `review/signers-<tip>` holding the local history up to the last of
/// them, so every signature and acknowledgement stays intact.
fn review_signers(
    lore: &mut Lore,
    url: &str,
    local: ObjectId,
    theirs: ObjectId,
    opts: &PublicOptions,
) -> Result<Option<Review>, LoreError> {
    if lore.store.merge_base(theirs, local)? != Some(theirs) {
        return Ok(None); // not built on the remote's history: sync first
    }
    let outgoing = lore.store.new_commits(local, &[theirs])?;
    let last_config = outgoing.iter().find(|c| {
        lore.store
            .commit_info(**c)
            .is_ok_and(|i| matches!(i.event, Ok(Event::Config { .. })))
    });
    let Some(&tip) = last_config else {
        return Ok(None);
    };
    let hex = tip.to_string();
    let short_branch = format!("review/signers-{}", &hex[..12]);
    let review_ref = format!("refs/heads/{short_branch}");
    let policy = Policy::remote(&lore.store, &lore.env)?;
    let list: Vec<(Branch, ObjectId)> = lore
        .store
        .new_commits(tip, &[theirs])?
        .into_iter()
        .map(|c| (Branch::Pool(Source::Public), c))
        .collect();
    let problems = audit::check_commits(&lore.store, &policy, &list)?;
    let mut review = Review {
        lesson: None,
        change: "signers",
        outcome: "refused",
        branch: short_branch.clone(),
        why: None,
        body: String::new(),
        body_file: None,
        command: format!(
            "{} --base pool/public --head {short_branch} --title 'Change who may sign pool/public' --body 'Signed config commits: merge with a merge commit.'",
            gh_pr_create(url)
        ),
    };
    if let Some(p) = problems.first() {
        review.why = Some(format!("it would not verify at the remote: {}", p.problem));
        return Ok(Some(review));
    }
    if lore
        .store
        .ls_remote(url, &review_ref, TRANSFER_TIMEOUT)?
        .is_some()
    {
        review.outcome = "already_open";
        return Ok(Some(review));
    }
    if opts.dry_run {
        review.outcome = "would_push";
        return Ok(Some(review));
    }
    review.outcome = match lore.store.push(
        url,
        &[format!("{tip}:{review_ref}")],
        &[(review_ref.clone(), None)],
        TRANSFER_TIMEOUT,
    )? {
        Pushed::Done => "pushed",
        Pushed::Stale => "already_open",
        Pushed::Refused { lines } => {
            review.why = Some(format!("the remote refused it: {}", lines.join("; ")));
            "refused"
        }
    };
    Ok(Some(review))
}

/// The remote has no `pool/public`: push the local one, once every commit
/// of it verifies as the remote will check it.
fn start_public(
    lore: &mut Lore,
    url: &str,
    local: ObjectId,
    mut report: PublicReport,
) -> Result<PublicReport, LoreError> {
    let branch = Branch::Pool(Source::Public);
    let all: Vec<(Branch, ObjectId)> = lore
        .store
        .new_commits(local, &[])?
        .into_iter()
        .map(|c| (branch, c))
        .collect();
    let policy = Policy::remote(&lore.store, &lore.env)?;
    let problems = audit::check_commits(&lore.store, &policy, &all)?;
    // Nothing the disclosure scanner flags leaves, even to start a pool.
    for c in lore.store.diff(None, Some(lore.store.tree_of(local)?))? {
        let (Some(layout::RecordPath::Lesson(id)), Some(blob)) = (layout::classify(&c.path), c.new)
        else {
            continue;
        };
        if let Ok(entry) = serde_json::from_slice::<Lesson>(&lore.store.blob(blob)?) {
            let findings = scanner::scan_lesson(&candidate_of(&entry));
            if !findings.is_empty() {
                report.problems.push(Problem {
                    commit: local.to_string(),
                    branch: branch.to_string(),
                    problem: format!(
                        "lesson {id} is flagged by the disclosure scanner ({}); pool/public cannot be started with it",
                        findings.iter().map(|f| f.to_string()).collect::<Vec<_>>().join("; ")
                    ),
                });
            }
        }
    }
    report.problems.extend(problems);
    if !report.problems.is_empty() || report.dry_run {
        report.started = report.problems.is_empty();
        return Ok(report);
    }
    let name = branch.ref_name();
    match lore.store.push(
        url,
        &[format!("{name}:{name}")],
        &[(name.clone(), None)],
        TRANSFER_TIMEOUT,
    )? {
        Pushed::Done => {
            lore.store
                .set_ref(&remote::verified_ref(Source::Public), local, lore.env.now)?;
            report.started = true;
            Ok(report)
        }
        Pushed::Stale => Err(LoreError::Input {
            what: "pool/public".into(),
            why: "someone started the remote pool/public meanwhile; run `git lore publish public` again".into(),
        }),
        Pushed::Refused { lines } => Err(LoreError::PushRefused {
            url: remote::display_url(url),
            lines: lines.join("; "),
        }),
    }
}

fn candidate_of(l: &Lesson) -> crate::model::Candidate {
    crate::model::Candidate {
        claim: l.claim.clone(),
        rationale: l.rationale.clone(),
        evidence: l.evidence.clone(),
        applies_to: l.applies_to.clone(),
    }
}

/// Proposes one entry: a `review/<id>` branch on the remote's tip with one
/// signed commit, and the pull-request body.
fn review_one(
    lore: &mut Lore,
    url: &str,
    theirs: ObjectId,
    entry: &Lesson,
    change: &'static str,
    me: &super::signers::Key,
    opts: &PublicOptions,
) -> Result<Review, LoreError> {
    let id = entry.id;
    let review_ref = format!("refs/heads/review/{id}");
    let mut review = Review {
        lesson: Some(id),
        change,
        outcome: "refused",
        branch: format!("review/{id}"),
        why: None,
        body: String::new(),
        body_file: None,
        command: String::new(),
    };
    if let Some(why) = never_proposed(entry) {
        review.why = Some(why);
        return Ok(review);
    }
    describe(lore, &mut review, url, entry, me, opts);
    if lore
        .store
        .ls_remote(url, &review_ref, TRANSFER_TIMEOUT)?
        .is_some()
    {
        review.outcome = "already_open";
        return Ok(review);
    }
    if opts.dry_run {
        review.outcome = "would_push";
        return Ok(review);
    }
    if let Some(dir) = &opts.body_dir {
        write_body(dir, id, &review.body)?;
    }
    // A retraction goes out with the reason its author gave locally: the
    // newest retract of it on pool/public, walking back from the tip.
    let reason = if change == "add" {
        String::new()
    } else {
        retract_reason(lore, id)?.unwrap_or_else(|| "retracted by its author".into())
    };
    let (_, commits) = lore.build_detached(Branch::Pool(Source::Public), theirs, |tx| {
        let spec = match change {
            "add" => add_spec(entry)?,
            _ => retract_spec(tx, id, &reason)?,
        };
        tx.commit(spec)?;
        Ok(())
    })?;
    let head = *commits.last().expect("one commit was built");
    match lore.store.push(
        url,
        &[format!("{head}:{review_ref}")],
        &[(review_ref.clone(), None)],
        TRANSFER_TIMEOUT,
    )? {
        Pushed::Done => review.outcome = "pushed",
        Pushed::Stale => review.outcome = "already_open",
        Pushed::Refused { lines } => {
            review.why = Some(format!("the remote refused it: {}", lines.join("; ")));
        }
    }
    Ok(review)
}

/// Why `entry` is never proposed to pool/public: a visibility other than
/// public, or text the disclosure scanner flags.
fn never_proposed(entry: &Lesson) -> Option<String> {
    if entry.visibility != Visibility::Public {
        return Some(format!(
            "its visibility is {}, not public",
            entry.visibility
        ));
    }
    let findings = scanner::scan_lesson(&candidate_of(entry));
    if !findings.is_empty() {
        return Some(format!(
            "flagged by the disclosure scanner, never pushed: {}",
            findings
                .iter()
                .map(|f| f.to_string())
                .collect::<Vec<_>>()
                .join("; ")
        ));
    }
    None
}

/// Fills in the pull request's body, where the body goes and the command
/// that opens the pull request.
fn describe(
    lore: &Lore,
    review: &mut Review,
    url: &str,
    entry: &Lesson,
    me: &super::signers::Key,
    opts: &PublicOptions,
) {
    let id = entry.id;
    let verdict = super::query::proposal(lore, id)
        .ok()
        .and_then(|p| p.verdict);
    review.body = pull_request::body(
        entry,
        verdict.as_ref(),
        // No findings: an entry with any is never proposed.
        &[],
        &pull_request::Signed {
            principal: me.principal.clone(),
            fingerprint: me.fingerprint.clone(),
            status: "good: listed in the remote pool's allowed signers".into(),
        },
    );
    let title = crate::recall::render::plain(&entry.claim, 120);
    if let Some(dir) = &opts.body_dir {
        let path = dir.join(format!("{id}.md"));
        review.body_file = Some(path.display().to_string());
    }
    review.command = format!(
        "{} --base pool/public --head {} --title {} --body-file {}",
        gh_pr_create(url),
        review.branch,
        super::shell_quote(&title),
        super::shell_quote(review.body_file.as_deref().unwrap_or("BODY.md"))
    );
}

/// `gh pr create`, naming the repository at `url` when `gh` can tell it
/// ([`remote::gh_repo`]), so the command opens the pull request there from
/// any directory.
fn gh_pr_create(url: &str) -> String {
    match remote::gh_repo(url) {
        Some(repo) => format!("gh pr create --repo {}", super::shell_quote(&repo)),
        None => "gh pr create".into(),
    }
}

/// Writes the pull request's body to `<dir>/<id>.md`.
fn write_body(dir: &std::path::Path, id: Id, body: &str) -> Result<(), LoreError> {
    std::fs::create_dir_all(dir).map_err(|source| LoreError::File {
        what: "cannot create",
        path: dir.to_owned(),
        source,
    })?;
    let path = dir.join(format!("{id}.md"));
    std::fs::write(&path, body).map_err(|source| LoreError::File {
        what: "cannot write",
        path,
        source,
    })
}

/// The commit that adds `entry` to pool/public, active.
fn add_spec(entry: &Lesson) -> Result<CommitSpec, LoreError> {
    let id = entry.id;
    let mut added = entry.clone();
    added.status = LessonStatus::Active;
    added.superseded_by = None;
    Ok(CommitSpec::new(
        &format!("promote {id} into pool/public"),
        None,
        Event::Promote {
            lesson: id,
            artifact: entry.evidence.artifact_ids.first().copied().unwrap_or(id),
            visibility: Visibility::Public,
            pool: Source::Public,
        },
        vec![Change::Put {
            path: layout::lesson_path(id),
            bytes: canonical_json(&added),
        }],
    )?)
}

/// The commit that retracts the remote's entry of `id`, for `reason`.
fn retract_spec(tx: &crate::store::Tx<'_>, id: Id, reason: &str) -> Result<CommitSpec, LoreError> {
    let path = layout::lesson_path(id);
    let current: Lesson = tx
        .read(&path)?
        .and_then(|b| serde_json::from_slice(&b).ok())
        .ok_or_else(|| LoreError::BadPoolEntry {
            id,
            why: "the remote's entry does not read".into(),
        })?;
    let mut retracted = current.clone();
    retracted.status = LessonStatus::Retracted;
    Ok(CommitSpec::new(
        &format!("retract {id} in pool/public"),
        None,
        Event::Retract {
            lesson: id,
            from: current.status,
            pool: Source::Public,
            reason: reason.to_owned(),
        },
        vec![Change::Put {
            path,
            bytes: canonical_json(&retracted),
        }],
    )?)
}

/// The reason of the newest `retract` of `id` on the local `pool/public`.
fn retract_reason(lore: &Lore, id: Id) -> Result<Option<String>, LoreError> {
    let Some(tip) = lore.store.tip(Branch::Pool(Source::Public))? else {
        return Ok(None);
    };
    for c in lore.store.ancestors(tip)? {
        if let Ok(Event::Retract { lesson, reason, .. }) = lore.store.commit_info(c)?.event {
            if lesson == id {
                return Ok(Some(reason));
            }
        }
    }
    Ok(None)
}
