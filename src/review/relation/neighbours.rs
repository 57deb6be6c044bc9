//! The neighbour pool: which lessons of the candidate's own pool are shown to
//! the relation judge next to it. Structural first, similarity second.
//!
//! **Structural filter.** A lesson is a structural neighbour of the candidate
//! when all of these hold:
//! - it is live: status `active` (not superseded, refuted or retracted);
//! - it is not the candidate itself (same id);
//! - their stacks overlap: some entry of `applies_to.stack` is shared, names
//!   compared trimmed and lower-cased;
//! - their version scopes can both hold: some assignment of versions satisfies
//!   both. A `version_independent` scope constrains nothing. For two versioned
//!   scopes, every package key (trimmed, lower-cased) is checked: all the
//!   ranges either lesson puts on that key must share a version. A key that
//!   only one lesson names does not separate them — the other lesson holds
//!   for every version of that package, so any version the first allows is
//!   allowed by both. Ranges on one line are intervals, so pairwise
//!   intersection of all of them is enough for a common version. A range that
//!   is empty (`>6 <2`) can never hold and separates its lesson from all.
//!
//!   So a lesson for `vite >=6` is never a neighbour of one for `vite <6`, and
//!   neither can supersede or contradict the other.
//!
//! A pool lesson whose ranges do not parse is left out and listed in
//! [`NeighbourPool::unreadable`]: what cannot be scoped cannot be shown to
//! co-hold. An unparseable range on the candidate is an error.
//!
//! **Ranking.** Structural neighbours are scored by IDF-weighted Dice over
//! the token sets of claim, rationale and `evidence.resolution`:
//!
//! ```text
//! dice(A, B) = 2 · Σ_{t ∈ A∩B} idf(t) / (Σ_{t ∈ A} idf(t) + Σ_{t ∈ B} idf(t))
//! idf(t)     = ln((N + 1) / (df(t) + 0.5))
//! ```
//!
//! where N is the number of live lessons of the pool (the candidate counted
//! once) and df(t) the number of them whose tokens contain t. Tokens are the
//! maximal runs of alphanumeric characters, lower-cased, of at least three
//! characters, not all digits, not in [`STOPWORDS`]; each field is read up to
//! [`MAX_FIELD_CHARS`] characters. Exact duplicates (below) are presented
//! first whatever their score; then by score, highest first; ties go to the
//! newer `promoted_at`, then to the smaller id. Neighbours scoring below the
//! floor are dropped; the list is cut at the cap.
//!
//! **Exact duplicates** need no model: same normalised claim
//! ([`normalise_claim`]) and the same scope ([`same_scope`]).
//!
//! The pool's side of this (its live entries, their tokens, the weights)
//! does not depend on the candidate: [`PoolTokens`] computes it once for
//! every candidate of one pool snapshot ([`neighbour_pool_in`]), with the
//! same answer as [`neighbour_pool`].
//!
//! This module reads typed lessons only: no store, no model, no clock.

use std::cmp::Ordering;
use std::collections::{BTreeMap, BTreeSet};

use crate::model::{Id, Lesson, LessonStatus, Scope};
use crate::version::range::{Range, RangeError};

/// The default number of neighbours presented to the judge. The judge prompt
/// is a budget; past a dozen a wider net adds noise rather than signal.
pub const DEFAULT_CAP: usize = 12;

/// The largest cap a configuration may ask for.
pub const MAX_CAP: usize = 64;

/// The default similarity floor.
///
/// The structural filter has already removed every lesson that cannot hold
/// together with the candidate, so the floor only drops pairs that share no
/// meaningful vocabulary. Missing a neighbour costs a missed relation (both
/// lessons stay active and are recalled); an extra one costs prompt budget,
/// which the cap bounds. So the floor errs low. On the gold set
/// (`testdata/gold.json`), structural neighbours on another subject that
/// share only common words score 0.03 to 0.08, while every refinement,
/// supersession and duplicate scores 0.25 or more; 0.05 drops most of the
/// former and keeps the latter with a fivefold margin, leaving room for
/// paraphrases that share fewer words than the gold set's.
pub const DEFAULT_FLOOR: f64 = 0.05;

/// How many characters of each text field are tokenised.
pub const MAX_FIELD_CHARS: usize = 8192;

/// Words too common in lessons to say anything about their surface.
pub const STOPWORDS: &[&str] = &[
    "about", "above", "after", "again", "against", "all", "also", "and", "any", "are", "aren",
    "because", "been", "before", "being", "below", "between", "both", "but", "can", "cannot",
    "could", "did", "does", "doesn", "doing", "don", "down", "during", "each", "either", "else",
    "even", "ever", "every", "few", "for", "from", "further", "get", "gets", "had", "has", "have",
    "having", "her", "here", "hers", "him", "his", "how", "however", "into", "isn", "its",
    "itself", "just", "let", "like", "may", "might", "more", "most", "much", "must", "need",
    "needs", "never", "new", "non", "nor", "not", "now", "off", "once", "one", "only", "other",
    "our", "ours", "out", "over", "own", "per", "same", "see", "set", "shall", "she", "should",
    "since", "some", "such", "than", "that", "the", "their", "theirs", "them", "then", "there",
    "these", "they", "this", "those", "through", "too", "two", "under", "until", "upon", "use",
    "used", "uses", "using", "very", "via", "was", "wasn", "way", "were", "what", "when", "where",
    "whether", "which", "while", "who", "whom", "why", "will", "with", "within", "without", "won",
    "would", "yet", "you", "your", "yours",
];

/// Why a neighbour pool could not be built.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum NeighbourError {
    /// The cap is zero or above [`MAX_CAP`].
    #[error("neighbour cap must be between 1 and {max}; got {0}", max = MAX_CAP)]
    BadCap(usize),
    /// The floor is not a finite number in [0, 1].
    #[error("neighbour floor must be a number between 0 and 1; got {0}")]
    BadFloor(f64),
    /// The candidate is not active, so nothing may be related to it.
    #[error("lesson {id} is not active; its status is: {status}")]
    CandidateNotLive { id: Id, status: &'static str },
    /// One of the candidate's own ranges does not parse.
    #[error("lesson {id} has an unreadable range for {key:?}: {error}")]
    CandidateRange {
        id: Id,
        key: String,
        error: RangeError,
    },
}

/// How many neighbours to present and how similar they must be.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct NeighbourConfig {
    cap: usize,
    floor: f64,
}

impl NeighbourConfig {
    /// A checked configuration: `cap` in 1..=[`MAX_CAP`], `floor` a finite
    /// number in [0, 1].
    pub fn new(cap: usize, floor: f64) -> Result<NeighbourConfig, NeighbourError> {
        if cap == 0 || cap > MAX_CAP {
            return Err(NeighbourError::BadCap(cap));
        }
        if !floor.is_finite() || !(0.0..=1.0).contains(&floor) {
            return Err(NeighbourError::BadFloor(floor));
        }
        Ok(NeighbourConfig { cap, floor })
    }

    pub fn cap(&self) -> usize {
        self.cap
    }

    pub fn floor(&self) -> f64 {
        self.floor
    }
}

impl Default for NeighbourConfig {
    fn default() -> NeighbourConfig {
        NeighbourConfig {
            cap: DEFAULT_CAP,
            floor: DEFAULT_FLOOR,
        }
    }
}

/// One presented neighbour.
#[derive(Clone, Debug, PartialEq)]
pub struct Neighbour {
    pub id: Id,
    /// IDF-weighted Dice similarity to the candidate, in [0, 1].
    pub score: f64,
    /// Same normalised claim and same scope as the candidate.
    pub exact_duplicate: bool,
}

/// The neighbours to present for one candidate, in presentation order, and
/// what was left out.
#[derive(Clone, Debug, PartialEq)]
pub struct NeighbourPool {
    pub candidate: Id,
    /// At most the cap, exact duplicates first, then by rank.
    pub presented: Vec<Neighbour>,
    /// Live lessons other than the candidate that were considered.
    pub considered: usize,
    /// Of those, how many passed the structural filter.
    pub structural: usize,
    /// Structural neighbours dropped for scoring below the floor.
    pub below_floor: usize,
    /// Structural neighbours above the floor dropped by the cap.
    pub over_cap: usize,
    /// Live lessons left out because one of their ranges does not parse.
    pub unreadable: Vec<Id>,
}

impl NeighbourPool {
    /// The presented ids, in order.
    pub fn ids(&self) -> Vec<Id> {
        self.presented.iter().map(|n| n.id).collect()
    }

    /// The presented exact duplicates, in order.
    pub fn duplicates(&self) -> Vec<Id> {
        self.presented
            .iter()
            .filter(|n| n.exact_duplicate)
            .map(|n| n.id)
            .collect()
    }
}

/// Whether a pool entry is live: only `active` lessons are.
pub fn is_live(lesson: &Lesson) -> bool {
    lesson.status == LessonStatus::Active
}

/// A stack or package name as compared: trimmed and lower-cased.
pub fn normalise_name(name: &str) -> String {
    name.trim().to_lowercase()
}

/// A claim as compared for exact duplicates: control characters read as
/// spaces and hidden ones dropped ([`crate::content::text::spaced`]), runs
/// of white space collapsed to one space, trimmed, lower-cased,
/// and trailing `.`, `!` and `;` removed. "Vite 5 breaks X." and
/// "vite 5  breaks x" are the same claim.
pub fn normalise_claim(claim: &str) -> String {
    let spaced = crate::content::text::spaced(claim);
    let collapsed = spaced.split_whitespace().collect::<Vec<_>>().join(" ");
    collapsed
        .to_lowercase()
        .trim_end_matches(['.', '!', ';'])
        .trim_end()
        .to_owned()
}

/// Whether two scopes are the same: both `version_independent` (the
/// justification is prose and not compared), or both versioned with the same
/// normalised package keys and, per key, ranges that parse to the same bounds
/// (`=6` is `>=6 <=6` is `=6.0.0`). A range that does not parse is never the
/// same as anything.
pub fn same_scope(a: &Scope, b: &Scope) -> bool {
    match (a, b) {
        (Scope::VersionIndependent { .. }, Scope::VersionIndependent { .. }) => true,
        (Scope::Versioned { versions: va }, Scope::Versioned { versions: vb }) => {
            let (Ok(ca), Ok(cb)) = (constraints(va), constraints(vb)) else {
                return false;
            };
            ca == cb
        }
        _ => false,
    }
}

/// Whether two lessons are exact duplicates: the same normalised claim and
/// the same scope.
pub fn is_exact_duplicate(a: &Lesson, b: &Lesson) -> bool {
    normalise_claim(&a.claim) == normalise_claim(&b.claim)
        && same_scope(&a.applies_to.scope, &b.applies_to.scope)
}

/// Whether two stacks share an entry (normalised names).
pub fn stacks_overlap(a: &[String], b: &[String]) -> bool {
    let a: BTreeSet<String> = a.iter().map(|s| normalise_name(s)).collect();
    b.iter().any(|s| a.contains(&normalise_name(s)))
}

/// A versioned scope's ranges by normalised key; keys that normalise alike
/// keep all their ranges.
type Constraints = BTreeMap<String, Vec<Range>>;

fn constraints(versions: &BTreeMap<String, String>) -> Result<Constraints, (String, RangeError)> {
    let mut out: Constraints = BTreeMap::new();
    for (key, text) in versions {
        let range = Range::parse(text).map_err(|e| (key.clone(), e))?;
        out.entry(normalise_name(key)).or_default().push(range);
    }
    Ok(out)
}

/// Reads a scope: `None` for `version_independent` (it constrains nothing).
fn scope_constraints(scope: &Scope) -> Result<Option<Constraints>, (String, RangeError)> {
    match scope {
        Scope::VersionIndependent { .. } => Ok(None),
        Scope::Versioned { versions } => constraints(versions).map(Some),
    }
}

/// Whether every key's ranges, taken from both sides, share a version.
fn can_both_hold(a: Option<&Constraints>, b: Option<&Constraints>) -> bool {
    let mut per_key: BTreeMap<&str, Vec<&Range>> = BTreeMap::new();
    for side in [a, b].into_iter().flatten() {
        for (key, ranges) in side {
            per_key
                .entry(key.as_str())
                .or_default()
                .extend(ranges.iter());
        }
    }
    per_key.values().all(|ranges| {
        ranges
            .iter()
            .enumerate()
            .all(|(i, x)| ranges[i..].iter().all(|y| x.intersects(y)))
    })
}

/// Whether two scopes can both hold (see the module doc). `Err` names the
/// key whose range does not parse, on either side.
pub fn scopes_intersect(a: &Scope, b: &Scope) -> Result<bool, (String, RangeError)> {
    let ca = scope_constraints(a)?;
    let cb = scope_constraints(b)?;
    Ok(can_both_hold(ca.as_ref(), cb.as_ref()))
}

/// The token set of a lesson: claim, rationale and resolution.
pub fn tokens(lesson: &Lesson) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for field in [
        &lesson.claim,
        &lesson.rationale,
        &lesson.evidence.resolution,
    ] {
        let bounded: String = field.chars().take(MAX_FIELD_CHARS).collect();
        for word in bounded.split(|c: char| !c.is_alphanumeric()) {
            if word.chars().count() < 3 || word.chars().all(|c| c.is_ascii_digit()) {
                continue;
            }
            let word = word.to_lowercase();
            if STOPWORDS.binary_search(&word.as_str()).is_err() {
                out.insert(word);
            }
        }
    }
    out
}

/// Inverse document frequencies over a corpus of token sets.
#[derive(Clone, Debug)]
struct Idf {
    n: f64,
    df: BTreeMap<String, usize>,
}

impl Idf {
    fn new<'a>(docs: impl IntoIterator<Item = &'a BTreeSet<String>>) -> Idf {
        let mut n = 0usize;
        let mut df: BTreeMap<String, usize> = BTreeMap::new();
        for doc in docs {
            n += 1;
            for t in doc {
                *df.entry(t.clone()).or_default() += 1;
            }
        }
        Idf { n: n as f64, df }
    }

    fn weight(&self, token: &str) -> f64 {
        let df = self.df.get(token).copied().unwrap_or(0) as f64;
        ((self.n + 1.0) / (df + 0.5)).ln()
    }

    /// IDF-weighted Dice of two token sets; 0 when both are empty.
    fn dice(&self, a: &BTreeSet<String>, b: &BTreeSet<String>) -> f64 {
        let mass = |s: &BTreeSet<String>| s.iter().map(|t| self.weight(t)).sum::<f64>();
        let total = mass(a) + mass(b);
        if total <= 0.0 {
            return 0.0;
        }
        let shared: f64 = a.intersection(b).map(|t| self.weight(t)).sum();
        if shared <= 0.0 {
            // An empty float sum is -0.0; a score is never negative zero.
            return 0.0;
        }
        (2.0 * shared / total).clamp(0.0, 1.0)
    }
}

/// Builds the neighbour pool of `candidate` from `pool`, a snapshot of the
/// candidate's own pool (the candidate may or may not be in it; entries are
/// taken once per id, the first occurrence counting).
pub fn neighbour_pool(
    candidate: &Lesson,
    pool: &[Lesson],
    config: &NeighbourConfig,
) -> Result<NeighbourPool, NeighbourError> {
    neighbour_pool_in(candidate, pool, &PoolTokens::new(pool), config)
}

/// What [`neighbour_pool`] derives from a pool before it looks at the
/// candidate: its live entries (the first occurrence of each id), their
/// token sets, and the weights over them. Built once, it serves every
/// candidate of the same pool ([`neighbour_pool_in`]) instead of each
/// candidate tokenising the whole pool again.
#[derive(Clone, Debug)]
pub struct PoolTokens {
    /// Each entry of the pool it was built from: its id and whether it was
    /// live.
    entries: Vec<(Id, bool)>,
    /// The live entries: their index in the pool and id.
    live: Vec<(usize, Id)>,
    /// Their token sets, in the same order.
    tokens: Vec<BTreeSet<String>>,
    /// The weights over every live entry, each counted once.
    idf: Idf,
}

impl PoolTokens {
    pub fn new(pool: &[Lesson]) -> PoolTokens {
        let mut seen = BTreeSet::new();
        let live: Vec<(usize, Id)> = pool
            .iter()
            .enumerate()
            .filter(|(_, l)| is_live(l) && seen.insert(l.id))
            .map(|(i, l)| (i, l.id))
            .collect();
        let tokens: Vec<BTreeSet<String>> = live.iter().map(|&(i, _)| tokens(&pool[i])).collect();
        PoolTokens {
            entries: pool.iter().map(|l| (l.id, is_live(l))).collect(),
            idf: Idf::new(&tokens),
            live,
            tokens,
        }
    }

    /// Whether this was built from `pool`: the same entries, each as live
    /// as it was (a look at every entry, far cheaper than tokenising them;
    /// not a proof that no entry's text changed, which the caller that
    /// keeps tokens across writes must know).
    fn of(&self, pool: &[Lesson]) -> bool {
        self.entries.len() == pool.len()
            && self
                .entries
                .iter()
                .zip(pool)
                .all(|(&(id, live), l)| l.id == id && is_live(l) == live)
    }
}

/// [`neighbour_pool`] with `tokens` built from this same `pool`
/// ([`PoolTokens::new`]), which must not have changed since: the same
/// answer, without tokenising the pool again. The candidate's own entry is
/// left out as there; when the candidate's tokens are not those of its
/// live entry (it is not in the pool, or says something else there) the
/// weights are computed over the candidate and the others, as there.
pub fn neighbour_pool_in(
    candidate: &Lesson,
    pool: &[Lesson],
    tokens_of_pool: &PoolTokens,
    config: &NeighbourConfig,
) -> Result<NeighbourPool, NeighbourError> {
    if !is_live(candidate) {
        return Err(NeighbourError::CandidateNotLive {
            id: candidate.id,
            status: candidate.status.as_str(),
        });
    }
    let own = scope_constraints(&candidate.applies_to.scope).map_err(|(key, error)| {
        NeighbourError::CandidateRange {
            id: candidate.id,
            key,
            error,
        }
    })?;
    if !tokens_of_pool.of(pool) {
        return neighbour_pool(candidate, pool, config);
    }

    let candidate_tokens = tokens(candidate);
    let mut own_entry = None;
    let mut live: Vec<(&Lesson, &BTreeSet<String>)> = Vec::new();
    for (&(i, id), toks) in tokens_of_pool.live.iter().zip(&tokens_of_pool.tokens) {
        if id == candidate.id {
            own_entry = Some(toks);
        } else {
            live.push((&pool[i], toks));
        }
    }
    // The weights count every live lesson once, the candidate as it is
    // given: those of the pool when its entry there is the same.
    let computed;
    let idf = if own_entry == Some(&candidate_tokens) {
        &tokens_of_pool.idf
    } else {
        computed = Idf::new(std::iter::once(&candidate_tokens).chain(live.iter().map(|(_, t)| *t)));
        &computed
    };

    let mut unreadable = Vec::new();
    let mut ranked: Vec<(Neighbour, Option<jiff::Timestamp>)> = Vec::new();
    for &(lesson, toks) in &live {
        if !stacks_overlap(&candidate.applies_to.stack, &lesson.applies_to.stack) {
            continue;
        }
        let theirs = match scope_constraints(&lesson.applies_to.scope) {
            Ok(c) => c,
            Err(_) => {
                unreadable.push(lesson.id);
                continue;
            }
        };
        if !can_both_hold(own.as_ref(), theirs.as_ref()) {
            continue;
        }
        let neighbour = Neighbour {
            id: lesson.id,
            score: idf.dice(&candidate_tokens, toks),
            exact_duplicate: is_exact_duplicate(candidate, lesson),
        };
        ranked.push((neighbour, lesson.promoted_at.parse().ok()));
    }
    let structural = ranked.len();
    ranked.sort_by(|(a, a_at), (b, b_at)| {
        b.exact_duplicate
            .cmp(&a.exact_duplicate)
            .then_with(|| b.score.total_cmp(&a.score))
            .then_with(|| newer_first(a_at.as_ref(), b_at.as_ref()))
            .then_with(|| a.id.cmp(&b.id))
    });
    let above: Vec<Neighbour> = ranked
        .into_iter()
        .map(|(n, _)| n)
        .filter(|n| n.exact_duplicate || n.score >= config.floor)
        .collect();
    let below_floor = structural - above.len();
    let over_cap = above.len().saturating_sub(config.cap);
    let presented = above.into_iter().take(config.cap).collect();
    Ok(NeighbourPool {
        candidate: candidate.id,
        presented,
        considered: live.len(),
        structural,
        below_floor,
        over_cap,
        unreadable,
    })
}

/// Newer first; an unreadable timestamp sorts after every readable one.
fn newer_first(a: Option<&jiff::Timestamp>, b: Option<&jiff::Timestamp>) -> Ordering {
    match (a, b) {
        (Some(a), Some(b)) => b.cmp(a),
        (Some(_), None) => Ordering::Less,
        (None, Some(_)) => Ordering::Greater,
        (None, None) => Ordering::Equal,
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::review::relation::testutil::{lesson, LessonSpec};

    /// [`neighbour_pool`] as it was written before [`PoolTokens`]: every
    /// candidate tokenising the whole pool and weighting it afresh. Kept as
    /// the oracle the shared tokens must agree with.
    pub(crate) fn reference_neighbour_pool(
        candidate: &Lesson,
        pool: &[Lesson],
        config: &NeighbourConfig,
    ) -> Result<NeighbourPool, NeighbourError> {
        if !is_live(candidate) {
            return Err(NeighbourError::CandidateNotLive {
                id: candidate.id,
                status: candidate.status.as_str(),
            });
        }
        let own = scope_constraints(&candidate.applies_to.scope).map_err(|(key, error)| {
            NeighbourError::CandidateRange {
                id: candidate.id,
                key,
                error,
            }
        })?;
        let mut seen = BTreeSet::from([candidate.id]);
        let live: Vec<&Lesson> = pool
            .iter()
            .filter(|l| is_live(l) && seen.insert(l.id))
            .collect();
        let candidate_tokens = tokens(candidate);
        let live_tokens: Vec<BTreeSet<String>> = live.iter().map(|l| tokens(l)).collect();
        let idf = Idf::new(std::iter::once(&candidate_tokens).chain(live_tokens.iter()));
        let mut unreadable = Vec::new();
        let mut ranked: Vec<(Neighbour, Option<jiff::Timestamp>)> = Vec::new();
        for (lesson, toks) in live.iter().zip(&live_tokens) {
            if !stacks_overlap(&candidate.applies_to.stack, &lesson.applies_to.stack) {
                continue;
            }
            let theirs = match scope_constraints(&lesson.applies_to.scope) {
                Ok(c) => c,
                Err(_) => {
                    unreadable.push(lesson.id);
                    continue;
                }
            };
            if !can_both_hold(own.as_ref(), theirs.as_ref()) {
                continue;
            }
            let neighbour = Neighbour {
                id: lesson.id,
                score: idf.dice(&candidate_tokens, toks),
                exact_duplicate: is_exact_duplicate(candidate, lesson),
            };
            ranked.push((neighbour, lesson.promoted_at.parse().ok()));
        }
        let structural = ranked.len();
        ranked.sort_by(|(a, a_at), (b, b_at)| {
            b.exact_duplicate
                .cmp(&a.exact_duplicate)
                .then_with(|| b.score.total_cmp(&a.score))
                .then_with(|| newer_first(a_at.as_ref(), b_at.as_ref()))
                .then_with(|| a.id.cmp(&b.id))
        });
        let above: Vec<Neighbour> = ranked
            .into_iter()
            .map(|(n, _)| n)
            .filter(|n| n.exact_duplicate || n.score >= config.floor)
            .collect();
        let below_floor = structural - above.len();
        let over_cap = above.len().saturating_sub(config.cap);
        let presented = above.into_iter().take(config.cap).collect();
        Ok(NeighbourPool {
            candidate: candidate.id,
            presented,
            considered: live.len(),
            structural,
            below_floor,
            over_cap,
            unreadable,
        })
    }

    fn scope(pairs: &[(&str, &str)]) -> Scope {
        Scope::Versioned {
            versions: pairs
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
        }
    }

    fn independent() -> Scope {
        Scope::VersionIndependent {
            justification: "holds for every release".into(),
        }
    }

    #[test]
    fn stopwords_are_sorted_for_binary_search() {
        let mut sorted = STOPWORDS.to_vec();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(sorted, STOPWORDS);
    }

    #[test]
    fn scopes_intersect_per_shared_key() {
        let cases: &[(Scope, Scope, bool)] = &[
            (scope(&[("vite", ">=6")]), scope(&[("vite", "<6")]), false),
            (scope(&[("vite", "<=6")]), scope(&[("vite", ">=6")]), true),
            (scope(&[("Vite", "<6")]), scope(&[("vite", ">=6")]), false),
            // a key only one side names does not separate them
            (scope(&[("vite", "<6")]), scope(&[("vitest", ">=4")]), true),
            (
                scope(&[("vite", "<6"), ("vitest", ">=4")]),
                scope(&[("vite", ">=5"), ("react", "=18")]),
                true,
            ),
            // one shared key disjoint is enough to separate
            (
                scope(&[("vite", "<6"), ("vitest", ">=4")]),
                scope(&[("vite", ">=6"), ("vitest", ">=4")]),
                false,
            ),
            // version_independent intersects everything that can hold
            (independent(), scope(&[("vite", "<6")]), true),
            (independent(), independent(), true),
            // an empty range holds nowhere, not even against independence
            (independent(), scope(&[("vite", ">6 <2")]), false),
            // keys that normalise alike constrain the same package
            (
                scope(&[("Vite", "<5"), ("vite", ">=4")]),
                scope(&[("vite", ">=4.5")]),
                true,
            ),
            (
                scope(&[("Vite", "<5"), ("vite", ">=4")]),
                scope(&[("vite", ">=5")]),
                false,
            ),
            (
                scope(&[("Vite", ">=4"), ("vite", "<5")]),
                scope(&[("vite", ">=5")]),
                false,
            ),
        ];
        for (a, b, want) in cases {
            assert_eq!(scopes_intersect(a, b), Ok(*want), "{a:?} ∩ {b:?}");
            assert_eq!(scopes_intersect(b, a), Ok(*want), "{b:?} ∩ {a:?}");
        }
        let bad = scope(&[("vite", "^5")]);
        assert_eq!(
            scopes_intersect(&bad, &independent()).unwrap_err().0,
            "vite"
        );
    }

    #[test]
    fn claims_normalise_and_scopes_compare_by_bounds() {
        assert_eq!(
            normalise_claim("  Vite 5\tbreaks\n X.  "),
            normalise_claim("vite 5 breaks x")
        );
        assert_eq!(normalise_claim("a\u{7}b!"), "a b");
        assert_ne!(
            normalise_claim("vite 5 breaks x"),
            normalise_claim("vite 6 breaks x")
        );
        assert!(same_scope(
            &scope(&[("vite", "=6")]),
            &scope(&[("Vite", ">=6 <=6")])
        ));
        assert!(same_scope(
            &scope(&[("vite", "=6")]),
            &scope(&[("vite", "=6.0.0")])
        ));
        assert!(!same_scope(
            &scope(&[("vite", "<6")]),
            &scope(&[("vite", "<=6")])
        ));
        assert!(!same_scope(
            &scope(&[("vite", "<6")]),
            &scope(&[("vite", "<6"), ("vitest", ">=4")])
        ));
        assert!(!same_scope(&scope(&[("vite", "<6")]), &independent()));
        assert!(same_scope(&independent(), &independent()));
        assert!(!same_scope(
            &scope(&[("vite", "^6")]),
            &scope(&[("vite", "^6")])
        ));
    }

    #[test]
    fn tokens_drop_short_numeric_and_stop_words() {
        let l = lesson(&LessonSpec {
            claim: "The vite.config.ts `server.proxy` key is 5x slower in 2024",
            rationale: "It is a proxy.",
            resolution: "Use resolve.alias",
            ..LessonSpec::default()
        });
        let t: Vec<String> = tokens(&l).into_iter().collect();
        assert_eq!(
            t,
            ["alias", "config", "key", "proxy", "resolve", "server", "slower", "vite"]
        );
    }

    #[test]
    fn disjoint_scopes_are_never_neighbours() {
        let text = LessonSpec {
            claim: "vite/module-runner import fails under vitest",
            rationale: "module-runner ships with vite 6",
            resolution: "pin vitest",
            ..LessonSpec::default()
        };
        let cand = lesson(&LessonSpec {
            n: 1,
            versions: &[("vite", ">=6")],
            ..text
        });
        let pool = vec![
            cand.clone(),
            lesson(&LessonSpec {
                n: 2,
                versions: &[("vite", "<6")],
                ..text
            }),
            lesson(&LessonSpec {
                n: 3,
                versions: &[("vite", ">=4 <6")],
                ..text
            }),
            lesson(&LessonSpec {
                n: 4,
                versions: &[("vite", ">=6.1")],
                ..text
            }),
            lesson(&LessonSpec {
                n: 5,
                stack: &["webpack"],
                versions: &[("webpack", ">=5")],
                ..text
            }),
            lesson(&LessonSpec {
                n: 6,
                versions: &[("vite", "=6")],
                status: LessonStatus::Superseded,
                ..text
            }),
        ];
        let got = neighbour_pool(&cand, &pool, &NeighbourConfig::default()).unwrap();
        assert_eq!(got.ids(), vec![pool[3].id]);
        assert_eq!(got.considered, 4, "{got:?}");
        assert_eq!(got.structural, 1);
    }

    #[test]
    fn ranking_is_duplicates_then_score_then_newer_then_id() {
        let base = LessonSpec {
            claim: "tsconfig paths need baseUrl for the vitest resolver",
            rationale: "vitest reads tsconfig paths through vite-tsconfig-paths",
            resolution: "set baseUrl to the project root",
            stack: &["vitest", "typescript"],
            versions: &[("vitest", ">=1")],
            ..LessonSpec::default()
        };
        let cand = lesson(&LessonSpec { n: 1, ..base });
        let dup_low_text = lesson(&LessonSpec {
            n: 2,
            rationale: "nothing in common here",
            resolution: "unrelated words entirely",
            ..base
        });
        let same_text_old = lesson(&LessonSpec {
            n: 3,
            claim: "tsconfig paths need baseUrl for the vitest resolver, always",
            promoted_at: "2026-01-01T00:00:00Z",
            ..base
        });
        let newer = LessonSpec {
            claim: "tsconfig paths need baseUrl for the vitest resolver, always",
            promoted_at: "2026-02-01T00:00:00Z",
            ..base
        };
        let same_text_new = lesson(&LessonSpec { n: 4, ..newer });
        let same_text_new_2 = lesson(&LessonSpec { n: 5, ..newer });
        let weak = lesson(&LessonSpec {
            n: 6,
            claim: "vitest workspace files replace the old config",
            rationale: "vitest 1 reads vitest.workspace.ts",
            resolution: "move projects into the workspace file",
            ..base
        });
        let nothing = lesson(&LessonSpec {
            n: 7,
            claim: "snapshot files churn",
            rationale: "inline snapshots rewrite themselves",
            resolution: "commit snapshots",
            ..base
        });
        let pool = vec![
            nothing.clone(),
            weak.clone(),
            same_text_old.clone(),
            same_text_new_2.clone(),
            same_text_new.clone(),
            dup_low_text.clone(),
            cand.clone(),
        ];
        let got = neighbour_pool(&cand, &pool, &NeighbourConfig::default()).unwrap();
        let order = got.ids();
        assert_eq!(order[0], dup_low_text.id, "duplicate first: {got:?}");
        assert!(got.presented[0].exact_duplicate);
        assert_eq!(
            &order[1..4],
            &[same_text_new.id, same_text_new_2.id, same_text_old.id],
            "{got:?}"
        );
        assert!(got.presented[1].score > got.presented[4].score);
        assert_eq!(order[4], weak.id);
        assert!(!order.contains(&nothing.id), "below the floor: {got:?}");
        assert_eq!(got.below_floor, 1);

        let capped = neighbour_pool(&cand, &pool, &NeighbourConfig::new(2, 0.0).unwrap()).unwrap();
        assert_eq!(capped.ids(), order[..2].to_vec());
        assert_eq!(capped.over_cap, 4);
        // Exact duplicates are presented whatever the floor.
        let strict = neighbour_pool(&cand, &pool, &NeighbourConfig::new(12, 1.0).unwrap()).unwrap();
        assert!(strict.presented[0].score < 1.0);
        assert_eq!(strict.ids(), vec![dup_low_text.id]);
    }

    #[test]
    fn candidate_is_never_its_own_neighbour_and_must_be_live() {
        let cand = lesson(&LessonSpec::default());
        let got = neighbour_pool(
            &cand,
            &[cand.clone(), cand.clone()],
            &NeighbourConfig::default(),
        )
        .unwrap();
        assert!(got.presented.is_empty());
        let mut gone = cand.clone();
        gone.status = LessonStatus::Retracted;
        assert_eq!(
            neighbour_pool(&gone, &[], &NeighbourConfig::default())
                .unwrap_err()
                .to_string(),
            format!("lesson {} is not active; its status is: retracted", cand.id)
        );
    }

    #[test]
    fn unreadable_ranges_are_left_out_on_the_pool_and_refused_on_the_candidate() {
        let cand = lesson(&LessonSpec {
            n: 1,
            ..LessonSpec::default()
        });
        let mut odd = lesson(&LessonSpec {
            n: 2,
            ..LessonSpec::default()
        });
        odd.applies_to.scope = scope(&[("vite", "^5")]);
        let got = neighbour_pool(&cand, &[odd.clone()], &NeighbourConfig::default()).unwrap();
        assert!(got.presented.is_empty());
        assert_eq!(got.unreadable, vec![odd.id]);
        let e = neighbour_pool(&odd, &[cand], &NeighbourConfig::default()).unwrap_err();
        assert!(
            matches!(e, NeighbourError::CandidateRange { ref key, .. } if key == "vite"),
            "{e}"
        );
    }

    #[test]
    fn config_is_checked() {
        assert!(NeighbourConfig::new(0, 0.1).is_err());
        assert!(NeighbourConfig::new(MAX_CAP + 1, 0.1).is_err());
        assert!(NeighbourConfig::new(1, f64::NAN).is_err());
        assert!(NeighbourConfig::new(1, 1.5).is_err());
        assert_eq!(
            NeighbourConfig::new(0, 0.1).unwrap_err().to_string(),
            "neighbour cap must be between 1 and 64; got 0"
        );
        let c = NeighbourConfig::default();
        assert_eq!((c.cap(), c.floor()), (12, 0.05));
    }

    #[test]
    fn idf_follows_the_formula() {
        let docs: Vec<BTreeSet<String>> = vec![
            ["vite".to_string(), "proxy".to_string()].into(),
            ["vite".to_string()].into(),
            ["alias".to_string()].into(),
        ];
        let idf = Idf::new(docs.iter());
        let close = |a: f64, b: f64| (a - b).abs() < 1e-12;
        assert!(close(idf.weight("vite"), (4.0f64 / 2.5).ln()));
        assert!(close(idf.weight("proxy"), (4.0f64 / 1.5).ln()));
        assert!(close(idf.weight("absent"), (4.0f64 / 0.5).ln()));
        let v = idf.weight("vite");
        let p = idf.weight("proxy");
        assert!(close(idf.dice(&docs[0], &docs[1]), 2.0 * v / (v + p + v)));
        assert_eq!(idf.dice(&docs[0], &docs[2]), 0.0);
        assert_eq!(idf.dice(&BTreeSet::new(), &BTreeSet::new()), 0.0);
        assert!(
            idf.dice(&docs[0], &docs[2]).is_sign_positive(),
            "never -0.0"
        );
    }
}
