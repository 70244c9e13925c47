//===- LoopShapes.cpp - accel-gen's loop shapes of issue 33 ---------------===//
//
// The shapes people write that the transforms got wrong or gave up on
// (issue 33): state carried across a step loop, views taken before a loop,
// memref iter_args, hand-pipelined rings, run-time trip counts, repeated
// loads of the same bytes and many DMAs in one body. Each replaces a
// statement from a stream of its own (ProgramGenerator.cpp).
//
//===----------------------------------------------------------------------===//

#include "Emitter.h"

#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace accel;
using namespace accel::gen::detail;

/// A decode-style step loop (issue 33): a state of `rows` x N in VMEM,
/// multiplied each step by an N x N weight K tile by K tile (a nested loop
/// reading column views of the state taken in it, or the K tiles written
/// out with views taken before the step loop), squashed by tanh, and copied
/// back into the state at the step's end (a VPU copy or a VMEM-to-VMEM
/// DMA) for the next step to read: a buffer written late in one iteration
/// and read early in the next, through views.
std::string accel::gen::detail::emitCarriedState(Emitter &e, Rng &r,
                                                 Budget budget) {
  int64_t rows = r.pick<int64_t>({1, 2, 4, 8});
  int64_t tk = r.pick<int64_t>({8, 16, 32, 64});
  int64_t kTiles = r.range(1, 4);
  int64_t trips = budget.trips;
  int64_t steps = std::max<int64_t>(2, drawTrip(r, trips));
  bool viewsBefore = r.chance(50);
  bool copyByDma = r.chance(50);
  bool accInLoop = e.allocInLoops && r.chance(50);
  auto bytes = [&] {
    int64_t n = tk * kTiles;
    return 2 * e.vmemBytes(rows * n) + e.vmemBytes(tk * n);
  };
  if (!shrinkToFit({{&tk, 8}, {&rows, 1}}, bytes, budget.vmem))
    return "";
  int64_t n = tk * kTiles;
  Value x0 = e.hbm({rows, n});
  Value w = e.hbm({n, n});
  Value o = e.out({rows, n});
  Value xv = e.alloc({rows, n});
  Value wt = e.alloc({tk, n});
  Value acc = accInLoop ? Value() : e.alloc({rows, n});
  e.copy(x0, xv);
  SmallVector<Value> views;
  if (viewsBefore)
    for (int64_t k = 0; k < kTiles; ++k)
      views.push_back(e.tile(xv, Value(), e.c(k * tk), rows, tk));
  auto kStep = [&](Value k, Value view) {
    e.copy(e.tile(w, k, Value(), tk, n), wt);
    e.matmul(view, wt, acc, /*accumulate=*/true);
  };
  e.loop(0, steps, 1, {}, [&](Value, ValueRange) {
    if (accInLoop)
      acc = e.alloc({rows, n});
    e.fill(acc, 0.0f);
    if (viewsBefore) {
      for (int64_t k = 0; k < kTiles; ++k)
        kStep(e.c(k * tk), views[k]);
    } else {
      e.loop(0, n, tk, {}, [&](Value k, ValueRange) {
        kStep(k, e.tile(xv, Value(), k, rows, tk));
        return SmallVector<Value>();
      });
    }
    VTanhOp::create(e.b, e.loc, acc, acc);
    if (copyByDma)
      e.copy(acc, xv);
    else
      VCopyOp::create(e.b, e.loc, acc, xv);
    return SmallVector<Value>();
  });
  e.copy(xv, o);
  return llvm::formatv("carried state {0}x{1}, {2} K tiles of {3}, {4} steps, "
                       "{5}, copied back by {6}",
                       rows, n, kTiles, tk, steps,
                       viewsBefore ? "views before the loop"
                                   : "views in the loop",
                       copyByDma ? "a DMA" : "the VPU")
      .str();
}

/// A 1-D stencil over row tiles (issue 33): each iteration DMAs two row
/// tiles (the tile and its halo) into a window buffer and combines the
/// window's halves, read through views taken once before the loop.
std::string accel::gen::detail::emitWindowViews(Emitter &e, Rng &r,
                                                Budget budget) {
  int64_t tr = r.pick<int64_t>({1, 2, 4, 8});
  int64_t tc = r.pick<int64_t>({8, 16, 32, 64, 128});
  int64_t trips = budget.trips;
  int64_t trip = drawTrip(r, trips);
  unsigned op = unsigned(r.next());
  if (!shrinkToFit(
          {{&tc, 8}, {&tr, 1}}, [&] { return 3 * e.vmemBytes(tr * tc); },
          budget.vmem))
    return "";
  Value x = e.hbm({(trip + 1) * tr, tc});
  Value y = e.out({trip * tr, tc});
  Value win = e.alloc({2 * tr, tc});
  Value vo = e.alloc({tr, tc});
  Value lo = e.tile(win, Value(), Value(), tr, tc);
  Value hi = e.tile(win, e.c(tr), Value(), tr, tc);
  e.loop(0, trip, 1, {}, [&](Value i, ValueRange) {
    Value row = e.mul(i, e.c(tr));
    e.copy(e.tile(x, row, Value(), 2 * tr, tc), win);
    e.binary(op, lo, hi, vo);
    e.copy(vo, e.tile(y, row, Value(), tr, tc));
    return SmallVector<Value>();
  });
  return llvm::formatv("window {0}x{1} with views before the loop, {2} trips",
                       tr, tc, trip)
      .str();
}

/// Two accumulators passed as memref iter_args and swapped every step
/// (issue 33): step i reads the one that holds the sum so far and writes
/// x_i combined with it into the other; optionally each step's partial is
/// stored too.
std::string accel::gen::detail::emitPingPong(Emitter &e, Rng &r,
                                             Budget budget) {
  int64_t tr = r.pick<int64_t>({1, 2, 4, 8});
  int64_t tc = r.pick<int64_t>({8, 16, 32, 64, 128});
  int64_t trips = budget.trips;
  int64_t trip = drawTrip(r, trips);
  unsigned op = r.pick<unsigned>({0, 1, 3}); // add, sub, max: no underflow
  bool partials = r.chance(40);
  if (!shrinkToFit(
          {{&tc, 8}, {&tr, 1}}, [&] { return 3 * e.vmemBytes(tr * tc); },
          budget.vmem))
    return "";
  Value x = e.hbm({trip * tr, tc});
  Value o = e.out({tr, tc});
  Value steps = partials ? e.out({trip * tr, tc}) : Value();
  Value a = e.alloc({tr, tc}), other = e.alloc({tr, tc});
  Value vx = e.alloc({tr, tc});
  e.fill(a, 0.0f);
  SmallVector<Value> result =
      e.loop(0, trip, 1, ValueRange{a, other}, [&](Value i, ValueRange args) {
        Value row = e.mul(i, e.c(tr));
        e.copy(e.tile(x, row, Value(), tr, tc), vx);
        e.binary(op, args[0], vx, args[1]);
        if (steps)
          e.copy(args[1], e.tile(steps, row, Value(), tr, tc));
        return SmallVector<Value>{args[1], args[0]};
      });
  e.copy(result[0], o);
  return llvm::formatv("ping-pong {0}x{1} accumulators in iter_args, {2} "
                       "trips{3}",
                       tr, tc, trip, partials ? ", partials stored" : "")
      .str();
}

/// A hand-pipelined ring (issue 33): `slots` row-tile slots in one VMEM
/// buffer, tile i+d prefetched into slot (i+d) mod slots while tile i is
/// used, the d tokens in flight carried in iter_args and waited one step
/// later; the slot computed with remui, as i - (i / slots) * slots, or
/// carried as a rotating offset.
std::string accel::gen::detail::emitRing(Emitter &e, Rng &r, Budget budget) {
  int64_t slots = r.range(2, 4);
  int64_t d = r.range(1, slots - 1);
  int64_t tr = r.pick<int64_t>({1, 2, 4, 8});
  int64_t tc = r.pick<int64_t>({8, 16, 32, 64, 128});
  int64_t trips = budget.trips;
  int64_t trip = drawTrip(r, trips);
  unsigned slotStyle = unsigned(r.range(0, 2));
  unsigned op = unsigned(r.next());
  if (!shrinkToFit(
          {{&tc, 8}, {&tr, 1}},
          [&] { return e.vmemBytes(slots * tr * tc) + e.vmemBytes(tr * tc); },
          budget.vmem))
    return "";
  Value x = e.hbm({(trip + d) * tr, tc}); // the last d tiles: prefetched only
  Value y = e.out({trip * tr, tc});
  Value ring = e.alloc({slots * tr, tc});
  Value vo = e.alloc({tr, tc});
  auto slotRow = [&](Value t) -> Value {
    if (slotStyle == 1) // t - (t / slots) * slots
      return e.mul(
          e.sub(t, e.mul(arith::DivUIOp::create(e.b, e.loc, t, e.c(slots)),
                         e.c(slots))),
          e.c(tr));
    return e.mul(arith::RemUIOp::create(e.b, e.loc, t, e.c(slots)), e.c(tr));
  };
  SmallVector<Value> inits;
  for (int64_t j = 0; j < d; ++j)
    inits.push_back(e.dma(e.tile(x, e.c(j * tr), Value(), tr, tc),
                          e.tile(ring, e.c(j * tr), Value(), tr, tc)));
  if (slotStyle == 2) { // the slots' row offsets rotate in iter_args
    inits.push_back(e.c(0));
    inits.push_back(e.c(d * tr));
  }
  SmallVector<Value> left =
      e.loop(0, trip, 1, inits, [&](Value i, ValueRange args) {
        e.wait(args[0]);
        Value cur = slotStyle == 2 ? args[d] : slotRow(i);
        e.unary(op, e.tile(ring, cur, Value(), tr, tc), vo);
        e.copy(vo, e.tile(y, e.mul(i, e.c(tr)), Value(), tr, tc));
        Value ahead = e.add(i, e.c(d));
        Value next = slotStyle == 2 ? args[d + 1] : slotRow(ahead);
        Value t = e.dma(e.tile(x, e.mul(ahead, e.c(tr)), Value(), tr, tc),
                        e.tile(ring, next, Value(), tr, tc));
        SmallVector<Value> yielded(args.begin() + 1, args.begin() + d);
        yielded.push_back(t);
        if (slotStyle == 2) {
          auto rotate = [&](Value at) {
            return arith::RemUIOp::create(e.b, e.loc, e.add(at, e.c(tr)),
                                          e.c(slots * tr))
                .getResult();
          };
          yielded.push_back(rotate(args[d]));
          yielded.push_back(rotate(args[d + 1]));
        }
        return yielded;
      });
  for (int64_t j = 0; j < d; ++j)
    e.wait(left[j]);
  static const char *styles[] = {"remui", "divui", "rotating offsets"};
  return llvm::formatv("ring of {0} slots of {1}x{2}, distance {3}, {4} trips, "
                       "slots by {5}",
                       slots, tr, tc, d, trip, styles[slotStyle])
      .str();
}

namespace {
/// The drawn shape of a run-time trip statement (emitRuntimeTrip): `tr` x
/// `tc` tiles up to a loaded count `n` in each of `bands` column bands, the
/// loop written in `style` (0 to n, 0 to n * tr step tr, a loaded 1 to
/// n + 1), or `segs` ragged segments when non-zero.
struct RuntimeTripShape {
  int64_t tr, tc, n, bands;
  unsigned style;
  int64_t segs;
};

/// The buffers of a run-time trip statement, and the loaded count.
struct RuntimeTripBuffers {
  Value x, o, vt, vx, vsq, vs, vo, count;
};
} // namespace

/// Draws a run-time trip statement's shape from `r`, its tiles shrunk to
/// fit `budget.vmem`; std::nullopt when they cannot.
static std::optional<RuntimeTripShape> drawRuntimeTrip(Emitter &e, Rng &r,
                                                       Budget budget) {
  RuntimeTripShape s;
  s.tr = r.pick<int64_t>({1, 2, 4, 8});
  s.tc = r.pick<int64_t>({8, 16, 32, 64, 128});
  int64_t trips = budget.trips;
  s.n = drawTrip(r, trips);
  s.bands = r.chance(30) ? std::min<int64_t>(3, drawTrip(r, trips)) : 1;
  s.style = unsigned(r.range(0, 2));
  if (!shrinkToFit(
          {{&s.tc, 8}, {&s.tr, 1}},
          [&] {
            return 3 * e.vmemBytes(s.tr * s.tc) + e.vmemBytes(s.tr) +
                   e.vmemBytes(s.n + 2);
          },
          budget.vmem))
    return std::nullopt;
  // A ragged batch instead: segments of table[1..segs] = 1..segs tiles
  // packed back to back (as many as the table holds).
  s.segs = 0;
  if (r.chance(35))
    while ((s.segs + 1) * (s.segs + 2) / 2 <= s.n + 2 && s.segs + 1 <= s.n + 1)
      ++s.segs;
  return s;
}

/// The tile at (`row`, `col`), RMS-normalized-like: x * sum(x * x).
static void emitNormalizedTile(Emitter &e, const RuntimeTripShape &s,
                               const RuntimeTripBuffers &v, Value row,
                               Value col) {
  e.copy(e.tile(v.x, row, col, s.tr, s.tc), v.vx);
  VMulOp::create(e.b, e.loc, v.vx, v.vx, v.vsq);
  VReduceSumOp::create(e.b, e.loc, v.vsq, v.vs);
  VMulOp::create(e.b, e.loc, v.vx, v.vs, v.vo);
  e.copy(v.vo, e.tile(v.o, row, col, s.tr, s.tc));
}

/// The tiles of band `col` up to the loaded count, in the loop style drawn.
static void emitRuntimeRows(Emitter &e, const RuntimeTripShape &s,
                            const RuntimeTripBuffers &v, Value col) {
  Value lb = e.c(0), step = e.c(1), ub = v.count;
  if (s.style == 1) { // the row offset is the induction variable
    step = e.c(s.tr);
    ub = e.mul(v.count, e.c(s.tr));
  } else if (s.style == 2) { // from table[1] == 1 to count + 1
    lb = e.load(v.vt, e.c(1));
    ub = e.add(v.count, lb);
  }
  scf::ForOp::create(e.b, e.loc, lb, ub, step, ValueRange{},
                     [&](OpBuilder &nested, Location, Value iv, ValueRange) {
                       OpBuilder::InsertionGuard guard(e.b);
                       e.b.setInsertionPoint(nested.getInsertionBlock(),
                                             nested.getInsertionPoint());
                       Value row = s.style == 1 ? iv
                                   : s.style == 2
                                       ? e.mul(e.sub(iv, lb), e.c(s.tr))
                                       : e.mul(iv, e.c(s.tr));
                       emitNormalizedTile(e, s, v, row, col);
                       scf::YieldOp::create(e.b, e.loc);
                     });
}

/// The ragged batch of band `col`: segments of table[1..segs] = 1..segs
/// tiles packed back to back, the outer loop carrying where the next
/// starts (in rows with step rows when style 1, else in tiles with step 1).
static void emitRaggedSegments(Emitter &e, const RuntimeTripShape &s,
                               const RuntimeTripBuffers &v, Value col) {
  e.loop(1, s.segs + 1, 1, ValueRange{e.c(0)}, [&](Value seg, ValueRange args) {
    Value len = e.load(v.vt, seg);
    Value start = args[0];
    bool rows = s.style == 1;
    Value stop = e.add(start, rows ? e.mul(len, e.c(s.tr)) : len);
    scf::ForOp::create(
        e.b, e.loc, start, stop, e.c(rows ? s.tr : 1), ValueRange{},
        [&](OpBuilder &nested, Location, Value iv, ValueRange) {
          OpBuilder::InsertionGuard guard(e.b);
          e.b.setInsertionPoint(nested.getInsertionBlock(),
                                nested.getInsertionPoint());
          emitNormalizedTile(e, s, v, rows ? iv : e.mul(iv, e.c(s.tr)), col);
          scf::YieldOp::create(e.b, e.loc);
        });
    return SmallVector<Value>{stop};
  });
}

/// Row tiles up to a trip count known only at run time (issue 33): the
/// count is accel.load'ed from an i32 iota table DMA'd into VMEM, and the
/// loop runs to it (as the upper bound, scaled into it, or from a run-time
/// lower bound too), or (a ragged batch) a nest over segments of loaded
/// lengths packed back to back, the outer loop carrying where the next
/// starts; each tile is RMS-normalized-like: x * sum(x * x).
std::string accel::gen::detail::emitRuntimeTrip(Emitter &e, Rng &r,
                                                Budget budget) {
  std::optional<RuntimeTripShape> shape = drawRuntimeTrip(e, r, budget);
  if (!shape)
    return "";
  const RuntimeTripShape &s = *shape;
  int64_t tr = s.tr, tc = s.tc, n = s.n, bands = s.bands;
  // Rows past the count are never visited: the output keeps zeros there.
  RuntimeTripBuffers v;
  v.x = e.hbm({(n + 2) * tr, bands * tc});
  v.o = e.out({(n + 2) * tr, bands * tc});
  Value table = e.hbm({n + 2}, "iota", /*i32=*/true);
  v.vt = e.alloc({n + 2}, /*i32=*/true);
  v.vx = e.alloc({tr, tc});
  v.vsq = e.alloc({tr, tc});
  v.vs = e.alloc({tr, 1});
  v.vo = e.alloc({tr, tc});
  e.copy(table, v.vt);
  v.count = e.load(v.vt, e.c(n)); // table[n] == n
  auto body = [&](Value col) {
    if (s.segs)
      emitRaggedSegments(e, s, v, col);
    else
      emitRuntimeRows(e, s, v, col);
  };
  if (bands > 1)
    e.loop(0, bands * tc, tc, {}, [&](Value col, ValueRange) {
      body(col);
      return SmallVector<Value>();
    });
  else
    body(Value());
  static const char *styles[] = {"0 to n", "0 to n * rows step rows",
                                 "a loaded 1 to n + 1"};
  if (s.segs)
    return llvm::formatv("ragged batch of {0} segments of 1..{0} {1}x{2} "
                         "tiles ({3}), {4} bands",
                         s.segs, tr, tc, s.style == 1 ? "in rows" : "in tiles",
                         bands)
        .str();
  return llvm::formatv("run-time trip count {0} of {1}x{2} tiles ({3}), {4} "
                       "bands",
                       n, tr, tc, styles[s.style], bands)
      .str();
}

/// The same weight bytes loaded more than once (issue 33): an outer loop
/// over row tiles and an inner one over K tiles that DMAs W's K tile (the
/// same bytes in every outer iteration: indexed by the inner loop only),
/// optionally a second time into another buffer, and multiplies.
std::string accel::gen::detail::emitRepeatedLoads(Emitter &e, Rng &r,
                                                  Budget budget) {
  int64_t tm = r.pick<int64_t>({1, 2, 4, 8});
  int64_t tk = r.pick<int64_t>({8, 16, 32});
  int64_t n = r.pick<int64_t>({8, 16, 32, 64});
  int64_t trips = budget.trips;
  int64_t tripM = std::max<int64_t>(2, drawTrip(r, trips));
  int64_t tripK = drawTrip(r, trips);
  bool twice = r.chance(60);
  bool wholeW = r.chance(30); // W loaded whole at the top of each row tile
  auto bytes = [&] {
    int64_t wElems = wholeW ? tripK * tk * n : tk * n;
    return e.vmemBytes(tm * tk) + (twice ? 2 : 1) * e.vmemBytes(wElems) +
           e.vmemBytes(tm * n);
  };
  if (!shrinkToFit({{&n, 8}, {&tk, 8}, {&tm, 1}}, bytes, budget.vmem))
    return "";
  int64_t kDim = tripK * tk;
  Value x = e.hbm({tripM * tm, kDim});
  Value w = e.hbm({kDim, n});
  Value o = e.out({tripM * tm, n});
  Value vx = e.alloc({tm, tk});
  Value vw1 = wholeW ? e.alloc({kDim, n}) : e.alloc({tk, n});
  Value vw2 =
      twice ? (wholeW ? e.alloc({kDim, n}) : e.alloc({tk, n})) : Value();
  Value acc = e.alloc({tm, n});
  e.loop(0, tripM, 1, {}, [&](Value m, ValueRange) {
    Value row = e.mul(m, e.c(tm));
    if (wholeW) {
      e.copy(w, vw1);
      if (vw2)
        e.copy(w, vw2);
    }
    e.fill(acc, 0.0f);
    e.loop(0, kDim, tk, {}, [&](Value k, ValueRange) {
      e.copy(e.tile(x, row, k, tm, tk), vx);
      Value w1 = vw1, w2 = vw2;
      if (wholeW) {
        w1 = e.tile(vw1, k, Value(), tk, n);
        w2 = vw2 ? e.tile(vw2, k, Value(), tk, n) : Value();
      } else {
        e.copy(e.tile(w, k, Value(), tk, n), vw1);
        if (vw2)
          e.copy(e.tile(w, k, Value(), tk, n), vw2);
      }
      e.matmul(vx, w1, acc, /*accumulate=*/true);
      if (w2)
        e.matmul(vx, w2, acc, /*accumulate=*/true);
      return SmallVector<Value>();
    });
    e.copy(acc, e.tile(o, row, Value(), tm, n));
    return SmallVector<Value>();
  });
  return llvm::formatv("repeated loads: {0}x{1}x{2} tiles, {3}x{4} trips, W "
                       "{5}{6}",
                       tm, tk, n, tripM, tripK,
                       wholeW ? "whole per row tile" : "by K tile",
                       twice ? ", loaded twice" : "")
      .str();
}

/// Many DMAs in one loop body (issue 33, register pressure): `u` row tiles,
/// each into its own VMEM buffer, WAITed right away or all at the end, then
/// summed: every buffer and (when sunk or hoisted) every token is live at
/// once.
std::string accel::gen::detail::emitManyTiles(Emitter &e, Rng &r,
                                              Budget budget) {
  int64_t u = r.range(8, 48);
  int64_t tc = r.pick<int64_t>({8, 16, 32, 64});
  int64_t trips = budget.trips;
  int64_t trip = drawTrip(r, trips);
  bool waitLate = r.chance(50);
  if (!shrinkToFit(
          {{&tc, 8}, {&u, 2}}, [&] { return (u + 1) * e.vmemBytes(tc); },
          budget.vmem))
    return "";
  Value x = e.hbm({trip * u, tc});
  Value o = e.out({trip, tc});
  SmallVector<Value> bufs;
  for (int64_t j = 0; j < u; ++j)
    bufs.push_back(e.alloc({1, tc}));
  Value acc = e.alloc({1, tc});
  e.loop(0, trip, 1, {}, [&](Value i, ValueRange) {
    Value base = e.mul(i, e.c(u));
    SmallVector<Value> tokens;
    for (int64_t j = 0; j < u; ++j) {
      Value t = e.dma(e.tile(x, e.add(base, e.c(j)), Value(), 1, tc), bufs[j]);
      if (waitLate)
        tokens.push_back(t);
      else
        e.wait(t);
    }
    for (Value t : tokens)
      e.wait(t);
    VCopyOp::create(e.b, e.loc, bufs[0], acc);
    for (int64_t j = 1; j < u; ++j)
      VAddOp::create(e.b, e.loc, acc, bufs[j], acc);
    e.copy(acc, e.tile(o, i, Value(), 1, tc));
    return SmallVector<Value>();
  });
  return llvm::formatv("{0} row tiles of {1} per iteration, {2} trips, WAITs "
                       "{3}",
                       u, tc, trip, waitLate ? "at the end" : "right away")
      .str();
}
