//! Native verification of SSH commit signatures, with git's verdicts.
//!
//! The decision follows what git 2.47 does with `ssh-keygen`: find the
//! principals of the first allowed-signers line that lists the signing key and
//! is valid at the signature time (`-Y find-principals`); if there is none, a
//! cryptographically good signature is "unknown signer" (`%G?` = `U`);
//! otherwise each principal is tried with `-Y verify -n git -I <principal>`,
//! which also requires the line's `namespaces` to allow `git`. Anything that
//! fails there is a bad signature (`B`), as in git.

use base64ct::Encoding;
use jiff::Timestamp;
use ssh_encoding::Decode;
use ssh_key::{PublicKey, SshSig};

use super::allowed::AllowedSigners;
use super::armor::{dearmor, fingerprint, sshsig_key};
use super::commit::{committer_timestamp, split_signed_commit};

/// The namespace git signs commits in.
const NAMESPACE: &str = "git";

/// Key types whose signatures are checked in-process.
const NATIVE_KEY_TYPES: &[&str] = &["ssh-ed25519", "sk-ssh-ed25519@openssh.com"];

/// The verdict on one signature.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SignatureStatus {
    /// A good signature in namespace `git` by a key the allowed signers list
    /// for `principal`, valid at the signature time (`%G?` = `G`).
    Good {
        /// The principal as git's `%GS` shows it (a pattern, if the line
        /// lists one).
        principal: String,
        /// `SHA256:...`, as git's `%GK` shows it.
        fingerprint: String,
    },
    /// The signature does not verify, is malformed, is for another namespace,
    /// or its listed key is not allowed for `git` (`%G?` = `B`).
    Bad {
        /// What failed.
        reason: String,
    },
    /// A cryptographically good signature by a key no allowed-signers line
    /// lists (or none valid at the signature time) (`%G?` = `U`).
    UnknownSigner {
        /// `SHA256:...` of the signing key.
        fingerprint: String,
    },
    /// There is no signature (`%G?` = `N`).
    Unsigned,
    /// The signature cannot be checked here: not an SSH signature, or a key
    /// type that is not verified natively (`%G?` = `E`).
    Unverifiable {
        /// Why.
        reason: String,
    },
}

impl SignatureStatus {
    /// Whether this is [`SignatureStatus::Good`].
    pub fn is_good(&self) -> bool {
        matches!(self, SignatureStatus::Good { .. })
    }
}

/// git's `%G?` letter for a verdict: `G`, `B`, `U`, `N` or `E`.
pub fn status_letter(status: &SignatureStatus) -> char {
    match status {
        SignatureStatus::Good { .. } => 'G',
        SignatureStatus::Bad { .. } => 'B',
        SignatureStatus::UnknownSigner { .. } => 'U',
        SignatureStatus::Unsigned => 'N',
        SignatureStatus::Unverifiable { .. } => 'E',
    }
}

/// Verifies an armored SSH signature over `payload` against `allowed`, as of
/// `signed_at` (git uses the committer time). With `signed_at` = `None`, lines
/// restricted by `valid-after`/`valid-before` never match. An empty `armored`
/// is [`SignatureStatus::Unsigned`]; OpenPGP and X.509 signatures are
/// [`SignatureStatus::Unverifiable`].
pub fn verify_ssh(
    payload: &[u8],
    armored: &str,
    allowed: &AllowedSigners,
    signed_at: Option<Timestamp>,
) -> SignatureStatus {
    if armored.is_empty() {
        return SignatureStatus::Unsigned;
    }
    if !armored.starts_with("-----BEGIN SSH SIGNATURE-----") {
        let kind = if armored.starts_with("-----BEGIN PGP SIGNATURE-----")
            || armored.starts_with("-----BEGIN PGP MESSAGE-----")
        {
            "an openpgp"
        } else if armored.starts_with("-----BEGIN SIGNED MESSAGE-----") {
            "an x509"
        } else {
            "an unrecognised"
        };
        return SignatureStatus::Unverifiable {
            reason: format!("{kind} signature: only ssh signatures are verified natively"),
        };
    }
    let Some(raw) = dearmor(armored, "SSH SIGNATURE") else {
        return SignatureStatus::Bad {
            reason: "malformed ssh signature armor or base64".into(),
        };
    };
    let (key_blob, key_type) = match sshsig_key(&raw) {
        Ok(k) => k,
        Err(e) => {
            return SignatureStatus::Bad {
                reason: e.to_string(),
            }
        }
    };
    let fp = fingerprint(&key_blob);
    if !NATIVE_KEY_TYPES.contains(&key_type.as_str()) {
        return SignatureStatus::Unverifiable {
            reason: format!(
                "signature made with a {key_type} key ({fp}): only ed25519 ssh signatures are verified natively"
            ),
        };
    }
    let sig = match SshSig::decode(&mut raw.as_slice()) {
        Ok(sig) => sig,
        Err(e) => {
            return SignatureStatus::Bad {
                reason: format!("malformed ssh signature by {fp}: {e}"),
            }
        }
    };
    if sig.namespace() != NAMESPACE {
        return SignatureStatus::Bad {
            reason: format!(
                "signature by {fp} is for namespace {:?}, not {NAMESPACE:?}",
                sig.namespace()
            ),
        };
    }
    let key = PublicKey::new(sig.public_key().clone(), "");
    if let Err(e) = key.verify(NAMESPACE, payload, &sig) {
        return SignatureStatus::Bad {
            reason: format!("signature by {fp} does not verify: {e}"),
        };
    }
    let Some(principals) = allowed.find_principals(&key_blob, signed_at) else {
        return SignatureStatus::UnknownSigner { fingerprint: fp };
    };
    // ssh-keygen prints the principals one per line, stopping at an empty one.
    let candidates: Vec<&str> = principals
        .split(',')
        .take_while(|p| !p.is_empty())
        .collect();
    if candidates.is_empty() {
        // Nothing printed: git falls back to an unvalidated check.
        return SignatureStatus::UnknownSigner { fingerprint: fp };
    }
    for principal in &candidates {
        if allowed.authorizes(principal, &key_blob, NAMESPACE, signed_at) {
            return SignatureStatus::Good {
                principal: (*principal).to_string(),
                fingerprint: fp,
            };
        }
    }
    SignatureStatus::Bad {
        reason: allowed.refusal_reason(candidates[0], &key_blob, NAMESPACE, signed_at),
    }
}

/// The key an armored SSH signature says it was made with, as
/// `(key-type base64, SHA256:fingerprint)`, whether or not it verifies:
/// what a user is shown before pinning a remote's root signer.
pub fn signature_key(armored: &str) -> Option<(String, String)> {
    let raw = dearmor(armored, "SSH SIGNATURE")?;
    let (key_blob, key_type) = sshsig_key(&raw).ok()?;
    let line = format!("{key_type} {}", base64ct::Base64::encode_string(&key_blob));
    Some((line, fingerprint(&key_blob)))
}

/// Verifies a raw commit object (as `git cat-file commit` prints it): splits
/// off its `gpgsig` header and checks it over the rest at the committer time,
/// exactly what `git verify-commit` checks.
pub fn verify_commit(raw: &[u8], allowed: &AllowedSigners) -> SignatureStatus {
    let (payload, signature) = split_signed_commit(raw);
    match signature {
        None => SignatureStatus::Unsigned,
        Some(sig) => verify_ssh(&payload, &sig, allowed, committer_timestamp(&payload)),
    }
}
