#!/usr/bin/env bash
# Pools on remotes: verify, sync and publish at scale (issue 10;
# docs/PERFORMANCE.md, "Verifying and syncing pools").
#
#   bench/sync.sh            a 10,000-commit pool, and 1,000 new commits
#                            synced into pools of 10,000 and 100,000
#   bench/sync.sh --quick    2,000 and 20,000 instead
#
# Options:
#   --no-build   use target/release/git-lore and the bench_pool example as
#                they are
#   --tmpfs      build the repositories on /dev/shm (deleted at the end)
# Environment overrides: SMALL, BIG, NEW, RUNS, GRUNS (runs of (g)), OUT,
# GIT_LORE_BIN. GRUNS=0 skips (g); BIG=0 skips the big pool.
#
# User A builds pool/org with SMALL signed promote commits
# (examples/bench_pool.rs), hosts it (`git lore host`) and publishes it;
# user B pins A's key. Then, each command timed RUNS times on fresh copies:
#   (v)  git lore verify                  B's repository after syncing SMALL
#   (s)  git lore sync org                SMALL incoming commits into nothing
#   (f)  git fetch alone                  the transfer part of (s)
#   (g)  git rev-list | xargs git verify-commit
#                                         signatures only, what a user would run
#   (n)  git lore sync org                NEW commits into a pool of SMALL, and of BIG
#   (i)  git lore index                   the index catch-up after (n)
#   (u)  the host's upkeep after a publish (its post-receive hook's
#        background geometric repack, multi-pack index and reachability
#        bitmap, issue 24): from the publish's return to its end; one run
#   (k)  git clone --no-local --bare      the whole host, as the hook left it
#   (kn) the same from a copy of the host without its bitmap
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
        -h|--help) sed -n '2,30p' "$0"; exit 0 ;;
        *) echo "unknown option $arg" >&2; exit 1 ;;
    esac
done
if [ "$QUICK" = 1 ]; then
    SMALL=${SMALL:-2000}; BIG=${BIG:-20000}; NEW=${NEW:-1000}; RUNS=${RUNS:-3}
else
    SMALL=${SMALL:-10000}; BIG=${BIG:-100000}; NEW=${NEW:-1000}; RUNS=${RUNS:-5}
fi
# (g) spawns ssh-keygen once per commit (minutes at 10,000): one run.
GRUNS=${GRUNS:-1}
OUT=${OUT:-$HERE/out/sync}
if [ "$TMPFS" = 1 ]; then W=/dev/shm/git-lore-bench-sync; else W=$OUT/work; fi
BIN=${GIT_LORE_BIN:-$ROOT/target/release/git-lore}
POOL=$ROOT/target/release/examples/bench_pool
rm -rf "$OUT" "$W"
mkdir -p "$OUT" "$W"
RES=$OUT/results.tsv
printf 'figure\tsize\tmean_s\tmin_s\tmax_s\n' >"$RES"

LOG=$OUT/run.log
# shellcheck source=lib/prelude.sh
. "$HERE/lib/prelude.sh"

if [ "$BUILD" = 1 ]; then
    say "building the release binary and the bench_pool example"
    (cd "$ROOT" && cargo build --release --quiet && cargo build --release --quiet --example bench_pool)
fi

# The hermetic environment of user $2 under $1.
as_user() {
    local base=$1 who=$2; shift 2
    env -i PATH="$PATH" HOME="$base/$who" GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null \
        GIT_LORE_REPO="$base/$who/lessons.git" "$@"
}

# git with no configuration but the repository's (as the users' commands
# run): the machine's own settings must not change what is timed.
G() { env -i PATH="$PATH" HOME="$W" GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null git "$@"; }

# Packs a repository. git-lore may have started `git gc --auto` in the
# background (it holds gc.pid): wait for it, however long a big pool takes,
# then gc until it succeeds.
pack() {
    local tries=0
    while [ -e "$1/gc.pid" ] && kill -0 "$(cut -d' ' -f1 "$1/gc.pid" 2>/dev/null)" 2>/dev/null; do
        sleep 1
    done
    until G -C "$1" gc --quiet 2>/dev/null; do
        tries=$((tries + 1)); [ "$tries" -lt 600 ] || { echo "git gc kept failing" >&2; exit 1; }
        sleep 1
    done
}

# record FIGURE SIZE SECONDS...: see `seconds` (lib/prelude.sh).
record() { seconds "$@"; }


# clones BASE SIZE: (k) and (kn), a full clone through git's transport from
# the host as its hook left it and from a copy without its bitmap.
clones() {
    local T=$1 size=$2 xs=() ns=() t0
    compgen -G "$T/host.git/objects/pack/multi-pack-index-*.bitmap" >/dev/null || { echo "no bitmap on the host" >&2; exit 1; }
    rm -rf "$T/host-nobitmap.git"; cp -a "$T/host.git" "$T/host-nobitmap.git"
    rm -f "$T/host-nobitmap.git"/objects/pack/*.bitmap
    for _ in $(seq "$RUNS"); do
        rm -rf "$T/clone.git"
        t0=$(now); G clone -q --bare --no-local "$T/host.git" "$T/clone.git"; xs+=("$(since "$t0")")
        rm -rf "$T/clone.git"
        t0=$(now); G clone -q --bare --no-local "$T/host-nobitmap.git" "$T/clone.git"; ns+=("$(since "$t0")")
    done
    rm -rf "$T/clone.git" "$T/host-nobitmap.git"
    record k "$size" "${xs[@]}"
    record kn "$size" "${ns[@]}"
}

# setup BASE N: A with an N-lesson pool/org, hosted and published; B with
# the remote added and A's key pinned, nothing synced (kept as B0).
setup() {
    local T=$1 n=$2
    mkdir -p "$T/a" "$T/b"
    as_user "$T" a "$BIN" init --email ana@example.org >/dev/null 2>&1
    as_user "$T" b "$BIN" init --email bo@example.org >/dev/null 2>&1
    say "  $n lessons for A"
    as_user "$T" a "$POOL" "$T/a/lessons.git" "$T/project" "$n" >/dev/null 2>&1
    pack "$T/a/lessons.git"
    as_user "$T" a "$BIN" key >"$T/a.pub" 2>/dev/null
    as_user "$T" a "$BIN" host "$T/host.git" --signer "$T/a.pub" >/dev/null 2>&1
    as_user "$T" a "$BIN" remote add org "$T/host.git" >/dev/null 2>&1
    say "  A publishes (the host verifies every commit)"
    local t0; t0=$(now)
    as_user "$T" a "$BIN" publish org >/dev/null
    say "  published in $(since "$t0") s"
    local u; u=$(upkeep "$T/host.git")
    say "  the host's upkeep after it: $u s"
    record u "$n" "$u"
    as_user "$T" b "$BIN" remote add org "$T/host.git" --signer "$T/a.pub" >/dev/null 2>&1
    cp -a "$T/b" "$T/b0"
}

# fresh BASE: B back to its state before any sync.
fresh() { rm -rf "$1/b"; cp -a "$1/b0" "$1/b"; }

T=$W/small
say "pool of $SMALL"
setup "$T" "$SMALL"
xs=(); fs=()
for _ in $(seq "$RUNS"); do
    fresh "$T"
    t0=$(now); G --git-dir="$T/b/lessons.git" fetch --no-tags --no-write-fetch-head --quiet \
        "$T/host.git" +refs/heads/pool/org:refs/lore/incoming/org; fs+=("$(since "$t0")")
    fresh "$T"
    t0=$(now); as_user "$T" b "$BIN" sync org >/dev/null; xs+=("$(since "$t0")")
done
record s "$SMALL" "${xs[@]}"
record f "$SMALL" "${fs[@]}"
clones "$T" "$SMALL"
xs=()
for _ in $(seq "$RUNS"); do
    t0=$(now); as_user "$T" b "$BIN" verify >/dev/null; xs+=("$(since "$t0")")
done
record v "$SMALL" "${xs[@]}"
xs=()
for _ in $(seq "$GRUNS"); do
    t0=$(now)
    G --git-dir="$T/b/lessons.git" rev-list refs/heads/pool/org \
        | as_user "$T" b xargs git --git-dir="$T/b/lessons.git" verify-commit >/dev/null 2>&1
    xs+=("$(since "$t0")")
done
[ "$GRUNS" -gt 0 ] && record g "$SMALL" "${xs[@]}"

# NEW commits into an existing pool of SIZE, synced by a B that has the rest.
incremental() {
    local T=$1 size=$2
    as_user "$T" b "$BIN" sync org >/dev/null
    as_user "$T" b "$BIN" index >/dev/null
    pack "$T/b/lessons.git"
    rm -rf "$T/b0"; cp -a "$T/b" "$T/b0"
    say "  $NEW more for A, published"
    as_user "$T" a "$POOL" "$T/a/lessons.git" "$T/project" "$NEW" "$NEW" "$size" >/dev/null 2>&1
    as_user "$T" a "$BIN" publish org >/dev/null
    record u "$size+$NEW" "$(upkeep "$T/host.git")"
    local xs=() is=()
    for _ in $(seq "$RUNS"); do
        fresh "$T"
        local t0; t0=$(now); as_user "$T" b "$BIN" sync org >/dev/null; xs+=("$(since "$t0")")
        t0=$(now); as_user "$T" b "$BIN" index >/dev/null; is+=("$(since "$t0")")
    done
    record n "$size" "${xs[@]}"
    record i "$size" "${is[@]}"
}

say "$NEW new commits into the pool of $SMALL"
incremental "$T" "$SMALL"
if [ "$BIG" -gt 0 ]; then
    T=$W/big
    say "pool of $BIG"
    setup "$T" "$BIG"
    clones "$T" "$BIG"
    say "$NEW new commits into the pool of $BIG"
    incremental "$T" "$BIG"
fi

{
    echo "| figure | size | mean | min | max |"
    echo "|---|---:|---:|---:|---:|"
    tail -n +2 "$RES" | awk -F'\t' '{ printf "| %s | %s | %s s | %s s | %s s |\n", $1, $2, $3, $4, $5 }'
} >"$OUT/results.md"
cat "$OUT/results.md"
[ "$TMPFS" = 1 ] && rm -rf "$W"
exit 0
