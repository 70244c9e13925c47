#!/usr/bin/env python3
"""Plots an accel-replay output directory (metrics.json) as PNG pictures.

  accel-plot.py DIR [--chip N] [--dmas FIRST:END]
  (or: accel-replay plot DIR [--chip N] [--dmas FIRST:END])

Writes, next to metrics.json:
  dma_timeline.png  the DMAs on a timeline (seed 000 Fig. 4/5): each DMA's
                    base latency, queue and transfer, its WAIT's stall split
                    into base and transfer parts, slack, and arrows from a
                    DMA to the DMAs whose address or chip id was loaded from
                    the bytes it brought (the setup-group dependences of
                    seed 000 §5.2.1, from dmas[].backtail.relaxed)
  utilization.png   busy fraction of each unit and DMA link over time
                    (seed 000 Fig. 7b)
  vmem_heatmap.png  used pages per VMEM block over time, with the free
                    fraction and the largest contiguous free run (Fig. 8)
For a system of several chips the pictures show one chip (--chip, default
0). dma_timeline.png draws DMAs FIRST..END-1 in issue order (--dmas,
default the first 64). Each picture is 1200x700 pixels. Exit 1 with one
error line when the directory has no metrics.json, the file is not an accel
metrics.json, an option is out of range, or matplotlib is missing.
"""
import argparse
import json
import os
import sys

WIDTH_IN, HEIGHT_IN, DPI = 12, 7, 100


def fail(msg):
    print("accel-plot: error: " + msg, file=sys.stderr)
    sys.exit(1)


MAX_DEFAULT_DMAS = 64


def parse_window(text, count):
    """FIRST:END (END exclusive; either may be empty) -> (first, end)."""
    parts = text.split(":")
    try:
        if len(parts) != 2:
            raise ValueError
        first = int(parts[0]) if parts[0] else 0
        end = int(parts[1]) if parts[1] else count
    except ValueError:
        fail("--dmas: expected FIRST:END (e.g. 0:18), got '%s'" % text)
    if count == 0:
        fail("--dmas %s: the run has no DMAs" % text)
    if first >= count and first >= 0:
        fail("--dmas %s: the chip has %d DMAs (0..%d)" % (text, count, count - 1))
    if not 0 <= first < end:
        fail("--dmas %s: need 0 <= FIRST < END" % text)
    return first, min(end, count)


def main():
    parser = argparse.ArgumentParser(
        prog="accel-plot.py", description=__doc__.split("\n")[0])
    parser.add_argument("dir", help="an accel-replay output directory")
    parser.add_argument("--chip", type=int, default=None,
                        help="the chip to draw, of a system (default 0)")
    parser.add_argument("--dmas", default=None, metavar="FIRST:END",
                        help="the DMAs of dma_timeline.png, by issue order "
                             "(default the first %d)" % MAX_DEFAULT_DMAS)
    parser.error = lambda msg: fail(msg)
    args = parser.parse_args()
    out = args.dir
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
    chips = m.get("chips")
    if isinstance(chips, list) and chips:
        chip = 0 if args.chip is None else args.chip
        if not 0 <= chip < len(chips):
            fail("--chip %d: the system has chips 0..%d" % (chip, len(chips) - 1))
        m = dict(m, **{k: v for k, v in chips[chip].items()
                       if k in ("dmas", "utilization", "vmem")})
        where = "chip %d of %d" % (chip, len(chips))
    else:
        if args.chip not in (None, 0):
            fail("--chip %d: the run has one chip" % args.chip)
        where = None
    all_dmas = sorted(m.get("dmas", []), key=lambda d: (d["issue"], d["id"]))
    if args.dmas is not None:
        first, end = parse_window(args.dmas, len(all_dmas))
    else:
        first, end = 0, min(len(all_dmas), MAX_DEFAULT_DMAS)
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        fail("python3-matplotlib is not installed (apt-get install python3-matplotlib)")

    title = "%s (%s)" % (m.get("program", "?"), m["config"]["name"])
    if where:
        title += ", " + where
    written = []

    def save(fig, name, note=None):
        target = os.path.join(out, name)
        tmp = target + ".tmp.png"
        fig.savefig(tmp, dpi=DPI)
        plt.close(fig)
        os.replace(tmp, target)  # never a half-written picture
        written.append(target + (" (%s)" % note if note else ""))

    # DMA timeline (Fig. 4, 5).
    dmas = all_dmas[first:end]
    row_of = {d["id"]: k for k, d in enumerate(dmas)}
    n = len(dmas)
    fig, ax = plt.subplots(figsize=(WIDTH_IN, HEIGHT_IN))
    colors = {"base latency": "#a5d6a7", "queue": "#e0e0e0",
              "transfer": "#b39ddb", "WAIT stall: base latency": "#2e7d32",
              "WAIT stall: transfer": "#5e35b1", "slack": "#90a4ae"}
    stall_base = stall_transfer = 0

    def y_of(row):
        return n - row  # the first DMA on top

    for row, d in enumerate(dmas):
        y = y_of(row)
        ax.barh(y, d["base_end"] - d["issue"], left=d["issue"],
                color=colors["base latency"], height=0.8)
        if d["transfer_start"] > d["base_end"]:
            ax.barh(y, d["transfer_start"] - d["base_end"], left=d["base_end"],
                    color=colors["queue"], height=0.8)
        ax.barh(y, max(d["complete"] - d["transfer_start"], 0),
                left=d["transfer_start"], color=colors["transfer"], height=0.8)
        if d.get("wait") is not None:
            # The WAIT's stall (Fig. 4): base part, then transfer part, as
            # a darker strip in the lower half of the row.
            w = d["wait"]
            stall_base += d["stall_base"]
            stall_transfer += d["stall_transfer"]
            if d["stall_base"]:
                ax.barh(y - 0.2, d["stall_base"], left=w, height=0.4,
                        color=colors["WAIT stall: base latency"])
            if d["stall_transfer"]:
                ax.barh(y - 0.2, d["stall_transfer"], left=w + d["stall_base"],
                        height=0.4, color=colors["WAIT stall: transfer"])
            if d["slack"]:
                ax.barh(y, d["slack"], left=d["complete"], color=colors["slack"],
                        height=0.4, hatch="xx")

    # Dependences between the drawn DMAs: an arrow from the cycle DMA p's
    # WAIT returned (its bytes usable) to the ISSUE of the DMA it binds.
    arrows = {"address": 0, "other": 0}
    for row, d in enumerate(dmas):
        relaxed = (d.get("backtail") or {}).get("relaxed") or {}
        bound = relaxed.get("bound") or {}
        p = bound.get("dma")
        if p is None or p not in row_of:
            continue
        src = dmas[row_of[p]]
        ready = src["complete"]
        if src.get("wait") is not None:
            ready = max(ready, src["wait"] + src["stall_base"] +
                        src["stall_transfer"])
        address = relaxed.get("via") == "address"
        arrows["address" if address else "other"] += 1
        ax.annotate("", xy=(d["issue"], y_of(row)),
                    xytext=(ready, y_of(row_of[p])),
                    arrowprops=dict(arrowstyle="->", color="#e53935" if address
                                    else "#757575", lw=1.3 if address else 0.8,
                                    linestyle="-" if address else "--",
                                    shrinkA=0, shrinkB=0))
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch
    handles = [Patch(color=c, label=k) for k, c in colors.items()]
    handles.append(Line2D([], [], color="#e53935", lw=1.3,
                          label="address loaded from DMA (%d)" % arrows["address"]))
    if arrows["other"]:
        handles.append(Line2D([], [], color="#757575", lw=0.8, linestyle="--",
                              label="other dependence on DMA (%d)" % arrows["other"]))
    ax.legend(handles=handles, loc="upper right", fontsize="small")
    if n <= MAX_DEFAULT_DMAS:
        ax.set_yticks([y_of(r) for r in range(n)])
        ax.set_yticklabels(["%d (op %d)" % (d["id"], d["op_id"]) for d in dmas],
                           fontsize=6 if n > 32 else 8)
    ax.set_xlabel("cycle")
    ax.set_ylabel("DMA id (op), in issue order")
    shown = ("DMAs %d-%d of %d" % (first, end - 1, len(all_dmas))
             if n else "no DMAs")
    ax.set_title("DMA timeline: %s\n%s; WAIT stalls %d base + %d transfer cycles"
                 % (title, shown, stall_base, stall_transfer))
    fig.tight_layout()
    save(fig, "dma_timeline.png",
         "%s; dependence arrows: %d address, %d other; stalls: %d base, "
         "%d transfer cycles" % (shown, arrows["address"], arrows["other"],
                                 stall_base, stall_transfer))

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
