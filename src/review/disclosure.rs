//! The disclosure scanner: secrets, credentials, internal host names and
//! e-mail addresses in lesson text.
//!
//! It backs the offline judges' `disclosure` criterion (1.0 when clean, 0.0
//! on any finding) and runs on every public lesson whatever judges were used.
//! A published leak cannot be taken back, so the scanner leans towards
//! reporting; the exceptions below are the documented places where text that
//! looks like a leak is known not to be one.
//!
//! What it finds ([`FindingKind`]):
//!
//! | kind | pattern |
//! |---|---|
//! | `private_key` | a PEM `-----BEGIN … PRIVATE KEY-----` header (RSA, EC, DSA, OPENSSH, ENCRYPTED, PGP … BLOCK) |
//! | `jwt` | `eyJ….eyJ….…` (a JSON Web Token: base64url header and payload) |
//! | `aws_access_key` | `AKIA`, `ASIA` (and the other AWS key-id prefixes) + 16 upper-case alphanumerics |
//! | `github_token` | `ghp_`, `gho_`, `ghu_`, `ghs_`, `ghr_` + 36 or more; `github_pat_` + 22 or more |
//! | `gitlab_token` | `glpat-` + 20 or more |
//! | `slack_token` | `xoxa-`, `xoxb-`, `xoxp-`, `xoxr-`, `xoxs-` + 10 or more; Slack webhook URLs |
//! | `stripe_key` | `sk_live_`, `sk_test_`, `rk_live_`, `rk_test_` + 16 or more |
//! | `api_key` | `sk-…` / `sk-ant-…` / `sk-proj-…` (OpenAI and Anthropic style) with 20 or more characters after `sk-`; `AIza` + 35 (Google) |
//! | `url_credentials` | `scheme://user:password@host` |
//! | `secret_assignment` | `password=…`, `token: …`, `"api_key": "…"`, `client_secret := …`, `Bearer …` — a name *ending* in a secret word, an assignment, and a non-trivial value |
//! | `internal_host` | a host name ending in `.internal`, `.corp`, `.local`, `.lan`, `.intranet`, `.localdomain` or `.home.arpa` |
//! | `private_ip` | an IPv4 address in 10.0.0.0/8, 172.16.0.0/12 or 192.168.0.0/16 |
//! | `email` | an e-mail address |
//!
//! What it deliberately lets through:
//! - **Documentation placeholders.** E-mail addresses and URL credentials at
//!   the reserved example domains (`example.com`, `example.org`,
//!   `example.net` and their subdomains) and reserved TLDs (`.example`,
//!   `.test`, `.invalid`, `.localhost`, RFC 2606/6761); e-mail addresses whose
//!   local part is `noreply`, `no-reply`, `donotreply` or `do-not-reply` (they
//!   name no person); `git@host:…` (an scp-style remote, not a mailbox).
//!   Passwords that are placeholders (`password`, `pass`, `secret`,
//!   `changeme`, `xxx…`, `***`, `<…>`, `${…}`, `$VAR`, `{{…}}`, `%s`, `…`)
//!   are not secrets.
//! - **Assignment values that are not secrets**: shorter than 6 characters,
//!   all digits, a placeholder, an environment or template reference, a type
//!   name (`token: string`, `password: Option<String>`), or a plain word —
//!   a value must contain a digit or a symbol, mix upper and lower case after
//!   its first letter, or be at least 12 characters long. Names must *end*
//!   in the secret word, so `max_tokens=4096`, `tokenizer=…` and
//!   `secret_name=…` are not assignments of a secret.
//! - **Version numbers**: a dotted quad is an address only when it is not
//!   part of a longer dotted run and not preceded by `v`, `@`, `=`, `<`, `>`,
//!   `~` or `^`, and every part is 0–255 without leading zeros; so
//!   `>=10.1.2`, `v10.0.0.1` and `node@10.2.0.0` are not addresses.
//! - **File names and code**: `.env.local`, `settings.local.json` and
//!   `obj.internal.value` are not hosts (the match must not continue with
//!   `.<name>` nor start right after a dot), nor is a field access on a usual
//!   receiver (`this.local`, `self.internal`, `config.local`, …). The
//!   well-known names `host.docker.internal`, `gateway.docker.internal`,
//!   `kubernetes.docker.internal`, `metadata.google.internal`,
//!   `cluster.local`, `svc.cluster.local` and `localhost.localdomain` are
//!   public knowledge, not leaks.
//!
//! Each span of text is reported once, under the first kind in the table
//! that matches it (a GitHub token in `token=ghp_…` is a `github_token`).
//! Excerpts are redacted: the first four characters and the length, never
//! the secret itself. The scanner cannot recognise customer names or
//! proprietary detail; that is the command-backend judges' job.

use std::fmt;
use std::sync::OnceLock;

use regex::Regex;

use crate::model::{Candidate, Scope};

/// What a finding is. Serialises as its snake_case name (`as_str`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum FindingKind {
    PrivateKey,
    Jwt,
    AwsAccessKey,
    GithubToken,
    GitlabToken,
    SlackToken,
    StripeKey,
    ApiKey,
    UrlCredentials,
    SecretAssignment,
    InternalHost,
    PrivateIp,
    Email,
}

impl FindingKind {
    pub fn as_str(self) -> &'static str {
        match self {
            FindingKind::PrivateKey => "private_key",
            FindingKind::Jwt => "jwt",
            FindingKind::AwsAccessKey => "aws_access_key",
            FindingKind::GithubToken => "github_token",
            FindingKind::GitlabToken => "gitlab_token",
            FindingKind::SlackToken => "slack_token",
            FindingKind::StripeKey => "stripe_key",
            FindingKind::ApiKey => "api_key",
            FindingKind::UrlCredentials => "url_credentials",
            FindingKind::SecretAssignment => "secret_assignment",
            FindingKind::InternalHost => "internal_host",
            FindingKind::PrivateIp => "private_ip",
            FindingKind::Email => "email",
        }
    }
}

impl fmt::Display for FindingKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One thing the scanner found.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Finding {
    pub kind: FindingKind,
    /// A redacted excerpt: the first four characters and the length.
    pub excerpt: String,
    /// Where in a lesson it was found (`claim`, `evidence.resolution`,
    /// `applies_to.stack[1]`, …); `None` from [`scan`] on plain text.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub field: Option<String>,
}

impl fmt::Display for Finding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.field {
            Some(field) => write!(f, "{} in {}: {}", self.kind, field, self.excerpt),
            None => write!(f, "{}: {}", self.kind, self.excerpt),
        }
    }
}

/// A pattern and how to accept one of its matches.
struct Rule {
    kind: FindingKind,
    re: Regex,
    /// Given the text and the capture, the span to report, or `None` when the
    /// match is a known non-leak.
    accept: fn(&str, &regex::Captures<'_>) -> Option<(usize, usize)>,
}

fn whole(_: &str, c: &regex::Captures<'_>) -> Option<(usize, usize)> {
    c.get(0).map(|m| (m.start(), m.end()))
}

fn rules() -> &'static [Rule] {
    static RULES: OnceLock<Vec<Rule>> = OnceLock::new();
    RULES.get_or_init(|| {
        let r = |kind, pattern: &str, accept| Rule {
            kind,
            re: Regex::new(pattern).unwrap_or_else(|e| panic!("built-in pattern {pattern:?}: {e}")),
            accept,
        };
        vec![
            r(
                FindingKind::PrivateKey,
                r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----",
                whole,
            ),
            r(FindingKind::Jwt, r"\beyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]*", whole),
            r(
                FindingKind::AwsAccessKey,
                r"\b(?:AKIA|ASIA|AGPA|AIDA|AROA|AIPA|ANPA|ANVA|ABIA|ACCA)[0-9A-Z]{16}\b",
                whole,
            ),
            r(
                FindingKind::GithubToken,
                r"\b(?:gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{22,255})\b",
                whole,
            ),
            r(FindingKind::GitlabToken, r"\bglpat-[A-Za-z0-9_-]{20,}", whole),
            r(
                FindingKind::SlackToken,
                r"\bxox[abprs]-[A-Za-z0-9-]{10,}|https://hooks\.slack\.com/services/[A-Za-z0-9/_-]{10,}",
                whole,
            ),
            r(FindingKind::StripeKey, r"\b[rs]k_(?:live|test)_[0-9A-Za-z]{16,}", whole),
            r(FindingKind::ApiKey, r"\bsk-[A-Za-z0-9_-]{20,}|\bAIza[0-9A-Za-z_-]{35}", whole),
            r(
                FindingKind::UrlCredentials,
                r"\b[A-Za-z][A-Za-z0-9+.-]*://([^/\s:@]+):([^/\s@]+)@([A-Za-z0-9.-]+)",
                accept_url_credentials,
            ),
            r(
                FindingKind::SecretAssignment,
                r#"(?i)\b(?:[a-z0-9]+[_.-])*(?:password|passwd|pwd|passphrase|secret|token|api[_-]?key|apikey|access[_-]?key|secret[_-]?key|private[_-]?key|client[_-]?secret|auth)["']?\s*(?::=|=>|[:=])\s*["'`]?([^\s"'`,;]+)"#,
                accept_assignment,
            ),
            r(FindingKind::SecretAssignment, r"(?i)\bbearer\s+([A-Za-z0-9._~+/-]{16,}=*)", whole),
            r(
                FindingKind::InternalHost,
                r"(?i)\b((?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+(?:internal|corp|local|lan|intranet|localdomain|home\.arpa))\b(\.[a-z0-9])?",
                accept_host,
            ),
            r(
                FindingKind::PrivateIp,
                r"(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})",
                accept_ip,
            ),
            r(
                FindingKind::Email,
                r"\b([A-Za-z0-9._%+-]+)@((?:[A-Za-z0-9-]+\.)+[A-Za-z]{2,})\b",
                accept_email,
            ),
        ]
    })
}

const EXAMPLE_DOMAINS: [&str; 3] = ["example.com", "example.org", "example.net"];
const RESERVED_TLDS: [&str; 4] = ["example", "test", "invalid", "localhost"];

fn is_example_host(host: &str) -> bool {
    let h = host.trim_end_matches('.').to_ascii_lowercase();
    EXAMPLE_DOMAINS
        .iter()
        .any(|d| h == *d || h.ends_with(&format!(".{d}")))
        || RESERVED_TLDS
            .iter()
            .any(|t| h == *t || h.ends_with(&format!(".{t}")))
}

fn is_placeholder(value: &str) -> bool {
    let v = value.trim_matches(|c| matches!(c, '"' | '\'' | '`'));
    let lower = v.to_ascii_lowercase();
    const WORDS: [&str; 22] = [
        "password",
        "passwd",
        "pass",
        "pwd",
        "secret",
        "token",
        "changeme",
        "change_me",
        "redacted",
        "example",
        "placeholder",
        "your_password",
        "yourpassword",
        "your_token",
        "your-token",
        "your_api_key",
        "null",
        "none",
        "undefined",
        "true",
        "false",
        "empty",
    ];
    v.is_empty()
        || WORDS.contains(&lower.as_str())
        || v.starts_with('$')
        || v.starts_with('<')
        || v.starts_with('{')
        || v.starts_with('%')
        || v.starts_with('[')
        || v.starts_with('(')
        || v.contains("...")
        || v.contains('…')
        || lower.starts_with("process.env")
        || lower.starts_with("os.environ")
        || lower.starts_with("env.")
        || lower.starts_with("env(")
        || lower.starts_with("secrets.")
        || lower.starts_with("your")
        || (v.len() >= 3 && v.chars().all(|c| c == v.chars().next().unwrap_or('x')))
        || v.chars()
            .all(|c| matches!(c, 'x' | 'X' | '*' | '.' | '-' | '_' | '#'))
}

fn accept_url_credentials(_: &str, c: &regex::Captures<'_>) -> Option<(usize, usize)> {
    let pass = c.get(2)?.as_str();
    let host = c.get(3)?.as_str();
    if is_placeholder(pass) || is_example_host(host) {
        return None;
    }
    whole("", c)
}

fn accept_assignment(_: &str, c: &regex::Captures<'_>) -> Option<(usize, usize)> {
    let value = c.get(1)?.as_str();
    let v = value.trim_end_matches(['.', ')', ']', '}']);
    if v.chars().count() < 6 || is_placeholder(v) || v.chars().all(|ch| ch.is_ascii_digit()) {
        return None;
    }
    // A type annotation or generic, not a value.
    if v.contains('<') || v.contains('>') || v.contains("::") {
        return None;
    }
    let has_digit = v.chars().any(|ch| ch.is_ascii_digit());
    let has_symbol = v.chars().any(|ch| !ch.is_alphanumeric());
    let inner_upper =
        v.chars().skip(1).any(|ch| ch.is_uppercase()) && v.chars().any(|ch| ch.is_lowercase());
    if !(has_digit || has_symbol || inner_upper || v.chars().count() >= 12) {
        return None;
    }
    // A duration or size ("3600s", "10m", "512mb") is configuration, not a secret.
    let lower = v.to_ascii_lowercase();
    let unit = lower.trim_start_matches(|ch: char| ch.is_ascii_digit());
    if unit.len() < lower.len() && ["ms", "s", "m", "h", "d", "kb", "mb", "gb"].contains(&unit) {
        return None;
    }
    whole("", c)
}

const HOST_ALLOW: [&str; 7] = [
    "host.docker.internal",
    "gateway.docker.internal",
    "kubernetes.docker.internal",
    "metadata.google.internal",
    "cluster.local",
    "svc.cluster.local",
    "localhost.localdomain",
];

const CODE_RECEIVERS: [&str; 23] = [
    "this",
    "self",
    "super",
    "that",
    "window",
    "global",
    "globalthis",
    "module",
    "exports",
    "process",
    "ctx",
    "obj",
    "opts",
    "options",
    "props",
    "state",
    "env",
    "config",
    "cfg",
    "settings",
    "std",
    "crate",
    "os",
];

fn accept_host(text: &str, c: &regex::Captures<'_>) -> Option<(usize, usize)> {
    let host = c.get(1)?;
    if c.get(2).is_some() {
        return None; // continues as `.<name>`: a file name or a member chain
    }
    if text[..host.start()].ends_with('.') {
        return None; // `.env.local`
    }
    let name = host.as_str().to_ascii_lowercase();
    if HOST_ALLOW.contains(&name.as_str()) {
        return None;
    }
    let labels: Vec<&str> = name.split('.').collect();
    if labels.len() == 2 && CODE_RECEIVERS.contains(&labels[0]) {
        return None;
    }
    Some((host.start(), host.end()))
}

fn accept_ip(text: &str, c: &regex::Captures<'_>) -> Option<(usize, usize)> {
    let m = c.get(0)?;
    let before = text[..m.start()].chars().next_back();
    let after = text[m.end()..].chars().next();
    if before.is_some_and(|ch| {
        ch.is_alphanumeric() || matches!(ch, '.' | '_' | '@' | '=' | '<' | '>' | '~' | '^')
    }) || after.is_some_and(|ch| ch.is_alphanumeric() || ch == '_')
        || text[m.end()..].starts_with('.')
            && text[m.end() + 1..].starts_with(|ch: char| ch.is_ascii_digit())
    {
        return None;
    }
    let mut octets = [0u16; 4];
    for (i, o) in octets.iter_mut().enumerate() {
        let s = c.get(i + 1)?.as_str();
        if s.len() > 1 && s.starts_with('0') {
            return None;
        }
        *o = s.parse().ok()?;
        if *o > 255 {
            return None;
        }
    }
    let private = octets[0] == 10
        || (octets[0] == 172 && (16..=31).contains(&octets[1]))
        || (octets[0] == 192 && octets[1] == 168);
    private.then_some((m.start(), m.end()))
}

fn accept_email(text: &str, c: &regex::Captures<'_>) -> Option<(usize, usize)> {
    let m = c.get(0)?;
    let local = c.get(1)?.as_str().to_ascii_lowercase();
    let domain = c.get(2)?.as_str();
    if is_example_host(domain)
        || ["noreply", "no-reply", "donotreply", "do-not-reply"].contains(&local.as_str())
        || local == "git"
        || text[m.end()..].starts_with(':')
            && text[m.end() + 1..].starts_with(|ch: char| !ch.is_whitespace())
    {
        return None;
    }
    Some((m.start(), m.end()))
}

fn redact(s: &str) -> String {
    let n = s.chars().count();
    let head: String = s.chars().take(4.min(n / 2)).collect();
    format!("{head}… ({n} characters)")
}

/// Scans plain text. Findings come in text order, one per span.
pub fn scan(text: &str) -> Vec<Finding> {
    let mut spans: Vec<(usize, usize, FindingKind)> = Vec::new();
    for rule in rules() {
        for c in rule.re.captures_iter(text) {
            let Some((start, end)) = (rule.accept)(text, &c) else {
                continue;
            };
            if spans.iter().any(|&(s, e, _)| start < e && s < end) {
                continue;
            }
            spans.push((start, end, rule.kind));
        }
    }
    spans.sort_by_key(|&(s, _, _)| s);
    spans
        .into_iter()
        .map(|(s, e, kind)| Finding {
            kind,
            excerpt: redact(&text[s..e]),
            field: None,
        })
        .collect()
}

/// Scans every string of a candidate (claim, rationale, every evidence and
/// applies_to string, scope keys and values, the justification), naming the
/// field of each finding.
pub fn scan_lesson(c: &Candidate) -> Vec<Finding> {
    let mut fields: Vec<(String, &str)> = vec![
        ("claim".into(), &c.claim),
        ("rationale".into(), &c.rationale),
        ("evidence.resolution".into(), &c.evidence.resolution),
        ("evidence.project_key".into(), &c.evidence.project_key),
        ("evidence.observed_at".into(), &c.evidence.observed_at),
    ];
    for (i, s) in c.evidence.session_ids.iter().enumerate() {
        fields.push((format!("evidence.session_ids[{i}]"), s));
    }
    for (i, s) in c.applies_to.stack.iter().enumerate() {
        fields.push((format!("applies_to.stack[{i}]"), s));
    }
    match &c.applies_to.scope {
        Scope::Versioned { versions } => {
            for (k, v) in versions {
                fields.push(("applies_to.scope.versions (key)".into(), k));
                fields.push((format!("applies_to.scope.versions.{k}"), v));
            }
        }
        Scope::VersionIndependent { justification } => {
            fields.push(("applies_to.scope.justification".into(), justification));
        }
    }
    for (i, s) in c.applies_to.file_patterns.iter().enumerate() {
        fields.push((format!("applies_to.file_patterns[{i}]"), s));
    }
    for (i, s) in c.applies_to.task_kinds.iter().enumerate() {
        fields.push((format!("applies_to.task_kinds[{i}]"), s));
    }
    fields
        .into_iter()
        .flat_map(|(name, text)| {
            scan(text).into_iter().map(move |f| Finding {
                field: Some(name.clone()),
                ..f
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::review::testdata;

    fn kinds(text: &str) -> Vec<FindingKind> {
        scan(text).into_iter().map(|f| f.kind).collect()
    }

    fn assert_finds(kind: FindingKind, texts: &[&str]) {
        for t in texts {
            assert_eq!(kinds(t), [kind], "in {t:?}");
        }
    }

    fn assert_clean(texts: &[&str]) {
        for t in texts {
            assert_eq!(scan(t), [], "in {t:?}");
        }
    }

    #[test]
    fn private_keys() {
        assert_finds(
            FindingKind::PrivateKey,
            &[
                "-----BEGIN RSA PRIVATE KEY-----\nMIIEow...",
                "key: -----BEGIN OPENSSH PRIVATE KEY----- b3BlbnNzaC1rZXk",
                "-----BEGIN PRIVATE KEY-----",
                "-----BEGIN ENCRYPTED PRIVATE KEY-----",
                "-----BEGIN PGP PRIVATE KEY BLOCK-----",
            ],
        );
        assert_clean(&[
            "-----BEGIN PUBLIC KEY-----",
            "-----BEGIN CERTIFICATE-----",
            "use a private key file",
        ]);
    }

    #[test]
    fn jwts() {
        assert_finds(
            FindingKind::Jwt,
            &["Authorization header eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"],
        );
        assert_clean(&[
            "the eyJ prefix marks base64 JSON",
            "eyJhbGciOiJIUzI1NiJ9 alone is a header",
        ]);
    }

    #[test]
    fn aws_keys() {
        assert_finds(
            FindingKind::AwsAccessKey,
            &[
                "aws_access_key_id AKIAIOSFODNN7EXAMPLE",
                "ASIAY34FZKBOKMUTVV7A was the session key",
            ],
        );
        assert_clean(&[
            "AKIA is the prefix of AWS access keys",
            "AKIAIOSFODNN7EXAMPL",
            "XAKIAIOSFODNN7EXAMPLE1",
        ]);
    }

    #[test]
    fn github_gitlab_slack_stripe_and_api_keys() {
        assert_finds(
            FindingKind::GithubToken,
            &[
                "ghp_16C7e42F292c6912E7710c838347Ae178B4a",
                "export GH=gho_16C7e42F292c6912E7710c838347Ae178B4a",
                "github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz",
            ],
        );
        assert_finds(FindingKind::GitlabToken, &["glpat-xxYYzz0011223344556677"]);
        assert_finds(
            FindingKind::SlackToken,
            &[
                "xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx",
                "xoxp-1234567890-abcdef",
                "https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX",
            ],
        );
        assert_finds(
            FindingKind::StripeKey,
            &[
                "sk_live_4eC39HqLyjWDarjtT1zdp7dc",
                "rk_test_51H8abcdefghijklmn",
            ],
        );
        assert_finds(
            FindingKind::ApiKey,
            &[
                "OPENAI_API_KEY is sk-proj-abcdefghijklmnopqrstuvwxyz0123",
                "sk-ant-api03-abcdefghijklmnopqrstuvwxyz",
                "sk-abcdefghijklmnopqrstuvwxyz012345",
                "AIzaSyDaGmWKa4JsXZ-HjGw7ISLn_3namBGewQe",
            ],
        );
        // Prefix talk, short values and look-alike words are not keys.
        assert_clean(&[
            "GitHub tokens start with ghp_ or github_pat_",
            "ghp_short",
            "glpat- tokens expire",
            "xoxb- is a bot token prefix",
            "sk-learn is not a package; scikit-learn is",
            "risk-assessment-framework-for-teams",
            "task-runner-with-many-words-in-it",
            "sk_live_ keys are secret",
        ]);
    }

    #[test]
    fn url_credentials() {
        assert_finds(
            FindingKind::UrlCredentials,
            &[
                "DATABASE_URL=postgres://app:s3cr3tPw@db.prod.acme.io:5432/app",
                "clone https://deploy:hunter22@git.acme.io/x.git",
            ],
        );
        assert_clean(&[
            "postgres://user:password@localhost/db",
            "https://user:pass@example.com/",
            "redis://:${REDIS_PASSWORD}@cache:6379",
            "mysql://root:<password>@127.0.0.1/db",
            "https://alice:s3cr3t@api.example.org/v1",
            "https://registry.npmjs.org/vite",
            "ssh://git@github.com/org/repo.git",
        ]);
    }

    #[test]
    fn secret_assignments() {
        assert_finds(
            FindingKind::SecretAssignment,
            &[
                "password=hunter22",
                "set DB_PASSWORD: 'Tr0ub4dor&3'",
                r#"{"api_key": "a1b2c3d4e5f6g7h8"}"#,
                "client_secret := 9f8e7d6c5b4a",
                "token=correcthorsebatterystaple",
                "export AUTH_TOKEN=AbCdEfGhIj",
                "Authorization: Bearer abcdefghijklmnop0123456789",
                "--password=p4ssw0rd!",
            ],
        );
        assert_clean(&[
            "max_tokens=4096",
            "token_limit: 100000",
            "password: string",
            "token: Option<String>",
            "password=password",
            "password=${DB_PASSWORD}",
            "secret: process.env.SECRET",
            "api_key = os.environ['API_KEY']",
            "token: <your token>",
            "password=xxxxxxxx",
            "password: ********",
            "secret_name=my-app-secret",
            "tokenizer=cl100k_base",
            "token_type: bearer",
            "the token: it expires",
            "session_ttl=3600s",
            "password=changeme",
            "auth: required",
            "token: ${{ secrets.GITHUB_TOKEN }}",
        ]);
    }

    #[test]
    fn internal_hosts() {
        assert_finds(
            FindingKind::InternalHost,
            &[
                "the build cache lives on cache01.build.internal",
                "ssh into jenkins.corp",
                "printer.local was down",
                "nas.lan:8080",
                "see wiki.intranet/page",
                "db.home.arpa",
                "api.payments.svc.cluster.local",
            ],
        );
        assert_clean(&[
            "copy .env.local to .env",
            "edit appsettings.local.json",
            "vite.config.local.ts overrides it",
            "use host.docker.internal from a container",
            "metadata.google.internal serves credentials",
            "this.local is undefined in arrow functions",
            "self.internal holds the state",
            "obj.internal.value",
            "the local network, an internal API, a corp policy",
            "localhost.localdomain",
        ]);
    }

    #[test]
    fn private_ips() {
        assert_finds(
            FindingKind::PrivateIp,
            &[
                "connect to 10.0.3.17",
                "172.16.0.1:8080",
                "172.31.255.255/16",
                "(192.168.1.20)",
                "at 10.1.2.3.",
            ],
        );
        assert_clean(&[
            "vite >=10.1.2 <11",
            "upgrade to 10.1.2",
            "v10.0.0.1",
            "node@10.2.0.0",
            ">=10.0.0.0 <11",
            "172.32.0.1 is public",
            "192.169.1.1",
            "8.8.8.8",
            "127.0.0.1",
            "10.0.19041.1",
            "1.10.0.0.1",
            "010.0.0.1",
            "10.0.0.256",
        ]);
    }

    #[test]
    fn emails() {
        assert_finds(
            FindingKind::Email,
            &[
                "ask jane.doe@acme-corp.com",
                "mail <ops+alerts@acme.io>",
                "Jane.Doe@Company.CO.UK",
            ],
        );
        assert_clean(&[
            "user@example.com",
            "ops@mail.example.org",
            "a@b.example",
            "x@host.test",
            "noreply@github.com",
            "no-reply@acme.io",
            "git@github.com:org/repo.git",
            "npm i vite@5.4.21",
            "@types/node@20.1.0",
            "nginx@sha256:abc",
            "pnpm add @scope/pkg",
        ]);
    }

    #[test]
    fn each_span_is_reported_once_and_redacted() {
        let t = "token=ghp_16C7e42F292c6912E7710c838347Ae178B4a";
        let found = scan(t);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].kind, FindingKind::GithubToken);
        assert_eq!(found[0].excerpt, "ghp_… (40 characters)");
        assert!(!found[0].to_string().contains("16C7e42F"));
        assert_eq!(
            serde_json::to_value(&found[0]).unwrap(),
            serde_json::json!({"kind": "github_token", "excerpt": "ghp_… (40 characters)"})
        );
        // URL credentials swallow the host and address inside them.
        assert_eq!(
            kinds("postgres://app:s3cr3tPw@db.internal/app"),
            [FindingKind::UrlCredentials]
        );
        // Text order.
        assert_eq!(
            kinds("mail jane@acme.io or call 10.0.0.7"),
            [FindingKind::Email, FindingKind::PrivateIp]
        );
    }

    #[test]
    fn the_reference_lesson_is_clean_and_a_leak_is_located() {
        let mut p = testdata::proposal("proposal.pending.json");
        assert_eq!(scan_lesson(&p.candidate), []);
        p.candidate.evidence.resolution =
            "Pin vitest; the CI runner at ci01.build.internal needed it".into();
        p.candidate.applies_to.scope = Scope::VersionIndependent {
            justification: "ask bob@acme.io".into(),
        };
        let found = scan_lesson(&p.candidate);
        let got: Vec<(FindingKind, Option<&str>)> =
            found.iter().map(|f| (f.kind, f.field.as_deref())).collect();
        assert_eq!(
            got,
            [
                (FindingKind::InternalHost, Some("evidence.resolution")),
                (FindingKind::Email, Some("applies_to.scope.justification")),
            ]
        );
    }
}
