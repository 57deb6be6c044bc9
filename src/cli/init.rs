use clap::Args as ClapArgs;

use super::ui::{self, Ctx, Exit};
use git_lore::store::{Identity, InitOutcome};

/// Create the lesson repository (bare, HEAD → ledger) with a signed `init`
/// commit.
///
/// When the repository's config names no signing key, a dedicated ed25519 key
/// is created for it (mode 0600) and registered in an allowed-signers file,
/// so `git verify-commit` and `git log --show-signature` report good
/// signatures with no further setup. A pre-push hook refuses to push the
/// ledger and pool/local. Running it again on an existing repository reports
/// it and changes nothing.
///
/// Commits are written as you: the name and e-mail come from --name and
/// --email, else from your own git configuration (user.name, user.email),
/// read this once and copied into the lesson repository. Without either,
/// git-lore / git-lore@localhost, with a warning: that placeholder is the
/// same for everyone, so set your identity first (`git config --global
/// user.email you@example.com`). The e-mail is the principal teammates
/// list in their pools' signers (`git lore key` prints the line).
///
/// Example: `git lore init --email ana@example.com --name Ana`.
#[derive(ClapArgs, Debug)]
pub struct Args {
    /// The e-mail commits are written with and the principal of your key.
    #[arg(long, value_name = "EMAIL")]
    email: Option<String>,
    /// The name commits are written with.
    #[arg(long, value_name = "NAME")]
    name: Option<String>,
}

pub fn run(args: Args, ctx: &Ctx) -> ui::Result {
    let who = git_lore::ops::init::IdentityChoice {
        name: args.name,
        email: args.email,
    };
    let (lore, report) = git_lore::ops::init(&ctx.repo, ctx.env.clone(), ctx.rng(), &who)?;
    match report.outcome {
        InitOutcome::Created => {
            let me = lore.identity();
            ui::out(&format!(
                "Initialized lesson repository in {} as {} <{}>\n",
                report.git_dir.display(),
                ui::text(&me.name),
                ui::text(&me.email)
            ));
            if let Some(k) = report.created_key {
                ui::status(format!(
                    "created signing key {} (allowed signers: {})",
                    k.display(),
                    report.git_dir.join("allowed_signers").display()
                ));
            }
            // The e-mail is the principal teammates trust: the placeholder
            // makes everyone without an identity the same signer.
            if me.email == Identity::PLACEHOLDER_EMAIL {
                ui::status(format!(
                    "warning: no git identity (user.email), so this repository signs as {} <{}>, as does everyone's without one: teammates who trust your key cannot tell you apart. Set yours with `git config --global user.name \"Your Name\"` and `git config --global user.email you@example.com`, then remove {} (it holds nothing yet) and run `git lore init` again",
                    ui::text(&me.name),
                    ui::text(&me.email),
                    report.git_dir.display()
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
