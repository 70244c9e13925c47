#!/usr/bin/env python3
"""All-Gather (SnR, Zarkadas et al., SoCC '25, §5.2.1) over 4..64 chips:
cycles before and after each FDO transform, and the VMEM pinning uses.

  run_scaling.py [--build build] [--chips 4,8,16,32,64] [--record-words 1]
                 [--config FILE] [--out DIR] [-j N]

For each chip count, make_all_gather.py writes the program (4 layers, 8x128
f32 shards) and accel-replay runs it five ways:

  base     `accel-replay run` (no transform)
  par      `fdo --passes=accel-parallelize-dma,cse` (parallel issue alone)
  pin      `fdo --passes=accel-pin-vmem{...},cse` (pinning alone)
  no-pin   `fdo` with the default pipeline minus accel-pin-vmem
  fdo      `fdo` with its default pipeline (pin, parallelize, rename,
           hoist, sink, pipeline, cse; the scheduler as a trial)

and prints one Markdown row per chip count: the cycles of each (with the
cut against base), the setup DMA stall of base and fdo (summarize.py's
split), what pinning adds on top of the rest (no-pin -> fdo), and the VMEM
the resident tables of the fdo result take (page-rounded, as lowering
places them) against the VMEM left free by the program's other buffers.
--config runs every variant on that machine config (its `vmem` section
sets the capacity the pin choice works under). Every run must leave the
gathered output identical on all chips (summarize.py --same-buffer).
"""
import argparse
import concurrent.futures
import json
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import summarize  # noqa: E402

NO_PIN = ("accel-parallelize-dma,accel-rename-vmem{vmem-capacity=%d "
          "vmem-page=%d},accel-hoist-dma{vmem-capacity=%d vmem-page=%d},"
          "accel-sink-dma-wait,accel-pipeline-dma{vmem-capacity=%d "
          "vmem-page=%d},cse")


def vmem_of(config):
    """(capacity, page) bytes of a config file, or the defaults."""
    cap, page = 33554432, 1024
    if config:
        with open(config) as f:
            v = json.load(f).get("vmem", {})
        cap, page = v.get("bytes", cap), v.get("page_bytes", page)
    return cap, page


def tile_bytes(memref):
    """Bytes of a static memref type string (f32 or i32 elements)."""
    m = re.match(r"memref<([0-9x]+)x[fi]32", memref)
    n = 1
    for d in m.group(1).split("x"):
        n *= int(d)
    return 4 * n


def allocs(program, page):
    """(pinned, other) page-rounded bytes of the accel.alloc ops."""
    pinned = other = 0
    with open(program) as f:
        for line in f:
            m = re.search(r"accel\.alloc( \{[^}]*\})? : (memref<[^>]*>)", line)
            if not m:
                continue
            b = -(-tile_bytes(m.group(2)) // page) * page
            if m.group(1) and "accel.pinned" in m.group(1):
                pinned += b
            else:
                other += b
    return pinned, other


def run(cmd):
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       text=True)
    if r.returncode:
        sys.exit("failed (%d): %s\n%s" % (r.returncode, " ".join(cmd),
                                          r.stdout[-2000:]))


def one(args, chips):
    cap, page = vmem_of(args.config)
    d = os.path.join(args.out, "c%d" % chips)
    os.makedirs(d, exist_ok=True)
    src = os.path.join(d, "all_gather.mlir")
    with open(src, "w") as f:
        subprocess.run([sys.executable, os.path.join(HERE, "make_all_gather.py"),
                        "--chips", str(chips), "--record-words",
                        str(args.record_words)], stdout=f, check=True)
    tool = os.path.join(args.build, "bin", "accel-replay")
    cfg = ["--config", args.config] if args.config else []
    variants = {
        "par": ["--passes=accel-parallelize-dma,cse", "--trial-passes="],
        "pin": ["--passes=accel-pin-vmem{vmem-capacity=%d vmem-page=%d},cse"
                % (cap, page), "--trial-passes="],
        "no-pin": ["--passes=" + NO_PIN % ((cap, page) * 3)],
        "fdo": [],
    }
    run([tool, "run", src, "-o", os.path.join(d, "base")] + cfg)
    for name, extra in variants.items():
        run([tool, "fdo", src, "-o", os.path.join(d, name)] + cfg + extra)
    cache = {}
    row = {"chips": chips}
    base = summarize.summarize(os.path.join(d, "base", "metrics.json"), src,
                               cache, "%arg3")
    row["base"] = base["cycles"]
    row["base_setup"] = base["setup_stall"]
    row["chip_cycles"] = base["cycles"] * chips
    for name in variants:
        with open(os.path.join(d, name, "fdo.json")) as f:
            fdo = json.load(f)
        if not fdo["summary"]["results_match"]:
            sys.exit("%s: results differ" % name)
        best = fdo["summary"]["best_iteration"]
        m = os.path.join(d, name, "iter%d" % best, "metrics.json")
        s = summarize.summarize(m, src, cache, "%arg3")
        row[name] = s["cycles"]
        row[name + "_setup"] = s["setup_stall"]
        if name == "fdo":
            prog = os.path.join(d, name, "iter%d" % best, "program.mlir")
            row["pinned"], row["other_vmem"] = allocs(prog, page)
    row["capacity"] = cap
    return row


def pct(after, before):
    return "%+.1f%%" % (100.0 * (after - before) / max(1, before))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default="build")
    ap.add_argument("--chips", default="4,8,16,32,64")
    ap.add_argument("--record-words", type=int, default=1)
    ap.add_argument("--config")
    ap.add_argument("--out", default="/tmp/accel-collectives")
    ap.add_argument("-j", "--jobs", type=int, default=1)
    a = ap.parse_args()
    counts = [int(c) for c in a.chips.split(",")]
    with concurrent.futures.ThreadPoolExecutor(a.jobs) as pool:
        rows = list(pool.map(lambda c: one(a, c), counts))
    print("| chips | base cycles | setup stall share | par | pin | no-pin "
          "| fdo | pin on top of the rest (no-pin -> fdo) | setup stall "
          "base -> fdo | pinned VMEM (free before) |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        free = r["capacity"] - r["other_vmem"]
        print("| %d | %d | %.1f%% | %d (%s) | %d (%s) | %d (%s) | %d (%s) | %s "
              "| %d -> %d | %d B (%d B) |" % (
                  r["chips"], r["base"],
                  100.0 * r["base_setup"] / max(1, r["chip_cycles"]),
                  r["par"], pct(r["par"], r["base"]),
                  r["pin"], pct(r["pin"], r["base"]),
                  r["no-pin"], pct(r["no-pin"], r["base"]),
                  r["fdo"], pct(r["fdo"], r["base"]),
                  pct(r["fdo"], r["no-pin"]),
                  r["base_setup"], r["fdo_setup"], r["pinned"], free))
    return 0


if __name__ == "__main__":
    sys.exit(main())
