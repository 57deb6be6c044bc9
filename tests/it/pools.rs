//! Pools on real remotes: a pool host made by `git lore host` (a bare
//! repository, reached by its path and through `git daemon`, `sshd` and
//! `git http-backend` on 127.0.0.1, see `servers.rs`) and two or more
//! users, each with their own lesson repository and key.
//!
//! - Two users share `pool/org`: pinning the first signer, trusting a
//!   teammate, publishing and syncing both ways; racing publishes.
//! - What the host's pre-receive check and `sync` refuse: an unsigned
//!   commit, one by an unknown key, trailers that disagree with the change,
//!   `.lore/` changed outside `config`, a squash, a rollback (and, on the
//!   host, a pool started by an unknown key or one tier's history pushed as
//!   another's); and, from a listed signer, an ambiguous commit: a second
//!   `Lore-Action` or `Lore-Visibility`, a trailer that contradicts the
//!   entry, an author who is not the signer, a date in 2099 or 1970.
//! - Joining: a newcomer told how to become a signer, a teammate whose own
//!   pool began separately.
//! - A write landing while `sync` fast-forwards, merges or adopts: decided
//!   on again, never dropped; which backups a refused adopt leaves.
//! - Public lessons: the remote pool started, a lesson proposed as a
//!   `review/<id>` branch with a pull-request body, merged back with a merge
//!   commit (and refused when squashed); a planted credential never leaves.
//! - The ledger and `pool/local` never reach a remote; retraction travels;
//!   a change of who may sign `pool/public` waits for a second signer.
//! - The small commands around them: `key`, `init --email`, `remote list`,
//!   URLs shown without their password, and `publish public --open`
//!   handing each pull request to a stub `gh`.

use std::cell::Cell;
use std::net::{TcpListener, TcpStream};
use std::os::fd::OwnedFd;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use git_lore::ops::sync::{self, Integration};
use serde_json::Value;

use crate::common::{fanout, proposable, record_text, transcript, Run, Sign, TestEnv};
use crate::servers::{hook_env, GitHttp, Sshd};

const PASS: &str = include_str!("../../src/review/testdata/judge-verdicts.pass.json");
const JUSTIFICATION: &str = "The loader has rejected this config file on boot in every release.";
/// A GitHub token of the documented shape (split so that no scanner flags
/// this file).
const TOKEN: &str = concat!("ghp_", "16C7e42F292c6912E7710c838347Ae178B4a");

// ---------------------------------------------------------------- users

/// One user: a lesson repository with its own key, and the artifacts it
/// ingested so far.
struct User {
    env: TestEnv,
    email: &'static str,
    series: u8,
    next: Cell<u32>,
}

/// User A: the pool's owner.
fn ana() -> User {
    User::new("ana@example.com", 0, 1)
}

/// User B: a teammate (other seeds, so another key and other ids).
fn ben() -> User {
    User::new("ben@example.com", 1_000, 2)
}

impl User {
    fn new(email: &'static str, seeds_after: u64, series: u8) -> User {
        let env = TestEnv::with_seeds_after(seeds_after);
        env.lore(&["init", "--email", email]).ok();
        User {
            env,
            email,
            series,
            next: Cell::new(1),
        }
    }

    fn lore(&self, args: &[&str]) -> Run {
        self.env.lore(args)
    }

    fn git(&self, args: &[&str]) -> Run {
        self.env.git(args)
    }

    /// This user's key as `git lore key` prints it, saved to a file (what
    /// they send a teammate).
    fn key_file(&self) -> PathBuf {
        let line = self.lore(&["key"]).ok().to_owned();
        self.env.write(&format!("{}.pub", self.email), &line)
    }

    fn fingerprint(&self) -> String {
        let k: Value = serde_json::from_str(self.lore(&["key", "--json"]).ok()).unwrap();
        k["fingerprint"].as_str().unwrap().to_owned()
    }

    /// Ingests a fresh artifact through the offline backend; the lesson id.
    fn propose(&self) -> String {
        let n = self.next.get();
        self.next.set(n + 1);
        let f = self.env.artifacts_file(
            &format!("artifact-{n}.jsonl"),
            &[proposable(self.series, 10 * self.series as u32 + n)],
        );
        let out = self.lore(&["ingest", f.to_str().unwrap()]);
        crate::common::lesson_of(out.ok())
    }

    /// Judges `id` with a passing panel; it must land on `pool/<tier>`.
    fn approve(&self, id: &str, tier: &str) {
        let panel = self.env.write("pass.json", PASS);
        let r = self.lore(&["judge", id, &format!("@{}", panel.display())]);
        r.assert_ok_stdout(&format!("promoted to pool/{tier}"));
    }

    /// An approved lesson promoted to `pool/org`.
    fn org_lesson(&self) -> String {
        let id = self.propose();
        self.env.confirm(&id, "org");
        self.approve(&id, "org");
        id
    }

    /// An approved lesson promoted to `pool/public`.
    fn public_lesson(&self) -> String {
        let id = self.propose();
        self.env.confirm_justified(&id, "public", JUSTIFICATION);
        self.approve(&id, "public");
        id
    }

    /// A private lesson on `pool/local`.
    fn private_lesson(&self) -> String {
        let id = self.propose();
        self.env.confirm(&id, "private");
        let r = self.lore(&["judge", &id, "[]"]);
        r.assert_ok_stdout("promoted to pool/local");
        id
    }

    fn tip(&self, name: &str) -> Option<String> {
        tip_in(&self.env, &self.env.repo(), name)
    }

    /// The pool entry of `id` on `pool/<tier>`, if there is one.
    fn entry(&self, tier: &str, id: &str) -> Option<Value> {
        let r = self.git(&["show", &format!("pool/{tier}:{}", fanout("lessons", id))]);
        (r.code == 0).then(|| serde_json::from_str(&r.stdout).unwrap())
    }

    /// `git verify-commit` is good for every commit of `pool/<tier>`.
    #[track_caller]
    fn assert_stock_git_verifies(&self, tier: &str) {
        let list = self.git(&["rev-list", &format!("pool/{tier}")]);
        let commits: Vec<&str> = list.ok().lines().collect();
        assert!(!commits.is_empty());
        for c in commits {
            let r = self.git(&["verify-commit", c]);
            assert_eq!(r.code, 0, "{} {c}: {}", self.email, r.stderr);
            assert!(
                r.stderr.starts_with("Good \"git\" signature for "),
                "{}",
                r.stderr
            );
        }
    }

    #[track_caller]
    fn assert_verifies(&self) {
        let r = self.lore(&["verify"]);
        assert_eq!(r.code, 0, "{}: {}{}", self.email, r.stdout, r.stderr);
    }

    /// `git push --no-verify HOST SPEC`, past this repository's pre-push
    /// guard, checked to be refused by the host: the push fails, stderr
    /// says each of `says`, and the ref SPEC pushes to is where it was.
    /// What the host's check said: the `remote: ` lines of git's output.
    #[track_caller]
    fn push_refused(&self, host: &Path, spec: &str, says: &[&str]) -> String {
        let dst = spec.rsplit(':').next().unwrap();
        let before = tip_in(&self.env, host, dst);
        let r = self.git(&["push", "--no-verify", host.to_str().unwrap(), spec]);
        assert_ne!(r.code, 0, "the host accepted {spec}:\n{}", r.stderr);
        for s in says {
            r.assert_stderr(s);
        }
        assert_eq!(tip_in(&self.env, host, dst), before, "{dst} moved");
        r.stderr
            .lines()
            .filter(|l| l.starts_with("remote: "))
            .map(|l| format!("{}\n", l.trim_end()))
            .collect()
    }

    /// `git lore remote add TIER URL` with no signer pinned, checked: it
    /// says `TIER: URL (0 pinned signers)` and that sync will show the first
    /// signer, git's config sends TIER to URL, and TIER has no pins.
    #[track_caller]
    fn add_remote(&self, tier: &str, url: &str) {
        let r = self.lore(&["remote", "add", tier, url]);
        assert_eq!(r.ok(), format!("{tier}: {url} (0 pinned signers)\n"));
        r.assert_stderr(&format!(
            "no signer pinned: `git lore sync {tier}` will show the first signer's fingerprint"
        ));
        self.assert_remote_url(tier, url);
        let pins = self.env.repo().join("pins").join(tier);
        assert!(!pins.exists(), "{} exists", pins.display());
    }

    #[track_caller]
    fn assert_remote_url(&self, tier: &str, url: &str) {
        assert_eq!(
            self.git(&["config", &format!("remote.{tier}.url")])
                .ok()
                .trim(),
            url
        );
    }

    /// `git lore remote add TIER URL --signer OWNER.pub`, checked: it says
    /// `TIER: URL (1 pinned signer)`, git's config sends TIER to URL, and
    /// the tier's pins are the owner's key alone.
    #[track_caller]
    fn pin_remote(&self, tier: &str, url: &str, owner: &User) {
        let key = owner.key_file();
        let r = self.lore(&[
            "remote",
            "add",
            tier,
            url,
            "--signer",
            key.to_str().unwrap(),
        ]);
        assert_eq!(r.ok(), format!("{tier}: {url} (1 pinned signer)\n"));
        self.assert_remote_url(tier, url);
        let sent = std::fs::read_to_string(&key).unwrap();
        let blob = sent.split_whitespace().nth(2).unwrap();
        let pins = std::fs::read_to_string(self.env.repo().join("pins").join(tier)).unwrap();
        assert!(
            matches!(pins.lines().collect::<Vec<_>>()[..],
                [pin] if pin.starts_with(&format!("{} ", owner.email)) && pin.contains(blob)),
            "pins of {tier} are not {}'s key alone:\n{pins}",
            owner.email
        );
    }

    /// Pins `owner` on the tier's remote at `host` ([`User::pin_remote`])
    /// and syncs, checked: sync says it verified the remote's commits, and
    /// this user's pool is the host's.
    #[track_caller]
    fn join(&self, tier: &str, host: &Path, owner: &User) {
        let url = host.display().to_string();
        self.pin_remote(tier, &url, owner);
        let r = self.lore(&["sync", tier]);
        assert!(
            r.ok().starts_with(&format!("pool/{tier}: "))
                && r.stdout
                    .contains(&format!(" verified commits from {url}, ")),
            "{}",
            r.stdout
        );
        let pool = format!("pool/{tier}");
        assert_eq!(self.tip(&pool), tip_in(&self.env, host, &pool));
    }
}

// ---------------------------------------------------------------- transcripts

/// What a transcript ([`crate::common::transcript`]) shows instead of what
/// differs between runs: `names` first, then each user's directory as
/// `[ana]`, `[ben]`, ….
fn names(users: &[&User], names: &[(&str, &str)]) -> Vec<(String, String)> {
    let mut all: Vec<(String, String)> = names
        .iter()
        .map(|(t, n)| (t.to_string(), n.to_string()))
        .collect();
    for u in users {
        let who = u.email.split('@').next().unwrap();
        all.push((u.env.path().display().to_string(), format!("[{who}]")));
    }
    all
}

impl User {
    /// Runs `git lore args…` as this user: its transcript, with `names`
    /// shown as theirs.
    fn session(&self, args: &[&str], names: &[(String, String)]) -> String {
        transcript(args, &self.lore(args), names)
    }
}

/// The fingerprint of the stranger's key ([`TestEnv::stranger_key`]), made
/// afresh by every run, if `env` has made it.
fn stranger_fingerprint(env: &TestEnv) -> Option<String> {
    let key = env.path().join("stranger_key.pub");
    if !key.exists() {
        return None;
    }
    let out = Command::new("ssh-keygen")
        .arg("-lf")
        .arg(&key)
        .output()
        .unwrap();
    let line = String::from_utf8(out.stdout).unwrap();
    line.split_whitespace().nth(1).map(str::to_owned)
}

// ---------------------------------------------------------------- git

fn tip_in(env: &TestEnv, dir: &Path, name: &str) -> Option<String> {
    let r = env.git_in(dir, &["rev-parse", "--verify", "-q", name]);
    (r.code == 0).then(|| r.stdout.trim().to_owned())
}

/// Checks that `host` has no object `commit` (`what`, in the failure).
#[track_caller]
fn assert_not_at(env: &TestEnv, host: &Path, commit: &str, what: &str) {
    let r = env.git_in(host, &["cat-file", "-e", commit]);
    assert_ne!(r.code, 0, "{what} {commit} reached {}", host.display());
}

/// Checks that neither `u`'s ledger nor its pool/local reached `host`.
#[track_caller]
fn assert_private_not_at(u: &User, host: &Path) {
    for private in ["ledger", "pool/local"] {
        let tip = u.tip(private).unwrap();
        assert_not_at(&u.env, host, &tip, &format!("{private}'s tip"));
    }
}

/// A commit made on a host the way a forge makes one: with the forge's
/// identity, signed by `key` when given.
fn forge_commit(
    env: &TestEnv,
    host: &Path,
    tree: &str,
    parents: &[&str],
    key: Option<&Path>,
) -> String {
    let signing;
    let mut args = vec![
        "-c",
        "user.name=Forge",
        "-c",
        "user.email=forge@example.com",
    ];
    if let Some(k) = key {
        signing = format!("user.signingkey={}", k.display());
        args.extend(["-c", "gpg.format=ssh", "-c", signing.as_str()]);
    }
    args.extend(["commit-tree", tree]);
    if key.is_some() {
        args.push("-S");
    }
    for p in parents {
        args.extend(["-p", p]);
    }
    args.extend(["-m", "Merge pull request #1"]);
    env.git_at(host, &args)
}

// ---------------------------------------------------------------- host

/// `git lore host` run by `owner`, with their key as the root signer: the
/// bare repository `srv/host.git` in their directory.
fn host(owner: &User) -> PathBuf {
    let dir = owner.env.path().join("srv").join("host.git");
    let key = owner.key_file();
    let args = [
        "host",
        dir.to_str().unwrap(),
        "--signer",
        key.to_str().unwrap(),
    ];
    let r = owner.lore(&args);
    r.ok();
    let fp = owner.fingerprint();
    let n = names(&[owner], &[(&fp, "[ana's fingerprint]")]);
    // The same for every test that makes a host.
    insta::allow_duplicates! {
        insta::assert_snapshot!(transcript(&args, &r, &n), @"
        $ git lore host [ana]/srv/host.git --signer [ana]/ana@example.com.pub
        Created pool host in [ana]/srv/host.git: pre-receive hook installed, 1 root signer
        [stderr] root signer [ana's fingerprint]  ana@example.com
        ");
    }
    dir
}

/// `git daemon` serving `base` on 127.0.0.1 (an ephemeral port), one
/// `git daemon --inetd` per connection; stopped when dropped.
struct Daemon {
    port: u16,
    stop: Arc<AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Daemon {
    fn serve(env: &TestEnv, base: &Path) -> Daemon {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1");
        let port = listener.local_addr().unwrap().port();
        // The host's hook finds git-lore on PATH; HOME and git's config
        // stay the test's.
        let vars = hook_env(env.vars());
        let base = base.to_owned();
        let stop = Arc::new(AtomicBool::new(false));
        let stopping = stop.clone();
        let thread = std::thread::spawn(move || {
            let mut children = Vec::new();
            for conn in listener.incoming() {
                if stopping.load(Ordering::SeqCst) {
                    break;
                }
                let Ok(conn) = conn else { continue };
                let input = OwnedFd::from(conn.try_clone().expect("clone socket"));
                let output = OwnedFd::from(conn);
                let child = Command::new("git")
                    .args([
                        "daemon",
                        "--inetd",
                        "--export-all",
                        "--enable=receive-pack",
                        "--informative-errors",
                        "--log-destination=none",
                    ])
                    .arg(format!("--base-path={}", base.display()))
                    .env_clear()
                    .envs(vars.iter().map(|(k, v)| (k, v)))
                    .stdin(Stdio::from(input))
                    .stdout(Stdio::from(output))
                    .stderr(Stdio::null())
                    .spawn()
                    .expect("start git daemon --inetd");
                children.push(child);
            }
            for mut c in children {
                let _ = c.wait();
            }
        });
        Daemon {
            port,
            stop,
            thread: Some(thread),
        }
    }

    fn url(&self, repo: &str) -> String {
        format!("git://127.0.0.1:{}/{repo}", self.port)
    }
}

impl Drop for Daemon {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        let _ = TcpStream::connect(("127.0.0.1", self.port));
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// Ana, with one org lesson published to a host she made; Ben, who pinned
/// her key and synced (but may not sign the pool yet).
struct Team {
    a: User,
    b: User,
    host: PathBuf,
    url: String,
    /// Ana's first lesson.
    a1: String,
}

fn team() -> Team {
    let (a, b) = (ana(), ben());
    let a1 = a.org_lesson();
    let host = host(&a);
    let url = host.display().to_string();
    a.add_remote("org", &url);
    a.lore(&["publish", "org"]).ok();
    b.join("org", &host, &a);
    Team {
        a,
        b,
        host,
        url,
        a1,
    }
}

impl Team {
    /// Ana trusts Ben on pool/org, publishes it, and Ben syncs.
    fn trust_ben(&self) {
        let key = self.b.key_file();
        self.a
            .lore(&[
                "trust",
                "add",
                "org",
                key.to_str().unwrap(),
                "--principal",
                self.b.email,
            ])
            .ok();
        self.a.lore(&["publish", "org"]).ok();
        self.b.lore(&["sync", "org"]).ok();
    }

    fn host_tip(&self, name: &str) -> Option<String> {
        tip_in(&self.a.env, &self.host, name)
    }

    /// Moves the host's pool/org to `commit` (on Ana's branch `forged`)
    /// behind the hook's back, as a compromised or careless server could;
    /// checked to be the host's tip.
    #[track_caller]
    fn plant_on_host(&self, commit: &str) {
        self.at_host(&[
            "fetch",
            "--no-tags",
            "--quiet",
            self.a.env.repo().to_str().unwrap(),
            "forged",
        ]);
        self.at_host(&["update-ref", "refs/heads/pool/org", commit]);
        assert_eq!(self.host_tip("pool/org").as_deref(), Some(commit));
    }

    fn at_host(&self, args: &[&str]) -> String {
        self.a.env.git_at(&self.host, args)
    }
}

// ---------------------------------------------------------------- two users

/// The whole two-user flow of the issue over `url`, which serves `host`.
fn share_org_pool(a: &User, b: &User, host: &Path, url: &str) {
    // Every transport (a path, git daemon, ssh, smart HTTP) shows the same.
    insta::allow_duplicates! {
        let a1 = a.org_lesson();
        a.add_remote("org", url);
        let a_tip = a.tip("pool/org").unwrap();
        // Shown by name: the URL (a path, or a server's port), what stands
        // for a lesson or a tip, the users' directories.
        let fp = a.fingerprint();
        let n = names(
            &[a, b],
            &[
                (url, "[URL]"),
                (&a_tip[..12], "[ana's tip]"),
                (&a1, "[a1]"),
                (&fp, "[ana's fingerprint]"),
            ],
        );
        insta::assert_snapshot!(a.session(&["publish", "org"], &n), @"
        $ git lore publish org
        pool/org: pushed 2 commits to [URL] (nothing -> [ana's tip])
        ");
        assert_eq!(tip_in(&a.env, host, "pool/org"), Some(a_tip.clone()));
        // The host keeps a commit-graph, so the next push's check walks only
        // what is new.
        let chain = host.join("objects/info/commit-graphs/commit-graph-chain");
        assert!(chain.is_file(), "no commit-graph after a push");

        // Ben does not know who started the pool: refused, with the way to pin.
        b.add_remote("org", url);
        insta::assert_snapshot!(b.session(&["sync", "org"], &n), @"
        $ git lore sync org
        [stderr] git-lore: the remote pool/org at [URL] was started by key [ana's fingerprint], which is not pinned for org; nothing was integrated. Check that fingerprint with the pool's owner, then pin it: `git lore sync org --pin [ana's fingerprint]` (or `git lore remote add org URL --signer OWNER.pub`)
        [exit 1]
        ");
        assert_eq!(b.tip("pool/org"), None);
        assert_eq!(b.tip("refs/lore/remotes/org"), None);
        assert_eq!(b.tip("refs/lore/incoming/org"), None);

        insta::assert_snapshot!(b.session(&["sync", "org", "--pin", &fp], &n), @"
        $ git lore sync org --pin [ana's fingerprint]
        pool/org: 2 verified commits from [URL], 1 new lesson
        [stderr] pinned [ana's fingerprint] as the first signer of pool/org
        ");
        assert_eq!(b.tip("pool/org"), Some(a_tip.clone()));
        assert_eq!(b.entry("org", &a1).unwrap()["status"], "active");
        // Recall reads a project; an empty one installs nothing.
        let project = b.env.path().join("project");
        std::fs::create_dir_all(&project).unwrap();
        let project = project.to_str().unwrap();
        insta::assert_snapshot!(b.session(&["recall", "--all", "--project", project], &n), @"
        $ git lore recall --all --project [ben]/project
        [a1]  widget11 1.11.0 crashes on start  [widget11 =1.11.0]  (not recalled: widget11 not installed)
        [stderr] no lesson applies to the versions installed in [ben]/project (0 packages found)
        ");
        let log = b.lore(&["log"]);
        log.assert_ok_stdout(&format!(
            "promote {a1} into pool/org\n    promote -> active; signature: good ({})",
            a.email
        ));

        // Ana trusts Ben; Ben promotes and publishes; Ana syncs.
        let key = b.key_file();
        let r = a.lore(&[
            "trust",
            "add",
            "org",
            key.to_str().unwrap(),
            "--principal",
            b.email,
        ]);
        assert_eq!(r.ok(), format!("pool/org: {} may sign\n", b.email));
        let trusted = a.tip("pool/org").unwrap();
        let n = names(
            &[a, b],
            &[
                (url, "[URL]"),
                (&a_tip[..12], "[ana's tip]"),
                (&trusted[..12], "[trusted]"),
            ],
        );
        insta::assert_snapshot!(a.session(&["publish", "org"], &n), @"
        $ git lore publish org
        pool/org: pushed 1 commit to [URL] ([ana's tip] -> [trusted])
        ");
        insta::assert_snapshot!(b.session(&["sync", "org"], &n), @"
        $ git lore sync org
        pool/org: 1 verified commit from [URL], no new lessons
        ");
        let b1 = b.org_lesson();
        let b_tip = b.tip("pool/org").unwrap();
        let n = names(
            &[a, b],
            &[
                (url, "[URL]"),
                (&trusted[..12], "[trusted]"),
                (&b_tip[..12], "[ben's tip]"),
            ],
        );
        insta::assert_snapshot!(b.session(&["publish", "org"], &n), @"
        $ git lore publish org
        pool/org: pushed 1 commit to [URL] ([trusted] -> [ben's tip])
        ");
        insta::assert_snapshot!(a.session(&["sync", "org"], &n), @"
        $ git lore sync org
        pool/org: 1 verified commit from [URL], 1 new lesson
        ");
        assert_eq!(a.entry("org", &b1).unwrap()["status"], "active");
        let log = a.lore(&["log"]);
        log.assert_ok_stdout(&format!(
            "promote {b1} into pool/org\n    promote -> active; signature: good ({})",
            b.email
        ));

        // One history everywhere, and stock git agrees with every signature.
        let host_tip = tip_in(&a.env, host, "pool/org");
        assert_eq!(a.tip("pool/org"), host_tip);
        assert_eq!(b.tip("pool/org"), host_tip);
        for u in [a, b] {
            u.assert_stock_git_verifies("org");
            u.assert_verifies();
        }
    }
}

#[test]
fn two_users_share_an_org_pool_through_a_path() {
    let (a, b) = (ana(), ben());
    let host = host(&a);
    share_org_pool(&a, &b, &host, host.to_str().unwrap());
}

#[test]
fn two_users_share_an_org_pool_through_git_daemon() {
    let (a, b) = (ana(), ben());
    let host = host(&a);
    let daemon = Daemon::serve(&a.env, host.parent().unwrap());
    share_org_pool(&a, &b, &host, &daemon.url("host.git"));
    host_refuses_over(&a, &host, &daemon.url("host.git"));
}

/// Over `url`, which serves `host`: the host's pre-receive check runs and
/// its refusal of a commit pushed by hand reaches the pusher. The commit
/// carries some 200 KB that do not compress (over HTTP, more than a small
/// `http.postBuffer`: the push is sent in chunks).
fn host_refuses_over(a: &User, host: &Path, url: &str) {
    let before = tip_in(&a.env, host, "pool/org");
    let parent = a.tip("pool/org").unwrap();
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    let noise: String = (0..25_000)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            format!("{x:016x}")
        })
        .collect();
    let c = a.env.forge(
        "forged",
        Some(&parent),
        &[("note.txt", Some(&noise))],
        "note: unsigned",
        Sign::Unsigned,
    );
    let r = a.git(&["push", "--no-verify", url, "forged:refs/heads/pool/org"]);
    assert_ne!(r.code, 0, "the host accepted it:\n{}", r.stderr);
    r.assert_stderr("pre-receive hook declined");
    r.assert_stderr(&format!(
        "remote: git-lore: rejected {c} (pool/org): unsigned commit"
    ));
    assert_eq!(tip_in(&a.env, host, "pool/org"), before);
}

#[test]
fn two_users_share_an_org_pool_over_ssh() {
    let (a, b) = (ana(), ben());
    let host = host(&a);
    let sshd = Sshd::start(&a.env.path().join("sshd"), &hook_env(a.env.vars()));
    for u in [&a, &b] {
        u.env.set_var("GIT_SSH_COMMAND", &sshd.ssh_command());
    }
    share_org_pool(&a, &b, &host, &sshd.url(&host));
    host_refuses_over(&a, &host, &sshd.url(&host));
}

#[test]
fn two_users_share_an_org_pool_over_smart_http() {
    let (a, b) = (ana(), ben());
    let host = host(&a);
    let http = GitHttp::serve(host.parent().unwrap(), hook_env(a.env.vars()));
    share_org_pool(&a, &b, &host, &http.url("host.git"));
    assert_eq!(http.chunked_requests(), 0);
    // A body over 64 KiB (git's least postBuffer; 1 MiB unless set) goes
    // in chunks.
    a.git(&["config", "http.postBuffer", "65536"]).ok();
    host_refuses_over(&a, &host, &http.url("host.git"));
    assert!(
        http.chunked_requests() > 0,
        "the large push was not chunked"
    );
}

/// A sync that fast-forwards writes no commit of its own, but its fetch
/// brought a pack: the repository gets that pack's commit-graph layer in
/// the background, as after any write, without which every later walk of
/// the pool (the next sync's merge base, its new commits) visits its whole
/// history.
#[test]
fn a_fast_forwarding_sync_gets_a_commit_graph_for_what_it_brought() {
    let t = team();
    // git unpacks a fetch of fewer than 100 objects: keep whatever comes as
    // a pack, as a large sync's is.
    t.b.git(&["config", "fetch.unpackLimit", "1"]).ok();
    t.a.org_lesson();
    t.a.lore(&["publish", "org"]).ok();
    let r = t.b.lore(&["sync", "org"]);
    assert!(r.ok().contains("1 new lesson"), "{}", r.stdout);
    crate::common::wait_for_repack_in(&t.b.env.repo());
    let chain =
        t.b.env
            .repo()
            .join("objects/info/commit-graphs/commit-graph-chain");
    assert!(chain.is_file(), "no commit-graph after the sync");
    let graph = t.b.git(&["commit-graph", "verify"]);
    assert_eq!(graph.code, 0, "{}", graph.stderr);
    assert_eq!(t.b.tip("pool/org"), t.a.tip("pool/org"));
}

/// After a sync, a teammate's lesson is Ben's to read like his own: `show`
/// (with where it came from), `log`, `list` and `status` find it by its id
/// or a prefix, and a prefix it shares with one of his own is refused with
/// both named.
#[test]
fn a_synced_lesson_is_shown_logged_and_listed() {
    let t = team();
    let short = t.a1[..8].to_lowercase();
    let commit = t.a.tip("pool/org").unwrap();
    let n = names(
        &[&t.a, &t.b],
        &[
            (t.a1.as_str(), "[a1]"),
            (&t.a.fingerprint(), "[ana's fingerprint]"),
        ],
    );
    insta::assert_snapshot!(t.b.session(&["show", &short], &n), @"
    $ git lore show 01kz8n9c
    id:          [a1] (short: 01KZ8N)
    status:      active
    pool:        pool/org, shared with remote org ([ana]/srv/host.git)
    signed by:   ana@example.com (good signature), commit ad7df831e643 of 2026-08-05T10:00:00Z
    synced:      2026-08-05T10:00:00Z
    visibility:  org
    artifact:    01J0000000040000000000000B
    claim:       widget11 1.11.0 crashes on start
    rationale:   The loader rejects the config file on boot. Scoped to exactly the versions seen (widget11 1.11.0): the text states no wider range.
    resolution:  Fixed by setting the timeout to 30 in config.yml.
    stack:       widget11
    scope:       widget11 =1.11.0
    jury:        2 of 2 judges agreed, 2026-08-05T10:00:00Z
    promoted:    2026-08-05T10:00:00Z
    related:     not yet (`git lore relate [a1]`)
    ");
    let json: Value = serde_json::from_str(t.b.lore(&["show", &t.a1, "--json"]).ok()).unwrap();
    assert_eq!(json["entry"], t.b.entry("org", &t.a1).unwrap());
    assert_eq!(json["origin"]["signer"], t.a.email);
    assert_eq!(json["origin"]["signature"], "good");
    assert_eq!(json["origin"]["commit"].as_str(), Some(commit.as_str()));
    insta::assert_snapshot!(t.b.session(&["log", &short], &n), @"
    $ git lore log 01kz8n9c
    ad7df831e643 2026-08-05T10:00:00Z pool/org    promote [a1] into pool/org
        promote -> active; signature: good (ana@example.com)
    ");
    insta::assert_snapshot!(t.b.session(&["list", "--pool", "org"], &n), @"
    $ git lore list --pool org
    01KZ8N  pool/org     active      widget11 1.11.0 crashes on start
    ");
    // Ben's own pending lesson beside it.
    let b1 = t.b.propose();
    let n = names(
        &[&t.a, &t.b],
        &[(t.a1.as_str(), "[a1]"), (b1.as_str(), "[b1]")],
    );
    insta::assert_snapshot!(t.b.session(&["list", "--all"], &n), @"
    $ git lore list --all
    01KZ8N9  pool/org     active      widget11 1.11.0 crashes on start
    01KZ8NW  ledger       pending     widget21 1.21.0 crashes on start
    ");
    insta::assert_snapshot!(t.b.session(&["list", "--pool", "local"], &n), @"
    $ git lore list --pool local
    [stderr] No lessons in pool/local. A teammate's lessons arrive with `git lore sync TIER` (docs/pools.md).
    ");
    insta::assert_snapshot!(t.b.session(&["status"], &n), @"
    $ git lore status
    lessons pending: 1
    lessons confirmed (awaiting the jury): 0
    lessons approved: 0, rejected: 0, passed: 0
    lessons in pool/org: 1 active
    ");
    let status: Value = serde_json::from_str(t.b.lore(&["status", "--json"]).ok()).unwrap();
    assert_eq!(status["pools"]["org"]["active"], 1);
    assert_eq!(status["pending"], 1);
    // Both made at the test's fixed clock: they share the six characters
    // that say when, and differ right after.
    let common = &t.a1[..4];
    assert!(b1.starts_with(common));
    insta::assert_snapshot!(t.b.session(&["show", common], &n), @"
    $ git lore show 01KZ
    [stderr] git-lore: 01KZ is ambiguous: 2 ids start with it: 01KZ8N9 (lesson in pool/org, active), 01KZ8NW (lesson, pending); give enough characters to name one
    [exit 1]
    ");
    // A whole id no pool and no ledger has.
    // When it was synced is when Ben's sync took it in (the reflog of the
    // remote's verified tip), not when Ana signed it.
    let a2 = t.a.org_lesson();
    t.a.lore(&["publish", "org"]).ok();
    let later = Run::from(
        t.b.env
            .lore_cmd(&["sync", "org"])
            .env("GIT_LORE_NOW", "2026-08-06T09:30:00Z")
            .output()
            .unwrap(),
    );
    later.assert_ok_stdout("pool/org: 1 verified commit from ");
    let shown = t.b.lore(&["show", &a2]).ok().to_owned();
    assert!(
        shown.contains("synced:      2026-08-06T09:30:00Z\n")
            && shown.contains(" of 2026-08-05T10:00:00Z\n"),
        "{shown}"
    );
    insta::assert_snapshot!(t.b.session(&["show", "7ZZZZZZZZZZZZZZZZZZZZZZZZZ"], &n), @"
    $ git lore show 7ZZZZZZZZZZZZZZZZZZZZZZZZZ
    [stderr] git-lore: lesson 7ZZZZZZZZZZZZZZZZZZZZZZZZZ not found
    [exit 1]
    ");
}

#[test]
fn racing_publishes_both_succeed_and_lose_nothing() {
    let t = team();
    t.trust_ben();
    let a2 = t.a.org_lesson();
    let b2 = t.b.org_lesson();
    let pa = t.a.env.spawn_lore(&["publish", "org"]);
    let pb = t.b.env.spawn_lore(&["publish", "org"]);
    let mut synced = 0;
    for (who, p) in [("ana", pa), ("ben", pb)] {
        let o = p.wait_with_output().unwrap();
        let (out, err) = (
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&o.stderr),
        );
        assert!(o.status.success(), "{who}: {out}{err}");
        assert!(out.starts_with("pool/org: pushed "), "{who}: {out}");
        if err.contains("pool/org: the remote had moved; synced ") {
            synced += 1;
        }
    }
    // Whoever pushed second had to bring the first one's commit in.
    assert_eq!(synced, 1, "exactly one publish synced first");
    assert_eq!(
        t.at_host(&["rev-list", "--count", "--merges", "pool/org"]),
        "1"
    );
    let files = t.at_host(&["ls-tree", "-r", "--name-only", "pool/org"]);
    for id in [&t.a1, &a2, &b2] {
        assert!(
            files.contains(&fanout("lessons", id)),
            "{id} lost:\n{files}"
        );
    }
    // Whoever lost the race merged; the other catches up by fast-forward.
    for u in [&t.a, &t.b] {
        u.lore(&["sync", "org"]).ok();
        assert_eq!(u.tip("pool/org"), t.host_tip("pool/org"));
        u.assert_verifies();
        u.assert_stock_git_verifies("org");
    }
    // Across the merge, each sees who made the other's lesson: the promote
    // commit that added it, not the merge that brought it in.
    for (u, other, id) in [(&t.a, &t.b, &b2), (&t.b, &t.a, &a2)] {
        let shown: Value = serde_json::from_str(u.lore(&["show", id, "--json"]).ok()).unwrap();
        let origin = &shown["origin"];
        assert_eq!(origin["signer"], other.email, "{shown}");
        let subject = u.git(&[
            "log",
            "-1",
            "--format=%s",
            origin["commit"].as_str().unwrap(),
        ]);
        assert_eq!(subject.ok().trim(), format!("promote {id} into pool/org"));
    }
}

// ---------------------------------------------------------------- refusals

/// The commits a host and `sync` must refuse, each built on Ana's
/// `pool/org` (on a scratch branch `forged` of her repository).
#[derive(Clone, Copy, Debug)]
enum Bad {
    /// A promote with no signature.
    Unsigned,
    /// A promote signed by a key nobody trusts.
    UnknownKey,
    /// A promote of one lesson whose trailers name another.
    WrongTrailers,
    /// A promote that also adds a key to `.lore/allowed_signers`.
    TouchesLore,
    /// Two signed promotes squashed into one unsigned commit.
    Squash,
    /// A promote by Ana whose trailers give `Lore-Action` twice (stock git
    /// reads `promote,retract`).
    TwoActions,
    /// A promote by Ana whose trailers give `Lore-Visibility` twice.
    TwoVisibilities,
    /// A promote by Ana whose `Lore-Artifact` is not the entry's.
    ContradictsEntry,
    /// A promote signed with Ana's key, authored by Mallory.
    NotTheSigner,
    /// A promote by Ana dated 2099.
    From2099,
    /// A promote by Ana dated 1970.
    From1970,
    /// A promote by a listed signer whose entry's claim holds escape
    /// sequences, a bidi override, NUL and BEL.
    HostileClaim,
    /// A promote by a listed signer whose entry is a symbolic link (mode
    /// 120000).
    Symlink,
    /// A promote by a listed signer whose entry is executable (mode
    /// 100755).
    Executable,
    /// A promote by a listed signer whose entry has a 60 MB rationale.
    HugeRationale,
}

/// The size of [`Bad::HugeRationale`]'s rationale.
const HUGE: usize = 60_000_000;

/// A new entry: a copy of Ana's first entry on `pool/<tier>` under `id`,
/// with `resolution` when given.
fn entry_like(u: &User, tier: &str, like: &str, id: &str, resolution: Option<&str>) -> String {
    let mut e = u.entry(tier, like).expect("the entry to copy");
    e["id"] = id.into();
    if let Some(r) = resolution {
        e["evidence"]["resolution"] = r.into();
    }
    record_text(&e)
}

/// The message of a promote of `id` into `pool/<tier>` whose trailers name
/// `named` (the same lesson, unless a test wants them to disagree), with
/// the artifact of the entry `like`.
fn promote_message(u: &User, tier: &str, like: &str, id: &str, named: &str) -> String {
    let e = u.entry(tier, like).unwrap();
    let artifact = e["evidence"]["artifact_ids"][0].as_str().unwrap();
    format!(
        "promote {id} into pool/{tier}\n\nLore-Format: 1\nLore-Action: promote\nLore-Lesson: {named}\nLore-Artifact: {artifact}\nLore-Status: active\nLore-Visibility: {tier}\nLore-Pool: {tier}\n"
    )
}

/// Builds `bad` on Ana's pool/org as the branch `forged`: its commit id,
/// and what the refusal must say about it.
fn forge_bad(t: &Team, bad: Bad) -> (String, Vec<String>) {
    let a = &t.a;
    let x = crate::common::ulid(90, 1);
    let y = crate::common::ulid(90, 2);
    let path = fanout("lessons", &x);
    let entry = entry_like(a, "org", &t.a1, &x, None);
    let promote = promote_message(a, "org", &t.a1, &x, &x);
    let stranger = a.env.stranger_key();
    let unsigned = "unsigned commit".to_owned();
    // A promote of `x` by Ana, signed with her key, with `message` and
    // `git`'s environment holding `vars`.
    let by_ana = |message: &str, vars: &[(&str, &str)]| {
        a.env.forge_with(
            vars,
            "forged",
            Some("pool/org"),
            &[(&path, Some(&entry))],
            message,
            Sign::Repo,
        )
    };
    let dated = |when: &str| {
        by_ana(
            &promote,
            &[("GIT_AUTHOR_DATE", when), ("GIT_COMMITTER_DATE", when)],
        )
    };
    let dates = "(rule: dates within a day of the parent and of now)";
    let hint = "merge pull requests into a pool with a merge commit".to_owned();
    match bad {
        Bad::Unsigned => {
            let c = a.env.forge(
                "forged",
                Some("pool/org"),
                &[(&path, Some(&entry))],
                &promote,
                Sign::Unsigned,
            );
            (c, vec![unsigned, hint])
        }
        Bad::UnknownKey => {
            let c = a.env.forge(
                "forged",
                Some("pool/org"),
                &[(&path, Some(&entry))],
                &promote,
                Sign::Key(&stranger),
            );
            (
                c,
                vec!["signed by a key not in the allowed signers (SHA256:".into()],
            )
        }
        Bad::WrongTrailers => {
            let other = promote_message(a, "org", &t.a1, &x, &y);
            let c = a.env.forge(
                "forged",
                Some("pool/org"),
                &[(&path, Some(&entry))],
                &other,
                Sign::Repo,
            );
            (
                c,
                vec![
                    format!("promote may change only a pool entry {y}; it also changed {path}"),
                    format!("promote must add a pool entry {y}"),
                ],
            )
        }
        Bad::TouchesLore => {
            let signers = a
                .git(&["show", "pool/org:.lore/allowed_signers"])
                .ok()
                .to_owned();
            let key = std::fs::read_to_string(stranger.with_extension("pub")).unwrap();
            let more = format!(
                "{signers}mallory@example.com namespaces=\"git\" {}\n",
                key.trim()
            );
            let c = a.env.forge(
                "forged",
                Some("pool/org"),
                &[
                    (&path, Some(&entry)),
                    (".lore/allowed_signers", Some(&more)),
                ],
                &promote,
                Sign::Repo,
            );
            (
                c,
                vec![format!(
                    "promote may change only a pool entry {x}; it also changed .lore/allowed_signers"
                )],
            )
        }
        Bad::Squash => {
            let path_y = fanout("lessons", &y);
            let entry_y = entry_like(a, "org", &t.a1, &y, None);
            let first = a.env.forge(
                "forged",
                Some("pool/org"),
                &[(&path, Some(&entry))],
                &promote,
                Sign::Repo,
            );
            a.env.forge(
                "forged",
                Some(&first),
                &[(&path_y, Some(&entry_y))],
                &promote_message(a, "org", &t.a1, &y, &y),
                Sign::Repo,
            );
            let c = a.env.forge(
                "forged",
                Some("pool/org"),
                &[(&path, Some(&entry)), (&path_y, Some(&entry_y))],
                &promote,
                Sign::Unsigned,
            );
            (c, vec![unsigned, hint])
        }
        Bad::TwoActions => {
            let twice = promote.replace(
                "Lore-Action: promote\n",
                "Lore-Action: promote\nLore-Action: retract\n",
            );
            let c = by_ana(&twice, &[]);
            let read = a.git(&[
                "log",
                "-1",
                "--format=%(trailers:key=Lore-Action,valueonly,separator=%x2C)",
                &c,
            ]);
            assert_eq!(read.ok().trim(), "promote,retract", "what stock git reads");
            (
                c,
                vec!["trailers unreadable: trailer Lore-Action is given 2 times (rule: one value per key; of the Lore- keys only Lore-Target and Lore-Judge repeat)".into()],
            )
        }
        Bad::TwoVisibilities => {
            let twice = promote.replace(
                "Lore-Visibility: org\n",
                "Lore-Visibility: org\nLore-Visibility: public\n",
            );
            (
                by_ana(&twice, &[]),
                vec!["trailers unreadable: trailer Lore-Visibility is given 2 times (rule: one value per key".into()],
            )
        }
        Bad::ContradictsEntry => {
            let artifact = a.entry("org", &t.a1).unwrap()["evidence"]["artifact_ids"][0]
                .as_str()
                .unwrap()
                .to_owned();
            let other = crate::common::ulid(90, 3);
            let message = promote.replace(
                &format!("Lore-Artifact: {artifact}\n"),
                &format!("Lore-Artifact: {other}\n"),
            );
            (
                by_ana(&message, &[]),
                vec![format!("promote: Lore-Artifact says {other} but the entry's evidence does not name it (rule: trailers agree with the record)")],
            )
        }
        Bad::NotTheSigner => {
            let c = by_ana(
                &promote,
                &[
                    ("GIT_AUTHOR_NAME", "Mallory"),
                    ("GIT_AUTHOR_EMAIL", "mallory@example.org"),
                ],
            );
            (
                c,
                vec![format!("author Mallory <mallory@example.org> is not {}, whom the signing key is listed for (rule: the signer is the author and committer)", a.email)],
            )
        }
        Bad::From2099 => (
            dated("2099-01-01T00:00:00Z"),
            vec![format!("committer date 2099-01-01T00:00:00Z is later than now ({}) by more than a day {dates}", crate::common::NOW)],
        ),
        Bad::From1970 => (
            dated("1970-01-02T00:00:00Z"),
            vec![format!("committer date 1970-01-02T00:00:00Z is earlier than its parent's ({}) by more than a day {dates}", crate::common::NOW)],
        ),
        Bad::HostileClaim => {
            let mut e: Value = serde_json::from_str(&entry).unwrap();
            e["claim"] =
                "Vite 5 \u{1b}]0;pwned\u{7}\u{1b}[2J breaks \u{202e}gnp.exe\u{0} vitest".into();
            let c = a.env.forge(
                "forged",
                Some("pool/org"),
                &[(&path, Some(&record_text(&e)))],
                &promote,
                Sign::Repo,
            );
            (
                c,
                vec![
                    format!("{path} /claim: contains the bidirectional control U+202E, which makes text display differently from what it says (content rule bidi)"),
                    format!("{path} /claim: contains a control character or line break; it must be one line (content rule control)"),
                ],
            )
        }
        Bad::Symlink | Bad::Executable => {
            let (mode, content, words) = match bad {
                Bad::Symlink => (
                    "120000",
                    "../../../.lore/allowed_signers",
                    "a symbolic link",
                ),
                _ => ("100755", entry.as_str(), "an executable file"),
            };
            let c = a.env.forge_modes(
                "forged",
                Some("pool/org"),
                &[(&path, mode, Some(content))],
                &promote,
                Sign::Repo,
            );
            (
                c,
                vec![format!(
                    "{path}: has mode {mode} ({words}); a record is a regular file, mode 100644 (content rule mode)"
                )],
            )
        }
        Bad::HugeRationale => {
            let mut e: Value = serde_json::from_str(&entry).unwrap();
            e["rationale"] = "a".repeat(HUGE).into();
            let text = record_text(&e);
            let c = a.env.forge(
                "forged",
                Some("pool/org"),
                &[(&path, Some(&text))],
                &promote,
                Sign::Repo,
            );
            (
                c,
                vec![format!(
                    "{path}: is {} bytes, over the limit of 2097152 bytes for a record (content rule record-size)",
                    text.len()
                )],
            )
        }
    }
}

/// Ana pushes `bad` by hand, skipping her own pre-push check: the host
/// rejects the push and keeps nothing of it. What the host said.
fn host_refuses(bad: Bad) -> String {
    let t = team();
    let before = t.host_tip("pool/org");
    let (commit, needles) = forge_bad(&t, bad);
    let rejected = format!("remote: git-lore: rejected {commit} (pool/org): ");
    let mut says = vec!["pre-receive hook declined", rejected.as_str()];
    says.extend(needles.iter().map(String::as_str));
    let said =
        t.a.push_refused(&t.host, "forged:refs/heads/pool/org", &says);
    assert_eq!(t.host_tip("pool/org"), before, "the host's pool/org moved");
    assert_not_at(&t.a.env, &t.host, &commit, "the refused commit");
    shown_forged(&t, &commit, said)
}

/// `text` with the forged commit, the stranger's fingerprint and the
/// users' directories shown by name.
fn shown_forged(t: &Team, commit: &str, text: String) -> String {
    let stranger = stranger_fingerprint(&t.a.env).unwrap_or_else(|| "-".repeat(50));
    names(
        &[&t.a, &t.b],
        &[
            (commit, "[forged]"),
            (&stranger, "[stranger's fingerprint]"),
        ],
    )
    .iter()
    .fold(text, |s, (from, to)| s.replace(from, to))
}

/// The host's pool/org is moved to `bad` behind the hook's back (as a
/// compromised or careless server could): Ben's sync integrates nothing.
/// Its transcript.
fn sync_refuses(bad: Bad) -> String {
    let t = team();
    let (commit, needles) = forge_bad(&t, bad);
    sync_refuses_planted(&t, &commit, &needles)
}

/// The host's pool/org is moved to `commit` (on Ana's `forged`) behind the
/// hook's back: Ben's sync says each of `needles` about it, integrates
/// nothing and keeps nothing of it. Its transcript.
#[track_caller]
fn sync_refuses_planted(t: &Team, commit: &str, needles: &[String]) -> String {
    t.plant_on_host(commit);
    let (tip, seen) = (t.b.tip("pool/org"), t.b.tip("refs/lore/remotes/org"));
    let r = t.b.lore(&["sync", "org"]);
    assert_eq!(r.code, 1, "{}{}", r.stdout, r.stderr);
    let about: Vec<&str> = r
        .stdout
        .lines()
        .filter(|l| l.starts_with(&format!("{commit} (pool/org): ")))
        .collect();
    for n in needles {
        assert!(
            about.iter().any(|l| l.contains(n.as_str())),
            "no {n:?} in:\n{}",
            r.stdout
        );
    }
    assert_eq!(t.b.tip("pool/org"), tip, "Ben's pool/org moved");
    assert_eq!(t.b.tip("refs/lore/remotes/org"), seen);
    assert_eq!(t.b.tip("refs/lore/incoming/org"), None);
    assert!(t.b.entry("org", &crate::common::ulid(90, 1)).is_none());
    t.b.assert_verifies();
    shown_forged(
        t,
        commit,
        transcript(&["sync", "org"], &r, &[] as &[(&str, &str)]),
    )
}

#[test]
fn the_host_refuses_an_unsigned_commit() {
    insta::assert_snapshot!(host_refuses(Bad::Unsigned), @"remote: git-lore: rejected [forged] (pool/org): unsigned commit; if a pull request was merged by squash or rebase, the forge re-created its signed commits without their signatures: merge pull requests into a pool with a merge commit, so the signed commits stay as they are (reset the branch to the commit before and merge again; see docs/pools.md)");
}

#[test]
fn the_host_refuses_a_commit_by_an_unknown_key() {
    insta::assert_snapshot!(host_refuses(Bad::UnknownKey), @"remote: git-lore: rejected [forged] (pool/org): signed by a key not in the allowed signers ([stranger's fingerprint]); if a pull request was merged by squash or rebase, the forge re-created its signed commits without their signatures: merge pull requests into a pool with a merge commit, so the signed commits stay as they are (reset the branch to the commit before and merge again; see docs/pools.md)");
}

#[test]
fn the_host_refuses_trailers_that_name_another_lesson() {
    insta::assert_snapshot!(host_refuses(Bad::WrongTrailers), @"
    remote: git-lore: rejected [forged] (pool/org): promote may change only a pool entry 01J0000000B800000000000002; it also changed lessons/0/0/1/01J0000000B800000000000001.json
    remote: git-lore: rejected [forged] (pool/org): promote must add a pool entry 01J0000000B800000000000002
    ");
}

#[test]
fn the_host_refuses_a_promote_that_changes_who_may_sign() {
    insta::assert_snapshot!(host_refuses(Bad::TouchesLore), @"remote: git-lore: rejected [forged] (pool/org): promote may change only a pool entry 01J0000000B800000000000001; it also changed .lore/allowed_signers");
}

#[test]
fn the_host_refuses_a_squash_of_signed_commits() {
    insta::assert_snapshot!(host_refuses(Bad::Squash), @"
    remote: git-lore: rejected [forged] (pool/org): unsigned commit; if a pull request was merged by squash or rebase, the forge re-created its signed commits without their signatures: merge pull requests into a pool with a merge commit, so the signed commits stay as they are (reset the branch to the commit before and merge again; see docs/pools.md)
    remote: git-lore: rejected [forged] (pool/org): promote may change only a pool entry 01J0000000B800000000000001; it also changed lessons/0/0/2/01J0000000B800000000000002.json
    ");
}

/// A listed signer's hostile entry, refused at every door that reads
/// another person's history, each naming the rule and the commit: the
/// host's pre-receive check (nothing of it kept), CI's `verify --pool`,
/// Ben's `sync` from a host that took it behind the hook's back (his pool
/// unchanged), and Ana's own `verify` once it is her pool/org's tip.
fn every_door_refuses(bad: Bad) {
    let t = team();
    let before = t.host_tip("pool/org");
    let (commit, needles) = forge_bad(&t, bad);
    let rejected = format!("remote: git-lore: rejected {commit} (pool/org): ");
    let mut says = vec!["pre-receive hook declined", rejected.as_str()];
    says.extend(needles.iter().map(String::as_str));
    t.a.push_refused(&t.host, "forged:refs/heads/pool/org", &says);
    assert_eq!(t.host_tip("pool/org"), before, "the host's pool/org moved");
    assert_not_at(&t.a.env, &t.host, &commit, "the refused commit");

    let ci = t.a.lore(&["verify", "--pool", "org", "pool/org..forged"]);
    assert_eq!(ci.code, 1, "{bad:?}: {}{}", ci.stdout, ci.stderr);
    for n in &needles {
        assert!(
            ci.stdout.contains(&format!("{commit} (pool/org): {n}\n")),
            "no {n:?} in:\n{}",
            ci.stdout
        );
    }

    sync_refuses_planted(&t, &commit, &needles);

    let tip = t.a.tip("pool/org").unwrap();
    t.a.git(&["update-ref", "refs/heads/pool/org", &commit, &tip])
        .ok();
    let r = t.a.lore(&["verify"]);
    assert_eq!(r.code, 1, "{bad:?}: {}{}", r.stdout, r.stderr);
    for n in &needles {
        assert!(
            r.stdout.contains(&format!("{commit} (pool/org): {n}\n")),
            "no {n:?} in:\n{}",
            r.stdout
        );
    }
    assert!(!r.stdout.contains('\u{1b}') && !r.stdout.contains('\u{202e}'));
}

#[test]
fn every_door_refuses_a_hostile_claim() {
    every_door_refuses(Bad::HostileClaim);
}

#[test]
fn every_door_refuses_an_entry_that_is_a_symbolic_link() {
    every_door_refuses(Bad::Symlink);
}

#[test]
fn every_door_refuses_an_executable_entry() {
    every_door_refuses(Bad::Executable);
}

#[test]
fn every_door_refuses_a_60_mb_rationale() {
    every_door_refuses(Bad::HugeRationale);
}

#[test]
fn sync_refuses_an_unsigned_commit() {
    insta::assert_snapshot!(sync_refuses(Bad::Unsigned), @"
    $ git lore sync org
    [forged] (pool/org): unsigned commit; if a pull request was merged by squash or rebase, the forge re-created its signed commits without their signatures: merge pull requests into a pool with a merge commit, so the signed commits stay as they are (reset the branch to the commit before and merge again; see docs/pools.md)
    [stderr] pool/org from [ana]/srv/host.git: 1 problem in 1 incoming commit; nothing was integrated (see `git lore verify`)
    [exit 1]
    ");
}

#[test]
fn sync_refuses_a_commit_by_an_unknown_key() {
    insta::assert_snapshot!(sync_refuses(Bad::UnknownKey), @"
    $ git lore sync org
    [forged] (pool/org): signed by a key not in the allowed signers ([stranger's fingerprint]); if a pull request was merged by squash or rebase, the forge re-created its signed commits without their signatures: merge pull requests into a pool with a merge commit, so the signed commits stay as they are (reset the branch to the commit before and merge again; see docs/pools.md)
    [stderr] pool/org from [ana]/srv/host.git: 1 problem in 1 incoming commit; nothing was integrated (see `git lore verify`)
    [exit 1]
    ");
}

#[test]
fn sync_refuses_trailers_that_name_another_lesson() {
    insta::assert_snapshot!(sync_refuses(Bad::WrongTrailers), @"
    $ git lore sync org
    [forged] (pool/org): promote may change only a pool entry 01J0000000B800000000000002; it also changed lessons/0/0/1/01J0000000B800000000000001.json
    [forged] (pool/org): promote must add a pool entry 01J0000000B800000000000002
    [stderr] pool/org from [ana]/srv/host.git: 2 problems in 1 incoming commit; nothing was integrated (see `git lore verify`)
    [exit 1]
    ");
}

#[test]
fn sync_refuses_a_promote_that_changes_who_may_sign() {
    insta::assert_snapshot!(sync_refuses(Bad::TouchesLore), @"
    $ git lore sync org
    [forged] (pool/org): promote may change only a pool entry 01J0000000B800000000000001; it also changed .lore/allowed_signers
    [stderr] pool/org from [ana]/srv/host.git: 1 problem in 1 incoming commit; nothing was integrated (see `git lore verify`)
    [exit 1]
    ");
}

#[test]
fn sync_refuses_a_squash_of_signed_commits() {
    insta::assert_snapshot!(sync_refuses(Bad::Squash), @"
    $ git lore sync org
    [forged] (pool/org): unsigned commit; if a pull request was merged by squash or rebase, the forge re-created its signed commits without their signatures: merge pull requests into a pool with a merge commit, so the signed commits stay as they are (reset the branch to the commit before and merge again; see docs/pools.md)
    [forged] (pool/org): promote may change only a pool entry 01J0000000B800000000000001; it also changed lessons/0/0/2/01J0000000B800000000000002.json
    [stderr] pool/org from [ana]/srv/host.git: 2 problems in 1 incoming commit; nothing was integrated (see `git lore verify`)
    [exit 1]
    ");
}

#[test]
fn the_host_refuses_a_second_lore_action() {
    host_refuses(Bad::TwoActions);
}

#[test]
fn the_host_refuses_a_second_lore_visibility() {
    host_refuses(Bad::TwoVisibilities);
}

#[test]
fn the_host_refuses_trailers_that_contradict_the_entry() {
    host_refuses(Bad::ContradictsEntry);
}

#[test]
fn the_host_refuses_an_author_who_is_not_the_signer() {
    host_refuses(Bad::NotTheSigner);
}

#[test]
fn the_host_refuses_a_commit_dated_2099() {
    host_refuses(Bad::From2099);
}

#[test]
fn the_host_refuses_a_commit_dated_1970() {
    host_refuses(Bad::From1970);
}

#[test]
fn sync_refuses_a_second_lore_action() {
    sync_refuses(Bad::TwoActions);
}

#[test]
fn sync_refuses_a_second_lore_visibility() {
    sync_refuses(Bad::TwoVisibilities);
}

#[test]
fn sync_refuses_trailers_that_contradict_the_entry() {
    sync_refuses(Bad::ContradictsEntry);
}

#[test]
fn sync_refuses_an_author_who_is_not_the_signer() {
    sync_refuses(Bad::NotTheSigner);
}

#[test]
fn sync_refuses_a_commit_dated_2099() {
    sync_refuses(Bad::From2099);
}

#[test]
fn sync_refuses_a_commit_dated_1970() {
    sync_refuses(Bad::From1970);
}

#[test]
fn the_host_refuses_a_rewound_or_deleted_pool() {
    let t = team();
    t.a.org_lesson();
    t.a.lore(&["publish", "org"]).ok();
    let before = t.host_tip("pool/org").unwrap();
    // A rewind, forced (`+`).
    t.a.push_refused(
        &t.host,
        "+pool/org~1:refs/heads/pool/org",
        &["a pool's history only grows (rewinding or rewriting it is refused)"],
    );
    t.a.push_refused(
        &t.host,
        ":refs/heads/pool/org",
        &[
            "remote: git-lore: rejected",
            "a pool branch is never deleted",
        ],
    );
    assert_eq!(t.host_tip("pool/org"), Some(before));
}

#[test]
fn sync_refuses_a_remote_that_moved_back_until_it_is_accepted() {
    let t = team();
    t.a.org_lesson();
    t.a.lore(&["publish", "org"]).ok();
    t.b.lore(&["sync", "org"]).ok();
    let tip = t.host_tip("pool/org").unwrap();
    let older = t.host_tip("pool/org~1").unwrap();
    t.at_host(&["update-ref", "refs/heads/pool/org", &older]);
    let n = names(
        &[&t.a, &t.b],
        &[(&tip[..12], "[tip]"), (&older[..12], "[older]")],
    );
    insta::assert_snapshot!(t.b.session(&["sync", "org"], &n), @"
    $ git lore sync org
    [stderr] git-lore: the remote pool/org at [ana]/srv/host.git moved back from [tip] to [older], 1 commits dropped; nothing was integrated. If its owners rewrote it on purpose, accept it with `git lore sync org --accept-rollback`
    [exit 1]
    ");
    assert_eq!(t.b.tip("pool/org"), Some(tip.clone()));
    assert_eq!(t.b.tip("refs/lore/remotes/org"), Some(tip.clone()));
    insta::assert_snapshot!(t.b.session(&["sync", "org", "--accept-rollback"], &n), @"
    $ git lore sync org --accept-rollback
    pool/org: up to date with [ana]/srv/host.git
    ");
    assert_eq!(t.b.tip("refs/lore/remotes/org"), Some(older));
    assert_eq!(t.b.tip("pool/org"), Some(tip), "nothing local is dropped");
}

// ---------------------------------------------------------------- public

/// Ana with one public lesson, a host, and the remote `public` added.
struct Public {
    a: User,
    host: PathBuf,
    url: String,
    p1: String,
}

fn public() -> Public {
    let a = ana();
    let p1 = a.public_lesson();
    let host = host(&a);
    let url = host.display().to_string();
    a.add_remote("public", &url);
    Public { a, host, url, p1 }
}

impl Public {
    fn host_tip(&self, name: &str) -> Option<String> {
        tip_in(&self.a.env, &self.host, name)
    }

    fn at_host(&self, args: &[&str]) -> String {
        self.a.env.git_at(&self.host, args)
    }

    /// Ben, pinned to Ana's key, synced to the remote pool/public.
    fn ben(&self) -> User {
        let b = ben();
        b.join("public", &self.host, &self.a);
        b
    }

    /// A second public lesson, proposed as `review/<id>`: its id.
    fn review(&self) -> String {
        let p2 = self.a.public_lesson();
        self.a.lore(&["publish", "public"]).ok();
        p2
    }
}

#[test]
fn publish_public_starts_a_remote_with_no_pool_public() {
    let p = public();
    let n = names(&[&p.a], &[]);
    insta::assert_snapshot!(p.a.session(&["publish", "public"], &n), @"
    $ git lore publish public
    pool/public: started [ana]/srv/host.git's pool/public with the local one
    ");
    assert_eq!(p.host_tip("pool/public"), p.a.tip("pool/public"));
    assert_eq!(
        p.at_host(&["for-each-ref", "--format=%(refname)"]),
        "refs/heads/pool/public",
        "only the pool went out"
    );
    let ledger = p.a.tip("ledger").unwrap();
    assert_not_at(&p.a.env, &p.host, &ledger, "the ledger's tip");
    insta::assert_snapshot!(p.a.session(&["publish", "public"], &n), @"
    $ git lore publish public
    pool/public: nothing to propose; [ana]/srv/host.git has every public lesson here
    ");
}

/// `publish public --open` runs `gh pr create` for each review it pushed:
/// a stub `gh` on PATH records its arguments and what it read on stdin.
/// The remote is named by a GitHub URL (git's `insteadOf` sends it to the
/// local host), so `gh` is told the repository and works from any
/// directory; without --pr-body-dir the body reaches it on stdin.
#[test]
fn publish_public_open_hands_each_pull_request_to_gh() {
    let a = ana();
    a.public_lesson();
    let host = host(&a);
    let github = "https://github.com/acme/host.git";
    a.git(&[
        "config",
        &format!("url.{}/.insteadOf", host.parent().unwrap().display()),
        "https://github.com/acme/",
    ])
    .ok();
    a.add_remote("public", github);
    a.lore(&["publish", "public"]).ok();
    let calls = a.env.path().join("gh-calls");
    a.env.stub(
        "gh",
        &format!(
            r#"{{ printf 'cwd %s\n' "$PWD"; for arg in "$@"; do printf 'arg %s\n' "$arg"; done; printf 'stdin '; cat; printf '\n--\n'; }} >> '{}'"#,
            calls.display()
        ),
    );

    // No --pr-body-dir: the body goes to gh on stdin.
    let p2 = a.public_lesson();
    let r = a.lore(&["publish", "public", "--open"]);
    r.assert_ok_stdout(&format!(
        "  open the pull request: gh pr create --repo 'acme/host' --base pool/public --head review/{p2} --title 'widget12 1.12.0 crashes on start' --body-file 'BODY.md'\n  opened with gh\n"
    ));
    assert!(
        tip_in(&a.env, &host, &format!("review/{p2}")).is_some(),
        "the review branch is on the host"
    );
    let recorded = std::fs::read_to_string(&calls).unwrap();
    let (call, _) = recorded.split_once("\n--\n").unwrap();
    let (args, stdin) = call.split_once("stdin ").unwrap();
    assert_eq!(
        args,
        format!(
            "cwd {}\narg pr\narg create\narg --repo\narg acme/host\narg --base\narg pool/public\narg --head\narg review/{p2}\narg --title\narg widget12 1.12.0 crashes on start\narg --body-file\narg -\n",
            a.env.path().display()
        )
    );
    assert!(
        stdin.starts_with(&format!(
            "<!-- git-lore public lesson {p2}: rendered by `git lore publish public` -->\n## widget12 1.12.0 crashes on start\n"
        )),
        "{stdin}"
    );

    // With --pr-body-dir: gh reads the file written for it; a gh that
    // fails is reported, and the branch stays pushed.
    std::fs::remove_file(&calls).unwrap();
    a.env.stub(
        "gh",
        &format!(
            r#"for arg in "$@"; do printf 'arg %s\n' "$arg"; done > '{}'; exit 1"#,
            calls.display()
        ),
    );
    let p3 = a.public_lesson();
    let bodies = a.env.path().join("pr");
    let r = a.lore(&[
        "publish",
        "public",
        "--open",
        "--pr-body-dir",
        bodies.to_str().unwrap(),
    ]);
    r.assert_ok_stdout("  gh failed; open it by hand\n");
    let body = bodies.join(format!("{p3}.md"));
    assert_eq!(
        std::fs::read_to_string(&calls).unwrap(),
        format!(
            "arg pr\narg create\narg --repo\narg acme/host\narg --base\narg pool/public\narg --head\narg review/{p3}\narg --title\narg widget13 1.13.0 crashes on start\narg --body-file\narg {}\n",
            body.display()
        )
    );
    assert!(body.is_file());
    assert!(tip_in(&a.env, &host, &format!("review/{p3}")).is_some());
}

#[test]
fn a_public_lesson_goes_out_as_a_review_branch_adding_one_entry() {
    let p = public();
    p.a.lore(&["publish", "public"]).ok();
    let started = p.host_tip("pool/public").unwrap();
    let p2 = p.a.public_lesson();
    let bodies = p.a.env.path().join("pr");
    let n = names(&[&p.a], &[(&p2, "[p2]")]);
    insta::assert_snapshot!(p.a.session(&[
        "publish",
        "public",
        "--pr-body-dir",
        bodies.to_str().unwrap(),
    ], &n), @"
    $ git lore publish public --pr-body-dir [ana]/pr
    [p2]: pushed review/[p2] (adds the lesson)
      open the pull request: gh pr create --base pool/public --head review/[p2] --title 'widget12 1.12.0 crashes on start' --body-file '[ana]/pr/[p2].md'
    ");
    assert_eq!(
        p.host_tip("pool/public"),
        Some(started),
        "pool/public itself is untouched"
    );
    let review = format!("review/{p2}");
    assert_eq!(
        p.at_host(&["diff", "--name-status", "pool/public", &review]),
        format!("A\t{}", fanout("lessons", &p2))
    );
    assert_eq!(
        p.at_host(&["rev-list", "--count", &format!("pool/public..{review}")]),
        "1"
    );
    // Signed by Ana, as her own git checks it.
    let commit = p.at_host(&["rev-parse", &review]);
    let r = p.a.git(&["verify-commit", &commit]);
    assert_eq!(r.code, 0, "the review commit is not signed: {}", r.stderr);
    r.assert_stderr(&format!("Good \"git\" signature for {} ", p.a.email));

    // The pull request's body, whole.
    let body = std::fs::read_to_string(bodies.join(format!("{p2}.md"))).unwrap();
    insta::assert_snapshot!(body.replace(&p2, "[p2]"), @"
    <!-- git-lore public lesson [p2]: rendered by `git lore publish public` -->
    ## widget12 1.12.0 crashes on start

    **Why it holds:** The loader rejects the config file on boot. Scoped to exactly the versions seen (widget12 1.12.0): the text states no wider range.

    **What fixed it:** Fixed by setting the timeout to 30 in config.yml.

    **Applies to:** `any version of widget12`

    ### Jury

    Rubric `lesson-promotion-public`, gate `unanimous`: aggregate 0.88 against a threshold of 0.75 — **passed** (`gate_passed`).

    | judge | score | passed | disclosure | generality | grounding | scope_accuracy |
    |---|---:|---|---:|---:|---:|---:|
    | standard | 0.90 | yes | 0.95 | 0.90 | 0.90 | 0.90 |
    | adversarial | 0.80 | yes | 0.95 | 0.80 | 0.80 | 0.80 |

    ### Disclosure scan

    No credential, key, token or private address found in any field (git-lore's disclosure scanner).

    ### Signature

    `lessons/N/S/E/[p2].json` is added by one `promote` commit signed by `ana@example.com` (SHA256:ZvYxy04IiR2nAqc2PrXWBMNhH8nEs+q6Doj7Q0u5zCI): good: listed in the remote pool's allowed signers.

    ---

    - Merge with a **merge commit**. Do not squash or rebase: git-lore verifies every commit of `pool/public`, and a squashed or rebased commit loses the signature above, so `git lore sync` would refuse it.
    - To read the whole entry before merging: `git fetch origin review/[p2]` and `git show FETCH_HEAD`, or after the merge `git lore sync public` and `git lore show [p2]`.
    ");
    // Publishing again opens nothing twice.
    insta::assert_snapshot!(p.a.session(&["publish", "public"], &n), @"
    $ git lore publish public
    [p2]: review/[p2] is already on [ana]/srv/host.git; its pull request adds the lesson
    ");
}

/// Merges `review/<id>` into the host's pool/public as a forge's "Create a
/// merge commit" does, signed by the forge's own key.
fn merge_on_host(p: &Public, id: &str) -> String {
    let review = format!("review/{id}");
    let tree = p.at_host(&["merge-tree", "--write-tree", "pool/public", &review]);
    let forge_key = p.a.env.stranger_key();
    let m = forge_commit(
        &p.a.env,
        &p.host,
        tree.lines().next().unwrap(),
        &["pool/public", &review],
        Some(&forge_key),
    );
    p.at_host(&["update-ref", "refs/heads/pool/public", &m]);
    m
}

#[test]
fn a_review_merged_with_a_merge_commit_syncs_back_verified() {
    let p = public();
    p.a.lore(&["publish", "public"]).ok();
    let b = p.ben();
    assert!(b.entry("public", &p.p1).is_some());
    let p2 = p.review();
    let m = merge_on_host(&p, &p2);
    let r = b.lore(&["sync", "public"]);
    assert_eq!(
        r.ok(),
        format!(
            "pool/public: 2 verified commits from {}, 1 new lesson\n",
            p.url
        )
    );
    assert_eq!(b.tip("pool/public"), Some(m));
    assert_eq!(b.entry("public", &p2).unwrap()["status"], "active");
    b.assert_verifies();
    // Ana's own promote and the merged review hold the same entry.
    p.a.lore(&["sync", "public"]).ok();
    p.a.assert_verifies();
    assert_eq!(p.a.entry("public", &p2), b.entry("public", &p2));
}

#[test]
fn a_squash_merged_review_is_refused_with_the_fix() {
    let p = public();
    p.a.lore(&["publish", "public"]).ok();
    let b = p.ben();
    let p2 = p.review();
    let tree = p.at_host(&["rev-parse", &format!("review/{p2}^{{tree}}")]);
    let squash = forge_commit(&p.a.env, &p.host, &tree, &["pool/public"], None);
    p.at_host(&["update-ref", "refs/heads/pool/public", &squash]);
    let (tip, seen) = (b.tip("pool/public"), b.tip("refs/lore/remotes/public"));
    // The refusal names the fix.
    let n = names(&[&p.a, &b], &[(&squash, "[squash]")]);
    insta::assert_snapshot!(b.session(&["sync", "public"], &n), @"
    $ git lore sync public
    [squash] (pool/public): unsigned commit; if a pull request was merged by squash or rebase, the forge re-created its signed commits without their signatures: merge pull requests into a pool with a merge commit, so the signed commits stay as they are (reset the branch to the commit before and merge again; see docs/pools.md)
    [squash] (pool/public): trailers unreadable: missing trailer Lore-Format
    [stderr] pool/public from [ana]/srv/host.git: 2 problems in 1 incoming commit; nothing was integrated (see `git lore verify`)
    [exit 1]
    ");
    assert_eq!(b.tip("pool/public"), tip);
    assert_eq!(b.tip("refs/lore/remotes/public"), seen);
    assert!(b.entry("public", &p2).is_none());
}

/// Writes a public entry whose resolution holds a GitHub token straight
/// onto Ana's pool/public, signed by her key (the jury would have refused
/// it; an older git-lore or a hand edit might not have).
fn plant_credential(p: &Public) -> String {
    let x = crate::common::ulid(91, 1);
    let entry = entry_like(
        &p.a,
        "public",
        &p.p1,
        &x,
        Some(&format!(
            "Authenticate with token={TOKEN} before the first build."
        )),
    );
    let message = promote_message(&p.a, "public", &p.p1, &x, &x);
    p.a.env.forge(
        "pool/public",
        Some("pool/public"),
        &[(&fanout("lessons", &x), Some(&entry))],
        &message,
        Sign::Repo,
    );
    p.a.assert_verifies();
    x
}

#[test]
fn a_lesson_with_a_planted_credential_is_never_pushed() {
    let p = public();
    p.a.lore(&["publish", "public"]).ok();
    let x = plant_credential(&p);
    let r = p.a.lore(&["publish", "public"]);
    assert!(
        !format!("{}{}", r.stdout, r.stderr).contains(TOKEN),
        "the token is not shown"
    );
    let planted = p.a.tip("pool/public").unwrap();
    let n = names(&[&p.a], &[(&planted, "[planted]"), (&x, "[x]")]);
    insta::assert_snapshot!(transcript(&["publish", "public"], &r, &n), @"
    $ git lore publish public
    [x]: not pushed: flagged by the disclosure scanner, never pushed: github_token in evidence.resolution: ghp_… (40 characters)
    [exit 1]
    ");
    assert_eq!(
        p.at_host(&["for-each-ref", "--format=%(refname)", "refs/heads/review"]),
        ""
    );
    let tip = p.a.tip("pool/public").unwrap();
    assert_not_at(&p.a.env, &p.host, &tip, "pool/public's tip");
}

#[test]
fn a_pool_public_holding_a_planted_credential_is_not_started() {
    let p = public();
    let x = plant_credential(&p);
    let r = p.a.lore(&["publish", "public"]);
    assert!(
        !format!("{}{}", r.stdout, r.stderr).contains(TOKEN),
        "the token is not shown"
    );
    let planted = p.a.tip("pool/public").unwrap();
    let n = names(&[&p.a], &[(&planted, "[planted]"), (&x, "[x]")]);
    insta::assert_snapshot!(transcript(&["publish", "public"], &r, &n), @"
    $ git lore publish public
    [planted] (pool/public): lesson [x] is flagged by the disclosure scanner (github_token in evidence.resolution: ghp_… (40 characters)); pool/public cannot be started with it
    [exit 1]
    ");
    assert_eq!(p.host_tip("pool/public"), None);
}

// ---------------------------------------------------------------- what never leaves

#[test]
fn publish_sends_the_pool_branch_and_nothing_else() {
    let a = ana();
    a.private_lesson();
    a.org_lesson();
    let host = host(&a);
    a.add_remote("org", host.to_str().unwrap());
    a.lore(&["publish", "org"]).ok();
    assert_eq!(
        a.env
            .git_at(&host, &["for-each-ref", "--format=%(refname)"]),
        "refs/heads/pool/org"
    );
    assert_private_not_at(&a, &host);
}

#[test]
fn the_ledger_and_pool_local_pushed_by_hand_are_refused() {
    let a = ana();
    a.private_lesson();
    let host = host(&a);
    let url = host.to_str().unwrap();
    for (private, named, host_says) in [
        (
            "ledger",
            "the ledger",
            "(pool/org): action init does not belong on pool/org",
        ),
        (
            "pool/local",
            "pool/local",
            "(pool/org): promote: Lore-Pool local and Lore-Visibility private do not match pool/org",
        ),
    ] {
        let spec = format!("{private}:refs/heads/pool/org");
        let tip = a.tip(private).unwrap();
        // The pre-push guard of the lesson repository refuses it…
        let r = a.git(&["push", url, &spec]);
        assert_ne!(r.code, 0, "{private} was pushed");
        r.assert_stderr(&format!(
            "git-lore: refusing to push refs/heads/{private} to refs/heads/pool/org: commit {} is a commit of {named}, which never leaves this machine (guard rule private-tree); nothing was pushed. Only pool/org and pool/public may leave: `git lore publish org` pushes them\n",
            &tip[..12]
        ));
        assert!(
            !r.stderr.contains("remote: git-lore"),
            "the guard, not the host:\n{}",
            r.stderr
        );
        // …and the host refuses it when the guard is skipped.
        a.push_refused(&host, &spec, &["remote: git-lore: rejected ", host_says]);
        assert_eq!(tip_in(&a.env, &host, "pool/org"), None);
        assert_private_not_at(&a, &host);
    }
}

#[test]
fn a_pool_pushed_as_the_ledger_is_refused_by_the_host() {
    let a = ana();
    a.org_lesson();
    let host = host(&a);
    a.push_refused(
        &host,
        "pool/org:refs/heads/ledger",
        &["refs/heads/ledger is not accepted here"],
    );
    assert_eq!(
        a.env
            .git_at(&host, &["for-each-ref", "--format=%(refname)"]),
        ""
    );
}

// ---------------------------------------------------------------- retract

/// The `--stack` that makes a lesson apply: its one package at the version
/// it names.
fn applying_stack(entry: &Value) -> String {
    let versions = entry["applies_to"]["scope"]["versions"]
        .as_object()
        .unwrap();
    let (name, range) = versions.iter().next().unwrap();
    format!("{name}@{}", range.as_str().unwrap().trim_start_matches('='))
}

#[test]
fn a_retraction_travels_to_every_teammate() {
    let t = team();
    let recall = |all: bool| {
        let project = t.b.env.path().join("project");
        std::fs::create_dir_all(&project).unwrap();
        let stack = applying_stack(&t.b.entry("org", &t.a1).unwrap());
        let mut args = vec!["recall", "--project", project.to_str().unwrap()];
        args.extend(["--stack", &stack]);
        if all {
            args.push("--all");
        }
        t.b.lore(&args).ok().to_owned()
    };
    assert!(
        recall(false).starts_with(&format!("{}  ", t.a1)),
        "Ben recalls it"
    );
    let n = names(&[&t.a, &t.b], &[(&t.a1, "[a1]")]);
    insta::assert_snapshot!(t.a.session(&[
        "retract",
        &t.a1,
        "--reason",
        "widget1 fixed the loader in 1.1.1",
    ], &n), @"
    $ git lore retract [a1] --reason widget1 fixed the loader in 1.1.1
    [a1]: active -> retracted on pool/org
    [stderr] share the retraction with `git lore publish org` or `git lore publish public`
    ");
    let shown = t.a.lore(&["show", &t.a1]).ok().to_owned();
    assert!(shown.contains("pool entry:  retracted\n"), "{shown}");
    insta::assert_snapshot!(t.a.session(&["publish", "org"], &n), @"
    $ git lore publish org
    pool/org: pushed 1 commit to [ana]/srv/host.git (ad7df831e643 -> 4ef86993ed95)
    ");
    insta::assert_snapshot!(t.b.session(&["sync", "org"], &n), @"
    $ git lore sync org
    pool/org: 1 verified commit from [ana]/srv/host.git, no new lessons
    ");
    let entry = t.b.entry("org", &t.a1).unwrap();
    assert_eq!(entry["status"], "retracted");
    // Ben opens it: the entry's status is said once, as its status.
    let shown = t.b.lore(&["show", &t.a1]).ok().to_owned();
    assert!(shown.contains("\nstatus:      retracted\n"), "{shown}");
    assert_eq!(shown.matches("retracted").count(), 1, "{shown}");
    assert_eq!(entry, t.a.entry("org", &t.a1).unwrap());
    assert!(!recall(false).contains(&t.a1), "Ben no longer recalls it");
    assert!(
        recall(true).contains("(not recalled: retracted)"),
        "{}",
        recall(true)
    );
    let reason = t.b.git(&[
        "log",
        "-1",
        "--format=%(trailers:key=Lore-Reason,valueonly)",
        "pool/org",
    ]);
    assert_eq!(reason.ok().trim(), "widget1 fixed the loader in 1.1.1");
    t.b.assert_verifies();
}

// ---------------------------------------------------------------- who may sign public

/// Ana's pool/public with Ben as a second signer (threshold 2 from then on).
fn two_signer_public() -> (Public, User) {
    let p = public();
    let b = ben();
    let key = b.key_file();
    let r = p.a.lore(&[
        "trust",
        "add",
        "public",
        key.to_str().unwrap(),
        "--principal",
        b.email,
    ]);
    assert_eq!(r.ok(), format!("pool/public: {} may sign\n", b.email));
    (p, b)
}

/// A config commit on Ana's pool/public that lets Carol sign, written by
/// hand and signed with Ana's key alone, though the threshold asks for two
/// signers; checked to be the tip, its allowed signers Carol's key added
/// and nothing else. Its id.
#[track_caller]
fn forge_carol_signer(p: &Public) -> String {
    let signers =
        p.a.git(&["show", "pool/public:.lore/allowed_signers"])
            .ok()
            .to_owned();
    let carol = std::fs::read_to_string(p.a.env.stranger_key().with_extension("pub")).unwrap();
    let more = format!(
        "{signers}carol@example.com namespaces=\"git\" {}\n",
        carol.trim()
    );
    let c = p.a.env.forge(
        "pool/public",
        Some("pool/public"),
        &[(".lore/allowed_signers", Some(&more))],
        "config: trust carol on pool/public\n\nLore-Format: 1\nLore-Action: config\nLore-Reason: signers\n",
        Sign::Repo,
    );
    assert_eq!(p.a.tip("pool/public").as_deref(), Some(c.as_str()));
    assert_eq!(
        p.a.git(&["diff", "--name-only", &format!("{c}^"), &c]).ok(),
        ".lore/allowed_signers\n"
    );
    assert_eq!(
        p.a.git(&["show", "pool/public:.lore/allowed_signers"]).ok(),
        more
    );
    c
}

fn signers(u: &User, tier: &str) -> Vec<String> {
    let l: Value = serde_json::from_str(u.lore(&["trust", "list", tier, "--json"]).ok()).unwrap();
    l["signers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["principal"].as_str().unwrap().to_owned())
        .collect()
}

#[test]
fn a_new_public_signer_waits_for_a_second_signer() {
    let (p, b) = two_signer_public();
    p.a.lore(&["publish", "public"]).ok();
    b.join("public", &p.host, &p.a);
    let carol = p.a.env.stranger_key().with_extension("pub");
    let fp = stranger_fingerprint(&p.a.env).unwrap();
    let n = names(&[&p.a, &b], &[(&fp, "[carol's fingerprint]")]);
    insta::assert_snapshot!(p.a.session(&[
        "trust",
        "add",
        "public",
        carol.to_str().unwrap(),
        "--principal",
        "carol@example.com",
    ], &n), @"
    $ git lore trust add public [ana]/stranger_key.pub --principal carol@example.com
    pool/public: proposed carol@example.com may sign; in force once 1 more signer acknowledges it with `git lore trust ack public`
    ");
    assert_eq!(
        signers(&p.a, "public"),
        ["ana@example.com", "ben@example.com"]
    );
    insta::assert_snapshot!(p.a.session(&["trust", "list", "public"], &n), @"
    $ git lore trust list public
    SHA256:ZvYxy04IiR2nAqc2PrXWBMNhH8nEs+q6Doj7Q0u5zCI  ana@example.com
    SHA256:C7wNb2gy2xXY2bPpouAM+tZ/GG2pYrKXI4PT4ixZHVE  ben@example.com
    threshold: 2 signers must agree to change who may sign
    pending proposal:
      SHA256:ZvYxy04IiR2nAqc2PrXWBMNhH8nEs+q6Doj7Q0u5zCI  ana@example.com
      SHA256:C7wNb2gy2xXY2bPpouAM+tZ/GG2pYrKXI4PT4ixZHVE  ben@example.com
      [carol's fingerprint]  carol@example.com
      acknowledged by 1 of 2: SHA256:ZvYxy04IiR2nAqc2PrXWBMNhH8nEs+q6Doj7Q0u5zCI
    ");

    // The proposal travels as a review branch; the host's owner merges it.
    let r = p.a.lore(&["publish", "public"]);
    let out = r.ok();
    let branch = out
        .split_whitespace()
        .find(|w| w.starts_with("review/signers-"))
        .unwrap_or_else(|| panic!("no review/signers- branch in:\n{out}"))
        .to_owned();
    let proposal = p.at_host(&["rev-parse", &branch]);
    p.at_host(&["update-ref", "refs/heads/pool/public", &proposal]);
    b.lore(&["sync", "public"]).ok();
    assert_eq!(
        signers(&b, "public"),
        ["ana@example.com", "ben@example.com"]
    );

    let r = b.lore(&["trust", "ack", "public"]);
    assert_eq!(r.ok(), "pool/public: the change of signers\n");
    assert_eq!(
        signers(&b, "public"),
        ["ana@example.com", "ben@example.com", "carol@example.com"]
    );
    b.assert_verifies();
}

#[test]
fn verify_refuses_a_direct_change_of_public_signers_above_the_threshold() {
    let (p, _b) = two_signer_public();
    let c = forge_carol_signer(&p);
    p.a.env.assert_verify_fails(&[format!(
        "{c} (pool/public): config signers: on pool/public a change of who may sign needs 2 signers to agree"
    )]);
}

// ---------------------------------------------------------------- small commands

#[test]
fn key_prints_the_allowed_signers_line_of_the_repository_key() {
    let a = ana();
    let r = a.lore(&["key"]);
    let public = std::fs::read_to_string(a.env.repo().join("keys/lore_ed25519.pub")).unwrap();
    let mut key = public.split_whitespace();
    let (kind, blob) = (key.next().unwrap(), key.next().unwrap());
    assert_eq!(kind, "ssh-ed25519");
    let fp = a.fingerprint();
    let n = names(
        &[&a],
        &[(blob, "[ana's key]"), (&fp, "[ana's fingerprint]")],
    );
    insta::assert_snapshot!(transcript(&["key"], &r, &n), @"
    $ git lore key
    ana@example.com ssh-ed25519 [ana's key]
    [stderr] fingerprint [ana's fingerprint]
    ");
    let j: Value = serde_json::from_str(a.lore(&["key", "--json"]).ok()).unwrap();
    assert_eq!(j["principal"], "ana@example.com");
    assert_eq!(j["key_type"], kind);
    assert_eq!(j["key"], blob);
    assert!(j["fingerprint"].as_str().unwrap().starts_with("SHA256:"));
}

#[test]
fn init_email_sets_the_principal_and_the_commit_identity() {
    let a = ana();
    assert_eq!(
        a.git(&["config", "user.email"]).ok().trim(),
        "ana@example.com"
    );
    assert_eq!(
        a.git(&["log", "-1", "--format=%ae", "ledger"]).ok().trim(),
        "ana@example.com"
    );
    let signers = std::fs::read_to_string(a.env.repo().join("allowed_signers")).unwrap();
    assert!(
        signers.starts_with("ana@example.com namespaces=\"git\" ssh-ed25519 "),
        "{signers}"
    );
    // An e-mail given: no warning about the identity.
    let again = TestEnv::with_seeds_after(3_000);
    let r = again.lore(&["init", "--email", "cy@example.com"]);
    r.ok();
    assert!(!r.stderr.contains("identity"), "{}", r.stderr);
    let r = again.lore(&["key"]);
    r.ok();
    assert!(!r.stderr.contains("warning"), "{}", r.stderr);
    // Without --email and with no git identity: git-lore@localhost, with
    // a warning that says how to set one.
    let nobody = TestEnv::with_seeds_after(2_000);
    let r = nobody.lore(&["init"]);
    assert!(
        r.ok().ends_with(" as git-lore <git-lore@localhost>\n"),
        "{}",
        r.stdout
    );
    r.assert_stderr(&format!(
        "warning: no git identity (user.email), so this repository signs as git-lore <git-lore@localhost>, as does everyone's without one: teammates who trust your key cannot tell you apart. Set yours with `git config --global user.name \"Your Name\"` and `git config --global user.email you@example.com`, then remove {} (it holds nothing yet) and run `git lore init` again",
        nobody.repo().display()
    ));
    assert!(!r.stdout.contains("warning"), "the warning is on stderr");
    let r = nobody.lore(&["key"]);
    assert!(r.ok().starts_with("git-lore@localhost ssh-ed25519 "));
    r.assert_stderr("warning: the principal git-lore@localhost is the placeholder of every lesson repository made without a git identity: whoever trusts this line cannot tell you from anyone else without one. Set yours (`git config --global user.name \"Your Name\"`, `git config --global user.email you@example.com`)");
    // The identity from git's own configuration: no warning.
    let configured = TestEnv::with_seeds_after(4_000);
    configured.write(
        "home/gitconfig",
        "[user]\n\tname = Dee\n\temail = dee@example.com\n",
    );
    let r = configured
        .lore_cmd(&["init"])
        .env("GIT_CONFIG_GLOBAL", configured.home().join("gitconfig"))
        .output()
        .unwrap();
    let r = Run::from(r);
    assert!(
        r.ok().ends_with(" as Dee <dee@example.com>\n"),
        "{}",
        r.stdout
    );
    assert!(!r.stderr.contains("warning"), "{}", r.stderr);
}

#[test]
fn remote_list_shows_each_tier_its_url_and_its_pins() {
    let a = ana();
    let b = ben();
    a.pin_remote("org", "/srv/pools/org.git", &b);
    let fp = b.fingerprint();
    let n = names(&[&a, &b], &[(&fp, "[ben's fingerprint]")]);
    insta::assert_snapshot!(a.session(&[
        "remote",
        "add",
        "public",
        "https://github.com/acme/lessons.git",
    ], &n), @"
    $ git lore remote add public https://github.com/acme/lessons.git
    public: https://github.com/acme/lessons.git (0 pinned signers)
    [stderr] no signer pinned: `git lore sync public` will show the first signer's fingerprint and how to pin it
    ");
    insta::assert_snapshot!(a.session(&["remote", "list"], &n), @"
    $ git lore remote list
    org  /srv/pools/org.git
      pinned [ben's fingerprint]  ben@example.com
    public  https://github.com/acme/lessons.git
    ");
    assert_eq!(
        a.git(&["config", "--get-all", "remote.org.fetch"])
            .ok()
            .trim(),
        "+refs/heads/pool/org:refs/lore/incoming/org"
    );
    assert_eq!(
        a.git(&["config", "--get-all", "remote.org.push"])
            .ok()
            .trim(),
        "refs/heads/pool/org:refs/heads/pool/org"
    );
    insta::assert_snapshot!(a.session(&["remote", "remove", "public"], &n), @"
    $ git lore remote remove public
    public: remote removed
    ");
    insta::assert_snapshot!(a.session(&["remote", "remove", "public"], &n), @"
    $ git lore remote remove public
    public: there was no remote
    ");
    let j: Value = serde_json::from_str(a.lore(&["remote", "list", "--json"]).ok()).unwrap();
    assert_eq!(j.as_array().unwrap().len(), 1);
    assert_eq!(j[0]["tier"], "org");
}

/// A URL with a password, which the lesson repository's git rewrites to
/// the host (`url.<host>.insteadOf`), so that it works with no server.
const SECRET_URL: &str = "https://ana:s3cret@pool.example/host.git";
const SHOWN_URL: &str = "https://ana@pool.example/host.git";

#[test]
fn a_password_in_a_remote_url_is_never_shown() {
    let t = team();
    t.a.git(&[
        "config",
        &format!("url.{}.insteadOf", t.host.display()),
        SECRET_URL,
    ])
    .ok();
    t.a.lore(&["remote", "add", "org", SECRET_URL]).ok();
    let list = t.a.lore(&["remote", "list"]);
    list.assert_ok_stdout(&format!("org  {SHOWN_URL}\n"));
    let json = t.a.lore(&["remote", "list", "--json"]);
    json.assert_ok_stdout(SHOWN_URL);
    t.a.org_lesson();
    let publish = t.a.lore(&["publish", "org"]);
    publish.assert_ok_stdout(&format!("pushed 1 commit to {SHOWN_URL} ("));
    let sync = t.a.lore(&["sync", "org"]);
    assert_eq!(
        sync.ok(),
        format!("pool/org: up to date with {SHOWN_URL}\n")
    );
    let json = t.a.lore(&["sync", "org", "--json"]);
    json.assert_ok_stdout(SHOWN_URL);
    for r in [&list, &json, &publish, &sync] {
        assert!(
            !format!("{}{}", r.stdout, r.stderr).contains("s3cret"),
            "{r:?}"
        );
    }
}

#[test]
fn a_password_in_an_unreachable_remote_url_is_never_shown() {
    let a = ana();
    a.org_lesson();
    // A port nothing listens on.
    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let url = format!("https://ana:s3cret@127.0.0.1:{port}/host.git");
    a.lore(&["remote", "add", "org", &url]).ok();
    for verb in ["sync", "publish"] {
        let r = a.lore(&[verb, "org"]);
        assert_ne!(r.code, 0, "{verb} reached a closed port");
        r.assert_stderr(&format!("https://ana@127.0.0.1:{port}/host.git"));
        assert!(
            !r.stderr.contains("s3cret"),
            "{verb} shows the password:\n{}",
            r.stderr
        );
    }
}

// ---------------------------------------------------------------- joining

#[test]
fn a_newcomer_who_publishes_before_being_trusted_is_told_how() {
    let t = team();
    let b1 = t.b.org_lesson();
    let before = t.host_tip("pool/org");
    let commit = t.b.tip("pool/org").unwrap();
    let r = t.b.lore(&["publish", "org"]);
    let fp = t.b.fingerprint();
    let n = names(
        &[&t.a, &t.b],
        &[(&commit, "[ben's tip]"), (&fp, "[ben's fingerprint]")],
    );
    insta::assert_snapshot!(transcript(&["publish", "org"], &r, &n), @"
    $ git lore publish org
    [ben's tip] (pool/org): signed by a key not in the allowed signers ([ben's fingerprint]): this repository's key [ben's fingerprint] is not a signer of the remote pool/org; send the line `git lore key` prints to a signer of the pool and ask them to run `git lore trust add org`, then `git lore sync org` and publish again
    [stderr] pool/org: nothing was pushed to [ana]/srv/host.git
    [exit 1]
    ");
    assert_eq!(t.host_tip("pool/org"), before);
    // Following that advice (trust, sync, publish again) must work: the
    // lesson promoted before Ben was trusted goes out once he is.
    t.trust_ben();
    assert!(t
        .b
        .lore(&["publish", "org"])
        .ok()
        .starts_with("pool/org: pushed "));
    t.a.lore(&["sync", "org"]).ok();
    assert_eq!(t.a.entry("org", &b1).unwrap()["status"], "active");
    t.a.assert_verifies();
}

#[test]
fn publish_org_dry_run_pushes_nothing() {
    let a = ana();
    a.org_lesson();
    let host = host(&a);
    let url = host.display().to_string();
    a.add_remote("org", &url);
    let tip = a.tip("pool/org").unwrap();
    let n = names(&[&a], &[(&tip[..12], "[tip]")]);
    insta::assert_snapshot!(a.session(&["publish", "org", "--dry-run"], &n), @"
    $ git lore publish org --dry-run
    pool/org: would push 2 commits to [ana]/srv/host.git (nothing -> [tip])
    ");
    assert_eq!(tip_in(&a.env, &host, "pool/org"), None);
    a.lore(&["publish", "org"]).ok();
    insta::assert_snapshot!(a.session(&["publish", "org"], &n), @"
    $ git lore publish org
    pool/org: [ana]/srv/host.git is up to date
    ");
}

#[test]
fn sync_from_a_host_with_no_pool_yet_says_how_to_start_it() {
    let a = ana();
    let b = ben();
    let host = host(&a);
    let url = host.display().to_string();
    b.add_remote("org", &url);
    insta::assert_snapshot!(b.session(&["sync", "org"], &names(&[&a, &b], &[])), @"
    $ git lore sync org
    pool/org: [ana]/srv/host.git has no pool/org yet (`git lore publish org` starts it)
    ");
    assert_eq!(b.tip("pool/org"), None);
}

/// The team, and Ben starting over before he joins: a pool/org of his own
/// with one lesson (`own`, its tip `before`), Ana pinned on the team's
/// remote, not synced yet.
struct Separate {
    t: Team,
    b: User,
    own: String,
    before: String,
}

fn separate() -> Separate {
    let t = team();
    let b = ben();
    let own = b.org_lesson();
    let before = b.tip("pool/org").unwrap();
    b.pin_remote("org", &t.url, &t.a);
    Separate { t, b, own, before }
}

/// `sync`'s line when it made `url`'s history Ben's pool/org, his own
/// lesson promoted again on top, checked with the backup of the old
/// history: `refs/lore/before-sync/org/<kept>` at `kept`.
#[track_caller]
fn assert_adopted(b: &User, r: &Run, url: &str, kept: &str) {
    assert_eq!(
        r.ok(),
        format!("pool/org: now {url}'s history (2 verified commits) with this pool's own 1 lesson promoted again on top, signed now (this pool had begun separately; the old history is kept at refs/lore/before-sync/org/{kept})\n"),
    );
    assert_eq!(
        b.tip(&format!("refs/lore/before-sync/org/{kept}"))
            .as_deref(),
        Some(kept)
    );
}

#[test]
fn a_teammate_whose_own_pool_began_separately_joins_without_losing_it() {
    let Separate { t, b, own, before } = separate();
    // A backup an earlier version kept under the tier's own name is moved
    // under its tip's name, out of the way of the new one.
    let earlier = b.git(&["rev-parse", "pool/org~1"]).ok().trim().to_owned();
    b.git(&["update-ref", "refs/lore/before-sync/org", &earlier])
        .ok();
    let r = b.lore(&["sync", "org"]);
    assert_adopted(&b, &r, &t.url, &before);
    assert_eq!(
        b.git(&["for-each-ref", "--format=%(refname) %(objectname)", "refs/lore/before-sync/"])
            .ok(),
        format!("refs/lore/before-sync/org/{before} {before}\nrefs/lore/before-sync/org/{earlier} {earlier}\n")
            .lines()
            .collect::<std::collections::BTreeSet<_>>()
            .into_iter()
            .map(|l| format!("{l}\n"))
            .collect::<String>()
    );
    assert_eq!(b.entry("org", &own).unwrap()["status"], "active");
    assert!(b.entry("org", &t.a1).is_some());
    let remote_tip = t.host_tip("pool/org").unwrap();
    let base = b.git(&["merge-base", "pool/org", &remote_tip]);
    assert_eq!(
        base.ok().trim(),
        remote_tip,
        "built on the remote's history"
    );
    b.assert_verifies();
}

/// A signing program for `u` that, asked for its first signature, first
/// runs `git lore <write>` in another process (signed as usual), then signs:
/// a write landing after the command being tested decided on the pool and
/// before it moved the branch. (A public key as `user.signingkey` sends
/// signing to `gpg.ssh.program`; the stub signs with the private key, as an
/// agent would.)
struct Racing {
    /// Exists once the racing write ran.
    mark: PathBuf,
    private: String,
}

fn racing_signer(u: &User, write: &str) -> Racing {
    let private = u.git(&["config", "user.signingkey"]).ok().trim().to_owned();
    let public = u.env.write(
        "signing-key.pub",
        String::from_utf8(
            Command::new("ssh-keygen")
                .args(["-y", "-f", &private])
                .output()
                .unwrap()
                .stdout,
        )
        .unwrap()
        .trim(),
    );
    let mark = u.env.path().join("raced");
    let stub = u.env.stub(
        "racing-ssh-keygen",
        &format!(
            "if [ ! -e '{mark}' ]; then\n  : > '{mark}'\n  GIT_LORE_RANDOMNESS_SEED=4242 '{exe}' {write} >/dev/null || exit 1\nfi\nfor last; do :; done\nexec ssh-keygen -Y sign -n git -f '{private}' \"$last\"",
            mark = mark.display(),
            exe = env!("CARGO_BIN_EXE_git-lore"),
        ),
    );
    u.git(&["config", "gpg.ssh.program", stub.to_str().unwrap()])
        .ok();
    u.git(&["config", "user.signingkey", public.to_str().unwrap()])
        .ok();
    Racing { mark, private }
}

impl Racing {
    /// Signing as it was.
    fn stop(&self, u: &User) {
        u.git(&["config", "--unset", "gpg.ssh.program"]).ok();
        u.git(&["config", "user.signingkey", &self.private]).ok();
    }
}

/// A retraction lands while sync adopts the remote's history (its first
/// signature). With `earlier_backup`, the tip sync first decided on was
/// backed up already (by an earlier adopt): a backup the refused decision
/// did not write itself is never taken away.
fn adopt_race(earlier_backup: bool) {
    let Separate { t, b, own, before } = separate();
    let before_ref = format!("refs/lore/before-sync/org/{before}");
    if earlier_backup {
        b.git(&["update-ref", &before_ref, &before]).ok();
    }
    // The first signature the sync asks for (promoting `own` again on the
    // remote's history) first retracts `own` in another process.
    let racing = racing_signer(
        &b,
        &format!("retract {own} --reason 'withdrawn while sync ran'"),
    );
    let r = b.lore(&["sync", "org"]);
    assert!(racing.mark.exists(), "the racing write ran");
    assert_eq!(
        b.entry("org", &own).unwrap()["status"],
        "retracted",
        "{}{}",
        r.stdout,
        r.stderr
    );
    // The second decision kept the tip it was made on, the retraction. The
    // first one's backup of `before` went with its refused replacement
    // (`before` is the retraction's parent, named through it).
    let kept = b
        .git(&[
            "for-each-ref",
            "--format=%(objectname)",
            "refs/lore/before-sync/",
        ])
        .ok()
        .to_owned();
    let kept: Vec<&str> = kept.lines().filter(|k| *k != before).collect();
    let [retracted] = kept[..] else {
        panic!("one backup besides {before}: {kept:?}")
    };
    let retracted = retracted.to_owned();
    assert_eq!(
        b.tip(&before_ref),
        earlier_backup.then(|| before.clone()),
        "{before_ref}"
    );
    assert_eq!(
        b.git(&["rev-parse", &format!("{retracted}^")]).ok().trim(),
        before,
        "the retraction was written on the tip sync first decided on"
    );
    // Decided again on the retraction: the entry comes back retracted.
    assert_adopted(&b, &r, &t.url, &retracted);
    let remote_tip = t.host_tip("pool/org").unwrap();
    assert_eq!(
        b.git(&["log", "--format=%s", &format!("{remote_tip}..pool/org")])
            .ok(),
        format!("retract {own} in pool/org\npromote {own} into pool/org\n")
    );
    racing.stop(&b);
    b.assert_verifies();
}

#[test]
fn a_write_landing_while_sync_adopts_is_decided_again_not_dropped() {
    adopt_race(false);
}

#[test]
fn a_refused_adopt_keeps_a_backup_it_did_not_write() {
    adopt_race(true);
}

#[test]
fn a_sync_whose_adopt_another_sync_won_keeps_the_backup() {
    let Separate { t, b, own, before } = separate();
    // While this sync signs its adopt, another sync makes the same adopt
    // (its own signature no longer races) and wins: `before`, Ben's own
    // history, is now reached by no branch, only by its backup, which this
    // sync wrote and must leave standing.
    let racing = racing_signer(&b, "sync org");
    let r = b.lore(&["sync", "org"]);
    assert!(racing.mark.exists(), "the racing write ran");
    racing.stop(&b);
    assert_eq!(r.ok(), format!("pool/org: up to date with {}\n", t.url));
    assert_eq!(
        b.tip(&format!("refs/lore/before-sync/org/{before}")),
        Some(before.clone())
    );
    assert_eq!(
        b.git(&["merge-base", "--is-ancestor", &before, "pool/org"])
            .code,
        1,
        "the other adopt replaced the history"
    );
    assert_eq!(b.entry("org", &own).unwrap()["status"], "active");
    b.assert_verifies();
}

/// Ana promotes one lesson twice (the same claim from two sessions) and
/// publishes; Ben syncs them. Then Ana's offline relation judge merges the
/// second into the first (the first entry becomes `superseded`) and she
/// publishes that too, not synced by Ben yet. The two ids, in that order.
fn duplicates_superseded_at_the_remote(t: &Team) -> (String, String) {
    let arts: Vec<Value> = (1..=2)
        .map(|n| {
            let mut a = crate::common::artifact(
                &crate::common::ulid(9, n),
                "vite 5.4.0 dev server crashes on start",
                "The loader rejects the config file on boot. Fixed by setting server.hmr.timeout to 30 in vite.config.ts.",
            );
            a["session_id"] = format!("sess-{n}").into();
            a
        })
        .collect();
    let file = t.a.env.artifacts_file("duplicates.jsonl", &arts);
    let out =
        t.a.lore(&["ingest", file.to_str().unwrap()])
            .ok()
            .to_owned();
    let [first, second] =
        [0, 1].map(|i| crate::common::lesson_for(&out, arts[i]["id"].as_str().unwrap()));
    for id in [&first, &second] {
        t.a.env.confirm(id, "org");
        t.a.approve(id, "org");
    }
    t.a.lore(&["publish", "org"]).ok();
    t.b.lore(&["sync", "org"]).ok();
    assert_eq!(t.b.entry("org", &first).unwrap()["status"], "active");
    t.a.env.config("lore.relate.backend", "offline");
    t.a.lore(&["relate", &second]).ok();
    assert_eq!(t.a.entry("org", &first).unwrap()["status"], "superseded");
    t.a.lore(&["publish", "org"]).ok();
    (first, second)
}

#[test]
fn a_write_landing_while_sync_merges_is_decided_again_not_dropped() {
    let t = team();
    t.trust_ben();
    let (first, second) = duplicates_superseded_at_the_remote(&t);
    // Both sides moved: Ben promoted a lesson of his own, and the remote
    // superseded `first`. The merge's signature first retracts `first` here,
    // in another process: built on the tip it was decided on, the merge
    // would take the remote's `superseded` over a retraction it never saw.
    let b2 = t.b.org_lesson();
    let decided_on = t.b.tip("pool/org").unwrap();
    let racing = racing_signer(
        &t.b,
        &format!("retract {first} --reason 'withdrawn while sync ran'"),
    );
    let r = t.b.lore(&["sync", "org"]);
    assert!(racing.mark.exists(), "the racing write ran");
    racing.stop(&t.b);
    let merge = t.b.tip("pool/org").unwrap();
    assert_eq!(
        r.ok(),
        format!(
            "pool/org: 2 verified commits from {} merged ({}), no new lessons\n  {first}: kept retracted (local) over superseded\n",
            t.url,
            &merge[..12]
        )
    );
    // The merge was built on the retraction, itself on the tip sync first
    // decided on.
    let (ours, theirs) = merge_parents(&t.b.env, "pool/org");
    let (ours, theirs) = (ours.as_str(), theirs.as_str());
    assert_eq!(Some(theirs), t.host_tip("pool/org").as_deref());
    assert_eq!(
        t.b.git(&["log", "--format=%s", &format!("{decided_on}..{ours}")])
            .ok(),
        format!("retract {first} in pool/org\n")
    );
    assert_eq!(t.b.entry("org", &first).unwrap()["status"], "retracted");
    assert_eq!(t.b.entry("org", &second).unwrap()["status"], "active");
    assert_eq!(
        t.b.entry("org", &second).unwrap(),
        t.a.entry("org", &second).unwrap(),
        "the remote's side of the relation came in"
    );
    for id in [&t.a1, &b2] {
        assert_eq!(t.b.entry("org", id).unwrap()["status"], "active");
    }
    t.b.assert_verifies();
    t.b.assert_stock_git_verifies("org");
}

/// `git lore sync org` as `u`, run in this process with `write` run once,
/// after sync's first decision and before its write: no program runs in
/// that window, so no stub can land a write there
/// ([`sync::sync_racing`]). What sync reported, and the kind of each
/// decision it made.
fn sync_racing(u: &User, mut write: impl FnMut()) -> (sync::Report, Vec<String>) {
    use rand::SeedableRng;
    let genv = git_lore::ops::Env::new(
        crate::common::NOW.parse().unwrap(),
        Some(u.env.home()),
        u.env.vars(),
    );
    let mut lore =
        git_lore::ops::Lore::open(&u.env.repo(), genv, rand::rngs::StdRng::seed_from_u64(7))
            .unwrap();
    let mut decided = Vec::new();
    let report = sync::sync_racing(
        &mut lore,
        git_lore::model::Source::Org,
        &sync::Options::default(),
        &mut |kind| {
            if decided.is_empty() {
                write();
            }
            decided.push(kind.to_owned());
            Ok(())
        },
    )
    .unwrap();
    (report, decided)
}

#[test]
fn a_pool_begun_here_before_sync_creates_it_is_adopted_not_overwritten() {
    // Ben pinned the remote but has no pool/org: sync decides to create it
    // at the remote's tip, and right then Ben promotes a lesson of his own,
    // which begins a pool/org here.
    let t = team();
    let b = ben();
    b.pin_remote("org", &t.url, &t.a);
    let mut own = None;
    let (report, decided) = sync_racing(&b, || own = Some(b.org_lesson()));
    let own = own.unwrap();
    assert_eq!(b.entry("org", &own).unwrap()["status"], "active");
    assert_eq!(b.entry("org", &t.a1).unwrap()["status"], "active");
    assert_eq!(decided, ["fast-forward", "adopt"]);
    let Some(Integration::Adopted {
        readded: 1,
        kept_at,
        began_separately: true,
    }) = &report.integration
    else {
        panic!("{:?}", report.integration)
    };
    let remote_tip = t.host_tip("pool/org").unwrap();
    assert_eq!(
        b.git(&["log", "--format=%s", &format!("{remote_tip}..pool/org")])
            .ok(),
        format!("promote {own} into pool/org\n")
    );
    assert!(b.tip(kept_at).is_some(), "{kept_at}");
    b.assert_verifies();
}

#[test]
fn a_write_landing_before_sync_fast_forwards_is_decided_again_as_a_merge() {
    let t = team();
    t.trust_ben();
    let a2 = t.a.org_lesson();
    t.a.lore(&["publish", "org"]).ok();
    let decided_on = t.b.tip("pool/org").unwrap();
    let remote_tip = t.host_tip("pool/org").unwrap();
    // Ben's pool is behind the remote's: sync decides to fast-forward, and
    // right then Ben retracts Ana's first lesson in another process.
    let (report, decided) = sync_racing(&t.b, || {
        t.b.lore(&["retract", &t.a1, "--reason", "withdrawn while sync ran"])
            .ok();
    });
    assert_eq!(t.b.entry("org", &t.a1).unwrap()["status"], "retracted");
    assert!(
        t.b.entry("org", &a2).is_some(),
        "the remote's lesson is lost"
    );
    assert_eq!(decided, ["fast-forward", "merge"]);
    let merge = t.b.tip("pool/org").unwrap();
    assert_eq!(
        report.integration,
        Some(Integration::Merged {
            commit: merge.clone()
        })
    );
    assert_eq!((report.verified, report.new_entries), (1, 1));
    assert!(report.problems.is_empty(), "{:?}", report.problems);
    // The merge joins the retraction, written on the tip sync first decided
    // on, and the remote's tip.
    let (ours, theirs) = merge_parents(&t.b.env, "pool/org");
    let (ours, theirs) = (ours.as_str(), theirs.as_str());
    assert_eq!(theirs, remote_tip);
    assert_eq!(
        t.b.git(&["log", "--format=%s", &format!("{decided_on}..{ours}")])
            .ok(),
        format!("retract {} in pool/org\n", t.a1)
    );
    assert_eq!(t.b.entry("org", &a2).unwrap()["status"], "active");
    assert_eq!(t.b.tip("refs/lore/remotes/org"), Some(remote_tip));
    t.b.assert_verifies();
    t.b.assert_stock_git_verifies("org");
}

#[test]
fn a_second_adopt_keeps_the_first_ones_backup() {
    let t = team();
    // Ben is no signer yet: each sync after he promotes adopts the remote's
    // history and promotes his lesson again on top.
    let mut kept = Vec::new();
    for round in 0..2 {
        t.b.org_lesson();
        kept.push(t.b.tip("pool/org").unwrap());
        if round == 1 {
            // An earlier version's backup whose move under its tip's name
            // was interrupted once its old name was gone (a crash): held
            // under `org.moving`, it is moved on.
            let held = t.b.git(&["rev-parse", "pool/org~1"]).ok().trim().to_owned();
            t.b.git(&["update-ref", "refs/lore/before-sync/org.moving", &held])
                .ok();
            kept.insert(0, held);
        }
        t.a.org_lesson();
        t.a.lore(&["publish", "org"]).ok();
        let r = t.b.lore(&["sync", "org"]);
        assert!(
            r.ok().ends_with(&format!("(they were made before this key could sign the pool; the old history is kept at refs/lore/before-sync/org/{})\n", kept.last().unwrap())),
            "{}",
            r.stdout
        );
    }
    for tip in &kept {
        assert_eq!(
            t.b.tip(&format!("refs/lore/before-sync/org/{tip}"))
                .as_ref(),
            Some(tip)
        );
    }
    assert_eq!(t.b.tip("refs/lore/before-sync/org.moving"), None);
    t.b.assert_verifies();
}

#[test]
fn hosting_again_updates_the_root_signers_in_place() {
    let a = ana();
    let b = ben();
    let dir = host(&a);
    let (ka, kb) = (a.key_file(), b.key_file());
    let args = [
        "host",
        dir.to_str().unwrap(),
        "--signer",
        ka.to_str().unwrap(),
        "--signer",
        kb.to_str().unwrap(),
    ];
    let r = a.lore(&args);
    let (fa, fb) = (a.fingerprint(), b.fingerprint());
    let n = names(
        &[&a, &b],
        &[(&fa, "[ana's fingerprint]"), (&fb, "[ben's fingerprint]")],
    );
    insta::assert_snapshot!(transcript(&args, &r, &n), @"
    $ git lore host [ana]/srv/host.git --signer [ana]/ana@example.com.pub --signer [ben]/ben@example.com.pub
    Updated pool host in [ana]/srv/host.git: pre-receive hook installed, 2 root signers
    [stderr] root signer [ana's fingerprint]  ana@example.com
    [stderr] root signer [ben's fingerprint]  ben@example.com
    ");
    let roots = std::fs::read_to_string(dir.join("lore/root_signers")).unwrap();
    assert!(
        roots.contains("ana@example.com namespaces=\"git\" ssh-ed25519 "),
        "{roots}"
    );
    assert!(
        roots.contains("ben@example.com namespaces=\"git\" ssh-ed25519 "),
        "{roots}"
    );
    // Ben, a root signer now, may start pool/org there.
    b.org_lesson();
    b.add_remote("org", dir.to_str().unwrap());
    assert!(b
        .lore(&["publish", "org"])
        .ok()
        .starts_with("pool/org: pushed 2 commits"));
}

// ---------------------------------------------------------------- more refusals

#[test]
fn a_forge_merge_that_drops_the_reviewed_lesson_is_refused() {
    let p = public();
    p.a.lore(&["publish", "public"]).ok();
    let b = p.ben();
    let p2 = p.review();
    // Two parents, but the tree of pool/public alone: not a pure merge.
    let review = format!("review/{p2}");
    let tree = p.at_host(&["rev-parse", "pool/public^{tree}"]);
    let key = p.a.env.stranger_key();
    let m = forge_commit(
        &p.a.env,
        &p.host,
        &tree,
        &["pool/public", &review],
        Some(&key),
    );
    p.at_host(&["update-ref", "refs/heads/pool/public", &m]);
    let tip = b.tip("pool/public");
    let n = names(&[&p.a, &b], &[(&m, "[merge]")]);
    insta::assert_snapshot!(b.session(&["sync", "public"], &n), @"
    $ git lore sync public
    [merge] (pool/public): merge commit is not signed by an allowed signer and is not a pure merge of trusted parents
    [stderr] pool/public from [ana]/srv/host.git: 1 problem in 2 incoming commits; nothing was integrated (see `git lore verify`)
    [exit 1]
    ");
    assert_eq!(b.tip("pool/public"), tip);
}

#[test]
fn a_public_retraction_goes_out_as_its_own_review_branch() {
    let p = public();
    p.a.lore(&["publish", "public"]).ok();
    p.a.lore(&["retract", &p.p1, "--reason", "superseded upstream"])
        .ok();
    let n = names(&[&p.a], &[(&p.p1, "[p1]")]);
    insta::assert_snapshot!(p.a.session(&["publish", "public"], &n), @"
    $ git lore publish public
    [p1]: pushed review/[p1] (retracts the lesson)

    <!-- git-lore public lesson [p1]: rendered by `git lore publish public` -->
    ## widget11 1.11.0 crashes on start

    **Why it holds:** The loader rejects the config file on boot. Scoped to exactly the versions seen (widget11 1.11.0): the text states no wider range.

    **What fixed it:** Fixed by setting the timeout to 30 in config.yml.

    **Applies to:** `any version of widget11`

    ### Jury

    Rubric `lesson-promotion-public`, gate `unanimous`: aggregate 0.88 against a threshold of 0.75 — **passed** (`gate_passed`).

    | judge | score | passed | disclosure | generality | grounding | scope_accuracy |
    |---|---:|---|---:|---:|---:|---:|
    | standard | 0.90 | yes | 0.95 | 0.90 | 0.90 | 0.90 |
    | adversarial | 0.80 | yes | 0.95 | 0.80 | 0.80 | 0.80 |

    ### Disclosure scan

    No credential, key, token or private address found in any field (git-lore's disclosure scanner).

    ### Signature

    `lessons/Z/G/4/[p1].json` is added by one `promote` commit signed by `ana@example.com` (SHA256:ZvYxy04IiR2nAqc2PrXWBMNhH8nEs+q6Doj7Q0u5zCI): good: listed in the remote pool's allowed signers.

    ---

    - Merge with a **merge commit**. Do not squash or rebase: git-lore verifies every commit of `pool/public`, and a squashed or rebased commit loses the signature above, so `git lore sync` would refuse it.
    - To read the whole entry before merging: `git fetch origin review/[p1]` and `git show FETCH_HEAD`, or after the merge `git lore sync public` and `git lore show [p1]`.
      open the pull request: gh pr create --base pool/public --head review/[p1] --title 'widget11 1.11.0 crashes on start' --body-file 'BODY.md'
    ");
    let review = format!("review/{}", p.p1);
    assert_eq!(
        p.at_host(&["diff", "--name-status", "pool/public", &review]),
        format!("M\t{}", fanout("lessons", &p.p1))
    );
    let entry: Value = serde_json::from_str(
        &p.at_host(&["show", &format!("{review}:{}", fanout("lessons", &p.p1))]),
    )
    .unwrap();
    assert_eq!(entry["status"], "retracted");
    // The reason its author gave travels with it.
    assert_eq!(
        p.at_host(&[
            "log",
            "-1",
            "--format=%(trailers:key=Lore-Reason,valueonly)",
            &review
        ])
        .trim(),
        "superseded upstream"
    );
}

#[test]
fn the_host_refuses_a_direct_change_of_public_signers_above_the_threshold() {
    let (p, _b) = two_signer_public();
    p.a.lore(&["publish", "public"]).ok();
    let before = p.host_tip("pool/public");
    let c = forge_carol_signer(&p);
    p.a.push_refused(
        &p.host,
        "pool/public:refs/heads/pool/public",
        &[&format!(
            "remote: git-lore: rejected {c} (pool/public): config signers: on pool/public a change of who may sign needs 2 signers to agree"
        )],
    );
    assert_eq!(p.host_tip("pool/public"), before);
}

#[test]
fn pool_local_has_no_remote() {
    let a = ana();
    let n = names(&[&a], &[]);
    let said: String = [
        &["remote", "add", "local", "/srv/pools/local.git"][..],
        &["sync", "local"],
        &["publish", "local"],
    ]
    .iter()
    .map(|args| a.session(args, &n))
    .collect();
    insta::assert_snapshot!(said, @"
    $ git lore remote add local /srv/pools/local.git
    [stderr] git-lore: pool/local never leaves this machine; use org or public
    [exit 1]
    $ git lore sync local
    [stderr] git-lore: pool/local never leaves this machine; use org or public
    [exit 1]
    $ git lore publish local
    [stderr] git-lore: pool/local never leaves this machine; use org or public
    [exit 1]
    ");
    assert_eq!(
        a.git(&["config", "--get-regexp", "^remote\\."]).code,
        1,
        "no remote configured"
    );
}

#[test]
fn the_host_refuses_org_history_pushed_as_pool_public() {
    let t = team();
    // Every commit of pool/org is on the host already, as org commits.
    t.a.push_refused(
        &t.host,
        "pool/org:refs/heads/pool/public",
        &["remote: git-lore: rejected ", "do not match pool/public"],
    );
    assert_eq!(t.host_tip("pool/public"), None);
}

#[test]
fn the_host_refuses_a_pool_started_by_a_key_it_does_not_know() {
    let a = ana();
    let host = host(&a);
    let b = ben();
    b.public_lesson();
    let url = host.display().to_string();
    b.add_remote("public", &url);
    let r = b.lore(&["publish", "public"]);
    let tip = b.tip("pool/public").unwrap();
    let fp = b.fingerprint();
    let n = names(
        &[&a, &b],
        &[(&tip, "[ben's tip]"), (&fp, "[ben's fingerprint]")],
    );
    insta::assert_snapshot!(transcript(&["publish", "public"], &r, &n), @"
    $ git lore publish public
    [stderr] git-lore: [ana]/srv/host.git refused the push; nothing there changed: git-lore: rejected 596ec3b984b0be748e85cb489c99420c2cc0dc38 (pool/public): signed by a key not in the allowed signers ([ben's fingerprint]); if a pull request was merged by squash or rebase, the forge re-created its signed commits without their signatures: merge pull requests into a pool with a merge commit, so the signed commits stay as they are (reset the branch to the commit before and merge again; see docs/pools.md)
    [exit 1]
    ");
    assert_eq!(tip_in(&a.env, &host, "pool/public"), None);
}

// ---------------------------------------------------------------- CI

/// What `templates/pool-ci.yml` runs on a forge's checkout: the pull
/// request's commits, checked as the pool's by a host's rules, with one
/// GitHub annotation per problem.
#[test]
fn a_pull_request_is_verified_in_ci_with_annotations() {
    let t = team();
    let base = t.a.tip("pool/org").unwrap();
    // A good pull request: Ana's next lesson.
    t.a.org_lesson();
    let good = t.a.tip("pool/org").unwrap();
    let repo = t.a.env.repo();
    let r = t.a.lore(&[
        "--repo",
        repo.to_str().unwrap(),
        "verify",
        "--pool",
        "org",
        "--github",
        &format!("{base}..{good}"),
    ]);
    assert_eq!(
        r.ok(),
        "pool/org: 1 commit verified, every signature good, trailers and records consistent\n"
    );
    // A bad one: an unsigned commit on top, checked by the very command
    // the workflow template runs (`git lore` found on PATH, from the
    // repository's directory).
    let (bad, _) = forge_bad(&t, Bad::Unsigned);
    let template = include_str!("../../templates/pool-ci.yml");
    let step = template
        .lines()
        .filter_map(|l| l.trim().strip_prefix("run: "))
        .find(|l| l.starts_with("git lore ") && l.contains(" verify "))
        .expect("the template runs git lore verify");
    std::os::unix::fs::symlink(
        env!("CARGO_BIN_EXE_git-lore"),
        t.a.env.path().join("bin/git-lore"),
    )
    .unwrap();
    let out = Command::new("sh")
        .args(["-c", step])
        .current_dir(&repo)
        .env_clear()
        .envs(t.a.env.vars())
        .env("BASE", &base)
        .env("HEAD", &bad)
        .env("TIER", "org")
        .output()
        .unwrap();
    let r = Run::from(out);
    assert_eq!(r.code, 1, "{}{}", r.stdout, r.stderr);
    let problem = "unsigned commit; if a pull request was merged by squash or rebase, the forge re-created its signed commits without their signatures: merge pull requests into a pool with a merge commit, so the signed commits stay as they are (reset the branch to the commit before and merge again; see docs/pools.md)";
    // One plain line, then one workflow command GitHub turns into an
    // annotation: `::error title=<title>::<message>` on a line of its own.
    assert_eq!(
        r.stdout,
        format!(
            "{bad} (pool/org): {problem}\n::error title=git-lore verify::commit {bad} on pool/org: {problem}\n"
        )
    );
    // The same range checked as public: the promotes name pool org.
    let r = t.a.lore(&[
        "--repo",
        repo.to_str().unwrap(),
        "verify",
        "--pool",
        "public",
        &format!("{base}..{good}"),
    ]);
    assert_eq!(r.code, 1);
    assert!(r.stdout.contains("Lore-Pool org"), "{}", r.stdout);
}

/// `sync --pin` trusts a first signer only for a history that verifies: a
/// refused sync leaves no pin behind, and the next sync asks again.
#[test]
fn a_pin_given_to_a_refused_sync_is_not_kept() {
    let t = team();
    let (commit, _) = forge_bad(&t, Bad::Unsigned);
    t.plant_on_host(&commit);
    let cy = User::new("cy@example.com", 2_000, 3);
    cy.add_remote("org", &t.url);
    let fp = t.a.fingerprint();
    let n = names(
        &[&t.a, &t.b, &cy],
        &[(&commit, "[forged]"), (&fp, "[ana's fingerprint]")],
    );
    insta::assert_snapshot!(cy.session(&["sync", "org", "--pin", &fp], &n), @"
    $ git lore sync org --pin [ana's fingerprint]
    [forged] (pool/org): unsigned commit; if a pull request was merged by squash or rebase, the forge re-created its signed commits without their signatures: merge pull requests into a pool with a merge commit, so the signed commits stay as they are (reset the branch to the commit before and merge again; see docs/pools.md)
    [stderr] pool/org from [ana]/srv/host.git: 1 problem in 3 incoming commits; nothing was integrated (see `git lore verify`)
    [exit 1]
    ");
    let pins = std::fs::read_to_string(cy.env.repo().join("pins/org")).unwrap_or_default();
    assert!(!pins.contains("ssh-ed25519"), "no pin kept: {pins}");
    assert_eq!(cy.tip("pool/org"), None);
    insta::assert_snapshot!(cy.session(&["sync", "org"], &n), @"
    $ git lore sync org
    [stderr] git-lore: the remote pool/org at [ana]/srv/host.git was started by key [ana's fingerprint], which is not pinned for org; nothing was integrated. Check that fingerprint with the pool's owner, then pin it: `git lore sync org --pin [ana's fingerprint]` (or `git lore remote add org URL --signer OWNER.pub`)
    [exit 1]
    ");
}

/// A remote moved to another URL starts afresh: what was verified from the
/// old one is not held against the new one as a rollback.
#[test]
fn a_new_remote_url_is_not_a_rollback_of_the_old_one() {
    let t = team();
    t.a.org_lesson();
    t.a.lore(&["publish", "org"]).ok();
    t.b.lore(&["sync", "org"]).ok();
    let mirror = t.b.env.path().join("mirror.git");
    let r = t.b.git(&[
        "clone",
        "--quiet",
        "--bare",
        t.host.to_str().unwrap(),
        mirror.to_str().unwrap(),
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    // The mirror lags one commit behind.
    let r = t.b.git(&[
        "--git-dir",
        mirror.to_str().unwrap(),
        "update-ref",
        "refs/heads/pool/org",
        "refs/heads/pool/org~1",
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    t.b.lore(&["remote", "add", "org", mirror.to_str().unwrap()])
        .ok();
    let tip = t.b.tip("pool/org");
    let r = t.b.lore(&["sync", "org"]);
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    assert!(!r.stderr.contains("moved back"), "{}", r.stderr);
    assert_eq!(t.b.tip("pool/org"), tip, "nothing of Ben's is lost");
    t.b.assert_verifies();
}

/// Each commit is checked against the signers in force at its parent,
/// however many commits before it share a list: Ben's commit while he may
/// sign verifies, his commit after Ana removed him does not, and both are
/// checked in the same run (the lists are cached by the file they come
/// from, docs/PERFORMANCE.md).
#[test]
fn a_signer_removed_mid_history_is_refused_from_then_on() {
    let t = team();
    t.trust_ben();
    let a = &t.a;
    let ben_key = t.b.env.repo().join("keys/lore_ed25519");
    // Ben's commits, as Ben: his key, his identity.
    let ben = [
        ("GIT_AUTHOR_NAME", "git-lore"),
        ("GIT_AUTHOR_EMAIL", t.b.email),
        ("GIT_COMMITTER_NAME", "git-lore"),
        ("GIT_COMMITTER_EMAIL", t.b.email),
    ];
    let forge_by_ben = |n: u32| -> (String, String) {
        let x = crate::common::ulid(91, n);
        let c = a.env.forge_with(
            &ben,
            "pool/org",
            Some("pool/org"),
            &[(
                &fanout("lessons", &x),
                Some(&entry_like(a, "org", &t.a1, &x, None)),
            )],
            &promote_message(a, "org", &t.a1, &x, &x),
            Sign::Key(&ben_key),
        );
        (c, x)
    };
    let (while_trusted, _) = forge_by_ben(1);
    a.assert_verifies();
    let r = a.lore(&["trust", "remove", "org", t.b.email]);
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    let (after, _) = forge_by_ben(2);
    let r = a.lore(&["verify"]);
    assert_eq!(r.code, 1, "{}{}", r.stdout, r.stderr);
    let problems: Vec<&str> = r
        .stdout
        .lines()
        .filter(|l| l.contains("(pool/org): "))
        .collect();
    assert_eq!(problems.len(), 1, "{}", r.stdout);
    assert!(
        problems[0].starts_with(&format!(
            "{after} (pool/org): signed by a key not in the allowed signers ({})",
            t.b.fingerprint()
        )),
        "{}",
        r.stdout
    );
    assert!(!r.stdout.contains(&while_trusted), "{}", r.stdout);
}

/// The two parents of the merge at `rev` in `env`'s repository.
#[track_caller]
fn merge_parents(env: &TestEnv, rev: &str) -> (String, String) {
    let parents = env
        .git(&["rev-parse", &format!("{rev}^1"), &format!("{rev}^2")])
        .ok()
        .to_owned();
    match parents.lines().collect::<Vec<_>>()[..] {
        [ours, theirs] => (ours.to_owned(), theirs.to_owned()),
        _ => panic!("not a merge: {parents}"),
    }
}

// ---------------------------------------------------------------- the team view

/// Ben ingests `artifacts` (written to `file` in his directory): what
/// ingest printed.
fn ingest_as(u: &User, file: &str, artifacts: &[Value]) -> (PathBuf, Run) {
    let f = u.env.artifacts_file(file, artifacts);
    let r = u.lore(&["ingest", f.to_str().unwrap()]);
    (f, r)
}

#[test]
fn a_shared_moment_stays_one_lesson() {
    let t = team();
    let (a, b) = (&t.a, &t.b);
    // The moment of Ana's first lesson, captured again by Ben after the
    // sync: seen, in the pool that holds her lesson; nothing written.
    let moment = crate::common::ulid(a.series, 11);
    let before = b.env.ledger_commits();
    let (f, r) = ingest_as(b, "same-moment.jsonl", &[proposable(a.series, 11)]);
    assert_eq!(
        r.ok(),
        format!("skipped {moment} seen (in pool/org) (from same-moment.jsonl)\n")
    );
    r.assert_stderr("ingest: no lessons proposed; 1 artifact skipped\n");
    assert_eq!(b.env.ledger_commits(), before, "nothing was written");
    let rows: Value =
        serde_json::from_str(b.lore(&["ingest", "--json", f.to_str().unwrap()]).ok()).unwrap();
    assert_eq!(
        rows,
        serde_json::json!([{"outcome": "skipped", "artifact": moment, "lesson": t.a1,
            "reason": "seen", "detail": "in pool/org", "source": "same-moment.jsonl"}])
    );

    // A moment both captured before either synced: Ben's lesson of it is
    // in his private pool, Ana's comes in with the sync. Recall lists one,
    // the one of the wider pool.
    let a2 = a.org_lesson();
    let (_, r) = ingest_as(b, "moment-2.jsonl", &[proposable(a.series, 12)]);
    let b2 = crate::common::lesson_of(r.ok());
    b.env.confirm(&b2, "private");
    b.lore(&["judge", &b2, "[]"])
        .assert_ok_stdout("promoted to pool/local");
    let n = names(&[a, b], &[(&t.a1, "[a1]"), (&a2, "[a2]"), (&b2, "[b2]")]);
    let recall = ["recall", "--stack", "widget12@1.12.0"];
    insta::assert_snapshot!(b.session(&recall, &n), @"
    $ git lore recall --stack widget12@1.12.0
    [b2]  widget12 1.12.0 crashes on start  [widget12 =1.12.0]
    [stderr] [ben] is not inside a project: no manifest or lockfile there or above it, up to the filesystem root; recalling for --stack alone
    ");
    a.lore(&["publish", "org"]).ok();
    b.lore(&["sync", "org"]).ok();
    insta::assert_snapshot!(b.session(&recall, &n), @"
    $ git lore recall --stack widget12@1.12.0
    [a2]  widget12 1.12.0 crashes on start  [widget12 =1.12.0]
    [stderr] [ben] is not inside a project: no manifest or lockfile there or above it, up to the filesystem root; recalling for --stack alone
    ");
    // Recall reads a project; an empty one installs nothing.
    let project = b.env.path().join("project");
    std::fs::create_dir_all(&project).unwrap();
    let all = ["recall", "--all", "--project", project.to_str().unwrap()];
    insta::assert_snapshot!(b.session(&all, &n), @"
    $ git lore recall --all --project [ben]/project
    [a1]  widget11 1.11.0 crashes on start  [widget11 =1.11.0]  (not recalled: widget11 not installed)
    [a2]  widget12 1.12.0 crashes on start  [widget12 =1.12.0]  (not recalled: widget12 not installed)
    [stderr] no lesson applies to the versions installed in [ben]/project (0 packages found)
    ");
    // Both lessons are still there, and search finds both.
    insta::assert_snapshot!(b.session(&["search", "widget12"], &n), @"
    $ git lore search widget12
    [a2]  pool/org     active      widget12 1.12.0 crashes on start  [widget12]
    [b2]  pool/local   active      widget12 1.12.0 crashes on start  [widget12]
    ");
}

#[test]
fn ben_finds_a_teammates_lesson_and_his_own_queue_by_search() {
    let t = team();
    let (a, b) = (&t.a, &t.b);
    let b1 = b.propose();
    let n = names(&[a, b], &[(&t.a1, "[a1]"), (&b1, "[b1]")]);
    insta::assert_snapshot!(b.session(&["search", "crashes", "start"], &n), @"
    $ git lore search crashes start
    [a1]  pool/org     active      widget11 1.11.0 crashes on start  [widget11]
    [b1]  ledger       pending     widget21 1.21.0 crashes on start  [widget21]
    ");
    insta::assert_snapshot!(b.session(&["search", "widget11", "--json"], &n), @r#"
    $ git lore search widget11 --json
    [
      {
        "id": "[a1]",
        "where": "pool/org",
        "status": "active",
        "score": 0.5776,
        "package_match": true,
        "claim": "widget11 1.11.0 crashes on start",
        "stack": [
          "widget11"
        ]
      }
    ]
    "#);
    insta::assert_snapshot!(b.session(&["search", "crashes", "--status", "pending"], &n), @"
    $ git lore search crashes --status pending
    [b1]  ledger       pending     widget21 1.21.0 crashes on start  [widget21]
    ");
    insta::assert_snapshot!(b.session(&["search", "widget21", "--pool", "org"], &n), @r#"
    $ git lore search widget21 --pool org
    [stderr] no lesson matches "widget21" in pool/org: every word must match, so try fewer words, drop --pool or --status, or list every lesson with `git lore list --pool org`
    [exit 1]
    "#);
}

#[test]
fn a_teammates_near_duplicate_reaches_relation_judgment() {
    let t = team();
    t.trust_ben();
    let b = &t.b;
    b.env.config("lore.relate.backend", "offline");
    // Another moment, told in other words: same package, same version.
    let close = crate::common::artifact(
        &crate::common::ulid(b.series, 90),
        "widget11 1.11.0 crashes on start when the cache is cold",
        "The loader rejects the config file on boot. Fixed by setting the timeout to 30 in config.yml.",
    );
    let (_, r) = ingest_as(b, "close.jsonl", &[close]);
    let b2 = crate::common::lesson_of(r.ok());
    b.env.confirm(&b2, "org");
    b.approve(&b2, "org");
    // Ana's synced lesson, never related, waits for relation on Ben's side
    // too; and Ben's is shown next to it, the most similar first.
    let status = b.lore(&["status"]);
    status.assert_ok_stdout("lessons waiting for relation: 2");
    let input: Value = serde_json::from_str(b.lore(&["relate", &b2, "--input"]).ok()).unwrap();
    let shown: Vec<&str> = input["neighbours"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n["id"].as_str().unwrap())
        .collect();
    assert_eq!(shown, [t.a1.as_str()], "{input:#}");
    let input: Value = serde_json::from_str(b.lore(&["relate", &t.a1, "--input"]).ok()).unwrap();
    assert_eq!(input["neighbours"][0]["id"], b2.as_str(), "{input:#}");

    // The same words from yet another moment are an exact duplicate: the
    // offline judge merges it into Ana's, and recall lists one lesson.
    let same = crate::common::artifact(
        &crate::common::ulid(b.series, 91),
        "widget11 1.11.0 crashes on start",
        "The loader rejects the config file on boot. Fixed by setting the timeout to 30 in config.yml.",
    );
    let (_, r) = ingest_as(b, "same.jsonl", &[same]);
    let b3 = crate::common::lesson_of(r.ok());
    b.env.confirm(&b3, "org");
    b.approve(&b3, "org");
    let r = b.lore(&["relate", &b3]);
    r.assert_ok_stdout(&format!("merge {b3}: absorbs 1 lesson"));
    assert_eq!(b.entry("org", &t.a1).unwrap()["status"], "superseded");
    let recall = b.lore(&["recall", "--stack", "widget11@1.11.0"]);
    let listed: Vec<&str> = recall.ok().lines().collect();
    assert_eq!(listed.len(), 2, "{}", recall.stdout);
    assert!(
        listed.iter().any(|l| l.starts_with(&b3)),
        "{}",
        recall.stdout
    );
    assert!(!recall.stdout.contains(&t.a1), "{}", recall.stdout);
}
