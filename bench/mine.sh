#!/usr/bin/env bash
# Mining real histories (issue 19 §7): `git lore ingest --from-commits` over
# public repositories, scored against hand labels (bench/real/commits/), and
# timed against plain `git log` reading the same first-parent history.
#
#   bench/mine.sh NAME=GITDIR [NAME=GITDIR ...]
#
# NAME is a labels file's stem (vite, vitest, fastapi, nushell, cli) and
# GITDIR a clone of that repository at the commit its labels README names
# (git clone --bare https://github.com/vitejs/vite, ...). Each repository is
# copied into a scratch clone whose origin is the GitHub URL, so bare `#123`
# references qualify as owner/name#123.
#
# Environment: BIN (default: target/release/git-lore, built if missing),
# OUT (default: bench/out/mine-<date>), RUNS (timing runs, default 3).
# Prints a table and writes OUT/<name>.json (the full score: missed labels,
# proposals on non-lessons, unlabelled proposals, junk).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
OUT=${OUT:-$root/bench/out/mine-$(date +%Y%m%d-%H%M%S)}
RUNS=${RUNS:-3}
mkdir -p "$OUT"
LOG=$OUT/run.log
. bench/lib/prelude.sh
BIN=${BIN:-$root/target/release/git-lore}
if [ ! -x "$BIN" ]; then
    say "building the release binary"
    cargo build --release --quiet
fi
[ $# -gt 0 ] || die "usage: bench/mine.sh NAME=GITDIR ... (see the header)"

printf '%-8s %8s %6s %9s %8s %6s %6s %6s %10s %10s\n' repo commits props labelled found false unlab junk "lore c/s" "git log c/s" | tee -a "$LOG"
for pair in "$@"; do
    name=${pair%%=*}
    src=${pair#*=}
    labels=$root/bench/real/commits/$name.json
    [ -f "$labels" ] || die "no labels for $name ($labels)"
    url=$(python3 -c "import json,sys; print('https://github.com/' + json.load(open(sys.argv[1]))[0]['repo'])" "$labels")
    work=$OUT/$name
    rm -rf "$work" && mkdir -p "$work"
    git clone --quiet --bare "$src" "$work/project.git"
    git -C "$work/project.git" config remote.origin.url "$url"
    commits=$(git -C "$work/project.git" rev-list --first-parent --count HEAD)
    # What a user would run instead to read the same history: plain git log
    # of the first-parent history with the paths each commit changed.
    best_git=""
    for _ in $(seq "$RUNS"); do
        t=$(now)
        git -C "$work/project.git" log --first-parent --format=%H%n%B --name-only HEAD >/dev/null
        s=$(since "$t")
        best_git=$(awk -v a="$s" -v b="$best_git" 'BEGIN{print (b=="" || a<b) ? a : b}')
    done
    # Timing runs into fresh lesson repositories: the first run writes every
    # proposal and decline; its seconds are the figure.
    best=""
    for i in $(seq "$RUNS"); do
        d=$work/run$i
        mkdir -p "$d"
        as "$d" "$BIN" init --email bench@example.org >/dev/null 2>&1
        t=$(now)
        as "$d" "$BIN" ingest --from-commits "$work/project.git" >"$d/ingest.out" 2>"$d/ingest.err" || die "ingest of $name (see $d/ingest.err)"
        s=$(since "$t")
        settle "$d/lessons.git"
        best=$(awk -v a="$s" -v b="$best" 'BEGIN{print (b=="" || a<b) ? a : b}')
    done
    python3 bench/lib/mine_score.py "$work/run1/lessons.git" "$labels" "$commits" "$best" >"$OUT/$name.json"
    python3 - "$OUT/$name.json" "$name" "$commits" "$best_git" <<'PY' | tee -a "$LOG"
import json, sys
r = json.load(open(sys.argv[1]))
git_cps = round(int(sys.argv[3]) / float(sys.argv[4])) if float(sys.argv[4]) > 0 else 0
print(f"{sys.argv[2]:<8} {r['commits']:>8} {r['proposals']:>6} {r['labelled']:>9} {r['found']:>8} "
      f"{len(r['false_lessons']):>6} {len(r['unlabelled']):>6} {len(r['junk']):>6} {r['commits_per_s']:>10} {git_cps:>10}")
PY
done
say "scores in $OUT"
