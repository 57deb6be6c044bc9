use clap::Args as ClapArgs;

use super::{out, report, Ctx, Outcome};
use git_lore::store::{Index, Store};

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

pub fn run(args: Args, ctx: &Ctx) -> Outcome {
    let store = match Store::open(&ctx.repo, ctx.env.host()) {
        Ok(s) => s,
        Err(e) => return report(e.into()),
    };
    let index = if args.rebuild {
        Index::rebuild(&store)
    } else {
        Index::load(&store)
    };
    match index {
        Ok(i) => {
            let (a, l) = i.counts();
            out(&format!(
                "index: {a} artifacts, {l} lessons{}\n",
                if args.rebuild || i.rebuilt {
                    " (rebuilt from history)".to_owned()
                } else if i.walked > 0 {
                    format!(" (caught up {} commits)", i.walked)
                } else {
                    " (up to date)".to_owned()
                }
            ));
            Outcome::Done
        }
        Err(e) => report(e.into()),
    }
}
