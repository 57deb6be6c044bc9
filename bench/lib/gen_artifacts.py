#!/usr/bin/env python3
"""Generate N archivist artifacts for the git-lore benchmarks.

Every artifact is valid against schema/artifact.schema.json, carries version
tokens (so the pre-gate passes) and states a resolution with named versions
(so the offline backend proposes a lesson, as tests/fixtures/artifacts/
fix-with-versions.json does). ULIDs are unique, 26 characters of Crockford
base32, upper case, first character 0-7, and deterministic for a given seed.

Usage:
  gen_artifacts.py --n N --seed S --dir DIR        one file per artifact
  gen_artifacts.py --n N --seed S --jsonl FILE     JSON Lines, one per line
  (both may be given; the same artifacts go to both)
  --ids FILE   also write the ULIDs, one per line, in generation order
"""

import argparse
import json
import os
import random
import sys

CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"

PACKAGES = [
    ("next", "react"), ("vite", "vitest"), ("django", "psycopg"),
    ("rails", "puma"), ("spring-boot", "hibernate"), ("express", "mongoose"),
    ("webpack", "babel-loader"), ("pytest", "pluggy"), ("tokio", "hyper"),
    ("gradle", "kotlin"), ("eslint", "typescript"), ("numpy", "pandas"),
]
SYMPTOMS = [
    "Hydration crash", "Build failure", "Segfault at startup", "Test runner hangs",
    "Type error on import", "Connection pool exhausted", "Memory leak under load",
    "Deprecation warning turned error", "Flaky snapshot tests", "Slow cold start",
]
FILES = ["package.json", "app/layout.tsx", "pyproject.toml", "Cargo.toml",
         "build.gradle", "Gemfile.lock", "src/main.rs", "config/settings.py"]


def ulid(ms: int, rnd: random.Random) -> str:
    """48-bit time + 80-bit random, Crockford base32 (first char 0-7)."""
    value = (ms << 80) | rnd.getrandbits(80)
    out = []
    for _ in range(26):
        out.append(CROCKFORD[value & 31])
        value >>= 5
    s = "".join(reversed(out))
    assert s[0] in "01234567", s
    return s


def artifact(i: int, aid: str, rnd: random.Random) -> dict:
    a, b = PACKAGES[i % len(PACKAGES)]
    symptom = SYMPTOMS[(i // len(PACKAGES)) % len(SYMPTOMS)]
    va = f"{rnd.randint(1, 30)}.{rnd.randint(0, 20)}.{rnd.randint(0, 40)}"
    vb = f"{rnd.randint(1, 30)}.{rnd.randint(0, 20)}.{rnd.randint(0, 40)}"
    pin = f"{rnd.randint(1, 30)}.{rnd.randint(0, 9)}.0"
    sec = (i * 7) % 86400
    ts = f"2026-09-{1 + i % 28:02d}T{sec // 3600:02d}:{sec % 3600 // 60:02d}:{sec % 60:02d}Z"
    return {
        "id": aid,
        "kind": "decision",
        "project_key": f"{(i * 2654435761) % (1 << 48):012x}",
        "source": "local",
        "created_at": ts,
        "updated_at": ts,
        "summary": f"{symptom} in {a} {va} with {b} {vb} (case {i})",
        "detail": (f"After a lockfile refresh installed {b} {vb}, the {a} build started failing "
                   f"in run {i}. Fixed by pinning {b} to {pin} in the manifest until {a} ships "
                   f"a patch release."),
        "files": [FILES[i % len(FILES)], FILES[(i * 3 + 1) % len(FILES)]],
        "session_id": f"sess-bench-{i // 10}",
        "trigger": "auto",
    }


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--n", type=int, required=True)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--dir")
    p.add_argument("--jsonl")
    p.add_argument("--jsonl-split", type=int, default=0,
                   help="with --jsonl: start a new file every K lines (FILE.0000.jsonl, ...)")
    p.add_argument("--ids")
    args = p.parse_args()

    rnd = random.Random(args.seed)
    base_ms = 1_788_000_000_000 + args.seed * 1_000_000_000  # Sep 2026 + seed offset
    seen = set()
    if args.dir:
        os.makedirs(args.dir, exist_ok=True)
    jl = None
    jl_index = 0

    def open_jsonl(k):
        if args.jsonl_split:
            root, ext = os.path.splitext(args.jsonl)
            return open(f"{root}.{k:04d}{ext or '.jsonl'}", "w")
        return open(args.jsonl, "w")

    if args.jsonl:
        os.makedirs(os.path.dirname(os.path.abspath(args.jsonl)), exist_ok=True)
        jl = open_jsonl(0)
    ids = open(args.ids, "w") if args.ids else None
    for i in range(args.n):
        aid = ulid(base_ms + i, rnd)
        if aid in seen:
            raise SystemExit(f"duplicate ULID {aid}")
        seen.add(aid)
        art = artifact(i, aid, rnd)
        if args.dir:
            # Zero-padded so directory order is generation order.
            with open(os.path.join(args.dir, f"{i:07d}-{aid}.json"), "w") as f:
                json.dump(art, f, indent=2)
                f.write("\n")
        if jl:
            if args.jsonl_split and i and i % args.jsonl_split == 0:
                jl.close()
                jl_index += 1
                jl = open_jsonl(jl_index)
            jl.write(json.dumps(art, separators=(",", ":")) + "\n")
        if ids:
            ids.write(aid + "\n")
    if jl:
        jl.close()
    if ids:
        ids.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
