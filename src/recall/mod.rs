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
pub mod render;
pub mod select;
pub mod stack;
pub mod summary;
