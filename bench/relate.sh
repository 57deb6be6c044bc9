#!/usr/bin/env bash
# `git lore relate --all --yes` over a large pool (docs/PERFORMANCE.md,
# "relate --all over a large pool").
#
#   bench/relate.sh                       N=2000 pool lessons, offline judge
#   OLD=/path/to/older/git-lore bench/relate.sh
#                                         the same run with an older build,
#                                         on a copy of the same repository
#
# Builds a repository whose pool/org holds N distinct lessons
# (examples/bench_pool; none is a duplicate of another, so the offline
# judge abstains on each and nothing is written: the run reads and judges
# every queued lesson), sets lore.relate.backend offline, then times one
# `git lore relate --all --yes` (process start included) under
# /usr/bin/time. With OLD, both builds run on copies of one repository and
# their output is compared. With JUDGE=skip, a judge program that answers
# `skip` for every lesson (lore.relate.command) replaces the offline judge:
# every lesson is then related, one signed commit each, and no pool entry
# changes (the run writes as a real one does).
# Environment: N, OLD, JUDGE, GIT_LORE_BIN, POOL (the bench_pool example),
# W (work dir; default on /dev/shm, deleted at the end unless KEEP=1).
# Needs a build of both:
#   cargo build --release --examples && cargo build --release
# (the debug builds work too: GIT_LORE_BIN=target/debug/git-lore
#  POOL=target/debug/examples/bench_pool).
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/.." && pwd)
N=${N:-2000}
NEW=${GIT_LORE_BIN:-$ROOT/target/release/git-lore}
OLD=${OLD:-}
POOL=${POOL:-$ROOT/target/release/examples/bench_pool}
W=${W:-/dev/shm/git-lore-bench-relate}
case ${1:-} in -h|--help) sed -n '2,20p' "$0"; exit 0 ;; esac
LOG=/dev/null
# shellcheck source=lib/prelude.sh
. "$HERE/lib/prelude.sh"
[ -x "$NEW" ] && [ -x "$POOL" ] || { echo "build first (see --help)" >&2; exit 1; }
rm -rf "$W"; mkdir -p "$W/u"
pool_at "$W/u" "$N" "$NEW" "$POOL"
if [ "${JUDGE:-offline}" = skip ]; then
    cat >"$W/skip-judge" <<'JUDGE'
#!/bin/sh
id=$(grep -o 'The candidate is [0-9A-Z]*' | head -1 | awk '{print $4}')
printf '{"candidate_id":"%s","decisions":[{"decision":"skip","target_ids":[],"confidence":1}]}\n' "$id"
JUDGE
    chmod +x "$W/skip-judge"
    git -C "$W/u/lessons.git" config lore.relate.command "$W/skip-judge"
    git -C "$W/u/lessons.git" config lore.relate.backend command
else
    git -C "$W/u/lessons.git" config lore.relate.backend offline
fi
VERSIONS="new"; [ -n "$OLD" ] && VERSIONS="old new"
for v in $VERSIONS; do
    cp -a "$W/u" "$W/$v"
    bin=$NEW; [ "$v" = old ] && bin=$OLD
    as "$W/$v" "$bin" index >/dev/null
done
for v in $VERSIONS; do
    bin=$NEW; [ "$v" = old ] && bin=$OLD
    say "$v: relate --all --yes over $N lessons"
    t0=$(date +%s%N)
    rc=0
    as "$W/$v" /usr/bin/time -o "$W/$v.time" -f "%U user, %S sys, %M KiB" \
        "$bin" relate --all --yes >"$W/$v.out" 2>"$W/$v.err" || rc=$?
    t1=$(date +%s%N)
    echo "$v: exit $rc, wall $(( (t1 - t0) / 1000000 )) ms, $(grep -v '^Command exited' "$W/$v.time"); $(grep '^related:' "$W/$v.err" || true)"
done
if [ -n "$OLD" ]; then
    # The commits each run wrote differ by their time: compare without ids.
    ids() { sed -E 's/^  [0-9a-f]{12}  /  <commit>  /' "$1"; }
    if cmp -s <(ids "$W/old.out") <(ids "$W/new.out") && cmp -s "$W/old.err" "$W/new.err"; then
        echo "old and new printed the same (commit ids aside)"
    else
        echo "old and new printed DIFFERENT output (kept in $W)"
        exit 1
    fi
fi
[ -n "${KEEP:-}" ] || rm -rf "$W"
