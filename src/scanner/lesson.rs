//! A lesson's text: every string of a candidate, one by one and joined.
//!
//! Each field is scanned on its own and its findings name it. Then the
//! fields are joined end to end, in the order below, and scanned again: a
//! finding of the joined text that runs across a seam between two fields
//! (a key whose first half ends the claim and whose second half starts the
//! rationale) is reported too, naming every field it touches
//! (`claim + rationale`). A seam counts only where it splits a word: both
//! characters beside it are not white space, and it is not a sentence's
//! end before a capital (`…vite.config.` then `Local builds…`).

use std::ops::Range;

use super::{excerpt, find, Finding};
use crate::model::{Candidate, Scope};

/// Every string of a candidate with its field name: claim, rationale,
/// every evidence and applies_to string, scope keys and values, the
/// justification.
fn fields(c: &Candidate) -> Vec<(String, &str)> {
    let mut fields: Vec<(String, &str)> = vec![
        ("claim".into(), &c.claim),
        ("rationale".into(), &c.rationale),
        ("evidence.resolution".into(), &c.evidence.resolution),
        ("evidence.project_key".into(), &c.evidence.project_key),
        ("evidence.observed_at".into(), &c.evidence.observed_at),
    ];
    for (i, s) in c.evidence.session_ids.iter().enumerate() {
        fields.push((format!("evidence.session_ids[{i}]"), s));
    }
    for (i, s) in c.applies_to.stack.iter().enumerate() {
        fields.push((format!("applies_to.stack[{i}]"), s));
    }
    match &c.applies_to.scope {
        Scope::Versioned { versions } => {
            for (k, v) in versions {
                fields.push(("applies_to.scope.versions (key)".into(), k));
                fields.push((format!("applies_to.scope.versions.{k}"), v));
            }
        }
        Scope::VersionIndependent { justification } => {
            fields.push(("applies_to.scope.justification".into(), justification));
        }
    }
    for (i, s) in c.applies_to.file_patterns.iter().enumerate() {
        fields.push((format!("applies_to.file_patterns[{i}]"), s));
    }
    for (i, s) in c.applies_to.task_kinds.iter().enumerate() {
        fields.push((format!("applies_to.task_kinds[{i}]"), s));
    }
    fields
}

/// Whether the seam at byte `at` of `joined` splits a word.
fn splits_a_word(joined: &str, at: usize) -> bool {
    let (Some(before), Some(after)) = (
        joined[..at].chars().next_back(),
        joined[at..].chars().next(),
    ) else {
        return false;
    };
    let sentence_end = matches!(before, '.' | '!' | '?' | ';' | ',' | ':') && after.is_uppercase();
    !before.is_whitespace() && !after.is_whitespace() && !sentence_end
}

/// Scans a lesson (see the module documentation). Findings of each field
/// in field order, then those across fields that no field's own finding
/// overlaps.
pub fn scan_lesson(c: &Candidate) -> Vec<Finding> {
    let fields = fields(c);
    let mut joined = String::new();
    let mut ranges: Vec<Range<usize>> = Vec::with_capacity(fields.len());
    for (_, text) in &fields {
        ranges.push(joined.len()..joined.len() + text.len());
        joined.push_str(text);
    }
    let mut out: Vec<Finding> = Vec::new();
    // Spans of the joined text already reported.
    let mut seen: Vec<Range<usize>> = Vec::new();
    for ((name, text), r) in fields.iter().zip(&ranges) {
        for l in find(text) {
            seen.push(r.start + l.span.start..r.start + l.span.end);
            out.push(Finding {
                kind: l.kind,
                excerpt: excerpt(&text[l.span]),
                field: Some(name.clone()),
                encoded: l.encoded,
            });
        }
    }
    for l in find(&joined) {
        let overlaps = |r: &Range<usize>| r.start < l.span.end && l.span.start < r.end;
        let touched: Vec<usize> = (0..fields.len())
            .filter(|&i| !ranges[i].is_empty() && overlaps(&ranges[i]))
            .collect();
        let split = touched
            .iter()
            .skip(1)
            .any(|&i| splits_a_word(&joined, ranges[i].start));
        if touched.len() < 2 || !split || seen.iter().any(overlaps) {
            continue;
        }
        let names: Vec<&str> = touched.iter().map(|&i| fields[i].0.as_str()).collect();
        out.push(Finding {
            kind: l.kind,
            excerpt: excerpt(&joined[l.span]),
            field: Some(names.join(" + ")),
            encoded: l.encoded,
        });
    }
    out
}
