use clap::Args as ClapArgs;

use super::ui::{self, Ctx};
use git_lore::ops::confirm;

/// Pass on a pending lesson: the human's "don't share". It stays recorded
/// (so its artifact stays seen) and cannot be confirmed later. Never calls a
/// model.
#[derive(ClapArgs, Debug)]
pub struct Args {
    /// The lesson id (ULID).
    #[arg(value_name = "ID")]
    id: String,
    /// Why, in one line.
    #[arg(value_name = "REASON")]
    reason: Option<String>,
}

pub fn run(args: Args, ctx: &Ctx) -> ui::Result {
    let id = ui::parse_id(&args.id)?;
    let mut lore = ctx.open()?;
    let t = confirm::pass(&mut lore, id, args.reason.as_deref())?;
    Ok(ui::print_transition(t, |p| {
        format!("Passed on {}.\n", p.id)
    }))
}
