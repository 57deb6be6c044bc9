//! `git lore mcp`, spoken to as an MCP client speaks: the real binary,
//! JSON-RPC one message a line on its stdin and stdout. It initializes,
//! lists its four tools with their schemas, recalls, searches and shows a
//! known lesson, turns a reported moment into an artifact that ingest
//! proposes (and only proposes), answers hostile lines with JSON-RPC
//! errors while writing nothing, and ends cleanly at the end of its input.
//! `git lore setup mcp` writes each client's configuration, once.

use std::io::{BufRead, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::Receiver;

use serde_json::{json, Value};

use crate::common::{Run, TestEnv};
use crate::recall::{approved, project};

const CANDIDATE: &str = include_str!("../fixtures/responses/candidate.json");

/// A running `git lore mcp` and the lines it has written.
struct Client {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
    next_id: u64,
}

impl Client {
    fn start(env: &TestEnv) -> Client {
        let mut child = env
            .lore_cmd(&["mcp"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn git-lore mcp");
        let stdout = child.stdout.take().unwrap();
        let (tx, lines) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for line in std::io::BufReader::new(stdout).lines() {
                let Ok(line) = line else { return };
                if tx.send(line).is_err() {
                    return;
                }
            }
        });
        Client {
            stdin: child.stdin.take(),
            child,
            lines,
            next_id: 0,
        }
    }

    /// Writes `bytes` and a newline.
    fn send_raw(&mut self, bytes: &[u8]) {
        let stdin = self.stdin.as_mut().unwrap();
        stdin.write_all(bytes).unwrap();
        stdin.write_all(b"\n").unwrap();
        stdin.flush().unwrap();
    }

    fn send(&mut self, message: &Value) {
        self.send_raw(message.to_string().as_bytes());
    }

    /// The next message the server wrote, as JSON. (The wait is a guard
    /// against a hung server, not a measurement.)
    #[track_caller]
    fn recv(&mut self) -> Value {
        let line = self
            .lines
            .recv_timeout(std::time::Duration::from_secs(120))
            .expect("the server answered");
        serde_json::from_str(&line).unwrap_or_else(|e| panic!("not JSON ({e}): {line}"))
    }

    /// Sends request `method` with `params` and returns its answer.
    #[track_caller]
    fn request(&mut self, method: &str, params: Value) -> Value {
        self.next_id += 1;
        let id = self.next_id;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        let answer = self.recv();
        assert_eq!(answer["id"], id, "{answer:#}");
        assert_eq!(answer["jsonrpc"], "2.0", "{answer:#}");
        answer
    }

    /// `initialize`, then `notifications/initialized`: the result.
    #[track_caller]
    fn initialize(&mut self) -> Value {
        let answer = self.request(
            "initialize",
            json!({"protocolVersion": "2025-06-18", "capabilities": {},
                   "clientInfo": {"name": "it", "version": "0"}}),
        );
        self.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        answer["result"].clone()
    }

    /// Calls `tool` with `arguments`: the call's result.
    #[track_caller]
    fn call(&mut self, tool: &str, arguments: Value) -> Value {
        let answer = self.request("tools/call", json!({"name": tool, "arguments": arguments}));
        assert!(answer["error"].is_null(), "{answer:#}");
        answer["result"].clone()
    }

    /// The text of a call that succeeded.
    #[track_caller]
    fn text(&mut self, tool: &str, arguments: Value) -> String {
        let result = self.call(tool, arguments);
        assert_eq!(result["isError"], false, "{result:#}");
        result["content"][0]["text"].as_str().unwrap().to_owned()
    }

    /// The text of a call the tool refused.
    #[track_caller]
    fn refused(&mut self, tool: &str, arguments: Value) -> String {
        let result = self.call(tool, arguments);
        assert_eq!(result["isError"], true, "{result:#}");
        result["content"][0]["text"].as_str().unwrap().to_owned()
    }

    /// Closes stdin and waits: how the server ended, and anything it wrote
    /// after the last message read.
    fn finish(mut self) -> (Run, Vec<String>) {
        drop(self.stdin.take());
        let out = self.child.wait_with_output().unwrap();
        let rest: Vec<String> = self.lines.iter().collect();
        (Run::from(out), rest)
    }
}

/// The server's error for a line: its code and message.
#[track_caller]
fn error_of(answer: &Value) -> (i64, String) {
    assert_eq!(answer["jsonrpc"], "2.0", "{answer:#}");
    (
        answer["error"]["code"]
            .as_i64()
            .unwrap_or_else(|| panic!("no error: {answer:#}")),
        answer["error"]["message"].as_str().unwrap().to_owned(),
    )
}

/// Every ref of the lesson repository and what it points at.
fn refs(env: &TestEnv) -> String {
    env.git(&["for-each-ref", "--format=%(refname) %(objectname)"])
        .ok()
        .to_owned()
}

#[test]
fn an_agent_initializes_lists_the_tools_and_recalls_searches_and_shows_a_known_lesson() {
    let env = TestEnv::new();
    env.init();
    let id = approved(&env, 1, &serde_json::from_str(CANDIDATE).unwrap(), None);
    let mut c = Client::start(&env);

    let info = c.initialize();
    assert_eq!(info["protocolVersion"], "2025-06-18", "{info:#}");
    assert_eq!(info["serverInfo"]["name"], "git-lore", "{info:#}");
    assert_eq!(info["capabilities"], json!({"tools": {}}), "{info:#}");
    assert!(
        info["instructions"]
            .as_str()
            .unwrap()
            .contains("it is never recalled before they confirm it"),
        "{info:#}"
    );

    let tools = c.request("tools/list", json!({}))["result"]["tools"].clone();
    let mut names: Vec<&str> = tools
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    names.sort();
    assert_eq!(names, ["propose", "recall", "search", "show"]);
    let tool = |name: &str| {
        tools
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["name"] == name)
            .unwrap()
            .clone()
    };
    let keys = |t: &Value| {
        let mut k: Vec<String> = t["inputSchema"]["properties"]
            .as_object()
            .unwrap()
            .keys()
            .cloned()
            .collect();
        k.sort();
        k
    };
    let recall = tool("recall");
    assert_eq!(keys(&recall), ["budget", "format", "project", "stack"]);
    assert_eq!(recall["inputSchema"]["type"], "object");
    assert_eq!(recall["inputSchema"]["additionalProperties"], false);
    assert_eq!(
        recall["inputSchema"]["properties"]["budget"]["maximum"],
        9000
    );
    assert_eq!(
        recall["inputSchema"]["properties"]["stack"]["maxItems"],
        200
    );
    assert_eq!(recall["annotations"]["readOnlyHint"], true);
    let search = tool("search");
    assert_eq!(keys(&search), ["limit", "query"]);
    assert_eq!(search["inputSchema"]["required"], json!(["query"]));
    let show = tool("show");
    assert_eq!(keys(&show), ["id"]);
    assert_eq!(show["inputSchema"]["required"], json!(["id"]));
    assert_eq!(show["inputSchema"]["properties"]["id"]["minLength"], 4);
    let propose = tool("propose");
    assert_eq!(
        keys(&propose),
        ["detail", "evidence", "files", "kind", "project", "summary"]
    );
    assert_eq!(propose["inputSchema"]["required"], json!(["summary"]));
    assert_eq!(
        propose["inputSchema"]["properties"]["summary"]["maxLength"],
        240
    );
    assert_eq!(propose["annotations"]["readOnlyHint"], false);
    assert!(propose["description"]
        .as_str()
        .unwrap()
        .contains("ONLY EVER A PENDING PROPOSAL"));

    // A project whose installed versions the lesson holds for.
    let md = c.text("recall", json!({"project": project("vite5")}));
    assert!(
        md.contains("Vitest 4 cannot import vite/module-runner on Vite 5"),
        "{md}"
    );
    assert!(md.contains(&id), "{md}");
    // And one it does not: vite 8 is not <6.
    let none = c.text("recall", json!({"project": project("vite8")}));
    assert!(
        none.starts_with("No lesson applies to the versions installed in "),
        "{none}"
    );
    // A stack alone, as JSON.
    let doc: Value = serde_json::from_str(&c.text(
        "recall",
        json!({"stack": ["vite@5.4.21", "vitest@4.1.9"], "format": "json"}),
    ))
    .unwrap();
    assert_eq!(doc["format"], "git-lore.recall/1", "{doc:#}");
    assert_eq!(doc["lessons"][0]["id"], id.as_str(), "{doc:#}");

    let found = c.text("search", json!({"query": "module-runner vitest"}));
    assert!(
        found.starts_with("1 of 1 lessons matching \"module-runner vitest\""),
        "{found}"
    );
    assert!(
        found.contains(&format!("({id}; pool/org active; stack `vite, vitest`)")),
        "{found}"
    );
    assert_eq!(
        c.text("search", json!({"query": "angular"})),
        "No lesson holds the words of \"angular\".\n"
    );

    let shown = c.text("show", json!({"id": &id[..8]}));
    assert!(
        shown.starts_with(&format!("lesson {id} (approved)\n")),
        "{shown}"
    );
    assert!(
        shown.contains("claim: Vitest 4 cannot import vite/module-runner on Vite 5\n"),
        "{shown}"
    );
    assert!(
        shown.contains("resolution: Pin vitest to 3.x until Vite 6 lands.\n"),
        "{shown}"
    );
    assert!(shown.contains("scope: vite <6, vitest >=4\n"), "{shown}");

    let (run, rest) = c.finish();
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(rest.is_empty(), "{rest:?}");
}

#[test]
fn a_recall_over_the_budget_stays_json_and_says_what_it_left_out() {
    let env = TestEnv::new();
    env.init();
    let mut ids = Vec::new();
    for n in 1..=4 {
        let mut candidate: Value = serde_json::from_str(CANDIDATE).unwrap();
        candidate["claim"] =
            format!("Vitest 4 cannot import vite/module-runner on Vite 5, case {n}").into();
        candidate["rationale"] = format!(
            "{} (seen in service {n})",
            "vite/module-runner ships in Vite 6; Vitest 4 assumes it exists.".repeat(4)
        )
        .into();
        ids.push(approved(&env, n, &candidate, None));
    }
    // A monorepo: one lockfile a service, each with the versions the
    // lessons hold for.
    let lock = std::fs::read_to_string(format!("{}/package-lock.json", project("vite5"))).unwrap();
    let mono = env.path().join("mono");
    env.write("mono/package.json", r#"{"workspaces": ["services/*"]}"#);
    for i in 0..200 {
        env.write(
            &format!("mono/services/payments-service-{i:03}/package-lock.json"),
            &lock,
        );
    }
    let mut c = Client::start(&env);
    c.initialize();
    let mut answers = Vec::new();
    for budget in [1_500, 4_000, 9_000] {
        let text = c.text(
            "recall",
            json!({"project": mono.to_str().unwrap(), "format": "json", "budget": budget}),
        );
        assert!(
            text.encode_utf16().count() <= budget,
            "{budget}: {}",
            text.len()
        );
        let doc: Value = serde_json::from_str(&text)
            .unwrap_or_else(|e| panic!("{budget}: not JSON ({e}): {text}"));
        assert_eq!(doc["format"], "git-lore.recall/1", "{doc:#}");
        let kept = |p: &str| doc.pointer(p).and_then(Value::as_array).map_or(0, Vec::len) as u64;
        let out = |p: &str| doc.pointer(p).and_then(Value::as_u64).unwrap_or(0);
        assert_eq!(kept("/lessons") + out("/left_out"), 4, "{doc:#}");
        assert_eq!(
            kept("/stack/workspaces") + out("/stack/workspaces_left_out"),
            200,
            "{doc:#}"
        );
        assert!(out("/stack/workspaces_left_out") > 0, "{budget}: {doc:#}");
        // Each lesson names some of the services it holds in, and counts
        // the rest.
        for l in doc["lessons"].as_array().unwrap() {
            assert!(ids.iter().any(|id| l["id"] == id.as_str()), "{l:#}");
            let shown = l["workspaces"].as_array().unwrap().len() as u64;
            assert!(shown >= 1, "{l:#}");
            assert_eq!(
                shown + l["workspaces_left_out"].as_u64().unwrap_or(0),
                200,
                "{l:#}"
            );
        }
        answers.push((kept("/lessons"), out("/left_out")));
    }
    // The smallest budget leaves lessons out and says so; the default keeps
    // every lesson, leaving out only what the stack lists.
    assert!(answers[0].1 > 0, "{answers:?}");
    assert_eq!(answers[2], (4, 0), "{answers:?}");
    let (run, rest) = c.finish();
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(rest.is_empty(), "{rest:?}");
}

#[test]
fn a_reported_moment_becomes_an_artifact_that_ingest_proposes_and_nothing_more() {
    let env = TestEnv::new();
    env.init();
    let before = env.ledger_commits().len();
    let mut c = Client::start(&env);
    c.initialize();
    let report = json!({
        "summary": "widget7 1.7.0 crashes on start",
        "detail": "The loader rejects the config file on boot. Fixed by setting the timeout to 30 in config.yml.",
        "files": ["config.yml"],
        "evidence": ["Error: widget7 1.7.0: config rejected (timeout)"]
    });
    let said = c.text("propose", report.clone());
    let (lesson, artifact) = {
        let rest = said
            .strip_prefix("Proposed lesson ")
            .unwrap_or_else(|| panic!("{said}"));
        (rest[..26].to_owned(), rest[42..68].to_owned())
    };
    assert!(
        said.starts_with(&format!(
            "Proposed lesson {lesson} (from artifact {artifact}). It is a pending proposal: it is not recalled, shared or acted on until a person confirms it"
        )),
        "{said}"
    );
    // One signed commit on the ledger: the proposal, pending, from the
    // artifact the report became.
    assert_eq!(env.ledger_commits().len(), before + 1);
    let p = env.proposal(&lesson);
    assert_eq!(p["status"], "pending", "{p:#}");
    assert_eq!(
        p["candidate"]["evidence"]["artifact_ids"],
        json!([artifact]),
        "{p:#}"
    );
    let log = env
        .git(&["log", "-1", "--format=%B", "ledger"])
        .ok()
        .to_owned();
    assert!(log.contains(&format!("Lore-Artifact: {artifact}")), "{log}");
    env.assert_verifies();
    // Nothing is recalled from it, and it is in no pool.
    assert!(
        refs(&env)
            .lines()
            .all(|l| !l.starts_with("refs/heads/pool/")),
        "{}",
        refs(&env)
    );
    let recalled = c.text("recall", json!({"stack": ["widget7@1.7.0"]}));
    assert_eq!(recalled, "No lesson applies to the packages given.\n");
    assert_eq!(
        c.text("search", json!({"query": "widget7"})),
        "No lesson holds the words of \"widget7\".\n"
    );
    // The same moment again is the same artifact: seen, nothing written.
    let again = c.text("propose", report);
    assert_eq!(
        again,
        format!("Already reported: artifact {artifact} became lesson {lesson} before; nothing new was written.\n")
    );
    assert_eq!(env.ledger_commits().len(), before + 1);
    // A person sees it where they review proposals.
    env.lore(&["show", &lesson]).assert_ok_stdout("widget7");
    let (run, _) = c.finish();
    assert_eq!(run.code, 0, "{}", run.stderr);
}

#[test]
fn hostile_lines_and_calls_get_errors_and_write_nothing() {
    let env = TestEnv::new();
    env.init();
    let before = refs(&env);
    let mut c = Client::start(&env);
    // Not JSON, before the session even starts: a parse error, no id.
    c.send_raw(b"garbage{");
    let (code, message) = error_of(&c.recv());
    assert_eq!(code, -32700);
    assert!(message.starts_with("the line is not JSON ("), "{message}");
    c.initialize();

    c.send_raw(b"[1, 2]");
    assert_eq!(error_of(&c.recv()).0, -32600);
    c.send(&json!({"jsonrpc": "2.0", "id": 41, "method": "tools/call", "params": 5}));
    let answer = c.recv();
    assert_eq!(
        (answer["id"].as_i64(), error_of(&answer).0),
        (Some(41), -32600)
    );
    // A line over the limit is dropped unread.
    let huge = format!(
        r#"{{"jsonrpc":"2.0","id":42,"method":"tools/call","params":{{"name":"propose","arguments":{{"summary":"{}"}}}}}}"#,
        "a".repeat(1 << 20)
    );
    c.send_raw(huge.as_bytes());
    assert_eq!(
        error_of(&c.recv()),
        (
            -32600,
            "the message is over 1048576 bytes and was dropped unread; send smaller arguments"
                .into()
        )
    );
    // An unknown tool is named with the ones there are.
    let answer = c.request("tools/call", json!({"name": "rm", "arguments": {}}));
    assert_eq!(
        error_of(&answer),
        (
            -32602,
            "there is no tool \"rm\": the tools are recall, search, show, propose".into()
        )
    );
    // Arguments the schema does not have, or of the wrong type.
    let answer = c.request(
        "tools/call",
        json!({"name": "propose", "arguments": {"summary": "x", "lesson": "approved"}}),
    );
    let said = answer["error"]["message"]
        .as_str()
        .or(answer["result"]["content"][0]["text"].as_str())
        .unwrap_or_else(|| panic!("{answer:#}"));
    assert!(said.contains("unknown field `lesson`"), "{said}");
    // Reports past their bounds, or hiding text, are refused by name.
    let long = c.refused("propose", json!({"summary": "s".repeat(241)}));
    assert!(long.contains("summary"), "{long}");
    assert!(long.contains("240"), "{long}");
    let hidden = c.refused(
        "propose",
        json!({"summary": "widget7 1.7.0 \u{202e}crashes", "detail": "fixed"}),
    );
    assert!(hidden.contains("U+202E"), "{hidden}");
    let many = c.refused(
        "propose",
        json!({"summary": "widget7 1.7.0 crashes", "evidence": vec!["x"; 9]}),
    );
    assert!(
        many.contains("evidence") || many.contains("output"),
        "{many}"
    );
    let bad_id = c.refused("show", json!({"id": "zz"}));
    assert_eq!(
        bad_id,
        "not an id or a prefix of one: \"zz\" (ids are 26 characters of 0-9 and A-Z without I, L, O, U; a prefix needs at least 4 of them): give a lesson id or a unique prefix of 4 or more of its characters, as recall and search print them"
    );
    let budget = c.refused("recall", json!({"stack": ["vite@5.4.21"], "budget": 90000}));
    assert_eq!(budget, "budget 90000 is outside 500..=9000");
    // The server still answers, and nothing was written.
    assert_eq!(c.request("ping", json!({}))["result"], json!({}));
    let (run, rest) = c.finish();
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(rest.is_empty(), "{rest:?}");
    assert_eq!(refs(&env), before);
}

#[test]
fn mcp_without_a_lesson_repository_says_how_to_make_one() {
    let env = TestEnv::new();
    let mut c = Client::start(&env);
    c.initialize();
    let said = c.refused("recall", json!({"stack": ["vite@5.4.21"]}));
    assert_eq!(
        said,
        format!(
            "there is no lesson repository at {}: a person creates one with `git lore init`",
            env.repo().display()
        )
    );
    let (run, _) = c.finish();
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(!env.repo().exists());
}

#[test]
fn setup_mcp_writes_each_clients_configuration_once_and_takes_it_out() {
    let env = TestEnv::new();
    // Claude Code, this project (the git work tree the command runs in).
    let work = env.path().join("work");
    std::fs::create_dir_all(work.join("sub")).unwrap();
    env.git_in(&work.join(".git"), &["init", "-q", work.to_str().unwrap()]);
    let mut cmd = env.lore_cmd(&["setup", "mcp", "--client", "claude", "--project"]);
    let r = Run::from(cmd.current_dir(work.join("sub")).output().unwrap());
    r.ok();
    let mcp_json = work.join(".mcp.json");
    r.assert_stderr(&format!(
        "setup: added the MCP server git-lore (`git-lore mcp`) in {}",
        mcp_json.display()
    ));
    r.assert_stderr("setup: warning: no git-lore on PATH; the client starts `git-lore`");
    r.assert_stderr(&format!(
        "setup: note: {} is shared with everyone who works on this project; for a teammate without git-lore the client reports that the git-lore server failed to start, and works on without it. Each teammate installs git-lore",
        mcp_json.display()
    ));
    assert_eq!(
        std::fs::read_to_string(&mcp_json).unwrap(),
        "{\n  \"mcpServers\": {\n    \"git-lore\": {\n      \"type\": \"stdio\",\n      \"command\": \"git-lore\",\n      \"args\": [\n        \"mcp\"\n      ]\n    }\n  }\n}\n"
    );

    // Codex, the user's: the existing configuration stays as it was.
    let theirs = "# mine\nmodel = \"o3\"\n\n[mcp_servers.docs]\ncommand = \"docs-mcp\"\n";
    let toml = env.write("home/.codex/config.toml", theirs);
    let dry = env.lore(&["setup", "mcp", "--client", "codex", "--dry-run"]);
    dry.assert_ok_stdout("+[mcp_servers.git-lore]\n+command = \"git-lore\"\n+args = [\"mcp\"]\n");
    dry.assert_stderr("setup: would add the MCP server git-lore");
    assert_eq!(
        std::fs::read_to_string(&toml).unwrap(),
        theirs,
        "a dry run writes nothing"
    );
    let r = env.lore(&["setup", "mcp", "--client", "codex"]);
    r.ok();
    r.assert_stderr("setup: the old file is kept as ");
    let written = std::fs::read_to_string(&toml).unwrap();
    assert_eq!(
        written,
        format!("{theirs}\n[mcp_servers.git-lore]\ncommand = \"git-lore\"\nargs = [\"mcp\"]\n")
    );
    let again = env.lore(&["setup", "mcp", "--client", "codex"]);
    again.ok();
    again.assert_stderr("already has the git-lore MCP server; nothing changed");
    assert_eq!(std::fs::read_to_string(&toml).unwrap(), written);

    // Cursor, the user's, from nothing; then out again.
    env.lore(&["setup", "mcp", "--client", "cursor"]).ok();
    let cursor = env.home().join(".cursor/mcp.json");
    let v: Value = serde_json::from_str(&std::fs::read_to_string(&cursor).unwrap()).unwrap();
    assert_eq!(
        v,
        json!({"mcpServers": {"git-lore": {"command": "git-lore", "args": ["mcp"]}}})
    );
    let r = env.lore(&["setup", "mcp", "--client", "cursor", "--remove"]);
    r.ok();
    r.assert_stderr("setup: removed the MCP server git-lore in ");
    assert_eq!(std::fs::read_to_string(&cursor).unwrap(), "{}\n");
    env.lore(&["setup", "mcp", "--client", "codex", "--remove"])
        .ok();
    assert_eq!(std::fs::read_to_string(&toml).unwrap(), theirs);

    // Claude Code, the user's: ~/.claude.json keeps what Claude Code keeps there.
    env.write(
        "home/.claude.json",
        "{\"numStartups\": 3, \"projects\": {}}\n",
    );
    env.lore(&["setup", "mcp", "--client", "claude", "--user"])
        .ok();
    let v: Value =
        serde_json::from_str(&std::fs::read_to_string(env.home().join(".claude.json")).unwrap())
            .unwrap();
    assert_eq!(v["numStartups"], 3);
    assert_eq!(v["mcpServers"]["git-lore"]["command"], "git-lore");

    // A real ~/.claude.json keeps every project's history and is several
    // MiB: it is edited, whatever characters straddle the old 1 MiB limit.
    let history: String = (0..40_000)
        .map(|i| format!("\"/home/me/projekt-é{i}\": {{\"history\": [\"überprüfe die Abhängigkeiten {i}\"]}}"))
        .collect::<Vec<_>>()
        .join(",\n");
    let big = format!("{{\"numStartups\": 3, \"projects\": {{\n{history}\n}}}}\n");
    assert!(big.len() > 3 << 20, "{}", big.len());
    env.write("home/.claude.json", &big);
    env.lore(&["setup", "mcp", "--client", "claude", "--user"])
        .ok();
    let v: Value =
        serde_json::from_str(&std::fs::read_to_string(env.home().join(".claude.json")).unwrap())
            .unwrap();
    assert_eq!(v["projects"].as_object().unwrap().len(), 40_000);
    assert_eq!(v["mcpServers"]["git-lore"]["command"], "git-lore");

    // One over the limit is left alone; a dry run prints the entry to add.
    let huge = env.home().join(".claude.json");
    std::fs::write(&huge, "{\"projects\": \"").unwrap();
    let f = std::fs::OpenOptions::new().write(true).open(&huge).unwrap();
    f.set_len(65 << 20).unwrap();
    let r = env.lore(&["setup", "mcp", "--client", "claude", "--user"]);
    r.assert_refused(&format!(
        "settings file {}: it is too large to edit safely (68157440 bytes, limit 67108864); left alone: run setup again with --dry-run to print the entry, and merge it into the file by hand",
        huge.display()
    ));
    let dry = env.lore(&["setup", "mcp", "--client", "claude", "--user", "--dry-run"]);
    dry.assert_ok_stdout("{\n  \"mcpServers\": {\n    \"git-lore\": {\n      \"type\": \"stdio\",\n      \"command\": \"git-lore\",\n      \"args\": [\n        \"mcp\"\n      ]\n    }\n  }\n}\n");
    dry.assert_stderr(&format!(
        "setup: {} is too large to edit safely (68157440 bytes, limit 67108864); merge the entry above into it by hand",
        huge.display()
    ));
    assert_eq!(std::fs::metadata(&huge).unwrap().len(), 65 << 20);
    std::fs::remove_file(&huge).unwrap();

    // Another server under the name is left alone.
    env.write(
        "home/.cursor/mcp.json",
        r#"{"mcpServers": {"git-lore": {"command": "npx", "args": ["lore"]}}}"#,
    );
    env.lore(&["setup", "mcp", "--client", "cursor"])
        .assert_refused("is another server (it runs `npx lore`); rename or remove that entry");

    env.lore(&["setup", "mcp"])
        .assert_refused("setup mcp needs --client claude, codex or cursor");
    env.lore(&["setup", "claude", "--client", "codex"])
        .assert_refused("--client names an MCP client, for `setup mcp`");
    assert!(!env.home().join(".claude/settings.json").exists());
}

#[test]
fn the_end_of_input_ends_the_server_and_a_session_never_started_is_said() {
    let env = TestEnv::new();
    // Closed without a word: nothing to say, nothing wrong.
    let quiet = env.lore_stdin(&["mcp"], b"");
    assert_eq!(
        (quiet.code, quiet.stdout.as_str(), quiet.stderr.as_str()),
        (0, "", "")
    );
    // A client that never initializes is told so on stderr (its MCP log).
    let r = env.lore_stdin(
        &["mcp"],
        b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}\n",
    );
    r.assert_refused("the MCP client did not start a session");
    r.assert_stderr("(the first message must be `initialize`)");
    // On a terminal (util-linux `script`) it refuses to start, and says
    // how a client is configured to start it.
    let cmd = format!("{} mcp", env!("CARGO_BIN_EXE_git-lore"));
    let mut c = Command::new("script");
    c.args(["-qec", &cmd, "/dev/null"])
        .env_clear()
        .envs(env.vars())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped());
    let o = crate::common::feed(&mut c, "");
    let said = String::from_utf8_lossy(&o.stdout).replace('\r', "");
    assert_eq!(o.status.code(), Some(1), "{said}");
    assert_eq!(
        said,
        "git-lore: git lore mcp speaks the Model Context Protocol on stdin and stdout, for an agent to start: `git lore setup mcp --client claude|codex|cursor` configures one\n"
    );
    assert!(!env.repo().exists());
}
