//! The package ecosystems recall knows, and how each one spells and
//! compares package names.
//!
//! This file owns the [`Ecosystem`] enum, its text form, and name
//! normalisation. It does not parse versions (see `parse.rs`).

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// Why a string is not an ecosystem name.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum EcosystemError {
    /// A name other than the six below.
    #[error("unknown ecosystem {0:?}; expected one of: npm, cargo, pypi, go, rubygems, composer")]
    Unknown(String),
}

/// A package ecosystem: where a lockfile's packages come from, and so which
/// version syntax, ordering and name rules apply to them.
///
/// Name normalisation ([`Ecosystem::normalize_name`]) is what two names must
/// agree on to be the same package:
///
/// | ecosystem | rule |
/// |---|---|
/// | `npm` | ASCII lower-case. The registry refuses new names with capitals, and names that differ from an existing one only in case; old mixed-case names (`JSONStream`) still match a lesson that spells them in lower case. |
/// | `cargo` | ASCII lower-case, `_` read as `-`. crates.io refuses a crate whose name differs from an existing one only in case or in `-`/`_`, so this never merges two crates. |
/// | `pypi` | PEP 503: lower-case, every run of `-`, `_` and `.` becomes one `-`. |
/// | `go` | exact. Module paths are case-sensitive (`github.com/BurntSushi/toml` is not `github.com/burntsushi/toml`). |
/// | `rubygems` | exact. Gem names are case-sensitive and `-` and `_` are distinct. |
/// | `composer` | ASCII lower-case. Packagist names are `vendor/package` in lower case. |
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Ecosystem {
    Npm,
    Cargo,
    PyPI,
    Go,
    RubyGems,
    Composer,
}

impl Ecosystem {
    /// Every ecosystem, in a fixed order.
    pub const ALL: [Ecosystem; 6] = [
        Ecosystem::Npm,
        Ecosystem::Cargo,
        Ecosystem::PyPI,
        Ecosystem::Go,
        Ecosystem::RubyGems,
        Ecosystem::Composer,
    ];

    /// The lower-case name used in `--stack pypi:requests@2.31.0`, in lesson
    /// keys such as `pypi:requests`, and in JSON.
    pub fn as_str(self) -> &'static str {
        match self {
            Ecosystem::Npm => "npm",
            Ecosystem::Cargo => "cargo",
            Ecosystem::PyPI => "pypi",
            Ecosystem::Go => "go",
            Ecosystem::RubyGems => "rubygems",
            Ecosystem::Composer => "composer",
        }
    }

    /// The form two names of this ecosystem must share to name the same
    /// package (see the table on [`Ecosystem`]).
    pub fn normalize_name(self, name: &str) -> String {
        match self {
            Ecosystem::Npm | Ecosystem::Composer => name.to_ascii_lowercase(),
            Ecosystem::Cargo => name
                .chars()
                .map(|c| {
                    if c == '_' {
                        '-'
                    } else {
                        c.to_ascii_lowercase()
                    }
                })
                .collect(),
            Ecosystem::PyPI => pep503(name),
            Ecosystem::Go | Ecosystem::RubyGems => name.to_owned(),
        }
    }
}

/// The name rule for a package whose ecosystem is not known (a `--stack`
/// override without a prefix, for a package no lockfile lists): ASCII
/// lower-case.
pub fn normalize_generic(name: &str) -> String {
    name.to_ascii_lowercase()
}

/// The coarsest name form: PEP 503's (lower-case, runs of `-`, `_`, `.`
/// become one `-`), applied to a name of any ecosystem, after any
/// ecosystem prefix is removed. Every ecosystem's rule is finer: two names
/// one ecosystem calls the same always share this form. So it is the key
/// for an index from package names to lessons: look up the coarse form of
/// each installed name, then let recall apply the exact rule.
pub fn coarse_name(name: &str) -> String {
    pep503(split_key(name).1)
}

/// PEP 503 normalisation: lower-case, runs of `-`, `_`, `.` become one `-`.
fn pep503(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    let mut in_run = false;
    for c in name.chars() {
        if matches!(c, '-' | '_' | '.') {
            if !in_run {
                out.push('-');
            }
            in_run = true;
        } else {
            out.push(c.to_ascii_lowercase());
            in_run = false;
        }
    }
    out
}

/// Splits an optional ecosystem prefix off a lesson's `versions` key or a
/// `stack` entry: `pypi:requests` names only the PyPI package, `requests`
/// names a package of that name in any ecosystem. A prefix that is not an
/// ecosystem name is part of the name (no ecosystem's package names
/// contain `:`, so nothing real is lost).
pub fn split_key(key: &str) -> (Option<Ecosystem>, &str) {
    match key.split_once(':') {
        Some((prefix, rest)) if !rest.is_empty() => match prefix.parse() {
            Ok(eco) => (Some(eco), rest),
            Err(_) => (None, key),
        },
        _ => (None, key),
    }
}

impl FromStr for Ecosystem {
    type Err = EcosystemError;
    fn from_str(s: &str) -> Result<Ecosystem, EcosystemError> {
        Ecosystem::ALL
            .into_iter()
            .find(|e| e.as_str() == s)
            .ok_or_else(|| EcosystemError::Unknown(s.chars().take(32).collect()))
    }
}

impl fmt::Display for Ecosystem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for Ecosystem {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for Ecosystem {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Ecosystem, D::Error> {
        let s = String::deserialize(d)?;
        s.parse().map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_normalise_per_ecosystem() {
        let table: &[(Ecosystem, &str, &str)] = &[
            (Ecosystem::PyPI, "Django", "django"),
            (Ecosystem::PyPI, "zope.interface", "zope-interface"),
            (Ecosystem::PyPI, "typing_extensions", "typing-extensions"),
            (Ecosystem::PyPI, "Foo.-_Bar", "foo-bar"),
            (Ecosystem::PyPI, "a__b", "a-b"),
            (Ecosystem::Cargo, "serde_json", "serde-json"),
            (Ecosystem::Cargo, "Inflector", "inflector"),
            (Ecosystem::Npm, "JSONStream", "jsonstream"),
            (Ecosystem::Npm, "@Scope/Pkg_x", "@scope/pkg_x"),
            (Ecosystem::Npm, "lodash.merge", "lodash.merge"),
            (
                Ecosystem::Go,
                "github.com/BurntSushi/toml",
                "github.com/BurntSushi/toml",
            ),
            (Ecosystem::RubyGems, "Ascii85", "Ascii85"),
            (Ecosystem::RubyGems, "net-http", "net-http"),
            (Ecosystem::Composer, "Symfony/Console", "symfony/console"),
        ];
        for &(eco, name, want) in table {
            assert_eq!(eco.normalize_name(name), want, "{eco} {name}");
        }
        // Distinct packages stay distinct.
        assert_ne!(
            Ecosystem::RubyGems.normalize_name("net-http"),
            Ecosystem::RubyGems.normalize_name("net_http")
        );
        assert_ne!(
            Ecosystem::Npm.normalize_name("lodash.merge"),
            Ecosystem::Npm.normalize_name("lodash-merge")
        );
    }

    #[test]
    fn ecosystem_names_round_trip_and_refuse_others() {
        for eco in Ecosystem::ALL {
            assert_eq!(eco.as_str().parse::<Ecosystem>(), Ok(eco));
            let json = serde_json::to_string(&eco).unwrap();
            assert_eq!(serde_json::from_str::<Ecosystem>(&json).unwrap(), eco);
        }
        assert_eq!(
            "PyPI".parse::<Ecosystem>().unwrap_err().to_string(),
            "unknown ecosystem \"PyPI\"; expected one of: npm, cargo, pypi, go, rubygems, composer"
        );
    }

    #[test]
    fn coarse_names_are_coarser_than_every_rule() {
        let names = [
            "Django",
            "django",
            "zope.interface",
            "zope-interface",
            "zope_interface",
            "serde_json",
            "serde-json",
            "JSONStream",
            "jsonstream",
            "lodash.merge",
            "lodash-merge",
            "@Scope/Pkg",
            "@scope/pkg",
            "github.com/BurntSushi/toml",
            "github.com/burntsushi/toml",
            "net-http",
            "net_http",
            "Symfony/Console",
        ];
        for eco in Ecosystem::ALL {
            for a in names {
                for b in names {
                    if eco.normalize_name(a) == eco.normalize_name(b) {
                        assert_eq!(coarse_name(a), coarse_name(b), "{eco}: {a} ~ {b}");
                    }
                }
            }
        }
        for a in names {
            for b in names {
                if normalize_generic(a) == normalize_generic(b) {
                    assert_eq!(coarse_name(a), coarse_name(b));
                }
            }
        }
        assert_eq!(coarse_name("pypi:Zope.Interface"), "zope-interface");
    }

    #[test]
    fn keys_may_name_their_ecosystem() {
        assert_eq!(
            split_key("pypi:requests"),
            (Some(Ecosystem::PyPI), "requests")
        );
        assert_eq!(split_key("requests"), (None, "requests"));
        assert_eq!(split_key("@scope/pkg"), (None, "@scope/pkg"));
        assert_eq!(split_key("weird:name"), (None, "weird:name"));
        assert_eq!(split_key("npm:"), (None, "npm:"));
    }
}
