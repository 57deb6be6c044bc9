//! Small, dependency-free decoders for the SSH wire formats this module reads
//! without trusting a full parser: base64, SSH strings, the SSHSIG preamble and
//! the header of an OpenSSH private key file.

use sha2::{Digest, Sha256};

const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// Standard base64 with `=` padding, as OpenSSH writes it.
pub(crate) fn base64_encode(data: &[u8], pad: bool) -> String {
    let mut out = String::with_capacity(data.len().div_ceil(3) * 4);
    for chunk in data.chunks(3) {
        let b = [
            chunk[0],
            chunk.get(1).copied().unwrap_or(0),
            chunk.get(2).copied().unwrap_or(0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        let symbols = chunk.len() + 1;
        for i in 0..4 {
            if i < symbols {
                out.push(char::from(ALPHABET[((n >> (18 - 6 * i)) & 63) as usize]));
            } else if pad {
                out.push('=');
            }
        }
    }
    out
}

/// Decodes standard base64; padding is optional, nothing else is tolerated.
pub(crate) fn base64_decode(text: &str) -> Option<Vec<u8>> {
    let bytes = text.trim_end_matches('=').as_bytes();
    if text.len() - bytes.len() > 2 || bytes.len() % 4 == 1 {
        return None;
    }
    let mut out = Vec::with_capacity(bytes.len() * 3 / 4);
    let mut acc: u32 = 0;
    let mut bits = 0;
    for &c in bytes {
        let v = match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            _ => return None,
        };
        acc = (acc << 6) | u32::from(v);
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
            acc &= (1 << bits) - 1;
        }
    }
    Some(out)
}

/// `SHA256:<base64 without padding>` of a public key blob, as ssh-keygen and
/// git print it.
pub(crate) fn fingerprint(key_blob: &[u8]) -> String {
    format!("SHA256:{}", base64_encode(&Sha256::digest(key_blob), false))
}

/// Reads SSH wire-format values from a byte slice.
pub(crate) struct Reader<'a>(&'a [u8]);

impl<'a> Reader<'a> {
    pub(crate) fn new(data: &'a [u8]) -> Self {
        Reader(data)
    }

    pub(crate) fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        if self.0.len() < n {
            return None;
        }
        let (head, tail) = self.0.split_at(n);
        self.0 = tail;
        Some(head)
    }

    pub(crate) fn u32(&mut self) -> Option<u32> {
        let b = self.take(4)?;
        Some(u32::from_be_bytes([b[0], b[1], b[2], b[3]]))
    }

    pub(crate) fn string(&mut self) -> Option<&'a [u8]> {
        let n = usize::try_from(self.u32()?).ok()?;
        self.take(n)
    }
}

/// The key type a public key blob names (its first SSH string).
pub(crate) fn blob_key_type(blob: &[u8]) -> Option<String> {
    let t = Reader::new(blob).string()?;
    String::from_utf8(t.to_vec()).ok()
}

/// The body between `-----BEGIN <label>-----` and `-----END <label>-----`,
/// base64-decoded. Whitespace inside the body is ignored (OpenSSH does the
/// same); anything before or after the markers other than whitespace is not.
pub(crate) fn dearmor(text: &str, label: &str) -> Option<Vec<u8>> {
    let begin = format!("-----BEGIN {label}-----");
    let end = format!("-----END {label}-----");
    let rest = text.trim().strip_prefix(&begin)?;
    let body = rest.strip_suffix(&end)?;
    let compact: String = body.chars().filter(|c| !c.is_ascii_whitespace()).collect();
    base64_decode(&compact)
}

/// Wraps `data` as PEM with 70-column base64 lines, OpenSSH's layout.
pub(crate) fn armor(data: &[u8], label: &str) -> String {
    let b64 = base64_encode(data, true);
    let mut out = format!("-----BEGIN {label}-----\n");
    for line in b64.as_bytes().chunks(70) {
        out.push_str(&String::from_utf8_lossy(line));
        out.push('\n');
    }
    out.push_str(&format!("-----END {label}-----\n"));
    out
}

/// The fields of an SSHSIG blob that matter before cryptographic checking.
pub(crate) struct SshSigInfo {
    pub(crate) key_blob: Vec<u8>,
    pub(crate) key_type: String,
    pub(crate) namespace: String,
    /// The whole decoded blob.
    pub(crate) raw: Vec<u8>,
}

/// Decodes an armored SSH signature far enough to name its key and namespace.
pub(crate) fn parse_sshsig(armored: &str) -> Result<SshSigInfo, String> {
    let raw = dearmor(armored, "SSH SIGNATURE")
        .ok_or_else(|| "malformed ssh signature armor or base64".to_string())?;
    let mut r = Reader::new(&raw);
    if r.take(6) != Some(b"SSHSIG".as_slice()) {
        return Err("ssh signature lacks the SSHSIG preamble".into());
    }
    let version = r.u32().ok_or("truncated ssh signature")?;
    if version > 1 {
        return Err(format!("unsupported ssh signature version {version}"));
    }
    let key_blob = r.string().ok_or("truncated ssh signature")?.to_vec();
    let namespace = r.string().ok_or("truncated ssh signature")?;
    let namespace = String::from_utf8_lossy(namespace).into_owned();
    let key_type = blob_key_type(&key_blob).ok_or("ssh signature holds a malformed public key")?;
    Ok(SshSigInfo {
        key_blob,
        key_type,
        namespace,
        raw,
    })
}

/// The cipher named in an `openssh-key-v1` private key file (`none` when the
/// key is not encrypted).
pub(crate) fn openssh_private_key_cipher(pem: &str) -> Option<String> {
    let raw = dearmor(pem, "OPENSSH PRIVATE KEY")?;
    let mut r = Reader::new(&raw);
    if r.take(15) != Some(b"openssh-key-v1\0".as_slice()) {
        return None;
    }
    let cipher = r.string()?;
    String::from_utf8(cipher.to_vec()).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_round_trips_all_lengths() {
        let data: Vec<u8> = (0u8..=255).collect();
        for n in 0..40 {
            let enc = base64_encode(&data[..n], true);
            assert_eq!(enc.len() % 4, 0);
            assert_eq!(base64_decode(&enc).as_deref(), Some(&data[..n]));
            let bare = base64_encode(&data[..n], false);
            assert_eq!(base64_decode(&bare).as_deref(), Some(&data[..n]));
        }
        assert_eq!(base64_encode(b"foobar", true), "Zm9vYmFy");
        assert_eq!(base64_encode(b"fo", true), "Zm8=");
        assert_eq!(base64_decode("Zm9v!"), None);
        assert_eq!(base64_decode("Z"), None);
        assert_eq!(base64_decode("Zm==="), None);
    }

    #[test]
    fn dearmor_needs_both_markers() {
        assert!(dearmor("-----BEGIN X-----\nZm9v\n-----END X-----\n", "X").is_some());
        assert!(dearmor("-----BEGIN X-----\nZm9v\n", "X").is_none());
        assert!(dearmor("junk-----BEGIN X-----\nZm9v\n-----END X-----", "X").is_none());
        assert_eq!(
            dearmor(&armor(&[7u8; 100], "X"), "X").as_deref(),
            Some([7u8; 100].as_slice())
        );
    }
}
