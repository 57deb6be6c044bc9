//! `git lore relate` and `git lore contradictions`: relation judgment of a
//! promoted lesson against the live lessons of its pool, applied fail-closed.
//!
//! One run, against one pool snapshot (the pool's tip `T`):
//! 1. the candidate's pool entry and every entry of its pool are read at
//!    `T`; a lesson that was related already (`related/…`) is refused;
//! 2. the neighbour pool and the judgment input are built
//!    ([`crate::review::relation`]);
//! 3. a verdict is obtained: given (`--verdict`), from the offline judge,
//!    or from the relation judge's program through the one model path
//!    ([`Backend::ask`], role [`Role::Relate`]). Every outage becomes a void
//!    (a timeout is `timeout`, an empty answer `empty`, anything else
//!    `unparseable`); the answer is read raw, never unfenced;
//! 4. the verdict is parsed; the telemetry counters are updated;
//! 5. a void or an all-`abstain` batch writes nothing ([`Unapplied`]);
//! 6. every effect is planned (resolved, built and schema-checked) before
//!    any is written, then all are written in ONE transaction on the pool
//!    branch: one signed commit per effect, one compare-and-swap. If the
//!    pool moved meanwhile, the input is rebuilt from the new tip; a
//!    different presentation (another corpus digest) means the verdict is
//!    stale and nothing is written.
//!
//! `relate --all` reads each pool once, for the queue, and keeps it
//! ([`Pools`]): a lesson is judged against the kept snapshot only while its
//! pool's tip is the one the snapshot stands for; what the run writes is
//! folded in, and a tip someone else moved is read again. Step 6 still
//! checks at the tip it lands on. A snapshot also keeps its pool's tokens
//! and weights ([`PoolTokens`]) for every candidate judged against it.
//!
//! Telemetry is machine-local (`<gitdir>/lore/relate-telemetry.json`), a
//! cache of counts, best effort: it is never committed, a failure to write
//! it changes no outcome, and an unreadable file starts the counts again.
//!
//! This module orchestrates; every decision is the pure core's. It never
//! prints and reads no environment or clock but [`super::Env`].

use std::cell::OnceCell;
use std::num::NonZeroUsize;

use gix::ObjectId;

use super::backend::{Backend, Outage, Role};
use super::{Lore, LoreError};
use crate::event::Event;
use crate::model::{Id, Lesson, LessonStatus, Source};
use crate::review::relation::records::{self, CounterObservation};
use crate::review::relation::{
    self, neighbour_pool_in, offline_verdict, parse_verdict, plan_effects, render_prompt,
    Contradiction, Effect, EffectError, FailureMode, JudgmentInput, NeighbourConfig, Parsed,
    PlanContext, PoolTokens, RawVerdict, Telemetry, ValidBatch, VoidReason,
    DEFAULT_CONTRADICTION_THRESHOLD,
};
use crate::store::{layout, Branch, Change, CommitSpec, Store};
use crate::trailers::Action;

/// Where the telemetry counters live, under the git dir.
pub const TELEMETRY_FILE: &str = "lore/relate-telemetry.json";

/// The model name recorded for a verdict given with `--verdict`.
pub const EXTERNAL_MODEL: &str = "external";

/// The pools whose promoted lessons are queued for relation when a relation
/// judge is configured.
pub const QUEUED_POOLS: [Source; 2] = [Source::Org, Source::Public];

/// `lore.relate.cap`, `lore.relate.floor` and `lore.relate.threshold`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Settings {
    pub neighbours: NeighbourConfig,
    /// Counter-observations at which a lesson goes back to the jury.
    pub threshold: NonZeroUsize,
}

/// Reads the relation settings; a value that cannot be used is refused.
pub fn settings(lore: &Lore) -> Result<Settings, LoreError> {
    let cfg = |name: &str| lore.store.config_string(&Role::Relate.key(name));
    let bad = |name: &str, why: String| LoreError::Config {
        key: Role::Relate.key(name),
        why,
    };
    let cap = match cfg("cap") {
        None => relation::neighbours::DEFAULT_CAP,
        Some(v) => v
            .trim()
            .parse::<usize>()
            .map_err(|_| bad("cap", format!("must be a whole number, got {v:?}")))?,
    };
    let floor = match cfg("floor") {
        None => relation::neighbours::DEFAULT_FLOOR,
        Some(v) => v
            .trim()
            .parse::<f64>()
            .map_err(|_| bad("floor", format!("must be a number, got {v:?}")))?,
    };
    let neighbours = NeighbourConfig::new(cap, floor).map_err(|e| LoreError::ConfigInvalid {
        key: Role::Relate.key(if matches!(e, relation::NeighbourError::BadCap(_)) {
            "cap"
        } else {
            "floor"
        }),
        source: e.into(),
    })?;
    let threshold = match cfg("threshold") {
        None => DEFAULT_CONTRADICTION_THRESHOLD,
        Some(v) => v
            .trim()
            .parse::<usize>()
            .ok()
            .and_then(NonZeroUsize::new)
            .ok_or_else(|| {
                bad(
                    "threshold",
                    format!("must be a whole number >= 1, got {v:?}"),
                )
            })?,
    };
    Ok(Settings {
        neighbours,
        threshold,
    })
}

/// The configured relation judge, or `None` when none is configured
/// (neither `lore.relate.backend` nor `lore.relate.command` is set): then
/// nothing is queued and `relate` without `--verdict` cannot judge.
pub fn judge(lore: &Lore) -> Result<Option<Backend>, LoreError> {
    let key = |n: &str| lore.store.config_string(&Role::Relate.key(n));
    if key("backend").is_none() && key("command").is_none() {
        return Ok(None);
    }
    Backend::from_config(lore, Role::Relate, None).map(Some)
}

/// Where a verdict comes from.
pub enum VerdictFrom<'a> {
    /// The configured judge (`None`: none is configured).
    Judge(Option<&'a Backend>),
    /// A verdict produced elsewhere, as it arrived (`--verdict`).
    Given(&'a [u8]),
}

/// Why a verdict changed nothing: the candidate stays queued, and
/// re-running is safe (exit 2).
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
#[serde(tag = "reason", rename_all = "snake_case")]
pub enum Unapplied {
    /// No relation judge is configured.
    NoJudge,
    /// The verdict was voided; it carries no decisions.
    Voided { mode: FailureMode, detail: String },
    /// Every decision was `abstain`.
    AllAbstain,
    /// An effect could not be resolved (a target went away, a record would
    /// not be valid, a record to add exists already).
    Unresolvable { why: String },
    /// The pool changed what the judge would be shown while it judged.
    Stale,
}

impl std::fmt::Display for Unapplied {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            // The CLI says it with the exact command for its repository.
            Unapplied::NoJudge => f.write_str(
                "no relation judge is configured (set lore.relate.backend to offline, or lore.relate.command)",
            ),
            Unapplied::Voided { mode, detail } => write!(f, "the verdict was voided ({mode}): {detail}"),
            Unapplied::AllAbstain => f.write_str("the judge abstained"),
            Unapplied::Unresolvable { why } => write!(f, "an effect could not be resolved: {why}"),
            Unapplied::Stale => f.write_str(
                "the pool changed while the judge was judging; the verdict is stale",
            ),
        }
    }
}

/// One effect written: its action, its lesson and the other side, its commit.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Written {
    /// The commit's subject.
    pub subject: String,
    pub action: Action,
    pub lesson: Id,
    pub targets: Vec<Id>,
    pub commit: String,
}

/// What `relate` did for one lesson.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Related {
    pub lesson: Id,
    pub pool: Source,
    /// The judge (`offline`, a model name, or `external`).
    pub model: String,
    /// The presented neighbours, in order.
    pub neighbours: Vec<Id>,
    /// The effects written, in order (empty when nothing was applied).
    pub written: Vec<Written>,
    /// Why nothing was written, if so.
    pub unapplied: Option<Unapplied>,
}

/// A pool read at one tip: the candidate and every readable entry.
struct Snapshot {
    pool: Source,
    tip: Option<ObjectId>,
    /// Every entry of `lessons/` that reads as the lesson its path names,
    /// in path order.
    lessons: Vec<Lesson>,
    /// The token sets and weights of `lessons`, built when first asked for.
    tokens: OnceCell<PoolTokens>,
}

impl Snapshot {
    fn new(pool: Source, tip: Option<ObjectId>, lessons: Vec<Lesson>) -> Snapshot {
        Snapshot {
            pool,
            tip,
            lessons,
            tokens: OnceCell::new(),
        }
    }

    fn tokens(&self) -> &PoolTokens {
        self.tokens.get_or_init(|| PoolTokens::new(&self.lessons))
    }
}

fn read_lessons(store: &Store, tip: Option<ObjectId>) -> Result<Vec<Lesson>, LoreError> {
    let Some(tip) = tip else {
        return Ok(Vec::new());
    };
    Ok(store
        .list_at(tip, records::LESSONS_DIR)?
        .into_iter()
        .filter_map(|(path, bytes)| entry_at(&path, &bytes))
        .collect())
}

/// The lesson a file of `lessons/` holds: `None` when it does not read as
/// one or is not at that lesson's own path.
fn entry_at(path: &str, bytes: &[u8]) -> Option<Lesson> {
    let l: Lesson = serde_json::from_slice(bytes).ok()?;
    (layout::lesson_path(l.id) == path).then_some(l)
}

/// `lessons` (as [`read_lessons`] read them) after `path` was written with
/// `bytes`: exactly what reading them again would give, without reading.
/// A file that is no lesson entry changes nothing; one that no longer reads
/// as its lesson drops it.
/// Returns whether `lessons` changed.
fn fold_written(lessons: &mut Vec<Lesson>, path: &str, bytes: &[u8]) -> bool {
    let at = lessons.binary_search_by(|l| layout::lesson_path(l.id).as_str().cmp(path));
    match (entry_at(path, bytes), at) {
        (Some(l), Ok(i)) => {
            let changed = lessons[i] != l;
            lessons[i] = l;
            changed
        }
        (Some(l), Err(i)) => {
            lessons.insert(i, l);
            true
        }
        (None, Ok(i)) => {
            lessons.remove(i);
            true
        }
        (None, Err(_)) => false,
    }
}

/// What one relation wrote: the files of its commits, the tip they were
/// built on and the tip they left.
struct Landed {
    pool: Source,
    base: Option<ObjectId>,
    head: ObjectId,
    files: Files,
}

/// Files written, each its path and bytes.
type Files = Vec<(String, Vec<u8>)>;

/// The pools as last read, kept across the lessons of one `relate --all`
/// run so that a pool is not read again for every lesson.
///
/// A snapshot is used only while its pool's tip is the one it was read at
/// (checked for every lesson). What the run writes itself is folded in
/// ([`fold_written`]) when its transaction built on the snapshot's tip;
/// anything else (another writer moved the tip, or the transaction built on
/// a tip it had to read itself) reads the pool again. Each transaction
/// still plans and checks at the tip it lands on: a snapshot only spares
/// the reading.
#[derive(Default)]
pub struct Pools {
    snaps: Vec<Snapshot>,
    reads: usize,
}

impl Pools {
    /// No pool read yet.
    pub fn new() -> Pools {
        Pools::default()
    }

    /// How many times a pool was read in full.
    pub fn reads(&self) -> usize {
        self.reads
    }

    /// `pool` at `tip`: the snapshot kept, or a new read.
    fn at(&mut self, store: &Store, pool: Source, tip: ObjectId) -> Result<&Snapshot, LoreError> {
        let i = match self.snaps.iter().position(|s| s.pool == pool) {
            Some(i) if self.snaps[i].tip == Some(tip) => i,
            kept => {
                let snap = Snapshot::new(pool, Some(tip), read_lessons(store, Some(tip))?);
                self.reads += 1;
                match kept {
                    Some(i) => {
                        self.snaps[i] = snap;
                        i
                    }
                    None => {
                        self.snaps.push(snap);
                        self.snaps.len() - 1
                    }
                }
            }
        };
        Ok(&self.snaps[i])
    }

    /// The pool holding `id`, as [`locate`] finds it.
    fn locate(&mut self, lore: &Lore, id: Id) -> Result<&Snapshot, LoreError> {
        let (pool, tip) = holding(lore, id)?;
        let snap = self.at(&lore.store, pool, tip)?;
        holds(snap, id)?;
        Ok(snap)
    }

    /// Takes in what a relation wrote: folded into the snapshot it was
    /// built on, or that snapshot dropped (the pool is read again next).
    fn land(&mut self, landed: Landed) {
        let Some(i) = self.snaps.iter().position(|s| s.pool == landed.pool) else {
            return;
        };
        let snap = &mut self.snaps[i];
        if snap.tip != landed.base {
            self.snaps.remove(i);
            return;
        }
        let mut changed = false;
        for (path, bytes) in &landed.files {
            changed |= fold_written(&mut snap.lessons, path, bytes);
        }
        // Most verdicts (a `skip`, a relation record) change no entry: the
        // tokens and weights still hold.
        if changed {
            snap.tokens = OnceCell::new();
        }
        snap.tip = Some(landed.head);
    }
}

/// The pool whose tip holds `id`, and that tip; refuses an id no pool
/// holds.
fn holding(lore: &Lore, id: Id) -> Result<(Source, ObjectId), LoreError> {
    if let Some(held) = super::query::pool_holding(lore, id)? {
        return Ok(held);
    }
    let on_ledger = lore
        .store
        .read(Branch::Ledger, &layout::proposal_path(id))?
        .is_some();
    if on_ledger {
        Err(LoreError::Input {
            what: format!("lesson {id}"),
            why: "it is not promoted; only lessons in a pool can be related".into(),
        })
    } else {
        Err(LoreError::NotFound { id })
    }
}

/// Refuses a snapshot in which `id`'s entry does not read.
fn holds(snap: &Snapshot, id: Id) -> Result<(), LoreError> {
    if snap.lessons.iter().any(|l| l.id == id) {
        Ok(())
    } else {
        Err(LoreError::BadPoolEntry {
            id,
            why: "its pool entry does not read as a lesson".into(),
        })
    }
}

/// The pool holding `id`, read at its tip; refuses an id no pool holds.
fn locate(lore: &Lore, id: Id) -> Result<Snapshot, LoreError> {
    let (pool, tip) = holding(lore, id)?;
    let snap = Snapshot::new(pool, Some(tip), read_lessons(&lore.store, Some(tip))?);
    holds(&snap, id)?;
    Ok(snap)
}

fn candidate(snap: &Snapshot, id: Id) -> &Lesson {
    snap.lessons
        .iter()
        .find(|l| l.id == id)
        .expect("locate checked it")
}

fn input_of(snap: &Snapshot, id: Id, settings: &Settings) -> Result<JudgmentInput, LoreError> {
    let cand = candidate(snap, id);
    let refuse = |e: super::Cause| LoreError::invalid(format!("lesson {id} cannot be related"), e);
    let pool = neighbour_pool_in(cand, &snap.lessons, snap.tokens(), &settings.neighbours)
        .map_err(|e| refuse(e.into()))?;
    JudgmentInput::from_pool(cand, &snap.lessons, &pool).map_err(|e| refuse(e.into()))
}

fn already_related(store: &Store, snap: &Snapshot, id: Id) -> Result<bool, LoreError> {
    Ok(match snap.tip {
        Some(t) => store.read_at(t, &records::related_path(id))?.is_some(),
        None => false,
    })
}

/// The judgment input for `id` (`relate --input`); writes nothing.
pub fn input(lore: &Lore, id: Id) -> Result<JudgmentInput, LoreError> {
    let settings = settings(lore)?;
    let snap = locate(lore, id)?;
    input_of(&snap, id, &settings)
}

/// The telemetry counters as last written (zero when there are none).
pub fn telemetry(lore: &Lore) -> Telemetry {
    std::fs::read(lore.store.git_dir().join(TELEMETRY_FILE))
        .ok()
        .and_then(|b| serde_json::from_slice(&b).ok())
        .unwrap_or_default()
}

fn count(lore: &Lore, parsed: &Parsed) {
    let mut t = telemetry(lore);
    t.record(parsed);
    let bytes = crate::model::canonical_json(&t);
    // Best effort: the counters are a cache of what happened.
    let _ = lore
        .store
        .write_private_file(TELEMETRY_FILE, &bytes, 0o644, false);
}

/// The judge's answer, with every outage turned into a void.
fn ask(backend: &Backend, input: &JudgmentInput) -> Parsed {
    let raw = match backend {
        Backend::Offline => return parse_verdict(RawVerdict::Json(&offline_verdict(input)), input),
        Backend::Command { .. } => backend.ask(&render_prompt(input), &[]),
    };
    match raw {
        // The answer arrives with invalid UTF-8 replaced; a verdict that was
        // not UTF-8 is not JSON text, so it voids (U+FFFD is taken as that
        // mark: failing closed on a literal one costs one retry).
        Ok(answer) if answer.raw().contains('\u{FFFD}') => Parsed::void(
            FailureMode::Unparseable,
            "the judge's answer is not UTF-8 text",
        ),
        // Read raw: the contract forbids repairing an answer (no unfencing).
        Ok(answer) => parse_verdict(RawVerdict::Text(answer.raw()), input),
        Err(Outage::TimedOut { program, seconds }) => Parsed::void(
            FailureMode::Timeout,
            format!("judge {program:?} did not answer within {seconds}s and was killed"),
        ),
        Err(Outage::EmptyOutput) => Parsed::void(FailureMode::Empty, "the judge printed nothing"),
        Err(e) => Parsed::void(FailureMode::Unparseable, e.to_string()),
    }
}

/// The event an effect's commit carries.
fn event_of(e: &Effect, model: &str) -> Event {
    let surface = e.surface.clone().unwrap_or_default();
    let (lesson, model) = (e.lesson, model.to_owned());
    let first = e.targets.first().copied().unwrap_or(e.lesson);
    match e.action {
        Action::Supersede => Event::Supersede {
            lesson,
            by: first,
            surface,
            model,
        },
        Action::Merge => Event::Merge {
            lesson,
            sources: e.targets.clone(),
            surface,
            model,
        },
        Action::Refine => Event::Refine {
            lesson,
            targets: e.targets.clone(),
            surface,
            model,
        },
        Action::Contradict => Event::Contradict {
            lesson,
            by: first,
            surface,
            model,
        },
        _ => Event::Relate {
            lesson,
            targets: e.targets.clone(),
            model,
        },
    }
}

/// Plans `batch` over `lessons`: a refusal for a bad model name or clock
/// (nothing a retry fixes), [`Unapplied::Unresolvable`] for the rest.
fn plan(
    batch: &ValidBatch,
    lessons: &[Lesson],
    ctx: &PlanContext<'_>,
) -> Result<Result<Vec<Effect>, Unapplied>, LoreError> {
    match plan_effects(batch, lessons, ctx) {
        Ok(effects) => Ok(Ok(effects)),
        Err(e @ (EffectError::BadModel(_) | EffectError::BadClock(_))) => {
            Err(LoreError::invalid("relation judgment", e))
        }
        Err(e) => Ok(Err(Unapplied::Unresolvable { why: e.to_string() })),
    }
}

/// Relates lesson `id`: asks for (or takes) a verdict and applies it, all
/// or nothing.
pub fn relate(lore: &mut Lore, id: Id, from: VerdictFrom<'_>) -> Result<Related, LoreError> {
    let snap = locate(lore, id)?;
    if already_related(&lore.store, &snap, id)? {
        return Err(LoreError::Input {
            what: format!("lesson {id}"),
            why: format!(
                "it was related already ({}); `git lore show {id}` shows how",
                records::related_path(id)
            ),
        });
    }
    relate_in(lore, &snap, id, from).map(|(r, _)| r)
}

/// [`relate`] for a lesson of the queue, which an earlier relation of the
/// same run may have retired: `None` when it no longer waits (its entry is
/// not active, or it has a judgment record). Its pool is taken from
/// `pools` while its tip has not moved there (see [`Pools`]), and what is
/// written is folded back into it.
pub fn relate_if_queued(
    lore: &mut Lore,
    pools: &mut Pools,
    id: Id,
    from: VerdictFrom<'_>,
) -> Result<Option<Related>, LoreError> {
    let snap = pools.locate(lore, id)?;
    if candidate(snap, id).status != LessonStatus::Active || already_related(&lore.store, snap, id)?
    {
        return Ok(None);
    }
    let (related, landed) = relate_in(lore, snap, id, from)?;
    if let Some(landed) = landed {
        pools.land(landed);
    }
    Ok(Some(related))
}

/// Judges `id` as `snap` shows its pool, and applies the verdict; with
/// what was written, if anything was.
fn relate_in(
    lore: &mut Lore,
    snap: &Snapshot,
    id: Id,
    from: VerdictFrom<'_>,
) -> Result<(Related, Option<Landed>), LoreError> {
    let settings = settings(lore)?;
    let input = input_of(snap, id, &settings)?;
    let mut out = Related {
        lesson: id,
        pool: snap.pool,
        model: String::new(),
        neighbours: input.neighbours().iter().map(|l| l.id).collect(),
        written: Vec::new(),
        unapplied: None,
    };
    let Some(parsed) = verdict(from, &input, &mut out) else {
        return Ok((out, None));
    };
    count(lore, &parsed);
    let batch = match parsed {
        Parsed::Void(VoidReason { mode, detail }) => {
            out.unapplied = Some(Unapplied::Voided { mode, detail });
            return Ok((out, None));
        }
        Parsed::Valid(b) if b.is_all_abstain() => {
            out.unapplied = Some(Unapplied::AllAbstain);
            return Ok((out, None));
        }
        Parsed::Valid(b) => b,
    };
    let now = lore.env.now;
    let model = out.model.clone();
    let ctx = PlanContext { now, model: &model };
    // Resolved in full before the transaction: a refusal or an
    // unresolvable effect stops here, with nothing written.
    if let Err(why) = plan(&batch, &snap.lessons, &ctx)? {
        out.unapplied = Some(why);
        return Ok((out, None));
    }
    let branch = Branch::Pool(snap.pool);
    let committed = lore.transact(branch, |tx| {
        // Planned against the tip this attempt builds on.
        let read;
        let lessons = if tx.base() == snap.tip {
            &snap.lessons
        } else {
            match lessons_now(tx, snap, id, &settings, &batch)? {
                Some(l) => read = l,
                None => return Ok(Err(Unapplied::Stale)),
            }
            &read
        };
        let effects = match plan(&batch, lessons, &ctx)? {
            Ok(e) => e,
            Err(why) => return Ok(Err(why)),
        };
        if let Some(why) = unresolvable_change(tx, &effects)? {
            return Ok(Err(why));
        }
        commit_effects(tx, &effects, &model).map(Ok)
    })?;
    let mut landed = None;
    match committed.value {
        Ok((written, files)) => {
            out.written = written;
            landed = committed.commits.last().map(|&head| Landed {
                pool: snap.pool,
                base: committed.base,
                head,
                files,
            });
        }
        Err(why) => out.unapplied = Some(why),
    }
    Ok((out, landed))
}

/// The verdict, asked for or as given, with the model it names in `out`;
/// none (and `out` says why) when no judge is configured.
fn verdict(from: VerdictFrom<'_>, input: &JudgmentInput, out: &mut Related) -> Option<Parsed> {
    match from {
        VerdictFrom::Judge(None) => {
            out.unapplied = Some(Unapplied::NoJudge);
            None
        }
        VerdictFrom::Judge(Some(backend)) => {
            out.model = backend.model_name().to_owned();
            Some(ask(backend, input))
        }
        VerdictFrom::Given(bytes) => {
            out.model = EXTERNAL_MODEL.to_owned();
            Some(parse_verdict(RawVerdict::Bytes(bytes), input))
        }
    }
}

/// The pool's lessons at the tip `tx` builds on, which moved since `snap`
/// was read: none when the lesson left it or what the judge was shown
/// changed (the verdict is stale).
fn lessons_now(
    tx: &crate::store::Tx<'_>,
    snap: &Snapshot,
    id: Id,
    settings: &Settings,
    batch: &ValidBatch,
) -> Result<Option<Vec<Lesson>>, LoreError> {
    let now_snap = Snapshot::new(snap.pool, tx.base(), read_lessons(tx.store(), tx.base())?);
    if !now_snap.lessons.iter().any(|l| l.id == id) {
        return Ok(None);
    }
    match input_of(&now_snap, id, settings) {
        Ok(i) if i.corpus_fingerprint().digest() == batch.corpus_digest() => {}
        _ => return Ok(None),
    }
    Ok(Some(now_snap.lessons))
}

/// Every file checked before the first commit: an added record must be
/// new, a changed one must exist. The first that is not, as the reason.
fn unresolvable_change(
    tx: &crate::store::Tx<'_>,
    effects: &[Effect],
) -> Result<Option<Unapplied>, LoreError> {
    for e in effects {
        for c in &e.changes {
            let exists = tx.read(&c.path)?.is_some();
            let fine = match c.kind {
                relation::ChangeKind::Add => !exists,
                relation::ChangeKind::Modify => exists,
            };
            if !fine {
                return Ok(Some(Unapplied::Unresolvable {
                    why: format!(
                        "{} {}",
                        c.path,
                        if exists {
                            "exists already"
                        } else {
                            "does not exist"
                        }
                    ),
                }));
            }
        }
    }
    Ok(None)
}

/// One commit per effect: what was written, and every file it wrote.
fn commit_effects(
    tx: &mut crate::store::Tx<'_>,
    effects: &[Effect],
    model: &str,
) -> Result<(Vec<Written>, Files), LoreError> {
    let mut written = Vec::new();
    let mut files = Vec::new();
    for e in effects {
        let changes = e
            .changes
            .iter()
            .map(|c| Change::Put {
                path: c.path.clone(),
                bytes: c.bytes.clone(),
            })
            .collect();
        let commit = tx.commit(CommitSpec::new(
            &e.subject,
            None,
            event_of(e, model),
            changes,
        )?)?;
        written.push(Written {
            subject: e.subject.clone(),
            action: e.action,
            lesson: e.lesson,
            targets: e.targets.clone(),
            commit: commit.to_string(),
        });
        files.extend(e.changes.iter().map(|c| (c.path.clone(), c.bytes.clone())));
    }
    Ok((written, files))
}

/// The lessons waiting for relation: active entries of the org and public
/// pools with no judgment record, oldest id first. Empty when no relation
/// judge is configured (nothing is queued then).
pub fn queue(lore: &Lore) -> Result<Vec<(Source, Id)>, LoreError> {
    queue_in(lore, &mut Pools::new())
}

/// [`queue`], keeping the pools it reads in `pools` for the relations
/// that follow ([`relate_if_queued`]).
pub fn queue_in(lore: &Lore, pools: &mut Pools) -> Result<Vec<(Source, Id)>, LoreError> {
    if judge(lore)?.is_none() {
        return Ok(Vec::new());
    }
    unrelated(lore, pools)
}

/// Active entries of the org and public pools with no judgment record.
fn unrelated(lore: &Lore, pools: &mut Pools) -> Result<Vec<(Source, Id)>, LoreError> {
    let mut out = Vec::new();
    for pool in QUEUED_POOLS {
        let Some(t) = lore.store.tip(Branch::Pool(pool))? else {
            continue;
        };
        let related: std::collections::BTreeSet<Id> = lore
            .store
            .paths_at(t, records::RELATED_DIR)?
            .into_iter()
            .filter_map(|(path, _)| match records::classify(&path) {
                Some(records::RelationPath::Related(id)) => Some(id),
                _ => None,
            })
            .collect();
        for l in &pools.at(&lore.store, pool, t)?.lessons {
            if l.status == LessonStatus::Active && !related.contains(&l.id) {
                out.push((pool, l.id));
            }
        }
    }
    // Oldest id first (a lesson id starts with when it was made); the
    // pools list their lessons in path order, which is random.
    out.sort_by_key(|(_, id)| *id);
    Ok(out)
}

/// Every lesson with counter-observations, per pool; `past_threshold` is
/// whether it waits for the jury: it is an active lesson of `pool/org` or
/// `pool/public` (a private lesson has no jury), its count reached the
/// threshold, and the jury has not upheld it at this count or more
/// (`upheld_at`).
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Contradicted {
    pub pool: Source,
    pub lesson: Id,
    pub status: LessonStatus,
    pub count: usize,
    pub past_threshold: bool,
    /// The most counter-observations the jury upheld it against, if it did.
    pub upheld_at: Option<usize>,
    pub observations: Vec<CounterObservation>,
}

/// Per lesson, the most counter-observations the jury upheld it against
/// (`upheld/…/<N>.json`), in the pool at `tip`.
pub fn upheld_at(
    store: &Store,
    tip: ObjectId,
) -> Result<std::collections::BTreeMap<Id, usize>, LoreError> {
    let mut out = std::collections::BTreeMap::new();
    for (path, _) in store.paths_at(tip, records::UPHELD_DIR)? {
        if let Some(records::RelationPath::Upheld { lesson, count }) = records::classify(&path) {
            let n: &mut usize = out.entry(lesson).or_default();
            *n = (*n).max(count);
        }
    }
    Ok(out)
}

/// The most counter-observations the jury upheld `lesson` against, in the
/// pool at `tip`: [`upheld_at`] for one lesson, reading only its own
/// directory.
pub fn upheld_at_for(store: &Store, tip: ObjectId, lesson: Id) -> Result<Option<usize>, LoreError> {
    Ok(store
        .paths_at(tip, &records::upheld_dir(lesson))?
        .into_iter()
        .filter_map(|(path, _)| match records::classify(&path) {
            Some(records::RelationPath::Upheld { lesson: l, count }) if l == lesson => Some(count),
            _ => None,
        })
        .max())
}

/// The counter-observations recorded against `lesson` in the pool at `tip`,
/// each at its own path; unreadable ones are left out.
pub fn observations_against(
    store: &Store,
    tip: ObjectId,
    lesson: Id,
) -> Result<Vec<CounterObservation>, LoreError> {
    Ok(store
        .list_at(tip, &records::counter_observations_dir(lesson))?
        .into_iter()
        .filter_map(|(path, bytes)| {
            let o: CounterObservation = serde_json::from_slice(&bytes).ok()?;
            (records::counter_observation_path(o.lesson_id, o.id) == path && o.lesson_id == lesson)
                .then_some(o)
        })
        .collect())
}

/// The lessons of every pool that carry counter-observations, and the
/// threshold in force.
pub fn contradictions(lore: &Lore) -> Result<(Vec<Contradicted>, NonZeroUsize), LoreError> {
    let threshold = settings(lore)?.threshold;
    let mut out = Vec::new();
    for pool in [Source::Local, Source::Org, Source::Public] {
        let tip = lore.store.tip(Branch::Pool(pool))?;
        let Some(t) = tip else { continue };
        let observations: Vec<CounterObservation> = lore
            .store
            .list_at(t, records::COUNTER_OBSERVATIONS_DIR)?
            .into_iter()
            .filter_map(|(path, bytes)| {
                let o: CounterObservation = serde_json::from_slice(&bytes).ok()?;
                (records::counter_observation_path(o.lesson_id, o.id) == path).then_some(o)
            })
            .collect();
        if observations.is_empty() {
            continue;
        }
        // Only the contradicted entries are read: `status` asks this on
        // every run, and a pool may hold many lessons.
        let mut lessons: Vec<Lesson> = Vec::new();
        let ids: std::collections::BTreeSet<Id> =
            observations.iter().map(|o| o.lesson_id).collect();
        for id in ids {
            if let Some(bytes) = lore.store.read_at(t, &layout::lesson_path(id))? {
                lessons.extend(serde_json::from_slice::<Lesson>(&bytes).ok());
            }
        }
        let upheld = upheld_at(&lore.store, t)?;
        let past: Vec<Id> = if QUEUED_POOLS.contains(&pool) {
            relation::contradictions_past_threshold(&lessons, &observations, threshold, &upheld)
                .into_iter()
                .map(|c| c.lesson)
                .collect()
        } else {
            Vec::new()
        };
        for Contradiction {
            lesson,
            status,
            count,
            observations,
        } in relation::contradictions(&lessons, &observations)
        {
            out.push(Contradicted {
                pool,
                lesson,
                status,
                count,
                past_threshold: past.contains(&lesson),
                upheld_at: upheld.get(&lesson).copied(),
                observations,
            });
        }
    }
    Ok((out, threshold))
}

/// A lesson's relations as its pool records them, for `show`.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
pub struct Relations {
    /// The pool entry's status.
    pub status: Option<LessonStatus>,
    /// The lesson that superseded this one.
    pub superseded_by: Option<Id>,
    /// Lessons this one refines.
    pub refines: Vec<Id>,
    /// Lessons that refine this one.
    pub refined_by: Vec<Id>,
    /// Counter-observations recorded against this one.
    pub counter_observations: usize,
    /// Whether its judgment record exists.
    pub related: bool,
    /// The most counter-observations the jury upheld it against, if it did.
    pub upheld_at: Option<usize>,
}

/// What the pool holding `id` records of its relations (`None`: no pool
/// holds it).
pub fn relations(lore: &Lore, id: Id) -> Result<Option<Relations>, LoreError> {
    for pool in [Source::Local, Source::Org, Source::Public] {
        let Some(t) = lore.store.tip(Branch::Pool(pool))? else {
            continue;
        };
        let Some(bytes) = lore.store.read_at(t, &layout::lesson_path(id))? else {
            continue;
        };
        let entry = serde_json::from_slice::<Lesson>(&bytes).ok();
        let mut r = Relations {
            status: entry.as_ref().map(|l| l.status),
            superseded_by: entry.and_then(|l| l.superseded_by),
            ..Relations::default()
        };
        for (path, _) in lore.store.paths_at(t, records::RELATIONS_DIR)? {
            if let Some(records::RelationPath::Relation { from, to }) = records::classify(&path) {
                if from == id {
                    r.refines.push(to);
                }
                if to == id {
                    r.refined_by.push(from);
                }
            }
        }
        r.counter_observations = lore
            .store
            .paths_at(t, &records::counter_observations_dir(id))?
            .len();
        r.related = lore.store.read_at(t, &records::related_path(id))?.is_some();
        r.upheld_at = upheld_at_for(&lore.store, t, id)?;
        return Ok(Some(r));
    }
    Ok(None)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::canonical_json;
    use crate::review::relation::testutil::{lesson, test_id, LessonSpec};
    use std::collections::BTreeMap;

    fn nth(n: u32) -> Lesson {
        lesson(&LessonSpec {
            n,
            ..LessonSpec::default()
        })
    }

    /// What [`read_lessons`] reads from a tree holding `files`.
    fn read(files: &BTreeMap<String, Vec<u8>>) -> Vec<Lesson> {
        files
            .iter()
            .filter(|(p, _)| p.starts_with(&format!("{}/", records::LESSONS_DIR)))
            .filter_map(|(p, b)| entry_at(p, b))
            .collect()
    }

    /// A verdict that changes no entry (a `skip`, a relation record)
    /// keeps the pool's tokens; one that changes an entry lets them go.
    #[test]
    fn tokens_are_kept_across_writes_that_change_no_entry() {
        let lessons: Vec<Lesson> = (1..=6).map(nth).collect();
        let tip = |n: u8| ObjectId::from_bytes_or_panic(&[n; 20]);
        let mut pools = Pools::new();
        pools
            .snaps
            .push(Snapshot::new(Source::Org, Some(tip(1)), lessons));
        pools.snaps[0].tokens();
        let landed = |base: u8, head: u8, files: Vec<(String, Vec<u8>)>| Landed {
            pool: Source::Org,
            base: Some(tip(base)),
            head: tip(head),
            files,
        };
        pools.land(landed(
            1,
            2,
            vec![
                (records::related_path(test_id(1)), b"{}".to_vec()),
                (layout::lesson_path(test_id(2)), canonical_json(&nth(2))),
            ],
        ));
        assert!(pools.snaps[0].tokens.get().is_some(), "kept");
        assert_eq!(pools.snaps[0].tip, Some(tip(2)));
        let mut superseded = nth(3);
        superseded.status = LessonStatus::Superseded;
        pools.land(landed(
            2,
            3,
            vec![(layout::lesson_path(test_id(3)), canonical_json(&superseded))],
        ));
        assert!(pools.snaps[0].tokens.get().is_none(), "let go");
    }

    #[test]
    fn a_written_file_folds_in_as_reading_the_pool_again_would() {
        let mut files: BTreeMap<String, Vec<u8>> = (1..=12)
            .map(|n| (layout::lesson_path(test_id(n)), canonical_json(&nth(n))))
            .collect();
        let mut lessons = read(&files);
        let mut superseded = nth(3);
        superseded.status = LessonStatus::Superseded;
        superseded.superseded_by = Some(test_id(4));
        let writes = [
            // a changed entry
            (layout::lesson_path(test_id(3)), canonical_json(&superseded)),
            // new entries, before, among and after the others
            (layout::lesson_path(test_id(0)), canonical_json(&nth(0))),
            (layout::lesson_path(test_id(40)), canonical_json(&nth(40))),
            (layout::lesson_path(test_id(999)), canonical_json(&nth(999))),
            // an entry that no longer reads, one at another lesson's path
            (layout::lesson_path(test_id(5)), b"not json".to_vec()),
            (layout::lesson_path(test_id(6)), canonical_json(&nth(7))),
            // not an entry
            (records::related_path(test_id(1)), b"{}".to_vec()),
            (records::related_path(test_id(2)), canonical_json(&nth(2))),
        ];
        // The same entry again: nothing changes.
        let same = (layout::lesson_path(test_id(8)), canonical_json(&nth(8)));
        for (path, bytes) in writes.iter().chain([&same]) {
            files.insert(path.clone(), bytes.clone());
            let before = lessons.clone();
            let changed = fold_written(&mut lessons, path, bytes);
            assert_eq!(lessons, read(&files), "after {path}");
            assert_eq!(changed, lessons != before, "what {path} changed is said");
        }
        let ids: Vec<Id> = lessons.iter().map(|l| l.id).collect();
        assert!(ids.contains(&test_id(40)) && !ids.contains(&test_id(5)));
        assert!(!ids.contains(&test_id(6)) && ids.contains(&test_id(7)));
        assert_eq!(
            lessons.iter().find(|l| l.id == test_id(3)).unwrap().status,
            LessonStatus::Superseded
        );
    }
}
