//! The hermetic test environment.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The fixed "now" every test runs at.
pub const NOW: &str = "2026-08-05T10:00:00Z";

pub struct TestEnv {
    pub dir: tempfile::TempDir,
    /// How many git-lore commands were started: each gets its own
    /// `GIT_LORE_RANDOMNESS_SEED`, so ids are the same on every run of a test
    /// and never the same between two commands.
    commands: std::cell::Cell<u64>,
    /// Variables every child gets on top of [`TestEnv::vars`]'s, set by
    /// [`TestEnv::set_var`] (how a transport is reached: `GIT_SSH_COMMAND`).
    extra: std::cell::RefCell<Vec<(String, String)>>,
}

/// A finished command, with its output as text.
#[derive(Debug)]
pub struct Run {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

impl Run {
    pub fn from(o: Output) -> Run {
        Run {
            code: o.status.code().unwrap_or(-1),
            stdout: String::from_utf8_lossy(&o.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&o.stderr).into_owned(),
        }
    }

    /// Asserts that stderr says `needle`, showing stderr when it does not.
    #[track_caller]
    pub fn assert_stderr(&self, needle: &str) {
        assert_says("stderr", &self.stderr, needle);
    }

    /// Asserts that stdout says `needle`, showing stdout when it does not.
    #[track_caller]
    pub fn assert_stdout(&self, needle: &str) {
        assert_says("stdout", &self.stdout, needle);
    }

    /// Asserts success and that stdout says `needle`.
    #[track_caller]
    pub fn assert_ok_stdout(&self, needle: &str) {
        self.ok();
        self.assert_stdout(needle);
    }

    /// Asserts that the command was refused (exit 1) saying `needle` on
    /// stderr, showing its output when it was not.
    #[track_caller]
    pub fn assert_refused(&self, needle: &str) {
        assert_eq!(
            self.code, 1,
            "expected a refusal\nstdout:\n{}\nstderr:\n{}",
            self.stdout, self.stderr
        );
        self.assert_stderr(needle);
    }

    /// Asserts success and returns stdout.
    #[track_caller]
    pub fn ok(&self) -> &str {
        assert_eq!(
            self.code, 0,
            "expected success\nstdout:\n{}\nstderr:\n{}",
            self.stdout, self.stderr
        );
        &self.stdout
    }
}

/// A command's whole output as a person sees it, for an inline snapshot
/// (`insta::assert_snapshot!`; `cargo insta review` updates them): `$ git
/// lore ARGS`, stdout, each line of stderr marked `[stderr]`, then the exit
/// code when it is not 0. Each `(text, name)` of `names` is shown as its
/// name, in that order: what differs between runs (a temporary directory,
/// a port, the id of a commit forged with the wall clock's time).
pub fn transcript<T: AsRef<str>, N: AsRef<str>>(
    args: &[&str],
    r: &Run,
    names: &[(T, N)],
) -> String {
    let mut s = format!("$ git lore {}\n{}", args.join(" "), r.stdout);
    for line in r.stderr.lines() {
        s.push_str(&format!("[stderr] {line}\n"));
    }
    if r.code != 0 {
        s.push_str(&format!("[exit {}]\n", r.code));
    }
    names
        .iter()
        .fold(s, |s, (text, name)| s.replace(text.as_ref(), name.as_ref()))
}

#[track_caller]
fn assert_says(stream: &str, text: &str, needle: &str) {
    assert!(text.contains(needle), "{stream} lacks {needle:?}:\n{text}");
}

/// Every test that wrote a lesson repository leaves it `git fsck --full`
/// clean: checked when the environment is dropped (unless the test already
/// failed).
impl Drop for TestEnv {
    fn drop(&mut self) {
        if !std::thread::panicking() && self.repo().join("HEAD").exists() {
            self.assert_fsck();
        }
    }
}

impl TestEnv {
    pub fn new() -> TestEnv {
        let dir = tempfile::Builder::new()
            .prefix("git-lore-test-")
            .tempdir()
            .expect("tempdir");
        std::fs::create_dir_all(dir.path().join("home")).unwrap();
        std::fs::create_dir_all(dir.path().join("bin")).unwrap();
        TestEnv {
            dir,
            commands: std::cell::Cell::new(0),
            extra: std::cell::RefCell::new(Vec::new()),
        }
    }

    /// Another user's environment: its commands' seeds start after
    /// `offset`, so its key, ids and commits differ from those of an
    /// environment made by [`TestEnv::new`].
    pub fn with_seeds_after(offset: u64) -> TestEnv {
        let env = TestEnv::new();
        env.commands.set(offset);
        env
    }

    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    pub fn home(&self) -> PathBuf {
        self.path().join("home")
    }

    /// The lesson repository every command uses by default.
    pub fn repo(&self) -> PathBuf {
        self.path().join("lessons.git")
    }

    /// The environment every child gets: nothing inherited but PATH, and
    /// what [`TestEnv::set_var`] added.
    pub fn vars(&self) -> Vec<(String, String)> {
        let path = format!(
            "{}:{}",
            self.path().join("bin").display(),
            std::env::var("PATH").unwrap_or_default()
        );
        vec![
            ("PATH".into(), path),
            ("HOME".into(), self.home().display().to_string()),
            ("GIT_CONFIG_NOSYSTEM".into(), "1".into()),
            ("GIT_CONFIG_GLOBAL".into(), "/dev/null".into()),
            ("GIT_LORE_REPO".into(), self.repo().display().to_string()),
            ("GIT_LORE_NOW".into(), NOW.into()),
            // What git writes is dated by the same clock as what git-lore
            // writes: a commit made by hand in a test is never months
            // away from "now" because the machine's clock is.
            ("GIT_AUTHOR_DATE".into(), NOW.into()),
            ("GIT_COMMITTER_DATE".into(), NOW.into()),
            ("LC_ALL".into(), "C".into()),
            ("TZ".into(), "UTC".into()),
        ]
        .into_iter()
        .chain(self.extra.borrow().iter().cloned())
        .collect()
    }

    /// Gives every child started from now on `key=value` as well.
    pub fn set_var(&self, key: &str, value: &str) {
        self.extra.borrow_mut().push((key.into(), value.into()));
    }

    /// A git-lore command with the test's environment and the next seed.
    pub fn lore_cmd(&self, args: &[&str]) -> Command {
        let n = self.commands.get() + 1;
        self.commands.set(n);
        let mut c = Command::new(env!("CARGO_BIN_EXE_git-lore"));
        c.args(args)
            .env_clear()
            .envs(self.vars())
            .env("GIT_LORE_RANDOMNESS_SEED", n.to_string())
            .current_dir(self.path());
        c
    }

    /// Runs `git-lore args…`.
    pub fn lore(&self, args: &[&str]) -> Run {
        Run::from(self.lore_cmd(args).output().expect("run git-lore"))
    }

    /// Starts `git-lore args…` with its output captured, without waiting.
    pub fn spawn_lore(&self, args: &[&str]) -> std::process::Child {
        self.lore_cmd(args)
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("spawn git-lore")
    }

    /// Runs `git lore args…`: its [`transcript`], with this test's
    /// directory shown as `[TMP]` and the source tree as `[REPO]`.
    pub fn session(&self, args: &[&str]) -> String {
        self.session_with(args, &[] as &[(&str, &str)])
    }

    /// [`TestEnv::session`], with `names` shown as theirs first.
    pub fn session_with<T: AsRef<str>, N: AsRef<str>>(
        &self,
        args: &[&str],
        names: &[(T, N)],
    ) -> String {
        let r = self.lore(args);
        transcript(args, &r, &self.names(names))
    }

    /// `names`, then this test's directory as `[TMP]` and the source tree
    /// as `[REPO]`: the names of a [`transcript`].
    pub fn names<T: AsRef<str>, N: AsRef<str>>(&self, names: &[(T, N)]) -> Vec<(String, String)> {
        let mut all: Vec<(String, String)> = names
            .iter()
            .map(|(t, n)| (t.as_ref().to_owned(), n.as_ref().to_owned()))
            .collect();
        all.push((self.path().display().to_string(), "[TMP]".into()));
        all.push((env!("CARGO_MANIFEST_DIR").into(), "[REPO]".into()));
        all
    }

    /// Runs `git-lore args…` with `input` on stdin.
    pub fn lore_stdin(&self, args: &[&str], input: &[u8]) -> Run {
        use std::io::Write;
        let mut c = self.lore_cmd(args);
        c.stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped());
        let mut child = c.spawn().expect("spawn git-lore");
        child.stdin.take().unwrap().write_all(input).unwrap();
        Run::from(child.wait_with_output().unwrap())
    }

    /// Runs `git args…` against the lesson repository.
    pub fn git(&self, args: &[&str]) -> Run {
        self.git_in(&self.repo(), args)
    }

    /// Runs `git --git-dir DIR args…` in the test's environment.
    pub fn git_in(&self, dir: &Path, args: &[&str]) -> Run {
        Run::from(self.git_command(dir, args).output().expect("run git"))
    }

    /// `git --git-dir DIR args…` in the test's environment, not started.
    fn git_command(&self, dir: &Path, args: &[&str]) -> Command {
        let mut c = Command::new("git");
        c.arg("--git-dir")
            .arg(dir)
            .args(args)
            .env_clear()
            .envs(self.vars());
        c
    }

    /// `git --git-dir DIR args…`, asserted to succeed: its stdout, trimmed.
    #[track_caller]
    pub fn git_at(&self, dir: &Path, args: &[&str]) -> String {
        self.git_in(dir, args).ok().trim().to_owned()
    }

    /// Runs `git lore verify` and checks that it verified everything,
    /// showing what it said when it did not.
    #[track_caller]
    pub fn assert_verifies(&self) {
        let r = self.lore(&["verify"]);
        assert_eq!(r.code, 0, "verify: {}{}", r.stdout, r.stderr);
        assert!(
            r.stdout.starts_with("verified ")
                && r.stdout
                    .contains(": every signature good, trailers and records consistent"),
            "verify: {}",
            r.stdout
        );
    }

    /// Runs `git lore verify` and checks that it failed naming each of
    /// `problems` (among whatever else it found).
    #[track_caller]
    pub fn assert_verify_fails<S: AsRef<str>>(&self, problems: &[S]) {
        let r = self.lore(&["verify"]);
        assert_eq!(r.code, 1, "verify must fail:\n{}\n{}", r.stdout, r.stderr);
        for p in problems {
            r.assert_stdout(p.as_ref());
        }
    }

    /// Runs `git args…` with `input` on stdin.
    pub fn git_stdin(&self, args: &[&str], input: &str) -> Run {
        let mut c = self.git_command(&self.repo(), args);
        c.stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped());
        Run::from(feed(&mut c, input))
    }

    /// `git lore init`, asserted to succeed.
    pub fn init(&self) {
        self.lore(&["init"]).ok();
    }

    /// `git fsck --full` is clean (dangling objects of lost races are fine).
    #[track_caller]
    pub fn assert_fsck(&self) {
        self.assert_fsck_at(&self.repo());
    }

    /// `git fsck --full` of the repository at `repo` is clean, once the
    /// background gc and repack git-lore may have started there are done
    /// (fsck while they swap packs would see a moving target).
    #[track_caller]
    pub fn assert_fsck_at(&self, repo: &Path) {
        let pid = repo.join("gc.pid");
        for _ in 0..600 {
            if !pid.exists() {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(100));
        }
        wait_for_repack_in(repo);
        let r = self.git_in(repo, &["fsck", "--full", "--no-dangling"]);
        assert_eq!(r.code, 0, "fsck failed:\n{}\n{}", r.stdout, r.stderr);
        assert!(
            !r.stderr.contains("error"),
            "fsck reported errors:\n{}",
            r.stderr
        );
    }

    /// Waits (up to two minutes) for the background repack git-lore
    /// starts after a command that wrote: it replaces packs, which a
    /// concurrent `git fsck` would see vanish.
    pub fn wait_for_repack(&self) {
        wait_for_repack_in(&self.repo());
    }

    /// Writes an executable stub program into the PATH directory.
    pub fn stub(&self, name: &str, script: &str) -> PathBuf {
        use std::os::unix::fs::PermissionsExt;
        let p = self.path().join("bin").join(name);
        std::fs::write(&p, format!("#!/bin/sh\n{script}\n")).unwrap();
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
        p
    }

    /// Writes a file relative to the test directory.
    pub fn write(&self, rel: &str, text: &str) -> PathBuf {
        let p = self.path().join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(&p, text).unwrap();
        p
    }

    /// The ledger's commit ids, newest first.
    pub fn ledger_commits(&self) -> Vec<String> {
        self.git(&["rev-list", "ledger"])
            .ok()
            .lines()
            .map(str::to_owned)
            .collect()
    }
}

/// An archivist artifact with the given id, summary and detail.
pub fn artifact(id: &str, summary: &str, detail: &str) -> serde_json::Value {
    serde_json::json!({
        "id": id, "kind": "decision", "project_key": "6a7678979e31", "source": "local",
        "created_at": "2026-08-03T15:59:48Z", "updated_at": "2026-08-03T15:59:48Z",
        "summary": summary, "detail": detail, "files": [], "session_id": "sess-1", "trigger": "auto"
    })
}

/// A deterministic ULID for test item `n` of series `series`.
pub fn ulid(series: u8, n: u32) -> String {
    let mut b = [0u8; 16];
    b[0] = 0x01;
    b[1] = 0x90;
    b[6] = series;
    b[12..16].copy_from_slice(&n.to_be_bytes());
    ulid_text(u128::from_be_bytes(b))
}

fn ulid_text(mut v: u128) -> String {
    const A: &[u8; 32] = b"0123456789ABCDEFGHJKMNPQRSTVWXYZ";
    let mut out = [b'0'; 26];
    for i in (0..26).rev() {
        out[i] = A[(v & 31) as usize];
        v >>= 5;
    }
    String::from_utf8(out.to_vec()).unwrap()
}

/// An artifact the offline backend proposes: it names `widgetN 1.N.0` and
/// states a fix.
pub fn proposable(series: u8, n: u32) -> serde_json::Value {
    artifact(
        &ulid(series, n),
        &format!("widget{n} 1.{n}.0 crashes on start"),
        "The loader rejects the config file on boot. Fixed by setting the timeout to 30 in config.yml.",
    )
}

impl TestEnv {
    /// The library's handle on the test's lesson repository, for what only
    /// the library can do (a transaction of a test's own making): the
    /// test's environment, a fixed clock and randomness from `seed`.
    pub fn library(&self, seed: u64) -> git_lore::ops::Lore {
        use rand::SeedableRng;
        let genv = git_lore::ops::Env::new(NOW.parse().unwrap(), Some(self.home()), self.vars());
        git_lore::ops::Lore::open(&self.repo(), genv, rand::rngs::StdRng::seed_from_u64(seed))
            .unwrap()
    }
}

impl TestEnv {
    /// Writes artifacts as one JSON Lines file and returns its path.
    pub fn artifacts_file(&self, name: &str, artifacts: &[serde_json::Value]) -> PathBuf {
        let text: String = artifacts.iter().map(|a| format!("{a}\n")).collect();
        self.write(name, &text)
    }

    /// Sets a config value in the lesson repository.
    pub fn config(&self, key: &str, value: &str) {
        self.git(&["config", key, value]).ok();
    }

    /// Points the command backend at a stub program with this script.
    pub fn model_stub(&self, script: &str) {
        let p = self.stub("model", script);
        self.config("lore.transform.command", p.to_str().unwrap());
    }

    /// A counter of a stub program's calls, kept in the test directory
    /// (see [`Calls::then`]).
    pub fn calls(&self) -> Calls {
        Calls(self.path().join("calls"))
    }

    /// Points the transform at a stub model that answers every call with
    /// `candidate` (kept in `answer.json`).
    pub fn model_answers(&self, candidate: &str) {
        let answer = self.write("answer.json", candidate);
        self.model_stub(&format!("cat {}", answer.display()));
    }

    /// Points the capture backend (`lore.capture.command`) at a stub
    /// program with this script.
    pub fn capture_stub(&self, script: &str) {
        let p = self.stub("capture-model", script);
        self.config("lore.capture.command", p.to_str().unwrap());
    }

    /// Points the judge backend (`lore.judge.command`) at a stub program
    /// with this script.
    pub fn judge_stub(&self, name: &str, script: &str) {
        let p = self.stub(name, script);
        self.config("lore.judge.command", p.to_str().unwrap());
    }

    /// Writes `verdict.json`, one judge's passing verdict with every
    /// criterion at `score`, for a judge stub to answer with. Its path.
    pub fn passing_verdict(&self, score: f64, feedback: &str) -> PathBuf {
        let v = serde_json::json!({"score": score, "passed": true, "confidence": 0.9,
            "criterion_scores": {"grounding": score, "scope_accuracy": score, "generality": score},
            "feedback_summary": feedback});
        self.write("verdict.json", &v.to_string())
    }

    /// A file in the ledger's tip, if present.
    pub fn ledger_file(&self, path: &str) -> Option<String> {
        let r = self.git(&["show", &format!("ledger:{path}")]);
        (r.code == 0).then_some(r.stdout)
    }

    /// The ledger's record of lesson `id`'s proposal.
    #[track_caller]
    pub fn proposal(&self, id: &str) -> serde_json::Value {
        let text = self
            .ledger_file(&fanout("proposals", id))
            .unwrap_or_else(|| panic!("no proposal {id} on the ledger"));
        serde_json::from_str(&text).unwrap()
    }

    /// `git lore confirm ID VISIBILITY` (with `--yes` unless private),
    /// checked: it says `Confirmed ID at VISIBILITY visibility.`, and the
    /// ledger holds the lesson confirmed at that visibility with the
    /// candidate it was proposed with.
    #[track_caller]
    pub fn confirm(&self, id: &str, visibility: &str) {
        let mut args = vec!["confirm", id, visibility];
        if visibility != "private" {
            args.push("--yes");
        }
        self.assert_confirmed(id, visibility, &self.lore(&args));
        let p = self.proposal(id);
        assert!(
            p["candidate_before_confirm"].is_null(),
            "a confirm without a justification keeps the candidate: {p:#}"
        );
    }

    /// `git lore confirm ID VISIBILITY --yes --justification J`, checked: it
    /// says `Confirmed ID at VISIBILITY visibility.`, and the ledger holds
    /// the lesson confirmed at that visibility, its scope assigned
    /// `{version_independent, J}` and the candidate it replaced kept in
    /// `candidate_before_confirm`.
    #[track_caller]
    pub fn confirm_justified(&self, id: &str, visibility: &str, justification: &str) {
        let r = self.lore(&[
            "confirm",
            id,
            visibility,
            "--yes",
            "--justification",
            justification,
        ]);
        self.assert_confirmed(id, visibility, &r);
        let p = self.proposal(id);
        assert_eq!(
            p["candidate"]["applies_to"]["scope"],
            serde_json::json!({"kind": "version_independent", "justification": justification}),
            "{p:#}"
        );
        assert!(
            p["candidate_before_confirm"]["applies_to"]["scope"].is_object(),
            "the candidate before the confirm is kept: {p:#}"
        );
    }

    /// What every confirm that succeeded printed and wrote.
    #[track_caller]
    fn assert_confirmed(&self, id: &str, visibility: &str, r: &Run) {
        assert_eq!(
            r.ok(),
            format!("Confirmed {id} at {visibility} visibility.\n")
        );
        let p = self.proposal(id);
        assert_eq!(
            (p["status"].as_str(), p["visibility"].as_str()),
            (Some("confirmed"), Some(visibility)),
            "{p:#}"
        );
        assert_eq!(p["confirmed_at"], NOW, "{p:#}");
    }
}

/// `v` as git-lore writes a record: pretty JSON and a newline.
pub fn record_text(v: &serde_json::Value) -> String {
    serde_json::to_string_pretty(v).unwrap() + "\n"
}

/// The fan-out path of a record.
pub fn fanout(dir: &str, id: &str) -> String {
    let b = id.as_bytes();
    format!(
        "{dir}/{}/{}/{}/{id}.json",
        b[23] as char, b[24] as char, b[25] as char
    )
}

/// How a forged commit is signed.
pub enum Sign<'a> {
    /// With the repository's own key, as git-lore signs.
    Repo,
    /// Not at all.
    Unsigned,
    /// With the ssh key in this file.
    Key(&'a Path),
}

impl TestEnv {
    /// Writes a commit by hand, the way someone with access to the
    /// repository could: `parent`'s tree (none for a root commit) with
    /// `changes` applied (`Some(text)` writes a file, `None` removes it),
    /// signed as `sign` says, then moves `branch` to it. Returns its id.
    pub fn forge(
        &self,
        branch: &str,
        parent: Option<&str>,
        changes: &[(&str, Option<&str>)],
        message: &str,
        sign: Sign<'_>,
    ) -> String {
        self.forge_with(&[], branch, parent, changes, message, sign)
    }

    /// [`TestEnv::forge`], with `git`'s environment also holding `vars`:
    /// another author or committer (`GIT_AUTHOR_NAME`, …), other dates
    /// (`GIT_COMMITTER_DATE`, …).
    pub fn forge_with(
        &self,
        vars: &[(&str, &str)],
        branch: &str,
        parent: Option<&str>,
        changes: &[(&str, Option<&str>)],
        message: &str,
        sign: Sign<'_>,
    ) -> String {
        let changes: Vec<(&str, &str, Option<&str>)> =
            changes.iter().map(|(p, c)| (*p, "100644", *c)).collect();
        self.forge_full(vars, branch, parent, &changes, message, sign)
    }

    /// [`TestEnv::forge`] with each file's mode given (`100644`, `100755`,
    /// `120000`: a symbolic link whose target is the text).
    pub fn forge_modes(
        &self,
        branch: &str,
        parent: Option<&str>,
        changes: &[(&str, &str, Option<&str>)],
        message: &str,
        sign: Sign<'_>,
    ) -> String {
        self.forge_full(&[], branch, parent, changes, message, sign)
    }

    fn forge_full(
        &self,
        vars: &[(&str, &str)],
        branch: &str,
        parent: Option<&str>,
        changes: &[(&str, &str, Option<&str>)],
        message: &str,
        sign: Sign<'_>,
    ) -> String {
        let index = self.path().join("forge-index");
        let with_index = |args: &[&str], input: Option<&str>| -> String {
            let mut c = self.git_command(&self.repo(), args);
            c.env("GIT_INDEX_FILE", &index)
                .stdin(std::process::Stdio::piped())
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped());
            let r = Run::from(feed(&mut c, input.unwrap_or("")));
            assert_eq!(r.code, 0, "git {args:?}: {}", r.stderr);
            r.stdout.trim().to_owned()
        };
        let _ = std::fs::remove_file(&index);
        match parent {
            Some(p) => with_index(&["read-tree", p], None),
            None => with_index(&["read-tree", "--empty"], None),
        };
        for (path, mode, content) in changes {
            match content {
                Some(text) => {
                    let blob = with_index(&["hash-object", "-w", "--stdin"], Some(text));
                    with_index(
                        &[
                            "update-index",
                            "--add",
                            "--cacheinfo",
                            &format!("{mode},{blob},{path}"),
                        ],
                        None,
                    );
                }
                None => {
                    let line = format!("0 {}\t{path}\n", "0".repeat(40));
                    with_index(&["update-index", "--index-info"], Some(&line));
                }
            }
        }
        let tree = with_index(&["write-tree"], None);
        let _ = std::fs::remove_file(&index);
        // `git commit-tree` signs only when asked with -S (it ignores
        // commit.gpgSign).
        let key;
        let mut args: Vec<&str> = Vec::new();
        let signed = match sign {
            Sign::Repo => true,
            Sign::Unsigned => false,
            Sign::Key(k) => {
                key = format!("user.signingkey={}", k.display());
                args.extend(["-c", key.as_str()]);
                true
            }
        };
        args.extend(["commit-tree", tree.as_str()]);
        if signed {
            args.push("-S");
        }
        if let Some(p) = parent {
            args.extend(["-p", p]);
        }
        args.extend(["-m", message]);
        let mut c = self.git_command(&self.repo(), &args);
        c.envs(vars.iter().copied());
        let id = Run::from(c.output().expect("run git"))
            .ok()
            .trim()
            .to_owned();
        self.git(&["update-ref", &format!("refs/heads/{branch}"), &id])
            .ok();
        id
    }

    /// A fresh ssh key that no allowed-signers file lists.
    pub fn stranger_key(&self) -> PathBuf {
        let key = self.path().join("stranger_key");
        if !key.exists() {
            let st = Command::new("ssh-keygen")
                .args(["-q", "-t", "ed25519", "-N", "", "-C", "stranger", "-f"])
                .arg(&key)
                .status()
                .unwrap();
            assert!(st.success());
        }
        key
    }
}

/// Ingest or capture output with the ` (from SOURCE)` that ends each line
/// taken off, for tests about outcomes rather than sources.
pub fn outcomes(out: &str) -> String {
    out.lines()
        .map(|l| match l.rfind(" (from ") {
            Some(i) if l.ends_with(')') => format!("{}\n", &l[..i]),
            _ => format!("{l}\n"),
        })
        .collect()
}

/// Runs `c` (its stdin piped) with `input` on its stdin and waits for it. A
/// program may exit without reading all of it (a hook that has nothing to
/// do): the broken pipe that follows is not an error.
pub fn feed(c: &mut Command, input: &str) -> std::process::Output {
    use std::io::Write;
    let mut child = c.spawn().unwrap();
    match child.stdin.take().unwrap().write_all(input.as_bytes()) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => panic!("writing stdin: {e}"),
        _ => {}
    }
    child.wait_with_output().unwrap()
}

/// Waits for the background repack git-lore started in `repo`, if any.
pub fn wait_for_repack_in(repo: &Path) {
    wait_for_pid_file(&repo.join("lore/repack.pid"), "the background repack");
}

/// Waits (up to two minutes) until the pid file `lock` is gone or names a
/// process that has ended (or is a zombie no one reaped).
pub fn wait_for_pid_file(lock: &Path, what: &str) {
    for _ in 0..1200 {
        let running = std::fs::read_to_string(lock).is_ok_and(|pid| {
            std::fs::read_to_string(format!("/proc/{}/stat", pid.trim()))
                .is_ok_and(|s| !s.rsplit_once(')').unwrap().1.trim_start().starts_with('Z'))
        });
        if !running {
            return;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    panic!("{what} is still running after two minutes");
}

/// The loose objects and packs `git count-objects -v` printed.
#[track_caller]
pub fn object_counts_in(count_objects: &str) -> (u64, u64) {
    let field = |name: &str| -> u64 {
        count_objects
            .lines()
            .find_map(|l| l.strip_prefix(name))
            .unwrap_or_else(|| panic!("no {name} in {count_objects}"))
            .trim()
            .parse()
            .unwrap()
    };
    (field("count:"), field("packs:"))
}

/// The lesson id of ingest's first line, `proposed ARTIFACT lesson LESSON …`.
#[track_caller]
pub fn lesson_of(out: &str) -> String {
    let line = out.lines().next().unwrap_or_default();
    match proposed(line) {
        Some((_, lesson)) => lesson.to_owned(),
        None => panic!("not a proposed line: {line:?}"),
    }
}

/// The lesson id of every line of ingest's output, each checked to be a
/// `proposed ARTIFACT lesson LESSON …` line.
#[track_caller]
pub fn lessons_of(out: &str) -> Vec<String> {
    out.lines().map(lesson_of).collect()
}

/// The lesson ingest proposed for `artifact`, from its
/// `proposed ARTIFACT lesson LESSON …` line.
#[track_caller]
pub fn lesson_for(out: &str, artifact: &str) -> String {
    out.lines()
        .filter_map(proposed)
        .find(|(a, _)| *a == artifact)
        .map(|(_, lesson)| lesson.to_owned())
        .unwrap_or_else(|| panic!("no proposal for {artifact} in\n{out}"))
}

/// `(artifact, lesson)` of a `proposed ARTIFACT lesson LESSON …` line.
fn proposed(line: &str) -> Option<(&str, &str)> {
    match line.split_whitespace().collect::<Vec<_>>()[..] {
        ["proposed", artifact, "lesson", lesson, ..] => Some((artifact, lesson)),
        _ => None,
    }
}

/// How many times a stub program was called.
pub struct Calls(PathBuf);

impl Calls {
    /// A stub script that reads its stdin, notes the call, then runs `rest`.
    pub fn then(&self, rest: &str) -> String {
        format!("cat >/dev/null; echo x >> {}; {rest}", self.0.display())
    }

    /// The calls so far.
    pub fn count(&self) -> usize {
        std::fs::read_to_string(&self.0)
            .map(|s| s.lines().count())
            .unwrap_or(0)
    }

    /// Starts counting again.
    pub fn reset(&self) {
        let _ = std::fs::remove_file(&self.0);
    }

    /// The file the calls are noted in.
    pub fn path(&self) -> &Path {
        &self.0
    }
}

/// A handshake between a test and a stub program through two marker files
/// in the test directory: the stub notes that it is running, then waits
/// until the test releases it. No step depends on how long anything takes;
/// the waits are bounded only so that a handshake that never happens fails
/// the test instead of hanging it.
pub struct Gate {
    started: PathBuf,
    released: PathBuf,
}

/// How long a side of a [`Gate`] waits for the other before giving up.
const GATE_BOUND_TENTHS: u32 = 1200;

impl TestEnv {
    /// A [`Gate`] named `name` (its marker files are `name.started` and
    /// `name.released` in the test directory).
    pub fn gate(&self, name: &str) -> Gate {
        Gate {
            started: self.path().join(format!("{name}.started")),
            released: self.path().join(format!("{name}.released")),
        }
    }
}

impl Gate {
    /// Shell for a stub program: note the start, then wait for the
    /// release (two minutes at most) before going on.
    pub fn script(&self) -> String {
        format!(
            ": > '{}'; i=0; while [ ! -e '{}' ] && [ $i -lt {GATE_BOUND_TENTHS} ]; do sleep 0.1; i=$((i+1)); done",
            self.started.display(),
            self.released.display()
        )
    }

    /// Waits until the stub has started; fails the test when it never does.
    #[track_caller]
    pub fn wait_started(&self) {
        for _ in 0..GATE_BOUND_TENTHS {
            if self.started.exists() {
                return;
            }
            std::thread::sleep(std::time::Duration::from_millis(100));
        }
        panic!(
            "the stub never reached its gate ({})",
            self.started.display()
        );
    }

    /// Lets the stub go on.
    pub fn release(&self) {
        std::fs::write(&self.released, "").unwrap();
    }
}
