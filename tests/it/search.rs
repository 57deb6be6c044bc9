//! `git lore search`: lessons of every pool and of the ledger's proposals found
//! by their words, a lesson naming the package exactly first; `--pool`,
//! `--status`, `--json`; exit 1 with a hint when nothing matches; the same
//! answers from an index rebuilt from history. (A teammate's synced lesson
//! is found in `pools.rs`.)

use serde_json::{json, Value};

use crate::common::{lesson_of, ulid, TestEnv};

const POSITIVE: &str = include_str!("../fixtures/artifacts/positive-synthetic.json");
const PASS: &str = include_str!("../../src/review/testdata/judge-verdicts.pass.json");

/// Proposes `candidate` for a fresh artifact through a model stub; the
/// lesson id.
fn propose(env: &TestEnv, n: u32, candidate: &Value) -> String {
    env.model_answers(&candidate.to_string());
    let mut artifact: Value = serde_json::from_str(POSITIVE).unwrap();
    artifact["id"] = ulid(71, n).into();
    let f = env.artifacts_file(&format!("a{n}.jsonl"), &[artifact]);
    lesson_of(env.lore(&["ingest", f.to_str().unwrap()]).ok())
}

/// [`propose`], confirmed at `visibility` and promoted: to pool/org with a
/// passing panel, to pool/local with none.
fn promoted(env: &TestEnv, n: u32, candidate: &Value, visibility: &str) -> String {
    let id = propose(env, n, candidate);
    env.confirm(&id, visibility);
    let panel = match visibility {
        "private" => "[]".to_owned(),
        _ => format!("@{}", env.write("pass.json", PASS).display()),
    };
    let r = env.lore(&["judge", &id, &panel]);
    r.assert_ok_stdout(&format!(
        "promoted to pool/{}",
        if visibility == "private" {
            "local"
        } else {
            visibility
        }
    ));
    id
}

fn lesson(claim: &str, rationale: &str, resolution: &str, versions: Value) -> Value {
    let stack: Vec<&String> = versions.as_object().unwrap().keys().collect();
    json!({
        "claim": claim,
        "rationale": rationale,
        "evidence": {"resolution": resolution},
        "applies_to": {"stack": stack, "scope": {"kind": "versioned", "versions": versions},
                       "file_patterns": [], "task_kinds": []}
    })
}

/// Four lessons: two about `@vitejs/plugin-legacy` (one names it as its
/// package, one only in its text, and more often), a private one for
/// `pypi:requests`, and one pending in the queue.
struct World {
    env: TestEnv,
    exact: String,
    mention: String,
    requests: String,
    queued: String,
}

fn world() -> World {
    let env = TestEnv::new();
    env.init();
    let exact = promoted(
        &env,
        1,
        &lesson(
            "Legacy chunks are not emitted without a browserslist target",
            "The plugin reads its targets from browserslist when none are given.",
            "Set targets in the plugin options.",
            json!({"@vitejs/plugin-legacy": ">=5", "vite": ">=5"}),
        ),
        "org",
    );
    let mention = promoted(
        &env,
        2,
        &lesson(
            "Vite 5 builds break when @vitejs/plugin-legacy is listed twice",
            "Listing @vitejs/plugin-legacy twice registers its transform twice.",
            "Remove the second @vitejs/plugin-legacy entry from vite.config.ts.",
            json!({"vite": ">=5 <6"}),
        ),
        "org",
    );
    let requests = promoted(
        &env,
        3,
        &lesson(
            "Requests 2.32 rejects a verify path that is a directory on Windows",
            "Certificate bundles must be files there.",
            "Point REQUESTS_CA_BUNDLE at the bundle file.",
            json!({"pypi:requests": ">=2.32 <2.33"}),
        ),
        "private",
    );
    let queued = propose(
        &env,
        4,
        &lesson(
            "The Vite HMR websocket times out behind a proxy that drops upgrades",
            "The proxy answers the upgrade request with a plain 200.",
            "Set server.hmr.clientPort to the proxy's port.",
            json!({"vite": ">=5"}),
        ),
    );
    World {
        env,
        exact,
        mention,
        requests,
        queued,
    }
}

impl World {
    fn session(&self, args: &[&str]) -> String {
        let mut all = vec!["search"];
        all.extend(args);
        self.env.session_with(
            &all,
            &[
                (&self.exact, "[exact]"),
                (&self.mention, "[mention]"),
                (&self.requests, "[requests]"),
                (&self.queued, "[queued]"),
            ],
        )
    }

    fn json(&self, args: &[&str]) -> Vec<Value> {
        let mut all = vec!["search", "--json"];
        all.extend(args);
        serde_json::from_str(self.env.lore(&all).ok()).unwrap()
    }

    fn ids(&self, args: &[&str]) -> Vec<String> {
        self.json(args)
            .iter()
            .map(|h| h["id"].as_str().unwrap().to_owned())
            .collect()
    }
}

#[test]
fn an_exact_package_match_ranks_first() {
    let w = world();
    // The second lesson says the name three times, in its claim too; the
    // first names it as one of its packages, and comes first.
    insta::assert_snapshot!(w.session(&["@vitejs/plugin-legacy"]), @"
    $ git lore search @vitejs/plugin-legacy
    [exact]  pool/org     active      Legacy chunks are not emitted without a browserslist target  [@vitejs/plugin-legacy, vite]
    [mention]  pool/org     active      Vite 5 builds break when @vitejs/plugin-legacy is listed twice  [vite]
    ");
    let hits = w.json(&["@vitejs/plugin-legacy"]);
    assert_eq!(hits.len(), 2);
    assert_eq!(hits[0]["package_match"], true);
    assert_eq!(hits[1]["package_match"], false);
    assert!(
        hits[1]["score"].as_f64().unwrap() > hits[0]["score"].as_f64().unwrap(),
        "the text alone would rank the mention first: {hits:#?}"
    );
    // A bare name is exact for `pypi:requests`; a part of a name finds it.
    assert_eq!(w.ids(&["requests"]), std::slice::from_ref(&w.requests));
    assert_eq!(w.json(&["requests"])[0]["package_match"], true);
    assert_eq!(w.ids(&["legacy"]).len(), 2);
    assert_eq!(
        w.ids(&["pypi:requests", "windows"]),
        std::slice::from_ref(&w.requests)
    );
    // Whole words, in any case: "VITE" finds vite, never vitest.
    assert_eq!(
        w.ids(&["VITE", "websocket"]),
        std::slice::from_ref(&w.queued)
    );
    assert!(w.env.lore(&["search", "websock"]).code == 1);
}

#[test]
fn the_json_shape_and_the_filters() {
    let w = world();
    let hits = w.json(&["vite"]);
    assert_eq!(hits.len(), 3, "{hits:#?}");
    let keys: Vec<&String> = hits[0].as_object().unwrap().keys().collect();
    assert_eq!(
        keys,
        [
            "claim",
            "id",
            "package_match",
            "score",
            "stack",
            "status",
            "where"
        ]
    );
    let queued = hits.iter().find(|h| h["id"] == *w.queued).unwrap();
    assert_eq!(
        (&queued["where"], &queued["status"]),
        (&json!("ledger"), &json!("pending"))
    );
    assert_eq!(queued["stack"], json!(["vite"]));
    assert_eq!(
        queued["claim"],
        "The Vite HMR websocket times out behind a proxy that drops upgrades"
    );
    let exact = hits.iter().find(|h| h["id"] == *w.exact).unwrap();
    assert_eq!(
        (&exact["where"], &exact["status"]),
        (&json!("pool/org"), &json!("active"))
    );
    // --pool, --status.
    let mut org = w.ids(&["vite", "--pool", "org"]);
    org.sort();
    let mut want = vec![w.exact.clone(), w.mention.clone()];
    want.sort();
    assert_eq!(org, want);
    assert_eq!(
        w.ids(&["requests", "--pool", "local"]),
        std::slice::from_ref(&w.requests)
    );
    assert_eq!(
        w.ids(&["vite", "--status", "pending"]),
        std::slice::from_ref(&w.queued)
    );
    assert_eq!(
        w.ids(&["vite", "--status", "active", "--pool", "org"])
            .len(),
        2
    );
    // --limit: the best ones, and how many there were.
    let r = w.env.lore(&["search", "vite", "--limit", "1"]);
    assert_eq!(r.ok().lines().count(), 1);
    r.assert_stderr("1 of 3 matching lessons shown; `--limit 0` shows them all");
    // A status that is not searched is refused, saying where to look.
    w.env
        .lore(&["search", "vite", "--status", "passed"])
        .assert_refused("passed lessons are not searched (they were not kept); `git lore list --status passed` lists them");
    w.env
        .lore(&["search", "vite", "--pool", "ledger"])
        .assert_refused("unknown pool \"ledger\": use local, org or public");
}

#[test]
fn nothing_matching_exits_1_with_a_hint() {
    let w = world();
    insta::assert_snapshot!(w.session(&["websocket", "zebra"]), @r#"
    $ git lore search websocket zebra
    [stderr] no lesson matches "websocket zebra" in the pools or among the proposals on the ledger: every word must match, so try fewer words, or list every lesson with `git lore list --all`
    [exit 1]
    "#);
    insta::assert_snapshot!(w.session(&["websocket", "--pool", "org"]), @r#"
    $ git lore search websocket --pool org
    [stderr] no lesson matches "websocket" in pool/org: every word must match, so try fewer words, drop --pool or --status, or list every lesson with `git lore list --pool org`
    [exit 1]
    "#);
    insta::assert_snapshot!(w.session(&["--json", "zebra"]), @r#"
    $ git lore search --json zebra
    []
    [stderr] no lesson matches "zebra" in the pools or among the proposals on the ledger: every word must match, so try fewer words, or list every lesson with `git lore list --all`
    [exit 1]
    "#);
    insta::assert_snapshot!(w.session(&["the", "."]), @r#"
    $ git lore search the .
    [stderr] git-lore: nothing to search for in "the .": give at least one word of two or more letters or digits (common words such as "the" are not searched)
    [exit 1]
    "#);
}

#[test]
fn the_queue_follows_each_proposal() {
    let w = world();
    assert_eq!(w.ids(&["websocket"]), std::slice::from_ref(&w.queued));
    w.env.confirm(&w.queued, "org");
    let hit = &w.json(&["websocket"])[0];
    assert_eq!(
        (&hit["where"], &hit["status"]),
        (&json!("ledger"), &json!("confirmed"))
    );
    w.env.lore(&["unconfirm", &w.queued]).ok();
    w.env
        .lore(&["pass", &w.queued, "not worth sharing", "--yes"])
        .ok();
    let r = w.env.lore(&["search", "websocket"]);
    assert_eq!(
        (r.code, r.stdout.as_str()),
        (1, ""),
        "a passed lesson is not searched"
    );
    // Promoted, a lesson is found once, as its pool entry.
    let hit = &w.json(&["listed", "twice"])[0];
    assert_eq!(
        (&hit["where"], &hit["status"]),
        (&json!("pool/org"), &json!("active"))
    );
    assert_eq!(w.json(&["listed", "twice"]).len(), 1);
}

#[test]
fn a_rebuilt_index_gives_the_same_answers() {
    let w = world();
    let queries: [&[&str]; 5] = [
        &["@vitejs/plugin-legacy"],
        &["vite"],
        &["requests", "--pool", "local"],
        &["vite", "--status", "pending"],
        &["plugin"],
    ];
    let before: Vec<String> = queries.iter().map(|q| w.session(q)).collect();
    assert!(before.iter().all(|s| !s.contains("[exit")), "{before:#?}");
    // Deleted: rebuilt from history on the next command.
    let lore = w.env.repo().join("lore");
    std::fs::remove_file(lore.join("index")).unwrap();
    std::fs::remove_dir_all(lore.join("index.d")).unwrap();
    let after: Vec<String> = queries.iter().map(|q| w.session(q)).collect();
    assert_eq!(after, before);
    assert!(lore.join("index").is_file(), "the search rebuilt the index");
    w.env.lore(&["index", "--rebuild"]).ok();
    let rebuilt: Vec<String> = queries.iter().map(|q| w.session(q)).collect();
    assert_eq!(rebuilt, before);
}
