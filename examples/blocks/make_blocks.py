#!/usr/bin/env python3
"""Writes the example blocks in the form the StableHLO-to-linalg conversion
emits, with their inputs and float64 NumPy references (issue 32, item 7).

    make_blocks.py OUT_DIR                 write BLOCK.mlir for every block
    make_blocks.py inputs BLOCK DIR        write DIR/arg<i>.npy
    make_blocks.py check BLOCK IN OUT      compare OUT/arg<N>.npy with the
                                           reference (max error / max |want|
                                           <= 1e-4 for f32, 2e-2 for bf16)

`inputs` and `check` take several groups separated by `+` (inputs BLOCK
DIR + BLOCK DIR ...): one Python start, NumPy's import being most of it.

Blocks: transformer_f32, transformer_bf16 (a Llama-style block: RMSNorm,
QKV projections, causal multi-head attention with softmax, output
projection, residual, RMSNorm, SwiGLU MLP, residual) and resnet_f32,
resnet_bf16 (a ResNet basic block: conv3x3 + folded batchnorm + ReLU twice,
the residual added before the last ReLU). The op forms are those of
upstream's stablehlo-legalize-to-linalg on what jax.jit prints for the JAX
functions in the comments: one linalg.generic per elementwise op and per
broadcast, scalar constants as rank-0 tensors broadcast with a `() ` map,
dot_general as linalg.matmul / linalg.batch_matmul, reductions as
linalg.generic with a filled init, SAME padding as tensor.pad, and the
causal mask from iota generics, an i32 add, cmpi and select. In bf16, JAX
reduces in f32 (converts around each mean) and keeps everything else bf16.
"""
import os
import sys
import zlib

import numpy as np


class Emitter:
    """Builds a func.func body in the conversion's style."""

    def __init__(self, dtype):
        self.t = dtype  # "f32" or "bf16"
        self.lines, self.maps, self.n = [], {}, 0
        self.consts = []

    def fresh(self):
        self.n += 1
        return "%%v%d" % self.n

    def amap(self, text):
        if text not in self.maps:
            self.maps[text] = "#map%d" % len(self.maps)
        return self.maps[text]

    @staticmethod
    def ty(shape, t):
        return "tensor<%s%s>" % ("".join("%dx" % d for d in shape), t)

    def empty(self, shape, t=None):
        v = self.fresh()
        self.lines.append("%s = tensor.empty() : %s" % (v, self.ty(shape, t or self.t)))
        return v

    def const0(self, value, t=None):
        """A rank-0 dense constant (JAX's scalar)."""
        t = t or self.t
        v = "%%c%d" % len(self.consts)
        lit = ("%d" % value) if t == "i32" else ("%.9e" % value if np.isfinite(value)
                                                 else ("0xFF800000" if t == "f32" else "0xFF80"))
        self.consts.append("%s = arith.constant dense<%s> : tensor<%s>" % (v, lit, t))
        return v

    def scalar(self, value, t=None):
        t = t or self.t
        v = "%%s%d" % len(self.consts)
        self.consts.append("%s = arith.constant %s : %s" % (v, "%.9e" % value, t))
        return v

    def generic(self, ins, in_maps, out_shape, body, out_t=None, init=None,
                iters=None, out_map=None):
        """ins: [(value, shape, type)], in_maps: their results ("(d0, d1)");
        body(args) -> the body's lines, the last a yield. Loops: the
        output's rank unless `iters` is given (then `out_map` too)."""
        out_t = out_t or self.t
        rank = len(iters) if iters else len(out_shape)
        dims = ", ".join("d%d" % i for i in range(rank))
        out_map = out_map or "(%s)" % dims
        maps = [self.amap("affine_map<(%s) -> %s>" % (dims, m))
                for m in list(in_maps) + [out_map]]
        iters = iters or ["parallel"] * rank
        init = init or self.empty(out_shape, out_t)
        v = self.fresh()
        ins_txt = ""
        if ins:
            ins_txt = " ins(%s : %s)" % (", ".join(x for x, _, _ in ins),
                                         ", ".join(self.ty(s, t) for _, s, t in ins))
        self.lines.append(
            "%s = linalg.generic {indexing_maps = [%s], iterator_types = [%s]}%s "
            "outs(%s : %s) {" % (v, ", ".join(maps),
                                 ", ".join('"%s"' % i for i in iters), ins_txt,
                                 init, self.ty(out_shape, out_t)))
        args = ["%%in%d" % i for i in range(len(ins))]
        self.lines.append("^bb0(%s):" % ", ".join(
            ["%s: %s" % (a, t) for a, (_, _, t) in zip(args, ins)] +
            ["%%out: %s" % out_t]))
        self.lines += ["  " + l for l in body(args)]
        self.lines.append("} -> %s" % self.ty(out_shape, out_t))
        return v

    # Elementwise ops on same-shape tensors.
    def binary(self, op, a, b, shape, t=None):
        t = t or self.t
        idm = "(%s)" % ", ".join("d%d" % i for i in range(len(shape)))
        return self.generic([(a, shape, t), (b, shape, t)], [idm, idm], shape,
                            lambda x: ["%%r = %s %s, %s : %s" % (op, x[0], x[1], t),
                                       "linalg.yield %r : " + t], out_t=t)

    def unary(self, op, a, shape, t=None):
        t = t or self.t
        idm = "(%s)" % ", ".join("d%d" % i for i in range(len(shape)))
        return self.generic([(a, shape, t)], [idm], shape,
                            lambda x: ["%%r = %s %s : %s" % (op, x[0], t),
                                       "linalg.yield %r : " + t], out_t=t)

    def convert(self, a, shape, src, dst):
        idm = "(%s)" % ", ".join("d%d" % i for i in range(len(shape)))
        op = "arith.extf" if dst == "f32" else "arith.truncf"
        return self.generic([(a, shape, src)], [idm], shape,
                            lambda x: ["%%r = %s %s : %s to %s" % (op, x[0], src, dst),
                                       "linalg.yield %r : " + dst], out_t=dst)

    def bcast(self, a, in_shape, out_shape, in_map, t=None):
        t = t or self.t
        return self.generic([(a, in_shape, t)], [in_map], out_shape,
                            lambda x: ["linalg.yield %s : %s" % (x[0], t)], out_t=t)

    def splat(self, value, shape, t=None):
        """A scalar constant broadcast with the `()` map."""
        t = t or self.t
        return self.bcast(self.const0(value, t), [], shape, "()", t)

    def matmul(self, a, b, m, k, n):
        init = self.empty([m, n])
        f = self.fresh()
        self.lines.append("%s = linalg.fill ins(%s : %s) outs(%s : %s) -> %s" % (
            f, self.scalar(0.0), self.t, init, self.ty([m, n], self.t),
            self.ty([m, n], self.t)))
        v = self.fresh()
        self.lines.append("%s = linalg.matmul ins(%s, %s : %s, %s) outs(%s : %s) -> %s" % (
            v, a, b, self.ty([m, k], self.t), self.ty([k, n], self.t), f,
            self.ty([m, n], self.t), self.ty([m, n], self.t)))
        return v

    def row_reduce(self, op, x, rows, cols, identity, t):
        """Sum or max over the last axis, then reshaped to rows x 1."""
        init = self.empty([rows], t)
        f = self.fresh()
        self.lines.append("%s = linalg.fill ins(%s : %s) outs(%s : %s) -> %s" % (
            f, self.scalar(identity, t) if np.isfinite(identity) else self.ninf(t), t,
            init, self.ty([rows], t), self.ty([rows], t)))

        r = self.generic([(x, [rows, cols], t)], ["(d0, d1)"], [rows],
                         lambda a: ["%%r = %s %%out, %s : %s" % (op, a[0], t),
                                    "linalg.yield %r : " + t],
                         out_t=t, init=f, iters=["parallel", "reduction"],
                         out_map="(d0)")
        return self.bcast(r, [rows], [rows, 1], "(d0)", t)

    def ninf(self, t):
        v = "%%s%d" % len(self.consts)
        self.consts.append("%s = arith.constant %s : %s" % (
            v, "0xFF800000" if t == "f32" else "0xFF80", t))
        return v

    def col_bcast(self, col, rows, cols, t=None):
        """rows x 1 -> rows x cols, the (d0, 0) map."""
        return self.bcast(col, [rows, 1], [rows, cols], "(d0, 0)", t)

    def bias(self, b, shape, t=None):
        """A vector over the last axis broadcast in JAX's two steps."""
        t = t or self.t
        one = [1] * (len(shape) - 1) + [shape[-1]]
        r = len(shape)
        dims = ", ".join("d%d" % i for i in range(r))
        step = self.bcast(b, [shape[-1]], one, "(d%d)" % (r - 1), t)
        return self.bcast(step, one, shape, "(%s)" % ", ".join(
            ["0"] * (r - 1) + ["d%d" % (r - 1)]), t)

    def func(self, name, args, results):
        maps = "\n".join("%s = %s" % (v, k) for k, v in self.maps.items())
        sig = ", ".join("%%arg%d: %s" % (i, a) for i, a in enumerate(args))
        body = "\n".join("    " + l for l in self.consts + self.lines)
        res = ", ".join(r for r, _ in results)
        rty = ", ".join(t for _, t in results)
        return ('%s\nmodule @jit_%s attributes {mhlo.num_partitions = 1 : i32, '
                'mhlo.num_replicas = 1 : i32} {\n  func.func public @main(%s) -> (%s) {\n'
                '%s\n    return %s : %s\n  }\n}\n' % (
                    maps, name, sig, ", ".join("%s {jax.result_info = \"result\"}" % t
                                               for _, t in results),
                    body, res, rty))


def ew(e, op, a, b, shape):
    return e.binary(op, a, b, shape)


def resnet(t):
    """JAX: y = relu(conv(x, w1, SAME) * s1 + b1)
            y = conv(y, w2, SAME) * s2 + b2
            return relu(y + x)               x: NHWC 1x16x16x32, w: HWIO 3x3."""
    e = Emitter(t)
    N, H, W, C = 1, 16, 16, 32
    shape = [N, H, W, C]
    args = [e.ty(shape, t), e.ty([3, 3, C, C], t), e.ty([C], t), e.ty([C], t),
            e.ty([3, 3, C, C], t), e.ty([C], t), e.ty([C], t)]
    zero = e.scalar(0.0)

    def conv(x, w):
        p = e.fresh()
        e.lines += ["%s = tensor.pad %s low[0, 1, 1, 0] high[0, 1, 1, 0] {" % (p, x),
                    "^bb0(%i0: index, %i1: index, %i2: index, %i3: index):",
                    "  tensor.yield %s : %s" % (zero, t),
                    "} : %s to %s" % (e.ty(shape, t), e.ty([N, H + 2, W + 2, C], t))]
        init = e.empty(shape)
        f = e.fresh()
        e.lines.append("%s = linalg.fill ins(%s : %s) outs(%s : %s) -> %s" % (
            f, zero, t, init, e.ty(shape, t), e.ty(shape, t)))
        v = e.fresh()
        e.lines.append(
            "%s = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, "
            "strides = dense<1> : tensor<2xi64>} ins(%s, %s : %s, %s) outs(%s : %s) -> %s"
            % (v, p, w, e.ty([N, H + 2, W + 2, C], t), e.ty([3, 3, C, C], t), f,
               e.ty(shape, t), e.ty(shape, t)))
        return v

    def bn(y, s, b):
        y = ew(e, "arith.mulf", y, e.bias(s, shape), shape)
        return ew(e, "arith.addf", y, e.bias(b, shape), shape)

    def relu(y):
        return ew(e, "arith.maximumf", y, e.splat(0.0, shape), shape)

    y = relu(bn(conv("%arg0", "%arg1"), "%arg2", "%arg3"))
    y = bn(conv(y, "%arg4"), "%arg5", "%arg6")
    out = relu(ew(e, "arith.addf", y, "%arg0", shape))
    return e.func("resnet_block", args, [(out, e.ty(shape, t))])


def transformer(t):
    """JAX (x: 64x128, 4 heads of 32, SwiGLU hidden 256):
        rms = lambda x, g: x * lax.rsqrt(mean(x * x, -1, keepdims=True) + 1e-6) * g
        h = rms(x, g1)
        heads = lambda u: u.reshape(64, 4, 32).transpose(1, 0, 2)
        q, k, v = heads(h @ wq), heads(h @ wk), heads(h @ wv)
        s = einsum("hqd,hkd->hqk", q, k) * (1 / sqrt(32))
        s = where(tril(ones((64, 64), bool)), s, -inf)
        o = softmax(s, -1) @ v          (batch_matmul)
        x = x + o.transpose(1, 0, 2).reshape(64, 128) @ wo
        h = rms(x, g2)
        return x + (silu(h @ w1) * (h @ w3)) @ w2."""
    e = Emitter(t)
    S, D, NH, DH, F = 64, 128, 4, 32, 256
    X = [S, D]
    args = [e.ty(X, t), e.ty([D], t)] + [e.ty([D, D], t)] * 4 + \
        [e.ty([D], t), e.ty([D, F], t), e.ty([D, F], t), e.ty([F, D], t)]

    def rms(x, g):
        sq = ew(e, "arith.mulf", x, x, X)
        red = sq if t == "f32" else e.convert(sq, X, t, "f32")
        m = e.row_reduce("arith.addf", red, S, D, 0.0, "f32")
        m = e.binary("arith.divf", m, e.splat(float(D), [S, 1], "f32"), [S, 1], "f32")
        if t != "f32":
            m = e.convert(m, [S, 1], "f32", t)
        m = ew(e, "arith.addf", m, e.splat(1e-6, [S, 1]), [S, 1])
        r = e.unary("math.rsqrt", m, [S, 1])
        y = ew(e, "arith.mulf", x, e.col_bcast(r, S, D), X)
        return ew(e, "arith.mulf", y, e.bias(g, X), X)

    def heads(u):
        ex = e.fresh()
        e.lines.append("%s = tensor.expand_shape %s [[0], [1, 2]] output_shape "
                       "[%d, %d, %d] : %s into %s" % (
                           ex, u, S, NH, DH, e.ty(X, t), e.ty([S, NH, DH], t)))
        return e.bcast(ex, [S, NH, DH], [NH, S, DH], "(d1, d0, d2)")

    h = rms("%arg0", "%arg1")
    q, k, v = (heads(e.matmul(h, w, S, D, D)) for w in ("%arg2", "%arg3", "%arg4"))
    # q k^T per head: the conversion's generic for a dot_general contracting
    # the last dimensions with a batch dimension.
    init = e.empty([NH, S, S])
    f = e.fresh()
    e.lines.append("%s = linalg.fill ins(%s : %s) outs(%s : %s) -> %s" % (
        f, e.scalar(0.0), t, init, e.ty([NH, S, S], t), e.ty([NH, S, S], t)))
    s = e.generic([(q, [NH, S, DH], t), (k, [NH, S, DH], t)],
                  ["(d0, d1, d3)", "(d0, d2, d3)"], [NH, S, S],
                  lambda a: ["%%p = arith.mulf %s, %s : %s" % (a[0], a[1], t),
                             "%%r = arith.addf %%out, %%p : %s" % t,
                             "linalg.yield %r : " + t],
                  init=f, iters=["parallel"] * 3 + ["reduction"],
                  out_map="(d0, d1, d2)")
    S3 = [NH, S, S]
    s = ew(e, "arith.mulf", s, e.splat(1 / np.sqrt(DH), S3), S3)
    # The causal mask: iota rows + 0 >= iota columns, broadcast to the heads.
    rows = e.generic([], [], [S, S], lambda a: [
        "%i = linalg.index 0 : index", "%c = arith.index_cast %i : index to i32",
        "linalg.yield %c : i32"], out_t="i32")
    zi = e.bcast(e.const0(0, "i32"), [], [S, S], "()", "i32")
    rows = e.binary("arith.addi", rows, zi, [S, S], "i32")
    cols = e.generic([], [], [S, S], lambda a: [
        "%i = linalg.index 1 : index", "%c = arith.index_cast %i : index to i32",
        "linalg.yield %c : i32"], out_t="i32")
    mask = e.generic([(rows, [S, S], "i32"), (cols, [S, S], "i32")],
                     ["(d0, d1)", "(d0, d1)"], [S, S],
                     lambda a: ["%%c = arith.cmpi sge, %s, %s : i32" % (a[0], a[1]),
                                "linalg.yield %c : i1"], out_t="i1")
    mask = e.bcast(mask, [S, S], S3, "(d1, d2)", "i1")
    ninf = e.bcast(e.const0(-np.inf), [], S3, "()")
    s = e.generic([(mask, S3, "i1"), (s, S3, t), (ninf, S3, t)],
                  ["(d0, d1, d2)"] * 3, S3,
                  lambda a: ["%%r = arith.select %s, %s, %s : %s" % (a[0], a[1], a[2], t),
                             "linalg.yield %r : " + t])
    # softmax over the last axis (per head): max, exp(s - max), / sum.
    def reduce3(op, x, identity):
        init = e.empty([NH, S])
        f = e.fresh()
        e.lines.append("%s = linalg.fill ins(%s : %s) outs(%s : %s) -> %s" % (
            f, e.scalar(identity) if np.isfinite(identity) else e.ninf(t), t, init,
            e.ty([NH, S], t), e.ty([NH, S], t)))
        r = e.generic([(x, S3, t)], ["(d0, d1, d2)"], [NH, S],
                      lambda a: ["%%r = %s %%out, %s : %s" % (op, a[0], t),
                                 "linalg.yield %r : " + t],
                      init=f, iters=["parallel", "parallel", "reduction"],
                      out_map="(d0, d1)")
        r = e.bcast(r, [NH, S], [NH, S, 1], "(d0, d1)")
        return e.bcast(r, [NH, S, 1], S3, "(d0, d1, 0)")
    m = reduce3("arith.maximumf", s, -np.inf)
    p = e.unary("math.exp", ew(e, "arith.subf", s, m, S3), S3)
    p = ew(e, "arith.divf", p, reduce3("arith.addf", p, 0.0), S3)
    init = e.empty([NH, S, DH])
    f = e.fresh()
    e.lines.append("%s = linalg.fill ins(%s : %s) outs(%s : %s) -> %s" % (
        f, e.scalar(0.0), t, init, e.ty([NH, S, DH], t), e.ty([NH, S, DH], t)))
    o = e.fresh()
    e.lines.append("%s = linalg.batch_matmul ins(%s, %s : %s, %s) outs(%s : %s) -> %s" % (
        o, p, v, e.ty(S3, t), e.ty([NH, S, DH], t), f, e.ty([NH, S, DH], t),
        e.ty([NH, S, DH], t)))
    o = e.bcast(o, [NH, S, DH], [S, NH, DH], "(d1, d0, d2)")
    col = e.fresh()
    e.lines.append("%s = tensor.collapse_shape %s [[0], [1, 2]] : %s into %s" % (
        col, o, e.ty([S, NH, DH], t), e.ty(X, t)))
    x = ew(e, "arith.addf", "%arg0", e.matmul(col, "%arg5", S, D, D), X)
    h = rms(x, "%arg6")
    a = e.matmul(h, "%arg7", S, D, F)
    one = e.scalar(1.0)
    sig = e.generic([(a, [S, F], t)], ["(d0, d1)"], [S, F], lambda z: [
        "%%n = arith.negf %s : %s" % (z[0], t), "%%x = math.exp %%n : %s" % t,
        "%%d = arith.addf %%x, %s : %s" % (one, t),
        "%%r = arith.divf %s, %%d : %s" % (one, t), "linalg.yield %r : " + t])
    silu = ew(e, "arith.mulf", a, sig, [S, F])
    g = ew(e, "arith.mulf", silu, e.matmul(h, "%arg8", S, D, F), [S, F])
    out = ew(e, "arith.addf", x, e.matmul(g, "%arg9", S, F, D), X)
    return e.func("transformer_block", args, [(out, e.ty(X, t))])


# NumPy: inputs and float64 references.
def bf16_round(a):
    """float32 -> nearest bf16 (ties to even), kept as float32."""
    b = np.asarray(a, np.float32).view(np.uint32)
    b = ((b + 0x7FFF + ((b >> 16) & 1)) & 0xFFFF0000).astype(np.uint32)
    return b.view(np.float32)


def block_inputs(name):
    r = np.random.default_rng(zlib.crc32(name.encode()))
    n = lambda *s, scale=1.0: (r.standard_normal(s) * scale).astype(np.float32)
    if name.startswith("resnet"):
        ins = [n(1, 16, 16, 32), n(3, 3, 32, 32, scale=0.06), 1 + n(32, scale=0.1),
               n(32, scale=0.1), n(3, 3, 32, 32, scale=0.06), 1 + n(32, scale=0.1),
               n(32, scale=0.1)]
    else:
        ins = [n(64, 128), 1 + n(128, scale=0.1)] + \
            [n(128, 128, scale=1 / 11.3) for _ in range(4)] + \
            [1 + n(128, scale=0.1), n(128, 256, scale=1 / 11.3),
             n(128, 256, scale=1 / 11.3), n(256, 128, scale=1 / 16)]
    if name.endswith("bf16"):
        ins = [bf16_round(a) for a in ins]
    return ins


def conv_same(x, w):
    xp = np.pad(x, ((0, 0), (1, 1), (1, 1), (0, 0)))
    out = np.zeros(x.shape[:3] + (w.shape[3],))
    for i in range(3):
        for j in range(3):
            out += np.einsum("nhwc,cf->nhwf", xp[:, i:i + x.shape[1], j:j + x.shape[2]],
                             w[i, j])
    return out


def block_reference(name, a):
    a = [x.astype(np.float64) for x in a]
    if name.startswith("resnet"):
        x, w1, s1, b1, w2, s2, b2 = a
        y = np.maximum(conv_same(x, w1) * s1 + b1, 0)
        return np.maximum(conv_same(y, w2) * s2 + b2 + x, 0)
    x, g1, wq, wk, wv, wo, g2, w1, w3, w2 = a
    rms = lambda u, g: u / np.sqrt((u * u).mean(-1, keepdims=True) + 1e-6) * g
    heads = lambda u: u.reshape(64, 4, 32).transpose(1, 0, 2)
    h = rms(x, g1)
    q, k, v = heads(h @ wq), heads(h @ wk), heads(h @ wv)
    s = np.einsum("hqd,hkd->hqk", q, k) / np.sqrt(32)
    s = np.where(np.tril(np.ones((64, 64), bool)), s, -np.inf)
    p = np.exp(s - s.max(-1, keepdims=True))
    p /= p.sum(-1, keepdims=True)
    x = x + (p @ v).transpose(1, 0, 2).reshape(64, 128) @ wo
    h = rms(x, g2)
    a1 = h @ w1
    return x + ((a1 / (1 + np.exp(-a1))) * (h @ w3)) @ w2


BLOCKS = {"transformer_f32": lambda: transformer("f32"),
          "transformer_bf16": lambda: transformer("bf16"),
          "resnet_f32": lambda: resnet("f32"),
          "resnet_bf16": lambda: resnet("bf16")}


def main(argv):
    if len(argv) == 2:
        for name, make in BLOCKS.items():
            with open(os.path.join(argv[1], name + ".mlir"), "w") as f:
                f.write("// Generated by examples/blocks/make_blocks.py: %s\n" % name)
                f.write(make())
        return 0
    mode, ok = argv[1], True
    groups = [[]]
    for a in argv[2:]:
        if a == "+":
            groups.append([])
        else:
            groups[-1].append(a)
    for group in groups:
        ok &= run_group(mode, group)
    return 0 if ok else 1


def run_group(mode, args):
    """`inputs BLOCK DIR` or `check BLOCK IN OUT`; False on a mismatch."""
    name = args[0]
    ins = block_inputs(name)
    if mode == "inputs":
        os.makedirs(args[1], exist_ok=True)
        for i, x in enumerate(ins):
            np.save(os.path.join(args[1], "arg%d.npy" % i), x)
        return True
    given = [np.load(os.path.join(args[1], "arg%d.npy" % i)) for i in range(len(ins))]
    want = block_reference(name, given)
    got = np.load(os.path.join(args[2], "arg%d.npy" % len(ins)))
    tol = 2e-2 if name.endswith("bf16") else 1e-4
    rel = float(np.abs(got - want).max() / np.abs(want).max())
    ok = got.shape == want.shape and rel <= tol
    print("%s: max error / max |want| %.2e (tolerance %g): %s" % (
        name, rel, tol, "ok" if ok else "MISMATCH"))
    return ok


if __name__ == "__main__":
    sys.exit(main(sys.argv))
