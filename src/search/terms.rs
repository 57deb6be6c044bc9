//! The words search finds: how a lesson's text and a query are cut into
//! terms, the same way on both sides.
//!
//! The rule (docs/pools.md, "Search" says it for people):
//!
//! - Text is cut at every character that is neither alphanumeric nor one of
//!   the *joiners* `@ / . _ - :`, which package names, paths and versions
//!   are made of. Each piece is lower-cased and loses the joiners at its
//!   ends (a sentence's full stop, a trailing colon), except a leading `@`
//!   (an npm scope).
//! - A piece without a joiner is a plain word: `vite`, `hmr`.
//! - A piece with joiners is kept **whole** (`@vitejs/plugin-legacy`,
//!   `github.com/spf13/cobra`, `pypi:requests`, `5.4.21`) and is also cut
//!   into its **parts** at the joiners (`vitejs`, `plugin`, `legacy`): the
//!   whole name finds it exactly, any part finds it too.
//! - Terms of one character, of more than [`MAX_TERM_CHARS`], and the
//!   words of [`STOPWORDS`] are left out. Each field is read up to
//!   [`MAX_FIELD_CHARS`] characters.
//!
//! A term is found by the first six bytes of its sha256 ([`Term::key`]):
//! stable across builds, and a collision between two of a million terms
//! is about one in a hundred million.
//!
//! Pure: no I/O.

use sha2::{Digest, Sha256};

/// How many characters of each field are read.
pub const MAX_FIELD_CHARS: usize = 8192;

/// Longer terms (hashes, encoded blobs) are not indexed.
pub const MAX_TERM_CHARS: usize = 100;

/// How many bytes of a term's sha256 the index keeps.
pub const KEY_BYTES: usize = 6;

/// Words too common to search for. Short on purpose: a word a person
/// types to find a lesson is usually worth finding.
pub const STOPWORDS: &[&str] = &[
    "a", "an", "and", "are", "as", "at", "be", "but", "by", "for", "from", "has", "have", "in",
    "into", "is", "it", "its", "of", "on", "or", "that", "the", "their", "then", "there", "these",
    "this", "to", "was", "were", "when", "which", "while", "will", "with",
];

/// The characters a package name, a path or a version is joined with.
fn is_joiner(c: char) -> bool {
    matches!(c, '@' | '/' | '.' | '_' | '-' | ':')
}

/// One term and its index key.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Term {
    pub text: String,
    pub key: u64,
}

impl Term {
    pub fn new(text: String) -> Term {
        let key = Term::key(&text);
        Term { text, key }
    }

    /// The first [`KEY_BYTES`] bytes of the term's sha256, as a number.
    pub fn key(text: &str) -> u64 {
        let d = Sha256::digest(text.as_bytes());
        let mut b = [0u8; 8];
        b[8 - KEY_BYTES..].copy_from_slice(&d[..KEY_BYTES]);
        u64::from_be_bytes(b)
    }
}

/// One piece of text: a plain word (no parts) or a joined name with its
/// parts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Token {
    /// The whole piece, lower-cased; `None` when it is left out itself
    /// (too long, a stop word, one character) but has parts that are not.
    pub whole: Option<String>,
    /// The parts of a joined name, each once, in order.
    pub parts: Vec<String>,
}

impl Token {
    /// Every term of this token: the whole, then the parts.
    pub fn terms(&self) -> impl Iterator<Item = &str> {
        self.whole
            .iter()
            .map(String::as_str)
            .chain(self.parts.iter().map(String::as_str))
    }
}

fn keep(term: &str) -> bool {
    let n = term.chars().count();
    (2..=MAX_TERM_CHARS).contains(&n) && STOPWORDS.binary_search(&term).is_err()
}

/// The tokens of `text` (read up to [`MAX_FIELD_CHARS`]), in order; pieces
/// of which nothing is kept are left out.
pub fn tokens(text: &str) -> Vec<Token> {
    let bounded: String = text.chars().take(MAX_FIELD_CHARS).collect();
    let mut out = Vec::new();
    for piece in bounded.split(|c: char| !(c.is_alphanumeric() || is_joiner(c))) {
        if let Some(t) = token(piece) {
            out.push(t);
        }
    }
    out
}

/// One piece as a token (see the module doc), if anything of it is kept.
fn token(piece: &str) -> Option<Token> {
    let scoped = piece.starts_with('@');
    let trimmed = piece.trim_matches(is_joiner);
    if trimmed.is_empty() {
        return None;
    }
    let lower = trimmed.to_lowercase();
    if !lower.contains(is_joiner) {
        return keep(&lower).then(|| Token {
            whole: Some(lower),
            parts: Vec::new(),
        });
    }
    let whole = if scoped { format!("@{lower}") } else { lower };
    let mut parts: Vec<String> = Vec::new();
    for p in whole.split(is_joiner) {
        if keep(p) && !parts.iter().any(|q| q == p) {
            parts.push(p.to_owned());
        }
    }
    let whole = (whole.chars().count() <= MAX_TERM_CHARS).then_some(whole);
    if whole.is_none() && parts.is_empty() {
        return None;
    }
    Some(Token { whole, parts })
}

/// The terms a package name of a lesson's stack is found under, and
/// whether each names the package exactly: the whole name (lower-cased),
/// and its name without an ecosystem prefix (`requests` of
/// `pypi:requests`), are exact; the other parts are not.
pub fn package_terms(name: &str) -> Vec<(String, bool)> {
    let lower = name.trim().to_lowercase();
    let bare = crate::version::split_key(&lower).1.to_owned();
    let mut out: Vec<(String, bool)> = Vec::new();
    for t in tokens(&lower) {
        for term in t.terms() {
            let exact = term == lower || term == bare;
            match out.iter_mut().find(|(x, _)| x == term) {
                Some((_, e)) => *e |= exact,
                None => out.push((term.to_owned(), exact)),
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn terms(text: &str) -> Vec<String> {
        tokens(text)
            .iter()
            .flat_map(|t| t.terms().map(str::to_owned).collect::<Vec<_>>())
            .collect()
    }

    #[test]
    fn stopwords_are_sorted_for_binary_search() {
        let mut sorted = STOPWORDS.to_vec();
        sorted.sort_unstable();
        assert_eq!(sorted, STOPWORDS);
    }

    #[test]
    fn package_names_are_kept_whole_and_found_by_their_parts() {
        assert_eq!(
            tokens("Use @vitejs/plugin-legacy."),
            vec![
                Token {
                    whole: Some("use".into()),
                    parts: vec![]
                },
                Token {
                    whole: Some("@vitejs/plugin-legacy".into()),
                    parts: vec!["vitejs".into(), "plugin".into(), "legacy".into()]
                }
            ]
        );
        assert_eq!(
            terms("github.com/spf13/cobra"),
            ["github.com/spf13/cobra", "github", "com", "spf13", "cobra"]
        );
        assert_eq!(
            terms("(pypi:requests)"),
            ["pypi:requests", "pypi", "requests"]
        );
        // A version keeps its whole; parts of one character are left out.
        assert_eq!(terms("vite 5.4.21:"), ["vite", "5.4.21", "21"]);
    }

    #[test]
    fn words_are_lower_cased_whole_words_without_stop_words() {
        assert_eq!(
            terms("The HMR socket of Vite; it times out!"),
            ["hmr", "socket", "vite", "times", "out"]
        );
        assert_eq!(terms("Größe ÄRGER"), ["größe", "ärger"]);
        assert!(terms("a . - @ / x").is_empty());
        // A sentence's full stop, a colon, an ellipsis are not part of a word.
        assert_eq!(
            terms("config.yml... done:"),
            ["config.yml", "config", "yml", "done"]
        );
    }

    #[test]
    fn overlong_terms_and_fields_are_bounded() {
        let long = "x".repeat(MAX_TERM_CHARS + 1);
        assert!(terms(&long).is_empty());
        assert_eq!(terms(&format!("{long}/ab")), ["ab"]);
        let field = "word ".repeat(MAX_FIELD_CHARS);
        let n = terms(&field).len();
        assert!(
            (MAX_FIELD_CHARS / 5..=MAX_FIELD_CHARS / 5 + 1).contains(&n),
            "{n}"
        );
    }

    #[test]
    fn a_package_is_exact_by_its_whole_name_and_its_bare_name() {
        assert_eq!(
            package_terms("pypi:Requests"),
            [
                ("pypi:requests".to_owned(), true),
                ("pypi".to_owned(), false),
                ("requests".to_owned(), true)
            ]
        );
        assert_eq!(package_terms("vite"), [("vite".to_owned(), true)]);
        assert_eq!(
            package_terms("@vitejs/plugin-legacy")[0],
            ("@vitejs/plugin-legacy".to_owned(), true)
        );
        assert!(!package_terms("@vitejs/plugin-legacy")[1].1);
    }

    #[test]
    fn a_key_is_six_bytes_of_sha256() {
        assert_eq!(Term::key("vite") >> 48, 0);
        assert_ne!(Term::key("vite"), Term::key("vitest"));
        assert_eq!(Term::new("vite".into()).key, Term::key("vite"));
    }
}
