//! Reading a project's own repository for `git lore ingest --from-commits`:
//! the commits of its default branch, each with its message, time and the
//! paths it changed, plus the facts the project key is derived from.
//!
//! Read-only: nothing in the project repository is written.

use std::path::{Path, PathBuf};

use gix::bstr::ByteSlice;
use gix::ObjectId;

use super::history::diff_trees;
use super::{GixContext, StoreError};

/// The largest file whose bytes [`mine`] reads for the caller.
pub const MAX_BLOB_BYTES: usize = 1 << 20;

/// One commit of the project's default branch.
#[derive(Clone, Debug)]
pub struct RawCommit {
    pub sha: String,
    /// Author time in milliseconds since the epoch.
    pub time_ms: i64,
    pub message: String,
    /// Paths changed relative to the first parent.
    pub changed_paths: Vec<String>,
    /// The changed paths the caller asked the bytes of.
    pub blobs: Vec<ChangedBlob>,
    /// The version of the newest release tag (`v1.2.3`, `0.104.1`) on an
    /// earlier commit of the walk: what was released before this commit.
    pub released_before: Option<String>,
}

/// A changed file's bytes before (absent: added) and after (absent:
/// deleted).
#[derive(Clone, Debug)]
pub struct ChangedBlob {
    pub path: String,
    pub old: Option<Vec<u8>>,
    pub new: Option<Vec<u8>>,
}

/// What the miner found.
#[derive(Clone, Debug)]
pub struct Mined {
    /// `remote.origin.url`, if the project has one.
    pub origin_url: Option<String>,
    /// The real path of the work tree's top (or the git dir for a bare repo).
    pub root: PathBuf,
    /// Oldest first.
    pub commits: Vec<RawCommit>,
}

/// Walks the default branch of the repository at `dir` (its
/// `refs/remotes/origin/HEAD` target if set, else `HEAD`), first parent
/// only, oldest first, stopping before `since` when given.
///
/// `wants_paths(time_ms, message)` says whether a commit's changed paths are
/// needed; a commit whose artifacts history has already seen needs none, and
/// diffing it would be wasted work. `wants_blob(path)` says which changed
/// paths' bytes to read (at most [`MAX_BLOB_BYTES`] each; a larger one is
/// left out).
pub fn mine(
    dir: &Path,
    since: Option<&str>,
    wants_paths: &mut dyn FnMut(i64, &str) -> bool,
    wants_blob: &dyn Fn(&str) -> bool,
) -> Result<Mined, StoreError> {
    let mut repo = gix::discover(dir)
        .ctx(|| format!("opening the project repository at {}", dir.display()))?;
    // Each tree is read twice (as a commit's and as its child's parent's):
    // the store's delta-base cache keeps their bases.
    super::tune_caches(&mut repo);
    let origin_url = repo
        .config_snapshot()
        .string("remote.origin.url")
        .map(|u| u.to_str_lossy().into_owned());
    let root = repo
        .workdir()
        .map(Path::to_owned)
        .unwrap_or_else(|| repo.git_dir().to_owned());
    let root = std::fs::canonicalize(&root).unwrap_or(root);
    let tip = default_branch_tip(&repo)?;
    let stop: Option<ObjectId> = match since {
        None => None,
        Some(rev) => Some(
            repo.rev_parse_single(rev)
                .ctx(|| format!("resolving --since {rev:?} in {}", dir.display()))?
                .detach(),
        ),
    };
    let releases = release_tags(&repo)?;
    let mut commits = Vec::new();
    let mut next = tip;
    while let Some(id) = next {
        if Some(id) == stop {
            break;
        }
        let commit = repo
            .find_commit(id)
            .ctx(|| format!("reading commit {id}"))?;
        let decoded = commit.decode().ctx(|| format!("decoding commit {id}"))?;
        let parent = decoded.parents().next();
        let old_tree = match parent {
            Some(p) => Some(
                repo.find_commit(p)
                    .ctx(|| format!("reading commit {p}"))?
                    .tree_id()
                    .ctx(|| format!("reading the tree of {p}"))?
                    .detach(),
            ),
            None => None,
        };
        // The author time survives a rebase or an amend that keeps the
        // author; the content-addressed artifact id depends on it.
        let time_ms = decoded.author().map(|a| a.seconds()).unwrap_or(0) * 1000;
        let message = decoded.message.to_str_lossy().into_owned();
        let mut changed = Vec::new();
        if wants_paths(time_ms, &message) {
            diff_trees(
                &repo,
                old_tree,
                Some(decoded.tree()),
                String::new(),
                &mut changed,
            )?;
        }
        let mut blobs = Vec::new();
        for c in changed.iter().filter(|c| wants_blob(&c.path)) {
            let read = |b: Option<ObjectId>| -> Result<Option<Vec<u8>>, StoreError> {
                let Some(b) = b else { return Ok(None) };
                let blob = repo
                    .find_object(b)
                    .ctx(|| format!("reading blob {b} ({})", c.path))?;
                Ok((blob.data.len() <= MAX_BLOB_BYTES).then(|| blob.data.clone()))
            };
            let (old, new) = (read(c.old)?, read(c.new)?);
            // Too large on a side that exists: left out, not read as absent.
            if (c.old.is_some() && old.is_none()) || (c.new.is_some() && new.is_none()) {
                continue;
            }
            blobs.push(ChangedBlob {
                path: c.path.clone(),
                old,
                new,
            });
        }
        commits.push(RawCommit {
            sha: id.to_string(),
            time_ms,
            message,
            changed_paths: changed.into_iter().map(|c| c.path).collect(),
            blobs,
            released_before: None,
        });
        next = parent;
    }
    commits.reverse();
    // Oldest first: each commit gets the newest release tagged before it.
    let mut last: Option<String> = None;
    for c in &mut commits {
        c.released_before = last.clone();
        if let Some(v) = ObjectId::from_hex(c.sha.as_bytes())
            .ok()
            .and_then(|id| releases.get(&id))
        {
            last = Some(v.clone());
        }
    }
    Ok(Mined {
        origin_url,
        root,
        commits,
    })
}

/// The facts a project key is made of for the project at `dir`: its
/// `remote.origin.url` and the real path of its top, or (no repository
/// there) none and the real path of `dir`.
pub fn identify(dir: &Path) -> (Option<String>, PathBuf) {
    let Ok(repo) = gix::discover(dir) else {
        return (
            None,
            std::fs::canonicalize(dir).unwrap_or_else(|_| dir.to_owned()),
        );
    };
    let origin_url = repo
        .config_snapshot()
        .string("remote.origin.url")
        .map(|u| u.to_str_lossy().into_owned());
    let root = repo
        .workdir()
        .map(Path::to_owned)
        .unwrap_or_else(|| repo.git_dir().to_owned());
    let root = std::fs::canonicalize(&root).unwrap_or(root);
    (origin_url, root)
}

/// The commits release tags point at, with the version each names: tags
/// that are a version alone (`v1.2.3`, `1.2.3`, `v0.104`), peeled to their
/// commit; the highest version where a commit has several.
fn release_tags(
    repo: &gix::Repository,
) -> Result<std::collections::HashMap<ObjectId, String>, StoreError> {
    let mut out: std::collections::HashMap<ObjectId, String> = std::collections::HashMap::new();
    let refs = repo.references().ctx(|| "listing tags".into())?;
    let tags = refs.tags().ctx(|| "listing tags".into())?;
    for r in tags.flatten().take(100_000) {
        let name = r.name().shorten().to_str_lossy().into_owned();
        let version = name.strip_prefix('v').unwrap_or(&name);
        let parts: Vec<&str> = version.split('.').collect();
        if !(2..=3).contains(&parts.len())
            || !parts
                .iter()
                .all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()))
        {
            continue;
        }
        let mut r = r;
        let Ok(id) = r.peel_to_id() else { continue };
        let key = |v: &str| {
            v.split('.')
                .map(|p| p.parse::<u64>().unwrap_or(0))
                .collect::<Vec<_>>()
        };
        let slot = out.entry(id.detach()).or_insert_with(|| version.to_owned());
        if key(version) > key(slot) {
            *slot = version.to_owned();
        }
    }
    Ok(out)
}

fn default_branch_tip(repo: &gix::Repository) -> Result<Option<ObjectId>, StoreError> {
    if let Ok(Some(mut r)) = repo.try_find_reference("refs/remotes/origin/HEAD") {
        if let Ok(id) = r.peel_to_id() {
            return Ok(Some(id.detach()));
        }
    }
    match repo.head_id() {
        Ok(id) => Ok(Some(id.detach())),
        Err(_) => Ok(None), // an unborn branch has no commits to mine
    }
}
