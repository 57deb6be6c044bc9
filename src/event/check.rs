//! What an action's check sees of the commit it checks: where the commit
//! is, who signed it, the records it changed (read, and allowed by its
//! [`super::Rule`]), and [`Repo`] for the few reads some checks need
//! beyond them.
//!
//! The audit (`ops/audit`) fills a [`Commit`] for every single-parent
//! commit after checking what every action shares (signature, branch, first
//! commit, exactly the files of the rule, schema validity) and hands it to
//! [`super::Event::check`]. Records are named ([`Name`]), never by path:
//! where a record lives is the store's business, what it must say is the
//! action's.

use serde_json::Value;

use super::{CommitRef, Event, PathKind};
use crate::model::{Id, Source};

/// Which tree a read looks at.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Side {
    /// The commit's first parent (nothing, for a branch's first commit).
    Before,
    /// The commit itself.
    After,
}

/// What a changed path names.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Name {
    /// `proposals/<X>/<Y>/<Z>/<lesson>.json` on the ledger.
    Proposal(Id),
    /// `declined/<X>/<Y>/<Z>/<artifact>.json` on the ledger.
    Decline(Id),
    /// `lessons/<X>/<Y>/<Z>/<lesson>.json` on a pool.
    Lesson(Id),
    /// `relations/<X>/<Y>/<Z>/<from>/<to>.json`: `from` refines `to`.
    Relation { from: Id, to: Id },
    /// `counter-observations/<X>/<Y>/<Z>/<lesson>/<observation>.json`.
    CounterObservation { lesson: Id, observation: Id },
    /// `related/<X>/<Y>/<Z>/<lesson>.json`: a lesson's judgment record.
    Related(Id),
    /// `upheld/<X>/<Y>/<Z>/<lesson>/<count>.json`.
    Upheld { lesson: Id, count: usize },
    /// A file under `.lore/`, by its path.
    Config(String),
}

impl Name {
    /// The kind of file, as rules list them.
    pub fn kind(&self) -> PathKind {
        match self {
            Name::Proposal(_) => PathKind::Proposal,
            Name::Decline(_) => PathKind::Decline,
            Name::Lesson(_) => PathKind::Lesson,
            Name::Relation { .. } => PathKind::Relation,
            Name::CounterObservation { .. } => PathKind::CounterObservation,
            Name::Related(_) => PathKind::Related,
            Name::Upheld { .. } => PathKind::Upheld,
            Name::Config(_) => PathKind::Config,
        }
    }

    /// The id a rule names this file by ([`Event::touched`]): a relation
    /// record by its `to`, a counter-observation and an upheld record by
    /// their lesson; none for `.lore/` files.
    pub fn id(&self) -> Option<Id> {
        match self {
            Name::Proposal(id) | Name::Decline(id) | Name::Lesson(id) | Name::Related(id) => {
                Some(*id)
            }
            Name::Relation { to, .. } => Some(*to),
            Name::CounterObservation { lesson, .. } | Name::Upheld { lesson, .. } => Some(*lesson),
            Name::Config(_) => None,
        }
    }
}

/// One file a commit changed that its rule allows.
#[derive(Clone, Debug)]
pub struct Record {
    /// Its path, for messages.
    pub path: String,
    pub name: Name,
    /// Before and after, as JSON (`None`: absent, not JSON, or a `.lore/`
    /// file, which a check reads through [`Repo::read`]).
    pub old: Option<Value>,
    pub new: Option<Value>,
}

/// The reads a check may make beyond the records it is given.
pub trait Repo {
    /// What a failed read is (the audit's error: an outage is not a
    /// finding).
    type Error;
    /// The bytes of the file `name` names, in the tree of `side`.
    fn read(&self, side: Side, name: &Name) -> Result<Option<Vec<u8>>, Self::Error>;
    /// Whether the file `name` names is in the tree of `side`.
    fn exists(&self, side: Side, name: &Name) -> Result<bool, Self::Error>;
    /// The counter-observations against `lesson` in the commit's tree, in
    /// id order.
    fn counter_observations(&self, lesson: Id) -> Result<Vec<Id>, Self::Error>;
    /// What the commit a trailer names did: `None` when there is no such
    /// commit, `Some(None)` when its trailers do not read.
    fn named(&self, commit: &CommitRef) -> Result<Option<Option<Event>>, Self::Error>;
    /// Whether the checked commit descends from the one `commit` names.
    fn descends_from(&self, commit: &CommitRef) -> Result<bool, Self::Error>;
}

/// One commit, as a check sees it.
pub struct Commit<'a, R> {
    /// The pool it is on; `None` on the ledger.
    pub pool: Option<Source>,
    /// Whether it is its branch's first commit.
    pub root: bool,
    /// The fingerprint of the key whose good signature it carries.
    pub signer: Option<&'a str>,
    /// The files it changed that its rule allows.
    pub records: &'a [Record],
    pub repo: &'a R,
}

impl<R> Commit<'_, R> {
    /// The first changed record of `kind`: before and after.
    pub fn record(&self, kind: PathKind) -> (Option<&Value>, Option<&Value>) {
        self.records
            .iter()
            .find(|r| r.name.kind() == kind)
            .map_or((None, None), |r| (r.old.as_ref(), r.new.as_ref()))
    }

    /// The changed records of `kind`.
    pub fn all(&self, kind: PathKind) -> impl Iterator<Item = &Record> {
        self.records.iter().filter(move |r| r.name.kind() == kind)
    }

    /// The changed pool entry of `lesson`, if the commit changed it.
    pub fn entry(&self, lesson: Id) -> Option<&Record> {
        self.records.iter().find(|r| r.name == Name::Lesson(lesson))
    }

    /// Where the commit is, as messages name it (`ledger`, `pool/org`).
    pub fn branch(&self) -> &'static str {
        match self.pool {
            None => "ledger",
            Some(Source::Local) => "pool/local",
            Some(Source::Org) => "pool/org",
            Some(Source::Public) => "pool/public",
        }
    }
}

/// How a problem names the rule that a trailer contradicting the record it
/// commits breaks (docs/trailers.md, "Unambiguous commits").
pub const AGREE: &str = "rule: trailers agree with the record";

/// A string field of a record.
pub fn text<'v>(v: Option<&'v Value>, key: &str) -> Option<&'v str> {
    v?.get(key)?.as_str()
}
