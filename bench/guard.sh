#!/usr/bin/env bash
# The pre-push guard against many private records (issue 20, §4;
# docs/PERFORMANCE.md, "The push guard").
#
#   bench/guard.sh             pool/local of 10,000 and of 100,000 lessons
#   bench/guard.sh --quick     2,000 and 20,000 instead
#
# Options:
#   --no-build   use target/release/git-lore and the bench_pool example as
#                they are
# Environment overrides: SIZES (space-separated), ORG (org lessons, 10,000),
# RUNS (5), OUT, GIT_LORE_BIN, BENCH_POOL (the bench_pool example), and
# BASE_BIN/BASE_POOL: an older build's binary and example to compare the
# write and rebuild figures with (left out when unset).
#
# Per size N, a lesson repository whose pool/local holds N private lessons
# (N signed promote commits, examples/bench_pool.rs with
# BENCH_POOL_TIER=local) and whose pool/org holds ORG lessons, and a bare
# remote holding pool/org but its last commit. Each figure is timed RUNS
# times, process start included:
#   (w)  building pool/local of N through git-lore's write path (once)
#   (x)  git lore index --rebuild        every private commit's objects learned
#   (s)  the index's size on disk
#   (h1) git lore hook pre-push          pool/org, 1 new commit onto the remote's
#   (p1) git push remote pool/org        the same push for real, and with
#   (n1) git push --no-verify …          the guard skipped
#   (h0) git lore hook pre-push          all of pool/org (ORG + 1 commits) to a
#                                        remote that has nothing
#   (r1) git lore hook pre-push          refused: a commit made by hand with
#                                        pool/local's tree
#   (r2) git lore hook pre-push          refused: a commit on pool/org adding
#                                        one private lesson's blob elsewhere
#   (r3) git lore hook pre-push          refused: a root commit holding all N
#                                        private blobs under another directory
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/.." && pwd)
BUILD=1
QUICK=0
for arg in "$@"; do
    case $arg in
        --quick) QUICK=1 ;;
        --no-build) BUILD=0 ;;
        -h|--help) sed -n '2,36p' "$0"; exit 0 ;;
        *) echo "unknown option $arg" >&2; exit 1 ;;
    esac
done
if [ "$QUICK" = 1 ]; then
    SIZES=${SIZES:-2000 20000}; ORG=${ORG:-2000}; RUNS=${RUNS:-3}
else
    SIZES=${SIZES:-10000 100000}; ORG=${ORG:-10000}; RUNS=${RUNS:-5}
fi
OUT=${OUT:-$HERE/out/guard}
W=$OUT/work
BIN=${GIT_LORE_BIN:-$ROOT/target/release/git-lore}
POOL=${BENCH_POOL:-$ROOT/target/release/examples/bench_pool}
BASE_BIN=${BASE_BIN:-}
BASE_POOL=${BASE_POOL:-}
rm -rf "$OUT"
mkdir -p "$OUT" "$W"
RES=$OUT/results.tsv
printf 'figure\tsize\tmean\tmin\tmax\n' >"$RES"

LOG=$OUT/run.log
# shellcheck source=lib/prelude.sh
. "$HERE/lib/prelude.sh"
# record FIGURE SIZE VALUE…: mean, min and max of the values (`seconds`).
record() { seconds "$@"; }

if [ "$BUILD" = 1 ]; then
    say "building the release binary and the bench_pool example"
    (cd "$ROOT" && cargo build --release --quiet && cargo build --release --quiet --example bench_pool)
fi

# timed N CMD…: CMD run N times; prints the seconds of each run. CMD's
# exit code is not looked at (a refused push exits 1 on purpose).
timed() {
    local n=$1; shift
    local xs=() t0
    for _ in $(seq "$n"); do
        t0=$(now); "$@" >/dev/null 2>&1 || true; xs+=("$(since "$t0")")
    done
    echo "${xs[@]}"
}

# hook D LINES: the guard of D's repository over LINES (a file of pre-push
# lines), as git runs it.
hook() { as "$1" "$BIN" --repo "$1/lessons.git" hook pre-push bench "$1/remote.git" <"$2"; }

# build D N BIN POOLGEN: D's repository, pool/local of N (timed), pool/org
# of ORG + 1.
build() {
    local d=$1 n=$2 bin=$3 gen=$4
    mkdir -p "$d"
    as "$d" "$bin" init --email ana@example.org >/dev/null 2>&1
    local t0; t0=$(now)
    as "$d" env BENCH_POOL_TIER=local "$gen" "$d/lessons.git" "$d/project" "$n" >/dev/null 2>&1
    BUILT=$(since "$t0")
    as "$d" "$gen" "$d/lessons.git" "$d/project" "$ORG" "$ORG" "$n" >/dev/null 2>&1
    as "$d" "$gen" "$d/lessons.git" "$d/project" 1 1 $((n + ORG)) >/dev/null 2>&1
    settle "$d/lessons.git"
    git --git-dir="$d/lessons.git" gc --quiet
}

for N in $SIZES; do
    D=$W/r$N
    say "pool/local of $N, pool/org of $ORG + 1"
    build "$D" "$N" "$BIN" "$POOL"
    record w "$N" "$BUILT"
    G="git --git-dir=$D/lessons.git"
    if [ -n "$BASE_BIN" ]; then
        say "  the same with the base build"
        build "$W/base$N" "$N" "$BASE_BIN" "$BASE_POOL"
        record w-base "$N" "$BUILT"
        # shellcheck disable=SC2046
        record x-base "$N" $(timed "$RUNS" as "$W/base$N" "$BASE_BIN" index --rebuild)
        record s-base "$N" "$(du -sk "$W/base$N/lessons.git/lore" | cut -f1)"
        rm -rf "$W/base$N"
    fi
    say "  index --rebuild"
    # shellcheck disable=SC2046
    record x "$N" $(timed "$RUNS" as "$D" "$BIN" index --rebuild)
    record s "$N" "$(du -sk "$D/lessons.git/lore" | cut -f1)"

    new=$($G rev-parse pool/org)
    old=$($G rev-parse pool/org~1)
    git init -q --bare "$D/remote.git"
    $G push -q --no-verify "$D/remote.git" "$old:refs/heads/pool/org"
    zero=0000000000000000000000000000000000000000
    echo "refs/heads/pool/org $new refs/heads/pool/org $old" >"$D/one"
    echo "refs/heads/pool/org $new refs/heads/pool/org $zero" >"$D/all"
    hook "$D" "$D/one" || { say "the guard refused a clean push"; exit 1; }
    say "  one new org commit"
    # shellcheck disable=SC2046
    record h1 "$N" $(timed "$RUNS" hook "$D" "$D/one")
    push() {
        git --git-dir="$D/remote.git" update-ref refs/heads/pool/org "$old"
        as "$D" git --git-dir="$D/lessons.git" push -q "$@" "$D/remote.git" pool/org
    }
    # shellcheck disable=SC2046
    record p1 "$N" $(timed "$RUNS" push)
    # shellcheck disable=SC2046
    record n1 "$N" $(timed "$RUNS" push --no-verify)
    say "  all of pool/org to an empty remote"
    # shellcheck disable=SC2046
    record h0 "$N" $(timed "$RUNS" hook "$D" "$D/all")

    say "  refused pushes"
    tree=$($G rev-parse 'pool/local^{tree}')
    made=$($G commit-tree -m notes "$tree")
    echo "refs/heads/notes $made refs/heads/notes $zero" >"$D/r1"
    lesson=$($G ls-tree -r --name-only pool/local -- lessons | sed -n 1p)
    blob=$($G rev-parse "pool/local:$lesson")
    copy=$( ($G ls-tree "$new^{tree}"; printf '100644 blob %s\tcopy.json\n' "$blob") | $G mktree)
    innocent=$($G commit-tree -m copy -p "$new" "$copy")
    echo "refs/heads/pool/org $innocent refs/heads/pool/org $old" >"$D/r2"
    lessons=$($G rev-parse 'pool/local:lessons')
    stash=$(printf '040000 tree %s\tstash\n' "$lessons" | $G mktree)
    all=$($G commit-tree -m stash "$stash")
    echo "refs/heads/stash $all refs/heads/stash $zero" >"$D/r3"
    for r in r1 r2 r3; do
        if hook "$D" "$D/$r" 2>"$OUT/$r-$N.txt"; then say "$r was not refused"; exit 1; fi
        # shellcheck disable=SC2046
        record "$r" "$N" $(timed "$RUNS" hook "$D" "$D/$r")
    done
done

{
    echo "| figure | size | mean | min | max |"
    echo "|---|---:|---:|---:|---:|"
    tail -n +2 "$RES" | awk -F'\t' '{ printf "| %s | %s | %s | %s | %s |\n", $1, $2, $3, $4, $5 }'
} >"$OUT/results.md"
cat "$OUT/results.md"
exit 0
