//! The command line: the command enum and its dispatch, everything read
//! from the process environment, and the one place errors are printed and
//! become exit codes (0 done, 1 refused, 2 undetermined).
//!
//! Each command file has an args struct whose doc comment is its help and a
//! `run` that calls the library, prints what it returns and hands back an
//! [`ui::Exit`] or a [`ui::CliError`]; [`main`] prints the error once.

mod capture;
mod confirm;
mod contradictions;
mod demo;
mod edit;
mod export;
mod generate;
mod hook;
mod host;
mod index;
mod ingest;
mod init;
mod judge;
mod key;
mod list;
mod log;
mod mcp;
mod output;
mod pass;
mod promote;
mod publish;
mod recall;
mod relate;
mod remote;
mod retract;
mod rubrics;
mod search;
mod seen;
mod session_end;
mod setup;
mod show;
mod stack;
mod status;
mod sync;
mod trust;
mod ui;
mod unconfirm;
mod verify;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{CommandFactory, Parser, Subcommand};

use git_lore::ops::Env;
use ui::{Ctx, Exit};

/// Keep durable, version-scoped engineering lessons in a git repository.
///
/// Every status change and verdict is a signed commit with `Lore-*`
/// trailers; `git log` is the audit trail. Exit codes: 0 done (every item got
/// a determination, possibly negative), 1 refused (usage, bad input or state;
/// nothing written for what was refused), 2 undetermined (an outage left
/// something untouched; safe to retry).
#[derive(Parser, Debug)]
#[command(
    name = "git-lore",
    bin_name = "git lore",
    version,
    max_term_width = 100
)]
pub struct Cli {
    /// The lesson repository [default: $GIT_LORE_REPO, else
    /// $XDG_DATA_HOME/git-lore/lessons.git, else ~/.local/share/git-lore/lessons.git]
    #[arg(long, global = true, value_name = "PATH")]
    repo: Option<PathBuf>,

    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    Init(init::Args),
    Ingest(ingest::Args),
    Capture(capture::Args),
    List(list::Args),
    Show(show::Args),
    Confirm(confirm::Args),
    Pass(pass::Args),
    Unconfirm(unconfirm::Args),
    Edit(edit::Args),
    Judge(judge::Args),
    Promote(promote::Args),
    Status(status::Args),
    Rubrics(rubrics::Args),
    Stack(stack::Args),
    Recall(recall::Args),
    Search(search::Args),
    Export(export::Args),
    Seen(seen::Args),
    Log(log::Args),
    Verify(verify::Args),
    Index(index::Args),
    Key(key::Args),
    Trust(trust::Args),
    Remote(remote::Args),
    Publish(publish::Args),
    Sync(sync::Args),
    Retract(retract::Args),
    Relate(relate::Args),
    Contradictions(contradictions::Args),
    Host(host::Args),
    Demo(demo::Args),
    Generate(generate::Args),
    Setup(setup::Args),
    Mcp(mcp::Args),
    #[command(hide = true)]
    Hook(hook::Args),
}

fn var(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.is_empty())
}

fn default_repo(home: Option<&PathBuf>) -> Result<PathBuf, String> {
    if let Some(r) = var("GIT_LORE_REPO") {
        return Ok(PathBuf::from(r));
    }
    let data = var("XDG_DATA_HOME")
        .map(PathBuf::from)
        .or_else(|| home.map(|h| h.join(".local/share")))
        .ok_or("no lesson repository: pass --repo PATH or set GIT_LORE_REPO (neither HOME nor XDG_DATA_HOME is set)")?;
    Ok(data.join("git-lore/lessons.git"))
}

/// "Now": `GIT_LORE_NOW` (RFC 3339 or seconds since the epoch) when set — for
/// reproducible runs and tests — else the system clock.
fn now() -> Result<jiff::Timestamp, String> {
    match var("GIT_LORE_NOW") {
        None => Ok(jiff::Timestamp::now()),
        Some(v) => v
            .parse::<i64>()
            .ok()
            .and_then(|s| jiff::Timestamp::from_second(s).ok())
            .or_else(|| v.parse::<jiff::Timestamp>().ok())
            .ok_or_else(|| format!("GIT_LORE_NOW is neither RFC 3339 nor epoch seconds: {v:?}")),
    }
}

/// `GIT_LORE_RANDOMNESS_SEED`: a number that fixes every random choice
/// (lesson ids, keys), for tests and reproducible demos. Never set it for
/// real use: two repositories with the same seed make the same key.
fn seed() -> Result<Option<u64>, String> {
    var("GIT_LORE_RANDOMNESS_SEED")
        .map(|v| {
            v.parse::<u64>()
                .map_err(|_| format!("GIT_LORE_RANDOMNESS_SEED must be a whole number, got {v:?}"))
        })
        .transpose()
}

/// The environment handed to child programs: ours, minus the variables that
/// would point git at another repository than the one we name.
fn child_env() -> Vec<(String, String)> {
    const DROP: [&str; 6] = [
        "GIT_DIR",
        "GIT_WORK_TREE",
        "GIT_INDEX_FILE",
        "GIT_OBJECT_DIRECTORY",
        "GIT_ALTERNATE_OBJECT_DIRECTORIES",
        "GIT_NAMESPACE",
    ];
    std::env::vars()
        .filter(|(k, _)| !DROP.contains(&k.as_str()))
        .collect()
}

/// Everything a command needs from the process, read once.
fn context(cli: &Cli) -> Result<Ctx, String> {
    let home = var("HOME").map(PathBuf::from);
    let now = now()?;
    let repo = match cli.repo.clone() {
        Some(r) => r,
        None => default_repo(home.as_ref())?,
    };
    // Resolved once: every path git-lore writes into its config is absolute,
    // so the repository works from any directory.
    let repo = std::path::absolute(&repo)
        .map_err(|e| format!("cannot resolve the repository path {}: {e}", repo.display()))?;
    let mut env = Env::new(now, home, child_env());
    env.exe = std::env::current_exe().ok();
    if let Some(git) = var("GIT_LORE_GIT") {
        env.git_program = git;
    }
    Ok(Ctx {
        repo,
        env,
        seed: seed()?,
        object_env: ["GIT_OBJECT_DIRECTORY", "GIT_ALTERNATE_OBJECT_DIRECTORIES"]
            .iter()
            .filter_map(|k| Some((k.to_string(), std::env::var(k).ok()?)))
            .collect(),
    })
}

pub fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let code = if e.use_stderr() { 1 } else { 0 };
            let _ = e.print();
            return ExitCode::from(code);
        }
    };
    let ctx = match context(&cli) {
        Ok(c) => c,
        Err(e) => {
            ui::error(e);
            return ExitCode::from(Exit::Refused.code());
        }
    };
    // The one emphasis git-lore prints is an id's shortest unique prefix in
    // bold, on a terminal, unless NO_COLOR is set (`ui::id_shown`).
    let result = match cli.command {
        Command::Init(a) => init::run(a, &ctx),
        Command::Ingest(a) => ingest::run(a, &ctx),
        Command::Capture(a) => capture::run(a, &ctx),
        Command::List(a) => list::run(a, &ctx),
        Command::Show(a) => show::run(a, &ctx),
        Command::Confirm(a) => confirm::run(a, &ctx),
        Command::Pass(a) => pass::run(a, &ctx),
        Command::Unconfirm(a) => unconfirm::run(a, &ctx),
        Command::Edit(a) => edit::run(a, &ctx),
        Command::Judge(a) => judge::run(a, &ctx),
        Command::Promote(a) => promote::run(a, &ctx),
        Command::Status(a) => status::run(a, &ctx),
        Command::Rubrics(a) => rubrics::run(a, &ctx),
        Command::Stack(a) => stack::run(a, &ctx),
        Command::Recall(a) => recall::run(a, &ctx),
        Command::Search(a) => search::run(a, &ctx),
        Command::Export(a) => export::run(a, &ctx),
        Command::Seen(a) => seen::run(a, &ctx),
        Command::Log(a) => log::run(a, &ctx),
        Command::Verify(a) => verify::run(a, &ctx),
        Command::Index(a) => index::run(a, &ctx),
        Command::Key(a) => key::run(a, &ctx),
        Command::Trust(a) => trust::run(a, &ctx),
        Command::Remote(a) => remote::run(a, &ctx),
        Command::Publish(a) => publish::run(a, &ctx),
        Command::Sync(a) => sync::run(a, &ctx),
        Command::Retract(a) => retract::run(a, &ctx),
        Command::Relate(a) => relate::run(a, &ctx),
        Command::Contradictions(a) => contradictions::run(a, &ctx),
        Command::Host(a) => host::run(a, &ctx),
        Command::Demo(a) => demo::run(a, &ctx),
        Command::Generate(a) => generate::run(a, Cli::command(), &ctx),
        Command::Setup(a) => setup::run(a, &ctx),
        Command::Mcp(a) => mcp::run(a, &ctx),
        Command::Hook(a) => hook::run(a, &ctx),
    };
    let exit = match result {
        Ok(exit) => exit,
        Err(e) => {
            ui::error(git_lore::ops::with_causes(&e));
            e.exit()
        }
    };
    ExitCode::from(exit.code())
}
