//! `git lore edit`: a person corrects a lesson until the jury judges it —
//! by flags, by JSON on stdin, in an editor (a stub `$EDITOR` under
//! `script`, which gives it a terminal) — each edit one signed commit
//! whose message carries the diff, every refusal named and nothing
//! written for it, and `verify` refusing a forged edit.

use std::process::Command;

use serde_json::{json, Value};

use crate::common::{fanout, record_text, Run, Sign, TestEnv};

const CANDIDATE: &str = include_str!("../fixtures/responses/candidate.json");
const POSITIVE: &str = include_str!("../fixtures/artifacts/positive-synthetic.json");

/// The claim and resolution the fixture's lesson is proposed with.
const CLAIM: &str = "Vitest 4 cannot import vite/module-runner on Vite 5";
const RESOLUTION: &str = "Pin vitest to 3.x until Vite 6 lands.";

/// A corrected claim.
const FIXED: &str =
    "Vitest 4 needs vite/module-runner, which ships in Vite 6; on Vite 5 use vitest 3";

/// A repository with the fixture's pending lesson (scope
/// `vite <6, vitest >=4`); the model stub fails loudly from then on (an
/// edit never calls one). The lesson id.
fn pending(env: &TestEnv) -> String {
    env.init();
    env.model_answers(CANDIDATE);
    let f = env.write("a.json", POSITIVE);
    let id = crate::common::lesson_of(env.lore(&["ingest", f.to_str().unwrap()]).ok());
    env.model_stub("echo 'a model was called' >&2; exit 1");
    id
}

/// What the ledger holds now: its tip and the lesson's record.
fn state(env: &TestEnv, id: &str) -> (String, Value) {
    (env.ledger_commits()[0].clone(), env.proposal(id))
}

/// The tip's message, as written (`%B` adds a line feed).
fn message(env: &TestEnv) -> String {
    let m = env.git(&["log", "-1", "--format=%B", "ledger"]);
    format!("{}\n", m.ok().trim_end())
}

/// Runs `git lore ARGS` on a terminal (`script` gives it one), with `editor`
/// as `GIT_EDITOR` and the test directory as `TMPDIR`.
fn on_terminal(env: &TestEnv, editor: &std::path::Path, args: &str) -> Run {
    let command = format!(
        "{} {args}; echo \"[exit $?]\"",
        env!("CARGO_BIN_EXE_git-lore")
    );
    let out = Command::new("script")
        .args(["-qec", &command, "/dev/null"])
        .env_clear()
        .envs(env.vars())
        .env("GIT_LORE_RANDOMNESS_SEED", "7")
        .env("GIT_EDITOR", editor)
        .env("TMPDIR", env.path())
        .env("TERM", "xterm")
        .current_dir(env.path())
        .output()
        .expect("run script");
    // On a terminal stdout and stderr are one stream; the exit code is the
    // command's own, printed last.
    let text = String::from_utf8_lossy(&out.stdout).replace("\r\n", "\n");
    let (text, code) = text
        .trim_end()
        .rsplit_once("[exit ")
        .expect("the command's exit code");
    let text = text.trim_end().to_owned();
    Run {
        code: code.trim_end_matches(']').parse().unwrap(),
        stdout: text.clone(),
        stderr: text,
    }
}

#[test]
fn an_edit_by_flags_is_one_signed_commit_that_log_show_and_verify_know() {
    let env = TestEnv::new();
    let id = pending(&env);
    let n = env.ledger_commits().len();
    let r = env.lore(&[
        "edit",
        &id,
        "--claim",
        FIXED,
        "--scope",
        "vite=>=5 <6",
        "--scope",
        "@vitest/runner=>=4 <5",
    ]);
    assert_eq!(r.ok(), format!("Edited {id}: claim, stack, scope.\n"));
    assert_eq!(env.ledger_commits().len(), n + 1);
    let p = env.proposal(&id);
    assert_eq!(p["status"], "pending");
    assert_eq!(p["candidate"]["claim"], FIXED);
    assert_eq!(
        p["candidate"]["applies_to"]["stack"],
        json!(["vite", "vitest", "@vitest/runner"])
    );
    assert_eq!(
        p["candidate"]["applies_to"]["scope"]["versions"],
        json!({"vite": ">=5 <6", "vitest": ">=4", "@vitest/runner": ">=4 <5"})
    );
    // The message: the subject, the diff of the record, the trailers.
    let m = message(&env);
    assert!(
        m.starts_with(&format!("edit {id}: claim, stack, scope\n\n@@ ")),
        "{m}"
    );
    assert!(
        m.contains(&format!("\n-    \"claim\": \"{CLAIM}\",\n")),
        "{m}"
    );
    assert!(
        m.contains(&format!("\n+    \"claim\": \"{FIXED}\",\n")),
        "{m}"
    );
    assert!(m.contains("\n-          \"vite\": \"<6\",\n"), "{m}");
    let artifact = p["artifact_id"].as_str().unwrap();
    let trailers = format!(
        "Lore-Format: 1\nLore-Action: edit\nLore-Lesson: {id}\nLore-Artifact: {artifact}\nLore-From: pending\nLore-Status: pending\n"
    );
    assert!(m.ends_with(&format!("\n\n{trailers}")), "{m}");
    // Stock git reads the same trailers and verifies the signature.
    assert_eq!(
        env.git_stdin(&["interpret-trailers", "--parse"], &m).ok(),
        trailers
    );
    let v = env.git(&["verify-commit", "ledger"]);
    assert_eq!(v.code, 0, "{}", v.stderr);
    assert!(v.stderr.contains("Good \"git\" signature"), "{}", v.stderr);
    // show, log and log -p.
    env.lore(&["show", &id])
        .assert_ok_stdout(&format!("claim:       {FIXED}\n"));
    let log = env.lore(&["log", &id]);
    log.assert_ok_stdout(&format!(
        "edit {id}: claim, stack, scope\n    edit (stays pending); signature: good"
    ));
    let log = env.lore(&["log", "-p", "-n", "1", &id]);
    log.assert_ok_stdout(&format!("    +    \"claim\": \"{FIXED}\",\n"));
    log.assert_stdout(&format!("    -    \"claim\": \"{CLAIM}\",\n"));
    env.assert_verifies();
    // The same edit again writes nothing and says so.
    let r = env.lore(&["edit", &id, "--claim", FIXED]);
    assert_eq!(
        r.ok(),
        format!("lesson {id} already says that; nothing was written\n")
    );
    assert_eq!(env.ledger_commits().len(), n + 1);
    // unscope takes a package out of the scope and the stack.
    let r = env.lore(&["edit", &id, "--unscope", "@vitest/runner"]);
    assert_eq!(r.ok(), format!("Edited {id}: stack, scope.\n"));
    assert_eq!(
        env.proposal(&id)["candidate"]["applies_to"]["stack"],
        json!(["vite", "vitest"])
    );
    env.assert_verifies();
}

#[test]
fn an_edit_by_json_on_stdin_and_of_a_confirmed_lesson_keeps_its_status() {
    let env = TestEnv::new();
    let id = pending(&env);
    env.confirm(&id, "org");
    let edit = json!({
        "resolution": "Pin vitest to 3.2.4 until Vite 6 lands.",
        "applies_to": {"scope": {"kind": "versioned", "versions": {"vite": ">=5 <6", "vitest": ">=4 <5"}}}
    });
    let r = env.lore_stdin(&["edit", &id, "--json", "-"], edit.to_string().as_bytes());
    assert_eq!(r.ok(), format!("Edited {id}: resolution, scope.\n"));
    let p = env.proposal(&id);
    assert_eq!(
        (p["status"].as_str(), p["visibility"].as_str()),
        (Some("confirmed"), Some("org"))
    );
    assert_eq!(
        p["candidate"]["evidence"]["resolution"],
        "Pin vitest to 3.2.4 until Vite 6 lands."
    );
    assert_eq!(
        p["candidate"]["applies_to"]["scope"]["versions"]["vitest"],
        ">=4 <5"
    );
    let m = message(&env);
    assert!(
        m.ends_with("Lore-From: confirmed\nLore-Status: confirmed\n"),
        "{m}"
    );
    // What cannot be edited is named, and nothing is written.
    let (tip, record) = state(&env, &id);
    for (input, says) in [
        (
            json!({"visibility": "public"}).to_string(),
            "--json: visibility cannot be edited: only claim, rationale, resolution, applies_to.stack and applies_to.scope can; nothing was written",
        ),
        (
            json!({"claim": 3}).to_string(),
            "--json: claim must be a string; nothing was written",
        ),
        (
            "{\"claim\": ".into(),
            "--json: the edit is not JSON: EOF while parsing a value at line 1",
        ),
    ] {
        let r = env.lore_stdin(&["edit", &id, "--json", "-"], input.as_bytes());
        r.assert_refused(says);
        assert_eq!(state(&env, &id), (tip.clone(), record.clone()), "{input}");
    }
    // The jury judges the edited lesson, and the pool gets it.
    let r = env.lore(&["judge", "--all", "--yes"]);
    r.assert_ok_stdout(&format!("Lesson {id} promoted to pool/org.\n"));
    let entry: Value = serde_json::from_str(
        env.git(&["show", &format!("pool/org:{}", fanout("lessons", &id))])
            .ok(),
    )
    .unwrap();
    assert_eq!(
        entry["evidence"]["resolution"],
        "Pin vitest to 3.2.4 until Vite 6 lands."
    );
    assert_eq!(
        entry["applies_to"]["scope"]["versions"],
        json!({"vite": ">=5 <6", "vitest": ">=4 <5"})
    );
    env.assert_verifies();
}

#[test]
fn confirming_and_judging_after_an_edit_take_the_edited_text() {
    let env = TestEnv::new();
    let id = pending(&env);
    env.lore(&["edit", &id, "--claim", FIXED]).ok();
    env.confirm(&id, "private");
    assert_eq!(env.proposal(&id)["candidate"]["claim"], FIXED);
    let r = env.lore(&["judge", &id, "[]"]);
    assert_eq!(
        r.ok(),
        format!("Lesson {id} is now approved.\nLesson {id} promoted to pool/local.\n")
    );
    let entry: Value = serde_json::from_str(
        env.git(&["show", &format!("pool/local:{}", fanout("lessons", &id))])
            .ok(),
    )
    .unwrap();
    assert_eq!(entry["claim"], FIXED);
    // Judged: edited no more, and told what to do instead.
    let (tip, record) = state(&env, &id);
    let r = env.lore(&["edit", &id, "--claim", "Vite 5 lacks vite/module-runner"]);
    r.assert_refused(&format!(
        "lesson {id} was judged (approved); a judged lesson is not edited: supersede it with a corrected lesson (`git lore relate` relates the newer one to it) or take it back (`git lore retract {id} --reason TEXT`)"
    ));
    assert_eq!(state(&env, &id), (tip, record));
    env.assert_verifies();
}

#[test]
fn the_words_of_a_lesson_confirmed_version_independent_survive_unconfirm() {
    let env = TestEnv::new();
    let id = pending(&env);
    env.confirm_justified(
        &id,
        "public",
        "vite/module-runner exists only from Vite 6 on.",
    );
    env.lore(&["edit", &id, "--claim", FIXED]).ok();
    let p = env.proposal(&id);
    assert_eq!(p["candidate_before_confirm"]["claim"], FIXED);
    let (tip, record) = state(&env, &id);
    env.lore(&["edit", &id, "--scope", "vite=<6"]).assert_refused(&format!(
        "lesson {id} not edited: it was confirmed version_independent, so its stack and scope stay as confirmed; `git lore unconfirm {id}` first to change them"
    ));
    assert_eq!(state(&env, &id), (tip, record));
    env.lore(&["unconfirm", &id]).ok();
    let p = env.proposal(&id);
    assert_eq!(p["status"], "pending");
    assert_eq!(p["candidate"]["claim"], FIXED);
    assert_eq!(p["candidate"]["applies_to"]["scope"]["kind"], "versioned");
    env.assert_verifies();
}

#[test]
fn every_refusal_names_what_was_wrong_and_writes_nothing() {
    let env = TestEnv::new();
    let id = pending(&env);
    let (tip, record) = state(&env, &id);
    let cases: Vec<(Vec<&str>, String)> = vec![
        (
            vec!["--scope", "vite=^5"],
            format!("lesson {id} not edited: the range \"^5\" for vite: npm-style '^' ranges are not allowed; write comparators, e.g. \">=5.4.21 <6\""),
        ),
        (
            vec!["--claim", "fix(deps): pin vitest to 3.x"],
            format!("lesson {id} not edited: the claim starts with a conventional-commit prefix (\"fix(deps):\"); state the fact in one sentence instead"),
        ),
        (
            vec!["--claim", RESOLUTION],
            format!("lesson {id} not edited: the claim repeats the resolution; the claim states the fact, the resolution says what to do"),
        ),
        (
            vec!["--scope", "cargo.lock==3"],
            format!("lesson {id} not edited: stack entry \"cargo.lock\" is a file name, not a package (`--unscope cargo.lock` takes it out)"),
        ),
        (
            vec!["--claim", "Vitest 4 fails on Vite \u{202e}5"],
            format!("lesson {id} not edited: the edited lesson does not validate: /claim: contains the bidirectional control U+202E"),
        ),
        (
            vec!["--claim", "two\nlines"],
            format!("lesson {id} not edited: the edited lesson does not validate: /claim: contains a control character or line break; it must be one line"),
        ),
        (
            vec!["--rationale", "CI pulled with ghp_4Tz9qLm2Xv8Rk7Wp3Nc6Hd1Jf5Gs0Yb2Ae9U in the env."],
            format!("lesson {id} not edited: the new text holds what looks like a secret or a personal detail (github_token in rationale: ghp_… (40 characters)); take it out or write a placeholder (`sk_live_...`), then edit again"),
        ),
        (
            vec!["--unscope", "react"],
            format!("lesson {id} not edited: \"react\" is neither in its scope nor in its stack"),
        ),
        (
            vec!["--scope", "vite"],
            "--scope \"vite\": write NAME=RANGE, e.g. --scope vite=\"<6\"".into(),
        ),
    ];
    for (flags, says) in cases {
        let mut args = vec!["edit", id.as_str()];
        args.extend(&flags);
        let r = env.lore(&args);
        r.assert_refused(&says);
        assert_eq!(
            state(&env, &id),
            (tip.clone(), record.clone()),
            "{flags:?} wrote something"
        );
    }
    // Flags and --json are one or the other.
    let r = env.lore(&["edit", &id, "--claim", FIXED, "--json", "-"]);
    r.assert_refused("cannot be used with");
    // Ids: unknown, not a lesson's, ambiguous.
    let unknown = "01KZ8NV6800000000000000000";
    env.lore(&["edit", unknown, "--claim", FIXED])
        .assert_refused(&format!("lesson {unknown} not found"));
    env.lore(&["edit", "7ZZZ", "--claim", FIXED])
        .assert_refused("no lesson or artifact id starts with 7ZZZ");
    env.lore(&["edit", "01KZ", "--claim", FIXED])
        .assert_refused("01KZ is ambiguous: 2 ids start with it");
    env.lore(&["edit", "not-an-id", "--claim", FIXED])
        .assert_refused("not an id or a prefix of one");
    assert_eq!(state(&env, &id), (tip, record));
    // A lesson passed on is final.
    env.lore(&["pass", &id, "--yes"]).ok();
    let (tip, record) = state(&env, &id);
    env.lore(&["edit", &id, "--claim", FIXED])
        .assert_refused(&format!(
            "lesson {id} was passed on; a passed lesson is not edited (passing is final)"
        ));
    assert_eq!(state(&env, &id), (tip, record));
    env.assert_verifies();
}

#[test]
fn an_edit_in_the_editor_needs_a_terminal_and_keeps_what_was_typed_when_refused() {
    let env = TestEnv::new();
    let id = pending(&env);
    let n = env.ledger_commits().len();
    // No terminal, no flags: refused before any editor runs.
    let never = env.stub("never-editor", "touch \"$0.ran\"; exit 1");
    let mut c = env.lore_cmd(&["edit", &id]);
    c.env("GIT_EDITOR", &never);
    let r = Run::from(c.output().unwrap());
    r.assert_refused(&format!("refusing to open an editor for lesson {id}: stdin is not a terminal; give the new values with --claim, --rationale, --resolution, --scope NAME=RANGE or --unscope NAME, or as JSON with --json -"));
    assert!(!never.with_extension("ran").exists(), "the editor ran");
    assert_eq!(env.ledger_commits().len(), n);

    // An editor that changes the claim and the rationale in the file.
    let seen = env.path().join("seen.json");
    let editor = env.stub(
        "claim-editor",
        &format!(
            "cp \"$1\" {seen}\nsed -i -e 's|\"claim\": \".*\"|\"claim\": \"{FIXED}\"|' -e 's|\"rationale\": \".*\"|\"rationale\": \"Vite 6 ships it; Vitest 4 imports it.\"|' \"$1\"",
            seen = seen.display()
        ),
    );
    let r = on_terminal(&env, &editor, &format!("edit {id}"));
    assert_eq!(r.code, 0, "{}", r.stdout);
    assert_eq!(
        r.stdout,
        format!("Edited {id}: claim, rationale."),
        "on a terminal"
    );
    let shown = std::fs::read_to_string(&seen).unwrap();
    assert!(
        shown.starts_with(&format!(
            "# Editing lesson {id} (pending). Lines starting with # are ignored.\n"
        )),
        "{shown}"
    );
    assert!(shown.contains("# Save and quit to record the edit as a signed commit. An empty file\n# aborts the edit; a file left as it is changes nothing.\n{\n"), "{shown}");
    assert!(
        shown.contains(&format!("  \"claim\": \"{CLAIM}\",\n")),
        "{shown}"
    );
    let p = env.proposal(&id);
    assert_eq!(p["candidate"]["claim"], FIXED);
    assert_eq!(
        p["candidate"]["rationale"],
        "Vite 6 ships it; Vitest 4 imports it."
    );
    assert_eq!(env.ledger_commits().len(), n + 1);

    // A file left as it is changes nothing; an emptied one aborts.
    let r = on_terminal(&env, std::path::Path::new("true"), &format!("edit {id}"));
    assert_eq!(
        (r.code, r.stdout.as_str()),
        (
            0,
            format!("lesson {id} already says that; nothing was written").as_str()
        )
    );
    let empty = env.stub("empty-editor", ": > \"$1\"");
    let r = on_terminal(&env, &empty, &format!("edit {id}"));
    assert_eq!(
        (r.code, r.stdout.as_str()),
        (1, format!("git-lore: aborting the edit of lesson {id}: the file is empty; nothing was written").as_str())
    );
    let failing = env.stub("failing-editor", "exit 3");
    let r = on_terminal(&env, &failing, &format!("edit {id}"));
    assert_eq!(r.code, 1, "{}", r.stdout);
    assert!(
        r.stdout
            .ends_with("failed (exit status: 3); nothing was written"),
        "{}",
        r.stdout
    );
    assert_eq!(env.ledger_commits().len(), n + 1);

    // A refused edit keeps the file, which `--json @FILE` takes once fixed.
    let junk = env.stub(
        "junk-editor",
        "sed -i 's|\"claim\": \".*\"|\"claim\": \"chore: pin vitest\"|' \"$1\"",
    );
    let r = on_terminal(&env, &junk, &format!("edit {id}"));
    assert_eq!(r.code, 1, "{}", r.stdout);
    r.assert_stdout(&format!(
        "lesson {id} not edited: the claim starts with a conventional-commit prefix (\"chore:\")"
    ));
    let kept: Vec<_> = std::fs::read_dir(env.path())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            p.file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with(&format!("git-lore-edit-{id}-"))
        })
        .collect();
    assert_eq!(kept.len(), 1, "{kept:?}");
    let kept = &kept[0];
    r.assert_stdout(&format!(
        "your edit is kept in {}: fix it and run `git lore edit {id} --json @{}`",
        kept.display(),
        kept.display()
    ));
    assert_eq!(env.ledger_commits().len(), n + 1);
    let text = std::fs::read_to_string(kept).unwrap().replace(
        "chore: pin vitest",
        "Vitest 4 imports vite/module-runner, new in Vite 6",
    );
    std::fs::write(kept, text).unwrap();
    let r = env.lore(&["edit", &id, "--json", &format!("@{}", kept.display())]);
    assert_eq!(r.ok(), format!("Edited {id}: claim.\n"));
    env.assert_verifies();
}

#[test]
fn verify_refuses_an_edit_that_changes_what_an_edit_may_not() {
    let env = TestEnv::new();
    let id = pending(&env);
    let path = fanout("proposals", &id);
    let p = env.proposal(&id);
    let artifact = p["artifact_id"].as_str().unwrap().to_owned();
    let edit = |from: &str, to: &str| {
        format!(
            "edit {id}: claim\n\nLore-Format: 1\nLore-Action: edit\nLore-Lesson: {id}\nLore-Artifact: {artifact}\nLore-From: {from}\nLore-Status: {to}\n"
        )
    };
    let tip = env.ledger_commits()[0].clone();
    // A forged edit that also turns the lesson public and names another model.
    let mut forged = p.clone();
    forged["candidate"]["claim"] = json!(FIXED);
    forged["visibility"] = json!("public");
    forged["model"] = json!("someone-else");
    let text = record_text(&forged);
    env.forge(
        "ledger",
        Some(&tip),
        &[(&path, Some(&text))],
        &edit("pending", "pending"),
        Sign::Repo,
    );
    env.assert_verify_fails(&[
        "edit may change only the candidate's claim, rationale, resolution, stack and scope; it also changed /model, /visibility",
    ]);
    // Nothing builds on it.
    env.lore(&["edit", &id, "--claim", FIXED])
        .assert_refused("refusing to build on ledger");
    // An edit that moves the status is no edit.
    let mut approved = p.clone();
    approved["status"] = json!("approved");
    let text = record_text(&approved);
    env.forge(
        "ledger",
        Some(&tip),
        &[(&path, Some(&text))],
        &edit("pending", "pending"),
        Sign::Repo,
    );
    env.assert_verify_fails(&[
        "edit: trailers say pending -> pending but the record went pending -> approved",
        "edit: illegal status transition pending -> approved",
    ]);
    // Trailers that say a move are unreadable as an edit.
    env.forge(
        "ledger",
        Some(&tip),
        &[(&path, Some(&text))],
        &edit("pending", "approved"),
        Sign::Repo,
    );
    env.assert_verify_fails(&[
        "trailers unreadable: trailer Lore-Status: an edit keeps the status: Lore-Status is Lore-From",
    ]);
    // Put back: the ledger as it was verifies again.
    env.git(&["update-ref", "refs/heads/ledger", &tip]).ok();
    env.assert_verifies();
}

/// An edit's message body is the diff of its record (what `git log` shows
/// a reader): a forged edit whose record change is legal but whose body
/// shows another change is refused; the same commit with the true diff
/// verifies.
#[test]
fn verify_refuses_an_edit_whose_body_shows_another_change() {
    let env = TestEnv::new();
    let id = pending(&env);
    let path = fanout("proposals", &id);
    let p = env.proposal(&id);
    let artifact = p["artifact_id"].as_str().unwrap().to_owned();
    let tip = env.ledger_commits()[0].clone();
    let mut fixed = p.clone();
    fixed["candidate"]["claim"] = json!(FIXED);
    let (old, new) = (record_text(&p), record_text(&fixed));
    let message = |body: &str| {
        format!(
            "edit {id}: claim\n\n{body}\n\nLore-Format: 1\nLore-Action: edit\nLore-Lesson: {id}\nLore-Artifact: {artifact}\nLore-From: pending\nLore-Status: pending\n"
        )
    };
    let lie = "@@ -1 +1 @@\n-\"claim\": \"a\"\n+\"claim\": \"something harmless\"";
    env.forge(
        "ledger",
        Some(&tip),
        &[(&path, Some(&new))],
        &message(lie),
        Sign::Repo,
    );
    env.assert_verify_fails(&[
        "edit: the message body is not the diff of the record it changed, so `git log` shows another change than the one made (`git lore log -p` shows the change itself)",
    ]);
    let truth = git_lore::review::edit::unified(&old, &new, None);
    env.forge(
        "ledger",
        Some(&tip),
        &[(&path, Some(&new))],
        &message(truth.trim()),
        Sign::Repo,
    );
    env.assert_verifies();
}

#[test]
fn saving_an_editor_file_never_undoes_a_change_made_meanwhile_and_bad_bytes_are_refused() {
    let env = TestEnv::new();
    let id = pending(&env);
    let n = env.ledger_commits().len();
    // While the file is open, another edit lands; then the person saves a
    // new claim. Saving the whole file would put the old resolution back.
    let editor = env.stub(
        "racing-editor",
        &format!(
            "{bin} edit {id} --resolution 'Pin vitest to 3.2.4 until vite 6.' >/dev/null || exit 9\nsed -i 's|\"claim\": \".*\"|\"claim\": \"{FIXED}\"|' \"$1\"",
            bin = env!("CARGO_BIN_EXE_git-lore"),
        ),
    );
    let r = on_terminal(&env, &editor, &format!("edit {id}"));
    assert_eq!(r.code, 1, "{}", r.stdout);
    r.assert_stdout(&format!(
        "lesson {id} not edited: it changed while it was open in your editor, and saving would undo that change; run `git lore edit {id}` again to edit it as it is now"
    ));
    r.assert_stdout("your edit is kept in ");
    r.assert_stdout(", to copy from into the new edit");
    assert!(!r.stdout.contains("--json @"), "{}", r.stdout);
    let p = env.proposal(&id);
    assert_eq!(
        p["candidate"]["evidence"]["resolution"],
        "Pin vitest to 3.2.4 until vite 6."
    );
    assert_eq!(p["candidate"]["claim"], CLAIM);
    assert_eq!(env.ledger_commits().len(), n + 1);

    // A file saved in another encoding is refused, not read with
    // replacement characters, and kept.
    let latin1 = env.stub(
        "latin1-editor",
        "sed -i 's|\"claim\": \".*\"|\"claim\": \"caf\\xe9 breaks vitest 4\"|' \"$1\"",
    );
    let r = on_terminal(&env, &latin1, &format!("edit {id}"));
    assert_eq!(r.code, 1, "{}", r.stdout);
    assert!(r.stdout.contains("is not UTF-8"), "{}", r.stdout);
    assert!(
        r.stdout.contains(&format!(
            "save it as UTF-8 and run `git lore edit {id} --json @"
        )),
        "{}",
        r.stdout
    );
    assert_eq!(env.proposal(&id)["candidate"]["claim"], CLAIM);
    assert_eq!(env.ledger_commits().len(), n + 1);
    env.assert_verifies();
}
