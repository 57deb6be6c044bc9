//! The lesson repository: the only code in git-lore that touches git.
//!
//! A bare repository holds the ledger (`refs/heads/ledger`, HEAD) and the
//! pools (`refs/heads/pool/{local,org,public}`). Records are canonical JSON
//! files at fan-out paths (see [`layout`]). Every change is one signed commit
//! with `Lore-*` trailers, written off to the side and published by moving the
//! branch with compare-and-swap (see [`tx`]). What happened to an artifact or a
//! lesson is answered from a derived cache of history (see [`index`]).
//!
//! This module reads and writes git objects and refs through gix, and runs the
//! `git` program only for what gix cannot do (config edits at init, repacking,
//! push and fetch). It does not decide lifecycle rules, sign (it calls a
//! [`CommitSigner`]), print, or read the process environment: the caller passes
//! everything in through [`Host`].

pub mod anchor;
pub mod history;
pub mod index;
pub mod layout;
mod midx;
pub mod mine;
pub mod pack;
pub mod remote;
mod repack;
pub mod trees;
pub mod tx;

use std::fs;
use std::io::Write;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use gix::bstr::ByteSlice;
use gix::ObjectId;

use crate::signing::SigningError;

pub use history::{ChangedPath, CommitInfo, Introduced, ObjectKind};
pub use index::{ArtifactOutcome, DocKey, Found, Index, LessonEntry};
pub use layout::Branch;
pub use tx::{Change, CommitSpec, RetryPolicy, Tx, WriteContext};

/// Everything that can go wrong in the store.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// The path holds no git repository.
    #[error("no lesson repository at {path}: run `git lore init` first")]
    NotARepository { path: PathBuf },
    /// The path holds something that is not a lesson repository.
    #[error("{path} exists and is not a git-lore repository (no refs/heads/ledger)")]
    NotALoreRepository { path: PathBuf },
    /// A git operation failed.
    #[error("{context}: {source}")]
    Git {
        context: String,
        #[source]
        source: gix::Error,
    },
    /// A file-system operation failed.
    #[error("{context}: {source}")]
    Io {
        context: String,
        #[source]
        source: std::io::Error,
    },
    /// A record path that is not one of ours (traversal, odd characters).
    #[error("refusing record path {0:?}: paths are relative, '/'-separated, and made of [A-Za-z0-9._-] components")]
    BadPath(String),
    /// Signing a commit failed; nothing was written.
    #[error("could not sign the commit; nothing was written: {0}")]
    Sign(#[source] SigningError),
    /// A commit message could not be formed.
    #[error(transparent)]
    Trailer(#[from] crate::trailers::TrailerError),
    /// The branch kept moving under us.
    #[error("{branch} kept changing under concurrent writers; gave up after {attempts} attempts (nothing of this change was published; retry)")]
    Contended { branch: String, attempts: u32 },
    /// The branch is no longer at the tip a replacement of its history was
    /// decided on ([`Store::transact_onto`]).
    #[error("{branch} moved while this change was being decided; nothing of it was written; run the command again")]
    Moved { branch: String },
    /// A `git` subprocess failed; `message` is what it said.
    #[error("`git {args}` failed: {message}")]
    GitProgram { args: String, message: String },
    /// A `git` subprocess could not be run to the end (not started, timed
    /// out, its pipes broke).
    #[error("`git {args}` failed: {source}")]
    RunGit {
        args: String,
        #[source]
        source: crate::process::ProcessError,
    },
    /// The `git` program could not be started.
    #[error("`git {args}` failed: could not run {program}: {source}")]
    SpawnGit {
        args: String,
        program: String,
        #[source]
        source: std::io::Error,
    },
    /// A remote could not be reached, or the transfer failed.
    #[error("talking to {url} failed: {message}")]
    Remote { url: String, message: String },
    /// A record in the tree does not parse as what it should be; `then`
    /// says what was not done because of it (or is empty).
    #[error("record {path} on {branch} is corrupt: {source}{then}")]
    Unparsable {
        branch: String,
        path: String,
        #[source]
        source: serde_json::Error,
        then: &'static str,
    },
}

pub(crate) trait GixContext<T> {
    fn ctx(self, context: impl FnOnce() -> String) -> Result<T, StoreError>;
}

impl<T, E: Into<gix::Error>> GixContext<T> for Result<T, E> {
    fn ctx(self, context: impl FnOnce() -> String) -> Result<T, StoreError> {
        self.map_err(|e| StoreError::Git {
            context: context(),
            source: e.into(),
        })
    }
}

pub(crate) fn io_ctx<T>(
    r: std::io::Result<T>,
    context: impl FnOnce() -> String,
) -> Result<T, StoreError> {
    r.map_err(|source| StoreError::Io {
        context: context(),
        source,
    })
}

/// Produces the armored signature for a commit payload. Implemented by
/// [`crate::signing::Signer`]; the store never signs by itself.
pub trait CommitSigner {
    /// The signature to place in the commit's `gpgsig` header.
    fn sign_commit(&self, payload: &[u8]) -> Result<String, SigningError>;
}

impl CommitSigner for crate::signing::Signer {
    fn sign_commit(&self, payload: &[u8]) -> Result<String, SigningError> {
        self.sign(payload)
    }
}

/// What the store needs from the host process: how to run `git` and who is
/// writing. The CLI builds it from the environment; tests build it by hand.
#[derive(Clone, Debug)]
pub struct Host {
    /// The `git` program to run for config edits, repacking, push and fetch.
    pub git_program: String,
    /// The complete environment of `git` subprocesses.
    pub git_env: Vec<(String, String)>,
}

/// The identity commits are written as (`user.name`, `user.email`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Identity {
    pub name: String,
    pub email: String,
}

impl Identity {
    /// The name commits are written with when neither `init --name` nor
    /// the user's git configuration gave one.
    pub const PLACEHOLDER_NAME: &'static str = "git-lore";
    /// The e-mail (and allowed-signers principal) used when neither `init
    /// --email` nor the user's git configuration gave one: the same for
    /// everyone without an identity.
    pub const PLACEHOLDER_EMAIL: &'static str = "git-lore@localhost";
}

/// Memory for the delta bases kept per repository handle. Almost every
/// object of a pool is stored as a delta (each lesson against another
/// lesson, each tree against an earlier version, in chains up to 50 long).
/// gix's default keeps the last 64 bases, which history read commit by
/// commit (in an order unrelated to the pack's) mostly misses, so each
/// object inflated its chain again: verifying 10,000 incoming commits spent
/// about a quarter of its time there. A 64 MB map of bases halves that.
/// There is no cache of whole objects on top: measured, copying every
/// object read into it cost more (in the allocator) than its hits saved.
/// `core.deltaBaseCacheLimit` in the repository's config overrides it.
const PACK_CACHE_BYTES: usize = 64 << 20;

/// The delta-base cache every opened repository (and every handle on it)
/// gets.
fn tune_caches(repo: &mut gix::Repository) {
    tune_caches_shared(repo, 1);
}

/// [`tune_caches`] for one of `share` threads reading at once: each gets
/// its share of the pack cache, so together they hold what one would.
fn tune_caches_shared(repo: &mut gix::Repository, share: usize) {
    if repo
        .config_snapshot()
        .integer("core.deltaBaseCacheLimit")
        .is_none()
    {
        repo.objects.set_pack_cache(move || {
            Box::new(gix::odb::pack::cache::lru::MemoryCappedHashmap::new(
                PACK_CACHE_BYTES / share.max(1),
            ))
        });
    }
}

/// How many pack indices the object store of a batch can hold at once
/// ([`Store::for_batch`]). gix sizes its table of packs when the repository
/// is opened, and it never grows; a batch writes a pack per transaction
/// ([`pack`]) into a store that is already open, and concurrent writers
/// add theirs, so the table must hold what a long batch adds before the
/// background repack merges them (a 1,000,000-record batch in transactions
/// of 256 writes about 3,900).
const BATCH_PACK_SLOTS: u16 = 8192;

/// The table every other command opens with: twice the packs on disk, and
/// at least this many. A table of 8,192 costs about 0.9 ms to set up and
/// 0.7 ms to tear down, a sixth of a one-record command's budget; 512
/// cost a sixteenth of that and leave room for the packs concurrent
/// writers add while the command runs (a batch adds one per 256 records).
const MIN_PACK_SLOTS: usize = 512;

/// Opening options: never the user's or the system's configuration; the
/// table of packs sized for a batch or for everything else.
fn open_options(batch: bool) -> gix::open::Options {
    use gix::odb::store::init::Slots;
    let slots = if batch {
        Slots::Given(BATCH_PACK_SLOTS)
    } else {
        Slots::AsNeededByDiskState {
            multiplier: 2.0,
            minimum: MIN_PACK_SLOTS,
        }
    };
    gix::open::Options::isolated().object_store_slots(slots)
}

/// An open lesson repository.
pub struct Store {
    repo: gix::Repository,
    git_dir: PathBuf,
    host: Host,
    /// Opened with the table of packs a batch needs ([`Store::for_batch`]).
    batch: bool,
    /// The object directory that makes a push's quarantined objects
    /// readable ([`Store::open_receiving`]); kept for as long as the store.
    _shim: Option<std::sync::Arc<tempfile::TempDir>>,
    /// The trees of the last commit this process published, kept for the
    /// next transaction on the same branch ([`tx::Warm`]).
    warm: std::sync::Mutex<Option<tx::Warm>>,
    /// How many bytes of those trees to keep ([`tx::WARM_MAX`]; smaller in
    /// a test).
    warm_max: usize,
}

impl std::fmt::Debug for Store {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Store")
            .field("git_dir", &self.git_dir)
            .finish()
    }
}

/// What `init` found or did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum InitOutcome {
    /// A new repository was created.
    Created,
    /// A lesson repository was already there; nothing changed.
    AlreadyInitialised,
}

impl Store {
    /// Opens an existing lesson repository.
    pub fn open(path: &Path, host: Host) -> Result<Store, StoreError> {
        if !path.join("HEAD").is_file() || !path.join("objects").is_dir() {
            return Err(StoreError::NotARepository {
                path: path.to_owned(),
            });
        }
        let store = Store::open_raw(path, host, false)?;
        if store.tip(Branch::Ledger)?.is_none() {
            return Err(StoreError::NotALoreRepository {
                path: path.to_owned(),
            });
        }
        Ok(store)
    }

    /// Creates an empty bare repository at `path` with `HEAD` pointing at the
    /// (not yet existing) ledger. The caller configures signing and then writes
    /// the `init` commit through [`Store::transact`]. Refuses a non-empty path
    /// that is not a lesson repository; reports an existing one.
    pub fn create(path: &Path, host: Host) -> Result<(Store, InitOutcome), StoreError> {
        if path.join("HEAD").is_file() {
            return match Store::open(path, host.clone()) {
                Ok(s) => Ok((s, InitOutcome::AlreadyInitialised)),
                Err(StoreError::NotALoreRepository { .. }) => {
                    // HEAD already names the ledger but no init commit landed:
                    // an earlier init was interrupted. Finish it rather than
                    // refuse; anything else is not ours to touch.
                    let head = fs::read(path.join("HEAD")).unwrap_or_default();
                    if head.trim_ascii() != b"ref: refs/heads/ledger" {
                        return Err(StoreError::NotALoreRepository {
                            path: path.to_owned(),
                        });
                    }
                    Ok((Store::open_raw(path, host, false)?, InitOutcome::Created))
                }
                Err(e) => Err(e),
            };
        }
        if path.exists()
            && fs::read_dir(path)
                .map(|mut d| d.next().is_some())
                .unwrap_or(true)
        {
            return Err(StoreError::NotALoreRepository {
                path: path.to_owned(),
            });
        }
        io_ctx(fs::create_dir_all(path), || {
            format!("creating {}", path.display())
        })?;
        let repo = gix::init_bare(path).ctx(|| format!("initialising {}", path.display()))?;
        io_ctx(
            fs::write(path.join("HEAD"), b"ref: refs/heads/ledger\n"),
            || "pointing HEAD at the ledger".into(),
        )?;
        Ok((
            Store::open_raw(repo.git_dir(), host, false)?,
            InitOutcome::Created,
        ))
    }

    /// Opens the repository at `path` with no questions asked of it, never
    /// reading the user's or the system's git configuration; `batch` sizes
    /// the table of packs for a batch ([`Store::for_batch`]).
    pub(crate) fn open_raw(path: &Path, host: Host, batch: bool) -> Result<Store, StoreError> {
        let mut repo = gix::open_opts(path, open_options(batch))
            .ctx(|| format!("opening {}", path.display()))?;
        tune_caches(&mut repo);
        Ok(Store {
            git_dir: repo.git_dir().to_owned(),
            repo,
            host,
            batch,
            _shim: None,
            warm: Default::default(),
            warm_max: tx::WARM_MAX,
        })
    }

    /// Makes room for the packs a batch writes, one per transaction: opens
    /// the repository again with a table of [`BATCH_PACK_SLOTS`]. A command
    /// that may run many transactions of more than [`pack::LOOSE_MAX`]
    /// objects (ingest) calls this first; without it, reading back from
    /// the packs beyond the table fails ("too few index slots"). Every
    /// other command keeps the small table, which costs a tenth.
    pub fn for_batch(&mut self) -> Result<(), StoreError> {
        if !self.batch && self._shim.is_none() {
            *self = Store::open_raw(&self.git_dir, self.host.clone(), true)?;
        }
        Ok(())
    }

    /// Opens a repository that is receiving a push, from its pre-receive
    /// hook: the pushed objects wait in `quarantine` (git's
    /// `GIT_QUARANTINE_PATH`) until the hook accepts them, and gix reads
    /// only the repository's own objects. So the store reads through a
    /// temporary object directory whose alternates are the quarantine and
    /// the repository's objects. Nothing may be written through it: git
    /// forbids ref updates during quarantine, and objects written here
    /// would vanish.
    pub fn open_receiving(
        path: &Path,
        host: Host,
        quarantine: Option<&Path>,
    ) -> Result<Store, StoreError> {
        let Some(quarantine) = quarantine else {
            return Store::open_raw(path, host, false);
        };
        let mut ts = gix::ThreadSafeRepository::open_opts(path, open_options(false))
            .ctx(|| format!("opening {}", path.display()))?;
        let shim = io_ctx(
            tempfile::Builder::new().prefix("git-lore-odb-").tempdir(),
            || "creating a temporary object directory".into(),
        )?;
        io_ctx(fs::create_dir_all(shim.path().join("info")), || {
            "creating a temporary object directory".into()
        })?;
        let absolute = |p: &Path| std::path::absolute(p).unwrap_or_else(|_| p.to_owned());
        let objects = absolute(ts.objects.path());
        let mut alternates = String::new();
        for dir in [absolute(quarantine), objects.clone()] {
            let text = dir.to_string_lossy();
            if text.contains('\n') {
                return Err(StoreError::BadPath(text.into_owned()));
            }
            alternates.push_str(&text);
            alternates.push('\n');
        }
        io_ctx(
            fs::write(shim.path().join("info/alternates"), alternates),
            || "writing the temporary object directory".into(),
        )?;
        // The host's commit-graph, where gix looks for it (the object
        // directory's `info/`): without it every walk of the check (the
        // merge base, the walk to the new commits) decodes the pool's whole
        // history, 20 s of a 1,000-commit push into 1,000,000 lessons.
        // The host wrote it; the pushed commits, in none of it, are read
        // from their objects.
        for name in ["commit-graph", "commit-graphs"] {
            let real = objects.join("info").join(name);
            if real.exists() {
                io_ctx(
                    std::os::unix::fs::symlink(&real, shim.path().join("info").join(name)),
                    || "linking the commit-graph into the temporary object directory".into(),
                )?;
            }
        }
        let hash = ts.to_thread_local().object_hash();
        let odb = gix::odb::Store::at_opts(
            shim.path().to_owned(),
            hash,
            &mut std::iter::empty(),
            gix::odb::store::init::Options::default(),
        )
        .map_err(|e| StoreError::Io {
            context: "opening the pushed objects".into(),
            source: e,
        })?;
        ts.objects = odb.into();
        let mut repo = ts.to_thread_local();
        tune_caches(&mut repo);
        Ok(Store {
            git_dir: repo.git_dir().to_owned(),
            repo,
            host,
            batch: false,
            _shim: Some(std::sync::Arc::new(shim)),
            warm: Default::default(),
            warm_max: tx::WARM_MAX,
        })
    }

    /// Another handle on the same repository, for another thread (a gix
    /// A clone of the repository with the caches the store sets: a clone
    /// of a gix repository gets the caches its configuration asks for, not
    /// the ones set on the original.
    pub(crate) fn tuned_repo(&self) -> gix::Repository {
        let mut repo = self.repo.clone();
        tune_caches(&mut repo);
        repo
    }

    /// repository is not shared between threads; its object store is).
    pub fn handle(&self) -> Store {
        Store {
            repo: self.tuned_repo(),
            git_dir: self.git_dir.clone(),
            host: self.host.clone(),
            batch: self.batch,
            _shim: self._shim.clone(),
            warm: Default::default(),
            warm_max: self.warm_max,
        }
    }

    /// The repository's git directory.
    pub fn git_dir(&self) -> &Path {
        &self.git_dir
    }

    /// Directory for git-lore's own files inside the git dir (index cache).
    pub fn lore_dir(&self) -> PathBuf {
        self.git_dir.join("lore")
    }

    pub(crate) fn repo(&self) -> &gix::Repository {
        &self.repo
    }

    /// Re-reads the repository's configuration after it was edited.
    pub fn reload(&mut self) -> Result<(), StoreError> {
        *self = Store::open_raw(&self.git_dir, self.host.clone(), self.batch)?;
        Ok(())
    }

    /// A string value from the repository's own config (`section.key` or
    /// `section.subsection.key`), with git's case rules.
    pub fn config_string(&self, key: &str) -> Option<String> {
        self.repo
            .config_snapshot()
            .string(key)
            .map(|v| v.to_str_lossy().into_owned())
    }

    /// Sets a value in the repository's own config file through `git config`.
    pub fn set_config(&self, key: &str, value: &str) -> Result<(), StoreError> {
        let file = self.git_dir.join("config");
        self.run_git(&[
            "config".as_ref(),
            "--file".as_ref(),
            file.as_os_str(),
            key.as_ref(),
            value.as_ref(),
        ])?;
        Ok(())
    }

    /// The identity commits are written as, from the repository's config.
    pub fn identity(&self) -> Identity {
        Identity {
            name: self
                .config_string("user.name")
                .unwrap_or_else(|| Identity::PLACEHOLDER_NAME.into()),
            email: self
                .config_string("user.email")
                .unwrap_or_else(|| Identity::PLACEHOLDER_EMAIL.into()),
        }
    }

    /// Runs `git` with `args` against this repository.
    pub fn run_git(&self, args: &[&std::ffi::OsStr]) -> Result<Vec<u8>, StoreError> {
        run_git_in(&self.host, &self.git_dir, args)
    }

    /// A value of the user's own git configuration (system, global and
    /// this repository's, as `git config --get` reads them), for the one
    /// moment `init` adopts the user's identity. Every other read goes to
    /// this repository's config alone ([`Store::config_string`]).
    pub fn user_git_config(&self, key: &str) -> Option<String> {
        let out = self
            .run_git(&["config".as_ref(), "--get".as_ref(), key.as_ref()])
            .ok()?;
        let value = String::from_utf8_lossy(&out).trim().to_owned();
        (!value.is_empty()).then_some(value)
    }

    /// The editor git would start to edit a commit message here, as `git
    /// var GIT_EDITOR` says: `GIT_EDITOR`, `core.editor`, `VISUAL`,
    /// `EDITOR`, else git's default (refused on a dumb terminal), from the
    /// environment the caller handed in.
    pub fn editor(&self) -> Result<String, StoreError> {
        let out = self.run_git(&["var".as_ref(), "GIT_EDITOR".as_ref()])?;
        Ok(String::from_utf8_lossy(&out).trim().to_owned())
    }

    /// The commit a branch points at, if the branch exists.
    pub fn tip(&self, branch: Branch) -> Result<Option<ObjectId>, StoreError> {
        self.ref_tip(&branch.ref_name())
    }

    /// Every lore branch that exists, ledger first, with its tip.
    pub fn lore_refs(&self) -> Result<Vec<(Branch, ObjectId)>, StoreError> {
        let mut out = Vec::new();
        for b in Branch::ALL {
            if let Some(tip) = self.tip(*b)? {
                out.push((*b, tip));
            }
        }
        Ok(out)
    }

    /// The commit a full ref name points at.
    pub fn ref_tip(&self, name: &str) -> Result<Option<ObjectId>, StoreError> {
        let r = self
            .repo
            .try_find_reference(name)
            .ctx(|| format!("reading {name}"))?;
        Ok(r.and_then(|r| r.target().try_id().map(|id| id.to_owned())))
    }

    /// The blob at `path` on `branch`'s tip, if any.
    pub fn read(&self, branch: Branch, path: &str) -> Result<Option<Vec<u8>>, StoreError> {
        match self.tip(branch)? {
            Some(tip) => self.read_at(tip, path),
            None => Ok(None),
        }
    }

    /// The blob at `path` in commit `commit`'s tree, if any.
    pub fn read_at(&self, commit: ObjectId, path: &str) -> Result<Option<Vec<u8>>, StoreError> {
        let tree = self.tree_of(commit)?;
        self.read_in_tree(tree, path)
    }

    pub(crate) fn read_in_tree(
        &self,
        tree: ObjectId,
        path: &str,
    ) -> Result<Option<Vec<u8>>, StoreError> {
        match self.blob_id_in_tree(tree, path)? {
            Some(id) => {
                let blob = self.repo.find_blob(id).ctx(|| format!("reading {path}"))?;
                Ok(Some(blob.data.clone()))
            }
            None => Ok(None),
        }
    }

    /// The id of the file at `path` in `tree`, if there is a file there:
    /// exactly the blob [`Store::read_in_tree`] would read, without reading
    /// it (what a cache of parsed files is keyed by).
    pub(crate) fn blob_id_in_tree(
        &self,
        tree: ObjectId,
        path: &str,
    ) -> Result<Option<ObjectId>, StoreError> {
        let tree = self
            .repo
            .find_tree(tree)
            .ctx(|| format!("reading tree {tree}"))?;
        let entry = tree
            .lookup_entry(path.split('/'))
            .ctx(|| format!("looking up {path}"))?;
        Ok(match entry {
            Some(e) if e.mode().is_blob() => Some(e.object_id()),
            _ => None,
        })
    }

    /// Every blob under `dir` (e.g. `proposals`) on `branch`'s tip, as
    /// `(path, contents)` in path order. Fan-out directories are walked.
    pub fn list(&self, branch: Branch, dir: &str) -> Result<Vec<(String, Vec<u8>)>, StoreError> {
        let Some(tip) = self.tip(branch)? else {
            return Ok(Vec::new());
        };
        self.list_at(tip, dir)
    }

    /// Every blob under `dir` in `tip`'s tree, as `(path, contents)` in
    /// path order (what [`Store::list`] reads at a branch's tip).
    pub fn list_at(&self, tip: ObjectId, dir: &str) -> Result<Vec<(String, Vec<u8>)>, StoreError> {
        self.paths_at(tip, dir)?
            .into_iter()
            .map(|(path, id)| {
                let blob = self.repo.find_blob(id).ctx(|| format!("reading {path}"))?;
                Ok((path, blob.data.clone()))
            })
            .collect()
    }

    /// Every blob under `dir` in `tip`'s tree, as `(path, blob id)` in path
    /// order, without reading the blobs: for callers that need only what
    /// is there.
    pub fn paths_at(
        &self,
        tip: ObjectId,
        dir: &str,
    ) -> Result<Vec<(String, ObjectId)>, StoreError> {
        let tree = self.tree_of(tip)?;
        let mut out = Vec::new();
        let root = self
            .repo
            .find_tree(tree)
            .ctx(|| format!("reading tree {tree}"))?;
        let Some(entry) = root
            .lookup_entry(dir.split('/'))
            .ctx(|| format!("looking up {dir}"))?
        else {
            return Ok(out);
        };
        if !entry.mode().is_tree() {
            return Ok(out);
        }
        self.collect_paths(entry.object_id(), dir.to_owned(), &mut out)?;
        out.sort_by(|a, b| a.0.cmp(&b.0));
        Ok(out)
    }

    fn collect_paths(
        &self,
        tree: ObjectId,
        prefix: String,
        out: &mut Vec<(String, ObjectId)>,
    ) -> Result<(), StoreError> {
        for (name, oid, is_tree) in history::tree_entries(&self.repo, Some(tree))? {
            let path = format!("{prefix}/{name}");
            if is_tree {
                self.collect_paths(oid, path, out)?;
            } else {
                out.push((path, oid));
            }
        }
        Ok(())
    }

    /// Writes a file under the git dir atomically with the given mode,
    /// refusing to overwrite an existing one when `create_new`.
    pub fn write_private_file(
        &self,
        rel: &str,
        bytes: &[u8],
        mode: u32,
        create_new: bool,
    ) -> Result<PathBuf, StoreError> {
        let path = self.git_dir.join(rel);
        if let Some(parent) = path.parent() {
            io_ctx(fs::create_dir_all(parent), || {
                format!("creating {}", parent.display())
            })?;
        }
        // Written whole to a temporary file beside it first, so no reader
        // ever sees a partial file; then linked into place (refusing an
        // existing file) or renamed over it.
        let dir = path.parent().expect("a file under the git dir");
        let mut tmp = io_ctx(
            tempfile::Builder::new()
                .prefix(".lore-tmp-")
                .permissions(fs::Permissions::from_mode(mode))
                .tempfile_in(dir),
            || format!("creating a file in {}", dir.display()),
        )?;
        io_ctx(tmp.write_all(bytes), || {
            format!("writing {}", path.display())
        })?;
        io_ctx(tmp.as_file().sync_all(), || {
            format!("writing {}", path.display())
        })?;
        if create_new {
            io_ctx(fs::hard_link(tmp.path(), &path), || {
                format!("creating {}", path.display())
            })?;
        } else {
            io_ctx(tmp.persist(&path).map_err(|e| e.error), || {
                format!("replacing {}", path.display())
            })?;
        }
        Ok(path)
    }
}

/// Runs `git --git-dir DIR args…` with the host's environment.
pub(crate) fn run_git_in(
    host: &Host,
    git_dir: &Path,
    args: &[&std::ffi::OsStr],
) -> Result<Vec<u8>, StoreError> {
    let out = std::process::Command::new(&host.git_program)
        .arg("--git-dir")
        .arg(git_dir)
        .args(args)
        .env_clear()
        .envs(host.git_env.iter().map(|(k, v)| (k, v)))
        .stdin(std::process::Stdio::null())
        .output()
        .map_err(|source| StoreError::SpawnGit {
            args: describe_args(args),
            program: host.git_program.clone(),
            source,
        })?;
    if !out.status.success() {
        return Err(StoreError::GitProgram {
            args: describe_args(args),
            message: String::from_utf8_lossy(&out.stderr).trim().to_owned(),
        });
    }
    Ok(out.stdout)
}

fn describe_args(args: &[&std::ffi::OsStr]) -> String {
    args.iter()
        .map(|a| a.to_string_lossy())
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn slots(store: &Store) -> usize {
        let m = store.repo.objects.store_ref().metrics();
        m.unused_slots + m.known_reachable_indices + m.unreachable_indices
    }

    /// A store over a push's quarantined objects reads the host's
    /// commit-graph (split or not), and the pushed objects too.
    #[test]
    fn a_receiving_store_reads_the_hosts_commit_graph() {
        let dir = tempfile::tempdir().unwrap();
        let host = tx::tests::host();
        let env: Vec<(String, String)> = [
            ("PATH", std::env::var("PATH").unwrap_or_default()),
            ("GIT_CONFIG_NOSYSTEM", "1".into()),
            ("GIT_CONFIG_GLOBAL", "/dev/null".into()),
            ("GIT_AUTHOR_NAME", "T".into()),
            ("GIT_AUTHOR_EMAIL", "t@example.com".into()),
            ("GIT_COMMITTER_NAME", "T".into()),
            ("GIT_COMMITTER_EMAIL", "t@example.com".into()),
        ]
        .map(|(k, v)| (k.to_owned(), v))
        .to_vec();
        let git = |args: &[&str]| {
            tx::tests::git(dir.path(), &env, args, b"")
                .trim()
                .to_owned()
        };
        let repo = gix::init_bare(dir.path()).unwrap();
        let tree = repo.empty_tree().id;
        let quarantine = dir.path().join("objects/tmp_objdir-incoming-x");
        fs::create_dir_all(&quarantine).unwrap();
        // The pushed object, in the quarantine only.
        let mut pushing = env.clone();
        pushing.push((
            "GIT_OBJECT_DIRECTORY".into(),
            quarantine.display().to_string(),
        ));
        let pushed = tx::tests::git(
            dir.path(),
            &pushing,
            &["hash-object", "-w", "--stdin"],
            b"pushed",
        );
        let pushed = gix::ObjectId::from_hex(pushed.trim().as_bytes()).unwrap();
        assert!(!gix::open(dir.path()).unwrap().has_object(pushed));
        for (split, graph) in [(false, "commit-graph"), (true, "commit-graphs")] {
            let c = git(&["commit-tree", "-m", graph, &tree.to_string()]);
            git(&["update-ref", &format!("refs/heads/{graph}"), &c]);
            let mut args = vec!["commit-graph", "write", "--reachable"];
            if split {
                args.push("--split");
            }
            git(&args);
            assert!(dir.path().join("objects/info").join(graph).exists());
            // Split, git leaves only the chain.
            assert_eq!(
                dir.path().join("objects/info/commit-graph").exists(),
                !split
            );
            let store = Store::open_receiving(dir.path(), host.clone(), Some(&quarantine)).unwrap();
            let g = store.repo.commit_graph().expect("the host's commit-graph");
            assert!(g
                .lookup(gix::ObjectId::from_hex(c.as_bytes()).unwrap())
                .is_some());
            assert!(store.repo.has_object(pushed));
        }
    }

    /// A one-record command opens a small table of packs (a large one is
    /// most of its time); a batch widens it before it writes a pack per
    /// transaction, and keeps reading what is there.
    #[test]
    fn the_table_of_packs_is_small_unless_a_batch_asks() {
        let dir = tempfile::tempdir().unwrap();
        let host = tx::tests::host();
        let repo = gix::init_bare(dir.path()).unwrap();
        let blob = repo.write_blob(b"kept").unwrap().detach();
        let mut store = Store::open_raw(dir.path(), host, false).unwrap();
        let small = slots(&store);
        assert!(
            (MIN_PACK_SLOTS..2 * MIN_PACK_SLOTS).contains(&small),
            "{small} slots"
        );
        store.for_batch().unwrap();
        assert_eq!(slots(&store), BATCH_PACK_SLOTS as usize);
        assert!(store.repo.has_object(blob));
        // A reload keeps the batch's table.
        store.reload().unwrap();
        assert_eq!(slots(&store), BATCH_PACK_SLOTS as usize);
    }
}
