//! The `git-lore` binary: `git lore <verb>`. All the work is in `cli`.

mod cli;

fn main() -> std::process::ExitCode {
    cli::main()
}
