use clap::Args as ClapArgs;

use super::{out, parse_id, report, Ctx, Outcome};
use git_lore::ops::review::{self, Done};

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
    let Some(id) = parse_id(&args.id) else {
        return Outcome::Refused;
    };
    let mut lore = match ctx.open() {
        Ok(l) => l,
        Err(e) => return report(e),
    };
    match review::pass(&mut lore, id, args.reason.as_deref()) {
        Ok(Done::Changed(_)) => {
            out(&format!("Passed on {id}.\n"));
            Outcome::Done
        }
        Ok(Done::Unchanged(n)) => {
            out(&format!("{n}\n"));
            Outcome::Done
        }
        Err(e) => report(e),
    }
}
