use std::path::PathBuf;

use clap::{Args as ClapArgs, ValueEnum};

use super::ui::{self, CliError, Ctx, Exit};
use git_lore::ops::recall::{self, Depth};
use git_lore::recall::{render, select, stack};

/// Print the lessons that hold for the versions this project has installed.
///
/// Reads the project's lockfiles (package-lock.json, pnpm-lock.yaml,
/// yarn.lock, bun.lock, Cargo.lock, uv.lock, poetry.lock, pinned
/// requirements, go.mod, Gemfile.lock, composer.lock — nested workspaces
/// too), matches every lesson's scope by each ecosystem's own version
/// ordering, and prints the ones that apply, most specific first: a lesson
/// applies only when every package it names is installed and in range.
/// `--all` also lists what does not apply, and why. Lessons of every local
/// pool count, synced ones included; superseded ones lead to their
/// successor; retracted and refuted ones never come back.
///
/// The project is `--project DIR`, else the one the current directory is in
/// (see `git lore stack --help`); its own lockfiles and those of the
/// workspace members its manifests declare are read. Outside any project,
/// recall says so and exits 1, unless `--stack` names what to recall for.
///
/// Examples: `git lore recall`, `git lore recall --stack vite@5.4.21 --stack
/// vitest@4.1.9`, `git lore recall --format markdown --budget 4000`
#[derive(ClapArgs, Debug)]
pub struct Args {
    /// The project directory [default: the project the current directory
    /// is in].
    #[arg(long, value_name = "DIR")]
    project: Option<PathBuf>,
    /// Add or override an installed package: NAME@VERSION, or
    /// ECOSYSTEM:NAME@VERSION (npm, cargo, pypi, go, rubygems, composer).
    /// Works with no lockfile at all.
    #[arg(long = "stack", value_name = "NAME@VERSION")]
    stack: Vec<String>,
    /// text (one line per lesson), json (versioned; see docs/recall.md) or
    /// markdown (for an agent's context, within --budget).
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
    /// With markdown: the most characters to print.
    #[arg(long, value_name = "CHARS", default_value_t = render::DEFAULT_BUDGET)]
    budget: usize,
    /// Also list every lesson that does not apply, with the reason.
    #[arg(long)]
    all: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum Format {
    Text,
    Json,
    Markdown,
}

pub fn run(args: Args, ctx: &Ctx) -> ui::Result {
    let overrides = args
        .stack
        .iter()
        .map(|s| stack::parse_override(s).map_err(|e| CliError::Usage(e.to_string())))
        .collect::<ui::Result<Vec<_>>>()?;
    let project = match super::stack::find_project(args.project, ctx) {
        Ok(p) => Some(p),
        Err(e) if !overrides.is_empty() => {
            ui::status(format!("{e}; recalling for --stack alone"));
            None
        }
        Err(e) => return Err(super::stack::outside(&e, "recall")),
    };
    let lore = ctx.open()?;
    let trusted = ui::check_trust(&lore)?;
    let depth = match args.format {
        Format::Json => Depth::Full,
        Format::Text | Format::Markdown => Depth::Thin,
    };
    let g = recall::gather(
        &lore,
        project.as_deref(),
        &overrides,
        args.all,
        depth,
        &trusted.flagged,
    )?;
    for line in render::problems_text(&g.stack).lines() {
        ui::status(line);
    }
    if g.unverified > 0 {
        ui::status(format!(
            "{} lessons left out: a commit that does not verify changed them (see `git lore verify`)",
            g.unverified
        ));
    }
    let sel = select::select(&g.lessons, &g.stack);
    match args.format {
        Format::Text => {
            let text = render::text(&sel, &g.links, args.all);
            if sel.applies.is_empty() {
                ui::status(match &project {
                    Some(p) => format!(
                        "no lesson applies to the versions installed in {} ({} packages found)",
                        p.display(),
                        g.stack.packages.len()
                    ),
                    None => "no lesson applies to the --stack packages".to_owned(),
                });
            }
            ui::out(&text);
        }
        Format::Json => ui::out_json(&render::json(&sel, &g.stack, &g.links, args.all)),
        Format::Markdown => ui::out(&render::markdown(&sel, &g.links, args.budget)),
    }
    Ok(Exit::Done)
}
