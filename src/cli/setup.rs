use std::path::PathBuf;

use clap::Args as ClapArgs;

use super::ui::{self, CliError, Ctx, Exit};
use git_lore::ops::setup;

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
/// `git-lore` on the agent's PATH (`cargo install --path .` puts it there).
///
/// Examples: `git lore setup claude --project` (this project's
/// .claude/settings.json), `git lore setup claude --user` (every project),
/// `git lore setup claude --dry-run` (show the change as a diff),
/// `git lore setup claude --remove`.
#[derive(ClapArgs, Debug)]
pub struct Args {
    /// The agent (only `claude`, for Claude Code, so far).
    #[arg(value_parser = ["claude"])]
    agent: String,
    /// ~/.claude/settings.json: every project on this machine [the default].
    #[arg(long, conflicts_with = "project")]
    user: bool,
    /// .claude/settings.json at the top of the project (the git work tree
    /// holding the current directory, else the current directory): shared
    /// with everyone who works on it.
    #[arg(long)]
    project: bool,
    /// Take git-lore's hooks out instead.
    #[arg(long)]
    remove: bool,
    /// Print the change as a diff and write nothing.
    #[arg(long)]
    dry_run: bool,
}

/// The settings file the flags name.
fn settings_path(args: &Args, ctx: &Ctx) -> ui::Result<PathBuf> {
    if args.project {
        let (_, root) = git_lore::store::mine::identify(std::path::Path::new("."));
        return Ok(root.join(".claude/settings.json"));
    }
    let home = ctx.env.home.as_ref().ok_or_else(|| {
        CliError::Usage("HOME is not set: name the project's settings with --project".into())
    })?;
    Ok(home.join(".claude/settings.json"))
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

pub fn run(args: Args, ctx: &Ctx) -> ui::Result {
    let path = settings_path(&args, ctx)?;
    let stamp = ctx.env.now.strftime("%Y%m%dT%H%M%SZ").to_string();
    let applied = setup::apply(&path, args.remove, args.dry_run, &stamp)?;
    let shown = ui::text(&path.display().to_string());
    if args.dry_run {
        let diff = similar::TextDiff::from_lines(&applied.old, &applied.edit.text);
        let text = diff
            .unified_diff()
            .header(&format!("{shown} (now)"), &format!("{shown} (after setup)"))
            .to_string();
        ui::out(&text);
    }
    if applied.edit.changes.is_empty() {
        ui::status(if args.remove && !applied.existed {
            format!("setup: {shown} does not exist; nothing changed")
        } else if args.remove {
            format!("setup: {shown} has no git-lore hooks; nothing changed")
        } else {
            format!("setup: {shown} already has git-lore's hooks; nothing changed")
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
    if !args.remove && !on_path(ctx) {
        ui::status(
            "setup: warning: no git-lore on PATH; the hooks run `git-lore`, so install it (cargo install --path .) where the agent can find it",
        );
    }
    Ok(Exit::Done)
}
