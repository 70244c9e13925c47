"""Compares a replayed window of one chip of a system with the full run.

Usage: compare-chip.py RUN_METRICS CHIP REPLAY_METRICS

Prints one line per check. Every DMA the window issued must have the
full run's issue, base_end, transfer_start and complete cycles; every DMA
the window also WAITed must have its WAIT cycle and stall split. A window
that runs to the chip's HALT must end at the chip's end cycle, and a whole
run (from instruction 0) have the run's stall cycles.
"""
import json
import sys

run = json.load(open(sys.argv[1]))["chips"][int(sys.argv[2])]
rep = json.load(open(sys.argv[3]))
ran = {d["id"]: d for d in run["dmas"]}
timing = ["issue", "base_end", "transfer_start", "complete", "bytes", "link"]
wait = ["wait", "stall_base", "stall_transfer", "slack"]
issued = waited = 0
bad = []
for d in rep["dmas"]:
    r = ran.get(d["id"])
    if r is None:
        bad.append("DMA %d is not in the run" % d["id"])
        continue
    issued += 1
    for k in timing:
        if d[k] != r[k]:
            bad.append("DMA %d %s: replay %s, run %s" % (d["id"], k, d[k], r[k]))
    if d.get("wait") is not None:
        waited += 1
        for k in wait:
            if d[k] != r[k]:
                bad.append("DMA %d %s: replay %s, run %s" % (d["id"], k, d[k], r[k]))
print("window DMAs:", issued, "waited:", waited, "differences:", len(bad))
for b in bad[:10]:
    print("  ", b)
w = rep["window"]
if w["start_instruction"] + w["instructions"] == run["instructions"]:
    print("to the end: end cycle", rep["total_cycles"], "run", run["end_cycle"])
    # The stall totals are the window's: the run's only for a whole run.
    if w["start_instruction"] == 0:
        print("stalls equal:", rep["stall_cycles"] == run["stall_cycles"],
              rep["dma_stall_cycles"] == run["dma_stall_cycles"])
sys.exit(1 if bad else 0)
