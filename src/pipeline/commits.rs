//! Artifacts mined from a project's own commits, the way the onlooker commit
//! miner (archivist 0.7.0) fills the archivist artifact shape from git.
//!
//! The store walks history and hands over plain [`MinedCommit`]s; this module
//! turns each into one or more [`Artifact`]s:
//!
//! - **Pieces.** A squashed body lists its commits as `* subject` lines; the
//!   message is split before every line starting with `* ` (column 0), so
//!   there is one artifact per authored message. The text before the first
//!   such line (the commit's own subject and preamble) is a piece too.
//! - `summary` ← the piece's subject (its first paragraph, lines joined with a
//!   space, as `git log --format=%s` shows it); `detail` ← the rest of the
//!   piece (null when empty); `files` ← the commit's changed paths;
//!   `session_id` ← the piece's `Claude-Session:` trailer, else the
//!   commit's, else `commit:<full sha>` (a lesson needs provenance, and a
//!   commit that names no session is its own); `trigger` = `commit`, `kind` = `decision`, `source` = `local`;
//!   `created_at` = `updated_at` = the commit time (whole seconds, UTC).
//! - **Trailers.** A trailer block (a final paragraph whose every line is
//!   `Token: value`, or an indented continuation) is removed from the detail
//!   and from the hashed text: trailers are provenance (`Claude-Session`,
//!   `Co-authored-by`, `Signed-off-by`), not content, and tools add them on
//!   rebase. The commit's final trailer block belongs to the whole commit.
//! - **Id.** A content-addressed ULID: timestamp = the commit time in ms, the
//!   80 random bits = the first 80 bits of sha256 of the normalised message.
//!   *Normalised*: CR LF and lone CR become LF, trailing whitespace is cut
//!   from every line, the trailer block is removed, then the text is exactly
//!   `summary` or `summary + "\n\n" + detail`, where the detail has no
//!   leading or trailing blank lines and no runs of blank lines.
//!
//! The commit time should be the **author** time: git keeps it through
//! rebase, amend-free cherry-picks and `rebase -i` squashes (the committer
//! time changes), so a rebased commit keeps its artifact ids. A piece of a
//! squash commit has the id of the original commit when the squash kept that
//! commit's author time; otherwise the same text gets a new timestamp (and a
//! new id), which is stable across re-mining.
//!
//! Pure: no git access, no clock. The store produces [`MinedCommit`]s.

use sha2::{Digest, Sha256};

use crate::model::{iso, Artifact, Id};

/// The trailer that names the agent session a commit came from.
pub const SESSION_TRAILER: &str = "Claude-Session";

/// The largest millisecond timestamp a ULID holds (48 bits).
pub const MAX_TIME_MS: i64 = (1 << 48) - 1;

/// One commit, as the store reads it from git.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MinedCommit {
    /// The commit id (hex), for messages only: it does not enter the ids.
    pub sha: String,
    /// The author time, in milliseconds since 1970 (see the module doc).
    pub time_ms: i64,
    /// The full commit message.
    pub message: String,
    /// Paths the commit changed, relative to the repository root.
    pub changed_paths: Vec<String>,
    /// The project's 12-hex key.
    pub project_key: String,
}

/// Why a commit yields no artifacts.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum CommitError {
    /// A time before 1970 or past what a ULID can hold.
    #[error("commit {sha}: time {time_ms} ms is outside what an artifact id can hold (0 to 2^48-1 ms since 1970)")]
    TimeOutOfRange { sha: String, time_ms: i64 },
    /// The project key is not 12 lower-case hex characters.
    #[error("commit {sha}: project key {key:?} is not 12 lower-case hex characters")]
    BadProjectKey { sha: String, key: String },
}

/// Whether `line` is a `Token: value` trailer line.
fn is_trailer_line(line: &str) -> bool {
    let Some((token, rest)) = line.split_once(':') else {
        return false;
    };
    let mut bytes = token.bytes();
    bytes.next().is_some_and(|b| b.is_ascii_alphanumeric())
        && bytes.all(|b| b.is_ascii_alphanumeric() || b == b'-')
        && (rest.is_empty() || rest.starts_with(' '))
}

/// Splits a trailing trailer block off `lines` (which have no trailing blank
/// lines). The block must be a paragraph of its own after at least one other.
fn split_trailers<'a>(lines: &'a [&'a str]) -> (&'a [&'a str], &'a [&'a str]) {
    let Some(blank) = lines.iter().rposition(|l| l.is_empty()) else {
        return (lines, &[]);
    };
    let block = &lines[blank + 1..];
    let first_is_trailer = block.first().is_some_and(|l| is_trailer_line(l));
    let all_trailers = block
        .iter()
        .all(|l| is_trailer_line(l) || l.starts_with([' ', '\t']));
    if first_is_trailer && all_trailers && lines[..blank].iter().any(|l| !l.is_empty()) {
        (&lines[..blank], block)
    } else {
        (lines, &[])
    }
}

/// The value of the last `key` trailer in `block` (keys compare
/// case-insensitively, as git's do), if not blank.
fn trailer_value(block: &[&str], key: &str) -> Option<String> {
    block
        .iter()
        .filter_map(|l| l.split_once(':'))
        .filter(|(k, _)| k.eq_ignore_ascii_case(key))
        .map(|(_, v)| v.trim().to_owned())
        .rfind(|v| !v.is_empty())
}

/// Drops leading and trailing blank lines.
fn trim_blank<'a>(mut lines: &'a [&'a str]) -> &'a [&'a str] {
    while lines.first().is_some_and(|l| l.is_empty()) {
        lines = &lines[1..];
    }
    while lines.last().is_some_and(|l| l.is_empty()) {
        lines = &lines[..lines.len() - 1];
    }
    lines
}

/// One authored message: subject, body, its own trailers.
struct Piece {
    summary: String,
    detail: Option<String>,
    session: Option<String>,
}

fn piece(lines: &[&str]) -> Option<Piece> {
    let lines = trim_blank(lines);
    let (content, trailers) = split_trailers(lines);
    let content = trim_blank(content);
    let subject_end = content
        .iter()
        .position(|l| l.is_empty())
        .unwrap_or(content.len());
    let summary = content[..subject_end]
        .iter()
        .map(|l| l.trim())
        .collect::<Vec<_>>()
        .join(" ");
    if summary.is_empty() {
        return None;
    }
    let mut body: Vec<&str> = Vec::new();
    for line in trim_blank(&content[subject_end..]) {
        if line.is_empty() && body.last().is_some_and(|l| l.is_empty()) {
            continue;
        }
        body.push(line);
    }
    Some(Piece {
        summary,
        detail: (!body.is_empty()).then(|| body.join("\n")),
        session: trailer_value(trailers, SESSION_TRAILER),
    })
}

/// The text a piece's id is computed from (see the module doc).
fn normalised(summary: &str, detail: Option<&str>) -> String {
    match detail {
        Some(d) => format!("{summary}\n\n{d}"),
        None => summary.to_owned(),
    }
}

/// The normalised form of a whole single-piece commit message: what
/// [`artifact_id`] hashes.
pub fn normalize_message(message: &str) -> String {
    let text = message.replace("\r\n", "\n").replace('\r', "\n");
    let lines: Vec<&str> = text.lines().map(str::trim_end).collect();
    match piece(&lines) {
        Some(p) => normalised(&p.summary, p.detail.as_deref()),
        None => String::new(),
    }
}

/// The content-addressed id: `time_ms` and the first 80 bits of
/// sha256(`normalised`).
pub fn artifact_id(time_ms: u64, normalised: &str) -> Id {
    let digest = Sha256::digest(normalised.as_bytes());
    let mut random = [0u8; 16];
    random[6..].copy_from_slice(&digest[..10]);
    Id::from_parts(time_ms, u128::from_be_bytes(random))
}

/// The artifacts of one commit, one per authored message, in message order.
pub fn artifacts_from_commit(commit: &MinedCommit) -> Result<Vec<Artifact>, CommitError> {
    if !(0..=MAX_TIME_MS).contains(&commit.time_ms) {
        return Err(CommitError::TimeOutOfRange {
            sha: commit.sha.clone(),
            time_ms: commit.time_ms,
        });
    }
    let key = &commit.project_key;
    if key.len() != 12 || !key.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f')) {
        return Err(CommitError::BadProjectKey {
            sha: commit.sha.clone(),
            key: crate::schema::clip(key, 40),
        });
    }
    let time_ms = commit.time_ms.unsigned_abs();
    let created_at = jiff::Timestamp::from_millisecond(commit.time_ms)
        .map(iso)
        .map_err(|_| CommitError::TimeOutOfRange {
            sha: commit.sha.clone(),
            time_ms: commit.time_ms,
        })?;

    let text = commit.message.replace("\r\n", "\n").replace('\r', "\n");
    let lines: Vec<&str> = text.lines().map(str::trim_end).collect();
    let (body, commit_trailers) = split_trailers(trim_blank(&lines));
    let commit_session = trailer_value(commit_trailers, SESSION_TRAILER);

    let mut chunks: Vec<Vec<&str>> = vec![Vec::new()];
    for line in body {
        if let Some(rest) = line.strip_prefix("* ") {
            chunks.push(vec![rest]);
        } else if let Some(last) = chunks.last_mut() {
            last.push(line);
        }
    }

    let mut out: Vec<Artifact> = Vec::new();
    for chunk in chunks {
        let Some(p) = piece(&chunk) else { continue };
        let id = artifact_id(time_ms, &normalised(&p.summary, p.detail.as_deref()));
        if out.iter().any(|a| a.id == id) {
            continue;
        }
        out.push(Artifact {
            id,
            kind: "decision".into(),
            project_key: key.clone(),
            source: Some("local".into()),
            created_at: created_at.clone(),
            updated_at: Some(created_at.clone()),
            summary: p.summary,
            detail: p.detail,
            files: commit.changed_paths.clone(),
            // The commit is the provenance when it names no session.
            session_id: p
                .session
                .or_else(|| commit_session.clone())
                .or_else(|| Some(format!("commit:{}", commit.sha))),
            trigger: Some("commit".into()),
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::{self, SchemaKind};

    const T: i64 = 1_788_000_000_000;

    fn commit(sha: &str, message: &str) -> MinedCommit {
        MinedCommit {
            sha: sha.into(),
            time_ms: T,
            message: message.into(),
            changed_paths: vec!["package.json".into(), "pnpm-lock.yaml".into()],
            project_key: "3f9c2a7b1d04".into(),
        }
    }

    fn one(message: &str) -> Artifact {
        let mut all = artifacts_from_commit(&commit("a1", message)).unwrap();
        assert_eq!(all.len(), 1, "{all:?}");
        all.remove(0)
    }

    const MESSAGE: &str = "Pin vite to 5.4.21\n\nVitest 4.1.9 imports vite/module-runner, which Vite 5.4.21 lacks.\nPinned until Vite 6.\n\nClaude-Session: sess-42\nCo-authored-by: A <a@example.com>\n";

    #[test]
    fn fills_the_artifact_shape() {
        let a = one(MESSAGE);
        assert_eq!(a.summary, "Pin vite to 5.4.21");
        assert_eq!(
            a.detail.as_deref(),
            Some("Vitest 4.1.9 imports vite/module-runner, which Vite 5.4.21 lacks.\nPinned until Vite 6.")
        );
        assert_eq!(a.session_id.as_deref(), Some("sess-42"));
        assert_eq!(a.files, vec!["package.json", "pnpm-lock.yaml"]);
        assert_eq!(a.kind, "decision");
        assert_eq!(a.trigger.as_deref(), Some("commit"));
        assert_eq!(a.source.as_deref(), Some("local"));
        assert_eq!(a.created_at, "2026-08-29T10:40:00Z");
        assert_eq!(a.updated_at.as_deref(), Some("2026-08-29T10:40:00Z"));
        assert_eq!(a.id.timestamp_ms(), T as u64);
        assert_eq!(a.project_key, "3f9c2a7b1d04");
        let v = serde_json::to_value(&a).unwrap();
        assert_eq!(schema::validate(SchemaKind::Artifact, &v), Ok(()));
    }

    #[test]
    fn the_id_is_the_time_and_the_hash_of_the_normalised_message() {
        let a = one(MESSAGE);
        let normal = "Pin vite to 5.4.21\n\nVitest 4.1.9 imports vite/module-runner, which Vite 5.4.21 lacks.\nPinned until Vite 6.";
        assert_eq!(normalize_message(MESSAGE), normal);
        let digest = Sha256::digest(normal.as_bytes());
        let random = u128::from_be_bytes({
            let mut b = [0u8; 16];
            b[6..].copy_from_slice(&digest[..10]);
            b
        });
        assert_eq!(a.id, Id::from_parts(T as u64, random));
        assert_eq!(a.id.to_string(), artifact_id(T as u64, normal).to_string());
    }

    #[test]
    fn same_message_same_id_and_rebase_keeps_it() {
        let a = one(MESSAGE);
        // Rebased: another sha, the same author time and message.
        let rebased = artifacts_from_commit(&commit("b2", MESSAGE)).unwrap();
        assert_eq!(rebased[0].id, a.id);
        // CRLF, trailing spaces, extra blank lines and added trailers do not matter.
        let noisy = "Pin vite to 5.4.21  \r\n\r\n\r\nVitest 4.1.9 imports vite/module-runner, which Vite 5.4.21 lacks.\t\r\nPinned until Vite 6.\r\n\r\nSigned-off-by: B <b@example.com>\r\n";
        assert_eq!(one(noisy).id, a.id);
        // Different text or time: a different id.
        assert_ne!(one("Pin vite to 5.4.22").id, a.id);
        let mut later = commit("c3", MESSAGE);
        later.time_ms += 1000;
        assert_ne!(artifacts_from_commit(&later).unwrap()[0].id, a.id);
    }

    #[test]
    fn squashed_bodies_give_one_artifact_per_authored_message() {
        let squash = "Upgrade the test stack (#12)\n\n* Pin vite to 5.4.21\n\nVitest 4.1.9 imports vite/module-runner, which Vite 5.4.21 lacks.\nPinned until Vite 6.\n\nClaude-Session: sess-42\n\n* Bump vitest to 4.1.9\n\n* Fix flaky snapshot\n\nCo-authored-by: A <a@example.com>\nClaude-Session: sess-99\n";
        let all = artifacts_from_commit(&commit("d4", squash)).unwrap();
        let summaries: Vec<&str> = all.iter().map(|a| a.summary.as_str()).collect();
        assert_eq!(
            summaries,
            vec![
                "Upgrade the test stack (#12)",
                "Pin vite to 5.4.21",
                "Bump vitest to 4.1.9",
                "Fix flaky snapshot"
            ]
        );
        // The piece keeps the id of the original commit (same author time).
        assert_eq!(all[1].id, one(MESSAGE).id);
        assert_eq!(all[1].session_id.as_deref(), Some("sess-42"));
        assert_eq!(
            all[2].session_id.as_deref(),
            Some("sess-99"),
            "the commit's trailer"
        );
        assert_eq!(all[2].detail, None);
        assert_eq!(all[0].detail, None);
        assert_eq!(all[3].detail, None, "the commit trailers are not content");
    }

    #[test]
    fn trailers_only_count_as_a_final_paragraph() {
        let a = one("Subject\n\nNote: this line is prose, not a trailer block\nbecause this one is not a trailer.");
        assert_eq!(
            a.detail.as_deref(),
            Some(
                "Note: this line is prose, not a trailer block\nbecause this one is not a trailer."
            )
        );
        assert_eq!(one("Claude-Session: x").summary, "Claude-Session: x");
        let a = one("Subject\n\nSee https://example.com/x\n\nClaude-Session:   \nReviewed-by: R\n  continued");
        assert_eq!(
            a.session_id.as_deref(),
            Some("commit:a1"),
            "a blank value is no session: the commit is the provenance"
        );
        assert_eq!(a.detail.as_deref(), Some("See https://example.com/x"));
        let a = one("Subject\n\nhttps://example.com/x");
        assert_eq!(a.detail.as_deref(), Some("https://example.com/x"));
        assert_eq!(
            one("S\n\nclaude-session: lower").session_id.as_deref(),
            Some("lower")
        );
    }

    #[test]
    fn a_wrapped_subject_is_one_line() {
        let a = one("A long subject\nwrapped onto two lines\n\nBody.");
        assert_eq!(a.summary, "A long subject wrapped onto two lines");
        assert_eq!(a.detail.as_deref(), Some("Body."));
    }

    #[test]
    fn empty_messages_and_bad_input() {
        assert_eq!(artifacts_from_commit(&commit("e5", "")).unwrap(), vec![]);
        assert_eq!(
            artifacts_from_commit(&commit("e5", "\n\n  \n")).unwrap(),
            vec![]
        );
        let mut c = commit("f6", "S");
        c.time_ms = -1;
        assert_eq!(
            artifacts_from_commit(&c).unwrap_err().to_string(),
            "commit f6: time -1 ms is outside what an artifact id can hold (0 to 2^48-1 ms since 1970)"
        );
        c.time_ms = MAX_TIME_MS + 1;
        assert!(matches!(
            artifacts_from_commit(&c),
            Err(CommitError::TimeOutOfRange { .. })
        ));
        let mut c = commit("g7", "S");
        c.project_key = "ABC".into();
        assert_eq!(
            artifacts_from_commit(&c).unwrap_err().to_string(),
            "commit g7: project key \"ABC\" is not 12 lower-case hex characters"
        );
    }

    #[test]
    fn duplicate_pieces_in_one_commit_are_one_artifact() {
        let all = artifacts_from_commit(&commit("h8", "Title\n\n* same\n* same\n")).unwrap();
        assert_eq!(all.len(), 2);
    }
}
