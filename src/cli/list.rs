use clap::Args as ClapArgs;

use super::ui::{self, Ctx, Exit};
use git_lore::model::{unique_prefix_len, LessonStatus, ProposalStatus};
use git_lore::ops::query::{self, Listed};

/// List lessons in one status (default: pending), oldest first, as
/// `<id>  <claim>`, each id cut to the shortest prefix that names it, at
/// least 6 characters (any command takes that prefix where it takes an
/// id; on a terminal the prefix is bold, unless NO_COLOR is set).
///
/// `--pool TIER` lists the lessons of one pool (local, org or public; a
/// teammate's synced ones included), `--all` every lesson this repository
/// knows: each pool entry once, and each ledger lesson not in a pool. Both
/// print `<id>  <where>  <status>  <claim>` (where: `ledger` or
/// `pool/<tier>`, as `search` says it) in id order, which is oldest first
/// only to within about 17 minutes; in any status unless `--status` says
/// which (a pool lesson's: active, superseded, refuted, retracted; a
/// ledger lesson's: pending, confirmed, passed, approved, rejected).
///
/// Example: `git lore list --status approved`, `git lore list --all`, `git
/// lore list --pool org --status active`, or in a script `id=$(git lore
/// list --ids | head -n 1)`.
#[derive(ClapArgs, Debug)]
#[command(about = "List lessons in one status (default: pending, oldest first), or of every pool")]
pub struct Args {
    /// pending, confirmed, passed, approved or rejected; with --pool or
    /// --all also active, superseded, refuted or retracted.
    #[arg(long)]
    status: Option<String>,
    /// Only the lessons of this pool: local, org or public.
    #[arg(long, value_name = "TIER", conflicts_with = "all")]
    pool: Option<String>,
    /// Every lesson: each pool's, and the ledger's not in a pool.
    #[arg(long)]
    all: bool,
    /// Print the lessons as a JSON array (`[]` when empty): the proposal
    /// records; with --pool or --all, `{id, where, status, claim, stack}`
    /// rows (`git lore show ID --json` prints a whole record).
    #[arg(long, conflicts_with = "ids")]
    json: bool,
    /// Print only the whole ids, one per line.
    #[arg(long)]
    ids: bool,
}

/// Each id as a list shows it: its shortest unique prefix among every id
/// known here (highlighted on a terminal), all padded to one width.
fn shown_ids(
    index: &git_lore::store::Index,
    ids: impl Iterator<Item = git_lore::model::Id> + Clone,
) -> Vec<String> {
    let known = index.ids();
    let lens: Vec<usize> = ids
        .clone()
        .map(|id| unique_prefix_len(id, &known))
        .collect();
    let width = lens.iter().copied().max().unwrap_or(0);
    let bold = ui::emphasis();
    ids.zip(&lens)
        .map(|(id, n)| ui::id_shown(id, *n, width, bold))
        .collect()
}

fn parse_status(s: &str) -> ui::Result<ProposalStatus> {
    s.parse()
        .map_err(|e: git_lore::names::NameError<ProposalStatus>| {
            let hint = if s.parse::<LessonStatus>().is_ok() {
                format!("; {s} is a pool lesson's status: add --pool TIER or --all")
            } else {
                String::new()
            };
            ui::CliError::Usage(format!("{e}{hint}"))
        })
}

/// A status word `--pool` or `--all` filters by: a ledger lesson's or a
/// pool lesson's.
fn any_status(s: &str) -> ui::Result<String> {
    if s.parse::<ProposalStatus>().is_ok() || s.parse::<LessonStatus>().is_ok() {
        return Ok(s.to_owned());
    }
    Err(ui::CliError::Usage(format!(
        "unknown status {:?}: use pending, confirmed, passed, approved, rejected (a ledger lesson's) or active, superseded, refuted, retracted (a pool lesson's)",
        ui::text(s)
    )))
}

pub fn run(args: Args, ctx: &Ctx) -> ui::Result {
    if args.all || args.pool.is_some() {
        return run_everywhere(&args, ctx);
    }
    let status = parse_status(args.status.as_deref().unwrap_or("pending"))?;
    let lore = ctx.open()?;
    let trusted = ui::check_trust(&lore)?;
    // Loaded once: the lessons listed and their shortest prefixes.
    let index = query::index(&lore)?;
    let list = query::list_in(&lore, &index, status)?;
    if args.json {
        ui::out_json(&list);
    } else if args.ids {
        ui::out(
            &list
                .iter()
                .map(|p| format!("{}\n", p.id))
                .collect::<String>(),
        );
    } else if list.is_empty() {
        ui::status(format!(
            "No {status} lessons. `git lore list --all` lists every lesson, of every pool."
        ));
    } else {
        let shorts = shown_ids(&index, list.iter().map(|p| p.id));
        let mut s = String::new();
        for (p, short) in list.iter().zip(&shorts) {
            let flag = if trusted.flagged.contains(&p.id) {
                "  [unverified]"
            } else {
                ""
            };
            s.push_str(&format!(
                "{short}  {}{flag}\n",
                ui::text(&p.candidate.claim)
            ));
        }
        ui::out(&s);
    }
    Ok(Exit::Done)
}

/// A row of `--json` with `--pool` or `--all`.
#[derive(serde::Serialize)]
struct Row<'a> {
    #[serde(flatten)]
    listed: &'a Listed,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    unverified: bool,
}

/// `list --pool TIER` and `list --all`.
fn run_everywhere(args: &Args, ctx: &Ctx) -> ui::Result {
    let pool = args
        .pool
        .as_deref()
        .map(|p| ui::parse_tier(p, true))
        .transpose()?;
    let status = args.status.as_deref().map(any_status).transpose()?;
    let lore = ctx.open()?;
    let trusted = ui::check_trust(&lore)?;
    let index = query::index(&lore)?;
    let mut list = query::list_everywhere(&lore, &index, pool)?;
    if let Some(s) = &status {
        list.retain(|l| &l.status == s);
    }
    if args.json {
        let rows: Vec<Row> = list
            .iter()
            .map(|listed| Row {
                listed,
                unverified: trusted.flagged.contains(&listed.id),
            })
            .collect();
        ui::out_json(&rows);
    } else if args.ids {
        ui::out(
            &list
                .iter()
                .map(|l| format!("{}\n", l.id))
                .collect::<String>(),
        );
    } else if list.is_empty() {
        let within = match pool {
            Some(p) => format!(" in pool/{p}"),
            None => String::new(),
        };
        let status = status.map(|s| format!(" {s}")).unwrap_or_default();
        ui::status(format!(
            "No{status} lessons{within}. A teammate's lessons arrive with `git lore sync TIER` (docs/pools.md)."
        ));
    } else {
        let shorts = shown_ids(&index, list.iter().map(|l| l.id));
        let mut s = String::new();
        for (l, short) in list.iter().zip(&shorts) {
            let flag = if trusted.flagged.contains(&l.id) {
                "  [unverified]"
            } else {
                ""
            };
            s.push_str(&format!(
                "{short}  {:<11}  {:<10}  {}{flag}\n",
                l.place.to_string(),
                l.status,
                ui::text(&l.claim)
            ));
        }
        ui::out(&s);
    }
    Ok(Exit::Done)
}
