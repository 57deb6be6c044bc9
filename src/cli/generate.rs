//! `git lore generate`: man pages and shell completions, made from the
//! same clap definitions as `--help`, so they can never disagree with it.

use std::path::PathBuf;

use clap::{Args as ClapArgs, Subcommand};

use super::ui::{self, CliError, Exit};

/// Write man pages or shell completions.
///
/// `git lore --help` asks `man git-lore`: install the pages where `man`
/// looks, e.g. `git lore generate man ~/.local/share/man/man1`. Completions
/// go to stdout: `git lore generate completions bash >
/// ~/.local/share/bash-completion/completions/git-lore`.
///
/// Examples: `git lore generate man ~/.local/share/man/man1`, `git lore
/// generate completions zsh > ~/.zfunc/_git-lore`.
#[derive(ClapArgs, Debug)]
pub struct Args {
    #[command(subcommand)]
    what: What,
}

#[derive(Subcommand, Debug)]
enum What {
    /// Write git-lore.1 and a git-lore-<command>.1 page per command into DIR.
    Man {
        /// The directory to write into (created if missing).
        dir: PathBuf,
    },
    /// Print the completion script for SHELL (bash, zsh, fish, elvish,
    /// powershell).
    Completions {
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
}

pub fn run(args: Args, cli: clap::Command) -> ui::Result {
    let cli = cli.name("git-lore").bin_name("git-lore");
    match args.what {
        What::Man { dir } => {
            std::fs::create_dir_all(&dir)
                .map_err(|e| CliError::Usage(format!("cannot create {}: {e}", dir.display())))?;
            let mut written = 0;
            write_pages(&cli, "git-lore", &dir, &mut written)?;
            ui::status(format!(
                "wrote {written} man pages to {}; `man git-lore` (and `git lore --help`) finds them when that directory is on the manual path",
                dir.display()
            ));
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
