//! Artifacts mined from a project's own commits: the facts its manifest
//! diff supplies, and the *why* its message gives.
//!
//! The store walks history and hands over plain [`MinedCommit`]s, with the
//! bytes of every manifest the commit changed before and after; this
//! module turns each into at most one [`Artifact`]:
//!
//! - **Facts.** Each changed manifest (`crate::facts::manifest`: package.json,
//!   Cargo.toml, pyproject.toml, requirements*.txt, go.mod, Gemfile) outside
//!   vendored and fixture directories ([`IGNORED_DIRS`]) is read before and
//!   after; what moved becomes `facts` ([`crate::facts::Change`]s). A
//!   commit that changes no manifest, or whose manifest cannot be read,
//!   yields nothing: versions come from the diff, not from the message.
//! - **Worth a lesson.** The commit becomes an artifact when the facts and
//!   the message make a draft lesson (`crate::facts::lesson::draft`: a pin
//!   after a regression, a downgrade to avoid a bug, an upgrade that fixes
//!   one, a published package's peer or engine range changed, …), or when
//!   the message gives a *why* the rules could not place (a model may).
//!   A plain bump — a bot's update, a human "bump x", no reason given —
//!   yields nothing, and nothing is written for it.
//! - `summary` ← the subject (its first paragraph, lines joined with a
//!   space, as `git log --format=%s` shows it); `detail` ← the rest of the
//!   message without its trailer block (null when empty); `files` ← the
//!   commit's changed paths; `session_id` ← the `Claude-Session:` trailer,
//!   else `commit:<full sha>` (a lesson needs provenance, and a commit that
//!   names no session is its own); `trigger` = `commit`, `kind` =
//!   `decision`, `source` = `local`; `created_at` = `updated_at` = the
//!   commit time (whole seconds, UTC).
//! - **Trailers.** A trailer block (a final paragraph whose every line is
//!   `Token: value`, or an indented continuation) is removed from the detail
//!   and from the hashed text: trailers are provenance (`Claude-Session`,
//!   `Co-authored-by`, `Signed-off-by`), not content, and tools add them on
//!   rebase. The commit's final trailer block belongs to the whole commit.
//! - **Id.** A content-addressed ULID: timestamp = the commit time in ms, the
//!   80 random bits = the first 80 bits of sha256 of [`ID_PREFIX`] and the
//!   normalised message (the prefix keeps these ids apart from the ones an
//!   earlier miner gave the same commits from their message alone).
//!   *Normalised*: CR LF and lone CR become LF, trailing whitespace is cut
//!   from every line, the trailer block is removed, then the text is exactly
//!   `summary` or `summary + "\n\n" + detail`, where the detail has no
//!   leading or trailing blank lines and no runs of blank lines.
//!
//! The commit time should be the **author** time: git keeps it through
//! rebase, amend-free cherry-picks and `rebase -i` squashes (the committer
//! time changes), so a rebased commit keeps its artifact id.
//!
//! Pure: no git access, no clock. The store produces [`MinedCommit`]s.

use sha2::{Digest, Sha256};

use crate::facts::{self, lesson, manifest, Fact};
use crate::model::{iso, Artifact, Id};

/// What a commit artifact's id hashes before its message.
pub const ID_PREFIX: &str = "git-lore commit facts v1\n";

/// Directories whose manifests describe no dependency of what the
/// project ships: installed packages, test fixtures, tests, examples,
/// documentation sites, playgrounds and benchmarks. (In the labelled real
/// histories, no lesson came from one of them, and many junk proposals
/// did: an example pinned to what it demonstrates is no lesson.)
pub const IGNORED_DIRS: &[&str] = &[
    "node_modules",
    "vendor",
    "fixtures",
    "__fixtures__",
    "testdata",
    "test-fixtures",
    "__tests__",
    "test",
    "tests",
    "e2e",
    "example",
    "examples",
    "docs",
    "doc",
    "docs_src",
    "playground",
    "playgrounds",
    "demo",
    "demos",
    "bench",
    "benches",
    "benchmarks",
];

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
    /// Each changed manifest's bytes before and after.
    pub manifests: Vec<ManifestFile>,
    /// `owner/name` of the repository, when its origin names one.
    pub repo: Option<String>,
    /// The newest release before this commit (from its tags), the version
    /// of a package whose manifest names none.
    pub released_before: Option<String>,
    /// The project's 12-hex key.
    pub project_key: String,
}

/// A manifest a commit changed: its bytes before (absent: added) and after
/// (absent: deleted), with their blob ids (hex), which key the
/// [`ManifestCache`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ManifestFile {
    pub path: String,
    pub old: Option<Vec<u8>>,
    pub new: Option<Vec<u8>>,
    pub old_id: Option<String>,
    pub new_id: Option<String>,
}

/// Manifests already parsed, by path and blob id: the version a commit
/// writes is the version its child reads, so a history's manifests are
/// parsed once, not twice. The path is in the key because what a parse
/// gives depends on the kind of manifest, not only the bytes (an empty
/// blob is an empty requirements.txt but no package.json), so a hit never
/// depends on which other manifest happened to be parsed first, and mining
/// on several threads finds what one thread finds. Bounded: past
/// [`ManifestCache::MAX`] entries it starts afresh.
#[derive(Default)]
pub struct ManifestCache {
    parsed: std::collections::HashMap<(String, String), Option<manifest::Manifest>>,
}

impl ManifestCache {
    /// The most manifests kept.
    pub const MAX: usize = 4096;

    fn parse(
        &mut self,
        kind: manifest::Kind,
        path: &str,
        id: Option<&str>,
        bytes: &[u8],
    ) -> Option<manifest::Manifest> {
        let key = id.map(|id| (path.to_owned(), id.to_owned()));
        if let Some(hit) = key.as_ref().and_then(|k| self.parsed.get(k)) {
            return hit.clone();
        }
        let m = manifest::parse(kind, path, bytes).ok();
        if let Some(key) = key {
            if self.parsed.len() >= Self::MAX {
                self.parsed.clear();
            }
            self.parsed.insert(key, m.clone());
        }
        m
    }
}

/// Whether a changed path is a manifest whose diff the miner reads.
pub fn is_mined_manifest(path: &str) -> bool {
    manifest::Kind::of_path(path).is_some()
        && !path.split('/').any(|dir| IGNORED_DIRS.contains(&dir))
}

/// The id a commit's artifact has (see the module doc), from its author
/// time and message alone: what "has history seen it?" is asked with
/// before the commit's diff is read.
pub fn id_of(time_ms: i64, message: &str) -> Id {
    artifact_id(
        time_ms.unsigned_abs(),
        &format!("{ID_PREFIX}{}", normalize_message(message)),
    )
}

/// The artifact of a commit history has seen: its id and message, no
/// facts (it is skipped as seen, never transformed). `None` for an empty
/// message.
pub fn seen_artifact(commit: &MinedCommit) -> Result<Option<Artifact>, CommitError> {
    let (key, created_at) = checked(commit)?;
    let text = commit.message.replace("\r\n", "\n").replace('\r', "\n");
    let lines: Vec<&str> = text.lines().map(str::trim_end).collect();
    let Some(p) = piece(&lines) else {
        return Ok(None);
    };
    Ok(Some(Artifact {
        id: id_of(commit.time_ms, &commit.message),
        kind: "decision".into(),
        project_key: key,
        source: Some("local".into()),
        created_at: created_at.clone(),
        updated_at: Some(created_at),
        summary: p.summary,
        detail: p.detail,
        files: commit.changed_paths.clone(),
        session_id: p.session.or_else(|| Some(format!("commit:{}", commit.sha))),
        trigger: Some("commit".into()),
        facts: Vec::new(),
    }))
}

/// The checks every mined commit passes: a time a ULID holds, a 12-hex
/// project key. Its key and its time as ISO 8601.
fn checked(commit: &MinedCommit) -> Result<(String, String), CommitError> {
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
    let created_at = jiff::Timestamp::from_millisecond(commit.time_ms)
        .map(iso)
        .map_err(|_| CommitError::TimeOutOfRange {
            sha: commit.sha.clone(),
            time_ms: commit.time_ms,
        })?;
    Ok((key.clone(), created_at))
}

/// `owner/name` of a forge repository from its clone URL
/// (`git@github.com:vitejs/vite.git`, `https://github.com/vitejs/vite`),
/// to qualify bare `#123` references; `None` for anything else.
pub fn repo_slug(url: &str) -> Option<String> {
    let u = url.trim().trim_end_matches('/');
    let u = u.strip_suffix(".git").unwrap_or(u);
    let path = match u.split_once("://") {
        Some((_, rest)) => rest.split_once('/')?.1,
        None => u.split_once(':')?.1,
    };
    let mut parts = path.rsplit('/');
    let (name, owner) = (parts.next()?, parts.next()?);
    let ok = |s: &str| {
        !s.is_empty()
            && s.chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
    };
    (ok(owner) && ok(name)).then(|| format!("{owner}/{name}"))
}

/// The facts a commit's manifests supply: every change, in path order.
pub fn manifest_facts(commit: &MinedCommit, cache: &mut ManifestCache) -> Vec<Fact> {
    let mut out = Vec::new();
    for m in &commit.manifests {
        let Some(kind) = manifest::Kind::of_path(&m.path) else {
            continue;
        };
        if let (Some(old), Some(new)) = (&m.old, &m.new) {
            if only_own_version_moved(kind, old, new) {
                continue;
            }
        }
        let mut read = |b: &Option<Vec<u8>>, id: &Option<String>| match b {
            None => Some(None),
            Some(bytes) => cache.parse(kind, &m.path, id.as_deref(), bytes).map(Some),
        };
        // A manifest that does not parse on either side says nothing.
        let (Some(old), Some(new)) = (read(&m.old, &m.old_id), read(&m.new, &m.new_id)) else {
            continue;
        };
        for mut c in manifest::diff(kind, &m.path, old.as_ref(), new.as_ref()) {
            c.repo = commit.repo.clone();
            // A package whose manifest names no version (pyproject with a
            // dynamic version, a Go module) was last released at the
            // newest tag before this commit.
            if let Some(owner) = c.owner.as_mut().filter(|o| o.version.is_none()) {
                owner.version = commit.released_before.clone();
            }
            if out.len() < facts::MAX_FACTS {
                out.push(Fact::Change(c));
            }
        }
    }
    out
}

/// Whether every line that differs between a manifest's two versions is
/// its package's own `version` (Cargo's `[package]` or
/// `[workspace.package]`, package.json's top level) or a path dependency
/// of the workspace (Cargo's `{ path = … }`): a release commit that moves
/// forty crates' versions changes no dependency, and parsing it would
/// find none. (The diff would be empty; this only saves the parse.)
fn only_own_version_moved(kind: manifest::Kind, old: &[u8], new: &[u8]) -> bool {
    let (Ok(old), Ok(new)) = (std::str::from_utf8(old), std::str::from_utf8(new)) else {
        return false;
    };
    let own = |line: &str, section: &str| -> bool {
        let t = line.trim();
        match kind {
            manifest::Kind::CargoToml => {
                (matches!(section, "[package]" | "[workspace.package]")
                    && t.starts_with("version")
                    && t["version".len()..].trim_start().starts_with('='))
                    || (t.contains("path =") && !t.contains('[') && t.ends_with('}'))
            }
            manifest::Kind::PackageJson => {
                // Top-level keys are indented once (two spaces or a tab).
                line.starts_with("  \"version\":") || line.starts_with("\t\"version\":")
            }
            _ => false,
        }
    };
    // Only the lines between the first and the last that differ are
    // compared as sets (a line moved from outside them counts as changed:
    // parsed, never wrongly skipped); the section a line is in is read
    // from the lines before it.
    let (a, b): (Vec<&str>, Vec<&str>) = (old.lines().collect(), new.lines().collect());
    let head = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
    let tail = a[head..]
        .iter()
        .rev()
        .zip(b[head..].iter().rev())
        .take_while(|(x, y)| x == y)
        .count();
    let section_at = |lines: &[&str]| -> String {
        lines[..head]
            .iter()
            .rev()
            .map(|l| l.trim())
            .find(|t| t.starts_with('['))
            .unwrap_or("")
            .to_owned()
    };
    let differs = |a: &[&str], b: &[&str]| -> bool {
        let other: std::collections::HashSet<&str> =
            b[head..b.len() - tail].iter().copied().collect();
        let mut section = section_at(a);
        for line in &a[head..a.len() - tail] {
            let t = line.trim();
            if t.starts_with('[') {
                section = t.to_owned();
            }
            if !other.contains(line) && !own(line, &section) {
                return true;
            }
        }
        false
    };
    matches!(
        kind,
        manifest::Kind::CargoToml | manifest::Kind::PackageJson
    ) && !differs(&a, &b)
        && !differs(&b, &a)
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
    artifacts_from_commit_cached(commit, &mut ManifestCache::default())
}

/// [`artifacts_from_commit`], reusing manifests parsed for earlier commits.
pub fn artifacts_from_commit_cached(
    commit: &MinedCommit,
    cache: &mut ManifestCache,
) -> Result<Vec<Artifact>, CommitError> {
    let (key, created_at) = checked(commit)?;
    let facts = manifest_facts(commit, cache);
    if facts.is_empty() {
        return Ok(Vec::new());
    }
    let text = commit.message.replace("\r\n", "\n").replace('\r', "\n");
    let lines: Vec<&str> = text.lines().map(str::trim_end).collect();
    let Some(p) = piece(&lines) else {
        return Ok(Vec::new());
    };
    let message = lesson::Message {
        subject: &p.summary,
        body: p.detail.as_deref(),
        repo: commit.repo.as_deref(),
    };
    if lesson::draft(&facts, Some(&message)).is_err() && lesson::why(&message).is_none() {
        return Ok(Vec::new());
    }
    Ok(vec![Artifact {
        id: id_of(commit.time_ms, &commit.message),
        kind: "decision".into(),
        project_key: key,
        source: Some("local".into()),
        created_at: created_at.clone(),
        updated_at: Some(created_at),
        summary: p.summary,
        detail: p.detail,
        files: commit.changed_paths.clone(),
        // The commit is the provenance when it names no session.
        session_id: p.session.or_else(|| Some(format!("commit:{}", commit.sha))),
        trigger: Some("commit".into()),
        facts,
    }])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_release_that_moves_only_versions_is_not_parsed_but_a_dependency_is() {
        use manifest::Kind::{CargoToml, GoMod, PackageJson};
        let only = |k, a: &str, b: &str| only_own_version_moved(k, a.as_bytes(), b.as_bytes());
        // nushell's release commits: the crate's own version and the
        // workspace's path dependencies.
        let old = "[package]\nname = \"nu-cmd\"\nversion = \"0.93.0\"\n\n[dependencies]\nnu-protocol = { path = \"../nu-protocol\", version = \"0.93.0\" }\nchrono = \"0.4\"\n";
        let new = old.replace("0.93.0", "0.93.1");
        assert!(only(CargoToml, old, &new));
        let dep = new.replace("chrono = \"0.4\"", "chrono = \"=0.4.31\"");
        assert!(!only(CargoToml, old, &dep));
        // A dependency's own table has a `version` line too.
        let t_old = "[package]\nname = \"a\"\nversion = \"1.0.0\"\n[dependencies.serde]\nversion = \"1.0.100\"\n";
        let t_new = t_old.replace("1.0.100", "1.0.101");
        assert!(!only(CargoToml, t_old, &t_new));
        let p_old = "{\n  \"name\": \"vite\",\n  \"version\": \"6.0.2\",\n  \"dependencies\": {\n    \"esbuild\": \"^0.24.0\"\n  }\n}\n";
        let p_new = p_old.replace("6.0.2", "6.0.3");
        assert!(only(PackageJson, p_old, &p_new));
        let p_dep = p_new.replace("^0.24.0", "0.24.0");
        assert!(!only(PackageJson, p_old, &p_dep));
        // Other kinds are always parsed.
        assert!(!only(GoMod, "go 1.21\n", "go 1.21\n"));
    }
    use crate::schema::{self, SchemaKind};

    const T: i64 = 1_788_000_000_000;

    const OLD: &str = r#"{"name":"vite","version":"6.0.3","dependencies":{"esbuild":"^0.24.0","rollup":"^4.20.0"}}"#;
    const PINNED: &str = r#"{"name":"vite","version":"6.0.3","dependencies":{"esbuild":"0.24.0","rollup":"^4.20.0"}}"#;
    const BUMPED: &str = r#"{"name":"vite","version":"6.0.3","dependencies":{"esbuild":"^0.24.0","rollup":"^4.21.0"}}"#;

    fn commit(sha: &str, message: &str, new: &str) -> MinedCommit {
        MinedCommit {
            sha: sha.into(),
            time_ms: T,
            message: message.into(),
            changed_paths: vec!["packages/vite/package.json".into(), "pnpm-lock.yaml".into()],
            manifests: vec![ManifestFile {
                path: "packages/vite/package.json".into(),
                old: Some(OLD.as_bytes().to_vec()),
                new: Some(new.as_bytes().to_vec()),
                old_id: None,
                new_id: None,
            }],
            repo: Some("vitejs/vite".into()),
            released_before: None,
            project_key: "3f9c2a7b1d04".into(),
        }
    }

    const MESSAGE: &str = "fix: esbuild regression (pin to 0.24.0) (#19027)\n\nesbuild 0.24.1 breaks the build.\n\nClaude-Session: sess-42\nCo-authored-by: A <a@example.com>\n";

    fn one(c: &MinedCommit) -> Artifact {
        let mut all = artifacts_from_commit(c).unwrap();
        assert_eq!(all.len(), 1, "{all:?}");
        all.remove(0)
    }

    #[test]
    fn a_pin_with_a_reason_is_one_artifact_with_its_facts() {
        let a = one(&commit("a1", MESSAGE, PINNED));
        assert_eq!(
            a.summary,
            "fix: esbuild regression (pin to 0.24.0) (#19027)"
        );
        assert_eq!(
            a.detail.as_deref(),
            Some("esbuild 0.24.1 breaks the build.")
        );
        assert_eq!(a.session_id.as_deref(), Some("sess-42"));
        assert_eq!(
            a.files,
            vec!["packages/vite/package.json", "pnpm-lock.yaml"]
        );
        assert_eq!(
            (a.kind.as_str(), a.trigger.as_deref(), a.source.as_deref()),
            ("decision", Some("commit"), Some("local"))
        );
        assert_eq!(a.created_at, "2026-08-29T10:40:00Z");
        assert_eq!(a.id.timestamp_ms(), T as u64);
        let [Fact::Change(c)] = a.facts.as_slice() else {
            panic!("{:?}", a.facts)
        };
        assert_eq!(
            (c.package.as_str(), c.from.as_deref(), c.to.as_deref()),
            ("esbuild", Some("^0.24.0"), Some("0.24.0"))
        );
        assert_eq!(c.repo.as_deref(), Some("vitejs/vite"));
        assert_eq!(c.owner.as_ref().map(|o| o.name.as_str()), Some("vite"));
        let v = serde_json::to_value(&a).unwrap();
        assert_eq!(schema::validate(SchemaKind::Artifact, &v), Ok(()));
    }

    #[test]
    fn the_id_is_the_time_and_the_hash_of_the_prefixed_message() {
        let a = one(&commit("a1", MESSAGE, PINNED));
        let normal =
            "fix: esbuild regression (pin to 0.24.0) (#19027)\n\nesbuild 0.24.1 breaks the build.";
        assert_eq!(normalize_message(MESSAGE), normal);
        let digest = Sha256::digest(format!("{ID_PREFIX}{normal}").as_bytes());
        let random = u128::from_be_bytes({
            let mut b = [0u8; 16];
            b[6..].copy_from_slice(&digest[..10]);
            b
        });
        assert_eq!(a.id, Id::from_parts(T as u64, random));
        // Rebased: another sha, the same author time and message.
        assert_eq!(one(&commit("b2", MESSAGE, PINNED)).id, a.id);
        let noisy = "fix: esbuild regression (pin to 0.24.0) (#19027)  \r\n\r\n\r\nesbuild 0.24.1 breaks the build.\t\r\n\r\nSigned-off-by: B <b@example.com>\r\n";
        assert_eq!(one(&commit("c3", noisy, PINNED)).id, a.id);
        let mut later = commit("d4", MESSAGE, PINNED);
        later.time_ms += 1000;
        assert_ne!(one(&later).id, a.id);
    }

    #[test]
    fn a_plain_bump_or_no_manifest_yields_nothing() {
        for subject in [
            "chore(deps): update dependency rollup to v4.21.0 (#17945)",
            "Bump rollup from 4.20.0 to 4.21.0",
            "build: bump rollup",
        ] {
            assert_eq!(
                artifacts_from_commit(&commit("e5", subject, BUMPED)).unwrap(),
                vec![],
                "{subject}"
            );
        }
        let mut c = commit("f6", MESSAGE, PINNED);
        c.manifests.clear();
        assert_eq!(
            artifacts_from_commit(&c).unwrap(),
            vec![],
            "versions come from the diff"
        );
        let mut c = commit("f7", MESSAGE, "{not json");
        assert_eq!(
            artifacts_from_commit(&c).unwrap(),
            vec![],
            "an unreadable manifest says nothing"
        );
        c.manifests[0].new = Some(PINNED.as_bytes().to_vec());
        c.manifests[0].path = "node_modules/vite/package.json".into();
        assert!(!is_mined_manifest(&c.manifests[0].path));
        assert!(!is_mined_manifest("packages/x/test/fixtures/package.json"));
        assert!(is_mined_manifest("packages/vite/package.json"));
    }

    #[test]
    fn a_reason_the_rules_cannot_place_is_still_an_artifact() {
        // An upgrade "to fix" something, in a manifest the templates read:
        // drafted. A reason with an unreadable change (a range widened
        // sideways): kept for a model, declined offline.
        let widened = r#"{"name":"vite","version":"6.0.3","dependencies":{"esbuild":"^0.24.0 || ^0.25.0","rollup":"^4.20.0"}}"#;
        let a = artifacts_from_commit(&commit(
            "g8",
            "fix: allow esbuild 0.25 to avoid a duplicate install",
            widened,
        ))
        .unwrap();
        assert_eq!(a.len(), 1);
    }

    #[test]
    fn trailers_are_provenance_not_content() {
        let a = one(&commit("h9", "fix: pin esbuild to avoid a regression\n\nSee https://example.com/x\n\nClaude-Session:   \nReviewed-by: R\n  continued", PINNED));
        assert_eq!(
            a.session_id.as_deref(),
            Some("commit:h9"),
            "a blank value is no session: the commit is the provenance"
        );
        assert_eq!(a.detail.as_deref(), Some("See https://example.com/x"));
    }

    #[test]
    fn repository_slugs() {
        assert_eq!(
            repo_slug("git@github.com:vitejs/vite.git").as_deref(),
            Some("vitejs/vite")
        );
        assert_eq!(
            repo_slug("https://github.com/vitejs/vite").as_deref(),
            Some("vitejs/vite")
        );
        assert_eq!(
            repo_slug("https://gitlab.example.com/group/sub/app.git/").as_deref(),
            Some("sub/app")
        );
        assert_eq!(repo_slug("/srv/git/app.git"), None);
        assert_eq!(repo_slug("git@host:a b/c"), None);
    }

    #[test]
    fn bad_input() {
        let mut c = commit("e5", MESSAGE, PINNED);
        c.time_ms = -1;
        assert_eq!(
            artifacts_from_commit(&c).unwrap_err().to_string(),
            "commit e5: time -1 ms is outside what an artifact id can hold (0 to 2^48-1 ms since 1970)"
        );
        c.time_ms = MAX_TIME_MS + 1;
        assert!(matches!(
            artifacts_from_commit(&c),
            Err(CommitError::TimeOutOfRange { .. })
        ));
        let mut c = commit("g7", MESSAGE, PINNED);
        c.project_key = "ABC".into();
        assert_eq!(
            artifacts_from_commit(&c).unwrap_err().to_string(),
            "commit g7: project key \"ABC\" is not 12 lower-case hex characters"
        );
        assert_eq!(
            artifacts_from_commit(&commit("e6", "", PINNED)).unwrap(),
            vec![]
        );
    }

    #[test]
    fn a_blob_parsed_as_one_kind_of_manifest_is_not_reused_for_another() {
        // The empty blob, first as requirements.txt (an empty manifest),
        // then as package.json (not JSON): what the second reads must not
        // depend on whether the first went through the same cache.
        const EMPTY: &str = "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391";
        let file = |path: &str, old: Option<&str>, new: &str, old_id: Option<&str>| ManifestFile {
            path: path.into(),
            old: old.map(|o| o.as_bytes().to_vec()),
            new: Some(new.as_bytes().to_vec()),
            old_id: old_id.map(Into::into),
            new_id: None,
        };
        let mut requirements = commit("a", "add requirements", "");
        requirements.manifests = vec![file("requirements.txt", None, "", None)];
        requirements.manifests[0].new_id = Some(EMPTY.into());
        let mut filled = commit("b", "fix: require vite 6 for the module runner", "");
        filled.manifests = vec![file(
            "package.json",
            Some(""),
            r#"{"name":"app","dependencies":{"vite":"^6.0.0"}}"#,
            Some(EMPTY),
        )];
        let alone = manifest_facts(&filled, &mut ManifestCache::default());
        let mut shared = ManifestCache::default();
        manifest_facts(&requirements, &mut shared);
        assert_eq!(manifest_facts(&filled, &mut shared), alone);
    }
}
