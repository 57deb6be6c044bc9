use std::path::PathBuf;

use clap::Args as ClapArgs;

use super::ui::{self, CliError, Ctx, Exit};
use git_lore::ops::mcp_config::{self, Client};
use git_lore::ops::setup::{self, Agent};

/// Install git-lore's hooks in a coding agent's settings, in one step.
///
/// `setup claude` merges two hooks into Claude Code's settings.json: at
/// SessionStart, `git-lore hook session-start` hands the agent the lessons
/// that hold for the project; at SessionEnd, `git-lore hook session-end`
/// captures the session in the background (`git lore capture --hook`) and
/// returns at once. Everything else in the file stays as it was; running it
/// again changes nothing; the old file is copied to
/// `settings.json.git-lore-backup-<time>` before it is replaced. `--remove`
/// takes out git-lore's hooks and nothing else. The hooks run the
/// `git-lore` on the agent's PATH (`cargo install --locked --path .` puts
/// it there); with --project the settings file is shared, and setup says
/// what teammates without git-lore see.
///
/// `setup mcp --client claude|codex|cursor` adds the `git-lore` MCP
/// server (`git-lore mcp`, see `git lore mcp --help`) to that client's
/// configuration instead, the same way (idempotent, a backup, `--remove`,
/// `--dry-run`): Claude Code's ~/.claude.json or the project's .mcp.json,
/// Codex's ~/.codex/config.toml or the project's .codex/config.toml,
/// Cursor's ~/.cursor/mcp.json or the project's .cursor/mcp.json.
///
/// Examples: `git lore setup claude --project` (this project's
/// .claude/settings.json), `git lore setup claude --user` (every project),
/// `git lore setup codex --dry-run`, `git lore setup codex --project`,
/// `git lore setup claude --dry-run` (show the change as a diff),
/// `git lore setup claude --remove`, `git lore setup mcp --client codex`,
/// `git lore setup mcp --client cursor --project --dry-run`.
#[derive(ClapArgs, Debug)]
pub struct Args {
    /// What to set up: `claude` (Claude Code's hooks), `codex` (Codex CLI's
    /// hooks) or `mcp` (an MCP client's server entry; name the client with
    /// --client).
    #[arg(value_parser = ["claude", "codex", "mcp"])]
    agent: String,
    /// With `mcp`: the client to configure.
    #[arg(long, value_parser = ["claude", "codex", "cursor"])]
    client: Option<String>,
    /// The user's file, for every project on this machine [the default]:
    /// ~/.claude/settings.json or ~/.codex/hooks.json (hooks), or the MCP
    /// client's.
    #[arg(long, conflicts_with = "project")]
    user: bool,
    /// The file at the top of the project (the git work tree holding the
    /// current directory, else the current directory), shared with
    /// everyone who works on it: .claude/settings.json or .codex/hooks.json
    /// (hooks), or the MCP client's.
    #[arg(long)]
    project: bool,
    /// Take git-lore's hooks out instead.
    #[arg(long)]
    remove: bool,
    /// Print the change as a diff and write nothing.
    #[arg(long)]
    dry_run: bool,
}

/// The settings file the flags name: `file` under the project's top
/// directory or the home directory.
fn settings_path(file: &str, args: &Args, ctx: &Ctx) -> ui::Result<PathBuf> {
    if args.project {
        let (_, root) = git_lore::store::mine::identify(std::path::Path::new("."));
        return Ok(root.join(file));
    }
    let home = ctx.env.home.as_ref().ok_or_else(|| {
        CliError::Usage("HOME is not set: name the project's settings with --project".into())
    })?;
    Ok(home.join(file))
}

/// The MCP client `--client` names, checked against `agent`.
fn client(args: &Args) -> ui::Result<Option<Client>> {
    match (args.agent.as_str(), args.client.as_deref()) {
        ("mcp", None) => Err(CliError::Usage(
            "setup mcp needs --client claude, codex or cursor: the MCP client to configure".into(),
        )),
        ("mcp", Some("claude")) => Ok(Some(Client::Claude)),
        ("mcp", Some("codex")) => Ok(Some(Client::Codex)),
        ("mcp", Some(_)) => Ok(Some(Client::Cursor)),
        (_, Some(_)) => Err(CliError::Usage(
            "--client names an MCP client, for `setup mcp`: `git lore setup mcp --client claude` adds the MCP server, `git lore setup claude` the hooks".into(),
        )),
        (_, None) => Ok(None),
    }
}

/// Whether a `git-lore` program is on the PATH hooks run with.
fn on_path(ctx: &Ctx) -> bool {
    use std::os::unix::fs::PermissionsExt;
    ctx.var("PATH").is_some_and(|p| {
        std::env::split_paths(p).any(|d| {
            std::fs::metadata(d.join("git-lore"))
                .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        })
    })
}

/// A dry run on a file too large to edit: the entry to merge by hand.
fn too_large(applied: &setup::Applied, shown: &str, size: u64) -> Exit {
    let why = format!(
        "setup: {shown} is too large to edit safely ({size} bytes, limit {})",
        setup::MAX_SETTINGS_BYTES
    );
    if applied.edit.changes.is_empty() {
        ui::status(format!("{why}; take git-lore's entry out of it by hand"));
    } else {
        ui::out(&applied.edit.text);
        ui::status(format!("{why}; merge the entry above into it by hand"));
    }
    Exit::Done
}

pub fn run(args: Args, ctx: &Ctx) -> ui::Result {
    let client = client(&args)?;
    let agent = if args.agent == "codex" {
        Agent::Codex
    } else {
        Agent::Claude
    };
    let path = match client {
        Some(c) => settings_path(c.file(args.project), &args, ctx)?,
        None => settings_path(agent.file(), &args, ctx)?,
    };
    let stamp = ctx.env.now.strftime("%Y%m%dT%H%M%SZ").to_string();
    let applied = match client {
        Some(c) => setup::apply_edit(&path, args.dry_run, &stamp, |old| {
            if args.remove {
                mcp_config::remove(c, old)
            } else {
                mcp_config::install(c, old)
            }
        })?,
        None => setup::apply(&path, agent, args.remove, args.dry_run, &stamp)?,
    };
    let (has, has_no) = if client.is_some() {
        ("the git-lore MCP server", "no git-lore MCP server")
    } else {
        ("git-lore's hooks", "no git-lore hooks")
    };
    let shown = ui::text(&path.display().to_string());
    if let Some(size) = applied.too_large {
        return Ok(too_large(&applied, &shown, size));
    }
    if args.dry_run {
        let diff = similar::TextDiff::from_lines(&applied.old, &applied.edit.text);
        let text = diff
            .unified_diff()
            .header(&format!("{shown} (now)"), &format!("{shown} (after setup)"))
            .to_string();
        // The file's own text may hold what a terminal would obey (JSON
        // allows C1 controls and bidi marks in strings): escaped per line.
        let text: String = text
            .split_inclusive('\n')
            .map(|l| match l.strip_suffix('\n') {
                Some(l) => format!("{}\n", ui::text(l)),
                None => ui::text(l),
            })
            .collect();
        ui::out(&text);
    }
    if applied.edit.changes.is_empty() {
        ui::status(if args.remove && !applied.existed {
            format!("setup: {shown} does not exist; nothing changed")
        } else if args.remove {
            format!("setup: {shown} has {has_no}; nothing changed")
        } else {
            format!("setup: {shown} already has {has}; nothing changed")
        });
        return Ok(Exit::Done);
    }
    for c in &applied.edit.changes {
        // A dry run says what it would do: "would add", "would remove".
        let c = match (args.dry_run, c.split_once(' ')) {
            (true, Some(("added", rest))) => format!("would add {rest}"),
            (true, Some(("removed", rest))) => format!("would remove {rest}"),
            _ => c.clone(),
        };
        ui::status(format!("setup: {c} in {shown}"));
    }
    if let Some(b) = &applied.backup {
        ui::status(format!(
            "setup: the old file is kept as {}",
            ui::text(&b.display().to_string())
        ));
    }
    if client.is_none() && agent == Agent::Codex && !args.remove && applied.written {
        // Codex runs a hook from a hooks.json only once a person has
        // trusted it, and a changed hook must be trusted again; git-lore
        // never writes that consent itself.
        ui::status(
            "setup: Codex runs new or changed hooks only after you trust them: start `codex` once and answer \"Hooks need review\" by trusting git-lore's two (until then it skips them without a word, and `codex exec` never asks); in versions that gate hooks behind a feature, also set `hooks = true` (older: `codex_hooks = true`) under [features] in ~/.codex/config.toml (docs/hooks.md)",
        );
    }
    if args.project && !args.remove {
        ui::status(format!(
            "setup: note: {shown} is shared with everyone who works on this project; {} Each teammate installs git-lore from a clone of its repository with `cargo install --locked --path .` (then `git lore init`)",
            match (client.is_some(), agent) {
                (true, _) => "for a teammate without git-lore the client reports that the git-lore server failed to start, and works on without it.",
                (false, Agent::Claude) => "for a teammate without git-lore, Claude Code reports a failed hook at each session start and end, and works on without it.",
                (false, Agent::Codex) => "for a teammate without git-lore, Codex reports a failed hook at each session start and turn end, and works on without it.",
            }
        ));
    }
    if !args.remove && !on_path(ctx) {
        ui::status(format!(
            "setup: warning: no git-lore on PATH; {} `git-lore`, so install it (cargo install --locked --path .) where the agent can find it",
            if client.is_some() { "the client starts" } else { "the hooks run" }
        ));
    }
    Ok(Exit::Done)
}
