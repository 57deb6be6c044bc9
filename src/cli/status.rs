use clap::Args as ClapArgs;

use super::ui::{self, Ctx, Exit};
use git_lore::model::ProposalStatus;
use git_lore::ops::query;

/// Count lessons by status: what awaits a human (pending), what awaits the
/// jury (confirmed), what was decided, and what a crash left judged but not
/// promoted; then what each pool holds (a teammate's synced lessons
/// included; `git lore list --pool TIER` lists them); then what waits for relation judgment (promoted lessons not
/// yet related, when a relation judge is configured) and the lessons whose
/// counter-observations sent them back to the jury. The first line is the
/// one a SessionStart hook shows.
///
/// Example: `git lore status`.
#[derive(ClapArgs, Debug)]
#[command(about = "Count lessons by status: what awaits a decision")]
pub struct Args {
    /// Print JSON instead of text.
    #[arg(long)]
    json: bool,
}

pub fn run(args: Args, ctx: &Ctx) -> ui::Result {
    let lore = ctx.open()?;
    let trusted = ui::check_trust(&lore)?;
    let (counts, unpromoted) = query::counts(&lore)?;
    let get = |s: ProposalStatus| {
        counts
            .iter()
            .find(|(st, _)| *st == s)
            .map(|(_, n)| *n)
            .unwrap_or(0)
    };
    use ProposalStatus::*;
    let waiting = relation_queue(&lore)?;
    let pools = query::pool_counts(&lore)?;
    if args.json {
        let mut m = serde_json::Map::new();
        for (s, n) in &counts {
            m.insert(s.as_str().into(), (*n).into());
        }
        m.insert(
            "awaiting_decision".into(),
            (get(Pending) + get(Confirmed)).into(),
        );
        m.insert("unpromoted".into(), unpromoted.into());
        m.insert("unverified".into(), trusted.flagged.len().into());
        m.insert("rewritten".into(), trusted.rewritten.into());
        m.insert("unrelated".into(), waiting.unrelated.len().into());
        m.insert("contradicted".into(), waiting.contradicted.len().into());
        let mut by_pool = serde_json::Map::new();
        for (pool, status, n) in &pools {
            let counts = by_pool
                .entry(pool.as_str())
                .or_insert_with(|| serde_json::Value::Object(Default::default()));
            if let Some(c) = counts.as_object_mut() {
                c.insert(status.as_str().into(), (*n).into());
            }
        }
        m.insert("pools".into(), by_pool.into());
        ui::out_json(&m);
    } else {
        ui::out(&format!(
            "lessons pending: {}\nlessons confirmed (awaiting the jury): {}\nlessons approved: {}, rejected: {}, passed: {}\n",
            get(Pending),
            get(Confirmed),
            get(Approved),
            get(Rejected),
            get(Passed)
        ));
        if unpromoted > 0 {
            ui::out(&format!(
                "lessons judged but not promoted: {unpromoted} (an interrupted run; `git lore promote --all` finishes them)\n"
            ));
        }
        ui::out(&pool_lines(&pools));
        ui::out(&waiting.text());
    }
    Ok(if trusted.rewritten {
        Exit::Refused
    } else {
        Exit::Done
    })
}

/// One line per pool that holds entries: `lessons in pool/org: 2 active,
/// 1 retracted`.
fn pool_lines(pools: &[(git_lore::model::Source, git_lore::search::Status, usize)]) -> String {
    let mut s = String::new();
    let mut current: Option<git_lore::model::Source> = None;
    for (pool, status, n) in pools {
        if current == Some(*pool) {
            s.push_str(&format!(", {n} {status}"));
        } else {
            if current.is_some() {
                s.push('\n');
            }
            s.push_str(&format!("lessons in pool/{pool}: {n} {status}"));
            current = Some(*pool);
        }
    }
    if current.is_some() {
        s.push('\n');
    }
    s
}

/// What relation judgment leaves waiting: promoted lessons not yet related
/// (only when a relation judge is configured), and active lessons whose
/// counter-observations reached the threshold (back to the jury).
struct Waiting {
    unrelated: Vec<git_lore::model::Id>,
    contradicted: Vec<git_lore::model::Id>,
}

impl Waiting {
    fn text(&self) -> String {
        let list = |v: &[git_lore::model::Id]| {
            let mut s: Vec<String> = v.iter().take(10).map(ToString::to_string).collect();
            if v.len() > 10 {
                s.push("…".into());
            }
            s.join(", ")
        };
        let mut s = String::new();
        if !self.unrelated.is_empty() {
            s.push_str(&format!(
                "lessons waiting for relation: {} (`git lore relate --all`): {}\n",
                self.unrelated.len(),
                list(&self.unrelated)
            ));
        }
        if !self.contradicted.is_empty() {
            s.push_str(&format!(
                "lessons contradicted past the threshold (back to the jury): {} (`git lore contradictions`, `git lore judge --contradicted`): {}\n",
                self.contradicted.len(),
                list(&self.contradicted)
            ));
        }
        s
    }
}

fn relation_queue(lore: &git_lore::ops::Lore) -> ui::Result<Waiting> {
    use git_lore::ops::relate;
    let unrelated = relate::queue(lore)?.into_iter().map(|(_, id)| id).collect();
    // The queue `judge --contradicted` works through, so the two agree.
    let contradicted = git_lore::ops::rejudge::queue(lore)?
        .into_iter()
        .map(|(_, id)| id)
        .collect();
    Ok(Waiting {
        unrelated,
        contradicted,
    })
}
