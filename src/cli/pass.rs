use clap::Args as ClapArgs;

use super::{Ctx, Outcome};
use git_lore::ops::review;

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

pub fn run(args: Args, ctx: &Ctx) -> Outcome {
    super::transition(
        ctx,
        &args.id,
        |lore, id| review::pass(lore, id, args.reason.as_deref()),
        |p| format!("Passed on {}.\n", p.id),
    )
}
