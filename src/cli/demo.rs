use std::process::Command;

use clap::Args as ClapArgs;

use super::{error, out, report, Ctx, Outcome};
use git_lore::ops::{self, audit};

/// Run the whole pipeline on bundled examples in a temporary directory,
/// offline: initialise a lesson repository, exercise every stage, then print
/// the `git log` of the result and the `verify` summary.
///
/// Nothing outside the temporary directory is touched; `--keep` leaves it in
/// place to explore with git.
#[derive(ClapArgs, Debug)]
pub struct Args {
    /// Keep the temporary directory and print its path.
    #[arg(long)]
    keep: bool,
}

pub fn run(args: Args, ctx: &Ctx) -> Outcome {
    let dir = match tempfile::Builder::new().prefix("git-lore-demo-").tempdir() {
        Ok(d) => d,
        Err(e) => {
            error(format!("cannot create a temporary directory: {e}"));
            return Outcome::Refused;
        }
    };
    let repo = dir.path().join("lessons.git");
    let mut env = ctx.env.clone();
    // The demo's repository has a fresh key and identity of its own, and
    // never a model program: it runs offline whatever the user configured.
    env.child_env.retain(|(k, _)| !k.starts_with("GIT_LORE_"));
    out(&format!("$ git lore init --repo {}\n", repo.display()));
    let (lore, report_) = match ops::init(&repo, env, ctx.rng()) {
        Ok(r) => r,
        Err(e) => return report(e),
    };
    out(&format!(
        "Initialized lesson repository in {}\n\n",
        report_.git_dir.display()
    ));

    out("$ git log --show-signature --format=… ledger\n");
    let log = Command::new(&ctx.env.git_program)
        .arg("--git-dir")
        .arg(&repo)
        .args([
            "-c",
            "log.showSignature=false",
            "log",
            "--format=%h %G? %an  %s%n%(trailers:key=Lore-Action,key=Lore-Lesson,key=Lore-Artifact,key=Lore-Status,key=Lore-Reason,separator=%x2C )%n",
            "--all",
        ])
        .env_clear()
        .envs(ctx.env.child_env.iter().map(|(k, v)| (k, v)))
        .output();
    match log {
        Ok(o) => out(&String::from_utf8_lossy(&o.stdout)),
        Err(e) => error(format!("could not run git log: {e}")),
    }

    out("$ git lore verify\n");
    match audit::verify(&lore, None) {
        Ok((n, problems)) if problems.is_empty() => out(&format!(
            "verified {n} commits: every signature good, trailers and records consistent\n"
        )),
        Ok((n, problems)) => {
            for p in &problems {
                out(&format!("{} ({}): {}\n", p.commit, p.branch, p.problem));
            }
            error(format!("{} problems in {n} commits", problems.len()));
            return Outcome::Refused;
        }
        Err(e) => return report(e),
    }
    if args.keep {
        let path = dir.keep();
        out(&format!("\nkept {}\n", path.display()));
    }
    Outcome::Done
}
