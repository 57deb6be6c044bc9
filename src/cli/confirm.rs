use clap::Args as ClapArgs;

use super::ui::{self, Ctx};
use git_lore::model::Visibility;
use git_lore::ops::confirm;

/// Confirm a pending lesson for the jury at a visibility you choose: private
/// (no jury; stays on this machine), org or public.
///
/// There is no default visibility. `--justification` turns the scope into
/// version_independent, which is refused at private (no jury would check the
/// justification, and the lesson would never expire). An identical repeat is
/// a no-op; a different one is refused. Never calls a model.
///
/// Confirming for org or public shares the lesson in your name, so without a
/// terminal (a script, an agent) it needs `--yes`, and the commit records
/// `Lore-Interactive: no`.
///
/// Example: `git lore confirm 01kz8nv6803 org`.
#[derive(ClapArgs, Debug)]
#[command(about = "Confirm a pending lesson at a visibility you choose: private, org or public")]
pub struct Args {
    /// The lesson id, or a unique prefix of it (4 or more characters, any case).
    #[arg(value_name = "ID")]
    id: String,
    /// private, org or public.
    #[arg(value_name = "VISIBILITY", value_parser = parse_visibility)]
    visibility: Visibility,
    /// Why the lesson holds regardless of version (makes its scope
    /// version_independent).
    #[arg(long, value_name = "TEXT")]
    justification: Option<String>,
    /// Confirm for org or public without a terminal (recorded as such).
    #[arg(long)]
    yes: bool,
}

fn parse_visibility(s: &str) -> Result<Visibility, String> {
    s.parse()
        .map_err(|e: git_lore::names::NameError<Visibility>| e.to_string())
}

pub fn run(args: Args, ctx: &Ctx) -> ui::Result {
    let typed = ui::parse_id(&args.id)?;
    let mut lore = ctx.open()?;
    let id = ui::resolve_lesson(&lore, &typed)?;
    let v = args.visibility;
    let interactive = ui::interactive();
    if v != Visibility::Private && !interactive && !args.yes {
        return Err(ui::CliError::Usage(format!(
            "refusing to confirm {id} for {v} without --yes: stdin is not a terminal, and confirming shares the lesson in your name (the commit will record that no one was asked)"
        )));
    }
    let t = confirm::confirm(&mut lore, id, v, args.justification.as_deref(), interactive)?;
    Ok(ui::print_transition(t, |p| {
        format!("Confirmed {} at {v} visibility.\n", p.id)
    }))
}
