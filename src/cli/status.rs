use clap::Args as ClapArgs;

use super::ui::{self, Ctx, Exit};
use git_lore::model::ProposalStatus;
use git_lore::ops::query;

/// Count lessons by status: what awaits a human (pending), what awaits the
/// jury (confirmed), what was decided, and what a crash left judged but not
/// promoted. The first line is the one a SessionStart hook shows.
///
/// Example: `git lore status`.
#[derive(ClapArgs, Debug)]
pub struct Args {
    /// Print JSON instead of text.
    #[arg(long)]
    json: bool,
}

pub fn run(args: Args, ctx: &Ctx) -> ui::Result {
    let lore = ctx.open()?;
    let trusted = ui::check_trust(&lore)?;
    let (counts, unpromoted) = query::counts(&lore)?;
    let get = |s: ProposalStatus| {
        counts
            .iter()
            .find(|(st, _)| *st == s)
            .map(|(_, n)| *n)
            .unwrap_or(0)
    };
    use ProposalStatus::*;
    if args.json {
        let mut m = serde_json::Map::new();
        for (s, n) in &counts {
            m.insert(s.as_str().into(), (*n).into());
        }
        m.insert(
            "awaiting_decision".into(),
            (get(Pending) + get(Confirmed)).into(),
        );
        m.insert("unpromoted".into(), unpromoted.into());
        m.insert("unverified".into(), trusted.flagged.len().into());
        m.insert("rewritten".into(), trusted.rewritten.into());
        ui::out_json(&m);
    } else {
        ui::out(&format!(
            "lessons pending: {}\nlessons confirmed (awaiting the jury): {}\nlessons approved: {}, rejected: {}, passed: {}\n",
            get(Pending),
            get(Confirmed),
            get(Approved),
            get(Rejected),
            get(Passed)
        ));
        if unpromoted > 0 {
            ui::out(&format!(
                "lessons judged but not promoted: {unpromoted} (an interrupted run; `git lore promote --all` finishes them)\n"
            ));
        }
    }
    Ok(if trusted.rewritten {
        Exit::Refused
    } else {
        Exit::Done
    })
}
