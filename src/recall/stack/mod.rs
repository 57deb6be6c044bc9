//! Stack detection: what a project has installed, from its lockfiles and
//! manifests.
//!
//! One parser per format, each a pure `parse(bytes) -> Result<Vec<Package>,
//! StackError>` that refuses inputs over [`MAX_LOCKFILE_BYTES`], text that
//! is not UTF-8, and content of the wrong shape, with a message that says
//! what is wrong and never a panic. [`Format`] names the formats and picks
//! the parser for a file name; [`locate`] finds the project a directory is
//! in; [`scan()`] reads a project and the workspace members its manifests
//! declare ([`members`]) and applies them; [`overrides`] merges `--stack
//! NAME@VERSION` entries in.
//!
//! Every parser is bounded: [`MAX_LOCKFILE_BYTES`] (manifests
//! [`MAX_MANIFEST_BYTES`]), [`MAX_DEPTH`] levels of nesting for the
//! structured formats (checked before parsing: `depth`, and serde-saphyr's
//! budget for YAML), and for YAML a node and alias budget; past one it
//! refuses with [`StackError::TooLarge`], [`StackError::TooDeep`] or
//! [`StackError::OverBudget`]. The line-based formats (requirements,
//! `go.mod`, `go.sum`, `Gemfile.lock`, `go.work`) do not nest: one pass over
//! the lines, linear in the size.
//!
//! What a parser reports: packages installed from somewhere (a registry, a
//! git repository, a URL), with the version the lockfile pins. It leaves
//! out the project's own packages (the root, workspace members, path and
//! link dependencies): they are the project, not its stack. Each package
//! carries the workspace it belongs to, as a directory relative to the
//! lockfile (`.` for the lockfile's own directory), when the format says
//! (npm's nested `node_modules`, pnpm importers, Yarn Berry and bun
//! workspaces); otherwise `.`.
//!
//! This module does not compare versions (see `crate::version`) or decide
//! which lessons apply (see `crate::recall::select`).

pub mod bun;
pub mod cargo;
pub mod composer;
mod depth;
pub mod gemfile;
pub mod go;
pub mod members;
pub mod npm;
pub mod overrides;
pub mod pnpm;
pub mod poetry;
pub mod project;
pub mod requirements;
mod scan;
pub mod uv;
pub mod yarn;

use serde::Serialize;

use crate::version::Ecosystem;

pub use overrides::{parse_override, Override, OverrideError};
pub use project::{locate, ProjectError};
pub use scan::{scan, Limits};

/// The largest lockfile a parser reads: 16 MiB. Lockfiles of the largest
/// JavaScript monorepos are a few MiB; a file past this is refused rather
/// than parsed, so a hostile or accidental giant cannot stall recall.
pub const MAX_LOCKFILE_BYTES: usize = 16 * 1024 * 1024;

/// The deepest nesting a structured lockfile or manifest may have: 64
/// levels of arrays, objects, tables, dotted keys or YAML collections. Real
/// lockfiles nest fewer than 10 (an npm v1 lockfile, the deepest, two per
/// nested `node_modules`); a file past this is refused before it is parsed,
/// so nesting cannot make parsing slow or exhaust the stack.
pub const MAX_DEPTH: usize = 64;

/// The largest manifest read for workspace members (`package.json`,
/// `pnpm-workspace.yaml`, `Cargo.toml`, `pyproject.toml`, `go.work`): 1
/// MiB. Real ones are a few KiB.
pub const MAX_MANIFEST_BYTES: usize = 1024 * 1024;

/// The longest library message quoted in a [`StackError`].
const MAX_DETAIL_CHARS: usize = 200;

/// Why a lockfile could not be read. Messages say what is wrong, and where
/// when the parser knows.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum StackError {
    /// Over [`MAX_LOCKFILE_BYTES`] (a lockfile) or [`MAX_MANIFEST_BYTES`]
    /// (a manifest).
    #[error("{size} bytes is over the {cap}-byte size budget for this file")]
    TooLarge { size: usize, cap: usize },
    /// Nested deeper than [`MAX_DEPTH`].
    #[error("nested more than {cap} levels deep, over the depth budget for a lockfile or manifest; a real one nests fewer than 10")]
    TooDeep { cap: usize },
    /// Over another of a parser's budgets (YAML nodes, aliases, documents).
    #[error("{what}, over the budget of {cap} for a lockfile or manifest")]
    OverBudget { what: String, cap: usize },
    /// Not UTF-8.
    #[error("not UTF-8 text (invalid byte at offset {0})")]
    NotText(usize),
    /// The format's syntax is broken (JSON, YAML, TOML, …).
    #[error("invalid {format}: {detail}")]
    Syntax {
        format: &'static str,
        detail: String,
    },
    /// Well-formed, but not shaped like this kind of lockfile.
    #[error("unexpected content: {0}")]
    Shape(String),
    /// A lockfile version this parser does not know.
    #[error("unsupported {0}")]
    Unsupported(String),
    /// A line-based format with a line it cannot read.
    #[error("line {line}: {why}")]
    Line { line: usize, why: String },
    /// The file could not be read at all.
    #[error("cannot read the file: {0}")]
    Io(#[source] crate::cause::IoCause),
    /// The scan had already parsed as many files as it may.
    #[error(
        "not read: the scan stopped after parsing {cap} files; declare fewer workspace members"
    )]
    ScanFull { cap: usize },
    /// A parser panicked (a bug; the scan catches it and goes on).
    #[error("the parser failed on this file; this is a bug in git-lore, please report it")]
    ParserPanic,
}

/// A package a lockfile pins.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub struct Package {
    /// The registry name of the package (for an npm alias, the real
    /// package, not the alias).
    pub name: String,
    /// The version as the lockfile writes it.
    pub version: String,
    /// The workspace directory relative to the lockfile, `.` for its own.
    pub workspace: String,
}

impl Package {
    pub(crate) fn new(name: &str, version: &str, workspace: &str) -> Package {
        Package {
            name: name.to_owned(),
            version: version.to_owned(),
            workspace: workspace.to_owned(),
        }
    }
}

/// A package installed in the project, as recall sees it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Installed {
    pub name: String,
    pub version: String,
    /// `None` only for a `--stack` override that named no ecosystem and
    /// matched no package a lockfile lists.
    pub ecosystem: Option<Ecosystem>,
    /// The file it came from, relative to the project (`/`-separated), or
    /// `--stack` for an override.
    pub source: String,
    /// The workspace directory relative to the project, `.` for the root.
    pub workspace: String,
}

/// A lockfile or manifest that could not be used, or was used only in
/// part.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct StackProblem {
    /// The file, relative to the project (`.` for the scan itself).
    pub file: String,
    pub why: String,
}

/// What happened to one file the scan found.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "status", rename_all = "snake_case")]
pub enum SourceUse {
    /// Parsed; this many packages came from it (before de-duplication).
    Parsed { packages: usize },
    /// Not read: a preferred lockfile of the same ecosystem in the same
    /// directory was used instead.
    Shadowed { by: String },
    /// Could not be parsed (see the matching [`StackProblem`]).
    Failed,
}

/// One file the scan found.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct SourceFile {
    pub file: String,
    pub format: Format,
    pub ecosystem: Ecosystem,
    #[serde(flatten)]
    pub used: SourceUse,
}

/// A workspace member the scan read: a directory a manifest of the
/// project declares, holding a manifest or lockfile.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Member {
    /// The directory, relative to the project (`/`-separated).
    pub dir: String,
    /// The manifest that declares it, relative to the project.
    pub declared_by: String,
}

/// Everything recall knows about a project's installed packages.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Stack {
    /// De-duplicated, sorted by workspace, ecosystem, name and version.
    pub packages: Vec<Installed>,
    pub problems: Vec<StackProblem>,
    pub sources: Vec<SourceFile>,
    /// The workspace members read besides the project's own directory,
    /// sorted.
    pub members: Vec<Member>,
}

impl Stack {
    /// The workspace directories packages are attributed to, sorted, `.`
    /// first when present.
    pub fn workspaces(&self) -> Vec<&str> {
        let mut w: Vec<&str> = self.packages.iter().map(|p| p.workspace.as_str()).collect();
        w.sort_unstable_by(|a, b| (*a != ".", a).cmp(&(*b != ".", b)));
        w.dedup();
        w
    }
}

/// A parser's result: packages and, for formats that skip entries they do
/// not read (unpinned requirements), a note saying what was skipped.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Parsed {
    pub packages: Vec<Package>,
    pub note: Option<String>,
}

/// The lockfile and manifest formats recall reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Format {
    NpmShrinkwrap,
    PackageLock,
    PnpmLock,
    YarnLock,
    BunLock,
    CargoLock,
    UvLock,
    PoetryLock,
    Requirements,
    GoMod,
    GoSum,
    GemfileLock,
    ComposerLock,
}

impl Format {
    /// The format a file name is, if any. `requirements*.txt` is any name
    /// that starts with `requirements` and ends with `.txt`
    /// (`requirements-dev.txt`, `requirements.lock.txt`).
    pub fn of_file_name(name: &str) -> Option<Format> {
        Some(match name {
            "npm-shrinkwrap.json" => Format::NpmShrinkwrap,
            "package-lock.json" => Format::PackageLock,
            "pnpm-lock.yaml" => Format::PnpmLock,
            "yarn.lock" => Format::YarnLock,
            "bun.lock" => Format::BunLock,
            "Cargo.lock" => Format::CargoLock,
            "uv.lock" => Format::UvLock,
            "poetry.lock" => Format::PoetryLock,
            "go.mod" => Format::GoMod,
            "go.sum" => Format::GoSum,
            "Gemfile.lock" | "gems.locked" => Format::GemfileLock,
            "composer.lock" => Format::ComposerLock,
            n if n.starts_with("requirements") && n.ends_with(".txt") => Format::Requirements,
            _ => return None,
        })
    }

    /// The ecosystem its packages belong to.
    pub fn ecosystem(self) -> Ecosystem {
        match self {
            Format::NpmShrinkwrap
            | Format::PackageLock
            | Format::PnpmLock
            | Format::YarnLock
            | Format::BunLock => Ecosystem::Npm,
            Format::CargoLock => Ecosystem::Cargo,
            Format::UvLock | Format::PoetryLock | Format::Requirements => Ecosystem::PyPI,
            Format::GoMod | Format::GoSum => Ecosystem::Go,
            Format::GemfileLock => Ecosystem::RubyGems,
            Format::ComposerLock => Ecosystem::Composer,
        }
    }

    /// Rank among the formats of one ecosystem in one directory: the scan
    /// uses the lowest-ranked file that parses and reports the others as
    /// shadowed. Lockfiles rank before looser manifests (`uv.lock` and
    /// `poetry.lock` before `requirements*.txt`, `go.mod` before `go.sum`);
    /// for npm, `npm-shrinkwrap.json` before `package-lock.json` (as npm
    /// itself does), then pnpm, Yarn, bun.
    pub fn rank(self) -> u8 {
        match self {
            Format::NpmShrinkwrap => 0,
            Format::PackageLock => 1,
            Format::PnpmLock => 2,
            Format::YarnLock => 3,
            Format::BunLock => 4,
            Format::CargoLock => 0,
            Format::UvLock => 0,
            Format::PoetryLock => 1,
            Format::Requirements => 2,
            Format::GoMod => 0,
            Format::GoSum => 1,
            Format::GemfileLock => 0,
            Format::ComposerLock => 0,
        }
    }

    /// Parses a file of this format.
    pub fn parse(self, bytes: &[u8]) -> Result<Parsed, StackError> {
        let packages = match self {
            Format::NpmShrinkwrap | Format::PackageLock => npm::parse(bytes)?,
            Format::PnpmLock => pnpm::parse(bytes)?,
            Format::YarnLock => yarn::parse(bytes)?,
            Format::BunLock => bun::parse(bytes)?,
            Format::CargoLock => cargo::parse(bytes)?,
            Format::UvLock => uv::parse(bytes)?,
            Format::PoetryLock => poetry::parse(bytes)?,
            Format::Requirements => return requirements::parse_counted(bytes),
            Format::GoMod => go::parse_mod(bytes)?,
            Format::GoSum => go::parse_sum(bytes)?,
            Format::GemfileLock => gemfile::parse(bytes)?,
            Format::ComposerLock => composer::parse(bytes)?,
        };
        Ok(Parsed {
            packages,
            note: None,
        })
    }
}

/// The checks every parser starts with: the size cap, UTF-8, and a
/// leading byte-order mark dropped.
pub(crate) fn text(bytes: &[u8]) -> Result<&str, StackError> {
    if bytes.len() > MAX_LOCKFILE_BYTES {
        return Err(StackError::TooLarge {
            size: bytes.len(),
            cap: MAX_LOCKFILE_BYTES,
        });
    }
    let s = std::str::from_utf8(bytes).map_err(|e| StackError::NotText(e.valid_up_to()))?;
    Ok(s.strip_prefix('\u{feff}').unwrap_or(s))
}

/// A library's error message, made safe to show: control characters
/// dropped, cut at [`MAX_DETAIL_CHARS`].
pub(crate) fn detail(msg: impl std::fmt::Display) -> String {
    let s: String = msg
        .to_string()
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    match s.char_indices().nth(MAX_DETAIL_CHARS) {
        None => s,
        Some((at, _)) => format!("{}…", &s[..at]),
    }
}

/// A TOML error as `line N: message`.
pub(crate) fn toml_error(text: &str, e: &toml::de::Error) -> StackError {
    // The depth pass (`depth::toml`) counts every table, array and key
    // segment, so toml's own guard (80 levels) is not reached through it;
    // should a toml release count a level the pass does not, its refusal
    // is still said as the same budget.
    if e.message().contains("recursion limit") {
        return StackError::TooDeep { cap: MAX_DEPTH };
    }
    let line = e
        .span()
        .and_then(|span| text.get(..span.start))
        .map_or(0, |before| before.matches('\n').count() + 1);
    let at = if line > 0 {
        format!("line {line}: ")
    } else {
        String::new()
    };
    StackError::Syntax {
        format: "TOML",
        detail: detail(format!("{at}{}", e.message())),
    }
}

/// Splits an npm package spec `name@version` (the name may be scoped:
/// `@scope/name@1.2.3`) at the `@` that ends the name.
pub(crate) fn split_npm_spec(spec: &str) -> Option<(&str, &str)> {
    let from = usize::from(spec.starts_with('@'));
    let at = spec.get(from..)?.find('@')? + from;
    let (name, version) = (&spec[..at], &spec[at + 1..]);
    (!name.is_empty() && name != "@").then_some((name, version))
}

/// Whether an npm-family version names the project's own code rather than
/// an installed package: a workspace, link, file or portal reference.
pub(crate) fn is_local_npm_ref(version: &str) -> bool {
    ["workspace:", "link:", "file:", "portal:"]
        .iter()
        .any(|p| version.starts_with(p))
}

/// A workspace path from inside a lockfile, made safe to use as a label:
/// `/`-separated, no `.` or empty segments; `.` for the lockfile's own
/// directory. A path that climbs (`..`), is absolute or carries control
/// characters is attributed to `.`.
pub(crate) fn clean_workspace(path: &str) -> String {
    let path = path.replace('\\', "/");
    if path.starts_with('/') || path.chars().any(char::is_control) {
        return ".".to_owned();
    }
    let mut parts = Vec::new();
    for seg in path.split('/') {
        match seg {
            "" | "." => {}
            ".." => return ".".to_owned(),
            s => parts.push(s),
        }
    }
    if parts.is_empty() {
        ".".to_owned()
    } else {
        parts.join("/")
    }
}

#[cfg(test)]
pub(crate) mod testutil {
    //! Helpers shared by the parser tests: golden comparison and the
    //! garbage-input battery every parser must survive.

    use super::{Package, StackError};

    /// Reads a fixture from `src/recall/stack/testdata/`.
    pub(crate) fn fixture(name: &str) -> Vec<u8> {
        let path = format!(
            "{}/src/recall/stack/testdata/{name}",
            env!("CARGO_MANIFEST_DIR")
        );
        std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
    }

    /// The packages as `name version workspace` lines, sorted.
    pub(crate) fn lines(packages: &[Package]) -> Vec<String> {
        let mut v: Vec<String> = packages
            .iter()
            .map(|p| format!("{} {} {}", p.name, p.version, p.workspace))
            .collect();
        v.sort();
        v
    }

    /// Asserts a parser turns a fixture into exactly `want` (sorted
    /// `name version workspace` lines).
    pub(crate) fn golden(
        parse: fn(&[u8]) -> Result<Vec<Package>, StackError>,
        file: &str,
        want: &[&str],
    ) {
        let got = parse(&fixture(file)).unwrap_or_else(|e| panic!("{file}: {e}"));
        let mut want: Vec<String> = want.iter().map(|s| (*s).to_owned()).collect();
        want.sort();
        assert_eq!(lines(&got), want, "{file}");
    }

    /// Feeds a parser garbage: every truncation of a real fixture (at a
    /// stride), binary junk, a file over the cap, an empty file. It must
    /// return (`Ok` or a clear error), never panic; and the junk and the
    /// oversized file must be errors.
    pub(crate) fn survives_garbage(
        parse: fn(&[u8]) -> Result<Vec<Package>, StackError>,
        file: &str,
    ) {
        let good = fixture(file);
        let stride = (good.len() / 300).max(1);
        for cut in (0..good.len()).step_by(stride) {
            let _ = parse(&good[..cut]);
        }
        let mut junk = Vec::with_capacity(4096);
        let mut x: u32 = 0x1234_5678;
        for _ in 0..4096 {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            junk.push((x >> 24) as u8);
        }
        let e = parse(&junk).expect_err("binary junk must be refused");
        assert!(!e.to_string().is_empty());
        let huge = vec![b' '; super::MAX_LOCKFILE_BYTES + 1];
        assert_eq!(
            parse(&huge),
            Err(StackError::TooLarge {
                size: super::MAX_LOCKFILE_BYTES + 1,
                cap: super::MAX_LOCKFILE_BYTES
            })
        );
        let _ = parse(b"");
        let _ = parse(b"\xEF\xBB\xBF");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_names_pick_formats() {
        assert_eq!(
            Format::of_file_name("package-lock.json"),
            Some(Format::PackageLock)
        );
        assert_eq!(
            Format::of_file_name("requirements-dev.txt"),
            Some(Format::Requirements)
        );
        assert_eq!(
            Format::of_file_name("requirements.txt"),
            Some(Format::Requirements)
        );
        assert_eq!(
            Format::of_file_name("gems.locked"),
            Some(Format::GemfileLock)
        );
        assert_eq!(Format::of_file_name("requirements.in"), None);
        assert_eq!(Format::of_file_name("package.json"), None);
        assert_eq!(Format::of_file_name("bun.lockb"), None);
        for f in [Format::UvLock, Format::PoetryLock, Format::Requirements] {
            assert_eq!(f.ecosystem(), Ecosystem::PyPI);
        }
        assert!(Format::UvLock.rank() < Format::Requirements.rank());
        assert!(Format::GoMod.rank() < Format::GoSum.rank());
        assert!(Format::NpmShrinkwrap.rank() < Format::PackageLock.rank());
    }

    #[test]
    fn text_guards_size_encoding_and_bom() {
        assert_eq!(text(b"\xEF\xBB\xBFabc"), Ok("abc"));
        assert_eq!(text(b"ab\xFFc"), Err(StackError::NotText(2)));
        assert_eq!(
            StackError::NotText(2).to_string(),
            "not UTF-8 text (invalid byte at offset 2)"
        );
        assert_eq!(
            StackError::TooLarge {
                size: 20_000_000,
                cap: MAX_LOCKFILE_BYTES
            }
            .to_string(),
            "20000000 bytes is over the 16777216-byte size budget for this file"
        );
    }

    #[test]
    fn npm_specs_split_after_the_scope() {
        assert_eq!(split_npm_spec("vite@5.4.21"), Some(("vite", "5.4.21")));
        assert_eq!(
            split_npm_spec("@types/node@20.1.0"),
            Some(("@types/node", "20.1.0"))
        );
        assert_eq!(
            split_npm_spec("string-width@npm:4.2.3"),
            Some(("string-width", "npm:4.2.3"))
        );
        assert_eq!(split_npm_spec("@scope"), None);
        assert_eq!(split_npm_spec("@@1"), None);
        assert_eq!(split_npm_spec("vite"), None);
    }

    #[test]
    fn workspace_labels_never_climb() {
        assert_eq!(clean_workspace(""), ".");
        assert_eq!(clean_workspace("."), ".");
        assert_eq!(clean_workspace("./packages/web/"), "packages/web");
        assert_eq!(clean_workspace("packages\\web"), "packages/web");
        assert_eq!(clean_workspace("../../etc"), ".");
        assert_eq!(clean_workspace("/etc"), ".");
        assert_eq!(clean_workspace("a/\nb"), ".");
    }

    #[test]
    fn details_are_clipped_and_clean() {
        assert_eq!(detail("a\nb"), "a b");
        assert_eq!(
            detail("x".repeat(300)).chars().count(),
            MAX_DETAIL_CHARS + 1
        );
    }
}
