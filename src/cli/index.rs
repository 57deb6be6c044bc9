use clap::Args as ClapArgs;

use super::ui::{self, Ctx, Exit};
use git_lore::ops::query;

/// Bring the derived index up to date with history (or rebuild it).
///
/// The index is a cache under the git dir; every command catches it up by
/// itself, and deleting it changes no answer. This command exists to warm it
/// after a large import and to rebuild it on demand.
#[derive(ClapArgs, Debug)]
pub struct Args {
    /// Throw the index away and rebuild it from history.
    #[arg(long)]
    rebuild: bool,
}

pub fn run(args: Args, ctx: &Ctx) -> ui::Result {
    let lore = ctx.open()?;
    let i = query::refresh_index(&lore, args.rebuild)?;
    ui::out(&format!(
        "index: {} artifacts, {} lessons{}\n",
        i.artifacts,
        i.lessons,
        if i.rebuilt {
            " (rebuilt from history)".to_owned()
        } else if i.walked > 0 {
            format!(" (caught up {} commits)", i.walked)
        } else {
            " (up to date)".to_owned()
        }
    ));
    Ok(Exit::Done)
}
