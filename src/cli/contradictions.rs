use clap::Args as ClapArgs;

use super::ui::{self, Ctx, Exit};
use git_lore::ops::relate;

/// List the lessons that carry counter-observations, with their count and
/// evidence. A lesson of pool/org or pool/public whose count reaches
/// `lore.relate.threshold` (default 2) while active goes back to the jury
/// (`git lore judge --contradicted`); only a jury verdict can refute it. A
/// lesson the jury upheld waits again only when more counter-observations
/// are recorded. Contradiction itself never changes a lesson's status.
///
/// Example:
///   git lore contradictions --json
#[derive(ClapArgs, Debug)]
#[command(about = "List the lessons that carry counter-observations")]
pub struct Args {
    /// Print them as JSON.
    #[arg(long)]
    json: bool,
}

pub fn run(args: Args, ctx: &Ctx) -> ui::Result {
    let lore = ctx.open()?;
    let (list, threshold) = relate::contradictions(&lore)?;
    if args.json {
        ui::out_json(&serde_json::json!({
            "threshold": threshold.get(),
            "lessons": list,
        }));
        return Ok(Exit::Done);
    }
    if list.is_empty() {
        ui::out("No lesson has counter-observations.\n");
        return Ok(Exit::Done);
    }
    let mut s = String::new();
    for c in &list {
        s.push_str(&format!(
            "{} (pool/{}, {}): {}{}\n",
            c.lesson,
            c.pool,
            c.status,
            ui::count(c.count, "counter-observation", "counter-observations"),
            if c.past_threshold {
                format!(
                    ", threshold {threshold} reached: back to the jury (`git lore judge --contradicted`)"
                )
            } else if let Some(n) = c.upheld_at {
                format!(", upheld by the jury at {n}")
            } else {
                String::new()
            }
        ));
        for o in &c.observations {
            s.push_str(&format!(
                "  {} {}: {}\n",
                ui::text(&o.observed_at),
                o.id,
                ui::text(&o.summary)
            ));
        }
    }
    ui::out(&s);
    Ok(Exit::Done)
}
