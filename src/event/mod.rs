//! What a commit did, typed: one [`Event`] per action, and each action as
//! one unit.
//!
//! Every git-lore commit carries exactly one event in its `Lore-*` trailers
//! ([`crate::trailers`] owns the lines, this module their meaning). An
//! action lives in the file of its group, whole: the trailers it writes and
//! reads, the [`Rule`] of which records it may change, the status moves it
//! may make ([`lifecycle`]), what the index learns from it ([`Learn`]) and
//! what `verify` checks of the records it wrote ([`check`]):
//!
//! - `ledger.rs`: `propose`, `decline`, `confirm`, `unconfirm`, `edit`,
//!   `pass`, `judge` and `promote`'s stamp: an artifact and its proposal;
//! - `pool.rs`: `promote` (the entry), `retract`, `sync`: a pool's entries;
//! - `relation.rs`: `supersede`, `merge`, `refine`, `contradict`, `relate`
//!   and the jury's second look (`judge` on a pool);
//! - `config/`: `init` and `config` (rubrics, and who may sign a pool).
//!
//! This file is the table of contents: the [`Event`] enum, the group each
//! variant belongs to ([`Event::group`]), and the shared types. Writers build
//! an event, the index folds events, `verify` checks each event against what
//! its commit changed, and `docs/trailers.md` documents them.
//!
//! The module is pure: it reads no repository. What a check needs beyond
//! the records a commit changed it asks through [`check::Repo`], which the
//! audit implements over the store. How to add an action:
//! `docs/ARCHITECTURE.md`, "How to grow it".

pub mod check;
mod config;
mod fields;
mod ledger;
pub mod lifecycle;
mod pool;
mod relation;

pub use self::config::{signers, ConfigTopic, RUBRICS};

use self::check::{Commit, Repo};
use self::fields::Fields;
use crate::model::{DeclineReason, Id, LessonStatus, ProposalStatus, Source, Verdict, Visibility};
use crate::trailers::{Action, Trailer, TrailerError};

/// A proposal's status before and after a ledger transition.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Step {
    pub lesson: Id,
    pub artifact: Id,
    pub from: ProposalStatus,
    pub to: ProposalStatus,
}

/// What the jury decided, as the `judge` trailers carry it.
#[derive(Clone, Debug, PartialEq)]
pub struct Ruling {
    /// The rubric id (absent for a private lesson: no jury).
    pub rubric: Option<String>,
    /// `majority` or `unanimous` (absent for a private lesson).
    pub gate: Option<String>,
    /// The aggregate score (absent for a private lesson).
    pub score: Option<f64>,
    /// The gate's reason (`gate_passed`, `criterion_floor`, …).
    pub reason: String,
    /// One `<judge_type> <score> pass|fail` line per judge, in panel order.
    pub judges: Vec<String>,
}

impl Ruling {
    /// The ruling a recorded verdict is, as the `judge` trailers carry it:
    /// its rubric, gate, score and reason, and one
    /// `<judge_type> <score to 2 decimals> pass|fail` line per judge
    /// (`standard 0.90 pass`; a judge without those fields, never in a
    /// recorded verdict, is left out).
    pub fn of(v: &Verdict) -> Ruling {
        Ruling {
            rubric: v.rubric_id.clone(),
            gate: v.gate_policy.clone(),
            score: v.aggregate_score,
            reason: v.reason.clone(),
            judges: v
                .judges
                .iter()
                .filter_map(|j| {
                    let t = j.get("judge_type")?.as_str()?;
                    let s = j.get("score")?.as_f64()?;
                    let p = j.get("passed")?.as_bool()?;
                    Some(format!("{t} {s:.2} {}", if p { "pass" } else { "fail" }))
                })
                .collect(),
        }
    }
}

/// What one commit did.
#[derive(Clone, Debug, PartialEq)]
pub enum Event {
    /// The ledger's root commit: the repository was created.
    Init,
    /// An artifact became a pending proposal.
    Propose {
        lesson: Id,
        artifact: Id,
        model: Option<String>,
        /// `ingest --redo`: the commit whose decline of this artifact this
        /// outcome replaces (`Lore-Replaces`); the decline stays in history.
        replaces: Option<CommitRef>,
    },
    /// The transform's verdict that an artifact cannot become a lesson.
    Decline {
        artifact: Id,
        reason: DeclineReason,
        /// `ingest --redo`: the earlier decline this one replaces; the
        /// record is then modified, not added.
        replaces: Option<CommitRef>,
        model: Option<String>,
    },
    /// A human confirmed a proposal at a visibility.
    Confirm {
        step: Step,
        visibility: Visibility,
        /// Whether a person could have been asked: stdin was a terminal.
        /// `false` (`--yes` from a script or an agent) is written as
        /// `Lore-Interactive: no`, so history shows who could not have
        /// been asked.
        interactive: bool,
    },
    /// A human took a confirmation back.
    Unconfirm { step: Step },
    /// A human edited the words or the scope of a pending, or confirmed
    /// but not yet judged, proposal; its status did not change.
    Edit { step: Step },
    /// A human said "don't share".
    Pass { step: Step, reason: Option<String> },
    /// The jury's verdict was recorded.
    Judge {
        step: Step,
        visibility: Option<Visibility>,
        ruling: Box<Ruling>,
        model: Option<String>,
    },
    /// The ledger record was stamped promoted (`promote` on the ledger).
    Stamp {
        step: Step,
        visibility: Option<Visibility>,
        /// The pool the entry went to; absent for a rejected lesson.
        pool: Option<Source>,
    },
    /// A Lesson v2 entry was added to a pool (`promote` on a pool).
    Promote {
        lesson: Id,
        artifact: Id,
        visibility: Visibility,
        pool: Source,
    },
    /// Configuration under `.lore/` changed.
    Config { topic: ConfigTopic },
    /// A pool entry was taken back: its status became `retracted`, nothing
    /// else changed and nothing was deleted.
    Retract {
        lesson: Id,
        from: LessonStatus,
        pool: Source,
        reason: String,
    },
    /// A merge commit that joined a remote pool's history to this one
    /// (`git lore sync`). `resolved` are the entries both sides changed,
    /// each taken from the side whose status is more final.
    Sync { pool: Source, resolved: Vec<Id> },
    /// Relation judgment: `lesson` became `superseded`, with
    /// `superseded_by` = `by` (the newer lesson). `surface` is what the
    /// judge said they share; `model` who judged.
    Supersede {
        lesson: Id,
        by: Id,
        surface: String,
        model: String,
    },
    /// Relation judgment: `lesson` absorbed the evidence of `sources`
    /// (artifact and session ids), and each source became `superseded` by
    /// it.
    Merge {
        lesson: Id,
        sources: Vec<Id>,
        surface: String,
        model: String,
    },
    /// Relation judgment: `lesson` refines each of `targets`; one relation
    /// record per target, no status changes.
    Refine {
        lesson: Id,
        targets: Vec<Id>,
        surface: String,
        model: String,
    },
    /// Relation judgment: `by` contradicts `lesson`; one counter-observation
    /// against `lesson`, and no status change.
    Contradict {
        lesson: Id,
        by: Id,
        surface: String,
        model: String,
    },
    /// Relation judgment: `lesson`'s judgment record (it was related, and
    /// how); `targets` are every id a decision named.
    Relate {
        lesson: Id,
        targets: Vec<Id>,
        model: String,
    },
    /// The jury judged a contradicted pool entry again (`judge` on a pool,
    /// told from the ledger's by `Lore-Pool`), with its counter-observations
    /// as counter-evidence. `refuted`: the entry's status became `refuted`;
    /// otherwise the jury upheld it: an upheld record was added and the
    /// entry did not change. Always a jury ruling: rubric, gate, score and
    /// at least one judge.
    Rejudge {
        lesson: Id,
        pool: Source,
        refuted: bool,
        ruling: Box<Ruling>,
        model: Option<String>,
    },
}

/// A commit named in a trailer: its full id, lower-case hex (40 digits for
/// SHA-1, 64 for SHA-256). Checked for shape here; that it names the right
/// commit is `verify`'s job.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CommitRef(String);

impl CommitRef {
    pub fn parse(hex: &str) -> Option<CommitRef> {
        let ok = matches!(hex.len(), 40 | 64)
            && hex.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'));
        ok.then(|| CommitRef(hex.to_owned()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// Which branches an action belongs on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum On {
    Ledger,
    Pool,
    Either,
}

/// Whether an action may, must or must not be a branch's first commit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Root {
    Only,
    Never,
    Allowed,
}

/// The kinds of file a commit can touch.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PathKind {
    /// `proposals/<X>/<Y>/<Z>/<lesson>.json` on the ledger.
    Proposal,
    /// `declined/<X>/<Y>/<Z>/<artifact>.json` on the ledger.
    Decline,
    /// `lessons/<X>/<Y>/<Z>/<lesson>.json` on a pool.
    Lesson,
    /// Anything under `.lore/`: who may sign, rubrics, policy.
    Config,
    /// `relations/<X>/<Y>/<Z>/<FROM>/<TO>.json` on a pool (a refinement).
    Relation,
    /// `counter-observations/<X>/<Y>/<Z>/<LESSON>/<ID>.json` on a pool.
    CounterObservation,
    /// `related/<X>/<Y>/<Z>/<LESSON>.json` on a pool (a judgment record).
    Related,
    /// `upheld/<X>/<Y>/<Z>/<LESSON>/<N>.json` on a pool (the jury upheld a
    /// contradicted lesson).
    Upheld,
}

/// How a touched file may change.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    /// Created; it did not exist before.
    Add,
    /// Changed; it existed before and still does.
    Modify,
    /// Created, changed or removed.
    Any,
}

/// What an action may change: the one table writers and `verify` share.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rule {
    pub on: On,
    pub root: Root,
    /// The files a commit of this action changes, exactly. A record is
    /// named by the event's lesson (proposals, lessons) or artifact
    /// (declines). `Config` matches one or more files under `.lore/`.
    /// The relation actions that name several lessons list one entry here
    /// and repeat it per lesson ([`Event::touched`]).
    pub touches: &'static [(PathKind, Op)],
}

/// The file an action lives in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Group {
    Config,
    Ledger,
    Pool,
    Relation,
}

/// What the index records, as the actions teach it: each action's unit
/// says what one of its events changed ([`Event::learn`]), the index keeps
/// it ([`crate::store::index`]).
pub trait Learn {
    /// `artifact` became the pending proposal `lesson`.
    fn proposed(&mut self, lesson: Id, artifact: Id);
    /// `artifact` was declined.
    fn declined(&mut self, artifact: Id, reason: DeclineReason);
    /// `lesson`'s proposal is now in `status`.
    fn status(&mut self, lesson: Id, status: ProposalStatus);
    /// `lesson` now has `visibility` (`None`: it has none).
    fn visibility(&mut self, lesson: Id, visibility: Option<Visibility>);
    /// `lesson`'s proposal was stamped `promoted_at`.
    fn stamped(&mut self, lesson: Id);
    /// `lesson`'s entry was written to `pool`.
    fn pooled(&mut self, lesson: Id, pool: Source);
}

impl On {
    /// Whether an event of this rule belongs on a branch: the ledger
    /// (`None`) or a pool.
    pub fn admits(self, pool: Option<Source>) -> bool {
        matches!(
            (self, pool),
            (On::Either, _) | (On::Ledger, None) | (On::Pool, Some(_))
        )
    }
}

/// Every file a rule lists, named by `id` (`None` for `.lore/` files).
fn named(rule: Rule, id: Option<Id>) -> Vec<(PathKind, Op, Option<Id>)> {
    rule.touches
        .iter()
        .map(|&(k, op)| (k, op, if k == PathKind::Config { None } else { id }))
        .collect()
}

impl Event {
    /// The file this event's action lives in.
    pub fn group(&self) -> Group {
        match self {
            Event::Init | Event::Config { .. } => Group::Config,
            Event::Propose { .. }
            | Event::Decline { .. }
            | Event::Confirm { .. }
            | Event::Unconfirm { .. }
            | Event::Edit { .. }
            | Event::Pass { .. }
            | Event::Judge { .. }
            | Event::Stamp { .. } => Group::Ledger,
            Event::Promote { .. } | Event::Retract { .. } | Event::Sync { .. } => Group::Pool,
            Event::Supersede { .. }
            | Event::Merge { .. }
            | Event::Refine { .. }
            | Event::Contradict { .. }
            | Event::Relate { .. }
            | Event::Rejudge { .. } => Group::Relation,
        }
    }

    /// The action word of this event.
    pub fn action(&self) -> Action {
        match self.group() {
            Group::Config => config::action(self),
            Group::Ledger => ledger::action(self),
            Group::Pool => pool::action(self),
            Group::Relation => relation::action(self),
        }
    }

    /// What this event may change.
    pub fn rule(&self) -> Rule {
        match self.group() {
            Group::Config => config::rule(self),
            Group::Ledger => ledger::rule(self),
            Group::Pool => pool::rule(self),
            Group::Relation => relation::rule(self),
        }
    }

    /// Every file this event changes, each with the id that names it: the
    /// rule's entries, repeated per lesson for the relation actions that
    /// name several (`merge`: the lesson and each source; `refine`: one
    /// relation record per target, named by the target). `None` where the
    /// rule's entry is not named by one id (`.lore/` files).
    pub fn touched(&self) -> Vec<(PathKind, Op, Option<Id>)> {
        match self.group() {
            Group::Config => named(self.rule(), None),
            Group::Ledger => ledger::touched(self),
            Group::Pool => named(self.rule(), self.lesson()),
            Group::Relation => relation::touched(self),
        }
    }

    /// The pool entries (`lessons/…`) this event changes, by [`Event::touched`]:
    /// the lesson of a promote, retract or supersede, and a merge's lesson
    /// and sources.
    pub fn entries_changed(&self) -> Vec<Id> {
        self.touched()
            .into_iter()
            .filter_map(|(kind, _, id)| id.filter(|_| kind == PathKind::Lesson))
            .collect()
    }

    /// The lesson this event is about, if any.
    pub fn lesson(&self) -> Option<Id> {
        match self.group() {
            Group::Config => None,
            Group::Ledger => ledger::lesson(self),
            Group::Pool => pool::lesson(self),
            Group::Relation => relation::lesson(self),
        }
    }

    /// The artifact this event is about, if any.
    pub fn artifact(&self) -> Option<Id> {
        match self.group() {
            Group::Ledger => ledger::artifact(self),
            Group::Pool => pool::artifact(self),
            Group::Config | Group::Relation => None,
        }
    }

    /// The ledger transition, for the events that are one.
    pub fn step(&self) -> Option<&Step> {
        match self.group() {
            Group::Ledger => ledger::step(self),
            _ => None,
        }
    }

    /// The trailer lines in their canonical order. Fails on any value that
    /// is not a single clean line.
    pub fn to_trailers(&self) -> Result<Vec<Trailer>, TrailerError> {
        let mut f = Fields::default();
        match self.group() {
            Group::Config => config::write(self, &mut f),
            Group::Ledger => ledger::write(self, &mut f),
            Group::Pool => pool::write(self, &mut f),
            Group::Relation => relation::write(self, &mut f),
        }
        f.render(self.action())
    }

    /// Reads the event from parsed trailer lines. Non-`Lore-*` trailers and
    /// unknown `Lore-*` keys are ignored; a missing or unknown-major
    /// `Lore-Format`, an unknown action, and a missing or malformed field the
    /// action needs are refused. Each group reads the actions it knows
    /// (`judge` and `promote` are each read by two: the ledger's has no
    /// `Lore-Pool`, respectively a `Lore-From`).
    pub fn from_trailers(lines: &[Trailer]) -> Result<Event, TrailerError> {
        let f = Fields::parse(lines)?;
        let reads = [config::read, ledger::read, pool::read, relation::read];
        reads
            .iter()
            .find_map(|read| read(&f))
            .unwrap_or_else(|| Err(TrailerError::Unsupported(f.action().as_str())))
    }

    /// Tells the index what this event changed, for an event on the ledger
    /// (`pool` is `None`) or on `pool`. An event on a branch where it does
    /// not belong teaches nothing (`verify` reports it).
    pub fn learn(&self, pool: Option<Source>, k: &mut dyn Learn) {
        if !self.rule().on.admits(pool) {
            return;
        }
        match (self.group(), pool) {
            (Group::Ledger, _) => ledger::learn(self, k),
            (Group::Pool, Some(pool)) => pool::learn(self, pool, k),
            _ => {}
        }
    }

    /// What is wrong with the records `c` wrote for this event, beyond its
    /// [`Rule`] (which the audit checks for every action alike): statuses,
    /// ids and values that disagree with the trailers, illegal moves.
    pub fn check<R: Repo>(&self, c: &Commit<'_, R>) -> Result<Vec<String>, R::Error> {
        match self.group() {
            Group::Config => config::check(self, c),
            Group::Ledger => ledger::check(self, c),
            Group::Pool => pool::check(self, c),
            Group::Relation => relation::check(self, c),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trailers::{parse, Message};

    fn id(s: &str) -> Id {
        s.parse().unwrap()
    }

    const L: &str = "01KZ4A1B2C3D4E5F6G7H8J9K0M";
    const A: &str = "01KZ45MKAM734ZS7JK24D2DK0R";
    const B: &str = "01KZ45MKAM734ZS7JK24D2DK1S";

    fn step(from: ProposalStatus, to: ProposalStatus) -> Step {
        Step {
            lesson: id(L),
            artifact: id(A),
            from,
            to,
        }
    }

    fn every_event() -> Vec<Event> {
        use ProposalStatus::*;
        vec![
            Event::Init,
            Event::Propose {
                lesson: id(L),
                artifact: id(A),
                model: Some("offline".into()),
                replaces: None,
            },
            Event::Propose {
                lesson: id(L),
                artifact: id(A),
                model: Some("offline".into()),
                replaces: CommitRef::parse("0123456789abcdef0123456789abcdef01234567"),
            },
            Event::Decline {
                artifact: id(A),
                reason: DeclineReason::NoVersions,
                model: Some("claude-haiku".into()),
                replaces: None,
            },
            Event::Decline {
                artifact: id(A),
                reason: DeclineReason::NoVersions,
                model: None,
                replaces: CommitRef::parse(&"ab".repeat(32)),
            },
            Event::Confirm {
                step: step(Pending, Confirmed),
                visibility: Visibility::Org,
                interactive: true,
            },
            Event::Confirm {
                step: step(Pending, Confirmed),
                visibility: Visibility::Public,
                interactive: false,
            },
            Event::Unconfirm {
                step: step(Confirmed, Pending),
            },
            Event::Edit {
                step: step(Pending, Pending),
            },
            Event::Edit {
                step: step(Confirmed, Confirmed),
            },
            Event::Pass {
                step: step(Pending, Passed),
                reason: Some("internal only".into()),
            },
            Event::Pass {
                step: step(Pending, Passed),
                reason: None,
            },
            Event::Judge {
                step: step(Confirmed, Approved),
                visibility: Some(Visibility::Public),
                ruling: Box::new(Ruling {
                    rubric: Some("lesson-promotion-public".into()),
                    gate: Some("unanimous".into()),
                    score: Some(0.90375),
                    reason: "gate_passed".into(),
                    judges: vec!["standard 0.90 pass".into(), "adversarial 0.91 pass".into()],
                }),
                model: Some("offline".into()),
            },
            Event::Judge {
                step: step(Confirmed, Approved),
                visibility: Some(Visibility::Private),
                ruling: Box::new(Ruling {
                    rubric: None,
                    gate: None,
                    score: None,
                    reason: "private_no_jury".into(),
                    judges: vec![],
                }),
                model: None,
            },
            Event::Stamp {
                step: step(Approved, Approved),
                visibility: Some(Visibility::Org),
                pool: Some(Source::Org),
            },
            Event::Stamp {
                step: step(Rejected, Rejected),
                visibility: Some(Visibility::Public),
                pool: None,
            },
            Event::Promote {
                lesson: id(L),
                artifact: id(A),
                visibility: Visibility::Private,
                pool: Source::Local,
            },
            Event::Config {
                topic: ConfigTopic::Rubrics,
            },
            Event::Config {
                topic: ConfigTopic::Signers,
            },
            Event::Supersede {
                lesson: id(L),
                by: id(A),
                surface: "vite.config.ts server.proxy".into(),
                model: "offline".into(),
            },
            Event::Merge {
                lesson: id(L),
                sources: vec![id(A), id(B)],
                surface: "the same claim".into(),
                model: "claude-haiku".into(),
            },
            Event::Refine {
                lesson: id(L),
                targets: vec![id(A)],
                surface: "tsconfig paths".into(),
                model: "claude-haiku".into(),
            },
            Event::Contradict {
                lesson: id(A),
                by: id(L),
                surface: "NODE_OPTIONS".into(),
                model: "claude-haiku".into(),
            },
            Event::Relate {
                lesson: id(L),
                targets: vec![],
                model: "offline".into(),
            },
            Event::Relate {
                lesson: id(L),
                targets: vec![id(A), id(B)],
                model: "offline".into(),
            },
            Event::Rejudge {
                lesson: id(L),
                pool: Source::Org,
                refuted: true,
                ruling: Box::new(Ruling {
                    rubric: Some("lesson-promotion".into()),
                    gate: Some("majority".into()),
                    score: Some(0.4),
                    reason: "criterion_floor".into(),
                    judges: vec!["standard 0.40 fail".into(), "adversarial 0.40 fail".into()],
                }),
                model: Some("offline".into()),
            },
            Event::Rejudge {
                lesson: id(L),
                pool: Source::Public,
                refuted: false,
                ruling: Box::new(Ruling {
                    rubric: Some("lesson-promotion-public".into()),
                    gate: Some("unanimous".into()),
                    score: Some(0.9),
                    reason: "gate_passed".into(),
                    judges: vec!["standard 0.90 pass".into()],
                }),
                model: None,
            },
        ]
    }

    #[test]
    fn every_event_round_trips_through_a_rendered_message() {
        for e in every_event() {
            let m = Message::new("subject", None, e.to_trailers().unwrap()).unwrap();
            let (_, lines) = parse(&m.render());
            assert_eq!(Event::from_trailers(&lines).unwrap(), e, "{}", m.render());
        }
    }

    #[test]
    fn the_written_layout_is_the_documented_one() {
        let e = Event::Confirm {
            step: step(ProposalStatus::Pending, ProposalStatus::Confirmed),
            visibility: Visibility::Org,
            interactive: true,
        };
        let text = Message::new("confirm x", None, e.to_trailers().unwrap())
            .unwrap()
            .render();
        assert_eq!(
            text,
            format!(
                "confirm x\n\nLore-Format: 1\nLore-Action: confirm\nLore-Lesson: {L}\n\
                 Lore-Artifact: {A}\nLore-From: pending\nLore-Status: confirmed\n\
                 Lore-Visibility: org\n"
            )
        );
    }

    fn lines(pairs: &[(&str, &str)]) -> Vec<Trailer> {
        pairs
            .iter()
            .map(|(k, v)| Trailer::new(k, v).unwrap())
            .collect()
    }

    #[test]
    fn missing_and_malformed_fields_are_refused() {
        let base = [("Lore-Format", "1"), ("Lore-Action", "confirm")];
        let e = Event::from_trailers(&lines(&base)).unwrap_err();
        assert_eq!(e, TrailerError::Missing("Lore-Lesson"));
        let mut bad = base.to_vec();
        bad.extend([
            ("Lore-Lesson", L),
            ("Lore-Artifact", A),
            ("Lore-From", "pending"),
            ("Lore-Status", "confirmed"),
            ("Lore-Visibility", "everyone"),
        ]);
        let e = Event::from_trailers(&lines(&bad)).unwrap_err();
        assert!(
            matches!(
                e,
                TrailerError::Unparsable {
                    key: "Lore-Visibility",
                    ..
                }
            ),
            "{e:?}"
        );
        // The value's own parse error is kept as the cause, not only said.
        let cause = std::error::Error::source(&e).and_then(std::error::Error::source);
        let name = cause
            .and_then(|c| c.downcast_ref::<crate::names::NameError<crate::model::Visibility>>());
        assert!(name.is_some(), "{e:?}");
        assert!(
            e.to_string().starts_with("trailer Lore-Visibility: "),
            "{e}"
        );
        let judge = [
            ("Lore-Format", "1"),
            ("Lore-Action", "judge"),
            ("Lore-Lesson", L),
            ("Lore-Artifact", A),
            ("Lore-From", "confirmed"),
            ("Lore-Status", "approved"),
            ("Lore-Reason", "gate_passed"),
            ("Lore-Score", "NaN"),
        ];
        assert!(matches!(
            Event::from_trailers(&lines(&judge)),
            Err(TrailerError::BadField {
                key: "Lore-Score",
                ..
            })
        ));
    }

    #[test]
    fn unknown_keys_are_ignored_and_unknown_majors_and_actions_refused() {
        let ok = [
            ("Lore-Format", "1.4"),
            ("Lore-Action", "init"),
            ("Lore-Future", "x"),
            ("Signed-off-by", "A <a@b>"),
        ];
        assert_eq!(Event::from_trailers(&lines(&ok)).unwrap(), Event::Init);
        let v2 = [("Lore-Format", "2"), ("Lore-Action", "init")];
        assert_eq!(
            Event::from_trailers(&lines(&v2)),
            Err(TrailerError::UnsupportedFormat("2".into()))
        );
        let odd = [("Lore-Format", "1"), ("Lore-Action", "explode")];
        assert_eq!(
            Event::from_trailers(&lines(&odd)),
            Err(TrailerError::UnknownAction("explode".into()))
        );
        let supersede_back = [
            ("Lore-Format", "1"),
            ("Lore-Action", "supersede"),
            ("Lore-Lesson", L),
            ("Lore-From", "active"),
            ("Lore-Status", "refuted"),
            ("Lore-Target", A),
            ("Lore-Surface", "x"),
            ("Lore-Model", "m"),
        ];
        assert!(matches!(
            Event::from_trailers(&lines(&supersede_back)),
            Err(TrailerError::BadField {
                key: "Lore-Status",
                ..
            })
        ));
        let merge_twice = [
            ("Lore-Format", "1"),
            ("Lore-Action", "merge"),
            ("Lore-Lesson", L),
            ("Lore-Target", A),
            ("Lore-Target", A),
            ("Lore-Surface", "x"),
            ("Lore-Model", "m"),
        ];
        assert!(matches!(
            Event::from_trailers(&lines(&merge_twice)),
            Err(TrailerError::BadField {
                key: "Lore-Target",
                ..
            })
        ));
        // A judge on a pool is the jury's second look: active -> refuted or
        // upheld active, and always a ruling with judges.
        let pool_judge = |status: &'static str, judge: bool| {
            let mut v = vec![
                ("Lore-Format", "1"),
                ("Lore-Action", "judge"),
                ("Lore-Lesson", L),
                ("Lore-From", "active"),
                ("Lore-Status", status),
                ("Lore-Pool", "org"),
                ("Lore-Rubric", "lesson-promotion"),
                ("Lore-Gate", "majority"),
                ("Lore-Score", "0.2"),
                ("Lore-Reason", "jury_not_majority"),
            ];
            if judge {
                v.push(("Lore-Judge", "standard 0.20 fail"));
            }
            Event::from_trailers(&lines(&v))
        };
        assert!(matches!(
            pool_judge("refuted", true),
            Ok(Event::Rejudge { refuted: true, .. })
        ));
        assert!(matches!(
            pool_judge("superseded", true),
            Err(TrailerError::BadField {
                key: "Lore-Status",
                ..
            })
        ));
        assert_eq!(
            pool_judge("refuted", false),
            Err(TrailerError::Missing("Lore-Judge"))
        );
        let reserved = [("Lore-Format", "1"), ("Lore-Action", "publish")];
        assert_eq!(
            Event::from_trailers(&lines(&reserved)),
            Err(TrailerError::Unsupported("publish"))
        );
    }

    #[test]
    fn every_event_has_a_rule_and_only_config_touches_dot_lore() {
        for e in every_event() {
            let rule = e.rule();
            let touches_config = rule.touches.iter().any(|(k, _)| *k == PathKind::Config);
            assert_eq!(
                touches_config,
                e.action() == Action::Config,
                "{:?}",
                e.action()
            );
            assert_eq!(rule.root == Root::Only, e.action() == Action::Init);
        }
    }

    /// A repository with nothing in it: every read finds nothing.
    struct Empty;

    impl Repo for Empty {
        type Error = std::convert::Infallible;
        fn read(&self, _: check::Side, _: &check::Name) -> Result<Option<Vec<u8>>, Self::Error> {
            Ok(None)
        }
        fn exists(&self, _: check::Side, _: &check::Name) -> Result<bool, Self::Error> {
            Ok(false)
        }
        fn counter_observations(&self, _: Id) -> Result<Vec<Id>, Self::Error> {
            Ok(Vec::new())
        }
        fn named(&self, _: &CommitRef) -> Result<Option<Option<Event>>, Self::Error> {
            Ok(None)
        }
        fn descends_from(&self, _: &CommitRef) -> Result<bool, Self::Error> {
            Ok(false)
        }
    }

    /// What a [`Learn`] was told, as words.
    #[derive(Default)]
    struct Told(Vec<String>);

    impl Learn for Told {
        fn proposed(&mut self, lesson: Id, artifact: Id) {
            self.0.push(format!("proposed {lesson} {artifact}"));
        }
        fn declined(&mut self, artifact: Id, reason: DeclineReason) {
            self.0.push(format!("declined {artifact} {reason}"));
        }
        fn status(&mut self, lesson: Id, status: ProposalStatus) {
            self.0.push(format!("status {lesson} {status}"));
        }
        fn visibility(&mut self, lesson: Id, visibility: Option<Visibility>) {
            self.0.push(format!("visibility {lesson} {visibility:?}"));
        }
        fn stamped(&mut self, lesson: Id) {
            self.0.push(format!("stamped {lesson}"));
        }
        fn pooled(&mut self, lesson: Id, pool: Source) {
            self.0.push(format!("pooled {lesson} {pool}"));
        }
    }

    /// Every question about every event is answered by its unit (a unit
    /// missing an arm for a new variant panics here), and only on the
    /// branch where it belongs does it teach the index anything.
    #[test]
    fn every_event_is_answered_by_its_unit() {
        for e in every_event() {
            let _ = (e.action(), e.touched(), e.lesson(), e.artifact(), e.step());
            let home = match e.rule().on {
                On::Pool => Some(Source::Org),
                _ => None,
            };
            let mut told = Told::default();
            e.learn(home, &mut told);
            let mut elsewhere = Told::default();
            e.learn(
                if home.is_some() {
                    None
                } else {
                    Some(Source::Org)
                },
                &mut elsewhere,
            );
            assert!(elsewhere.0.is_empty(), "{e:?} taught {:?}", elsewhere.0);
            let taught = !told.0.is_empty();
            let teaches = matches!(
                e.action(),
                Action::Propose
                    | Action::Decline
                    | Action::Confirm
                    | Action::Unconfirm
                    | Action::Pass
                    | Action::Promote
            ) || matches!(e, Event::Judge { .. });
            assert_eq!(taught, teaches, "{e:?}: {:?}", told.0);
            let c = Commit {
                pool: home,
                root: false,
                signer: None,
                records: &[],
                repo: &Empty,
            };
            let Ok(_) = e.check(&c);
        }
    }

    #[test]
    fn the_ledger_teaches_a_lesson_s_life() {
        let mut told = Told::default();
        for e in every_event()
            .iter()
            .filter(|e| matches!(e.group(), Group::Ledger))
        {
            e.learn(None, &mut told);
        }
        assert_eq!(
            told.0[..4],
            [
                format!("proposed {L} {A}"),
                format!("proposed {L} {A}"),
                format!("declined {A} no_versions"),
                format!("declined {A} no_versions"),
            ]
        );
        assert!(told.0.contains(&format!("visibility {L} Some(Org)")));
        assert!(told.0.contains(&format!("visibility {L} None")));
        assert!(told.0.contains(&format!("stamped {L}")));
    }

    #[test]
    fn a_key_given_twice_is_refused_unless_it_repeats() {
        let confirm = [
            ("Lore-Format", "1"),
            ("Lore-Action", "confirm"),
            ("Lore-Lesson", L),
            ("Lore-Artifact", A),
            ("Lore-From", "pending"),
            ("Lore-Status", "confirmed"),
            ("Lore-Visibility", "org"),
        ];
        assert!(Event::from_trailers(&lines(&confirm)).is_ok());
        for (key, again) in [
            ("Lore-Action", "pass"),
            ("lore-visibility", "public"),
            ("Lore-Format", "1"),
        ] {
            let mut twice = confirm.to_vec();
            twice.push((key, again));
            let e = Event::from_trailers(&lines(&twice)).unwrap_err();
            assert!(
                matches!(e, TrailerError::Repeated { times: 2, key: k } if k.eq_ignore_ascii_case(key)),
                "{key}: {e}"
            );
        }
        assert_eq!(
            TrailerError::Repeated {
                key: "Lore-Action",
                times: 2
            }
            .to_string(),
            "trailer Lore-Action is given 2 times (rule: one value per key; of the Lore- keys only Lore-Target and Lore-Judge repeat)"
        );
        // Unknown keys are not read, so not counted.
        let mut future = confirm.to_vec();
        future.extend([("Lore-Future", "a"), ("Lore-Future", "b")]);
        assert!(Event::from_trailers(&lines(&future)).is_ok());
    }

    /// A confirm's check, given the proposal before and after.
    fn check_confirm(said: Visibility, before: &str, after: serde_json::Value) -> Vec<String> {
        let e = Event::Confirm {
            step: step(ProposalStatus::Pending, ProposalStatus::Confirmed),
            visibility: said,
            interactive: true,
        };
        let record =
            |status: &str| serde_json::json!({"id": L, "artifact_id": A, "status": status});
        let records = [check::Record {
            path: "proposals/…".into(),
            name: check::Name::Proposal(id(L)),
            old: Some(record(before)),
            new: Some(after),
        }];
        let c = Commit {
            pool: None,
            root: false,
            signer: None,
            records: &records,
            repo: &Empty,
        };
        let Ok(problems) = e.check(&c);
        problems
    }

    /// An edit's check, given the proposal before and after and the
    /// statuses its trailers say.
    fn check_edit(
        from: ProposalStatus,
        to: ProposalStatus,
        change: impl FnOnce(&mut serde_json::Value),
    ) -> Vec<String> {
        let old: serde_json::Value =
            serde_json::from_str(include_str!("../review/testdata/proposal.pending.json")).unwrap();
        let mut new = old.clone();
        change(&mut new);
        let records = [check::Record {
            path: "proposals/…".into(),
            name: check::Name::Proposal(id(L)),
            old: Some(old),
            new: Some(new),
        }];
        let c = Commit {
            pool: None,
            root: false,
            signer: None,
            records: &records,
            repo: &Empty,
        };
        let Ok(problems) = Event::Edit {
            step: step(from, to),
        }
        .check(&c);
        problems
    }

    #[test]
    fn an_edit_changes_the_words_and_the_scope_and_nothing_else() {
        use serde_json::json;
        use ProposalStatus::*;
        let ok = check_edit(Pending, Pending, |p| {
            p["candidate"]["claim"] = json!("Vite 5 lacks vite/module-runner");
            p["candidate"]["evidence"]["resolution"] = json!("Pin vitest to 3.2.4.");
            p["candidate"]["applies_to"]["stack"] = json!(["vite", "vitest", "@vitest/runner"]);
            p["candidate"]["applies_to"]["scope"]["versions"]["@vitest/runner"] = json!(">=4 <5");
        });
        assert!(ok.is_empty(), "{ok:?}");
        assert_eq!(
            check_edit(Pending, Pending, |p| {
                p["candidate"]["claim"] = json!("Vite 5 lacks it");
                p["visibility"] = json!("public");
                p["candidate"]["evidence"]["session_ids"] = json!(["sess-2"]);
            }),
            ["edit may change only the candidate's claim, rationale, resolution, stack and scope; it also changed /candidate/evidence/session_ids, /visibility"]
        );
        assert_eq!(
            check_edit(Pending, Pending, |p| p["artifact_id"] = json!(B)),
            [
                format!("edit: Lore-Artifact says {A} but the record holds {B} (rule: trailers agree with the record)"),
                "edit may change only the candidate's claim, rationale, resolution, stack and scope; it also changed /artifact_id".into(),
            ]
        );
        assert_eq!(
            check_edit(Pending, Pending, |p| p["status"] = json!("approved")),
            [
                "edit: trailers say pending -> pending but the record went pending -> approved",
                "edit: illegal status transition pending -> approved",
                "edit may change only the candidate's claim, rationale, resolution, stack and scope; it also changed /status",
            ]
        );
        assert_eq!(
            check_edit(Approved, Approved, |p| {
                p["status"] = json!("approved");
                p["candidate"]["claim"] = json!("x");
            })[..1],
            ["edit: trailers say approved -> approved but the record went pending -> approved"]
        );
        assert_eq!(
            check_edit(Pending, Pending, |p| {
                p["candidate"]["applies_to"]["scope"] =
                    json!({"kind": "version_independent", "justification": "always"});
            }),
            ["edit made the scope version_independent, which is chosen when confirming (`git lore confirm ID org --justification TEXT`), not by an edit"]
        );
        assert_eq!(
            check_edit(Pending, Pending, |p| {
                p["candidate"]["applies_to"]["stack"] = json!(["vitest"]);
            }),
            ["edit: the edited candidate does not validate: /applies_to/scope/versions/vite: \"vite\" is not named in applies_to.stack; every versions key must be a stack entry"]
        );
    }

    #[test]
    fn a_confirm_agrees_with_the_proposal_it_writes() {
        let confirmed = |visibility: &str, artifact: &str| serde_json::json!({"id": L, "artifact_id": artifact, "status": "confirmed", "visibility": visibility});
        assert!(check_confirm(Visibility::Org, "pending", confirmed("org", A)).is_empty());
        assert_eq!(
            check_confirm(Visibility::Public, "pending", confirmed("org", A)),
            ["confirm: Lore-Visibility says public but the record holds org (rule: trailers agree with the record)"]
        );
        assert_eq!(
            check_confirm(Visibility::Org, "pending", confirmed("org", B)),
            [format!("confirm: Lore-Artifact says {A} but the record holds {B} (rule: trailers agree with the record)")]
        );
        assert_eq!(
            check_confirm(Visibility::Org, "confirmed", confirmed("org", A)),
            [
                "confirm: trailers say pending -> confirmed but the record went confirmed -> confirmed",
                "confirm: illegal status transition confirmed -> confirmed"
            ]
        );
    }
}
