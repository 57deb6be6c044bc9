//! `git lore init`: create the lesson repository, give it a signing key if it
//! has none, guard it against pushing private branches, and write the signed
//! `init` commit.

use std::os::unix::fs::DirBuilderExt;
use std::path::{Path, PathBuf};

use rand::rngs::StdRng;
use rand::RngCore;

use super::{signing_config, Env, Lore, LoreError};
use crate::event::Event;
use crate::signing::{self, Signer};
use crate::store::{Branch, CommitSpec, Identity, InitOutcome, Store};

/// The pre-push guard installed into every lesson repository.
pub const PRE_PUSH_HOOK: &str = include_str!("../../hooks/pre-push");

/// Where `init` keeps the dedicated signing key, relative to the git dir.
pub const KEY_PATH: &str = "keys/lore_ed25519";
/// Where `init` keeps the allowed-signers file, relative to the git dir.
pub const ALLOWED_SIGNERS_PATH: &str = "allowed_signers";
/// The author secret `author_key` is derived from, relative to the git dir.
pub const AUTHOR_SECRET_PATH: &str = "keys/author_secret";

/// Who commits are written by, as `init --name/--email` asked. What is not
/// given comes from the user's own git configuration, read once, else
/// `git-lore` / `git-lore@localhost`.
#[derive(Clone, Debug, Default)]
pub struct IdentityChoice {
    pub name: Option<String>,
    pub email: Option<String>,
}

/// What `init` did, for the CLI to report.
#[derive(Debug)]
pub struct InitReport {
    pub outcome: InitOutcome,
    pub git_dir: PathBuf,
    /// The key `init` created, if it created one.
    pub created_key: Option<PathBuf>,
}

/// The pre-push guard as installed: the hook script with the path of this
/// program as the fallback when `git-lore` is not on `PATH`.
pub fn pre_push_hook(exe: Option<&Path>) -> String {
    let path = exe
        .map(|p| p.display().to_string())
        .unwrap_or_else(|| "git-lore".into());
    // Single-quoted for the shell: a `'` ends the quote, is escaped, reopens.
    let quoted = format!("'{}'", path.replace('\'', "'\\''"));
    PRE_PUSH_HOOK.replace("@GIT_LORE@", &quoted)
}

/// Why a name or e-mail cannot be the identity.
#[derive(Debug, thiserror::Error)]
pub enum IdentityError {
    #[error("it is empty")]
    Empty,
    #[error("it holds a control character")]
    Control,
    #[error("it must be usable as an allowed-signers principal: no blanks, quotes or commas, not starting with # or !")]
    NotAPrincipal,
}

/// An identity refused, and the option that chooses another.
#[derive(Debug, thiserror::Error)]
#[error("{problem}; pass {option} to choose another")]
struct Refused {
    #[source]
    problem: IdentityError,
    option: &'static str,
}

/// Whether a name or e-mail can be the identity: one line of text, and for
/// the e-mail also a principal of an allowed-signers line.
fn check_identity(key: &str, value: &str) -> Result<(), IdentityError> {
    if value.trim().is_empty() {
        return Err(IdentityError::Empty);
    }
    if value.chars().any(char::is_control) {
        return Err(IdentityError::Control);
    }
    if key == "user.email"
        && (value
            .chars()
            .any(|c| c.is_whitespace() || c == '"' || c == ',')
            || value.starts_with(['#', '!']))
    {
        return Err(IdentityError::NotAPrincipal);
    }
    Ok(())
}

/// Makes the key paths init wrote absolute. An older git-lore wrote them as
/// given, so a repository created with a relative `--repo` looked for its
/// key relative to wherever a command ran.
fn repair_key_paths(store: &Store) -> Result<(), LoreError> {
    for (key, file) in [
        ("user.signingkey", KEY_PATH),
        ("gpg.ssh.allowedSignersFile", ALLOWED_SIGNERS_PATH),
    ] {
        let Some(value) = store.config_string(key) else {
            continue;
        };
        let ours = store.git_dir().join(file);
        if Path::new(&value).is_relative()
            && !value.starts_with('~')
            && value.ends_with(file)
            && ours.is_absolute()
            && ours.exists()
        {
            store.set_config(key, &ours.to_string_lossy())?;
        }
    }
    Ok(())
}

/// Writes the hooks git-lore installs into the repository, replacing older
/// versions of them; whether anything changed.
fn install_hooks(store: &Store, env: &Env) -> Result<bool, LoreError> {
    let text = pre_push_hook(env.exe.as_deref());
    let path = store.git_dir().join("hooks/pre-push");
    if std::fs::read_to_string(&path).ok().as_deref() == Some(text.as_str()) {
        return Ok(false);
    }
    store.write_private_file("hooks/pre-push", text.as_bytes(), 0o755, false)?;
    Ok(true)
}

/// Creates the lesson repository at `path` (see the module doc). On an
/// existing lesson repository it reports so and changes nothing. When
/// several inits race, the losers wait briefly for the winner's `init`
/// commit and report the repository as already there.
pub fn init(
    path: &Path,
    env: Env,
    rng: StdRng,
    who: &IdentityChoice,
) -> Result<(Lore, InitReport), LoreError> {
    match init_once(path, env.clone(), rng.clone(), who) {
        Ok(r) => Ok(r),
        Err(e) => {
            for _ in 0..50 {
                if let Ok(lore) = Lore::open(path, env.clone(), rng.clone()) {
                    let git_dir = lore.store.git_dir().to_owned();
                    return Ok((
                        lore,
                        InitReport {
                            outcome: InitOutcome::AlreadyInitialised,
                            git_dir,
                            created_key: None,
                        },
                    ));
                }
                std::thread::sleep(std::time::Duration::from_millis(40));
            }
            Err(e)
        }
    }
}

fn init_once(
    path: &Path,
    env: Env,
    mut rng: StdRng,
    who: &IdentityChoice,
) -> Result<(Lore, InitReport), LoreError> {
    let (mut store, outcome) = Store::create(path, env.host())?;
    if outcome == InitOutcome::AlreadyInitialised {
        return reopen(store, env, rng, who);
    }
    // Every step below is idempotent, so running init again finishes one
    // that was interrupted (the init commit is the last step).
    set_identity(&store, who)?;
    // The key's principal below is read from this config.
    store.reload()?;
    let created_key = ensure_signing_key(&store, &mut rng)?;
    // Anyone committing into this repository by hand signs too.
    store.set_config("commit.gpgSign", "true")?;
    // Every move of a branch is logged, so one that moves backwards can be
    // traced even after it was accepted.
    store.set_config("core.logAllRefUpdates", "always")?;
    store.reload()?;

    install_hooks(&store, &env)?;
    ensure_author_secret(&store, &mut rng)?;

    let signer = Some(Signer::from_config(&signing_config(&store, &env)?)?);
    let git_dir = store.git_dir().to_owned();
    let mut lore = Lore {
        store,
        signer,
        env,
        rng,
        wrote: false,
    };
    commit_init(&mut lore)?;
    Ok((
        lore,
        InitReport {
            outcome,
            git_dir,
            created_key,
        },
    ))
}

/// An existing lesson repository: refuses an identity other than its own,
/// and brings what init installs up to date, creating nothing.
fn reopen(
    store: Store,
    env: Env,
    rng: StdRng,
    who: &IdentityChoice,
) -> Result<(Lore, InitReport), LoreError> {
    // The identity is in the allowed-signers lines and in every pool's
    // signer list: it is never changed behind the user's back.
    let current = store.identity();
    for (asked, has, what) in [
        (&who.name, &current.name, "name"),
        (&who.email, &current.email, "email"),
    ] {
        if let Some(asked) = asked {
            if asked != has {
                return Err(LoreError::Input {
                    what: format!("--{what} {asked:?}"),
                    why: format!(
                        "the lesson repository already exists with {what} {has:?}, which init does not change"
                    ),
                });
            }
        }
    }
    // Nothing to create; bring what init installs up to date (a guard
    // from an older git-lore, a key path written relative, a reflog that
    // an older git-lore did not ask for).
    repair_key_paths(&store)?;
    install_hooks(&store, &env)?;
    if store.config_string("core.logAllRefUpdates").as_deref() != Some("always") {
        store.set_config("core.logAllRefUpdates", "always")?;
    }
    let git_dir = store.git_dir().to_owned();
    drop(store);
    let lore = Lore::open(&git_dir, env, rng)?;
    Ok((
        lore,
        InitReport {
            outcome: InitOutcome::AlreadyInitialised,
            git_dir,
            created_key: None,
        },
    ))
}

/// The identity: asked for, else the user's own (read this once; the
/// lesson repository reads only its own config from now on), else a
/// placeholder. A principal in a pool's signer list is then a person.
fn set_identity(store: &Store, who: &IdentityChoice) -> Result<(), LoreError> {
    for (key, asked, fallback) in [
        ("user.name", &who.name, Identity::PLACEHOLDER_NAME),
        ("user.email", &who.email, Identity::PLACEHOLDER_EMAIL),
    ] {
        if store.config_string(key).is_none() {
            let (value, from) = match asked {
                Some(v) => (
                    v.clone(),
                    if key == "user.name" {
                        "--name"
                    } else {
                        "--email"
                    },
                ),
                None => match store.user_git_config(key) {
                    Some(v) => (v, key),
                    None => (fallback.to_owned(), key),
                },
            };
            if let Err(problem) = check_identity(key, &value) {
                let option = if key == "user.name" {
                    "--name"
                } else {
                    "--email"
                };
                return Err(LoreError::invalid(
                    format!("{from} {value:?}"),
                    Refused { problem, option },
                ));
            }
            store.set_config(key, &value)?;
        }
    }
    Ok(())
}

/// The signing key and the allowed-signers file naming it, unless one is
/// configured already: the path of a key created now, if one was.
fn ensure_signing_key(store: &Store, rng: &mut StdRng) -> Result<Option<PathBuf>, LoreError> {
    if store.config_string("user.signingkey").is_some() {
        return Ok(None);
    }
    let mut created_key = None;
    let key_path = store.git_dir().join(KEY_PATH);
    let allowed = store.git_dir().join(ALLOWED_SIGNERS_PATH);
    let email = store.identity().email;
    let public = if key_path.exists() {
        signing::read_public_key(&key_path)?
    } else {
        let keys_dir = store.git_dir().join("keys");
        std::fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(&keys_dir)
            .map_err(|source| LoreError::File {
                what: "cannot create",
                path: keys_dir.clone(),
                source,
            })?;
        let key = signing::generate_ed25519(rng)?;
        signing::write_key_pair(&key, &key_path, &email)?;
        created_key = Some(key_path.clone());
        key.public_key().clone()
    };
    if !allowed.exists() {
        let line = signing::allowed_signers_line(&email, &public)?;
        store.write_private_file(
            ALLOWED_SIGNERS_PATH,
            format!("{line}\n").as_bytes(),
            0o644,
            false,
        )?;
    }
    store.set_config("gpg.format", "ssh")?;
    store.set_config("user.signingkey", &key_path.to_string_lossy())?;
    store.set_config("gpg.ssh.allowedSignersFile", &allowed.to_string_lossy())?;
    Ok(created_key)
}

/// The secret author keys are derived from, made once and never replaced.
fn ensure_author_secret(store: &Store, rng: &mut StdRng) -> Result<(), LoreError> {
    if store.git_dir().join(AUTHOR_SECRET_PATH).exists() {
        return Ok(());
    }
    let mut secret = [0u8; 32];
    rng.fill_bytes(&mut secret);
    let text = format!("{}\n", hex::encode(secret));
    match store.write_private_file(AUTHOR_SECRET_PATH, text.as_bytes(), 0o600, true) {
        Ok(_) => Ok(()),
        // Created meanwhile by a concurrent init: never regenerate it.
        Err(crate::store::StoreError::Io { source, .. })
            if source.kind() == std::io::ErrorKind::AlreadyExists =>
        {
            Ok(())
        }
        Err(e) => Err(e.into()),
    }
}

/// The ledger's first commit, the last step of init.
fn commit_init(lore: &mut Lore) -> Result<(), LoreError> {
    lore.transact(Branch::Ledger, |tx| {
        if tx.base().is_some() {
            // A concurrent init won; its commit is as good as ours.
            return Ok(());
        }
        let spec = CommitSpec::new(
            "init: lesson repository",
            Some("Created by git-lore. The ledger holds proposals, their lifecycle and\ndeclines; pools hold promoted lessons."),
            Event::Init,
            Vec::new(),
        )?;
        tx.commit(spec)?;
        Ok(())
    })?;
    Ok(())
}
