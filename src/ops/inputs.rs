//! Where ingest's artifacts come from: files, directories (every `*.json`
//! and `*.jsonl` below them, in path order), bytes read from stdin, or a
//! project's own commits. Unreadable sources become `invalid` items; they
//! never stop the others.

use std::path::{Path, PathBuf};

use super::{Lore, LoreError};
use crate::pipeline::{self, InputError, Item};
use crate::store::Index;

/// The most a single input (file or stdin) may hold.
pub const MAX_INPUT: usize = pipeline::input::MAX_INPUT_BYTES;

/// The items in one input's bytes (a JSON object, an array, or JSON Lines).
pub fn items_from_bytes(source: &str, bytes: &[u8]) -> Vec<Item> {
    pipeline::read_artifacts(source, bytes)
}

/// Reads at most [`MAX_INPUT`] bytes of a file, refusing a longer one. The
/// size is measured by reading, not from metadata, so a device or a FIFO
/// cannot make it read forever.
pub fn read_bounded(path: &Path) -> Result<Vec<u8>, InputError> {
    use std::io::Read;
    let file = std::fs::File::open(path).map_err(|e| InputError::Unreadable(e.into()))?;
    let mut bytes = Vec::new();
    file.take(MAX_INPUT as u64 + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| InputError::Unreadable(e.into()))?;
    if bytes.len() > MAX_INPUT {
        return Err(InputError::InputTooLarge { limit: MAX_INPUT });
    }
    Ok(bytes)
}

/// The items in a file, or in every `*.json` / `*.jsonl` file below a
/// directory (in path order), read as they are asked for: one file open at
/// a time, JSON Lines a line at a time ([`pipeline::input::ArtifactStream`]),
/// so memory does not grow with the number of artifacts. Unreadable paths
/// become `invalid` items.
pub fn stream_path(path: &Path) -> impl Iterator<Item = Item> {
    let mut files = Vec::new();
    let mut errors = Vec::new();
    collect_files(path, &mut files, &mut errors);
    errors.into_iter().chain(files.into_iter().flat_map(|f| {
        let source = f.display().to_string();
        let items: Box<dyn Iterator<Item = Item>> = match std::fs::File::open(&f) {
            Ok(file) => Box::new(pipeline::input::ArtifactStream::new(
                &source,
                std::io::BufReader::with_capacity(1 << 16, file),
            )),
            Err(e) => Box::new(std::iter::once(Item {
                source,
                artifact: Err(InputError::Unreadable(e.into())),
            })),
        };
        items
    }))
}

/// The items read from `reader` (stdin), streamed as [`stream_path`] does.
pub fn stream_reader<R: std::io::BufRead>(source: &str, reader: R) -> impl Iterator<Item = Item> {
    pipeline::input::ArtifactStream::new(source, reader)
}

fn unreadable(path: &Path, why: InputError) -> Item {
    Item {
        source: path.display().to_string(),
        artifact: Err(why),
    }
}

fn collect_files(path: &Path, files: &mut Vec<PathBuf>, errors: &mut Vec<Item>) {
    match std::fs::metadata(path) {
        Err(e) => errors.push(unreadable(path, InputError::Unreadable(e.into()))),
        Ok(m) if m.is_dir() => {
            let mut entries: Vec<PathBuf> = match std::fs::read_dir(path) {
                Ok(rd) => rd.filter_map(|e| e.ok().map(|e| e.path())).collect(),
                Err(e) => {
                    errors.push(unreadable(path, InputError::UnreadableDirectory(e.into())));
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

/// The artifacts of a project's default branch, mined from its commits
/// (see [`crate::store::mine`] and [`pipeline::commits`]).
pub fn items_from_commits(
    lore: &Lore,
    dir: &Path,
    since: Option<&str>,
) -> Result<Vec<Item>, LoreError> {
    // Paths are only worth a tree diff for commits whose artifact history
    // has not seen (the id depends on time and message alone).
    let index = Index::load(&lore.store)?;
    let mut wants_paths = |time_ms: i64, message: &str| {
        index
            .artifact(pipeline::commits::id_of(time_ms, message))
            .is_none()
    };
    // Each commit's diff and facts are independent of the others': both
    // run on every core (the result does not depend on how many).
    let threads = super::threads();
    let mined = crate::store::mine::mine(
        dir,
        since,
        &mut wants_paths,
        &pipeline::commits::is_mined_manifest,
        threads,
    )?;
    let key = crate::model::project_key(mined.origin_url.as_deref(), &mined.root);
    let repo = mined
        .origin_url
        .as_deref()
        .and_then(pipeline::commits::repo_slug);
    let facts_of = |part: Vec<crate::store::mine::RawCommit>| -> Vec<Item> {
        // A manifest a commit writes is the one its child reads: parsed
        // once within a part (oldest first).
        let mut manifests = pipeline::commits::ManifestCache::default();
        let mut items = Vec::new();
        for c in part {
            items.extend(commit_items(c, &key, &repo, &mut manifests));
        }
        items
    };
    let mut commits = mined.commits;
    if threads == 1 || commits.len() < 2 * PARALLEL_FACTS_FROM {
        return Ok(facts_of(commits));
    }
    // Consecutive parts, one per thread, so each keeps its cache's reuse.
    let size = commits.len().div_ceil(threads);
    let mut parts = Vec::with_capacity(threads);
    while commits.len() > size {
        let rest = commits.split_off(size);
        parts.push(std::mem::replace(&mut commits, rest));
    }
    parts.push(commits);
    let done: Vec<Vec<Item>> = std::thread::scope(|scope| {
        let handles: Vec<_> = parts
            .into_iter()
            .map(|part| scope.spawn(|| facts_of(part)))
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("a mining thread panicked"))
            .collect()
    });
    Ok(done.into_iter().flatten().collect())
}

/// Below twice this many commits, their facts are read on one thread.
const PARALLEL_FACTS_FROM: usize = 256;

/// The items of one mined commit: its artifact, or that history has seen
/// it, or why it could not be read.
fn commit_items(
    c: crate::store::mine::RawCommit,
    key: &str,
    repo: &Option<String>,
    manifests: &mut pipeline::commits::ManifestCache,
) -> Vec<Item> {
    let source = format!("commit {}", c.sha);
    // A commit whose paths were not wanted is one history has seen.
    let seen = !c.wanted;
    let mc = pipeline::MinedCommit {
        sha: c.sha,
        time_ms: c.time_ms,
        message: c.message,
        changed_paths: c.changed_paths,
        manifests: c
            .blobs
            .into_iter()
            .map(|b| pipeline::commits::ManifestFile {
                path: b.path,
                old: b.old,
                new: b.new,
                old_id: b.old_id,
                new_id: b.new_id,
            })
            .collect(),
        repo: repo.clone(),
        released_before: c.released_before,
        project_key: key.to_owned(),
    };
    // A commit history has seen is told as seen, without its diff.
    let made = if seen {
        pipeline::commits::seen_artifact(&mc).map(|a| a.into_iter().collect())
    } else {
        pipeline::commits::artifacts_from_commit_cached(&mc, manifests)
    };
    match made {
        Ok(list) => list
            .into_iter()
            .map(|a| Item {
                source: source.clone(),
                artifact: Ok(a),
            })
            .collect(),
        Err(e) => vec![Item {
            source,
            artifact: Err(e.into()),
        }],
    }
}
