use clap::Args as ClapArgs;

use super::output;
use super::ui::{self, Ctx, Exit};
use git_lore::ops::sync::{self, Integration, Options};

/// Bring a remote pool in: fetch pool/org or pool/public from its remote,
/// verify every incoming commit, then integrate it.
///
/// Each incoming commit must be signed by a key the pool lists at its
/// parent (its first commit by a pinned key), agree with what it changed,
/// write only valid entries and make only legal status moves; merges must
/// add nothing of their own. One commit that fails rejects the whole
/// fetch: nothing is integrated and the problems are listed (exit 1). A
/// remote that moved backwards since the last sync is refused until
/// accepted. Lessons that come in are ordinary entries of the local pool:
/// `recall`, `list` and `log` see them.
///
/// Examples: `git lore sync org`, `git lore sync org --pin SHA256:…` (after
/// checking the fingerprint with the pool's owner).
#[derive(ClapArgs, Debug)]
#[command(about = "Bring a remote pool in, after verifying every incoming commit")]
pub struct Args {
    /// org or public.
    tier: String,
    /// Print JSON.
    #[arg(long)]
    json: bool,
    /// Pin this key (`SHA256:…`) as the remote pool's first signer, if it
    /// is the one that signed it. Check the fingerprint with the pool's owner
    /// first.
    #[arg(long, value_name = "FINGERPRINT")]
    pin: Option<String>,
    /// Accept a remote pool that moved backwards since the last sync.
    #[arg(long)]
    accept_rollback: bool,
}

pub fn run(args: Args, ctx: &Ctx) -> ui::Result {
    let tier = ui::parse_tier(&args.tier, false)?;
    let mut lore = ctx.open()?;
    let r = sync::sync(
        &mut lore,
        tier,
        &Options {
            pin: args.pin,
            accept_rollback: args.accept_rollback,
        },
    )?;
    let failed = !r.problems.is_empty();
    if args.json {
        ui::out_json(&r);
    } else {
        if let Some(fp) = &r.pinned {
            ui::status(format!("pinned {fp} as the first signer of pool/{tier}"));
        }
        let url = ui::text(&r.url);
        if failed {
            ui::out(&output::problem_lines(&r.problems));
            ui::status(format!(
                "pool/{tier} from {url}: {} in {}; nothing was integrated (see `git lore verify`)",
                ui::count(r.problems.len(), "problem", "problems"),
                ui::count(r.verified, "incoming commit", "incoming commits")
            ));
        } else {
            let line = match &r.integration {
                Some(Integration::NoRemotePool) => {
                    format!("pool/{tier}: {url} has no pool/{tier} yet (`git lore publish {tier}` starts it)")
                }
                Some(Integration::UpToDate) | None => format!("pool/{tier}: up to date with {url}"),
                Some(Integration::FastForward) => format!(
                    "pool/{tier}: {} from {url}, {}",
                    ui::count(r.verified, "verified commit", "verified commits"),
                    ui::amount(r.new_entries, "new lesson", "new lessons")
                ),
                Some(Integration::Merged { commit }) => format!(
                    "pool/{tier}: {} from {url} merged ({}), {}",
                    ui::count(r.verified, "verified commit", "verified commits"),
                    &commit[..12],
                    ui::amount(r.new_entries, "new lesson", "new lessons")
                ),
                Some(Integration::Adopted {
                    readded,
                    kept_at,
                    began_separately,
                }) => format!(
                    "pool/{tier}: now {url}'s history ({}) with this pool's own {} promoted again on top, signed now ({}; the old history is kept at {kept_at})",
                    ui::count(r.verified, "verified commit", "verified commits"),
                    ui::count(*readded, "lesson", "lessons"),
                    if *began_separately {
                        "this pool had begun separately"
                    } else {
                        "they were made before this key could sign the pool"
                    }
                ),
            };
            let mut s = format!("{line}\n");
            for res in &r.resolved {
                s.push_str(&format!(
                    "  {}: kept {} ({}) over {}\n",
                    res.lesson, res.kept, res.side, res.dropped
                ));
            }
            ui::out(&s);
        }
    }
    Ok(if failed { Exit::Refused } else { Exit::Done })
}
