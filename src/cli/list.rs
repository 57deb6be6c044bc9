use clap::Args as ClapArgs;

use super::ui::{self, Ctx, Exit};
use git_lore::model::{unique_prefix_len, ProposalStatus};
use git_lore::ops::query;

/// List lessons in one status (default: pending), oldest first, as
/// `<id>  <claim>`, each id cut to the shortest prefix that names it (any
/// command takes that prefix where it takes an id).
///
/// Example: `git lore list --status approved`, or in a script
/// `id=$(git lore list --ids | head -n 1)`.
#[derive(ClapArgs, Debug)]
#[command(about = "List lessons in one status (default: pending), oldest first")]
pub struct Args {
    /// pending, confirmed, passed, approved or rejected.
    #[arg(long, default_value = "pending", value_parser = parse_status)]
    status: ProposalStatus,
    /// Print the proposal records as a JSON array (`[]` when empty).
    #[arg(long, conflicts_with = "ids")]
    json: bool,
    /// Print only the whole ids, one per line.
    #[arg(long)]
    ids: bool,
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
    } else if args.ids {
        ui::out(
            &list
                .iter()
                .map(|p| format!("{}\n", p.id))
                .collect::<String>(),
        );
    } else if list.is_empty() {
        ui::status(format!("No {} lessons.", args.status));
    } else {
        let known = query::known_ids(&lore)?;
        let shorts: Vec<String> = list
            .iter()
            .map(|p| p.id.to_string()[..unique_prefix_len(p.id, &known)].to_owned())
            .collect();
        let width = shorts.iter().map(String::len).max().unwrap_or(0);
        let mut s = String::new();
        for (p, short) in list.iter().zip(&shorts) {
            let flag = if trusted.flagged.contains(&p.id) {
                "  [unverified]"
            } else {
                ""
            };
            s.push_str(&format!(
                "{short:<width$}  {}{flag}\n",
                ui::text(&p.candidate.claim)
            ));
        }
        ui::out(&s);
    }
    Ok(Exit::Done)
}
