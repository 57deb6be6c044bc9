//! The disclosure scanner: secrets, credentials, internal host names, home
//! paths and e-mail addresses in text.
//!
//! Two parts of git-lore ask it, and both ask this one module:
//! - **review**: the offline judges' `disclosure` criterion and the scan of
//!   every public lesson at judge time and before publishing
//!   ([`scan_lesson`]);
//! - **capture**: every span it finds in a transcript's text is replaced
//!   before anything is kept or sent to a model
//!   (`crate::pipeline::capture::redact`, through [`find`]).
//!
//! **The rules are data.** `rules.toml`, embedded and parsed once
//! ([`rules::Rules`]), holds every class with its made-up leaks and
//! look-alikes, the patterns in the order they are tried, the placeholder
//! rule's values and the public names and addresses that are let through.
//! Code holds only what a pattern cannot say: the named checks a match goes
//! through ([`checks`], with `value` judging assigned values), the
//! placeholder predicate ([`placeholder`]), and the steps below.
//! docs/disclosure.md is the reader's version of the file.
//!
//! **How a text is read**, so that a secret survives no disguise:
//! 1. **Normalised** ([`normalise`]): invisible characters (zero-width,
//!    bidirectional and other format controls, variation selectors, tags,
//!    control characters) removed; compatibility forms decomposed (NFKD:
//!    full-width `ｇｈｐ＿` is `ghp_`) and combining marks dropped;
//!    confusables folded to the ASCII they imitate (UTS #39: Cyrillic `А`
//!    in `AKIA…` is `A`). Findings are mapped back to the original text.
//! 2. **Matched**: a `RegexSet` of every pattern says in one pass which
//!    rules can match; each match goes through its check and then the
//!    placeholder rule. A span is reported once, under the first rule that
//!    accepts it.
//! 3. **Decoded** ([`decode`]): percent-encoded, base64 and hex runs are
//!    decoded, when they decode to text, and scanned the same way, at most
//!    [`decode::MAX_DEPTH`] layers deep and within a budget of bytes per
//!    scan, as gitleaks and trufflehog do. A finding inside is reported at
//!    the encoded text, naming its encodings.
//! 4. A lesson is scanned field by field and **with its fields joined**
//!    (`lesson.rs`), so a key split across the claim and the rationale is
//!    found too.
//!
//! It never returns a secret's text: a [`Finding`]'s excerpt is the first
//! four characters and the length, and [`find`] gives positions in the
//! caller's own text. It does not decide what a finding does to a
//! verdict or to a transcript, it writes nothing, and it reads nothing but
//! its embedded rules. Which characters may reach a terminal is not its
//! question either; it only needs to see through them (its own minimal set
//! of invisible characters is in [`normalise`]).

pub mod checks;
pub mod decode;
mod lesson;
pub mod normalise;
pub mod placeholder;
pub mod rules;
#[cfg(test)]
mod tests;
mod value;

use std::collections::BTreeMap;
use std::fmt;
use std::ops::Range;

use crate::names::string_enum;

pub use lesson::scan_lesson;
pub use rules::{rules, Rules, RulesError};

string_enum! {
    /// What a finding is: the classes of `rules.toml`, in its order.
    pub enum FindingKind: "finding kind" {
        PrivateKey("private_key", 0),
        Jwt("jwt", 1),
        AwsAccessKey("aws_access_key", 2),
        AwsSecretKey("aws_secret_key", 3),
        AzureKey("azure_key", 4),
        GcpKey("gcp_key", 5),
        CloudKey("cloud_key", 6),
        SignedUrl("signed_url", 7),
        GithubToken("github_token", 8),
        GitlabToken("gitlab_token", 9),
        DevopsToken("devops_token", 10),
        RegistryToken("registry_token", 11),
        SlackToken("slack_token", 12),
        ChatToken("chat_token", 13),
        StripeKey("stripe_key", 14),
        PaymentKey("payment_key", 15),
        ApiKey("api_key", 16),
        UrlCredentials("url_credentials", 17),
        SecretAssignment("secret_assignment", 18),
        InternalHost("internal_host", 19),
        PrivateIp("private_ip", 20),
        HomePath("home_path", 21),
        Email("email", 22),
        SpelledEmail("spelled_email", 23),
    }
}

string_enum! {
    /// An encoding a finding was hidden in.
    pub enum Encoding: "encoding" {
        Percent("percent", 0),
        Base64("base64", 1),
        Hex("hex", 2),
    }
}

/// One thing the scanner found.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Finding {
    pub kind: FindingKind,
    /// A redacted excerpt: the first four characters and the length.
    pub excerpt: String,
    /// Where in a lesson it was found (`claim`, `evidence.resolution`,
    /// `claim + rationale` for a span across fields, …); `None` from
    /// [`scan`] on plain text.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub field: Option<String>,
    /// The encodings it was found inside, outermost first (empty: found as
    /// written).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub encoded: Vec<Encoding>,
}

impl fmt::Display for Finding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.kind)?;
        if !self.encoded.is_empty() {
            let names: Vec<&str> = self.encoded.iter().map(|e| e.as_str()).collect();
            write!(f, " (decoded from {})", names.join(", then "))?;
        }
        match &self.field {
            Some(field) => write!(f, " in {}: {}", field, self.excerpt),
            None => write!(f, ": {}", self.excerpt),
        }
    }
}

/// A finding located in the text that was scanned: what to redact.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Located {
    pub kind: FindingKind,
    /// Byte range of the original text (char boundaries). For a finding
    /// inside an encoding, the encoded text that holds it.
    pub span: Range<usize>,
    /// The encodings it was found inside, outermost first.
    pub encoded: Vec<Encoding>,
}

/// Whether a would-be secret is a placeholder (see [`placeholder`]), by the
/// built-in rules.
pub fn is_placeholder(secret: &str) -> bool {
    rules().placeholder.is(secret)
}

/// Every finding in plain text, located, in text order, one per span.
pub fn find(text: &str) -> Vec<Located> {
    find_with(rules(), text)
}

/// [`find`] by the given rules.
pub fn find_with(rules: &Rules, text: &str) -> Vec<Located> {
    let mut budget = decode::Budget::default();
    layer(rules, text, 0, &mut budget)
        .into_iter()
        .map(|r| Located {
            kind: r.kind,
            span: r.span,
            encoded: r.encoded,
        })
        .collect()
}

/// Scans plain text. Findings come in text order, one per span.
pub fn scan(text: &str) -> Vec<Finding> {
    find(text)
        .into_iter()
        .map(|l| Finding {
            kind: l.kind,
            excerpt: excerpt(&text[l.span]),
            field: None,
            encoded: l.encoded,
        })
        .collect()
}

/// The first four characters (at most half) and the length.
pub(crate) fn excerpt(s: &str) -> String {
    let n = s.chars().count();
    let head: String = s.chars().take(4.min(n / 2)).collect();
    format!("{head}… ({n} characters)")
}

/// A finding in one layer's coordinates, with the index of the rule that
/// made it: the lower, the more specific.
struct Ranked {
    span: Range<usize>,
    kind: FindingKind,
    encoded: Vec<Encoding>,
    rank: usize,
}

/// Reported spans by start, in one text's coordinates. They never overlap,
/// so the ones a new span can overlap are the last ones that start before
/// the new span ends.
#[derive(Default)]
struct Spans(BTreeMap<usize, Ranked>);

impl Spans {
    /// Whether `span` lies inside one reported span.
    fn covers(&self, span: &Range<usize>) -> bool {
        self.0
            .range(..=span.start)
            .next_back()
            .is_some_and(|(_, r)| r.span.end >= span.end)
    }

    /// Adds a finding unless it overlaps one of a rule tried before it; it
    /// replaces those it overlaps of rules tried after it (a token found
    /// decoded inside a generic `token=…`).
    fn insert(&mut self, new: Ranked) {
        if new.span.is_empty() {
            return;
        }
        let overlapping: Vec<usize> = self
            .0
            .range(..new.span.end)
            .rev()
            .take_while(|(_, r)| r.span.end > new.span.start)
            .map(|(&start, _)| start)
            .collect();
        if overlapping.iter().any(|s| self.0[s].rank <= new.rank) {
            return;
        }
        for s in overlapping {
            self.0.remove(&s);
        }
        self.0.insert(new.span.start, new);
    }
}

/// One layer of text: normalised, matched, its encoded runs decoded and
/// scanned as layers of their own. Spans are of `text`.
fn layer(rules: &Rules, text: &str, depth: usize, budget: &mut decode::Budget) -> Vec<Ranked> {
    let norm = normalise::Normalised::of(text);
    let t = norm.text();
    let mut spans = Spans::default();
    for rank in rules.set.matches(t).into_iter() {
        let rule = &rules.rules[rank];
        for c in rule.re.captures_iter(t) {
            let Some(hit) = (rule.check)(rules, t, &c) else {
                continue;
            };
            if !rules.placeholder.is(&t[hit.secret]) {
                spans.insert(Ranked {
                    span: hit.span,
                    kind: rule.kind,
                    encoded: Vec::new(),
                    rank,
                });
            }
        }
    }
    if depth < decode::MAX_DEPTH {
        for seg in decode::segments(t, budget) {
            if spans.covers(&seg.span) {
                continue;
            }
            for inner in layer(rules, &seg.text, depth + 1, budget) {
                let mut encoded = vec![seg.encoding];
                encoded.extend(inner.encoded);
                spans.insert(Ranked {
                    span: seg.outer(inner.span),
                    encoded,
                    ..inner
                });
            }
        }
    }
    spans
        .0
        .into_values()
        .map(|r| Ranked {
            span: norm.original(r.span.clone()),
            ..r
        })
        .collect()
}
