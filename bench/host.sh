#!/usr/bin/env bash
# A host holding a big public pool: a one-lesson pull request, and new
# commits synced into a copy that has the rest (issue 24; docs/PERFORMANCE.md,
# "A host and a sync at a million").
#
#   bench/host.sh                    a pool of 100,000
#   N=1000000 bench/host.sh          a pool of 1,000,000 (about 40 minutes)
#
# Options:
#   --no-build   use target/release/git-lore and the bench_pool example as
#                they are
#   --tmpfs      build the repositories on /dev/shm (deleted at the end)
#   --reuse      keep the repositories an earlier run of the same OUT left
#                (A's, the host's and B's) and time again, with this build
#                (its hooks installed on the host again)
# Environment overrides: N, NEW (commits synced, default 1,000), RUNS
# (default 5), OUT, GIT_LORE_BIN, POOL (the bench_pool example).
#
# User A writes N public lessons through git-lore's signed write path
# (examples/bench_pool.rs, BENCH_POOL_TIER=public). The host is seeded with
# them by a plain push before `git lore host` installs its hooks (a host
# set up over history it already holds; pushing a million commits through
# the hook would verify each, about a millisecond apiece, and that is not
# what is measured here), then receives one push through the hooks so that
# its upkeep (commit-graph, geometric repack, multi-pack index, bitmap) has
# run as it has on any host in use. A adds the host as its public remote
# and syncs it (nothing new: the remote's tip becomes A's verified one);
# user B pins A's key and syncs the pool. Then, process start included:
#   (p)  git push of a one-lesson pull request (refs/heads/review/<id>, one
#        signed commit on pool/public) from A to the host: A's pre-push
#        guard checks what leaves, the host's pre-receive hook verifies it
#   (p0) the same push past both hooks (`--no-verify`, the host's moved
#        aside): what git itself takes
#   (g)  A's guard alone, as git runs it for that push
#   (h)  the host's check alone, as its hook runs it
#   upkeep_pr  how long the host's upkeep after (p) ran (0 when not due)
#   (n)  git lore sync public   NEW new commits into B's pool of N
#   (f)  git fetch of the same  the transfer part of (n)
# and, once each: B's first sync of all N, A's sync of the host (nothing
# new), the host's upkeep after the NEW commits' push. Both hooks run the
# git-lore under test (it is first on PATH). Results: $OUT/results.tsv and
# results.md.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/.." && pwd)
BUILD=1
TMPFS=0
REUSE=0
for arg in "$@"; do
    case $arg in
        --no-build) BUILD=0 ;;
        --tmpfs) TMPFS=1 ;;
        --reuse) REUSE=1 ;;
        -h|--help) sed -n '2,40p' "$0"; exit 0 ;;
        *) echo "unknown option $arg" >&2; exit 1 ;;
    esac
done
N=${N:-100000}
NEW=${NEW:-1000}
RUNS=${RUNS:-5}
OUT=${OUT:-$HERE/out/host}
if [ "$TMPFS" = 1 ]; then W=/dev/shm/git-lore-bench-host; else W=$OUT/work; fi
BIN=${GIT_LORE_BIN:-$ROOT/target/release/git-lore}
POOL=${POOL:-$ROOT/target/release/examples/bench_pool}
A=$W/a B=$W/b HOST=$W/host.git
if [ "$REUSE" = 1 ]; then
    [ -d "$B/lessons.git" ] && [ -d "$HOST" ] || { echo "nothing to reuse in $W" >&2; exit 1; }
    rm -f "$OUT/results.tsv" "$OUT/results.md" "$OUT/run.log"
else
    rm -rf "$OUT" "$W"
fi
mkdir -p "$OUT" "$W" "$A" "$B"
RES=$OUT/results.tsv
printf 'figure\tsize\tmean_s\tmin_s\tmax_s\n' >"$RES"
LOG=$OUT/run.log
# shellcheck source=lib/prelude.sh
. "$HERE/lib/prelude.sh"

if [ "$BUILD" = 1 ]; then
    say "building the release binary and the bench_pool example"
    (cd "$ROOT" && cargo build --release --quiet && cargo build --release --quiet --example bench_pool)
fi
[ -x "$BIN" ] && [ -x "$POOL" ] || die "no binary at $BIN or $POOL (build first, or drop --no-build)"
# The hooks run the git-lore on PATH first: this one.
mkdir -p "$W/bin"
ln -sf "$(cd "$(dirname "$BIN")" && pwd)/$(basename "$BIN")" "$W/bin/git-lore"
export PATH="$W/bin:$PATH"

# record FIGURE SECONDS...: their mean, min and max, at size N, appended
# to RES (`seconds`, lib/prelude.sh).
record() { local fig=$1; shift; seconds "$fig" "$N" "$@"; }

# git as A, with no configuration but the repository's.
GA=(as "$A" git --git-dir="$A/lessons.git")
say "git-lore $("$BIN" --version) at $(git -C "$ROOT" rev-parse --short HEAD); $(nproc) cpus; N=$N NEW=$NEW; reuse $REUSE"

# One lesson more on A's pool/public (lesson $1 of bench_pool's sequence).
one_more() {
    as "$A" env BENCH_POOL_TIER=public "$POOL" "$A/lessons.git" "$W/project" 1 1 "$1" >/dev/null 2>>"$LOG"
}
# The pull request: A's pool/public tip, and its lesson id.
pull_request() {
    PR=$("${GA[@]}" rev-parse refs/heads/pool/public)
    PR_ID=$("${GA[@]}" log -1 --format=%s "$PR" | awk '{print $2}')
}

if [ "$REUSE" = 1 ]; then
    # This binary's hooks on the host.
    as "$A" "$BIN" host "$HOST" --signer "$W/a.pub" >/dev/null 2>>"$LOG"
else
    as "$A" "$BIN" init --email ana@example.org >/dev/null 2>&1
    as "$B" "$BIN" init --email bo@example.org >/dev/null 2>&1
    say "A writes $N public lessons"
    t0=$(now)
    as "$A" env BENCH_POOL_TIER=public "$POOL" "$A/lessons.git" "$W/project" "$N" >/dev/null 2>>"$LOG"
    say "  in $(since "$t0") s; waiting for its background packing"
    settle "$A/lessons.git"
    as "$A" "$BIN" key >"$W/a.pub" 2>/dev/null

    say "seeding the host with them, then \`git lore host\`"
    as "$W" git init -q --bare "$HOST"
    "${GA[@]}" push -q --no-verify "$HOST" refs/heads/pool/public:refs/heads/pool/public
    as "$A" "$BIN" host "$HOST" --signer "$W/a.pub" >/dev/null 2>>"$LOG"
    one_more "$N"
    pull_request
    say "a first pull request, so that the host's hooks have run once"
    "${GA[@]}" push -q --no-verify "$HOST" "$PR:refs/heads/review/$PR_ID"
    say "  the host's upkeep after it: $(upkeep "$HOST") s"

    say "B syncs all $N"
    as "$B" "$BIN" remote add public "$HOST" --signer "$W/a.pub" >/dev/null 2>>"$LOG"
    t0=$(now)
    as "$B" "$BIN" sync public >/dev/null
    record first_sync "$(since "$t0")"
    as "$B" "$BIN" index >/dev/null
    settle "$B/lessons.git"
    one_more "$((N + 1))"
fi
if [ -z "$("${GA[@]}" config remote.public.url)" ]; then
    say "A adds the host as its public remote and syncs it"
    as "$A" "$BIN" remote add public "$HOST" --signer "$W/a.pub" >/dev/null 2>>"$LOG"
    t0=$(now)
    as "$A" "$BIN" sync public >>"$LOG" 2>&1
    record a_sync "$(since "$t0")"
fi
# The pull request is one commit on the host's pool/public: what an earlier
# run left is brought to that (review branches go; lessons of A's that the
# host lacks but the newest are pushed to its pool/public, through its
# hooks, as merged pull requests would be; if it has them all, one more).
for ref in $(as "$W" git --git-dir="$HOST" for-each-ref --format='%(refname)' refs/heads/review/); do
    "${GA[@]}" push -q --no-verify "$HOST" ":$ref"
done
upkeep "$HOST" >/dev/null
host_tip=$(as "$W" git --git-dir="$HOST" rev-parse refs/heads/pool/public)
ahead=$("${GA[@]}" rev-list --count "$host_tip..refs/heads/pool/public")
if [ "$ahead" = 0 ]; then
    one_more "$(( $("${GA[@]}" rev-list --count refs/heads/pool/public) + 1 ))"
elif [ "$ahead" -gt 1 ]; then
    "${GA[@]}" push -q "$HOST" "refs/heads/pool/public~1:refs/heads/pool/public"
    upkeep "$HOST" >/dev/null
fi
pull_request

# Each push the host's hooks see starts its upkeep in the background (a
# minute at a million); nothing is timed while it runs.
say "(p), (p0), (g), (h): a one-lesson pull request, $RUNS times each"
ZERO=0000000000000000000000000000000000000000
ps=(); p0s=(); gs=(); hs=(); us=()
for _ in $(seq "$RUNS"); do
    t0=$(now); "${GA[@]}" push -q "$HOST" "$PR:refs/heads/review/$PR_ID"; ps+=("$(since "$t0")")
    us+=("$(upkeep "$HOST")")
    # The checks alone, as git runs them: the pushed objects are in the
    # host now; the ref is not yet, so the commit is new to it.
    "${GA[@]}" push -q --no-verify "$HOST" ":refs/heads/review/$PR_ID"
    upkeep "$HOST" >/dev/null
    t0=$(now)
    printf 'refs/heads/review/%s %s refs/heads/review/%s %s\n' "$PR_ID" "$PR" "$PR_ID" "$ZERO" |
        as "$A" git-lore --repo "$A/lessons.git" hook pre-push public "$HOST"
    gs+=("$(since "$t0")")
    t0=$(now)
    printf '%s %s %s\n' "$ZERO" "$PR" "refs/heads/review/$PR_ID" |
        (cd "$HOST" && as "$W" git-lore --repo "$HOST" verify --pre-receive >/dev/null)
    hs+=("$(since "$t0")")
    mv "$HOST/hooks/pre-receive" "$HOST/hooks/pre-receive.off"
    mv "$HOST/hooks/post-receive" "$HOST/hooks/post-receive.off"
    t0=$(now); "${GA[@]}" push -q --no-verify "$HOST" "$PR:refs/heads/review/$PR_ID"; p0s+=("$(since "$t0")")
    "${GA[@]}" push -q --no-verify "$HOST" ":refs/heads/review/$PR_ID"
    mv "$HOST/hooks/pre-receive.off" "$HOST/hooks/pre-receive"
    mv "$HOST/hooks/post-receive.off" "$HOST/hooks/post-receive"
done
record p "${ps[@]}"
record upkeep_pr "${us[@]}"
record p0 "${p0s[@]}"
record g "${gs[@]}"
record h "${hs[@]}"

say "(n), (f): $NEW new commits on the host, synced into B's pool"
rm -rf "$W/b0"; cp -a "$B" "$W/b0"
next=$(( $("${GA[@]}" rev-list --count refs/heads/pool/public) + 1 ))
as "$A" env BENCH_POOL_TIER=public "$POOL" "$A/lessons.git" "$W/project" "$NEW" "$NEW" "$next" >/dev/null 2>>"$LOG"
t0=$(now)
"${GA[@]}" push -q "$HOST" refs/heads/pool/public:refs/heads/pool/public
record push_new "$(since "$t0")"
record upkeep_new "$(upkeep "$HOST")"
ns=(); fs=()
for _ in $(seq "$RUNS"); do
    rm -rf "$B"; cp -a "$W/b0" "$B"
    t0=$(now)
    as "$B" git --git-dir="$B/lessons.git" fetch --no-tags --no-write-fetch-head --quiet \
        "$HOST" +refs/heads/pool/public:refs/lore/bench/fetched
    fs+=("$(since "$t0")")
    rm -rf "$B"; cp -a "$W/b0" "$B"
    t0=$(now); as "$B" "$BIN" sync public >/dev/null; ns+=("$(since "$t0")")
done
record n "${ns[@]}"
record f "${fs[@]}"

{
    echo "| figure | size | mean | min | max |"
    echo "|---|---:|---:|---:|---:|"
    tail -n +2 "$RES" | awk -F'\t' '{ printf "| %s | %s | %s s | %s s | %s s |\n", $1, $2, $3, $4, $5 }'
} >"$OUT/results.md"
cat "$OUT/results.md"
[ "$TMPFS" = 1 ] && rm -rf "$W"
exit 0
