#!/usr/bin/env python3
"""Bit-exact NumPy reference of Inputs/mlp-bf16.mlir (bf16 end to end).

  bf16-reference.py inputs DIR
      writes the inputs: arg0 as f32 values that are bf16 values ('<f4'),
      arg1 and arg3 as bf16 bit patterns ('<u2'), arg2 as the raw 2-byte
      type NumPy saves ml_dtypes.bfloat16 as ('|V2')
  bf16-reference.py check INDIR OUTDIR
      recomputes the outputs arg4 (bf16) and arg5 (f32) with accel's
      arithmetic (docs/isa.md, "Element types") and compares them with
      OUTDIR/argN.npy (a bf16 output is written widened to f32) bit for
      bit; exit 1 on a mismatch.

The reference emulates bf16 with integer operations, independently of the
simulator: round to nearest even is (bits + 0x7fff + lsb) >> 16 of the f32
bits. The MXU's products of bf16 values are exact in f32 and its sums run in
k order in f32; a VPU op computes in f32 and rounds its bf16 result once.
"""
import os
import sys

import numpy as np


def round_bf16(f):
    """f32 array -> the f32 array of its values rounded to bf16."""
    f = np.asarray(f, np.float32)
    u = np.atleast_1d(f).view(np.uint32).astype(np.uint64)
    s16 = np.uint64(16)
    r = ((u + np.uint64(0x7FFF) + ((u >> s16) & np.uint64(1))) >> s16)
    r = (r & np.uint64(0xFFFF)).astype(np.uint32) << np.uint32(16)
    return r.view(np.float32).reshape(f.shape)


def bits_to_f32(bits):
    return (bits.astype(np.uint32) << 16).view(np.float32)


def f32_to_bits(f):
    return (np.asarray(f, np.float32).view(np.uint32) >> 16).astype(np.uint16)


def mxu(a, b):
    """a (MxK) * b (KxN), bf16 values in f32: products exact, summed in k
    order in f32 from 0."""
    acc = np.zeros((a.shape[0], b.shape[1]), np.float32)
    for k in range(a.shape[1]):
        acc = acc + np.outer(a[:, k], b[k, :]).astype(np.float32)
    return acc


def make_inputs():
    rng = np.random.default_rng(20261125)
    def rand(*shape, scale):
        return round_bf16((rng.standard_normal(shape) * scale).astype(np.float32))
    return {0: rand(64, 256, scale=1.0), 1: rand(256, 512, scale=1 / 16),
            2: rand(512, scale=0.5), 3: rand(512, 128, scale=1 / 16)}


def load_input(path):
    a = np.load(path)
    if a.dtype == np.float32:
        return a
    return bits_to_f32(a.view(np.uint16))


def main():
    mode = sys.argv[1]
    if mode == "inputs":
        out = sys.argv[2]
        os.makedirs(out, exist_ok=True)
        a = make_inputs()
        np.save(os.path.join(out, "arg0.npy"), a[0])
        np.save(os.path.join(out, "arg1.npy"), f32_to_bits(a[1]))
        np.save(os.path.join(out, "arg2.npy"), f32_to_bits(a[2]).view("V2"))
        np.save(os.path.join(out, "arg3.npy"), f32_to_bits(a[3]))
        return 0
    indir, outdir = sys.argv[2], sys.argv[3]
    x, w1, b1, w2 = (load_input(os.path.join(indir, f"arg{i}.npy"))
                     for i in range(4))
    h = round_bf16(np.maximum(mxu(x, w1) + b1[None, :], np.float32(0)))
    y = mxu(h, w2)
    t = round_bf16(y)
    tenth = round_bf16(np.float32(0.1))
    out = round_bf16(round_bf16(t * tenth) + t)
    ok = True
    for i, want in ((4, out), (5, y)):
        got = np.load(os.path.join(outdir, f"arg{i}.npy"))
        if got.dtype != np.float32 or got.shape != want.shape:
            print(f"arg{i}: got {got.dtype} {got.shape}, want float32 "
                  f"{want.shape}")
            ok = False
            continue
        diff = int((got.view(np.uint32) != want.view(np.uint32)).sum())
        nonzero = int((want != 0).sum())
        print(f"mlp-bf16: arg{i}: {diff} of {want.size} elements differ "
              f"({nonzero} nonzero): "
              f"{'bit-exact' if diff == 0 else 'MISMATCH'}")
        ok &= diff == 0
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
