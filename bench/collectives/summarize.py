#!/usr/bin/env python3
"""Splits the DMA stalls of an All-Gather run into its setup and transfer
phases (SnR, Zarkadas et al., SoCC '25, §5.2.1: the setup DMAs are what
parallel issue and pinning remove).

  summarize.py DIR [--source FILE] [--min-setup-cut X] [--min-cycle-cut Y]

DIR is an `accel-replay run` output directory (metrics.json) or an
`accel-replay fdo` one (iterN/metrics.json, fdo.json). A DMA belongs to the
setup phase when the source line of its op ends in "// setup", as
make_all_gather.py writes them; its source file is the one named in the
DMA's location, or FILE. Stalls are summed over every chip of the system.

Prints one line per run: cycles, setup DMAs and their base / transfer stall
cycles, and the other DMAs' stall cycles. With --same-buffer NAME (e.g.
%arg3, the gathered output) every run must leave that HBM buffer with the
same bits on every chip (metrics.json chips[].hbm_buffer_hashes).
For an fdo directory it then prints the cut of the setup stall and of the
cycles from iteration 0 to the best iteration; --min-setup-cut and
--min-cycle-cut make the exit status 1 when a cut is smaller.
"""
import argparse
import glob
import json
import os
import re
import sys


def load_lines(path, cache):
    if path not in cache:
        try:
            with open(path) as f:
                cache[path] = f.read().split("\n")
        except OSError as e:
            sys.exit("summarize.py: cannot read %s: %s" % (path, e.strerror))
    return cache[path]


def summarize(metrics_path, source, cache, same_buffer):
    with open(metrics_path) as f:
        m = json.load(f)
    if same_buffer:
        hashes = {c["hbm_buffer_hashes"].get(same_buffer)
                  for c in m.get("chips", [])}
        if len(hashes) != 1 or None in hashes:
            sys.exit("summarize.py: %s: buffer %s differs between chips (or "
                     "is missing)" % (metrics_path, same_buffer))
    out = {"cycles": m["total_cycles"], "setup": 0, "setup_base": 0,
           "setup_transfer": 0, "other_stall": 0}
    for chip in m.get("chips") or [m]:
        for d in chip["dmas"]:
            file, line, _ = d["loc"].rsplit(":", 2)
            text = load_lines(source or file, cache)[int(line) - 1]
            stall = d["stall_base"] + d["stall_transfer"]
            if re.search(r"//\s*setup\b", text):
                out["setup"] += 1
                out["setup_base"] += d["stall_base"]
                out["setup_transfer"] += d["stall_transfer"]
            else:
                out["other_stall"] += stall
    out["setup_stall"] = out["setup_base"] + out["setup_transfer"]
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dir")
    ap.add_argument("--source", help="the program's source file (default: "
                    "the file named in each DMA's location)")
    ap.add_argument("--same-buffer", metavar="NAME",
                    help="an HBM buffer that must be equal on every chip")
    ap.add_argument("--min-setup-cut", type=float, default=0)
    ap.add_argument("--min-cycle-cut", type=float, default=0,
                    help="as a fraction, e.g. 0.15")
    a = ap.parse_args()
    cache = {}
    fdo = os.path.join(a.dir, "fdo.json")
    if os.path.exists(fdo):
        with open(fdo) as f:
            fdo_json = json.load(f)
        best = fdo_json["summary"]["best_iteration"]
        if not fdo_json["summary"].get("results_match", False):
            sys.exit("summarize.py: the FDO results differ from iteration 0")
        runs = sorted(glob.glob(os.path.join(a.dir, "iter*", "metrics.json")),
                      key=lambda p: int(re.search(r"iter(\d+)", p).group(1)))
    else:
        best, runs = None, [os.path.join(a.dir, "metrics.json")]
    if not runs or not all(os.path.exists(r) for r in runs):
        sys.exit("summarize.py: no metrics.json under %s" % a.dir)
    rows = [summarize(r, a.source, cache, a.same_buffer) for r in runs]
    print("%-6s %9s %6s %12s %10s %10s %12s" % (
        "run", "cycles", "setup", "setup_stall", "base", "transfer",
        "other_stall"))
    for i, r in enumerate(rows):
        print("%-6s %9d %6d %12d %10d %10d %12d" % (
            "iter%d" % i if best is not None else "run", r["cycles"],
            r["setup"], r["setup_stall"], r["setup_base"],
            r["setup_transfer"], r["other_stall"]))
    if a.same_buffer:
        print("%s is identical on every chip in every run" % a.same_buffer)
    if best is None:
        return 0
    b, r0 = rows[best], rows[0]
    setup_cut = r0["setup_stall"] / max(1, b["setup_stall"])
    cycle_cut = 1 - b["cycles"] / max(1, r0["cycles"])
    print("best iteration %d: setup DMA stall cut %.2fx (%d -> %d), cycles "
          "-%.1f%% (%d -> %d)" % (best, setup_cut, r0["setup_stall"],
                                   b["setup_stall"], 100 * cycle_cut,
                                   r0["cycles"], b["cycles"]))
    ok = setup_cut >= a.min_setup_cut and cycle_cut >= a.min_cycle_cut
    if not ok:
        print("below the required cut (setup >= %.2fx, cycles >= %.1f%%)" %
              (a.min_setup_cut, 100 * a.min_cycle_cut))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
