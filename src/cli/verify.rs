use clap::Args as ClapArgs;

use super::ui::{self, Ctx, Exit};
use git_lore::ops::audit::{self, Scope};

/// Check history: every commit is signed by an allowed signer, its trailers
/// are well formed and agree with what it changed (touched records ↔
/// `Lore-Lesson` / `Lore-Artifact`, legal status transitions, each action
/// touching only its own files), and every touched record is valid against
/// its schema.
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

pub fn run(args: Args, ctx: &Ctx) -> ui::Result {
    let lore = ctx.open()?;
    let scope = match &args.range {
        None => Scope::All,
        Some(r) => match r.split_once("..") {
            Some((a, b)) => Scope::Range(a.to_owned(), b.to_owned()),
            None => Scope::Rev(r.clone()),
        },
    };
    let v = audit::verify(&lore, &scope)?;
    if args.json {
        ui::out_json(&Report {
            commits: v.commits,
            ok: v.problems.is_empty(),
            problems: &v.problems,
        });
    } else if v.problems.is_empty() {
        ui::out(&format!(
            "verified {} commits: every signature good, trailers and records consistent\n",
            v.commits
        ));
    } else {
        let mut s = String::new();
        for p in &v.problems {
            s.push_str(&format!(
                "{} ({}): {}\n",
                p.commit,
                p.branch,
                ui::text(&p.problem)
            ));
        }
        ui::out(&s);
        ui::status(format!(
            "{} problems in {} commits",
            v.problems.len(),
            v.commits
        ));
    }
    Ok(if v.problems.is_empty() {
        Exit::Done
    } else {
        Exit::Refused
    })
}
