//! An agent's report of a moment, proposed: what the MCP server's
//! `propose` tool does.
//!
//! The report becomes an artifact ([`crate::pipeline::capture::report`]:
//! bounds, hidden text refused, secrets redacted, a content-addressed id)
//! and goes through [`super::ingest`] like every other artifact: seen,
//! pre-gate, the configured transform (the offline backend or a model),
//! validation, one signed `propose` or `decline` commit on the ledger. So
//! it is only ever a *pending proposal*: nothing an agent reports reaches a
//! pool, or any recall, until a person confirms it and the jury approves
//! it.
//!
//! It never prints and reads no environment, clock or randomness beyond
//! what [`Lore`] carries.

use std::path::Path;

use super::backend::{Backend, Role};
use super::ingest::{self, Outcome};
use super::{Lore, LoreError};
use crate::model::Id;
use crate::pipeline::capture::report::{self, Origin, Report, ReportError};
use crate::pipeline::Item;
use crate::scanner::FindingKind;

/// Where an ingest outcome says the item came from.
pub const SOURCE: &str = "mcp:propose";

/// What came of a report.
#[derive(Clone, Debug, PartialEq)]
pub struct Proposed {
    /// The artifact the report became.
    pub artifact: Id,
    /// What ingest did with it.
    pub outcome: Outcome,
    /// The kinds of the findings redacted from it.
    pub redacted: Vec<FindingKind>,
    /// How many facts were read from it.
    pub facts: usize,
}

/// Why a report was not proposed. Nothing was written.
#[derive(Debug, thiserror::Error)]
pub enum ProposeError {
    /// The report itself cannot be an artifact.
    #[error("the report was refused")]
    Report(#[source] ReportError),
    /// The lesson repository, its configuration or its history said no.
    #[error(transparent)]
    Lore(#[from] LoreError),
    /// Ingest ended without an outcome for the one item it was given (a
    /// bug: it tells every item's).
    #[error("ingest told no outcome for the report; nothing is known to be written: run `git lore seen` on the artifact")]
    Untold,
}

/// Proposes `report`, made in the project at `project`, through the
/// configured transform ([`Role::Transform`]).
pub fn propose(lore: &mut Lore, report: &Report, project: &Path) -> Result<Proposed, ProposeError> {
    let key = super::capture::project_key(project);
    let dir = std::path::absolute(project).ok();
    let dir = dir.as_deref().and_then(Path::to_str);
    let built = report::build(
        report,
        &Origin {
            project_key: &key,
            project_dir: dir,
            at: lore.env.now,
        },
    )
    .map_err(ProposeError::Report)?;
    let artifact = built.artifact.id;
    let facts = built.artifact.facts.len();
    let backend = Backend::from_config(lore, Role::Transform, None)?;
    let mut outcome = None;
    let item = Item {
        source: SOURCE.into(),
        artifact: Ok(built.artifact),
    };
    let run = ingest::ingest(lore, [item], &backend, &mut |o, _| {
        outcome = Some(o.clone());
    })?;
    if let Some(e) = run.error {
        return Err(e.into());
    }
    let outcome = outcome.ok_or(ProposeError::Untold)?;
    Ok(Proposed {
        artifact,
        outcome,
        redacted: built.redacted,
        facts,
    })
}
