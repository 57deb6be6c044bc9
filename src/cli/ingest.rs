use std::path::PathBuf;

use clap::Args as ClapArgs;

use super::output::print_outcomes;
use super::ui::{self, CliError, Ctx};
use git_lore::ops::backend::{Backend, Role};
use git_lore::ops::ingest;
use git_lore::ops::inputs;
use git_lore::pipeline::Item;

/// Turn session artifacts into lesson proposals or declines.
///
/// Reads archivist artifacts from files, directories (every `*.json` below
/// them), JSON Lines files, or `-` for stdin. Each artifact is skipped when
/// history has seen it or a pool (a teammate's, synced) holds a lesson made
/// from it, skipped when it names no version (the pre-gate),
/// otherwise transformed by the model backend and either proposed or
/// declined — one signed commit each. An outage (missing or hung model, empty
/// answer) leaves the artifact untouched and exits 2. Prints one line per
/// artifact, the artifact id first, then what came of it and where it was
/// read: `proposed <artifact> lesson <lesson> (from <source>)`, `declined
/// <artifact> <reason>`, `skipped <artifact> seen|pregate|claimed` (`seen
/// (in pool/org)` when a pool holds its lesson),
/// `untouched <artifact> <why>`, or `invalid <source>: <why>`; a summary goes
/// to stderr. `--json` gives the same as objects.
///
/// `--redo` runs declined artifacts through the transform again (after you
/// configured a model, say): the new outcome is a new commit that names the
/// decline it replaces, and `seen` answers with it.
///
/// Examples: `git lore ingest session.jsonl`,
/// `git lore ingest --from-commits ~/src/app --since v1.2.0`,
/// `git lore ingest --redo-declined --since 2026-11-01`.
#[derive(ClapArgs, Debug)]
pub struct Args {
    /// Artifact files, directories, JSON Lines files, or `-` for stdin.
    #[arg(value_name = "PATH")]
    paths: Vec<PathBuf>,
    /// Mine the default branch of the project repository at DIR instead.
    #[arg(long, value_name = "DIR", conflicts_with = "paths")]
    from_commits: Option<PathBuf>,
    /// With --from-commits: only commits after REV. With --redo-declined:
    /// only artifacts declined on or after DATE (`2026-11-01`, or an
    /// RFC 3339 time).
    #[arg(long, value_name = "REV|DATE")]
    since: Option<String>,
    /// Run these declined artifacts through the transform again (ids or
    /// unique prefixes).
    #[arg(long, value_name = "ARTIFACT", num_args = 1.., conflicts_with_all = ["paths", "from_commits", "redo_declined"])]
    redo: Vec<String>,
    /// Run every declined artifact through the transform again.
    #[arg(long, conflicts_with_all = ["paths", "from_commits"])]
    redo_declined: bool,
    /// offline (built in, deterministic) or command (lore.transform.command)
    /// [default: command when lore.transform.command is set, else offline].
    #[arg(long, value_parser = ["offline", "command"])]
    backend: Option<String>,
    /// Print the outcomes as a JSON array.
    #[arg(long)]
    json: bool,
}

/// The items of every path, read as ingest asks for them (see
/// [`inputs::stream_path`]): nothing is read ahead of the chunk being
/// worked on.
fn read_items(args: &Args) -> ui::Result<Box<dyn Iterator<Item = Item>>> {
    if args.paths.is_empty() {
        return Err(CliError::Usage(
            "name artifact files or directories to ingest, `-` for stdin, --from-commits DIR, or --redo ARTIFACT"
                .into(),
        ));
    }
    let paths = args.paths.clone();
    Ok(Box::new(paths.into_iter().flat_map(|p| {
        let items: Box<dyn Iterator<Item = Item>> = if p.as_os_str() == "-" {
            Box::new(inputs::stream_reader("-", std::io::stdin().lock()))
        } else {
            Box::new(inputs::stream_path(&p))
        };
        items
    })))
}

/// What a `--since` DATE means: a day (from its start, UTC) or a time.
fn parse_date(s: &str) -> ui::Result<jiff::Timestamp> {
    if let Ok(t) = s.parse::<jiff::Timestamp>() {
        return Ok(t);
    }
    s.parse::<jiff::civil::Date>()
        .ok()
        .and_then(|d| d.to_zoned(jiff::tz::TimeZone::UTC).ok())
        .map(|z| z.timestamp())
        .ok_or_else(|| {
            CliError::Usage(format!(
                "--since {}: not a date (2026-11-01) or an RFC 3339 time (2026-11-01T09:30:00Z)",
                ui::text(s)
            ))
        })
}

pub fn run(args: Args, ctx: &Ctx) -> ui::Result {
    let redoing = !args.redo.is_empty() || args.redo_declined;
    if args.since.is_some() && args.from_commits.is_none() && !args.redo_declined {
        return Err(CliError::Usage(
            "--since goes with --from-commits DIR (a revision) or --redo-declined (a date)".into(),
        ));
    }
    let since = match (&args.since, args.redo_declined) {
        (Some(s), true) => Some(parse_date(s)?),
        _ => None,
    };
    let typed = args
        .redo
        .iter()
        .map(|a| ui::parse_id(a))
        .collect::<ui::Result<Vec<_>>>()?;
    let mut lore = ctx.open()?;
    let backend = Backend::from_config(&lore, Role::Transform, args.backend.as_deref())?;
    if redoing {
        let which = if args.redo_declined {
            ingest::RedoWhich::Declined { since }
        } else {
            ingest::RedoWhich::Artifacts(
                typed
                    .iter()
                    .map(|t| ui::resolve_id(&lore, t))
                    .collect::<ui::Result<_>>()?,
            )
        };
        return print_outcomes("ingest", args.json, |told| {
            ingest::redo(&mut lore, which, &backend, told)
        });
    }
    let items: Box<dyn Iterator<Item = Item>> = match &args.from_commits {
        Some(dir) => {
            Box::new(inputs::items_from_commits(&lore, dir, args.since.as_deref())?.into_iter())
        }
        None => read_items(&args)?,
    };
    print_outcomes("ingest", args.json, |told| {
        ingest::ingest(&mut lore, items, &backend, told)
    })
}
