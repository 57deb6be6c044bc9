use clap::Args as ClapArgs;

use super::ui::{self, Ctx};
use git_lore::ops::confirm;

/// Take a confirmation back: the lesson is pending again, with its
/// pre-confirm candidate restored byte for byte. Refused once the jury has
/// decided. Never calls a model.
///
/// Example: `git lore unconfirm 01kz8nv6803`.
#[derive(ClapArgs, Debug)]
#[command(about = "Take a confirmation back: the lesson is pending again")]
pub struct Args {
    /// The lesson id, or a unique prefix of it (4 or more characters, any case).
    #[arg(value_name = "ID")]
    id: String,
}

pub fn run(args: Args, ctx: &Ctx) -> ui::Result {
    let typed = ui::parse_id(&args.id)?;
    let mut lore = ctx.open()?;
    let id = ui::resolve_lesson(&lore, &typed)?;
    let t = confirm::unconfirm(&mut lore, id)?;
    Ok(ui::print_transition(t, |p| {
        format!("Unconfirmed {}; it is pending again.\n", p.id)
    }))
}
