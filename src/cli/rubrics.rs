use clap::Args as ClapArgs;

use super::ui::{self, CliError, Ctx, Exit};
use git_lore::ops::rubrics;

/// Show the rubrics in force, or replace them with FILE (validated, then
/// committed to the ledger as a `config` commit, audited like any verdict).
///
/// The file has the shape `{"min_criterion_coverage": 0.6, "rubrics": [{"id",
/// "criteria": [{"name", "weight", "min_pass"}], "score_threshold",
/// "judge_types", "gate_policy"}]}`; weights must sum to 1.00 and both
/// builtin ids (lesson-promotion, lesson-promotion-public) must be present.
///
/// Example: `git lore rubrics team-rubrics.json`.
#[derive(ClapArgs, Debug)]
#[command(about = "Show the rubrics in force, or replace them with FILE")]
pub struct Args {
    /// A rubrics file to commit.
    #[arg(value_name = "FILE")]
    file: Option<std::path::PathBuf>,
}

pub fn run(args: Args, ctx: &Ctx) -> ui::Result {
    let mut lore = ctx.open()?;
    let Some(path) = args.file else {
        ui::out_json(&rubrics::rubrics(&lore)?);
        return Ok(Exit::Done);
    };
    let text = std::fs::read_to_string(&path)
        .map_err(|e| CliError::Usage(format!("cannot read {}: {e}", path.display())))?;
    if rubrics::set_rubrics(&mut lore, &text)? {
        ui::out("Rubrics committed to the ledger.\n");
    } else {
        ui::out("Rubrics unchanged.\n");
    }
    Ok(Exit::Done)
}
