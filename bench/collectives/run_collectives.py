#!/usr/bin/env python3
"""Each collective x algorithm x topology x chip count x message size:
simulated cycles against the algorithm's alpha-beta estimate (the one
--accel-lower-collectives chooses with, docs/collectives.md; compared with
the collective's own cycles: the run's minus those of the same program
without it) and against the system-wide lower bound (metrics.json
system.bound). Writes a markdown
table for bench/collectives/RESULTS.md.

    run_collectives.py --build build [-j 2] [--min-chips 2] [--max-chips 256]
                       [--analyze-max 32] > table.md

The programs are check_collectives.py's (a chip's block loaded from HBM,
the collective with its `algorithm`, the result stored to HBM), each chip
with its own input of one block (default initial contents: the cycles do
not depend on the values).
"""
import argparse
import concurrent.futures
import json
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import check_collectives as cc  # noqa: E402

ALGOS = ["direct", "ring", "bidirectional_ring", "torus2d",
         "recursive_doubling"]


def topologies(n):
    out = [("ring", [])]
    x = 1
    while x * x < n:
        x *= 2
    if n >= 4 and n % x == 0 and n // x >= 2:
        out.append(("torus2d", [x, n // x]))
    if n <= 64:
        out.append(("full", []))
    return out


def cases(min_chips, max_chips):
    for n in [c for c in (2, 4, 8, 16, 32, 64, 128, 256)
              if min_chips <= c <= max_chips]:
        for top, dims in topologies(n):
            for op in ("all_gather", "reduce_scatter", "all_reduce",
                       "all_to_all"):
                # 64 KiB blocks up to 32 chips (past that a run of the
                # larger collectives takes minutes).
                sizes = (8, 128) if n <= 32 else (8,)
                for rows in sizes:
                    if op == "all_reduce":
                        rows = max(rows, n) if rows == 8 else max(rows, 16 * n)
                    for algo in ALGOS:
                        if algo == "torus2d" and top != "torus2d":
                            continue
                        yield op, algo, n, top, dims, rows


def write_case(d, op, algo, n, top, dims, rows):
    """Writes the program of a case and its machine config into the new
    directory d; returns their paths."""
    os.makedirs(d)
    cc.ROWS = rows  # the block rows (an all-reduce: the tile's)
    prog = os.path.join(d, "p.mlir")
    with open(prog, "w") as f:
        f.write(cc.program(op, algo, n, shared_input=False))
    cfg = os.path.join(d, "c.json")
    with open(cfg, "w") as f:
        json.dump({"chips": n, "ici": {"topology": top, "dims": dims}}, f)
    return prog, cfg


def frame_key(case):
    """What the frame of a case depends on: all but its algorithm."""
    op, algo, n, top, dims, rows = case
    return (op, n, top, tuple(dims), rows)


def run_frame(tool_dir, key, tmp):
    """The total cycles of a case's program without its collective (its
    load and store of the data, which the collective's own cycles
    exclude), the same for every algorithm of the case."""
    op, n, top, dims, rows = key
    d = os.path.join(tmp, "frame-%s-%d-%s-%d" % (op, n, top, rows))
    prog, cfg = write_case(d, op, "direct", n, top, list(dims), rows)
    frame = os.path.join(d, "frame.mlir")
    with open(frame, "w") as f:
        f.write("".join(l for l in open(prog) if "accel." + op not in l))
    subprocess.run([os.path.join(tool_dir, "accel-replay"), "run", frame,
                    "--config", cfg, "-o", os.path.join(d, "f"),
                    "--analyze=false"], check=True, stdout=subprocess.DEVNULL)
    with open(os.path.join(d, "f", "metrics.json")) as f:
        return json.load(f)["total_cycles"]


def run(tool_dir, case, tmp, analyze_max=64):
    """A case's cycles, its alpha-beta estimates and its system bound (None
    if the algorithm does not apply; {"error": ...} if the run failed)."""
    op, algo, n, top, dims, rows = case
    d = os.path.join(tmp, "%s-%s-%d-%s-%d" % (op, algo, n, top, rows))
    prog, cfg = write_case(d, op, algo, n, top, dims, rows)
    opts = "chips=%d topology=%s remarks=true%s" % (
        n, top, " dims=" + ",".join(map(str, dims)) if dims else "")
    p = subprocess.run([os.path.join(tool_dir, "accel-opt"), prog,
                        "--accel-lower-collectives=" + opts, "-o",
                        os.devnull], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True)
    if p.returncode:
        return None  # the algorithm does not apply
    m = re.search(r"alpha-beta: ([^)]*)\)", p.stderr)
    estimates = dict((k, int(v)) for k, v in
                     (e.rsplit(" ", 1) for e in m.group(1).split(", ")))
    p = subprocess.run([os.path.join(tool_dir, "accel-replay"), "run", prog,
                        "--config", cfg, "-o", os.path.join(d, "o"),
                        "--analyze=%s" % ("true" if n <= analyze_max
                                          else "false")],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       text=True)
    if p.returncode:
        return {"case": case, "error": p.stderr.strip().splitlines()[-1]}
    with open(os.path.join(d, "o", "metrics.json")) as f:
        metrics = json.load(f)
    return {"case": case, "cycles": metrics["total_cycles"],
            "estimate": estimates[algo],
            "chosen": min(estimates, key=lambda k: estimates[k]),
            "bound": metrics["system"]["bound"]["lower_bound_cycles"],
            "bytes": metrics["system"]["ici"].get("busiest_link_busy_cycles")}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default="build")
    ap.add_argument("-j", type=int, default=2)
    ap.add_argument("--min-chips", type=int, default=2)
    ap.add_argument("--max-chips", type=int, default=256)
    ap.add_argument("--analyze-max", type=int, default=32,
                    help="run the analyzer up to this many chips (it takes "
                         "~100 MB a chip; the system bound then counts the "
                         "links only)")
    a = ap.parse_args()
    tools = os.path.join(a.build, "bin")
    print("| collective | topology | chips | message | algorithm | cycles | "
          "collective's cycles | alpha-beta estimate | estimate / "
          "collective's | system bound | cycles / bound | pass's choice |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|", flush=True)
    with tempfile.TemporaryDirectory() as tmp:
        with concurrent.futures.ProcessPoolExecutor(a.j) as pool:
            # In order, each row as soon as it and those before it are done.
            # One frame run per case without its algorithm (a quarter of
            # the runs the cases would make each for itself), submitted
            # before its first case.
            all_cases, futures, frames = [], [], {}
            for c in cases(a.min_chips, a.max_chips):
                k = frame_key(c)
                if k not in frames:
                    frames[k] = pool.submit(run_frame, tools, k, tmp)
                all_cases.append(c)
                futures.append(pool.submit(run, tools, c, tmp, a.analyze_max))
            for c, f in zip(all_cases, futures):
                r = f.result()
                if r:
                    if "error" not in r:
                        r["frame"] = frames[frame_key(c)].result()
                    print(row(r), flush=True)


def row(r):
    op, algo, n, top, dims, nrows = r["case"]
    top_s = top + (" " + "x".join(map(str, dims)) if dims else "")
    size = "%d B" % (nrows * 512)
    if "error" in r:
        return ("| %s | %s | %d | %s | %s | error: %s | | | | | | |"
                % (op, top_s, n, size, algo, r["error"]))
    own = r["cycles"] - r["frame"]
    return ("| %s | %s | %d | %s | %s | %d | %d | %d | %.2f | %d | %.2f | %s |"
            % (op, top_s, n, size, algo, r["cycles"], own, r["estimate"],
               r["estimate"] / own if own > 0 else 0, r["bound"],
               r["cycles"] / r["bound"] if r["bound"] else 0,
               "yes" if r["chosen"] == algo else ""))


if __name__ == "__main__":
    main()
