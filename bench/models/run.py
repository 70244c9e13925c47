#!/usr/bin/env python3
"""Models as frontends emit them, through accel-replay fdo (issue 32).

For each example block of examples/blocks (a Llama-style transformer block
and a ResNet basic block, f32 and bf16, written by make_blocks.py in the
conversion's form) and each program of test/EndToEnd/Inputs/corpus (JAX
programs converted by upstream's stablehlo-legalize-to-linalg, unedited),
writes its inputs with its reference script (NumPy), runs

    accel-replay fdo PROGRAM -o OUT --input i=argi.npy ... --output-dir RES

checks the results against the float64 reference (reference.py check), and
reports from OUT/fdo.json: baseline cycles (iteration 0), the best FDO
iteration's cycles, the latency-aware lower bound (docs/metrics.md,
"roofline"; the smaller of iteration 0's and the best program's) and the
ratio FDO / bound, and whether every iteration's results were identical.

    bench/models/run.py [--build build] [--write]

Prints a Markdown table; with --write, writes it with the machine and date
to bench/models/RESULTS.md. Exits 1 if a program fails, mismatches NumPy or
changes its results under FDO. Needs NumPy (python3-numpy).
"""
import argparse
import datetime
import json
import math
import os
import platform
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.dirname(os.path.dirname(HERE))
CORPUS = os.path.join(SRC, "test", "EndToEnd", "Inputs", "corpus")
BLOCKS = os.path.join(SRC, "examples", "blocks")


def programs():
    """(name, program, reference script): the example blocks, then the
    corpus programs its reference.py knows (the others are refused)."""
    blocks = os.path.join(BLOCKS, "make_blocks.py")
    found = [(n[:-len(".mlir")], os.path.join(BLOCKS, n), blocks)
             for n in sorted(os.listdir(BLOCKS)) if n.endswith(".mlir")]
    reference = os.path.join(CORPUS, "reference.py")
    known = subprocess.run([sys.executable, reference, "--help"],
                           capture_output=True, text=True).stdout
    for f in sorted(os.listdir(CORPUS)):
        name = f[:-len(".linalg.mlir")]
        if f.endswith(".linalg.mlir") and name in known:
            found.append((name, os.path.join(CORPUS, f), reference))
    return found


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default=os.path.join(SRC, "build"))
    ap.add_argument("--write", action="store_true")
    ap.add_argument("--only", nargs="+", metavar="PROGRAM",
                    help="run only these programs (their names in the table)")
    args = ap.parse_args()
    tool = os.path.join(args.build, "bin", "accel-replay")
    tmp = tempfile.mkdtemp(prefix="accel-models-")
    rows, ok, ratios = [], True, []
    for name, program, reference in programs():
        if args.only and name not in args.only:
            continue
        d = os.path.join(tmp, name)
        indir = os.path.join(d, "in")
        subprocess.run([sys.executable, reference, "inputs", name, indir],
                       check=True)
        n = len(os.listdir(indir))
        cmd = [tool, "fdo", program,
               "-o", os.path.join(d, "fdo"), "--output-dir",
               os.path.join(d, "out")]
        for i in range(n):
            cmd += ["--input", "%d=%s" % (i, os.path.join(indir, "arg%d.npy" % i))]
        p = subprocess.run(cmd, capture_output=True, text=True)
        if p.returncode:
            print("FAILED: %s\n%s" % (name, p.stderr), file=sys.stderr)
            ok = False
            continue
        check = subprocess.run([sys.executable, reference, "check", name,
                                indir, os.path.join(d, "out")],
                               capture_output=True, text=True)
        s = json.load(open(os.path.join(d, "fdo", "fdo.json")))["summary"]
        bound = s["latency_lower_bound_cycles"]
        ratio = s["best_cycles"] / bound if bound else float("nan")
        ratios.append(ratio)
        matches = check.returncode == 0
        ok &= matches and s["results_match"]
        rows.append("| %s | %d | %d (iteration %d) | %d (%s) | %.2f | %s | %s |" % (
            name, s["iteration0_cycles"], s["best_cycles"], s["best_iteration"],
            bound, s["latency_bound_by"], ratio,
            "yes" if s["results_match"] else "NO",
            "yes" if matches else "NO"))
    table = ["| program | baseline cycles | FDO best | latency-aware bound (by) "
             "| FDO / bound | FDO results identical | matches NumPy |",
             "|---|---|---|---|---|---|---|"] + rows
    geo = math.exp(sum(map(math.log, ratios)) / len(ratios)) if ratios else 0
    text = "\n".join(table) + \
        "\n\nGeometric mean of FDO best / latency-aware bound: %.2f\n" % geo
    print(text)
    if args.write:
        # Hand-written reading after the first "## " heading is kept.
        path = os.path.join(HERE, "RESULTS.md")
        kept = ""
        if os.path.exists(path):
            with open(path) as f:
                old = f.read()
            if "\n## " in old:
                kept = old[old.index("\n## "):]
        with open(path, "w") as f:
            f.write("# Models as frontends emit them: cycles against the bound\n\n")
            f.write("`bench/models/run.py --write` on %s (%s, %d CPUs), %s, default "
                    "machine config.\nEach program is a file of examples/blocks "
                    "or test/EndToEnd/Inputs/corpus, run through `accel-replay "
                    "fdo` with no pass before accel; its results are checked "
                    "against NumPy in float64 (within 1e-4 of the largest "
                    "magnitude; 2e-2 for the bf16 blocks).\n\n" % (
                        platform.node(), platform.machine(), os.cpu_count(),
                        datetime.date.today().isoformat()))
            f.write(text)
            f.write(kept)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
