//! UvLock under fuzzing (see fuzz/README.md).
#![no_main]
git_lore_fuzz::target!(|data| git_lore_fuzz::lockfile(
    git_lore::recall::stack::Format::UvLock,
    data
));
