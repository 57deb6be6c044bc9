use clap::Args as ClapArgs;

use super::ui::{self, Ctx, Exit};
use git_lore::ops::query;

/// Bring the derived index up to date with history (or rebuild it).
///
/// The index is a cache under the git dir; every command catches it up by
/// itself, and deleting it changes no answer. This command exists to warm it
/// after a large import and to rebuild it on demand.
///
/// Examples: `git lore index`, `git lore index --rebuild`.
#[derive(ClapArgs, Debug)]
pub struct Args {
    /// Throw the index away and rebuild it from history.
    #[arg(long)]
    rebuild: bool,
    /// Accept that a branch moved backwards (a rollback, a rewrite): its
    /// new history becomes the verified one, once what it adds verifies.
    #[arg(long)]
    accept_rewrite: bool,
}

pub fn run(args: Args, ctx: &Ctx) -> ui::Result {
    let lore = ctx.open()?;
    if args.accept_rewrite {
        let accepted = git_lore::ops::trust::accept_rewrites(&lore)?;
        if accepted.is_empty() {
            ui::out("No branch moved backwards; nothing to accept.\n");
        }
        for a in &accepted {
            ui::out(&format!(
                "Accepted: {} moved from {} to {}, {} commits dropped.\n",
                a.branch,
                &a.from.to_string()[..12],
                a.to.map(|t| t.to_string()[..12].to_owned())
                    .unwrap_or_else(|| "nothing".into()),
                a.dropped
            ));
        }
    }
    let i = query::refresh_index(&lore, args.rebuild)?;
    ui::out(&format!(
        "index: {}, {}, {}{}\n",
        ui::count(i.artifacts, "artifact", "artifacts"),
        ui::count(i.lessons, "lesson", "lessons"),
        ui::count(i.pool_entries, "pool entry", "pool entries"),
        if i.rebuilt {
            " (rebuilt from history)".to_owned()
        } else if i.walked > 0 {
            format!(" (caught up {})", ui::count(i.walked, "commit", "commits"))
        } else {
            " (up to date)".to_owned()
        }
    ));
    Ok(Exit::Done)
}
