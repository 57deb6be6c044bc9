use std::io::Read;
use std::path::PathBuf;

use clap::{Args as ClapArgs, Subcommand};

use super::ui::{self, CliError, Ctx, Exit};
use git_lore::ops::{remote, signers};

/// Who may sign a pool: list, add and remove signers of pool/local,
/// pool/org or pool/public.
///
/// Each change is one signed `config` commit on the pool's
/// `.lore/allowed_signers`. On a pool whose threshold is above 1 (pool/public
/// once it has two signers), a change is a proposal that takes effect when
/// enough signers acknowledge it with `trust ack`.
///
/// Examples: `git lore trust add org bo.pub --principal bo@example.com`,
/// `git lore trust list org`, `git lore trust threshold public 2`.
#[derive(ClapArgs, Debug)]
#[command(about = "Who may sign a pool: list, add and remove its signers")]
pub struct Args {
    #[command(subcommand)]
    command: Trust,
}

#[derive(Subcommand, Debug)]
enum Trust {
    /// Add a key: a `.pub` file, a line `git lore key` printed, or `-` for
    /// standard input.
    Add {
        /// local, org or public.
        tier: String,
        /// The public key file, or `-`.
        #[arg(value_name = "PUBKEY-FILE|-")]
        key: PathBuf,
        /// Who the key belongs to (an e-mail).
        #[arg(long, value_name = "EMAIL")]
        principal: String,
    },
    /// List the signers, the threshold and any pending proposal.
    List {
        /// local, org or public.
        tier: String,
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// Remove a signer by principal or `SHA256:` fingerprint.
    Remove {
        /// local, org or public.
        tier: String,
        #[arg(value_name = "PRINCIPAL|FINGERPRINT")]
        who: String,
    },
    /// Acknowledge the pending change of who may sign the pool.
    Ack {
        /// local, org or public.
        tier: String,
    },
    /// Set how many signers must agree to change who may sign.
    Threshold {
        /// local, org or public.
        tier: String,
        /// At least 1, at most the number of signers.
        n: usize,
    },
}

fn said(tier: git_lore::model::Source, what: &str, c: &signers::Changed) {
    match c {
        signers::Changed::InForce => ui::out(&format!("pool/{tier}: {what}\n")),
        signers::Changed::Proposed { needed } => ui::out(&format!(
            "pool/{tier}: proposed {what}; in force once {} more signer{} acknowledge{} it with `git lore trust ack {tier}`\n",
            needed,
            if *needed == 1 { "" } else { "s" },
            if *needed == 1 { "s" } else { "" },
        )),
        signers::Changed::Unchanged => {
            ui::out(&format!("pool/{tier}: nothing to change ({what} already)\n"))
        }
    }
}

pub fn run(args: Args, ctx: &Ctx) -> ui::Result {
    let mut lore = ctx.open()?;
    match args.command {
        Trust::Add {
            tier,
            key,
            principal,
        } => {
            let tier = ui::parse_tier(&tier, true)?;
            let stdin = if key.as_os_str() == "-" {
                let mut t = String::new();
                std::io::stdin()
                    .take(64 << 10)
                    .read_to_string(&mut t)
                    .map_err(|e| CliError::Usage(format!("reading the key from stdin: {e}")))?;
                Some(t)
            } else {
                None
            };
            let line = remote::read_public_key(&key, stdin.as_deref())?;
            let c = signers::add(&mut lore, tier, &line, &principal)?;
            said(tier, &format!("{} may sign", ui::text(&principal)), &c);
        }
        Trust::List { tier, json } => {
            let tier = ui::parse_tier(&tier, true)?;
            let l = signers::list(&lore, tier)?;
            if json {
                ui::out_json(&l);
                return Ok(Exit::Done);
            }
            let mut s = String::new();
            if !l.exists {
                s.push_str(&format!(
                    "pool/{tier} does not exist yet; it will start with these signers:\n"
                ));
            }
            for x in &l.signers {
                s.push_str(&format!("{}  {}\n", x.fingerprint, ui::text(&x.principal)));
            }
            s.push_str(&format!(
                "threshold: {} signer{} must agree to change who may sign\n",
                l.threshold,
                if l.threshold == 1 { "" } else { "s" }
            ));
            if let Some(p) = &l.proposal {
                s.push_str("pending proposal:\n");
                for x in &p.signers {
                    s.push_str(&format!(
                        "  {}  {}\n",
                        x.fingerprint,
                        ui::text(&x.principal)
                    ));
                }
                if let Some(t) = p.threshold {
                    s.push_str(&format!("  with threshold {t}\n"));
                }
                s.push_str(&format!(
                    "  acknowledged by {} of {}: {}\n",
                    p.acknowledged_by.len(),
                    l.threshold,
                    p.acknowledged_by
                        .iter()
                        .map(|a| ui::text(a))
                        .collect::<Vec<_>>()
                        .join(", ")
                ));
            }
            ui::out(&s);
        }
        Trust::Remove { tier, who } => {
            let tier = ui::parse_tier(&tier, true)?;
            let c = signers::remove(&mut lore, tier, &who)?;
            said(tier, &format!("{} may no longer sign", ui::text(&who)), &c);
        }
        Trust::Ack { tier } => {
            let tier = ui::parse_tier(&tier, true)?;
            let c = signers::ack(&mut lore, tier)?;
            match c {
                signers::Changed::Unchanged => ui::out(&format!(
                    "pool/{tier}: this key already acknowledged the pending change\n"
                )),
                other => said(tier, "the change of signers", &other),
            }
        }
        Trust::Threshold { tier, n } => {
            let tier = ui::parse_tier(&tier, true)?;
            let c = signers::set_threshold(&mut lore, tier, n)?;
            said(tier, &format!("threshold {n}"), &c);
        }
    }
    Ok(Exit::Done)
}
