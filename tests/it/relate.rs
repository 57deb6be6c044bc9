//! Relation judgment: `relate`, `contradictions`, and what `status`,
//! `show`, `recall` and `verify` make of relation commits.

use serde_json::{json, Value};
use std::process::Command;

use crate::common::{artifact, fanout, record_text, Sign, TestEnv};

/// The lessons every test starts from, all promoted into pool/org by the
/// offline transform and judges:
/// - `a`, `b`: the same lesson said twice (exact duplicates, vite 5.4.0);
/// - `c`, `e`: other lessons about the vite 5.4.0 dev server;
/// - `d`: about vite 6.0.0, a scope disjoint from the others'.
struct Pool {
    a: String,
    b: String,
    c: String,
    d: String,
    e: String,
}

const CRASH: &str = "vite 5.4.0 dev server crashes on start";
const CRASH_FIX: &str = "The loader rejects the config file on boot. Fixed by setting server.hmr.timeout to 30 in vite.config.ts.";

fn art(n: u32, summary: &str, detail: &str) -> Value {
    let mut a = artifact(&crate::common::ulid(7, n), summary, detail);
    a["session_id"] = json!(format!("sess-{n}"));
    a
}

fn pool(env: &TestEnv) -> Pool {
    env.init();
    let arts = [
        art(1, CRASH, CRASH_FIX),
        art(2, CRASH, CRASH_FIX),
        art(
            3,
            "vite 5.4.0 dev server crashes on start when server.hmr is off",
            "With server.hmr disabled the dev server crashes on boot. Fixed by setting server.hmr.timeout to 60 in vite.config.ts.",
        ),
        art(
            4,
            "vite 6.0.0 dev server crashes on start",
            "The loader rejects the config file on boot. Fixed by setting server.hmr.timeout to 30 in vite.config.ts.",
        ),
        art(
            5,
            "vite 5.4.0 dev server start crashes with a proxy",
            "The dev server crashes on start when server.proxy is set. Fixed by setting server.hmr.timeout to 45 in vite.config.ts.",
        ),
    ];
    let file = env.artifacts_file("a.jsonl", &arts);
    let out = env
        .lore(&["ingest", file.to_str().unwrap()])
        .ok()
        .to_owned();
    // In input order.
    let ids: Vec<String> = arts
        .iter()
        .map(|a| crate::common::lesson_for(&out, a["id"].as_str().unwrap()))
        .collect();
    for id in &ids {
        env.confirm(id, "org");
    }
    env.lore(&["judge", "--all", "--yes"]).ok();
    Pool {
        a: ids[0].clone(),
        b: ids[1].clone(),
        c: ids[2].clone(),
        d: ids[3].clone(),
        e: ids[4].clone(),
    }
}

impl Pool {
    /// The five lessons as a transcript shows them: `[a]` … `[e]`.
    fn names(&self) -> [(&str, &str); 5] {
        [
            (&self.a, "[a]"),
            (&self.b, "[b]"),
            (&self.c, "[c]"),
            (&self.d, "[d]"),
            (&self.e, "[e]"),
        ]
    }

    /// `git lore args…`: its transcript, the lessons shown by name.
    fn session(&self, env: &TestEnv, args: &[&str]) -> String {
        env.session_with(args, &self.names())
    }

    /// `git lore args…` with `input` on stdin: its transcript.
    fn session_stdin(&self, env: &TestEnv, args: &[&str], input: &str) -> String {
        let r = env.lore_stdin(args, input.as_bytes());
        crate::common::transcript(args, &r, &env.names(&self.names()))
    }
}

fn input(env: &TestEnv, id: &str) -> Value {
    serde_json::from_str(env.lore(&["relate", id, "--input"]).ok()).unwrap()
}

fn neighbours(input: &Value) -> Vec<String> {
    input["neighbours"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n["id"].as_str().unwrap().to_owned())
        .collect()
}

/// Every ref and its commit.
fn refs(env: &TestEnv) -> String {
    env.git(&["for-each-ref", "--format=%(refname) %(objectname)"])
        .ok()
        .to_owned()
}

fn pool_file(env: &TestEnv, path: &str) -> Option<Value> {
    let r = env.git(&["show", &format!("pool/org:{path}")]);
    (r.code == 0).then(|| serde_json::from_str(&r.stdout).unwrap())
}

fn decision(kind: &str, targets: &[&str], surface: &str) -> Value {
    json!({
        "decision": kind,
        "target_ids": targets,
        "surface": surface,
        "rationale": format!("both are about {surface} on the vite 5.4.0 dev server"),
        "confidence": 0.8,
    })
}

fn verdict(candidate: &str, decisions: Vec<Value>) -> String {
    json!({"candidate_id": candidate, "decisions": decisions}).to_string()
}

/// The trailer block of the newest pool/org commit whose subject starts
/// with `action`.
fn trailers_of(env: &TestEnv, action: &str) -> String {
    let log = env
        .git(&["log", "pool/org", "--format=%H %s"])
        .ok()
        .to_owned();
    let commit = log
        .lines()
        .find(|l| l.split_whitespace().nth(1) == Some(action))
        .unwrap_or_else(|| panic!("no {action} commit in\n{log}"))
        .split_whitespace()
        .next()
        .unwrap()
        .to_owned();
    env.git(&["log", "-1", "--format=%(trailers)", &commit])
        .ok()
        .to_owned()
}

fn telemetry(env: &TestEnv) -> Value {
    let path = env.repo().join("lore/relate-telemetry.json");
    serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
}

#[test]
fn disjoint_scopes_are_never_neighbours_and_the_input_is_the_contract() {
    let env = TestEnv::new();
    let p = pool(&env);
    let i = input(&env, &p.d);
    assert_eq!(neighbours(&i), Vec::<String>::new(), "vite 6 meets no 5.4");
    assert_eq!(i["corpus_fingerprint"]["count"], 0);
    for key in ["surface_hint", "output_contract"] {
        assert!(i[key].as_str().unwrap().len() > 100, "{key}");
    }
    assert_eq!(
        i["decisions_allowed"],
        json!([
            "skip",
            "refine",
            "supersede",
            "merge",
            "contradict",
            "abstain"
        ])
    );
    let a = input(&env, &p.a);
    let shown = neighbours(&a);
    assert_eq!(shown[0], p.b, "the exact duplicate comes first");
    assert!(!shown.contains(&p.d), "{shown:?}");
    assert!(!shown.contains(&p.a), "never its own neighbour");
    // --input writes nothing, not even telemetry.
    assert!(!env.repo().join("lore/relate-telemetry.json").exists());
}

#[test]
fn refusals_exit_1_and_write_nothing() {
    let env = TestEnv::new();
    let p = pool(&env);
    let before = refs(&env);
    insta::assert_snapshot!(p.session(&env, &["relate", "01M1E3VM1GAD8DSR0D4BG72GC9", "--input"]), @"
    $ git lore relate 01M1E3VM1GAD8DSR0D4BG72GC9 --input
    [stderr] git-lore: lesson 01M1E3VM1GAD8DSR0D4BG72GC9 not found
    [exit 1]
    ");
    let pending = art(9, "vite 5.4.0 dev server crashes again", CRASH_FIX);
    let file = env.artifacts_file("p.jsonl", &[pending]);
    let full = crate::common::lesson_of(env.lore(&["ingest", file.to_str().unwrap()]).ok());
    let id = env
        .lore(&["list"])
        .ok()
        .lines()
        .find(|l| l.contains("crashes again"))
        .unwrap()
        .split_whitespace()
        .next()
        .unwrap()
        .to_owned();
    let before_pending = refs(&env);
    // Named by the short id `list` shows.
    let shown = p
        .session(&env, &["relate", &id])
        .replace(&full, "[pending]")
        .replace(&id, "[pending, short]");
    insta::assert_snapshot!(shown, @"
    $ git lore relate [pending, short]
    [stderr] git-lore: lesson [pending]: it is not promoted; only lessons in a pool can be related
    [exit 1]
    ");
    assert_eq!(refs(&env), before_pending);
    // No judge configured: exit 2, with the command that configures one.
    insta::assert_snapshot!(p.session(&env, &["relate", "--all"]), @"
    $ git lore relate --all
    [stderr] git-lore: no relation judge is configured; to use the built-in offline judge, run `git -C [TMP]/lessons.git config lore.relate.backend offline` (or set lore.relate.command to a model program)
    [exit 2]
    ");
    let fix = format!(
        "git -C {} config lore.relate.backend offline",
        env.repo().display()
    );
    // The command it gives is the one that configures the judge.
    let ran = Command::new("sh")
        .args(["-c", &fix])
        .env_clear()
        .envs(env.vars())
        .status()
        .unwrap();
    assert!(ran.success());
    insta::assert_snapshot!(p.session(&env, &["relate", "--all"]), @"
    $ git lore relate --all
    [stderr] 5 lessons promoted to relate with the offline backend
    [stderr] git-lore: refusing to relate without --yes: stdin is not a terminal to ask on
    [exit 1]
    ");
    env.config("lore.relate.cap", "0");
    insta::assert_snapshot!(p.session(&env, &["relate", &p.a]), @"
    $ git lore relate [a]
    [stderr] git-lore: lore.relate.cap neighbour cap must be between 1 and 64; got 0
    [exit 1]
    ");
    assert_eq!(refs(&env), before_pending);
    assert_ne!(before, before_pending);
}

#[test]
fn the_offline_judge_merges_an_exact_duplicate_visibly_and_verifiably() {
    let env = TestEnv::new();
    let p = pool(&env);
    // No judge configured: nothing is queued, relate cannot judge (exit 2).
    let status = env.lore(&["status"]).ok().to_owned();
    assert!(!status.contains("waiting for relation"), "{status}");
    insta::assert_snapshot!(p.session(&env, &["relate", &p.b]), @"
    $ git lore relate [b]
    [stderr] git-lore: lesson [b] was not related; nothing was written and it stays queued: no relation judge is configured; to use the built-in offline judge, run `git -C [TMP]/lessons.git config lore.relate.backend offline` (or set lore.relate.command to a model program)
    [exit 2]
    ");
    env.config("lore.relate.backend", "offline");
    insta::assert_snapshot!(p.session(&env, &["status"]), @"
    $ git lore status
    lessons pending: 0
    lessons confirmed (awaiting the jury): 0
    lessons approved: 5, rejected: 0, passed: 0
    lessons in pool/org: 5 active
    lessons waiting for relation: 5 (`git lore relate --all`): [d], [c], [e], [a], [b]
    ");
    let r = env.lore(&["relate", &p.b, "--json"]);
    let out: Value = serde_json::from_str(r.ok()).unwrap();
    let written: Vec<&str> = out["result"]["written"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w["action"].as_str().unwrap())
        .collect();
    assert_eq!(written, ["merge", "relate"]);
    assert_eq!(out["telemetry"]["batches"], 1);
    assert_eq!(out["telemetry"]["decisions"]["merge"], 1);
    assert_eq!(out["telemetry"]["voided"], 0);

    assert_trailers(
        &env,
        "merge",
        &[
            "Lore-Action: merge".to_owned(),
            format!("Lore-Lesson: {}", p.b),
            format!("Lore-Target: {}", p.a),
            "Lore-Model: offline".to_owned(),
            format!("Lore-Surface: claim \"{}\"", CRASH),
        ],
    );
    let a = lesson(&env, &p.a);
    assert_eq!(a["status"], "superseded");
    assert_eq!(a["superseded_by"], json!(p.b));
    let b = lesson(&env, &p.b);
    assert_eq!(b["status"], "active");
    assert_eq!(
        b["evidence"]["session_ids"],
        json!(["sess-2", "sess-1"]),
        "its own first, then the source's"
    );
    let related = pool_file(&env, &fanout("related", &p.b)).unwrap();
    assert_eq!(related["decisions"][0]["decision"], "merge");
    env.assert_verifies();
    // Recall: the superseded duplicate leads to its successor.
    insta::assert_snapshot!(recall_all(&env, &p), @"
    $ git lore recall --project proj --stack vite@5.4.0 --all
    [c]  vite 5.4.0 dev server crashes on start when server.hmr is off  [vite =5.4.0]
    [e]  vite 5.4.0 dev server start crashes with a proxy  [vite =5.4.0]
    [b]  vite 5.4.0 dev server crashes on start  [vite =5.4.0]
    [d]  vite 6.0.0 dev server crashes on start  [vite =6.0.0]  (not recalled: vite 5.4.0 is not =6.0.0)
    [a]  vite 5.4.0 dev server crashes on start  [vite =5.4.0]  (not recalled: superseded by [b])
    ");
    insta::assert_snapshot!(p.session(&env, &["show", &p.a]), @"
    $ git lore show [a]
    id:          [a] (short: 01KZ8N9)
    status:      approved
    visibility:  org
    artifact:    01J00000000W00000000000001
    claim:       vite 5.4.0 dev server crashes on start
    rationale:   The loader rejects the config file on boot. Scoped to exactly the versions seen (vite 5.4.0): the text states no wider range.
    resolution:  Fixed by setting server.hmr.timeout to 30 in vite.config.ts.
    stack:       vite
    scope:       vite =5.4.0
    verdict:     approved: the jury passed it, score 1
    judge:       standard, passed, score 1: generality 1.0, grounding 1.0, scope_accuracy 1.0
                 offline standard judge: grounding 1.00; scope_accuracy 1.00; generality 1.00
    judge:       adversarial, passed, score 1: generality 1.0, grounding 1.0, scope_accuracy 1.0
                 offline adversarial judge: grounding 1.00; scope_accuracy 1.00; generality 1.00
    pool entry:  superseded
    superseded by: [b]
    ");
    // The absorbed lesson's history includes the merge that retired it.
    let log = env.lore(&["log", &p.a]).ok().to_owned();
    assert!(
        log.contains(&format!("merge {}: absorbs 1 lesson", p.b)),
        "{log}"
    );
    // Related once: asking again is refused, and writes nothing.
    insta::assert_snapshot!(writes_nothing(&env, &p, &["relate", &p.b], 1), @"
    $ git lore relate [b]
    [stderr] git-lore: lesson [b]: it was related already (related/T/V/Y/[b].json); `git lore show [b]` shows how
    [exit 1]
    ");
    // The offline judge abstains where it has no duplicate: exit 2.
    insta::assert_snapshot!(writes_nothing(&env, &p, &["relate", &p.d], 2), @"
    $ git lore relate [d]
    [stderr] git-lore: lesson [d] was not related; nothing was written and it stays queued: the judge abstained
    [exit 2]
    ");
}

#[test]
fn supersede_refine_contradict_and_skip_are_commits_with_records_that_verify() {
    let env = TestEnv::new();
    let p = pool(&env);
    let shown = neighbours(&input(&env, &p.c));
    for id in [&p.a, &p.b, &p.e] {
        assert!(shown.contains(id), "{id} not in {shown:?}");
    }
    let v = verdict(
        &p.c,
        vec![
            decision("supersede", &[&p.a], "vite.config.ts server.hmr.timeout"),
            decision("refine", &[&p.b], "vite.config.ts server.hmr"),
            decision("contradict", &[&p.e], "server.hmr.timeout"),
        ],
    );
    let file = env.write("v.json", &v);
    insta::assert_snapshot!(p.session(&env, &["relate", &p.c, "--verdict", &format!("@{}", file.display())]), @"
    $ git lore relate [c] --verdict @[TMP]/v.json
    Lesson [c] related on pool/org by external (3 neighbours):
      b3376d6a4a61  supersede [a]: superseded by [c]
      68a0951c1a6b  refine [c]: refines [b]
      75afb051a980  contradict [e]: counter-observation from [c]
      9bcb5e56fad7  relate [c]: supersede, refine, contradict
    ");
    let subjects = env
        .git(&["log", "pool/org", "--format=%s", "-4"])
        .ok()
        .to_owned();
    assert_eq!(
        subjects,
        format!(
            "relate {c}: supersede, refine, contradict\ncontradict {e}: counter-observation from {c}\n\
             refine {c}: refines {b}\nsupersede {a}: superseded by {c}\n",
            a = p.a,
            b = p.b,
            c = p.c,
            e = p.e
        )
    );
    assert_trailers(
        &env,
        "supersede",
        &[
            format!("Lore-Lesson: {}", p.a),
            "Lore-From: active".into(),
            "Lore-Status: superseded".into(),
            "Lore-Model: external".into(),
            "Lore-Surface: vite.config.ts server.hmr.timeout".into(),
            format!("Lore-Target: {}", p.c),
        ],
    );
    assert_trailers(
        &env,
        "refine",
        &[
            format!("Lore-Lesson: {}", p.c),
            format!("Lore-Target: {}", p.b),
        ],
    );
    assert_trailers(
        &env,
        "contradict",
        &[
            format!("Lore-Lesson: {}", p.e),
            format!("Lore-Target: {}", p.c),
        ],
    );

    let a = lesson(&env, &p.a);
    assert_eq!(
        (a["status"].clone(), a["superseded_by"].clone()),
        (json!("superseded"), json!(p.c))
    );
    let link = fanout("relations", &p.c).replace(".json", &format!("/{}.json", p.b));
    let rel = pool_file(&env, &link).unwrap();
    assert_eq!(
        (rel["kind"].clone(), rel["from"].clone(), rel["to"].clone()),
        (json!("refine"), json!(p.c), json!(p.b))
    );
    let b = lesson(&env, &p.b);
    assert_eq!(b["status"], "active", "a refinement changes no status");
    let e = lesson(&env, &p.e);
    assert_eq!(e["status"], "active", "a contradiction changes no status");
    let c: Value = serde_json::from_str(env.lore(&["contradictions", "--json"]).ok()).unwrap();
    assert_eq!(c["threshold"], 2);
    assert_eq!(c["lessons"][0]["lesson"], json!(p.e));
    assert_eq!(c["lessons"][0]["count"], 1);
    assert_eq!(c["lessons"][0]["past_threshold"], false);
    let summary = c["lessons"][0]["observations"][0]["summary"]
        .as_str()
        .unwrap();
    assert!(
        summary.starts_with(&format!(
            "lesson {} contradicts this on server.hmr.timeout",
            p.c
        )),
        "{summary}"
    );
    insta::assert_snapshot!(p.session(&env, &["show", &p.b]), @"
    $ git lore show [b]
    id:          [b] (short: 01KZ8NA)
    status:      approved
    visibility:  org
    artifact:    01J00000000W00000000000002
    claim:       vite 5.4.0 dev server crashes on start
    rationale:   The loader rejects the config file on boot. Scoped to exactly the versions seen (vite 5.4.0): the text states no wider range.
    resolution:  Fixed by setting server.hmr.timeout to 30 in vite.config.ts.
    stack:       vite
    scope:       vite =5.4.0
    verdict:     approved: the jury passed it, score 1
    judge:       standard, passed, score 1: generality 1.0, grounding 1.0, scope_accuracy 1.0
                 offline standard judge: grounding 1.00; scope_accuracy 1.00; generality 1.00
    judge:       adversarial, passed, score 1: generality 1.0, grounding 1.0, scope_accuracy 1.0
                 offline adversarial judge: grounding 1.00; scope_accuracy 1.00; generality 1.00
    refined by:  [c]
    related:     not yet (`git lore relate [b]`)
    ");
    insta::assert_snapshot!(p.session(&env, &["show", &p.c]), @"
    $ git lore show [c]
    id:          [c] (short: 01KZ8N6)
    status:      approved
    visibility:  org
    artifact:    01J00000000W00000000000003
    claim:       vite 5.4.0 dev server crashes on start when server.hmr is off
    rationale:   With server.hmr disabled the dev server crashes on boot. Scoped to exactly the versions seen (vite 5.4.0): the text states no wider range.
    resolution:  Fixed by setting server.hmr.timeout to 60 in vite.config.ts.
    stack:       vite
    scope:       vite =5.4.0
    verdict:     approved: the jury passed it, score 1
    judge:       standard, passed, score 1: generality 1.0, grounding 1.0, scope_accuracy 1.0
                 offline standard judge: grounding 1.00; scope_accuracy 1.00; generality 1.00
    judge:       adversarial, passed, score 1: generality 1.0, grounding 1.0, scope_accuracy 1.0
                 offline adversarial judge: grounding 1.00; scope_accuracy 1.00; generality 1.00
    refines:     [b]
    related:     yes
    ");
    // Recall shows the link on both lessons, in text and in JSON.
    insta::assert_snapshot!(p.session(&env, &["recall", "--stack", "vite@5.4.0"]), @"
    $ git lore recall --stack vite@5.4.0
    [c]  vite 5.4.0 dev server crashes on start when server.hmr is off  [vite =5.4.0]  (refines [b])
    [e]  vite 5.4.0 dev server start crashes with a proxy  [vite =5.4.0]
    [b]  vite 5.4.0 dev server crashes on start  [vite =5.4.0]  (refined by [c])
    [stderr] [TMP] is not inside a project: no manifest or lockfile there or above it, up to the filesystem root; recalling for --stack alone
    ");
    let json: Value = serde_json::from_str(
        env.lore(&["recall", "--stack", "vite@5.4.0", "--format", "json"])
            .ok(),
    )
    .unwrap();
    let entry = json["lessons"]
        .as_array()
        .unwrap()
        .iter()
        .find(|l| l["id"] == json!(p.c))
        .unwrap();
    assert_eq!(entry["refines"], json!([p.b]));
    let verified = env.lore(&["verify"]);
    assert_eq!(verified.code, 0, "{}", verified.stderr);

    // A skip writes only the judgment record.
    let before = env.git(&["rev-parse", "pool/org"]).ok().to_owned();
    env.lore(&[
        "relate",
        &p.d,
        "--verdict",
        &verdict(
            &p.d,
            vec![json!({"decision": "skip", "target_ids": [], "confidence": 1})],
        ),
    ])
    .ok();
    let files = env
        .git(&["diff", "--name-only", before.trim(), "pool/org"])
        .ok()
        .to_owned();
    assert_eq!(files, format!("{}\n", fanout("related", &p.d)));
    assert_eq!(
        trailers_of(&env, "relate").matches("Lore-Target").count(),
        0
    );
    env.assert_verifies();
}

#[test]
fn one_bad_decision_voids_the_whole_batch_and_no_ref_moves() {
    let env = TestEnv::new();
    let p = pool(&env);
    let good = || decision("supersede", &[&p.a], "vite.config.ts server.hmr");
    // The good decision, then `kind` on `target`.
    let good_then = |kind: &str, target: &str| {
        verdict(
            &p.c,
            vec![good(), decision(kind, &[target], "vite.config.ts")],
        )
    };
    let cases: Vec<(String, &str)> = vec![
        // good, then an id never presented
        (good_then("refine", &p.d), "phantom_id"),
        // the candidate itself, which is also not presented: self-reference wins
        (good_then("merge", &p.c), "self_reference"),
        (good_then("Refine", &p.b), "enum_violation"),
        (good_then("refine", &p.a), "duplicate_target"),
        (
            format!("```json\n{}\n```", verdict(&p.c, vec![good()])),
            "unparseable",
        ),
        (verdict(&p.c, vec![]), "empty"),
        (
            verdict(
                &p.c,
                vec![
                    json!({"decision": "refine", "target_ids": [p.b], "surface": "vite.config.ts", "rationale": "they are related", "confidence": 0.5}),
                ],
            ),
            "partial",
        ),
    ];
    let before = refs(&env);
    // Exit 2 each, and nothing derived from a void is shown.
    let mut said = String::new();
    for (v, mode) in &cases {
        said.push_str(&format!("# {mode}\n"));
        said.push_str(&p.session_stdin(&env, &["relate", &p.c, "--verdict", "-"], v));
        assert_eq!(refs(&env), before, "{mode}: a ref moved");
    }
    insta::assert_snapshot!(said, @r#"
    # phantom_id
    $ git lore relate [c] --verdict -
    [stderr] git-lore: lesson [c] was not related; nothing was written and it stays queued: the verdict was voided (phantom_id): decisions[1].target_ids names an id that was never presented: [d]
    [exit 2]
    # self_reference
    $ git lore relate [c] --verdict -
    [stderr] git-lore: lesson [c] was not related; nothing was written and it stays queued: the verdict was voided (self_reference): decisions[1].target_ids names the candidate itself ([c])
    [exit 2]
    # enum_violation
    $ git lore relate [c] --verdict -
    [stderr] git-lore: lesson [c] was not related; nothing was written and it stays queued: the verdict was voided (enum_violation): decisions[1].decision is not exactly one of the six: "Refine"
    [exit 2]
    # duplicate_target
    $ git lore relate [c] --verdict -
    [stderr] git-lore: lesson [c] was not related; nothing was written and it stays queued: the verdict was voided (duplicate_target): decisions[1].target_ids repeats [a]
    [exit 2]
    # unparseable
    $ git lore relate [c] --verdict -
    [stderr] git-lore: lesson [c] was not related; nothing was written and it stays queued: the verdict was voided (unparseable): the verdict is not JSON: expected value at line 1 column 1
    [exit 2]
    # empty
    $ git lore relate [c] --verdict -
    [stderr] git-lore: lesson [c] was not related; nothing was written and it stays queued: the verdict was voided (empty): the envelope carries zero decisions
    [exit 2]
    # partial
    $ git lore relate [c] --verdict -
    [stderr] git-lore: lesson [c] was not related; nothing was written and it stays queued: the verdict was voided (partial): decisions[0] has a rationale that does not name the surface "vite.config.ts"
    [exit 2]
    "#);
    let t = telemetry(&env);
    assert_eq!(t["batches"], cases.len());
    assert_eq!(t["voided"], cases.len());
    for (_, mode) in &cases {
        assert_eq!(t["failure_modes"][mode], 1, "{mode}: {t}");
    }
    assert_eq!(t["decisions"]["supersede"], 0, "a void counts no decision");
    // Still queued, and the same good decision alone applies.
    env.config("lore.relate.backend", "offline");
    assert!(env.lore(&["status"]).ok().contains(&p.c));
    env.lore(&["relate", &p.c, "--verdict", &verdict(&p.c, vec![good()])])
        .ok();
}

#[test]
fn a_timeout_a_hung_or_crashed_judge_leaves_the_candidate_queued() {
    let env = TestEnv::new();
    let p = pool(&env);
    let before = refs(&env);
    let judge = env.stub("relate-judge", "cat >/dev/null; sleep 30");
    env.config("lore.relate.command", judge.to_str().unwrap());
    env.config("lore.relate.timeout", "1");
    let mut said = p.session(&env, &["relate", &p.c]);
    // Hung after printing half a verdict: never applied partially.
    env.stub(
        "relate-judge",
        &format!(
            "cat >/dev/null; printf '{{\"candidate_id\":\"{}\",\"decisions\":[{{\"decision\":\"supersede\"'; sleep 30",
            p.c
        ),
    );
    said.push_str(&p.session(&env, &["relate", &p.c]));
    env.stub("relate-judge", "cat >/dev/null; echo boom >&2; exit 3");
    said.push_str(&p.session(&env, &["relate", &p.c]));
    env.stub("relate-judge", "cat >/dev/null");
    said.push_str(&p.session(&env, &["relate", &p.c]));
    // A verdict that is valid but for one byte that is not UTF-8.
    let skip = verdict(
        &p.c,
        vec![json!({"decision": "skip", "target_ids": [], "rationale": "no relation XX", "confidence": 0.9})],
    )
    .replace("XX", "\\377");
    env.stub("relate-judge", &format!("cat >/dev/null; printf '{skip}'"));
    said.push_str(&p.session(&env, &["relate", &p.c]));
    // A timeout, one after half a verdict, a crash, silence, not UTF-8:
    // each voids the batch (exit 2).
    insta::assert_snapshot!(said, @r#"
    $ git lore relate [c]
    [stderr] git-lore: lesson [c] was not related; nothing was written and it stays queued: the verdict was voided (timeout): judge "[TMP]/bin/relate-judge" did not answer within 1s and was killed
    [exit 2]
    $ git lore relate [c]
    [stderr] git-lore: lesson [c] was not related; nothing was written and it stays queued: the verdict was voided (timeout): judge "[TMP]/bin/relate-judge" did not answer within 1s and was killed
    [exit 2]
    $ git lore relate [c]
    [stderr] git-lore: lesson [c] was not related; nothing was written and it stays queued: the verdict was voided (unparseable): the model program failed (exited with status 3): boom
    [exit 2]
    $ git lore relate [c]
    [stderr] git-lore: lesson [c] was not related; nothing was written and it stays queued: the verdict was voided (empty): the judge printed nothing
    [exit 2]
    $ git lore relate [c]
    [stderr] git-lore: lesson [c] was not related; nothing was written and it stays queued: the verdict was voided (unparseable): the judge's answer is not UTF-8 text
    [exit 2]
    "#);
    assert_eq!(refs(&env), before);
    let status = env.lore(&["status"]).ok().to_owned();
    assert!(status.contains(&p.c), "still queued:\n{status}");
    assert_eq!(telemetry(&env)["failure_modes"]["timeout"], 2);
    // The prompt reaches the judge on stdin; its answer is read raw.
    let seen = env.path().join("prompt.txt");
    env.stub(
        "relate-judge",
        &format!(
            "cat > '{}'; printf '%s' '{}'",
            seen.display(),
            verdict(
                &p.c,
                vec![json!({"decision": "skip", "target_ids": [], "confidence": 0.9})]
            )
        ),
    );
    env.config("lore.relate.model", "judge-model-1");
    insta::assert_snapshot!(p.session(&env, &["relate", &p.c]), @"
    $ git lore relate [c]
    Lesson [c] related on pool/org by judge-model-1 (3 neighbours):
      3106b46327e1  relate [c]: skip
    ");
    let prompt = std::fs::read_to_string(seen).unwrap();
    assert!(prompt.contains(&p.c) && prompt.contains(&p.a), "{prompt}");
    assert_trailers(&env, "relate", &["Lore-Model: judge-model-1"]);
}

#[test]
fn a_verdict_whose_effect_cannot_be_resolved_applies_nothing() {
    let env = TestEnv::new();
    let p = pool(&env);
    // While the judge thinks, someone else relates the same lesson (a skip).
    // The pool moved, but the presentation did not: the verdict is planned
    // again, and its judgment record cannot be added a second time. Nothing
    // of the judge's batch is written.
    let skip = verdict(
        &p.c,
        vec![json!({"decision": "skip", "target_ids": [], "confidence": 1})],
    );
    let sup = verdict(
        &p.c,
        vec![decision("supersede", &[&p.a], "vite.config.ts server.hmr")],
    );
    let judge = env.stub(
        "relate-judge",
        &format!(
            "cat >/dev/null; GIT_LORE_RANDOMNESS_SEED=999 '{}' relate {} --verdict '{}' >/dev/null || exit 9; printf '%s' '{}'",
            env!("CARGO_BIN_EXE_git-lore"),
            p.c,
            skip,
            sup
        ),
    );
    env.config("lore.relate.command", judge.to_str().unwrap());
    insta::assert_snapshot!(p.session(&env, &["relate", &p.c]), @"
    $ git lore relate [c]
    [stderr] git-lore: lesson [c] was not related; nothing was written and it stays queued: an effect could not be resolved: related/Z/J/5/[c].json exists already
    [exit 2]
    ");
    let subjects = env
        .git(&["log", "pool/org", "--format=%s", "-2"])
        .ok()
        .to_owned();
    assert!(
        subjects.starts_with(&format!("relate {}: skip\npromote ", p.c)),
        "{subjects}"
    );
    let a = lesson(&env, &p.a);
    assert_eq!(a["status"], "active", "the supersede was not applied");
    env.assert_verifies();
}

#[test]
fn the_threshold_sends_a_contradicted_lesson_back_to_the_jury_and_only_a_jury_refutes() {
    let env = TestEnv::new();
    let p = pool(&env);
    env.config("lore.relate.backend", "offline");
    contradict(&env, &p.c, &p.a);
    let status = env.lore(&["status"]).ok().to_owned();
    assert!(
        !status.contains("contradicted past the threshold"),
        "{status}"
    );
    contradict(&env, &p.e, &p.a);
    assert_eq!(past_threshold(&env), 1);
    insta::assert_snapshot!(p.session(&env, &["status"]), @"
    $ git lore status
    lessons pending: 0
    lessons confirmed (awaiting the jury): 0
    lessons approved: 5, rejected: 0, passed: 0
    lessons in pool/org: 5 active
    lessons waiting for relation: 3 (`git lore relate --all`): [d], [a], [b]
    lessons contradicted past the threshold (back to the jury): 1 (`git lore contradictions`, `git lore judge --contradicted`): [a]
    ");
    insta::assert_snapshot!(p.session(&env, &["contradictions"]), @"
    $ git lore contradictions
    [a] (pool/org, active): 2 counter-observations, threshold 2 reached: back to the jury (`git lore judge --contradicted`)
      2026-08-03T15:59:48Z 01KZ8NV6804N22GWKMAAK39SHR: lesson [c] contradicts this on server.hmr.timeout: both are about server.hmr.timeout on the vite 5.4.0 dev server
      2026-08-03T15:59:48Z 01KZ8NV6804ZR3TK9SV7J7YWAJ: lesson [e] contradicts this on server.hmr.timeout: both are about server.hmr.timeout on the vite 5.4.0 dev server
    ");
    // Contradiction is a signal, not a verdict: the lesson is still active.
    let a = lesson(&env, &p.a);
    assert_eq!(a["status"], "active");
    // A higher threshold: not past it.
    env.config("lore.relate.threshold", "3");
    let c: Value = serde_json::from_str(env.lore(&["contradictions", "--json"]).ok()).unwrap();
    assert_eq!(c["lessons"][0]["past_threshold"], false);
    env.assert_verifies();

    // Nothing but a jury verdict may set refuted: a relation commit that
    // does is reported by verify, whatever its trailers say.
    let tip = env.git(&["rev-parse", "pool/org"]).ok().trim().to_owned();
    let mut refuted = a.clone();
    refuted["status"] = json!("refuted");
    refuted["superseded_by"] = json!(p.b);
    let text = record_text(&refuted);
    let path = fanout("lessons", &p.a);
    env.forge(
        "pool/org",
        Some(&tip),
        &[(path.as_str(), Some(text.as_str()))],
        &format!(
            "supersede {a}: superseded by {b}\n\nLore-Format: 1\nLore-Action: supersede\nLore-Lesson: {a}\nLore-From: active\nLore-Status: superseded\nLore-Surface: x\nLore-Model: m\nLore-Target: {b}\n",
            a = p.a,
            b = p.b
        ),
        Sign::Repo,
    );
    env.assert_verify_fails(&[
        format!(
            "supersede: illegal status transition of {}: active -> refuted",
            p.a
        ),
        format!(
            "supersede: {} may change only its status, to superseded, and superseded_by, to {}",
            p.a, p.b
        ),
    ]);
}

#[test]
fn relate_all_relates_the_queue_after_asking() {
    let env = TestEnv::new();
    let p = pool(&env);
    env.config("lore.relate.backend", "offline");
    let r = env.lore(&["relate", "--all", "--yes", "--json"]);
    // The duplicates merge (whichever comes first absorbs the other); the
    // rest abstain offline and stay queued: exit 2.
    let stderr_only = crate::common::Run {
        code: r.code,
        stdout: String::new(),
        stderr: r.stderr.clone(),
    };
    let args = ["relate", "--all", "--yes", "--json"];
    insta::assert_snapshot!(crate::common::transcript(&args, &stderr_only, &env.names(&p.names())), @"
    $ git lore relate --all --yes --json
    [stderr] 5 lessons promoted to relate with the offline backend
    [stderr] git-lore: lesson [d] was not related; nothing was written and it stays queued: the judge abstained
    [stderr] git-lore: lesson [c] was not related; nothing was written and it stays queued: the judge abstained
    [stderr] git-lore: lesson [e] was not related; nothing was written and it stays queued: the judge abstained
    [stderr] related: 1 applied, 3 not (still queued)
    [exit 2]
    ");
    let out: Value = serde_json::from_str(&r.stdout).unwrap();
    let results = out["results"].as_array().unwrap();
    assert_eq!(results.len(), 4, "the absorbed duplicate left the queue");
    let merged = results.iter().find(|x| x["unapplied"].is_null()).unwrap();
    let (winner, loser) = if merged["lesson"] == json!(p.a) {
        (&p.a, &p.b)
    } else {
        (&p.b, &p.a)
    };
    assert_eq!(merged["lesson"], json!(winner));
    let gone = lesson(&env, loser);
    assert_eq!(gone["superseded_by"], json!(winner));
    insta::assert_snapshot!(p.session(&env, &["status"]), @"
    $ git lore status
    lessons pending: 0
    lessons confirmed (awaiting the jury): 0
    lessons approved: 5, rejected: 0, passed: 0
    lessons in pool/org: 4 active, 1 superseded
    lessons waiting for relation: 3 (`git lore relate --all`): [d], [c], [e]
    ");
    env.assert_verifies();
}

/// `relate --all` reads a pool once for the queue and keeps it: what the
/// run writes itself is folded in; only another writer's commit makes it
/// read the pool again.
#[test]
fn relate_all_reads_a_pool_once_unless_someone_else_moves_it() {
    use git_lore::ops::relate::{self, Pools, VerdictFrom};

    let env = TestEnv::new();
    let p = pool(&env);
    env.config("lore.relate.backend", "offline");
    let mut lore = env.library(7);
    let backend = relate::judge(&lore).unwrap().unwrap();
    let mut pools = Pools::new();
    let queued: Vec<String> = relate::queue_in(&lore, &mut pools)
        .unwrap()
        .into_iter()
        .map(|(_, id)| id.to_string())
        .collect();
    assert_eq!(queued.len(), 5);
    assert_eq!(pools.reads(), 1, "pool/org, read once for the queue");
    let relate_one = |lore: &mut git_lore::ops::Lore, pools: &mut Pools, id: &str| {
        relate::relate_if_queued(
            lore,
            pools,
            id.parse().unwrap(),
            VerdictFrom::Judge(Some(&backend)),
        )
        .unwrap()
    };
    // The duplicates: the first merges the second, which then leaves the
    // queue (the merge is folded into the snapshot, not read back).
    let (first, second) =
        if queued.iter().position(|x| *x == p.a) < queued.iter().position(|x| *x == p.b) {
            (&p.a, &p.b)
        } else {
            (&p.b, &p.a)
        };
    let merged = relate_one(&mut lore, &mut pools, first).unwrap();
    let actions: Vec<String> = merged
        .written
        .iter()
        .map(|w| w.action.to_string())
        .collect();
    assert_eq!(actions, ["merge", "relate"]);
    assert!(relate_one(&mut lore, &mut pools, second).is_none());
    let c = relate_one(&mut lore, &mut pools, &p.c).unwrap();
    assert!(c.unapplied.is_some(), "the offline judge abstains");
    assert!(
        !c.neighbours.iter().any(|n| n.to_string() == *second),
        "{:?}",
        c.neighbours
    );
    assert_eq!(
        pools.reads(),
        1,
        "its own writes did not make it read again"
    );
    // Someone else relates `e`: the next lesson reads the pool again, and
    // sees `e` related.
    let skip = verdict(
        &p.e,
        vec![json!({"decision": "skip", "target_ids": [], "confidence": 1})],
    );
    env.lore(&["relate", &p.e, "--verdict", &skip]).ok();
    assert!(relate_one(&mut lore, &mut pools, &p.d)
        .unwrap()
        .unapplied
        .is_some());
    assert_eq!(pools.reads(), 2, "another writer moved pool/org");
    assert!(
        relate_one(&mut lore, &mut pools, &p.e).is_none(),
        "related meanwhile"
    );
    assert_eq!(pools.reads(), 2);
    env.assert_verifies();
}

/// A relation commit made by hand: `verify` names what is wrong with it.
#[test]
fn verify_names_relation_commits_whose_records_disagree_with_their_trailers() {
    let env = TestEnv::new();
    let p = pool(&env);
    let tip = |env: &TestEnv| env.git(&["rev-parse", "pool/org"]).ok().trim().to_owned();
    let entry = |id: &str| lesson(&env, id);
    let msg = |action: &str, lesson: &str, extra: &str| {
        format!(
            "{action} {lesson}: by hand\n\nLore-Format: 1\nLore-Action: {action}\nLore-Lesson: {lesson}\n{extra}Lore-Model: m\n"
        )
    };

    // A merge that also rewrites the absorbing lesson's claim.
    let mut b = entry(&p.b);
    b["claim"] = json!("something else entirely");
    let mut a = entry(&p.a);
    a["status"] = json!("superseded");
    a["superseded_by"] = json!(p.b);
    let (pa, pb) = (fanout("lessons", &p.a), fanout("lessons", &p.b));
    env.forge(
        "pool/org",
        Some(&tip(&env)),
        &[
            (pa.as_str(), Some(record_text(&a).as_str())),
            (pb.as_str(), Some(record_text(&b).as_str())),
        ],
        &msg(
            "merge",
            &p.b,
            &format!("Lore-Surface: x\nLore-Target: {}\n", p.a),
        ),
        Sign::Repo,
    );
    // A judgment record whose decisions name no lesson, with a Lore-Target.
    let related = json!({
        "schema_version": 1, "lesson_id": p.d, "related_at": "2026-08-05T10:00:00Z",
        "model": "m", "corpus_digest": "e3b0c44298fc1c14",
        "decisions": [{"decision": "skip", "target_ids": [], "surface": "", "rationale": "", "confidence": 1}]
    });
    let rd = fanout("related", &p.d);
    env.forge(
        "pool/org",
        Some(&tip(&env)),
        &[(rd.as_str(), Some(record_text(&related).as_str()))],
        &msg("relate", &p.d, &format!("Lore-Target: {}\n", p.c)),
        Sign::Repo,
    );
    // A counter-observation filed under one lesson about another.
    let obs_id = "01KZ8NV6800000000000000000";
    let obs = json!({
        "id": obs_id, "schema_version": 1, "lesson_id": p.a,
        "observed_at": "2026-08-03T15:59:48Z", "artifact_ids": [crate::common::ulid(7, 3)],
        "session_id": "sess-3", "summary": "by hand", "author_key": "0123456789ab"
    });
    let po = fanout("counter-observations", &p.e).replace(".json", &format!("/{obs_id}.json"));
    env.forge(
        "pool/org",
        Some(&tip(&env)),
        &[(po.as_str(), Some(record_text(&obs).as_str()))],
        &msg(
            "contradict",
            &p.e,
            &format!("Lore-Surface: x\nLore-Target: {}\n", p.c),
        ),
        Sign::Repo,
    );
    env.assert_verify_fails(&[
        format!(
            "merge: {} may change only its evidence's artifact and session ids",
            p.b
        ),
        "relate: Lore-Target does not list the ids the record's decisions name".to_owned(),
        format!("contradict: {po}: lesson_id is not Lore-Lesson {}", p.e),
    ]);
}

/// Checks that the newest pool/org commit whose subject starts with
/// `action` carries each of `lines` as a whole trailer line. Its trailers.
#[track_caller]
fn assert_trailers<S: AsRef<str>>(env: &TestEnv, action: &str, lines: &[S]) -> String {
    let t = trailers_of(env, action);
    for line in lines {
        let line = line.as_ref();
        assert!(t.contains(&format!("{line}\n")), "{line} in\n{t}");
    }
    t
}

/// `relate CAND --verdict V` where V says `cand` contradicts `target` on
/// server.hmr.timeout, checked: relate says it related `cand`, the two
/// newest pool/org commits are the relation and the counter-observation,
/// and `target` is still active.
#[track_caller]
fn contradict(env: &TestEnv, cand: &str, target: &str) {
    let v = verdict(
        cand,
        vec![decision("contradict", &[target], "server.hmr.timeout")],
    );
    let r = env.lore(&["relate", cand, "--verdict", &v]);
    assert!(
        r.ok()
            .starts_with(&format!("Lesson {cand} related on pool/org by ")),
        "{}",
        r.stdout
    );
    assert_eq!(
        env.git(&["log", "pool/org", "--format=%s", "-2"]).ok(),
        format!(
            "relate {cand}: contradict\ncontradict {target}: counter-observation from {cand}\n"
        )
    );
    assert_eq!(lesson(env, target)["status"], "active");
}

/// The pool with `a` contradicted by `c` and by `e`: two
/// counter-observations, the default threshold, so `a` waits for the jury
/// (checked: status counts it).
#[track_caller]
fn contradicted() -> (TestEnv, Pool) {
    let env = TestEnv::new();
    let p = pool(&env);
    env.config("lore.relate.backend", "offline");
    contradict(&env, &p.c, &p.a);
    contradict(&env, &p.e, &p.a);
    assert_eq!(past_threshold(&env), 1);
    (env, p)
}

/// Runs `git lore args…`, checked to write nothing: it exits `code` and no
/// ref moved. Its transcript, the lessons shown by name.
#[track_caller]
fn writes_nothing(env: &TestEnv, p: &Pool, args: &[&str], code: i32) -> String {
    let before = refs(env);
    let r = env.lore(args);
    assert_eq!(r.code, code, "{}{}", r.stdout, r.stderr);
    assert_eq!(refs(env), before, "a refusal writes nothing");
    crate::common::transcript(args, &r, &env.names(&p.names()))
}

/// `judge ID PANEL` on a lesson back with the jury, checked: it succeeds,
/// and the lesson's pool/org entry is `status` after. Its transcript (the
/// panel shown as `[panel]`).
#[track_caller]
fn judge_again(env: &TestEnv, p: &Pool, id: &str, panel: &str, status: &str) -> String {
    let args = ["judge", id, panel];
    let r = env.lore(&args);
    r.ok();
    assert_eq!(lesson(env, id)["status"], status);
    let mut names = vec![(panel, "[panel]")];
    names.extend(p.names());
    crate::common::transcript(&args, &r, &env.names(&names))
}

/// The pool/org entry of lesson `id`.
#[track_caller]
fn lesson(env: &TestEnv, id: &str) -> Value {
    pool_file(env, &fanout("lessons", id)).unwrap_or_else(|| panic!("{id} is not on pool/org"))
}

/// How many lessons `status --json` counts as contradicted past the
/// threshold.
fn past_threshold(env: &TestEnv) -> Value {
    let s: Value = serde_json::from_str(env.lore(&["status", "--json"]).ok()).unwrap();
    s["contradicted"].clone()
}

/// `recall` of the test project with vite 5.4.0: its transcript.
fn recall_vite(env: &TestEnv, p: &Pool) -> String {
    std::fs::create_dir_all(env.path().join("proj")).unwrap();
    p.session(
        env,
        &["recall", "--project", "proj", "--stack", "vite@5.4.0"],
    )
}

/// A panel of both builtin judges, every criterion at `score`.
fn panel(score: f64, passed: bool) -> String {
    let one = |t: &str| {
        json!({"judge_type": t, "score": score, "passed": passed, "confidence": 0.9,
            "criterion_scores": {"grounding": score, "scope_accuracy": score, "generality": score},
            "feedback_summary": "weighed the counter-observations"})
    };
    json!([one("standard"), one("adversarial")]).to_string()
}

/// `recall --all` of the test project with vite 5.4.0: its transcript.
fn recall_all(env: &TestEnv, p: &Pool) -> String {
    std::fs::create_dir_all(env.path().join("proj")).unwrap();
    p.session(
        env,
        &[
            "recall",
            "--project",
            "proj",
            "--stack",
            "vite@5.4.0",
            "--all",
        ],
    )
}

#[test]
fn the_jury_refutes_a_contradicted_lesson_with_given_verdicts_and_recall_drops_it() {
    let env = TestEnv::new();
    let p = pool(&env);
    // Not contradicted: the ledger's jury has nothing to judge.
    let low = panel(0.1, false);
    let shown = writes_nothing(&env, &p, &["judge", &p.a, &low], 1).replace(&low, "[panel]");
    insta::assert_snapshot!(shown, @"
    $ git lore judge [a] [panel]
    [stderr] git-lore: lesson [a] is not confirmed; its status is: approved
    [exit 1]
    ");
    // Below the threshold: not yet.
    env.config("lore.relate.backend", "offline");
    contradict(&env, &p.c, &p.a);
    let shown = writes_nothing(&env, &p, &["judge", &p.a, &low], 1).replace(&low, "[panel]");
    insta::assert_snapshot!(shown, @"
    $ git lore judge [a] [panel]
    [stderr] git-lore: lesson [a] is not waiting for the jury: it has 1 counter-observation, and the jury judges a lesson again at lore.relate.threshold (2)
    [exit 1]
    ");
    contradict(&env, &p.e, &p.a);
    // Garbage is "could not judge": nothing written, exit 2.
    insta::assert_snapshot!(writes_nothing(&env, &p, &["judge", &p.a, "not json"], 2), @"
    $ git lore judge [a] not json
    [stderr] git-lore: lesson [a] could not be judged again; nothing was written and it still waits for the jury. Re-run to retry: lesson [a]: the verdicts are not JSON: expected ident at line 1 column 2
    [exit 2]
    ");

    let failing = panel(0.2, false);
    insta::assert_snapshot!(judge_again(&env, &p, &p.a, &failing, "refuted"), @"
    $ git lore judge [a] [panel]
    Lesson [a] is now refuted on pool/org: the jury failed it (most judges did not pass it; rubric lesson-promotion, score 0.2) against 2 counter-observations (e47f083dd3cb).
    ");
    let t = assert_trailers(
        &env,
        "judge",
        &[
            "Lore-Action: judge".to_owned(),
            format!("Lore-Lesson: {}", p.a),
            "Lore-From: active".into(),
            "Lore-Status: refuted".into(),
            "Lore-Pool: org".into(),
            "Lore-Rubric: lesson-promotion".into(),
            "Lore-Gate: majority".into(),
            "Lore-Score: 0.2".into(),
            "Lore-Reason: jury_not_majority".into(),
            "Lore-Judge: standard 0.20 fail".into(),
            "Lore-Judge: adversarial 0.20 fail".into(),
        ],
    );
    assert!(
        !t.contains("Lore-Model"),
        "given verdicts name no model\n{t}"
    );
    // Exactly the entry changed, and only its status.
    let show = env
        .git(&["show", "--format=", "--stat", "pool/org"])
        .ok()
        .to_owned();
    assert!(show.contains(&fanout("lessons", &p.a)), "{show}");
    assert!(
        show.contains("1 file changed, 1 insertion(+), 1 deletion(-)"),
        "{show}"
    );
    env.assert_verifies();
    // Off the queue, and never recalled again.
    let c: Value = serde_json::from_str(env.lore(&["contradictions", "--json"]).ok()).unwrap();
    assert_eq!(c["lessons"][0]["status"], "refuted");
    assert_eq!(c["lessons"][0]["past_threshold"], false);
    assert_eq!(past_threshold(&env), 0);
    insta::assert_snapshot!(recall_all(&env, &p), @"
    $ git lore recall --project proj --stack vite@5.4.0 --all
    [c]  vite 5.4.0 dev server crashes on start when server.hmr is off  [vite =5.4.0]
    [e]  vite 5.4.0 dev server start crashes with a proxy  [vite =5.4.0]
    [b]  vite 5.4.0 dev server crashes on start  [vite =5.4.0]
    [d]  vite 6.0.0 dev server crashes on start  [vite =6.0.0]  (not recalled: vite 5.4.0 is not =6.0.0)
    [a]  vite 5.4.0 dev server crashes on start  [vite =5.4.0]  (not recalled: refuted)
    ");
    // Its duplicate is still recalled.
    insta::assert_snapshot!(recall_vite(&env, &p), @"
    $ git lore recall --project proj --stack vite@5.4.0
    [c]  vite 5.4.0 dev server crashes on start when server.hmr is off  [vite =5.4.0]
    [e]  vite 5.4.0 dev server start crashes with a proxy  [vite =5.4.0]
    [b]  vite 5.4.0 dev server crashes on start  [vite =5.4.0]
    ");
    // Refuted is final for the jury.
    let shown =
        writes_nothing(&env, &p, &["judge", &p.a, &failing], 1).replace(&failing, "[panel]");
    insta::assert_snapshot!(shown, @"
    $ git lore judge [a] [panel]
    [stderr] git-lore: lesson [a] is not waiting for the jury: it is refuted; only an active lesson is judged again
    [exit 1]
    ");
}

#[test]
fn an_upheld_lesson_stays_active_and_leaves_the_queue_until_more_counter_evidence() {
    let (env, p) = contradicted();
    insta::assert_snapshot!(judge_again(&env, &p, &p.a, &panel(0.95, true), "active"), @"
    $ git lore judge [a] [panel]
    Lesson [a] stays active on pool/org: the jury upheld it (rubric lesson-promotion, score 0.95) against 2 counter-observations (bd62bf857f47); it waits again when more are recorded.
    ");
    let rec = pool_file(
        &env,
        &format!(
            "{}/2.json",
            fanout("upheld", &p.a).trim_end_matches(".json")
        ),
    )
    .unwrap();
    assert_eq!(rec["lesson_id"], json!(p.a));
    assert_eq!(rec["counter_observations"], 2);
    assert_eq!(rec["counter_observation_ids"].as_array().unwrap().len(), 2);
    assert_eq!(rec["verdict"]["passed"], true);
    assert_eq!(rec["model"], Value::Null);
    assert_trailers(&env, "judge", &["Lore-Status: active", "Lore-Pool: org"]);
    env.assert_verifies();
    insta::assert_snapshot!(p.session(&env, &["show", &p.a]), @"
    $ git lore show [a]
    id:          [a] (short: 01KZ8N9)
    status:      approved
    visibility:  org
    artifact:    01J00000000W00000000000001
    claim:       vite 5.4.0 dev server crashes on start
    rationale:   The loader rejects the config file on boot. Scoped to exactly the versions seen (vite 5.4.0): the text states no wider range.
    resolution:  Fixed by setting server.hmr.timeout to 30 in vite.config.ts.
    stack:       vite
    scope:       vite =5.4.0
    verdict:     approved: the jury passed it, score 1
    judge:       standard, passed, score 1: generality 1.0, grounding 1.0, scope_accuracy 1.0
                 offline standard judge: grounding 1.00; scope_accuracy 1.00; generality 1.00
    judge:       adversarial, passed, score 1: generality 1.0, grounding 1.0, scope_accuracy 1.0
                 offline adversarial judge: grounding 1.00; scope_accuracy 1.00; generality 1.00
    contradicted: 2 counter-observations (`git lore contradictions`)
    upheld:      by the jury at 2 counter-observations
    related:     not yet (`git lore relate [a]`)
    ");
    // Off the queue: status, contradictions and judge itself say so.
    assert_eq!(past_threshold(&env), 0);
    insta::assert_snapshot!(p.session(&env, &["status"]), @"
    $ git lore status
    lessons pending: 0
    lessons confirmed (awaiting the jury): 0
    lessons approved: 5, rejected: 0, passed: 0
    lessons in pool/org: 5 active
    lessons waiting for relation: 3 (`git lore relate --all`): [d], [a], [b]
    ");
    insta::assert_snapshot!(p.session(&env, &["contradictions"]), @"
    $ git lore contradictions
    [a] (pool/org, active): 2 counter-observations, upheld by the jury at 2
      2026-08-03T15:59:48Z 01KZ8NV6804N22GWKMAAK39SHR: lesson [c] contradicts this on server.hmr.timeout: both are about server.hmr.timeout on the vite 5.4.0 dev server
      2026-08-03T15:59:48Z 01KZ8NV6804ZR3TK9SV7J7YWAJ: lesson [e] contradicts this on server.hmr.timeout: both are about server.hmr.timeout on the vite 5.4.0 dev server
    ");
    let low = panel(0.1, false);
    let shown = writes_nothing(&env, &p, &["judge", &p.a, &low], 1).replace(&low, "[panel]");
    insta::assert_snapshot!(shown, @"
    $ git lore judge [a] [panel]
    [stderr] git-lore: lesson [a] is not waiting for the jury: the jury upheld it at 2 counter-observations; it waits again when more are recorded
    [exit 1]
    ");
    insta::assert_snapshot!(writes_nothing(&env, &p, &["judge", "--contradicted", "--yes"], 0), @"
    $ git lore judge --contradicted --yes
    [stderr] no contradicted lessons to judge again with the offline judges
    ");
    // Recall still returns it.
    insta::assert_snapshot!(recall_vite(&env, &p), @"
    $ git lore recall --project proj --stack vite@5.4.0
    [c]  vite 5.4.0 dev server crashes on start when server.hmr is off  [vite =5.4.0]
    [e]  vite 5.4.0 dev server start crashes with a proxy  [vite =5.4.0]
    [a]  vite 5.4.0 dev server crashes on start  [vite =5.4.0]
    [b]  vite 5.4.0 dev server crashes on start  [vite =5.4.0]
    ");

    // A third counter-observation sends it back. (b is an exact duplicate
    // of a; contradict is still a legal decision.)
    contradict(&env, &p.b, &p.a);
    assert_eq!(past_threshold(&env), 1);
    env.assert_verifies();
}

#[test]
fn judge_contradicted_runs_the_offline_judges_after_asking_and_refutes_at_the_threshold() {
    let (env, p) = contradicted();
    // No terminal to ask on: refused, nothing written.
    insta::assert_snapshot!(writes_nothing(&env, &p, &["judge", "--contradicted"], 1), @"
    $ git lore judge --contradicted
    [stderr] 1 contradicted lesson to judge again with the offline judges: [a]
    [stderr] git-lore: refusing to judge without --yes: stdin is not a terminal to ask on
    [exit 1]
    ");
    insta::assert_snapshot!(p.session(&env, &["judge", "--contradicted", "--yes"]), @"
    $ git lore judge --contradicted --yes
    Lesson [a] is now refuted on pool/org: the jury failed it (most judges did not pass it; rubric lesson-promotion, score 0.55) against 2 counter-observations (65f6f2acf6e1).
    [stderr] 1 contradicted lesson to judge again with the offline judges: [a]
    [stderr] judged again: 1 lesson refuted
    ");
    let a = lesson(&env, &p.a);
    assert_eq!(a["status"], "refuted");
    // Both offline judges fail grounding at the threshold: no majority.
    assert_trailers(
        &env,
        "judge",
        &[
            "Lore-Model: offline",
            "Lore-Reason: jury_not_majority",
            "Lore-Judge: standard 0.55 fail",
        ],
    );
    let msg = env
        .git(&["log", "-1", "--format=%s", "pool/org"])
        .ok()
        .to_owned();
    assert!(
        msg.starts_with(&format!(
            "judge {}: refuted: most judges did not pass it (rubric lesson-promotion, score ",
            p.a
        )) && msg.trim_end().ends_with(", 2 counter-observations"),
        "{msg}"
    );
    env.assert_verifies();
    insta::assert_snapshot!(recall_all(&env, &p), @"
    $ git lore recall --project proj --stack vite@5.4.0 --all
    [c]  vite 5.4.0 dev server crashes on start when server.hmr is off  [vite =5.4.0]
    [e]  vite 5.4.0 dev server start crashes with a proxy  [vite =5.4.0]
    [b]  vite 5.4.0 dev server crashes on start  [vite =5.4.0]
    [d]  vite 6.0.0 dev server crashes on start  [vite =6.0.0]  (not recalled: vite 5.4.0 is not =6.0.0)
    [a]  vite 5.4.0 dev server crashes on start  [vite =5.4.0]  (not recalled: refuted)
    ");
}

#[test]
fn judge_id_judges_one_contradicted_lesson_again_with_the_offline_judges() {
    let (env, p) = contradicted();
    insta::assert_snapshot!(writes_nothing(&env, &p, &["judge", &p.b, "--yes"], 1), @"
    $ git lore judge [b] --yes
    [stderr] git-lore: lesson [b] is not confirmed; its status is: approved
    [exit 1]
    ");
    insta::assert_snapshot!(writes_nothing(&env, &p, &["judge", &p.a], 1), @"
    $ git lore judge [a]
    [stderr] lesson [a], contradicted, to judge again with the offline judges
    [stderr] git-lore: refusing to judge without --yes: stdin is not a terminal to ask on
    [exit 1]
    ");
    insta::assert_snapshot!(p.session(&env, &["judge", &p.a, "--yes"]), @"
    $ git lore judge [a] --yes
    Lesson [a] is now refuted on pool/org: the jury failed it (most judges did not pass it; rubric lesson-promotion, score 0.55) against 2 counter-observations (65f6f2acf6e1).
    [stderr] lesson [a], contradicted, to judge again with the offline judges
    ");
    assert_eq!(lesson(&env, &p.a)["status"], "refuted");
    assert_trailers(
        &env,
        "judge",
        &["Lore-Model: offline", "Lore-Reason: jury_not_majority"],
    );
    env.assert_verifies();
}

#[test]
fn a_judge_outage_writes_nothing_and_the_lesson_still_waits() {
    let (env, p) = contradicted();
    let seen = env.path().join("prompt.txt");
    env.judge_stub(
        "broken-judge",
        &format!("cat >> {}; exit 3", seen.display()),
    );
    let before = refs(&env);
    insta::assert_snapshot!(p.session(&env, &["judge", "--contradicted", "--yes", "--backend", "command"]), @"
    $ git lore judge --contradicted --yes --backend command
    lesson [a] could not be judged again; nothing was written and it still waits for the jury. Re-run to retry: lesson [a]: judge standard: the model program failed (exited with status 3)
    [stderr] 1 contradicted lesson to judge again with judge model claude-opus-4-1: [a]
    [stderr] judged again: no lessons refuted; 1 could not be judged (nothing written for them; run it again): [a]
    [stderr] judge: a judge program gave no answer; check the program `git -C [TMP]/lessons.git config lore.judge.command` shows, or use the built-in offline backend: `git -C [TMP]/lessons.git config lore.judge.backend offline`
    [exit 2]
    ");
    assert_eq!(refs(&env), before, "no ref moved");
    // The judge was shown the lesson and the counter-evidence.
    let prompt = std::fs::read_to_string(&seen).unwrap();
    assert!(
        prompt.contains("it is judged AGAIN: 2 counter-observations"),
        "{prompt}"
    );
    assert!(
        prompt.contains("contradicts this on server.hmr.timeout"),
        "{prompt}"
    );
    assert!(prompt.contains(CRASH), "{prompt}");
    assert_eq!(past_threshold(&env), 1);
    // A judge that answers: its verdicts are recorded, with its model.
    let verdict = env.passing_verdict(0.9, "the counter-observations concern another setting");
    env.judge_stub(
        "good-judge",
        &format!("cat >/dev/null; cat {}", verdict.display()),
    );
    insta::assert_snapshot!(p.session(&env, &["judge", "--contradicted", "--yes", "--backend", "command"]), @"
    $ git lore judge --contradicted --yes --backend command
    Lesson [a] stays active on pool/org: the jury upheld it (rubric lesson-promotion, score 0.9) against 2 counter-observations (8b792c9f5ddd); it waits again when more are recorded.
    [stderr] 1 contradicted lesson to judge again with judge model claude-opus-4-1: [a]
    [stderr] judged again: no lessons refuted, 1 upheld
    ");
    assert_trailers(&env, "judge", &["Lore-Status: active"]);
    env.assert_verifies();
}

#[test]
fn verify_reports_pool_judge_commits_that_break_the_rules() {
    let (env, p) = contradicted();
    let tip = env.git(&["rev-parse", "pool/org"]).ok().trim().to_owned();
    let a = lesson(&env, &p.a);
    let path = fanout("lessons", &p.a);
    let judge_msg = |lesson: &str, status: &str, reason: &str| {
        format!(
            "judge {lesson}: forged\n\nLore-Format: 1\nLore-Action: judge\nLore-Lesson: {lesson}\nLore-From: active\nLore-Status: {status}\nLore-Pool: org\nLore-Rubric: lesson-promotion\nLore-Gate: majority\nLore-Score: 0.2\nLore-Reason: {reason}\nLore-Judge: standard 0.20 fail\n"
        )
    };
    // A passed ruling that refutes, and changes more than the status.
    let mut refuted = a.clone();
    refuted["status"] = json!("refuted");
    refuted["claim"] = json!("something else");
    let text = record_text(&refuted);
    let first = env.forge(
        "pool/org",
        Some(&tip),
        &[(path.as_str(), Some(text.as_str()))],
        &judge_msg(&p.a, "refuted", "gate_passed"),
        Sign::Repo,
    );
    env.assert_verify_fails(&[
        format!(
            "judge: a ruling that passed (gate_passed) cannot refute {}",
            p.a
        ),
        format!("judge: {} may change only its status, to refuted", p.a),
    ]);
    // A lesson with no counter-observations refuted.
    let c = lesson(&env, &p.c);
    let mut c2 = c.clone();
    c2["status"] = json!("refuted");
    let text = record_text(&c2);
    let cpath = fanout("lessons", &p.c);
    let second = env.forge(
        "pool/org",
        Some(&first),
        &[(cpath.as_str(), Some(text.as_str()))],
        &judge_msg(&p.c, "refuted", "jury_not_majority"),
        Sign::Repo,
    );
    env.assert_verify_fails(&[format!(
        "judge: {} has no counter-observations; the jury judges a pool entry again only on counter-evidence",
        p.c
    )]);
    // An upheld record that claims more counter-observations than there
    // are, under a failed ruling, with a verdict the trailers do not carry.
    let upath = format!(
        "{}/3.json",
        fanout("upheld", &p.a).trim_end_matches(".json")
    );
    let record = json!({
        "schema_version": 1, "lesson_id": p.a, "upheld_at": "2026-08-05T10:00:00Z",
        "counter_observations": 3,
        "counter_observation_ids": ["01KZ45MKAM734ZS7JK24D2DK0R"],
        "model": null,
        "verdict": {"rubric_id": "lesson-promotion", "gate_policy": "majority",
            "score_threshold": 0.7, "aggregate_score": 0.9, "passed": true,
            "reason": "gate_passed", "judges": [{}]}
    });
    let text = record_text(&record);
    env.forge(
        "pool/org",
        Some(&second),
        &[(upath.as_str(), Some(text.as_str()))],
        &judge_msg(&p.a, "active", "jury_not_majority"),
        Sign::Repo,
    );
    env.assert_verify_fails(&[
        format!("judge: a ruling that failed (jury_not_majority) cannot uphold {}", p.a),
        format!("judge: {upath}: the number in its name and its counter_observations must be the 2 counter-observations against {}", p.a),
        format!("judge: {upath}: counter_observation_ids are not the counter-observations against {}", p.a),
        format!("judge: {upath}: the recorded verdict is not the ruling the trailers carry"),
    ]);
}

#[test]
fn new_counter_evidence_while_the_jury_deliberates_voids_its_ruling() {
    let (env, p) = contradicted();
    // Judges that take their time and would uphold anything.
    let answer = env.passing_verdict(0.95, "fine");
    // The first judge asked, before it answers, sees a third
    // counter-observation recorded: new evidence arriving while the jury
    // deliberates. (Model programs get a clean environment: the stub names
    // the lesson repository itself.)
    let v = verdict(
        &p.b,
        vec![decision("contradict", &[&p.a], "server.hmr.timeout")],
    );
    let vfile = env.write("contradict.json", &v);
    let mark = env.path().join("evidence-arrived");
    let vars: String = env
        .vars()
        .iter()
        .map(|(k, v)| format!("{k}='{v}' "))
        .collect();
    env.judge_stub(
        "deliberating-judge",
        &format!(
            "cat >/dev/null\nif [ ! -e '{mark}' ]; then\n  : > '{mark}'\n  env -i {vars}GIT_LORE_RANDOMNESS_SEED=777 '{exe}' relate {b} --verdict @'{vfile}' >/dev/null || exit 1\nfi\ncat '{answer}'",
            mark = mark.display(),
            exe = env!("CARGO_BIN_EXE_git-lore"),
            b = p.b,
            vfile = vfile.display(),
            answer = answer.display(),
        ),
    );
    let said = p.session(
        &env,
        &["judge", "--contradicted", "--yes", "--backend", "command"],
    );
    assert!(mark.exists(), "the evidence arrived while the judges ran");
    insta::assert_snapshot!(said, @"
    $ git lore judge --contradicted --yes --backend command
    lesson [a] could not be judged again; nothing was written and it still waits for the jury. Re-run to retry: lesson [a]: the lesson changed while the jury deliberated; its verdict is not applied
    [stderr] 1 contradicted lesson to judge again with judge model claude-opus-4-1: [a]
    [stderr] judged again: no lessons refuted; 1 could not be judged (nothing written for them; run it again): [a]
    [exit 2]
    ");
    // Not upheld on evidence the jury never saw: it still waits.
    let c: Value = serde_json::from_str(env.lore(&["contradictions", "--json"]).ok()).unwrap();
    assert_eq!(c["lessons"][0]["count"], 3);
    assert_eq!(c["lessons"][0]["past_threshold"], true);
    assert_eq!(c["lessons"][0]["upheld_at"], Value::Null);
    env.assert_verifies();
}
