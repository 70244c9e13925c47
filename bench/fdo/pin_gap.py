#!/usr/bin/env python3
"""Optimality gap of the greedy pin choice of --accel-pin-vmem (issue 5,
item 2).

For each kernel of the FDO suite (bench/fdo/run_suite.py's KERNELS) and each
program in examples/, runs `accel-replay run KERNEL -o DIR` once for
metrics.json, then

    accel-opt DIR/program.mlir --accel-attach-metrics=DIR/metrics.json \\
        --accel-pin-vmem=solver=S vmem-capacity=C

for S in greedy and exact and for several VMEM capacities C: the pass's
default (32 MiB, the default machine's VMEM) and tighter ones that make
VMEM the constraint: the function's allocations plus 25%, 50% and 75% of
the bytes of all pin candidates (the resident bytes the exact solver pins
with unlimited capacity, i.e. every candidate that passes the legality
checks).

The saving of a run is the sum of the expected cycles saved of the DMAs it
pinned: the pinned loads keep the op id of the DMA they replace (a
stacked pin's first load does; its other loads are the same pin), and the
saving of an op id is its largest `pin` suggestion attached to it (at
least 1 cycle, as the pass counts it). Pass statistics are not used: the
Debian LLVM 22 build has them compiled out.

Then the same measurement on the hand-made cases of
test/Transforms/pin-vmem-solver.mlir (suggestions written in the IR), as a
control that a gap shows when there is one.

Prints a Markdown table (kernel, capacity, greedy saving, exact saving,
gap = (exact - greedy) / exact) and, with --write, writes it with a header
to bench/fdo/PIN_GAP.md. Exits 1 if a run fails or greedy beats exact.
"""
import argparse
import os
import platform
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
from run_suite import KERNELS  # noqa: E402
sys.path.insert(0, os.path.dirname(HERE))
from machine import cpu_model  # noqa: E402

DEFAULT_CAPACITY = 33554432  # the pass's vmem-capacity default (32 MiB)
UNLIMITED = 4294967296  # the largest vmem-capacity the pass takes (4 GiB): no limit here
FRACTIONS = (0.25, 0.50, 0.75)

ALLOC_RE = re.compile(r"accel\.alloc\b.*\bmemref<([^>]*)>")
OP_ID_RE = re.compile(r"accel\.op_id = (\d+)")
PIN_RE = re.compile(r'expected_cycles_saved = (-?\d+) : i64, kind = "pin"')
REMARK_RE = re.compile(r"remark: not pinned: (.*)")
CONTROL = "test/Transforms/pin-vmem-solver.mlir"
CONTROL_CAPACITY = 134217728  # its RUN lines' vmem-capacity


def kernels():
    seen = set()
    out = []
    for name, path, *config in KERNELS:
        out.append((name, path, config[0] if config else None))
        seen.add(path)
    for f in sorted(os.listdir(os.path.join(SRC, "examples"))):
        path = "examples/" + f
        if f.endswith(".mlir") and path not in seen:
            out.append((f, path, None))
    return out


def memref_bytes(body):
    """Bytes of a memref type body ("8x128xf32, #accel.space<vmem>"), as
    the pass counts them (TileShape: rows x cols x 4)."""
    shape = body.split(",")[0].strip().split("x")
    n = 1
    for d in shape[:-1]:
        n *= int(d)
    return 4 * n


def alloc_bytes(ir, only_pinned=False):
    """Bytes of the accel.alloc ops in `ir` (only the resident buffers the
    pass added, marked accel.pinned, with `only_pinned`)."""
    total = 0
    for line in ir.splitlines():
        m = ALLOC_RE.search(line)
        if m and (not only_pinned or "accel.pinned" in line):
            total += memref_bytes(m.group(1))
    return total


def pin_savings(ir):
    """op id -> expected cycles saved by pinning that DMA, as the pass reads
    them: the largest `pin` suggestion, at least 1 cycle."""
    saved = {}
    for line in ir.splitlines():
        if "accel.dma_start" not in line:
            continue
        pins = [int(v) for v in PIN_RE.findall(line)]
        m = OP_ID_RE.search(line)
        if pins and m:
            saved[int(m.group(1))] = max(1, max(pins))
    return saved


def pinned_op_ids(ir):
    """The op ids of the pinned DMAs: a stacked pin's fill issues one load
    per tile, and only its first keeps the DMA's op id (the others have
    none and are the same pin)."""
    ids = []
    for line in ir.splitlines():
        if "accel.dma_start" in line and "accel.pinned" in line:
            m = OP_ID_RE.search(line)
            if m:
                ids.append(int(m.group(1)))
    return ids


def run(cmd):
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode:
        raise RuntimeError("%s failed:\n%s" % (" ".join(cmd), p.stderr))
    return p.stdout


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", default="build",
                    help="build directory with bin/accel-opt and bin/accel-replay")
    ap.add_argument("--write", action="store_true",
                    help="write the table to bench/fdo/PIN_GAP.md")
    args = ap.parse_args()
    opt = os.path.join(args.build, "bin", "accel-opt")
    replay = os.path.join(args.build, "bin", "accel-replay")
    tmp = tempfile.mkdtemp(prefix="accel-pin-gap-")
    rows, refusals, mixed, refunded, ok = [], [], [], set(), True

    def measure(name, base, caps_for):
        """Rows for one program: `base` is the accel-opt command line that
        prints it with op ids and suggestions."""
        nonlocal ok
        attached = run(base)
        if attached.count("func.func") != 1:
            raise RuntimeError("expected one function (capacity is per "
                               "function)")
        saved = pin_savings(attached)
        allocated = alloc_bytes(attached)

        def pinned(solver, capacity):
            ir = run(base + ["--accel-pin-vmem=solver=%s vmem-capacity=%d"
                             % (solver, capacity)])
            ids = pinned_op_ids(ir)
            return sum(saved.get(i, 1) for i in ids), len(ids), ir

        _, _, full = pinned("exact", UNLIMITED)
        candidates = alloc_bytes(full, only_pinned=True)
        p = subprocess.run(base + ["--accel-pin-vmem=remarks=true "
                                   "vmem-capacity=%d" % UNLIMITED],
                           capture_output=True, text=True)
        for why in sorted(set(REMARK_RE.findall(p.stderr))):
            refusals.append((name, why.replace(SRC + os.sep, "")))
        # Candidates of one size and one saving: greedy is optimal there.
        sizes = {memref_bytes(m.group(1)) for line in full.splitlines()
                 for m in [ALLOC_RE.search(line)]
                 if m and "accel.pinned" in line}
        if candidates and (len(sizes) > 1 or len(set(saved.values())) > 1):
            mixed.append(name)
        for label, cap in caps_for(allocated, candidates):
            g, gn, _ = pinned("greedy", cap)
            e, en, ir = pinned("exact", cap)
            if g > e:
                ok = False
            if alloc_bytes(ir, only_pinned=True) > max(cap - allocated, 0):
                refunded.add(name)
            gap = "%.1f%%" % (100.0 * (e - g) / e) if e else "–"
            rows.append((name, len(saved), candidates, label, cap,
                         "%d (%d)" % (g, gn), "%d (%d)" % (e, en), gap))

    def suite_caps(allocated, candidates):
        caps = [("default", DEFAULT_CAPACITY)]
        if candidates:
            caps += [("alloc + %d%%" % round(100 * f),
                      allocated + int(f * candidates)) for f in FRACTIONS]
        return caps

    for name, path, config in kernels():
        src = os.path.join(SRC, path)
        out = os.path.join(tmp, os.path.basename(path))
        try:
            run([replay, "run", src, "-o", out] +
                (["--config", os.path.join(SRC, config)] if config else []))
            # The program as the run lowered it (program.mlir, with its op
            # ids): a program whose frontend changes it (a collective
            # lowered for its chips) has metrics of that program.
            measure(name, [opt, os.path.join(out, "program.mlir"),
                           "--accel-attach-metrics=" +
                           os.path.join(out, "metrics.json")], suite_caps)
        except RuntimeError as err:
            print("FAILED: %s\n%s" % (path, err), file=sys.stderr)
            ok = False
    suite_rows = len(rows)
    # Control: the hand-made cases of the lit test (suggestions written in
    # the IR), where greedy is known to lose.
    text = open(os.path.join(SRC, CONTROL)).read()
    for i, chunk in enumerate(text.split("// -----")):
        name = re.search(r"func\.func @(\w+)", chunk).group(1)
        f = os.path.join(tmp, "control%d.mlir" % i)
        with open(f, "w") as out:
            out.write(chunk)
        try:
            measure("control: %s (%s)" % (name, CONTROL),
                    [opt, f, "--accel-assign-op-ids"],
                    lambda a, c: [("RUN lines", CONTROL_CAPACITY)])
        except RuntimeError as err:
            print("FAILED: %s\n%s" % (name, err), file=sys.stderr)
            ok = False
    table = format_table(rows)
    print(table)
    for name, why in refusals:
        print("refused (%s): %s" % (name, why))
    if args.write:
        write(rows, suite_rows, refusals, mixed, refunded)
    return 0 if ok else 1


def format_table(rows):
    lines = ["| kernel | pin suggestions | candidate KiB | capacity | bytes "
             "| greedy saving (pins) | exact saving (pins) | gap |",
             "|---|---|---|---|---|---|---|---|"]
    for r in rows:
        lines.append("| %s | %d | %g | %s | %d | %s | %s | %s |"
                     % (r[0], r[1], r[2] / 1024, r[3], r[4], r[5], r[6], r[7]))
    return "\n".join(lines)


def has_gap(row):
    """Whether exact saves more than greedy on `row`."""
    return int(row[6].split()[0]) > int(row[5].split()[0])


def write(rows, suite_rows, refusals, mixed, refunded):
    date = subprocess.run(["date"], capture_output=True,
                          text=True).stdout.strip()
    suite, control = rows[:suite_rows], rows[suite_rows:]
    kernels_with = sorted({r[0] for r in suite if r[2]})
    gaps = [r for r in suite if has_gap(r)]
    control_gaps = [r for r in control if has_gap(r)]
    ahead = [r for r in suite if int(r[5].split()[0]) > int(r[6].split()[0])]
    if ahead and not gaps:
        result = ("On the suite exact never saves more than greedy: %d "
                  "kernels (%s) have DMAs that pass the pass's legality "
                  "checks, and greedy saves more on %d rows (below)."
                  % (len(kernels_with), ", ".join(kernels_with), len(ahead)))
    elif gaps:
        result = ("On the suite, greedy falls short of the optimum on %d of "
                  "%d rows (gap column). Greedy counts each pin's resident "
                  "bytes against the capacity without the buffer the pin "
                  "frees (its DMA's own, once nothing else uses it), which "
                  "the exact solver's weights subtract; and a pin can free "
                  "a shared buffer for a later round." % (len(gaps),
                                                          len(suite)))
    else:
        result = ("On the suite the gap is 0 on every row: %d kernels (%s) "
                  "have DMAs that pass the pass's legality checks"
                  % (len(kernels_with), ", ".join(kernels_with)))
        uniform = [k for k in kernels_with if k not in mixed]
        if len(uniform) == len(kernels_with):
            result += (", and in each the candidates have one size and one "
                       "expected saving, where taking the densest first is "
                       "optimal, so both solvers pin the same DMAs at every "
                       "capacity.")
        else:
            result += "; greedy happens to find the optimum on each."
    refunded = sorted(k for k in refunded if any(r[0] == k for r in suite))
    if refunded:
        result += (" On %s the pins exceed the tight capacities' free "
                   "bytes: each pinned DMA's own buffer is left unused and "
                   "freed, so (in the pass's accounting) a pin only needs "
                   "room for its resident buffer until then."
                   % "; ".join(refunded))
    if ahead:
        result += (
            "\n\n**Greedy ahead of exact on %d rows (%s): the script exits "
            "1.** The exact solver's choice in a round is optimal over its "
            "model (the pins, and room for the loops accel-pipeline-dma "
            "would pipeline, which greedy ignores), so either that model "
            "is wrong for these kernels or a lower pin saving buys more "
            "hidden stalls: compare the cycles after "
            "`--accel-pin-vmem --accel-pipeline-dma` with each solver." % (
                len(ahead), ", ".join(sorted({"%s at %s" % (r[0], r[3])
                                             for r in ahead}))))
    refused = "".join("\n- %s: %s" % r for r in refusals
                      if not r[0].startswith("control"))
    if refused:
        result += (" Pin suggestions the pass refuses (remarks with "
                   "`remarks=true`, unlimited capacity):" + refused)
    result += (
        "\n\nControl: on the hand-made cases of %s, greedy loses %s, so the "
        "measurement does see a gap when the candidates differ in size and "
        "saving per byte.%s" % (
            CONTROL, ", ".join("%s on %s" % (r[7], r[0].split()[1])
                               for r in control_gaps) or "nothing",
            "" if gaps else
            " The suite does not exercise the knapsack yet; a kernel with "
            "pin candidates of different sizes under a tight VMEM would."))
    result += (
        "\n\nHistory: on 2026-11-30 this table showed greedy ahead on 4 "
        "rows. The exact solver pinned its chosen set in op order, and a pin "
        "can make another chosen DMA illegal (examples/all_gather.mlir: it "
        "kept nine 500-cycle pins and lost nine 1000-cycle ones); it also "
        "kept room for a second copy of every buffer a stalled DMA in a "
        "loop uses, for pipelining that accel-pipeline-dma then did not do "
        "(the shared-buffer kernel's loop runs 8 iterations in all, which "
        "that pass unrolls fully). The solver now pins in decreasing "
        "saving, and asks accel-pipeline-dma's driver, run on a copy of "
        "the function, which loops it pipelines and what their copies "
        "need.")
    text = """# Optimality gap of the greedy pin choice

Written by `python3 bench/fdo/pin_gap.py --write` on {date}: {cpus} vCPU
{cpu}, {system}.

`--accel-pin-vmem` chooses which DMAs to pin under `vmem-capacity` (see
its description in include/accel/Transforms/Passes.td). `solver=exact`
(the default) solves the 0/1 knapsack exactly; `solver=greedy` is the
former rule, by expected cycles saved per byte. For each kernel of
bench/fdo/run_suite.py and examples/, pin suggestions come from one
`accel-replay run` (metrics.json, attached with --accel-attach-metrics);
the pass then runs with each solver at the default capacity (32 MiB) and
at the function's allocations plus 25/50/75% of the candidates' bytes
(candidate KiB: every DMA that passes the pass's legality checks, pinned
with unlimited capacity). Saving = sum of `expected_cycles_saved` of the
pinned DMAs (cycles; pins in parentheses); gap = (exact - greedy) / exact;
"–" when neither pins anything. The last rows are the control cases.

{table}

{result}
""".format(date=date, cpus=os.cpu_count() or 0, cpu=cpu_model(),
           system=platform.platform(), table=format_table(rows),
           result=result)
    with open(os.path.join(HERE, "PIN_GAP.md"), "w") as f:
        f.write(text)


if __name__ == "__main__":
    sys.exit(main())
