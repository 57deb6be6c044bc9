//! The placeholder rule: the one predicate every would-be secret of every
//! class goes through before it is reported.
//!
//! A secret is a placeholder when it
//! 1. is a documented example value (`documented`);
//! 2. contains a template or reference marker (`markers`: `${`, `{{`, `...`,
//!    …), starts with one of `starts` (`<`, `{`, `%`, …), or starts with
//!    `$NAME` or `$(`;
//! 3. is one character repeated (three or more);
//! 4. is, whole, a filler (`fillers`: `password`, `test`, `admin`, …),
//!    maybe followed by `1`, `12`, `123`, … and `!`;
//! 5. and, only when it is at most `short_secret` characters long (a long
//!    random string holds short words and runs by chance): contains a
//!    stand-in word (`words`) in one case (`example`, `EXAMPLE`,
//!    `Example`), has a masking run (`masks`), or has `ascending`
//!    characters each one above the last.
//!
//! The values are the `[placeholder]` table of `rules.toml`; this module is
//! only the logic.

use regex::Regex;
use serde::Deserialize;

use super::rules::RulesError;

/// `[placeholder]` as the file spells it.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct Spec {
    documented: Vec<String>,
    markers: Vec<String>,
    starts: Vec<String>,
    words: Vec<String>,
    fillers: Vec<String>,
    masks: Vec<Mask>,
    ascending: usize,
    short_secret: usize,
    cases: Cases,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Mask {
    chars: String,
    run: usize,
}

/// Values the rule must call placeholders, and secrets it must not.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Cases {
    pub placeholders: Vec<String>,
    pub secrets: Vec<String>,
}

/// The placeholder rule, compiled.
pub struct Placeholder {
    documented: Vec<String>,
    markers: Vec<String>,
    starts: Vec<String>,
    fillers: Vec<String>,
    masks: Vec<Mask>,
    ascending: usize,
    short_secret: usize,
    /// The stand-in words in their three cases, as one pattern.
    words: Regex,
    pub cases: Cases,
}

impl Placeholder {
    pub(super) fn new(s: Spec) -> Result<Placeholder, RulesError> {
        let alternatives: Vec<String> = s
            .words
            .iter()
            .filter(|w| !w.is_empty())
            .flat_map(|w| {
                let mut rest = w.chars();
                let first: String = rest
                    .next()
                    .into_iter()
                    .flat_map(char::to_uppercase)
                    .collect();
                [w.to_string(), w.to_uppercase(), first + rest.as_str()]
            })
            .map(|w| regex::escape(&w))
            .collect();
        let words = Regex::new(&alternatives.join("|")).map_err(RulesError::BadWords)?;
        Ok(Placeholder {
            documented: s.documented,
            markers: s.markers,
            starts: s.starts,
            fillers: s.fillers,
            masks: s.masks,
            ascending: s.ascending,
            short_secret: s.short_secret,
            words,
            cases: s.cases,
        })
    }

    /// Whether `secret` is a placeholder (see the module documentation).
    pub fn is(&self, secret: &str) -> bool {
        let v = secret.trim_matches(|c| matches!(c, '"' | '\'' | '`'));
        if v.is_empty() || self.documented.iter().any(|d| d == v) {
            return true;
        }
        if self.markers.iter().any(|m| v.contains(m.as_str()))
            || self.starts.iter().any(|p| v.starts_with(p.as_str()))
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
        if self.is_filler(v) {
            return true;
        }
        if v.len() > self.short_secret {
            return false;
        }
        self.words.is_match(v) || self.has_masking_run(v) || self.has_ascending_run(v)
    }

    /// A filler, whole, maybe followed by `1`, `12`, `123`, … and `!`.
    fn is_filler(&self, v: &str) -> bool {
        let lower = v.to_ascii_lowercase();
        let core = lower.trim_end_matches('!');
        let digits = core.len() - core.trim_end_matches(|c: char| c.is_ascii_digit()).len();
        let (word, tail) = core.split_at(core.len() - digits);
        let ascending_from_one = tail
            .bytes()
            .enumerate()
            .all(|(i, b)| usize::from(b - b'0') == (i + 1) % 10);
        ascending_from_one && self.fillers.iter().any(|f| f == word)
    }

    /// A run of one masking character as long as its mask asks.
    fn has_masking_run(&self, v: &str) -> bool {
        let mut prev = None;
        let mut run = 0;
        for c in v.chars() {
            run = if Some(c) == prev { run + 1 } else { 1 };
            prev = Some(c);
            if self
                .masks
                .iter()
                .any(|m| run >= m.run && m.chars.contains(c))
            {
                return true;
            }
        }
        false
    }

    /// `ascending` characters each one above the last: `12345678`,
    /// `abcdefgh`, `ABCDEFGH`.
    fn has_ascending_run(&self, v: &str) -> bool {
        let mut run = 1;
        let b = v.as_bytes();
        for i in 1..b.len() {
            let step = b[i - 1].is_ascii_alphanumeric()
                && b[i].is_ascii_alphanumeric()
                && b[i] == b[i - 1] + 1
                && b[i].is_ascii_digit() == b[i - 1].is_ascii_digit();
            run = if step { run + 1 } else { 1 };
            if run >= self.ascending {
                return true;
            }
        }
        false
    }
}
