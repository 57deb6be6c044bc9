//! A pool host: a bare repository that receives `pool/org`,
//! `pool/public` and `review/<lesson-id>` branches by push and refuses
//! anything that does not verify (`git lore host`, `git lore verify
//! --pre-receive`).
//!
//! `host DIR --signer KEY…` creates the repository (or brings an existing
//! one up to date), records who may sign a pool's first commit
//! (`<DIR>/lore/root_signers`), installs `hooks/post-receive` (a
//! commit-graph layer after each push, then in the background a geometric
//! repack with a multi-pack index and a reachability bitmap, see
//! `POST_RECEIVE`) and `hooks/pre-receive`, which runs
//! `git lore verify --pre-receive`. The hook checks every pushed commit the
//! repository does not have yet by the remote policy
//! ([`audit::Policy`] with the root signers, no one's keys trusted by
//! default), refuses ref names other than the pool and review branches,
//! deleting or rewinding a pool branch, and a pool whose first commit is
//! not signed by a root signer. One problem rejects the whole push.

use std::path::{Path, PathBuf};

use gix::ObjectId;

use super::audit::{self, Policy, Problem};
use super::{Env, LoreError};
use crate::model::{Id, Source};
use crate::signing::AllowedSigners;
use crate::store::{Branch, Store};

/// Where a host keeps its root signers, relative to its git dir.
pub const ROOT_SIGNERS: &str = "lore/root_signers";

/// The pre-receive hook `host` installs; `@GIT_LORE@` is replaced by the
/// path of the program that installed it, for when `git-lore` is not on
/// the `PATH` the server runs hooks with.
const PRE_RECEIVE: &str = r#"#!/bin/sh
# git-lore pool host: refuse any push whose commits do not verify.
# Installed by `git lore host`; reads git's "<old> <new> <ref>" lines on stdin.
if command -v git-lore >/dev/null 2>&1; then
  exec git-lore --repo "$(pwd)" verify --pre-receive
fi
exec @GIT_LORE@ --repo "$(pwd)" verify --pre-receive
"#;

/// The post-receive hook `host` installs. First a commit-graph layer for
/// what was pushed, so that the next push's check (a merge base, the walk
/// to its new commits) stops at what the host already has instead of
/// visiting its whole history. Then, in the background and one at a time
/// (`lore/maintenance.pid`), what git's own maintenance does for a server:
/// `git repack --geometric=2` rolls the pushed objects (loose below
/// `receive.unpackLimit`, else a pack) into the smallest packs while the
/// packs stay in geometric progression, so each push rewrites about what
/// it brought, amortised; a multi-pack index over all packs; and a
/// reachability bitmap on it, with which a fetch or clone counts the
/// objects to send from the bitmap instead of walking every commit and
/// tree. It runs when it is due, as `git gc --auto` decides for loose
/// objects: there is no multi-pack index yet, or 6,700 loose objects
/// (`lore.upkeepLoose`), or 16 packs newer than the multi-pack index
/// (`lore.upkeepPacks`). Each run writes the bitmap over the whole pool
/// again, about a minute and 2.5–3 GB at 1,000,000 lessons, so running it
/// after every push cost a busy host that much per push; objects outside
/// the bitmap meanwhile cost a fetch a short walk down to it. A push that
/// lands while a run is going is covered by the next one that is due. Nothing is printed, and nothing here can fail the push: its refs
/// are in place before the hook runs, and the hook exits 0.
const POST_RECEIVE: &str = r#"#!/bin/sh
# git-lore pool host, after each push: a commit-graph layer, then, when it
# is due, in the background and one at a time, a geometric repack with a
# multi-pack index and a reachability bitmap. Installed by `git lore host`.
# Quiet; whatever fails here, the push has landed.
git commit-graph write --reachable --split --no-progress >/dev/null 2>&1
# Due as `git gc --auto` would be: no multi-pack index yet, or loose objects
# or packs outside it piled up past what git itself lets pile up.
midx=objects/pack/multi-pack-index
if [ -f "$midx" ]; then
  loose=$(git count-objects 2>/dev/null | sed 's/ .*//')
  packs=$(find objects/pack -name 'pack-*.pack' -newer "$midx" 2>/dev/null | wc -l)
  [ "${loose:-0}" -ge "$(git config --int lore.upkeepLoose 2>/dev/null || echo 6700)" ] ||
    [ "$packs" -ge "$(git config --int lore.upkeepPacks 2>/dev/null || echo 16)" ] ||
    exit 0
fi
lock=lore/maintenance.pid
mkdir -p lore 2>/dev/null
if ! (set -C; echo $$ >"$lock") 2>/dev/null; then
  pid=$(cat "$lock" 2>/dev/null)
  # Running if that process is alive, not a zombie, and ours (this hook or
  # its job: a pid reused after a reboot is someone else's); a lock left
  # empty (a crash between creating and writing it) is stale after a
  # minute.
  if [ -z "$pid" ]; then
    [ -n "$(find "$lock" -mmin +1 2>/dev/null)" ] || exit 0
  elif kill -0 "$pid" 2>/dev/null &&
      [ "$(sed 's/.*) //' "/proc/$pid/stat" 2>/dev/null | cut -c1)" != Z ] &&
      tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -q 'git-lore-upkeep\|post-receive'; then
    exit 0
  fi
  rm -f "$lock"
  (set -C; echo $$ >"$lock") 2>/dev/null || exit 0
fi
# In a session of its own: whoever ran the push may end the push's process
# group once it returns (git-lore does, for a host reached by its path).
# The job puts its own pid in the lock before it starts, so the lock is
# never written after the job has removed it.
detach=
if command -v setsid >/dev/null 2>&1; then detach=setsid; fi
$detach sh -c 'echo $$ >"$1"; git repack -d -q --geometric=2 --write-midx --write-bitmap-index; rm -f "$1"' \
  git-lore-upkeep "$lock" </dev/null >/dev/null 2>&1 &
exit 0
"#;

/// What `host` did.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Hosted {
    pub path: PathBuf,
    pub created: bool,
    /// `(principal, fingerprint)` of each root signer.
    pub root_signers: Vec<(String, String)>,
}

/// `git lore host DIR --signer KEY…`: `signers` are `(key-type base64,
/// principal)`.
pub fn host(dir: &Path, signers: &[(String, String)], env: &Env) -> Result<Hosted, LoreError> {
    if signers.is_empty() {
        return Err(LoreError::Input {
            what: "--signer".into(),
            why: "a pool host needs at least one key allowed to start a pool".into(),
        });
    }
    let created = !dir.join("HEAD").is_file();
    let store = Store::create_bare(dir, env.host())?;
    let mut text = String::from(
        "# Keys allowed to sign the first commit of a pool pushed here (git lore host).\n",
    );
    for (key, principal) in signers {
        let pubkey = ssh_key::PublicKey::from_openssh(key)
            .map_err(|e| LoreError::invalid(format!("key of {principal}"), e))?;
        text.push_str(&crate::signing::allowed_signers_line(principal, &pubkey)?);
        text.push('\n');
    }
    let listed = AllowedSigners::parse(&text).map_err(|e| LoreError::invalid("--signer", e))?;
    store.write_private_file(ROOT_SIGNERS, text.as_bytes(), 0o644, false)?;
    let hook = PRE_RECEIVE.replace(
        "@GIT_LORE@",
        &super::shell_quote(
            &env.exe
                .as_ref()
                .map(|p| p.display().to_string())
                .unwrap_or_else(|| "git-lore".into()),
        ),
    );
    store.write_private_file("hooks/pre-receive", hook.as_bytes(), 0o755, false)?;
    store.write_private_file("hooks/post-receive", POST_RECEIVE.as_bytes(), 0o755, false)?;
    Ok(Hosted {
        path: store.git_dir().to_owned(),
        created,
        root_signers: listed.keys(),
    })
}

/// One `<old> <new> <ref>` line of git's pre-receive input.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Update {
    pub old: Option<ObjectId>,
    pub new: Option<ObjectId>,
    pub name: String,
}

/// Parses git's pre-receive lines.
pub fn parse_updates(text: &str) -> Result<Vec<Update>, LoreError> {
    let id = |s: &str| -> Result<Option<ObjectId>, LoreError> {
        let o = ObjectId::from_hex(s.as_bytes()).map_err(|_| LoreError::Input {
            what: format!("{s:?}"),
            why: "not an object id in the pre-receive input".into(),
        })?;
        Ok((!o.is_null()).then_some(o))
    };
    let mut out = Vec::new();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let parts: Vec<&str> = line.split_whitespace().collect();
        let [old, new, name] = parts[..] else {
            return Err(LoreError::Input {
                what: format!("{line:?}"),
                why: "a pre-receive line is `<old> <new> <ref>`".into(),
            });
        };
        out.push(Update {
            old: id(old)?,
            new: id(new)?,
            name: name.to_owned(),
        });
    }
    Ok(out)
}

/// The pool a pushed ref belongs to: `pool/org`, `pool/public`, or a
/// `review/<lesson-id>` branch (proposals to `pool/public`).
fn tier_of(name: &str) -> Option<(Source, bool)> {
    match name {
        "refs/heads/pool/org" => Some((Source::Org, false)),
        "refs/heads/pool/public" => Some((Source::Public, false)),
        _ => name
            .strip_prefix("refs/heads/review/")
            .filter(|rest| {
                rest.parse::<Id>().is_ok()
                    || rest
                        .strip_prefix("signers-")
                        .is_some_and(|h| h.len() == 12 && h.bytes().all(|b| b.is_ascii_hexdigit()))
            })
            .map(|_| (Source::Public, true)),
    }
}

/// `verify --pre-receive`: every problem with the pushed updates, in the
/// repository at `repo` that is receiving them (its pushed objects in
/// `quarantine`, git's `GIT_QUARANTINE_PATH`; `env` with the object
/// directories git set for the hook, which merge checks' `git` must see),
/// checked at `now` (the host's clock).
pub fn pre_receive(
    repo: &Path,
    env: &Env,
    quarantine: Option<&Path>,
    updates: &[Update],
    now: jiff::Timestamp,
) -> Result<Vec<Problem>, LoreError> {
    let store = Store::open_receiving(repo, env.host(), quarantine)?;
    check_updates(&store, updates, now)
}

fn check_updates(
    store: &Store,
    updates: &[Update],
    now: jiff::Timestamp,
) -> Result<Vec<Problem>, LoreError> {
    let text = std::fs::read_to_string(store.git_dir().join(ROOT_SIGNERS)).unwrap_or_default();
    let roots = AllowedSigners::parse(&text).unwrap_or_default();
    let policy = Policy::host(
        [(Source::Org, roots.clone()), (Source::Public, roots)]
            .into_iter()
            .collect(),
        now,
    );
    // What the repository already has on the same pool was checked, as
    // that pool's, when it came in. History of the other pool counts as
    // new: pool/org pushed as pool/public is checked as public (and
    // refused), never waved through because the host has seen it.
    let org_known: Vec<ObjectId> = store.ref_tip("refs/heads/pool/org")?.into_iter().collect();
    let mut public_known: Vec<ObjectId> = store
        .ref_tip("refs/heads/pool/public")?
        .into_iter()
        .collect();
    public_known.extend(store.review_tips()?);
    let mut problems = Vec::new();
    let say = |problems: &mut Vec<Problem>, commit: Option<ObjectId>, name: &str, p: String| {
        problems.push(Problem {
            commit: commit.map(|c| c.to_string()).unwrap_or_default(),
            branch: name.trim_start_matches("refs/heads/").to_owned(),
            problem: p,
        })
    };
    for u in updates {
        let Some((tier, review)) = tier_of(&u.name) else {
            say(
                &mut problems,
                u.new,
                &u.name,
                format!(
                    "{} is not accepted here: a pool host takes refs/heads/pool/org, refs/heads/pool/public and refs/heads/review/<lesson-id> only (the ledger and pool/local never leave their machine)",
                    u.name
                ),
            );
            continue;
        };
        let Some(new) = u.new else {
            if !review {
                say(
                    &mut problems,
                    u.old,
                    &u.name,
                    "a pool branch is never deleted".into(),
                );
            }
            continue;
        };
        if let (Some(old), false) = (u.old, review) {
            if store.merge_base(old, new)? != Some(old) {
                say(
                    &mut problems,
                    Some(new),
                    &u.name,
                    format!(
                        "{} does not descend from {old}: a pool's history only grows (rewinding or rewriting it is refused)",
                        new
                    ),
                );
                continue;
            }
        }
        let branch = Branch::Pool(tier);
        let known = match tier {
            Source::Org => &org_known,
            _ => &public_known,
        };
        let commits: Vec<(Branch, ObjectId)> = store
            .new_commits(new, known)?
            .into_iter()
            .map(|c| (branch, c))
            .collect();
        for p in audit::check_commits(store, &policy, &commits)? {
            problems.push(Problem {
                branch: u.name.trim_start_matches("refs/heads/").to_owned(),
                ..p
            });
        }
    }
    Ok(problems)
}

/// `verify --pool TIER BASE..HEAD` in the repository at `repo` (any
/// repository: a forge's checkout in CI): the commits of HEAD that BASE
/// lacks, checked as commits of `tier`'s pool by the host's rules (the root
/// signers, when the range reaches a pool's first commit, are the
/// repository's `lore/root_signers` if it has one), at `now`. Returns how
/// many commits were checked and the problems.
pub fn verify_range(
    repo: &Path,
    env: &Env,
    tier: Source,
    base: &str,
    head: &str,
    now: jiff::Timestamp,
) -> Result<(usize, Vec<Problem>), LoreError> {
    let store = &Store::open_receiving(repo, env.host(), None)?;
    let resolve = |rev: &str| {
        store
            .resolve(rev)
            .map_err(|e| LoreError::invalid(format!("bad revision {rev:?}"), e))
    };
    let (base, head) = (resolve(base)?, resolve(head)?);
    let text = std::fs::read_to_string(store.git_dir().join(ROOT_SIGNERS)).unwrap_or_default();
    let roots = AllowedSigners::parse(&text).unwrap_or_default();
    let policy = Policy::host([(tier, roots)].into_iter().collect(), now);
    let branch = Branch::Pool(tier);
    let commits: Vec<(Branch, ObjectId)> = store
        .new_commits(head, &[base])?
        .into_iter()
        .map(|c| (branch, c))
        .collect();
    let problems = audit::check_commits(store, &policy, &commits)?;
    Ok((commits.len(), problems))
}
