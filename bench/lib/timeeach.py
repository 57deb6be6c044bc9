#!/usr/bin/env python3
"""Time a command once per argument, process start included.

  timeeach.py --args FILE --json OUT [--warmup W] -- CMD {} [ARGS...]

Runs CMD once per line of FILE, with `{}` replaced by that line (so each
run can act on another record: `confirm` of an already confirmed lesson
writes nothing). The first W lines are run untimed. Every run must exit 0.

Writes a hyperfine-compatible JSON subset: results[0].{mean,median,min,max,
stddev,p90,times} in seconds over all timed runs.
"""
import argparse
import json
import statistics
import subprocess
import sys
import time


def summary(times):
    if not times:
        return {"count": 0}
    s = sorted(times)
    return {
        "count": len(s),
        "mean": statistics.mean(s),
        "median": statistics.median(s),
        "min": s[0],
        "max": s[-1],
        "p90": s[min(len(s) - 1, int(0.9 * len(s)))],
        "stddev": statistics.stdev(s) if len(s) > 1 else 0.0,
    }


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--args", required=True)
    p.add_argument("--json", required=True)
    p.add_argument("--warmup", type=int, default=0)
    p.add_argument("cmd", nargs=argparse.REMAINDER)
    a = p.parse_args()
    cmd = a.cmd[1:] if a.cmd and a.cmd[0] == "--" else a.cmd
    lines = [l.strip() for l in open(a.args) if l.strip()]
    times = []
    for i, arg in enumerate(lines):
        argv = [x.replace("{}", arg) for x in cmd]
        t = time.perf_counter()
        r = subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        dt = time.perf_counter() - t
        if r.returncode != 0:
            sys.exit("run %d (%s) exited %d: %s" % (i, " ".join(argv), r.returncode, r.stderr.decode(errors="replace").strip()))
        if i < a.warmup:
            continue
        times.append(dt)
    res = summary(times)
    res["command"] = " ".join(cmd)
    res["times"] = times
    json.dump({"results": [res]}, open(a.json, "w"), indent=1)


if __name__ == "__main__":
    main()
