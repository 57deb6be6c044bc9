use std::io::{IsTerminal, Read};
use std::path::PathBuf;

use clap::Args as ClapArgs;

use super::ui::{self, CliError, Ctx, Exit};
use git_lore::ops::backend::{Backend, Role};
use git_lore::ops::ingest::{self, Outcome, Skip};
use git_lore::ops::inputs;
use git_lore::pipeline::Item;

/// Turn session artifacts into lesson proposals or declines.
///
/// Reads archivist artifacts from files, directories (every `*.json` below
/// them), JSON Lines files, or `-` for stdin. Each artifact is skipped when
/// history has seen it, skipped when it names no version (the pre-gate),
/// otherwise transformed by the model backend and either proposed or
/// declined — one signed commit each. An outage (missing or hung model, empty
/// answer) leaves the artifact untouched and exits 2. Prints one line per
/// artifact: `proposed <lesson> <artifact>`, `declined <artifact> <reason>`,
/// `skipped <artifact> seen|pregate|claimed`, `untouched <artifact> <why>` or
/// `invalid <source> <why>`; a summary goes to stderr.
#[derive(ClapArgs, Debug)]
pub struct Args {
    /// Artifact files, directories, JSON Lines files, or `-` for stdin.
    #[arg(value_name = "PATH")]
    paths: Vec<PathBuf>,
    /// Mine the default branch of the project repository at DIR instead.
    #[arg(long, value_name = "DIR", conflicts_with = "paths")]
    from_commits: Option<PathBuf>,
    /// With --from-commits: only commits after REV.
    #[arg(long, value_name = "REV", requires = "from_commits")]
    since: Option<String>,
    /// offline (built in, deterministic) or command (lore.transform.command)
    /// [default: command when lore.transform.command is set, else offline].
    #[arg(long, value_parser = ["offline", "command"])]
    backend: Option<String>,
    /// Print the outcomes as a JSON array.
    #[arg(long)]
    json: bool,
}

fn read_items(args: &Args) -> ui::Result<Vec<Item>> {
    if args.paths.is_empty() {
        return Err(CliError::Usage(
            "name artifact files or directories to ingest, `-` for stdin, or --from-commits DIR"
                .into(),
        ));
    }
    let mut items = Vec::new();
    for p in &args.paths {
        if p.as_os_str() == "-" {
            let mut buf = Vec::new();
            std::io::stdin()
                .take(inputs::MAX_INPUT as u64 + 1)
                .read_to_end(&mut buf)
                .map_err(|e| CliError::Usage(format!("reading stdin: {e}")))?;
            items.extend(inputs::items_from_bytes("-", &buf));
        } else {
            items.extend(inputs::items_from_path(p));
        }
    }
    Ok(items)
}

fn skip_word(why: Skip) -> &'static str {
    match why {
        Skip::Seen => "seen",
        Skip::Pregate => "pregate",
        Skip::Claimed => "claimed",
    }
}

/// The line printed for an outcome.
pub(super) fn line(o: &Outcome) -> String {
    match o {
        Outcome::Proposed { lesson, artifact } => format!("proposed {lesson} {artifact}"),
        Outcome::Declined {
            artifact,
            reason,
            detail,
        } => match detail {
            Some(d) if d.len() <= 120 => {
                format!("declined {artifact} {reason} ({})", ui::text(d))
            }
            _ => format!("declined {artifact} {reason}"),
        },
        Outcome::Skipped { artifact, why } => format!("skipped {artifact} {}", skip_word(*why)),
        Outcome::Untouched { artifact, why } => {
            format!("untouched {artifact} {}", ui::text(why))
        }
        Outcome::Invalid { source, why } => {
            format!(
                "invalid {} {}",
                ui::text(source),
                ui::text(&why.to_string())
            )
        }
    }
}

#[derive(serde::Serialize)]
pub(super) struct Row {
    outcome: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    artifact: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    lesson: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    reason: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    detail: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    source: Option<String>,
}

pub(super) fn row(o: &Outcome) -> Row {
    let mut r = Row {
        outcome: "",
        artifact: None,
        lesson: None,
        reason: None,
        detail: None,
        source: None,
    };
    match o {
        Outcome::Proposed { lesson, artifact } => {
            r.outcome = "proposed";
            r.artifact = Some(artifact.to_string());
            r.lesson = Some(lesson.to_string());
        }
        Outcome::Declined {
            artifact,
            reason,
            detail,
        } => {
            r.outcome = "declined";
            r.artifact = Some(artifact.to_string());
            r.reason = Some(reason.to_string());
            r.detail = detail.clone();
        }
        Outcome::Skipped { artifact, why } => {
            r.outcome = "skipped";
            r.artifact = Some(artifact.to_string());
            r.reason = Some(skip_word(*why).into());
        }
        Outcome::Untouched { artifact, why } => {
            r.outcome = "untouched";
            r.artifact = Some(artifact.to_string());
            r.reason = Some(why.clone());
        }
        Outcome::Invalid { source, why } => {
            r.outcome = "invalid";
            r.reason = Some(why.to_string());
            r.source = Some(source.clone());
        }
    }
    r
}

pub fn run(args: Args, ctx: &Ctx) -> ui::Result {
    let mut lore = ctx.open()?;
    let items = match &args.from_commits {
        Some(dir) => inputs::items_from_commits(&lore, dir, args.since.as_deref())?,
        None => read_items(&args)?,
    };
    let backend = Backend::from_config(&lore, Role::Transform, args.backend.as_deref())?;
    let bar = (std::io::stderr().is_terminal() && items.len() >= 20).then(|| {
        let b = indicatif::ProgressBar::new(items.len() as u64);
        b.set_style(
            indicatif::ProgressStyle::with_template("{bar:40} {pos}/{len} artifacts {msg}")
                .expect("valid template"),
        );
        b
    });
    let mut progress = |_: &Outcome| {
        if let Some(b) = &bar {
            b.inc(1);
        }
    };
    let report = ingest::ingest(&mut lore, items, &backend, &mut progress);
    if let Some(b) = &bar {
        b.finish_and_clear();
    }
    let ingest::Report { outcomes, error } = report?;
    // One line per input item, in input order (writes land in chunks, so
    // determinations arrive out of order).
    if args.json {
        ui::out_json(&outcomes.iter().map(row).collect::<Vec<_>>());
    } else {
        let text: String = outcomes.iter().map(|o| format!("{}\n", line(o))).collect();
        ui::out(&text);
    }
    let count = |f: fn(&Outcome) -> bool| outcomes.iter().filter(|o| f(o)).count();
    let untouched = count(|o| matches!(o, Outcome::Untouched { .. }));
    let invalid = count(|o| matches!(o, Outcome::Invalid { .. }));
    ui::status(format!(
        "ingest: {} proposed, {} declined, {} skipped, {untouched} untouched, {invalid} invalid",
        count(|o| matches!(o, Outcome::Proposed { .. })),
        count(|o| matches!(o, Outcome::Declined { .. })),
        count(|o| matches!(o, Outcome::Skipped { .. })),
    ));
    // A run stopped by an error still printed every outcome above, so what
    // was written before it is on record; the error decides the exit.
    if let Some(e) = error {
        return Err(e.into());
    }
    Ok(if untouched > 0 {
        Exit::Undetermined
    } else if invalid > 0 {
        Exit::Refused
    } else {
        Exit::Done
    })
}
