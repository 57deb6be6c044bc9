//! Real git servers on 127.0.0.1, started by a test and stopped when
//! dropped: OpenSSH's `sshd` (git over ssh) and `git http-backend` behind a
//! small CGI host (git's smart HTTP). Each serves the repositories under one
//! directory, and runs what a served repository's hooks run (a pool host's
//! `git-lore`) with the environment it is given.
//!
//! A missing tool fails the test with the package to install; nothing is
//! skipped.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The environment a served repository's hooks run with: `vars` (a test's
/// [`crate::common::TestEnv::vars`]) with the directory of the git-lore
/// under test first on PATH, and no `GIT_LORE_REPO` (a host is not a lesson
/// repository).
pub fn hook_env(vars: Vec<(String, String)>) -> Vec<(String, String)> {
    let bin = Path::new(env!("CARGO_BIN_EXE_git-lore")).parent().unwrap();
    vars.into_iter()
        .filter(|(k, _)| k != "GIT_LORE_REPO")
        .map(|(k, v)| match k.as_str() {
            "PATH" => (k, format!("{}:{v}", bin.display())),
            _ => (k, v),
        })
        .collect()
}

/// The absolute path of `program` (on PATH or in /usr/sbin), or a failure
/// naming the Debian package that has it.
fn require(program: &str, package: &str) -> PathBuf {
    let search = format!(
        "{}:/usr/sbin:/sbin",
        std::env::var("PATH").unwrap_or_default()
    );
    std::env::split_paths(&search)
        .filter(|d| d.is_absolute())
        .map(|d| d.join(program))
        .find(|p| p.is_file())
        .unwrap_or_else(|| {
            panic!("{program} is not installed, and this test runs it: apt-get install {package}")
        })
}

/// Runs `program args…`, which must succeed; its stdout.
fn run(program: &Path, args: &[&str]) -> String {
    let out = Command::new(program).args(args).output().unwrap();
    assert!(
        out.status.success(),
        "{} {args:?}: {}",
        program.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// A port on 127.0.0.1 that was free a moment ago.
fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

// ---------------------------------------------------------------- ssh

/// OpenSSH's `sshd` on 127.0.0.1, run by the test as its own user, with a
/// host key and a user key made for it: it lets in that user with that key
/// alone. Stopped when dropped.
pub struct Sshd {
    child: Child,
    port: u16,
    user: String,
    dir: PathBuf,
}

impl Sshd {
    /// Starts sshd with its keys, config and log in `dir` (created). The
    /// git commands it runs get `hook_vars` (see [`hook_env`]).
    pub fn start(dir: &Path, hook_vars: &[(String, String)]) -> Sshd {
        let sshd = require("sshd", "openssh-server");
        let keygen = require("ssh-keygen", "openssh-client");
        std::fs::create_dir_all(dir).unwrap();
        for key in ["host_key", "user_key"] {
            let path = dir.join(key).display().to_string();
            run(
                &keygen,
                &["-q", "-t", "ed25519", "-N", "", "-C", key, "-f", &path],
            );
        }
        std::fs::copy(dir.join("user_key.pub"), dir.join("authorized_keys")).unwrap();
        let user = run(Path::new("id"), &["-un"]).trim().to_owned();
        let root = run(Path::new("id"), &["-u"]).trim() == "0";
        if root {
            // sshd started by root confines each connection's pre-auth
            // child in this empty directory, which the package's service
            // unit makes at boot; a container never booted it.
            std::fs::create_dir_all("/run/sshd").unwrap();
        }
        let setenv: Vec<String> = hook_vars
            .iter()
            .map(|(k, v)| {
                assert!(!v.contains('"'), "{k}={v} cannot be quoted for sshd");
                format!("\"{k}={v}\"")
            })
            .collect();
        let mut last_log = String::new();
        // The port is chosen free, then bound by sshd: another test may take
        // it in between, so a start that fails is tried again.
        for _ in 0..5 {
            let port = free_port();
            let config = dir.join("sshd_config");
            std::fs::write(
                &config,
                format!(
                    "Port {port}\n\
                     ListenAddress 127.0.0.1\n\
                     HostKey {dir}/host_key\n\
                     PidFile {dir}/sshd.pid\n\
                     AuthorizedKeysFile {dir}/authorized_keys\n\
                     # The keys are in a temporary directory, not ~/.ssh.\n\
                     StrictModes no\n\
                     UsePAM no\n\
                     PasswordAuthentication no\n\
                     KbdInteractiveAuthentication no\n\
                     PubkeyAuthentication yes\n\
                     # CI runs as root: root may come in, with the key only.\n\
                     PermitRootLogin prohibit-password\n\
                     AllowUsers {user}\n\
                     SetEnv {setenv}\n\
                     LogLevel ERROR\n",
                    dir = dir.display(),
                    setenv = setenv.join(" "),
                ),
            )
            .unwrap();
            let log = dir.join("sshd.log");
            let child = Command::new(&sshd)
                .arg("-D")
                .arg("-e")
                .arg("-f")
                .arg(&config)
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(std::fs::File::create(&log).unwrap())
                .spawn()
                .expect("start sshd");
            let mut server = Sshd {
                child,
                port,
                user: user.clone(),
                dir: dir.to_owned(),
            };
            if server.wait_ready() {
                let host_key = std::fs::read_to_string(dir.join("host_key.pub")).unwrap();
                std::fs::write(
                    dir.join("known_hosts"),
                    format!("[127.0.0.1]:{port} {host_key}"),
                )
                .unwrap();
                return server;
            }
            last_log = std::fs::read_to_string(&log).unwrap_or_default();
        }
        panic!("sshd did not start:\n{last_log}");
    }

    /// Whether sshd answers with its banner within ten seconds (false when
    /// it exited: the port was taken, or the config refused).
    fn wait_ready(&mut self) -> bool {
        let start = Instant::now();
        while start.elapsed() < Duration::from_secs(10) {
            if self.child.try_wait().unwrap().is_some() {
                return false;
            }
            if let Ok(mut s) = TcpStream::connect(("127.0.0.1", self.port)) {
                s.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
                let mut banner = [0u8; 8];
                if s.read_exact(&mut banner).is_ok() && &banner == b"SSH-2.0-" {
                    return true;
                }
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        false
    }

    /// The URL of the repository at `path` through this server.
    pub fn url(&self, path: &Path) -> String {
        format!(
            "ssh://{}@127.0.0.1:{}{}",
            self.user,
            self.port,
            path.display()
        )
    }

    /// The `GIT_SSH_COMMAND` that reaches this server: its user key, its
    /// host key already known, and nothing read from the user's ~/.ssh.
    pub fn ssh_command(&self) -> String {
        format!(
            "ssh -F /dev/null -o BatchMode=yes -o IdentitiesOnly=yes -o StrictHostKeyChecking=yes -o UserKnownHostsFile={dir}/known_hosts -o LogLevel=ERROR -i {dir}/user_key",
            dir = self.dir.display()
        )
    }
}

impl Drop for Sshd {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

// ---------------------------------------------------------------- smart HTTP

/// `git http-backend` behind a CGI host on 127.0.0.1 (an ephemeral port):
/// one thread and one `git http-backend` per request, one request per
/// connection. Pushing is allowed (`REMOTE_USER` is set). Stopped when
/// dropped.
pub struct GitHttp {
    port: u16,
    /// How many request bodies came in chunks (a push larger than git's
    /// `http.postBuffer`).
    chunked: Arc<AtomicUsize>,
    stop: Arc<AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl GitHttp {
    /// Serves the repositories under `root`; http-backend and the hooks it
    /// runs get `hook_vars` (see [`hook_env`]).
    pub fn serve(root: &Path, hook_vars: Vec<(String, String)>) -> GitHttp {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1");
        let port = listener.local_addr().unwrap().port();
        let root = root.to_owned();
        let stop = Arc::new(AtomicBool::new(false));
        let stopping = stop.clone();
        let vars = Arc::new(hook_vars);
        let chunked = Arc::new(AtomicUsize::new(0));
        let counted = chunked.clone();
        let thread = std::thread::spawn(move || {
            let mut requests = Vec::new();
            for conn in listener.incoming() {
                if stopping.load(Ordering::SeqCst) {
                    break;
                }
                let Ok(conn) = conn else { continue };
                let (root, vars, counted) = (root.clone(), vars.clone(), counted.clone());
                requests.push(std::thread::spawn(move || {
                    if let Err(e) = respond(conn, &root, &vars, &counted) {
                        eprintln!("git http-backend host: {e}");
                    }
                }));
            }
            for r in requests {
                let _ = r.join();
            }
        });
        GitHttp {
            port,
            chunked,
            stop,
            thread: Some(thread),
        }
    }

    /// How many request bodies so far came in chunks.
    pub fn chunked_requests(&self) -> usize {
        self.chunked.load(Ordering::SeqCst)
    }

    /// The URL of `repo`, a path under the served directory.
    pub fn url(&self, repo: &str) -> String {
        format!("http://127.0.0.1:{}/{repo}", self.port)
    }
}

impl Drop for GitHttp {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        let _ = TcpStream::connect(("127.0.0.1", self.port));
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// One request: read it, run `git http-backend` on it as CGI, send back
/// what it printed.
fn respond(
    conn: TcpStream,
    root: &Path,
    vars: &[(String, String)],
    chunked: &AtomicUsize,
) -> std::io::Result<()> {
    let mut out = conn.try_clone()?;
    let mut reader = BufReader::new(conn);
    let mut line = String::new();
    reader.read_line(&mut line)?;
    let mut words = line.split_whitespace();
    let (method, target) = (
        words.next().unwrap_or("").to_owned(),
        words.next().unwrap_or("/").to_owned(),
    );
    let mut headers: Vec<(String, String)> = Vec::new();
    loop {
        let mut h = String::new();
        if reader.read_line(&mut h)? == 0 || h.trim_end().is_empty() {
            break;
        }
        if let Some((k, v)) = h.split_once(':') {
            headers.push((k.trim().to_ascii_lowercase(), v.trim().to_owned()));
        }
    }
    let header = |name: &str| {
        headers
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.clone())
    };
    if header("expect").is_some_and(|e| e.eq_ignore_ascii_case("100-continue")) {
        out.write_all(b"HTTP/1.1 100 Continue\r\n\r\n")?;
    }
    // git sends a body larger than http.postBuffer in chunks.
    let body = if header("transfer-encoding").is_some_and(|t| t.eq_ignore_ascii_case("chunked")) {
        chunked.fetch_add(1, Ordering::SeqCst);
        read_chunked(&mut reader)?
    } else {
        let n: usize = header("content-length")
            .and_then(|n| n.parse().ok())
            .unwrap_or(0);
        let mut body = vec![0; n];
        reader.read_exact(&mut body)?;
        body
    };
    let (path, query) = target.split_once('?').unwrap_or((&target, ""));
    let mut cgi = Command::new("git");
    cgi.arg("http-backend")
        .env_clear()
        .envs(vars.iter().map(|(k, v)| (k, v)))
        .env("GIT_PROJECT_ROOT", root)
        .env("GIT_HTTP_EXPORT_ALL", "1")
        .env("GATEWAY_INTERFACE", "CGI/1.1")
        .env("SERVER_PROTOCOL", "HTTP/1.1")
        .env("REQUEST_METHOD", &method)
        .env("PATH_INFO", path)
        .env("QUERY_STRING", query)
        .env("CONTENT_LENGTH", body.len().to_string())
        // http-backend lets an authenticated user push.
        .env("REMOTE_USER", "tester")
        .env("REMOTE_ADDR", "127.0.0.1");
    for (k, v) in &headers {
        match k.as_str() {
            "content-type" => {
                cgi.env("CONTENT_TYPE", v);
            }
            "content-length" | "transfer-encoding" => {}
            // Git-Protocol (v2) and Content-Encoding (gzip) among them.
            _ => {
                cgi.env(
                    format!("HTTP_{}", k.to_ascii_uppercase().replace('-', "_")),
                    v,
                );
            }
        }
    }
    let mut child = cgi
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()?;
    let mut stdin = child.stdin.take().unwrap();
    // Written while the answer is read: neither side waits on a full pipe.
    let feeder = std::thread::spawn(move || stdin.write_all(&body));
    let done = child.wait_with_output()?;
    let _ = feeder.join();
    if !done.stderr.is_empty() {
        eprintln!(
            "git http-backend {method} {target}: {}",
            String::from_utf8_lossy(&done.stderr)
        );
    }
    let text = done.stdout;
    let split = text
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .map(|i| (i, i + 4))
        .or_else(|| {
            text.windows(2)
                .position(|w| w == b"\n\n")
                .map(|i| (i, i + 2))
        })
        .unwrap_or((text.len(), text.len()));
    let head = String::from_utf8_lossy(&text[..split.0]).into_owned();
    let body = &text[split.1..];
    let mut status = "200 OK".to_owned();
    let mut response = String::new();
    for h in head.lines() {
        match h.split_once(':') {
            Some((k, v)) if k.eq_ignore_ascii_case("status") => status = v.trim().to_owned(),
            Some(_) => response.push_str(&format!("{}\r\n", h.trim_end())),
            None => {}
        }
    }
    out.write_all(
        format!(
            "HTTP/1.1 {status}\r\n{response}Content-Length: {}\r\nConnection: close\r\n\r\n",
            body.len()
        )
        .as_bytes(),
    )?;
    out.write_all(body)?;
    out.flush()
}

/// A chunked request body (RFC 9112 §7.1), without its trailers.
fn read_chunked(reader: &mut impl BufRead) -> std::io::Result<Vec<u8>> {
    let mut body = Vec::new();
    loop {
        let mut size = String::new();
        reader.read_line(&mut size)?;
        let hex = size.trim().split(';').next().unwrap_or("");
        let n = usize::from_str_radix(hex, 16)
            .map_err(|_| std::io::Error::other(format!("bad chunk size {size:?}")))?;
        if n == 0 {
            // Trailers, up to the empty line.
            loop {
                let mut t = String::new();
                if reader.read_line(&mut t)? == 0 || t.trim_end().is_empty() {
                    return Ok(body);
                }
            }
        }
        let start = body.len();
        body.resize(start + n, 0);
        reader.read_exact(&mut body[start..])?;
        let mut crlf = String::new();
        reader.read_line(&mut crlf)?;
    }
}
