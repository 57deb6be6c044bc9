//! Ingest (stage 5): artifacts become proposals or declines, each one signed
//! commit on the ledger; outages leave artifacts untouched.
//!
//! Order of operations per artifact, as upstream: seen (from history, via the
//! index) → pre-gate → model → parse → refusal → stitch provenance → validate
//! → write. Model calls happen outside any transaction; the write re-checks
//! idempotency against the tip it lands on, so concurrent ingests of the same
//! artifacts produce exactly one outcome each.

use rand::RngCore;

use super::{Lore, LoreError};
use crate::model::{
    canonical_json, iso, Artifact, Decline, DeclineReason, Id, Proposal, ProposalStatus,
};
use crate::pipeline::{self, transform};
use crate::process::{self, Invocation};
use crate::store::{layout, Branch, Change, CommitSpec, Index};
use crate::trailers::{Action, LoreTrailers};

/// At most this much of a model's answer is kept.
pub const MAX_ANSWER: usize = 1 << 20;
/// Artifacts written per transaction: the ref moves once per chunk, so a
/// crash loses at most one chunk's writes (never a half-written one).
pub const CHUNK: usize = 256;

pub use super::backend::Backend;

/// One input item: an artifact, or why its source could not be read as one.
#[derive(Clone, Debug)]
pub struct Item {
    pub source: String,
    pub artifact: Result<Artifact, String>,
}

/// Why an artifact was skipped without a model call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Skip {
    Seen,
    Pregate,
}

/// What happened to one input item.
#[derive(Clone, Debug, PartialEq)]
pub enum Outcome {
    Proposed { lesson: Id, artifact: Id },
    Declined { artifact: Id, reason: DeclineReason },
    Skipped { artifact: Id, why: Skip },
    Untouched { artifact: Id, why: String },
    Invalid { source: String, why: String },
}

impl Outcome {
    /// The line `git lore ingest` prints for it.
    pub fn line(&self) -> String {
        match self {
            Outcome::Proposed { lesson, artifact } => format!("proposed {lesson} {artifact}"),
            Outcome::Declined { artifact, reason } => format!("declined {artifact} {reason}"),
            Outcome::Skipped { artifact, why } => format!(
                "skipped {artifact} {}",
                match why {
                    Skip::Seen => "seen",
                    Skip::Pregate => "pregate",
                }
            ),
            Outcome::Untouched { artifact, why } => format!("untouched {artifact} {why}"),
            Outcome::Invalid { source, why } => format!("invalid {source} {why}"),
        }
    }
}

/// A determination waiting to be written.
enum Pending {
    Propose {
        lesson: Id,
        artifact: Box<Artifact>,
        candidate: Box<crate::model::Candidate>,
    },
    Decline {
        artifact: Box<Artifact>,
        reason: DeclineReason,
        detail: Option<String>,
    },
}

impl Pending {
    fn artifact_id(&self) -> Id {
        match self {
            Pending::Propose { artifact, .. } | Pending::Decline { artifact, .. } => artifact.id,
        }
    }
}

/// Replaces control characters and cuts a text to one short subject line.
fn subject_text(s: &str, max: usize) -> String {
    let one: String = s
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    let one = one.split_whitespace().collect::<Vec<_>>().join(" ");
    if one.chars().count() > max {
        format!("{}…", one.chars().take(max).collect::<String>())
    } else {
        one
    }
}

/// Asks the backend about one artifact. `Err` is an outage.
fn ask(
    backend: &Backend,
    template: &str,
    artifact: &Artifact,
    env: &[(String, String)],
) -> Result<transform::Outcome, String> {
    let decided = match backend {
        Backend::Offline => {
            transform::decide(pipeline::offline::transform(artifact).as_bytes(), artifact)
        }
        Backend::Command { argv, timeout, .. } => {
            let prompt = transform::render_prompt(template, artifact);
            let inv = Invocation {
                argv: argv.clone(),
                env: env.to_vec(),
                cwd: None,
                timeout: *timeout,
                max_output: MAX_ANSWER,
                new_session: false,
            };
            transform::decide_run(process::run(&inv, prompt.as_bytes()), artifact)
        }
    };
    decided.map_err(|e| e.to_string())
}

/// One slot per input item, filled as outcomes are determined.
type Slots = Vec<Option<Outcome>>;

/// The result of an ingest run.
#[derive(Debug)]
pub struct Report {
    /// One outcome per input item, in input order.
    pub outcomes: Vec<Outcome>,
    /// The error that stopped the run, if any. Items written before it keep
    /// their outcomes; the rest say they were not written.
    pub error: Option<LoreError>,
}

/// Runs stage 5 over `items`. `progress` is told about each outcome as it is
/// determined. Fails only for setup errors, before anything is written.
pub fn ingest(
    lore: &mut Lore,
    items: Vec<Item>,
    backend: &Backend,
    progress: &mut dyn FnMut(&Outcome),
) -> Result<Report, LoreError> {
    let template = lore
        .store
        .config_string("lore.transform.template")
        .map(|p| {
            std::fs::read_to_string(super::expand_path(
                &p,
                lore.env.home.as_deref(),
                lore.store.git_dir(),
            ))
        })
        .transpose()
        .map_err(|e| LoreError::BadInput(format!("cannot read lore.transform.template: {e}")))?
        .unwrap_or_else(|| transform::DEFAULT_TEMPLATE.to_owned());
    let index = Index::load(&lore.store)?;
    let total = items.len();
    let mut outcomes: Vec<Option<Outcome>> = vec![None; total];
    let mut first_of: std::collections::HashMap<Id, usize> = std::collections::HashMap::new();
    let mut repeats: Vec<(usize, usize)> = Vec::new();
    let mut pending: Vec<(usize, Pending)> = Vec::new();
    let mut error = None;
    let env = lore.env.child_env.clone();
    let mut decide = |i: usize, o: Outcome, outcomes: &mut Slots| {
        progress(&o);
        outcomes[i] = Some(o);
    };

    for (i, item) in items.into_iter().enumerate() {
        if error.is_some() {
            let why = "not attempted: the run stopped at an earlier error".to_owned();
            let o = match item.artifact {
                Ok(a) => Outcome::Untouched {
                    artifact: a.id,
                    why,
                },
                Err(_) => Outcome::Invalid {
                    source: item.source,
                    why,
                },
            };
            decide(i, o, &mut outcomes);
            continue;
        }
        let artifact = match item.artifact {
            Ok(a) => a,
            Err(why) => {
                decide(
                    i,
                    Outcome::Invalid {
                        source: item.source,
                        why,
                    },
                    &mut outcomes,
                );
                continue;
            }
        };
        let id = artifact.id;
        if let Some(&first) = first_of.get(&id) {
            // The same artifact twice in one input: it gets its first
            // copy's fate, decided once that copy is written.
            repeats.push((i, first));
            continue;
        }
        first_of.insert(id, i);
        if index.artifact(id).is_some() {
            decide(
                i,
                Outcome::Skipped {
                    artifact: id,
                    why: Skip::Seen,
                },
                &mut outcomes,
            );
            continue;
        }
        if !pipeline::pregate::passes(&artifact) {
            decide(
                i,
                Outcome::Skipped {
                    artifact: id,
                    why: Skip::Pregate,
                },
                &mut outcomes,
            );
            continue;
        }
        match ask(backend, &template, &artifact, &env) {
            Err(why) => decide(i, Outcome::Untouched { artifact: id, why }, &mut outcomes),
            Ok(transform::Outcome::Propose { candidate }) => {
                let lesson =
                    Id::from_parts(lore.env.now.as_millisecond() as u64, random80(lore.rng()));
                pending.push((
                    i,
                    Pending::Propose {
                        lesson,
                        artifact: Box::new(artifact),
                        candidate: Box::new(candidate),
                    },
                ));
            }
            Ok(transform::Outcome::Decline { reason, detail }) => pending.push((
                i,
                Pending::Decline {
                    artifact: Box::new(artifact),
                    reason,
                    detail,
                },
            )),
        }
        if pending.len() >= CHUNK {
            let batch = std::mem::take(&mut pending);
            if let Err(e) = write(lore, backend, &batch, &mut outcomes, &mut decide) {
                error = Some(e);
                // Back in `pending`, so the items it did not write say so.
                pending = batch;
            }
        }
    }
    if error.is_none() {
        if let Err(e) = write(lore, backend, &pending, &mut outcomes, &mut decide) {
            error = Some(e);
        }
    }
    // Whatever was determined but could not be written says so.
    if let Some(e) = &error {
        for (i, slot) in outcomes.iter_mut().enumerate() {
            if slot.is_none() {
                if let Some((_, p)) = pending.iter().find(|(j, _)| *j == i) {
                    *slot = Some(Outcome::Untouched {
                        artifact: p.artifact_id(),
                        why: format!("not written: {e}"),
                    });
                }
            }
        }
    }
    for (i, first) in repeats {
        let o = match &outcomes[first] {
            Some(Outcome::Skipped {
                why: Skip::Pregate,
                artifact,
            }) => Outcome::Skipped {
                artifact: *artifact,
                why: Skip::Pregate,
            },
            Some(Outcome::Untouched { artifact, why }) => Outcome::Untouched {
                artifact: *artifact,
                why: why.clone(),
            },
            Some(Outcome::Proposed { artifact, .. })
            | Some(Outcome::Declined { artifact, .. })
            | Some(Outcome::Skipped { artifact, .. }) => Outcome::Skipped {
                artifact: *artifact,
                why: Skip::Seen,
            },
            Some(Outcome::Invalid { .. }) | None => continue,
        };
        decide(i, o, &mut outcomes);
    }
    let outcomes = outcomes
        .into_iter()
        .enumerate()
        .map(|(i, o)| {
            o.unwrap_or_else(|| Outcome::Invalid {
                source: format!("item {i}"),
                why: "no outcome (this is a bug)".into(),
            })
        })
        .collect();
    Ok(Report { outcomes, error })
}

fn random80(rng: &mut dyn RngCore) -> u128 {
    let mut b = [0u8; 16];
    rng.fill_bytes(&mut b[6..]);
    u128::from_be_bytes(b)
}

/// Writes determinations, as few transactions as the ledger allows: a
/// transaction starts with the whole batch and halves what it carries each
/// time it loses the race, so short writers (hooks confirming a lesson)
/// cannot starve a large batch. Each transaction re-checks idempotency at
/// the tip it lands on.
fn write(
    lore: &mut Lore,
    backend: &Backend,
    pending: &[(usize, Pending)],
    outcomes: &mut Slots,
    decide: &mut dyn FnMut(usize, Outcome, &mut Slots),
) -> Result<(), LoreError> {
    let now = iso(lore.env.now);
    let model = backend.model_name().to_owned();
    let mut rest = pending;
    while !rest.is_empty() {
        let mut attempt = 0u32;
        let done = lore.transact(Branch::Ledger, |tx| {
            let take = (rest.len() >> attempt.min(31)).max(1);
            attempt += 1;
            let mut results = Vec::with_capacity(take);
            for (i, p) in &rest[..take] {
                results.push((*i, write_one(tx, p, &now, &model)?));
            }
            Ok(results)
        })?;
        let n = done.value.len();
        for (i, o) in done.value {
            decide(i, o, outcomes);
        }
        rest = &rest[n..];
    }
    Ok(())
}

/// Commits one determination, unless history already has the artifact.
fn write_one(
    tx: &mut crate::store::Tx<'_>,
    p: &Pending,
    now: &str,
    model: &str,
) -> Result<Outcome, LoreError> {
    let aid = p.artifact_id();
    if tx.artifact(aid).is_some() {
        // Another writer determined it while we asked the model.
        return Ok(Outcome::Skipped {
            artifact: aid,
            why: Skip::Seen,
        });
    }
    match p {
        Pending::Propose {
            lesson,
            artifact,
            candidate,
        } => {
            let proposal = Proposal {
                id: *lesson,
                artifact_id: aid,
                created_at: now.to_owned(),
                status: ProposalStatus::Pending,
                candidate: (**candidate).clone(),
                artifact: Some((**artifact).clone()),
                model: Some(model.to_owned()),
                visibility: None,
                confirmed_at: None,
                candidate_before_confirm: None,
                passed_at: None,
                pass_reason: None,
                judged_at: None,
                verdict: None,
                promoted_at: None,
            };
            let mut t = LoreTrailers::new(Action::Propose);
            t.lesson = Some(*lesson);
            t.artifact = Some(aid);
            t.status = Some("pending".into());
            t.model = Some(model.to_owned());
            tx.commit(CommitSpec::new(
                &format!("propose {lesson}: {}", subject_text(&candidate.claim, 72)),
                None,
                t,
                vec![Change::Put {
                    path: layout::proposal_path(*lesson),
                    bytes: canonical_json(&proposal),
                }],
            )?)?;
            Ok(Outcome::Proposed {
                lesson: *lesson,
                artifact: aid,
            })
        }
        Pending::Decline {
            artifact,
            reason,
            detail,
        } => {
            let record = Decline {
                artifact_id: aid,
                reason: *reason,
                detail: detail.clone(),
                declined_at: now.to_owned(),
                artifact: Some((**artifact).clone()),
                model: Some(model.to_owned()),
            };
            let mut t = LoreTrailers::new(Action::Decline);
            t.artifact = Some(aid);
            t.reason = Some(reason.to_string());
            t.model = Some(model.to_owned());
            tx.commit(CommitSpec::new(
                &format!("decline {aid}: {reason}"),
                None,
                t,
                vec![Change::Put {
                    path: layout::decline_path(aid),
                    bytes: canonical_json(&record),
                }],
            )?)?;
            Ok(Outcome::Declined {
                artifact: aid,
                reason: *reason,
            })
        }
    }
}

/// The most a single input (file or stdin) may hold.
pub const MAX_INPUT: usize = pipeline::input::MAX_INPUT_BYTES;

/// The items in one input's bytes (a JSON object, an array, or JSON Lines).
pub fn items_from_bytes(source: &str, bytes: &[u8]) -> Vec<Item> {
    pipeline::read_artifacts(source, bytes)
        .into_iter()
        .map(|i| Item {
            source: i.source,
            artifact: i.artifact.map_err(|e| e.to_string()),
        })
        .collect()
}

/// Reads at most [`MAX_INPUT`] bytes of a file, refusing a longer one. The
/// size is measured by reading, not from metadata, so a device or a FIFO
/// cannot make it read forever.
pub fn read_bounded(path: &std::path::Path) -> Result<Vec<u8>, String> {
    use std::io::Read;
    let file = std::fs::File::open(path).map_err(|e| format!("cannot read: {e}"))?;
    let mut bytes = Vec::new();
    file.take(MAX_INPUT as u64 + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| format!("cannot read: {e}"))?;
    if bytes.len() > MAX_INPUT {
        return Err(format!(
            "larger than {MAX_INPUT} bytes; inputs are limited to that"
        ));
    }
    Ok(bytes)
}

/// The items in a file, or in every `*.json` / `*.jsonl` file below a
/// directory (in path order). Unreadable paths become `invalid` items.
pub fn items_from_path(path: &std::path::Path) -> Vec<Item> {
    let mut files = Vec::new();
    let mut errors = Vec::new();
    collect_files(path, &mut files, &mut errors);
    let mut items: Vec<Item> = errors;
    for f in files {
        let source = f.display().to_string();
        match read_bounded(&f) {
            Ok(bytes) => items.extend(items_from_bytes(&source, &bytes)),
            Err(why) => items.push(Item {
                source,
                artifact: Err(why),
            }),
        }
    }
    items
}

fn collect_files(
    path: &std::path::Path,
    files: &mut Vec<std::path::PathBuf>,
    errors: &mut Vec<Item>,
) {
    match std::fs::metadata(path) {
        Err(e) => errors.push(Item {
            source: path.display().to_string(),
            artifact: Err(format!("cannot read: {e}")),
        }),
        Ok(m) if m.is_dir() => {
            let mut entries: Vec<std::path::PathBuf> = match std::fs::read_dir(path) {
                Ok(rd) => rd.filter_map(|e| e.ok().map(|e| e.path())).collect(),
                Err(e) => {
                    errors.push(Item {
                        source: path.display().to_string(),
                        artifact: Err(format!("cannot read directory: {e}")),
                    });
                    return;
                }
            };
            entries.sort();
            for e in entries {
                let is_dir = std::fs::symlink_metadata(&e)
                    .map(|m| m.is_dir())
                    .unwrap_or(false);
                let is_json = e.extension().is_some_and(|x| x == "json" || x == "jsonl");
                if is_dir || is_json {
                    collect_files(&e, files, errors);
                }
            }
        }
        Ok(_) => files.push(path.to_owned()),
    }
}

/// The artifacts of a project's default branch (see [`crate::store::mine`]),
/// as the upstream commit miner makes them.
pub fn items_from_commits(
    lore: &Lore,
    dir: &std::path::Path,
    since: Option<&str>,
) -> Result<Vec<Item>, LoreError> {
    // Paths are only worth a tree diff for commits with an artifact that
    // history has not seen (the id depends on time and message alone).
    let index = Index::load(&lore.store)?;
    let mut wants_paths = |time_ms: i64, message: &str| {
        let probe = pipeline::MinedCommit {
            sha: String::new(),
            time_ms,
            message: message.to_owned(),
            changed_paths: Vec::new(),
            project_key: "000000000000".into(),
        };
        match pipeline::artifacts_from_commit(&probe) {
            Ok(list) => list.iter().any(|a| index.artifact(a.id).is_none()),
            Err(_) => true,
        }
    };
    let mined = crate::store::mine::mine(dir, since, &mut wants_paths)?;
    let key = crate::model::project_key(mined.origin_url.as_deref(), &mined.root);
    let mut items = Vec::new();
    for c in mined.commits {
        let source = format!("commit {}", c.sha);
        let mc = pipeline::MinedCommit {
            sha: c.sha,
            time_ms: c.time_ms,
            message: c.message,
            changed_paths: c.changed_paths,
            project_key: key.clone(),
        };
        match pipeline::artifacts_from_commit(&mc) {
            Ok(list) => items.extend(list.into_iter().map(|a| Item {
                source: source.clone(),
                artifact: Ok(a),
            })),
            Err(e) => items.push(Item {
                source,
                artifact: Err(e.to_string()),
            }),
        }
    }
    Ok(items)
}
