use clap::Args as ClapArgs;

use super::{error, out, out_json, report, Ctx, Outcome};
use git_lore::ops::review;

/// Show the rubrics in force, or replace them with FILE (validated, then
/// committed to the ledger as a `config` commit, audited like any verdict).
///
/// The file has the shape `{"min_criterion_coverage": 0.6, "rubrics": [{"id",
/// "criteria": [{"name", "weight", "min_pass"}], "score_threshold",
/// "judge_types", "gate_policy"}]}`; weights must sum to 1.00 and both
/// builtin ids (lesson-promotion, lesson-promotion-public) must be present.
#[derive(ClapArgs, Debug)]
pub struct Args {
    /// A rubrics file to commit.
    #[arg(value_name = "FILE")]
    file: Option<std::path::PathBuf>,
}

pub fn run(args: Args, ctx: &Ctx) -> Outcome {
    let mut lore = match ctx.open() {
        Ok(l) => l,
        Err(e) => return report(e),
    };
    match args.file {
        None => match review::rubrics(&lore) {
            Ok(set) => {
                out_json(&set);
                Outcome::Done
            }
            Err(e) => report(e),
        },
        Some(path) => {
            let text = match std::fs::read_to_string(&path) {
                Ok(t) => t,
                Err(e) => {
                    error(format!("cannot read {}: {e}", path.display()));
                    return Outcome::Refused;
                }
            };
            match review::set_rubrics(&mut lore, &text) {
                Ok(true) => {
                    out("Rubrics committed to the ledger.\n");
                    Outcome::Done
                }
                Ok(false) => {
                    out("Rubrics unchanged.\n");
                    Outcome::Done
                }
                Err(e) => report(e),
            }
        }
    }
}
