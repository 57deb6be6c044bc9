#!/usr/bin/env bash
# One-record commands against git's own cost for one commit, in one run
# (issue 13, part 4; docs/PERFORMANCE.md, "One-record commands").
#
#   bench/short.sh              a repository of N=10,000 lessons
#   N=100000 bench/short.sh     the same at 100,000
#
# Options:
#   --no-build   use target/release/git-lore as it is
# Environment: N, RUNS (one-record commands timed per kind, default 100),
#   OUT, GIT_LORE_BIN.
#
# Builds the repository with one `git-lore ingest` of N artifacts (offline
# backend) and waits for its background repack, then times, process start
# included, each run on its own lesson:
#   seen      `git-lore seen ULID` of the middle artifact (30 runs)
#   confirm   `git-lore confirm ID private` (RUNS runs, each on another
#             pending lesson: one signed ledger commit)
#   pass      `git-lore pass --yes ID` (RUNS runs: one signed ledger commit)
#   judge     `git-lore judge ID '[]'` on 20 of the lessons confirmed
#             privately (approved with no jury, then promoted: three signed
#             commits on two branches)
#   git       `git commit-tree` + `git update-ref` of one commit on a
#             scratch ref, unsigned (RUNS runs) and signed (`-S`, the
#             repository's ssh key; 30 runs)
#   version   `git-lore --version` (30 runs): process start and argument
#             parsing alone
# Output: OUT/results.tsv, OUT/run.log, OUT/*.json.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/.." && pwd)
BUILD=1
for arg in "$@"; do
    case $arg in
        --no-build) BUILD=0 ;;
        -h|--help) sed -n '2,30p' "$0"; exit 0 ;;
        *) echo "unknown option $arg" >&2; exit 1 ;;
    esac
done
N=${N:-10000}
RUNS=${RUNS:-100}
OUT=${OUT:-$HERE/out/short-$N}
W=$OUT/work
BIN=${GIT_LORE_BIN:-$ROOT/target/release/git-lore}
LIB=$HERE/lib
rm -rf "$OUT"
mkdir -p "$OUT" "$W"
RES=$OUT/results.tsv
LOG=$OUT/run.log
: >"$RES"

# shellcheck source=lib/prelude.sh
. "$LIB/prelude.sh"
ms() { python3 -c "import json, sys; r = json.load(open(sys.argv[1]))['results'][0]; k = sys.argv[2:] or []; r = r[k[0]] if k else r; print('%.2f %.2f %.2f %.2f %d' % (r['mean'] * 1e3, r['median'] * 1e3, r['min'] * 1e3, r['p90'] * 1e3, r['count']) if r.get('count', 1) else '- - - - 0')" "$@"; }
record() {
    local name=$1 json=$2 what=$3
    read -r mean median min p90 count < <(ms "$json")
    printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$name" "$mean" "$median" "$min" "$p90" "$what" >>"$RES"
    say "$name: mean $mean ms, median $median, min $min, p90 $p90 ($count runs; $what)"
}

if [ "$BUILD" = 1 ] && [ -z "${GIT_LORE_BIN:-}" ]; then
    say "cargo build --release"
    (cd "$ROOT" && cargo build --release --quiet)
fi
[ -x "$BIN" ] || die "no binary at $BIN"

hermetic "$W"
GD=$GIT_LORE_REPO

say "N=$N RUNS=$RUNS out=$OUT; $("$BIN" --version) at $(git -C "$ROOT" rev-parse --short HEAD); $(nproc) cpus; load $(cut -d' ' -f1-3 /proc/loadavg)"
python3 "$LIB/gen_artifacts.py" --n "$N" --seed 1 --jsonl "$W/artifacts.jsonl" >/dev/null
"$BIN" init >"$W/init.out" 2>&1 || die "init"
"$BIN" ingest "$W/artifacts.jsonl" >"$W/ingest.out" 2>"$W/ingest.err" || die "ingest: $(tail -2 "$W/ingest.err")"
settle "$GD"
say "repository: $N lessons, $(ls "$GD/objects/pack" | grep -c '\.pack$') pack(s), objects/ $(du -sk "$GD/objects" | cut -f1) KiB, index $(stat -c %s "$GD/lore/index") bytes"

awk '/^proposed/ {print $4}' "$W/ingest.out" >"$W/lessons"
[ "$(wc -l <"$W/lessons")" -ge $((2 * RUNS + 1)) ] || die "need at least $((2 * RUNS + 1)) lessons"
head -n "$RUNS" "$W/lessons" >"$W/confirm.ids"
sed -n "$((RUNS + 1)),$((2 * RUNS))p" "$W/lessons" >"$W/pass.ids"
head -n 20 "$W/confirm.ids" >"$W/judge.ids"
MID=$(sed -n "$((N / 2))p" "$W/artifacts.jsonl" | python3 -c 'import json, sys; print(json.load(sys.stdin)["id"])')
for _ in $(seq 33); do echo "$MID"; done >"$W/seen.ids"
for _ in $(seq 33); do echo x; done >"$W/version.ids"

python3 "$LIB/timeeach.py" --args "$W/version.ids" --warmup 3 --json "$OUT/version.json" -- "$BIN" --version
record version "$OUT/version.json" "git-lore --version: process start and argument parsing"
python3 "$LIB/timeeach.py" --args "$W/seen.ids" --warmup 3 --json "$OUT/seen.json" -- "$BIN" seen {}
record seen "$OUT/seen.json" "git-lore seen of the middle artifact"

python3 "$LIB/timeeach.py" --args "$W/confirm.ids" --json "$OUT/confirm.json" -- "$BIN" confirm {} private
record confirm "$OUT/confirm.json" "git-lore confirm ID private, each on another pending lesson"
python3 "$LIB/timeeach.py" --args "$W/pass.ids" --json "$OUT/pass.json" -- "$BIN" pass --yes {}
record pass "$OUT/pass.json" "git-lore pass --yes ID, each on another pending lesson"
python3 "$LIB/timeeach.py" --args "$W/judge.ids" --json "$OUT/judge.json" -- "$BIN" judge {} '[]'
record judge "$OUT/judge.json" "git-lore judge ID '[]' of a privately confirmed lesson: judge, promote to pool/local, stamp"

git --git-dir "$GD" update-ref refs/bench/git refs/heads/ledger
(cd "$LIB" && python3 gitcommit.py --git-dir "$GD" --ref refs/bench/git --runs "$RUNS" --json "$OUT/git.json")
record git "$OUT/git.json" "git commit-tree + git update-ref of one commit, unsigned"
(cd "$LIB" && python3 gitcommit.py --git-dir "$GD" --ref refs/bench/git --runs 30 --sign --json "$OUT/git-signed.json")
record git.signed "$OUT/git-signed.json" "git commit-tree -S + git update-ref of one commit, signed with the repository's ssh key"
git --git-dir "$GD" update-ref -d refs/bench/git

ratio() { awk -v a="$1" -v b="$2" 'BEGIN{printf "%.2f", a/b}'; }
c=$(awk -F'\t' '$1=="confirm"{print $2}' "$RES")
cm=$(awk -F'\t' '$1=="confirm"{print $4}' "$RES")
g=$(awk -F'\t' '$1=="git"{print $2}' "$RES")
gm=$(awk -F'\t' '$1=="git"{print $4}' "$RES")
printf 'ratio.confirm_git\t%s\t\t%s\t\tconfirm / (commit-tree + update-ref), mean and min\n' "$(ratio "$c" "$g")" "$(ratio "$cm" "$gm")" >>"$RES"
say "confirm / git: $(ratio "$c" "$g")x at the mean, $(ratio "$cm" "$gm")x at the minimum"
"$BIN" verify >"$W/verify.out" 2>&1 || die "verify: $(tail -3 "$W/verify.out")"
git --git-dir "$GD" fsck --full --no-dangling 2>"$OUT/fsck" || die "fsck: $(head -3 "$OUT/fsck")"
say "done; verify and fsck clean; load $(cut -d' ' -f1-3 /proc/loadavg)"
