//! Recall, end to end: lessons promoted into the pools come back for the
//! projects whose installed versions they hold for, and for no other; the
//! agent hook hands them over and never fails a session; exports land in
//! the files other agents read, idempotently.

use serde_json::{json, Value};

use crate::common::{Run, TestEnv};

const CANDIDATE: &str = include_str!("../fixtures/responses/candidate.json");
const POSITIVE: &str = include_str!("../fixtures/artifacts/positive-synthetic.json");

pub(crate) fn project(name: &str) -> String {
    format!(
        "{}/tests/fixtures/projects/{name}",
        env!("CARGO_MANIFEST_DIR")
    )
}

/// Proposes `candidate` for a fresh artifact through a model stub, confirms
/// it at org (with `justification`, version independent) and approves it
/// with a passing panel. Returns the lesson id.
pub(crate) fn approved(
    env: &TestEnv,
    n: u32,
    candidate: &Value,
    justification: Option<&str>,
) -> String {
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

impl World {
    /// `git lore recall args…`: its transcript, the two lessons shown as
    /// `[vitest]` and `[react]`.
    fn recall(&self, args: &[&str]) -> String {
        let mut all = vec!["recall"];
        all.extend(args);
        self.session(&all)
    }

    /// `git lore args…`: its transcript, the two lessons shown as
    /// `[vitest]` and `[react]`.
    fn session(&self, args: &[&str]) -> String {
        self.env.session_with(args, &self.lessons())
    }

    fn lessons(&self) -> [(&str, &str); 2] {
        [(&self.vitest, "[vitest]"), (&self.react, "[react]")]
    }

    /// The names a transcript shows: the two lessons, the test's directory
    /// and the source tree.
    fn names(&self) -> Vec<(String, String)> {
        self.env.names(&self.lessons())
    }
}

fn recall(env: &TestEnv, args: &[&str]) -> Run {
    let mut all = vec!["recall"];
    all.extend(args);
    env.lore(&all)
}

#[test]
fn a_lesson_applies_only_where_every_version_it_names_is_in_range() {
    let w = world();
    // Both apply to vite 5; the more specific lesson first.
    insta::assert_snapshot!(w.recall(&["--project", &project("vite5")]), @"
    $ git lore recall --project [REPO]/tests/fixtures/projects/vite5
    [vitest]  Vitest 4 cannot import vite/module-runner on Vite 5  [vite <6, vitest >=4]
    [react]  React StrictMode runs effects twice in development  [any version of react]
    ");
    // vite 8.0.16 is not <6: the vitest lesson expired for this project.
    insta::assert_snapshot!(w.recall(&["--project", &project("vite8")]), @"
    $ git lore recall --project [REPO]/tests/fixtures/projects/vite8
    [react]  React StrictMode runs effects twice in development  [any version of react]
    ");
    insta::assert_snapshot!(w.recall(&["--project", &project("vite8"), "--all"]), @"
    $ git lore recall --project [REPO]/tests/fixtures/projects/vite8 --all
    [react]  React StrictMode runs effects twice in development  [any version of react]
    [vitest]  Vitest 4 cannot import vite/module-runner on Vite 5  [vite <6, vitest >=4]  (not recalled: vite 8.0.16 is not <6)
    ");
}

#[test]
fn stack_overrides_work_with_no_lockfile_at_all() {
    let w = world();
    let empty = w.env.path().join("empty");
    std::fs::create_dir_all(&empty).unwrap();
    let p = empty.to_str().unwrap();
    insta::assert_snapshot!(w.recall(&["--project", p]), @"
    $ git lore recall --project [TMP]/empty
    [stderr] no lesson applies to the versions installed in [TMP]/empty (0 packages found)
    ");
    insta::assert_snapshot!(w.recall(&[
        "--project",
        p,
        "--stack",
        "vite@5.4.21",
        "--stack",
        "vitest@4.1.9",
    ]), @"
    $ git lore recall --project [TMP]/empty --stack vite@5.4.21 --stack vitest@4.1.9
    [vitest]  Vitest 4 cannot import vite/module-runner on Vite 5  [vite <6, vitest >=4]
    ");
    insta::assert_snapshot!(w.recall(&["--project", p, "--stack", "vite@5.4.21", "--all"]), @"
    $ git lore recall --project [TMP]/empty --stack vite@5.4.21 --all
    [vitest]  Vitest 4 cannot import vite/module-runner on Vite 5  [vite <6, vitest >=4]  (not recalled: vitest not installed)
    [react]  React StrictMode runs effects twice in development  [any version of react]  (not recalled: react not installed)
    [stderr] no lesson applies to the versions installed in [TMP]/empty (1 packages found)
    ");
    insta::assert_snapshot!(w.recall(&["--project", p, "--stack", "vite"]), @r#"
    $ git lore recall --project [TMP]/empty --stack vite
    [stderr] git-lore: --stack "vite" has no version: write NAME@VERSION, e.g. vite@5.4.21 or pypi:requests@2.31.0
    [exit 1]
    "#);
}

#[test]
fn the_json_form_is_versioned_and_whole() {
    let w = world();
    let r = recall(
        &w.env,
        &["--project", &project("vite5"), "--format", "json"],
    );
    let j: Value = serde_json::from_str(r.ok()).unwrap();
    let shown = serde_json::to_string_pretty(&j).unwrap();
    let shown = w
        .names()
        .iter()
        .fold(shown, |s, (from, to)| s.replace(from, to));
    insta::assert_snapshot!(shown, @r#"
    {
      "all": false,
      "counts": {
        "applies": 2,
        "hidden": 0,
        "not_applies": 0,
        "superseded": 0,
        "unknown": 0
      },
      "format": "git-lore.recall/1",
      "lessons": [
        {
          "claim": "Vitest 4 cannot import vite/module-runner on Vite 5",
          "file_patterns": [],
          "id": "[vitest]",
          "matched": [
            {
              "ecosystem": "npm",
              "key": "vite",
              "name": "vite",
              "range": "<6",
              "source": "package-lock.json",
              "version": "5.4.21",
              "workspace": "."
            },
            {
              "ecosystem": "npm",
              "key": "vitest",
              "name": "vitest",
              "range": ">=4",
              "source": "package-lock.json",
              "version": "4.1.9",
              "workspace": "."
            }
          ],
          "promoted_at": "2026-08-05T10:00:00Z",
          "rationale": "vite/module-runner ships in Vite 6; Vitest 4 assumes it exists.",
          "resolution": "Pin vitest to 3.x until Vite 6 lands.",
          "scope": {
            "kind": "versioned",
            "versions": {
              "vite": "<6",
              "vitest": ">=4"
            }
          },
          "source": "org",
          "specificity": {
            "bounds": 2,
            "keys": 2
          },
          "stack": [
            "vite",
            "vitest"
          ],
          "task_kinds": [],
          "visibility": "org",
          "workspaces": [
            "."
          ]
        },
        {
          "claim": "React StrictMode runs effects twice in development",
          "file_patterns": [
            "src/**/*.tsx"
          ],
          "id": "[react]",
          "matched": [
            {
              "ecosystem": "npm",
              "key": "react",
              "name": "react",
              "range": null,
              "source": "package-lock.json",
              "version": "18.3.1",
              "workspace": "."
            }
          ],
          "promoted_at": "2026-08-05T10:00:00Z",
          "rationale": "Effects mount, unmount and mount again to surface missing cleanups.",
          "resolution": "Write effects with a cleanup; do not count on a single run.",
          "scope": {
            "justification": "StrictMode has double-invoked effects in every release since 18.",
            "kind": "version_independent"
          },
          "source": "org",
          "specificity": {
            "bounds": 0,
            "keys": 0
          },
          "stack": [
            "react"
          ],
          "task_kinds": [],
          "visibility": "org",
          "workspaces": [
            "."
          ]
        }
      ],
      "stack": {
        "packages": 3,
        "problems": [],
        "workspaces": [
          "."
        ]
      }
    }
    "#);
}

/// `--format json` is exact and inert on a terminal: a lesson's invisible
/// characters and a workspace's bidi override come out as `\uXXXX`
/// escapes, never raw, and parse back to the same strings.
#[test]
fn json_escapes_bidi_and_invisible_characters() {
    let env = TestEnv::new();
    env.init();
    let mut c: Value = serde_json::from_str(CANDIDATE).unwrap();
    let rationale = format!(
        "{} Noted \u{2764}\u{fe0f} with a zero\u{200b}width space.",
        c["rationale"].as_str().unwrap()
    );
    c["rationale"] = rationale.clone().into();
    let id = approved(&env, 1, &c, None);
    let dir = env.path().join("hostile");
    let ws = dir.join("\u{202e}gnp.exe");
    std::fs::create_dir_all(&ws).unwrap();
    std::fs::copy(
        format!("{}/package-lock.json", project("vite5")),
        ws.join("package-lock.json"),
    )
    .unwrap();
    // A workspace member, so that recall reads it.
    std::fs::write(dir.join("package.json"), r#"{"workspaces": ["*"]}"#).unwrap();
    let r = recall(
        &env,
        &["--project", dir.to_str().unwrap(), "--format", "json"],
    );
    let out = r.ok();
    for raw in ['\u{202e}', '\u{200b}', '\u{fe0f}'] {
        assert!(!out.contains(raw), "raw U+{:04X} in:\n{out}", raw as u32);
    }
    assert!(out.contains("\"\\u202egnp.exe\""), "{out}");
    assert!(
        out.contains("Noted ❤\\ufe0f with a zero\\u200bwidth space."),
        "{out}"
    );
    let j: Value = serde_json::from_str(out).unwrap();
    assert_eq!(j["lessons"][0]["id"], id.as_str());
    assert_eq!(j["lessons"][0]["rationale"], rationale.as_str());
    assert_eq!(j["stack"]["workspaces"], json!(["\u{202e}gnp.exe"]));
    assert_eq!(
        j["lessons"][0]["matched"][0]["workspace"],
        "\u{202e}gnp.exe"
    );
}

#[test]
fn markdown_fits_its_budget_most_specific_first() {
    let w = world();
    insta::assert_snapshot!(w.recall(&["--project", &project("vite5"), "--format", "markdown"]), @"
    $ git lore recall --project [REPO]/tests/fixtures/projects/vite5 --format markdown
    ## Lessons for this project (git-lore)

    Approved lessons that hold for the versions installed here, most specific first. `git lore show ID` prints one in full.

    - Vitest 4 cannot import vite/module-runner on Vite 5 — fix: Pin vitest to 3.x until Vite 6 lands. (`vite <6`, `vitest >=4`; [vitest])
    - React StrictMode runs effects twice in development — fix: Write effects with a cleanup; do not count on a single run. (any version of `react`; [react])
    ");
    let budget = [
        "--project",
        &project("vite5"),
        "--format",
        "markdown",
        "--budget",
        "420",
    ];
    let md = recall(&w.env, &budget).ok().to_owned();
    assert!(
        md.chars().count() <= 420,
        "{} characters:\n{md}",
        md.chars().count()
    );
    // The most specific lesson stays.
    insta::assert_snapshot!(w.recall(&budget), @"
    $ git lore recall --project [REPO]/tests/fixtures/projects/vite5 --format markdown --budget 420
    ## Lessons for this project (git-lore)

    Approved lessons that hold for the versions installed here, most specific first. `git lore show ID` prints one in full.

    - Vitest 4 cannot import vite/module-runner on Vite 5 — fix: Pin vitest to 3.x until Vite 6 lands. (`vite <6`, `vitest >=4`; [vitest])

    1 more: `git lore recall --all`
    ");
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
    insta::assert_snapshot!(w.session(&["stack", "--project", dir.to_str().unwrap()]), @"
    $ git lore stack --project [TMP]/monorepo
    react 18.3.1  npm  web/package-lock.json
    vite 5.4.21  npm  web/package-lock.json
    vitest 4.1.9  npm  web/package-lock.json
    [stderr] 1 workspace member read: web
    [stderr] Cargo.lock: invalid TOML: line 1: key with no value, expected `=`
    ");
    insta::assert_snapshot!(w.recall(&["--project", dir.to_str().unwrap()]), @"
    $ git lore recall --project [TMP]/monorepo
    [vitest]  Vitest 4 cannot import vite/module-runner on Vite 5  [vite <6, vitest >=4]
    [react]  React StrictMode runs effects twice in development  [any version of react]
    [stderr] Cargo.lock: invalid TOML: line 1: key with no value, expected `=`
    ");
}

/// What the session-start hook said, every field of its JSON: the line for
/// the person, then what the agent is given, as text.
#[track_caller]
fn hook_said(stdout: &str) -> String {
    let mut j: Value = serde_json::from_str(stdout).unwrap();
    let mut out = String::new();
    if let Some(m) = j.as_object_mut().unwrap().remove("systemMessage") {
        out.push_str(&format!("systemMessage: {}\n", m.as_str().unwrap()));
    }
    if let Some(mut h) = j.as_object_mut().unwrap().remove("hookSpecificOutput") {
        let h = h.as_object_mut().unwrap();
        let event = h.remove("hookEventName").unwrap();
        let context = h.remove("additionalContext").unwrap();
        assert!(h.is_empty(), "{h:?}");
        out.push_str(&format!(
            "hookEventName: {}\nadditionalContext:\n{}",
            event.as_str().unwrap(),
            context.as_str().unwrap()
        ));
    }
    assert_eq!(j, json!({}), "nothing else");
    out
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
    assert_eq!((r.code, r.stderr.as_str()), (0, ""));
    assert!(r.stdout.len() < 10_000);
    // The lessons for the agent; the waiting count for the person.
    let said = w
        .names()
        .iter()
        .fold(hook_said(&r.stdout), |s, (from, to)| s.replace(from, to));
    insta::assert_snapshot!(said, @"
    systemMessage: git-lore: 1 lesson awaits your decision: `git lore list`
    hookEventName: SessionStart
    additionalContext:
    ## Lessons for this project (git-lore)

    Approved lessons that hold for the versions installed here, most specific first. `git lore show ID` prints one in full.

    - Vitest 4 cannot import vite/module-runner on Vite 5 — fix: Pin vitest to 3.x until Vite 6 lands. (`vite <6`, `vitest >=4`; [vitest])
    - React StrictMode runs effects twice in development — fix: Write effects with a cleanup; do not count on a single run. (any version of `react`; [react])
    ");
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
    // Nobody opens the FIFO for writing while the hook runs: it must answer
    // on its own, with the read still blocked. (A guard opens the FIFO only
    // if the hook has not answered after two minutes, so a hook that waits
    // for the read fails this test instead of hanging it.)
    let (answered, guard_wait) = std::sync::mpsc::channel::<()>();
    let guard = {
        let fifo = fifo.clone();
        std::thread::spawn(move || {
            if guard_wait
                .recv_timeout(std::time::Duration::from_secs(120))
                .is_ok()
            {
                return false;
            }
            // Non-blocking: with no reader left, there is nothing to open.
            use std::os::unix::fs::OpenOptionsExt;
            let _ = std::fs::OpenOptions::new()
                .write(true)
                .custom_flags(rustix::fs::OFlags::NONBLOCK.bits() as i32)
                .open(&fifo);
            true
        })
    };
    let r = session_start(&env, &project("vite5"));
    let _ = answered.send(());
    assert!(
        !guard.join().unwrap(),
        "the hook answered only once the FIFO it was reading was opened"
    );
    assert_eq!((r.code, r.stderr.as_str()), (0, ""));
    insta::assert_snapshot!(hook_said(&r.stdout), @"systemMessage: git-lore: no lessons this session (recall took too long)");
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
    insta::assert_snapshot!(w.session(&["export", "--format", "agents-md", "--project", p]), @"
    $ git lore export --format agents-md --project [TMP]/app
    [stderr] [TMP]/app/AGENTS.md: 2 lessons in the git-lore section
    ");
    // The person's text stays; one section of ours follows it.
    let once = std::fs::read_to_string(dir.join("AGENTS.md")).unwrap();
    let shown = w
        .names()
        .iter()
        .fold(once.clone(), |s, (from, to)| s.replace(from, to));
    insta::assert_snapshot!(shown, @"
    # App

    Build with `make`.

    <!-- git-lore:begin -->
    ## Lessons from git-lore

    Lessons that hold for the versions this project has installed, most specific first. Generated by `git lore export --format agents-md`: do not edit between the markers, re-running replaces this section. `git lore show ID` prints a lesson in full.

    - Vitest 4 cannot import vite/module-runner on Vite 5 — fix: Pin vitest to 3.x until Vite 6 lands. (`vite <6`, `vitest >=4`; [vitest])
    - React StrictMode runs effects twice in development — fix: Write effects with a cleanup; do not count on a single run. (any version of `react`; [react])
    <!-- git-lore:end -->
    ");
    insta::assert_snapshot!(w.session(&["export", "--format", "agents-md", "--project", p]), @"
    $ git lore export --format agents-md --project [TMP]/app
    [stderr] [TMP]/app/AGENTS.md: 2 lessons in the git-lore section (unchanged)
    ");
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
    insta::assert_snapshot!(react_rule.replace(&w.react, "[react]"), @r#"
    ---
    description: "React StrictMode runs effects twice in development"
    globs: src/**/*.tsx
    alwaysApply: false
    ---

    # React StrictMode runs effects twice in development

    Effects mount, unmount and mount again to surface missing cleanups.

    **Fix:** Write effects with a cleanup; do not count on a single run.

    Scope: `any version of react`. Lesson [react]: `git lore show [react]` prints it in full.
    "#);
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
