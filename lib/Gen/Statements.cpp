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

/// Tiled elementwise work over row tiles and/or column bands of a matrix,
/// one or two inputs, an optional second output, buffer reuse, allocations
/// inside the loops, WAITs right after the ISSUE or just before the use.
std::string accel::gen::detail::emitElementwise(Emitter &e, Rng &r,
                                                Budget budget) {
  int64_t tr = r.pick<int64_t>({1, 2, 4, 8, 16});
  int64_t tc = r.pick<int64_t>({8, 16, 32, 64, 128});
  bool twoInputs = r.chance(60);
  bool reuse = twoInputs && r.chance(35); // one VMEM buffer, two tensors
  bool secondOut = r.chance(40);
  bool broadcast = r.chance(25);                 // y is a row-sum column
  unsigned allocLevel = unsigned(r.range(0, 2)); // 0 top, 1 outer, 2 inner
  bool waitEarly = r.chance(50);
  bool storeWaitLate = r.chance(50);
  unsigned op1 = unsigned(r.next()), op2 = unsigned(r.next());
  bool rowLoop = r.chance(70), colLoop = r.chance(50);
  if (!rowLoop && !colLoop)
    rowLoop = true;
  int64_t trips = budget.trips;
  int64_t tripC = colLoop ? drawTrip(r, trips) : 1;
  int64_t tripR = rowLoop ? drawTrip(r, trips) : 1;
  TileLoop lr = drawTileLoop(r, tripR, tr), lc = drawTileLoop(r, tripC, tc);
  if (!e.allocInLoops)
    allocLevel = 0;
  int nTiles = 3 + (twoInputs && !reuse);
  if (!shrinkToFit(
          {{&tc, 8}, {&tr, 1}},
          [&] {
            return nTiles * e.vmemBytes(tr * tc) +
                   (broadcast ? e.vmemBytes(tr) : 0);
          },
          budget.vmem))
    return "";
  lr.stride = tr;
  lc.stride = tc;
  int64_t rows = tr * (rowLoop ? lr.span() : 1);
  int64_t cols = tc * (colLoop ? lc.span() : 1);
  Value a = e.hbm({rows, cols});
  Value bIn = twoInputs ? e.hbm({rows, cols}) : Value();
  Value o1 = e.out({rows, cols});
  Value o2 = secondOut ? e.out({rows, cols}) : Value();

  Value va, vb, vt, vo, vcol;
  auto allocAll = [&] {
    va = e.alloc({tr, tc});
    vb = twoInputs && !reuse ? e.alloc({tr, tc}) : Value();
    vt = e.alloc({tr, tc});
    vo = e.alloc({tr, tc});
    vcol = broadcast ? e.alloc({tr, 1}) : Value();
  };
  if (allocLevel == 0)
    allocAll();
  auto body = [&](Value row, Value col) {
    if (allocLevel == 2 || (allocLevel == 1 && !(rowLoop && colLoop)))
      allocAll();
    Value ta = e.dma(e.tile(a, row, col, tr, tc), va);
    Value tb;
    if (waitEarly)
      e.wait(ta);
    if (vb) {
      tb = e.dma(e.tile(bIn, row, col, tr, tc), vb);
      if (waitEarly)
        e.wait(tb);
    }
    if (!waitEarly)
      e.wait(ta);
    e.unary(op1, va, vt);
    Value y;
    if (reuse) {
      // The same VMEM buffer now holds the second tensor.
      e.copy(e.tile(bIn, row, col, tr, tc), va);
      y = va;
    } else if (vb) {
      if (!waitEarly)
        e.wait(tb);
      y = vb;
    } else {
      y = va;
    }
    if (broadcast) {
      VReduceSumOp::create(e.b, e.loc, y, vcol);
      e.binary(op2, vt, vcol, vo);
    } else {
      e.binary(op2, vt, y, vo);
    }
    Value t1 = e.dma(vo, e.tile(o1, row, col, tr, tc));
    if (!storeWaitLate)
      e.wait(t1);
    Value t2;
    if (o2)
      t2 = e.dma(vt, e.tile(o2, row, col, tr, tc));
    if (storeWaitLate)
      e.wait(t1);
    if (t2)
      e.wait(t2);
  };
  auto inner = [&](Value row) {
    if (allocLevel == 1 && rowLoop && colLoop)
      allocAll(); // in the outer loop, used in the nested one
    if (colLoop)
      e.tileLoop(lc, [&](Value col) { body(row, col); });
    else
      body(row, Value());
  };
  if (rowLoop)
    e.tileLoop(lr, inner);
  else
    inner(Value());
  return llvm::formatv("elementwise {0}x{1} tiles, {2}x{3} trips{4}{5}{6}", tr,
                       tc, tripR, tripC, reuse ? ", reused buffer" : "",
                       broadcast ? ", broadcast" : "",
                       allocLevel ? ", alloc in loop" : "")
      .str();
}

/// C = X W over k tiles (a column band of X, a row tile of W), optionally
/// over row tiles and batches (3 deep), W resident or streamed, the first
/// k tile peeled (no accumulate) or a zero fill, an epilogue on the VPU.
std::string accel::gen::detail::emitMatmul(Emitter &e, Rng &r, Budget budget) {
  int64_t tm = r.pick<int64_t>({1, 2, 4, 8, 16});
  int64_t tk = r.pick<int64_t>({8, 16, 32, 64});
  int64_t n = r.pick<int64_t>({8, 16, 32, 64, 128});
  int64_t trips = budget.trips;
  int64_t tripK = drawTrip(r, trips);
  int64_t tripM = r.chance(60) ? drawTrip(r, trips) : 1;
  int64_t tripB = tripM > 1 && r.chance(40) ? r.range(2, 3) : 1;
  bool peel = tripK > 1 && r.chance(50);
  bool resident = r.chance(30);
  bool accInLoop = r.chance(50);
  unsigned epilogue = unsigned(r.range(0, 2));
  bool waitEarly = r.chance(50);
  TileLoop lk = drawTileLoop(r, tripK, tk), lm = drawTileLoop(r, tripM, tm);
  accInLoop &= e.allocInLoops;
  int64_t kTiles = peel ? tripK : lk.span();
  auto bytes = [&] {
    return e.vmemBytes(tm * tk) +
           (resident ? e.vmemBytes(kTiles * tk * n) : e.vmemBytes(tk * n)) +
           e.vmemBytes(tm * n) * (epilogue == 1 ? 2 : 1);
  };
  if (!shrinkToFit({{&n, 8}, {&tk, 8}, {&tm, 1}}, bytes, budget.vmem)) {
    resident = false;
    if (!shrinkToFit({{&n, 8}, {&tk, 8}, {&tm, 1}}, bytes, budget.vmem))
      return "";
  }
  lk.stride = tk;
  lm.stride = tm;
  int64_t kDim = kTiles * tk;
  int64_t mSpan = tripM > 1 ? lm.span() : 1;
  int64_t mRows = tm * mSpan * tripB;
  Value x = e.hbm({mRows, kDim});
  Value w = e.hbm({kDim, n});
  Value o = e.out({mRows, n});
  Value vx = e.alloc({tm, tk});
  Value vw = resident ? e.alloc({kDim, n}) : e.alloc({tk, n});
  Value vacc, vzero;
  auto allocAcc = [&] {
    vacc = e.alloc({tm, n});
    vzero = epilogue == 1 ? e.alloc({tm, n}) : Value();
  };
  if (!accInLoop)
    allocAcc();
  if (resident)
    e.copy(w, vw);
  auto kStep = [&](Value row, Value k, bool accumulate) {
    Value tx = e.dma(e.tile(x, row, k, tm, tk), vx);
    if (waitEarly)
      e.wait(tx);
    Value wTile;
    if (resident) {
      wTile = e.tile(vw, k, Value(), tk, n);
    } else {
      Value tw = e.dma(e.tile(w, k, Value(), tk, n), vw);
      e.wait(tw);
      wTile = vw;
    }
    if (!waitEarly)
      e.wait(tx);
    e.matmul(vx, wTile, vacc, accumulate);
  };
  auto rowTile = [&](Value row) {
    if (accInLoop)
      allocAcc();
    if (peel) {
      kStep(row, Value(), /*accumulate=*/false);
      e.loop(tk, tripK * tk, tk, {}, [&](Value k, ValueRange) {
        kStep(row, k, true);
        return SmallVector<Value>();
      });
    } else {
      e.fill(vacc, 0.0f);
      e.tileLoop(lk, [&](Value k) { kStep(row, k, true); });
    }
    if (epilogue == 1) { // relu
      e.fill(vzero, 0.0f);
      VMaxOp::create(e.b, e.loc, vacc, vzero, vacc);
    } else if (epilogue == 2) {
      VMulOp::create(e.b, e.loc, vacc, vacc, vacc);
    }
    e.copy(vacc, e.tile(o, row, Value(), tm, n));
  };
  auto batch = [&](Value base) {
    if (tripM > 1)
      e.tileLoop(lm, [&](Value m) { rowTile(base ? e.add(base, m) : m); });
    else
      rowTile(base);
  };
  if (tripB > 1) {
    // Batches: the base row advanced in iter_args.
    int64_t stride = tm * mSpan;
    e.loop(0, tripB, 1, ValueRange{e.c(0)}, [&](Value, ValueRange args) {
      batch(args[0]);
      return SmallVector<Value>{e.add(args[0], e.c(stride))};
    });
  } else {
    batch(Value());
  }
  return llvm::formatv("matmul {0}x{1}x{2} tiles, {3}x{4}x{5} trips{6}{7}", tm,
                       tk, n, tripB, tripM, tripK, peel ? ", peeled" : "",
                       resident ? ", resident W" : "")
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
