//! The evidence of a session: a failure, what changed, and the run that
//! succeeded after it — read as facts (`crate::facts`), and turned into
//! moments that carry them.
//!
//! An **episode** opens at a failure: a tool result holding a resolver or
//! installer error (`crate::facts::resolver`), or an install, build or
//! test command ([`is_check`]) that failed. While it is open, every fact
//! of the session is gathered into it:
//!
//! - requirements stated by tool output and by the assistant's own words
//!   ("vitest 4.0.5 needs Vite 6, but this workspace is on vite 5.4.21";
//!   the file readers' output is left out, as in `super::offline`);
//! - changes: install commands (`npm i x@1.0.0`), edits of manifests
//!   (`crate::facts::manifest::edit_changes`) and installers' reports of
//!   what they installed.
//!
//! It closes at the next install, build or test command that succeeded
//! after at least one change: that run is the [`Outcome`]. A person's next
//! prompt abandons it. A closed episode whose facts draft a lesson
//! (`crate::facts::lesson::draft`: a requirement the found version did not
//! meet, and what resolved it) is a moment: its event is the failure's
//! (so capturing the session again cites the same event and gives the same
//! id), its summary the draft's claim, its detail the rationale and the
//! resolution, its files the manifests edited, and its facts the episode's.
//!
//! Where the failure printed a version with fewer components than another
//! text of the episode ("on Vite 5", then "this workspace is on vite
//! 5.4.21"), the fuller one is taken as found.
//!
//! Pure: no I/O. Bounded by the transcript's own caps and
//! `crate::facts::MAX_FACTS` per episode.

use super::offline::{EDITORS, FILE_READERS};
use super::transcript::{Block, Role, Transcript};
use super::{artifact, Kind, Moment, MAX_DETAIL_CHARS, MAX_FILES, MAX_SUMMARY_CHARS};
use crate::facts::{self, command, lesson, manifest, prose, resolver, Fact, Outcome, Requirement};
use crate::version::declared::{release_point, Declared};
use crate::version::Ecosystem;
use std::collections::HashMap;

/// Whether a shell command installs, builds or tests: the runs whose
/// failure opens an episode and whose success closes one. Each simple
/// command of the line (split at `;`, `&` and `|`) is read from its
/// program name on, after `NAME=value` assignments.
pub fn is_check(command: &str) -> bool {
    command.split([';', '&', '|', '\n']).any(|part| {
        let words: Vec<&str> = part
            .split_whitespace()
            .skip_while(|w| w.contains('=') && !w.starts_with('-'))
            .collect();
        let Some(program) = words.first().map(|w| w.rsplit('/').next().unwrap_or(w)) else {
            return false;
        };
        // The first word that is not an option or an option's value.
        let verb = |from: usize| {
            let mut i = from;
            while i < words.len() && words[i].starts_with('-') {
                // `--filter @acme/ui`: an option and its value.
                i += if words[i].contains('=')
                    || words.get(i + 1).is_none_or(|n| n.starts_with('-'))
                {
                    1
                } else {
                    2
                };
            }
            words.get(i).copied().unwrap_or("")
        };
        match program {
            "npm" | "pnpm" | "yarn" | "bun" => {
                matches!(
                    verb(1),
                    "i" | "install"
                        | "ci"
                        | "add"
                        | "up"
                        | "update"
                        | "upgrade"
                        | "test"
                        | "t"
                        | "run"
                        | "exec"
                        | "dlx"
                        | "build"
                        | "x"
                        | ""
                ) && !(program == "npm" && verb(1).is_empty())
            }
            "pip" | "pip3" | "uv" | "poetry" | "pipenv" => matches!(
                verb(1),
                "install" | "add" | "sync" | "lock" | "update" | "pip" | "run"
            ),
            "python" | "python3" => {
                words.get(1) == Some(&"-m")
                    && matches!(words.get(2).copied(), Some("pip" | "pytest" | "unittest"))
            }
            "cargo" => matches!(
                verb(1),
                "build"
                    | "test"
                    | "check"
                    | "run"
                    | "update"
                    | "add"
                    | "install"
                    | "nextest"
                    | "clippy"
            ),
            "go" => matches!(
                verb(1),
                "build" | "test" | "get" | "mod" | "install" | "run" | "vet"
            ),
            "bundle" => matches!(verb(1), "install" | "update" | "exec" | "add"),
            "npx" | "bunx" | "pytest" | "tox" | "nox" | "rake" | "rspec" | "vitest" | "jest"
            | "tsc" | "vite" | "next" | "webpack" | "make" | "gradle" | "mvn" | "dotnet" => true,
            _ => false,
        }
    })
}

/// One failure and what followed it.
#[derive(Clone, Default)]
struct Episode {
    event: String,
    /// Where it opened and the last event before the person's next prompt
    /// (indexes into the transcript's events).
    start: usize,
    end: usize,
    /// The run that closed it, when one did.
    outcome: Option<Outcome>,
    facts: Vec<Fact>,
    texts: Vec<String>,
    files: Vec<String>,
    changed: bool,
}

impl Episode {
    fn add(&mut self, f: Fact) {
        if self.facts.len() < facts::MAX_FACTS && !self.facts.contains(&f) {
            if matches!(f, Fact::Change(_)) {
                self.changed = true;
            }
            self.facts.push(f);
        }
    }

    fn text(&mut self, t: &str) {
        if self.texts.len() < 64 {
            self.texts.push(t.to_owned());
        }
    }

    /// Takes the fullest version each text of the episode gives for a
    /// requirement's package, when it lies outside the requirement.
    fn refine_found(&mut self) {
        let mentions: Vec<(String, String)> = self
            .texts
            .iter()
            .flat_map(|t| resolver::mentions(t))
            .collect();
        for f in &mut self.facts {
            let Fact::Requirement(r) = f else { continue };
            let Some(required) = r.required.as_deref() else {
                continue;
            };
            let Ok(d) = Declared::parse(r.ecosystem, required) else {
                continue;
            };
            let parts = |v: &str| v.trim_start_matches('v').split('.').count();
            let have = r.found.as_deref().map_or(0, parts);
            let better = mentions
                .iter()
                .filter(|(n, _)| {
                    r.ecosystem.normalize_name(&prose::canonical(n))
                        == r.ecosystem.normalize_name(&r.package)
                })
                .map(|(_, v)| v)
                .filter(|v| release_point(v).is_some_and(|p| !d.contains(&p)))
                .filter(|v| parts(v) > have)
                .max_by_key(|v| parts(v));
            if let Some(v) = better {
                // Only a fuller spelling of what was found, never another version.
                let agrees = r
                    .found
                    .as_deref()
                    .is_none_or(|old| v.starts_with(old.trim_start_matches('v')));
                if agrees {
                    r.found = Some(v.clone());
                }
            }
        }
    }

    fn moment(mut self) -> Option<Moment> {
        let outcome = self.outcome.take()?;
        self.add(Fact::Outcome(outcome));
        self.refine_found();
        let d = lesson::draft(&self.facts, None).ok()?;
        let summary = facts::clip(&d.claim, MAX_SUMMARY_CHARS);
        let detail = facts::clip(
            &format!("{}\n{}", d.rationale, d.resolution),
            MAX_DETAIL_CHARS,
        );
        Some(Moment {
            event: self.event,
            kind: Kind::Decision,
            summary,
            detail: Some(detail),
            files: self.files,
            facts: self.facts,
        })
    }
}

/// The requirements a text states: resolver errors, and the same facts in
/// words.
fn requirements_in(text: &str) -> Vec<Requirement> {
    let mut out = resolver::requirements(text);
    out.extend(prose::requirements(text, Ecosystem::Npm));
    out
}

/// Whether a requirement is broken: what was found is outside it.
fn broken(r: &Requirement) -> bool {
    let (Some(required), Some(found)) = (r.required.as_deref(), r.found.as_deref()) else {
        return false;
    };
    let (Ok(d), Some(p)) = (Declared::parse(r.ecosystem, required), release_point(found)) else {
        return false;
    };
    !d.contains(&p)
}

/// Every episode of the session, in transcript order.
fn episodes(t: &Transcript) -> Vec<Episode> {
    let calls: HashMap<&str, (&str, &str)> = t
        .events
        .iter()
        .flat_map(|e| &e.blocks)
        .filter_map(|b| match b {
            Block::ToolUse {
                id, name, input, ..
            } if !id.is_empty() => Some((id.as_str(), (name.as_str(), input.as_str()))),
            _ => None,
        })
        .collect();
    let cwd = t.cwd.as_deref();
    let mut open: Option<Episode> = None;
    let mut out: Vec<Episode> = Vec::new();
    for (i, event) in t.events.iter().enumerate() {
        if event.is_prompt() {
            out.extend(open.take());
            continue;
        }
        if let Some(ep) = out
            .last_mut()
            .filter(|ep| ep.outcome.is_some() && open.is_none())
        {
            // A closed episode reaches to the person's next prompt: the
            // assistant's summary of the fix belongs to it.
            ep.end = i;
        }
        if let Some(ep) = open.as_mut() {
            ep.end = i;
        }
        for block in &event.blocks {
            match block {
                Block::Text(text) if event.role == Role::Assistant => {
                    if let Some(ep) = open.as_mut() {
                        for r in requirements_in(text) {
                            ep.add(Fact::Requirement(r));
                        }
                        ep.text(text);
                    }
                }
                Block::ToolUse {
                    name,
                    input,
                    path,
                    edits,
                    ..
                } => {
                    let Some(ep) = open.as_mut() else { continue };
                    if name == "Bash" {
                        for c in command::changes_in_command(input) {
                            ep.add(Fact::Change(c));
                        }
                    } else if EDITORS.contains(&name.as_str()) {
                        // A file outside the project, or one whose name is
                        // not plain text, is not kept: its path could name
                        // the person (`/Users/alice/...`).
                        if let Some(rel) =
                            path.as_ref().and_then(|p| artifact::relative_file(p, cwd))
                        {
                            for (old, new) in edits {
                                for mut c in manifest::edit_changes(&rel, old, new) {
                                    c.file = Some(rel.clone());
                                    ep.add(Fact::Change(c));
                                }
                            }
                            if !edits.is_empty()
                                && !ep.files.contains(&rel)
                                && ep.files.len() < MAX_FILES
                            {
                                ep.files.push(rel);
                            }
                        }
                    }
                }
                Block::ToolResult {
                    tool_use_id,
                    text,
                    is_error,
                } => {
                    let (tool, command) =
                        calls.get(tool_use_id.as_str()).copied().unwrap_or(("", ""));
                    if FILE_READERS.contains(&tool) {
                        continue;
                    }
                    let reqs = requirements_in(text);
                    let failed_check = tool == "Bash" && *is_error && is_check(command);
                    let conflict = reqs.iter().any(broken);
                    if open.is_none() && (conflict || failed_check) {
                        open = Some(Episode {
                            event: event.uuid.clone(),
                            start: i,
                            end: i,
                            ..Episode::default()
                        });
                    }
                    let Some(ep) = open.as_mut() else { continue };
                    for r in reqs {
                        ep.add(Fact::Requirement(r));
                    }
                    for c in command::changes_in_report(text) {
                        ep.add(Fact::Change(c));
                    }
                    ep.text(text);
                    let succeeded = tool == "Bash" && !*is_error && is_check(command) && !conflict;
                    if succeeded && ep.changed {
                        let last = text
                            .lines()
                            .rev()
                            .map(str::trim)
                            .find(|l| !l.is_empty())
                            .unwrap_or("");
                        let outcome = Outcome {
                            command: facts::clip(command, 300),
                            quote: facts::clip(last, 200),
                        };
                        if let Some(mut ep) = open.take() {
                            ep.outcome = Some(outcome);
                            out.push(ep);
                        }
                    }
                }
                _ => {}
            }
        }
    }
    out.extend(open);
    out
}

/// The moments the session's evidence makes, in transcript order: each
/// closed episode whose facts draft a lesson.
pub fn moments(t: &Transcript) -> Vec<Moment> {
    episodes(t)
        .into_iter()
        .filter_map(Episode::moment)
        .collect()
}

/// The facts of the episode around `event` (from its failure to the
/// person's next prompt), for a moment a model cites there: a model's
/// moment carries the session's own evidence, never the model's. Reads the
/// whole transcript; for several moments of one answer, read it once with
/// [`Episodes::of`].
#[cfg(test)]
pub fn facts_near(t: &Transcript, event: &str) -> Vec<Fact> {
    Episodes::of(t).facts_near(t, event)
}

/// A transcript's episodes, read once and asked for each moment.
pub struct Episodes(Vec<Episode>);

impl Episodes {
    /// Every episode of `t`.
    pub fn of(t: &Transcript) -> Episodes {
        Episodes(episodes(t))
    }

    /// [`facts_near`], from the episodes already read.
    pub fn facts_near(&self, t: &Transcript, event: &str) -> Vec<Fact> {
        let Some(at) = t.events.iter().position(|e| e.uuid == event) else {
            return Vec::new();
        };
        self.0
            .iter()
            .find(|ep| ep.start <= at && at <= ep.end)
            .map(|ep| {
                let mut ep = ep.clone();
                if let Some(o) = ep.outcome.take() {
                    ep.add(Fact::Outcome(o));
                }
                ep.refine_found();
                ep.facts
            })
            .unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pipeline::capture::testdata::transcript;

    #[test]
    fn checks() {
        for yes in [
            "pnpm --filter @acme/ui test --run",
            "npm i",
            "cargo test -p x",
            "go test ./...",
            "pytest -q",
            "uv sync",
            "cd web && npm run build",
        ] {
            assert!(is_check(yes), "{yes}");
        }
        for no in [
            "ls -la",
            "git status",
            "pnpm why vite vitest --filter @acme/ui",
            "cat package.json",
        ] {
            assert!(!is_check(no), "{no}");
        }
    }

    #[test]
    fn the_version_mismatch_session_is_one_moment_scoped_by_ranges() {
        let m = moments(&transcript("version-mismatch"));
        assert_eq!(m.len(), 1, "{m:?}");
        let d = lesson::draft(&m[0].facts, None).unwrap();
        assert_eq!(
            d.versions
                .iter()
                .map(|(k, v)| format!("{k} {v}"))
                .collect::<Vec<_>>(),
            ["vite <6", "vitest >=4"]
        );
        assert_eq!(m[0].summary, d.claim);
        assert_eq!(m[0].files, ["package.json"]);
        assert!(m[0].facts.iter().any(|f| matches!(f, Fact::Outcome(_))));
    }

    #[test]
    fn a_model_moment_at_the_final_message_gets_the_episodes_facts() {
        let t = transcript("version-mismatch");
        let facts = facts_near(&t, "00000014-4c1d-4e2a-9b7f-a11ce0000014");
        assert_eq!(facts, moments(&t)[0].facts);
        assert_eq!(
            facts_near(&t, "00000001-4c1d-4e2a-9b7f-a11ce0000001"),
            [],
            "before the failure"
        );
        assert_eq!(facts_near(&t, "no-such-event"), []);
    }

    #[test]
    fn a_session_without_a_failure_has_no_episode() {
        assert_eq!(moments(&transcript("no-lesson")), []);
        assert_eq!(moments(&transcript("truncated")), []);
    }
}
