//! Running an external program (a model, a judge, a signing program) with the
//! input on stdin, a hard wall-clock timeout, a bounded capture of its output,
//! and no way to prompt the user.
//!
//! The program is executed directly from an argv list — never through a shell,
//! so nothing in the input can be interpolated. It runs in a new session
//! (`setsid`), which detaches it from the controlling terminal: a program that
//! would ask for a passphrase fails instead of waiting. On timeout the whole
//! process group is killed, so a wrapper script's children die with it.
//!
//! This module owns process mechanics only. It does not decide what a failure
//! means (outage or verdict); callers classify [`ProcessError`].

use std::io::{Read, Write};
use std::os::unix::process::CommandExt;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::thread;
use std::time::Duration;

use rustix::process::{kill_process_group, Signal};

/// What can go wrong running a program.
#[derive(Debug, thiserror::Error)]
pub enum ProcessError {
    /// The argv was empty.
    #[error("no program configured")]
    NoProgram,
    /// The program does not exist or is not executable.
    #[error("program {program:?} could not be started: {source}")]
    NotFound {
        program: String,
        #[source]
        source: std::io::Error,
    },
    /// The program ran past its deadline and was killed with its process group.
    #[error("program {program:?} did not finish within {seconds}s and was killed")]
    TimedOut { program: String, seconds: f64 },
    /// An I/O failure talking to the program.
    #[error("i/o error talking to {program:?}: {source}")]
    Io {
        program: String,
        #[source]
        source: std::io::Error,
    },
}

/// How to run one program.
#[derive(Clone, Debug)]
pub struct Invocation {
    /// `argv[0]` and its arguments.
    pub argv: Vec<String>,
    /// The complete environment of the child (nothing is inherited).
    pub env: Vec<(String, String)>,
    /// Working directory, if not the current one.
    pub cwd: Option<PathBuf>,
    /// Hard deadline.
    pub timeout: Duration,
    /// At most this many bytes of stdout (and of stderr) are kept; the rest is
    /// read and discarded so the child never blocks on a full pipe.
    pub max_output: usize,
    /// Run in a new session, detached from any controlling terminal, so a
    /// program that would ask for a passphrase fails instead of prompting
    /// (signing programs). Otherwise only a new process group, which is
    /// cheaper to spawn (model and judge programs).
    pub new_session: bool,
}

/// What a finished program produced.
#[derive(Clone, Debug)]
pub struct Finished {
    /// `Some(code)` on a normal exit, `None` when killed by a signal.
    pub code: Option<i32>,
    pub stdout: Vec<u8>,
    pub stderr: Vec<u8>,
    /// Whether stdout was longer than `max_output` and was cut.
    pub stdout_truncated: bool,
}

impl Finished {
    /// Exit code 0.
    pub fn success(&self) -> bool {
        self.code == Some(0)
    }
}

fn read_capped(mut r: impl Read, max: usize) -> (Vec<u8>, bool) {
    let mut kept = Vec::new();
    let mut truncated = false;
    let mut buf = [0u8; 64 * 1024];
    loop {
        match r.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => {
                let room = max.saturating_sub(kept.len());
                if n > room {
                    truncated = true;
                }
                kept.extend_from_slice(&buf[..n.min(room)]);
            }
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(_) => break,
        }
    }
    (kept, truncated)
}

/// Runs `inv` with `input` on stdin and waits for it, at most `inv.timeout`.
pub fn run(inv: &Invocation, input: &[u8]) -> Result<Finished, ProcessError> {
    let program = inv.argv.first().ok_or(ProcessError::NoProgram)?.clone();
    let mut cmd = Command::new(&program);
    cmd.args(&inv.argv[1..])
        .env_clear()
        .envs(inv.env.iter().map(|(k, v)| (k, v)))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    if let Some(dir) = &inv.cwd {
        cmd.current_dir(dir);
    }
    if inv.new_session {
        // SAFETY: `pre_exec` runs the hook between fork and exec, where only
        // async-signal-safe calls are sound; setsid is one (a bare system
        // call) and touches no memory of the parent.
        unsafe {
            cmd.pre_exec(|| {
                rustix::process::setsid()?;
                Ok(())
            });
        }
    } else {
        // A process group of its own, so a timeout kills its children too;
        // unlike a pre_exec hook this lets std spawn without a full fork.
        cmd.process_group(0);
    }
    let mut child = cmd.spawn().map_err(|source| ProcessError::NotFound {
        program: program.clone(),
        source,
    })?;
    let group = rustix::process::Pid::from_child(&child);
    let io = |source| ProcessError::Io {
        program: program.clone(),
        source,
    };

    let mut stdin = child.stdin.take().expect("stdin is piped");
    let stdout = child.stdout.take().expect("stdout is piped");
    let stderr = child.stderr.take().expect("stderr is piped");
    let max = inv.max_output;
    let input = input.to_vec();
    // Writer and readers run on their own threads so that a child that writes
    // before reading, or never reads, cannot deadlock us.
    let writer = thread::spawn(move || {
        let _ = stdin.write_all(&input);
    });
    let out_reader = thread::spawn(move || read_capped(stdout, max));
    let err_reader = thread::spawn(move || read_capped(stderr, max));

    // A waiter thread blocks in wait(2); this thread waits for its answer or
    // the deadline, whichever comes first. No polling: a fast program costs
    // no more than its own run.
    let (tx, rx) = mpsc::channel();
    let waiter = thread::spawn(move || {
        let status = child.wait();
        let _ = tx.send(());
        status
    });
    if rx.recv_timeout(inv.timeout).is_err() {
        // The process group we created, so the program's children die with it.
        let _ = kill_process_group(group, Signal::KILL);
        let _ = waiter.join();
        return Err(ProcessError::TimedOut {
            program,
            seconds: inv.timeout.as_secs_f64(),
        });
    }
    let status = match waiter.join() {
        Ok(Ok(status)) => status,
        Ok(Err(source)) => return Err(io(source)),
        Err(_) => {
            return Err(io(std::io::Error::other("the waiter thread panicked")));
        }
    };
    // The child has exited, but a grandchild may still hold the pipes open.
    // Kill the group so the readers see end-of-file.
    let _ = kill_process_group(group, Signal::KILL);
    let _ = writer.join();
    let (stdout, stdout_truncated) = out_reader.join().unwrap_or_default();
    let (stderr, _) = err_reader.join().unwrap_or_default();
    Ok(Finished {
        code: status.code(),
        stdout,
        stderr,
        stdout_truncated,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sh(script: &str, timeout_ms: u64) -> Invocation {
        Invocation {
            argv: vec!["/bin/sh".into(), "-c".into(), script.into()],
            env: vec![("PATH".into(), "/usr/bin:/bin".into())],
            cwd: None,
            timeout: Duration::from_millis(timeout_ms),
            max_output: 1024,
            new_session: false,
        }
    }

    #[test]
    fn echoes_stdin_and_reports_exit_code() {
        let f = run(&sh("cat; exit 3", 5000), b"hello").unwrap();
        assert_eq!(f.stdout, b"hello");
        assert_eq!(f.code, Some(3));
        assert!(!f.success());
    }

    #[test]
    fn kills_a_hung_program_and_its_children() {
        let dir = tempfile::tempdir().unwrap();
        let pidfile = dir.path().join("pid");
        let script = format!("sleep 30 & echo $! > {}; wait", pidfile.display());
        let err = run(&sh(&script, 300), b"").unwrap_err();
        assert!(matches!(err, ProcessError::TimedOut { .. }), "{err}");
        // The grandchild went down with its process group.
        let pid: i32 = std::fs::read_to_string(&pidfile)
            .unwrap()
            .trim()
            .parse()
            .unwrap();
        let mut gone = false;
        for _ in 0..200 {
            // Signal 0: only whether the process exists.
            let pid = rustix::process::Pid::from_raw(pid).expect("a positive pid");
            if rustix::process::test_kill_process(pid).is_err() {
                gone = true;
                break;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        assert!(gone, "the background sleep {pid} survived the timeout");
    }

    #[test]
    fn caps_output_without_blocking_the_child() {
        let f = run(&sh("head -c 3000000 /dev/zero", 10_000), b"").unwrap();
        assert_eq!(f.stdout.len(), 1024);
        assert!(f.stdout_truncated);
        assert!(f.success());
    }

    #[test]
    fn missing_program_is_not_found() {
        let mut inv = sh("", 1000);
        inv.argv = vec!["/nonexistent/model-program".into()];
        assert!(matches!(run(&inv, b""), Err(ProcessError::NotFound { .. })));
    }
}
