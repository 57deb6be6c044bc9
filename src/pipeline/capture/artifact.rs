//! Moments become archivist artifacts: git-lore fills in everything a
//! backend does not say.
//!
//! - **Id.** Content-addressed, as the commit miner's: a ULID whose
//!   timestamp is the cited event's time in ms and whose 80 random bits are
//!   the first 80 bits of sha256 of the *normalised moment*:
//!
//!   ```text
//!   git-lore capture v1
//!   session <session id>
//!   event <event uuid>
//!   kind <kind>
//!   summary <summary, white space collapsed>
//!   ```
//!
//!   The session id is the `sessionId` written on the cited event's own
//!   line (else the caller's, else the transcript's last, else empty). A
//!   resumed session writes its new events under a new id while the events
//!   it carries over keep the uuid and the session id they were written
//!   with, so capturing the same transcript twice, or its resumed
//!   continuation, gives the same ids; the ingest pipeline then skips them
//!   as `seen`. The trigger does not enter the id (a hook run and a manual
//!   run agree), nor does the redaction below (a better scanner does not
//!   make a captured moment new), nor the detail or files.
//! - **Provenance.** `session_id` as hashed (null when there is none),
//!   `project_key` from the caller, `source` = `local`, `created_at` =
//!   `updated_at` = the event's time (whole seconds, UTC), `trigger` =
//!   `auto` from the SessionEnd hook and `manual` from the command line (the
//!   artifact schema's names; `commit` is the commit miner's).
//! - **Text.** The summary with its white space collapsed; the detail
//!   trimmed (null when empty).
//! - **Files.** Made relative to the session's cwd (an absolute path before
//!   it is redacted, so a cwd in a home directory leaves no redaction
//!   behind); paths outside it, with a
//!   `..` component, or unusable are dropped; duplicates dropped. Whether a
//!   file still exists is the caller's to check.
//! - **Secrets.** The summary, detail and files are redacted
//!   ([`super::redact`]); when anything was, the detail ends with a line
//!   saying how many findings of which kinds were redacted. A moment whose
//!   text cannot be made clean is refused.
//! - **Check.** The moment passes [`super::check`], the artifact the
//!   artifact schema.
//!
//! Pure: nothing here reads a clock, a file or git.

use std::collections::HashSet;
use std::path::{Component, Path};

use super::redact::redact;
use super::text::{collapse, sanitize};
use super::transcript::Transcript;
use super::{check, Kind, Moment, MomentError, Refused, MAX_FILE_CHARS};
use crate::facts::Fact;
use crate::model::{iso, Artifact, Id};
use crate::pipeline::commits::{artifact_id, MAX_TIME_MS};
use crate::scanner::FindingKind;
use crate::schema::{self, SchemaKind};

/// The first line of every normalised moment: a new scheme gets a new one.
pub const ID_SCHEME: &str = "git-lore capture v1";

/// The `source` of captured artifacts (the archivist's, for this machine).
pub const SOURCE: &str = "local";

/// What started the capture.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Trigger {
    /// The SessionEnd hook (`git lore capture --hook`).
    Hook,
    /// A person or script (`git lore capture --transcript PATH`).
    Manual,
}

impl Trigger {
    /// The artifact schema's name for it.
    pub fn as_str(self) -> &'static str {
        match self {
            Trigger::Hook => "auto",
            Trigger::Manual => "manual",
        }
    }
}

/// What the caller knows that the transcript does not say.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Provenance<'a> {
    /// The project's 12-hex key (from the cwd's git origin).
    pub project_key: &'a str,
    /// What started the capture.
    pub trigger: Trigger,
    /// The session id to use for events that carry none (the hook's).
    pub session_id: Option<&'a str>,
}

/// An artifact and where it came from.
#[derive(Clone, Debug, PartialEq)]
pub struct Captured {
    /// The artifact, schema-valid.
    pub artifact: Artifact,
    /// The uuid of the event it was drawn from.
    pub event: String,
    /// The kinds of the findings redacted from it, in order.
    pub redacted: Vec<FindingKind>,
}

/// The outcome of building: artifacts, refusals, and moments that were the
/// same artifact as an earlier one.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Built {
    /// The artifacts, in moment order.
    pub artifacts: Vec<Captured>,
    /// The moments refused.
    pub refused: Vec<Refused>,
    /// Moments whose id an earlier moment already had.
    pub duplicates: usize,
}

/// Why no moment can be built at all.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ArtifactError {
    /// The project key is not 12 lower-case hex characters.
    #[error("project key {0:?} is not 12 lower-case hex characters")]
    BadProjectKey(String),
}

/// The normalised moment an id hashes (see the module doc).
pub fn normalised(session_id: &str, event: &str, kind: Kind, summary: &str) -> String {
    format!(
        "{ID_SCHEME}\nsession {session_id}\nevent {event}\nkind {kind}\nsummary {}",
        collapse(summary)
    )
}

/// The content-addressed id of a moment.
pub fn capture_id(time_ms: u64, session_id: &str, event: &str, kind: Kind, summary: &str) -> Id {
    artifact_id(time_ms, &normalised(session_id, event, kind, summary))
}

/// `path` relative to `cwd`, with `/` separators; `None` when it is empty,
/// unusable, absolute outside `cwd` (or with no `cwd`), or climbs with `..`.
pub fn relative_file(path: &str, cwd: Option<&str>) -> Option<String> {
    let path = path.trim();
    if path.is_empty() || !path.chars().all(crate::content::text::is_shown) {
        return None;
    }
    let p = Path::new(path);
    let rel = if p.is_absolute() {
        p.strip_prefix(cwd?).ok()?
    } else {
        p
    };
    let mut parts: Vec<&str> = Vec::new();
    for c in rel.components() {
        match c {
            Component::Normal(s) => parts.push(s.to_str()?),
            Component::CurDir => {}
            _ => return None,
        }
    }
    let joined = parts.join("/");
    (!joined.is_empty() && joined.chars().count() <= MAX_FILE_CHARS).then_some(joined)
}

fn redaction_note(kinds: &[FindingKind]) -> String {
    let mut names: Vec<&str> = Vec::new();
    for k in kinds {
        if !names.contains(&k.as_str()) {
            names.push(k.as_str());
        }
    }
    let n = kinds.len();
    format!(
        "Redacted by git-lore capture: {n} disclosure scanner {} ({}).",
        if n == 1 { "finding" } else { "findings" },
        names.join(", ")
    )
}

/// A fact with its free text redacted like the rest of the moment. A fact
/// whose names or versions the scanner flags is left out: a lesson is not
/// scoped by a secret. `Ok(None)` then; an error only when text cannot be
/// made clean at all.
fn clean_fact(
    f: &Fact,
    clean: &mut dyn FnMut(&str) -> Result<String, MomentError>,
) -> Result<Option<Fact>, MomentError> {
    let mut f = f.clone();
    let same = |clean: &mut dyn FnMut(&str) -> Result<String, MomentError>,
                s: &str|
     -> Result<bool, MomentError> { Ok(clean(s)? == sanitize(s)) };
    match &mut f {
        Fact::Requirement(r) => {
            let mut names: Vec<&str> = vec![&r.package];
            names.extend(r.by.as_ref().map(|b| b.name.as_str()));
            names.extend(r.by.as_ref().and_then(|b| b.version.as_deref()));
            names.extend(r.required.as_deref());
            names.extend(r.found.as_deref());
            for n in names {
                if !same(clean, n)? {
                    return Ok(None);
                }
            }
            r.quote = clean(&r.quote)?;
        }
        Fact::Change(c) => {
            let mut names: Vec<&str> = vec![&c.package];
            names.extend(c.from.as_deref());
            names.extend(c.to.as_deref());
            for n in names {
                if !same(clean, n)? {
                    return Ok(None);
                }
            }
            c.quote = clean(&c.quote)?;
            if let Some(file) = c.file.as_mut() {
                *file = clean(file)?;
            }
        }
        Fact::Outcome(o) => {
            o.command = clean(&o.command)?;
            o.quote = clean(&o.quote)?;
        }
    }
    Ok(Some(f))
}

/// Builds the artifact of one moment.
fn one(t: &Transcript, m: &Moment, p: &Provenance<'_>) -> Result<Captured, MomentError> {
    check(m, t)?;
    let event = t
        .event(&m.event)
        .ok_or_else(|| MomentError::NotInTranscript(m.event.clone()))?;
    let ts = event
        .timestamp
        .ok_or_else(|| MomentError::NoTimestamp(m.event.clone()))?;
    let ms = ts.as_millisecond();
    if !(0..=MAX_TIME_MS).contains(&ms) {
        return Err(MomentError::TimeOutOfRange(m.event.clone()));
    }
    let session = event
        .session_id
        .as_deref()
        .or(p.session_id)
        .or(t.session_id.as_deref());
    let id = capture_id(
        ms.unsigned_abs(),
        session.unwrap_or(""),
        &m.event,
        m.kind,
        &m.summary,
    );

    let mut redacted = Vec::new();
    let mut clean = |s: &str| -> Result<String, MomentError> {
        let r = redact(&sanitize(s)).map_err(MomentError::Secret)?;
        redacted.extend(r.kinds);
        Ok(r.text)
    };
    let summary = clean(&collapse(&m.summary))?;
    let detail = match m.detail.as_deref().map(str::trim) {
        Some(d) if !d.is_empty() => Some(clean(d)?),
        _ => None,
    };
    let mut files: Vec<String> = Vec::new();
    for f in &m.files {
        // An absolute path is made relative before it is redacted: the cwd
        // is often a home directory (`/Users/alice/app/x.ts` is `x.ts`, not
        // `[redacted:home_path]/app/x.ts`). Anything else is redacted
        // first: normalising turns `https://user:pw@host` into
        // `https:/user:pw@host`, which no longer reads as a URL with
        // credentials.
        let f = sanitize(f);
        let rel = if Path::new(f.trim()).is_absolute() {
            relative_file(&f, t.cwd.as_deref())
                .map(|r| clean(&r))
                .transpose()?
        } else {
            relative_file(&clean(&f)?, t.cwd.as_deref())
        };
        if let Some(rel) = rel {
            if !files.contains(&rel) {
                files.push(rel);
            }
        }
    }
    let mut facts = Vec::new();
    for f in &m.facts {
        if let Some(f) = clean_fact(f, &mut clean)? {
            facts.push(f);
        }
    }
    let detail = if redacted.is_empty() {
        detail
    } else {
        let note = redaction_note(&redacted);
        Some(match detail {
            Some(d) => format!("{d}\n\n{note}"),
            None => note,
        })
    };

    let created = iso(ts);
    let artifact = Artifact {
        id,
        kind: m.kind.as_str().into(),
        project_key: p.project_key.into(),
        source: Some(SOURCE.into()),
        created_at: created.clone(),
        updated_at: Some(created),
        summary,
        detail,
        files,
        session_id: session.map(str::to_owned),
        trigger: Some(p.trigger.as_str().into()),
        facts,
    };
    let value =
        serde_json::to_value(&artifact).map_err(|e| MomentError::SchemaInvalid(e.to_string()))?;
    schema::validate(SchemaKind::Artifact, &value).map_err(|violations| {
        MomentError::SchemaInvalid(
            violations
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join("; "),
        )
    })?;
    Ok(Captured {
        artifact,
        event: m.event.clone(),
        redacted,
    })
}

/// Builds the artifacts of `moments` drawn from `t` (see the module doc).
pub fn build(
    t: &Transcript,
    moments: &[Moment],
    p: &Provenance<'_>,
) -> Result<Built, ArtifactError> {
    let key = p.project_key;
    if key.len() != 12 || !key.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f')) {
        return Err(ArtifactError::BadProjectKey(super::text::clip(key, 40)));
    }
    let mut built = Built::default();
    let mut ids: HashSet<Id> = HashSet::new();
    for (index, m) in moments.iter().enumerate() {
        match one(t, m, p) {
            Ok(c) => {
                if ids.insert(c.artifact.id) {
                    built.artifacts.push(c);
                } else {
                    built.duplicates += 1;
                }
            }
            Err(why) => built.refused.push(Refused {
                index,
                event: Some(super::quote(&m.event, 80)),
                why,
            }),
        }
    }
    Ok(built)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::answer::Answer;
    use crate::model::DeclineReason;
    use crate::pipeline::capture::offline::moments;
    use crate::pipeline::capture::testdata::transcript;
    use crate::pipeline::transform::{decide, Determination as Outcome};
    use crate::pipeline::{offline_transform as transform_offline, pregate};
    use crate::scanner::scan;
    use serde_json::json;
    use sha2::{Digest, Sha256};

    const KEY: &str = "3f9c2a7b1d04";
    const FINAL_EVENT: &str = "00000014-4c1d-4e2a-9b7f-a11ce0000014";
    /// The failed test run the session's evidence starts at.
    const FAILED_TEST_EVENT: &str = "00000005-4c1d-4e2a-9b7f-a11ce0000005";
    const CREATED: &str = "2026-06-10T08:30:20Z";

    fn hook() -> Provenance<'static> {
        Provenance {
            project_key: KEY,
            trigger: Trigger::Hook,
            session_id: None,
        }
    }

    fn captured(name: &str, p: &Provenance<'_>) -> Vec<Captured> {
        let t = transcript(name);
        let built = build(&t, &moments(&t), p).unwrap();
        assert_eq!(built.refused, [], "{name}");
        built.artifacts
    }

    /// The offline transform's answer for an artifact, through the same
    /// parse, stitch and validation as a model's.
    fn transformed(a: &Artifact) -> Outcome {
        let text = transform_offline::transform(a);
        decide(&Answer::new(text.as_bytes()).expect("it answers"), a)
    }

    #[test]
    fn the_version_mismatch_moment_becomes_an_artifact_that_proposes_a_lesson() {
        let all = captured("version-mismatch", &hook());
        assert_eq!(all.len(), 1);
        let c = &all[0];
        let a = &c.artifact;
        assert_eq!(c.event, FAILED_TEST_EVENT);
        assert_eq!(c.redacted, []);
        assert_eq!(a.kind, "decision");
        assert_eq!(a.project_key, KEY);
        assert_eq!(a.source.as_deref(), Some("local"));
        assert_eq!(a.trigger.as_deref(), Some("auto"));
        assert_eq!(
            a.session_id.as_deref(),
            Some("5b0f3c1e-8d2a-4f6b-9c71-2e4d8a6f0b13")
        );
        assert_eq!(a.created_at, CREATED);
        assert_eq!(a.updated_at.as_deref(), Some(CREATED));
        assert_eq!(a.files, ["package.json"]);
        assert!(!a.facts.is_empty(), "the session's evidence is kept");
        let ts = transcript("version-mismatch")
            .event(FAILED_TEST_EVENT)
            .unwrap()
            .timestamp
            .unwrap();
        assert_eq!(a.id.timestamp_ms(), ts.as_millisecond() as u64);
        let v = serde_json::to_value(a).unwrap();
        assert_eq!(schema::validate(SchemaKind::Artifact, &v), Ok(()));

        assert!(pregate::passes(a));
        let Outcome::Propose { candidate } = transformed(a) else {
            panic!(
                "the offline transform must propose: {}",
                transform_offline::transform(a)
            );
        };
        let v = serde_json::to_value(&candidate).unwrap();
        assert_eq!(
            v["applies_to"],
            json!({
                "stack": ["vite", "vitest"],
                "scope": {"kind": "versioned", "versions": {"vite": "<6", "vitest": ">=4"}},
                "file_patterns": [],
                "task_kinds": []
            })
        );
        assert_eq!(v["claim"], json!(a.summary));
        assert_eq!(
            v["evidence"]["resolution"],
            "Pin vitest to 3.2.4 in package.json until vite is upgraded to 6.0 or newer."
        );
        assert_eq!(v["evidence"]["artifact_ids"], json!([a.id.to_string()]));
        assert_eq!(
            v["evidence"]["session_ids"],
            json!(["5b0f3c1e-8d2a-4f6b-9c71-2e4d8a6f0b13"])
        );
    }

    #[test]
    fn the_id_is_the_event_time_and_the_hash_of_the_normalised_moment() {
        let a = &captured("version-mismatch", &hook())[0].artifact;
        let normal = format!(
            "git-lore capture v1\nsession 5b0f3c1e-8d2a-4f6b-9c71-2e4d8a6f0b13\nevent {FAILED_TEST_EVENT}\nkind decision\nsummary {}",
            a.summary
        );
        let digest = Sha256::digest(normal.as_bytes());
        let mut random = [0u8; 16];
        random[6..].copy_from_slice(&digest[..10]);
        assert_eq!(
            a.id,
            Id::from_parts(a.id.timestamp_ms(), u128::from_be_bytes(random))
        );
        // White space in the summary does not matter; everything else does.
        let base = capture_id(1000, "s", "e", Kind::Decision, "Pinned vite to 5.4.21.");
        assert_eq!(
            capture_id(
                1000,
                "s",
                "e",
                Kind::Decision,
                "  Pinned vite\n to 5.4.21. "
            ),
            base
        );
        for other in [
            capture_id(1001, "s", "e", Kind::Decision, "Pinned vite to 5.4.21."),
            capture_id(1000, "t", "e", Kind::Decision, "Pinned vite to 5.4.21."),
            capture_id(1000, "s", "f", Kind::Decision, "Pinned vite to 5.4.21."),
            capture_id(1000, "s", "e", Kind::DeadEnd, "Pinned vite to 5.4.21."),
            capture_id(1000, "s", "e", Kind::Decision, "Pinned vite to 5.4.22."),
        ] {
            assert_ne!(other, base);
        }
    }

    #[test]
    fn capturing_again_or_a_resumed_session_gives_the_same_ids() {
        let first = captured("version-mismatch", &hook());
        let again = captured("version-mismatch", &hook());
        assert_eq!(first, again);
        // A manual run, or a run that knows the (new) session id from the
        // hook, agrees on the id.
        let manual = captured(
            "version-mismatch",
            &Provenance {
                trigger: Trigger::Manual,
                session_id: Some("c4e2a9d7-1b3f-4e8a-a6d5-93f0b7c1e248"),
                ..hook()
            },
        );
        assert_eq!(manual[0].artifact.id, first[0].artifact.id);
        assert_eq!(manual[0].artifact.trigger.as_deref(), Some("manual"));
        // The resumed session replays the earlier events and adds a fix.
        let resumed = captured("resumed", &hook());
        assert_eq!(resumed.len(), 2);
        assert_eq!(resumed[0], first[0]);
        let new = &resumed[1].artifact;
        assert_ne!(new.id, first[0].artifact.id);
        assert_eq!(
            new.session_id.as_deref(),
            Some("c4e2a9d7-1b3f-4e8a-a6d5-93f0b7c1e248")
        );
        assert_eq!(new.files, ["packages/ui/package.json"]);
        let Outcome::Propose { candidate } = transformed(new) else {
            panic!("the resumed fix must propose");
        };
        assert_eq!(
            serde_json::to_value(&candidate.applies_to.scope).unwrap(),
            json!({"kind": "versioned", "versions": {"eslint": "=9.12.0", "eslint-plugin-react-hooks": "=4.6.2"}})
        );
    }

    #[test]
    fn a_planted_secret_in_tool_output_is_redacted_and_said() {
        let all = captured("secret-in-tool-output", &hook());
        assert_eq!(all.len(), 1);
        let c = &all[0];
        let a = &c.artifact;
        assert_eq!(c.redacted, [FindingKind::Email, FindingKind::AwsAccessKey]);
        let detail = a.detail.as_deref().unwrap();
        assert!(!detail.contains("AKIA4ZQ7XKD2NPLM3R8T"), "{detail}");
        assert!(!detail.contains("dana.ruiz@acme-corp.com"), "{detail}");
        assert!(
            detail.contains("AWS_ACCESS_KEY_ID=[redacted:aws_access_key]"),
            "{detail}"
        );
        assert!(
            detail.contains("Author: Dana Ruiz <[redacted:email]>"),
            "{detail}"
        );
        assert!(detail.ends_with(
            "\n\nRedacted by git-lore capture: 2 disclosure scanner findings (email, aws_access_key)."
        ));
        assert_eq!(scan(&a.summary), []);
        assert_eq!(scan(detail), []);
        // Redaction leaves a lesson the transform still proposes.
        let Outcome::Propose { candidate } = transformed(a) else {
            panic!("must propose");
        };
        assert_eq!(
            serde_json::to_value(&candidate.applies_to.scope).unwrap(),
            json!({"kind": "versioned", "versions": {"serverless": "=3.38.0", "serverless-offline": "=14.0.0"}})
        );
        // The id hashes the moment as stated, not the redacted text.
        let t = transcript("secret-in-tool-output");
        let m = &moments(&t)[0];
        let e = t.event(&m.event).unwrap();
        assert_eq!(
            a.id,
            capture_id(
                e.timestamp.unwrap().as_millisecond() as u64,
                "3d8f1a6b-0c2e-4b9d-8e7f-5a4c3b2d1e0f",
                &m.event,
                Kind::Decision,
                &m.summary
            )
        );
    }

    #[test]
    fn a_secret_in_the_summary_or_files_is_redacted_too() {
        let t = transcript("version-mismatch");
        let m = Moment {
            event: FINAL_EVENT.into(),
            kind: Kind::DeadEnd,
            summary: "Publishing with token=ghp_16C7e42F292c6912E7710c838347Ae178B4a failed."
                .into(),
            detail: None,
            files: vec!["notes/ops@acme-corp.com.md".into()],
            facts: Vec::new(),
        };
        let built = build(&t, &[m], &hook()).unwrap();
        let a = &built.artifacts[0].artifact;
        assert_eq!(
            a.summary,
            "Publishing with token=[redacted:github_token] failed."
        );
        // The scanner takes ".md" for part of the address's domain.
        assert_eq!(a.files, ["notes/[redacted:email]"]);
        assert_eq!(
            a.detail.as_deref(),
            Some("Redacted by git-lore capture: 2 disclosure scanner findings (github_token, email).")
        );
    }

    #[test]
    fn files_under_a_cwd_in_a_home_directory_are_made_relative_first() {
        let mut t = transcript("version-mismatch");
        t.cwd = Some("/Users/alice.moreau/acme-web".into());
        let m = Moment {
            event: FINAL_EVENT.into(),
            kind: Kind::Decision,
            summary: "Pinned vitest to 3.2.4 in /Users/alice.moreau/acme-web/package.json.".into(),
            detail: None,
            files: vec![
                "/Users/alice.moreau/acme-web/package.json".into(),
                "/Users/alice.moreau/elsewhere/x.ts".into(),
                "packages/ui/package.json".into(),
            ],
            facts: Vec::new(),
        };
        let built = build(&t, &[m], &hook()).unwrap();
        let a = &built.artifacts[0].artifact;
        assert_eq!(a.files, ["package.json", "packages/ui/package.json"]);
        assert_eq!(
            a.summary,
            "Pinned vitest to 3.2.4 in [redacted:home_path]/acme-web/package.json."
        );
        assert_eq!(built.artifacts[0].redacted, [FindingKind::HomePath]);
    }

    #[test]
    fn colour_codes_from_a_model_are_removed_and_the_moment_still_proposes() {
        let t = transcript("version-mismatch");
        let mut m = moments(&t).remove(0);
        m.detail = Some(
            "\u{1b}[31mFAIL\u{1b}[39m vitest 4.0.5 fails with vite 5.4.21\r\nFixed by pinning vitest to 3.2.4.\u{202e}"
                .into(),
        );
        let built = build(&t, &[m], &hook()).unwrap();
        let a = &built.artifacts[0].artifact;
        assert_eq!(
            a.detail.as_deref(),
            Some("FAIL vitest 4.0.5 fails with vite 5.4.21\nFixed by pinning vitest to 3.2.4.")
        );
        assert!(matches!(transformed(a), Outcome::Propose { .. }));
    }

    #[test]
    fn refusals_are_per_moment() {
        let t = transcript("version-mismatch");
        let good = moments(&t).remove(0);
        let mut unknown = good.clone();
        unknown.event = "not-an-event".into();
        let mut no_time = good.clone();
        no_time.event = "00000001-4c1d-4e2a-9b7f-a11ce0000001".into();
        let mut t2 = t.clone();
        t2.events[0].timestamp = None;
        let built = build(
            &t2,
            &[unknown, good.clone(), no_time, good.clone()],
            &hook(),
        )
        .unwrap();
        assert_eq!(built.artifacts.len(), 1);
        assert_eq!(built.duplicates, 1);
        let why: Vec<String> = built.refused.iter().map(ToString::to_string).collect();
        assert_eq!(
            why,
            [
                "moment 1 cites event \"not-an-event\", which is not in the transcript",
                "moment 3 (event \"00000001-4c1d-4e2a-9b7f-a11ce0000001\") cites event \"00000001-4c1d-4e2a-9b7f-a11ce0000001\", which has no timestamp",
            ]
        );
        assert_eq!(
            build(
                &t,
                &[good],
                &Provenance {
                    project_key: "ABC",
                    ..hook()
                }
            )
            .unwrap_err()
            .to_string(),
            "project key \"ABC\" is not 12 lower-case hex characters"
        );
    }

    #[test]
    fn files_are_made_relative_and_kept_inside() {
        let cwd = Some("/home/dev/acme-web");
        for (path, want) in [
            ("/home/dev/acme-web/package.json", Some("package.json")),
            (
                "/home/dev/acme-web/./packages/ui/x.ts",
                Some("packages/ui/x.ts"),
            ),
            ("packages/ui/x.ts", Some("packages/ui/x.ts")),
            ("./a.ts", Some("a.ts")),
            ("/home/dev/acme-webapp/x.ts", None),
            ("/etc/passwd", None),
            ("../secrets.txt", None),
            ("a/../../b", None),
            ("/home/dev/acme-web", None),
            ("", None),
            ("a\u{7}b", None),
        ] {
            assert_eq!(relative_file(path, cwd).as_deref(), want, "{path}");
        }
        assert_eq!(relative_file("/home/dev/acme-web/a", None), None);
    }

    #[test]
    fn every_built_artifact_of_every_fixture_is_schema_valid() {
        for name in [
            "version-mismatch",
            "no-lesson",
            "resumed",
            "secret-in-tool-output",
            "truncated",
        ] {
            for c in captured(name, &hook()) {
                let v = serde_json::to_value(&c.artifact).unwrap();
                assert_eq!(schema::validate(SchemaKind::Artifact, &v), Ok(()), "{name}");
                let back: Artifact = serde_json::from_value(v).unwrap();
                assert_eq!(back, c.artifact);
            }
        }
    }

    #[test]
    fn a_moment_with_no_version_token_is_kept_but_the_pregate_skips_it() {
        // Capture does not pre-gate: a model's dead end without versions is
        // still an artifact, and ingest's pre-gate decides its fate.
        let t = transcript("version-mismatch");
        let m = Moment {
            event: FINAL_EVENT.into(),
            kind: Kind::DeadEnd,
            summary: "Clearing the pnpm store did not help.".into(),
            detail: None,
            files: vec![],
            facts: Vec::new(),
        };
        let built = build(&t, &[m], &hook()).unwrap();
        let a = &built.artifacts[0].artifact;
        assert!(!pregate::passes(a));
        assert!(matches!(
            transformed(a),
            Outcome::Decline {
                reason: DeclineReason::NoResolution,
                ..
            }
        ));
    }
}
