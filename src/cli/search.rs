use clap::Args as ClapArgs;

use super::ui::{self, Ctx, Exit};
use git_lore::ops::search::{self, Hit, Request};
use git_lore::search::Status;

/// Find lessons by their words, in every pool and among the proposals on the ledger.
///
/// Searches the claim, rationale, resolution and packages of every lesson
/// of every local pool (local, org, public; synced ones included) and of
/// the ledger's queue (pending, confirmed, and approved not yet promoted).
/// Every word must match, whole and in any case. A package name is one word
/// (`@vitejs/plugin-legacy`, `github.com/spf13/cobra`, `pypi:requests`) and
/// is also found by its parts (`legacy`, `cobra`, `requests`). A lesson
/// whose packages a word names exactly comes first; then the best BM25F
/// score, the claim weighing most. Prints `ID  WHERE  STATUS  CLAIM
/// [STACK]`, best first; exit 1 when nothing matches. Answered from the
/// index: it reads no lesson file.
///
/// Examples: `git lore search vite module-runner`, `git lore search
/// @vitejs/plugin-legacy --pool org --json`, `git lore search timeout
/// --status pending --limit 5`.
#[derive(ClapArgs, Debug)]
#[command(
    about = "Find lessons by their words, in every pool and among the proposals on the ledger"
)]
pub struct Args {
    /// The words to find (all of them must match).
    #[arg(required = true, value_name = "TERMS")]
    terms: Vec<String>,
    /// Only lessons of this pool: local, org or public.
    #[arg(long, value_name = "TIER")]
    pool: Option<String>,
    /// Only lessons in this status: a pool lesson's (active, superseded,
    /// refuted, retracted) or a queued one's (pending, confirmed, approved).
    #[arg(long, value_parser = parse_status)]
    status: Option<Status>,
    /// Print at most this many lessons; 0 for all.
    #[arg(long, value_name = "N", default_value_t = search::DEFAULT_LIMIT)]
    limit: usize,
    /// Print the hits as a JSON array (`[]` when nothing matches): id,
    /// where (`pool/<tier>`, or `ledger` for the queue, as `list --all`
    /// says it), status, score, package_match, claim, stack.
    #[arg(long)]
    json: bool,
}

fn parse_status(s: &str) -> Result<Status, String> {
    match s {
        "passed" | "rejected" => Err(format!(
            "{s} lessons are not searched (they were not kept); `git lore list --status {s}` lists them"
        )),
        _ => s
            .parse()
            .map_err(|e: git_lore::names::NameError<Status>| e.to_string()),
    }
}

#[derive(serde::Serialize)]
struct Row<'a> {
    #[serde(flatten)]
    hit: &'a Hit,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    unverified: bool,
}

pub fn run(args: Args, ctx: &Ctx) -> ui::Result {
    let pool = args
        .pool
        .as_deref()
        .map(|p| ui::parse_tier(p, true))
        .transpose()?;
    let text = args.terms.join(" ");
    let request = Request {
        text: text.clone(),
        pool,
        status: args.status,
        limit: (args.limit > 0).then_some(args.limit),
    };
    let lore = ctx.open()?;
    let trusted = ui::check_trust(&lore)?;
    // Loaded once: the hits and, on a terminal, their shortest prefixes.
    let index = git_lore::ops::query::index(&lore)?;
    let found = search::search_in(&index, &request).map_err(git_lore::ops::LoreError::from)?;
    let unverified = |h: &Hit| trusted.flagged.contains(&h.id);
    if args.json {
        let rows: Vec<Row> = found
            .hits
            .iter()
            .map(|hit| Row {
                hit,
                unverified: unverified(hit),
            })
            .collect();
        ui::out_json(&rows);
    } else {
        // On a terminal each id's shortest unique prefix is bold.
        let known = ui::emphasis().then(|| index.ids());
        let mut s = String::new();
        for h in &found.hits {
            let id = match &known {
                Some(k) => {
                    ui::id_shown(h.id, git_lore::model::unique_prefix_len(h.id, k), 26, true)
                }
                None => h.id.to_string(),
            };
            let place = h.place.to_string();
            let flag = if unverified(h) { "  [unverified]" } else { "" };
            s.push_str(&format!(
                "{id}  {place:<11}  {:<10}  {}  [{}]{flag}\n",
                h.status.as_str(),
                ui::text(&h.claim),
                ui::text(&h.stack.join(", "))
            ));
        }
        ui::out(&s);
    }
    if found.hits.is_empty() {
        ui::status(nothing(&text, &request));
        return Ok(Exit::Refused);
    }
    if found.matched > found.hits.len() {
        ui::status(format!(
            "{} of {} matching lessons shown; `--limit 0` shows them all",
            found.hits.len(),
            found.matched
        ));
    }
    Ok(Exit::Done)
}

/// The one line said when nothing matches: what was searched, and what to
/// try next.
fn nothing(text: &str, r: &Request) -> String {
    let mut within = String::new();
    if let Some(p) = r.pool {
        within.push_str(&format!(" in pool/{p}"));
    } else {
        within.push_str(" in the pools or among the proposals on the ledger");
    }
    if let Some(s) = r.status {
        within.push_str(&format!(" with status {s}"));
    }
    let filters = if r.pool.is_some() || r.status.is_some() {
        ", drop --pool or --status"
    } else {
        ""
    };
    let quoted: String = text.chars().take(80).collect();
    // What is searched, listed whole, to look through by eye.
    let list = match r.pool {
        Some(p) => format!("git lore list --pool {p}"),
        None => "git lore list --all".to_owned(),
    };
    format!(
        "no lesson matches {quoted:?}{within}: every word must match, so try fewer words{filters}, or list every lesson with `{list}`"
    )
}
