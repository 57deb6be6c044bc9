//! Capture: a coding agent's session transcript becomes archivist artifacts
//! ([`crate::pipeline::capture`]), which the caller hands to
//! [`super::ingest::ingest`] like any other artifacts — so seen,
//! idempotency, outages and exit codes are ingest's.
//!
//! This module owns the I/O around the pure core: opening the transcript
//! (bounded: the newest [`MAX_TRANSCRIPT_BYTES`] of it), asking the capture
//! model ([`Role::Capture`]) once per transcript excerpt, and the project
//! key. The model's answer is remembered under
//! `<gitdir>/lore/capture/<fingerprint>.answer`, keyed by the sha256 of the
//! excerpt it was asked about: capturing the same transcript again replays
//! it, and the content-addressed ids make every artifact `skipped … seen`
//! with no model call at all (answers are kept for [`REMEMBER_FOR`]). While
//! one run asks, the excerpt is claimed
//! ([`super::claim`]): an overlapping run of the same transcript is
//! [`Moments::Busy`] and asks nothing.
//!
//! It never prints and reads no environment, clock or randomness beyond
//! what [`Lore`] carries.
//!
//! [`MAX_TRANSCRIPT_BYTES`]: crate::pipeline::capture::transcript::MAX_TRANSCRIPT_BYTES

use std::path::{Path, PathBuf};

use super::backend::{Backend, Outage, Role};
use super::claim::{Claims, Take};
use super::{Lore, LoreError};
use crate::pipeline::capture::transcript::NEITHER;
use crate::pipeline::capture::{
    self, offline, parse_answer, prompt, read_transcript_from, render_prompt, Built, Limits,
    Moment, Provenance, Refused, Transcript, Trigger,
};
use crate::pipeline::Item;

/// Where a run's moments came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Asked {
    /// The offline backend: deterministic, no model.
    Offline,
    /// The capture model, asked now.
    Model,
    /// The capture model's answer about this same excerpt, remembered from
    /// an earlier run: no model call.
    Remembered,
    /// Nothing to ask about: the transcript has no events.
    Nothing,
}

/// What a backend found in a transcript.
#[derive(Debug)]
pub enum Moments {
    Found {
        moments: Vec<Moment>,
        /// Moments of the model's answer refused one by one (an event not in
        /// the transcript, a field too long).
        refused: Vec<Refused>,
        from: Asked,
    },
    /// Another run is asking the model about this excerpt right now.
    Busy,
}

/// Opens and reads the transcript at `path`, bounded (the newest part of
/// an over-cap file; malformed lines skipped and counted in its notes).
/// The format (Claude Code or Codex) is told by its lines.
///
/// Only a regular file is read: a FIFO, socket, device or directory is
/// refused before it is read (it is opened without blocking, and checked
/// again once open, so a FIFO swapped in meanwhile cannot hang capture).
/// A non-empty file in which no line is a session event and some line is
/// not even JSON, or no line is of either format, is refused too: it is
/// not a transcript. An empty file, or one of well-formed lines of a
/// format that are not events, is read as having no events.
pub fn open_transcript(path: &Path) -> Result<Transcript, LoreError> {
    open_transcript_from(path, 0)
}

/// [`open_transcript`] from byte `from` on (where an earlier capture of the
/// same session stopped: [`Transcript::end_offset`]).
pub fn open_transcript_from(path: &Path, from: u64) -> Result<Transcript, LoreError> {
    let cannot_open = |source| LoreError::File {
        what: "cannot open the transcript",
        path: path.to_owned(),
        source,
    };
    let refuse = |why: &str| LoreError::Input {
        what: format!("transcript {}", path.display()),
        why: why.to_owned(),
    };
    let not_regular = "it is not a regular file (a FIFO, socket, device or directory); capture reads a transcript file";
    if !std::fs::metadata(path).map_err(cannot_open)?.is_file() {
        return Err(refuse(not_regular));
    }
    let mut options = std::fs::File::options();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(rustix::fs::OFlags::NONBLOCK.bits() as i32);
    }
    let file = options.open(path).map_err(cannot_open)?;
    if !file.metadata().map_err(cannot_open)?.is_file() {
        return Err(refuse(not_regular));
    }
    let t = read_transcript_from(file, from, Limits::default())
        .map_err(|e| LoreError::invalid(format!("transcript {}", path.display()), e))?;
    let bad_lines = t.skipped_malformed + t.skipped_not_utf8 > usize::from(t.partial_last_line);
    if t.events.is_empty() && t.format.is_none() && (bad_lines || t.ignored > 0) {
        return Err(refuse(&format!(
            "{NEITHER}; capture reads those two formats"
        )));
    }
    if t.events.is_empty() && bad_lines {
        return Err(refuse(
            "no session events found, and lines that are not JSON: is this a transcript or a rollout an agent wrote?",
        ));
    }
    Ok(t)
}

/// The capture prompt in force: `lore.capture.template`, else the one
/// shipped with git-lore.
fn template(lore: &Lore) -> Result<String, LoreError> {
    let Some(p) = lore.store.config_string("lore.capture.template") else {
        return Ok(prompt::DEFAULT_TEMPLATE.to_owned());
    };
    let path = super::expand_path(&p, lore.env.home.as_deref(), lore.store.git_dir());
    std::fs::read_to_string(&path).map_err(|source| LoreError::File {
        what: "cannot read lore.capture.template",
        path,
        source,
    })
}

/// The moments `backend` finds in `t`. With a model program, `lore` is
/// needed; `remember` says whether the answer may be written down (and the
/// excerpt claimed) — not for a dry run. Anything the model says that is
/// not an answer is an [`Outage`]: nothing is remembered.
pub fn find(
    lore: Option<&mut Lore>,
    t: &Transcript,
    backend: &Backend,
    remember: bool,
) -> Result<Moments, LoreError> {
    let Backend::Command { timeout, .. } = backend else {
        return Ok(Moments::Found {
            moments: offline::moments(t),
            refused: Vec::new(),
            from: Asked::Offline,
        });
    };
    let lore = lore.ok_or(LoreError::Outage(Outage::NoProgram))?;
    let ex = prompt::excerpt(t, prompt::MAX_EXCERPT_CHARS);
    if ex.events == 0 {
        return Ok(Moments::Found {
            moments: Vec::new(),
            refused: Vec::new(),
            from: Asked::Nothing,
        });
    }
    let dir = lore.store.lore_dir().join("capture");
    let saved = dir.join(format!("{}.answer", ex.fingerprint));
    if let Some(m) = replay(&saved, t) {
        return Ok(m);
    }
    let mut claims = None;
    if remember {
        use rand::RngCore;
        let token = format!("{}-{:016x}", std::process::id(), lore.rng().next_u64());
        let ttl = *timeout * 2 + std::time::Duration::from_secs(60);
        // Claims only save model calls: without them (a read-only git
        // dir), ask anyway.
        if let Ok(mut c) = Claims::open(&lore.store.lore_dir().join("claims"), &token, ttl) {
            let key = format!("capture-{}", ex.fingerprint);
            if c.take(&key).ok() == Some(Take::HeldElsewhere) {
                return Ok(Moments::Busy);
            }
            // A run that finished while this one was getting here.
            if let Some(m) = replay(&saved, t) {
                return Ok(m);
            }
            claims = Some(c);
        }
    }
    let text = render_prompt(&template(lore)?, t, &ex);
    let answer = backend.ask(&text, &[])?;
    let raw = answer.raw().as_bytes();
    let parsed = parse_answer(raw, t).map_err(Outage::Unusable)?;
    if remember {
        // Best effort: an answer not written down costs one more model call
        // on the next run of this transcript, nothing else.
        let _ = save(&dir, &saved, raw);
    }
    drop(claims);
    Ok(Moments::Found {
        moments: parsed.moments,
        refused: parsed.refused,
        from: Asked::Model,
    })
}

/// The remembered answer at `path`, read again against `t`.
fn replay(path: &Path, t: &Transcript) -> Option<Moments> {
    use std::io::Read;
    let mut raw = Vec::new();
    std::fs::File::open(path)
        .ok()?
        .take(prompt::MAX_ANSWER_BYTES as u64 + 1)
        .read_to_end(&mut raw)
        .ok()?;
    let parsed = parse_answer(&raw, t).ok()?;
    Some(Moments::Found {
        moments: parsed.moments,
        refused: parsed.refused,
        from: Asked::Remembered,
    })
}

/// Remembered answers older than this are dropped when a new one is
/// written: a transcript not captured again for that long is done.
pub const REMEMBER_FOR: std::time::Duration = std::time::Duration::from_secs(30 * 24 * 3600);

/// Writes `raw` to `path` atomically (a temporary file renamed into place),
/// then drops answers older than [`REMEMBER_FOR`] — measured against the
/// new file's time, on the file system's clock.
fn save(dir: &Path, path: &Path, raw: &[u8]) -> std::io::Result<()> {
    use std::io::Write;
    std::fs::create_dir_all(dir)?;
    let mut tmp = tempfile::NamedTempFile::new_in(dir)?;
    tmp.write_all(raw)?;
    let file = tmp.persist(path).map_err(|e| e.error)?;
    let now = file.metadata()?.modified()?;
    for entry in std::fs::read_dir(dir)?.flatten() {
        let old = entry
            .metadata()
            .and_then(|m| m.modified())
            .ok()
            .and_then(|t| now.duration_since(t).ok())
            .is_some_and(|age| age > REMEMBER_FOR);
        if old && entry.file_name().to_string_lossy().ends_with(".answer") {
            let _ = std::fs::remove_file(entry.path());
        }
    }
    Ok(())
}

/// Who captured, for the artifacts' provenance.
#[derive(Clone, Debug)]
pub struct Origin {
    /// The project the session worked in (its key names the artifacts).
    pub project: PathBuf,
    pub trigger: Trigger,
    /// The hook's session id, when a hook captured.
    pub session_id: Option<String>,
}

/// The project key of the project at `dir`: from its `remote.origin.url`,
/// else its real path (as `ingest --from-commits` computes it).
pub fn project_key(dir: &Path) -> String {
    let (origin, root) = crate::store::mine::identify(dir);
    crate::model::project_key(origin.as_deref(), &root)
}

/// Builds the artifacts of `moments` (ids, provenance, redaction, schema).
pub fn build(t: &Transcript, moments: &[Moment], origin: &Origin) -> Result<Built, LoreError> {
    let key = project_key(&origin.project);
    capture::build(
        t,
        moments,
        &Provenance {
            project_key: &key,
            trigger: origin.trigger,
            session_id: origin.session_id.as_deref(),
        },
    )
    .map_err(|e| LoreError::invalid("capture", e))
}

/// The artifacts as ingest items, each labelled
/// `capture:<session>:<event>`.
pub fn items(built: &Built, t: &Transcript) -> Vec<Item> {
    let session = t.session_id.as_deref().unwrap_or("-");
    built
        .artifacts
        .iter()
        .map(|c| Item {
            source: format!("capture:{session}:{}", c.event),
            artifact: Ok(c.artifact.clone()),
        })
        .collect()
}

/// The backend for capturing: `--backend`, else `lore.capture.backend`,
/// else `command` when `lore.capture.command` is set, else offline.
pub fn backend(lore: &Lore, choice: Option<&str>) -> Result<Backend, LoreError> {
    Backend::from_config(lore, Role::Capture, choice)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn saving_an_answer_drops_answers_older_than_the_limit() {
        let d = tempfile::tempdir().unwrap();
        let old = d.path().join("old.answer");
        let recent = d.path().join("recent.answer");
        let other = d.path().join("notes.txt");
        for p in [&old, &recent, &other] {
            std::fs::write(p, "[]").unwrap();
        }
        let now = std::time::SystemTime::now();
        let day = std::time::Duration::from_secs(24 * 3600);
        for (p, age) in [(&old, 31 * day), (&recent, 29 * day), (&other, 90 * day)] {
            let f = std::fs::File::options().write(true).open(p).unwrap();
            f.set_modified(now - age).unwrap();
        }
        let new = d.path().join("new.answer");
        save(d.path(), &new, b"[]").unwrap();
        assert_eq!(std::fs::read(&new).unwrap(), b"[]");
        assert!(!old.exists(), "over 30 days: dropped");
        assert!(recent.exists() && other.exists());
    }
}
