#!/usr/bin/env python3
"""Runs the tensor-parallel MLP block (make_tp_mlp.py) on 1 and N chips
with the same .npy inputs and compares the outputs: every chip of a
system must store the same `out`, to the bit (the all-reduce adds in chip
order on every chip); N chips must agree with one chip to a relative 2e-6
of the largest output (the down projection's f32 sum is split N ways), and
one chip with NumPy (float64) to 2e-6. Prints the cycles and the speedup.
The --exact programs (make_tp_mlp.py --exact: the down projection summed
in the single chip's order, chip to chip) must store one chip's output to
the bit, on every chip.

    check_tp_mlp.py --accel-replay PATH [--chips 2,3,8] [--d-model 256]
                    [--d-ff 1024] [--fdo]

With --fdo it also runs `accel-replay fdo` on the largest system (both
programs) and checks the best program's output is the run's, to the bit.
Exits 1 on any mismatch.
"""
import argparse
import os
import subprocess
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))


def run(tool, cmd, d, chips, inputs, extra=()):
    """Runs tp{chips}.mlir (chips: a count, or "8x" for --exact)."""
    args = [tool, cmd, os.path.join(d, "tp%s.mlir" % chips), "-o",
            os.path.join(d, "%s%s" % (cmd, chips)), "--output-dir",
            os.path.join(d, "%s%s-npy" % (cmd, chips))] + list(extra)
    for i, path in enumerate(inputs):
        args += ["--input", "%d=%s" % (i, path)]
    p = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       text=True)
    if p.returncode:
        sys.exit("check_tp_mlp: %s failed: %s" % (" ".join(args), p.stderr))
    return p.stdout


def outputs(d, cmd, chips):
    base = os.path.join(d, "%s%s-npy" % (cmd, chips))
    n = int(str(chips).rstrip("x"))
    return [np.load(os.path.join(base, "" if c == 0 else "chip%d" % c,
                                 "arg4.npy")) for c in range(n)]


def cycles(d, cmd, chips):
    import json
    path = os.path.join(d, "%s%s" % (cmd, chips), "metrics.json")
    with open(path) as f:
        return json.load(f)["total_cycles"]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--accel-replay", default="build/bin/accel-replay")
    ap.add_argument("--chips", default="2,3,8")
    ap.add_argument("--tokens", type=int, default=8)
    ap.add_argument("--d-model", type=int, default=256)
    ap.add_argument("--d-ff", type=int, default=1024)
    ap.add_argument("--fdo", action="store_true")
    a = ap.parse_args()
    T, D, F = a.tokens, a.d_model, a.d_ff
    rng = np.random.default_rng(4)
    bad = 0
    with tempfile.TemporaryDirectory() as d:
        x = rng.standard_normal((T, D)).astype(np.float32)
        ws = [(rng.standard_normal(s) * 0.05).astype(np.float32)
              for s in ((D, F), (D, F), (F, D))]
        inputs = []
        for name, v in zip(("x", "wg", "wu", "wd"), [x] + ws):
            inputs.append(os.path.join(d, name + ".npy"))
            np.save(inputs[-1], v)
        chips = [1] + [int(c) for c in a.chips.split(",")]
        for c in chips + ["%dx" % c for c in chips[1:]]:
            with open(os.path.join(d, "tp%s.mlir" % c), "w") as f:
                subprocess.run([sys.executable,
                                os.path.join(HERE, "make_tp_mlp.py"),
                                "--chips", str(c).rstrip("x"), "--tokens",
                                str(T), "--d-model", str(D), "--d-ff", str(F)]
                               + (["--exact"] if str(c).endswith("x") else []),
                               stdout=f, check=True)
            run(a.accel_replay, "run", d, c, inputs, ["--analyze=false"])
        g = x.astype(np.float64) @ ws[0]
        u = x.astype(np.float64) @ ws[1]
        ref = ((g / (1 + np.exp(-g))) * u) @ ws[2]
        one = outputs(d, "run", 1)[0]
        scale = np.max(np.abs(ref))
        err = np.max(np.abs(one - ref)) / scale
        ok = err <= 2e-6
        bad += not ok
        print("1 chip: %d cycles; vs NumPy %.2g of the largest output: %s" % (
            cycles(d, "run", 1), err, "ok" if ok else "FAIL"))
        for c in chips[1:]:
            outs = outputs(d, "run", c)
            same = all(np.array_equal(o, outs[0]) for o in outs)
            err = np.max(np.abs(outs[0] - one)) / scale
            ok = same and err <= 2e-6
            bad += not ok
            cyc = cycles(d, "run", c)
            print("%d chips: %d cycles, %.2fx one chip; every chip's out "
                  "%s; vs one chip %.2g of the largest output: %s" % (
                      c, cyc, cycles(d, "run", 1) / cyc,
                      "the same" if same else "DIFFERENT", err,
                      "ok" if ok else "FAIL"))
        for c in chips[1:]:
            outs = outputs(d, "run", "%dx" % c)
            same = all(np.array_equal(o, one) for o in outs)
            bad += not same
            cyc = cycles(d, "run", "%dx" % c)
            print("%d chips, --exact: %d cycles, %.2fx one chip; every chip's "
                  "out %s one chip's to the bit" % (
                      c, cyc, cycles(d, "run", 1) / cyc,
                      "equals" if same else "DIFFERS FROM"))
        if a.fdo:
            for c in (chips[-1], "%dx" % chips[-1]):
                text = run(a.accel_replay, "fdo", d, c, inputs)
                best = outputs(d, "fdo", c)
                same = all(np.array_equal(o, r) for o, r in
                           zip(best, outputs(d, "run", c)))
                bad += not same
                summary = [l for l in text.splitlines()
                           if l.startswith("best:")]
                name = str(c).rstrip("x") + " chips" + (
                    " (--exact)" if str(c).endswith("x") else "")
                print("fdo on %s: %s; the best program's out %s the "
                      "run's" % (name,
                                 summary[0] if summary else "?",
                                 "equals" if same else "DIFFERS FROM"))
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
