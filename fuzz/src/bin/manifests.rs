//! The workspace-member manifests under fuzzing (see fuzz/README.md).
#![no_main]
git_lore_fuzz::target!(|data| git_lore_fuzz::manifest(data));
