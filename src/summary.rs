//! What the index keeps of a pool entry so that recall never has to read
//! pool blobs: everything selecting a lesson needs (its scope, stack,
//! status, successor, promotion time) and what text and markdown output
//! print of it (its claim and resolution, cut to the length output shows).
//!
//! A summary turns back into a *thin* [`Lesson`]: the same scope, status
//! and artifact ids, with the rest of the provenance, the rationale and the
//! consensus left empty. Selection and
//! the text and markdown renderers read only what a summary keeps; JSON
//! output and exports read the whole entry from the pool instead.
//!
//! It sits with the records, below the store: the index (`store::index`)
//! keeps summaries and recall reads them. Pure: no I/O.

use serde::{Deserialize, Serialize};

use crate::model::{
    AppliesTo, Consensus, Evidence, Id, Lesson, LessonStatus, Scope, Source, Visibility,
};
use crate::version::coarse_name;

/// The longest claim or resolution a summary keeps, in characters: what
/// text and markdown output show of them, and one more, so that output can
/// tell a cut field (`crate::recall::render::MAX_FIELD_CHARS` plus one;
/// a test in `recall` holds the two together).
pub const KEPT_CHARS: usize = 301;

/// A pool entry, as recall needs it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Summary {
    pub id: Id,
    pub status: LessonStatus,
    pub superseded_by: Option<Id>,
    pub promoted_at: String,
    pub source: Source,
    pub visibility: Visibility,
    pub applies_to: AppliesTo,
    pub claim: String,
    pub resolution: String,
    /// `evidence.artifact_ids`: the moments it was made from (recall lists
    /// one lesson per moment, [`crate::recall::moments`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub artifacts: Vec<Id>,
}

fn cut(s: &str) -> String {
    s.chars().take(KEPT_CHARS).collect()
}

impl Summary {
    /// The summary of a pool entry.
    pub fn of(l: &Lesson) -> Summary {
        Summary {
            id: l.id,
            status: l.status,
            superseded_by: l.superseded_by,
            promoted_at: l.promoted_at.clone(),
            source: l.source,
            visibility: l.visibility,
            applies_to: l.applies_to.clone(),
            claim: cut(&l.claim),
            resolution: cut(&l.evidence.resolution),
            artifacts: l.evidence.artifact_ids.clone(),
        }
    }

    /// The names it is found under, and how many of them a project must
    /// have installed for it to possibly apply: a versioned entry needs
    /// every `versions` key (so all of them), a version-independent one any
    /// one stack entry. Names are coarse ([`coarse_name`]), each once.
    pub fn keys(&self) -> (Vec<String>, usize) {
        let mut keys: Vec<String> = match &self.applies_to.scope {
            Scope::Versioned { versions } => versions.keys().map(|k| coarse_name(k)).collect(),
            Scope::VersionIndependent { .. } => self
                .applies_to
                .stack
                .iter()
                .map(|s| coarse_name(s))
                .collect(),
        };
        keys.sort();
        keys.dedup();
        let needed = match self.applies_to.scope {
            Scope::Versioned { .. } => keys.len(),
            Scope::VersionIndependent { .. } => 1,
        };
        (keys, needed)
    }

    /// The thin lesson: what selection and text output read, nothing more.
    pub fn lesson(&self) -> Lesson {
        Lesson {
            id: self.id,
            schema_version: 2,
            claim: self.claim.clone(),
            rationale: String::new(),
            evidence: Evidence {
                artifact_ids: self.artifacts.clone(),
                session_ids: Vec::new(),
                project_key: String::new(),
                observed_at: String::new(),
                resolution: self.resolution.clone(),
            },
            applies_to: self.applies_to.clone(),
            visibility: self.visibility,
            consensus: Consensus {
                judges: 0,
                agreed: 0,
                decided_at: String::new(),
            },
            status: self.status,
            superseded_by: self.superseded_by,
            source: self.source,
            author_key: String::new(),
            promoted_at: self.promoted_at.clone(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry() -> Lesson {
        serde_json::from_str(include_str!("review/testdata/pool-entry.approved-org.json")).unwrap()
    }

    #[test]
    fn a_summary_keeps_what_recall_reads() {
        let l = entry();
        let s = Summary::of(&l);
        let back: Summary = serde_json::from_slice(&serde_json::to_vec(&s).unwrap()).unwrap();
        assert_eq!(back, s);
        let thin = s.lesson();
        assert_eq!(thin.applies_to, l.applies_to);
        assert_eq!(
            (thin.status, thin.superseded_by),
            (l.status, l.superseded_by)
        );
        assert_eq!(thin.claim, l.claim);
        assert_eq!(thin.evidence.resolution, l.evidence.resolution);
        assert_eq!(thin.evidence.artifact_ids, l.evidence.artifact_ids);
        assert_eq!(s.keys(), (vec!["vite".to_owned(), "vitest".to_owned()], 2));
    }

    #[test]
    fn long_text_is_cut_to_what_output_shows() {
        let mut l = entry();
        l.claim = "x".repeat(5000);
        let s = Summary::of(&l);
        assert_eq!(s.claim.chars().count(), KEPT_CHARS);
    }
}
