//! The content policy: what text may reach a terminal or a JSON reader,
//! and what a record may hold when it crosses a door.
//!
//! - [`text`]: the one table of characters ([`text::class`]: text, line
//!   feed, tab, control, line or paragraph separator, bidirectional
//!   control, invisible), and how each output shows them: escaped for a
//!   terminal ([`text::terminal`]), dropped from one-line prose
//!   ([`text::is_shown`]), `\uXXXX` in JSON ([`text::json`]).
//! - [`record`]: the record policy every door applies (ingest to a
//!   candidate; `verify`, `sync`, the host's pre-receive check and `verify
//!   --pool` to each entry a commit writes): file modes, paths, a
//!   per-record and a per-field size cap, and which characters the text of
//!   a lesson may hold. A refusal is a [`record::Violation`] that names its
//!   [`record::Rule`].
//!
//! Pure: nothing here reads git, files, the clock or the environment, and
//! nothing prints. It does not decide what a record means (schemas:
//! `crate::schema`; which files an action may touch: `crate::event`), nor
//! find secrets (`crate::review::disclosure`).

pub mod record;
pub mod text;
