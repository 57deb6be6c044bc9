#!/usr/bin/env python3
"""Where a process's resident memory is, by kind of mapping.

    smaps.py PID LOG            sample a running process (every 2 s) until it ends
    smaps.py --run LOG -- CMD…  run CMD and sample it

Every sample sums `Rss` of /proc/PID/smaps by kind: pack data (.pack),
pack indexes (.idx), the multi-pack index, the lesson index's files
(lore/), heap, other anonymous memory, the executable, other files. Each
sample is a line of LOG (seconds since the start, total KiB, then
kind=KiB); at the end the largest sample is printed, by kind.
"""
import collections
import os
import re
import subprocess
import sys
import time


def kind(path):
    if path.endswith('.idx'):
        return 'pack .idx'
    if path.endswith('.pack'):
        return 'pack .pack'
    if 'multi-pack-index' in path:
        return 'midx'
    if '/lore/' in path:
        return 'lore index files'
    if path == '[heap]':
        return 'heap'
    if path == '':
        return 'anon'
    if 'git-lore' in path:
        return 'exe'
    return 'other'


def sample(pid):
    # The kernel writes smaps a page at a time and finds its place again by
    # address; when the process changes its mappings between two reads (the
    # heap grows or shrinks), a mapping can be listed twice. Each address
    # is counted once: summed twice, the heap looked double for a sample.
    sums = collections.Counter()
    cur = None
    seen = set()
    with open(f'/proc/{pid}/smaps') as f:
        for line in f:
            if re.match(r'^[0-9a-f]+-[0-9a-f]+ ', line):
                parts = line.split(None, 5)
                start = parts[0].split('-')[0]
                cur = None if start in seen else kind(parts[5].strip() if len(parts) > 5 else '')
                seen.add(start)
            elif line.startswith('Rss:') and cur is not None:
                sums[cur] += int(line.split()[1])
    return sums


def main():
    args = sys.argv[1:]
    child = None
    if args and args[0] == '--run':
        log_path, cmd = args[1], args[3:] if args[2] == '--' else args[2:]
        child = subprocess.Popen(cmd, stdout=subprocess.DEVNULL)
        pid, period = child.pid, 0.25
    elif len(args) == 2:
        pid, log_path, period = int(args[0]), args[1], 2.0
    else:
        sys.exit(__doc__)
    best = (0, collections.Counter(), 0.0)
    t0 = time.time()
    with open(log_path, 'w') as log:
        while os.path.exists(f'/proc/{pid}') and (child is None or child.poll() is None):
            try:
                sums = sample(pid)
            except OSError:
                break
            total = sum(sums.values())
            t = time.time() - t0
            log.write(f'{t:.1f} {total} ' + ' '.join(f'{k}={v}' for k, v in sorted(sums.items())) + '\n')
            log.flush()
            if total > best[0]:
                best = (total, sums, t)
            time.sleep(period)
    print(f'largest sample: {best[0]} KiB at {best[2]:.0f} s')
    for k, v in best[1].most_common():
        print(f'  {k:18s} {v:9d} KiB')
    if child is not None:
        sys.exit(child.wait())


main()
