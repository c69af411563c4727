#!/usr/bin/env python3
"""Round-robin timing of the shim against the tool run directly and the two-line `exec` script (the floor).

hyperfine runs one command's runs one after the other, so on a shared machine a change in load between two
commands moves their ratio by more than a shim change of a few syscalls. This runs every command once per round,
in a rotating order, and reports each one's wall time (min, median) and CPU time of the child (user+sys from
wait4, median and mean) with ratios against the tool run directly.

Run: KEEP=1 RUNS=1 node bench/toolmgr/hot-path-bench.mjs   (prints "kept <project>")
     python3 bench/toolmgr/shim-round-robin.py <project> [rounds] [more executables to compare, e.g. shim variants]
Every command gets `--version` and runs in <project>/a/b/c/d/e (five directories below the project), as in
hot-path-bench.mjs; SUBDIR=<path below the project> runs them elsewhere (SUBDIR= for the project directory itself).
"""
import glob
import os
import statistics
import sys
import time

project = os.path.abspath(sys.argv[1])
rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 1000
home = os.path.join(project, ".home")
direct = glob.glob(os.path.join(home, "tools", "tool0", "*", "tool0"))[0]
commands = [
    ("shell-script tool run directly", [direct]),
    ("`sh -c true`", ["/bin/sh", "-c", "true"]),
    ("two-line script that only `exec`s it (the floor)", [os.path.join(project, "exec-only.sh")]),
    ("its shim", [os.path.join(home, "shims", "tool0")]),
] + [(os.path.basename(p), [os.path.abspath(p)]) for p in sys.argv[3:]]
env = dict(os.environ, TOOLMGR_HOME=home, XDG_CONFIG_HOME=os.path.join(project, ".config"))
cwd = os.path.join(project, os.environ.get("SUBDIR", "a/b/c/d/e"))
devnull = os.open(os.devnull, os.O_WRONLY)
wall = [[] for _ in commands]
cpu = [[] for _ in commands]
load = open("/proc/loadavg").read().split()[:3]
os.chdir(cwd)
warmup = 20
for r in range(rounds + warmup):
    for k in range(len(commands)):
        i = (k + r) % len(commands)
        argv = commands[i][1] + ["--version"]
        start = time.perf_counter_ns()
        pid = os.posix_spawn(argv[0], argv, env, file_actions=[(os.POSIX_SPAWN_DUP2, devnull, 1)])
        _, status, usage = os.wait4(pid, 0)
        end = time.perf_counter_ns()
        if os.waitstatus_to_exitcode(status) != 0:
            sys.exit(f"{argv[0]} exited with {os.waitstatus_to_exitcode(status)}")
        if r >= warmup:
            wall[i].append((end - start) / 1e6)
            cpu[i].append((usage.ru_utime + usage.ru_stime) * 1e3)
print(f"load average at the start: {' '.join(load)}, at the end: {' '.join(open('/proc/loadavg').read().split()[:3])}; "
      f"{rounds} rounds")
print()
print("| command | min [ms] | median [ms] | user+sys median [ms] | user+sys mean [ms] "
      "| ratio (min) | ratio (median) | ratio (user+sys median) | ratio (user+sys mean) |")
print("|:---|---:|---:|---:|---:|---:|---:|---:|---:|")
base = (min(wall[0]), statistics.median(wall[0]), statistics.median(cpu[0]), statistics.mean(cpu[0]))
for (name, _), w, c in zip(commands, wall, cpu):
    x = (min(w), statistics.median(w), statistics.median(c), statistics.mean(c))
    print(f"| {name} | " + " | ".join(f"{v:.3f}" for v in x) + " | "
          + " | ".join(f"{v / b:.2f}x" for v, b in zip(x, base)) + " |")
