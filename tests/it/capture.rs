//! Capture: session transcripts become artifacts and go through ingest —
//! content-addressed ids (a second capture is `skipped … seen` with no
//! model call), bounded reading, secrets, the command backend and its
//! refusals and outages, the hook, and one model call per artifact under
//! concurrency.

use crate::common::{outcomes, Run, TestEnv};

const CANDIDATE: &str = include_str!("../fixtures/responses/candidate.json");

/// The final event of `version-mismatch.jsonl`: the assistant states cause
/// and fix.
const FINAL_EVENT: &str = "00000014-4c1d-4e2a-9b7f-a11ce0000014";

fn fixture(name: &str) -> String {
    format!(
        "{}/src/pipeline/capture/testdata/{name}",
        env!("CARGO_MANIFEST_DIR")
    )
}

/// A capture model's answer: one moment from the final event.
fn moments_answer(events: &[&str]) -> String {
    let all: Vec<serde_json::Value> = events
        .iter()
        .map(|e| {
            serde_json::json!({
                "event": e,
                "kind": "decision",
                "summary": "Pinned vitest to 3.2.4 because vitest 4.0.5 needs Vite 6 and the workspace is on vite 5.4.21.",
                "detail": "vitest 4.0.5 imports vite/module-runner, which vite 5.4.21 lacks. Fixed by pinning vitest to 3.2.4.",
                "files": ["package.json"]
            })
        })
        .collect();
    serde_json::Value::Array(all).to_string()
}

/// Model stubs for both roles that log each call to `calls` (one line:
/// `capture` or `transform`) and answer from files.
fn model_stubs(env: &TestEnv, capture_answer: &str, delay: &str) -> std::path::PathBuf {
    let calls = env.path().join("calls");
    env.write("capture-answer.json", capture_answer);
    env.write("transform-answer.json", CANDIDATE);
    let cap = env.stub(
        "capture-model",
        &format!(
            "cat >/dev/null; echo \"capture $GIT_LORE_HOOK_ACTIVE\" >> {calls}; sleep {delay}; cat {answer}",
            calls = calls.display(),
            answer = env.path().join("capture-answer.json").display()
        ),
    );
    let tr = env.stub(
        "transform-model",
        &format!(
            "cat >/dev/null; echo \"transform $GIT_LORE_HOOK_ACTIVE\" >> {calls}; sleep {delay}; cat {answer}",
            calls = calls.display(),
            answer = env.path().join("transform-answer.json").display()
        ),
    );
    env.config("lore.capture.command", cap.to_str().unwrap());
    env.config("lore.transform.command", tr.to_str().unwrap());
    calls
}

fn calls(path: &std::path::Path) -> Vec<String> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .map(str::to_owned)
        .collect()
}

fn capture(env: &TestEnv, name: &str, extra: &[&str]) -> Run {
    let f = fixture(name);
    let mut args = vec!["capture", "--transcript", f.as_str()];
    args.extend_from_slice(extra);
    env.lore(&args)
}

#[test]
fn a_version_mismatch_session_is_proposed_once_and_then_seen() {
    let env = TestEnv::new();
    env.init();
    let before = env.ledger_commits().len();
    let r = capture(&env, "version-mismatch.jsonl", &[]);
    let out = r.ok().to_owned();
    assert!(out.starts_with("proposed "), "{out}");
    assert_eq!(out.lines().count(), 1, "{out}");
    r.assert_stderr("capture: 1 artifact found by the offline backend");
    r.assert_stderr("capture: 1 lesson proposed\n");
    let artifact = out.split_whitespace().nth(1).unwrap().to_owned();
    assert_eq!(env.ledger_commits().len(), before + 1);

    // The same transcript again: the same id, seen, nothing written.
    let again = capture(&env, "version-mismatch.jsonl", &[]);
    assert_eq!(outcomes(again.ok()), format!("skipped {artifact} seen\n"));
    assert_eq!(env.ledger_commits().len(), before + 1);
    // A resumed session replays the same event: the same id again.
    let resumed = capture(&env, "resumed.jsonl", &[]);
    assert!(
        resumed.ok().contains(&format!("skipped {artifact} seen")),
        "{}",
        resumed.stdout
    );

    // The artifact on record says where it came from.
    let seen = env.lore(&["seen", &artifact]);
    assert!(seen.ok().contains(" proposed "), "{}", seen.stdout);
    let log = env.git(&["log", "-1", "--format=%B", "ledger"]);
    assert!(log.stdout.contains("Lore-Artifact:"), "{}", log.stdout);
}

#[test]
fn a_session_without_a_lesson_writes_nothing() {
    let env = TestEnv::new();
    env.init();
    let before = env.ledger_commits();
    let r = capture(&env, "no-lesson.jsonl", &[]);
    assert_eq!(r.ok(), "");
    r.assert_stderr("capture: 0 artifacts found by the offline backend");
    assert_eq!(env.ledger_commits(), before);
}

#[test]
fn a_truncated_transcript_is_read_with_its_bad_lines_counted() {
    let env = TestEnv::new();
    env.init();
    let r = capture(&env, "truncated.jsonl", &[]);
    assert_eq!(r.ok(), "");
    r.assert_stderr("skipped 1 malformed line: not a JSON object");
    r.assert_stderr("skipped the last line: it was cut off mid-write");
}

#[test]
fn a_missing_or_foreign_transcript_is_refused_with_its_path() {
    let env = TestEnv::new();
    env.init();
    let r = env.lore(&["capture", "--transcript", "/nonexistent/s.jsonl"]);
    r.assert_refused("git-lore: cannot open the transcript /nonexistent/s.jsonl");
    // A file that is not a transcript is refused.
    let f = env.write("notes.txt", "just some notes\nnot json\n");
    let r = env.lore(&["capture", "--transcript", f.to_str().unwrap()]);
    r.assert_refused(&format!(
        "git-lore: transcript {}: no session events found: this is neither a Claude Code transcript (lines with type user, assistant or system and a uuid) nor a Codex rollout",
        f.display()
    ));
    // An empty one, or one of only other well-formed lines, has no events.
    for (name, text) in [
        ("empty.jsonl", ""),
        (
            "summary.jsonl",
            "{\"type\":\"summary\",\"summary\":\"x\"}\n",
        ),
    ] {
        let f = env.write(name, text);
        let r = env.lore(&["capture", "--transcript", f.to_str().unwrap()]);
        assert_eq!(r.code, 0, "{}", r.stderr);
        r.assert_stderr("no session events found");
    }
    let r = env.lore(&["capture"]);
    r.assert_refused("--transcript");
}

#[test]
fn a_fifty_megabyte_transcript_is_read_from_its_newest_part() {
    use std::io::Write;
    let env = TestEnv::new();
    env.init();
    // 50 MB of ordinary session lines, then the version-mismatch session.
    let path = env.path().join("big.jsonl");
    let mut f = std::io::BufWriter::new(std::fs::File::create(&path).unwrap());
    let filler = "x".repeat(900);
    let mut written = 0usize;
    let mut n = 0u64;
    while written < 50_000_000 {
        let line = format!(
            "{{\"type\":\"user\",\"uuid\":\"f{n:035}\",\"sessionId\":\"s1\",\"timestamp\":\"2026-06-12T09:00:00Z\",\"message\":{{\"role\":\"user\",\"content\":[{{\"type\":\"text\",\"text\":\"{filler}\"}}]}}}}\n"
        );
        f.write_all(line.as_bytes()).unwrap();
        written += line.len();
        n += 1;
    }
    f.write_all(&std::fs::read(fixture("version-mismatch.jsonl")).unwrap())
        .unwrap();
    drop(f);
    let r = env.lore(&["capture", "--transcript", path.to_str().unwrap()]);
    assert!(r.ok().starts_with("proposed "), "{}", r.stdout);
    r.assert_stderr("the transcript is over the 32 MiB cap: only its last 32 MiB were read");
}

#[test]
fn a_secret_in_tool_output_never_reaches_the_ledger() {
    let env = TestEnv::new();
    env.init();
    let raw = std::fs::read_to_string(fixture("secret-in-tool-output.jsonl")).unwrap();
    let key = raw
        .split("AWS_ACCESS_KEY_ID=")
        .nth(1)
        .unwrap()
        .chars()
        .take(20)
        .collect::<String>();
    assert!(key.starts_with("AKIA"), "{key}");
    let dry = capture(&env, "secret-in-tool-output.jsonl", &["--dry-run"]);
    assert!(!dry.ok().contains(&key));
    assert!(
        dry.stdout.contains("[redacted:aws_access_key]"),
        "{}",
        dry.stdout
    );
    dry.assert_stderr("had secrets replaced: email, aws_access_key");
    let r = capture(&env, "secret-in-tool-output.jsonl", &[]);
    r.ok();
    let all = env.git(&["log", "-p", "ledger"]).stdout;
    assert!(!all.contains(&key), "the key reached the ledger");
    assert!(all.contains("[redacted:aws_access_key]"));
}

#[test]
fn a_home_path_in_tool_output_is_replaced_before_it_is_kept_or_sent() {
    let env = TestEnv::new();
    env.init();
    let names = ["dana.ruiz", "druiz"];
    let raw = std::fs::read_to_string(fixture("home-path-in-tool-output.jsonl")).unwrap();
    assert!(names.iter().all(|n| raw.contains(n)));
    // Kept: the artifact keeps the path and loses the name.
    let dry = capture(
        &env,
        "home-path-in-tool-output.jsonl",
        &["--dry-run", "--json"],
    );
    let arts: serde_json::Value = serde_json::from_str(dry.ok()).unwrap();
    let detail = arts[0]["detail"].as_str().unwrap();
    assert!(
        detail.contains(
            "Crash seen at [redacted:home_path]/acme-api/node_modules/serverless-offline/dist/index.js:42 \
             and in [redacted:home_path]\\acme-api on the Windows box."
        ),
        "{detail}"
    );
    assert!(detail
        .ends_with("Redacted by git-lore capture: 2 disclosure scanner findings (home_path)."));
    dry.assert_stderr("had secrets replaced: home_path");
    let r = capture(&env, "home-path-in-tool-output.jsonl", &[]);
    r.ok();
    let all = env.git(&["log", "-p", "ledger"]).stdout;
    assert!(all.contains("[redacted:home_path]/acme-api"), "{all}");
    assert!(
        names.iter().all(|n| !all.contains(n)),
        "a name reached the ledger"
    );

    // Sent: the capture model's prompt holds no name either.
    let env = TestEnv::new();
    env.init();
    let prompt = env.path().join("prompt.txt");
    let model = env.stub(
        "capture-model",
        &format!("cat > {}; echo '[]'", prompt.display()),
    );
    env.config("lore.capture.command", model.to_str().unwrap());
    capture(&env, "home-path-in-tool-output.jsonl", &[]).ok();
    let sent = std::fs::read_to_string(&prompt).unwrap();
    assert!(
        sent.contains("Crash seen at [redacted:home_path]/acme-api/"),
        "{sent}"
    );
    assert!(
        names.iter().all(|n| !sent.contains(n)),
        "a name reached the model"
    );
}

#[test]
fn a_dry_run_prints_the_artifacts_and_writes_nothing() {
    let env = TestEnv::new();
    // No lesson repository is needed for the offline backend.
    let r = capture(&env, "version-mismatch.jsonl", &["--dry-run", "--json"]);
    let arts: serde_json::Value = serde_json::from_str(r.ok()).unwrap();
    assert_eq!(arts.as_array().unwrap().len(), 1);
    assert_eq!(arts[0]["kind"], "decision");
    assert_eq!(arts[0]["trigger"], "manual");
    assert!(!env.repo().exists());
    env.init();
    let before = env.ledger_commits();
    let r = capture(&env, "version-mismatch.jsonl", &["--dry-run"]);
    let line: serde_json::Value = serde_json::from_str(r.ok().trim()).unwrap();
    assert_eq!(line["id"], arts[0]["id"], "the same id every time");
    assert_eq!(env.ledger_commits(), before);
}

#[test]
fn the_command_backend_refuses_moments_from_outside_the_transcript() {
    let env = TestEnv::new();
    env.init();
    let log = model_stubs(
        &env,
        &moments_answer(&[FINAL_EVENT, "00000099-dead-beef-0000-000000000099"]),
        "0",
    );
    let r = capture(&env, "version-mismatch.jsonl", &[]);
    let out = r.ok().to_owned();
    assert!(out.starts_with("proposed "), "{out}\n{}", r.stderr);
    r.assert_stderr(
        "capture: refused moment 2 cites event \"00000099-dead-beef-0000-000000000099\", which is not in the transcript",
    );
    r.assert_stderr("1 artifact found by the model");
    // The model runs with git-lore's hooks silenced.
    assert_eq!(calls(&log), ["capture 1", "transform 1"]);

    // Again: the answer is remembered, the artifact is seen, no model call.
    let again = capture(&env, "version-mismatch.jsonl", &[]);
    assert!(again.ok().starts_with("skipped "), "{}", again.stdout);
    assert!(outcomes(&again.stdout).trim_end().ends_with(" seen"));
    again.assert_stderr("by the model earlier (its answer was remembered)");
    assert_eq!(calls(&log).len(), 2, "no model call");
}

#[test]
fn a_capture_model_that_gives_no_answer_is_an_outage() {
    let env = TestEnv::new();
    env.init();
    let before = env.ledger_commits();
    for (script, why) in [
        (
            "cat >/dev/null; echo down >&2; exit 3",
            "the model program failed (exited with status 3): down",
        ),
        (
            "cat >/dev/null; echo 'Here is what I found: nothing.'",
            "the model's answer cannot be used",
        ),
        ("cat >/dev/null", "the model printed nothing"),
    ] {
        let m = env.stub("capture-model", script);
        env.config("lore.capture.command", m.to_str().unwrap());
        let r = capture(&env, "version-mismatch.jsonl", &[]);
        assert_eq!(r.code, 2, "{script}: {}\n{}", r.stdout, r.stderr);
        assert!(
            r.stderr.starts_with(&format!("git-lore: {why}")),
            "{script}: {}",
            r.stderr
        );
        let repo = env.repo().display().to_string();
        assert!(
            r.stderr.ends_with(&format!("; nothing was captured (safe to run again): check the program `git -C {repo} config lore.capture.command` shows, or use the built-in offline backend: `git -C {repo} config lore.capture.backend offline`\n")),
            "{script}: {}",
            r.stderr
        );
        assert_eq!(r.stderr.lines().count(), 1, "{}", r.stderr);
        assert_eq!(env.ledger_commits(), before, "{script}");
    }
    // Nothing was remembered: a working model is asked next time.
    model_stubs(&env, &moments_answer(&[FINAL_EVENT]), "0");
    assert!(capture(&env, "version-mismatch.jsonl", &[])
        .ok()
        .starts_with("proposed "));
}

#[test]
fn the_hook_input_names_the_transcript_and_the_marker_silences_it() {
    let env = TestEnv::new();
    env.init();
    let input = serde_json::json!({
        "session_id": "5f1c0a2e-0000-4000-8000-000000000001",
        "transcript_path": fixture("version-mismatch.jsonl"),
        "cwd": env.path(),
        "hook_event_name": "SessionEnd",
        "reason": "prompt_input_exit"
    })
    .to_string();
    let before = env.ledger_commits();
    let mut quiet = env.lore_cmd(&["capture", "--hook"]);
    quiet.env("GIT_LORE_HOOK_ACTIVE", "1");
    let o = quiet.output().unwrap();
    assert_eq!((o.status.code(), o.stdout.len()), (Some(0), 0));
    assert_eq!(env.ledger_commits(), before, "a no-op under the marker");

    let r = env.lore_stdin(&["capture", "--hook"], input.as_bytes());
    assert!(r.ok().starts_with("proposed "), "{}", r.stderr);
    let dry = env.lore_stdin(&["capture", "--hook", "--dry-run"], input.as_bytes());
    let a: serde_json::Value = serde_json::from_str(dry.ok().trim()).unwrap();
    assert_eq!(a["trigger"], "auto");

    let bad = env.lore_stdin(&["capture", "--hook"], b"{\"cwd\": 3}");
    bad.assert_refused("(`capture --hook` reads the JSON a SessionEnd or Stop hook gets on stdin)");
}

#[test]
fn eight_concurrent_captures_make_the_model_calls_of_one() {
    let env = TestEnv::new();
    env.init();
    let log = model_stubs(&env, &moments_answer(&[FINAL_EVENT]), "0.5");
    let f = fixture("version-mismatch.jsonl");
    let before = env.ledger_commits().len();
    let children: Vec<_> = (0..8)
        .map(|_| env.spawn_lore(&["capture", "--transcript", &f]))
        .collect();
    let runs: Vec<_> = children
        .into_iter()
        .map(|c| c.wait_with_output().unwrap())
        .collect();
    for o in &runs {
        assert_eq!(
            o.status.code(),
            Some(0),
            "{}{}",
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&o.stderr)
        );
    }
    let mut made = calls(&log);
    made.sort();
    assert_eq!(
        made,
        ["capture 1", "transform 1"],
        "exactly one run's calls"
    );
    assert_eq!(env.ledger_commits().len(), before + 1, "one outcome");
    let proposed = runs
        .iter()
        .filter(|o| String::from_utf8_lossy(&o.stdout).starts_with("proposed "))
        .count();
    assert_eq!(proposed, 1);
    // The others said why they did nothing.
    for o in &runs {
        let (out, err) = (
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&o.stderr),
        );
        assert!(
            out.starts_with("proposed ")
                || out.ends_with(" seen\n")
                || out.contains(" claimed (from capture:")
                || err.contains("another run is asking the model about this transcript"),
            "{out}{err}"
        );
    }
    assert!(
        !env.repo().join("lore/claims").exists()
            || std::fs::read_dir(env.repo().join("lore/claims"))
                .unwrap()
                .count()
                == 0,
        "every claim was let go"
    );
}

#[test]
fn eight_concurrent_ingests_ask_the_model_once_per_artifact() {
    let env = TestEnv::new();
    env.init();
    // Two artifacts: the moments of the resumed session.
    let dry = capture(&env, "resumed.jsonl", &["--dry-run"]);
    let file = env.write("captured.jsonl", dry.ok());
    assert_eq!(dry.stdout.lines().count(), 2, "{}", dry.stdout);
    let log = model_stubs(&env, "[]", "0.5");
    let before = env.ledger_commits().len();
    let children: Vec<_> = (0..8)
        .map(|_| env.spawn_lore(&["ingest", file.to_str().unwrap()]))
        .collect();
    let mut lines = Vec::new();
    for c in children {
        let o = c.wait_with_output().unwrap();
        let out = String::from_utf8_lossy(&o.stdout).into_owned();
        assert_eq!(
            o.status.code(),
            Some(0),
            "{out}{}",
            String::from_utf8_lossy(&o.stderr)
        );
        lines.extend(out.lines().map(str::to_owned));
    }
    assert_eq!(
        calls(&log),
        ["transform 1", "transform 1"],
        "one call per artifact"
    );
    assert_eq!(env.ledger_commits().len(), before + 2, "one outcome each");
    let decided = lines.iter().filter(|l| l.starts_with("proposed ")).count();
    assert_eq!(decided, 2, "{lines:#?}");
    assert!(
        outcomes(&lines.join("\n"))
            .lines()
            .all(|l| l.starts_with("proposed ") || l.ends_with(" seen") || l.ends_with(" claimed")),
        "{lines:#?}"
    );
}

/// The "done when", with no model and no other tool: setup, one
/// captured session through the hook, and the lesson is approved and
/// recalled for the versions it holds for (and only those).
#[test]
fn a_captured_session_becomes_an_approved_recalled_lesson_with_no_model() {
    let env = TestEnv::new();
    env.init();
    let project = env.path().join("app");
    std::fs::create_dir_all(&project).unwrap();
    let mut setup = env.lore_cmd(&["setup", "claude", "--project"]);
    setup.current_dir(&project);
    assert!(setup.output().unwrap().status.success());
    assert!(project.join(".claude/settings.json").exists());

    let input = serde_json::json!({
        "session_id": "5f1c0a2e-0000-4000-8000-000000000001",
        "transcript_path": fixture("version-mismatch.jsonl"),
        "cwd": project,
        "hook_event_name": "SessionEnd",
        "reason": "prompt_input_exit"
    })
    .to_string();
    env.lore_stdin(&["hook", "session-end"], input.as_bytes())
        .ok();
    let mut lesson = String::new();
    // A bound only so a broken worker fails instead of hanging; a loaded
    // machine may take seconds to start it.
    for _ in 0..4800 {
        let list: serde_json::Value =
            serde_json::from_str(env.lore(&["list", "--json"]).ok()).unwrap();
        if let Some(id) = list[0]["id"].as_str() {
            lesson = id.to_owned();
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(25));
    }
    assert!(
        !lesson.is_empty(),
        "the background capture proposed nothing"
    );
    env.lore(&["confirm", &lesson, "private"]).ok();
    let judged = env.lore(&["judge", "--all", "--yes"]);
    judged.ok();
    judged.assert_stderr("judged: 1 lesson approved\n");
    let hit = env.lore(&[
        "recall",
        "--stack",
        "vite@5.4.21",
        "--stack",
        "vitest@4.0.5",
    ]);
    assert!(hit.ok().starts_with(&lesson), "{}", hit.stdout);
    let miss = env.lore(&["recall", "--stack", "vite@6.0.0", "--stack", "vitest@4.0.5"]);
    assert_eq!(miss.ok(), "");
}

/// `version-mismatch.jsonl` with colour codes, a bell and a bidi override
/// in every text and tool output, as a terminal would have them.
fn coloured_transcript(env: &TestEnv) -> std::path::PathBuf {
    let raw = std::fs::read_to_string(fixture("version-mismatch.jsonl")).unwrap();
    let mut out = String::new();
    for line in raw.lines() {
        let mut v: serde_json::Value = serde_json::from_str(line).unwrap();
        if let Some(blocks) = v
            .pointer_mut("/message/content")
            .and_then(|c| c.as_array_mut())
        {
            for b in blocks {
                for key in ["text", "content"] {
                    if let Some(serde_json::Value::String(s)) = b.get_mut(key) {
                        *s = format!(
                            "\u{1b}[31mFAIL\u{1b}[39m \u{7}{s}\u{202e}\u{1b}]0;title\u{7}\r\n"
                        );
                    }
                }
            }
        }
        out.push_str(&v.to_string());
        out.push('\n');
    }
    env.write("coloured.jsonl", &out)
}

#[test]
fn colour_codes_and_control_characters_in_tool_output_do_not_spoil_a_moment() {
    let env = TestEnv::new();
    env.init();
    let path = coloured_transcript(&env);
    let r = env.lore(&["capture", "--transcript", path.to_str().unwrap()]);
    let out = r.ok().to_owned();
    assert!(out.starts_with("proposed "), "{out}\n{}", r.stderr);
    r.assert_stderr("capture: 1 lesson proposed\n");
    let all = env.git(&["log", "-p", "ledger"]).ok().to_owned();
    assert!(all.contains("Lore-Action: propose"), "{all}");
    for bad in ['\u{1b}', '\u{7}', '\u{202e}', '\r'] {
        assert!(!all.contains(bad), "{bad:?} reached the ledger");
    }
}

#[test]
fn a_password_in_a_url_a_model_names_as_a_file_never_reaches_the_ledger() {
    let env = TestEnv::new();
    env.init();
    let mut answer: serde_json::Value =
        serde_json::from_str(&moments_answer(&[FINAL_EVENT])).unwrap();
    // Not example.com: the scanner lets documentation URLs through.
    answer[0]["files"] = serde_json::json!(["https://x:S3cr3tPassw0rd@git.acme.io/repo.git"]);
    model_stubs(&env, &answer.to_string(), "0");
    let dry = capture(&env, "version-mismatch.jsonl", &["--dry-run"]);
    let a: serde_json::Value = serde_json::from_str(dry.ok().trim()).unwrap();
    assert!(!dry.stdout.contains("S3cr3tPassw0rd"), "{}", dry.stdout);
    assert_eq!(
        a["files"],
        serde_json::json!(["[redacted:url_credentials]/repo.git"])
    );
    dry.assert_stderr("had secrets replaced: url_credentials");
    capture(&env, "version-mismatch.jsonl", &[]).ok();
    let all = env.git(&["log", "-p", "ledger"]).ok().to_owned();
    assert!(all.contains("Lore-Action: propose"), "{all}");
    assert!(
        !all.contains("S3cr3tPassw0rd"),
        "the password reached the ledger"
    );
}

#[test]
fn a_fifo_or_a_directory_as_the_transcript_is_refused_without_hanging() {
    let env = TestEnv::new();
    env.init();
    let fifo = env.path().join("t.fifo");
    rustix::fs::mkfifoat(
        rustix::fs::CWD,
        &fifo,
        rustix::fs::Mode::from_raw_mode(0o600),
    )
    .unwrap();
    let dir = env.path().join("a-dir");
    std::fs::create_dir(&dir).unwrap();
    let hook = serde_json::json!({
        "session_id": "5f1c0a2e-0000-4000-8000-000000000001",
        "transcript_path": fifo,
        "cwd": env.path(),
        "hook_event_name": "SessionEnd",
        "reason": "prompt_input_exit"
    })
    .to_string();
    env.write("hook.json", &hook);
    for (args, path) in [
        (
            vec!["capture", "--transcript", fifo.to_str().unwrap()],
            &fifo,
        ),
        (vec!["capture", "--transcript", dir.to_str().unwrap()], &dir),
    ] {
        let mut child = env.spawn_lore(&args);
        let start = std::time::Instant::now();
        while child.try_wait().unwrap().is_none() {
            if start.elapsed() > std::time::Duration::from_secs(30) {
                child.kill().unwrap();
                panic!("capture hung on {}", path.display());
            }
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
        let r = Run::from(child.wait_with_output().unwrap());
        r.assert_refused(&format!(
            "git-lore: transcript {}: it is not a regular file (a FIFO, socket, device or directory); capture reads a transcript file",
            path.display()
        ));
    }
    // The hook path: stdin is the hook input naming the FIFO.
    let mut cmd = env.lore_cmd(&["capture", "--hook"]);
    cmd.stdin(std::fs::File::open(env.path().join("hook.json")).unwrap())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    let mut child = cmd.spawn().unwrap();
    let start = std::time::Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > std::time::Duration::from_secs(30) {
            child.kill().unwrap();
            panic!("capture --hook hung on a FIFO");
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let r = Run::from(child.wait_with_output().unwrap());
    r.assert_refused("it is not a regular file");
}

/// Issue "lessons worth recalling": a session whose install fails with a
/// real ERESOLVE and is then fixed becomes, offline, an approved lesson
/// naming both packages, scoped by ranges; it is recalled for a project
/// with the same conflict at other patch versions, and not for one with
/// the fix installed.
#[test]
fn a_real_eresolve_fixed_in_a_session_becomes_a_lesson_scoped_by_ranges() {
    let env = TestEnv::new();
    env.init();
    let transcript = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/sessions/eresolve-plugin-legacy.jsonl"
    );
    let r = env.lore(&["capture", "--transcript", transcript]);
    let lesson = crate::common::lesson_of(r.ok());
    let p = env.proposal(&lesson);
    let c = &p["candidate"];
    assert_eq!(
        c["claim"],
        "@vitejs/plugin-legacy 6.0.0 requires (peer) vite ^6.0.0; with vite 7.1.11 use @vitejs/plugin-legacy 7.0.0"
    );
    assert_eq!(
        c["evidence"]["resolution"],
        "Upgrade @vitejs/plugin-legacy to 7.0.0 (`npm install -D @vitejs/plugin-legacy@7.0.0`)."
    );
    assert_eq!(
        c["applies_to"]["stack"],
        serde_json::json!(["@vitejs/plugin-legacy", "vite"])
    );
    assert_eq!(
        c["applies_to"]["scope"]["versions"],
        serde_json::json!({"@vitejs/plugin-legacy": "<7", "vite": ">=7"})
    );
    // The evidence travels with the proposal: the ERESOLVE edge, the
    // command that fixed it and the build that passed after.
    let facts = p["artifact"]["facts"].as_array().unwrap();
    assert!(facts.iter().any(|f| f["fact"] == "requirement"
        && f["package"] == "vite"
        && f["required"] == "^6.0.0"
        && f["found"] == "7.1.11"));
    assert!(facts
        .iter()
        .any(|f| f["fact"] == "outcome"
            && f["command"] == "npm install -D @vitejs/plugin-legacy@7.0.0"));

    env.confirm(&lesson, "org");
    let judged = env.lore(&["judge", "--all", "--yes"]);
    judged.ok();
    judged.assert_stderr("judged: 1 lesson approved\n");

    // The same conflict at other patch versions: recalled.
    let hit = env.lore(&[
        "recall",
        "--stack",
        "vite@7.1.12",
        "--stack",
        "@vitejs/plugin-legacy@6.0.1",
    ]);
    assert!(hit.ok().starts_with(&lesson[..11]), "{}", hit.stdout);
    assert!(
        hit.stdout.contains("use @vitejs/plugin-legacy 7.0.0"),
        "{}",
        hit.stdout
    );
    // The fix installed: not recalled.
    let fixed = env.lore(&[
        "recall",
        "--stack",
        "vite@7.1.11",
        "--stack",
        "@vitejs/plugin-legacy@7.0.0",
    ]);
    assert_eq!(fixed.ok(), "");
    env.assert_verifies();
}
