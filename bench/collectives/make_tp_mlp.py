#!/usr/bin/env python3
"""Writes a Llama-style decoder MLP block, tensor-parallel over C chips
(Megatron-LM's MLP sharding: Shoeybi et al., 2019, §3), as an accel MLIR
program:

    h   = SiLU(x Wg) * (x Wu)      x: T x D, Wg, Wu: D x F   column-parallel
    out = h Wd                      Wd: F x D                 row-parallel

Chip c takes the 128-column tiles [c FT / C, (c + 1) FT / C) of F (FT =
F / 128; the split is uneven when C does not divide FT): it computes its
columns of h from x and its columns of Wg and Wu, then its partial product
h_c Wd_c over all D output columns, and one accel.all_reduce sums the
partials on every chip; each chip stores the sum to `out`. Every chip reads
the whole weights from its own HBM (give them with `--input`, the same
.npy on every chip), as a system that replicates its weights does.

With --chips 1 the program is the single-chip block of
examples/llama2_mlp.mlir (the same tiles in the same order, and the same
results to the bit); with C chips the down projection's sum is split C
ways (f32 addition is not associative, so the results agree to about
1e-6 relative, not to the bit).

With --exact the down projection's sum is not split: it runs in the
single chip's order, as one chain of accumulating matmuls over F's tiles
that passes from chip to chip. For each 128-column tile of D, chip c
takes the running sum from chip c - 1 (chip 0 starts from zeros), adds its
tiles of F with accumulating matmuls, and sends it to chip c + 1
(accel.send / accel.recv); the chips work on different column tiles at
once, a pipeline of C stages over D's tiles. The last chip then holds the
whole output and sends it to every chip. The output is the single-chip
block's to the bit, at the cost of the pipeline's fill (C - 1 of D / 128
steps) and the broadcast.

    make_tp_mlp.py --chips 8 [--tokens 8] [--d-model 4096] [--d-ff 11008]
                   [--exact | --algorithm NAME]
"""
import argparse


def exact_down(w, a, m, sub, t, T, D, C, DT, local):
    """The down projection as one chain of accumulating matmuls in the
    single chip's order, passed from chip to chip (see --exact)."""
    slot = sub(T, 128, D, "#vmem")
    w("  // Down projection in the single chip's order: per 128 columns of D,")
    w("  // the running sum comes from chip me - 1 (chip 0 starts from "
      "zeros),")
    w("  // takes this chip's tiles of F and goes to chip me + 1; the last "
      "chip")
    w("  // keeps it. Counts of 0 or 1 (loop trip counts) say which chip does")
    w("  // what: first = 1 - min(me, 1), last = me / (C - 1).")
    w("  %%recv = accel.alloc : %s" % m(T, D, "#vmem"))
    if C > 1:
        w("  %%cm = arith.constant %d : index" % (C - 1))
        w("  %%cc = arith.constant %d : index" % C)
        w("  %mcm = arith.addi %me, %cm : index")
        w("  %notfirst = arith.divui %mcm, %cc : index")
        w("  %first = arith.subi %c1, %notfirst : index")
        w("  %last = arith.divui %me, %cm : index")
        w("  %notlast = arith.subi %c1, %last : index")
        w("  %next = arith.addi %me, %c1 : index")
    else:
        w("  %first = arith.addi %c0, %c1 : index")
        w("  %notfirst = arith.subi %c1, %c1 : index")
        w("  %last = arith.addi %c0, %c1 : index")
        w("  %notlast = arith.subi %c1, %c1 : index")
        w("  %next = arith.addi %me, %c0 : index")
    w("  scf.for %%n = %%c0 to %%c%d step %%c1 {" % DT)
    w("    %n0 = arith.muli %n, %c128 : index")
    w("    %%rs = memref.subview %%recv[0, %%n0] [%d, 128] [1, 1] : %s to %s"
      % (T, m(T, D, "#vmem"), slot))
    w("    scf.for %i = %c0 to %first step %c1 {")
    w("      accel.vfill %%acco, 0.0 : %s" % t)
    w("    }")
    w("    scf.for %i = %c0 to %notfirst step %c1 {")
    w("      accel.recv %%rs tag 1 : %s" % slot)
    w("      %%tr = accel.dma_start %%rs, %%acco : %s, %s" % (slot, t))
    w("      accel.dma_wait %tr")
    w("    }")
    w("    scf.for %k = %lo to %hi step %c1 {")
    w("      %k0 = arith.muli %k, %c128 : index")
    w("      %%sd = memref.subview %%wd[%%k0, %%n0] [128, 128] [1, 1] : %s to %s"
      % (m(a.d_ff, D, "#hbm"), sub(128, 128, D, "#hbm")))
    w("      %%td = accel.dma_start %%sd, %%bd : %s, %s"
      % (sub(128, 128, D, "#hbm"), m(128, 128, "#vmem")))
    w("      accel.dma_wait %td")
    w("      %kl = arith.subi %k, %lo : index")
    w("      %hl = arith.muli %kl, %c128 : index")
    w("      %%hs = memref.subview %%h[0, %%hl] [%d, 128] [1, 1] : %s to %s"
      % (T, m(T, local * 128, "#vmem"), sub(T, 128, local * 128, "#vmem")))
    w("      accel.matmul %%hs, %%bd, %%acco {accumulate} : %s, %s, %s"
      % (sub(T, 128, local * 128, "#vmem"), m(128, 128, "#vmem"), t))
    w("    }")
    w("    scf.for %i = %c0 to %notlast step %c1 {")
    w("      accel.send %%acco, %%rs to %%next tag 1 : %s, %s" % (t, slot))
    w("    }")
    w("    scf.for %i = %c0 to %last step %c1 {")
    w("      %%ss = memref.subview %%sum[0, %%n0] [%d, 128] [1, 1] : %s to %s"
      % (T, m(T, D, "#vmem"), slot))
    w("      %%tk = accel.dma_start %%acco, %%ss : %s, %s" % (t, slot))
    w("      accel.dma_wait %tk")
    w("    }")
    w("  }")
    if C > 1:
        w("  // The last chip sends the output to every other chip.")
        w("  %nsend = arith.muli %last, %cm : index")
        w("  scf.for %p = %c0 to %nsend step %c1 {")
        w("    accel.send %%sum, %%sum to %%p tag 2 : %s, %s"
          % (m(T, D, "#vmem"), m(T, D, "#vmem")))
        w("  }")
        w("  scf.for %i = %c0 to %notlast step %c1 {")
        w("    accel.recv %%sum tag 2 : %s" % m(T, D, "#vmem"))
        w("  }")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--chips", type=int, default=8)
    ap.add_argument("--tokens", type=int, default=8)
    ap.add_argument("--d-model", type=int, default=4096)
    ap.add_argument("--d-ff", type=int, default=11008)
    ap.add_argument("--algorithm", default="",
                    help="the all-reduce's algorithm (default: the pass "
                         "chooses)")
    ap.add_argument("--exact", action="store_true",
                    help="the down projection summed in the single chip's "
                         "order, chip to chip (results to the bit)")
    a = ap.parse_args()
    if a.exact and a.algorithm:
        ap.error("--exact has no all-reduce to give an algorithm")
    C, T, D, F = a.chips, a.tokens, a.d_model, a.d_ff
    if D % 128 or F % 128 or C < 1 or T < 1:
        ap.error("d-model and d-ff must be multiples of 128")
    DT, FT = D // 128, F // 128
    if C > FT:
        ap.error("more chips than 128-column tiles of d-ff")
    local = -(-FT // C)  # the most tiles a chip holds
    hbm, vmem = "#hbm", "#vmem"
    m = lambda r, c, s: "memref<%dx%dxf32, %s>" % (r, c, s)
    sub = lambda r, c, stride, s: (
        "memref<%dx%dxf32, strided<[%d, 1], offset: ?>, %s>" % (r, c, stride,
                                                               s))
    out = []
    w = out.append
    w("// A Llama-style MLP block (T=%d, D=%d, F=%d), tensor-parallel over %d "
      "chip%s:" % (T, D, F, C, "" if C == 1 else "s"))
    if a.exact:
        w("// column-parallel gate and up, row-parallel down summed in the "
          "single chip's")
        w("// order, chip to chip (the same results to the bit).")
    else:
        w("// column-parallel gate and up, row-parallel down, one "
          "all-reduce.")
    w("// Generated by bench/collectives/make_tp_mlp.py --chips %d --tokens %d "
      "--d-model %d --d-ff %d%s." % (C, T, D, F,
                                     " --algorithm " + a.algorithm
                                     if a.algorithm else
                                     " --exact" if a.exact else ""))
    w("//")
    w("//   accel-replay run THIS.mlir -o out --input 0=x.npy --input 1=wg.npy "
      "...")
    w("//")
    w("// Without --input, each chip's HBM arguments start from its own seed "
      "(the")
    w("// weights then differ between chips; the cycles do not depend on the "
      "values).")
    w("")
    w("#hbm = #accel.space<hbm>")
    w("#vmem = #accel.space<vmem>")
    w("")
    w("module attributes {accel.chips = %d : i64} {" % C)
    w("func.func @main(%%x: %s," % m(T, D, hbm))
    w("                %%wg: %s," % m(D, F, hbm))
    w("                %%wu: %s," % m(D, F, hbm))
    w("                %%wd: %s," % m(F, D, hbm))
    w("                %%out: %s {accel.init = \"zero\"}) {" % m(T, D, hbm))
    for v in sorted({0, 1, 128, DT, FT, C}):
        w("  %%c%d = arith.constant %d : index" % (v, v))
    w("  %me = accel.chip_id")
    w("  // This chip's tiles of F: [lo, hi).")
    w("  %%mft = arith.muli %%me, %%c%d : index" % FT)
    w("  %%lo = arith.divui %%mft, %%c%d : index" % C)
    w("  %me1 = arith.addi %me, %c1 : index")
    w("  %%mft1 = arith.muli %%me1, %%c%d : index" % FT)
    w("  %%hi = arith.divui %%mft1, %%c%d : index" % C)
    w("  %%xv = accel.alloc : %s" % m(T, D, vmem))
    w("  %%h = accel.alloc : %s" % m(T, local * 128, vmem))
    w("  %%part = accel.alloc : %s" % m(T, D, vmem))
    w("  %%sum = accel.alloc : %s" % m(T, D, vmem))
    for b in ("bg", "bu", "bd"):
        w("  %%%s = accel.alloc : %s" % (b, m(128, 128, vmem)))
    for b in ("accg", "accu", "acco", "tmp", "zeros", "ones"):
        w("  %%%s = accel.alloc : %s" % (b, m(T, 128, vmem)))
    t = m(T, 128, vmem)
    w("  accel.vfill %%zeros, 0.0 : %s" % t)
    w("  accel.vfill %%ones, 1.0 : %s" % t)
    w("")
    w("  // Gate and up projections: this chip's columns of h.")
    w("  scf.for %n = %lo to %hi step %c1 {")
    w("    %%tx = accel.dma_start %%x, %%xv : %s, %s" % (m(T, D, hbm),
                                                       m(T, D, vmem)))
    w("    accel.dma_wait %tx")
    w("    accel.vfill %%accg, 0.0 : %s" % t)
    w("    accel.vfill %%accu, 0.0 : %s" % t)
    w("    %n0 = arith.muli %n, %c128 : index")
    w("    scf.for %%k = %%c0 to %%c%d step %%c1 {" % DT)
    w("      %k0 = arith.muli %k, %c128 : index")
    w("      %%xs = memref.subview %%xv[0, %%k0] [%d, 128] [1, 1] : %s to %s"
      % (T, m(T, D, vmem), sub(T, 128, D, vmem)))
    for wt, buf, acc in (("wg", "bg", "accg"), ("wu", "bu", "accu")):
        w("      %%s%s = memref.subview %%%s[%%k0, %%n0] [128, 128] [1, 1] : "
          "%s to %s" % (wt, wt, m(D, F, hbm), sub(128, 128, F, hbm)))
        w("      %%t%s = accel.dma_start %%s%s, %%%s : %s, %s"
          % (wt, wt, buf, sub(128, 128, F, hbm), m(128, 128, vmem)))
        w("      accel.dma_wait %%t%s" % wt)
        w("      accel.matmul %%xs, %%%s, %%%s {accumulate} : %s, %s, %s"
          % (buf, acc, sub(T, 128, D, vmem), m(128, 128, vmem), t))
    w("    }")
    w("    // h[:, n - lo] = SiLU(g) * u")
    w("    accel.vsub %%zeros, %%accg, %%tmp : %s, %s, %s" % (t, t, t))
    w("    accel.vexp %%tmp, %%tmp : %s, %s" % (t, t))
    w("    accel.vadd %%tmp, %%ones, %%tmp : %s, %s, %s" % (t, t, t))
    w("    accel.vdiv %%accg, %%tmp, %%tmp : %s, %s, %s" % (t, t, t))
    w("    %nl = arith.subi %n, %lo : index")
    w("    %hl = arith.muli %nl, %c128 : index")
    w("    %%hs = memref.subview %%h[0, %%hl] [%d, 128] [1, 1] : %s to %s"
      % (T, m(T, local * 128, vmem), sub(T, 128, local * 128, vmem)))
    w("    accel.vmul %%tmp, %%accu, %%hs : %s, %s, %s"
      % (t, t, sub(T, 128, local * 128, vmem)))
    w("  }")
    w("")
    if a.exact:
        exact_down(w, a, m, sub, t, T, D, C, DT, local)
        w("  %%to = accel.dma_start %%sum, %%out : %s, %s"
          % (m(T, D, vmem), m(T, D, hbm)))
        w("  accel.dma_wait %to")
    else:
        w("  // Down projection: this chip's partial product over all of D.")
        w("  scf.for %%n = %%c0 to %%c%d step %%c1 {" % DT)
        w("    accel.vfill %%acco, 0.0 : %s" % t)
        w("    %n0 = arith.muli %n, %c128 : index")
        w("    scf.for %k = %lo to %hi step %c1 {")
        w("      %k0 = arith.muli %k, %c128 : index")
        w("      %%sd = memref.subview %%wd[%%k0, %%n0] [128, 128] [1, 1] : %s to %s"
          % (m(F, D, hbm), sub(128, 128, D, hbm)))
        w("      %%td = accel.dma_start %%sd, %%bd : %s, %s"
          % (sub(128, 128, D, hbm), m(128, 128, vmem)))
        w("      accel.dma_wait %td")
        w("      %kl = arith.subi %k, %lo : index")
        w("      %hl = arith.muli %kl, %c128 : index")
        w("      %%hs = memref.subview %%h[0, %%hl] [%d, 128] [1, 1] : %s to %s"
          % (T, m(T, local * 128, vmem), sub(T, 128, local * 128, vmem)))
        w("      accel.matmul %%hs, %%bd, %%acco {accumulate} : %s, %s, %s"
          % (sub(T, 128, local * 128, vmem), m(128, 128, vmem), t))
        w("    }")
        w("    %%ps = memref.subview %%part[0, %%n0] [%d, 128] [1, 1] : %s to %s"
          % (T, m(T, D, vmem), sub(T, 128, D, vmem)))
        w("    %%tp = accel.dma_start %%acco, %%ps : %s, %s"
          % (t, sub(T, 128, D, vmem)))
        w("    accel.dma_wait %tp")
        w("  }")
        w("")
        w("  // One all-reduce of the partial products, then every chip stores "
          "the sum.")
        attr = ' {algorithm = "%s"}' % a.algorithm if a.algorithm else ""
        w("  accel.all_reduce %%part, %%sum%s : %s, %s"
          % (attr, m(T, D, vmem), m(T, D, vmem)))
        w("  %%to = accel.dma_start %%sum, %%out : %s, %s"
          % (m(T, D, vmem), m(T, D, hbm)))
        w("  accel.dma_wait %to")
    w("  return")
    w("}")
    w("}")
    print("\n".join(out))


if __name__ == "__main__":
    main()
