#!/usr/bin/env python3
"""Checks every collective x algorithm that --accel-lower-collectives
emits against NumPy, on systems of several chip counts (non-powers of two
included).

For each case it writes a program in which chip c loads block c of an HBM
input X (the same .npy on every chip, `--input`), runs the collective with
the `algorithm` attribute, and stores the result to an HBM output; then it
runs `accel-replay run --output-dir` and compares each chip's output
(argN.npy for chip 0, chipC/argN.npy for the others) with NumPy:

  all_gather      out_c = X                                   (in: R rows)
  reduce_scatter  out_c = sum_j X_j[c R : (c + 1) R]          (in: N R rows)
  all_reduce      out_c = sum_j X_j                           (in: R rows)
  all_to_all      out_c[j R : (j + 1) R] = X_j[c R : (c + 1) R]
  send / recv     out_c = X_{c - 1 mod N} (each chip sends to the next)

With `groups` (--groups N:G:S, ...: N chips in groups of G chips S
apart, docs/collectives.md "Groups") each group runs the collective among
its members: N and c above become G and the chip's rank in its group, and
X_j the block of the group's j-th member (chip c still loads block c).

Sums compare with a relative tolerance of 1e-6 (the VPU adds in the
algorithm's order, NumPy in its own), and an all-reduce's must be equal to
the bit on every chip; copies must be exact.

    check_collectives.py [--accel-replay PATH] [--chips 2,3,4,8]
                         [--groups 8:4:1,8:4:2,6:3:2,6:2:1,4:2:2] [-v]

Prints one line per case and a summary; exits 1 on any mismatch or
failure. Needs NumPy.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

import numpy as np

ROWS, COLS = 8, 128
ALGORITHMS = ["direct", "ring", "bidirectional_ring", "torus2d",
              "recursive_doubling"]


def applies(op, algo, n, grouped=False):
    """Whether the pass offers `algo` for `op` on n chips (Passes.td), or
    in groups of n chips of a larger system (no torus2d then)."""
    if algo == "direct":
        return True
    if op == "all_to_all" or op == "send_recv":
        return False
    block = ROWS
    if op == "all_reduce":
        if ROWS % n:
            return False
        block = ROWS // n
    if algo == "bidirectional_ring":
        return block % 2 == 0
    if algo == "torus2d":
        return n in (4, 8) and not grouped
    if algo == "recursive_doubling":
        return n & (n - 1) == 0
    return True  # ring


def shapes(op, n):
    """(rows of each chip's block of X, rows of in, rows of out)."""
    if op == "all_gather":
        return ROWS, ROWS, n * ROWS
    if op == "reduce_scatter":
        return n * ROWS, n * ROWS, ROWS
    if op == "all_to_all":
        return n * ROWS, n * ROWS, n * ROWS
    return ROWS, ROWS, ROWS  # all_reduce, send_recv


def group_lists(n, g, stride):
    """The groups of n chips in groups of g chips `stride` apart, each in
    rank order: chip c is member (c // stride) % g of the group whose first
    chip is c - that * stride."""
    firsts = [c for c in range(n) if (c // stride) % g == 0]
    return [[f + k * stride for k in range(g)] for f in firsts]


def program(op, algo, n, shared_input=True, groups=None):
    """The program of a case on n chips (`groups`: the collective's groups,
    lists of chips). With `shared_input` X holds every chip's block and
    chip c loads block c (the same .npy on every chip); without, X is one
    block and each chip loads its own (its initial contents: the cycles do
    not depend on them)."""
    block, rin, rout = shapes(op, len(groups[0]) if groups else n)
    hbm, vmem = "#accel.space<hbm>", "#accel.space<vmem>"
    t_in = "memref<%dx%dxf32, %s>" % (rin, COLS, vmem)
    t_out = "memref<%dx%dxf32, %s>" % (rout, COLS, vmem)
    t_x = "memref<%dx%dxf32, %s>" % ((n if shared_input else 1) * block,
                                      COLS, hbm)
    t_xs = "memref<%dx%dxf32, strided<[%d, 1], offset: ?>, %s>" % (
        block, COLS, COLS, hbm)
    t_y = "memref<%dx%dxf32, %s>" % (rout, COLS, hbm)
    lines = [
        "module attributes {accel.chips = %d : i64} {" % n,
        "func.func @main(%%x: %s, %%y: %s) {" % (t_x, t_y),
        "  %%rows = arith.constant %d : index" % block,
        "  %me = accel.chip_id",
        "  %%a = accel.alloc : %s" % t_in,
        "  %%b = accel.alloc : %s" % t_out,
        "  %first = arith.muli %me, %rows : index" if shared_input else
        "  %first = arith.subi %me, %me : index",
        "  %%xs = memref.subview %%x[%%first, 0] [%d, %d] [1, 1] : %s to %s"
        % (block, COLS, t_x, t_xs),
        "  %%t = accel.dma_start %%xs, %%a : %s, %s" % (t_xs, t_in),
        "  accel.dma_wait %t",
    ]
    if op == "send_recv":
        lines += [
            "  %c1 = arith.constant 1 : index",
            "  %n = accel.chip_count",
            "  %p = arith.addi %me, %c1 : index",
            "  %next = arith.remui %p, %n : index",
            "  accel.send %%a, %%b to %%next tag 3 : %s, %s" % (t_in, t_out),
            "  accel.recv %%b tag 3 : %s" % t_out,
        ]
    else:
        attrs = 'algorithm = "%s"' % algo
        if groups:
            attrs += ", groups = dense<%s> : tensor<%dx%dxi64>" % (
                str(groups), len(groups), len(groups[0]))
        lines.append('  accel.%s %%a, %%b {%s} : %s, %s'
                     % (op, attrs, t_in, t_out))
    lines += [
        "  %%u = accel.dma_start %%b, %%y : %s, %s" % (t_out, t_y),
        "  accel.dma_wait %u",
        "  return",
        "}",
        "}",
    ]
    return "\n".join(lines) + "\n"


def expected(op, x, n, c, groups=None):
    """Chip c's output on n chips; X holds the n chips' blocks."""
    block = x.shape[0] // n
    if groups:
        members = next(m for m in groups if c in m)
        c = members.index(c)
    else:
        members = list(range(n))
    xs = [x[j * block:(j + 1) * block] for j in members]
    n = len(members)
    if op == "all_gather":
        return np.concatenate(xs)
    if op == "reduce_scatter":
        return np.sum([xj[c * ROWS:(c + 1) * ROWS] for xj in xs], axis=0,
                      dtype=np.float64).astype(np.float32)
    if op == "all_reduce":
        return np.sum(xs, axis=0, dtype=np.float64).astype(np.float32)
    if op == "all_to_all":
        return np.concatenate([xs[j][c * ROWS:(c + 1) * ROWS]
                               for j in range(n)])
    return xs[(c - 1) % n]  # send_recv


def run_case(tool, tmp, op, algo, n, rng, groups=None):
    d = os.path.join(tmp, "%s-%s-%d-%s" % (
        op, algo, n, "g%d-s%d" % (len(groups[0]), groups[0][1] - groups[0][0])
        if groups else "all"))
    os.makedirs(d)
    with open(os.path.join(d, "prog.mlir"), "w") as f:
        f.write(program(op, algo, n, groups=groups))
    block, _, _ = shapes(op, len(groups[0]) if groups else n)
    x = rng.standard_normal((n * block, COLS)).astype(np.float32)
    np.save(os.path.join(d, "x.npy"), x)
    cmd = [tool, "run", os.path.join(d, "prog.mlir"), "-o",
           os.path.join(d, "out"), "--analyze=false", "--input",
           "0=" + os.path.join(d, "x.npy"), "--output-dir",
           os.path.join(d, "npy")]
    if algo == "torus2d":
        cfg = os.path.join(d, "torus.json")
        with open(cfg, "w") as f:
            json.dump({"chips": n, "ici": {"topology": "torus2d",
                                           "dims": [n // 2, 2]}}, f)
        cmd += ["--config", cfg]
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       text=True)
    if p.returncode:
        return False, p.stderr.strip().splitlines()[-1] if p.stderr else "?"
    with open(os.path.join(d, "out", "metrics.json")) as f:
        cycles = json.load(f)["total_cycles"]
    worst = 0.0
    sums = op in ("reduce_scatter", "all_reduce")
    firsts = {}  # an all-reduce's sum on each group's first chip
    for c in range(n):
        sub = "" if c == 0 else "chip%d" % c
        got = np.load(os.path.join(d, "npy", sub, "arg1.npy"))
        # An all-reduce gives every chip (of a group) the same sum, to the
        # bit.
        if op == "all_reduce":
            lead = next(m for m in groups if c in m)[0] if groups else 0
            if lead == c:
                firsts[c] = got
            elif not np.array_equal(got, firsts[lead]):
                return False, "chip %d's sum differs from chip %d's" % (
                    c, lead)
        want = expected(op, x, n, c, groups)
        if got.shape != want.shape:
            return False, "chip %d: shape %s, expected %s" % (
                c, got.shape, want.shape)
        if sums:
            err = float(np.max(np.abs(got - want) / (np.abs(want) + 1e-6)))
            worst = max(worst, err)
            if not np.allclose(got, want, rtol=1e-6, atol=1e-6):
                return False, "chip %d: relative error %.3g" % (c, err)
        elif not np.array_equal(got, want):
            return False, "chip %d: differs from NumPy" % c
    return True, "%d cycles%s" % (cycles, ", max relative error %.2g" % worst
                                  if sums else ", exact")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--accel-replay", default="build/bin/accel-replay")
    ap.add_argument("--chips", default="2,3,4,8")
    ap.add_argument("--groups", default="8:4:1,8:4:2,6:3:2,6:2:1,4:2:2",
                    help="N:G:S,...: N chips in groups of G chips S apart "
                         "('' for none)")
    ap.add_argument("-v", action="store_true", help="print every case")
    a = ap.parse_args()
    rng = np.random.default_rng(35)
    ok = bad = 0
    with tempfile.TemporaryDirectory() as tmp:
        for n in [int(c) for c in a.chips.split(",") if c]:
            for op in ("all_gather", "reduce_scatter", "all_reduce",
                       "all_to_all", "send_recv"):
                for algo in ALGORITHMS:
                    if not applies(op, algo, n):
                        continue
                    good, what = run_case(a.accel_replay, tmp, op, algo, n,
                                          rng)
                    ok += good
                    bad += not good
                    if a.v or not good:
                        print("%s %s %s on %d chips: %s" % (
                            "ok" if good else "FAIL", op, algo, n, what))
        for spec in [g for g in a.groups.split(",") if g]:
            n, g, stride = (int(v) for v in spec.split(":"))
            groups = group_lists(n, g, stride)
            for op in ("all_gather", "reduce_scatter", "all_reduce",
                       "all_to_all"):
                for algo in ALGORITHMS:
                    if not applies(op, algo, g, grouped=True):
                        continue
                    good, what = run_case(a.accel_replay, tmp, op, algo, n,
                                          rng, groups)
                    ok += good
                    bad += not good
                    if a.v or not good:
                        print("%s %s %s on %d chips in groups %s: %s" % (
                            "ok" if good else "FAIL", op, algo, n,
                            str(groups).replace(" ", ""), what))
    print("%d cases equal to NumPy, %d failed" % (ok, bad))
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
