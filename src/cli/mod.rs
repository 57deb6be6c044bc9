//! The command line: argument parsing (clap derive, one file per command),
//! everything read from the process environment, all printing, and the one
//! place errors become exit codes (DESIGN §6: 0 done, 1 refused, 2
//! undetermined).
//!
//! Each command file has an args struct whose doc comment is its help and a
//! `run` that calls the library and prints what it returns. Data goes to
//! stdout; status and errors go to stderr.

mod confirm;
mod demo;
mod index;
mod ingest;
mod init;
mod judge;
mod list;
mod log;
mod pass;
mod promote;
mod rubrics;
mod seen;
mod show;
mod status;
mod unconfirm;
mod verify;

use std::io::{self, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use rand::SeedableRng;

use git_lore::ops::{Class, Env, Lore, LoreError};

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
    List(list::Args),
    Show(show::Args),
    Confirm(confirm::Args),
    Pass(pass::Args),
    Unconfirm(unconfirm::Args),
    Judge(judge::Args),
    Promote(promote::Args),
    Status(status::Args),
    Rubrics(rubrics::Args),
    Seen(seen::Args),
    Log(log::Args),
    Verify(verify::Args),
    Index(index::Args),
    Demo(demo::Args),
}

/// What a command reports back besides its output.
pub enum Outcome {
    /// Everything got a determination.
    Done,
    /// Something was refused, already reported on stderr.
    Refused,
    /// An outage left something undetermined, already reported on stderr.
    Undetermined,
}

/// The process environment, read once.
pub struct Ctx {
    pub repo: PathBuf,
    pub env: Env,
}

impl Ctx {
    pub fn rng(&self) -> rand::rngs::StdRng {
        rand::rngs::StdRng::from_entropy()
    }

    pub fn open(&self) -> Result<Lore, LoreError> {
        Lore::open(&self.repo, self.env.clone(), self.rng())
    }
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

/// Parses a lesson or artifact id, reporting a bad one.
pub fn parse_id(s: &str) -> Option<git_lore::model::Id> {
    match s.parse() {
        Ok(id) => Some(id),
        Err(e) => {
            error(e);
            None
        }
    }
}

/// Runs one review transition on the lesson named `id` and prints what it
/// did: `changed`'s line when it wrote, the no-op's message otherwise.
pub fn transition(
    ctx: &Ctx,
    id: &str,
    apply: impl FnOnce(&mut Lore, git_lore::model::Id) -> Result<git_lore::ops::review::Done, LoreError>,
    changed: impl FnOnce(&git_lore::model::Proposal) -> String,
) -> Outcome {
    use git_lore::ops::review::Done;
    let Some(id) = parse_id(id) else {
        return Outcome::Refused;
    };
    let mut lore = match ctx.open() {
        Ok(l) => l,
        Err(e) => return report(e),
    };
    match apply(&mut lore, id) {
        Ok(Done::Changed(p)) => {
            out(&changed(&p));
            Outcome::Done
        }
        Ok(Done::Unchanged(n)) => {
            out(&format!("{n}\n"));
            Outcome::Done
        }
        Err(e) => report(e),
    }
}

/// Prints an error the one way errors are printed.
pub fn error(msg: impl std::fmt::Display) {
    let _ = writeln!(io::stderr(), "git-lore: {msg}");
}

/// Writes to stdout, treating a closed pipe as success (`git lore log | head`).
pub fn out(text: &str) {
    let mut stdout = io::stdout().lock();
    if let Err(e) = stdout
        .write_all(text.as_bytes())
        .and_then(|_| stdout.flush())
    {
        if e.kind() != io::ErrorKind::BrokenPipe {
            error(format!("writing output: {e}"));
        }
    }
}

/// Prints `value` as pretty JSON on stdout.
pub fn out_json<T: serde::Serialize>(value: &T) {
    let mut s = serde_json::to_string_pretty(value).expect("output serialises");
    s.push('\n');
    out(&s);
}

/// Reports a library error and classifies it.
pub fn report(e: LoreError) -> Outcome {
    error(&e);
    match e.class() {
        Class::Refused => Outcome::Refused,
        Class::Undetermined => Outcome::Undetermined,
    }
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
    let home = var("HOME").map(PathBuf::from);
    let now = match now() {
        Ok(n) => n,
        Err(e) => {
            error(e);
            return ExitCode::from(1);
        }
    };
    let repo = match cli.repo.clone() {
        Some(r) => r,
        None => match default_repo(home.as_ref()) {
            Ok(r) => r,
            Err(e) => {
                error(e);
                return ExitCode::from(1);
            }
        },
    };
    let mut env = Env::new(now, home, child_env());
    if let Some(git) = var("GIT_LORE_GIT") {
        env.git_program = git;
    }
    // git-lore prints no colour at all, so NO_COLOR holds trivially.
    let ctx = Ctx { repo, env };
    let outcome = match cli.command {
        Command::Init(a) => init::run(a, &ctx),
        Command::Ingest(a) => ingest::run(a, &ctx),
        Command::List(a) => list::run(a, &ctx),
        Command::Show(a) => show::run(a, &ctx),
        Command::Confirm(a) => confirm::run(a, &ctx),
        Command::Pass(a) => pass::run(a, &ctx),
        Command::Unconfirm(a) => unconfirm::run(a, &ctx),
        Command::Judge(a) => judge::run(a, &ctx),
        Command::Promote(a) => promote::run(a, &ctx),
        Command::Status(a) => status::run(a, &ctx),
        Command::Rubrics(a) => rubrics::run(a, &ctx),
        Command::Seen(a) => seen::run(a, &ctx),
        Command::Log(a) => log::run(a, &ctx),
        Command::Verify(a) => verify::run(a, &ctx),
        Command::Index(a) => index::run(a, &ctx),
        Command::Demo(a) => demo::run(a, &ctx),
    };
    ExitCode::from(match outcome {
        Outcome::Done => 0,
        Outcome::Refused => 1,
        Outcome::Undetermined => 2,
    })
}
