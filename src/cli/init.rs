use clap::Args as ClapArgs;

use super::{report, Ctx, Outcome};
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

pub fn run(_args: Args, ctx: &Ctx) -> Outcome {
    match git_lore::ops::init(&ctx.repo, ctx.env.clone(), ctx.rng()) {
        Ok((_, report)) => {
            match report.outcome {
                InitOutcome::Created => {
                    super::out(&format!(
                        "Initialized lesson repository in {}\n",
                        report.git_dir.display()
                    ));
                    if let Some(k) = report.created_key {
                        super::error(format!(
                            "created signing key {} (allowed signers: {})",
                            k.display(),
                            report.git_dir.join("allowed_signers").display()
                        ));
                    }
                }
                InitOutcome::AlreadyInitialised => super::out(&format!(
                    "Lesson repository already exists in {}; nothing changed\n",
                    report.git_dir.display()
                )),
            }
            Outcome::Done
        }
        Err(e) => report(e),
    }
}
