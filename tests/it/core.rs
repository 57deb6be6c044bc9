//! The lesson repository core: init, signing cross-checked with stock git,
//! trailers, verify, the index, concurrency and crash safety.

use std::os::unix::fs::PermissionsExt;

use crate::common::{object_counts_in, Sign, TestEnv};

#[test]
fn init_creates_a_repository_stock_git_verifies() {
    let env = TestEnv::new();
    let r = env.lore(&["init"]);
    assert_eq!(
        r.ok(),
        format!(
            "Initialized lesson repository in {} as git-lore <git-lore@localhost>\n",
            env.repo().display()
        )
    );
    r.assert_stderr("created signing key");

    // HEAD names the ledger; the key is private; the hook is executable.
    assert_eq!(
        std::fs::read_to_string(env.repo().join("HEAD")).unwrap(),
        "ref: refs/heads/ledger\n"
    );
    let key = env.repo().join("keys/lore_ed25519");
    assert_eq!(
        std::fs::metadata(&key).unwrap().permissions().mode() & 0o777,
        0o600
    );
    let secret = env.repo().join("keys/author_secret");
    assert_eq!(
        std::fs::metadata(&secret).unwrap().permissions().mode() & 0o777,
        0o600
    );
    assert!(
        std::fs::metadata(env.repo().join("hooks/pre-push"))
            .unwrap()
            .permissions()
            .mode()
            & 0o111
            != 0
    );

    // Stock git reports a good signature with no further setup.
    let v = env.git(&["verify-commit", "ledger"]);
    assert_eq!(v.code, 0, "{}", v.stderr);
    v.assert_stderr("Good \"git\" signature for git-lore@localhost with ED25519 key");
    let log = env.git(&["log", "--show-signature", "ledger"]);
    log.assert_ok_stdout("Good \"git\" signature");
    assert_eq!(
        env.git(&["log", "-1", "--format=%G?", "ledger"]).ok(),
        "G\n"
    );

    // Trailers read back identically through git.
    let body = env.git(&["log", "-1", "--format=%B", "ledger"]);
    let parsed = env.git_stdin(&["interpret-trailers", "--parse"], body.ok());
    assert_eq!(parsed.ok(), "Lore-Format: 1\nLore-Action: init\n");
    let action = env.git(&[
        "log",
        "-1",
        "--format=%(trailers:key=Lore-Action,valueonly)",
        "ledger",
    ]);
    assert_eq!(action.ok().trim(), "init");

    // Running it again reports and changes nothing.
    let before = env.ledger_commits();
    let again = env.lore(&["init"]);
    again.assert_ok_stdout("already exists");
    assert_eq!(env.ledger_commits(), before);
    env.assert_fsck();
}

/// A bare repository to push to, and what it holds.
fn bare_remote(env: &TestEnv, name: &str) -> std::path::PathBuf {
    let remote = env.path().join(name);
    let st = std::process::Command::new("git")
        .args(["init", "-q", "--bare"])
        .arg(&remote)
        .env_clear()
        .envs(env.vars())
        .status()
        .unwrap();
    assert!(st.success());
    remote
}

/// The refs of `remote` (git must succeed: an empty answer from a failed
/// git would pass for "nothing reached the remote").
fn remote_refs(env: &TestEnv, remote: &std::path::Path) -> String {
    env.git_in(remote, &["for-each-ref", "--format=%(refname)"])
        .ok()
        .to_owned()
}

/// The objects `remote` holds, one `<id> <type>` line each (git must
/// succeed, as for its refs).
fn remote_objects(env: &TestEnv, remote: &std::path::Path) -> String {
    env.git_in(
        remote,
        &[
            "cat-file",
            "--batch-all-objects",
            "--batch-check=%(objectname) %(objecttype)",
        ],
    )
    .ok()
    .to_owned()
}

/// `rev-parse REV` in the lesson repository.
fn rev(env: &TestEnv, rev: &str) -> String {
    env.git_at(&env.repo(), &["rev-parse", rev])
}

fn short(id: &str) -> &str {
    &id[..12]
}

/// A lesson repository with an org lesson on `pool/org` and a private one
/// on `pool/local`, each judged and promoted: (org lesson, private lesson).
fn two_pools(env: &TestEnv) -> (String, String) {
    env.init();
    let ingested = env.lore(&[
        "ingest",
        &format!("{}/examples/artifacts", env!("CARGO_MANIFEST_DIR")),
    ]);
    let lessons: Vec<String> = ingested
        .ok()
        .lines()
        .filter(|l| l.starts_with("proposed "))
        .map(crate::common::lesson_of)
        .collect();
    env.confirm(&lessons[0], "org");
    env.confirm(&lessons[1], "private");
    env.lore(&["judge", "--all", "--yes"]).ok();
    let promoted = env.git_at(&env.repo(), &["ls-tree", "-r", "--name-only", "pool/local"]);
    assert!(
        promoted.contains(&format!("{}.json", lessons[1])),
        "{promoted}"
    );
    (lessons[0].clone(), lessons[1].clone())
}

/// The pre-push guard's refusal of one ref, as it prints it.
fn refusal(local: &str, remote: &str, why: &str, rule: &str, object: Option<&str>) -> String {
    let fix = match object {
        Some(id) => format!("Only pool/org and pool/public may leave (`git lore publish org`); to push this branch, take that object out of its history first (`git log --all --find-object={id}` lists the commits that hold it)"),
        None => "Only pool/org and pool/public may leave: `git lore publish org` pushes them".into(),
    };
    format!("git-lore: refusing to push {local} to {remote}: {why} (guard rule {rule}); nothing was pushed. {fix}\n")
}

#[test]
fn nothing_private_leaves_the_machine_under_any_name() {
    let env = TestEnv::new();
    two_pools(&env);
    let remote = bare_remote(&env, "remote.git");
    let url = remote.to_str().unwrap();
    let ledger = env.git(&["rev-parse", "ledger"]).ok().trim().to_owned();
    let local = env.git(&["rev-parse", "pool/local"]).ok().trim().to_owned();
    let ledger_tree = env
        .git(&["rev-parse", "ledger^{tree}"])
        .ok()
        .trim()
        .to_owned();
    env.git(&["tag", "-a", "-m", "x", "sneaky-tag", "ledger~2"])
        .ok();
    env.git(&["branch", "alias", "ledger~1"]).ok();
    // A commit made by hand around the ledger's tree: no ledger history,
    // but every ledger record.
    let copy = env
        .git(&["commit-tree", "-m", "copy", &ledger_tree])
        .ok()
        .trim()
        .to_owned();
    let cases: Vec<(String, &str)> = vec![
        ("ledger".into(), "refs/heads/ledger"),
        ("HEAD:refs/heads/x".into(), "HEAD"),
        (format!("{ledger}:refs/heads/x"), "x"),
        ("ledger~0:refs/heads/x".into(), "x"),
        ("sneaky-tag".into(), "refs/tags/sneaky-tag"),
        ("alias".into(), "refs/heads/alias"),
        (
            format!("{local}:refs/heads/pool/org"),
            "refs/heads/pool/org",
        ),
        ("pool/local".into(), "refs/heads/pool/local"),
        (format!("{copy}:refs/heads/x"), "x"),
        (format!("{ledger_tree}:refs/tags/tree"), "refs/tags/tree"),
    ];
    for (spec, shown) in &cases {
        let r = env.git(&["push", url, spec]);
        assert_ne!(r.code, 0, "{spec} was pushed:\n{}", r.stderr);
        r.assert_stderr("git-lore: refusing to push ");
        assert!(r.stderr.contains(shown), "{spec}: {}", r.stderr);
        assert_eq!(
            r.stderr.matches("refusing to push").count(),
            1,
            "the refusal is said once: {}",
            r.stderr
        );
        assert_eq!(remote_refs(&env, &remote), "", "{spec} reached the remote");
    }
    let r = env.git(&["push", url, "ledger"]);
    r.assert_stderr(&refusal(
        "refs/heads/ledger",
        "refs/heads/ledger",
        &format!(
            "commit {} is a commit of the ledger, which never leaves this machine",
            short(&ledger)
        ),
        "private-tree",
        None,
    ));
    let r = env.git(&["push", url, &format!("{local}:refs/heads/pool/org")]);
    r.assert_stderr(&format!(
        "commit {} is a commit of pool/local, which never leaves this machine (guard rule private-tree)",
        short(&local)
    ));
    let r = env.git(&["push", url, &format!("{copy}:refs/heads/x")]);
    r.assert_stderr(&refusal(
        &copy,
        "refs/heads/x",
        &format!(
            "the tree {} of commit {} is the tree of commit {} of the ledger, which never leaves this machine",
            short(&ledger_tree),
            short(&copy),
            short(&ledger)
        ),
        "private-tree",
        Some(&ledger_tree),
    ));
    let r = env.git(&["push", url, &format!("{ledger_tree}:refs/tags/tree")]);
    r.assert_stderr(&refusal(
        &ledger_tree,
        "refs/tags/tree",
        &format!(
            "{} names a tree, and only commits of pool/org and pool/public may be pushed",
            short(&ledger_tree)
        ),
        "commit-only",
        None,
    ));
    assert_eq!(remote_objects(&env, &remote), "", "nothing was sent");
    // The org pool may go, quietly.
    let r = env.git(&["push", url, "pool/org"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(!r.stderr.contains("git-lore:"), "quiet: {}", r.stderr);
    assert_eq!(remote_refs(&env, &remote), "refs/heads/pool/org\n");
}

/// A push to the URL of a tier's remote counts that remote's last
/// verified tip (`refs/lore/remotes/<tier>`, written by `publish` and
/// `sync`) as the remote's: a new branch (a pull request's `review/<id>`)
/// is walked down to it, not through the whole pool. To the same commits
/// pushed anywhere else, nothing counts but what git hands the hook.
///
/// Shown by putting a private commit below the verified tip (by hand: only
/// `publish` and `sync` write that ref, after its history verified, and
/// whoever forges it can as well skip the hook): below the tip, the guard
/// no longer looks, for that remote only.
#[test]
fn a_push_to_a_tier_s_remote_is_walked_down_to_its_verified_tip_only() {
    let env = TestEnv::new();
    two_pools(&env);
    let remote = bare_remote(&env, "org.git");
    let url = remote.to_str().unwrap();
    let other = bare_remote(&env, "other.git");
    env.lore(&["remote", "add", "org", url]).ok();
    env.lore(&["publish", "org"]).ok();
    let verified = rev(&env, "refs/lore/remotes/org");
    assert_eq!(verified, rev(&env, "pool/org"));
    // A pull request on the published pool goes, to the remote and
    // elsewhere (where it is walked whole, and passes).
    let tree = env.git_at(&env.repo(), &["rev-parse", "pool/org^{tree}"]);
    let pr = env.git_at(
        &env.repo(),
        &["commit-tree", "-p", &verified, "-m", "review", &tree],
    );
    for to in [url, other.to_str().unwrap()] {
        let r = env.git(&["push", to, &format!("{pr}:refs/heads/review/x")]);
        assert_eq!(r.code, 0, "{to}: {}", r.stderr);
    }
    // Below a (forged) verified tip, a commit of pool/local.
    let local = rev(&env, "pool/local");
    let below = env.git_at(
        &env.repo(),
        &["commit-tree", "-p", &local, "-m", "over local", &tree],
    );
    env.git(&["update-ref", "refs/lore/remotes/org", &below])
        .ok();
    let top = env.git_at(
        &env.repo(),
        &["commit-tree", "-p", &below, "-m", "review", &tree],
    );
    let spec = format!("{top}:refs/heads/review/y");
    // Elsewhere, the guard walks down into pool/local and refuses (a dry
    // run runs the hook too, and sends nothing).
    let r = env.git(&["push", "--dry-run", other.to_str().unwrap(), &spec]);
    assert_ne!(r.code, 0, "sent pool/local's history elsewhere");
    r.assert_stderr(&format!(
        "commit {} is a commit of pool/local, which never leaves this machine",
        short(&local)
    ));
    // To the tier's remote, it stops at the tip it takes the remote to have.
    let r = env.git(&["push", "--dry-run", url, &spec]);
    assert_eq!(
        r.code, 0,
        "the guard walked below the verified tip: {}",
        r.stderr
    );
    assert!(!r.stderr.contains("git-lore:"), "{}", r.stderr);
}

/// The issue's case: a commit made by hand whose tree is `pool/local`'s,
/// pushed with plain `git push` to a plain remote (no host check there).
/// Refused by content, with the remote unchanged; and when the private
/// blobs and subtrees already reached the remote another way, the tree
/// alone is refused. Deleting the index changes no answer.
#[test]
fn a_hand_made_commit_of_pool_locals_tree_is_refused() {
    let env = TestEnv::new();
    two_pools(&env);
    let remote = bare_remote(&env, "remote.git");
    let url = remote.to_str().unwrap();
    let local = rev(&env, "pool/local");
    let tree = rev(&env, "pool/local^{tree}");
    let made = env.git_at(&env.repo(), &["commit-tree", "-m", "notes", &tree]);
    let says = refusal(
        "refs/heads/notes",
        "refs/heads/notes",
        &format!(
            "the tree {} of commit {} is the tree of commit {} of pool/local, which never leaves this machine",
            short(&tree),
            short(&made),
            short(&local)
        ),
        "private-tree",
        Some(&tree),
    );
    env.git(&["branch", "notes", &made]).ok();
    let r = env.git(&["push", url, "notes"]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    r.assert_stderr(&says);
    assert_eq!(remote_refs(&env, &remote), "");
    assert_eq!(remote_objects(&env, &remote), "", "nothing was sent");

    // The index is a cache: without it, the same answer.
    std::fs::remove_file(env.repo().join("lore/index")).unwrap();
    std::fs::remove_dir_all(env.repo().join("lore/index.d")).unwrap();
    let r = env.git(&["push", url, "notes"]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    r.assert_stderr(&says);
    assert_eq!(remote_objects(&env, &remote), "");

    // What the refusal points to goes through the same guard: `publish`
    // pushes pool/org with git, the hook runs and lets it pass, and
    // nothing of pool/local reaches the remote.
    env.lore(&["remote", "add", "org", url]).ok();
    let org = rev(&env, "pool/org");
    let commits = env.git_at(&env.repo(), &["rev-list", "--count", "pool/org"]);
    let r = env.lore(&["publish", "org"]);
    assert_eq!(
        r.ok(),
        format!(
            "pool/org: pushed {commits} commits to {url} (nothing -> {})\n",
            short(&org)
        )
    );
    assert!(!r.stderr.contains("refusing"), "{}", r.stderr);
    assert_eq!(remote_refs(&env, &remote), "refs/heads/pool/org\n");
    assert_eq!(rev_at(&env, &remote, "refs/heads/pool/org"), org);
    let sent = remote_objects(&env, &remote);
    let private = env.git_at(&env.repo(), &["ls-tree", "-r", "-t", "pool/local"]);
    for line in private.lines().chain([format!("x x {tree}\t").as_str()]) {
        let (meta, path) = line.split_once('\t').unwrap();
        let id = meta.split(' ').nth(2).unwrap();
        if path.starts_with(".lore") {
            continue;
        }
        assert!(!sent.contains(id), "{path} ({id}) reached the remote");
    }

    // Say pool/local's records reached the remote before, past the guard,
    // in a tree of their own: pool/local's tree and one more file.
    let extra = env
        .git_stdin(&["hash-object", "-w", "--stdin"], "extra\n")
        .ok()
        .trim()
        .to_owned();
    let listing = format!(
        "{}100644 blob {extra}\textra.txt\n",
        env.git(&["ls-tree", &tree]).ok()
    );
    let wider = env.git_stdin(&["mktree"], &listing).ok().trim().to_owned();
    let leak = env.git_at(&env.repo(), &["commit-tree", "-m", "leak", &wider]);
    let r = env.git(&[
        "push",
        "--no-verify",
        url,
        &format!("{leak}:refs/heads/leak"),
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    // Now a commit on it with pool/local's tree sends no new blob and no
    // new subtree, only that tree: still refused.
    let tidy = env.git_at(
        &env.repo(),
        &["commit-tree", "-m", "tidy", "-p", &leak, &tree],
    );
    let before = remote_objects(&env, &remote);
    let r = env.git(&["push", url, &format!("{tidy}:refs/heads/leak")]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    r.assert_stderr(&refusal(
        &tidy,
        "refs/heads/leak",
        &format!(
            "the tree {} of commit {} is the tree of commit {} of pool/local, which never leaves this machine",
            short(&tree),
            short(&tidy),
            short(&local)
        ),
        "private-tree",
        Some(&tree),
    ));
    assert_eq!(
        env.git_at(&remote, &["rev-parse", "refs/heads/leak"]),
        leak,
        "the remote ref did not move"
    );
    assert_eq!(remote_objects(&env, &remote), before, "nothing was sent");
}

/// A private record's blob under any path, in any version, on an
/// innocent-looking branch: refused, naming the record. Pushes that send
/// nothing private go, quietly.
#[test]
fn a_private_blob_under_another_path_is_refused_in_any_version() {
    let env = TestEnv::new();
    let (org_lesson, private_lesson) = two_pools(&env);
    let remote = bare_remote(&env, "remote.git");
    let url = remote.to_str().unwrap();
    // The org pool goes, and so does a branch that adds a note to it.
    let r = env.git(&["push", url, "pool/org"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(!r.stderr.contains("git-lore:"), "quiet: {}", r.stderr);
    let org = rev(&env, "pool/org");
    let note = env.forge(
        "notes",
        Some(&org),
        &[("notes/readme.txt", Some("what we learned\n"))],
        "a note",
        Sign::Repo,
    );
    let r = env.git(&["push", url, "notes"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(!r.stderr.contains("git-lore:"), "quiet: {}", r.stderr);

    // One private lesson's blob, copied under another name.
    let path = crate::common::fanout("lessons", &private_lesson);
    let text = env
        .git(&["cat-file", "-p", &format!("pool/local:{path}")])
        .ok()
        .to_owned();
    let blob = rev(&env, &format!("pool/local:{path}"));
    let copy = env.forge(
        "innocent",
        Some(&note),
        &[("notes/copy.json", Some(&text))],
        "more notes",
        Sign::Repo,
    );
    assert_eq!(rev(&env, "innocent:notes/copy.json"), blob);
    let before = remote_objects(&env, &remote);
    for (spec, remote_ref) in [
        ("innocent", "refs/heads/innocent"),
        ("innocent:refs/heads/notes", "refs/heads/notes"),
    ] {
        let r = env.git(&["push", url, spec]);
        assert_eq!(r.code, 1, "{spec}: {}", r.stderr);
        r.assert_stderr(&refusal(
            "refs/heads/innocent",
            remote_ref,
            &format!(
                "blob {} at notes/copy.json in commit {} is a version of lesson {private_lesson} of pool/local, which never leaves this machine",
                short(&blob),
                short(&copy)
            ),
            "private-record",
            Some(&blob),
        ));
        assert_eq!(
            remote_objects(&env, &remote),
            before,
            "{spec}: nothing was sent"
        );
    }
    assert_eq!(rev_at(&env, &remote, "refs/heads/notes"), note);

    // A past version of a ledger record: the org lesson's proposal as it
    // was when proposed, before confirm, judge and promote changed it.
    let proposal = crate::common::fanout("proposals", &org_lesson);
    let first = env.git_at(
        &env.repo(),
        &["log", "--format=%H", "--reverse", "ledger", "--", &proposal],
    );
    let first = first.lines().next().unwrap();
    let old_blob = rev(&env, &format!("{first}:{proposal}"));
    assert_ne!(
        old_blob,
        rev(&env, &format!("ledger:{proposal}")),
        "a past version"
    );
    let old_text = env.git(&["cat-file", "-p", &old_blob]).ok().to_owned();
    let past = env.forge(
        "past",
        Some(&note),
        &[("archive/old.json", Some(&old_text))],
        "archive",
        Sign::Repo,
    );
    let r = env.git(&["push", url, "past:refs/heads/notes"]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    r.assert_stderr(&refusal(
        "refs/heads/past",
        "refs/heads/notes",
        &format!(
            "blob {} at archive/old.json in commit {} is a version of proposal {org_lesson} of the ledger, which never leaves this machine",
            short(&old_blob),
            short(&past)
        ),
        "private-record",
        Some(&old_blob),
    ));

    // Ledger records made by hand, in no private history: refused by
    // where they lie.
    let made = env.forge(
        "made",
        Some(&note),
        &[("proposals/0/0/made.json", Some("{}\n"))],
        "made up",
        Sign::Repo,
    );
    let r = env.git(&["push", url, "made:refs/heads/notes"]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    r.assert_stderr(&refusal(
        "refs/heads/made",
        "refs/heads/notes",
        &format!(
            "commit {} holds ledger records (proposals/), which never leave this machine",
            short(&made)
        ),
        "ledger-records",
        None,
    ));
    assert_eq!(remote_objects(&env, &remote), before, "nothing was sent");
    assert_eq!(
        remote_refs(&env, &remote),
        "refs/heads/notes\nrefs/heads/pool/org\n"
    );
}

fn rev_at(env: &TestEnv, repo: &std::path::Path, rev: &str) -> String {
    env.git_at(repo, &["rev-parse", rev])
}

#[test]
fn a_relative_repository_path_works_from_anywhere() {
    let env = TestEnv::new();
    let run = |args: &[&str], cwd: &std::path::Path| {
        let o = env
            .lore_cmd(args)
            .env_remove("GIT_LORE_REPO")
            .current_dir(cwd)
            .output()
            .unwrap();
        (
            o.status.code(),
            String::from_utf8_lossy(&o.stderr).into_owned(),
        )
    };
    let (code, err) = run(&["--repo", "rel.git", "init"], env.path());
    assert_eq!(code, Some(0), "{err}");
    let key = env.git_at(&env.path().join("rel.git"), &["config", "user.signingkey"]);
    assert!(key.starts_with('/'), "absolute: {key}");
    let elsewhere = env.path().join("home");
    let (code, err) = run(&["--repo", "../rel.git", "verify"], &elsewhere);
    assert_eq!(code, Some(0), "{err}");
    let (code, err) = run(&["--repo", "./rel.git", "init"], env.path());
    assert_eq!(code, Some(0), "{err}");
}

#[test]
fn verify_names_untrusted_unsigned_and_inconsistent_commits() {
    let env = TestEnv::new();
    env.init();
    let clean = env.lore(&["verify"]);
    assert_eq!(
        clean.ok(),
        "verified 1 commits: every signature good, trailers and records consistent\n"
    );

    let config_msg = "config: tweak\n\nLore-Format: 1\nLore-Action: config\nLore-Reason: rubrics";
    let unsigned = env.forge("ledger", Some("ledger"), &[], config_msg, Sign::Unsigned);

    let other = env.path().join("other_key");
    let kg = std::process::Command::new("ssh-keygen")
        .args(["-q", "-t", "ed25519", "-N", "", "-C", "intruder", "-f"])
        .arg(&other)
        .status()
        .unwrap();
    assert!(kg.success());
    let stranger = env.forge("ledger", Some("ledger"), &[], config_msg, Sign::Key(&other));

    // Signed by the right key, but says "config" while it adds a proposal.
    let sneaky = env.forge(
        "ledger",
        Some("ledger"),
        &[(
            "proposals/K/0/R/01KZ45MKAM734ZS7JK24D2DK0R.json",
            Some("{}\n"),
        )],
        config_msg,
        Sign::Repo,
    );
    assert_eq!(
        env.git(&["log", "-1", "--format=%G?", &sneaky]).ok(),
        "G\n",
        "git itself trusts the key"
    );
    // A record where builds before the three-level fan-out kept it.
    let two_level = env.forge(
        "ledger",
        Some("ledger"),
        &[(
            "proposals/0/R/01KZ45MKAM734ZS7JK24D2DK0R.json",
            Some("{}\n"),
        )],
        config_msg,
        Sign::Repo,
    );

    let r = env.lore(&["verify"]);
    assert_eq!(r.code, 1, "{}\n{}", r.stdout, r.stderr);
    let lines: Vec<&str> = r.stdout.lines().collect();
    assert!(
        lines.contains(&format!("{unsigned} (ledger): unsigned commit").as_str()),
        "{}",
        r.stdout
    );
    assert!(
        lines.iter().any(|l| l.starts_with(&format!(
            "{stranger} (ledger): signed by a key not in the allowed signers (SHA256:"
        ))),
        "{}",
        r.stdout
    );
    assert!(
        lines.contains(
            &format!(
                "{sneaky} (ledger): config may change only files under .lore/; \
                 it also changed proposals/K/0/R/01KZ45MKAM734ZS7JK24D2DK0R.json"
            )
            .as_str()
        ),
        "{}",
        r.stdout
    );
    assert!(
        lines.contains(
            &format!(
                "{two_level} (ledger): changed proposals/0/R/01KZ45MKAM734ZS7JK24D2DK0R.json, \
                 a record at the two-level fan-out of earlier builds; this build reads records \
                 three levels deep (<X>/<Y>/<Z>/) only: move this repository aside, `git lore \
                 init` a new one and ingest its sources again (docs/decisions.md, \"Three \
                 fan-out levels\")"
            )
            .as_str()
        ),
        "{}",
        r.stdout
    );
    r.assert_stderr("problems in 5 commits");

    // The JSON form names the same commits.
    let j: serde_json::Value =
        serde_json::from_str(&env.lore(&["verify", "--json"]).stdout).unwrap();
    assert_eq!(j["ok"], false);
    let commits: Vec<&str> = j["problems"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["commit"].as_str().unwrap())
        .collect();
    assert!(
        commits.contains(&unsigned.as_str())
            && commits.contains(&stranger.as_str())
            && commits.contains(&sneaky.as_str())
    );

    // A range that excludes the bad commits is clean.
    let first = env.ledger_commits().last().unwrap().clone();
    assert_eq!(env.lore(&["verify", &first]).code, 0);

    // log shows the signature status of each.
    let log = env.lore(&["log"]);
    log.assert_ok_stdout("signature: unsigned");
    log.assert_stdout("signature: unknown signer (SHA256:");
    log.assert_stdout("signature: good (git-lore@localhost)");
}

#[test]
fn a_trailer_value_with_a_newline_is_refused_and_nothing_is_written() {
    use git_lore::event::{Event, Step};
    use git_lore::model::ProposalStatus;
    use git_lore::store::{Branch, CommitSpec};

    let env = TestEnv::new();
    env.init();
    let before = env.ledger_commits();
    let mut lore = env.library(7);
    for bad in [
        "two\nlines",
        "carriage\rreturn",
        "bell\u{7}",
        "Lore-Status: approved\nLore-Action: judge",
    ] {
        let err = lore
            .transact(Branch::Ledger, |tx| {
                let e = Event::Pass {
                    step: Step {
                        lesson: "01KZ4A1B2C3D4E5F6G7H8J9K0M".parse().unwrap(),
                        artifact: "01KZ45MKAM734ZS7JK24D2DK0R".parse().unwrap(),
                        from: ProposalStatus::Pending,
                        to: ProposalStatus::Passed,
                    },
                    reason: Some(bad.to_owned()),
                };
                tx.commit(CommitSpec::new("pass x", None, e, Vec::new())?)?;
                Ok(())
            })
            .unwrap_err();
        assert!(
            err.to_string()
                .contains("trailer Lore-Reason has a control character or line break"),
            "{bad:?}: {err}"
        );
    }
    assert_eq!(env.ledger_commits(), before, "nothing was written");
    env.assert_fsck();
}

#[test]
fn eight_processes_writing_100_records_each_lose_nothing() {
    let env = TestEnv::new();
    env.init();
    let files: Vec<_> = (0..8u8)
        .map(|p| {
            let arts: Vec<_> = (0..100)
                .map(|n| crate::common::proposable(10 + p, n))
                .collect();
            env.artifacts_file(&format!("p{p}.jsonl"), &arts)
        })
        .collect();
    let children: Vec<_> = files
        .iter()
        .map(|f| env.spawn_lore(&["ingest", f.to_str().unwrap()]))
        .collect();
    for c in children {
        let o = c.wait_with_output().unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        assert_eq!(
            String::from_utf8_lossy(&o.stdout)
                .lines()
                .filter(|l| l.starts_with("proposed "))
                .count(),
            100
        );
    }
    let commits = env.ledger_commits();
    assert_eq!(commits.len(), 801, "800 records and the init commit");
    assert_eq!(
        env.git(&["rev-list", "--merges", "ledger"]).ok(),
        "",
        "history is linear"
    );
    let letters = env.git(&["log", "--format=%G?", "-n", "20", "ledger"]);
    assert!(
        letters.ok().lines().all(|l| l == "G"),
        "stock git: {}",
        letters.stdout
    );
    let v = env.lore(&["verify"]);
    assert_eq!(
        v.ok(),
        "verified 801 commits: every signature good, trailers and records consistent\n"
    );
    for p in 0..8u8 {
        for n in [0, 57, 99] {
            let id = crate::common::ulid(10 + p, n);
            assert!(env.lore(&["seen", &id]).ok().contains(" proposed "), "{id}");
        }
    }
    env.assert_fsck();
}

#[test]
fn a_batch_killed_mid_run_leaves_a_consistent_repository() {
    let env = TestEnv::new();
    env.init();
    let arts: Vec<_> = (0..3000)
        .map(|n| crate::common::proposable(30, n))
        .collect();
    let f = env.artifacts_file("big.jsonl", &arts);
    let first = env.ledger_commits()[0].clone();
    let mut child = env
        .lore_cmd(&["ingest", f.to_str().unwrap()])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    // Wait until at least one chunk has landed, then kill it mid-run (a
    // loaded machine may take a while for the first chunk).
    let mut moved = false;
    for _ in 0..12_000 {
        std::thread::sleep(std::time::Duration::from_millis(5));
        if env.git(&["rev-parse", "ledger"]).stdout.trim() != first {
            moved = true;
            break;
        }
        if child.try_wait().unwrap().is_some() {
            break;
        }
    }
    assert!(moved, "the batch should have published a chunk");
    // SIGKILL: no chance to finish what it was writing.
    let _ = child.kill();
    let status = child.wait().unwrap();
    let written = env.ledger_commits().len() - 1;
    assert!(
        written < 3000,
        "killed before the end (status {status:?}, {written} written)"
    );
    assert_eq!(env.git(&["cat-file", "-t", "ledger"]).ok(), "commit\n");
    env.assert_fsck();
    env.assert_verifies();

    // The index agrees with history: written artifacts are seen, the rest not.
    let artifacts = env.git(&[
        "log",
        "--format=%(trailers:key=Lore-Artifact,valueonly,separator=)",
        "ledger",
    ]);
    let in_history: std::collections::HashSet<String> = artifacts
        .ok()
        .lines()
        .filter(|l| !l.is_empty())
        .map(str::to_owned)
        .collect();
    assert_eq!(in_history.len(), written);
    let ids: Vec<String> = (0..3000).map(|n| crate::common::ulid(30, n)).collect();
    let mut args = vec!["seen", "--json"];
    args.extend(ids.iter().map(String::as_str));
    let seen: serde_json::Value = serde_json::from_str(env.lore(&args).ok()).unwrap();
    for row in seen.as_array().unwrap() {
        let id = row["artifact"].as_str().unwrap();
        let expect = if in_history.contains(id) {
            "proposed"
        } else {
            "unseen"
        };
        assert_eq!(row["outcome"], expect, "{id}");
    }
    // Re-running finishes the job without repeating anything.
    let again = env.lore(&["ingest", f.to_str().unwrap()]);
    assert_eq!(again.code, 0, "{}", again.stderr);
    assert_eq!(
        again
            .stdout
            .lines()
            .filter(|l| l.contains(" seen (from "))
            .count(),
        written
    );
    assert_eq!(env.ledger_commits().len(), 3001);
    env.assert_fsck();
}

/// `git count-objects -v` as (loose objects, packs).
fn object_counts(env: &TestEnv) -> (u64, u64) {
    object_counts_in(env.git(&["count-objects", "-v"]).ok())
}

#[test]
fn a_batch_writes_a_pack_per_transaction_and_one_record_stays_loose() {
    let env = TestEnv::new();
    env.init();
    // No background repack while the packs are counted.
    env.git(&["config", "gc.auto", "0"]).ok();
    let (loose, packs) = object_counts(&env);
    assert_eq!(packs, 0, "init writes a few loose objects");
    let arts: Vec<_> = (0..300).map(|n| crate::common::proposable(40, n)).collect();
    let f = env.artifacts_file("batch.jsonl", &arts);
    let r = env.lore(&["ingest", f.to_str().unwrap()]);
    assert_eq!(r.ok().lines().count(), 300);
    assert!(
        r.stderr.contains("ingest: 300 lessons proposed\n"),
        "{}",
        r.stderr
    );
    assert_eq!(
        object_counts(&env),
        (loose, 1),
        "one transaction (the offline backend writes 2,048 records a chunk), one pack, not one loose object"
    );
    let one = env.artifacts_file("one.jsonl", &[crate::common::proposable(41, 0)]);
    env.lore(&["ingest", one.to_str().unwrap()]).ok();
    let (after, packs) = object_counts(&env);
    assert_eq!(packs, 1, "a one-record transaction writes no pack");
    assert_eq!(
        after,
        loose + 7,
        "blob, five trees on its fan-out path (root, proposals, X, Y, Z), commit"
    );
    assert_eq!(env.ledger_commits().len(), 302);
    assert_eq!(
        env.lore(&["verify"]).ok(),
        "verified 302 commits: every signature good, trailers and records consistent\n"
    );
    assert!(env
        .lore(&["seen", &crate::common::ulid(40, 299)])
        .ok()
        .contains(" proposed "));
    env.assert_fsck();
}

#[test]
fn the_packs_of_a_batch_are_merged_in_the_background_after_it() {
    let env = TestEnv::new();
    env.init();
    // Forty batches, forty packs of about the same size, the first 39
    // with no repack after them.
    env.git(&["config", "gc.auto", "0"]).ok();
    for batch in 0..40u32 {
        if batch == 39 {
            // Someone keeps a multi-pack index over the packs so far: the
            // merges must not leave it naming packs they deleted.
            env.git(&["multi-pack-index", "write"]).ok();
            env.git(&["config", "--unset", "gc.auto"]).ok();
            // More packs than git's limit (50 by default) are merged.
            env.git(&["config", "gc.autoPackLimit", "30"]).ok();
        }
        let arts: Vec<_> = (0..20)
            .map(|i| crate::common::proposable(42, batch * 1000 + i))
            .collect();
        let f = env.artifacts_file(&format!("batch{batch}.jsonl"), &arts);
        env.lore(&["ingest", f.to_str().unwrap()]).ok();
    }
    // The repack started when the last command ended merges them two by
    // two: a merge may read at most a sixteenth of the packs' bytes, so
    // that the repository never holds much more than it did. Not into one
    // pack, which would hold all of the old packs and the new one at once.
    env.wait_for_repack();
    let (_, packs) = object_counts(&env);
    assert!((20..=21).contains(&packs), "{packs} packs after the merges");
    assert!(!env.repo().join("gc.log").exists(), "no gc.log left behind");
    // The multi-pack index was written again, over the packs there are.
    assert!(
        env.repo().join("objects/pack/multi-pack-index").is_file(),
        "the multi-pack index is kept"
    );
    let midx = env.git(&["multi-pack-index", "verify"]);
    assert_eq!(midx.code, 0, "{}", midx.stderr);
    // Then the commit-graph, which history walks need to be fast.
    assert!(
        env.repo()
            .join("objects/info/commit-graphs/commit-graph-chain")
            .is_file(),
        "a commit-graph is written after the repack"
    );
    assert_eq!(env.ledger_commits().len(), 801);
    env.assert_verifies();
    env.assert_fsck();
    // Under the limit now: the next command merges nothing.
    let one = env.artifacts_file("one.jsonl", &[crate::common::proposable(42, 99_999)]);
    env.lore(&["ingest", one.to_str().unwrap()]).ok();
    env.wait_for_repack();
    assert_eq!(object_counts(&env).1, packs);
}

#[test]
fn packs_under_the_limit_stay_as_written_and_get_a_commit_graph() {
    let env = TestEnv::new();
    env.init();
    for batch in 0..3u32 {
        let arts: Vec<_> = (0..100)
            .map(|i| crate::common::proposable(43, batch * 1000 + i))
            .collect();
        let f = env.artifacts_file(&format!("batch{batch}.jsonl"), &arts);
        env.lore(&["ingest", f.to_str().unwrap()]).ok();
        env.wait_for_repack();
    }
    // Three equal packs are out of geometric progression, but three is
    // under git's gc.autoPackLimit: merging them would only hold the old
    // packs and the new one on disk at once.
    let (loose, packs) = object_counts(&env);
    assert_eq!(packs, 3, "three batches, three packs, none merged");
    assert!(loose > 0, "init's few objects stay loose too");
    let chain = env
        .repo()
        .join("objects/info/commit-graphs/commit-graph-chain");
    assert!(
        chain.is_file(),
        "the commit-graph knows the batches' commits"
    );
    let graph = env.git(&["commit-graph", "verify"]);
    assert_eq!(graph.code, 0, "{}", graph.stderr);
    // A one-record command adds no pack, so starts nothing.
    let before = std::fs::metadata(&chain).unwrap().modified().unwrap();
    let one = env.artifacts_file("one.jsonl", &[crate::common::proposable(43, 9999)]);
    env.lore(&["ingest", one.to_str().unwrap()]).ok();
    env.wait_for_repack();
    assert_eq!(
        std::fs::metadata(&chain).unwrap().modified().unwrap(),
        before,
        "no commit-graph write after a command that wrote no pack"
    );
    assert_eq!(env.ledger_commits().len(), 302);
    env.assert_fsck();
}

#[test]
fn the_index_answers_the_same_after_deletion_and_after_a_rewrite() {
    let env = TestEnv::new();
    env.init();
    let mut arts: Vec<_> = (0..6).map(|n| crate::common::proposable(40, n)).collect();
    arts.push(crate::common::artifact(
        &crate::common::ulid(40, 99),
        "lib 2.0.1 broke the build",
        "Nobody knows why yet.",
    ));
    let f = env.artifacts_file("a.jsonl", &arts);
    env.lore(&["ingest", f.to_str().unwrap()]).ok();
    let ids: Vec<String> = (0..6)
        .map(|n| crate::common::ulid(40, n))
        .chain([crate::common::ulid(40, 99)])
        .collect();
    let mut args = vec!["seen", "--json"];
    args.extend(ids.iter().map(String::as_str));
    let answers = env.lore(&args).ok().to_owned();
    assert!(answers.contains("\"declined\""), "{answers}");

    std::fs::remove_file(env.repo().join("lore/index")).ok();
    assert_eq!(
        env.lore(&args).ok(),
        answers,
        "deleting the index changes no answer"
    );
    std::fs::create_dir_all(env.repo().join("lore")).unwrap();
    std::fs::write(env.repo().join("lore/index"), b"garbage").unwrap();
    assert_eq!(env.lore(&args).ok(), answers, "a corrupt index is rebuilt");

    // Rebuild the index on disk, then rewrite history under it: drop the
    // last three commits.
    assert_eq!(
        env.lore(&["index", "--rebuild"]).ok(),
        "index: 7 artifacts, 6 lessons, 0 pool entries (rebuilt from history)\n"
    );
    assert_eq!(
        env.lore(&["index"]).ok(),
        "index: 7 artifacts, 6 lessons, 0 pool entries (up to date)\n"
    );
    env.git(&["update-ref", "refs/heads/ledger", "ledger~3"])
        .ok();
    let after = env.lore(&args).ok().to_owned();
    std::fs::remove_file(env.repo().join("lore/index")).ok();
    let fresh = env.lore(&args).ok().to_owned();
    assert_eq!(
        after, fresh,
        "after a rewrite the index agrees with a fresh build"
    );
    let unseen = serde_json::from_str::<serde_json::Value>(&after).unwrap();
    assert_eq!(
        unseen
            .as_array()
            .unwrap()
            .iter()
            .filter(|r| r["outcome"] == "unseen")
            .count(),
        3
    );
    let r = env.lore(&["index", "--rebuild"]);
    assert_eq!(
        r.ok(),
        "index: 4 artifacts, 4 lessons, 0 pool entries (rebuilt from history)\n"
    );

    // Another process writing the index: a rebuild that could write
    // nothing says so, instead of claiming it rebuilt.
    let chain = std::fs::read(env.repo().join("lore/index")).unwrap();
    let mut holder = std::process::Command::new("flock")
        .arg(env.repo().join("lore/index.lock"))
        .args(["sleep", "30"])
        .spawn()
        .unwrap();
    while std::process::Command::new("flock")
        .args(["-n"])
        .arg(env.repo().join("lore/index.lock"))
        .arg("true")
        .status()
        .unwrap()
        .success()
    {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let r = env.lore(&["index", "--rebuild"]);
    let _ = holder.kill();
    let _ = holder.wait();
    assert_eq!(r.code, 2, "contention: safe to retry; {}", r.stdout);
    assert_eq!(r.stdout, "");
    r.assert_stderr(
        "another git-lore process is writing the index; run `git lore index --rebuild` again",
    );
    assert_eq!(std::fs::read(env.repo().join("lore/index")).unwrap(), chain);
}

/// The index's layer files, name and bytes, largest first.
fn index_layers(env: &TestEnv) -> Vec<(String, Vec<u8>)> {
    let mut layers: Vec<(String, Vec<u8>)> = std::fs::read_dir(env.repo().join("lore/index.d"))
        .unwrap()
        .map(|e| {
            let e = e.unwrap();
            let name = e.file_name().to_string_lossy().into_owned();
            (name, std::fs::read(e.path()).unwrap())
        })
        .collect();
    layers.sort_by_key(|(_, bytes)| std::cmp::Reverse(bytes.len()));
    layers
}

#[test]
fn a_one_record_command_adds_a_small_index_layer_and_rewrites_nothing() {
    let env = TestEnv::new();
    env.init();
    let arts: Vec<_> = (0..300).map(|n| crate::common::proposable(41, n)).collect();
    let f = env.artifacts_file("a.jsonl", &arts);
    let lessons: Vec<String> = env
        .lore(&["ingest", f.to_str().unwrap()])
        .ok()
        .lines()
        .filter(|l| l.starts_with("proposed "))
        .map(crate::common::lesson_of)
        .collect();
    assert_eq!(lessons.len(), 300);
    let before = index_layers(&env);
    let (bottom, bottom_bytes) = before[0].clone();
    env.confirm(&lessons[7], "private");
    // The confirm wrote what it changed as a layer of its own: the next
    // command walks nothing, and the large layer is untouched.
    assert_eq!(
        env.lore(&["index"]).ok(),
        "index: 300 artifacts, 300 lessons, 0 pool entries (up to date)\n"
    );
    let after = index_layers(&env);
    assert_eq!(after[0], (bottom, bottom_bytes.clone()), "{after:?}");
    assert_eq!(after.len(), before.len() + 1);
    let added: usize = after[1..].iter().map(|(_, b)| b.len()).sum::<usize>()
        - before[1..].iter().map(|(_, b)| b.len()).sum::<usize>();
    assert!(
        added * 20 < bottom_bytes.len(),
        "{added} bytes added next to {}",
        bottom_bytes.len()
    );
    // And the layers answer as a fresh build does.
    let shown = env.lore(&["show", &lessons[7], "--json"]).ok().to_owned();
    let listed = env.lore(&["list", "--json"]).ok().to_owned();
    env.lore(&["index", "--rebuild"]).ok();
    assert_eq!(index_layers(&env).len(), 1, "a rebuild writes one layer");
    assert_eq!(env.lore(&["show", &lessons[7], "--json"]).ok(), shown);
    assert_eq!(env.lore(&["list", "--json"]).ok(), listed);
    assert!(shown.contains("confirmed"), "{shown}");
}

#[test]
fn concurrent_inits_all_succeed_and_leave_one_repository() {
    let env = TestEnv::new();
    let children: Vec<_> = (0..6).map(|_| env.spawn_lore(&["init"])).collect();
    let mut created = 0;
    for c in children {
        let o = c.wait_with_output().unwrap();
        let stdout = String::from_utf8_lossy(&o.stdout);
        assert!(
            o.status.success(),
            "{stdout}{}",
            String::from_utf8_lossy(&o.stderr)
        );
        if stdout.starts_with("Initialized") {
            created += 1;
        } else {
            assert!(stdout.contains("already exists"), "{stdout}");
        }
    }
    assert!(created >= 1);
    assert_eq!(env.ledger_commits().len(), 1, "one init commit");
    env.assert_verifies();
}

#[test]
fn the_store_lists_and_reads_records_and_walks_history_with_trailers() {
    use git_lore::store::{layout, Branch, Host, Store};
    let env = TestEnv::new();
    env.init();
    let f = env.artifacts_file(
        "a.jsonl",
        &[
            crate::common::proposable(60, 1),
            crate::common::proposable(60, 2),
        ],
    );
    env.lore(&["ingest", f.to_str().unwrap()]).ok();
    let store = Store::open(
        &env.repo(),
        Host {
            git_program: "git".into(),
            git_env: env.vars(),
        },
    )
    .unwrap();
    let records = store.list(Branch::Ledger, "proposals").unwrap();
    assert_eq!(records.len(), 2);
    for (path, bytes) in &records {
        let p: serde_json::Value = serde_json::from_slice(bytes).unwrap();
        let id: git_lore::model::Id = p["id"].as_str().unwrap().parse().unwrap();
        assert_eq!(path, &layout::proposal_path(id));
        assert_eq!(
            store.read(Branch::Ledger, path).unwrap().as_deref(),
            Some(bytes.as_slice())
        );
    }
    let history = store.all_commits().unwrap();
    assert_eq!(history.len(), 3);
    let newest = store.commit_info(history[0].1).unwrap();
    let e = newest.event.unwrap();
    assert_eq!(e.action(), git_lore::trailers::Action::Propose);
    assert!(newest
        .signature
        .unwrap()
        .starts_with("-----BEGIN SSH SIGNATURE-----"));
    assert!(store
        .read(Branch::Ledger, "proposals/nope.json")
        .unwrap()
        .is_none());

    // Update and delete through a transaction: one signed commit each.
    use git_lore::event::{ConfigTopic, Event};
    use git_lore::store::{Change, CommitSpec};
    let mut lore = env.library(1);
    let (gone, kept) = (records[0].0.clone(), records[1].0.clone());
    lore.transact(Branch::Ledger, |tx| {
        let spec = |subject: &str, changes| {
            let e = Event::Config {
                topic: ConfigTopic::Rubrics,
            };
            CommitSpec::new(subject, None, e, changes)
        };
        tx.commit(spec(
            "config: rewrite",
            vec![Change::Put {
                path: kept.clone(),
                bytes: b"{}\n".to_vec(),
            }],
        )?)?;
        tx.commit(spec(
            "config: drop",
            vec![Change::Delete { path: gone.clone() }],
        )?)?;
        assert_eq!(tx.read(&gone)?, None, "the transaction sees its own delete");
        Ok(())
    })
    .unwrap();
    let after = store.list(Branch::Ledger, "proposals").unwrap();
    assert_eq!(after, vec![(kept.clone(), b"{}\n".to_vec())]);
    assert_eq!(env.ledger_commits().len(), 5);
    assert_eq!(
        env.git(&["log", "-2", "--format=%G?", "ledger"]).ok(),
        "G\nG\n"
    );
}

/// A process killed inside a ref update leaves `<ref>.lock` behind; the
/// next writer waits out a live writer, then takes the lock file for what
/// it is and writes.
#[test]
fn a_ref_lock_left_by_a_killed_process_does_not_block_writes_for_good() {
    let env = TestEnv::new();
    env.init();
    let f = env.artifacts_file("a.jsonl", &[crate::common::proposable(61, 1)]);
    std::fs::write(env.repo().join("refs/heads/ledger.lock"), "").unwrap();
    let before = env.ledger_commits().len();
    let r = env.lore(&["ingest", f.to_str().unwrap()]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stdout.starts_with("proposed "), "{}", r.stdout);
    assert_eq!(env.ledger_commits().len(), before + 1);
    assert!(!env.repo().join("refs/heads/ledger.lock").exists());
}
