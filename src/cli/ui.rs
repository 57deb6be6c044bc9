//! Everything the CLI says: data on stdout, status and errors on stderr,
//! and the process context every command starts from.
//!
//! Data goes to stdout (`out`, `out_json`), a closed pipe counting as
//! success (`git lore log | head`). Status lines — summaries, what was
//! created — go to stderr as they are (`status`). Errors go to stderr once,
//! as `git-lore: <message>` (`error`), printed by `cli::main` for the error
//! a command returns.

use std::io::{self, Write};
use std::path::PathBuf;

use rand::SeedableRng;

use git_lore::model::{Id, IdPrefix, Proposal, ProposalStatus};
use git_lore::ops::{Class, Env, Lore, LoreError};

/// What a command reports back besides its output.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Exit {
    /// Everything got a determination (exit 0).
    Done,
    /// Something was refused, already reported (exit 1).
    Refused,
    /// An outage left something undetermined, already reported (exit 2).
    Undetermined,
}

impl Exit {
    pub fn code(self) -> u8 {
        match self {
            Exit::Done => 0,
            Exit::Refused => 1,
            Exit::Undetermined => 2,
        }
    }
}

/// Why a command stopped: an error from the library (classified by its
/// class) or a refusal of the command line itself.
#[derive(Debug, thiserror::Error)]
pub enum CliError {
    #[error(transparent)]
    Lore(#[from] LoreError),
    /// Bad arguments or input the CLI itself refuses (exit 1).
    #[error("{0}")]
    Usage(String),
    /// `git lore edit` could not get an edit to make (exit 1).
    #[error(transparent)]
    Edit(Box<super::edit::EditorError>),
}

impl From<super::edit::EditorError> for CliError {
    fn from(e: super::edit::EditorError) -> CliError {
        CliError::Edit(Box::new(e))
    }
}

impl CliError {
    pub fn exit(&self) -> Exit {
        match self {
            CliError::Lore(e) => match e.class() {
                Class::Refused => Exit::Refused,
                Class::Undetermined => Exit::Undetermined,
            },
            CliError::Usage(_) | CliError::Edit(_) => Exit::Refused,
        }
    }
}

/// What a command's `run` returns.
pub type Result<T = Exit> = std::result::Result<T, CliError>;

/// The process environment, read once.
#[derive(Clone)]
pub struct Ctx {
    pub repo: PathBuf,
    pub env: Env,
    /// `GIT_LORE_RANDOMNESS_SEED`: fixed randomness, for tests and
    /// reproducible demos.
    pub seed: Option<u64>,
    /// `GIT_OBJECT_DIRECTORY` and `GIT_ALTERNATE_OBJECT_DIRECTORIES` as
    /// git set them for a hook: left out of every child's environment,
    /// except where a pre-receive check must read a push's quarantined
    /// objects.
    pub object_env: Vec<(String, String)>,
}

impl Ctx {
    /// A variable of the environment read once at start (`cli::context`),
    /// when set and not empty.
    pub fn var(&self, name: &str) -> Option<&str> {
        self.env
            .child_env
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
            .filter(|v| !v.is_empty())
    }

    /// The random generator the library is handed: seeded when asked for,
    /// else from the operating system.
    pub fn rng(&self) -> rand::rngs::StdRng {
        match self.seed {
            Some(s) => rand::rngs::StdRng::seed_from_u64(s),
            None => rand::rngs::StdRng::from_entropy(),
        }
    }

    pub fn open(&self) -> Result<Lore> {
        Ok(Lore::open(&self.repo, self.env.clone(), self.rng())?)
    }
}

/// Reads a lesson or artifact id as typed: the whole id or a unique prefix
/// of at least four characters, in either case. The prefix is resolved by
/// [`resolve_id`] once the repository is open.
pub fn parse_id(s: &str) -> Result<IdPrefix> {
    IdPrefix::parse(s).map_err(|e| CliError::Usage(e.to_string()))
}

/// The id a typed id or prefix names ([`git_lore::ops::query::resolve`]).
pub fn resolve_id(lore: &Lore, typed: &IdPrefix) -> Result<Id> {
    Ok(git_lore::ops::query::resolve(lore, typed)?)
}

/// The lesson a typed id or prefix names; an artifact's id is refused with
/// the lesson it became ([`git_lore::ops::query::resolve_lesson`]).
pub fn resolve_lesson(lore: &Lore, typed: &IdPrefix) -> Result<Id> {
    Ok(git_lore::ops::query::resolve_lesson(lore, typed)?)
}

/// Whether ids are shown with their shortest unique prefix in bold:
/// stdout is a terminal and `NO_COLOR` is not set (<https://no-color.org>).
pub fn emphasis() -> bool {
    use std::io::IsTerminal;
    io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
}

/// `id` as output shows it: its first `width` characters (at least the
/// shortest unique prefix, `unique` of them), the unique prefix in bold
/// and the rest dim when `bold` ([`emphasis`]), as jj shows change ids;
/// padded to `width` otherwise.
pub fn id_shown(id: Id, unique: usize, width: usize, bold: bool) -> String {
    let s = id.to_string();
    let width = width.clamp(unique, 26);
    if bold && unique == width {
        format!("\x1b[1m{}\x1b[0m", &s[..unique])
    } else if bold {
        format!(
            "\x1b[1m{}\x1b[0m\x1b[2m{}\x1b[0m",
            &s[..unique],
            &s[unique..width]
        )
    } else {
        format!("{:<width$}", &s[..unique])
    }
}

/// A pool tier named on the command line: `org` or `public` (`local` only
/// where `allow_local`).
pub fn parse_tier(s: &str, allow_local: bool) -> Result<git_lore::model::Source> {
    use git_lore::model::Source;
    match s {
        "org" => Ok(Source::Org),
        "public" => Ok(Source::Public),
        "local" if allow_local => Ok(Source::Local),
        "local" => Err(CliError::Usage(
            "pool/local never leaves this machine; use org or public".into(),
        )),
        other => Err(CliError::Usage(format!(
            "unknown pool {other:?}: use {}",
            if allow_local {
                "local, org or public"
            } else {
                "org or public"
            }
        ))),
    }
}

/// Text from records, models and remotes as it may reach a terminal: one
/// line, every control, separator, bidi and invisible character shown as a
/// visible escape (`\n`, `\x1b`, `\u{202e}`; the table is
/// [`git_lore::content::text`]'s), so no text can move the cursor, set the
/// window title, write the clipboard, clear the screen, fake a row or hide
/// what it says. `--json` output is escaped by [`out_json`] instead.
pub fn text(s: &str) -> String {
    git_lore::content::text::terminal(s)
}

/// `git -C <lesson repository> config <key> [value]`, the repository
/// quoted for a shell: the exact command a message tells people to run.
pub fn config_command(ctx: &Ctx, key: &str, value: Option<&str>) -> String {
    let repo = ctx.repo.display().to_string();
    let plain = |s: &str| {
        !s.is_empty()
            && s.chars()
                .all(|c| c.is_ascii_alphanumeric() || "/._-+@:,=".contains(c))
    };
    let word = |s: &str| {
        if plain(s) {
            s.to_owned()
        } else {
            git_lore::ops::shell_quote(s)
        }
    };
    match value {
        Some(v) => format!("git -C {} config {key} {}", word(&repo), word(v)),
        None => format!("git -C {} config {key}", word(&repo)),
    }
}

/// What to do when a `role` model program gave no answer: see which
/// program is configured, or switch to the built-in offline backend.
pub fn model_fix(ctx: &Ctx, role: git_lore::ops::backend::Role) -> String {
    format!(
        "check the program `{}` shows, or use the built-in offline backend: `{}`",
        config_command(ctx, &role.key("command"), None),
        config_command(ctx, &role.key("backend"), Some("offline"))
    )
}

/// `n` and the noun for it: `1 pool entry`, `2 pool entries`.
pub fn count(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// [`count`] as a sentence says it, none as `no`: `no lessons`, `1 lesson`,
/// `2 lessons`.
pub fn amount(n: usize, one: &str, many: &str) -> String {
    if n == 0 {
        format!("no {many}")
    } else {
        count(n, one, many)
    }
}

/// Prints an error the one way errors are printed, as one line of text.
pub fn error(msg: impl std::fmt::Display) {
    let _ = writeln!(io::stderr(), "git-lore: {}", text(&msg.to_string()));
}

/// Prints a status line (a summary, a note) on stderr, as one line of text.
pub fn status(msg: impl std::fmt::Display) {
    let _ = writeln!(io::stderr(), "{}", text(&msg.to_string()));
}

/// Writes to stdout, treating a closed pipe as success (`git lore log | head`).
pub fn out(text: &str) {
    let mut stdout = io::stdout().lock();
    if let Err(e) = stdout
        .write_all(text.as_bytes())
        .and_then(|_| stdout.flush())
    {
        if e.kind() != io::ErrorKind::BrokenPipe {
            error(format!("writing output: {e}"));
        }
    }
}

/// An argument that is its value, `-` for stdin or `@FILE`: its bytes, at
/// most `max` + 1 of them (the caller decides what is too long).
pub fn read_arg(arg: &str, max: usize) -> Result<Vec<u8>> {
    use io::Read;
    let read = |r: &mut dyn Read, what: &str| -> Result<Vec<u8>> {
        let mut bytes = Vec::new();
        r.take(max as u64 + 1)
            .read_to_end(&mut bytes)
            .map_err(|e| CliError::Usage(format!("reading {what}: {e}")))?;
        Ok(bytes)
    };
    if arg == "-" {
        read(&mut io::stdin().lock(), "stdin")
    } else if let Some(path) = arg.strip_prefix('@') {
        let mut file =
            std::fs::File::open(path).map_err(|e| CliError::Usage(format!("{path}: {e}")))?;
        read(&mut file, path)
    } else {
        Ok(arg.as_bytes().to_vec())
    }
}

/// Prints long output through the user's pager when stdout is a terminal,
/// the way git does: `GIT_PAGER`, then `core_pager` (the lesson
/// repository's `core.pager`), then `PAGER`, else `less` with `LESS=FRX`
/// (quit if it fits one screen, keep the text). An empty pager or `cat`, a
/// pipe, or a pager that cannot start: printed directly.
pub fn page(text: &str, core_pager: Option<String>) {
    use std::io::IsTerminal;
    let env = |k: &str| std::env::var(k).ok();
    let pager = env("GIT_PAGER")
        .or(core_pager)
        .or_else(|| env("PAGER"))
        .unwrap_or_else(|| "less".into());
    if !io::stdout().is_terminal() || pager.trim().is_empty() || pager.trim() == "cat" {
        return out(text);
    }
    let mut cmd = std::process::Command::new("sh");
    cmd.args(["-c", &pager]).stdin(std::process::Stdio::piped());
    if env("LESS").is_none() {
        cmd.env("LESS", "FRX");
    }
    let Ok(mut child) = cmd.spawn() else {
        return out(text);
    };
    if let Some(mut stdin) = child.stdin.take() {
        // A pager quit early (`q`) closes the pipe: not an error.
        let _ = stdin.write_all(text.as_bytes());
    }
    let _ = child.wait();
}

/// Prints `value` as pretty JSON on stdout, every control, bidi and
/// invisible character in its strings as `\uXXXX`
/// ([`git_lore::content::text::json`]): exact, and inert on a terminal.
pub fn out_json<T: serde::Serialize>(value: &T) {
    let mut s = git_lore::content::text::json(value).expect("output serialises");
    s.push('\n');
    out(&s);
}

/// The line printed after a promote that wrote something.
pub fn promoted_line(p: &Proposal) -> String {
    match (p.status, p.visibility) {
        (ProposalStatus::Approved, Some(v)) => {
            format!("Lesson {} promoted to pool/{}.\n", p.id, v.source())
        }
        _ => format!(
            "Lesson {} is {}; its verdict stays on the ledger.\n",
            p.id, p.status
        ),
    }
}

/// Prints what a lifecycle verb did: `changed`'s line when it wrote, the
/// no-op's message otherwise.
pub fn print_transition(
    t: git_lore::review::Transition,
    changed: impl FnOnce(&Proposal) -> String,
) -> Exit {
    match t {
        git_lore::review::Transition::Changed(p) => out(&changed(&p)),
        git_lore::review::Transition::Unchanged(n) => out(&format!("{n}\n")),
    }
    Exit::Done
}

/// What reading commands know about the trust of what they show.
pub struct Trusted {
    /// Lessons and artifacts touched by commits that do not verify.
    pub flagged: std::collections::HashSet<Id>,
    /// Some branch moved backwards since it was last verified.
    pub rewritten: bool,
}

/// Verifies what is new on every branch and warns, on stderr, about commits
/// that do not verify and branches that moved backwards.
pub fn check_trust(lore: &Lore) -> Result<Trusted> {
    use git_lore::ops::trust::{self, Standing};
    let standings = trust::review(lore)?;
    let mut rewritten = false;
    for s in &standings {
        match &s.standing {
            Standing::Verified => {}
            Standing::Unverified { problems } => status(format!(
                "warning: {} has commits that do not verify ({} problems); what they changed is marked [unverified] — see `git lore verify`",
                s.branch,
                problems.len()
            )),
            Standing::Rewritten { from, to, dropped } => {
                rewritten = true;
                status(format!(
                    "warning: {} moved from {} to {}, {dropped} commits dropped; see `git lore verify`, and accept it with `git lore index --accept-rewrite` if it was intended",
                    s.branch,
                    &from.to_string()[..12],
                    to.map(|t| t.to_string()[..12].to_owned())
                        .unwrap_or_else(|| "nothing (it was deleted)".into())
                ));
            }
        }
    }
    Ok(Trusted {
        flagged: trust::flagged(lore, &standings)?,
        rewritten,
    })
}

/// Whether a person can be asked: stdin is a terminal.
pub fn interactive() -> bool {
    use std::io::IsTerminal;
    io::stdin().is_terminal()
}

/// Asks `question` on the terminal (`[y/N]`, on stderr) unless `yes`. With
/// no terminal to ask on, refuses: `refusing to <what> without --yes: …`.
pub fn ask(question: &str, yes: bool, what: &str) -> Result<bool> {
    if yes {
        return Ok(true);
    }
    if !interactive() {
        return Err(CliError::Usage(format!(
            "refusing to {what} without --yes: stdin is not a terminal to ask on"
        )));
    }
    eprint!("{question} [y/N] ");
    let _ = io::stderr().flush();
    let mut answer = String::new();
    let _ = io::stdin().read_line(&mut answer);
    Ok(matches!(answer.trim(), "y" | "Y" | "yes"))
}

#[cfg(test)]
mod tests {
    use super::{amount, text};

    #[test]
    fn amounts_are_said_in_words() {
        assert_eq!(amount(0, "lesson", "lessons"), "no lessons");
        assert_eq!(amount(1, "lesson", "lessons"), "1 lesson");
        assert_eq!(amount(2, "pool entry", "pool entries"), "2 pool entries");
    }

    #[test]
    fn text_reaches_a_terminal_only_as_text() {
        for (raw, shown) in [
            ("plain é text", "plain é text"),
            ("two\nlines", "two\\nlines"),
            ("\u{1b}]0;title\u{7}", "\\x1b]0;title\\x07"),
            ("\u{1b}]52;c;cGF3bmVk\u{7}", "\\x1b]52;c;cGF3bmVk\\x07"),
            ("\u{1b}[2J\u{1b}[H", "\\x1b[2J\\x1b[H"),
            ("c1 \u{9b}31m", "c1 \\x9b31m"),
            ("nul\0", "nul\\x00"),
            ("abc\u{202e}gnp.exe", "abc\\u{202e}gnp.exe"),
            ("zero\u{200b}width", "zero\\u{200b}width"),
        ] {
            assert_eq!(text(raw), shown, "{raw:?}");
        }
    }
}
