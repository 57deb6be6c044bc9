//! The pre-gate: the free check that runs before any model call.
//!
//! The transform can only emit a versioned scope, so an artifact with no
//! version-shaped token anywhere cannot become a lesson. The pre-gate looks
//! for one in `summary + " " + detail` with exactly this expression
//! (POSIX `grep -E` syntax, so other tools of the pipeline agree):
//!
//! ```text
//! ([0-9]+\.[0-9]+)|(\bv[0-9]+)|([0-9]+\.x\b)
//! ```
//!
//! `\b` is a word boundary as GNU grep sees it in a UTF-8 locale: a word
//! character is a letter or digit of any script, or `_`. So `v5` and `(v5`
//! match, `dev5` and `_v5` do not; `5.x` matches, `5.xy` does not. grep works
//! line by line; no alternative can span a newline, so matching the whole
//! text at once gives the same answer.
//!
//! Facts that carry a version (`crate::facts`) pass it as well.
//!
//! It rejects only what is impossible, never what is merely low quality:
//! whether the artifact states a resolution is the transform's question.
//! A pre-gate skip writes nothing (no event, no ledger entry); this
//! module only answers the question and never records anything.

use std::sync::OnceLock;

use regex::Regex;

use crate::model::Artifact;

/// The expression, verbatim.
pub const PREGATE_PATTERN: &str = r"([0-9]+\.[0-9]+)|(\bv[0-9]+)|([0-9]+\.x\b)";

fn pattern() -> Option<&'static Regex> {
    static RE: OnceLock<Option<Regex>> = OnceLock::new();
    RE.get_or_init(|| Regex::new(PREGATE_PATTERN).ok()).as_ref()
}

/// Whether `summary + " " + detail` holds a version-shaped token.
pub fn has_version_token(summary: &str, detail: Option<&str>) -> bool {
    let text = format!("{summary} {}", detail.unwrap_or(""));
    // The pattern is a constant that compiles (tested); were it ever not to,
    // passing the artifact on to the transform is the safe direction: the
    // pre-gate only saves a model call.
    pattern().is_none_or(|re| re.is_match(&text))
}

/// Whether the artifact passes the pre-gate (false: skip it silently).
/// Facts that name a version pass it too: a mined commit's subject ("fix:
/// esbuild regression") need not repeat what its manifest diff says.
pub fn passes(artifact: &Artifact) -> bool {
    has_version_token(&artifact.summary, artifact.detail.as_deref())
        || artifact.facts.iter().any(fact_has_version)
}

fn fact_has_version(f: &crate::facts::Fact) -> bool {
    use crate::facts::Fact;
    let v = |s: &Option<String>| s.as_deref().is_some_and(|s| has_version_token(s, None));
    match f {
        Fact::Requirement(r) => v(&r.required) || v(&r.found),
        Fact::Change(c) => v(&c.from) || v(&c.to),
        Fact::Outcome(_) => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn artifact(name: &str) -> Artifact {
        let text = match name {
            "real" => include_str!("../../tests/fixtures/artifacts/real-vitest-no-resolution.json"),
            "free" => include_str!("../../tests/fixtures/artifacts/version-free.json"),
            _ => include_str!("../../tests/fixtures/artifacts/positive-synthetic.json"),
        };
        serde_json::from_str(text).unwrap()
    }

    #[test]
    fn the_pattern_compiles() {
        assert!(pattern().is_some());
    }

    #[test]
    fn fixtures() {
        assert!(passes(&artifact("real")));
        assert!(passes(&artifact("positive")));
        assert!(!passes(&artifact("free")));
    }

    #[test]
    fn tokens_as_grep_sees_them() {
        let yes = [
            "vite 5.4",
            "1.2",
            "0.0",
            "node v18",
            "v5",
            "(v5)",
            "use 5.x here",
            "5.x",
            "5.x.",
            "1.2.3-beta",
            "see\nv2 of it",
            "a12.34b",
        ];
        for t in yes {
            assert!(has_version_token(t, None), "{t:?} must pass");
        }
        let no = [
            "",
            "Prefer functional patterns",
            "dev5",
            "_v5",
            "5.xy",
            "5.",
            ".5",
            "v",
            "V5",
            "rev2 of the design",
            "év5",
            "version 5",
        ];
        for t in no {
            assert!(!has_version_token(t, None), "{t:?} must be skipped");
        }
    }

    #[test]
    fn summary_and_detail_are_joined_with_a_space() {
        assert!(has_version_token("nothing here", Some("but vite 5.4 here")));
        assert!(!has_version_token("ends with 5", Some(".4 starts")));
        // "5" + " " + "x": the space prevents a 5.x token from forming.
        assert!(!has_version_token("5", Some("x")));
        assert!(has_version_token("x", Some("v5")));
        assert!(!has_version_token("no token", None));
    }
}
