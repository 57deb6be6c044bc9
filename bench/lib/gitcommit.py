#!/usr/bin/env python3
"""Time what git itself takes to add one commit to a branch: `git
commit-tree` then `git update-ref` (two processes, no shell), process
starts included.

  gitcommit.py --git-dir DIR --ref REF --runs R --json OUT [--sign]

REF must exist; each run commits REF's tree again on top of REF (with
--sign, `commit-tree -S`, signed the way the repository's config says)
and moves REF by compare-and-swap, as `git lore confirm` does its branch.
JSON as timeeach.py writes it.
"""
import argparse
import json
import subprocess
import time

from timeeach import summary


def git(d, *args):
    return subprocess.run(["git", "--git-dir", d, *args], check=True,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE).stdout.decode().strip()


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--git-dir", required=True)
    p.add_argument("--ref", required=True)
    p.add_argument("--runs", type=int, default=30)
    p.add_argument("--json", required=True)
    p.add_argument("--sign", action="store_true")
    a = p.parse_args()
    d = a.git_dir
    tree = git(d, "rev-parse", a.ref + "^{tree}")
    times = []
    for i in range(a.runs):
        old = git(d, "rev-parse", a.ref)
        t = time.perf_counter()
        new = git(d, "commit-tree", *(["-S"] if a.sign else []), tree, "-p", old, "-m", "bench %d" % i)
        git(d, "update-ref", a.ref, new, old)
        times.append(time.perf_counter() - t)
    res = summary(times)
    res["command"] = "git commit-tree%s + git update-ref" % (" -S" if a.sign else "")
    res["times"] = times
    json.dump({"results": [res]}, open(a.json, "w"), indent=1)


if __name__ == "__main__":
    main()
