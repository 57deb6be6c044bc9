//! Whether an assigned value can be a secret: the judgement behind
//! `secret_assignment` and `requirepass`, before the placeholder rule.
//!
//! A value is not a secret when it is shorter than 6 characters, all
//! digits, a type (`Option<String>`, `&str`), code (a call, a macro,
//! indexing, a member path, `process.env.X`, Rust's `?`), a URL (the URL
//! rules judge it), a file path of plain words, an identifier (`my-app-token`,
//! `DB_PASSWORD`, `SecretString`), a YAML tag or alias, a sops `ENC[…]`
//! value, a PEM header (the key rules judge what follows it), a duration or
//! size, or a plain word: a secret has a digit or a symbol, mixes upper and
//! lower case after its first letter, or is at least 12 characters long.

/// Whether an assigned value can be a secret (the placeholder rule runs
/// after this): not a type, code, URL, path, identifier, tag, encrypted
/// value, duration or plain word.
pub fn is_secret_value(v: &str) -> bool {
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
