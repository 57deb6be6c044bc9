use serde_json::{json, Value};

use super::*;
use crate::model::Lesson;
use crate::review::relation::input::JudgmentInput;
use crate::review::relation::records::{classify, RelationPath};
use crate::review::relation::testutil::{artifact_id, lesson, test_id, LessonSpec};
use crate::review::relation::verdict::{parse_verdict, Parsed, RawVerdict};

const NOW: i64 = 1_786_000_000; // 2026-08-06T07:06:40Z

fn ctx() -> PlanContext<'static> {
    PlanContext {
        now: jiff::Timestamp::from_second(NOW).unwrap(),
        model: "claude-test",
    }
}

/// Candidate C (1) and neighbours A (2), B (3), D (4), with distinct
/// evidence so that a merge is visible.
fn pool() -> Vec<Lesson> {
    let l = |n, artifacts: &'static [u32], sessions: &'static [&'static str]| {
        lesson(&LessonSpec {
            n,
            artifacts,
            sessions,
            ..LessonSpec::default()
        })
    };
    vec![
        l(1, &[1, 2], &["s1"]),
        l(2, &[2, 3], &["s2", "s1"]),
        l(3, &[4], &["s3"]),
        l(4, &[5, 1], &["s4"]),
    ]
}

fn id(n: u32) -> String {
    test_id(n).to_string()
}

fn decision(kind: &str, targets: &[u32]) -> Value {
    json!({
        "decision": kind,
        "target_ids": targets.iter().map(|&n| id(n)).collect::<Vec<_>>(),
        "surface": "vite.config.ts server.proxy",
        "rationale": "Both are about server.proxy in vite.config.ts.",
        "confidence": 0.75
    })
}

fn batch(pool: &[Lesson], decisions: Vec<Value>) -> ValidBatch {
    let input = JudgmentInput::new(pool[0].clone(), pool[1..].to_vec());
    let v = json!({"candidate_id": id(1), "decisions": decisions});
    match parse_verdict(RawVerdict::Json(&v), &input) {
        Parsed::Valid(b) => b,
        Parsed::Void(r) => panic!("test verdict must be valid: {r}"),
    }
}

fn read_lesson(change: &FileChange) -> Lesson {
    serde_json::from_slice(&change.bytes).unwrap()
}

fn own_schema(file: &str) -> jsonschema::Validator {
    let path = format!("{}/schema/{file}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap();
    jsonschema::validator_for(&serde_json::from_str(&text).unwrap()).unwrap()
}

fn assert_valid(validator: &jsonschema::Validator, bytes: &[u8]) {
    let v: Value = serde_json::from_slice(bytes).unwrap();
    let errors: Vec<String> = validator.iter_errors(&v).map(|e| e.to_string()).collect();
    assert!(errors.is_empty(), "{errors:?} in {v}");
}

#[test]
fn supersede_retires_each_target_then_records_the_judgment() {
    let pool = pool();
    let b = batch(&pool, vec![decision("supersede", &[3, 2])]);
    let plan = plan_effects(&b, &pool, &ctx()).unwrap();
    let actions: Vec<Action> = plan.iter().map(|e| e.action).collect();
    assert_eq!(
        actions,
        [Action::Supersede, Action::Supersede, Action::Relate]
    );
    for (e, target) in plan.iter().zip([3, 2]) {
        assert_eq!(e.lesson, test_id(target));
        assert_eq!(e.targets, vec![test_id(1)]);
        assert_eq!(e.surface.as_deref(), Some("vite.config.ts server.proxy"));
        assert_eq!(e.transitions, vec![superseded(test_id(target))]);
        assert_eq!(
            e.subject,
            format!("supersede {}: superseded by {}", id(target), id(1))
        );
        assert_eq!(e.changes.len(), 1);
        assert_eq!(e.changes[0].path, lesson_path(test_id(target)));
        assert_eq!(e.changes[0].kind, ChangeKind::Modify);
        let after = read_lesson(&e.changes[0]);
        let mut want = pool[target as usize - 1].clone();
        want.status = LessonStatus::Superseded;
        want.superseded_by = Some(test_id(1));
        assert_eq!(after, want, "only status and superseded_by change");
        assert_eq!(e.changes[0].bytes, canonical_json(&want));
    }
    let relate = &plan[2];
    assert_eq!(relate.lesson, test_id(1));
    assert_eq!(relate.targets, vec![test_id(3), test_id(2)]);
    assert_eq!(relate.surface, None);
    assert_eq!(relate.changes[0].path, related_path(test_id(1)));
    assert_eq!(relate.changes[0].kind, ChangeKind::Add);
    assert_valid(&own_schema("related.schema.json"), &relate.changes[0].bytes);
}

#[test]
fn merge_absorbs_evidence_in_stable_order_and_retires_the_sources() {
    let pool = pool();
    let b = batch(&pool, vec![decision("merge", &[4, 2])]);
    let plan = plan_effects(&b, &pool, &ctx()).unwrap();
    assert_eq!(plan.len(), 2);
    let m = &plan[0];
    assert_eq!(m.action, Action::Merge);
    assert_eq!(m.lesson, test_id(1));
    assert_eq!(m.targets, vec![test_id(4), test_id(2)]);
    assert_eq!(m.subject, format!("merge {}: absorbs 2 lessons", id(1)));
    assert_eq!(
        m.transitions,
        vec![superseded(test_id(4)), superseded(test_id(2))]
    );
    let paths: Vec<&str> = m.changes.iter().map(|c| c.path.as_str()).collect();
    assert_eq!(
        paths,
        [
            lesson_path(test_id(1)),
            lesson_path(test_id(4)),
            lesson_path(test_id(2))
        ]
    );
    let merged = read_lesson(&m.changes[0]);
    assert_eq!(merged.status, LessonStatus::Active);
    assert_eq!(
        merged.evidence.artifact_ids,
        [1, 2, 5, 3].map(artifact_id).to_vec(),
        "own first, then each source's new ones in target order"
    );
    assert_eq!(merged.evidence.session_ids, ["s1", "s4", "s2"]);
    assert_eq!(merged.claim, pool[0].claim);
    for c in &m.changes[1..] {
        let l = read_lesson(c);
        assert_eq!(
            (l.status, l.superseded_by),
            (LessonStatus::Superseded, Some(test_id(1)))
        );
    }
}

#[test]
fn effects_see_the_pool_as_earlier_effects_left_it() {
    let pool = pool();
    let b = batch(
        &pool,
        vec![decision("merge", &[2]), decision("merge", &[4])],
    );
    let plan = plan_effects(&b, &pool, &ctx()).unwrap();
    let second = read_lesson(&plan[1].changes[0]);
    assert_eq!(
        second.evidence.artifact_ids,
        [1, 2, 3, 5].map(artifact_id).to_vec()
    );
    assert_eq!(second.evidence.session_ids, ["s1", "s2", "s4"]);
}

#[test]
fn refine_links_without_touching_either_lesson() {
    let pool = pool();
    let b = batch(&pool, vec![decision("refine", &[2, 3])]);
    let plan = plan_effects(&b, &pool, &ctx()).unwrap();
    assert_eq!(plan.len(), 2);
    let r = &plan[0];
    assert_eq!(r.action, Action::Refine);
    assert_eq!(
        (r.lesson, r.targets.clone()),
        (test_id(1), vec![test_id(2), test_id(3)])
    );
    assert!(r.transitions.is_empty());
    let schema = own_schema("relation.schema.json");
    for (c, to) in r.changes.iter().zip([2, 3]) {
        assert_eq!(c.kind, ChangeKind::Add);
        assert_eq!(
            classify(&c.path),
            Some(RelationPath::Relation {
                from: test_id(1),
                to: test_id(to)
            })
        );
        assert_valid(&schema, &c.bytes);
        let rec: RelationRecord = serde_json::from_slice(&c.bytes).unwrap();
        assert_eq!(rec.decided_at, "2026-08-06T07:06:40Z");
        assert_eq!(rec.model, "claude-test");
        assert_eq!(rec.confidence, 0.75);
    }
    assert!(plan
        .iter()
        .flat_map(|e| &e.changes)
        .all(|c| !c.path.starts_with("lessons/")));
}

#[test]
fn contradict_records_a_schema_valid_counter_observation_and_no_status_change() {
    let pool = pool();
    let b = batch(&pool, vec![decision("contradict", &[2, 3])]);
    let plan = plan_effects(&b, &pool, &ctx()).unwrap();
    assert_eq!(plan.len(), 3);
    let mut ids = Vec::new();
    for (e, target) in plan[..2].iter().zip([2, 3]) {
        assert_eq!(e.action, Action::Contradict);
        assert_eq!(
            (e.lesson, e.targets.clone()),
            (test_id(target), vec![test_id(1)])
        );
        assert!(e.transitions.is_empty());
        let c = &e.changes[0];
        let Some(RelationPath::CounterObservation {
            lesson,
            observation,
        }) = classify(&c.path)
        else {
            panic!("{}", c.path)
        };
        assert_eq!(lesson, test_id(target));
        let v: Value = serde_json::from_slice(&c.bytes).unwrap();
        assert_eq!(schema::validate(SchemaKind::CounterObservation, &v), Ok(()));
        let o: CounterObservation = serde_json::from_value(v).unwrap();
        assert_eq!(o.id, observation);
        assert_eq!(o.id.timestamp_ms(), NOW as u64 * 1000);
        assert_eq!(o.lesson_id, test_id(target));
        assert_eq!(o.artifact_ids, pool[0].evidence.artifact_ids);
        assert_eq!(o.session_id, "s1");
        assert_eq!(o.observed_at, pool[0].evidence.observed_at);
        assert_eq!(o.author_key, "a8cf0203e178");
        assert_eq!(
            o.summary,
            format!(
                "lesson {} contradicts this on vite.config.ts server.proxy: Both are about server.proxy in vite.config.ts.",
                id(1)
            )
        );
        ids.push(o.id);
    }
    assert_ne!(ids[0], ids[1]);
    assert!(plan
        .iter()
        .flat_map(|e| &e.changes)
        .all(|c| !c.path.starts_with("lessons/")));
    // Deterministic: the same inputs give the same plan, byte for byte.
    assert_eq!(plan_effects(&b, &pool, &ctx()).unwrap(), plan);
}

#[test]
fn skip_writes_only_the_judgment_record_and_abstain_writes_nothing() {
    let pool = pool();
    let skip = json!({"decision": "skip", "target_ids": [], "confidence": 0.9});
    let abstain = json!({"decision": "abstain", "target_ids": [], "confidence": 0});
    let plan = plan_effects(&batch(&pool, vec![skip, abstain.clone()]), &pool, &ctx()).unwrap();
    assert_eq!(plan.len(), 1);
    assert_eq!(plan[0].action, Action::Relate);
    assert_eq!(plan[0].subject, format!("relate {}: skip, abstain", id(1)));
    assert!(plan[0].targets.is_empty());
    let rec: RelatedRecord = serde_json::from_slice(&plan[0].changes[0].bytes).unwrap();
    assert_eq!(rec.decisions.len(), 2);
    assert_eq!(rec.model, "claude-test");
    assert_valid(
        &own_schema("related.schema.json"),
        &plan[0].changes[0].bytes,
    );

    let none = plan_effects(&batch(&pool, vec![abstain]), &pool, &ctx()).unwrap();
    assert!(none.is_empty());
}

#[test]
fn planning_refuses_when_a_target_is_not_live_and_plans_nothing() {
    let pool = pool();
    for status in [
        LessonStatus::Superseded,
        LessonStatus::Refuted,
        LessonStatus::Retracted,
    ] {
        // The verdict was judged against a live B; the pool moved on since.
        let b = batch(
            &pool,
            vec![decision("refine", &[2]), decision("supersede", &[3])],
        );
        let mut moved = pool.clone();
        moved[2].status = status;
        assert_eq!(
            plan_effects(&b, &moved, &ctx()),
            Err(EffectError::TargetNotLive {
                target: test_id(3),
                decision: "supersede",
                status: status.as_str(),
            })
        );
    }
    let b = batch(&pool, vec![decision("merge", &[2, 4])]);
    let without: Vec<Lesson> = pool
        .iter()
        .filter(|l| l.id != test_id(4))
        .cloned()
        .collect();
    assert_eq!(
        plan_effects(&b, &without, &ctx()),
        Err(EffectError::TargetMissing {
            target: test_id(4),
            decision: "merge"
        })
    );
    let err = plan_effects(&b, &without, &ctx()).unwrap_err().to_string();
    assert_eq!(err, format!("target {} of merge is not in the pool", id(4)));
}

#[test]
fn planning_refuses_other_unresolvable_effects() {
    let pool = pool();
    let b = batch(&pool, vec![decision("contradict", &[2])]);

    let mut gone = pool.clone();
    gone[0].status = LessonStatus::Superseded;
    assert!(matches!(
        plan_effects(&b, &gone, &ctx()),
        Err(EffectError::CandidateNotLive { .. })
    ));
    assert_eq!(
        plan_effects(&b, &pool[1..], &ctx()),
        Err(EffectError::CandidateMissing(test_id(1)))
    );
    let mut twice = pool.clone();
    twice.push(pool[1].clone());
    assert_eq!(
        plan_effects(&b, &twice, &ctx()),
        Err(EffectError::DuplicateLesson(test_id(2)))
    );

    // A counter-observation that would not validate: no session to cite.
    let mut no_session = pool.clone();
    no_session[0].evidence.session_ids.clear();
    let e = plan_effects(&b, &no_session, &ctx()).unwrap_err();
    assert!(
        matches!(&e, EffectError::InvalidRecord { path, .. } if path.starts_with("counter-observations/")),
        "{e}"
    );
    // A resulting lesson that would not validate.
    let mut bad_claim = pool.clone();
    bad_claim[1].claim = String::new();
    let sup = batch(&pool, vec![decision("supersede", &[2])]);
    assert!(matches!(
        plan_effects(&sup, &bad_claim, &ctx()),
        Err(EffectError::InvalidRecord { .. })
    ));

    for (surface, why) in [
        (
            "vite.config.ts\nserver.proxy",
            "it contains a line break or control character",
        ),
        (
            &*"x".repeat(MAX_SURFACE_CHARS + 1),
            "it is longer than 300 characters",
        ),
    ] {
        let mut d = decision("refine", &[2]);
        d["surface"] = json!(surface);
        d["rationale"] = json!(format!("about {surface}"));
        let b = batch(&pool, vec![d]);
        let e = plan_effects(&b, &pool, &ctx()).unwrap_err();
        assert!(
            matches!(&e, EffectError::BadSurface { why: w, .. } if *w == why),
            "{e}"
        );
    }
    for model in ["", " claude", "a\nb"] {
        let c = PlanContext { model, ..ctx() };
        assert!(matches!(
            plan_effects(&b, &pool, &c),
            Err(EffectError::BadModel(_))
        ));
    }
    let before_1970 = PlanContext {
        now: jiff::Timestamp::from_second(-1).unwrap(),
        ..ctx()
    };
    assert!(matches!(
        plan_effects(&b, &pool, &before_1970),
        Err(EffectError::BadClock(_))
    ));
}

#[test]
fn surfaces_are_trimmed_for_the_trailer_and_kept_verbatim_in_records() {
    let pool = pool();
    let mut d = decision("refine", &[2]);
    d["surface"] = json!("  vite.config.ts server.proxy ");
    let plan = plan_effects(&batch(&pool, vec![d]), &pool, &ctx()).unwrap();
    assert_eq!(
        plan[0].surface.as_deref(),
        Some("vite.config.ts server.proxy")
    );
    let rec: RelationRecord = serde_json::from_slice(&plan[0].changes[0].bytes).unwrap();
    assert_eq!(rec.surface, "  vite.config.ts server.proxy ");
}

fn observation(n: u32, lesson: u32, at: &str) -> CounterObservation {
    CounterObservation {
        id: test_id(100 + n),
        schema_version: 1,
        lesson_id: test_id(lesson),
        observed_at: at.into(),
        artifact_ids: vec![artifact_id(n)],
        session_id: format!("s{n}"),
        summary: format!("observation {n}"),
        author_key: "a8cf0203e178".into(),
    }
}

#[test]
fn contradictions_past_the_threshold_go_back_to_the_jury() {
    let mut pool = pool();
    pool[3].status = LessonStatus::Superseded;
    let obs = vec![
        observation(1, 2, "2026-08-02T00:00:00Z"),
        observation(2, 2, "2026-08-01T00:00:00Z"),
        observation(2, 2, "2026-08-01T00:00:00Z"),
        observation(3, 3, "2026-08-01T00:00:00Z"),
        observation(4, 4, "2026-08-01T00:00:00Z"),
        observation(5, 4, "2026-08-01T00:00:00Z"),
        observation(6, 77, "2026-08-01T00:00:00Z"),
    ];
    let all = contradictions(&pool, &obs);
    let summary: Vec<(Id, usize)> = all.iter().map(|c| (c.lesson, c.count)).collect();
    assert_eq!(
        summary,
        [(test_id(2), 2), (test_id(3), 1), (test_id(4), 2)],
        "counted once per id; unknown lessons ignored"
    );
    assert_eq!(all[0].observations[0].id, test_id(102), "oldest first");

    let none = BTreeMap::new();
    let due = contradictions_past_threshold(&pool, &obs, DEFAULT_CONTRADICTION_THRESHOLD, &none);
    assert_eq!(due.len(), 1, "{due:?}");
    assert_eq!(due[0].lesson, test_id(2));
    assert_eq!(due[0].observations.len(), 2);
    let one = contradictions_past_threshold(&pool, &obs, NonZeroUsize::MIN, &none);
    let ids: Vec<Id> = one.iter().map(|c| c.lesson).collect();
    assert_eq!(
        ids,
        [test_id(2), test_id(3)],
        "superseded lessons are not re-judged"
    );
    assert_eq!(DEFAULT_CONTRADICTION_THRESHOLD.get(), 2);

    // Upheld at 2: off the queue until a third counter-observation.
    let upheld = BTreeMap::from([(test_id(2), 2)]);
    let due = contradictions_past_threshold(&pool, &obs, DEFAULT_CONTRADICTION_THRESHOLD, &upheld);
    assert!(due.is_empty(), "{due:?}");
    let mut more = obs.clone();
    more.push(observation(7, 2, "2026-08-03T00:00:00Z"));
    let due = contradictions_past_threshold(&pool, &more, DEFAULT_CONTRADICTION_THRESHOLD, &upheld);
    assert_eq!(due.len(), 1, "{due:?}");
    assert_eq!(due[0].count, 3);
}
