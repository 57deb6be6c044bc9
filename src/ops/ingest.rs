//! Ingest: artifacts become proposals or declines, each one signed commit
//! on the ledger; outages leave artifacts untouched.
//!
//! Per artifact, in order: seen (from history, via the index) → pre-gate →
//! model → parse → refusal → stitch provenance → validate → write. The run
//! has three parts:
//! 1. **plan**: each input item is triaged — invalid, a repeat of an earlier
//!    item, seen, stopped by the pre-gate, or asked of the model, whose
//!    determination waits to be written;
//! 2. **write chunks**: every [`CHUNK`] determinations are written in as few
//!    transactions as the ledger allows, each re-checking idempotency at the
//!    tip it lands on, so concurrent ingests of the same artifacts record
//!    exactly one outcome each;
//! 3. **resolve repeats**: an artifact given twice gets its first copy's fate.
//!
//! Model calls happen outside any transaction. With a model program, each
//! artifact is first claimed ([`super::claim`]): an artifact another run is
//! asking about right now is `skipped … claimed`, so overlapping runs make
//! one model call per artifact; the claim is held until its outcome is
//! written.

use std::collections::HashMap;

use rand::RngCore;

use super::backend::Backend;
use super::claim::{Claims, Take};
use super::{Lore, LoreError};
use crate::event::{CommitRef, Event};
use crate::model::{
    canonical_json, iso, Artifact, Candidate, Decline, DeclineReason, Id, Proposal,
};
use crate::pipeline::{self, transform, Determination, InputError, Item};
use crate::store::{layout, ArtifactOutcome, Branch, Change, CommitSpec, Index, Tx};

/// Artifacts written per transaction when a model program determines them:
/// the ref moves once per chunk, so a crash loses at most one chunk's
/// writes (never a half-written one), here at most this many model calls.
pub const CHUNK: usize = 256;

/// Artifacts written per transaction by the offline backend, whose
/// determinations cost nothing to make again. A transaction writes one
/// pack, and a tree's delta chain cannot cross packs: with 256 a chunk, at
/// 100,000 artifacts nearly every fan-out tree a chunk touches is stored
/// whole (about 230 of the 1,024 per pack), and the batch ends 3.4 times
/// `git fast-import`'s size. With this many, each tree is stored whole
/// once per pack and as a small delta after that (docs/PERFORMANCE.md).
pub const OFFLINE_CHUNK: usize = 2048;

/// Why an artifact was skipped without a model call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Skip {
    /// History already has an outcome for it.
    Seen,
    /// It names no version, so no versioned lesson can come of it.
    Pregate,
    /// Another run is asking the model about it right now; that run records
    /// its outcome (or reports its own outage).
    Claimed,
}

/// What happened to one input item.
#[derive(Clone, Debug, PartialEq)]
pub enum Outcome {
    Proposed {
        lesson: Id,
        artifact: Id,
    },
    Declined {
        artifact: Id,
        reason: DeclineReason,
        /// What the transform said about it, if anything.
        detail: Option<String>,
    },
    Skipped {
        artifact: Id,
        why: Skip,
    },
    /// Nothing written for it; retrying is safe.
    Untouched {
        artifact: Id,
        why: String,
    },
    Invalid {
        source: String,
        why: InputError,
    },
}

/// The result of an ingest run.
#[derive(Debug)]
pub struct Report {
    /// One outcome per input item, in input order.
    pub outcomes: Vec<Outcome>,
    /// The error that stopped the run, if any. Items written before it keep
    /// their outcomes; the rest say they were not written.
    pub error: Option<LoreError>,
}

/// A determination waiting to be written.
enum Pending {
    Propose {
        lesson: Id,
        artifact: Box<Artifact>,
        candidate: Box<Candidate>,
        redo: Option<Redo>,
    },
    Decline {
        artifact: Box<Artifact>,
        reason: DeclineReason,
        detail: Option<String>,
        redo: Option<Redo>,
    },
}

/// The decline an `ingest --redo` outcome replaces: its commit (named in
/// `Lore-Replaces`) and its record as read, so that a concurrent redo of the
/// same artifact is noticed (the record changed) and not done twice.
#[derive(Clone, Debug)]
pub struct Redo {
    pub commit: CommitRef,
    pub record: Vec<u8>,
}

impl Pending {
    fn artifact_id(&self) -> Id {
        match self {
            Pending::Propose { artifact, .. } | Pending::Decline { artifact, .. } => artifact.id,
        }
    }

    fn redo(&self) -> Option<&Redo> {
        match self {
            Pending::Propose { redo, .. } | Pending::Decline { redo, .. } => redo.as_ref(),
        }
    }
}

/// One slot per input item, filled as outcomes are determined; `progress`
/// hears about each.
struct Slots<'p> {
    slots: Vec<Option<Outcome>>,
    progress: &'p mut dyn FnMut(&Outcome),
}

impl Slots<'_> {
    fn set(&mut self, i: usize, o: Outcome) {
        (self.progress)(&o);
        self.slots[i] = Some(o);
    }
}

/// What the plan makes of one item.
enum Triage {
    /// Its outcome is known without a model.
    Decided(Outcome),
    /// The same artifact as the item at this index.
    Repeat(usize),
    /// The model must be asked.
    Ask(Box<Artifact>),
}

/// The transform prompt in force: `lore.transform.template`, else the one
/// shipped with git-lore.
fn transform_template(lore: &Lore) -> Result<String, LoreError> {
    let Some(p) = lore.store.config_string("lore.transform.template") else {
        return Ok(transform::DEFAULT_TEMPLATE.to_owned());
    };
    let path = super::expand_path(&p, lore.env.home.as_deref(), lore.store.git_dir());
    std::fs::read_to_string(&path).map_err(|source| LoreError::File {
        what: "cannot read lore.transform.template",
        path,
        source,
    })
}

/// Runs ingest over `items`, taking each as it comes (a stream of any
/// length: the artifacts waiting to be written are at most a chunk).
/// `progress` is told about each outcome as it is determined. Fails only for setup errors, before anything is written.
pub fn ingest(
    lore: &mut Lore,
    items: impl IntoIterator<Item = Item>,
    backend: &Backend,
    progress: &mut dyn FnMut(&Outcome),
) -> Result<Report, LoreError> {
    let template = transform_template(lore)?;
    // A batch writes a pack per transaction of 256: room for all of them.
    lore.store.for_batch()?;
    let index = Index::load(&lore.store)?;
    let mut slots = Slots {
        slots: Vec::new(),
        progress,
    };
    let mut first_of: HashMap<Id, usize> = HashMap::new();
    let mut repeats: Vec<(usize, usize)> = Vec::new();
    let mut pending: Vec<(usize, Pending)> = Vec::new();
    let mut error = None;
    let mut claims = open_claims(lore, backend);
    let chunk = match backend {
        Backend::Offline => OFFLINE_CHUNK,
        Backend::Command { .. } => CHUNK,
    };

    // Items are taken as they are read: only the chunk waiting to be
    // written holds artifacts; every item keeps its outcome (small).
    for (i, item) in items.into_iter().enumerate() {
        slots.slots.push(None);
        if error.is_some() {
            slots.set(i, not_attempted(item));
            continue;
        }
        match triage(item, &index, &mut first_of, i) {
            Triage::Decided(o) => slots.set(i, o),
            Triage::Repeat(first) => repeats.push((i, first)),
            Triage::Ask(artifact) => match claim(lore, &mut claims, artifact.id) {
                Some(o) => slots.set(i, o),
                None => match determine(lore, backend, &template, artifact, None) {
                    Ok(p) => pending.push((i, p)),
                    Err(o) => {
                        release(&mut claims, &o);
                        slots.set(i, o)
                    }
                },
            },
        }
        if let Some(c) = claims.as_mut() {
            c.keep_alive();
        }
        if pending.len() >= chunk {
            let batch = std::mem::take(&mut pending);
            if let Err(e) = write(lore, backend, &batch, &mut slots) {
                error = Some(e);
                // Back in `pending`, so the items it did not write say so.
                pending = batch;
            } else {
                release_written(&mut claims, &batch);
            }
        }
    }
    if error.is_none() {
        if let Err(e) = write(lore, backend, &pending, &mut slots) {
            error = Some(e);
        }
    }
    // Written or not, this run is done asking.
    drop(claims);
    if let Some(e) = &error {
        mark_unwritten(&mut slots, &pending, e);
    }
    resolve_repeats(&mut slots, repeats);
    let outcomes = slots
        .slots
        .into_iter()
        .enumerate()
        .map(|(i, o)| {
            o.unwrap_or_else(|| Outcome::Invalid {
                source: format!("item {i}"),
                why: InputError::Type("no outcome (this is a bug)".into()),
            })
        })
        .collect();
    Ok(Report { outcomes, error })
}

/// Which declines `ingest --redo` runs again.
#[derive(Clone, Debug)]
pub enum RedoWhich {
    /// These artifacts, each of which must be declined.
    Artifacts(Vec<Id>),
    /// Every declined artifact, or those declined at or after `since`.
    Declined { since: Option<jiff::Timestamp> },
}

/// `ingest --redo`: runs declined artifacts through the transform again
/// (after a model was configured, say). Each new outcome is a new commit
/// whose `Lore-Replaces` names the decline it replaces; history keeps both,
/// and `seen` answers with the newer. The artifact comes from the decline
/// record, which keeps it. Refuses, before anything is asked or written, an
/// artifact history does not have as declined.
pub fn redo(
    lore: &mut Lore,
    which: RedoWhich,
    backend: &Backend,
    progress: &mut dyn FnMut(&Outcome),
) -> Result<Report, LoreError> {
    let template = transform_template(lore)?;
    // A batch writes a pack per transaction of 256: room for all of them.
    lore.store.for_batch()?;
    let index = Index::load(&lore.store)?;
    let (wanted, since) = match which {
        RedoWhich::Artifacts(ids) => {
            for id in &ids {
                match index.artifact(*id) {
                    Some(ArtifactOutcome::Declined { .. }) => {}
                    Some(ArtifactOutcome::Proposed { lesson }) => {
                        return Err(LoreError::Input {
                            what: format!("artifact {id}"),
                            why: format!(
                                "it became lesson {lesson}; only a declined artifact can be redone"
                            ),
                        })
                    }
                    None => {
                        let why = if index.lesson(*id).is_some() {
                            "that is a lesson id; --redo takes the ids of declined artifacts (`git lore seen ID` tells them apart; `git lore ingest --redo-declined` redoes every one)"
                        } else {
                            "history has no outcome for it; ingest its file instead"
                        };
                        return Err(LoreError::Input {
                            what: format!("artifact {id}"),
                            why: why.into(),
                        });
                    }
                }
            }
            let mut ids = ids;
            let mut seen = std::collections::HashSet::new();
            ids.retain(|id| seen.insert(*id));
            (ids, None)
        }
        RedoWhich::Declined { since } => {
            let ids = index
                .artifacts()
                .into_iter()
                .filter(|(_, o)| matches!(o, ArtifactOutcome::Declined { .. }))
                .map(|(id, _)| id)
                .collect();
            (ids, since)
        }
    };
    // The records first: `--since` drops what it drops before the ledger is
    // walked for the survivors' decline commits (newest first, so the walk
    // stops near the tip when they are recent).
    let mut records = Vec::with_capacity(wanted.len());
    for id in wanted {
        let record = lore.store.read(Branch::Ledger, &layout::decline_path(id))?;
        let decline: Option<Decline> = record
            .as_deref()
            .and_then(|b| serde_json::from_slice(b).ok());
        let before = |d: &Decline| {
            let at: Option<jiff::Timestamp> = d.declined_at.parse().ok();
            since.is_some_and(|since| at.is_some_and(|at| at < since))
        };
        if !decline.as_ref().is_some_and(before) {
            records.push((id, record, decline));
        }
    }
    let ids: Vec<Id> = records.iter().map(|(id, ..)| *id).collect();
    let commits = decline_commits(lore, &ids)?;
    let mut slots = Slots {
        slots: vec![None; records.len()],
        progress,
    };
    let mut pending: Vec<(usize, Pending)> = Vec::new();
    for (i, (id, record, decline)) in records.into_iter().enumerate() {
        let (Some(record), Some(decline), Some(commit)) = (record, decline, commits.get(&id))
        else {
            slots.set(
                i,
                Outcome::Untouched {
                    artifact: id,
                    why:
                        "its decline record or commit could not be read; `git lore verify` says why"
                            .into(),
                },
            );
            continue;
        };
        let Some(artifact) = decline.artifact else {
            slots.set(
                i,
                Outcome::Untouched {
                    artifact: id,
                    why: "its decline record does not keep the artifact; ingest the artifact's file again".into(),
                },
            );
            continue;
        };
        let redo = Redo {
            commit: commit.clone(),
            record,
        };
        match determine(lore, backend, &template, Box::new(artifact), Some(redo)) {
            Ok(p) => pending.push((i, p)),
            Err(o) => slots.set(i, o),
        }
    }
    let error = write(lore, backend, &pending, &mut slots).err();
    if let Some(e) = &error {
        mark_unwritten(&mut slots, &pending, e);
    }
    let outcomes = slots.slots.into_iter().flatten().collect();
    Ok(Report { outcomes, error })
}

/// The newest decline commit of each artifact of `ids`, from one walk of the
/// ledger.
fn decline_commits(lore: &Lore, ids: &[Id]) -> Result<HashMap<Id, CommitRef>, LoreError> {
    let mut want: std::collections::HashSet<Id> = ids.iter().copied().collect();
    let mut found = HashMap::new();
    let Some(tip) = lore.store.tip(Branch::Ledger)? else {
        return Ok(found);
    };
    for c in lore.store.ancestors(tip)? {
        if want.is_empty() {
            break;
        }
        let info = lore.store.commit_info(c)?;
        if let Ok(Event::Decline { artifact, .. }) = info.event {
            if want.remove(&artifact) {
                if let Some(r) = CommitRef::parse(&c.to_string()) {
                    found.insert(artifact, r);
                }
            }
        }
    }
    Ok(found)
}

/// Gives every determination a failed write left without an outcome its
/// `untouched … not written: <why>`.
fn mark_unwritten(slots: &mut Slots<'_>, pending: &[(usize, Pending)], e: &LoreError) {
    for (i, p) in pending {
        if slots.slots[*i].is_none() {
            let why = format!("not written: {}", super::with_causes(e));
            slots.set(
                *i,
                Outcome::Untouched {
                    artifact: p.artifact_id(),
                    why,
                },
            );
        }
    }
}

/// The outcome of an item the run never got to.
fn not_attempted(item: Item) -> Outcome {
    let why = "not attempted: the run stopped at an earlier error".to_owned();
    match item.artifact {
        Ok(a) => Outcome::Untouched {
            artifact: a.id,
            why,
        },
        Err(_) => Outcome::Invalid {
            source: item.source,
            why: InputError::Type(why),
        },
    }
}

/// The plan's decision for one item (see the module doc).
fn triage(item: Item, index: &Index, first_of: &mut HashMap<Id, usize>, i: usize) -> Triage {
    let artifact = match item.artifact {
        Ok(a) => a,
        Err(why) => {
            return Triage::Decided(Outcome::Invalid {
                source: item.source,
                why,
            })
        }
    };
    let id = artifact.id;
    if index.lesson(id).is_some() {
        // One id names one thing: `seen`, `show` and every short prefix
        // would otherwise answer for two records.
        return Triage::Decided(Outcome::Invalid {
            source: item.source,
            why: InputError::Type(format!(
                "its id {id} is already a lesson's id; an artifact needs an id of its own"
            )),
        });
    }
    if let Some(&first) = first_of.get(&id) {
        return Triage::Repeat(first);
    }
    first_of.insert(id, i);
    if index.artifact(id).is_some() {
        return Triage::Decided(Outcome::Skipped {
            artifact: id,
            why: Skip::Seen,
        });
    }
    if !pipeline::pregate::passes(&artifact) {
        return Triage::Decided(Outcome::Skipped {
            artifact: id,
            why: Skip::Pregate,
        });
    }
    Triage::Ask(Box::new(artifact))
}

/// Asks the backend about one artifact: the determination to write, or the
/// outcome of an outage (untouched).
fn determine(
    lore: &mut Lore,
    backend: &Backend,
    template: &str,
    artifact: Box<Artifact>,
    redo: Option<Redo>,
) -> Result<Pending, Outcome> {
    let decided = match backend {
        Backend::Offline => {
            let text = pipeline::offline_transform::transform(&artifact);
            let answer = crate::answer::Answer::new(text.as_bytes())
                .expect("the offline transform always answers");
            transform::decide(&answer, &artifact)
        }
        Backend::Command { .. } => {
            let prompt = transform::render_prompt(template, &artifact);
            match backend.ask(&prompt, &[]) {
                Ok(answer) => transform::decide(&answer, &artifact),
                Err(outage) => {
                    return Err(Outcome::Untouched {
                        artifact: artifact.id,
                        why: outage.to_string(),
                    })
                }
            }
        }
    };
    Ok(match decided {
        Determination::Propose { candidate } => Pending::Propose {
            lesson: Id::from_parts(lore.env.now.as_millisecond() as u64, random80(lore.rng())),
            artifact,
            candidate: Box::new(candidate),
            redo,
        },
        Determination::Decline { reason, detail } => Pending::Decline {
            artifact,
            reason,
            detail,
            redo,
        },
    })
}

fn random80(rng: &mut dyn RngCore) -> u128 {
    let mut b = [0u8; 16];
    rng.fill_bytes(&mut b[6..]);
    u128::from_be_bytes(b)
}

/// Writes determinations, as few transactions as the ledger allows: a
/// transaction starts with the whole batch and halves what it carries each
/// time it loses the race, so short writers (hooks confirming a lesson)
/// cannot starve a large batch.
fn write(
    lore: &mut Lore,
    backend: &Backend,
    pending: &[(usize, Pending)],
    slots: &mut Slots<'_>,
) -> Result<(), LoreError> {
    let now = iso(lore.env.now);
    let model = backend.model_name().to_owned();
    let mut rest = pending;
    while !rest.is_empty() {
        let mut attempt = 0u32;
        let done = lore.transact(Branch::Ledger, |tx| {
            let take = (rest.len() >> attempt.min(31)).max(1);
            attempt += 1;
            let mut results = Vec::with_capacity(take);
            for (i, p) in &rest[..take] {
                results.push((*i, write_one(tx, p, &now, &model)?));
            }
            Ok(results)
        })?;
        let n = done.value.len();
        for (i, o) in done.value {
            slots.set(i, o);
        }
        rest = &rest[n..];
    }
    Ok(())
}

/// Replaces control characters and cuts a text to one short subject line.
fn subject_text(s: &str, max: usize) -> String {
    let one: String = s
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    let one = one.split_whitespace().collect::<Vec<_>>().join(" ");
    if one.chars().count() > max {
        format!("{}…", one.chars().take(max).collect::<String>())
    } else {
        one
    }
}

/// Commits one determination, unless history already has the artifact.
fn write_one(tx: &mut Tx<'_>, p: &Pending, now: &str, model: &str) -> Result<Outcome, LoreError> {
    let aid = p.artifact_id();
    let current = match p.redo() {
        // A redo replaces the decline it read, and only while it is the
        // artifact's outcome (a redo that proposed leaves the record).
        Some(redo) => {
            !matches!(tx.artifact(aid), Some(ArtifactOutcome::Declined { .. }))
                || tx.read(&layout::decline_path(aid))?.as_deref() != Some(&redo.record[..])
        }
        None => tx.artifact(aid).is_some(),
    };
    if current {
        // Another writer determined it while we asked the model.
        return Ok(Outcome::Skipped {
            artifact: aid,
            why: Skip::Seen,
        });
    }
    let replaces = p.redo().map(|r| r.commit.clone());
    match p {
        Pending::Propose {
            lesson,
            artifact,
            candidate,
            ..
        } => {
            // Ids are random; a repeat (a fixed seed reused) must never
            // overwrite another lesson.
            if tx.lesson(*lesson).is_some() {
                return Err(LoreError::IdTaken { id: *lesson });
            }
            let proposal = Proposal::pending(
                *lesson,
                (**artifact).clone(),
                (**candidate).clone(),
                model,
                now.to_owned(),
            );
            tx.commit(CommitSpec::new(
                &format!("propose {lesson}: {}", subject_text(&candidate.claim, 72)),
                None,
                Event::Propose {
                    lesson: *lesson,
                    artifact: aid,
                    model: Some(model.to_owned()),
                    replaces: replaces.clone(),
                },
                vec![Change::Put {
                    path: layout::proposal_path(*lesson),
                    bytes: canonical_json(&proposal),
                }],
            )?)?;
            Ok(Outcome::Proposed {
                lesson: *lesson,
                artifact: aid,
            })
        }
        Pending::Decline {
            artifact,
            reason,
            detail,
            ..
        } => {
            let record = Decline {
                artifact_id: aid,
                reason: *reason,
                detail: detail.clone(),
                declined_at: now.to_owned(),
                artifact: Some((**artifact).clone()),
                model: Some(model.to_owned()),
            };
            // A redo that comes to the decline already on record (the same
            // reason, detail and model: a deterministic backend, or two
            // runs at once) has nothing to add to history.
            if let Some(redo) = p.redo() {
                let old: Option<Decline> = serde_json::from_slice(&redo.record).ok();
                if old.is_some_and(|o| {
                    (o.reason, &o.detail, &o.model)
                        == (record.reason, &record.detail, &record.model)
                }) {
                    return Ok(Outcome::Declined {
                        artifact: aid,
                        reason: *reason,
                        detail: detail.clone(),
                    });
                }
            }
            let subject = match detail {
                Some(d) if d.len() <= 72 && !d.contains(['\n', '\r']) => {
                    format!("decline {aid}: {reason} ({d})")
                }
                _ => format!("decline {aid}: {reason}"),
            };
            tx.commit(CommitSpec::new(
                &subject,
                None,
                Event::Decline {
                    artifact: aid,
                    reason: *reason,
                    model: Some(model.to_owned()),
                    replaces: replaces.clone(),
                },
                vec![Change::Put {
                    path: layout::decline_path(aid),
                    bytes: canonical_json(&record),
                }],
            )?)?;
            Ok(Outcome::Declined {
                artifact: aid,
                reason: *reason,
                detail: detail.clone(),
            })
        }
    }
}

/// Gives each repeated artifact its first copy's fate: seen once the first
/// copy was written, the same pre-gate skip or outage otherwise.
fn resolve_repeats(slots: &mut Slots<'_>, repeats: Vec<(usize, usize)>) {
    for (i, first) in repeats {
        let o = match &slots.slots[first] {
            Some(Outcome::Skipped {
                why: why @ (Skip::Pregate | Skip::Claimed),
                artifact,
            }) => Outcome::Skipped {
                artifact: *artifact,
                why: *why,
            },
            Some(Outcome::Untouched { artifact, why }) => Outcome::Untouched {
                artifact: *artifact,
                why: why.clone(),
            },
            Some(Outcome::Proposed { artifact, .. })
            | Some(Outcome::Declined { artifact, .. })
            | Some(Outcome::Skipped { artifact, .. }) => Outcome::Skipped {
                artifact: *artifact,
                why: Skip::Seen,
            },
            Some(Outcome::Invalid { .. }) | None => continue,
        };
        slots.set(i, o);
    }
}

/// The claims of a run that asks a model program (the offline backend is
/// cheap and deterministic: it claims nothing). Claims that cannot be used
/// (a read-only git dir) are done without: they only save model calls.
fn open_claims(lore: &mut Lore, backend: &Backend) -> Option<Claims> {
    let Backend::Command { timeout, .. } = backend else {
        return None;
    };
    let token = format!("{}-{:016x}", std::process::id(), lore.rng().next_u64());
    // Long enough for one model call and the write that follows it; the
    // holder rewrites its claims well before that.
    let ttl = *timeout * 2 + std::time::Duration::from_secs(60);
    Claims::open(&lore.store.lore_dir().join("claims"), &token, ttl).ok()
}

/// Claims `id` for this run: `None` when this run should ask about it,
/// else its outcome (another run holds it, or history has it by now).
fn claim(lore: &Lore, claims: &mut Option<Claims>, id: Id) -> Option<Outcome> {
    let c = claims.as_mut()?;
    match c.take(&id.to_string()) {
        Ok(Take::HeldElsewhere) => Some(Outcome::Skipped {
            artifact: id,
            why: Skip::Claimed,
        }),
        Ok(Take::Taken) => {
            // Another run may have written it and let go since this run's
            // index was loaded: ask history again before asking a model.
            let seen = Index::load(&lore.store)
                .map(|index| index.artifact(id).is_some())
                .unwrap_or(false);
            seen.then(|| {
                c.release(&id.to_string());
                Outcome::Skipped {
                    artifact: id,
                    why: Skip::Seen,
                }
            })
        }
        Err(_) => {
            *claims = None;
            None
        }
    }
}

/// Lets go of the claim of an artifact that got no determination.
fn release(claims: &mut Option<Claims>, o: &Outcome) {
    if let (Some(c), Outcome::Untouched { artifact, .. }) = (claims.as_mut(), o) {
        c.release(&artifact.to_string());
    }
}

/// Lets go of the claims of written determinations.
fn release_written(claims: &mut Option<Claims>, batch: &[(usize, Pending)]) {
    if let Some(c) = claims.as_mut() {
        for (_, p) in batch {
            c.release(&p.artifact_id().to_string());
        }
    }
}
