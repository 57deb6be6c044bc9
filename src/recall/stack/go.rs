//! Go modules: `go.mod` (its `require` lines are the versions the build
//! selects, after `replace`) and, when there is no usable `go.mod`,
//! `go.sum`.
//!
//! `go.mod`: `require` lines and blocks give `module version`; a `replace`
//! of a required module (all versions, or the one required) substitutes the
//! replacement module and version, and a replacement by a local directory
//! (`=> ../shared`) is the project's own code, left out. Comments (`//`)
//! and the other directives (`module`, `go`, `toolchain`, `exclude`,
//! `retract`, `tool`, `godebug`) are skipped; quoted module paths are read.
//!
//! `go.sum`: lines `module version hash`; lines for a `version/go.mod`
//! only hash a module's `go.mod` (it was not built) and are skipped. A
//! module listed at several versions (old ones linger in go.sum) counts at
//! its highest, the one minimal version selection would pick.
//!
//! All are attributed to the file's directory. This file owns that
//! reading only.

use std::borrow::Cow;
use std::collections::BTreeMap;

use super::{detail, text, Package, StackError};

/// Parses a `go.mod`.
pub fn parse_mod(bytes: &[u8]) -> Result<Vec<Package>, StackError> {
    let text = text(bytes)?;
    let mut requires: Vec<(Cow<str>, Cow<str>)> = Vec::new();
    let mut replaces: Vec<Replace> = Vec::new();
    let mut block: Option<(Cow<str>, usize)> = None;
    let mut saw_module = false;
    for (i, raw) in text.lines().enumerate() {
        let n = i + 1;
        let tokens = tokenize(raw).map_err(|why| StackError::Line {
            line: n,
            why: why.to_owned(),
        })?;
        let Some(first) = tokens.first() else {
            continue;
        };
        let (verb, args): (Cow<str>, &[Cow<str>]) = match &block {
            Some(_) if tokens.len() == 1 && tokens[0] == ")" => {
                block = None;
                continue;
            }
            Some((verb, _)) => (verb.clone(), &tokens[..]),
            None if tokens.len() == 2 && tokens[1] == "(" => {
                block = Some((first.clone(), n));
                continue;
            }
            None => (first.clone(), &tokens[1..]),
        };
        match &*verb {
            "module" => saw_module = true,
            "require" => match args {
                [path, version] => requires.push((path.clone(), version.clone())),
                _ => {
                    return Err(StackError::Line {
                        line: n,
                        why: "expected `require <module> <version>`".to_owned(),
                    })
                }
            },
            "replace" => replaces.push(Replace::parse(args).ok_or_else(|| {
                StackError::Line {
                line: n,
                why: "expected `replace <module> [<version>] => <module or directory> [<version>]`"
                    .to_owned(),
            }
            })?),
            _ => {}
        }
    }
    if let Some((verb, opened)) = block {
        return Err(StackError::Line {
            line: opened,
            why: format!("the `{}` block opened here is never closed", detail(&verb)),
        });
    }
    if !saw_module {
        return Err(StackError::Shape(
            "no `module` line: not a go.mod".to_owned(),
        ));
    }
    let mut out = Vec::new();
    // A module required twice at one version counts once (the scan would
    // drop the copy anyway; dropping it here saves copying it).
    let mut seen = std::collections::HashSet::new();
    for (path, version) in requires {
        if !seen.insert((path.clone(), version.clone())) {
            continue;
        }
        let replaced = replaces
            .iter()
            .find(|r| r.old == path && r.old_version.as_ref().is_none_or(|v| **v == *version));
        match replaced {
            None => out.push(Package::new(&path, &version, ".")),
            // Without a version the replacement is a local directory (Go
            // requires one for a module path): the project's own code.
            Some(r) => {
                if let Some(v) = &r.new_version {
                    out.push(Package::new(&r.new, v, "."));
                }
            }
        }
    }
    Ok(out)
}

struct Replace {
    old: String,
    old_version: Option<String>,
    new: String,
    new_version: Option<String>,
}

impl Replace {
    fn parse(args: &[Cow<str>]) -> Option<Replace> {
        let arrow = args.iter().position(|t| t == "=>")?;
        let (left, right) = (&args[..arrow], &args[arrow + 1..]);
        let (old, old_version) = match left {
            [p] => (p.to_string(), None),
            [p, v] => (p.to_string(), Some(v.to_string())),
            _ => return None,
        };
        let (new, new_version) = match right {
            [p] => (p.to_string(), None),
            [p, v] => (p.to_string(), Some(v.to_string())),
            _ => return None,
        };
        Some(Replace {
            old,
            old_version,
            new,
            new_version,
        })
    }
}

/// Splits a go.mod line into tokens: whitespace-separated words, `"…"` and
/// `` `…` `` strings (unquoted), `//` comments dropped. Words are borrowed
/// from the line; only quoted strings are copied.
fn tokenize(line: &str) -> Result<Vec<Cow<'_, str>>, &'static str> {
    let mut out = Vec::new();
    let mut chars = line.char_indices().peekable();
    while let Some(&(i, c)) = chars.peek() {
        if c.is_whitespace() {
            chars.next();
        } else if line[i..].starts_with("//") {
            break;
        } else if c == '"' || c == '`' {
            chars.next();
            let mut s = String::new();
            let mut closed = false;
            while let Some((_, d)) = chars.next() {
                if d == c {
                    closed = true;
                    break;
                }
                if d == '\\' && c == '"' {
                    if let Some((_, e)) = chars.next() {
                        s.push(e);
                    }
                    continue;
                }
                s.push(d);
            }
            if !closed {
                return Err("a quoted string is not closed");
            }
            out.push(Cow::Owned(s));
        } else {
            let start = i;
            let mut end = line.len();
            while let Some(&(j, d)) = chars.peek() {
                if d.is_whitespace() || line[j..].starts_with("//") {
                    end = j;
                    break;
                }
                chars.next();
            }
            out.push(Cow::Borrowed(&line[start..end]));
        }
    }
    Ok(out)
}

/// Parses a `go.sum`.
pub fn parse_sum(bytes: &[u8]) -> Result<Vec<Package>, StackError> {
    let text = text(bytes)?;
    let mut best: BTreeMap<&str, &str> = BTreeMap::new();
    for (i, raw) in text.lines().enumerate() {
        let fields: Vec<&str> = raw.split_whitespace().collect();
        match fields.as_slice() {
            [] => continue,
            [module, version, hash] if hash.contains(':') => {
                if version.ends_with("/go.mod") {
                    continue;
                }
                let keep = best.get(module).is_none_or(|old| newer(version, old));
                if keep {
                    best.insert(module, version);
                }
            }
            _ => {
                return Err(StackError::Line {
                    line: i + 1,
                    why: "expected `<module> <version> <hash>`".to_owned(),
                })
            }
        }
    }
    Ok(best
        .into_iter()
        .map(|(m, v)| Package::new(m, v, "."))
        .collect())
}

/// Whether Go version `a` sorts after `b` (SemVer precedence); versions
/// that do not parse never replace one that does.
fn newer(a: &str, b: &str) -> bool {
    let parse = |s: &str| {
        s.strip_prefix('v')
            .and_then(|s| semver::Version::parse(s).ok())
    };
    match (parse(a), parse(b)) {
        (Some(a), Some(b)) => a.cmp_precedence(&b) == std::cmp::Ordering::Greater,
        (Some(_), None) => true,
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::super::testutil::{golden, survives_garbage};
    use super::*;

    #[test]
    fn go_mod_requires_after_replace() {
        golden(
            parse_mod,
            "go.mod",
            &[
                "github.com/acme/uuid v1.6.1-acme.1 .",
                "github.com/docker/docker v26.1.0+incompatible .",
                "github.com/gin-gonic/gin v1.9.1 .",
                "github.com/pkg/errors v0.9.1 .",
                "github.com/quoted/module v0.3.0 .",
                "github.com/stretchr/testify v1.9.0 .",
                "golang.org/x/exp v0.0.0-20240506185415-9bf2ced13842 .",
                "gopkg.in/yaml.v3 v3.0.1 .",
            ],
        );
    }

    #[test]
    fn go_sum_highest_built_version() {
        golden(
            parse_sum,
            "go.sum",
            &[
                "github.com/gin-gonic/gin v1.9.1 .",
                "github.com/google/uuid v1.6.0 .",
                "github.com/pkg/errors v0.9.1 .",
                "golang.org/x/exp v0.0.0-20240506185415-9bf2ced13842 .",
                "gopkg.in/yaml.v3 v3.0.1 .",
            ],
        );
    }

    #[test]
    fn local_replacements_are_the_project() {
        let m = b"module x\nrequire github.com/a/b v1.0.0\nreplace github.com/a/b => ../b\n";
        assert_eq!(parse_mod(m).unwrap(), vec![]);
        let v = b"module x\nrequire a/b v1.0.0\nreplace a/b v0.9.0 => c/d v2.0.0\n";
        assert_eq!(
            parse_mod(v).unwrap(),
            vec![Package::new("a/b", "v1.0.0", ".")]
        );
    }

    #[test]
    fn broken_files_are_clear_errors() {
        let e = |s: &str| parse_mod(s.as_bytes()).unwrap_err().to_string();
        assert_eq!(
            e("module x\nrequire (\n  a v1\n"),
            "line 2: the `require` block opened here is never closed"
        );
        assert_eq!(
            e("module x\nrequire a\n"),
            "line 2: expected `require <module> <version>`"
        );
        assert_eq!(e("module \"x\n"), "line 1: a quoted string is not closed");
        assert_eq!(
            e("module x\nreplace a b\n"),
            "line 2: expected `replace <module> [<version>] => <module or directory> [<version>]`"
        );
        assert_eq!(
            e("require a v1.0.0\n"),
            "unexpected content: no `module` line: not a go.mod"
        );
        let s = |s: &str| parse_sum(s.as_bytes()).unwrap_err().to_string();
        assert_eq!(
            s("a v1.0.0\n"),
            "line 1: expected `<module> <version> <hash>`"
        );
        assert_eq!(
            s("a v1 h1:x extra\n"),
            "line 1: expected `<module> <version> <hash>`"
        );
    }

    #[test]
    fn tokens() {
        assert_eq!(
            tokenize("require a v1 // indirect").unwrap(),
            ["require", "a", "v1"]
        );
        assert_eq!(tokenize("\"a b\" `c`").unwrap(), ["a b", "c"]);
        assert_eq!(tokenize("x//y").unwrap(), ["x"]);
    }

    #[test]
    fn garbage_never_panics() {
        survives_garbage(parse_mod, "go.mod");
        survives_garbage(parse_sum, "go.sum");
    }
}
