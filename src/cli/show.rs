use clap::Args as ClapArgs;

use super::ui::{self, Ctx, Exit};
use git_lore::model::{unique_prefix_len, Id, Lesson, Scope, Visibility};
use git_lore::ops::audit::{self, Origin};
use git_lore::ops::query;
use git_lore::scanner::scan_lesson;
use git_lore::store::ArtifactOutcome;

/// Show one lesson: id, status, visibility, artifact, claim, rationale,
/// resolution, stack and scope; once judged, every judge's scores and, for
/// a public lesson, what the disclosure scanner found; once promoted, its
/// relations (superseded by, refines, refined by, counter-observations,
/// whether the jury upheld it).
///
/// A teammate's lesson, synced into a pool, is shown from its pool entry,
/// with where it came from: the pool and its remote, who signed the commit
/// that added it (and whether that signature is good), and when a sync
/// took it in. `--json` then prints `{"entry": …, "origin": …}`.
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
                reason
                    .map(|r| {
                        let code = r.to_string();
                        git_lore::review::reason_text(&code).to_owned()
                    })
                    .unwrap_or_else(|| "for a reason not recorded".into())
            ),
        }));
    }
    if let query::Named::Entry { .. } = query::named_in(&index, id) {
        return show_entry(&lore, &index, id, args.json, trusted.flagged.contains(&id));
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
    let mut s = String::new();
    s.push_str(&id_line(id, &index));
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
            "verdict:     {}: {}{}{}\n",
            if v.passed { "approved" } else { "rejected" },
            ui::text(git_lore::review::reason_text(&v.reason)),
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
        s.push_str(&relation_lines(id, &r, true));
    }
    ui::out(&s);
    Ok(Exit::Done)
}

/// What `show --json` prints for a pool entry with no ledger record here.
#[derive(serde::Serialize)]
struct EntryJson<'a> {
    entry: &'a Lesson,
    origin: Option<OriginJson>,
}

#[derive(serde::Serialize)]
struct OriginJson {
    pool: String,
    remote: Option<String>,
    commit: String,
    committed_at: String,
    /// `good`, `bad`, `unknown signer`, `unsigned` or `unverifiable`.
    signature: String,
    /// The principal (a good signature) or the key's fingerprint.
    signer: Option<String>,
    synced_at: Option<String>,
}

fn date(seconds: i64) -> String {
    jiff::Timestamp::from_second(seconds)
        .map(git_lore::model::iso)
        .unwrap_or_default()
}

/// A pool entry this repository has no ledger record of (a teammate's,
/// synced): the entry as its pool holds it, and where it came from.
fn show_entry(
    lore: &git_lore::ops::Lore,
    index: &git_lore::store::Index,
    id: Id,
    json: bool,
    flagged: bool,
) -> ui::Result {
    let Some((pool, l)) = query::entry(lore, index, id)? else {
        return Err(git_lore::ops::LoreError::NotFound { id }.into());
    };
    let origin = audit::origin(lore, pool, id)?;
    if flagged {
        ui::status(format!(
            "warning: lesson {id} was changed by a commit that does not verify; what follows is not to be trusted — see `git lore verify`"
        ));
    }
    if json {
        let origin = origin.as_ref().map(|o| {
            let (signature, signer) = super::log::signature(&o.signature);
            OriginJson {
                pool: format!("pool/{}", o.pool),
                remote: o.remote.clone(),
                commit: o.commit.to_string(),
                committed_at: date(o.time),
                signature: signature.to_owned(),
                signer,
                synced_at: o.synced_at.map(date),
            }
        });
        ui::out_json(&EntryJson { entry: &l, origin });
        return Ok(Exit::Done);
    }
    let mut s = String::new();
    s.push_str(&id_line(id, index));
    s.push_str(&format!("status:      {}\n", l.status));
    s.push_str(&origin_lines(pool, origin.as_ref()));
    s.push_str(&format!("visibility:  {}\n", l.visibility));
    s.push_str(&format!(
        "artifact:    {}\n",
        l.evidence
            .artifact_ids
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
            .join(", ")
    ));
    s.push_str(&format!("claim:       {}\n", ui::text(&l.claim)));
    s.push_str(&format!("rationale:   {}\n", ui::text(&l.rationale)));
    s.push_str(&format!(
        "resolution:  {}\n",
        ui::text(&l.evidence.resolution)
    ));
    s.push_str(&format!(
        "stack:       {}\n",
        ui::text(&l.applies_to.stack.join(", "))
    ));
    s.push_str(&format!("scope:       {}\n", scope(&l.applies_to.scope)));
    s.push_str(&format!(
        "jury:        {} of {} agreed, {}\n",
        l.consensus.agreed,
        ui::count(l.consensus.judges as usize, "judge", "judges"),
        ui::text(&l.consensus.decided_at)
    ));
    s.push_str(&format!("promoted:    {}\n", ui::text(&l.promoted_at)));
    if let Some(r) = git_lore::ops::relate::relations(lore, id)? {
        // The entry's status is its `status:` line already.
        s.push_str(&relation_lines(id, &r, false));
    }
    ui::out(&s);
    Ok(Exit::Done)
}

/// Where a pool entry came from, as `show` says it: its pool and remote,
/// who signed the commit that added it, and when a sync took it in.
fn origin_lines(pool: git_lore::model::Source, o: Option<&Origin>) -> String {
    let mut s = String::new();
    let Some(o) = o else {
        s.push_str(&format!(
            "pool:        pool/{pool} (no commit of it adds this lesson; `git lore verify`)\n"
        ));
        return s;
    };
    match &o.remote {
        Some(url) => s.push_str(&format!(
            "pool:        pool/{pool}, shared with remote {pool} ({})\n",
            ui::text(url)
        )),
        None if pool == git_lore::model::Source::Local => {
            s.push_str("pool:        pool/local (this machine only)\n")
        }
        None => s.push_str(&format!(
            "pool:        pool/{pool} (no remote configured)\n"
        )),
    }
    let (word, who) = super::log::signature(&o.signature);
    let signer = match (word, who) {
        ("good", Some(p)) => format!("{} (good signature)", ui::text(&p)),
        (w, Some(fp)) => format!("{} ({w})", ui::text(&fp)),
        (w, None) => format!("nobody known ({w})"),
    };
    s.push_str(&format!(
        "signed by:   {signer}, commit {} of {}\n",
        &o.commit.to_string()[..12],
        date(o.time)
    ));
    match o.synced_at {
        Some(t) => s.push_str(&format!("synced:      {}\n", date(t))),
        None => s.push_str(
            "synced:      not recorded (made here, or the reflog that said it expired)\n",
        ),
    }
    s
}

/// `id:  <the whole id> (short: <its shortest unique prefix>)`; on a
/// terminal the prefix in the whole id is bold ([`ui::id_shown`]).
fn id_line(id: Id, index: &git_lore::store::Index) -> String {
    let n = unique_prefix_len(id, &index.ids());
    let bold = ui::emphasis();
    let whole = if bold {
        ui::id_shown(id, n, 26, true)
    } else {
        id.to_string()
    };
    format!("id:          {whole} (short: {})\n", &id.to_string()[..n])
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
/// With `say_status`, the pool entry's status too when it is no longer
/// active (a ledger lesson's own status stops at approved).
fn relation_lines(
    id: git_lore::model::Id,
    r: &git_lore::ops::relate::Relations,
    say_status: bool,
) -> String {
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
        .filter(|s| say_status && *s != git_lore::model::LessonStatus::Active)
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
