# Shared by bench/recall.sh and bench/search.sh (sourced, not run): the
# hermetic environment of a command run against one benchmark repository,
# and timing a command into the results table. Expects HERE (bench/),
# OUT (the output directory), RUNS and RES (results.tsv) to be set.

# hermetic_env DIR: sets H, an array (so that timecmd.py can run it too)
# that runs a command with nothing of this environment but PATH, its HOME
# at DIR/home and its lesson repository at DIR/lessons.git.
hermetic_env() {
    H=(env -i PATH="$PATH" HOME="$1/home" GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null
        GIT_LORE_REPO="$1/lessons.git")
}

# time_it SIZE FIGURE CMD... : RUNS timed runs after two warm-ups, their
# mean, min and max in milliseconds appended to RES.
time_it() {
    local size=$1 fig=$2; shift 2
    python3 "$HERE/lib/timecmd.py" --runs "$RUNS" --warmup 2 --json "$OUT/$size-$fig.json" -- "$@"
    python3 - "$OUT/$size-$fig.json" "$size" "$fig" >>"$RES" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))["results"][0]
print(f"{sys.argv[2]}\t{sys.argv[3]}\t{r['mean']*1e3:.1f}\t{r['min']*1e3:.1f}\t{r['max']*1e3:.1f}")
PY
}
