"""Prints the system, every DMA and each chip's stalls of a metrics.json of
a run on several chips, one line each, for FileCheck."""
import json
import sys

m = json.load(open(sys.argv[1]))
s = m["system"]
print("system %d chips %s: %d cycles" % (s["chips"], s["topology"], m["total_cycles"]))
for d in m["dmas"]:
    route = "%d->%d hops %d" % (d["src_chip"], d["dst_chip"], d["hops"]) if "hops" in d else "local"
    print("chip %d dma %d %s %s: issue %d base_end %d transfer %d complete %d stall %d+%d slack %d"
          % (d["chip"], d["id"], d["link"], route, d["issue"], d["base_end"],
             d["transfer_start"], d["complete"], d["stall_base"],
             d["stall_transfer"], d["slack"]))
for c in m["chips"]:
    st = c["stall_cycles"]
    print("chip %d stalls: sem_wait %d dma_wait_base %d dma_wait_transfer %d"
          % (c["chip"], st["sem_wait"], st["dma_wait_base"], st["dma_wait_transfer"]))
print("links: " + ", ".join("%s %d" % (k, v["dmas"]) for k, v in sorted(m["links"].items())))
