//! Versions and version ranges: the range language lessons are scoped with
//! (`applies_to.scope.versions`), typed, and matching of the versions a
//! project has installed against it, by each ecosystem's own rules.
//!
//! Ingest validates ranges with [`range`] and recall matches installed
//! packages with [`match_version`], so both live here rather than inside
//! either. What this module owns:
//!
//! - [`range`]: the grammar (`<V`, `<=V`, `=V`, `>V`, `>=V`, `>=A <B`) and
//!   its ingest-time checks. Its [`Range::matches`] compares zero-padded
//!   numbers (`=6` is exactly `6.0.0`); recall does not use it.
//! - [`Ecosystem`] and per-ecosystem package-name normalisation
//!   ([`Ecosystem::normalize_name`], [`split_key`]).
//! - [`match_version`]: the three-outcome comparison recall uses
//!   ([`Match`]), with partial versions read as prefixes (`=6` is any
//!   `6.x.y`) and each ecosystem's own version syntax, ordering and
//!   pre-release rule (see `docs/recall.md`).
//! - [`Range::intersects`] and [`Range::is_satisfiable`]: whether two
//!   lessons' ranges can both hold for one version, under the same reading.
//!
//! It is pure: no I/O, no schema access, no clock. It does not know
//! lockfiles (`crate::recall::stack`) or lessons (`crate::recall::select`).

pub(crate) mod declared;
mod ecosystem;
mod interval;
mod matching;
mod parse;
pub mod range;

pub use ecosystem::{coarse_name, normalize_generic, split_key, Ecosystem, EcosystemError};
pub use matching::{match_generic, match_version, Match};
pub use range::{Range, RangeError, Version};

pub(crate) use interval::{End, Interval, Point};
pub(crate) use matching::{decide, read_generic};
pub(crate) use parse::{read, Reading};
