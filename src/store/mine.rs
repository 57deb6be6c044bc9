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

/// The cache of whole objects the miner keeps: the trees a commit's diff
/// reads are read again by its parent's.
const MINE_OBJECT_CACHE_BYTES: usize = 32 << 20;

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
    /// The blobs' ids (hex).
    pub old_id: Option<String>,
    pub new_id: Option<String>,
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
    // the store's delta-base cache keeps their bases, and a cache of whole
    // objects the trees themselves (measured: see docs/PERFORMANCE.md).
    super::tune_caches(&mut repo);
    repo.object_cache_size_if_unset(MINE_OBJECT_CACHE_BYTES);
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
    // Each commit is read once: what the walk needs of it (its tree, first
    // parent, author time and message) is carried to the next step, where
    // it is the parent's side of the child's diff.
    let mut next = match tip {
        Some(id) => Some(read_commit(&repo, id)?),
        None => None,
    };
    // Walking newest first, a commit's old manifests are its parent's new
    // ones: their bytes are kept for one step and not read twice.
    let mut kept: Vec<(ObjectId, Vec<u8>)> = Vec::new();
    while let Some(this) = next.take() {
        if Some(this.id) == stop {
            break;
        }
        let parent = match this.parent {
            Some(p) => Some(read_commit(&repo, p)?),
            None => None,
        };
        let mut changed = Vec::new();
        if wants_paths(this.time_ms, &this.message) {
            diff_trees(
                &repo,
                parent.as_ref().map(|p| p.tree),
                Some(this.tree),
                String::new(),
                &mut changed,
            )?;
        }
        let mut blobs = Vec::new();
        let mut keep = Vec::new();
        for c in changed.iter().filter(|c| wants_blob(&c.path)) {
            let mut read = |b: Option<ObjectId>| -> Result<Option<Vec<u8>>, StoreError> {
                let Some(b) = b else { return Ok(None) };
                if let Some(at) = kept.iter().position(|(id, _)| *id == b) {
                    return Ok(Some(kept.swap_remove(at).1));
                }
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
            if let (Some(id), Some(bytes)) = (c.old, &old) {
                keep.push((id, bytes.clone()));
            }
            blobs.push(ChangedBlob {
                path: c.path.clone(),
                old,
                new,
                old_id: c.old.map(|id| id.to_string()),
                new_id: c.new.map(|id| id.to_string()),
            });
        }
        kept = keep;
        commits.push(RawCommit {
            sha: this.id.to_string(),
            time_ms: this.time_ms,
            message: this.message,
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

/// What the walk keeps of one commit.
struct Step {
    id: ObjectId,
    tree: ObjectId,
    parent: Option<ObjectId>,
    time_ms: i64,
    message: String,
}

fn read_commit(repo: &gix::Repository, id: ObjectId) -> Result<Step, StoreError> {
    let commit = repo
        .find_commit(id)
        .ctx(|| format!("reading commit {id}"))?;
    let decoded = commit.decode().ctx(|| format!("decoding commit {id}"))?;
    let parent = decoded.parents().next();
    Ok(Step {
        id,
        tree: decoded.tree(),
        parent,
        // The author time survives a rebase or an amend that keeps the
        // author; the content-addressed artifact id depends on it.
        time_ms: decoded.author().map(|a| a.seconds()).unwrap_or(0) * 1000,
        message: decoded.message.to_str_lossy().into_owned(),
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
