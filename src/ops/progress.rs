//! How far each session's transcript has been captured, for a hook that
//! fires after every turn (Codex's Stop): the next turn's capture reads
//! only what the session wrote since, not the whole transcript again.
//!
//! One small file per session and transcript under
//! `<gitdir>/lore/captured/`, named by the sha256 of the session id and the
//! transcript's path (neither is trusted as a file name), holding the byte
//! offset the last capture read to ([`crate::pipeline::capture::Transcript::end_offset`]:
//! the end of its last whole line, so a line still being written is read
//! next time). It is local state like the index: never committed, and
//! deleting it changes no outcome — the next capture reads the transcript
//! from the start, and what was captured before is `seen`.
//!
//! Concurrency: a record is replaced atomically (a temporary file renamed
//! over it) and never moved back: [`record`] keeps the larger offset. Two
//! captures of one session finishing together may still both write; the
//! lower offset can then win, and the next capture reads a few lines twice,
//! whose artifacts are `seen` — work repeated, never a record lost or
//! doubled. Nothing here holds a lock. A record that cannot be read is an
//! offset of 0.
//!
//! It never prints and reads no environment or clock.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use super::Lore;

/// The directory under `<gitdir>/lore/`.
pub const DIR: &str = "captured";

/// The most read of one record: a number and a newline.
const MAX_RECORD_BYTES: u64 = 64;

/// The record of `session`'s transcript at `transcript`.
fn path(lore_dir: &Path, session: &str, transcript: &Path) -> PathBuf {
    let mut h = Sha256::new();
    h.update(session.as_bytes());
    h.update([0]);
    h.update(transcript.as_os_str().as_encoded_bytes());
    let name: String = h.finalize()[..16]
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    lore_dir.join(DIR).join(name)
}

/// The offset the last capture of `session`'s `transcript` read to; 0 when
/// there is none (or it cannot be read).
pub fn captured_to(lore: &Lore, session: &str, transcript: &Path) -> u64 {
    read_at(&lore.store.lore_dir(), session, transcript)
}

/// Records that `session`'s `transcript` was captured to `offset`, unless
/// a later capture already recorded more.
pub fn record(lore: &Lore, session: &str, transcript: &Path, offset: u64) -> std::io::Result<()> {
    record_at(&lore.store.lore_dir(), session, transcript, offset)
}

fn read_at(lore_dir: &Path, session: &str, transcript: &Path) -> u64 {
    let mut text = String::new();
    let read = std::fs::File::open(path(lore_dir, session, transcript))
        .and_then(|f| f.take(MAX_RECORD_BYTES).read_to_string(&mut text));
    match read {
        Ok(_) => text.trim().parse().unwrap_or(0),
        Err(_) => 0,
    }
}

fn record_at(
    lore_dir: &Path,
    session: &str,
    transcript: &Path,
    offset: u64,
) -> std::io::Result<()> {
    if read_at(lore_dir, session, transcript) >= offset {
        return Ok(());
    }
    let file = path(lore_dir, session, transcript);
    let dir = file.parent().expect("under the directory");
    std::fs::create_dir_all(dir)?;
    let mut tmp = tempfile::NamedTempFile::new_in(dir)?;
    tmp.write_all(format!("{offset}\n").as_bytes())?;
    tmp.persist(&file).map_err(|e| e.error)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offsets_are_kept_per_session_and_transcript_and_only_move_forward() {
        let d = tempfile::tempdir().unwrap();
        let t = Path::new("/home/dev/.codex/sessions/2026/09/02/rollout-x.jsonl");
        assert_eq!(read_at(d.path(), "s1", t), 0);
        record_at(d.path(), "s1", t, 4096).unwrap();
        assert_eq!(read_at(d.path(), "s1", t), 4096);
        assert_eq!(read_at(d.path(), "s2", t), 0, "another session");
        assert_eq!(
            read_at(d.path(), "s1", Path::new("/other.jsonl")),
            0,
            "another transcript"
        );
        record_at(d.path(), "s1", t, 100).unwrap();
        assert_eq!(read_at(d.path(), "s1", t), 4096, "never back");
        // A session id is not a file name.
        record_at(d.path(), "../../x", t, 7).unwrap();
        let names: Vec<String> = std::fs::read_dir(d.path().join(DIR))
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert_eq!(names.len(), 2);
        assert!(names
            .iter()
            .all(|n| n.len() == 32 && n.bytes().all(|b| b.is_ascii_hexdigit())));
        // A damaged record reads as nothing captured.
        std::fs::write(path(d.path(), "s1", t), "garbage").unwrap();
        assert_eq!(read_at(d.path(), "s1", t), 0);
    }
}
