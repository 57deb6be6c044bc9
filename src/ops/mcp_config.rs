//! `git lore setup mcp`: the `git-lore` MCP server (`git-lore mcp`)
//! added to (or taken out of) an MCP client's configuration: Claude Code's
//! and Cursor's JSON (`mcpServers`), Codex's TOML (`[mcp_servers]`).
//!
//! [`install`] and [`remove`] are pure, text in and text out, and keep
//! everything else in the file as it was: in JSON other keys byte for byte
//! and in their order, in TOML comments and layout too (`toml_edit`). They
//! are idempotent. An entry is git-lore's when it runs `git-lore` (by name
//! or by an absolute path) with `mcp` as its first argument; its other
//! arguments and keys (`--project`, `env`) are the user's and are kept.
//! An entry named `git-lore` that runs anything else is another server:
//! setup refuses to touch it rather than overwrite it. The file work
//! (bounded read, backup, atomic replace) is [`super::setup::apply_edit`]'s;
//! where each client keeps its file is the caller's.
//!
//! It never prints and reads no environment, file or clock.

use indexmap::IndexMap;
use serde_json::Value;

use super::setup::{parse_object, Edit, Node, SetupError};

/// The name the server is configured under.
pub const NAME: &str = "git-lore";

/// The program and arguments every client starts.
pub const COMMAND: &str = "git-lore";
pub const ARGS: [&str; 1] = ["mcp"];

/// An MCP client setup configures.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Client {
    /// Claude Code: `.mcp.json` (project) or `~/.claude.json` (user).
    Claude,
    /// Codex CLI: `.codex/config.toml` (project) or `~/.codex/config.toml`.
    Codex,
    /// Cursor: `.cursor/mcp.json` (project) or `~/.cursor/mcp.json`.
    Cursor,
}

impl Client {
    /// Its configuration file, relative to the project's top directory
    /// (`project`) or to the home directory.
    pub fn file(self, project: bool) -> &'static str {
        match (self, project) {
            (Client::Claude, true) => ".mcp.json",
            (Client::Claude, false) => ".claude.json",
            (Client::Codex, _) => ".codex/config.toml",
            (Client::Cursor, _) => ".cursor/mcp.json",
        }
    }

    /// The server's entry as the client's documentation writes it, its
    /// keys in that order.
    fn entry(self) -> Node {
        let mut keys: Vec<(&str, Value)> = Vec::new();
        if self == Client::Claude {
            keys.push(("type", Value::from("stdio")));
        }
        keys.push(("command", Value::from(COMMAND)));
        keys.push(("args", Value::from(ARGS.to_vec())));
        Node::Map(
            keys.into_iter()
                .map(|(k, v)| (k.to_owned(), Node::Value(v)))
                .collect(),
        )
    }
}

/// Whether `command` with `args` is git-lore's server.
fn is_ours(command: &str, args: &[&str]) -> bool {
    let program = command == COMMAND
        || (command.starts_with('/')
            && command.ends_with("/git-lore")
            && !command.contains(char::is_whitespace));
    program && args.first() == Some(&ARGS[0])
}

/// What an existing entry named [`NAME`] is.
enum Found {
    Ours,
    /// Another server: what it runs, as setup says it.
    Theirs(String),
}

fn judge(command: Option<&str>, args: Vec<&str>) -> Found {
    match command {
        Some(c) if is_ours(c, &args) => Found::Ours,
        Some(c) => Found::Theirs(
            std::iter::once(c)
                .chain(args)
                .collect::<Vec<_>>()
                .join(" ")
                .chars()
                .take(120)
                .collect(),
        ),
        None => Found::Theirs("no command".into()),
    }
}

fn taken(client: Client, how: String) -> SetupError {
    let key = match client {
        Client::Codex => format!("mcp_servers.{NAME}"),
        _ => format!("\"mcpServers\".{NAME:?}"),
    };
    SetupError::Taken {
        key,
        command: crate::content::text::terminal(&how),
    }
}

fn added() -> String {
    format!(
        "added the MCP server {NAME} (`{COMMAND} {}`)",
        ARGS.join(" ")
    )
}

fn removed() -> String {
    format!("removed the MCP server {NAME}")
}

/// Adds the server to the configuration `text` of `client`, unless it is
/// there.
pub fn install(client: Client, text: &str) -> Result<Edit, SetupError> {
    match client {
        Client::Codex => toml_edit(client, text, true),
        Client::Claude | Client::Cursor => json_edit(client, text, true),
    }
}

/// Takes the server (and nothing else) out of the configuration `text` of
/// `client`; a server table left empty goes too.
pub fn remove(client: Client, text: &str) -> Result<Edit, SetupError> {
    match client {
        Client::Codex => toml_edit(client, text, false),
        Client::Claude | Client::Cursor => json_edit(client, text, false),
    }
}

fn unchanged(text: &str) -> Edit {
    Edit {
        text: text.to_owned(),
        changes: Vec::new(),
    }
}

fn json_edit(client: Client, text: &str, install: bool) -> Result<Edit, SetupError> {
    let top = parse_object(text).map_err(|e| match e {
        SetupError::Comment(line) => SetupError::McpComment(line),
        e => e,
    })?;
    let shape = || SetupError::Shape("\"mcpServers\"".into(), "an object");
    let servers: IndexMap<String, Box<serde_json::value::RawValue>> = match top.get("mcpServers") {
        None => IndexMap::new(),
        Some(raw) => serde_json::from_str(raw.get()).map_err(|_| shape())?,
    };
    let found = match servers.get(NAME) {
        None => None,
        Some(raw) => {
            let v: Value = serde_json::from_str(raw.get()).map_err(|_| shape())?;
            let args: Vec<&str> = v
                .get("args")
                .and_then(Value::as_array)
                .map(|a| a.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            Some(judge(v.get("command").and_then(Value::as_str), args))
        }
    };
    let mut servers: IndexMap<String, Node> = servers
        .into_iter()
        .map(|(k, v)| (k, Node::Raw(v)))
        .collect();
    let change = match (found, install) {
        (Some(Found::Theirs(how)), _) => return Err(taken(client, how)),
        (Some(Found::Ours), true) | (None, false) => return Ok(unchanged(text)),
        (None, true) => {
            servers.insert(NAME.to_owned(), client.entry());
            added()
        }
        (Some(Found::Ours), false) => {
            servers.shift_remove(NAME);
            removed()
        }
    };
    let mut out: IndexMap<String, Node> = top.into_iter().map(|(k, v)| (k, Node::Raw(v))).collect();
    if servers.is_empty() {
        out.shift_remove("mcpServers");
    } else {
        out.insert("mcpServers".into(), Node::Map(servers));
    }
    let mut text = serde_json::to_string_pretty(&out).expect("serialisable");
    text.push('\n');
    Ok(Edit {
        text,
        changes: vec![change],
    })
}

fn toml_edit(client: Client, text: &str, install: bool) -> Result<Edit, SetupError> {
    let mut doc: toml_edit::DocumentMut = text.parse().map_err(|e: toml_edit::TomlError| {
        let line = e
            .span()
            .map(|s| text[..s.start.min(text.len())].lines().count().max(1))
            .unwrap_or(1);
        SetupError::NotToml {
            line,
            message: e.message().to_owned(),
        }
    })?;
    let shape = || SetupError::Shape("mcp_servers".into(), "a table");
    let found = match doc.get("mcp_servers") {
        None => None,
        Some(item) => {
            let servers = item.as_table_like().ok_or_else(shape)?;
            match servers.get(NAME) {
                None => None,
                Some(entry) => {
                    let entry = entry.as_table_like().ok_or_else(|| {
                        SetupError::Shape(format!("mcp_servers.{NAME}"), "a table")
                    })?;
                    let args: Vec<&str> = entry
                        .get("args")
                        .and_then(|a| a.as_array())
                        .map(|a| a.iter().filter_map(|v| v.as_str()).collect())
                        .unwrap_or_default();
                    Some(judge(entry.get("command").and_then(|c| c.as_str()), args))
                }
            }
        }
    };
    let change = match (found, install) {
        (Some(Found::Theirs(how)), _) => return Err(taken(client, how)),
        (Some(Found::Ours), true) | (None, false) => return Ok(unchanged(text)),
        (None, true) => {
            if doc.get("mcp_servers").is_none() {
                let mut t = toml_edit::Table::new();
                t.set_implicit(true);
                doc.insert("mcp_servers", toml_edit::Item::Table(t));
            }
            let servers = doc["mcp_servers"].as_table_like_mut().ok_or_else(shape)?;
            let mut entry = toml_edit::Table::new();
            entry.insert("command", toml_edit::value(COMMAND));
            entry.insert(
                "args",
                toml_edit::value(ARGS.iter().copied().collect::<toml_edit::Array>()),
            );
            servers.insert(NAME, toml_edit::Item::Table(entry));
            added()
        }
        (Some(Found::Ours), false) => {
            let servers = doc["mcp_servers"].as_table_like_mut().ok_or_else(shape)?;
            servers.remove(NAME);
            if servers.is_empty() {
                doc.remove("mcp_servers");
            }
            removed()
        }
    };
    let mut text = doc.to_string();
    if !text.ends_with('\n') {
        text.push('\n');
    }
    Ok(Edit {
        text,
        changes: vec![change],
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn value(text: &str) -> Value {
        serde_json::from_str(text).unwrap()
    }

    #[test]
    fn json_clients_get_their_entry_and_keep_everything_else() {
        let theirs = "{\n  \"theme\": \"dark\",\n  \"mcpServers\": {\"other\": {\"command\": \"x\"}},\n  \"z\": [1, 2]\n}\n";
        let e = install(Client::Cursor, theirs).unwrap();
        assert_eq!(
            e.changes,
            ["added the MCP server git-lore (`git-lore mcp`)"]
        );
        assert_eq!(
            e.text,
            "{\n  \"theme\": \"dark\",\n  \"mcpServers\": {\n    \"other\": {\"command\": \"x\"},\n    \"git-lore\": {\n      \"command\": \"git-lore\",\n      \"args\": [\n        \"mcp\"\n      ]\n    }\n  },\n  \"z\": [1, 2]\n}\n"
        );
        assert_eq!(
            install(Client::Cursor, &e.text).unwrap().changes,
            Vec::<String>::new()
        );
        let back = remove(Client::Cursor, &e.text).unwrap();
        assert_eq!(back.changes, ["removed the MCP server git-lore"]);
        assert_eq!(value(&back.text), value(theirs));
        // Claude Code's entry names its transport; an empty file is an
        // empty object, and a table left empty goes.
        let e = install(Client::Claude, "").unwrap();
        assert_eq!(
            value(&e.text),
            serde_json::json!({"mcpServers": {"git-lore": {"type": "stdio", "command": "git-lore", "args": ["mcp"]}}})
        );
        assert_eq!(remove(Client::Claude, &e.text).unwrap().text, "{}\n");
        assert!(remove(Client::Claude, "{}").unwrap().changes.is_empty());
    }

    #[test]
    fn an_entry_of_ours_by_path_or_with_more_arguments_is_ours_and_another_server_is_refused() {
        let ours = r#"{"mcpServers": {"git-lore": {"command": "/opt/bin/git-lore", "args": ["mcp", "--project", "."], "env": {"A": "1"}}}}"#;
        assert!(install(Client::Claude, ours).unwrap().changes.is_empty());
        assert_eq!(remove(Client::Claude, ours).unwrap().text, "{}\n");
        let theirs = r#"{"mcpServers": {"git-lore": {"command": "npx", "args": ["lore-server"]}}}"#;
        for e in [
            install(Client::Cursor, theirs),
            remove(Client::Cursor, theirs),
        ] {
            assert_eq!(
                e.unwrap_err().to_string(),
                "its \"mcpServers\".\"git-lore\" is another server (it runs `npx lore-server`); rename or remove that entry, then run setup again"
            );
        }
        assert_eq!(
            install(Client::Cursor, "{\n  // mine\n}").unwrap_err().to_string(),
            "it has a comment (line 2), and comments are not JSON; setup will not rewrite it: take the comments out, or add the server by hand (see docs/mcp.md)"
        );
        assert_eq!(
            install(Client::Cursor, r#"{"mcpServers": []}"#)
                .unwrap_err()
                .to_string(),
            "its \"mcpServers\" is not an object; fix it by hand, then run setup again"
        );
    }

    #[test]
    fn codex_gets_a_toml_table_and_keeps_comments_and_layout() {
        let theirs =
            "# my codex\nmodel = \"o3\"  # fast\n\n[mcp_servers.docs]\ncommand = \"docs-mcp\"\n";
        let e = install(Client::Codex, theirs).unwrap();
        assert_eq!(
            e.changes,
            ["added the MCP server git-lore (`git-lore mcp`)"]
        );
        assert_eq!(
            e.text,
            "# my codex\nmodel = \"o3\"  # fast\n\n[mcp_servers.docs]\ncommand = \"docs-mcp\"\n\n[mcp_servers.git-lore]\ncommand = \"git-lore\"\nargs = [\"mcp\"]\n"
        );
        assert!(install(Client::Codex, &e.text).unwrap().changes.is_empty());
        assert_eq!(remove(Client::Codex, &e.text).unwrap().text, theirs);
        let fresh = install(Client::Codex, "").unwrap();
        assert_eq!(
            fresh.text,
            "[mcp_servers.git-lore]\ncommand = \"git-lore\"\nargs = [\"mcp\"]\n"
        );
        assert_eq!(remove(Client::Codex, &fresh.text).unwrap().text, "\n");
        let other = "[mcp_servers.git-lore]\ncommand = \"python\"\nargs = [\"-m\", \"lore\"]\n";
        assert_eq!(
            install(Client::Codex, other).unwrap_err().to_string(),
            "its mcp_servers.git-lore is another server (it runs `python -m lore`); rename or remove that entry, then run setup again"
        );
        let bad = install(Client::Codex, "model = \n")
            .unwrap_err()
            .to_string();
        assert!(bad.starts_with("it is not TOML (line 1: "), "{bad}");
        assert_eq!(
            install(Client::Codex, "mcp_servers = 3\n")
                .unwrap_err()
                .to_string(),
            "its mcp_servers is not a table; fix it by hand, then run setup again"
        );
    }
}
