//! The SSH wire formats verification reads before any cryptography, built
//! on `base64ct` (strict, constant-time base64) and `ssh-encoding` (SSH
//! strings): key fingerprints, the key type of a key blob, the body of an
//! armored block, and the signing key named in an SSHSIG blob.
//!
//! Armor is read the way OpenSSH reads it — white space anywhere in the body
//! is ignored — so a signature that git hands to `ssh-keygen` with another
//! line width verifies here too; the strict PEM reader of `ssh-key` wants
//! OpenSSH's exact 70-column layout.

use base64ct::{Base64, Base64Unpadded, Encoding};
use sha2::{Digest, Sha256};
use ssh_encoding::Decode;

/// Decodes standard, padded base64, refusing anything non-canonical.
pub(crate) fn base64_decode(text: &str) -> Option<Vec<u8>> {
    Base64::decode_vec(text).ok()
}

/// `SHA256:<base64 without padding>` of a public key blob, as ssh-keygen and
/// git print it.
pub(crate) fn fingerprint(key_blob: &[u8]) -> String {
    format!(
        "SHA256:{}",
        Base64Unpadded::encode_string(&Sha256::digest(key_blob))
    )
}

/// The key type a public key blob names (its first SSH string).
pub(crate) fn blob_key_type(blob: &[u8]) -> Option<String> {
    String::decode(&mut &blob[..]).ok()
}

/// The body between `-----BEGIN <label>-----` and `-----END <label>-----`,
/// base64-decoded. White space inside the body is ignored (OpenSSH does the
/// same); anything before or after the markers other than white space is not.
pub(crate) fn dearmor(text: &str, label: &str) -> Option<Vec<u8>> {
    let rest = text
        .trim()
        .strip_prefix(&format!("-----BEGIN {label}-----"))?;
    let body = rest.strip_suffix(&format!("-----END {label}-----"))?;
    let compact: String = body.chars().filter(|c| !c.is_ascii_whitespace()).collect();
    base64_decode(&compact)
}

/// The signing key of an SSHSIG blob, as (key blob, key type), read from its
/// preamble: `"SSHSIG"`, a version, then the public key. Enough to name the
/// key and decide whether it can be verified here before the whole
/// signature is decoded.
pub(crate) fn sshsig_key(raw: &[u8]) -> Result<(Vec<u8>, String), SshsigError> {
    let mut r = raw.strip_prefix(b"SSHSIG").ok_or(SshsigError::NoPreamble)?;
    let version = u32::decode(&mut r).map_err(SshsigError::Truncated)?;
    if version != 1 {
        return Err(SshsigError::Version(version));
    }
    let key_blob = Vec::<u8>::decode(&mut r).map_err(SshsigError::Truncated)?;
    let key_type = blob_key_type(&key_blob).ok_or(SshsigError::MalformedKey)?;
    Ok((key_blob, key_type))
}

/// Why an SSHSIG blob's preamble cannot be read.
#[derive(Debug, thiserror::Error)]
pub(crate) enum SshsigError {
    #[error("ssh signature lacks the SSHSIG preamble")]
    NoPreamble,
    #[error("truncated ssh signature")]
    Truncated(#[source] ssh_encoding::Error),
    #[error("unsupported ssh signature version {0}")]
    Version(u32),
    #[error("ssh signature holds a malformed public key")]
    MalformedKey,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_is_strict() {
        assert_eq!(base64_decode("Zm9vYmFy").as_deref(), Some(&b"foobar"[..]));
        assert_eq!(base64_decode("Zm8=").as_deref(), Some(&b"fo"[..]));
        for bad in ["Zm9v!", "Z", "Zm===", "Zm8", "Zm9=", "Zg=="[..2].as_ref()] {
            assert_eq!(base64_decode(bad), None, "{bad:?}");
        }
        // Non-zero trailing bits are not canonical: refused.
        assert_eq!(base64_decode("Zh=="), None);
    }

    #[test]
    fn dearmor_needs_both_markers_and_ignores_wrapping() {
        assert_eq!(
            dearmor("-----BEGIN X-----\nZm9v\n-----END X-----\n", "X").as_deref(),
            Some(&b"foo"[..])
        );
        assert_eq!(
            dearmor("-----BEGIN X-----\nZm\n9v YmFy\n-----END X-----", "X").as_deref(),
            Some(&b"foobar"[..])
        );
        assert!(dearmor("-----BEGIN X-----\nZm9v\n", "X").is_none());
        assert!(dearmor("junk-----BEGIN X-----\nZm9v\n-----END X-----", "X").is_none());
    }

    #[test]
    fn the_sshsig_preamble_is_checked() {
        assert!(sshsig_key(b"NOTSIG").is_err());
        let mut v2 = b"SSHSIG".to_vec();
        v2.extend_from_slice(&2u32.to_be_bytes());
        assert_eq!(
            sshsig_key(&v2).unwrap_err().to_string(),
            "unsupported ssh signature version 2"
        );
        let mut ok = b"SSHSIG".to_vec();
        ok.extend_from_slice(&1u32.to_be_bytes());
        let mut blob = 11u32.to_be_bytes().to_vec();
        blob.extend_from_slice(b"ssh-ed25519");
        ok.extend_from_slice(&(blob.len() as u32).to_be_bytes());
        ok.extend_from_slice(&blob);
        assert_eq!(sshsig_key(&ok).unwrap(), (blob, "ssh-ed25519".into()));
    }
}
