use clap::Args as ClapArgs;

use super::{out, out_json, report, Ctx, Outcome};
use git_lore::ops::query;

/// Count lessons by status: what awaits a human (pending), what awaits the
/// jury (confirmed), and what was decided. The first line is the one a
/// SessionStart hook shows.
#[derive(ClapArgs, Debug)]
pub struct Args {
    /// Print JSON instead of text.
    #[arg(long)]
    json: bool,
}

pub fn run(args: Args, ctx: &Ctx) -> Outcome {
    let lore = match ctx.open() {
        Ok(l) => l,
        Err(e) => return report(e),
    };
    let counts = match query::counts(&lore) {
        Ok(c) => c,
        Err(e) => return report(e),
    };
    let get = |s: &str| {
        counts
            .iter()
            .find(|(st, _)| st.as_str() == s)
            .map(|(_, n)| *n)
            .unwrap_or(0)
    };
    if args.json {
        let mut m = serde_json::Map::new();
        for (s, n) in &counts {
            m.insert(s.as_str().into(), (*n).into());
        }
        m.insert(
            "awaiting_decision".into(),
            (get("pending") + get("confirmed")).into(),
        );
        out_json(&m);
    } else {
        out(&format!(
            "lessons pending: {}\nlessons confirmed (awaiting the jury): {}\nlessons approved: {}, rejected: {}, passed: {}\n",
            get("pending"),
            get("confirmed"),
            get("approved"),
            get("rejected"),
            get("passed")
        ));
    }
    Outcome::Done
}
