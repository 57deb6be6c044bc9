//! The rules file (`rules.toml`): read, checked and compiled once.
//!
//! [`Rules::parse`] refuses a file that does not hold together: a rule
//! naming a class or check that does not exist, a pattern that does not
//! compile, a rule with both or neither of `pattern` and `assign`, a class
//! listed twice or missing. The built-in file is parsed on first use
//! ([`rules`]); a test parses it, so a broken one never ships.

use std::sync::OnceLock;

use regex::{Regex, RegexSet};
use serde::Deserialize;

use super::checks::{self, Check};
use super::placeholder::Placeholder;
use super::FindingKind;

/// The built-in rules file.
pub const RULES: &str = include_str!("rules.toml");

/// Why a rules file was refused. `rule` numbers count `[[rule]]` tables
/// from 1.
#[derive(Debug, thiserror::Error)]
pub enum RulesError {
    #[error("the rules file is not the expected TOML: {0}")]
    Toml(#[from] toml::de::Error),
    #[error("class {given:?} is not a finding kind; the kinds are: {known}")]
    UnknownClass { given: String, known: String },
    #[error("class {0} is listed twice")]
    ClassTwice(FindingKind),
    #[error("class {0} has no [[class]] table: add one with its cases")]
    ClassMissing(FindingKind),
    #[error("class {0} has no rule")]
    NoRule(FindingKind),
    #[error("rule {rule}: check {check:?} is none of: {known}")]
    UnknownCheck {
        rule: usize,
        check: String,
        known: String,
    },
    #[error("rule {rule}: give exactly one of `pattern` and `assign`")]
    PatternOrAssign { rule: usize },
    #[error("rule {rule}: the pattern does not compile")]
    BadPattern {
        rule: usize,
        #[source]
        source: regex::Error,
    },
    #[error("the patterns together are too large to compile as one set")]
    SetTooLarge(#[source] regex::Error),
    #[error("the placeholder words do not compile")]
    BadWords(#[source] regex::Error),
}

/// One class: its kind, what it matches, and its cases.
#[derive(Clone, Debug)]
pub struct Class {
    pub kind: FindingKind,
    pub what: String,
    /// Made-up leaks: each is exactly one finding of this kind.
    pub leaks: Vec<String>,
    /// Look-alikes: none is a finding.
    pub clean: Vec<String>,
}

/// A compiled rule.
pub struct Rule {
    pub kind: FindingKind,
    pub re: Regex,
    pub check: Check,
}

/// Names and addresses that are public knowledge (`[exempt]`).
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Exempt {
    pub example_domains: Vec<String>,
    pub reserved_tlds: Vec<String>,
    pub hosts: Vec<String>,
    pub code_receivers: Vec<String>,
    pub mailboxes: Vec<String>,
    pub ssh_domains: Vec<String>,
    pub accounts: Vec<String>,
    pub spelled_tlds: Vec<String>,
}

impl Exempt {
    /// `host` is a reserved example domain or under a reserved TLD (or a
    /// subdomain of one).
    pub fn is_example_host(&self, host: &str) -> bool {
        let h = host.trim_end_matches('.').to_ascii_lowercase();
        let under = |name: &str| {
            h.strip_suffix(name)
                .is_some_and(|rest| rest.is_empty() || rest.ends_with('.'))
        };
        self.example_domains.iter().any(|d| under(d)) || self.reserved_tlds.iter().any(|t| under(t))
    }
}

/// The whole file, compiled.
pub struct Rules {
    pub classes: Vec<Class>,
    pub rules: Vec<Rule>,
    /// The same patterns, to tell in one pass which rules can match.
    pub set: RegexSet,
    pub placeholder: Placeholder,
    pub exempt: Exempt,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    class: Vec<ClassSpec>,
    rule: Vec<RuleSpec>,
    placeholder: super::placeholder::Spec,
    exempt: Exempt,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ClassSpec {
    name: String,
    what: String,
    #[serde(default)]
    leaks: Vec<String>,
    #[serde(default)]
    clean: Vec<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RuleSpec {
    class: String,
    pattern: Option<String>,
    assign: Option<Assign>,
    check: String,
}

/// `NAME = VALUE`: a name containing `name` (an alternation), an
/// assignment (`=`, `:`, `:=`, `=>`, the name maybe quoted), and a value
/// matching `value` (group 1), followed by `end` (a boundary the value may
/// not run into, not reported).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Assign {
    name: String,
    value: String,
    #[serde(default)]
    end: String,
}

impl Assign {
    fn pattern(&self) -> String {
        format!(
            r#"(?i)\b[A-Za-z0-9_.-]*?(?:{})[A-Za-z0-9_.-]*["']?\s*(?::=|=>|[:=])\s*["'`]?({}){}"#,
            self.name, self.value, self.end
        )
    }
}

fn kind(name: &str) -> Result<FindingKind, RulesError> {
    name.parse().map_err(|_| RulesError::UnknownClass {
        given: name.to_owned(),
        known: names(FindingKind::ALL.iter().map(|k| k.as_str())),
    })
}

fn names<'a>(it: impl Iterator<Item = &'a str>) -> String {
    it.collect::<Vec<_>>().join(", ")
}

/// Word boundaries are ASCII: a Unicode `\b` makes the regex engine leave
/// its fast automata on non-ASCII text.
fn ascii_boundaries(pattern: &str) -> String {
    pattern.replace(r"\b", r"(?-u:\b)")
}

impl Rules {
    /// Reads and compiles a rules file.
    pub fn parse(text: &str) -> Result<Rules, RulesError> {
        let file: File = toml::from_str(text)?;
        let mut classes: Vec<Class> = Vec::new();
        for c in file.class {
            let kind = kind(&c.name)?;
            if classes.iter().any(|k| k.kind == kind) {
                return Err(RulesError::ClassTwice(kind));
            }
            classes.push(Class {
                kind,
                what: c.what,
                leaks: c.leaks,
                clean: c.clean,
            });
        }
        let mut rules = Vec::new();
        for (i, r) in file.rule.into_iter().enumerate() {
            let n = i + 1;
            let kind = kind(&r.class)?;
            let pattern = match (&r.pattern, &r.assign) {
                (Some(p), None) => p.clone(),
                (None, Some(a)) => a.pattern(),
                _ => return Err(RulesError::PatternOrAssign { rule: n }),
            };
            let check = checks::by_name(&r.check).ok_or_else(|| RulesError::UnknownCheck {
                rule: n,
                check: r.check.clone(),
                known: names(checks::NAMES.iter().copied()),
            })?;
            let re = Regex::new(&ascii_boundaries(&pattern))
                .map_err(|source| RulesError::BadPattern { rule: n, source })?;
            rules.push(Rule { kind, re, check });
        }
        for &kind in FindingKind::ALL {
            if !classes.iter().any(|c| c.kind == kind) {
                return Err(RulesError::ClassMissing(kind));
            }
            if !rules.iter().any(|r| r.kind == kind) {
                return Err(RulesError::NoRule(kind));
            }
        }
        let set =
            RegexSet::new(rules.iter().map(|r| r.re.as_str())).map_err(RulesError::SetTooLarge)?;
        Ok(Rules {
            classes,
            rules,
            set,
            placeholder: Placeholder::new(file.placeholder)?,
            exempt: file.exempt,
        })
    }

    /// The class of `kind`.
    pub fn class(&self, kind: FindingKind) -> &Class {
        self.classes
            .iter()
            .find(|c| c.kind == kind)
            .expect("parse checks every kind has a class")
    }
}

/// The built-in rules, parsed on first use.
pub fn rules() -> &'static Rules {
    static RULES_ONCE: OnceLock<Rules> = OnceLock::new();
    RULES_ONCE.get_or_init(|| {
        Rules::parse(RULES).unwrap_or_else(|e| panic!("src/scanner/rules.toml: {e}"))
    })
}
