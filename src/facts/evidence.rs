//! Whether a candidate agrees with the facts it came from.
//!
//! A model, a person or a rule may write a lesson's scope; the facts say
//! which packages are involved, which versions were broken and which
//! version resolved it. A candidate disagrees with its evidence when:
//!
//! - a stack entry or `versions` key names a package no fact names
//!   ([`Disagreement::Absent`]);
//! - a range admits none of the versions the evidence shows broken for
//!   that package ([`Disagreement::MissesBroken`]): the lesson would not
//!   be recalled where the problem was seen;
//! - a range admits the version the evidence shows resolved it
//!   ([`Disagreement::AdmitsFixed`]): the lesson would be recalled for the
//!   fix.
//!
//! With no facts there is nothing to disagree with. Versions compare as
//! release tuples (`crate::version::Range::matches`' reading, partial
//! bounds as prefixes).
//!
//! Pure: no I/O.

use std::collections::BTreeMap;

use super::lesson::{key, Template};
use super::prose::canonical;
use super::{Fact, Requirement};
use crate::version::declared::{admits, release_point};
use crate::version::{split_key, Interval, Range};

/// One way a candidate contradicts its evidence.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Disagreement {
    #[error("{0:?} is not a package the evidence names")]
    Absent(String),
    #[error(
        "the range {range:?} for {key} leaves out {version}, the version the evidence shows broken"
    )]
    MissesBroken {
        key: String,
        range: String,
        version: String,
    },
    #[error("the range {range:?} for {key} takes in {version}, the version that resolved it")]
    AdmitsFixed {
        key: String,
        range: String,
        version: String,
    },
}

/// A package name in the one form two spellings must share.
fn norm(name: &str) -> String {
    let (_, bare) = split_key(name);
    crate::version::coarse_name(&canonical(bare))
}

/// What the facts show per package: versions broken, versions that work.
#[derive(Default, Debug)]
struct Shown {
    broken: Vec<String>,
    fixed: Vec<String>,
}

fn shown(facts: &[Fact]) -> BTreeMap<String, Shown> {
    let mut out: BTreeMap<String, Shown> = BTreeMap::new();
    let reqs: Vec<&Requirement> = facts
        .iter()
        .filter_map(|f| match f {
            Fact::Requirement(r) => Some(r),
            _ => None,
        })
        .collect();
    for r in &reqs {
        let (Some(required), Some(found), Some(by)) =
            (r.required.as_deref(), r.found.as_deref(), r.by.as_ref())
        else {
            continue;
        };
        let Ok(d) = crate::version::declared::Declared::parse(r.ecosystem, required) else {
            continue;
        };
        let Some(fp) = release_point(found) else {
            continue;
        };
        if d.contains(&fp) {
            continue;
        }
        out.entry(norm(&r.package))
            .or_default()
            .broken
            .push(found.trim_start_matches('v').to_owned());
        if let Some(v) = by.version.as_deref().filter(|v| release_point(v).is_some()) {
            out.entry(norm(&by.name))
                .or_default()
                .broken
                .push(v.trim_start_matches('v').to_owned());
        }
    }
    // What resolved it: the draft's own reading of the remedy.
    if let Ok(d) = super::lesson::draft(facts, None) {
        if d.template == Template::Conflict {
            for f in facts {
                if let Fact::Change(c) = f {
                    let Some(to) = c.to.as_deref() else { continue };
                    let v = to.trim_start_matches(['=', 'v', '^', '~']).trim();
                    if release_point(v).is_none()
                        || !v.chars().all(|ch| ch.is_ascii_digit() || ch == '.')
                    {
                        continue;
                    }
                    let k = norm(&c.package);
                    if out.contains_key(&k) {
                        out.entry(k).or_default().fixed.push(v.to_owned());
                    }
                }
            }
        }
    }
    out
}

/// Everything about `stack` and `versions` the facts contradict.
pub fn check(
    facts: &[Fact],
    stack: &[String],
    versions: &BTreeMap<String, String>,
) -> Vec<Disagreement> {
    if facts.is_empty() {
        return Vec::new();
    }
    let named: Vec<String> = facts.iter().flat_map(|f| f.packages()).map(norm).collect();
    let mut out = Vec::new();
    let mut keys: Vec<&String> = stack.iter().collect();
    for k in versions.keys() {
        if !keys.contains(&k) {
            keys.push(k);
        }
    }
    for k in keys {
        if !named.contains(&norm(k)) {
            out.push(Disagreement::Absent(k.clone()));
        }
    }
    let shown = shown(facts);
    for (k, range) in versions {
        let Some(s) = shown.get(&norm(k)) else {
            continue;
        };
        let Ok(r) = Range::parse(range) else { continue };
        let interval = Interval::of(&r);
        let takes = |v: &str| release_point(v).is_some_and(|p| admits(&interval, &p));
        if !s.broken.is_empty() && !s.broken.iter().any(|v| takes(v)) {
            out.push(Disagreement::MissesBroken {
                key: k.clone(),
                range: range.clone(),
                version: s.broken[0].clone(),
            });
        }
        if let Some(v) = s.fixed.iter().find(|v| takes(v)) {
            out.push(Disagreement::AdmitsFixed {
                key: k.clone(),
                range: range.clone(),
                version: v.clone(),
            });
        }
    }
    out
}

/// The stack key a fact's package has (for callers that show it).
pub fn key_of(r: &Requirement) -> String {
    key(r.ecosystem, &r.package)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::facts::{command, resolver};

    fn facts() -> Vec<Fact> {
        let text = std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/fixtures/resolver/npm-error-plugin-legacy-vite7.txt"
        ))
        .unwrap();
        let mut f: Vec<Fact> = resolver::requirements(&text)
            .into_iter()
            .map(Fact::Requirement)
            .collect();
        f.extend(
            command::changes_in_command("npm i -D @vitejs/plugin-legacy@7.0.0")
                .into_iter()
                .map(Fact::Change),
        );
        f
    }

    fn v(list: &[(&str, &str)]) -> BTreeMap<String, String> {
        list.iter()
            .map(|(a, b)| ((*a).to_owned(), (*b).to_owned()))
            .collect()
    }

    #[test]
    fn the_drafted_scope_agrees() {
        let d = crate::facts::lesson::draft(&facts(), None).unwrap();
        assert_eq!(check(&facts(), &d.stack, &d.versions), []);
    }

    #[test]
    fn absent_packages_and_wrong_ranges_disagree() {
        let stack = vec!["vite".to_owned(), "lodash".to_owned()];
        assert_eq!(
            check(&facts(), &stack, &v(&[("vite", ">=7")])),
            [Disagreement::Absent("lodash".into())]
        );
        let stack = vec!["vite".to_owned(), "@vitejs/plugin-legacy".to_owned()];
        assert_eq!(
            check(
                &facts(),
                &stack,
                &v(&[("vite", "<7"), ("@vitejs/plugin-legacy", "<8")])
            ),
            [
                Disagreement::AdmitsFixed {
                    key: "@vitejs/plugin-legacy".into(),
                    range: "<8".into(),
                    version: "7.0.0".into()
                },
                Disagreement::MissesBroken {
                    key: "vite".into(),
                    range: "<7".into(),
                    version: "7.1.11".into()
                },
            ]
        );
        assert_eq!(
            Disagreement::AdmitsFixed {
                key: "x".into(),
                range: "<8".into(),
                version: "7.0.0".into()
            }
            .to_string(),
            "the range \"<8\" for x takes in 7.0.0, the version that resolved it"
        );
        assert_eq!(check(&[], &stack, &v(&[("anything", "<1")])), []);
    }
}
