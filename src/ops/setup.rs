//! `git lore setup claude|codex`: git-lore's hooks merged into (or taken
//! out of) an agent's hook settings: Claude Code's `settings.json`
//! (SessionStart and SessionEnd) or Codex's `hooks.json` (SessionStart and
//! Stop). Both files hold the same shape under `hooks` — event name → array
//! of `{matcher?, hooks: [{type: "command", command, timeout}]}` groups
//! (Codex: `HooksFile`, `MatcherGroup`, `HookHandlerConfig` in openai/codex
//! `codex-rs/config/src/hook_config.rs`, `timeout` in seconds) — so one
//! editor serves both; [`Agent`] says which events and commands.
//!
//! [`install`] and [`remove`] are pure: settings text in, settings text
//! out. They keep everything else in the file as it was — other keys
//! byte for byte and in their order, other hooks, other entries of the same
//! events — and they are idempotent: a file that already has git-lore's
//! hooks is left unchanged. A file that is not a JSON object, or whose
//! `hooks` is not an object of arrays, is refused rather than rewritten.
//! [`apply`] does the file work for the paths the caller names: a bounded
//! read, a backup of the old file before anything changes, and an atomic
//! replace.
//!
//! The hooks call the `git-lore` binary directly (`git-lore hook
//! session-start`, `git-lore hook session-end`), so a `cargo install`, which
//! installs no scripts, is all they need. A hook entry is git-lore's when
//! its command is exactly the one setup writes (or that command with
//! `git-lore` given by an absolute path); `remove` takes out exactly those,
//! and an entry that merely mentions git-lore is the user's own.
//!
//! It never prints and reads no environment or clock (the backup's time
//! stamp is passed in).

use std::path::{Path, PathBuf};

use indexmap::IndexMap;
use serde_json::value::RawValue;
use serde_json::Value;

use super::LoreError;

/// The agent whose hooks are edited.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Agent {
    /// Claude Code: `~/.claude/settings.json` or `<project>/.claude/settings.json`.
    Claude,
    /// Codex CLI: `~/.codex/hooks.json` or `<project>/.codex/hooks.json`.
    Codex,
}

impl Agent {
    /// The events and the command git-lore installs for each. Codex has no
    /// session-end event: its Stop fires after every turn, and
    /// `hook session-end` captures only what is new since the last turn.
    pub fn hooks(self) -> &'static [(&'static str, &'static str)] {
        match self {
            Agent::Claude => &[
                ("SessionStart", "git-lore hook session-start"),
                ("SessionEnd", "git-lore hook session-end"),
            ],
            Agent::Codex => &[
                ("SessionStart", "git-lore hook session-start"),
                ("Stop", "git-lore hook session-end"),
            ],
        }
    }

    /// The settings file, relative to the home or the project directory.
    pub fn file(self) -> &'static str {
        match self {
            Agent::Claude => ".claude/settings.json",
            Agent::Codex => ".codex/hooks.json",
        }
    }
}

/// Seconds the agent gives each hook: both return within a few seconds
/// (session-start gives up after 4, session-end only starts the capture).
pub const TIMEOUT_SECS: u64 = 10;

/// The largest settings file read: 64 MiB. Claude Code keeps each
/// project's history in `~/.claude.json`, which `setup mcp --client claude`
/// edits; real ones are several MiB, and the limit only guards against
/// reading something that is not a settings file at all.
pub const MAX_SETTINGS_BYTES: u64 = 64 << 20;

/// What a bounded read of a settings file found.
#[derive(Debug, PartialEq)]
enum Loaded {
    Text(String),
    NotUtf8,
    /// Over the limit: its size in bytes.
    TooLarge(u64),
}

/// Reads at most `limit` bytes of `f`, then decides: a file over the
/// limit is too large (whatever bytes it holds; a cut can split a
/// character), one within it is UTF-8 text or not.
fn read_bounded(f: std::fs::File, limit: u64) -> std::io::Result<Loaded> {
    use std::io::Read;
    let size = f.metadata().map(|m| m.len()).unwrap_or(0);
    let mut bytes = Vec::new();
    f.take(limit + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > limit {
        return Ok(Loaded::TooLarge(size.max(bytes.len() as u64)));
    }
    Ok(match String::from_utf8(bytes) {
        Ok(text) => Loaded::Text(text),
        Err(_) => Loaded::NotUtf8,
    })
}

/// Why a file over the limit is left alone, and what to do instead.
fn too_large(size: u64) -> String {
    format!(
        "it is too large to edit safely ({size} bytes, limit {MAX_SETTINGS_BYTES}); left alone: run setup again with --dry-run to print the entry, and merge it into the file by hand"
    )
}

/// Why a settings file is left alone.
#[derive(Debug, thiserror::Error)]
pub enum SetupError {
    #[error("it is not a JSON object ({0}); fix or move it, then run setup again")]
    NotAnObject(#[source] serde_json::Error),
    #[error("it has a comment (line {0}), and comments are not JSON; setup will not rewrite it: take the comments out, or add the hooks by hand (see docs/hooks.md)")]
    Comment(usize),
    #[error("its {0} is not {1}; fix it by hand, then run setup again")]
    Shape(String, &'static str),
    #[error("it is a symlink to {target}, which cannot be followed ({source}); create its target or remove the link, then run setup again")]
    BrokenLink {
        target: String,
        #[source]
        source: std::io::Error,
    },
    #[error("it has a comment (line {0}), and comments are not JSON; setup will not rewrite it: take the comments out, or add the server by hand (see docs/mcp.md)")]
    McpComment(usize),
    #[error("it is not TOML (line {line}: {message}); fix or move it, then run setup again")]
    NotToml { line: usize, message: String },
    #[error("its {key} is another server (it runs `{command}`); rename or remove that entry, then run setup again")]
    Taken { key: String, command: String },
}

/// The result of an edit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Edit {
    /// The new settings text (the old one when nothing changed).
    pub text: String,
    /// What changed, one line each (empty: nothing).
    pub changes: Vec<String>,
}

/// A value kept as it was, one that is edited, or an object whose values
/// are either: serialised in order, the untouched parts verbatim.
#[derive(serde::Serialize)]
#[serde(untagged)]
pub(super) enum Node {
    Raw(Box<RawValue>),
    Value(Value),
    Map(IndexMap<String, Node>),
    List(Vec<Node>),
}

/// git-lore's hook group for `command`, its keys in the order Claude
/// Code's documentation writes them.
fn our_group(command: &str) -> Node {
    let hook: IndexMap<String, Node> = [
        ("type", Value::from("command")),
        ("command", Value::from(command)),
        ("timeout", Value::from(TIMEOUT_SECS)),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_owned(), Node::Value(v)))
    .collect();
    Node::Map(IndexMap::from([(
        "hooks".to_owned(),
        Node::List(vec![Node::Map(hook)]),
    )]))
}

/// Whether `command` is the command setup writes for `ours`: exactly
/// `ours`, or `ours` with `git-lore` named by an absolute path (as a
/// hand-written or older entry may have it). Anything else — another
/// program that happens to mention git-lore, extra words, other flags — is
/// the user's own and is never counted or removed as git-lore's.
fn is_ours(command: &str, ours: &str) -> bool {
    if command == ours {
        return true;
    }
    let rest = ours.strip_prefix("git-lore").unwrap_or(ours); // " hook session-end"
    command.strip_suffix(rest).is_some_and(|program| {
        program.starts_with('/')
            && program.ends_with("/git-lore")
            && !program.contains(char::is_whitespace)
    })
}

/// The command of each hook in a group.
fn commands(group: &Value) -> impl Iterator<Item = &str> {
    group
        .get("hooks")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|h| h.get("command")?.as_str())
}

/// Parses the settings: the top-level keys and the `hooks` object's, in
/// order, values raw.
type Parsed = (
    IndexMap<String, Box<RawValue>>,
    IndexMap<String, Box<RawValue>>,
);

fn parse(text: &str) -> Result<Parsed, SetupError> {
    let top = parse_object(text)?;
    let hooks = match top.get("hooks") {
        None => IndexMap::new(),
        Some(raw) => serde_json::from_str(raw.get())
            .map_err(|_| SetupError::Shape("\"hooks\"".into(), "an object"))?,
    };
    Ok((top, hooks))
}

/// A JSON settings file's top-level keys, in order, values raw (an empty
/// file is an empty object); a comment is named as one.
pub(super) fn parse_object(text: &str) -> Result<IndexMap<String, Box<RawValue>>, SetupError> {
    let text = if text.trim().is_empty() { "{}" } else { text };
    serde_json::from_str(text).map_err(|e| {
        // Where the parse stopped: at a `/`, the file has a comment.
        // serde_json counts the column in bytes.
        let at = text
            .lines()
            .nth(e.line().saturating_sub(1))
            .and_then(|l| l.as_bytes().get(e.column().saturating_sub(1)).copied());
        if at == Some(b'/') {
            SetupError::Comment(e.line())
        } else {
            SetupError::NotAnObject(e)
        }
    })
}

/// An event's groups, each as written and as a value.
fn groups(
    hooks: &IndexMap<String, Box<RawValue>>,
    event: &str,
) -> Result<Vec<(Box<RawValue>, Value)>, SetupError> {
    let bad = || SetupError::Shape(format!("\"hooks\".{event:?}"), "an array");
    let Some(raw) = hooks.get(event) else {
        return Ok(Vec::new());
    };
    let list: Vec<Box<RawValue>> = serde_json::from_str(raw.get()).map_err(|_| bad())?;
    list.into_iter()
        .map(|r| {
            let v = serde_json::from_str(r.get()).map_err(|_| bad())?;
            Ok((r, v))
        })
        .collect()
}

/// Puts the edited events back; the file's text in its order, untouched
/// parts verbatim. `None` for an event: drop it.
fn render(
    top: IndexMap<String, Box<RawValue>>,
    hooks: IndexMap<String, Box<RawValue>>,
    edited: Vec<(&str, Option<Vec<Node>>)>,
) -> String {
    let mut new_hooks: IndexMap<String, Node> =
        hooks.into_iter().map(|(k, v)| (k, Node::Raw(v))).collect();
    for (event, groups) in edited {
        match groups {
            Some(g) => {
                new_hooks.insert(event.to_owned(), Node::List(g));
            }
            None => {
                new_hooks.shift_remove(event);
            }
        }
    }
    let had_hooks = top.contains_key("hooks");
    let mut out: IndexMap<String, Node> = top.into_iter().map(|(k, v)| (k, Node::Raw(v))).collect();
    if new_hooks.is_empty() && had_hooks {
        // Left empty by a removal: it goes too.
        out.shift_remove("hooks");
    } else if !new_hooks.is_empty() {
        // In its place when it was there, else last.
        out.insert("hooks".into(), Node::Map(new_hooks));
    }
    let mut text = serde_json::to_string_pretty(&out).expect("serialisable");
    text.push('\n');
    text
}

/// Adds `agent`'s git-lore hooks to the settings `text`, unless they are
/// there.
pub fn install(text: &str, agent: Agent) -> Result<Edit, SetupError> {
    let (top, hooks) = parse(text)?;
    let mut edited = Vec::new();
    let mut changes = Vec::new();
    for &(event, command) in agent.hooks() {
        let g = groups(&hooks, event)?;
        if g.iter()
            .any(|(_, v)| commands(v).any(|c| is_ours(c, command)))
        {
            // Installed. An entry of ours without a timeout (written by
            // hand, or by an older setup) gets ours; one it has is the
            // user's choice and stays.
            let mut added = Vec::new();
            let nodes: Vec<Node> = g
                .into_iter()
                .map(|(raw, mut group)| {
                    let mut touched = false;
                    for h in group
                        .get_mut("hooks")
                        .and_then(Value::as_array_mut)
                        .into_iter()
                        .flatten()
                    {
                        let Some(c) = h.get("command").and_then(Value::as_str) else {
                            continue;
                        };
                        if is_ours(c, command) && h.get("timeout").is_none() {
                            added.push(c.to_owned());
                            if let Some(o) = h.as_object_mut() {
                                o.insert("timeout".into(), Value::from(TIMEOUT_SECS));
                                touched = true;
                            }
                        }
                    }
                    if touched {
                        Node::Value(group)
                    } else {
                        Node::Raw(raw)
                    }
                })
                .collect();
            if !added.is_empty() {
                for c in &added {
                    changes.push(format!(
                        "added a timeout of {TIMEOUT_SECS} s to the {event} hook `{c}`"
                    ));
                }
                edited.push((event, Some(nodes)));
            }
            continue;
        }
        let mut nodes: Vec<Node> = g.into_iter().map(|(r, _)| Node::Raw(r)).collect();
        nodes.push(our_group(command));
        changes.push(format!("added the {event} hook `{command}`"));
        edited.push((event, Some(nodes)));
    }
    if changes.is_empty() {
        return Ok(Edit {
            text: text.to_owned(),
            changes,
        });
    }
    Ok(Edit {
        text: render(top, hooks, edited),
        changes,
    })
}

/// Takes `agent`'s git-lore hooks (and only those) out of the settings
/// `text`; a group or event left empty by that goes too.
pub fn remove(text: &str, agent: Agent) -> Result<Edit, SetupError> {
    let (top, hooks) = parse(text)?;
    let mut edited = Vec::new();
    let mut changes = Vec::new();
    for &(event, command) in agent.hooks() {
        let g = groups(&hooks, event)?;
        let mut removed: Vec<String> = Vec::new();
        let kept: Vec<Node> = g
            .into_iter()
            .filter_map(|(raw, mut group)| {
                let Some(list) = group.get_mut("hooks").and_then(Value::as_array_mut) else {
                    return Some(Node::Raw(raw));
                };
                let before = list.len();
                list.retain(|h| match h.get("command").and_then(Value::as_str) {
                    Some(c) if is_ours(c, command) => {
                        removed.push(c.to_owned());
                        false
                    }
                    _ => true,
                });
                let gone = before - list.len();
                match (gone, list.is_empty()) {
                    (0, _) => Some(Node::Raw(raw)),
                    (_, true) => None,
                    (_, false) => Some(Node::Value(group)),
                }
            })
            .collect();
        if removed.is_empty() {
            continue;
        }
        for c in &removed {
            changes.push(format!("removed the {event} hook `{c}`"));
        }
        edited.push((event, (!kept.is_empty()).then_some(kept)));
    }
    if changes.is_empty() {
        return Ok(Edit {
            text: text.to_owned(),
            changes,
        });
    }
    Ok(Edit {
        text: render(top, hooks, edited),
        changes,
    })
}

/// What [`apply`] did.
#[derive(Debug)]
pub struct Applied {
    /// The old text (empty when there was no file) and the edit.
    pub old: String,
    pub edit: Edit,
    /// Where the old file was copied before it was replaced.
    pub backup: Option<PathBuf>,
    /// Whether the file was written.
    pub written: bool,
    /// Whether there was a settings file.
    pub existed: bool,
    /// A dry run on a file over [`MAX_SETTINGS_BYTES`]: its size. It was
    /// not read; `old` is empty and `edit` is what setup would write to an
    /// empty file, the entry to merge into it by hand.
    pub too_large: Option<u64>,
}

/// Installs (or, with `remove_them`, removes) git-lore's hooks in the
/// settings file at `path`. Unless `dry_run`, a changed file is first
/// copied to `<path>.git-lore-backup-<stamp>` (never over an earlier
/// backup) and then replaced atomically, keeping its permissions.
pub fn apply(
    path: &Path,
    agent: Agent,
    remove_them: bool,
    dry_run: bool,
    stamp: &str,
) -> Result<Applied, LoreError> {
    apply_edit(path, dry_run, stamp, |old| {
        if remove_them {
            remove(old, agent)
        } else {
            install(old, agent)
        }
    })
}

/// Edits the file at `path` with `edit` (its text in, the new text out),
/// the way [`apply`] does: a bounded read, the backup, the atomic replace.
/// `setup mcp` edits an MCP client's configuration through it
/// ([`super::mcp_config`]).
pub fn apply_edit(
    path: &Path,
    dry_run: bool,
    stamp: &str,
    edit: impl FnOnce(&str) -> Result<Edit, SetupError>,
) -> Result<Applied, LoreError> {
    use std::io::Write;
    let file_err = |what: &'static str, path: &Path| {
        let path = path.to_owned();
        move |source| LoreError::File { what, path, source }
    };
    let refuse = |why: String| LoreError::Input {
        what: format!("settings file {}", path.display()),
        why,
    };
    // A symlink (a dotfile manager's) is written through, to its target.
    let link = std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink());
    let real = if link {
        std::fs::canonicalize(path).map_err(|source| {
            let target = std::fs::read_link(path)
                .map(|t| t.display().to_string())
                .unwrap_or_else(|_| "?".into());
            LoreError::invalid(
                format!("settings file {}", path.display()),
                SetupError::BrokenLink { target, source },
            )
        })?
    } else {
        path.to_owned()
    };
    let path = real.as_path();
    // Only a regular file: a FIFO put in its place would hang the read
    // (opened without blocking, and checked again once open).
    let not_regular = || {
        refuse("it is not a regular file (a FIFO, socket, device or directory); move it away, then run setup again".into())
    };
    if std::fs::metadata(path).is_ok_and(|m| !m.is_file()) {
        return Err(not_regular());
    }
    let mut options = std::fs::File::options();
    options.read(true);
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(rustix::fs::OFlags::NONBLOCK.bits() as i32);
    }
    let (old, existed) = match options.open(path) {
        Ok(f) if !f.metadata().is_ok_and(|m| m.is_file()) => return Err(not_regular()),
        Ok(f) => match read_bounded(f, MAX_SETTINGS_BYTES) {
            Ok(Loaded::Text(text)) => (text, true),
            Ok(Loaded::NotUtf8) => return Err(refuse(
                "it is not UTF-8 text; setup will not rewrite it: convert it to UTF-8 or move it, then run setup again".into(),
            )),
            Ok(Loaded::TooLarge(size)) if dry_run => {
                let edit = edit("").map_err(|e| {
                    LoreError::invalid(format!("settings file {}", path.display()), e)
                })?;
                return Ok(Applied {
                    old: String::new(),
                    edit,
                    backup: None,
                    written: false,
                    existed: true,
                    too_large: Some(size),
                });
            }
            Ok(Loaded::TooLarge(size)) => return Err(refuse(too_large(size))),
            Err(e) => return Err(file_err("cannot read the settings file", path)(e)),
        },
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => (String::new(), false),
        Err(e) => return Err(file_err("cannot read the settings file", path)(e)),
    };
    let edit = edit(&old)
        .map_err(|e| LoreError::invalid(format!("settings file {}", path.display()), e))?;
    if edit.changes.is_empty() || dry_run {
        return Ok(Applied {
            old,
            edit,
            backup: None,
            written: false,
            existed,
            too_large: None,
        });
    }
    if existed && std::fs::metadata(path).is_ok_and(|m| m.permissions().readonly()) {
        return Err(refuse(
            "it is read-only; make it writable (chmod u+w) and run setup again, or add the hooks by hand".into(),
        ));
    }
    let dir = path.parent().unwrap_or(Path::new("."));
    if let Err(e) = std::fs::create_dir_all(dir) {
        if let Ok(target) = std::fs::read_link(dir) {
            return Err(LoreError::Input {
                what: format!("directory {}", dir.display()),
                why: format!(
                    "it is a symlink to {}, which does not exist; create that directory or remove the link, then run setup again",
                    target.display()
                ),
            });
        }
        return Err(file_err("cannot create the directory", dir)(e));
    }
    let mut backup = None;
    if existed {
        let base = format!(
            "{}.git-lore-backup-{stamp}",
            path.file_name().unwrap_or_default().to_string_lossy()
        );
        for n in 0..100 {
            let name = if n == 0 {
                base.clone()
            } else {
                format!("{base}-{n}")
            };
            let b = dir.join(name);
            match std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(&b)
            {
                Ok(mut f) => {
                    f.write_all(old.as_bytes())
                        .and_then(|_| f.sync_all())
                        .map_err(file_err("cannot write the backup", &b))?;
                    backup = Some(b);
                    break;
                }
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
                Err(e) => return Err(file_err("cannot write the backup", &b)(e)),
            }
        }
        if backup.is_none() {
            return Err(LoreError::Input {
                what: format!("settings file {}", path.display()),
                why: "no free backup name; left alone".into(),
            });
        }
    }
    let mut tmp = tempfile::NamedTempFile::new_in(dir)
        .map_err(file_err("cannot write next to the settings file", dir))?;
    tmp.write_all(edit.text.as_bytes())
        .map_err(file_err("cannot write the settings file", path))?;
    if let Ok(meta) = std::fs::metadata(path) {
        let _ = std::fs::set_permissions(tmp.path(), meta.permissions());
    }
    tmp.persist(path)
        .map_err(|e| file_err("cannot replace the settings file", path)(e.error))?;
    Ok(Applied {
        old,
        edit,
        backup,
        written: true,
        existed,
        too_large: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const THEIRS: &str = r#"{
  "model": "opus",
  "permissions": {
    "deny": ["Read(./.env)"],
    "allow": ["Bash(npm test:*)"]
  },
  "hooks": {
    "SessionStart": [
      {
        "matcher": "startup",
        "hooks": [{"type": "command", "command": "~/bin/greet", "timeout": 5}]
      }
    ],
    "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "guard"}]}]
  },
  "env": {"Z": "1", "A": "2"}
}
"#;

    fn value(text: &str) -> Value {
        serde_json::from_str(text).unwrap()
    }

    fn apply_claude(
        path: &Path,
        remove_them: bool,
        dry_run: bool,
        stamp: &str,
    ) -> Result<Applied, LoreError> {
        apply(path, Agent::Claude, remove_them, dry_run, stamp)
    }

    /// A Codex hooks.json with a hook of its own, as Codex's docs write one.
    const CODEX_THEIRS: &str = r#"{
  "hooks": {
    "PreToolUse": [
      {
        "matcher": "Bash",
        "hooks": [{"type": "command", "command": "python3 ~/.codex/hooks/guard.py", "timeout": 30, "statusMessage": "checking"}]
      }
    ],
    "Stop": [{"hooks": [{"type": "command", "command": "notify-send done"}]}]
  }
}
"#;

    #[test]
    fn codex_gets_session_start_and_stop_and_loses_only_them() {
        let e = install(CODEX_THEIRS, Agent::Codex).unwrap();
        assert_eq!(
            e.changes,
            [
                "added the SessionStart hook `git-lore hook session-start`",
                "added the Stop hook `git-lore hook session-end`"
            ]
        );
        let v = value(&e.text);
        assert_eq!(
            v["hooks"]["PreToolUse"],
            value(CODEX_THEIRS)["hooks"]["PreToolUse"]
        );
        assert_eq!(
            v["hooks"]["Stop"],
            serde_json::json!([
                {"hooks": [{"type": "command", "command": "notify-send done"}]},
                {"hooks": [{"type": "command", "command": "git-lore hook session-end", "timeout": 10}]}
            ])
        );
        assert!(
            v["hooks"].get("SessionEnd").is_none(),
            "Codex has no SessionEnd"
        );
        assert_eq!(
            install(&e.text, Agent::Codex).unwrap().changes,
            Vec::<String>::new()
        );
        // Claude's hooks are another agent's: removing them from a Codex
        // file finds nothing of theirs but the shared SessionStart.
        let r = remove(&e.text, Agent::Codex).unwrap();
        assert_eq!(value(&r.text), value(CODEX_THEIRS));
        assert_eq!(Agent::Codex.file(), ".codex/hooks.json");
    }

    #[test]
    fn install_adds_ours_and_keeps_everything_else_as_it_was() {
        let e = install(THEIRS, Agent::Claude).unwrap();
        assert_eq!(
            e.changes,
            [
                "added the SessionStart hook `git-lore hook session-start`",
                "added the SessionEnd hook `git-lore hook session-end`"
            ]
        );
        let v = value(&e.text);
        let start = v["hooks"]["SessionStart"].as_array().unwrap();
        assert_eq!(start.len(), 2, "theirs and ours");
        assert_eq!(start[0]["hooks"][0]["command"], "~/bin/greet");
        assert_eq!(
            start[1],
            serde_json::json!({"hooks": [{"type": "command", "command": "git-lore hook session-start", "timeout": 10}]})
        );
        assert_eq!(
            v["hooks"]["SessionEnd"][0]["hooks"][0]["command"],
            "git-lore hook session-end"
        );
        assert_eq!(
            v["hooks"]["PreToolUse"],
            value(THEIRS)["hooks"]["PreToolUse"]
        );
        // Untouched parts keep their text and their order.
        assert!(e.text.starts_with("{\n  \"model\": \"opus\",\n  \"permissions\": {\n    \"deny\": [\"Read(./.env)\"],\n    \"allow\""), "{}", e.text);
        assert!(
            e.text.contains("\"env\": {\"Z\": \"1\", \"A\": \"2\"}"),
            "{}",
            e.text
        );
        let keys: Vec<&str> = e
            .text
            .lines()
            .filter(|l| l.starts_with("  \""))
            .map(|l| l.trim().split('"').nth(1).unwrap())
            .collect();
        assert_eq!(keys, ["model", "permissions", "hooks", "env"]);
    }

    #[test]
    fn install_is_idempotent_and_remove_takes_out_only_ours() {
        let once = install(THEIRS, Agent::Claude).unwrap();
        let twice = install(&once.text, Agent::Claude).unwrap();
        assert_eq!(twice.changes, Vec::<String>::new());
        assert_eq!(twice.text, once.text);
        let removed = remove(&once.text, Agent::Claude).unwrap();
        assert_eq!(removed.changes.len(), 2);
        assert_eq!(value(&removed.text), value(THEIRS));
        assert_eq!(
            remove(&removed.text, Agent::Claude).unwrap().changes,
            Vec::<String>::new()
        );
    }

    #[test]
    fn a_missing_or_empty_file_gets_just_the_hooks_and_loses_them_again() {
        let e = install("", Agent::Claude).unwrap();
        let v = value(&e.text);
        assert_eq!(v.as_object().unwrap().len(), 1);
        assert_eq!(v["hooks"].as_object().unwrap().len(), 2);
        assert_eq!(
            value(&remove(&e.text, Agent::Claude).unwrap().text),
            serde_json::json!({})
        );
    }

    #[test]
    fn our_commands_are_recognised_in_the_forms_people_write_them() {
        for c in [
            "git-lore hook session-end",
            "/home/me/.cargo/bin/git-lore hook session-end",
        ] {
            assert!(is_ours(c, "git-lore hook session-end"), "{c}");
        }
        // The user's own commands, however much they mention git-lore.
        for c in [
            "git-lore hook session-start",
            "my-git-lore hook session-end",
            "echo git-lore",
            "/repo/hooks/session-end",
            "git lore hook session-end",
            "GIT_LORE_REPO=/x git-lore hook session-end --flag",
            "notify-send done; git-lore hook session-end",
            "GIT_LORE_HOOK_ACTIVE=1 my-script git-lore hook session-end",
            "/opt/bin/git-lore hook session-end --verbose",
            "bin/git-lore hook session-end",
            "/opt/my bin/git-lore hook session-end",
            " git-lore hook session-end",
        ] {
            assert!(!is_ours(c, "git-lore hook session-end"), "{c}");
        }
        // A hook of ours written by hand counts: nothing is added twice.
        let by_hand = r#"{"hooks": {"SessionEnd": [{"hooks": [{"type": "command", "command": "/usr/local/bin/git-lore hook session-end", "timeout": 10}]}]}}"#;
        let e = install(by_hand, Agent::Claude).unwrap();
        assert_eq!(
            e.changes,
            ["added the SessionStart hook `git-lore hook session-start`"]
        );
        // Removing keeps a group that still has someone else's hook.
        let shared = r#"{"hooks": {"SessionEnd": [{"hooks": [{"type": "command", "command": "theirs"}, {"type": "command", "command": "git-lore hook session-end"}]}]}}"#;
        let v = value(&remove(shared, Agent::Claude).unwrap().text);
        assert_eq!(
            v,
            serde_json::json!({"hooks": {"SessionEnd": [{"hooks": [{"type": "command", "command": "theirs"}]}]}})
        );
    }

    #[test]
    fn remove_leaves_the_users_own_commands_and_names_what_it_removed() {
        let theirs = [
            "notify-send done; git-lore hook session-end",
            "GIT_LORE_HOOK_ACTIVE=1 my-script git-lore hook session-end",
            "/opt/bin/git-lore hook session-end --verbose",
        ];
        let hooks: Vec<Value> = theirs
            .iter()
            .chain(["/opt/bin/git-lore hook session-end"].iter())
            .map(|c| serde_json::json!({"type": "command", "command": c}))
            .collect();
        let text = serde_json::json!({"hooks": {"SessionEnd": [{"hooks": hooks}]}}).to_string();
        let e = remove(&text, Agent::Claude).unwrap();
        assert_eq!(
            e.changes,
            ["removed the SessionEnd hook `/opt/bin/git-lore hook session-end`"]
        );
        let left: Vec<String> = value(&e.text)["hooks"]["SessionEnd"][0]["hooks"]
            .as_array()
            .unwrap()
            .iter()
            .map(|h| h["command"].as_str().unwrap().to_owned())
            .collect();
        assert_eq!(left, theirs);
        // Theirs alone: nothing is ours, nothing changes.
        let only_theirs = remove(&e.text, Agent::Claude).unwrap();
        assert!(only_theirs.changes.is_empty());
        assert_eq!(only_theirs.text, e.text);
    }

    #[test]
    fn an_entry_of_ours_without_a_timeout_gets_one_once() {
        let by_hand = r#"{"hooks": {"SessionEnd": [{"matcher": "", "hooks": [{"type": "command", "command": "git-lore hook session-end"}]}], "SessionStart": [{"hooks": [{"type": "command", "command": "git-lore hook session-start", "timeout": 3}]}]}}"#;
        let e = install(by_hand, Agent::Claude).unwrap();
        assert_eq!(
            e.changes,
            ["added a timeout of 10 s to the SessionEnd hook `git-lore hook session-end`"]
        );
        let v = value(&e.text);
        assert_eq!(
            v["hooks"]["SessionEnd"],
            serde_json::json!([{"matcher": "", "hooks": [{"type": "command", "command": "git-lore hook session-end", "timeout": 10}]}])
        );
        assert_eq!(
            v["hooks"]["SessionStart"][0]["hooks"][0]["timeout"], 3,
            "a timeout the user set stays"
        );
        let again = install(&e.text, Agent::Claude).unwrap();
        assert!(again.changes.is_empty(), "{:?}", again.changes);
        assert_eq!(again.text, e.text);
    }

    #[test]
    fn a_file_with_comments_is_refused_as_not_json() {
        for (text, line) in [
            ("// a comment\n{}", 1),
            ("{\n  \"model\": \"opus\", // mine\n  \"x\": 1\n}", 2),
            ("{\n  \"model\": \"opus\",\n  /* mine */\n  \"x\": 1\n}", 3),
            ("{\"model\": \"opus\" /* mine */}", 1),
            // serde_json counts columns in bytes: a character of two
            // bytes before the comment must not hide it.
            ("{\"model\": \"opüs\", // mine\n}", 1),
        ] {
            let e = install(text, Agent::Claude).unwrap_err().to_string();
            assert!(
                e.starts_with(&format!(
                    "it has a comment (line {line}), and comments are not JSON; setup will not rewrite it"
                )),
                "{text}: {e}"
            );
        }
    }

    #[test]
    fn files_it_cannot_read_safely_are_refused() {
        for (text, why) in [
            ("[1, 2]", "it is not a JSON object"),
            ("{\"model\": ", "it is not a JSON object"),
            ("{\"hooks\": []}", "its \"hooks\" is not an object"),
            (
                "{\"hooks\": {\"SessionEnd\": {}}}",
                "its \"hooks\".\"SessionEnd\" is not an array",
            ),
        ] {
            let e = install(text, Agent::Claude).unwrap_err().to_string();
            assert!(e.starts_with(why), "{text}: {e}");
            assert!(remove(text, Agent::Claude).is_err(), "{text}");
        }
    }

    #[test]
    fn apply_backs_up_before_it_changes_and_never_over_a_backup() {
        let d = tempfile::tempdir().unwrap();
        let path = d.path().join(".claude/settings.json");
        // No file: created, no backup.
        let a = apply_claude(&path, false, false, "20260805T100000Z").unwrap();
        assert!(a.written && a.backup.is_none());
        // Unchanged: nothing written, no backup.
        let a = apply_claude(&path, false, false, "20260805T100000Z").unwrap();
        assert!(!a.written && a.backup.is_none());
        let installed = std::fs::read_to_string(&path).unwrap();
        // Dry run: nothing written.
        let a = apply_claude(&path, true, true, "20260805T100000Z").unwrap();
        assert!(!a.written && a.edit.changes.len() == 2);
        assert_eq!(std::fs::read_to_string(&path).unwrap(), installed);
        let mut backups = Vec::new();
        for _ in 0..2 {
            let a = apply_claude(&path, true, false, "20260805T100000Z").unwrap();
            let b = a.backup.unwrap();
            assert_eq!(std::fs::read_to_string(&b).unwrap(), installed);
            assert!(b
                .file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with("settings.json.git-lore-backup-20260805T100000Z"));
            backups.push(b);
            apply_claude(&path, false, false, "20260805T100000Z").unwrap();
        }
        assert_ne!(
            backups[0], backups[1],
            "an earlier backup is never overwritten"
        );
        std::fs::write(&path, "not json").unwrap();
        assert!(apply_claude(&path, false, false, "x").is_err());
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            "not json",
            "left alone"
        );
    }

    fn refusal(r: Result<Applied, LoreError>) -> String {
        match r {
            Err(LoreError::Input { why, .. }) => why,
            Err(LoreError::Invalid { source, .. }) => source.to_string(),
            other => panic!("not refused: {other:?}"),
        }
    }

    #[test]
    fn apply_writes_through_a_symlink_and_backs_up_next_to_its_target() {
        let d = tempfile::tempdir().unwrap();
        let dotfiles = d.path().join("dotfiles");
        std::fs::create_dir_all(&dotfiles).unwrap();
        std::fs::create_dir_all(d.path().join(".claude")).unwrap();
        let target = dotfiles.join("claude-settings.json");
        std::fs::write(&target, "{\"model\": \"opus\"}\n").unwrap();
        let link = d.path().join(".claude/settings.json");
        std::os::unix::fs::symlink(&target, &link).unwrap();
        let a = apply_claude(&link, false, false, "S").unwrap();
        assert!(a.written);
        assert!(
            std::fs::symlink_metadata(&link)
                .unwrap()
                .file_type()
                .is_symlink(),
            "the link stays a link"
        );
        let v = value(&std::fs::read_to_string(&target).unwrap());
        assert_eq!(v["model"], "opus");
        assert_eq!(v["hooks"].as_object().unwrap().len(), 2);
        assert_eq!(a.backup.unwrap().parent().unwrap(), dotfiles);
        // A dangling link is refused, and left dangling.
        std::fs::remove_file(&target).unwrap();
        let why = refusal(apply_claude(&link, false, false, "S"));
        assert!(
            why.starts_with(&format!(
                "it is a symlink to {}, which cannot be followed",
                target.display()
            )),
            "{why}"
        );
        assert!(!target.exists());
        // A dangling .claude directory link: said so.
        let home = d.path().join("home");
        std::fs::create_dir_all(&home).unwrap();
        std::os::unix::fs::symlink(d.path().join("gone"), home.join(".claude")).unwrap();
        let r = apply_claude(&home.join(".claude/settings.json"), false, false, "S");
        match r {
            Err(LoreError::Input { what, why }) => {
                assert!(what.starts_with("directory "), "{what}");
                assert!(
                    why.contains("which does not exist; create that directory or remove the link"),
                    "{why}"
                );
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_file_over_the_limit_is_too_large_even_when_the_cut_splits_a_character() {
        let d = tempfile::tempdir().unwrap();
        let path = d.path().join("settings.json");
        let open = || std::fs::File::open(&path).unwrap();
        // "é" is two bytes: reading a limit of 4 and one byte more cuts
        // the third in half.
        std::fs::write(&path, "ééé").unwrap();
        assert_eq!(read_bounded(open(), 4).unwrap(), Loaded::TooLarge(6));
        assert_eq!(read_bounded(open(), 6).unwrap(), Loaded::Text("ééé".into()));
        std::fs::write(&path, b"\xff\xfe").unwrap();
        assert_eq!(read_bounded(open(), 6).unwrap(), Loaded::NotUtf8);
        assert_eq!(read_bounded(open(), 1).unwrap(), Loaded::TooLarge(2));
    }

    #[test]
    fn a_file_too_large_is_left_alone_and_a_dry_run_gives_the_entry_to_add_by_hand() {
        let d = tempfile::tempdir().unwrap();
        let path = d.path().join("settings.json");
        // Over the limit, and cut inside a character by the read of the
        // limit and one byte more.
        let big = format!(
            "{{\"k\":\"{}\"}}",
            "é".repeat(MAX_SETTINGS_BYTES as usize / 2)
        );
        std::fs::write(&path, &big).unwrap();
        let size = big.len();
        assert_eq!(
            refusal(apply(&path, Agent::Claude, false, false, "S")),
            format!("it is too large to edit safely ({size} bytes, limit {MAX_SETTINGS_BYTES}); left alone: run setup again with --dry-run to print the entry, and merge it into the file by hand")
        );
        let dry = apply(&path, Agent::Claude, false, true, "S").unwrap();
        assert_eq!(dry.too_large, Some(size as u64));
        assert_eq!(dry.edit.text, install("", Agent::Claude).unwrap().text);
        assert!(!dry.edit.changes.is_empty());
        assert!(!dry.written);
        assert_eq!(std::fs::read_to_string(&path).unwrap(), big);
        let dry = apply(&path, Agent::Claude, true, true, "S").unwrap();
        assert!(dry.edit.changes.is_empty());
        assert_eq!(dry.too_large, Some(size as u64));
    }

    #[test]
    fn apply_refuses_a_read_only_file_and_one_that_is_not_utf8() {
        use std::os::unix::fs::PermissionsExt;
        let d = tempfile::tempdir().unwrap();
        let path = d.path().join("settings.json");
        std::fs::write(&path, "{}").unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o444)).unwrap();
        let why = refusal(apply_claude(&path, false, false, "S"));
        assert!(
            why.starts_with("it is read-only; make it writable (chmod u+w)"),
            "{why}"
        );
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "{}");
        // A dry run still shows the change.
        assert!(apply_claude(&path, false, true, "S").is_ok());
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).unwrap();
        std::fs::write(&path, b"{\"a\": \"\xff\"}").unwrap();
        let why = refusal(apply_claude(&path, false, false, "S"));
        assert!(
            why.starts_with("it is not UTF-8 text; setup will not rewrite it"),
            "{why}"
        );
    }
}
