//! Test helpers: compact lesson specs expanded into valid Lesson v2 records.
//! Test-only; nothing here is part of the library.

use std::collections::BTreeMap;

use crate::model::{
    AppliesTo, Consensus, Evidence, Id, Lesson, LessonStatus, Scope, Source, Visibility,
};

/// The id of the `n`th test lesson: ids grow with `n`.
pub fn test_id(n: u32) -> Id {
    Id::from_parts(1_785_000_000_000 + u64::from(n), u128::from(n))
}

/// The id of the `n`th test artifact (a different time range from lessons).
pub fn artifact_id(n: u32) -> Id {
    Id::from_parts(1_784_000_000_000 + u64::from(n), u128::from(n) << 8)
}

/// A lesson in a few fields; everything else gets a valid default.
#[derive(Clone, Copy, Debug)]
pub struct LessonSpec<'a> {
    pub n: u32,
    pub claim: &'a str,
    pub rationale: &'a str,
    pub resolution: &'a str,
    pub stack: &'a [&'a str],
    /// Empty means `version_independent`.
    pub versions: &'a [(&'a str, &'a str)],
    pub status: LessonStatus,
    pub promoted_at: &'a str,
    pub artifacts: &'a [u32],
    pub sessions: &'a [&'a str],
}

impl Default for LessonSpec<'_> {
    fn default() -> Self {
        LessonSpec {
            n: 1,
            claim: "Vitest 4 cannot import vite/module-runner on Vite 5",
            rationale: "vite/module-runner ships in Vite 6; Vitest 4 assumes it exists.",
            resolution: "Pin vitest to 3.x until Vite 6 lands.",
            stack: &["vite", "vitest"],
            versions: &[("vite", "<6"), ("vitest", ">=4")],
            status: LessonStatus::Active,
            promoted_at: "2026-08-05T10:00:01Z",
            artifacts: &[1],
            sessions: &["sess-1"],
        }
    }
}

/// Expands a spec into a Lesson v2 record.
pub fn lesson(spec: &LessonSpec<'_>) -> Lesson {
    let scope = if spec.versions.is_empty() {
        Scope::VersionIndependent {
            justification: "holds for every release of the stack".into(),
        }
    } else {
        Scope::Versioned {
            versions: spec
                .versions
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect::<BTreeMap<_, _>>(),
        }
    };
    Lesson {
        id: test_id(spec.n),
        schema_version: 2,
        claim: spec.claim.into(),
        rationale: spec.rationale.into(),
        evidence: Evidence {
            artifact_ids: spec.artifacts.iter().map(|&a| artifact_id(a)).collect(),
            session_ids: spec.sessions.iter().map(|s| s.to_string()).collect(),
            project_key: "6a7678979e31".into(),
            observed_at: "2026-08-03T15:59:48Z".into(),
            resolution: spec.resolution.into(),
        },
        applies_to: AppliesTo {
            stack: spec.stack.iter().map(|s| s.to_string()).collect(),
            scope,
            file_patterns: Vec::new(),
            task_kinds: Vec::new(),
        },
        visibility: Visibility::Org,
        consensus: Consensus {
            judges: 2,
            agreed: 2,
            decided_at: "2026-08-05T10:00:00Z".into(),
        },
        superseded_by: match spec.status {
            LessonStatus::Superseded => Some(test_id(9999)),
            _ => None,
        },
        status: spec.status,
        source: Source::Org,
        author_key: "a8cf0203e178702412d37d5f796adbdc".into(),
        promoted_at: spec.promoted_at.into(),
    }
}
