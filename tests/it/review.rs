//! Review and the jury: the human verbs, every case of the jury's usable-panel,
//! coverage and gate rules, promotion into the pools — each pinned by its message and
//! by what was (or was not) committed.

use serde_json::{json, Value};

use crate::common::{fanout, TestEnv};

const CANDIDATE: &str = include_str!("../fixtures/responses/candidate.json");
const POSITIVE: &str = include_str!("../fixtures/artifacts/positive-synthetic.json");

/// A repository with one pending lesson whose scope is
/// `{"vite": "<6", "vitest": ">=4"}`, and a model stub that must never run
/// again. Returns the lesson id.
fn pending(env: &TestEnv) -> String {
    env.init();
    env.model_answers(CANDIDATE);
    let f = env.write("a.json", POSITIVE);
    let r = env.lore(&["ingest", f.to_str().unwrap()]);
    let id = crate::common::lesson_of(r.ok());
    // From here on any model or judge call fails loudly.
    let marker = env.path().join("model-called");
    env.model_stub(&format!("touch {}; exit 1", marker.display()));
    env.config(
        "lore.judge.command",
        env.path().join("bin/model").to_str().unwrap(),
    );
    id
}

/// [`pending`]'s lesson in a fresh repository, confirmed at `visibility`
/// ([`TestEnv::confirm`] checks it). The repository and the lesson id.
#[track_caller]
fn confirmed(visibility: &str) -> (TestEnv, String) {
    let env = TestEnv::new();
    let id = pending(&env);
    env.confirm(&id, visibility);
    (env, id)
}

fn assert_no_model_call(env: &TestEnv) {
    assert!(
        !env.path().join("model-called").exists(),
        "a model was called"
    );
}

fn blob(env: &TestEnv, id: &str) -> String {
    env.git(&["rev-parse", &format!("ledger:{}", fanout("proposals", id))])
        .ok()
        .trim()
        .to_owned()
}

fn trailer(env: &TestEnv, key: &str) -> String {
    env.git(&[
        "log",
        "-1",
        &format!("--format=%(trailers:key={key},valueonly,separator=%x2C)"),
        "ledger",
    ])
    .ok()
    .trim()
    .to_owned()
}

fn verdicts(pass: &[(&str, f64, bool)]) -> String {
    let v: Vec<Value> = pass
        .iter()
        .map(|(t, s, p)| {
            json!({"judge_type": t, "score": s, "passed": p, "confidence": 0.9,
                   "criterion_scores": {"grounding": s, "scope_accuracy": s, "generality": s, "disclosure": 0.95},
                   "feedback_summary": "x"})
        })
        .collect();
    Value::Array(v).to_string()
}

const JUSTIFICATION: &str = "git aborts checkout on a dirty tree regardless of version.";

#[test]
fn confirm_refuses_without_a_usable_visibility_and_writes_nothing() {
    let env = TestEnv::new();
    let id = pending(&env);
    let commits = env.ledger_commits().len();
    let r = env.lore(&["confirm", &id]);
    assert_eq!(r.code, 1, "no default visibility");
    let r = env.lore(&["confirm", &id, "secret"]);
    r.assert_stderr("visibility must be one of: private, org, public");
    let r = env.lore(&[
        "confirm",
        &id,
        "private",
        "--justification",
        "holds everywhere",
    ]);
    r.assert_refused("version_independent requires org or public visibility");
    let r = env.lore(&["confirm", &id, "org", "--yes", "--justification", "   "]);
    r.assert_stderr("justification is blank after trimming whitespace");
    // A rewritten candidate is validated whole (schema and rules); one
    // confirmed as the ledger holds it skips only the schema it passed.
    let r = env.lore(&[
        "confirm",
        &id,
        "org",
        "--yes",
        "--justification",
        "holds \u{202e}everywhere",
    ]);
    r.assert_refused(&format!("candidate of lesson {id} does not validate; not confirmed: /applies_to/scope/justification: contains the bidirectional control U+202E"));
    assert_eq!(
        env.ledger_commits().len(),
        commits,
        "refusals write nothing"
    );
    assert_no_model_call(&env);
}

#[test]
fn a_justification_assigns_a_version_independent_scope_and_keeps_the_old_one() {
    let env = TestEnv::new();
    let id = pending(&env);
    env.confirm_justified(&id, "public", JUSTIFICATION);
    assert_eq!(
        env.proposal(&id)["candidate_before_confirm"]["applies_to"]["scope"]["kind"],
        "versioned"
    );
    assert_eq!(trailer(&env, "Lore-From"), "pending");
    assert_eq!(trailer(&env, "Lore-Status"), "confirmed");
    assert_eq!(trailer(&env, "Lore-Visibility"), "public");
    env.assert_verifies();
}

#[test]
fn an_identical_confirm_is_a_no_op_and_a_different_one_is_refused() {
    let env = TestEnv::new();
    let id = pending(&env);
    env.confirm_justified(&id, "public", JUSTIFICATION);
    let n = env.ledger_commits().len();
    let r = env.lore(&[
        "confirm",
        &id,
        "public",
        "--yes",
        "--justification",
        JUSTIFICATION,
    ]);
    assert_eq!(
        r.ok(),
        format!("lesson {id} is already confirmed at public visibility; nothing to change\n")
    );
    assert_eq!(env.ledger_commits().len(), n);
    let r = env.lore(&["confirm", &id, "org", "--yes"]);
    r.assert_refused(&format!(
        "lesson {id} is already confirmed; visibility or scope differs from the request"
    ));
    let r = env.lore(&["pass", &id, "--yes"]);
    r.assert_refused(&format!(
        "lesson {id} is confirmed for the jury; it cannot be passed on now"
    ));
    assert_eq!(env.ledger_commits().len(), n);
}

#[test]
fn unconfirm_restores_the_pending_record_byte_for_byte() {
    let env = TestEnv::new();
    let id = pending(&env);
    let before = blob(&env, &id);
    env.confirm_justified(&id, "public", JUSTIFICATION);
    assert_eq!(
        env.lore(&["unconfirm", &id]).ok(),
        format!("Unconfirmed {id}; it is pending again.\n")
    );
    assert_eq!(blob(&env, &id), before, "byte-identical round trip");
    assert_eq!(
        env.lore(&["unconfirm", &id]).ok(),
        format!("lesson {id} was already pending; nothing to take back\n")
    );
    env.assert_verifies();
}

#[test]
fn a_pass_reason_must_be_one_line() {
    let env = TestEnv::new();
    let id = pending(&env);
    let n = env.ledger_commits().len();
    let r = env.lore(&["pass", &id, "not useful\nLore-Status: approved", "--yes"]);
    r.assert_refused("trailer Lore-Reason has a control character or line break");
    assert_eq!(env.ledger_commits().len(), n, "nothing written");
    assert_eq!(env.proposal(&id)["status"], "pending");
}

#[test]
fn a_passed_lesson_is_terminal() {
    let env = TestEnv::new();
    let id = pending(&env);
    assert_eq!(
        env.lore(&["pass", &id, "not worth sharing", "--yes"]).ok(),
        format!("Passed on {id}.\n")
    );
    assert_eq!(env.proposal(&id)["status"], "passed");
    assert_eq!(trailer(&env, "Lore-Reason"), "not worth sharing");
    let r = env.lore(&["confirm", &id, "org", "--yes"]);
    r.assert_refused(&format!(
        "lesson {id} was passed on; it cannot be confirmed"
    ));
    let r = env.lore(&["unconfirm", &id]);
    r.assert_refused(&format!(
        "lesson {id} was passed on, not confirmed; unconfirm does not undo that"
    ));
    assert_eq!(env.proposal(&id)["status"], "passed");
    assert_eq!(
        env.lore(&["list", "--status", "passed", "--ids"])
            .ok()
            .split_whitespace()
            .next(),
        Some(id.as_str())
    );
    assert_no_model_call(&env);
    env.assert_verifies();
}

#[test]
fn a_private_lesson_is_approved_with_no_jury_and_promoted_to_pool_local() {
    let (env, id) = confirmed("private");
    let r = env.lore(&["judge", &id, "[]"]);
    assert_eq!(
        r.ok(),
        format!("Lesson {id} is now approved.\nLesson {id} promoted to pool/local.\n")
    );
    assert_no_model_call(&env);
    let p = env.proposal(&id);
    assert_eq!(
        p["verdict"],
        json!({"rubric_id": null, "gate_policy": null, "score_threshold": null,
        "aggregate_score": null, "passed": true, "reason": "private_no_jury", "judges": []})
    );
    assert!(p["promoted_at"].is_string());
    let entry: Value = serde_json::from_str(
        env.git(&["show", &format!("pool/local:{}", fanout("lessons", &id))])
            .ok(),
    )
    .unwrap();
    assert_eq!(
        entry["id"],
        id.as_str(),
        "the lesson keeps its id end to end"
    );
    assert_eq!(entry["source"], "local");
    assert_eq!(entry["consensus"]["judges"], 0);
    assert_eq!(entry.as_object().unwrap().len(), 13);
    // Promote again: a no-op.
    let n = env.git(&["rev-list", "--count", "--all"]).ok().to_owned();
    assert!(env
        .lore(&["promote", &id])
        .ok()
        .contains("already promoted"));
    assert_eq!(env.git(&["rev-list", "--count", "--all"]).ok(), n);
    // The pool carries its allowed signers; everything verifies.
    assert!(env
        .git(&["show", "pool/local:.lore/allowed_signers"])
        .ok()
        .contains("namespaces=\"git\" ssh-ed25519"));
    assert_eq!(env.git(&["verify-commit", "pool/local"]).code, 0);
    env.assert_verifies();
}

#[test]
fn verdicts_that_are_not_text_are_refused_naming_their_file() {
    let (env, id) = confirmed("org");
    let commits = env.ledger_commits().len();
    let bad = env.path().join("bad.json");
    std::fs::write(&bad, b"[\xff\xfe]").unwrap();
    let r = env.lore(&["judge", &id, &format!("@{}", bad.display())]);
    r.assert_refused(&format!(
        "VERDICTS from {} is not UTF-8 text",
        bad.display()
    ));
    assert_eq!(env.ledger_commits().len(), commits, "nothing written");
}

#[test]
fn org_majority_approves_and_promotes_a_schema_valid_entry() {
    let (env, id) = confirmed("org");
    let panel = env.write(
        "pass.json",
        include_str!("../../src/review/testdata/judge-verdicts.pass.json"),
    );
    let r = env.lore(&["judge", &id, &format!("@{}", panel.display())]);
    assert_eq!(
        r.ok(),
        format!("Lesson {id} is now approved.\nLesson {id} promoted to pool/org.\n")
    );
    let judge_commit = env
        .git(&["log", "-1", "--format=%B", "ledger~1"])
        .ok()
        .to_owned();
    let parsed = env.git_stdin(&["interpret-trailers", "--parse"], &judge_commit);
    assert!(parsed.ok().contains("Lore-Action: judge\n"));
    for line in [
        "Lore-Rubric: lesson-promotion",
        "Lore-Gate: majority",
        "Lore-Score: 0.85",
        "Lore-Reason: gate_passed",
        "Lore-Judge: standard 0.90 pass",
        "Lore-Judge: adversarial 0.80 pass",
    ] {
        assert!(parsed.stdout.contains(line), "{line} in\n{}", parsed.stdout);
    }
    let entry: Value = serde_json::from_str(
        env.git(&["show", &format!("pool/org:{}", fanout("lessons", &id))])
            .ok(),
    )
    .unwrap();
    assert_eq!(
        entry["consensus"],
        json!({"judges": 2, "agreed": 2, "decided_at": "2026-08-05T10:00:00Z"})
    );
    assert_eq!(entry["status"], "active");
    assert!(entry["author_key"].as_str().unwrap().len() == 32);
    assert_eq!(
        entry["applies_to"]["scope"]["versions"],
        json!({"vite": "<6", "vitest": ">=4"})
    );
    let r = env.lore(&["judge", &id, "[]"]);
    r.assert_refused(&format!(
        "lesson {id} is not confirmed; its status is: approved"
    ));
    let r = env.lore(&["unconfirm", &id]);
    r.assert_refused(&format!(
        "lesson {id} cannot be unconfirmed from status: approved"
    ));
    env.assert_verifies();
}

/// Confirms a fresh lesson at `visibility`, judges it with `panel`, and
/// returns (exit code, proposal after, ledger commits before, after).
fn judged(
    visibility: &str,
    panel: &str,
    rubrics: Option<&str>,
) -> (crate::common::Run, Value, usize, usize, String) {
    let env = TestEnv::new();
    let id = pending(&env);
    if let Some(r) = rubrics {
        let f = env.write("rubrics.json", r);
        env.lore(&["rubrics", f.to_str().unwrap()]).ok();
    }
    env.confirm(&id, visibility);
    let before = env.ledger_commits().len();
    let r = env.lore(&["judge", &id, panel]);
    let after = env.ledger_commits().len();
    let p = env.proposal(&id);
    env.assert_verifies();
    (r, p, before, after, id)
}

#[test]
fn a_split_panel_is_rejected_at_both_tiers_and_keeps_its_record() {
    let split = verdicts(&[("standard", 0.95, true), ("adversarial", 0.75, false)]);
    let (r, p, _, _, id) = judged("org", &split, None);
    assert_eq!(r.code, 0);
    assert_eq!(
        r.stdout,
        format!(
            "Lesson {id} is now rejected: most judges did not pass it; its verdict stays on the ledger.\n"
        )
    );
    assert_eq!(p["status"], "rejected");
    assert_eq!(p["verdict"]["reason"], "jury_not_majority");
    assert_eq!(p["verdict"]["rubric_id"], "lesson-promotion");
    let (r, p, _, _, id) = judged("public", &split, None);
    assert_eq!(
        r.stdout,
        format!(
            "Lesson {id} is now rejected: not every judge passed it; its verdict stays on the ledger.\n"
        )
    );
    assert_eq!(p["verdict"]["reason"], "jury_not_unanimous");
    assert_eq!(p["verdict"]["rubric_id"], "lesson-promotion-public");
    assert_eq!(p["verdict"]["gate_policy"], "unanimous");
    assert!(p["promoted_at"].is_string(), "stamped, the record kept");
}

#[test]
fn three_judges_one_dissent_passes_org_and_fails_public() {
    let rubrics = json!({"min_criterion_coverage": 0.6, "rubrics": [
        {"id": "lesson-promotion", "criteria": [{"name": "grounding", "weight": 0.45, "min_pass": 0.7},
            {"name": "scope_accuracy", "weight": 0.35, "min_pass": 0.7}, {"name": "generality", "weight": 0.2, "min_pass": 0.6}],
         "score_threshold": 0.75, "judge_types": ["standard", "adversarial", "domain"], "gate_policy": "majority"},
        {"id": "lesson-promotion-public", "criteria": [{"name": "grounding", "weight": 0.32, "min_pass": 0.7},
            {"name": "scope_accuracy", "weight": 0.24, "min_pass": 0.7}, {"name": "generality", "weight": 0.14, "min_pass": 0.6},
            {"name": "disclosure", "weight": 0.3, "min_pass": 0.9}],
         "score_threshold": 0.75, "judge_types": ["standard", "adversarial", "domain"], "gate_policy": "unanimous"}]})
    .to_string();
    let panel = verdicts(&[
        ("standard", 0.9, true),
        ("adversarial", 0.9, true),
        ("domain", 0.8, false),
    ]);
    let (_, p, ..) = judged("org", &panel, Some(&rubrics));
    assert_eq!(
        (p["status"].as_str(), p["verdict"]["reason"].as_str()),
        (Some("approved"), Some("gate_passed"))
    );
    let (_, p, ..) = judged("public", &panel, Some(&rubrics));
    assert_eq!(
        (p["status"].as_str(), p["verdict"]["reason"].as_str()),
        (Some("rejected"), Some("jury_not_unanimous"))
    );
}

#[test]
fn below_threshold_and_floor_violations_name_their_reason() {
    let low = verdicts(&[("standard", 0.72, true), ("adversarial", 0.72, true)]);
    let (_, p, ..) = judged("org", &low, None);
    assert_eq!(p["verdict"]["reason"], "below_threshold");
    let floor = json!([
        {"judge_type": "standard", "score": 0.9, "passed": true,
         "criterion_scores": {"grounding": 0.95, "scope_accuracy": 0.95, "generality": 0.95}},
        {"judge_type": "adversarial", "score": 0.9, "passed": true,
         "criterion_scores": {"grounding": 0.95, "scope_accuracy": 0.65, "generality": 0.95}}
    ])
    .to_string();
    let (_, p, ..) = judged("org", &floor, None);
    assert_eq!(p["status"], "rejected");
    assert_eq!(p["verdict"]["reason"], "criterion_floor");
    assert_eq!(p["verdict"]["failed_criterion"], "scope_accuracy");
}

#[test]
fn an_unusable_panel_writes_nothing_and_exits_2() {
    let one = verdicts(&[("standard", 0.9, true)]);
    let dup = verdicts(&[("standard", 0.9, true), ("standard", 0.9, true)]);
    let mut string_passed: Value = serde_json::from_str(&verdicts(&[
        ("standard", 0.9, true),
        ("adversarial", 0.9, true),
    ]))
    .unwrap();
    string_passed[0]["passed"] = json!("true");
    let missing_floor = json!([
        {"judge_type": "standard", "score": 0.9, "passed": true, "criterion_scores": {"grounding": 0.9, "scope_accuracy": 0.9, "generality": 0.9}},
        {"judge_type": "adversarial", "score": 0.9, "passed": true, "criterion_scores": {"grounding": 0.9, "scope_accuracy": 0.9, "generality": 0.9}}
    ]);
    let thin = json!([
        {"judge_type": "standard", "score": 0.9, "passed": true, "criterion_scores": {"generality": 0.9}},
        {"judge_type": "adversarial", "score": 0.9, "passed": true, "criterion_scores": {"generality": 0.9}}
    ]);
    // Coverage is only reachable when some criteria carry no floor.
    let unfloored = json!({"min_criterion_coverage": 0.6, "rubrics": [
        {"id": "lesson-promotion", "criteria": [{"name": "grounding", "weight": 0.45},
            {"name": "scope_accuracy", "weight": 0.35}, {"name": "generality", "weight": 0.2, "min_pass": 0.6}],
         "score_threshold": 0.75, "judge_types": ["standard", "adversarial"], "gate_policy": "majority"},
        {"id": "lesson-promotion-public", "criteria": [{"name": "grounding", "weight": 0.32, "min_pass": 0.7},
            {"name": "scope_accuracy", "weight": 0.24, "min_pass": 0.7}, {"name": "generality", "weight": 0.14, "min_pass": 0.6},
            {"name": "disclosure", "weight": 0.3, "min_pass": 0.9}],
         "score_threshold": 0.75, "judge_types": ["standard", "adversarial"], "gate_policy": "unanimous"}]})
    .to_string();
    let cases: Vec<(&str, String, Option<&str>, &str)> = vec![
        ("org", one, None, "panel"),
        ("org", dup, None, "panel"),
        ("org", string_passed.to_string(), None, "panel"),
        (
            "public",
            missing_floor.to_string(),
            None,
            "no judge scored these floored criteria, so the panel cannot be trusted: disclosure",
        ),
        (
            "org",
            thin.to_string(),
            Some(&unfloored),
            "the panel scored only 0.2 of the rubric weight (minimum 0.6)",
        ),
        ("org", "this is not json".into(), None, "not JSON"),
    ];
    for (vis, panel, rubrics, why) in cases {
        let (r, p, before, after, id) = judged(vis, &panel, rubrics);
        assert_eq!(r.code, 2, "{panel}: {}", r.stderr);
        r.assert_stderr(&format!(
            "lesson {id} could not be judged; it stays confirmed"
        ));
        assert!(r.stderr.contains(why), "{why:?} in {}", r.stderr);
        assert_eq!(before, after, "nothing written for {panel}");
        assert_eq!(p["status"], "confirmed");
    }
}

#[test]
fn the_disclosure_scanner_blocks_a_public_lesson_whatever_the_judges_say() {
    let env = TestEnv::new();
    env.init();
    let leaky = json!({"claim": "Builds fail against the registry on npm 10.2.4",
        "rationale": "The mirror at artifacts.corp.internal rejects npm 10.2.4 lockfiles.",
        "evidence": {"resolution": "Pin npm to 10.2.3 and mail ops@acme-internal.com for access."},
        "applies_to": {"stack": ["npm"], "scope": {"kind": "versioned", "versions": {"npm": "=10.2.4"}},
                       "file_patterns": [], "task_kinds": []}});
    env.model_answers(&leaky.to_string());
    let f = env.write("a.json", POSITIVE);
    let id = crate::common::lesson_of(env.lore(&["ingest", f.to_str().unwrap()]).ok());
    env.confirm(&id, "public");
    let panel = verdicts(&[("standard", 0.95, true), ("adversarial", 0.95, true)]);
    let r = env.lore(&["judge", &id, &panel]);
    assert_eq!(r.code, 0);
    assert_eq!(
        r.stdout,
        format!(
            "Lesson {id} is now rejected: the disclosure scanner found what must not be shared; its verdict stays on the ledger.\n"
        )
    );
    let p = env.proposal(&id);
    assert_eq!(p["status"], "rejected");
    assert_eq!(p["verdict"]["reason"], "disclosure_scan");
    assert_eq!(p["verdict"]["failed_criterion"], "disclosure");
    assert_eq!(
        env.git(&["rev-parse", "--verify", "-q", "pool/public"])
            .code,
        1,
        "nothing reached the public pool"
    );
}

#[test]
fn judge_all_asks_first_and_records_each_verdict() {
    let (env, id) = confirmed("org");
    env.git(&["config", "--unset", "lore.judge.command"]).ok();
    let r = env.lore(&["judge", "--all"]);
    r.assert_refused("1 confirmed lesson to judge with the offline judges\n");
    r.assert_stderr("refusing to judge without --yes");
    assert_eq!(env.proposal(&id)["status"], "confirmed");
    let r = env.lore(&["judge", "--all", "--yes"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    r.assert_stderr("judged: 1 lesson approved\n");
    assert_eq!(env.proposal(&id)["status"], "approved");
    let model = env.git(&[
        "log",
        "-1",
        "--format=%(trailers:key=Lore-Model,valueonly)",
        "ledger~1",
    ]);
    assert_eq!(
        model.ok().trim(),
        "offline",
        "the judge commit names its judges' model"
    );
    // A judge program that fails is an outage: could not judge, nothing written.
    let (env, id) = confirmed("org");
    let n = env.ledger_commits().len();
    let r = env.lore(&["judge", "--all", "--yes"]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    r.assert_stderr(&format!(
        "judged: no lessons approved; 1 could not be judged (nothing written for them; run it again): {id}\n"
    ));
    let repo = env.repo().display().to_string();
    assert!(
        r.stderr.ends_with(&format!("\njudge: a judge program gave no answer; check the program `git -C {repo} config lore.judge.command` shows, or use the built-in offline backend: `git -C {repo} config lore.judge.backend offline`\n")),
        "{}",
        r.stderr
    );
    assert_eq!(env.ledger_commits().len(), n);
    // Following the advice judges it.
    env.git(&["config", "lore.judge.backend", "offline"]).ok();
    env.lore(&["judge", "--all", "--yes"])
        .assert_stderr("judged: 1 lesson approved\n");
}

#[test]
fn judge_id_runs_the_configured_jury_on_one_lesson() {
    let (env, id) = confirmed("org");
    env.git(&["config", "--unset", "lore.judge.command"]).ok();
    let before = env.ledger_commits();
    // No terminal to ask on: it says which lesson and refuses.
    let r = env.lore(&["judge", &id]);
    r.assert_refused(&format!(
        "lesson {id} (org) to judge with the offline judges\ngit-lore: refusing to judge without --yes"
    ));
    // Ids that name no confirmed lesson: refused by name.
    for (bad, says) in [
        (
            "not-an-id",
            "not an id or a prefix of one: \"not-an-id\"".to_owned(),
        ),
        (
            "7zzzz",
            "no lesson or artifact id starts with 7ZZZZ".to_owned(),
        ),
        (
            "7ZZZZZZZZZZZZZZZZZZZZZZZZZ",
            "lesson 7ZZZZZZZZZZZZZZZZZZZZZZZZZ not found".to_owned(),
        ),
    ] {
        let r = env.lore(&["judge", bad, "--yes"]);
        r.assert_refused(&says);
        assert_eq!(r.stdout, "");
    }
    // Verdicts given are judged as given: --yes belongs to the judges run.
    env.lore(&["judge", &id, "[]", "--yes"])
        .assert_refused("the argument '[VERDICTS]' cannot be used with '--yes'");
    assert_eq!(env.ledger_commits(), before, "nothing written");
    // Any prefix of its id, and --yes: judged by the offline jury, then
    // promoted.
    let r = env.lore(&["judge", &id[..12].to_lowercase(), "--yes"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(
        r.stdout,
        format!("Lesson {id} is now approved.\nLesson {id} promoted to pool/org.\n")
    );
    assert_eq!(env.proposal(&id)["status"], "approved");
    assert_eq!(env.ledger_commits().len(), before.len() + 2, "judge, stamp");
    let judge = |key: &str| {
        env.git(&[
            "log",
            "-1",
            &format!("--format=%(trailers:key={key},valueonly)"),
            "ledger~1",
        ])
        .ok()
        .trim()
        .to_owned()
    };
    assert_eq!(
        [
            judge("Lore-Action"),
            judge("Lore-Lesson"),
            judge("Lore-Status"),
            judge("Lore-Model")
        ],
        ["judge", id.as_str(), "approved", "offline"]
    );
    assert!(
        env.git(&[
            "cat-file",
            "-e",
            &format!("pool/org:{}", fanout("lessons", &id))
        ])
        .code
            == 0
    );
    // Judged: a second time is refused, naming its status.
    let after = env.ledger_commits();
    env.lore(&["judge", &id, "--yes"]).assert_refused(&format!(
        "lesson {id} is not confirmed; its status is: approved"
    ));
    assert_eq!(env.ledger_commits(), after);
    // A judge program that gives no answer: could not judge, nothing written.
    let (env, id) = confirmed("org");
    let before = env.ledger_commits();
    let r = env.lore(&["judge", &id, "--yes"]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    r.assert_stderr(&format!(
        "lesson {id} could not be judged; it stays confirmed"
    ));
    r.assert_stderr("judge: a judge program gave no answer; check the program");
    assert_eq!(env.ledger_commits(), before);
    assert_eq!(env.proposal(&id)["status"], "confirmed");
}

#[test]
fn status_counts_what_awaits_a_decision() {
    let env = TestEnv::new();
    let id = pending(&env);
    assert_eq!(
        env.lore(&["status"]).ok().lines().next(),
        Some("lessons pending: 1")
    );
    env.confirm(&id, "org");
    let j: Value = serde_json::from_str(env.lore(&["status", "--json"]).ok()).unwrap();
    assert_eq!(j["pending"], 0);
    assert_eq!(j["confirmed"], 1);
    assert_eq!(j["awaiting_decision"], 1);
    let none = env.lore(&["list"]);
    assert_eq!(none.ok(), "");
    none.assert_stderr("No pending lessons.");
    assert_eq!(env.lore(&["list", "--json"]).ok(), "[]\n");
}

#[test]
fn a_rubrics_file_whose_weights_do_not_sum_to_one_is_refused() {
    let env = TestEnv::new();
    env.init();
    let bad = json!({"min_criterion_coverage": 0.6, "rubrics": [
        {"id": "lesson-promotion", "criteria": [{"name": "grounding", "weight": 0.5, "min_pass": 0.7},
            {"name": "scope_accuracy", "weight": 0.35, "min_pass": 0.7}],
         "score_threshold": 0.75, "judge_types": ["standard", "adversarial"], "gate_policy": "majority"}]});
    let f = env.write("bad.json", &bad.to_string());
    let n = env.ledger_commits().len();
    let r = env.lore(&["rubrics", f.to_str().unwrap()]);
    r.assert_refused("rubrics file refused");
    assert!(
        r.stderr.contains("lesson-promotion"),
        "names the rubric: {}",
        r.stderr
    );
    assert_eq!(env.ledger_commits().len(), n, "nothing written");
    // The builtins stay in force and are shown.
    let shown: Value = serde_json::from_str(env.lore(&["rubrics"]).ok()).unwrap();
    assert_eq!(shown["rubrics"][1]["gate_policy"], "unanimous");
}

#[test]
fn a_verdict_is_not_applied_to_a_lesson_that_changed_while_the_jury_deliberated() {
    let (env, id) = confirmed("org");
    // Judges that deliberate until the test lets them answer, and would
    // approve anything.
    let verdict = env.passing_verdict(0.95, "fine");
    let gate = env.gate("judge");
    env.judge_stub(
        "slow-judge",
        &format!(
            "cat >/dev/null; {}; cat {}",
            gate.script(),
            verdict.display()
        ),
    );
    let child = env.spawn_lore(&["judge", "--all", "--yes"]);
    // A judge has read its case: the jury is deliberating.
    gate.wait_started();
    // Meanwhile the human widens the scope to "every version ever released".
    env.lore(&["unconfirm", &id]).ok();
    env.confirm_justified(&id, "org", "holds for every version ever released");
    gate.release();
    let r = crate::common::Run::from(child.wait_with_output().unwrap());
    assert_eq!(r.code, 2, "{}\n{}", r.stdout, r.stderr);
    r.assert_stdout("changed while the jury deliberated");
    let p = env.proposal(&id);
    assert_eq!(
        p["status"], "confirmed",
        "no verdict on content the jury never saw"
    );
    assert_eq!(
        p["candidate"]["applies_to"]["scope"]["kind"],
        "version_independent"
    );
}

#[test]
fn verdicts_are_checked_only_after_the_lesson_is() {
    let env = TestEnv::new();
    let id = pending(&env);
    // A missing lesson, and a pending one, are refusals (exit 1).
    let r = env.lore(&["judge", "01KZ4A1B2C3D4E5F6G7H8J9K0M", "not json"]);
    r.assert_refused("lesson 01KZ4A1B2C3D4E5F6G7H8J9K0M not found");
    let r = env.lore(&["judge", &id, "not json"]);
    r.assert_refused(&format!(
        "lesson {id} is not confirmed; its status is: pending"
    ));
    env.confirm(&id, "private");
    let r = env.lore(&["judge", &id, "not json"]);
    assert_eq!(r.code, 0, "a private lesson needs no panel: {}", r.stderr);
    assert_eq!(env.proposal(&id)["verdict"]["reason"], "private_no_jury");
}

#[test]
fn the_author_secret_is_created_once_and_never_replaced() {
    use std::os::unix::fs::PermissionsExt;
    let env = TestEnv::new();
    let id = pending(&env);
    let secret = env.repo().join("keys/author_secret");
    let original = std::fs::read_to_string(&secret).unwrap();
    // A repository whose secret is gone gets a new one at its first promote.
    std::fs::remove_file(&secret).unwrap();
    env.confirm(&id, "private");
    env.lore(&["judge", &id, "[]"]).ok();
    let created = std::fs::read_to_string(&secret).unwrap();
    assert_ne!(created, original);
    assert_eq!(created.trim().len(), 64);
    assert_eq!(
        std::fs::metadata(&secret).unwrap().permissions().mode() & 0o777,
        0o600
    );
    // A malformed secret is refused, never replaced.
    std::fs::write(&secret, "not hex\n").unwrap();
    let id2 = {
        let f = env.write(
            "b.json",
            &POSITIVE.replace("01KZ45MKAM734ZS7JK24D2DK0R", "01KZ45MKAM734ZS7JK24D2DK0S"),
        );
        env.model_answers(CANDIDATE);
        crate::common::lesson_of(env.lore(&["ingest", f.to_str().unwrap()]).ok())
    };
    env.confirm(&id2, "private");
    let r = env.lore(&["judge", &id2, "[]"]);
    r.assert_stderr("was judged but not promoted");
    assert_eq!(std::fs::read_to_string(&secret).unwrap(), "not hex\n");
}

/// Runs `git-lore args…` on a pseudo-terminal (util-linux `script`), typing
/// `input`, so the command sees a terminal on stdin.
fn on_a_terminal(env: &TestEnv, args: &str, input: &str) -> String {
    let cmd = format!("{} {args}", env!("CARGO_BIN_EXE_git-lore"));
    let mut c = std::process::Command::new("script");
    c.args(["-qec", &cmd, "/dev/null"])
        .env_clear()
        .envs(env.vars())
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped());
    let o = crate::common::feed(&mut c, input);
    String::from_utf8_lossy(&o.stdout).replace('\r', "")
}

#[test]
fn log_is_newest_first_across_branches_and_pages_on_a_terminal() {
    let env = TestEnv::new();
    let id = pending(&env);
    let at = |now: &str, args: &[&str]| {
        let out = env
            .lore_cmd(args)
            .env("GIT_LORE_NOW", now)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    };
    at("2026-09-01T00:00:00Z", &["confirm", &id, "private"]);
    // judge writes the verdict, the pool entry, then the ledger stamp.
    at("2026-09-02T00:00:00Z", &["judge", &id, "[]"]);
    let all = env.lore(&["log"]).ok().to_owned();
    let dates: Vec<&str> = all
        .lines()
        .filter(|l| !l.starts_with(' '))
        .map(|l| l.split_whitespace().nth(1).unwrap())
        .collect();
    let mut sorted = dates.clone();
    sorted.sort_by(|a, b| b.cmp(a));
    assert_eq!(dates, sorted, "newest first:\n{all}");
    let three = env.lore(&["log", "-n", "3"]).ok().to_owned();
    let heads: Vec<&str> = three.lines().filter(|l| !l.starts_with(' ')).collect();
    assert_eq!(heads.len(), 3, "{three}");
    assert!(
        heads.iter().any(|l| l.contains(" pool/local ")),
        "the pool commit is among the newest: {three}"
    );
    assert!(heads[0].contains(" ledger "), "{three}");
    // On a terminal the text goes through GIT_PAGER; piped it does not.
    assert!(!all.contains("PAGED"));
    let paged = on_a_terminal(&env, "log -n 1", "");
    assert!(
        !paged.contains("PAGED"),
        "no pager configured means less, which ran: {paged}"
    );
    env.config("core.pager", "sed s/^/PAGED:/");
    let paged = on_a_terminal(&env, "log -n 1", "");
    assert!(paged.starts_with("PAGED:"), "{paged}");
}

#[test]
fn ids_show_their_shortest_unique_prefix_in_bold_on_a_terminal() {
    let env = TestEnv::new();
    let id = pending(&env);
    let short = &id[..6];
    let bold = format!("\u{1b}[1m{short}\u{1b}[0m");
    // Piped: the prefix alone, plain.
    let piped = env.lore(&["list"]);
    assert!(
        piped.ok().starts_with(&format!("{short}  ")),
        "{}",
        piped.stdout
    );
    assert!(!piped.stdout.contains('\u{1b}'));
    // On a terminal: the prefix bold (list), and bold within the whole id
    // (show), the rest dim.
    let listed = on_a_terminal(&env, "list", "");
    assert!(listed.starts_with(&format!("{bold}  ")), "{listed:?}");
    let shown = on_a_terminal(&env, &format!("show {short}"), "");
    assert!(
        shown.starts_with(&format!(
            "id:          {bold}\u{1b}[2m{}\u{1b}[0m (short: {short})\n",
            &id[6..]
        )),
        "{shown:?}"
    );
    // NO_COLOR: plain on a terminal too.
    let cmd = format!("NO_COLOR=1 {} list", env!("CARGO_BIN_EXE_git-lore"));
    let mut c = std::process::Command::new("script");
    c.args(["-qec", &cmd, "/dev/null"])
        .env_clear()
        .envs(env.vars())
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped());
    let o = crate::common::feed(&mut c, "");
    let plain = String::from_utf8_lossy(&o.stdout).replace('\r', "");
    assert!(plain.starts_with(&format!("{short}  ")), "{plain:?}");
    assert!(!plain.contains('\u{1b}'), "{plain:?}");
}

#[test]
fn judge_all_asks_on_a_terminal_and_does_what_it_is_told() {
    let (env, id) = confirmed("org");
    env.git(&["config", "--unset", "lore.judge.command"]).ok();
    let no = on_a_terminal(&env, "judge --all", "n\n");
    assert!(no.contains("Proceed? [y/N]"), "{no}");
    assert!(no.contains("nothing judged"), "{no}");
    assert_eq!(env.proposal(&id)["status"], "confirmed");
    let yes = on_a_terminal(&env, "judge --all", "y\n");
    assert!(
        yes.contains(&format!("Lesson {id} is now approved.")),
        "{yes}"
    );
    assert_eq!(env.proposal(&id)["status"], "approved");
}

#[test]
fn sharing_without_a_terminal_needs_yes_and_history_says_no_one_was_asked() {
    let env = TestEnv::new();
    let id = pending(&env);
    // private stays on this machine: no --yes needed.
    env.confirm(&id, "private");
    env.lore(&["unconfirm", &id]).ok();
    let before = env.ledger_commits().len();
    for visibility in ["org", "public"] {
        let r = env.lore(&["confirm", &id, visibility]);
        r.assert_refused(&format!(
            "refusing to confirm {id} for {visibility} without --yes: stdin is not a terminal"
        ));
    }
    assert_eq!(
        env.ledger_commits().len(),
        before,
        "a refusal writes nothing"
    );
    assert_eq!(env.proposal(&id)["status"], "pending");
    // --yes from a script: done, and the commit says nobody was asked.
    env.confirm(&id, "org");
    let message = env
        .git(&["log", "-1", "--format=%B", "ledger"])
        .ok()
        .to_owned();
    assert!(
        message.contains("Lore-Visibility: org\nLore-Interactive: no\n"),
        "{message}"
    );
    env.lore(&["verify"]).ok();
    // On a terminal a person typed it: no question, no such trailer.
    env.lore(&["unconfirm", &id]).ok();
    let out = on_a_terminal(
        &env,
        &format!("confirm {id} public --justification 'holds for every release'"),
        "",
    );
    assert!(
        out.contains(&format!("Confirmed {id} at public visibility.")),
        "{out}"
    );
    let message = env
        .git(&["log", "-1", "--format=%B", "ledger"])
        .ok()
        .to_owned();
    assert!(message.contains("Lore-Visibility: public\n"), "{message}");
    assert!(!message.contains("Lore-Interactive"), "{message}");
}

#[test]
fn pass_asks_on_a_terminal_and_needs_yes_elsewhere() {
    let env = TestEnv::new();
    let id = pending(&env);
    let r = env.lore(&["pass", &id]);
    r.assert_refused("refusing to pass without --yes: stdin is not a terminal to ask on");
    assert_eq!(env.proposal(&id)["status"], "pending");
    let no = on_a_terminal(&env, &format!("pass {id}"), "n\n");
    assert!(
        no.contains("It can never be confirmed afterwards. [y/N]"),
        "{no}"
    );
    assert!(no.contains("nothing passed"), "{no}");
    assert_eq!(env.proposal(&id)["status"], "pending");
    let yes = on_a_terminal(&env, &format!("pass {}", &id[..12].to_lowercase()), "y\n");
    assert!(yes.contains(&format!("Passed on {id}.")), "{yes}");
    assert_eq!(env.proposal(&id)["status"], "passed");
}

#[test]
fn a_refused_promote_writes_nothing_not_even_the_author_secret() {
    let env = TestEnv::new();
    let id = pending(&env);
    std::fs::remove_file(env.repo().join("keys/author_secret")).unwrap();
    env.git(&["config", "--unset", "gpg.ssh.allowedSignersFile"])
        .ok();
    env.confirm(&id, "org");
    let r = env.lore(&[
        "judge",
        &id,
        include_str!("../../src/review/testdata/judge-verdicts.pass.json"),
    ]);
    assert_eq!(r.code, 0, "the verdict stands: {}", r.stderr);
    r.assert_stderr("was judged but not promoted");
    r.assert_stderr("promote needs gpg.ssh.allowedSignersFile");
    assert!(
        !env.repo().join("keys/author_secret").exists(),
        "a refusal writes nothing"
    );
    assert_eq!(
        env.git(&["rev-parse", "--verify", "-q", "pool/org"]).code,
        1
    );
    assert!(env.proposal(&id)["promoted_at"].is_null());
}

/// A private lesson judged while promote cannot run (no
/// `gpg.ssh.allowedSignersFile`: the pools would have nobody to sign them),
/// checked: judge says it is approved but not promoted, the ledger holds it
/// approved and unpromoted, and pool/local has no entry for it. Its id and
/// the allowed-signers file to configure again.
#[track_caller]
fn judged_unpromoted(env: &TestEnv) -> (String, String) {
    let id = pending(env);
    env.confirm(&id, "private");
    let signers = env
        .git(&["config", "gpg.ssh.allowedSignersFile"])
        .ok()
        .trim()
        .to_owned();
    env.git(&["config", "--unset", "gpg.ssh.allowedSignersFile"])
        .ok();
    let r = env.lore(&["judge", &id, "[]"]);
    assert_eq!(r.stdout, format!("Lesson {id} is now approved.\n"));
    r.assert_stderr(&format!("lesson {id} was judged but not promoted"));
    let p = env.proposal(&id);
    assert_eq!(p["status"], "approved");
    assert!(p["promoted_at"].is_null(), "{p:#}");
    assert_ne!(
        env.git(&[
            "cat-file",
            "-e",
            &format!("pool/local:{}", fanout("lessons", &id))
        ])
        .code,
        0,
        "promoted to pool/local"
    );
    (id, signers)
}

#[test]
fn a_verdict_left_unpromoted_is_reported_and_finished() {
    let env = TestEnv::new();
    let (id, signers) = judged_unpromoted(&env);
    env.config("gpg.ssh.allowedSignersFile", &signers);
    let r = env.lore(&["status"]);
    r.assert_ok_stdout("lessons judged but not promoted: 1 (an interrupted run; `git lore promote --all` finishes them)\n");
    let j: Value = serde_json::from_str(env.lore(&["status", "--json"]).ok()).unwrap();
    assert_eq!(j["unpromoted"], 1);
    // judge --all finishes it before judging anything else.
    let r = env.lore(&["judge", "--all", "--yes"]);
    assert_eq!(
        r.ok(),
        format!(
            "Lesson {id} was approved by an earlier run that stopped before promoting it.\nLesson {id} promoted to pool/local.\n"
        )
    );
    r.assert_stderr("no confirmed lessons to judge with judge model claude-opus-4-1; 1 lesson judged earlier to promote\n");
    let j: Value = serde_json::from_str(env.lore(&["status", "--json"]).ok()).unwrap();
    assert_eq!(j["unpromoted"], 0);
    assert_eq!(
        env.lore(&["promote", "--all"]).stderr,
        "promote: no lessons promoted\n"
    );
    env.assert_verifies();
}

#[test]
fn promote_all_finishes_every_interrupted_promote() {
    let env = TestEnv::new();
    let (id, signers) = judged_unpromoted(&env);
    let r = env.lore(&["promote", "--all"]);
    r.assert_refused(&format!(
        "lesson {id} was not promoted: promote needs gpg.ssh.allowedSignersFile"
    ));
    env.config("gpg.ssh.allowedSignersFile", &signers);
    let r = env.lore(&["promote", "--all"]);
    assert_eq!(r.ok(), format!("Lesson {id} promoted to pool/local.\n"));
    assert_eq!(r.stderr, "promote: 1 lesson promoted\n");
}

#[test]
fn a_judge_all_killed_mid_run_is_finished_by_the_next_one() {
    let env = TestEnv::new();
    env.init();
    let arts: Vec<_> = (0..120).map(|n| crate::common::proposable(40, n)).collect();
    let f = env.artifacts_file("many.jsonl", &arts);
    let out = env.lore(&["ingest", f.to_str().unwrap()]).ok().to_owned();
    let ids = crate::common::lessons_of(&out);
    assert_eq!(ids.len(), 120);
    let script: String = ids
        .iter()
        .map(|id| format!("\"$LORE\" confirm {id} private >/dev/null || exit 1\n"))
        .collect();
    let runner = env.write("confirm.sh", &script);
    let st = std::process::Command::new("/bin/sh")
        .arg(&runner)
        .env_clear()
        .envs(env.vars())
        .env("LORE", env!("CARGO_BIN_EXE_git-lore"))
        .status()
        .unwrap();
    assert!(st.success());
    let mut child = env
        .lore_cmd(&["judge", "--all", "--yes"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    // Kill it once it has promoted something and is well under way.
    let pool_entries = |env: &TestEnv| {
        let r = env.git(&["ls-tree", "-r", "--name-only", "pool/local", "lessons"]);
        if r.code == 0 {
            r.stdout.lines().count()
        } else {
            0
        }
    };
    for _ in 0..4000 {
        if pool_entries(&env) >= 3 || child.try_wait().unwrap().is_some() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(2));
    }
    // SIGKILL: no chance to finish what it was writing.
    let _ = child.kill();
    child.wait().unwrap();
    let killed_at = pool_entries(&env);
    assert!(
        killed_at < 60,
        "killed before the end ({killed_at} promoted)"
    );
    env.assert_fsck();
    env.assert_verifies();
    // The next run finishes everything: every lesson approved and promoted.
    let r = env.lore(&["judge", "--all", "--yes"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(pool_entries(&env), 120);
    let j: Value = serde_json::from_str(env.lore(&["status", "--json"]).ok()).unwrap();
    assert_eq!(
        (j["approved"].as_u64(), j["unpromoted"].as_u64()),
        (Some(120), Some(0))
    );
    env.assert_verifies();
}

/// `judge ID` finds the lesson confirmed, asks, and judges what it found:
/// a lesson decided by another run while the person was asked is said to
/// be decided meanwhile (as `judge --all` says it), not refused afresh.
#[test]
fn judge_id_judges_the_lesson_it_asked_about() {
    use std::io::{BufRead, Write};
    let (env, id) = confirmed("org");
    let command = format!(
        "{} judge {id} --backend offline; echo \"[exit $?]\"",
        env!("CARGO_BIN_EXE_git-lore")
    );
    let mut child = std::process::Command::new("script")
        .args(["-qec", &command, "/dev/null"])
        .env_clear()
        .envs(env.vars())
        .env("TERM", "xterm")
        .current_dir(env.path())
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("run script");
    let mut out = std::io::BufReader::new(child.stdout.take().unwrap());
    let mut seen = Vec::new();
    // The question, then another run decides the lesson, then the answer.
    while !String::from_utf8_lossy(&seen).contains("Proceed? [y/N]") {
        let buf = out.fill_buf().unwrap();
        assert!(
            !buf.is_empty(),
            "no question: {}",
            String::from_utf8_lossy(&seen)
        );
        seen.extend_from_slice(buf);
        let n = buf.len();
        out.consume(n);
    }
    let panel = env.write(
        "pass.json",
        include_str!("../../src/review/testdata/judge-verdicts.pass.json"),
    );
    env.lore(&["judge", &id, &format!("@{}", panel.display())])
        .assert_ok_stdout("promoted to pool/org");
    let commits = env.ledger_commits();
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(b"y\n").unwrap();
    drop(stdin);
    let mut rest = String::new();
    std::io::Read::read_to_string(&mut out, &mut rest).unwrap();
    child.wait().unwrap();
    let text = format!("{}{rest}", String::from_utf8_lossy(&seen)).replace("\r\n", "\n");
    assert!(
        text.contains(&format!(
            "lesson {id} (org) to judge with the offline judges"
        )),
        "{text}"
    );
    assert!(
        text.contains(&format!(
            "Lesson {id} was decided meanwhile; it is approved.\n"
        )),
        "{text}"
    );
    assert!(text.trim_end().ends_with("[exit 0]"), "{text}");
    assert_eq!(env.ledger_commits(), commits, "nothing more was written");
}
