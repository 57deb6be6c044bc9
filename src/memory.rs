//! Giving the allocator's free memory back to the system, between the
//! chunks of a batch.
//!
//! A batch ingest frees most of what a chunk held once the chunk is
//! written, and glibc's malloc keeps freed memory mapped for reuse: the
//! main arena gives back only what lies at its top, past a threshold that
//! grows with the largest block it has seen, and the arena of the thread
//! that determines the next chunk gives back almost nothing. What it keeps
//! counts in the process's resident memory until the end of the run.
//! `malloc_trim(0)` returns every free page of every arena (docs/PERFORMANCE.md,
//! "Issue 24, seventh round").
//!
//! This module only asks the allocator; it owns no data. Elsewhere than
//! glibc it does nothing.

/// Returns the free pages of every arena to the system.
pub fn release_free() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: `malloc_trim` works on the allocator's own free lists, under
    // each arena's lock; it is safe to call from any thread at any time.
    unsafe {
        libc::malloc_trim(0);
    }
}
