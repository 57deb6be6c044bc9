//! The version-range language of lesson `applies_to.scope.versions`, parsed
//! into a typed [`Range`], and matching of installed [`Version`]s against it.
//!
//! The language is exactly the one the vendored applies-to sub-schema's
//! pattern accepts, and nothing else:
//!
//! ```text
//! range := ("<" | "<=" | "=") V          one-sided upper bound, or exact
//!        | (">" | ">=") V                one-sided lower bound, V not all zeros
//!        | (">" | ">=") V " " ("<" | "<=") V    two-sided: lower, one space, upper
//! V     := digits ("." digits)? ("." digits)?   ASCII digits, any length
//! ```
//!
//! A one-sided lower bound of zero (`>=0`, `>0`, `>=0.0.0`, `>=00`) is
//! refused: an unbounded lower bound matches every version and never expires.
//! A two-sided range may start at zero (`>=0 <6`). npm syntax (`^5`, `~5`,
//! `5.x`, a bare `5.4.21`) is refused with a message that says what to write.
//!
//! Decisions beyond the pattern:
//! - **Inverted and empty ranges** ([`Range::is_inverted`]): a two-sided range
//!   whose lower bound is above its upper bound (`>6 <2`), or whose bounds are
//!   equal with either side exclusive (`>=4 <4`, `>4 <=4`, `>4 <4.0`), matches
//!   no version at all. The schema accepts them; the cross-field rule refuses
//!   both, because an empty range is the same defect as an inverted one: a
//!   lesson that can never apply. `>=4 <=4` is not empty (it is `=4`).
//! - **Comparison**: component by component as numbers of any size (leading
//!   zeros ignored), a missing component counting as 0, so `=6` is exactly
//!   `6.0.0` and `>=4 <4.0` is empty.
//! - **Installed versions** ([`Version::parse`]) may carry a leading `v`, any
//!   number of numeric components, a semver pre-release (`5.4.21-beta.1`) and
//!   build metadata (`+sha.1`, ignored). A pre-release sorts before its
//!   release, by semver precedence: `5.4.21-beta.1` is matched by `<5.4.21`
//!   and not by `>=5.4.21` or `=5.4.21`. (npm's extra rule that a range only
//!   matches pre-releases of its own bounds is not applied.)
//!
//! This module is pure: no I/O, no schema access. `crate::pipeline::validate`
//! uses it for the cross-field rule. Recall compares installed versions
//! with each ecosystem's own ordering (`super::matching`), not with
//! [`Range::matches`], which orders versions the one generic way above.

use std::cmp::Ordering;
use std::fmt;
use std::str::FromStr;

/// Why a string is not a version range (or not a version).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RangeError {
    /// The empty string.
    #[error("empty version range")]
    Empty,
    /// npm caret or tilde syntax.
    #[error("npm-style {0:?} ranges are not allowed; write comparators, e.g. \">=5.4.21 <6\"")]
    NpmSyntax(char),
    /// A wildcard such as `5.x` or `*`.
    #[error("wildcard versions are not allowed; write comparators, e.g. \">=5 <6\" for 5.x")]
    Wildcard,
    /// A version without a comparator.
    #[error("a bare version needs a comparator: write \"={0}\" for exactly that version")]
    Bare(String),
    /// Something that is not a comparator followed by a version.
    #[error("expected a comparator (<, <=, =, >, >=) followed by a version, found {0:?}")]
    Malformed(String),
    /// The version part is not 1 to 3 dot-separated numbers.
    #[error("{0:?} is not a version of one to three dot-separated numbers")]
    BadVersion(String),
    /// `>=0` and friends.
    #[error("{0:?} is an unbounded lower bound: it matches every version and would never expire")]
    UnboundedLower(String),
    /// Two parts that are not lower-then-upper.
    #[error("a two-sided range is a lower bound (> or >=), one space, then an upper bound (< or <=); found {0:?}")]
    BadTwoSided(String),
}

/// A version: numeric components, plus an optional semver pre-release.
///
/// Components are kept as written (so `Display` round-trips) and compared as
/// numbers of any size; a missing component counts as 0.
#[derive(Clone, Debug)]
pub struct Version {
    parts: Vec<String>,
    pre: Vec<String>,
}

impl Version {
    /// Parses an installed version as lockfiles spell it: an optional `v`,
    /// one or more dot-separated numbers, an optional `-pre.release` and an
    /// optional `+build` (ignored).
    pub fn parse(s: &str) -> Result<Version, RangeError> {
        let bad = || RangeError::BadVersion(clip(s));
        let body = s.strip_prefix('v').unwrap_or(s);
        let body = body.split_once('+').map_or(body, |(core, _)| core);
        let (core, pre) = match body.split_once('-') {
            Some((core, pre)) => (core, Some(pre)),
            None => (body, None),
        };
        let parts = numeric_parts(core, usize::MAX).ok_or_else(bad)?;
        let pre = match pre {
            None => Vec::new(),
            Some(p) => {
                let ids: Vec<String> = p.split('.').map(str::to_owned).collect();
                let ok = ids.iter().all(|id| {
                    !id.is_empty() && id.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')
                });
                if !ok {
                    return Err(bad());
                }
                ids
            }
        };
        Ok(Version { parts, pre })
    }

    /// The numeric components as written.
    pub fn parts(&self) -> &[String] {
        &self.parts
    }

    /// Whether this is a pre-release (`5.4.21-beta.1`).
    pub fn is_prerelease(&self) -> bool {
        !self.pre.is_empty()
    }

    fn part(&self, i: usize) -> &str {
        self.parts.get(i).map_or("0", String::as_str)
    }
}

/// Parses 1..=max dot-separated runs of ASCII digits.
fn numeric_parts(s: &str, max: usize) -> Option<Vec<String>> {
    let parts: Vec<String> = s.split('.').map(str::to_owned).collect();
    let ok = !parts.is_empty()
        && parts.len() <= max
        && parts
            .iter()
            .all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()));
    ok.then_some(parts)
}

/// Compares two digit strings as numbers of any size.
fn cmp_num(a: &str, b: &str) -> Ordering {
    let a = a.trim_start_matches('0');
    let b = b.trim_start_matches('0');
    a.len().cmp(&b.len()).then_with(|| a.cmp(b))
}

/// Semver §11 precedence of two pre-release identifiers.
fn cmp_pre_id(a: &str, b: &str) -> Ordering {
    let num = |s: &str| s.bytes().all(|c| c.is_ascii_digit());
    match (num(a), num(b)) {
        (true, true) => cmp_num(a, b),
        (true, false) => Ordering::Less,
        (false, true) => Ordering::Greater,
        (false, false) => a.cmp(b),
    }
}

impl Ord for Version {
    fn cmp(&self, other: &Version) -> Ordering {
        let n = self.parts.len().max(other.parts.len());
        for i in 0..n {
            match cmp_num(self.part(i), other.part(i)) {
                Ordering::Equal => continue,
                unequal => return unequal,
            }
        }
        match (self.pre.is_empty(), other.pre.is_empty()) {
            (true, true) => Ordering::Equal,
            (true, false) => Ordering::Greater,
            (false, true) => Ordering::Less,
            (false, false) => {
                for (a, b) in self.pre.iter().zip(&other.pre) {
                    match cmp_pre_id(a, b) {
                        Ordering::Equal => continue,
                        unequal => return unequal,
                    }
                }
                self.pre.len().cmp(&other.pre.len())
            }
        }
    }
}

impl PartialOrd for Version {
    fn partial_cmp(&self, other: &Version) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl PartialEq for Version {
    fn eq(&self, other: &Version) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for Version {}

impl FromStr for Version {
    type Err = RangeError;
    fn from_str(s: &str) -> Result<Version, RangeError> {
        Version::parse(s)
    }
}

impl fmt::Display for Version {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.parts.join("."))?;
        if !self.pre.is_empty() {
            write!(f, "-{}", self.pre.join("."))?;
        }
        Ok(())
    }
}

/// One end of a range.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Bound {
    pub version: Version,
    /// `>=` / `<=` (and both ends of `=`) rather than `>` / `<`.
    pub inclusive: bool,
}

/// A parsed version range: either end may be open, never both.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Range {
    pub lower: Option<Bound>,
    pub upper: Option<Bound>,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Op {
    Lt,
    Le,
    Eq,
    Gt,
    Ge,
}

fn clip(s: &str) -> String {
    crate::schema::clip(s, 64)
}

/// Splits a comparator off the front of one side of a range.
fn split_op(s: &str) -> Option<(Op, &str)> {
    for (text, op) in [
        ("<=", Op::Le),
        (">=", Op::Ge),
        ("<", Op::Lt),
        (">", Op::Gt),
        ("=", Op::Eq),
    ] {
        if let Some(rest) = s.strip_prefix(text) {
            return Some((op, rest));
        }
    }
    None
}

/// Parses one comparator-prefixed side.
fn parse_side(side: &str, whole: &str) -> Result<(Op, Version), RangeError> {
    let Some((op, rest)) = split_op(side) else {
        if numeric_parts(side, 3).is_some() {
            return Err(RangeError::Bare(side.to_owned()));
        }
        return Err(RangeError::Malformed(clip(whole)));
    };
    if rest.split('.').any(|p| p == "x" || p == "X" || p == "*") {
        return Err(RangeError::Wildcard);
    }
    let parts = numeric_parts(rest, 3).ok_or_else(|| RangeError::BadVersion(clip(rest)))?;
    Ok((
        op,
        Version {
            parts,
            pre: Vec::new(),
        },
    ))
}

fn is_zero(v: &Version) -> bool {
    v.parts.iter().all(|p| p.bytes().all(|b| b == b'0'))
}

impl Range {
    /// Parses a range of the schema's language (see the module doc).
    pub fn parse(s: &str) -> Result<Range, RangeError> {
        if s.is_empty() {
            return Err(RangeError::Empty);
        }
        if let Some(c) = s.chars().find(|c| matches!(c, '^' | '~')) {
            return Err(RangeError::NpmSyntax(c));
        }
        if s == "*"
            || s.split([' ', '.'])
                .any(|p| p == "x" || p == "X" || p == "*")
        {
            return Err(RangeError::Wildcard);
        }
        let sides: Vec<&str> = s.split(' ').collect();
        match sides.as_slice() {
            [one] => {
                let (op, v) = parse_side(one, s)?;
                let bound = |inclusive| Bound {
                    version: v.clone(),
                    inclusive,
                };
                Ok(match op {
                    Op::Lt | Op::Le => Range {
                        lower: None,
                        upper: Some(bound(op == Op::Le)),
                    },
                    Op::Eq => Range {
                        lower: Some(bound(true)),
                        upper: Some(bound(true)),
                    },
                    Op::Gt | Op::Ge => {
                        if is_zero(&v) {
                            return Err(RangeError::UnboundedLower(s.to_owned()));
                        }
                        Range {
                            lower: Some(bound(op == Op::Ge)),
                            upper: None,
                        }
                    }
                })
            }
            [lo, hi] if !lo.is_empty() && !hi.is_empty() => {
                let (lo_op, lo_v) = parse_side(lo, s)?;
                let (hi_op, hi_v) = parse_side(hi, s)?;
                if !matches!(lo_op, Op::Gt | Op::Ge) || !matches!(hi_op, Op::Lt | Op::Le) {
                    return Err(RangeError::BadTwoSided(clip(s)));
                }
                Ok(Range {
                    lower: Some(Bound {
                        version: lo_v,
                        inclusive: lo_op == Op::Ge,
                    }),
                    upper: Some(Bound {
                        version: hi_v,
                        inclusive: hi_op == Op::Le,
                    }),
                })
            }
            _ => Err(RangeError::BadTwoSided(clip(s))),
        }
    }

    /// Whether a two-sided range matches no version: its lower bound is above
    /// its upper bound, or they are equal and either side is exclusive.
    /// One-sided and exact ranges are never inverted.
    pub fn is_inverted(&self) -> bool {
        match (&self.lower, &self.upper) {
            (Some(lo), Some(hi)) => match lo.version.cmp(&hi.version) {
                Ordering::Greater => true,
                Ordering::Equal => !(lo.inclusive && hi.inclusive),
                Ordering::Less => false,
            },
            _ => false,
        }
    }

    /// Whether `v` lies in the range (see the module doc for pre-releases).
    pub fn matches(&self, v: &Version) -> bool {
        let above = self
            .lower
            .as_ref()
            .is_none_or(|lo| match v.cmp(&lo.version) {
                Ordering::Greater => true,
                Ordering::Equal => lo.inclusive,
                Ordering::Less => false,
            });
        let below = self
            .upper
            .as_ref()
            .is_none_or(|hi| match v.cmp(&hi.version) {
                Ordering::Less => true,
                Ordering::Equal => hi.inclusive,
                Ordering::Greater => false,
            });
        above && below
    }
}

impl FromStr for Range {
    type Err = RangeError;
    fn from_str(s: &str) -> Result<Range, RangeError> {
        Range::parse(s)
    }
}

impl fmt::Display for Range {
    /// A canonical spelling that parses back to an equal range
    /// (`>=4 <=4` prints as `=4`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let op = |lower: bool, inclusive: bool| match (lower, inclusive) {
            (true, true) => ">=",
            (true, false) => ">",
            (false, true) => "<=",
            (false, false) => "<",
        };
        match (&self.lower, &self.upper) {
            (Some(lo), Some(hi))
                if lo.inclusive && hi.inclusive && lo.version.parts == hi.version.parts =>
            {
                write!(f, "={}", lo.version)
            }
            (Some(lo), Some(hi)) => write!(
                f,
                "{}{} {}{}",
                op(true, lo.inclusive),
                lo.version,
                op(false, hi.inclusive),
                hi.version
            ),
            (Some(lo), None) => write!(f, "{}{}", op(true, lo.inclusive), lo.version),
            (None, Some(hi)) => write!(f, "{}{}", op(false, hi.inclusive), hi.version),
            (None, None) => Ok(()),
        }
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::schema::{self, SchemaKind};
    use serde_json::json;

    /// The range corpus of the ingest issue: (range, accepted by the schema,
    /// accepted by the cross-field rule).
    pub(crate) const CORPUS: &[(&str, bool, bool)] = &[
        ("<6", true, true),
        ("<=6", true, true),
        ("=6", true, true),
        (">4", true, true),
        (">=4", true, true),
        (">=4 <6", true, true),
        (">=4.1.2", true, true),
        (">=0.5", true, true),
        (">=0 <6", true, true),
        ("^5.4.21", false, false),
        ("~5", false, false),
        ("5.x", false, false),
        ("5.4.21", false, false),
        ("latest", false, false),
        ("", false, false),
        (">=0", false, false),
        (">=0.0", false, false),
        (">=0.0.0", false, false),
        (">0", false, false),
        (">4 >6", false, false),
        ("=4 <6", false, false),
        (">6 <2", true, false),
    ];

    /// Whether the applies-to sub-schema accepts `range` (in a minimal,
    /// otherwise valid `applies_to`).
    pub(crate) fn schema_accepts(range: &str) -> bool {
        let applies_to = json!({
            "stack": ["pkg"],
            "scope": {"kind": "versioned", "versions": {"pkg": range}},
            "file_patterns": [],
            "task_kinds": []
        });
        schema::validate(SchemaKind::AppliesTo, &applies_to).is_ok()
    }

    /// Whether the full lesson v2 schema (the upstream lookahead form of the
    /// pattern, run by the fancy-regex engine) accepts `range`.
    fn lesson_accepts(range: &str) -> bool {
        let lesson = json!({
            "id": "01KZ4A1B2C3D4E5F6G7H8J9K0M",
            "schema_version": 2,
            "claim": "c",
            "rationale": "r",
            "evidence": {
                "resolution": "x",
                "artifact_ids": ["01KZ45MKAM734ZS7JK24D2DK0R"],
                "session_ids": ["s"],
                "project_key": "6a7678979e31",
                "observed_at": "2026-08-03T15:59:48Z"
            },
            "applies_to": {
                "stack": ["pkg"],
                "scope": {"kind": "versioned", "versions": {"pkg": range}},
                "file_patterns": [],
                "task_kinds": []
            },
            "visibility": "org",
            "consensus": {"judges": 2, "agreed": 2, "decided_at": "2026-08-05T10:00:00Z"},
            "status": "active",
            "superseded_by": null,
            "source": "org",
            "author_key": "a8cf0203e178702412d37d5f796adbdc",
            "promoted_at": "2026-08-05T10:00:01Z"
        });
        schema::validate(SchemaKind::Lesson, &lesson).is_ok()
    }

    fn v(s: &str) -> Version {
        Version::parse(s).unwrap()
    }

    fn r(s: &str) -> Range {
        Range::parse(s).unwrap()
    }

    #[test]
    fn corpus_agrees_with_the_schema_except_the_inverted_range() {
        for &(text, by_schema, by_rule) in CORPUS {
            assert_eq!(schema_accepts(text), by_schema, "schema on {text:?}");
            assert_eq!(lesson_accepts(text), by_schema, "lesson schema on {text:?}");
            let parsed = Range::parse(text);
            assert_eq!(
                parsed.is_ok(),
                by_schema,
                "range.rs on {text:?}: {parsed:?}"
            );
            let rule = parsed.map(|r| !r.is_inverted()).unwrap_or(false);
            assert_eq!(rule, by_rule, "cross-field rule on {text:?}");
        }
    }

    #[test]
    fn generated_strings_agree_with_the_schema_regex() {
        // Deterministic: every string over a small alphabet up to length 4,
        // plus 6,000 pseudo-random strings of length 5..=8 over the full one.
        const FULL: &[u8] = b"<>=0123456789. ";
        const SMALL: &[u8] = b"<>=01. ";
        let mut inputs: Vec<String> = vec![String::new()];
        let mut frontier = vec![String::new()];
        for _ in 0..4 {
            let mut next = Vec::new();
            for s in &frontier {
                for &c in SMALL {
                    let mut t = s.clone();
                    t.push(c as char);
                    next.push(t);
                }
            }
            inputs.extend(next.iter().cloned());
            frontier = next;
        }
        let mut state: u64 = 0x9E37_79B9_7F4A_7C15;
        let mut rnd = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        // Half uniform over the full alphabet, half shaped like ranges
        // (comparator, version-ish, optional second side) to reach the
        // accepting paths and the near misses around them.
        let ops = ["", "<", "<=", "=", ">", ">=", "=<", ">>"];
        let bits = ["0", "1", "9", "00", "10", ".", ".0", ".5"];
        for i in 0..6000 {
            let len = 5 + (rnd() % 4) as usize;
            let mut s = String::new();
            if i % 2 == 0 {
                while s.len() < len {
                    s.push(FULL[(rnd() % FULL.len() as u64) as usize] as char);
                }
            } else {
                s.push_str(ops[(rnd() % ops.len() as u64) as usize]);
                for _ in 0..1 + rnd() % 3 {
                    s.push_str(bits[(rnd() % bits.len() as u64) as usize]);
                }
                if rnd() % 2 == 0 {
                    s.push(' ');
                    s.push_str(ops[(rnd() % ops.len() as u64) as usize]);
                    s.push_str(bits[(rnd() % bits.len() as u64) as usize]);
                }
            }
            s.truncate(len);
            inputs.push(s);
        }
        let mut accepted = 0;
        for s in &inputs {
            let schema = schema_accepts(s);
            assert_eq!(Range::parse(s).is_ok(), schema, "disagree on {s:?}");
            assert_eq!(
                lesson_accepts(s),
                schema,
                "the two pattern forms disagree on {s:?}"
            );
            accepted += usize::from(schema);
        }
        assert!(inputs.len() > 8000, "{}", inputs.len());
        assert!(
            accepted > 500,
            "the generator must reach valid ranges: {accepted}"
        );
    }

    #[test]
    fn errors_say_what_to_write() {
        let e = |s: &str| Range::parse(s).unwrap_err().to_string();
        assert_eq!(
            e("^5.4.21"),
            "npm-style '^' ranges are not allowed; write comparators, e.g. \">=5.4.21 <6\""
        );
        assert_eq!(
            e("5.x"),
            "wildcard versions are not allowed; write comparators, e.g. \">=5 <6\" for 5.x"
        );
        assert_eq!(
            e("5.4.21"),
            "a bare version needs a comparator: write \"=5.4.21\" for exactly that version"
        );
        assert_eq!(
            e(">=0.0"),
            "\">=0.0\" is an unbounded lower bound: it matches every version and would never expire"
        );
        assert_eq!(e(""), "empty version range");
        assert_eq!(
            e(">4 >6"),
            "a two-sided range is a lower bound (> or >=), one space, then an upper bound (< or <=); found \">4 >6\""
        );
        assert_eq!(
            e(">=4  <6"),
            "a two-sided range is a lower bound (> or >=), one space, then an upper bound (< or <=); found \">=4  <6\""
        );
        assert_eq!(
            e("latest"),
            "expected a comparator (<, <=, =, >, >=) followed by a version, found \"latest\""
        );
        assert_eq!(
            e(">=1.2.3.4"),
            "\"1.2.3.4\" is not a version of one to three dot-separated numbers"
        );
    }

    #[test]
    fn parses_into_bounds() {
        assert_eq!(
            r(">=4 <6"),
            Range {
                lower: Some(Bound {
                    version: v("4"),
                    inclusive: true
                }),
                upper: Some(Bound {
                    version: v("6"),
                    inclusive: false
                }),
            }
        );
        assert_eq!(r("<=6").lower, None);
        assert_eq!(r(">4").upper, None);
        let exact = r("=5.4.21");
        assert_eq!(exact.lower, exact.upper);
        for s in [
            "<6",
            "<=6",
            "=6",
            ">4",
            ">=4",
            ">=4 <6",
            ">=4.1.2",
            ">0.5 <=1.0.0",
            "=05",
        ] {
            assert_eq!(r(s).to_string(), s);
            assert_eq!(r(&r(s).to_string()), r(s));
        }
        assert_eq!(r(">=4 <=4").to_string(), "=4");
        // Components of any size.
        assert!(r(">=99999999999999999999999").matches(&v("100000000000000000000000")));
    }

    #[test]
    fn inverted_and_empty_two_sided_ranges() {
        for s in [
            ">6 <2",
            ">=4 <4",
            ">4 <=4",
            ">4 <4",
            ">=4 <4.0",
            ">=4.1 <4.0.9",
        ] {
            assert!(r(s).is_inverted(), "{s}");
        }
        for s in [">=4 <=4", ">=4 <4.0.1", ">=0 <6", "<6", ">4", "=4"] {
            assert!(!r(s).is_inverted(), "{s}");
        }
    }

    #[test]
    fn matches_with_missing_components_as_zero() {
        assert!(r("<6").matches(&v("5.99.99")));
        assert!(!r("<6").matches(&v("6.0.0")));
        assert!(r("<=6").matches(&v("6.0")));
        assert!(!r("<=6").matches(&v("6.0.1")));
        assert!(r("=6").matches(&v("6.0.0")));
        assert!(!r("=6").matches(&v("6.1.0")));
        assert!(r(">=4 <6").matches(&v("v4")));
        assert!(!r(">=4 <6").matches(&v("3.9.9")));
        assert!(r(">4").matches(&v("4.0.1")));
        assert!(!r(">4").matches(&v("4.0.0")));
        assert!(r("=5.4.21").matches(&v("5.4.21+build.7")));
        assert!(r(">=1.2.3").matches(&v("1.2.3.4")));
        assert!(r(">=010").matches(&v("10")));
    }

    #[test]
    fn prereleases_sort_before_their_release() {
        let beta = v("5.4.21-beta.1");
        assert!(beta.is_prerelease());
        assert!(r("<5.4.21").matches(&beta));
        assert!(!r(">=5.4.21").matches(&beta));
        assert!(!r("=5.4.21").matches(&beta));
        assert!(r(">=5.4.20").matches(&beta));
        assert!(v("1.0.0-alpha") < v("1.0.0-alpha.1"));
        assert!(v("1.0.0-alpha.1") < v("1.0.0-alpha.beta"));
        assert!(v("1.0.0-beta.2") < v("1.0.0-beta.11"));
        assert!(v("1.0.0-rc.1") < v("1.0.0"));
        assert_eq!(beta.to_string(), "5.4.21-beta.1");
        for bad in ["", "v", "5.", ".5", "5..1", "5.4.21-", "5.4.21-be ta", "x"] {
            assert!(Version::parse(bad).is_err(), "{bad:?}");
        }
    }
}
