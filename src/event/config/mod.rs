//! `init` and `config`: the repository's first commit, and the files under
//! `.lore/` — the ledger's rubrics, and who may sign a pool ([`signers`]).
//!
//! Each action whole: its trailers (`config` names what changed in
//! `Lore-Reason`), its rule, and its check. `init` is only the ledger's
//! first commit and changes nothing; only `config` commits change `.lore/`.
//! Neither teaches the index anything. That `.lore/rubrics.json` is a valid
//! rubrics file is checked with every record's validity, by the audit.

pub mod signers;

use super::check::{Commit, Name, Repo, Side};
use super::fields::Fields;
use super::{Event, Op, PathKind, Root, Rule};
use crate::names::string_enum;
use crate::trailers::{Action, TrailerError};

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

/// The rubrics file on the ledger (a `config rubrics` commit changes it).
pub const RUBRICS: &str = ".lore/rubrics.json";

pub(super) fn action(e: &Event) -> Action {
    match e {
        Event::Init => Action::Init,
        Event::Config { .. } => Action::Config,
        _ => unreachable!("{e:?} is not a config event"),
    }
}

pub(super) fn write(e: &Event, f: &mut Fields) {
    if let Event::Config { topic } = e {
        f.reason = Some(topic.as_str().into());
    }
}

pub(super) fn read(f: &Fields) -> Option<Result<Event, TrailerError>> {
    Some(match f.action() {
        Action::Init => Ok(Event::Init),
        Action::Config => f
            .parsed("Lore-Reason", &f.reason)
            .map(|topic| Event::Config { topic }),
        _ => return None,
    })
}

pub(super) fn rule(e: &Event) -> Rule {
    use super::On::*;
    let (on, root, touches): (_, _, &'static [(PathKind, Op)]) = match e {
        Event::Init => (Ledger, Root::Only, &[]),
        Event::Config { topic } => match topic {
            ConfigTopic::Rubrics => (Ledger, Root::Never, &[(PathKind::Config, Op::Any)]),
            ConfigTopic::Signers => (Pool, Root::Allowed, &[(PathKind::Config, Op::Any)]),
            ConfigTopic::SignersPropose | ConfigTopic::SignersAck => {
                (Pool, Root::Never, &[(PathKind::Config, Op::Any)])
            }
        },
        _ => unreachable!("{e:?} is not a config event"),
    };
    Rule { on, root, touches }
}

pub(super) fn check<R: Repo>(e: &Event, c: &Commit<'_, R>) -> Result<Vec<String>, R::Error> {
    let Event::Config { topic } = e else {
        return Ok(Vec::new());
    };
    let mut problems = Vec::new();
    let changed = c.all(PathKind::Config).map(|r| r.path.as_str());
    if *topic == ConfigTopic::Rubrics {
        for path in changed.filter(|p| *p != RUBRICS) {
            problems.push(format!(
                "config rubrics may change only {RUBRICS}; it changed {path}"
            ));
        }
        if c.repo
            .read(Side::After, &Name::Config(RUBRICS.into()))?
            .is_none()
        {
            problems.push(format!("config rubrics: {RUBRICS} is missing"));
        }
        return Ok(problems);
    }
    let Some(tier) = c.pool else {
        return Ok(problems); // the rule check said it does not belong here
    };
    for path in changed.filter(|p| !signers::FILES.contains(p)) {
        problems.push(format!(
            "config {topic} may change only the signer files under .lore/; it changed {path}"
        ));
    }
    let before = signer_files(c.repo, Side::Before)?;
    let after = signer_files(c.repo, Side::After)?;
    problems.extend(signers::check(
        tier, *topic, &before, &after, c.signer, c.root,
    ));
    Ok(problems)
}

/// The signer files of a pool at one side of a commit.
fn signer_files<R: Repo>(repo: &R, side: Side) -> Result<signers::State, R::Error> {
    let read = |path: &str| -> Result<Option<String>, R::Error> {
        Ok(repo
            .read(side, &Name::Config(path.into()))?
            .map(|b| String::from_utf8_lossy(&b).into_owned()))
    };
    Ok(signers::State {
        allowed: read(signers::ALLOWED)?,
        threshold: read(signers::THRESHOLD)?,
        proposed: read(signers::PROPOSED)?,
        proposed_threshold: read(signers::PROPOSED_THRESHOLD)?,
        acks: read(signers::ACKS)?,
    })
}
