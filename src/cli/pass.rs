use clap::Args as ClapArgs;

use super::ui::{self, Ctx};
use git_lore::model::ProposalStatus;
use git_lore::ops::{confirm, query};

/// Pass on a pending lesson: the human's "don't share". It stays recorded
/// (so its artifact stays seen) and cannot be confirmed later. Never calls a
/// model. It is final, so it asks first on a terminal; elsewhere it needs
/// `--yes`.
///
/// Example: `git lore pass 01kz8nv6803 "internal tooling only" --yes`.
#[derive(ClapArgs, Debug)]
#[command(about = "Pass on a pending lesson: the human's \"don't share\"")]
pub struct Args {
    /// The lesson id, or a unique prefix of it (4 or more characters, any case).
    #[arg(value_name = "ID")]
    id: String,
    /// Why, in one line.
    #[arg(value_name = "REASON")]
    reason: Option<String>,
    /// Do not ask (needed without a terminal).
    #[arg(long)]
    yes: bool,
}

pub fn run(args: Args, ctx: &Ctx) -> ui::Result {
    let typed = ui::parse_id(&args.id)?;
    let mut lore = ctx.open()?;
    let id = ui::resolve_lesson(&lore, &typed)?;
    let pending = query::proposal(&lore, id)?.status == ProposalStatus::Pending;
    let question = format!("Pass on lesson {id}? It can never be confirmed afterwards.");
    // Only a pending lesson can be passed on: anything else is refused (or
    // a repeat) below, without a question.
    if pending && !ui::ask(&question, args.yes, "pass")? {
        ui::status("nothing passed");
        return Ok(ui::Exit::Done);
    }
    let t = confirm::pass(&mut lore, id, args.reason.as_deref())?;
    Ok(ui::print_transition(t, |p| {
        format!("Passed on {}.\n", p.id)
    }))
}
