//! What a commit did, typed: one [`Event`] per action, and the rules of
//! which records each action may touch.
//!
//! Every git-lore commit carries exactly one event in its `Lore-*` trailers
//! ([`crate::trailers`] owns the lines, this module their meaning).
//! [`Event::to_trailers`] and [`Event::from_trailers`] are the only
//! conversions: writers build an event, the index folds events, `verify`
//! checks each event against what its commit changed, and
//! `docs/trailers.md` documents them. Adding an action means adding a
//! variant here (with its conversion, its [`Rule`]), its fold in the index,
//! its check in the audit, and its row in `docs/trailers.md` — nothing else.
//!
//! The module is pure: it neither reads git nor decides whether a status
//! transition is legal (that table is [`crate::review::lifecycle`]).

use crate::model::{DeclineReason, Id, LessonStatus, ProposalStatus, Source, Visibility};
use crate::names::string_enum;
use crate::trailers::{Action, Trailer, TrailerError, FORMAT};

string_enum! {
    /// What a `config` commit changed.
    pub enum ConfigTopic: "config topic" {
        /// `.lore/rubrics.json` on the ledger.
        Rubrics("rubrics", 0),
        /// `.lore/allowed_signers` (and `.lore/threshold`) on a pool,
        /// changed directly: a pool's first commit, or one whose threshold
        /// is 1.
        Signers("signers", 1),
        /// A change of `.lore/allowed_signers` proposed under
        /// `.lore/proposed/`, acknowledged by its proposer.
        SignersPropose("signers-propose", 2),
        /// One more signer acknowledged the proposal; the acknowledgement
        /// that reaches the threshold also puts it in force.
        SignersAck("signers-ack", 3),
    }
}

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
    /// `proposals/<X>/<Y>/<lesson>.json` on the ledger.
    Proposal,
    /// `declined/<X>/<Y>/<artifact>.json` on the ledger.
    Decline,
    /// `lessons/<X>/<Y>/<lesson>.json` on a pool.
    Lesson,
    /// Anything under `.lore/`: who may sign, rubrics, policy.
    Config,
    /// `relations/<X>/<Y>/<FROM>/<TO>.json` on a pool (a refinement).
    Relation,
    /// `counter-observations/<X>/<Y>/<LESSON>/<ID>.json` on a pool.
    CounterObservation,
    /// `related/<X>/<Y>/<LESSON>.json` on a pool (a judgment record).
    Related,
    /// `upheld/<X>/<Y>/<LESSON>/<N>.json` on a pool (the jury upheld a
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

impl Event {
    /// The action word of this event.
    pub fn action(&self) -> Action {
        match self {
            Event::Init => Action::Init,
            Event::Propose { .. } => Action::Propose,
            Event::Decline { .. } => Action::Decline,
            Event::Confirm { .. } => Action::Confirm,
            Event::Unconfirm { .. } => Action::Unconfirm,
            Event::Pass { .. } => Action::Pass,
            Event::Judge { .. } => Action::Judge,
            Event::Stamp { .. } | Event::Promote { .. } => Action::Promote,
            Event::Config { .. } => Action::Config,
            Event::Retract { .. } => Action::Retract,
            Event::Sync { .. } => Action::Sync,
            Event::Supersede { .. } => Action::Supersede,
            Event::Merge { .. } => Action::Merge,
            Event::Refine { .. } => Action::Refine,
            Event::Contradict { .. } => Action::Contradict,
            Event::Relate { .. } => Action::Relate,
            Event::Rejudge { .. } => Action::Judge,
        }
    }

    /// What this event may change.
    pub fn rule(&self) -> Rule {
        use {On::*, Op::*, PathKind::*};
        let (on, root, touches): (On, Root, &'static [(PathKind, Op)]) = match self {
            Event::Init => (Ledger, Root::Only, &[]),
            Event::Propose { .. } => (Ledger, Root::Never, &[(Proposal, Add)]),
            Event::Decline { replaces: None, .. } => (Ledger, Root::Never, &[(Decline, Add)]),
            Event::Decline {
                replaces: Some(_), ..
            } => (Ledger, Root::Never, &[(Decline, Modify)]),
            Event::Confirm { .. }
            | Event::Unconfirm { .. }
            | Event::Pass { .. }
            | Event::Judge { .. }
            | Event::Stamp { .. } => (Ledger, Root::Never, &[(Proposal, Modify)]),
            Event::Promote { .. } => (Pool, Root::Never, &[(Lesson, Add)]),
            Event::Config { topic } => match topic {
                ConfigTopic::Rubrics => (Ledger, Root::Never, &[(Config, Any)]),
                ConfigTopic::Signers => (Pool, Root::Allowed, &[(Config, Any)]),
                ConfigTopic::SignersPropose | ConfigTopic::SignersAck => {
                    (Pool, Root::Never, &[(Config, Any)])
                }
            },
            Event::Retract { .. } => (Pool, Root::Never, &[(Lesson, Modify)]),
            // A merge: checked as a whole against its parents, not by paths.
            Event::Sync { .. } => (Pool, Root::Never, &[]),
            // The superseded entry; `merge` also each source's.
            Event::Supersede { .. } | Event::Merge { .. } => {
                (Pool, Root::Never, &[(Lesson, Modify)])
            }
            // One relation record per target.
            Event::Refine { .. } => (Pool, Root::Never, &[(Relation, Add)]),
            Event::Contradict { .. } => (Pool, Root::Never, &[(CounterObservation, Add)]),
            Event::Relate { .. } => (Pool, Root::Never, &[(Related, Add)]),
            // Refuted: the entry's status, nothing else; upheld: one record.
            Event::Rejudge { refuted: true, .. } => (Pool, Root::Never, &[(Lesson, Modify)]),
            Event::Rejudge { refuted: false, .. } => (Pool, Root::Never, &[(Upheld, Add)]),
        };
        Rule { on, root, touches }
    }

    /// Every file this event changes, each with the id that names it: the
    /// rule's entries, with the relation actions that name several lessons
    /// expanded (`merge`: the lesson and each source; `refine`: one relation
    /// record per target, named by the target). `None` where the rule's
    /// entry is not named by one id (`.lore/` files).
    pub fn touched(&self) -> Vec<(PathKind, Op, Option<Id>)> {
        match self {
            Event::Merge {
                lesson, sources, ..
            } => std::iter::once(*lesson)
                .chain(sources.iter().copied())
                .map(|id| (PathKind::Lesson, Op::Modify, Some(id)))
                .collect(),
            Event::Refine { targets, .. } => targets
                .iter()
                .map(|&t| (PathKind::Relation, Op::Add, Some(t)))
                .collect(),
            _ => {
                let named = match self {
                    Event::Decline { artifact, .. } => Some(*artifact),
                    _ => self.lesson(),
                };
                self.rule()
                    .touches
                    .iter()
                    .map(|&(k, op)| (k, op, if k == PathKind::Config { None } else { named }))
                    .collect()
            }
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
        match self {
            Event::Propose { lesson, .. }
            | Event::Promote { lesson, .. }
            | Event::Retract { lesson, .. }
            | Event::Supersede { lesson, .. }
            | Event::Merge { lesson, .. }
            | Event::Refine { lesson, .. }
            | Event::Contradict { lesson, .. }
            | Event::Relate { lesson, .. }
            | Event::Rejudge { lesson, .. } => Some(*lesson),
            Event::Confirm { step, .. }
            | Event::Unconfirm { step }
            | Event::Pass { step, .. }
            | Event::Judge { step, .. }
            | Event::Stamp { step, .. } => Some(step.lesson),
            Event::Init | Event::Decline { .. } | Event::Config { .. } | Event::Sync { .. } => None,
        }
    }

    /// The artifact this event is about, if any.
    pub fn artifact(&self) -> Option<Id> {
        match self {
            Event::Propose { artifact, .. }
            | Event::Decline { artifact, .. }
            | Event::Promote { artifact, .. } => Some(*artifact),
            Event::Confirm { step, .. }
            | Event::Unconfirm { step }
            | Event::Pass { step, .. }
            | Event::Judge { step, .. }
            | Event::Stamp { step, .. } => Some(step.artifact),
            Event::Init
            | Event::Config { .. }
            | Event::Retract { .. }
            | Event::Sync { .. }
            | Event::Supersede { .. }
            | Event::Merge { .. }
            | Event::Refine { .. }
            | Event::Contradict { .. }
            | Event::Relate { .. }
            | Event::Rejudge { .. } => None,
        }
    }

    /// The ledger transition, for the events that are one.
    pub fn step(&self) -> Option<&Step> {
        match self {
            Event::Confirm { step, .. }
            | Event::Unconfirm { step }
            | Event::Pass { step, .. }
            | Event::Judge { step, .. }
            | Event::Stamp { step, .. } => Some(step),
            _ => None,
        }
    }

    /// The trailer lines in their canonical order. Fails on any value that
    /// is not a single clean line.
    pub fn to_trailers(&self) -> Result<Vec<Trailer>, TrailerError> {
        let mut f = Fields::default();
        match self {
            Event::Init => {}
            Event::Propose {
                lesson,
                artifact,
                model,
                replaces,
            } => {
                f.lesson = Some(*lesson);
                f.artifact = Some(*artifact);
                f.status = Some(ProposalStatus::Pending.as_str().into());
                f.model = model.clone();
                f.replaces = replaces.as_ref().map(|c| c.0.clone());
            }
            Event::Decline {
                artifact,
                reason,
                model,
                replaces,
            } => {
                f.artifact = Some(*artifact);
                f.reason = Some(reason.as_str().into());
                f.model = model.clone();
                f.replaces = replaces.as_ref().map(|c| c.0.clone());
            }
            Event::Confirm {
                step,
                visibility,
                interactive,
            } => {
                f.step(step);
                f.visibility = Some(visibility.as_str().into());
                if !interactive {
                    f.interactive = Some("no".into());
                }
            }
            Event::Unconfirm { step } => f.step(step),
            Event::Pass { step, reason } => {
                f.step(step);
                f.reason = reason.clone();
            }
            Event::Judge {
                step,
                visibility,
                ruling,
                model,
            } => {
                f.step(step);
                f.visibility = visibility.map(|v| v.as_str().into());
                f.rubric = ruling.rubric.clone();
                f.gate = ruling.gate.clone();
                f.score = ruling.score.map(|s| format!("{s}"));
                f.reason = Some(ruling.reason.clone());
                f.judges = ruling.judges.clone();
                f.model = model.clone();
            }
            Event::Stamp {
                step,
                visibility,
                pool,
            } => {
                f.step(step);
                f.visibility = visibility.map(|v| v.as_str().into());
                f.pool = pool.map(|p| p.as_str().into());
            }
            Event::Promote {
                lesson,
                artifact,
                visibility,
                pool,
            } => {
                f.lesson = Some(*lesson);
                f.artifact = Some(*artifact);
                f.status = Some("active".into());
                f.visibility = Some(visibility.as_str().into());
                f.pool = Some(pool.as_str().into());
            }
            Event::Config { topic } => f.reason = Some(topic.as_str().into()),
            Event::Retract {
                lesson,
                from,
                pool,
                reason,
            } => {
                f.lesson = Some(*lesson);
                f.from = Some(from.as_str().into());
                f.status = Some(LessonStatus::Retracted.as_str().into());
                f.pool = Some(pool.as_str().into());
                f.reason = Some(reason.clone());
            }
            Event::Sync { pool, resolved } => {
                f.pool = Some(pool.as_str().into());
                f.targets = resolved.clone();
            }
            Event::Supersede {
                lesson,
                by,
                surface,
                model,
            } => {
                f.lesson = Some(*lesson);
                f.from = Some(LessonStatus::Active.as_str().into());
                f.status = Some(LessonStatus::Superseded.as_str().into());
                f.targets = vec![*by];
                f.surface = Some(surface.clone());
                f.model = Some(model.clone());
            }
            Event::Merge {
                lesson,
                sources: targets,
                surface,
                model,
            }
            | Event::Refine {
                lesson,
                targets,
                surface,
                model,
            } => {
                f.lesson = Some(*lesson);
                f.targets = targets.clone();
                f.surface = Some(surface.clone());
                f.model = Some(model.clone());
            }
            Event::Contradict {
                lesson,
                by,
                surface,
                model,
            } => {
                f.lesson = Some(*lesson);
                f.targets = vec![*by];
                f.surface = Some(surface.clone());
                f.model = Some(model.clone());
            }
            Event::Relate {
                lesson,
                targets,
                model,
            } => {
                f.lesson = Some(*lesson);
                f.targets = targets.clone();
                f.model = Some(model.clone());
            }
            Event::Rejudge {
                lesson,
                pool,
                refuted,
                ruling,
                model,
            } => {
                f.lesson = Some(*lesson);
                f.from = Some(LessonStatus::Active.as_str().into());
                f.status = Some(
                    if *refuted {
                        LessonStatus::Refuted
                    } else {
                        LessonStatus::Active
                    }
                    .as_str()
                    .into(),
                );
                f.pool = Some(pool.as_str().into());
                f.rubric = ruling.rubric.clone();
                f.gate = ruling.gate.clone();
                f.score = ruling.score.map(|s| format!("{s}"));
                f.reason = Some(ruling.reason.clone());
                f.judges = ruling.judges.clone();
                f.model = model.clone();
            }
        }
        f.render(self.action())
    }

    /// Reads the event from parsed trailer lines. Non-`Lore-*` trailers and
    /// unknown `Lore-*` keys are ignored; a missing or unknown-major
    /// `Lore-Format`, an unknown action, and a missing or malformed field the
    /// action needs are refused.
    pub fn from_trailers(lines: &[Trailer]) -> Result<Event, TrailerError> {
        let f = Fields::parse(lines)?;
        let action = f.action.expect("parse requires Lore-Action");
        Ok(match action {
            Action::Init => Event::Init,
            Action::Propose => {
                if f.status.as_deref() != Some(ProposalStatus::Pending.as_str()) {
                    return Err(TrailerError::BadField {
                        key: "Lore-Status",
                        why: "a proposal is created pending".into(),
                    });
                }
                Event::Propose {
                    lesson: f.need_lesson()?,
                    artifact: f.need_artifact()?,
                    replaces: f.replaces()?,
                    model: f.model,
                }
            }
            Action::Decline => Event::Decline {
                artifact: f.need_artifact()?,
                reason: f.parsed("Lore-Reason", &f.reason)?,
                replaces: f.replaces()?,
                model: f.model,
            },
            Action::Confirm => Event::Confirm {
                step: f.need_step()?,
                visibility: f.parsed("Lore-Visibility", &f.visibility)?,
                interactive: match f.interactive.as_deref() {
                    None => true,
                    Some("no") => false,
                    Some(_) => {
                        return Err(TrailerError::BadField {
                            key: "Lore-Interactive",
                            why: "the only value is no".into(),
                        })
                    }
                },
            },
            Action::Unconfirm => Event::Unconfirm {
                step: f.need_step()?,
            },
            Action::Pass => Event::Pass {
                step: f.need_step()?,
                reason: f.reason,
            },
            Action::Judge if f.pool.is_some() => f.rejudge()?,
            Action::Judge => Event::Judge {
                step: f.need_step()?,
                visibility: f.optional("Lore-Visibility", &f.visibility)?,
                ruling: Box::new(Ruling {
                    score: f.score()?,
                    rubric: f.rubric,
                    gate: f.gate,
                    reason: f.reason.ok_or(TrailerError::Missing("Lore-Reason"))?,
                    judges: f.judges,
                }),
                model: f.model,
            },
            Action::Promote if f.from.is_some() => Event::Stamp {
                step: f.need_step()?,
                visibility: f.optional("Lore-Visibility", &f.visibility)?,
                pool: f.optional("Lore-Pool", &f.pool)?,
            },
            Action::Promote => Event::Promote {
                lesson: f.need_lesson()?,
                artifact: f.need_artifact()?,
                visibility: f.parsed("Lore-Visibility", &f.visibility)?,
                pool: f.parsed("Lore-Pool", &f.pool)?,
            },
            Action::Config => Event::Config {
                topic: f.parsed("Lore-Reason", &f.reason)?,
            },
            Action::Retract => {
                if f.status.as_deref() != Some(LessonStatus::Retracted.as_str()) {
                    return Err(TrailerError::BadField {
                        key: "Lore-Status",
                        why: "a retraction leaves the entry retracted".into(),
                    });
                }
                Event::Retract {
                    lesson: f.need_lesson()?,
                    from: f.parsed("Lore-From", &f.from)?,
                    pool: f.parsed("Lore-Pool", &f.pool)?,
                    reason: f.need("Lore-Reason", &f.reason)?,
                }
            }
            Action::Sync => Event::Sync {
                pool: f.parsed("Lore-Pool", &f.pool)?,
                resolved: f.targets.clone(),
            },
            Action::Supersede => {
                if f.from.as_deref() != Some(LessonStatus::Active.as_str())
                    || f.status.as_deref() != Some(LessonStatus::Superseded.as_str())
                {
                    return Err(TrailerError::BadField {
                        key: "Lore-Status",
                        why: "a supersede moves an entry from active to superseded".into(),
                    });
                }
                Event::Supersede {
                    lesson: f.need_lesson()?,
                    by: f.one_target()?,
                    surface: f.need("Lore-Surface", &f.surface)?,
                    model: f.need("Lore-Model", &f.model)?,
                }
            }
            Action::Merge => Event::Merge {
                lesson: f.need_lesson()?,
                sources: f.some_targets()?,
                surface: f.need("Lore-Surface", &f.surface)?,
                model: f.need("Lore-Model", &f.model)?,
            },
            Action::Refine => Event::Refine {
                lesson: f.need_lesson()?,
                targets: f.some_targets()?,
                surface: f.need("Lore-Surface", &f.surface)?,
                model: f.need("Lore-Model", &f.model)?,
            },
            Action::Contradict => Event::Contradict {
                lesson: f.need_lesson()?,
                by: f.one_target()?,
                surface: f.need("Lore-Surface", &f.surface)?,
                model: f.need("Lore-Model", &f.model)?,
            },
            Action::Relate => Event::Relate {
                lesson: f.need_lesson()?,
                targets: f.targets.clone(),
                model: f.need("Lore-Model", &f.model)?,
            },
            other => return Err(TrailerError::Unsupported(other.as_str())),
        })
    }
}

/// The `Lore-*` fields of one commit, untyped: the shape of the trailer
/// block, shared by both directions of the conversion.
#[derive(Default)]
struct Fields {
    action: Option<Action>,
    lesson: Option<Id>,
    artifact: Option<Id>,
    from: Option<String>,
    status: Option<String>,
    visibility: Option<String>,
    interactive: Option<String>,
    pool: Option<String>,
    rubric: Option<String>,
    gate: Option<String>,
    score: Option<String>,
    reason: Option<String>,
    model: Option<String>,
    replaces: Option<String>,

    surface: Option<String>,
    targets: Vec<Id>,
    judges: Vec<String>,
}

/// Single-valued keys, in the order they are written.
const SINGLE: [&str; 16] = [
    "Lore-Lesson",
    "Lore-Artifact",
    "Lore-From",
    "Lore-Status",
    "Lore-Visibility",
    "Lore-Interactive",
    "Lore-Pool",
    "Lore-Rubric",
    "Lore-Gate",
    "Lore-Score",
    "Lore-Reason",
    "Lore-Model",
    "Lore-Replaces",
    "Lore-Surface",
    "Lore-Target",
    "Lore-Judge",
];

impl Fields {
    fn step(&mut self, s: &Step) {
        self.lesson = Some(s.lesson);
        self.artifact = Some(s.artifact);
        self.from = Some(s.from.as_str().into());
        self.status = Some(s.to.as_str().into());
    }

    fn render(self, action: Action) -> Result<Vec<Trailer>, TrailerError> {
        let mut out = vec![
            Trailer::new("Lore-Format", FORMAT)?,
            Trailer::new("Lore-Action", action.as_str())?,
        ];
        let single = [
            self.lesson.map(|i| i.to_string()),
            self.artifact.map(|i| i.to_string()),
            self.from,
            self.status,
            self.visibility,
            self.interactive,
            self.pool,
            self.rubric,
            self.gate,
            self.score,
            self.reason,
            self.model,
            self.replaces,
            self.surface,
        ];
        for (key, value) in SINGLE.iter().zip(single) {
            if let Some(v) = value {
                out.push(Trailer::new(key, &v)?);
            }
        }
        for t in &self.targets {
            out.push(Trailer::new("Lore-Target", &t.to_string())?);
        }
        for j in &self.judges {
            out.push(Trailer::new("Lore-Judge", j)?);
        }
        Ok(out)
    }

    fn parse(lines: &[Trailer]) -> Result<Fields, TrailerError> {
        let get = |k: &str| lines.iter().find(|t| t.key.eq_ignore_ascii_case(k));
        let format = get("Lore-Format").ok_or(TrailerError::Missing("Lore-Format"))?;
        let major = format.value.split('.').next().unwrap_or("");
        if major != FORMAT {
            return Err(TrailerError::UnsupportedFormat(format.value.clone()));
        }
        let action = get("Lore-Action").ok_or(TrailerError::Missing("Lore-Action"))?;
        let action: Action = action
            .value
            .parse()
            .map_err(|_| TrailerError::UnknownAction(action.value.clone()))?;
        let id = |key: &'static str| -> Result<Option<Id>, TrailerError> {
            get(key)
                .map(|t| {
                    t.value.parse().map_err(|_| TrailerError::BadId {
                        key: key.to_owned(),
                        value: t.value.clone(),
                    })
                })
                .transpose()
        };
        let s = |k: &str| get(k).map(|t| t.value.clone());
        let mut f = Fields {
            action: Some(action),
            lesson: id("Lore-Lesson")?,
            artifact: id("Lore-Artifact")?,
            from: s("Lore-From"),
            status: s("Lore-Status"),
            visibility: s("Lore-Visibility"),
            interactive: s("Lore-Interactive"),
            pool: s("Lore-Pool"),
            rubric: s("Lore-Rubric"),
            gate: s("Lore-Gate"),
            score: s("Lore-Score"),
            reason: s("Lore-Reason"),
            model: s("Lore-Model"),
            replaces: s("Lore-Replaces"),

            surface: s("Lore-Surface"),
            ..Fields::default()
        };
        for t in lines {
            if t.key.eq_ignore_ascii_case("Lore-Judge") {
                f.judges.push(t.value.clone());
            } else if t.key.eq_ignore_ascii_case("Lore-Target") {
                f.targets
                    .push(t.value.parse().map_err(|_| TrailerError::BadId {
                        key: "Lore-Target".into(),
                        value: t.value.clone(),
                    })?);
            }
        }
        Ok(f)
    }

    fn score(&self) -> Result<Option<f64>, TrailerError> {
        match &self.score {
            None => Ok(None),
            Some(s) => Ok(Some(
                s.parse::<f64>()
                    .ok()
                    .filter(|x| x.is_finite())
                    .ok_or_else(|| TrailerError::BadField {
                        key: "Lore-Score",
                        why: format!("{s:?} is not a number"),
                    })?,
            )),
        }
    }

    /// A `judge` on a pool: the jury judged a contradicted entry again.
    /// Only `active → refuted` or `active → active` (upheld), and only as a
    /// jury ruling (rubric, gate, score, a judge).
    fn rejudge(&self) -> Result<Event, TrailerError> {
        let refuted =
            match (self.from.as_deref(), self.status.as_deref()) {
                (Some("active"), Some("refuted")) => true,
                (Some("active"), Some("active")) => false,
                _ => return Err(TrailerError::BadField {
                    key: "Lore-Status",
                    why: "the jury moves a pool entry from active to refuted, or upholds it active"
                        .into(),
                }),
            };
        if self.judges.is_empty() {
            return Err(TrailerError::Missing("Lore-Judge"));
        }
        Ok(Event::Rejudge {
            lesson: self.need_lesson()?,
            pool: self.parsed("Lore-Pool", &self.pool)?,
            refuted,
            ruling: Box::new(Ruling {
                rubric: Some(self.need("Lore-Rubric", &self.rubric)?),
                gate: Some(self.need("Lore-Gate", &self.gate)?),
                score: Some(self.score()?.ok_or(TrailerError::Missing("Lore-Score"))?),
                reason: self.need("Lore-Reason", &self.reason)?,
                judges: self.judges.clone(),
            }),
            model: self.model.clone(),
        })
    }

    fn replaces(&self) -> Result<Option<CommitRef>, TrailerError> {
        self.replaces
            .as_deref()
            .map(|v| {
                CommitRef::parse(v).ok_or(TrailerError::BadField {
                    key: "Lore-Replaces",
                    why: "not a full commit id".into(),
                })
            })
            .transpose()
    }

    fn need_lesson(&self) -> Result<Id, TrailerError> {
        self.lesson.ok_or(TrailerError::Missing("Lore-Lesson"))
    }

    fn need(&self, key: &'static str, value: &Option<String>) -> Result<String, TrailerError> {
        value.clone().ok_or(TrailerError::Missing(key))
    }

    /// Exactly one `Lore-Target`.
    fn one_target(&self) -> Result<Id, TrailerError> {
        match self.targets.as_slice() {
            [one] => Ok(*one),
            [] => Err(TrailerError::Missing("Lore-Target")),
            _ => Err(TrailerError::BadField {
                key: "Lore-Target",
                why: "this action names exactly one other lesson".into(),
            }),
        }
    }

    /// One or more `Lore-Target`s, none twice.
    fn some_targets(&self) -> Result<Vec<Id>, TrailerError> {
        if self.targets.is_empty() {
            return Err(TrailerError::Missing("Lore-Target"));
        }
        let mut seen = std::collections::BTreeSet::new();
        if !self.targets.iter().all(|t| seen.insert(*t)) {
            return Err(TrailerError::BadField {
                key: "Lore-Target",
                why: "a lesson is named twice".into(),
            });
        }
        Ok(self.targets.clone())
    }

    fn need_artifact(&self) -> Result<Id, TrailerError> {
        self.artifact.ok_or(TrailerError::Missing("Lore-Artifact"))
    }

    fn need_step(&self) -> Result<Step, TrailerError> {
        Ok(Step {
            lesson: self.need_lesson()?,
            artifact: self.need_artifact()?,
            from: self.parsed("Lore-From", &self.from)?,
            to: self.parsed("Lore-Status", &self.status)?,
        })
    }

    fn optional<T: std::str::FromStr>(
        &self,
        key: &'static str,
        value: &Option<String>,
    ) -> Result<Option<T>, TrailerError>
    where
        T::Err: std::fmt::Display,
    {
        value
            .as_deref()
            .map(|v| {
                v.parse().map_err(|e: T::Err| TrailerError::BadField {
                    key,
                    why: e.to_string(),
                })
            })
            .transpose()
    }

    fn parsed<T: std::str::FromStr>(
        &self,
        key: &'static str,
        value: &Option<String>,
    ) -> Result<T, TrailerError>
    where
        T::Err: std::fmt::Display,
    {
        self.optional(key, value)?.ok_or(TrailerError::Missing(key))
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
        assert!(matches!(
            Event::from_trailers(&lines(&bad)),
            Err(TrailerError::BadField {
                key: "Lore-Visibility",
                ..
            })
        ));
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
}
