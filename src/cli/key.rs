use clap::Args as ClapArgs;

use super::ui::{self, Ctx, Exit};
use git_lore::ops::signers;
use git_lore::store::Identity;

/// Print this repository's public signing key as an allowed-signers line,
/// `<principal> <key-type> <key>`: what a teammate needs to trust you.
///
/// Send the line to a signer of the team's pool; they save it to a file
/// and run `git lore trust add org FILE --principal YOU`.
///
/// Example: `git lore key > ana.pub` (send that line to whoever runs the
/// pool).
#[derive(ClapArgs, Debug)]
#[command(about = "Print this repository's public signing key as an allowed-signers line")]
pub struct Args {
    /// Print JSON: principal, key_type, key, fingerprint.
    #[arg(long)]
    json: bool,
}

pub fn run(args: Args, ctx: &Ctx) -> ui::Result {
    let lore = ctx.open()?;
    let key = signers::key(&lore)?;
    if args.json {
        ui::out_json(&key);
    } else {
        ui::out(&format!("{}\n", ui::text(&key.line())));
        ui::status(format!("fingerprint {}", key.fingerprint));
    }
    if key.principal == Identity::PLACEHOLDER_EMAIL {
        ui::status(format!(
            "warning: the principal {} is the placeholder of every lesson repository made without a git identity: whoever trusts this line cannot tell you from anyone else without one. Set yours (`git config --global user.name \"Your Name\"`, `git config --global user.email you@example.com`) and make a lesson repository that signs as you (`git lore --repo DIR init`); an existing repository keeps its identity",
            Identity::PLACEHOLDER_EMAIL
        ));
    }
    Ok(Exit::Done)
}
