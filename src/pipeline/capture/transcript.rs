//! Reading a coding agent's session transcript: JSON Lines, one event per
//! line, streamed from any reader and bounded everywhere. Two formats are
//! read, told apart by their lines, never by a file name ([`Format`]): a
//! Claude Code transcript (below) and a Codex CLI rollout
//! ([`super::codex`]), both into the same [`Transcript`].
//!
//! A line is a JSON object with `type` (`user`, `assistant`, `system`,
//! `summary`, …), `uuid`, `parentUuid`, `sessionId`, `cwd`, `timestamp`
//! (RFC 3339), `isSidechain` and, for user and assistant events,
//! `message.content`: a string, or an array of blocks — `text`, `tool_use`
//! `{id, name, input}`, `tool_result` `{tool_use_id, content, is_error}`
//! (content a string or blocks), `thinking`. System events carry a string
//! `content` at the top level.
//!
//! What is kept of each event ([`Event`]) is only what capture uses: uuid,
//! parent uuid, role, its own `sessionId`, timestamp, whether it is a
//! subagent's, and its blocks — text (at most [`Limits::max_text_chars`]),
//! a tool call's name and a one-line summary of its input (at most
//! [`Limits::max_tool_input_chars`]) with the file it edits, a tool result's
//! text (its first and last halves of [`Limits::max_tool_result_chars`]).
//! Thinking, images, usage and every other key are dropped.
//!
//! Bounds (the defaults are the `MAX_*` constants):
//! - **A line** longer than [`MAX_LINE_BYTES`] is skipped and counted in
//!   `skipped_oversized`, without being held in memory; reading goes on.
//! - **The transcript**: at most [`MAX_TRANSCRIPT_BYTES`] are read.
//!   [`read_transcript`] reads from the start and stops at the cap
//!   (`truncated`); [`read_transcript_tail`] seeks to the last cap's worth of
//!   bytes and starts at the first whole line there (`skipped_head_bytes`),
//!   because the newest part of a long session is the part no earlier
//!   capture has seen. [`Transcript::notes`] says so in words.
//! - **Hostile lines** never fail the read: a line that is not a JSON object
//!   (including nesting past serde_json's depth limit, and a last line cut
//!   mid-write while the session runs) and a user, assistant or system
//!   event without a usable uuid are skipped and counted in
//!   `skipped_malformed`; a line that is not UTF-8 (one bad byte is
//!   enough; it is not decoded lossily) is skipped and counted in
//!   `skipped_not_utf8`, so the note gives the right cause. Lines of other types (`summary`,
//!   `file-history-snapshot`, …) are `ignored`. An event whose uuid was
//!   already read (a resumed session may replay) is counted in `duplicates`
//!   and the first one is kept.
//! - **Ids** (`uuid`, `parentUuid`, `sessionId`, tool ids) are 1 to
//!   [`MAX_ID_CHARS`] characters of ASCII letters, digits, `-`, `_`, `.` and
//!   `:`; they go into prompts, hashes and records, so anything else is not
//!   an id. A bad `uuid` makes the event malformed; a bad optional id is
//!   dropped.
//!
//! Only an I/O error from the reader fails ([`TranscriptError`]). This module
//! must not decide what a moment is, call a model, or touch the file system:
//! the caller opens the file and hands over the reader.

use std::collections::HashSet;
use std::fmt;
use std::io::{self, Read, Seek, SeekFrom};

use serde_json::{Map, Value};

use super::lines::{Lines, Step};
use super::text::{clip, collapse, has_control, head_tail, sanitize};

/// The longest line read (2 MiB). Claude Code cuts tool output long before
/// this; lines past it are pasted images and dumps, skipped and counted.
pub const MAX_LINE_BYTES: usize = 2 << 20;

/// The most of a transcript read (32 MiB): long sessions stay well under it,
/// and it bounds memory and time for any file.
pub const MAX_TRANSCRIPT_BYTES: u64 = 32 << 20;

/// The most kept of one text block, in characters.
pub const MAX_TEXT_CHARS: usize = 16_000;

/// The most kept of one tool result, in characters (its first and last halves).
pub const MAX_TOOL_RESULT_CHARS: usize = 12_000;

/// The most kept of a tool call's input summary, in characters.
pub const MAX_TOOL_INPUT_CHARS: usize = 400;

/// The longest id (uuid, session id, tool id), in characters.
pub const MAX_ID_CHARS: usize = 128;

/// The longest path or cwd kept, in characters.
pub const MAX_PATH_CHARS: usize = 4096;

/// What a file that is neither format is told: what each format's lines
/// are.
pub const NEITHER: &str = "no session events found: this is neither a Claude Code transcript (lines with type user, assistant or system and a uuid) nor a Codex rollout (lines with type session_meta, response_item, event_msg or turn_context and an object payload)";

/// The caps a read works under.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Lines longer than this (bytes, without the newline) are skipped.
    pub max_line_bytes: usize,
    /// At most this many bytes of the transcript are read.
    pub max_total_bytes: u64,
    /// A text block is cut to this many characters.
    pub max_text_chars: usize,
    /// A tool result keeps this many characters, half from each end.
    pub max_tool_result_chars: usize,
    /// A tool call's input summary is cut to this many characters.
    pub max_tool_input_chars: usize,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            max_line_bytes: MAX_LINE_BYTES,
            max_total_bytes: MAX_TRANSCRIPT_BYTES,
            max_text_chars: MAX_TEXT_CHARS,
            max_tool_result_chars: MAX_TOOL_RESULT_CHARS,
            max_tool_input_chars: MAX_TOOL_INPUT_CHARS,
        }
    }
}

/// Which agent wrote a transcript, as its lines say.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// Claude Code: lines of type `user`, `assistant`, `system` (and
    /// `summary`, `file-history-snapshot`, …), each event with a `uuid`.
    ClaudeCode,
    /// Codex CLI: lines `{timestamp, type, payload}` of type `session_meta`,
    /// `response_item`, `event_msg`, `turn_context` or `compacted`.
    Codex,
}

impl Format {
    /// The agent's name, for messages.
    pub fn agent(self) -> &'static str {
        match self {
            Format::ClaudeCode => "Claude Code",
            Format::Codex => "Codex",
        }
    }

    /// The format a JSON object line belongs to, if it says: a Claude Code
    /// event or bookkeeping type, or a Codex rollout line (a known type and
    /// an object `payload`). Anything else decides nothing.
    fn of_line(map: &Map<String, Value>) -> Option<Format> {
        match map.get("type").and_then(Value::as_str)? {
            "user" | "assistant" | "system" | "summary" | "file-history-snapshot" => {
                Some(Format::ClaudeCode)
            }
            t if super::codex::LINE_TYPES.contains(&t)
                && map.get("payload").is_some_and(Value::is_object) =>
            {
                Some(Format::Codex)
            }
            _ => None,
        }
    }
}

/// Why a transcript could not be read at all.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum TranscriptError {
    /// The reader failed (not a malformed line: those are skipped).
    #[error("could not read the transcript: {0}")]
    Io(#[source] crate::cause::IoCause),
}

impl From<io::Error> for TranscriptError {
    fn from(e: io::Error) -> TranscriptError {
        TranscriptError::Io(e.into())
    }
}

/// Who wrote an event.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Role {
    /// A person's prompt, or the tool results handed back to the model.
    User,
    /// The model.
    Assistant,
    /// The harness (compaction notices, hook output, …).
    System,
}

impl Role {
    /// The transcript's spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            Role::User => "user",
            Role::Assistant => "assistant",
            Role::System => "system",
        }
    }
}

/// One kept content block.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Block {
    /// Prose (a prompt, the model's answer, a system notice).
    Text(String),
    /// A tool call.
    ToolUse {
        /// The call's id (tool results name it).
        id: String,
        /// The tool (`Bash`, `Edit`, `mcp__server__tool`, …).
        name: String,
        /// One line saying what the call does (a command, a path, a query).
        input: String,
        /// The file the call reads or writes (`file_path` or `notebook_path`).
        path: Option<String>,
        /// For an edit of a manifest (`package.json`, `Cargo.toml`, …): each
        /// replaced text and its replacement (`Write`: nothing, then the
        /// whole content), at most [`MAX_EDITS`] of [`MAX_EDIT_CHARS`] each.
        /// What a session changed in a manifest is evidence
        /// (`crate::facts::manifest::edit_changes`).
        edits: Vec<(String, String)>,
    },
    /// A tool's answer.
    ToolResult {
        /// The id of the call it answers.
        tool_use_id: String,
        /// Its text, first and last parts kept.
        text: String,
        /// Whether the tool reported an error.
        is_error: bool,
    },
}

/// One transcript event, reduced to what capture uses.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Event {
    /// The event's own uuid: what a moment cites.
    pub uuid: String,
    /// The event it answers, if any.
    pub parent_uuid: Option<String>,
    /// Who wrote it.
    pub role: Role,
    /// The `sessionId` written on this line. A resumed session writes new
    /// events under a new id while earlier ones keep theirs.
    pub session_id: Option<String>,
    /// When it was written; `None` when absent or not RFC 3339.
    pub timestamp: Option<jiff::Timestamp>,
    /// Whether a subagent wrote it (`isSidechain`).
    pub sidechain: bool,
    /// The kept blocks, in order.
    pub blocks: Vec<Block>,
}

impl Event {
    /// Whether this is a person's turn: a user event with text (tool results
    /// come back in user events too, and are not turns).
    pub fn is_prompt(&self) -> bool {
        self.role == Role::User && self.blocks.iter().any(|b| matches!(b, Block::Text(_)))
    }
}

/// A transcript as read: its events and what was skipped.
#[derive(Clone, Debug, PartialEq)]
pub struct Transcript {
    /// Which agent wrote it, from the first line that says; `None` when no
    /// line does (an empty file, or one that is neither format).
    pub format: Option<Format>,
    /// The `sessionId` of the last event that has one: the session that
    /// wrote last. (A Codex rollout: its `session_meta` id.)
    pub session_id: Option<String>,
    /// The `cwd` of the first event that has one: where the session started.
    pub cwd: Option<String>,
    /// The events, in file order, first occurrence of each uuid.
    pub events: Vec<Event>,
    /// Lines that are not JSON objects, or events without a usable uuid
    /// (the cut last line included).
    pub skipped_malformed: usize,
    /// Lines that are not UTF-8 (one bad byte is enough; the line is not
    /// decoded lossily, see docs/decisions.md).
    pub skipped_not_utf8: usize,
    /// Lines over the line cap.
    pub skipped_oversized: usize,
    /// Well-formed lines of a type capture does not use.
    pub ignored: usize,
    /// Events whose uuid was already read.
    pub duplicates: usize,
    /// Whether the last line was cut off (no newline, not JSON).
    pub partial_last_line: bool,
    /// Whether reading stopped at the total cap before the end.
    pub truncated: bool,
    /// Bytes before the first line read ([`read_transcript_tail`]).
    pub skipped_head_bytes: u64,
    /// Bytes read.
    pub bytes_read: u64,
    /// Where in the file reading began ([`read_transcript_from`]).
    pub start_offset: u64,
    /// Where in the file the last whole line read ends: where the next
    /// incremental read starts (a line cut mid-write is read again then).
    pub end_offset: u64,
    /// The caps the read used.
    pub limits: Limits,
}

/// Something the reader wants the person running capture to know.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Note {
    /// Lines skipped as malformed (the cut last line is reported apart),
    /// and what the format's lines need.
    Malformed {
        lines: usize,
        format: Option<Format>,
    },
    /// Lines skipped because they are not UTF-8.
    NotUtf8 { lines: usize },
    /// The last line was cut mid-write.
    PartialLastLine,
    /// Lines skipped for their length.
    Oversized { lines: usize, cap: usize },
    /// Replayed events skipped.
    Duplicates { events: usize },
    /// Reading stopped at the total cap.
    Truncated { cap: u64 },
    /// The start of the file was not read.
    HeadSkipped { bytes: u64, cap: u64 },
    /// Nothing in the file is a session event; the format, when a line
    /// said which.
    NoEvents(Option<Format>),
}

/// `2 MiB`, or `1000 bytes` when not a whole number of MiB.
fn size(bytes: u64) -> String {
    if bytes >= 1 << 20 && bytes.is_multiple_of(1 << 20) {
        format!("{} MiB", bytes >> 20)
    } else {
        format!("{bytes} bytes")
    }
}

fn plural(n: usize, one: &str, many: &str) -> String {
    if n == 1 {
        format!("1 {one}")
    } else {
        format!("{n} {many}")
    }
}

impl fmt::Display for Note {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Note::Malformed { lines, format } => write!(
                f,
                "skipped {}: not a JSON object, or {}",
                plural(*lines, "malformed line", "malformed lines"),
                if *format == Some(Format::Codex) {
                    "a rollout line without an object payload"
                } else {
                    "a session event without a usable uuid"
                }
            ),
            Note::NotUtf8 { lines } => write!(
                f,
                "skipped {}: not UTF-8 (a transcript is UTF-8 JSON, one event a line)",
                plural(*lines, "line", "lines")
            ),
            Note::PartialLastLine => f.write_str(
                "skipped the last line: it was cut off mid-write (the session may still be running)",
            ),
            Note::Oversized { lines, cap } => write!(
                f,
                "skipped {} over the {} line cap",
                plural(*lines, "line", "lines"),
                size(*cap as u64)
            ),
            Note::Duplicates { events } => write!(
                f,
                "skipped {} already read earlier in the transcript (a resumed session replays them)",
                plural(*events, "event whose uuid was", "events whose uuids were")
            ),
            Note::Truncated { cap } => write!(
                f,
                "stopped reading at the {} transcript cap: the rest of the transcript was not read, and moments in it are not captured",
                size(*cap)
            ),
            Note::HeadSkipped { bytes, cap } => write!(
                f,
                "the transcript is over the {} cap: only its last {} were read, and its first {bytes} bytes (captured by earlier runs, if any) were not",
                size(*cap),
                size(*cap)
            ),
            Note::NoEvents(Some(Format::ClaudeCode)) => f.write_str(
                "no session events found (lines with type user, assistant or system and a uuid)",
            ),
            Note::NoEvents(Some(Format::Codex)) => f.write_str(
                "no session events found (response_item lines of messages and tool calls): the rollout has no turn yet",
            ),
            Note::NoEvents(None) => f.write_str(NEITHER),
        }
    }
}

impl Transcript {
    /// What the person running capture should be told about this read.
    pub fn notes(&self) -> Vec<Note> {
        let mut out = Vec::new();
        let cut = usize::from(self.partial_last_line);
        if self.skipped_malformed > cut {
            out.push(Note::Malformed {
                lines: self.skipped_malformed - cut,
                format: self.format,
            });
        }
        if self.skipped_not_utf8 > 0 {
            out.push(Note::NotUtf8 {
                lines: self.skipped_not_utf8,
            });
        }
        if self.partial_last_line {
            out.push(Note::PartialLastLine);
        }
        if self.skipped_oversized > 0 {
            out.push(Note::Oversized {
                lines: self.skipped_oversized,
                cap: self.limits.max_line_bytes,
            });
        }
        if self.duplicates > 0 {
            out.push(Note::Duplicates {
                events: self.duplicates,
            });
        }
        if self.truncated {
            out.push(Note::Truncated {
                cap: self.limits.max_total_bytes,
            });
        }
        if self.skipped_head_bytes > 0 {
            out.push(Note::HeadSkipped {
                bytes: self.skipped_head_bytes,
                cap: self.limits.max_total_bytes,
            });
        }
        if self.events.is_empty() {
            out.push(Note::NoEvents(self.format));
        }
        out
    }

    /// The event with this uuid.
    pub fn event(&self, uuid: &str) -> Option<&Event> {
        self.events.iter().find(|e| e.uuid == uuid)
    }

    /// The bytes of text the events hold: what reading keeps in memory,
    /// besides the fixed size of each event.
    pub fn retained_bytes(&self) -> usize {
        self.events
            .iter()
            .map(|e| {
                e.uuid.len()
                    + e.parent_uuid.as_ref().map_or(0, String::len)
                    + e.session_id.as_ref().map_or(0, String::len)
                    + e.blocks
                        .iter()
                        .map(|b| match b {
                            Block::Text(t) => t.len(),
                            Block::ToolUse {
                                id,
                                name,
                                input,
                                path,
                                edits,
                            } => {
                                id.len()
                                    + name.len()
                                    + input.len()
                                    + path.as_ref().map_or(0, String::len)
                                    + edits.iter().map(|(a, b)| a.len() + b.len()).sum::<usize>()
                            }
                            Block::ToolResult {
                                tool_use_id, text, ..
                            } => tool_use_id.len() + text.len(),
                        })
                        .sum::<usize>()
            })
            .sum()
    }
}

/// Reads a transcript from the start, up to `limits.max_total_bytes`.
pub fn read_transcript<R: Read>(reader: R, limits: Limits) -> Result<Transcript, TranscriptError> {
    let mut lines = Lines::new(reader, limits.max_total_bytes, limits.max_line_bytes);
    read_lines(&mut lines, limits, 0, 0, Seed::default())
}

/// Reads the last `limits.max_total_bytes` of a transcript, from the first
/// whole line in them; a transcript within the cap is read whole.
pub fn read_transcript_tail<R: Read + Seek>(
    reader: R,
    limits: Limits,
) -> Result<Transcript, TranscriptError> {
    read_transcript_from(reader, 0, limits)
}

/// Reads a transcript from byte `from` (the [`Transcript::end_offset`] of
/// an earlier read: the start of a line) to its end, or its last
/// `limits.max_total_bytes` from their first whole line when that part is
/// longer. A `from` past the end (the file was replaced) reads from the
/// start. When the start of the file is not read, its first line is read
/// too, bounded, for what a Codex rollout says only there (the session id
/// and the directory, in `session_meta`).
pub fn read_transcript_from<R: Read + Seek>(
    mut reader: R,
    from: u64,
    limits: Limits,
) -> Result<Transcript, TranscriptError> {
    let len = reader.seek(SeekFrom::End(0))?;
    let from = if from > len { 0 } else { from };
    let cap = limits.max_total_bytes;
    let seed = if from > 0 || len - from > cap {
        reader.seek(SeekFrom::Start(0))?;
        let mut head = Lines::new(&mut reader, cap, limits.max_line_bytes);
        let mut buf = Vec::new();
        match head.next(&mut buf)? {
            Step::Line | Step::Partial => super::codex::seed(&buf),
            _ => Seed::default(),
        }
    } else {
        Seed::default()
    };
    if len - from <= cap {
        reader.seek(SeekFrom::Start(from))?;
        let mut lines = Lines::new(reader, cap, limits.max_line_bytes);
        return read_lines(&mut lines, limits, 0, from, seed);
    }
    // Start one byte early: if that byte is a newline, the window begins
    // with a whole line, and skipping "the rest of the line" skips only it.
    let at = len - cap - 1;
    reader.seek(SeekFrom::Start(at))?;
    let mut lines = Lines::new(reader, cap + 1, limits.max_line_bytes);
    let skipped = lines.skip_line()?;
    read_lines(&mut lines, limits, at + skipped - from, at, seed)
}

/// What a Codex rollout's first line says, for a read that does not start
/// there.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(super) struct Seed {
    pub(super) session_id: Option<String>,
    pub(super) cwd: Option<String>,
}

/// Reads `lines`, whose first byte is at `origin` in the file.
fn read_lines<R: Read>(
    lines: &mut Lines<R>,
    limits: Limits,
    skipped_head_bytes: u64,
    origin: u64,
    seed: Seed,
) -> Result<Transcript, TranscriptError> {
    let mut t = Transcript {
        format: None,
        session_id: None,
        cwd: None,
        events: Vec::new(),
        skipped_malformed: 0,
        skipped_not_utf8: 0,
        skipped_oversized: 0,
        ignored: 0,
        duplicates: 0,
        partial_last_line: false,
        truncated: false,
        skipped_head_bytes,
        bytes_read: 0,
        start_offset: (origin + lines.consumed).saturating_sub(skipped_head_bytes),
        end_offset: 0,
        limits,
    };
    let mut codex = super::codex::State::new(seed);
    let mut seen: HashSet<String> = HashSet::new();
    let mut buf = Vec::new();
    let start = lines.consumed;
    loop {
        let at = origin + lines.consumed;
        match lines.next(&mut buf)? {
            Step::Line => {
                take_line(&mut t, &mut seen, &mut codex, &buf, at);
            }
            Step::Partial => {
                let not_utf8 = t.skipped_not_utf8;
                if !take_line(&mut t, &mut seen, &mut codex, &buf, at) {
                    // A line cut mid-write may be cut inside a character:
                    // it is the cut last line, not a line of bad bytes.
                    if t.skipped_not_utf8 > not_utf8 {
                        t.skipped_not_utf8 -= 1;
                        t.skipped_malformed += 1;
                    }
                    t.partial_last_line = true;
                }
                break;
            }
            Step::Oversized => t.skipped_oversized += 1,
            Step::Eof => break,
            Step::Cap => {
                t.truncated = true;
                break;
            }
        }
    }
    t.bytes_read = lines.consumed - start;
    t.end_offset = origin + lines.whole.max(start);
    codex.finish(&mut t);
    Ok(t)
}

/// Reads one line into `t`, in the format the first line that says one
/// decided; false when it was malformed.
fn take_line(
    t: &mut Transcript,
    seen: &mut HashSet<String>,
    codex: &mut super::codex::State,
    line: &[u8],
    at: u64,
) -> bool {
    let line = line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(line);
    if line.iter().all(u8::is_ascii_whitespace) {
        return true;
    }
    if std::str::from_utf8(line).is_err() {
        t.skipped_not_utf8 += 1;
        return false;
    }
    let Ok(Value::Object(map)) = serde_json::from_slice::<Value>(line) else {
        t.skipped_malformed += 1;
        return false;
    };
    if t.format.is_none() {
        t.format = Format::of_line(&map);
    }
    match t.format {
        Some(Format::ClaudeCode) => claude_line(t, seen, &map),
        Some(Format::Codex) => codex.take(t, &map, at),
        None => {
            t.ignored += 1;
            true
        }
    }
}

/// Reads one Claude Code line into `t`; false when it was malformed.
fn claude_line(t: &mut Transcript, seen: &mut HashSet<String>, map: &Map<String, Value>) -> bool {
    let role = match map.get("type").and_then(Value::as_str) {
        Some("user") => Role::User,
        Some("assistant") => Role::Assistant,
        Some("system") => Role::System,
        _ => {
            t.ignored += 1;
            return true;
        }
    };
    let Some(uuid) = id(map.get("uuid")) else {
        t.skipped_malformed += 1;
        return false;
    };
    let session_id = id(map.get("sessionId"));
    if session_id.is_some() {
        t.session_id.clone_from(&session_id);
    }
    if t.cwd.is_none() {
        t.cwd = map
            .get("cwd")
            .and_then(Value::as_str)
            .filter(|c| !c.is_empty() && !has_control(c) && c.chars().count() <= MAX_PATH_CHARS)
            .map(str::to_owned);
    }
    if !seen.insert(uuid.clone()) {
        t.duplicates += 1;
        return true;
    }
    let content = match role {
        Role::System => map.get("content"),
        _ => map
            .get("message")
            .and_then(Value::as_object)
            .and_then(|m| m.get("content")),
    };
    t.events.push(Event {
        uuid,
        parent_uuid: id(map.get("parentUuid")),
        role,
        session_id,
        timestamp: map
            .get("timestamp")
            .and_then(Value::as_str)
            .and_then(|s| s.parse::<jiff::Timestamp>().ok()),
        sidechain: map.get("isSidechain").and_then(Value::as_bool) == Some(true),
        blocks: blocks(content, &t.limits),
    });
    true
}

/// A usable id: 1 to [`MAX_ID_CHARS`] characters of `[A-Za-z0-9._:-]`.
pub fn is_id(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= MAX_ID_CHARS
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b':'))
}

pub(super) fn id(v: Option<&Value>) -> Option<String> {
    v.and_then(Value::as_str)
        .filter(|s| is_id(s))
        .map(str::to_owned)
}

fn blocks(content: Option<&Value>, limits: &Limits) -> Vec<Block> {
    match content {
        Some(Value::String(s)) => text_block(s, limits).into_iter().collect(),
        Some(Value::Array(items)) => items
            .iter()
            .filter_map(Value::as_object)
            .filter_map(|b| block(b, limits))
            .collect(),
        _ => Vec::new(),
    }
}

pub(super) fn text_block(s: &str, limits: &Limits) -> Option<Block> {
    let s = sanitize(s);
    (!s.trim().is_empty()).then(|| Block::Text(clip(&s, limits.max_text_chars)))
}

fn block(b: &Map<String, Value>, limits: &Limits) -> Option<Block> {
    let str_of = |k: &str| b.get(k).and_then(Value::as_str);
    match str_of("type")? {
        "text" => text_block(str_of("text")?, limits),
        "tool_use" => {
            let name = str_of("name")
                .filter(|n| is_id(n) && n.len() <= 64)
                .unwrap_or("unknown");
            let input = b.get("input").unwrap_or(&Value::Null);
            let (summary, path) = tool_input(name, input, limits.max_tool_input_chars);
            let edits = manifest_edits(name, input, path.as_deref());
            Some(Block::ToolUse {
                id: id(b.get("id")).unwrap_or_default(),
                name: name.to_owned(),
                input: summary,
                path,
                edits,
            })
        }
        "tool_result" => {
            let text = match b.get("content") {
                Some(Value::String(s)) => s.clone(),
                Some(Value::Array(parts)) => parts
                    .iter()
                    .filter_map(Value::as_object)
                    .filter_map(|p| match p.get("type").and_then(Value::as_str) {
                        Some("text") => p.get("text").and_then(Value::as_str).map(str::to_owned),
                        Some("image") => Some("[image]".to_owned()),
                        _ => None,
                    })
                    .collect::<Vec<_>>()
                    .join("\n"),
                _ => String::new(),
            };
            let half = limits.max_tool_result_chars / 2;
            Some(Block::ToolResult {
                tool_use_id: id(b.get("tool_use_id")).unwrap_or_default(),
                text: head_tail(&sanitize(&text), half, limits.max_tool_result_chars - half),
                is_error: b.get("is_error").and_then(Value::as_bool) == Some(true),
            })
        }
        _ => None,
    }
}

/// The replaced and replacing texts of an edit of a manifest.
fn manifest_edits(name: &str, input: &Value, path: Option<&str>) -> Vec<(String, String)> {
    if path
        .and_then(crate::facts::manifest::Kind::of_path)
        .is_none()
    {
        return Vec::new();
    }
    let text = |v: &Value, k: &str| {
        v.get(k)
            .and_then(Value::as_str)
            .map(|s| clip(&sanitize(s), MAX_EDIT_CHARS))
    };
    match name {
        "Edit" => text(input, "old_string")
            .zip(text(input, "new_string"))
            .into_iter()
            .collect(),
        "MultiEdit" => input
            .get("edits")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .take(MAX_EDITS)
            .filter_map(|e| text(e, "old_string").zip(text(e, "new_string")))
            .collect(),
        "Write" => text(input, "content")
            .map(|c| (String::new(), c))
            .into_iter()
            .collect(),
        _ => Vec::new(),
    }
}

/// A one-line summary of a tool call's input, and the file it reads or writes.
fn tool_input(name: &str, input: &Value, max: usize) -> (String, Option<String>) {
    let field = |k: &str| {
        input
            .as_object()
            .and_then(|o| o.get(k))
            .and_then(Value::as_str)
            .map(|v| collapse(&sanitize(v)))
    };
    let path = field("file_path")
        .or_else(|| field("notebook_path"))
        .filter(|p| !p.is_empty() && !has_control(p) && p.chars().count() <= MAX_PATH_CHARS);
    let shown_path = path.clone().unwrap_or_default();
    let summary = match name {
        "Bash" => field("command").unwrap_or_default(),
        "Read" | "Write" | "NotebookRead" | "NotebookEdit" => shown_path,
        "Edit" => format!(
            "{shown_path}: {} → {}",
            clip(&field("old_string").unwrap_or_default(), 120),
            clip(&field("new_string").unwrap_or_default(), 120)
        ),
        "MultiEdit" => {
            let n = input
                .get("edits")
                .and_then(Value::as_array)
                .map_or(0, Vec::len);
            format!("{shown_path} ({})", plural(n, "edit", "edits"))
        }
        "Grep" => format!(
            "{} in {}",
            field("pattern").unwrap_or_default(),
            field("path").unwrap_or_else(|| ".".to_owned())
        ),
        "Glob" => field("pattern").unwrap_or_default(),
        "WebFetch" => field("url").unwrap_or_default(),
        "WebSearch" => field("query").unwrap_or_default(),
        "Task" => field("description").unwrap_or_default(),
        _ => collapse(&input.to_string()),
    };
    (clip(&summary, max), path)
}

/// The most manifest edits kept of one tool call.
pub const MAX_EDITS: usize = 20;

/// The most characters kept of one side of a manifest edit.
pub const MAX_EDIT_CHARS: usize = 8_000;

/// Line `n` of a synthetic long session, for the tests and benchmarks that
/// need a transcript of any size without committing one: a prompt, a Bash
/// call, a 20 KB tool result, an answer (every 400th states a fix with
/// versions), and every 500th line a 3 MB pasted screenshot.
#[doc(hidden)]
pub fn synthetic_line(n: usize) -> String {
    let base = |role: &str, content: serde_json::Value| {
        serde_json::json!({"parentUuid": format!("g{:09}", n.saturating_sub(1)), "isSidechain": false,
            "cwd": "/home/dev/big", "sessionId": "big-session", "version": "2.0.14", "type": role,
            "uuid": format!("g{n:09}"), "timestamp": "2026-06-10T08:30:12.481Z",
            "message": {"role": role, "content": content}})
        .to_string()
    };
    if n % 500 == 499 {
        let image = "iVBORw0KGgo".repeat(3_000_000 / 11);
        return base(
            "user",
            serde_json::json!([{"type": "tool_result", "tool_use_id": "t",
            "content": [{"type": "image", "source": {"type": "base64", "data": image}}]}]),
        );
    }
    match n % 4 {
        0 => base(
            "user",
            serde_json::json!(format!("Step {n}: run the build again.")),
        ),
        1 => base(
            "assistant",
            serde_json::json!([{"type": "tool_use", "id": format!("t{n}"),
            "name": "Bash", "input": {"command": "pnpm build --filter @acme/ui"}}]),
        ),
        2 => base(
            "user",
            serde_json::json!([{"type": "tool_result", "tool_use_id": format!("t{}", n - 1),
            "content": format!("compiled module {n}\n").repeat(1_000)}]),
        ),
        _ if n % 400 == 3 => base(
            "assistant",
            serde_json::json!([{"type": "text", "text": format!(
            "The build broke because pkg{n} 1.{n}.0 dropped its CommonJS entry. Fixed by pinning pkg{n} to 1.{n}.1.")}]),
        ),
        _ => base(
            "assistant",
            serde_json::json!([{"type": "text", "text": "The build finished; moving on."}]),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pipeline::capture::testdata::fixture;

    fn read(bytes: &[u8]) -> Transcript {
        read_transcript(bytes, Limits::default()).unwrap()
    }

    fn notes(t: &Transcript) -> Vec<String> {
        t.notes().iter().map(ToString::to_string).collect()
    }

    #[test]
    fn a_real_shaped_transcript_is_read() {
        let t = read(fixture("version-mismatch"));
        assert_eq!(
            t.session_id.as_deref(),
            Some("5b0f3c1e-8d2a-4f6b-9c71-2e4d8a6f0b13")
        );
        assert_eq!(t.cwd.as_deref(), Some("/home/dev/acme-web"));
        assert_eq!(
            (t.skipped_malformed, t.skipped_oversized, t.duplicates),
            (0, 0, 0)
        );
        assert_eq!(
            t.ignored, 2,
            "the summary line and the file-history snapshot"
        );
        assert!(!t.truncated && !t.partial_last_line);
        assert_eq!(t.notes(), vec![]);
        let first = &t.events[0];
        assert!(first.is_prompt());
        assert_eq!(first.parent_uuid, None);
        assert_eq!(
            first.timestamp.map(|ts| ts.as_millisecond()),
            Some(1_781_080_212_481)
        );
        let tools: Vec<&str> = t
            .events
            .iter()
            .flat_map(|e| &e.blocks)
            .filter_map(|b| match b {
                Block::ToolUse { name, .. } => Some(name.as_str()),
                _ => None,
            })
            .collect();
        assert_eq!(
            tools,
            ["Bash", "Bash", "WebFetch", "Read", "Edit", "Bash", "Bash"]
        );
        let edit = t
            .events
            .iter()
            .flat_map(|e| &e.blocks)
            .find_map(|b| match b {
                Block::ToolUse {
                    name, input, path, ..
                } if name == "Edit" => Some((input.clone(), path.clone())),
                _ => None,
            })
            .unwrap();
        assert_eq!(
            edit,
            (
                "/home/dev/acme-web/package.json: \"vitest\": \"^4.0.5\", \"@vitest/coverage-v8\": \"^4.0.5\" → \"vitest\": \"3.2.4\", \"@vitest/coverage-v8\": \"3.2.4\"".to_owned(),
                Some("/home/dev/acme-web/package.json".to_owned())
            )
        );
        // Thinking is dropped; a tool result keeps its error flag.
        assert!(t.events.iter().all(|e| e.blocks.iter().all(|b| match b {
            Block::Text(s) => !s.contains("the user wants"),
            _ => true,
        })));
        assert!(t.events.iter().flat_map(|e| &e.blocks).any(|b| matches!(
            b,
            Block::ToolResult { is_error: true, text, .. } if text.contains("vite/module-runner")
        )));
    }

    #[test]
    fn a_cut_last_line_and_bad_lines_are_skipped_and_counted() {
        let t = read(fixture("truncated"));
        assert!(t.partial_last_line);
        assert_eq!(
            t.skipped_malformed, 2,
            "one bad line in the middle, and the cut one"
        );
        assert_eq!(t.events.len(), 4);
        assert_eq!(
            notes(&t),
            [
                "skipped 1 malformed line: not a JSON object, or a session event without a usable uuid",
                "skipped the last line: it was cut off mid-write (the session may still be running)"
            ]
        );
        // A last line without a newline that is whole is read.
        let whole = br#"{"type":"user","uuid":"u1","message":{"role":"user","content":"hi"}}"#;
        let t = read(whole);
        assert_eq!((t.events.len(), t.partial_last_line), (1, false));
    }

    #[test]
    fn a_line_that_is_not_utf8_is_skipped_with_that_cause() {
        let mut input =
            br#"{"type":"user","uuid":"u1","message":{"role":"user","content":"caf"#.to_vec();
        input.extend_from_slice(b"\xe9\"}}\n");
        input.extend_from_slice(
            br#"{"type":"user","uuid":"u2","message":{"role":"user","content":"ok"}}"#,
        );
        input.push(b'\n');
        let t = read(&input);
        assert_eq!((t.skipped_malformed, t.skipped_not_utf8), (0, 1));
        assert_eq!(t.events.len(), 1);
        assert_eq!(
            notes(&t),
            ["skipped 1 line: not UTF-8 (a transcript is UTF-8 JSON, one event a line)"]
        );
        // A last line cut inside a character is the cut last line.
        let mut cut =
            br#"{"type":"user","uuid":"u2","message":{"role":"user","content":"ok"}}"#.to_vec();
        cut.extend_from_slice(
            b"\n{\"type\":\"user\",\"uuid\":\"u3\",\"message\":{\"content\":\"\xe2\x82",
        );
        let t = read(&cut);
        assert_eq!((t.skipped_malformed, t.skipped_not_utf8), (1, 0));
        assert!(t.partial_last_line);
    }

    #[test]
    fn hostile_lines_never_fail_the_read() {
        let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
        let mut input = Vec::new();
        for line in [
            b"\xff\xfe not utf-8".to_vec(),
            b"[1, 2, 3]".to_vec(),
            b"\"a string\"".to_vec(),
            deep.into_bytes(),
            br#"{"type":"assistant","message":{"content":"no uuid"}}"#.to_vec(),
            br#"{"type":"assistant","uuid":"a\"><event uuid=\"x","message":{"content":"bad uuid"}}"#.to_vec(),
            br#"{"type":"assistant","uuid":42,"message":{"content":"number uuid"}}"#.to_vec(),
            br#"{"type":"summary","summary":"x","leafUuid":"u1"}"#.to_vec(),
            br#"{"type":"assistant","uuid":"ok-1","timestamp":"yesterday","sessionId":"s<1>","message":{"content":[{"type":"thinking","thinking":"t"},{"type":"tool_use","name":"bad name!","input":{"command":"ls"}},{"type":"tool_result","content":7},{"type":"image"},"text",{"type":"text","text":"  "}]}}"#.to_vec(),
            b"\r".to_vec(),
            b"\xEF\xBB\xBF{\"type\":\"user\",\"uuid\":\"ok-2\",\"message\":{\"content\":\"bom\"}}\r".to_vec(),
        ] {
            input.extend_from_slice(&line);
            input.push(b'\n');
        }
        let t = read(&input);
        assert_eq!((t.skipped_malformed, t.skipped_not_utf8), (6, 1));
        assert_eq!(t.ignored, 1);
        assert_eq!(t.events.len(), 2);
        let ok = &t.events[0];
        assert_eq!(ok.timestamp, None);
        assert_eq!(ok.session_id, None);
        assert_eq!(
            ok.blocks,
            [
                Block::ToolUse {
                    id: String::new(),
                    name: "unknown".into(),
                    input: "{\"command\":\"ls\"}".into(),
                    path: None,
                    edits: Vec::new()
                },
                Block::ToolResult {
                    tool_use_id: String::new(),
                    text: String::new(),
                    is_error: false
                }
            ]
        );
        assert_eq!(t.events[1].blocks, [Block::Text("bom".into())]);
    }

    #[test]
    fn a_line_over_the_cap_is_skipped_and_reading_goes_on() {
        let limits = Limits {
            max_line_bytes: 200,
            ..Limits::default()
        };
        let big = format!(
            r#"{{"type":"user","uuid":"big","message":{{"content":"{}"}}}}"#,
            "x".repeat(10_000)
        );
        let input = format!(
            "{}\n{big}\n{}\n{big}",
            r#"{"type":"user","uuid":"u1","message":{"content":"before"}}"#,
            r#"{"type":"user","uuid":"u2","message":{"content":"after"}}"#
        );
        let t = read_transcript(input.as_bytes(), limits).unwrap();
        let uuids: Vec<&str> = t.events.iter().map(|e| e.uuid.as_str()).collect();
        assert_eq!(uuids, ["u1", "u2"]);
        assert_eq!(t.skipped_oversized, 2, "the last one has no newline");
        assert!(!t.partial_last_line);
        assert_eq!(notes(&t), ["skipped 2 lines over the 200 bytes line cap"]);
    }

    #[test]
    fn texts_and_tool_results_are_bounded() {
        let limits = Limits {
            max_text_chars: 10,
            max_tool_result_chars: 8,
            max_tool_input_chars: 12,
            ..Limits::default()
        };
        let line = format!(
            r#"{{"type":"assistant","uuid":"a1","message":{{"content":[{{"type":"text","text":"{}"}},{{"type":"tool_use","id":"t1","name":"Bash","input":{{"command":"echo {}"}}}},{{"type":"tool_result","tool_use_id":"t1","content":[{{"type":"text","text":"HEAD{}TAIL"}}]}}]}}}}"#,
            "y".repeat(50),
            "z".repeat(50),
            "m".repeat(50)
        );
        let t = read_transcript(line.as_bytes(), limits).unwrap();
        assert_eq!(
            t.events[0].blocks,
            [
                Block::Text(format!("{}…", "y".repeat(10))),
                Block::ToolUse {
                    id: "t1".into(),
                    name: "Bash".into(),
                    input: format!("echo {}…", "z".repeat(7)),
                    path: None,
                    edits: Vec::new()
                },
                Block::ToolResult {
                    tool_use_id: "t1".into(),
                    text: "HEAD\n[… 50 characters left out …]\nTAIL".into(),
                    is_error: false
                }
            ]
        );
    }

    #[test]
    fn replayed_events_are_read_once() {
        let t = read(fixture("resumed"));
        assert!(t.duplicates == 0, "a resumed file holds each event once");
        let doubled = [fixture("version-mismatch"), fixture("version-mismatch")].concat();
        let t2 = read(&doubled);
        let once = read(fixture("version-mismatch"));
        assert_eq!(t2.events, once.events);
        assert_eq!(t2.duplicates, once.events.len());
        assert!(notes(&t2)[0].starts_with(&format!(
            "skipped {} events whose uuids were already read",
            once.events.len()
        )));
        // The session that wrote last is the resumed one.
        assert_eq!(
            t.session_id.as_deref(),
            Some("c4e2a9d7-1b3f-4e8a-a6d5-93f0b7c1e248")
        );
    }

    fn line(i: usize) -> String {
        format!(
            r#"{{"type":"user","uuid":"u{i:06}","sessionId":"s","timestamp":"2026-06-10T08:00:00Z","message":{{"role":"user","content":"line {i:06}"}}}}"#
        )
    }

    #[test]
    fn the_total_cap_stops_at_a_line_boundary_and_says_so() {
        let input: String = (0..100).map(|i| line(i) + "\n").collect();
        let each = line(0).len() as u64 + 1;
        let limits = Limits {
            max_total_bytes: each * 10 + each / 2,
            ..Limits::default()
        };
        let t = read_transcript(input.as_bytes(), limits).unwrap();
        assert_eq!(t.events.len(), 10);
        assert!(t.truncated);
        assert!(
            !t.partial_last_line,
            "the line cut by the cap is not a malformed line"
        );
        assert_eq!(t.skipped_malformed, 0);
        assert_eq!(t.bytes_read, limits.max_total_bytes);
        assert_eq!(
            notes(&t),
            [format!(
                "stopped reading at the {} bytes transcript cap: the rest of the transcript was not read, and moments in it are not captured",
                limits.max_total_bytes
            )]
        );
        // Exactly at the cap: nothing is truncated.
        let exact = Limits {
            max_total_bytes: each * 100,
            ..Limits::default()
        };
        let t = read_transcript(input.as_bytes(), exact).unwrap();
        assert_eq!((t.events.len(), t.truncated), (100, false));
    }

    #[test]
    fn the_tail_is_read_from_its_first_whole_line() {
        let input: String = (0..100).map(|i| line(i) + "\n").collect();
        let each = line(0).len() as u64 + 1;
        for (cap, first, skipped) in [
            (each * 10 + 5, 90, each * 90),
            (each * 10, 90, each * 90),
            (each * 10 - 1, 91, each * 91),
            (each * 100, 0, 0),
            (each * 200, 0, 0),
        ] {
            let limits = Limits {
                max_total_bytes: cap,
                ..Limits::default()
            };
            let t = read_transcript_tail(io::Cursor::new(input.as_bytes()), limits).unwrap();
            assert_eq!(t.events[0].uuid, format!("u{first:06}"), "cap {cap}");
            assert_eq!(t.events.len(), 100 - first);
            assert_eq!(t.skipped_head_bytes, skipped, "cap {cap}");
            assert!(!t.truncated && t.skipped_malformed == 0);
        }
        let limits = Limits {
            max_total_bytes: each * 10,
            ..Limits::default()
        };
        let t = read_transcript_tail(io::Cursor::new(input.as_bytes()), limits).unwrap();
        assert_eq!(
            notes(&t),
            [format!(
                "the transcript is over the {cap} bytes cap: only its last {cap} bytes were read, and its first {} bytes (captured by earlier runs, if any) were not",
                each * 90,
                cap = each * 10
            )]
        );
    }

    /// A 50 MB transcript made while it is read, never held whole: turns of
    /// a prompt, a Bash call, a 20 KB result and an answer (every 100th
    /// states a fix with versions), and every 500th line a 3 MB pasted
    /// image. It counts the bytes it hands out.
    pub(crate) struct Generated {
        pub(crate) total: u64,
        pub(crate) served: u64,
        line: Vec<u8>,
        pos: usize,
        n: usize,
    }

    impl Generated {
        pub(crate) fn new(total: u64) -> Generated {
            Generated {
                total,
                served: 0,
                line: Vec::new(),
                pos: 0,
                n: 0,
            }
        }
    }

    impl Read for Generated {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            if self.served >= self.total {
                return Ok(0);
            }
            if self.pos == self.line.len() {
                self.line = synthetic_line(self.n).into_bytes();
                self.line.push(b'\n');
                self.pos = 0;
                self.n += 1;
            }
            let left = usize::try_from(self.total - self.served).unwrap_or(usize::MAX);
            let k = buf.len().min(self.line.len() - self.pos).min(left);
            buf[..k].copy_from_slice(&self.line[self.pos..self.pos + k]);
            self.pos += k;
            self.served += k as u64;
            Ok(k)
        }
    }

    #[test]
    fn fifty_megabytes_are_read_streaming_up_to_the_cap() {
        let mut source = Generated::new(50_000_000);
        let t = read_transcript(&mut source, Limits::default()).unwrap();
        assert!(t.truncated);
        assert_eq!(t.bytes_read, MAX_TRANSCRIPT_BYTES);
        assert!(
            source.served <= MAX_TRANSCRIPT_BYTES + super::super::lines::BUFFER_BYTES as u64,
            "read {} bytes of the source for a {MAX_TRANSCRIPT_BYTES}-byte cap",
            source.served
        );
        assert!(t.skipped_oversized > 0, "the pasted images");
        assert!(
            t.retained_bytes() < MAX_TRANSCRIPT_BYTES as usize / 2,
            "{}",
            t.retained_bytes()
        );
        assert_eq!(t.skipped_malformed, 0);
        assert_eq!(
            notes(&t),
            [
                format!("skipped {} over the 2 MiB line cap", if t.skipped_oversized == 1 { "1 line".to_owned() } else { format!("{} lines", t.skipped_oversized) }),
                "stopped reading at the 32 MiB transcript cap: the rest of the transcript was not read, and moments in it are not captured".to_owned(),
            ]
        );
        // The rest of capture stays bounded on it.
        let found = crate::pipeline::capture::offline::moments(&t);
        assert!(!found.is_empty() && found.len() < t.events.len() / 100);
        let ex = crate::pipeline::capture::prompt::excerpt(
            &t,
            crate::pipeline::capture::prompt::MAX_EXCERPT_CHARS,
        );
        assert!(
            ex.text.chars().count() <= crate::pipeline::capture::prompt::MAX_EXCERPT_CHARS + 64
        );
        assert!(ex.omitted > 0);
    }

    struct Failing(usize);

    impl Read for Failing {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            if self.0 == 0 {
                return Err(io::Error::other("disk on fire"));
            }
            let line = b"{\"type\":\"user\",\"uuid\":\"u\",\"message\":{\"content\":\"x\"}}\n";
            let n = line.len().min(buf.len());
            buf[..n].copy_from_slice(&line[..n]);
            self.0 -= 1;
            Ok(n)
        }
    }

    #[test]
    fn a_reader_error_fails_the_read() {
        let fire = || TranscriptError::from(io::Error::other("disk on fire"));
        assert_eq!(read_transcript(Failing(2), Limits::default()), Err(fire()));
        assert_eq!(
            fire().to_string(),
            "could not read the transcript: disk on fire"
        );
        let e = fire();
        let cause = std::error::Error::source(&e).and_then(std::error::Error::source);
        let io = cause.and_then(|c| c.downcast_ref::<io::Error>());
        assert_eq!(io.map(io::Error::kind), Some(io::ErrorKind::Other));
    }

    #[test]
    fn an_empty_or_foreign_file_has_no_events() {
        let t = read(b"");
        assert_eq!(notes(&t), [NEITHER]);
        let t = read(b"{\"a\":1}\n{\"b\":2}\n");
        assert_eq!((t.ignored, t.events.len(), t.format), (2, 0, None));
        // A format without events says which.
        let t = read(b"{\"type\":\"summary\",\"summary\":\"x\"}\n");
        assert_eq!(t.format, Some(Format::ClaudeCode));
        assert_eq!(
            notes(&t),
            ["no session events found (lines with type user, assistant or system and a uuid)"]
        );
    }

    #[test]
    fn ids_are_strict() {
        for ok in [
            "5b0f3c1e-8d2a-4f6b-9c71-2e4d8a6f0b13",
            "toolu_01AbC",
            "msg.1:2",
        ] {
            assert!(is_id(ok), "{ok}");
        }
        for bad in ["", "a b", "a\"b", "<x>", "é", &"x".repeat(129)] {
            assert!(!is_id(bad), "{bad}");
        }
    }
}
