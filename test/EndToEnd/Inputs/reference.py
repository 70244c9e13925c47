#!/usr/bin/env python3
"""NumPy references for the end-to-end tests.

  reference.py inputs PROGRAM DIR [+ PROGRAM DIR]...
      writes the program's inputs as DIR/argN.npy (seeded, reproducible)
  reference.py check PROGRAM INDIR OUTDIR... [+ PROGRAM INDIR OUTDIR...]...
      computes the program's outputs from INDIR/argN.npy with NumPy and
      compares them with the simulator's OUTDIR/argN.npy, a line per
      argument and OUTDIR (several OUTDIRs: the runs of one set of inputs
      checked in one Python start); exit 1 on a mismatch. Tolerances allow f32 rounding where the order of
      accumulation differs (the MXU and the VPU reductions add left to
      right in f32; NumPy computes the reference in f64).

A `+` between groups does several programs in one Python start (NumPy's
import is most of a call's time); the exit status is 1 if any mismatched.

With ACCEL_REFERENCE_CACHE set to a directory (test/lit.cfg.py sets it),
both modes run from a cache without importing NumPy (about 0.3 s a
start): `inputs` copies the files, and `check` compares the outputs with
the reference outputs computed once from those inputs, when the given
inputs are the cached ones byte for byte and every output is within the
tolerance (anything else runs the NumPy check below, which says what is
wrong). The first call after reference.py changes fills the cache for
every program at once (reference_cache.py has the layout).
"""
import argparse
import json
import math
import os
import shutil
import sys

import reference_cache

if __name__ == "__main__" and len(sys.argv) > 2:
    _cache = reference_cache.cache_dir(os.path.abspath(__file__))
    if _cache and os.path.isdir(_cache):
        if sys.argv[1] == "inputs" and reference_cache.copy_inputs(
                _cache, sys.argv[2:]):
            sys.exit(0)
        if sys.argv[1] == "check":
            _status = reference_cache.check(_cache, sys.argv[2:])
            if _status is not None:
                sys.exit(_status)

import numpy as np  # noqa: E402 (after the cache, which needs no NumPy)


# Every program's inputs come from a generator seeded with this.
SEED = 20261124


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


def vpu_math_inputs(rng):
    x = rand(rng, 64, 256, scale=2.0)
    p = (np.abs(rand(rng, 64, 256, scale=3.0)) + 0.05).astype(np.float32)
    return {0: x, 1: p}


def erf(x):
    return np.vectorize(math.erf)(x)


def vpu_math_ref(a):
    x, p = (a[i].astype(np.float64) for i in range(2))
    return {2: np.tanh(x) + 0.5 * erf(x) - np.abs(x) / np.sqrt(p) +
               np.log(p) + np.log1p(p) + np.minimum(x, 0.25) +
               np.maximum(x, -0.25)}


# IEEE special values through each function: one column per function
# (vpu-math-special.mlir), one row per input value.
SPECIAL = np.array([0.0, -0.0, 1.0, -1.0, 0.5, -0.5, np.inf, -np.inf, np.nan,
                    1e-30, -1e-30, 88.0, -88.0, 1e30], np.float32)


def vpu_math_special_inputs(rng):
    x = np.zeros((16, 8), np.float32)
    x[:len(SPECIAL), :] = SPECIAL[:, None]
    return {0: x}


def vpu_math_special_ref(a):
    x = a[0][:, 0].astype(np.float32)
    with np.errstate(all="ignore"):
        cols = [np.tanh(x), np.log(x), np.log1p(x),
                np.float32(1) / np.sqrt(x), erf(x.astype(np.float64)),
                np.abs(x), np.minimum(x, np.float32(0.0)),
                np.fmin(x, np.float32(0.0))]
    return {1: np.stack([c.astype(np.float64) for c in cols], axis=1)}


def rank0_inputs(rng):
    return {0: rand(rng, 16, 256) + 2.0, 1: np.array(1.5, np.float32)}


def rank0_ref(a):
    x, s = a[0].astype(np.float64), float(a[1])
    mean = x.mean()
    return {2: x / mean * s, 3: np.array(mean)}


def constants_inputs(rng):
    return {0: rand(rng, 16, 32)}


def constants_ref(a):
    # The constants of constants.mlir, by the formulas in its header.
    i, j = np.meshgrid(np.arange(32), np.arange(16), indexing="ij")
    w = ((i * 16 + j) % 13 - 6) / 8
    b = (np.arange(16) - 8) / 4
    c = 1 + np.arange(16) / 16
    i, j = np.meshgrid(np.arange(4), np.arange(16), indexing="ij")
    x = a[0].astype(np.float64)
    return {1: (x @ w + b) * c[:, None] * 0.5, 2: i - j / 2}


def dynamic_inputs(rng):
    return {0: rand(rng, 48, 64), 1: rand(rng, 64, 96, scale=1 / 8),
            2: rand(rng, 96)}


def dynamic_ref(a):
    x, w, b = (a[i].astype(np.float64) for i in range(3))
    r = x @ w + b
    return {3: r - r.max(axis=1, keepdims=True)}


def pool_inputs(rng):
    return {0: rand(rng, 2, 16, 16, 32)}


def pool_ref(a):
    x = a[0].astype(np.float64).reshape(2, 8, 2, 8, 2, 32)
    return {1: x.max(axis=(2, 4)), 2: x.mean(axis=(2, 4))}


def matvec_inputs(rng):
    return {0: rand(rng, 64, 128), 1: rand(rng, 128), 2: rand(rng, 64)}


def matvec_ref(a):
    m, x, y = (a[i].astype(np.float64) for i in range(3))
    v = y @ m
    return {3: m @ x, 4: v, 5: np.array(x @ v), 6: np.outer(y, x)}


SPECIALS = [0.0, -0.0, 0.5, -0.5, 1.5, -1.5, 2.5, -2.5, 1e-8, -1e-8,
            np.inf, -np.inf, np.nan, 3.7, -3.7, 1e30]


def with_specials(x):
    # The special values in the first row, the rest random.
    x = x.copy()
    x[0, :len(SPECIALS)] = SPECIALS
    return x


def elu_inputs(rng):
    return {0: with_specials(rand(rng, 32, 256, scale=3.0))}


def elu_ref(a):
    x = a[0].astype(np.float64)
    with np.errstate(over="ignore", invalid="ignore"):
        return {1: np.where(x > 0, x, np.expm1(x)),
                2: np.maximum(x, 0) + np.log1p(np.exp(-np.abs(x)))}


def clamp_round_inputs(rng):
    return {0: with_specials(rand(rng, 16, 128, scale=4.0))}


def clamp_round_ref(a):
    x = a[0].astype(np.float64)
    return {1: np.minimum(np.maximum(-1.5, x), 2.0), 2: np.floor(x),
            3: np.round(x), 4: np.sign(x)}


def reverse_pad_inputs(rng):
    return {0: with_specials(rand(rng, 32, 128))}


def reverse_pad_ref(a):
    x = a[0].astype(np.float64)
    return {1: x[:, ::-1], 2: np.pad(x, ((1, 1), (4, 4))), 3: x[:, ::2],
            4: x + x[::-1, :], 5: x.T[::-1, ::-1]}


def nchw_inputs(rng):
    return {0: rand(rng, 2, 8, 12, 10), 1: rand(rng, 16, 8, 3, 3, scale=0.3),
            2: rand(rng, 16), 3: rand(rng, 8, 16, 3, 3, scale=0.3)}


def nchw_ref(a):
    x, w, b, w2 = (a[i].astype(np.float64) for i in range(4))
    nhwc = x.transpose(0, 2, 3, 1)
    padded = np.pad(nhwc, ((0, 0), (1, 1), (1, 1), (0, 0)))
    conv = conv2d(padded, w.transpose(2, 3, 1, 0)) + b
    relu = np.maximum(conv, 0.0)
    pool = relu.reshape(2, 6, 2, 5, 2, 16).max(axis=(2, 4))
    conv2 = conv2d(relu, w2.transpose(2, 3, 1, 0), stride=2)
    return {4: pool.transpose(0, 3, 1, 2), 5: conv2.transpose(0, 3, 1, 2),
            6: nhwc}


def batched_heads_inputs(rng):
    return {0: rand(rng, 64, 128), 1: rand(rng, 4, 32, 48, scale=1 / 4)}


def batched_heads_ref(a):
    x, w = a[0].astype(np.float64), a[1].astype(np.float64)
    h = x.reshape(64, 4, 32).transpose(1, 0, 2)
    p = h @ w
    return {2: p - p.max(axis=2, keepdims=True)}


def column_reductions_inputs(rng):
    return {0: rand(rng, 37, 200)}


def column_reductions_ref(a):
    x = a[0].astype(np.float64)
    return {1: x.sum(axis=0), 2: (x * x).max(axis=0)}


def conv1x1_inputs(rng):
    return {0: rand(rng, 2, 8, 12, 24), 1: rand(rng, 1, 1, 24, 40),
            2: rand(rng, 40)}


def conv1x1_ref(a):
    x, w, g = (a[i].astype(np.float64) for i in range(3))
    y = np.einsum("nhwc,cf->nhwf", x, w[0, 0]) * g
    return {3: np.minimum(np.maximum(y, 0.0), 6.0)}


def full_reduction_inputs(rng):
    return {0: rand(rng, 300, 700)}


def full_reduction_ref(a):
    x = a[0].astype(np.float64)
    return {1: np.array(x.sum()), 2: np.array(x.max())}


def transposes_inputs(rng):
    return {0: rand(rng, 300, 600), 1: rand(rng, 130, 600),
            2: rand(rng, 2, 40, 64), 3: rand(rng, 2, 50, 64),
            4: rand(rng, 30, 20), 5: rand(rng, 20, 30),
            6: rand(rng, 200, 96), 7: rand(rng, 200, 72)}


def transposes_ref(a):
    x, w, q, k, p, b, u, v = (a[i].astype(np.float64) for i in range(8))
    return {8: x @ w.T, 9: np.einsum("hsd,htd->hst", q, k) * 0.125,
            10: p + b.T, 11: p.T, 12: u.T @ v, 13: k.transpose(0, 2, 1)}


def masks_inputs(rng):
    x = rand(rng, 150, 600)
    x[3, 7] = np.nan  # a NaN through ReLU's ugt and the causal select
    return {0: x, 1: rand(rng, 150), 2: rand(rng, 700)}


def masks_ref(a):
    x, y, v = (a[i].astype(np.float64) for i in range(3))
    i, j = np.indices(x.shape)
    band = np.abs(i - j) <= 2
    with np.errstate(invalid="ignore"):
        relu = np.where(x > 0, x, 0.0)
        relu[np.isnan(x)] = np.nan  # cmpf ugt: true on NaN, selects x
        where = np.where(x > y[:, None], 2 * x, y[:, None])
    return {3: np.where(i >= j, x, -np.inf), 4: relu, 5: where,
            6: np.where(band, 3.0 * i + j - 5, 0.0),
            7: v * np.arange(700)}


def conv_inputs(rng):
    return {0: rand(rng, 2, 10, 12, 8), 1: rand(rng, 3, 3, 8, 16, scale=0.3),
            2: rand(rng, 16), 3: rand(rng, 2, 2, 8, 16, scale=0.3),
            4: rand(rng, 3, 3, 8)}


def conv2d(x, w, stride=1, dilation=1):
    """NHWC x HWCF, VALID: the sum over taps of shifted matmuls."""
    kh, kw = w.shape[:2]
    oh = (x.shape[1] - (kh - 1) * dilation - 1) // stride + 1
    ow = (x.shape[2] - (kw - 1) * dilation - 1) // stride + 1
    out = np.zeros((x.shape[0], oh, ow, w.shape[3]))
    for i in range(kh):
        for j in range(kw):
            p = x[:, i * dilation:i * dilation + (oh - 1) * stride + 1:stride,
                  j * dilation:j * dilation + (ow - 1) * stride + 1:stride, :]
            out += np.einsum("nhwc,cf->nhwf", p, w[i, j])
    return out


def stride1_inputs(rng):
    return {0: rand(rng, 2, 11, 13, 8), 1: rand(rng, 3, 3, 8, 24, scale=0.3),
            2: rand(rng, 24), 3: rand(rng, 3, 3, 8)}


def stride1_ref(a):
    x, w, b, wd = (a[i].astype(np.float64) for i in range(4))
    zero = np.pad(x, ((0, 0), (1, 1), (1, 1), (0, 0)))
    ninf = np.pad(x, ((0, 0), (1, 1), (1, 1), (0, 0)),
                  constant_values=-np.inf)
    depthwise = np.zeros_like(x)
    pool = np.full_like(x, -np.inf)
    for i in range(3):
        for j in range(3):
            depthwise += zero[:, i:i + 11, j:j + 13, :] * wd[i, j]
            pool = np.maximum(pool, ninf[:, i:i + 11, j:j + 13, :])
    return {4: conv2d(x, w, dilation=2) + b, 5: depthwise, 6: pool}


def conv_ref(a):
    x, w, b, w2, wd = (a[i].astype(np.float64) for i in range(5))
    padded = np.pad(x, ((0, 0), (1, 1), (1, 1), (0, 0)))
    # Depthwise: channel c of the output from channel c of the input.
    depthwise = sum(x[:, i:i + 7:2, j:j + 9:2, :] * wd[i, j]
                    for i in range(3) for j in range(3))
    return {5: np.maximum(conv2d(padded, w) + b, 0.0),
            6: conv2d(x, w, stride=2), 7: conv2d(x, w2, dilation=2),
            8: depthwise}


def gathers_inputs(rng):
    ids = rng.integers(-45, 45, size=(8, 12), dtype=np.int32)
    pos = rng.integers(-5, 40, size=20, dtype=np.int32)
    return {0: ids, 1: rand(rng, 40, 96), 2: pos, 3: rand(rng, 64)}


def gathers_ref(a):
    ids, emb, pos, vec = a[0], a[1].astype(np.float64), a[2], a[3]
    wrapped = np.where(ids < 0, ids + 40, ids)
    ok = (wrapped >= 0) & (wrapped < 40)
    rows = emb[np.clip(wrapped, 0, 39)]
    g = np.where(ok[:, :, None], rows, np.nan)
    colg = np.clip(pos, 0, 29)[:, None] + np.arange(16)[None, :]
    hot = (pos[:, None] == np.arange(24)[None, :]).astype(np.float64)
    # arg8: i32 wrap of p * 2^30, unsigned p < 10 (negative p is large),
    # or, xor, then max as unsigned 64-bit index (a negative p is huge,
    # and minsi sees it negative again).
    p = pos.astype(np.int64)
    a = ((p * 2**30 + 2**31) % 2**32) - 2**31
    b = a < 0
    c = (p >= 0) & (p < 10)
    d = b | c
    e = d ^ (p != 5)
    s = np.where(e, 3, 7) + np.where(d, 20, 0)
    big = np.where((p < 0) | (p > s), p, s)  # maxui: negative p is largest
    idx = np.maximum(np.minimum(big, 63), 0)  # minsi keeps negative p < 0
    return {4: g, 5: colg.astype(np.float64), 6: hot,
            7: vec[np.clip(pos * 2 + 1, 0, 63)].astype(np.float64),
            8: vec[idx].astype(np.float64)}


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
    "vpu-math": (vpu_math_inputs, vpu_math_ref, 1e-5),
    "rank0": (rank0_inputs, rank0_ref, 1e-5),
    "constants": (constants_inputs, constants_ref, 1e-5),
    "dynamic": (dynamic_inputs, dynamic_ref, 1e-5),
    "pool": (pool_inputs, pool_ref, 1e-6),
    "matvec": (matvec_inputs, matvec_ref, 1e-5),
    "elu": (elu_inputs, elu_ref, 1e-6, "elementwise"),
    "clamp_round": (clamp_round_inputs, clamp_round_ref, 0.0, "elementwise"),
    "reverse_pad": (reverse_pad_inputs, reverse_pad_ref, 1e-7, "elementwise"),
    "batched-heads": (batched_heads_inputs, batched_heads_ref, 1e-5),
    "column-reductions": (column_reductions_inputs, column_reductions_ref,
                          1e-5),
    "conv1x1": (conv1x1_inputs, conv1x1_ref, 1e-5),
    "full-reduction": (full_reduction_inputs, full_reduction_ref, 1e-5),
    "transposes": (transposes_inputs, transposes_ref, 1e-5),
    "masks": (masks_inputs, masks_ref, 1e-6),
    "conv": (conv_inputs, conv_ref, 1e-5),
    "stride1": (stride1_inputs, stride1_ref, 1e-5),
    "nchw": (nchw_inputs, nchw_ref, 1e-5),
    "gathers": (gathers_inputs, gathers_ref, 0.0, "elementwise"),
    "vpu-math-special": (vpu_math_special_inputs, vpu_math_special_ref, 1e-6,
                         "elementwise"),
}


def load(dirname, index):
    return np.load(os.path.join(dirname, f"arg{index}.npy"))


def check_outputs(program, want_all, outdir, rtol, elementwise):
    """Compares the .npy outputs in outdir with the reference values
    want_all (argument index -> array), printing a line per argument;
    returns whether all are within the tolerance."""
    ok = True
    for i, want in want_all.items():
        got = load(outdir, i)
        if got.shape != want.shape or got.dtype != np.float32:
            print(f"{program}: arg{i}: got {got.dtype} {got.shape}, "
                  f"want float32 {want.shape}")
            ok = False
            continue
        # IEEE special values must match exactly: a NaN where the reference
        # has one, the same infinity.
        special = ~np.isfinite(want)
        g = got.astype(np.float64)
        same = (np.isnan(g) & np.isnan(want)) | (g == want)
        if not same[special].all():
            bad = np.argwhere(special & ~same)[0]
            print(f"{program}: arg{i}: at {tuple(bad)} got "
                  f"{got[tuple(bad)]!r}, want {want[tuple(bad)]!r}: MISMATCH")
            ok = False
            continue
        want = np.where(special, 0.0, want)
        g = np.where(special, 0.0, g)
        err = np.abs(g - want)
        # Relative to each element and to the largest (accumulation order
        # errors scale with the magnitude of the terms, not of the sum).
        bound = rtol * (np.abs(want) +
                        (0.0 if elementwise else np.abs(want).max()))
        worst = float((err / np.maximum(bound, 1e-30)).max())
        status = "ok" if worst <= 1.0 else "MISMATCH"
        ok &= worst <= 1.0
        print(f"{program}: arg{i}: max abs error {err.max():.3g}, "
              f"{worst:.3g} of the tolerance: {status}")
    return ok


def run_group(p, mode, argv):
    """One PROGRAM DIR... group of `mode`; False on a mismatch."""
    p.add_argument("program", choices=sorted(PROGRAMS))
    p.add_argument("dirs", nargs="+")
    args = p.parse_args(argv)
    # A fourth entry "elementwise": the tolerance is relative to each
    # element only (values of very different magnitudes side by side).
    make_inputs, reference, rtol, *scale = PROGRAMS[args.program]
    elementwise = scale == ["elementwise"]
    rng = np.random.default_rng(SEED)
    inputs = make_inputs(rng)
    if mode == "inputs":
        os.makedirs(args.dirs[0], exist_ok=True)
        for i, a in inputs.items():
            np.save(os.path.join(args.dirs[0], f"arg{i}.npy"), a)
        return True
    # check IN OUT...: one Python start (numpy's import is most of a
    # check's time) for the outputs of several runs of the same inputs.
    if len(args.dirs) < 2:
        p.error("check needs the inputs' directory and an output directory")
    indir, outdirs = args.dirs[0], args.dirs[1:]
    given = {i: load(indir, i) for i in inputs}
    want_all = reference(given)
    ok = True
    for outdir in outdirs:
        ok &= check_outputs(args.program, want_all, outdir, rtol, elementwise)
    return ok


def fill_cache(cache):
    """Writes every program's inputs and reference outputs into `cache`
    (reference_cache.py has the layout), once: concurrent callers wait on
    a lock, and the directory appears whole (renamed from a temporary one)
    or not at all."""
    import fcntl
    root = os.path.dirname(cache)
    os.makedirs(root, exist_ok=True)
    with open(os.path.join(root, "lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if os.path.isdir(cache):
            return
        tmp = "%s.tmp-%d" % (cache, os.getpid())
        shutil.rmtree(tmp, ignore_errors=True)
        for program, (make_inputs, reference, rtol, *scale) in \
                PROGRAMS.items():
            out = os.path.join(tmp, program)
            os.makedirs(out)
            inputs = make_inputs(np.random.default_rng(SEED))
            for i, a in inputs.items():
                np.save(os.path.join(out, f"arg{i}.npy"), a)
            # What `check` computes: the reference of the inputs as loaded.
            want_all = reference({i: load(out, i) for i in inputs})
            # reference_cache.compare does the NumPy check's arithmetic in
            # f64, which is that check's only for f64 references.
            if any(np.asarray(w).dtype != np.float64
                   for w in want_all.values()):
                continue
            os.makedirs(out + ".want")
            for i, w in want_all.items():
                np.save(os.path.join(out + ".want", f"arg{i}.npy"),
                        np.array(w, order="C"))  # read_npy reads C order
            with open(os.path.join(out + ".want", "meta.json"), "w") as f:
                json.dump({"args": list(want_all), "rtol": rtol,
                           "elementwise": scale == ["elementwise"]}, f)
        os.rename(tmp, cache)
        # The caches of earlier versions of this file.
        for name in os.listdir(root):
            path = os.path.join(root, name)
            if name.startswith("inputs-") and path != cache:
                shutil.rmtree(path, ignore_errors=True)


def main():
    doc = __doc__.splitlines()[0]
    if len(sys.argv) < 2 or sys.argv[1] not in ("inputs", "check"):
        p = argparse.ArgumentParser(
            description=doc, epilog="programs: " + ", ".join(sorted(PROGRAMS)))
        p.add_argument("mode", choices=["inputs", "check"])
        p.parse_args(sys.argv[1:2])
        return 2
    cache = reference_cache.cache_dir(os.path.abspath(__file__))
    if cache:
        fill_cache(cache)
        if sys.argv[1] == "inputs" and reference_cache.copy_inputs(
                cache, sys.argv[2:]):
            return 0
        if sys.argv[1] == "check":
            status = reference_cache.check(cache, sys.argv[2:])
            if status is not None:
                return status
    mode, ok = sys.argv[1], True
    for group in reference_cache.split_groups(sys.argv[2:]):
        p = argparse.ArgumentParser(prog="reference.py " + mode,
                                    description=doc)
        ok &= run_group(p, mode, group)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
