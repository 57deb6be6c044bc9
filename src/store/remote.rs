//! Talking to another repository: fetching one pool branch into a
//! quarantine ref, pushing with a lease, and the `remote.<name>.*` config
//! that names a tier's remote.
//!
//! gix does not push, so both directions run the `git` program, the way a
//! user would: from an argv (no shell), in a new session so that ssh or a
//! credential helper can never prompt, with `GIT_TERMINAL_PROMPT=0`, a hard
//! timeout, and bounded output. What the remote sends is only ever written
//! under a ref the caller names; nothing here decides whether it can be
//! trusted (that is `crate::ops::sync`'s job, before anything builds on it).

use std::time::Duration;

use gix::ObjectId;

use super::tx::{Expect, SwapError};
use super::{GixContext, Store, StoreError};
use crate::process::{self, Invocation};

/// Most of a `git` transfer's output kept for messages.
const MAX_OUTPUT: usize = 256 << 10;

/// What fetching one branch gave.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Fetched {
    /// The branch, now at this commit under the destination ref.
    At(ObjectId),
    /// The remote has no such branch.
    Missing,
}

/// What a push gave.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Pushed {
    /// Every ref was updated (or already there).
    Done,
    /// A ref at the remote was not where the lease expected: someone pushed
    /// meanwhile. Nothing was updated (`--atomic`).
    Stale,
    /// The remote refused (its pre-receive hook, a protected branch); the
    /// lines it gave, `remote: ` prefixes removed.
    Refused { lines: Vec<String> },
}

impl Store {
    fn run_transfer(
        &self,
        args: &[String],
        timeout: Duration,
    ) -> Result<process::Finished, StoreError> {
        let mut argv = vec![
            self.host.git_program.clone(),
            "--git-dir".to_owned(),
            self.git_dir.to_string_lossy().into_owned(),
        ];
        argv.extend(args.iter().cloned());
        let mut env: Vec<(String, String)> = self
            .host
            .git_env
            .iter()
            .filter(|(k, _)| k != "GIT_TERMINAL_PROMPT")
            .cloned()
            .collect();
        env.push(("GIT_TERMINAL_PROMPT".into(), "0".into()));
        let inv = Invocation {
            argv,
            env,
            cwd: None,
            timeout,
            max_output: MAX_OUTPUT,
            new_session: true,
        };
        process::run(&inv, b"").map_err(|source| StoreError::RunGit {
            args: args.join(" "),
            source,
        })
    }

    /// Fetches the remote branch `src` of `url` into the local ref `dst`
    /// (forced: `dst` is a quarantine the caller verifies before trusting).
    pub fn fetch_branch(
        &self,
        url: &str,
        src: &str,
        dst: &str,
        timeout: Duration,
    ) -> Result<Fetched, StoreError> {
        let args = vec![
            "fetch".to_owned(),
            "--no-tags".to_owned(),
            "--no-write-fetch-head".to_owned(),
            "--quiet".to_owned(),
            "--".to_owned(),
            url.to_owned(),
            format!("+{src}:{dst}"),
        ];
        let out = self.run_transfer(&args, timeout)?;
        let stderr = String::from_utf8_lossy(&out.stderr);
        if !out.success() {
            if stderr.contains("couldn't find remote ref") {
                return Ok(Fetched::Missing);
            }
            return Err(StoreError::Remote {
                url: display_url(url),
                message: last_lines(&stderr),
            });
        }
        match self.ref_tip(dst)? {
            Some(tip) => Ok(Fetched::At(tip)),
            None => Ok(Fetched::Missing),
        }
    }

    /// Where `url` has the ref `name`, if it has it (`git ls-remote`).
    pub fn ls_remote(
        &self,
        url: &str,
        name: &str,
        timeout: Duration,
    ) -> Result<Option<ObjectId>, StoreError> {
        let args = vec![
            "ls-remote".to_owned(),
            "--".to_owned(),
            url.to_owned(),
            name.to_owned(),
        ];
        let out = self.run_transfer(&args, timeout)?;
        if !out.success() {
            return Err(StoreError::Remote {
                url: display_url(url),
                message: last_lines(&String::from_utf8_lossy(&out.stderr)),
            });
        }
        Ok(String::from_utf8_lossy(&out.stdout)
            .lines()
            .filter_map(|l| l.split_once('\t'))
            .find(|(_, r)| *r == name)
            .and_then(|(id, _)| ObjectId::from_hex(id.as_bytes()).ok()))
    }

    /// Pushes `refspecs` to `url`, all or nothing (`--atomic`), each
    /// destination leased to the value the caller last saw (`None`: it must
    /// not exist yet).
    pub fn push(
        &self,
        url: &str,
        refspecs: &[String],
        leases: &[(String, Option<ObjectId>)],
        timeout: Duration,
    ) -> Result<Pushed, StoreError> {
        let mut args = vec![
            "push".to_owned(),
            "--porcelain".to_owned(),
            "--atomic".to_owned(),
        ];
        for (name, expected) in leases {
            args.push(format!(
                "--force-with-lease={name}:{}",
                expected.map(|e| e.to_string()).unwrap_or_default()
            ));
        }
        args.push("--".to_owned());
        args.push(url.to_owned());
        args.extend(refspecs.iter().cloned());
        let out = self.run_transfer(&args, timeout)?;
        let stdout = String::from_utf8_lossy(&out.stdout);
        let stderr = String::from_utf8_lossy(&out.stderr);
        if out.success() {
            return Ok(Pushed::Done);
        }
        // The porcelain lines say why each ref was not updated.
        if stdout.contains("[remote rejected]") && !stdout.contains("atomic transaction failed") {
            let lines = stderr
                .lines()
                .filter_map(|l| l.strip_prefix("remote:"))
                .map(|l| l.trim().to_owned())
                .filter(|l| !l.is_empty())
                .collect();
            return Ok(Pushed::Refused { lines });
        }
        if stdout.contains("(stale info)")
            || stdout.contains("atomic transaction failed")
            || stdout.contains("(fetch first)")
            || stdout.contains("(non-fast-forward)")
        {
            return Ok(Pushed::Stale);
        }
        Err(StoreError::Remote {
            url: display_url(url),
            message: last_lines(&stderr),
        })
    }

    /// Removes the ref `name` if it exists (a quarantine, a remote's last
    /// verified tip).
    pub fn delete_ref(&self, name: &str) -> Result<(), StoreError> {
        let Some(r) = self
            .repo()
            .try_find_reference(name)
            .ctx(|| format!("reading {name}"))?
        else {
            return Ok(());
        };
        r.delete().ctx(|| format!("deleting {name}"))
    }

    /// Points the ref `name` (outside the lore branches: a remote's last
    /// verified tip) at `new`, whatever it held.
    pub fn set_ref(
        &self,
        name: &str,
        new: ObjectId,
        now: jiff::Timestamp,
    ) -> Result<(), StoreError> {
        match self.move_ref(name, Expect::Any, new, &self.signature_at(now)) {
            Ok(()) => Ok(()),
            Err(SwapError::Lost) => Err(StoreError::Contended {
                branch: name.to_owned(),
                attempts: 1,
            }),
            Err(SwapError::Other(e)) => Err(e),
        }
    }

    /// Where the ref `name` has pointed, oldest first, as its reflog says:
    /// each new target and the time it moved there (seconds since the
    /// epoch). Empty when it has no reflog (none kept, or expired); a line
    /// that does not read is left out.
    pub fn ref_log(&self, name: &str) -> Result<Vec<(ObjectId, i64)>, StoreError> {
        let Some(r) = self
            .repo()
            .try_find_reference(name)
            .ctx(|| format!("reading {name}"))?
        else {
            return Ok(Vec::new());
        };
        let mut platform = r.log_iter();
        let lines = super::io_ctx(platform.all(), || format!("reading the reflog of {name}"))?;
        let mut out = Vec::new();
        for line in lines.into_iter().flatten().flatten() {
            let (Ok(time), Ok(new)) = (line.signature.time(), ObjectId::from_hex(line.new_oid))
            else {
                continue;
            };
            out.push((new, time.seconds));
        }
        Ok(out)
    }

    /// [`Store::set_ref`], then on disk for good: the ref's file and every
    /// directory from it up to `refs/` are synced before this returns, so
    /// a crash after it cannot lose the ref (a backup must be there before
    /// the name it replaces goes).
    pub fn set_ref_durably(
        &self,
        name: &str,
        new: ObjectId,
        now: jiff::Timestamp,
    ) -> Result<(), StoreError> {
        self.set_ref(name, new, now)?;
        let sync = |p: &std::path::Path| {
            super::io_ctx(std::fs::File::open(p).and_then(|f| f.sync_all()), || {
                format!("syncing {}", p.display())
            })
        };
        let file = self.git_dir().join(name);
        if !file.is_file() {
            // Only in `packed-refs` (the write found the ref already at
            // `new` and left it there): sync that file instead.
            let packed = self.git_dir().join("packed-refs");
            return if packed.is_file() {
                sync(&packed)
            } else {
                Ok(())
            };
        }
        sync(&file)?;
        let top = self.git_dir().join("refs");
        let mut dir = file.parent();
        while let Some(d) = dir.filter(|d| d.starts_with(&top)) {
            sync(d)?;
            dir = d.parent();
        }
        Ok(())
    }

    /// Creates a plain bare repository at `dir` (HEAD → `pool/org`), or
    /// opens the one there: a pool host, not a lesson repository.
    pub fn create_bare(dir: &std::path::Path, host: super::Host) -> Result<Store, StoreError> {
        if !dir.join("HEAD").is_file() {
            let out = std::process::Command::new(&host.git_program)
                .args(["init", "--bare", "--quiet", "--initial-branch=pool/org"])
                .arg(dir)
                .env_clear()
                .envs(host.git_env.iter().map(|(k, v)| (k, v)))
                .stdin(std::process::Stdio::null())
                .output()
                .map_err(|source| StoreError::SpawnGit {
                    args: "init --bare".into(),
                    program: host.git_program.clone(),
                    source,
                })?;
            if !out.status.success() {
                return Err(StoreError::GitProgram {
                    args: format!("init --bare {}", dir.display()),
                    message: String::from_utf8_lossy(&out.stderr).trim().to_owned(),
                });
            }
        }
        Store::open_raw(dir, host, false)
    }

    /// The tips of every `refs/heads/review/*` branch.
    pub fn review_tips(&self) -> Result<Vec<ObjectId>, StoreError> {
        let refs = self.repo().references().ctx(|| "listing refs".into())?;
        let mut out = Vec::new();
        for r in refs
            .prefixed("refs/heads/review/")
            .ctx(|| "listing review branches".into())?
        {
            let r = r.map_err(|e| StoreError::Git {
                context: "listing review branches".into(),
                source: gix::Error::from_error(e),
            })?;
            if let Some(id) = r.target().try_id() {
                out.push(id.to_owned());
            }
        }
        Ok(out)
    }

    /// The URL configured for remote `name`.
    pub fn remote_url(&self, name: &str) -> Option<String> {
        self.config_string(&format!("remote.{name}.url"))
    }

    /// Configures remote `name`: its URL and the one branch it fetches
    /// (into `fetch_dst`) and pushes. Replaces what was there.
    pub fn set_remote(
        &mut self,
        name: &str,
        url: &str,
        branch_ref: &str,
        fetch_dst: &str,
    ) -> Result<(), StoreError> {
        let set = |key: String, value: String| -> Result<(), StoreError> {
            self.run_git(&[
                "config".as_ref(),
                "--replace-all".as_ref(),
                key.as_ref(),
                value.as_ref(),
            ])
            .map(drop)
        };
        set(format!("remote.{name}.url"), url.to_owned())?;
        set(
            format!("remote.{name}.fetch"),
            format!("+{branch_ref}:{fetch_dst}"),
        )?;
        set(
            format!("remote.{name}.push"),
            format!("{branch_ref}:{branch_ref}"),
        )?;
        set(format!("remote.{name}.tagOpt"), "--no-tags".to_owned())?;
        self.reload()
    }

    /// Removes remote `name`'s configuration; whether there was any.
    pub fn remove_remote(&mut self, name: &str) -> Result<bool, StoreError> {
        if self.remote_url(name).is_none() {
            return Ok(false);
        }
        self.run_git(&[
            "config".as_ref(),
            "--remove-section".as_ref(),
            format!("remote.{name}").as_ref(),
        ])?;
        self.reload()?;
        Ok(true)
    }
}

/// A URL as messages show it: without a password or token
/// (`https://user:secret@host/x` shows as `https://user@host/x`).
pub fn display_url(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return url.to_owned();
    };
    let (authority, path) = match rest.find('/') {
        Some(i) => rest.split_at(i),
        None => (rest, ""),
    };
    match authority.rsplit_once('@') {
        Some((userinfo, host)) => {
            let user = userinfo.split(':').next().unwrap_or("");
            format!("{scheme}://{user}@{host}{path}")
        }
        None => url.to_owned(),
    }
}

/// The last few lines of a program's error output, for a message. git
/// may repeat the URL it was given, password included: every URL-looking
/// word is shown as [`display_url`] shows it.
fn last_lines(text: &str) -> String {
    let lines: Vec<&str> = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect();
    let start = lines.len().saturating_sub(3);
    lines[start..].join("; ")
}
