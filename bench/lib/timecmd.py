#!/usr/bin/env python3
"""Time a command over repeated runs (fallback when hyperfine is missing).

  timecmd.py --runs R --warmup W --json OUT -- CMD [ARGS...]
  timecmd.py --shell ... -- 'pipeline | with | pipes'

Writes a hyperfine-compatible JSON subset: results[0].{mean,median,min,max,stddev}
in seconds. Process start is included (that is the point).
"""
import argparse
import json
import statistics
import subprocess
import sys
import time


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--runs", type=int, default=30)
    p.add_argument("--warmup", type=int, default=3)
    p.add_argument("--json", required=True)
    p.add_argument("--shell", action="store_true")
    p.add_argument("cmd", nargs=argparse.REMAINDER)
    a = p.parse_args()
    cmd = a.cmd[1:] if a.cmd and a.cmd[0] == "--" else a.cmd
    if a.shell:
        cmd = ["/bin/sh", "-c", " ".join(cmd)]
    for _ in range(a.warmup):
        subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    times = []
    for _ in range(a.runs):
        t = time.perf_counter()
        subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        times.append(time.perf_counter() - t)
    res = {
        "command": " ".join(cmd),
        "mean": statistics.mean(times),
        "median": statistics.median(times),
        "min": min(times),
        "max": max(times),
        "stddev": statistics.stdev(times) if len(times) > 1 else 0.0,
        "times": times,
    }
    with open(a.json, "w") as f:
        json.dump({"results": [res]}, f, indent=1)
    print(f"{res['median']*1000:.2f} ms median over {a.runs} runs: {res['command']}", file=sys.stderr)


if __name__ == "__main__":
    main()
