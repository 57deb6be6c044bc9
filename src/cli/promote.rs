use clap::Args as ClapArgs;

use super::ui::{self, Ctx};
use git_lore::ops::promote;

/// Promote a judged lesson: an approved one becomes a Lesson v2 entry on
/// pool/local, pool/org or pool/public (by visibility); a rejected one is
/// stamped and stays on the ledger. `judge` promotes by itself; this retries
/// one that was interrupted. Running it again is a no-op.
#[derive(ClapArgs, Debug)]
pub struct Args {
    /// The lesson id (ULID).
    #[arg(value_name = "ID")]
    id: String,
}

pub fn run(args: Args, ctx: &Ctx) -> ui::Result {
    let id = ui::parse_id(&args.id)?;
    let mut lore = ctx.open()?;
    let t = promote::promote(&mut lore, id)?;
    Ok(ui::print_transition(t, ui::promoted_line))
}
