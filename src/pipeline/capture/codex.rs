//! Reading a Codex CLI session rollout (`~/.codex/sessions/YYYY/MM/DD/
//! rollout-<time>-<id>.jsonl`) into the same [`Transcript`] a Claude Code
//! transcript becomes, so that every extractor reads both alike.
//!
//! A rollout line is `{"timestamp", "type", "payload"}` (Codex's
//! `RolloutLine`, its `RolloutItem` tagged by `type`, content in
//! `payload`; `codex-rs/protocol/src/protocol.rs`):
//!
//! - `session_meta`: the session's `id` and `cwd` (the first line). The id
//!   is the session id of every event, and so of every artifact's id.
//! - `turn_context`: the turn's `cwd` (used when `session_meta` has none).
//! - `response_item` (`ResponseItem`, `codex-rs/protocol/src/models.rs`):
//!   - `message` `{role, content: [{type: input_text|output_text, text}]}`:
//!     text. A user message that is the harness's (`<environment_context>`,
//!     `# AGENTS.md instructions`, `<user_instructions>`, …: text that opens
//!     with a tag named like Codex's) and `developer`/`system` messages are
//!     [`Role::System`]: only a person's words are a prompt.
//!   - `function_call` `{name, arguments (a JSON string), call_id}`,
//!     `custom_tool_call` `{name, input, call_id}`, `local_shell_call`
//!     `{call_id, action: {command: [..]}}`, `web_search_call`: tool calls.
//!     A shell command (`shell`, `container.exec`: `command` an argv, a
//!     `bash -lc SCRIPT` read as SCRIPT; `shell_command`: `command`;
//!     `exec_command`: `cmd`) is a `Bash` call with that command, or a
//!     `Read` when every command in it only shows files (`cat`, `sed -n`,
//!     `rg`, …: [`FILE_VIEWERS`]); their output is a file's content, as
//!     Claude Code's `Read`. An `apply_patch` patch is one `Edit` (`Write`
//!     for an added file) per file it touches, with each hunk's old and new
//!     text for a manifest, as Claude Code's `Edit` carries them.
//!   - `function_call_output` / `custom_tool_call_output` `{call_id,
//!     output}`: a tool result, read as Claude Code's `tool_result`. The
//!     output is a string, content items, or `{content, success}`. Codex
//!     frames a command's output: `{"output", "metadata": {"exit_code"}}`
//!     (older), `Exit code: N` / `Wall time: …` / `Output:` (shell), or
//!     `Chunk ID:` / `Process exited with code N` / `Original token
//!     count:` / `Output:` (exec). The frame is dropped and a non-zero exit
//!     code is the result's error flag; only header lines Codex writes are
//!     read as the frame, so a command that prints "Process exited with
//!     code 1" itself is not mistaken for one.
//!   - Codex's unified exec (`exec_command`, then `write_stdin` to the
//!     session it names while the process runs) is followed: each poll is
//!     a call of the same command, and the output that reports the exit is
//!     its result, after everything the command printed before; an answer
//!     that says the process still runs is no result, and a poll of a
//!     session the read never saw start is left out with its answer
//!     ([`State`]).
//!   - `reasoning` and other items: ignored (as Claude Code's thinking).
//! - `event_msg`, `compacted`: ignored (the events repeat what the
//!   response items hold).
//!
//! Rollout lines have no ids: an event's id is `codex:<byte offset of its
//! line>`. A rollout is only ever appended to, so the id is the same on
//! every read of the file, whole, tail or from an offset; with the session
//! id it makes capturing a session twice `seen`.
//!
//! Bounded as the Claude Code reader (the same [`super::transcript::Limits`]);
//! a line of a known type without an object `payload` is malformed.

use std::collections::{HashMap, HashSet};

use serde_json::{Map, Value};

use super::text::{clip, collapse, head_tail, sanitize};
use super::transcript::{
    id, is_id, text_block, Block, Event, Role, Seed, Transcript, MAX_EDITS, MAX_EDIT_CHARS,
    MAX_PATH_CHARS,
};

/// The line types of a rollout.
pub const LINE_TYPES: &[&str] = &[
    "session_meta",
    "response_item",
    "event_msg",
    "turn_context",
    "compacted",
];

/// Programs that only show files or search them: a command made of these
/// alone reads files, as Claude Code's `Read` and `Grep` do (`sed` only
/// without `-i`).
pub const FILE_VIEWERS: &[&str] = &[
    "cat", "sed", "head", "tail", "nl", "less", "more", "rg", "grep", "ls", "find", "wc", "tree",
    "bat", "stat", "file",
];

/// The most files of one patch kept as tool calls.
const MAX_PATCH_FILES: usize = 50;

/// The most commands remembered at once while they run (unified exec).
const MAX_RUNNING: usize = 256;

/// A command call whose answer has not come yet.
#[derive(Debug)]
struct Exec {
    cmd: String,
    /// What the command printed before this call.
    printed: String,
    /// The unified-exec session a `write_stdin` polls (`None`: the
    /// `exec_command` that starts it).
    session: Option<String>,
}

/// What Codex's frame says of a command's answer.
enum Frame {
    /// `Process running with session ID N`, no exit yet.
    Running(String),
    /// `Process exited with code C` or `Exit code: C`.
    Exited,
    /// Neither: a tool's own answer (`write_stdin failed: …`).
    Other,
}

/// What reading a rollout remembers between lines.
#[derive(Debug)]
pub(super) struct State {
    seed: Seed,
    /// The previous event's id (a rollout is linear).
    last: Option<String>,
    /// `exec_command` (and followed `write_stdin`) calls whose output has
    /// not come yet, by call id.
    execs: HashMap<String, Exec>,
    /// Commands still running under Codex's unified exec: its session id
    /// (`Process running with session ID N`) → the command and what it
    /// printed so far. A `write_stdin` to that session is a call of the
    /// same command, and its output, once the process has exited, is that
    /// command's result, after what it printed before.
    running: HashMap<String, (String, String)>,
    /// Polls of sessions this read never saw start, by call id: their
    /// answers are left out too.
    orphans: HashSet<String>,
}

/// What the first line of a file says, if it is a rollout's
/// `session_meta`.
pub(super) fn seed(line: &[u8]) -> Seed {
    let line = line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(line);
    let Ok(Value::Object(map)) = serde_json::from_slice::<Value>(line) else {
        return Seed::default();
    };
    match (
        map.get("type").and_then(Value::as_str),
        map.get("payload").and_then(Value::as_object),
    ) {
        (Some("session_meta"), Some(p)) => Seed {
            session_id: id(p.get("id")),
            cwd: cwd(p),
        },
        _ => Seed::default(),
    }
}

fn cwd(p: &Map<String, Value>) -> Option<String> {
    p.get("cwd")
        .and_then(Value::as_str)
        .filter(|c| {
            !c.is_empty() && !super::text::has_control(c) && c.chars().count() <= MAX_PATH_CHARS
        })
        .map(str::to_owned)
}

impl State {
    pub(super) fn new(seed: Seed) -> State {
        State {
            seed,
            last: None,
            execs: HashMap::new(),
            running: HashMap::new(),
            orphans: HashSet::new(),
        }
    }

    /// Reads one rollout line (a JSON object) into `t`; false when it was
    /// malformed.
    pub(super) fn take(&mut self, t: &mut Transcript, map: &Map<String, Value>, at: u64) -> bool {
        let kind = map.get("type").and_then(Value::as_str).unwrap_or("");
        if !LINE_TYPES.contains(&kind) {
            t.ignored += 1;
            return true;
        }
        let Some(p) = map.get("payload").and_then(Value::as_object) else {
            t.skipped_malformed += 1;
            return false;
        };
        match kind {
            "session_meta" => {
                // The file's own session is the first; a later one (copied
                // history) does not rename it.
                if self.seed.session_id.is_none() {
                    self.seed.session_id = id(p.get("id"));
                }
                if self.seed.cwd.is_none() {
                    self.seed.cwd = cwd(p);
                }
                return true;
            }
            "turn_context" => {
                if self.seed.cwd.is_none() {
                    self.seed.cwd = cwd(p);
                }
                return true;
            }
            "response_item" => {}
            _ => {
                t.ignored += 1;
                return true;
            }
        }
        let Some((role, mut blocks)) = item(p, t) else {
            t.ignored += 1;
            return true;
        };
        if !self.follow(p, &mut blocks, &t.limits) {
            t.ignored += 1;
            return true;
        }
        let uuid = format!("codex:{at}");
        t.events.push(Event {
            uuid: uuid.clone(),
            parent_uuid: self.last.replace(uuid),
            role,
            session_id: None, // filled in at the end: the meta may come late
            timestamp: map
                .get("timestamp")
                .and_then(Value::as_str)
                .and_then(|s| s.parse::<jiff::Timestamp>().ok()),
            sidechain: false,
            blocks,
        });
        true
    }

    /// Follows a command through Codex's unified exec: `exec_command`
    /// starts it and, when it has not ended within its wait, answers
    /// `Process running with session ID N`; later `write_stdin` calls to
    /// session N (empty input: a poll) answer with more of its output and,
    /// at last, `Process exited with code C`. Real rollouts run nearly
    /// every command this way. Each `write_stdin` to a known session
    /// becomes a call of that command, so the output that ends it is the
    /// command's result; an answer that says the process still runs is no
    /// result (its exit code is not known yet, and read as a success it
    /// would pass for a run that worked): false, and the line is skipped.
    fn follow(
        &mut self,
        p: &Map<String, Value>,
        blocks: &mut Vec<Block>,
        limits: &super::transcript::Limits,
    ) -> bool {
        let str_of = |k: &str| p.get(k).and_then(Value::as_str);
        let call_id = id(p.get("call_id")).unwrap_or_default();
        match str_of("type") {
            Some("function_call") => {
                let args: Value = str_of("arguments")
                    .and_then(|a| serde_json::from_str(a).ok())
                    .unwrap_or(Value::Null);
                let started = match str_of("name") {
                    Some("exec_command") => {
                        args.get("cmd").and_then(Value::as_str).map(|cmd| Exec {
                            cmd: cmd.to_owned(),
                            printed: String::new(),
                            session: None,
                        })
                    }
                    Some("write_stdin") => session_key(args.get("session_id")).and_then(|s| {
                        self.running.remove(&s).map(|(cmd, printed)| Exec {
                            cmd,
                            printed,
                            session: Some(s),
                        })
                    }),
                    _ => None,
                };
                if str_of("name") == Some("write_stdin") && started.is_none() {
                    // A poll of a command this read never saw start (the
                    // read began after it): whose output its answer is
                    // cannot be said, so neither is read.
                    if self.orphans.len() < MAX_RUNNING {
                        self.orphans.insert(call_id);
                    }
                    return false;
                }
                if let Some(exec) = started {
                    if exec.session.is_some() {
                        *blocks = call(
                            "exec_command",
                            &serde_json::json!({ "cmd": exec.cmd }),
                            call_id.clone(),
                            limits,
                        );
                    }
                    if self.execs.len() < MAX_RUNNING {
                        self.execs.insert(call_id, exec);
                    }
                }
                true
            }
            Some("function_call_output") => {
                if self.orphans.remove(&call_id) {
                    return false;
                }
                let Some(exec) = self.execs.remove(&call_id) else {
                    return true;
                };
                let half = limits.max_tool_result_chars / 2;
                let bound = |s: &str| head_tail(s, half, limits.max_tool_result_chars - half);
                let Some(Block::ToolResult { text, .. }) = blocks.first_mut() else {
                    return true;
                };
                let frame = p
                    .get("output")
                    .and_then(Value::as_str)
                    .map_or(Frame::Other, frame_of);
                let printed = |text: &mut String| {
                    if exec.printed.is_empty() {
                        std::mem::take(text)
                    } else {
                        bound(&format!("{}{text}", exec.printed))
                    }
                };
                match (frame, exec.session) {
                    (Frame::Running(session), _) => {
                        if self.running.len() < MAX_RUNNING {
                            self.running.insert(session, (exec.cmd, printed(text)));
                        }
                        false
                    }
                    (Frame::Exited, _) | (Frame::Other, None) => {
                        *text = printed(text);
                        true
                    }
                    // A poll that failed (`write_stdin failed: stdin is
                    // closed…`) says nothing of the command, which runs
                    // on: no result, and the session is still followed.
                    (Frame::Other, Some(session)) => {
                        if self.running.len() < MAX_RUNNING {
                            self.running.insert(session, (exec.cmd, exec.printed));
                        }
                        false
                    }
                }
            }
            _ => true,
        }
    }

    /// Gives the transcript and its events the session's id and directory.
    pub(super) fn finish(self, t: &mut Transcript) {
        if t.format != Some(super::transcript::Format::Codex) {
            return;
        }
        if let Some(sid) = &self.seed.session_id {
            for e in &mut t.events {
                e.session_id = Some(sid.clone());
            }
        }
        t.session_id = self.seed.session_id;
        t.cwd = self.seed.cwd;
    }
}

/// The role and blocks of a response item; `None` for items capture does
/// not read.
fn item(p: &Map<String, Value>, t: &Transcript) -> Option<(Role, Vec<Block>)> {
    let limits = &t.limits;
    let str_of = |k: &str| p.get(k).and_then(Value::as_str);
    let call_id = || id(p.get("call_id")).unwrap_or_default();
    match str_of("type")? {
        "message" => {
            let texts: Vec<&str> = p
                .get("content")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(|c| c.get("text").and_then(Value::as_str))
                .collect();
            let role = match str_of("role") {
                Some("assistant") => Role::Assistant,
                Some("user") if !texts.iter().all(|s| is_harness(s)) => Role::User,
                _ => Role::System,
            };
            let blocks = texts
                .into_iter()
                .filter_map(|s| text_block(s, limits))
                .collect();
            Some((role, blocks))
        }
        "function_call" => {
            let name = str_of("name").unwrap_or("");
            let args: Value = str_of("arguments")
                .and_then(|a| serde_json::from_str(a).ok())
                .unwrap_or(Value::Null);
            Some((Role::Assistant, call(name, &args, call_id(), limits)))
        }
        "custom_tool_call" => {
            let name = str_of("name").unwrap_or("");
            let input = Value::String(str_of("input").unwrap_or("").to_owned());
            let blocks = if name == "apply_patch" {
                patch(input.as_str().unwrap_or(""), &call_id())
            } else {
                vec![other(name, &input, call_id(), limits.max_tool_input_chars)]
            };
            Some((Role::Assistant, blocks))
        }
        "local_shell_call" => {
            let action = p.get("action").unwrap_or(&Value::Null);
            Some((Role::Assistant, call("shell", action, call_id(), limits)))
        }
        "web_search_call" => {
            let action = p.get("action").unwrap_or(&Value::Null);
            let query = action
                .get("query")
                .or_else(|| action.get("url"))
                .and_then(Value::as_str)
                .unwrap_or("");
            Some((
                Role::Assistant,
                vec![Block::ToolUse {
                    id: call_id(),
                    name: "WebSearch".into(),
                    input: clip(&collapse(&sanitize(query)), limits.max_tool_input_chars),
                    path: None,
                    edits: Vec::new(),
                }],
            ))
        }
        "function_call_output" | "custom_tool_call_output" => {
            let (text, is_error) = output(p.get("output").unwrap_or(&Value::Null));
            let half = limits.max_tool_result_chars / 2;
            Some((
                Role::User,
                vec![Block::ToolResult {
                    tool_use_id: call_id(),
                    text: head_tail(&sanitize(&text), half, limits.max_tool_result_chars - half),
                    is_error,
                }],
            ))
        }
        _ => None,
    }
}

/// Whether a user message's text is the harness's, not a person's: the
/// project's AGENTS.md, or text that opens with a tag of Codex's kind — a
/// name of letters joined by `_` or a space (`<environment_context>`,
/// `<user_instructions>`, `<permissions instructions>`), which a person's
/// `<div> is broken` is not.
fn is_harness(text: &str) -> bool {
    let s = text.trim_start();
    if s.starts_with("# AGENTS.md instructions") {
        return true;
    }
    // A skill's instructions (`<skill>`, `<skill name=…>`: Codex's
    // `SKILL_INSTRUCTIONS_PREFIX` is `<skill`).
    if s.strip_prefix("<skill")
        .is_some_and(|r| r.starts_with(['>', ' ', '\n', '\t']))
    {
        return true;
    }
    let Some((tag, _)) = s.strip_prefix('<').and_then(|r| r.split_once('>')) else {
        return false;
    };
    tag.contains(['_', ' '])
        && tag
            .chars()
            .all(|c| c.is_ascii_alphabetic() || matches!(c, '_' | ' '))
        && tag.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
}

/// The blocks of a `function_call` (or a `local_shell_call`'s action).
fn call(name: &str, args: &Value, id: String, limits: &super::transcript::Limits) -> Vec<Block> {
    if name == "apply_patch" {
        let text = args
            .get("input")
            .or_else(|| args.get("patch"))
            .and_then(Value::as_str)
            .unwrap_or("");
        return patch(text, &id);
    }
    let command = match name {
        "shell" | "container.exec" | "local_shell" | "shell_command" | "exec_command" => {
            match args.get("command").or_else(|| args.get("cmd")) {
                Some(Value::String(s)) => Some(s.clone()),
                Some(Value::Array(argv)) => {
                    let argv: Vec<&str> = argv.iter().filter_map(Value::as_str).collect();
                    if argv.first() == Some(&"apply_patch") {
                        return patch(argv.get(1).copied().unwrap_or(""), &id);
                    }
                    Some(script(&argv))
                }
                _ => None,
            }
        }
        _ => None,
    };
    match command {
        Some(c) => {
            let c = collapse(&sanitize(&c));
            vec![Block::ToolUse {
                id,
                name: if only_views_files(&c) { "Read" } else { "Bash" }.into(),
                input: clip(&c, limits.max_tool_input_chars),
                path: None,
                edits: Vec::new(),
            }]
        }
        None => vec![other(name, args, id, limits.max_tool_input_chars)],
    }
}

/// A call of any other tool: its name (when it is a name) and its input on
/// one line.
fn other(name: &str, input: &Value, id: String, max: usize) -> Block {
    let name = if is_id(name) && name.len() <= 64 {
        name
    } else {
        "unknown"
    };
    let input = match input {
        Value::String(s) => s.clone(),
        v => v.to_string(),
    };
    Block::ToolUse {
        id,
        name: name.to_owned(),
        input: clip(&collapse(&sanitize(&input)), max),
        path: None,
        edits: Vec::new(),
    }
}

/// An argv as the command it runs: `bash -lc SCRIPT` is SCRIPT; anything
/// else its words joined by spaces.
fn script(argv: &[&str]) -> String {
    let shell = argv
        .first()
        .map(|p| p.rsplit('/').next().unwrap_or(p))
        .is_some_and(|p| matches!(p, "bash" | "sh" | "zsh" | "dash"));
    if shell && argv.len() == 3 && matches!(argv[1], "-lc" | "-c" | "-l -c") {
        return argv[2].to_owned();
    }
    argv.join(" ")
}

/// Whether every simple command of `command` only shows or searches files.
pub fn only_views_files(command: &str) -> bool {
    let mut any = false;
    for part in command.split([';', '&', '|', '\n']) {
        let words: Vec<&str> = part.split_whitespace().collect();
        let Some(program) = words.first().map(|w| w.rsplit('/').next().unwrap_or(w)) else {
            continue;
        };
        if program == "cd" {
            continue;
        }
        if !FILE_VIEWERS.contains(&program)
            || (program == "sed" && words.iter().any(|w| w.starts_with("-i")))
            || (program == "find" && words.iter().any(|w| matches!(*w, "-delete" | "-exec")))
        {
            return false;
        }
        any = true;
    }
    any
}

/// The `Edit`/`Write` calls of an `apply_patch` patch: one per file, with
/// each hunk's old and new text when the file is a manifest.
fn patch(text: &str, id: &str) -> Vec<Block> {
    let mut out: Vec<Block> = Vec::new();
    let mut old: Vec<&str> = Vec::new();
    let mut new: Vec<&str> = Vec::new();
    let flush = |out: &mut Vec<Block>, old: &mut Vec<&str>, new: &mut Vec<&str>| {
        if let Some(Block::ToolUse { path, edits, .. }) = out.last_mut() {
            let manifest = path
                .as_deref()
                .and_then(crate::facts::manifest::Kind::of_path)
                .is_some();
            if manifest && (!old.is_empty() || !new.is_empty()) && edits.len() < MAX_EDITS {
                let side = |v: &[&str]| clip(&sanitize(&v.join("\n")), MAX_EDIT_CHARS);
                edits.push((side(old), side(new)));
            }
        }
        old.clear();
        new.clear();
    };
    for line in text.lines() {
        let file = |verb: &str| line.strip_prefix(verb).map(str::trim);
        let header = [
            ("*** Add File: ", "Write", "add"),
            ("*** Update File: ", "Edit", "update"),
            ("*** Delete File: ", "Delete", "delete"),
        ]
        .into_iter()
        .find_map(|(prefix, tool, verb)| file(prefix).map(|p| (p, tool, verb)));
        if let Some((path, tool, verb)) = header {
            flush(&mut out, &mut old, &mut new);
            if out.len() >= MAX_PATCH_FILES {
                break;
            }
            let path = sanitize(path);
            let usable = !path.is_empty()
                && !super::text::has_control(&path)
                && path.chars().count() <= MAX_PATH_CHARS;
            out.push(Block::ToolUse {
                id: id.to_owned(),
                name: tool.into(),
                input: clip(&format!("apply_patch: {verb} {path}"), 400),
                path: usable.then_some(path),
                edits: Vec::new(),
            });
            continue;
        }
        let adding = matches!(out.last(), Some(Block::ToolUse { name, .. }) if name == "Write");
        if line.starts_with("@@") || line.starts_with("*** ") {
            if !adding {
                flush(&mut out, &mut old, &mut new);
            }
            continue;
        }
        if let Some(l) = line.strip_prefix('+') {
            new.push(l);
        } else if let Some(l) = line.strip_prefix('-') {
            old.push(l);
        } else if let Some(l) = line.strip_prefix(' ') {
            old.push(l);
            new.push(l);
        }
    }
    flush(&mut out, &mut old, &mut new);
    // Deleted files are not edits: they change no manifest's text.
    out.retain(|b| !matches!(b, Block::ToolUse { name, .. } if name == "Delete"));
    out
}

/// A tool output's text, its frame dropped, and whether it reports an
/// error.
/// A unified-exec session id as a key: Codex writes it as a number; a
/// string of digits is taken too.
fn session_key(v: Option<&Value>) -> Option<String> {
    match v? {
        Value::Number(n) => n.as_u64().map(|n| n.to_string()),
        Value::String(s)
            if !s.is_empty() && s.len() <= 20 && s.bytes().all(|b| b.is_ascii_digit()) =>
        {
            Some(s.clone())
        }
        _ => None,
    }
}

/// What the Codex frame of a command's answer says: only the header lines
/// above `Output:` are read.
fn frame_of(s: &str) -> Frame {
    let head = match s.split_once("\nOutput:") {
        Some((head, _)) => head,
        None if s.starts_with("Output:") => "",
        None => s,
    };
    let mut running = None;
    for line in head.lines() {
        let line = line.trim_end();
        if line.starts_with("Process exited with code ") || line.starts_with("Exit code: ") {
            return Frame::Exited;
        }
        if let Some(n) = line.strip_prefix("Process running with session ID ") {
            running = session_key(Some(&Value::String(n.trim().to_owned())));
        }
    }
    running.map_or(Frame::Other, Frame::Running)
}

fn output(v: &Value) -> (String, bool) {
    match v {
        Value::String(s) => framed(s),
        Value::Array(items) => (
            items
                .iter()
                .filter_map(|i| match i.get("type").and_then(Value::as_str) {
                    Some("input_text" | "output_text" | "text") => {
                        i.get("text").and_then(Value::as_str).map(str::to_owned)
                    }
                    Some("input_image") => Some("[image]".to_owned()),
                    _ => None,
                })
                .collect::<Vec<_>>()
                .join("\n"),
            false,
        ),
        Value::Object(o) => {
            let (text, error) = match o.get("content") {
                Some(c) => output(c),
                None => (String::new(), false),
            };
            (
                text,
                error || o.get("success").and_then(Value::as_bool) == Some(false),
            )
        }
        _ => (String::new(), false),
    }
}

/// A string output: the older JSON frame `{"output", "metadata":
/// {"exit_code"}}`, or header lines above `Output:`.
fn framed(s: &str) -> (String, bool) {
    if s.trim_start().starts_with('{') {
        if let Ok(Value::Object(o)) = serde_json::from_str::<Value>(s) {
            if let (Some(out), Some(meta)) = (
                o.get("output").and_then(Value::as_str),
                o.get("metadata").and_then(Value::as_object),
            ) {
                let code = meta.get("exit_code").and_then(Value::as_i64);
                return (out.to_owned(), code.is_some_and(|c| c != 0));
            }
        }
    }
    let Some((head, body)) = s
        .split_once("\nOutput:\n")
        .or_else(|| s.strip_suffix("\nOutput:").map(|h| (h, "")))
        .or_else(|| s.strip_prefix("Output:\n").map(|b| ("", b)))
    else {
        return (s.to_owned(), false);
    };
    let mut code = None;
    for line in head.lines() {
        let line = line.trim_end();
        if let Some(n) = line
            .strip_prefix("Exit code: ")
            .or_else(|| line.strip_prefix("Process exited with code "))
        {
            code = n.trim().parse::<i64>().ok();
        } else if ![
            "Wall time",
            "Chunk ID: ",
            "Original token count: ",
            "Total output lines: ",
            "Process running with session ID ",
            "Command: ",
            "Script completed",
            "Script failed",
        ]
        .iter()
        .any(|p| line.starts_with(p))
            && !line.is_empty()
        {
            // Not Codex's frame: the text is the tool's own.
            return (s.to_owned(), false);
        }
    }
    (body.to_owned(), code.is_some_and(|c| c != 0))
}

#[cfg(test)]
mod tests {
    use super::super::transcript::{read_transcript, Format, Limits};
    use super::*;

    fn read(text: &str) -> Transcript {
        read_transcript(text.as_bytes(), Limits::default()).unwrap()
    }

    #[test]
    fn a_read_that_starts_late_still_knows_the_session_and_keeps_the_ids() {
        use super::super::transcript::read_transcript_from;
        let meta = r#"{"timestamp":"2026-09-02T09:00:00.000Z","type":"session_meta","payload":{"id":"0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b","cwd":"/home/dev/app","originator":"codex_cli_rs","cli_version":"0.46.0"}}"#;
        let say = |i: usize| {
            format!(
                r#"{{"timestamp":"2026-09-02T09:00:01.000Z","type":"response_item","payload":{{"type":"message","role":"assistant","content":[{{"type":"output_text","text":"step {i:04}"}}]}}}}"#
            )
        };
        let text: String = std::iter::once(meta.to_owned())
            .chain((0..200).map(say))
            .map(|l| l + "\n")
            .collect();
        let whole = read(&text);
        // From the offset where line 150 starts.
        let from = whole.events[150]
            .uuid
            .trim_start_matches("codex:")
            .parse()
            .unwrap();
        let later = read_transcript_from(
            std::io::Cursor::new(text.as_bytes()),
            from,
            Limits::default(),
        )
        .unwrap();
        let key = |es: &[Event]| -> Vec<(String, Option<String>, Vec<Block>)> {
            es.iter()
                .map(|e| (e.uuid.clone(), e.session_id.clone(), e.blocks.clone()))
                .collect()
        };
        assert_eq!(later.events.len(), 50);
        assert!(
            key(&later.events) == key(&whole.events[150..]),
            "same ids, same session, same blocks"
        );
        assert_eq!(later.events[0].parent_uuid, None, "its parent was not read");
        assert_eq!(later.session_id, whole.session_id);
        assert_eq!(later.cwd.as_deref(), Some("/home/dev/app"));
        assert_eq!(
            (later.start_offset, later.end_offset),
            (from, text.len() as u64)
        );
        // Only the newest part of a long rollout: the session still known.
        let cap = Limits {
            max_total_bytes: 2_000,
            ..Limits::default()
        };
        let tail = read_transcript_from(std::io::Cursor::new(text.as_bytes()), 0, cap).unwrap();
        assert!(tail.skipped_head_bytes > 0 && !tail.events.is_empty());
        assert_eq!(tail.session_id, whole.session_id);
        let n = tail.events.len();
        assert!(key(&tail.events) == key(&whole.events[200 - n..]));
        // An offset past the end (the file was replaced): from the start.
        let past = read_transcript_from(
            std::io::Cursor::new(text.as_bytes()),
            1 << 40,
            Limits::default(),
        )
        .unwrap();
        assert_eq!(past.events.len(), 200);
    }

    #[test]
    fn frames_are_dropped_and_exit_codes_are_the_error_flag() {
        for (raw, text, error) in [
            (
                "Exit code: 1\nWall time: 3.2 seconds\nOutput:\nnpm error code ERESOLVE\n",
                "npm error code ERESOLVE\n",
                true,
            ),
            (
                "Chunk ID: 1adc9a\nWall time: 0.0000 seconds\nProcess exited with code 1\nOriginal token count: 13\nOutput:\nls: /x: No such file or directory\n",
                "ls: /x: No such file or directory\n",
                true,
            ),
            ("Exit code: 0\nWall time: 0.1 seconds\nOutput:\nok\n", "ok\n", false),
            // Nothing printed: the frame ends at `Output:`.
            (
                "Chunk ID: ba10a0\nWall time: 7.8 seconds\nProcess exited with code 2\nOriginal token count: 0\nOutput:",
                "",
                true,
            ),
            (
                r#"{"output":"boom\n","metadata":{"exit_code":2,"duration_seconds":0.1}}"#,
                "boom\n",
                true,
            ),
            ("plain output text", "plain output text", false),
            // A tool that prints what looks like a frame is not one.
            (
                "compiling\nProcess exited with code 1\nOutput:\nfine",
                "compiling\nProcess exited with code 1\nOutput:\nfine",
                false,
            ),
        ] {
            assert_eq!(
                output(&Value::String(raw.into())),
                (text.to_owned(), error),
                "{raw}"
            );
        }
        let items = serde_json::json!([{"type": "input_text", "text": "a"}, {"type": "input_image", "image_url": "data:"}]);
        assert_eq!(output(&items), ("a\n[image]".to_owned(), false));
        let failed = serde_json::json!({"content": "denied", "success": false});
        assert_eq!(output(&failed), ("denied".to_owned(), true));
    }

    #[test]
    fn shell_calls_in_every_form_are_bash_with_their_command() {
        let limits = Limits::default();
        let cmd = |name: &str, args: Value| match &call(name, &args, "c1".into(), &limits)[..] {
            [Block::ToolUse { name, input, .. }] => (name.clone(), input.clone()),
            other => panic!("{other:?}"),
        };
        let npm = ("Bash".to_owned(), "npm install".to_owned());
        assert_eq!(
            cmd(
                "shell",
                serde_json::json!({"command": ["bash", "-lc", "npm install"]})
            ),
            npm
        );
        assert_eq!(
            cmd(
                "shell_command",
                serde_json::json!({"command": "npm install"})
            ),
            npm
        );
        assert_eq!(
            cmd(
                "exec_command",
                serde_json::json!({"cmd": "npm install", "workdir": "/w"})
            ),
            npm
        );
        assert_eq!(
            cmd("shell", serde_json::json!({"command": ["npm", "install"]})),
            npm
        );
        assert_eq!(
            cmd(
                "exec_command",
                serde_json::json!({"cmd": "sed -n '1,80p' package.json"})
            )
            .0,
            "Read"
        );
        assert_eq!(
            cmd(
                "exec_command",
                serde_json::json!({"cmd": "sed -i s/a/b/ f"})
            )
            .0,
            "Bash"
        );
        assert_eq!(
            cmd(
                "exec_command",
                serde_json::json!({"cmd": "cd web && rg vite | head"})
            )
            .0,
            "Read"
        );
        assert_eq!(
            cmd(
                "exec_command",
                serde_json::json!({"cmd": "cat a && npm test"})
            )
            .0,
            "Bash"
        );
        assert_eq!(
            cmd("update_plan", serde_json::json!({"plan": []})),
            ("update_plan".to_owned(), "{\"plan\":[]}".to_owned())
        );
    }

    #[test]
    fn a_patch_is_an_edit_per_file_with_a_manifests_hunks() {
        let p = "*** Begin Patch\n*** Update File: package.json\n@@\n     \"devDependencies\": {\n-    \"@vitejs/plugin-legacy\": \"6.0.0\",\n+    \"@vitejs/plugin-legacy\": \"7.0.0\",\n*** Add File: src/new.ts\n+export const a = 1;\n*** Delete File: old.ts\n*** End Patch\n";
        let blocks = patch(p, "c9");
        assert_eq!(blocks.len(), 2, "{blocks:?}");
        let Block::ToolUse {
            name,
            path,
            edits,
            input,
            ..
        } = &blocks[0]
        else {
            panic!()
        };
        assert_eq!(
            (name.as_str(), path.as_deref()),
            ("Edit", Some("package.json"))
        );
        assert_eq!(input, "apply_patch: update package.json");
        assert_eq!(
            edits,
            &[(
                "    \"devDependencies\": {\n    \"@vitejs/plugin-legacy\": \"6.0.0\",".to_owned(),
                "    \"devDependencies\": {\n    \"@vitejs/plugin-legacy\": \"7.0.0\",".to_owned()
            )]
        );
        let changes =
            crate::facts::manifest::edit_changes("package.json", &edits[0].0, &edits[0].1);
        assert_eq!(changes.len(), 1);
        assert_eq!(changes[0].package, "@vitejs/plugin-legacy");
        let Block::ToolUse { name, edits, .. } = &blocks[1] else {
            panic!()
        };
        assert_eq!(name, "Write");
        assert!(edits.is_empty(), "not a manifest");
    }

    #[test]
    fn the_harness_s_messages_are_not_a_person_s_prompt() {
        for s in [
            "<environment_context>\n  <cwd>/w</cwd>\n</environment_context>",
            "# AGENTS.md instructions for /w\n\n<INSTRUCTIONS>x</INSTRUCTIONS>",
            "<user_instructions>be brief</user_instructions>",
            "<skill>\n<name>brainstorming</name>\n<path>/s/SKILL.md</path>\n---\nname: x",
            "<skill name=\"brainstorming\">\n…",
        ] {
            assert!(is_harness(s), "{s}");
        }
        for s in [
            "fix the build",
            "<3 thanks",
            "< not a tag",
            "a <b>c</b>",
            "<div> is broken",
            "<skills> are what I want to list",
        ] {
            assert!(!is_harness(s), "{s}");
        }
    }

    #[test]
    fn a_rollout_is_read_with_ids_from_its_offsets_and_its_session() {
        let lines = [
            r#"{"timestamp":"2026-09-02T09:00:00.000Z","type":"session_meta","payload":{"id":"0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b","timestamp":"2026-09-02T09:00:00.000Z","cwd":"/home/dev/app","originator":"codex_cli_rs","cli_version":"0.46.0"}}"#,
            r#"{"timestamp":"2026-09-02T09:00:01.000Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"<environment_context>\n  <cwd>/home/dev/app</cwd>\n</environment_context>"}]}}"#,
            r#"{"timestamp":"2026-09-02T09:00:01.000Z","type":"event_msg","payload":{"type":"user_message","message":"fix it","images":[]}}"#,
            r#"{"timestamp":"2026-09-02T09:00:01.000Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"fix it"}]}}"#,
            r#"{"timestamp":"2026-09-02T09:00:02.000Z","type":"response_item","payload":{"type":"reasoning","summary":[],"content":null,"encrypted_content":"gAAA"}}"#,
            r#"{"timestamp":"2026-09-02T09:00:03.000Z","type":"response_item","payload":{"type":"function_call","name":"shell","arguments":"{\"command\":[\"bash\",\"-lc\",\"npm test\"]}","call_id":"call_1"}}"#,
            r#"{"timestamp":"2026-09-02T09:00:04.000Z","type":"response_item","payload":{"type":"function_call_output","call_id":"call_1","output":"{\"output\":\"1 failed\\n\",\"metadata\":{\"exit_code\":1,\"duration_seconds\":0.9}}"}}"#,
            r#"{"timestamp":"2026-09-02T09:00:05.000Z","type":"response_item","payload":"not an object"}"#,
        ];
        let text = lines.join("\n") + "\n";
        let t = read(&text);
        assert_eq!(t.format, Some(Format::Codex));
        assert_eq!(
            t.session_id.as_deref(),
            Some("0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b")
        );
        assert_eq!(t.cwd.as_deref(), Some("/home/dev/app"));
        assert_eq!(
            (t.ignored, t.skipped_malformed),
            (2, 1),
            "event_msg and reasoning; the bad payload"
        );
        let offset = |i: usize| lines[..i].iter().map(|l| l.len() + 1).sum::<usize>();
        let ids: Vec<String> = t.events.iter().map(|e| e.uuid.clone()).collect();
        assert_eq!(ids, [1, 3, 5, 6].map(|i| format!("codex:{}", offset(i))));
        assert_eq!(t.events[0].role, Role::System, "the harness's context");
        assert!(t.events[1].is_prompt());
        assert!(t.events.iter().all(|e| e.session_id == t.session_id));
        assert_eq!(t.events[3].parent_uuid.as_deref(), Some(ids[2].as_str()));
        assert_eq!(
            t.events[3].blocks,
            [Block::ToolResult {
                tool_use_id: "call_1".into(),
                text: "1 failed\n".into(),
                is_error: true
            }]
        );
        assert_eq!(t.end_offset, text.len() as u64);
        assert_eq!(
            t.notes().iter().map(ToString::to_string).collect::<Vec<_>>(),
            ["skipped 1 malformed line: not a JSON object, or a rollout line without an object payload"]
        );
    }

    /// A tool call's id, `name input`, and the text and error flag of the
    /// result that answers it.
    type Run = (String, String, Option<(String, bool)>);

    /// Every tool call of `t` with the result that answers it, in order.
    fn runs(t: &Transcript) -> Vec<Run> {
        let mut out = Vec::new();
        for e in &t.events {
            for b in &e.blocks {
                if let Block::ToolUse {
                    id, name, input, ..
                } = b
                {
                    out.push((id.clone(), format!("{name} {input}"), None));
                }
                if let Block::ToolResult {
                    tool_use_id,
                    text,
                    is_error,
                } = b
                {
                    let call = out.iter_mut().find(|(id, _, _)| id == tool_use_id).unwrap();
                    assert!(call.2.is_none(), "two results for {tool_use_id}");
                    call.2 = Some((text.clone(), *is_error));
                }
            }
        }
        out
    }

    #[test]
    fn a_command_run_through_unified_exec_is_answered_once_with_all_it_printed() {
        let line = |payload: &str| {
            format!(
                r#"{{"timestamp":"2026-09-02T09:00:01.000Z","type":"response_item","payload":{payload}}}"#
            )
        };
        let exec = r#"{"type":"function_call","name":"exec_command","arguments":"{\"cmd\":\"npm install\",\"yield_time_ms\":1000}","call_id":"c1"}"#;
        let running = |call: &str, printed: &str| {
            let text = format!(
                "Chunk ID: ab12cd\nWall time: 1.0 seconds\nProcess running with session ID 4242\nOriginal token count: 9\nOutput:\n{printed}"
            );
            format!(
                r#"{{"type":"function_call_output","call_id":"{call}","output":{}}}"#,
                serde_json::to_string(&text).unwrap()
            )
        };
        let poll = |call: &str| {
            format!(
                r#"{{"type":"function_call","name":"write_stdin","arguments":"{{\"session_id\":4242,\"chars\":\"\"}}","call_id":"{call}"}}"#
            )
        };
        let exited = r#"{"type":"function_call_output","call_id":"c3","output":"Chunk ID: ef34ab\nWall time: 0.0 seconds\nProcess exited with code 1\nOriginal token count: 9\nOutput:\nnpm error A complete log of this run can be found in: x.log\n"}"#;
        let meta = r#"{"timestamp":"2026-09-02T09:00:00.000Z","type":"session_meta","payload":{"id":"0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b","cwd":"/home/dev/app"}}"#;
        let text = [
            meta.to_owned(),
            line(exec),
            line(&running("c1", "npm error code ERESOLVE\n")),
            line(&poll("c2")),
            line(&running("c2", "npm error While resolving: app@1.0.0\n")),
            line(&poll("c3")),
            line(exited),
        ]
        .join("\n");
        let t = read(&text);
        let got = runs(&t);
        let ids: Vec<&str> = got.iter().map(|(id, _, _)| id.as_str()).collect();
        assert_eq!(ids, ["c1", "c2", "c3"]);
        assert!(
            got.iter().all(|(_, call, _)| call == "Bash npm install"),
            "{got:?}"
        );
        // Still running: no result, neither a success nor a failure.
        assert_eq!((&got[0].2, &got[1].2), (&None, &None));
        assert_eq!(
            got[2].2,
            Some((
                "npm error code ERESOLVE\nnpm error While resolving: app@1.0.0\nnpm error A complete log of this run can be found in: x.log\n".to_owned(),
                true
            ))
        );
        // A poll of a session this read never saw start, and its answer,
        // are left out: whose output it is cannot be said.
        let t = read(&[meta.to_owned(), line(&poll("c3")), line(exited)].join("\n"));
        assert!(runs(&t).is_empty(), "{:?}", runs(&t));
    }

    #[test]
    fn a_recorded_rollout_s_test_runs_keep_their_command_their_output_and_exit_codes() {
        // tests/fixtures/sessions/README.md says where it comes from.
        let t = read(include_str!(
            "../../../tests/fixtures/sessions/codex-real-unified-exec-excerpt.jsonl"
        ));
        assert_eq!(
            t.session_id.as_deref(),
            Some("019e1625-789d-76c0-80ab-3724b5ddb799")
        );
        let tests: Vec<_> = runs(&t)
            .into_iter()
            .filter(|(_, call, result)| call.starts_with("Bash npm test") && result.is_some())
            .map(|(_, call, result)| (call, result.unwrap()))
            .collect();
        assert_eq!(tests.len(), 3, "{tests:#?}");
        let focused = "Bash npm test -- --run src/agents/plugins/__tests__/codemie-code-reasoning.test.ts -t \"Compaction Config\"";
        assert_eq!(tests[0].0, focused);
        assert_eq!(tests[1].0, focused);
        // The failing run: both polls' output, the header the first one
        // printed and the failure the last one did, and its exit code.
        let (failed, error) = &tests[0].1;
        assert!(*error);
        assert!(failed.contains("> @codemieai/code"), "{failed}");
        assert!(failed.contains("FAIL"), "{failed}");
        assert!(
            !failed.contains("Process running with session ID"),
            "{failed}"
        );
        assert!(!tests[1].1 .1 && !tests[2].1 .1, "{tests:#?}");
        assert!(
            tests[2].1 .0.contains("Test Files  1 passed"),
            "{}",
            tests[2].1 .0
        );
    }

    #[test]
    fn a_failed_poll_of_a_running_command_is_no_result_and_the_command_is_still_followed() {
        // tests/fixtures/sessions/README.md says where it comes from.
        let t = read(include_str!(
            "../../../tests/fixtures/sessions/codex-real-closed-stdin-excerpt.jsonl"
        ));
        let got = runs(&t);
        // Every call is the command (a `Read`: it only shows files); no
        // call is left a bare `write_stdin`.
        assert_eq!(got.len(), 4, "{got:#?}");
        assert!(
            got.iter()
                .all(|(_, call, _)| call.starts_with("Read sed -n '1,220p' ")),
            "{got:#?}"
        );
        // One answer, the last: the files' text, exit code 0. The failed
        // Ctrl-C and the polls that found it running answer nothing.
        let answered: Vec<_> = got.iter().filter_map(|(_, _, r)| r.as_ref()).collect();
        assert_eq!(answered.len(), 1, "{got:#?}");
        let (text, error) = answered[0];
        assert!(!error);
        assert!(text.starts_with("---\nname: brainstorming\n"), "{text}");
        assert!(!text.contains("write_stdin failed"), "{text}");
        assert_eq!(got[3].2.as_ref(), Some(answered[0]));
    }
}
