use std::path::{Path, PathBuf};

use clap::Args as ClapArgs;

use super::ui::{self, CliError, Ctx, Exit};
use git_lore::recall::render;
use git_lore::recall::stack::{self, ProjectError, Stack};

/// Show what a project has installed, as recall sees it: each package's
/// name, version, ecosystem and the lockfile it was read from (and its
/// workspace, in a monorepo). The project is `--project DIR`, else the
/// nearest directory from here upward that holds a lockfile (else a
/// manifest), within this git work tree and below the home directory;
/// its own lockfiles and those of the workspace members its manifests
/// declare are read, no other directory. Outside any project it says so
/// and exits 1. A lockfile that cannot be read is named on stderr with
/// what is wrong; the others still count.
///
/// Example: `git lore stack --project ~/src/app --json`
#[derive(ClapArgs, Debug)]
#[command(about = "Show the packages a project has installed, as recall sees them")]
pub struct Args {
    /// The project directory [default: the project the current directory
    /// is in].
    #[arg(long, value_name = "DIR")]
    project: Option<PathBuf>,
    /// Print JSON: packages, problems, the files read and the workspace
    /// members.
    #[arg(long)]
    json: bool,
}

pub fn run(args: Args, ctx: &Ctx) -> ui::Result {
    let located = args.project.is_none();
    let project = find_project(args.project, ctx).map_err(|e| outside(&e, "stack"))?;
    if located
        && std::env::current_dir()
            .ok()
            .and_then(|d| d.canonicalize().ok())
            != Some(project.clone())
    {
        ui::status(format!(
            "the project is {} (the nearest directory above here with a lockfile or manifest)",
            project.display()
        ));
    }
    let found = stack::scan(&project, &stack::Limits::default());
    if args.json {
        ui::out_json(&found);
    } else {
        if found.packages.is_empty() {
            ui::status(format!(
                "no installed packages found in {} (no lockfile git-lore reads)",
                project.display()
            ));
        }
        ui::out(&render::stack_text(&found));
    }
    members_note(&found);
    for line in render::problems_text(&found).lines() {
        ui::status(line);
    }
    Ok(Exit::Done)
}

/// The project a command reads: `--project DIR` as given, else the project
/// the working directory is in (`stack::locate`).
pub(super) fn find_project(given: Option<PathBuf>, ctx: &Ctx) -> Result<PathBuf, ProjectError> {
    match given {
        Some(dir) => Ok(dir),
        None => stack::locate(Path::new("."), ctx.env.home.as_deref()),
    }
}

/// The refusal of a command run outside any project.
pub(super) fn outside(e: &ProjectError, command: &str) -> CliError {
    CliError::Usage(format!(
        "{e}; run `git lore {command}` in a project's directory, or name one with --project DIR"
    ))
}

/// One status line naming the workspace members read, when there are any.
pub(super) fn members_note(found: &Stack) {
    const NAMED: usize = 8;
    if found.members.is_empty() {
        return;
    }
    let mut names: Vec<&str> = found
        .members
        .iter()
        .take(NAMED)
        .map(|m| m.dir.as_str())
        .collect();
    if found.members.len() > NAMED {
        names.push("…");
    }
    ui::status(format!(
        "{} workspace member{} read: {}",
        found.members.len(),
        if found.members.len() == 1 { "" } else { "s" },
        names.join(", ")
    ));
}
