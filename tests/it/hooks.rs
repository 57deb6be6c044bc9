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
    for _ in 0..400 {
        answer = env.lore(&["seen", &id]).stdout;
        if answer.contains(" proposed ") {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(25));
    }
    assert!(answer.contains(" proposed "), "{answer}");
    let log = std::fs::read_to_string(env.repo().join("lore/session-end.log")).unwrap();
    assert!(log.contains("proposed ") && log.contains(&id), "{log}");
}
