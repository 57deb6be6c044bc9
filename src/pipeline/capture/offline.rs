//! The offline capture backend: deterministic, no model, no network.
//!
//! It picks the moments of a session that the offline transform
//! (`crate::pipeline::offline_transform`) can turn into lessons: a sentence stating a
//! resolution, with a package at a version in the sentences around it, in
//! the assistant's text or in a tool's output. Its rules, in order
//! ([`RULES`] is the same text, for the CLI and docs):
//!
//! 1. **Sources.** The text blocks of assistant events, and the results of
//!    every tool except the file readers ([`FILE_READERS`]: their output is
//!    a file's content — a changelog's "fixed by" is the package's history,
//!    not this session's). User prompts, tool calls and thinking are not
//!    read. A block without a digit cannot name a version and is skipped.
//! 2. **Text.** Markdown is flattened (fence lines and heading and quote
//!    marks dropped; `` ` ``, `**` and `__` removed, so `` `vitest` 4.0.5 ``
//!    reads `vitest 4.0.5`), then cut into sentences exactly as the offline
//!    transform cuts them.
//! 3. **Resolution.** A sentence that the offline transform takes as a
//!    resolution — a cue of its `RESOLUTION_CUES` (fixed by, resolved by,
//!    fix:, workaround:, pin/pinned, upgraded … to, downgraded, switched
//!    to, …), not a question, not negated or hedged by its `DOUBT_WORDS` —
//!    and that states no plan or option ([`PLAN_WORDS`]: let me, I'll,
//!    going to, should, could, try, options, you can, …): "Let me pin
//!    vitest" is an intention, and "Two options: upgrade vite or pin vitest"
//!    a choice not yet made.
//! 4. **Moment.** `summary` = that sentence (a leading "I "/"We " dropped,
//!    at most 240 characters); `detail` = up to [`CONTEXT_BEFORE`]
//!    sentences before it and [`CONTEXT_AFTER`] after it in the same block,
//!    one per line, those naming a package at a version first (the cause:
//!    the transform takes the first detail sentence as the rationale), each
//!    group in text order (the resolution sentence itself is not repeated:
//!    its remedy versions would then count as versions seen); `files` = the
//!    files the assistant edited ([`EDITORS`]) since the person's last
//!    prompt, up to that event; `kind` = `decision`. It is kept only when
//!    the offline transform, run on that summary and detail, finds the
//!    resolution **and** at least one package at a version outside the
//!    remedy (`name 1.2.3`, `name@1.2.3`, `name v18`): exactly what it
//!    needs to propose a lesson.
//! 5. **One moment per fix.** Moments whose packages and versions (as the
//!    offline transform scopes them) are the same state one fix: the first
//!    in assistant text is kept, else the first in a tool result. A final
//!    summary restating the fix is then not a second moment.
//!
//! Before these rules, **rule 0**: the session's evidence
//! (`super::evidence`): a resolver error or a failed install, build or
//! test, what changed after it (install commands, manifest edits,
//! installers' reports) and the run that then succeeded, drafted by
//! `crate::facts::lesson`. A moment made by rule 0 carries those facts;
//! a sentence moment naming a package rule 0 already covers is the same
//! fix, and is dropped.
//!
//! Deliberately conservative: a missed moment costs a lesson the command
//! backend may still find; a wrong one costs a person's review time.

use std::collections::{BTreeMap, HashMap};
use std::sync::OnceLock;

use regex::Regex;

use super::text::{as_summary, plain, sentences};
use super::transcript::{Block, Role, Transcript};
use super::{artifact, Kind, Moment, MAX_DETAIL_CHARS, MAX_FILES, MAX_SUMMARY_CHARS};
use crate::model::{Artifact, Id};
use crate::pipeline::offline_transform::analyse;

/// The rules of the offline capture backend, as the module doc states them.
pub const RULES: &str = "\
offline capture rules (deterministic, no network, no model):
0. Evidence: a resolver error or a failed install/build/test, the changes after it (install commands, manifest edits, \
installers' reports) and the run that then succeeded become one moment with those facts, drafted by src/facts/lesson.rs; \
sentence moments about the same packages are dropped.
1. Sources: assistant text blocks, and the results of every tool except the file readers (Read, Grep, Glob, LS, NotebookRead). \
User prompts, tool calls and thinking are not read.
2. Text: markdown flattened (fences, heading and quote marks, backticks, ** and __ removed), cut into sentences as the offline transform cuts them.
3. Resolution: a sentence the offline transform takes as a resolution (fixed by, resolved by, fix:, workaround:, pin/pinned, \
upgraded ... to, downgraded, switched to, ...; not a question, not negated or hedged) that states no plan or option \
(let me, I'll, going to, should, could, try, options, you can, ...).
4. Moment: summary = that sentence (leading I/We dropped, at most 240 characters); detail = up to 3 sentences before and 2 after \
in the same block, those naming a package at a version first; files = files the assistant edited since the last prompt; kind = decision. Kept only when the offline \
transform finds in it the resolution and a package at a version (name 1.2.3, name@1.2.3, name v18) outside the remedy.
5. One moment per fix: moments scoped to the same packages at the same versions are one; assistant text first, then the earliest.
";

/// Tools whose output is a file's content, not something that happened.
pub const FILE_READERS: &[&str] = &["Read", "Grep", "Glob", "LS", "NotebookRead"];

/// Tools that change files: what a moment's `files` lists.
pub const EDITORS: &[&str] = &["Edit", "MultiEdit", "Write", "NotebookEdit"];

/// Words and phrases of a plan, an option or advice, not a resolution that
/// happened (matched case-insensitively as whole words; `’` counts as `'`).
pub const PLAN_WORDS: &[&str] = &[
    "let me",
    "let's",
    "let us",
    "i'll",
    "i will",
    "we'll",
    "we will",
    "i'm going to",
    "we're going to",
    "going to",
    "should",
    "shall",
    "would",
    "could",
    "need to",
    "needs to",
    "want to",
    "wants to",
    "try",
    "trying",
    "attempt",
    "attempting",
    "plan",
    "planning",
    "option",
    "options",
    "either",
    "alternatively",
    "suggest",
    "suggests",
    "suggested",
    "recommend",
    "recommends",
    "recommended",
    "you can",
    "you could",
    "you may",
];

/// Sentences of context kept before the resolution sentence.
pub const CONTEXT_BEFORE: usize = 3;

/// Sentences of context kept after it.
pub const CONTEXT_AFTER: usize = 2;

/// Lower-case stems of every resolution cue of the offline transform: a
/// sentence without one cannot match a cue, so the transform is not asked.
const CUE_STEMS: &[&str] = &[
    "fix",
    "resolv",
    "solv",
    "solution",
    "workaround",
    "pin",
    "upgrad",
    "bump",
    "downgrad",
    "switch",
    "migrat",
    "revert",
    "replac",
    "set ",
];

fn plan() -> Option<&'static Regex> {
    static RE: OnceLock<Option<Regex>> = OnceLock::new();
    RE.get_or_init(|| {
        let words = PLAN_WORDS
            .iter()
            .map(|w| regex::escape(w))
            .collect::<Vec<_>>()
            .join("|");
        Regex::new(&format!(
            r"(?i)(?:^|[^a-z0-9_'])(?:{words})(?:$|[^a-z0-9_'])"
        ))
        .ok()
    })
    .as_ref()
}

/// Whether the sentence states a plan, an option or advice (rule 3). Were
/// the pattern ever not to compile, every sentence counts as a plan: the
/// backend then finds nothing, the safe direction.
fn is_plan(sentence: &str) -> bool {
    plan().is_none_or(|re| re.is_match(&sentence.replace('’', "'")))
}

/// An artifact holding only a summary and a detail: what the offline
/// transform reads.
fn probe(summary: &str, detail: Option<&str>) -> Artifact {
    Artifact {
        id: Id::from_parts(0, 0),
        kind: Kind::Decision.as_str().into(),
        project_key: String::new(),
        source: None,
        created_at: String::new(),
        updated_at: None,
        summary: summary.into(),
        detail: detail.map(Into::into),
        files: Vec::new(),
        session_id: None,
        trigger: None,
        facts: Vec::new(),
    }
}

/// A moment found, before rule 5.
struct Found {
    moment: Moment,
    scope: BTreeMap<String, String>,
    from_tool: bool,
}

/// Rules 2–4 over one block of text.
fn from_block(text: &str, event: &str, files: &[String], from_tool: bool, out: &mut Vec<Found>) {
    if !text.bytes().any(|b| b.is_ascii_digit()) {
        return;
    }
    let all = sentences(&plain(text));
    for (i, sentence) in all.iter().enumerate() {
        let lower = sentence.to_lowercase();
        if !CUE_STEMS.iter().any(|s| lower.contains(s)) || is_plan(sentence) {
            continue;
        }
        if analyse(&probe(sentence, None)).resolution.is_none() {
            continue;
        }
        let summary = as_summary(sentence, MAX_SUMMARY_CHARS);
        let window: Vec<&str> = all[i.saturating_sub(CONTEXT_BEFORE)..i]
            .iter()
            .chain(all.iter().skip(i + 1).take(CONTEXT_AFTER))
            .map(String::as_str)
            .collect();
        // Sentences naming a package at a version (the cause) lead: the
        // transform takes the first detail sentence as the rationale.
        let (versioned, rest): (Vec<&str>, Vec<&str>) = window
            .into_iter()
            .partition(|s| !analyse(&probe(s, None)).versions.is_empty());
        let context: Vec<&str> = versioned.into_iter().chain(rest).collect();
        let detail =
            (!context.is_empty()).then(|| super::text::clip(&context.join("\n"), MAX_DETAIL_CHARS));
        let analysis = analyse(&probe(&summary, detail.as_deref()));
        if analysis.resolution.is_none() || analysis.versions.is_empty() {
            continue;
        }
        out.push(Found {
            moment: Moment {
                event: event.to_owned(),
                kind: Kind::Decision,
                summary,
                detail,
                files: files.to_vec(),
                facts: Vec::new(),
            },
            scope: analysis.versions,
            from_tool,
        });
    }
}

/// The moments of a transcript: the session's evidence first (rule 0,
/// `super::evidence`), then rules 1–5 for what the evidence did not cover,
/// in transcript order.
pub fn moments(t: &Transcript) -> Vec<Moment> {
    let mut evidence = super::evidence::moments(t);
    let covered: Vec<String> = evidence
        .iter()
        .flat_map(|m| m.facts.iter().flat_map(|f| f.packages()))
        .map(crate::facts::prose::canonical)
        .collect();
    let prose: Vec<Moment> = prose_moments(t)
        .into_iter()
        .filter(|m| {
            // One moment per fix: a sentence about a fix the evidence
            // already holds is that fix.
            let names = crate::pipeline::offline_transform::analyse(&probe(
                &m.summary,
                m.detail.as_deref(),
            ))
            .versions;
            !names
                .keys()
                .any(|n| covered.contains(&crate::facts::prose::canonical(n)))
        })
        .collect();
    evidence.extend(prose);
    // Indexes of the moments' events only: a map over every event of a
    // 32 MiB transcript would cost megabytes for a handful of moments.
    let wanted: std::collections::HashSet<&str> =
        evidence.iter().map(|m| m.event.as_str()).collect();
    let order: HashMap<&str, usize> = t
        .events
        .iter()
        .enumerate()
        .filter(|(_, e)| wanted.contains(e.uuid.as_str()))
        .map(|(i, e)| (e.uuid.as_str(), i))
        .collect();
    evidence.sort_by_key(|m| order.get(m.event.as_str()).copied().unwrap_or(usize::MAX));
    evidence
}

/// Rules 1–5: the moments stated in sentences.
fn prose_moments(t: &Transcript) -> Vec<Moment> {
    let tool_names: HashMap<&str, &str> = t
        .events
        .iter()
        .flat_map(|e| &e.blocks)
        .filter_map(|b| match b {
            Block::ToolUse { id, name, .. } if !id.is_empty() => Some((id.as_str(), name.as_str())),
            _ => None,
        })
        .collect();
    let cwd = t.cwd.as_deref();
    let mut edited: Vec<String> = Vec::new();
    let mut found: Vec<Found> = Vec::new();
    for event in &t.events {
        if event.is_prompt() {
            edited.clear();
            continue;
        }
        for block in &event.blocks {
            match block {
                Block::ToolUse {
                    name,
                    path: Some(path),
                    ..
                } if EDITORS.contains(&name.as_str()) => {
                    if let Some(rel) = artifact::relative_file(path, cwd) {
                        if !edited.contains(&rel) && edited.len() < MAX_FILES {
                            edited.push(rel);
                        }
                    }
                }
                Block::Text(text) if event.role == Role::Assistant => {
                    from_block(text, &event.uuid, &edited, false, &mut found);
                }
                Block::ToolResult {
                    tool_use_id, text, ..
                } => {
                    let reader = tool_names
                        .get(tool_use_id.as_str())
                        .is_some_and(|n| FILE_READERS.contains(n));
                    if !reader {
                        from_block(text, &event.uuid, &edited, true, &mut found);
                    }
                }
                _ => {}
            }
        }
    }
    // Rule 5: per scope, the first from assistant text, else the first.
    let mut keep: Vec<bool> = vec![false; found.len()];
    let mut chosen: BTreeMap<&BTreeMap<String, String>, usize> = BTreeMap::new();
    for (i, f) in found.iter().enumerate() {
        let take = match chosen.get(&f.scope) {
            None => true,
            // Assistant text displaces a tool result; otherwise the earlier stays.
            Some(&j) => found[j].from_tool && !f.from_tool,
        };
        if take {
            chosen.insert(&f.scope, i);
        }
    }
    for &i in chosen.values() {
        keep[i] = true;
    }
    found
        .into_iter()
        .zip(keep)
        .filter_map(|(f, k)| k.then_some(f.moment))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pipeline::capture::testdata::transcript;
    use crate::pipeline::capture::{read_transcript, Limits};

    const FINAL_EVENT: &str = "00000014-4c1d-4e2a-9b7f-a11ce0000014";
    const FAILED_TEST_EVENT: &str = "00000005-4c1d-4e2a-9b7f-a11ce0000005";

    #[test]
    fn the_version_mismatch_session_yields_exactly_its_evidence() {
        // Rule 0 finds the failed test run, the requirement stated in the
        // fetched guide and by the assistant, the manifest edit and the
        // install that succeeded; the final message restates that fix and
        // is not a second moment.
        let found = moments(&transcript("version-mismatch"));
        assert_eq!(found.len(), 1, "{found:?}");
        let m = &found[0];
        assert_eq!(m.event, FAILED_TEST_EVENT);
        assert_eq!(
            m.summary,
            "vitest 4.0+ requires vite 6.0 or newer; with vite 5.4.21 pin vitest to 3.2.4"
        );
        assert_eq!(
            m.detail.as_deref(),
            Some(
                "The session states: Vitest 4.0 requires Vite 6.0 or newer and Node.js 20 or newer. It was resolved by: edited package.json: vitest ^4.0.5 -> 3.2.4.\n\
                 Pin vitest to 3.2.4 in package.json until vite is upgraded to 6.0 or newer."
            )
        );
        assert_eq!(m.files, ["package.json"]);
        assert!(m
            .facts
            .iter()
            .any(|f| matches!(f, crate::facts::Fact::Outcome(o) if o.command == "pnpm install")));
        // Without rule 0, the sentence rules still find the final message.
        let prose = prose_moments(&transcript("version-mismatch"));
        assert_eq!(prose.len(), 1);
        assert_eq!(prose[0].event, FINAL_EVENT);
    }

    #[test]
    fn a_session_without_a_lesson_yields_nothing() {
        assert_eq!(moments(&transcript("no-lesson")), []);
        assert_eq!(moments(&transcript("truncated")), []);
    }

    #[test]
    fn the_file_readers_are_not_sources() {
        // The no-lesson session reads a changelog whose "Fixed by …" names
        // date-fns 4.0.0; printed by a command instead, it is a moment.
        let t = transcript("no-lesson");
        let mut as_command = t.clone();
        for e in &mut as_command.events {
            for b in &mut e.blocks {
                if let Block::ToolUse { name, .. } = b {
                    if name == "Read" {
                        *name = "Bash".into();
                    }
                }
            }
        }
        let found = moments(&as_command);
        assert_eq!(found.len(), 1, "{found:?}");
        assert!(found[0]
            .summary
            .starts_with("Fixed by switching format to ISO"));
    }

    #[test]
    fn plans_options_and_advice_are_not_resolutions() {
        for plan in [
            "Let me pin vitest to 3.2.4.",
            "Let’s pin vitest to 3.2.4.",
            "I'll downgrade node to 18.19.0.",
            "Two options: upgrade vite to 6.x, or pin vitest to 3.x.",
            "You can pin vitest to 3.2.4 until Vite 6.",
            "We should pin vitest to 3.2.4.",
            "Try pinning vitest to 3.2.4.",
        ] {
            assert!(is_plan(plan), "{plan}");
        }
        for done in [
            "Pinned vitest to 3.2.4.",
            "Fixed by pinning vitest to 3.2.4 instead of upgrading vite.",
            "Resolved by downgrading node to 18.19.0; the suite passes.",
            "Entry: the retry count was raised.",
        ] {
            assert!(!is_plan(done), "{done}");
        }
    }

    #[test]
    fn every_cue_of_the_transform_has_a_stem() {
        // The transform's own positive examples all pass the prefilter.
        for s in [
            "Fixed by pinning vite.",
            "The fix was to set NODE_OPTIONS to --max-old-space-size=4096.",
            "fix(deps): pin vite to 5.4.21",
            "Solution: use the forks pool.",
            "Workaround: disable isolation.",
            "We pinned vitest to 4.1.8.",
            "Upgrading webpack to 5.90.1 fixed it.",
            "Downgraded node to 18.19.0.",
            "Switched to pnpm 9.1.0.",
            "Migrated to vite 6.0.1.",
            "Resolved by reverting to 2.3.1.",
            "Bumped eslint to 9.1.0.",
            "Replaced moment 2.29.4 with dayjs 1.11.10.",
            "Solved with a retry.",
        ] {
            assert!(analyse(&probe(s, None)).resolution.is_some(), "{s}");
            let lower = s.to_lowercase();
            assert!(CUE_STEMS.iter().any(|c| lower.contains(c)), "{s}");
        }
    }

    fn session(lines: &[&str]) -> Transcript {
        let body: String = lines.iter().map(|l| format!("{l}\n")).collect();
        read_transcript(body.as_bytes(), Limits::default()).unwrap()
    }

    fn assistant(uuid: &str, text: &str) -> String {
        serde_json::json!({"type": "assistant", "uuid": uuid, "sessionId": "s1",
            "timestamp": "2026-06-10T09:00:00Z", "cwd": "/w",
            "message": {"role": "assistant", "content": [{"type": "text", "text": text}]}})
        .to_string()
    }

    #[test]
    fn a_restated_fix_is_one_moment_and_assistant_text_wins() {
        let tool = serde_json::json!({"type": "user", "uuid": "r1", "sessionId": "s1",
            "timestamp": "2026-06-10T09:00:00Z",
            "message": {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1",
                "content": "next 14.2.3 hydration fails with react 18.3.1.\nFixed by pinning react to 18.2.0."}]}})
        .to_string();
        let t = session(&[
            &tool,
            &assistant(
                "a1",
                "next 14.2.3 breaks hydration with react 18.3.1. Fixed by pinning react to 18.2.0.",
            ),
            &assistant(
                "a2",
                "Summary: with react 18.3.1 and next 14.2.3, pinned react to 18.2.0.",
            ),
            &assistant(
                "a3",
                "Separately, vite 5.4.21 dev server crashed; fixed by setting server.hmr to false.",
            ),
        ]);
        let events: Vec<String> = moments(&t).into_iter().map(|m| m.event).collect();
        assert_eq!(events, ["a1", "a3"]);
    }

    #[test]
    fn a_resolution_without_versions_or_with_only_the_remedy_is_no_moment() {
        let t = session(&[
            &assistant("a1", "Fixed by renaming the variable."),
            &assistant("a2", "Tests pass: fixed by upgrading vite to 6.0.1."),
            &assistant("a3", "Pinning vite 5.4.21 did not help."),
            &assistant("a4", "Should we pin vite to 5.4.21?"),
        ]);
        assert_eq!(moments(&t), []);
    }

    #[test]
    fn first_person_is_dropped_from_the_summary_and_files_are_this_turns() {
        let edit = |uuid: &str, path: &str| {
            serde_json::json!({"type": "assistant", "uuid": uuid, "sessionId": "s1",
                "timestamp": "2026-06-10T09:00:00Z", "cwd": "/w",
                "message": {"role": "assistant", "content": [{"type": "tool_use", "id": format!("t{uuid}"),
                    "name": "Edit", "input": {"file_path": path, "old_string": "a", "new_string": "b"}}]}})
            .to_string()
        };
        let prompt = |uuid: &str| {
            serde_json::json!({"type": "user", "uuid": uuid, "sessionId": "s1", "cwd": "/w",
                "message": {"role": "user", "content": "next"}})
            .to_string()
        };
        let t = session(&[
            &prompt("p0"),
            &edit("e0", "/w/old.ts"),
            &prompt("p1"),
            &edit("e1", "/w/package.json"),
            &edit("e2", "/elsewhere/x.ts"),
            &edit("e3", "/w/package.json"),
            &assistant(
                "a1",
                "Node v18 lacks fetch. I pinned node to 20.11.1 in .nvmrc.",
            ),
        ]);
        let found = moments(&t);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].summary, "Pinned node to 20.11.1 in .nvmrc.");
        assert_eq!(found[0].detail.as_deref(), Some("Node v18 lacks fetch."));
        assert_eq!(found[0].files, ["package.json"]);
    }

    #[test]
    fn huge_blocks_stay_linear() {
        // Every sentence has a cue stem and a version, so each one is
        // handed to the transform; none is a resolution ("not").
        let text = "The pin on vite 5.4.21 is not the cause here. ".repeat(2_000);
        let t = session(&[&assistant("a1", &text)]);
        assert_eq!(moments(&t), []);
    }

    #[test]
    fn rules_name_what_the_code_reads() {
        for name in FILE_READERS {
            assert!(RULES.contains(name), "{name}");
        }
        assert!(RULES.contains(&CONTEXT_BEFORE.to_string()));
        assert!(RULES.contains(&MAX_SUMMARY_CHARS.to_string()));
    }
}
