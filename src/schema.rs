//! The JSON schemas git-lore embeds, and validation of records against them.
//!
//! Every file under `schema/` is compiled into the binary (`include_str!`), so
//! validation needs no network and no files at run time. Five files are
//! byte-for-byte copies of the published lesson contract (lesson schema v2,
//! its evidence and applies-to sub-schemas, their upstream provenance record,
//! and the counter-observation schema); `schema/PROVENANCE.md` pins each by
//! sha256 and a unit test fails if one changes. The others are our own:
//! the archivist artifact (our input), the lesson candidate, the proposal
//! envelope, the decline record, and the two relation records (a refinement
//! link and a lesson's judgment record).
//!
//! References between schemas (`candidate.schema.json` → the sub-schemas,
//! `proposal.schema.json` → the candidate and the artifact) resolve against
//! the embedded copies through a registry under the reserved, never-fetched
//! base `https://git-lore.invalid/schema/`.
//!
//! Validators are compiled once per process ([`OnceLock`]). Violations are
//! built from `iter_errors()` (not from `evaluate()`, whose list output marks
//! a parent `additionalProperties` as failing whenever a declared property
//! fails). A failed `oneOf` over the lesson scope is replaced by the errors of
//! the branch its `kind` selects, so a bad range is reported at its own path
//! rather than as "not valid under any of the schemas".
//!
//! This module owns the schemas and the mechanics of validation. It does not
//! know the cross-field rules no schema can express (a `versions` key naming a
//! `stack` entry, an inverted range): those live in
//! `crate::pipeline::validate`. It never reads files, prints or touches git.

use std::fmt;
use std::sync::OnceLock;

use jsonschema::error::ValidationErrorKind;
use jsonschema::{Draft, Registry, ValidationError, Validator};
use serde_json::Value;

use crate::cause::{AnyCause, Shared};

/// The base URI the embedded schemas are registered under. `.invalid` is a
/// reserved top-level domain: nothing is ever fetched from it.
pub const BASE_URI: &str = "https://git-lore.invalid/schema/";

/// The longest message a [`Violation`] carries; longer ones (they quote the
/// offending value, which may be large) are cut with an ellipsis.
pub const MAX_MESSAGE_CHARS: usize = 300;

/// Which record a value is checked against.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SchemaKind {
    /// A Lesson v2 pool entry (`lesson.schema.v2.json`, vendored).
    Lesson,
    /// A lesson's `evidence` (`lesson-evidence.subschema.json`, vendored).
    Evidence,
    /// A lesson's `applies_to` (`lesson-applies-to.subschema.json`, vendored).
    AppliesTo,
    /// The four fields the transform owns (`candidate.schema.json`).
    Candidate,
    /// An archivist artifact (`artifact.schema.json`).
    Artifact,
    /// The proposal envelope on the ledger (`proposal.schema.json`).
    Proposal,
    /// A decline record on the ledger (`decline.schema.json`).
    Decline,
    /// A counter-observation (`counter-observation.schema.json`, vendored).
    CounterObservation,
    /// A refinement link between two pool lessons (`relation.schema.json`).
    Relation,
    /// The judgment record of a related lesson (`related.schema.json`).
    Related,
    /// The record of a contradicted lesson the jury upheld
    /// (`upheld.schema.json`).
    Upheld,
}

impl SchemaKind {
    /// Every kind, in a fixed order.
    pub const ALL: [SchemaKind; 11] = [
        SchemaKind::Lesson,
        SchemaKind::Evidence,
        SchemaKind::AppliesTo,
        SchemaKind::Candidate,
        SchemaKind::Artifact,
        SchemaKind::Proposal,
        SchemaKind::Decline,
        SchemaKind::CounterObservation,
        SchemaKind::Relation,
        SchemaKind::Related,
        SchemaKind::Upheld,
    ];

    /// The file under `schema/` that defines this kind.
    pub fn file_name(self) -> &'static str {
        match self {
            SchemaKind::Lesson => "lesson.schema.v2.json",
            SchemaKind::Evidence => "lesson-evidence.subschema.json",
            SchemaKind::AppliesTo => "lesson-applies-to.subschema.json",
            SchemaKind::Candidate => "candidate.schema.json",
            SchemaKind::Artifact => "artifact.schema.json",
            SchemaKind::Proposal => "proposal.schema.json",
            SchemaKind::Decline => "decline.schema.json",
            SchemaKind::CounterObservation => "counter-observation.schema.json",
            SchemaKind::Relation => "relation.schema.json",
            SchemaKind::Related => "related.schema.json",
            SchemaKind::Upheld => "upheld.schema.json",
        }
    }

    /// The embedded text of the schema.
    pub fn text(self) -> &'static str {
        match self {
            SchemaKind::Lesson => LESSON,
            SchemaKind::Evidence => EVIDENCE,
            SchemaKind::AppliesTo => APPLIES_TO,
            SchemaKind::Candidate => CANDIDATE,
            SchemaKind::Artifact => ARTIFACT,
            SchemaKind::Proposal => PROPOSAL,
            SchemaKind::Decline => DECLINE,
            SchemaKind::CounterObservation => COUNTER_OBSERVATION,
            SchemaKind::Relation => RELATION,
            SchemaKind::Related => RELATED,
            SchemaKind::Upheld => UPHELD,
        }
    }

    /// Whether the file is a vendored upstream copy (pinned, never edited).
    pub fn is_vendored(self) -> bool {
        VENDORED.iter().any(|(name, _)| *name == self.file_name())
    }

    fn index(self) -> usize {
        match self {
            SchemaKind::Lesson => 0,
            SchemaKind::Evidence => 1,
            SchemaKind::AppliesTo => 2,
            SchemaKind::Candidate => 3,
            SchemaKind::Artifact => 4,
            SchemaKind::Proposal => 5,
            SchemaKind::Decline => 6,
            SchemaKind::CounterObservation => 7,
            SchemaKind::Relation => 8,
            SchemaKind::Related => 9,
            SchemaKind::Upheld => 10,
        }
    }
}

impl fmt::Display for SchemaKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.file_name())
    }
}

const LESSON: &str = include_str!("../schema/lesson.schema.v2.json");
const EVIDENCE: &str = include_str!("../schema/lesson-evidence.subschema.json");
const APPLIES_TO: &str = include_str!("../schema/lesson-applies-to.subschema.json");
const SUBSCHEMAS_PROVENANCE: &str = include_str!("../schema/lesson-subschemas-PROVENANCE.json");
const COUNTER_OBSERVATION: &str = include_str!("../schema/counter-observation.schema.json");
const CANDIDATE: &str = include_str!("../schema/candidate.schema.json");
const ARTIFACT: &str = include_str!("../schema/artifact.schema.json");
const PROPOSAL: &str = include_str!("../schema/proposal.schema.json");
const DECLINE: &str = include_str!("../schema/decline.schema.json");
const RELATION: &str = include_str!("../schema/relation.schema.json");
const RELATED: &str = include_str!("../schema/related.schema.json");
const UPHELD: &str = include_str!("../schema/upheld.schema.json");

/// `schema/PROVENANCE.md`: where each vendored file came from, with its sha256.
pub const PROVENANCE: &str = include_str!("../schema/PROVENANCE.md");

/// The vendored files, by name, as embedded. Their sha256 is pinned in
/// [`PROVENANCE`].
pub const VENDORED: [(&str, &str); 5] = [
    ("lesson.schema.v2.json", LESSON),
    ("lesson-evidence.subschema.json", EVIDENCE),
    ("lesson-applies-to.subschema.json", APPLIES_TO),
    ("lesson-subschemas-PROVENANCE.json", SUBSCHEMAS_PROVENANCE),
    ("counter-observation.schema.json", COUNTER_OBSERVATION),
];

/// One way a value fails its schema.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Violation {
    /// JSON pointer to the offending value (`""` is the whole value).
    pub instance_path: String,
    /// What is wrong, at most [`MAX_MESSAGE_CHARS`] characters.
    pub message: String,
}

impl Violation {
    /// A violation at `instance_path` with `message` (cut to the maximum length).
    pub fn new(instance_path: impl Into<String>, message: impl AsRef<str>) -> Violation {
        Violation {
            instance_path: instance_path.into(),
            message: clip(message.as_ref(), MAX_MESSAGE_CHARS),
        }
    }
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.instance_path.is_empty() {
            write!(f, "(root): {}", self.message)
        } else {
            write!(f, "{}: {}", self.instance_path, self.message)
        }
    }
}

/// An embedded schema that cannot be used. This is a build defect (the
/// tests compile every schema), reported instead of panicking so that
/// validation fails closed.
#[derive(Clone, Debug, thiserror::Error, PartialEq, Eq)]
pub enum SchemaError {
    /// The embedded text is not JSON.
    #[error("embedded schema {file} is not valid JSON: {why}")]
    NotJson {
        file: &'static str,
        #[source]
        why: Shared<serde_json::Error>,
    },
    /// The schema registry could not be built.
    #[error("embedded schemas could not be registered: {0}")]
    Registry(#[source] AnyCause),
    /// The schema does not compile.
    #[error("embedded schema {file} does not compile: {why}")]
    Compile {
        file: &'static str,
        #[source]
        why: Shared<ValidationError<'static>>,
    },
}

/// Cuts `s` to at most `max` characters, marking the cut with `…`.
pub(crate) fn clip(s: &str, max: usize) -> String {
    match s.char_indices().nth(max) {
        None => s.to_owned(),
        Some((at, _)) => {
            let mut out = s[..at].to_owned();
            out.push('…');
            out
        }
    }
}

/// One embedded schema, parsed on first use.
fn doc(kind: SchemaKind) -> Result<&'static Value, SchemaError> {
    static DOCS: [OnceLock<Result<Value, SchemaError>>; SchemaKind::ALL.len()] =
        [const { OnceLock::new() }; SchemaKind::ALL.len()];
    DOCS[kind.index()]
        .get_or_init(|| {
            serde_json::from_str(kind.text()).map_err(|e| SchemaError::NotJson {
                file: kind.file_name(),
                why: e.into(),
            })
        })
        .as_ref()
        .map_err(Clone::clone)
}

/// The schemas `kind` needs: itself and every schema whose file name its
/// text mentions (a `$ref`), and theirs. Naming a file in a description
/// only adds one that is not needed.
fn needed(kind: SchemaKind) -> Vec<SchemaKind> {
    let mut out = vec![kind];
    let mut i = 0;
    while i < out.len() {
        let text = out[i].text();
        for k in SchemaKind::ALL {
            if !out.contains(&k) && text.contains(k.file_name()) {
                out.push(k);
            }
        }
        i += 1;
    }
    out
}

/// The validator of one kind, compiled on first use, against a registry
/// of only the schemas it needs under their base URIs (so `$ref`s between
/// them resolve offline). A command parses and compiles only the schemas
/// it validates against: `confirm` three of eleven. Compiling still costs
/// about a millisecond and a half once per process, for the meta-schema
/// jsonschema checks every schema against (it has no public switch to
/// skip that; see docs/decisions.md).
fn compiled(kind: SchemaKind) -> &'static Result<Validator, SchemaError> {
    static VALIDATORS: [OnceLock<Result<Validator, SchemaError>>; SchemaKind::ALL.len()] =
        [const { OnceLock::new() }; SchemaKind::ALL.len()];
    VALIDATORS[kind.index()].get_or_init(|| {
        let mut resources = Vec::new();
        for k in needed(kind) {
            resources.push((format!("{BASE_URI}{}", k.file_name()), doc(k)?));
        }
        let registry = Registry::new()
            .extend(resources)
            .and_then(|builder| builder.prepare())
            .map_err(|e| SchemaError::Registry(AnyCause::any(e)))?;
        jsonschema::options()
            .with_draft(Draft::Draft202012)
            .with_base_uri(format!("{BASE_URI}{}", kind.file_name()))
            .with_registry(&registry)
            .build(doc(kind)?)
            .map_err(|e| SchemaError::Compile {
                file: kind.file_name(),
                why: e.into(),
            })
    })
}

/// Compiles every embedded schema (once per process) and reports the first
/// one that cannot be used.
pub fn check_all() -> Result<(), SchemaError> {
    for kind in SchemaKind::ALL {
        compiled(kind).as_ref().map_err(Clone::clone)?;
    }
    Ok(())
}

/// Validates `value` against the schema of `kind`. On failure, every
/// violation found, in the validator's order. If the embedded schema itself
/// is unusable (a build defect), every value is refused with that reason.
pub fn validate(kind: SchemaKind, value: &Value) -> Result<(), Vec<Violation>> {
    let validator = match compiled(kind) {
        Ok(v) => v,
        Err(e) => return Err(vec![Violation::new("", e.to_string())]),
    };
    let mut out = Vec::new();
    for error in validator.iter_errors(value) {
        push_violations(&error, &mut out);
    }
    if out.is_empty() {
        Ok(())
    } else {
        Err(out)
    }
}

/// Appends the violations for one validator error, expanding a failed `oneOf`
/// into the errors of the branch the instance evidently meant.
fn push_violations(error: &ValidationError<'_>, out: &mut Vec<Violation>) {
    if let ValidationErrorKind::OneOfNotValid { context } = error.kind() {
        if let Some(branch) = chosen_branch(context) {
            for inner in branch {
                push_violations(inner, out);
            }
            return;
        }
        let path = error.instance_path().as_str().to_owned();
        out.push(Violation::new(
            path,
            one_of_message(error.instance(), context),
        ));
        return;
    }
    out.push(Violation::new(
        error.instance_path().as_str(),
        error.to_string(),
    ));
}

/// The `oneOf` branch a value was meant for: the only one whose errors do not
/// include a failed `const` (the discriminator, e.g. `scope.kind`).
fn chosen_branch<'c>(
    context: &'c [Vec<ValidationError<'static>>],
) -> Option<&'c [ValidationError<'static>]> {
    let mut meant = context.iter().filter(|errors| {
        !errors
            .iter()
            .any(|e| matches!(e.kind(), ValidationErrorKind::Constant { .. }))
    });
    match (meant.next(), meant.next()) {
        (Some(only), None) if !only.is_empty() => Some(only),
        _ => None,
    }
}

/// A readable message for a `oneOf` no branch of which was meant: the
/// discriminator values allowed, when the branches have them.
fn one_of_message(instance: &Value, context: &[Vec<ValidationError<'static>>]) -> String {
    let mut expected = Vec::new();
    for errors in context {
        for e in errors {
            if let ValidationErrorKind::Constant { expected_value } = e.kind() {
                expected.push(expected_value.to_string());
            }
        }
    }
    let found = match instance {
        Value::Object(map) => match map.get("kind") {
            Some(kind) => format!("kind {kind}"),
            None => "no kind".to_owned(),
        },
        other => format!("{} (not an object)", json_type(other)),
    };
    if expected.is_empty() {
        format!("matches none of the allowed shapes; found {found}")
    } else {
        format!(
            "kind must be one of {}; found {found}",
            expected.join(" or ")
        )
    }
}

/// The JSON type name of a value, as messages spell it.
pub(crate) fn json_type(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use sha2::{Digest, Sha256};

    fn errs(kind: SchemaKind, v: &Value) -> Vec<String> {
        match validate(kind, v) {
            Ok(()) => Vec::new(),
            Err(vs) => vs.iter().map(ToString::to_string).collect(),
        }
    }

    fn candidate() -> Value {
        json!({
            "claim": "c",
            "rationale": "r",
            "evidence": {
                "artifact_ids": ["01KZ45MKAM734ZS7JK24D2DK0R"],
                "session_ids": ["sess-1"],
                "project_key": "6a7678979e31",
                "observed_at": "2026-08-03T15:59:48Z",
                "resolution": "x"
            },
            "applies_to": {
                "stack": ["vite"],
                "scope": {"kind": "versioned", "versions": {"vite": "<6"}},
                "file_patterns": [],
                "task_kinds": []
            }
        })
    }

    /// The reference pool entry (an org lesson), as shipped with the review
    /// tests.
    fn pool_entry() -> Value {
        serde_json::from_str(include_str!("review/testdata/pool-entry.approved-org.json"))
            .expect("fixture is JSON")
    }

    fn pending_proposal() -> Value {
        json!({
            "id": "01KZ4A1B2C3D4E5F6G7H8J9K0M",
            "artifact_id": "01KZ45MKAM734ZS7JK24D2DK0R",
            "created_at": "2026-08-03T16:05:00Z",
            "status": "pending",
            "candidate": candidate()
        })
    }

    #[test]
    fn every_schema_compiles() {
        assert_eq!(check_all(), Ok(()));
        for kind in SchemaKind::ALL {
            assert!(jsonschema::meta::is_valid(
                &serde_json::from_str::<Value>(kind.text()).unwrap()
            ));
        }
    }

    /// Each validator registers only what its `$ref`s reach (a missing
    /// one would not compile: `every_schema_compiles`).
    #[test]
    fn a_schema_needs_only_what_it_refers_to() {
        use SchemaKind::*;
        assert_eq!(needed(Candidate), [Candidate, Evidence, AppliesTo]);
        assert_eq!(
            needed(Proposal),
            [Proposal, Candidate, Artifact, Evidence, AppliesTo]
        );
        assert_eq!(needed(Artifact), [Artifact]);
    }

    #[test]
    fn vendored_files_match_their_pins() {
        for (name, text) in VENDORED {
            let digest = hex::encode(Sha256::digest(text.as_bytes()));
            let row = PROVENANCE
                .lines()
                .find(|l| l.starts_with(&format!("| `{name}` |")))
                .unwrap_or_else(|| panic!("PROVENANCE.md has no row for {name}"));
            let pinned = row.split('`').nth(3).expect("a sha256 column");
            assert_eq!(
                digest, pinned,
                "{name} differs from its pinned sha256: vendored files must not be edited"
            );
        }
        let vendored: Vec<_> = SchemaKind::ALL
            .into_iter()
            .filter(|k| k.is_vendored())
            .collect();
        assert_eq!(vendored.len(), 4);
    }

    #[test]
    fn reference_examples_validate() {
        let lesson: Value = pool_entry();
        assert_eq!(errs(SchemaKind::Lesson, &lesson), Vec::<String>::new());
        let proposal: Value = pending_proposal();
        assert_eq!(errs(SchemaKind::Proposal, &proposal), Vec::<String>::new());
        assert_eq!(
            errs(SchemaKind::Candidate, &candidate()),
            Vec::<String>::new()
        );
    }

    #[test]
    fn private_pool_entries_are_not_ingest_valid() {
        let mut lesson: Value = pool_entry();
        lesson["consensus"]["judges"] = json!(0);
        assert_eq!(
            errs(SchemaKind::Lesson, &lesson),
            vec!["/consensus/judges: 0 is less than the minimum of 1"]
        );
    }

    #[test]
    fn a_bad_range_is_reported_at_its_own_path() {
        let mut c = candidate();
        c["applies_to"]["scope"]["versions"]["vite"] = json!("^5.4.21");
        let e = errs(SchemaKind::Candidate, &c);
        assert_eq!(e.len(), 1, "{e:?}");
        assert!(
            e[0].starts_with("/applies_to/scope/versions/vite: \"^5.4.21\" does not match"),
            "{e:?}"
        );
    }

    #[test]
    fn an_unknown_scope_kind_names_the_allowed_kinds() {
        let mut c = candidate();
        c["applies_to"]["scope"] = json!({"kind": "whatever"});
        assert_eq!(
            errs(SchemaKind::Candidate, &c),
            vec![
                "/applies_to/scope: kind must be one of \"versioned\" or \"version_independent\"; found kind \"whatever\""
            ]
        );
        c["applies_to"]["scope"] = json!("versioned");
        assert_eq!(
            errs(SchemaKind::Candidate, &c),
            vec!["/applies_to/scope: matches none of the allowed shapes; found a string (not an object)"]
        );
    }

    #[test]
    fn version_independent_branch_errors_are_its_own() {
        let mut c = candidate();
        c["applies_to"]["scope"] = json!({"kind": "version_independent", "justification": ""});
        assert_eq!(
            errs(SchemaKind::Candidate, &c),
            vec!["/applies_to/scope/justification: \"\" is shorter than 1 character"]
        );
        c["applies_to"]["scope"] =
            json!({"kind": "version_independent", "justification": "j", "versions": {}});
        assert_eq!(
            errs(SchemaKind::Candidate, &c),
            vec!["/applies_to/scope: Additional properties are not allowed ('versions' was unexpected)"]
        );
    }

    #[test]
    fn long_values_are_clipped_in_messages() {
        let mut c = candidate();
        c["claim"] = json!(["x".repeat(100_000)]);
        let e = validate(SchemaKind::Candidate, &c).unwrap_err();
        assert_eq!(e[0].instance_path, "/claim");
        assert_eq!(e[0].message.chars().count(), MAX_MESSAGE_CHARS + 1);
        assert!(e[0].message.ends_with('…'));
    }

    #[test]
    fn artifact_schema_is_strict_on_types_and_tolerant_of_extra_keys() {
        let mut a: Value = serde_json::from_str(include_str!(
            "../tests/fixtures/artifacts/real-vitest-no-resolution.json"
        ))
        .unwrap();
        assert_eq!(errs(SchemaKind::Artifact, &a), Vec::<String>::new());
        a["something_new"] = json!({"any": "thing"});
        a["detail"] = Value::Null;
        a["session_id"] = Value::Null;
        assert_eq!(errs(SchemaKind::Artifact, &a), Vec::<String>::new());
        a["kind"] = json!("musing");
        a["trigger"] = json!("cron");
        a["detail"] = json!(7);
        a["created_at"] = json!("2026-08-03 15:59:48");
        let e = errs(SchemaKind::Artifact, &a);
        assert_eq!(e.len(), 4, "{e:?}");
        assert!(
            e.iter()
                .any(|m| m.starts_with("/kind: \"musing\" is not one of")),
            "{e:?}"
        );
        assert!(
            e.iter()
                .any(|m| m.starts_with("/trigger: \"cron\" is not one of")),
            "{e:?}"
        );
        assert!(
            e.iter()
                .any(|m| m.starts_with("/detail: 7 is not of types")),
            "{e:?}"
        );
        assert!(e.iter().any(|m| m.starts_with("/created_at: ")), "{e:?}");
        a.as_object_mut().unwrap().remove("summary");
        assert!(errs(SchemaKind::Artifact, &a)
            .contains(&"(root): \"summary\" is a required property".to_owned()));
    }

    #[test]
    fn proposal_status_implies_its_fields() {
        let mut p: Value = pending_proposal();
        p["status"] = json!("approved");
        let e = errs(SchemaKind::Proposal, &p);
        assert!(
            e.contains(&"(root): \"visibility\" is a required property".to_owned()),
            "{e:?}"
        );
        assert!(
            e.contains(&"(root): \"verdict\" is a required property".to_owned()),
            "{e:?}"
        );
        p["status"] = json!("pending");
        p["extra"] = json!(1);
        assert_eq!(
            errs(SchemaKind::Proposal, &p),
            vec!["(root): Additional properties are not allowed ('extra' was unexpected)"]
        );
    }

    #[test]
    fn model_records_validate_against_their_schemas() {
        use crate::model::*;
        let candidate: Candidate = serde_json::from_value(candidate()).unwrap();
        let artifact: Artifact = serde_json::from_str(include_str!(
            "../tests/fixtures/artifacts/real-vitest-no-resolution.json"
        ))
        .unwrap();
        let id: Id = "01KZ4A1B2C3D4E5F6G7H8J9K0M".parse().unwrap();
        let proposal = Proposal {
            id,
            artifact_id: artifact.id,
            created_at: "2026-08-03T16:05:00Z".into(),
            status: ProposalStatus::Approved,
            candidate: candidate.clone(),
            artifact: Some(artifact.clone()),
            model: Some("offline".into()),
            visibility: Some(Visibility::Org),
            confirmed_at: Some("2026-08-03T16:06:00Z".into()),
            candidate_before_confirm: Some(candidate),
            passed_at: None,
            pass_reason: None,
            judged_at: Some("2026-08-03T16:07:00Z".into()),
            verdict: Some(Verdict {
                rubric_id: Some("lesson-promotion".into()),
                gate_policy: Some("majority".into()),
                score_threshold: Some(0.75),
                aggregate_score: Some(0.9),
                passed: true,
                reason: "gate_passed".into(),
                judges: vec![json!({"judge_type": "standard", "score": 0.9, "passed": true})],
                failed_criterion: None,
            }),
            promoted_at: Some("2026-08-03T16:08:00Z".into()),
        };
        let v: Value = serde_json::from_slice(&canonical_json(&proposal)).unwrap();
        assert_eq!(errs(SchemaKind::Proposal, &v), Vec::<String>::new());
        for &reason in DeclineReason::ALL {
            let decline = Decline {
                artifact_id: artifact.id,
                reason,
                detail: None,
                declined_at: "2026-08-03T16:05:00Z".into(),
                artifact: Some(artifact.clone()),
                model: Some("offline".into()),
            };
            let v: Value = serde_json::from_slice(&canonical_json(&decline)).unwrap();
            assert_eq!(errs(SchemaKind::Decline, &v), Vec::<String>::new());
        }
    }
}
