//! Review (stages 6–8): the human's confirm / pass / unconfirm, the jury's
//! verdict, and promotion into the pools — each transition one signed commit.
//!
//! Decisions are made by the pure functions of [`crate::review`] on the
//! proposal as it stands at the tip the commit lands on (re-read on a lost
//! race). None of the human verbs calls a model. An unjudged lesson is an
//! outage: nothing is written and it stays confirmed.

use serde_json::Value;

use super::backend::Backend;
use super::{Lore, LoreError};
use crate::model::{canonical_json, Id, Lesson, Proposal, ProposalStatus, Source, Visibility};
use crate::pipeline::validate_confirmed;
use crate::review::{self, JudgeResult, NoOp, RubricSet, Transition};
use crate::schema::{self, SchemaKind};
use crate::store::{layout, Branch, Change, CommitSpec, Tx};
use crate::trailers::{Action, LoreTrailers};

fn read(tx: &Tx<'_>, id: Id) -> Result<Proposal, LoreError> {
    let path = layout::proposal_path(id);
    let bytes = tx
        .read(&path)?
        .ok_or_else(|| LoreError::Refused(format!("lesson {id} not found")))?;
    serde_json::from_slice(&bytes).map_err(|e| {
        LoreError::Refused(format!(
            "lesson {id} is malformed ({e}); refusing to change it"
        ))
    })
}

fn review_err(e: review::ReviewError) -> LoreError {
    LoreError::Refused(e.to_string())
}

/// What a transition did.
#[derive(Clone, Debug, PartialEq)]
pub enum Done {
    /// A commit was written; the proposal as it now stands.
    Changed(Box<Proposal>),
    /// Nothing to do; why.
    Unchanged(NoOp),
}

fn trailers_for(action: Action, before: &Proposal, after: &Proposal) -> LoreTrailers {
    let mut t = LoreTrailers::new(action);
    t.lesson = Some(after.id);
    t.artifact = Some(after.artifact_id);
    t.from = Some(before.status.to_string());
    t.status = Some(after.status.to_string());
    t.visibility = after.visibility.map(|v| v.to_string());
    t
}

fn put(p: &Proposal) -> Change {
    Change::Put {
        path: layout::proposal_path(p.id),
        bytes: canonical_json(p),
    }
}

/// Applies `decide` to lesson `id` on the ledger and commits the result.
fn transition(
    lore: &mut Lore,
    id: Id,
    action: Action,
    subject: impl Fn(&Proposal) -> String,
    decide: impl Fn(&Proposal) -> Result<Transition, LoreError>,
    extra: impl Fn(&mut LoreTrailers),
) -> Result<Done, LoreError> {
    let r = lore.transact(Branch::Ledger, |tx| {
        let before = read(tx, id)?;
        match decide(&before)? {
            Transition::Unchanged(n) => Ok(Done::Unchanged(n)),
            Transition::Changed(after) => {
                let mut t = trailers_for(action, &before, &after);
                extra(&mut t);
                tx.commit(CommitSpec::new(
                    &subject(&after),
                    None,
                    t,
                    vec![put(&after)],
                )?)?;
                Ok(Done::Changed(after))
            }
        }
    })?;
    Ok(r.value)
}

/// `confirm ID VISIBILITY [--justification TEXT]`.
pub fn confirm(
    lore: &mut Lore,
    id: Id,
    visibility: Visibility,
    justification: Option<&str>,
) -> Result<Done, LoreError> {
    let now = lore.env.now;
    transition(
        lore,
        id,
        Action::Confirm,
        |p| {
            format!(
                "confirm {}: {} visibility",
                p.id,
                p.visibility.map(|v| v.as_str()).unwrap_or("?")
            )
        },
        |p| {
            let t = review::confirm(p, visibility, justification, now).map_err(review_err)?;
            if let Transition::Changed(next) = &t {
                validate_confirmed(&next.candidate).map_err(|e| {
                    LoreError::Refused(format!(
                        "candidate of lesson {id} does not validate; not confirmed: {e}"
                    ))
                })?;
            }
            Ok(t)
        },
        |_| {},
    )
}

/// `pass ID [REASON]`: the human's "don't share". Terminal.
pub fn pass(lore: &mut Lore, id: Id, reason: Option<&str>) -> Result<Done, LoreError> {
    let now = lore.env.now;
    let reason_trailer = reason
        .map(str::trim)
        .filter(|r| !r.is_empty())
        .map(str::to_owned);
    transition(
        lore,
        id,
        Action::Pass,
        |p| format!("pass {}", p.id),
        |p| review::pass(p, reason, now).map_err(review_err),
        |t| t.reason = reason_trailer.clone(),
    )
}

/// `unconfirm ID`: back to pending, the pre-confirm candidate restored.
pub fn unconfirm(lore: &mut Lore, id: Id) -> Result<Done, LoreError> {
    transition(
        lore,
        id,
        Action::Unconfirm,
        |p| format!("unconfirm {}", p.id),
        |p| review::unconfirm(p).map_err(review_err),
        |_| {},
    )
}

/// The rubrics in force: `.lore/rubrics.json` on the ledger, else the builtins.
pub fn rubrics(lore: &Lore) -> Result<RubricSet, LoreError> {
    match lore.store.read(Branch::Ledger, layout::RUBRICS_PATH)? {
        None => Ok(RubricSet::builtin()),
        Some(bytes) => RubricSet::parse(&String::from_utf8_lossy(&bytes)).map_err(|e| {
            LoreError::BadInput(format!(
                "{} on the ledger is invalid: {e}",
                layout::RUBRICS_PATH
            ))
        }),
    }
}

/// Validates `text` as a rubrics file and commits it to the ledger (a
/// `config` commit, audited like any verdict).
pub fn set_rubrics(lore: &mut Lore, text: &str) -> Result<bool, LoreError> {
    let set = RubricSet::parse(text)
        .map_err(|e| LoreError::BadInput(format!("rubrics file refused: {e}")))?;
    let bytes = canonical_json(
        &serde_json::from_str::<Value>(text).map_err(|e| LoreError::BadInput(e.to_string()))?,
    );
    let r = lore.transact(Branch::Ledger, |tx| {
        if tx.read(layout::RUBRICS_PATH)?.as_deref() == Some(bytes.as_slice()) {
            return Ok(false);
        }
        let mut t = LoreTrailers::new(Action::Config);
        t.reason = Some("rubrics".into());
        let ids: Vec<&str> = set.rubrics().iter().map(|r| r.id.as_str()).collect();
        tx.commit(CommitSpec::new(
            &format!("config: rubrics {}", ids.join(", ")),
            None,
            t,
            vec![Change::Put {
                path: layout::RUBRICS_PATH.into(),
                bytes: bytes.clone(),
            }],
        )?)?;
        Ok(true)
    })?;
    Ok(r.value)
}

/// The outcome of judging one lesson.
#[derive(Clone, Debug, PartialEq)]
pub enum Judged {
    /// A verdict was recorded (approved or rejected).
    Recorded(Box<Proposal>),
    /// Could not judge: nothing written, the lesson stays confirmed.
    Unjudged { id: Id, why: String },
    /// Decided meanwhile by another writer (a concurrent `judge --all`);
    /// nothing written by this one.
    Skipped { id: Id, status: ProposalStatus },
}

/// The reason a public lesson is blocked by the disclosure scanner.
pub const DISCLOSURE_REASON: &str = "disclosure_scan";

/// `judge ID VERDICTS`: records the jury's verdict (or refuses, or reports
/// that the panel could not be trusted). `judged` is the record the judges
/// saw, when they were run by git-lore: if the lesson changed since, the
/// verdict is not applied to content the jury never read.
pub fn judge(
    lore: &mut Lore,
    id: Id,
    verdicts: &Value,
    model: Option<&str>,
    judged: Option<&Proposal>,
) -> Result<Judged, LoreError> {
    let rubrics = rubrics(lore)?;
    let now = lore.env.now;
    let r = lore.transact(Branch::Ledger, |tx| {
        let before = read(tx, id)?;
        if let Some(seen) = judged {
            if before != *seen {
                if before.status != ProposalStatus::Confirmed {
                    return Ok(Judged::Skipped {
                        id,
                        status: before.status,
                    });
                }
                return Ok(Judged::Unjudged {
                    id,
                    why: format!(
                        "lesson {id} changed while the jury deliberated; its verdict is not applied"
                    ),
                });
            }
        }
        let after =
            match review::judge_proposal(&before, &rubrics, verdicts, now).map_err(review_err)? {
                JudgeResult::Unjudged(why) => {
                    return Ok(Judged::Unjudged {
                        id,
                        why: why.message(id),
                    });
                }
                JudgeResult::Recorded(p) => p,
            };
        let mut after = *after;
        // The disclosure scanner runs on every public lesson, whatever the
        // judges said, and blocks it.
        if after.visibility == Some(Visibility::Public) {
            let findings = review::scan_lesson(&after.candidate);
            if !findings.is_empty() {
                if let Some(v) = after.verdict.as_mut() {
                    if v.passed {
                        v.passed = false;
                        v.reason = DISCLOSURE_REASON.into();
                    }
                    v.failed_criterion
                        .get_or_insert_with(|| "disclosure".into());
                }
                after.status = ProposalStatus::Rejected;
            }
        }
        let verdict = after.verdict.as_ref().expect("a recorded verdict");
        let mut t = trailers_for(Action::Judge, &before, &after);
        t.rubric = verdict.rubric_id.clone();
        t.gate = verdict.gate_policy.clone();
        t.score = verdict.aggregate_score.map(|s| format!("{s}"));
        t.reason = Some(verdict.reason.clone());
        t.judges = review::jury::judge_lines(verdict);
        t.model = model.map(str::to_owned);
        let subject = format!(
            "judge {}: {}{}",
            after.id,
            after.status,
            match (&verdict.rubric_id, verdict.aggregate_score) {
                (Some(r), Some(s)) => format!(" under {r} ({s})"),
                _ => format!(" ({})", verdict.reason),
            }
        );
        tx.commit(CommitSpec::new(&subject, None, t, vec![put(&after)])?)?;
        Ok(Judged::Recorded(Box::new(after)))
    })?;
    Ok(r.value)
}

/// The author secret `author_key` is derived from: created on first use
/// (0600, never overwritten — a concurrent creator's secret wins), then only
/// ever read. A malformed secret is refused, never replaced.
fn author_secret(lore: &mut Lore) -> Result<String, LoreError> {
    let path = lore.store.git_dir().join(super::init::AUTHOR_SECRET_PATH);
    if !path.exists() {
        let mut random = [0u8; 32];
        rand::RngCore::fill_bytes(lore.rng(), &mut random);
        let text = format!("{}\n", review::secret_from_random(random));
        match lore.store.write_private_file(
            super::init::AUTHOR_SECRET_PATH,
            text.as_bytes(),
            0o600,
            true,
        ) {
            Ok(_) => {}
            Err(crate::store::StoreError::Io { source, .. })
                if source.kind() == std::io::ErrorKind::AlreadyExists => {}
            Err(e) => return Err(e.into()),
        }
    }
    let bytes = std::fs::read(&path).map_err(|e| {
        LoreError::Refused(format!(
            "cannot read the author secret {}: {e}",
            path.display()
        ))
    })?;
    review::parse_secret(&bytes).map_err(|e| LoreError::Refused(format!("{}: {e}", path.display())))
}

/// The pool a visibility promotes into.
pub fn pool_of(v: Visibility) -> Branch {
    Branch::Pool(v.source())
}

/// `promote ID`: an approved lesson becomes a Lesson v2 entry on its pool;
/// a rejected one is only stamped. The pool entry is written first, the
/// ledger stamp last, so a crash in between is finished by running it again.
/// Running it again after it finished is a no-op.
pub fn promote(lore: &mut Lore, id: Id) -> Result<Done, LoreError> {
    let p = super::query::proposal(lore, id)?;
    if p.promoted_at.is_some() {
        return Ok(Done::Unchanged(NoOp::AlreadyPromoted { id }));
    }
    let now = lore.env.now;
    if p.status == ProposalStatus::Approved {
        let visibility = p.visibility.ok_or_else(|| {
            LoreError::Refused(format!("lesson {id} is approved but has no visibility"))
        })?;
        // Every check that can refuse comes before the author secret may be
        // created: a refusal writes nothing.
        let allowed = ledger_allowed_text(lore)?;
        // Built and checked with a placeholder key, so the author secret is
        // only created once nothing can refuse any more.
        let mut lesson = review::build_lesson(&p, &"0".repeat(32), now).map_err(review_err)?;
        check_lesson(&lesson)?;
        lesson.author_key =
            review::author_key(&author_secret(lore)?, visibility).map_err(review_err)?;
        let pool = pool_of(visibility);
        lore.transact(pool, |tx| {
            let path = layout::lesson_path(id);
            if tx.read(&path)?.is_some() {
                return Ok(()); // written by an earlier, interrupted promote
            }
            let mut changes = vec![Change::Put {
                path,
                bytes: canonical_json(&lesson),
            }];
            if tx.read(layout::POOL_ALLOWED_SIGNERS)?.is_none() {
                changes.push(Change::Put {
                    path: layout::POOL_ALLOWED_SIGNERS.into(),
                    bytes: allowed.clone().into_bytes(),
                });
            }
            let mut t = LoreTrailers::new(Action::Promote);
            t.lesson = Some(id);
            t.artifact = Some(p.artifact_id);
            t.visibility = Some(visibility.to_string());
            t.pool = Some(visibility.source().as_str().into());
            t.status = Some("active".into());
            tx.commit(CommitSpec::new(
                &format!("promote {id} into {pool}"),
                None,
                t,
                changes,
            )?)?;
            Ok(())
        })?;
    }
    let pool = p
        .visibility
        .filter(|_| p.status == ProposalStatus::Approved)
        .map(|v| v.source());
    transition(
        lore,
        id,
        Action::Promote,
        |p| match pool {
            Some(src) => format!("promote {}: stamped, entry on pool/{}", p.id, src.as_str()),
            None => format!("promote {}: {} verdict is terminal", p.id, p.status),
        },
        |p| review::mark_promoted(p, now).map_err(review_err),
        |t| t.pool = pool.map(|s: Source| s.as_str().to_owned()),
    )
}

/// A pool entry must be valid against the published schema (a private entry
/// carries `consensus.judges` 0 by design, which only that schema minimum
/// refuses) and agree with itself (`agreed <= judges`).
fn check_lesson(lesson: &Lesson) -> Result<(), LoreError> {
    let mut v = serde_json::to_value(lesson).map_err(|e| LoreError::BadInput(e.to_string()))?;
    if lesson.visibility == Visibility::Private {
        v["consensus"]["judges"] = Value::from(lesson.consensus.judges.max(1));
    }
    if let Err(violations) = schema::validate(SchemaKind::Lesson, &v) {
        let text: Vec<String> = violations.iter().take(3).map(|x| x.to_string()).collect();
        return Err(LoreError::Refused(format!(
            "lesson {}: the pool entry would not be schema-valid; nothing written: {}",
            lesson.id,
            text.join("; ")
        )));
    }
    if lesson.consensus.agreed > lesson.consensus.judges {
        return Err(LoreError::Refused(format!(
            "lesson {}: consensus.agreed exceeds judges",
            lesson.id
        )));
    }
    Ok(())
}

/// The allowed signers a new pool starts with: the repository's own. A pool
/// must name who may sign it, so an empty list is refused.
fn ledger_allowed_text(lore: &Lore) -> Result<String, LoreError> {
    let text = match lore.store.config_string("gpg.ssh.allowedSignersFile") {
        None => String::new(),
        Some(p) => {
            let path = super::expand_path(&p, lore.env.home.as_deref(), lore.store.git_dir());
            std::fs::read_to_string(&path)
                .map_err(|e| LoreError::BadInput(format!("cannot read {}: {e}", path.display())))?
        }
    };
    if text
        .lines()
        .all(|l| l.trim().is_empty() || l.trim_start().starts_with('#'))
    {
        return Err(LoreError::Refused(
            "promote needs gpg.ssh.allowedSignersFile naming the keys allowed to sign the pools; \
             nothing written (git lore init sets it up for the key it creates)"
                .into(),
        ));
    }
    Ok(text)
}

/// Runs the rubric's judges on one proposal. `Err` is an outage (a judge
/// program missing, hung or crashed): nothing may be recorded.
pub fn run_panel(
    lore: &Lore,
    p: &Proposal,
    rubrics: &RubricSet,
    backend: &Backend,
) -> Result<Value, String> {
    let Some(rubric) = p.visibility.and_then(|v| rubrics.rubric_for(v)) else {
        return Ok(Value::Array(Vec::new())); // private: no jury
    };
    match backend {
        Backend::Offline => review::offline_panel(p, rubric).map_err(|e| e.to_string()),
        Backend::Command {
            argv: template,
            timeout,
            ..
        } => {
            let mut panel = Vec::new();
            for judge_type in &rubric.judge_types {
                let prompt =
                    review::judge_prompt(judge_type, p, rubric).map_err(|e| e.to_string())?;
                let argv: Vec<String> = template
                    .iter()
                    .map(|a| a.replace("{judge}", judge_type))
                    .collect();
                let inv = crate::process::Invocation {
                    argv,
                    env: lore.env.child_env.clone(),
                    cwd: None,
                    timeout: *timeout,
                    max_output: 1 << 20,
                    new_session: false,
                };
                let f = crate::process::run(&inv, prompt.as_bytes())
                    .map_err(|e| format!("judge {judge_type}: {e}"))?;
                if !f.success() {
                    return Err(format!(
                        "judge {judge_type}: program exited with {:?}",
                        f.code
                    ));
                }
                let text = String::from_utf8_lossy(&f.stdout);
                let trimmed = text
                    .trim()
                    .trim_start_matches("```json")
                    .trim_start_matches("```")
                    .trim_end_matches("```")
                    .trim();
                if trimmed.is_empty() {
                    return Err(format!("judge {judge_type}: empty answer"));
                }
                // A judge that does not answer with a verdict object keeps its
                // raw text in its slot, which makes the panel unusable:
                // could not judge, never a rejection.
                panel.push(match serde_json::from_str::<Value>(trimmed) {
                    Ok(Value::Object(mut o)) => {
                        o.insert("judge_type".into(), Value::from(judge_type.as_str()));
                        Value::Object(o)
                    }
                    _ => Value::from(text.into_owned()),
                });
            }
            Ok(Value::Array(panel))
        }
    }
}

/// What promoting a freshly judged lesson gave.
pub type Promoted = Result<Done, LoreError>;

/// `judge --all`: judges every confirmed lesson, one verdict recorded before
/// the next lesson is judged. `each` hears about every lesson as it is done.
pub fn judge_all(
    lore: &mut Lore,
    backend: &Backend,
    each: &mut dyn FnMut(&Judged, Option<&Promoted>),
) -> Result<Vec<Judged>, LoreError> {
    let rubrics = rubrics(lore)?;
    let confirmed = super::query::list(lore, ProposalStatus::Confirmed)?;
    let mut out = Vec::new();
    for p in confirmed {
        let judged = match run_panel(lore, &p, &rubrics, backend) {
            Err(why) => Judged::Unjudged {
                id: p.id,
                why: format!("lesson {}: {why}", p.id),
            },
            Ok(panel) => judge(lore, p.id, &panel, Some(backend.model_name()), Some(&p))?,
        };
        // A promote that fails does not stop the run: the verdict stands and
        // `git lore promote` finishes it later.
        let promoted = match &judged {
            Judged::Recorded(_) => Some(promote(lore, p.id)),
            Judged::Unjudged { .. } | Judged::Skipped { .. } => None,
        };
        each(&judged, promoted.as_ref());
        out.push(judged);
    }
    Ok(out)
}
