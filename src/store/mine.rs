//! Reading a project's own repository for `git lore ingest --from-commits`:
//! the commits of its default branch, each with its message, time and the
//! paths it changed, plus the facts the project key is derived from.
//!
//! Read-only: nothing in the project repository is written.

use std::path::{Path, PathBuf};

use gix::bstr::ByteSlice;
use gix::ObjectId;

use super::history::changed_paths;
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
    /// Whether the caller wanted its paths (`wants_paths`): false for a
    /// commit it has already seen, whose paths and blobs are then empty.
    pub wanted: bool,
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

/// How many commits a worker of [`mine`] takes at a time: small enough
/// that the cores share a history evenly, large enough that a parent's
/// manifest bytes are almost always its child's (reused within a run).
const COMMITS_PER_RUN: usize = 256;

/// Walks the default branch of the repository at `dir` (its
/// `refs/remotes/origin/HEAD` target if set, else `HEAD`), first parent
/// only, oldest first, stopping before `since` when given.
///
/// `wants_paths(time_ms, message)` says whether a commit's changed paths are
/// needed; a commit whose artifacts history has already seen needs none, and
/// diffing it would be wasted work. `wants_blob(path)` says which changed
/// paths' bytes to read (at most [`MAX_BLOB_BYTES`] each; a larger one is
/// left out).
///
/// The commits are read first, one after another (each names its parent);
/// their tree diffs and blobs, independent of each other, are then read by
/// `threads` workers, each with its own repository handle, taking runs of
/// [`COMMITS_PER_RUN`] consecutive commits in turn. The result does not
/// depend on `threads`.
pub fn mine(
    dir: &Path,
    since: Option<&str>,
    wants_paths: &mut dyn FnMut(i64, &str) -> bool,
    wants_blob: &(dyn Fn(&str) -> bool + Sync),
    threads: usize,
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
    // The first parents, newest first, each read once; a step's parent
    // tree is the next step's tree (or the tree of the commit the walk
    // stopped at).
    let mut steps: Vec<Step> = Vec::new();
    let mut next = match tip {
        Some(id) => Some(read_commit(&repo, id)?),
        None => None,
    };
    while let Some(mut this) = next.take() {
        if Some(this.id) == stop {
            break;
        }
        this.wanted = wants_paths(this.time_ms, &this.message);
        next = match this.parent {
            Some(p) => Some(read_commit(&repo, p)?),
            None => None,
        };
        this.parent_tree = next.as_ref().map(|p| p.tree);
        steps.push(this);
    }
    let runs: Vec<&[Step]> = steps.chunks(COMMITS_PER_RUN).collect();
    let mut done: Vec<Option<Vec<RawCommit>>> = Vec::new();
    done.resize_with(runs.len(), || None);
    let threads = threads.clamp(1, runs.len().max(1));
    if threads == 1 {
        for (slot, run) in done.iter_mut().zip(&runs) {
            *slot = Some(diff_run(&repo, run, wants_blob)?);
        }
    } else {
        let shared = repo.clone().into_sync();
        let taken = std::sync::atomic::AtomicUsize::new(0);
        let results: Vec<Vec<NumberedRun>> = std::thread::scope(|scope| {
            let handles: Vec<_> = (0..threads)
                .map(|_| {
                    let (shared, taken, runs) = (&shared, &taken, &runs);
                    scope.spawn(move || {
                        let mut repo = shared.to_thread_local();
                        super::tune_caches_shared(&mut repo, threads);
                        repo.object_cache_size_if_unset(MINE_OBJECT_CACHE_BYTES / threads);
                        let mut mine = Vec::new();
                        loop {
                            let at = taken.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                            let Some(run) = runs.get(at) else { break };
                            match diff_run(&repo, run, wants_blob) {
                                Ok(done) => mine.push((at, Ok(done))),
                                Err(e) => {
                                    // The others take no new run.
                                    taken.store(runs.len(), std::sync::atomic::Ordering::Relaxed);
                                    mine.push((at, Err(e)));
                                    break;
                                }
                            }
                        }
                        mine
                    })
                })
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().expect("a mining thread panicked"))
                .collect()
        });
        // Which error is said does not depend on the threads: the first
        // failing run's, as one thread taking them in order would say (a
        // run before it was taken before it, so it ran).
        let mut failed: Option<(usize, StoreError)> = None;
        for (at, run) in results.into_iter().flatten() {
            match run {
                Ok(run) => done[at] = Some(run),
                Err(e) if failed.as_ref().is_none_or(|(f, _)| at < *f) => failed = Some((at, e)),
                Err(_) => {}
            }
        }
        if let Some((_, e)) = failed {
            return Err(e);
        }
    }
    let mut commits: Vec<RawCommit> = done.into_iter().flatten().flatten().collect();
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

/// A run's place in the walk and its commits, or why they could not be
/// read.
type NumberedRun = (usize, Result<Vec<RawCommit>, StoreError>);

/// The changed paths and wanted blobs of a run of consecutive commits,
/// newest first. Walking newest first, a commit's old manifests are its
/// parent's new ones: their bytes are kept for one step and not read twice.
fn diff_run(
    repo: &gix::Repository,
    run: &[Step],
    wants_blob: &(dyn Fn(&str) -> bool + Sync),
) -> Result<Vec<RawCommit>, StoreError> {
    let mut out = Vec::with_capacity(run.len());
    let mut kept: Vec<(ObjectId, Vec<u8>)> = Vec::new();
    for this in run {
        let changed = if this.wanted {
            changed_paths(repo, this.parent_tree, Some(this.tree))?
        } else {
            Vec::new()
        };
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
        out.push(RawCommit {
            sha: this.id.to_string(),
            time_ms: this.time_ms,
            message: this.message.clone(),
            wanted: this.wanted,
            changed_paths: changed.into_iter().map(|c| c.path).collect(),
            blobs,
            released_before: None,
        });
    }
    Ok(out)
}

/// What the walk keeps of one commit.
struct Step {
    id: ObjectId,
    tree: ObjectId,
    parent: Option<ObjectId>,
    time_ms: i64,
    message: String,
    /// The first parent's tree, when the walk reads the parent.
    parent_tree: Option<ObjectId>,
    /// Whether the caller wants its changed paths.
    wanted: bool,
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
        parent_tree: None,
        wanted: false,
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

#[cfg(test)]
mod tests {
    use super::*;
    use std::fmt::Write as _;
    use std::process::{Command, Stdio};

    /// A project whose `commits` commits each change `package.json`, and
    /// every third a file in a nested directory, written by `git
    /// fast-import`.
    fn project(dir: &Path, commits: usize) {
        let git = |args: &[&str]| {
            let mut c = Command::new("git");
            c.args(args)
                .current_dir(dir)
                .env("GIT_CONFIG_NOSYSTEM", "1")
                .env("GIT_CONFIG_GLOBAL", dir.join("no-config"))
                .env("HOME", dir);
            c
        };
        assert!(git(&["init", "-q", "-b", "main"])
            .status()
            .unwrap()
            .success());
        let mut stream = String::new();
        let data = |s: &mut String, text: &str| {
            writeln!(s, "data {}\n{text}", text.len()).unwrap();
        };
        for n in 1..=commits {
            let time = 1_700_000_000 + n * 60;
            writeln!(stream, "commit refs/heads/main\nmark :{n}").unwrap();
            writeln!(stream, "author A <a@example.org> {time} +0000").unwrap();
            writeln!(stream, "committer A <a@example.org> {time} +0000").unwrap();
            data(&mut stream, &format!("change {n}\n\nbecause of #{n}\n"));
            if n > 1 {
                writeln!(stream, "from :{}", n - 1).unwrap();
            }
            writeln!(stream, "M 100644 inline package.json").unwrap();
            let manifest = format!(
                "{{\"name\":\"p\",\"dependencies\":{{\"esbuild\":\"^0.{}.0\"}}}}\n",
                n % 5
            );
            data(&mut stream, &manifest);
            if n % 3 == 0 {
                writeln!(stream, "M 100644 inline src/deep/{}.txt", n % 7).unwrap();
                data(&mut stream, &format!("{n}\n"));
            }
            stream.push('\n');
        }
        let mut child = git(&["fast-import", "--quiet"])
            .stdin(Stdio::piped())
            .spawn()
            .unwrap();
        {
            use std::io::Write as _;
            let mut stdin = child.stdin.take().unwrap();
            stdin.write_all(stream.as_bytes()).unwrap();
        }
        assert!(child.wait().unwrap().success());
    }

    #[test]
    fn mining_on_several_threads_reads_what_one_thread_reads() {
        let tmp = tempfile::tempdir().unwrap();
        // More commits than one run, not a multiple of it.
        project(tmp.path(), 2 * COMMITS_PER_RUN + 77);
        let run = |threads: usize| {
            let mut wants = |time_ms: i64, _: &str| (time_ms / 60_000) % 7 != 0;
            let mined = mine(
                tmp.path(),
                None,
                &mut wants,
                &|p: &str| p.ends_with("package.json"),
                threads,
            )
            .unwrap();
            format!("{:?}", mined.commits)
        };
        let one = run(1);
        assert_eq!(one, run(3));
        assert_eq!(one, run(2));
        // And what was read is the history: every commit, oldest first,
        // each with its manifest's bytes on both sides (but the first).
        let mut wants = |_: i64, _: &str| true;
        let mined = mine(
            tmp.path(),
            None,
            &mut wants,
            &|p: &str| p == "package.json",
            2,
        )
        .unwrap();
        assert_eq!(mined.commits.len(), 2 * COMMITS_PER_RUN + 77);
        assert!(mined.commits[0].message.starts_with("change 1\n"));
        assert!(mined.commits[0].blobs[0].old.is_none());
        let c = &mined.commits[299];
        assert!(c.message.starts_with("change 300\n"), "{}", c.message);
        assert_eq!(c.changed_paths, ["package.json", "src/deep/6.txt"]);
        assert_eq!(
            c.blobs[0].old.as_deref(),
            Some(&b"{\"name\":\"p\",\"dependencies\":{\"esbuild\":\"^0.4.0\"}}\n"[..])
        );
        assert_eq!(
            c.blobs[0].new.as_deref(),
            Some(&b"{\"name\":\"p\",\"dependencies\":{\"esbuild\":\"^0.0.0\"}}\n"[..])
        );
    }
}
