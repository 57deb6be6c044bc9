//! The content policy under fuzzing: the record rules and the text table (see fuzz/README.md).
#![no_main]
git_lore_fuzz::target!(|data| git_lore_fuzz::content(data));
