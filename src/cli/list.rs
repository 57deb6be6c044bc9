use clap::Args as ClapArgs;

use super::{out, out_json, report, Ctx, Outcome};
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
    s.parse().map_err(|_| {
        format!("status must be one of: pending, confirmed, passed, approved, rejected (got {s:?})")
    })
}

pub fn run(args: Args, ctx: &Ctx) -> Outcome {
    let lore = match ctx.open() {
        Ok(l) => l,
        Err(e) => return report(e),
    };
    let list = match query::list(&lore, args.status) {
        Ok(l) => l,
        Err(e) => return report(e),
    };
    if args.json {
        out_json(&list);
    } else if list.is_empty() {
        out(&format!("No {} lessons.\n", args.status));
    } else {
        let mut s = String::new();
        for p in &list {
            s.push_str(&format!("{}  {}\n", p.id, p.candidate.claim));
        }
        out(&s);
    }
    Outcome::Done
}
