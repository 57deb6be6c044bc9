//! `git lore setup claude`: the hooks merged into Claude Code's settings,
//! idempotently, with a backup, and taken out again.

use crate::common::TestEnv;

const THEIRS: &str = r#"{
  "model": "opus",
  "permissions": {"allow": ["Bash(npm test:*)"]},
  "hooks": {
    "SessionStart": [{"matcher": "startup", "hooks": [{"type": "command", "command": "~/bin/greet"}]}]
  }
}
"#;

#[test]
fn setup_claude_merges_the_hooks_once_backs_up_and_removes_only_its_own() {
    let env = TestEnv::new();
    let settings = env.home().join(".claude/settings.json");
    env.write("home/.claude/settings.json", THEIRS);

    let dry = env.lore(&["setup", "claude", "--dry-run"]);
    dry.assert_ok_stdout("+            \"command\": \"git-lore hook session-end\",");
    dry.assert_stderr("setup: would add the SessionStart hook `git-lore hook session-start`");
    assert_eq!(
        std::fs::read_to_string(&settings).unwrap(),
        THEIRS,
        "a dry run writes nothing"
    );

    let r = env.lore(&["setup", "claude"]);
    assert_eq!(r.ok(), "");
    r.assert_stderr(&format!(
        "setup: added the SessionEnd hook `git-lore hook session-end` in {}",
        settings.display()
    ));
    r.assert_stderr("setup: the old file is kept as ");
    r.assert_stderr("setup: warning: no git-lore on PATH");
    assert!(
        !r.stderr.contains("shared with everyone"),
        "the user's own file is not shared: {}",
        r.stderr
    );
    let text = std::fs::read_to_string(&settings).unwrap();
    insta::assert_snapshot!(text, @r#"
    {
      "model": "opus",
      "permissions": {"allow": ["Bash(npm test:*)"]},
      "hooks": {
        "SessionStart": [
          {"matcher": "startup", "hooks": [{"type": "command", "command": "~/bin/greet"}]},
          {
            "hooks": [
              {
                "type": "command",
                "command": "git-lore hook session-start",
                "timeout": 10
              }
            ]
          }
        ],
        "SessionEnd": [
          {
            "hooks": [
              {
                "type": "command",
                "command": "git-lore hook session-end",
                "timeout": 10
              }
            ]
          }
        ]
      }
    }
    "#);
    let backup = env
        .home()
        .join(".claude/settings.json.git-lore-backup-20260805T100000Z");
    assert_eq!(std::fs::read_to_string(&backup).unwrap(), THEIRS);

    let again = env.lore(&["setup", "claude", "--user"]);
    again.assert_stderr("already has git-lore's hooks; nothing changed");
    assert_eq!(std::fs::read_to_string(&settings).unwrap(), text);

    let rm = env.lore(&["setup", "claude", "--remove"]);
    rm.assert_stderr("setup: removed the SessionStart hook `git-lore hook session-start`");
    let left: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&settings).unwrap()).unwrap();
    assert_eq!(
        left,
        serde_json::from_str::<serde_json::Value>(THEIRS).unwrap()
    );
    let none = env.lore(&["setup", "claude", "--remove"]);
    none.assert_stderr("has no git-lore hooks; nothing changed");
    std::fs::remove_file(&settings).unwrap();
    let gone = env.lore(&["setup", "claude", "--remove"]);
    gone.assert_stderr(&format!(
        "setup: {} does not exist; nothing changed",
        settings.display()
    ));
    assert!(!settings.exists());
}

#[test]
fn setup_claude_remove_takes_out_only_the_command_it_installs() {
    let env = TestEnv::new();
    let settings = env.home().join(".claude/settings.json");
    let theirs = r#"{"hooks": {"SessionEnd": [{"hooks": [
  {"type": "command", "command": "notify-send done; git-lore hook session-end"},
  {"type": "command", "command": "/opt/bin/git-lore hook session-end --verbose"}
]}], "SessionStart": [{"hooks": [
  {"type": "command", "command": "GIT_LORE_HOOK_ACTIVE=1 my-script git-lore hook session-start"}
]}]}}
"#;
    env.write("home/.claude/settings.json", theirs);
    let none = env.lore(&["setup", "claude", "--remove"]);
    none.assert_stderr("has no git-lore hooks; nothing changed");
    assert_eq!(std::fs::read_to_string(&settings).unwrap(), theirs);
    // Installed next to them, and removed again: theirs stay.
    let r = env.lore(&["setup", "claude"]);
    r.assert_stderr("setup: added the SessionEnd hook `git-lore hook session-end`");
    let rm = env.lore(&["setup", "claude", "--remove", "--dry-run"]);
    rm.assert_stderr("setup: would remove the SessionEnd hook `git-lore hook session-end`");
    let rm = env.lore(&["setup", "claude", "--remove"]);
    rm.assert_stderr("setup: removed the SessionStart hook `git-lore hook session-start`");
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&settings).unwrap()).unwrap();
    assert_eq!(
        v,
        serde_json::from_str::<serde_json::Value>(theirs).unwrap()
    );
}

#[test]
fn setup_claude_writes_through_a_symlink_and_refuses_what_it_cannot_write() {
    use std::os::unix::fs::PermissionsExt;
    let env = TestEnv::new();
    let target = env.path().join("dotfiles/claude.json");
    env.write("dotfiles/claude.json", THEIRS);
    std::fs::create_dir_all(env.home().join(".claude")).unwrap();
    let link = env.home().join(".claude/settings.json");
    std::os::unix::fs::symlink(&target, &link).unwrap();
    env.lore(&["setup", "claude"]).ok();
    assert!(std::fs::symlink_metadata(&link)
        .unwrap()
        .file_type()
        .is_symlink());
    assert!(std::fs::read_to_string(&target)
        .unwrap()
        .contains("git-lore hook session-end"));
    assert_eq!(
        std::fs::read_to_string(
            env.path()
                .join("dotfiles/claude.json.git-lore-backup-20260805T100000Z")
        )
        .unwrap(),
        THEIRS,
        "the backup is next to the real file"
    );
    std::fs::remove_file(&target).unwrap();
    let r = env.lore(&["setup", "claude"]);
    r.assert_refused(&format!(
        "is a symlink to {}, which cannot be followed",
        target.display()
    ));
    r.assert_stderr("create its target or remove the link, then run setup again");
    assert!(!target.exists());

    std::fs::remove_file(&link).unwrap();
    env.write("home/.claude/settings.json", "{}");
    std::fs::set_permissions(&link, std::fs::Permissions::from_mode(0o444)).unwrap();
    let r = env.lore(&["setup", "claude"]);
    r.assert_refused("it is read-only; make it writable (chmod u+w) and run setup again");
    assert_eq!(std::fs::read_to_string(&link).unwrap(), "{}");

    env.write(
        "home/.claude/settings.json",
        "{\n  // mine\n  \"model\": \"opus\"\n}\n",
    );
    std::fs::set_permissions(&link, std::fs::Permissions::from_mode(0o644)).unwrap();
    let r = env.lore(&["setup", "claude"]);
    r.assert_refused(
        "it has a comment (line 2), and comments are not JSON; setup will not rewrite it",
    );
    assert_eq!(
        std::fs::read_to_string(&link).unwrap(),
        "{\n  // mine\n  \"model\": \"opus\"\n}\n",
        "the refused file is left as it was"
    );
}

#[test]
fn setup_claude_project_writes_the_project_settings_and_refuses_a_broken_file() {
    let env = TestEnv::new();
    let project = env.path().join("app");
    std::fs::create_dir_all(project.join("src")).unwrap();
    let git = std::process::Command::new("git")
        .args(["init", "-q"])
        .current_dir(&project)
        .envs(env.vars())
        .status()
        .unwrap();
    assert!(git.success());
    // From a subdirectory: the project's top.
    let r = {
        let mut c = env.lore_cmd(&["setup", "claude", "--project"]);
        c.current_dir(project.join("src"));
        c.output().unwrap()
    };
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    // The file is the team's: setup says what teammates need, and what
    // those without git-lore see.
    let err = String::from_utf8_lossy(&r.stderr);
    assert!(
        err.contains(&format!(
            "setup: note: {} is shared with everyone who works on this project; for a teammate without git-lore, Claude Code reports a failed hook at each session start and end, and works on without it. Each teammate installs git-lore from a clone of its repository with `cargo install --locked --path .` (then `git lore init`)",
            project.join(".claude/settings.json").display()
        )),
        "{err}"
    );
    let written = std::fs::read_to_string(project.join(".claude/settings.json")).unwrap();
    let v: serde_json::Value = serde_json::from_str(&written).unwrap();
    assert_eq!(
        v["hooks"]["SessionStart"][0]["hooks"][0]["command"],
        "git-lore hook session-start"
    );
    assert!(
        !env.home().join(".claude").exists(),
        "the user's settings are not touched"
    );

    env.write("home/.claude/settings.json", "{\"hooks\": [\"x\"]}");
    let bad = env.lore(&["setup", "claude", "--user"]);
    bad.assert_refused("its \"hooks\" is not an object; fix it by hand");
    assert_eq!(
        std::fs::read_to_string(env.home().join(".claude/settings.json")).unwrap(),
        "{\"hooks\": [\"x\"]}"
    );
}

/// A Codex hooks.json with a hook of its own (the shape of Codex's
/// `HooksFile`: openai/codex `codex-rs/config/src/hook_config.rs`).
const CODEX_THEIRS: &str = r#"{
  "hooks": {
    "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "python3 ~/.codex/hooks/guard.py", "timeout": 30}]}]
  }
}
"#;

#[test]
fn setup_codex_merges_session_start_and_stop_once_backs_up_and_removes_only_its_own() {
    let env = TestEnv::new();
    let hooks = env.home().join(".codex/hooks.json");
    env.write("home/.codex/hooks.json", CODEX_THEIRS);

    let dry = env.lore(&["setup", "codex", "--dry-run"]);
    dry.assert_ok_stdout(&format!("--- {} (now)", hooks.display()));
    dry.assert_stdout("+    \"Stop\": [");
    dry.assert_stdout("+            \"command\": \"git-lore hook session-end\",");
    dry.assert_stderr("setup: would add the Stop hook `git-lore hook session-end`");
    assert_eq!(
        std::fs::read_to_string(&hooks).unwrap(),
        CODEX_THEIRS,
        "a dry run writes nothing"
    );

    let r = env.lore(&["setup", "codex", "--user"]);
    assert_eq!(r.ok(), "");
    r.assert_stderr(&format!(
        "setup: added the SessionStart hook `git-lore hook session-start` in {}",
        hooks.display()
    ));
    r.assert_stderr(&format!(
        "setup: added the Stop hook `git-lore hook session-end` in {}",
        hooks.display()
    ));
    r.assert_stderr("setup: Codex runs new or changed hooks only after you trust them: start `codex` once and answer \"Hooks need review\" by trusting git-lore's two");
    let text = std::fs::read_to_string(&hooks).unwrap();
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(
        v,
        serde_json::json!({"hooks": {
            "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "python3 ~/.codex/hooks/guard.py", "timeout": 30}]}],
            "SessionStart": [{"hooks": [{"type": "command", "command": "git-lore hook session-start", "timeout": 10}]}],
            "Stop": [{"hooks": [{"type": "command", "command": "git-lore hook session-end", "timeout": 10}]}]
        }})
    );
    assert!(
        !env.home().join(".claude").exists(),
        "Claude Code's settings are not touched"
    );
    let backup = env
        .home()
        .join(".codex/hooks.json.git-lore-backup-20260805T100000Z");
    assert_eq!(std::fs::read_to_string(&backup).unwrap(), CODEX_THEIRS);

    let again = env.lore(&["setup", "codex"]);
    again.assert_stderr("already has git-lore's hooks; nothing changed");
    assert_eq!(std::fs::read_to_string(&hooks).unwrap(), text);

    let rm = env.lore(&["setup", "codex", "--remove"]);
    rm.assert_stderr("setup: removed the Stop hook `git-lore hook session-end`");
    let left: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&hooks).unwrap()).unwrap();
    assert_eq!(
        left,
        serde_json::from_str::<serde_json::Value>(CODEX_THEIRS).unwrap()
    );
    let none = env.lore(&["setup", "codex", "--remove"]);
    none.assert_stderr("has no git-lore hooks; nothing changed");
}

#[test]
fn setup_codex_project_writes_the_project_hooks_and_refuses_a_malformed_file() {
    let env = TestEnv::new();
    let project = env.path().join("app");
    std::fs::create_dir_all(project.join("src")).unwrap();
    let git = std::process::Command::new("git")
        .args(["init", "-q"])
        .current_dir(&project)
        .envs(env.vars())
        .status()
        .unwrap();
    assert!(git.success());
    let r = {
        let mut c = env.lore_cmd(&["setup", "codex", "--project"]);
        c.current_dir(project.join("src"));
        c.output().unwrap()
    };
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    assert!(
        String::from_utf8_lossy(&r.stderr).contains(
            "is shared with everyone who works on this project; for a teammate without git-lore, Codex reports a failed hook at each session start and turn end"
        ),
        "{}",
        String::from_utf8_lossy(&r.stderr)
    );
    let written = std::fs::read_to_string(project.join(".codex/hooks.json")).unwrap();
    let v: serde_json::Value = serde_json::from_str(&written).unwrap();
    assert_eq!(
        v["hooks"]["Stop"][0]["hooks"][0]["command"],
        "git-lore hook session-end"
    );
    assert!(
        !env.home().join(".codex").exists(),
        "the user's file is not touched"
    );

    // Not JSON: refused, named, and left exactly as it was, with no backup.
    let broken = "{\"hooks\": {\"Stop\": [\n";
    env.write("home/.codex/hooks.json", broken);
    let bad = env.lore(&["setup", "codex"]);
    bad.assert_refused(&format!(
        "settings file {}: it is not a JSON object",
        env.home().join(".codex/hooks.json").display()
    ));
    bad.assert_stderr("fix or move it, then run setup again");
    assert_eq!(
        std::fs::read_to_string(env.home().join(".codex/hooks.json")).unwrap(),
        broken
    );
    let names: Vec<String> = std::fs::read_dir(env.home().join(".codex"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names, ["hooks.json"]);
    // A file over a MiB (a user's settings can be; the limit is 64 MiB,
    // whose refusal tests/it/mcp.rs covers) is edited like any other,
    // keeping what it held.
    let big = format!("{{\"x\": \"{}\"}}", "a".repeat(1 << 20));
    env.write("home/.codex/hooks.json", &big);
    let r = env.lore(&["setup", "codex"]);
    r.ok();
    r.assert_stderr("setup: added the Stop hook");
    let kept: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(env.home().join(".codex/hooks.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(kept["x"].as_str().map(str::len), Some(1 << 20));
    assert!(kept["hooks"]["Stop"].is_array(), "{kept}");
}

#[test]
fn setup_refuses_a_fifo_without_hanging_and_escapes_what_a_dry_run_shows() {
    let env = TestEnv::new();
    std::fs::create_dir_all(env.home().join(".codex")).unwrap();
    let hooks = env.home().join(".codex/hooks.json");
    rustix::fs::mkfifoat(
        rustix::fs::CWD,
        &hooks,
        rustix::fs::Mode::from_raw_mode(0o600),
    )
    .unwrap();
    let r = env.lore(&["setup", "codex", "--user"]);
    r.assert_refused(&format!(
        "settings file {}: it is not a regular file (a FIFO, socket, device or directory); move it away, then run setup again",
        hooks.display()
    ));
    std::fs::remove_file(&hooks).unwrap();
    // A string of the user's file that would move a terminal's cursor
    // (CSI as one C1 character, valid in JSON) and flip text (RLO).
    env.write(
        "home/.codex/hooks.json",
        "{\"note\": \"\u{9b}2J\u{202e}gnp.exe\", \"hooks\": {}}\n",
    );
    let r = env.lore(&["setup", "codex", "--user", "--dry-run"]);
    let shown = r.ok();
    assert!(shown.contains("+    \"SessionStart\""), "{shown}");
    assert!(
        !shown.contains('\u{9b}') && !shown.contains('\u{202e}'),
        "{shown:?}"
    );
    assert!(shown.contains("\\x9b2J\\u{202e}gnp.exe"), "{shown:?}");
}
