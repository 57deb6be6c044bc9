use clap::Args as ClapArgs;

use super::{error, out, out_json, report, Ctx, Outcome};
use git_lore::model::Id;
use git_lore::ops::audit::{self, LogFilter};

/// Show the audit trail: each commit's action, status from → to, signer,
/// date and signature status (good / bad / unknown signer / unsigned).
///
/// With a lesson id, only that lesson's history; with `--artifact`, what
/// happened to one artifact. `-p` shows how the record's JSON changed.
#[derive(ClapArgs, Debug)]
pub struct Args {
    /// A lesson id (ULID).
    #[arg(value_name = "LESSON-ID", conflicts_with = "artifact")]
    lesson: Option<String>,
    /// Show the history of one artifact instead.
    #[arg(long, value_name = "ULID")]
    artifact: Option<String>,
    /// Show a diff of each record's JSON between versions.
    #[arg(short = 'p', long = "patch")]
    patch: bool,
    /// Print JSON instead of text.
    #[arg(long)]
    json: bool,
}

fn parse_id(s: &str) -> Result<Id, Outcome> {
    s.parse::<Id>().map_err(|e| {
        error(e);
        Outcome::Refused
    })
}

pub fn run(args: Args, ctx: &Ctx) -> Outcome {
    let filter = match (&args.lesson, &args.artifact) {
        (Some(l), _) => match parse_id(l) {
            Ok(id) => LogFilter::Lesson(id),
            Err(o) => return o,
        },
        (_, Some(a)) => match parse_id(a) {
            Ok(id) => LogFilter::Artifact(id),
            Err(o) => return o,
        },
        _ => LogFilter::All,
    };
    let lore = match ctx.open() {
        Ok(l) => l,
        Err(e) => return report(e),
    };
    let entries = match audit::log(&lore, filter) {
        Ok(e) => e,
        Err(e) => return report(e),
    };
    if args.json {
        out_json(&entries);
        return Outcome::Done;
    }
    let mut s = String::new();
    for e in &entries {
        s.push_str(&format!(
            "{} {} {:<11} {}\n",
            &e.commit[..12],
            e.date,
            e.branch,
            e.subject
        ));
        let mut line = format!(
            "    {}",
            e.action.as_deref().unwrap_or("(not a lore commit)")
        );
        match (&e.from, &e.to) {
            (Some(f), Some(t)) => line.push_str(&format!(" {f} -> {t}")),
            (None, Some(t)) => line.push_str(&format!(" -> {t}")),
            _ => {}
        }
        if let Some(r) = &e.reason {
            line.push_str(&format!(" ({r})"));
        }
        line.push_str(&format!("; signature: {}", e.signature));
        if let Some(who) = &e.signer {
            line.push_str(&format!(" ({who})"));
        }
        s.push_str(&line);
        s.push('\n');
        if args.patch {
            match audit::record_diffs(&lore, e.id) {
                Ok(diffs) => {
                    for d in diffs {
                        let diff = similar::TextDiff::from_lines(&d.old, &d.new);
                        let text = diff
                            .unified_diff()
                            .context_radius(3)
                            .header(&format!("a/{}", d.path), &format!("b/{}", d.path))
                            .to_string();
                        for l in text.lines() {
                            s.push_str("    ");
                            s.push_str(l);
                            s.push('\n');
                        }
                    }
                }
                Err(err) => return report(err),
            }
        }
    }
    out(&s);
    Outcome::Done
}
