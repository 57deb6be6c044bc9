use std::path::PathBuf;

use clap::Args as ClapArgs;

use super::ui::{self, Ctx, Exit};
use git_lore::ops::{host, remote};

/// Host pools: create (or update) a bare repository that accepts pool/org,
/// pool/public and review/<lesson-id> pushes only when every commit
/// verifies.
///
/// Installs `hooks/pre-receive`, which runs `git lore verify --pre-receive`,
/// and records the keys allowed to sign a pool's first commit. Serve the
/// directory with ssh, `git daemon` or a git HTTP server; push and fetch it
/// like any remote. Running it again replaces the root signers and the hook.
///
/// Example: `git lore host /srv/git/team-lore.git --signer
/// ana.pub --signer bo.pub` (on the server).
#[derive(ClapArgs, Debug)]
#[command(about = "Host pools: a bare repository that accepts only commits that verify")]
pub struct Args {
    /// The bare repository to create or update.
    dir: PathBuf,
    /// A public key allowed to start a pool here (repeat for several).
    #[arg(long, value_name = "PUBKEY-FILE", required = true)]
    signer: Vec<PathBuf>,
}

pub fn run(args: Args, ctx: &Ctx) -> ui::Result {
    let mut keys = Vec::new();
    for path in &args.signer {
        let key = remote::read_public_key(path, None)?;
        // The key file's comment names its owner when it is an e-mail.
        let principal = std::fs::read_to_string(path)
            .ok()
            .and_then(|t| remote::principal_in(&t))
            .unwrap_or_else(|| "root".into());
        keys.push((key, principal));
    }
    let h = host::host(&args.dir, &keys, &ctx.env)?;
    ui::out(&format!(
        "{} pool host in {}: pre-receive hook installed, {} root signer{}\n",
        if h.created { "Created" } else { "Updated" },
        h.path.display(),
        h.root_signers.len(),
        if h.root_signers.len() == 1 { "" } else { "s" }
    ));
    for (p, fp) in &h.root_signers {
        ui::status(format!("root signer {fp}  {}", ui::text(p)));
    }
    Ok(Exit::Done)
}
