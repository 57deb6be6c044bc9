use std::path::PathBuf;

use clap::Args as ClapArgs;

use super::ui::{self, Ctx, Exit};
use git_lore::recall::{render, stack};

/// Show what a project has installed, as recall sees it: each package's
/// name, version, ecosystem and the lockfile it was read from (and its
/// workspace, in a monorepo). A lockfile that cannot be read is named on
/// stderr with what is wrong; the others still count.
///
/// Example: `git lore stack --project ~/src/app --json`
#[derive(ClapArgs, Debug)]
#[command(about = "Show the packages a project has installed, as recall sees them")]
pub struct Args {
    /// The project directory [default: the current directory].
    #[arg(long, value_name = "DIR")]
    project: Option<PathBuf>,
    /// Print JSON: packages, problems and the files read.
    #[arg(long)]
    json: bool,
}

pub fn run(args: Args, _ctx: &Ctx) -> ui::Result {
    let project = args.project.unwrap_or_else(|| PathBuf::from("."));
    let found = stack::scan(&project, &stack::Limits::default());
    if args.json {
        ui::out_json(&found);
    } else {
        if found.packages.is_empty() {
            ui::status(format!(
                "no installed packages found under {} (no lockfile git-lore reads)",
                project.display()
            ));
        }
        ui::out(&render::stack_text(&found));
    }
    for line in render::problems_text(&found).lines() {
        ui::status(line);
    }
    Ok(Exit::Done)
}
