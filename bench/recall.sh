#!/usr/bin/env bash
# Recall benchmark (issue 9; docs/PERFORMANCE.md, "Recall").
#
#   bench/recall.sh            pools of 1,000 and 100,000 lessons, and
#                              100,000 of which only the 1,000 of the first
#                              pool name installed packages ("100000s")
#   bench/recall.sh --quick    the same with 10,000 for 100,000
#
# Options:
#   --no-build   use target/release/git-lore and the bench_pool example as
#                they are
#   --tmpfs      build the repositories on /dev/shm (deleted at the end)
# Environment overrides: SIZES (space-separated pool sizes; a size ending
# in "s" is sparse: only its first 1,000 lessons may name installed
# packages), RUNS, OUT, GIT_LORE_BIN.
#
# For each size it builds, through git-lore's own signed write path
# (examples/bench_pool.rs), a lesson repository whose pool/org holds that
# many lessons and a project whose package-lock.json lists 2,000 packages;
# then it measures, process start included:
#   (r) git lore recall --project P             (text; the hook's work)
#   (m) git lore recall --project P --format markdown
#   (s) git lore stack --project P              (lockfile parsing alone)
#   (g) git ls-tree -r pool/org | git cat-file --batch
#       (reading the same lessons out of git: what recall would cost if it
#       read pool blobs instead of the index)
# and the peak RSS of (r). Results: $OUT/results.tsv and results.md.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/.." && pwd)
BUILD=1
TMPFS=0
QUICK=0
for arg in "$@"; do
    case $arg in
        --quick) QUICK=1 ;;
        --no-build) BUILD=0 ;;
        --tmpfs) TMPFS=1 ;;
        -h|--help) sed -n '2,25p' "$0"; exit 0 ;;
        *) echo "unknown option $arg" >&2; exit 1 ;;
    esac
done
if [ "$QUICK" = 1 ]; then
    SIZES=${SIZES:-"1000 10000 10000s"}; RUNS=${RUNS:-10}
else
    SIZES=${SIZES:-"1000 100000 100000s"}; RUNS=${RUNS:-30}
fi
OUT=${OUT:-$HERE/out/recall}
if [ "$TMPFS" = 1 ]; then W=/dev/shm/git-lore-bench-recall; else W=$OUT/work; fi
BIN=${GIT_LORE_BIN:-$ROOT/target/release/git-lore}
POOL=$ROOT/target/release/examples/bench_pool
rm -rf "$OUT" "$W"
mkdir -p "$OUT" "$W"
RES=$OUT/results.tsv
printf 'size\tfigure\tmean_ms\tmin_ms\tmax_ms\n' >"$RES"

say() { echo "[$(date +%H:%M:%S)] $*" >&2; }

if [ "$BUILD" = 1 ]; then
    say "building the release binary and the bench_pool example"
    (cd "$ROOT" && cargo build --release --quiet && cargo build --release --quiet --example bench_pool)
fi

# shellcheck source=lib/timing.sh
. "$HERE/lib/timing.sh"

for size in $SIZES; do
    T=$W/$size
    mkdir -p "$T/home"
    hermetic_env "$T"
    say "$size lessons: git lore init, then bench_pool"
    "${H[@]}" "$BIN" init >/dev/null 2>"$OUT/$size-init.log"
    start=$(date +%s.%N)
    case $size in
        *s) "${H[@]}" "$POOL" "$T/lessons.git" "$T/project" "${size%s}" 1000 ;;
        *) "${H[@]}" "$POOL" "$T/lessons.git" "$T/project" "$size" ;;
    esac
    say "  built in $(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN{printf "%.1f", b-a}') s; packing"
    # git-lore may have started a background gc: let it finish, then pack.
    tries=0
    until git -C "$T/lessons.git" gc --quiet 2>/dev/null; do
        tries=$((tries + 1))
        [ "$tries" -lt 120 ] || { echo "git gc kept failing" >&2; exit 1; }
        sleep 1
    done
    "${H[@]}" "$BIN" index >/dev/null
    applying=$("${H[@]}" "$BIN" recall --project "$T/project" | wc -l)
    say "  $applying lessons apply; timing"
    time_it "$size" r "${H[@]}" "$BIN" recall --project "$T/project"
    time_it "$size" m "${H[@]}" "$BIN" recall --project "$T/project" --format markdown
    time_it "$size" s "${H[@]}" "$BIN" stack --project "$T/project"
    time_it "$size" g /bin/sh -c "git -C '$T/lessons.git' ls-tree -r --object-only refs/heads/pool/org | git -C '$T/lessons.git' cat-file --batch"
    rss=$( { "${H[@]}" /usr/bin/time -f '%M' "$BIN" recall --project "$T/project" >/dev/null; } 2>&1 | tail -1)
    printf '%s\tr_peak_rss_kib\t%s\t%s\t%s\n' "$size" "$rss" "$rss" "$rss" >>"$RES"
    printf '%s\tapplying\t%s\t%s\t%s\n' "$size" "$applying" "$applying" "$applying" >>"$RES"
done

{
    echo "| size | figure | mean | min | max |"
    echo "|---:|---|---:|---:|---:|"
    tail -n +2 "$RES" | awk -F'\t' '{
        unit = ($2 ~ /rss/) ? " KiB" : (($2 == "applying") ? "" : " ms");
        printf "| %s | %s | %s%s | %s%s | %s%s |\n", $1, $2, $3, unit, $4, unit, $5, unit }'
} >"$OUT/results.md"
cat "$OUT/results.md"
[ "$TMPFS" = 1 ] && rm -rf "$W"
exit 0
