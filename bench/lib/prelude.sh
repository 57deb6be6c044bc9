# Shared by the benchmark scripts (sourced, not run): logging and timing
# helpers and the hermetic environment. Expects LOG (the run log) to be set.

# say TEXT: a line with the time and the load average, to stderr and LOG.
say() { echo "[$(date +%H:%M:%S) load $(cut -d' ' -f1 /proc/loadavg)] $*" | tee -a "$LOG" >&2; }
die() { say "FAILED: $*"; exit 1; }
now() { date +%s.%N; }
# since START: seconds since START (a `now`), three decimals.
since() { awk -v a="$1" -v b="$(now)" 'BEGIN{printf "%.3f", b-a}'; }

# hermetic DIR [BINDIR]: (in a subshell) point everything at DIR: its own
# HOME and lesson repository, no git configuration but the repository's,
# no inherited GIT_* or XDG_* variable; BINDIR first on PATH if given.
hermetic() {
    local d=$1 v
    mkdir -p "$d/home"
    for v in $(compgen -e); do
        case $v in GIT_*|XDG_*) unset "$v" ;; esac
    done
    export HOME=$d/home GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null
    export GIT_LORE_REPO=$d/lessons.git LC_ALL=C
    if [ -n "${2:-}" ]; then export PATH=$2:$PATH; fi
}

# as DIR CMD...: runs CMD with nothing of this environment but PATH, its
# HOME at DIR and its lesson repository at DIR/lessons.git.
as() {
    local d=$1; shift
    env -i PATH="$PATH" HOME="$d" GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null \
        GIT_LORE_REPO="$d/lessons.git" LC_ALL=C "$@"
}

# pool_at DIR N BIN POOLGEN: a fresh lesson repository in DIR (initialised
# by BIN) with a pool of N lessons made by POOLGEN (the bench_pool
# example), packed; the project it was made for is in DIR/../project.
pool_at() {
    local d=$1 n=$2 bin=$3 gen=$4
    as "$d" "$bin" init --email ana@example.org >/dev/null 2>&1
    say "pool of $n"
    as "$d" "$gen" "$d/lessons.git" "$(dirname "$d")/project" "$n" >/dev/null 2>&1
    settle "$d/lessons.git"
    git -C "$d/lessons.git" gc --quiet || die "git gc of the pool"
}

# settle GITDIR: waits for the background work a git-lore command may
# leave in GITDIR: a `git gc --auto` (gc.pid) and the repack or
# commit-graph write named by lore/repack.pid (until it exits; a zombie
# counts as done).
settle() {
    local gd=$1 pid
    while [ -e "$gd/gc.pid" ]; do sleep 0.2; done
    pid=$(cat "$gd/lore/repack.pid" 2>/dev/null || echo)
    while [ -n "$pid" ] && [ -e "/proc/$pid" ] && ! awk '{exit !($3=="Z")}' "/proc/$pid/stat" 2>/dev/null; do
        sleep 0.2
    done
    while [ -e "$gd/gc.pid" ]; do sleep 0.2; done
}

# upkeep HOST: waits for the job a pool host's post-receive hook starts in
# the background (lore/maintenance.pid, until gone or its process has
# ended: a zombie counts as done); prints the seconds waited.
upkeep() {
    local lock=$1/lore/maintenance.pid pid t0
    t0=$(now)
    while [ -e "$lock" ]; do
        pid=$(cat "$lock" 2>/dev/null || echo)
        [ -n "$pid" ] && [ -e "/proc/$pid" ] && ! awk '{exit !($3=="Z")}' "/proc/$pid/stat" 2>/dev/null || break
        sleep 0.1
    done
    since "$t0"
}

# seconds FIGURE SIZE SECONDS...: the mean, min and max of SECONDS appended
# to RES as one row `figure size mean min max`.
seconds() {
    local fig=$1 size=$2; shift 2
    python3 - "$fig" "$size" "$@" >>"$RES" <<'EOF'
import statistics, sys
fig, size, xs = sys.argv[1], sys.argv[2], [float(x) for x in sys.argv[3:]]
print(f"{fig}\t{size}\t{statistics.mean(xs):.3f}\t{min(xs):.3f}\t{max(xs):.3f}")
EOF
}
