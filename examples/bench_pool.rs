//! Builds what the recall benchmark measures against: a lesson repository
//! whose `pool/org` holds N synthetic lessons, written through git-lore's
//! own signed write path (one `promote` commit per lesson, a thousand or more per
//! transaction), and a project directory whose `package-lock.json` lists
//! 2,000 packages.
//!
//! ```text
//! cargo run --release --example bench_pool -- REPO PROJECT N [RELEVANT]
//! ```
//!
//! Lessons name one or two packages out of 50,000; 2,000 of those names
//! are installed, so about one lesson in twenty-five names an installed
//! package and fewer apply. With RELEVANT, only the first RELEVANT lessons
//! are drawn that way (the same lessons a pool of RELEVANT gets) and the
//! rest name only packages that are not installed. Everything is
//! deterministic. With START, the lessons START..START+N are added to the
//! pool another run made (for timing a sync of new commits into a large
//! pool). With `BENCH_POOL_TIER=local` in the environment the lessons are
//! private ones on `pool/local` instead (for timing the pre-push guard
//! against many private records); with `BENCH_POOL_TIER=public`, public
//! ones on `pool/public` (for timing a host's pull requests).

use std::collections::BTreeMap;
use std::path::PathBuf;

use git_lore::event::{ConfigTopic, Event};
use git_lore::model::{
    canonical_json, AppliesTo, Consensus, Evidence, Id, Lesson, LessonStatus, Scope, Source,
    Visibility,
};
use git_lore::ops::{Env, Lore};
use git_lore::store::{layout, Branch, Change, CommitSpec};
use rand::SeedableRng;

const UNIVERSE: u64 = 50_000;
const INSTALLED: usize = 2_000;
/// Lessons per transaction on a small pool; on a larger one an eighth of
/// what the pool holds, at most [`PER_TRANSACTION_MAX`], as the offline
/// ingest does (`ops::ingest::offline_chunk`): each transaction's pack
/// stores the fan-out trees it touches whole, and at a million lessons a
/// thousand per transaction would be a thousand packs of them.
const PER_TRANSACTION: usize = 1_000;
const PER_TRANSACTION_MAX: usize = 16_384;

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// Package `i` of the universe; the first [`INSTALLED`] are installed.
fn name(i: u64) -> String {
    format!("pkg-{i:05}")
}

fn version(i: u64) -> String {
    format!("{}.{}.{}", 1 + i % 9, (i * 7) % 23, (i * 13) % 31)
}

fn package_lock() -> String {
    let mut packages = serde_json::Map::new();
    packages.insert(
        String::new(),
        serde_json::json!({"name": "bench-app", "version": "1.0.0"}),
    );
    for i in 0..INSTALLED as u64 {
        packages.insert(
            format!("node_modules/{}", name(i)),
            serde_json::json!({
                "version": version(i),
                "resolved": format!("https://registry.npmjs.org/{0}/-/{0}-{1}.tgz", name(i), version(i)),
                "integrity": "sha512-o5a9xKjbtuhY6Bi5S3+HvbRERmouabWbyUcpXXUA1u+GNUKoROi9byOJ8M0nHbHYHkYICiMlqxkg1KkYmm25Sw==",
                "license": "MIT",
            }),
        );
    }
    serde_json::to_string_pretty(&serde_json::json!({
        "name": "bench-app", "version": "1.0.0", "lockfileVersion": 3, "requires": true,
        "packages": packages,
    }))
    .expect("JSON")
}

/// Lesson `n`. When `n` is `relevant` or more, it names only packages that
/// are not installed: the pool grows without the project's share growing.
fn lesson(n: u64, relevant: u64, tier: Source, rng: &mut Rng) -> Lesson {
    let keys = 1 + rng.below(2);
    let mut versions = BTreeMap::new();
    let mut stack = Vec::new();
    for _ in 0..keys {
        let mut k = rng.below(UNIVERSE);
        if n >= relevant && k < INSTALLED as u64 {
            k += INSTALLED as u64;
        }
        let major = 1 + rng.below(9);
        let range = if rng.below(2) == 0 {
            format!("<{major}")
        } else {
            format!(">={major} <{}", major + 2)
        };
        versions.insert(name(k), range);
        stack.push(name(k));
    }
    stack.sort();
    stack.dedup();
    // The random part spread over all 80 bits: ids fan out like real ones.
    let id = Id::from_parts(
        1_790_000_000_000 + n,
        (u128::from(n).wrapping_mul(0x9E37_79B9_7F4A_7C15_F39C_C060_5CED_C835)) >> 48,
    );
    Lesson {
        id,
        schema_version: 2,
        claim: format!(
            "Synthetic lesson {n}: {} misbehaves in this range",
            stack.join(" and ")
        ),
        rationale: "Generated for the recall benchmark.".into(),
        evidence: Evidence {
            artifact_ids: vec![id],
            session_ids: vec![format!("bench-{n}")],
            project_key: "000000000000".into(),
            observed_at: "2026-09-01T00:00:00Z".into(),
            resolution: format!("Pin {} outside the range.", stack[0]),
        },
        applies_to: AppliesTo {
            stack,
            scope: Scope::Versioned { versions },
            file_patterns: Vec::new(),
            task_kinds: Vec::new(),
        },
        visibility: visibility(tier),
        // A private lesson has no jury.
        consensus: Consensus {
            judges: if tier == Source::Local { 0 } else { 2 },
            agreed: if tier == Source::Local { 0 } else { 2 },
            decided_at: "2026-09-01T00:00:00Z".into(),
        },
        status: LessonStatus::Active,
        superseded_by: None,
        source: tier,
        author_key: "0".repeat(32),
        promoted_at: "2026-09-01T00:00:00Z".into(),
    }
}

fn visibility(tier: Source) -> Visibility {
    match tier {
        Source::Local => Visibility::Private,
        Source::Org => Visibility::Org,
        Source::Public => Visibility::Public,
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let (repo, project, n, relevant, start) = match &args[..] {
        [_, repo, project, n] => (repo, project, n, None, None),
        [_, repo, project, n, relevant] => (repo, project, n, Some(relevant), None),
        [_, repo, project, n, relevant, start] => (repo, project, n, Some(relevant), Some(start)),
        _ => {
            eprintln!("usage: bench_pool REPO PROJECT N [RELEVANT [START]]");
            std::process::exit(1);
        }
    };
    let n: u64 = n.parse().expect("N is a number");
    let relevant: u64 = relevant.map_or(n, |r| r.parse().expect("RELEVANT is a number"));
    // Lessons START.. are added to an existing pool (another run's).
    let start: u64 = start.map_or(0, |s| s.parse().expect("START is a number"));
    std::fs::create_dir_all(project).expect("project directory");
    std::fs::write(
        PathBuf::from(project).join("package-lock.json"),
        package_lock(),
    )
    .expect("package-lock.json");

    let now: jiff::Timestamp = "2026-09-01T00:00:00Z".parse().unwrap();
    let env = Env::new(
        now,
        std::env::var_os("HOME").map(PathBuf::from),
        std::env::vars().collect(),
    );
    let mut lore = Lore::open(
        std::path::Path::new(repo),
        env,
        rand::rngs::StdRng::seed_from_u64(1),
    )
    .expect("a lesson repository (git lore init)");
    let signers =
        std::fs::read(PathBuf::from(repo).join("allowed_signers")).expect("allowed_signers");
    let tier = match std::env::var("BENCH_POOL_TIER").as_deref() {
        Ok("local") => Source::Local,
        Ok("public") => Source::Public,
        _ => Source::Org,
    };
    let pool = Branch::Pool(tier);
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let mut next = start;
    let end = start + n;
    while next < end {
        let per = (next as usize / 8).clamp(PER_TRANSACTION, PER_TRANSACTION_MAX);
        let batch: Vec<Lesson> = (next..(next + per as u64).min(end))
            .map(|i| lesson(i, relevant, tier, &mut rng))
            .collect();
        next += batch.len() as u64;
        lore.transact(pool, |tx| {
            if tx.base().is_none() && tx.commits().is_empty() {
                tx.commit(CommitSpec::new(
                    &format!("config: signers of {pool}"),
                    None,
                    Event::Config {
                        topic: ConfigTopic::Signers,
                    },
                    vec![Change::Put {
                        path: layout::POOL_ALLOWED_SIGNERS.into(),
                        bytes: signers.clone(),
                    }],
                )?)?;
            }
            for l in &batch {
                tx.commit(CommitSpec::new(
                    &format!("promote {} into {pool}", l.id),
                    None,
                    Event::Promote {
                        lesson: l.id,
                        artifact: l.id,
                        visibility: visibility(tier),
                        pool: tier,
                    },
                    vec![Change::Put {
                        path: layout::lesson_path(l.id),
                        bytes: canonical_json(l),
                    }],
                )?)?;
            }
            Ok(())
        })
        .expect("writing the pool");
    }
    eprintln!("{pool}: {n} lessons; {project}/package-lock.json: {INSTALLED} packages");
}
