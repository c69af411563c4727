#!/usr/bin/env python3
# CPU time (user + system, from wait4) of commands run interleaved N times each, min and median, each as a ratio
# to the first command: steadier than wall time on a shared, loaded machine (bench/bootstatus/README.md).
# Usage: cpu-time.py N "cmd1 args" "cmd2 args" ...   (no shell: arguments split on spaces; output discarded)
import os, statistics, sys
cmds = sys.argv[2:]
n = int(sys.argv[1])
res = {c: [] for c in cmds}
for _ in range(n):
    for c in cmds:
        pid = os.fork()
        if pid == 0:
            fd = os.open(os.devnull, os.O_WRONLY); os.dup2(fd, 1); os.dup2(fd, 2)
            a = c.split()
            os.execvp(a[0], a)
        _, status, ru = os.wait4(pid, 0)
        res[c].append((ru.ru_utime + ru.ru_stime) * 1000)
base = None
for c in cmds:
    v = sorted(res[c]); med = statistics.median(v); mn = v[0]
    if base is None: base = (mn, med)
    print(f"min {mn:6.1f} ms  median {med:6.1f} ms  ratio(min) {mn/base[0]:.2f} ratio(median) {med/base[1]:.2f}  {c}")
