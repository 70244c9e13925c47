#!/usr/bin/env python3
"""Analysis time vs trace length (issue: the analyzer).

Runs bench/workloads/layernorm_loop.mlir with its step count scaled to about
100 k, 1 M and 4 M instructions, once with the analyzer
(`accel-replay run`) and once without (`--analyze=false`), best of
--repeat, and prints the analyzer's share: total time, analysis time (the
difference), analysis nanoseconds per instruction, which stays flat if
the analysis is linear in the trace length, and each run's peak resident
set size.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time


def best(cmd, repeat):
    """Best wall-clock seconds of `repeat` runs, and the peak resident set
    size in MiB (the largest over the runs, from wait4's rusage)."""
    t, rss = None, 0
    for _ in range(repeat):
        s = time.monotonic()
        p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL,
                             stderr=subprocess.PIPE, text=True)
        err = p.stderr.read()
        _, status, usage = os.wait4(p.pid, 0)
        e = time.monotonic() - s
        if status:
            sys.exit("failed: %s\n%s" % (" ".join(cmd), err))
        t = e if t is None else min(t, e)
        rss = max(rss, usage.ru_maxrss / 1024.0)  # KiB on Linux
    return t, rss


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default="build")
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    src = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    tool = os.path.join(args.build, "bin", "accel-replay")
    base = open(os.path.join(src, "bench", "workloads", "layernorm_loop.mlir")).read()
    tmp = tempfile.mkdtemp(prefix="accel-scaling-")
    print("| instructions | run with analyzer, s | run without, s | analysis, s "
          "| analysis ns/instruction | peak RSS with analyzer, MiB | without, MiB |")
    print("|---|---|---|---|---|---|---|")
    for target in (100_000, 1_000_000, 4_000_000):
        steps = target // 13  # 13 instructions per loop step
        prog = os.path.join(tmp, "ln%d.mlir" % target)
        with open(prog, "w") as f:
            f.write(re.sub(r"arith.constant \d+ : index\n  %xv",
                           "arith.constant %d : index\n  %%xv" % steps, base))
        out = os.path.join(tmp, "out%d" % target)
        t_on, rss_on = best([tool, "run", prog, "-o", out], args.repeat)
        t_off, rss_off = best([tool, "run", prog, "-o", out + "-off",
                               "--analyze=false"], args.repeat)
        n = json.load(open(os.path.join(out, "metrics.json")))["instructions"]
        a = max(0.0, t_on - t_off)
        print("| %d | %.3f | %.3f | %.3f | %.0f | %.0f | %.0f |"
              % (n, t_on, t_off, a, 1e9 * a / n, rss_on, rss_off))


if __name__ == "__main__":
    main()
