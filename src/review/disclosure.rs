//! The disclosure scanner: secrets, credentials, internal host names and
//! e-mail addresses in lesson text.
//!
//! It backs the offline judges' `disclosure` criterion (1.0 when clean, 0.0
//! on any finding) and runs on every public lesson whatever judges were used.
//! A published leak cannot be taken back, so the scanner leans towards
//! reporting; the exceptions below are the documented places where text that
//! looks like a leak is known not to be one. It owns the patterns, the
//! placeholder rule and the redaction of what it reports; it does not decide
//! what a finding does to a verdict, and it never returns a secret.
//!
//! What it finds ([`FindingKind`]), in the order the rules are tried:
//!
//! | kind | what it matches |
//! |---|---|
//! | `private_key` | a PEM `-----BEGIN … PRIVATE KEY-----` header (RSA, EC, DSA, OPENSSH, ENCRYPTED, PGP … BLOCK) followed by at least 64 characters of key body (reported as the whole block: header, body and END line, or to the end of the base64 when the END line is missing); a key body without its header (base64 DER of an RSA or EC key, `MII…IBADAN…`, `MII…IBAAK…`, `MHcCAQEE…`, or an OpenSSH key `b3BlbnNzaC1rZXktdjE…`, 40 characters or more after that prefix); a PuTTY `Private-Lines:` block; an age `AGE-SECRET-KEY-1…` key |
//! | `jwt` | `eyJ….eyJ….…` (a JSON Web Token: base64url header and payload) |
//! | `aws_access_key` | `AKIA`, `ASIA`, `ABIA`, `ACCA`, `A3T` + one, and the AWS unique-id prefixes (`AIDA`, `AROA`, …) + 16 upper-case alphanumerics |
//! | `aws_secret_key` | a 40-character secret access key assigned to a name containing `aws` or `secret_access`; a session token (100+ base64 characters) assigned to `session_token` / `security_token`, or starting `IQoJb3JpZ2luX2Vj` / `FwoGZXIvYXdz`; a Bedrock API key `ABSK…` |
//! | `azure_key` | `AccountKey=` / `SharedAccessKey=` / `PrimaryKey=` in a connection string; an 88-character storage key assigned to a name containing `azure`, `storage` or `account` and ending in `key`; an Entra ID client secret (`abc8Q~…`); an Azure DevOps PAT (84 characters with `AZDO` at 77–80, or 52 base32 characters assigned to an `azure_devops`/`ado`/`vsts` name); a function key `code=` on `*.azurewebsites.net` |
//! | `gcp_key` | a service-account JSON `"private_key": "-----BEGIN …` (with a key body) or `"private_key_id": "<40 hex>"`; an API key `AIza` + 35; an OAuth client secret `GOCSPX-` + 28; an OAuth access token `ya29.`; a refresh token `1//0…`; an FCM server key `AAAA…:APA91b…` |
//! | `cloud_key` | DigitalOcean `dop_v1_` / `doo_v1_` / `dor_v1_` + 64 hex; Alibaba `LTAI` + 12–20; Tencent `AKID` + 32; Yandex `AQVN` + 35–38; Heroku `HRKU-AA` + 58; Fly.io `fo1_` + 43, `fm1a_` / `fm1r_` / `fm2_` + 100; Cloudflare origin CA `v1.0-…`; Databricks `dapi` + 32 hex; Supabase `sbp_` + 40 hex; Netlify `nfp_` + 36; PlanetScale `pscale_tkn_` / `pscale_oauth_` / `pscale_pw_` |
//! | `signed_url` | a URL parameter `sig=` (Azure SAS, Logic Apps), `X-Amz-Signature=` (S3 presigned), `X-Goog-Signature=` (GCS v4) or `Signature=` (S3 v2, CloudFront, GCS v2) with a value of 30 or more characters |
//! | `github_token` | `ghp_`, `gho_`, `ghu_`, `ghs_`, `ghr_` + 36 or more; `github_pat_` + 22 or more |
//! | `gitlab_token` | `glpat-`, `gldt-`, `glrt-` (runner), `glcbt-` (CI job), `glptt-`, `glft-`, `glimt-`, `glagent-`, `gloas-`, `glsoat-`, `glffct-`, `glwt-` + 20 or more; a runner registration token `GR1348941` + 20 |
//! | `devops_token` | CircleCI `CCIPAT_` / `CCIPRJ_`, or 40 hex assigned to a `circle…token` name; Travis CI 22 characters assigned to a `travis…token`/`key` name; Buildkite `bkua_` / `bkaa_` / `bkaj_`; Terraform Cloud `….atlasv1.…`; HashiCorp Vault `hvs.` / `hvb.` / `hvr.`; Pulumi `pul-` + 40 hex; Doppler `dp.pt.` …; Bitbucket `ATBB` + 32; Harness `pat.…` / `sat.…` |
//! | `registry_token` | npm `npm_` + 36; PyPI `pypi-AgEIcHlwaS5vcmc…` (and TestPyPI); Docker Hub `dckr_pat_` / `dckr_oat_` + 27; RubyGems `rubygems_` + 48 hex; NuGet `oy2` + 43; Clojars `CLOJARS_` + 60; crates.io `cio` + 32; Artifactory `AKCp` + 69, `cmVmd` + 59 |
//! | `slack_token` | `xoxa-`, `xoxb-`, `xoxe-`, `xoxo-`, `xoxp-`, `xoxr-`, `xoxs-` + 10 or more; `xapp-`; Slack webhook URLs (`hooks.slack.com/services/…`, `/workflows/…`, `/triggers/…`) |
//! | `chat_token` | a Discord bot token (its first part the base64 of a numeric id) or webhook URL; a Telegram bot token `<id>:A…` (35 characters after the colon); a Microsoft Teams incoming-webhook URL |
//! | `stripe_key` | `sk_`, `rk_` + `live_` / `test_` / `prod_` + 16 or more; a webhook secret `whsec_` + 32 |
//! | `payment_key` | Square `sq0atp-`, `sq0csp-`, `EAAA` + 60; Braintree / PayPal `access_token$production$…`; Shopify `shpat_` / `shpca_` / `shppa_` / `shpss_` + 32 hex; Plaid `access-<env>-<uuid>`; Flutterwave `FLWSECK-…-X` |
//! | `api_key` | Anthropic `sk-ant-…`; OpenAI-style `sk-…` (20 or more, with a digit, a letter, and an upper-case letter or 32 characters without a separator); Hugging Face `hf_` / `api_org_` + 34; Groq `gsk_`; Replicate `r8_`; Perplexity `pplx-`; xAI `xai-`; Twilio `SK` + 32 hex, an `AC` account id with a 32-hex auth token beside it, or an auth token assigned to a `twilio…` name; SendGrid `SG.…`; Mailgun `key-` + 32 hex and `<32>-<8>-<8>` hex; Mailchimp `<32 hex>-us<n>`; Brevo `xkeysib-`; Atlassian `ATATT3`; Linear `lin_api_`; Notion `secret_` + 43, `ntn_`; Postman `PMAK-`; Sentry `sntrys_` / `sntryu_`; Grafana `glsa_`, `glc_`, `eyJrIjoi`; New Relic `NRAK-`; Airtable `pat….…`; Dropbox `sl.…`; Mapbox `sk.eyJ…`; 1Password `ops_eyJ…` |
//! | `url_credentials` | `scheme://user:password@host` for any scheme (`postgres`, `mysql`, `mongodb+srv`, `redis`, `rediss`, `amqp`, `amqps`, `https`, …); the user may be empty (`redis://:pw@host`) |
//! | `secret_assignment` | `password=…`, `token: …`, `"api_key": "…"`, `client_secret := …`, `sasl.password=…`, `PGPASSWORD=…`, `authToken: …` — a name *ending* in a secret word, an assignment, and a value that is a secret (below); `Bearer …`; `Authorization: Basic <base64 of user:password>`; `curl -u user:password`; `requirepass …` |
//! | `internal_host` | a host name ending in `.internal`, `.corp`, `.local`, `.lan`, `.intranet`, `.localdomain` or `.home.arpa` |
//! | `private_ip` | an IPv4 address in 10.0.0.0/8, 172.16.0.0/12 or 192.168.0.0/16 |
//! | `email` | an e-mail address |
//!
//! Provider tokens are matched by their documented prefix and length, so a
//! short generic prefix (`SK`, `key-`, `hf_`, `secret_`) comes with an exact
//! length and character set and, where needed, a check of its content (a
//! digit, mixed case, a decodable id). Values without a prefix (AWS secret
//! keys, Azure storage keys, Travis tokens) are found only when assigned to a
//! name that says what they are.
//!
//! **Placeholders are not leaks.** One predicate, [`is_placeholder`], runs on
//! the secret part of every match of every kind (the token, the password of a
//! URL, the value of an assignment, the body of a key). A secret is a
//! placeholder when it
//! - is one of the documented example values (AWS's `AKIAIOSFODNN7EXAMPLE`
//!   and `wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY`, the jwt.io sample
//!   token, Azurite's well-known storage key, Stripe's documentation test
//!   keys, Telegram's sample bot token);
//! - contains a template or reference marker: `${`, `{{`, `}}`, `...`, `…`,
//!   `%s`, `%(`; or starts with `$NAME`, `$(`, `<`, `{`, `[`, `(` or `%`;
//! - contains, in one case (`example`, `EXAMPLE` or `Example`), one of the
//!   words `example`, `sample`, `dummy`, `fake`, `placeholder`, `redacted`,
//!   `changeme`, `replaceme`, `notreal`, `not_a_real`, `your`, … (only in
//!   secrets of at most 200 characters: a longer random string contains short
//!   words by chance);
//! - has a masking run — four or more of the same `x`, `X`, `*`, `#` or `•`,
//!   or six or more `0` — or eight or more ascending characters
//!   (`12345678`, `abcdefgh`) (again only up to 200 characters);
//! - is, whole, a default or filler word (`password`, `secret`, `test`,
//!   `changeme`, `admin`, `root`, `guest`, `postgres`, …), optionally followed
//!   by `1`, `12`, `123`, … or `!`; or is one character repeated.
//!
//! What else it deliberately lets through:
//! - **Documentation hosts.** E-mail addresses and URL credentials at the
//!   reserved example domains (`example.com`, `example.org`, `example.net`
//!   and their subdomains) and reserved TLDs (`.example`, `.test`,
//!   `.invalid`, `.localhost`, RFC 2606/6761); e-mail addresses whose local
//!   part is `noreply`, `no-reply`, `donotreply` or `do-not-reply` (they name
//!   no person); `git@host:…` (an scp-style remote, not a mailbox); SSH
//!   algorithm names (`aes256-gcm@openssh.com`,
//!   `curve25519-sha256@libssh.org`: a local part with a hyphen and a digit
//!   at `openssh.com` or `libssh.org`).
//! - **A private key header alone.** `-----BEGIN … PRIVATE KEY-----` with
//!   fewer than 64 characters of base64 body after it (before the next
//!   `-----`, quote or backtick) is a mention of the format, not a key.
//! - **Assignment values that are not secrets**: shorter than 6 characters,
//!   all digits, a type (`token: string`, `password: Option<String>`,
//!   `token: &str`), code (`getToken()`, `config.db.password`,
//!   `process.env.X`, `os.environ[…]`), a URL, a file path
//!   (`/run/secrets/db`, `./keys/deploy.pem`), an identifier
//!   (`my-app-token`, `SecretString`, `DB_PASSWORD`), a YAML tag or alias
//!   (`!vault`, `*anchor`), a sops `ENC[…]` value, a duration or size
//!   (`3600s`, `512mb`), or a plain word — a value must contain a digit or a
//!   symbol, mix upper and lower case after its first letter, or be at least
//!   12 characters long. Names must *end* in the secret word, so
//!   `max_tokens=4096`, `tokenizer=…`, `password_hash_len=…` and
//!   `secret_name=…` are not assignments of a secret. A `Bearer` value must
//!   contain a digit or mixed case.
//! - **Version numbers**: a dotted quad is an address only when it is not
//!   part of a longer dotted run and not preceded by `v`, `@`, `=`, `<`, `>`,
//!   `~` or `^`, and every part is 0–255 without leading zeros; so
//!   `>=10.1.2`, `v10.0.0.1` and `node@10.2.0.0` are not addresses. The
//!   private blocks themselves (`10.0.0.0/8`, `172.16.0.0/12`,
//!   `192.168.0.0/16`) are public knowledge, not an address.
//! - **File names and code**: `.env.local`, `settings.local.json` and
//!   `obj.internal.value` are not hosts (the match must not continue with
//!   `.<name>` nor start right after a dot), nor is a field access on a usual
//!   receiver (`this.local`, `self.internal`, `config.local`, …). The
//!   well-known names `host.docker.internal`, `gateway.docker.internal`,
//!   `kubernetes.docker.internal`, `metadata.google.internal`,
//!   `cluster.local`, `svc.cluster.local` and `localhost.localdomain` are
//!   public knowledge, not leaks.
//!
//! Each span of text is reported once, under the first rule (in the order of
//! the table) that matches it: a GitHub token in `token=ghp_…` is a
//! `github_token`, the key inside a service-account JSON is a `gcp_key`.
//! Excerpts are redacted: the first four characters and the length, never
//! the secret itself. The scanner cannot recognise customer names or
//! proprietary detail; that is the command-backend judges' job.
//!
//! Text that displays differently from what it is (bidirectional controls)
//! is refused before it becomes a candidate, by
//! `crate::pipeline::validate`; it is not this scanner's question.

use std::collections::BTreeMap;
use std::fmt;
use std::ops::Range;
use std::sync::OnceLock;

use base64ct::{Base64, Base64Unpadded, Encoding};
use regex::{Captures, Regex, RegexSet};

use crate::model::{Candidate, Scope};

/// What a finding is. Serialises as its snake_case name (`as_str`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum FindingKind {
    PrivateKey,
    Jwt,
    AwsAccessKey,
    AwsSecretKey,
    AzureKey,
    GcpKey,
    CloudKey,
    SignedUrl,
    GithubToken,
    GitlabToken,
    DevopsToken,
    RegistryToken,
    SlackToken,
    ChatToken,
    StripeKey,
    PaymentKey,
    ApiKey,
    UrlCredentials,
    SecretAssignment,
    InternalHost,
    PrivateIp,
    Email,
}

impl FindingKind {
    /// Every kind, in the order of the table in the module documentation.
    pub const ALL: [FindingKind; 22] = [
        FindingKind::PrivateKey,
        FindingKind::Jwt,
        FindingKind::AwsAccessKey,
        FindingKind::AwsSecretKey,
        FindingKind::AzureKey,
        FindingKind::GcpKey,
        FindingKind::CloudKey,
        FindingKind::SignedUrl,
        FindingKind::GithubToken,
        FindingKind::GitlabToken,
        FindingKind::DevopsToken,
        FindingKind::RegistryToken,
        FindingKind::SlackToken,
        FindingKind::ChatToken,
        FindingKind::StripeKey,
        FindingKind::PaymentKey,
        FindingKind::ApiKey,
        FindingKind::UrlCredentials,
        FindingKind::SecretAssignment,
        FindingKind::InternalHost,
        FindingKind::PrivateIp,
        FindingKind::Email,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            FindingKind::PrivateKey => "private_key",
            FindingKind::Jwt => "jwt",
            FindingKind::AwsAccessKey => "aws_access_key",
            FindingKind::AwsSecretKey => "aws_secret_key",
            FindingKind::AzureKey => "azure_key",
            FindingKind::GcpKey => "gcp_key",
            FindingKind::CloudKey => "cloud_key",
            FindingKind::SignedUrl => "signed_url",
            FindingKind::GithubToken => "github_token",
            FindingKind::GitlabToken => "gitlab_token",
            FindingKind::DevopsToken => "devops_token",
            FindingKind::RegistryToken => "registry_token",
            FindingKind::SlackToken => "slack_token",
            FindingKind::ChatToken => "chat_token",
            FindingKind::StripeKey => "stripe_key",
            FindingKind::PaymentKey => "payment_key",
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

/// An accepted match: the span reported and the part that is the secret
/// (what the placeholder rule judges). Both are byte ranges of the text.
struct Hit {
    span: Range<usize>,
    secret: Range<usize>,
}

/// Given the text and a match, the hit, or `None` when the match is a known
/// non-leak.
type Accept = fn(&str, &Captures<'_>) -> Option<Hit>;

/// A pattern and how to accept one of its matches.
struct Rule {
    kind: FindingKind,
    re: Regex,
    accept: Accept,
}

fn range(m: regex::Match<'_>) -> Range<usize> {
    m.start()..m.end()
}

/// The whole match is the token.
fn whole(_: &str, c: &Captures<'_>) -> Option<Hit> {
    let m = c.get(0)?;
    Some(Hit {
        span: range(m),
        secret: range(m),
    })
}

/// A name and its value: group 1 is the secret, the report runs from the
/// name to the end of the value.
fn value(_: &str, c: &Captures<'_>) -> Option<Hit> {
    let (m, v) = (c.get(0)?, c.get(1)?);
    Some(Hit {
        span: m.start()..v.end(),
        secret: range(v),
    })
}

/// A token found by what surrounds it: group 1 is both the report and the
/// secret.
fn inner(_: &str, c: &Captures<'_>) -> Option<Hit> {
    let v = c.get(1)?;
    Some(Hit {
        span: range(v),
        secret: range(v),
    })
}

/// Group 1 is reported, group 2 (inside it) is the secret: `sig=…`,
/// `user:password`.
fn pair(_: &str, c: &Captures<'_>) -> Option<Hit> {
    let (r, v) = (c.get(1)?, c.get(2)?);
    Some(Hit {
        span: r.start()..v.end(),
        secret: range(v),
    })
}

/// `NAME = VALUE` where the name contains `name` (an alternation) and the
/// value matches `value`, followed by `end` (a boundary the value may not run
/// into; it is outside group 1, so not reported).
fn assign(name: &str, value: &str, end: &str) -> String {
    format!(
        r#"(?i)\b[A-Za-z0-9_.-]*?(?:{name})[A-Za-z0-9_.-]*["']?\s*(?::=|=>|[:=])\s*["'`]?({value}){end}"#
    )
}

/// The rules, and a set of the same patterns that says in one pass over the
/// text which rules can match at all (most texts match none or few).
struct Scanner {
    rules: Vec<Rule>,
    set: RegexSet,
}

fn scanner() -> &'static Scanner {
    static SCANNER: OnceLock<Scanner> = OnceLock::new();
    SCANNER.get_or_init(|| {
        let rules = rules();
        let set = RegexSet::new(rules.iter().map(|r| r.re.as_str()))
            .unwrap_or_else(|e| panic!("built-in pattern set: {e}"));
        Scanner { rules, set }
    })
}

/// Every rule, in the order of the table in the module documentation.
fn rules() -> Vec<Rule> {
    use FindingKind::*;
    let r = |kind, pattern: &str, accept: Accept| Rule {
        kind,
        // Word boundaries are ASCII: a Unicode `\b` makes the regex
        // engine leave its fast automata on non-ASCII text.
        re: Regex::new(&pattern.replace(r"\b", r"(?-u:\b)"))
            .unwrap_or_else(|e| panic!("built-in pattern {pattern:?}: {e}")),
        accept,
    };
    let base64_end = "(?:[^A-Za-z0-9+/=]|$)";
    vec![
        // A service-account JSON: its key is a GCP credential.
        r(
            GcpKey,
            r#""private_key"\s*:\s*"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY-----"#,
            pem_body,
        ),
        r(GcpKey, r#""private_key_id"\s*:\s*"([0-9a-f]{40})""#, inner),
        // ---- private keys
        r(
            PrivateKey,
            r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----",
            pem_body,
        ),
        // A key body without its header (cut off, or pasted alone): DER
        // of a PKCS#1 or PKCS#8 RSA key, a SEC1 EC key, or an OpenSSH key.
        r(
            PrivateKey,
            r"\b(?:MII[A-Za-z0-9+/]{3}IBA(?:DAN|AK)|MHcCAQEE|b3BlbnNzaC1rZXktdjE)[A-Za-z0-9+/=]{40,}",
            key_body,
        ),
        r(
            PrivateKey,
            r"Private-Lines:\s*[0-9]+\s+([A-Za-z0-9+/=]{40,})",
            value,
        ),
        r(
            PrivateKey,
            r"\bAGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}\b",
            whole,
        ),
        // ---- tokens with a structure of their own
        r(
            Jwt,
            r"\beyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]*",
            whole,
        ),
        // ---- AWS
        r(
            AwsAccessKey,
            r"\b(?:AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AROA|AIPA|ANPA|ANVA|A3T[A-Z0-9])[0-9A-Z]{16}\b",
            whole,
        ),
        r(
            AwsSecretKey,
            &assign(
                r"aws[A-Za-z0-9_.-]*?(?:secret|key)|secret_?access",
                "[A-Za-z0-9/+]{40}",
                base64_end,
            ),
            aws_secret,
        ),
        r(
            AwsSecretKey,
            &assign("session_?token|security_?token", "[A-Za-z0-9/+=]{100,}", ""),
            value,
        ),
        r(
            AwsSecretKey,
            r"\b(?:IQoJb3JpZ2luX2Vj|F[wQ]oGZXIvYXdz)[A-Za-z0-9/+=]{80,}",
            whole,
        ),
        r(AwsSecretKey, r"\bABSK[A-Za-z0-9+/]{109,269}={0,2}", whole),
        // ---- Azure
        r(
            AzureKey,
            r"(?i)\b(?:AccountKey|SharedAccessKey|PrimaryKey|SecondaryKey)\s*=\s*([A-Za-z0-9+/]{40,88}={0,2})",
            value,
        ),
        r(
            AzureKey,
            &assign(
                "(?:azure|storage|account)[A-Za-z0-9_.-]*?key",
                "[A-Za-z0-9+/]{86}==",
                "",
            ),
            value,
        ),
        r(
            AzureKey,
            r"(?:^|[^A-Za-z0-9_~.-])([A-Za-z0-9_~.]{3}[0-9]Q~[A-Za-z0-9_~.-]{31,34})(?:[^A-Za-z0-9_~.-]|$)",
            inner,
        ),
        r(AzureKey, r"\b[A-Za-z0-9]{76}AZDO[A-Za-z0-9]{4}\b", whole),
        r(
            AzureKey,
            &assign(
                "(?:azure[_-]?devops|azdo|vsts|ado)[A-Za-z0-9_.-]*?(?:pat|token)",
                "[a-z2-7]{52}",
                "(?:[^a-z2-7]|$)",
            ),
            value,
        ),
        r(
            AzureKey,
            r"\.azurewebsites\.net/[^\s?#]*\?(?:[^\s#]*&)?(code=([A-Za-z0-9_%/+-]{30,}={0,2}))",
            pair,
        ),
        // ---- Google Cloud
        r(GcpKey, r"\bAIza[0-9A-Za-z_-]{35}", whole),
        r(GcpKey, r"\bGOCSPX-[A-Za-z0-9_-]{28}", whole),
        r(GcpKey, r"\bya29\.[A-Za-z0-9_-]{30,}", whole),
        r(GcpKey, r"\b1//0[A-Za-z0-9_-]{40,}", whole),
        r(
            GcpKey,
            r"\bAAAA[A-Za-z0-9_-]{7}:APA91b[A-Za-z0-9_-]{100,}",
            whole,
        ),
        // ---- other clouds and hosting
        r(CloudKey, r"\bdo[opr]_v1_[a-f0-9]{64}\b", whole),
        r(CloudKey, r"\bLTAI[A-Za-z0-9]{12,20}\b", whole),
        r(CloudKey, r"\bAKID[A-Za-z0-9]{32}\b", whole),
        r(CloudKey, r"\bAQVN[A-Za-z0-9_-]{35,38}", whole),
        r(CloudKey, r"\bHRKU-AA[A-Za-z0-9_-]{58}", whole),
        r(
            CloudKey,
            r"\b(?:fo1_[A-Za-z0-9_-]{43}|fm(?:1[ar]|2)_[A-Za-z0-9+/]{100,}={0,3})",
            whole,
        ),
        r(CloudKey, r"\bv1\.0-[a-f0-9]{24}-[a-f0-9]{146}\b", whole),
        r(CloudKey, r"\bdapi[a-f0-9]{32}(?:-[0-9])?\b", whole),
        r(CloudKey, r"\bsbp_[a-f0-9]{40}\b", whole),
        r(CloudKey, r"\bnfp_[A-Za-z0-9_]{36}\b", with_digit),
        r(
            CloudKey,
            r"\bpscale_(?:tkn|oauth|pw)_[A-Za-z0-9_=.-]{32,64}",
            whole,
        ),
        // ---- signed URLs
        r(
            SignedUrl,
            r"[?&;]((?:sig|Signature|X-Amz-Signature|X-Goog-Signature)=([A-Za-z0-9%+/_~=-]{30,}))",
            pair,
        ),
        // ---- source hosting and CI
        r(
            GithubToken,
            r"\b(?:gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{22,255})\b",
            whole,
        ),
        r(
            GitlabToken,
            r"\b(?:(?:glpat|gldt|glrt|glcbt|glptt|glft|glimt|glagent|gloas|glsoat|glffct|glwt)-[A-Za-z0-9_.-]{20,}|GR1348941[A-Za-z0-9_-]{20,})",
            whole,
        ),
        r(
            DevopsToken,
            r"\bCCI(?:PAT|PRJ)_[A-Za-z0-9]{22}_[a-f0-9]{40}\b",
            whole,
        ),
        r(
            DevopsToken,
            &assign(
                "circle[A-Za-z0-9_.-]*?token",
                "[a-f0-9]{40}",
                "(?:[^a-f0-9]|$)",
            ),
            value,
        ),
        r(
            DevopsToken,
            &assign(
                "travis[A-Za-z0-9_.-]*?(?:token|key)",
                "[A-Za-z0-9_-]{22}",
                "(?:[^A-Za-z0-9_-]|$)",
            ),
            value,
        ),
        r(DevopsToken, r"\bbk(?:ua|aa|aj)_[A-Za-z0-9]{32,}\b", whole),
        r(
            DevopsToken,
            r"\b[A-Za-z0-9]{14}\.atlasv1\.[A-Za-z0-9_=-]{60,70}",
            whole,
        ),
        r(DevopsToken, r"\bhv[sbr]\.[A-Za-z0-9_-]{24,}", whole),
        r(DevopsToken, r"\bpul-[a-f0-9]{40}\b", whole),
        r(
            DevopsToken,
            r"\bdp\.(?:pt|st|sa|ct|scim|audit)\.[A-Za-z0-9]{40,44}\b",
            whole,
        ),
        r(DevopsToken, r"\bATBB[A-Za-z0-9]{32}\b", whole),
        r(
            DevopsToken,
            r"\b(?:pat|sat)\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9]{24}\.[A-Za-z0-9]{20}\b",
            whole,
        ),
        // ---- package registries
        r(RegistryToken, r"\bnpm_[A-Za-z0-9]{36}\b", whole),
        r(
            RegistryToken,
            r"\bpypi-AgE(?:IcHlwaS5vcmc|NdGVzdC5weXBpLm9yZw)[A-Za-z0-9_-]{50,}",
            whole,
        ),
        r(
            RegistryToken,
            r"\bdckr_(?:pat|oat)_[A-Za-z0-9_-]{27,}",
            whole,
        ),
        r(RegistryToken, r"\brubygems_[a-f0-9]{48}\b", whole),
        r(RegistryToken, r"\boy2[a-z0-9]{43}\b", whole),
        r(RegistryToken, r"\bCLOJARS_[a-z0-9]{60}\b", whole),
        r(RegistryToken, r"\bcio[A-Za-z0-9]{32}\b", with_digit),
        r(
            RegistryToken,
            r"\b(?:AKCp[A-Za-z0-9]{69}|cmVmd[A-Za-z0-9]{59})\b",
            whole,
        ),
        // ---- chat
        r(
            SlackToken,
            r"\bxox[abeoprs]-[A-Za-z0-9-]{10,}|\bxapp-[0-9]-[A-Za-z0-9-]{10,}|https://hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9/_+-]{10,}",
            whole,
        ),
        r(
            ChatToken,
            r"\b([MNO][A-Za-z0-9_-]{23,27})\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27,38}",
            discord_bot,
        ),
        r(
            ChatToken,
            r"https://(?:(?:ptb|canary)\.)?discord(?:app)?\.com/api/webhooks/[0-9]{17,20}/[A-Za-z0-9_-]{60,68}",
            whole,
        ),
        r(
            ChatToken,
            r"\b[0-9]{6,12}:A[A-Za-z0-9_-]{34}(?:[^A-Za-z0-9_-]|$)",
            telegram,
        ),
        r(
            ChatToken,
            r"https://(?:[A-Za-z0-9-]+\.webhook\.office\.com/webhookb2|outlook\.office(?:365)?\.com/webhook)/[0-9a-f-]{36}@[0-9a-f-]{36}/IncomingWebhook/[0-9a-f]{32}/[0-9a-f-]{36}(?:/[A-Za-z0-9_-]+)?",
            whole,
        ),
        // ---- payments and commerce
        r(
            StripeKey,
            r"\b(?:[rs]k_(?:live|test|prod)_[0-9A-Za-z]{16,}|whsec_[A-Za-z0-9]{32,})",
            whole,
        ),
        r(
            PaymentKey,
            r"\b(?:sq0atp-[A-Za-z0-9_-]{22,}|sq0csp-[A-Za-z0-9_-]{43,}|EAAA[A-Za-z0-9_-]{60})",
            whole,
        ),
        r(
            PaymentKey,
            r"\baccess_token\$(?:production|sandbox)\$[0-9a-z]{16}\$[0-9a-f]{32}\b",
            whole,
        ),
        r(PaymentKey, r"\bshp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}\b", whole),
        r(
            PaymentKey,
            r"\baccess-(?:sandbox|development|production)-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b",
            whole,
        ),
        r(PaymentKey, r"\bFLWSECK(?:_TEST)?-[a-h0-9]{32}-X\b", whole),
        // ---- service API keys (AI, messaging, productivity, observability)
        r(
            ApiKey,
            r"\bsk-ant-(?:api|admin|oat|ort)[0-9]{2}-[A-Za-z0-9_-]{20,}",
            whole,
        ),
        r(ApiKey, r"\bsk-[A-Za-z0-9_-]{20,}", sk_dash),
        r(ApiKey, r"\b(?:hf_|api_org_)[A-Za-z0-9]{34}\b", mixed_case),
        r(
            ApiKey,
            r"\b(?:gsk_[A-Za-z0-9]{52}|r8_[A-Za-z0-9]{37}|pplx-[A-Za-z0-9]{48}|xai-[A-Za-z0-9]{60,})\b",
            whole,
        ),
        r(ApiKey, r"\bSK[0-9a-f]{32}\b", whole),
        r(ApiKey, r"\bAC[0-9a-f]{32}\b", twilio_account),
        r(
            ApiKey,
            &assign(
                "twilio[A-Za-z0-9_.-]*?(?:auth[_-]?token|secret)",
                "[a-f0-9]{32}",
                "(?:[^a-f0-9]|$)",
            ),
            value,
        ),
        r(ApiKey, r"\bSG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}", whole),
        r(
            ApiKey,
            r"\b(?:key-[0-9a-f]{32}|[0-9a-f]{32}-[0-9a-f]{8}-[0-9a-f]{8}|[0-9a-f]{32}-us[0-9]{1,2})\b",
            whole,
        ),
        r(ApiKey, r"\bxkeysib-[a-f0-9]{64}-[A-Za-z0-9]{16}\b", whole),
        r(ApiKey, r"\bATATT3[A-Za-z0-9_=-]{180,}", whole),
        r(ApiKey, r"\blin_(?:api|oauth)_[A-Za-z0-9]{40,64}\b", whole),
        r(
            ApiKey,
            r"\b(?:secret_[A-Za-z0-9]{43}|ntn_[0-9]{11}[A-Za-z0-9]{35})\b",
            with_digit_mixed,
        ),
        r(ApiKey, r"\bPMAK-[a-f0-9]{24}-[a-f0-9]{34}\b", whole),
        r(ApiKey, r"\bsntry[su]_[A-Za-z0-9+/=_]{40,}", whole),
        r(
            ApiKey,
            r"\b(?:glsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8}|glc_[A-Za-z0-9+/]{32,}={0,2}|eyJrIjoi[A-Za-z0-9]{70,}={0,2})",
            whole,
        ),
        r(ApiKey, r"\bNRAK-[A-Z0-9]{27}\b", whole),
        r(ApiKey, r"\bpat[A-Za-z0-9]{14}\.[a-f0-9]{64}\b", whole),
        r(ApiKey, r"\bsl\.[A-Za-z0-9_-]{130,}", whole),
        r(
            ApiKey,
            r"\bsk\.eyJ[A-Za-z0-9_-]{50,}\.[A-Za-z0-9_-]{20,}",
            whole,
        ),
        r(ApiKey, r"\bops_eyJ[A-Za-z0-9+/]{250,}={0,3}", whole),
        // ---- credentials in URLs and assignments
        r(
            UrlCredentials,
            r"\b[A-Za-z][A-Za-z0-9+.-]*://([^/\s:@]*):([^/\s@]+)@(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+)",
            url_credentials,
        ),
        r(
            SecretAssignment,
            r#"(?i)\b[A-Za-z0-9_.-]*?(?:password|passwd|pwd|passphrase|secret|token|api[_-]?key|apikey|access[_-]?key|secret[_-]?key|private[_-]?key|client[_-]?secret|subscription[_-]?key|auth|authorization|credentials?)["']?\s*(?::=|=>|[:=])\s*["'`]?([^\s"'`,;]+)"#,
            assignment,
        ),
        r(
            SecretAssignment,
            r"(?i)\bbearer\s+([A-Za-z0-9._~+/-]{16,}=*)",
            bearer,
        ),
        r(
            SecretAssignment,
            r#"(?i)\bauthorization["']?\s*[:=]\s*["']?basic\s+([A-Za-z0-9+/]{8,}={0,2})"#,
            basic_auth,
        ),
        r(
            SecretAssignment,
            r#"\bcurl\b[^\n]{0,200}?\s(?:-u|--user)[ =]?['"]?(([^\s:'"]+):([^\s'"]+))"#,
            curl_user,
        ),
        r(
            SecretAssignment,
            r"\brequirepass\s+([^\s\x22']+)",
            requirepass,
        ),
        // ---- places and people
        r(
            InternalHost,
            r"(?i)\b((?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+(?:internal|corp|local|lan|intranet|localdomain|home\.arpa))\b(\.[a-z0-9])?",
            accept_host,
        ),
        r(
            PrivateIp,
            r"([0-9]{1,3})\.([0-9]{1,3})\.([0-9]{1,3})\.([0-9]{1,3})",
            accept_ip,
        ),
        r(
            Email,
            r"\b([A-Za-z0-9._%+-]+)@((?:[A-Za-z0-9-]+\.)+[A-Za-z]{2,})\b",
            accept_email,
        ),
    ]
}

// ---- the placeholder rule ----------------------------------------------

/// Values published in providers' documentation as examples. They are
/// public, so they are not leaks wherever they appear.
const DOCUMENTED: [&str; 7] = [
    // AWS's example access key id and secret access key.
    "AKIAIOSFODNN7EXAMPLE",
    "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
    // The sample token of jwt.io.
    "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c",
    // The Azurite storage emulator's account key (account devstoreaccount1).
    // Keys are split with `concat!` so that no hosting secret scanner reads
    // this source as holding one.
    concat!(
        "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/",
        "K1SZFPTOtr/KBHBeksoGMGw=="
    ),
    // Stripe's documentation test keys.
    concat!("sk_test_", "4eC39HqLyjWDarjtT1zdp7dc"),
    concat!("sk_test_", "BQokikJOvBiI2HlWgH4olfQ2"),
    // Telegram's sample bot token.
    "123456:ABC-DEF1234ghIkl-zyx57W2v1u123ew11",
];

/// Words that mark a value as a stand-in, looked for in one case
/// (`example`, `EXAMPLE`, `Example`).
const PLACEHOLDER_WORDS: [&str; 18] = [
    "example",
    "sample",
    "dummy",
    "fake",
    "placeholder",
    "redacted",
    "changeme",
    "change_me",
    "change-me",
    "replaceme",
    "replace_me",
    "replace-me",
    "notreal",
    "not_real",
    "not-real",
    "not_a_real",
    "not-a-real",
    "your",
];

/// Values that are, whole, a default or a filler: nobody's secret.
const FILLER_VALUES: [&str; 42] = [
    "password",
    "passwd",
    "pass",
    "pwd",
    "secret",
    "token",
    "key",
    "apikey",
    "api_key",
    "test",
    "testing",
    "admin",
    "root",
    "guest",
    "user",
    "username",
    "postgres",
    "mysql",
    "redis",
    "rabbitmq",
    "changeme",
    "default",
    "none",
    "null",
    "nil",
    "undefined",
    "true",
    "false",
    "empty",
    "foo",
    "bar",
    "foobar",
    "baz",
    "qwerty",
    "letmein",
    "mypassword",
    "my_password",
    "mysecret",
    "my_secret",
    "mytoken",
    "my_token",
    "xxx",
];

/// Secrets longer than this are judged on markers only: a long random string
/// contains short words and runs by chance.
const SHORT_SECRET: usize = 200;

/// Whether a would-be secret is a placeholder: a documented example, a
/// template or reference, an obvious stand-in word, a masking run, an
/// ascending run, or a filler value. The one rule every kind goes through;
/// the module documentation lists what it accepts.
pub fn is_placeholder(secret: &str) -> bool {
    let v = secret.trim_matches(|c| matches!(c, '"' | '\'' | '`'));
    if v.is_empty() || DOCUMENTED.contains(&v) {
        return true;
    }
    const MARKERS: [&str; 7] = ["${", "{{", "}}", "...", "…", "%s", "%("];
    if MARKERS.iter().any(|m| v.contains(m))
        || v.starts_with(['<', '{', '[', '(', '%'])
        || v.strip_prefix('$').is_some_and(|rest| {
            rest.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_' || c == '(')
        })
    {
        return true;
    }
    let mut chars = v.chars();
    let first = chars.next().unwrap_or(' ');
    if v.chars().count() >= 3 && chars.all(|c| c == first) {
        return true;
    }
    if is_filler(v) {
        return true;
    }
    if v.len() > SHORT_SECRET {
        return false;
    }
    placeholder_words().is_match(v) || has_masking_run(v) || has_ascending_run(v)
}

/// [`PLACEHOLDER_WORDS`] in their three cases (`example`, `EXAMPLE`,
/// `Example`), as one pattern.
fn placeholder_words() -> &'static Regex {
    static WORDS: OnceLock<Regex> = OnceLock::new();
    WORDS.get_or_init(|| {
        let alternatives: Vec<String> = PLACEHOLDER_WORDS
            .iter()
            .flat_map(|w| {
                let mut cap = w.to_string();
                cap[..1].make_ascii_uppercase();
                [w.to_string(), w.to_ascii_uppercase(), cap]
            })
            .map(|w| regex::escape(&w))
            .collect();
        Regex::new(&alternatives.join("|")).unwrap_or_else(|e| panic!("placeholder words: {e}"))
    })
}

/// A filler word, whole, maybe followed by `1`, `12`, `123`, … and `!`.
fn is_filler(v: &str) -> bool {
    let lower = v.to_ascii_lowercase();
    let core = lower.trim_end_matches('!');
    let digits = core.len() - core.trim_end_matches(|c: char| c.is_ascii_digit()).len();
    let (word, tail) = core.split_at(core.len() - digits);
    let ascending_from_one = tail
        .bytes()
        .enumerate()
        .all(|(i, b)| usize::from(b - b'0') == (i + 1) % 10);
    FILLER_VALUES.contains(&word) && ascending_from_one
}

/// Four or more of the same `x`, `X`, `*`, `#` or `•`, or six or more `0`.
fn has_masking_run(v: &str) -> bool {
    let mut prev = None;
    let mut run = 0;
    for c in v.chars() {
        run = if Some(c) == prev { run + 1 } else { 1 };
        prev = Some(c);
        let needed = match c {
            'x' | 'X' | '*' | '#' | '•' => 4,
            '0' => 6,
            _ => continue,
        };
        if run >= needed {
            return true;
        }
    }
    false
}

/// Eight or more characters each one above the last: `12345678`, `abcdefgh`,
/// `ABCDEFGH`.
fn has_ascending_run(v: &str) -> bool {
    let mut run = 1;
    let b = v.as_bytes();
    for i in 1..b.len() {
        let step = b[i - 1].is_ascii_alphanumeric()
            && b[i].is_ascii_alphanumeric()
            && b[i] == b[i - 1] + 1
            && b[i].is_ascii_digit() == b[i - 1].is_ascii_digit();
        run = if step { run + 1 } else { 1 };
        if run >= 8 {
            return true;
        }
    }
    false
}

// ---- accept functions with checks of their own --------------------------

/// The most a key body is looked for after its header.
const PEM_BODY_LIMIT: usize = 8 * 1024;

/// A private key header is a leak when key material follows it: at least 64
/// base64 characters, in runs of 16 or more, before the next `-----`, quote
/// or backtick. The body is the secret.
fn pem_body(text: &str, c: &Captures<'_>) -> Option<Hit> {
    let h = c.get(0)?;
    let rest = &text[h.end()..];
    let region = &rest.as_bytes()[..floor_boundary(rest, PEM_BODY_LIMIT)];
    // One pass to the first quote, backtick or `-----`, whichever is first.
    let end = (0..region.len())
        .find(|&i| matches!(region[i], b'"' | b'`') || region[i..].starts_with(b"-----"))
        .unwrap_or(region.len());
    let body = &region[..end];
    let mut material = 0;
    let mut run = 0;
    for &b in body.iter().chain(b" ") {
        if is_base64(b) {
            run += 1;
        } else {
            if run >= 16 {
                material += run;
            }
            run = 0;
        }
    }
    // The report covers the whole block: the header, every line of the
    // body and the END line when there is one. Cut short (no END line), it
    // runs to the end of the base64, so the key's material is never left
    // beside a redacted header.
    let last_run = {
        let mut last = 0;
        let mut run = 0;
        for (i, &b) in body.iter().enumerate() {
            if is_base64(b) {
                run += 1;
                if run >= 16 {
                    last = i + 1;
                }
            } else {
                run = 0;
            }
        }
        h.end() + last
    };
    let mut stop = key_material_end(text, h.end());
    if stop < last_run {
        stop = key_material_end(text, last_run).max(last_run);
    }
    (material >= 64).then(|| Hit {
        span: h.start()..stop,
        secret: h.end()..h.end() + end,
    })
}

/// A headerless key body: reported from its start to the end of its
/// material (see [`key_material_end`]).
fn key_body(text: &str, c: &Captures<'_>) -> Option<Hit> {
    let m = c.get(0)?;
    Some(Hit {
        span: m.start()..key_material_end(text, m.start()).max(m.end()),
        secret: range(m),
    })
}

fn is_base64(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'+' | b'/' | b'=')
}

/// Where the key material that starts at `from` ends: base64 runs
/// separated by white space or escaped line breaks (`\n` inside a JSON
/// string), through an `-----END … -----` line when one follows. A run
/// shorter than 16 characters is a body's last line, so only an END line
/// may follow it; a blank line ends the body too.
fn key_material_end(text: &str, from: usize) -> usize {
    let b = text.as_bytes();
    let limit = floor_boundary(text, from + PEM_BODY_LIMIT);
    let mut i = from;
    let mut end = from;
    let mut last_short = false;
    // Line breaks since the last run: a blank line ends a body.
    let mut breaks = 0;
    while i < limit {
        // Separators: white space and `\n`, `\r`, `\t` escapes.
        if b[i].is_ascii_whitespace() {
            breaks += usize::from(b[i] == b'\n');
            i += 1;
            continue;
        }
        if b[i] == b'\\' && matches!(b.get(i + 1), Some(b'n' | b'r' | b't')) {
            breaks += usize::from(b[i + 1] == b'n');
            i += 2;
            continue;
        }
        if end > from && breaks >= 2 {
            break;
        }
        breaks = 0;
        if b[i..].starts_with(b"-----END ") {
            let close = text[i + 9..floor_boundary(text, i + 80).max(i + 9)]
                .find("-----")
                .filter(|&n| n <= 40);
            if let Some(n) = close {
                end = i + 9 + n + 5;
            }
            break;
        }
        if last_short || !is_base64(b[i]) {
            break;
        }
        let start = i;
        while i < limit && is_base64(b[i]) {
            i += 1;
        }
        end = i;
        last_short = i - start < 16;
    }
    end
}

/// The largest char boundary of `s` at or below `at`.
fn floor_boundary(s: &str, at: usize) -> usize {
    let mut i = at.min(s.len());
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// A 40-character AWS secret key is base64 with both cases; a 40-hex value
/// is a commit id, not a key.
fn aws_secret(text: &str, c: &Captures<'_>) -> Option<Hit> {
    let v = c.get(1)?.as_str();
    let upper = v.bytes().any(|b| b.is_ascii_uppercase());
    let lower = v.bytes().any(|b| b.is_ascii_lowercase());
    (upper && lower).then(|| value(text, c)).flatten()
}

fn with_digit(text: &str, c: &Captures<'_>) -> Option<Hit> {
    let m = c.get(0)?.as_str();
    m.bytes()
        .any(|b| b.is_ascii_digit())
        .then(|| whole(text, c))
        .flatten()
}

fn mixed_case(text: &str, c: &Captures<'_>) -> Option<Hit> {
    let m = c.get(0)?.as_str();
    let body = &m[m.rfind('_')? + 1..];
    (body.bytes().any(|b| b.is_ascii_uppercase()) && body.bytes().any(|b| b.is_ascii_lowercase()))
        .then(|| whole(text, c))
        .flatten()
}

fn with_digit_mixed(text: &str, c: &Captures<'_>) -> Option<Hit> {
    with_digit(text, c).and(mixed_case(text, c))
}

/// `sk-` keys are random: the part after `sk-` has a digit and a letter,
/// and either an upper-case letter or (lower-case hex keys) 32 or more
/// characters without a separator. So `sk-learn-…` words and OpenSSH's
/// `sk-ecdsa-sha2-nistp256-cert-v01@openssh.com` are not keys.
fn sk_dash(text: &str, c: &Captures<'_>) -> Option<Hit> {
    let body = &c.get(0)?.as_str()[3..];
    let b = body.as_bytes();
    let random = b.iter().any(u8::is_ascii_uppercase)
        || (b.len() >= 32 && !b.contains(&b'-') && !b.contains(&b'_'));
    (b.iter().any(u8::is_ascii_digit) && b.iter().any(u8::is_ascii_alphabetic) && random)
        .then(|| whole(text, c))
        .flatten()
}

/// A Discord bot token's first part is the base64 of the bot's numeric id.
fn discord_bot(text: &str, c: &Captures<'_>) -> Option<Hit> {
    let id = c.get(1)?.as_str();
    let mut buf = [0u8; 32];
    let decoded = Base64Unpadded::decode(id, &mut buf).ok()?;
    ((17..=20).contains(&decoded.len()) && decoded.iter().all(u8::is_ascii_digit))
        .then(|| whole(text, c))
        .flatten()
}

/// A Telegram bot token, without the boundary character after it.
fn telegram(_: &str, c: &Captures<'_>) -> Option<Hit> {
    let m = c.get(0)?;
    let token = m
        .as_str()
        .trim_end_matches(|ch: char| !(ch.is_ascii_alphanumeric() || ch == '_' || ch == '-'));
    let span = m.start()..m.start() + token.len();
    Some(Hit {
        secret: span.clone(),
        span,
    })
}

/// How far from a Twilio account id its auth token is looked for.
const PAIR_WINDOW: usize = 200;

/// A Twilio account id (`AC` + 32 hex) is an identifier; it is a leak when
/// its auth token (32 hex) stands beside it. The token is the secret.
fn twilio_account(text: &str, c: &Captures<'_>) -> Option<Hit> {
    static HEX32: OnceLock<Regex> = OnceLock::new();
    let hex32 = HEX32.get_or_init(|| {
        Regex::new(r"(?-u:\b)[0-9a-f]{32}(?-u:\b)").unwrap_or_else(|e| panic!("hex32: {e}"))
    });
    let sid = c.get(0)?;
    let from = floor_boundary(text, sid.start().saturating_sub(PAIR_WINDOW));
    let to = floor_boundary(text, sid.end() + PAIR_WINDOW);
    let token = hex32
        .find_iter(&text[from..to])
        .map(|m| from + m.start()..from + m.end())
        .find(|t| t.end <= sid.start() || t.start >= sid.end())?;
    Some(Hit {
        span: range(sid),
        secret: token,
    })
}

fn url_credentials(_: &str, c: &Captures<'_>) -> Option<Hit> {
    let pass = c.get(2)?;
    let host = c.get(3)?.as_str();
    if is_example_host(host) {
        return None;
    }
    Some(Hit {
        span: range(c.get(0)?),
        secret: range(pass),
    })
}

fn assignment(text: &str, c: &Captures<'_>) -> Option<Hit> {
    let (m, g) = (c.get(0)?, c.get(1)?);
    let v = g.as_str().trim_end_matches(['.', ')', ']', '}']);
    // `SecretKey::from_slice`, `<I as Stream>::Token: AsChar`: paths and
    // bounds, not assignments.
    if v.starts_with(':') || text[..m.start()].ends_with("::") || !is_secret_value(v) {
        return None;
    }
    let secret = g.start()..g.start() + v.len();
    Some(Hit {
        span: m.start()..secret.end,
        secret,
    })
}

/// A `Bearer` value is a token when it has a digit or mixed case; a run of
/// lower-case words is prose.
fn bearer(_: &str, c: &Captures<'_>) -> Option<Hit> {
    let v = c.get(1)?;
    let s = v.as_str();
    let digit = s.bytes().any(|b| b.is_ascii_digit());
    let mixed =
        s.bytes().any(|b| b.is_ascii_uppercase()) && s.bytes().any(|b| b.is_ascii_lowercase());
    let m = c.get(0)?;
    (digit || mixed).then(|| Hit {
        span: range(m),
        secret: range(v),
    })
}

/// `Authorization: Basic …` is a leak when it decodes to `user:password`
/// and the password is not a placeholder.
fn basic_auth(text: &str, c: &Captures<'_>) -> Option<Hit> {
    let v = c.get(1)?.as_str();
    let mut buf = [0u8; 512];
    let decoded = if v.len() % 4 == 0 {
        Base64::decode(v, &mut buf)
    } else {
        Base64Unpadded::decode(v, &mut buf)
    }
    .ok()?;
    let pair = std::str::from_utf8(decoded).ok()?;
    let (_, password) = pair.split_once(':')?;
    (!password.is_empty() && !is_placeholder(password))
        .then(|| value(text, c))
        .flatten()
}

/// `curl -u user:password`: the password is the secret (`-u user` alone
/// makes curl ask for it; `-u $USER:$TOKEN` is a placeholder).
fn curl_user(_: &str, c: &Captures<'_>) -> Option<Hit> {
    let (r, pass) = (c.get(1)?, c.get(3)?);
    Some(Hit {
        span: range(r),
        secret: range(pass),
    })
}

fn requirepass(text: &str, c: &Captures<'_>) -> Option<Hit> {
    is_secret_value(c.get(1)?.as_str())
        .then(|| value(text, c))
        .flatten()
}

/// Whether an assigned value can be a secret (the placeholder rule runs
/// after this): not a type, code, URL, path, identifier, tag, encrypted
/// value, duration or plain word.
fn is_secret_value(v: &str) -> bool {
    let n = v.chars().count();
    if n < 6 || v.bytes().all(|b| b.is_ascii_digit()) {
        return false;
    }
    // A type annotation or generic, a call or macro, a URL (the URL rules
    // judge it).
    if v.contains(['<', '>', '(']) || v.contains("::") || v.contains("://") || v.contains("![") {
        return false;
    }
    // A YAML tag or alias, a reference (`&str`), a decorator, a PEM header
    // (the key rules judge what follows it), Rust's `?`.
    if v.starts_with(['!', '&', '*', '@']) || v.starts_with("-----") || v.ends_with('?') {
        return false;
    }
    let lower = v.to_ascii_lowercase();
    const CODE: [&str; 8] = [
        "process.env",
        "os.environ",
        "env.",
        "env[",
        "secrets.",
        "vars.",
        "enc[",
        "import.meta",
    ];
    if CODE.iter().any(|p| lower.starts_with(p)) {
        return false;
    }
    // Indexing: `self[0]`, `args[1]`, `ENV["TOKEN"]`.
    if v.split_once('[').is_some_and(|(head, _)| is_ident(head)) {
        return false;
    }
    if is_code_path(v) || is_file_path(v) || is_identifier(v) {
        return false;
    }
    // A duration or size ("3600s", "10m", "512mb") is configuration.
    let unit = lower.trim_start_matches(|ch: char| ch.is_ascii_digit());
    if unit.len() < lower.len() && ["ms", "s", "m", "h", "d", "kb", "mb", "gb"].contains(&unit) {
        return false;
    }
    let has_digit = v.chars().any(|ch| ch.is_ascii_digit());
    let has_symbol = v.chars().any(|ch| !ch.is_alphanumeric());
    let inner_upper =
        v.chars().skip(1).any(|ch| ch.is_uppercase()) && v.chars().any(|ch| ch.is_lowercase());
    has_digit || has_symbol || inner_upper || n >= 12
}

fn is_ident(s: &str) -> bool {
    let mut b = s.bytes();
    b.next()
        .is_some_and(|f| f.is_ascii_alphabetic() || f == b'_')
        && b.all(|c| c.is_ascii_alphanumeric() || c == b'_')
}

/// `config.db.password`, `settings.SECRET_KEY`: a member path without digits.
fn is_code_path(v: &str) -> bool {
    let parts: Vec<&str> = v.split('.').collect();
    parts.len() >= 2
        && parts.iter().all(|p| is_ident(p))
        && parts[0].starts_with(|c: char| c.is_ascii_lowercase())
        && !v.bytes().any(|b| b.is_ascii_digit())
}

/// `/run/secrets/db`, `./keys/deploy.pem`, `~/.aws/credentials`: segments
/// that are lower-case or capitalised words, not random mixtures.
fn is_file_path(v: &str) -> bool {
    let Some(rest) = ["~/", "./", "../", "/"]
        .iter()
        .find_map(|p| v.strip_prefix(p))
    else {
        return false;
    };
    rest.split('/').all(|seg| {
        let b = seg.as_bytes();
        let word = |c: &u8| c.is_ascii_lowercase() || c.is_ascii_digit() || b"._@-".contains(c);
        b.iter().all(word)
            || (b.first().is_some_and(u8::is_ascii_uppercase) && b[1..].iter().all(word))
    })
}

/// A name, not a value: `my-app-token`, `_bindgen_ty_5`, `db.password.name`
/// (lower-case words and digits joined by separators), `DB_PASSWORD`,
/// `IFLA_INET6_TOKEN` (upper-case words joined by underscores),
/// `SecretString`, `BString`, `HashMap` (words in CamelCase).
fn is_identifier(v: &str) -> bool {
    let b = v.trim_start_matches('_').as_bytes();
    let sep = |c: &u8| matches!(c, b'-' | b'_' | b'.');
    let words = |lower: bool| {
        b.first().is_some_and(|c| {
            if lower {
                c.is_ascii_lowercase()
            } else {
                c.is_ascii_uppercase()
            }
        }) && b.iter().any(sep)
            && b.iter().all(|c| {
                sep(c)
                    || c.is_ascii_digit()
                    || if lower {
                        c.is_ascii_lowercase()
                    } else {
                        c.is_ascii_uppercase()
                    }
            })
            && !b.split(sep).any(<[u8]>::is_empty)
    };
    words(true) || words(false) || is_camel_case(b)
}

/// Letters only, in words: every run of lower-case letters is two or more
/// long and every run of capitals three or fewer (an acronym), with at least
/// one capital after the start. Random mixed-case strings have runs of one.
fn is_camel_case(b: &[u8]) -> bool {
    if b.len() < 2
        || !b.iter().all(u8::is_ascii_alphabetic)
        || !b[1..].iter().any(u8::is_ascii_uppercase)
    {
        return false;
    }
    let runs = b.chunk_by(|x, y| x.is_ascii_uppercase() == y.is_ascii_uppercase());
    runs.into_iter().all(|r| {
        if r[0].is_ascii_uppercase() {
            r.len() <= 3
        } else {
            r.len() >= 2
        }
    })
}

// ---- places and people --------------------------------------------------

const EXAMPLE_DOMAINS: [&str; 3] = ["example.com", "example.org", "example.net"];
const RESERVED_TLDS: [&str; 4] = ["example", "test", "invalid", "localhost"];

fn is_example_host(host: &str) -> bool {
    let h = host.trim_end_matches('.').to_ascii_lowercase();
    // `name` itself or a subdomain of it.
    let under = |name: &str| {
        h.strip_suffix(name)
            .is_some_and(|rest| rest.is_empty() || rest.ends_with('.'))
    };
    EXAMPLE_DOMAINS.iter().any(|d| under(d)) || RESERVED_TLDS.iter().any(|t| under(t))
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

fn accept_host(text: &str, c: &Captures<'_>) -> Option<Hit> {
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
    Some(Hit {
        span: range(host),
        secret: range(host),
    })
}

fn accept_ip(text: &str, c: &Captures<'_>) -> Option<Hit> {
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
    // The three private blocks themselves (`10.0.0.0/8`, …) are public
    // knowledge, not an address of anyone's network.
    let block = match octets {
        [10, 0, 0, 0] => "/8",
        [172, 16, 0, 0] => "/12",
        [192, 168, 0, 0] => "/16",
        _ => "\0",
    };
    let rest = &text[m.end()..];
    if rest.starts_with(block) && !rest[block.len()..].starts_with(|ch: char| ch.is_ascii_digit()) {
        return None;
    }
    private.then(|| Hit {
        span: range(m),
        secret: range(m),
    })
}

fn accept_email(text: &str, c: &Captures<'_>) -> Option<Hit> {
    let m = c.get(0)?;
    let local = c.get(1)?.as_str().to_ascii_lowercase();
    let domain = c.get(2)?.as_str();
    // SSH names its algorithms and extensions `name@domain`
    // (`aes256-gcm@openssh.com`, `curve25519-sha256@libssh.org`).
    let ssh_algorithm = ["openssh.com", "libssh.org"]
        .contains(&domain.to_ascii_lowercase().as_str())
        && local.contains('-')
        && local.bytes().any(|b| b.is_ascii_digit());
    if is_example_host(domain)
        || ssh_algorithm
        || ["noreply", "no-reply", "donotreply", "do-not-reply"].contains(&local.as_str())
        || local == "git"
        || text[m.end()..].starts_with(':')
            && text[m.end() + 1..].starts_with(|ch: char| !ch.is_whitespace())
    {
        return None;
    }
    Some(Hit {
        span: range(m),
        secret: range(m),
    })
}

// ---- scanning ------------------------------------------------------------

fn redact(s: &str) -> String {
    let n = s.chars().count();
    let head: String = s.chars().take(4.min(n / 2)).collect();
    format!("{head}… ({n} characters)")
}

/// Scans plain text. Findings come in text order, one per span.
pub fn scan(text: &str) -> Vec<Finding> {
    // Reported spans by start. They never overlap, so they are ordered by
    // end too, and the only one a new span can overlap is the last one that
    // starts before the new span ends.
    let mut spans: BTreeMap<usize, (usize, FindingKind)> = BTreeMap::new();
    let scanner = scanner();
    for i in scanner.set.matches(text).into_iter() {
        let rule = &scanner.rules[i];
        for c in rule.re.captures_iter(text) {
            let Some(hit) = (rule.accept)(text, &c) else {
                continue;
            };
            if is_placeholder(&text[hit.secret]) {
                continue;
            }
            let span = hit.span;
            let overlaps = spans
                .range(..span.end)
                .next_back()
                .is_some_and(|(_, &(end, _))| end > span.start);
            if !overlaps {
                spans.insert(span.start, (span.end, rule.kind));
            }
        }
    }
    spans
        .into_iter()
        .map(|(start, (end, kind))| Finding {
            kind,
            excerpt: redact(&text[start..end]),
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

    // Provider-shaped values in these tests are assembled with `concat!` so
    // that this source file never holds a whole token a hosting secret
    // scanner would block; the values themselves are made up.

    const B62: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    const B64: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    const HEX: &str = "0123456789abcdef";
    const BECH32: &str = "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L";

    /// A made-up value of `n` characters from `alphabet`, the same on every
    /// run for a given seed, never one character three times in a row.
    fn fake(alphabet: &str, n: usize, seed: u64) -> String {
        let a: Vec<char> = alphabet.chars().collect();
        let mut x = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let mut out: Vec<char> = Vec::with_capacity(n);
        while out.len() < n {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let c = a[((x >> 33) % a.len() as u64) as usize];
            if !out.ends_with(&[c, c]) {
                out.push(c);
            }
        }
        out.into_iter().collect()
    }

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
    fn private_keys_need_a_body() {
        let body = "MIIEpAIBAAKCAQEAzKx8Fq1dR3tLm9WvB2nYc5hJ0pQ7sGfE4aT6uVwXyZ1b2C3d\n\
                    4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8S9t0U1v2W3x4Y5z6A7b8C9d0E1f2G3h4I5j";
        assert_finds(
            FindingKind::PrivateKey,
            &[
                &format!("-----BEGIN RSA PRIVATE KEY-----\n{body}\n-----END RSA PRIVATE KEY-----"),
                &format!("key: -----BEGIN OPENSSH PRIVATE KEY----- {body}"),
                &format!(
                    "-----BEGIN PRIVATE KEY-----\\n{}",
                    body.replace('\n', "\\n")
                ),
                &format!("-----BEGIN ENCRYPTED PRIVATE KEY-----\n{body}"),
                &format!("-----BEGIN PGP PRIVATE KEY BLOCK-----\n\n{body}"),
                &format!("age identity AGE-SECRET-KEY-1{}", fake(BECH32, 58, 1)),
                "Private-Lines: 1\nAAAAIHq3bV0xZ5mN8kP2rT7wY4cJ9fL1hG6sD3aQ0eU5iO8p",
            ],
        );
        // A public key's DER is not a private key's (its body alone is
        // not reported either).
        let public = "MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEAzKx8Fq1dR3tLm9WvB2nYc5hJ\n\
                      0pQ7sGfE4aT6uVwXyZ1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8S9t0U1v2W3x";
        assert_clean(&[
            public,
            "-----BEGIN PRIVATE KEY-----",
            "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA...\n-----END RSA PRIVATE KEY-----",
            "ssh-keygen writes -----BEGIN OPENSSH PRIVATE KEY----- files",
            &format!("-----BEGIN PUBLIC KEY-----\n{public}"),
            &format!("-----BEGIN CERTIFICATE-----\n{public}"),
            "-----BEGIN PRIVATE KEY-----\n<your key here>\n-----END PRIVATE KEY-----",
            "use a private key file",
        ]);
    }

    #[test]
    fn a_key_is_reported_as_its_whole_block_and_a_bare_body_too() {
        let line = "MIICdgIBADANBgkqhkiG9w0BAQEFAASCAmAwggJcAgEAAoGBAKx8Fq1dR3tLm9Wv";
        let block = format!(
            "-----BEGIN PRIVATE KEY-----\\n{line}\\n{line}\\nZm9v\\n-----END PRIVATE KEY-----\\n"
        );
        let json = format!("{{\"private_key\": \"{block}\", \"x\": 1}}");
        let f = scan(&json);
        assert_eq!(f.len(), 1, "{f:?}");
        let n = json.find("\\n\", \"x").unwrap() - json.find("\"private_key").unwrap();
        assert_eq!(f[0].excerpt, format!("\"pri… ({n} characters)"));
        // One line, no END line: to the end of the base64, not beyond.
        let one =
            format!("DEPLOY_KEY=-----BEGIN OPENSSH PRIVATE KEY----- {line} {line}. Then more");
        let f = scan(&one);
        assert_eq!(f.len(), 1, "{f:?}");
        let n = 35 + 1 + line.len() + 1 + line.len();
        assert_eq!(f[0].kind, FindingKind::PrivateKey);
        assert_eq!(f[0].excerpt, format!("----… ({n} characters)"));
        // A body alone.
        assert_finds(
            FindingKind::PrivateKey,
            &[
                &format!("{line}\n{line}\n-----END PRIVATE KEY-----"),
                "key was b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZWQyNTUxOQ",
                "MHcCAQEEIBYv3qKx8Fq1dR3tLm9WvB2nYc5hJ0pQ7sGfE4aT6uVwXyZ1oAoGCCqGSM49",
            ],
        );
    }

    #[test]
    fn jwts() {
        assert_finds(
            FindingKind::Jwt,
            &["Authorization header eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiI0ODIxIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"],
        );
        assert_clean(&[
            "the eyJ prefix marks base64 JSON",
            "eyJhbGciOiJIUzI1NiJ9 alone is a header",
            "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c",
        ]);
    }

    #[test]
    fn aws() {
        assert_finds(
            FindingKind::AwsAccessKey,
            &[
                concat!("aws_access_key_id ", "AKIA", "Q3VZ7KLM2NB4XW6R"),
                concat!("ASIA", "Y34FZKBOKMUTVV7A was the session key"),
            ],
        );
        assert_finds(
            FindingKind::AwsSecretKey,
            &[
                &format!("aws_secret_access_key = {}", fake(B64, 40, 2)),
                &format!(r#""SecretAccessKey": "{}""#, fake(B64, 40, 3)),
                &format!(
                    "AWS_SESSION_TOKEN={}{}",
                    "IQoJb3JpZ2luX2Vj",
                    "Zk3".repeat(40)
                ),
            ],
        );
        assert_clean(&[
            "AKIA is the prefix of AWS access keys",
            "AKIAIOSFODNN7EXAMPL",
            "XAKIAIOSFODNN7EXAMPLE1",
            "aws_access_key_id AKIAIOSFODNN7EXAMPLE",
            "aws_access_key_id = AKIAXXXXXXXXXXXXXXXX",
            "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
            // A commit id assigned to an aws-named key is not a secret key.
            "aws_provider_key = 3f9a1c2e7b4d5f60718293a4b5c6d7e8f9012345",
            "AWS_SECRET_ACCESS_KEY=${{ secrets.AWS_SECRET_ACCESS_KEY }}",
        ]);
    }

    #[test]
    fn azure() {
        let key88 = format!("{}==", fake(B64, 86, 4));
        assert_finds(
            FindingKind::AzureKey,
            &[
                &format!("DefaultEndpointsProtocol=https;AccountName=acmelogs;AccountKey={key88};EndpointSuffix=core.windows.net"),
                &format!(
                    "Endpoint=sb://acme.servicebus.windows.net/;SharedAccessKeyName=Root;SharedAccessKey={}=",
                    fake(B64, 43, 10)
                ),
                &format!("AZURE_STORAGE_KEY={key88}"),
                &format!("AZURE_CLIENT_SECRET=Ab18Q~{}", fake(B62, 34, 7)),
                &format!("PAT {}AZDO{}", fake(B62, 76, 8), fake(B62, 4, 9)),
                &format!(
                    "https://acme-fn.azurewebsites.net/api/ingest?code={}==",
                    fake(B62, 54, 11)
                ),
            ],
        );
        assert_clean(&[
            concat!(
                "DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;AccountKey=",
                "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/",
                "K1SZFPTOtr/KBHBeksoGMGw==;"
            ),
            "AccountKey=<storage-account-key>",
            // A lockfile integrity hash has the shape of a storage key.
            &format!("\"integrity\": \"sha512-{key88}\""),
        ]);
    }

    #[test]
    fn gcp_and_other_clouds() {
        assert_finds(
            FindingKind::GcpKey,
            &[
                concat!("AIza", "SyDaGmWKa4JsXZ-HjGw7ISLn_3namBGewQe"),
                concat!("GOCSPX-", "Zk3Lm8Qp2Rt7Vx1Yb4Nc6Wd9Fg0H"),
                concat!(
                    r#""private_key_id": ""#,
                    "3f9a1c2e7b4d5f60718293a4b5c6d7e8f9012345",
                    r#"""#
                ),
            ],
        );
        assert_finds(
            FindingKind::CloudKey,
            &[
                &format!("dop_v1_{}", fake(HEX, 64, 5)),
                concat!("LTAI", "5tZk3Lm8Qp2Rt7Vx1Yb4"),
                concat!("nfp_", "Zk3Lm8Qp2Rt7Vx1Yb4Nc6Wd9Fg0Hj5Kl3Mn8"),
            ],
        );
        // Netlify tokens are random: a run of letters is a name.
        assert_clean(&[
            "nfp_abcabcabcabcabcabcabcabcabcabcabcabc",
            "LTAI is Alibaba's prefix",
        ]);
    }

    #[test]
    fn signed_urls() {
        assert_finds(
            FindingKind::SignedUrl,
            &[
                &format!(
                    "https://b.s3.amazonaws.com/k?X-Amz-Date=20250114T101500Z&X-Amz-Signature={}",
                    fake(HEX, 64, 12)
                ),
                &format!(
                    "https://acme.blob.core.windows.net/c/b?sv=2022-11-02&sp=r&sig={}%3D",
                    fake(B62, 43, 13)
                ),
            ],
        );
        assert_clean(&[
            "https://b.s3.amazonaws.com/k?versionId=3HL4kqtJlcpXroDTDmJ",
            "append &X-Amz-Signature=<signature>",
            "https://acme.blob.core.windows.net/c/b?sig=...",
        ]);
    }

    #[test]
    fn github_gitlab_ci_and_registries() {
        assert_finds(
            FindingKind::GithubToken,
            &[
                concat!("ghp_", "16C7e42F292c6912E7710c838347Ae178B4a"),
                concat!("export GH=", "gho_", "16C7e42F292c6912E7710c838347Ae178B4a"),
                concat!(
                    "github_pat_",
                    "11ABQ7ZK40Zk3Lm8Qp2Rt7_Vx1Yb4Nc6Wd9Fg0Hj5Kl3Mn8Pq2Rs7"
                ),
            ],
        );
        assert_finds(
            FindingKind::GitlabToken,
            &[
                concat!("glpat-", "Zk3Lm8Qp2Rt7Vx1Yb4Nc"),
                concat!("glrt-", "Zk3Lm8Qp2Rt7Vx1Yb4Nc"),
            ],
        );
        assert_finds(
            FindingKind::DevopsToken,
            &[
                concat!(
                    "VAULT_TOKEN=",
                    "hvs.",
                    "CAESIZk3Lm8Qp2Rt7Vx1Yb4Nc6Wd9Fg0Hj5Kl3Mn8Pq2Rs7"
                ),
                concat!("TRAVIS_API_TOKEN=", "Zk3Lm8Qp2Rt7Vx1Yb4Nc6W"),
            ],
        );
        assert_finds(
            FindingKind::RegistryToken,
            &[
                concat!(
                    "//registry.npmjs.org/:_authToken=",
                    "npm_",
                    "Zk3Lm8Qp2Rt7Vx1Yb4Nc6Wd9Fg0Hj5Kl3Mn8"
                ),
                concat!("dckr_pat_", "Zk3Lm8Qp2Rt7Vx1Yb4Nc6Wd9Fg0"),
            ],
        );
        assert_clean(&[
            "GitHub tokens start with ghp_ or github_pat_",
            "ghp_short",
            "ghp_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
            "glpat- tokens expire",
            "//registry.npmjs.org/:_authToken=${NPM_TOKEN}",
        ]);
    }

    #[test]
    fn chat() {
        assert_finds(
            FindingKind::SlackToken,
            &[
                concat!(
                    "xoxb-",
                    "482917305521-5829173055210-Zk3Lm8Qp2Rt7Vx1Yb4Nc6Wd9"
                ),
                concat!("xoxp-", "4829173055-Zk3Lm8"),
                concat!(
                    "https://hooks.slack.com/services/",
                    "T4HZ7QK2M/B07Q3LM8ZX/Zk3Lm8Qp2Rt7Vx1Yb4Nc6Wd9"
                ),
            ],
        );
        // The first part is the base64 of the bot's numeric id.
        let id = "MTA3ODM1NDI5NzE1MjQ3OTIzMg";
        assert_finds(
            FindingKind::ChatToken,
            &[
                &format!("DISCORD_TOKEN={id}.GZk3Lm.Zk3Lm8Qp2Rt7Vx1Yb4Nc6Wd9Fg0Hj5Kl3Mn8Pq2R"),
                &format!("TELEGRAM_BOT_TOKEN=5829173055:AA{}", fake(B62, 33, 6)),
            ],
        );
        assert_clean(&[
            "https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX",
            "xoxb- is a bot token prefix",
            "SLACK_BOT_TOKEN=xoxb-your-bot-token",
            // Same shape as a Discord token, but the first part is no id.
            "MyVeryLongJavaPackageNam.subpkg.SomeClassNameWithALongerName",
            "BotFather's sample 123456:ABC-DEF1234ghIkl-zyx57W2v1u123ew11",
        ]);
    }

    #[test]
    fn payments_and_api_keys() {
        assert_finds(
            FindingKind::StripeKey,
            &[
                concat!("sk_live_", "4eC39HqLyjWDarjtT1zdp7dc"),
                concat!("rk_test_", "51H8Zk3Lm8Qp2Rt7V"),
            ],
        );
        assert_finds(
            FindingKind::PaymentKey,
            &[
                concat!("shpat_", "3f9a1c2e7b4d5f60718293a4b5c6d7e8"),
                concat!("sq0atp-", "Zk3Lm8Qp2Rt7Vx1Yb4Nc6W"),
            ],
        );
        assert_finds(
            FindingKind::ApiKey,
            &[
                concat!(
                    "OPENAI_API_KEY is ",
                    "sk-proj-",
                    "Zk3Lm8Qp2Rt7Vx1Yb4Nc6Wd9Fg0Hj5"
                ),
                concat!("sk-ant-api03-", "Zk3Lm8Qp2Rt7Vx1Yb4Nc6Wd9Fg0Hj5"),
                concat!("hf_", "ZkqLmwQpeRtuVxiYboNcaWdsFgdHjfKlgM"),
                concat!(
                    "SG.",
                    "Zk3Lm8Qp2Rt7Vx1Yb4Nc6W.",
                    "Zk3Lm8Qp2Rt7Vx1Yb4Nc6Wd9Fg0Hj5Kl3Mn8Pq2Rs7Tv"
                ),
                concat!(
                    r#"Client(""#,
                    "AC",
                    "3f9a1c2e7b4d5f60718293a4b5c6d7e8",
                    r#"", ""#,
                    "9e8d7c6b5a4f3e2d1c0b9a8f7e6d5c4b",
                    r#"")"#
                ),
            ],
        );
        assert_clean(&[
            "sk-learn is not a package; scikit-learn is",
            "risk-assessment-framework-for-teams",
            "task-runner-with-many-words-in-it",
            "sk-abcdefghijklmnopqrstuvwxyz012345",
            "sk_live_ keys are secret",
            concat!(
                "sk_test_",
                "4eC39HqLyjWDarjtT1zdp7dc is Stripe's documentation key"
            ),
            // Letters in one case are a name, not a Hugging Face token.
            "hf_modelrepositoryconfigurationload",
            // A Twilio account id alone is an identifier.
            concat!(
                "account ",
                "AC",
                "3f9a1c2e7b4d5f60718293a4b5c6d7e8",
                " owns the number"
            ),
        ]);
    }

    #[test]
    fn url_credentials() {
        assert_finds(
            FindingKind::UrlCredentials,
            &[
                "DATABASE_URL=postgres://app:s3cr3tPw@db.prod.acme.io:5432/app",
                "clone https://deploy:hunter22@git.acme.io/x.git",
                "redis://:Zq8wLm2pX@cache.acme.io:6379",
                "mongodb+srv://svc:Zq8wLm2pX@cluster0.ab1cd.mongodb.net/db",
                "amqps://worker:Zq8wLm2pX@rabbit.acme.io:5671/jobs",
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
            "amqp://guest:guest@localhost:5672/",
            "postgres://postgres:postgres@localhost:5432/app",
            "postgres://user@localhost/db",
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
                "export AUTH_TOKEN=Zk3Lm8QpRt",
                "Authorization: Bearer Zk3Lm8Qp2Rt7Vx1Yb4Nc6Wd9",
                "--password=p4ssw0rd!",
                "PGPASSWORD=s3cretPw9",
                r#"authToken: "Zk29xPq81LmN""#,
                r#"sasl.jaas.config=... required username="APP" password="Zk3Lm8Qp2Rt7";"#,
                "Authorization: Basic YWRtaW46UzNjcjN0UGFzcyE=",
                "curl -u admin:Zx9pLq2w https://api.acme.io",
                "requirepass Zx9pLq2wAb",
            ],
        );
        assert_clean(&[
            "max_tokens=4096",
            "token_limit: 100000",
            "password: string",
            "token: Option<String>",
            "token: &str",
            "password: SecretString",
            "token: my-app-token",
            "password: DB_PASSWORD",
            "password: !vault |",
            "password=password",
            "password=test123",
            "password=${DB_PASSWORD}",
            "secret: process.env.SECRET",
            "secret: config.jwt.secret",
            "api_key = os.environ['API_KEY']",
            "token = getToken()",
            "token: <your token>",
            "password=xxxxxxxx",
            "password: ********",
            "secret_name=my-app-secret",
            "tokenizer=cl100k_base",
            "password_hash_len=32",
            "token_type: bearer",
            "the token: it expires",
            "session_ttl=3600s",
            "password=changeme",
            "auth: required",
            "token: ${{ secrets.GITHUB_TOKEN }}",
            "token_url: https://auth.acme.io/oauth/token",
            "private_key: /etc/ssl/private/server.key",
            "Bearer authentication_with_rotating_keys",
            "Authorization: Basic dXNlcjpwYXNzd29yZA==",
            "curl -u $USER:$TOKEN https://api.acme.io",
            // Code, not assignments of secrets.
            "let const_token: Token![const] = input.parse()?;",
            "`SecretKey::from_slice` now accepts 24-byte input",
            "where <I as Stream>::Token: AsChar + Clone",
            "let token = token?;",
            "pub const IFLA_INET6_TOKEN: _bindgen_ty_5 = _bindgen_ty_5::IFLA_INET6_TOKEN;",
            "V2 { token: BString },",
            "let token = self[0];",
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
            "db.example.internal is a placeholder",
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
                "the VPC is 10.42.0.0/16",
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
            "RFC 1918: 10.0.0.0/8, 172.16.0.0/12, 192.168.0.0/16",
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
            "your.name@acme.io",
            "Ciphers aes256-gcm@openssh.com,chacha20-poly1305@openssh.com",
            "KexAlgorithms curve25519-sha256@libssh.org",
        ]);
        assert_finds(FindingKind::Email, &["mail djm@openssh.com"]);
    }

    #[test]
    fn the_placeholder_rule() {
        for p in [
            "AKIAIOSFODNN7EXAMPLE",
            "AKIAXXXXXXXXXXXXXXXX",
            "ghp_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
            "ghp_****************************************",
            "<redacted>",
            "<your-token>",
            "sk-...",
            "sk-proj-…",
            "${DB_PASSWORD}",
            "$DB_PASSWORD",
            "$(cat /run/secrets/db)",
            "{{ vault_password }}",
            "%s",
            "my-example-key-1234",
            "SAMPLE_TOKEN_9f8e7d",
            "DummyToken42",
            "fake-stripe-key-123",
            "xoxb-not-a-real-token-1234",
            "T00000000",
            "12345678abc",
            "sk-abcdefghijklmnop",
            "password",
            "Password123",
            "test1234",
            "changeme!",
            "guest",
            "aaaaaaaa",
            concat!("sk_test_", "4eC39HqLyjWDarjtT1zdp7dc"),
        ] {
            assert!(is_placeholder(p), "{p:?} is a placeholder");
        }
        for s in [
            "hunter22",
            "s3cr3tPw",
            "Tr0ub4dor&3",
            "Zk3Lm8Qp2Rt7Vx1Yb4Nc6Wd9",
            "admin2024x",
            concat!("sk_live_", "4eC39HqLyjWDarjtT1zdp7dc"),
            // Words in mixed case inside a random string are chance.
            "Zk3yOUrLm8Qp2Rt7",
            "Zk3fAkELm8Qp2Rt7",
            // Three x are not a masking run; five zeros are not six.
            "Zk3xxxLm8Qp2",
            "Zk300000Lm8Q",
        ] {
            assert!(!is_placeholder(s), "{s:?} is not a placeholder");
        }
        // Long secrets are judged on markers only.
        let long = format!(
            "{}your{}",
            "Zk3Lm8Qp2Rt7".repeat(10),
            "Vx1Yb4Nc6Wd9".repeat(10)
        );
        assert!(!is_placeholder(&long));
        assert!(is_placeholder(&format!("{long}...")));
    }

    #[test]
    fn each_span_is_reported_once_and_redacted() {
        let t = concat!("token=", "ghp_", "16C7e42F292c6912E7710c838347Ae178B4a");
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
        // A service-account key is reported once, as a GCP key.
        let sa = concat!(
            r#"{"private_key": "-----BEGIN PRIVATE KEY-----\nMIIEvgIBADANBgkqhkiG9w0BAQEFAASC"#,
            r#"Zk3Lm8Qp2Rt7Vx1Yb4Nc6Wd9Fg0Hj5Kl3Mn8Pq2Rs7Tv1Wx4Yz6Ab9Cd2Ef5Gh8Ij1Kl4\n-----END PRIVATE KEY-----\n"}"#
        );
        assert_eq!(kinds(sa), [FindingKind::GcpKey]);
        // Text order.
        assert_eq!(
            kinds("mail jane@acme.io or call 10.0.0.7"),
            [FindingKind::Email, FindingKind::PrivateIp]
        );
        // No excerpt of any finding in the corpus holds more than four
        // characters of the text it redacts.
        for case in corpus() {
            for f in scan(&case.text) {
                let head = f.excerpt.split('…').next().unwrap_or("");
                assert!(head.chars().count() <= 4, "{f}");
                assert!(
                    f.excerpt.ends_with(" characters)"),
                    "excerpt is head and length: {f}"
                );
            }
        }
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

    #[test]
    fn hostile_text_does_not_panic() {
        // Multi-byte characters at every offset around the windows the
        // scanner slices (the Twilio pair window, the key body limit).
        let sid = concat!("AC", "3f9a1c2e7b4d5f60718293a4b5c6d7e8");
        for pad in 0..8 {
            let t = format!("{}{sid}{}", "é".repeat(100 + pad), "ü".repeat(100 + pad));
            assert_eq!(scan(&t), []);
        }
        let header = "-----BEGIN PRIVATE KEY-----";
        let t = format!("{header}{}", "€".repeat(PEM_BODY_LIMIT));
        assert_eq!(scan(&t), []);
        let t = header.repeat(2000);
        assert_eq!(scan(&t), []);
        assert_eq!(scan(""), []);
        assert_eq!(scan("\u{0}\u{1b}]52;c;\u{7}=:@//"), []);
        // Basic auth that is not base64, or far too long.
        assert_eq!(scan("Authorization: Basic !!!!!!!!!!!!"), []);
        let long = format!("Authorization: Basic {}", "QUFB".repeat(400));
        assert_eq!(scan(&long), []);
    }

    #[test]
    fn kinds_serialise_as_their_names() {
        for kind in FindingKind::ALL {
            assert_eq!(serde_json::to_value(kind).unwrap(), kind.as_str());
        }
        let mut all: Vec<FindingKind> = FindingKind::ALL.to_vec();
        all.sort();
        all.dedup();
        assert_eq!(all.len(), FindingKind::ALL.len());
        // Every kind has a rule.
        for kind in FindingKind::ALL {
            assert!(scanner().rules.iter().any(|r| r.kind == kind), "{kind}");
        }
    }

    // ---- the corpus -----------------------------------------------------

    #[derive(serde::Deserialize)]
    struct Case {
        text: String,
        leak: bool,
        class: String,
        note: String,
    }

    const CORPUS: &str = include_str!("testdata/disclosure-corpus.jsonl");

    fn corpus() -> Vec<Case> {
        CORPUS
            .lines()
            .enumerate()
            .filter(|(_, l)| !l.trim().is_empty())
            .map(|(i, l)| {
                serde_json::from_str(l)
                    .unwrap_or_else(|e| panic!("disclosure-corpus.jsonl line {}: {e}", i + 1))
            })
            .collect()
    }

    /// Every leak is found under its class; at most one benign line in 20 is
    /// blocked.
    #[test]
    fn the_corpus() {
        let cases = corpus();
        let names: Vec<&str> = FindingKind::ALL.iter().map(|k| k.as_str()).collect();
        for (i, c) in cases.iter().enumerate() {
            assert!(
                names.contains(&c.class.as_str()),
                "line {}: unknown class {:?}",
                i + 1,
                c.class
            );
        }
        let leaks = cases.iter().filter(|c| c.leak).count();
        let benign = cases.len() - leaks;
        assert!(
            leaks >= 40 && benign >= 40,
            "{leaks} leaks, {benign} benign"
        );
        for kind in FindingKind::ALL {
            assert!(
                cases.iter().any(|c| c.leak && c.class == kind.as_str()),
                "no leak of class {kind} in the corpus"
            );
        }
        let mut missed = Vec::new();
        let mut blocked = Vec::new();
        for (i, c) in cases.iter().enumerate() {
            let found: Vec<String> = scan(&c.text).iter().map(|f| f.to_string()).collect();
            let hit = scan(&c.text).iter().any(|f| f.kind.as_str() == c.class);
            if c.leak && !hit {
                missed.push(format!(
                    "  line {} [{}] {}: found {:?}",
                    i + 1,
                    c.class,
                    c.note,
                    found
                ));
            } else if !c.leak && !found.is_empty() {
                blocked.push(format!(
                    "  line {} [{}] {}: found {:?}",
                    i + 1,
                    c.class,
                    c.note,
                    found
                ));
            }
        }
        assert!(
            missed.is_empty() && blocked.len() * 20 <= benign,
            "{} of {leaks} leaks missed, {} of {benign} benign lines blocked\nmissed:\n{}\nblocked:\n{}",
            missed.len(),
            blocked.len(),
            missed.join("\n"),
            blocked.join("\n"),
        );
    }

    /// The corpus file, read as raw bytes (as a hosting secret scanner reads
    /// it), holds no leak: leak lines escape their secrets as `\uXXXX`.
    #[test]
    fn the_raw_corpus_file_holds_no_leak() {
        for (i, line) in CORPUS.lines().enumerate() {
            if line.contains(r#""leak": true"#) {
                assert_eq!(scan(line), [], "line {} is not escaped", i + 1);
            }
        }
    }
}
