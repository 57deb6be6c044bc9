use clap::Args as ClapArgs;

use super::ui::{self, Ctx, Exit};
use git_lore::ops::query;
use git_lore::store::ArtifactOutcome;

/// Print what happened to each artifact: the lesson it became and that
/// lesson's status, the reason it was declined, or `unseen`. Given a
/// lesson's id instead, it says so and names that lesson's artifact.
///
/// Answered from the derived index, not by walking history.
///
/// Example: `git lore seen 01M1E3VM1GAD8DSR0D4BG72GC0 01m1j2k3`.
#[derive(ClapArgs, Debug)]
#[command(about = "Print what happened to each artifact")]
pub struct Args {
    /// Artifact ids, whole or unique prefixes (4 or more characters).
    #[arg(required = true, value_name = "ULID")]
    artifacts: Vec<String>,
    /// Print JSON instead of text.
    #[arg(long)]
    json: bool,
}

#[derive(serde::Serialize)]
struct Row {
    artifact: String,
    outcome: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    lesson: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    status: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    reason: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    detail: Option<String>,
}

pub fn run(args: Args, ctx: &Ctx) -> ui::Result {
    let typed = args
        .artifacts
        .iter()
        .map(|a| ui::parse_id(a))
        .collect::<ui::Result<Vec<_>>>()?;
    let lore = ctx.open()?;
    let ids = typed
        .iter()
        .map(|t| ui::resolve_id(&lore, t))
        .collect::<ui::Result<Vec<_>>>()?;
    let trusted = ui::check_trust(&lore)?;
    let rows: Vec<Row> = query::seen(&lore, &ids)?
        .into_iter()
        .map(|s| {
            let mut row = Row {
                artifact: s.artifact.to_string(),
                outcome: "unseen",
                lesson: None,
                status: None,
                reason: None,
                detail: None,
            };
            match s.outcome {
                None => {
                    if let Some(l) = s.is_lesson {
                        // Asked about a lesson: say so, and name its artifact.
                        row.outcome = "lesson";
                        row.lesson = Some(l.artifact.to_string());
                        row.status = Some(l.status.to_string());
                    }
                }
                Some(ArtifactOutcome::Proposed { lesson }) => {
                    row.outcome = "proposed";
                    row.lesson = Some(lesson.to_string());
                    row.status = s.lesson.map(|e| e.status.to_string());
                }
                Some(ArtifactOutcome::Declined { reason }) => {
                    row.outcome = "declined";
                    row.reason = Some(
                        reason
                            .map(|r| r.to_string())
                            .unwrap_or_else(|| "unknown".into()),
                    );
                    row.detail = s.detail;
                }
            }
            row
        })
        .collect();
    if args.json {
        ui::out_json(&rows);
        return Ok(Exit::Done);
    }
    let mut s = String::new();
    for r in &rows {
        let detail = match (r.outcome, &r.lesson, &r.status, &r.reason) {
            ("proposed", Some(l), st, _) => {
                format!(" {l} {}", st.as_deref().unwrap_or("unknown"))
            }
            ("declined", _, _, Some(code)) => {
                let why = git_lore::review::reason_text(code);
                match &r.detail {
                    Some(d) if d.len() <= 120 => format!(" {why} ({})", ui::text(d)),
                    _ => format!(" {}", ui::text(why)),
                }
            }
            ("lesson", Some(artifact), Some(st), _) => {
                format!(" (this id is a {st} lesson; its artifact is {artifact})")
            }
            _ => String::new(),
        };
        let flagged = [Some(&r.artifact), r.lesson.as_ref()]
            .into_iter()
            .flatten()
            .any(|i| i.parse().is_ok_and(|i| trusted.flagged.contains(&i)));
        let flag = if flagged { " [unverified]" } else { "" };
        s.push_str(&format!("{} {}{}{flag}\n", r.artifact, r.outcome, detail));
    }
    ui::out(&s);
    if rows.iter().any(|r| r.outcome == "unseen") {
        ui::status(
            "unseen: history holds no outcome for it (an artifact with no version in it is skipped, and a skip is never recorded)",
        );
    }
    Ok(Exit::Done)
}
