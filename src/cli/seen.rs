use clap::Args as ClapArgs;

use super::{error, out, out_json, report, Ctx, Outcome};
use git_lore::model::Id;
use git_lore::store::{ArtifactOutcome, Index, Store};

/// Print what happened to each artifact: the lesson it became and that
/// lesson's status, the reason it was declined, or `unseen`.
///
/// Answered from the derived index, not by walking history.
#[derive(ClapArgs, Debug)]
pub struct Args {
    /// Artifact ids (ULIDs).
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
}

pub fn run(args: Args, ctx: &Ctx) -> Outcome {
    let mut ids = Vec::new();
    for a in &args.artifacts {
        match a.parse::<Id>() {
            Ok(id) => ids.push(id),
            Err(e) => {
                error(e);
                return Outcome::Refused;
            }
        }
    }
    let store = match Store::open(&ctx.repo, ctx.env.host()) {
        Ok(s) => s,
        Err(e) => return report(e.into()),
    };
    let index = match Index::load(&store) {
        Ok(i) => i,
        Err(e) => return report(e.into()),
    };
    let rows: Vec<Row> = ids
        .iter()
        .map(|&id| match index.artifact(id) {
            None => Row {
                artifact: id.to_string(),
                outcome: "unseen",
                lesson: None,
                status: None,
                reason: None,
            },
            Some(ArtifactOutcome::Proposed { lesson }) => Row {
                artifact: id.to_string(),
                outcome: "proposed",
                lesson: Some(lesson.to_string()),
                status: index.lesson(lesson).map(|e| e.status.to_string()),
                reason: None,
            },
            Some(ArtifactOutcome::Declined { reason }) => Row {
                artifact: id.to_string(),
                outcome: "declined",
                lesson: None,
                status: None,
                reason: Some(
                    reason
                        .map(|r| r.to_string())
                        .unwrap_or_else(|| "unknown".into()),
                ),
            },
        })
        .collect();
    if args.json {
        out_json(&rows);
    } else {
        let mut s = String::new();
        for r in &rows {
            let detail = match (r.outcome, &r.lesson, &r.status, &r.reason) {
                ("proposed", Some(l), st, _) => {
                    format!(" {l} {}", st.as_deref().unwrap_or("unknown"))
                }
                ("declined", _, _, Some(reason)) => format!(" {reason}"),
                _ => String::new(),
            };
            s.push_str(&format!("{} {}{}\n", r.artifact, r.outcome, detail));
        }
        out(&s);
    }
    Outcome::Done
}
