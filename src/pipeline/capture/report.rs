//! An agent's report of a moment becomes an archivist artifact: what the
//! MCP server's `propose` tool hands to ingest (`crate::ops::propose`).
//!
//! An agent that resolved something mid-session says so in a [`Report`]:
//! a kind, one sentence, a detail, the files, and the output it saw (an
//! installer's error, a test run). Nothing in it is trusted:
//!
//! - **Bounds.** The summary is 1 to [`MAX_SUMMARY_CHARS`] characters, the
//!   detail at most [`MAX_DETAIL_CHARS`], at most [`MAX_FILES`] files of
//!   at most [`MAX_FILE_CHARS`], at most [`MAX_EVIDENCE`] pieces of output
//!   of at most [`MAX_EVIDENCE_CHARS`] each (capture's bounds, and the
//!   evidence's own).
//! - **Hidden text is refused, not cleaned.** A bidirectional control
//!   anywhere, an invisible character in the summary or a file, more than
//!   [`MAX_INVISIBLE_RUN`] in a row in the detail or the output, or a
//!   control character other than a line feed, tab or carriage return in
//!   the summary, detail or files: the report is refused, naming the field,
//!   the character and where it is ([`ReportError::Hidden`]). What the
//!   agent saw on a terminal may hold colour escapes and other controls:
//!   those are taken out as capture takes them out of a tool's output.
//! - **Id.** Content-addressed, like capture's: a ULID whose time is the
//!   start of the report's UTC day and whose 80 random bits are the first
//!   80 bits of sha256 of
//!
//!   ```text
//!   git-lore report v1
//!   project <project key>
//!   kind <kind>
//!   summary <summary, white space collapsed>
//!   ```
//!
//!   so the same moment reported again that day (a retried call, a second
//!   agent on the same project) is the same artifact, which ingest skips
//!   as `seen`. The detail, files and output do not enter the id.
//! - **Facts** are read from the summary, the detail and the whole output
//!   ([`crate::facts::of_text`]); the detail ends with an excerpt of each
//!   piece of output (its first and last lines), so the transform and the
//!   judges see what the agent saw.
//! - **Secrets** the disclosure scanner finds are replaced everywhere
//!   ([`super::redact`]), and the detail says how many of which kinds; a
//!   text that cannot be made clean refuses the report.
//! - **Provenance.** `source` is [`SOURCE`], `trigger` `auto` (an agent,
//!   not a person, chose to report it), `session_id` `mcp:<artifact id>`
//!   (a lesson needs provenance, and an MCP client names no session to
//!   its servers: a report is its own, as a mined commit is), `created_at` the
//!   report's time.
//!
//! Pure: the caller passes the time, the project key and the project
//! directory; nothing here reads a clock, a file or git.

use super::artifact::{clean_fact, redaction_note, relative_file};
use super::redact::{redact, RedactError};
use super::text::{collapse, head_tail, sanitize};
use super::{Kind, MomentError, MAX_DETAIL_CHARS, MAX_FILES, MAX_FILE_CHARS, MAX_SUMMARY_CHARS};
use crate::content::record::MAX_INVISIBLE_RUN;
use crate::content::text::{class, Class};
use crate::model::{iso, Artifact, Id};
use crate::pipeline::commits::{artifact_id, MAX_TIME_MS};
use crate::scanner::FindingKind;
use crate::schema::{self, SchemaKind};

/// The first line of every normalised report: a new scheme gets a new one.
pub const ID_SCHEME: &str = "git-lore report v1";

/// The `source` of a reported artifact.
pub const SOURCE: &str = "mcp";

/// The most pieces of output one report carries.
pub const MAX_EVIDENCE: usize = 8;

/// The longest piece of output, in characters.
pub const MAX_EVIDENCE_CHARS: usize = 20_000;

/// How much of each piece of output the detail quotes: its first and last
/// characters.
const EXCERPT_HEAD: usize = 600;
const EXCERPT_TAIL: usize = 1_400;

/// A day, in milliseconds: the granularity of a report's id.
const DAY_MS: i64 = 24 * 3600 * 1000;

/// What an agent reports.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Report {
    pub kind: Kind,
    /// One sentence: what happened.
    pub summary: String,
    /// The cause, the evidence, the remedy.
    pub detail: Option<String>,
    /// Files it concerns: relative to the project, or absolute inside it.
    pub files: Vec<String>,
    /// Output the agent saw, as it was printed.
    pub evidence: Vec<String>,
}

/// What the caller knows that the report does not say.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Origin<'a> {
    /// The project's 12-hex key.
    pub project_key: &'a str,
    /// The project directory, which absolute file paths are made relative
    /// to.
    pub project_dir: Option<&'a str>,
    /// When it was reported.
    pub at: jiff::Timestamp,
}

/// A report made an artifact.
#[derive(Clone, Debug, PartialEq)]
pub struct Reported {
    /// The artifact, schema-valid.
    pub artifact: Artifact,
    /// The kinds of the findings redacted from it, in order.
    pub redacted: Vec<FindingKind>,
}

/// Why a report yields no artifact. Nothing is written for it.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ReportError {
    #[error("the summary is empty")]
    EmptySummary,
    #[error("the summary has {chars} characters, over the limit of {limit}: one sentence, the rest goes in detail")]
    SummaryTooLong { chars: usize, limit: usize },
    #[error("the detail has {chars} characters, over the limit of {limit}")]
    DetailTooLong { chars: usize, limit: usize },
    #[error("{count} files, over the limit of {limit}")]
    TooManyFiles { count: usize, limit: usize },
    #[error("file {index} is empty or over {limit} characters")]
    BadFile { index: usize, limit: usize },
    #[error("{count} pieces of output, over the limit of {limit}: give the ones that show the failure and the fix")]
    TooMuchEvidence { count: usize, limit: usize },
    #[error("output {index} has {chars} characters, over the limit of {limit}: give the lines that matter")]
    EvidenceTooLong {
        index: usize,
        chars: usize,
        limit: usize,
    },
    /// A character that hides, reorders or forges text.
    #[error("{field} holds {what} (U+{code:04X} at character {at}); write the text as it reads")]
    Hidden {
        field: String,
        what: &'static str,
        code: u32,
        at: usize,
    },
    #[error("{field} holds text the disclosure scanner flags and that could not be redacted")]
    Secret {
        field: &'static str,
        #[source]
        source: RedactError,
    },
    #[error("project key {0:?} is not 12 lower-case hex characters")]
    BadProjectKey(String),
    #[error("the time of the report is outside what an artifact id can hold")]
    TimeOutOfRange,
    #[error("it does not make a valid artifact: {0}")]
    SchemaInvalid(String),
}

/// The normalised report an id hashes (see the module doc).
pub fn normalised(project_key: &str, kind: Kind, summary: &str) -> String {
    format!(
        "{ID_SCHEME}\nproject {project_key}\nkind {kind}\nsummary {}",
        collapse(summary)
    )
}

/// Which characters a field may hold.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Field {
    /// One line: nothing hidden, no control (white space is collapsed).
    Line,
    /// Text a person wrote: line feeds, tabs and carriage returns, and
    /// short runs of invisible characters (an emoji's joiner).
    Text,
    /// Output as printed: any control (they are taken out later), short
    /// runs of invisible characters.
    Output,
}

/// The first character of `s` its field may not hold.
fn hidden(field: &str, s: &str, kind: Field) -> Result<(), ReportError> {
    let mut run = 0;
    for (at, c) in s.chars().enumerate() {
        let refused = match class(c) {
            Class::Bidi => Some("a bidirectional control"),
            Class::Invisible => {
                run += 1;
                (kind == Field::Line || run > MAX_INVISIBLE_RUN).then_some(if kind == Field::Line {
                    "an invisible character"
                } else {
                    "a run of invisible characters"
                })
            }
            Class::Control => match kind {
                Field::Output => None,
                Field::Text if c == '\r' => None,
                Field::Line | Field::Text => Some("a control character"),
            },
            Class::Text | Class::LineFeed | Class::Tab | Class::Separator => None,
        };
        if class(c) != Class::Invisible {
            run = 0;
        }
        if let Some(what) = refused {
            return Err(ReportError::Hidden {
                field: field.to_owned(),
                what,
                code: c as u32,
                at: at + 1,
            });
        }
    }
    Ok(())
}

/// Checks a report's bounds and characters (see the module doc).
pub fn check(r: &Report) -> Result<(), ReportError> {
    let summary = r.summary.trim();
    if summary.is_empty() {
        return Err(ReportError::EmptySummary);
    }
    let chars = summary.chars().count();
    if chars > MAX_SUMMARY_CHARS {
        return Err(ReportError::SummaryTooLong {
            chars,
            limit: MAX_SUMMARY_CHARS,
        });
    }
    hidden("the summary", &r.summary, Field::Line)?;
    if let Some(d) = &r.detail {
        let chars = d.chars().count();
        if chars > MAX_DETAIL_CHARS {
            return Err(ReportError::DetailTooLong {
                chars,
                limit: MAX_DETAIL_CHARS,
            });
        }
        hidden("the detail", d, Field::Text)?;
    }
    if r.files.len() > MAX_FILES {
        return Err(ReportError::TooManyFiles {
            count: r.files.len(),
            limit: MAX_FILES,
        });
    }
    for (i, f) in r.files.iter().enumerate() {
        if f.trim().is_empty() || f.chars().count() > MAX_FILE_CHARS {
            return Err(ReportError::BadFile {
                index: i + 1,
                limit: MAX_FILE_CHARS,
            });
        }
        hidden(&format!("file {}", i + 1), f, Field::Line)?;
    }
    if r.evidence.len() > MAX_EVIDENCE {
        return Err(ReportError::TooMuchEvidence {
            count: r.evidence.len(),
            limit: MAX_EVIDENCE,
        });
    }
    for (i, e) in r.evidence.iter().enumerate() {
        let chars = e.chars().count();
        if chars > MAX_EVIDENCE_CHARS {
            return Err(ReportError::EvidenceTooLong {
                index: i + 1,
                chars,
                limit: MAX_EVIDENCE_CHARS,
            });
        }
        hidden(&format!("output {}", i + 1), e, Field::Output)?;
    }
    Ok(())
}

/// Builds the artifact of a report (see the module doc).
pub fn build(r: &Report, o: &Origin<'_>) -> Result<Reported, ReportError> {
    let key = o.project_key;
    if key.len() != 12 || !key.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f')) {
        return Err(ReportError::BadProjectKey(super::text::clip(key, 40)));
    }
    check(r)?;
    let ms = o.at.as_millisecond();
    if !(0..=MAX_TIME_MS).contains(&ms) {
        return Err(ReportError::TimeOutOfRange);
    }
    let day = ms - ms.rem_euclid(DAY_MS);
    let id: Id = artifact_id(day.unsigned_abs(), &normalised(key, r.kind, &r.summary));

    let output: Vec<String> = r.evidence.iter().map(|e| sanitize(e)).collect();
    let detail = r.detail.as_deref().map(str::trim).unwrap_or_default();
    // Facts come from everything the agent said and saw, before any of it
    // is cut; each is redacted like the rest.
    let mut all = format!("{}\n{detail}", r.summary);
    for e in &output {
        all.push('\n');
        all.push_str(e);
    }
    let found = crate::facts::of_text(&all);

    let mut redacted = Vec::new();
    let mut clean = |field: &'static str, s: &str| -> Result<String, ReportError> {
        let c = redact(&sanitize(s)).map_err(|source| ReportError::Secret { field, source })?;
        redacted.extend(c.kinds);
        Ok(c.text)
    };
    let summary = clean("the summary", &collapse(&r.summary))?;
    let mut text = if detail.is_empty() {
        String::new()
    } else {
        clean("the detail", detail)?
    };
    for e in &output {
        let e = e.trim();
        if e.is_empty() {
            continue;
        }
        if !text.is_empty() {
            text.push_str("\n\n");
        }
        text.push_str("Output the agent saw:\n");
        text.push_str(&clean(
            "the output",
            &head_tail(e, EXCERPT_HEAD, EXCERPT_TAIL),
        )?);
    }
    let mut files: Vec<String> = Vec::new();
    for f in &r.files {
        // As capture does: an absolute path is made relative before it is
        // redacted (a project in a home directory leaves no redaction
        // behind); anything else is redacted first.
        let rel = if std::path::Path::new(f.trim()).is_absolute() {
            relative_file(f, o.project_dir)
                .map(|rel| clean("a file", &rel))
                .transpose()?
        } else {
            relative_file(&clean("a file", f)?, o.project_dir)
        };
        if let Some(rel) = rel.filter(|r| !files.contains(r)) {
            files.push(rel);
        }
    }
    let mut facts = Vec::new();
    {
        let mut fact_clean = |s: &str| -> Result<String, MomentError> {
            let c = redact(&sanitize(s)).map_err(MomentError::Secret)?;
            redacted.extend(c.kinds);
            Ok(c.text)
        };
        for f in &found {
            match clean_fact(f, &mut fact_clean) {
                Ok(Some(f)) => facts.push(f),
                Ok(None) => {}
                Err(MomentError::Secret(source)) => {
                    return Err(ReportError::Secret {
                        field: "the output",
                        source,
                    })
                }
                Err(other) => return Err(ReportError::SchemaInvalid(other.to_string())),
            }
        }
    }
    if !redacted.is_empty() {
        if !text.is_empty() {
            text.push_str("\n\n");
        }
        text.push_str(&redaction_note(&redacted));
    }
    let created = iso(o.at);
    let artifact = Artifact {
        id,
        kind: r.kind.as_str().into(),
        project_key: key.into(),
        source: Some(SOURCE.into()),
        created_at: created.clone(),
        updated_at: Some(created),
        summary,
        detail: (!text.is_empty()).then_some(text),
        files,
        session_id: Some(format!("{SOURCE}:{id}")),
        // The artifact schema's word for what no person asked for.
        trigger: Some("auto".into()),
        facts,
    };
    let value =
        serde_json::to_value(&artifact).map_err(|e| ReportError::SchemaInvalid(e.to_string()))?;
    schema::validate(SchemaKind::Artifact, &value).map_err(|violations| {
        ReportError::SchemaInvalid(
            violations
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join("; "),
        )
    })?;
    Ok(Reported { artifact, redacted })
}

#[cfg(test)]
mod tests {
    use super::*;

    const KEY: &str = "3f9c2a7b1d04";
    const RESOLVER: &str = "npm error code ERESOLVE\nnpm error ERESOLVE unable to resolve dependency tree\nnpm error\nnpm error While resolving: app@1.0.0\nnpm error Found: vite@5.4.21\nnpm error node_modules/vite\nnpm error   dev vite@\"^5.4.21\" from the root project\nnpm error\nnpm error Could not resolve dependency:\nnpm error peer vite@\"^6.0.0 || ^7.0.0\" from vitest@4.0.5\nnpm error node_modules/vitest\nnpm error   dev vitest@\"^4.0.5\" from the root project\n";

    fn report() -> Report {
        Report {
            kind: Kind::Decision,
            summary: "Vitest 4.0.5 needs Vite 6; pinned vitest to 3.2.4 on vite 5.4.21.".into(),
            detail: Some(
                "npm install failed with ERESOLVE. Pinning vitest to 3.2.4 fixed it.".into(),
            ),
            files: vec!["package.json".into(), "/work/app/src/a.test.ts".into()],
            evidence: vec![format!("\u{1b}[31m{RESOLVER}\u{1b}[0m")],
        }
    }

    fn origin() -> Origin<'static> {
        Origin {
            project_key: KEY,
            project_dir: Some("/work/app"),
            at: "2026-08-05T10:00:00Z".parse().unwrap(),
        }
    }

    #[test]
    fn a_report_becomes_an_artifact_with_facts_and_the_output_it_saw() {
        let r = build(&report(), &origin()).unwrap();
        let a = &r.artifact;
        assert_eq!(a.kind, "decision");
        assert_eq!(
            (a.source.as_deref(), a.trigger.as_deref()),
            (Some("mcp"), Some("auto"))
        );
        assert_eq!(a.session_id, Some(format!("mcp:{}", a.id)));
        assert_eq!(a.created_at, "2026-08-05T10:00:00Z");
        assert_eq!(a.files, ["package.json", "src/a.test.ts"]);
        let detail = a.detail.as_deref().unwrap();
        assert!(
            detail.starts_with("npm install failed with ERESOLVE."),
            "{detail}"
        );
        assert!(
            detail.contains("\n\nOutput the agent saw:\nnpm error code ERESOLVE"),
            "{detail}"
        );
        assert!(
            !detail.contains('\u{1b}'),
            "colour escapes are taken out: {detail:?}"
        );
        let json = serde_json::to_value(&a.facts).unwrap();
        assert!(
            json.as_array()
                .unwrap()
                .iter()
                .any(|f| f["fact"] == "requirement"
                    && f["package"] == "vite"
                    && f["found"] == "5.4.21"),
            "the resolver error is a fact: {json:#}"
        );
        assert!(r.redacted.is_empty());
    }

    #[test]
    fn the_same_moment_the_same_day_is_the_same_artifact() {
        let a = build(&report(), &origin()).unwrap().artifact;
        let mut later = origin();
        later.at = "2026-08-05T23:59:59Z".parse().unwrap();
        let mut other_words = report();
        other_words.detail = Some("Said differently.".into());
        other_words.summary = format!("  {}  ", other_words.summary.replace(' ', "\n "));
        let b = build(&other_words, &later).unwrap().artifact;
        assert_eq!(a.id, b.id, "detail and white space do not enter the id");
        assert_eq!(
            a.id.timestamp_ms(),
            "2026-08-05T00:00:00Z"
                .parse::<jiff::Timestamp>()
                .unwrap()
                .as_millisecond() as u64
        );
        let mut next_day = origin();
        next_day.at = "2026-08-06T00:00:00Z".parse().unwrap();
        assert_ne!(build(&report(), &next_day).unwrap().artifact.id, a.id);
        let mut other_kind = report();
        other_kind.kind = Kind::DeadEnd;
        assert_ne!(build(&other_kind, &origin()).unwrap().artifact.id, a.id);
        let mut other_project = origin();
        other_project.project_key = "000000000000";
        assert_ne!(build(&report(), &other_project).unwrap().artifact.id, a.id);
    }

    #[test]
    fn secrets_are_redacted_and_said_so() {
        let mut r = report();
        r.evidence
            .push("export AWS_ACCESS_KEY_ID=AKIA4ZQ7XKD2NPLM3R8T".into());
        let built = build(&r, &origin()).unwrap();
        let detail = built.artifact.detail.unwrap();
        assert!(!detail.contains("AKIA4ZQ7XKD2NPLM3R8T"), "{detail}");
        assert!(detail.contains("[redacted:aws_access_key]"), "{detail}");
        assert!(
            detail.ends_with(
                "Redacted by git-lore capture: 1 disclosure scanner finding (aws_access_key)."
            ),
            "{detail}"
        );
        assert_eq!(built.redacted.len(), 1);
    }

    #[test]
    fn bounds_and_hidden_text_are_refused_naming_what_and_where() {
        let with = |f: &dyn Fn(&mut Report)| {
            let mut r = report();
            f(&mut r);
            build(&r, &origin()).unwrap_err().to_string()
        };
        assert_eq!(with(&|r| r.summary = " \n".into()), "the summary is empty");
        assert_eq!(
            with(&|r| r.summary = "x".repeat(241)),
            "the summary has 241 characters, over the limit of 240: one sentence, the rest goes in detail"
        );
        assert_eq!(
            with(&|r| r.detail = Some("x".repeat(4001))),
            "the detail has 4001 characters, over the limit of 4000"
        );
        assert_eq!(
            with(&|r| r.files = vec!["a".into(); 51]),
            "51 files, over the limit of 50"
        );
        assert_eq!(
            with(&|r| r.files = vec![" ".into()]),
            "file 1 is empty or over 512 characters"
        );
        assert_eq!(
            with(&|r| r.evidence = vec!["x".into(); 9]),
            "9 pieces of output, over the limit of 8: give the ones that show the failure and the fix"
        );
        assert_eq!(
            with(&|r| r.evidence = vec!["x".repeat(20_001)]),
            "output 1 has 20001 characters, over the limit of 20000: give the lines that matter"
        );
        assert_eq!(
            with(&|r| r.summary = "pin vite\u{202e}6.0.1".into()),
            "the summary holds a bidirectional control (U+202E at character 9); write the text as it reads"
        );
        assert_eq!(
            with(&|r| r.summary = "pin\u{200b} vite".into()),
            "the summary holds an invisible character (U+200B at character 4); write the text as it reads"
        );
        assert_eq!(
            with(&|r| r.detail = Some("ok\u{1b}[2J".into())),
            "the detail holds a control character (U+001B at character 3); write the text as it reads"
        );
        assert_eq!(
            with(&|r| r.files = vec!["a.ts".into(), "b\u{0}.ts".into()]),
            "file 2 holds a control character (U+0000 at character 2); write the text as it reads"
        );
        assert_eq!(
            with(&|r| r.evidence = vec!["ok\n\u{2066}hidden\u{2069}".into()]),
            "output 1 holds a bidirectional control (U+2066 at character 4); write the text as it reads"
        );
        assert_eq!(
            with(&|r| r.evidence = vec!["a\u{200b}\u{200b}\u{200b}b".into()]),
            "output 1 holds a run of invisible characters (U+200B at character 4); write the text as it reads"
        );
        // What people and terminals write is accepted.
        let mut ok = report();
        ok.detail = Some("line one\r\nline two\twith a tab 👩\u{200d}💻".into());
        ok.evidence = vec!["\u{1b}[1mbold\u{1b}[0m\u{8}\u{7}".into()];
        let a = build(&ok, &origin()).unwrap().artifact;
        assert!(a.detail.unwrap().contains("Output the agent saw:\nbold"));
    }

    #[test]
    fn files_outside_the_project_are_dropped() {
        let mut r = report();
        r.files = vec![
            "/etc/passwd".into(),
            "../other/x".into(),
            "src/./a.ts".into(),
            "src/a.ts".into(),
        ];
        assert_eq!(build(&r, &origin()).unwrap().artifact.files, ["src/a.ts"]);
    }
}
