//! Pools on real remotes: a pool host made by `git lore host` (a bare
//! repository, reached by its path and through `git daemon` on 127.0.0.1)
//! and two or more users, each with their own lesson repository and key.
//!
//! - Two users share `pool/org`: pinning the first signer, trusting a
//!   teammate, publishing and syncing both ways; racing publishes.
//! - What the host's pre-receive check and `sync` refuse: an unsigned
//!   commit, one by an unknown key, trailers that disagree with the change,
//!   `.lore/` changed outside `config`, a squash, a rollback (and, on the
//!   host, a pool started by an unknown key or one tier's history pushed as
//!   another's).
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
//!   and URLs shown without their password.

use std::cell::Cell;
use std::net::{TcpListener, TcpStream};
use std::os::fd::OwnedFd;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use git_lore::ops::sync::{self, Integration};
use serde_json::Value;

use crate::common::{fanout, proposable, record_text, Run, Sign, TestEnv};

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
    #[track_caller]
    fn push_refused(&self, host: &Path, spec: &str, says: &[&str]) {
        let dst = spec.rsplit(':').next().unwrap();
        let before = tip_in(&self.env, host, dst);
        let r = self.git(&["push", "--no-verify", host.to_str().unwrap(), spec]);
        assert_ne!(r.code, 0, "the host accepted {spec}:\n{}", r.stderr);
        for s in says {
            r.assert_stderr(s);
        }
        assert_eq!(tip_in(&self.env, host, dst), before, "{dst} moved");
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
    let r = owner.lore(&[
        "host",
        dir.to_str().unwrap(),
        "--signer",
        key.to_str().unwrap(),
    ]);
    assert_eq!(
        r.ok(),
        format!(
            "Created pool host in {}: pre-receive hook installed, 1 root signer\n",
            dir.display()
        )
    );
    r.assert_stderr(&format!(
        "root signer {}  {}",
        owner.fingerprint(),
        owner.email
    ));
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
        let bin = Path::new(env!("CARGO_BIN_EXE_git-lore")).parent().unwrap();
        let vars: Vec<(String, String)> = env
            .vars()
            .into_iter()
            .filter(|(k, _)| k != "GIT_LORE_REPO")
            .map(|(k, v)| match k.as_str() {
                "PATH" => (k, format!("{}:{v}", bin.display())),
                _ => (k, v),
            })
            .collect();
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
    let a1 = a.org_lesson();
    a.add_remote("org", url);
    let r = a.lore(&["publish", "org"]);
    let a_tip = a.tip("pool/org").unwrap();
    assert_eq!(
        r.ok(),
        format!(
            "pool/org: pushed 2 commits to {url} (nothing -> {})\n",
            &a_tip[..12]
        )
    );
    assert_eq!(tip_in(&a.env, host, "pool/org"), Some(a_tip.clone()));
    // The host keeps a commit-graph, so the next push's check walks only
    // what is new.
    let chain = host.join("objects/info/commit-graphs/commit-graph-chain");
    assert!(chain.is_file(), "no commit-graph after a push");

    // Ben does not know who started the pool: refused, with the way to pin.
    b.add_remote("org", url);
    let r = b.lore(&["sync", "org"]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    let fp = a.fingerprint();
    r.assert_stderr(&format!(
        "the remote pool/org at {url} was started by key {fp}, which is not pinned for org; nothing was integrated"
    ));
    r.assert_stderr(&format!("`git lore sync org --pin {fp}`"));
    assert_eq!(b.tip("pool/org"), None);
    assert_eq!(b.tip("refs/lore/remotes/org"), None);
    assert_eq!(b.tip("refs/lore/incoming/org"), None);

    let r = b.lore(&["sync", "org", "--pin", &fp]);
    assert_eq!(
        r.ok(),
        format!("pool/org: 2 verified commits from {url}, 1 new lesson\n")
    );
    r.assert_stderr(&format!("pinned {fp} as the first signer of pool/org"));
    assert_eq!(b.tip("pool/org"), Some(a_tip.clone()));
    assert_eq!(b.entry("org", &a1).unwrap()["status"], "active");
    let project = b.env.path().join("project");
    std::fs::create_dir_all(&project).unwrap();
    let recall = b.lore(&["recall", "--all", "--project", project.to_str().unwrap()]);
    recall.assert_ok_stdout(&a1);
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
    assert!(a
        .lore(&["publish", "org"])
        .ok()
        .starts_with("pool/org: pushed 1 commit to "));
    assert_eq!(
        b.lore(&["sync", "org"]).ok(),
        format!("pool/org: 1 verified commit from {url}, 0 new lessons\n")
    );
    let b1 = b.org_lesson();
    let r = b.lore(&["publish", "org"]);
    assert!(
        r.ok()
            .starts_with(&format!("pool/org: pushed 1 commit to {url} (")),
        "{}",
        r.stdout
    );
    assert_eq!(
        a.lore(&["sync", "org"]).ok(),
        format!("pool/org: 1 verified commit from {url}, 1 new lesson\n")
    );
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
}

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
    }
}

/// Ana pushes `bad` by hand, skipping her own pre-push check: the host
/// rejects the push and keeps nothing of it.
fn host_refuses(bad: Bad) {
    let t = team();
    let before = t.host_tip("pool/org");
    let (commit, needles) = forge_bad(&t, bad);
    let rejected = format!("remote: git-lore: rejected {commit} (pool/org): ");
    let mut says = vec!["pre-receive hook declined", rejected.as_str()];
    says.extend(needles.iter().map(String::as_str));
    t.a.push_refused(&t.host, "forged:refs/heads/pool/org", &says);
    assert_eq!(t.host_tip("pool/org"), before, "the host's pool/org moved");
    assert_not_at(&t.a.env, &t.host, &commit, "the refused commit");
}

/// The host's pool/org is moved to `bad` behind the hook's back (as a
/// compromised or careless server could): Ben's sync integrates nothing.
fn sync_refuses(bad: Bad) {
    let t = team();
    let (commit, needles) = forge_bad(&t, bad);
    t.plant_on_host(&commit);
    let (tip, seen) = (t.b.tip("pool/org"), t.b.tip("refs/lore/remotes/org"));
    let r = t.b.lore(&["sync", "org"]);
    assert_eq!(r.code, 1, "{bad:?}: {}{}", r.stdout, r.stderr);
    let about: Vec<&str> = r
        .stdout
        .lines()
        .filter(|l| l.starts_with(&format!("{commit} (pool/org): ")))
        .collect();
    for n in &needles {
        assert!(
            about.iter().any(|l| l.contains(n.as_str())),
            "no {n:?} in:\n{}",
            r.stdout
        );
    }
    r.assert_stderr(&format!("pool/org from {}: ", t.url));
    r.assert_stderr("; nothing was integrated");
    assert_eq!(t.b.tip("pool/org"), tip, "Ben's pool/org moved");
    assert_eq!(t.b.tip("refs/lore/remotes/org"), seen);
    assert_eq!(t.b.tip("refs/lore/incoming/org"), None);
    assert!(t.b.entry("org", &crate::common::ulid(90, 1)).is_none());
    t.b.assert_verifies();
}

#[test]
fn the_host_refuses_an_unsigned_commit() {
    host_refuses(Bad::Unsigned);
}

#[test]
fn the_host_refuses_a_commit_by_an_unknown_key() {
    host_refuses(Bad::UnknownKey);
}

#[test]
fn the_host_refuses_trailers_that_name_another_lesson() {
    host_refuses(Bad::WrongTrailers);
}

#[test]
fn the_host_refuses_a_promote_that_changes_who_may_sign() {
    host_refuses(Bad::TouchesLore);
}

#[test]
fn the_host_refuses_a_squash_of_signed_commits() {
    host_refuses(Bad::Squash);
}

#[test]
fn sync_refuses_an_unsigned_commit() {
    sync_refuses(Bad::Unsigned);
}

#[test]
fn sync_refuses_a_commit_by_an_unknown_key() {
    sync_refuses(Bad::UnknownKey);
}

#[test]
fn sync_refuses_trailers_that_name_another_lesson() {
    sync_refuses(Bad::WrongTrailers);
}

#[test]
fn sync_refuses_a_promote_that_changes_who_may_sign() {
    sync_refuses(Bad::TouchesLore);
}

#[test]
fn sync_refuses_a_squash_of_signed_commits() {
    sync_refuses(Bad::Squash);
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
    let r = t.b.lore(&["sync", "org"]);
    r.assert_refused(&format!(
        "the remote pool/org at {} moved back from {} to {}, 1 commits dropped; nothing was integrated",
        t.url,
        &tip[..12],
        &older[..12]
    ));
    r.assert_stderr("`git lore sync org --accept-rollback`");
    assert_eq!(t.b.tip("pool/org"), Some(tip.clone()));
    assert_eq!(t.b.tip("refs/lore/remotes/org"), Some(tip.clone()));
    let r = t.b.lore(&["sync", "org", "--accept-rollback"]);
    assert_eq!(r.ok(), format!("pool/org: up to date with {}\n", t.url));
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
    let r = p.a.lore(&["publish", "public"]);
    assert_eq!(
        r.ok(),
        format!(
            "pool/public: started {}'s pool/public with the local one\n",
            p.url
        )
    );
    assert_eq!(p.host_tip("pool/public"), p.a.tip("pool/public"));
    assert_eq!(
        p.at_host(&["for-each-ref", "--format=%(refname)"]),
        "refs/heads/pool/public",
        "only the pool went out"
    );
    let ledger = p.a.tip("ledger").unwrap();
    assert_not_at(&p.a.env, &p.host, &ledger, "the ledger's tip");
    let r = p.a.lore(&["publish", "public"]);
    assert_eq!(
        r.ok(),
        format!(
            "pool/public: nothing to propose; {} has every public lesson here\n",
            p.url
        )
    );
}

#[test]
fn a_public_lesson_goes_out_as_a_review_branch_adding_one_entry() {
    let p = public();
    p.a.lore(&["publish", "public"]).ok();
    let started = p.host_tip("pool/public").unwrap();
    let p2 = p.a.public_lesson();
    let bodies = p.a.env.path().join("pr");
    let r = p.a.lore(&[
        "publish",
        "public",
        "--pr-body-dir",
        bodies.to_str().unwrap(),
    ]);
    let out = r.ok();
    assert!(
        out.contains(&format!("{p2}: pushed review/{p2} (adds the lesson)\n")),
        "{out}"
    );
    assert!(
        out.contains(&format!(
            "  open the pull request: gh pr create --base pool/public --head review/{p2} --title "
        )),
        "{out}"
    );
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

    let body = std::fs::read_to_string(bodies.join(format!("{p2}.md"))).unwrap();
    let claim = p.a.entry("public", &p2).unwrap()["claim"]
        .as_str()
        .unwrap()
        .to_owned();
    for needle in [
        format!("## {claim}"),
        "**What fixed it:** ".into(),
        "| judge | score | passed |".into(),
        "| standard | 0.90 | yes |".into(),
        "| adversarial | 0.80 | yes |".into(),
        "No credential, key, token or private address found".into(),
        format!("signed by `{}`", p.a.email),
        "Merge with a **merge commit**".into(),
    ] {
        assert!(body.contains(&needle), "PR body lacks {needle:?}:\n{body}");
    }
    // Publishing again opens nothing twice.
    let again = p.a.lore(&["publish", "public"]);
    again.assert_ok_stdout(&format!("{p2}: review/{p2} is already on {}", p.url));
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
    let r = b.lore(&["sync", "public"]);
    assert_eq!(r.code, 1, "{}{}", r.stdout, r.stderr);
    assert!(
        r.stdout
            .starts_with(&format!("{squash} (pool/public): unsigned commit")),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout
            .contains("merge pull requests into a pool with a merge commit"),
        "the refusal names the fix:\n{}",
        r.stdout
    );
    r.assert_stderr("nothing was integrated");
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
    assert_eq!(r.code, 1, "{}{}", r.stdout, r.stderr);
    r.assert_stdout(&format!(
        "{x}: not pushed: flagged by the disclosure scanner, never pushed: "
    ));
    assert!(!r.stdout.contains(TOKEN), "the token is not shown");
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
    assert_eq!(r.code, 1, "{}{}", r.stdout, r.stderr);
    r.assert_stdout(&format!(
        "lesson {x} is flagged by the disclosure scanner ("
    ));
    r.assert_stdout("pool/public cannot be started with it");
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
    for (private, host_says) in [
        ("ledger", "(pool/org): action init does not belong on pool/org"),
        (
            "pool/local",
            "(pool/org): promote: Lore-Pool local and Lore-Visibility private do not match pool/org",
        ),
    ] {
        let spec = format!("{private}:refs/heads/pool/org");
        // The pre-push guard of the lesson repository refuses it…
        let r = a.git(&["push", url, &spec]);
        assert_ne!(r.code, 0, "{private} was pushed");
        r.assert_stderr(&format!(
            "git-lore: refusing to push refs/heads/{private} to refs/heads/pool/org: its history is the history of {private}, which never leaves this machine"
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
    let r = t.a.lore(&[
        "retract",
        &t.a1,
        "--reason",
        "widget1 fixed the loader in 1.1.1",
    ]);
    assert_eq!(
        r.ok(),
        format!("{}: active -> retracted on pool/org\n", t.a1)
    );
    r.assert_stderr("share the retraction with `git lore publish org`");
    let shown = t.a.lore(&["show", &t.a1]).ok().to_owned();
    assert!(shown.contains("pool entry:  retracted\n"), "{shown}");
    assert!(t
        .a
        .lore(&["publish", "org"])
        .ok()
        .starts_with("pool/org: pushed 1 commit to "));
    assert_eq!(
        t.b.lore(&["sync", "org"]).ok(),
        format!(
            "pool/org: 1 verified commit from {}, 0 new lessons\n",
            t.url
        )
    );
    let entry = t.b.entry("org", &t.a1).unwrap();
    assert_eq!(entry["status"], "retracted");
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
    let r = p.a.lore(&[
        "trust",
        "add",
        "public",
        carol.to_str().unwrap(),
        "--principal",
        "carol@example.com",
    ]);
    assert_eq!(
        r.ok(),
        "pool/public: proposed carol@example.com may sign; in force once 1 more signer acknowledges it with `git lore trust ack public`\n"
    );
    assert_eq!(
        signers(&p.a, "public"),
        ["ana@example.com", "ben@example.com"]
    );
    let list = p.a.lore(&["trust", "list", "public"]);
    list.assert_ok_stdout("threshold: 2 signers must agree to change who may sign\n");
    list.assert_stdout("pending proposal:\n");
    list.assert_stdout("  acknowledged by 1 of 2: ");

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
    let line = r.ok().trim_end_matches('\n').to_owned();
    let public = std::fs::read_to_string(a.env.repo().join("keys/lore_ed25519.pub")).unwrap();
    let mut key = public.split_whitespace();
    let (kind, blob) = (key.next().unwrap(), key.next().unwrap());
    assert_eq!(line, format!("ana@example.com {kind} {blob}"));
    assert_eq!(kind, "ssh-ed25519");
    r.assert_stderr(&format!("fingerprint {}", a.fingerprint()));
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
    // Without --email and with no git identity: git-lore@localhost.
    let nobody = TestEnv::with_seeds_after(2_000);
    let r = nobody.lore(&["init"]);
    assert!(
        r.ok().ends_with(" as git-lore <git-lore@localhost>\n"),
        "{}",
        r.stdout
    );
    assert!(nobody
        .lore(&["key"])
        .ok()
        .starts_with("git-lore@localhost ssh-ed25519 "));
}

#[test]
fn remote_list_shows_each_tier_its_url_and_its_pins() {
    let a = ana();
    let b = ben();
    a.pin_remote("org", "/srv/pools/org.git", &b);
    let r = a.lore(&[
        "remote",
        "add",
        "public",
        "https://github.com/acme/lessons.git",
    ]);
    r.assert_stderr("no signer pinned: `git lore sync public` will show the first signer's fingerprint and how to pin it");
    assert_eq!(
        a.lore(&["remote", "list"]).ok(),
        format!(
            "org  /srv/pools/org.git\n  pinned {}  ben@example.com\npublic  https://github.com/acme/lessons.git\n",
            b.fingerprint()
        )
    );
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
    assert_eq!(
        a.lore(&["remote", "remove", "public"]).ok(),
        "public: remote removed\n"
    );
    assert_eq!(
        a.lore(&["remote", "remove", "public"]).ok(),
        "public: there was no remote\n"
    );
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
    let r = t.b.lore(&["publish", "org"]);
    assert_eq!(r.code, 1, "{}{}", r.stdout, r.stderr);
    let commit = t.b.tip("pool/org").unwrap();
    assert!(
        r.stdout.starts_with(&format!(
            "{commit} (pool/org): signed by a key not in the allowed signers ({fp})",
            fp = t.b.fingerprint()
        )),
        "{}",
        r.stdout
    );
    r.assert_stdout("send the line `git lore key` prints to a signer of the pool and ask them to run `git lore trust add org`");
    r.assert_stderr(&format!("pool/org: nothing was pushed to {}", t.url));
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
    let r = a.lore(&["publish", "org", "--dry-run"]);
    let tip = a.tip("pool/org").unwrap();
    assert_eq!(
        r.ok(),
        format!(
            "pool/org: would push 2 commits to {url} (nothing -> {})\n",
            &tip[..12]
        )
    );
    assert_eq!(tip_in(&a.env, &host, "pool/org"), None);
    a.lore(&["publish", "org"]).ok();
    assert_eq!(
        a.lore(&["publish", "org"]).ok(),
        format!("pool/org: {url} is up to date\n")
    );
}

#[test]
fn sync_from_a_host_with_no_pool_yet_says_how_to_start_it() {
    let a = ana();
    let b = ben();
    let host = host(&a);
    let url = host.display().to_string();
    b.add_remote("org", &url);
    assert_eq!(
        b.lore(&["sync", "org"]).ok(),
        format!("pool/org: {url} has no pool/org yet (`git lore publish org` starts it)\n")
    );
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
            "pool/org: 2 verified commits from {} merged ({}), 0 new lessons\n  {first}: kept retracted (local) over superseded\n",
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
    let r = a.lore(&[
        "host",
        dir.to_str().unwrap(),
        "--signer",
        ka.to_str().unwrap(),
        "--signer",
        kb.to_str().unwrap(),
    ]);
    assert_eq!(
        r.ok(),
        format!(
            "Updated pool host in {}: pre-receive hook installed, 2 root signers\n",
            dir.display()
        )
    );
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
    let r = b.lore(&["sync", "public"]);
    assert_eq!(r.code, 1, "{}{}", r.stdout, r.stderr);
    r.assert_stdout(&format!(
            "{m} (pool/public): merge commit is not signed by an allowed signer and is not a pure merge of trusted parents"
        ));
    assert_eq!(b.tip("pool/public"), tip);
}

#[test]
fn a_public_retraction_goes_out_as_its_own_review_branch() {
    let p = public();
    p.a.lore(&["publish", "public"]).ok();
    p.a.lore(&["retract", &p.p1, "--reason", "superseded upstream"])
        .ok();
    let r = p.a.lore(&["publish", "public"]);
    r.assert_ok_stdout(&format!(
        "{id}: pushed review/{id} (retracts the lesson)\n",
        id = p.p1
    ));
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
    for args in [
        &["remote", "add", "local", "/srv/pools/local.git"][..],
        &["sync", "local"],
        &["publish", "local"],
    ] {
        let r = a.lore(args);
        assert_eq!(r.code, 1, "{args:?}");
        r.assert_stderr("pool/local never leaves this machine; use org or public");
    }
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
    r.assert_refused(&format!("{url} refused the push; nothing there changed: "));
    r.assert_stderr(&format!(
        "signed by a key not in the allowed signers ({})",
        b.fingerprint()
    ));
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
    let r = cy.lore(&["sync", "org", "--pin", &fp]);
    assert_eq!(r.code, 1, "{}{}", r.stdout, r.stderr);
    r.assert_stdout(&format!("{commit} (pool/org): "));
    assert!(!r.stderr.contains("pinned"), "{}", r.stderr);
    let pins = std::fs::read_to_string(cy.env.repo().join("pins/org")).unwrap_or_default();
    assert!(!pins.contains("ssh-ed25519"), "no pin kept: {pins}");
    assert_eq!(cy.tip("pool/org"), None);
    let again = cy.lore(&["sync", "org"]);
    again.assert_refused(&format!(
        "was started by key {fp}, which is not pinned for org"
    ));
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
    let forge_by_ben = |n: u32| -> (String, String) {
        let x = crate::common::ulid(91, n);
        let c = a.env.forge(
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
