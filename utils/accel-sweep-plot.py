#!/usr/bin/env python3
"""Plots an accel-replay sweep (sweep.csv) as one PNG picture.

  accel-sweep-plot.py SWEEP.csv [MORE.csv ...] -o sweep.png
  (accel-replay sweep runs it on its own sweep.csv)

Several CSV files (the shards of one sweep, `--shard I/N`) are merged by
their `point` column; they must have the same columns. The picture has two
panels over the first swept field (x axis; logarithmic when its values span
more than a factor of 8), one line per combination of the other fields:
  left   total cycles (solid) and, for a program sweep, the FDO loop's best
         cycles (dashed, same colour)
  right  DMA stall cycles (SnR Fig. 4: base + transfer)
Points that failed (status "error") are left out. 1200x500 pixels. Exit 1
with one error line when a file cannot be read, is not a sweep.csv, the
files disagree, matplotlib is missing, or the picture cannot be written.
The picture is written to a temporary beside it (NAME.accel-tmp-PID-XXXXXXXX)
and renamed into place, as every accel output is (docs/output.md): an
error, SIGINT, SIGTERM or SIGHUP leaves the previous picture or none, and
no temporary.
"""
import argparse
import csv
import os
import sys

# The output rule's helpers, shared with the other script (utils/).
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import accel_output  # noqa: E402

FIXED = ["status", "total_cycles", "dma_stall_base", "dma_stall_transfer",
         "dma_stall_total", "mxu_utilization", "vpu_utilization",
         "peak_vmem_bytes", "config_hash"]


accel_output.PROG = "accel-sweep-plot"
fail = accel_output.fail
run_main = accel_output.run_main
write_replacing = accel_output.write_replacing


def read(paths):
    header, rows = None, {}
    for path in paths:
        try:
            with open(path, newline="") as f:
                reader = csv.reader(f)
                h = next(reader, None)
                if not h or h[0] != "point" or "status" not in h:
                    fail(path + ": not an accel sweep.csv (no point and "
                         "status columns)")
                if header is not None and h != header:
                    fail(path + ": its columns differ from " + paths[0] +
                         "'s (shards of different sweeps?)")
                header = h
                for line, r in enumerate(reader, start=2):
                    if len(r) != len(h):
                        fail("%s: line %d: %d fields, the header has %d" %
                             (path, line, len(r), len(h)))
                    rows[int(r[0])] = dict(zip(h, r))
        except OSError as e:
            fail("%s: cannot read: %s" % (path, e.strerror))
        except ValueError:
            fail(path + ": a point that is not an integer")
    axes = header[1:header.index("status")]
    return axes, [rows[p] for p in sorted(rows)]


def number(text):
    try:
        return float(text)
    except ValueError:
        return None


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("csv", nargs="+")
    parser.add_argument("-o", "--output", default="sweep.png")
    args = parser.parse_args()
    axes, rows = read(args.csv)
    if not axes:
        fail("the sweep has no swept field")
    accel_output.check_writable(args.output)
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        fail("matplotlib is missing (Debian: apt-get install "
             "python3-matplotlib)")
    ok = [r for r in rows if r["status"] == "ok"]
    x_axis, others = axes[0], axes[1:]
    xs_all = [number(r[x_axis]) for r in ok]
    numeric = all(v is not None for v in xs_all) and bool(xs_all)
    fdo = "fdo_best_cycles" in (rows[0] if rows else {})

    # One line per combination of the other fields, in order of appearance.
    series = {}
    for r in ok:
        key = tuple(r[a] for a in others)
        series.setdefault(key, []).append(r)
    categories = []
    if not numeric:
        for r in ok:
            if r[x_axis] not in categories:
                categories.append(r[x_axis])

    def xval(r):
        return number(r[x_axis]) if numeric else categories.index(r[x_axis])

    fig, (left, right) = plt.subplots(1, 2, figsize=(12, 5), dpi=100)
    colours = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    for i, (key, rs) in enumerate(series.items()):
        rs = sorted(rs, key=xval)
        xs = [xval(r) for r in rs]
        colour = colours[i % len(colours)]
        label = ", ".join("%s=%s" % (a, v) for a, v in zip(others, key)) \
            or "cycles"
        left.plot(xs, [int(r["total_cycles"]) for r in rs], "o-",
                  color=colour, label=label)
        if fdo:
            best = [(x, int(r["fdo_best_cycles"])) for x, r in zip(xs, rs)
                    if r["fdo_best_cycles"]]
            if best:
                left.plot([b[0] for b in best], [b[1] for b in best], "s--",
                          color=colour,
                          label=(label + ": " if others else "") +
                          "after FDO")
        right.plot(xs, [int(r["dma_stall_total"]) for r in rs], "o-",
                   color=colour, label=label)
    for ax, title in ((left, "total cycles" +
                       (" (dashed: best FDO iteration)" if fdo else "")),
                      (right, "DMA stall cycles (base + transfer)")):
        ax.set_xlabel(x_axis)
        ax.set_title(title)
        ax.grid(True, alpha=0.3)
        if numeric and xs_all and min(xs_all) > 0 and \
                max(xs_all) / min(xs_all) > 8:
            ax.set_xscale("log", base=2)
        if not numeric:
            ax.set_xticks(range(len(categories)))
            ax.set_xticklabels(categories)
        if series:
            ax.legend(fontsize="small")
    failed = len(rows) - len(ok)
    fig.suptitle("accel sweep: %d points%s" %
                 (len(rows), ", %d failed (not drawn)" % failed
                  if failed else ""))
    fig.tight_layout()
    try:
        # The format of the name's extension (as savefig(path) chooses it).
        ext = os.path.splitext(args.output)[1][1:].lower() or "png"
        write_replacing(args.output, lambda f: fig.savefig(f, format=ext))
    finally:
        plt.close(fig)
    print("wrote " + args.output)


if __name__ == "__main__":
    run_main(main)
