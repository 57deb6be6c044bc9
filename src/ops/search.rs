//! Search: the lessons of every local pool (synced ones included) and of
//! the ledger's queue whose text holds every word of a query, ranked.
//!
//! Answered from the index alone ([`crate::store::Index::search`] and its
//! totals; the words are [`crate::search::terms`], the ranking
//! [`crate::search::rank`]): nothing is read from the pools or the ledger,
//! so a search costs about the same at 100,000 lessons as at 1,000, and a
//! deleted index is rebuilt from history with the same answers. What a hit
//! shows comes from the index too: a pool entry's summary, a queued
//! proposal's claim and stack.
//!
//! This is the library's search for every caller (the CLI's `search`, an
//! MCP server): [`search`] takes a [`Request`] and returns typed [`Hit`]s.
//! It never prints.

use std::collections::{BTreeSet, HashMap};

use serde::Serialize;

use super::{Lore, LoreError};
use crate::model::{Id, Source};
use crate::search::rank::{self, Candidate, Rank};
use crate::search::{Place, Query, Status};
use crate::store::{Found, Index};

/// How many hits a search returns unless told otherwise.
pub const DEFAULT_LIMIT: usize = 20;

/// What to search for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Request {
    /// The words, as a person typed them.
    pub text: String,
    /// Only lessons of this pool.
    pub pool: Option<Source>,
    /// Only lessons in this status.
    pub status: Option<Status>,
    /// At most this many hits; `None` for all.
    pub limit: Option<usize>,
}

/// One lesson found.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Hit {
    pub id: Id,
    /// Its pool (`pool/org`), or `ledger` for the ledger's queue: as `list`
    /// says it.
    #[serde(rename = "where")]
    pub place: super::query::Place,
    pub status: Status,
    /// The BM25F score ([`crate::search::rank`]), to four decimals.
    pub score: f64,
    /// Whether a word of the query names one of its packages exactly
    /// (those rank first).
    pub package_match: bool,
    /// Its claim (cut to [`crate::summary::KEPT_CHARS`] characters).
    pub claim: String,
    /// `applies_to.stack`.
    pub stack: Vec<String>,
}

/// What a search found.
#[derive(Clone, Debug, PartialEq)]
pub struct Results {
    /// The best hits, best first, at most the request's limit.
    pub hits: Vec<Hit>,
    /// How many lessons matched in all.
    pub matched: usize,
}

/// Why a search could not run.
#[derive(Debug, thiserror::Error)]
pub enum SearchError {
    /// The query has no word that is searched.
    #[error("nothing to search for in {query:?}: give at least one word of two or more letters or digits (common words such as \"the\" are not searched)")]
    NoWords { query: String },
}

/// Searches every pool and the ledger's queue (see the module doc).
pub fn search(lore: &Lore, request: &Request) -> Result<Results, LoreError> {
    let index = Index::load(&lore.store)?;
    Ok(search_in(&index, request)?)
}

/// [`search`] against an index already loaded.
pub fn search_in(index: &Index, request: &Request) -> Result<Results, SearchError> {
    let query = Query::parse(&request.text);
    if query.is_empty() {
        return Err(SearchError::NoWords {
            query: request.text.chars().take(200).collect(),
        });
    }
    let matches = index.search(&query);
    let totals = index.search_totals();
    let df = |k: u64| matches.df.get(&k).copied().unwrap_or(0);
    let mut ranked: Vec<(Rank, &Found)> = Vec::new();
    for f in &matches.found {
        if request.pool.is_some_and(|p| f.place != Place::of_pool(p))
            || request.status.is_some_and(|s| f.status != s)
        {
            continue;
        }
        let find = |k: u64| f.find(k);
        let c = Candidate {
            lengths: &f.lengths,
            find: &find,
        };
        if let Some(r) = rank::rank(&query, &c, &df, &totals) {
            ranked.push((r, f));
        }
    }
    // A lesson promoted but not yet stamped on the ledger is both an
    // entry and a queued proposal: it is found as its entry.
    let entries: BTreeSet<Id> = ranked
        .iter()
        .filter(|(_, f)| f.key.is_entry())
        .map(|(_, f)| f.key.id())
        .collect();
    ranked.retain(|(_, f)| f.key.is_entry() || !entries.contains(&f.key.id()));
    // Ties: the wider pool first (public, org, local, the queue), then by id.
    let order = |(a, fa): &(Rank, &Found), (b, fb): &(Rank, &Found)| {
        rank::better(a, b)
            .then(fb.place.cmp(&fa.place))
            .then(fa.key.cmp(&fb.key))
    };
    let matched = ranked.len();
    // Only the hits shown are sorted: the rest are set apart first, in
    // linear time (a word every lesson holds ranks them all).
    let limit = request.limit.unwrap_or(usize::MAX);
    if limit < ranked.len() {
        if limit > 0 {
            ranked.select_nth_unstable_by(limit - 1, order);
        }
        ranked.truncate(limit);
    }
    ranked.sort_by(order);
    let ids: Vec<Id> = ranked
        .iter()
        .filter(|(_, f)| f.key.is_entry())
        .map(|(_, f)| f.key.id())
        .collect();
    let summaries: HashMap<Id, crate::summary::Summary> = index
        .summaries_of(&ids)
        .into_iter()
        .map(|s| (s.id, s))
        .collect();
    let hits = ranked
        .into_iter()
        .map(|(r, f)| {
            let id = f.key.id();
            let (claim, stack) = if f.key.is_entry() {
                summaries
                    .get(&id)
                    .map(|s| (s.claim.clone(), s.applies_to.stack.clone()))
            } else {
                index.shown(id).map(|s| (s.claim, s.stack))
            }
            .unwrap_or_default();
            Hit {
                id,
                place: super::query::Place::of_searched(f.place),
                status: f.status,
                score: (r.score * 1e4).round() / 1e4,
                package_match: r.exact > 0,
                claim,
                stack,
            }
        })
        .collect();
    Ok(Results { hits, matched })
}
