//! The OpenSSH allowed-signers format (`ssh-keygen(1)`, "ALLOWED SIGNERS") and
//! the lookups `ssh-keygen -Y find-principals` and `-Y verify` make in it.
//!
//! Deviations from OpenSSH, on purpose:
//! - `valid-after` / `valid-before` times without a `Z` (or `UTC`) suffix are
//!   read as UTC, not as the verifying machine's local time, so a verdict does
//!   not depend on where it is computed. Write `Z` to be exact everywhere.
//! - `cert-authority` lines are parsed but never match: signatures made with
//!   ssh certificates are not supported.

use jiff::Timestamp;

use super::armor::{base64_decode, blob_key_type, fingerprint};
use super::SigningError;

/// Key types OpenSSH accepts in a key line.
const KEY_TYPES: &[&str] = &[
    "ssh-ed25519",
    "sk-ssh-ed25519@openssh.com",
    "ssh-rsa",
    "ssh-dss",
    "ecdsa-sha2-nistp256",
    "ecdsa-sha2-nistp384",
    "ecdsa-sha2-nistp521",
    "sk-ecdsa-sha2-nistp256@openssh.com",
    "ssh-xmss@openssh.com",
    "ssh-ed25519-cert-v01@openssh.com",
    "sk-ssh-ed25519-cert-v01@openssh.com",
    "ssh-rsa-cert-v01@openssh.com",
    "ssh-dss-cert-v01@openssh.com",
    "ecdsa-sha2-nistp256-cert-v01@openssh.com",
    "ecdsa-sha2-nistp384-cert-v01@openssh.com",
    "ecdsa-sha2-nistp521-cert-v01@openssh.com",
    "sk-ecdsa-sha2-nistp256-cert-v01@openssh.com",
    "ssh-xmss-cert-v01@openssh.com",
];

/// One parsed line.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Entry {
    /// 1-based line number.
    line: usize,
    /// The comma-separated principal pattern list, unquoted.
    principals: String,
    cert_authority: bool,
    /// The `namespaces` pattern list, if restricted.
    namespaces: Option<String>,
    valid_after: Option<Timestamp>,
    valid_before: Option<Timestamp>,
    /// The public key blob (SSH wire format).
    key_blob: Vec<u8>,
}

impl Entry {
    fn valid_at(&self, at: Option<Timestamp>) -> bool {
        if self.valid_after.is_none() && self.valid_before.is_none() {
            return true;
        }
        // Without a time, a time-restricted key cannot be shown to be valid.
        let Some(at) = at else { return false };
        let t = at.as_second();
        if self.valid_after.is_some_and(|a| t < a.as_second()) {
            return false;
        }
        if self.valid_before.is_some_and(|b| t > b.as_second()) {
            return false;
        }
        true
    }

    fn allows_namespace(&self, namespace: &str) -> bool {
        self.namespaces
            .as_deref()
            .is_none_or(|list| match_pattern_list(namespace, list) == 1)
    }
}

/// A parsed allowed-signers file: which principals may sign with which keys,
/// in which namespaces and when.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct AllowedSigners {
    entries: Vec<Entry>,
}

impl AllowedSigners {
    /// Parses the text of an allowed-signers file. Blank lines and lines whose
    /// first non-blank character is `#` are ignored. Every other line is
    /// `principals [options] keytype base64 [comment]`, where principals is a
    /// comma-separated pattern list (`*`, `?`, `!` negation; may be
    /// double-quoted) and options are `cert-authority`, `namespaces="..."`,
    /// `valid-after="..."`, `valid-before="..."` with times
    /// `YYYYMMDD[HHMM[SS]][Z]` (read as UTC, see the module documentation).
    ///
    /// Any malformed line fails the whole file, naming the line number, as
    /// ssh-keygen stops at such a line.
    pub fn parse(text: &str) -> Result<AllowedSigners, SigningError> {
        let mut entries = Vec::new();
        for (index, line) in text.split('\n').enumerate() {
            let number = index + 1;
            if let Some(entry) =
                parse_line(line, number).map_err(|reason| SigningError::AllowedSigners {
                    line: number,
                    reason,
                })?
            {
                entries.push(entry);
            }
        }
        Ok(AllowedSigners { entries })
    }

    /// Number of key lines.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether there are no key lines.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The `SHA256:…` fingerprint of every key a line lists plainly, each
    /// once, in file order.
    pub fn fingerprints(&self) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for e in self.entries.iter().filter(|e| !e.cert_authority) {
            let fp = super::armor::fingerprint(&e.key_blob);
            if !out.contains(&fp) {
                out.push(fp);
            }
        }
        out
    }

    /// `(principals, fingerprint)` of every plain key line, in file order.
    pub fn keys(&self) -> Vec<(String, String)> {
        self.entries
            .iter()
            .filter(|e| !e.cert_authority)
            .map(|e| (e.principals.clone(), super::armor::fingerprint(&e.key_blob)))
            .collect()
    }

    /// Both lists: a key either lists is allowed as that list allows it.
    pub fn union(mut self, other: &AllowedSigners) -> AllowedSigners {
        self.entries.extend(other.entries.iter().cloned());
        self
    }

    /// Whether some line lists this key (plainly, not as a certificate
    /// authority), whatever its principals, namespaces and validity.
    pub fn lists_key(&self, key: &ssh_key::PublicKey) -> bool {
        match key.to_bytes() {
            Ok(blob) => self
                .entries
                .iter()
                .any(|e| !e.cert_authority && e.key_blob == blob),
            Err(_) => false,
        }
    }

    /// `ssh-keygen -Y find-principals`: the principals of the first line that
    /// lists the key and is valid at `at` (namespaces are not considered).
    pub(crate) fn find_principals(&self, key_blob: &[u8], at: Option<Timestamp>) -> Option<&str> {
        self.entries
            .iter()
            .find(|e| !e.cert_authority && e.key_blob == key_blob && e.valid_at(at))
            .map(|e| e.principals.as_str())
    }

    /// `ssh-keygen -Y verify -I principal -n namespace`: whether a line whose
    /// principal patterns match `principal` lists the key, allows the
    /// namespace and is valid at `at`.
    pub(crate) fn authorizes(
        &self,
        principal: &str,
        key_blob: &[u8],
        namespace: &str,
        at: Option<Timestamp>,
    ) -> bool {
        self.entries.iter().any(|e| {
            match_pattern_list(principal, &e.principals) == 1
                && !e.cert_authority
                && e.key_blob == key_blob
                && e.allows_namespace(namespace)
                && e.valid_at(at)
        })
    }

    /// Why `authorizes` failed for a listed key, for messages.
    pub(crate) fn refusal_reason(
        &self,
        principal: &str,
        key_blob: &[u8],
        namespace: &str,
        at: Option<Timestamp>,
    ) -> String {
        let fp = fingerprint(key_blob);
        for e in self.entries.iter().filter(|e| {
            !e.cert_authority
                && e.key_blob == key_blob
                && match_pattern_list(principal, &e.principals) == 1
        }) {
            if !e.allows_namespace(namespace) {
                return format!(
                    "allowed signers line {} does not permit key {fp} to sign in namespace {namespace:?}",
                    e.line
                );
            }
            if !e.valid_at(at) {
                return format!(
                    "allowed signers line {}: key {fp} is not valid at the signature's time",
                    e.line
                );
            }
        }
        format!("no allowed signers line authorizes principal {principal:?} for key {fp}")
    }
}

fn is_blank(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\r' | '\n')
}

/// Splits off the next whitespace-delimited token.
fn next_token(s: &str) -> (&str, &str) {
    let end = s.find(is_blank).unwrap_or(s.len());
    (&s[..end], s[end..].trim_start_matches(is_blank))
}

fn parse_line(line: &str, number: usize) -> Result<Option<Entry>, String> {
    let s = line.trim_start_matches(is_blank);
    if s.is_empty() || s.starts_with('#') {
        return Ok(None);
    }
    let (principals, rest) = if let Some(quoted) = s.strip_prefix('"') {
        let close = quoted.find('"').ok_or("unterminated quote in principals")?;
        (
            &quoted[..close],
            quoted[close + 1..].trim_start_matches(is_blank),
        )
    } else {
        next_token(s)
    };
    if principals.contains('"') && !s.starts_with('"') {
        return Err("unexpected quote in principals".into());
    }
    if rest.is_empty() {
        return Err("missing key after the principals".into());
    }
    let (first, _) = next_token(rest);
    let (options, key_part) = if KEY_TYPES.contains(&first) {
        ("", rest)
    } else {
        let end = options_end(rest).ok_or("invalid options: unterminated quote")?;
        let key_part = rest[end..].trim_start_matches(is_blank);
        if key_part.is_empty() {
            return Err("missing key after the options".into());
        }
        (&rest[..end], key_part)
    };
    let (key_type, after_type) = next_token(key_part);
    if !KEY_TYPES.contains(&key_type) {
        return Err(format!("invalid key: unknown key type {key_type:?}"));
    }
    let (b64, _comment) = next_token(after_type);
    if b64.is_empty() {
        return Err(format!("invalid key: no key data after {key_type:?}"));
    }
    let key_blob = base64_decode(b64).ok_or("invalid key: key data is not base64")?;
    match blob_key_type(&key_blob) {
        Some(t) if t == key_type => {}
        Some(t) => {
            return Err(format!(
                "invalid key: key type {key_type:?} does not match key data of type {t:?}"
            ))
        }
        None => return Err("invalid key: malformed key data".into()),
    }
    let mut entry = Entry {
        line: number,
        principals: principals.to_string(),
        cert_authority: false,
        namespaces: None,
        valid_after: None,
        valid_before: None,
        key_blob,
    };
    parse_options(options, &mut entry)?;
    Ok(Some(entry))
}

/// Where the options field ends: the first blank outside double quotes
/// (`\"` does not count as a quote). `None` for an unterminated quote.
fn options_end(s: &str) -> Option<usize> {
    let mut quoted = false;
    let mut chars = s.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        match c {
            '\\' if chars.peek().map(|&(_, n)| n) == Some('"') => {
                chars.next();
            }
            '"' => quoted = !quoted,
            ' ' | '\t' if !quoted => return Some(i),
            _ => {}
        }
    }
    (!quoted).then_some(s.len())
}

/// `name=` at the start of `s`, case-insensitively, returning what follows.
fn strip_option<'a>(s: &'a str, name: &str) -> Option<&'a str> {
    let head = s.get(..name.len())?;
    if head.eq_ignore_ascii_case(name) && s[name.len()..].starts_with('=') {
        Some(&s[name.len() + 1..])
    } else {
        None
    }
}

/// A double-quoted option value (`\"` escapes a quote), and the rest.
fn dequote(s: &str) -> Result<(String, &str), String> {
    let body = s.strip_prefix('"').ok_or("missing start quote")?;
    let mut value = String::new();
    let mut chars = body.char_indices();
    while let Some((i, c)) = chars.next() {
        match c {
            '"' => return Ok((value, &body[i + 1..])),
            '\\' if body[i + 1..].starts_with('"') => {
                value.push('"');
                chars.next();
            }
            _ => value.push(c),
        }
    }
    Err("missing end quote".into())
}

fn parse_options(mut opts: &str, entry: &mut Entry) -> Result<(), String> {
    let bad = |reason: &str| format!("bad options: {reason}");
    while !opts.is_empty() {
        if opts.len() >= 14
            && opts[..14].eq_ignore_ascii_case("cert-authority")
            && matches!(opts.as_bytes().get(14), None | Some(b','))
        {
            entry.cert_authority = true;
            opts = &opts[14..];
        } else if let Some(v) = strip_option(opts, "namespaces") {
            if entry.namespaces.is_some() {
                return Err(bad("multiple \"namespaces\" clauses"));
            }
            let (value, rest) = dequote(v).map_err(|e| bad(&e))?;
            entry.namespaces = Some(value);
            opts = rest;
        } else if let Some(v) = strip_option(opts, "valid-after") {
            if entry.valid_after.is_some() {
                return Err(bad("multiple \"valid-after\" clauses"));
            }
            let (value, rest) = dequote(v).map_err(|e| bad(&e))?;
            entry.valid_after =
                Some(parse_time(&value).ok_or_else(|| bad("invalid \"valid-after\" time"))?);
            opts = rest;
        } else if let Some(v) = strip_option(opts, "valid-before") {
            if entry.valid_before.is_some() {
                return Err(bad("multiple \"valid-before\" clauses"));
            }
            let (value, rest) = dequote(v).map_err(|e| bad(&e))?;
            entry.valid_before =
                Some(parse_time(&value).ok_or_else(|| bad("invalid \"valid-before\" time"))?);
            opts = rest;
        }
        if opts.is_empty() {
            break;
        }
        let Some(rest) = opts.strip_prefix(',') else {
            let unknown = opts.split(',').next().unwrap_or(opts);
            return Err(bad(&format!("unknown key option {unknown:?}")));
        };
        if rest.is_empty() {
            return Err(bad("unexpected end-of-options"));
        }
        opts = rest;
    }
    if let (Some(after), Some(before)) = (entry.valid_after, entry.valid_before) {
        if before <= after {
            return Err(bad("\"valid-before\" time is before \"valid-after\""));
        }
    }
    Ok(())
}

/// `YYYYMMDD`, `YYYYMMDDHHMM` or `YYYYMMDDHHMMSS`, optionally followed by `Z`
/// or `UTC` (any case); always read as UTC.
pub(crate) fn parse_time(s: &str) -> Option<Timestamp> {
    let digits = if s.len() > 1 && s[s.len() - 1..].eq_ignore_ascii_case("z") {
        &s[..s.len() - 1]
    } else if s.len() > 3 && s.get(s.len() - 3..)?.eq_ignore_ascii_case("utc") {
        &s[..s.len() - 3]
    } else {
        s
    };
    if !matches!(digits.len(), 8 | 12 | 14) || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let num = |range: std::ops::Range<usize>| -> Option<i16> { digits.get(range)?.parse().ok() };
    let year = num(0..4)?;
    let month = i8::try_from(num(4..6)?).ok()?;
    let day = i8::try_from(num(6..8)?).ok()?;
    let (hour, minute, second) = match digits.len() {
        8 => (0, 0, 0),
        12 => (num(8..10)?, num(10..12)?, 0),
        _ => (num(8..10)?, num(10..12)?, num(12..14)?),
    };
    let dt = jiff::civil::DateTime::new(
        year,
        month,
        day,
        i8::try_from(hour).ok()?,
        i8::try_from(minute).ok()?,
        i8::try_from(second).ok()?,
        0,
    )
    .ok()?;
    let ts = dt.to_zoned(jiff::tz::TimeZone::UTC).ok()?.timestamp();
    // OpenSSH rejects times before the epoch and the epoch itself.
    (ts.as_second() > 0).then_some(ts)
}

/// OpenSSH `match_pattern`: `*` matches any run, `?` any one character.
fn match_pattern(s: &[u8], pattern: &[u8]) -> bool {
    match pattern.split_first() {
        None => s.is_empty(),
        Some((b'*', rest)) => {
            let rest = {
                let mut r = rest;
                while let Some((b'*', more)) = r.split_first() {
                    r = more;
                }
                r
            };
            if rest.is_empty() {
                return true;
            }
            (0..s.len()).any(|i| match_pattern(&s[i..], rest))
        }
        Some((&p, rest)) => match s.split_first() {
            Some((&c, s_rest)) if p == b'?' || p == c => match_pattern(s_rest, rest),
            _ => false,
        },
    }
}

/// Whether `identity` (an e-mail address) is one the principal pattern
/// `principal` names, as ssh matches principals (`*`, `?`, `!`): the check
/// that a commit's author is the principal its signing key is listed for.
pub fn principal_names(principal: &str, identity: &str) -> bool {
    match_pattern_list(identity, principal) == 1
}

/// OpenSSH `match_pattern_list`: 1 when `s` matches a positive pattern of the
/// comma-separated list and no negated (`!`) one, -1 when a negated pattern
/// matches, 0 otherwise. Case-sensitive.
pub(crate) fn match_pattern_list(s: &str, list: &str) -> i32 {
    let mut got_positive = 0;
    for sub in list.split(',') {
        if sub.is_empty() {
            continue;
        }
        let (negated, pattern) = match sub.strip_prefix('!') {
            Some(p) => (true, p),
            None => (false, sub),
        };
        if pattern.len() >= 1023 {
            return 0;
        }
        if match_pattern(s.as_bytes(), pattern.as_bytes()) {
            if negated {
                return -1;
            }
            got_positive = 1;
        }
    }
    got_positive
}

#[cfg(test)]
mod tests {
    use super::*;

    const KEY: &str =
        "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOq22fb9wwzpriM19dfCSTkON2O5jw3auPD52R2TyJkN";

    fn err_line(text: &str) -> (usize, String) {
        match AllowedSigners::parse(text) {
            Err(SigningError::AllowedSigners { line, reason }) => (line, reason),
            other => panic!("expected a line error for {text:?}, got {other:?}"),
        }
    }

    #[test]
    fn parses_comments_blanks_options_and_crlf() {
        let text = format!(
            "# comment\n\n   \t\n  # indented comment\r\n\
             a@x,b@y {KEY} comment words\r\n\
             \"c d@x\" namespaces=\"git,file\",valid-after=\"20200101\",VALID-BEFORE=\"20300101120000Z\" {KEY}\n\
             *@x cert-authority {KEY}\n\
             e@x NameSpaces=\"g\\\"it\" {KEY}"
        );
        let a = AllowedSigners::parse(&text).unwrap();
        assert_eq!(a.len(), 4);
        let e = &a.entries;
        assert_eq!((e[0].line, e[0].principals.as_str()), (5, "a@x,b@y"));
        assert_eq!(e[1].line, 6);
        assert_eq!(e[1].principals, "c d@x");
        assert_eq!(e[1].namespaces.as_deref(), Some("git,file"));
        assert_eq!(
            e[1].valid_after,
            Some("2020-01-01T00:00:00Z".parse().unwrap())
        );
        assert_eq!(
            e[1].valid_before,
            Some("2030-01-01T12:00:00Z".parse().unwrap())
        );
        assert!(e[2].cert_authority);
        assert_eq!(e[3].namespaces.as_deref(), Some("g\"it"));
        assert!(AllowedSigners::parse("").unwrap().is_empty());
    }

    #[test]
    fn malformed_lines_are_reported_with_their_number() {
        let cases: &[(&str, &str)] = &[
            ("a@x", "missing key"),
            ("a@x namespaces=\"git\"", "missing key"),
            ("\"a@x ssh-ed25519 AAAA", "unterminated quote"),
            ("a@x bogus=\"1\" KEY", "unknown key option"),
            ("a@x namespaces=git KEY", "missing start quote"),
            ("a@x namespaces=\"git KEY", "unterminated quote"),
            (
                "a@x namespaces=\"git\",namespaces=\"file\" KEY",
                "multiple \"namespaces\"",
            ),
            (
                "a@x valid-after=\"2020\" KEY",
                "invalid \"valid-after\" time",
            ),
            (
                "a@x valid-before=\"20201341\" KEY",
                "invalid \"valid-before\" time",
            ),
            (
                "a@x valid-after=\"20300101\",valid-before=\"20200101\" KEY",
                "before \"valid-after\"",
            ),
            ("a@x namespaces=\"git\", KEY", "unexpected end-of-options"),
            ("a@x ssh-ed25519 !!!!", "not base64"),
            (
                "a@x ssh-rsa AAAAC3NzaC1lZDI1NTE5AAAAIOq22fb9wwzpriM19dfCSTkON2O5jw3auPD52R2TyJkN",
                "does not match",
            ),
            ("a@x foo-key AAAA", "unknown key type"),
            ("a@x namespaces=\"git\" foo-key AAAA", "unknown key type"),
            ("a@x ssh-ed25519", "no key data"),
        ];
        for (line, want) in cases {
            let text = format!("# ok\n\na@x {KEY}\n{}\n", line.replace("KEY", KEY));
            let (number, reason) = err_line(&text);
            assert_eq!(number, 4, "{line}");
            assert!(reason.contains(want), "{line}: {reason}");
            let shown = AllowedSigners::parse(&text).unwrap_err().to_string();
            assert!(shown.starts_with("allowed signers line 4: "), "{shown}");
        }
    }

    #[test]
    fn times_follow_openssh_formats() {
        let t = |s| parse_time(s).map(|t| t.to_string());
        assert_eq!(t("20240229").as_deref(), Some("2024-02-29T00:00:00Z"));
        assert_eq!(t("202402291230").as_deref(), Some("2024-02-29T12:30:00Z"));
        assert_eq!(
            t("20240229123005Z").as_deref(),
            Some("2024-02-29T12:30:05Z")
        );
        assert_eq!(
            t("20240229123005utc").as_deref(),
            Some("2024-02-29T12:30:05Z")
        );
        for bad in [
            "20230229",
            "2024022912",
            "2024-02-29",
            "19700101",
            "1969123Z",
            "Z",
            "",
        ] {
            assert_eq!(t(bad), None, "{bad}");
        }
    }

    #[test]
    fn pattern_lists_match_like_openssh() {
        assert_eq!(match_pattern_list("a@x", "a@x"), 1);
        assert_eq!(match_pattern_list("a@x", "b@y,a@x"), 1);
        assert_eq!(match_pattern_list("a@x,b@y", "a@x,b@y"), 0);
        assert_eq!(match_pattern_list("anything@x", "*@x"), 1);
        assert_eq!(match_pattern_list("ab@x", "a?@x"), 1);
        assert_eq!(match_pattern_list("abc@x", "a?@x"), 0);
        assert_eq!(match_pattern_list("a@x", "*,!a@x"), -1);
        assert_eq!(match_pattern_list("a@x", "!b@x"), 0);
        assert_eq!(match_pattern_list("!a@x", "!a@x"), 0);
        assert_eq!(match_pattern_list("git", "g*t,file"), 1);
        assert_eq!(match_pattern_list("A@X", "a@x"), 0);
        assert_eq!(match_pattern_list("", "*"), 1);
        assert_eq!(match_pattern_list("x", "**?**"), 1);
    }
}
