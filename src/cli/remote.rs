use std::path::PathBuf;

use clap::{Args as ClapArgs, Subcommand};

use super::ui::{self, Ctx, Exit};
use git_lore::ops::remote;

/// Where a pool is shared: the remote of pool/org or pool/public.
///
/// A remote is an ordinary git remote (a path, git://, ssh, a forge) whose
/// refspecs carry only its pool branch. `--signer` pins the keys the remote
/// pool's first commit must be signed by, as ssh pins host keys; without a
/// pin, `sync` refuses an unknown first signer and prints how to pin it.
///
/// Example: `git lore remote add org git@git.example.com:team/lore.git
/// --signer owner.pub`.
#[derive(ClapArgs, Debug)]
pub struct Args {
    #[command(subcommand)]
    command: Remote,
}

#[derive(Subcommand, Debug)]
enum Remote {
    /// Set the remote of a tier (replacing an earlier one).
    Add {
        /// org or public.
        tier: String,
        /// Where the pool lives: a path, git://…, ssh://…, https://…
        url: String,
        /// A public key the pool's first commit may be signed by (repeat for
        /// several).
        #[arg(long, value_name = "PUBKEY-FILE")]
        signer: Vec<PathBuf>,
    },
    /// List the remotes and their pinned signers.
    List {
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// Forget a tier's remote and its pins (the pool branch stays).
    Remove {
        /// org or public.
        tier: String,
    },
}

pub fn run(args: Args, ctx: &Ctx) -> ui::Result {
    let mut lore = ctx.open()?;
    match args.command {
        Remote::Add { tier, url, signer } => {
            let tier = ui::parse_tier(&tier, false)?;
            let mut keys = Vec::new();
            for path in &signer {
                let key = remote::read_public_key(path, None)?;
                let comment = std::fs::read_to_string(path)
                    .ok()
                    .and_then(|t| remote::principal_in(&t));
                keys.push((key, comment));
            }
            let r = remote::add(&mut lore, tier, &url, &keys)?;
            ui::out(&format!(
                "{tier}: {} ({} pinned signer{})\n",
                ui::text(&remote::display_url(&r.url)),
                r.pins.len(),
                if r.pins.len() == 1 { "" } else { "s" }
            ));
            if r.pins.is_empty() {
                ui::status(format!(
                    "no signer pinned: `git lore sync {tier}` will show the first signer's fingerprint and how to pin it"
                ));
            }
        }
        Remote::List { json } => {
            let all = remote::list(&lore)?;
            if json {
                let shown: Vec<remote::Remote> = all
                    .into_iter()
                    .map(|r| remote::Remote {
                        url: remote::display_url(&r.url),
                        ..r
                    })
                    .collect();
                ui::out_json(&shown);
                return Ok(Exit::Done);
            }
            if all.is_empty() {
                ui::status(
                    "no remotes: add one with `git lore remote add org URL --signer OWNER.pub`",
                );
            }
            let mut s = String::new();
            for r in &all {
                s.push_str(&format!(
                    "{}  {}\n",
                    r.tier,
                    ui::text(&remote::display_url(&r.url))
                ));
                for (p, fp) in &r.pins {
                    s.push_str(&format!("  pinned {fp}  {}\n", ui::text(p)));
                }
            }
            ui::out(&s);
        }
        Remote::Remove { tier } => {
            let tier = ui::parse_tier(&tier, false)?;
            if remote::remove(&mut lore, tier)? {
                ui::out(&format!("{tier}: remote removed\n"));
            } else {
                ui::out(&format!("{tier}: there was no remote\n"));
            }
        }
    }
    Ok(Exit::Done)
}
