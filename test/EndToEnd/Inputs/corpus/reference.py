#!/usr/bin/env python3
"""Inputs and float64 NumPy references of the frontend corpus programs.

usage: reference.py inputs NAME DIR      write DIR/arg<i>.npy (float32)
       reference.py check NAME IN OUT    compare OUT/arg<N+k>.npy (N inputs)
                                         with the reference of IN's inputs:
                                         max |got - want| / max |want| <= 1e-4
       reference.py inputs-under ROOT NAME...
       reference.py check-under ROOT NAME...
                                         the same for several programs in
                                         one call (NumPy's import is most of
                                         a call's time), with ROOT/NAME/in
                                         for DIR and IN, ROOT/NAME/out for
                                         OUT

Each program's semantics are those of its JAX source (the StableHLO the
.linalg.mlir file was converted from): see the comment above each function.
Exit status 1 on a mismatch or a missing result.
"""
import argparse
import os
import sys
import zlib

import numpy as np

TOL = 1e-4


def normal(rng, *shape, scale=1.0):
    return (rng.standard_normal(shape) * scale).astype(np.float32)


def conv2d(x, w, stride=1, pad=((0, 0), (0, 0))):
    """NHWC x HWIO, explicit padding, as lax.conv_general_dilated."""
    x = np.pad(x, ((0, 0), pad[0], pad[1], (0, 0)))
    kh, kw = w.shape[:2]
    oh = (x.shape[1] - kh) // stride + 1
    ow = (x.shape[2] - kw) // stride + 1
    out = np.zeros((x.shape[0], oh, ow, w.shape[3]))
    for i in range(kh):
        for j in range(kw):
            p = x[:, i:i + (oh - 1) * stride + 1:stride,
                  j:j + (ow - 1) * stride + 1:stride, :]
            out += np.einsum("nhwc,cf->nhwf", p, w[i, j])
    return out


def softmax(s, axis):
    e = np.exp(s - s.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


# jax.nn.gelu(x @ w1 + b1, approximate=True) @ w2 + b2
def bert_gelu_mlp(r):
    args = [normal(r, 32, 256), normal(r, 256, 1024, scale=1 / 16),
            normal(r, 1024), normal(r, 1024, 256, scale=1 / 32), normal(r, 256)]

    def ref(x, w1, b1, w2, b2):
        h = x @ w1 + b1
        g = 0.5 * h * (1 + np.tanh(np.sqrt(2 / np.pi) * (h + 0.044715 * h**3)))
        return [g @ w2 + b2]
    return args, ref


# 4 heads of 32: softmax(q k^T / sqrt(32), causal) v, heads merged, @ wo
def causal_mha(r):
    args = [normal(r, 64, 128)] + [normal(r, 128, 128, scale=1 / 11.3)
                                   for _ in range(4)]

    def ref(x, wq, wk, wv, wo):
        heads = lambda t: t.reshape(64, 4, 32).transpose(1, 0, 2)
        q, k, v = heads(x @ wq), heads(x @ wk), heads(x @ wv)
        s = np.einsum("hqd,hkd->hqk", q, k) / 5.656854249492381
        s = np.where(np.tril(np.ones((64, 64), bool)), s, -np.inf)
        o = softmax(s, -1) @ v
        return [o.transpose(1, 0, 2).reshape(64, 128) @ wo]
    return args, ref


# relu6(batchnorm(conv1x1(x, w))), flax's running-average batchnorm
def conv1x1_bn_relu6(r):
    args = [normal(r, 1, 16, 16, 32), normal(r, 1, 1, 32, 64, scale=0.2),
            normal(r, 64), (np.abs(normal(r, 64)) + 0.5).astype(np.float32),
            normal(r, 64), normal(r, 64)]

    def ref(x, w, mean, var, scale, bias):
        y = conv2d(x, w)
        y = (y - mean) * (1 / np.sqrt(var + 1e-5) * scale)
        return [np.minimum(np.maximum(y + bias, 0), 6)]
    return args, ref


# conv 3x3, stride 2, SAME (pad 0 low, 1 high), + b
def conv3x3_s2_same(r):
    args = [normal(r, 1, 32, 32, 16), normal(r, 3, 3, 16, 32, scale=0.1),
            normal(r, 32)]

    def ref(x, w, b):
        return [conv2d(x, w, 2, ((0, 1), (0, 1))) + b]
    return args, ref


# mean(-sum(labels * log_softmax(logits), -1)), one-hot labels
def log_softmax_xent(r):
    labels = np.zeros((64, 1000), np.float32)
    labels[np.arange(64), r.integers(0, 1000, 64)] = 1
    args = [normal(r, 64, 1000, scale=3.0), labels]

    def ref(logits, labels):
        z = logits - logits.max(-1, keepdims=True)
        lsm = z - np.log(np.exp(z).sum(-1, keepdims=True))
        return [np.array(np.mean(-np.sum(labels * lsm, -1)))]
    return args, ref


# h = x + (x @ w + b); layernorm(h) with flax-style statistics
def residual_layernorm(r):
    args = [normal(r, 128, 512), normal(r, 512, 512, scale=1 / 22.6),
            normal(r, 512), normal(r, 512), normal(r, 512)]

    def ref(x, w, b, gamma, beta):
        h = x + (x @ w + b)
        mu = h.mean(-1, keepdims=True)
        var = np.maximum(0, (h * h).mean(-1, keepdims=True) - mu * mu)
        return [(h - mu) / np.sqrt(var + 1e-6) * gamma + beta]
    return args, ref


# einsum("bij,bjk->bik")
def batched_matmul(r):
    return ([normal(r, 8, 64, 128), normal(r, 8, 128, 64)],
            lambda a, b: [a @ b])


# x @ w.T (dot_general contracting the last dimensions of both)
def transposed_matmul(r):
    return ([normal(r, 128, 256), normal(r, 512, 256)],
            lambda x, w: [x @ w.T])


# sum(x, 0), max(x, 0)
def column_sums_and_max(r):
    return [normal(r, 256, 512)], lambda x: [x.sum(0), x.max(0)]


# mean over j of table[ids[i, j]] (JAX's gather: negative ids count from
# the end; a row of an id out of range is NaN, so is its mean)
def embedding_meanpool(r):
    ids = r.integers(0, 512, (32, 16)).astype(np.int32)
    ids[3, 4], ids[7, 0], ids[9, 15] = -1, -512, -7  # wrap to 511, 0, 505
    ids[20, 2], ids[25, 9] = 512, -513  # out of range: NaN
    args = [ids, normal(r, 512, 128)]

    def ref(ids, table):
        ids = ids.astype(np.int64)
        wrapped = np.where(ids < 0, ids + 512, ids)
        ok = (wrapped >= 0) & (wrapped <= 511)
        rows = table[np.clip(wrapped, 0, 511)]
        return [np.where(ok[:, :, None], rows, np.nan).mean(1)]
    return args, ref


PROGRAMS = {f.__name__: f for f in [
    bert_gelu_mlp, causal_mha, conv1x1_bn_relu6, conv3x3_s2_same,
    log_softmax_xent, residual_layernorm, batched_matmul, transposed_matmul,
    column_sums_and_max, embedding_meanpool]}


def check(name, args, ref, indir, outdir):
    """Prints one line per result of `name`; False on a mismatch."""
    given = [np.load(os.path.join(indir, f"arg{i}.npy")).astype(np.float64)
             for i in range(len(args))]
    ok = True
    for k, want in enumerate(ref(*given)):
        n = len(args) + k
        path = os.path.join(outdir, f"arg{n}.npy")
        if not os.path.exists(path):
            print(f"{name}: arg{n}: missing")
            ok = False
            continue
        got = np.load(path)
        if got.shape != want.shape or got.dtype != np.float32:
            print(f"{name}: arg{n}: got {got.dtype} {got.shape}, "
                  f"want float32 {want.shape}")
            ok = False
            continue
        # NaN exactly where the reference has one (a gather out of range).
        nan = np.isnan(want)
        if (np.isnan(got) != nan).any():
            print(f"{name}: arg{n}: NaN at "
                  f"{np.argwhere(np.isnan(got) != nan)[0]}: MISMATCH")
            ok = False
            continue
        got, want = np.where(nan, 0.0, got), np.where(nan, 0.0, want)
        rel = float(np.abs(got - want).max() / np.abs(want).max())
        status = "ok" if rel <= TOL else "MISMATCH"
        ok &= rel <= TOL
        print(f"{name}: arg{n}: max error / max |want| {rel:.2e}: {status}")
    return ok


def write_inputs(name, indir):
    args, _ = PROGRAMS[name](np.random.default_rng(zlib.crc32(name.encode())))
    os.makedirs(indir, exist_ok=True)
    for i, x in enumerate(args):
        np.save(os.path.join(indir, f"arg{i}.npy"), x)


def check_outputs(name, indir, outdir):
    args, ref = PROGRAMS[name](
        np.random.default_rng(zlib.crc32(name.encode())))
    return check(name, args, ref, indir, outdir)


def main():
    p = argparse.ArgumentParser(
        description=__doc__.splitlines()[0],
        epilog="programs: " + ", ".join(sorted(PROGRAMS)))
    modes = p.add_subparsers(dest="mode", required=True)
    names = dict(choices=sorted(PROGRAMS), metavar="NAME")
    m = modes.add_parser("inputs")
    m.add_argument("program", **names)
    m.add_argument("dir")
    m = modes.add_parser("check")
    m.add_argument("program", **names)
    m.add_argument("indir")
    m.add_argument("outdir")
    for mode in ("inputs-under", "check-under"):
        m = modes.add_parser(mode)
        m.add_argument("root")
        m.add_argument("programs", nargs="+", **names)
    a = p.parse_args()
    if a.mode == "inputs":
        write_inputs(a.program, a.dir)
        return 0
    if a.mode == "check":
        return 0 if check_outputs(a.program, a.indir, a.outdir) else 1
    ok = True
    for name in a.programs:
        indir = os.path.join(a.root, name, "in")
        if a.mode == "inputs-under":
            write_inputs(name, indir)
        else:
            ok &= check_outputs(name, indir, os.path.join(a.root, name, "out"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
