use clap::Args as ClapArgs;

use super::ui::{self, CliError, Ctx, Exit};
use git_lore::model::{Id, Proposal, ProposalStatus, Visibility};
use git_lore::ops::backend::{Backend, Role};
use git_lore::ops::judge::{self, Turn};
use git_lore::ops::promote::{promote, Promoted};
use git_lore::ops::rejudge::{self, Rejudged};
use git_lore::ops::{query, Lore};
use git_lore::review::{self, Judged, Transition, UnjudgedReason};

/// Record the jury's verdict on a confirmed lesson, then promote it; or
/// judge again a shared lesson that counter-observations contradict.
///
/// `judge ID` runs the configured judges (offline by default;
/// `lore.judge.command` for a model) on one confirmed lesson, after saying
/// which and asking — or proceeding with `--yes`. `judge ID VERDICTS`
/// takes the judges' verdicts instead, as JSON (an array of `{judge_type,
/// score, passed, criterion_scores, feedback_summary}`), as text, `-` for
/// stdin or `@FILE`. `judge --all` runs the configured judges over every
/// confirmed lesson, after reporting how many there are and asking. A private lesson is approved with no jury. Exit 0
/// when verdicts were recorded, 1 on a usage or state error, 2 when a lesson
/// could not be judged (nothing written; it stays confirmed; re-run).
///
/// A lesson in pool/org or pool/public whose counter-observations reached
/// `lore.relate.threshold` goes back to the jury, shown the lesson and the
/// counter-evidence: `judge --contradicted` runs the judges on every such
/// lesson (report, then ask, as `--all`), `judge ID` runs them on one,
/// `judge ID VERDICTS` records verdicts given for one. A failed ruling makes it `refuted` (recall never
/// returns it again); a passed one upholds it, and it waits again only when
/// more counter-observations are recorded. Only the jury refutes a lesson.
///
/// Examples: `git lore judge 01kz8nv6803 --yes`, `git lore judge --all
/// --yes`, `git lore judge 01kz8nv6803 @verdicts.json`, `git lore judge
/// --contradicted --yes`.
#[derive(ClapArgs, Debug)]
#[command(
    about = "Record the jury's verdict on a lesson, then promote it",
    group(clap::ArgGroup::new("batch").args(["all", "contradicted"]))
)]
pub struct Args {
    /// The lesson id, or a unique prefix of it (4 or more characters, any case).
    #[arg(
        value_name = "ID",
        required_unless_present_any = ["all", "contradicted"],
        conflicts_with = "batch"
    )]
    id: Option<String>,
    /// The verdicts: JSON text, `-` for stdin, or `@FILE`. Without them,
    /// the configured judges judge the lesson.
    #[arg(value_name = "VERDICTS")]
    verdicts: Option<String>,
    /// Judge every confirmed lesson with the configured judges.
    #[arg(long)]
    all: bool,
    /// Judge again, with the configured judges, every shared lesson whose
    /// counter-observations reached lore.relate.threshold.
    #[arg(long)]
    contradicted: bool,
    /// When the configured judges judge (ID alone, --all, --contradicted):
    /// do not ask before judging.
    #[arg(long, conflicts_with = "verdicts")]
    yes: bool,
    /// When the configured judges judge: offline or command [default: from
    /// lore.judge.backend].
    #[arg(long, conflicts_with = "verdicts", value_parser = ["offline", "command"])]
    backend: Option<String>,
}

/// The VERDICTS argument: JSON, `-` for stdin, or `@FILE`.
fn read_verdicts(arg: &str) -> ui::Result<String> {
    const MAX: usize = 16 << 20;
    let from = match arg {
        "-" => "stdin".to_owned(),
        _ => arg.strip_prefix('@').unwrap_or("the argument").to_owned(),
    };
    let bytes = ui::read_arg(arg, MAX)?;
    if bytes.len() > MAX {
        return Err(CliError::Usage(format!(
            "VERDICTS from {} is larger than {MAX} bytes",
            ui::text(&from)
        )));
    }
    String::from_utf8(bytes).map_err(|_| {
        CliError::Usage(format!(
            "VERDICTS from {} is not UTF-8 text",
            ui::text(&from)
        ))
    })
}

/// What to say after a lesson was judged: its new status, and for a
/// rejection why, and that its record is kept.
fn judged_line(p: &Proposal) -> String {
    match (&p.verdict, p.status) {
        (Some(v), ProposalStatus::Rejected) => format!(
            "Lesson {} is now rejected: {}; its verdict stays on the ledger.\n",
            p.id,
            ui::text(review::reason_text(&v.reason))
        ),
        _ => format!("Lesson {} is now {}.\n", p.id, p.status),
    }
}

/// What to say after a lesson was promoted, or failed to be. A rejected
/// lesson's stamp adds nothing to what [`judged_line`] said.
fn report_promoted(id: Id, promoted: &Promoted) {
    match promoted {
        Ok(Transition::Changed(p)) if p.status == ProposalStatus::Approved => {
            ui::out(&ui::promoted_line(p))
        }
        Ok(Transition::Changed(_) | Transition::Unchanged(_)) => {}
        Err(e) => ui::error(format!(
            "lesson {id} was judged but not promoted ({e}); run `git lore promote {id}` to retry"
        )),
    }
}

fn recorded(lore: &mut Lore, p: &Proposal) {
    ui::out(&judged_line(p));
    report_promoted(p.id, &promote(lore, p.id));
}

pub fn run(args: Args, ctx: &Ctx) -> ui::Result {
    let mut lore = ctx.open()?;
    if args.all {
        return run_all(&mut lore, &args, ctx);
    }
    if args.contradicted {
        return run_contradicted(&mut lore, &args, ctx);
    }
    let id = ui::resolve_lesson(
        &lore,
        &ui::parse_id(args.id.as_deref().unwrap_or_default())?,
    )?;
    let Some(verdicts) = args.verdicts.as_deref() else {
        return run_one(&mut lore, id, &args, ctx);
    };
    let text = read_verdicts(verdicts)?;
    if rejudge::judges(&lore, id)? {
        let panel = review::parse_panel(&text);
        let r = rejudge::rejudge(&mut lore, id, &panel)?;
        return Ok(say_rejudged(id, &r, true));
    }
    // Verdicts that are not JSON cannot be judged — but only once the lesson
    // is known to be confirmed (a missing or decided lesson is a refusal, a
    // private one needs no panel).
    let panel = review::parse_panel(&text);
    match judge::judge(&mut lore, id, &panel, None, None)? {
        Judged::Recorded(p) => {
            recorded(&mut lore, &p);
            Ok(Exit::Done)
        }
        Judged::Unjudged(why) => {
            ui::error(format!(
                "lesson {id} could not be judged; it stays confirmed. Re-run to retry: {}",
                why.message(id)
            ));
            Ok(Exit::Undetermined)
        }
        Judged::Skipped(status) => {
            ui::out(&format!(
                "Lesson {id} was decided meanwhile; it is {status}.\n"
            ));
            Ok(Exit::Done)
        }
    }
}

/// Says what judging a contradicted lesson again came to; the exit code.
fn say_rejudged(id: Id, r: &Rejudged, alone: bool) -> Exit {
    match r {
        Rejudged::Recorded {
            pool,
            refuted,
            count,
            verdict,
            commit,
        } => {
            // Why it failed, in words; an upheld one passed, which says it.
            let why = if *refuted {
                format!("{}; ", ui::text(review::reason_text(&verdict.reason)))
            } else {
                String::new()
            };
            let under = match (&verdict.rubric_id, verdict.aggregate_score) {
                (Some(r), Some(s)) => format!(" ({why}rubric {r}, score {s})"),
                _ if why.is_empty() => String::new(),
                _ => format!(" ({})", why.trim_end_matches("; ")),
            };
            let short = &commit.to_string()[..12];
            ui::out(&if *refuted {
                format!(
                    "Lesson {id} is now refuted on pool/{pool}: the jury failed it{under} against {count} counter-observations ({short}).\n"
                )
            } else {
                format!(
                    "Lesson {id} stays active on pool/{pool}: the jury upheld it{under} against {count} counter-observations ({short}); it waits again when more are recorded.\n"
                )
            });
            Exit::Done
        }
        Rejudged::Unjudged(why) => {
            let line = format!(
                "lesson {id} could not be judged again; nothing was written and it still waits for the jury. Re-run to retry: {}",
                why.message(id)
            );
            if alone {
                ui::error(line);
            } else {
                ui::out(&format!("{}\n", ui::text(&line)));
            }
            Exit::Undetermined
        }
    }
}

fn run_contradicted(lore: &mut Lore, args: &Args, ctx: &Ctx) -> ui::Result {
    let backend = Backend::from_config(lore, Role::Judge, args.backend.as_deref())?;
    let queue = rejudge::queue(lore)?;
    let judges = match &backend {
        Backend::Offline => "the offline judges".to_owned(),
        Backend::Command { model, .. } => format!("judge model {model}"),
    };
    ui::status(format!(
        "{} to judge again with {judges}{}",
        ui::amount(queue.len(), "contradicted lesson", "contradicted lessons"),
        if queue.is_empty() {
            String::new()
        } else {
            format!(
                ": {}",
                queue
                    .iter()
                    .map(|(_, id)| id.to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        }
    ));
    if queue.is_empty() {
        return Ok(Exit::Done);
    }
    if !ui::ask("Proceed?", args.yes, "judge")? {
        ui::status("nothing judged");
        return Ok(Exit::Done);
    }
    let mut each = |t: &rejudge::Turn| {
        say_rejudged(t.id, &t.rejudged, false);
    };
    let turns = rejudge::rejudge_all(lore, &backend, &queue, &mut each)?;
    let n = |refuted: bool| {
        turns
            .iter()
            .filter(
                |t| matches!(&t.rejudged, Rejudged::Recorded { refuted: r, .. } if *r == refuted),
            )
            .count()
    };
    let unjudged: Vec<String> = turns
        .iter()
        .filter(|t| matches!(t.rejudged, Rejudged::Unjudged(_)))
        .map(|t| t.id.to_string())
        .collect();
    ui::status(after_all(
        "judged again",
        &[(n(true), "refuted"), (n(false), "upheld")],
        &unjudged,
    ));
    if turns.iter().any(|t| {
        matches!(
            t.rejudged,
            Rejudged::Unjudged(UnjudgedReason::NoAnswer { .. })
        )
    }) {
        no_answer(ctx);
    }
    Ok(if unjudged.is_empty() {
        Exit::Done
    } else {
        Exit::Undetermined
    })
}

/// What one lesson's turn came to, as `judge --all` and `judge ID` say it.
fn say_turn(t: &Turn) {
    match &t.judged {
        Judged::Recorded(p) if t.earlier => {
            ui::out(&format!(
                "Lesson {} was {} by an earlier run that stopped before promoting it.\n",
                p.id, p.status
            ));
            if let Some(promoted) = &t.promoted {
                report_promoted(p.id, promoted);
            }
        }
        Judged::Recorded(p) => {
            ui::out(&judged_line(p));
            if let Some(promoted) = &t.promoted {
                report_promoted(p.id, promoted);
            }
        }
        Judged::Unjudged(why) => ui::out(&format!(
            "Lesson {} could not be judged; it stays confirmed: {}\n",
            t.id,
            ui::text(&why.message(t.id))
        )),
        Judged::Skipped(status) => ui::out(&format!(
            "Lesson {} was decided meanwhile; it is {status}.\n",
            t.id
        )),
    }
}

/// `judge ID`: the configured judges on one lesson, after saying which
/// and asking (or `--yes`). A contradicted pool lesson is judged again, as
/// `judge --contradicted` does; any other must be confirmed.
fn run_one(lore: &mut Lore, id: Id, args: &Args, ctx: &Ctx) -> ui::Result {
    let backend = Backend::from_config(lore, Role::Judge, args.backend.as_deref())?;
    let judges = match &backend {
        Backend::Offline => "the offline judges".to_owned(),
        Backend::Command { model, .. } => format!("judge model {model}"),
    };
    if rejudge::judges(lore, id)? {
        ui::status(format!(
            "lesson {id}, contradicted, to judge again with {judges}"
        ));
        if !ui::ask("Proceed?", args.yes, "judge")? {
            ui::status("nothing judged");
            return Ok(Exit::Done);
        }
        let r = rejudge::rejudge_one(lore, &backend, id)?;
        let exit = say_rejudged(id, &r, true);
        if matches!(r, Rejudged::Unjudged(UnjudgedReason::NoAnswer { .. })) {
            no_answer(ctx);
        }
        return Ok(exit);
    }
    // Refused before anyone is asked: a lesson that is not confirmed.
    let lesson = judge::confirmed(lore, id)?;
    ui::status(match lesson.proposal().visibility {
        Some(Visibility::Private) => {
            format!("lesson {id} (private) to approve with no jury")
        }
        Some(v) => format!("lesson {id} ({v}) to judge with {judges}"),
        None => format!("lesson {id} to judge with {judges}"),
    });
    if !ui::ask("Proceed?", args.yes, "judge")? {
        ui::status("nothing judged");
        return Ok(Exit::Done);
    }
    let t = judge::judge_one(lore, &backend, &lesson)?;
    match &t.judged {
        Judged::Unjudged(why) => {
            ui::error(format!(
                "lesson {id} could not be judged; it stays confirmed. Re-run to retry: {}",
                why.message(id)
            ));
            if matches!(why, UnjudgedReason::NoAnswer { .. }) {
                no_answer(ctx);
            }
            Ok(Exit::Undetermined)
        }
        _ => {
            say_turn(&t);
            Ok(Exit::Done)
        }
    }
}

/// After a judge program gave no answer: what to do next.
fn no_answer(ctx: &Ctx) {
    ui::status(format!(
        "judge: a judge program gave no answer; {}",
        ui::model_fix(ctx, Role::Judge)
    ));
}

/// What `judge --all` says before it asks: how many confirmed lessons
/// there are, which of them are private (approved with no jury), and how
/// many an interrupted run left to promote.
fn before_all(confirmed: usize, private: usize, judges: &str, unpromoted: usize) -> String {
    let to_judge = confirmed - private;
    let mut parts = Vec::new();
    if to_judge > 0 || private == 0 {
        parts.push(format!(
            "{} to judge with {judges}",
            ui::amount(to_judge, "confirmed lesson", "confirmed lessons")
        ));
    }
    if private > 0 {
        parts.push(format!(
            "{} to approve with no jury",
            ui::amount(private, "private lesson", "private lessons")
        ));
    }
    if unpromoted > 0 {
        parts.push(format!(
            "{} judged earlier to promote",
            ui::count(unpromoted, "lesson", "lessons")
        ));
    }
    parts.join("; ")
}

/// What `judge --all` and `judge --contradicted` say after the lessons
/// they judged: `judged: 2 lessons approved, 1 rejected`, the first count
/// always, the others when there were any, and which could not be judged.
fn after_all(label: &str, counts: &[(usize, &str)], unjudged: &[String]) -> String {
    let mut s = format!("{label}:");
    for (i, (n, what)) in counts.iter().enumerate() {
        match i {
            0 => s.push_str(&format!(" {} {what}", ui::amount(*n, "lesson", "lessons"))),
            _ if *n > 0 => s.push_str(&format!(", {n} {what}")),
            _ => {}
        }
    }
    if !unjudged.is_empty() {
        s.push_str(&format!(
            "; {} could not be judged (nothing written for them; run it again): {}",
            unjudged.len(),
            unjudged.join(", ")
        ));
    }
    s
}

fn run_all(lore: &mut Lore, args: &Args, ctx: &Ctx) -> ui::Result {
    let backend = Backend::from_config(lore, Role::Judge, args.backend.as_deref())?;
    let confirmed = query::list(lore, ProposalStatus::Confirmed)?;
    let count = |v: Visibility| confirmed.iter().filter(|p| p.visibility == Some(v)).count();
    let judges = match &backend {
        Backend::Offline => "the offline judges".to_owned(),
        Backend::Command { model, .. } => format!("judge model {model}"),
    };
    let unpromoted = git_lore::ops::promote::unpromoted(lore)?.len();
    ui::status(before_all(
        confirmed.len(),
        count(Visibility::Private),
        &judges,
        unpromoted,
    ));
    if confirmed.is_empty() && unpromoted == 0 {
        return Ok(Exit::Done);
    }
    if !ui::ask("Proceed?", args.yes, "judge")? {
        ui::status("nothing judged");
        return Ok(Exit::Done);
    }
    let turns = judge::judge_all(lore, &backend, &mut say_turn)?;
    let decided = |s: ProposalStatus| {
        turns
            .iter()
            .filter(|t| !t.earlier && matches!(&t.judged, Judged::Recorded(p) if p.status == s))
            .count()
    };
    let unjudged: Vec<String> = turns
        .iter()
        .filter(|t| matches!(t.judged, Judged::Unjudged(_)))
        .map(|t| t.id.to_string())
        .collect();
    ui::status(after_all(
        "judged",
        &[
            (decided(ProposalStatus::Approved), "approved"),
            (decided(ProposalStatus::Rejected), "rejected"),
        ],
        &unjudged,
    ));
    if turns
        .iter()
        .any(|t| matches!(t.judged, Judged::Unjudged(UnjudgedReason::NoAnswer { .. })))
    {
        no_answer(ctx);
    }
    Ok(if unjudged.is_empty() {
        Exit::Done
    } else {
        Exit::Undetermined
    })
}
