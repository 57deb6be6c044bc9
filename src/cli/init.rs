use clap::Args as ClapArgs;

use super::ui::{self, Ctx, Exit};
use git_lore::store::InitOutcome;

/// Create the lesson repository (bare, HEAD → ledger) with a signed `init`
/// commit.
///
/// When the repository's config names no signing key, a dedicated ed25519 key
/// is created for it (mode 0600) and registered in an allowed-signers file,
/// so `git verify-commit` and `git log --show-signature` report good
/// signatures with no further setup. A pre-push hook refuses to push the
/// ledger and pool/local. Running it again on an existing repository reports
/// it and changes nothing.
#[derive(ClapArgs, Debug)]
pub struct Args {}

pub fn run(_args: Args, ctx: &Ctx) -> ui::Result {
    let (_, report) = git_lore::ops::init(&ctx.repo, ctx.env.clone(), ctx.rng())?;
    match report.outcome {
        InitOutcome::Created => {
            ui::out(&format!(
                "Initialized lesson repository in {}\n",
                report.git_dir.display()
            ));
            if let Some(k) = report.created_key {
                ui::status(format!(
                    "created signing key {} (allowed signers: {})",
                    k.display(),
                    report.git_dir.join("allowed_signers").display()
                ));
            }
        }
        InitOutcome::AlreadyInitialised => ui::out(&format!(
            "Lesson repository already exists in {}; nothing changed\n",
            report.git_dir.display()
        )),
    }
    Ok(Exit::Done)
}
