#!/usr/bin/env python3
"""Helpers around a `git fast-export` stream of a git-lore ledger.

  stream_tool.py check STREAM
      Print "commits=N blobs=M signed=K" (K: commits whose stream still carries
      a gpgsig header; fast-import must get unsigned commits).

  stream_tool.py plumbing-inputs STREAM OUTDIR K
      For the first K commits that add one file under proposals/ or declined/
      (the init commit is skipped), write OUTDIR/NNNNNN.blob (the record),
      OUTDIR/NNNNNN.path (its fan-out path) and OUTDIR/NNNNNN.msg (the commit
      message with its trailers), for bench/lib/plumbing_loop.sh.
"""

import os
import sys


def parse(path):
    """Yields ('blob', mark, data) and ('commit', msg, [(mode, dataref, path)])."""
    with open(path, "rb") as f:
        buf = f.read()
    pos = 0
    n = len(buf)

    def line():
        nonlocal pos
        end = buf.index(b"\n", pos)
        s = buf[pos:end]
        pos = end + 1
        return s

    def data():
        nonlocal pos
        hdr = line()
        assert hdr.startswith(b"data "), hdr
        size = int(hdr[5:])
        d = buf[pos:pos + size]
        pos += size
        if pos < n and buf[pos:pos + 1] == b"\n":
            pos += 1
        return d

    while pos < n:
        l = line()
        if not l:
            continue
        if l == b"blob":
            mark = None
            l2 = line()
            if l2.startswith(b"mark "):
                mark = l2[5:]
            else:
                pos -= len(l2) + 1
            yield ("blob", mark, data())
        elif l.startswith(b"commit "):
            signed = False
            msg = None
            files = []
            while True:
                if pos >= n:
                    break
                peek_end = buf.index(b"\n", pos)
                peek = buf[pos:peek_end]
                if peek.startswith(b"data "):
                    msg = data()
                    continue
                if peek.startswith((b"mark ", b"author ", b"committer ", b"from ", b"merge ",
                                    b"encoding ", b"original-oid ")):
                    line()
                    continue
                if peek.startswith(b"gpgsig "):
                    signed = True
                    line()
                    data()
                    continue
                if peek.startswith(b"M "):
                    parts = line().split(b" ", 3)
                    files.append((parts[1], parts[2], parts[3]))
                    continue
                if peek.startswith(b"D "):
                    line()
                    continue
                break
            yield ("commit", msg, files, signed)
        elif l.startswith((b"reset ", b"from ", b"feature ", b"progress ", b"done")):
            continue
        else:
            raise SystemExit(f"unexpected stream line: {l[:80]!r}")


def main():
    cmd = sys.argv[1]
    if cmd == "check":
        commits = blobs = signed = 0
        for ev in parse(sys.argv[2]):
            if ev[0] == "blob":
                blobs += 1
            else:
                commits += 1
                signed += 1 if ev[3] else 0
        print(f"commits={commits} blobs={blobs} signed={signed}")
    elif cmd == "plumbing-inputs":
        stream, outdir, k = sys.argv[2], sys.argv[3], int(sys.argv[4])
        os.makedirs(outdir, exist_ok=True)
        marks = {}
        i = 0
        for ev in parse(stream):
            if ev[0] == "blob":
                marks[ev[1]] = ev[2]
                continue
            _, msg, files, _ = ev
            recs = [f for f in files if f[2].startswith((b"proposals/", b"declined/"))]
            if len(files) != 1 or len(recs) != 1:
                continue  # the init commit
            mode, ref, path = recs[0]
            if not ref.startswith(b":"):
                raise SystemExit("expected marks in the stream")
            with open(os.path.join(outdir, f"{i:06d}.blob"), "wb") as f:
                f.write(marks[ref])
            with open(os.path.join(outdir, f"{i:06d}.path"), "wb") as f:
                f.write(path + b"\n")
            with open(os.path.join(outdir, f"{i:06d}.msg"), "wb") as f:
                f.write(msg)
            i += 1
            if i >= k:
                break
        print(i)
    else:
        raise SystemExit(__doc__)


if __name__ == "__main__":
    main()
