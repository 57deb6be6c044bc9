//! Versions and version ranges: the range language lessons are scoped with
//! (`applies_to.scope.versions`), typed, with matching of installed versions.
//!
//! Ingest validates ranges with it and recall matches installed packages
//! against it, so it lives on its own rather than inside either. It is pure:
//! no I/O, no schema access.

pub mod range;

pub use range::{Range, RangeError, Version};
