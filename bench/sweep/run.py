#!/usr/bin/env python3
"""The config sweep of issue 14 on examples/llama2_mlp.mlir, and its speed.

  python3 bench/sweep/run.py --build build [--out bench/sweep]

Runs `accel-replay sweep examples/llama2_mlp.mlir` over VMEM size (1, 2,
32 MiB) x HBM bandwidth (a quarter, half, all and twice the default
1142.857 B/cycle): 12 points, each a run and the FDO loop. It runs the
grid twice, with -j 2 and -j 1, times both (wall clock), checks that both
give the same rows, and writes into --out: sweep.csv, sweep.json and
sweep.png of the -j 2 run, and RESULTS.md with the table, the times, the
machine and the date.
"""
import argparse
import csv
import datetime
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.dirname(HERE))
from machine import cpu_model  # noqa: E402
SETS = ["vmem.bytes=1Mi,2Mi,32Mi",
        "hbm.bytes_per_cycle=285.714,571.4285,1142.857,2285.714"]


def sweep(exe, out, jobs):
    cmd = [exe, "sweep", os.path.join(ROOT, "examples", "llama2_mlp.mlir"),
           "-j", str(jobs), "-o", out]
    for s in SETS:
        cmd += ["--set", s]
    start = time.monotonic()
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       text=True)
    wall = time.monotonic() - start
    if r.returncode != 0:
        sys.exit("sweep -j %d failed (%d):\n%s%s" %
                 (jobs, r.returncode, r.stdout, r.stderr))
    return wall, r.stdout


def rows(path):
    with open(path, newline="") as f:
        return [{k: v for k, v in r.items() if k != "config_hash"}
                for r in csv.DictReader(f)]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", default="build",
                    help="build directory (its bin/accel-replay)")
    ap.add_argument("--out", default=HERE)
    args = ap.parse_args()
    exe = os.path.join(os.path.abspath(args.build), "bin", "accel-replay")
    tmp = tempfile.mkdtemp(prefix="accel-sweep-bench-")
    try:
        wall2, table = sweep(exe, os.path.join(tmp, "j2"), 2)
        wall1, _ = sweep(exe, os.path.join(tmp, "j1"), 1)
        a = rows(os.path.join(tmp, "j2", "sweep.csv"))
        b = rows(os.path.join(tmp, "j1", "sweep.csv"))
        if a != b:
            sys.exit("-j 1 and -j 2 disagree: the sweep is not deterministic")
        os.makedirs(args.out, exist_ok=True)
        for name in ("sweep.csv", "sweep.json", "sweep.png"):
            shutil.copy(os.path.join(tmp, "j2", name),
                        os.path.join(args.out, name))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    table = table.split("\nwrote ")[0].rstrip()
    cmd = ("accel-replay sweep examples/llama2_mlp.mlir " +
           " ".join("--set '%s'" % s for s in SETS))
    text = """# Config sweep: Llama-2 MLP over VMEM size x HBM bandwidth

Written by `python3 bench/sweep/run.py --build build` (issue 14, item 5).

```
$ %s -o bench/sweep
%s
```

Every point is a run of the program and the FDO loop on that machine
(`cycles` before, `fdo_cycles` after; `fdo` the change). The table is
sweep.csv; sweep.png draws it.

![sweep.png](sweep.png)

## Wall time: 2 threads vs 1

| threads | wall time (s) | speed-up |
|---|---|---|
| 1 | %.1f | 1.00x |
| 2 | %.1f | %.2fx |

Both runs give the same rows (checked). Machine: %s, %d hardware threads,
%s; %s.
""" % (cmd, table, wall1, wall2, wall1 / wall2, cpu_model(),
       os.cpu_count() or 0, platform.platform(),
       datetime.date.today().isoformat())
    # Hand-written observations after a "## What it shows" heading are
    # kept across reruns.
    path = os.path.join(args.out, "RESULTS.md")
    if os.path.exists(path):
        with open(path) as f:
            old = f.read()
        at = old.find("\n## What it shows")
        if at >= 0:
            text += old[at:]
    with open(path, "w") as f:
        f.write(text)
    print(text)


if __name__ == "__main__":
    main()
