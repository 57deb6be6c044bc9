#!/usr/bin/env bash
# Search benchmark (issue 21; docs/PERFORMANCE.md, "Search").
#
#   bench/search.sh            pools of 10,000 and 100,000 lessons
#   bench/search.sh --quick    pools of 1,000 and 10,000
#
# Options:
#   --no-build   use target/release/git-lore and the bench_pool example as
#                they are
#   --tmpfs      build the repositories on /dev/shm (deleted at the end)
# Environment overrides: SIZES (space-separated pool sizes), RUNS, OUT, POOL,
# GIT_LORE_BIN.
#
# For each size it builds, through git-lore's own signed write path
# (examples/bench_pool.rs, as bench/recall.sh does), a lesson repository
# whose pool/org holds that many lessons, packs it and brings the index up
# to date; then it measures, process start included:
#   (q) git lore search PKG            one package name, found exactly (a
#                                      few lessons name it; the goal:
#                                      under 50 ms at 100,000)
#   (w) git lore search synthetic misbehaves
#                                      two words every lesson holds: all of
#                                      them ranked, the best 20 printed
#   (g) git grep -w -F PKG pool/org    what a user would run instead: the
#                                      same package, unranked, over the
#                                      pool branch's blobs
#   (gw) git grep -l -w -F misbehaves pool/org
#                                      the same for a word every lesson holds
# and the peak RSS of (q). PKG is the first package of the pool's first
# lesson (the same lesson at every size). It also records whether (q)'s
# first hit names PKG in its stack (exact_first: 1 or 0): an exact package
# match must rank first. Results: $OUT/results.tsv and results.md.
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
        -h|--help) sed -n '2,32p' "$0"; exit 0 ;;
        *) echo "unknown option $arg" >&2; exit 1 ;;
    esac
done
if [ "$QUICK" = 1 ]; then
    SIZES=${SIZES:-"1000 10000"}; RUNS=${RUNS:-10}
else
    SIZES=${SIZES:-"10000 100000"}; RUNS=${RUNS:-30}
fi
OUT=${OUT:-$HERE/out/search}
if [ "$TMPFS" = 1 ]; then W=/dev/shm/git-lore-bench-search; else W=$OUT/work; fi
BIN=${GIT_LORE_BIN:-$ROOT/target/release/git-lore}
POOL=${POOL:-$ROOT/target/release/examples/bench_pool}
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

# record SIZE FIGURE VALUE: a count, not a time.
record() { printf '%s\t%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$3" "$3" >>"$RES"; }

for size in $SIZES; do
    T=$W/$size
    mkdir -p "$T/home"
    hermetic_env "$T"
    say "$size lessons: git lore init, then bench_pool"
    "${H[@]}" "$BIN" init >/dev/null 2>"$OUT/$size-init.log"
    start=$(date +%s.%N)
    "${H[@]}" "$POOL" "$T/lessons.git" "$T/project" "$size"
    say "  built in $(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN{printf "%.1f", b-a}') s; packing"
    # git-lore may have started a background gc: let it finish, then pack.
    tries=0
    until git -C "$T/lessons.git" gc --quiet 2>/dev/null; do
        tries=$((tries + 1))
        [ "$tries" -lt 120 ] || { echo "git gc kept failing" >&2; exit 1; }
        sleep 1
    done
    "${H[@]}" "$BIN" index >/dev/null
    pkg=$("${H[@]}" "$BIN" list --pool org --json |
        python3 -c 'import json, sys; print(json.load(sys.stdin)[0]["stack"][0])')
    found=$("${H[@]}" "$BIN" search "$pkg" --json --limit 0)
    matched=$(printf '%s' "$found" | python3 -c 'import json, sys; print(len(json.load(sys.stdin)))')
    first=$(printf '%s' "$found" | python3 -c '
import json, sys
hits = json.load(sys.stdin)
print(1 if hits and sys.argv[1] in hits[0]["stack"] and hits[0]["package_match"] else 0)' "$pkg")
    named=$(git -C "$T/lessons.git" grep -l -w -F "$pkg" refs/heads/pool/org | wc -l)
    say "  $pkg: search finds $matched, git grep $named; exact match first: $first; timing"
    record "$size" matched "$matched"
    record "$size" grep_files "$named"
    record "$size" exact_first "$first"
    time_it "$size" q "${H[@]}" "$BIN" search "$pkg"
    time_it "$size" w "${H[@]}" "$BIN" search synthetic misbehaves
    time_it "$size" g git -C "$T/lessons.git" grep -w -F "$pkg" refs/heads/pool/org
    time_it "$size" gw git -C "$T/lessons.git" grep -l -w -F misbehaves refs/heads/pool/org
    rss=$( { "${H[@]}" /usr/bin/time -f '%M' "$BIN" search "$pkg" >/dev/null; } 2>&1 | tail -1)
    record "$size" q_peak_rss_kib "$rss"
done

{
    echo "| size | figure | mean | min | max |"
    echo "|---:|---|---:|---:|---:|"
    tail -n +2 "$RES" | awk -F'\t' '{
        unit = ($2 ~ /rss/) ? " KiB" : (($2 ~ /^(matched|grep_files|exact_first)$/) ? "" : " ms");
        printf "| %s | %s | %s%s | %s%s | %s%s |\n", $1, $2, $3, unit, $4, unit, $5, unit }'
} >"$OUT/results.md"
cat "$OUT/results.md"
[ "$TMPFS" = 1 ] && rm -rf "$W"
exit 0
