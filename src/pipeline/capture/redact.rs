//! Redacting what the disclosure scanner finds, before transcript text
//! becomes an artifact or goes into a prompt.
//!
//! Tool output comes from the user's machine and can hold keys, tokens,
//! passwords, internal host names, home directories and e-mail addresses.
//! Every span that [`crate::scanner::find`] locates is replaced with
//! `[redacted:<kind>]` (`[redacted:aws_access_key]`, `[redacted:home_path]`),
//! a text the scanner itself never flags, and the kinds redacted are
//! returned so the caller can say so. The scanner locates each finding in
//! the text as written, through its disguises: a token with a zero-width
//! space inside is replaced whole, a percent-encoded one where it is
//! encoded, and a home path up to its user name (`[redacted:home_path]/src`).
//!
//! The text is scanned again after each pass until it scans clean. It fails
//! closed ([`RedactError`]) when more than [`MAX_FINDINGS`] would have to
//! be redacted (every pass redacts at least one, so this also bounds the
//! passes): the caller must then drop the text, never keep it. Each pass is
//! one scan, so the bound is generous: a macOS transcript's tool output
//! names the home directory in every path it prints. This
//! module must not decide what is a secret (that is the scanner's) nor
//! write anything.

use crate::scanner::{find, FindingKind};

/// The most findings redacted in one text; past it the text is refused.
pub const MAX_FINDINGS: usize = 256;

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
    /// Too many findings.
    #[error("more than {limit} findings to redact")]
    TooMany { limit: usize },
}

/// The replacement for a finding of `kind`.
pub fn marker(kind: FindingKind) -> String {
    format!("[redacted:{kind}]")
}

/// Replaces every finding in `text` (see the module doc).
pub fn redact(text: &str) -> Result<Redacted, RedactError> {
    let mut text = text.to_owned();
    let mut kinds = Vec::new();
    loop {
        let found = find(&text);
        if found.is_empty() {
            return Ok(Redacted { text, kinds });
        }
        if kinds.len() + found.len() > MAX_FINDINGS {
            return Err(RedactError::TooMany {
                limit: MAX_FINDINGS,
            });
        }
        // Spans are in text order and never overlap: replace from the end.
        for l in found.iter().rev() {
            text.replace_range(l.span.clone(), &marker(l.kind));
        }
        kinds.extend(found.iter().map(|l| l.kind));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scanner::scan;

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
    fn a_home_path_keeps_the_path_and_loses_the_name() {
        let text = "failed to load config from /home/alice/acme-web/packages/ui/vitest.config.ts \
                    (C:\\Users\\carol\\repo on Windows, /Users/bob.smith/repo on a Mac); \
                    CI ran in /home/runner/work/acme-web";
        let r = redact(text).unwrap();
        assert_eq!(
            r.text,
            "failed to load config from [redacted:home_path]/acme-web/packages/ui/vitest.config.ts \
             ([redacted:home_path]\\repo on Windows, [redacted:home_path]/repo on a Mac); \
             CI ran in /home/runner/work/acme-web"
        );
        assert_eq!(r.kinds, [FindingKind::HomePath; 3]);
    }

    #[test]
    fn disguised_and_encoded_secrets_are_replaced_where_they_are_written() {
        let token = concat!("ghp_", "16C7e42F292c6912E7710c838347Ae178B4a");
        let hidden = token.replacen("42F", "4\u{200B}2F", 1);
        let encoded = token.replace('_', "%5F");
        let text = format!("a {hidden} b https://x.acme.io/?t={encoded}&n=1 c");
        let r = redact(&text).unwrap();
        assert_eq!(
            r.text,
            "a [redacted:github_token] b https://x.acme.io/?t=[redacted:github_token]&n=1 c"
        );
        assert_eq!(scan(&r.text), []);
    }
}
