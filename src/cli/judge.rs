use std::io::{IsTerminal, Read, Write};

use clap::Args as ClapArgs;

use super::{error, out, parse_id, report, Ctx, Outcome};
use git_lore::ops::backend::{Backend, Role};
use git_lore::ops::review::{self, Done, Judged};

/// Record the jury's verdict on a confirmed lesson, then promote it.
///
/// `judge ID VERDICTS` takes the judges' verdicts as JSON (an array of
/// `{judge_type, score, passed, criterion_scores, feedback_summary}`), as
/// text, `-` for stdin or `@FILE`. `judge --all` runs the configured judges
/// (offline by default; `lore.judge.command` for a model) over every
/// confirmed lesson, after reporting how many there are and asking — or
/// proceeding with `--yes`. A private lesson is approved with no jury. Exit 0
/// when verdicts were recorded, 1 on a usage or state error, 2 when a lesson
/// could not be judged (nothing written; it stays confirmed; re-run).
#[derive(ClapArgs, Debug)]
pub struct Args {
    /// The lesson id (ULID).
    #[arg(
        value_name = "ID",
        required_unless_present = "all",
        conflicts_with = "all"
    )]
    id: Option<String>,
    /// The verdicts: JSON text, `-` for stdin, or `@FILE`.
    #[arg(value_name = "VERDICTS", required_unless_present = "all")]
    verdicts: Option<String>,
    /// Judge every confirmed lesson with the configured judges.
    #[arg(long)]
    all: bool,
    /// With --all: do not ask before judging.
    #[arg(long, requires = "all")]
    yes: bool,
    /// With --all: offline or command [default: from lore.judge.backend].
    #[arg(long, requires = "all", value_parser = ["offline", "command"])]
    backend: Option<String>,
}

fn read_verdicts(arg: &str) -> Result<String, String> {
    if arg == "-" {
        let mut s = String::new();
        std::io::stdin()
            .take(16 << 20)
            .read_to_string(&mut s)
            .map_err(|e| format!("reading stdin: {e}"))?;
        Ok(s)
    } else if let Some(path) = arg.strip_prefix('@') {
        let bytes = git_lore::ops::ingest::read_bounded(std::path::Path::new(path))
            .map_err(|e| format!("{path}: {e}"))?;
        String::from_utf8(bytes).map_err(|_| format!("{path} is not UTF-8 text"))
    } else {
        Ok(arg.to_owned())
    }
}

fn after_verdict(lore: &mut git_lore::ops::Lore, p: &git_lore::model::Proposal) {
    out(&format!("Lesson {} is now {}.\n", p.id, p.status));
    match review::promote(lore, p.id) {
        Ok(Done::Changed(p)) => out(&super::promote::promoted_line(&p)),
        Ok(Done::Unchanged(_)) => {}
        Err(e) => error(format!(
            "lesson {} was judged but not promoted ({e}); run `git lore promote {}` to retry",
            p.id, p.id
        )),
    }
}

pub fn run(args: Args, ctx: &Ctx) -> Outcome {
    let mut lore = match ctx.open() {
        Ok(l) => l,
        Err(e) => return report(e),
    };
    if args.all {
        return run_all(&mut lore, &args);
    }
    let Some(id) = parse_id(args.id.as_deref().unwrap_or_default()) else {
        return Outcome::Refused;
    };
    let text = match read_verdicts(args.verdicts.as_deref().unwrap_or_default()) {
        Ok(t) => t,
        Err(e) => {
            error(e);
            return Outcome::Refused;
        }
    };
    // Verdicts that are not JSON are an unusable panel — but only once the
    // lesson is known to be confirmed (a missing or decided lesson is a
    // refusal, a private one needs no panel), so the order stays upstream's.
    let (verdicts, not_json) = match serde_json::from_str::<serde_json::Value>(&text) {
        Ok(v) => (v, None),
        Err(e) => (serde_json::Value::String(text.clone()), Some(e)),
    };
    match review::judge(&mut lore, id, &verdicts, None, None) {
        Ok(Judged::Recorded(p)) => {
            after_verdict(&mut lore, &p);
            Outcome::Done
        }
        Ok(Judged::Unjudged { id, why }) => {
            let extra = not_json
                .map(|e| format!(" (the verdicts are not JSON: {e})"))
                .unwrap_or_default();
            error(format!(
                "lesson {id} could not be judged; it stays confirmed. Re-run to retry: {why}{extra}"
            ));
            Outcome::Undetermined
        }
        Ok(Judged::Skipped { id, status }) => {
            out(&format!(
                "Lesson {id} was decided meanwhile; it is {status}.\n"
            ));
            Outcome::Done
        }
        Err(e) => report(e),
    }
}

fn run_all(lore: &mut git_lore::ops::Lore, args: &Args) -> Outcome {
    let backend = match Backend::from_config(lore, Role::Judge, args.backend.as_deref()) {
        Ok(b) => b,
        Err(e) => return report(e),
    };
    let confirmed =
        match git_lore::ops::query::list(lore, git_lore::model::ProposalStatus::Confirmed) {
            Ok(c) => c,
            Err(e) => return report(e),
        };
    let public = confirmed
        .iter()
        .filter(|p| p.visibility == Some(git_lore::model::Visibility::Public))
        .count();
    let private = confirmed
        .iter()
        .filter(|p| p.visibility == Some(git_lore::model::Visibility::Private))
        .count();
    let judges = match &backend {
        Backend::Offline => "the offline judges".to_owned(),
        Backend::Command { model, .. } => format!("judge model {model}"),
    };
    error(format!(
        "{} confirmed lessons ({public} public, {private} private with no jury) to judge with {judges}",
        confirmed.len()
    ));
    if confirmed.is_empty() {
        return Outcome::Done;
    }
    if !args.yes {
        if !std::io::stdin().is_terminal() {
            error("refusing to judge without --yes: stdin is not a terminal to ask on");
            return Outcome::Refused;
        }
        eprint!("Proceed? [y/N] ");
        let _ = std::io::stderr().flush();
        let mut answer = String::new();
        let _ = std::io::stdin().read_line(&mut answer);
        if !matches!(answer.trim(), "y" | "Y" | "yes") {
            error("nothing judged");
            return Outcome::Done;
        }
    }
    let mut each = |j: &Judged, promoted: Option<&review::Promoted>| match j {
        Judged::Recorded(p) => {
            out(&format!("Lesson {} is now {}.\n", p.id, p.status));
            match promoted {
                Some(Ok(Done::Changed(p))) => out(&super::promote::promoted_line(p)),
                Some(Err(e)) => error(format!(
                    "lesson {} was judged but not promoted ({e}); run `git lore promote {}` to retry",
                    p.id, p.id
                )),
                _ => {}
            }
        }
        Judged::Unjudged { id, why } => out(&format!(
            "Lesson {id} could not be judged; it stays confirmed: {why}\n"
        )),
        Judged::Skipped { id, status } => out(&format!(
            "Lesson {id} was decided meanwhile; it is {status}.\n"
        )),
    };
    let results = match review::judge_all(lore, &backend, &mut each) {
        Ok(r) => r,
        Err(e) => return report(e),
    };
    let count = |s: git_lore::model::ProposalStatus| {
        results
            .iter()
            .filter(|j| matches!(j, Judged::Recorded(p) if p.status == s))
            .count()
    };
    let unjudged: Vec<String> = results
        .iter()
        .filter_map(|j| match j {
            Judged::Unjudged { id, .. } => Some(id.to_string()),
            _ => None,
        })
        .collect();
    error(format!(
        "judged: {} approved, {} rejected, {} could not judge{}",
        count(git_lore::model::ProposalStatus::Approved),
        count(git_lore::model::ProposalStatus::Rejected),
        unjudged.len(),
        if unjudged.is_empty() {
            String::new()
        } else {
            format!(": {}", unjudged.join(", "))
        }
    ));
    if unjudged.is_empty() {
        Outcome::Done
    } else {
        Outcome::Undetermined
    }
}
