//! What a lesson range means for recall: the set of release versions it
//! admits, as an interval over numeric tuples, and whether two ranges
//! intersect.
//!
//! The reading (the same one Cargo's `semver` and npm's `node-semver` give
//! partial versions):
//!
//! - a bound with three components is exact: `<=5.4.21` admits `5.4.21`
//!   and not `5.4.21.1`;
//! - a bound with one or two components names every version that starts
//!   with it: `=6` is `>=6.0.0 <7.0.0`, `<=6` is `<7.0.0`, `>6` is
//!   `>=7.0.0`, `=5.4` is `>=5.4.0 <5.5.0`, while `<6` stays `<6.0.0` and
//!   `>=5.4` stays `>=5.4.0`.
//!
//! Versions are tuples of any length compared with missing components as
//! zero, and numbers of any size (kept as digit strings, never parsed into
//! a machine integer). Between any two different tuples there is another
//! (append a component), so an interval is empty only when its bounds
//! cross. Pre-releases are not in this space: they are ruled on in
//! `matching.rs`.
//!
//! This file owns that reading and [`Range::intersects`] /
//! [`Range::is_satisfiable`]; it does not parse installed versions.

use std::cmp::Ordering;

use super::range::{Bound, Range};

/// A release tuple: normalised digit strings (no leading zeros; zero is
/// `"0"`), trailing zeros kept as written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Point(pub(crate) Vec<String>);

impl Point {
    /// A point from digit strings (each non-empty, ASCII digits only).
    pub(crate) fn from_digits<S: AsRef<str>>(parts: &[S]) -> Point {
        Point(parts.iter().map(|p| norm_digits(p.as_ref())).collect())
    }

    fn is_zero(&self) -> bool {
        self.0.iter().all(|p| p == "0")
    }

    /// The next prefix: the last component plus one (`6` → `7`,
    /// `5.4` → `5.5`, `9.99` → `9.100`).
    fn bump(&self) -> Point {
        let mut parts = self.0.clone();
        if let Some(last) = parts.last_mut() {
            *last = increment(last);
        }
        Point(parts)
    }

    /// Compares zero-padded: `6` equals `6.0.0`.
    pub(crate) fn cmp_padded(&self, other: &Point) -> Ordering {
        let n = self.0.len().max(other.0.len());
        for i in 0..n {
            let a = self.0.get(i).map_or("0", String::as_str);
            let b = other.0.get(i).map_or("0", String::as_str);
            match cmp_digits(a, b) {
                Ordering::Equal => continue,
                unequal => return unequal,
            }
        }
        Ordering::Equal
    }
}

/// Strips leading zeros; `"000"` becomes `"0"`.
fn norm_digits(s: &str) -> String {
    let t = s.trim_start_matches('0');
    if t.is_empty() {
        "0".to_owned()
    } else {
        t.to_owned()
    }
}

/// Compares two normalised digit strings as numbers.
fn cmp_digits(a: &str, b: &str) -> Ordering {
    a.len().cmp(&b.len()).then_with(|| a.cmp(b))
}

/// Adds one to a normalised digit string.
fn increment(s: &str) -> String {
    let mut digits: Vec<u8> = s.bytes().collect();
    let mut i = digits.len();
    loop {
        if i == 0 {
            digits.insert(0, b'1');
            break;
        }
        i -= 1;
        if digits[i] == b'9' {
            digits[i] = b'0';
        } else {
            digits[i] += 1;
            break;
        }
    }
    String::from_utf8(digits).unwrap_or_else(|_| "0".to_owned())
}

/// One end of an interval.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum End {
    Open,
    Incl(Point),
    Excl(Point),
}

/// The release versions a range admits.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Interval {
    pub(crate) lower: End,
    pub(crate) upper: End,
}

fn is_partial(b: &Bound) -> bool {
    b.version.parts().len() < 3
}

impl Interval {
    /// The interval a lesson range stands for (see the file doc).
    pub(crate) fn of(range: &Range) -> Interval {
        let lower = match &range.lower {
            None => End::Open,
            Some(b) => {
                let p = Point::from_digits(b.version.parts());
                if b.inclusive {
                    End::Incl(p)
                } else if is_partial(b) {
                    End::Incl(p.bump())
                } else {
                    End::Excl(p)
                }
            }
        };
        let upper = match &range.upper {
            None => End::Open,
            Some(b) => {
                let p = Point::from_digits(b.version.parts());
                if !b.inclusive {
                    End::Excl(p)
                } else if is_partial(b) {
                    End::Excl(p.bump())
                } else {
                    End::Incl(p)
                }
            }
        };
        Interval { lower, upper }
    }

    /// Whether some release tuple lies in the interval.
    pub(crate) fn is_empty(&self) -> bool {
        match (&self.lower, &self.upper) {
            (_, End::Excl(hi)) if hi.is_zero() => true,
            (End::Open, _) | (_, End::Open) => false,
            (End::Incl(lo), End::Incl(hi)) => lo.cmp_padded(hi) == Ordering::Greater,
            (End::Incl(lo), End::Excl(hi))
            | (End::Excl(lo), End::Incl(hi))
            | (End::Excl(lo), End::Excl(hi)) => lo.cmp_padded(hi) != Ordering::Less,
        }
    }

    /// The intersection of two intervals.
    pub(crate) fn meet(&self, other: &Interval) -> Interval {
        Interval {
            lower: tighter(&self.lower, &other.lower, Ordering::Greater),
            upper: tighter(&self.upper, &other.upper, Ordering::Less),
        }
    }
}

/// The tighter of two ends: for a lower end the greater, for an upper end
/// the smaller (`want`); at equal points the exclusive one.
fn tighter(a: &End, b: &End, want: Ordering) -> End {
    let point = |e: &End| match e {
        End::Open => None,
        End::Incl(p) | End::Excl(p) => Some(p.clone()),
    };
    match (point(a), point(b)) {
        (None, _) => b.clone(),
        (_, None) => a.clone(),
        (Some(pa), Some(pb)) => match pa.cmp_padded(&pb) {
            Ordering::Equal => {
                if matches!(a, End::Excl(_)) {
                    a.clone()
                } else {
                    b.clone()
                }
            }
            o if o == want => a.clone(),
            _ => b.clone(),
        },
    }
}

impl Range {
    /// Whether some release version satisfies both ranges, as recall reads
    /// them (partial versions are prefixes: `=6` and `>=6.2` intersect at
    /// `6.2.0`). Ecosystem-agnostic: versions are numeric tuples of any
    /// length, so `>1.0.0` and `<1.0.1` intersect (`1.0.0.1`). An empty
    /// range (`>4 <4.5`, `>6 <2`) intersects nothing, itself included.
    pub fn intersects(&self, other: &Range) -> bool {
        !Interval::of(self).meet(&Interval::of(other)).is_empty()
    }

    /// Whether recall can match any release version at all. Stricter than
    /// `!is_inverted()`: `>4 <4.5` is not inverted numerically, but `>4`
    /// means "from 5" for recall, so no version satisfies it; `<0` admits
    /// nothing either.
    pub fn is_satisfiable(&self) -> bool {
        !Interval::of(self).is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r(s: &str) -> Range {
        Range::parse(s).unwrap()
    }

    #[test]
    fn partial_versions_are_prefixes() {
        let p = |s: &[&str]| Point::from_digits(s);
        let table: &[(&str, End, End)] = &[
            ("<6", End::Open, End::Excl(p(&["6"]))),
            ("<=6", End::Open, End::Excl(p(&["7"]))),
            ("<=5.4", End::Open, End::Excl(p(&["5", "5"]))),
            ("<=5.4.21", End::Open, End::Incl(p(&["5", "4", "21"]))),
            ("=6", End::Incl(p(&["6"])), End::Excl(p(&["7"]))),
            (
                "=5.4.21",
                End::Incl(p(&["5", "4", "21"])),
                End::Incl(p(&["5", "4", "21"])),
            ),
            (">6", End::Incl(p(&["7"])), End::Open),
            (">9.99", End::Incl(p(&["9", "100"])), End::Open),
            (">5.4.21", End::Excl(p(&["5", "4", "21"])), End::Open),
            (">=5.4", End::Incl(p(&["5", "4"])), End::Open),
            (">=4 <6", End::Incl(p(&["4"])), End::Excl(p(&["6"]))),
            (">=4 <=4", End::Incl(p(&["4"])), End::Excl(p(&["5"]))),
            (">=099 <0100", End::Incl(p(&["99"])), End::Excl(p(&["100"]))),
        ];
        for (text, lower, upper) in table {
            let i = Interval::of(&r(text));
            assert_eq!(&i.lower, lower, "{text} lower");
            assert_eq!(&i.upper, upper, "{text} upper");
        }
        assert_eq!(increment("999"), "1000");
        assert_eq!(increment("0"), "1");
        assert_eq!(
            increment("99999999999999999999999999"),
            "100000000000000000000000000"
        );
    }

    #[test]
    fn intersection_table() {
        // (a, b, some version satisfies both)
        let table: &[(&str, &str, bool)] = &[
            ("<6", ">=4", true),
            ("<6", ">=6", false),
            ("<6", ">=5.99.99", true),
            ("<=6", ">=6.5", true),
            ("<=6", ">6", false),
            ("<=6", ">=7", false),
            ("=6", ">=6.2", true),
            ("=6", "<6.0.1", true),
            ("=6", "=7", false),
            ("=6", "=6.3.1", true),
            ("=5.4", "=5.4.21", true),
            ("=5.4", "=5.5.0", false),
            ("=5.4.21", "=5.4.21", true),
            ("=5.4.21", ">5.4.21", false),
            ("=5.4.21", "<5.4.21", false),
            ("=5.4.21", "<=5.4.21", true),
            ("=5.4.21", ">=5.4.21 <6", true),
            (">1.0.0", "<1.0.1", true),
            (">=4 <6", ">=5 <7", true),
            (">=4 <6", ">=6 <7", false),
            (">=4 <=6", ">6", false),
            (">=4 <=6.0.0", ">6.0.0", false),
            (">=4 <=6.0.0", ">=6.0.0", true),
            (">4", "<5", false),
            (">4", "<=5", true),
            (">4.0.0", "<5", true),
            ("<1", ">0.9", true),
            ("<1", ">=0.9 <=0.9", true),
            ("<0.1", ">0.0 <1", false),
            ("<1", ">0.9.0", true),
            (">=0 <6", "<6", true),
            ("<0", ">=0 <6", false),
            ("<0", "<0", false),
            (">=4 <4.5", ">4 <4.5", false),
            (">6 <2", ">=1", false),
        ];
        for &(a, b, want) in table {
            assert_eq!(r(a).intersects(&r(b)), want, "{a} ∩ {b}");
            assert_eq!(r(b).intersects(&r(a)), want, "{b} ∩ {a} (symmetric)");
        }
    }

    #[test]
    fn satisfiable_ranges() {
        for s in [
            "<6",
            "<=6",
            "=6",
            ">6",
            ">=4 <6",
            ">=4 <=4",
            ">4.0.0 <4.0.1",
            "<0.0.1",
        ] {
            assert!(r(s).is_satisfiable(), "{s}");
            assert!(r(s).intersects(&r(s)), "{s} meets itself");
        }
        for s in [
            "<0",
            "<0.0",
            ">4 <4.5",
            ">=4 <4",
            ">6 <2",
            ">4 <=4",
            ">4.0 <=4.0",
        ] {
            assert!(!r(s).is_satisfiable(), "{s}");
            assert!(!r(s).intersects(&r(s)), "{s} meets nothing");
        }
    }
}
