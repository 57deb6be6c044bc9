//! Reading lessons back: one proposal by id, proposals by status, what
//! happened to artifacts, and the state of the index. Nothing here writes
//! to history (the index cache may be caught up).

use super::{Lore, LoreError};
use crate::model::{Id, IdPrefix, Lesson, Proposal, ProposalStatus, Source};
use crate::search::Status;
use crate::store::{layout, ArtifactOutcome, Branch, Index, LessonEntry, StoreError};

/// Which id a person meant: a whole id as given (whether or not anything
/// has it: each command says what it expected), or the one id of a lesson
/// or artifact that starts with a prefix.
pub fn resolve(lore: &Lore, typed: &IdPrefix) -> Result<Id, LoreError> {
    if let Some(id) = typed.full() {
        return Ok(id);
    }
    resolve_in(&Index::load(&lore.store)?, typed)
}

/// The index, caught up with history: loaded once by a command that asks
/// it several things (`show`), and passed to the `*_in` functions here.
pub fn index(lore: &Lore) -> Result<Index, LoreError> {
    Ok(Index::load(&lore.store)?)
}

/// [`resolve`] against an index already loaded.
pub fn resolve_in(index: &Index, typed: &IdPrefix) -> Result<Id, LoreError> {
    if let Some(id) = typed.full() {
        return Ok(id);
    }
    let ids = index.ids();
    let (lo, hi) = typed.range();
    let from = ids.partition_point(|x| *x < lo);
    let matching: Vec<Id> = ids[from..]
        .iter()
        .take_while(|x| **x <= hi)
        .copied()
        .collect();
    match matching.as_slice() {
        [] => Err(LoreError::NoSuchId {
            prefix: typed.as_str().to_owned(),
        }),
        [one] => Ok(*one),
        many => Err(LoreError::AmbiguousId {
            prefix: typed.as_str().to_owned(),
            count: many.len(),
            candidates: many
                .iter()
                .take(AMBIGUOUS_SHOWN)
                .map(|&id| describe(index, id, &ids))
                .collect(),
        }),
    }
}

/// How many candidates an ambiguous prefix lists.
const AMBIGUOUS_SHOWN: usize = 10;

/// [`resolve`], for commands that take a lesson: an artifact's id is
/// refused with the lesson it became (or why it became none), rather than
/// reported as a lesson that does not exist.
pub fn resolve_lesson(lore: &Lore, typed: &IdPrefix) -> Result<Id, LoreError> {
    // A whole id whose proposal is on the ledger names a lesson: a one-record
    // command (`confirm`, `pass`) need not load the index to know it.
    if let Some(id) = typed.full() {
        if lore
            .store
            .read(Branch::Ledger, &layout::proposal_path(id))?
            .is_some()
        {
            return Ok(id);
        }
    }
    let index = Index::load(&lore.store)?;
    let id = resolve_in(&index, typed)?;
    match named_in(&index, id) {
        Named::Artifact(ArtifactOutcome::Proposed { lesson }) => Err(LoreError::NotALesson {
            id,
            became: Some(lesson),
        }),
        Named::Artifact(ArtifactOutcome::Declined { .. }) => {
            Err(LoreError::NotALesson { id, became: None })
        }
        Named::Lesson(_) | Named::Entry { .. } | Named::Nothing => Ok(id),
    }
}

/// A few words about an id for the list of an ambiguous prefix: its unique
/// prefix and what it is.
fn describe(index: &Index, id: Id, ids: &[Id]) -> String {
    let short = &id.to_string()[..crate::model::unique_prefix_len(id, ids)];
    match named_in(index, id) {
        Named::Lesson(l) => format!("{short} (lesson, {})", l.status),
        Named::Artifact(ArtifactOutcome::Proposed { .. }) => {
            format!("{short} (artifact, became a lesson)")
        }
        Named::Artifact(ArtifactOutcome::Declined { .. }) => {
            format!("{short} (artifact, declined)")
        }
        Named::Entry { pool, status } => format!("{short} (lesson in pool/{pool}, {status})"),
        Named::Nothing => short.to_owned(),
    }
}

/// Reads the proposal envelope of lesson `id` from the ledger tip.
pub fn read_proposal(lore: &Lore, id: Id) -> Result<Option<Proposal>, LoreError> {
    let path = layout::proposal_path(id);
    match lore.store.read(Branch::Ledger, &path)? {
        None => Ok(None),
        Some(bytes) => serde_json::from_slice(&bytes).map(Some).map_err(|source| {
            StoreError::Unparsable {
                branch: Branch::Ledger.to_string(),
                path,
                source,
                then: "",
            }
            .into()
        }),
    }
}

/// The proposal of `id`, or the refusal `lesson <id> not found`.
pub fn proposal(lore: &Lore, id: Id) -> Result<Proposal, LoreError> {
    read_proposal(lore, id)?.ok_or(LoreError::NotFound { id })
}

/// Every proposal in `status`, oldest first (by `created_at`, then id). The
/// index names the candidates, so only those records are read. A record
/// that does not parse is skipped, never fatal.
pub fn list(lore: &Lore, status: ProposalStatus) -> Result<Vec<Proposal>, LoreError> {
    list_in(lore, &Index::load(&lore.store)?, status)
}

/// [`list`] against an index already loaded.
pub fn list_in(
    lore: &Lore,
    index: &Index,
    status: ProposalStatus,
) -> Result<Vec<Proposal>, LoreError> {
    let mut out = Vec::new();
    for (id, entry) in index.lessons() {
        if entry.status != status {
            continue;
        }
        if let Ok(Some(p)) = read_proposal(lore, id) {
            if p.status == status {
                out.push(p);
            }
        }
    }
    out.sort_by(|a, b| a.created_at.cmp(&b.created_at).then(a.id.cmp(&b.id)));
    Ok(out)
}

/// How many proposals are in each status, and how many the jury decided
/// but that were never promoted.
pub fn counts(lore: &Lore) -> Result<(Vec<(ProposalStatus, usize)>, usize), LoreError> {
    let index = Index::load(&lore.store)?;
    let mut counts: Vec<(ProposalStatus, usize)> =
        ProposalStatus::ALL.iter().map(|s| (*s, 0)).collect();
    let mut unpromoted = 0;
    for (_, e) in index.lessons() {
        if let Some(c) = counts.iter_mut().find(|(s, _)| *s == e.status) {
            c.1 += 1;
        }
        if matches!(
            e.status,
            ProposalStatus::Approved | ProposalStatus::Rejected
        ) && !e.promoted
        {
            unpromoted += 1;
        }
    }
    Ok((counts, unpromoted))
}

/// What history says happened to one artifact.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Seen {
    pub artifact: Id,
    /// `None`: no outcome is recorded.
    pub outcome: Option<ArtifactOutcome>,
    /// The lesson it became, where it stands now.
    pub lesson: Option<LessonEntry>,
    /// For a decline: what the transform said, from the decline record.
    pub detail: Option<String>,
    /// The id is not an artifact's but a lesson's: that lesson.
    pub is_lesson: Option<LessonEntry>,
}

/// What happened to each artifact, answered from the index (and, for a
/// decline, its record).
pub fn seen(lore: &Lore, artifacts: &[Id]) -> Result<Vec<Seen>, LoreError> {
    let index = Index::load(&lore.store)?;
    let mut out = Vec::with_capacity(artifacts.len());
    for &artifact in artifacts {
        let outcome = index.artifact(artifact);
        let lesson = match outcome {
            Some(ArtifactOutcome::Proposed { lesson }) => index.lesson(lesson),
            _ => None,
        };
        let detail = match outcome {
            Some(ArtifactOutcome::Declined { .. }) => lore
                .store
                .read(Branch::Ledger, &layout::decline_path(artifact))?
                .and_then(|b| serde_json::from_slice::<crate::model::Decline>(&b).ok())
                .and_then(|d| d.detail),
            _ => None,
        };
        let is_lesson = outcome.is_none().then(|| index.lesson(artifact)).flatten();
        out.push(Seen {
            artifact,
            outcome,
            lesson,
            detail,
            is_lesson,
        });
    }
    Ok(out)
}

/// What an id names in history.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Named {
    /// A lesson of this repository's ledger (promoted or not).
    Lesson(LessonEntry),
    Artifact(ArtifactOutcome),
    /// A pool entry with no record on this ledger: a teammate's lesson,
    /// synced.
    Entry {
        pool: Source,
        status: Status,
    },
    Nothing,
}

/// Whether `id` is a lesson's, an artifact's, or nobody's.
pub fn named(lore: &Lore, id: Id) -> Result<Named, LoreError> {
    Ok(named_in(&Index::load(&lore.store)?, id))
}

/// [`named`] against an index already loaded.
pub fn named_in(index: &Index, id: Id) -> Named {
    match (index.lesson(id), index.artifact(id)) {
        (Some(l), _) => Named::Lesson(l),
        (None, Some(a)) => Named::Artifact(a),
        (None, None) => match index.pool_entry(id) {
            Some((pool, status)) => Named::Entry { pool, status },
            None => Named::Nothing,
        },
    }
}

/// The index after bringing it up to date (or rebuilding it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IndexState {
    pub artifacts: usize,
    pub lessons: usize,
    /// Distinct lessons in the pool branches (one promoted to two pools
    /// counts once).
    pub pool_entries: usize,
    /// It was rebuilt from history.
    pub rebuilt: bool,
    /// How many commits catching up walked.
    pub walked: usize,
}

/// Catches the index up with history, or rebuilds it from scratch.
pub fn refresh_index(lore: &Lore, rebuild: bool) -> Result<IndexState, LoreError> {
    let index = if rebuild {
        Index::rebuild(&lore.store)?
    } else {
        Index::load(&lore.store)?
    };
    let (artifacts, lessons) = index.counts();
    Ok(IndexState {
        artifacts,
        lessons,
        pool_entries: index.pool_entries(),
        rebuilt: index.rebuilt,
        walked: index.walked,
    })
}

/// The pool whose tip holds an entry for `id` (local, then org, then
/// public) and that tip, without reading the entry.
pub fn pool_holding(
    lore: &Lore,
    id: Id,
) -> Result<Option<(crate::model::Source, gix::ObjectId)>, LoreError> {
    use crate::model::Source;
    for pool in [Source::Local, Source::Org, Source::Public] {
        let Some(tip) = lore.store.tip(Branch::Pool(pool))? else {
            continue;
        };
        let tree = lore.store.tree_of(tip)?;
        if lore
            .store
            .blob_id_in_tree(tree, &layout::lesson_path(id))?
            .is_some()
        {
            return Ok(Some((pool, tip)));
        }
    }
    Ok(None)
}

/// The pool entry of `id` as its pool's tip holds it, with that pool:
/// where the index says it is, else the first pool whose tip has it
/// (local, then org, then public). What a lesson synced from a teammate's
/// pool, which has no proposal on this ledger, says in full; the one
/// reader of a whole pool entry for `show` and the MCP server alike.
pub fn entry(lore: &Lore, index: &Index, id: Id) -> Result<Option<(Source, Lesson)>, LoreError> {
    let pool = match index.pool_entry(id) {
        Some((pool, _)) => Some(pool),
        None => pool_holding(lore, id)?.map(|(pool, _)| pool),
    };
    let Some(pool) = pool else {
        return Ok(None);
    };
    let path = layout::lesson_path(id);
    let Some(bytes) = lore.store.read(Branch::Pool(pool), &path)? else {
        return Ok(None);
    };
    let lesson: Lesson =
        serde_json::from_slice(&bytes).map_err(|source| StoreError::Unparsable {
            branch: Branch::Pool(pool).to_string(),
            path,
            source,
            then: "",
        })?;
    Ok(Some((pool, lesson)))
}

/// Where a listed or found lesson is: the ledger (not in a pool), or a
/// pool. `list` and `search` say it the same way: `ledger`, `pool/org`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Place {
    Ledger,
    Pool(Source),
}

impl Place {
    /// Where a searched lesson is ([`crate::search::Place`]), said the way
    /// `list` says it.
    pub fn of_searched(p: crate::search::Place) -> Place {
        p.pool().map_or(Place::Ledger, Place::Pool)
    }

    /// The pool, for a pool entry.
    pub fn pool(self) -> Option<Source> {
        match self {
            Place::Ledger => None,
            Place::Pool(p) => Some(p),
        }
    }
}

impl std::fmt::Display for Place {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Place::Ledger => f.write_str("ledger"),
            Place::Pool(p) => write!(f, "pool/{p}"),
        }
    }
}

impl serde::Serialize for Place {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

/// One lesson as `list --all` and `list --pool` show it.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Listed {
    pub id: Id,
    /// `ledger`, or `pool/<tier>`.
    #[serde(rename = "where")]
    pub place: Place,
    /// A pool entry's status (active, superseded, refuted, retracted), or
    /// a ledger lesson's (pending, confirmed, passed, approved, rejected).
    pub status: String,
    /// Its claim (a pool entry's cut to [`crate::summary::KEPT_CHARS`]
    /// characters).
    pub claim: String,
    pub stack: Vec<String>,
}

/// Every lesson of `pool` (any status), or with `None` every lesson this
/// repository knows: each pool entry (a teammate's synced ones included)
/// once, where it is, and each ledger lesson not in a pool (pending,
/// confirmed, passed, rejected, approved and not yet promoted). In id
/// order: oldest first only to within about 17 minutes, since a new id
/// keeps just the start of its time ([`crate::model::Id::new_lesson`]).
/// Pool entries are answered from the index (their summaries); ledger
/// lessons from their records.
pub fn list_everywhere(
    lore: &Lore,
    index: &Index,
    pool: Option<Source>,
) -> Result<Vec<Listed>, LoreError> {
    let entries: Vec<(Id, (Source, Status))> = index
        .pool_entry_list()
        .into_iter()
        .filter(|(_, (p, _))| pool.is_none_or(|want| *p == want))
        .collect();
    let ids: Vec<Id> = entries.iter().map(|(id, _)| *id).collect();
    let summaries: std::collections::HashMap<Id, crate::summary::Summary> = index
        .summaries_of(&ids)
        .into_iter()
        .map(|s| (s.id, s))
        .collect();
    let mut out: Vec<Listed> = entries
        .iter()
        .map(|(id, (p, status))| {
            let s = summaries.get(id);
            Listed {
                id: *id,
                place: Place::Pool(*p),
                status: status.to_string(),
                claim: s.map(|s| s.claim.clone()).unwrap_or_default(),
                stack: s.map(|s| s.applies_to.stack.clone()).unwrap_or_default(),
            }
        })
        .collect();
    if pool.is_none() {
        let pooled: std::collections::HashSet<Id> = ids.into_iter().collect();
        for (id, _) in index.lessons() {
            if pooled.contains(&id) {
                continue;
            }
            if let Ok(Some(p)) = read_proposal(lore, id) {
                out.push(Listed {
                    id,
                    place: Place::Ledger,
                    status: p.status.to_string(),
                    claim: p.candidate.claim,
                    stack: p.candidate.applies_to.stack,
                });
            }
        }
        out.sort_by_key(|l| l.id);
    }
    Ok(out)
}

/// How many entries each pool holds in each status (a teammate's synced
/// ones included), from the index: pools in tier order, statuses in their
/// order, only counts above zero.
pub fn pool_counts(lore: &Lore) -> Result<Vec<(Source, Status, usize)>, LoreError> {
    let mut counts: std::collections::BTreeMap<(u8, u8), (Source, Status, usize)> =
        std::collections::BTreeMap::new();
    for (_, (pool, status)) in Index::load(&lore.store)?.pool_entry_list() {
        counts
            .entry((pool.code(), status.code()))
            .or_insert((pool, status, 0))
            .2 += 1;
    }
    Ok(counts.into_values().collect())
}
