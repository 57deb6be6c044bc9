//! `git lore edit`: a person corrects what a lesson says — its claim,
//! rationale, resolution, stack and scope — until the jury has judged it.
//!
//! [`edit`] applies an [`Edit`] to a pending proposal, or to a confirmed
//! one not yet judged, and returns the proposal to write
//! ([`Transition::Changed`]), [`Transition::Unchanged`] when the lesson
//! already says that, or an [`EditError`] naming what was wrong. What it
//! checks of the result, in order:
//!
//! 1. the status: pending or confirmed (`event::lifecycle`); a judged
//!    lesson is superseded or retracted, never edited;
//! 2. the scope: versioned (version_independent is chosen when confirming,
//!    with a justification), and as confirmed for a lesson confirmed
//!    version_independent;
//! 3. every range a person wrote, by the range grammar
//!    ([`crate::version::range::Range`]);
//! 4. the candidate whole, as confirming checks one a person rewrote
//!    ([`crate::pipeline::validate_confirmed`]: the candidate schema, the
//!    content policy's characters and sizes, every versions key a stack
//!    entry, no range that matches nothing);
//! 5. the wording rules ([`crate::facts::wording::problems`]: no
//!    conventional-commit prefix, no commit subject, a claim that is not its
//!    resolution, no file in the stack);
//! 6. the disclosure scanner and the evidence
//!    ([`crate::facts::evidence::check`]: a range that leaves out the
//!    version the artifact's facts show broken, or takes in the one that
//!    fixed it; a package they do not name is the person's to add), each
//!    only for what the edit brings.
//!
//! A versions key the edit adds is added to the stack when the stack lacks
//! it; `unscope` takes a package out of both. The words edited are written
//! into `candidate_before_confirm` too, when a confirm with a justification
//! kept one, so that `unconfirm` keeps the edit. Exactly these fields
//! change (`event/ledger.rs`'s `EDITABLE`, which `verify` holds every
//! `edit` commit to).
//!
//! [`document`] and [`parse_document`] are the text a person edits (JSON
//! under a `#` comment header, the `--json` input too); [`diff`] is what
//! the commit's message carries. Pure: nothing here reads a file, runs an
//! editor or prints.

use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::Value;

use super::confirm::{NoOp, Transition};
use crate::event::lifecycle::may_start;
use crate::facts::wording::{self, Problem};
use crate::model::{canonical_json, Candidate, Id, Proposal, ProposalStatus, Scope};
use crate::pipeline::{validate_confirmed, Invalid};
use crate::trailers::Action;
use crate::version::range::{Range, RangeError};

/// What a person asks to change; `None` and empty lists keep what is there.
/// Applied in this order: the words, `stack`, `scope`, then each `set`,
/// then each `unset`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Edit {
    pub claim: Option<String>,
    pub rationale: Option<String>,
    pub resolution: Option<String>,
    /// The whole stack (`applies_to.stack`).
    pub stack: Option<Vec<String>>,
    /// The whole scope (`applies_to.scope`); versioned only.
    pub scope: Option<Scope>,
    /// `--scope NAME=RANGE`: NAME's range, added (with its stack entry)
    /// when NAME is new.
    pub set: Vec<(String, String)>,
    /// `--unscope NAME`: NAME taken out of the scope and the stack.
    pub unset: Vec<String>,
}

impl Edit {
    /// Whether it asks for nothing at all.
    pub fn is_empty(&self) -> bool {
        *self == Edit::default()
    }
}

/// Why an edit was refused. Nothing is written for it.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum EditError {
    /// The jury approved the lesson (it may be in a pool already).
    #[error("lesson {id} was judged (approved); a judged lesson is not edited: supersede it with a corrected lesson (`git lore relate` relates the newer one to it) or take it back (`git lore retract {id} --reason TEXT`)")]
    Approved { id: Id },
    /// The jury rejected the lesson.
    #[error("lesson {id} was judged (rejected); a judged lesson is not edited, and a rejected one never reaches a pool to supersede (`git lore relate`) or retract (`git lore retract`): capture or ingest a corrected lesson instead")]
    Rejected { id: Id },
    /// A person passed on the lesson: final.
    #[error("lesson {id} was passed on; a passed lesson is not edited (passing is final)")]
    Passed { id: Id },
    /// The edit would make the scope version_independent.
    #[error("lesson {id} not edited: a version_independent scope is chosen when confirming (`git lore confirm {id} org --justification TEXT`), not by an edit")]
    IndependentByEdit { id: Id },
    /// The stack or scope of a lesson confirmed version_independent.
    #[error("lesson {id} not edited: it was confirmed version_independent, so its stack and scope stay as confirmed; `git lore unconfirm {id}` first to change them")]
    IndependentScopeKept { id: Id },
    /// `unscope` of a package the lesson does not name.
    #[error("lesson {id} not edited: {name:?} is neither in its scope nor in its stack")]
    NotInScope { id: Id, name: String },
    /// A range that is not one.
    #[error("lesson {id} not edited: the range {range:?} for {name}: {source}")]
    BadRange {
        id: Id,
        name: String,
        range: String,
        #[source]
        source: RangeError,
    },
    /// The edited candidate does not validate.
    #[error("lesson {id} not edited: the edited lesson does not validate: {source}")]
    Invalid {
        id: Id,
        #[source]
        source: Invalid,
    },
    /// The edited words break the wording rules.
    #[error("lesson {id} not edited: {}", wording_lines(problems))]
    Wording { id: Id, problems: Vec<Problem> },
    /// The edited words hold what the disclosure scanner flags: the ledger
    /// keeps every version of a record in its history.
    #[error("lesson {id} not edited: the new text holds what looks like a secret or a personal detail ({}); take it out or write a placeholder (`sk_live_...`), then edit again", findings.iter().map(ToString::to_string).collect::<Vec<_>>().join("; "))]
    Disclosure {
        id: Id,
        findings: Vec<crate::scanner::Finding>,
    },
    /// The lesson changed (another edit, a confirm, a verdict) while a
    /// person had it open in an editor: saving would undo that change.
    #[error("lesson {id} not edited: it changed while it was open in your editor, and saving would undo that change; run `git lore edit {id}` again to edit it as it is now")]
    ChangedMeanwhile { id: Id },
    /// The edited stack or scope contradicts the facts the lesson was
    /// drawn from (the tool output or manifest change in its artifact), as
    /// ingest refuses a model's answer that does.
    #[error("lesson {id} not edited: the new scope disagrees with the evidence the lesson was drawn from ({}); name only packages the evidence names, with the broken version inside the range and the fixing one outside (`git lore show {id} --json` shows the evidence: its artifact's facts)", disagreements.iter().map(ToString::to_string).collect::<Vec<_>>().join("; "))]
    Evidence {
        id: Id,
        disagreements: Vec<crate::facts::evidence::Disagreement>,
    },
}

/// The wording problems as one line, each with how to fix it.
fn wording_lines(problems: &[Problem]) -> String {
    problems
        .iter()
        .map(|p| match p {
            Problem::FileInStack(name) => {
                format!("{p} (`--unscope {name}` takes it out)")
            }
            p => p.to_string(),
        })
        .collect::<Vec<_>>()
        .join("; ")
}

/// Whether lesson `p` may be edited at all: pending, or confirmed and not
/// yet judged. Asked before an editor is opened.
pub fn editable(p: &Proposal) -> Result<(), EditError> {
    let id = p.id;
    match p.status {
        s if may_start(Action::Edit, s) => Ok(()),
        ProposalStatus::Approved => Err(EditError::Approved { id }),
        ProposalStatus::Rejected => Err(EditError::Rejected { id }),
        // Pending and confirmed start an edit; passed is left.
        _ => Err(EditError::Passed { id }),
    }
}

/// Applies `e` to lesson `p`. See the module documentation for what is
/// checked, and in which order.
pub fn edit(p: &Proposal, e: &Edit) -> Result<Transition, EditError> {
    editable(p)?;
    let id = p.id;
    let old = &p.candidate;
    let independent = matches!(old.applies_to.scope, Scope::VersionIndependent { .. });
    let mut c = old.clone();
    words(&mut c, e);
    if let Some(stack) = &e.stack {
        c.applies_to.stack = stack.clone();
    }
    if let Some(scope) = &e.scope {
        if matches!(scope, Scope::VersionIndependent { .. }) && *scope != old.applies_to.scope {
            return Err(if independent {
                EditError::IndependentScopeKept { id }
            } else {
                EditError::IndependentByEdit { id }
            });
        }
        c.applies_to.scope = scope.clone();
    }
    for (name, range) in &e.set {
        versions(&mut c, id)?.insert(name.clone(), range.clone());
    }
    for name in &e.unset {
        let in_scope = versions(&mut c, id)?.remove(name).is_some();
        let before = c.applies_to.stack.len();
        c.applies_to.stack.retain(|s| s != name);
        if !in_scope && c.applies_to.stack.len() == before {
            return Err(EditError::NotInScope {
                id,
                name: name.clone(),
            });
        }
    }
    if independent
        && (c.applies_to.stack != old.applies_to.stack
            || c.applies_to.scope != old.applies_to.scope)
    {
        return Err(EditError::IndependentScopeKept { id });
    }
    // A versions key the edit adds brings its stack entry.
    if let Scope::Versioned { versions } = &c.applies_to.scope {
        let was = match &old.applies_to.scope {
            Scope::Versioned { versions } => Some(versions),
            Scope::VersionIndependent { .. } => None,
        };
        for (name, range) in versions {
            if was.and_then(|w| w.get(name)) == Some(range) {
                continue;
            }
            Range::parse(range).map_err(|source| EditError::BadRange {
                id,
                name: name.clone(),
                range: range.clone(),
                source,
            })?;
            let new_key = was.is_none_or(|w| !w.contains_key(name));
            if new_key && !c.applies_to.stack.contains(name) {
                c.applies_to.stack.push(name.clone());
            }
        }
    }

    let mut next = p.clone();
    if let Some(kept) = next.candidate_before_confirm.as_mut() {
        words(kept, e);
    }
    next.candidate = c;
    if next == *p {
        return Ok(Transition::Unchanged(NoOp::Unedited { id }));
    }
    validate_confirmed(&next.candidate).map_err(|source| EditError::Invalid { id, source })?;
    let subject = p
        .artifact
        .as_ref()
        .filter(|a| a.trigger.as_deref() == Some("commit"))
        .map(|a| a.summary.as_str());
    let n = &next.candidate;
    let problems = wording::problems(
        &n.claim,
        &n.evidence.resolution,
        &n.applies_to.stack,
        subject,
    );
    if !problems.is_empty() {
        return Err(EditError::Wording { id, problems });
    }
    // Only what this edit brings: a finding the lesson already had is the
    // reviewers' and publish's to decide, not a reason to refuse a fix.
    let before = crate::scanner::scan_lesson(&p.candidate);
    let findings: Vec<_> = crate::scanner::scan_lesson(n)
        .into_iter()
        .filter(|f| {
            !before
                .iter()
                .any(|b| b.kind == f.kind && b.excerpt == f.excerpt)
        })
        .collect();
    if !findings.is_empty() {
        return Err(EditError::Disclosure { id, findings });
    }
    // The evidence, as ingest checks a drafted scope against it; again only
    // what this edit brings.
    let facts = p.artifact.as_ref().map_or(&[][..], |a| a.facts.as_slice());
    let against = |c: &Candidate| match &c.applies_to.scope {
        Scope::Versioned { versions } => {
            crate::facts::evidence::check(facts, &c.applies_to.stack, versions)
        }
        Scope::VersionIndependent { .. } => Vec::new(),
    };
    // The same check the jury makes (`review::offline_judges`): a package
    // the evidence does not name, or a range that contradicts what it
    // shows broken or fixed, would pass here only to be scored down there.
    let had = against(&p.candidate);
    let disagreements: Vec<_> = against(n)
        .into_iter()
        .filter(|d| !had.contains(d))
        .collect();
    if !disagreements.is_empty() {
        return Err(EditError::Evidence { id, disagreements });
    }
    Ok(Transition::Changed(Box::new(next)))
}

/// The claim, rationale and resolution `e` gives, written into `c`.
fn words(c: &mut Candidate, e: &Edit) {
    if let Some(claim) = &e.claim {
        c.claim = claim.clone();
    }
    if let Some(rationale) = &e.rationale {
        c.rationale = rationale.clone();
    }
    if let Some(resolution) = &e.resolution {
        c.evidence.resolution = resolution.clone();
    }
}

/// The versions of a versioned scope, to change; refused for a
/// version_independent one.
fn versions(c: &mut Candidate, id: Id) -> Result<&mut BTreeMap<String, String>, EditError> {
    match &mut c.applies_to.scope {
        Scope::Versioned { versions } => Ok(versions),
        Scope::VersionIndependent { .. } => Err(EditError::IndependentScopeKept { id }),
    }
}

/// Which of the editable parts differ between two candidates, in the order
/// a lesson shows them: `claim`, `rationale`, `resolution`, `stack`,
/// `scope`.
pub fn changed(before: &Candidate, after: &Candidate) -> Vec<&'static str> {
    let mut out = Vec::new();
    let parts = [
        ("claim", before.claim != after.claim),
        ("rationale", before.rationale != after.rationale),
        (
            "resolution",
            before.evidence.resolution != after.evidence.resolution,
        ),
        ("stack", before.applies_to.stack != after.applies_to.stack),
        ("scope", before.applies_to.scope != after.applies_to.scope),
    ];
    for (name, differs) in parts {
        if differs {
            out.push(name);
        }
    }
    out
}

/// How the record changed, as the `edit` commit's message carries it: a
/// unified diff of the proposal's canonical JSON (hunks only, three lines
/// of context, as `git lore log -p` shows it). No line starts with `---`,
/// which `git interpret-trailers` would take for the start of a patch.
pub fn diff(before: &Proposal, after: &Proposal) -> String {
    let (old, new) = (canonical_json(before), canonical_json(after));
    let (old, new) = (String::from_utf8_lossy(&old), String::from_utf8_lossy(&new));
    unified(&old, &new, None)
}

/// A unified diff of two texts with three lines of context, as `git lore
/// log -p` and the `edit` commit show a record's change; with `path`, under
/// `a/PATH` and `b/PATH` headers.
pub fn unified(old: &str, new: &str, path: Option<&str>) -> String {
    let diff = similar::TextDiff::from_lines(old, new);
    let mut d = diff.unified_diff();
    d.context_radius(3);
    if let Some(path) = path {
        d.header(&format!("a/{path}"), &format!("b/{path}"));
    }
    d.to_string()
}

/// The editable part of a lesson, as a person edits it.
#[derive(Serialize)]
struct Document<'a> {
    claim: &'a str,
    rationale: &'a str,
    resolution: &'a str,
    applies_to: DocumentScope<'a>,
}

#[derive(Serialize)]
struct DocumentScope<'a> {
    stack: &'a [String],
    scope: &'a Scope,
}

/// The text a person edits for lesson `p`: a `#` comment header saying
/// what may be changed and how to abort, then the editable fields as JSON
/// (every control, bidi and invisible character written `\uXXXX`, so the
/// file shows what the lesson holds).
pub fn document(p: &Proposal) -> String {
    let c = &p.candidate;
    let doc = Document {
        claim: &c.claim,
        rationale: &c.rationale,
        resolution: &c.evidence.resolution,
        applies_to: DocumentScope {
            stack: &c.applies_to.stack,
            scope: &c.applies_to.scope,
        },
    };
    let json = crate::content::text::json(&doc).expect("strings serialise");
    format!(
        "# Editing lesson {id} ({status}). Lines starting with # are ignored.\n\
         #\n\
         # You may change the claim (one sentence of fact, not a commit subject),\n\
         # the rationale, the resolution (what to do), applies_to.stack (package\n\
         # names) and applies_to.scope.versions (a package and its range: \"<6\",\n\
         # \">=4.0.5 <4.1\", \"=5.4.21\"; no ^ or ~). A package you add to the\n\
         # versions is added to the stack. Nothing else of the lesson changes.\n\
         #\n\
         # Save and quit to record the edit as a signed commit. An empty file\n\
         # aborts the edit; a file left as it is changes nothing.\n\
         {json}\n",
        id = p.id,
        status = p.status,
    )
}

/// Why an edited text is not an edit.
#[derive(Debug, thiserror::Error)]
pub enum DocumentError {
    /// Nothing but comments and white space.
    #[error("the edit is empty")]
    Empty,
    /// Not JSON.
    #[error("the edit is not JSON: {source}")]
    Json {
        #[source]
        source: serde_json::Error,
    },
    /// JSON, but not an object.
    #[error("the edit must be a JSON object with any of claim, rationale, resolution, applies_to.stack and applies_to.scope")]
    NotAnObject,
    /// A key that is not editable.
    #[error("{key} cannot be edited: only claim, rationale, resolution, applies_to.stack and applies_to.scope can")]
    NotEditable { key: String },
    /// A value of the wrong type.
    #[error("{key} must be {expected}")]
    WrongType {
        key: &'static str,
        expected: &'static str,
    },
    /// A scope that is not one.
    #[error("applies_to.scope is not a scope ({{\"kind\": \"versioned\", \"versions\": {{\"vite\": \"<6\"}}}}): {source}")]
    Scope {
        #[source]
        source: serde_json::Error,
    },
}

/// Reads an edit from `text`: a JSON object with any of `claim`,
/// `rationale`, `resolution` and `applies_to` (with any of `stack` and
/// `scope`). Lines whose first non-blank character is `#` are comments
/// (no JSON line can start so); they are blanked, so a JSON error's line
/// number is the file's.
pub fn parse_document(text: &str) -> Result<Edit, DocumentError> {
    let json: String = text
        .lines()
        .map(|l| {
            if l.trim_start().starts_with('#') {
                ""
            } else {
                l
            }
        })
        .collect::<Vec<_>>()
        .join("\n");
    if json.trim().is_empty() {
        return Err(DocumentError::Empty);
    }
    let value: Value =
        serde_json::from_str(&json).map_err(|source| DocumentError::Json { source })?;
    let Value::Object(top) = value else {
        return Err(DocumentError::NotAnObject);
    };
    let mut e = Edit::default();
    for (key, v) in top {
        match key.as_str() {
            "claim" => e.claim = Some(string(v, "claim")?),
            "rationale" => e.rationale = Some(string(v, "rationale")?),
            "resolution" => e.resolution = Some(string(v, "resolution")?),
            "applies_to" => {
                let Value::Object(applies) = v else {
                    return Err(DocumentError::WrongType {
                        key: "applies_to",
                        expected: "an object with stack and scope",
                    });
                };
                for (key, v) in applies {
                    match key.as_str() {
                        "stack" => {
                            let wrong = || DocumentError::WrongType {
                                key: "applies_to.stack",
                                expected: "a list of package names",
                            };
                            let Value::Array(items) = v else {
                                return Err(wrong());
                            };
                            e.stack = Some(
                                items
                                    .into_iter()
                                    .map(|i| match i {
                                        Value::String(s) => Ok(s),
                                        _ => Err(wrong()),
                                    })
                                    .collect::<Result<_, _>>()?,
                            );
                        }
                        "scope" => {
                            e.scope = Some(
                                serde_json::from_value(v)
                                    .map_err(|source| DocumentError::Scope { source })?,
                            )
                        }
                        _ => {
                            return Err(DocumentError::NotEditable {
                                key: format!("applies_to.{key}"),
                            })
                        }
                    }
                }
            }
            _ => return Err(DocumentError::NotEditable { key }),
        }
    }
    Ok(e)
}

fn string(v: Value, key: &'static str) -> Result<String, DocumentError> {
    match v {
        Value::String(s) => Ok(s),
        _ => Err(DocumentError::WrongType {
            key,
            expected: "a string",
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::review::testdata::proposal as fixture;

    fn changed_to(t: Transition) -> Proposal {
        match t {
            Transition::Changed(p) => *p,
            Transition::Unchanged(n) => panic!("expected a change, got: {n}"),
        }
    }

    fn pending() -> Proposal {
        fixture("proposal.pending.json")
    }

    fn claim(text: &str) -> Edit {
        Edit {
            claim: Some(text.into()),
            ..Edit::default()
        }
    }

    fn refused(p: &Proposal, e: &Edit) -> String {
        edit(p, e).unwrap_err().to_string()
    }

    /// A pending lesson drawn from a real npm ERESOLVE report, scoped as
    /// the draft scopes it.
    fn with_evidence() -> Proposal {
        let text = std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/fixtures/resolver/npm-error-plugin-legacy-vite7.txt"
        ))
        .unwrap();
        let mut facts: Vec<crate::facts::Fact> = crate::facts::resolver::requirements(&text)
            .into_iter()
            .map(crate::facts::Fact::Requirement)
            .collect();
        // What the session ran to resolve it.
        facts.extend(
            crate::facts::command::changes_in_command("npm i -D @vitejs/plugin-legacy@7.0.0")
                .into_iter()
                .map(crate::facts::Fact::Change),
        );
        let d = crate::facts::lesson::draft(&facts, None).unwrap();
        let mut p = pending();
        let mut artifact: crate::model::Artifact = serde_json::from_str(include_str!(
            "../../tests/fixtures/artifacts/fix-with-versions.json"
        ))
        .unwrap();
        artifact.facts = facts;
        p.artifact = Some(artifact);
        p.candidate.applies_to.stack = d.stack;
        p.candidate.applies_to.scope = Scope::Versioned {
            versions: d.versions,
        };
        p
    }

    #[test]
    fn a_scope_the_evidence_contradicts_or_does_not_name_is_refused_but_only_when_the_edit_brings_it(
    ) {
        let p = with_evidence();
        let Scope::Versioned { versions } = &p.candidate.applies_to.scope else {
            panic!("versioned")
        };
        let (key, _) = versions.iter().next().unwrap();
        // A range that leaves out every version the report shows broken.
        let e = Edit {
            set: vec![(key.clone(), "<0.0.1".into())],
            ..Edit::default()
        };
        let why = refused(&p, &e);
        assert!(why.contains("disagrees with the evidence"), "{why}");
        assert!(why.contains("leaves out"), "{why}");
        assert!(
            why.contains(&format!("git lore show {} --json", p.id)),
            "{why}"
        );
        // A package the report does not name: the jury would score it as
        // not grounded, so the edit says so now.
        let e = Edit {
            set: vec![("node".into(), "<20".into())],
            ..Edit::default()
        };
        let why = refused(&p, &e);
        assert!(why.contains("\"node\""), "{why}");
        assert!(
            why.contains("name only packages the evidence names"),
            "{why}"
        );
        // A lesson whose scope already disagreed can still have its words
        // fixed: the edit brings no new disagreement.
        let mut off = p.clone();
        if let Scope::Versioned { versions } = &mut off.candidate.applies_to.scope {
            versions.insert(key.clone(), "<0.0.1".into());
        }
        changed_to(
            edit(
                &off,
                &claim("The legacy plugin 6 does not accept Vite 7 as its peer."),
            )
            .unwrap(),
        );
    }

    #[test]
    fn the_words_change_and_nothing_else() {
        let p = pending();
        let e = Edit {
            claim: Some("Vitest 4 needs Vite 6: it imports vite/module-runner".into()),
            rationale: Some("Two\nparagraphs are fine.".into()),
            resolution: Some("Pin vitest to 3.2.4.".into()),
            ..Edit::default()
        };
        let next = changed_to(edit(&p, &e).unwrap());
        assert_eq!(next.candidate.claim, e.claim.clone().unwrap());
        assert_eq!(next.candidate.rationale, "Two\nparagraphs are fine.");
        assert_eq!(next.candidate.evidence.resolution, "Pin vitest to 3.2.4.");
        let mut back = next.clone();
        back.candidate = p.candidate.clone();
        assert_eq!(back, p, "only the candidate changed");
        assert_eq!(
            changed(&p.candidate, &next.candidate),
            ["claim", "rationale", "resolution"]
        );
    }

    #[test]
    fn a_new_scope_key_brings_its_stack_entry_and_unscope_takes_both() {
        let p = pending();
        let e = Edit {
            set: vec![
                ("vite".into(), ">=5 <6".into()),
                ("@vitest/runner".into(), ">=4 <4.1".into()),
            ],
            ..Edit::default()
        };
        let next = changed_to(edit(&p, &e).unwrap());
        assert_eq!(
            next.candidate.applies_to.stack,
            ["vite", "vitest", "@vitest/runner"]
        );
        let Scope::Versioned { versions } = &next.candidate.applies_to.scope else {
            panic!("versioned");
        };
        assert_eq!(versions["vite"], ">=5 <6");
        assert_eq!(changed(&p.candidate, &next.candidate), ["stack", "scope"]);
        let e = Edit {
            unset: vec!["@vitest/runner".into()],
            ..Edit::default()
        };
        let back = changed_to(edit(&next, &e).unwrap());
        assert_eq!(back.candidate.applies_to.stack, ["vite", "vitest"]);
        assert_eq!(
            refused(
                &p,
                &Edit {
                    unset: vec!["react".into()],
                    ..Edit::default()
                }
            ),
            format!(
                "lesson {} not edited: \"react\" is neither in its scope nor in its stack",
                p.id
            )
        );
    }

    #[test]
    fn an_edit_that_changes_nothing_says_so() {
        let p = pending();
        let same = claim(&p.candidate.claim);
        assert_eq!(
            edit(&p, &same).unwrap(),
            Transition::Unchanged(NoOp::Unedited { id: p.id })
        );
        assert_eq!(
            NoOp::Unedited { id: p.id }.to_string(),
            format!("lesson {} already says that; nothing was written", p.id)
        );
        // The document as written reads back as no change at all.
        let doc = parse_document(&document(&p)).unwrap();
        assert_eq!(
            edit(&p, &doc).unwrap(),
            Transition::Unchanged(NoOp::Unedited { id: p.id })
        );
    }

    #[test]
    fn judged_and_passed_lessons_are_refused_naming_what_to_do() {
        let approved = fixture("proposal.approved-promoted.json");
        let id = approved.id;
        assert_eq!(
            refused(&approved, &claim("x")),
            format!("lesson {id} was judged (approved); a judged lesson is not edited: supersede it with a corrected lesson (`git lore relate` relates the newer one to it) or take it back (`git lore retract {id} --reason TEXT`)")
        );
        let rejected = fixture("proposal.rejected.json");
        assert!(refused(&rejected, &claim("x")).starts_with(&format!(
            "lesson {id} was judged (rejected); a judged lesson is not edited"
        )));
        let mut passed = pending();
        passed.status = ProposalStatus::Passed;
        assert_eq!(
            refused(&passed, &claim("x")),
            format!("lesson {id} was passed on; a passed lesson is not edited (passing is final)")
        );
        // A confirmed lesson the jury has not judged is edited.
        let confirmed = fixture("proposal.confirmed.json");
        let next = changed_to(edit(&confirmed, &claim("Vite 5 lacks vite/module-runner")).unwrap());
        assert_eq!(next.status, ProposalStatus::Confirmed);
    }

    #[test]
    fn ranges_wording_and_the_schema_are_checked() {
        let p = pending();
        let id = p.id;
        let set = |name: &str, range: &str| Edit {
            set: vec![(name.into(), range.into())],
            ..Edit::default()
        };
        assert_eq!(
            refused(&p, &set("vite", "^5")),
            format!("lesson {id} not edited: the range \"^5\" for vite: npm-style '^' ranges are not allowed; write comparators, e.g. \">=5.4.21 <6\"")
        );
        assert_eq!(
            refused(&p, &claim("fix(deps): pin vitest")),
            format!("lesson {id} not edited: the claim starts with a conventional-commit prefix (\"fix(deps):\"); state the fact in one sentence instead")
        );
        assert_eq!(
            refused(&p, &claim(&p.candidate.evidence.resolution)),
            format!("lesson {id} not edited: the claim repeats the resolution; the claim states the fact, the resolution says what to do")
        );
        assert_eq!(
            refused(&p, &set("cargo.lock", "=3")),
            format!("lesson {id} not edited: stack entry \"cargo.lock\" is a file name, not a package (`--unscope cargo.lock` takes it out)")
        );
        assert!(
            refused(&p, &claim("Vite 5 \u{202e}lacks it")).starts_with(&format!(
                "lesson {id} not edited: the edited lesson does not validate: /claim: contains the bidirectional control U+202E"
            )),
            "{}",
            refused(&p, &claim("Vite 5 \u{202e}lacks it"))
        );
        assert_eq!(
            refused(&p, &set("vite", ">6 <2")),
            format!("lesson {id} not edited: the edited lesson does not validate: /applies_to/scope/versions/vite: \">6 <2\" matches no version: its lower bound is not below its upper bound")
        );
        // Taking a package out of the stack its range still needs.
        let e = Edit {
            stack: Some(vec!["vitest".into()]),
            ..Edit::default()
        };
        assert!(refused(&p, &e).contains("\"vite\" is not named in applies_to.stack"));
    }

    #[test]
    fn a_commit_s_subject_is_no_claim() {
        let mut p = pending();
        p.artifact = Some(
            serde_json::from_value(serde_json::json!({
                "id": p.artifact_id, "kind": "decision", "project_key": "6a7678979e31",
                "created_at": "2026-08-03T15:59:48Z", "summary": "Pin vitest below 4 for vite 5",
                "trigger": "commit"
            }))
            .unwrap(),
        );
        assert_eq!(
            refused(&p, &claim("Pin vitest below 4 for vite 5")),
            format!("lesson {} not edited: the claim is the commit's subject line; state the fact the commit shows instead", p.id)
        );
    }

    #[test]
    fn version_independent_is_for_confirm_and_kept_as_confirmed() {
        let p = pending();
        let id = p.id;
        let e = Edit {
            scope: Some(Scope::VersionIndependent {
                justification: "always".into(),
            }),
            ..Edit::default()
        };
        assert_eq!(
            refused(&p, &e),
            format!("lesson {id} not edited: a version_independent scope is chosen when confirming (`git lore confirm {id} org --justification TEXT`), not by an edit")
        );
        let vi = fixture("proposal.confirmed-version-independent.json");
        for e in [
            Edit {
                set: vec![("vite".into(), "<6".into())],
                ..Edit::default()
            },
            Edit {
                stack: Some(vec!["vite".into()]),
                ..Edit::default()
            },
        ] {
            assert_eq!(
                refused(&vi, &e),
                format!("lesson {id} not edited: it was confirmed version_independent, so its stack and scope stay as confirmed; `git lore unconfirm {id}` first to change them")
            );
        }
        // Its words change, in the candidate kept for unconfirm too.
        let next =
            changed_to(edit(&vi, &claim("Git refuses to check out over a dirty tree")).unwrap());
        assert_eq!(
            next.candidate_before_confirm.unwrap().claim,
            "Git refuses to check out over a dirty tree"
        );
        // Its document reads back unchanged.
        assert_eq!(
            edit(&vi, &parse_document(&document(&vi)).unwrap()).unwrap(),
            Transition::Unchanged(NoOp::Unedited { id })
        );
    }

    #[test]
    fn the_diff_is_of_the_record_and_starts_no_patch() {
        let p = pending();
        let next = changed_to(edit(&p, &claim("Vite 5 lacks vite/module-runner")).unwrap());
        let d = diff(&p, &next);
        assert!(d.starts_with("@@ "), "{d}");
        assert!(
            d.contains("\n-    \"claim\": \"Vitest 4 cannot import"),
            "{d}"
        );
        assert!(
            d.contains("\n+    \"claim\": \"Vite 5 lacks vite/module-runner\","),
            "{d}"
        );
        assert!(!d.lines().any(|l| l.starts_with("---")), "{d}");
    }

    #[test]
    fn documents_read_back_and_bad_ones_are_named() {
        let p = pending();
        let doc = document(&p);
        assert!(doc.starts_with(&format!("# Editing lesson {} (pending).", p.id)));
        let edited = doc.replace(
            "Vitest 4 cannot import vite/module-runner on Vite 5",
            "Vitest 4 needs vite/module-runner, which Vite 5 lacks",
        );
        let e = parse_document(&edited).unwrap();
        let next = changed_to(edit(&p, &e).unwrap());
        assert_eq!(changed(&p.candidate, &next.candidate), ["claim"]);
        // Hostile characters are written escaped and read back as they were.
        let mut hostile = p.clone();
        hostile.candidate.claim = "a\u{202e}b".into();
        assert!(document(&hostile).contains("a\\u202eb"));
        assert_eq!(
            parse_document(&document(&hostile)).unwrap().claim.unwrap(),
            "a\u{202e}b"
        );
        for (text, want) in [
            ("# only comments\n  \n", "the edit is empty"),
            ("[1]", "the edit must be a JSON object"),
            ("{\"visibility\": \"public\"}", "visibility cannot be edited: only claim, rationale, resolution, applies_to.stack and applies_to.scope can"),
            ("{\"applies_to\": {\"file_patterns\": []}}", "applies_to.file_patterns cannot be edited"),
            ("{\"claim\": 3}", "claim must be a string"),
            ("{\"applies_to\": {\"stack\": \"vite\"}}", "applies_to.stack must be a list of package names"),
            ("{\"applies_to\": {\"scope\": {\"vite\": \"<6\"}}}", "applies_to.scope is not a scope"),
            ("# a comment\n{\"claim\": \"x\",}", "the edit is not JSON: trailing comma at line 2"),
        ] {
            let got = parse_document(text).unwrap_err().to_string();
            assert!(got.starts_with(want), "{text}: {got}");
        }
    }
}
