use std::path::{Path, PathBuf};

use clap::{Args as ClapArgs, ValueEnum};

use super::ui::{self, CliError, Ctx, Exit};
use git_lore::ops::recall::{self, Depth};
use git_lore::recall::{export, render, select};

/// Write the lessons that hold for this project where other agents read
/// them.
///
/// `agents-md` puts them in a delimited section of AGENTS.md (or the file
/// `--output` names, such as CLAUDE.md) that running it again replaces in
/// place; `cursor-rules` writes `.cursor/rules/git-lore-*.mdc` files (and
/// removes its own files for lessons that no longer apply);
/// `onlooker-json` prints batches of at most 100 lessons in the onlooker pool
/// format (private lessons are left out). Every lesson carries its id, for
/// `git lore show`.
///
/// Examples: `git lore export --format agents-md`, `git lore export --format
/// cursor-rules --project ~/src/app`
#[derive(ClapArgs, Debug)]
pub struct Args {
    /// agents-md, cursor-rules or onlooker-json.
    #[arg(long, value_enum)]
    format: ExportFormat,
    /// The project directory [default: the project the current directory
    /// is in, as for `git lore stack`].
    #[arg(long, value_name = "DIR")]
    project: Option<PathBuf>,
    /// Where to write: the markdown file (agents-md; default
    /// PROJECT/AGENTS.md), the directory holding `.cursor/rules`
    /// (cursor-rules; default PROJECT), or a file (onlooker-json; default
    /// stdout).
    #[arg(long, value_name = "PATH")]
    output: Option<PathBuf>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum ExportFormat {
    AgentsMd,
    CursorRules,
    OnlookerJson,
}

/// Most a file git-lore edits in place may be: it is read whole.
const MAX_EDITED: u64 = 4 << 20;

fn write_atomically(path: &Path, text: &str) -> ui::Result<()> {
    let dir = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir)
        .map_err(|e| CliError::Usage(format!("cannot create {}: {e}", dir.display())))?;
    let mut tmp = tempfile::NamedTempFile::new_in(dir)
        .map_err(|e| CliError::Usage(format!("cannot write in {}: {e}", dir.display())))?;
    std::io::Write::write_all(&mut tmp, text.as_bytes())
        .map_err(|e| CliError::Usage(format!("cannot write {}: {e}", path.display())))?;
    tmp.persist(path)
        .map_err(|e| CliError::Usage(format!("cannot write {}: {}", path.display(), e.error)))?;
    Ok(())
}

fn read_existing(path: &Path) -> ui::Result<String> {
    match std::fs::metadata(path) {
        Err(_) => Ok(String::new()),
        Ok(m) if m.len() > MAX_EDITED => Err(CliError::Usage(format!(
            "{} is larger than {MAX_EDITED} bytes; refusing to edit it",
            path.display()
        ))),
        Ok(_) => std::fs::read_to_string(path)
            .map_err(|e| CliError::Usage(format!("cannot read {}: {e}", path.display()))),
    }
}

pub fn run(args: Args, ctx: &Ctx) -> ui::Result {
    let project = super::stack::find_project(args.project, ctx)
        .map_err(|e| super::stack::outside(&e, "export"))?;
    let lore = ctx.open()?;
    let trusted = ui::check_trust(&lore)?;
    let g = recall::gather(
        &lore,
        Some(&project),
        &[],
        false,
        Depth::Full,
        &trusted.flagged,
    )?;
    for line in render::problems_text(&g.stack).lines() {
        ui::status(line);
    }
    let sel = select::select(&g.lessons, &g.stack);
    match args.format {
        ExportFormat::AgentsMd => {
            let path = args.output.unwrap_or_else(|| project.join("AGENTS.md"));
            let existing = read_existing(&path)?;
            let spliced = export::splice(&existing, &export::agents_md_section(&sel, &g.links))
                .map_err(|e| CliError::Usage(format!("{}: {e}", path.display())))?;
            if spliced != existing {
                write_atomically(&path, &spliced)?;
            }
            ui::status(format!(
                "{}: {} lessons in the git-lore section{}",
                path.display(),
                sel.applies.len(),
                if spliced == existing {
                    " (unchanged)"
                } else {
                    ""
                }
            ));
        }
        ExportFormat::CursorRules => {
            let dir = args.output.unwrap_or(project).join(".cursor/rules");
            let files = export::cursor_rules(&sel);
            let wanted: std::collections::HashSet<&str> =
                files.iter().map(|(n, _)| n.as_str()).collect();
            if let Ok(rd) = std::fs::read_dir(&dir) {
                for e in rd.flatten() {
                    let name = e.file_name().to_string_lossy().into_owned();
                    if export::is_cursor_rule_file(&name) && !wanted.contains(name.as_str()) {
                        std::fs::remove_file(e.path()).map_err(|err| {
                            CliError::Usage(format!("cannot remove {}: {err}", e.path().display()))
                        })?;
                    }
                }
            }
            for (name, text) in &files {
                let path = dir.join(name);
                if read_existing(&path).ok().as_deref() != Some(text.as_str()) {
                    write_atomically(&path, text)?;
                }
            }
            ui::status(format!("{}: {} rule files", dir.display(), files.len()));
        }
        ExportFormat::OnlookerJson => {
            let lessons: Vec<&git_lore::model::Lesson> =
                sel.applies.iter().map(|d| d.lesson).collect();
            let batches = export::onlooker_batches(lessons);
            if batches.skipped_private > 0 {
                ui::status(format!(
                    "{} private lessons left out: they never leave this machine",
                    batches.skipped_private
                ));
            }
            match args.output {
                None => ui::out(&batches.to_jsonl()),
                Some(path) => write_atomically(&path, &batches.to_jsonl())?,
            }
        }
    }
    Ok(Exit::Done)
}
