//! Producing the `gpgsig` value for a commit payload, as git 2.47 does.

use std::fmt;
use std::fs;
use std::path::{Path, PathBuf};
use std::time::Duration;

use ssh_key::{Algorithm, HashAlg, LineEnding, PrivateKey, PublicKey};

use super::armor::{base64_decode, blob_key_type, fingerprint};
use super::{Format, SigningConfig, SigningError};
use crate::process::{run, Finished, Invocation, ProcessError};

/// The namespace git signs commits in.
const NAMESPACE: &str = "git";
/// At most this much output of a signing program is kept.
const MAX_OUTPUT: usize = 1 << 20;
/// At most this much of a program's stderr goes into an error message.
const MAX_STDERR_SHOWN: usize = 2000;

/// Signs commit payloads with the configured key. Build it once with
/// [`Signer::from_config`] and reuse it: a key file is read only there.
pub struct Signer {
    inner: Inner,
    description: String,
}

enum Inner {
    /// An unencrypted ed25519 key file, signed in-process.
    Native {
        key: Box<PrivateKey>,
        /// The dalek signing key, converted once: converting it on every
        /// signature was half the cost of signing.
        dalek: Box<ed25519_dalek::SigningKey>,
        path: PathBuf,
    },
    /// `gpg.ssh.program -Y sign` (agent-held or literal keys, other key types).
    SshProgram {
        program: String,
        key: SshKey,
        /// `key-type base64` of the public key, when it could be found: the
        /// literal, the `.pub` file, or the `.pub` next to a private key.
        public: Option<String>,
        env: Vec<(String, String)>,
        timeout: Duration,
        temp_dir: Option<PathBuf>,
    },
    /// `gpg.program` / `gpg.x509.program --status-fd=2 -bsau <key>`.
    Gpg {
        program: String,
        key_id: String,
        env: Vec<(String, String)>,
        timeout: Duration,
    },
}

enum SshKey {
    /// A key file (public or private) handed to the program with `-f`.
    File(PathBuf),
    /// A public key literal, written to a temporary file and used with `-U`.
    Literal(String),
}

impl fmt::Debug for Signer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Signer")
            .field("description", &self.description)
            .finish_non_exhaustive()
    }
}

/// git's `is_literal_ssh_key`: `key::<key>` or anything starting with `ssh-`.
fn literal_ssh_key(spec: &str) -> Option<&str> {
    spec.strip_prefix("key::")
        .or_else(|| spec.starts_with("ssh-").then_some(spec))
}

/// Expands `~` and resolves relative paths against `base_dir`.
fn key_path(spec: &str, config: &SigningConfig) -> Result<PathBuf, SigningError> {
    if let Some(rest) = spec.strip_prefix('~') {
        if !(rest.is_empty() || rest.starts_with('/')) {
            return Err(SigningError::OtherUserHome {
                path: spec.to_string(),
            });
        }
        let home = config.home.as_ref().ok_or_else(|| SigningError::NoHome {
            path: spec.to_string(),
        })?;
        return Ok(home.join(rest.trim_start_matches('/')));
    }
    Ok(config.base_dir.join(spec))
}

/// Why a line is not an OpenSSH public key line.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum KeyLineError {
    #[error("it is empty")]
    Empty,
    #[error("the key data is missing or not base64")]
    NoKeyData,
    #[error("the key data is not a {0:?} key")]
    WrongType(String),
}

/// The `SHA256:` fingerprint of an OpenSSH public key line, if it is one.
fn public_key_line_fingerprint(line: &str) -> Result<String, KeyLineError> {
    let mut fields = line.split_whitespace();
    let key_type = fields.next().ok_or(KeyLineError::Empty)?;
    let blob = fields
        .next()
        .and_then(base64_decode)
        .ok_or(KeyLineError::NoKeyData)?;
    match blob_key_type(&blob) {
        Some(t) if t == key_type => Ok(fingerprint(&blob)),
        _ => Err(KeyLineError::WrongType(key_type.to_owned())),
    }
}

/// `key-type base64` of a public key line (`type base64 [comment]`), when
/// its data is a key of that type.
pub fn public_key_line(line: &str) -> Option<String> {
    public_key_line_fingerprint(line).ok()?;
    let mut fields = line.split_whitespace();
    Some(format!("{} {}", fields.next()?, fields.next()?))
}

fn with_askpass_disabled(env: &[(String, String)]) -> Vec<(String, String)> {
    let mut env: Vec<(String, String)> = env
        .iter()
        .filter(|(k, _)| k != "SSH_ASKPASS_REQUIRE")
        .cloned()
        .collect();
    env.push(("SSH_ASKPASS_REQUIRE".into(), "never".into()));
    env
}

fn exit_status(f: &Finished) -> String {
    match f.code {
        Some(code) => format!("exit code {code}"),
        None => "killed by a signal".to_string(),
    }
}

fn shown_stderr(stderr: &[u8]) -> String {
    let text = String::from_utf8_lossy(stderr);
    let text = text.trim();
    match text.char_indices().nth(MAX_STDERR_SHOWN) {
        Some((cut, _)) => format!("{}...", &text[..cut]),
        None => text.to_string(),
    }
}

fn run_program(inv: &Invocation, input: &[u8]) -> Result<Finished, SigningError> {
    run(inv, input).map_err(|e| match e {
        ProcessError::TimedOut { program, seconds } => SigningError::TimedOut { program, seconds },
        source => SigningError::Spawn {
            program: inv.argv.first().cloned().unwrap_or_default(),
            source,
        },
    })
}

/// Normalises a program's signature output the way git does (CR removed) and
/// makes sure it ends with a newline.
fn finish_signature(program: &str, bytes: Vec<u8>, begin: &str) -> Result<String, SigningError> {
    let bad = |reason: &str| SigningError::BadSignatureOutput {
        program: program.to_string(),
        reason: reason.to_string(),
    };
    let mut text = String::from_utf8(bytes).map_err(|_| bad("the output is not utf-8 text"))?;
    text.retain(|c| c != '\r');
    if text.trim().is_empty() {
        return Err(bad("the output is empty"));
    }
    if !text.starts_with(begin) {
        return Err(bad(&format!("the output does not start with {begin:?}")));
    }
    if !text.ends_with('\n') {
        text.push('\n');
    }
    Ok(text)
}

impl Signer {
    /// Builds the signer git would use for this configuration. For ssh, an
    /// unencrypted ed25519 private key file is loaded now and used in-process;
    /// an encrypted one is refused at once (git-lore never prompts); a `.pub`
    /// file, a key literal or another key type is signed by
    /// `gpg.ssh.program`. For openpgp and x509 the program and key id are
    /// fixed here (the key defaults to the committer ident, as in git).
    pub fn from_config(config: &SigningConfig) -> Result<Signer, SigningError> {
        let signing_key = config.signing_key.as_deref().filter(|k| !k.is_empty());
        match config.format {
            Format::Ssh => Self::ssh(config, signing_key.ok_or(SigningError::MissingSshKey)?),
            Format::OpenPgp | Format::X509 => {
                let (configured, default) = match config.format {
                    Format::X509 => (&config.gpg_x509_program, "gpgsm"),
                    _ => (&config.gpg_program, "gpg"),
                };
                let program = configured.clone().unwrap_or_else(|| default.to_string());
                let key_id = signing_key.unwrap_or(&config.committer_ident).to_string();
                Ok(Signer {
                    description: format!("{program} with key {key_id:?}"),
                    inner: Inner::Gpg {
                        program,
                        key_id,
                        env: config.child_env.clone(),
                        timeout: config.timeout,
                    },
                })
            }
        }
    }

    fn ssh(config: &SigningConfig, spec: &str) -> Result<Signer, SigningError> {
        let program = config
            .gpg_ssh_program
            .clone()
            .unwrap_or_else(|| "ssh-keygen".to_string());
        let external = |key: SshKey, public: Option<String>, description: String| Signer {
            description,
            inner: Inner::SshProgram {
                program: program.clone(),
                key,
                public,
                env: with_askpass_disabled(&config.child_env),
                timeout: config.timeout,
                temp_dir: config.temp_dir.clone(),
            },
        };
        if let Some(literal) = literal_ssh_key(spec) {
            let fp = public_key_line_fingerprint(literal).map_err(|reason| {
                SigningError::InvalidKeyLiteral {
                    value: spec.to_string(),
                    reason,
                }
            })?;
            return Ok(external(
                SshKey::Literal(literal.to_string()),
                public_key_line(literal),
                format!("{program} with ssh key {fp}"),
            ));
        }
        let path = key_path(spec, config)?;
        let bytes = fs::read(&path).map_err(|source| SigningError::ReadKey {
            path: path.clone(),
            source,
        })?;
        let text = String::from_utf8_lossy(&bytes);
        if text.contains("-----BEGIN OPENSSH PRIVATE KEY-----") {
            match PrivateKey::from_openssh(text.as_bytes()) {
                Ok(key) if key.is_encrypted() => {
                    return Err(SigningError::EncryptedKey { path });
                }
                Ok(key) if key.algorithm() == Algorithm::Ed25519 => {
                    let fp = key.fingerprint(HashAlg::Sha256);
                    let dalek = match key.key_data() {
                        ssh_key::private::KeypairData::Ed25519(pair) => {
                            ed25519_dalek::SigningKey::try_from(pair).map_err(|source| {
                                SigningError::InvalidKey {
                                    path: path.clone(),
                                    source,
                                }
                            })?
                        }
                        _ => return Err(SigningError::NotEd25519 { path }),
                    };
                    return Ok(Signer {
                        description: format!("ssh key {} ({fp})", path.display()),
                        inner: Inner::Native {
                            key: Box::new(key),
                            dalek: Box::new(dalek),
                            path,
                        },
                    });
                }
                // Another key type, or one this build does not decode: the
                // configured program signs with it, as git would.
                _ => {}
            }
        } else if text.contains("PRIVATE KEY-----") && text.contains("ENCRYPTED") {
            // Legacy PEM: "Proc-Type: 4,ENCRYPTED" or "BEGIN ENCRYPTED PRIVATE KEY".
            return Err(SigningError::EncryptedKey { path });
        }
        let description = match public_key_line_fingerprint(text.lines().next().unwrap_or("")) {
            Ok(fp) => format!("{program} with ssh key {} ({fp})", path.display()),
            Err(_) => format!("{program} with ssh key {}", path.display()),
        };
        // The public half: the file itself when it is a public key, else
        // the `.pub` next to it, as ssh-keygen writes them.
        let public = public_key_line(text.lines().next().unwrap_or("")).or_else(|| {
            let mut pub_path = path.clone().into_os_string();
            pub_path.push(".pub");
            fs::read_to_string(pub_path)
                .ok()
                .and_then(|t| public_key_line(t.lines().next().unwrap_or("")))
        });
        Ok(external(SshKey::File(path), public, description))
    }

    /// Signs `payload` (the commit object without its `gpgsig` header) and
    /// returns the ASCII-armored signature, ending in `\n`, exactly as it goes
    /// into the `gpgsig` header.
    pub fn sign(&self, payload: &[u8]) -> Result<String, SigningError> {
        match &self.inner {
            Inner::Native { key, dalek, path } => {
                use ed25519_dalek::Signer as _;
                let native_error = |source| SigningError::NativeSign {
                    path: path.clone(),
                    source,
                };
                // The SSHSIG blob, as PrivateKey::sign builds it, with the
                // dalek key converted once instead of per signature.
                let data = ssh_key::SshSig::signed_data(NAMESPACE, HashAlg::Sha512, payload)
                    .map_err(native_error)?;
                let raw = dalek.sign(&data);
                let signature =
                    ssh_key::Signature::new(ssh_key::Algorithm::Ed25519, raw.to_bytes().to_vec())
                        .map_err(native_error)?;
                let sig = ssh_key::SshSig::new(
                    key.public_key().key_data().clone(),
                    NAMESPACE,
                    HashAlg::Sha512,
                    signature,
                )
                .map_err(native_error)?;
                sig.to_pem(LineEnding::LF).map_err(native_error)
            }
            Inner::SshProgram {
                program,
                key,
                env,
                timeout,
                temp_dir,
                ..
            } => sign_with_ssh_program(program, key, env, *timeout, temp_dir.as_deref(), payload),
            Inner::Gpg {
                program,
                key_id,
                env,
                timeout,
            } => sign_with_gpg(program, key_id, env, *timeout, payload),
        }
    }

    /// What signs, for messages: the key file and fingerprint, or the program
    /// and key.
    pub fn description(&self) -> String {
        self.description.clone()
    }

    /// The public key, when signing happens in-process.
    pub fn public_key(&self) -> Option<&PublicKey> {
        match &self.inner {
            Inner::Native { key, .. } => Some(key.public_key()),
            _ => None,
        }
    }

    /// The public key as `key-type base64`, the form an allowed-signers line
    /// and `git lore key` use; `None` for openpgp and x509, and for an ssh key
    /// whose public half cannot be found.
    pub fn public_key_line(&self) -> Option<String> {
        match &self.inner {
            Inner::Native { key, .. } => key
                .public_key()
                .to_openssh()
                .ok()
                .and_then(|l| public_key_line(&l)),
            Inner::SshProgram { public, .. } => public.clone(),
            Inner::Gpg { .. } => None,
        }
    }

    /// Whether signing happens in-process (no external program is run).
    pub fn is_native(&self) -> bool {
        matches!(self.inner, Inner::Native { .. })
    }
}

fn sign_with_ssh_program(
    program: &str,
    key: &SshKey,
    env: &[(String, String)],
    timeout: Duration,
    temp_dir: Option<&Path>,
    payload: &[u8],
) -> Result<String, SigningError> {
    let base = temp_dir.map_or_else(std::env::temp_dir, Path::to_path_buf);
    let temp_error = |source| SigningError::TempFile {
        dir: base.clone(),
        source,
    };
    let dir = tempfile::Builder::new()
        .prefix(".git-lore-sign")
        .tempdir_in(&base)
        .map_err(temp_error)?;
    let buffer = dir.path().join("buffer");
    fs::write(&buffer, payload).map_err(temp_error)?;
    let mut argv: Vec<String> = vec![program.into(), "-Y".into(), "sign".into()];
    argv.extend(["-n".into(), NAMESPACE.into(), "-f".into()]);
    match key {
        SshKey::File(path) => argv.push(path.to_string_lossy().into_owned()),
        SshKey::Literal(literal) => {
            let key_file = dir.path().join("key");
            fs::write(&key_file, literal).map_err(temp_error)?;
            argv.push(key_file.to_string_lossy().into_owned());
            argv.push("-U".into());
        }
    }
    argv.push(buffer.to_string_lossy().into_owned());
    let inv = Invocation {
        argv,
        env: env.to_vec(),
        // Inherit the working directory: relative key paths (joined to a
        // relative base_dir) stay valid.
        cwd: None,
        timeout,
        max_output: MAX_OUTPUT,
        new_session: true,
    };
    let finished = run_program(&inv, b"")?;
    if !finished.success() {
        let mut stderr = shown_stderr(&finished.stderr);
        if stderr.contains("usage:") {
            stderr = format!(
                "ssh-keygen -Y sign is needed for ssh signing (available in openssh version 8.2p1+): {stderr}"
            );
        }
        return Err(SigningError::ProgramFailed {
            program: program.to_string(),
            status: exit_status(&finished),
            stderr,
        });
    }
    let sig_path = dir.path().join("buffer.sig");
    let bytes = fs::read(&sig_path).map_err(|source| SigningError::ReadSignature {
        program: program.to_string(),
        path: sig_path.clone(),
        source,
    })?;
    finish_signature(program, bytes, "-----BEGIN SSH SIGNATURE-----")
}

fn sign_with_gpg(
    program: &str,
    key_id: &str,
    env: &[(String, String)],
    timeout: Duration,
    payload: &[u8],
) -> Result<String, SigningError> {
    let inv = Invocation {
        argv: vec![
            program.into(),
            "--status-fd=2".into(),
            "-bsau".into(),
            key_id.into(),
        ],
        env: env.to_vec(),
        cwd: None,
        timeout,
        max_output: MAX_OUTPUT,
        new_session: true,
    };
    let finished = run_program(&inv, payload)?;
    let created = finished
        .stderr
        .split(|&b| b == b'\n')
        .any(|line| line.starts_with(b"[GNUPG:] SIG_CREATED "));
    if !finished.success() {
        return Err(SigningError::ProgramFailed {
            program: program.to_string(),
            status: exit_status(&finished),
            stderr: shown_stderr(&finished.stderr),
        });
    }
    if !created {
        return Err(SigningError::NoSigCreated {
            program: program.to_string(),
            stderr: shown_stderr(&finished.stderr),
        });
    }
    if finished.stdout_truncated {
        return Err(SigningError::BadSignatureOutput {
            program: program.to_string(),
            reason: format!("the signature is longer than {MAX_OUTPUT} bytes"),
        });
    }
    finish_signature(program, finished.stdout, "-----BEGIN ")
}
