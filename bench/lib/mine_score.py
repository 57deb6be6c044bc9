#!/usr/bin/env python3
"""Scores what `git lore ingest --from-commits` proposed from a real history
against hand labels (bench/real/commits/<repo>.json).

    mine_score.py LESSONS_GITDIR LABELS_JSON FIRST_PARENT_COMMITS SECONDS

Prints one JSON object:
  proposals       proposals written
  declines        declines written
  labelled        labelled lessons (uncertain ones counted apart)
  found           labelled lessons with a proposal for their commit whose
                  scope agrees with the label (a package in common, and every
                  common package's ranges intersect)
  found_named     ... with a proposal for their commit at all
  false_lessons   proposals on commits labelled non-lessons
  unlabelled      proposals on commits the labels do not cover (listed)
  junk            junk-shaped proposals (listed): a claim that is the commit
                  subject, starts with a conventional-commit prefix or repeats
                  its resolution; a stack entry that is a file name; a package
                  in the scope that the commit's manifest change does not name
  commits_per_s   first-parent commits mined per second
Stdlib only.
"""
import json
import re
import subprocess
import sys

PREFIX = re.compile(r"^\s*(feat|fix|chore|docs|doc|style|refactor|perf|test|tests|build|ci|revert|deps|dep|release|bump|security|hotfix|wip|types|infra|ops|dx)(\([^)]*\))?!?:", re.I)
FILE = re.compile(r"(^|/)(gemfile(\.lock)?|makefile|dockerfile|pipfile(\.lock)?|go\.(mod|sum|work))$|\.(lock|lockb|json|toml|ya?ml|txt|mod|sum|cfg|ini|md|xml)$", re.I)


def git(gitdir, *args, data=None):
    return subprocess.run(["git", "--git-dir", gitdir, *args], input=data,
                          capture_output=True, check=True).stdout


def records(gitdir):
    names = git(gitdir, "ls-tree", "-r", "--name-only", "ledger").decode().split()
    want = [n for n in names if n.startswith(("proposals/", "declined/"))]
    if not want:
        return [], 0
    out = git(gitdir, "cat-file", "--batch", data="".join(f"ledger:{n}\n" for n in want).encode())
    recs, i = [], 0
    while i < len(out):
        nl = out.index(b"\n", i)
        size = int(out[i:nl].split()[2])
        recs.append(json.loads(out[nl + 1:nl + 1 + size]))
        i = nl + 1 + size + 1
    proposals = [r for r in recs if "candidate" in r]
    return proposals, len(recs) - len(proposals)


def norm(s):
    return re.sub(r"\s+", " ", re.sub(r"\(#\d+\)\s*$", "", s.strip().lower()))


# ---- ranges: a union ("||") of comparator sets, as release tuples ----------

def ver(s):
    s = s.strip().lstrip("v=")
    s = re.split(r"[-+]", s)[0]
    parts = [int(p) for p in re.findall(r"\d+", s)[:4]]
    return tuple(parts) or (0,)


def pad(t):
    return tuple(list(t) + [0] * (4 - len(t)))


def interval(text):
    """One comparator set of the lesson grammar -> (lo, lo_incl, hi, hi_incl)."""
    lo, lo_i, hi, hi_i = (0,), True, None, False
    for tok in text.split():
        m = re.match(r"(>=|<=|>|<|=)?(.+)", tok)
        op, v = m.group(1) or "=", m.group(2)
        n = v.count(".") + 1
        t = ver(v)
        bump = tuple(list(t[:-1]) + [t[-1] + 1])
        if op == ">=":
            lo, lo_i = t, True
        elif op == ">":
            lo, lo_i = (t, False) if n >= 3 else (bump, True)
        elif op == "<":
            hi, hi_i = t, False
        elif op == "<=":
            hi, hi_i = (t, True) if n >= 3 else (bump, False)
        else:
            lo, lo_i = t, True
            hi, hi_i = (t, True) if n >= 3 else (bump, False)
    return lo, lo_i, hi, hi_i


def intersects(a, b):
    for x in a.split("||"):
        for y in b.split("||"):
            if not x.strip() or not y.strip() or "every" in x or "every" in y:
                return True
            (l1, i1, h1, j1), (l2, i2, h2, j2) = interval(x), interval(y)
            lo, lo_i = max((pad(l1), i1), (pad(l2), i2), key=lambda p: (p[0], not p[1]))
            his = [(pad(h), j) for h, j in ((h1, j1), (h2, j2)) if h is not None]
            if not his:
                return True
            hi, hi_i = min(his, key=lambda p: (p[0], p[1]))
            if lo < hi or (lo == hi and lo_i and hi_i):
                return True
    return False


def key_name(k):
    k = k.split(":", 1)[1] if re.match(r"^(npm|cargo|pypi|go|rubygems|composer):", k) else k
    k = re.sub(r"[-_.]+", "-", k.lower())
    return {"rustc": "rust", "python3": "python", "node-js": "node", "nodejs": "node"}.get(k, k)


def agrees(proposal, label):
    versions = proposal["candidate"]["applies_to"]["scope"].get("versions", {})
    mine = {key_name(k): v for k, v in versions.items()}
    theirs = {key_name(k): v for k, v in label["lesson"]["scope"].items()}
    common = set(mine) & set(theirs)
    return bool(common) and all(intersects(mine[k], theirs[k]) for k in common)


def junk(p):
    c, a = p["candidate"], p.get("artifact") or {}
    why = []
    claim, res = c["claim"], c["evidence"]["resolution"]
    if PREFIX.match(claim):
        why.append("conventional prefix")
    if a.get("trigger") == "commit" and norm(claim) == norm(a.get("summary", "")):
        why.append("claim is the subject")
    if norm(claim) == norm(res):
        why.append("claim equals resolution")
    for s in c["applies_to"]["stack"]:
        if FILE.search(s.lower()):
            why.append(f"file in stack: {s}")
    named = set()
    for f in a.get("facts", []):
        for k in ("package",):
            if f.get(k):
                named.add(key_name(f[k]))
        for k in ("by", "owner"):
            if f.get(k):
                named.add(key_name(f[k]["name"]))
    for k in c["applies_to"]["stack"]:
        if a.get("facts") and key_name(k) not in named:
            why.append(f"package not in the diff: {k}")
    return why


def main():
    gitdir, labels_path, commits, seconds = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4])
    labels = json.load(open(labels_path))
    by_sha = {}
    for l in labels:
        by_sha[l["sha"]] = l
    proposals, declines = records(gitdir)
    sha_of = lambda p: (p.get("artifact") or {}).get("session_id", "").removeprefix("commit:")
    props = {}
    for p in proposals:
        props.setdefault(sha_of(p), []).append(p)
    lessons = [l for l in labels if l["label"] == "lesson"]
    found, named, missed = [], [], []
    for l in lessons:
        ps = props.get(l["sha"], [])
        if ps:
            named.append(l["sha"])
        if any(agrees(p, l) for p in ps):
            found.append(l["sha"])
        else:
            missed.append({"sha": l["sha"][:10], "subject": l["subject"][:90], "kind": l["kind"],
                           "uncertain": l["uncertain"], "label_scope": l["lesson"]["scope"],
                           "proposed": [p["candidate"]["applies_to"]["scope"].get("versions") for p in ps]})
    false_lessons, unlabelled, junky = [], [], []
    for sha, ps in props.items():
        lab = by_sha.get(sha)
        for p in ps:
            row = {"sha": sha[:10], "subject": (p.get("artifact") or {}).get("summary", "")[:90],
                   "claim": p["candidate"]["claim"][:160],
                   "scope": p["candidate"]["applies_to"]["scope"].get("versions")}
            if lab is None:
                unlabelled.append(row)
            elif lab["label"] != "lesson":
                false_lessons.append(row)
            j = junk(p)
            if j:
                junky.append(dict(row, why=j))
    certain = [l for l in lessons if not l["uncertain"]]
    print(json.dumps({
        "proposals": len(proposals),
        "declines": declines,
        "labelled": len(lessons),
        "labelled_certain": len(certain),
        "found": len(found),
        "found_certain": len([l for l in certain if l["sha"] in found]),
        "found_named": len(named),
        "false_lessons": false_lessons,
        "unlabelled": unlabelled,
        "junk": junky,
        "missed": missed,
        "commits": commits,
        "seconds": seconds,
        "commits_per_s": round(commits / seconds) if seconds > 0 else None,
    }, indent=1))


if __name__ == "__main__":
    main()
