//! Install commands and installers' reports, read as [`Change`]s.
//!
//! - **Commands** ([`changes_in_command`]): `npm i x@1.0.0`, `pnpm add -D
//!   x@^2`, `yarn add x@1`, `bun add x@1`, `pip install 'x==1.0' "y<2"`,
//!   `uv add x==1.0`, `uv pip install x==1.0`, `poetry add x@^1.0`,
//!   `cargo update -p x --precise 1.0.0`, `cargo add x@1.2`, `go get
//!   x@v1.2.3`, `bundle add x --version '~> 1.2'`. A command line is split
//!   at `&&`, `||`, `;` and `|`; each part is read on its own. Only
//!   arguments that name a version count: `npm i x` says nothing.
//! - **Reports** ([`changes_in_report`]): what an installer printed about
//!   what it did — pnpm's `- vitest 4.0.5` / `+ vitest 3.2.4`, uv's `-
//!   x==2.0.0` / `+ x==1.26.18`, cargo's `Updating x v1.0.1 -> v1.0.2` and
//!   `Downgrading …`, go's `go: downgraded x v1.5.0 => v1.4.0`, pip's
//!   `Found existing installation: x 2.0.0` … `Successfully installed
//!   x-1.26.18`.
//!
//! Bounded: at most [`MAX_CHANGES`] changes from one text; quotes are cut
//! at [`super::MAX_QUOTE_CHARS`].

use std::collections::BTreeMap;

use super::{clip, plausible_name, plausible_version, Change, Section, Via, MAX_QUOTE_CHARS};
use crate::version::Ecosystem;

/// The most changes read from one command or report.
pub const MAX_CHANGES: usize = 32;

fn change(
    ecosystem: Ecosystem,
    via: Via,
    section: Option<Section>,
    package: &str,
    from: Option<&str>,
    to: Option<&str>,
    quote: &str,
) -> Option<Change> {
    let ok = |v: Option<&str>| v.is_none_or(plausible_version);
    (plausible_name(package) && ok(from) && ok(to) && (from.is_some() || to.is_some())).then(|| {
        Change {
            ecosystem,
            via,
            section,
            file: None,
            owner: None,
            package: package.to_owned(),
            from: from.map(str::to_owned),
            to: to.map(str::to_owned),
            quote: clip(quote, MAX_QUOTE_CHARS),
            repo: None,
        }
    })
}

/// `name@version` as npm-style tools write it (`@scope/pkg@1.2`).
fn npm_spec(arg: &str) -> Option<(&str, &str)> {
    let at = arg.get(1..)?.rfind('@')? + 1;
    let (name, version) = (&arg[..at], &arg[at + 1..]);
    (!name.is_empty() && !version.is_empty()).then_some((name, version))
}

/// A PEP 508 requirement argument (`x==1.0`, `x[extra]>=2,<3`).
fn pep508(arg: &str) -> Option<(&str, &str)> {
    let end = arg.find(['=', '<', '>', '~', '!', '['])?;
    let name = &arg[..end];
    let spec = match arg[end..].strip_prefix('[') {
        Some(extras) => extras.split_once(']').map(|(_, r)| r)?,
        None => &arg[end..],
    };
    (!name.is_empty() && spec.starts_with(['=', '<', '>', '~', '!'])).then_some((name, spec))
}

/// Reads one simple command (no `&&`).
fn one(cmd: &str, out: &mut Vec<Change>) {
    let Ok(words) = shell_words::split(cmd) else {
        return;
    };
    // Leading `NAME=value` environment assignments are not the program.
    let mut it = words.iter().map(String::as_str).skip_while(|w| {
        w.split_once('=').is_some_and(|(k, _)| {
            !k.is_empty()
                && k.bytes()
                    .all(|b| b.is_ascii_uppercase() || b == b'_' || b.is_ascii_digit())
        })
    });
    let Some(tool) = it.next() else { return };
    let tool = tool.rsplit('/').next().unwrap_or(tool);
    let rest: Vec<&str> = it.collect();
    let verb = rest.first().copied().unwrap_or("");
    let args = || rest.iter().skip(1).copied().filter(|a| !a.starts_with('-'));
    let dev = rest
        .iter()
        .any(|a| matches!(*a, "-D" | "--save-dev" | "--dev" | "-d"));
    let section = Some(if dev {
        Section::Dev
    } else {
        Section::Dependencies
    });
    // A change the command asks for: a package moved to `to`.
    let mut add = |eco: Ecosystem, section: Option<Section>, name: &str, to: &str| {
        if let Some(c) = change(eco, Via::Command, section, name, None, Some(to), cmd) {
            if out.len() < MAX_CHANGES {
                out.push(c);
            }
        }
    };
    match (tool, verb) {
        (
            "npm" | "pnpm" | "yarn" | "bun" | "npx",
            "i" | "install" | "add" | "up" | "update" | "upgrade",
        ) => {
            for a in args() {
                if let Some((name, v)) = npm_spec(a) {
                    add(Ecosystem::Npm, section, name, v);
                }
            }
        }
        ("pip" | "pip3", "install") | ("uv", "add") | ("poetry", "add") => {
            for a in args() {
                if let Some((name, spec)) = pep508(a) {
                    add(Ecosystem::PyPI, section, name, spec);
                } else if tool == "poetry" {
                    if let Some((name, v)) = npm_spec(a) {
                        add(Ecosystem::PyPI, section, name, v);
                    }
                }
            }
        }
        ("uv", "pip") | ("python" | "python3", "-m")
            if rest.get(1) == Some(&"install") || rest.get(2) == Some(&"install") =>
        {
            for a in rest.iter().skip(2).filter(|a| !a.starts_with('-')) {
                if let Some((name, spec)) = pep508(a) {
                    add(Ecosystem::PyPI, section, name, spec);
                }
            }
        }
        ("cargo", "update") => {
            let flag = |f: &str| {
                rest.iter()
                    .position(|a| *a == f)
                    .and_then(|i| rest.get(i + 1))
                    .copied()
            };
            let precise = flag("--precise");
            let package = flag("-p")
                .or_else(|| flag("--package"))
                .or_else(|| args().find(|a| Some(*a) != precise));
            if let (Some(p), Some(v)) = (package, precise) {
                let p = p.split('@').next().unwrap_or(p);
                add(Ecosystem::Cargo, None, p, &format!("={v}"));
            }
        }
        ("cargo", "add") => {
            for a in args() {
                if let Some((name, v)) = npm_spec(a) {
                    add(Ecosystem::Cargo, section, name, v);
                }
            }
        }
        ("go", "get") => {
            for a in args() {
                if let Some((name, v)) = a.rsplit_once('@') {
                    if v.starts_with('v') {
                        add(Ecosystem::Go, None, name, v);
                    }
                }
            }
        }
        ("bundle", "add") => {
            let name = args().next();
            let version = rest
                .iter()
                .position(|a| *a == "--version" || *a == "-v")
                .and_then(|i| rest.get(i + 1));
            if let (Some(n), Some(v)) = (name, version) {
                add(Ecosystem::RubyGems, section, n, v);
            }
        }
        _ => {}
    }
}

/// The version changes a shell command line asks for.
pub fn changes_in_command(line: &str) -> Vec<Change> {
    let mut out = Vec::new();
    let line = clip(line, 4_000);
    for part in line.split(['\n', ';', '|', '&']) {
        let part = part.trim();
        if !part.is_empty() {
            one(part, &mut out);
        }
    }
    out
}

/// The version changes an installer reports having made.
pub fn changes_in_report(text: &str) -> Vec<Change> {
    let mut out: Vec<Change> = Vec::new();
    // pnpm and uv list removals and additions as `- name ver` / `+ name ver`.
    let mut removed: BTreeMap<String, (Ecosystem, String, String)> = BTreeMap::new();
    let mut pip_found: BTreeMap<String, String> = BTreeMap::new();
    for raw in text.lines().take(20_000) {
        if out.len() >= MAX_CHANGES {
            break;
        }
        let line = raw.trim();
        let words: Vec<&str> = line.split_whitespace().collect();
        match words.as_slice() {
            [sign @ ("-" | "+"), spec, rest @ ..] => {
                let (eco, name, version) = match (spec.split_once("=="), rest.first()) {
                    (Some((n, v)), _) => (Ecosystem::PyPI, n, v),
                    (None, Some(v)) if v.starts_with(|c: char| c.is_ascii_digit()) => {
                        (Ecosystem::Npm, *spec, *v)
                    }
                    _ => continue,
                };
                if *sign == "-" {
                    removed.insert(
                        eco.normalize_name(name),
                        (eco, name.to_owned(), version.to_owned()),
                    );
                } else if let Some((e, n, from)) = removed.remove(&eco.normalize_name(name)) {
                    let quote = format!("- {n} {from} / + {name} {version}");
                    out.extend(change(
                        e,
                        Via::Installed,
                        None,
                        name,
                        Some(&from),
                        Some(version),
                        &quote,
                    ));
                }
            }
            // cargo: `Updating serde v1.0.150 -> v1.0.190`, `Downgrading …`.
            [verb @ ("Updating" | "Downgrading" | "Upgrading"), name, from, "->", to]
                if from.starts_with('v') =>
            {
                let quote = format!("{verb} {name} {from} -> {to}");
                out.extend(change(
                    Ecosystem::Cargo,
                    Via::Installed,
                    None,
                    name,
                    Some(&from[1..]),
                    Some(to.trim_start_matches('v')),
                    &quote,
                ));
            }
            // go: `go: downgraded golang.org/x/net v0.17.0 => v0.16.0`.
            ["go:", "downgraded" | "upgraded", name, from, "=>", to] => {
                out.extend(change(
                    Ecosystem::Go,
                    Via::Installed,
                    None,
                    name,
                    Some(from),
                    Some(to),
                    line,
                ));
            }
            ["Found", "existing", "installation:", name, version] => {
                pip_found.insert(Ecosystem::PyPI.normalize_name(name), (*version).to_owned());
            }
            ["Successfully", "installed", installed @ ..] => {
                for spec in installed {
                    let Some((name, version)) = spec.rsplit_once('-') else {
                        continue;
                    };
                    if let Some(from) = pip_found.remove(&Ecosystem::PyPI.normalize_name(name)) {
                        let quote = format!("Found existing installation: {name} {from} … Successfully installed {spec}");
                        out.extend(change(
                            Ecosystem::PyPI,
                            Via::Installed,
                            None,
                            name,
                            Some(&from),
                            Some(version),
                            &quote,
                        ));
                    }
                }
            }
            _ => {}
        }
    }
    out.truncate(MAX_CHANGES);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seen(changes: &[Change]) -> Vec<String> {
        changes
            .iter()
            .map(|c| format!("{} {} {:?} -> {:?}", c.ecosystem, c.package, c.from, c.to))
            .collect()
    }

    #[test]
    fn install_commands() {
        assert_eq!(
            seen(&changes_in_command(
                "npm i @vitejs/plugin-legacy@5.0.0 && npm test"
            )),
            ["npm @vitejs/plugin-legacy None -> Some(\"5.0.0\")"]
        );
        assert_eq!(
            seen(&changes_in_command(
                "pnpm add -D vitest@3.2.4 @vitest/coverage-v8@3.2.4"
            )),
            [
                "npm vitest None -> Some(\"3.2.4\")",
                "npm @vitest/coverage-v8 None -> Some(\"3.2.4\")"
            ]
        );
        assert_eq!(
            seen(&changes_in_command(
                "pip install 'urllib3<2' \"requests==2.31.0\""
            )),
            [
                "pypi urllib3 None -> Some(\"<2\")",
                "pypi requests None -> Some(\"==2.31.0\")"
            ]
        );
        assert_eq!(
            seen(&changes_in_command(
                "cd app; uv pip install pydantic==1.10.13"
            )),
            ["pypi pydantic None -> Some(\"==1.10.13\")"]
        );
        assert_eq!(
            seen(&changes_in_command(
                "cargo update -p serde --precise 1.0.150"
            )),
            ["cargo serde None -> Some(\"=1.0.150\")"]
        );
        assert_eq!(
            seen(&changes_in_command("go get github.com/spf13/cobra@v1.7.0")),
            ["go github.com/spf13/cobra None -> Some(\"v1.7.0\")"]
        );
        assert_eq!(
            seen(&changes_in_command("npm install")),
            Vec::<String>::new()
        );
        assert_eq!(
            seen(&changes_in_command("npm i vite")),
            Vec::<String>::new()
        );
        assert_eq!(
            seen(&changes_in_command("echo 'npm i x@1 '\"")),
            Vec::<String>::new()
        );
    }

    #[test]
    fn installer_reports() {
        let pnpm = "devDependencies:\n- @vitest/coverage-v8 4.0.5\n+ @vitest/coverage-v8 3.2.4\n- vitest 4.0.5\n+ vitest 3.2.4\n\nDone in 6.2s";
        assert_eq!(
            seen(&changes_in_report(pnpm)),
            [
                "npm @vitest/coverage-v8 Some(\"4.0.5\") -> Some(\"3.2.4\")",
                "npm vitest Some(\"4.0.5\") -> Some(\"3.2.4\")"
            ]
        );
        let cargo = "    Updating crates.io index\n    Downgrading memchr v2.7.4 -> v2.6.0\n";
        assert_eq!(
            seen(&changes_in_report(cargo)),
            ["cargo memchr Some(\"2.7.4\") -> Some(\"2.6.0\")"]
        );
        let pip = "Attempting uninstall: urllib3\n    Found existing installation: urllib3 2.0.0\n    Uninstalling urllib3-2.0.0:\nSuccessfully installed urllib3-1.26.18\n";
        assert_eq!(
            seen(&changes_in_report(pip)),
            ["pypi urllib3 Some(\"2.0.0\") -> Some(\"1.26.18\")"]
        );
        let uv = " - urllib3==2.0.0\n + urllib3==1.26.18\n";
        assert_eq!(
            seen(&changes_in_report(uv)),
            ["pypi urllib3 Some(\"2.0.0\") -> Some(\"1.26.18\")"]
        );
        let go = "go: downgraded golang.org/x/net v0.17.0 => v0.16.0\n";
        assert_eq!(
            seen(&changes_in_report(go)),
            ["go golang.org/x/net Some(\"v0.17.0\") -> Some(\"v0.16.0\")"]
        );
    }
}
