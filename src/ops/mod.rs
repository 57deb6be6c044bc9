//! The library's use cases: each public function here is one thing a user
//! can ask git-lore to do (initialise, ingest, confirm, judge, verify, …),
//! composed from the store, signing, the pipeline and review logic.
//!
//! This layer owns orchestration and the classification of failures into
//! refusals and outages ([`LoreError::class`]). It never prints and never
//! reads the environment, the clock or randomness: everything arrives in
//! [`Env`] and the caller's random generator.

pub(crate) mod admit;
pub mod audit;
pub mod backend;
pub mod capture;
pub mod claim;
pub mod confirm;
pub mod edit;
pub mod guard;
pub mod host;
pub mod ingest;
pub mod init;
pub mod inputs;
pub mod judge;
mod ledger;
pub mod mcp_config;
pub mod progress;
pub mod promote;
pub mod propose;
pub mod publish;
pub mod query;
pub mod recall;
pub mod rejudge;
pub mod relate;
pub mod remote;
pub mod retract;
pub mod rubrics;
pub mod search;
pub mod setup;
pub mod signers;
pub mod sync;
pub mod trust;

use std::path::{Path, PathBuf};
use std::time::Duration;

use rand::rngs::StdRng;

use crate::model::{Id, Source};
use crate::review::ReviewError;
use crate::signing::{self, Format, Signer, SigningConfig, SigningError};
use crate::store::{Host, RetryPolicy, Store, StoreError, WriteContext};

pub use backend::Outage;

pub use init::init;

/// What the host process hands the library: the time, where home is, how to
/// run child programs. The CLI builds it once from the real environment.
#[derive(Clone, Debug)]
pub struct Env {
    /// "Now", for records and commit dates.
    pub now: jiff::Timestamp,
    /// The user's home directory, for `~` in configured paths.
    pub home: Option<PathBuf>,
    /// The environment of child programs (git, signing programs, models).
    pub child_env: Vec<(String, String)>,
    /// The `git` program.
    pub git_program: String,
    /// Deadline for one run of an external signing program.
    pub sign_timeout: Duration,
    /// How hard writers try against concurrent writers.
    pub retry: RetryPolicy,
    /// This program, for the hooks `init` installs to find it when it is
    /// not on `PATH`.
    pub exe: Option<PathBuf>,
}

impl Env {
    /// An environment with the given time and child environment, `git` from
    /// `PATH`, a 10 s signing deadline and the default retry policy.
    pub fn new(
        now: jiff::Timestamp,
        home: Option<PathBuf>,
        child_env: Vec<(String, String)>,
    ) -> Env {
        Env {
            now,
            home,
            child_env,
            git_program: "git".into(),
            sign_timeout: Duration::from_secs(10),
            retry: RetryPolicy::default(),
            exe: None,
        }
    }

    /// How the store runs `git`.
    pub fn host(&self) -> Host {
        Host {
            git_program: self.git_program.clone(),
            git_env: self.child_env.clone(),
        }
    }
}

/// How a failure is reported at the edge: exit 1 or exit 2.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Class {
    /// Usage, bad input or state error: nothing was written for it (exit 1).
    Refused,
    /// An outage left something undetermined; safe to retry (exit 2).
    Undetermined,
}

/// An error kept as the cause of another, whatever library it comes from:
/// its message, its type (for `downcast_ref`) and its own causes.
pub type Cause = Box<dyn std::error::Error + Send + Sync + 'static>;

/// Everything an operation can fail with. A variant built from another
/// error keeps it as its `source()`, so the chain reaches the root cause
/// (an `std::io::Error` and its kind); [`LoreError::class`] reads the chain,
/// `cli::main` prints it ([`with_causes`]).
#[derive(Debug, thiserror::Error)]
pub enum LoreError {
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error(transparent)]
    Signing(#[from] SigningError),
    #[error(transparent)]
    Trailer(#[from] crate::trailers::TrailerError),
    /// A review step refused.
    #[error(transparent)]
    Review(#[from] ReviewError),
    /// The pre-push guard could not decide.
    #[error(transparent)]
    Guard(#[from] guard::GuardError),
    /// A model gave no answer; nothing was written, retrying is safe.
    #[error(transparent)]
    Outage(#[from] Outage),
    /// A search that cannot run.
    #[error(transparent)]
    Search(#[from] search::SearchError),
    /// No lesson has this id.
    #[error("lesson {id} not found")]
    NotFound { id: Id },
    /// An artifact's id where a lesson's was needed.
    #[error("{id} is an artifact, not a lesson; {}", match became { Some(l) => format!("it became lesson {l}: use that id"), None => format!("it was declined (`git lore seen {id}` says why; `git lore ingest --redo {id}` asks again)") })]
    NotALesson { id: Id, became: Option<Id> },
    /// No lesson or artifact id starts with this prefix.
    #[error("no lesson or artifact id starts with {prefix}: `git lore list --all` shows every lesson id")]
    NoSuchId { prefix: String },
    /// More than one id starts with this prefix.
    #[error("{prefix} is ambiguous: {count} ids start with it: {}{}; give enough characters to name one", candidates.join(", "), if *count > candidates.len() { format!(" and {} more", count - candidates.len()) } else { String::new() })]
    AmbiguousId {
        prefix: String,
        count: usize,
        candidates: Vec<String>,
    },
    /// A new lesson drew the id of an existing one: nothing is overwritten.
    #[error(
        "lesson id {id} is already in use (the random source repeated itself); nothing was written"
    )]
    IdTaken { id: Id },
    /// A configuration value that cannot be used: `why` says why.
    #[error("{key} {why}")]
    Config { key: String, why: String },
    /// A configuration value that cannot be used, as the error kept says.
    #[error("{key} {source}")]
    ConfigInvalid {
        key: String,
        #[source]
        source: Cause,
    },
    /// Input that cannot be used: `what` names it, `why` says why.
    #[error("{what}: {why}")]
    Input { what: String, why: String },
    /// Input that cannot be used because reading, parsing or checking it
    /// failed: `what` names it, the error kept says why.
    #[error("{what}: {source}")]
    Invalid {
        what: String,
        #[source]
        source: Cause,
    },
    /// A batch stopped because the lesson index could not be written after
    /// a chunk: what was written is kept, and the rest is untouched.
    #[error("stopped: the lesson index could not be written ({source}), and every later chunk would walk the whole history again. What was written is kept: make room on the disk or mend {}, then run the same command again (what is already in is skipped)", dir.display())]
    IndexUnwritten {
        dir: PathBuf,
        #[source]
        source: StoreError,
    },
    /// A file git-lore needs could not be read or written.
    #[error("{what} {path}: {source}")]
    File {
        what: &'static str,
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// The human-side validator refused a confirmed candidate.
    #[error("candidate of lesson {id} does not validate; not confirmed: {why}")]
    NotConfirmable {
        id: Id,
        #[source]
        why: crate::pipeline::Invalid,
    },
    /// A commit on the branch a command would build on does not verify.
    #[error("refusing to build on {branch}: commit {commit} does not verify ({problem}){}; nothing was written. `git lore verify` lists every problem; to drop the commit, move {branch} back to its last good commit and accept that with `git lore index --accept-rewrite`", if *more > 0 { format!(", and {more} more problems") } else { String::new() })]
    Untrusted {
        branch: crate::store::Branch,
        commit: String,
        problem: String,
        more: usize,
    },
    /// The branch moved backwards since it was last verified.
    #[error("{branch} moved from {} to {}, {dropped} commits dropped; nothing was written. If that was intended, accept it with `git lore index --accept-rewrite`", short(from), to.as_ref().map(short).unwrap_or_else(|| "nothing (it was deleted)".into()))]
    Rewritten {
        branch: crate::store::Branch,
        from: gix::ObjectId,
        to: Option<gix::ObjectId>,
        dropped: usize,
    },
    /// The pool entry promote would write is not valid.
    #[error("lesson {id}: the pool entry would not be valid; nothing written: {why}")]
    BadPoolEntry { id: Id, why: String },
    /// A pool entry that does not read as a lesson; `said` comes before the
    /// parse error (or is empty).
    #[error("lesson {id}: the pool entry would not be valid; nothing written: {said}{source}")]
    UnreadableEntry {
        id: Id,
        said: &'static str,
        #[source]
        source: serde_json::Error,
    },
    /// A remote pool's tip does not descend from the last one verified.
    #[error("the remote pool/{tier} at {url} moved back from {} to {}, {dropped} commits dropped; nothing was integrated. If its owners rewrote it on purpose, accept it with `git lore sync {tier} --accept-rollback`", short(from), short(to))]
    RemoteRolledBack {
        tier: Source,
        url: String,
        from: gix::ObjectId,
        to: gix::ObjectId,
        dropped: usize,
    },
    /// A remote pool starts with a commit by a key nobody pinned.
    #[error("the remote pool/{tier} at {url} was started by key {fingerprint}, which is not pinned for {tier}; nothing was integrated. Check that fingerprint with the pool's owner, then pin it: `git lore sync {tier} --pin {fingerprint}` (or `git lore remote add {tier} URL --signer OWNER.pub`)")]
    UnknownRoot {
        tier: Source,
        url: String,
        fingerprint: String,
    },
    /// The remote refused a push (its pre-receive hook, a protected branch).
    #[error("{url} refused the push; nothing there changed: {lines}")]
    PushRefused { url: String, lines: String },
    /// Pools need someone allowed to sign them.
    #[error(
        "promote needs gpg.ssh.allowedSignersFile naming the keys allowed to sign the pools; \
         nothing written (git lore init sets it up for the key it creates)"
    )]
    NoPoolSigners,
}

impl LoreError {
    /// [`LoreError::Invalid`]: `what` cannot be used, as `source` says.
    pub fn invalid(what: impl Into<String>, source: impl Into<Cause>) -> LoreError {
        LoreError::Invalid {
            what: what.into(),
            source: source.into(),
        }
    }

    /// Refusal or outage. Running out of space, or a read-only repository,
    /// is an outage too: nothing was written, and it is safe to retry once
    /// the disk has room.
    pub fn class(&self) -> Class {
        match self {
            LoreError::Outage(_) | LoreError::IdTaken { .. } | LoreError::IndexUnwritten { .. } => {
                Class::Undetermined
            }
            LoreError::Store(
                StoreError::Contended { .. } | StoreError::Moved { .. } | StoreError::Remote { .. },
            ) => Class::Undetermined,
            // Another process holds a lock (the index's): retry.
            LoreError::Store(StoreError::Io { source, .. })
                if source.kind() == std::io::ErrorKind::WouldBlock =>
            {
                Class::Undetermined
            }
            e if out_of_room(e) => Class::Undetermined,
            _ => Class::Refused,
        }
    }
}

/// An error's message followed by each cause it does not already say, so
/// the operating system's reason ("No space left on device") is never lost
/// behind a library's summary of it.
pub fn with_causes(e: &dyn std::error::Error) -> String {
    let mut text = e.to_string();
    let mut cause = e.source();
    while let Some(c) = cause {
        let said = c.to_string();
        if !text.contains(&said) {
            text.push_str(": ");
            text.push_str(&said);
        }
        cause = c.source();
    }
    text
}

/// The first 12 hex digits of a commit id, as messages show it.
pub(crate) fn short(id: &gix::ObjectId) -> String {
    id.to_string()[..12].to_owned()
}

/// Whether an error was caused by a full disk, an exceeded quota or a
/// read-only file system, anywhere in its chain of causes: an operating
/// system error is found by its kind or its number, never by its message.
/// An `io::Error` that wraps another error (a temporary file's path error)
/// keeps the kind of the error it wraps, and is looked into as well.
fn out_of_room(e: &(dyn std::error::Error + 'static)) -> bool {
    use rustix::io::Errno;
    use std::io::ErrorKind;
    const CODES: [i32; 3] = [
        Errno::NOSPC.raw_os_error(),
        Errno::DQUOT.raw_os_error(),
        Errno::ROFS.raw_os_error(),
    ];
    const KINDS: [ErrorKind; 3] = [
        ErrorKind::StorageFull,
        ErrorKind::QuotaExceeded,
        ErrorKind::ReadOnlyFilesystem,
    ];
    let full = |io: &std::io::Error| {
        KINDS.contains(&io.kind()) || io.raw_os_error().is_some_and(|c| CODES.contains(&c))
    };
    causes(e).any(|err| match err.downcast_ref::<std::io::Error>() {
        Some(io) => full(io) || io.get_ref().is_some_and(|inner| out_of_room(inner)),
        None => false,
    })
}

/// `e` and each of its causes, outermost first.
pub(crate) fn causes<'a>(
    e: &'a (dyn std::error::Error + 'static),
) -> impl Iterator<Item = &'a (dyn std::error::Error + 'static)> {
    std::iter::successors(Some(e), |err| err.source())
}

/// An open lesson repository with its signer: the handle every operation
/// works through.
pub struct Lore {
    pub(crate) store: Store,
    /// Built on the first write, so read-only commands never need a key.
    signer: Option<Signer>,
    pub(crate) env: Env,
    rng: StdRng,
    /// Whether this handle published any commit.
    wrote: bool,
}

/// How many threads work that splits across cores may use: every core,
/// at most 8 (mining, reading facts, checking a range, determining a
/// chunk offline; none of their results depends on the number).
pub(crate) fn threads() -> usize {
    std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1)
        .clamp(1, 8)
}

/// When a handle that wrote is dropped — at the end of a command, after all
/// of its transactions — the repository is packed in the background if
/// loose objects piled up. Not per transaction: a batch's own in-flight
/// objects would look unreachable to `git gc` and stay loose.
impl Drop for Lore {
    fn drop(&mut self) {
        if self.wrote {
            self.store.maybe_repack();
        }
    }
}

impl std::fmt::Debug for Lore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Lore").field("store", &self.store).finish()
    }
}

/// Expands `~/` with `home` and makes a path absolute against `base`.
pub(crate) fn expand_path(p: &str, home: Option<&Path>, base: &Path) -> PathBuf {
    let expanded = match (p.strip_prefix("~/"), home) {
        (Some(rest), Some(h)) => h.join(rest),
        _ => PathBuf::from(p),
    };
    if expanded.is_absolute() {
        expanded
    } else {
        base.join(expanded)
    }
}

/// The allowed signers in force for the ledger: the repository's own
/// `gpg.ssh.allowedSignersFile`.
pub(crate) fn ledger_allowed_signers(
    store: &Store,
    env: &Env,
) -> Result<signing::AllowedSigners, LoreError> {
    let Some(p) = store.config_string("gpg.ssh.allowedSignersFile") else {
        return Ok(signing::AllowedSigners::default());
    };
    let path = expand_path(&p, env.home.as_deref(), store.git_dir());
    let text = std::fs::read_to_string(&path).map_err(|source| LoreError::File {
        what: "cannot read gpg.ssh.allowedSignersFile",
        path: path.clone(),
        source,
    })?;
    // Pool signers copied in for `git verify-commit` sign pools, not the
    // ledger.
    Ok(signing::AllowedSigners::parse(&signers::own_part(&text))?)
}

/// The signing configuration git would use for this repository.
pub(crate) fn signing_config(store: &Store, env: &Env) -> Result<SigningConfig, LoreError> {
    let format = Format::from_git_config(store.config_string("gpg.format").as_deref())?;
    let ident = store.identity();
    let mut cfg = SigningConfig::new(
        format,
        format!("{} <{}>", ident.name, ident.email),
        store.git_dir(),
    );
    cfg.signing_key = store.config_string("user.signingkey");
    cfg.gpg_program = store
        .config_string("gpg.openpgp.program")
        .or_else(|| store.config_string("gpg.program"));
    cfg.gpg_x509_program = store.config_string("gpg.x509.program");
    cfg.gpg_ssh_program = store.config_string("gpg.ssh.program");
    cfg.home = env.home.clone();
    cfg.child_env = env.child_env.clone();
    cfg.timeout = env.sign_timeout;
    Ok(cfg)
}

impl Lore {
    /// A setting of the lesson repository's own config (`core.pager`, …).
    pub fn config(&self, key: &str) -> Option<String> {
        self.store.config_string(key)
    }

    /// Who this repository's commits are written by.
    pub fn identity(&self) -> crate::store::Identity {
        self.store.identity()
    }

    /// Opens the lesson repository at `path`. The signer is prepared on the
    /// first write, which fails before anything is written if no usable
    /// signing key is configured.
    pub fn open(path: &Path, env: Env, rng: StdRng) -> Result<Lore, LoreError> {
        let store = Store::open(path, env.host())?;
        let signer = None;
        Ok(Lore {
            store,
            signer,
            env,
            rng,
            wrote: false,
        })
    }

    /// The allowed signers in force for the ledger (`gpg.ssh.allowedSignersFile`).
    pub fn ledger_allowed_signers(&self) -> Result<signing::AllowedSigners, LoreError> {
        ledger_allowed_signers(&self.store, &self.env)
    }

    /// Reads the signing configuration on the first write, not at open:
    /// reading commands never need a key.
    fn load_signer(&mut self) -> Result<(), LoreError> {
        if self.signer.is_none() {
            self.signer = Some(Signer::from_config(&signing_config(
                &self.store,
                &self.env,
            )?)?);
        }
        Ok(())
    }

    /// Runs one transaction on `branch` with this repository's signer.
    pub fn transact<T>(
        &mut self,
        branch: crate::store::Branch,
        f: impl FnMut(&mut crate::store::Tx<'_>) -> Result<T, LoreError>,
    ) -> Result<crate::store::tx::Committed<T>, LoreError> {
        self.load_signer()?;
        let signer = self.signer.as_ref().expect("just loaded");
        let (store, env) = (&self.store, &self.env);
        let mut check = |base| trust::ensure(store, env, branch, base);
        let write = WriteContext {
            signer,
            now: env.now,
            rng: &mut self.rng,
            policy: env.retry,
            check: &mut check,
        };
        let r = store.transact(branch, write, f)?;
        if let Some(&head) = r.commits.last() {
            // What this command wrote is as verified as what it built on.
            store.advance_anchor(branch, r.base, head, env.now)?;
            self.wrote = true;
        }
        Ok(r)
    }

    /// Runs one transaction that builds on `onto` instead of `branch`'s
    /// tip and then moves the branch there from `from`, the tip the caller
    /// decided on (anywhere else: [`crate::store::StoreError::Moved`],
    /// nothing written): `onto` must have been verified by the caller (a
    /// remote pool `sync` adopts). The branch's anchor is reset to the new
    /// tip: its history was replaced on purpose.
    pub(crate) fn transact_onto<T>(
        &mut self,
        branch: crate::store::Branch,
        from: Option<gix::ObjectId>,
        onto: gix::ObjectId,
        f: impl FnMut(&mut crate::store::Tx<'_>) -> Result<T, LoreError>,
    ) -> Result<crate::store::tx::Committed<T>, LoreError> {
        self.load_signer()?;
        let signer = self.signer.as_ref().expect("just loaded");
        let (store, env) = (&self.store, &self.env);
        let mut check = |base| trust::ensure(store, env, branch, base);
        let write = WriteContext {
            signer,
            now: env.now,
            rng: &mut self.rng,
            policy: env.retry,
            check: &mut check,
        };
        let r = store.transact_onto(branch, from, onto, write, f)?;
        let head = r.commits.last().copied().unwrap_or(onto);
        store.reset_anchor(branch, head, env.now)?;
        self.wrote = true;
        Ok(r)
    }

    /// Builds commits on `parent` with this repository's signer, moving no
    /// ref (a review branch for a pull request).
    pub(crate) fn build_detached<T>(
        &mut self,
        branch: crate::store::Branch,
        parent: gix::ObjectId,
        f: impl FnOnce(&mut crate::store::Tx<'_>) -> Result<T, LoreError>,
    ) -> Result<(T, Vec<gix::ObjectId>), LoreError> {
        self.load_signer()?;
        let signer = self.signer.as_ref().expect("just loaded");
        let r = self
            .store
            .build_detached(branch, parent, signer, self.env.now, f)?;
        self.wrote = true;
        Ok(r)
    }

    /// The random generator the caller handed in.
    pub fn rng(&mut self) -> &mut StdRng {
        &mut self.rng
    }
}

/// `s` as one single-quoted shell word, for the commands git-lore writes
/// into hooks and prints for people to run.
pub fn shell_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', "'\\''"))
}

#[cfg(test)]
mod tests {
    use super::{out_of_room, with_causes, Class, LoreError};
    use crate::pipeline::InputError;
    use crate::store::StoreError;
    use std::error::Error as _;
    use std::io;

    /// The io error at the bottom of `e`'s causes, if any.
    fn root_io<'a>(e: &'a (dyn std::error::Error + 'static)) -> Option<&'a io::Error> {
        super::causes(e).find_map(|c| c.downcast_ref::<io::Error>())
    }

    #[test]
    fn a_wrapped_io_error_is_the_source_not_a_copy_of_its_words() {
        let e = LoreError::File {
            what: "cannot read",
            path: "/x/config".into(),
            source: io::Error::from_raw_os_error(13),
        };
        let source = e.source().and_then(|s| s.downcast_ref::<io::Error>());
        assert_eq!(
            source.map(io::Error::kind),
            Some(io::ErrorKind::PermissionDenied)
        );
        assert_eq!(e.class(), Class::Refused);

        // Through a store error, shared in a cloned input error, boxed as a
        // cause: the chain still ends at the io error with its number.
        let store = LoreError::from(StoreError::Io {
            context: "writing the index".into(),
            source: io::Error::from_raw_os_error(28),
        });
        assert_eq!(root_io(&store).and_then(io::Error::raw_os_error), Some(28));
        assert_eq!(store.class(), Class::Undetermined);
        let unreadable = InputError::Unreadable(io::Error::from_raw_os_error(28).into());
        let e = LoreError::invalid("artifacts.jsonl", unreadable.clone());
        assert_eq!(root_io(&e).and_then(io::Error::raw_os_error), Some(28));
        assert_eq!(e.class(), Class::Undetermined, "a full disk is an outage");
        // Each cause is said once: the message already holds the io error's.
        let said = with_causes(&e);
        assert_eq!(said.matches("No space left on device").count(), 1, "{said}");
        assert_eq!(said, format!("artifacts.jsonl: {unreadable}"));
    }

    #[test]
    fn an_unjudged_panel_keeps_what_the_judge_program_failed_with() {
        use crate::cause::AnyCause;
        use crate::review::UnjudgedReason;
        let why = super::Outage::EmptyOutput;
        let r = UnjudgedReason::NoAnswer {
            judge_type: "generality".into(),
            why: AnyCause::any(why),
        };
        assert_eq!(
            r.to_string(),
            format!("judge generality: {}", super::Outage::EmptyOutput)
        );
        let kept = crate::ops::causes(&r).find_map(|c| c.downcast_ref::<super::Outage>());
        assert!(matches!(kept, Some(super::Outage::EmptyOutput)), "{kept:?}");
        let not_json = crate::review::parse_panel("{").unwrap_err();
        let parse =
            crate::ops::causes(&not_json).find_map(|c| c.downcast_ref::<serde_json::Error>());
        assert!(parse.is_some_and(serde_json::Error::is_eof), "{not_json:?}");
    }

    #[test]
    fn a_full_disk_a_quota_and_a_read_only_file_system_are_out_of_room() {
        use std::io::{Error, ErrorKind};
        for code in [28, 122, 30] {
            assert!(out_of_room(&Error::from_raw_os_error(code)), "{code}");
            // A wrapper that keeps the kind but not the number (a temporary
            // file's path error), found by its kind and by what it wraps.
            let kind = Error::from_raw_os_error(code).kind();
            assert!(
                out_of_room(&Error::new(kind, "writing x")),
                "{code} by kind"
            );
            let wrapped = Error::other(Error::from_raw_os_error(code));
            assert!(out_of_room(&wrapped), "{code} inside another io error");
            // Never by the message: a model's or a remote's text could say it.
            let said = Error::other(format!("writing x: (os error {code})"));
            assert!(!out_of_room(&said), "{code} only in a message");
        }
        assert!(
            !out_of_room(&Error::from_raw_os_error(13)),
            "permission denied"
        );
        assert!(!out_of_room(&Error::new(ErrorKind::PermissionDenied, "x")));
    }
}
