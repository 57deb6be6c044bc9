//! A pool host's upkeep after each push (`hooks/post-receive`, installed by
//! `git lore host`): a commit-graph layer, then in the background a
//! geometric repack with a multi-pack index and a reachability bitmap.
//!
//! - After a push the host has a bitmap that git can use (`rev-list
//!   --test-bitmap`), its pushed objects are packed, and `git fsck` is
//!   clean; the next push is checked by the pre-receive hook reading the
//!   host through the multi-pack index.
//! - The upkeep runs only when due: loose objects past `lore.upkeepLoose`
//!   or packs newer than the multi-pack index past `lore.upkeepPacks`;
//!   meanwhile a clone gets everything, inside the bitmap and out.
//! - When the upkeep fails, the push still lands, git's output shows
//!   nothing of it, and the next push's upkeep runs.

use std::path::{Path, PathBuf};

use crate::common::{lesson_of, object_counts_in, proposable, wait_for_pid_file, Run, TestEnv};

const PASS: &str = include_str!("../../src/review/testdata/judge-verdicts.pass.json");

/// A user with a lesson repository and the host they started (`srv/host.git`,
/// their key its root signer), added as the `org` remote.
fn owner_and_host() -> (TestEnv, PathBuf) {
    let env = TestEnv::new();
    env.lore(&["init", "--email", "ana@example.com"]).ok();
    let key = env.write("ana.pub", env.lore(&["key"]).ok());
    let host = env.path().join("srv").join("host.git");
    let h = host.to_str().unwrap();
    env.lore(&["host", h, "--signer", key.to_str().unwrap()])
        .ok();
    env.lore(&["remote", "add", "org", h]).ok();
    (env, host)
}

/// A new lesson, approved onto `pool/org`.
fn org_lesson(env: &TestEnv, n: u32) -> String {
    let f = env.artifacts_file(&format!("artifact-{n}.jsonl"), &[proposable(1, 10 + n)]);
    let id = lesson_of(env.lore(&["ingest", f.to_str().unwrap()]).ok());
    env.confirm(&id, "org");
    let panel = env.write("pass.json", PASS);
    env.lore(&["judge", &id, &format!("@{}", panel.display())])
        .assert_ok_stdout("promoted to pool/org");
    id
}

/// `git push HOST pool/org` (past the user's own pre-push guard), as git
/// reports it.
fn push(env: &TestEnv, host: &Path) -> Run {
    env.git(&[
        "push",
        "--no-verify",
        host.to_str().unwrap(),
        "refs/heads/pool/org:refs/heads/pool/org",
    ])
}

/// Waits (up to two minutes) for the upkeep the last push started.
fn wait_for_upkeep(host: &Path) {
    wait_for_pid_file(&host.join("lore/maintenance.pid"), "the host's upkeep");
}

/// The names of the files in the host's `objects/pack`.
fn pack_files(host: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(host.join("objects/pack"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// `git count-objects -v` of the host as (loose objects, packs).
fn object_counts(env: &TestEnv, host: &Path) -> (u64, u64) {
    object_counts_in(&env.git_at(host, &["count-objects", "-v"]))
}

/// The host's bitmap covers `pool/org` and git checks it sound.
#[track_caller]
fn assert_bitmap_covers_tip(env: &TestEnv, host: &Path) {
    let files = pack_files(host);
    assert!(
        files.iter().any(|f| f == "multi-pack-index"),
        "no multi-pack index: {files:?}"
    );
    assert!(
        files
            .iter()
            .any(|f| f.starts_with("multi-pack-index-") && f.ends_with(".bitmap")),
        "no bitmap: {files:?}"
    );
    let test = env.git_in(host, &["rev-list", "--test-bitmap", "refs/heads/pool/org"]);
    assert_eq!(test.code, 0, "{}", test.stderr);
    assert!(
        test.stdout.contains("OK!") || test.stderr.contains("OK!"),
        "{}{}",
        test.stdout,
        test.stderr
    );
}

#[test]
fn a_push_leaves_the_host_a_reachability_bitmap() {
    let (env, host) = owner_and_host();
    org_lesson(&env, 1);
    let r = env.lore(&["publish", "org"]);
    r.assert_ok_stdout("pool/org: pushed 2 commits to ");
    wait_for_upkeep(&host);
    assert_bitmap_covers_tip(&env, &host);
    // Everything is in packs the multi-pack index covers.
    assert_eq!(object_counts(&env, &host).0, 0, "pushed objects left loose");
    assert!(
        host.join("objects/info/commit-graphs/commit-graph-chain")
            .is_file(),
        "no commit-graph after a push"
    );
    env.assert_fsck_at(&host);

    // A push of a few objects arrives loose (under receive.unpackLimit):
    // the upkeep is not due, the objects stay loose outside the bitmap,
    // and the pre-receive check read the host through the multi-pack
    // index.
    let midx = |host: &Path| std::fs::read(host.join("objects/pack/multi-pack-index")).unwrap();
    let indexed = midx(&host);
    let before = env.git_at(&host, &["rev-parse", "refs/heads/pool/org"]);
    org_lesson(&env, 2);
    let r = push(&env, &host);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        !host.join("lore/maintenance.pid").exists(),
        "an upkeep started for a few loose objects"
    );
    let tip = env.git_at(&host, &["rev-parse", "refs/heads/pool/org"]);
    assert_ne!(tip, before);
    assert_eq!(
        tip,
        env.git_at(&env.repo(), &["rev-parse", "refs/heads/pool/org"])
    );
    assert!(object_counts(&env, &host).0 > 0, "nothing arrived loose");
    assert_eq!(midx(&host), indexed, "the multi-pack index was rewritten");
    env.assert_fsck_at(&host);
    // A clone from it has everything, inside the bitmap and out.
    let clone = env.path().join("clone.git");
    let r = env.git_in(
        &clone,
        &[
            "clone",
            "--bare",
            "-q",
            host.to_str().unwrap(),
            clone.to_str().unwrap(),
        ],
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(
        env.git_at(&clone, &["rev-parse", "refs/heads/pool/org"]),
        tip
    );
    env.assert_fsck_at(&clone);

    // Past `lore.upkeepLoose` loose objects it is due: what came is
    // packed and the bitmap covers the new tip.
    env.git_at(&host, &["config", "lore.upkeepLoose", "1"]);
    org_lesson(&env, 3);
    let r = push(&env, &host);
    assert_eq!(r.code, 0, "{}", r.stderr);
    wait_for_upkeep(&host);
    assert_eq!(object_counts(&env, &host).0, 0, "pushed objects left loose");
    assert_bitmap_covers_tip(&env, &host);
    env.assert_fsck_at(&host);
}

/// Pushes that arrive as packs (past `receive.unpackLimit`) start the
/// upkeep once `lore.upkeepPacks` of them are newer than the multi-pack
/// index.
#[test]
fn packs_pushed_past_the_limit_start_the_upkeep() {
    let (env, host) = owner_and_host();
    env.git_at(&host, &["config", "receive.unpackLimit", "1"]);
    env.git_at(&host, &["config", "lore.upkeepPacks", "2"]);
    org_lesson(&env, 1);
    env.lore(&["publish", "org"])
        .assert_ok_stdout("pool/org: pushed 2 commits to ");
    wait_for_upkeep(&host);
    assert_bitmap_covers_tip(&env, &host);
    let indexed = std::fs::read(host.join("objects/pack/multi-pack-index")).unwrap();
    // One pack newer than the index: not due.
    org_lesson(&env, 2);
    let r = push(&env, &host);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(!host.join("lore/maintenance.pid").exists());
    assert_eq!(object_counts(&env, &host), (0, 2));
    assert_eq!(
        std::fs::read(host.join("objects/pack/multi-pack-index")).unwrap(),
        indexed
    );
    // Two: due.
    org_lesson(&env, 3);
    let r = push(&env, &host);
    assert_eq!(r.code, 0, "{}", r.stderr);
    wait_for_upkeep(&host);
    assert_bitmap_covers_tip(&env, &host);
    assert_ne!(
        std::fs::read(host.join("objects/pack/multi-pack-index")).unwrap(),
        indexed
    );
    env.assert_fsck_at(&host);
}

#[test]
fn the_upkeep_failing_never_fails_a_push() {
    let (env, host) = owner_and_host();
    // `git repack` refuses to run with this; receiving does not read it.
    env.git_at(&host, &["config", "repack.writeBitmaps", "neither"]);
    org_lesson(&env, 1);
    let r = push(&env, &host);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let remote: Vec<&str> = r
        .stderr
        .lines()
        .filter(|l| l.starts_with("remote:"))
        .collect();
    assert!(remote.is_empty(), "the hooks said {remote:?}");
    assert_eq!(
        env.git_at(&host, &["rev-parse", "refs/heads/pool/org"]),
        env.git_at(&env.repo(), &["rev-parse", "refs/heads/pool/org"])
    );
    wait_for_upkeep(&host);
    let files = pack_files(&host);
    assert!(
        !files.iter().any(|f| f.starts_with("multi-pack-index")),
        "the repack ran after all: {files:?}"
    );
    env.assert_fsck_at(&host);

    // The failed run left no lock behind, and a lock left by a run that
    // was killed (its process gone) does not stop the next push's upkeep.
    assert!(!host.join("lore/maintenance.pid").exists());
    let mut gone = std::process::Command::new("true").spawn().unwrap();
    gone.wait().unwrap();
    std::fs::write(
        host.join("lore/maintenance.pid"),
        format!("{}\n", gone.id()),
    )
    .unwrap();
    env.git_at(&host, &["config", "--unset", "repack.writeBitmaps"]);
    org_lesson(&env, 2);
    let r = push(&env, &host);
    assert_eq!(r.code, 0, "{}", r.stderr);
    wait_for_upkeep(&host);
    assert_bitmap_covers_tip(&env, &host);
    env.assert_fsck_at(&host);

    // Nor does a lock naming a live process that is not the upkeep (its
    // pid reused, after a reboot, by something else: this test).
    std::fs::write(
        host.join("lore/maintenance.pid"),
        format!("{}\n", std::process::id()),
    )
    .unwrap();
    // (Due for any loose object, so that this push starts one.)
    env.git_at(&host, &["config", "lore.upkeepLoose", "1"]);
    org_lesson(&env, 3);
    let r = push(&env, &host);
    assert_eq!(r.code, 0, "{}", r.stderr);
    wait_for_upkeep(&host);
    assert_bitmap_covers_tip(&env, &host);
}
