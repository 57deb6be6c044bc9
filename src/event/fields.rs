//! The `Lore-*` fields of one commit, untyped: the shape of the trailer
//! block, shared by both directions of the conversion. Each action's unit
//! fills them ([`super::Event::to_trailers`]) or reads its fields from them
//! ([`super::Event::from_trailers`]); this file knows keys and their
//! order, not what an action means.

use super::{CommitRef, Ruling, Step};
use crate::model::Id;
use crate::trailers::{Action, Trailer, TrailerError, FORMAT};

/// The `Lore-*` fields of one commit, untyped: the shape of the trailer
/// block, shared by both directions of the conversion.
#[derive(Default)]
pub(super) struct Fields {
    pub(super) action: Option<Action>,
    pub(super) lesson: Option<Id>,
    pub(super) artifact: Option<Id>,
    pub(super) from: Option<String>,
    pub(super) status: Option<String>,
    pub(super) visibility: Option<String>,
    pub(super) interactive: Option<String>,
    pub(super) pool: Option<String>,
    pub(super) rubric: Option<String>,
    pub(super) gate: Option<String>,
    pub(super) score: Option<String>,
    pub(super) reason: Option<String>,
    pub(super) model: Option<String>,
    pub(super) replaces: Option<String>,

    pub(super) surface: Option<String>,
    pub(super) targets: Vec<Id>,
    pub(super) judges: Vec<String>,
}

/// Single-valued keys after `Lore-Format` and `Lore-Action`, in the order
/// they are written.
const SINGLE: [&str; 14] = [
    "Lore-Lesson",
    "Lore-Artifact",
    "Lore-From",
    "Lore-Status",
    "Lore-Visibility",
    "Lore-Interactive",
    "Lore-Pool",
    "Lore-Rubric",
    "Lore-Gate",
    "Lore-Score",
    "Lore-Reason",
    "Lore-Model",
    "Lore-Replaces",
    "Lore-Surface",
];

/// A known key given more than once, and how often. Only `Lore-Target`
/// and `Lore-Judge` repeat (docs/trailers.md); every other key this format
/// knows is given at most once, because stock git reads a repeated key as
/// its values joined (`confirm,pass`): a commit that repeats one says two
/// things. Unknown keys are not read, so not counted.
fn repeated(lines: &[Trailer]) -> Option<(&'static str, usize)> {
    ["Lore-Format", "Lore-Action"]
        .iter()
        .chain(SINGLE.iter())
        .map(|&key| {
            let times = lines
                .iter()
                .filter(|t| t.key.eq_ignore_ascii_case(key))
                .count();
            (key, times)
        })
        .find(|&(_, times)| times > 1)
}

impl Fields {
    /// The action: every parsed block has one.
    pub(super) fn action(&self) -> Action {
        self.action.expect("parse requires Lore-Action")
    }

    /// A jury's ruling: rubric, gate, score, reason and one line per judge.
    pub(super) fn ruling(&mut self, r: &Ruling) {
        self.rubric = r.rubric.clone();
        self.gate = r.gate.clone();
        self.score = r.score.map(|s| format!("{s}"));
        self.reason = Some(r.reason.clone());
        self.judges = r.judges.clone();
    }

    pub(super) fn step(&mut self, s: &Step) {
        self.lesson = Some(s.lesson);
        self.artifact = Some(s.artifact);
        self.from = Some(s.from.as_str().into());
        self.status = Some(s.to.as_str().into());
    }

    pub(super) fn render(self, action: Action) -> Result<Vec<Trailer>, TrailerError> {
        let mut out = vec![
            Trailer::new("Lore-Format", FORMAT)?,
            Trailer::new("Lore-Action", action.as_str())?,
        ];
        let single = [
            self.lesson.map(|i| i.to_string()),
            self.artifact.map(|i| i.to_string()),
            self.from,
            self.status,
            self.visibility,
            self.interactive,
            self.pool,
            self.rubric,
            self.gate,
            self.score,
            self.reason,
            self.model,
            self.replaces,
            self.surface,
        ];
        for (key, value) in SINGLE.iter().zip(single) {
            if let Some(v) = value {
                out.push(Trailer::new(key, &v)?);
            }
        }
        for t in &self.targets {
            out.push(Trailer::new("Lore-Target", &t.to_string())?);
        }
        for j in &self.judges {
            out.push(Trailer::new("Lore-Judge", j)?);
        }
        Ok(out)
    }

    pub(super) fn parse(lines: &[Trailer]) -> Result<Fields, TrailerError> {
        if let Some((key, times)) = repeated(lines) {
            return Err(TrailerError::Repeated { key, times });
        }
        let get = |k: &str| lines.iter().find(|t| t.key.eq_ignore_ascii_case(k));
        let format = get("Lore-Format").ok_or(TrailerError::Missing("Lore-Format"))?;
        let major = format.value.split('.').next().unwrap_or("");
        if major != FORMAT {
            return Err(TrailerError::UnsupportedFormat(format.value.clone()));
        }
        let action = get("Lore-Action").ok_or(TrailerError::Missing("Lore-Action"))?;
        let action: Action = action
            .value
            .parse()
            .map_err(|_| TrailerError::UnknownAction(action.value.clone()))?;
        let id = |key: &'static str| -> Result<Option<Id>, TrailerError> {
            get(key)
                .map(|t| {
                    t.value.parse().map_err(|_| TrailerError::BadId {
                        key: key.to_owned(),
                        value: t.value.clone(),
                    })
                })
                .transpose()
        };
        let s = |k: &str| get(k).map(|t| t.value.clone());
        let mut f = Fields {
            action: Some(action),
            lesson: id("Lore-Lesson")?,
            artifact: id("Lore-Artifact")?,
            from: s("Lore-From"),
            status: s("Lore-Status"),
            visibility: s("Lore-Visibility"),
            interactive: s("Lore-Interactive"),
            pool: s("Lore-Pool"),
            rubric: s("Lore-Rubric"),
            gate: s("Lore-Gate"),
            score: s("Lore-Score"),
            reason: s("Lore-Reason"),
            model: s("Lore-Model"),
            replaces: s("Lore-Replaces"),

            surface: s("Lore-Surface"),
            ..Fields::default()
        };
        for t in lines {
            if t.key.eq_ignore_ascii_case("Lore-Judge") {
                f.judges.push(t.value.clone());
            } else if t.key.eq_ignore_ascii_case("Lore-Target") {
                f.targets
                    .push(t.value.parse().map_err(|_| TrailerError::BadId {
                        key: "Lore-Target".into(),
                        value: t.value.clone(),
                    })?);
            }
        }
        Ok(f)
    }

    pub(super) fn score(&self) -> Result<Option<f64>, TrailerError> {
        match &self.score {
            None => Ok(None),
            Some(s) => Ok(Some(
                s.parse::<f64>()
                    .ok()
                    .filter(|x| x.is_finite())
                    .ok_or_else(|| TrailerError::BadField {
                        key: "Lore-Score",
                        why: format!("{s:?} is not a number"),
                    })?,
            )),
        }
    }

    pub(super) fn replaces(&self) -> Result<Option<CommitRef>, TrailerError> {
        self.replaces
            .as_deref()
            .map(|v| {
                CommitRef::parse(v).ok_or(TrailerError::BadField {
                    key: "Lore-Replaces",
                    why: "not a full commit id".into(),
                })
            })
            .transpose()
    }

    pub(super) fn need_lesson(&self) -> Result<Id, TrailerError> {
        self.lesson.ok_or(TrailerError::Missing("Lore-Lesson"))
    }

    pub(super) fn need(
        &self,
        key: &'static str,
        value: &Option<String>,
    ) -> Result<String, TrailerError> {
        value.clone().ok_or(TrailerError::Missing(key))
    }

    /// Exactly one `Lore-Target`.
    pub(super) fn one_target(&self) -> Result<Id, TrailerError> {
        match self.targets.as_slice() {
            [one] => Ok(*one),
            [] => Err(TrailerError::Missing("Lore-Target")),
            _ => Err(TrailerError::BadField {
                key: "Lore-Target",
                why: "this action names exactly one other lesson".into(),
            }),
        }
    }

    /// One or more `Lore-Target`s, none twice.
    pub(super) fn some_targets(&self) -> Result<Vec<Id>, TrailerError> {
        if self.targets.is_empty() {
            return Err(TrailerError::Missing("Lore-Target"));
        }
        let mut seen = std::collections::BTreeSet::new();
        if !self.targets.iter().all(|t| seen.insert(*t)) {
            return Err(TrailerError::BadField {
                key: "Lore-Target",
                why: "a lesson is named twice".into(),
            });
        }
        Ok(self.targets.clone())
    }

    pub(super) fn need_artifact(&self) -> Result<Id, TrailerError> {
        self.artifact.ok_or(TrailerError::Missing("Lore-Artifact"))
    }

    pub(super) fn need_step(&self) -> Result<Step, TrailerError> {
        Ok(Step {
            lesson: self.need_lesson()?,
            artifact: self.need_artifact()?,
            from: self.parsed("Lore-From", &self.from)?,
            to: self.parsed("Lore-Status", &self.status)?,
        })
    }

    pub(super) fn optional<T: std::str::FromStr>(
        &self,
        key: &'static str,
        value: &Option<String>,
    ) -> Result<Option<T>, TrailerError>
    where
        T::Err: std::fmt::Display,
    {
        value
            .as_deref()
            .map(|v| {
                v.parse().map_err(|e: T::Err| TrailerError::BadField {
                    key,
                    why: e.to_string(),
                })
            })
            .transpose()
    }

    pub(super) fn parsed<T: std::str::FromStr>(
        &self,
        key: &'static str,
        value: &Option<String>,
    ) -> Result<T, TrailerError>
    where
        T::Err: std::fmt::Display,
    {
        self.optional(key, value)?.ok_or(TrailerError::Missing(key))
    }
}
