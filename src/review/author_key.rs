//! The author key of a pool entry: derived per visibility
//! from the user's secret, so that entries of one author are linkable within
//! a tier and not across tiers.
//!
//! `author_key(v) = hex(HMAC-SHA256(key = the secret's 64 ASCII hex
//! characters, message = "onlooker.author.v1:" + v))[0..32]`.
//!
//! The secret is 64 lowercase hex characters (32 random bytes), created once
//! with mode 0600 and never regenerated; creating the file and checking its
//! permissions are the caller's job ([`secret_from_random`] formats the
//! random bytes the caller supplies). Only the first line of the file is
//! read, and it must be exactly `^[0-9a-f]{64}$`. Errors never quote the
//! secret.

use hmac::{Hmac, Mac};
use sha2::Sha256;

use super::ReviewError;
use crate::model::Visibility;

/// The domain-separation prefix of the HMAC message.
pub const AUTHOR_KEY_CONTEXT: &str = "onlooker.author.v1:";

/// Derives the 32-hex author key for `visibility` from a 64-hex secret.
pub fn author_key(secret_hex: &str, visibility: Visibility) -> Result<String, ReviewError> {
    check_secret(secret_hex)?;
    let mut mac = Hmac::<Sha256>::new_from_slice(secret_hex.as_bytes())
        .map_err(|_| ReviewError::BadAuthorSecret("it cannot key an HMAC".to_owned()))?;
    mac.update(AUTHOR_KEY_CONTEXT.as_bytes());
    mac.update(visibility.as_str().as_bytes());
    let mut key = hex::encode(mac.finalize().into_bytes());
    key.truncate(32);
    Ok(key)
}

/// Reads the secret from the bytes of the secret file: its first line, which
/// must be exactly 64 lowercase hex characters.
pub fn parse_secret(file_bytes: &[u8]) -> Result<String, ReviewError> {
    let first = file_bytes.split(|&b| b == b'\n').next().unwrap_or_default();
    let line = std::str::from_utf8(first)
        .map_err(|_| ReviewError::BadAuthorSecret("its first line is not text".to_owned()))?;
    check_secret(line)?;
    Ok(line.to_owned())
}

/// Formats 32 random bytes (supplied by the caller) as a new secret.
pub fn secret_from_random(random: [u8; 32]) -> String {
    hex::encode(random)
}

fn check_secret(s: &str) -> Result<(), ReviewError> {
    let n = s.chars().count();
    let why = if s.is_empty() {
        "it is empty".to_owned()
    } else if let Some(c) = s.chars().find(|c| !matches!(c, '0'..='9' | 'a'..='f')) {
        if c.is_ascii_hexdigit() {
            "it has an upper-case hex character".to_owned()
        } else if c.is_whitespace() {
            "it has white space".to_owned()
        } else {
            "it has a character that is not hex".to_owned()
        }
    } else if n < 64 {
        format!("it is too short ({n} characters)")
    } else if n > 64 {
        format!("it is too long ({n} characters)")
    } else {
        return Ok(());
    };
    Err(ReviewError::BadAuthorSecret(why))
}

/// True when `key` has the author-key shape: 32 lowercase hex characters.
pub fn is_author_key(key: &str) -> bool {
    key.len() == 32 && key.bytes().all(|c| matches!(c, b'0'..=b'9' | b'a'..=b'f'))
}

#[cfg(test)]
mod tests {
    use super::*;

    const ZERO: &str = "0000000000000000000000000000000000000000000000000000000000000000";

    #[test]
    fn golden_vectors() {
        assert_eq!(
            author_key(ZERO, Visibility::Public).unwrap(),
            "11ff8ab7134c834e788ab4a5130f7853"
        );
        assert_eq!(
            author_key(ZERO, Visibility::Private).unwrap(),
            "e74674c25190cdf15099604441bb0d4b"
        );
        assert_eq!(
            author_key(ZERO, Visibility::Org).unwrap(),
            "a8cf0203e178702412d37d5f796adbdc"
        );
    }

    #[test]
    fn keys_differ_across_tiers_and_secrets() {
        let other = "f".repeat(64);
        let mut all: Vec<String> = Vec::new();
        for s in [ZERO, other.as_str()] {
            for &v in Visibility::ALL {
                let k = author_key(s, v).unwrap();
                assert!(is_author_key(&k));
                all.push(k);
            }
        }
        all.sort();
        all.dedup();
        assert_eq!(all.len(), 6);
    }

    #[test]
    fn parse_secret_reads_the_first_line_only() {
        assert_eq!(parse_secret(format!("{ZERO}\n").as_bytes()).unwrap(), ZERO);
        assert_eq!(parse_secret(ZERO.as_bytes()).unwrap(), ZERO);
        assert_eq!(
            parse_secret(format!("{ZERO}\nanything else\n").as_bytes()).unwrap(),
            ZERO
        );
    }

    #[test]
    fn parse_secret_refusals() {
        let secretish = format!("{}g", &ZERO[..63]);
        let cases: Vec<(Vec<u8>, &str)> = vec![
            (b"".to_vec(), "it is empty"),
            (b"\nlater line".to_vec(), "it is empty"),
            (
                ZERO.as_bytes()[..63].to_vec(),
                "it is too short (63 characters)",
            ),
            (
                format!("{ZERO}0").into_bytes(),
                "it is too long (65 characters)",
            ),
            (secretish.into_bytes(), "it has a character that is not hex"),
            (
                ZERO.to_uppercase().replace('0', "A").into_bytes(),
                "it has an upper-case hex character",
            ),
            (format!("{ZERO}\r\n").into_bytes(), "it has white space"),
            (
                format!(" {}", &ZERO[1..]).into_bytes(),
                "it has white space",
            ),
            (vec![0xff; 64], "its first line is not text"),
        ];
        for (bytes, want) in cases {
            let e = parse_secret(&bytes).unwrap_err();
            assert_eq!(e, ReviewError::BadAuthorSecret(want.to_owned()));
            assert!(e
                .to_string()
                .ends_with("it must be exactly 64 lowercase hex characters on its first line"));
        }
        let e = author_key("abc", Visibility::Org).unwrap_err();
        assert_eq!(
            e,
            ReviewError::BadAuthorSecret("it is too short (3 characters)".to_owned())
        );
    }

    #[test]
    fn secret_from_random_is_parseable() {
        let s = secret_from_random([0xab; 32]);
        assert_eq!(parse_secret(s.as_bytes()).unwrap(), s);
    }
}
