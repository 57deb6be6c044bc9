//! The jury: from a panel of judge verdicts to a recorded
//! [`Verdict`], or to "could not judge".
//!
//! Steps:
//! 1. **private** → no jury: `{rubric_id: null, gate_policy: null,
//!    score_threshold: null, aggregate_score: null, passed: true,
//!    reason: "private_no_jury", judges: []}`, whatever panel was passed.
//! 2. org → `lesson-promotion`, public → `lesson-promotion-public`.
//! 3. **Usable panel**, otherwise UNJUDGED: a non-empty array; every element an
//!    object with a string `judge_type`, a number `score` and a boolean
//!    `passed` (`"passed": "true"` is a string, so unusable); and the panel's
//!    judge types equal the rubric's as a multiset (a one-judge panel, three
//!    judges, or two `standard`s against `[standard, adversarial]` are all
//!    unusable). Two deliberate tightenings, both failing closed to UNJUDGED:
//!    a `score` outside [0, 1], and a `criterion_scores` that is present but
//!    neither an object nor null.
//! 4. **Coverage**, otherwise UNJUDGED. A criterion is *scored* when at least
//!    one judge gives it a number in [0, 1] in `criterion_scores` (other
//!    values, and criteria the rubric does not list, do not count). Any
//!    floored criterion (one with `min_pass`) that no judge scored → "no
//!    judge scored these floored criteria, so the panel cannot be trusted: …";
//!    then scored weight ÷ total weight below `min_criterion_coverage` →
//!    "the panel scored only … of the rubric weight (minimum …)".
//! 5. **Aggregate**: per criterion, the mean over the judges that scored it;
//!    each mean times its weight; normalised by the weights actually scored
//!    (an unscored criterion leaves the denominator: absence is not 0). When
//!    no rubric criterion is scored at all, the plain mean of `.score`.
//! 6. **Gate**, in precedence order: the jury policy (`majority`:
//!    passed × 2 > count, else `jury_not_majority`; `unanimous`:
//!    passed = count > 0, else `jury_not_unanimous`; anything else
//!    `unknown_gate_policy`); then `aggregate >= score_threshold`, else
//!    `below_threshold`; then every floored criterion's **minimum** judge
//!    score reaches its `min_pass`, else `criterion_floor`; else
//!    `gate_passed`. `failed_criterion` names the first floor-violating
//!    criterion in rubric order whichever reason wins, and is absent when no
//!    floor is violated (so an approved verdict never has it).
//! 7. The verdict records the rubric id, policy, threshold, aggregate,
//!    passed, reason, the judges **verbatim**, and `failed_criterion`.
//!
//! The aggregate and the coverage share are rounded to 6 decimals before they
//! are compared or stored (see `round6` in the module root): a lesson must not
//! flip between approved and rejected on a floating-point ulp.
//!
//! "Judged and failed" is not "could not judge": a rejected verdict is
//! recorded (exit 0), an unusable panel leaves the lesson confirmed with
//! nothing written (exit 2) — a broken judge must never become a rejection.

use std::fmt;

use serde_json::Value;

use super::rubric::{GatePolicy, Rubric, RubricSet};
use super::{round6, ReviewError};
use crate::model::{iso, Id, Proposal, ProposalStatus, Verdict, Visibility};

/// What the jury decided.
#[derive(Debug, Clone, PartialEq)]
pub enum JuryOutcome {
    /// A verdict to record: approved when `passed`, else rejected.
    Recorded(Verdict),
    /// The panel could not be trusted; record nothing, retry later.
    Unjudged(UnjudgedReason),
}

/// Why a panel could not judge. `Display` omits the lesson id;
/// [`UnjudgedReason::message`] gives the full sentence, naming the lesson.
#[derive(Debug, Clone, PartialEq)]
pub enum UnjudgedReason {
    /// The verdicts given are not JSON; the parser's message.
    NotJson(String),
    /// The panel failed the usable-panel check; the string says how.
    UnusablePanel(String),
    /// A judge program gave no answer (missing, hung, crashed, silent).
    NoAnswer { judge_type: String, why: String },
    /// The lesson changed while the jury deliberated: the verdict would
    /// apply to content the judges never read.
    Changed,
    /// Floored criteria that no judge scored, in rubric order.
    UncoveredFloors(Vec<String>),
    /// The panel scored too little of the rubric weight.
    LowCoverage { scored: f64, minimum: f64 },
}

impl UnjudgedReason {
    /// The message naming the lesson, e.g. `lesson 01K…: the panel scored
    /// only 0.45 of the rubric weight (minimum 0.6)`.
    pub fn message(&self, id: Id) -> String {
        format!("lesson {id}: {self}")
    }
}

impl fmt::Display for UnjudgedReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            UnjudgedReason::NotJson(why) => write!(f, "the verdicts are not JSON: {why}"),
            UnjudgedReason::UnusablePanel(why) => write!(f, "the judge panel is unusable: {why}"),
            UnjudgedReason::NoAnswer { judge_type, why } => write!(f, "judge {judge_type}: {why}"),
            UnjudgedReason::Changed => f.write_str(
                "the lesson changed while the jury deliberated; its verdict is not applied",
            ),
            UnjudgedReason::UncoveredFloors(names) => write!(
                f,
                "no judge scored these floored criteria, so the panel cannot be trusted: {}",
                names.join(", ")
            ),
            UnjudgedReason::LowCoverage { scored, minimum } => {
                write!(
                    f,
                    "the panel scored only {scored} of the rubric weight (minimum {minimum})"
                )
            }
        }
    }
}

/// What judging one lesson came to.
#[derive(Debug, Clone, PartialEq)]
pub enum Judged {
    /// The proposal with its verdict recorded: status approved or rejected,
    /// `judged_at`, `verdict`. Write it.
    Recorded(Box<Proposal>),
    /// Could not judge: nothing to write; the lesson stays confirmed.
    Unjudged(UnjudgedReason),
    /// Decided meanwhile by another writer; nothing written by this one.
    Skipped(ProposalStatus),
}

/// Parses a panel given as text. Text that is not JSON is "could not
/// judge", never a usage error: a judge that printed garbage must not turn
/// into a rejection.
pub fn parse_panel(text: &str) -> Result<Value, UnjudgedReason> {
    serde_json::from_str(text).map_err(|e| UnjudgedReason::NotJson(e.to_string()))
}

/// One judge's slot in a panel, from its answer: the verdict object with
/// `judge_type` set to the judge that was asked, or — when the answer is
/// not a JSON object — the raw text, which makes the panel unusable (could
/// not judge), never a rejection.
pub fn panel_slot(judge_type: &str, answer: &crate::answer::Answer) -> Value {
    match serde_json::from_str::<Value>(&answer.unfenced()) {
        Ok(Value::Object(mut o)) => {
            o.insert("judge_type".into(), Value::from(judge_type));
            Value::Object(o)
        }
        _ => Value::from(answer.raw()),
    }
}

/// Judges a confirmed proposal: checks its status and visibility, runs
/// [`judge`], and returns the proposal to write or why it could not be
/// judged. A private lesson needs no panel, so a panel that did not parse
/// only matters for org and public.
pub fn judge_proposal(
    p: &Proposal,
    rubrics: &RubricSet,
    panel: &Result<Value, UnjudgedReason>,
    now: jiff::Timestamp,
) -> Result<Judged, ReviewError> {
    if !crate::event::lifecycle::may_start(crate::trailers::Action::Judge, p.status) {
        return Err(ReviewError::NotConfirmed {
            id: p.id,
            status: p.status,
        });
    }
    let visibility = p.visibility.ok_or(ReviewError::NoVisibility { id: p.id })?;
    let verdicts = match panel {
        Ok(v) => v,
        Err(why) if visibility != Visibility::Private => return Ok(Judged::Unjudged(why.clone())),
        Err(_) => &Value::Null,
    };
    Ok(match judge(visibility, rubrics, verdicts)? {
        JuryOutcome::Unjudged(why) => Judged::Unjudged(why),
        JuryOutcome::Recorded(verdict) => {
            let mut next = p.clone();
            next.status = if verdict.passed {
                ProposalStatus::Approved
            } else {
                ProposalStatus::Rejected
            };
            next.judged_at = Some(iso(now));
            next.verdict = Some(verdict);
            Judged::Recorded(Box::new(next))
        }
    })
}

/// Judges a panel for a lesson of `visibility` under the rubric set.
pub fn judge(
    visibility: Visibility,
    rubrics: &RubricSet,
    verdicts: &Value,
) -> Result<JuryOutcome, ReviewError> {
    let Some(id) = RubricSet::rubric_id_for(visibility) else {
        return Ok(JuryOutcome::Recorded(private_verdict()));
    };
    let rubric = rubrics
        .get(id)
        .ok_or_else(|| ReviewError::RubricNotDefined(id.to_owned()))?;
    Ok(judge_with(
        rubric,
        rubrics.min_criterion_coverage(),
        verdicts,
    ))
}

/// The verdict of the private tier: approved, no jury.
pub fn private_verdict() -> Verdict {
    Verdict {
        rubric_id: None,
        gate_policy: None,
        score_threshold: None,
        aggregate_score: None,
        passed: true,
        reason: "private_no_jury".to_owned(),
        judges: Vec::new(),
        failed_criterion: None,
    }
}

/// One judge's usable fields.
struct Judge<'a> {
    judge_type: &'a str,
    score: f64,
    passed: bool,
    criterion_scores: Option<&'a serde_json::Map<String, Value>>,
}

impl Judge<'_> {
    /// This judge's score for `criterion`, if it is a number in [0, 1].
    fn score_for(&self, criterion: &str) -> Option<f64> {
        self.criterion_scores?
            .get(criterion)?
            .as_f64()
            .filter(|s| (0.0..=1.0).contains(s))
    }
}

/// Judges a panel against one rubric (steps 3–7 of the module doc).
pub fn judge_with(rubric: &Rubric, min_criterion_coverage: f64, verdicts: &Value) -> JuryOutcome {
    let judges = match usable_panel(rubric, verdicts) {
        Ok(j) => j,
        Err(why) => return JuryOutcome::Unjudged(UnjudgedReason::UnusablePanel(why)),
    };

    // Coverage.
    let per_criterion: Vec<Vec<f64>> = rubric
        .criteria
        .iter()
        .map(|c| judges.iter().filter_map(|j| j.score_for(&c.name)).collect())
        .collect();
    let uncovered: Vec<String> = rubric
        .criteria
        .iter()
        .zip(&per_criterion)
        .filter(|(c, s)| c.min_pass.is_some() && s.is_empty())
        .map(|(c, _)| c.name.clone())
        .collect();
    if !uncovered.is_empty() {
        return JuryOutcome::Unjudged(UnjudgedReason::UncoveredFloors(uncovered));
    }
    let scored_weight: f64 = rubric
        .criteria
        .iter()
        .zip(&per_criterion)
        .filter(|(_, s)| !s.is_empty())
        .map(|(c, _)| c.weight)
        .sum();
    let total = rubric.total_weight();
    let share = round6(if total > 0.0 {
        scored_weight / total
    } else {
        0.0
    });
    if share < min_criterion_coverage {
        return JuryOutcome::Unjudged(UnjudgedReason::LowCoverage {
            scored: share,
            minimum: min_criterion_coverage,
        });
    }

    // Aggregate.
    let aggregate = round6(if scored_weight > 0.0 {
        let weighted: f64 = rubric
            .criteria
            .iter()
            .zip(&per_criterion)
            .filter(|(_, s)| !s.is_empty())
            .map(|(c, s)| c.weight * s.iter().sum::<f64>() / s.len() as f64)
            .sum();
        weighted / scored_weight
    } else {
        judges.iter().map(|j| j.score).sum::<f64>() / judges.len() as f64
    });

    // Gate.
    let failed_criterion = rubric
        .criteria
        .iter()
        .zip(&per_criterion)
        .find(|(c, s)| match c.min_pass {
            Some(floor) => s.iter().copied().fold(f64::INFINITY, f64::min) < floor,
            None => false,
        })
        .map(|(c, _)| c.name.clone());
    let count = judges.len();
    let passed_count = judges.iter().filter(|j| j.passed).count();
    let jury_failure = match &rubric.gate_policy {
        GatePolicy::Majority => (passed_count * 2 <= count).then_some("jury_not_majority"),
        GatePolicy::Unanimous => {
            (count == 0 || passed_count != count).then_some("jury_not_unanimous")
        }
        GatePolicy::Unknown(_) => Some("unknown_gate_policy"),
    };
    let reason = if let Some(r) = jury_failure {
        r
    } else if aggregate < rubric.score_threshold {
        "below_threshold"
    } else if failed_criterion.is_some() {
        "criterion_floor"
    } else {
        "gate_passed"
    };

    JuryOutcome::Recorded(Verdict {
        rubric_id: Some(rubric.id.clone()),
        gate_policy: Some(rubric.gate_policy.as_str().to_owned()),
        score_threshold: Some(rubric.score_threshold),
        aggregate_score: Some(aggregate),
        passed: reason == "gate_passed",
        reason: reason.to_owned(),
        judges: verdicts
            .as_array()
            .map(|a| a.iter().map(kept).collect())
            .unwrap_or_default(),
        failed_criterion,
    })
}

/// The most judges a panel may have: a rubric names a handful.
pub const MAX_JUDGES: usize = 16;
/// The longest `feedback_summary` kept in a record, in characters.
pub const MAX_FEEDBACK: usize = 2000;
/// The most `criterion_scores` entries kept per judge.
pub const MAX_CRITERIA: usize = 32;

/// What a record keeps of one judge's verdict: the known keys only
/// (`judge_type`, `score`, `passed`, `confidence`, `criterion_scores`,
/// `feedback_summary`), numeric criterion scores with short names, and
/// feedback cut to [`MAX_FEEDBACK`] characters. A judge is a program whose
/// output is hostile: nothing else of it is committed.
fn kept(judge: &Value) -> Value {
    let Some(o) = judge.as_object() else {
        return judge.clone();
    };
    let mut out = serde_json::Map::new();
    for key in ["judge_type", "score", "passed", "confidence"] {
        if let Some(v) = o.get(key) {
            if !v.is_object() && !v.is_array() && v.as_str().is_none_or(|s| s.len() <= 64) {
                out.insert(key.into(), v.clone());
            }
        }
    }
    if let Some(Value::Object(scores)) = o.get("criterion_scores") {
        let kept: serde_json::Map<String, Value> = scores
            .iter()
            .filter(|(k, v)| k.len() <= 64 && v.is_number())
            .take(MAX_CRITERIA)
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        out.insert("criterion_scores".into(), Value::Object(kept));
    }
    if let Some(Value::String(f)) = o.get("feedback_summary") {
        let cut: String = f.chars().take(MAX_FEEDBACK).collect();
        let text = if cut.len() < f.len() {
            format!("{cut}…")
        } else {
            cut
        };
        out.insert("feedback_summary".into(), Value::String(text));
    }
    Value::Object(out)
}

fn usable_panel<'a>(rubric: &Rubric, verdicts: &'a Value) -> Result<Vec<Judge<'a>>, String> {
    let Some(panel) = verdicts.as_array() else {
        return Err(format!(
            "the verdicts are a JSON {}, not an array",
            json_type(verdicts)
        ));
    };
    if panel.is_empty() {
        return Err("the panel is empty".to_owned());
    }
    if panel.len() > MAX_JUDGES {
        return Err(format!(
            "the panel has {} judges; a rubric has at most {MAX_JUDGES}",
            panel.len()
        ));
    }
    let mut judges = Vec::with_capacity(panel.len());
    for (i, v) in panel.iter().enumerate() {
        let n = i + 1;
        let Some(o) = v.as_object() else {
            return Err(format!(
                "judge {n} is a JSON {}, not an object",
                json_type(v)
            ));
        };
        let Some(judge_type) = o
            .get("judge_type")
            .and_then(Value::as_str)
            .filter(|t| t.len() <= 64 && !t.chars().any(char::is_control))
        else {
            return Err(format!(
                "judge {n} has no judge_type (a short name without control characters)"
            ));
        };
        let Some(score) = o.get("score").and_then(Value::as_f64) else {
            return Err(format!("judge {n} ({judge_type}) has no numeric score"));
        };
        if !(0.0..=1.0).contains(&score) {
            return Err(format!(
                "judge {n} ({judge_type}) has score {score} outside [0, 1]"
            ));
        }
        let Some(passed) = o.get("passed").and_then(Value::as_bool) else {
            return Err(format!("judge {n} ({judge_type}) has no boolean passed"));
        };
        let criterion_scores = match o.get("criterion_scores") {
            None | Some(Value::Null) => None,
            Some(Value::Object(m)) => Some(m),
            Some(other) => {
                let t = json_type(other);
                return Err(format!("judge {n} ({judge_type}) has criterion_scores that is a JSON {t}, not an object"));
            }
        };
        judges.push(Judge {
            judge_type,
            score,
            passed,
            criterion_scores,
        });
    }
    let mut have: Vec<&str> = judges.iter().map(|j| j.judge_type).collect();
    let mut want: Vec<&str> = rubric.judge_types.iter().map(String::as_str).collect();
    have.sort_unstable();
    want.sort_unstable();
    if have != want {
        return Err(format!(
            "the panel's judge types [{}] do not match the rubric's [{}]",
            have.join(", "),
            want.join(", ")
        ));
    }
    Ok(judges)
}

fn json_type(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// A pool entry's consensus from a verdict: (judges, agreed) =
/// (number of judges, number whose `passed` is `true`).
pub fn consensus(verdict: &Verdict) -> (u64, u64) {
    let judges = verdict.judges.len() as u64;
    let agreed = verdict
        .judges
        .iter()
        .filter(|j| j.get("passed") == Some(&Value::Bool(true)))
        .count() as u64;
    (judges, agreed)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::review::testdata;
    use serde_json::json;

    fn recorded(o: JuryOutcome) -> Verdict {
        match o {
            JuryOutcome::Recorded(v) => v,
            JuryOutcome::Unjudged(why) => panic!("unjudged: {why}"),
        }
    }

    fn unjudged(o: JuryOutcome) -> UnjudgedReason {
        match o {
            JuryOutcome::Unjudged(why) => why,
            JuryOutcome::Recorded(v) => panic!("recorded: {v:?}"),
        }
    }

    fn set() -> RubricSet {
        RubricSet::builtin()
    }

    /// A judge scoring every criterion (all four) at `s`.
    fn judge_all(t: &str, s: f64, passed: bool) -> Value {
        json!({"judge_type": t, "score": s, "passed": passed, "confidence": 0.8,
               "criterion_scores": {"grounding": s, "scope_accuracy": s, "generality": s, "disclosure": s},
               "feedback_summary": "f"})
    }

    fn three_judge_set() -> RubricSet {
        let mut org = Rubric::builtin_org();
        let mut public = Rubric::builtin_public();
        for r in [&mut org, &mut public] {
            r.judge_types = vec!["standard".into(), "standard".into(), "adversarial".into()];
        }
        RubricSet::new(0.6, vec![org, public]).unwrap()
    }

    #[test]
    fn private_is_approved_with_no_jury() {
        let v = recorded(judge(Visibility::Private, &set(), &json!([])).unwrap());
        assert_eq!(v, private_verdict());
        let as_json = serde_json::to_value(&v).unwrap();
        assert_eq!(
            as_json,
            json!({"rubric_id": null, "gate_policy": null, "score_threshold": null,
                   "aggregate_score": null, "passed": true, "reason": "private_no_jury", "judges": []})
        );
        // Whatever was passed as a panel is ignored at private.
        let v = recorded(judge(Visibility::Private, &set(), &json!("garbage")).unwrap());
        assert_eq!(v.reason, "private_no_jury");
        assert!(v.judges.is_empty());
        // The reference record agrees.
        let p = testdata::proposal("proposal.approved-private.json");
        assert_eq!(p.verdict, Some(private_verdict()));
    }

    #[test]
    fn org_uses_lesson_promotion_and_majority() {
        let panel = testdata::json("judge-verdicts.pass.json");
        let v = recorded(judge(Visibility::Org, &set(), &panel).unwrap());
        // Exactly the verdict of the reference record.
        let want = testdata::proposal("proposal.approved-promoted.json")
            .verdict
            .unwrap();
        assert_eq!(v, want);
        assert_eq!(v.rubric_id.as_deref(), Some("lesson-promotion"));
        assert_eq!(v.gate_policy.as_deref(), Some("majority"));
        assert_eq!(v.aggregate_score, Some(0.85));
        assert_eq!(v.reason, "gate_passed");
        assert!(v.passed && v.failed_criterion.is_none());
        assert_eq!(v.judges, panel.as_array().unwrap().clone());
        assert!(!serde_json::to_string(&v)
            .unwrap()
            .contains("failed_criterion"));
    }

    #[test]
    fn public_uses_the_public_rubric_and_unanimous() {
        let panel = testdata::json("judge-verdicts.pass.json");
        let v = recorded(judge(Visibility::Public, &set(), &panel).unwrap());
        assert_eq!(v.rubric_id.as_deref(), Some("lesson-promotion-public"));
        assert_eq!(v.gate_policy.as_deref(), Some("unanimous"));
        // grounding .85×.32 + scope .85×.24 + generality .85×.14 + disclosure .95×.30
        assert_eq!(v.aggregate_score, Some(0.88));
        assert_eq!(v.reason, "gate_passed");
        assert!(v.passed);
    }

    #[test]
    fn a_split_panel_is_rejected_at_both_tiers_for_the_tiers_reasons() {
        // Aggregate 0.85 clears the threshold; one judge blocks.
        let panel = testdata::json("judge-verdicts.split.json");
        let org = recorded(judge(Visibility::Org, &set(), &panel).unwrap());
        assert_eq!(org.rubric_id.as_deref(), Some("lesson-promotion"));
        assert_eq!(org.reason, "jury_not_majority");
        assert!(!org.passed);
        assert_eq!(org.aggregate_score, Some(0.85));
        assert_eq!(org.failed_criterion, None);

        let public = recorded(judge(Visibility::Public, &set(), &panel).unwrap());
        assert_eq!(public.rubric_id.as_deref(), Some("lesson-promotion-public"));
        assert_eq!(public.gate_policy.as_deref(), Some("unanimous"));
        assert_eq!(public.reason, "jury_not_unanimous");
        assert!(!public.passed);
        assert!(public.aggregate_score.unwrap() >= 0.75);
    }

    #[test]
    fn three_judges_one_dissent_separates_the_tiers() {
        let set = three_judge_set();
        let panel = json!([
            judge_all("standard", 0.95, true),
            judge_all("adversarial", 0.9, true),
            judge_all("standard", 0.8, false),
        ]);
        let org = recorded(judge(Visibility::Org, &set, &panel).unwrap());
        assert_eq!((org.passed, org.reason.as_str()), (true, "gate_passed"));
        let public = recorded(judge(Visibility::Public, &set, &panel).unwrap());
        assert_eq!(
            (public.passed, public.reason.as_str()),
            (false, "jury_not_unanimous")
        );
        assert_eq!(org.aggregate_score, public.aggregate_score);
    }

    #[test]
    fn below_threshold_even_when_every_judge_passed() {
        let panel = json!([
            judge_all("standard", 0.7, true),
            judge_all("adversarial", 0.72, true)
        ]);
        let v = recorded(judge(Visibility::Org, &set(), &panel).unwrap());
        assert_eq!(v.reason, "below_threshold");
        assert_eq!(v.aggregate_score, Some(0.71));
        assert!(!v.passed);
        assert_eq!(v.failed_criterion, None);
    }

    #[test]
    fn a_floor_violation_names_the_failed_criterion() {
        // The mean clears 0.75 and both judges pass, but one judge scores
        // scope_accuracy 0.65 < 0.7: the minimum, not the mean, is checked.
        let mut a = judge_all("standard", 0.95, true);
        a["criterion_scores"]["scope_accuracy"] = json!(0.65);
        let b = judge_all("adversarial", 0.9, true);
        let v = recorded(judge(Visibility::Org, &set(), &json!([a, b])).unwrap());
        assert_eq!(v.reason, "criterion_floor");
        assert_eq!(v.failed_criterion.as_deref(), Some("scope_accuracy"));
        assert!(!v.passed);
        assert!(v.aggregate_score.unwrap() >= 0.75);
        assert_eq!(
            serde_json::to_value(&v).unwrap()["failed_criterion"],
            json!("scope_accuracy")
        );
    }

    #[test]
    fn disclosure_floor_blocks_public_only() {
        let mut a = judge_all("standard", 0.95, true);
        let mut b = judge_all("adversarial", 0.95, true);
        a["criterion_scores"]["disclosure"] = json!(0.0);
        b["criterion_scores"]["disclosure"] = json!(0.0);
        let panel = json!([a, b]);
        let public = recorded(judge(Visibility::Public, &set(), &panel).unwrap());
        // 0.95×0.70 = 0.665 < 0.75: the threshold wins the reason, the floor
        // is still named.
        assert_eq!(public.reason, "below_threshold");
        assert_eq!(public.failed_criterion.as_deref(), Some("disclosure"));
        let org = recorded(judge(Visibility::Org, &set(), &panel).unwrap());
        assert_eq!(org.reason, "gate_passed");
        assert_eq!(org.failed_criterion, None);
    }

    #[test]
    fn failed_criterion_is_named_whichever_reason_wins() {
        let mut a = judge_all("standard", 0.9, true);
        a["criterion_scores"]["generality"] = json!(0.5);
        let b = judge_all("adversarial", 0.9, false);
        let v = recorded(judge(Visibility::Org, &set(), &json!([a, b])).unwrap());
        assert_eq!(v.reason, "jury_not_majority");
        assert_eq!(v.failed_criterion.as_deref(), Some("generality"));
        // The first violator in rubric order, not in panel order.
        let mut a = judge_all("standard", 0.9, true);
        a["criterion_scores"]["generality"] = json!(0.5);
        a["criterion_scores"]["grounding"] = json!(0.1);
        let b = judge_all("adversarial", 0.9, true);
        let v = recorded(judge(Visibility::Org, &set(), &json!([a, b])).unwrap());
        assert_eq!(v.failed_criterion.as_deref(), Some("grounding"));
    }

    #[test]
    fn weighted_mean_normalised_by_scored_weight() {
        // No floors on this rubric, so a partly scored panel passes coverage.
        let mut r = Rubric::builtin_org();
        r.criteria.iter_mut().for_each(|c| c.min_pass = None);
        let a = json!({"judge_type": "standard", "score": 0.1, "passed": true,
                       "criterion_scores": {"grounding": 1.0, "scope_accuracy": 0.8, "nonsense": 0.0}});
        let b = json!({"judge_type": "adversarial", "score": 0.1, "passed": true,
                       "criterion_scores": {"grounding": 0.6, "scope_accuracy": 7, "generality": "high"}});
        let v = recorded(judge_with(&r, 0.6, &json!([a, b])));
        // grounding mean 0.8 × 0.45 + scope_accuracy 0.8 (7 does not count) × 0.35,
        // over 0.80 of scored weight = 0.8; generality is absent, not zero.
        assert_eq!(v.aggregate_score, Some(0.8));
        assert_eq!(v.reason, "gate_passed");
    }

    #[test]
    fn plain_mean_when_no_criterion_is_scored() {
        let mut r = Rubric::builtin_org();
        r.criteria.iter_mut().for_each(|c| c.min_pass = None);
        let panel = json!([
            {"judge_type": "standard", "score": 0.9, "passed": true},
            {"judge_type": "adversarial", "score": 0.8, "passed": true}
        ]);
        let v = recorded(judge_with(&r, 0.0, &panel));
        assert_eq!(v.aggregate_score, Some(0.85));
        assert_eq!(v.reason, "gate_passed");
        // With the default coverage the same panel cannot be judged.
        let why = unjudged(judge_with(&r, 0.6, &panel));
        assert_eq!(
            why,
            UnjudgedReason::LowCoverage {
                scored: 0.0,
                minimum: 0.6
            }
        );
    }

    #[test]
    fn aggregate_is_rounded_before_the_threshold_comparison() {
        // 0.45×0.775 + 0.35×0.775 + 0.2×0.65 is 0.75 exactly as decimals, but
        // the binary sum is 0.7499999999999999; rounding keeps it at the
        // threshold.
        let mk = |t: &str, g: f64, s: f64, x: f64| {
            json!({"judge_type": t, "score": 0.75, "passed": true,
                   "criterion_scores": {"grounding": g, "scope_accuracy": s, "generality": x}})
        };
        let panel = json!([
            mk("standard", 0.7, 0.7, 0.65),
            mk("adversarial", 0.85, 0.85, 0.65)
        ]);
        let r = Rubric::builtin_org();
        let raw =
            (0.45 * (0.7 + 0.85) / 2.0 + 0.35 * (0.7 + 0.85) / 2.0 + 0.2 * (0.65 + 0.65) / 2.0)
                / r.total_weight();
        assert!(raw < 0.75, "this case must exercise a float residue: {raw}");
        let v = recorded(judge_with(&r, 0.6, &panel));
        assert_eq!(v.aggregate_score, Some(0.75));
        assert_eq!(v.reason, "gate_passed");
    }

    #[test]
    fn unknown_gate_policy_is_a_recorded_rejection() {
        let mut r = Rubric::builtin_org();
        r.gate_policy = GatePolicy::Unknown("plurality".into());
        let panel = testdata::json("judge-verdicts.pass.json");
        let v = recorded(judge_with(&r, 0.6, &panel));
        assert_eq!(
            (v.passed, v.reason.as_str()),
            (false, "unknown_gate_policy")
        );
        assert_eq!(v.gate_policy.as_deref(), Some("plurality"));
    }

    #[test]
    fn unusable_panels_are_unjudged() {
        let ok_a = judge_all("standard", 0.9, true);
        let ok_b = judge_all("adversarial", 0.9, true);
        let mut string_passed = ok_b.clone();
        string_passed["passed"] = json!("true");
        let mut no_passed = ok_b.clone();
        no_passed.as_object_mut().unwrap().remove("passed");
        let mut string_score = ok_b.clone();
        string_score["score"] = json!("not-a-number");
        let mut big_score = ok_b.clone();
        big_score["score"] = json!(85);
        let mut list_scores = ok_b.clone();
        list_scores["criterion_scores"] = json!([0.9, 0.9, 0.9]);
        let cases: Vec<(Value, &str)> = vec![
            (json!([]), "the panel is empty"),
            (json!({"judge_type": "standard"}), "the verdicts are a JSON object, not an array"),
            (json!([ok_a.clone()]), "the panel's judge types [standard] do not match the rubric's [adversarial, standard]"),
            (
                json!([ok_a.clone(), ok_a.clone()]),
                "the panel's judge types [standard, standard] do not match the rubric's [adversarial, standard]",
            ),
            (
                json!([ok_a.clone(), ok_b.clone(), ok_b.clone()]),
                "the panel's judge types [adversarial, adversarial, standard] do not match the rubric's [adversarial, standard]",
            ),
            (json!([ok_a.clone(), string_passed]), "judge 2 (adversarial) has no boolean passed"),
            (json!([ok_a.clone(), no_passed]), "judge 2 (adversarial) has no boolean passed"),
            (json!([ok_a.clone(), string_score]), "judge 2 (adversarial) has no numeric score"),
            (json!([ok_a.clone(), big_score]), "judge 2 (adversarial) has score 85 outside [0, 1]"),
            (json!([ok_a.clone(), list_scores]), "criterion_scores that is a JSON array, not an object"),
            (json!(["{\"judge_type\":\"standard\"", ok_b.clone()]), "judge 1 is a JSON string, not an object"),
            (json!([{"score": 0.9, "passed": true}, ok_b.clone()]), "judge 1 has no judge_type (a short name without control characters)"),
        ];
        for vis in [Visibility::Org, Visibility::Public] {
            for (panel, want) in &cases {
                let why = unjudged(judge(vis, &set(), panel).unwrap());
                let msg = why.to_string();
                assert!(msg.starts_with("the judge panel is unusable: "), "{msg}");
                assert!(msg.contains(want), "{msg:?} should contain {want:?}");
            }
        }
        let why = parse_panel("this is not json").unwrap_err();
        assert_eq!(
            why.to_string(),
            "the verdicts are not JSON: expected ident at line 1 column 2"
        );
    }

    #[test]
    fn a_missing_floored_criterion_is_unjudged() {
        let strip = |mut j: Value, names: &[&str]| {
            for n in names {
                j["criterion_scores"].as_object_mut().unwrap().remove(*n);
            }
            j
        };
        let a = strip(judge_all("standard", 0.9, true), &["disclosure"]);
        let b = strip(judge_all("adversarial", 0.9, true), &["disclosure"]);
        let why = unjudged(judge(Visibility::Public, &set(), &json!([a, b])).unwrap());
        assert_eq!(
            why,
            UnjudgedReason::UncoveredFloors(vec!["disclosure".into()])
        );
        let id: Id = "01KZ4A1B2C3D4E5F6G7H8J9K0M".parse().unwrap();
        assert_eq!(
            why.message(id),
            "lesson 01KZ4A1B2C3D4E5F6G7H8J9K0M: no judge scored these floored criteria, so the panel cannot be trusted: disclosure"
        );
        // One judge scoring it is enough; out-of-range scores do not count.
        let a = strip(
            judge_all("standard", 0.9, true),
            &["disclosure", "generality"],
        );
        let mut b = judge_all("adversarial", 0.9, true);
        b["criterion_scores"]["disclosure"] = json!(1.5);
        b["criterion_scores"]["generality"] = json!(-0.1);
        let why = unjudged(judge(Visibility::Public, &set(), &json!([a.clone(), b])).unwrap());
        assert_eq!(
            why,
            UnjudgedReason::UncoveredFloors(vec!["generality".into(), "disclosure".into()])
        );
        let b = judge_all("adversarial", 0.9, true);
        let v = recorded(judge(Visibility::Public, &set(), &json!([a, b])).unwrap());
        assert_eq!(v.reason, "gate_passed");
    }

    #[test]
    fn too_little_coverage_is_unjudged() {
        // Only grounding is floored here; the panel scores grounding alone,
        // 0.45 of the weight, under the 0.6 minimum.
        let mut r = Rubric::builtin_org();
        r.criteria[1].min_pass = None;
        r.criteria[2].min_pass = None;
        let set = RubricSet::new(0.6, vec![r, Rubric::builtin_public()]).unwrap();
        let mk = |t: &str| json!({"judge_type": t, "score": 0.9, "passed": true, "criterion_scores": {"grounding": 0.9}});
        let why = unjudged(
            judge(
                Visibility::Org,
                &set,
                &json!([mk("standard"), mk("adversarial")]),
            )
            .unwrap(),
        );
        assert_eq!(
            why,
            UnjudgedReason::LowCoverage {
                scored: 0.45,
                minimum: 0.6
            }
        );
        let id: Id = "01KZ4A1B2C3D4E5F6G7H8J9K0M".parse().unwrap();
        assert_eq!(
            why.message(id),
            "lesson 01KZ4A1B2C3D4E5F6G7H8J9K0M: the panel scored only 0.45 of the rubric weight (minimum 0.6)"
        );
        // grounding + generality = 0.65 >= 0.6: judged.
        let mk = |t: &str| {
            json!({"judge_type": t, "score": 0.9, "passed": true,
                   "criterion_scores": {"grounding": 0.9, "generality": 0.9}})
        };
        assert!(matches!(
            judge(
                Visibility::Org,
                &set,
                &json!([mk("standard"), mk("adversarial")])
            )
            .unwrap(),
            JuryOutcome::Recorded(_)
        ));
    }

    #[test]
    fn judge_proposal_records_or_refuses() {
        let now: jiff::Timestamp = "2026-08-05T10:00:00Z".parse().unwrap();
        let confirmed = testdata::proposal("proposal.confirmed.json");
        let panel = testdata::json("judge-verdicts.pass.json");
        let Judged::Recorded(p) =
            judge_proposal(&confirmed, &set(), &Ok(panel.clone()), now).unwrap()
        else {
            panic!("not recorded");
        };
        let mut want = testdata::proposal("proposal.approved-promoted.json");
        want.promoted_at = None;
        assert_eq!(
            crate::model::canonical_json(&*p),
            crate::model::canonical_json(&want)
        );

        // Re-judging is refused, naming the status.
        let e = judge_proposal(&p, &set(), &Ok(panel.clone()), now).unwrap_err();
        assert_eq!(
            e.to_string(),
            format!("lesson {} is not confirmed; its status is: approved", p.id)
        );
        let pending = testdata::proposal("proposal.pending.json");
        let e = judge_proposal(&pending, &set(), &Ok(panel.clone()), now).unwrap_err();
        assert_eq!(
            e.to_string(),
            format!("lesson {} is not confirmed; its status is: pending", p.id)
        );

        // A split public panel: rejected, with its verdict kept on the record.
        let mut public = confirmed.clone();
        public.visibility = Some(Visibility::Public);
        let split = testdata::json("judge-verdicts.split.json");
        let Judged::Recorded(r) = judge_proposal(&public, &set(), &Ok(split), now).unwrap() else {
            panic!("not recorded");
        };
        assert_eq!(r.status, ProposalStatus::Rejected);
        assert_eq!(r.verdict.as_ref().unwrap().reason, "jury_not_unanimous");
        assert_eq!(r.candidate, public.candidate);

        // Unjudged: nothing to write.
        assert!(matches!(
            judge_proposal(&confirmed, &set(), &Ok(json!([])), now).unwrap(),
            Judged::Unjudged(_)
        ));
        // Text that is not JSON: could not judge, saying so.
        assert!(matches!(
            judge_proposal(&confirmed, &set(), &parse_panel("{oops"), now).unwrap(),
            Judged::Unjudged(UnjudgedReason::NotJson(_))
        ));
        let mut no_vis = confirmed;
        no_vis.visibility = None;
        assert_eq!(
            judge_proposal(&no_vis, &set(), &Ok(panel), now).unwrap_err(),
            ReviewError::NoVisibility { id: no_vis.id }
        );
    }

    #[test]
    fn a_huge_panel_is_refused_in_one_short_line() {
        let one = testdata::json("judge-verdicts.pass.json")[0].clone();
        let panel = Value::Array(vec![one; 10_000]);
        let why = unjudged(judge(Visibility::Org, &set(), &panel).unwrap()).to_string();
        assert_eq!(
            why,
            "the judge panel is unusable: the panel has 10000 judges; a rubric has at most 16"
        );
    }

    #[test]
    fn a_recorded_verdict_keeps_only_what_it_needs() {
        let mut panel = testdata::json("judge-verdicts.pass.json");
        panel[0]["junk"] = json!("x".repeat(1 << 20));
        panel[0]["feedback_summary"] = json!("y".repeat(5000));
        panel[1]["criterion_scores"]["z".repeat(100)] = json!(0.5);
        panel[1]["criterion_scores"]["note"] = json!("not a number");
        let v = recorded(judge(Visibility::Org, &set(), &panel).unwrap());
        let first = v.judges[0].as_object().unwrap();
        assert!(!first.contains_key("junk"));
        let fb = first["feedback_summary"].as_str().unwrap();
        assert_eq!(fb.chars().count(), MAX_FEEDBACK + 1);
        assert!(fb.ends_with('…'));
        let scores = v.judges[1]["criterion_scores"].as_object().unwrap();
        assert!(scores.keys().all(|k| k.len() <= 64 && k != "note"));
        assert!(serde_json::to_string(&v).unwrap().len() < 8_000);
    }

    #[test]
    fn consensus_and_trailer_lines() {
        let v = testdata::proposal("proposal.rejected.json")
            .verdict
            .unwrap();
        assert_eq!(consensus(&v), (2, 1));
        assert_eq!(
            crate::event::Ruling::of(&v).judges,
            ["standard 0.95 pass", "adversarial 0.75 fail"]
        );
        assert_eq!(consensus(&private_verdict()), (0, 0));
    }
}
