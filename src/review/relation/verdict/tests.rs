use serde_json::{json, Value};

use super::*;
use crate::review::relation::input::JudgmentInput;
use crate::review::relation::testutil::{lesson, test_id, LessonSpec};

/// Candidate `C` (1) with neighbours `A` (2), `B` (3) and `D` (4) presented;
/// `P` (50) is a well-formed id that was never presented.
struct Fx {
    input: JudgmentInput,
    c: String,
    a: String,
    b: String,
    d: String,
    p: String,
    digest: String,
}

fn fx() -> Fx {
    let l = |n| {
        lesson(&LessonSpec {
            n,
            ..LessonSpec::default()
        })
    };
    let input = JudgmentInput::new(l(1), [l(2), l(3), l(4)]);
    Fx {
        c: test_id(1).to_string(),
        a: test_id(2).to_string(),
        b: test_id(3).to_string(),
        d: test_id(4).to_string(),
        p: test_id(50).to_string(),
        digest: input.corpus_fingerprint().digest().to_owned(),
        input,
    }
}

fn rel(kind: &str, targets: &[&str]) -> Value {
    json!({
        "decision": kind,
        "target_ids": targets,
        "surface": "vite.config.ts server.proxy",
        "rationale": "Both lessons are about the server.proxy key in vite.config.ts.",
        "confidence": 0.8
    })
}

fn skip() -> Value {
    json!({"decision": "skip", "target_ids": [], "confidence": 0.9})
}

fn env(c: &str, decisions: Vec<Value>) -> Value {
    json!({"candidate_id": c, "decisions": decisions})
}

impl Fx {
    fn text(&self, s: &str) -> Parsed {
        parse_verdict(RawVerdict::Text(s), &self.input)
    }

    fn value(&self, v: &Value) -> Parsed {
        parse_verdict(RawVerdict::Json(v), &self.input)
    }

    /// The good batch: refine A, supersede B, skip.
    fn good(&self) -> Value {
        env(
            &self.c,
            vec![
                rel("refine", &[&self.a]),
                rel("supersede", &[&self.b]),
                skip(),
            ],
        )
    }
}

fn mode(p: &Parsed) -> Option<FailureMode> {
    match p {
        Parsed::Void(r) => Some(r.mode),
        Parsed::Valid(_) => None,
    }
}

#[test]
fn the_good_batch_is_valid_and_typed() {
    let f = fx();
    let p = f.value(&f.good());
    let Parsed::Valid(batch) = &p else {
        panic!("{p:?}");
    };
    assert_eq!(batch.candidate(), test_id(1));
    assert_eq!(batch.corpus_digest(), f.digest);
    let kinds: Vec<DecisionKind> = batch.decisions().iter().map(Decision::kind).collect();
    assert_eq!(
        kinds,
        [
            DecisionKind::Refine,
            DecisionKind::Supersede,
            DecisionKind::Skip
        ]
    );
    assert_eq!(batch.decisions()[0].targets(), &[test_id(2)]);
    assert_eq!(batch.decisions()[1].targets(), &[test_id(3)]);
    assert!(batch.decisions()[2].targets().is_empty());
    assert_eq!(batch.decisions()[0].confidence().get(), 0.8);
    assert_eq!(batch.decisions()[2].surface(), "");
    assert!(!batch.is_all_abstain());
    assert!(!p.leaves_candidate_queued());
    // The same batch as text and as bytes.
    let text = f.good().to_string();
    assert_eq!(f.text(&text), p);
    assert_eq!(
        parse_verdict(RawVerdict::Bytes(text.as_bytes()), &f.input),
        p
    );
}

/// Every failure mode, and the precedence between them: the first violation
/// in the documented order names the mode.
#[test]
fn failure_modes_and_their_precedence() {
    let f = fx();
    let (c, a, b, p) = (f.c.as_str(), f.a.as_str(), f.b.as_str(), f.p.as_str());
    let good = f.good().to_string();
    let big = format!("{good}{}", " ".repeat(MAX_VERDICT_BYTES));
    let with = |decisions: Vec<Value>| env(c, decisions).to_string();
    let d = |edit: &dyn Fn(&mut Value)| {
        let mut v = rel("merge", &[a]);
        edit(&mut v);
        with(vec![v])
    };
    use FailureMode::*;
    let cases: Vec<(&str, String, FailureMode)> = vec![
        // empty before anything else
        ("empty string", String::new(), Empty),
        ("white space", " \n\t ".into(), Empty),
        // unparseable: not JSON, or not an object
        (
            "fenced json is not stripped",
            format!("```json\n{good}\n```"),
            Unparseable,
        ),
        (
            "prose around json",
            format!("Here is my verdict: {good}"),
            Unparseable,
        ),
        (
            "trailing comma is not repaired",
            good.replacen("]}", "],}", 1),
            Unparseable,
        ),
        ("json null text", "null".into(), Unparseable),
        ("array", format!("[{good}]"), Unparseable),
        ("string", "\"skip\"".into(), Unparseable),
        (
            "repeated key",
            format!("{{\"candidate_id\":\"{c}\",\"candidate_id\":\"{c}\",\"decisions\":[]}}"),
            Unparseable,
        ),
        (
            "NaN confidence is not JSON",
            good.replace("0.8", "NaN"),
            Unparseable,
        ),
        (
            "Infinity confidence is not JSON",
            good.replace("0.8", "Infinity"),
            Unparseable,
        ),
        ("over the size cap", big, Unparseable),
        // envelope: candidate_id first, then the echo, then decisions
        ("no candidate_id, no decisions", "{}".into(), Partial),
        (
            "no candidate_id, empty decisions",
            "{\"decisions\": []}".into(),
            Partial,
        ),
        (
            "candidate_id case-folded",
            env(&c.to_lowercase(), vec![skip()]).to_string(),
            Partial,
        ),
        (
            "candidate_id is a neighbour",
            env(a, vec![skip()]).to_string(),
            Partial,
        ),
        (
            "echo disagrees before empty decisions",
            json!({"candidate_id": c, "corpus_fingerprint": "0000000000000000", "decisions": []})
                .to_string(),
            Partial,
        ),
        (
            "no decisions",
            json!({"candidate_id": c}).to_string(),
            Partial,
        ),
        (
            "decisions not an array",
            json!({"candidate_id": c, "decisions": {}}).to_string(),
            Partial,
        ),
        ("zero decisions", with(vec![]), Empty),
        // one decision: shape, then enum, then ids, then text, then confidence
        ("decision not an object", with(vec![json!("skip")]), Partial),
        (
            "decision missing",
            d(&|v| {
                v.as_object_mut().unwrap().remove("decision");
            }),
            Partial,
        ),
        (
            "decision null",
            d(&|v| v["decision"] = Value::Null),
            Partial,
        ),
        (
            "decision missing beats phantom",
            d(&|v| {
                v.as_object_mut().unwrap().remove("decision");
                v["target_ids"] = json!([p]);
            }),
            Partial,
        ),
        (
            "decision capitalised",
            d(&|v| v["decision"] = json!("Merge")),
            EnumViolation,
        ),
        (
            "decision padded",
            d(&|v| v["decision"] = json!("merge ")),
            EnumViolation,
        ),
        (
            "decision empty",
            d(&|v| v["decision"] = json!("")),
            EnumViolation,
        ),
        (
            "decision store",
            d(&|v| v["decision"] = json!("store")),
            EnumViolation,
        ),
        (
            "decision a number",
            d(&|v| v["decision"] = json!(3)),
            EnumViolation,
        ),
        (
            "enum beats phantom",
            d(&|v| {
                v["decision"] = json!("MERGE");
                v["target_ids"] = json!([p]);
            }),
            EnumViolation,
        ),
        (
            "enum beats self-reference",
            d(&|v| {
                v["decision"] = json!("Supersede");
                v["target_ids"] = json!([c]);
            }),
            EnumViolation,
        ),
        (
            "decision candidate_id differs",
            d(&|v| v["candidate_id"] = json!(a)),
            Partial,
        ),
        (
            "target_ids missing",
            d(&|v| {
                v.as_object_mut().unwrap().remove("target_ids");
            }),
            Partial,
        ),
        (
            "target_ids a string",
            d(&|v| v["target_ids"] = json!(a)),
            Partial,
        ),
        (
            "relation without targets",
            d(&|v| v["target_ids"] = json!([])),
            Partial,
        ),
        (
            "skip with targets",
            with(vec![
                json!({"decision": "skip", "target_ids": [a], "confidence": 1}),
            ]),
            Partial,
        ),
        (
            "abstain with targets",
            with(vec![
                json!({"decision": "abstain", "target_ids": [p], "confidence": 0}),
            ]),
            Partial,
        ),
        (
            "target not a string",
            d(&|v| v["target_ids"] = json!([5])),
            Partial,
        ),
        (
            "target blank",
            d(&|v| v["target_ids"] = json!(["  "])),
            Partial,
        ),
        // ids: self-reference is checked before the phantom gate
        (
            "self-reference",
            d(&|v| v["target_ids"] = json!([c])),
            SelfReference,
        ),
        (
            "self-reference then phantom",
            d(&|v| v["target_ids"] = json!([c, p])),
            SelfReference,
        ),
        (
            "self-reference after a good id",
            d(&|v| v["target_ids"] = json!([a, c])),
            SelfReference,
        ),
        (
            "phantom then self-reference",
            d(&|v| v["target_ids"] = json!([p, c])),
            PhantomId,
        ),
        ("phantom", d(&|v| v["target_ids"] = json!([p])), PhantomId),
        (
            "presented id lower-cased",
            d(&|v| v["target_ids"] = json!([a.to_lowercase()])),
            PhantomId,
        ),
        (
            "not an id at all",
            d(&|v| v["target_ids"] = json!(["../../etc/passwd"])),
            PhantomId,
        ),
        (
            "duplicate in one decision",
            d(&|v| v["target_ids"] = json!([a, a])),
            DuplicateTarget,
        ),
        (
            "duplicate before phantom",
            d(&|v| v["target_ids"] = json!([a, a, p])),
            DuplicateTarget,
        ),
        (
            "phantom before duplicate",
            d(&|v| v["target_ids"] = json!([a, p, a])),
            PhantomId,
        ),
        (
            "duplicate across decisions",
            with(vec![rel("refine", &[a]), rel("supersede", &[b, a])]),
            DuplicateTarget,
        ),
        (
            "ids beat a missing surface",
            d(&|v| {
                v["target_ids"] = json!([p]);
                v.as_object_mut().unwrap().remove("surface");
            }),
            PhantomId,
        ),
        // surface and rationale
        (
            "surface missing",
            d(&|v| {
                v.as_object_mut().unwrap().remove("surface");
            }),
            Partial,
        ),
        (
            "surface blank",
            d(&|v| v["surface"] = json!("   ")),
            Partial,
        ),
        (
            "surface not a string",
            d(&|v| v["surface"] = json!(["vite.config.ts"])),
            Partial,
        ),
        (
            "rationale missing",
            d(&|v| {
                v.as_object_mut().unwrap().remove("rationale");
            }),
            Partial,
        ),
        (
            "rationale blank",
            d(&|v| v["rationale"] = json!("")),
            Partial,
        ),
        (
            "rationale does not name the surface",
            d(&|v| v["rationale"] = json!("These say the same thing.")),
            Partial,
        ),
        (
            "skip with a surface that is not a string",
            with(vec![
                json!({"decision": "skip", "target_ids": [], "surface": 5, "confidence": 1}),
            ]),
            Partial,
        ),
        (
            "abstain with a null rationale",
            with(vec![
                json!({"decision": "abstain", "target_ids": [], "rationale": null, "confidence": 0}),
            ]),
            Partial,
        ),
        // confidence
        (
            "confidence missing",
            d(&|v| {
                v.as_object_mut().unwrap().remove("confidence");
            }),
            Partial,
        ),
        (
            "confidence null",
            d(&|v| v["confidence"] = Value::Null),
            Partial,
        ),
        (
            "confidence a string",
            d(&|v| v["confidence"] = json!("0.5")),
            Partial,
        ),
        (
            "confidence a boolean",
            d(&|v| v["confidence"] = json!(true)),
            Partial,
        ),
        (
            "confidence above one",
            d(&|v| v["confidence"] = json!(1.01)),
            Partial,
        ),
        (
            "confidence below zero",
            d(&|v| v["confidence"] = json!(-0.01)),
            Partial,
        ),
        (
            "confidence huge",
            d(&|v| v["confidence"] = json!(1e300)),
            Partial,
        ),
        // the first violating decision names the mode
        (
            "enum in the first, phantom in the second",
            with(vec![
                json!({"decision": "Skip", "target_ids": [], "confidence": 1}),
                rel("merge", &[p]),
            ]),
            EnumViolation,
        ),
        (
            "phantom in the first, enum in the second",
            with(vec![
                rel("merge", &[p]),
                json!({"decision": "Skip", "target_ids": [], "confidence": 1}),
            ]),
            PhantomId,
        ),
    ];
    let mut seen = std::collections::BTreeSet::new();
    for (name, text, want) in &cases {
        let got = f.text(text);
        assert_eq!(mode(&got), Some(*want), "{name}: {got:?}");
        seen.insert(want.as_str());
    }
    // Timeout is reported by the judge runner, never found in text.
    let t = Parsed::void(FailureMode::Timeout, "the judge exceeded 60 s");
    assert_eq!(mode(&t), Some(Timeout));
    assert!(t.leaves_candidate_queued());
    seen.insert(Timeout.as_str());
    assert_eq!(
        seen.len(),
        FailureMode::ALL.len(),
        "every mode is exercised"
    );
}

#[test]
fn raw_forms_other_than_text() {
    let f = fx();
    let mode_of = |raw: RawVerdict<'_>| mode(&parse_verdict(raw, &f.input));
    assert_eq!(mode_of(RawVerdict::Absent), Some(FailureMode::Empty));
    assert_eq!(
        mode_of(RawVerdict::Json(&Value::Null)),
        Some(FailureMode::Empty)
    );
    assert_eq!(mode_of(RawVerdict::Bytes(b"")), Some(FailureMode::Empty));
    assert_eq!(
        mode_of(RawVerdict::Json(&json!([f.good()]))),
        Some(FailureMode::Unparseable)
    );
    assert_eq!(
        mode_of(RawVerdict::Json(&json!(f.good().to_string()))),
        Some(FailureMode::Unparseable),
        "a JSON string value is not re-parsed as text"
    );
    assert_eq!(
        mode_of(RawVerdict::Bytes(b"{\"candidate_id\": \"\xff\"}")),
        Some(FailureMode::Unparseable)
    );
    let big = vec![b' '; MAX_VERDICT_BYTES + 1];
    let void = parse_verdict(RawVerdict::Bytes(&big), &f.input);
    let Parsed::Void(r) = &void else { panic!() };
    assert_eq!(r.mode, FailureMode::Unparseable);
    assert_eq!(
        r.detail,
        format!(
            "the verdict is {} bytes; the limit is 262144 bytes",
            MAX_VERDICT_BYTES + 1
        )
    );
    // Deep nesting is refused by the reader's recursion limit, not a crash.
    let deep = format!("{}{}", "[".repeat(10_000), "]".repeat(10_000));
    assert_eq!(
        mode_of(RawVerdict::Text(&deep)),
        Some(FailureMode::Unparseable)
    );
}

#[test]
fn one_bad_decision_among_good_ones_voids_the_whole_batch() {
    let f = fx();
    let bad: Vec<Value> = vec![
        rel("merge", &[&f.p]),
        rel("merge", &[&f.c]),
        json!({"decision": "Abstain", "target_ids": [], "confidence": 0}),
        json!({"decision": "skip", "target_ids": [], "confidence": 2}),
        rel("contradict", &[&f.b]),
    ];
    for (i, b) in bad.into_iter().enumerate() {
        for at in 0..=3 {
            let mut decisions = vec![rel("refine", &[&f.d]), rel("supersede", &[&f.b]), skip()];
            decisions.insert(at, b.clone());
            let p = f.value(&env(&f.c, decisions));
            assert!(
                matches!(p, Parsed::Void(_)),
                "bad decision {i} at {at} must void: {p:?}"
            );
            assert!(p.leaves_candidate_queued());
        }
    }
}

#[test]
fn self_reference_is_never_reported_as_a_phantom() {
    let f = fx();
    for kind in ["refine", "supersede", "merge", "contradict"] {
        let p = f.value(&env(&f.c, vec![rel(kind, &[&f.c])]));
        let Parsed::Void(r) = &p else { panic!("{p:?}") };
        assert_eq!(r.mode, FailureMode::SelfReference, "{kind}");
        assert!(
            r.detail.contains("names the candidate itself"),
            "{}",
            r.detail
        );
    }
}

#[test]
fn a_fingerprint_echo_must_agree() {
    let f = fx();
    let ids: Vec<String> = f
        .input
        .corpus_fingerprint()
        .ids()
        .iter()
        .map(ToString::to_string)
        .collect();
    let mut reversed = ids.clone();
    reversed.reverse();
    let with_echo = |echo: Value| {
        let mut v = f.good();
        v["corpus_fingerprint"] = echo;
        f.value(&v)
    };
    for ok in [
        json!(f.digest),
        json!({"digest": f.digest}),
        json!({"digest": f.digest, "count": 3}),
        json!({"digest": f.digest, "count": 3, "ids": ids}),
    ] {
        assert!(matches!(with_echo(ok.clone()), Parsed::Valid(_)), "{ok}");
    }
    let stale = crate::review::relation::fingerprint::CorpusFingerprint::of([test_id(2)]);
    for bad in [
        json!(stale.digest()),
        json!(f.digest.to_uppercase()),
        json!({"digest": stale.digest()}),
        json!({"count": 3, "ids": ids}),
        json!({"digest": f.digest, "count": 2}),
        json!({"digest": f.digest, "count": "3"}),
        json!({"digest": f.digest, "ids": reversed}),
        json!({"digest": f.digest, "ids": [f.a, f.b]}),
        Value::Null,
        json!(3),
        json!([f.digest]),
    ] {
        let p = with_echo(bad.clone());
        assert_eq!(mode(&p), Some(FailureMode::Partial), "{bad}: {p:?}");
    }
}

#[test]
fn confidence_bounds_are_inclusive() {
    let f = fx();
    for ok in [
        json!(0),
        json!(1),
        json!(0.0),
        json!(1.0),
        json!(-0.0),
        json!(0.5),
    ] {
        let mut v = rel("merge", &[&f.a]);
        v["confidence"] = ok.clone();
        assert!(
            matches!(f.value(&env(&f.c, vec![v])), Parsed::Valid(_)),
            "{ok}"
        );
    }
    assert!(Confidence::new(f64::NAN).is_none());
    assert!(Confidence::new(f64::INFINITY).is_none());
    assert!(Confidence::new(1.0 + f64::EPSILON).is_none());
}

#[test]
fn rationale_must_name_the_surface_lexically() {
    let s = "rule-loader.mjs frontmatter key \"expires-at\"";
    assert!(rationale_names_surface(
        "The EXPIRES-AT key is live in the loader.",
        s
    ));
    assert!(rationale_names_surface("see rule-loader.mjs", s));
    assert!(rationale_names_surface(
        "x RULE-LOADER.MJS FRONTMATTER KEY \"EXPIRES-AT\" y",
        s
    ));
    assert!(!rationale_names_surface(
        "the loader's date field is honoured",
        s
    ));
    // Tokens shorter than three characters do not count.
    assert!(!rationale_names_surface("an fs call", "fs x"));
    assert!(rationale_names_surface("an fs x call", "fs x"));
    // Non-ASCII characters separate tokens; whole-surface containment still holds.
    assert!(rationale_names_surface("über überall", "über"));
    assert!(!rationale_names_surface("anything", "üb"));
}

#[test]
fn skip_and_abstain_need_no_surface() {
    let f = fx();
    let p = f.value(&env(
        &f.c,
        vec![
            json!({"decision": "abstain", "target_ids": [], "confidence": 0}),
            json!({"decision": "skip", "target_ids": [], "surface": "", "rationale": "", "confidence": 1}),
        ],
    ));
    let Parsed::Valid(b) = &p else {
        panic!("{p:?}")
    };
    assert!(!b.is_all_abstain());
    let all_abstain = f.value(&env(
        &f.c,
        vec![json!({"decision": "abstain", "target_ids": [], "confidence": 0})],
    ));
    assert!(all_abstain.leaves_candidate_queued());
}

#[test]
fn void_details_are_bounded_and_specific() {
    let f = fx();
    let long = "X".repeat(10_000);
    let p = f.value(&env(&long, vec![skip()]));
    let Parsed::Void(r) = &p else { panic!() };
    assert!(r.detail.chars().count() < 200, "{}", r.detail);
    assert!(r
        .detail
        .starts_with(&format!("candidate_id mismatch: expected {}", f.c)));
    let p = f.value(&env(&f.c, vec![skip(), rel("merge", &[&f.p])]));
    assert_eq!(
        p,
        Parsed::void(
            FailureMode::PhantomId,
            format!(
                "decisions[1].target_ids names an id that was never presented: {}",
                f.p
            )
        )
    );
    assert_eq!(
        p.to_string_for_test(),
        format!(
            "verdict voided (phantom_id): decisions[1].target_ids names an id that was never presented: {}",
            f.p
        )
    );
}

impl Parsed {
    fn to_string_for_test(&self) -> String {
        match self {
            Parsed::Void(r) => r.to_string(),
            Parsed::Valid(_) => "valid".into(),
        }
    }
}

#[test]
fn telemetry_counts_batches_voids_modes_and_decisions() {
    let f = fx();
    let mut t = Telemetry::default();
    t.record(&f.value(&f.good()));
    t.record(&f.text("```json\n{}\n```"));
    t.record(&f.value(&env(&f.c, vec![rel("merge", &[&f.c])])));
    t.record(&Parsed::void(FailureMode::Timeout, "60 s"));
    assert_eq!(t.batches, 4);
    assert_eq!(t.voided, 3);
    assert_eq!(t.failure_modes.unparseable, 1);
    assert_eq!(t.failure_modes.self_reference, 1);
    assert_eq!(t.failure_modes.timeout, 1);
    assert_eq!(t.failure_modes.phantom_id, 0);
    assert_eq!(
        (t.decisions.refine, t.decisions.supersede, t.decisions.skip),
        (1, 1, 1)
    );
    assert_eq!(
        t.decisions.abstain, 3,
        "each void counts as abstain, never skip"
    );
    let v = serde_json::to_value(&t).unwrap();
    assert_eq!(
        v,
        json!({
            "batches": 4,
            "voided": 3,
            "failure_modes": {
                "unparseable": 1, "partial": 0, "phantom_id": 0, "self_reference": 1,
                "empty": 0, "timeout": 1, "enum_violation": 0, "duplicate_target": 0
            },
            "decisions": {
                "skip": 1, "refine": 1, "supersede": 1, "merge": 0, "contradict": 0, "abstain": 3
            }
        })
    );
    let back: Telemetry = serde_json::from_value(v).unwrap();
    assert_eq!(back, t);
    let names: Vec<&str> = FailureMode::ALL.iter().map(|m| m.as_str()).collect();
    for n in names {
        assert!(
            serde_json::to_value(&t).unwrap()["failure_modes"]
                .get(n)
                .is_some(),
            "{n}"
        );
    }
}
