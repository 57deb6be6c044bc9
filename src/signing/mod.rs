//! Signing commits and verifying their signatures, the way git 2.47 does it.
//!
//! This module owns:
//! - [`Signer`]: turns the repository's signing configuration
//!   ([`SigningConfig`], resolved by the caller from git config) into a signer
//!   that produces the ASCII-armored signature for a commit's `gpgsig` header.
//!   Unencrypted OpenSSH ed25519 key files are signed in-process (byte-identical
//!   to `ssh-keygen -Y sign -n git`); agent-held and literal ssh keys, OpenPGP
//!   and X.509 go through the configured external program with git's exact
//!   arguments, under [`crate::process::run`] (new session, hard timeout).
//! - Key generation for `git lore init` ([`generate_ed25519`],
//!   [`write_key_pair`], [`allowed_signers_line`]).
//! - The OpenSSH allowed-signers format ([`AllowedSigners`]) and native
//!   verification of SSH signatures against it ([`verify_ssh`],
//!   [`verify_commit`]), with git's `%G?` verdicts ([`status_letter`]).
//! - Splitting a raw commit object into the signed payload and its signature,
//!   and inserting a signature header ([`split_signed_commit`],
//!   [`insert_gpgsig`]).
//!
//! It must not: print, prompt, read process environment variables, the clock or
//! randomness on its own. Callers pass the home directory, the child
//! environment, the verification time and a random number generator (the one
//! fallback: with no [`SigningConfig::temp_dir`], `gpg.ssh.program` temporary
//! files go to [`std::env::temp_dir`], where git puts them). It never
//! writes an unsigned commit and never decides trust policy beyond "is this
//! signature good for a key listed in these allowed signers".

mod allowed;
mod armor;
mod commit;
mod keys;
mod sign;
mod verify;

#[cfg(test)]
mod tests;

use std::path::PathBuf;
use std::time::Duration;

use crate::process::ProcessError;

pub use allowed::{principal_names, AllowedSigners};
pub use commit::{committer_timestamp, insert_gpgsig, split_signed_commit};
pub use keys::{allowed_signers_line, generate_ed25519, read_public_key, write_key_pair};
pub use sign::{public_key_line, Signer};
pub use verify::{signature_key, status_letter, verify_commit, verify_ssh, SignatureStatus};

/// How long an external signing program may run before it is killed, unless
/// the caller configures otherwise.
pub const DEFAULT_SIGN_TIMEOUT: Duration = Duration::from_secs(10);

/// The signature format, git's `gpg.format`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Format {
    /// `ssh`: SSHSIG signatures made with an ssh key (namespace `git`).
    Ssh,
    /// `openpgp`: detached signatures made by `gpg` (git's default).
    OpenPgp,
    /// `x509`: detached signatures made by `gpgsm`.
    X509,
}

impl Format {
    /// Parses git's `gpg.format` value; an absent value means `openpgp`, as in
    /// git. Values are matched exactly (git compares case-sensitively).
    pub fn from_git_config(value: Option<&str>) -> Result<Format, SigningError> {
        match value {
            None | Some("openpgp") => Ok(Format::OpenPgp),
            Some("x509") => Ok(Format::X509),
            Some("ssh") => Ok(Format::Ssh),
            Some(other) => Err(SigningError::UnknownFormat {
                value: other.to_string(),
            }),
        }
    }

    /// The value git writes for this format in `gpg.format`.
    pub fn as_git_config(self) -> &'static str {
        match self {
            Format::Ssh => "ssh",
            Format::OpenPgp => "openpgp",
            Format::X509 => "x509",
        }
    }
}

/// Everything needed to sign, as resolved by the caller from the repository's
/// git config and the process environment.
#[derive(Clone, Debug)]
pub struct SigningConfig {
    /// `gpg.format`.
    pub format: Format,
    /// `user.signingkey`. For ssh: a key file path (`~` expanded, relative to
    /// [`Self::base_dir`]) or a `key::ssh-...` / `ssh-...` literal. For
    /// openpgp/x509: the key id passed to `-u`. Empty counts as unset.
    pub signing_key: Option<String>,
    /// `gpg.program` / `gpg.openpgp.program` (default `gpg`).
    pub gpg_program: Option<String>,
    /// `gpg.x509.program` (default `gpgsm`).
    pub gpg_x509_program: Option<String>,
    /// `gpg.ssh.program` (default `ssh-keygen`).
    pub gpg_ssh_program: Option<String>,
    /// The committer as `Name <email>`: git's key id for openpgp and x509 when
    /// `user.signingkey` is unset.
    pub committer_ident: String,
    /// Directory relative key paths are resolved against (git resolves them
    /// against the top of the work tree, where it runs).
    pub base_dir: PathBuf,
    /// Home directory for `~` expansion; `None` makes `~` paths an error.
    pub home: Option<PathBuf>,
    /// The complete environment of signing programs (nothing is inherited):
    /// `PATH`, `HOME`, `SSH_AUTH_SOCK`, `GNUPGHOME`, ... as the caller sees fit.
    /// `SSH_ASKPASS_REQUIRE=never` is always added for ssh programs.
    pub child_env: Vec<(String, String)>,
    /// Hard deadline for one run of an external signing program.
    pub timeout: Duration,
    /// Where temporary files for `gpg.ssh.program` go (payload, literal key,
    /// signature). `None` means the platform temporary directory as the
    /// standard library reports it, the place git uses too.
    pub temp_dir: Option<PathBuf>,
}

impl SigningConfig {
    /// A configuration with no key or programs configured, no home, an empty
    /// child environment, [`DEFAULT_SIGN_TIMEOUT`] and the default temporary
    /// directory.
    pub fn new(
        format: Format,
        committer_ident: impl Into<String>,
        base_dir: impl Into<PathBuf>,
    ) -> SigningConfig {
        SigningConfig {
            format,
            signing_key: None,
            gpg_program: None,
            gpg_x509_program: None,
            gpg_ssh_program: None,
            committer_ident: committer_ident.into(),
            base_dir: base_dir.into(),
            home: None,
            child_env: Vec::new(),
            timeout: DEFAULT_SIGN_TIMEOUT,
            temp_dir: None,
        }
    }
}

/// Everything that can go wrong in this module.
#[derive(Debug, thiserror::Error)]
pub enum SigningError {
    /// `gpg.format` has a value git does not know either.
    #[error("invalid gpg.format {value:?}: expected \"openpgp\", \"x509\" or \"ssh\"")]
    UnknownFormat { value: String },
    /// `gpg.format=ssh` without `user.signingkey`.
    #[error(
        "gpg.format is ssh but user.signingkey is not set: set it to an ssh private key file, \
         to the .pub file of a key held in ssh-agent, or to a \"key::ssh-ed25519 AAAA...\" literal \
         (gpg.ssh.defaultKeyCommand is not supported)"
    )]
    MissingSshKey,
    /// A `~` path but no home directory was given.
    #[error("cannot expand {path:?} in user.signingkey: no home directory is known; use an absolute path")]
    NoHome { path: String },
    /// A `~user/...` path.
    #[error("cannot expand {path:?} in user.signingkey: \"~user\" paths are not supported; use an absolute path")]
    OtherUserHome { path: String },
    /// The key file named by `user.signingkey` cannot be read.
    #[error("cannot read ssh signing key {path} (user.signingkey): {source}")]
    ReadKey {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// The key file is passphrase-protected; git-lore never asks.
    #[error(
        "ssh signing key {path} is encrypted and git-lore never prompts for a passphrase: \
         load it into ssh-agent (ssh-add {path}) and set user.signingkey to {path}.pub \
         or to a \"key::ssh-...\" literal"
    )]
    EncryptedKey { path: PathBuf },
    /// The key file looks like an OpenSSH private key but cannot be decoded.
    #[error("ssh signing key {path} is not a valid openssh private key: {reason}")]
    InvalidKey { path: PathBuf, reason: String },
    /// `user.signingkey` looks like a literal ssh public key but is not one.
    #[error("user.signingkey {value:?} is not a valid ssh public key literal: {reason}")]
    InvalidKeyLiteral { value: String, reason: String },
    /// Signing in-process failed.
    #[error("signing with ssh key {path} failed: {reason}")]
    NativeSign { path: PathBuf, reason: String },
    /// The external signer ran past its deadline and was killed.
    #[error(
        "signing program {program:?} did not finish within {seconds}s and was killed: \
         git-lore never prompts, so a signer that waits for a passphrase, a pin or a touch fails; \
         unlock the key beforehand (ssh-add, gpg-agent) or use an unencrypted key file"
    )]
    TimedOut { program: String, seconds: f64 },
    /// The external signer could not be run at all.
    #[error("cannot run signing program {program:?} (check gpg.program, gpg.x509.program or gpg.ssh.program and PATH): {source}")]
    Spawn {
        program: String,
        #[source]
        source: ProcessError,
    },
    /// The external signer exited unsuccessfully.
    #[error("signing program {program:?} failed ({status}): {stderr}")]
    ProgramFailed {
        program: String,
        status: String,
        stderr: String,
    },
    /// gpg/gpgsm exited but did not report a created signature.
    #[error("gpg failed to sign the data: {program:?} did not report \"[GNUPG:] SIG_CREATED\" on its status output: {stderr}")]
    NoSigCreated { program: String, stderr: String },
    /// The external signer's output is not a usable signature.
    #[error("signing program {program:?} produced no usable signature: {reason}")]
    BadSignatureOutput { program: String, reason: String },
    /// A temporary file for the external ssh signer could not be made or read.
    #[error("temporary file for ssh signing in {dir}: {source}")]
    TempFile {
        dir: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// `write_key_pair` found a file in the way.
    #[error("refusing to overwrite existing key file {path}")]
    KeyExists { path: PathBuf },
    /// `write_key_pair` could not write a key file.
    #[error("cannot write key file {path}: {source}")]
    WriteKey {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// Key generation or encoding failed.
    #[error("cannot {action} ssh key: {reason}")]
    Key {
        action: &'static str,
        reason: String,
    },
    /// A principal that cannot be written to an allowed-signers file.
    #[error("invalid allowed-signers principal {principal:?}: {reason}")]
    InvalidPrincipal { principal: String, reason: String },
    /// A malformed allowed-signers line (1-based line number).
    #[error("allowed signers line {line}: {reason}")]
    AllowedSigners { line: usize, reason: String },
}
