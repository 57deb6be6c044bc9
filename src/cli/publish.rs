use std::path::PathBuf;

use clap::Args as ClapArgs;

use super::output;
use super::ui::{self, Ctx, Exit};
use git_lore::model::Source;
use git_lore::ops::publish::{self, PublicOptions};

/// Share a pool with its remote.
///
/// `publish org` pushes pool/org (atomically, leased to the remote tip last
/// verified; when the remote moved, it syncs first and tries again).
/// `publish public` pushes one `review/<lesson-id>` branch per lesson the
/// remote's pool/public lacks, each the remote's pool plus one signed commit
/// adding exactly that lesson, and writes a pull-request body for each;
/// merge them with merge commits. Nothing that does not verify is pushed,
/// nor a public lesson the disclosure scanner flags; the ledger and
/// pool/local never leave the machine.
///
/// Examples: `git lore publish org`, `git lore publish public`.
#[derive(ClapArgs, Debug)]
pub struct Args {
    /// org or public.
    tier: String,
    /// Say what would be pushed; push nothing.
    #[arg(long)]
    dry_run: bool,
    /// Print JSON.
    #[arg(long)]
    json: bool,
    /// With public: write each pull-request body to DIR/<lesson-id>.md
    /// (else they are printed).
    #[arg(long, value_name = "DIR")]
    pr_body_dir: Option<PathBuf>,
    /// With public: open each pull request with `gh` when it is on PATH.
    #[arg(long)]
    open: bool,
}

pub fn run(args: Args, ctx: &Ctx) -> ui::Result {
    let tier = ui::parse_tier(&args.tier, false)?;
    let mut lore = ctx.open()?;
    if tier == Source::Org {
        return run_org(&mut lore, &args);
    }
    run_public(&mut lore, &args)
}

/// `publish org`: pushes the local pool/org, or says why not.
fn run_org(lore: &mut git_lore::ops::Lore, args: &Args) -> ui::Result {
    let r = publish::publish_org(lore, args.dry_run)?;
    let failed = !r.problems.is_empty();
    if args.json {
        ui::out_json(&r);
    } else if failed {
        ui::out(&output::problem_lines(&r.problems));
        ui::status(format!(
            "pool/org: nothing was pushed to {}",
            ui::text(&r.url)
        ));
    } else {
        for s in &r.synced {
            ui::status(format!(
                "pool/org: the remote had moved; synced {} first",
                ui::count(s.verified, "verified commit", "verified commits")
            ));
        }
        let short = |c: &Option<String>| {
            c.as_deref()
                .map(|c| c[..12].to_owned())
                .unwrap_or_else(|| "nothing".into())
        };
        ui::out(&if r.from == r.to {
            format!("pool/org: {} is up to date\n", ui::text(&r.url))
        } else {
            format!(
                "pool/org: {} {} to {} ({} -> {})\n",
                if r.dry_run { "would push" } else { "pushed" },
                ui::count(r.commits, "commit", "commits"),
                ui::text(&r.url),
                short(&r.from),
                short(&r.to)
            )
        });
    }
    Ok(if failed { Exit::Refused } else { Exit::Done })
}

/// `publish public`: proposes each change as a review branch on the remote.
fn run_public(lore: &mut git_lore::ops::Lore, args: &Args) -> ui::Result {
    let r = publish::publish_public(
        lore,
        &PublicOptions {
            dry_run: args.dry_run,
            body_dir: args.pr_body_dir.clone(),
        },
    )?;
    let refused = !r.problems.is_empty() || r.reviews.iter().any(|v| v.outcome == "refused");
    if args.json {
        ui::out_json(&r);
        return Ok(if refused { Exit::Refused } else { Exit::Done });
    }
    let url = ui::text(&r.url);
    let mut s = output::problem_lines(&r.problems);
    if r.started {
        s.push_str(&format!(
            "pool/public: {} {url}'s pool/public with the local one\n",
            if r.dry_run { "would start" } else { "started" }
        ));
    }
    if r.problems.is_empty() && !r.started && r.reviews.is_empty() {
        s.push_str(&format!(
            "pool/public: nothing to propose; {url} has every public lesson here\n"
        ));
    }
    let gh = args.open && which("gh");
    for v in &r.reviews {
        s.push_str(&review_lines(v, &url, args, gh));
    }
    if args.open && !gh {
        ui::status("--open: `gh` is not on PATH; open the pull requests with the commands above");
    }
    ui::out(&s);
    Ok(if refused { Exit::Refused } else { Exit::Done })
}

/// What one review came to, for a person; opens its pull request with `gh`
/// when asked and it was pushed.
fn review_lines(v: &publish::Review, url: &str, args: &Args, gh: bool) -> String {
    let what = match v.change {
        "add" => "adds the lesson",
        "retract" => "retracts the lesson",
        _ => "changes who may sign",
    };
    let subject = v
        .lesson
        .map(|l| l.to_string())
        .unwrap_or_else(|| "pool/public".to_owned());
    let mut s = String::new();
    match v.outcome {
        "refused" => s.push_str(&format!(
            "{subject}: not pushed: {}\n",
            ui::text(v.why.as_deref().unwrap_or(""))
        )),
        "already_open" => s.push_str(&format!(
            "{subject}: {} is already on {url}; its pull request {what}\n",
            v.branch
        )),
        outcome => {
            s.push_str(&format!(
                "{subject}: {} {} ({what})\n",
                if outcome == "pushed" {
                    "pushed"
                } else {
                    "would push"
                },
                v.branch
            ));
            if args.pr_body_dir.is_none() && outcome == "pushed" {
                // The body holds model text: each line reaches the
                // terminal as text (the file written for the forge is
                // markdown-escaped, not terminal-escaped).
                s.push('\n');
                for line in v.body.lines() {
                    s.push_str(&ui::text(line));
                    s.push('\n');
                }
            }
            s.push_str(&format!("  open the pull request: {}\n", v.command));
            if gh && outcome == "pushed" {
                s.push_str(if open_with_gh(v) {
                    "  opened with gh\n"
                } else {
                    "  gh failed; open it by hand\n"
                });
            }
        }
    }
    s
}

/// Runs the review's `gh pr create …` line with `gh`: whether it worked.
/// A body that was not written to a file (no --pr-body-dir) goes to `gh`
/// on stdin (`--body-file -`) instead of the line's placeholder file.
fn open_with_gh(v: &publish::Review) -> bool {
    use std::io::Write;
    let mut args: Vec<String> = shell_words::split(&v.command)
        .unwrap_or_default()
        .into_iter()
        .skip(1)
        .collect();
    let piped = v.body_file.is_none()
        && match args.iter().position(|a| a == "--body-file") {
            Some(i) if i + 1 < args.len() => {
                args[i + 1] = "-".into();
                true
            }
            _ => false,
        };
    let child = std::process::Command::new("gh")
        .args(&args)
        .stdin(if piped {
            std::process::Stdio::piped()
        } else {
            std::process::Stdio::inherit()
        })
        .spawn();
    let Ok(mut child) = child else {
        return false;
    };
    if let Some(mut stdin) = child.stdin.take() {
        // gh reads the whole body before it does anything; a gh that
        // exits early is reported by its status below.
        let _ = stdin.write_all(v.body.as_bytes());
    }
    child.wait().map(|st| st.success()).unwrap_or(false)
}

fn which(program: &str) -> bool {
    std::env::var_os("PATH")
        .is_some_and(|paths| std::env::split_paths(&paths).any(|d| d.join(program).is_file()))
}
