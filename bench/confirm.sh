#!/usr/bin/env bash
# One-record commands on a large index (docs/PERFORMANCE.md, "One-record
# commands and the layered index").
#
#   bench/confirm.sh                      N=100000 pool lessons, 100 confirms
#   OLD=/path/to/older/git-lore bench/confirm.sh
#                                         the same, alternating with an older
#                                         build on a copy of the repository
#
# Builds a repository whose pool/org holds N lessons (examples/bench_pool,
# so the index holds N recall summaries), packs it, ingests CONFIRMS proposals,
# then times CONFIRMS `git lore confirm ID private` (process start
# included), each under /usr/bin/time; with OLD, alternating old and new per
# lesson on two copies, each warmed by its own `git lore index` first.
# Environment: N, CONFIRMS, OLD, GIT_LORE_BIN, W (work dir; default on
# /dev/shm, deleted at the end). Needs the release build and bench_pool:
#   cargo build --release --examples && cargo build --release
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/.." && pwd)
N=${N:-100000}
CONFIRMS=${CONFIRMS:-100}
NEW=${GIT_LORE_BIN:-$ROOT/target/release/git-lore}
OLD=${OLD:-}
POOL=$ROOT/target/release/examples/bench_pool
W=${W:-/dev/shm/git-lore-bench-confirm}
case ${1:-} in -h|--help) sed -n '2,17p' "$0"; exit 0 ;; esac
LOG=/dev/null
# shellcheck source=lib/prelude.sh
. "$HERE/lib/prelude.sh"
[ -x "$NEW" ] && [ -x "$POOL" ] || { echo "build first (see --help)" >&2; exit 1; }
rm -rf "$W"; mkdir -p "$W/u"
pool_at "$W/u" "$N" "$NEW" "$POOL"
# One proposal per confirm timed (each confirm needs its own pending lesson).
python3 "$HERE/lib/gen_artifacts.py" --n "$CONFIRMS" --seed 2 --jsonl "$W/arts.jsonl" >/dev/null
as "$W/u" "$NEW" ingest "$W/arts.jsonl" >"$W/ingest.out" 2>&1
awk '/^proposed / {print $4}' "$W/ingest.out" | sed -n "1,${CONFIRMS}p" >"$W/lessons"
VERSIONS="new"; [ -n "$OLD" ] && VERSIONS="old new"
for v in $VERSIONS; do
    cp -a "$W/u" "$W/$v"
    bin=$NEW; [ "$v" = old ] && bin=$OLD
    as "$W/$v" "$bin" index >/dev/null
    : >"$W/$v.times"
    : >"$W/$v.wall"
done
say "$(wc -l <"$W/lessons") confirms each: $VERSIONS"
while read -r id; do
    for v in $VERSIONS; do
        bin=$NEW; [ "$v" = old ] && bin=$OLD
        # Wall time in ns from the shell (GNU time's %e has 10 ms steps;
        # the two `date` calls add about a millisecond); CPU from GNU time.
        t0=$(date +%s%N)
        as "$W/$v" /usr/bin/time -a -o "$W/$v.times" -f "%U %S" "$bin" confirm "$id" private >/dev/null
        echo $(($(date +%s%N) - t0)) >>"$W/$v.wall"
    done
done <"$W/lessons"
for v in $VERSIONS; do
    python3 - "$W/$v.times" "$v" "$W/$v.wall" <<'PY'
import statistics, sys
rows = [list(map(float, l.split())) for l in open(sys.argv[1]) if l[:1].isdigit()]
wall = [int(l) / 1e9 for l in open(sys.argv[3]) if l.strip()]
cpu = [r[0] + r[1] for r in rows]
print("%s: %d confirms, wall mean %.1f ms, median %.1f, max %.1f; user+sys mean %.1f ms (10 ms steps)"
      % (sys.argv[2], len(wall), 1000 * statistics.mean(wall),
         1000 * statistics.median(wall), 1000 * max(wall), 1000 * statistics.mean(cpu)))
PY
done
say "layers of the new index: $(ls "$W/new/lessons.git/lore/index.d" 2>/dev/null | wc -l)"
rm -rf "$W"
