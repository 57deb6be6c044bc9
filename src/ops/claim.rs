//! Claims: "this run is asking a model about X right now", one file per X
//! under `<gitdir>/lore/claims/`, so overlapping runs (two sessions ending
//! at once, a hook and a person) make one model call per artifact instead
//! of one each.
//!
//! A claim is created atomically (`O_CREAT|O_EXCL`): exactly one run gets
//! it. It is short-lived: the holder rewrites it while it works, removes it
//! when its outcome is written (or when it gave up), and a claim nobody
//! rewrote for [`Claims::ttl`] has lapsed (its run crashed or hung) and may
//! be taken over. Its age is measured with the file system's own clock —
//! against a probe file this run wrote — so the library reads no clock and
//! machines whose clocks disagree with a network file system still agree
//! on the age.
//!
//! A claim only saves model calls; it never decides an outcome. "One outcome
//! per artifact" is the ledger transaction's (it re-checks history at the
//! tip it lands on), so a claim lost to a crash or a race costs at most one
//! repeated model call, never a second record.
//!
//! This module owns the claim files and nothing else: it never prints,
//! reads the environment or touches git.

use std::collections::HashMap;
use std::fs::{self, OpenOptions};
use std::io::{ErrorKind, Write};
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime};

/// What [`Claims::take`] found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Take {
    /// This run holds the claim now.
    Taken,
    /// Another run holds a live claim: leave the work to it.
    HeldElsewhere,
}

/// Why claims cannot be used (the caller goes on without them: a claim
/// only saves model calls).
#[derive(Debug, thiserror::Error)]
pub enum ClaimError {
    #[error("claim {path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{0:?} cannot name a claim")]
    BadKey(String),
}

/// The claims one run holds, in one directory. Dropping it releases every
/// claim it still holds.
#[derive(Debug)]
pub struct Claims {
    dir: PathBuf,
    /// Written into each claim file: which run holds it.
    token: String,
    ttl: Duration,
    /// The probe's modification time, on the file system's clock, and when
    /// (monotonic) it was written: "now" on that clock is their sum.
    probe: (SystemTime, Instant),
    probe_path: PathBuf,
    held: HashMap<String, PathBuf>,
    refreshed: Instant,
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> ClaimError + '_ {
    move |source| ClaimError::Io {
        path: path.to_owned(),
        source,
    }
}

/// A key is a file name: letters, digits, `-` and `_`, at most 100.
fn check_key(key: &str) -> Result<(), ClaimError> {
    let ok = !key.is_empty()
        && key.len() <= 100
        && key
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
    if ok {
        Ok(())
    } else {
        Err(ClaimError::BadKey(key.to_owned()))
    }
}

impl Claims {
    /// Claims in `dir` (created if missing, 0700) for a run named `token`
    /// (unique per run: a process id and random bits); a claim not rewritten
    /// for `ttl` has lapsed.
    pub fn open(dir: &Path, token: &str, ttl: Duration) -> Result<Claims, ClaimError> {
        fs::create_dir_all(dir).map_err(io(dir))?;
        let probe_path = dir.join(format!(".probe-{token}"));
        let probe = write_file(&probe_path, token.as_bytes(), false).map_err(io(&probe_path))?;
        Ok(Claims {
            dir: dir.to_owned(),
            token: token.to_owned(),
            ttl,
            probe: (probe, Instant::now()),
            probe_path,
            held: HashMap::new(),
            refreshed: Instant::now(),
        })
    }

    /// How long a claim lives without being rewritten.
    pub fn ttl(&self) -> Duration {
        self.ttl
    }

    /// "Now" on the file system's clock.
    fn now(&self) -> SystemTime {
        self.probe.0 + self.probe.1.elapsed()
    }

    /// Whether this run holds `key`.
    pub fn holds(&self, key: &str) -> bool {
        self.held.contains_key(key)
    }

    /// Takes the claim on `key` unless another run holds a live one. A
    /// lapsed claim is moved aside and taken over.
    pub fn take(&mut self, key: &str) -> Result<Take, ClaimError> {
        check_key(key)?;
        if self.holds(key) {
            return Ok(Take::Taken);
        }
        let path = self.dir.join(key);
        for _ in 0..4 {
            match write_file(&path, self.token.as_bytes(), true) {
                Ok(_) => {
                    self.held.insert(key.to_owned(), path);
                    return Ok(Take::Taken);
                }
                Err(e) if e.kind() == ErrorKind::AlreadyExists => {}
                Err(e) => return Err(io(&path)(e)),
            }
            let meta = match fs::metadata(&path) {
                Ok(m) => m,
                Err(e) if e.kind() == ErrorKind::NotFound => continue, // just released
                Err(e) => return Err(io(&path)(e)),
            };
            let written = meta.modified().map_err(io(&path))?;
            let age = self.now().duration_since(written).unwrap_or_default();
            if age < self.ttl {
                return Ok(Take::HeldElsewhere);
            }
            // Lapsed. Move it aside under a name of our own (one mover
            // wins), and check that what moved is the file judged lapsed,
            // not a fresh claim made since by a faster contender.
            let aside = self.dir.join(format!(".lapsed-{key}-{}", self.token));
            match fs::rename(&path, &aside) {
                Ok(()) => {}
                Err(e) if e.kind() == ErrorKind::NotFound => continue,
                Err(e) => return Err(io(&path)(e)),
            }
            let moved = fs::metadata(&aside).map_err(io(&aside))?;
            if moved.ino() != meta.ino() || moved.dev() != meta.dev() {
                // A live claim: put it back (unless yet another run claimed
                // meanwhile) and leave the work to its holder.
                let _ = fs::hard_link(&aside, &path);
                let _ = fs::remove_file(&aside);
                return Ok(Take::HeldElsewhere);
            }
            let _ = fs::remove_file(&aside);
        }
        Ok(Take::HeldElsewhere)
    }

    /// Rewrites every claim held, when a quarter of the lifetime has passed
    /// since the last time, so that a long run's claims never lapse.
    pub fn keep_alive(&mut self) {
        if self.refreshed.elapsed() < self.ttl / 4 {
            return;
        }
        for path in self.held.values() {
            if owned_by(path, &self.token) {
                let _ = write_file(path, self.token.as_bytes(), false);
            }
        }
        self.refreshed = Instant::now();
    }

    /// Gives up the claim on `key`: removed if it is still ours.
    pub fn release(&mut self, key: &str) {
        if let Some(path) = self.held.remove(key) {
            if owned_by(&path, &self.token) {
                let _ = fs::remove_file(&path);
            }
        }
    }
}

impl Drop for Claims {
    fn drop(&mut self) {
        let keys: Vec<String> = self.held.keys().cloned().collect();
        for k in keys {
            self.release(&k);
        }
        let _ = fs::remove_file(&self.probe_path);
    }
}

/// Whether the claim file at `path` names `token`.
fn owned_by(path: &Path, token: &str) -> bool {
    fs::read(path).is_ok_and(|b| b == token.as_bytes())
}

/// Writes `bytes` to `path` (0600), exclusively if `new`; returns the file's
/// modification time.
fn write_file(path: &Path, bytes: &[u8], new: bool) -> std::io::Result<SystemTime> {
    let mut o = OpenOptions::new();
    o.write(true).mode(0o600);
    if new {
        o.create_new(true);
    } else {
        o.create(true).truncate(true);
    }
    let mut f = o.open(path)?;
    f.write_all(bytes)?;
    f.metadata()?.modified()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn claims(dir: &Path, token: &str, ttl_ms: u64) -> Claims {
        Claims::open(dir, token, Duration::from_millis(ttl_ms)).unwrap()
    }

    #[test]
    fn one_run_gets_a_claim_until_it_releases_it() {
        let d = tempfile::tempdir().unwrap();
        let mut a = claims(d.path(), "a", 60_000);
        let mut b = claims(d.path(), "b", 60_000);
        assert_eq!(a.take("ART").unwrap(), Take::Taken);
        assert_eq!(a.take("ART").unwrap(), Take::Taken, "a holds it already");
        assert_eq!(b.take("ART").unwrap(), Take::HeldElsewhere);
        assert_eq!(b.take("OTHER").unwrap(), Take::Taken);
        a.release("ART");
        assert!(!d.path().join("ART").exists());
        assert_eq!(b.take("ART").unwrap(), Take::Taken);
        // a released it and cannot remove b's claim by releasing again.
        a.release("ART");
        assert!(d.path().join("ART").exists());
        drop(b);
        assert!(!d.path().join("ART").exists(), "dropping releases");
        assert!(!d.path().join("OTHER").exists());
        assert_eq!(
            fs::read_dir(d.path()).unwrap().count(),
            1,
            "only a's probe is left"
        );
    }

    #[test]
    fn a_claim_nobody_rewrote_lapses_and_is_taken_over() {
        let d = tempfile::tempdir().unwrap();
        let mut crashed = claims(d.path(), "crashed", 100);
        assert_eq!(crashed.take("ART").unwrap(), Take::Taken);
        std::mem::forget(crashed); // a crash: nothing released
        let mut b = claims(d.path(), "b", 100);
        assert_eq!(b.take("ART").unwrap(), Take::HeldElsewhere, "still live");
        std::thread::sleep(Duration::from_millis(250));
        assert_eq!(b.take("ART").unwrap(), Take::Taken, "lapsed");
        assert_eq!(fs::read(d.path().join("ART")).unwrap(), b"b");
        let mut c = claims(d.path(), "c", 60_000);
        assert_eq!(c.take("ART").unwrap(), Take::HeldElsewhere);
    }

    #[test]
    fn keys_are_file_names() {
        let d = tempfile::tempdir().unwrap();
        let mut a = claims(d.path(), "a", 1000);
        for bad in ["", "../x", "a/b", ".hidden", "x y"] {
            assert!(matches!(a.take(bad), Err(ClaimError::BadKey(_))), "{bad}");
        }
    }
}
