//! `git lore mcp`: a Model Context Protocol server over stdio, so any MCP
//! client (Claude Code, Codex, Cursor, …) can recall, search, show and
//! propose lessons mid-session.
//!
//! This is the one place an async runtime runs. The official SDK (`rmcp`)
//! is async, so the command builds a single-threaded tokio runtime, speaks
//! JSON-RPC on the process's stdin and stdout, and runs each tool call
//! ([`tools`], synchronous) on tokio's blocking threads through
//! `spawn_blocking`: the library stays synchronous, and no other command
//! starts a runtime or touches tokio at all.
//!
//! Nothing but protocol messages may reach stdout. Before serving, the
//! command keeps its own copies of stdin and stdout for the protocol and
//! points the process's stdin at `/dev/null` and its stdout at stderr, so
//! no program git-lore runs (git, a signing program, a model) and no stray
//! write can read a request or corrupt a response. A line longer than
//! [`MAX_LINE_BYTES`] is dropped unread.
//!
//! Each call is made with a fresh clock reading (a server runs for hours;
//! commits are dated when they are made) and, under
//! `GIT_LORE_RANDOMNESS_SEED`, a seed of its own.

mod fit;
mod tools;
mod transport;

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use clap::Args as ClapArgs;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{Implementation, ServerCapabilities, ServerConfig};
use rmcp::{tool, tool_handler, tool_router, ServerHandler, ServiceExt};

use super::ui::{self, CliError, Ctx, Exit};
use tools::{ProposeInput, RecallInput, SearchInput, Settings, ShowInput, ToolError};

/// Serve lessons to a coding agent over MCP (stdin and stdout).
///
/// An MCP client starts `git lore mcp` and speaks JSON-RPC to it, one
/// message a line; nothing else is printed on stdout, and what goes wrong
/// goes to stderr (the client's MCP log). Four tools: `recall` (the lessons
/// that hold for a project directory or an explicit stack of
/// NAME@VERSION entries, as markdown or JSON), `search` (lessons by their
/// words), `show` (one lesson in full, by id or unique prefix) and
/// `propose` (the agent reports a moment: a version problem and its fix;
/// it becomes an artifact through capture's redaction and ingest's
/// transform, and is only ever a *pending proposal* until a person
/// confirms it). Every answer is at most 9,000 characters.
///
/// `git lore setup mcp --client claude|codex|cursor` writes the client's
/// configuration. Tools that name no project use `--project`, else the
/// directory the client started the server in.
///
/// Examples: `git lore setup mcp --client cursor --project`, then let
/// Cursor start it; by hand: `printf '%s\n'
/// '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"me","version":"0"}}}'
/// | git lore mcp`.
#[derive(ClapArgs, Debug)]
pub struct Args {
    /// The project that tool calls naming none are about [default: the
    /// directory the server runs in].
    #[arg(long, value_name = "DIR")]
    project: Option<std::path::PathBuf>,
}

/// The longest JSON-RPC message read, in bytes: a `propose` at its limits
/// is well under it.
pub const MAX_LINE_BYTES: usize = 1 << 20;

const INSTRUCTIONS: &str = "git-lore keeps engineering lessons: version mismatches, breaking changes and their fixes, each scoped to the package versions it holds for, approved by a person and a jury. Call `recall` with the project's directory when you start work on a project or change its dependencies, and follow the lessons that apply. `search` finds lessons by their words; `show` prints one in full. When you resolve a version problem worth remembering, `propose` it: it becomes a pending proposal that a person reviews; it is never recalled before they confirm it.";

const RECALL: &str = "The lessons that hold for a project's installed versions: approved engineering lessons (version mismatches, breaking changes, their fixes), each scoped to the package versions it holds for, most specific first. Give `project` (the project's directory; its lockfiles are read) and/or `stack` (NAME@VERSION entries such as vite@5.4.21 or pypi:requests@2.31.0: with no project, only these count). Answers in markdown (default) or JSON, at most 9,000 characters. Read-only.";

const SEARCH: &str = "Find approved lessons by their words across the lesson pools: every word must match, whole, in the claim, rationale, resolution or packages (a package name such as @vitejs/plugin-legacy is one word, and also found by its parts). Lessons whose packages a word names exactly come first, then the best match. Each hit has the id `show` takes. Read-only.";

const SHOW: &str = "One lesson in full by its id or a unique prefix of 4 or more characters (as recall and search print them): claim, rationale, resolution, stack, scope, status, verdict and relations. Read-only.";

const PROPOSE: &str = "Report a moment worth a lesson: a version problem you hit and what resolved it (kind decision), an approach that failed (dead_end), or a problem left open (open_question). Name the packages and versions in the summary, say the cause and the fix in detail, and paste the output you saw (the install or resolver error, the passing run) in evidence. git-lore redacts secrets, gives the report a content-addressed id (the same report twice the same day is recorded once) and runs its transform. The result is ONLY EVER A PENDING PROPOSAL: it is never a lesson, never recalled and never shared until a person confirms it (`git lore confirm`) and the jury approves it. Limits: summary 1 to 240 characters, detail up to 4000 characters, up to 50 files of 512 characters, up to 8 pieces of output of 20000 characters each; text with bidirectional controls, invisible or control characters is refused.";

/// The server: the process context, and a count of calls for their seeds.
#[derive(Clone)]
struct Server {
    ctx: Arc<Ctx>,
    settings: Arc<Settings>,
    calls: Arc<AtomicU64>,
}

impl Server {
    /// The context of one call: the clock read now (unless
    /// `GIT_LORE_NOW` fixes it), and under `GIT_LORE_RANDOMNESS_SEED` a
    /// seed of its own, so two proposals of one server never draw the same
    /// lesson id.
    fn call_ctx(&self) -> Result<Ctx, String> {
        let n = self.calls.fetch_add(1, Ordering::Relaxed);
        let mut ctx = (*self.ctx).clone();
        ctx.env.now = super::now()?;
        ctx.seed = ctx.seed.map(|s| s.wrapping_add(n));
        Ok(ctx)
    }

    /// Runs `work` on a blocking thread: the library is synchronous, and a
    /// model call can take seconds.
    async fn blocking(
        &self,
        work: impl FnOnce(&Ctx, &Settings) -> Result<String, ToolError> + Send + 'static,
    ) -> Result<String, String> {
        let ctx = self.call_ctx()?;
        let settings = Arc::clone(&self.settings);
        let done = tokio::task::spawn_blocking(move || work(&ctx, &settings))
            .await
            .map_err(|e| format!("the tool stopped before it answered: {e}"))?;
        done.map_err(|e| {
            let said = git_lore::ops::with_causes(&e);
            ui::status(format!("git-lore mcp: {said}"));
            fit::bounded(said, tools::BUDGET)
        })
    }
}

#[tool_router]
impl Server {
    #[tool(description = RECALL, annotations(title = "Recall lessons", read_only_hint = true, open_world_hint = false))]
    async fn recall(&self, Parameters(input): Parameters<RecallInput>) -> Result<String, String> {
        self.blocking(move |ctx, s| tools::recall(ctx, s, input))
            .await
    }

    #[tool(description = SEARCH, annotations(title = "Search lessons", read_only_hint = true, open_world_hint = false))]
    async fn search(&self, Parameters(input): Parameters<SearchInput>) -> Result<String, String> {
        self.blocking(move |ctx, _| tools::search(ctx, input)).await
    }

    #[tool(description = SHOW, annotations(title = "Show a lesson", read_only_hint = true, open_world_hint = false))]
    async fn show(&self, Parameters(input): Parameters<ShowInput>) -> Result<String, String> {
        self.blocking(move |ctx, _| tools::show(ctx, input)).await
    }

    #[tool(description = PROPOSE, annotations(title = "Propose a lesson (pending a person's confirmation)", read_only_hint = false, destructive_hint = false, idempotent_hint = true, open_world_hint = false))]
    async fn propose(&self, Parameters(input): Parameters<ProposeInput>) -> Result<String, String> {
        self.blocking(move |ctx, s| tools::propose(ctx, s, input))
            .await
    }
}

/// The tools' names, as `tools/list` gives them.
const TOOLS: [&str; 4] = ["recall", "search", "show", "propose"];

#[tool_handler]
impl ServerHandler for Server {
    /// A call of a tool the server has not is refused naming the ones it
    /// has; every other call goes to its tool.
    async fn call_tool(
        &self,
        request: rmcp::model::CallToolRequestParams,
        context: rmcp::service::RequestContext<rmcp::RoleServer>,
    ) -> Result<rmcp::model::CallToolResponse, rmcp::ErrorData> {
        let router = Self::tool_router();
        if !router.has_route(&request.name) {
            return Err(rmcp::ErrorData::invalid_params(
                format!(
                    "there is no tool {:?}: the tools are {}",
                    git_lore::content::text::terminal(
                        &request.name.chars().take(80).collect::<String>()
                    ),
                    TOOLS.join(", ")
                ),
                None,
            ));
        }
        let call = rmcp::handler::server::tool::ToolCallContext::new(self, request, context);
        router.call(call).await
    }

    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(
                Implementation::new("git-lore", env!("CARGO_PKG_VERSION"))
                    .with_title("git-lore lessons"),
            )
            .with_instructions(INSTRUCTIONS)
    }
}

/// The protocol's own stdin and stdout; the process's are pointed away
/// (see the module doc).
fn protocol_streams() -> std::io::Result<(std::fs::File, std::fs::File)> {
    let input = rustix::io::dup(std::io::stdin())?;
    let output = rustix::io::dup(std::io::stdout())?;
    let null = std::fs::File::open("/dev/null")?;
    rustix::stdio::dup2_stdin(&null)?;
    rustix::stdio::dup2_stdout(std::io::stderr())?;
    Ok((std::fs::File::from(input), std::fs::File::from(output)))
}

pub fn run(args: Args, ctx: &Ctx) -> ui::Result {
    use std::io::IsTerminal;
    if std::io::stdin().is_terminal() {
        return Err(CliError::Usage(
            "git lore mcp speaks the Model Context Protocol on stdin and stdout, for an agent to start: `git lore setup mcp --client claude|codex|cursor` configures one".into(),
        ));
    }
    let project = match args.project {
        Some(p) if !p.is_dir() => {
            return Err(CliError::Usage(format!(
                "--project {} is not a directory",
                ui::text(&p.display().to_string())
            )))
        }
        Some(p) => p,
        None => std::path::PathBuf::from("."),
    };
    let (input, output) = protocol_streams().map_err(|e| {
        CliError::Usage(format!(
            "cannot set up stdin and stdout for the protocol: {e}"
        ))
    })?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| CliError::Usage(format!("cannot start the async runtime: {e}")))?;
    let server = Server {
        ctx: Arc::new(ctx.clone()),
        settings: Arc::new(Settings { project }),
        calls: Arc::new(AtomicU64::new(0)),
    };
    let (transport, writer) = transport::start(input, output, MAX_LINE_BYTES)
        .map_err(|e| CliError::Usage(format!("cannot start the protocol's threads: {e}")))?;
    let heard = transport.heard();
    let served = runtime.block_on(async move {
        let running = match server.serve(transport).await {
            Ok(r) => r,
            // Closed without a word (a client checking it can start us).
            Err(_) if !heard.load(Ordering::Relaxed) => return Ok(Exit::Done),
            Err(e) => {
                return Err(CliError::Usage(format!(
                    "the MCP client did not start a session: {e} (the first message must be `initialize`)"
                )))
            }
        };
        running
            .waiting()
            .await
            .map_err(|e| CliError::Usage(format!("the MCP session ended: {e}")))?;
        Ok(Exit::Done)
    });
    // Every answer is written before the process ends.
    let _ = writer.join();
    served
}

#[cfg(test)]
mod tests {
    use super::*;
    use git_lore::pipeline::capture::report::{MAX_EVIDENCE, MAX_EVIDENCE_CHARS};
    use git_lore::pipeline::capture::{
        MAX_DETAIL_CHARS, MAX_FILES, MAX_FILE_CHARS, MAX_SUMMARY_CHARS,
    };

    #[test]
    fn the_tool_names_are_the_routers() {
        let mut routed: Vec<String> = Server::tool_router()
            .list_all()
            .into_iter()
            .map(|t| t.name.into_owned())
            .collect();
        routed.sort();
        let mut named = TOOLS.map(String::from).to_vec();
        named.sort();
        assert_eq!(routed, named);
    }

    #[test]
    fn the_propose_description_states_the_limits_the_code_holds() {
        for said in [
            format!("summary 1 to {MAX_SUMMARY_CHARS} characters"),
            format!("detail up to {MAX_DETAIL_CHARS} characters"),
            format!("up to {MAX_FILES} files of {MAX_FILE_CHARS} characters"),
            format!(
                "up to {MAX_EVIDENCE} pieces of output of {MAX_EVIDENCE_CHARS} characters each"
            ),
        ] {
            assert!(PROPOSE.contains(&said), "{said}");
        }
        assert!(PROPOSE.contains("ONLY EVER A PENDING PROPOSAL"));
    }
}
