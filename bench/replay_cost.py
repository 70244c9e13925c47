#!/usr/bin/env python3
"""Replay cost in executed host instructions (callgrind), per simulated
instruction: a count that does not depend on how busy the machine is, for
comparing builds where wall-clock time on a shared machine is too noisy.

Records bench/workloads/layernorm_loop.mlir windows of 1000 and 200000
instructions, replays each under `valgrind --tool=callgrind` (timing-only
and functional, both with the DMA-stall tracker, `--analyze=false`), and
prints the fixed cost (the 1000-instruction replay: process start-up,
loading the trace, setting up memory) and the cost per further instruction.
Needs Debian's valgrind package.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile


def collected(cmd):
    """Host instructions (callgrind's Ir) executed by `cmd`."""
    out = tempfile.NamedTemporaryFile(suffix=".cg", delete=False).name
    p = subprocess.run(["valgrind", "--tool=callgrind",
                        "--callgrind-out-file=" + out] + cmd,
                       capture_output=True, text=True)
    os.unlink(out)
    if p.returncode:
        sys.exit("failed: %s\n%s" % (" ".join(cmd), p.stderr[-2000:]))
    m = re.search(r"Collected : (\d+)", p.stderr)
    if not m:
        sys.exit("no callgrind total in:\n" + p.stderr[-2000:])
    return int(m.group(1))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default="build")
    args = ap.parse_args()
    if not shutil.which("valgrind"):
        sys.exit("valgrind not found (apt-get install valgrind)")
    src = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    tool = os.path.join(args.build, "bin", "accel-replay")
    ln = os.path.join(src, "bench", "workloads", "layernorm_loop.mlir")
    tmp = tempfile.mkdtemp(prefix="accel-replay-cost-")
    traces = {}
    for n in (1000, 200000):
        traces[n] = os.path.join(tmp, "ln%d.trace" % n)
        subprocess.run([tool, "record", ln, "--count=%d" % n, "-o", traces[n]],
                       check=True, capture_output=True)
    print("| replay | fixed cost, M host instructions | host instructions per "
          "simulated instruction |")
    print("|---|---|---|")
    for name, flags in (("timing-only", ["--timing-only"]),
                        ("functional", [])):
        cost = {n: collected([tool, "replay", traces[n], "-o",
                              os.path.join(tmp, "out"), "--analyze=false"] +
                             flags)
                for n in traces}
        per = (cost[200000] - cost[1000]) / (200000 - 1000)
        print("| %s | %.1f | %.0f |" % (name, cost[1000] / 1e6, per))


if __name__ == "__main__":
    main()
