//! A dedicated, unattended ed25519 signing key for `git lore init`.

use std::fs::{self, OpenOptions};
use std::io::Write;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

use rand::{CryptoRng, RngCore};
use ssh_key::{Algorithm, LineEnding, PrivateKey, PublicKey};

use super::SigningError;

/// Generates a new, unencrypted ed25519 key from the caller's random number
/// generator.
pub fn generate_ed25519(rng: &mut (impl RngCore + CryptoRng)) -> Result<PrivateKey, SigningError> {
    PrivateKey::random(rng, Algorithm::Ed25519).map_err(|source| SigningError::Key {
        action: "generate an ed25519",
        source,
    })
}

/// `<path>.pub`.
fn pub_path(path: &Path) -> PathBuf {
    let mut p = path.as_os_str().to_owned();
    p.push(".pub");
    PathBuf::from(p)
}

/// Creates `path` exclusively (never replacing a file) with `mode` from the
/// start and writes `contents` durably.
fn create_new(path: &Path, mode: u32, contents: &[u8]) -> Result<(), SigningError> {
    let mut file = OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(mode)
        .open(path)
        .map_err(|source| {
            if source.kind() == std::io::ErrorKind::AlreadyExists {
                SigningError::KeyExists {
                    path: path.to_path_buf(),
                }
            } else {
                SigningError::WriteKey {
                    path: path.to_path_buf(),
                    source,
                }
            }
        })?;
    file.write_all(contents)
        .and_then(|()| file.sync_all())
        .map_err(|source| SigningError::WriteKey {
            path: path.to_path_buf(),
            source,
        })
}

/// Writes `key` (with `comment`) as an unencrypted OpenSSH private key file at
/// `path`, created with mode 0600 from the start, and its public key at
/// `path.pub` (mode 0644). Refuses, without writing anything, when either file
/// already exists; if the public key cannot be written the private key file
/// is removed again.
pub fn write_key_pair(key: &PrivateKey, path: &Path, comment: &str) -> Result<(), SigningError> {
    let public_path = pub_path(path);
    for p in [path, public_path.as_path()] {
        if fs::symlink_metadata(p).is_ok() {
            return Err(SigningError::KeyExists {
                path: p.to_path_buf(),
            });
        }
    }
    let mut key = key.clone();
    key.set_comment(comment);
    let encode_error = |source| SigningError::Key {
        action: "encode",
        source,
    };
    let private = key.to_openssh(LineEnding::LF).map_err(encode_error)?;
    let mut public = key.public_key().to_openssh().map_err(encode_error)?;
    public.push('\n');
    create_new(path, 0o600, private.as_bytes())?;
    if let Err(e) = create_new(&public_path, 0o644, public.as_bytes()) {
        let _ = fs::remove_file(path);
        return Err(e);
    }
    Ok(())
}

/// The public half of the OpenSSH private key file at `path`.
pub fn read_public_key(path: &Path) -> Result<PublicKey, SigningError> {
    let text = fs::read_to_string(path).map_err(|source| SigningError::ReadKey {
        path: path.to_path_buf(),
        source,
    })?;
    let key =
        PrivateKey::from_openssh(text.as_bytes()).map_err(|source| SigningError::InvalidKey {
            path: path.to_path_buf(),
            source,
        })?;
    Ok(key.public_key().clone())
}

/// The allowed-signers line that lets `principal` sign commits with `key`:
/// `principal namespaces="git" ssh-ed25519 AAAA...` (the key's comment is left
/// out). The principal must be non-empty and free of blanks, quotes and
/// commas, and must not start with `#` or `!`.
pub fn allowed_signers_line(principal: &str, key: &PublicKey) -> Result<String, SigningError> {
    let invalid = |reason: &str| SigningError::InvalidPrincipal {
        principal: principal.to_string(),
        reason: reason.to_string(),
    };
    if principal.is_empty() {
        return Err(invalid("it is empty"));
    }
    if principal
        .chars()
        .any(|c| c.is_whitespace() || c == '"' || c == ',')
    {
        return Err(invalid("it must not contain blanks, quotes or commas"));
    }
    if principal.starts_with('#') || principal.starts_with('!') {
        return Err(invalid("it must not start with '#' or '!'"));
    }
    let bare = PublicKey::new(key.key_data().clone(), "");
    let openssh = bare.to_openssh().map_err(|source| SigningError::Key {
        action: "encode",
        source,
    })?;
    Ok(format!("{principal} namespaces=\"git\" {openssh}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::signing::AllowedSigners;
    use rand::SeedableRng;
    use std::os::unix::fs::PermissionsExt;

    fn key() -> PrivateKey {
        let mut rng = rand::rngs::StdRng::seed_from_u64(7);
        generate_ed25519(&mut rng).unwrap()
    }

    #[test]
    fn writes_private_key_0600_and_public_key() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("lore_signing_key");
        let key = key();
        write_key_pair(&key, &path, "lore@example.com").unwrap();
        let mode = fs::metadata(&path).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);
        let read = PrivateKey::read_openssh_file(&path).unwrap();
        assert_eq!(read.public_key().key_data(), key.public_key().key_data());
        assert_eq!(read.comment(), "lore@example.com");
        assert!(!read.is_encrypted());
        let public = fs::read_to_string(pub_path(&path)).unwrap();
        assert!(public.starts_with("ssh-ed25519 AAAA"));
        assert!(public.ends_with(" lore@example.com\n"));
    }

    #[test]
    fn refuses_to_overwrite_either_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("k");
        fs::write(&path, "precious").unwrap();
        let err = write_key_pair(&key(), &path, "c").unwrap_err();
        assert!(matches!(err, SigningError::KeyExists { .. }), "{err}");
        assert!(err.to_string().contains(&path.display().to_string()));
        assert_eq!(fs::read_to_string(&path).unwrap(), "precious");

        let path2 = dir.path().join("k2");
        fs::write(pub_path(&path2), "precious").unwrap();
        let err = write_key_pair(&key(), &path2, "c").unwrap_err();
        assert!(matches!(err, SigningError::KeyExists { .. }), "{err}");
        assert!(
            !path2.exists(),
            "nothing written when the .pub is in the way"
        );
    }

    #[test]
    fn allowed_signers_line_lists_the_key_for_git() {
        let key = key();
        let line = allowed_signers_line("lore@example.com", key.public_key()).unwrap();
        assert!(line.starts_with("lore@example.com namespaces=\"git\" ssh-ed25519 AAAA"));
        assert_eq!(line.split(' ').count(), 4, "no comment: {line}");
        let allowed = AllowedSigners::parse(&line).unwrap();
        assert!(allowed.lists_key(key.public_key()));
        for bad in ["", "a b", "a,b", "#a", "!a", "a\"b"] {
            assert!(
                matches!(
                    allowed_signers_line(bad, key.public_key()),
                    Err(SigningError::InvalidPrincipal { .. })
                ),
                "{bad:?}"
            );
        }
    }
}
