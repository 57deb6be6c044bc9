use std::io::{IsTerminal, Read};
use std::path::PathBuf;

use clap::{Args as ClapArgs, Subcommand};

use super::ui::{self, CliError, Ctx, Exit};
use git_lore::ops::{guard, LoreError};

/// What the hooks git-lore installs run; not for typing by hand.
///
/// `hook pre-push REMOTE URL` reads git's pre-push lines on stdin and refuses
/// (exit 1) any push that would send a record of the ledger or pool/local
/// (any version of it, under any path and any ref name), a tree of theirs,
/// or anything but a commit. `hook session-start` reads a coding
/// agent's (Claude Code's or Codex's) SessionStart hook input on stdin and
/// prints, as the hook's JSON,
/// the lessons that hold for the session's project (for the agent) and how
/// many lessons await a decision (for the person); outside any project it
/// says so to the person and recalls nothing; it always exits 0.
/// `hook session-end` reads a SessionEnd hook input (Claude Code) or a Stop
/// hook input (Codex, after every turn: only what the session wrote since
/// its last capture is read) on stdin, hands it to a
/// detached `git lore capture --hook` (a new session of its own: no
/// `setsid` program needed) and returns at once; what that prints goes to
/// `<gitdir>/lore/session-end.log` with timestamps, and a failure is shown
/// once at the next session start.
///
/// Example: `echo "$HOOK_JSON" | git-lore hook session-end`.
#[derive(ClapArgs, Debug)]
pub struct Args {
    #[command(subcommand)]
    hook: Hook,
}

#[derive(Subcommand, Debug)]
enum Hook {
    /// The pre-push guard.
    PrePush {
        /// The remote's name.
        remote: Option<String>,
        /// The remote's URL.
        url: Option<String>,
    },
    /// A coding agent's session starts: recall for its project.
    SessionStart {
        /// The most characters of lessons to hand the agent. A bad value is
        /// reported on stderr and the default used: a hook never fails the
        /// session.
        #[arg(long, allow_hyphen_values = true)]
        budget: Option<String>,
        /// Anything else on the command line: reported, then ignored.
        #[arg(trailing_var_arg = true, allow_hyphen_values = true, hide = true)]
        rest: Vec<String>,
    },
    /// A coding agent's session ends: capture it in the background.
    SessionEnd {
        /// Anything on the command line: reported, then ignored.
        #[arg(trailing_var_arg = true, allow_hyphen_values = true, hide = true)]
        rest: Vec<String>,
    },
    /// The detached half of session-end (started by it, not by hand).
    #[command(hide = true)]
    SessionEndWorker {
        /// The hook input, saved by session-end; removed when read.
        #[arg(long, value_name = "FILE")]
        input: PathBuf,
    },
}

/// Set in the environment of every program git-lore starts from a hook (and
/// by anyone who wants git-lore's agent hooks to stay quiet): every
/// git-lore agent hook is then a no-op, so a model asked from a hook cannot
/// set off the hooks again.
pub const QUIET: &str = git_lore::ops::backend::HOOK_MARKER;

/// How long the session-start hook may work before it gives up, well inside
/// the few seconds an agent waits for it.
const SESSION_START_DEADLINE: std::time::Duration = std::time::Duration::from_secs(4);

pub fn run(args: Args, ctx: &Ctx) -> ui::Result {
    match args.hook {
        Hook::SessionStart { budget, rest } => {
            let default = git_lore::recall::render::DEFAULT_BUDGET;
            let budget = match budget.as_deref().map(str::parse::<usize>) {
                None => default,
                Some(Ok(b)) => b,
                Some(Err(_)) => {
                    ui::error(format!(
                        "hook session-start: --budget {} is not a number of characters; using {default}",
                        ui::text(budget.as_deref().unwrap_or_default())
                    ));
                    default
                }
            };
            ignored("session-start", &rest);
            session_start(ctx, budget);
            Ok(Exit::Done)
        }
        Hook::SessionEnd { rest } => {
            ignored("session-end", &rest);
            super::session_end::start(ctx);
            Ok(Exit::Done)
        }
        Hook::SessionEndWorker { input } => {
            super::session_end::work(ctx, &input);
            Ok(Exit::Done)
        }
        Hook::PrePush { url, .. } => {
            if std::io::stdin().is_terminal() {
                return Err(CliError::Usage(
                    "hook pre-push reads the lines git gives a pre-push hook on stdin; git runs it on `git push` (`git lore setup` installs it)".into(),
                ));
            }
            let mut text = String::new();
            std::io::stdin()
                .take(1 << 20)
                .read_to_string(&mut text)
                .map_err(|e| CliError::Usage(format!("reading the pre-push lines: {e}")))?;
            let lore = ctx.open()?;
            let updates = guard::parse_pre_push(&text).map_err(LoreError::from)?;
            let refusals =
                guard::check_push(&lore, &updates, url.as_deref()).map_err(LoreError::from)?;
            for r in &refusals {
                ui::error(refused(r));
            }
            Ok(if refusals.is_empty() {
                Exit::Done
            } else {
                Exit::Refused
            })
        }
    }
}

/// One refused ref, and what to do about it.
fn refused(r: &guard::Refusal) -> String {
    let p = &r.problem;
    let fix = match p.private_object() {
        Some(id) => format!(
            "Only pool/org and pool/public may leave (`git lore publish org`); to push this branch, take that object out of its history first (`git log --all --find-object={id}` lists the commits that hold it)"
        ),
        None => "Only pool/org and pool/public may leave: `git lore publish org` pushes them".into(),
    };
    format!(
        "refusing to push {} to {}: {} (guard rule {}); nothing was pushed. {fix}",
        ui::text(&r.local_ref),
        ui::text(&r.remote_ref),
        ui::text(&p.to_string()),
        p.rule()
    )
}

/// An agent hook never fails the session: arguments it does not know are
/// one line on stderr, and the hook goes on.
fn ignored(hook: &str, rest: &[String]) {
    if !rest.is_empty() {
        ui::error(format!(
            "hook {hook}: ignoring unexpected arguments: {}",
            ui::text(&rest.join(" "))
        ));
    }
}

/// What the session-start hook says: lessons for the agent, a line for the
/// person. Both empty: it prints nothing.
#[derive(Default)]
struct Said {
    context: String,
    message: String,
}

/// The SessionStart hook: reads the hook's JSON on stdin for the project
/// directory, recalls for it within `budget`, and prints the hook's JSON.
/// It never fails the session: any failure, or taking longer than
/// [`SESSION_START_DEADLINE`], becomes at most one short line for the
/// person, and the exit code is 0.
fn session_start(ctx: &Ctx, budget: usize) {
    if ctx.var(QUIET).is_some() {
        return;
    }
    let failed = super::session_end::take_failures(ctx);
    let (tx, rx) = std::sync::mpsc::channel();
    let ctx = ctx.clone();
    // The input is read within the deadline too: an agent that never
    // closes the hook's stdin must not hold the session.
    std::thread::spawn(move || {
        let input = hook_input(64 << 10);
        let cwd = serde_json::from_slice::<serde_json::Value>(&input)
            .ok()
            .and_then(|v| v.get("cwd")?.as_str().map(std::path::PathBuf::from))
            .or_else(|| ctx.var("CLAUDE_PROJECT_DIR").map(std::path::PathBuf::from))
            .unwrap_or_else(|| std::path::PathBuf::from("."));
        let _ = tx.send(session_start_work(&ctx, &cwd, budget));
    });
    let mut said = match rx.recv_timeout(SESSION_START_DEADLINE) {
        Ok(Ok(said)) => said,
        Ok(Err(why)) => Said {
            message: format!("git-lore: no lessons this session ({})", short(&why)),
            ..Said::default()
        },
        Err(_) => Said {
            message: "git-lore: no lessons this session (recall took too long)".into(),
            ..Said::default()
        },
    };
    if let Some(line) = failed {
        said.message = if said.message.is_empty() {
            line
        } else {
            format!(
                "{}; {}",
                said.message,
                line.trim_start_matches("git-lore: ")
            )
        };
    }
    if said.context.is_empty() && said.message.is_empty() {
        return;
    }
    let mut out = serde_json::Map::new();
    if !said.context.is_empty() {
        out.insert(
            "hookSpecificOutput".into(),
            serde_json::json!({"hookEventName": "SessionStart", "additionalContext": said.context}),
        );
    }
    if !said.message.is_empty() {
        out.insert("systemMessage".into(), said.message.into());
    }
    let line = git_lore::content::text::json_line(&serde_json::Value::Object(out))
        .expect("a JSON value serialises");
    ui::out(&format!("{line}\n"));
}

/// One line, at most 160 characters.
fn short(s: &str) -> String {
    let line = ui::text(s);
    if line.chars().count() > 160 {
        format!("{}…", line.chars().take(160).collect::<String>())
    } else {
        line
    }
}

/// Why the session's directory is not a project, in a few words.
fn not_a_project(e: &git_lore::recall::stack::ProjectError) -> String {
    use git_lore::recall::stack::ProjectError as P;
    match e {
        P::Outside { start, .. } => format!("{} is not inside a project", start.display()),
        P::NotAProjectDir { start, home: true } => {
            format!("{} is your home directory, not a project", start.display())
        }
        P::NotAProjectDir { .. } => "the filesystem root is not a project".to_owned(),
        P::Unreadable { start, .. } => format!("cannot read {}", start.display()),
    }
}

/// The hook's work: `cwd` is the session's directory; the project is the
/// one it is in (`stack::locate`), if any.
fn session_start_work(ctx: &Ctx, cwd: &std::path::Path, budget: usize) -> Result<Said, String> {
    use git_lore::model::ProposalStatus;
    use git_lore::ops::recall::{self, Depth};
    use git_lore::ops::{query, trust};
    use git_lore::recall::{render, select, stack};
    if !ctx.repo.join("HEAD").exists() {
        return Ok(Said::default()); // no lesson repository: nothing to say
    }
    let lore = ctx.open().map_err(|e| e.to_string())?;
    let standings = trust::review(&lore).map_err(|e| e.to_string())?;
    let flagged = trust::flagged(&lore, &standings).map_err(|e| e.to_string())?;
    let mut notes = Vec::new();
    // Outside any project there is nothing to recall for: say so, never
    // read the directories around (a home directory full of unrelated
    // repositories).
    let context = match stack::locate(cwd, ctx.env.home.as_deref()) {
        Ok(project) => {
            let g = recall::gather(&lore, Some(&project), &[], false, Depth::Thin, &flagged)
                .map_err(|e| e.to_string())?;
            let sel = select::select(&g.lessons, &g.stack);
            render::markdown(&sel, &g.links, budget)
        }
        Err(e) => {
            notes.push(format!(
                "no lessons this session: {} (`git lore recall --project DIR` recalls for one)",
                not_a_project(&e)
            ));
            String::new()
        }
    };
    let (counts, _) = query::counts(&lore).map_err(|e| e.to_string())?;
    let waiting: usize = counts
        .iter()
        .filter(|(s, _)| matches!(s, ProposalStatus::Pending | ProposalStatus::Confirmed))
        .map(|(_, n)| n)
        .sum();
    if waiting > 0 {
        notes.push(format!(
            "{waiting} lesson{} await{} your decision: `git lore list`",
            if waiting == 1 { "" } else { "s" },
            if waiting == 1 { "s" } else { "" }
        ));
    }
    if standings
        .iter()
        .any(|s| !matches!(s.standing, trust::Standing::Verified))
    {
        notes.push("history that does not verify: `git lore verify`".into());
    }
    Ok(Said {
        context,
        message: if notes.is_empty() {
            String::new()
        } else {
            format!("git-lore: {}", notes.join("; "))
        },
    })
}

/// A hook's input on stdin, at most `max` bytes (and one more, so that the
/// caller can tell it was too long); nothing when stdin is a terminal: a
/// person who runs a hook by hand is not asked to type its JSON.
pub(super) fn hook_input(max: usize) -> Vec<u8> {
    let mut input = Vec::new();
    if !std::io::stdin().is_terminal() {
        let _ = std::io::stdin()
            .take(max as u64 + 1)
            .read_to_end(&mut input);
    }
    input
}
