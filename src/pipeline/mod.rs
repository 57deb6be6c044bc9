//! Ingest, the pure part: how a session artifact becomes a lesson candidate,
//! a decline, or nothing.
//!
//! ```text
//! bytes ──input──► Artifact ──pregate──► (skip: no version token)
//! commits ─commits─┘    │
//!                       └─ model answer (command backend, or offline) ─┐
//!                                                                       ▼
//!     transform::decide: parse ─► stitch provenance ─► validate ─► Determination
//!                        (Propose | Decline{reason}); an outage never gets here
//! ```
//!
//! - [`capture`]: artifacts from a coding agent's session transcript, with
//!   content-addressed ids (the offline backend, the command backend's
//!   prompt and the strict reading of its answer).
//! - [`input`]: artifacts from JSON, JSON arrays and JSON Lines, per-item errors.
//! - [`commits`]: artifacts from a project's commits, with content-addressed ids.
//! - [`pregate`]: the version-token regex that spares the model artifacts
//!   that name no version.
//! - [`transform`]: the prompt, reading a model's answer, provenance, the
//!   failure taxonomy (verdict vs outage).
//! - [`offline_transform`]: the deterministic, network-free transform backend.
//! - [`validate`]: the model-side and human-side candidate validators and the
//!   cross-field rules.
//!
//! Everything here is pure logic over typed data. It never prints, reads the
//! environment, the clock or randomness, and never touches git: running the
//! model program is `crate::process`, recording outcomes and idempotency are
//! the store's. Each module has its own error type.

pub mod capture;
pub mod commits;
pub mod input;
pub mod offline_transform;
pub mod pregate;
pub mod transform;
pub mod validate;

pub use commits::{artifacts_from_commit, CommitError, MinedCommit};
pub use input::{read_artifacts, InputError, Item};
pub use transform::{decide, render_prompt, Determination, Response};
pub use validate::{validate_candidate, validate_confirmed, validate_confirmed_as_held, Invalid};
