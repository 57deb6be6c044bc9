use clap::Args as ClapArgs;

use super::output;
use super::ui::{self, CliError, Ctx, Exit};
use git_lore::ops::audit::{self, Scope};
use git_lore::ops::host;

/// Check history: every commit is signed by an allowed signer, its trailers
/// are well formed and agree with what it changed (touched records ↔
/// `Lore-Lesson` / `Lore-Artifact`, legal status transitions, each action
/// touching only its own files), and every touched record is valid against
/// its schema.
///
/// Exit 0 when clean; 1 with the list of (commit, problem) otherwise.
///
/// With --pre-receive (what the hook `git lore host` installs runs): read
/// git's `<old> <new> <ref>` lines on stdin inside the receiving
/// repository and check every pushed commit it does not have yet; any
/// problem rejects the whole push, one line per problem.
///
/// Examples: `git lore verify`, `git lore verify --pool org`.
#[derive(ClapArgs, Debug)]
#[command(about = "Check every signature, trailer and record in history")]
pub struct Args {
    /// Check a push, as a pool host's pre-receive hook.
    #[arg(long, conflicts_with_all = ["range", "pool"])]
    pre_receive: bool,
    /// Check REV-RANGE of any repository (a forge checkout in CI) as
    /// commits of pool/org or pool/public, by the rules a pool host applies:
    /// each commit signed by a key the pool lists at its parent.
    #[arg(long, value_name = "TIER", requires = "range")]
    pool: Option<String>,
    /// With --pool: also print each problem as a GitHub Actions error
    /// annotation (`::error title=…::…`).
    #[arg(long, requires = "pool")]
    github: bool,
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

fn pre_receive(ctx: &Ctx) -> ui::Result {
    use std::io::Read;
    let mut text = String::new();
    std::io::stdin()
        .take(1 << 20)
        .read_to_string(&mut text)
        .map_err(|e| CliError::Usage(format!("reading the pre-receive lines: {e}")))?;
    let updates = host::parse_updates(&text)?;
    // The pushed objects wait in quarantine; merge checks run `git`, which
    // must see them too.
    let mut env = ctx.env.clone();
    env.child_env.extend(ctx.object_env.iter().cloned());
    let quarantine = ctx.var("GIT_QUARANTINE_PATH").map(std::path::PathBuf::from);
    let problems = host::pre_receive(
        &ctx.repo,
        &env,
        quarantine.as_deref(),
        &updates,
        ctx.env.now,
    )?;
    if problems.is_empty() {
        return Ok(Exit::Done);
    }
    // On stderr, shown to the pusher as `remote: …` lines.
    for p in &problems {
        ui::status(format!(
            "git-lore: rejected {} ({}): {}",
            p.commit, p.branch, p.problem
        ));
    }
    Ok(Exit::Refused)
}

/// One GitHub Actions workflow command that annotates the check with a
/// problem: `::error title=…::<message>` and a newline. Workflow commands
/// end at a newline, so `%`, CR and LF in the message are escaped as GitHub
/// documents.
fn annotation(tier: impl std::fmt::Display, commit: &str, problem: &str) -> String {
    let esc = |t: &str| {
        t.replace('%', "%25")
            .replace('\r', "%0D")
            .replace('\n', "%0A")
    };
    format!(
        "::error title=git-lore verify::commit {} on pool/{tier}: {}\n",
        esc(commit),
        esc(problem)
    )
}

/// `verify --pool TIER A..B`: a forge checkout's pull request, checked as
/// a host would check the push.
fn pool_range(ctx: &Ctx, tier: &str, range: &str, github: bool, json: bool) -> ui::Result {
    let tier = ui::parse_tier(tier, false)?;
    let (base, head) = range.split_once("..").ok_or_else(|| {
        CliError::Usage(format!("--pool needs a range BASE..HEAD, got {range:?}"))
    })?;
    let (commits, problems) =
        host::verify_range(&ctx.repo, &ctx.env, tier, base, head, ctx.env.now)?;
    if json {
        ui::out_json(&Report {
            commits,
            ok: problems.is_empty(),
            problems: &problems,
        });
    } else {
        let mut s = String::new();
        for p in &problems {
            s.push_str(&output::problem_line(p));
            if github {
                s.push_str(&annotation(tier, &p.commit, &ui::text(&p.problem)));
            }
        }
        if problems.is_empty() {
            s.push_str(&format!(
                "pool/{tier}: {} verified, every signature good, trailers and records consistent\n",
                ui::count(commits, "commit", "commits")
            ));
        }
        ui::out(&s);
    }
    Ok(if problems.is_empty() {
        Exit::Done
    } else {
        Exit::Refused
    })
}

pub fn run(args: Args, ctx: &Ctx) -> ui::Result {
    if args.pre_receive {
        return pre_receive(ctx);
    }
    if let (Some(tier), Some(range)) = (&args.pool, &args.range) {
        return pool_range(ctx, tier, range, args.github, args.json);
    }
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
        ui::out(&output::problem_lines(&v.problems));
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

#[cfg(test)]
mod tests {
    use super::annotation;

    #[test]
    fn an_annotation_is_one_workflow_command_line() {
        assert_eq!(
            annotation("org", "abc", "100% wrong\r\nnext"),
            "::error title=git-lore verify::commit abc on pool/org: 100%25 wrong%0D%0Anext\n"
        );
    }
}
