#!/usr/bin/env bash
# git-lore benchmarks, side by side in one run (issues 2 and 3; docs/PERFORMANCE.md).
#
#   bench/run.sh            full mode: N=10,000 records, seen at 10k and 100k
#   bench/run.sh --quick    smoke run with small N (about a minute)
#
# Options:
#   --no-build          use target/release/git-lore as it is
#   --skip-per-process  leave out (a), the one-process-per-record loop
#   --skip-100k         leave out the 100,000-commit repository for (e)
#   --tmpfs             keep the repositories on /dev/shm instead of the disk
#                       (results go to bench/out/<mode>-tmpfs; the work dir is
#                       deleted at the end to free the memory)
# Environment overrides: N, N_PROC, N_PLUMB, N_BIG, OUT, GIT_LORE_BIN.
#
# Everything is written under bench/out/<mode>/ (gitignored): the repositories
# in work/, one results.tsv row per figure, results.md (the table), run.log,
# and the raw /usr/bin/time -v and hyperfine JSON files. Every git-lore and
# git process runs in a hermetic environment (HOME in the work dir,
# GIT_CONFIG_NOSYSTEM=1, GIT_CONFIG_GLOBAL=/dev/null, GIT_LORE_REPO set,
# no other GIT_* variable).
#
# The letters (a)-(h) are the ones docs/PERFORMANCE.md uses. Issue 13's
# goals have scripts of their own, each comparing in one run: bench/write.sh
# (batch time, size at every moment and peak RSS against git fast-import, at
# N=10000 and N=100000) and bench/short.sh (one-record commands against git
# commit-tree + update-ref).
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/.." && pwd)
MODE=full
BUILD=1
SKIP_PROC=0
SKIP_BIG=0
TMPFS=0
for arg in "$@"; do
    case $arg in
        --quick) MODE=quick ;;
        --no-build) BUILD=0 ;;
        --skip-per-process) SKIP_PROC=1 ;;
        --skip-100k) SKIP_BIG=1 ;;
        --tmpfs) TMPFS=1 ;;
        -h|--help) sed -n '2,20p' "$0"; exit 0 ;;
        *) echo "unknown option $arg" >&2; exit 1 ;;
    esac
done
if [ "$MODE" = full ]; then
    N=${N:-10000}; N_PROC=${N_PROC:-10000}; N_PLUMB=${N_PLUMB:-1000}; N_BIG=${N_BIG:-100000}
    SEEN_RUNS=50; LOG_RUNS=10; BIG_LOG_RUNS=5
else
    N=${N:-500}; N_PROC=${N_PROC:-100}; N_PLUMB=${N_PLUMB:-50}; N_BIG=${N_BIG:-2000}
    SEEN_RUNS=20; LOG_RUNS=5; BIG_LOG_RUNS=3
fi

if [ "$TMPFS" = 1 ]; then
    OUT=${OUT:-$HERE/out/$MODE-tmpfs}
    W=/dev/shm/git-lore-bench-$MODE
else
    OUT=${OUT:-$HERE/out/$MODE}
    W=$OUT/work
fi
BIN=${GIT_LORE_BIN:-$ROOT/target/release/git-lore}
LIB=$HERE/lib
# Deleting a previous run's hundreds of thousands of loose objects makes
# ext4 slow at allocating inodes for a while afterwards (find_inode_bit skips
# inodes freed in the last 30 s, 5 min while their table block is dirty), and
# git-lore creates one inode per object: so flush and wait before measuring.
if [ -e "$OUT" ] || [ -e "$W" ]; then
    echo "removing the previous run in $OUT and $W, then sync and a 35 s pause (ext4 inode reuse)" >&2
    rm -rf "$OUT" "$W"
    sync
    sleep 35
fi
mkdir -p "$OUT" "$W"
RES=$OUT/results.tsv
LOG=$OUT/run.log
: >"$RES"

# shellcheck source=lib/prelude.sh
. "$HERE/lib/prelude.sh"
calc() { awk "BEGIN{printf \"%.3f\", $1}"; }
# record KEY VALUE UNIT DESCRIPTION
record() { printf '%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$4" >>"$RES"; say "  $1 = $2 $3  ($4)"; }

if [ "$BUILD" = 1 ] && [ -z "${GIT_LORE_BIN:-}" ]; then
    say "cargo build --release"
    (cd "$ROOT" && cargo build --release --quiet)
fi
[ -x "$BIN" ] || die "no binary at $BIN (run cargo build --release)"
GIT=$(command -v git)
HAVE_TIME=0; [ -x /usr/bin/time ] && HAVE_TIME=1
HAVE_HF=0; command -v hyperfine >/dev/null && HAVE_HF=1
# git-lore on PATH as `git-lore`, so `git lore ...` dispatches to this build.
mkdir -p "$W/bin"
ln -sf "$BIN" "$W/bin/git-lore"


# lore_init DIR: a fresh lesson repository at DIR/lessons.git.
lore_init() { (hermetic "$1" "$W/bin"; "$BIN" init >"$1/init.out" 2>&1) || die "init $1"; }

# sizes GITDIR KEY WHAT: du -sk of objects/ plus loose/pack counts.
sizes() {
    local gd=$1 key=$2 what=$3 kb co
    kb=$(du -sk "$gd/objects" | cut -f1)
    co=$("$GIT" --git-dir "$gd" count-objects -v | tr '\n' ' ')
    record "$key" "$kb" KiB "$what [count-objects: $co]"
}

# timev KEY CMD...: run CMD under /usr/bin/time -v (stdout/stderr of CMD
# go to the caller's redirections); records wall time and peak RSS.
timev() {
    local key=$1 t0 rc=0
    shift
    t0=$(now)
    if [ "$HAVE_TIME" = 1 ]; then
        /usr/bin/time -v -o "$OUT/$key.timev" "$@" || rc=$?
    else
        "$@" || rc=$?
    fi
    LAST_WALL=$(since "$t0")
    LAST_RSS=
    LAST_CPU="user ? s, sys ? s"
    if [ "$HAVE_TIME" = 1 ]; then
        LAST_RSS=$(awk -F': ' '/Maximum resident set size/{print $2}' "$OUT/$key.timev")
        LAST_CPU="user $(awk -F': ' '/User time/{print $2}' "$OUT/$key.timev") s, sys $(awk -F': ' '/System time/{print $2}' "$OUT/$key.timev") s"
    fi
    return $rc
}

# bench_cmd KEY RUNS SHELL(0/1) CMD: repeated timing, hyperfine when present.
bench_cmd() {
    local key=$1 runs=$2 shell=$3 cmd=$4
    if [ "$HAVE_HF" = 1 ]; then
        if [ "$shell" = 1 ]; then
            hyperfine -S bash --warmup 2 --runs "$runs" --export-json "$OUT/$key.json" "$cmd" >>"$LOG" 2>&1
        else
            hyperfine -N --warmup 3 --runs "$runs" --export-json "$OUT/$key.json" "$cmd" >>"$LOG" 2>&1
        fi
    else
        if [ "$shell" = 1 ]; then
            python3 "$LIB/timecmd.py" --shell --runs "$runs" --warmup 2 --json "$OUT/$key.json" -- "$cmd"
        else
            # shellcheck disable=SC2086
            python3 "$LIB/timecmd.py" --runs "$runs" --warmup 3 --json "$OUT/$key.json" -- $cmd
        fi
    fi
    python3 - "$OUT/$key.json" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))["results"][0]
print(f"{r['mean']*1000:.2f} {r['median']*1000:.2f} {r['min']*1000:.2f} {r['stddev']*1000:.2f}")
EOF
}

# record_bench KEY RUNS SHELL CMD DESCRIPTION
record_bench() {
    local key=$1 runs=$2 shell=$3 cmd=$4 what=$5 stats
    stats=$(bench_cmd "$key" "$runs" "$shell" "$cmd")
    read -r mean median min sd <<<"$stats"
    record "$key" "$mean" ms "$what (mean of $runs; median $median, min $min, sd $sd; process start included)"
}

commits() { "$GIT" --git-dir "$1" rev-list --count refs/heads/ledger; }

# ---------------------------------------------------------------------------
say "mode=$MODE N=$N N_PROC=$N_PROC N_PLUMB=$N_PLUMB N_BIG=$N_BIG out=$OUT"
{
    echo "date: $(date -u +%FT%TZ)"
    echo "host: $(uname -srm); cpus: $(nproc); $(grep -m1 'model name' /proc/cpuinfo | sed 's/\s\+/ /g')"
    echo "memory: $(free -g | awk '/Mem:/{print $2" GiB"}')"
    echo "disk (df -T $W): $(df -T "$W" | awk 'NR==2{print $1" "$2}') rotational=$(cat /sys/block/"$(basename "$(df "$W" | awk 'NR==2{print $1}')")"/queue/rotational 2>/dev/null || echo '?')"
    echo "git: $("$GIT" --version) ($GIT)"
    echo "git-lore: $("$BIN" --version) at $(git -C "$ROOT" rev-parse --short HEAD)$(git -C "$ROOT" diff --quiet HEAD -- src Cargo.toml Cargo.lock || echo ' +uncommitted changes in src')"
    echo "rustc: $(rustc --version 2>/dev/null || echo '?')"
    echo "hyperfine: $(hyperfine --version 2>/dev/null || echo 'absent (python timer used)')"
    echo "load before start: $(cut -d' ' -f1-3 /proc/loadavg)"
} >"$OUT/environment.txt"
cat "$OUT/environment.txt" >>"$LOG"

say "generating $N artifacts (files) and $N_BIG (JSON Lines)"
ART=$W/artifacts
python3 "$LIB/gen_artifacts.py" --n "$N" --seed 1 --dir "$ART" --jsonl "$W/artifacts.jsonl" --ids "$W/ids.txt"
mapfile -t FILES < <(find "$ART" -name '*.json' | sort)
[ "${#FILES[@]}" = "$N" ] || die "expected $N artifact files"

# ---------------------------------------------------------------------------
# (b) the batch, offline backend, default config (background gc --auto on).
say "(b) batch ingest of $N artifacts, offline backend"
B=$W/b
lore_init "$B"
(
    hermetic "$B" "$W/bin"
    timev b.ingest "$BIN" ingest "$ART" >"$B/ingest.out" 2>"$B/ingest.err" || die "(b) ingest exit $?"
    echo "$LAST_WALL $LAST_RSS" >"$B/wall"; echo "$LAST_CPU" >"$B/cpu"
)
read -r wall rss <"$B/wall"
t0=$(now); settle "$B/lessons.git"; settle_s=$(since "$t0")
[ "$(grep -c '^proposed' "$B/ingest.out")" = "$N" ] || die "(b) expected $N proposals: $(tail -1 "$B/ingest.err")"
[ "$(commits "$B/lessons.git")" = "$((N + 1))" ] || die "(b) commit count"
(hermetic "$B" "$W/bin"; "$GIT" --git-dir "$B/lessons.git" verify-commit refs/heads/ledger 2>/dev/null) || die "(b) tip signature does not verify"
record b.wall "$wall" s "(b) git lore ingest DIR ($N files), offline backend, one signed commit each, default config; $(cat "$B/cpu")"
record b.per_commit "$(calc "$wall * 1000 / $N")" ms "(b) per commit"
[ -n "$rss" ] && record b.rss "$rss" KiB "(b) peak RSS of the batch ingest"
record b.settle "$settle_s" s "(b) background git gc --auto still running after ingest returned"
record b.gclog "$([ -e "$B/lessons.git/gc.log" ] && echo yes || echo no)" "" "(b) gc.log left by the detached gc (while it exists, git gc --auto does nothing for gc.logExpiry = 1 day): $(tr '\n' ' ' <"$B/lessons.git/gc.log" 2>/dev/null)"
record b.packs "$(find "$B/lessons.git/objects/pack" -name '*.pack' | wc -l)" packs "(b) packs made by git-lore's background gc --auto (0 = it never ran)"
sizes "$B/lessons.git" b.size "(b) objects/ after the batch, as left by git-lore (incl. its background gc --auto)"

# (b0) the same batch with gc.auto=0: the writer alone, objects loose as written.
say "(b0) batch ingest with gc.auto=0 (objects loose as written)"
B0=$W/b0
lore_init "$B0"
"$GIT" config --file "$B0/lessons.git/config" gc.auto 0
(
    hermetic "$B0" "$W/bin"
    timev b0.ingest "$BIN" ingest "$ART" >"$B0/ingest.out" 2>"$B0/ingest.err" || die "(b0) ingest exit $?"
    echo "$LAST_WALL $LAST_RSS" >"$B0/wall"; echo "$LAST_CPU" >"$B0/cpu"
)
read -r wall rss <"$B0/wall"
[ "$(grep -c '^proposed' "$B0/ingest.out")" = "$N" ] || die "(b0) expected $N proposals"
record b0.wall "$wall" s "(b0) same batch, gc.auto=0 (no background gc competing); $(cat "$B0/cpu")"
[ -n "$rss" ] && record b0.rss "$rss" KiB "(b0) peak RSS"
sizes "$B0/lessons.git" b0.size_loose "(f) objects/ loose as written by git-lore (gc.auto=0)"

# (b1) the same batch with gc.autoDetach=false in the lesson repository's
# config: git-lore's background `git gc --auto` then runs undetached (it is
# already in the background), writes no gc.log, and keeps repacking.
say "(b1) batch ingest with gc.autoDetach=false (config-only workaround)"
B1=$W/b1
lore_init "$B1"
"$GIT" config --file "$B1/lessons.git/config" gc.autoDetach false
(
    hermetic "$B1" "$W/bin"
    timev b1.ingest "$BIN" ingest "$ART" >"$B1/ingest.out" 2>"$B1/ingest.err" || die "(b1) ingest exit $?"
    echo "$LAST_WALL $LAST_RSS" >"$B1/wall"; echo "$LAST_CPU" >"$B1/cpu"
)
read -r wall rss <"$B1/wall"
t0=$(now); settle "$B1/lessons.git"; settle_s=$(since "$t0")
[ "$(grep -c '^proposed' "$B1/ingest.out")" = "$N" ] || die "(b1) expected $N proposals"
record b1.wall "$wall" s "(b1) same batch, gc.autoDetach=false (background gc keeps running during the batch); $(cat "$B1/cpu")"
record b1.settle "$settle_s" s "(b1) background gc still running after ingest returned"
record b1.packs "$(find "$B1/lessons.git/objects/pack" -name '*.pack' | wc -l)" packs "(b1) packs made by the background gc"
record b1.gclog "$([ -e "$B1/lessons.git/gc.log" ] && echo yes || echo no)" "" "(b1) gc.log present"
sizes "$B1/lessons.git" b1.size "(f) objects/ after the batch with gc.autoDetach=false"

# ---------------------------------------------------------------------------
# (c) git fast-import of the same commits, unsigned.
say "(c) git fast-import of the same $N commits (unsigned)"
STREAM=$W/ledger.stream
"$GIT" --git-dir "$B/lessons.git" fast-export refs/heads/ledger >"$STREAM" 2>/dev/null
chk=$(python3 "$LIB/stream_tool.py" check "$STREAM")
say "  stream: $chk ($(du -k "$STREAM" | cut -f1) KiB)"
case $chk in *"signed=0"*) ;; *) die "fast-export kept signatures: $chk" ;; esac
C=$W/c
mkdir -p "$C"
"$GIT" init -q --bare "$C/fi.git"
(
    hermetic "$C" "$W/bin"
    timev c.fastimport "$GIT" --git-dir "$C/fi.git" fast-import --quiet <"$STREAM" || die "(c) fast-import"
    echo "$LAST_WALL $LAST_RSS" >"$C/wall"; echo "$LAST_CPU" >"$C/cpu"
)
read -r wall rss <"$C/wall"
tb=$("$GIT" --git-dir "$B/lessons.git" rev-parse 'refs/heads/ledger^{tree}')
tc=$("$GIT" --git-dir "$C/fi.git" rev-parse 'refs/heads/ledger^{tree}')
[ "$tb" = "$tc" ] || die "(c) fast-import tree $tc differs from git-lore's $tb"
[ "$(commits "$C/fi.git")" = "$((N + 1))" ] || die "(c) commit count"
record c.wall "$wall" s "(c) git fast-import of the same $((N + 1)) commits, unsigned, same tree ($tc), from a prepared stream; $(cat "$C/cpu")"
[ -n "$rss" ] && record c.rss "$rss" KiB "(c) peak RSS of fast-import"
sizes "$C/fi.git" c.size "(f) objects/ after fast-import (one pack, as written)"

# ---------------------------------------------------------------------------
# (d) a shell loop over plumbing.
say "(d) shell loop over git plumbing, $N_PLUMB commits"
D=$W/d
mkdir -p "$D"
got=$(python3 "$LIB/stream_tool.py" plumbing-inputs "$STREAM" "$D/in" "$N_PLUMB")
[ "$got" = "$N_PLUMB" ] || die "(d) inputs: $got"
"$GIT" init -q --bare "$D/pl.git"
(
    hermetic "$D" "$W/bin"
    "$GIT" --git-dir "$D/pl.git" config gc.auto 0
    export GIT_AUTHOR_NAME=bench GIT_AUTHOR_EMAIL=bench@localhost GIT_COMMITTER_NAME=bench GIT_COMMITTER_EMAIL=bench@localhost
    t0=$(now)
    bash "$LIB/plumbing_loop.sh" "$D/pl.git" "$D/in" >"$D/tip" || die "(d) loop"
    since "$t0" >"$D/wall"
)
wall=$(cat "$D/wall")
want=$("$GIT" --git-dir "$B/lessons.git" rev-list --reverse refs/heads/ledger | sed -n "$((N_PLUMB + 1))p")
tw=$("$GIT" --git-dir "$B/lessons.git" rev-parse "$want:proposals")
td=$("$GIT" --git-dir "$D/pl.git" rev-parse "refs/heads/ledger:proposals")
[ "$tw" = "$td" ] || die "(d) plumbing tree $td differs from git-lore's $tw"
record d.wall "$wall" s "(d) bash loop: hash-object -w, ls-tree+mktree x4, commit-tree, update-ref; $N_PLUMB commits, unsigned"
record d.per_commit "$(calc "$wall * 1000 / $N_PLUMB")" ms "(d) per commit (about 14 git processes each)"
record d.extrapolated "$(calc "$wall * $N / $N_PLUMB")" s "(d) extrapolated to $N commits"

# ---------------------------------------------------------------------------
# (e) seen at N.
U=$(sed -n "$((N / 2 + 1))p" "$W/ids.txt")
say "(e) seen $U at $N commits"
(
    hermetic "$B" "$W/bin"
    "$BIN" seen "$U" >"$B/seen.out" || die "(e) seen failed"
    grep -q "^$U proposed" "$B/seen.out" || die "(e) seen says: $(cat "$B/seen.out")"
    [ "$("$GIT" --git-dir "$B/lessons.git" log --format='%(trailers:key=Lore-Artifact,valueonly)' refs/heads/ledger | grep -c "$U")" = 1 ] || die "(e) git log | grep"
    record_bench e.seen_n "$SEEN_RUNS" 0 "$BIN seen $U" "(e) git-lore seen ULID at $N commits (binary called directly)"
    record_bench e.seen_n_git "$SEEN_RUNS" 0 "$GIT lore seen $U" "(e) git lore seen ULID at $N commits (through the git dispatcher)"
    record_bench e.log_n "$LOG_RUNS" 1 "$GIT --git-dir $B/lessons.git log --format='%(trailers:key=Lore-Artifact,valueonly)' refs/heads/ledger | grep -c $U" "(e) git log --format=trailers | grep -c at $N commits"
    cp "$B/lessons.git/lore/index" "$W/index.bak"
    rm -f "$B/lessons.git/lore/index"
    t0=$(now); "$BIN" seen "$U" >/dev/null; record e.seen_cold_n "$(calc "$(since "$t0") * 1000")" ms "(e) seen at $N commits right after deleting the index (rebuild from history, once)"
    record e.index_bytes "$(stat -c %s "$B/lessons.git/lore/index")" bytes "(e) index file at $N artifacts"
)

# ---------------------------------------------------------------------------
# (g) the same N through the command backend with an instant stub model.
say "(g) batch ingest of $N artifacts through a stub model program"
G=$W/g
lore_init "$G"
STUB=$G/stub-model
COUNTER=$G/model-calls
ANSWER='{"claim":"Vitest 4 cannot import vite/module-runner on Vite 5","rationale":"vite/module-runner ships in Vite 6; Vitest 4 assumes it exists.","evidence":{"resolution":"Pin vitest to 3.x until Vite 6 lands."},"applies_to":{"stack":["vite","vitest"],"scope":{"kind":"versioned","versions":{"vite":"<6","vitest":">=4"}},"file_patterns":[],"task_kinds":[]}}'
cat >"$STUB" <<EOF
#!/bin/sh
# Instant stub model: one process (dash), builtins only. It does not read the
# prompt (git-lore writes it into the pipe and ignores EPIPE).
echo x >>'$COUNTER'
printf '%s\n' '$ANSWER'
EOF
chmod +x "$STUB"
: >"$COUNTER"
"$GIT" config --file "$G/lessons.git/config" lore.transform.command "$STUB"
(
    hermetic "$G" "$W/bin"
    record_bench g.stub_alone "$SEEN_RUNS" 0 "$STUB" "(g) the stub model program alone (fork+exec of /bin/sh)"
)
: >"$COUNTER"
(
    hermetic "$G" "$W/bin"
    timev g.ingest "$BIN" ingest "$ART" >"$G/ingest.out" 2>"$G/ingest.err" || die "(g) ingest exit $?"
    echo "$LAST_WALL $LAST_RSS" >"$G/wall"; echo "$LAST_CPU" >"$G/cpu"
)
read -r wall rss <"$G/wall"
settle "$G/lessons.git"
[ "$(grep -c '^proposed' "$G/ingest.out")" = "$N" ] || die "(g) expected $N proposals: $(tail -1 "$G/ingest.err")"
calls=$(wc -l <"$COUNTER")
[ "$calls" = "$N" ] || die "(g) expected $N model calls, counted $calls"
record g.wall "$wall" s "(g) git lore ingest DIR ($N), --backend command with the stub ($calls calls); $(cat "$G/cpu")"
record g.per_artifact "$(calc "$wall * 1000 / $N")" ms "(g) per artifact"
[ -n "$rss" ] && record g.rss "$rss" KiB "(g) peak RSS"

# (h) re-run over the same N: all seen, no model call.
say "(h) re-run over the same $N (all seen)"
before=$(wc -l <"$COUNTER")
(
    hermetic "$G" "$W/bin"
    timev h.ingest "$BIN" ingest "$ART" >"$G/rerun.out" 2>"$G/rerun.err" || die "(h) exit $?"
    echo "$LAST_WALL $LAST_RSS" >"$G/rewall"; echo "$LAST_CPU" >"$G/recpu"
)
read -r wall rss <"$G/rewall"
after=$(wc -l <"$COUNTER")
[ "$(grep -cE '^skipped [0-9A-Z]+ seen( |$)' "$G/rerun.out")" = "$N" ] || die "(h) expected $N 'skipped ... seen': $(tail -1 "$G/rerun.err")"
record h.wall "$wall" s "(h) re-run over the same $N artifact files, all skipped as seen; $(cat "$G/recpu")"
record h.model_calls "$((after - before))" calls "(h) model calls made by the re-run (stub counter before $before, after $after)"
[ -n "$rss" ] && record h.rss "$rss" KiB "(h) peak RSS"
(
    hermetic "$G" "$W/bin"
    timev h2.ingest "$BIN" ingest "$W/artifacts.jsonl" >"$G/rerun2.out" 2>"$G/rerun2.err" || die "(h2) exit $?"
    echo "$LAST_WALL" >"$G/rewall2"
)
[ "$(grep -cE '^skipped [0-9A-Z]+ seen( |$)' "$G/rerun2.out")" = "$N" ] || die "(h2) expected $N seen"
[ "$(wc -l <"$COUNTER")" = "$after" ] || die "(h2) the re-run called the model"
record h2.wall "$(cat "$G/rewall2")" s "(h) the same re-run from one JSON Lines file of the same $N artifacts (no model call either)"

# ---------------------------------------------------------------------------
# (a) one process per record.
if [ "$SKIP_PROC" = 0 ]; then
    say "(a) one git-lore process per record, $N_PROC records"
    A=$W/a
    lore_init "$A"
    (
        hermetic "$A" "$W/bin"
        t0=$(now)
        i=0
        for f in "${FILES[@]:0:$N_PROC}"; do
            "$BIN" ingest "$f" >>"$A/ingest.out" 2>>"$A/ingest.err" || echo "exit $? $f" >>"$A/fail"
            i=$((i + 1))
            if [ $((i % 1000)) = 0 ]; then say "  (a) $i done, $(since "$t0") s"; fi
        done
        since "$t0" >"$A/wall"
    )
    wall=$(cat "$A/wall")
    t0=$(now); settle "$A/lessons.git"; settle_s=$(since "$t0")
    [ ! -e "$A/fail" ] || die "(a) failures: $(head -3 "$A/fail")"
    [ "$(grep -c '^proposed' "$A/ingest.out")" = "$N_PROC" ] || die "(a) expected $N_PROC proposals"
    [ "$(commits "$A/lessons.git")" = "$((N_PROC + 1))" ] || die "(a) commit count"
    record a.wall "$wall" s "(a) $N_PROC x git lore ingest FILE, one process and one signed commit each"
    record a.per_commit "$(calc "$wall * 1000 / $N_PROC")" ms "(a) per record, process start included"
    [ "$N_PROC" = "$N" ] || record a.extrapolated "$(calc "$wall * $N / $N_PROC")" s "(a) extrapolated to $N"
    record a.settle "$settle_s" s "(a) background gc --auto still running after the loop"
    record a.packs "$(find "$A/lessons.git/objects/pack" -name '*.pack' | wc -l)" packs "(a) packs made by background gc --auto"
    record a.gclog "$([ -e "$A/lessons.git/gc.log" ] && echo yes || echo no)" "" "(a) gc.log present after the loop"
    sizes "$A/lessons.git" a.size "(a) objects/ after the per-process loop (incl. background gc --auto)"
fi

# ---------------------------------------------------------------------------
# (e) at N_BIG.
if [ "$SKIP_BIG" = 0 ]; then
    say "(e) building a $N_BIG-commit repository by batch ingest of JSON Lines"
    E=$W/e
    python3 "$LIB/gen_artifacts.py" --n "$N_BIG" --seed 2 --jsonl "$E/in/artifacts.jsonl" --jsonl-split 10000 --ids "$E/ids.txt"
    lore_init "$E"
    (
        hermetic "$E" "$W/bin"
        timev e.big_ingest "$BIN" ingest "$E/in" >"$E/ingest.out" 2>"$E/ingest.err" || die "(e) big ingest exit $?"
        echo "$LAST_WALL $LAST_RSS" >"$E/wall"; echo "$LAST_CPU" >"$E/cpu"
    )
    read -r wall rss <"$E/wall"
    t0=$(now); settle "$E/lessons.git"; settle_s=$(since "$t0")
    [ "$(grep -c '^proposed' "$E/ingest.out")" = "$N_BIG" ] || die "(e) expected $N_BIG proposals: $(tail -1 "$E/ingest.err")"
    record e.big_wall "$wall" s "(e) batch ingest of $N_BIG artifacts from JSON Lines (builds the big repository); $(cat "$E/cpu")"
    record e.big_per_commit "$(calc "$wall * 1000 / $N_BIG")" ms "(e) per commit at $N_BIG"
    [ -n "$rss" ] && record e.big_rss "$rss" KiB "(e) peak RSS of the $N_BIG batch"
    record e.big_settle "$settle_s" s "(e) background gc --auto still running after it returned"
    record e.big_packs "$(find "$E/lessons.git/objects/pack" -name '*.pack' | wc -l)" packs "(e) packs made by background gc --auto"
    record e.big_gclog "$([ -e "$E/lessons.git/gc.log" ] && echo yes || echo no)" "" "(e) gc.log present after the big batch"
    sizes "$E/lessons.git" e.big_size "objects/ at $N_BIG commits as left by git-lore"
    UB=$(sed -n "$((N_BIG / 2 + 1))p" "$E/ids.txt")
    (
        hermetic "$E" "$W/bin"
        "$BIN" seen "$UB" | grep -q "^$UB proposed" || die "(e) big seen"
        record_bench e.seen_big "$SEEN_RUNS" 0 "$BIN seen $UB" "(e) git-lore seen ULID at $N_BIG commits"
        record_bench e.seen_big_git "$SEEN_RUNS" 0 "$GIT lore seen $UB" "(e) git lore seen ULID at $N_BIG commits (through git)"
        record_bench e.log_big "$BIG_LOG_RUNS" 1 "$GIT --git-dir $E/lessons.git log --format='%(trailers:key=Lore-Artifact,valueonly)' refs/heads/ledger | grep -c $UB" "(e) git log --format=trailers | grep -c at $N_BIG commits"
        record e.index_bytes_big "$(stat -c %s "$E/lessons.git/lore/index")" bytes "(e) index file at $N_BIG artifacts"
    )
fi

# ---------------------------------------------------------------------------
# (f) sizes after repacking. Done last: repacking changes what (e) measured.
say "(f) repacking"
t0=$(now); "$GIT" --git-dir "$B0/lessons.git" repack -adq; record f.b0_repack_time "$(since "$t0")" s "(f) git repack -ad of the loose repository"
sizes "$B0/lessons.git" f.b0_repacked "(f) git-lore repository after git repack -ad"
t0=$(now); "$GIT" --git-dir "$B0/lessons.git" gc --aggressive --quiet; record f.b0_gc_time "$(since "$t0")" s "(f) git gc --aggressive of it"
sizes "$B0/lessons.git" f.b0_aggressive "(f) git-lore repository after git gc --aggressive"
t0=$(now); "$GIT" --git-dir "$C/fi.git" gc --aggressive --quiet; record f.c_gc_time "$(since "$t0")" s "(f) git gc --aggressive of the fast-import repository"
sizes "$C/fi.git" f.c_aggressive "(f) fast-import repository after git gc --aggressive"

echo "load at end: $(cut -d' ' -f1-3 /proc/loadavg)" >>"$OUT/environment.txt"
python3 "$LIB/report.py" "$OUT" >"$OUT/results.md"
cat "$OUT/results.md"
if [ "$TMPFS" = 1 ]; then rm -rf "$W"; fi
say "done: $OUT/results.md"
