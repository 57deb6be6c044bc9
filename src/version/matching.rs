//! The three-outcome comparison of an installed version with a lesson
//! range: in range, out of range, or unknown.
//!
//! Rules, for every ecosystem:
//!
//! - The range means what `interval.rs` says: partial versions are
//!   prefixes (`=6` is any `6.x.y`, `<=6` is below `7.0.0`, `>6` is from
//!   `7.0.0`), three-component versions are exact, `<6` is below `6.0.0`.
//! - A **pre-release** is never in range. Our grammar cannot name a
//!   pre-release, and npm (`node-semver`), Cargo (`semver`), PEP 440,
//!   Composer's stability flags and Bundler's resolver all keep
//!   pre-releases out of a range that names none. So `6.0.0-beta.3` is not
//!   `<6` (it is a build of 6) and not `>=5` either. That outcome is out
//!   of range, with a reason saying it is a pre-release.
//! - A **post-release** (PEP 440 `1.0.post1`, Composer `1.0-p1`) sorts
//!   after its release and before the next one. PyPI additionally follows
//!   PEP 440's rule that `>V` does not admit a post-release of `V`.
//! - PEP 440 **local labels** (`+cu121`) are ignored; SemVer and Go
//!   **build metadata** (`+build`, `+incompatible`) is ignored.
//! - **Unknown**: the installed text is not a version of its ecosystem, a
//!   Go pseudo-version (an untagged commit: it cannot be placed against a
//!   release bound), a PEP 440 version with a non-zero epoch, a Composer
//!   branch. Unknown is never recalled as a match.
//!
//! This file owns those rules and the wording of the reasons. Reasons start
//! with the installed version, so a caller prefixes the package name:
//! `vite` + `8.0.16 is not <6`.

use std::cmp::Ordering;

use super::ecosystem::Ecosystem;
use super::interval::{End, Interval, Point};
use super::parse::{read, Reading};
use super::range::{Range, Version};

/// How an installed version relates to a lesson range.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Match {
    /// The version is in the range: the lesson may be recalled.
    InRange,
    /// The version is outside the range (the lesson has expired for it).
    OutOfRange { why: String },
    /// The comparison cannot be made; never recalled as a match.
    Unknown { why: String },
}

/// The installed text as it appears in a reason: control, bidi and
/// invisible characters dropped ([`crate::content::text::is_shown`]), at
/// most 64 characters.
fn shown(installed: &str) -> String {
    let clean: String = installed
        .chars()
        .filter(|&c| crate::content::text::is_shown(c))
        .collect();
    match clean.char_indices().nth(64) {
        None => clean,
        Some((at, _)) => format!("{}…", &clean[..at]),
    }
}

/// Compares `installed`, a version as `eco`'s lockfiles write it, with a
/// lesson range (see the file doc for the rules).
pub fn match_version(eco: Ecosystem, range: &Range, installed: &str) -> Match {
    decide(
        &read(eco, installed),
        eco == Ecosystem::PyPI,
        range,
        &Interval::of(range),
        installed,
    )
}

/// Compares a version whose ecosystem is not known (a `--stack NAME@VERSION`
/// override for a package no lockfile lists) by the lesson grammar's own
/// reading: an optional `v`, any number of numeric components, an optional
/// SemVer pre-release (never in range) and `+build` (ignored).
pub fn match_generic(range: &Range, installed: &str) -> Match {
    decide(
        &read_generic(installed),
        false,
        range,
        &Interval::of(range),
        installed,
    )
}

/// The lesson grammar's own reading of a version (see [`match_generic`]).
pub(crate) fn read_generic(installed: &str) -> Reading {
    match Version::parse(installed) {
        Ok(v) if v.is_prerelease() => Reading::PreRelease,
        Ok(v) => Reading::Release {
            point: Point::from_digits(v.parts()),
            post: false,
        },
        Err(_) => Reading::Unordered("is not a version".to_owned()),
    }
}

/// The comparison itself, over an installed version already read and a
/// range already turned into its interval, so that a caller comparing many
/// lessons with one stack reads each version and each range once. `pep440`
/// turns on PEP 440's rule for `>V` and post-releases.
pub(crate) fn decide(
    reading: &Reading,
    pep440: bool,
    range: &Range,
    interval: &Interval,
    installed: &str,
) -> Match {
    let (point, post) = match reading {
        Reading::Unordered(why) => {
            return Match::Unknown {
                why: format!("{} {why}", shown(installed)),
            }
        }
        Reading::PreRelease => {
            return Match::OutOfRange {
                why: format!(
                    "{} is a pre-release, which {range} does not include",
                    shown(installed)
                ),
            }
        }
        Reading::Release { point, post } => (point, *post),
    };
    let above = match &interval.lower {
        End::Open => true,
        End::Incl(lo) => point.cmp_padded(lo) != Ordering::Less,
        End::Excl(lo) => match point.cmp_padded(lo) {
            Ordering::Greater => true,
            Ordering::Equal => post && !pep440,
            Ordering::Less => false,
        },
    };
    let below = match &interval.upper {
        End::Open => true,
        End::Excl(hi) => point.cmp_padded(hi) == Ordering::Less,
        End::Incl(hi) => match point.cmp_padded(hi) {
            Ordering::Less => true,
            Ordering::Equal => !post,
            Ordering::Greater => false,
        },
    };
    if above && below {
        return Match::InRange;
    }
    let pep440_post = pep440
        && post
        && matches!(&interval.lower, End::Excl(lo) if point.cmp_padded(lo) == Ordering::Equal);
    let why = if pep440_post {
        format!(
            "{} is not {range} (PEP 440: a post-release of a version is not above it)",
            shown(installed)
        )
    } else {
        format!("{} is not {range}", shown(installed))
    };
    Match::OutOfRange { why }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r(s: &str) -> Range {
        Range::parse(s).unwrap()
    }

    /// `I` in range, `O` out of range, `U` unknown.
    fn outcome(m: &Match) -> char {
        match m {
            Match::InRange => 'I',
            Match::OutOfRange { .. } => 'O',
            Match::Unknown { .. } => 'U',
        }
    }

    fn check(eco: Ecosystem, table: &[(&str, &str, char)]) {
        for &(range, installed, want) in table {
            let got = match_version(eco, &r(range), installed);
            assert_eq!(
                outcome(&got),
                want,
                "{eco}: {installed} vs {range}: {got:?}"
            );
        }
    }

    #[test]
    fn npm_semantics() {
        check(
            Ecosystem::Npm,
            &[
                ("<6", "5.4.21", 'I'),
                ("<6", "6.0.0", 'O'),
                ("<6", "8.0.16", 'O'),
                ("<6", "6.0.0-beta.3", 'O'),
                ("<6", "5.0.0-rc.1", 'O'),
                (">=5", "6.0.0-beta.3", 'O'),
                ("<=6", "6.9.9", 'I'),
                ("<=6", "7.0.0", 'O'),
                ("=6", "6.3.1", 'I'),
                ("=6", "7.0.0", 'O'),
                ("=6", "5.99.0", 'O'),
                ("=5.4", "5.4.21", 'I'),
                ("=5.4.21", "5.4.21", 'I'),
                ("=5.4.21", "5.4.21+sha.9", 'I'),
                ("=5.4.21", "5.4.22", 'O'),
                (">6", "6.9.0", 'O'),
                (">6", "7.0.0", 'I'),
                (">6.0.0", "6.0.1", 'I'),
                (">=5.4", "5.4.0", 'I'),
                (">=5.4", "5.3.9", 'O'),
                (">=4", "4.1.9", 'I'),
                (">=4 <6", "5.0.0", 'I'),
                (">=4 <6", "6.0.0", 'O'),
                ("<6", "v5.4.21", 'U'),
                ("<6", "github:vitejs/vite#abc", 'U'),
                ("<6", "", 'U'),
            ],
        );
    }

    #[test]
    fn cargo_semantics() {
        check(
            Ecosystem::Cargo,
            &[
                ("<1", "0.9.12", 'I'),
                (">=1.0.100", "1.0.228", 'I'),
                ("=1", "1.0.228", 'I'),
                ("<2", "2.0.0-alpha.1", 'O'),
                ("=0.4", "0.4.41", 'I'),
                ("=0.4", "0.5.0", 'O'),
                ("<1", "1.0", 'U'),
            ],
        );
    }

    #[test]
    fn pypi_semantics() {
        check(
            Ecosystem::PyPI,
            &[
                (">=2.31", "2.31.0", 'I'),
                (">=2.31", "2.31", 'I'),
                ("<3", "2.32.3", 'I'),
                ("<2", "2.0rc1", 'O'),
                (">=1.5", "2.0rc1", 'O'),
                (">=1", "2.0.dev1", 'O'),
                ("=2.1.0", "2.1.0+cu121", 'I'),
                ("<=2.1.0", "2.1.0+cu121", 'I'),
                (">2.1.0", "2.1.0+cu121", 'O'),
                ("=2", "2.1.0+cu121", 'I'),
                ("<=1.0.0", "1.0.0.post1", 'O'),
                ("<=1.0", "1.0.0.post1", 'I'),
                (">=1.0.0", "1.0.0.post1", 'I'),
                (">1.0.0", "1.0.0.post1", 'O'),
                (">1.0.0", "1.0.1", 'I'),
                ("=1.0.0", "1.0.0.post1", 'O'),
                ("=1", "1.0.0.post1", 'I'),
                ("<6", "1!2.0", 'U'),
                ("<6", "banana", 'U'),
            ],
        );
    }

    #[test]
    fn go_semantics() {
        check(
            Ecosystem::Go,
            &[
                (">=1.9", "v1.9.1", 'I'),
                ("<2", "v1.9.1", 'I'),
                (">=2", "v2.0.0+incompatible", 'I'),
                ("<2", "v2.0.0+incompatible", 'O'),
                ("<1.10", "v1.10.0-rc.1", 'O'),
                ("<1", "v0.0.0-20191109021931-daa7c04131f5", 'U'),
                (">=1.2", "v1.2.4-0.20191109021931-daa7c04131f5", 'U'),
                (">=1.2", "1.2.4", 'U'),
            ],
        );
    }

    #[test]
    fn rubygems_semantics() {
        check(
            Ecosystem::RubyGems,
            &[
                (">=7.1", "7.1.3", 'I'),
                ("<7.1", "7.1.3", 'O'),
                ("=7.1.3", "7.1.3.4", 'O'),
                ("=7.1", "7.1.3.4", 'I'),
                ("<8", "8.0.0.beta1", 'O'),
                (">=1", "1.0.0.pre", 'O'),
                ("<2", "1_0", 'U'),
            ],
        );
    }

    #[test]
    fn composer_semantics() {
        check(
            Ecosystem::Composer,
            &[
                (">=6.4", "v6.4.3", 'I'),
                ("<7", "v6.4.3", 'I'),
                ("<7", "7.0.0-RC1", 'O'),
                ("<=1.0.0", "1.0.0-p1", 'O'),
                (">1.0.0", "1.0.0-p1", 'I'),
                ("=1.2.3", "1.2.3.0", 'I'),
                ("<2", "dev-main", 'U'),
                ("<2", "1.x-dev", 'U'),
            ],
        );
    }

    #[test]
    fn reasons_are_exact() {
        let why = |m: Match| match m {
            Match::InRange => String::from("in range"),
            Match::OutOfRange { why } | Match::Unknown { why } => why,
        };
        assert_eq!(
            why(match_version(Ecosystem::Npm, &r("<6"), "8.0.16")),
            "8.0.16 is not <6"
        );
        assert_eq!(
            why(match_version(Ecosystem::Npm, &r(">=4 <6"), "6.0.0-beta.3")),
            "6.0.0-beta.3 is a pre-release, which >=4 <6 does not include"
        );
        assert_eq!(
            why(match_version(Ecosystem::PyPI, &r(">1.0.0"), "1.0.0.post1")),
            "1.0.0.post1 is not >1.0.0 (PEP 440: a post-release of a version is not above it)"
        );
        assert_eq!(
            why(match_version(
                Ecosystem::Go,
                &r("<1"),
                "v0.0.0-20191109021931-daa7c04131f5"
            )),
            "v0.0.0-20191109021931-daa7c04131f5 is a Go pseudo-version (an untagged commit), which cannot be compared with a release bound"
        );
        assert_eq!(
            why(match_version(Ecosystem::Npm, &r("<6"), "x\u{1b}[2J")),
            "x[2J is not a valid npm (SemVer) version"
        );
    }

    #[test]
    fn generic_reading_for_unknown_ecosystems() {
        assert_eq!(match_generic(&r("<6"), "5.4.21"), Match::InRange);
        assert_eq!(match_generic(&r(">=2.31"), "2.31"), Match::InRange);
        assert_eq!(match_generic(&r("=6"), "v6.1"), Match::InRange);
        assert!(matches!(
            match_generic(&r("<6"), "6.0.0-beta.1"),
            Match::OutOfRange { .. }
        ));
        assert!(matches!(
            match_generic(&r(">=4 <6"), "5.0.0-rc.1"),
            Match::OutOfRange { .. }
        ));
        assert!(matches!(
            match_generic(&r("<6"), "latest"),
            Match::Unknown { .. }
        ));
    }

    /// Our npm/Cargo reading agrees with the `semver` crate's `VersionReq`
    /// (Cargo's own requirement semantics) on every range over a small
    /// alphabet and every version over another, pre-releases included.
    #[test]
    fn semver_agrees_with_the_semver_crate() {
        let nums = [
            "0", "1", "2", "1.0", "1.1", "2.0", "1.0.0", "1.0.1", "1.1.0", "0.0.1",
        ];
        let mut ranges: Vec<(String, String)> = Vec::new();
        for op in ["<", "<=", "=", ">", ">="] {
            for v in nums {
                ranges.push((format!("{op}{v}"), format!("{op}{v}")));
            }
        }
        for lo in [">", ">="] {
            for hi in ["<", "<="] {
                for a in nums {
                    for b in nums {
                        ranges.push((format!("{lo}{a} {hi}{b}"), format!("{lo}{a}, {hi}{b}")));
                    }
                }
            }
        }
        let mut versions = Vec::new();
        for major in 0..3 {
            for minor in 0..3 {
                for patch in 0..3 {
                    versions.push(format!("{major}.{minor}.{patch}"));
                    versions.push(format!("{major}.{minor}.{patch}-rc.1"));
                }
            }
        }
        let mut compared = 0;
        for (ours, theirs) in &ranges {
            let Ok(range) = Range::parse(ours) else {
                continue; // `>0`, `>=0.0`: refused by the grammar
            };
            let req = semver::VersionReq::parse(theirs).unwrap();
            for v in &versions {
                let want = req.matches(&semver::Version::parse(v).unwrap());
                let got = match_version(Ecosystem::Cargo, &range, v) == Match::InRange;
                assert_eq!(got, want, "{v} vs {ours} (semver: {theirs})");
                compared += 1;
            }
        }
        assert!(compared > 10_000, "{compared}");
    }
}
