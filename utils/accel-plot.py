#!/usr/bin/env python3
"""Plots an accel-replay output directory (metrics.json) as PNG pictures.

  accel-plot.py DIR     (or: accel-replay plot DIR)

Writes, next to metrics.json:
  dma_timeline.png  every DMA's lifetime: base latency, queue, transfer,
                    and the WAIT's stall or slack (seed 000 Fig. 4/5)
  utilization.png   busy fraction of each unit and DMA link over time
                    (seed 000 Fig. 7b)
  vmem_heatmap.png  used pages per VMEM block over time, with the free
                    fraction and the largest contiguous free run (Fig. 8)
Each picture is 1200x700 pixels. Exit 1 with one error line when the
directory has no metrics.json, the file is not an accel metrics.json, or
matplotlib is missing.
"""
import json
import os
import sys

WIDTH_IN, HEIGHT_IN, DPI = 12, 7, 100


def fail(msg):
    print("accel-plot: error: " + msg, file=sys.stderr)
    sys.exit(1)


def main():
    if len(sys.argv) != 2:
        fail("usage: accel-plot.py DIR")
    out = sys.argv[1]
    path = os.path.join(out, "metrics.json")
    try:
        with open(path) as f:
            m = json.load(f)
    except OSError as e:
        fail("%s: %s" % (path, e.strerror))
    except ValueError as e:
        fail("%s: invalid JSON: %s" % (path, e))
    if m.get("schema") != "accel-metrics" or "utilization" not in m:
        fail("%s: not an accel metrics.json with the analyzer's sections" % path)
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        fail("python3-matplotlib is not installed (apt-get install python3-matplotlib)")

    title = "%s (%s)" % (m.get("program", "?"), m["config"]["name"])
    written = []

    def save(fig, name):
        target = os.path.join(out, name)
        tmp = target + ".tmp.png"
        fig.savefig(tmp, dpi=DPI)
        plt.close(fig)
        os.replace(tmp, target)  # never a half-written picture
        written.append(target)

    # DMA timeline.
    dmas = m.get("dmas", [])
    fig, ax = plt.subplots(figsize=(WIDTH_IN, HEIGHT_IN))
    colors = {"base": "#4caf50", "queue": "#bdbdbd", "transfer": "#7e57c2",
              "stall": "#e53935", "slack": "#90a4ae"}
    for row, d in enumerate(dmas):
        y = len(dmas) - row
        ax.barh(y, d["base_end"] - d["issue"], left=d["issue"],
                color=colors["base"], height=0.8)
        if d["transfer_start"] > d["base_end"]:
            ax.barh(y, d["transfer_start"] - d["base_end"], left=d["base_end"],
                    color=colors["queue"], height=0.8)
        ax.barh(y, d["complete"] - d["transfer_start"], left=d["transfer_start"],
                color=colors["transfer"], height=0.8)
        if d.get("wait") is not None:
            stall = d["stall_base"] + d["stall_transfer"]
            if stall:
                ax.plot([d["wait"], d["wait"] + stall], [y, y],
                        color=colors["stall"], linewidth=2)
            if d["slack"]:
                ax.barh(y, d["slack"], left=d["complete"], color=colors["slack"],
                        height=0.4, hatch="xx")
    from matplotlib.patches import Patch
    ax.legend(handles=[Patch(color=c, label=k) for k, c in colors.items()],
              loc="upper right")
    ax.set_xlabel("cycle")
    ax.set_ylabel("DMA (issue order, top first)")
    ax.set_title("DMA lifetimes: " + title)
    fig.tight_layout()
    save(fig, "dma_timeline.png")

    # Utilization over time.
    u = m["utilization"]
    bucket = u["bucket_cycles"]
    fig, ax = plt.subplots(figsize=(WIDTH_IN, HEIGHT_IN))
    for name, unit in u["units"].items():
        series = unit["series"]
        if not any(series):
            continue
        xs = [i * bucket for i in range(len(series))]
        ax.step(xs, [100 * v for v in series], where="post",
                label="%s (%.1f%%)" % (name, 100 * unit["utilization"]))
    ax.set_ylim(0, 105)
    ax.set_xlabel("cycle (buckets of %d cycles)" % bucket)
    ax.set_ylabel("busy %")
    ax.set_title("Unit utilization: " + title)
    ax.legend(loc="upper right")
    fig.tight_layout()
    save(fig, "utilization.png")

    # VMEM heatmap with free space.
    v = m["vmem"]
    heat = v["heatmap"]
    fig, (ax0, ax1) = plt.subplots(
        2, 1, figsize=(WIDTH_IN, HEIGHT_IN), sharex=True,
        gridspec_kw={"height_ratios": [3, 1]})
    if heat and heat[0]:
        rows = list(map(list, zip(*heat)))  # blocks x buckets
        im = ax0.imshow(rows, aspect="auto", origin="lower", interpolation="nearest",
                        extent=[0, len(heat) * bucket, 0, len(rows)],
                        vmin=0, vmax=v["pages_per_block"], cmap="viridis")
        # One colour bar for both panels, so their time axes line up.
        fig.colorbar(im, ax=[ax0, ax1], label="used pages per block")
    ax0.set_ylabel("VMEM block (%d pages each)" % v["pages_per_block"])
    ax0.set_title("VMEM occupancy: " + title)
    xs = [i * bucket for i in range(len(v["free_fraction"]))]
    pages = v["pages"] or 1
    ax1.step(xs, [100 * f for f in v["free_fraction"]], where="post",
             label="free")
    ax1.step(xs, [100.0 * r / pages for r in v["largest_free_run_pages"]],
             where="post", label="largest contiguous free run")
    ax1.set_ylim(0, 105)
    ax1.set_ylabel("% of VMEM")
    ax1.set_xlabel("cycle")
    ax1.legend(loc="lower right")
    save(fig, "vmem_heatmap.png")

    for p in written:
        print("wrote " + p)


if __name__ == "__main__":
    main()
