use std::io::Read;

use clap::{Args as ClapArgs, Subcommand};

use super::ui::{self, CliError, Ctx, Exit};
use git_lore::ops::guard;

/// Checks run by the hooks git-lore installs; not for typing by hand.
///
/// `hook pre-push REMOTE URL` reads git's pre-push lines on stdin and refuses
/// (exit 1) any push that would send the history of the ledger or
/// pool/local, under any ref name.
#[derive(ClapArgs, Debug)]
pub struct Args {
    #[command(subcommand)]
    hook: Hook,
}

#[derive(Subcommand, Debug)]
enum Hook {
    /// The pre-push guard.
    PrePush {
        /// The remote's name.
        remote: Option<String>,
        /// The remote's URL.
        url: Option<String>,
    },
}

pub fn run(args: Args, ctx: &Ctx) -> ui::Result {
    match args.hook {
        Hook::PrePush { .. } => {
            let mut text = String::new();
            std::io::stdin()
                .take(1 << 20)
                .read_to_string(&mut text)
                .map_err(|e| CliError::Usage(format!("reading the pre-push lines: {e}")))?;
            let lore = ctx.open()?;
            let updates = guard::parse_pre_push(&text)?;
            let refusals = guard::check_push(&lore, &updates)?;
            for r in &refusals {
                ui::error(format!(
                    "refusing to push {} to {}: {}; only pool/org and pool/public may be pushed",
                    r.local_ref, r.remote_ref, r.why
                ));
            }
            Ok(if refusals.is_empty() {
                Exit::Done
            } else {
                Exit::Refused
            })
        }
    }
}
