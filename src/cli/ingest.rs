use std::io::{IsTerminal, Read};
use std::path::PathBuf;

use clap::Args as ClapArgs;

use super::{error, out, out_json, report, Ctx, Outcome as Exit};
use git_lore::ops::ingest::{self, Backend, Item, Outcome};

/// Turn session artifacts into lesson proposals or declines (stage 5).
///
/// Reads archivist artifacts from files, directories (every `*.json` below
/// them), JSON Lines files, or `-` for stdin. Each artifact is skipped when
/// history has seen it, skipped when it names no version (the pre-gate),
/// otherwise transformed by the model backend and either proposed or
/// declined — one signed commit each. An outage (missing or hung model, empty
/// answer) leaves the artifact untouched and exits 2. Prints one line per
/// artifact: `proposed <lesson> <artifact>`, `declined <artifact> <reason>`,
/// `skipped <artifact> seen|pregate`, `untouched <artifact> <why>` or
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

fn read_items(args: &Args) -> Result<Vec<Item>, String> {
    let mut items = Vec::new();
    if args.paths.is_empty() {
        return Err(
            "name artifact files or directories to ingest, `-` for stdin, or --from-commits DIR"
                .into(),
        );
    }
    for p in &args.paths {
        if p.as_os_str() == "-" {
            let mut buf = Vec::new();
            std::io::stdin()
                .take(ingest::MAX_INPUT as u64 + 1)
                .read_to_end(&mut buf)
                .map_err(|e| format!("reading stdin: {e}"))?;
            items.extend(ingest::items_from_bytes("-", &buf));
        } else {
            items.extend(ingest::items_from_path(p));
        }
    }
    Ok(items)
}

#[derive(serde::Serialize)]
struct Row {
    outcome: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    artifact: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    lesson: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    reason: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    source: Option<String>,
}

fn row(o: &Outcome) -> Row {
    let r = |outcome, artifact: Option<String>, lesson, reason, source| Row {
        outcome,
        artifact,
        lesson,
        reason,
        source,
    };
    match o {
        Outcome::Proposed { lesson, artifact } => r(
            "proposed",
            Some(artifact.to_string()),
            Some(lesson.to_string()),
            None,
            None,
        ),
        Outcome::Declined { artifact, reason } => r(
            "declined",
            Some(artifact.to_string()),
            None,
            Some(reason.to_string()),
            None,
        ),
        Outcome::Skipped { artifact, why } => r(
            "skipped",
            Some(artifact.to_string()),
            None,
            Some(match why {
                ingest::Skip::Seen => "seen".into(),
                ingest::Skip::Pregate => "pregate".into(),
            }),
            None,
        ),
        Outcome::Untouched { artifact, why } => r(
            "untouched",
            Some(artifact.to_string()),
            None,
            Some(why.clone()),
            None,
        ),
        Outcome::Invalid { source, why } => r(
            "invalid",
            None,
            None,
            Some(why.clone()),
            Some(source.clone()),
        ),
    }
}

pub fn run(args: Args, ctx: &Ctx) -> Exit {
    let mut lore = match ctx.open() {
        Ok(l) => l,
        Err(e) => return report(e),
    };
    let items = match &args.from_commits {
        Some(dir) => match ingest::items_from_commits(&lore, dir, args.since.as_deref()) {
            Ok(i) => i,
            Err(e) => return report(e),
        },
        None => match read_items(&args) {
            Ok(i) => i,
            Err(e) => {
                error(e);
                return Exit::Refused;
            }
        },
    };
    let backend = match Backend::from_config(
        &lore,
        git_lore::ops::backend::Role::Transform,
        args.backend.as_deref(),
    ) {
        Ok(b) => b,
        Err(e) => return report(e),
    };
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
    let ingest::Report {
        outcomes,
        error: stopped,
    } = match ingest::ingest(&mut lore, items, &backend, &mut progress) {
        Ok(r) => r,
        Err(e) => {
            if let Some(b) = &bar {
                b.finish_and_clear();
            }
            return report(e);
        }
    };
    if let Some(b) = &bar {
        b.finish_and_clear();
    }
    // One line per input item, in input order (writes land in chunks, so
    // determinations arrive out of order).
    if args.json {
        out_json(&outcomes.iter().map(row).collect::<Vec<_>>());
    } else {
        let text: String = outcomes.iter().map(|o| format!("{}\n", o.line())).collect();
        out(&text);
    }
    let count = |f: fn(&Outcome) -> bool| outcomes.iter().filter(|o| f(o)).count();
    let untouched = count(|o| matches!(o, Outcome::Untouched { .. }));
    let invalid = count(|o| matches!(o, Outcome::Invalid { .. }));
    error(format!(
        "ingest: {} proposed, {} declined, {} skipped, {untouched} untouched, {invalid} invalid",
        count(|o| matches!(o, Outcome::Proposed { .. })),
        count(|o| matches!(o, Outcome::Declined { .. })),
        count(|o| matches!(o, Outcome::Skipped { .. })),
    ));
    // A run stopped by an error still printed every outcome above, so what
    // was written before it is on record; the error decides the exit.
    if let Some(e) = stopped {
        return report(e);
    }
    if untouched > 0 {
        Exit::Undetermined
    } else if invalid > 0 {
        Exit::Refused
    } else {
        Exit::Done
    }
}
