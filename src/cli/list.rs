use clap::Args as ClapArgs;

use super::ui::{self, Ctx, Exit};
use git_lore::model::ProposalStatus;
use git_lore::ops::query;

/// List lessons in one status (default: pending), oldest first, as
/// `<id>  <claim>`.
#[derive(ClapArgs, Debug)]
pub struct Args {
    /// pending, confirmed, passed, approved or rejected.
    #[arg(long, default_value = "pending", value_parser = parse_status)]
    status: ProposalStatus,
    /// Print the proposal records as a JSON array (`[]` when empty).
    #[arg(long)]
    json: bool,
}

fn parse_status(s: &str) -> Result<ProposalStatus, String> {
    s.parse()
        .map_err(|e: git_lore::names::NameError<ProposalStatus>| e.to_string())
}

pub fn run(args: Args, ctx: &Ctx) -> ui::Result {
    let lore = ctx.open()?;
    let trusted = ui::check_trust(&lore)?;
    let list = query::list(&lore, args.status)?;
    if args.json {
        ui::out_json(&list);
    } else if list.is_empty() {
        ui::out(&format!("No {} lessons.\n", args.status));
    } else {
        let mut s = String::new();
        for p in &list {
            let flag = if trusted.flagged.contains(&p.id) {
                "  [unverified]"
            } else {
                ""
            };
            s.push_str(&format!(
                "{}  {}{flag}\n",
                p.id,
                ui::text(&p.candidate.claim)
            ));
        }
        ui::out(&s);
    }
    Ok(Exit::Done)
}
