#!/usr/bin/env bash
# Batch write speed and repository size against git fast-import, in one run
# (issue 13; docs/PERFORMANCE.md, "Writing packs").
#
#   bench/write.sh              N=10,000 artifacts from one JSON Lines file
#   N=100000 bench/write.sh     the same at 100,000
#   N=100000 N2=10000 bench/write.sh
#                               a second batch of N2 on top of the first:
#                               49 packs + 5 cross gc.autoPackLimit (50), so
#                               the background merge of packs runs and is
#                               sampled (issue 24)
#
# Options:
#   --no-build   use target/release/git-lore as it is
#   --tmpfs      repositories on /dev/shm
#   --smaps      also sample where the (first) ingest's resident memory is,
#                by kind of mapping, every 2 s (bench/lib/smaps.py):
#                OUT/w.smaps, and its largest sample in results.tsv
# Environment: N, N2 (default 0), OUT, GIT_LORE_BIN; FSCK=full (default) or
# connectivity (`git fsck --connectivity-only`: every reachable object is
# there, without rehashing each; about 10 of the 30 minutes at 1,000,000).
#
# Measures, for the same N artifacts:
#   (w)  git-lore ingest of one JSON Lines file (offline backend, every commit
#        signed, default config), wall/user/sys time and peak RSS; the size of
#        objects/ sampled every 0.2 s while it runs, right after it, and once
#        the background repack it starts has finished (and how long that took);
#        then `seen` of the middle artifact (30 runs, process start included);
#        with N2, a second ingest of N2 other artifacts right after the
#        first one's background work, sampled the same way; the figures
#        "after" and "settled" are then those of the second, and the
#        largest sample while its background repack ran is reported alone;
#   (c)  git fast-import of the same N+N2+1 commits, unsigned (the stream is made
#        by fast-export of (w)'s repository and not timed), and its size;
#   the tree bytes: of all trees in (w)'s settled objects/ per record (on
#        disk), and of the trees the last commit wrote (the root and every
#        directory down to its record, uncompressed);
#   the ratios (w)/(c) of time and of size at each moment.
# Output: OUT/results.tsv, OUT/run.log, OUT/*.timev, OUT/w.samples.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/.." && pwd)
BUILD=1
TMPFS=0
SMAPS=0
for arg in "$@"; do
    case $arg in
        --no-build) BUILD=0 ;;
        --tmpfs) TMPFS=1 ;;
        --smaps) SMAPS=1 ;;
        -h|--help) sed -n '2,34p' "$0"; exit 0 ;;
        *) echo "unknown option $arg" >&2; exit 1 ;;
    esac
done
N=${N:-10000}
N2=${N2:-0}
SUFFIX=; [ "$TMPFS" = 1 ] && SUFFIX=-tmpfs
[ "$N2" -gt 0 ] && SUFFIX=+$N2$SUFFIX
OUT=${OUT:-$HERE/out/write-$N$SUFFIX}
if [ "$TMPFS" = 1 ]; then W=/dev/shm/git-lore-write-$N; else W=$OUT/work; fi
BIN=${GIT_LORE_BIN:-$ROOT/target/release/git-lore}
LIB=$HERE/lib
GIT=$(command -v git)
rm -rf "$OUT" "$W"
mkdir -p "$OUT" "$W"
RES=$OUT/results.tsv
LOG=$OUT/run.log
: >"$RES"

# shellcheck source=lib/prelude.sh
. "$LIB/prelude.sh"
calc() { awk "BEGIN{printf \"%.2f\", $1}"; }
record() { printf '%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$4" >>"$RES"; say "$1 = $2 $3  ($4)"; }
kb() { du -sk "$1/objects" | cut -f1; }

if [ "$BUILD" = 1 ] && [ -z "${GIT_LORE_BIN:-}" ]; then
    say "cargo build --release"
    (cd "$ROOT" && cargo build --release --quiet)
fi
[ -x "$BIN" ] || die "no binary at $BIN"
[ -x /usr/bin/time ] || die "needs /usr/bin/time (apt-get install time)"

timev_field() { awk -F': ' -v k="$2" '$1 ~ k {print $2}' "$1"; }

say "N=$N N2=$N2 out=$OUT work=$W; git-lore $("$BIN" --version) at $(git -C "$ROOT" rev-parse --short HEAD); $(nproc) cpus; load $(cut -d' ' -f1-3 /proc/loadavg)"
python3 "$LIB/gen_artifacts.py" --n "$N" --seed 1 --jsonl "$W/artifacts.jsonl" >/dev/null
[ "$N2" -gt 0 ] && python3 "$LIB/gen_artifacts.py" --n "$N2" --seed 2 --jsonl "$W/artifacts2.jsonl" >/dev/null
say "input: $(du -k "$W/artifacts.jsonl" | cut -f1) KiB of JSON Lines"

# (w) git-lore
WL=$W/w
(hermetic "$WL"; "$BIN" init >"$WL.init" 2>&1) || die "init"
GD=$WL/lessons.git
: >"$OUT/w.samples"
(
    while :; do
        echo "$(date +%s.%N) $(du -sk "$GD/objects" 2>/dev/null | cut -f1)" >>"$OUT/w.samples"
        sleep 0.2
    done
) &
SAMPLER=$!
t0=$(now)
(
    hermetic "$WL"
    /usr/bin/time -v -o "$OUT/w.timev" "$BIN" ingest "$W/artifacts.jsonl" >"$WL.out" 2>"$WL.err" &
    timed=$!
    if [ "$SMAPS" = 1 ]; then
        for _ in $(seq 50); do
            pid=$(pgrep -P "$timed" | head -1) && break
            sleep 0.1
        done
        [ -n "${pid:-}" ] && python3 "$LIB/smaps.py" "$pid" "$OUT/w.smaps" >"$OUT/w.smaps.largest" &
    fi
    wait "$timed"
    wait
) || { kill "$SAMPLER"; die "(w) ingest: $(tail -2 "$WL.err")"; }
wall=$(since "$t0")
packs() { "$GIT" --git-dir "$1" count-objects -v | awk '$1 == "packs:" { print $2 }'; }
after=$(kb "$GD")
co_after=$("$GIT" --git-dir "$GD" count-objects -v | tr '\n' ' ')
t1=$(now)
settle "$GD"
settle=$(since "$t1")
wall2=0
if [ "$N2" -gt 0 ]; then
    record w.packs1 "$(packs "$GD")" packs "(w) after the first batch of $N and its background work ($after KiB right after it, $settle s of background work)"
    t0=$(now)
    (
        hermetic "$WL"
        /usr/bin/time -v -o "$OUT/w2.timev" "$BIN" ingest "$W/artifacts2.jsonl" >"$WL.out2" 2>"$WL.err2"
    ) || { kill "$SAMPLER"; die "(w) second ingest: $(tail -2 "$WL.err2")"; }
    wall2=$(since "$t0")
    after=$(kb "$GD")
    co_after=$("$GIT" --git-dir "$GD" count-objects -v | tr '\n' ' ')
    t1=$(now)
    settle "$GD"
    settle=$(since "$t1")
    [ "$(grep -c '^proposed' "$WL.out2")" = "$N2" ] || die "(w) expected $N2 proposals in the second batch"
fi
kill "$SAMPLER" 2>/dev/null || true
wait "$SAMPLER" 2>/dev/null || true
settled=$(kb "$GD")
peak=$(awk '{ if ($2 > m) m = $2 } END { print m + 0 }' "$OUT/w.samples")
[ "$after" -gt "$peak" ] && peak=$after
# The largest sample from the moment the (last) command returned: its
# background work, the merge of packs included.
peak_bg=$(awk -v t="$t1" '$1 >= t { if ($2 > m) m = $2 } END { print m + 0 }' "$OUT/w.samples")
[ "$after" -gt "$peak_bg" ] && peak_bg=$after
[ "$(grep -c '^proposed' "$WL.out")" = "$N" ] || die "(w) expected $N proposals"
[ "$("$GIT" --git-dir "$GD" rev-list --count refs/heads/ledger)" = "$((N + N2 + 1))" ] || die "(w) commit count"
"$GIT" --git-dir "$GD" verify-commit refs/heads/ledger 2>/dev/null || true
[ ! -e "$GD/gc.log" ] || die "(w) gc.log left behind"
case ${FSCK:-full} in
    full) fsck_how=--full ;;
    connectivity) fsck_how=--connectivity-only ;;
    *) die "FSCK is full or connectivity, not ${FSCK}" ;;
esac
"$GIT" --git-dir "$GD" fsck "$fsck_how" --no-dangling 2>"$OUT/w.fsck" || die "(w) fsck: $(head -3 "$OUT/w.fsck")"
record w.wall "$wall" s "(w) git-lore ingest of $N artifacts (one JSON Lines file, offline backend, signed); user $(timev_field "$OUT/w.timev" 'User time') s, sys $(timev_field "$OUT/w.timev" 'System time') s"
record w.rss "$(timev_field "$OUT/w.timev" 'Maximum resident')" KiB "(w) peak RSS"
if [ "$SMAPS" = 1 ] && [ -s "$OUT/w.smaps.largest" ]; then
    record w.smaps_largest "$(awk 'NR == 1 { print $3 }' "$OUT/w.smaps.largest")" KiB "(w) largest resident sample (every 2 s), by mapping: $(awk 'NR > 1 { $1 = $1; printf "%s%s", s, $0; s = "; " }' "$OUT/w.smaps.largest")"
fi
[ "$N2" -gt 0 ] && record w2.wall "$wall2" s "(w) the second ingest, of $N2 artifacts; user $(timev_field "$OUT/w2.timev" 'User time') s"
record w.size_peak "$peak" KiB "(w) largest objects/ sampled during the run(s) and the background work ($(wc -l <"$OUT/w.samples") samples)"
record w.size_peak_bg "$peak_bg" KiB "(w) largest objects/ sampled from the (last) command's return to the end of its background work"
record w.size_after "$after" KiB "(w) objects/ right after the (last) command returned [$co_after]"
record w.settle "$settle" s "(w) background repack still running after the (last) command returned"
record w.size_settled "$settled" KiB "(w) objects/ after the background repack [$("$GIT" --git-dir "$GD" count-objects -v | tr '\n' ' ')]"

# Tree bytes: all trees on disk per record, and the trees of the last commit
tree_disk=$("$GIT" --git-dir "$GD" cat-file --batch-all-objects --batch-check='%(objecttype) %(objectsize:disk)' |
    awk '$1 == "tree" { t += $2 } END { print t + 0 }')
record w.tree_disk_per_record "$(calc "$tree_disk / ($N + $N2)")" bytes "(w) all tree objects on disk after the repack ($tree_disk bytes) per record"
last=$("$GIT" --git-dir "$GD" diff-tree --no-commit-id --name-only -r refs/heads/ledger | head -1)
tree_last=$("$GIT" --git-dir "$GD" cat-file -s 'refs/heads/ledger^{tree}')
dir=
IFS=/ read -ra comps <<<"${last%/*}"
for comp in "${comps[@]}"; do
    dir=$dir$comp
    tree_last=$((tree_last + $("$GIT" --git-dir "$GD" cat-file -s "refs/heads/ledger:$dir")))
    dir=$dir/
done
record w.tree_last_commit "$tree_last" bytes "(w) the trees the last commit wrote, uncompressed: the root and ${#comps[@]} directories down to $last"

# seen on the settled repository, process start included
MID=$(sed -n "$((N / 2))p" "$W/artifacts.jsonl" | python3 -c 'import json, sys; print(json.load(sys.stdin)["id"])')
(hermetic "$WL"; python3 "$LIB/timecmd.py" --runs 30 --warmup 3 --json "$OUT/w.seen.json" -- "$BIN" seen "$MID" >/dev/null) || die "(w) seen"
read -r smean smin < <(python3 -c "import json; r = json.load(open('$OUT/w.seen.json'))['results'][0]; print('%.2f %.2f' % (r['mean'] * 1000, r['min'] * 1000))")
record w.seen "$smean" ms "(w) git-lore seen of the middle artifact after the repack (mean of 30, min $smin ms)"

# (c) fast-import of the same commits, unsigned
STREAM=$W/ledger.stream
"$GIT" --git-dir "$GD" fast-export refs/heads/ledger >"$STREAM" 2>/dev/null
chk=$(python3 "$LIB/stream_tool.py" check "$STREAM")
case $chk in *"signed=0"*) ;; *) die "fast-export kept signatures: $chk" ;; esac
C=$W/c
"$GIT" init -q --bare "$C.git"
t0=$(now)
(hermetic "$C"; /usr/bin/time -v -o "$OUT/c.timev" "$GIT" --git-dir "$C.git" fast-import --quiet <"$STREAM") || die "(c) fast-import"
cwall=$(since "$t0")
[ "$("$GIT" --git-dir "$GD" rev-parse 'refs/heads/ledger^{tree}')" = "$("$GIT" --git-dir "$C.git" rev-parse 'refs/heads/ledger^{tree}')" ] || die "(c) trees differ"
csize=$(kb "$C.git")
record c.wall "$cwall" s "(c) git fast-import of the same $((N + N2 + 1)) commits, unsigned; user $(timev_field "$OUT/c.timev" 'User time') s, sys $(timev_field "$OUT/c.timev" 'System time') s"
record c.rss "$(timev_field "$OUT/c.timev" 'Maximum resident')" KiB "(c) peak RSS"
record c.size "$csize" KiB "(c) objects/ after fast-import"

record ratio.time "$(calc "($wall + $wall2) / $cwall")" x "(w) / (c) wall time (both batches with N2)"
record ratio.size_peak "$(calc "$peak / $csize")" x "(w) largest size at any sampled moment / (c)"
record ratio.size_peak_bg "$(calc "$peak_bg / $csize")" x "(w) largest size during the (last) command's background work / (c)"
record ratio.size_after "$(calc "$after / $csize")" x "(w) right after / (c)"
record ratio.size_settled "$(calc "$settled / $csize")" x "(w) after its background repack / (c)"
say "done; load $(cut -d' ' -f1-3 /proc/loadavg)"
