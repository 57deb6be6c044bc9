//! Trust: every way of tampering with history that `verify` must name, and
//! the rule that no command builds on history that does not verify or that
//! moved backwards.
//!
//! Each scenario starts from a repository with real history (lessons
//! proposed, confirmed, judged and promoted into pool/org and pool/local),
//! forges one commit the way someone with access to the repository could,
//! and checks what `verify` says about exactly that commit. The
//! `ambiguous_*` ones are signed by a listed key and break a rule of
//! docs/trailers.md's "Unambiguous commits" instead.

use serde_json::Value;

use crate::common::{fanout, record_text, Sign, TestEnv};

const NEXT: &str = "01M1E3VM1GAD8DSR0D4BG72GC0"; // confirmed at org, approved
const VITEST: &str = "01KZ45MKAM734ZS7JK24D2DK0R"; // confirmed private, approved
const PSYCOPG: &str = "01M1GKTGT0CZM08AJC6X1VR4QP"; // left pending
const NO_VERSIONS: &str = "01M1E6PK5RMERSTXPS7B2B66N8"; // declined

/// A repository with history on the ledger, pool/org and pool/local, and
/// the lesson id of each artifact.
struct World {
    env: TestEnv,
    next: String,
    pending: String,
}

fn world() -> World {
    let env = TestEnv::new();
    env.init();
    let examples = format!("{}/examples/artifacts", env!("CARGO_MANIFEST_DIR"));
    let out = env.lore(&["ingest", &examples]).stdout;
    let lesson = |artifact| crate::common::lesson_for(&out, artifact);
    let (next, vitest, pending) = (lesson(NEXT), lesson(VITEST), lesson(PSYCOPG));
    env.confirm(&next, "org");
    env.confirm(&vitest, "private");
    env.lore(&["judge", "--all", "--yes"]).ok();
    env.assert_verifies();
    World { env, next, pending }
}

impl World {
    fn show(&self, rev_path: &str) -> String {
        self.env.git(&["show", rev_path]).ok().to_owned()
    }

    /// The message of a confirm of the pending lesson at org visibility,
    /// its trailers saying it went `from` -> `to`.
    fn confirm_message(&self, from: &str, to: &str) -> String {
        format!(
            "confirm {id}: org visibility\n\nLore-Format: 1\nLore-Action: confirm\nLore-Lesson: {id}\nLore-Artifact: {PSYCOPG}\nLore-From: {from}\nLore-Status: {to}\nLore-Visibility: org\n",
            id = self.pending
        )
    }

    fn confirmed_record(&self, status: &str) -> String {
        let mut p = self.env.proposal(&self.pending);
        p["status"] = status.into();
        p["visibility"] = "org".into();
        p["confirmed_at"] = "2026-08-05T10:00:00Z".into();
        record_text(&p)
    }

    fn proposal_path(&self, id: &str) -> String {
        fanout("proposals", id)
    }

    /// Forges on the ledger a confirm of the pending lesson that writes
    /// `record` as its proposal (and the `more` changes), its trailers
    /// saying it went pending -> `to`, signed as `sign` says; checked to be
    /// the ledger's tip, with that record. Its id.
    #[track_caller]
    fn forge_confirm(
        &self,
        record: &str,
        more: &[(&str, Option<&str>)],
        to: &str,
        sign: Sign<'_>,
    ) -> String {
        let path = self.proposal_path(&self.pending);
        let mut changes = vec![(path.as_str(), Some(record))];
        changes.extend_from_slice(more);
        let c = self.env.forge(
            "ledger",
            Some("ledger"),
            &changes,
            &self.confirm_message("pending", to),
            sign,
        );
        assert_eq!(self.env.ledger_commits()[0], c);
        assert_eq!(self.env.ledger_file(&path).as_deref(), Some(record));
        c
    }

    /// `verify`'s lines about `commit`, asserting it fails.
    #[track_caller]
    fn problems(&self, commit: &str) -> Vec<String> {
        let r = self.env.lore(&["verify"]);
        assert_eq!(r.code, 1, "verify must fail:\n{}\n{}", r.stdout, r.stderr);
        let lines: Vec<String> = r
            .stdout
            .lines()
            .filter(|l| l.starts_with(commit))
            .map(str::to_owned)
            .collect();
        assert!(
            !lines.is_empty(),
            "nothing about {commit} in:\n{}",
            r.stdout
        );
        lines
    }

    #[track_caller]
    fn assert_problem(&self, commit: &str, needle: &str) {
        let lines = self.problems(commit);
        assert!(
            lines.iter().any(|l| l.contains(needle)),
            "no {needle:?} among:\n{}",
            lines.join("\n")
        );
    }
}

#[test]
fn tampering_1_an_unsigned_commit() {
    let w = world();
    let c = w.forge_confirm(
        &w.confirmed_record("confirmed"),
        &[],
        "confirmed",
        Sign::Unsigned,
    );
    w.assert_problem(&c, "unsigned commit");
}

#[test]
fn tampering_2_a_commit_by_an_unknown_key() {
    let w = world();
    let key = w.env.stranger_key();
    let c = w.forge_confirm(
        &w.confirmed_record("confirmed"),
        &[],
        "confirmed",
        Sign::Key(&key),
    );
    w.assert_problem(&c, "signed by a key not in the allowed signers (SHA256:");
}

#[test]
fn tampering_3_trailers_that_disagree_with_the_record() {
    let w = world();
    let c = w.forge_confirm(&w.confirmed_record("passed"), &[], "confirmed", Sign::Repo);
    w.assert_problem(
        &c,
        "confirm: trailers say pending -> confirmed but the record went pending -> passed",
    );
}

#[test]
fn tampering_4_an_illegal_transition() {
    let w = world();
    let c = w.forge_confirm(&w.confirmed_record("approved"), &[], "approved", Sign::Repo);
    w.assert_problem(&c, "confirm: illegal status transition pending -> approved");
}

#[test]
fn tampering_5_a_signer_added_by_a_promote() {
    let w = world();
    let signers = w.show("pool/org:.lore/allowed_signers");
    let stranger = std::fs::read_to_string(w.env.stranger_key().with_extension("pub")).unwrap();
    let added = format!(
        "{signers}mallory@example.com namespaces=\"git\" {}",
        stranger.trim()
    );
    let entry_path = fanout("lessons", &w.pending);
    let mut entry: Value =
        serde_json::from_str(&w.show(&format!("pool/org:{}", fanout("lessons", &w.next)))).unwrap();
    entry["id"] = w.pending.clone().into();
    let c = w.env.forge(
        "pool/org",
        Some("pool/org"),
        &[
            (&entry_path, Some(&record_text(&entry))),
            (".lore/allowed_signers", Some(&added)),
        ],
        &format!(
            "promote {id} into pool/org\n\nLore-Format: 1\nLore-Action: promote\nLore-Lesson: {id}\nLore-Artifact: {PSYCOPG}\nLore-Status: active\nLore-Visibility: org\nLore-Pool: org\n",
            id = w.pending
        ),
        Sign::Repo,
    );
    w.assert_problem(
        &c,
        &format!(
            "promote may change only a pool entry {}; it also changed .lore/allowed_signers",
            w.pending
        ),
    );
}

#[test]
fn tampering_6_an_init_in_the_middle_of_history() {
    let w = world();
    let c = w.env.forge(
        "ledger",
        Some("ledger"),
        &[(".lore/rubrics.json", Some("{}\n"))],
        "init: lesson repository\n\nLore-Format: 1\nLore-Action: init\n",
        Sign::Repo,
    );
    w.assert_problem(&c, "init is legal only as a branch's first commit");
    w.assert_problem(
        &c,
        "init may change only nothing; it also changed .lore/rubrics.json",
    );
}

#[test]
fn tampering_7_a_rollback() {
    let w = world();
    let before = w.env.git(&["rev-parse", "ledger"]).ok().trim().to_owned();
    w.env
        .git(&["update-ref", "refs/heads/ledger", "ledger~3"])
        .ok();
    let now = w.env.git(&["rev-parse", "ledger"]).ok().trim().to_owned();
    w.assert_problem(
        &now,
        &format!(
            "ledger moved from {} to {}, 3 commits dropped",
            &before[..12],
            &now[..12]
        ),
    );
}

#[test]
fn tampering_8_an_edited_pool_entry() {
    let w = world();
    let path = fanout("lessons", &w.next);
    let mut entry: Value = serde_json::from_str(&w.show(&format!("pool/org:{path}"))).unwrap();
    entry["claim"] = "Something else entirely".into();
    let c = w.env.forge(
        "pool/org",
        Some("pool/org"),
        &[(&path, Some(&record_text(&entry)))],
        &format!(
            "promote {id} into pool/org\n\nLore-Format: 1\nLore-Action: promote\nLore-Lesson: {id}\nLore-Artifact: {NEXT}\nLore-Status: active\nLore-Visibility: org\nLore-Pool: org\n",
            id = w.next
        ),
        Sign::Repo,
    );
    w.assert_problem(&c, &format!("promote must add a pool entry {}", w.next));
}

#[test]
fn tampering_9_a_config_commit_that_changes_a_record() {
    let w = world();
    let path = w.proposal_path(&w.pending);
    let rubrics = w.env.lore(&["rubrics"]).stdout;
    let c = w.env.forge(
        "ledger",
        Some("ledger"),
        &[
            (".lore/rubrics.json", Some(&rubrics)),
            (&path, Some(&w.confirmed_record("confirmed"))),
        ],
        "config: rubrics\n\nLore-Format: 1\nLore-Action: config\nLore-Reason: rubrics\n",
        Sign::Repo,
    );
    w.assert_problem(
        &c,
        &format!("config may change only files under .lore/; it also changed {path}"),
    );
}

#[test]
fn tampering_10_a_propose_that_adds_two_proposals() {
    let w = world();
    let mut p = w.env.proposal(&w.pending);
    let twin = "01KZ8NV680AAAAAAAAAAAAAAAA";
    p["id"] = twin.into();
    let text = record_text(&p);
    let other = "01KZ8NV680BBBBBBBBBBBBBBBB";
    let mut q = p.clone();
    q["id"] = other.into();
    let c = w.env.forge(
        "ledger",
        Some("ledger"),
        &[
            (&w.proposal_path(twin), Some(&text)),
            (&w.proposal_path(other), Some(&record_text(&q))),
        ],
        &format!("propose {twin}: x\n\nLore-Format: 1\nLore-Action: propose\nLore-Lesson: {twin}\nLore-Artifact: {PSYCOPG}\nLore-Status: pending\n"),
        Sign::Repo,
    );
    w.assert_problem(
        &c,
        &format!(
            "propose may change only a proposal {twin}; it also changed {}",
            w.proposal_path(other)
        ),
    );
}

#[test]
fn tampering_11_a_decline_whose_reason_disagrees() {
    let w = world();
    let path = fanout("declined", NO_VERSIONS);
    let mut d: Value = serde_json::from_str(&w.show(&format!("ledger:{path}"))).unwrap();
    let artifact = "01M1E6PK5RMERSTXPS7B2B66N9";
    d["artifact_id"] = artifact.into();
    let c = w.env.forge(
        "ledger",
        Some("ledger"),
        &[(&fanout("declined", artifact), Some(&record_text(&d)))],
        &format!("decline {artifact}: no_resolution\n\nLore-Format: 1\nLore-Action: decline\nLore-Artifact: {artifact}\nLore-Reason: no_resolution\n"),
        Sign::Repo,
    );
    w.assert_problem(
        &c,
        "decline: Lore-Reason does not match the record's reason",
    );
}

#[test]
fn tampering_12_a_record_that_breaks_its_schema() {
    let w = world();
    let mut p: Value = serde_json::from_str(&w.confirmed_record("confirmed")).unwrap();
    p.as_object_mut().unwrap().remove("candidate");
    let c = w.forge_confirm(&record_text(&p), &[], "confirmed", Sign::Repo);
    w.assert_problem(&c, "schema:");
}

#[test]
fn tampering_13_a_file_outside_the_record_paths() {
    let w = world();
    let c = w.forge_confirm(
        &w.confirmed_record("confirmed"),
        &[("notes.txt", Some("hello\n"))],
        "confirmed",
        Sign::Repo,
    );
    w.assert_problem(&c, "changed notes.txt which is not a git-lore record path");
}

#[test]
fn tampering_14_a_pool_entry_deleted() {
    let w = world();
    let path = fanout("lessons", &w.next);
    let c = w.env.forge(
        "pool/org",
        Some("pool/org"),
        &[(&path, None)],
        &format!(
            "promote {id} into pool/org\n\nLore-Format: 1\nLore-Action: promote\nLore-Lesson: {id}\nLore-Artifact: {NEXT}\nLore-Status: active\nLore-Visibility: org\nLore-Pool: org\n",
            id = w.next
        ),
        Sign::Repo,
    );
    w.assert_problem(
        &c,
        &format!(
            "promote may change only a pool entry {}; it also changed {path}",
            w.next
        ),
    );
}

#[test]
fn tampering_15_trailers_that_do_not_read() {
    let w = world();
    let c = w.env.forge(
        "ledger",
        Some("ledger"),
        &[],
        "explode\n\nLore-Format: 1\nLore-Action: explode\n",
        Sign::Repo,
    );
    w.assert_problem(&c, "trailers unreadable: unknown Lore-Action \"explode\"");
}

#[test]
fn tampering_16_a_merge_that_adds_content_of_its_own() {
    let w = world();
    let base = w.env.git(&["rev-parse", "pool/org"]).ok().trim().to_owned();
    // A side branch with one more signed config commit, then a merge by a
    // stranger whose tree adds a file neither parent has.
    let signers = w.show("pool/org:.lore/allowed_signers");
    let side = w.env.forge(
        "side",
        Some(&base),
        &[(
            ".lore/allowed_signers",
            Some(&format!("{signers}# reviewed\n")),
        )],
        "config: signers\n\nLore-Format: 1\nLore-Action: config\nLore-Reason: signers\n",
        Sign::Repo,
    );
    let key = w.env.stranger_key();
    let merged_tree_commit = w.env.forge(
        "scratch",
        Some(&side),
        &[("lessons/Z/Z/extra.json", Some("{}\n"))],
        "scratch",
        Sign::Unsigned,
    );
    let tree = w
        .env
        .git(&["rev-parse", &format!("{merged_tree_commit}^{{tree}}")])
        .ok()
        .trim()
        .to_owned();
    let other = format!("user.signingkey={}", key.display());
    let merge = w
        .env
        .git(&[
            "-c",
            &other,
            "commit-tree",
            &tree,
            "-p",
            &base,
            "-p",
            &side,
            "-S",
            "-m",
            "Merge pull request #1",
        ])
        .ok()
        .trim()
        .to_owned();
    w.env
        .git(&["update-ref", "refs/heads/pool/org", &merge])
        .ok();
    w.assert_problem(
        &merge,
        "merge commit is not signed by an allowed signer and is not a pure merge of trusted parents",
    );
}

/// A confirm of the pending lesson forged by the repository's own key (a
/// listed signer) with `message` and `git`'s environment holding `vars`:
/// its id, checked to be the ledger's tip.
fn forge_ambiguous(w: &World, message: &str, vars: &[(&str, &str)]) -> String {
    let path = w.proposal_path(&w.pending);
    let record = w.confirmed_record("confirmed");
    let c = w.env.forge_with(
        vars,
        "ledger",
        Some("ledger"),
        &[(&path, Some(&record))],
        message,
        Sign::Repo,
    );
    assert_eq!(w.env.ledger_commits()[0], c);
    c
}

/// The rule a problem names: `(rule: NAME`.
fn rule(name: &str) -> String {
    format!("(rule: {name}")
}

#[test]
fn ambiguous_1_a_second_lore_action() {
    let w = world();
    let message = w.confirm_message("pending", "confirmed").replace(
        "Lore-Action: confirm\n",
        "Lore-Action: confirm\nLore-Action: pass\n",
    );
    let c = forge_ambiguous(&w, &message, &[]);
    // What stock git reads: two actions at once.
    let read = w.env.git(&[
        "log",
        "-1",
        "--format=%(trailers:key=Lore-Action,valueonly,separator=%x2C)",
        &c,
    ]);
    assert_eq!(read.ok().trim(), "confirm,pass");
    w.assert_problem(
        &c,
        &format!(
            "trailers unreadable: trailer Lore-Action is given 2 times {}; of the Lore- keys only Lore-Target and Lore-Judge repeat)",
            rule("one value per key")
        ),
    );
}

#[test]
fn ambiguous_2_a_second_lore_visibility() {
    let w = world();
    let message = w.confirm_message("pending", "confirmed").replace(
        "Lore-Visibility: org\n",
        "Lore-Visibility: org\nlore-visibility: public\n",
    );
    let c = forge_ambiguous(&w, &message, &[]);
    w.assert_problem(
        &c,
        &format!(
            "trailers unreadable: trailer Lore-Visibility is given 2 times {}",
            rule("one value per key")
        ),
    );
}

#[test]
fn ambiguous_3_trailers_that_contradict_the_record() {
    let w = world();
    // The record says org; the trailers say public.
    let message = w
        .confirm_message("pending", "confirmed")
        .replace("Lore-Visibility: org\n", "Lore-Visibility: public\n");
    let c = forge_ambiguous(&w, &message, &[]);
    w.assert_problem(
        &c,
        &format!(
            "confirm: Lore-Visibility says public but the record holds org {})",
            rule("trailers agree with the record")
        ),
    );
}

#[test]
fn ambiguous_4_an_author_who_is_not_the_signer() {
    let w = world();
    let c = forge_ambiguous(
        &w,
        &w.confirm_message("pending", "confirmed"),
        &[
            ("GIT_AUTHOR_NAME", "Mallory"),
            ("GIT_AUTHOR_EMAIL", "mallory@example.org"),
        ],
    );
    w.assert_problem(
        &c,
        &format!(
            "author Mallory <mallory@example.org> is not git-lore@localhost, whom the signing key is listed for {})",
            rule("the signer is the author and committer")
        ),
    );
    // The same name as the signer's but another committer is refused too.
    let w = world();
    let c = forge_ambiguous(
        &w,
        &w.confirm_message("pending", "confirmed"),
        &[("GIT_AUTHOR_NAME", "Mallory")],
    );
    w.assert_problem(
        &c,
        &format!(
            "author Mallory <git-lore@localhost> is not the committer git-lore <git-lore@localhost> {})",
            rule("the signer is the author and committer")
        ),
    );
}

#[test]
fn ambiguous_5_dates_in_2099_and_1970() {
    let dates = rule("dates within a day of the parent and of now");
    for (when, says) in [
        (
            "2099-01-01T00:00:00Z",
            format!("date 2099-01-01T00:00:00Z is later than now (2026-08-05T10:00:00Z) by more than a day {dates})"),
        ),
        (
            "1970-01-02T00:00:00Z",
            format!("date 1970-01-02T00:00:00Z is earlier than its parent's (2026-08-05T10:00:00Z) by more than a day {dates})"),
        ),
    ] {
        let w = world();
        let c = forge_ambiguous(
            &w,
            &w.confirm_message("pending", "confirmed"),
            &[("GIT_AUTHOR_DATE", when), ("GIT_COMMITTER_DATE", when)],
        );
        let lines = w.problems(&c);
        for role in ["author", "committer"] {
            let needle = format!("{role} {says}");
            assert!(lines.iter().any(|l| l.contains(&needle)), "no {needle:?} in {lines:?}");
        }
        // Nothing builds on it.
        let ledger = w.env.ledger_commits();
        let r = w.env.lore(&["judge", "--all", "--yes"]);
        r.assert_refused(&format!(
            "refusing to build on ledger: commit {c} does not verify (author {says}"
        ));
        assert_eq!(w.env.ledger_commits(), ledger, "nothing written");
    }
}

#[test]
fn no_command_builds_on_a_forged_confirm() {
    // An unsigned commit confirms a lesson at public: no human chose that.
    let w = world();
    let mut p: Value = serde_json::from_str(&w.confirmed_record("confirmed")).unwrap();
    p["visibility"] = "public".into();
    let forged = w.env.forge(
        "ledger",
        Some("ledger"),
        &[(&w.proposal_path(&w.pending), Some(&record_text(&p)))],
        &w.confirm_message("pending", "confirmed")
            .replace("Lore-Visibility: org", "Lore-Visibility: public"),
        Sign::Unsigned,
    );
    let ledger = w.env.ledger_commits();
    let r = w.env.lore(&["judge", "--all", "--yes"]);
    r.assert_refused(&format!(
        "refusing to build on ledger: commit {forged} does not verify (unsigned commit); nothing was written"
    ));
    assert_eq!(w.env.ledger_commits(), ledger, "nothing written");
    assert_ne!(
        w.env
            .git(&["rev-parse", "--verify", "-q", "pool/public"])
            .code,
        0
    );
    // Reading commands flag what the forged commit changed.
    let r = w.env.lore(&["list", "--status", "confirmed"]);
    let (short, rest) = r.ok().split_once("  ").unwrap();
    assert!(
        short.len() >= 4 && short.len() < 26 && w.pending.starts_with(short),
        "{}",
        r.ok()
    );
    assert_eq!(
        rest,
        "psycopg2-binary 2.9.9 wheels segfault against openssl 3.0.13 on Alpine  [unverified]\n"
    );
    r.assert_stderr("warning: ledger has commits that do not verify");
    let r = w.env.lore(&["show", &w.pending]);
    r.assert_stderr(&format!(
        "warning: lesson {} was changed by a commit that does not verify",
        w.pending
    ));
    let r = w.env.lore(&["seen", PSYCOPG]);
    assert!(r.ok().ends_with("[unverified]\n"), "{}", r.stdout);
    let r = w.env.lore(&["status", "--json"]);
    let j: Value = serde_json::from_str(r.ok()).unwrap();
    assert_eq!(j["unverified"], 2, "the lesson and its artifact");
}

#[test]
fn a_forged_pass_does_not_quietly_block_a_confirm() {
    let w = world();
    let mut p = w.env.proposal(&w.pending);
    p["status"] = "passed".into();
    p["passed_at"] = "2026-08-05T10:00:00Z".into();
    let forged = w.env.forge(
        "ledger",
        Some("ledger"),
        &[(&w.proposal_path(&w.pending), Some(&record_text(&p)))],
        &format!(
            "pass {id}\n\nLore-Format: 1\nLore-Action: pass\nLore-Lesson: {id}\nLore-Artifact: {PSYCOPG}\nLore-From: pending\nLore-Status: passed\n",
            id = w.pending
        ),
        Sign::Unsigned,
    );
    let r = w.env.lore(&["confirm", &w.pending, "org", "--yes"]);
    r.assert_refused(&format!(
        "commit {forged} does not verify (unsigned commit)"
    ));
    assert!(!r.stderr.contains("was passed on"), "{}", r.stderr);
}

#[test]
fn a_forged_decline_is_flagged_and_blocks_ingest() {
    let w = world();
    let artifact = "01M1J2K3M4N5P6Q7R8S9T0V1W9";
    let record = serde_json::json!({
        "artifact_id": artifact, "reason": "no_versions", "detail": null,
        "declined_at": "2026-08-05T10:00:00Z"
    });
    w.env.forge(
        "ledger",
        Some("ledger"),
        &[(&fanout("declined", artifact), Some(&record_text(&record)))],
        &format!("decline {artifact}: no_versions\n\nLore-Format: 1\nLore-Action: decline\nLore-Artifact: {artifact}\nLore-Reason: no_versions\n"),
        Sign::Unsigned,
    );
    let r = w.env.lore(&["seen", artifact]);
    assert_eq!(
        r.ok(),
        format!("{artifact} declined no package version to scope it by [unverified]\n")
    );
    let f = w
        .env
        .artifacts_file("one.jsonl", &[crate::common::proposable(30, 1)]);
    let r = w.env.lore(&["ingest", f.to_str().unwrap()]);
    assert_ne!(r.code, 0);
    r.assert_stderr("refusing to build on ledger");
}

#[test]
fn a_rollback_is_refused_until_accepted() {
    let w = world();
    let commits = w.env.ledger_commits();
    w.env
        .git(&["update-ref", "refs/heads/ledger", "ledger~3"])
        .ok();
    let (from, to) = (&commits[0][..12], &commits[3][..12]);
    let moved = format!("ledger moved from {from} to {to}, 3 commits dropped");
    let r = w.env.lore(&["status"]);
    r.assert_refused(&moved);
    let r = w.env.lore(&["confirm", &w.pending, "org", "--yes"]);
    r.assert_refused(&format!("{moved}; nothing was written"));
    assert_eq!(w.env.ledger_commits(), commits[3..].to_vec());
    // The reflog kept the move.
    let reflog = w
        .env
        .git(&["reflog", "show", "--format=%H", "ledger"])
        .ok()
        .to_owned();
    assert!(reflog.contains(&commits[0]), "{reflog}");

    let r = w.env.lore(&["index", "--accept-rewrite"]);
    assert!(
        r.ok().starts_with(&format!("Accepted: {moved}.\n")),
        "{}",
        r.stdout
    );
    w.env.assert_verifies();
    assert_eq!(w.env.lore(&["status"]).code, 0);
    w.env.confirm(&w.pending, "org");
}

#[test]
fn hostile_text_in_history_reaches_the_terminal_only_as_text() {
    let w = world();
    let mut p = w.env.proposal(&w.pending);
    let id = "01KZ8NV680CCCCCCCCCCCCCCCC";
    p["id"] = id.into();
    p["artifact_id"] = "01M1GKTGT0CZM08AJC6X1VR4QZ".into();
    p["artifact"]["id"] = "01M1GKTGT0CZM08AJC6X1VR4QZ".into();
    p["candidate"]["evidence"]["artifact_ids"] = serde_json::json!(["01M1GKTGT0CZM08AJC6X1VR4QZ"]);
    p["candidate"]["claim"] =
        "\u{1b}]0;pwned\u{7}title\u{1b}[2J\nfake 01KZ8NV680DDDDDDDDDDDDDD  row".into();
    p["candidate"]["rationale"] = "copy \u{1b}]52;c;cGF3bmVk\u{7} and \u{202e}gnp.exe".into();
    let path = fanout("proposals", id);
    let c = w.env.forge(
        "ledger",
        Some("ledger"),
        &[(&path, Some(&record_text(&p)))],
        &format!(
            "propose {id}: \u{1b}[31mred\u{1b}[0m\n\nLore-Format: 1\nLore-Action: propose\nLore-Lesson: {id}\nLore-Artifact: 01M1GKTGT0CZM08AJC6X1VR4QZ\nLore-Status: pending\nLore-Model: {}\n",
            p["model"].as_str().unwrap()
        ),
        Sign::Repo,
    );
    let list = w.env.lore(&["list"]);
    let row = list
        .ok()
        .lines()
        .find(|l| l.contains("pwned"))
        .unwrap()
        .to_owned();
    let (short, rest) = row.split_once("  ").unwrap();
    assert!(
        short.len() >= 4 && short.len() < 26 && id.starts_with(short),
        "{row}"
    );
    // The content policy refuses the candidate's text, so the row is
    // marked and `verify` names each rule.
    assert_eq!(
        rest,
        "\\x1b]0;pwned\\x07title\\x1b[2J\\nfake 01KZ8NV680DDDDDDDDDDDDDD  row  [unverified]"
    );
    w.assert_problem(&c, &format!("{path} /candidate/claim: contains a control character or line break; it must be one line (content rule control)"));
    w.assert_problem(&c, &format!("{path} /candidate/rationale: contains the bidirectional control U+202E, which makes text display differently from what it says (content rule bidi)"));
    w.assert_problem(
        &c,
        &format!(
            "{path} /candidate/rationale: contains a control character (content rule control)"
        ),
    );
    assert!(
        !list.stdout.contains('\u{1b}'),
        "no raw escape reaches the terminal"
    );
    let show = w.env.lore(&["show", id]);
    show.assert_ok_stdout("rationale:   copy \\x1b]52;c;cGF3bmVk\\x07 and \\u{202e}gnp.exe\n");
    let log = w.env.lore(&["log", id]);
    log.assert_ok_stdout(&format!("propose {id}: \\x1b[31mred\\x1b[0m\n"));
    assert!(!log.stdout.contains('\u{1b}'));
    // --json stays exact.
    let json: Value = serde_json::from_str(w.env.lore(&["show", id, "--json"]).ok()).unwrap();
    assert_eq!(json["candidate"]["claim"], p["candidate"]["claim"]);
}
