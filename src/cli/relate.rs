use clap::Args as ClapArgs;

use super::ui::{self, CliError, Ctx, Exit};
use git_lore::ops::backend::Role;
use git_lore::ops::relate::{self, Related, Unapplied, VerdictFrom};
use git_lore::ops::Lore;
use git_lore::review::relation::verdict::MAX_VERDICT_BYTES;

/// Judge how a promoted lesson relates to the live lessons of its pool, and
/// apply the verdict: supersede, merge, refine, contradict, or skip.
///
/// The lesson is shown with its neighbours (live lessons of its pool whose
/// stacks overlap and whose version ranges can both hold). With no option
/// the configured relation judge decides (`lore.relate.backend offline`:
/// exact duplicates are merged, anything else abstains; or a model program,
/// `lore.relate.command`, `lore.relate.model`, `lore.relate.timeout`
/// (default 60 s)). `--verdict` applies a verdict produced elsewhere;
/// `--input` prints what a judge would be shown and writes nothing.
///
/// A verdict is applied whole or not at all: one invalid decision voids
/// every decision in it. Each effect is its own signed commit on the pool.
///
/// Exit 0 when a verdict was applied (a skip included); 2 when nothing was
/// written and the lesson stays queued (voided, all abstain, a timeout, no
/// judge configured: safe to retry); 1 when refused (unknown id, not
/// promoted, related already, bad arguments).
///
/// Examples:
///   git lore relate 01KZ8NV6800V96PY3NATFKSCMG --input > input.json
///   git lore relate 01KZ8NV6800V96PY3NATFKSCMG --verdict @verdict.json
///   git -C ~/.local/share/git-lore/lessons.git config lore.relate.backend offline
///   git lore relate --all --yes
#[derive(ClapArgs, Debug)]
#[command(about = "Judge how a promoted lesson relates to its pool, and apply the verdict")]
pub struct Args {
    /// The lesson id, or a unique prefix of it (4 or more characters, any case).
    #[arg(
        value_name = "ID",
        required_unless_present = "all",
        conflicts_with = "all"
    )]
    id: Option<String>,
    /// Print the judgment input (JSON) and write nothing.
    #[arg(long, conflicts_with_all = ["verdict", "all"])]
    input: bool,
    /// Apply this verdict: JSON text, `-` for stdin, or `@FILE`.
    #[arg(long, value_name = "VERDICT", conflicts_with = "all")]
    verdict: Option<String>,
    /// Every promoted lesson not yet related, with the configured judge.
    #[arg(long)]
    all: bool,
    /// With --all: do not ask first.
    #[arg(long, requires = "all")]
    yes: bool,
    /// Print the outcome, and the relation telemetry counters, as JSON.
    #[arg(long)]
    json: bool,
}

/// The verdict's bytes, at most one byte over the parser's limit (so the
/// parser, not this, decides what is too long).
fn read_verdict(arg: &str) -> ui::Result<Vec<u8>> {
    ui::read_arg(arg, MAX_VERDICT_BYTES)
}

fn say(r: &Related) -> String {
    let mut s = String::new();
    if r.unapplied.is_none() {
        s.push_str(&format!(
            "Lesson {} related on pool/{} by {} ({}):\n",
            r.lesson,
            r.pool,
            ui::text(&r.model),
            ui::count(r.neighbours.len(), "neighbour", "neighbours")
        ));
        for w in &r.written {
            s.push_str(&format!(
                "  {}  {}\n",
                &w.commit[..12],
                ui::text(&w.subject)
            ));
        }
    }
    s
}

fn exit_of(r: &Related) -> Exit {
    if r.unapplied.is_some() {
        Exit::Undetermined
    } else {
        Exit::Done
    }
}

/// Why nothing was applied, with what to do about it when that is a
/// setting.
fn why(ctx: &Ctx, unapplied: &Unapplied) -> String {
    match unapplied {
        Unapplied::NoJudge => no_judge(ctx),
        other => other.to_string(),
    }
}

/// No relation judge configured: the exact commands that configure one.
fn no_judge(ctx: &Ctx) -> String {
    format!(
        "no relation judge is configured; to use the built-in offline judge, run `{}` (or set {} to a model program)",
        ui::config_command(ctx, &Role::Relate.key("backend"), Some("offline")),
        Role::Relate.key("command")
    )
}

fn not_applied(ctx: &Ctx, r: &Related) {
    if let Some(unapplied) = &r.unapplied {
        ui::error(format!(
            "lesson {} was not related; nothing was written and it stays queued: {}",
            r.lesson,
            why(ctx, unapplied)
        ));
    }
}

pub fn run(args: Args, ctx: &Ctx) -> ui::Result {
    let mut lore = ctx.open()?;
    if args.all {
        return run_all(&mut lore, &args, ctx);
    }
    let id = ui::resolve_lesson(
        &lore,
        &ui::parse_id(args.id.as_deref().unwrap_or_default())?,
    )?;
    if args.input {
        let input = relate::input(&lore, id)?;
        ui::out(&String::from_utf8_lossy(&input.to_json()));
        return Ok(Exit::Done);
    }
    let given = args.verdict.as_deref().map(read_verdict).transpose()?;
    let backend = match &given {
        Some(_) => None,
        None => relate::judge(&lore)?,
    };
    let from = match &given {
        Some(bytes) => VerdictFrom::Given(bytes),
        None => VerdictFrom::Judge(backend.as_ref()),
    };
    let r = relate::relate(&mut lore, id, from)?;
    if args.json {
        ui::out_json(&serde_json::json!({
            "result": r,
            "telemetry": relate::telemetry(&lore),
        }));
    } else {
        ui::out(&say(&r));
    }
    not_applied(ctx, &r);
    Ok(exit_of(&r))
}

fn run_all(lore: &mut Lore, args: &Args, ctx: &Ctx) -> ui::Result {
    let Some(backend) = relate::judge(lore)? else {
        ui::error(no_judge(ctx));
        return Ok(Exit::Undetermined);
    };
    // The pools are read once here and kept for the whole run (read again
    // only where something else moves them meanwhile).
    let mut pools = relate::Pools::new();
    let queued = relate::queue_in(lore, &mut pools)?;
    ui::status(format!(
        "{} promoted to relate with {}",
        ui::count(queued.len(), "lesson", "lessons"),
        backend.describe()
    ));
    if queued.is_empty() {
        if args.json {
            ui::out_json(&serde_json::json!({
                "results": [],
                "telemetry": relate::telemetry(lore),
            }));
        }
        return Ok(Exit::Done);
    }
    if !ui::ask("Proceed?", args.yes, "relate")? {
        ui::status("nothing related");
        return Ok(Exit::Done);
    }
    let mut results = Vec::new();
    let mut exit = Exit::Done;
    for (_, id) in queued {
        let r = match relate::relate_if_queued(
            lore,
            &mut pools,
            id,
            VerdictFrom::Judge(Some(&backend)),
        ) {
            Ok(Some(r)) => r,
            // An earlier lesson of this run merged or superseded it.
            Ok(None) => {
                if !args.json {
                    ui::out(&format!(
                        "Lesson {id} left the queue meanwhile (an earlier relation retired it).\n"
                    ));
                }
                continue;
            }
            Err(e) => {
                // One lesson's refusal (it changed meanwhile) does not stop
                // the others.
                ui::error(git_lore::ops::with_causes(&e));
                exit = match (exit, CliError::from(e).exit()) {
                    (Exit::Done, e) => e,
                    (x, _) => x,
                };
                continue;
            }
        };
        if !args.json {
            ui::out(&say(&r));
        }
        not_applied(ctx, &r);
        if r.unapplied.is_some() {
            exit = Exit::Undetermined;
        }
        results.push(r);
    }
    let applied = results.iter().filter(|r| r.unapplied.is_none()).count();
    ui::status(format!(
        "related: {applied} applied, {} not (still queued)",
        results.len() - applied
    ));
    if args.json {
        ui::out_json(&serde_json::json!({
            "results": results,
            "telemetry": relate::telemetry(lore),
        }));
    }
    Ok(exit)
}
