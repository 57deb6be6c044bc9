//! Keeping a lesson repository packed, in the background, within a budget
//! of disk space.
//!
//! A command that wrote ends with [`Store::maybe_repack`], which may start
//! one background job (one at a time: the decision is taken under
//! `lore/repack.lock`, and its pid is in
//! `lore/repack.pid`): `git gc --auto` when loose objects pile up, then, when
//! there are more packs than `gc.autoPackLimit`, merges of the smallest
//! packs in groups chosen by [`plan_merges`], then a multi-pack index once
//! the packs' indexes are large ([`wants_midx`]), then a commit-graph layer.
//!
//! Any repack writes its new pack before it deletes the packs it replaces,
//! so for a moment the repository holds both. `git repack --geometric=2`
//! merges everything out of progression at once: after a 100,000-record
//! batch (49 packs of about the same size) that was every pack, and the
//! repository briefly reached about three times what `git fast-import`
//! writes. Here each merge reads a group of packs whose files add up to at
//! most [`BUDGET_SHARE`]th of all packs, writes its pack and only then
//! deletes the group's, before the next group starts. A merged pack is
//! never larger than the packs it was made from (`git pack-objects`
//! copies each object's stored form, [`MERGES`]), so the repository never
//! grows by more than that share while it is repacked.

use std::fs;
use std::path::Path;
use std::time::SystemTime;

use super::Store;

/// Where [`Store::maybe_repack`] leaves the pid of the job it started.
const REPACK_PID: &str = "lore/repack.pid";

/// Held while a command decides whether to start the job and starts it.
const REPACK_LOCK: &str = "lore/repack.lock";

/// The most one merge may add to the repository while it runs, as a share
/// of the bytes of all its packs: a sixteenth. A batch leaves its packs at
/// about 1.85–2 times `git fast-import`'s size (100,000 records in 49
/// packs), so the merges add little to that (measured: 3.9% at 100,000 +
/// 10,000, docs/PERFORMANCE.md, "Issue 24"); a smaller share could not
/// pair two of a batch's 49 equal packs. It merges them three by three.
pub(crate) const BUDGET_SHARE: u64 = 16;

/// One pack in `objects/pack`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct PackFile {
    /// The pack's file name, `pack-<hash>.pack`.
    pub name: String,
    /// The bytes of its `.pack`, `.idx`, `.rev` and `.bitmap` files.
    pub bytes: u64,
    /// The bytes of its `.idx` alone.
    pub idx_bytes: u64,
    pub modified: SystemTime,
    /// Whether a merge may take it: not kept (`.keep`), not a cruft pack
    /// of unreachable objects (`.mtimes`, whose times `git gc` prunes by),
    /// not a promisor pack.
    pub movable: bool,
}

/// Every indexed pack in `dir` (`objects/pack`).
pub(crate) fn packs_in(dir: &Path) -> Vec<PackFile> {
    let Ok(entries) = fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut packs: Vec<PackFile> = entries
        .filter_map(|e| {
            let path = e.ok()?.path();
            if path.extension()? != "pack" {
                return None;
            }
            let idx = fs::metadata(path.with_extension("idx"))
                .ok()
                .filter(fs::Metadata::is_file)?;
            let meta = fs::metadata(&path).ok()?;
            let bytes = ["rev", "bitmap"]
                .iter()
                .filter_map(|ext| fs::metadata(path.with_extension(ext)).ok())
                .map(|m| m.len())
                .sum::<u64>()
                + idx.len()
                + meta.len();
            let movable = ["keep", "mtimes", "promisor"]
                .iter()
                .all(|ext| !path.with_extension(ext).exists());
            Some(PackFile {
                name: path.file_name()?.to_str()?.to_owned(),
                bytes,
                idx_bytes: idx.len(),
                modified: meta.modified().ok()?,
                movable,
            })
        })
        .collect();
    packs.sort_by(|a, b| a.name.cmp(&b.name));
    packs
}

/// Which packs to merge, as groups of indices into `sizes` (the bytes of
/// each pack a merge may take): from the smallest up, consecutive packs
/// while their sum stays within `budget`, a new group when the next one
/// does not fit; a pack larger than `budget` is never taken, and a group
/// of one is no merge. Each group becomes one pack, written before the
/// group's packs are deleted and before the next group starts, so the
/// repository never holds more than `budget` bytes beyond what it held.
pub(crate) fn plan_merges(sizes: &[u64], budget: u64) -> Vec<Vec<usize>> {
    let mut order: Vec<usize> = (0..sizes.len()).collect();
    order.sort_by_key(|&i| (sizes[i], i));
    let mut groups = Vec::new();
    let mut group = Vec::new();
    let mut sum = 0u64;
    for i in order {
        let size = sizes[i];
        if sum.saturating_add(size) <= budget {
            group.push(i);
            sum += size;
            continue;
        }
        if group.len() >= 2 {
            groups.push(std::mem::take(&mut group));
        }
        if size > budget {
            // Every pack after it is at least as large.
            group.clear();
            break;
        }
        group = vec![i];
        sum = size;
    }
    if group.len() >= 2 {
        groups.push(group);
    }
    groups
}

/// The job's first lines: its arguments are the `git` program, the git
/// dir, and then one argument per merge, the names of its packs (split at
/// spaces, never globbed: `set -f`).
const PRELUDE: &str = r#"set -f
git=$1 dir=$2
shift 2
"#;

/// Packs loose objects as `git gc --auto` would, run in the job itself
/// rather than detached. `gc.autoPackLimit=0`: when there are also too many
/// packs, `gc --auto` would consolidate them all into one with `repack -A`,
/// holding every old pack and the new one at once; the merges below do that
/// within the budget instead.
const GC: &str = r#""$git" --git-dir "$dir" -c gc.autoDetach=false -c gc.autoPackLimit=0 gc --auto --quiet
"#;

/// Each merge: `git pack-objects` writes one pack (one, even when the
/// user's `pack.packSizeLimit` would split it) holding every object the
/// group's indexes list (reachable or not, as `git repack --geometric`
/// does), with its `.idx` and `.rev`, renamed into place with the `.idx`
/// last; only then are the group's packs deleted (a pack whose name came
/// out the same is kept). A merge that fails deletes nothing.
///
/// The objects are listed by `git show-index`, the trees our own packs
/// hold whole first with their directory (`lore/pack-names`, written by
/// `pack::persist`, and joined into the merged pack's), and `git
/// pack-objects` copies each as it is stored or, for those trees, finds
/// a delta against another version of the same directory: a
/// transaction's pack holds the first version of every tree it touches
/// whole, and nothing else could make those deltas across packs. On 24
/// packs of a 100,000-record batch (741,328 objects): 4.3 s and 117 MB,
/// against 2.7 s and 133 MB copied without names. What this replaced,
/// `--stdin-packs`, named objects by walking every commit of the group
/// and every tree they reach, including trees in other packs: 6.6 s and
/// 117 MB there, and 511 s of merges after a 1,000,000-record batch
/// (docs/PERFORMANCE.md, "Issue 24, fifth round"). Names only guide the
/// delta search; a pack without them (one `git gc` wrote) is copied, and
/// so is a group whose names `git pack-objects` refuses (a line naming an
/// object that is not there): it is merged from the indexes' list alone,
/// rather than left unmerged by every later job. A names file whose pack
/// is gone is deleted at the end ([`FORGET_NAMES`]).
///
/// A multi-pack index goes first: it would name the packs deleted here
/// until it is written again after the merges ([`MIDX`], which
/// [`wants_midx`] asks for whenever one existed), and a reader without one
/// reads the packs' own indexes.
const MERGES: &str = r#"rm -f "$dir/objects/pack/multi-pack-index"
list="$dir/lore/repack.objects" names="$dir/lore/pack-names"
for group do
  : >"$list" && : >"$list.all" || continue
  for p in $group; do
    b=${p%.pack}
    [ ! -f "$names/$b" ] || cat "$names/$b" >>"$list" || continue 2
    "$git" --git-dir "$dir" show-index <"$dir/objects/pack/$b.idx" >>"$list.all" || continue 2
  done
  cut -d' ' -f2 "$list.all" >"$list.ids" && cat "$list.ids" >>"$list" || continue
  new=$("$git" --git-dir "$dir" -c pack.packSizeLimit=0 pack-objects -q --delta-base-offset "$dir/objects/pack/pack" <"$list" 2>/dev/null ||
    "$git" --git-dir "$dir" -c pack.packSizeLimit=0 pack-objects -q --delta-base-offset "$dir/objects/pack/pack" <"$list.ids") &&
    [ -n "$new" ] && [ -f "$dir/objects/pack/pack-$new.idx" ] || continue
  if [ -d "$names" ]; then
    for p in $group; do cat "$names/${p%.pack}" 2>/dev/null; done >"$names/tmp_merge" &&
      mv -f "$names/tmp_merge" "$names/pack-$new"
  fi
  for p in $group; do
    b=${p%.pack}
    [ "$b" = "pack-$new" ] || rm -f "$dir/objects/pack/$b.idx" "$dir/objects/pack/$b.rev" "$dir/objects/pack/$b.bitmap" "$dir/objects/pack/$b.pack" "$names/$b"
  done
done
rm -f "$list" "$list.all" "$list.ids"
"#;

/// The job's last lines, whatever it did: names of packs that are gone
/// (merged by hand, or replaced by a `git gc` of the user's) are deleted.
const FORGET_NAMES: &str = r#"set +f
for f in "$dir/lore/pack-names"/pack-*; do
  [ ! -f "$f" ] || [ -f "$dir/objects/pack/${f##*/}.idx" ] || rm -f "$f"
done
"#;

/// A multi-pack index over the packs there are (see [`wants_midx`]).
const MIDX: &str = r#""$git" --git-dir "$dir" multi-pack-index write --no-progress
"#;

/// From this many bytes of pack indexes (`.idx`), about 570,000 objects
/// (some 80,000 lessons), the background job keeps a multi-pack index.
///
/// gix checks every pack index it opens from end to end (its table of
/// offsets, 4 bytes an object), and a command that writes a new object
/// opens every one of them (a new object is found in none). At 1,000,000
/// lessons, 7,000,000 objects in 20 packs, that was half of a one-record
/// `confirm` (13.6 ms against 7.0 ms at 10,000); with a multi-pack index,
/// whose opening checks only its header, the same `confirm` took 6.9 ms.
/// It costs about the indexes' size again on disk (196 MB at 1,000,000),
/// which below this many objects buys too little.
pub(crate) const MIDX_FROM_IDX_BYTES: u64 = 16 << 20;

/// Whether the background job should write a multi-pack index: there is
/// one already (someone wants it kept current), or the packs' indexes
/// are large enough; and a pack is newer than it (or there is none yet),
/// or packs are about to be merged.
pub(crate) fn wants_midx(packs: &[PackFile], midx: Option<SystemTime>, merging: bool) -> bool {
    let idx_bytes: u64 = packs.iter().map(|p| p.idx_bytes).sum();
    let wanted = midx.is_some() || (packs.len() >= 2 && idx_bytes >= MIDX_FROM_IDX_BYTES);
    wanted && (merging || newest_after(packs, midx))
}

/// Whether the newest of `packs` is newer than `stamp` (a file the packs
/// feed, by its modification time), or there are packs and no such file.
fn newest_after(packs: &[PackFile], stamp: Option<SystemTime>) -> bool {
    let Some(newest) = packs.iter().map(|p| p.modified).max() else {
        return false;
    };
    stamp.is_none_or(|stamp| newest > stamp)
}

/// The modification time of the file at `path`, if there is one.
fn modified(path: &Path) -> Option<SystemTime> {
    fs::metadata(path).and_then(|m| m.modified()).ok()
}

/// A commit-graph layer, as `git gc` writes one: without it, the index's
/// catch-up walk (gix computing what the known tip hides) inflates every
/// commit of the branch, 10 times slower at 10,000 commits. git writes
/// nothing when no commit is new (after merges, which only move objects),
/// so the graph's time is set to now: it is what tells
/// [`Store::maybe_repack`] that no pack holds commits the graph lacks.
const GRAPH: &str = r#""$git" --git-dir "$dir" commit-graph write --reachable --split --no-progress &&
  for f in "$dir/objects/info/commit-graphs/commit-graph-chain" "$dir/objects/info/commit-graph"; do
    [ ! -f "$f" ] || touch -c "$f"
  done
"#;

impl Store {
    /// Keeps the repository packed without any writer waiting for it, once
    /// a command that wrote has ended (never mid-batch), by starting one job
    /// in the background that does what is due, in this order:
    ///
    /// - `git gc --auto` when loose objects pile up the way git itself
    ///   estimates it (entries in `objects/17`), with its pack consolidation
    ///   off;
    /// - when there are more packs than `gc.autoPackLimit` (git's own
    ///   setting, default 50), merges of the smallest ones within a budget
    ///   (`plan_merges`, a sixteenth of the packs' bytes each);
    /// - a commit-graph layer, after merges, or when a pack is newer than
    ///   the commit-graph (`gc` writes its own).
    ///
    /// Below the pack limit packs are left as written: 50 packs cost a
    /// reader little, and merging holds old and new on disk at once. None
    /// of it writes `gc.log`. `gc.auto` = 0 turns all of it off, as it does
    /// git's own.
    pub fn maybe_repack(&self) {
        let auto: i64 = self
            .config_string("gc.auto")
            .and_then(|v| v.parse().ok())
            .unwrap_or(6700);
        if auto <= 0 {
            return;
        }
        // Deciding and starting a job is one step for one command at a
        // time: two commands ending together would otherwise both see no
        // job running and start two (each within the budget, together
        // over it). A command that finds the decision taken leaves it.
        let lock = self.git_dir.join(REPACK_LOCK);
        let _ = fs::create_dir_all(lock.parent().expect("under the git dir"));
        let Ok(Some(_deciding)) = super::index::WriteLock::try_take(&lock) else {
            return;
        };
        if self.repack_running() {
            return;
        }
        let threshold = (auto + 255) / 256;
        let count = fs::read_dir(self.git_dir.join("objects/17"))
            .map(|d| d.count() as i64)
            .unwrap_or(0);
        let pack_limit: usize = self
            .config_string("gc.autoPackLimit")
            .and_then(|v| v.parse().ok())
            .unwrap_or(50);
        let packs = packs_in(&self.git_dir.join("objects/pack"));
        // Counted as git counts them for `gc.autoPackLimit`: kept packs
        // (and cruft packs, which are never merged) aside.
        let movable: Vec<&PackFile> = packs.iter().filter(|p| p.movable).collect();
        let merges: Vec<String> = if pack_limit > 0 && movable.len() > pack_limit {
            let sizes: Vec<u64> = movable.iter().map(|p| p.bytes).collect();
            let total: u64 = packs.iter().map(|p| p.bytes).sum();
            plan_merges(&sizes, total / BUDGET_SHARE)
                .into_iter()
                .map(|group| {
                    group
                        .iter()
                        .map(|&i| movable[i].name.as_str())
                        .collect::<Vec<_>>()
                        .join(" ")
                })
                .collect()
        } else {
            Vec::new()
        };
        let gc = count > threshold;
        let mut script = String::from(PRELUDE);
        if gc {
            script.push_str(GC);
        }
        if !merges.is_empty() {
            script.push_str(MERGES);
        }
        let midx = modified(&self.git_dir.join("objects/pack/multi-pack-index"));
        if wants_midx(&packs, midx, !merges.is_empty()) {
            script.push_str(MIDX);
        }
        if !merges.is_empty() || (!gc && commit_graph_is_behind(&self.git_dir, &packs)) {
            script.push_str(GRAPH);
        }
        if script.len() == PRELUDE.len() {
            return;
        }
        script.push_str(FORGET_NAMES);
        let mut cmd = std::process::Command::new("/bin/sh");
        cmd.arg("-c")
            .arg(script)
            .arg("git-lore-repack")
            .arg(&self.host.git_program)
            .arg(&self.git_dir)
            .args(&merges)
            .env_clear()
            .envs(self.host.git_env.iter().map(|(k, v)| (k, v)))
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null());
        // Fire and forget: a writer must never wait for it, and the child
        // is reaped by init when we exit. Its pid is left in
        // `lore/repack.pid` so the next command does not start another
        // while it runs (two at once are safe for the objects, as each
        // deletes the packs it merged only after its own pack is in place,
        // but wasteful, and together over the budget), and so that whoever
        // must wait for it can.
        if let Ok(child) = cmd.spawn() {
            let _ = self.write_private_file(
                REPACK_PID,
                child.id().to_string().as_bytes(),
                0o644,
                false,
            );
        }
    }

    /// Whether the job [`Store::maybe_repack`] last started is still
    /// running.
    pub fn repack_running(&self) -> bool {
        let Ok(text) = fs::read_to_string(self.git_dir.join(REPACK_PID)) else {
            return false;
        };
        let Ok(pid) = text.trim().parse::<u32>() else {
            return false;
        };
        // The state follows the parenthesised command name; a zombie has
        // finished. A pid reused by another program (after a reboot) is not
        // the job: the job's arguments name it.
        let alive = fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
            stat.rsplit_once(')')
                .is_some_and(|(_, rest)| !rest.trim_start().starts_with('Z'))
        });
        alive
            && fs::read(format!("/proc/{pid}/cmdline"))
                .is_ok_and(|c| c.split(|b| *b == 0).any(|arg| arg == b"git-lore-repack"))
    }
}

/// Whether the newest pack is newer than the commit-graph (or there is a
/// pack and no commit-graph): a batch wrote commits the graph does not
/// know.
fn commit_graph_is_behind(git_dir: &Path, packs: &[PackFile]) -> bool {
    let graph = [
        "objects/info/commit-graphs/commit-graph-chain",
        "objects/info/commit-graph",
    ]
    .iter()
    .filter_map(|p| modified(&git_dir.join(p)))
    .max();
    newest_after(packs, graph)
}

#[cfg(test)]
mod tests {
    use super::super::tx::tests::{fsck, git};
    use super::*;

    #[test]
    fn a_multi_pack_index_is_kept_once_the_pack_indexes_are_large() {
        let t = |s: u64| Some(SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(s));
        // `n` packs whose indexes add up to `idx` bytes, the newest of time 5.
        let packs = |n: u64, idx: u64| -> Vec<PackFile> {
            (1..=n)
                .map(|i| PackFile {
                    name: format!("pack-{i}.pack"),
                    bytes: 3 * idx / n,
                    idx_bytes: idx / n,
                    modified: t(i.min(5)).unwrap(),
                    movable: true,
                })
                .collect()
        };
        let big = MIDX_FROM_IDX_BYTES;
        // Small indexes, or one pack: none.
        assert!(!wants_midx(&packs(20, big - 20), None, true));
        assert!(!wants_midx(&packs(1, big * 4), None, false));
        // Large ones: written when missing, or behind the newest pack,
        // or packs are being merged.
        assert!(wants_midx(&packs(2, big), None, false));
        assert!(wants_midx(&packs(20, big), t(4), false));
        assert!(!wants_midx(&packs(20, big), t(5), false));
        assert!(wants_midx(&packs(20, big), t(5), true));
        // One that exists is kept current whatever the size.
        assert!(wants_midx(&packs(3, 0), t(2), false));
        assert!(!wants_midx(&packs(3, 0), t(6), false));
        // No packs: nothing is newer than anything.
        assert!(!newest_after(&[], None));
        assert!(newest_after(&packs(1, 0), None));
    }

    #[test]
    fn the_smallest_packs_are_merged_in_groups_within_the_budget() {
        // Nothing to merge: no packs, one pack, or nothing fits twice.
        assert!(plan_merges(&[], 100).is_empty());
        assert!(plan_merges(&[10], 100).is_empty());
        assert!(plan_merges(&[60, 70, 80], 100).is_empty());
        // The two smallest fit, the third does not and pairs with nothing.
        assert_eq!(plan_merges(&[60, 30, 50], 100), vec![vec![1, 2]]);
        // Equal packs: groups as full as the budget allows, in order; the
        // one left over is no merge.
        assert_eq!(
            plan_merges(&[25; 9], 100),
            vec![vec![0, 1, 2, 3], vec![4, 5, 6, 7]]
        );
        // A big pack next to small ones: the small ones merge, the big one
        // is never read.
        assert_eq!(
            plan_merges(&[1_000, 5, 6, 7, 8], 62),
            vec![vec![1, 2, 3, 4]]
        );
        // Exactly the budget fits; one byte more does not.
        assert_eq!(plan_merges(&[50, 50], 100), vec![vec![0, 1]]);
        assert!(plan_merges(&[50, 51], 100).is_empty());
        assert_eq!(plan_merges(&[50, 50, 51, 49], 100), vec![vec![3, 0]]);
    }

    /// Every group stays within the budget, no pack is in two groups, and
    /// a batch's 49 equal packs (the 100,000 case) merge three by three
    /// within a sixteenth.
    #[test]
    fn no_group_exceeds_the_budget() {
        let sizes: Vec<u64> = (0..200u64).map(|i| 1 + (i * 7919) % 1000).collect();
        for budget in [0, 1, 999, 1_000, 5_000, 100_000] {
            let groups = plan_merges(&sizes, budget);
            let mut seen = std::collections::HashSet::new();
            for g in &groups {
                assert!(g.len() >= 2);
                assert!(g.iter().map(|&i| sizes[i]).sum::<u64>() <= budget);
                assert!(g.iter().all(|i| seen.insert(*i)), "a pack in two groups");
            }
        }
        let batch = vec![4_000_000u64; 49];
        let total: u64 = batch.iter().sum();
        let groups = plan_merges(&batch, total / BUDGET_SHARE);
        assert_eq!(groups.len(), 16);
        assert!(groups.iter().all(|g| g.len() == 3));
    }

    /// A bare repository in a new temporary directory (kept while the
    /// first value lives), and the environment git runs in there.
    fn bare_repo() -> (tempfile::TempDir, std::path::PathBuf, Vec<(String, String)>) {
        let dir = tempfile::tempdir().unwrap();
        let git_dir = dir.path().join("repo.git");
        let env: Vec<(String, String)> = vec![
            ("PATH".into(), std::env::var("PATH").unwrap_or_default()),
            ("HOME".into(), dir.path().display().to_string()),
            ("GIT_CONFIG_NOSYSTEM".into(), "1".into()),
            ("GIT_CONFIG_GLOBAL".into(), "/dev/null".into()),
        ];
        gix::init_bare(&git_dir).unwrap();
        (dir, git_dir, env)
    }

    /// `n` incompressible bytes (a fixed LCG).
    fn incompressible(n: usize) -> Vec<u8> {
        let mut x: u64 = 1;
        (0..n)
            .map(|_| {
                x = x
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                (x >> 56) as u8
            })
            .collect()
    }

    /// One `git fast-import` of a commit on `refs/heads/<branch>` holding
    /// `data` at `path`: a pack of its own.
    fn import_pack(
        git_dir: &Path,
        env: &[(String, String)],
        branch: &str,
        path: &str,
        data: &[u8],
    ) {
        let mut stream = format!("blob\nmark :1\ndata {}\n", data.len()).into_bytes();
        stream.extend_from_slice(data);
        stream.extend_from_slice(
            format!(
                "\ncommit refs/heads/{branch}\ncommitter T <t@example.com> 1700000000 +0000\ndata {}\n{branch}\nM 100644 :1 {path}\n\n",
                branch.len()
            )
            .as_bytes(),
        );
        git(
            git_dir,
            env,
            &["-c", "fastimport.unpackLimit=0", "fast-import", "--quiet"],
            &stream,
        );
    }

    /// Starts the background job, if one is due, and waits for it.
    fn run_job(store: &Store) {
        store.maybe_repack();
        for _ in 0..1200 {
            if !store.repack_running() {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(100));
        }
        assert!(!store.repack_running(), "the job is still running");
    }

    /// What [`merge_ten`] does to the names of the ten packs before the
    /// merge.
    #[derive(Clone, Copy, PartialEq)]
    enum Names {
        Kept,
        Removed,
        /// One line more, naming an object that is not there.
        Garbled,
    }

    /// A line of names that `git pack-objects` refuses.
    const MISSING: &str = "ffffffffffffffffffffffffffffffffffffffff d/missing";

    /// Ten packs of our own (ten transactions) next to a big one, merged
    /// with the names of their trees, without, or with a bad one: returns
    /// the bytes of the ten `.pack` files, of what they were merged into,
    /// and the lines of the names files before and after.
    fn merge_ten(names: Names) -> (u64, u64, Vec<String>, Vec<String>) {
        let (_dir, git_dir, env) = bare_repo();
        // Enough that the ten fit a sixteenth of the whole: one group.
        import_pack(&git_dir, &env, "big", "big", &incompressible(2_600_000));
        let host = super::super::Host {
            git_program: "git".into(),
            git_env: env.clone(),
        };
        let store = Store::open_raw(&git_dir, host, true).unwrap();
        let tree = super::super::tx::tests::ten_transactions(&store);
        let pack_dir = git_dir.join("objects/pack");
        let names_dir = git_dir.join(crate::store::pack::PACK_NAMES);
        let lines = || {
            let mut v: Vec<String> = fs::read_dir(&names_dir)
                .map(|d| {
                    d.flat_map(|e| {
                        fs::read_to_string(e.unwrap().path())
                            .unwrap()
                            .lines()
                            .map(str::to_owned)
                            .collect::<Vec<_>>()
                    })
                    .collect()
                })
                .unwrap_or_default();
            v.sort();
            v
        };
        let before = packs_in(&pack_dir);
        assert_eq!(before.len(), 11);
        let pack_bytes = |p: &PackFile| fs::metadata(pack_dir.join(&p.name)).unwrap().len();
        let big_pack = before.iter().max_by_key(|p| p.bytes).unwrap().clone();
        let ten: u64 = before
            .iter()
            .filter(|p| **p != big_pack)
            .map(pack_bytes)
            .sum();
        // Every pack of ours has its names, each of a whole tree it holds.
        assert_eq!(fs::read_dir(&names_dir).unwrap().count(), 10);
        for p in before.iter().filter(|p| **p != big_pack) {
            let names =
                fs::read_to_string(names_dir.join(p.name.trim_end_matches(".pack"))).unwrap();
            let idx = fs::read(pack_dir.join(&p.name).with_extension("idx")).unwrap();
            let listed = git(&git_dir, &env, &["show-index"], &idx);
            for line in names.lines() {
                let (id, path) = line.split_once(' ').unwrap();
                assert!(path.starts_with('d'), "{line}");
                assert!(listed.contains(id), "{line} not in {}", p.name);
                assert_eq!(git(&git_dir, &env, &["cat-file", "-t", id], b""), "tree\n");
            }
        }
        let names_before = lines();
        match names {
            // The names of a pack that is gone (one `git gc` replaced)
            // go at the end.
            Names::Kept => {
                fs::write(names_dir.join(format!("pack-{}", "0".repeat(40))), "x d\n").unwrap()
            }
            Names::Removed => fs::remove_dir_all(&names_dir).unwrap(),
            Names::Garbled => {
                let first = before.iter().find(|p| **p != big_pack).unwrap();
                let file = names_dir.join(first.name.trim_end_matches(".pack"));
                let text = fs::read_to_string(&file).unwrap();
                fs::write(&file, format!("{MISSING}\n{text}")).unwrap();
            }
        }
        git(&git_dir, &env, &["config", "gc.autoPackLimit", "2"], b"");
        let store = Store::open_raw(&git_dir, store.host.clone(), false).unwrap();
        run_job(&store);
        let after = packs_in(&pack_dir);
        assert!(after.contains(&big_pack));
        assert_eq!(after.len(), 2, "{after:?}");
        let merged: u64 = after
            .iter()
            .filter(|p| **p != big_pack)
            .map(pack_bytes)
            .sum();
        let fresh = Store::open_raw(&git_dir, store.host.clone(), false).unwrap();
        let tip = fresh.tip(crate::store::Branch::Ledger).unwrap().unwrap();
        assert_eq!(
            fresh
                .repo()
                .find_commit(tip)
                .unwrap()
                .tree_id()
                .unwrap()
                .detach(),
            tree
        );
        fsck(&git_dir, &env);
        if names != Names::Removed {
            // The merged pack's names are the ten's, under its own name.
            let files: Vec<String> = fs::read_dir(&names_dir)
                .unwrap()
                .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .collect();
            let merged_pack = after.iter().find(|p| **p != big_pack).unwrap();
            assert_eq!(
                files,
                vec![merged_pack.name.trim_end_matches(".pack").to_owned()]
            );
        }
        (ten, merged, names_before, lines())
    }

    /// The trees our packs hold whole, named by their directory, become
    /// deltas of other versions of it when their packs are merged; without
    /// names each object is copied as it is.
    #[test]
    fn named_trees_merge_into_deltas_and_their_names_follow_them() {
        let (ten, named, before, after) = merge_ten(Names::Kept);
        assert!(!before.is_empty());
        assert_eq!(after, before);
        let (ten_again, copied, _, left) = merge_ten(Names::Removed);
        assert_eq!(ten_again, ten);
        assert!(left.is_empty(), "{left:?}");
        assert!(copied * 100 >= ten * 95, "copied: {copied} of {ten}");
        assert!(
            named * 100 <= copied * 93,
            "named: {named}, copied: {copied}"
        );
    }

    /// Names `git pack-objects` refuses do not hold the group back for
    /// good: it is merged from the indexes' list, as if it had none.
    #[test]
    fn a_group_whose_names_are_refused_is_merged_without_them() {
        let (ten, merged, _, after) = merge_ten(Names::Garbled);
        assert!(merged * 100 >= ten * 95, "merged: {merged} of {ten}");
        assert!(after.iter().any(|l| l == MISSING), "{after:?}");
    }

    /// A merge lists its group's objects from the packs' indexes before it
    /// writes anything: when one index cannot be read, the group is left
    /// as it was (its packs and every object in them), and nothing of the
    /// attempt stays behind.
    #[test]
    fn a_group_whose_index_cannot_be_read_is_left_whole() {
        let (_dir, git_dir, env) = bare_repo();
        // One pack of 300,000 incompressible bytes, then four small ones:
        // the four fit a sixteenth of the whole, so they are one group.
        import_pack(&git_dir, &env, "b0", "f0", &incompressible(300_000));
        for i in 1..5 {
            import_pack(
                &git_dir,
                &env,
                &format!("b{i}"),
                &format!("f{i}"),
                format!("small {i}\n").as_bytes(),
            );
        }
        git(&git_dir, &env, &["config", "gc.autoPackLimit", "2"], b"");
        let pack_dir = git_dir.join("objects/pack");
        let before = packs_in(&pack_dir);
        assert_eq!(before.len(), 5);
        let small = before.iter().min_by_key(|p| p.bytes).unwrap();
        let idx = pack_dir.join(&small.name).with_extension("idx");
        let whole = fs::read(&idx).unwrap();
        let mut perms = fs::metadata(&idx).unwrap().permissions();
        #[allow(clippy::permissions_set_readonly_false)]
        perms.set_readonly(false);
        fs::set_permissions(&idx, perms).unwrap();
        fs::write(&idx, &whole[..100]).unwrap();
        let host = super::super::Host {
            git_program: "git".into(),
            git_env: env.clone(),
        };
        let store = Store::open_raw(&git_dir, host, false).unwrap();
        run_job(&store);
        let names = |packs: Vec<PackFile>| packs.into_iter().map(|p| p.name).collect::<Vec<_>>();
        let files = |dir: &Path| {
            let mut v: Vec<String> = fs::read_dir(dir)
                .unwrap()
                .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .collect();
            v.sort();
            v
        };
        assert_eq!(names(packs_in(&pack_dir)), names(before.clone()));
        // The index is put back: every object of the four is still there.
        fs::write(&idx, &whole).unwrap();
        for i in 0..5 {
            git(
                &git_dir,
                &env,
                &["cat-file", "-e", &format!("b{i}:f{i}")],
                b"",
            );
        }
        assert!(
            !files(&git_dir.join("lore"))
                .iter()
                .any(|f| f.contains("objects")),
            "{:?}",
            files(&git_dir.join("lore"))
        );
    }

    /// A repository with one big pack, 60 small ones (one `git
    /// fast-import` each) and loose objects past `gc.auto`: the job packs
    /// the loose objects, merges the small packs in groups within the
    /// budget and never touches the big one (`git gc --auto` alone would
    /// have rewritten everything into one pack), and every object stays
    /// readable, through a handle opened before the merge too.
    #[test]
    fn many_packs_end_as_fewer_and_every_object_stays_readable() {
        let (_dir, git_dir, env) = bare_repo();
        let mut blobs = Vec::new();
        for i in 0..61 {
            let data = match i {
                0 => incompressible(300_000),
                _ => format!("blob {i}\n").repeat(20 + 3 * i).into_bytes(),
            };
            blobs.push(
                gix::objs::compute_hash(gix::hash::Kind::Sha1, gix::objs::Kind::Blob, &data)
                    .unwrap(),
            );
            import_pack(&git_dir, &env, &format!("b{i}"), &format!("f{i}"), &data);
        }
        let pack_dir = git_dir.join("objects/pack");
        let before = packs_in(&pack_dir);
        assert_eq!(before.len(), 61);
        let biggest = before.iter().max_by_key(|p| p.bytes).unwrap().clone();
        let total: u64 = before.iter().map(|p| p.bytes).sum();
        let host = super::super::Host {
            git_program: "git".into(),
            git_env: env.clone(),
        };
        let store = Store::open_raw(&git_dir, host, false).unwrap();
        // Loose objects past gc.auto's threshold (2 in objects/17), reachable
        // (gc packs only those): one more commit of 600 files, unpacked.
        git(&git_dir, &env, &["config", "gc.auto", "256"], b"");
        let mut stream = String::new();
        let mut files = String::new();
        for n in 0..600 {
            let data = format!("loose {n}\n");
            blobs.push(
                gix::objs::compute_hash(
                    gix::hash::Kind::Sha1,
                    gix::objs::Kind::Blob,
                    data.as_bytes(),
                )
                .unwrap(),
            );
            stream.push_str(&format!(
                "blob\nmark :{}\ndata {}\n{data}\n",
                n + 1,
                data.len()
            ));
            files.push_str(&format!("M 100644 :{} l{n}\n", n + 1));
        }
        stream.push_str(&format!(
            "commit refs/heads/loose\ncommitter T <t@example.com> 1700000000 +0000\ndata 6\nloose\n{files}\n"
        ));
        git(
            &git_dir,
            &env,
            &[
                "-c",
                "fastimport.unpackLimit=10000",
                "fast-import",
                "--quiet",
            ],
            stream.as_bytes(),
        );
        assert!(fs::read_dir(git_dir.join("objects/17")).map_or(0, |d| d.count()) >= 2);
        let store = Store::open_raw(&git_dir, store.host.clone(), false).unwrap();
        for id in &blobs {
            assert!(store.repo.has_object(id), "{id} before");
        }
        run_job(&store);
        // A pid file naming a live process that is not the job (its pid
        // reused, after a reboot, by this test) does not hold the next one.
        fs::write(git_dir.join(REPACK_PID), std::process::id().to_string()).unwrap();
        assert!(!store.repack_running());
        let after = packs_in(&pack_dir);
        assert!(
            after.len() < 50 && after.len() >= 2,
            "{} packs after the merges",
            after.len()
        );
        assert!(after.contains(&biggest), "the big pack was rewritten");
        // What gc packed (the loose commit's pack) aside, each new pack is a
        // merge, and within the budget.
        let loose_commit = git(&git_dir, &env, &["rev-parse", "refs/heads/loose"], b"");
        let merged: Vec<&PackFile> = after
            .iter()
            .filter(|p| !before.contains(p))
            .filter(|p| {
                let idx = fs::read(pack_dir.join(&p.name).with_extension("idx")).unwrap();
                !git(&git_dir, &env, &["show-index"], &idx).contains(loose_commit.trim())
            })
            .collect();
        assert!(merged.len() >= 2, "{} merges", merged.len());
        for p in merged {
            assert!(
                p.bytes <= total / BUDGET_SHARE,
                "a merged pack of {} bytes, over a sixteenth of {total}",
                p.bytes
            );
        }
        assert_eq!(
            fs::read_dir(git_dir.join("objects/17")).map_or(0, |d| d.count()),
            0,
            "loose objects left"
        );
        // Every object, through the handle opened before and a new one.
        let fresh = Store::open_raw(&git_dir, store.host.clone(), false).unwrap();
        for id in &blobs {
            assert!(store.repo.find_blob(*id).is_ok(), "{id} after, old handle");
            assert!(fresh.repo.find_blob(*id).is_ok(), "{id} after, new handle");
        }
        let refs = git(
            &git_dir,
            &env,
            &["for-each-ref", "--format=%(refname)"],
            b"",
        );
        assert_eq!(refs.lines().count(), 62);
        fsck(&git_dir, &env);
        assert!(
            !commit_graph_is_behind(&git_dir, &after),
            "no commit-graph after"
        );
        let graph = git(&git_dir, &env, &["commit-graph", "verify"], b"");
        assert!(graph.is_empty(), "{graph}");
        assert!(!git_dir.join("gc.log").exists());
    }
}
