//! The two candidate validators: what a model may propose, and what a human
//! may confirm. They are not redundant; they encode different trust.
//!
//! - [`validate_candidate`] (model side): the candidate schema (the vendored
//!   evidence and applies-to sub-schemas under a strict four-key object),
//!   **versioned scope only**, and the cross-field rules.
//! - [`validate_confirmed`] (human side): the same, but the scope may also be
//!   `version_independent` with a justification that is not blank after
//!   trimming whitespace. [`validate_confirmed_as_held`] checks its rules
//!   without the schema, for a candidate confirmed as the ledger holds it
//!   (it passed the schema when it was written or verified).
//!
//! Cross-field rules no JSON schema can express:
//! 1. every key of `applies_to.scope.versions` names an entry of
//!    `applies_to.stack` (otherwise the lesson never matches, or silently
//!    never expires);
//! 2. no two-sided range is inverted or empty (`>6 <2`, `>=4 <4`; see
//!    [`crate::version`]).
//!
//! Decisions: the candidate object is strict at the top level too (exactly
//! `claim`, `rationale`, `evidence`, `applies_to`; the reference validator
//! let extra top-level keys through). `claim`, `rationale` and `resolution`
//! need only be non-empty; only the justification is trimmed,
//! because `confirm --justification` refuses a blank one.
//!
//! Every problem found is reported, each with the JSON pointer of the value
//! at fault. This module is pure; it never prints or records anything.

use std::fmt;

use serde_json::Value;

use crate::model::Candidate;
use crate::schema::{self, SchemaKind, Violation};
use crate::version::range::Range;

/// At most this many violations are spelled out in [`Invalid`]'s `Display`
/// (the rest are counted), so a decline's detail stays readable.
pub const MAX_REPORTED: usize = 8;

/// A candidate that does not validate, and every reason why.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub struct Invalid {
    /// One entry per problem, in the order found; never empty.
    pub violations: Vec<Violation>,
}

impl fmt::Display for Invalid {
    /// One line: `path: message; path: message; … (and N more)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, v) in self.violations.iter().take(MAX_REPORTED).enumerate() {
            if i > 0 {
                f.write_str("; ")?;
            }
            // Keep the line a line: messages may quote values with newlines.
            write!(f, "{}", v.to_string().replace(['\n', '\r'], " "))?;
        }
        if self.violations.len() > MAX_REPORTED {
            write!(f, " (and {} more)", self.violations.len() - MAX_REPORTED)?;
        }
        Ok(())
    }
}

use crate::content::record::pointer_token;

const VERSIONS: &str = "/applies_to/scope/versions";

/// Which scope kinds a validator admits.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Side {
    Model,
    Human,
}

fn check(value: &Value, side: Side) -> Vec<Violation> {
    check_with(value, side, true)
}

/// [`check`], with or without the schema (`with_schema`): the cross-field
/// rules alone for a candidate the schema already passed.
fn check_with(value: &Value, side: Side, with_schema: bool) -> Vec<Violation> {
    let mut out = if !with_schema {
        Vec::new()
    } else {
        match schema::validate(SchemaKind::Candidate, value) {
            Ok(()) => Vec::new(),
            Err(vs) => vs,
        }
    };
    // A range the schema refuses: say why in words, not by quoting the pattern.
    for v in &mut out {
        if let Some(key) = v.instance_path.strip_prefix(&format!("{VERSIONS}/")) {
            if v.message.contains("does not match") {
                let key = key.replace("~1", "/").replace("~0", "~");
                if let Some(Value::String(text)) = value.pointer(VERSIONS).and_then(|m| m.get(&key))
                {
                    if let Err(e) = Range::parse(text) {
                        *v = Violation::new(v.instance_path.clone(), format!("{text:?}: {e}"));
                    }
                }
            }
        }
    }
    text_rules(value, &mut out);
    let Some(applies_to) = value.get("applies_to") else {
        return out;
    };
    let Some(scope) = applies_to.get("scope") else {
        return out;
    };
    match scope.get("kind").and_then(Value::as_str) {
        Some("version_independent") => match side {
            Side::Model => out.push(Violation::new(
                "/applies_to/scope/kind",
                "the transform may only propose a versioned scope; version_independent is a human choice made at confirmation",
            )),
            Side::Human => {
                if let Some(Value::String(j)) = scope.get("justification") {
                    if !j.is_empty() && j.trim().is_empty() {
                        out.push(Violation::new(
                            "/applies_to/scope/justification",
                            "justification is blank after trimming whitespace",
                        ));
                    }
                }
            }
        },
        Some("versioned") => {
            let stack: Vec<&str> = applies_to
                .get("stack")
                .and_then(Value::as_array)
                .map(|a| a.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            if let Some(Value::Object(versions)) = scope.get("versions") {
                for (key, range) in versions {
                    let path = format!("{VERSIONS}/{}", pointer_token(key));
                    if !stack.contains(&key.as_str()) {
                        out.push(Violation::new(
                            path.clone(),
                            format!("{key:?} is not named in applies_to.stack; every versions key must be a stack entry"),
                        ));
                    }
                    if let Some(text) = range.as_str() {
                        if Range::parse(text).is_ok_and(|r| r.is_inverted()) {
                            out.push(Violation::new(
                                path,
                                format!("{text:?} matches no version: its lower bound is not below its upper bound"),
                            ));
                        }
                    }
                }
            }
        }
        _ => {}
    }
    out
}

/// The rules every string of a candidate keeps, whoever wrote it: the
/// content policy's characters and field sizes
/// ([`crate::content::record::check_lesson_text`]: no bidirectional control
/// anywhere, no control character but line feeds and tabs in the rationale,
/// resolution and justification, none at all and nothing invisible in the
/// one-line fields and keys); the claim, rationale and resolution not
/// blank; stack entries free of surrounding white space (they become
/// trailers, file patterns and lookup keys).
fn text_rules(value: &Value, out: &mut Vec<Violation>) {
    for v in crate::content::record::check_lesson_text(value) {
        out.push(Violation::new(v.at, v.what));
    }
    for path in ["/claim", "/rationale", "/evidence/resolution"] {
        if let Some(Value::String(s)) = value.pointer(path) {
            if !s.is_empty() && s.trim().is_empty() {
                out.push(Violation::new(path, "is blank"));
            }
        }
    }
    if let Some(Value::Array(stack)) = value.pointer("/applies_to/stack") {
        for (i, entry) in stack.iter().enumerate() {
            if entry.as_str().is_some_and(|s| s.trim() != s) {
                out.push(Violation::new(
                    format!("/applies_to/stack/{i}"),
                    "has white space around it; a stack entry is a package name",
                ));
            }
        }
    }
}

/// Validates what a model proposed (provenance already stitched) and returns
/// it typed. Model side: the versioned scope only.
pub fn validate_candidate(value: &Value) -> Result<Candidate, Invalid> {
    let violations = check(value, Side::Model);
    if !violations.is_empty() {
        return Err(Invalid { violations });
    }
    serde_json::from_value(value.clone()).map_err(|e| Invalid {
        violations: vec![Violation::new("", format!("does not fit a candidate: {e}"))],
    })
}

/// Validates a candidate a human is confirming: versioned, or
/// version_independent with a non-blank justification.
pub fn validate_confirmed(candidate: &Candidate) -> Result<(), Invalid> {
    confirmed(candidate, true)
}

/// [`validate_confirmed`] without the schema, for a candidate confirmed as
/// the ledger holds it: every candidate on a verified ledger passed the
/// candidate schema when it was written (ingest validates what it proposes)
/// or verified (the audit checks each record against its schema), so only
/// the human side's rules are checked again. Compiling the schema is most
/// of a `confirm` that rewrites nothing (docs/decisions.md).
pub fn validate_confirmed_as_held(candidate: &Candidate) -> Result<(), Invalid> {
    confirmed(candidate, false)
}

fn confirmed(candidate: &Candidate, with_schema: bool) -> Result<(), Invalid> {
    let value = serde_json::to_value(candidate).map_err(|e| Invalid {
        violations: vec![Violation::new("", format!("cannot be serialised: {e}"))],
    })?;
    let violations = check_with(&value, Side::Human, with_schema);
    if violations.is_empty() {
        Ok(())
    } else {
        Err(Invalid { violations })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::version::range::tests::CORPUS;
    use serde_json::json;

    /// The candidate of the reference pending proposal.
    fn candidate() -> Value {
        let p: Value =
            serde_json::from_str(include_str!("../review/testdata/proposal.pending.json"))
                .expect("fixture is JSON");
        p["candidate"].clone()
    }

    fn messages(r: Result<impl std::fmt::Debug, Invalid>) -> Vec<String> {
        r.unwrap_err()
            .violations
            .iter()
            .map(ToString::to_string)
            .collect()
    }

    fn independent(justification: &str) -> Value {
        let mut c = candidate();
        c["applies_to"]["scope"] =
            json!({"kind": "version_independent", "justification": justification});
        c
    }

    #[test]
    fn the_reference_candidate_validates_on_both_sides() {
        let c = validate_candidate(&candidate()).unwrap();
        assert_eq!(c.applies_to.stack, vec!["vite", "vitest"]);
        assert_eq!(validate_confirmed(&c), Ok(()));
    }

    #[test]
    fn blank_text_control_characters_and_bidi_controls_are_refused() {
        let cases: Vec<(&str, Value, &str)> = vec![
            ("/claim", json!("   "), "/claim: is blank"),
            ("/rationale", json!("\t\n"), "/rationale: is blank"),
            ("/evidence/resolution", json!(" "), "/evidence/resolution: is blank"),
            (
                "/claim",
                json!("Vite 5\nfake row  another claim"),
                "/claim: contains a control character or line break; it must be one line",
            ),
            (
                "/applies_to/stack/0",
                json!("vi\u{1b}[31mte"),
                "/applies_to/stack/0: contains a control character or line break; it must be one line",
            ),
            (
                "/applies_to/stack/0",
                json!(" vite"),
                "/applies_to/stack/0: has white space around it; a stack entry is a package name",
            ),
            (
                "/rationale",
                json!("fine until \u{202E}txt.exe"),
                "/rationale: contains the bidirectional control U+202E, which makes text display differently from what it says",
            ),
            ("/rationale", json!("bell\u{7}"), "/rationale: contains a control character"),
        ];
        for (pointer, bad, want) in cases {
            let mut c = candidate();
            *c.pointer_mut(pointer).unwrap() = bad;
            let got = messages(validate_candidate(&c));
            assert!(got.iter().any(|m| m == want), "{pointer}: {got:?}");
        }
        // A versions key with a line break.
        let mut c = candidate();
        c["applies_to"]["scope"]["versions"] = json!({"vite\nx": "<6"});
        c["applies_to"]["stack"] = json!(["vite\nx"]);
        let got = messages(validate_candidate(&c));
        assert!(
            got.iter()
                .any(|m| m.contains("the versions key \"vite\\nx\" contains U+000A")),
            "{got:?}"
        );
        // Paragraphs in a rationale are fine.
        let mut c = candidate();
        c["rationale"] = json!("One.\n\nTwo.");
        assert!(validate_candidate(&c).is_ok());
    }

    #[test]
    fn the_model_side_refuses_version_independent() {
        assert_eq!(
            messages(validate_candidate(&independent("true everywhere"))),
            vec!["/applies_to/scope/kind: the transform may only propose a versioned scope; version_independent is a human choice made at confirmation"]
        );
    }

    #[test]
    fn the_human_side_accepts_version_independent_with_a_real_justification() {
        let c: Candidate = serde_json::from_value(independent("holds in every release")).unwrap();
        assert_eq!(validate_confirmed(&c), Ok(()));
        let blank: Candidate = serde_json::from_value(independent(" \t\n")).unwrap();
        assert_eq!(
            messages(validate_confirmed(&blank)),
            vec![
                "/applies_to/scope/justification: justification is blank after trimming whitespace"
            ]
        );
        let empty: Candidate = serde_json::from_value(independent("")).unwrap();
        assert_eq!(
            messages(validate_confirmed(&empty)),
            vec!["/applies_to/scope/justification: \"\" is shorter than 1 character"]
        );
    }

    /// A candidate confirmed as the ledger holds it meets the human side's
    /// rules again, but the schema it passed when written is not compiled
    /// again: the empty justification only the schema refuses goes through,
    /// the blank one the rules refuse does not.
    #[test]
    fn as_held_the_rules_are_checked_without_the_schema() {
        let empty: Candidate = serde_json::from_value(independent("")).unwrap();
        assert_eq!(validate_confirmed_as_held(&empty), Ok(()));
        let blank: Candidate = serde_json::from_value(independent(" \t\n")).unwrap();
        assert_eq!(
            messages(validate_confirmed_as_held(&blank)),
            vec![
                "/applies_to/scope/justification: justification is blank after trimming whitespace"
            ]
        );
        let mut c = candidate();
        c["applies_to"]["stack"] = json!(["vite"]);
        let c: Candidate = serde_json::from_value(c).unwrap();
        assert_eq!(
            messages(validate_confirmed_as_held(&c)),
            vec![
                "/applies_to/scope/versions/vitest: \"vitest\" is not named in applies_to.stack; every versions key must be a stack entry"
            ]
        );
    }

    #[test]
    fn every_versions_key_must_name_a_stack_entry() {
        let mut c = candidate();
        c["applies_to"]["stack"] = json!(["vite"]);
        c["applies_to"]["scope"]["versions"]["@scope/pkg~x"] = json!("=1.2.3");
        assert_eq!(
            messages(validate_candidate(&c)),
            vec![
                "/applies_to/scope/versions/@scope~1pkg~0x: \"@scope/pkg~x\" is not named in applies_to.stack; every versions key must be a stack entry",
                "/applies_to/scope/versions/vitest: \"vitest\" is not named in applies_to.stack; every versions key must be a stack entry",
            ]
        );
    }

    #[test]
    fn inverted_and_empty_ranges_are_refused() {
        for range in [">6 <2", ">=4 <4", ">4 <=4"] {
            let mut c = candidate();
            c["applies_to"]["scope"]["versions"]["vite"] = json!(range);
            assert_eq!(
                messages(validate_candidate(&c)),
                vec![format!("/applies_to/scope/versions/vite: {range:?} matches no version: its lower bound is not below its upper bound")]
            );
        }
    }

    #[test]
    fn the_corpus_through_the_model_validator() {
        for &(range, _, accepted) in CORPUS {
            let mut c = candidate();
            c["applies_to"]["scope"]["versions"]["vite"] = json!(range);
            assert_eq!(validate_candidate(&c).is_ok(), accepted, "{range:?}");
        }
    }

    #[test]
    fn bad_ranges_are_explained_in_words() {
        let mut c = candidate();
        c["applies_to"]["scope"]["versions"]["vite"] = json!("^5.4.21");
        c["applies_to"]["scope"]["versions"]["vitest"] = json!(">=0");
        assert_eq!(
            messages(validate_candidate(&c)),
            vec![
                "/applies_to/scope/versions/vite: \"^5.4.21\": npm-style '^' ranges are not allowed; write comparators, e.g. \">=5.4.21 <6\"",
                "/applies_to/scope/versions/vitest: \">=0\": \">=0\" is an unbounded lower bound: it matches every version and would never expire",
            ]
        );
    }

    #[test]
    fn structural_problems_are_all_reported_with_pointers() {
        let mut c = candidate();
        c["claim"] = json!("");
        c["eligible"] = json!(true);
        c["evidence"]["artifact_ids"] = json!(["not-a-ulid"]);
        c["evidence"]["session_ids"] = json!([""]);
        c["applies_to"]["scope"]["versions"] = json!({});
        let m = messages(validate_candidate(&c));
        assert_eq!(m.len(), 5, "{m:?}");
        assert!(
            m.contains(&"/claim: \"\" is shorter than 1 character".to_owned()),
            "{m:?}"
        );
        assert!(
            m.contains(
                &"(root): Additional properties are not allowed ('eligible' was unexpected)"
                    .to_owned()
            ),
            "{m:?}"
        );
        assert!(
            m.iter()
                .any(|s| s.starts_with("/evidence/artifact_ids/0: \"not-a-ulid\" does not match")),
            "{m:?}"
        );
        assert!(
            m.contains(&"/evidence/session_ids/0: \"\" is shorter than 1 character".to_owned()),
            "{m:?}"
        );
        assert!(
            m.contains(&"/applies_to/scope/versions: {} has less than 1 property".to_owned()),
            "{m:?}"
        );
    }

    #[test]
    fn non_objects_and_missing_parts() {
        assert_eq!(
            messages(validate_candidate(&json!([1]))),
            vec!["(root): [1] is not of type \"object\""]
        );
        let mut c = candidate();
        c.as_object_mut().unwrap().remove("applies_to");
        assert_eq!(
            messages(validate_candidate(&c)),
            vec!["(root): \"applies_to\" is a required property"]
        );
    }

    #[test]
    fn a_schema_valid_id_the_model_type_refuses_is_still_invalid() {
        // The schema's ULID pattern allows a first character above 7; a real
        // ULID (128 bits) does not.
        let mut c = candidate();
        c["evidence"]["artifact_ids"] = json!(["81KZ45MKAM734ZS7JK24D2DK0R"]);
        let m = messages(validate_candidate(&c));
        assert_eq!(m.len(), 1);
        assert!(
            m[0].starts_with("(root): does not fit a candidate: not a ULID"),
            "{m:?}"
        );
    }

    #[test]
    fn invalid_displays_on_one_capped_line() {
        let invalid = Invalid {
            violations: (0..10)
                .map(|i| Violation::new(format!("/x/{i}"), "bad\nvalue"))
                .collect(),
        };
        let s = invalid.to_string();
        assert!(!s.contains('\n'));
        assert!(s.starts_with("/x/0: bad value; /x/1: bad value"));
        assert!(s.ends_with("/x/7: bad value (and 2 more)"), "{s}");
    }
}
