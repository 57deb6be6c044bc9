use clap::Args as ClapArgs;

use super::ui::{self, Ctx, Exit};
use git_lore::ops::promote;

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

pub fn run(args: Args, ctx: &Ctx) -> ui::Result {
    let mut lore = ctx.open()?;
    if args.all {
        let mut failed = 0;
        let done = promote::promote_all(&mut lore, &mut |id, p| match p {
            Ok(t) => {
                ui::print_transition(t.clone(), ui::promoted_line);
            }
            Err(e) => {
                failed += 1;
                ui::error(format!("lesson {id} was not promoted: {e}"));
            }
        })?;
        ui::status(format!(
            "promote: {} promoted, {failed} failed",
            done.len() - failed
        ));
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
