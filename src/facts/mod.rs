//! Facts: what tools print and manifests change, read deterministically,
//! before anyone (a rule or a model) decides what a lesson says.
//!
//! A lesson states a fact with its evidence. This module owns the evidence:
//!
//! - [`Fact`], the typed record an artifact carries in its `facts` list:
//!   a [`Requirement`] (a package declares that it needs another at a
//!   range, and what was found instead), a [`Change`] (a dependency moved
//!   from one version or range to another: a manifest edit or diff, an
//!   install command, an installer's report), or an [`Outcome`] (a later
//!   install or test run succeeded).
//! - [`resolver`]: resolver and installer errors in tool output (npm,
//!   pnpm, yarn, bun, pip, uv, poetry, cargo, go, bundler, engines) →
//!   requirements.
//! - [`prose`]: the same facts stated in sentences ("vitest 4.0 requires
//!   Vite 6.0 or newer", "pinned vitest to 3.2.4").
//! - [`manifest`]: the dependencies a manifest declares (package.json,
//!   Cargo.toml, pyproject.toml, requirements*.txt, go.mod, Gemfile), and
//!   what changed between two versions of one.
//! - [`command`]: install commands (`npm i x@1.0.0`, `pip install
//!   'x==1.0'`, `cargo update -p x --precise 1.0.0`, …) → changes.
//! - [`lesson`]: facts (and, for a commit, its message's *why*) → a draft
//!   lesson: claim, rationale, resolution, stack and scope, one template
//!   per signal kind, the scope the broken *range* the evidence supports.
//! - [`evidence`]: whether a candidate's packages and ranges agree with
//!   the facts (a model's answer and the offline jury are both checked).
//! - [`wording`]: what a claim may not be (a commit subject, a
//!   conventional-commit prefix, its own resolution).
//!
//! Pure and bounded: no I/O, no clock; every reader caps what it reads
//! ([`MAX_QUOTE_CHARS`], [`MAX_FACTS`]) and is linear in its input.

use serde::{Deserialize, Serialize};

use crate::version::Ecosystem;

pub mod command;
pub mod evidence;
pub mod lesson;
pub mod manifest;
pub mod prose;
pub mod resolver;
pub mod wording;

/// The most characters of tool output a fact quotes.
pub const MAX_QUOTE_CHARS: usize = 600;

/// The most facts one artifact carries.
pub const MAX_FACTS: usize = 64;

/// The longest package name read.
pub const MAX_NAME_CHARS: usize = 214;

/// The longest version or range read.
pub const MAX_VERSION_CHARS: usize = 128;

/// One fact, as an artifact's `facts` list stores it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "fact", rename_all = "snake_case")]
pub enum Fact {
    Requirement(Requirement),
    Change(Change),
    Outcome(Outcome),
}

/// How a requirement binds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RequirementKind {
    /// A peer dependency (npm-style ecosystems).
    Peer,
    /// An ordinary dependency.
    Dependency,
    /// A runtime or toolchain (`node`, `python`, `go`, `rust`).
    Engine,
}

/// A package that declares a requirement, at the version it was seen at.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Declarer {
    pub name: String,
    /// The version the tool printed (`4.1.1`), or `None` when it named none
    /// (`the root project`, `you require`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    /// Whether the version is where the requirement *starts* ("vitest 4.0
    /// requires …": from 4.0 on) rather than the one installed.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub from_on: bool,
}

/// "`by` needs `package` at `required`; `found` is what there was."
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Requirement {
    pub ecosystem: Ecosystem,
    /// The tool that printed it (`npm`, `pnpm`, `pip`, `cargo`, … or
    /// `prose` for a sentence).
    pub tool: String,
    pub kind: RequirementKind,
    /// Who declares it; `None` for the project itself.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub by: Option<Declarer>,
    /// The package (or runtime) required.
    pub package: String,
    /// The declared range, in the ecosystem's own syntax (`^3.0.0 ||
    /// ^4.0.0`); `None` when the tool did not print it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub required: Option<String>,
    /// The version found instead, when the tool says.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub found: Option<String>,
    /// The lines it was read from (at most [`MAX_QUOTE_CHARS`]).
    pub quote: String,
}

/// Where a change was seen.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Via {
    /// A manifest's declared range (an edit in a session, a commit's diff).
    Manifest,
    /// An install command (`npm i x@1.0.0`).
    Command,
    /// An installer's report of what it installed (`- vitest 4.0.5`, `+
    /// vitest 3.2.4`) or a lockfile diff.
    Installed,
    /// A sentence ("pinned vitest to 3.2.4").
    Prose,
}

/// The section of a manifest a change is in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Section {
    /// Runtime dependencies (`dependencies`, `[dependencies]`, `require`,
    /// `project.dependencies`, requirements files, `gem`).
    Dependencies,
    /// Development and build dependencies.
    Dev,
    /// Optional dependencies and extras.
    Optional,
    /// `peerDependencies`.
    Peer,
    /// `engines`, `requires-python`, `rust-version`, go.mod's `go`.
    Engines,
    /// `overrides`, `resolutions`, `pnpm.overrides`, `[patch]`, `replace`.
    Overrides,
}

/// "`package` moved from `from` to `to`."
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Change {
    pub ecosystem: Ecosystem,
    pub via: Via,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub section: Option<Section>,
    /// The manifest's path, for a manifest change.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    /// The package whose manifest it is (its `name` and `version`), when
    /// the manifest names one: a peer or engine change is about it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub owner: Option<Declarer>,
    pub package: String,
    /// The range or version before; `None` when added.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub from: Option<String>,
    /// The range or version after; `None` when removed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub to: Option<String>,
    /// What it was read from (at most [`MAX_QUOTE_CHARS`]).
    pub quote: String,
    /// `owner/name` of the repository whose manifest it is, when known (a
    /// commit mined from a clone of a forge's repository).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub repo: Option<String>,
}

/// A later install, build or test run that succeeded.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Outcome {
    /// The command that ran.
    pub command: String,
    /// Its output's telling line (`Tests 48 passed (48)`).
    pub quote: String,
}

/// `text` cut to at most `max` characters on a character boundary, with
/// `…` when cut; line breaks kept.
pub fn clip(text: &str, max: usize) -> String {
    let text = text.trim();
    match text.char_indices().nth(max) {
        None => text.to_owned(),
        Some((at, _)) => {
            let mut s = text[..at].trim_end().to_owned();
            s.push('…');
            s
        }
    }
}

/// Whether `name` could be a package name: printable, no white space, not
/// too long, and not a file name (`package.json`, `Cargo.lock`).
pub fn plausible_name(name: &str) -> bool {
    !name.is_empty()
        && name.chars().count() <= MAX_NAME_CHARS
        && !name.chars().any(|c| c.is_whitespace() || c.is_control())
        && name
            .chars()
            .next()
            .is_some_and(|c| c.is_alphanumeric() || c == '@' || c == '_')
        && !wording::is_file_name(name)
}

/// Whether `version` could be a version or range as tools print them.
pub fn plausible_version(version: &str) -> bool {
    !version.is_empty()
        && version.chars().count() <= MAX_VERSION_CHARS
        && version.bytes().any(|b| b.is_ascii_digit())
        && !version.chars().any(|c| c.is_control())
}

impl Fact {
    /// The packages a fact names.
    pub fn packages(&self) -> Vec<&str> {
        match self {
            Fact::Requirement(r) => {
                let mut v = vec![r.package.as_str()];
                if let Some(by) = &r.by {
                    v.push(by.name.as_str());
                }
                v
            }
            Fact::Change(c) => {
                let mut v = vec![c.package.as_str()];
                if let Some(owner) = &c.owner {
                    v.push(owner.name.as_str());
                }
                v
            }
            Fact::Outcome(_) => Vec::new(),
        }
    }
}

/// The facts an artifact carries, or, when it carries none, the facts its
/// text holds: resolver errors pasted in its detail, requirements stated
/// in words, install commands and version moves ("pinned vitest to
/// 3.2.4"). Names read from words are taken as npm's (a bare key in a
/// lesson matches any ecosystem's package of that name). A mined commit's
/// facts are its manifest diff and nothing else.
pub fn of_artifact(artifact: &crate::model::Artifact) -> Vec<Fact> {
    if !artifact.facts.is_empty() || artifact.trigger.as_deref() == Some("commit") {
        return artifact.facts.clone();
    }
    let text = match artifact.detail.as_deref() {
        Some(d) => format!("{}\n{d}", artifact.summary),
        None => artifact.summary.clone(),
    };
    let mut out: Vec<Fact> = Vec::new();
    out.extend(
        resolver::requirements(&text)
            .into_iter()
            .map(Fact::Requirement),
    );
    out.extend(
        prose::requirements(&text, Ecosystem::Npm)
            .into_iter()
            .map(Fact::Requirement),
    );
    for line in text.lines() {
        let line = line.trim().trim_start_matches("$ ");
        out.extend(
            command::changes_in_command(line)
                .into_iter()
                .map(Fact::Change),
        );
    }
    out.extend(
        prose::changes(&text, Ecosystem::Npm)
            .into_iter()
            .map(Fact::Change),
    );
    out.truncate(MAX_FACTS);
    out
}

/// Everything the facts say, as text: quotes, names, versions and ranges.
/// What a judge checks a lesson's words against, beside the artifact.
pub fn evidence_text(facts: &[Fact]) -> String {
    let mut out = String::new();
    for f in facts {
        let parts: Vec<&str> = match f {
            Fact::Requirement(r) => {
                let mut v = vec![r.quote.as_str(), r.package.as_str()];
                v.extend(r.required.as_deref());
                v.extend(r.found.as_deref());
                if let Some(b) = &r.by {
                    v.push(&b.name);
                    v.extend(b.version.as_deref());
                }
                v
            }
            Fact::Change(c) => {
                let mut v = vec![c.quote.as_str(), c.package.as_str()];
                v.extend(c.from.as_deref());
                v.extend(c.to.as_deref());
                v.extend(c.file.as_deref());
                if let Some(o) = &c.owner {
                    v.push(&o.name);
                    v.extend(o.version.as_deref());
                }
                v
            }
            Fact::Outcome(o) => vec![o.command.as_str(), o.quote.as_str()],
        };
        for p in parts {
            out.push_str(p);
            out.push('\n');
        }
    }
    out
}

/// Whether two package names are the same package in `ecosystem`.
pub fn same_package(ecosystem: Ecosystem, a: &str, b: &str) -> bool {
    ecosystem.normalize_name(a) == ecosystem.normalize_name(b)
}
