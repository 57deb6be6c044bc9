//! Full-text search over lessons, pure: what a lesson is as a searched
//! document ([`Doc`]: its terms per field, where it is, its status), how a
//! query reads ([`Query`]) and how a hit is scored ([`rank`]).
//!
//! Searched are every pool entry, whatever its status, and the ledger's
//! queue: proposals that are pending, confirmed, or approved and not yet
//! promoted ([`Doc::of_proposal`]). A passed or rejected proposal was not
//! kept, and a promoted one is found as its pool entry.
//!
//! The index (`store::index`) keeps the documents in its search tables and
//! answers which of them hold which terms; `ops::search` puts the two
//! together. This module does no I/O and knows nothing of the index's
//! files. Tokenising is [`terms`].

pub mod rank;
pub mod terms;

use serde::{Deserialize, Serialize};

use crate::model::{Id, Lesson, LessonStatus, Proposal, ProposalStatus, Source};
use crate::names::string_enum;
use terms::{package_terms, tokens, Term};

string_enum! {
    /// Where a searched lesson is: a pool, or the ledger's queue.
    pub enum Place: "place" {
        Pending("pending", 0),
        Local("local", 1),
        Org("org", 2),
        Public("public", 3),
    }
}

impl Place {
    pub fn of_pool(pool: Source) -> Place {
        match pool {
            Source::Local => Place::Local,
            Source::Org => Place::Org,
            Source::Public => Place::Public,
        }
    }

    /// The pool, for a pool entry.
    pub fn pool(self) -> Option<Source> {
        match self {
            Place::Pending => None,
            Place::Local => Some(Source::Local),
            Place::Org => Some(Source::Org),
            Place::Public => Some(Source::Public),
        }
    }
}

string_enum! {
    /// A searched lesson's status: a pool entry's, or a queued proposal's.
    pub enum Status: "status" {
        Active("active", 0),
        Refuted("refuted", 1),
        Superseded("superseded", 2),
        Retracted("retracted", 3),
        Pending("pending", 4),
        Confirmed("confirmed", 5),
        Approved("approved", 6),
    }
}

impl Status {
    pub fn of_lesson(s: LessonStatus) -> Status {
        match s {
            LessonStatus::Active => Status::Active,
            LessonStatus::Refuted => Status::Refuted,
            LessonStatus::Superseded => Status::Superseded,
            LessonStatus::Retracted => Status::Retracted,
        }
    }

    /// A proposal's status, if a proposal in it is queued (searched).
    pub fn of_proposal(s: ProposalStatus) -> Option<Status> {
        match s {
            ProposalStatus::Pending => Some(Status::Pending),
            ProposalStatus::Confirmed => Some(Status::Confirmed),
            ProposalStatus::Approved => Some(Status::Approved),
            ProposalStatus::Passed | ProposalStatus::Rejected => None,
        }
    }
}

/// The fields searched, in the order lengths and term frequencies are kept.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Field {
    Claim = 0,
    Rationale = 1,
    Resolution = 2,
    /// `applies_to.stack` and the keys of `applies_to.scope.versions`.
    Stack = 3,
}

/// How many fields are searched.
pub const FIELDS: usize = 4;

/// The most a term frequency is counted, per field: what the index's
/// four bits (three for the stack) hold.
pub const MAX_TF: [u8; FIELDS] = [15, 15, 15, 7];

/// One term of a document: its key, how often it occurs in each field,
/// and whether it names one of the lesson's packages exactly.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Posting {
    pub key: u64,
    pub tf: [u8; FIELDS],
    pub exact: bool,
}

/// What a queued proposal shows in a hit (a pool entry's comes from its
/// summary).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Shown {
    pub claim: String,
    pub stack: Vec<String>,
}

/// A lesson as search keeps it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Doc {
    pub place: Place,
    pub status: Status,
    /// How many terms each field has (saturating).
    pub lengths: [u16; FIELDS],
    /// Its terms, by key, each once.
    pub postings: Vec<Posting>,
    /// For a queued proposal: its claim (cut) and stack.
    pub shown: Option<Shown>,
    /// For a pool entry: `evidence.artifact_ids`, each once.
    pub artifacts: Vec<Id>,
}

impl Doc {
    /// A pool entry as a document.
    pub fn of_lesson(l: &Lesson) -> Doc {
        let (lengths, postings) = index_fields(
            &l.claim,
            &l.rationale,
            &l.evidence.resolution,
            &l.applies_to,
        );
        let mut artifacts = l.evidence.artifact_ids.clone();
        artifacts.sort_unstable();
        artifacts.dedup();
        Doc {
            place: Place::of_pool(l.source),
            status: Status::of_lesson(l.status),
            lengths,
            postings,
            shown: None,
            artifacts,
        }
    }

    /// A proposal as a document, if it is queued: pending, confirmed, or
    /// approved and not yet promoted.
    pub fn of_proposal(p: &Proposal) -> Option<Doc> {
        let status = Status::of_proposal(p.status)?;
        if p.promoted_at.is_some() {
            return None;
        }
        let c = &p.candidate;
        let (lengths, postings) = index_fields(
            &c.claim,
            &c.rationale,
            &c.evidence.resolution,
            &c.applies_to,
        );
        Some(Doc {
            place: Place::Pending,
            status,
            lengths,
            postings,
            shown: Some(Shown {
                claim: {
                    let mut cut: String =
                        c.claim.chars().take(crate::summary::KEPT_CHARS).collect();
                    cut.shrink_to_fit();
                    cut
                },
                stack: c.applies_to.stack.clone(),
            }),
            artifacts: Vec::new(),
        })
    }

    /// The posting of a term key, if the document has the term.
    pub fn posting(&self, key: u64) -> Option<&Posting> {
        self.postings
            .binary_search_by_key(&key, |p| p.key)
            .ok()
            .map(|i| &self.postings[i])
    }
}

/// The field lengths and postings of a lesson's text and packages.
fn index_fields(
    claim: &str,
    rationale: &str,
    resolution: &str,
    applies_to: &crate::model::AppliesTo,
) -> ([u16; FIELDS], Vec<Posting>) {
    let mut lengths = [0u32; FIELDS];
    // Every occurrence of a term (the term, its field, whether it names a
    // package exactly), borrowed from the tokens; sorted, each run of one
    // term is one posting, and each term is hashed once.
    let texts = [tokens(claim), tokens(rationale), tokens(resolution)];
    let mut names: Vec<String> = applies_to
        .stack
        .iter()
        .map(|s| s.trim().to_lowercase())
        .collect();
    if let crate::model::Scope::Versioned { versions } = &applies_to.scope {
        names.extend(versions.keys().map(|k| k.trim().to_lowercase()));
    }
    names.sort();
    names.dedup();
    let packages: Vec<Vec<(String, bool)>> = names.iter().map(|n| package_terms(n)).collect();
    let stack = Field::Stack as usize;
    let mut seen: Vec<(&str, usize, bool)> = Vec::new();
    for (f, tokens) in texts.iter().enumerate() {
        for t in tokens {
            for term in t.terms() {
                lengths[f] += 1;
                seen.push((term, f, false));
            }
        }
    }
    for (term, exact) in packages.iter().flatten() {
        lengths[stack] += 1;
        seen.push((term, stack, *exact));
    }
    seen.sort_unstable_by(|a, b| a.0.cmp(b.0));
    let mut postings: Vec<Posting> = Vec::with_capacity(seen.len());
    for run in seen.chunk_by(|a, b| a.0 == b.0) {
        let mut tf = [0u32; FIELDS];
        let mut exact = false;
        for &(_, f, e) in run {
            tf[f] += 1;
            exact |= e;
        }
        postings.push(Posting {
            key: Term::key(run[0].0),
            tf: std::array::from_fn(|f| tf[f].min(u32::from(MAX_TF[f])) as u8),
            exact,
        });
    }
    postings.sort_by_key(|p| p.key);
    // Two terms of one lesson with the same key (one in a hundred million
    // lessons): counted as one.
    postings.dedup_by(|later, kept| {
        if later.key != kept.key {
            return false;
        }
        for ((k, l), max) in kept.tf.iter_mut().zip(later.tf).zip(MAX_TF) {
            *k = k.saturating_add(l).min(max);
        }
        kept.exact |= later.exact;
        true
    });
    // A batch's chunk holds thousands of documents until its index layer
    // is written: without the room the pushes left.
    postings.shrink_to_fit();
    (lengths.map(|n| n.min(u32::from(u16::MAX)) as u16), postings)
}

/// One word of a query: a plain word, or a joined name and its parts. A
/// lesson matches it when it has the whole term, or every part.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Group {
    pub whole: Option<Term>,
    pub parts: Vec<Term>,
}

impl Group {
    /// Its terms: the whole, then the parts.
    pub fn terms(&self) -> impl Iterator<Item = &Term> {
        self.whole.iter().chain(self.parts.iter())
    }
}

/// A query: its words, each once. Every word must match (see [`Group`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Query {
    pub groups: Vec<Group>,
}

impl Query {
    /// Reads a query the way lessons are read ([`terms::tokens`]).
    pub fn parse(text: &str) -> Query {
        let mut groups: Vec<Group> = Vec::new();
        for t in tokens(text) {
            let g = Group {
                whole: t.whole.map(Term::new),
                parts: t.parts.into_iter().map(Term::new).collect(),
            };
            if !groups.contains(&g) {
                groups.push(g);
            }
        }
        Query { groups }
    }

    /// Whether nothing in it can be searched for.
    pub fn is_empty(&self) -> bool {
        self.groups.is_empty()
    }

    /// Every term key it looks up, each once, sorted.
    pub fn keys(&self) -> Vec<u64> {
        let mut keys: Vec<u64> = self
            .groups
            .iter()
            .flat_map(|g| g.terms().map(|t| t.key))
            .collect();
        keys.sort_unstable();
        keys.dedup();
        keys
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lesson() -> Lesson {
        serde_json::from_str(include_str!(
            "../review/testdata/pool-entry.approved-org.json"
        ))
        .unwrap()
    }

    #[test]
    fn a_term_counted_past_what_the_index_holds_saturates_and_each_term_is_one_posting() {
        let mut l = lesson();
        l.claim = "lodash ".repeat(20);
        l.rationale = "Lodash lodash".into();
        l.evidence.resolution = String::new();
        l.applies_to.stack = vec!["lodash".into(), "npm:lodash".into()];
        let d = Doc::of_lesson(&l);
        let p = d.posting(Term::key("lodash")).unwrap();
        assert_eq!(p.tf[Field::Claim as usize], MAX_TF[Field::Claim as usize]);
        assert_eq!(p.tf[Field::Rationale as usize], 2);
        assert!(p.exact);
        assert_eq!(d.lengths[Field::Claim as usize], 20);
        let keys: Vec<u64> = d.postings.iter().map(|p| p.key).collect();
        let mut sorted = keys.clone();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(keys, sorted, "postings sorted by key, each once");
    }

    #[test]
    fn a_pool_entry_is_indexed_by_its_fields_and_packages() {
        let mut l = lesson();
        l.claim = "Vite vite HMR".into();
        l.rationale = "hmr".into();
        l.evidence.resolution = "Pin @vitejs/plugin-legacy.".into();
        l.applies_to.stack = vec!["vite".into(), "pypi:Requests".into()];
        let d = Doc::of_lesson(&l);
        assert_eq!((d.place, d.status), (Place::Org, Status::Active));
        assert_eq!(d.artifacts, l.evidence.artifact_ids);
        // claim: vite vite hmr; rationale: hmr; resolution: pin + the whole
        // name and its three parts; stack: the versions keys too.
        assert_eq!(&d.lengths[..3], &[3, 1, 5]);
        let vite = d.posting(Term::key("vite")).unwrap();
        assert_eq!(vite.tf[Field::Claim as usize], 2);
        assert_eq!(vite.tf[Field::Stack as usize], 1);
        assert!(vite.exact);
        let requests = d.posting(Term::key("requests")).unwrap();
        assert!(requests.exact, "the bare name of pypi:requests");
        assert!(!d.posting(Term::key("pypi")).unwrap().exact);
        let legacy = d.posting(Term::key("@vitejs/plugin-legacy")).unwrap();
        assert_eq!(legacy.tf, [0, 0, 1, 0]);
        assert!(!legacy.exact, "named in the text, not the stack");
        assert!(d.posting(Term::key("plugin")).is_some());
        assert!(d.posting(Term::key("the")).is_none());
    }

    #[test]
    fn only_queued_proposals_are_searched() {
        let mut p: Proposal =
            serde_json::from_str(include_str!("../review/testdata/proposal.pending.json")).unwrap();
        let d = Doc::of_proposal(&p).unwrap();
        assert_eq!((d.place, d.status), (Place::Pending, Status::Pending));
        assert_eq!(d.shown.as_ref().unwrap().claim, p.candidate.claim);
        assert!(d.posting(Term::key("vite")).is_some());
        for (status, queued) in [
            (ProposalStatus::Confirmed, true),
            (ProposalStatus::Approved, true),
            (ProposalStatus::Passed, false),
            (ProposalStatus::Rejected, false),
        ] {
            p.status = status;
            assert_eq!(Doc::of_proposal(&p).is_some(), queued, "{status}");
        }
        p.promoted_at = Some("2026-08-05T10:00:00Z".into());
        assert!(Doc::of_proposal(&p).is_none(), "found as its pool entry");
    }

    #[test]
    fn a_query_is_its_words_each_once() {
        let q = Query::parse("Vite vite @vitejs/plugin-legacy the");
        assert_eq!(q.groups.len(), 2);
        assert_eq!(q.groups[0].whole.as_ref().unwrap().text, "vite");
        assert_eq!(q.groups[1].parts.len(), 3);
        assert_eq!(q.keys().len(), 5);
        assert!(Query::parse("the . of").is_empty());
    }
}
