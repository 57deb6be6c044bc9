//! Recall, end to end: lessons promoted into the pools come back for the
//! projects whose installed versions they hold for, and for no other; the
//! agent hook hands them over and never fails a session; exports land in
//! the files other agents read, idempotently.

use serde_json::{json, Value};

use crate::common::{Run, TestEnv};

const CANDIDATE: &str = include_str!("../fixtures/responses/candidate.json");
const POSITIVE: &str = include_str!("../fixtures/artifacts/positive-synthetic.json");

fn project(name: &str) -> String {
    format!(
        "{}/tests/fixtures/projects/{name}",
        env!("CARGO_MANIFEST_DIR")
    )
}

/// Proposes `candidate` for a fresh artifact through a model stub, confirms
/// it at org (with `justification`, version independent) and approves it
/// with a passing panel. Returns the lesson id.
fn approved(env: &TestEnv, n: u32, candidate: &Value, justification: Option<&str>) -> String {
    env.model_answers(&candidate.to_string());
    let mut artifact: Value = serde_json::from_str(POSITIVE).unwrap();
    artifact["id"] = crate::common::ulid(70, n).into();
    let f = env.artifacts_file(&format!("a{n}.jsonl"), &[artifact]);
    let out = env.lore(&["ingest", f.to_str().unwrap()]).ok().to_owned();
    let id = crate::common::lesson_of(&out);
    match justification {
        Some(j) => env.confirm_justified(&id, "org", j),
        None => env.confirm(&id, "org"),
    }
    let panel = env.write(
        "pass.json",
        include_str!("../../src/review/testdata/judge-verdicts.pass.json"),
    );
    let r = env.lore(&["judge", &id, &format!("@{}", panel.display())]);
    r.assert_ok_stdout("promoted to pool/org");
    id
}

struct World {
    env: TestEnv,
    vitest: String,
    react: String,
}

fn world() -> World {
    let env = TestEnv::new();
    env.init();
    let vitest = approved(&env, 1, &serde_json::from_str(CANDIDATE).unwrap(), None);
    let react = json!({
        "claim": "React StrictMode runs effects twice in development",
        "rationale": "Effects mount, unmount and mount again to surface missing cleanups.",
        "evidence": {"resolution": "Write effects with a cleanup; do not count on a single run."},
        "applies_to": {"stack": ["react"], "scope": {"kind": "versioned", "versions": {"react": ">=18"}},
                       "file_patterns": ["src/**/*.tsx"], "task_kinds": []}
    });
    let react = approved(
        &env,
        2,
        &react,
        Some("StrictMode has double-invoked effects in every release since 18."),
    );
    World { env, vitest, react }
}

fn recall(env: &TestEnv, args: &[&str]) -> Run {
    let mut all = vec!["recall"];
    all.extend(args);
    env.lore(&all)
}

#[test]
fn a_lesson_applies_only_where_every_version_it_names_is_in_range() {
    let w = world();
    let here = recall(&w.env, &["--project", &project("vite5")]);
    let lines: Vec<&str> = here.ok().lines().collect();
    assert_eq!(lines.len(), 2, "{}", here.stdout);
    assert!(
        lines[0].starts_with(&format!(
            "{}  Vitest 4 cannot import vite/module-runner on Vite 5",
            w.vitest
        )) && lines[0].ends_with("[vite <6, vitest >=4]"),
        "the more specific lesson first: {}",
        here.stdout
    );
    assert!(lines[1].starts_with(&w.react), "{}", here.stdout);
    // vite 8.0.16 is not <6: the vitest lesson expired for this project.
    let there = recall(&w.env, &["--project", &project("vite8")]);
    assert_eq!(there.ok().lines().count(), 1, "{}", there.stdout);
    assert!(there.stdout.starts_with(&w.react));
    let all = recall(&w.env, &["--project", &project("vite8"), "--all"]);
    all.assert_ok_stdout(&format!(
            "{}  Vitest 4 cannot import vite/module-runner on Vite 5  [vite <6, vitest >=4]  (not recalled: vite 8.0.16 is not <6)",
            w.vitest
        ));
}

#[test]
fn stack_overrides_work_with_no_lockfile_at_all() {
    let w = world();
    let empty = w.env.path().join("empty");
    std::fs::create_dir_all(&empty).unwrap();
    let p = empty.to_str().unwrap();
    let none = recall(&w.env, &["--project", p]);
    assert_eq!(none.ok(), "");
    none.assert_stderr("no lesson applies to the versions installed in");
    let r = recall(
        &w.env,
        &[
            "--project",
            p,
            "--stack",
            "vite@5.4.21",
            "--stack",
            "vitest@4.1.9",
        ],
    );
    assert!(r.ok().starts_with(&w.vitest), "{}", r.stdout);
    let r = recall(&w.env, &["--project", p, "--stack", "vite@5.4.21", "--all"]);
    r.assert_ok_stdout("(not recalled: vitest not installed)");
    let bad = recall(&w.env, &["--project", p, "--stack", "vite"]);
    bad.assert_refused("--stack");
}

#[test]
fn the_json_form_is_versioned_and_whole() {
    let w = world();
    let r = recall(
        &w.env,
        &["--project", &project("vite5"), "--format", "json"],
    );
    let j: Value = serde_json::from_str(r.ok()).unwrap();
    assert_eq!(j["format"], "git-lore.recall/1");
    let first = &j["lessons"][0];
    assert_eq!(first["id"], w.vitest.as_str());
    assert_eq!(
        first["rationale"],
        "vite/module-runner ships in Vite 6; Vitest 4 assumes it exists."
    );
    assert_eq!(j["counts"]["applies"], 2);
}

#[test]
fn markdown_fits_its_budget_most_specific_first() {
    let w = world();
    let full = recall(
        &w.env,
        &["--project", &project("vite5"), "--format", "markdown"],
    );
    assert!(full.ok().contains(&w.vitest) && full.stdout.contains(&w.react));
    let cut = recall(
        &w.env,
        &[
            "--project",
            &project("vite5"),
            "--format",
            "markdown",
            "--budget",
            "420",
        ],
    );
    let md = cut.ok();
    assert!(
        md.chars().count() <= 420,
        "{} characters:\n{md}",
        md.chars().count()
    );
    assert!(
        md.contains(&w.vitest),
        "the most specific lesson stays:\n{md}"
    );
    assert!(!md.contains(&w.react), "{md}");
    assert!(md.ends_with("1 more: `git lore recall --all`\n"), "{md}");
}

#[test]
fn a_broken_lockfile_is_named_and_the_others_still_count() {
    let w = world();
    let dir = w.env.path().join("monorepo");
    std::fs::create_dir_all(dir.join("web")).unwrap();
    std::fs::copy(
        format!("{}/package-lock.json", project("vite5")),
        dir.join("web/package-lock.json"),
    )
    .unwrap();
    std::fs::write(dir.join("package.json"), r#"{"workspaces": ["web"]}"#).unwrap();
    std::fs::write(dir.join("Cargo.lock"), "this is [not toml\n").unwrap();
    let st = w.env.lore(&["stack", "--project", dir.to_str().unwrap()]);
    st.assert_ok_stdout("vite 5.4.21  npm  web/package-lock.json");
    st.assert_stderr("Cargo.lock");
    let r = recall(&w.env, &["--project", dir.to_str().unwrap()]);
    assert!(r.ok().starts_with(&w.vitest), "{}", r.stdout);
    r.assert_stderr("Cargo.lock");
}

fn session_start(env: &TestEnv, cwd: &str) -> Run {
    let input = json!({"session_id": "s1", "cwd": cwd, "hook_event_name": "SessionStart", "source": "startup"});
    env.lore_stdin(&["hook", "session-start"], input.to_string().as_bytes())
}

#[test]
fn the_session_start_hook_hands_lessons_to_the_agent_and_counts_to_the_person() {
    let w = world();
    // One more lesson that waits for a person.
    let f = w
        .env
        .artifacts_file("p.jsonl", &[crate::common::proposable(71, 1)]);
    w.env.config("lore.transform.backend", "offline");
    w.env.lore(&["ingest", f.to_str().unwrap()]).ok();
    let r = session_start(&w.env, &project("vite5"));
    assert_eq!(r.code, 0, "{}", r.stderr);
    let j: Value = serde_json::from_str(&r.stdout).unwrap();
    let context = j["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .unwrap();
    assert_eq!(j["hookSpecificOutput"]["hookEventName"], "SessionStart");
    assert!(
        context.contains(&w.vitest) && context.contains(&w.react),
        "{context}"
    );
    assert!(
        !context.contains("await"),
        "the waiting count is for the person"
    );
    assert_eq!(
        j["systemMessage"],
        "git-lore: 1 lesson awaits your decision: `git lore list`"
    );
    assert!(r.stdout.len() < 10_000);
}

#[test]
fn the_session_start_hook_never_fails_a_session() {
    let env = TestEnv::new();
    // No lesson repository: silent.
    let r = session_start(&env, &project("vite5"));
    assert_eq!((r.code, r.stdout.as_str(), r.stderr.as_str()), (0, "", ""));
    env.init();
    // Nothing to say: silent.
    let r = session_start(&env, &project("vite5"));
    assert_eq!((r.code, r.stdout.as_str()), (0, ""));
    // A broken lockfile: still 0, nothing for the agent.
    let dir = env.path().join("broken");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("package-lock.json"), "{\"lockfileVersion\": ").unwrap();
    let r = session_start(&env, dir.to_str().unwrap());
    assert_eq!(r.code, 0, "{}", r.stderr);
    // Garbage on stdin: still 0.
    let r = env.lore_stdin(&["hook", "session-start"], b"\x00\xff not json");
    assert_eq!(r.code, 0);
    // Something that hangs (a FIFO where the allowed signers are read, with
    // a commit to verify): it gives up within its deadline and says so once.
    let fifo = env.path().join("signers.fifo");
    assert!(std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap()
        .success());
    env.config("gpg.ssh.allowedSignersFile", fifo.to_str().unwrap());
    env.git(&["update-ref", "refs/lore/verified/ledger", "ledger~0"])
        .ok();
    env.forge(
        "ledger",
        Some("ledger"),
        &[],
        "config: rubrics\n\nLore-Format: 1\nLore-Action: config\nLore-Reason: rubrics\n",
        crate::common::Sign::Unsigned,
    );
    let started = std::time::Instant::now();
    let r = session_start(&env, &project("vite5"));
    assert!(started.elapsed() < std::time::Duration::from_secs(8));
    assert_eq!(r.code, 0);
    let j: Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(
        j["systemMessage"],
        "git-lore: no lessons this session (recall took too long)"
    );
    assert!(j.get("hookSpecificOutput").is_none());
    // The marker set for programs git-lore starts from hooks: a no-op.
    let o = env
        .lore_cmd(&["hook", "session-start"])
        .env("GIT_LORE_HOOK_ACTIVE", "1")
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    assert_eq!((o.status.code(), o.stdout.len()), (Some(0), 0));
}

#[test]
fn exports_land_where_agents_read_them_and_rerunning_changes_nothing() {
    let w = world();
    let dir = w.env.path().join("app");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::copy(
        format!("{}/package-lock.json", project("vite5")),
        dir.join("package-lock.json"),
    )
    .unwrap();
    std::fs::write(dir.join("AGENTS.md"), "# App\n\nBuild with `make`.\n").unwrap();
    let p = dir.to_str().unwrap();
    w.env
        .lore(&["export", "--format", "agents-md", "--project", p])
        .ok();
    let once = std::fs::read_to_string(dir.join("AGENTS.md")).unwrap();
    assert!(once.starts_with("# App\n\nBuild with `make`.\n"), "{once}");
    assert_eq!(once.matches("<!-- git-lore:begin -->").count(), 1);
    assert!(once.contains(&w.vitest) && once.contains(&w.react));
    let r = w
        .env
        .lore(&["export", "--format", "agents-md", "--project", p]);
    r.assert_stderr("(unchanged)");
    assert_eq!(
        std::fs::read_to_string(dir.join("AGENTS.md")).unwrap(),
        once
    );

    w.env
        .lore(&["export", "--format", "cursor-rules", "--project", p])
        .ok();
    let rules: Vec<String> = std::fs::read_dir(dir.join(".cursor/rules"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(rules.len(), 2, "{rules:?}");
    let react_rule = rules
        .iter()
        .map(|n| std::fs::read_to_string(dir.join(".cursor/rules").join(n)).unwrap())
        .find(|t| t.contains(&w.react))
        .unwrap();
    assert!(react_rule.starts_with("---\n"), "{react_rule}");
    assert!(react_rule.contains("src/**/*.tsx"), "{react_rule}");
    w.env
        .lore(&["export", "--format", "cursor-rules", "--project", p])
        .ok();
    assert_eq!(
        std::fs::read_dir(dir.join(".cursor/rules"))
            .unwrap()
            .count(),
        2
    );

    let r = w
        .env
        .lore(&["export", "--format", "onlooker-json", "--project", p]);
    let batch: Value = serde_json::from_str(r.ok().lines().next().unwrap()).unwrap();
    assert_eq!(batch["lessons"].as_array().unwrap().len(), 2);
    assert_eq!(batch["lessons"][0]["schema_version"], 2);
}

#[test]
fn recall_answers_the_same_after_the_index_is_deleted() {
    let w = world();
    let before = recall(&w.env, &["--project", &project("vite5")])
        .ok()
        .to_owned();
    std::fs::remove_file(w.env.repo().join("lore/index")).ok();
    assert_eq!(
        recall(&w.env, &["--project", &project("vite5")]).ok(),
        before
    );
    w.env.lore(&["index", "--rebuild"]).ok();
    assert_eq!(
        recall(&w.env, &["--project", &project("vite5")]).ok(),
        before
    );
}

/// `git-lore args…` run in `dir`, with `input` on stdin when given.
fn lore_in(env: &TestEnv, dir: &std::path::Path, args: &[&str], input: Option<&[u8]>) -> Run {
    use std::io::Write;
    let mut c = env.lore_cmd(args);
    c.current_dir(dir)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    let mut child = c.spawn().expect("spawn git-lore");
    let mut stdin = child.stdin.take().unwrap();
    if let Some(bytes) = input {
        stdin.write_all(bytes).unwrap();
    }
    drop(stdin);
    Run::from(child.wait_with_output().unwrap())
}

fn copy_fixture(project_fixture: &str, to: &std::path::Path) {
    std::fs::create_dir_all(to).unwrap();
    std::fs::copy(
        format!("{}/package-lock.json", project(project_fixture)),
        to.join("package-lock.json"),
    )
    .unwrap();
}

/// Outside any project (an empty directory, a directory of unrelated
/// repositories, the home directory) recall, stack and export refuse and
/// point to --project; the session-start hook says so and recalls
/// nothing. No lockfile around is read, so no lesson is matched against
/// another project's files.
#[test]
fn outside_any_project_nothing_is_recalled_and_the_message_says_why() {
    let w = world();
    let home = w.env.home();
    // Unrelated repositories whose lockfiles would match both lessons.
    for (name, fixture) in [("app", "vite5"), ("site", "vite5"), ("old", "vite8")] {
        let repo = home.join("src").join(name);
        copy_fixture(fixture, &repo);
        std::fs::create_dir_all(repo.join(".git")).unwrap();
    }
    std::fs::create_dir_all(home.join("src/tools/lib")).unwrap();
    std::fs::write(
        home.join("src/tools/lib/Cargo.lock"),
        include_str!("../../src/recall/stack/testdata/Cargo.v4.lock"),
    )
    .unwrap();
    let empty = home.join("notes/empty");
    std::fs::create_dir_all(&empty).unwrap();
    let src = home.join("src");
    let canon = |p: &std::path::Path| p.canonicalize().unwrap().display().to_string();

    for dir in [&src, &empty] {
        let r = lore_in(&w.env, dir, &["recall"], None);
        r.assert_refused(&format!(
            "{} is not inside a project: no manifest or lockfile there or above it, up to your home directory; run `git lore recall` in a project's directory, or name one with --project DIR",
            canon(dir)
        ));
        assert_eq!(r.stdout, "", "nothing is recalled");
        let r = lore_in(&w.env, dir, &["recall", "--format", "markdown"], None);
        assert_eq!((r.code, r.stdout.as_str()), (1, ""));
        let r = lore_in(&w.env, dir, &["stack", "--json"], None);
        r.assert_refused("is not inside a project");
        assert_eq!(r.stdout, "");
        let r = lore_in(&w.env, dir, &["export", "--format", "agents-md"], None);
        r.assert_refused(
            "run `git lore export` in a project's directory, or name one with --project DIR",
        );
        assert!(!dir.join("AGENTS.md").exists());
    }
    let r = lore_in(&w.env, &home, &["recall"], None);
    r.assert_refused(&format!(
        "{} is your home directory, which is never taken for a project",
        canon(&home)
    ));

    // The hook never fails the session: exit 0, a line for the person, no
    // lessons for the agent.
    for dir in [&src, &empty, &home] {
        let input = json!({"session_id": "s1", "cwd": dir, "hook_event_name": "SessionStart"});
        let r = lore_in(
            &w.env,
            dir,
            &["hook", "session-start"],
            Some(input.to_string().as_bytes()),
        );
        assert_eq!(r.code, 0, "{}", r.stderr);
        let j: Value = serde_json::from_str(&r.stdout).unwrap();
        assert!(j.get("hookSpecificOutput").is_none(), "{}", r.stdout);
        let message = j["systemMessage"].as_str().unwrap();
        let what = if *dir == home {
            format!("{} is your home directory, not a project", canon(dir))
        } else {
            format!("{} is not inside a project", canon(dir))
        };
        assert_eq!(
            message,
            format!(
                "git-lore: no lessons this session: {what} (`git lore recall --project DIR` recalls for one)"
            )
        );
        assert!(!r.stdout.contains(&w.vitest) && !r.stdout.contains(&w.react));
    }

    // --stack needs no project; --project names one from anywhere.
    let r = lore_in(
        &w.env,
        &src,
        &[
            "recall",
            "--stack",
            "vite@5.4.21",
            "--stack",
            "vitest@4.1.9",
        ],
        None,
    );
    assert!(r.ok().starts_with(&w.vitest), "{}", r.stdout);
    r.assert_stderr("is not inside a project: no manifest or lockfile there or above it, up to your home directory; recalling for --stack alone");
    let app = src.join("app");
    let r = lore_in(
        &w.env,
        &src,
        &["recall", "--project", app.to_str().unwrap()],
        None,
    );
    assert!(r.ok().starts_with(&w.vitest), "{}", r.stdout);
}

/// The walk is bounded to the project's manifests and the members they
/// declare: pnpm and Cargo workspace members are read, a deep
/// undeclared directory with a matching lockfile is not, and recall run
/// in a member's subdirectory finds the workspace root.
#[test]
fn workspace_members_are_read_and_nothing_else() {
    let w = world();
    let root = w.env.home().join("src/mono");
    std::fs::create_dir_all(root.join(".git")).unwrap();
    // A Cargo workspace whose members hold no npm lockfile of their own,
    // but one (a crate embedding a web UI) does.
    std::fs::write(
        root.join("Cargo.toml"),
        "[workspace]\nmembers = [\"crates/*\"]\n",
    )
    .unwrap();
    std::fs::write(
        root.join("Cargo.lock"),
        include_str!("../../src/recall/stack/testdata/Cargo.v4.lock"),
    )
    .unwrap();
    std::fs::create_dir_all(root.join("crates/core/src")).unwrap();
    std::fs::write(
        root.join("crates/core/Cargo.toml"),
        "[package]\nname = \"core\"\n",
    )
    .unwrap();
    std::fs::write(
        root.join("crates/ui/Cargo.toml"),
        "[package]\nname = \"ui\"\n",
    )
    .ok();
    copy_fixture("vite8", &root.join("crates/ui"));
    std::fs::write(
        root.join("crates/ui/Cargo.toml"),
        "[package]\nname = \"ui\"\n",
    )
    .unwrap();
    // A pnpm workspace beside it, with per-package lockfiles.
    std::fs::write(root.join("pnpm-workspace.yaml"), "packages:\n  - 'web/*'\n").unwrap();
    copy_fixture("vite5", &root.join("web/app"));
    std::fs::write(root.join("web/app/package.json"), "{}").unwrap();
    // Deep and undeclared: a test fixture that would match the lessons.
    copy_fixture("vite5", &root.join("tests/fixtures/deep/er/still"));

    let r = w
        .env
        .lore(&["stack", "--json", "--project", root.to_str().unwrap()]);
    let j: Value = serde_json::from_str(r.ok()).unwrap();
    assert_eq!(
        j["members"],
        json!([
            {"dir": "crates/core", "declared_by": "Cargo.toml"},
            {"dir": "crates/ui", "declared_by": "Cargo.toml"},
            {"dir": "web/app", "declared_by": "pnpm-workspace.yaml"}
        ])
    );
    let files: Vec<&str> = j["sources"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["file"].as_str().unwrap())
        .collect();
    assert_eq!(
        files,
        [
            "Cargo.lock",
            "crates/ui/package-lock.json",
            "web/app/package-lock.json"
        ]
    );
    r.assert_stderr("3 workspace members read: crates/core, crates/ui, web/app");

    // From a member's subdirectory: the workspace root is the project.
    let r = lore_in(
        &w.env,
        &root.join("crates/core/src"),
        &["recall", "--all"],
        None,
    );
    let out = r.ok();
    assert!(out.starts_with(&w.vitest), "web/app has vite 5:\n{out}");
    assert!(!out.contains("(not recalled"), "{out}");
    // Without the pnpm workspace, only the deep fixture could still make
    // the vitest lesson apply: it does not, because it is never read.
    std::fs::remove_file(root.join("pnpm-workspace.yaml")).unwrap();
    let r = lore_in(
        &w.env,
        &root.join("crates/core/src"),
        &["recall", "--all"],
        None,
    );
    r.assert_ok_stdout(&format!(
        "{}  Vitest 4 cannot import vite/module-runner on Vite 5  [vite <6, vitest >=4]  (not recalled: vite 8.0.16 is not <6 (in crates/ui))",
        w.vitest
    ));
}
