use std::io::Read;
use std::path::PathBuf;

use clap::Args as ClapArgs;

use super::output::print_outcomes;
use super::ui::{self, CliError, Ctx, Exit};
use git_lore::model::canonical_json;
use git_lore::ops::backend::{Backend, Role};
use git_lore::ops::capture::{self, Asked, Moments, Origin};
use git_lore::ops::{ingest, progress};
use git_lore::pipeline::capture::{read_hook_input, Trigger};

/// Turn a coding agent's session transcript into artifacts, and ingest them.
///
/// Reads a Claude Code session transcript or a Codex CLI rollout (JSON
/// Lines, the format told by the lines; the newest 32 MiB of a larger
/// file; malformed lines skipped and counted on stderr), finds the
/// moments worth a lesson — a version mismatch and what resolved it — and
/// ingests them as archivist artifacts, exactly as `git lore ingest` would:
/// one line per artifact on stdout, the same exit codes. Artifact ids are
/// content-addressed from the session and the event each moment cites, so
/// capturing the same transcript again is `skipped ARTIFACT seen`, with no
/// model call.
///
/// The offline backend picks moments where a version, a package and a
/// resolution (pin, upgrade, downgrade, workaround, "fixed by") occur
/// together in the assistant's text or a tool result (docs/offline.md). The
/// command backend asks the program in `lore.capture.command` with
/// templates/capture.md and refuses any moment whose event is not in the
/// transcript. Secrets the disclosure scanner finds are replaced before
/// anything is kept or sent. An artifact another run is asking a model
/// about right now is `skipped ARTIFACT claimed` (exit 0: that run records
/// it). A model that gives no usable answer is an outage: nothing written,
/// exit 2.
///
/// Examples: `git lore capture --transcript
/// ~/.claude/projects/-home-me-app/5f1c0a2e.jsonl`, `git lore capture
/// --transcript ~/.codex/sessions/2026/09/02/rollout-2026-09-02T09-00-00-0199f3a2.jsonl`,
/// `git lore capture --transcript session.jsonl --dry-run --json`,
/// `echo "$SESSION_END_HOOK_JSON" | git lore capture --hook`.
#[derive(ClapArgs, Debug)]
#[command(after_long_help = git_lore::pipeline::capture::offline::RULES)]
pub struct Args {
    /// The transcript to capture (a Claude Code session's .jsonl file, or a
    /// Codex rollout).
    #[arg(long, value_name = "PATH", required_unless_present = "hook")]
    transcript: Option<PathBuf>,
    /// Read a SessionEnd hook's JSON on stdin (`session_id`,
    /// `transcript_path`, `cwd`) for the transcript and the project. A Stop
    /// hook's (Codex fires it after every turn) captures only what the
    /// session wrote since its last capture. Does nothing under
    /// GIT_LORE_HOOK_ACTIVE.
    #[arg(long, conflicts_with = "transcript")]
    hook: bool,
    /// offline (built in, deterministic) or command (lore.capture.command
    /// and lore.transform.command), for finding moments and for turning
    /// them into lessons [default: per role, command when its
    /// lore.<role>.command is set, else offline].
    #[arg(long, value_parser = ["offline", "command"])]
    backend: Option<String>,
    /// Print the artifacts as JSON Lines (what `git lore ingest` reads) and
    /// write nothing.
    #[arg(long)]
    dry_run: bool,
    /// Print the outcomes (with --dry-run: the artifacts) as a JSON array.
    #[arg(long)]
    json: bool,
}

/// Where the transcript is and who captures it.
struct Target {
    transcript: PathBuf,
    origin: Origin,
    /// The session, for a turn's end: capture what is new since its last
    /// capture (`ops::progress`).
    resume: Option<String>,
}

/// The transcript and provenance the arguments name; `None` when a hook
/// input says there is nothing to do.
fn target(args: &Args) -> ui::Result<Option<Target>> {
    if args.hook {
        let mut input = Vec::new();
        std::io::stdin()
            .take(git_lore::pipeline::capture::hook::MAX_HOOK_INPUT_BYTES as u64 + 1)
            .read_to_end(&mut input)
            .map_err(|e| CliError::Usage(format!("reading the hook input: {e}")))?;
        let hook = read_hook_input(&input[..]).map_err(|e| {
            CliError::Usage(format!(
                "{e} (`capture --hook` reads the JSON a SessionEnd or Stop hook gets on stdin)"
            ))
        })?;
        if !hook.captures() {
            ui::status(format!(
                "capture: a {} hook has no session to capture; nothing to do",
                ui::text(&hook.hook_event_name)
            ));
            return Ok(None);
        }
        let Some(transcript) = hook.transcript() else {
            ui::status(format!(
                "capture: the {} hook names no transcript (the session keeps none); nothing to do",
                ui::text(&hook.hook_event_name)
            ));
            return Ok(None);
        };
        return Ok(Some(Target {
            transcript: transcript.to_owned(),
            origin: Origin {
                project: PathBuf::from(&hook.cwd),
                trigger: Trigger::Hook,
                session_id: Some(hook.session_id.clone()),
            },
            resume: hook.is_turn_end().then(|| hook.session_id.clone()),
        }));
    }
    let transcript = args
        .transcript
        .clone()
        .ok_or_else(|| CliError::Usage("name a transcript: --transcript PATH, or --hook".into()))?;
    Ok(Some(Target {
        transcript,
        origin: Origin {
            // Filled in from the transcript's cwd once it is read.
            project: PathBuf::new(),
            trigger: Trigger::Manual,
            session_id: None,
        },
        resume: None,
    }))
}

pub fn run(args: Args, ctx: &Ctx) -> ui::Result {
    if args.hook && ctx.var(super::hook::QUIET).is_some() {
        return Ok(Exit::Done);
    }
    let Some(mut target) = target(&args)? else {
        return Ok(Exit::Done);
    };
    // A turn's end: from where the last capture of this session stopped
    // (which the lesson repository keeps; a dry run reads it all).
    let resume = target.resume.clone().filter(|_| !args.dry_run);
    let early = match resume {
        Some(_) => Some(ctx.open()?),
        None => None,
    };
    let from = match (&resume, &early) {
        (Some(session), Some(l)) => progress::captured_to(l, session, &target.transcript),
        _ => 0,
    };
    let t = capture::open_transcript_from(&target.transcript, from)?;
    // Recorded once what was read is dealt with: found nothing, or ingested.
    // Best effort: a record not written costs a re-read next turn, whose
    // artifacts are then `seen`.
    let done = |lore: &git_lore::ops::Lore, t: &git_lore::pipeline::capture::Transcript| {
        if let Some(session) = &resume {
            let _ = progress::record(lore, session, &target.transcript, t.end_offset);
        }
    };
    let shown = ui::text(&target.transcript.display().to_string());
    for note in t.notes() {
        ui::status(format!("capture: {shown}: {}", ui::text(&note.to_string())));
    }
    if target.origin.trigger == Trigger::Manual {
        // The project the session worked in, if it is on this machine; else
        // the one this command runs in.
        target.origin.project = t
            .cwd
            .as_deref()
            .map(PathBuf::from)
            .filter(|p| p.is_dir())
            .unwrap_or_else(|| PathBuf::from("."));
    }
    // A dry run needs no lesson repository unless a model is asked.
    let mut lore = match early {
        Some(l) => Some(l),
        None if args.dry_run && !ctx.repo.join("HEAD").exists() => None,
        None => Some(ctx.open()?),
    };
    let backend = match &lore {
        Some(l) => capture::backend(l, args.backend.as_deref())?,
        None if args.backend.as_deref() == Some("command") => {
            return Err(CliError::Usage(format!(
                "--backend command reads lore.capture.command from the lesson repository, and there is none at {}; run `git lore init` first",
                ctx.repo.display()
            )))
        }
        None => Backend::Offline,
    };
    // A model that gave no answer: nothing was written, and the next step
    // is the program or the backend setting.
    let asked = match capture::find(lore.as_mut(), &t, &backend, !args.dry_run) {
        Err(e @ git_lore::ops::LoreError::Outage(_)) => {
            ui::error(format!(
                "{}; nothing was captured (safe to run again): {}",
                git_lore::ops::with_causes(&e),
                ui::model_fix(ctx, Role::Capture)
            ));
            return Ok(Exit::Undetermined);
        }
        asked => asked?,
    };
    let (moments, refused, from) = match asked {
        Moments::Busy => {
            ui::status(format!(
                "capture: {shown}: another run is asking the model about this transcript; it records what it finds"
            ));
            return Ok(Exit::Done);
        }
        Moments::Found {
            moments,
            refused,
            from,
        } => (moments, refused, from),
    };
    for r in &refused {
        ui::status(format!("capture: refused {}", ui::text(&r.to_string())));
    }
    let built = capture::build(&t, &moments, &target.origin)?;
    for r in &built.refused {
        ui::status(format!("capture: refused {}", ui::text(&r.to_string())));
    }
    for c in built.artifacts.iter().filter(|c| !c.redacted.is_empty()) {
        let kinds: Vec<String> = c.redacted.iter().map(|k| k.to_string()).collect();
        ui::status(format!(
            "capture: artifact {} had secrets replaced: {}",
            c.artifact.id,
            kinds.join(", ")
        ));
    }
    if args.dry_run {
        if args.json {
            let all: Vec<&git_lore::model::Artifact> =
                built.artifacts.iter().map(|c| &c.artifact).collect();
            ui::out_json(&all);
        } else {
            let text: String = built
                .artifacts
                .iter()
                .map(|c| {
                    let v: serde_json::Value =
                        serde_json::from_slice(&canonical_json(&c.artifact)).expect("canonical");
                    format!("{v}\n")
                })
                .collect();
            ui::out(&text);
        }
        ui::status(format!(
            "capture: {} (dry run, nothing written)",
            found(built.artifacts.len(), from)
        ));
        return Ok(Exit::Done);
    }
    let mut lore = lore.expect("opened unless a dry run");
    ui::status(format!("capture: {}", found(built.artifacts.len(), from)));
    let items = capture::items(&built, &t);
    if items.is_empty() {
        if args.json {
            ui::out_json(&Vec::<()>::new());
        }
        done(&lore, &t);
        return Ok(Exit::Done);
    }
    let transform = Backend::from_config(&lore, Role::Transform, args.backend.as_deref())?;
    let exit = print_outcomes("capture", args.json, |told| {
        ingest::ingest(&mut lore, items, &transform, told)
    })?;
    if exit == Exit::Done {
        done(&lore, &t);
    }
    Ok(exit)
}

/// `1 artifact found by the offline backend`, and the like.
fn found(n: usize, from: Asked) -> String {
    let how = match from {
        Asked::Offline => "by the offline backend",
        Asked::Model => "by the model",
        Asked::Remembered => "by the model earlier (its answer was remembered)",
        Asked::Nothing => "(the transcript has no events)",
    };
    format!("{} found {how}", ui::count(n, "artifact", "artifacts"))
}
