#!/usr/bin/env python3
"""Plots an accel-replay output directory (metrics.json, timeline.json) as PNGs.

  accel-plot.py DIR [--chip N] [--dmas FIRST:END]
  (or: accel-replay plot DIR [--chip N] [--dmas FIRST:END])

Writes, next to metrics.json, one picture per figure of SnR (Zarkadas et
al., SoCC '25):
  dma_timeline.png  the DMAs on a timeline (Fig. 4, 5, 10): one row per DMA
                    in issue order, labeled with its id, op id and source
                    location; its base latency, queue and transfer, the part
                    of them its WAIT stalled on (base latency dark green,
                    transfer dark purple), slack, its relaxed backtail (how
                    far back its ISSUE could move, Fig. 10) and arrows from
                    a DMA to the DMAs whose address or chip id was loaded
                    from the bytes it brought (Fig. 5's setup groups). When
                    the chip has more than 64 DMAs and --dmas is not given,
                    it zooms on the 32 consecutive DMAs whose WAITs stalled
                    most, over a strip with the stalls of the whole run
  utilization.png   busy percentage of each unit and DMA link per time
                    bucket over the whole run, and over the DMA timeline's
                    cycles the MXU and VPU at a finer grain (from
                    timeline.json) with a mark at each DMA completion
                    (Fig. 7b)
  vmem_heatmap.png  the percentage of VMEM unused and the largest contiguous
                    unused region over time (Fig. 8a), and the used pages
                    per block over time, cropped to the blocks in use
                    (Fig. 8b)
For a system of several chips the pictures show one chip (--chip, default
0). --dmas FIRST:END draws DMAs FIRST..END-1 in issue order. Each picture
is 1200x700 pixels. Exit 1 with one error line when the directory has no
metrics.json, the file is not an accel metrics.json, an option is out of
range, matplotlib is missing, or a picture cannot be written (a full disk,
a file-size limit, a directory in its place). Each picture is written to a
temporary beside it (NAME.accel-tmp-PID-XXXXXXXX) and renamed into place,
as every accel output is (docs/output.md): an error, SIGINT, SIGTERM or
SIGHUP leaves the previous picture or none, and no temporary.

Size (about 630 lines): the three figures share the loaded metrics, the
timeline and the DMA window, and are drawn in one main(). The output
rule's helpers are in accel_output.py, next to this script.
"""
import argparse
import json
import os
import sys

# The output rule's helpers, shared with the other script (utils/).
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import accel_output  # noqa: E402

WIDTH_IN, HEIGHT_IN, DPI = 12, 7, 100
# Runs with at most this many DMAs are drawn whole; longer ones are zoomed
# on ZOOM_DMAS consecutive DMAs (unless --dmas says otherwise).
MAX_DEFAULT_DMAS = 64
ZOOM_DMAS = 32
# Row labels are drawn for windows of at most this many DMAs.
MAX_LABELED_ROWS = 64
# What main() writes into the output directory, in this order.
PICTURES = ("dma_timeline.png", "utilization.png", "vmem_heatmap.png")
# Fine buckets of the zoomed utilization panel.
FINE_BUCKETS = 500

COLORS = {
    "base latency": "#c8e6c9", "queue": "#e0e0e0", "transfer": "#d1c4e9",
    "stall: base latency": "#2e7d32", "stall: transfer": "#5e35b1",
    "slack": "#90a4ae", "backtail": "#ef6c00", "address": "#e53935",
    "other": "#757575",
}
UNIT_COLORS = {"mxu": "#1565c0", "vpu": "#00897b", "scalar": "#9e9e9e"}
LINK_COLORS = ["#8e24aa", "#f9a825", "#6d4c41", "#d81b60", "#43a047"]


accel_output.PROG = "accel-plot"
fail = accel_output.fail
run_main = accel_output.run_main
write_replacing = accel_output.write_replacing


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


def stall_of(d):
    return (d.get("stall_base") or 0) + (d.get("stall_transfer") or 0)


def most_stalled_window(dmas, k):
    """The first of the windows of k consecutive DMAs (issue order) whose
    WAIT stalls sum highest: (first, end)."""
    stalls = [stall_of(d) for d in dmas]
    cur = best = sum(stalls[:k])
    best_first = 0
    for i in range(1, len(dmas) - k + 1):
        cur += stalls[i + k - 1] - stalls[i - 1]
        if cur > best:
            best, best_first = cur, i
    return best_first, best_first + k


def short_loc(loc):
    """examples/llama2_mlp.mlir:53:13 -> llama2_mlp.mlir:53:13."""
    return os.path.basename(loc) if loc else "?"


def cycles_formatter():
    from matplotlib.ticker import FuncFormatter
    return FuncFormatter(lambda x, _: "{:,}".format(int(round(x))))


def load_timeline_units(out, pid):
    """MXU and VPU busy intervals (cycles) of process pid from
    DIR/timeline.json, or None when it is missing or unreadable."""
    try:
        with open(os.path.join(out, "timeline.json")) as f:
            doc = json.load(f)
        scale = float(doc["otherData"]["clock_ghz"]) * 1000.0  # cycles/us
    except (OSError, ValueError, KeyError, TypeError):
        return None
    busy = {"mxu": [], "vpu": []}
    for e in doc.get("traceEvents", []):
        if e.get("ph") == "X" and e.get("pid") == pid and e.get("cat") in busy:
            start = int(round(e["ts"] * scale))
            busy[e["cat"]].append((start, int(round((e["ts"] + e["dur"]) * scale))))
    return busy


def mark_window(ax, lo, hi, total):
    """Shades cycles [lo, hi) of a whole-run axis, at least 0.4% of it wide,
    with a triangle above so that a narrow window shows."""
    width = max(hi - lo, total * 0.004)
    mid = (lo + hi) / 2.0
    ax.axvspan(mid - width / 2, mid + width / 2, color="#ef6c00", alpha=0.2,
               lw=0, zorder=0)
    tr = ax.get_xaxis_transform()
    ax.plot([mid - width / 2, mid + width / 2], [1.0, 1.0], color="#ef6c00",
            lw=4, solid_capstyle="butt", clip_on=False, transform=tr, zorder=5)
    ax.plot([mid], [1.0], marker="v", color="#ef6c00", ms=8, clip_on=False,
            transform=tr, zorder=5)


def add_intervals(series, lo, width, intervals):
    """Adds the busy cycles of intervals [a, b) to buckets of width cycles
    starting at lo."""
    n = len(series)
    for a, b in intervals:
        a, b = max(a, lo), min(b, lo + n * width)
        while a < b:
            k = int((a - lo) // width)
            upto = min(b, lo + (k + 1) * width)
            series[k] += upto - a
            a = upto


def main():
    parser = argparse.ArgumentParser(
        prog="accel-plot.py", description=__doc__.split("\n")[0])
    parser.add_argument("dir", help="an accel-replay output directory")
    parser.add_argument("--chip", type=int, default=None,
                        help="the chip to draw, of a system (default 0)")
    parser.add_argument("--dmas", default=None, metavar="FIRST:END",
                        help="the DMAs of dma_timeline.png, by issue order "
                             "(default: all when at most %d, else the %d "
                             "consecutive DMAs that stalled most)"
                             % (MAX_DEFAULT_DMAS, ZOOM_DMAS))
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
    chip = 0
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
    zoomed = False
    if args.dmas is not None:
        first, end = parse_window(args.dmas, len(all_dmas))
    elif len(all_dmas) <= MAX_DEFAULT_DMAS:
        first, end = 0, len(all_dmas)
    else:
        first, end = most_stalled_window(all_dmas, ZOOM_DMAS)
        zoomed = True
    for name in PICTURES:
        accel_output.check_writable(os.path.join(out, name))
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        from matplotlib.lines import Line2D
        from matplotlib.patches import Patch
        from matplotlib.ticker import MaxNLocator
    except ImportError:
        fail("python3-matplotlib is not installed (apt-get install python3-matplotlib)")

    total = m.get("total_cycles") or 1
    title = "%s on %s" % (m.get("program", "?"), m["config"]["name"])
    if where:
        title += ", " + where
    written = []

    def save(fig, name, note=None):
        target = os.path.join(out, name)
        try:
            write_replacing(target, lambda f: fig.savefig(f, dpi=DPI,
                                                          format="png"))
        finally:
            plt.close(fig)
        written.append(target + (" (%s)" % note if note else ""))

    # ------------------------------------------------------------------
    # DMA timeline (Fig. 4, 5, 10).
    dmas = all_dmas[first:end]
    row_of = {d["id"]: k for k, d in enumerate(dmas)}
    n = len(dmas)
    if zoomed:
        fig, (ax_all, ax) = plt.subplots(
            2, 1, figsize=(WIDTH_IN, HEIGHT_IN),
            gridspec_kw={"height_ratios": [1, 6]})
    else:
        fig, ax = plt.subplots(figsize=(WIDTH_IN, HEIGHT_IN))
        ax_all = None
    stall_base = stall_transfer = 0

    def y_of(row):
        return n - 1 - row  # the first DMA on top

    # Bars by kind, drawn with one call each (thousands of DMAs with
    # --dmas): kind -> ([y], [start], [length]).
    bars = {}

    def bar(y, start, length, kind):
        if length > 0:
            ys, starts, lengths = bars.setdefault(kind, ([], [], []))
            ys.append(y)
            starts.append(start)
            lengths.append(length)

    # The cycle window: the DMAs' lifetimes and WAITs, and their backtails
    # unless those reach far back (then they are cut at the left edge).
    lo = min((d["issue"] for d in dmas), default=0)
    hi = max((max(d["complete"], (d.get("wait") or 0) + stall_of(d))
              for d in dmas), default=1)
    tails = []
    for row, d in enumerate(dmas):
        relaxed = (d.get("backtail") or {}).get("relaxed")
        if relaxed is not None and relaxed.get("cycles") is not None:
            tails.append((row, d["issue"] - relaxed["cycles"],
                          relaxed.get("bound") is None))
    span = max(hi - lo, 1)
    left = max(min([lo] + [s for _, s, _ in tails]), lo - span // 4)
    right = hi + span // 50 + 1
    left -= span // 50 + 1

    for row, d in enumerate(dmas):
        y = y_of(row)
        # The lifetime (Fig. 4): base latency, queue, transfer, light.
        bar(y, d["issue"], d["base_end"] - d["issue"], "base latency")
        bar(y, d["base_end"], d["transfer_start"] - d["base_end"], "queue")
        bar(y, d["transfer_start"], d["complete"] - d["transfer_start"],
            "transfer")
        if d.get("wait") is not None:
            # The part the WAIT stalled on, dark: base latency, then transfer.
            w = d["wait"]
            stall_base += d["stall_base"]
            stall_transfer += d["stall_transfer"]
            bar(y, w, d["stall_base"], "stall: base latency")
            bar(y, w + d["stall_base"], d["stall_transfer"], "stall: transfer")
            bar(y, d["complete"], d.get("slack") or 0, "slack")
    for kind in ("base latency", "queue", "transfer", "stall: base latency",
                 "stall: transfer", "slack"):  # the stall over the lifetime
        if kind not in bars:
            continue
        ys, starts, lengths = bars[kind]
        if kind == "slack":
            ax.barh(ys, lengths, left=starts, height=0.4, color="none",
                    edgecolor=COLORS["slack"], hatch="xxx", linewidth=0)
        else:
            ax.barh(ys, lengths, left=starts, height=0.72, color=COLORS[kind],
                    linewidth=0)

    # Relaxed backtails (Fig. 10): from the bounding instruction's result
    # (or the run's start) to the ISSUE; a tick where they start, a
    # triangle where they leave the drawn cycles.
    reach_start = sum(unbounded for _, _, unbounded in tails)
    drawn = [(y_of(row), max(start, left), dmas[row]["issue"], start < left)
             for row, start, _ in tails if dmas[row]["issue"] >= start]
    lines = [t for t in drawn if t[2] > t[1]]  # a 0-cycle one is a tick
    if lines:
        ax.hlines([t[0] for t in lines], [t[1] for t in lines],
                  [t[2] for t in lines], color=COLORS["backtail"], lw=1.6,
                  zorder=3)
    if drawn:
        for cut_off, marker, size in ((False, "|", 9), (True, "<", 7)):
            pts = [t for t in drawn if t[3] == cut_off]
            if pts:
                ax.plot([t[1] for t in pts], [t[0] for t in pts], ls="none",
                        marker=marker, ms=size, mew=1.6,
                        color=COLORS["backtail"], zorder=3)

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
            ready = max(ready, src["wait"] + stall_of(src))
        kind = "address" if relaxed.get("via") == "address" else "other"
        arrows[kind] += 1
        ax.annotate("", xy=(d["issue"], y_of(row)),
                    xytext=(ready, y_of(row_of[p])),
                    arrowprops=dict(arrowstyle="->", color=COLORS[kind],
                                    lw=1.3 if kind == "address" else 0.8,
                                    linestyle="-" if kind == "address" else "--",
                                    shrinkA=0, shrinkB=0), zorder=4)

    handles = [Patch(color=COLORS[k], label=k) for k in
               ("base latency", "queue", "transfer", "stall: base latency",
                "stall: transfer")]
    handles.append(Patch(facecolor="none", edgecolor=COLORS["slack"],
                         hatch="xxx", label="slack"))
    cut = any(start < left for _, start, _ in tails)
    handles.append(Line2D([], [], color=COLORS["backtail"], lw=1.6, marker="|",
                          ms=9, label="relaxed backtail: how early the ISSUE "
                          "could be" + ("\n(%s: earlier than shown)" % "\u25c0"
                                        if cut else "")))
    if arrows["address"]:
        handles.append(Line2D([], [], color=COLORS["address"], lw=1.3,
                              label="address loaded from DMA (%d)" % arrows["address"]))
    if arrows["other"]:
        handles.append(Line2D([], [], color=COLORS["other"], lw=0.8, linestyle="--",
                              label="other dependence on DMA (%d)" % arrows["other"]))
    ax.legend(handles=handles, loc="upper right", fontsize="small",
              framealpha=0.9)
    ax.set_ylim(-0.7, n - 0.3)
    if n <= MAX_LABELED_ROWS:
        ax.set_yticks([y_of(r) for r in range(n)])
        ax.set_yticklabels(["%d  op %d  %s" % (d["id"], d["op_id"],
                                               short_loc(d.get("loc")))
                            for d in dmas],
                           fontsize=8 if n <= 24 else 7 if n <= 40 else 6)
        ax.set_ylabel("DMA id, op id, location (issue order)")
    else:
        ax.yaxis.set_major_locator(MaxNLocator(integer=True))
        ax.yaxis.set_major_formatter(
            matplotlib.ticker.FuncFormatter(
                lambda v, _: "%d" % dmas[n - 1 - int(v)]["id"]
                if 0 <= n - 1 - int(v) < n else ""))
        ax.set_ylabel("DMA id (issue order)")
    ax.set_xlim(left, right)
    ax.xaxis.set_major_formatter(cycles_formatter())
    ax.set_xlabel("cycle")
    ax.grid(axis="x", color="#eeeeee", zorder=0)
    ax.set_axisbelow(True)
    shown = ("DMAs %d-%d of %d" % (first, end - 1, len(all_dmas))
             if n else "no DMAs")
    why = ""
    if zoomed:
        why = " (the %d in a row that stalled most)" % n
    fig.suptitle(
        "DMA timeline (SnR Fig. 4, 5, 10): %s\n%s%s; WAIT stalls %s base + "
        "%s transfer cycles" % (title, shown, why, "{:,}".format(stall_base),
                                "{:,}".format(stall_transfer)))
    if ax_all is not None:
        # The whole run's WAIT stalls, to place the zoomed window.
        # Coarse buckets: finer ones alias with a periodic DMA pattern.
        bucket = max(1, -(-total // 120))
        nb = -(-total // bucket)
        base, trans = [0] * nb, [0] * nb
        for d in all_dmas:
            if d.get("wait") is None:
                continue
            w = d["wait"]
            add_intervals(base, 0, bucket, [(w, w + d["stall_base"])])
            add_intervals(trans, 0, bucket, [(w + d["stall_base"], w + stall_of(d))])
        xs = [k * bucket for k in range(nb)]
        ax_all.stackplot(xs, [100.0 * v / bucket for v in base],
                         [100.0 * v / bucket for v in trans], step="post",
                         colors=[COLORS["stall: base latency"],
                                 COLORS["stall: transfer"]], linewidth=0)
        mark_window(ax_all, left, right, total)
        ax_all.set_xlim(0, total)
        ax_all.set_ylim(0, 100)
        ax_all.set_yticks([0, 100])
        ax_all.tick_params(labelsize=7)
        ax_all.xaxis.set_major_formatter(cycles_formatter())
        ax_all.set_ylabel("whole run:\nstalled %", fontsize=7)
        ax_all.set_title("the whole run: share of each %s-cycle bucket the "
                         "WAITs stalled (base latency, transfer); orange: the "
                         "DMAs below" % "{:,}".format(bucket), fontsize=8,
                         loc="left")
    fig.tight_layout()
    note = shown
    if zoomed:
        note += ", zoomed on the %d that stalled most" % n
    note += ("; dependence arrows: %d address, %d other; stalls: %d base, "
             "%d transfer cycles; backtails: %d, %d to the run start"
             % (arrows["address"], arrows["other"], stall_base,
                stall_transfer, len(tails), reach_start))
    save(fig, "dma_timeline.png", note)

    # ------------------------------------------------------------------
    # Utilization (Fig. 7b): the whole run per bucket, then the DMA
    # timeline's cycles at a finer grain with the DMA completions marked.
    u = m["utilization"]
    bucket = u["bucket_cycles"]
    fig, (ax0, ax1) = plt.subplots(2, 1, figsize=(WIDTH_IN, HEIGHT_IN),
                                   gridspec_kw={"height_ratios": [1, 1.5]})
    link_names = sorted(k for k in u["units"] if k.startswith("dma:"))

    def unit_color(name):
        if name in UNIT_COLORS:
            return UNIT_COLORS[name]
        return LINK_COLORS[link_names.index(name) % len(LINK_COLORS)]

    nbu = u.get("buckets") or 1
    for name in ["mxu", "vpu"] + link_names + ["scalar"]:
        unit = u["units"].get(name)
        if not unit or not any(unit["series"]):
            continue
        series = unit["series"]
        xs = [i * bucket for i in range(len(series) + 1)]
        ys = [100 * v for v in series] + [100 * series[-1]]
        ax0.step(xs, ys, where="post", color=unit_color(name),
                 lw=1.6 if name == "mxu" else 1.1,
                 label="%s: %.1f%%" % (name, 100 * unit["utilization"]))
    ax0.set_xlim(0, min(total, nbu * bucket))
    ax0.set_ylim(0, 105)
    ax0.xaxis.set_major_formatter(cycles_formatter())
    ax0.set_ylabel("busy % per bucket")
    ax0.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize="small",
               title="busy, whole run", title_fontsize="small")
    # The window: the DMA timeline's cycles, or the whole run when it
    # draws every DMA.
    w0, w1 = 0, total
    if n and (zoomed or args.dmas is not None):
        w0, w1 = max(0, left), min(total, right)
    windowed = (w0, w1) != (0, total)
    if windowed:
        mark_window(ax0, w0, w1, total)
    ax0.set_title("Unit utilization (SnR Fig. 7b): %s\nwhole run in buckets "
                  "of %s cycles%s" % (title, "{:,}".format(bucket),
                                      "; orange: the cycles below"
                                      if windowed else ""))
    fine = max(1, -(-(w1 - w0) // FINE_BUCKETS))
    nf = max(1, -(-(w1 - w0) // fine))
    xs = [w0 + k * fine for k in range(nf + 1)]
    # MXU and VPU intervals come from timeline.json (without it, only the
    # DMA links are drawn).
    units = load_timeline_units(out, chip + 1) or {}
    for name in ("mxu", "vpu"):
        if not units.get(name):
            continue
        busy = [0] * nf
        add_intervals(busy, w0, fine, units[name])
        if not any(busy):
            continue
        ys = [100.0 * v / fine for v in busy]
        ax1.fill_between(xs, ys + ys[-1:], step="post", color=unit_color(name),
                         alpha=0.3, lw=0)
        ax1.step(xs, ys + ys[-1:], where="post", color=unit_color(name),
                 lw=1.2, label=name)
    for name in link_names:
        link = name[len("dma:"):]
        ivs = [(d["transfer_start"], d["complete"]) for d in all_dmas
               if d.get("link") == link and d["complete"] > w0
               and d["transfer_start"] < w1]
        if not ivs:
            continue
        busy = [0] * nf
        add_intervals(busy, w0, fine, ivs)
        ys = [100.0 * v / fine for v in busy]
        ax1.step(xs, ys + ys[-1:], where="post", color=unit_color(name),
                 lw=1.0, label="%s transfer" % name)
    # WAIT stalls (the scalar unit blocked on a DMA) as a lane under 0,
    # split as in Fig. 4.
    stalled = [d for d in all_dmas
               if d.get("wait") is not None and stall_of(d)
               and d["wait"] + stall_of(d) > w0 and d["wait"] < w1]
    for part, a_of, b_of in (
            ("stall: base latency", lambda d: d["wait"],
             lambda d: d["wait"] + d["stall_base"]),
            ("stall: transfer", lambda d: d["wait"] + d["stall_base"],
             lambda d: d["wait"] + stall_of(d))):
        ivs = [(max(a_of(d), w0), min(b_of(d), w1)) for d in stalled]
        ax1.broken_barh([(a, b - a) for a, b in ivs if b > a], (-11, 7),
                        color=COLORS[part], lw=0)
    # DMA completion marks (Fig. 7b).
    done = sorted(d["complete"] for d in all_dmas if w0 <= d["complete"] <= w1)
    for c in done:
        ax1.axvline(c, color="#212121", lw=0.7, ls=(0, (3, 3)), alpha=0.7)
    handles, labels = ax1.get_legend_handles_labels()
    handles += [Line2D([], [], color="#212121", lw=0.7, ls=(0, (3, 3))),
                Patch(color=COLORS["stall: base latency"]),
                Patch(color=COLORS["stall: transfer"])]
    labels += ["DMA completion (%d)" % len(done),
               "WAIT stall: base latency", "WAIT stall: transfer"]
    ax1.legend(handles, labels, loc="upper left", bbox_to_anchor=(1.01, 1.0),
               fontsize="small", title="in these cycles",
               title_fontsize="small")
    ax1.set_xlim(w0, w1)
    ax1.set_ylim(-12, 105)
    ax1.set_yticks([-7.5, 0, 20, 40, 60, 80, 100])
    ax1.set_yticklabels(["stall", "0", "20", "40", "60", "80", "100"])
    ax1.xaxis.set_major_formatter(cycles_formatter())
    ax1.set_ylabel("busy %% per %s cycles" % "{:,}".format(fine))
    ax1.set_xlabel("cycle")
    ax1.set_title("cycles %s-%s: DMA completions dashed, the WAIT stalls "
                  "of %d DMAs at the bottom"
                  % ("{:,}".format(w0), "{:,}".format(w1), len(stalled)),
                  fontsize="medium")
    fig.tight_layout()
    save(fig, "utilization.png",
         "cycles %d-%d; %d DMA completions marked, %d WAIT stalls"
         % (w0, w1, len(done), len(stalled)))

    # ------------------------------------------------------------------
    # VMEM (Fig. 8): unused and largest contiguous unused over time, and
    # the block heatmap cropped to the blocks in use.
    v = m["vmem"]
    vb = v["bucket_cycles"]
    heat = v["heatmap"]
    blocks = v["blocks"]
    ppb = v["pages_per_block"]
    kib = v["pages"] * v["page_bytes"] / 1024.0
    in_use = [b for b in range(blocks) if any(row[b] for row in heat)]
    b0, b1 = (in_use[0], in_use[-1]) if in_use else (0, 0)
    fig, (ax0, ax1) = plt.subplots(
        2, 1, figsize=(WIDTH_IN, HEIGHT_IN), sharex=True,
        gridspec_kw={"height_ratios": [1, 1.5]})
    nb = len(heat)
    xs = [k * vb for k in range(nb + 1)]
    if "unused_fraction" in v:
        unused = v["unused_fraction"]
        run = v["largest_unused_run_fraction"]
        med_u = v["median_unused_fraction"]
        med_r = v["median_largest_unused_run_fraction"]
        what = "means over each bucket's cycles"
    else:  # an older metrics.json: the per-bucket free space
        unused = v["free_fraction"]
        pages = v["pages"] or 1
        run = [r / pages for r in v["largest_free_run_pages"]]
        med_u = sorted(unused)[(len(unused) - 1) // 2] if unused else 0
        med_r = sorted(run)[(len(run) - 1) // 2] if run else 0
        what = "free pages per bucket (metrics.json has no unused_fraction)"
    if unused:
        uy = [100 * f for f in unused] + [100 * unused[-1]]
        ry = [100 * f for f in run] + [100 * run[-1]]
        ax0.fill_between(xs, uy, step="post", color="#bbdefb", lw=0)
        ax0.step(xs, uy, where="post", color="#1565c0", lw=1.5,
                 label="unused (median %.1f%%)" % (100 * med_u))
        ax0.step(xs, ry, where="post", color="#ef6c00", lw=1.5,
                 label="largest contiguous\nunused (median %.1f%%)"
                 % (100 * med_r))
        # The live data in KiB on the right: the same curve at a scale
        # that shows it when VMEM is mostly unused.
        axr = ax0.twinx()
        live = [kib * (1 - f) for f in unused]
        axr.step(xs, live + live[-1:], where="post", color="#424242", lw=0.9,
                 ls=":", label="live data (KiB, right)")
        axr.set_ylim(0, max(live) * 1.15 if max(live) > 0 else 1)
        axr.set_ylabel("live data (KiB)", fontsize="small")
        axr.tick_params(labelsize="small")
        h0, l0 = ax0.get_legend_handles_labels()
        h1, l1 = axr.get_legend_handles_labels()
        ax0.legend(h0 + h1, l0 + l1, loc="upper left",
                   bbox_to_anchor=(1.07, 1.0), fontsize="small")
    ax0.set_ylim(0, 105)
    ax0.set_ylabel("% of VMEM")
    ax0.set_title("(a) unused VMEM, holding no live data (not written, or "
                  "not read again), and the largest contiguous unused run; "
                  "%% of %s KiB, %s" % ("{:,}".format(int(kib)), what),
                  fontsize="small", loc="left")
    fig.suptitle("VMEM (SnR Fig. 8): %s" % title)
    im = None
    if heat and heat[0]:
        rows = [[row[b] for row in heat] for b in range(b0, b1 + 1)]
        # The colours span 0 to the most used pages of a block, for
        # contrast when no block fills up.
        top = max(1, max(max(r) for r in rows))
        im = ax1.imshow(rows, aspect="auto", origin="lower",
                        interpolation="nearest",
                        extent=[0, nb * vb, b0 - 0.5, b1 + 0.5],
                        vmin=0, vmax=top, cmap="viridis")
    ax1.yaxis.set_major_locator(MaxNLocator(integer=True,
                                            nbins=min(16, b1 - b0 + 1)))
    ax1.set_ylim(b0 - 0.5, b1 + 0.5)
    ax1.set_ylabel("block (%d pages, %s KiB)"
                   % (ppb, "{:,}".format(ppb * v["page_bytes"] // 1024)))
    ax1.set_xlabel("cycle")
    ax1.xaxis.set_major_formatter(cycles_formatter())
    ax1.set_xlim(0, nb * vb)
    ax1.set_title("(b) used pages per block in each %s-cycle bucket: blocks "
                  "%d-%d of %d, the ones in use%s"
                  % ("{:,}".format(vb), b0, b1, blocks,
                     "" if in_use else " (none)"),
                  fontsize="small", loc="left")
    fig.tight_layout()
    if im is not None:
        # The colour bar right of (b), in the space the legend of (a) takes.
        pos = ax1.get_position()
        cax = fig.add_axes([pos.x1 + 0.07, pos.y0, 0.015, pos.height])
        fig.colorbar(im, cax=cax, label="used pages (of the block's %d)" % ppb)
    save(fig, "vmem_heatmap.png",
         "blocks %d-%d of %d in use; median unused %.1f%%, median largest "
         "contiguous unused %.1f%%" % (b0, b1, blocks, 100 * med_u, 100 * med_r))

    for p in written:
        print("wrote " + p)


if __name__ == "__main__":
    run_main(main)
