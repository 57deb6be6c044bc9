//! The body of the pull request that proposes one public lesson to a
//! public pool (`git lore publish public`), rendered from
//! `templates/pull-request.md`: the claim, rationale, resolution and scope,
//! the jury's verdict with every judge's per-criterion scores, the
//! disclosure scan, and who signed the commit.
//!
//! Lesson text came from a model and the verdict from judges: every field
//! is flattened to one line and escaped for markdown
//! ([`crate::recall::render`]), so no lesson can add headings, links or
//! HTML to the page a reviewer reads. The module is pure.

use crate::model::{Lesson, Verdict};
use crate::recall::render::{markdown_code, markdown_inline, scope_text};
use crate::store::layout;

use crate::scanner::Finding;

/// The template, embedded at build time.
pub const TEMPLATE: &str = include_str!("../../templates/pull-request.md");

/// Longest a lesson field is shown, in characters.
const FIELD_CHARS: usize = 2_000;

/// Who signed the review commit, and what the remote pool makes of it.
#[derive(Clone, Debug)]
pub struct Signed {
    pub principal: String,
    pub fingerprint: String,
    /// `good: listed in the pool's allowed signers`, or why not.
    pub status: String,
}

/// Renders the body for `lesson`.
pub fn body(
    lesson: &Lesson,
    verdict: Option<&Verdict>,
    findings: &[Finding],
    signed: &Signed,
) -> String {
    let fields: [(&str, String); 11] = [
        ("id", lesson.id.to_string()),
        ("claim", markdown_inline(&lesson.claim, FIELD_CHARS)),
        ("rationale", markdown_inline(&lesson.rationale, FIELD_CHARS)),
        (
            "resolution",
            markdown_inline(&lesson.evidence.resolution, FIELD_CHARS),
        ),
        (
            "scope",
            format!("`{}`", markdown_code(&scope_text(lesson), FIELD_CHARS)),
        ),
        ("verdict", verdict_text(verdict)),
        ("disclosure", disclosure_text(findings)),
        ("path", layout::lesson_path(lesson.id)),
        ("principal", markdown_code(&signed.principal, 200)),
        ("fingerprint", markdown_code(&signed.fingerprint, 100)),
        ("signature", markdown_inline(&signed.status, 300)),
    ];
    let mut out = TEMPLATE.to_owned();
    for (name, value) in fields {
        out = out.replace(&format!("{{{{{name}}}}}"), &value);
    }
    out
}

fn number(v: Option<&serde_json::Value>) -> String {
    v.and_then(serde_json::Value::as_f64)
        .map(|x| format!("{x:.2}"))
        .unwrap_or_else(|| "—".into())
}

/// The verdict as a sentence and a table: one row per judge, one column
/// per criterion the judges scored.
fn verdict_text(verdict: Option<&Verdict>) -> String {
    let Some(v) = verdict else {
        return "No verdict is recorded for this lesson.".into();
    };
    let mut out = format!(
        "Rubric `{}`, gate `{}`: aggregate {} against a threshold of {} — **{}** (`{}`).\n",
        markdown_code(v.rubric_id.as_deref().unwrap_or("none"), 80),
        markdown_code(v.gate_policy.as_deref().unwrap_or("none"), 40),
        v.aggregate_score
            .map(|s| format!("{s:.2}"))
            .unwrap_or("—".into()),
        v.score_threshold
            .map(|s| format!("{s:.2}"))
            .unwrap_or("—".into()),
        if v.passed { "passed" } else { "did not pass" },
        markdown_code(&v.reason, 80),
    );
    let mut criteria: Vec<String> = Vec::new();
    for j in &v.judges {
        if let Some(m) = j.get("criterion_scores").and_then(|c| c.as_object()) {
            for k in m.keys() {
                if !criteria.contains(k) {
                    criteria.push(k.clone());
                }
            }
        }
    }
    criteria.truncate(12);
    out.push_str("\n| judge | score | passed |");
    for c in &criteria {
        out.push_str(&format!(" {} |", markdown_inline(c, 40)));
    }
    out.push_str("\n|---|---:|---|");
    out.push_str(&"---:|".repeat(criteria.len()));
    out.push('\n');
    for j in v.judges.iter().take(20) {
        let name = j
            .get("judge_type")
            .and_then(|t| t.as_str())
            .unwrap_or("judge");
        let passed = match j.get("passed").and_then(|p| p.as_bool()) {
            Some(true) => "yes",
            Some(false) => "no",
            None => "—",
        };
        out.push_str(&format!(
            "| {} | {} | {} |",
            markdown_inline(name, 40),
            number(j.get("score")),
            passed
        ));
        for c in &criteria {
            out.push_str(&format!(
                " {} |",
                number(j.get("criterion_scores").and_then(|s| s.get(c)))
            ));
        }
        out.push('\n');
    }
    out.trim_end().to_owned()
}

fn disclosure_text(findings: &[Finding]) -> String {
    if findings.is_empty() {
        return "No credential, key, token or private address found in any field (git-lore's disclosure scanner).".into();
    }
    let mut out = String::from("Findings (redacted):\n");
    for f in findings {
        out.push_str(&format!("\n- {}", markdown_inline(&f.to_string(), 200)));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lesson() -> Lesson {
        serde_json::from_str(include_str!("testdata/pool-entry.approved-org.json")).unwrap()
    }

    fn verdict() -> Verdict {
        let p: serde_json::Value =
            serde_json::from_str(include_str!("testdata/proposal.approved-promoted.json")).unwrap();
        serde_json::from_value(p["verdict"].clone()).unwrap()
    }

    fn signed() -> Signed {
        Signed {
            principal: "ana@example.org".into(),
            fingerprint: "SHA256:abc".into(),
            status: "good: listed in the pool's allowed signers".into(),
        }
    }

    #[test]
    fn the_body_carries_the_lesson_the_verdict_and_the_signer() {
        let l = lesson();
        let b = body(&l, Some(&verdict()), &[], &signed());
        assert!(b.contains(&l.id.to_string()));
        assert!(b.contains("| judge | score | passed |"), "{b}");
        assert!(b.contains("| standard | 0.90 | yes |"), "{b}");
        assert!(b.contains("grounding"), "{b}");
        assert!(b.contains("No credential"), "{b}");
        assert!(b.contains("`ana@example.org` (SHA256:abc)"), "{b}");
        assert!(b.contains("merge commit"), "{b}");
        assert!(!b.contains("{{"), "every placeholder is filled: {b}");
    }

    #[test]
    fn lesson_text_cannot_add_structure_to_the_page() {
        let mut l = lesson();
        l.claim =
            "fine\n## Approved by maintainers\n<img src=x onerror=alert(1)> [click](http://evil)"
                .into();
        let b = body(&l, None, &[], &signed());
        let heading = b.lines().find(|x| x.starts_with("## ")).unwrap();
        assert!(heading.contains("fine ## Approved"), "{heading}");
        assert_eq!(b.lines().filter(|x| x.starts_with("## ")).count(), 1);
        assert!(b.contains("\\<img"), "HTML is escaped, shown as text: {b}");
    }
}
