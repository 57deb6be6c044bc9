//! The SessionEnd hook (`git-lore hook session-end`), in two halves, and
//! the failure notes the next session start shows.
//!
//! - [`start`] runs inside the agent's hook: it saves the hook's JSON under
//!   `<gitdir>/lore/`, starts this program again as `hook
//!   session-end-worker` in a new session of its own (`setsid()` between
//!   fork and exec, so no `setsid` program is needed and the agent's exit
//!   does not take it down), and returns at once. It never fails the
//!   session, and writes nothing into a repository that is not a lesson
//!   repository.
//! - [`work`] is that detached process: it runs `git lore capture --hook`
//!   (then, as before, an ingest of the archivist's artifacts or the
//!   project's commits when configured), writes what they print to
//!   `<gitdir>/lore/session-end.log`, each line with a timestamp, and
//!   records every failure in `<gitdir>/lore/session-end.failed`.
//! - [`take_failures`] is how `hook session-start` shows those failures to
//!   the person once, as one line: it moves the file aside atomically
//!   (one session start gets it), reads it and removes it.
//!
//! Under `GIT_LORE_HOOK_ACTIVE` (set for every model program git-lore
//! starts) nothing here runs.

use std::fs::{self, OpenOptions};
use std::io::{BufRead, BufReader, IsTerminal, Read, Write};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use super::hook::QUIET;
use super::ui::{self, CliError, Ctx};
use git_lore::ops::LoreError;
use git_lore::pipeline::capture::hook::MAX_HOOK_INPUT_BYTES;
use git_lore::pipeline::capture::read_hook_input;
use git_lore::store::StoreError;

/// The log of the background work, under `<gitdir>/lore/`.
pub const LOG: &str = "session-end.log";

/// Failures not yet shown to the person, under `<gitdir>/lore/`.
pub const FAILED: &str = "session-end.failed";

/// Past this size the log is moved to `session-end.log.1` (one old log is
/// kept).
const MAX_LOG_BYTES: u64 = 1 << 20;

/// The longest line kept of what a background command printed.
const MAX_LINE_CHARS: usize = 2000;

fn lore_dir(ctx: &Ctx) -> PathBuf {
    ctx.repo.join("lore")
}

/// Appends one timestamped line to the log.
fn log(dir: &Path, line: &str) {
    let stamp = git_lore::model::iso(jiff::Timestamp::now());
    if let Ok(mut f) = OpenOptions::new()
        .create(true)
        .append(true)
        .open(dir.join(LOG))
    {
        // One write per line: concurrent workers never interleave inside it.
        let _ = f.write_all(format!("{stamp} {line}\n").as_bytes());
    }
}

/// Records a failure for the next session start, and in the log.
fn fail(dir: &Path, line: &str) {
    // The record first: whoever reads the failure in the log (a person, a
    // test waiting on it) finds it recorded for the next session start.
    let stamp = git_lore::model::iso(jiff::Timestamp::now());
    if let Ok(mut f) = OpenOptions::new()
        .create(true)
        .append(true)
        .open(dir.join(FAILED))
    {
        let _ = f.write_all(format!("{stamp} {line}\n").as_bytes());
    }
    log(dir, line);
}

/// The hook half: save the input, start the worker detached, return.
pub fn start(ctx: &Ctx) {
    if ctx.var(QUIET).is_some() {
        return;
    }
    let input = super::hook::hook_input(MAX_HOOK_INPUT_BYTES);
    if input.is_empty() && std::io::stdin().is_terminal() {
        ui::error(
            "hook session-end reads the JSON an agent gives its SessionEnd hook on stdin; nothing captured (to capture a transcript by hand: git lore capture --transcript FILE)",
        );
        return;
    }
    if !ctx.repo.join("HEAD").exists() {
        return; // no lesson repository: nothing to capture into
    }
    // A git repository that is not a lesson repository: nothing is written
    // into it. (Any other failure to open is the background capture's to
    // meet, log and report at the next session start.)
    if let Err(
        e @ CliError::Lore(LoreError::Store(
            StoreError::NotALoreRepository { .. } | StoreError::NotARepository { .. },
        )),
    ) = ctx.open()
    {
        ui::error(format!("hook session-end: {e}; nothing captured"));
        return;
    }
    let dir = lore_dir(ctx);
    if let Err(e) = detach(ctx, &dir, &input) {
        fail(
            &dir,
            &format!("session-end: the background capture could not be started: {e}"),
        );
    }
}

fn detach(ctx: &Ctx, dir: &Path, input: &[u8]) -> std::io::Result<()> {
    fs::create_dir_all(dir)?;
    let mut tmp = tempfile::Builder::new()
        .prefix("session-end-")
        .suffix(".json")
        .tempfile_in(dir)?;
    tmp.write_all(input)?;
    let (_, path) = tmp.keep().map_err(|e| e.error)?;
    let exe = ctx
        .env
        .exe
        .clone()
        .ok_or_else(|| std::io::Error::other("this program's path is unknown"))?;
    let mut cmd = Command::new(exe);
    cmd.arg("--repo")
        .arg(&ctx.repo)
        .args(["hook", "session-end-worker", "--input"])
        .arg(&path)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    // SAFETY: `pre_exec` runs the hook between fork and exec, where only
    // async-signal-safe calls are sound; setsid is one (a bare system call)
    // and touches no memory of the parent.
    unsafe {
        cmd.pre_exec(|| {
            rustix::process::setsid()?;
            Ok(())
        });
    }
    match cmd.spawn() {
        // Not waited for: this process exits now, and the worker, in a
        // session of its own, is adopted by init.
        Ok(_child) => Ok(()),
        Err(e) => {
            let _ = fs::remove_file(&path);
            Err(e)
        }
    }
}

/// The detached half: capture (and ingest, when configured), logged.
pub fn work(ctx: &Ctx, input_path: &Path) {
    let dir = lore_dir(ctx);
    let _ = fs::create_dir_all(&dir);
    if fs::metadata(dir.join(LOG)).is_ok_and(|m| m.len() > MAX_LOG_BYTES) {
        let _ = fs::rename(dir.join(LOG), dir.join(format!("{LOG}.1")));
    }
    let mut input = Vec::new();
    let read = fs::File::open(input_path).and_then(|f| {
        f.take(MAX_HOOK_INPUT_BYTES as u64 + 1)
            .read_to_end(&mut input)
    });
    let _ = fs::remove_file(input_path);
    if let Err(e) = read {
        fail(
            &dir,
            &format!("session-end: cannot read the hook input: {e}"),
        );
        return;
    }
    let hook = read_hook_input(&input[..]).ok();
    if input.iter().all(u8::is_ascii_whitespace) {
        log(&dir, "capture: no hook input; nothing to capture");
    } else {
        let what = match &hook {
            Some(h) => format!("capture of session {}", ui::text(&h.session_id)),
            None => "capture".to_owned(),
        };
        run_logged(ctx, &dir, &what, &["capture", "--hook"], Some(input));
    }
    // The other sources the SessionEnd hook has always ingested.
    if ctx.var("GIT_LORE_FROM_COMMITS") == Some("1") {
        let project = hook
            .as_ref()
            .map(|h| h.cwd.clone())
            .unwrap_or_else(|| ".".into());
        run_logged(
            ctx,
            &dir,
            "ingest --from-commits",
            &["ingest", "--from-commits", &project],
            None,
        );
    }
    let archivist = ctx
        .var("GIT_LORE_ARTIFACTS")
        .map(PathBuf::from)
        .or_else(|| {
            ctx.var("ONLOOKER_DIR")
                .map(PathBuf::from)
                .or_else(|| ctx.env.home.as_ref().map(|h| h.join(".onlooker")))
                .map(|d| d.join("archivist"))
        });
    if let Some(a) = archivist.filter(|a| a.is_dir()) {
        let a = a.display().to_string();
        run_logged(ctx, &dir, "ingest", &["ingest", &a], None);
    }
}

/// Runs this program with `args`, every line it prints logged under
/// `what`; a non-zero exit is a failure for the next session start.
fn run_logged(ctx: &Ctx, dir: &Path, what: &str, args: &[&str], stdin: Option<Vec<u8>>) {
    let Some(exe) = ctx.env.exe.clone() else {
        fail(dir, &format!("{what}: this program's path is unknown"));
        return;
    };
    let mut cmd = Command::new(exe);
    cmd.arg("--repo")
        .arg(&ctx.repo)
        .args(args)
        .stdin(if stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    log(dir, &format!("{what}: started"));
    let mut child = match cmd.spawn() {
        Ok(c) => c,
        Err(e) => {
            fail(dir, &format!("{what}: could not be started: {e}"));
            return;
        }
    };
    if let (Some(bytes), Some(mut pipe)) = (stdin, child.stdin.take()) {
        std::thread::spawn(move || {
            let _ = pipe.write_all(&bytes);
        });
    }
    let last = std::sync::Arc::new(std::sync::Mutex::new(String::new()));
    let readers: Vec<_> = [
        child
            .stdout
            .take()
            .map(|p| Box::new(p) as Box<dyn Read + Send>),
        child
            .stderr
            .take()
            .map(|p| Box::new(p) as Box<dyn Read + Send>),
    ]
    .into_iter()
    .flatten()
    .map(|pipe| {
        let (dir, what, last) = (dir.to_owned(), what.to_owned(), last.clone());
        std::thread::spawn(move || {
            for line in BufReader::new(pipe).split(b'\n').map_while(Result::ok) {
                let text = ui::text(&String::from_utf8_lossy(&line));
                let text: String = text.chars().take(MAX_LINE_CHARS).collect();
                log(&dir, &format!("{what}: {text}"));
                if let Ok(mut l) = last.lock() {
                    *l = text;
                }
            }
        })
    })
    .collect();
    for r in readers {
        let _ = r.join();
    }
    let status = child.wait();
    let code = status.as_ref().ok().and_then(|s| s.code());
    if code == Some(0) {
        return;
    }
    let how = match (status, code) {
        (Err(e), _) => format!("could not be waited for: {e}"),
        (Ok(_), Some(c)) => format!("exited with status {c}"),
        (Ok(_), None) => "was killed by a signal".to_owned(),
    };
    let last = last.lock().map(|l| l.clone()).unwrap_or_default();
    let last: String = last
        .trim_start_matches("git-lore: ")
        .chars()
        .take(200)
        .collect();
    if last.is_empty() {
        fail(dir, &format!("{what} failed: it {how}"));
    } else {
        fail(dir, &format!("{what} failed: it {how}: {last}"));
    }
}

/// The failures recorded since they were last shown, as one line for the
/// person (and forgotten: each is shown once), or `None`.
pub fn take_failures(ctx: &Ctx) -> Option<String> {
    let dir = lore_dir(ctx);
    let mine = dir.join(format!("{FAILED}.{}", std::process::id()));
    fs::rename(dir.join(FAILED), &mine).ok()?;
    let mut text = String::new();
    let _ = fs::File::open(&mine).and_then(|f| f.take(64 << 10).read_to_string(&mut text));
    let _ = fs::remove_file(&mine);
    let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    let last = lines.last()?;
    // Each line is `<timestamp> <what happened>`.
    let what = last.split_once(' ').map_or(*last, |(_, w)| w);
    let what: String = what.chars().take(160).collect();
    let more = match lines.len() {
        1 => String::new(),
        n => format!(" ({n} failures, the last shown)"),
    };
    Some(format!(
        "git-lore: the background capture after a session failed{more}: {}; see {}",
        ui::text(&what),
        ui::text(&dir.join(LOG).display().to_string())
    ))
}
