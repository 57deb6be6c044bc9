//! `git lore generate`: man pages and shell completions, made from the
//! same clap definitions as `--help`, so they can never disagree with it.

use std::path::{Path, PathBuf};

use clap::{Args as ClapArgs, Subcommand};

use super::ui::{self, CliError, Ctx, Exit};

/// Write man pages or shell completions.
///
/// `git lore --help` asks `man git-lore`. With no directory, `generate man`
/// writes the pages where `man` looks for this program's: `share/man/man1`
/// beside the directory it is installed in (`~/.cargo/bin/git-lore` gets
/// `~/.cargo/share/man/man1`), which `man` finds through PATH. Completions
/// go to stdout: `git lore generate completions bash >
/// ~/.local/share/bash-completion/completions/git-lore`.
///
/// Examples: `git lore generate man`, `git lore generate man
/// ~/.local/share/man/man1`, `git lore generate completions zsh >
/// ~/.zfunc/_git-lore`.
#[derive(ClapArgs, Debug)]
pub struct Args {
    #[command(subcommand)]
    what: What,
}

#[derive(Subcommand, Debug)]
enum What {
    /// Write git-lore.1 and a git-lore-<command>.1 page per command into DIR.
    Man {
        /// The directory to write into (created if missing) [default:
        /// ../share/man/man1 from the directory git-lore is installed in].
        dir: Option<PathBuf>,
    },
    /// Print the completion script for SHELL (bash, zsh, fish, elvish,
    /// powershell).
    Completions {
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
}

pub fn run(args: Args, cli: clap::Command, ctx: &Ctx) -> ui::Result {
    let cli = cli.name("git-lore").bin_name("git-lore");
    match args.what {
        What::Man { dir: Some(dir) } => {
            let written = write_all_pages(&cli, &dir)?;
            ui::status(format!(
                "wrote {written} man pages to {}; `man git-lore` (and `git lore --help`) finds them when that directory is on the manual path",
                dir.display()
            ));
        }
        What::Man { dir: None } => {
            let bin = installed_in(ctx)?;
            let dir = man_dir_for(&bin);
            let written = write_all_pages(&cli, &dir).map_err(|e| match e {
                CliError::Usage(m) => CliError::Usage(format!(
                    "{m}; name a directory you can write that man reads: `git lore generate man ~/.local/share/man/man1` (found when ~/.local/bin is on PATH)"
                )),
                e => e,
            })?;
            ui::status(format!(
                "wrote {written} man pages to {}, where `man git-lore` (and `git lore --help`) looks for the git-lore in {}",
                dir.display(),
                bin.display()
            ));
            if let Some(note) = path_note(ctx, &bin, &dir) {
                ui::status(note);
            }
        }
        What::Completions { shell } => {
            let mut cli = cli;
            let mut out = Vec::new();
            clap_complete::generate(shell, &mut cli, "git-lore", &mut out);
            let mut script = String::from_utf8_lossy(&out).into_owned();
            if shell == clap_complete::Shell::Bash {
                // clap_complete names the per-command cases of a hyphenated
                // program `git__subcmd__lore__…` but looks them up as
                // `git__lore__…`; make them agree.
                script = script.replace("git__subcmd__lore", "git__lore");
                script.push_str(GIT_BASH_COMPLETION);
            }
            ui::out(&script);
        }
    }
    Ok(Exit::Done)
}

/// Creates `dir` and writes every page into it: how many.
fn write_all_pages(cli: &clap::Command, dir: &Path) -> ui::Result<usize> {
    std::fs::create_dir_all(dir)
        .map_err(|e| CliError::Usage(format!("cannot create {}: {e}", dir.display())))?;
    let mut written = 0;
    write_pages(cli, "git-lore", dir, &mut written)?;
    Ok(written)
}

/// The directory this program is installed in, as PATH names it: the first
/// PATH directory whose `git-lore` is this very program (a symlink to it
/// counts: `man` derives its path from PATH, not from where a link
/// points), else the directory of the running executable.
fn installed_in(ctx: &Ctx) -> ui::Result<PathBuf> {
    let exe = ctx.env.exe.clone().ok_or_else(|| {
        CliError::Usage(
            "cannot tell where this git-lore is installed; name the directory: `git lore generate man ~/.local/share/man/man1`".into(),
        )
    })?;
    let me = std::fs::canonicalize(&exe).unwrap_or_else(|_| exe.clone());
    let on_path = ctx.var("PATH").and_then(|p| {
        std::env::split_paths(p)
            .filter(|d| d.is_absolute())
            .find(|d| std::fs::canonicalize(d.join("git-lore")).is_ok_and(|c| c == me))
    });
    Ok(match on_path {
        Some(d) => d,
        None => exe.parent().map(Path::to_owned).unwrap_or_default(),
    })
}

/// `BIN/../share/man/man1`, written without the `..` when BIN has a parent
/// (`~/.cargo/bin` gives `~/.cargo/share/man/man1`): one of the places
/// man-db's manpath looks beside each PATH directory.
fn man_dir_for(bin: &Path) -> PathBuf {
    match bin.parent() {
        Some(up) if bin.file_name().is_some() => up.join("share/man/man1"),
        _ => bin.join("../share/man/man1"),
    }
}

/// What keeps `man` from finding the pages just written, if anything: the
/// program's directory missing from PATH, or a MANPATH that replaces the
/// path `man` derives from PATH and does not name the pages.
fn path_note(ctx: &Ctx, bin: &Path, dir: &Path) -> Option<String> {
    let on_path = ctx
        .var("PATH")
        .is_some_and(|p| std::env::split_paths(p).any(|d| d == bin));
    if !on_path {
        return Some(format!(
            "note: {} is not on PATH, so `man` will not look there: add it to PATH (or run `git lore generate man DIR` with a directory on your manual path)",
            bin.display()
        ));
    }
    let manpath = ctx.var("MANPATH")?;
    let root = dir.parent()?;
    // An empty entry (a leading, trailing or doubled `:`) stands for the
    // path man derives itself.
    let derived = manpath.split(':').any(str::is_empty);
    let named = std::env::split_paths(manpath).any(|d| d == root);
    (!derived && !named).then(|| {
        format!(
            "note: MANPATH is set, so `man` reads only the directories it names: add {} to it (or end it with `:` to keep the path man derives from PATH)",
            root.display()
        )
    })
}

/// `git lore <TAB>`: git's own bash completion calls `_git_lore` for the
/// words after `git lore`; hand them to the `git-lore` completion.
const GIT_BASH_COMPLETION: &str = r#"
# `git lore <TAB>` through git's completion, which calls _git_lore.
_git_lore() {
    COMP_WORDS=(git-lore "${COMP_WORDS[@]:2}")
    COMP_CWORD=$((COMP_CWORD - 1))
    _git__lore git-lore "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
}
"#;

/// Writes `name.1` for `cmd` and recurses into its visible subcommands as
/// `name-<sub>.1`, the way git names its own pages (`git-remote.1`).
fn write_pages(
    cmd: &clap::Command,
    name: &str,
    dir: &std::path::Path,
    written: &mut usize,
) -> ui::Result<()> {
    let cmd = cmd.clone().name(name.to_owned());
    let mut page = Vec::new();
    clap_mangen::Man::new(cmd.clone())
        .render(&mut page)
        .map_err(|e| CliError::Usage(format!("rendering the page of {name}: {e}")))?;
    let path = dir.join(format!("{name}.1"));
    std::fs::write(&path, page)
        .map_err(|e| CliError::Usage(format!("cannot write {}: {e}", path.display())))?;
    *written += 1;
    for sub in cmd.get_subcommands().filter(|s| !s.is_hide_set()) {
        if sub.get_name() == "help" {
            continue;
        }
        write_pages(sub, &format!("{name}-{}", sub.get_name()), dir, written)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::man_dir_for;
    use std::path::{Path, PathBuf};

    #[test]
    fn the_pages_go_to_share_man_beside_the_bin_directory() {
        assert_eq!(
            man_dir_for(Path::new("/home/ana/.cargo/bin")),
            PathBuf::from("/home/ana/.cargo/share/man/man1")
        );
        assert_eq!(
            man_dir_for(Path::new("/usr/local/bin")),
            PathBuf::from("/usr/local/share/man/man1")
        );
        assert_eq!(
            man_dir_for(Path::new("/")),
            PathBuf::from("/../share/man/man1")
        );
    }
}
