use clap::Args as ClapArgs;

use super::ui::{self, Ctx, Exit};
use git_lore::ops::retract;

/// Take a promoted lesson back: its pool entry becomes `retracted` (nothing
/// is deleted; the history keeps what was said). Recall never returns a
/// retracted lesson; `publish` carries the retraction to the pool's remote.
///
/// Example: `git lore retract 01kz8nv6803 --reason "fixed upstream in vite
/// 6.0.2"`.
#[derive(ClapArgs, Debug)]
#[command(about = "Take a promoted lesson back: its pool entry becomes `retracted`")]
pub struct Args {
    /// The lesson id, or a unique prefix of it (4 or more characters, any case).
    #[arg(value_name = "ID")]
    id: String,
    /// Why it is withdrawn (one line, recorded in the commit).
    #[arg(long, value_name = "TEXT")]
    reason: String,
}

pub fn run(args: Args, ctx: &Ctx) -> ui::Result {
    let typed = ui::parse_id(&args.id)?;
    let mut lore = ctx.open()?;
    let id = ui::resolve_lesson(&lore, &typed)?;
    let done = retract::retract(&mut lore, id, &args.reason)?;
    let mut s = String::new();
    for r in &done {
        if r.changed {
            s.push_str(&format!(
                "{id}: {} -> retracted on pool/{}\n",
                r.from, r.pool
            ));
        } else {
            s.push_str(&format!("{id}: already retracted on pool/{}\n", r.pool));
        }
    }
    ui::out(&s);
    if done
        .iter()
        .any(|r| r.changed && r.pool != git_lore::model::Source::Local)
    {
        ui::status("share the retraction with `git lore publish org` or `git lore publish public`");
    }
    Ok(Exit::Done)
}
