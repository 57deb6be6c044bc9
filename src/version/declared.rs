//! Requirements as each ecosystem declares them — npm `^3.0.0 || ^4.0.0`,
//! Cargo `^0.5`, PEP 440 `>=1.2,<2`, RubyGems `~> 1.2`, Go `v1.2.3` —
//! read into a union of release intervals ([`Declared`]), and intervals
//! written back in the lesson range grammar ([`lesson_range`]).
//!
//! This is what turns the evidence of a conflict into a lesson's scope:
//! "vite 5.0.2 is outside `^3 || ^4`" becomes the interval around 5.0.2
//! that the declared range leaves out ([`Declared::outside_around`]),
//! `>=5`; "`^6.0.0 || ^7` became `^6.4.0 || ^7`" becomes what was dropped
//! ([`Declared::minus`]), `>=6 <6.4`.
//!
//! The grammars are each ecosystem's own, parsed by the crate that
//! ecosystem's tools agree with where one exists: npm ranges by
//! `nodejs-semver` (node-semver's grammar: `||`, hyphen ranges, x-ranges,
//! caret and tilde), Cargo requirements by `semver` (Cargo's own), PEP 440
//! specifiers by `pep440_rs`; RubyGems and Go requirements are simple
//! enough to read here.
//!
//! Pre-releases are outside the interval space (as in `interval.rs`): a
//! bound written with a pre-release (`<5.0.0-0`, `>=1.0.0-beta`) is read
//! at its release (`<5.0.0`, `>=1.0.0`). `!=` exclusions (PEP 440, RubyGems)
//! remove one version and are ignored: an interval cannot say "all but
//! one", and a lesson never needs it.
//!
//! Pure: no I/O.

use std::cmp::Ordering;
use std::str::FromStr;

use super::interval::{End, Interval, Point};
use super::Ecosystem;

/// Why a declared requirement could not be read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum DeclaredError {
    /// The text is not a requirement of that ecosystem.
    #[error("{text:?} is not a {ecosystem} version requirement")]
    Unreadable { ecosystem: Ecosystem, text: String },
    /// Longer than any real requirement.
    #[error("a version requirement of {len} characters is longer than the {max} allowed")]
    TooLong { len: usize, max: usize },
}

/// The longest requirement text read.
pub const MAX_DECLARED_CHARS: usize = 512;

/// A declared requirement: the release versions it admits, as sorted,
/// disjoint, non-adjacent intervals.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Declared {
    intervals: Vec<Interval>,
}

/// A release version as a point of the interval space, from a version as
/// lockfiles and tools print it (`5.0.2`, `v1.22.0`, `3.12`); `None` when
/// it has no leading numeric release.
pub fn release_point(version: &str) -> Option<Point> {
    let v = version.trim();
    let v = v.strip_prefix(['v', 'V']).unwrap_or(v);
    let end = v
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(v.len());
    let core = v[..end].trim_end_matches('.');
    if core.is_empty() {
        return None;
    }
    let parts: Vec<&str> = core.split('.').collect();
    if parts.iter().any(|p| p.is_empty()) || parts.len() > 8 {
        return None;
    }
    Some(Point::from_digits(&parts))
}

fn unreadable(ecosystem: Ecosystem, text: &str) -> DeclaredError {
    DeclaredError::Unreadable {
        ecosystem,
        text: crate::schema::clip(text, 80),
    }
}

impl Declared {
    /// Reads `text` as `ecosystem` declares requirements.
    pub fn parse(ecosystem: Ecosystem, text: &str) -> Result<Declared, DeclaredError> {
        let len = text.chars().count();
        if len > MAX_DECLARED_CHARS {
            return Err(DeclaredError::TooLong {
                len,
                max: MAX_DECLARED_CHARS,
            });
        }
        let text = text.trim();
        if text.is_empty() {
            return Err(unreadable(ecosystem, text));
        }
        let sets = match ecosystem {
            Ecosystem::Npm | Ecosystem::Composer => npm(text),
            Ecosystem::Cargo => cargo(text),
            Ecosystem::PyPI => pypi(text),
            Ecosystem::RubyGems => gem(text),
            Ecosystem::Go => go(text),
        }
        .ok_or_else(|| unreadable(ecosystem, text))?;
        Ok(Declared::union(sets))
    }

    /// Exactly one version.
    pub fn exact(point: Point) -> Declared {
        Declared {
            intervals: vec![Interval {
                lower: End::Incl(point.clone()),
                upper: End::Incl(point),
            }],
        }
    }

    fn union(mut sets: Vec<Interval>) -> Declared {
        sets.retain(|i| !i.is_empty());
        sets.sort_by(|a, b| cmp_lower(&a.lower, &b.lower));
        let mut out: Vec<Interval> = Vec::new();
        for i in sets {
            match out.last_mut() {
                Some(last) if touches(&last.upper, &i.lower) => {
                    if cmp_upper(&i.upper, &last.upper) == Ordering::Greater {
                        last.upper = i.upper;
                    }
                }
                _ => out.push(i),
            }
        }
        Declared { intervals: out }
    }

    /// The intervals, lowest first.
    pub(crate) fn intervals(&self) -> &[Interval] {
        &self.intervals
    }

    /// Whether the release `v` satisfies the requirement.
    pub fn contains(&self, v: &Point) -> bool {
        self.intervals.iter().any(|i| admits(i, v))
    }

    /// Whether no version satisfies it.
    pub fn is_empty(&self) -> bool {
        self.intervals.is_empty()
    }

    /// The versions the requirement leaves out, as intervals.
    pub fn complement(&self) -> Vec<Interval> {
        let mut out = Vec::new();
        let mut from = End::Open;
        for i in &self.intervals {
            let upper = flip(&i.lower);
            let gap = Interval {
                lower: from.clone(),
                upper,
            };
            if !matches!(i.lower, End::Open) && !gap.is_empty() {
                out.push(gap);
            }
            from = flip(&i.upper);
            if matches!(i.upper, End::Open) {
                return out;
            }
        }
        out.push(Interval {
            lower: from,
            upper: End::Open,
        });
        out.retain(|i| !i.is_empty());
        out
    }

    /// The interval of versions left out by the requirement that holds
    /// `found`: where a project whose `found` does not satisfy it is. With
    /// no `found`, the highest such interval (a dependency newer than a
    /// declared range is the common conflict). `None` when `found`
    /// satisfies the requirement, or nothing is left out.
    pub fn outside_around(&self, found: Option<&Point>) -> Option<Interval> {
        let gaps = self.complement();
        match found {
            Some(v) => gaps.into_iter().find(|g| admits(g, v)),
            None => gaps.into_iter().last(),
        }
    }

    /// The versions this requirement admits and `other` does not: what a
    /// narrowed requirement dropped.
    pub fn minus(&self, other: &Declared) -> Declared {
        let gaps = other.complement();
        let mut out = Vec::new();
        for i in &self.intervals {
            for g in &gaps {
                let m = i.meet(g);
                if !m.is_empty() {
                    out.push(m);
                }
            }
        }
        Declared::union(out)
    }

    /// The lowest version it admits, if bounded below.
    pub fn lowest(&self) -> Option<&End> {
        self.intervals.first().map(|i| &i.lower)
    }
}

/// Whether `v` lies in `i`.
pub(crate) fn admits(i: &Interval, v: &Point) -> bool {
    let above = match &i.lower {
        End::Open => true,
        End::Incl(p) => v.cmp_padded(p) != Ordering::Less,
        End::Excl(p) => v.cmp_padded(p) == Ordering::Greater,
    };
    let below = match &i.upper {
        End::Open => true,
        End::Incl(p) => v.cmp_padded(p) != Ordering::Greater,
        End::Excl(p) => v.cmp_padded(p) == Ordering::Less,
    };
    above && below
}

/// The end on the other side of the same point (a gap's end).
fn flip(e: &End) -> End {
    match e {
        End::Open => End::Open,
        End::Incl(p) => End::Excl(p.clone()),
        End::Excl(p) => End::Incl(p.clone()),
    }
}

fn cmp_lower(a: &End, b: &End) -> Ordering {
    match (a, b) {
        (End::Open, End::Open) => Ordering::Equal,
        (End::Open, _) => Ordering::Less,
        (_, End::Open) => Ordering::Greater,
        (End::Incl(x), End::Incl(y)) | (End::Excl(x), End::Excl(y)) => x.cmp_padded(y),
        (End::Incl(x), End::Excl(y)) => x.cmp_padded(y).then(Ordering::Less),
        (End::Excl(x), End::Incl(y)) => x.cmp_padded(y).then(Ordering::Greater),
    }
}

fn cmp_upper(a: &End, b: &End) -> Ordering {
    match (a, b) {
        (End::Open, End::Open) => Ordering::Equal,
        (End::Open, _) => Ordering::Greater,
        (_, End::Open) => Ordering::Less,
        (End::Incl(x), End::Incl(y)) | (End::Excl(x), End::Excl(y)) => x.cmp_padded(y),
        (End::Incl(x), End::Excl(y)) => x.cmp_padded(y).then(Ordering::Greater),
        (End::Excl(x), End::Incl(y)) => x.cmp_padded(y).then(Ordering::Less),
    }
}

/// Whether an interval ending at `upper` and one starting at `lower` (not
/// below it) overlap or meet with no version between them.
fn touches(upper: &End, lower: &End) -> bool {
    match (upper, lower) {
        (End::Open, _) | (_, End::Open) => true,
        (End::Incl(u), End::Incl(l)) => u.cmp_padded(l) != Ordering::Less,
        (End::Excl(u), End::Excl(l)) => u.cmp_padded(l) == Ordering::Greater,
        (End::Incl(u), End::Excl(l)) | (End::Excl(u), End::Incl(l)) => {
            u.cmp_padded(l) != Ordering::Less
        }
    }
}

/// One comparator: an operator and a release point.
fn comparator(op: &str, v: &str) -> Option<Interval> {
    let p = release_point(v)?;
    Some(match op {
        ">=" => Interval {
            lower: End::Incl(p),
            upper: End::Open,
        },
        ">" => Interval {
            lower: End::Excl(p),
            upper: End::Open,
        },
        "<=" => Interval {
            lower: End::Open,
            upper: End::Incl(p),
        },
        "<" => Interval {
            lower: End::Open,
            upper: End::Excl(p),
        },
        "=" | "==" | "" => Interval {
            lower: End::Incl(p.clone()),
            upper: End::Incl(p),
        },
        _ => return None,
    })
}

fn meet_all(parts: impl IntoIterator<Item = Interval>) -> Interval {
    parts.into_iter().fold(
        Interval {
            lower: End::Open,
            upper: End::Open,
        },
        |acc, i| acc.meet(&i),
    )
}

/// node-semver's grammar, through `nodejs-semver`: its normal form is
/// `||`-separated sets of space-separated comparators.
fn npm(text: &str) -> Option<Vec<Interval>> {
    let range = nodejs_semver::Range::parse(text).ok()?;
    let normal = range.to_string();
    let mut sets = Vec::new();
    for set in normal.split("||") {
        let mut parts = Vec::new();
        for c in set.split_whitespace() {
            let at = c.find(|ch: char| ch.is_ascii_digit())?;
            // A pre-release bound is read at its release (module doc).
            let version = c[at..].split(['-', '+']).next()?;
            parts.push(comparator(&c[..at], version)?);
        }
        sets.push(meet_all(parts));
    }
    Some(sets)
}

/// The next prefix of `parts[..n]`: `1.2.3` at 1 is `2`, at 2 `1.3`.
fn next_prefix(parts: &[u64], n: usize) -> Point {
    let mut p: Vec<String> = parts[..n].iter().map(u64::to_string).collect();
    if let Some(last) = p.last_mut() {
        *last = (last.parse::<u128>().unwrap_or(0) + 1).to_string();
    }
    Point::from_digits(&p)
}

fn point_of(parts: &[u64]) -> Point {
    let p: Vec<String> = parts.iter().map(u64::to_string).collect();
    Point::from_digits(&p)
}

fn between(lower: Point, upper: Point) -> Interval {
    Interval {
        lower: End::Incl(lower),
        upper: End::Excl(upper),
    }
}

/// Cargo's requirement grammar, through `semver::VersionReq`; the
/// comparators of one requirement all hold.
fn cargo(text: &str) -> Option<Vec<Interval>> {
    use semver::Op;
    let req = semver::VersionReq::parse(text).ok()?;
    let mut parts = Vec::new();
    for c in &req.comparators {
        let given: Vec<u64> = [Some(c.major), c.minor, c.patch]
            .into_iter()
            .map_while(|x| x)
            .collect();
        let full = point_of(&given);
        let interval = match c.op {
            Op::Exact | Op::Wildcard if given.len() == 3 => Interval {
                lower: End::Incl(full.clone()),
                upper: End::Incl(full),
            },
            Op::Exact | Op::Wildcard => between(full, next_prefix(&given, given.len())),
            Op::Greater if given.len() == 3 => Interval {
                lower: End::Excl(full),
                upper: End::Open,
            },
            Op::Greater => Interval {
                lower: End::Incl(next_prefix(&given, given.len())),
                upper: End::Open,
            },
            Op::GreaterEq => Interval {
                lower: End::Incl(full),
                upper: End::Open,
            },
            Op::Less => Interval {
                lower: End::Open,
                upper: End::Excl(full),
            },
            Op::LessEq if given.len() == 3 => Interval {
                lower: End::Open,
                upper: End::Incl(full),
            },
            Op::LessEq => Interval {
                lower: End::Open,
                upper: End::Excl(next_prefix(&given, given.len())),
            },
            Op::Tilde => between(full, next_prefix(&given, given.len().min(2))),
            Op::Caret => {
                // The first non-zero component given, or the last given.
                let n = given
                    .iter()
                    .position(|&x| x != 0)
                    .map_or(given.len(), |i| i + 1);
                between(full, next_prefix(&given, n.min(given.len())))
            }
            _ => return None,
        };
        parts.push(interval);
    }
    Some(vec![meet_all(parts)])
}

/// PEP 440 specifier sets, through `pep440_rs`; every specifier holds.
/// Poetry's own forms are read too: `||` alternatives, caret and tilde
/// (`^1.2`, `~2.7`, Cargo's meaning), a bare version (exactly it), `*`;
/// and pip's `<3.0.0 and >=2.4.2` spelling of a set.
fn pypi(text: &str) -> Option<Vec<Interval>> {
    if text.contains("||") {
        let mut out = Vec::new();
        for part in text.split("||") {
            out.extend(pypi(part.trim())?);
        }
        return Some(out);
    }
    let t = text.trim();
    if t == "*" {
        return Some(vec![Interval {
            lower: End::Open,
            upper: End::Open,
        }]);
    }
    if t.starts_with('^') || (t.starts_with('~') && !t.starts_with("~=")) {
        return cargo(t);
    }
    if t.starts_with(|c: char| c.is_ascii_digit())
        && t.chars().all(|c| c.is_ascii_digit() || c == '.')
    {
        let p = release_point(t)?;
        return Some(vec![Interval {
            lower: End::Incl(p.clone()),
            upper: End::Incl(p),
        }]);
    }
    pep440(&t.replace(" and ", ","))
}

fn pep440(text: &str) -> Option<Vec<Interval>> {
    use pep440_rs::Operator as Op;
    let specs = pep440_rs::VersionSpecifiers::from_str(text).ok()?;
    let mut parts = Vec::new();
    for s in specs.iter() {
        let release = s.version().release();
        if release.is_empty() {
            return None;
        }
        let full = point_of(release);
        let interval = match s.operator() {
            Op::Equal | Op::ExactEqual => Interval {
                lower: End::Incl(full.clone()),
                upper: End::Incl(full),
            },
            Op::EqualStar => between(full, next_prefix(release, release.len())),
            Op::TildeEqual => between(full, next_prefix(release, release.len().max(2) - 1)),
            Op::GreaterThanEqual => Interval {
                lower: End::Incl(full),
                upper: End::Open,
            },
            Op::GreaterThan => Interval {
                lower: End::Excl(full),
                upper: End::Open,
            },
            Op::LessThan => Interval {
                lower: End::Open,
                upper: End::Excl(full),
            },
            Op::LessThanEqual => Interval {
                lower: End::Open,
                upper: End::Incl(full),
            },
            // One version left out: ignored (module doc).
            Op::NotEqual | Op::NotEqualStar => continue,
        };
        parts.push(interval);
    }
    Some(vec![meet_all(parts)])
}

fn numbers(v: &str) -> Option<Vec<u64>> {
    let v = v.trim();
    let v = v.strip_prefix(['v', 'V']).unwrap_or(v);
    let core = v.split(['-', '+']).next()?;
    core.split('.')
        .map(|p| p.parse::<u64>().ok())
        .collect::<Option<Vec<u64>>>()
        .filter(|n| !n.is_empty() && n.len() <= 8)
}

/// RubyGems requirements: comma-separated `op version`, `~>` the
/// pessimistic operator (`~> 1.2` is `>= 1.2, < 2`).
fn gem(text: &str) -> Option<Vec<Interval>> {
    let mut parts = Vec::new();
    for piece in text.split(',') {
        let piece = piece.trim().trim_matches(['\'', '"']).trim();
        let at = piece.find(|c: char| c.is_ascii_digit())?;
        let (op, v) = (piece[..at].trim(), &piece[at..]);
        let n = numbers(v)?;
        parts.push(match op {
            "~>" => between(point_of(&n), next_prefix(&n, n.len().max(2) - 1)),
            "!=" => continue,
            "=" | "" | ">=" | ">" | "<=" | "<" => comparator(op, v)?,
            _ => return None,
        });
    }
    Some(vec![meet_all(parts)])
}

/// Go: a module requirement names its minimum version (minimal version
/// selection), written `v1.2.3`, or `>= 1.22` as the toolchain line says.
fn go(text: &str) -> Option<Vec<Interval>> {
    let t = text.trim();
    let (op, v) = match t.find(|c: char| c.is_ascii_digit()) {
        Some(at) => (t[..at].trim().trim_end_matches(['v', 'V']).trim(), &t[at..]),
        None => return None,
    };
    numbers(v)?;
    let op = if op.is_empty() { ">=" } else { op };
    Some(vec![comparator(op, v)?])
}

/// How a point is written in a lesson range: at most three components;
/// `None` when it has more.
fn written(p: &Point, trim: bool) -> Option<String> {
    let mut parts = p.0.clone();
    if parts.len() > 3 {
        if parts[3..].iter().any(|x| x != "0") {
            return None;
        }
        parts.truncate(3);
    }
    if trim {
        while parts.len() > 1 && parts.last().is_some_and(|x| x == "0") {
            parts.pop();
        }
    } else {
        while parts.len() < 3 {
            parts.push("0".into());
        }
    }
    Some(parts.join("."))
}

fn is_zero(p: &Point) -> bool {
    p.0.iter().all(|x| x == "0")
}

/// An interval written in the lesson range grammar (`<6`, `>=5`, `>0.24.0`,
/// `>=6 <6.4`, `=1.2.3`), reading back to exactly the same interval.
/// `None` when the grammar cannot say it: every version, or a point with
/// more than three components.
///
/// A partial bound means a prefix in the grammar (`<=6` is `<7.0.0`, `>6`
/// is `>=7.0.0`), so only inclusive lower and exclusive upper bounds are
/// shortened (`>=5.0.0` is written `>=5`, `<6.4.0` `<6.4`).
pub fn lesson_range(i: &Interval) -> Option<String> {
    if i.is_empty() {
        return None;
    }
    if let (End::Incl(lo), End::Incl(hi)) = (&i.lower, &i.upper) {
        if lo.cmp_padded(hi) == Ordering::Equal {
            return Some(format!("={}", written(lo, false)?));
        }
    }
    let lower = match &i.lower {
        End::Open => None,
        End::Incl(p) if is_zero(p) => None,
        End::Incl(p) => Some(format!(">={}", written(p, true)?)),
        End::Excl(p) => Some(format!(">{}", written(p, false)?)),
    };
    let upper = match &i.upper {
        End::Open => None,
        End::Incl(p) => Some(format!("<={}", written(p, false)?)),
        End::Excl(p) => Some(format!("<{}", written(p, true)?)),
    };
    match (lower, upper) {
        (None, None) => None,
        (Some(l), None) => Some(l),
        (None, Some(u)) => Some(u),
        (Some(l), Some(u)) => Some(format!("{l} {u}")),
    }
}

/// The interval of releases strictly above `v` (`>0.24.0`).
pub fn above(v: &Point) -> Interval {
    Interval {
        lower: End::Excl(v.clone()),
        upper: End::Open,
    }
}

/// The interval of releases at or above `v` (`>=4`).
pub fn from(v: &Point) -> Interval {
    Interval {
        lower: End::Incl(v.clone()),
        upper: End::Open,
    }
}

/// The interval of releases strictly below `v` (`<1.0.0`).
pub fn below(v: &Point) -> Interval {
    Interval {
        lower: End::Open,
        upper: End::Excl(v.clone()),
    }
}

/// The interval of releases at or below `v` (`<=0.13.1`).
pub fn up_to(v: &Point) -> Interval {
    Interval {
        lower: End::Open,
        upper: End::Incl(v.clone()),
    }
}

impl Point {
    /// Compares two points, missing components as zero.
    pub fn compare(&self, other: &Point) -> Ordering {
        self.cmp_padded(other)
    }

    /// The point as written: its components joined by dots.
    pub fn text(&self) -> String {
        self.0.join(".")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(eco: Ecosystem, s: &str) -> Declared {
        Declared::parse(eco, s).unwrap_or_else(|e| panic!("{s}: {e}"))
    }

    fn p(s: &str) -> Point {
        release_point(s).unwrap()
    }

    fn ranges(list: &[Interval]) -> Vec<String> {
        list.iter()
            .map(|i| lesson_range(i).unwrap_or_else(|| "(any)".into()))
            .collect()
    }

    #[test]
    fn npm_ranges_become_merged_intervals() {
        let r = d(Ecosystem::Npm, "^3.0.0 || ^4.0.0");
        assert_eq!(ranges(r.intervals()), [">=3 <5"]);
        assert!(r.contains(&p("4.9.9")) && !r.contains(&p("5.0.2")) && !r.contains(&p("2.9")));
        assert_eq!(
            ranges(d(Ecosystem::Npm, "^18.0.0 || >=20.0.0").intervals()),
            [">=18 <19", ">=20"]
        );
        assert_eq!(ranges(d(Ecosystem::Npm, "0.24.0").intervals()), ["=0.24.0"]);
        assert_eq!(
            ranges(d(Ecosystem::Npm, "^0.24.0").intervals()),
            [">=0.24 <0.25"]
        );
        assert_eq!(
            ranges(d(Ecosystem::Npm, "1.2.3 - 2.3").intervals()),
            [">=1.2.3 <2.4"]
        );
        assert!(Declared::parse(Ecosystem::Npm, "workspace:*").is_err());
        assert!(Declared::parse(Ecosystem::Npm, "latest").is_err());
    }

    #[test]
    fn outside_around_is_the_gap_that_holds_the_installed_version() {
        let r = d(Ecosystem::Npm, "^3.0.0 || ^4.0.0");
        let gap = r.outside_around(Some(&p("5.0.2"))).unwrap();
        assert_eq!(lesson_range(&gap).unwrap(), ">=5");
        let gap = r.outside_around(Some(&p("2.1.0"))).unwrap();
        assert_eq!(lesson_range(&gap).unwrap(), "<3");
        assert_eq!(r.outside_around(Some(&p("4.1.0"))), None);
        // Unknown: the highest gap.
        assert_eq!(
            lesson_range(&r.outside_around(None).unwrap()).unwrap(),
            ">=5"
        );
        let node = d(Ecosystem::Npm, "^18.0.0 || >=20.0.0");
        assert_eq!(
            lesson_range(&node.outside_around(Some(&p("19.2.0"))).unwrap()).unwrap(),
            ">=19 <20"
        );
        assert_eq!(
            lesson_range(&node.outside_around(Some(&p("16.20.0"))).unwrap()).unwrap(),
            "<18"
        );
        let exact = d(Ecosystem::Npm, "18.3.1");
        assert_eq!(
            lesson_range(&exact.outside_around(Some(&p("18.2.0"))).unwrap()).unwrap(),
            "<18.3.1"
        );
        assert_eq!(
            lesson_range(&exact.outside_around(Some(&p("19.0.0"))).unwrap()).unwrap(),
            ">18.3.1"
        );
    }

    #[test]
    fn minus_is_what_a_narrowed_range_dropped() {
        let old = d(Ecosystem::Npm, "^6.0.0 || ^7.0.0");
        let new = d(Ecosystem::Npm, "^6.4.0 || ^7.0.0");
        assert_eq!(ranges(old.minus(&new).intervals()), [">=6 <6.4"]);
        let old = d(Ecosystem::Npm, "^5.0.0 || ^6.0.0");
        let new = d(Ecosystem::Npm, "^6.4.0");
        assert_eq!(ranges(old.minus(&new).intervals()), [">=5 <6.4"]);
        assert!(new.minus(&old).is_empty());
        let node_old = d(Ecosystem::Npm, "^18.0.0 || >=20.0.0");
        let node_new = d(Ecosystem::Npm, "^20.19.0 || >=22.12.0");
        assert_eq!(
            ranges(node_old.minus(&node_new).intervals()),
            [">=18 <19", ">=20 <20.19", ">=21 <22.12"]
        );
    }

    #[test]
    fn cargo_requirements() {
        let r = |s: &str| ranges(d(Ecosystem::Cargo, s).intervals());
        assert_eq!(r("1.2.3"), [">=1.2.3 <2"]);
        assert_eq!(r("^0.5"), [">=0.5 <0.6"]);
        assert_eq!(r("^0.0.3"), [">=0.0.3 <0.0.4"]);
        assert_eq!(r("~1.2"), [">=1.2 <1.3"]);
        assert_eq!(r("=1.2.3"), ["=1.2.3"]);
        assert_eq!(r(">=1.2, <1.5"), [">=1.2 <1.5"]);
        assert_eq!(r("1.*"), [">=1 <2"]);
        assert_eq!(r("*"), ["(any)"]);
    }

    #[test]
    fn pep440_specifiers() {
        let r = |s: &str| ranges(d(Ecosystem::PyPI, s).intervals());
        assert_eq!(r(">=1.2,<2"), [">=1.2 <2"]);
        assert_eq!(r("==2.31.0"), ["=2.31.0"]);
        assert_eq!(r("~=1.4.2"), [">=1.4.2 <1.5"]);
        assert_eq!(r("~=2.2"), [">=2.2 <3"]);
        assert_eq!(r("==1.2.*"), [">=1.2 <1.3"]);
        assert_eq!(r(">=3.9,!=3.9.1"), [">=3.9"]);
        assert_eq!(r("<3.0.0 and >=2.4.2"), [">=2.4.2 <3"]);
        assert_eq!(r("^0.13.5"), [">=0.13.5 <0.14"]);
        assert_eq!(r("~2.7 || ^3.4"), [">=2.7 <2.8", ">=3.4 <4"]);
        assert_eq!(r("2.2.1"), ["=2.2.1"]);
    }

    #[test]
    fn gem_and_go_requirements() {
        let g = |s: &str| ranges(d(Ecosystem::RubyGems, s).intervals());
        assert_eq!(g("~> 1.2"), [">=1.2 <2"]);
        assert_eq!(g("~> 1.2.3"), [">=1.2.3 <1.3"]);
        assert_eq!(g(">= 2.0, < 3"), [">=2 <3"]);
        let go = |s: &str| ranges(d(Ecosystem::Go, s).intervals());
        assert_eq!(go("v1.22.0"), [">=1.22"]);
        assert_eq!(go(">= 1.22"), [">=1.22"]);
    }

    #[test]
    fn lesson_ranges_read_back_to_the_same_interval() {
        use crate::version::Range;
        for (i, want) in [
            (above(&p("0.24.0")), ">0.24.0"),
            (from(&p("4")), ">=4"),
            (below(&p("1.0.0")), "<1"),
            (up_to(&p("0.13.1")), "<=0.13.1"),
            (up_to(&p("6")), "<=6.0.0"),
            (above(&p("6")), ">6.0.0"),
        ] {
            let text = lesson_range(&i).unwrap();
            assert_eq!(text, want);
            let back = Interval::of(&Range::parse(&text).unwrap());
            let same = |a: &End, b: &End| match (a, b) {
                (End::Open, End::Open) => true,
                (End::Incl(x), End::Incl(y)) | (End::Excl(x), End::Excl(y)) => {
                    x.compare(y) == Ordering::Equal
                }
                _ => false,
            };
            assert!(
                same(&back.lower, &i.lower) && same(&back.upper, &i.upper),
                "{text}: {back:?} is not {i:?}"
            );
        }
        assert_eq!(lesson_range(&from(&p("0"))), None, "every version");
        assert_eq!(lesson_range(&up_to(&p("1.2.3.4"))), None);
    }

    #[test]
    fn bad_and_huge_input_is_refused() {
        assert!(Declared::parse(Ecosystem::PyPI, "not a spec").is_err());
        assert!(Declared::parse(Ecosystem::Cargo, "").is_err());
        let huge = "1".repeat(10_000);
        assert_eq!(
            Declared::parse(Ecosystem::Npm, &huge).unwrap_err(),
            DeclaredError::TooLong {
                len: 10_000,
                max: MAX_DECLARED_CHARS
            }
        );
        assert_eq!(release_point("v1.22.0").unwrap().text(), "1.22.0");
        assert_eq!(release_point("5.0.2-beta.1").unwrap().text(), "5.0.2");
        assert_eq!(release_point("abc"), None);
    }
}
