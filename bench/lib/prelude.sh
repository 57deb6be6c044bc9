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
