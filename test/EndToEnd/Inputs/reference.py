#!/usr/bin/env python3
"""NumPy references for the end-to-end tests.

  reference.py inputs PROGRAM DIR
      writes the program's inputs as DIR/argN.npy (seeded, reproducible)
  reference.py check PROGRAM INDIR OUTDIR
      computes the program's outputs from INDIR/argN.npy with NumPy and
      compares them with the simulator's OUTDIR/argN.npy; exit 1 on a
      mismatch. Tolerances allow f32 rounding where the order of
      accumulation differs (the MXU and the VPU reductions add left to
      right in f32; NumPy computes the reference in f64).
"""
import argparse
import os
import sys

import numpy as np


def rand(rng, *shape, scale=1.0):
    return (rng.standard_normal(shape) * scale).astype(np.float32)


# Each program: (inputs(rng) -> {arg index: array},
#                reference(inputs) -> {arg index: expected array},
#                relative tolerance).
def softmax_inputs(rng):
    return {0: rand(rng, 64, 128, scale=3.0), 1: np.zeros((64, 128), np.float32)}


def softmax_ref(a):
    x = a[0].astype(np.float64)
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return {1: e / e.sum(axis=1, keepdims=True)}


def mlp_inputs(rng):
    return {0: rand(rng, 64, 256), 1: rand(rng, 256, 512, scale=1 / 16),
            2: rand(rng, 512), 3: rand(rng, 512, 128, scale=1 / 16)}


def mlp_ref(a):
    x, w1, b1, w2 = (a[i].astype(np.float64) for i in range(4))
    return {4: np.maximum(x @ w1 + b1, 0) @ w2}


def gated_mlp_inputs(rng):
    return {0: rand(rng, 32, 256), 1: rand(rng, 256, 512, scale=1 / 16),
            2: rand(rng, 256, 512, scale=1 / 16),
            3: rand(rng, 512, 256, scale=1 / 16)}


def gated_mlp_ref(a):
    x, wg, wu, wd = (a[i].astype(np.float64) for i in range(4))
    g, u = x @ wg, x @ wu
    return {4: (g / (1 + np.exp(-g)) * u) @ wd}


def layernorm_inputs(rng):
    return {0: rand(rng, 64, 384, scale=2.0) + 0.5, 1: rand(rng, 384),
            2: rand(rng, 384)}


def layernorm_ref(a):
    x, gamma, beta = (a[i].astype(np.float64) for i in range(3))
    mean = x.mean(axis=1, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=1, keepdims=True)
    return {3: (x - mean) / np.sqrt(var + 1e-5) * gamma + beta}


def odd_matmul_inputs(rng):
    return {0: rand(rng, 100, 300), 1: rand(rng, 300, 200)}


def odd_matmul_ref(a):
    return {2: a[0].astype(np.float64) @ a[1].astype(np.float64)}


def batched_inputs(rng):
    return {0: rand(rng, 2, 8, 128), 1: rand(rng, 128)}


def batched_ref(a):
    return {2: np.exp(a[0].astype(np.float64) + a[1].astype(np.float64))}


def affine_matmul_inputs(rng):
    return {0: rand(rng, 192, 256), 1: rand(rng, 256, 128, scale=1 / 16),
            3: rand(rng, 128)}


def affine_matmul_ref(a):
    c = a[0].astype(np.float64) @ a[1].astype(np.float64) + a[3]
    return {2: np.maximum(c, 0.0)}


def affine_rows_inputs(rng):
    return {0: rand(rng, 8192)}


def affine_rows_ref(a):
    x = a[0].astype(np.float64)
    return {1: (x * x - x).reshape(64, 128)}


def affine_scalar_inputs(rng):
    return {0: rand(rng, 64, 256), 1: rand(rng, 256)}


def affine_scalar_ref(a):
    x, w = a[0].astype(np.float64), a[1].astype(np.float64)
    return {2: x * w + x}


PROGRAMS = {
    "softmax": (softmax_inputs, softmax_ref, 1e-5),
    "mlp": (mlp_inputs, mlp_ref, 1e-5),
    "gated-mlp": (gated_mlp_inputs, gated_mlp_ref, 1e-5),
    "layernorm": (layernorm_inputs, layernorm_ref, 1e-5),
    "odd-matmul": (odd_matmul_inputs, odd_matmul_ref, 1e-5),
    "batched": (batched_inputs, batched_ref, 1e-5),
    "affine-matmul": (affine_matmul_inputs, affine_matmul_ref, 1e-5),
    "affine-rows": (affine_rows_inputs, affine_rows_ref, 1e-5),
    "affine-scalar": (affine_scalar_inputs, affine_scalar_ref, 1e-5),
}


def load(dirname, index):
    return np.load(os.path.join(dirname, f"arg{index}.npy"))


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("mode", choices=["inputs", "check"])
    p.add_argument("program", choices=sorted(PROGRAMS))
    p.add_argument("dirs", nargs="+")
    args = p.parse_args()
    make_inputs, reference, rtol = PROGRAMS[args.program]
    rng = np.random.default_rng(20261124)
    inputs = make_inputs(rng)
    if args.mode == "inputs":
        os.makedirs(args.dirs[0], exist_ok=True)
        for i, a in inputs.items():
            np.save(os.path.join(args.dirs[0], f"arg{i}.npy"), a)
        return 0
    indir, outdir = args.dirs
    given = {i: load(indir, i) for i in inputs}
    ok = True
    for i, want in reference(given).items():
        got = load(outdir, i)
        if got.shape != want.shape or got.dtype != np.float32:
            print(f"{args.program}: arg{i}: got {got.dtype} {got.shape}, "
                  f"want float32 {want.shape}")
            ok = False
            continue
        err = np.abs(got.astype(np.float64) - want)
        # Relative to each element and to the largest (accumulation order
        # errors scale with the magnitude of the terms, not of the sum).
        bound = rtol * (np.abs(want) + np.abs(want).max())
        worst = float((err / np.maximum(bound, 1e-30)).max())
        status = "ok" if worst <= 1.0 else "MISMATCH"
        ok &= worst <= 1.0
        print(f"{args.program}: arg{i}: max abs error {err.max():.3g}, "
              f"{worst:.3g} of the tolerance: {status}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
