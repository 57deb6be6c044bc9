use clap::Args as ClapArgs;

use super::{Ctx, Outcome};
use git_lore::ops::review;

/// Promote a judged lesson: an approved one becomes a Lesson v2 entry on
/// pool/local, pool/org or pool/public (by visibility); a rejected one is
/// stamped and stays on the ledger. `judge` promotes by itself; this retries
/// one that was interrupted. Running it again is a no-op.
#[derive(ClapArgs, Debug)]
pub struct Args {
    /// The lesson id (ULID).
    #[arg(value_name = "ID")]
    id: String,
}

pub fn run(args: Args, ctx: &Ctx) -> Outcome {
    super::transition(ctx, &args.id, review::promote, promoted_line)
}

/// The line printed after a promote that wrote something.
pub fn promoted_line(p: &git_lore::model::Proposal) -> String {
    match (p.status, p.visibility) {
        (git_lore::model::ProposalStatus::Approved, Some(v)) => {
            format!(
                "Lesson {} promoted to pool/{}.\n",
                p.id,
                v.source().as_str()
            )
        }
        _ => format!(
            "Lesson {} is {}; its verdict stays on the ledger.\n",
            p.id, p.status
        ),
    }
}
