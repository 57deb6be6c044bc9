//! A whole session, pinned: every command's complete output, as a person
//! sees it. Ids, keys and commit ids are fixed by the seed each command
//! gets and the fixed clock, so any change to what git-lore says shows up
//! here as a snapshot diff (`cargo insta review`).

use crate::common::{lesson_for, TestEnv};

/// Runs `git lore args…` and renders what it printed the way a terminal
/// shows it ([`TestEnv::session`]).
fn session(env: &TestEnv, args: &[&str]) -> String {
    env.session(args)
}

fn examples() -> String {
    format!("{}/examples/artifacts", env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn init_and_ingest_the_examples() {
    let env = TestEnv::new();
    insta::assert_snapshot!(session(&env, &["init"]), @r#"
    $ git lore init
    Initialized lesson repository in [TMP]/lessons.git as git-lore <git-lore@localhost>
    [stderr] created signing key [TMP]/lessons.git/keys/lore_ed25519 (allowed signers: [TMP]/lessons.git/allowed_signers)
    [stderr] warning: no git identity (user.email), so this repository signs as git-lore <git-lore@localhost>, as does everyone's without one: teammates who trust your key cannot tell you apart. Set yours with `git config --global user.name "Your Name"` and `git config --global user.email you@example.com`, then remove [TMP]/lessons.git (it holds nothing yet) and run `git lore init` again
    "#);
    insta::assert_snapshot!(session(&env, &["ingest", &examples()]), @"
    $ git lore ingest [REPO]/examples/artifacts
    proposed 01M1E3VM1GAD8DSR0D4BG72GC0 lesson 01KZ8N9CCB3N63XAKWXH0G0ZG4 (from [REPO]/examples/artifacts/next-hydration.json)
    declined 01M1E6PK5RMERSTXPS7B2B66N8 no package version to scope it by (from [REPO]/examples/artifacts/no-versions.json)
    proposed 01M1J2K3M4N5P6Q7R8S9T0V1W2 lesson 01KZ8NAER6XHTR5AH9H0P55TVY (from [REPO]/examples/artifacts/npm-registry.json)
    proposed 01M1GKTGT0CZM08AJC6X1VR4QP lesson 01KZ8N6P0J6CRJBT5NNRYRWZJ5 (from [REPO]/examples/artifacts/psycopg2-alpine.json)
    skipped 01KZ45MKGQ7QZWMABQ4H12SHSV no version in it (from [REPO]/examples/artifacts/version-free.json)
    declined 01M1EC9PM05QE97KEGDRSBN1B5 no fix in it (from [REPO]/examples/artifacts/vitest-open.json)
    proposed 01KZ45MKAM734ZS7JK24D2DK0R lesson 01KZ8N4X74H3Y5HR3343HJYA6B (from [REPO]/examples/artifacts/vitest-pin.json)
    [stderr] ingest: 4 lessons proposed; 2 artifacts declined, 1 skipped
    ");
    insta::assert_snapshot!(session(&env, &["ingest", &examples()]), @"
    $ git lore ingest [REPO]/examples/artifacts
    skipped 01M1E3VM1GAD8DSR0D4BG72GC0 seen (from [REPO]/examples/artifacts/next-hydration.json)
    skipped 01M1E6PK5RMERSTXPS7B2B66N8 seen (from [REPO]/examples/artifacts/no-versions.json)
    skipped 01M1J2K3M4N5P6Q7R8S9T0V1W2 seen (from [REPO]/examples/artifacts/npm-registry.json)
    skipped 01M1GKTGT0CZM08AJC6X1VR4QP seen (from [REPO]/examples/artifacts/psycopg2-alpine.json)
    skipped 01KZ45MKGQ7QZWMABQ4H12SHSV no version in it (from [REPO]/examples/artifacts/version-free.json)
    skipped 01M1EC9PM05QE97KEGDRSBN1B5 seen (from [REPO]/examples/artifacts/vitest-open.json)
    skipped 01KZ45MKAM734ZS7JK24D2DK0R seen (from [REPO]/examples/artifacts/vitest-pin.json)
    [stderr] ingest: no lessons proposed; 7 artifacts skipped
    ");
    insta::assert_snapshot!(session(&env, &["list"]), @"
    $ git lore list
    01KZ8N4  Vitest 4.1.9 imports vite/module-runner which is absent in Vite 5.4.21, because Vite 6 has not shipped yet.
    01KZ8N6  psycopg2-binary 2.9.9 wheels segfault against openssl 3.0.13 on Alpine
    01KZ8N9  Hydration crash in next 14.2.3 with react 18.3.1
    01KZ8NA  npm 10.2.4 fails with E401 against the registry mirror
    ");
    insta::assert_snapshot!(session(&env, &["show", "01kz8n"]), @"
    $ git lore show 01kz8n
    [stderr] git-lore: 01KZ8N is ambiguous: 4 ids start with it: 01KZ8N4 (lesson, pending), 01KZ8N6 (lesson, pending), 01KZ8N9 (lesson, pending), 01KZ8NA (lesson, pending); give enough characters to name one
    [exit 1]
    ");
    insta::assert_snapshot!(session(&env, &["confirm", "01KZ9", "org", "--yes"]), @"
    $ git lore confirm 01KZ9 org --yes
    [stderr] git-lore: no lesson or artifact id starts with 01KZ9: `git lore list --all` shows every lesson id
    [exit 1]
    ");
    insta::assert_snapshot!(session(&env, &["status"]), @"
    $ git lore status
    lessons pending: 4
    lessons confirmed (awaiting the jury): 0
    lessons approved: 0, rejected: 0, passed: 0
    ");
    insta::assert_snapshot!(session(&env, &["seen", "01M1E6PK5RMERSTXPS7B2B66N8", "01M1E3VM1GAD8DSR0D4BG72GC0", "01M1J2K3M4N5P6Q7R8S9T0V1W9"]), @"
    $ git lore seen 01M1E6PK5RMERSTXPS7B2B66N8 01M1E3VM1GAD8DSR0D4BG72GC0 01M1J2K3M4N5P6Q7R8S9T0V1W9
    01M1E6PK5RMERSTXPS7B2B66N8 declined no package version to scope it by
    01M1E3VM1GAD8DSR0D4BG72GC0 proposed 01KZ8N9CCB3N63XAKWXH0G0ZG4 pending
    01M1J2K3M4N5P6Q7R8S9T0V1W9 unseen
    [stderr] unseen: history holds no outcome for it (an artifact with no version in it is skipped, and a skip is never recorded)
    ");
}

#[test]
fn review_judge_and_audit_a_lesson() {
    let env = TestEnv::new();
    env.init();
    let ingested = env.lore(&["ingest", &examples()]).stdout;
    let org = lesson_for(&ingested, "01M1E3VM1GAD8DSR0D4BG72GC0");
    let leaky = lesson_for(&ingested, "01M1J2K3M4N5P6Q7R8S9T0V1W2");
    insta::assert_snapshot!(session(&env, &["show", &org]), @"
    $ git lore show 01KZ8N9CCB3N63XAKWXH0G0ZG4
    id:          01KZ8N9CCB3N63XAKWXH0G0ZG4 (short: 01KZ8N9)
    status:      pending
    visibility:  —
    artifact:    01M1E3VM1GAD8DSR0D4BG72GC0
    claim:       Hydration crash in next 14.2.3 with react 18.3.1
    rationale:   Pages using useId rendered mismatched ids on the client after react 18.3.1 was installed by a lockfile refresh. Scoped to exactly the versions seen (next 14.2.3, react 18.3.1): the text states no wider range.
    resolution:  Fixed by pinning react to 18.2.0 in package.json until the next release of Next.js ships the patch.
    stack:       next, react
    scope:       next =14.2.3, react =18.3.1
    ");
    insta::assert_snapshot!(session(&env, &["confirm", &org, "org", "--yes"]), @"
    $ git lore confirm 01KZ8N9CCB3N63XAKWXH0G0ZG4 org --yes
    Confirmed 01KZ8N9CCB3N63XAKWXH0G0ZG4 at org visibility.
    ");
    insta::assert_snapshot!(session(&env, &["confirm", &leaky, "public", "--yes"]), @"
    $ git lore confirm 01KZ8NAER6XHTR5AH9H0P55TVY public --yes
    Confirmed 01KZ8NAER6XHTR5AH9H0P55TVY at public visibility.
    ");
    insta::assert_snapshot!(session(&env, &["judge", "--all"]), @"
    $ git lore judge --all
    [stderr] 2 confirmed lessons to judge with the offline judges
    [stderr] git-lore: refusing to judge without --yes: stdin is not a terminal to ask on
    [exit 1]
    ");
    insta::assert_snapshot!(session(&env, &["judge", "--all", "--yes"]), @"
    $ git lore judge --all --yes
    Lesson 01KZ8N9CCB3N63XAKWXH0G0ZG4 is now approved.
    Lesson 01KZ8N9CCB3N63XAKWXH0G0ZG4 promoted to pool/org.
    Lesson 01KZ8NAER6XHTR5AH9H0P55TVY is now rejected: not every judge passed it; its verdict stays on the ledger.
    [stderr] 2 confirmed lessons to judge with the offline judges
    [stderr] judged: 1 lesson approved, 1 rejected
    ");
    insta::assert_snapshot!(session(&env, &["show", &leaky]), @"
    $ git lore show 01KZ8NAER6XHTR5AH9H0P55TVY
    id:          01KZ8NAER6XHTR5AH9H0P55TVY (short: 01KZ8NA)
    status:      rejected
    visibility:  public
    artifact:    01M1J2K3M4N5P6Q7R8S9T0V1W2
    claim:       npm 10.2.4 fails with E401 against the registry mirror
    rationale:   Every install in CI failed with E401 after the runner image moved to npm 10.2.4. Scoped to exactly the versions seen (npm 10.2.4): the text states no wider range.
    resolution:  Fixed by pointing .npmrc at https://npm.corp.internal/ with a token from ops@acme-internal.com.
    stack:       npm
    scope:       npm =10.2.4
    verdict:     rejected: not every judge passed it, failed criterion: disclosure, score 0.7
    judge:       standard, failed, score 0.7: disclosure 0.0, generality 1.0, grounding 1.0, scope_accuracy 1.0
                 offline standard judge: grounding 1.00; scope_accuracy 1.00; generality 1.00; disclosure 0.00 (leaks: email in evidence.resolution, internal_host in evidence.resolution)
    judge:       adversarial, failed, score 0.7: disclosure 0.0, generality 1.0, grounding 1.0, scope_accuracy 1.0
                 offline adversarial judge: grounding 1.00; scope_accuracy 1.00; generality 1.00; disclosure 0.00 (leaks: email in evidence.resolution, internal_host in evidence.resolution)
    disclosure:  internal_host in evidence.resolution: npm.… (17 characters)
    disclosure:  email in evidence.resolution: ops@… (21 characters)
    ");
    insta::assert_snapshot!(session(&env, &["log", &org]), @"
    $ git lore log 01KZ8N9CCB3N63XAKWXH0G0ZG4
    c53e365984ff 2026-08-05T10:00:00Z ledger      promote 01KZ8N9CCB3N63XAKWXH0G0ZG4: approved, now in pool/org
        promote (stays approved); signature: good (git-lore@localhost)
    80879c3dd4c8 2026-08-05T10:00:00Z ledger      judge 01KZ8N9CCB3N63XAKWXH0G0ZG4: approved: the jury passed it (rubric lesson-promotion, score 1)
        judge confirmed -> approved (the jury passed it); signature: good (git-lore@localhost)
    09974c1652b0 2026-08-05T10:00:00Z ledger      confirm 01KZ8N9CCB3N63XAKWXH0G0ZG4: org visibility
        confirm pending -> confirmed; signature: good (git-lore@localhost)
    d1032e52fcf0 2026-08-05T10:00:00Z ledger      propose 01KZ8N9CCB3N63XAKWXH0G0ZG4: Hydration crash in next 14.2.3 with react 18.3.1
        propose -> pending; signature: good (git-lore@localhost)
    e46c8cddcf9a 2026-08-05T10:00:00Z pool/org    promote 01KZ8N9CCB3N63XAKWXH0G0ZG4 into pool/org
        promote -> active; signature: good (git-lore@localhost)
    ");
    insta::assert_snapshot!(session(&env, &["verify"]), @"
    $ git lore verify
    verified 15 commits: every signature good, trailers and records consistent
    ");
    insta::assert_snapshot!(session(&env, &["index"]), @"
    $ git lore index
    index: 6 artifacts, 4 lessons, 1 pool entry (up to date)
    ");
}

#[test]
fn refusals_say_what_is_wrong() {
    let env = TestEnv::new();
    insta::assert_snapshot!(session(&env, &["list"]), @"
    $ git lore list
    [stderr] git-lore: no lesson repository at [TMP]/lessons.git: run `git lore init` first
    [exit 1]
    ");
    env.init();
    insta::assert_snapshot!(session(&env, &["show", "01kz45mkam734zs7jk24d2dk0r"]), @"
    $ git lore show 01kz45mkam734zs7jk24d2dk0r
    [stderr] git-lore: lesson 01KZ45MKAM734ZS7JK24D2DK0R not found
    [exit 1]
    ");
    insta::assert_snapshot!(session(&env, &["show", "01k"]), @r#"
    $ git lore show 01k
    [stderr] git-lore: not an id or a prefix of one: "01k" (ids are 26 characters of 0-9 and A-Z without I, L, O, U; a prefix needs at least 4 of them)
    [exit 1]
    "#);
    insta::assert_snapshot!(session(&env, &["show", "01KZ45MKAM734ZS7JK24D2DK0R"]), @"
    $ git lore show 01KZ45MKAM734ZS7JK24D2DK0R
    [stderr] git-lore: lesson 01KZ45MKAM734ZS7JK24D2DK0R not found
    [exit 1]
    ");
    insta::assert_snapshot!(session(&env, &["confirm", "01KZ45MKAM734ZS7JK24D2DK0R", "everyone"]), @r#"
    $ git lore confirm 01KZ45MKAM734ZS7JK24D2DK0R everyone
    [stderr] error: invalid value 'everyone' for '<VISIBILITY>': visibility must be one of: private, org, public (got "everyone")
    [stderr] 
    [stderr] For more information, try '--help'.
    [exit 1]
    "#);
    insta::assert_snapshot!(session(&env, &["ingest"]), @"
    $ git lore ingest
    [stderr] git-lore: name artifact files or directories to ingest, `-` for stdin, --from-commits DIR, or --redo ARTIFACT
    [exit 1]
    ");
    insta::assert_snapshot!(session(&env, &["ingest", "no-such-dir"]), @"
    $ git lore ingest no-such-dir
    invalid no-such-dir: cannot read: No such file or directory (os error 2)
    [stderr] ingest: no lessons proposed; 1 artifact invalid
    [exit 1]
    ");
}

#[test]
fn ids_of_the_wrong_kind_are_named_for_what_they_are() {
    let env = TestEnv::new();
    env.init();
    let ingested = env.lore(&["ingest", &examples()]).stdout;
    let lesson = lesson_for(&ingested, "01M1E3VM1GAD8DSR0D4BG72GC0");
    insta::assert_snapshot!(session(&env, &["seen", &lesson]), @"
    $ git lore seen 01KZ8N9CCB3N63XAKWXH0G0ZG4
    01KZ8N9CCB3N63XAKWXH0G0ZG4 lesson (this id is a pending lesson; its artifact is 01M1E3VM1GAD8DSR0D4BG72GC0)
    ");
    insta::assert_snapshot!(session(&env, &["show", "01M1E3VM1GAD8DSR0D4BG72GC0"]), @"
    $ git lore show 01M1E3VM1GAD8DSR0D4BG72GC0
    [stderr] git-lore: 01M1E3VM1GAD8DSR0D4BG72GC0 is an artifact, not a lesson; it became lesson 01KZ8N9CCB3N63XAKWXH0G0ZG4: `git lore show 01KZ8N9CCB3N63XAKWXH0G0ZG4`
    [exit 1]
    ");
    insta::assert_snapshot!(session(&env, &["show", "01M1E6PK5RMERSTXPS7B2B66N8"]), @"
    $ git lore show 01M1E6PK5RMERSTXPS7B2B66N8
    [stderr] git-lore: 01M1E6PK5RMERSTXPS7B2B66N8 is an artifact, not a lesson; it was declined (no package version to scope it by): `git lore seen 01M1E6PK5RMERSTXPS7B2B66N8`
    [exit 1]
    ");
    insta::assert_snapshot!(session(&env, &["confirm", "01m1e3vm", "org", "--yes"]), @"
    $ git lore confirm 01m1e3vm org --yes
    [stderr] git-lore: 01M1E3VM1GAD8DSR0D4BG72GC0 is an artifact, not a lesson; it became lesson 01KZ8N9CCB3N63XAKWXH0G0ZG4: use that id
    [exit 1]
    ");
    insta::assert_snapshot!(session(&env, &["pass", "01M1E6PK5RMERSTXPS7B2B66N8", "--yes"]), @"
    $ git lore pass 01M1E6PK5RMERSTXPS7B2B66N8 --yes
    [stderr] git-lore: 01M1E6PK5RMERSTXPS7B2B66N8 is an artifact, not a lesson; it was declined (`git lore seen 01M1E6PK5RMERSTXPS7B2B66N8` says why; `git lore ingest --redo 01M1E6PK5RMERSTXPS7B2B66N8` asks again)
    [exit 1]
    ");
    insta::assert_snapshot!(session(&env, &["log", "01M1E6PK5RMERSTXPS7B2B66N8"]), @"
    $ git lore log 01M1E6PK5RMERSTXPS7B2B66N8
    af71d668afaa 2026-08-05T10:00:00Z ledger      decline 01M1E6PK5RMERSTXPS7B2B66N8: no package version to scope it by
        decline (no package version to scope it by); signature: good (git-lore@localhost)
    [stderr] 01M1E6PK5RMERSTXPS7B2B66N8 is an artifact; showing its history
    ");
    insta::assert_snapshot!(session(&env, &["log", "01M1E6PK5RMERSTXPS7B2B66N9"]), @"
    $ git lore log 01M1E6PK5RMERSTXPS7B2B66N9
    [stderr] git-lore: no lesson or artifact has the id 01M1E6PK5RMERSTXPS7B2B66N9
    [exit 1]
    ");
}

#[test]
fn an_artifact_without_a_session_is_declined_for_want_of_provenance() {
    let env = TestEnv::new();
    env.init();
    // The vitest example, minus its session: the fix is there, the
    // provenance is not.
    let mut a: serde_json::Value =
        serde_json::from_str(include_str!("../../examples/artifacts/vitest-pin.json")).unwrap();
    a["session_id"] = serde_json::Value::Null;
    let f = env.artifacts_file("no-session.jsonl", &[a]);
    insta::assert_snapshot!(session(&env, &["ingest", f.to_str().unwrap()]), @"
    $ git lore ingest [TMP]/no-session.jsonl
    declined 01KZ45MKAM734ZS7JK24D2DK0R not a valid lesson (no session id: a lesson needs provenance) (from no-session.jsonl)
    [stderr] ingest: no lessons proposed; 1 artifact declined
    ");
    insta::assert_snapshot!(session(&env, &["seen", "01KZ45MKAM734ZS7JK24D2DK0R"]), @"
    $ git lore seen 01KZ45MKAM734ZS7JK24D2DK0R
    01KZ45MKAM734ZS7JK24D2DK0R declined not a valid lesson (no session id: a lesson needs provenance)
    ");
    insta::assert_snapshot!(session(&env, &["log", "--artifact", "01KZ45MKAM734ZS7JK24D2DK0R"]), @"
    $ git lore log --artifact 01KZ45MKAM734ZS7JK24D2DK0R
    04e9e7280b1e 2026-08-05T10:00:00Z ledger      decline 01KZ45MKAM734ZS7JK24D2DK0R: not a valid lesson (no session id: a lesson needs provenance)
        decline (not a valid lesson); signature: good (git-lore@localhost)
    ");
}

/// The demo, whole: each command's output as a terminal shows it, a
/// summary on stderr after the lines it sums up, in words a person reads.
#[test]
fn the_demo_runs_the_pipeline_in_words_a_person_reads() {
    let env = TestEnv::new();
    let r = env.lore(&["demo"]);
    let dir = r
        .stdout
        .strip_prefix("git-lore demo in ")
        .and_then(|s| s.split(' ').next())
        .expect("the demo names its directory")
        .to_owned();
    assert!(
        !std::path::Path::new(&dir).exists(),
        "the demo removes its directory"
    );
    let shown = crate::common::transcript(&["demo"], &r, &env.names(&[(dir.as_str(), "[DEMO]")]));
    // What the issue called jargon is gone from what a person reads.
    for jargon in [
        "pregate",
        "verdict is terminal",
        "approved -> approved",
        "private with no jury",
        "0 could not judge",
    ] {
        assert!(!shown.contains(jargon), "{jargon:?} in:\n{shown}");
    }
    insta::assert_snapshot!(shown, @"
    $ git lore demo
    git-lore demo in [DEMO] (offline: no model, no network)

    $ git lore init --name Demo --email demo@example.com
    Initialized lesson repository in [DEMO]/lessons.git as Demo <demo@example.com>
    created signing key [DEMO]/lessons.git/keys/lore_ed25519 (allowed signers: [DEMO]/lessons.git/allowed_signers)

    $ git lore ingest artifacts
    proposed 01M1E3VM1GAD8DSR0D4BG72GC0 lesson 01KZ8N6S0TD3WMMT8DSGJX3X5G (from artifacts/next-hydration.json)
    declined 01M1E6PK5RMERSTXPS7B2B66N8 no package version to scope it by (from artifacts/no-versions.json)
    proposed 01M1J2K3M4N5P6Q7R8S9T0V1W2 lesson 01KZ8N4PP1HXPX69B46WBKBWSC (from artifacts/npm-registry.json)
    proposed 01M1GKTGT0CZM08AJC6X1VR4QP lesson 01KZ8NBRJD590KP5CNGK0J4VFP (from artifacts/psycopg2-alpine.json)
    skipped 01KZ45MKGQ7QZWMABQ4H12SHSV no version in it (from artifacts/version-free.json)
    declined 01M1EC9PM05QE97KEGDRSBN1B5 no fix in it (from artifacts/vitest-open.json)
    proposed 01KZ45MKAM734ZS7JK24D2DK0R lesson 01KZ8NNA6DFDHWFJTPZXKCTR5N (from artifacts/vitest-pin.json)
    ingest: 4 lessons proposed; 2 artifacts declined, 1 skipped

    $ git lore ingest artifacts
    skipped 01M1E3VM1GAD8DSR0D4BG72GC0 seen (from artifacts/next-hydration.json)
    skipped 01M1E6PK5RMERSTXPS7B2B66N8 seen (from artifacts/no-versions.json)
    skipped 01M1J2K3M4N5P6Q7R8S9T0V1W2 seen (from artifacts/npm-registry.json)
    skipped 01M1GKTGT0CZM08AJC6X1VR4QP seen (from artifacts/psycopg2-alpine.json)
    skipped 01KZ45MKGQ7QZWMABQ4H12SHSV no version in it (from artifacts/version-free.json)
    skipped 01M1EC9PM05QE97KEGDRSBN1B5 seen (from artifacts/vitest-open.json)
    skipped 01KZ45MKAM734ZS7JK24D2DK0R seen (from artifacts/vitest-pin.json)
    ingest: no lessons proposed; 7 artifacts skipped

    $ git lore list
    01KZ8N4  npm 10.2.4 fails with E401 against the registry mirror
    01KZ8N6  Hydration crash in next 14.2.3 with react 18.3.1
    01KZ8NB  psycopg2-binary 2.9.9 wheels segfault against openssl 3.0.13 on Alpine
    01KZ8NN  Vitest 4.1.9 imports vite/module-runner which is absent in Vite 5.4.21, because Vite 6 has not shipped yet.

    $ git lore show 01KZ8N6S0TD3WMMT8DSGJX3X5G
    id:          01KZ8N6S0TD3WMMT8DSGJX3X5G (short: 01KZ8N6)
    status:      pending
    visibility:  —
    artifact:    01M1E3VM1GAD8DSR0D4BG72GC0
    claim:       Hydration crash in next 14.2.3 with react 18.3.1
    rationale:   Pages using useId rendered mismatched ids on the client after react 18.3.1 was installed by a lockfile refresh. Scoped to exactly the versions seen (next 14.2.3, react 18.3.1): the text states no wider range.
    resolution:  Fixed by pinning react to 18.2.0 in package.json until the next release of Next.js ships the patch.
    stack:       next, react
    scope:       next =14.2.3, react =18.3.1

    $ git lore confirm 01KZ8N6S0TD3WMMT8DSGJX3X5G org --yes
    Confirmed 01KZ8N6S0TD3WMMT8DSGJX3X5G at org visibility.

    $ git lore confirm 01KZ8NBRJD590KP5CNGK0J4VFP public --yes
    Confirmed 01KZ8NBRJD590KP5CNGK0J4VFP at public visibility.

    $ git lore confirm 01KZ8NNA6DFDHWFJTPZXKCTR5N private
    Confirmed 01KZ8NNA6DFDHWFJTPZXKCTR5N at private visibility.

    $ git lore confirm 01KZ8N4PP1HXPX69B46WBKBWSC public --yes
    Confirmed 01KZ8N4PP1HXPX69B46WBKBWSC at public visibility.

    $ git lore status
    lessons pending: 0
    lessons confirmed (awaiting the jury): 4
    lessons approved: 0, rejected: 0, passed: 0

    $ git lore judge --all --yes
    3 confirmed lessons to judge with the offline judges; 1 private lesson to approve with no jury
    Lesson 01KZ8N4PP1HXPX69B46WBKBWSC is now rejected: not every judge passed it; its verdict stays on the ledger.
    Lesson 01KZ8N6S0TD3WMMT8DSGJX3X5G is now approved.
    Lesson 01KZ8N6S0TD3WMMT8DSGJX3X5G promoted to pool/org.
    Lesson 01KZ8NBRJD590KP5CNGK0J4VFP is now approved.
    Lesson 01KZ8NBRJD590KP5CNGK0J4VFP promoted to pool/public.
    Lesson 01KZ8NNA6DFDHWFJTPZXKCTR5N is now approved.
    Lesson 01KZ8NNA6DFDHWFJTPZXKCTR5N promoted to pool/local.
    judged: 3 lessons approved, 1 rejected

    $ git lore show 01KZ8N4PP1HXPX69B46WBKBWSC
    id:          01KZ8N4PP1HXPX69B46WBKBWSC (short: 01KZ8N4)
    status:      rejected
    visibility:  public
    artifact:    01M1J2K3M4N5P6Q7R8S9T0V1W2
    claim:       npm 10.2.4 fails with E401 against the registry mirror
    rationale:   Every install in CI failed with E401 after the runner image moved to npm 10.2.4. Scoped to exactly the versions seen (npm 10.2.4): the text states no wider range.
    resolution:  Fixed by pointing .npmrc at https://npm.corp.internal/ with a token from ops@acme-internal.com.
    stack:       npm
    scope:       npm =10.2.4
    verdict:     rejected: not every judge passed it, failed criterion: disclosure, score 0.7
    judge:       standard, failed, score 0.7: disclosure 0.0, generality 1.0, grounding 1.0, scope_accuracy 1.0
                 offline standard judge: grounding 1.00; scope_accuracy 1.00; generality 1.00; disclosure 0.00 (leaks: email in evidence.resolution, internal_host in evidence.resolution)
    judge:       adversarial, failed, score 0.7: disclosure 0.0, generality 1.0, grounding 1.0, scope_accuracy 1.0
                 offline adversarial judge: grounding 1.00; scope_accuracy 1.00; generality 1.00; disclosure 0.00 (leaks: email in evidence.resolution, internal_host in evidence.resolution)
    disclosure:  internal_host in evidence.resolution: npm.… (17 characters)
    disclosure:  email in evidence.resolution: ops@… (21 characters)

    $ git lore log 01KZ8N6S0TD3WMMT8DSGJX3X5G
    cde985eebf6d 2026-08-05T10:00:00Z ledger      promote 01KZ8N6S0TD3WMMT8DSGJX3X5G: approved, now in pool/org
        promote (stays approved); signature: good (demo@example.com)
    146f7eec92ca 2026-08-05T10:00:00Z ledger      judge 01KZ8N6S0TD3WMMT8DSGJX3X5G: approved: the jury passed it (rubric lesson-promotion, score 1)
        judge confirmed -> approved (the jury passed it); signature: good (demo@example.com)
    06af44b914be 2026-08-05T10:00:00Z ledger      confirm 01KZ8N6S0TD3WMMT8DSGJX3X5G: org visibility
        confirm pending -> confirmed; signature: good (demo@example.com)
    d56aed695535 2026-08-05T10:00:00Z ledger      propose 01KZ8N6S0TD3WMMT8DSGJX3X5G: Hydration crash in next 14.2.3 with react 18.3.1
        propose -> pending; signature: good (demo@example.com)
    dedb341479ac 2026-08-05T10:00:00Z pool/org    promote 01KZ8N6S0TD3WMMT8DSGJX3X5G into pool/org
        promote -> active; signature: good (demo@example.com)

    $ git log --all --format=%h %G? %<(16,trunc)%D %s%n        %(trailers:key=Lore-Action,key=Lore-From,key=Lore-Status,key=Lore-Reason,separator=%x2C )
    fc32756 G HEAD -> ledger   promote 01KZ8NNA6DFDHWFJTPZXKCTR5N: approved, now in pool/local
            Lore-Action: promote, Lore-From: approved, Lore-Status: approved
    0ad1b65 G pool/local       promote 01KZ8NNA6DFDHWFJTPZXKCTR5N into pool/local
            Lore-Action: promote, Lore-Status: active
    dedb341 G pool/org         promote 01KZ8N6S0TD3WMMT8DSGJX3X5G into pool/org
            Lore-Action: promote, Lore-Status: active
    9447d22 G pool/public      promote 01KZ8NBRJD590KP5CNGK0J4VFP into pool/public
            Lore-Action: promote, Lore-Status: active
    4624b41 G                  judge 01KZ8NNA6DFDHWFJTPZXKCTR5N: approved: a private lesson needs no jury
            Lore-Action: judge, Lore-From: confirmed, Lore-Status: approved, Lore-Reason: private_no_jury
    fab5105 G                  config: signers of pool/local
            Lore-Action: config, Lore-Reason: signers
    a65709a G                  config: signers of pool/org
            Lore-Action: config, Lore-Reason: signers
    f962f32 G                  config: signers of pool/public
            Lore-Action: config, Lore-Reason: signers
    edb4164 G                  promote 01KZ8NBRJD590KP5CNGK0J4VFP: approved, now in pool/public
            Lore-Action: promote, Lore-From: approved, Lore-Status: approved
    9ad9a5f G                  judge 01KZ8NBRJD590KP5CNGK0J4VFP: approved: the jury passed it (rubric lesson-promotion-public, score 1)
            Lore-Action: judge, Lore-From: confirmed, Lore-Status: approved, Lore-Reason: gate_passed
    cde985e G                  promote 01KZ8N6S0TD3WMMT8DSGJX3X5G: approved, now in pool/org
            Lore-Action: promote, Lore-From: approved, Lore-Status: approved
    146f7ee G                  judge 01KZ8N6S0TD3WMMT8DSGJX3X5G: approved: the jury passed it (rubric lesson-promotion, score 1)
            Lore-Action: judge, Lore-From: confirmed, Lore-Status: approved, Lore-Reason: gate_passed
    1db8c37 G                  promote 01KZ8N4PP1HXPX69B46WBKBWSC: rejected, kept out of the pools
            Lore-Action: promote, Lore-From: rejected, Lore-Status: rejected
    23f51b5 G                  judge 01KZ8N4PP1HXPX69B46WBKBWSC: rejected: not every judge passed it (rubric lesson-promotion-public, score 0.7)
            Lore-Action: judge, Lore-From: confirmed, Lore-Status: rejected, Lore-Reason: jury_not_unanimous
    3875661 G                  confirm 01KZ8N4PP1HXPX69B46WBKBWSC: public visibility
            Lore-Action: confirm, Lore-From: pending, Lore-Status: confirmed
    d22ed6e G                  confirm 01KZ8NNA6DFDHWFJTPZXKCTR5N: private visibility
            Lore-Action: confirm, Lore-From: pending, Lore-Status: confirmed
    43055a1 G                  confirm 01KZ8NBRJD590KP5CNGK0J4VFP: public visibility
            Lore-Action: confirm, Lore-From: pending, Lore-Status: confirmed
    06af44b G                  confirm 01KZ8N6S0TD3WMMT8DSGJX3X5G: org visibility
            Lore-Action: confirm, Lore-From: pending, Lore-Status: confirmed
    1a3baea G                  propose 01KZ8NNA6DFDHWFJTPZXKCTR5N: Vitest 4.1.9 imports vite/module-runner which is absent in Vite 5.4.21, …
            Lore-Action: propose, Lore-Status: pending
    13722e9 G                  decline 01M1EC9PM05QE97KEGDRSBN1B5: no fix in it
            Lore-Action: decline, Lore-Reason: no_resolution
    69bdc6d G                  propose 01KZ8NBRJD590KP5CNGK0J4VFP: psycopg2-binary 2.9.9 wheels segfault against openssl 3.0.13 on Alpine
            Lore-Action: propose, Lore-Status: pending
    a0e3d79 G                  propose 01KZ8N4PP1HXPX69B46WBKBWSC: npm 10.2.4 fails with E401 against the registry mirror
            Lore-Action: propose, Lore-Status: pending
    112c152 G                  decline 01M1E6PK5RMERSTXPS7B2B66N8: no package version to scope it by
            Lore-Action: decline, Lore-Reason: no_versions
    d56aed6 G                  propose 01KZ8N6S0TD3WMMT8DSGJX3X5G: Hydration crash in next 14.2.3 with react 18.3.1
            Lore-Action: propose, Lore-Status: pending
    a13e8a7 G                  init: lesson repository
            Lore-Action: init

    $ git lore verify
    verified 25 commits: every signature good, trailers and records consistent
    ");
}

/// Every command's help says what it does and shows it being used.
#[test]
fn every_command_has_an_example_in_its_help() {
    let env = TestEnv::new();
    let top = env.lore(&["--help"]).ok().to_owned();
    let commands: Vec<&str> = top
        .lines()
        .skip_while(|l| !l.starts_with("Commands:"))
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        .filter(|l| !l.starts_with("   ")) // a wrapped description
        .filter_map(|l| l.split_whitespace().next())
        .filter(|c| *c != "help")
        .collect();
    assert!(commands.len() >= 25, "{top}");
    for c in commands {
        let help = env.lore(&[c, "--help"]).ok().to_owned();
        let example = help.find("Example").map(|i| &help[i..]).unwrap_or("");
        assert!(
            example.contains(&format!("git lore {c}")),
            "`git lore {c} --help` has no example of itself:\n{help}"
        );
    }
}

/// `git lore --help` is `man git-lore`: the pages come from the same
/// definitions as `--help`, one per command, as git names its own.
#[test]
fn man_pages_and_completions_come_from_the_command_definitions() {
    let env = TestEnv::new();
    let dir = env.path().join("man/man1");
    let r = env.lore(&["generate", "man", dir.to_str().unwrap()]);
    r.assert_stderr(&format!("man pages to {}", dir.display()));
    let page = std::fs::read_to_string(dir.join("git-lore.1")).unwrap();
    assert!(page.contains(".TH git-lore 1"), "{page}");
    let ingest = std::fs::read_to_string(dir.join("git-lore-ingest.1")).unwrap();
    assert!(ingest.contains("\\-\\-redo\\-declined"), "{ingest}");
    assert!(dir.join("git-lore-trust-add.1").exists());
    assert!(
        !dir.join("git-lore-hook.1").exists(),
        "hidden commands have no page"
    );
    // git's own --help finds it.
    let out = std::process::Command::new("git")
        .args(["lore", "--help"])
        .env_clear()
        .envs(env.vars())
        .env(
            "PATH",
            format!(
                "{}:{}",
                std::path::Path::new(env!("CARGO_BIN_EXE_git-lore"))
                    .parent()
                    .unwrap()
                    .display(),
                std::env::var("PATH").unwrap()
            ),
        )
        .env("MANPATH", env.path().join("man"))
        .env("MANPAGER", "cat")
        .env("GIT_PAGER", "cat")
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("git-lore-ingest"),
        "{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let bash = env
        .lore(&["generate", "completions", "bash"])
        .ok()
        .to_owned();
    assert!(
        bash.contains("complete -F") && bash.contains("git-lore"),
        "{bash}"
    );
    assert!(bash.contains("--redo-declined"));
    // The script completes both `git-lore …` and, through git's own bash
    // completion, `git lore …`.
    let script = env.write("git-lore.bash", &bash);
    let complete = |line: &str| -> String {
        let program = format!(
            r#"source /usr/share/bash-completion/completions/git
source {}
read -ra COMP_WORDS <<< "$LINE"
COMP_CWORD=$((${{#COMP_WORDS[@]}}-1)); COMP_LINE="$LINE"; COMP_POINT=${{#LINE}}
if [[ "$LINE" == git-lore* ]]; then _git__lore git-lore "${{COMP_WORDS[COMP_CWORD]}}" "${{COMP_WORDS[COMP_CWORD-1]}}"
else __git_wrap__git_main; fi
echo "${{COMPREPLY[*]}}""#,
            script.display()
        );
        let out = std::process::Command::new("bash")
            .args(["-c", &program])
            .env("LINE", line)
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout).trim().to_owned()
    };
    assert_eq!(complete("git lore li"), "list");
    assert_eq!(complete("git lore list --st"), "--status");
    assert_eq!(complete("git lore trust a"), "add ack");
    assert_eq!(complete("git-lore list --st"), "--status");
    let r = env.lore(&["generate", "completions", "tcsh"]);
    r.assert_refused("invalid value 'tcsh'");
}

/// `git lore generate man` with no directory writes the pages beside the
/// directory git-lore is installed in on PATH, where man-db's manpath
/// looks for them, and `git lore --help` (git runs `man git-lore`) then
/// shows the page: no MANPATH, nothing else to set.
#[test]
fn generate_man_installs_where_man_looks_and_git_lore_help_shows_it() {
    let env = TestEnv::new();
    // Installed as `cargo install` would: a git-lore in a bin directory on
    // PATH (TestEnv's `bin`, first on PATH).
    let bin = env.path().join("bin");
    std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_git-lore"), bin.join("git-lore")).unwrap();
    let help = || {
        let out = std::process::Command::new("git")
            .args(["lore", "--help"])
            .env_clear()
            .envs(env.vars())
            .env("MANPAGER", "cat")
            .env("GIT_PAGER", "cat")
            .current_dir(env.path())
            .output()
            .unwrap();
        crate::common::Run::from(out)
    };
    // Before: man has no page for it.
    let before = help();
    assert_ne!(before.code, 0, "{}", before.stdout);
    before.assert_stderr("No manual entry for git-lore");

    let r = env.lore(&["generate", "man"]);
    r.ok();
    let pages = env.path().join("share/man/man1");
    r.assert_stderr(&format!(
        "man pages to {}, where `man git-lore` (and `git lore --help`) looks for the git-lore in {}",
        pages.display(),
        bin.display()
    ));
    assert!(!r.stderr.contains("note:"), "{}", r.stderr);
    assert!(pages.join("git-lore.1").is_file());
    assert!(pages.join("git-lore-ingest.1").is_file());

    let after = help();
    assert_eq!(after.code, 0, "{}", after.stderr);
    after.assert_stdout("git-lore-ingest");

    // A MANPATH that replaces the derived path is named, with the fix.
    let mut c = env.lore_cmd(&["generate", "man"]);
    c.env("MANPATH", "/usr/share/man");
    let r = crate::common::Run::from(c.output().unwrap());
    r.ok();
    r.assert_stderr(&format!(
        "note: MANPATH is set, so `man` reads only the directories it names: add {} to it",
        env.path().join("share/man").display()
    ));
}

/// The README's tour, exactly as written, on a fresh machine: no model, no
/// terminal, a new HOME and the default repository location.
#[test]
fn the_readme_tour_works_as_written() {
    let env = TestEnv::new();
    let readme = include_str!("../../README.md");
    let tour = readme
        .split("## A short tour")
        .nth(1)
        .and_then(|s| s.split("```sh\n").nth(1))
        .and_then(|s| s.split("```").next())
        .expect("the README has a tour");
    assert!(
        tour.starts_with("cargo install --locked --path .\n"),
        "{tour}"
    );
    // `cargo install` puts the binary on PATH as git-lore: so does this.
    let bin = env.path().join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_git-lore"), bin.join("git-lore")).unwrap();
    // A clone of this repository: the tour's example transcript in place.
    let clone = env.path().join("clone");
    std::fs::create_dir_all(clone.join("examples/transcripts")).unwrap();
    std::fs::copy(
        concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/examples/transcripts/version-mismatch.jsonl"
        ),
        clone.join("examples/transcripts/version-mismatch.jsonl"),
    )
    .unwrap();
    let script = format!(
        "set -euo pipefail\n{}",
        tour.replacen("cargo install --locked --path .\n", "", 1)
    );
    let out = std::process::Command::new("bash")
        .args(["-c", &script])
        .current_dir(&clone)
        .env_clear()
        .envs(
            env.vars()
                .into_iter()
                .filter(|(k, _)| k != "GIT_LORE_REPO" && k != "GIT_LORE_RANDOMNESS_SEED"),
        )
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    assert!(out.status.success(), "stdout:\n{stdout}\nstderr:\n{stderr}");
    let repo = env.home().join(".local/share/git-lore/lessons.git");
    assert!(repo.join("HEAD").exists(), "the default location");
    assert!(
        stdout
            .lines()
            .any(|l| l.starts_with("Edited ") && l.ends_with(": scope.")),
        "the tour's edit:\n{stdout}"
    );
    assert!(stdout.contains("is now approved."), "{stdout}");
    assert!(stdout.contains("promoted to pool/org."), "{stdout}");
    // recall prints the lesson, scoped by the ranges the session's
    // evidence supports (vite <6), and the tour narrowed (vitest >=4 <5).
    assert!(
        stdout.contains(
            "vitest 4.0+ requires vite 6.0 or newer; with vite 5.4.21 pin vitest to 3.2.4"
        ),
        "recall shows the lesson:\n{stdout}"
    );
    assert!(
        stdout.lines().any(|l| l.starts_with("verified ")
            && l.ends_with(": every signature good, trailers and records consistent")),
        "the tour's verify line:\n{stdout}"
    );
    // The tour's repository sits at the default location, outside what
    // TestEnv checks when it is dropped.
    env.assert_fsck_at(&repo);
    let settings = std::fs::read_to_string(clone.join(".claude/settings.json")).unwrap();
    assert!(
        settings.contains("SessionStart") && settings.contains("SessionEnd"),
        "{settings}"
    );
}
