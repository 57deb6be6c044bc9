//! The one integration-test binary. Every test runs the real `git-lore`
//! binary and the real `git` and `ssh-keygen` in a hermetic environment:
//! a temporary HOME, no system or global git config, a fixed clock, and stub
//! programs in place of models.

mod capture;
mod codex;
mod common;
mod core;
mod edit;
mod hooks;
mod host_maintenance;
mod ingest;
mod mcp;
mod pools;
mod recall;
mod relate;
mod review;
mod search;
mod servers;
mod setup;
mod tour;
mod trust;
