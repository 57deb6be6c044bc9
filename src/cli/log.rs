use clap::Args as ClapArgs;

use super::ui::{self, Ctx, Exit};
use git_lore::event::Event;
use git_lore::ops::audit::{self, LogEntry, LogFilter};
use git_lore::ops::query;
use git_lore::signing::SignatureStatus;

/// Show the audit trail, newest first across branches: each commit's
/// action, status from → to, signer, date and signature status (good / bad
/// / unknown signer / unsigned). On a terminal it goes through your pager
/// (`GIT_PAGER`, `core.pager`, `PAGER`, else `less`), as `git log` does.
///
/// With a lesson id, only that lesson's history; with `--artifact`, what
/// happened to one artifact. `-p` shows how the record's JSON changed.
///
/// Examples: `git lore log`, `git lore log -p 01kz8nv6803`, `git lore log
/// --artifact 01m1e3vm`.
#[derive(ClapArgs, Debug)]
#[command(about = "Show the audit trail, newest first across branches")]
pub struct Args {
    /// A lesson id, or a unique prefix of it (4 or more characters, any case).
    #[arg(value_name = "LESSON-ID", conflicts_with = "artifact")]
    lesson: Option<String>,
    /// Show the history of one artifact instead.
    #[arg(long, value_name = "ULID")]
    artifact: Option<String>,
    /// Show a diff of each record's JSON between versions.
    #[arg(short = 'p', long = "patch")]
    patch: bool,
    /// Show only the N newest commits.
    #[arg(short = 'n', long = "max-count", value_name = "N")]
    max_count: Option<usize>,
    /// Print JSON instead of text.
    #[arg(long)]
    json: bool,
}

/// One entry as `--json` prints it.
#[derive(serde::Serialize)]
struct Row {
    commit: String,
    branch: String,
    date: String,
    action: Option<String>,
    lesson: Option<String>,
    artifact: Option<String>,
    from: Option<String>,
    to: Option<String>,
    reason: Option<String>,
    subject: String,
    /// `good`, `bad`, `unknown signer`, `unsigned` or `unverifiable`.
    signature: String,
    /// The principal (for a good signature) or key fingerprint.
    signer: Option<String>,
}

/// The words for a signature verdict, and who signed.
pub(super) fn signature(s: &SignatureStatus) -> (&'static str, Option<String>) {
    match s {
        SignatureStatus::Good { principal, .. } => ("good", Some(principal.clone())),
        SignatureStatus::Bad { .. } => ("bad", None),
        SignatureStatus::UnknownSigner { fingerprint } => {
            ("unknown signer", Some(fingerprint.clone()))
        }
        SignatureStatus::Unsigned => ("unsigned", None),
        SignatureStatus::Unverifiable { .. } => ("unverifiable", None),
    }
}

/// The status a lesson or pool entry ends in, and why, as the log says it.
fn to_and_reason(e: &Event) -> (Option<String>, Option<String>) {
    match e {
        Event::Propose { .. } => (Some("pending".into()), None),
        Event::Decline { reason, .. } => (None, Some(reason.to_string())),
        Event::Pass { step, reason } => (Some(step.to.to_string()), reason.clone()),
        Event::Judge { step, ruling, .. } => {
            (Some(step.to.to_string()), Some(ruling.reason.clone()))
        }
        Event::Promote { .. } => (Some("active".into()), None),
        Event::Config { topic } => (None, Some(topic.to_string())),
        Event::Supersede { .. } => (Some("superseded".into()), None),
        Event::Rejudge {
            refuted, ruling, ..
        } => (
            Some(if *refuted { "refuted" } else { "active" }.into()),
            Some(ruling.reason.clone()),
        ),
        e => (e.step().map(|s| s.to.to_string()), None),
    }
}

fn row(e: &LogEntry) -> Row {
    let ev = e.event.as_ref().ok();
    let (to, reason) = ev.map(to_and_reason).unwrap_or((None, None));
    let (word, signer) = signature(&e.signature);
    Row {
        commit: e.commit.to_string(),
        branch: e.branch.to_string(),
        date: jiff::Timestamp::from_second(e.time)
            .map(git_lore::model::iso)
            .unwrap_or_default(),
        action: ev.map(|e| e.action().to_string()),
        lesson: ev.and_then(Event::lesson).map(|i| i.to_string()),
        artifact: ev.and_then(Event::artifact).map(|i| i.to_string()),
        from: ev.and_then(Event::step).map(|s| s.from.to_string()),
        to,
        reason,
        subject: e.subject.clone(),
        signature: word.to_owned(),
        signer,
    }
}

pub fn run(args: Args, ctx: &Ctx) -> ui::Result {
    let lore = ctx.open()?;
    let filter = match (&args.lesson, &args.artifact) {
        (Some(l), _) => {
            let id = ui::resolve_id(&lore, &ui::parse_id(l)?)?;
            match query::named(&lore, id)? {
                query::Named::Lesson(_) | query::Named::Entry { .. } => LogFilter::Lesson(id),
                query::Named::Artifact(_) => {
                    ui::status(format!("{id} is an artifact; showing its history"));
                    LogFilter::Artifact(id)
                }
                query::Named::Nothing => {
                    return Err(ui::CliError::Usage(format!(
                        "no lesson or artifact has the id {id}"
                    )))
                }
            }
        }
        (_, Some(a)) => LogFilter::Artifact(ui::resolve_id(&lore, &ui::parse_id(a)?)?),
        _ => LogFilter::All,
    };
    let entries = audit::log(&lore, filter, args.max_count)?;
    let rows: Vec<Row> = entries.iter().map(row).collect();
    if args.json {
        ui::out_json(&rows);
        return Ok(Exit::Done);
    }
    let mut s = String::new();
    for (e, r) in entries.iter().zip(&rows) {
        s.push_str(&format!(
            "{} {} {:<11} {}\n",
            &r.commit[..12],
            r.date,
            r.branch,
            ui::text(&r.subject)
        ));
        let mut line = format!(
            "    {}",
            r.action.as_deref().unwrap_or("(not a lore commit)")
        );
        match (&r.from, &r.to) {
            // A promote's stamp changes no status: `promote (stays approved)`.
            (Some(f), Some(t)) if f == t => line.push_str(&format!(" (stays {t})")),
            (Some(f), Some(t)) => line.push_str(&format!(" {f} -> {t}")),
            (None, Some(t)) => line.push_str(&format!(" -> {t}")),
            _ => {}
        }
        if let Some(reason) = &r.reason {
            let words = git_lore::review::reason_text(reason);
            line.push_str(&format!(" ({})", ui::text(words)));
        }
        line.push_str(&format!("; signature: {}", r.signature));
        if let Some(who) = &r.signer {
            line.push_str(&format!(" ({})", ui::text(who)));
        }
        s.push_str(&line);
        s.push('\n');
        if args.patch {
            for d in audit::record_diffs(&lore, e.commit)? {
                let text = git_lore::review::edit::unified(&d.old, &d.new, Some(&d.path));
                for l in text.lines() {
                    s.push_str("    ");
                    s.push_str(&ui::text(l));
                    s.push('\n');
                }
            }
        }
    }
    ui::page(&s, lore.config("core.pager"));
    Ok(Exit::Done)
}
