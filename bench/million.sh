#!/usr/bin/env bash
# One-record costs at a million lessons, next to the same at 10,000 (issue
# 24; docs/PERFORMANCE.md, "A million lessons (issue 24, second round)").
#
#   bench/million.sh                 pools of 10,000 and 1,000,000
#   SIZES="10000 100000" bench/million.sh
#
# The batch that writes a million records, against git fast-import, is
# bench/write.sh's (N=1000000 bench/write.sh).
#
# Options:
#   --no-build   use target/release/git-lore and the bench_pool example as
#                they are
#   --tmpfs      build the repositories on /dev/shm (deleted at the end)
# Environment overrides: SIZES, RUNS (timed runs of each read, default 20),
# CONFIRMS (one-record confirms timed, default 20), RELEVANT (default
# 10000; 0 for none), OUT, POOL, GIT_LORE_BIN.
#
# For each size it builds, through git-lore's own signed write path
# (examples/bench_pool.rs), a lesson repository whose pool/org holds that
# many lessons (past the first RELEVANT, lessons name only packages that are
# not installed: the project's share of a bigger pool is that of the
# 10,000 one, so recall's answer is the same at every size and what grows
# is only the pool; RELEVANT=0 draws every lesson alike, and recall then
# prints a hundred times as many lessons at 1,000,000 as at 10,000), waits for the packing git-lore starts in the background (as a
# user has it) and brings the index up to date, ingests CONFIRMS
# artifacts into its ledger, then measures, process start included:
#   (s) git lore seen ART              one artifact the ledger holds
#   (q) git lore search PKG            one package name (see bench/search.sh)
#   (r) git lore recall --project P    a project whose lockfile lists 2,000
#                                      packages (see bench/recall.sh)
#   (c) git lore confirm ID private    one record written: a signed commit,
#                                      the ref moved, the index updated;
#                                      each of the CONFIRMS proposals once
#   (x) git commit-tree + update-ref   what git itself takes for one
#                                      commit on the same repository
# and the pool's build time, the repository's and the index's sizes, and
# how many lessons (r) prints.
# Results: $OUT/results.tsv and results.md.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/.." && pwd)
BUILD=1
TMPFS=0
for arg in "$@"; do
    case $arg in
        --no-build) BUILD=0 ;;
        --tmpfs) TMPFS=1 ;;
        -h|--help) sed -n '2,38p' "$0"; exit 0 ;;
        *) echo "unknown option $arg" >&2; exit 1 ;;
    esac
done
SIZES=${SIZES:-"10000 1000000"}
RUNS=${RUNS:-20}
CONFIRMS=${CONFIRMS:-20}
RELEVANT=${RELEVANT:-10000}
OUT=${OUT:-$HERE/out/million}
if [ "$TMPFS" = 1 ]; then W=/dev/shm/git-lore-bench-million; else W=$OUT/work; fi
BIN=${GIT_LORE_BIN:-$ROOT/target/release/git-lore}
POOL=${POOL:-$ROOT/target/release/examples/bench_pool}
rm -rf "$OUT" "$W"
mkdir -p "$OUT" "$W"
RES=$OUT/results.tsv
printf 'size\tfigure\tmean_ms\tmin_ms\tmax_ms\n' >"$RES"

LOG=$OUT/run.log
# shellcheck source=lib/prelude.sh
. "$HERE/lib/prelude.sh"

if [ "$BUILD" = 1 ]; then
    say "building the release binary and the bench_pool example"
    (cd "$ROOT" && cargo build --release --quiet && cargo build --release --quiet --example bench_pool)
fi
[ -x "$BIN" ] && [ -x "$POOL" ] || { echo "no binary at $BIN or $POOL (build first, or drop --no-build)" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "needs /usr/bin/time (apt-get install time)" >&2; exit 1; }

# shellcheck source=lib/timing.sh
. "$HERE/lib/timing.sh"

# record SIZE FIGURE VALUE: a count or a size, not a time.
record() { printf '%s\t%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$3" "$3" >>"$RES"; }

# each SIZE FIGURE FILE: mean, min and max of the wall times (ns, one per
# line) in FILE, in milliseconds, appended to RES.
each() {
    python3 - "$1" "$2" "$3" >>"$RES" <<'PY'
import statistics, sys
ms = [int(l) / 1e6 for l in open(sys.argv[3]) if l.strip()]
print(f"{sys.argv[1]}\t{sys.argv[2]}\t{statistics.mean(ms):.1f}\t{min(ms):.1f}\t{max(ms):.1f}")
PY
}

say "git-lore $("$BIN" --version) at $(git -C "$ROOT" rev-parse --short HEAD); $(nproc) cpus; sizes $SIZES"
python3 "$HERE/lib/gen_artifacts.py" --n "$CONFIRMS" --seed 2 --jsonl "$W/arts.jsonl" >/dev/null
for size in $SIZES; do
    T=$W/$size
    mkdir -p "$T/home"
    hermetic_env "$T"
    say "$size lessons: git lore init, then bench_pool"
    "${H[@]}" "$BIN" init >/dev/null 2>"$OUT/$size-init.log"
    start=$(date +%s%N)
    rel=$RELEVANT
    [ "$rel" -gt 0 ] || rel=$size
    "${H[@]}" "$POOL" "$T/lessons.git" "$T/project" "$size" "$rel"
    built=$((($(date +%s%N) - start) / 1000000))
    say "  built in $((built / 1000)) s; waiting for its background packing"
    record "$size" pool_build_ms "$built"
    # The repository as a user has it: packed by git-lore's own background
    # job (budgeted merges, commit-graph), not by a `git gc` of everything.
    start=$(date +%s%N)
    settle "$T/lessons.git"
    record "$size" pool_settle_ms "$((($(date +%s%N) - start) / 1000000))"
    "${H[@]}" "$BIN" index >/dev/null
    "${H[@]}" "$BIN" ingest "$W/arts.jsonl" >"$OUT/$size-ingest.out" 2>&1
    settle "$T/lessons.git"
    "${H[@]}" "$BIN" index >/dev/null
    record "$size" packs "$(find "$T/lessons.git/objects/pack" -name '*.pack' | wc -l)"
    record "$size" repo_kib "$(du -sk "$T/lessons.git/objects" | cut -f1)"
    record "$size" index_kib "$(du -sk "$T/lessons.git/lore" | cut -f1)"
    record "$size" index_layers "$(find "$T/lessons.git/lore/index.d" -type f | wc -l)"
    art=$(awk '/^proposed / {print $2; exit}' "$OUT/$size-ingest.out")
    [ -n "$art" ] || { echo "no proposal in $OUT/$size-ingest.out" >&2; exit 1; }
    pkg=$("${H[@]}" "$BIN" list --pool org --json |
        python3 -c 'import json, sys; print(json.load(sys.stdin)[0]["stack"][0])')
    say "  timing seen $art, search $pkg, recall"
    time_it "$size" s "${H[@]}" "$BIN" seen "$art"
    time_it "$size" q "${H[@]}" "$BIN" search "$pkg"
    time_it "$size" r "${H[@]}" "$BIN" recall --project "$T/project"
    rss=$( { "${H[@]}" /usr/bin/time -f '%M' "$BIN" recall --project "$T/project" >/dev/null; } 2>&1 | tail -1)
    record "$size" r_peak_rss_kib "$rss"
    record "$size" r_lessons "$("${H[@]}" "$BIN" recall --project "$T/project" | wc -l)"
    say "  $CONFIRMS confirms, each of its own proposal"
    : >"$OUT/$size-c.ns"
    awk '/^proposed / {print $4}' "$OUT/$size-ingest.out" | while read -r id; do
        t0=$(date +%s%N)
        "${H[@]}" "$BIN" confirm "$id" private >/dev/null
        echo $(($(date +%s%N) - t0)) >>"$OUT/$size-c.ns"
    done
    each "$size" c "$OUT/$size-c.ns"
    # What git takes for one commit: a commit object and a ref update, on a
    # side ref of the same repository (unsigned).
    : >"$OUT/$size-x.ns"
    G=("${H[@]}" GIT_AUTHOR_NAME=bench GIT_AUTHOR_EMAIL=bench@example.org
        GIT_COMMITTER_NAME=bench GIT_COMMITTER_EMAIL=bench@example.org git -C "$T/lessons.git")
    tree=$("${G[@]}" rev-parse "refs/heads/ledger^{tree}")
    for _ in $(seq "$CONFIRMS"); do
        t0=$(date +%s%N)
        c=$("${G[@]}" commit-tree "$tree" -m bench) && "${G[@]}" update-ref refs/bench/x "$c"
        echo $(($(date +%s%N) - t0)) >>"$OUT/$size-x.ns"
    done
    each "$size" x "$OUT/$size-x.ns"
done

{
    echo "| size | figure | mean | min | max |"
    echo "|---:|---|---:|---:|---:|"
    tail -n +2 "$RES" | awk -F'\t' '{
        unit = ($2 ~ /kib$/) ? " KiB" : (($2 ~ /_ms$|^[sqrcx]$/) ? " ms" : "");
        printf "| %s | %s | %s%s | %s%s | %s%s |\n", $1, $2, $3, unit, $4, unit, $5, unit }'
} >"$OUT/results.md"
cat "$OUT/results.md"
[ "$TMPFS" = 1 ] && rm -rf "$W"
exit 0
