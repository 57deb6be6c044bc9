use clap::Args as ClapArgs;

use super::{error, out, out_json, report, Ctx, Outcome};
use git_lore::ops::audit;

/// Check history: every commit is signed by an allowed signer, its trailers
/// are well formed and agree with what it changed (touched records ↔
/// `Lore-Lesson` / `Lore-Artifact`, legal status transitions), and every
/// touched record is valid against its schema.
///
/// Exit 0 when clean; 1 with the list of (commit, problem) otherwise.
#[derive(ClapArgs, Debug)]
pub struct Args {
    /// Commits to check: `A..B`, or one revision and its ancestors
    /// [default: every local lore branch].
    #[arg(value_name = "REV-RANGE")]
    range: Option<String>,
    /// Print JSON instead of text.
    #[arg(long)]
    json: bool,
}

#[derive(serde::Serialize)]
struct Report<'a> {
    commits: usize,
    ok: bool,
    problems: &'a [audit::Problem],
}

pub fn run(args: Args, ctx: &Ctx) -> Outcome {
    let lore = match ctx.open() {
        Ok(l) => l,
        Err(e) => return report(e),
    };
    let commits = match &args.range {
        None => None,
        Some(r) => {
            let resolved = match r.split_once("..") {
                Some((a, b)) => lore.store.resolve(a).and_then(|a| {
                    lore.store
                        .resolve(b)
                        .and_then(|b| lore.store.range(b, &[a]))
                }),
                None => lore
                    .store
                    .resolve(r)
                    .and_then(|tip| lore.store.ancestors(tip)),
            };
            match resolved {
                Ok(c) => Some(c),
                Err(e) => {
                    error(format!("bad revision range {r:?}: {e}"));
                    return Outcome::Refused;
                }
            }
        }
    };
    let (n, problems) = match audit::verify(&lore, commits) {
        Ok(r) => r,
        Err(e) => return report(e),
    };
    if args.json {
        out_json(&Report {
            commits: n,
            ok: problems.is_empty(),
            problems: &problems,
        });
    } else if problems.is_empty() {
        out(&format!(
            "verified {n} commits: every signature good, trailers and records consistent\n"
        ));
    } else {
        let mut s = String::new();
        for p in &problems {
            s.push_str(&format!("{} ({}): {}\n", p.commit, p.branch, p.problem));
        }
        out(&s);
        error(format!("{} problems in {n} commits", problems.len()));
    }
    if problems.is_empty() {
        Outcome::Done
    } else {
        Outcome::Refused
    }
}
