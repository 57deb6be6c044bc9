//! Relation judgment: how a newly promoted lesson relates to the live lessons
//! of its pool, decided fail-closed, as pure logic over typed data.
//!
//! The flow, one function per step:
//! 1. [`neighbour_pool`]: the neighbours that can both hold with the
//!    candidate (stacks overlap, version scopes intersect, by
//!    [`Range::intersects`](crate::version::Range::intersects)), ranked by
//!    IDF-weighted Dice, capped; exact duplicates found without a model.
//! 2. [`JudgmentInput`]: what the judge is shown (`candidate`, `neighbours`,
//!    `corpus_fingerprint`, `surface_hint`, `decisions_allowed`,
//!    `output_contract`), and [`render_prompt`] from `templates/relate.md`.
//! 3. A judge answers: a model through the caller's model path, or
//!    [`offline_verdict`].
//! 4. [`parse_verdict`]: the only way to a [`ValidBatch`]; one violation
//!    voids the whole batch, and a void has no decisions.
//! 5. [`plan_effects`]: every effect resolved and every record built before
//!    anything is written; one [`Effect`] per future commit.
//!
//! Module map:
//! - [`neighbours`]: the structural filter, ranking and exact duplicates;
//! - [`fingerprint`]: the corpus fingerprint `{ids, count, digest}`;
//! - [`input`]: the judgment input, the surface hint, the output contract,
//!   the prompt;
//! - [`verdict`]: the parser, the six decisions, the eight failure modes,
//!   telemetry;
//! - [`records`]: the records written into a pool and their paths;
//! - [`effects`]: effect planning and the contradiction threshold;
//! - [`offline`]: the deterministic offline judge.
//!
//! Nothing here reads the clock, the environment or randomness, touches
//! git, calls a model or prints: callers pass `now`, run the judge, and
//! commit the planned effects.

pub mod effects;
pub mod fingerprint;
pub mod input;
pub mod neighbours;
pub mod offline;
pub mod records;
pub mod verdict;

#[cfg(test)]
pub(crate) mod testutil;

#[cfg(test)]
mod gold;

pub use effects::{
    contradictions, contradictions_past_threshold, plan_effects, ChangeKind, Contradiction, Effect,
    EffectError, FileChange, PlanContext, Transition, DEFAULT_CONTRADICTION_THRESHOLD,
};
pub use fingerprint::CorpusFingerprint;
pub use input::{render_prompt, InputError, JudgmentInput, OUTPUT_CONTRACT, SURFACE_HINT};
pub use neighbours::{
    neighbour_pool, neighbour_pool_in, Neighbour, NeighbourConfig, NeighbourError, NeighbourPool,
    PoolTokens,
};
pub use offline::{offline_verdict, OFFLINE_MODEL};
pub use records::{CounterObservation, RelatedRecord, RelationRecord};
pub use verdict::{
    parse_verdict, Decision, DecisionKind, FailureMode, Parsed, RawVerdict, Telemetry, ValidBatch,
    VoidReason,
};

/// The default wall-clock budget of a relation judge call, in seconds
/// (`lore.relate.timeout`). A stuck judge must never hold a hook.
pub const DEFAULT_JUDGE_TIMEOUT_SECS: u64 = 60;
