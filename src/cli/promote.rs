use clap::Args as ClapArgs;

use super::ui::{self, Ctx, Exit};
use git_lore::model::ProposalStatus;
use git_lore::ops::promote;
use git_lore::review::Transition;

/// Promote a judged lesson: an approved one becomes a Lesson v2 entry on
/// pool/local, pool/org or pool/public (by visibility); a rejected one is
/// stamped and stays on the ledger. `judge` promotes by itself; this retries
/// one that was interrupted, and `--all` every one. Running it again is a
/// no-op.
///
/// Examples: `git lore promote 01kz8nv6803`, `git lore promote --all`.
#[derive(ClapArgs, Debug)]
#[command(about = "Promote judged lessons into their pools (retries what `judge` left undone)")]
pub struct Args {
    /// The lesson id, or a unique prefix of it (4 or more characters, any case).
    #[arg(
        value_name = "ID",
        required_unless_present = "all",
        conflicts_with = "all"
    )]
    id: Option<String>,
    /// Finish every promote an interrupted `judge` left undone.
    #[arg(long)]
    all: bool,
}

/// What `promote --all` says after the lessons it finished: `promote: 1
/// lesson promoted, 1 rejected kept out of the pools`.
fn summary(promoted: usize, kept_out: usize, failed: usize) -> String {
    let mut s = format!(
        "promote: {}",
        ui::amount(promoted, "lesson promoted", "lessons promoted")
    );
    if kept_out > 0 {
        s.push_str(&format!(", {kept_out} rejected kept out of the pools"));
    }
    if failed > 0 {
        s.push_str(&format!(", {failed} failed"));
    }
    s
}

pub fn run(args: Args, ctx: &Ctx) -> ui::Result {
    let mut lore = ctx.open()?;
    if args.all {
        let (mut promoted, mut kept_out, mut failed) = (0, 0, 0);
        promote::promote_all(&mut lore, &mut |id, p| match p {
            Ok(t) => {
                match t {
                    Transition::Changed(p) if p.status == ProposalStatus::Approved => promoted += 1,
                    Transition::Changed(_) => kept_out += 1,
                    Transition::Unchanged(_) => {}
                }
                ui::print_transition(t.clone(), ui::promoted_line);
            }
            Err(e) => {
                failed += 1;
                ui::error(format!(
                    "lesson {id} was not promoted: {e}; run `git lore promote {id}` to retry"
                ));
            }
        })?;
        ui::status(summary(promoted, kept_out, failed));
        return Ok(if failed > 0 {
            Exit::Refused
        } else {
            Exit::Done
        });
    }
    let id = ui::resolve_lesson(
        &lore,
        &ui::parse_id(args.id.as_deref().unwrap_or_default())?,
    )?;
    let t = promote::promote(&mut lore, id)?;
    Ok(ui::print_transition(t, ui::promoted_line))
}
