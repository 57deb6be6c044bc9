//! The records relation judgment adds to a pool, and the paths they live at.
//!
//! All paths fan out on the last three characters of a ULID (`X`, `Y`, `Z`), like
//! lessons do:
//!
//! | path | record | written by |
//! |---|---|---|
//! | `lessons/<X>/<Y>/<Z>/<LESSON>.json` | the Lesson v2 entry (changed in place) | `supersede`, `merge` |
//! | `relations/<X>/<Y>/<Z>/<FROM>/<TO>.json` | [`RelationRecord`]: `FROM` refines `TO`; `X`/`Y`/`Z` from `FROM` | `refine` |
//! | `counter-observations/<X>/<Y>/<Z>/<LESSON>/<ID>.json` | [`CounterObservation`] against `LESSON`; `X`/`Y`/`Z` from `LESSON` | `contradict` |
//! | `related/<X>/<Y>/<Z>/<LESSON>.json` | [`RelatedRecord`]: `LESSON` was related, and how | `relate` |
//! | `upheld/<X>/<Y>/<Z>/<LESSON>/<N>.json` | [`UpheldRecord`]: the jury upheld `LESSON` against `N` counter-observations | `judge` (on a pool) |
//!
//! A lesson's outgoing refinements, the counter-observations against it and
//! its judgment record are each one tree read from its id. Incoming
//! refinements need the index.
//!
//! The counter-observation is the published contract's record, field for
//! field (`counter-observation.schema.json`, strict). The relation,
//! judgment and upheld records are ours; their schemas are
//! `schema/relation.schema.json`, `schema/related.schema.json` and
//! `schema/upheld.schema.json`. `N` in an upheld path is a decimal number
//! without leading zeros, at least 1.
//!
//! This module names and shapes records; it decides nothing and writes
//! nothing.

use serde::{Deserialize, Serialize};

use crate::model::Id;

use super::verdict::DecisionKind;

/// `schema_version` of the relation and judgment records.
pub const RECORD_SCHEMA_VERSION: u8 = 1;

/// `schema_version` of a counter-observation (the published contract's).
pub const COUNTER_OBSERVATION_SCHEMA_VERSION: u8 = 1;

/// The directory of lesson entries in a pool.
pub const LESSONS_DIR: &str = "lessons";
/// The directory of relation records in a pool.
pub const RELATIONS_DIR: &str = "relations";
/// The directory of counter-observations in a pool.
pub const COUNTER_OBSERVATIONS_DIR: &str = "counter-observations";
/// The directory of judgment records in a pool.
pub const RELATED_DIR: &str = "related";
/// The directory of upheld records in a pool.
pub const UPHELD_DIR: &str = "upheld";

fn fan(dir: &str, id: Id) -> String {
    format!("{dir}/{}/{id}", id.bucket())
}

/// `lessons/<X>/<Y>/<Z>/<LESSON>.json`: the pool entry, where verify and recall
/// read it.
pub use crate::store::layout::lesson_path;

/// `relations/<X>/<Y>/<Z>/<FROM>/<TO>.json`, fanned out on `from`.
pub fn relation_path(from: Id, to: Id) -> String {
    format!("{}/{to}.json", fan(RELATIONS_DIR, from))
}

/// `counter-observations/<X>/<Y>/<Z>/<LESSON>/<ID>.json`, fanned out on `lesson`.
pub fn counter_observation_path(lesson: Id, observation: Id) -> String {
    format!(
        "{}/{observation}.json",
        fan(COUNTER_OBSERVATIONS_DIR, lesson)
    )
}

/// `related/<X>/<Y>/<Z>/<LESSON>.json`.
pub fn related_path(lesson: Id) -> String {
    format!("{}.json", fan(RELATED_DIR, lesson))
}

/// `upheld/<X>/<Y>/<Z>/<LESSON>/<N>.json`: the jury upheld `lesson` against
/// `count` counter-observations.
pub fn upheld_path(lesson: Id, count: usize) -> String {
    format!("{}/{count}.json", fan(UPHELD_DIR, lesson))
}

/// The directory of `lesson`'s upheld records.
pub fn upheld_dir(lesson: Id) -> String {
    fan(UPHELD_DIR, lesson)
}

/// The directory of the counter-observations against `lesson`.
pub fn counter_observations_dir(lesson: Id) -> String {
    fan(COUNTER_OBSERVATIONS_DIR, lesson)
}

/// What a relation path holds, named by its ids.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RelationPath {
    Relation { from: Id, to: Id },
    CounterObservation { lesson: Id, observation: Id },
    Related(Id),
    Upheld { lesson: Id, count: usize },
}

/// Classifies a path this module names; `None` for anything else, including
/// a record in the wrong bucket or a non-canonical id.
pub fn classify(path: &str) -> Option<RelationPath> {
    let parts: Vec<&str> = path.split('/').collect();
    let bucket_ok = |x: &str, y: &str, z: &str, id: Id| id.in_bucket(&[x, y, z]);
    let json_id = |file: &str| file.strip_suffix(".json")?.parse::<Id>().ok();
    match parts.as_slice() {
        [RELATED_DIR, x, y, z, file] => {
            let id = json_id(file)?;
            bucket_ok(x, y, z, id).then_some(RelationPath::Related(id))
        }
        [RELATIONS_DIR, x, y, z, from, file] => {
            let from: Id = from.parse().ok()?;
            let to = json_id(file)?;
            bucket_ok(x, y, z, from).then_some(RelationPath::Relation { from, to })
        }
        [COUNTER_OBSERVATIONS_DIR, x, y, z, lesson, file] => {
            let lesson: Id = lesson.parse().ok()?;
            let observation = json_id(file)?;
            bucket_ok(x, y, z, lesson).then_some(RelationPath::CounterObservation {
                lesson,
                observation,
            })
        }
        [UPHELD_DIR, x, y, z, lesson, file] => {
            let lesson: Id = lesson.parse().ok()?;
            let n = file.strip_suffix(".json")?;
            let canonical = !n.is_empty()
                && n.len() <= 9
                && n.bytes().all(|b| b.is_ascii_digit())
                && !n.starts_with('0');
            let count: usize = n.parse().ok().filter(|_| canonical)?;
            bucket_ok(x, y, z, lesson).then_some(RelationPath::Upheld { lesson, count })
        }
        _ => None,
    }
}

/// The kinds of link a [`RelationRecord`] records.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LinkKind {
    /// `from` refines `to`; both stay active.
    Refine,
}

/// A link between two live lessons (`relations/<X>/<Y>/<Z>/<FROM>/<TO>.json`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RelationRecord {
    pub schema_version: u8,
    pub kind: LinkKind,
    /// The lesson that was judged (the candidate).
    pub from: Id,
    /// The presented neighbour it relates to.
    pub to: Id,
    pub surface: String,
    pub rationale: String,
    pub confidence: f64,
    /// The relation judge: `offline` or a model name.
    pub model: String,
    /// When the verdict was applied, `YYYY-MM-DDTHH:MM:SSZ`.
    pub decided_at: String,
}

/// A counter-observation: evidence that a lesson is wrong, recorded against
/// it without changing its status. Exactly the keys of the published
/// `counter-observation.schema.json`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CounterObservation {
    pub id: Id,
    pub schema_version: u8,
    /// The lesson contradicted.
    pub lesson_id: Id,
    /// When the contradicting evidence was observed.
    pub observed_at: String,
    /// The artifacts of the contradicting evidence (at least one).
    pub artifact_ids: Vec<Id>,
    pub session_id: String,
    pub summary: String,
    /// Twelve lower-case hex characters.
    pub author_key: String,
}

/// One decision as the judgment record keeps it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RecordedDecision {
    pub decision: DecisionKind,
    pub target_ids: Vec<Id>,
    pub surface: String,
    pub rationale: String,
    pub confidence: f64,
}

/// The judgment record of a related lesson (`related/<X>/<Y>/<Z>/<LESSON>.json`):
/// that it was related, by which judge, against which presentation, and every
/// decision of the batch. Its presence is what "already related" means.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RelatedRecord {
    pub schema_version: u8,
    pub lesson_id: Id,
    /// When the verdict was applied, `YYYY-MM-DDTHH:MM:SSZ`.
    pub related_at: String,
    pub model: String,
    /// The corpus fingerprint digest of the neighbours presented.
    pub corpus_digest: String,
    pub decisions: Vec<RecordedDecision>,
}

/// The record that the jury upheld a contradicted lesson
/// (`upheld/<X>/<Y>/<Z>/<LESSON>/<N>.json`): against which counter-observations,
/// when, by which judges, and the jury's whole verdict. The lesson leaves
/// the jury's queue until more than `counter_observations` are recorded.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UpheldRecord {
    pub schema_version: u8,
    pub lesson_id: Id,
    /// When the verdict was recorded, `YYYY-MM-DDTHH:MM:SSZ`.
    pub upheld_at: String,
    /// How many counter-observations the jury saw (the path's `N`).
    pub counter_observations: usize,
    /// Their ids, sorted.
    pub counter_observation_ids: Vec<Id>,
    /// The judges' model (`offline`, a model name), or null for verdicts
    /// given from outside.
    pub model: Option<String>,
    /// The jury's verdict, as a proposal's `verdict` records it.
    pub verdict: crate::model::Verdict,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_fan_out_and_classify_back() {
        let a: Id = "01KZ45MKAM734ZS7JK24D2DK0R".parse().unwrap();
        let b: Id = "01KZ4A1B2C3D4E5F6G7H8J9K0M".parse().unwrap();
        assert_eq!(
            lesson_path(a),
            "lessons/K/0/R/01KZ45MKAM734ZS7JK24D2DK0R.json"
        );
        assert_eq!(
            relation_path(a, b),
            "relations/K/0/R/01KZ45MKAM734ZS7JK24D2DK0R/01KZ4A1B2C3D4E5F6G7H8J9K0M.json"
        );
        assert_eq!(
            counter_observation_path(b, a),
            "counter-observations/K/0/M/01KZ4A1B2C3D4E5F6G7H8J9K0M/01KZ45MKAM734ZS7JK24D2DK0R.json"
        );
        assert_eq!(
            related_path(b),
            "related/K/0/M/01KZ4A1B2C3D4E5F6G7H8J9K0M.json"
        );
        assert_eq!(
            classify(&relation_path(a, b)),
            Some(RelationPath::Relation { from: a, to: b })
        );
        assert_eq!(
            classify(&counter_observation_path(b, a)),
            Some(RelationPath::CounterObservation {
                lesson: b,
                observation: a
            })
        );
        assert_eq!(classify(&related_path(b)), Some(RelationPath::Related(b)));
        assert_eq!(
            upheld_path(b, 12),
            "upheld/K/0/M/01KZ4A1B2C3D4E5F6G7H8J9K0M/12.json"
        );
        assert_eq!(
            classify(&upheld_path(b, 12)),
            Some(RelationPath::Upheld {
                lesson: b,
                count: 12
            })
        );
        for bad in [
            "related/K/0/R/01KZ4A1B2C3D4E5F6G7H8J9K0M.json",
            "related/K/0/M/01kz4a1b2c3d4e5f6g7h8j9k0m.json",
            "related/K/0/M/01KZ4A1B2C3D4E5F6G7H8J9K0M",
            "related/0/M/01KZ4A1B2C3D4E5F6G7H8J9K0M.json",
            "relations/K/0/M/01KZ45MKAM734ZS7JK24D2DK0R/01KZ4A1B2C3D4E5F6G7H8J9K0M.json",
            "relations/0/R/01KZ45MKAM734ZS7JK24D2DK0R/01KZ4A1B2C3D4E5F6G7H8J9K0M.json",
            "lessons/K/0/R/01KZ45MKAM734ZS7JK24D2DK0R.json",
            "related/K/0/M/x/01KZ4A1B2C3D4E5F6G7H8J9K0M.json",
            "upheld/K/0/M/01KZ4A1B2C3D4E5F6G7H8J9K0M/02.json",
            "upheld/K/0/M/01KZ4A1B2C3D4E5F6G7H8J9K0M/0.json",
            "upheld/K/0/R/01KZ4A1B2C3D4E5F6G7H8J9K0M/2.json",
            "upheld/K/0/M/01KZ4A1B2C3D4E5F6G7H8J9K0M/-2.json",
            "upheld/0/M/01KZ4A1B2C3D4E5F6G7H8J9K0M/2.json",
            "",
        ] {
            assert_eq!(classify(bad), None, "{bad}");
        }
    }
}
