use clap::Args as ClapArgs;

use super::{out, parse_id, report, Ctx, Outcome};
use git_lore::ops::review::{self, Done};

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
    let Some(id) = parse_id(&args.id) else {
        return Outcome::Refused;
    };
    let mut lore = match ctx.open() {
        Ok(l) => l,
        Err(e) => return report(e),
    };
    match review::unconfirm(&mut lore, id) {
        Ok(Done::Changed(_)) => {
            out(&format!("Unconfirmed {id}; it is pending again.\n"));
            Outcome::Done
        }
        Ok(Done::Unchanged(n)) => {
            out(&format!("{n}\n"));
            Outcome::Done
        }
        Err(e) => report(e),
    }
}
