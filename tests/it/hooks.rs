//! The ready-made agent-session hooks under hooks/.

use crate::common::{proposable, Run, TestEnv};

/// Runs `hooks/<name>` with `git-lore` on PATH, as an installed binary is.
fn hook(env: &TestEnv, name: &str, extra: &[(&str, String)]) -> Run {
    let bin = env.path().join("bin/git-lore");
    if !bin.exists() {
        std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_git-lore"), &bin).unwrap();
    }
    let o = std::process::Command::new(format!("{}/hooks/{name}", env!("CARGO_MANIFEST_DIR")))
        .env_clear()
        .envs(env.vars())
        .envs(extra.iter().map(|(k, v)| (*k, v)))
        .current_dir(env.path())
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    Run {
        code: o.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&o.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&o.stderr).into_owned(),
    }
}

#[test]
fn session_start_speaks_only_when_lessons_await_a_decision() {
    let env = TestEnv::new();
    let r = hook(&env, "session-start", &[]);
    assert_eq!(
        (r.code, r.stdout.as_str()),
        (0, ""),
        "no repository: silent, never fails"
    );
    env.init();
    // A project with nothing installed: no lesson applies.
    std::fs::write(env.path().join("package.json"), "{}").unwrap();
    assert_eq!(hook(&env, "session-start", &[]).stdout, "");
    let f = env.artifacts_file("a.jsonl", &[proposable(50, 1), proposable(50, 2)]);
    env.lore(&["ingest", f.to_str().unwrap()]).ok();
    let r = hook(&env, "session-start", &[]);
    assert_eq!(r.code, 0);
    let j: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(
        j,
        serde_json::json!({"systemMessage": "git-lore: 2 lessons await your decision: `git lore list`"}),
        "the person hears of them; the agent's context stays empty"
    );
}

#[test]
fn session_end_ingests_in_the_background_and_returns_at_once() {
    let env = TestEnv::new();
    env.init();
    let inbox = env.path().join("inbox");
    std::fs::create_dir_all(&inbox).unwrap();
    std::fs::write(inbox.join("a.json"), proposable(51, 1).to_string()).unwrap();
    let r = hook(
        &env,
        "session-end",
        &[("GIT_LORE_ARTIFACTS", inbox.display().to_string())],
    );
    assert_eq!((r.code, r.stdout.as_str(), r.stderr.as_str()), (0, "", ""));
    // The detached ingest lands shortly after.
    let id = crate::common::ulid(51, 1);
    let mut answer = String::new();
    // A bound only so a broken worker fails instead of hanging; a loaded
    // machine may take seconds to start it.
    for _ in 0..4800 {
        answer = env.lore(&["seen", &id]).stdout;
        if answer.contains(" proposed ") {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(25));
    }
    assert!(answer.contains(" proposed "), "{answer}");
    // The worker logs what it did after the commit `seen` reads: wait for
    // the line, not only for the commit.
    let log = log_says(&env, "proposed ");
    assert!(log.contains("proposed ") && log.contains(&id), "{log}");
}

/// The SessionEnd hook's input for a fixture transcript.
fn session_end_input(env: &TestEnv, transcript: &str) -> String {
    serde_json::json!({
        "session_id": "5f1c0a2e-0000-4000-8000-000000000001",
        "transcript_path": format!("{}/src/pipeline/capture/testdata/{transcript}", env!("CARGO_MANIFEST_DIR")),
        "cwd": env.path(),
        "hook_event_name": "SessionEnd",
        "reason": "prompt_input_exit"
    })
    .to_string()
}

/// Waits (up to 10 s) until the session-end log says `needle`.
fn log_says(env: &TestEnv, needle: &str) -> String {
    let path = env.repo().join("lore/session-end.log");
    let mut log = String::new();
    // A bound only so a broken worker fails instead of hanging; a loaded
    // machine may take seconds to start it.
    for _ in 0..4800 {
        log = std::fs::read_to_string(&path).unwrap_or_default();
        if log.contains(needle) {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(25));
    }
    log
}

#[test]
fn session_end_captures_the_session_detached_and_logs_with_timestamps() {
    let env = TestEnv::new();
    env.init();
    // A model held at a gate until the test lets it answer: the hook must
    // not wait for it. It notes its session, and that it answered.
    let sid = env.path().join("model-sid");
    let answered = env.path().join("model-answered");
    let gate = env.gate("model");
    env.capture_stub(&format!(
        "cat >/dev/null; ps -o sid= -p $$ > {}; {}; : > {}; echo '[]'",
        sid.display(),
        gate.script(),
        answered.display()
    ));
    // Its timeout outlasts the gate's bound: a hook that waited for it
    // would return after it answered, not after it was killed.
    env.config("lore.capture.timeout", "600");
    let input = session_end_input(&env, "no-lesson.jsonl");
    let r = env.lore_stdin(&["hook", "session-end"], input.as_bytes());
    assert_eq!((r.code, r.stdout.as_str(), r.stderr.as_str()), (0, "", ""));
    // The hook has returned; the model it started is still at the gate.
    gate.wait_started();
    assert!(
        !answered.exists(),
        "the hook returned only after the model answered"
    );
    gate.release();
    let log = log_says(&env, "0 artifacts found by the model");
    let line = log
        .lines()
        .find(|l| l.contains("0 artifacts found by the model"))
        .unwrap_or_else(|| panic!("{log}"));
    // `<RFC 3339 time> capture of session <id>: capture: …`
    let (stamp, rest) = line.split_once(' ').unwrap();
    assert!(stamp.parse::<jiff::Timestamp>().is_ok(), "{line}");
    assert!(
        rest.starts_with("capture of session 5f1c0a2e-0000-4000-8000-000000000001: capture: "),
        "{line}"
    );
    // Detached: in a session of its own, not the hook's (the test's).
    let ours = std::process::Command::new("ps")
        .args(["-o", "sid=", "-p", &std::process::id().to_string()])
        .output()
        .unwrap();
    let theirs = std::fs::read_to_string(&sid).unwrap();
    assert_ne!(
        String::from_utf8_lossy(&ours.stdout).trim(),
        theirs.trim(),
        "the background capture shares the hook's session"
    );
    // The saved hook input is gone, and nothing failed.
    let left: Vec<_> = std::fs::read_dir(env.repo().join("lore"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("session-end-") || n.starts_with("session-end.failed"))
        .collect();
    assert_eq!(left, Vec::<String>::new());
}

#[test]
fn a_failed_background_capture_is_shown_once_at_the_next_session_start() {
    let env = TestEnv::new();
    env.init();
    env.capture_stub("cat >/dev/null; echo 'quota exceeded' >&2; exit 3");
    let input = session_end_input(&env, "version-mismatch.jsonl");
    env.lore_stdin(&["hook", "session-end"], input.as_bytes())
        .ok();
    let log = log_says(&env, "failed: it exited with status 2");
    assert!(
        log.contains("the model program failed (exited with status 3): quota exceeded"),
        "{log}"
    );
    std::fs::write(env.path().join("package.json"), "{}").unwrap();
    let start =
        serde_json::json!({"cwd": env.path(), "hook_event_name": "SessionStart"}).to_string();
    let r = env.lore_stdin(&["hook", "session-start"], start.as_bytes());
    let j: serde_json::Value = serde_json::from_str(r.ok()).unwrap();
    let msg = j["systemMessage"].as_str().unwrap();
    assert!(
        msg.starts_with("git-lore: the background capture after a session failed: capture of session 5f1c0a2e-0000-4000-8000-000000000001 failed: it exited with status 2: "),
        "{msg}"
    );
    assert!(
        msg.contains("quota exceeded") && msg.ends_with("lore/session-end.log"),
        "{msg}"
    );
    assert!(!msg.contains('\n'));
    // Shown once.
    let again = env.lore_stdin(&["hook", "session-start"], start.as_bytes());
    assert_eq!(again.ok(), "");
}

/// Processes started with `GIT_LORE_REPO=<repo>` in their environment and
/// still alive: a background worker a hook started for that repository, or
/// a program the worker runs (every one of them inherits the variable, from
/// the fork on).
fn processes_for(repo: &std::path::Path) -> Vec<String> {
    let entry = format!("GIT_LORE_REPO={}", repo.display());
    let mut found = Vec::new();
    for e in std::fs::read_dir("/proc").unwrap().flatten() {
        let pid = e.file_name().to_string_lossy().into_owned();
        if !pid.bytes().all(|b| b.is_ascii_digit()) {
            continue;
        }
        // Unreadable: gone meanwhile, or another user's.
        let Ok(environ) = std::fs::read(e.path().join("environ")) else {
            continue;
        };
        if environ.split(|b| *b == 0).any(|v| v == entry.as_bytes()) {
            found.push(pid);
        }
    }
    found
}

/// Asserts that a hook that has exited left no background work behind for
/// `repo`: no process of it alive now and, read after that, no trace of one
/// that already finished (a worker writes its log line before it exits, and
/// the saved hook input exists from before it starts until it reads it).
#[track_caller]
fn assert_no_background_work(repo: &std::path::Path, lore_before: &[String]) {
    let alive = processes_for(repo);
    assert_eq!(
        alive,
        Vec::<String>::new(),
        "a background process was started"
    );
    assert_eq!(
        lore_dir(repo),
        lore_before,
        "{}/lore changed",
        repo.display()
    );
}

/// The names in `<repo>/lore/`, sorted.
fn lore_dir(repo: &std::path::Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(repo.join("lore"))
        .map(|d| {
            d.flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    names
}

#[test]
fn every_agent_hook_is_a_no_op_under_the_marker() {
    let env = TestEnv::new();
    env.init();
    // A lesson awaits a decision (session-start would say so), and a
    // capture model that notes every call (session-end would ask it).
    let f = env.artifacts_file("a.jsonl", &[proposable(52, 1)]);
    env.lore(&["ingest", f.to_str().unwrap()]).ok();
    let calls = env.path().join("model-calls");
    env.capture_stub(&format!(
        "cat >/dev/null; echo called >> {}; echo '[]'",
        calls.display()
    ));
    env.wait_for_repack();
    let ledger = env.ledger_commits();
    let lore_before = lore_dir(&env.repo());
    for (hook, input) in [
        (
            "session-end",
            session_end_input(&env, "version-mismatch.jsonl"),
        ),
        (
            "session-start",
            serde_json::json!({"cwd": env.path(), "hook_event_name": "SessionStart"}).to_string(),
        ),
    ] {
        let mut c = env.lore_cmd(&["hook", hook]);
        c.env("GIT_LORE_HOOK_ACTIVE", "1")
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped());
        let o = crate::common::feed(&mut c, &input);
        assert!(o.status.success(), "{hook}");
        assert_eq!(
            (
                String::from_utf8_lossy(&o.stdout),
                String::from_utf8_lossy(&o.stderr)
            ),
            ("".into(), "".into()),
            "{hook} says nothing"
        );
        assert_no_background_work(&env.repo(), &lore_before);
    }
    assert!(!calls.exists(), "no model was asked");
    assert_eq!(env.ledger_commits(), ledger, "nothing written");
    // Without the marker the same session-end does start the capture, and
    // it asks the model: the checks above could see it.
    let r = env.lore_stdin(
        &["hook", "session-end"],
        session_end_input(&env, "version-mismatch.jsonl").as_bytes(),
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    // (Waited for, up to 10 s: the worker and everything it started gone.)
    // A bound only so a broken worker fails instead of hanging; a loaded
    // machine may take seconds to start it.
    for _ in 0..4800 {
        if processes_for(&env.repo()).is_empty() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(25));
    }
    assert_eq!(processes_for(&env.repo()), Vec::<String>::new());
    let log = std::fs::read_to_string(env.repo().join("lore/session-end.log")).unwrap();
    assert!(log.contains("capture of session"), "{log}");
    assert!(calls.exists(), "the capture asked the model: {log}");
}

#[test]
fn agent_hooks_never_fail_the_session_on_bad_arguments() {
    let env = TestEnv::new();
    env.init();
    for args in [
        &["hook", "session-start", "--budget", "-1"][..],
        &["hook", "session-start", "--budget", "lots"],
        &["hook", "session-start", "--no-such-flag"],
        &["hook", "session-end", "--verbose", "x"],
    ] {
        let r = env.lore_stdin(args, b"{}");
        assert_eq!(r.code, 0, "{args:?}: {}", r.stderr);
        assert_eq!(r.stderr.lines().count(), 1, "{args:?}: {}", r.stderr);
    }
    let r = env.lore_stdin(&["hook", "session-start", "--budget", "-1"], b"{}");
    r.assert_stderr("hook session-start: --budget -1 is not a number of characters; using ");
    let r = env.lore_stdin(&["hook", "session-end", "--verbose"], b"{}");
    r.assert_stderr("hook session-end: ignoring unexpected arguments: --verbose");
}

#[test]
fn session_end_writes_nothing_into_a_repository_that_is_not_a_lesson_repository() {
    let env = TestEnv::new();
    let plain = env.path().join("plain.git");
    let git = std::process::Command::new("git")
        .args(["init", "-q", "--bare"])
        .arg(&plain)
        .envs(env.vars())
        .status()
        .unwrap();
    assert!(git.success());
    let before: Vec<_> = std::fs::read_dir(&plain)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    let input = session_end_input(&env, "version-mismatch.jsonl");
    let mut c = env.lore_cmd(&["hook", "session-end"]);
    c.env("GIT_LORE_REPO", &plain)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    let o = crate::common::feed(&mut c, &input);
    assert!(o.status.success());
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(
        stderr.contains("is not a git-lore repository (no refs/heads/ledger); nothing captured"),
        "{stderr}"
    );
    assert_no_background_work(&plain, &[]);
    assert!(!plain.join("lore").exists(), "nothing written into it");
    let after: Vec<_> = std::fs::read_dir(&plain)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(before, after);
}

/// Runs `git-lore hook NAME` with a stdin that stays open and says
/// nothing: a pseudo-terminal (util-linux `script`, as a person at a
/// prompt) or a pipe (an agent that never closes it). Its output, or
/// `None` when it was still waiting after 20 s (and was killed).
fn hook_on_open_stdin(env: &TestEnv, name: &str, terminal: bool) -> Option<Run> {
    use std::process::{Command, Stdio};
    let bin = env!("CARGO_BIN_EXE_git-lore");
    let mut c = if terminal {
        let mut c = Command::new("script");
        c.args(["-qec", &format!("{bin} hook {name}"), "/dev/null"]);
        c
    } else {
        let mut c = Command::new(bin);
        c.args(["hook", name]);
        c
    };
    let mut child = c
        .env_clear()
        .envs(env.vars())
        .current_dir(env.path())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Held, never written to or closed, until the command is done.
    let stdin = child.stdin.take();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    while child.try_wait().unwrap().is_none() {
        if std::time::Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            return None;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    drop(stdin);
    let o = child.wait_with_output().unwrap();
    Some(Run {
        code: o.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&o.stdout).replace('\r', ""),
        stderr: String::from_utf8_lossy(&o.stderr).replace('\r', ""),
    })
}

/// A hook run by hand on a terminal does not wait for JSON nobody will
/// type; one whose agent never closes its stdin does not hold the session
/// past its deadline.
#[test]
fn hooks_never_wait_on_a_stdin_that_stays_open() {
    let env = TestEnv::new();
    env.init();
    let f = env.artifacts_file("a.jsonl", &[proposable(51, 1)]);
    env.lore(&["ingest", f.to_str().unwrap()]).ok();
    let before = env.ledger_commits();

    let r = hook_on_open_stdin(&env, "session-start", true).expect("returns at once");
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    assert!(
        r.stdout.contains("1 lesson awaits your decision"),
        "{}",
        r.stdout
    );
    let r = hook_on_open_stdin(&env, "session-end", true).expect("returns at once");
    assert_eq!(r.code, 0);
    assert!(
        r.stdout.contains(
            "hook session-end reads the JSON an agent gives its SessionEnd hook on stdin; nothing captured"
        ),
        "{}",
        r.stdout
    );
    let r = hook_on_open_stdin(&env, "pre-push", true).expect("returns at once");
    assert_eq!(r.code, 1, "{}", r.stdout);
    assert!(
        r.stdout.contains("hook pre-push reads the lines git gives"),
        "{}",
        r.stdout
    );

    // A pipe left open: the session starts after the deadline, told why.
    let r = hook_on_open_stdin(&env, "session-start", false).expect("within the deadline");
    assert_eq!(r.code, 0);
    let j: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(
        j["systemMessage"],
        "git-lore: no lessons this session (recall took too long)"
    );
    assert_eq!(env.ledger_commits(), before, "nothing written");
}
