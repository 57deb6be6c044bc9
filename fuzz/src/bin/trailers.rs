//! The trailer parser and the reading of an event under fuzzing (see fuzz/README.md).
#![no_main]
git_lore_fuzz::target!(|data| git_lore_fuzz::trailers(data));
