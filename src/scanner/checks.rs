//! The named checks a rule's match goes through: what a pattern cannot say.
//!
//! A [`Check`] takes a match of its rule's pattern (in normalised text) and
//! returns the [`Hit`] — the span to report and the part that is the secret,
//! which the placeholder rule then judges — or `None` when the match is a
//! known non-leak. `rules.toml` names one per rule; [`NAMES`] lists them.
//!
//! What each decides, beyond its pattern:
//! - `pem_body`: a private key header is a leak only with key material after
//!   it (64 base64 characters, in runs of 16 or more, before the next
//!   `-----`, quote or backtick); the report is the whole block.
//! - `key_body`: a headerless key body, to the end of its material.
//! - `aws_secret`: 40 base64 characters with both cases (40 hex is a commit).
//! - `with_digit`, `mixed_case`, `with_digit_mixed`, `sk_dash`: random
//!   tokens have digits and mixed case; words do not.
//! - `discord_bot`: the first part decodes to a numeric id.
//! - `twilio_account`: an account id is a leak only with a 32-hex auth token
//!   within [`PAIR_WINDOW`] characters.
//! - `url_credentials`: not at an example host.
//! - `assignment`, `requirepass`: the value is a secret, not code, a type,
//!   a path, an identifier or a word (`value::is_secret_value`).
//! - `bearer`: the value has a digit or mixed case.
//! - `basic_auth`: decodes to `user:password` with a password that is no
//!   placeholder.
//! - `host`: not a file name, a member chain, a field of a usual receiver or
//!   a well-known name.
//! - `ip`: a private address that is no version number and no block.
//! - `home_path`: a home directory not inside a URL or a longer path, of no
//!   role account.
//! - `email`, `spelled_email`: not at an example domain, no role mailbox,
//!   no SSH algorithm name, no scp-style remote; a spelled one ends in a
//!   common top-level domain, and ` at ` with spaces needs a spelled ` dot `.

use std::ops::Range;
use std::sync::OnceLock;

use base64ct::{Base64, Base64Unpadded, Encoding};
use regex::{Captures, Regex};

use super::rules::Rules;
use super::value::is_secret_value;

/// An accepted match: the span reported and the part that is the secret.
/// Both are byte ranges of the (normalised) text.
pub struct Hit {
    pub span: Range<usize>,
    pub secret: Range<usize>,
}

/// Given the rules, the text and a match, the hit, or `None` when the match
/// is a known non-leak.
pub type Check = fn(&Rules, &str, &Captures<'_>) -> Option<Hit>;

/// Every check, by the name `rules.toml` gives it.
const CHECKS: [(&str, Check); 25] = [
    ("whole", whole),
    ("value", value),
    ("inner", inner),
    ("pair", pair),
    ("pem_body", pem_body),
    ("key_body", key_body),
    ("aws_secret", aws_secret),
    ("with_digit", with_digit),
    ("mixed_case", mixed_case),
    ("with_digit_mixed", with_digit_mixed),
    ("sk_dash", sk_dash),
    ("discord_bot", discord_bot),
    ("telegram", telegram),
    ("twilio_account", twilio_account),
    ("url_credentials", url_credentials),
    ("assignment", assignment),
    ("bearer", bearer),
    ("basic_auth", basic_auth),
    ("curl_user", curl_user),
    ("requirepass", requirepass),
    ("host", host),
    ("ip", ip),
    ("home_path", home_path),
    ("email", email),
    ("spelled_email", spelled_email),
];

/// The names of every check.
pub const NAMES: [&str; CHECKS.len()] = {
    let mut names = [""; CHECKS.len()];
    let mut i = 0;
    while i < CHECKS.len() {
        names[i] = CHECKS[i].0;
        i += 1;
    }
    names
};

/// The check of this name.
pub fn by_name(name: &str) -> Option<Check> {
    CHECKS.iter().find(|(n, _)| *n == name).map(|&(_, c)| c)
}

fn range(m: regex::Match<'_>) -> Range<usize> {
    m.start()..m.end()
}

/// The whole match is the token.
fn whole(_: &Rules, _: &str, c: &Captures<'_>) -> Option<Hit> {
    let m = c.get(0)?;
    Some(Hit {
        span: range(m),
        secret: range(m),
    })
}

/// A name and its value: group 1 is the secret, the report runs from the
/// name to the end of the value.
fn value(_: &Rules, _: &str, c: &Captures<'_>) -> Option<Hit> {
    let (m, v) = (c.get(0)?, c.get(1)?);
    Some(Hit {
        span: m.start()..v.end(),
        secret: range(v),
    })
}

/// A token found by what surrounds it: group 1 is both the report and the
/// secret.
fn inner(_: &Rules, _: &str, c: &Captures<'_>) -> Option<Hit> {
    let v = c.get(1)?;
    Some(Hit {
        span: range(v),
        secret: range(v),
    })
}

/// Group 1 is reported, group 2 (inside it) is the secret: `sig=…`,
/// `user:password`.
fn pair(_: &Rules, _: &str, c: &Captures<'_>) -> Option<Hit> {
    let (r, v) = (c.get(1)?, c.get(2)?);
    Some(Hit {
        span: r.start()..v.end(),
        secret: range(v),
    })
}

// ---- keys ------------------------------------------------------------------

/// The most a key body is looked for after its header.
pub const PEM_BODY_LIMIT: usize = 8 * 1024;

/// A private key header is a leak when key material follows it: at least 64
/// base64 characters, in runs of 16 or more, before the next `-----`, quote
/// or backtick. The body is the secret.
fn pem_body(_: &Rules, text: &str, c: &Captures<'_>) -> Option<Hit> {
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
fn key_body(_: &Rules, text: &str, c: &Captures<'_>) -> Option<Hit> {
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

// ---- tokens ----------------------------------------------------------------

/// A 40-character AWS secret key is base64 with both cases; a 40-hex value
/// is a commit id, not a key.
fn aws_secret(r: &Rules, text: &str, c: &Captures<'_>) -> Option<Hit> {
    let v = c.get(1)?.as_str();
    let upper = v.bytes().any(|b| b.is_ascii_uppercase());
    let lower = v.bytes().any(|b| b.is_ascii_lowercase());
    (upper && lower).then(|| value(r, text, c)).flatten()
}

fn with_digit(r: &Rules, text: &str, c: &Captures<'_>) -> Option<Hit> {
    let m = c.get(0)?.as_str();
    m.bytes()
        .any(|b| b.is_ascii_digit())
        .then(|| whole(r, text, c))
        .flatten()
}

fn mixed_case(r: &Rules, text: &str, c: &Captures<'_>) -> Option<Hit> {
    let m = c.get(0)?.as_str();
    let body = &m[m.rfind('_')? + 1..];
    (body.bytes().any(|b| b.is_ascii_uppercase()) && body.bytes().any(|b| b.is_ascii_lowercase()))
        .then(|| whole(r, text, c))
        .flatten()
}

fn with_digit_mixed(r: &Rules, text: &str, c: &Captures<'_>) -> Option<Hit> {
    with_digit(r, text, c).and(mixed_case(r, text, c))
}

/// `sk-` keys are random: the part after `sk-` has a digit and a letter,
/// and either an upper-case letter or (lower-case hex keys) 32 or more
/// characters without a separator. So `sk-learn-…` words and OpenSSH's
/// `sk-ecdsa-sha2-nistp256-cert-v01@openssh.com` are not keys.
fn sk_dash(r: &Rules, text: &str, c: &Captures<'_>) -> Option<Hit> {
    let body = &c.get(0)?.as_str()[3..];
    let b = body.as_bytes();
    let random = b.iter().any(u8::is_ascii_uppercase)
        || (b.len() >= 32 && !b.contains(&b'-') && !b.contains(&b'_'));
    (b.iter().any(u8::is_ascii_digit) && b.iter().any(u8::is_ascii_alphabetic) && random)
        .then(|| whole(r, text, c))
        .flatten()
}

/// A Discord bot token's first part is the base64 of the bot's numeric id.
fn discord_bot(r: &Rules, text: &str, c: &Captures<'_>) -> Option<Hit> {
    let id = c.get(1)?.as_str();
    let mut buf = [0u8; 32];
    let decoded = Base64Unpadded::decode(id, &mut buf).ok()?;
    ((17..=20).contains(&decoded.len()) && decoded.iter().all(u8::is_ascii_digit))
        .then(|| whole(r, text, c))
        .flatten()
}

/// A Telegram bot token, without the boundary character after it.
fn telegram(_: &Rules, _: &str, c: &Captures<'_>) -> Option<Hit> {
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
pub const PAIR_WINDOW: usize = 200;

/// A Twilio account id (`AC` + 32 hex) is an identifier; it is a leak when
/// its auth token (32 hex) stands beside it. The token is the secret.
fn twilio_account(_: &Rules, text: &str, c: &Captures<'_>) -> Option<Hit> {
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

// ---- credentials -------------------------------------------------------------

fn url_credentials(r: &Rules, _: &str, c: &Captures<'_>) -> Option<Hit> {
    let pass = c.get(2)?;
    if r.exempt.is_example_host(c.get(3)?.as_str()) {
        return None;
    }
    Some(Hit {
        span: range(c.get(0)?),
        secret: range(pass),
    })
}

fn assignment(r: &Rules, text: &str, c: &Captures<'_>) -> Option<Hit> {
    let (m, g) = (c.get(0)?, c.get(1)?);
    // The value as written is judged first: trimming a sentence's closing
    // punctuation must not turn `sk_live_...` into `sk_live_`.
    if r.placeholder.is(g.as_str()) {
        return None;
    }
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
fn bearer(_: &Rules, _: &str, c: &Captures<'_>) -> Option<Hit> {
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
fn basic_auth(r: &Rules, text: &str, c: &Captures<'_>) -> Option<Hit> {
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
    (!password.is_empty() && !r.placeholder.is(password))
        .then(|| value(r, text, c))
        .flatten()
}

/// `curl -u user:password`: the password is the secret (`-u user` alone
/// makes curl ask for it; `-u $USER:$TOKEN` is a placeholder).
fn curl_user(_: &Rules, _: &str, c: &Captures<'_>) -> Option<Hit> {
    let (r, pass) = (c.get(1)?, c.get(3)?);
    Some(Hit {
        span: range(r),
        secret: range(pass),
    })
}

fn requirepass(r: &Rules, text: &str, c: &Captures<'_>) -> Option<Hit> {
    is_secret_value(c.get(1)?.as_str())
        .then(|| value(r, text, c))
        .flatten()
}

// ---- places and people -----------------------------------------------------

fn host(r: &Rules, text: &str, c: &Captures<'_>) -> Option<Hit> {
    let host = c.get(1)?;
    if c.get(2).is_some() {
        return None; // continues as `.<name>`: a file name or a member chain
    }
    if text[..host.start()].ends_with('.') {
        return None; // `.env.local`
    }
    let name = host.as_str().to_ascii_lowercase();
    if r.exempt.hosts.contains(&name) {
        return None;
    }
    let labels: Vec<&str> = name.split('.').collect();
    if labels.len() == 2 && r.exempt.code_receivers.iter().any(|c| c == labels[0]) {
        return None;
    }
    Some(Hit {
        span: range(host),
        secret: range(host),
    })
}

fn ip(_: &Rules, text: &str, c: &Captures<'_>) -> Option<Hit> {
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

/// A home directory: group 1 is reported, group 2 is the user name (the
/// secret). Not when it continues a longer path, a URL or a word
/// (`github.com/acme/home/alice`, `src/home/x`), save `file://`; not a role
/// account; a trailing `.` is the sentence's.
fn home_path(r: &Rules, text: &str, c: &Captures<'_>) -> Option<Hit> {
    let (dir, user) = (c.get(1)?, c.get(2)?);
    let before = &text[..dir.start()];
    let glued = before
        .chars()
        .next_back()
        .is_some_and(|ch| ch.is_alphanumeric() || matches!(ch, '.' | '-' | '_' | '/' | '\\'));
    if glued && !before.ends_with("file://") {
        return None;
    }
    let name = user.as_str().trim_end_matches('.');
    if name.is_empty()
        || r.exempt
            .accounts
            .iter()
            .any(|a| a.eq_ignore_ascii_case(name))
    {
        return None;
    }
    let end = user.start() + name.len();
    Some(Hit {
        span: dir.start()..end,
        secret: user.start()..end,
    })
}

fn email(r: &Rules, text: &str, c: &Captures<'_>) -> Option<Hit> {
    let m = c.get(0)?;
    let local = c.get(1)?.as_str().to_ascii_lowercase();
    let domain = c.get(2)?.as_str().to_ascii_lowercase();
    // SSH names its algorithms and extensions `name@domain`
    // (`aes256-gcm@openssh.com`, `curve25519-sha256@libssh.org`).
    let ssh_algorithm = r.exempt.ssh_domains.contains(&domain)
        && local.contains('-')
        && local.bytes().any(|b| b.is_ascii_digit());
    if r.exempt.is_example_host(&domain)
        || ssh_algorithm
        || r.exempt.mailboxes.contains(&local)
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

/// A spelled-out address (group 1 the mailbox, group 2 the domain, group 3
/// its last label): the last label a common top-level domain, the domain
/// no example; ` at ` between spaces is prose (`available at github.com`)
/// unless the domain spells a ` dot ` too.
fn spelled_email(r: &Rules, text: &str, c: &Captures<'_>) -> Option<Hit> {
    let (m, local, domain, tld) = (c.get(0)?, c.get(1)?, c.get(2)?, c.get(3)?);
    if text[m.end()..].starts_with(['-', '_']) {
        return None; // `com-style`: the word goes on
    }
    if !r
        .exempt
        .spelled_tlds
        .iter()
        .any(|t| t.eq_ignore_ascii_case(tld.as_str()))
    {
        return None;
    }
    let separator = text[local.end()..domain.start()].trim();
    let spelled_dot = |s: &str| {
        s.split(|ch: char| !ch.is_ascii_alphabetic())
            .any(|w| w.eq_ignore_ascii_case("dot"))
    };
    if separator.eq_ignore_ascii_case("at") && !spelled_dot(domain.as_str()) {
        return None;
    }
    static SEPARATOR: OnceLock<Regex> = OnceLock::new();
    let sep = SEPARATOR.get_or_init(|| {
        Regex::new(r"(?i)\s*[\[({<]\s*dot\s*[\])}>]\s*|\s+dot\s+")
            .unwrap_or_else(|e| panic!("dot separator: {e}"))
    });
    let plain = sep.replace_all(domain.as_str(), ".").to_ascii_lowercase();
    let mailbox = local.as_str().to_ascii_lowercase();
    if r.exempt.is_example_host(&plain) || r.exempt.mailboxes.contains(&mailbox) {
        return None;
    }
    Some(Hit {
        span: range(m),
        secret: range(m),
    })
}
