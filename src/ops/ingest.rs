//! Ingest: artifacts become proposals or declines, each one signed commit
//! on the ledger; outages leave artifacts untouched.
//!
//! Per artifact, in order: seen (from history, via the index) → pre-gate →
//! model → parse → refusal → stitch provenance → validate → write. Items
//! stream through one [`Run`]:
//! 1. **triage**: each item as it is read is invalid, a copy of an artifact
//!    whose determination waits to be written, seen, stopped by the
//!    pre-gate, or asked of the model, whose determination waits;
//! 2. **write chunks**: every [`CHUNK`] determinations ([`OFFLINE_CHUNK`]
//!    offline) are written in as few transactions as the ledger allows,
//!    each re-checking idempotency at the tip it lands on, so concurrent
//!    ingests of the same artifacts record exactly one outcome each
//!    (offline, a chunk is held while the next is read, and written while
//!    that one is determined on the other cores: [`Run::advance`]);
//! 3. **tell in order**: each item's outcome goes to the caller in input
//!    order as soon as it and every item before it are settled (a copy of
//!    an artifact takes its first copy's fate).
//!
//! Nothing in an ingest run grows with the input but what the model could
//! not answer: what waits to be written is a chunk (two offline), what waits to be told
//! is bounded ([`WAITING_CHUNKS`] chunks), and a copy of an artifact written earlier
//! is found in the index, reloaded after each write. (`--redo` also holds
//! the ids it redoes and their decline commits, from one walk of the
//! ledger.)
//!
//! Model calls happen outside any transaction. With a model program, each
//! artifact is first claimed ([`super::claim`]): an artifact another run is
//! asking about right now is `skipped … claimed`, so overlapping runs make
//! one model call per artifact; the claim is held until its outcome is
//! written. `--redo` runs through the same chunks and claims.

use std::collections::{HashMap, VecDeque};

use rand::RngCore;

use super::backend::Backend;
use super::claim::{Claims, Take};
use super::{Lore, LoreError};
use crate::event::{CommitRef, Event};
use crate::model::{canonical_json, iso, Artifact, Decline, DeclineReason, Id, Proposal, Source};
use crate::pipeline::{self, transform, Determination, InputError, Item};
use crate::store::{layout, ArtifactOutcome, Branch, Change, CommitSpec, Index, Tx};

/// Artifacts written per transaction when a model program determines them:
/// the ref moves once per chunk, so a crash loses at most one chunk's
/// writes (never a half-written one), here at most this many model calls.
pub const CHUNK: usize = 256;

/// Artifacts written per transaction by the offline backend onto a small
/// ledger, whose determinations cost nothing to make again. A transaction
/// writes one pack, and a tree's delta chain cannot cross packs: every
/// fan-out tree a chunk touches is stored whole once in its pack. With 256
/// a chunk, at 100,000 artifacts nearly every one a chunk touches was
/// stored whole (about 230 of the 1,024 leaves per pack, when there were
/// two fan-out levels), and the batch ends 3.4
/// times `git fast-import`'s size. With this many, each tree is stored
/// whole once per pack and as a small delta after that
/// (docs/PERFORMANCE.md). On a larger ledger the chunk grows with it:
/// [`offline_chunk`].
pub const OFFLINE_CHUNK: usize = 2048;

/// The most artifacts one offline transaction writes, whatever the
/// ledger's size: what a chunk holds in memory until its pack is written
/// (its determinations, records, commits and the trees it touches) grows
/// with it, and two chunks are in memory at once (one written, the next
/// determined). At a million, 16,384 left 222 MB of the batch's 376 MB
/// peak to the chunks; 8,192 took the peak down by some 90 MB, for 0.1
/// times `git fast-import`'s size more while the batch runs
/// (docs/PERFORMANCE.md, "Issue 24, sixth round"), and 4,096 by 37 MB
/// more, for 0.1 times more again ("Issue 24, seventh round").
pub const OFFLINE_CHUNK_MAX: usize = 4_096;

/// How many artifacts an offline transaction writes onto a ledger that
/// already knows about `known` artifacts: an eighth of them, within
/// [`OFFLINE_CHUNK`] and [`OFFLINE_CHUNK_MAX`].
///
/// The fan-out trees a pack must store whole grow with the ledger (with
/// two fan-out levels a chunk of a few thousand touched nearly every leaf;
/// with three, a chunk touches about as many leaves as it has records),
/// so their cost per record is the ledger's size over the chunk's: a
/// chunk that keeps pace with the ledger keeps that cost per record
/// constant instead of growing with the ledger. At 100,000 artifacts, a
/// chunk of 2,048 left the batch 1.94 times `git fast-import`'s size and
/// one of 8,192 1.37 times (docs/PERFORMANCE.md).
pub fn offline_chunk(known: usize) -> usize {
    (known / 8).clamp(OFFLINE_CHUNK, OFFLINE_CHUNK_MAX)
}

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
    /// A pool already holds a lesson made from it (`evidence.artifact_ids`),
    /// whoever captured it: a teammate's, synced. One moment, one lesson.
    InPool { lesson: Id, pool: Source },
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

/// How many items came to each outcome.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Tally {
    pub proposed: usize,
    pub declined: usize,
    pub skipped: usize,
    pub untouched: usize,
    pub invalid: usize,
}

impl Tally {
    fn count(&mut self, o: &Outcome) {
        *match o {
            Outcome::Proposed { .. } => &mut self.proposed,
            Outcome::Declined { .. } => &mut self.declined,
            Outcome::Skipped { .. } => &mut self.skipped,
            Outcome::Untouched { .. } => &mut self.untouched,
            Outcome::Invalid { .. } => &mut self.invalid,
        } += 1;
    }
}

/// The result of an ingest run. Each item's outcome went to the caller as
/// it was settled (see [`Told`]); this is what they add up to.
#[derive(Debug)]
pub struct Report {
    pub tally: Tally,
    /// The error that stopped the run, if any. Items written before it keep
    /// their outcomes; the rest were told they were not written.
    pub error: Option<LoreError>,
}

/// Told of every item's outcome, once, in input order, with where the item
/// was read (`None` for `--redo`, whose artifacts come from history). An
/// item is told as soon as it and every item before it are settled: a
/// determination is settled when its chunk is written.
pub type Told<'a> = dyn FnMut(&Outcome, Option<&str>) + 'a;

/// At most this many times a chunk of items wait to be told (the items
/// since the oldest determination not yet written, each with its source
/// and outcome) before the determinations are written early, so that
/// input full of artifacts history has seen cannot pile up behind one
/// that is new.
const WAITING_CHUNKS: usize = 4;

/// How many determinations a transaction of `backend` writes, on the
/// ledger `index` knows.
fn chunk_for(backend: &Backend, index: &Index) -> usize {
    match backend {
        Backend::Offline => offline_chunk(index.artifacts_estimate()),
        Backend::Command { .. } => CHUNK,
    }
}

/// A determination waiting to be written.
enum Pending {
    /// An artifact the offline backend will determine when its chunk is
    /// written, on every core at once ([`determine_offline`]).
    Undetermined {
        artifact: Box<Artifact>,
        redo: Option<Redo>,
    },
    /// A determination with its record and commit made: what is left to do
    /// is to check history at the tip it lands on and write it.
    Ready(Box<Ready>),
}

/// A determination as it waits to be written: the record's bytes rather
/// than the artifact and candidate they were made from. A chunk of
/// determinations waits while the next is read and determined, and the
/// parsed form was about twice the size (docs/PERFORMANCE.md, "Issue 24,
/// sixth round").
struct Ready {
    artifact: Id,
    /// A proposal's lesson id.
    lesson: Option<Id>,
    redo: Option<Redo>,
    subject: String,
    event: Event,
    path: String,
    record: Vec<u8>,
    /// What the item comes to once written.
    outcome: Outcome,
    /// A redo that comes to the decline already on record (the same
    /// reason, detail and model: a deterministic backend, or two runs at
    /// once) has nothing to add to history.
    unchanged: bool,
}

/// The decline an `ingest --redo` outcome replaces: its commit (named in
/// `Lore-Replaces`) and its record as of that commit, so that a concurrent
/// redo of the same artifact is noticed (the record changed) and not done
/// twice.
#[derive(Clone, Debug)]
pub struct Redo {
    pub commit: CommitRef,
    pub record: Vec<u8>,
}

impl Pending {
    fn artifact_id(&self) -> Id {
        match self {
            Pending::Undetermined { artifact, .. } => artifact.id,
            Pending::Ready(r) => r.artifact,
        }
    }
}

/// The items not yet told, in input order from `first` on.
struct InOrder<'t, 'a> {
    first: usize,
    waiting: VecDeque<(Option<String>, Option<Outcome>)>,
    /// The later copies of an artifact whose first item waits to be written,
    /// by that item: they take its fate when it is settled.
    copies: HashMap<usize, Vec<usize>>,
    tally: Tally,
    told: &'t mut Told<'a>,
}

impl<'t, 'a> InOrder<'t, 'a> {
    fn new(told: &'t mut Told<'a>) -> Self {
        InOrder {
            first: 0,
            waiting: VecDeque::new(),
            copies: HashMap::new(),
            tally: Tally::default(),
            told,
        }
    }

    /// A new item, read from `source`; returns its number.
    fn push(&mut self, source: Option<String>) -> usize {
        self.waiting.push_back((source, None));
        self.first + self.waiting.len() - 1
    }

    fn is_settled(&self, i: usize) -> bool {
        i < self.first || self.waiting[i - self.first].1.is_some()
    }

    /// Item `i` came to `o` (and so did the copies waiting on it); tells
    /// every item that is now next in line.
    fn settle(&mut self, i: usize, o: Outcome) {
        for c in self.copies.remove(&i).unwrap_or_default() {
            self.waiting[c - self.first].1 = Some(copy_fate(&o));
        }
        self.waiting[i - self.first].1 = Some(o);
        while let Some((_, Some(_))) = self.waiting.front() {
            let Some((source, Some(o))) = self.waiting.pop_front() else {
                unreachable!("the front was just seen settled");
            };
            self.first += 1;
            self.tally.count(&o);
            (self.told)(&o, source.as_deref());
        }
    }
}

/// The fate of a later copy of an artifact, given its first copy's: seen
/// once the first was written, the same outage otherwise.
fn copy_fate(first: &Outcome) -> Outcome {
    match first {
        Outcome::Untouched { artifact, why } => Outcome::Untouched {
            artifact: *artifact,
            why: why.clone(),
        },
        Outcome::Proposed { artifact, .. }
        | Outcome::Declined { artifact, .. }
        | Outcome::Skipped { artifact, .. } => Outcome::Skipped {
            artifact: *artifact,
            why: Skip::Seen,
        },
        // Only an item that asked the model has copies.
        Outcome::Invalid { .. } => first.clone(),
    }
}

/// What the plan makes of one item.
enum Triage {
    /// Its outcome is known without a model.
    Decided(Outcome),
    /// The same artifact as this item, whose determination waits to be
    /// written.
    CopyOf(usize),
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

/// One run over a stream of items: what waits to be told, what waits to be
/// written, and what the run has learnt on the way. Everything it holds is
/// bounded by a chunk (two offline: the held one and the pending one; and
/// [`WAITING_CHUNKS`] of them waiting to be told) except `outages`, which holds
/// the artifacts the model gave no answer for.
struct Run<'r, 't, 'a> {
    backend: &'r Backend,
    template: String,
    /// What history says, reloaded after each write so that a later copy
    /// of an artifact this run wrote is seen without a model call. Let go
    /// during a write, which loads its own: two maps of an index of
    /// 100,000 lessons were 5 MB of resident memory more.
    index: Option<Index>,
    order: InOrder<'t, 'a>,
    pending: Vec<(usize, Pending)>,
    /// Offline: the chunk before `pending`, determined and waiting to be
    /// written while `pending` fills; it is written while `pending` is
    /// determined on another core ([`Run::advance`]).
    held: Vec<(usize, Pending)>,
    /// The item of each artifact in `held` and `pending`.
    asked: HashMap<Id, usize>,
    /// Why the model gave no answer for an artifact: a later copy is not
    /// asked again.
    outages: HashMap<Id, String>,
    claims: Option<Claims>,
    chunk: usize,
    /// Why the index could not be written after the last chunk: the next
    /// chunk is not written, since each would walk more history than the
    /// one before ([`Run::write_batch`]).
    unwritable: Option<(std::path::PathBuf, crate::store::StoreError)>,
    error: Option<LoreError>,
}

impl<'r, 't, 'a> Run<'r, 't, 'a> {
    fn new(
        lore: &mut Lore,
        backend: &'r Backend,
        told: &'t mut Told<'a>,
    ) -> Result<Self, LoreError> {
        let template = transform_template(lore)?;
        let index = Index::load(&lore.store)?;
        let claims = open_claims(lore, backend);
        let chunk = chunk_for(backend, &index);
        Ok(Run {
            backend,
            template,
            index: Some(index),
            order: InOrder::new(told),
            pending: Vec::new(),
            held: Vec::new(),
            asked: HashMap::new(),
            outages: HashMap::new(),
            claims,
            chunk,
            unwritable: None,
            error: None,
        })
    }

    /// Takes one input item of `ingest`.
    fn take(&mut self, lore: &mut Lore, item: Item) {
        let i = self.order.push(Some(item.source.clone()));
        if let Some(index) = &self.index {
            index.release_pages_after(i);
        }
        if self.error.is_some() {
            self.order.settle(i, not_attempted(item));
            return;
        }
        match self.triage(item) {
            Triage::Decided(o) => self.order.settle(i, o),
            Triage::CopyOf(first) => self.order.copies.entry(first).or_default().push(i),
            Triage::Ask(artifact) => self.ask(lore, i, artifact, None),
        }
        self.tick(lore);
    }

    /// The plan's decision for one item (see the module doc).
    fn triage(&self, item: Item) -> Triage {
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
        let index = self.index.as_ref().expect("loaded between writes");
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
        if let Some(&first) = self.asked.get(&id) {
            return Triage::CopyOf(first);
        }
        if let Some(why) = self.outages.get(&id) {
            return Triage::Decided(Outcome::Untouched {
                artifact: id,
                why: why.clone(),
            });
        }
        if index.artifact(id).is_some() {
            return Triage::Decided(Outcome::Skipped {
                artifact: id,
                why: Skip::Seen,
            });
        }
        if let Some(why) = in_pool(index, id) {
            return Triage::Decided(Outcome::Skipped { artifact: id, why });
        }
        if !pipeline::pregate::passes(&artifact) {
            return Triage::Decided(Outcome::Skipped {
                artifact: id,
                why: Skip::Pregate,
            });
        }
        Triage::Ask(Box::new(artifact))
    }

    /// Claims the artifact of item `i`, asks the backend about it, and
    /// keeps the determination for the next write (or settles the item).
    fn ask(&mut self, lore: &mut Lore, i: usize, artifact: Box<Artifact>, redo: Option<Redo>) {
        let id = artifact.id;
        if let Some(o) = claim(lore, &mut self.claims, id, redo.as_ref()) {
            return self.order.settle(i, o);
        }
        if matches!(self.backend, Backend::Offline) {
            self.asked.insert(id, i);
            self.pending
                .push((i, Pending::Undetermined { artifact, redo }));
            return;
        }
        match determine(lore, self.backend, &self.template, artifact, redo) {
            Ok(p) => {
                self.asked.insert(id, i);
                self.pending.push((i, p));
            }
            Err(outage) => {
                if let Some(c) = self.claims.as_mut() {
                    c.release(&id.to_string());
                }
                let why = outage.to_string();
                self.outages.insert(id, why.clone());
                self.order
                    .settle(i, Outcome::Untouched { artifact: id, why });
            }
        }
    }

    /// After each item: keeps the claims alive, and writes what waits once
    /// there is a chunk of it or too many items wait behind it.
    fn tick(&mut self, lore: &mut Lore) {
        if let Some(c) = self.claims.as_mut() {
            c.keep_alive();
        }
        if !self.pending.is_empty() && self.order.waiting.len() >= WAITING_CHUNKS * self.chunk {
            self.flush(lore);
        } else if self.pending.len() >= self.chunk {
            self.advance(lore);
        }
    }

    /// A chunk is full. With a model program its determinations are made,
    /// and it is written. Offline, it is determined and held while the next
    /// chunk is read; once that one is full too, the held chunk is written
    /// on this thread while the next is determined on the others, so that
    /// the transform's work (a quarter of a batch's, measured) overlaps the
    /// writing instead of waiting for it. The determinations and the ids
    /// drawn for them are those of a run that did one after the other: a
    /// chunk's ids are drawn after the chunk before it is written, as
    /// then. (Triage of the next chunk's items sees the held chunk's
    /// artifacts as waiting to be written, as it sees the pending chunk's:
    /// a copy takes its first copy's fate, as it would from history.)
    fn advance(&mut self, lore: &mut Lore) {
        if !matches!(self.backend, Backend::Offline) || self.error.is_some() {
            return self.flush(lore);
        }
        let mut batch = std::mem::take(&mut self.pending);
        if self.held.is_empty() {
            determine_offline(lore, &mut batch);
            self.held = batch;
            return;
        }
        let previous = std::mem::take(&mut self.held);
        let undetermined = undetermined(&batch);
        let threads = super::threads().saturating_sub(1).max(1);
        let decided = std::thread::scope(|scope| {
            let worker = scope.spawn(|| decide_all(&undetermined, threads));
            self.write_batch(lore, previous);
            worker.join().expect("a determining thread panicked")
        });
        if self.error.is_some() {
            return not_written(&mut self.order, batch);
        }
        self.held = with_ids(lore, batch, decided);
        // What the written chunk held is free now: given back, rather than
        // kept mapped until the run ends.
        crate::memory::release_free();
    }

    /// Writes every determination that waits (the held chunk, then the
    /// pending one); after a failed write, every one of them not written is
    /// told so, and the run stops asking.
    fn flush(&mut self, lore: &mut Lore) {
        let held = std::mem::take(&mut self.held);
        if !held.is_empty() && self.error.is_none() {
            self.write_batch(lore, held);
        }
        let mut batch = std::mem::take(&mut self.pending);
        if batch.is_empty() {
            return;
        }
        if self.error.is_some() {
            return not_written(&mut self.order, batch);
        }
        determine_offline(lore, &mut batch);
        self.write_batch(lore, batch);
    }

    /// Writes one chunk of determinations, then reloads the index so that a
    /// later copy of one of its artifacts is seen. When the index could not
    /// be written after the chunk before (a full disk), the run stops
    /// instead: the index would answer by walking every chunk written since
    /// it last was, a walk longer with each chunk (at a million lessons, a
    /// gigabyte and minutes a chunk), and nothing would say why. A run of
    /// one chunk, as from a hook, is written all the same: the index is a
    /// cache, and the next command pays one chunk's walk.
    fn write_batch(&mut self, lore: &mut Lore, batch: Vec<(usize, Pending)>) {
        for (_, p) in &batch {
            self.asked.remove(&p.artifact_id());
        }
        if let Some((dir, source)) = self.unwritable.take() {
            return self.fail(batch, LoreError::IndexUnwritten { dir, source });
        }
        // A chunk this large is written as a pack, and a run of them needs
        // the larger table of packs (one record, as from a hook, does not).
        if batch.len() > crate::store::pack::LOOSE_MAX / 6 {
            if let Err(e) = lore.store.for_batch() {
                return self.fail(batch, e.into());
            }
        }
        self.index = None;
        let written = write(lore, &batch, &mut self.order);
        // The index now knows what was written: a later copy is seen.
        let index = Index::load(&lore.store).map_err(LoreError::from);
        match (written, index) {
            (Ok(()), Ok(mut index)) => {
                self.unwritable = index.take_unwritten();
                self.chunk = chunk_for(self.backend, &index);
                self.index = Some(index);
                if let Some(c) = self.claims.as_mut() {
                    for (_, p) in &batch {
                        c.release(&p.artifact_id().to_string());
                    }
                }
            }
            (Err(e), _) | (Ok(()), Err(e)) => self.fail(batch, e),
        }
    }

    /// The run stops at `e`: the items of `batch` it did not write are told
    /// so.
    fn fail(&mut self, batch: Vec<(usize, Pending)>, e: LoreError) {
        let why = format!("not written: {}", super::with_causes(&e));
        for (i, p) in batch {
            if !self.order.is_settled(i) {
                self.order.settle(
                    i,
                    Outcome::Untouched {
                        artifact: p.artifact_id(),
                        why: why.clone(),
                    },
                );
            }
        }
        self.error = Some(e);
    }

    /// Writes what is left and ends the run. Written or not, it is done
    /// asking: its claims go.
    fn finish(mut self, lore: &mut Lore) -> Report {
        self.flush(lore);
        drop(self.claims.take());
        debug_assert!(self.order.waiting.is_empty(), "every item is told");
        Report {
            tally: self.order.tally,
            error: self.error,
        }
    }
}

/// Runs ingest over `items`, taking each as it comes (a stream of any
/// length: what waits to be written is at most a chunk, and what waits to
/// be told at most [`WAITING_CHUNKS`] chunks of items). `told` hears each item's
/// outcome in input order. Fails only for setup errors, before anything is
/// written.
pub fn ingest(
    lore: &mut Lore,
    items: impl IntoIterator<Item = Item>,
    backend: &Backend,
    told: &mut Told<'_>,
) -> Result<Report, LoreError> {
    let mut run = Run::new(lore, backend, told)?;
    for item in items {
        run.take(lore, item);
    }
    Ok(run.finish(lore))
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
///
/// Redone artifacts are written and claimed as ingest's are: a chunk at a
/// time, so a crash loses at most a chunk of model calls, and an artifact
/// another run is redoing right now is `skipped … claimed`.
pub fn redo(
    lore: &mut Lore,
    which: RedoWhich,
    backend: &Backend,
    told: &mut Told<'_>,
) -> Result<Report, LoreError> {
    let mut run = Run::new(lore, backend, told)?;
    let (wanted, since) = match which {
        RedoWhich::Artifacts(ids) => {
            for id in &ids {
                redoable(run.index.as_ref().expect("loaded"), *id)?;
            }
            let mut ids = ids;
            let mut seen = std::collections::HashSet::new();
            ids.retain(|id| seen.insert(*id));
            (ids, None)
        }
        RedoWhich::Declined { since } => {
            let ids = run
                .index
                .as_ref()
                .expect("loaded")
                .artifacts()
                .into_iter()
                .filter(|(_, o)| matches!(o, ArtifactOutcome::Declined { .. }))
                .map(|(id, _)| id)
                .collect();
            (ids, since)
        }
    };
    // `--since` drops what it drops before the ledger is walked for the
    // survivors' decline commits (newest first, so the walk stops near the
    // tip when they are recent).
    let wanted = match since {
        Some(since) => declined_since(lore, wanted, since)?,
        None => wanted,
    };
    let commits = decline_commits(lore, &wanted)?;
    for id in wanted {
        let i = run.order.push(None);
        if run.error.is_some() {
            run.order.settle(
                i,
                Outcome::Untouched {
                    artifact: id,
                    why: NOT_ATTEMPTED.into(),
                },
            );
            continue;
        }
        match redo_of(lore, id, commits.get(&id).copied()) {
            Ok((artifact, redo)) => run.ask(lore, i, artifact, Some(redo)),
            Err(e) => run.order.settle(
                i,
                Outcome::Untouched {
                    artifact: id,
                    why: e.to_string(),
                },
            ),
        }
        run.tick(lore);
    }
    Ok(run.finish(lore))
}

/// Refuses an artifact `--redo` cannot run again, saying why.
fn redoable(index: &Index, id: Id) -> Result<(), LoreError> {
    let why = match index.artifact(id) {
        Some(ArtifactOutcome::Declined { .. }) => return Ok(()),
        Some(ArtifactOutcome::Proposed { lesson }) => {
            format!("it became lesson {lesson}; only a declined artifact can be redone")
        }
        None if index.lesson(id).is_some() => "that is a lesson id; --redo takes the ids of declined artifacts (`git lore seen ID` tells them apart; `git lore ingest --redo-declined` redoes every one)".into(),
        None => "history has no outcome for it; ingest its file instead".into(),
    };
    Err(LoreError::Input {
        what: format!("artifact {id}"),
        why,
    })
}

/// Of `ids`, those whose decline record says they were declined at or
/// after `since` (or does not say when).
fn declined_since(lore: &Lore, ids: Vec<Id>, since: jiff::Timestamp) -> Result<Vec<Id>, LoreError> {
    #[derive(serde::Deserialize)]
    struct When {
        declined_at: String,
    }
    let mut kept = Vec::new();
    for id in ids {
        let record = lore.store.read(Branch::Ledger, &layout::decline_path(id))?;
        let at = record
            .as_deref()
            .and_then(|b| serde_json::from_slice::<When>(b).ok())
            .and_then(|w| w.declined_at.parse::<jiff::Timestamp>().ok());
        if at.is_none_or(|at| at >= since) {
            kept.push(id);
        }
    }
    Ok(kept)
}

/// Why a declined artifact cannot be asked about again.
#[derive(Debug, thiserror::Error)]
pub enum RedoError {
    /// The decline or its commit is missing or damaged (the error that
    /// said so, when one did).
    #[error("its decline record or commit could not be read; `git lore verify` says why")]
    Unreadable(#[source] Option<super::Cause>),
    /// A decline written before declines kept their artifact.
    #[error("its decline record does not keep the artifact; ingest the artifact's file again")]
    NoArtifact,
}

/// The artifact a decline keeps and the decline a redo of it replaces, read
/// at the decline's own commit; else why it cannot be redone.
fn redo_of(
    lore: &Lore,
    id: Id,
    commit: Option<gix::ObjectId>,
) -> Result<(Box<Artifact>, Redo), RedoError> {
    let commit = commit.ok_or(RedoError::Unreadable(None))?;
    let record = lore
        .store
        .read_at(commit, &layout::decline_path(id))
        .map_err(|e| RedoError::Unreadable(Some(e.into())))?
        .ok_or(RedoError::Unreadable(None))?;
    let decline: Decline =
        serde_json::from_slice(&record).map_err(|e| RedoError::Unreadable(Some(e.into())))?;
    let artifact = decline.artifact.ok_or(RedoError::NoArtifact)?;
    let commit = CommitRef::parse(&commit.to_string()).ok_or(RedoError::Unreadable(None))?;
    Ok((Box::new(artifact), Redo { commit, record }))
}

/// The newest decline commit of each artifact of `ids`, from one walk of the
/// ledger.
fn decline_commits(lore: &Lore, ids: &[Id]) -> Result<HashMap<Id, gix::ObjectId>, LoreError> {
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
                found.insert(artifact, c);
            }
        }
    }
    Ok(found)
}

/// Why an item the run never got to has no outcome.
const NOT_ATTEMPTED: &str = "not attempted: the run stopped at an earlier error";

/// The outcome of an item the run never got to.
fn not_attempted(item: Item) -> Outcome {
    match item.artifact {
        Ok(a) => Outcome::Untouched {
            artifact: a.id,
            why: NOT_ATTEMPTED.into(),
        },
        Err(_) => Outcome::Invalid {
            source: item.source,
            why: InputError::Type(NOT_ATTEMPTED.into()),
        },
    }
}

/// Asks the backend about one artifact: the determination to write, or why
/// the model gave no answer (an outage: the artifact stays untouched).
fn determine(
    lore: &mut Lore,
    backend: &Backend,
    template: &str,
    artifact: Box<Artifact>,
    redo: Option<Redo>,
) -> Result<Pending, super::Outage> {
    let decided = match backend {
        Backend::Offline => decide_offline(&artifact),
        Backend::Command { .. } => {
            let prompt = transform::render_prompt(template, &artifact);
            match backend.ask(&prompt, &[]) {
                Ok(answer) => transform::decide(&answer, &artifact),
                Err(outage) => return Err(outage),
            }
        }
    };
    Ok(pending_of(
        lore,
        backend.model_name(),
        decided,
        artifact,
        redo,
    ))
}

/// A determination as it waits to be written, its record and commit made
/// with the run's clock and `model`; a proposal gets its lesson id here.
fn pending_of(
    lore: &mut Lore,
    model: &str,
    decided: Determination,
    artifact: Box<Artifact>,
    redo: Option<Redo>,
) -> Pending {
    let now = iso(lore.env.now);
    let aid = artifact.id;
    let replaces = redo.as_ref().map(|r| r.commit.clone());
    let ready = match decided {
        Determination::Propose { candidate } => {
            let lesson =
                Id::new_lesson(lore.env.now.as_millisecond() as u64, random128(lore.rng()));
            let subject = format!("propose {lesson}: {}", subject_text(&candidate.claim, 72));
            let proposal = Proposal::pending(lesson, *artifact, candidate, model, now);
            Ready {
                artifact: aid,
                lesson: Some(lesson),
                redo,
                subject,
                event: Event::Propose {
                    lesson,
                    artifact: aid,
                    model: Some(model.to_owned()),
                    replaces,
                },
                path: layout::proposal_path(lesson),
                record: held(canonical_json(&proposal)),
                outcome: Outcome::Proposed {
                    lesson,
                    artifact: aid,
                },
                unchanged: false,
            }
        }
        Determination::Decline { reason, detail } => {
            let record = Decline {
                artifact_id: aid,
                reason,
                detail,
                declined_at: now,
                artifact: Some(*artifact),
                model: Some(model.to_owned()),
            };
            let unchanged = redo.as_ref().is_some_and(|redo| {
                serde_json::from_slice::<Decline>(&redo.record).is_ok_and(|o| {
                    (o.reason, &o.detail, &o.model)
                        == (record.reason, &record.detail, &record.model)
                })
            });
            // `decline ID: no fix in it`; the code is the trailer.
            let code = reason.to_string();
            let why = crate::review::reason_text(&code);
            let subject = match &record.detail {
                Some(d) if d.len() <= 72 && !d.contains(['\n', '\r']) => {
                    format!("decline {aid}: {why} ({d})")
                }
                _ => format!("decline {aid}: {why}"),
            };
            Ready {
                artifact: aid,
                lesson: None,
                redo,
                subject,
                event: Event::Decline {
                    artifact: aid,
                    reason,
                    model: Some(model.to_owned()),
                    replaces,
                },
                path: layout::decline_path(aid),
                record: held(canonical_json(&record)),
                outcome: Outcome::Declined {
                    artifact: aid,
                    reason,
                    detail: record.detail,
                },
                unchanged,
            }
        }
    };
    Pending::Ready(Box::new(ready))
}

/// Bytes that wait in a chunk: without the room their writer grew them by
/// (up to half again their size).
fn held(mut bytes: Vec<u8>) -> Vec<u8> {
    bytes.shrink_to_fit();
    bytes
}

/// Below twice this many, a chunk's offline determinations are made on
/// one thread.
const PARALLEL_DETERMINE_FROM: usize = 256;

/// Makes the offline determinations of `batch` (its
/// [`Pending::Undetermined`]), in place: what the offline transform makes
/// of each artifact, on every core, each artifact on its own; then, in
/// `batch`'s order, a lesson id for each proposal, so that the ids (from
/// the run's clock and random source) are those one thread would draw.
fn determine_offline(lore: &mut Lore, batch: &mut Vec<(usize, Pending)>) {
    let decided = decide_all(&undetermined(batch), super::threads());
    *batch = with_ids(lore, std::mem::take(batch), decided);
}

/// The artifacts of `batch` the offline backend has yet to determine, in
/// order.
fn undetermined(batch: &[(usize, Pending)]) -> Vec<&Artifact> {
    batch
        .iter()
        .filter_map(|(_, p)| match p {
            Pending::Undetermined { artifact, .. } => Some(&**artifact),
            _ => None,
        })
        .collect()
}

/// `batch` with `decided` (one determination per undetermined artifact, in
/// order) in place of its undetermined artifacts, and a lesson id drawn for
/// each proposal, in `batch`'s order.
fn with_ids(
    lore: &mut Lore,
    batch: Vec<(usize, Pending)>,
    decided: Vec<Determination>,
) -> Vec<(usize, Pending)> {
    let mut decided = decided.into_iter();
    batch
        .into_iter()
        .map(|(i, p)| match p {
            Pending::Undetermined { artifact, redo } => {
                let d = decided.next().expect("one determination per artifact");
                // Only the offline backend leaves artifacts undetermined.
                let model = Backend::Offline.model_name();
                (i, pending_of(lore, model, d, artifact, redo))
            }
            p => (i, p),
        })
        .collect()
}

/// The items of `batch`, which a failed write before it left unwritten:
/// told that the run stopped.
fn not_written(order: &mut InOrder<'_, '_>, batch: Vec<(usize, Pending)>) {
    for (i, p) in batch {
        if !order.is_settled(i) {
            order.settle(
                i,
                Outcome::Untouched {
                    artifact: p.artifact_id(),
                    why: NOT_ATTEMPTED.into(),
                },
            );
        }
    }
}

/// What the offline transform makes of one artifact.
fn decide_offline(a: &Artifact) -> Determination {
    let text = pipeline::offline_transform::transform(a);
    let answer =
        crate::answer::Answer::new(text.as_bytes()).expect("the offline transform always answers");
    transform::decide(&answer, a)
}

/// What the offline transform makes of each of `artifacts`, in their
/// order, on up to `threads` threads (the result does not depend on how
/// many).
fn decide_all(artifacts: &[&Artifact], threads: usize) -> Vec<Determination> {
    if threads <= 1 || artifacts.len() < 2 * PARALLEL_DETERMINE_FROM {
        return artifacts.iter().map(|a| decide_offline(a)).collect();
    }
    let size = artifacts.len().div_ceil(threads);
    std::thread::scope(|scope| {
        let handles: Vec<_> = artifacts
            .chunks(size)
            .map(|part| {
                scope.spawn(move || part.iter().map(|a| decide_offline(a)).collect::<Vec<_>>())
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().expect("a determining thread panicked"))
            .collect()
    })
}

fn random128(rng: &mut dyn RngCore) -> [u8; 16] {
    let mut b = [0u8; 16];
    rng.fill_bytes(&mut b);
    b
}

/// Writes determinations, as few transactions as the ledger allows: a
/// transaction starts with the whole batch and halves what it carries each
/// time it loses the race, so short writers (hooks confirming a lesson)
/// cannot starve a large batch.
fn write(
    lore: &mut Lore,
    pending: &[(usize, Pending)],
    order: &mut InOrder<'_, '_>,
) -> Result<(), LoreError> {
    let mut rest = pending;
    while !rest.is_empty() {
        let mut attempt = 0u32;
        let done = lore.transact(Branch::Ledger, |tx| {
            let take = (rest.len() >> attempt.min(31)).max(1);
            attempt += 1;
            let mut results = Vec::with_capacity(take);
            for (i, p) in &rest[..take] {
                results.push((*i, write_one(tx, p)?));
            }
            Ok(results)
        })?;
        let n = done.value.len();
        for (i, o) in done.value {
            order.settle(i, o);
        }
        rest = &rest[n..];
    }
    Ok(())
}

/// One short subject line of a text: controls and line breaks read as
/// spaces, bidi and invisible characters dropped
/// ([`crate::content::text::spaced`]), white space collapsed, cut at `max`.
fn subject_text(s: &str, max: usize) -> String {
    let one = crate::content::text::spaced(s);
    let one = one.split_whitespace().collect::<Vec<_>>().join(" ");
    if one.chars().count() > max {
        format!("{}…", one.chars().take(max).collect::<String>())
    } else {
        one
    }
}

/// Whether history already has what this run is determining: any outcome
/// for a new artifact; for a redo, anything but the decline it read (a redo
/// that proposed leaves the decline record, one that declined anew replaces
/// it). `record` reads the artifact's decline record as history has it now.
fn determined<E>(
    outcome: Option<ArtifactOutcome>,
    redo: Option<&Redo>,
    record: impl FnOnce() -> Result<Option<Vec<u8>>, E>,
) -> Result<bool, E> {
    Ok(match redo {
        None => outcome.is_some(),
        Some(_) if !matches!(outcome, Some(ArtifactOutcome::Declined { .. })) => true,
        Some(r) => record()?.as_deref() != Some(&r.record[..]),
    })
}

/// Whether a pool holds a lesson made from `artifact`: the widest pool's
/// (public, org, local), then the smallest lesson id.
fn in_pool(index: &Index, artifact: Id) -> Option<Skip> {
    index
        .pool_holders(artifact)
        .into_iter()
        .max_by(|(la, pa), (lb, pb)| pa.cmp(pb).then(lb.cmp(la)))
        .map(|(lesson, pool)| Skip::InPool { lesson, pool })
}

/// Commits one determination, unless history already has the artifact.
fn write_one(tx: &mut Tx<'_>, p: &Pending) -> Result<Outcome, LoreError> {
    let Pending::Ready(r) = p else {
        unreachable!("a chunk's offline determinations are made before it is written")
    };
    if determined(tx.artifact(r.artifact), r.redo.as_ref(), || {
        tx.read(&layout::decline_path(r.artifact))
    })? {
        // Another writer determined it while we asked the model.
        return Ok(Outcome::Skipped {
            artifact: r.artifact,
            why: Skip::Seen,
        });
    }
    // Ids are random; a repeat (a fixed seed reused) must never overwrite
    // another lesson.
    if let Some(lesson) = r.lesson.filter(|&l| tx.lesson(l).is_some()) {
        return Err(LoreError::IdTaken { id: lesson });
    }
    if !r.unchanged {
        tx.commit(CommitSpec::new(
            &r.subject,
            None,
            r.event.clone(),
            vec![Change::Put {
                path: r.path.clone(),
                bytes: r.record.clone(),
            }],
        )?)?;
    }
    Ok(r.outcome.clone())
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
/// else its outcome (another run holds it, or history has it by now). A
/// redo's artifact is done by now when its decline record is no longer the
/// one the redo read.
fn claim(lore: &Lore, claims: &mut Option<Claims>, id: Id, redo: Option<&Redo>) -> Option<Outcome> {
    let c = claims.as_mut()?;
    match c.take(&id.to_string()) {
        Ok(Take::HeldElsewhere) => Some(Outcome::Skipped {
            artifact: id,
            why: Skip::Claimed,
        }),
        Ok(Take::Taken) => {
            // Another run may have written it and let go since this run
            // read what it knows: ask history again before asking a model.
            // History that cannot be read is no answer: the model is asked,
            // and the write checks again.
            let index = Index::load(&lore.store).ok()?;
            let done = determined(index.artifact(id), redo, || {
                lore.store.read(Branch::Ledger, &layout::decline_path(id))
            })
            .unwrap_or(false);
            done.then(|| {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offline_determinations_are_the_same_on_any_number_of_threads() {
        let base = crate::review::testdata::artifact("archivist-artifact.positive-synthetic.json");
        let other =
            crate::review::testdata::artifact("archivist-artifact.real-vitest-no-resolution.json");
        // Proposals and declines interleaved, each artifact its own.
        let artifacts: Vec<Artifact> = (0..3 * PARALLEL_DETERMINE_FROM + 7)
            .map(|n| {
                let mut a = if n % 3 == 0 {
                    other.clone()
                } else {
                    base.clone()
                };
                a.id = Id::from_parts(1_700_000_000_000, n as u128);
                a
            })
            .collect();
        let refs: Vec<&Artifact> = artifacts.iter().collect();
        let one = decide_all(&refs, 1);
        assert!(one
            .iter()
            .any(|d| matches!(d, Determination::Propose { .. })));
        assert!(one
            .iter()
            .any(|d| matches!(d, Determination::Decline { .. })));
        for threads in [2, 3, 8] {
            assert_eq!(decide_all(&refs, threads), one, "{threads} threads");
        }
    }

    #[test]
    fn an_offline_chunk_keeps_pace_with_the_ledger_within_its_bounds() {
        assert_eq!(offline_chunk(0), OFFLINE_CHUNK);
        assert_eq!(offline_chunk(16_384), OFFLINE_CHUNK);
        assert_eq!(offline_chunk(24_000), 3_000);
        assert_eq!(offline_chunk(32_768), OFFLINE_CHUNK_MAX);
        assert_eq!(offline_chunk(100_000), OFFLINE_CHUNK_MAX);
        assert_eq!(offline_chunk(1_000_000), OFFLINE_CHUNK_MAX);
        assert_eq!(offline_chunk(usize::MAX), OFFLINE_CHUNK_MAX);
    }
}
