//! Capture reads a 50 MB transcript in bounded memory.
//!
//! A test binary of its own, because it measures the heap with a counting
//! global allocator: the file is generated at test time into a temporary
//! directory (never committed), then read the way `git lore capture` reads
//! it, and the peak of live heap bytes during the read is compared with the
//! caps. Reading the file whole would need more than its 50 MB.

use std::alloc::{GlobalAlloc, Layout, System};
use std::fs::File;
use std::io::{BufWriter, Write};
use std::sync::atomic::{AtomicUsize, Ordering};

use git_lore::pipeline::capture::transcript::synthetic_line;
use git_lore::pipeline::capture::{offline, prompt, read_transcript, read_transcript_tail, Limits};

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

/// The peak of live heap bytes above what was live before, while `f` runs.
fn peak_during<T>(f: impl FnOnce() -> T) -> (T, usize) {
    let base = LIVE.load(Ordering::Relaxed);
    PEAK.store(base, Ordering::Relaxed);
    let out = f();
    (out, PEAK.load(Ordering::Relaxed) - base)
}

#[test]
fn a_fifty_megabyte_transcript_is_read_in_bounded_memory() {
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
    assert!(peak < 8 * MIB, "capture peaked at {} MiB", peak / MIB);
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
