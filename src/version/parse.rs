//! Installed versions, as each ecosystem spells them, read into one shape
//! recall can compare with a lesson range: a release tuple, a
//! pre-release, or something that cannot be ordered against a release.
//!
//! | ecosystem | syntax read | library |
//! |---|---|---|
//! | npm, Cargo | SemVer 2.0 exactly as lockfiles write it (`5.4.21`, `6.0.0-beta.3`, `+build` ignored); no `v`, no partial versions | `semver` |
//! | PyPI | PEP 440, normalised (`1.0`, `2.0rc1`, `1.0.post1`, `1.0.dev3`, `1!2.0`, `1.0+local`) | `pep440_rs` |
//! | Go | module versions: `v` + SemVer, `+incompatible`, pseudo-versions | `semver` + the pseudo-version rule below |
//! | RubyGems | `Gem::Version`: dot-separated segments; any letter (or `-`) makes a pre-release (`1.0.0.pre`, `2.0.0.rc1`) | by hand |
//! | Composer | Composer's `VersionParser`: optional `v`, up to four numbers, stability suffix `alpha`/`a`, `beta`/`b`, `RC`, `patch`/`pl`/`p`, `-dev`; branches (`dev-main`, `2.x-dev`) | by hand |
//!
//! This file owns that reading only; `matching.rs` decides what a reading
//! means for a range.

use std::str::FromStr;

use super::ecosystem::Ecosystem;
use super::interval::Point;

/// An installed version, read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Reading {
    /// A release, or a post-release of `point` (PEP 440 `.postN`, Composer
    /// `-pN`): after `point`, before the next release.
    Release { point: Point, post: bool },
    /// A pre-release or development release of some version.
    PreRelease,
    /// Cannot be ordered against a release bound; the text says why and
    /// reads after the installed version (`is a Go pseudo-version, …`).
    Unordered(String),
}

/// The longest installed-version text read; longer ones are unordered.
const MAX_VERSION_CHARS: usize = 128;

/// Reads `installed` by `eco`'s rules.
pub(crate) fn read(eco: Ecosystem, installed: &str) -> Reading {
    if installed.is_empty() {
        return Reading::Unordered("is empty, not a version".to_owned());
    }
    if installed.len() > MAX_VERSION_CHARS {
        return Reading::Unordered(format!(
            "is longer than {MAX_VERSION_CHARS} characters, not a version"
        ));
    }
    match eco {
        Ecosystem::Npm | Ecosystem::Cargo => read_semver(eco, installed),
        Ecosystem::PyPI => read_pep440(installed),
        Ecosystem::Go => read_go(installed),
        Ecosystem::RubyGems => read_gem(installed),
        Ecosystem::Composer => read_composer(installed),
    }
}

fn semver_reading(v: &semver::Version) -> Reading {
    if !v.pre.is_empty() {
        return Reading::PreRelease;
    }
    Reading::Release {
        point: Point::from_digits(&[
            v.major.to_string(),
            v.minor.to_string(),
            v.patch.to_string(),
        ]),
        post: false,
    }
}

fn read_semver(eco: Ecosystem, s: &str) -> Reading {
    match semver::Version::parse(s) {
        Ok(v) => semver_reading(&v),
        Err(_) => Reading::Unordered(format!("is not a valid {eco} (SemVer) version")),
    }
}

fn read_pep440(s: &str) -> Reading {
    let v = match pep440_rs::Version::from_str(s) {
        Ok(v) => v,
        Err(_) => return Reading::Unordered("is not a valid PEP 440 version".to_owned()),
    };
    if v.epoch() != 0 {
        return Reading::Unordered(format!(
            "has PEP 440 epoch {}, and lesson ranges name epoch-0 versions only",
            v.epoch()
        ));
    }
    if v.any_prerelease() {
        return Reading::PreRelease;
    }
    let parts: Vec<String> = v.release().iter().map(u64::to_string).collect();
    Reading::Release {
        point: Point::from_digits(&parts),
        post: v.is_post(),
    }
}

/// Go's pseudo-version rule: the pre-release ends in a 14-digit UTC
/// timestamp and a commit hash, and is either just those
/// (`v0.0.0-20191109021931-daa7c04131f5`), or follows `0.`
/// (`v1.2.4-0.20191109021931-daa7c04131f5`, after v1.2.3) or `<pre>.0.`
/// (`v1.2.3-pre.0.20191109021931-daa7c04131f5`).
fn is_pseudo(pre: &str) -> bool {
    let Some((head, hash)) = pre.rsplit_once('-') else {
        return false;
    };
    if hash.is_empty() || !hash.bytes().all(|b| b.is_ascii_alphanumeric()) {
        return false;
    }
    if head.len() < 14 {
        return false;
    }
    let (before, stamp) = head.split_at(head.len() - 14);
    stamp.bytes().all(|b| b.is_ascii_digit())
        && (before.is_empty() || before == "0." || before.ends_with(".0."))
}

fn read_go(s: &str) -> Reading {
    let Some(body) = s.strip_prefix('v') else {
        return Reading::Unordered("is not a Go module version (no leading v)".to_owned());
    };
    match semver::Version::parse(body) {
        Ok(v) if is_pseudo(v.pre.as_str()) => Reading::Unordered(
            "is a Go pseudo-version (an untagged commit), which cannot be compared with a release bound"
                .to_owned(),
        ),
        Ok(v) => semver_reading(&v),
        Err(_) => Reading::Unordered("is not a valid Go module version".to_owned()),
    }
}

fn read_gem(s: &str) -> Reading {
    let valid = s
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || b == b'.' || b == b'-')
        && s.as_bytes()[0].is_ascii_digit();
    if !valid || s.split('.').any(str::is_empty) {
        return Reading::Unordered("is not a valid RubyGems version".to_owned());
    }
    if s.bytes().any(|b| b.is_ascii_alphabetic() || b == b'-') {
        return Reading::PreRelease;
    }
    let parts: Vec<&str> = s.split('.').collect();
    Reading::Release {
        point: Point::from_digits(&parts),
        post: false,
    }
}

fn read_composer(s: &str) -> Reading {
    let lower = s.to_ascii_lowercase();
    let branch = || {
        Reading::Unordered(
            "is a Composer development branch, not a release, so it has no place in a version order"
                .to_owned(),
        )
    };
    if lower.starts_with("dev-") {
        return branch();
    }
    let body = lower.strip_prefix('v').unwrap_or(&lower);
    // Up to four numeric components.
    let mut parts: Vec<&str> = Vec::new();
    let mut rest = body;
    loop {
        let n = rest.bytes().take_while(u8::is_ascii_digit).count();
        if n == 0 {
            break;
        }
        parts.push(&rest[..n]);
        rest = &rest[n..];
        if parts.len() == 4 {
            break;
        }
        match rest.strip_prefix('.') {
            Some(r) if r.bytes().next().is_some_and(|b| b.is_ascii_digit()) => rest = r,
            _ => break,
        }
    }
    if parts.is_empty() {
        return if lower.ends_with("-dev") {
            branch()
        } else {
            Reading::Unordered("is not a valid Composer version".to_owned())
        };
    }
    let point = Point::from_digits(&parts);
    if rest.is_empty() {
        return Reading::Release { point, post: false };
    }
    if rest.ends_with(".x-dev") || rest == ".x-dev" || rest.contains(".x") {
        return branch();
    }
    let rest = rest.strip_prefix(['.', '-', '_']).unwrap_or(rest);
    let (rest, dev) = match rest.strip_suffix("dev") {
        Some(r) => (r.strip_suffix(['.', '-']).unwrap_or(r), true),
        None => (rest, false),
    };
    let word_len = rest.bytes().take_while(u8::is_ascii_alphabetic).count();
    let (word, number) = rest.split_at(word_len);
    let number_ok = number
        .trim_start_matches(['.', '-'])
        .split(['.', '-'])
        .all(|p| p.is_empty() || p.bytes().all(|b| b.is_ascii_digit()));
    if !number_ok {
        return Reading::Unordered("is not a valid Composer version".to_owned());
    }
    match word {
        "" | "stable" if !dev => Reading::Release { point, post: false },
        "" | "stable" => Reading::PreRelease,
        "alpha" | "a" | "beta" | "b" | "rc" => Reading::PreRelease,
        "patch" | "pl" | "p" if !dev => Reading::Release { point, post: true },
        "patch" | "pl" | "p" => Reading::PreRelease,
        _ => Reading::Unordered("is not a valid Composer version".to_owned()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rel(parts: &[&str], post: bool) -> Reading {
        Reading::Release {
            point: Point::from_digits(parts),
            post,
        }
    }

    fn unordered(r: &Reading) -> bool {
        matches!(r, Reading::Unordered(_))
    }

    #[test]
    fn semver_for_npm_and_cargo() {
        for eco in [Ecosystem::Npm, Ecosystem::Cargo] {
            assert_eq!(read(eco, "5.4.21"), rel(&["5", "4", "21"], false));
            assert_eq!(read(eco, "5.4.21+build.7"), rel(&["5", "4", "21"], false));
            assert_eq!(read(eco, "6.0.0-beta.3"), Reading::PreRelease);
            for bad in ["v5.4.21", "5.4", "5", "latest", "git+ssh://x#y", "5.4.21 "] {
                assert!(unordered(&read(eco, bad)), "{eco} {bad}");
            }
        }
    }

    #[test]
    fn pep440_for_pypi() {
        let p = Ecosystem::PyPI;
        assert_eq!(read(p, "2.31.0"), rel(&["2", "31", "0"], false));
        assert_eq!(read(p, "2.31"), rel(&["2", "31"], false));
        assert_eq!(read(p, "v2.31"), rel(&["2", "31"], false));
        assert_eq!(read(p, "1.0.post1"), rel(&["1", "0"], true));
        assert_eq!(read(p, "1.0-1"), rel(&["1", "0"], true));
        assert_eq!(read(p, "2.1.0+cu121"), rel(&["2", "1", "0"], false));
        for pre in [
            "2.0rc1",
            "2.0.0b2",
            "1.0a1",
            "1.0.dev3",
            "1.0c1",
            "1.0.post1.dev2",
        ] {
            assert_eq!(read(p, pre), Reading::PreRelease, "{pre}");
        }
        match read(p, "1!2.0") {
            Reading::Unordered(why) => assert!(why.contains("epoch 1"), "{why}"),
            other => panic!("{other:?}"),
        }
        assert!(unordered(&read(p, "not.a.version")));
        assert!(unordered(&read(p, "1.0+")));
    }

    #[test]
    fn go_module_versions() {
        let g = Ecosystem::Go;
        assert_eq!(read(g, "v1.9.1"), rel(&["1", "9", "1"], false));
        assert_eq!(read(g, "v2.0.0+incompatible"), rel(&["2", "0", "0"], false));
        assert_eq!(read(g, "v1.2.3-rc.1"), Reading::PreRelease);
        for pseudo in [
            "v0.0.0-20191109021931-daa7c04131f5",
            "v1.2.4-0.20191109021931-daa7c04131f5",
            "v1.2.3-pre.0.20191109021931-daa7c04131f5",
            "v0.0.0-20191109021931-daa7c04131f5+incompatible",
        ] {
            match read(g, pseudo) {
                Reading::Unordered(why) => assert!(why.contains("pseudo-version"), "{why}"),
                other => panic!("{pseudo}: {other:?}"),
            }
        }
        assert!(is_pseudo("20191109021931-daa7c04131f5"));
        assert!(!is_pseudo("rc.20191109021931-daa7c04131f5"));
        assert!(!is_pseudo("2019110902193-daa7c04131f5"));
        assert!(unordered(&read(g, "1.9.1")));
        assert!(unordered(&read(g, "v1.9")));
    }

    #[test]
    fn rubygems_versions() {
        let r = Ecosystem::RubyGems;
        assert_eq!(read(r, "7.1.3"), rel(&["7", "1", "3"], false));
        assert_eq!(read(r, "7.1.3.4"), rel(&["7", "1", "3", "4"], false));
        assert_eq!(read(r, "2"), rel(&["2"], false));
        for pre in ["1.0.0.pre", "2.0.0.rc1", "1.0.0-rc1", "1.a", "8.0.0.beta1"] {
            assert_eq!(read(r, pre), Reading::PreRelease, "{pre}");
        }
        for bad in ["", ".1", "1..2", "x1", "1.0 ", "1_0"] {
            assert!(unordered(&read(r, bad)), "{bad}");
        }
    }

    #[test]
    fn composer_versions() {
        let c = Ecosystem::Composer;
        assert_eq!(read(c, "v6.4.3"), rel(&["6", "4", "3"], false));
        assert_eq!(read(c, "2.0.0"), rel(&["2", "0", "0"], false));
        assert_eq!(read(c, "1.2.3.4"), rel(&["1", "2", "3", "4"], false));
        assert_eq!(read(c, "1.0.0-p1"), rel(&["1", "0", "0"], true));
        assert_eq!(read(c, "1.0.0-patch2"), rel(&["1", "0", "0"], true));
        assert_eq!(read(c, "1.0.0-stable"), rel(&["1", "0", "0"], false));
        for pre in [
            "1.0.0-beta1",
            "1.0.0-RC2",
            "v2.0.0-alpha.3",
            "1.0.0b2",
            "1.2.3-dev",
        ] {
            assert_eq!(read(c, pre), Reading::PreRelease, "{pre}");
        }
        for branch in ["dev-main", "dev-feature/x", "2.x-dev", "1.0.x-dev"] {
            match read(c, branch) {
                Reading::Unordered(why) => assert!(why.contains("branch"), "{branch}: {why}"),
                other => panic!("{branch}: {other:?}"),
            }
        }
        assert!(unordered(&read(c, "latest")));
        assert!(unordered(&read(c, "1.0.0-gamma")));
    }

    #[test]
    fn overlong_and_empty_versions_are_unordered() {
        for eco in Ecosystem::ALL {
            assert!(unordered(&read(eco, "")));
            assert!(unordered(&read(eco, &"1".repeat(200))));
        }
    }
}
