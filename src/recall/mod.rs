//! Recall: which lessons hold for the versions a project has installed.
//!
//! - [`stack`] finds what is installed (lockfiles, manifests, `--stack`
//!   overrides);
//! - [`select`] decides, per lesson, whether it applies, does not, or
//!   cannot be decided, and orders the ones that apply;
//! - [`render`] turns a selection into text, JSON or a budgeted markdown
//!   block; [`export`] into an AGENTS.md section, Cursor rules or upstream
//!   pool batches.
//!
//! Everything here but [`stack::scan`] (which reads the project's files) is
//! pure. Nothing here reads the lesson store, prints, or reads the
//! environment or the clock.

pub mod export;
pub mod moments;
pub mod render;
pub mod select;
pub mod stack;
/// Moved below the store ([`crate::summary`]); the old path stays for
/// callers.
pub use crate::summary;

use std::collections::BTreeMap;

use crate::model::Id;

/// The refinement links of a lesson its pool records (relation judgment's
/// `refine`): both lessons stay active, and recall shows the link.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Refinements {
    /// The lessons this one refines.
    pub refines: Vec<Id>,
    /// The lessons that refine this one.
    pub refined_by: Vec<Id>,
}

/// Refinement links by lesson, for the lessons being shown.
pub type Links = BTreeMap<Id, Refinements>;

#[cfg(test)]
mod tests {
    /// A summary keeps one character more than output shows, so that
    /// output can tell a cut field.
    #[test]
    fn a_summary_keeps_what_output_shows() {
        assert_eq!(
            crate::summary::KEPT_CHARS,
            super::render::MAX_FIELD_CHARS + 1
        );
    }
}
