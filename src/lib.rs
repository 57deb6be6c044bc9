//! git-lore keeps lessons — durable, version-scoped engineering knowledge
//! distilled from coding-session artifacts — in a dedicated git repository.
//!
//! Each lesson is a JSON file; every status change and every verdict is a
//! signed commit with structured `Lore-*` trailers; `git log` is the audit
//! trail. See `docs/ARCHITECTURE.md` for the map of this crate.
//!
//! The library never prints and never reads the process environment, the
//! clock or randomness directly: callers pass them in.

pub mod answer;
pub mod cause;
pub mod content;
pub mod event;
pub mod facts;
pub mod memory;
pub mod model;
pub mod names;
pub mod ops;
pub mod pipeline;
pub mod process;
pub mod recall;
pub mod review;
pub mod scanner;
pub mod schema;
pub mod search;
pub mod signing;
pub mod store;
pub mod summary;
pub mod template;
pub mod trailers;
pub mod version;
