//! Ingest: the failure taxonomy (verdict vs outage), provenance, idempotency
//! from history, and concurrent ingests.

use crate::common::{artifact, fanout, outcomes, proposable, ulid, TestEnv};

const REAL_VITEST: &str = include_str!("../fixtures/artifacts/real-vitest-no-resolution.json");
const POSITIVE: &str = include_str!("../fixtures/artifacts/positive-synthetic.json");
const CANDIDATE: &str = include_str!("../fixtures/responses/candidate.json");

fn vitest_id() -> &'static str {
    "01KZ45MKAM734ZS7JK24D2DK0R"
}

/// Ingests one artifact through the command backend with `script` as the
/// model, and checks nothing but the exit code and line.
fn ingest_with(env: &TestEnv, script: &str, artifact_json: &str) -> crate::common::Run {
    env.model_stub(script);
    let f = env.write("a.json", artifact_json);
    env.lore(&["ingest", f.to_str().unwrap()])
}

#[test]
fn each_outage_leaves_the_artifact_untouched_and_writes_nothing() {
    let env = TestEnv::new();
    env.init();
    env.config("lore.transform.timeout", "1");
    let before = env.ledger_commits();
    let cases = [
        ("exec sleep 30", "model program"),
        ("sleep 30 & sleep 30; wait", "did not answer within 1s"),
        (
            "echo boom >&2; exit 3",
            "the model program failed (exited with status 3): boom",
        ),
        (
            "kill -9 $$",
            "the model program failed (killed by a signal)",
        ),
        ("cat >/dev/null", "the model printed nothing"),
        ("printf '  \\n\\n'", "the model printed nothing"),
    ];
    for (script, why) in cases {
        let r = ingest_with(&env, script, REAL_VITEST);
        assert_eq!(r.code, 2, "{script}: {}\n{}", r.stdout, r.stderr);
        assert!(
            r.stdout.starts_with(&format!("untouched {} ", vitest_id())),
            "{script}: {}",
            r.stdout
        );
        assert!(
            r.stdout.contains(why),
            "{script}: expected {why:?} in {}",
            r.stdout
        );
        r.assert_stderr(
            "no lessons proposed; 1 artifact untouched (nothing written; run it again)\n",
        );
        assert_eq!(
            env.ledger_commits(),
            before,
            "{script}: nothing may be written"
        );
    }
    // A program that is not there at all.
    env.config("lore.transform.command", "/nonexistent/model --flag");
    let f = env.write("a.json", REAL_VITEST);
    let r = env.lore(&["ingest", f.to_str().unwrap()]);
    assert_eq!(r.code, 2);
    assert!(r.stdout.contains("could not be started"), "{}", r.stdout);
    assert_eq!(env.ledger_commits(), before);
    assert_eq!(
        env.lore(&["seen", vitest_id()]).ok(),
        format!("{} unseen\n", vitest_id())
    );
    env.assert_fsck();
}

#[test]
fn each_verdict_is_recorded_as_a_signed_decline() {
    let cases: [(&str, &str, &str); 6] = [
        (
            r#"echo '{"eligible": false, "reason": "no_resolution"}'"#,
            "no_resolution",
            "",
        ),
        (
            r#"echo '{"eligible": false, "reason": "no_versions"}'"#,
            "no_versions",
            "",
        ),
        (
            r#"echo '{"eligible": false, "reason": "tired"}'"#,
            "transform_invalid",
            " (the model refused with an unrecognised reason: \"tired\")",
        ),
        (
            "echo 'I cannot help with that.'",
            "transform_invalid",
            " (the model output is not JSON and has no complete JSON object in its first 8192 characters)",
        ),
        (
            "head -c 10000000 /dev/zero | tr '\\0' 'x'",
            "transform_invalid",
            " (the model output is not JSON and has no complete JSON object in its first 8192 characters)",
        ),
        (
            r#"echo '{"claim":"c","rationale":"r","evidence":{"resolution":"x"},"applies_to":{"stack":["vite"],"scope":{"kind":"versioned","versions":{"vitest":"<6"}},"file_patterns":[],"task_kinds":[]}}'"#,
            "schema_invalid",
            " (/applies_to/scope/versions/vitest: \"vitest\" is not named in applies_to.stack; every versions key must be a stack entry)",
        ),
    ];
    for (script, reason, detail) in cases {
        let env = TestEnv::new();
        env.init();
        let r = ingest_with(&env, script, REAL_VITEST);
        assert_eq!(r.code, 0, "{script}: {}", r.stderr);
        // People read the reason in words; the record and the trailer
        // keep its code.
        let words = match reason {
            "no_resolution" => "no fix in it",
            "no_versions" => "no package version to scope it by",
            "transform_invalid" => "the model's answer was unusable",
            _ => "not a valid lesson",
        };
        assert_eq!(
            outcomes(&r.stdout),
            format!("declined {} {words}{detail}\n", vitest_id()),
            "{script}"
        );
        let record: serde_json::Value = serde_json::from_str(
            &env.ledger_file(&fanout("declined", vitest_id()))
                .expect("decline record"),
        )
        .unwrap();
        assert_eq!(record["reason"], reason);
        assert_eq!(record["artifact_id"], vitest_id());
        let trailers = env.git(&[
            "log",
            "-1",
            "--format=%(trailers:key=Lore-Reason,valueonly,separator=)",
            "ledger",
        ]);
        assert_eq!(trailers.ok().trim(), reason);
        assert_eq!(
            env.git(&["log", "-1", "--format=%G?", "ledger"]).ok(),
            "G\n"
        );
        assert_eq!(
            env.lore(&["seen", vitest_id()]).ok(),
            format!("{} declined {words}{detail}\n", vitest_id())
        );
        env.assert_verifies();
    }
}

#[test]
fn a_range_the_schema_refuses_is_schema_invalid() {
    for bad in ["^5.4.21", "~5", "5.x", "5.4.21", ">=0", ">6 <2"] {
        let env = TestEnv::new();
        env.init();
        let answer = serde_json::json!({
            "claim": "c", "rationale": "r", "evidence": {"resolution": "x"},
            "applies_to": {"stack": ["vite"], "scope": {"kind": "versioned", "versions": {"vite": bad}},
                           "file_patterns": [], "task_kinds": []}
        });
        env.write("answer.json", &answer.to_string());
        let r = ingest_with(
            &env,
            &format!("cat {}", env.path().join("answer.json").display()),
            REAL_VITEST,
        );
        assert!(
            r.stdout
                .starts_with(&format!("declined {} not a valid lesson", vitest_id())),
            "{bad}: {}",
            r.stdout
        );
    }
}

#[test]
fn blank_claims_and_hostile_text_from_a_model_are_schema_invalid() {
    let cases = [
        (
            serde_json::json!("   "),
            serde_json::json!(["vite"]),
            "/claim: is blank",
        ),
        (
            serde_json::json!("Vite 5 breaks"),
            serde_json::json!(["vi\nte"]),
            "/applies_to/stack/0: contains a control character or line break",
        ),
        (
            serde_json::json!("Vite \u{202e}5 breaks"),
            serde_json::json!(["vite"]),
            "/claim: contains the bidirectional control U+202E",
        ),
    ];
    for (claim, stack, why) in cases {
        let env = TestEnv::new();
        env.init();
        let key = stack[0].as_str().unwrap().to_owned();
        let answer = serde_json::json!({
            "claim": claim, "rationale": "r", "evidence": {"resolution": "x"},
            "applies_to": {"stack": stack, "scope": {"kind": "versioned", "versions": {key: "<6"}},
                           "file_patterns": [], "task_kinds": []}
        });
        env.write("answer.json", &answer.to_string());
        let r = ingest_with(
            &env,
            &format!("cat {}", env.path().join("answer.json").display()),
            REAL_VITEST,
        );
        assert!(
            r.stdout
                .starts_with(&format!("declined {} not a valid lesson", vitest_id())),
            "{}",
            r.stdout
        );
        let record = env
            .ledger_file(&crate::common::fanout("declined", vitest_id()))
            .unwrap();
        assert!(record.contains(why), "{why} in {record}");
    }
}

#[test]
fn prose_around_valid_json_is_a_proposal_with_provenance_stitched() {
    let env = TestEnv::new();
    env.init();
    env.write(
        "answer.txt",
        &format!(
            "Sure! Here is the lesson:\n```json\n{}\n```\nHope that helps.",
            CANDIDATE.trim()
        ),
    );
    let r = ingest_with(
        &env,
        &format!("cat {}", env.path().join("answer.txt").display()),
        POSITIVE,
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    let (word, lesson, art) = {
        let parts: Vec<&str> = r.stdout.split_whitespace().collect();
        (
            parts[0].to_owned(),
            parts[3].to_owned(),
            parts[1].to_owned(),
        )
    };
    assert_eq!((word.as_str(), art.as_str()), ("proposed", vitest_id()));
    let p: serde_json::Value =
        serde_json::from_str(&env.lore(&["show", &lesson, "--json"]).stdout).unwrap();
    assert_eq!(p["status"], "pending");
    assert_eq!(
        p["candidate"]["applies_to"]["scope"]["versions"],
        serde_json::json!({"vite": "<6", "vitest": ">=4"})
    );
    // Provenance comes from the artifact, never from the model.
    assert_eq!(
        p["candidate"]["evidence"]["artifact_ids"],
        serde_json::json!([vitest_id()])
    );
    assert_eq!(
        p["candidate"]["evidence"]["session_ids"],
        serde_json::json!(["sess-1"])
    );
    assert_eq!(p["candidate"]["evidence"]["project_key"], "6a7678979e31");
    assert_eq!(
        p["candidate"]["evidence"]["observed_at"],
        "2026-08-03T15:59:48Z"
    );
    assert_eq!(p["model"], "claude-haiku-4-5-20251001");

    // The lesson's trailers read back through git.
    let lesson_trailer = env.git(&[
        "log",
        "-1",
        "--format=%(trailers:key=Lore-Lesson,valueonly)",
        "ledger",
    ]);
    assert_eq!(lesson_trailer.ok().trim(), lesson);
    let body = env.git(&["log", "-1", "--format=%B", "ledger"]);
    let parsed = env.git_stdin(&["interpret-trailers", "--parse"], body.ok());
    assert_eq!(
        parsed.ok(),
        format!(
            "Lore-Format: 1\nLore-Action: propose\nLore-Lesson: {lesson}\nLore-Artifact: {}\nLore-Status: pending\nLore-Model: claude-haiku-4-5-20251001\n",
            vitest_id()
        )
    );
    // `list` cuts the id to the prefix that names it, and that prefix
    // works wherever an id does; `--ids` gives whole ids.
    let list = env.lore(&["list"]).ok().to_owned();
    let (short, claim) = list.split_once("  ").unwrap();
    assert!(
        short.len() >= 4 && short.len() < 26 && lesson.starts_with(short),
        "{list}"
    );
    assert_eq!(
        claim,
        "Vitest 4 cannot import vite/module-runner on Vite 5\n"
    );
    assert_eq!(env.lore(&["list", "--ids"]).ok(), format!("{lesson}\n"));
    let shown = env.lore(&["show", &short.to_lowercase()]);
    assert!(
        shown
            .ok()
            .starts_with(&format!("id:          {lesson} (short: {short})\n")),
        "{}",
        shown.ok()
    );
}

#[test]
fn the_real_vitest_artifact_is_declined_no_resolution_by_stub_and_offline() {
    let env = TestEnv::new();
    env.init();
    let r = ingest_with(
        &env,
        r#"echo '{ "eligible": false, "reason": "no_resolution" }'"#,
        REAL_VITEST,
    );
    assert_eq!(
        outcomes(&r.stdout),
        format!("declined {} no fix in it\n", vitest_id())
    );

    let env = TestEnv::new();
    env.init();
    let f = env.write("a.json", REAL_VITEST);
    let r = env.lore(&["ingest", "--backend", "offline", f.to_str().unwrap()]);
    assert_eq!(
        outcomes(&r.stdout),
        format!("declined {} no fix in it\n", vitest_id())
    );
    let model = env.git(&[
        "log",
        "-1",
        "--format=%(trailers:key=Lore-Model,valueonly)",
        "ledger",
    ]);
    assert_eq!(model.ok().trim(), "offline");
}

#[test]
fn seen_and_pregate_paths_never_call_the_model() {
    let env = TestEnv::new();
    env.init();
    let marker = env.path().join("model-was-called");
    let f = env.artifacts_file("a.jsonl", &[proposable(1, 1)]);
    assert!(env
        .lore(&["ingest", "--backend", "offline", f.to_str().unwrap()])
        .ok()
        .starts_with("proposed "));
    env.model_stub(&format!("touch {}; exit 1", marker.display()));
    let version_free = artifact(
        &ulid(1, 2),
        "Prefer functional patterns",
        "User said so during review.",
    );
    let f = env.artifacts_file("b.jsonl", &[proposable(1, 1), version_free]);
    let r = env.lore(&["ingest", f.to_str().unwrap()]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(
        outcomes(&r.stdout),
        format!(
            "skipped {} seen\nskipped {} no version in it\n",
            ulid(1, 1),
            ulid(1, 2)
        )
    );
    assert!(!marker.exists(), "the model must not be called");
    assert_eq!(
        env.lore(&["seen", &ulid(1, 2)]).ok(),
        format!("{} unseen\n", ulid(1, 2))
    );
}

#[test]
fn an_artifact_stays_seen_after_its_record_is_deleted_from_the_tree() {
    let env = TestEnv::new();
    env.init();
    let f = env.artifacts_file("a.jsonl", &[proposable(2, 1)]);
    let out = env.lore(&["ingest", f.to_str().unwrap()]);
    let lesson = crate::common::lesson_of(out.ok());
    // Remove the proposal with a signed commit made by plain git.
    let path = fanout("proposals", &lesson);
    env.forge(
        "ledger",
        Some("ledger"),
        &[(&path, None)],
        "drop it",
        crate::common::Sign::Repo,
    );
    assert!(env.ledger_file(&path).is_none());
    std::fs::remove_file(env.repo().join("lore/index")).ok();

    let again = env.lore(&["ingest", f.to_str().unwrap()]);
    assert_eq!(
        outcomes(again.ok()),
        format!("skipped {} seen\n", ulid(2, 1))
    );
}

#[test]
fn bad_input_is_refused_per_item_and_the_rest_go_on() {
    let env = TestEnv::new();
    env.init();
    let good = proposable(3, 1);
    let mut wrong_type = proposable(3, 2);
    wrong_type["summary"] = serde_json::json!(42);
    let mut bad_id = proposable(3, 3);
    bad_id["id"] = serde_json::json!("../../etc/passwd");
    let text = format!("{good}\n{{not json\n{wrong_type}\n{bad_id}\n");
    let f = env.write("mixed.jsonl", &text);
    let r = env.lore(&["ingest", f.to_str().unwrap()]);
    assert_eq!(
        r.code, 1,
        "invalid items make the run a refusal: {}",
        r.stderr
    );
    let lines: Vec<&str> = r.stdout.lines().collect();
    assert_eq!(lines.len(), 4, "{}", r.stdout);
    assert!(lines[0].starts_with("proposed "), "{}", r.stdout);
    assert!(
        lines[1..]
            .iter()
            .all(|l| l.starts_with("invalid mixed.jsonl:")),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout.contains("summary"),
        "names the bad field: {}",
        r.stdout
    );
    r.assert_stderr("1 lesson proposed; 3 artifacts invalid\n");
    assert_eq!(
        env.ledger_commits().len(),
        2,
        "only the good artifact was written"
    );
    // stdin works too.
    let r = env.lore_stdin(
        &["ingest", "-"],
        format!("{}\n", proposable(3, 9)).as_bytes(),
    );
    assert!(r.ok().starts_with("proposed "), "{}", r.stdout);
}

/// `--json` rows come as the outcomes are told, in input order, and make
/// one pretty-printed array, the same bytes as the array printed whole;
/// no input is `[]`.
#[test]
fn ingest_json_is_one_array_of_rows_in_input_order() {
    let env = TestEnv::new();
    env.init();
    let unversioned = artifact(
        &ulid(5, 2),
        "the loader crashes on start",
        "no version here",
    );
    let text = format!(
        "{}\n{}\nnot json\n{}\n",
        proposable(5, 1),
        unversioned,
        proposable(5, 1)
    );
    let f = env.write("mixed.jsonl", &text);
    let r = env.lore(&["ingest", "--json", f.to_str().unwrap()]);
    assert_eq!(r.code, 1, "an invalid item: {}", r.stderr);
    let rows: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    assert!(
        r.stdout
            .starts_with("[\n  {\n    \"outcome\": \"proposed\",\n")
            && r.stdout.ends_with("\n  }\n]\n"),
        "pretty-printed as one array: {}",
        r.stdout
    );
    let rows = rows.as_array().unwrap();
    let field = |i: usize, k: &str| rows[i][k].as_str().unwrap_or("").to_owned();
    assert_eq!(rows.len(), 4);
    assert_eq!(field(0, "outcome"), "proposed");
    assert_eq!(field(0, "artifact"), ulid(5, 1));
    assert!(!field(0, "lesson").is_empty());
    // Sources as typed: relative to the current directory.
    assert_eq!(field(0, "source"), "mixed.jsonl:1");
    assert_eq!(
        (field(1, "outcome"), field(1, "reason")),
        ("skipped".into(), "pregate".into())
    );
    assert_eq!(field(2, "outcome"), "invalid");
    assert_eq!(field(2, "source"), "mixed.jsonl:3");
    // The second copy of the first artifact, written in the same chunk.
    assert_eq!(
        (field(3, "outcome"), field(3, "reason")),
        ("skipped".into(), "seen".into())
    );
    assert_eq!(field(3, "artifact"), ulid(5, 1));
    r.assert_stderr("ingest: 1 lesson proposed; 2 artifacts skipped, 1 invalid\n");

    let empty = env.path().join("no-artifacts");
    std::fs::create_dir(&empty).unwrap();
    let r = env.lore(&["ingest", "--json", empty.to_str().unwrap()]);
    assert_eq!(r.ok(), "[]\n");
}

#[test]
fn four_processes_ingesting_the_same_200_artifacts_give_one_outcome_each() {
    let env = TestEnv::new();
    env.init();
    let arts: Vec<serde_json::Value> = (0..200).map(|n| proposable(4, n)).collect();
    let f = env.artifacts_file("same.jsonl", &arts);
    let children: Vec<_> = (0..4)
        .map(|_| env.spawn_lore(&["ingest", f.to_str().unwrap()]))
        .collect();
    let mut proposed = std::collections::HashMap::<String, usize>::new();
    for c in children {
        let o = c.wait_with_output().unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        for line in String::from_utf8_lossy(&o.stdout).lines() {
            let parts: Vec<&str> = line.split_whitespace().collect();
            match parts[0] {
                "proposed" => *proposed.entry(parts[1].to_owned()).or_default() += 1,
                "skipped" => assert_eq!(parts[2], "seen"),
                other => panic!("unexpected outcome {other}: {line}"),
            }
        }
    }
    assert_eq!(
        proposed.len(),
        200,
        "every artifact was proposed by someone"
    );
    assert!(
        proposed.values().all(|&n| n == 1),
        "and by exactly one process"
    );
    let artifacts = env.git(&[
        "log",
        "--format=%(trailers:key=Lore-Artifact,valueonly,separator=)",
        "ledger",
    ]);
    let mut seen: Vec<&str> = artifacts.ok().lines().filter(|l| !l.is_empty()).collect();
    assert_eq!(seen.len(), 200);
    seen.sort();
    seen.dedup();
    assert_eq!(seen.len(), 200, "no artifact written twice");
    assert_eq!(env.git(&["rev-list", "--merges", "ledger"]).ok(), "");
    env.assert_fsck();
    env.assert_verifies();
}

/// Runs git in a project work tree.
fn project_git(dir: &std::path::Path, env: &TestEnv, args: &[&str]) -> String {
    project_git_at(dir, env, args, "2026-08-01T12:00:00Z")
}

/// Runs git in a project work tree with the given committer date.
fn project_git_at(dir: &std::path::Path, env: &TestEnv, args: &[&str], committed: &str) -> String {
    let o = std::process::Command::new("git")
        .args(args)
        .current_dir(dir)
        .env_clear()
        .envs(env.vars())
        .env("GIT_AUTHOR_NAME", "Dev")
        .env("GIT_AUTHOR_EMAIL", "dev@example.com")
        .env("GIT_COMMITTER_NAME", "Dev")
        .env("GIT_COMMITTER_EMAIL", "dev@example.com")
        .env("GIT_AUTHOR_DATE", "2026-08-01T12:00:00Z")
        .env("GIT_COMMITTER_DATE", committed)
        .output()
        .unwrap();
    assert!(
        o.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// A package.json with these dependencies.
fn manifest(deps: &str) -> String {
    format!("{{\n  \"name\": \"app\",\n  \"private\": true,\n  \"dependencies\": {{{deps}}}\n}}\n")
}

#[test]
fn commits_of_the_default_branch_become_artifacts_with_stable_ids() {
    let env = TestEnv::new();
    env.init();
    let proj = env.path().join("project");
    std::fs::create_dir_all(&proj).unwrap();
    project_git(&proj, &env, &["init", "-q", "-b", "main"]);
    project_git(
        &proj,
        &env,
        &["remote", "add", "origin", "git@example.com:acme/app.git"],
    );
    std::fs::write(
        proj.join("package.json"),
        manifest(r#""next": "14.2.3", "react": "^18.3.1""#),
    )
    .unwrap();
    project_git(&proj, &env, &["add", "."]);
    project_git(&proj, &env, &["commit", "-q", "-m", "Initial commit"]);
    // A plain bump: no reason, no lesson, nothing written.
    std::fs::write(
        proj.join("package.json"),
        manifest(r#""next": "14.2.4", "react": "^18.3.1""#),
    )
    .unwrap();
    project_git(&proj, &env, &["add", "."]);
    project_git(
        &proj,
        &env,
        &[
            "commit",
            "-q",
            "-m",
            "chore(deps): update dependency next to v14.2.4",
        ],
    );
    // A pin after a crash: a lesson, scoped above the pinned version.
    std::fs::write(
        proj.join("package.json"),
        manifest(r#""next": "14.2.4", "react": "18.3.0""#),
    )
    .unwrap();
    project_git(&proj, &env, &["add", "."]);
    project_git(
        &proj,
        &env,
        &[
            "commit", "-q", "-m",
            "fix: pin react to 18.3.0\n\nHydration crash: useId rendered mismatched ids on the client with react 18.3.1.\n\nClaude-Session: sess-42",
        ],
    );
    let r = env.lore(&["ingest", "--from-commits", proj.to_str().unwrap()]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let lines: Vec<&str> = r.stdout.lines().collect();
    assert_eq!(lines.len(), 1, "only the pin is an artifact: {}", r.stdout);
    let lesson = crate::common::lesson_of(lines[0]);
    let p: serde_json::Value =
        serde_json::from_str(env.lore(&["show", &lesson, "--json"]).ok()).unwrap();
    assert_eq!(p["artifact"]["trigger"], "commit");
    assert_eq!(p["artifact"]["session_id"], "sess-42");
    assert_eq!(p["artifact"]["files"], serde_json::json!(["package.json"]));
    assert_eq!(
        p["artifact"]["facts"][0]["quote"],
        "package.json dependencies: react ^18.3.1 -> 18.3.0"
    );
    // sha256("remote:git@example.com:acme/app.git"), first 12 hex.
    use sha2::Digest;
    let key = hex::encode(sha2::Sha256::digest(b"remote:git@example.com:acme/app.git"));
    assert_eq!(p["candidate"]["evidence"]["project_key"], key[..12]);
    assert_eq!(
        p["candidate"]["claim"],
        "react 18.3.1 and later crashes; react 18.3.0 does not"
    );
    assert_eq!(
        p["candidate"]["applies_to"]["scope"]["versions"],
        serde_json::json!({"react": ">18.3.0"})
    );

    // Rewriting the commit as a rebase does (a new sha and committer date,
    // the same message and author time) keeps the content-addressed
    // artifact id: it is seen, not proposed again.
    let old_head = project_git(&proj, &env, &["rev-parse", "HEAD"]);
    project_git_at(
        &proj,
        &env,
        &["commit", "-q", "--amend", "--no-edit"],
        "2026-08-09T08:00:00Z",
    );
    assert_ne!(
        project_git(&proj, &env, &["rev-parse", "HEAD"]),
        old_head,
        "a new commit"
    );
    let again = env.lore(&["ingest", "--from-commits", proj.to_str().unwrap()]);
    assert!(
        outcomes(again.ok()).trim().ends_with(" seen"),
        "{}",
        again.stdout
    );
    // --since limits the walk.
    let head = project_git(&proj, &env, &["rev-parse", "HEAD~1"]);
    let since = env.lore(&[
        "ingest",
        "--from-commits",
        proj.to_str().unwrap(),
        "--since",
        head.trim(),
    ]);
    assert_eq!(since.ok().lines().count(), 1);
}

#[test]
fn a_commit_that_names_no_session_is_its_own_provenance() {
    let env = TestEnv::new();
    env.init();
    let proj = env.path().join("project");
    std::fs::create_dir_all(&proj).unwrap();
    project_git(&proj, &env, &["init", "-q", "-b", "main"]);
    std::fs::write(proj.join("package.json"), manifest(r#""react": "^18.3.1""#)).unwrap();
    project_git(&proj, &env, &["add", "."]);
    project_git(&proj, &env, &["commit", "-q", "-m", "Initial commit"]);
    std::fs::write(proj.join("package.json"), manifest(r#""react": "18.2.0""#)).unwrap();
    project_git(&proj, &env, &["add", "."]);
    project_git(
        &proj,
        &env,
        &[
            "commit",
            "-q",
            "-m",
            "Pin react to 18.2.0 to avoid the hydration crash in next 14.2.3",
        ],
    );
    let sha = project_git(&proj, &env, &["rev-parse", "HEAD"]);
    let r = env.lore(&["ingest", "--from-commits", proj.to_str().unwrap()]);
    let lesson = crate::common::lesson_of(r.ok());
    let p: serde_json::Value =
        serde_json::from_str(env.lore(&["show", &lesson, "--json"]).ok()).unwrap();
    let session = format!("commit:{}", sha.trim());
    assert_eq!(p["artifact"]["session_id"], session.as_str());
    assert_eq!(
        p["candidate"]["evidence"]["session_ids"],
        serde_json::json!([session])
    );
    // Confirmed and judged, it becomes a pool entry with that provenance.
    env.lore(&["confirm", &lesson, "org", "--yes"]).ok();
    env.lore(&["judge", "--all", "--yes"]).ok();
    let entry = env
        .git(&["show", &format!("pool/org:{}", fanout("lessons", &lesson))])
        .ok()
        .to_owned();
    assert!(entry.contains(&session), "{entry}");
    env.assert_verifies();
}

#[test]
fn many_short_concurrent_ingests_of_the_same_artifacts_write_each_once() {
    // Six processes each ingest the same 30 artifacts one invocation at a
    // time, as hooks do: the races are between short writers whose index
    // catch-up overlaps another writer's swap.
    let env = TestEnv::new();
    env.init();
    let files: Vec<std::path::PathBuf> = (0..30)
        .map(|n| env.artifacts_file(&format!("one-{n}.jsonl"), &[proposable(6, n)]))
        .collect();
    let script: String = files
        .iter()
        .map(|f| format!("\"$LORE\" ingest {} >/dev/null 2>&1\n", f.display()))
        .collect();
    let runner = env.write("run.sh", &script);
    let children: Vec<_> = (0..6)
        .map(|_| {
            std::process::Command::new("/bin/sh")
                .arg(&runner)
                .env_clear()
                .envs(env.vars())
                .env("LORE", env!("CARGO_BIN_EXE_git-lore"))
                .spawn()
                .unwrap()
        })
        .collect();
    for mut c in children {
        assert!(c.wait().unwrap().success());
    }
    let artifacts = env.git(&[
        "log",
        "--format=%(trailers:key=Lore-Artifact,valueonly,separator=)",
        "ledger",
    ]);
    let mut seen: Vec<&str> = artifacts.ok().lines().filter(|l| !l.is_empty()).collect();
    let total = seen.len();
    seen.sort();
    seen.dedup();
    assert_eq!(
        (total, seen.len()),
        (30, 30),
        "each artifact written exactly once"
    );
}

#[test]
fn a_device_or_endless_input_is_refused_without_reading_it_all() {
    let env = TestEnv::new();
    env.init();
    let r = env.lore(&["ingest", "/dev/zero"]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert_eq!(
        r.stdout,
        "invalid /dev/zero: larger than 16777216 bytes; inputs are limited to that\n"
    );
    assert_eq!(env.ledger_commits().len(), 1);
}

#[test]
fn json_lines_over_the_input_limit_stream_from_a_file_and_from_stdin() {
    let env = TestEnv::new();
    env.init();
    // Five artifacts padded to 3.5 MiB a line: 17.5 MiB, more than the
    // 16 MiB a document read whole may hold; the limit is per line.
    let text: String = (0..5)
        .map(|n| format!("{}{}\n", proposable(44, n), " ".repeat(7 << 19)))
        .collect();
    assert!(text.len() > 16 << 20);
    let f = env.write("big.jsonl", &text);
    let r = env.lore(&["ingest", f.to_str().unwrap()]);
    assert_eq!(
        r.ok()
            .lines()
            .filter(|l| l.starts_with("proposed "))
            .count(),
        5,
        "{}",
        r.stdout
    );
    let again = env.lore_stdin(&["ingest", "-"], text.as_bytes());
    assert_eq!(
        outcomes(again.ok())
            .lines()
            .filter(|l| l.ends_with(" seen"))
            .count(),
        5,
        "{}",
        again.stdout
    );
    assert_eq!(env.ledger_commits().len(), 6);
}

#[test]
fn a_repeated_artifact_in_one_input_gets_its_first_copys_fate() {
    let env = TestEnv::new();
    env.init();
    let free = artifact(
        &ulid(7, 1),
        "Prefer functional patterns",
        "User said so during review.",
    );
    let f = env.artifacts_file(
        "twice.jsonl",
        &[free.clone(), proposable(7, 2), free, proposable(7, 2)],
    );
    let r = env.lore(&["ingest", f.to_str().unwrap()]);
    let out = outcomes(r.ok());
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines[0], format!("skipped {} no version in it", ulid(7, 1)));
    assert!(lines[1].starts_with("proposed "), "{}", r.stdout);
    assert_eq!(
        lines[2],
        format!("skipped {} no version in it", ulid(7, 1)),
        "not 'seen': history has not seen it"
    );
    assert_eq!(lines[3], format!("skipped {} seen", ulid(7, 2)));
    assert_eq!(
        env.lore(&["seen", &ulid(7, 1)]).ok(),
        format!("{} unseen\n", ulid(7, 1))
    );
}

/// With a model, a copy is not asked about again: a copy of an artifact
/// the model gave no answer for gets the same outage, and a copy of one
/// written in an earlier chunk is `seen` (found by the index the run
/// reloads after each write, or by the claim's look at history).
#[test]
fn a_copy_is_never_asked_again() {
    let env = TestEnv::new();
    env.init();
    let calls = env.calls();
    env.model_stub(&calls.then("echo boom >&2; exit 3"));
    let f = env.artifacts_file("outage.jsonl", &[proposable(9, 1), proposable(9, 1)]);
    let r = env.lore(&["ingest", f.to_str().unwrap()]);
    assert_eq!(r.code, 2);
    let out = outcomes(&r.stdout);
    let why = format!(
        "untouched {} the model program failed (exited with status 3): boom\n",
        ulid(9, 1)
    );
    assert_eq!(out, why.repeat(2));
    assert_eq!(calls.count(), 1);

    // 256 artifacts fill the first chunk; the copy of the first comes after.
    calls.reset();
    let answer = env.write("answer.json", CANDIDATE);
    env.model_stub(&calls.then(&format!("cat {}", answer.display())));
    let mut arts: Vec<_> = (10..266).map(|n| proposable(9, n)).collect();
    arts.push(proposable(9, 10));
    let f = env.artifacts_file("chunks.jsonl", &arts);
    let r = env.lore(&["ingest", f.to_str().unwrap()]);
    r.assert_stderr("ingest: 256 lessons proposed; 1 artifact skipped\n");
    assert_eq!(
        r.stdout.lines().last().map(outcomes),
        Some(format!("skipped {} seen\n", ulid(9, 10)))
    );
    assert_eq!(calls.count(), 256);
}

/// Offline, a full chunk is held while the next one is read, then written
/// while that one is determined on another core. Across three chunks
/// (2,048 a chunk on a small ledger) every item is told once, in input
/// order; a copy of an artifact whose chunk waits to be written, or was
/// written, is `seen`; each artifact is written once, in input order.
#[test]
fn offline_chunks_written_while_the_next_is_determined_keep_every_outcome() {
    let env = TestEnv::new();
    env.init();
    let mut ids: Vec<u32> = (0..4100).collect();
    // Copies read while the chunk of the first copy is held (the first and
    // second chunks), and after it was written (the first).
    ids.insert(2500, 0);
    ids.extend([2100, 5]);
    let arts: Vec<_> = ids.iter().map(|&n| proposable(51, n)).collect();
    let f = env.artifacts_file("three-chunks.jsonl", &arts);
    let r = env.lore(&["ingest", f.to_str().unwrap()]);
    r.assert_stderr("ingest: 4100 lessons proposed; 3 artifacts skipped\n");
    let lines: Vec<String> = r.ok().lines().map(outcomes).collect();
    assert_eq!(lines.len(), ids.len(), "one line per item");
    for (k, (line, &n)) in lines.iter().zip(&ids).enumerate() {
        let id = ulid(51, n);
        if k == 2500 || k >= ids.len() - 2 {
            assert_eq!(line, &format!("skipped {id} seen\n"), "item {k}");
        } else {
            assert!(
                line.starts_with(&format!("proposed {id} ")),
                "item {k}: {line}"
            );
        }
    }
    // One commit per artifact, in input order, after init's.
    let written = env.git(&[
        "log",
        "--reverse",
        "--format=%(trailers:key=Lore-Artifact,valueonly,separator=)",
        "ledger",
    ]);
    let written: Vec<&str> = written.ok().lines().filter(|l| !l.is_empty()).collect();
    let want: Vec<String> = (0..4100).map(|n| ulid(51, n)).collect();
    assert_eq!(written, want);
    env.assert_verifies();
}

/// When the lesson index cannot be written (here its directory is a file;
/// in life, a full disk), every chunk would walk all history written since
/// the index last was: a run stops after its first chunk, saying why and
/// what to do. What it wrote stays, and the same run again goes on.
#[test]
fn a_batch_whose_index_cannot_be_written_stops_after_a_chunk() {
    let env = TestEnv::new();
    env.init();
    let lore = env.repo().join("lore");
    std::fs::remove_file(lore.join("index")).ok();
    std::fs::remove_dir_all(lore.join("index.d")).ok();
    std::fs::write(lore.join("index.d"), "not a directory").unwrap();
    // Two offline chunks: 2,048 on a small ledger, then 52.
    let arts: Vec<_> = (0..2100).map(|n| proposable(52, n)).collect();
    let f = env.artifacts_file("two-chunks.jsonl", &arts);
    let r = env.lore(&["ingest", f.to_str().unwrap()]);
    assert_eq!(r.code, 2, "the rest is untouched: {}", r.stderr);
    let lines: Vec<&str> = r.stdout.lines().collect();
    assert_eq!(lines.len(), 2100, "one line per artifact");
    for (n, line) in lines.iter().enumerate() {
        let id = ulid(52, n as u32);
        let want = if n < 2048 { "proposed" } else { "untouched" };
        assert!(line.starts_with(&format!("{want} {id} ")), "{n}: {line}");
    }
    assert!(
        lines[2048].contains("not written: stopped: the lesson index could not be written"),
        "{}",
        lines[2048]
    );
    r.assert_stderr("every later chunk would walk the whole history again");
    r.assert_stderr("index.d: File exists");
    r.assert_stderr(&format!(
        "make room on the disk or mend {}",
        lore.join("index.d").display()
    ));
    assert_eq!(
        env.ledger_commits().len(),
        1 + 2048,
        "the first chunk stays"
    );

    // Mended, the same run goes on where it stopped.
    std::fs::remove_file(lore.join("index.d")).unwrap();
    let r = env.lore(&["ingest", f.to_str().unwrap()]);
    r.assert_stderr("ingest: 52 lessons proposed; 2048 artifacts skipped\n");
    assert_eq!(env.ledger_commits().len(), 1 + 2100);
    env.assert_verifies();
}

#[test]
fn a_write_that_fails_mid_run_still_reports_every_artifact() {
    let env = TestEnv::new();
    env.init();
    // Signing breaks: every write fails after the model has answered.
    let gpg = env.stub(
        "broken-gpg",
        "cat >/dev/null; echo 'gpg: no secret key' >&2; exit 2",
    );
    env.config("gpg.format", "openpgp");
    env.config("gpg.program", gpg.to_str().unwrap());
    env.config("user.signingkey", "ABCD1234");
    let arts: Vec<_> = (0..300).map(|n| proposable(8, n)).collect();
    let f = env.artifacts_file("many.jsonl", &arts);
    let r = env.lore(&["ingest", f.to_str().unwrap()]);
    assert_eq!(
        r.code, 1,
        "the signing error decides the exit: {}",
        r.stderr
    );
    let lines: Vec<&str> = r.stdout.lines().collect();
    assert_eq!(lines.len(), 300, "one line per artifact");
    for (n, line) in lines.iter().enumerate() {
        let id = ulid(8, n as u32);
        assert!(line.starts_with(&format!("untouched {id} ")), "{line}");
    }
    assert!(
        lines[0].contains("not written: could not sign the commit"),
        "{}",
        lines[0]
    );
    r.assert_stderr("could not sign the commit; nothing was written");
    assert_eq!(env.ledger_commits().len(), 1, "nothing was written");
}

#[test]
fn a_repeated_random_source_never_overwrites_a_lesson() {
    let env = TestEnv::new();
    env.init();
    // Two runs with the same seed and clock draw the same lesson id.
    let seeded = |file: &std::path::Path| {
        let o = env
            .lore_cmd(&["ingest", file.to_str().unwrap()])
            .env("GIT_LORE_RANDOMNESS_SEED", "7")
            .output()
            .unwrap();
        (
            o.status.code(),
            String::from_utf8_lossy(&o.stdout).into_owned(),
        )
    };
    let first = env.artifacts_file("a.jsonl", &[proposable(8, 1)]);
    let (code, out) = seeded(&first);
    assert_eq!(code, Some(0), "{out}");
    let lesson = crate::common::lesson_of(&out);
    let before = env.ledger_file(&fanout("proposals", &lesson)).unwrap();
    let commits = env.ledger_commits();

    let second = env.artifacts_file("b.jsonl", &[proposable(8, 2)]);
    let (code, out) = seeded(&second);
    assert_eq!(code, Some(2), "{out}");
    assert_eq!(
        outcomes(&out),
        format!(
            "untouched {} not written: lesson id {lesson} is already in use \
             (the random source repeated itself); nothing was written\n",
            ulid(8, 2)
        )
    );
    assert_eq!(
        env.ledger_file(&fanout("proposals", &lesson)).unwrap(),
        before
    );
    assert_eq!(env.ledger_commits(), commits);
}

/// Runs `script` in a mount namespace of its own (`unshare -rm`), where it
/// may mount a small tmpfs; returns (exit code, stdout, stderr).
fn in_mount_namespace(env: &TestEnv, script: &str) -> (i32, String, String) {
    let o = std::process::Command::new("unshare")
        .args(["-rm", "sh", "-c", script])
        .env_clear()
        .envs(env.vars())
        .env("LORE", env!("CARGO_BIN_EXE_git-lore"))
        .env("GIT_LORE_RANDOMNESS_SEED", "11")
        .current_dir(env.path())
        .output()
        .expect("unshare (util-linux)");
    (
        o.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

#[test]
fn a_full_disk_or_a_read_only_repository_is_an_outage_with_its_cause() {
    let env = TestEnv::new();
    let art = env.artifacts_file("a.jsonl", &[proposable(12, 1)]);
    let small = env.path().join("small");
    std::fs::create_dir_all(&small).unwrap();
    let script = format!(
        r#"set -u
mount -t tmpfs -o size=2m tmpfs {small} || exit 90
repo={small}/lessons.git
"$LORE" --repo "$repo" init >/dev/null 2>&1 || exit 91
dd if=/dev/zero of={small}/fill bs=16k 2>/dev/null
"$LORE" --repo "$repo" ingest {art}
echo "exit=$?"
rm -f {small}/fill
"$LORE" --repo "$repo" ingest {art} >/dev/null 2>&1 || exit 92
mount -o remount,ro {small} || exit 93
lesson=$("$LORE" --repo "$repo" list --ids)
"$LORE" --repo "$repo" confirm "$lesson" org --yes
echo "exit=$?"
"#,
        small = small.display(),
        art = art.display()
    );
    let (code, out, err) = in_mount_namespace(&env, &script);
    assert_eq!(code, 0, "stdout:\n{out}\nstderr:\n{err}");
    let exits: Vec<&str> = out.lines().filter(|l| l.starts_with("exit=")).collect();
    assert_eq!(
        exits,
        ["exit=2", "exit=2"],
        "stdout:\n{out}\nstderr:\n{err}"
    );
    assert!(
        out.contains(&format!(
            "untouched {} not written: ",
            crate::common::ulid(12, 1)
        )),
        "{out}"
    );
    assert!(err.contains("No space left on device"), "{err}");
    assert!(err.contains("Read-only file system"), "{err}");
}

#[test]
fn a_decline_is_redone_once_and_history_keeps_both() {
    let env = TestEnv::new();
    env.init();
    let positive: serde_json::Value = serde_json::from_str(POSITIVE).unwrap();
    let artifact = positive["id"].as_str().unwrap().to_owned();
    let r = ingest_with(
        &env,
        r#"echo '{ "eligible": false, "reason": "no_resolution" }'"#,
        POSITIVE,
    );
    assert_eq!(
        outcomes(r.ok()),
        format!("declined {artifact} no fix in it\n")
    );
    let decline = env.git(&["rev-parse", "ledger"]).ok().trim().to_owned();

    // Nothing to redo yet after a date, and only declined artifacts can be.
    let r = env.lore(&["ingest", "--redo-declined", "--since", "2100-01-01"]);
    assert_eq!(r.ok(), "");
    r.assert_stderr("ingest: no artifacts found\n");
    let r = env.lore(&["ingest", "--redo-declined", "--since", "last tuesday"]);
    r.assert_refused("--since last tuesday: not a date (2026-11-01)");

    // The same decline again (a deterministic backend, or the same second):
    // nothing to add to history, even from four runs at once. A run that
    // finds another asking about the artifact leaves it to that run.
    // The model is slow enough for the runs to overlap, and counts its
    // calls: a run that asked printed the decline, one that found the
    // artifact claimed asked nothing.
    let calls = env.calls();
    env.model_stub(
        &calls.then(r#"sleep 1; echo '{ "eligible": false, "reason": "no_resolution" }'"#),
    );
    let commits = env.ledger_commits().len();
    let runs: Vec<_> = (0..4)
        .map(|_| env.spawn_lore(&["ingest", "--redo", &artifact]))
        .collect();
    let (mut declined, mut claimed) = (0, 0);
    for run in runs {
        let o = run.wait_with_output().unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let out = String::from_utf8_lossy(&o.stdout);
        if out == format!("declined {artifact} no fix in it\n") {
            declined += 1;
        } else {
            assert_eq!(out, format!("skipped {artifact} claimed\n"));
            claimed += 1;
        }
    }
    let asked = calls.count();
    assert_eq!(asked, declined, "one model call per run that redid it");
    assert_eq!(declined + claimed, 4);
    assert!(claimed >= 1, "overlapping runs leave it to the one asking");
    assert_eq!(env.ledger_commits().len(), commits, "nothing written");
    env.lore(&["verify"]).ok();

    // A model that proposes now: the redo, by a lower-case prefix.
    env.model_answers(CANDIDATE);
    let r = env.lore(&["ingest", "--redo", &artifact[..10].to_lowercase()]);
    let line = r.ok().to_owned();
    let lesson = crate::common::lesson_of(&line);
    assert_eq!(line, format!("proposed {artifact} lesson {lesson}\n"));
    let message = env
        .git(&["log", "-1", "--format=%B", "ledger"])
        .ok()
        .to_owned();
    assert!(
        message.contains(&format!("Lore-Replaces: {decline}\n")),
        "{message}"
    );
    // History keeps both: the decline record stays, and seen answers with
    // the newer outcome.
    assert!(env.ledger_file(&fanout("declined", &artifact)).is_some());
    assert!(env.ledger_file(&fanout("proposals", &lesson)).is_some());
    let seen = env.lore(&["seen", &artifact]).ok().to_owned();
    assert!(seen.contains(&lesson), "{seen}");
    env.lore(&["verify"]).ok();
    env.lore(&["index", "--rebuild"]).ok();
    assert_eq!(env.lore(&["seen", &artifact]).ok(), seen);

    // Once is enough: it is no longer declined.
    let commits = env.ledger_commits().len();
    let r = env.lore(&["ingest", "--redo", &artifact]);
    r.assert_refused(&format!(
        "artifact {artifact}: it became lesson {lesson}; only a declined artifact can be redone"
    ));
    let r = env.lore(&["ingest", "--redo", &lesson]);
    r.assert_refused("that is a lesson id; --redo takes the ids of declined artifacts");
    assert_eq!(env.lore(&["ingest", "--redo-declined"]).ok(), "");
    assert_eq!(env.ledger_commits().len(), commits, "nothing written");
}

/// One artifact ingested into a proposal: its artifact and lesson ids.
fn propose_one(env: &TestEnv) -> (String, String) {
    env.model_answers(CANDIDATE);
    let f = env.write("a.json", POSITIVE);
    let line = env.lore(&["ingest", f.to_str().unwrap()]).ok().to_owned();
    let artifact = line.split_whitespace().nth(1).unwrap().to_owned();
    (artifact, crate::common::lesson_of(&line))
}

/// Forges, signed with the repository's own key (so only the rules can
/// catch it), a second proposal for `artifact` that says it replaces
/// `replaces`.
fn propose_again(env: &TestEnv, artifact: &str, lesson: &str, replaces: &str) {
    let record = env.ledger_file(&fanout("proposals", lesson)).unwrap();
    let other = "01KZ8NV6803YZCG55HHCEMRFNZ";
    let forged = record.replace(lesson, other);
    env.forge(
        "ledger",
        Some("ledger"),
        &[(&fanout("proposals", other), Some(&forged))],
        &format!(
            "propose {other}: again\n\nLore-Format: 1\nLore-Action: propose\nLore-Lesson: {other}\nLore-Artifact: {artifact}\nLore-Status: pending\nLore-Replaces: {replaces}\n"
        ),
        crate::common::Sign::Repo,
    );
}

/// `--redo` writes as ingest does, a chunk at a time, claiming what it asks
/// about: a redo killed midway keeps the chunk it wrote, and the next run
/// redoes the rest, leaving to the dead run the claims it held until they
/// lapse.
#[test]
fn a_redo_killed_midway_keeps_its_written_chunk() {
    const CHUNK: usize = 256;
    let env = TestEnv::new();
    env.init();
    let arts: Vec<serde_json::Value> = (0..CHUNK as u32 + 20).map(|n| proposable(7, n)).collect();
    let f = env.artifacts_file("many.jsonl", &arts);
    env.model_stub(r#"cat >/dev/null; echo '{ "eligible": false, "reason": "no_resolution" }'"#);
    let r = env.lore(&["ingest", f.to_str().unwrap()]);
    r.assert_stderr("ingest: no lessons proposed; 276 artifacts declined");
    let declined = env.ledger_commits().len();

    // The model now proposes, and the run dies during its 260th call.
    let calls = env.calls();
    let pid = env.path().join("pid");
    let answer = env.write("answer.json", CANDIDATE);
    env.model_stub(&calls.then(&format!(
        "if [ -e {pid} ] && [ $(wc -l < {calls}) -eq 260 ]; then kill -9 $(cat {pid}); sleep 5; fi; \
         cat {answer}",
        calls = calls.path().display(),
        pid = pid.display(),
        answer = answer.display()
    )));
    let child = env.spawn_lore(&["ingest", "--redo-declined"]);
    std::fs::write(&pid, child.id().to_string()).unwrap();
    let o = child.wait_with_output().unwrap();
    assert_eq!(o.status.code(), None, "killed: {o:?}");
    let out = String::from_utf8_lossy(&o.stdout);
    assert_eq!(
        env.ledger_commits().len(),
        declined + CHUNK,
        "the first chunk is written; out: {out}"
    );
    env.assert_verifies();
    env.assert_fsck();

    // The next run asks about what is left but the four the dead run held.
    std::fs::remove_file(&pid).unwrap();
    calls.reset();
    let r = env.lore(&["ingest", "--redo-declined"]);
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    r.assert_stderr("ingest: 16 lessons proposed; 4 artifacts skipped");
    assert_eq!(r.stdout.matches(" claimed\n").count(), 4, "{}", r.stdout);
    assert_eq!(calls.count(), 16);
    assert_eq!(env.ledger_commits().len(), declined + CHUNK + 16);
    env.assert_verifies();
}

#[test]
fn verify_names_a_redo_that_replaces_no_decline() {
    let env = TestEnv::new();
    env.init();
    let (artifact, lesson) = propose_one(&env);
    let init = env
        .git(&["rev-list", "--max-parents=0", "ledger"])
        .ok()
        .trim()
        .to_owned();
    // A second proposal for the same artifact, claiming to replace the
    // init commit: signed with the repository's own key, so only the rule
    // can catch it.
    propose_again(&env, &artifact, &lesson, &init);
    let r = env.lore(&["verify"]);
    assert_eq!(r.code, 1);
    for problem in [
        format!("Lore-Replaces names {init}, which is not a decline of artifact {artifact}"),
        format!("Lore-Replaces: artifact {artifact} was not declined before this commit"),
    ] {
        assert!(r.stdout.contains(&problem), "{}", r.stdout);
    }
}

#[test]
fn verify_refuses_a_redo_naming_a_decline_outside_its_history() {
    let env = TestEnv::new();
    env.init();
    let (artifact, lesson) = propose_one(&env);
    // A well-formed decline of the artifact, but on a side branch: history
    // the ledger never had.
    let side = env.forge(
        "side",
        Some("ledger"),
        &[(&fanout("declined", &artifact), Some("{}"))],
        &format!(
            "decline {artifact}: no_resolution\n\nLore-Format: 1\nLore-Action: decline\nLore-Artifact: {artifact}\nLore-Reason: no_resolution\n"
        ),
        crate::common::Sign::Repo,
    );
    propose_again(&env, &artifact, &lesson, &side);
    let r = env.lore(&["verify"]);
    assert_eq!(r.code, 1, "{}", r.stdout);
    assert!(
        r.stdout.contains(&format!(
            "Lore-Replaces names {side}, which is not in this commit's history"
        )),
        "{}",
        r.stdout
    );
}

#[test]
fn an_artifact_that_takes_a_lessons_id_is_refused() {
    let env = TestEnv::new();
    env.init();
    env.model_answers(CANDIDATE);
    let f = env.write("a.json", POSITIVE);
    let line = env.lore(&["ingest", f.to_str().unwrap()]).ok().to_owned();
    let lesson = crate::common::lesson_of(&line);
    let mut twin: serde_json::Value = serde_json::from_str(POSITIVE).unwrap();
    twin["id"] = lesson.clone().into();
    let f = env.write("twin.json", &twin.to_string());
    let commits = env.ledger_commits().len();
    let r = env.lore(&["ingest", f.to_str().unwrap()]);
    assert_eq!(r.code, 1);
    assert_eq!(
        r.stdout,
        format!("invalid twin.json: is not a valid artifact: its id {lesson} is already a lesson's id; an artifact needs an id of its own\n")
    );
    assert_eq!(env.ledger_commits().len(), commits, "nothing written");
}

/// Issue "lessons worth recalling": mining a history with a regression pin,
/// a raised peer range and a plain bump proposes the first two, each scoped
/// by the range its diff supports, and not the third.
#[test]
fn mining_proposes_a_regression_pin_and_a_raised_peer_range_but_not_a_bump() {
    let env = TestEnv::new();
    env.init();
    let proj = env.path().join("plugin");
    std::fs::create_dir_all(&proj).unwrap();
    project_git(&proj, &env, &["init", "-q", "-b", "main"]);
    project_git(
        &proj,
        &env,
        &[
            "remote",
            "add",
            "origin",
            "https://github.com/acme/vite-plugin-x.git",
        ],
    );
    let write = |deps: &str, peer: &str| {
        std::fs::write(
            proj.join("package.json"),
            format!(
                "{{\n  \"name\": \"vite-plugin-x\",\n  \"version\": \"1.4.0\",\n  \"dependencies\": {{{deps}}},\n  \"peerDependencies\": {{\"vite\": \"{peer}\"}}\n}}\n"
            ),
        )
        .unwrap();
    };
    let commit = |message: &str| {
        project_git(&proj, &env, &["add", "."]);
        project_git(&proj, &env, &["commit", "-q", "-m", message]);
    };
    write(
        r#""esbuild": "^0.24.0", "rollup": "^4.20.0""#,
        "^6.0.0 || ^7.0.0",
    );
    commit("Initial commit");
    write(
        r#""esbuild": "0.24.0", "rollup": "^4.20.0""#,
        "^6.0.0 || ^7.0.0",
    );
    commit("fix: esbuild regression (pin to 0.24.0) (#19027)");
    write(
        r#""esbuild": "0.24.0", "rollup": "^4.20.0""#,
        "^6.4.0 || ^7.0.0",
    );
    commit("feat!: require vite 6.4 (#10178)");
    write(
        r#""esbuild": "0.24.0", "rollup": "^4.21.0""#,
        "^6.4.0 || ^7.0.0",
    );
    commit("chore(deps): update dependency rollup to v4.21.0 (#17945)");

    let r = env.lore(&["ingest", "--from-commits", proj.to_str().unwrap()]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let lessons = crate::common::lessons_of(&r.stdout);
    assert_eq!(
        lessons.len(),
        2,
        "the pin and the peer range, not the bump: {}",
        r.stdout
    );
    let pin = env.proposal(&lessons[0]);
    assert_eq!(
        pin["candidate"]["claim"],
        "esbuild above 0.24.0 has a regression"
    );
    assert_eq!(
        pin["candidate"]["rationale"],
        "A commit in acme/vite-plugin-x (acme/vite-plugin-x#19027) changed package.json dependencies: esbuild ^0.24.0 -> 0.24.0: \"fix: esbuild regression (pin to 0.24.0)\"."
    );
    assert_eq!(
        pin["candidate"]["applies_to"]["scope"]["versions"],
        serde_json::json!({"esbuild": ">0.24.0"})
    );
    let peer = env.proposal(&lessons[1]);
    assert_eq!(
        peer["candidate"]["applies_to"]["scope"]["versions"],
        serde_json::json!({"vite": ">=6 <6.4", "vite-plugin-x": ">1.4.0"})
    );
    for p in [&pin, &peer] {
        let claim = p["candidate"]["claim"].as_str().unwrap();
        assert!(
            !claim.starts_with("fix") && !claim.starts_with("feat"),
            "{claim}"
        );
        assert_ne!(
            claim,
            p["artifact"]["summary"].as_str().unwrap(),
            "a claim is never the subject"
        );
    }
    // Mining again writes nothing new.
    let again = env.lore(&["ingest", "--from-commits", proj.to_str().unwrap()]);
    assert_eq!(
        outcomes(again.ok())
            .lines()
            .filter(|l| l.ends_with(" seen"))
            .count(),
        2,
        "{}",
        again.stdout
    );
    env.assert_verifies();
}

/// A package whose manifest names no version (a Python project with a
/// dynamic version) is scoped from the newest release tag before the
/// commit that raised its Python requirement.
#[test]
fn a_raised_engine_range_is_scoped_after_the_last_release_tag() {
    let env = TestEnv::new();
    env.init();
    let proj = env.path().join("pyapp");
    std::fs::create_dir_all(&proj).unwrap();
    project_git(&proj, &env, &["init", "-q", "-b", "main"]);
    let write = |python: &str| {
        std::fs::write(
            proj.join("pyproject.toml"),
            format!("[project]\nname = \"pyapp\"\ndynamic = [\"version\"]\nrequires-python = \"{python}\"\ndependencies = [\"starlette>=0.27.0\"]\n"),
        )
        .unwrap();
    };
    write(">=3.8");
    project_git(&proj, &env, &["add", "."]);
    project_git(&proj, &env, &["commit", "-q", "-m", "Initial commit"]);
    project_git(&proj, &env, &["tag", "1.4.0"]);
    write(">=3.9");
    project_git(&proj, &env, &["add", "."]);
    project_git(&proj, &env, &["commit", "-q", "-m", "Drop Python 3.8"]);
    let r = env.lore(&["ingest", "--from-commits", proj.to_str().unwrap()]);
    let lesson = crate::common::lesson_of(r.ok());
    let p = env.proposal(&lesson);
    assert_eq!(
        p["candidate"]["applies_to"]["scope"]["versions"],
        serde_json::json!({"python": ">=3.8 <3.9", "pypi:pyapp": ">1.4.0"})
    );
    assert_eq!(
        p["candidate"]["claim"],
        "pyapp releases after 1.4.0 requires Python >=3.9; Python >=3.8 <3.9 is no longer supported"
    );
}
