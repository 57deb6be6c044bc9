#!/usr/bin/env bash
# Parsing benchmark (issue 20 §5; docs/PERFORMANCE.md, "Parsing lockfiles").
#
#   bench/parse.sh             every case at 10 MB, 5 runs each
#   bench/parse.sh --quick     1 MB, 3 runs
#
# Options:
#   --no-build   use target/release/git-lore and the parse_lockfile example
#                as they are
# Environment: MB (file size, default 10), RUNS, CAP (seconds after which a
# run is stopped, default 120), CASES (comma-separated, default all; see
# `bench/lib/gen_lockfiles.py --list`), REAL (space-separated paths of real
# lockfiles to time as well, each under its own name), OUT, GIT_LORE_BIN
# (e.g. an older build, to compare).
#
# bench/lib/gen_lockfiles.py writes a real-shaped lockfile of every format
# recall reads, and hostile ones (deep nesting, YAML flow sequences and
# alias bombs, huge lines); each case is one lockfile in its own directory.
# Each is timed as `git lore stack --project CASE` (release build, process
# start and printing every package included), wall clock and CPU time
# (user + system; on a shared machine the wall clock also counts waiting
# for a core); and in-process by examples/parse_lockfile.rs: the CPU time
# of the parse alone and of the scan (parse, attribution,
# de-duplication, sorting). Results: $OUT/results.tsv, and a markdown
# table on stdout.
# Needs bash, python3 and cargo; nothing else.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/.." && pwd)
BUILD=1
QUICK=0
for arg in "$@"; do
    case $arg in
        --quick) QUICK=1 ;;
        --no-build) BUILD=0 ;;
        -h|--help) sed -n '2,24p' "$0"; exit 0 ;;
        *) echo "unknown option $arg" >&2; exit 1 ;;
    esac
done
if [ "$QUICK" = 1 ]; then MB=${MB:-1}; RUNS=${RUNS:-3}; else MB=${MB:-10}; RUNS=${RUNS:-5}; fi
CAP=${CAP:-120}
OUT=${OUT:-$HERE/out/parse}
BIN=${GIT_LORE_BIN:-$ROOT/target/release/git-lore}
PARSE=$ROOT/target/release/examples/parse_lockfile
rm -rf "$OUT"
mkdir -p "$OUT/cases"

if [ "$BUILD" = 1 ]; then
    echo "building the release binary and examples/parse_lockfile.rs" >&2
    (cd "$ROOT" && cargo build --release --locked --bin git-lore --example parse_lockfile >&2)
fi
# The in-process figures are this tree's parsers; with another binary
# (GIT_LORE_BIN), only the command is timed.
PARSE_ARGS=()
if [ -z "${GIT_LORE_BIN:-}" ] && [ -x "$PARSE" ]; then PARSE_ARGS=(--parse-bin "$PARSE"); fi

echo "generating the cases at ${MB} MB" >&2
python3 "$HERE/lib/gen_lockfiles.py" --out "$OUT/cases" --mb "$MB" ${CASES:+--only "$CASES"} >"$OUT/generated.tsv"
for f in ${REAL:-}; do
    d="$OUT/cases/real-file-$(basename "$(dirname "$f")")-$(basename "$f")"
    mkdir -p "$d"
    cp "$f" "$d/"
done

echo "timing $(ls "$OUT/cases" | wc -l) cases, $RUNS runs each, capped at ${CAP}s" >&2
python3 "$HERE/lib/timeparse.py" --bin "$BIN" "${PARSE_ARGS[@]}" --runs "$RUNS" --cap "$CAP" "$OUT"/cases/* >"$OUT/results.tsv"

echo "| case | file | size | \`stack\` wall | wall, max | \`stack\` CPU | parse CPU | scan CPU | packages | outcome |"
echo "|---|---|---:|---:|---:|---:|---:|---:|---:|---|"
tail -n +2 "$OUT/results.tsv" | awk -F'\t' '{
    printf "| %s | `%s` | %.1f MB | %s ms | %s ms | %s ms | %s ms | %s ms | %s | %s |\n", $1, $2, $3/1e6, $4, $5, $6, $7, $8, $9, $10
}'
