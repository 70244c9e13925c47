//===- Statements.cpp - accel-gen's first statement kinds -----------------===//
//
// Elementwise tiles, matmul, gather, HBM scratch and row softmax: the kinds
// drawn from each statement's own stream (docs/testing.md). The validity
// rules they keep are in ProgramGenerator.cpp's header.
//
//===----------------------------------------------------------------------===//

#include "Emitter.h"

#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace accel;
using namespace accel::gen::detail;

namespace {
/// The drawn shape of an elementwise statement (emitElementwise): `tr` x
/// `tc` tiles over `tripR` row tiles (`lr`) and/or `tripC` column bands
/// (`lc`).
struct ElementwiseShape {
  int64_t tr, tc;
  bool twoInputs, reuse, secondOut, broadcast;
  unsigned allocLevel; ///< 0 top, 1 outer loop, 2 inner loop
  bool waitEarly, storeWaitLate;
  unsigned op1, op2;
  bool rowLoop, colLoop;
  int64_t tripR, tripC;
  TileLoop lr, lc;
};

/// The buffers of an elementwise statement: the HBM inputs and outputs,
/// and the VMEM tiles (allocated by allocElementwiseTiles).
struct ElementwiseBuffers {
  Value a, bIn, o1, o2;
  Value va, vb, vt, vo, vcol;
};
} // namespace

/// Draws an elementwise statement's shape from `r`, its tiles shrunk to
/// fit `budget.vmem`; std::nullopt when they cannot.
static std::optional<ElementwiseShape> drawElementwise(Emitter &e, Rng &r,
                                                       Budget budget) {
  ElementwiseShape s;
  s.tr = r.pick<int64_t>({1, 2, 4, 8, 16});
  s.tc = r.pick<int64_t>({8, 16, 32, 64, 128});
  s.twoInputs = r.chance(60);
  s.reuse = s.twoInputs && r.chance(35); // one VMEM buffer, two tensors
  s.secondOut = r.chance(40);
  s.broadcast = r.chance(25); // y is a row-sum column
  s.allocLevel = unsigned(r.range(0, 2));
  s.waitEarly = r.chance(50);
  s.storeWaitLate = r.chance(50);
  s.op1 = unsigned(r.next());
  s.op2 = unsigned(r.next());
  s.rowLoop = r.chance(70);
  s.colLoop = r.chance(50);
  if (!s.rowLoop && !s.colLoop)
    s.rowLoop = true;
  int64_t trips = budget.trips;
  s.tripC = s.colLoop ? drawTrip(r, trips) : 1;
  s.tripR = s.rowLoop ? drawTrip(r, trips) : 1;
  s.lr = drawTileLoop(r, s.tripR, s.tr);
  s.lc = drawTileLoop(r, s.tripC, s.tc);
  if (!e.allocInLoops)
    s.allocLevel = 0;
  int nTiles = 3 + (s.twoInputs && !s.reuse);
  if (!shrinkToFit(
          {{&s.tc, 8}, {&s.tr, 1}},
          [&] {
            return nTiles * e.vmemBytes(s.tr * s.tc) +
                   (s.broadcast ? e.vmemBytes(s.tr) : 0);
          },
          budget.vmem))
    return std::nullopt;
  s.lr.stride = s.tr;
  s.lc.stride = s.tc;
  return s;
}

/// Allocates the VMEM tiles of an elementwise statement into `v`.
static void allocElementwiseTiles(Emitter &e, const ElementwiseShape &s,
                                  ElementwiseBuffers &v) {
  int64_t tr = s.tr, tc = s.tc;
  v.va = e.alloc({tr, tc});
  v.vb = s.twoInputs && !s.reuse ? e.alloc({tr, tc}) : Value();
  v.vt = e.alloc({tr, tc});
  v.vo = e.alloc({tr, tc});
  v.vcol = s.broadcast ? e.alloc({tr, 1}) : Value();
}

/// The tile at (`row`, `col`) of an elementwise statement: loads (WAITed
/// early or just before the use), a unary and a binary op (on a row-sum
/// column when broadcast), one or two stores.
static void emitElementwiseTile(Emitter &e, const ElementwiseShape &s,
                                ElementwiseBuffers &v, Value row, Value col) {
  int64_t tr = s.tr, tc = s.tc;
  if (s.allocLevel == 2 || (s.allocLevel == 1 && !(s.rowLoop && s.colLoop)))
    allocElementwiseTiles(e, s, v);
  Value ta = e.dma(e.tile(v.a, row, col, tr, tc), v.va);
  Value tb;
  if (s.waitEarly)
    e.wait(ta);
  if (v.vb) {
    tb = e.dma(e.tile(v.bIn, row, col, tr, tc), v.vb);
    if (s.waitEarly)
      e.wait(tb);
  }
  if (!s.waitEarly)
    e.wait(ta);
  e.unary(s.op1, v.va, v.vt);
  Value y;
  if (s.reuse) {
    // The same VMEM buffer now holds the second tensor.
    e.copy(e.tile(v.bIn, row, col, tr, tc), v.va);
    y = v.va;
  } else if (v.vb) {
    if (!s.waitEarly)
      e.wait(tb);
    y = v.vb;
  } else {
    y = v.va;
  }
  if (s.broadcast) {
    VReduceSumOp::create(e.b, e.loc, y, v.vcol);
    e.binary(s.op2, v.vt, v.vcol, v.vo);
  } else {
    e.binary(s.op2, v.vt, y, v.vo);
  }
  Value t1 = e.dma(v.vo, e.tile(v.o1, row, col, tr, tc));
  if (!s.storeWaitLate)
    e.wait(t1);
  Value t2;
  if (v.o2)
    t2 = e.dma(v.vt, e.tile(v.o2, row, col, tr, tc));
  if (s.storeWaitLate)
    e.wait(t1);
  if (t2)
    e.wait(t2);
}

/// Tiled elementwise work over row tiles and/or column bands of a matrix,
/// one or two inputs, an optional second output, buffer reuse, allocations
/// inside the loops, WAITs right after the ISSUE or just before the use.
std::string accel::gen::detail::emitElementwise(Emitter &e, Rng &r,
                                                Budget budget) {
  std::optional<ElementwiseShape> shape = drawElementwise(e, r, budget);
  if (!shape)
    return "";
  const ElementwiseShape &s = *shape;
  int64_t rows = s.tr * (s.rowLoop ? s.lr.span() : 1);
  int64_t cols = s.tc * (s.colLoop ? s.lc.span() : 1);
  ElementwiseBuffers v;
  v.a = e.hbm({rows, cols});
  v.bIn = s.twoInputs ? e.hbm({rows, cols}) : Value();
  v.o1 = e.out({rows, cols});
  v.o2 = s.secondOut ? e.out({rows, cols}) : Value();
  if (s.allocLevel == 0)
    allocElementwiseTiles(e, s, v);
  auto inner = [&](Value row) {
    if (s.allocLevel == 1 && s.rowLoop && s.colLoop)
      allocElementwiseTiles(e, s, v); // in the outer loop, used in the inner
    if (s.colLoop)
      e.tileLoop(s.lc,
                 [&](Value col) { emitElementwiseTile(e, s, v, row, col); });
    else
      emitElementwiseTile(e, s, v, row, Value());
  };
  if (s.rowLoop)
    e.tileLoop(s.lr, inner);
  else
    inner(Value());
  return llvm::formatv("elementwise {0}x{1} tiles, {2}x{3} trips{4}{5}{6}",
                       s.tr, s.tc, s.tripR, s.tripC,
                       s.reuse ? ", reused buffer" : "",
                       s.broadcast ? ", broadcast" : "",
                       s.allocLevel ? ", alloc in loop" : "")
      .str();
}

namespace {
/// The drawn shape of a matmul statement (emitMatmul): `tm` x `tk` tiles
/// of X, `tk` x `n` of W, over `tripK` k tiles (`lk`), `tripM` row tiles
/// (`lm`) and `tripB` batches.
struct MatmulShape {
  int64_t tm, tk, n;
  int64_t tripK, tripM, tripB;
  bool peel, resident, accInLoop;
  unsigned epilogue; ///< 0 none, 1 relu, 2 square
  bool waitEarly;
  TileLoop lk, lm;
  int64_t kTiles; ///< k tiles W holds
};

/// The buffers of a matmul statement; the accumulator (and relu's zeros)
/// are allocated by allocMatmulAcc.
struct MatmulBuffers {
  Value x, w, o;
  Value vx, vw, vacc, vzero;
};
} // namespace

/// Draws a matmul statement's shape from `r`, its tiles shrunk to fit
/// `budget.vmem` (W streamed when resident does not fit); std::nullopt when
/// they cannot.
static std::optional<MatmulShape> drawMatmul(Emitter &e, Rng &r,
                                             Budget budget) {
  MatmulShape s;
  s.tm = r.pick<int64_t>({1, 2, 4, 8, 16});
  s.tk = r.pick<int64_t>({8, 16, 32, 64});
  s.n = r.pick<int64_t>({8, 16, 32, 64, 128});
  int64_t trips = budget.trips;
  s.tripK = drawTrip(r, trips);
  s.tripM = r.chance(60) ? drawTrip(r, trips) : 1;
  s.tripB = s.tripM > 1 && r.chance(40) ? r.range(2, 3) : 1;
  s.peel = s.tripK > 1 && r.chance(50);
  s.resident = r.chance(30);
  s.accInLoop = r.chance(50);
  s.epilogue = unsigned(r.range(0, 2));
  s.waitEarly = r.chance(50);
  s.lk = drawTileLoop(r, s.tripK, s.tk);
  s.lm = drawTileLoop(r, s.tripM, s.tm);
  s.accInLoop &= e.allocInLoops;
  s.kTiles = s.peel ? s.tripK : s.lk.span();
  auto bytes = [&] {
    return e.vmemBytes(s.tm * s.tk) +
           (s.resident ? e.vmemBytes(s.kTiles * s.tk * s.n)
                       : e.vmemBytes(s.tk * s.n)) +
           e.vmemBytes(s.tm * s.n) * (s.epilogue == 1 ? 2 : 1);
  };
  if (!shrinkToFit({{&s.n, 8}, {&s.tk, 8}, {&s.tm, 1}}, bytes, budget.vmem)) {
    s.resident = false;
    if (!shrinkToFit({{&s.n, 8}, {&s.tk, 8}, {&s.tm, 1}}, bytes, budget.vmem))
      return std::nullopt;
  }
  s.lk.stride = s.tk;
  s.lm.stride = s.tm;
  return s;
}

/// Allocates a matmul statement's accumulator (and relu's zeros) into `v`.
static void allocMatmulAcc(Emitter &e, const MatmulShape &s, MatmulBuffers &v) {
  v.vacc = e.alloc({s.tm, s.n});
  v.vzero = s.epilogue == 1 ? e.alloc({s.tm, s.n}) : Value();
}

/// One k step of a matmul statement at row `row` and k offset `k`: X's
/// tile, W's (a view of resident W, or DMA'd), and the matmul.
static void emitMatmulKStep(Emitter &e, const MatmulShape &s,
                            const MatmulBuffers &v, Value row, Value k,
                            bool accumulate) {
  Value tx = e.dma(e.tile(v.x, row, k, s.tm, s.tk), v.vx);
  if (s.waitEarly)
    e.wait(tx);
  Value wTile;
  if (s.resident) {
    wTile = e.tile(v.vw, k, Value(), s.tk, s.n);
  } else {
    Value tw = e.dma(e.tile(v.w, k, Value(), s.tk, s.n), v.vw);
    e.wait(tw);
    wTile = v.vw;
  }
  if (!s.waitEarly)
    e.wait(tx);
  e.matmul(v.vx, wTile, v.vacc, accumulate);
}

/// The row tile at `row` of a matmul statement: the k loop (the first step
/// peeled, or after a zero fill), the epilogue, the store.
static void emitMatmulRowTile(Emitter &e, const MatmulShape &s,
                              MatmulBuffers &v, Value row) {
  if (s.accInLoop)
    allocMatmulAcc(e, s, v);
  if (s.peel) {
    emitMatmulKStep(e, s, v, row, Value(), /*accumulate=*/false);
    e.loop(s.tk, s.tripK * s.tk, s.tk, {}, [&](Value k, ValueRange) {
      emitMatmulKStep(e, s, v, row, k, true);
      return SmallVector<Value>();
    });
  } else {
    e.fill(v.vacc, 0.0f);
    e.tileLoop(s.lk, [&](Value k) { emitMatmulKStep(e, s, v, row, k, true); });
  }
  if (s.epilogue == 1) { // relu
    e.fill(v.vzero, 0.0f);
    VMaxOp::create(e.b, e.loc, v.vacc, v.vzero, v.vacc);
  } else if (s.epilogue == 2) {
    VMulOp::create(e.b, e.loc, v.vacc, v.vacc, v.vacc);
  }
  e.copy(v.vacc, e.tile(v.o, row, Value(), s.tm, s.n));
}

/// C = X W over k tiles (a column band of X, a row tile of W), optionally
/// over row tiles and batches (3 deep), W resident or streamed, the first
/// k tile peeled (no accumulate) or a zero fill, an epilogue on the VPU.
std::string accel::gen::detail::emitMatmul(Emitter &e, Rng &r, Budget budget) {
  std::optional<MatmulShape> shape = drawMatmul(e, r, budget);
  if (!shape)
    return "";
  const MatmulShape &s = *shape;
  int64_t kDim = s.kTiles * s.tk;
  int64_t mSpan = s.tripM > 1 ? s.lm.span() : 1;
  int64_t mRows = s.tm * mSpan * s.tripB;
  MatmulBuffers v;
  v.x = e.hbm({mRows, kDim});
  v.w = e.hbm({kDim, s.n});
  v.o = e.out({mRows, s.n});
  v.vx = e.alloc({s.tm, s.tk});
  v.vw = s.resident ? e.alloc({kDim, s.n}) : e.alloc({s.tk, s.n});
  if (!s.accInLoop)
    allocMatmulAcc(e, s, v);
  if (s.resident)
    e.copy(v.w, v.vw);
  auto batch = [&](Value base) {
    if (s.tripM > 1)
      e.tileLoop(s.lm, [&](Value m) {
        emitMatmulRowTile(e, s, v, base ? e.add(base, m) : m);
      });
    else
      emitMatmulRowTile(e, s, v, base);
  };
  if (s.tripB > 1) {
    // Batches: the base row advanced in iter_args.
    int64_t stride = s.tm * mSpan;
    e.loop(0, s.tripB, 1, ValueRange{e.c(0)}, [&](Value, ValueRange args) {
      batch(args[0]);
      return SmallVector<Value>{e.add(args[0], e.c(stride))};
    });
  } else {
    batch(Value());
  }
  return llvm::formatv("matmul {0}x{1}x{2} tiles, {3}x{4}x{5} trips{6}{7}",
                       s.tm, s.tk, s.n, s.tripB, s.tripM, s.tripK,
                       s.peel ? ", peeled" : "",
                       s.resident ? ", resident W" : "")
      .str();
}

/// Gathers rows through an offset table: DMA a window of an i32 table into
/// VMEM, accel.load an offset, DMA the row(s) at that offset, accumulate.
std::string accel::gen::detail::emitGather(Emitter &e, Rng &r, Budget budget) {
  int64_t cols = r.pick<int64_t>({8, 16, 32, 64, 128});
  int64_t g = r.pick<int64_t>({1, 1, 2, 4});
  int64_t trips = budget.trips;
  int64_t n = drawTrip(r, trips);
  int64_t chunks = r.chance(40) ? std::min<int64_t>(3, drawTrip(r, trips)) : 1;
  int64_t t0 = r.range(0, 5), shift = r.range(0, 7);
  int64_t step = n > 2 && r.chance(30) ? 2 : 1;
  bool useMax = r.chance(30);
  bool rowSums = r.chance(40);
  if (!shrinkToFit(
          {{&cols, 8}, {&g, 1}},
          [&] {
            return 2 * e.vmemBytes(g * cols) + e.vmemBytes(n) +
                   (rowSums ? e.vmemBytes(g) : 0);
          },
          budget.vmem))
    return "";
  int64_t tableLen = t0 + chunks * n;
  Value table = e.hbm({tableLen}, "iota", /*i32=*/true);
  Value data = e.hbm({tableLen + shift + g, cols});
  Value o = e.out({g, cols});
  Value o2 = rowSums ? e.out({g, 1}) : Value();
  Value vacc = e.alloc({g, cols});
  Value vt = e.alloc({n}, /*i32=*/true);
  Value vrow = e.alloc({g, cols});
  e.fill(vacc, useMax ? -1.0e30f : 0.0f);
  auto chunk = [&](Value base) {
    e.copy(e.window(table, base, n), vt);
    e.loop(0, n, step, {}, [&](Value j, ValueRange) {
      Value at = e.load(vt, j);
      Value row = shift ? e.add(at, e.c(shift)) : at;
      Value t = e.dma(e.tile(data, row, Value(), g, cols), vrow);
      e.wait(t);
      if (useMax)
        VMaxOp::create(e.b, e.loc, vacc, vrow, vacc);
      else
        VAddOp::create(e.b, e.loc, vacc, vrow, vacc);
      return SmallVector<Value>();
    });
  };
  if (chunks > 1)
    e.loop(t0, t0 + chunks * n, n, {}, [&](Value base, ValueRange) {
      chunk(base);
      return SmallVector<Value>();
    });
  else
    chunk(e.c(t0));
  e.copy(vacc, o);
  if (o2) {
    Value vs = e.alloc({g, 1});
    VReduceSumOp::create(e.b, e.loc, vacc, vs);
    e.copy(vs, o2);
  }
  return llvm::formatv("gather {0} x {1}x{2} rows, {3} chunks, step {4}", n, g,
                       cols, chunks, step)
      .str();
}

/// Store-then-reload through an HBM scratch buffer: in the same iteration
/// (store, WAIT, reload) or in a second loop, possibly in reverse order.
std::string accel::gen::detail::emitScratch(Emitter &e, Rng &r, Budget budget) {
  int64_t tr = r.pick<int64_t>({1, 2, 4, 8});
  int64_t tc = r.pick<int64_t>({8, 16, 32, 64, 128});
  int64_t trips = budget.trips;
  int64_t trip = drawTrip(r, trips);
  bool sameIter = r.chance(50);
  bool reverse = !sameIter && r.chance(50);
  bool reuse = r.chance(50); // reload into the input's buffer
  unsigned op1 = unsigned(r.next()), op2 = unsigned(r.next());
  if (!shrinkToFit(
          {{&tc, 8}, {&tr, 1}},
          [&] { return (reuse ? 4 : 5) * e.vmemBytes(tr * tc); }, budget.vmem))
    return "";
  int64_t rows = tr * trip;
  Value a = e.hbm({rows, tc});
  Value bIn = e.hbm({rows, tc});
  Value scratch = e.out({rows, tc});
  Value o = e.out({rows, tc});
  Value va = e.alloc({tr, tc}), vt = e.alloc({tr, tc});
  Value vr = reuse ? va : e.alloc({tr, tc});
  Value vb = e.alloc({tr, tc}), vo = e.alloc({tr, tc});
  auto produce = [&](Value row) {
    e.copy(e.tile(a, row, Value(), tr, tc), va);
    e.unary(op1, va, vt);
    e.copy(vt, e.tile(scratch, row, Value(), tr, tc));
  };
  auto consume = [&](Value row) {
    Value tb = e.dma(e.tile(bIn, row, Value(), tr, tc), vb);
    e.copy(e.tile(scratch, row, Value(), tr, tc), vr);
    e.wait(tb);
    e.binary(op2, vr, vb, vo);
    e.copy(vo, e.tile(o, row, Value(), tr, tc));
  };
  if (sameIter) {
    e.loop(0, trip, 1, {}, [&](Value i, ValueRange) {
      Value row = e.mul(i, e.c(tr));
      produce(row);
      consume(row);
      return SmallVector<Value>();
    });
  } else {
    e.loop(0, rows, tr, {}, [&](Value row, ValueRange) {
      produce(row);
      return SmallVector<Value>();
    });
    e.loop(0, trip, 1, {}, [&](Value i, ValueRange) {
      Value row =
          reverse ? e.mul(e.sub(e.c(trip - 1), i), e.c(tr)) : e.mul(i, e.c(tr));
      consume(row);
      return SmallVector<Value>();
    });
  }
  return llvm::formatv("scratch {0}x{1} tiles, {2} trips{3}{4}", tr, tc, trip,
                       sameIter ? ", same iteration" : ", two loops",
                       reverse ? " reversed" : "")
      .str();
}

/// Row softmax over column bands: per row tile (buffers allocated in the
/// outer loop and used in the nested ones), a running max over the bands,
/// then exp(x - max) stored band by band and the row sums.
std::string accel::gen::detail::emitRowReduce(Emitter &e, Rng &r,
                                              Budget budget) {
  int64_t tr = r.pick<int64_t>({1, 2, 4, 8});
  int64_t cb = r.pick<int64_t>({8, 16, 32, 64});
  int64_t trips = budget.trips;
  int64_t tripC = drawTrip(r, trips);
  int64_t tripR = r.chance(60) ? drawTrip(r, trips) : 1;
  bool allocInLoop = r.chance(60) && e.allocInLoops;
  bool normalize = r.chance(40);
  if (!shrinkToFit(
          {{&cb, 8}, {&tr, 1}},
          [&] { return e.vmemBytes(tr * cb) + 3 * e.vmemBytes(tr); },
          budget.vmem))
    return "";
  int64_t rows = tr * tripR, cols = cb * tripC;
  Value a = e.hbm({rows, cols});
  Value o = e.out({rows, cols});
  Value sums = e.out({rows, 1});
  Value vx, vm, vs, vtmp;
  auto allocAll = [&] {
    vx = e.alloc({tr, cb});
    vm = e.alloc({tr, 1});
    vs = e.alloc({tr, 1});
    vtmp = e.alloc({tr, 1});
  };
  if (!allocInLoop)
    allocAll();
  auto rowTile = [&](Value row) {
    if (allocInLoop)
      allocAll();
    e.fill(vm, -1.0e30f);
    e.loop(0, cols, cb, {}, [&](Value col, ValueRange) {
      e.copy(e.tile(a, row, col, tr, cb), vx);
      VReduceMaxOp::create(e.b, e.loc, vx, vtmp);
      VMaxOp::create(e.b, e.loc, vm, vtmp, vm);
      return SmallVector<Value>();
    });
    e.fill(vs, 0.0f);
    e.loop(0, tripC, 1, {}, [&](Value j, ValueRange) {
      Value col = e.mul(j, e.c(cb));
      e.copy(e.tile(a, row, col, tr, cb), vx);
      VSubOp::create(e.b, e.loc, vx, vm, vx);
      VExpOp::create(e.b, e.loc, vx, vx);
      VReduceSumOp::create(e.b, e.loc, vx, vtmp);
      VAddOp::create(e.b, e.loc, vs, vtmp, vs);
      e.copy(vx, e.tile(o, row, col, tr, cb));
      return SmallVector<Value>();
    });
    if (normalize) // 1 / sum, a positive sum of exponentials
      VDivOp::create(e.b, e.loc, vm, vs, vs);
    e.copy(vs, e.tile(sums, row, Value(), tr, 1));
  };
  if (tripR > 1)
    e.loop(0, rows, tr, {}, [&](Value row, ValueRange) {
      rowTile(row);
      return SmallVector<Value>();
    });
  else
    rowTile(e.c(0));
  return llvm::formatv("row softmax {0}x{1} bands, {2}x{3} trips", tr, cb,
                       tripR, tripC)
      .str();
}
