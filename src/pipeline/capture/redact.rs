//! Redacting what the disclosure scanner finds, before transcript text
//! becomes an artifact or goes into a prompt.
//!
//! Tool output comes from the user's machine and can hold keys, tokens,
//! passwords, internal host names and e-mail addresses. Every span that
//! [`crate::review::disclosure::scan`] reports is replaced with
//! `[redacted:<kind>]` (`[redacted:aws_access_key]`), a text the scanner
//! itself never flags, and the kinds redacted are returned so the caller can
//! say so.
//!
//! The scanner reports each finding's kind and a redacted excerpt (its first
//! characters and its length), not its position. A finding is located by
//! trying each place the excerpt's first characters occur, replacing the
//! excerpt's length of text there, and scanning again: the place is the one
//! whose replacement makes that finding go away (in context, so a version
//! number that merely looks like an address is never mistaken for the
//! address next to it). This repeats until the text scans clean.
//!
//! It fails closed ([`RedactError`]) when a finding cannot be located, or
//! more than [`MAX_FINDINGS`] would have to be redacted: the caller must then
//! drop the text, never keep it. This module must not decide what is a
//! secret (that is the scanner's) nor write anything.

use crate::review::disclosure::{scan, Finding, FindingKind};

/// The most findings redacted in one text; past it the text is refused.
pub const MAX_FINDINGS: usize = 64;

/// A text with its findings replaced.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Redacted {
    /// The text, each finding replaced by `[redacted:<kind>]`.
    pub text: String,
    /// The kind of each replacement, in the order they were made.
    pub kinds: Vec<FindingKind>,
}

/// Why a text could not be made clean.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RedactError {
    /// The scanner reports a finding that could not be located.
    #[error("a {0} finding could not be located for redaction")]
    Unlocatable(FindingKind),
    /// Too many findings.
    #[error("more than {limit} findings to redact")]
    TooMany { limit: usize },
}

/// The replacement for a finding of `kind`.
pub fn marker(kind: FindingKind) -> String {
    format!("[redacted:{kind}]")
}

/// The first characters and the length in characters that an excerpt
/// (`"AKIA… (20 characters)"`) gives.
fn excerpt_parts(f: &Finding) -> Option<(&str, usize)> {
    let (head, rest) = f.excerpt.rsplit_once("… (")?;
    let n = rest.strip_suffix(" characters)")?.parse().ok()?;
    Some((head, n))
}

/// The byte index `chars` characters after `start`, if the text is that long.
fn advance(text: &str, start: usize, chars: usize) -> Option<usize> {
    let rest = &text[start..];
    if chars == 0 {
        return Some(start);
    }
    match rest.char_indices().nth(chars) {
        Some((i, _)) => Some(start + i),
        None => (rest.chars().count() == chars).then_some(text.len()),
    }
}

fn count(findings: &[Finding], f: &Finding) -> usize {
    findings
        .iter()
        .filter(|g| g.kind == f.kind && g.excerpt == f.excerpt)
        .count()
}

/// Replaces every finding in `text` (see the module doc).
pub fn redact(text: &str) -> Result<Redacted, RedactError> {
    let mut text = text.to_owned();
    let mut kinds = Vec::new();
    loop {
        let findings = scan(&text);
        let Some(first) = findings.first() else {
            return Ok(Redacted { text, kinds });
        };
        if kinds.len() >= MAX_FINDINGS {
            return Err(RedactError::TooMany {
                limit: MAX_FINDINGS,
            });
        }
        let (head, n) = excerpt_parts(first).ok_or(RedactError::Unlocatable(first.kind))?;
        let before = count(&findings, first);
        let starts: Vec<usize> = if head.is_empty() {
            text.char_indices().map(|(i, _)| i).collect()
        } else {
            text.match_indices(head).map(|(i, _)| i).collect()
        };
        let replaced = starts.into_iter().find_map(|start| {
            let end = advance(&text, start, n)?;
            let candidate = format!("{}{}{}", &text[..start], marker(first.kind), &text[end..]);
            (count(&scan(&candidate), first) < before).then_some(candidate)
        });
        match replaced {
            Some(candidate) => {
                kinds.push(first.kind);
                text = candidate;
            }
            None => return Err(RedactError::Unlocatable(first.kind)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const KEY: &str = "AKIA4ZQ7XKD2NPLM3R8T";

    #[test]
    fn a_planted_aws_key_is_replaced() {
        let text = format!("Preview stack creds: AWS_ACCESS_KEY_ID={KEY} (rotate later)");
        assert_eq!(scan(&text).len(), 1);
        let r = redact(&text).unwrap();
        assert_eq!(
            r.text,
            "Preview stack creds: AWS_ACCESS_KEY_ID=[redacted:aws_access_key] (rotate later)"
        );
        assert_eq!(r.kinds, [FindingKind::AwsAccessKey]);
        assert_eq!(scan(&r.text), []);
    }

    #[test]
    fn clean_text_is_unchanged() {
        let text = "Fixed by pinning vitest to 3.2.4; vite >=10.1.2 and v10.0.0.1 are versions.";
        assert_eq!(
            redact(text).unwrap(),
            Redacted {
                text: text.into(),
                kinds: vec![]
            }
        );
    }

    #[test]
    fn every_kind_is_redacted_in_context() {
        let text = "mail jane.doe@acme-corp.com, host cache01.build.internal, ip 10.0.3.17 next to v10.0.3.17, \
                    token=ghp_16C7e42F292c6912E7710c838347Ae178B4a, postgres://app:s3cr3tPw@db.internal/app, \
                    and again jane.doe@acme-corp.com";
        let r = redact(text).unwrap();
        assert_eq!(
            r.text,
            "mail [redacted:email], host [redacted:internal_host], ip [redacted:private_ip] next to v10.0.3.17, \
             token=[redacted:github_token], [redacted:url_credentials]/app, \
             and again [redacted:email]"
        );
        assert_eq!(scan(&r.text), []);
        assert_eq!(r.kinds.len(), 6);
    }

    #[test]
    fn a_private_key_is_redacted_whole() {
        let line = "MIICdgIBADANBgkqhkiG9w0BAQEFAASCAmAwggJcAgEAAoGBAKx8Fq1dR3tLm9Wv";
        for (text, want) in [
            (
                format!("{{\"private_key\": \"-----BEGIN PRIVATE KEY-----\\n{line}\\n{line}\\n-----END PRIVATE KEY-----\\n\"}}"),
                "{[redacted:gcp_key]\\n\"}".to_owned(),
            ),
            (
                format!("-----BEGIN PRIVATE KEY-----\n{line}\n{line}\n-----END PRIVATE KEY-----\nok"),
                "[redacted:private_key]\nok".to_owned(),
            ),
            (
                format!("DEPLOY_KEY=-----BEGIN OPENSSH PRIVATE KEY----- b3BlbnNzaC1rZXktdjE{line} {line} -----END OPENSSH PRIVATE KEY-----"),
                "DEPLOY_KEY=[redacted:private_key]".to_owned(),
            ),
            (
                format!("-----BEGIN PRIVATE KEY-----\n{line}\n{line}\n\nFixed by pinning."),
                "[redacted:private_key]\n\nFixed by pinning.".to_owned(),
            ),
            (
                format!("tail of it:\n{line}\n{line}\n-----END PRIVATE KEY-----"),
                "tail of it:\n[redacted:private_key]".to_owned(),
            ),
        ] {
            let r = redact(&text).unwrap();
            assert_eq!(r.text, want, "{text}");
            assert!(!r.text.contains("MIIC") && !r.text.contains("END"), "{text}");
        }
    }

    #[test]
    fn a_version_that_looks_like_the_address_is_not_taken_for_it() {
        // The excerpt of the address ("10.0… (9 characters)") also starts
        // the version before it; only the address's replacement clears it.
        let r = redact("v10.0.3.17 then 10.0.3.17").unwrap();
        assert_eq!(r.text, "v10.0.3.17 then [redacted:private_ip]");
    }

    #[test]
    fn markers_never_scan_as_findings() {
        for kind in [
            FindingKind::PrivateKey,
            FindingKind::Jwt,
            FindingKind::AwsAccessKey,
            FindingKind::GithubToken,
            FindingKind::GitlabToken,
            FindingKind::SlackToken,
            FindingKind::StripeKey,
            FindingKind::ApiKey,
            FindingKind::UrlCredentials,
            FindingKind::SecretAssignment,
            FindingKind::InternalHost,
            FindingKind::PrivateIp,
            FindingKind::Email,
        ] {
            let m = marker(kind);
            for text in [
                m.clone(),
                format!("token={m}"),
                format!("\"api_key\": \"{m}\""),
                format!("password: {m}"),
            ] {
                assert_eq!(scan(&text), [], "{text}");
            }
        }
    }

    #[test]
    fn too_many_findings_fail_closed() {
        let many: String = (0..=MAX_FINDINGS)
            .map(|i| format!("user{i}@acme-corp.com "))
            .collect();
        assert_eq!(
            redact(&many),
            Err(RedactError::TooMany {
                limit: MAX_FINDINGS
            })
        );
        let fine: String = (0..MAX_FINDINGS)
            .map(|i| format!("user{i}@acme-corp.com "))
            .collect();
        assert_eq!(redact(&fine).unwrap().kinds.len(), MAX_FINDINGS);
    }

    #[test]
    fn excerpts_parse() {
        let f = &scan(&format!("x {KEY}"))[0];
        assert_eq!(excerpt_parts(f), Some(("AKIA", 20)));
        assert_eq!(advance("aé b", 0, 2), Some(3));
        assert_eq!(advance("ab", 0, 2), Some(2));
        assert_eq!(advance("ab", 0, 3), None);
    }
}
