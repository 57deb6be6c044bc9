//! Codex CLI: a session rollout captured like a Claude Code transcript (the
//! format told by its lines), its Stop hook capturing only what each turn
//! added, and its SessionStart hook answered with the lessons.

use crate::common::{lesson_of, outcomes, Run, TestEnv};

/// The rollout of tests/fixtures/sessions/codex-eresolve-then-lint.jsonl:
/// turn 1 (its first 25 lines) fixes a real ERESOLVE, turn 2 a lint crash.
const ROLLOUT: &str = include_str!("../fixtures/sessions/codex-eresolve-then-lint.jsonl");
const TURN_ONE_LINES: usize = 25;
const SESSION: &str = "0199f3a2-5c1e-7d40-9b8a-2f6e4c1d7a35";

fn rollout_path() -> &'static str {
    concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/sessions/codex-eresolve-then-lint.jsonl"
    )
}

/// The first `n` lines of the rollout, each with its newline.
fn lines(n: usize) -> String {
    ROLLOUT.split_inclusive('\n').take(n).collect()
}

/// The event id of the rollout line holding `needle`: `codex:<its offset>`.
fn event_of(needle: &str) -> String {
    let mut at = 0;
    for line in ROLLOUT.split_inclusive('\n') {
        if line.contains(needle) {
            return format!("codex:{at}");
        }
        at += line.len();
    }
    panic!("no line holds {needle}")
}

/// What Codex hands its Stop hook (every key of its
/// stop.command.input schema).
fn stop_input(env: &TestEnv, transcript: &std::path::Path) -> String {
    serde_json::json!({
        "session_id": SESSION,
        "turn_id": "0199f3a2-5c4a-7b10-8e2d-91c0a7b3e611",
        "transcript_path": transcript,
        "cwd": env.path(),
        "hook_event_name": "Stop",
        "model": "gpt-5.3-codex",
        "permission_mode": "default",
        "stop_hook_active": false,
        "last_assistant_message": "Done."
    })
    .to_string()
}

#[test]
fn a_codex_rollout_with_a_real_eresolve_becomes_the_lesson_and_is_seen_the_second_time() {
    let env = TestEnv::new();
    env.init();
    let before = env.ledger_commits().len();
    let r = env.lore(&["capture", "--transcript", rollout_path()]);
    let out = r.ok().to_owned();
    r.assert_stderr("capture: 2 artifacts found by the offline backend");
    r.assert_stderr("capture: 2 lessons proposed\n");
    // The failure's event is the function_call_output holding the ERESOLVE
    // text; the session is the rollout's own.
    let failure =
        event_of(r#""type":"function_call_output","call_id":"call_Qm8f3XnV0aLr5TzK2cWb9yEd""#);
    assert!(
        out.lines()
            .next()
            .unwrap()
            .ends_with(&format!("(from capture:{SESSION}:{failure})")),
        "{out}"
    );

    // The same lesson as from Claude Code's transcript of this session
    // (capture.rs, a_real_eresolve_fixed_in_a_session_…).
    let lesson = lesson_of(&out);
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
        c["applies_to"]["scope"]["versions"],
        serde_json::json!({"@vitejs/plugin-legacy": "<7", "vite": ">=7"})
    );
    let a = &p["artifact"];
    assert_eq!(a["session_id"], SESSION);
    assert_eq!(
        a["created_at"], "2026-09-02T09:00:19Z",
        "the failure's time"
    );
    let facts = a["facts"].as_array().unwrap();
    assert!(facts.iter().any(|f| f["fact"] == "requirement"
        && f["package"] == "vite"
        && f["required"] == "^6.0.0"
        && f["found"] == "7.1.11"
        && f["by"]["name"] == "@vitejs/plugin-legacy"));
    assert!(facts.iter().any(|f| f["fact"] == "change"
        && f["package"] == "@vitejs/plugin-legacy"
        && f["to"] == "7.0.0"));
    assert!(facts
        .iter()
        .any(|f| f["fact"] == "outcome"
            && f["command"] == "npm install -D @vitejs/plugin-legacy@7.0.0"));

    // Turn 2: the apply_patch edit of package.json is the moment's file.
    let second = &env.proposal(&crate::common::lessons_of(&out)[1])["artifact"];
    assert_eq!(second["files"], serde_json::json!(["package.json"]));
    assert!(
        second["summary"]
            .as_str()
            .unwrap()
            .contains("upgraded eslint-plugin-react-hooks to 5.1.0"),
        "{second}"
    );

    // Captured again: the same ids, seen, nothing written.
    let ids: Vec<&str> = out
        .lines()
        .map(|l| l.split_whitespace().nth(1).unwrap())
        .collect();
    let again = env.lore(&["capture", "--transcript", rollout_path()]);
    assert_eq!(
        outcomes(again.ok()),
        format!("skipped {} seen\nskipped {} seen\n", ids[0], ids[1])
    );
    assert_eq!(env.ledger_commits().len(), before + 2);
    env.assert_verifies();
}

#[test]
fn bad_lines_in_a_rollout_are_skipped_and_counted_and_the_rest_is_read() {
    let env = TestEnv::new();
    let mut text = lines(TURN_ONE_LINES);
    // A line of a rollout type without its payload object, a line that is
    // not JSON, and a last line cut while Codex was writing it.
    let at = text
        .find("{\"timestamp\":\"2026-09-02T09:00:24.630Z\"")
        .unwrap();
    text.insert_str(
        at,
        "{\"timestamp\":\"2026-09-02T09:00:24.000Z\",\"type\":\"response_item\",\"payload\":\"oops\"}\nnot json at all\n",
    );
    text.push_str("{\"timestamp\":\"2026-09-02T09:04:10.015Z\",\"type\":\"event_msg\",\"payl");
    let f = env.write("rollout-bad.jsonl", &text);
    let r = env.lore(&["capture", "--transcript", f.to_str().unwrap(), "--dry-run"]);
    let shown = f.display().to_string();
    r.assert_stderr(&format!(
        "capture: {shown}: skipped 2 malformed lines: not a JSON object"
    ));
    r.assert_stderr(&format!(
        "capture: {shown}: skipped the last line: it was cut off mid-write (the session may still be running)"
    ));
    r.assert_stderr("capture: 1 artifact found by the offline backend (dry run, nothing written)");
    let a: serde_json::Value = serde_json::from_str(r.ok().trim()).unwrap();
    assert_eq!(a["session_id"], SESSION);
}

#[test]
fn a_file_that_is_neither_a_transcript_nor_a_rollout_is_refused_and_nothing_is_written() {
    let env = TestEnv::new();
    env.init();
    let before = env.ledger_commits();
    // Chat-completions messages: JSON Lines, but neither format.
    let f = env.write(
        "chat.jsonl",
        "{\"role\":\"user\",\"content\":\"hi\"}\n{\"role\":\"assistant\",\"content\":\"hello\"}\n",
    );
    for extra in [&[][..], &["--dry-run"][..]] {
        let mut args = vec!["capture", "--transcript", f.to_str().unwrap()];
        args.extend_from_slice(extra);
        let r = env.lore(&args);
        r.assert_refused(&format!(
            "git-lore: transcript {}: no session events found: this is neither a Claude Code transcript (lines with type user, assistant or system and a uuid) nor a Codex rollout (lines with type session_meta, response_item, event_msg or turn_context and an object payload); capture reads those two formats",
            f.display()
        ));
        assert_eq!(r.stdout, "");
    }
    assert_eq!(env.ledger_commits(), before);
}

#[test]
fn the_stop_hook_captures_only_what_each_turn_added() {
    let env = TestEnv::new();
    env.init();
    let rollout = env.path().join("rollout.jsonl");
    let stop = |env: &TestEnv| -> Run {
        env.lore_stdin(&["capture", "--hook"], stop_input(env, &rollout).as_bytes())
    };
    // Turn 1 ended while Codex was still writing the next line.
    let turn_one = lines(TURN_ONE_LINES);
    let next = &lines(TURN_ONE_LINES + 1)[turn_one.len()..];
    std::fs::write(&rollout, format!("{turn_one}{}", &next[..40])).unwrap();
    let first = stop(&env);
    let out = first.ok().to_owned();
    assert_eq!(out.lines().count(), 1, "{out}");
    let eresolve = lesson_of(&out);
    assert!(env.proposal(&eresolve)["candidate"]["claim"]
        .as_str()
        .unwrap()
        .starts_with("@vitejs/plugin-legacy 6.0.0 requires (peer) vite ^6.0.0"),);
    let records = std::fs::read_dir(env.repo().join("lore/captured"))
        .unwrap()
        .count();
    assert_eq!(records, 1);

    // Turn 2 written up to its last message, which is cut mid-line: no
    // moment yet, and nothing of turn 1 read again (not even as `seen`).
    let all_lines = ROLLOUT.split_inclusive('\n').count();
    let upto = lines(all_lines - 2);
    let last = &lines(all_lines - 1)[upto.len()..];
    std::fs::write(&rollout, format!("{upto}{}", &last[..last.len() / 2])).unwrap();
    let second = stop(&env);
    assert_eq!(second.ok(), "");
    second.assert_stderr("capture: 0 artifacts found by the offline backend");
    second.assert_stderr("skipped the last line: it was cut off mid-write");

    // The message written whole: it is read now, and is turn 2's moment.
    std::fs::write(&rollout, ROLLOUT).unwrap();
    let third = stop(&env);
    let out3 = third.ok().to_owned();
    third.assert_stderr("capture: 1 artifact found by the offline backend");
    assert_eq!(out3.lines().count(), 1, "{out3}");
    assert!(out3.starts_with("proposed "), "{out3}");
    let lint = &env.proposal(&lesson_of(&out3))["artifact"];
    assert!(lint["summary"]
        .as_str()
        .unwrap()
        .contains("eslint-plugin-react-hooks to 5.1.0"));

    // A Stop with nothing new: nothing read, nothing written.
    let commits = env.ledger_commits();
    let fourth = stop(&env);
    assert_eq!(fourth.ok(), "");
    fourth.assert_stderr("capture: 0 artifacts found");
    assert_eq!(env.ledger_commits(), commits);

    // The whole rollout by hand: both already there.
    let all = env.lore(&["capture", "--transcript", rollout.to_str().unwrap()]);
    assert_eq!(
        outcomes(all.ok()).matches(" seen\n").count(),
        2,
        "{}",
        all.stdout
    );

    // A Stop of a session that keeps no rollout: nothing to do.
    let none = stop_input(&env, &rollout).replace(
        &format!("\"transcript_path\":{}", serde_json::json!(rollout)),
        "\"transcript_path\":null",
    );
    let r = env.lore_stdin(&["capture", "--hook"], none.as_bytes());
    assert_eq!(r.ok(), "");
    r.assert_stderr(
        "capture: the Stop hook names no transcript (the session keeps none); nothing to do",
    );
}

/// Waits (up to 2 minutes) until the session-end log holds `n` lines
/// with `needle`.
fn log_has(env: &TestEnv, needle: &str, n: usize) -> String {
    let path = env.repo().join("lore/session-end.log");
    let mut log = String::new();
    for _ in 0..4800 {
        log = std::fs::read_to_string(&path).unwrap_or_default();
        if log.matches(needle).count() >= n {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(25));
    }
    log
}

#[test]
fn hook_session_end_on_codex_s_stop_captures_each_turn_s_new_moments_in_the_background() {
    let env = TestEnv::new();
    env.init();
    let rollout = env.path().join("rollout.jsonl");
    std::fs::write(&rollout, lines(TURN_ONE_LINES)).unwrap();
    let r = env.lore_stdin(
        &["hook", "session-end"],
        stop_input(&env, &rollout).as_bytes(),
    );
    assert_eq!((r.code, r.stdout.as_str(), r.stderr.as_str()), (0, "", ""));
    let done = format!("capture of session {SESSION}: capture: 1 lesson proposed");
    let log = log_has(&env, &done, 1);
    assert!(log.contains(&done), "{log}");

    std::fs::write(&rollout, ROLLOUT).unwrap();
    let r = env.lore_stdin(
        &["hook", "session-end"],
        stop_input(&env, &rollout).as_bytes(),
    );
    assert_eq!((r.code, r.stdout.as_str()), (0, ""));
    let log = log_has(&env, &done, 2);
    assert_eq!(log.matches(&done).count(), 2, "{log}");
    assert!(!log.contains(" seen"), "turn 1 was not read again:\n{log}");
    let list: serde_json::Value = serde_json::from_str(env.lore(&["list", "--json"]).ok()).unwrap();
    assert_eq!(list.as_array().unwrap().len(), 2, "{list}");
}

#[test]
fn session_start_answers_codex_with_the_lessons_as_additional_context() {
    let env = TestEnv::new();
    env.init();
    let r = env.lore(&["capture", "--transcript", rollout_path()]);
    let lesson = lesson_of(r.ok());
    env.confirm(&lesson, "org");
    env.lore(&["judge", "--all", "--yes"]).ok();
    // A project with the same conflict at other patch versions.
    let project = env.path().join("web");
    std::fs::create_dir_all(&project).unwrap();
    std::fs::write(
        project.join("package-lock.json"),
        r#"{"name": "web", "version": "1.0.0", "lockfileVersion": 3, "requires": true, "packages": {
  "": {"name": "web", "version": "1.0.0", "devDependencies": {"vite": "^7.1.0", "@vitejs/plugin-legacy": "^6.0.0"}},
  "node_modules/vite": {"version": "7.1.12", "dev": true},
  "node_modules/@vitejs/plugin-legacy": {"version": "6.0.1", "dev": true}
}}"#,
    )
    .unwrap();
    // What Codex hands its SessionStart hook.
    let input = serde_json::json!({
        "session_id": SESSION,
        "transcript_path": null,
        "cwd": project,
        "hook_event_name": "SessionStart",
        "model": "gpt-5.3-codex",
        "permission_mode": "default",
        "source": "startup"
    })
    .to_string();
    let r = env.lore_stdin(&["hook", "session-start"], input.as_bytes());
    assert_eq!(r.code, 0, "{}", r.stderr);
    let j: serde_json::Value = serde_json::from_str(r.ok()).unwrap();
    assert_eq!(j["hookSpecificOutput"]["hookEventName"], "SessionStart");
    let context = j["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .unwrap();
    assert!(
        context.contains("use @vitejs/plugin-legacy 7.0.0"),
        "{context}"
    );
}

#[test]
fn overlapping_stop_captures_of_one_session_record_each_moment_once() {
    let env = TestEnv::new();
    env.init();
    let rollout = env.path().join("rollout.jsonl");
    std::fs::write(&rollout, ROLLOUT).unwrap();
    let before = env.ledger_commits().len();
    let input = stop_input(&env, &rollout);
    // Four at once: all started before any is fed its input.
    let children: Vec<_> = (0..4)
        .map(|_| {
            let mut c = env.lore_cmd(&["capture", "--hook"]);
            c.stdin(std::process::Stdio::piped())
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped());
            c.spawn().unwrap()
        })
        .collect();
    let runs: Vec<Run> = children
        .into_iter()
        .map(|mut child| {
            use std::io::Write;
            child
                .stdin
                .take()
                .unwrap()
                .write_all(input.as_bytes())
                .unwrap();
            child
        })
        .collect::<Vec<_>>()
        .into_iter()
        .map(|child| Run::from(child.wait_with_output().unwrap()))
        .collect();
    let all: String = runs.iter().map(|r| outcomes(r.ok())).collect();
    assert_eq!(all.matches("proposed ").count(), 2, "{all}");
    assert_eq!(env.ledger_commits().len(), before + 2);
    // The record is the rollout's end, whichever run wrote last.
    let dir = env.repo().join("lore/captured");
    let records: Vec<_> = std::fs::read_dir(&dir).unwrap().collect();
    assert_eq!(records.len(), 1);
    let offset = std::fs::read_to_string(records[0].as_ref().unwrap().path()).unwrap();
    assert_eq!(offset.trim(), ROLLOUT.len().to_string());
    // And the next turn's capture reads nothing again.
    let next = env.lore_stdin(&["capture", "--hook"], input.as_bytes());
    assert_eq!(next.ok(), "");
    env.assert_verifies();
}
