#!/usr/bin/env python3
"""Record/replay benchmark (issue: record and replay as the paper does it).

Runs, from a built tree (default ./build):
  1. a full recording of bench/workloads/layernorm_loop.mlir (>= 1 M
     instructions): record time, trace bytes, bytes per instruction;
  2. its replay with the performance tracker (DMA stall analysis) on:
     replay time and simulated instructions per second;
  3. a 5000-instruction window from the middle of examples/llama2_mlp.mlir:
     minimal state vs a full-state snapshot of the same window.
Each timing is the best of --repeat runs (wall clock, time.monotonic).
Prints a Markdown table for bench/RESULTS.md.
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile
import time


def timed(cmd, repeat):
    best = None
    out = ""
    for _ in range(repeat):
        start = time.monotonic()
        proc = subprocess.run(cmd, capture_output=True, text=True)
        elapsed = time.monotonic() - start
        if proc.returncode != 0:
            sys.exit("failed: %s\n%s" % (" ".join(cmd), proc.stderr))
        out = proc.stdout
        best = elapsed if best is None else min(best, elapsed)
    return best, out


def info(tool, trace):
    out = subprocess.run([tool, "trace-info", trace], capture_output=True,
                         text=True, check=True).stdout
    fields = {}
    for line in out.splitlines():
        key, _, value = line.partition(":")
        fields[key.strip()] = value.strip()
    return fields


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default="build")
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    src = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    tool = os.path.join(args.build, "bin", "accel-replay")
    tmp = tempfile.mkdtemp(prefix="accel-bench-")
    rows = []

    ln = os.path.join(src, "bench", "workloads", "layernorm_loop.mlir")
    trace = os.path.join(tmp, "ln.trace")
    t_run, _ = timed([tool, "run", ln, "-o", os.path.join(tmp, "run")],
                     args.repeat)
    t_rec, _ = timed([tool, "record", ln, "--count=2000000", "-o", trace],
                     args.repeat)
    fields = info(tool, trace)
    n = int(re.match(r"(\d+)", fields["window"]).group(1))
    size = os.path.getsize(trace)
    t_rep, _ = timed([tool, "replay", trace, "-o", os.path.join(tmp, "rep"),
                      "--analyze=false"], args.repeat)
    t_full, _ = timed([tool, "replay", trace, "-o", os.path.join(tmp, "full")],
                      args.repeat)
    t_timing, _ = timed([tool, "replay", trace, "-o", os.path.join(tmp, "tim"),
                         "--analyze=false", "--timing-only"], args.repeat)
    rows.append(("layernorm_loop: instructions recorded", "%d" % n))
    rows.append(("run with the analyzer (no recording), s", "%.3f" % t_run))
    rows.append(("record, s", "%.3f" % t_rec))
    rows.append(("record speed, M instructions/s", "%.2f" % (n / t_rec / 1e6)))
    rows.append(("replay with the DMA-stall tracker, s", "%.3f" % t_rep))
    rows.append(("replay speed, M instructions/s", "%.2f" % (n / t_rep / 1e6)))
    rows.append(("replay --timing-only with the DMA-stall tracker, s",
                 "%.3f" % t_timing))
    rows.append(("replay speed --timing-only, M instructions/s",
                 "%.2f" % (n / t_timing / 1e6)))
    rows.append(("replay with the full analyzer, s", "%.3f" % t_full))
    rows.append(("replay speed with the analyzer, M instructions/s",
                 "%.2f" % (n / t_full / 1e6)))
    rows.append(("trace bytes", "%d" % size))
    rows.append(("trace bytes / instruction", "%.2f" % (size / n)))
    rows.append(("initial state (layernorm)", fields["initial memory"]))
    rows.append(("full-state snapshot (layernorm)",
                 fields["full-state snapshot"]))

    mlp = os.path.join(src, "examples", "llama2_mlp.mlir")
    mtrace = os.path.join(tmp, "mlp.trace")
    t_mrec, _ = timed([tool, "record", mlp, "--break-at=op:36", "--hit=100",
                       "--count=5000", "-o", mtrace], 1)
    mf = info(tool, mtrace)
    rows.append(("MLP window: instructions", mf["window"]))
    rows.append(("MLP window: initial state", mf["initial memory"]))
    rows.append(("MLP window: trace bytes", "%d (%s)" % (
        os.path.getsize(mtrace), mf["file size"].split("(")[1].rstrip(")"))))
    rows.append(("MLP window: full-state snapshot", mf["full-state snapshot"]))

    print("| measure | value |")
    print("|---|---|")
    for k, v in rows:
        print("| %s | %s |" % (k, v))


if __name__ == "__main__":
    main()
