//! `git lore edit ID`: reads what a person wants changed — flags, JSON,
//! or the file they saved in their editor — and hands it to
//! `ops::edit`. The only command that starts an editor; it does so only
//! on a terminal, and keeps the file when the edit is refused.

use std::io::Write;
use std::path::PathBuf;

use clap::Args as ClapArgs;

use super::ui::{self, Ctx, Exit};
use git_lore::model::{Id, Proposal, Scope};
use git_lore::ops::edit::{self, Edited};
use git_lore::review::edit::{document, parse_document, DocumentError, Edit};

/// Correct what a lesson says before the jury judges it: its claim,
/// rationale, resolution, stack and scope. A pending lesson, or a
/// confirmed one not yet judged, can be edited; a judged one cannot
/// (supersede it with `git lore relate`, or take it back with `git lore
/// retract`). Nothing else of the lesson changes, and confirming or
/// judging it afterwards takes the edited text.
///
/// With no flags, the editable fields open in your editor as JSON under a
/// `#` comment header, as `git commit` opens a message (`GIT_EDITOR`,
/// `core.editor`, `VISUAL`, `EDITOR`); that needs a terminal. An empty file
/// aborts; a file left as it is changes nothing. `--claim`, `--rationale`,
/// `--resolution`, `--scope NAME=RANGE` (repeatable: sets NAME's range and
/// adds NAME to the stack if new) and `--unscope NAME` (takes NAME out of
/// the scope and the stack) change one field each; `--json -` reads an
/// object with any of claim, rationale, resolution, applies_to.stack and
/// applies_to.scope from stdin (`--json @FILE` from a file, or give the
/// JSON itself).
///
/// The result is checked as ingest checks a lesson: the schema, the
/// content policy, the range grammar (`<6`, `>=4.0.5 <4.1`, `=5.4.21`; no
/// `^` or `~`), every versions key in the stack, and the wording rules (a
/// claim is one sentence of fact: no commit subject, no `fix:` prefix, not
/// its own resolution; no file name in the stack), and the evidence the
/// lesson was drawn from (a range keeps in the version its tool output or
/// manifest change shows broken and leaves out the one that fixed it). A
/// refusal names what was wrong and writes nothing. A file saved in the
/// editor is refused when the lesson changed while it was open, and kept.
/// The edit is a signed `edit` commit whose message carries the diff; `git
/// lore log -p ID` shows it.
///
/// Examples: `git lore edit 01kz8nv6803 --claim "vitest 4 needs vite 6;
/// on vite 5 use vitest 3" --scope vitest=">=4 <5"`, `git lore edit
/// 01kz8nv6803` (in your editor), `echo '{"resolution": "Pin vitest to
/// 3.2.4."}' | git lore edit 01kz8nv6803 --json -`.
#[derive(ClapArgs, Debug)]
#[command(about = "Correct a lesson's claim, rationale, resolution or scope before it is judged")]
pub struct Args {
    /// The lesson id, or a unique prefix of it (4 or more characters, any case).
    #[arg(value_name = "ID")]
    id: String,
    /// The new claim: one sentence of fact.
    #[arg(long, value_name = "TEXT")]
    claim: Option<String>,
    /// The new rationale: why the claim holds.
    #[arg(long, value_name = "TEXT")]
    rationale: Option<String>,
    /// The new resolution: what to do.
    #[arg(long, value_name = "TEXT")]
    resolution: Option<String>,
    /// Set NAME's range in the scope (added to the stack if new); repeatable.
    #[arg(long = "scope", value_name = "NAME=RANGE")]
    scope: Vec<String>,
    /// Take NAME out of the scope and the stack; repeatable.
    #[arg(long = "unscope", value_name = "NAME")]
    unscope: Vec<String>,
    /// The edit as a JSON object: `-` reads stdin, `@FILE` a file.
    #[arg(
        long,
        value_name = "JSON|-|@FILE",
        conflicts_with_all = ["claim", "rationale", "resolution", "scope", "unscope"]
    )]
    json: Option<String>,
}

/// The largest edit read from `--json` or from the editor's file.
const MAX_EDIT_BYTES: usize = 1 << 20;

/// Why the command line could not get an edit to make.
#[derive(Debug, thiserror::Error)]
pub enum EditorError {
    /// No flags, no JSON, and no terminal to open an editor on.
    #[error("refusing to open an editor for lesson {id}: stdin is not a terminal; give the new values with --claim, --rationale, --resolution, --scope NAME=RANGE or --unscope NAME, or as JSON with --json - (`git lore edit --help`)")]
    NoTerminal { id: Id },
    /// git names no editor (a dumb terminal, and none configured).
    #[error("no editor to edit lesson {id} in: set GIT_EDITOR or EDITOR (or git's core.editor), or give the new values as flags or with --json")]
    NoEditor {
        id: Id,
        #[source]
        source: Box<git_lore::ops::LoreError>,
    },
    /// The file to edit could not be made, or read back.
    #[error("{what} {}: {source}", path.display())]
    File {
        what: &'static str,
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// The editor could not be started, or failed.
    #[error("the editor {editor:?} {how}; nothing was written")]
    Editor { editor: String, how: String },
    /// The editor left an empty file.
    #[error("aborting the edit of lesson {id}: the file is empty; nothing was written")]
    Empty { id: Id },
    /// What was given is not an edit.
    #[error("{what}: {source}; nothing was written")]
    Document {
        what: String,
        #[source]
        source: DocumentError,
    },
    /// `--scope` without `=`, or with an empty side.
    #[error("--scope {0:?}: write NAME=RANGE, e.g. --scope vite=\"<6\"")]
    BadScope(String),
    /// `--json` input too large or not UTF-8.
    #[error("--json: {0}")]
    Input(String),
    /// The editor's file too large or not UTF-8.
    #[error("{0}")]
    Saved(String),
}

pub fn run(args: Args, ctx: &Ctx) -> ui::Result {
    let typed = ui::parse_id(&args.id)?;
    let mut lore = ctx.open()?;
    let id = ui::resolve_lesson(&lore, &typed)?;
    let flags = flags(&args)?;
    let (e, kept, opened) = if let Some(json) = &args.json {
        let bytes = ui::read_arg(json, MAX_EDIT_BYTES)?;
        (from_json(&bytes)?, None, None)
    } else if !flags.is_empty() {
        (flags, None, None)
    } else {
        match in_editor(&lore, id)? {
            Some((e, file, opened)) => (e, Some(file), Some(opened)),
            None => return Ok(Exit::Refused),
        }
    };
    let result = edit::edit(&mut lore, id, &e, opened.as_ref());
    match (result, kept) {
        (Ok(done), file) => {
            drop(file);
            match done {
                Edited::Changed { lesson, parts } => {
                    ui::out(&format!("Edited {}: {}.\n", lesson.id, parts.join(", ")))
                }
                Edited::Unchanged(n) => ui::out(&format!("{n}\n")),
            }
            Ok(Exit::Done)
        }
        (Err(refused), Some(file)) => {
            // What the person typed is not lost with the refusal. Sent
            // again with `--json`, a file saved over a change made
            // meanwhile would undo that change: it is only kept to copy
            // from.
            let meanwhile = matches!(
                refused,
                git_lore::ops::LoreError::Review(git_lore::review::ReviewError::Edit(
                    git_lore::review::edit::EditError::ChangedMeanwhile { .. }
                ))
            );
            if let Ok((_, path)) = file.keep() {
                let shown = ui::text(&path.display().to_string());
                ui::status(if meanwhile {
                    format!("your edit is kept in {shown}, to copy from into the new edit")
                } else {
                    format!(
                        "your edit is kept in {shown}: fix it and run `git lore edit {id} --json @{shown}`"
                    )
                });
            }
            Err(refused.into())
        }
        (Err(refused), None) => Err(refused.into()),
    }
}

/// The edit the flags ask for (empty when none is given).
fn flags(args: &Args) -> Result<Edit, EditorError> {
    let mut set = Vec::new();
    for s in &args.scope {
        match s.split_once('=') {
            Some((name, range)) if !name.trim().is_empty() && !range.trim().is_empty() => {
                set.push((name.to_owned(), range.to_owned()))
            }
            _ => return Err(EditorError::BadScope(s.clone())),
        }
    }
    Ok(Edit {
        claim: args.claim.clone(),
        rationale: args.rationale.clone(),
        resolution: args.resolution.clone(),
        stack: None,
        scope: None::<Scope>,
        set,
        unset: args.unscope.clone(),
    })
}

/// An edit given as JSON.
fn from_json(bytes: &[u8]) -> Result<Edit, EditorError> {
    if bytes.len() > MAX_EDIT_BYTES {
        return Err(EditorError::Input(format!(
            "the edit is larger than {} bytes",
            MAX_EDIT_BYTES
        )));
    }
    let text = std::str::from_utf8(bytes)
        .map_err(|e| EditorError::Input(format!("the edit is not UTF-8: {e}")))?;
    parse_document(text).map_err(|source| EditorError::Document {
        what: "--json".into(),
        source,
    })
}

/// Opens lesson `id`'s editable fields in the editor git would use and
/// reads back what was saved, as git does for a commit message, with the
/// lesson as it was opened. `None`: the file came back empty (the edit is
/// aborted, which is said).
fn in_editor(
    lore: &git_lore::ops::Lore,
    id: Id,
) -> Result<Option<(Edit, tempfile::NamedTempFile, Proposal)>, ui::CliError> {
    if !ui::interactive() {
        return Err(EditorError::NoTerminal { id }.into());
    }
    let p = edit::editable(lore, id)?;
    let editor = edit::editor(lore).map_err(|source| EditorError::NoEditor {
        id,
        source: Box::new(source),
    })?;
    let file_error = |what, path: &std::path::Path| {
        let path = path.to_owned();
        move |source| EditorError::File { what, path, source }
    };
    let tmp = std::env::temp_dir();
    let mut file = tempfile::Builder::new()
        .prefix(&format!("git-lore-edit-{id}-"))
        .suffix(".json")
        .tempfile_in(&tmp)
        .map_err(file_error("cannot create the file to edit in", &tmp))?;
    let path = file.path().to_owned();
    file.write_all(document(&p).as_bytes())
        .and_then(|_| file.flush())
        .map_err(file_error("cannot write the file to edit", &path))?;
    // As git starts it: through the shell, so `code --wait` and
    // `vim -c 'set tw=72'` work, with the file as its last argument.
    let status = std::process::Command::new("sh")
        .arg("-c")
        .arg(format!("{editor} \"$@\""))
        .arg(&editor)
        .arg(&path)
        .status()
        .map_err(|e| EditorError::Editor {
            editor: editor.clone(),
            how: format!("could not be started: {e}"),
        })?;
    if !status.success() {
        return Err(EditorError::Editor {
            editor,
            how: format!("failed ({status})"),
        }
        .into());
    }
    // Read by the same path, at most one byte past the limit: the editor
    // may have replaced the file with anything, a FIFO included.
    let mut bytes = Vec::new();
    std::fs::File::open(&path)
        .and_then(|f| {
            use std::io::Read;
            f.take(MAX_EDIT_BYTES as u64 + 1).read_to_end(&mut bytes)
        })
        .map_err(file_error("cannot read the edited file", &path))?;
    let kept_as =
        |file: tempfile::NamedTempFile| file.keep().map(|(_, p)| p).unwrap_or(path.clone());
    if bytes.len() > MAX_EDIT_BYTES {
        let kept = kept_as(file);
        return Err(EditorError::Saved(format!(
            "the edited file {} is larger than {MAX_EDIT_BYTES} bytes (kept); nothing was written: shorten the claim, rationale or resolution there and run `git lore edit {id} --json @{}`",
            ui::text(&kept.display().to_string()),
            ui::text(&kept.display().to_string())
        ))
        .into());
    }
    let text = match String::from_utf8(bytes) {
        Ok(text) => text,
        Err(e) => {
            let kept = kept_as(file);
            return Err(EditorError::Saved(format!(
                "the edited file {} is not UTF-8 ({}; kept): save it as UTF-8 and run `git lore edit {id} --json @{}`",
                kept.display(),
                e.utf8_error(),
                kept.display()
            ))
            .into());
        }
    };
    match parse_document(&text) {
        Ok(e) => Ok(Some((e, file, p))),
        Err(DocumentError::Empty) => {
            ui::error(EditorError::Empty { id });
            Ok(None)
        }
        Err(source) => {
            let kept = kept_as(file);
            Err(EditorError::Document {
                what: format!(
                    "the edited file {} (kept; fix it and run `git lore edit {id} --json @{}`)",
                    kept.display(),
                    kept.display()
                ),
                source,
            }
            .into())
        }
    }
}
