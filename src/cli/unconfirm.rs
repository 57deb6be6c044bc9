use clap::Args as ClapArgs;

use super::{Ctx, Outcome};
use git_lore::ops::review;

/// Take a confirmation back: the lesson is pending again, with its
/// pre-confirm candidate restored byte for byte. Refused once the jury has
/// decided. Never calls a model.
#[derive(ClapArgs, Debug)]
pub struct Args {
    /// The lesson id (ULID).
    #[arg(value_name = "ID")]
    id: String,
}

pub fn run(args: Args, ctx: &Ctx) -> Outcome {
    super::transition(ctx, &args.id, review::unconfirm, |p| {
        format!("Unconfirmed {}; it is pending again.\n", p.id)
    })
}
