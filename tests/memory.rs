//! Memory that must not grow with the input: capture reads a 50 MB
//! transcript in bounded memory, and ingest takes a stream of any length
//! holding at most a chunk of it.
//!
//! A test binary of its own, because it measures the heap with a counting
//! global allocator: inputs are generated at test time (never committed),
//! then read the way the commands read them, and the peak of live heap
//! bytes is compared with the caps.

use std::alloc::{GlobalAlloc, Layout, System};
use std::fs::File;
use std::io::{BufWriter, Write};
use std::sync::atomic::{AtomicUsize, Ordering};

use git_lore::ops::backend::Backend;
use git_lore::ops::{ingest, Env, Lore};
use git_lore::pipeline::capture::transcript::synthetic_line;
use git_lore::pipeline::capture::{offline, prompt, read_transcript, read_transcript_tail, Limits};
use git_lore::pipeline::Item;

struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

// SAFETY: every call is forwarded to the system allocator unchanged; the
// counters only observe sizes.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            let now = LIVE.fetch_add(layout.size(), Ordering::Relaxed) + layout.size();
            PEAK.fetch_max(now, Ordering::Relaxed);
        }
        p
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) };
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            if new_size >= layout.size() {
                let now = LIVE.fetch_add(new_size - layout.size(), Ordering::Relaxed)
                    + (new_size - layout.size());
                PEAK.fetch_max(now, Ordering::Relaxed);
            } else {
                LIVE.fetch_sub(layout.size() - new_size, Ordering::Relaxed);
            }
        }
        p
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

const MIB: usize = 1 << 20;

/// The counters are the process's: one test measures at a time.
static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// The peak of live heap bytes above what was live before, while `f` runs.
fn peak_during<T>(f: impl FnOnce() -> T) -> (T, usize) {
    let base = LIVE.load(Ordering::Relaxed);
    PEAK.store(base, Ordering::Relaxed);
    let out = f();
    (out, PEAK.load(Ordering::Relaxed) - base)
}

#[test]
fn a_fifty_megabyte_transcript_is_read_in_bounded_memory() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("big.jsonl");
    let mut out = BufWriter::new(File::create(&path).unwrap());
    let mut written = 0usize;
    let mut n = 0;
    while written < 50_000_000 {
        let l = synthetic_line(n);
        out.write_all(l.as_bytes()).unwrap();
        out.write_all(b"\n").unwrap();
        written += l.len() + 1;
        n += 1;
    }
    out.flush().unwrap();
    drop(out);
    let size = std::fs::metadata(&path).unwrap().len();
    assert!(size >= 50_000_000);

    // As the hook and --transcript read it: the newest 32 MiB.
    let (t, peak) = peak_during(|| {
        read_transcript_tail(File::open(&path).unwrap(), Limits::default()).unwrap()
    });
    assert!(t.skipped_head_bytes >= size - (32 << 20));
    let last = (0..n).rev().find(|i| i % 500 != 499).unwrap();
    assert_eq!(
        t.events.last().map(|e| e.uuid.as_str()),
        Some(format!("g{last:09}").as_str()),
        "the tail reaches the end (an image line is skipped)"
    );
    let notes: Vec<String> = t.notes().iter().map(ToString::to_string).collect();
    assert!(
        notes.iter().any(|m| m
            .starts_with("the transcript is over the 32 MiB cap: only its last 32 MiB were read")),
        "{notes:?}"
    );
    eprintln!("tail read: peak {} KiB", peak >> 10);
    assert!(
        peak < 32 * MIB,
        "reading a {size}-byte transcript peaked at {} MiB of heap",
        peak / MIB
    );

    // The rule tables (resolver patterns, the scanner's rules and
    // confusables) are built once per process on first use; that cost does
    // not follow the file, so it is paid on a small transcript first and
    // bounded on its own.
    let small_path = dir.path().join("small.jsonl");
    std::fs::write(
        &small_path,
        (0..8).map(|i| synthetic_line(i) + "\n").collect::<String>(),
    )
    .unwrap();
    let small_t = read_transcript(File::open(&small_path).unwrap(), Limits::default()).unwrap();
    let (_, tables) = peak_during(|| {
        (
            offline::moments(&small_t),
            prompt::excerpt(&small_t, prompt::MAX_EXCERPT_CHARS),
        )
    });
    eprintln!("capture's tables, once: peak {} KiB", tables >> 10);
    assert!(
        tables < 16 * MIB,
        "capture's tables took {} MiB",
        tables / MIB
    );

    // Capture on top of it stays within that too.
    let ((found, ex), peak) = peak_during(|| {
        (
            offline::moments(&t),
            prompt::excerpt(&t, prompt::MAX_EXCERPT_CHARS),
        )
    });
    assert!(!found.is_empty());
    assert!(ex.omitted > 0);
    eprintln!("capture: peak {} KiB", peak >> 10);
    assert!(peak < 4 * MIB, "capture peaked at {} MiB", peak / MIB);
    drop(t);

    // A small cap: memory follows the cap, not the file.
    let small = Limits {
        max_total_bytes: 4 << 20,
        ..Limits::default()
    };
    let (t, peak) = peak_during(|| read_transcript(File::open(&path).unwrap(), small).unwrap());
    assert!(t.truncated);
    eprintln!("4 MiB cap: peak {} KiB", peak >> 10);
    assert!(
        peak < 8 * MIB,
        "a 4 MiB cap peaked at {} MiB of heap",
        peak / MIB
    );
}

/// An artifact as ingest reads it: `n` names a version (the offline backend
/// proposes it) or, with `versioned` false, none (the pre-gate skips it).
fn item(n: u32, versioned: bool) -> Item {
    let summary = if versioned {
        format!("widget{n} 1.{n}.0 crashes on start")
    } else {
        format!("the widget{n} loader crashes on start")
    };
    let json = serde_json::json!({
        "id": ulid(n), "kind": "decision", "project_key": "6a7678979e31", "source": "local",
        "created_at": "2026-08-03T15:59:48Z", "updated_at": "2026-08-03T15:59:48Z",
        "summary": summary,
        "detail": "The loader rejects the config file on boot. Fixed by setting the timeout to 30 in config.yml.",
        "files": [], "session_id": "sess-1", "trigger": "auto"
    });
    Item {
        source: format!("stream:{n}"),
        artifact: Ok(serde_json::from_value(json).unwrap()),
    }
}

/// A ULID for item `n`.
fn ulid(n: u32) -> String {
    const A: &[u8; 32] = b"0123456789ABCDEFGHJKMNPQRSTVWXYZ";
    let mut v = (0x0190_u128 << 112) | (7u128 << 72) | n as u128;
    let mut out = [b'0'; 26];
    for i in (0..26).rev() {
        out[i] = A[(v & 31) as usize];
        v >>= 5;
    }
    String::from_utf8(out.to_vec()).unwrap()
}

/// Ingest holds neither the stream nor a record per item: a run over four
/// times as many items peaks at about the same heap. The items are a few
/// artifacts the offline backend proposes among thousands the pre-gate
/// skips, so that what waits to be told piles up behind a determination
/// not yet written — the case the bound on waiting items is for.
#[test]
fn ingest_of_a_long_stream_holds_a_bounded_part_of_it() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let dir = tempfile::tempdir().unwrap();
    let repo = dir.path().join("lessons.git");
    let home = dir.path().join("home");
    std::fs::create_dir_all(&home).unwrap();
    let vars = [
        ("PATH", std::env::var("PATH").unwrap_or_default()),
        ("HOME", home.display().to_string()),
        ("GIT_CONFIG_NOSYSTEM", "1".into()),
        ("GIT_CONFIG_GLOBAL", "/dev/null".into()),
        ("LC_ALL", "C".into()),
    ];
    let init = std::process::Command::new(env!("CARGO_BIN_EXE_git-lore"))
        .args(["--repo", repo.to_str().unwrap(), "init"])
        .env_clear()
        .envs(vars.iter().map(|(k, v)| (*k, v.as_str())))
        .output()
        .unwrap();
    assert!(init.status.success(), "{init:?}");
    let now: jiff::Timestamp = "2026-08-04T10:00:00Z".parse().unwrap();
    let child_env = vars
        .iter()
        .map(|(k, v)| (k.to_string(), v.clone()))
        .collect();
    let mut lore = Lore::open(
        &repo,
        Env::new(now, Some(home), child_env),
        rand::SeedableRng::seed_from_u64(1),
    )
    .unwrap();

    let mut run = |from: u32, n: u32| {
        let items = (from..from + n).map(|i| item(i, i % 1000 == 0));
        let mut told = 0u32;
        let (report, peak) = peak_during(|| {
            ingest::ingest(&mut lore, items, &Backend::Offline, &mut |_, source| {
                // In input order, through every early write.
                assert_eq!(source, Some(format!("stream:{}", from + told).as_str()));
                told += 1;
            })
            .unwrap()
        });
        assert!(report.error.is_none(), "{:?}", report.error);
        assert_eq!(told, n, "every item told once");
        assert_eq!(report.tally.proposed as u32, n.div_ceil(1000));
        assert_eq!(report.tally.skipped as u32, n - n.div_ceil(1000));
        peak
    };
    let small = run(0, 20_000);
    let large = run(1_000_000, 80_000);
    eprintln!(
        "ingest: peak {} KiB for 20,000 items, {} KiB for 80,000",
        small >> 10,
        large >> 10
    );
    assert!(
        large < small + small / 2,
        "four times the items peaked at {} KiB against {} KiB",
        large >> 10,
        small >> 10
    );
}
