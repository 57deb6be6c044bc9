use clap::Args as ClapArgs;

use super::ui::{self, Ctx, Exit};
use git_lore::model::{unique_prefix_len, Scope, Visibility};
use git_lore::ops::query;
use git_lore::scanner::scan_lesson;
use git_lore::store::ArtifactOutcome;

/// Show one lesson: id, status, visibility, artifact, claim, rationale,
/// resolution, stack and scope; once judged, every judge's scores and, for
/// a public lesson, what the disclosure scanner found; once promoted, its
/// relations (superseded by, refines, refined by, counter-observations,
/// whether the jury upheld it).
///
/// Examples: `git lore show 01kz8nv6803`, `git lore show 01kz8nv6803 --json`.
#[derive(ClapArgs, Debug)]
#[command(about = "Show one lesson: what it says, its scope, its verdict and its relations")]
pub struct Args {
    /// The lesson id, or a unique prefix of it (4 or more characters, any case).
    #[arg(value_name = "ID")]
    id: String,
    /// Print the whole proposal record as JSON.
    #[arg(long)]
    json: bool,
}

pub fn run(args: Args, ctx: &Ctx) -> ui::Result {
    let typed = ui::parse_id(&args.id)?;
    let lore = ctx.open()?;
    // Loaded once: the id, what it names and its shortest prefix are all
    // answered from it.
    let index = query::index(&lore)?;
    let id = query::resolve_in(&index, &typed)?;
    let trusted = ui::check_trust(&lore)?;
    if let query::Named::Artifact(a) = query::named_in(&index, id) {
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
    let short = &id.to_string()[..unique_prefix_len(id, &index.ids())];
    let c = &p.candidate;
    let mut s = String::new();
    s.push_str(&format!("id:          {} (short: {short})\n", p.id));
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
    s.push_str(&format!("scope:       {}\n", scope(&c.applies_to.scope)));
    if let Some(v) = &p.verdict {
        s.push_str(&format!(
            "verdict:     {} ({}){}{}\n",
            if v.passed { "approved" } else { "rejected" },
            ui::text(&v.reason),
            v.failed_criterion
                .as_ref()
                .map(|c| format!(", failed criterion: {}", ui::text(c)))
                .unwrap_or_default(),
            v.aggregate_score
                .map(|a| format!(", score {a}"))
                .unwrap_or_default()
        ));
        for j in &v.judges {
            let (line, feedback) = judge_line(j);
            s.push_str(&format!("judge:       {line}\n"));
            if let Some(f) = feedback {
                s.push_str(&format!("             {f}\n"));
            }
        }
    }
    if p.visibility == Some(Visibility::Public) {
        let found = scan_lesson(c);
        if found.is_empty() {
            s.push_str("disclosure:  nothing found\n");
        }
        for f in found {
            s.push_str(&format!("disclosure:  {}\n", ui::text(&f.to_string())));
        }
    }
    if let Some(r) = git_lore::ops::relate::relations(&lore, id)? {
        s.push_str(&relation_lines(id, &r));
    }
    ui::out(&s);
    Ok(Exit::Done)
}

/// A scope as people write it: `vite <6, vitest >=4`, or why it holds for
/// every version.
fn scope(scope: &Scope) -> String {
    match scope {
        Scope::Versioned { versions } => ui::text(
            &versions
                .iter()
                .map(|(name, range)| format!("{name} {range}"))
                .collect::<Vec<_>>()
                .join(", "),
        ),
        Scope::VersionIndependent { justification } => {
            format!("every version ({})", ui::text(justification))
        }
    }
}

/// One judge of a recorded verdict: its type, pass or fail, score and each
/// criterion's score (a failed floor is the verdict's `failed_criterion`),
/// then its feedback. A judge is kept as the model gave it, so every field
/// is optional here.
fn judge_line(j: &serde_json::Value) -> (String, Option<String>) {
    let field = |k: &str| j.get(k).and_then(|v| v.as_str()).map(ui::text);
    let mut line = field("judge_type").unwrap_or_else(|| "judge".into());
    match j.get("passed").and_then(|v| v.as_bool()) {
        Some(true) => line.push_str(", passed"),
        Some(false) => line.push_str(", failed"),
        None => {}
    }
    if let Some(score) = j.get("score").and_then(|v| v.as_f64()) {
        line.push_str(&format!(", score {score}"));
    }
    if let Some(scores) = j.get("criterion_scores").and_then(|v| v.as_object()) {
        let parts: Vec<String> = scores
            .iter()
            .map(|(k, v)| format!("{} {}", ui::text(k), v))
            .collect();
        line.push_str(&format!(": {}", parts.join(", ")));
    }
    (line, field("feedback_summary"))
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
    // The ledger's status stops at approved; what happened to the pool
    // entry since is said here.
    if let Some(status) = r
        .status
        .filter(|s| *s != git_lore::model::LessonStatus::Active)
    {
        s.push_str(&format!("pool entry:  {status}\n"));
    }
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
    if let Some(n) = r.upheld_at {
        s.push_str(&format!(
            "upheld:      by the jury at {}\n",
            ui::count(n, "counter-observation", "counter-observations")
        ));
    }
    if r.related {
        s.push_str("related:     yes\n");
    } else if r.status == Some(git_lore::model::LessonStatus::Active) {
        s.push_str(&format!("related:     not yet (`git lore relate {id}`)\n"));
    }
    s
}
