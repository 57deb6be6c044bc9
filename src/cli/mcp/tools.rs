//! The MCP server's four tools, synchronous: each takes its input (typed
//! and described for the tool's input schema), calls the library the way
//! the command of the same name does, and answers in text of at most
//! [`BUDGET`] characters — or says why not, as a [`ToolError`].
//!
//! - `recall`: the lessons that hold for a project directory and/or an
//!   explicit stack, as the session-start hook renders them (markdown) or
//!   as `git lore recall --format json`.
//! - `search`: `git lore search` over the pools ([`lore_search`]).
//! - `show`: one lesson, whole or by a unique prefix of its id.
//! - `propose`: an agent's report of a moment, ingested as an artifact:
//!   only ever a pending proposal ([`git_lore::ops::propose`]).
//!
//! Text from lessons, models and the agent itself is hostile: answers show
//! it the way recall shows it ([`render::plain`], [`render::markdown_inline`]:
//! one line a field, control, bidi and invisible characters dropped) or
//! as JSON whose every such character is escaped. Nothing here runs on the
//! async runtime or prints: `super` runs each call on a blocking thread
//! and hands the answer to the client.

use std::path::{Path, PathBuf};

use rmcp::schemars::{self, JsonSchema};
use serde::Deserialize;

use super::super::ui::Ctx;
use git_lore::model::{Id, IdPrefix, Lesson, Proposal, Scope};
use git_lore::ops::ingest::{Outcome, Skip};
use git_lore::ops::propose::{self, ProposeError};
use git_lore::ops::recall::{self as gather, Depth};
use git_lore::ops::search::{self as lore_search, Hit};
use git_lore::ops::{query, trust, Lore, LoreError};
use git_lore::pipeline::capture::report::Report;
use git_lore::pipeline::capture::Kind;
use git_lore::recall::render::{self, budget_len, plain};

use super::fit::{bounded, fit_json};
use git_lore::recall::select;
use git_lore::recall::stack::{self, OverrideError};
use git_lore::store::ArtifactOutcome;

/// The most characters (UTF-16 code units, [`budget_len`]) of any answer:
/// recall's markdown budget, under the 10,000 at which agent harnesses
/// cut a tool's or a hook's output.
pub const BUDGET: usize = render::DEFAULT_BUDGET;

/// The smallest budget `recall` takes: room for the heading and a lesson.
pub const MIN_BUDGET: usize = 500;

/// The most `stack` entries one recall names.
pub const MAX_STACK: usize = 200;

/// The longest search query, in characters.
pub const MAX_QUERY_CHARS: usize = 200;

/// The most hits a search answers with.
pub const MAX_HITS: usize = 50;

/// Why a tool gives no answer. Each is said to the agent as the tool's
/// error: a sentence that names what was wrong and what to do.
#[derive(Debug, thiserror::Error)]
pub enum ToolError {
    #[error("there is no lesson repository at {0}: a person creates one with `git lore init`")]
    NoRepository(PathBuf),
    #[error(
        "project {0} is not a directory: give the project's directory, absolute or relative to {1}"
    )]
    NoProject(String, String),
    #[error("{count} stack entries, over the limit of {limit}")]
    StackTooLong { count: usize, limit: usize },
    #[error("stack entry {index}")]
    Stack {
        index: usize,
        #[source]
        source: OverrideError,
    },
    #[error("budget {got} is outside {min}..={max}")]
    Budget { got: usize, min: usize, max: usize },
    #[error("{why}: give a lesson id or a unique prefix of 4 or more of its characters, as recall and search print them")]
    Id { why: git_lore::model::ModelError },
    #[error("{0} is an artifact, not a lesson; it became lesson {1}: show {1}")]
    Artifact(Id, Id),
    #[error("{0} is an artifact, not a lesson; it was declined and became none")]
    DeclinedArtifact(Id),
    #[error("lesson {0} was changed by a commit that does not verify; it is not shown to agents until a person checks it (`git lore verify`)")]
    Untrusted(Id),
    #[error("the query is empty or over {MAX_QUERY_CHARS} characters: give a few words")]
    Query,
    #[error("limit {0} is outside 1..={MAX_HITS}")]
    Limit(usize),
    #[error("propose writes nothing under GIT_LORE_HOOK_ACTIVE: this server was started by a model git-lore itself runs")]
    Quiet,
    #[error("the model gave no answer about artifact {artifact}: {why}; nothing was written, and the same call may be made again later")]
    Untouched { artifact: Id, why: String },
    #[error("the report made an artifact ingest refused: {0}")]
    Invalid(String),
    #[error(transparent)]
    Propose(#[from] ProposeError),
    #[error(transparent)]
    Lore(#[from] LoreError),
}

/// What `recall` answers in.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum RecallFormat {
    /// A markdown list, as the session-start hook hands an agent.
    #[default]
    Markdown,
    /// `git lore recall --format json` (`git-lore.recall/1`).
    Json,
}

/// The input of `recall`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RecallInput {
    /// The project directory whose lockfiles are read (package-lock.json,
    /// pnpm-lock.yaml, yarn.lock, bun.lock, Cargo.lock, uv.lock,
    /// poetry.lock, requirements, go.mod, Gemfile.lock, composer.lock),
    /// absolute or relative to where the server runs. Default: where the
    /// server runs, unless `stack` is given.
    #[schemars(length(max = 4096))]
    pub project: Option<String>,
    /// Installed packages to recall for, added to the project's (or alone
    /// when no project is given): NAME@VERSION or ECOSYSTEM:NAME@VERSION,
    /// e.g. "vite@5.4.21", "pypi:requests@2.31.0", "cargo:serde@1.0.200".
    #[schemars(length(max = 200), inner(length(min = 3, max = 300)))]
    pub stack: Option<Vec<String>>,
    /// "markdown" (default) or "json".
    pub format: Option<RecallFormat>,
    /// The most characters to answer with (500 to 9000; default 9000).
    #[schemars(range(min = 500, max = 9000))]
    pub budget: Option<usize>,
}

/// The input of `search`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SearchInput {
    /// Words to find (all of them) in lessons' claims, rationales,
    /// resolutions and package names, e.g. "vitest module-runner".
    #[schemars(length(min = 1, max = 200))]
    pub query: String,
    /// The most lessons to list (1 to 50; default 10).
    #[schemars(range(min = 1, max = 50))]
    pub limit: Option<usize>,
}

/// The input of `show`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ShowInput {
    /// A lesson id (26 characters) or a unique prefix of 4 or more of its
    /// characters, in either case, as recall and search print it.
    #[schemars(length(min = 4, max = 26))]
    pub id: String,
}

/// What kind of moment a report is.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum MomentKind {
    /// A choice made and applied: a fix, a pin, an upgrade, a workaround.
    #[default]
    Decision,
    /// An approach tried that did not work, and why.
    DeadEnd,
    /// A problem left open.
    OpenQuestion,
}

/// The input of `propose`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ProposeInput {
    /// One sentence naming the packages and versions: "vitest 4.0.5 needs
    /// vite 6; pinned vitest to 3.2.4 on vite 5.4.21".
    #[schemars(length(min = 1, max = 240))]
    pub summary: String,
    /// The cause, the evidence and the fix, in a few sentences.
    #[schemars(length(max = 4000))]
    pub detail: Option<String>,
    /// "decision" (default: a fix, pin, upgrade or workaround applied),
    /// "dead_end" (tried, did not work) or "open_question".
    pub kind: Option<MomentKind>,
    /// Files it concerns, relative to the project (e.g. "package.json").
    #[schemars(length(max = 50), inner(length(min = 1, max = 512)))]
    pub files: Option<Vec<String>>,
    /// Output you saw, verbatim: the install or resolver error, the test
    /// run that passed after the fix. Up to 8 pieces of 20,000 characters.
    #[schemars(length(max = 8), inner(length(max = 20000)))]
    pub evidence: Option<Vec<String>>,
    /// The project directory the moment happened in (its git remote or
    /// path names the project), absolute or relative to where the server
    /// runs. Default: where the server runs.
    #[schemars(length(max = 4096))]
    pub project: Option<String>,
}

/// The server's settings for every call.
#[derive(Clone, Debug)]
pub struct Settings {
    /// The project a call names none of: `--project`, else where the
    /// server runs.
    pub project: PathBuf,
}

/// The lesson repository, or why there is none.
fn open(ctx: &Ctx) -> Result<Lore, ToolError> {
    if !ctx.repo.join("HEAD").exists() {
        return Err(ToolError::NoRepository(ctx.repo.clone()));
    }
    Ok(Lore::open(&ctx.repo, ctx.env.clone(), ctx.rng())?)
}

/// A project directory an input names, or the server's.
fn project_dir(given: Option<&str>, settings: &Settings) -> Result<PathBuf, ToolError> {
    let Some(p) = given else {
        return Ok(settings.project.clone());
    };
    let path = PathBuf::from(p);
    if !path.is_dir() {
        return Err(ToolError::NoProject(
            git_lore::content::text::terminal(p),
            std::env::current_dir()
                .map(|d| d.display().to_string())
                .unwrap_or_else(|_| "where the server runs".into()),
        ));
    }
    Ok(path)
}

/// `recall`: the lessons for a project and/or a stack.
pub fn recall(ctx: &Ctx, settings: &Settings, input: RecallInput) -> Result<String, ToolError> {
    let budget = input.budget.unwrap_or(BUDGET);
    if !(MIN_BUDGET..=BUDGET).contains(&budget) {
        return Err(ToolError::Budget {
            got: budget,
            min: MIN_BUDGET,
            max: BUDGET,
        });
    }
    let entries = input.stack.unwrap_or_default();
    if entries.len() > MAX_STACK {
        return Err(ToolError::StackTooLong {
            count: entries.len(),
            limit: MAX_STACK,
        });
    }
    let overrides = entries
        .iter()
        .enumerate()
        .map(|(i, s)| {
            stack::parse_override(s).map_err(|source| ToolError::Stack {
                index: i + 1,
                source,
            })
        })
        .collect::<Result<Vec<_>, _>>()?;
    // A stack alone recalls for those packages alone.
    let project = match (&input.project, overrides.is_empty()) {
        (None, false) => None,
        (given, _) => Some(project_dir(given.as_deref(), settings)?),
    };
    let lore = open(ctx)?;
    let standings = trust::review(&lore)?;
    let flagged = trust::flagged(&lore, &standings)?;
    let format = input.format.unwrap_or_default();
    let depth = match format {
        RecallFormat::Json => Depth::Full,
        RecallFormat::Markdown => Depth::Thin,
    };
    let g = gather_for(
        &lore,
        project.as_deref(),
        &overrides,
        depth,
        &flagged,
        false,
    )?;
    let sel = select::select(&g.lessons, &g.stack);
    let answer = match format {
        RecallFormat::Markdown => {
            let text = render::markdown(&sel, &g.links, budget);
            if text.is_empty() {
                let mut none = match &project {
                    Some(p) => format!(
                        "No lesson applies to the versions installed in {} ({} packages found).\n",
                        plain(&p.display().to_string(), 300),
                        g.stack.packages.len()
                    ),
                    None => "No lesson applies to the packages given.\n".to_owned(),
                };
                for p in &g.stack.problems {
                    none.push_str(&format!(
                        "Not read: {}: {}\n",
                        plain(&p.file, 300),
                        plain(&p.why, 300)
                    ));
                }
                none
            } else {
                text
            }
        }
        RecallFormat::Json => {
            // Never cut: cut JSON is no JSON.
            let mut doc = render::json(&sel, &g.stack, &g.links, false);
            return Ok(fit_json(&mut doc, budget));
        }
    };
    Ok(bounded(answer, budget))
}

/// Gathers for a project, or for the overrides alone when there is none
/// (with `all`, every lesson of every pool).
fn gather_for(
    lore: &Lore,
    project: Option<&Path>,
    overrides: &[stack::Override],
    depth: Depth,
    flagged: &std::collections::HashSet<Id>,
    all: bool,
) -> Result<gather::Gathered, LoreError> {
    gather::gather(lore, project, overrides, all, depth, flagged)
}

/// The search `search` runs: `git lore search`'s ([`lore_search`]), over
/// the pools only — a queued proposal is not a lesson to act on, and an
/// agent gets none from recall either — without lessons an unverified
/// commit touched: the best `limit`, and how many matched in all.
fn search_pools(lore: &Lore, query: &str, limit: usize) -> Result<(Vec<Hit>, usize), ToolError> {
    let standings = trust::review(lore)?;
    let flagged = trust::flagged(lore, &standings)?;
    let found = lore_search::search(
        lore,
        &lore_search::Request {
            text: query.to_owned(),
            pool: None,
            status: None,
            limit: None,
        },
    )?;
    let mut hits: Vec<Hit> = found
        .hits
        .into_iter()
        .filter(|h| h.place.pool().is_some() && !flagged.contains(&h.id))
        .collect();
    let matched = hits.len();
    hits.truncate(limit);
    Ok((hits, matched))
}

/// The list `search` answers with.
pub fn hits_markdown(query: &str, hits: &[Hit], matched: usize) -> String {
    if hits.is_empty() {
        return format!("No lesson holds the words of \"{}\".\n", plain(query, 200));
    }
    let mut out = format!(
        "{} of {matched} lessons matching \"{}\", best first (`show` prints one in full):\n\n",
        hits.len(),
        plain(query, 200)
    );
    for h in hits {
        let stack: Vec<String> = h
            .stack
            .iter()
            .map(|s| render::markdown_code(s, 80))
            .collect();
        out.push_str(&format!(
            "- {} ({}; {} {}; stack `{}`)\n",
            render::markdown_inline(&h.claim, render::MAX_FIELD_CHARS),
            h.id,
            h.place,
            h.status,
            stack.join(", ")
        ));
    }
    out
}

/// `search`: lessons by their words.
pub fn search(ctx: &Ctx, input: SearchInput) -> Result<String, ToolError> {
    let query = input.query.trim();
    if query.is_empty() || query.chars().count() > MAX_QUERY_CHARS {
        return Err(ToolError::Query);
    }
    let limit = input.limit.unwrap_or(10);
    if !(1..=MAX_HITS).contains(&limit) {
        return Err(ToolError::Limit(limit));
    }
    let lore = open(ctx)?;
    let (hits, matched) = search_pools(&lore, query, limit)?;
    Ok(fit_hits(query, &hits, matched, BUDGET))
}

/// The list of `hits` within `budget`, never cut inside a hit: the last
/// ones are left out whole, and a last line says how many. (A single hit
/// over the budget, with a stack of hundreds of packages, is cut.)
fn fit_hits(query: &str, hits: &[Hit], matched: usize, budget: usize) -> String {
    let mut n = hits.len();
    loop {
        let mut text = hits_markdown(query, &hits[..n], matched);
        if n < hits.len() {
            text.push_str(&format!(
                "\n({} more left out at the answer's limit: search with more words, or `show` one of these)\n",
                hits.len() - n
            ));
        }
        if budget_len(&text) <= budget || n <= 1 {
            return bounded(text, budget);
        }
        n -= 1;
    }
}

/// The longest of each field `show` prints, in characters.
const SHOW_CLAIM: usize = 1_000;
const SHOW_TEXT: usize = 3_000;
const SHOW_LINE: usize = 400;

/// A scope in words.
fn scope_text(scope: &Scope, stack: &[String]) -> String {
    match scope {
        Scope::Versioned { versions } => versions
            .iter()
            .map(|(k, r)| format!("{} {}", plain(k, 120), plain(r, 60)))
            .collect::<Vec<_>>()
            .join(", "),
        Scope::VersionIndependent { justification } => format!(
            "every version of {} ({})",
            stack
                .iter()
                .map(|s| plain(s, 120))
                .collect::<Vec<_>>()
                .join(", "),
            plain(justification, SHOW_LINE)
        ),
    }
}

/// The lines every lesson has: claim, rationale, resolution, stack,
/// scope, files.
fn lesson_lines(
    out: &mut String,
    claim: &str,
    rationale: &str,
    resolution: &str,
    applies: &git_lore::model::AppliesTo,
) {
    out.push_str(&format!("claim: {}\n", plain(claim, SHOW_CLAIM)));
    out.push_str(&format!("rationale: {}\n", plain(rationale, SHOW_TEXT)));
    out.push_str(&format!("resolution: {}\n", plain(resolution, SHOW_TEXT)));
    let stack: Vec<String> = applies.stack.iter().map(|s| plain(s, 120)).collect();
    out.push_str(&format!("stack: {}\n", stack.join(", ")));
    out.push_str(&format!(
        "scope: {}\n",
        scope_text(&applies.scope, &applies.stack)
    ));
    if !applies.file_patterns.is_empty() {
        let files: Vec<String> = applies
            .file_patterns
            .iter()
            .map(|s| plain(s, 200))
            .collect();
        out.push_str(&format!("files: {}\n", files.join(", ")));
    }
}

/// A ledger proposal as `show` prints it.
fn proposal_text(p: &Proposal) -> String {
    let c = &p.candidate;
    let what = match p.status {
        git_lore::model::ProposalStatus::Pending => {
            " — pending: not a lesson to act on until a person confirms it".to_owned()
        }
        git_lore::model::ProposalStatus::Confirmed => {
            " — confirmed by a person, waiting for the jury".to_owned()
        }
        git_lore::model::ProposalStatus::Passed => {
            " — passed: a person decided not to keep it".to_owned()
        }
        git_lore::model::ProposalStatus::Rejected => " — rejected by the jury".to_owned(),
        git_lore::model::ProposalStatus::Approved => String::new(),
    };
    let mut out = format!("lesson {} ({}{what})\n", p.id, p.status);
    lesson_lines(
        &mut out,
        &c.claim,
        &c.rationale,
        &c.evidence.resolution,
        &c.applies_to,
    );
    if let Some(v) = p.visibility {
        out.push_str(&format!("visibility: {v}\n"));
    }
    if let Some(v) = &p.verdict {
        out.push_str(&format!(
            "verdict: {} ({})\n",
            if v.passed { "approved" } else { "rejected" },
            plain(&v.reason, SHOW_LINE)
        ));
    }
    if let (Some(at), Some(v)) = (
        &p.promoted_at,
        p.visibility
            .filter(|_| p.verdict.as_ref().is_some_and(|v| v.passed)),
    ) {
        out.push_str(&format!(
            "promoted: to pool/{} at {}\n",
            v.source(),
            plain(at, 40)
        ));
    }
    out
}

/// A pool entry with no proposal on this ledger (a synced lesson) as
/// `show` prints it.
fn entry_text(l: &Lesson) -> String {
    let mut out = format!("lesson {} ({} in pool/{})\n", l.id, l.status, l.source);
    lesson_lines(
        &mut out,
        &l.claim,
        &l.rationale,
        &l.evidence.resolution,
        &l.applies_to,
    );
    out.push_str(&format!("visibility: {}\n", l.visibility));
    out.push_str(&format!("promoted: at {}\n", plain(&l.promoted_at, 40)));
    out
}

/// What the lesson's pool records of its relations.
fn relation_text(r: &git_lore::ops::relate::Relations) -> String {
    let ids = |v: &[Id]| v.iter().map(Id::to_string).collect::<Vec<_>>().join(", ");
    let mut out = String::new();
    if let Some(by) = r.superseded_by {
        out.push_str(&format!("superseded by: {by} (show it instead)\n"));
    }
    if !r.refines.is_empty() {
        out.push_str(&format!("refines: {}\n", ids(&r.refines)));
    }
    if !r.refined_by.is_empty() {
        out.push_str(&format!("refined by: {}\n", ids(&r.refined_by)));
    }
    if r.counter_observations > 0 {
        out.push_str(&format!(
            "contradicted: {} counter-observation(s) recorded against it\n",
            r.counter_observations
        ));
    }
    if let Some(n) = r.upheld_at {
        out.push_str(&format!(
            "upheld: by the jury at {n} counter-observation(s)\n"
        ));
    }
    out
}

/// `show`: one lesson in full.
pub fn show(ctx: &Ctx, input: ShowInput) -> Result<String, ToolError> {
    let typed = IdPrefix::parse(input.id.trim()).map_err(|why| ToolError::Id { why })?;
    let lore = open(ctx)?;
    let index = query::index(&lore)?;
    let id = query::resolve_in(&index, &typed)?;
    match query::named_in(&index, id) {
        query::Named::Artifact(ArtifactOutcome::Proposed { lesson }) => {
            return Err(ToolError::Artifact(id, lesson))
        }
        query::Named::Artifact(ArtifactOutcome::Declined { .. }) => {
            return Err(ToolError::DeclinedArtifact(id))
        }
        query::Named::Lesson(_) | query::Named::Entry { .. } | query::Named::Nothing => {}
    }
    let standings = trust::review(&lore)?;
    if trust::flagged(&lore, &standings)?.contains(&id) {
        return Err(ToolError::Untrusted(id));
    }
    let mut text = match query::read_proposal(&lore, id)? {
        Some(p) => proposal_text(&p),
        None => match query::entry(&lore, &index, id)? {
            Some((_, l)) => entry_text(&l),
            None => return Err(LoreError::NotFound { id }.into()),
        },
    };
    if let Some(r) = git_lore::ops::relate::relations(&lore, id)? {
        text.push_str(&relation_text(&r));
    }
    Ok(bounded(text, BUDGET))
}

/// `propose`: an agent's report, ingested; never more than a pending
/// proposal.
pub fn propose(ctx: &Ctx, settings: &Settings, input: ProposeInput) -> Result<String, ToolError> {
    if ctx.var(super::super::hook::QUIET).is_some() {
        return Err(ToolError::Quiet);
    }
    let report = Report {
        kind: match input.kind.unwrap_or_default() {
            MomentKind::Decision => Kind::Decision,
            MomentKind::DeadEnd => Kind::DeadEnd,
            MomentKind::OpenQuestion => Kind::OpenQuestion,
        },
        summary: input.summary,
        detail: input.detail,
        files: input.files.unwrap_or_default(),
        evidence: input.evidence.unwrap_or_default(),
    };
    // The report's bounds and characters are checked where it becomes an
    // artifact (`propose::propose`), once.
    let project = project_dir(input.project.as_deref(), settings)?;
    let mut lore = open(ctx)?;
    let done = propose::propose(&mut lore, &report, &project)?;
    let mut said = match &done.outcome {
        Outcome::Proposed { lesson, artifact } => format!(
            "Proposed lesson {lesson} (from artifact {artifact}). It is a pending proposal: it is not recalled, shared or acted on until a person confirms it (`git lore confirm {lesson} private|org|public`, after `git lore show {lesson}`) and the jury approves it.\n"
        ),
        Outcome::Declined {
            artifact,
            reason,
            detail,
        } => format!(
            "Declined artifact {artifact}: {reason}{}. Nothing will be proposed for it, and the same report again is seen, not retried. If the reason misreads the moment, report it again with a summary that names the package, the version that broke and the version or change that fixed it (a new summary is a new report).\n",
            detail
                .as_deref()
                .map(|d| format!(" ({})", plain(d, 300)))
                .unwrap_or_default()
        ),
        Outcome::Skipped {
            artifact,
            why: Skip::Seen,
        } => match query::named(&lore, *artifact)? {
            query::Named::Artifact(ArtifactOutcome::Proposed { lesson }) => format!(
                "Already reported: artifact {artifact} became lesson {lesson} before; nothing new was written.\n"
            ),
            query::Named::Artifact(ArtifactOutcome::Declined { reason }) => format!(
                "Already reported: artifact {artifact} was declined before ({}); nothing new was written.\n",
                reason.map(|r| r.to_string()).unwrap_or_else(|| "unknown reason".into())
            ),
            _ => format!("Already reported: artifact {artifact}; nothing new was written.\n"),
        },
        Outcome::Skipped {
            artifact,
            why: Skip::InPool { lesson, pool },
        } => format!(
            "Already known: pool/{pool} holds lesson {lesson}, made from artifact {artifact} (a teammate's, synced); nothing new was written. `show {lesson}` prints it.\n"
        ),
        Outcome::Skipped {
            artifact,
            why: Skip::Pregate,
        } => format!(
            "Not proposed: artifact {artifact} names no version, and a lesson is scoped by versions. Say which package versions were installed and which fixed it (e.g. \"vitest 4.0.5 needs vite 6; pinned vitest to 3.2.4\"). Nothing was written.\n"
        ),
        Outcome::Skipped {
            artifact,
            why: Skip::Claimed,
        } => format!(
            "Another run is deciding on artifact {artifact} right now and records its outcome; this call wrote nothing.\n"
        ),
        Outcome::Untouched { artifact, why } => {
            return Err(ToolError::Untouched {
                artifact: *artifact,
                why: plain(why, 400),
            })
        }
        Outcome::Invalid { why, .. } => return Err(ToolError::Invalid(plain(&why.to_string(), 400))),
    };
    if done.facts > 0 {
        said.push_str(&format!(
            "{} fact(s) were read from it (versions, requirements, changes).\n",
            done.facts
        ));
    }
    if !done.redacted.is_empty() {
        let kinds: Vec<String> = done.redacted.iter().map(ToString::to_string).collect();
        said.push_str(&format!(
            "Secrets were replaced before anything was kept: {}.\n",
            kinds.join(", ")
        ));
    }
    Ok(bounded(said, BUDGET))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn search_hits_are_listed_with_hostile_text_made_plain() {
        let id: Id = "01KZ8NV6800V96PY3NATFKSCMG".parse().unwrap();
        let hits = [Hit {
            id,
            place: git_lore::ops::query::Place::Pool(git_lore::model::Source::Org),
            status: git_lore::search::Status::Active,
            score: 1.5,
            package_match: true,
            claim: "# Vitest 4\nneeds <b>vite</b> 6\u{202e}".into(),
            stack: vec!["vite`x".into(), "vitest".into()],
        }];
        let text = hits_markdown("vite  module", &hits, 3);
        assert_eq!(
            text,
            "1 of 3 lessons matching \"vite module\", best first (`show` prints one in full):\n\n\
             - \\# Vitest 4 needs \\<b>vite\\</b> 6 (01KZ8NV6800V96PY3NATFKSCMG; pool/org active; stack `vite'x, vitest`)\n"
        );
        assert_eq!(
            hits_markdown("nothing", &[], 0),
            "No lesson holds the words of \"nothing\".\n"
        );
    }

    #[test]
    fn search_hits_over_the_budget_are_left_out_whole_and_counted() {
        let hit = |n: u64| Hit {
            id: Id::from_parts(1_700_000_000_000 + n, u128::from(n)),
            place: git_lore::ops::query::Place::Pool(git_lore::model::Source::Org),
            status: git_lore::search::Status::Active,
            score: 1.0,
            package_match: false,
            claim: format!("claim {n} {}", "x".repeat(500)),
            stack: vec!["vite".into()],
        };
        let hits: Vec<Hit> = (0..30).map(hit).collect();
        let text = fit_hits("vite", &hits, 40, 5_000);
        assert!(budget_len(&text) <= 5_000, "{}", budget_len(&text));
        let listed = text.lines().filter(|l| l.starts_with("- ")).count();
        assert!(listed >= 5, "{text}");
        assert!(
            text.lines()
                .filter(|l| l.starts_with("- "))
                .all(|l| l.ends_with("stack `vite`)")),
            "{text}"
        );
        assert!(
            text.starts_with(&format!("{listed} of 40 lessons matching")),
            "{text}"
        );
        assert!(
            text.ends_with(&format!("\n({} more left out at the answer's limit: search with more words, or `show` one of these)\n", 30 - listed)),
            "{text}"
        );
        assert!(!text.contains("cut at the answer's limit"), "{text}");
        // Within the budget, nothing is left out.
        assert_eq!(
            fit_hits("vite", &hits[..2], 2, 5_000),
            hits_markdown("vite", &hits[..2], 2)
        );
    }
}
