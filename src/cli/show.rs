use clap::Args as ClapArgs;

use super::ui::{self, Ctx, Exit};
use git_lore::ops::query;
use git_lore::store::ArtifactOutcome;

/// Show one lesson: id, status, visibility, artifact, claim, rationale,
/// resolution, stack and scope; for a promoted lesson also its relations
/// (superseded by, refines, refined by, counter-observations, related).
#[derive(ClapArgs, Debug)]
pub struct Args {
    /// The lesson id (ULID).
    #[arg(value_name = "ID")]
    id: String,
    /// Print the whole proposal record as JSON.
    #[arg(long)]
    json: bool,
}

pub fn run(args: Args, ctx: &Ctx) -> ui::Result {
    let id = ui::parse_id(&args.id)?;
    let lore = ctx.open()?;
    let trusted = ui::check_trust(&lore)?;
    if let query::Named::Artifact(a) = query::named(&lore, id)? {
        return Err(ui::CliError::Usage(match a {
            ArtifactOutcome::Proposed { lesson } => format!(
                "{id} is an artifact, not a lesson; it became lesson {lesson}: `git lore show {lesson}`"
            ),
            ArtifactOutcome::Declined { reason } => format!(
                "{id} is an artifact, not a lesson; it was declined ({}): `git lore seen {id}`",
                reason.map(|r| r.to_string()).unwrap_or_else(|| "unknown".into())
            ),
        }));
    }
    let p = query::proposal(&lore, id)?;
    if trusted.flagged.contains(&id) {
        ui::status(format!(
            "warning: lesson {id} was changed by a commit that does not verify; what follows is not to be trusted — see `git lore verify`"
        ));
    }
    if args.json {
        ui::out_json(&p);
        return Ok(Exit::Done);
    }
    let c = &p.candidate;
    let scope = serde_json::to_string(&c.applies_to.scope).unwrap_or_default();
    let mut s = String::new();
    s.push_str(&format!("id:          {}\n", p.id));
    s.push_str(&format!("status:      {}\n", p.status));
    s.push_str(&format!(
        "visibility:  {}\n",
        p.visibility
            .map(|v| v.to_string())
            .unwrap_or_else(|| "—".into())
    ));
    s.push_str(&format!("artifact:    {}\n", p.artifact_id));
    s.push_str(&format!("claim:       {}\n", ui::text(&c.claim)));
    s.push_str(&format!("rationale:   {}\n", ui::text(&c.rationale)));
    s.push_str(&format!(
        "resolution:  {}\n",
        ui::text(&c.evidence.resolution)
    ));
    s.push_str(&format!(
        "stack:       {}\n",
        ui::text(&c.applies_to.stack.join(", "))
    ));
    s.push_str(&format!("scope:       {}\n", ui::text(&scope)));
    if let Some(v) = &p.verdict {
        s.push_str(&format!(
            "verdict:     {} ({}){}{}\n",
            if v.passed { "approved" } else { "rejected" },
            ui::text(&v.reason),
            v.failed_criterion
                .as_ref()
                .map(|c| format!(", failed criterion: {c}"))
                .unwrap_or_default(),
            v.aggregate_score
                .map(|a| format!(", score {a}"))
                .unwrap_or_default()
        ));
    }
    if let Some(r) = git_lore::ops::relate::relations(&lore, id)? {
        s.push_str(&relation_lines(id, &r));
    }
    ui::out(&s);
    Ok(Exit::Done)
}

/// What the lesson's pool records of its relations (relation judgment).
fn relation_lines(id: git_lore::model::Id, r: &git_lore::ops::relate::Relations) -> String {
    let ids = |v: &[git_lore::model::Id]| {
        v.iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
            .join(", ")
    };
    let mut s = String::new();
    if let Some(by) = r.superseded_by {
        s.push_str(&format!("superseded by: {by}\n"));
    }
    if !r.refines.is_empty() {
        s.push_str(&format!("refines:     {}\n", ids(&r.refines)));
    }
    if !r.refined_by.is_empty() {
        s.push_str(&format!("refined by:  {}\n", ids(&r.refined_by)));
    }
    if r.counter_observations > 0 {
        s.push_str(&format!(
            "contradicted: {} (`git lore contradictions`)\n",
            ui::count(
                r.counter_observations,
                "counter-observation",
                "counter-observations"
            )
        ));
    }
    if r.related {
        s.push_str("related:     yes\n");
    } else if r.status == Some(git_lore::model::LessonStatus::Active) {
        s.push_str(&format!("related:     not yet (`git lore relate {id}`)\n"));
    }
    s
}
