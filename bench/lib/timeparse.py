#!/usr/bin/env python3
"""Time `git lore stack --project CASE` for the parsing benchmark
(bench/parse.sh).

  timeparse.py --bin GIT_LORE [--parse-bin PARSE_LOCKFILE] --runs R --cap SECONDS CASE_DIR...

For each case directory: one untimed run with --json for what it found (the
packages, or the first problem), then R timed runs, each stopped at --cap
seconds (a run stopped there counts as the cap and is marked `>`). Prints a
TSV row per case: case, file, bytes, median_ms (wall clock), max_ms,
cpu_ms (median user + system time of the process), packages, outcome.
Process start is included. On a machine shared with other work the wall
clock waits for a core; the CPU time does not. With --parse-bin (the
parse_lockfile example), two more columns: parse_ms and scan_ms, the CPU
time of the parse alone and of the whole scan of the case's directory,
inside one process (no start-up, no output).
"""
import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import time


def cpu():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def run(cmd, cap):
    """(wall seconds, cpu seconds, completed process), or Nones at the cap."""
    t, c = time.perf_counter(), cpu()
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=cap)
        return time.perf_counter() - t, cpu() - c, p
    except subprocess.TimeoutExpired:
        return None, None, None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--cap", type=float, default=120.0)
    ap.add_argument("--parse-bin")
    ap.add_argument("cases", nargs="+")
    a = ap.parse_args()
    print("case\tfile\tbytes\tmedian_ms\tmax_ms\tcpu_ms\tparse_ms\tscan_ms\tpackages\toutcome")
    for case in a.cases:
        files = [f for f in sorted(os.listdir(case)) if not f.startswith(".")]
        name = files[0] if files else "-"
        size = os.path.getsize(os.path.join(case, name)) if files else 0
        cmd = [a.bin, "stack", "--project", case]
        _, _, first = run(cmd + ["--json"], a.cap)
        if first is None:
            packages, outcome = "-", "stopped at the cap"
        else:
            try:
                doc = json.loads(first.stdout)
                packages = str(len(doc["packages"]))
                problems = doc.get("problems") or []
                outcome = problems[0]["why"] if problems else "parsed"
            except (ValueError, KeyError):
                packages, outcome = "-", "exit %d: %s" % (first.returncode, first.stderr.decode()[:120])
        times, cpus, capped = [], [], False
        for _ in range(a.runs if first is not None else 0):
            t, c, _ = run(cmd, a.cap)
            if t is None:
                capped = True
                t = a.cap
            else:
                cpus.append(c)
            times.append(t)
        if not times:
            med = mx = cpu_ms = "> %d" % (a.cap * 1000)
        else:
            med = "%.1f" % (statistics.median(times) * 1000)
            mx = ("> %d" % (a.cap * 1000)) if capped else "%.1f" % (max(times) * 1000)
            cpu_ms = "%.1f" % (statistics.median(cpus) * 1000) if cpus else "> %d" % (a.cap * 1000)
        parse_ms = scan_ms = "-"
        if a.parse_bin and files and first is not None:
            try:
                p = subprocess.run([a.parse_bin, os.path.join(case, name), str(a.runs)],
                                   stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, timeout=a.cap * a.runs)
                cols = p.stdout.decode().rstrip("\n").split("\t")
                if len(cols) >= 4:
                    parse_ms, scan_ms = cols[2], cols[3]
            except subprocess.TimeoutExpired:
                parse_ms = scan_ms = "> %d" % (a.cap * 1000)
        outcome = outcome.replace("\t", " ").replace("\n", " ")[:160]
        print("\t".join([os.path.basename(case.rstrip("/")), name, str(size), med, mx, cpu_ms,
                         parse_ms, scan_ms, packages, outcome]))
        sys.stdout.flush()


if __name__ == "__main__":
    main()
