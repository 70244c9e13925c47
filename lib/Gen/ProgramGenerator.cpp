//===- ProgramGenerator.cpp - Random accel programs for testing -----------===//
//
// Builds accel programs with OpBuilder from a plan of independent top-level
// statements. Each statement owns its HBM arguments and VMEM buffers, WAITs
// every DMA before the core touches the DMA's buffers again, and writes at
// least one output tensor that depends on everything it computed, so a
// wrong transform shows up in the final HBM compare. Validity rules the
// generator keeps (docs/testing.md):
//   - tiles stay inside their buffers (offsets are drawn, then the buffers
//     are shaped to hold every tile the loops visit);
//   - no data race: a DMA's VMEM destination is only read after its WAIT,
//     and a store's VMEM source is not overwritten before its WAIT;
//   - VMEM: every statement gets an equal share of half the machine's VMEM
//     (the other half is room for the transforms' extra buffers);
//   - no NaN: sqrt only of squares, division only by sums of exponentials.
//
// Size (about 960 lines): the Emitter (an OpBuilder with the buffer and
// loop helpers) and the seven statement kinds built with it (one function
// each, in the "Statements" section); splitting them would put Emitter in
// a header for this file alone. The machine and program sections are short.
//
//===----------------------------------------------------------------------===//

#include "accel/Gen/ProgramGenerator.h"

#include "accel/Dialect/Accel/AccelDialect.h"
#include "accel/Dialect/Accel/AccelOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Verifier.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <functional>

using namespace mlir;
using namespace accel;
using namespace accel::gen;

namespace {

/// splitmix64: small, fast and the same on every platform (std's
/// distributions are not), so a seed means the same program everywhere.
class Rng {
public:
  explicit Rng(uint64_t seed) : state(seed) {}
  uint64_t next() {
    uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  /// Uniform in [lo, hi] (inclusive); lo when hi < lo.
  int64_t range(int64_t lo, int64_t hi) {
    if (hi <= lo)
      return lo;
    return lo + int64_t(next() % uint64_t(hi - lo + 1));
  }
  /// True with probability pct / 100.
  bool chance(unsigned pct) { return next() % 100 < pct; }
  template <typename T> T pick(std::initializer_list<T> choices) {
    return *(choices.begin() + next() % choices.size());
  }

private:
  uint64_t state;
};

/// The stream of statement `index` of `seed` (index ~0 is the machine).
static uint64_t streamSeed(uint64_t seed, uint64_t index) {
  Rng r(seed * 0x2545f4914f6cdd1dULL + index * 0x9e3779b97f4a7c15ULL + 1);
  return r.next();
}

/// Trip counts whose product stays within `budget` (each 1..40).
static int64_t drawTrip(Rng &r, int64_t &budget) {
  int64_t t = r.range(1, std::max<int64_t>(1, std::min<int64_t>(40, budget)));
  budget = std::max<int64_t>(1, budget / t);
  return t;
}

/// How a loop over tiles is written: `style` 0 uses the induction variable
/// as the offset (non-unit step), 1 multiplies a unit-step index, 2 carries
/// the offset in iter_args, 3 has a non-zero lower bound, 4 visits every
/// third tile.
struct TileLoop {
  unsigned style = 0;
  int64_t trip = 1, stride = 1;
  /// Strides the visited tiles span: the buffer must hold this many.
  int64_t span() const { return style == 4 ? 3 * trip - 2 : trip; }
};

static TileLoop drawTileLoop(Rng &r, int64_t trip, int64_t stride) {
  return TileLoop{unsigned(r.range(0, 4)), trip, stride};
}

/// Builds one statement at a time at the end of the function body.
class Emitter {
public:
  Emitter(MLIRContext &ctx, func::FuncOp func, const GenMachine &machine)
      : ctx(ctx), b(&ctx), loc(UnknownLoc::get(&ctx)), func(func),
        machine(machine), floatType(b.getF32Type()) {
    b.setInsertionPointToEnd(&func.getBody().front());
  }

  /// VMEM bytes of a buffer of `elems` elements of the current statement's
  /// float type, as lowering places it.
  uint64_t vmemBytes(int64_t elems) const {
    uint64_t size = floatType && floatType.isBF16() ? 2 : 4;
    return llvm::alignTo(uint64_t(elems) * size, machine.pageBytes);
  }

  /// A new HBM argument.
  Value hbm(ArrayRef<int64_t> shape, StringRef init = "", bool i32 = false) {
    auto type = MemRefType::get(shape, i32 ? Type(b.getI32Type()) : floatType,
                                MemRefLayoutAttrInterface(),
                                MemorySpaceAttr::get(&ctx, MemorySpace::HBM));
    inits.push_back(init.str());
    return func.getBody().front().addArgument(type, loc);
  }
  /// An output: zero-initialized HBM.
  Value out(ArrayRef<int64_t> shape) { return hbm(shape, "zero"); }

  Value alloc(ArrayRef<int64_t> shape, bool i32 = false) {
    auto type = MemRefType::get(shape, i32 ? Type(b.getI32Type()) : floatType,
                                MemRefLayoutAttrInterface(),
                                MemorySpaceAttr::get(&ctx, MemorySpace::VMEM));
    int64_t elems = 1;
    for (int64_t d : shape)
      elems *= d;
    vmemUsed += vmemBytes(elems);
    return AllocOp::create(b, loc, type);
  }

  Value c(int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); }
  Value add(Value x, Value y) { return arith::AddIOp::create(b, loc, x, y); }
  Value mul(Value x, Value y) { return arith::MulIOp::create(b, loc, x, y); }
  Value sub(Value x, Value y) { return arith::SubIOp::create(b, loc, x, y); }

  /// A (rows x cols) tile of `src` at (row, col); a null Value is 0.
  Value tile(Value src, Value row, Value col, int64_t rows, int64_t cols) {
    auto ofr = [&](Value v) -> OpFoldResult {
      if (!v)
        return b.getIndexAttr(0);
      return v;
    };
    SmallVector<OpFoldResult> offs = {ofr(row), ofr(col)};
    SmallVector<OpFoldResult> sizes = {b.getIndexAttr(rows),
                                       b.getIndexAttr(cols)};
    SmallVector<OpFoldResult> strides = {b.getIndexAttr(1), b.getIndexAttr(1)};
    return memref::SubViewOp::create(b, loc, src, offs, sizes, strides);
  }
  /// A window of `n` elements of a 1-D buffer at `at`.
  Value window(Value src, Value at, int64_t n) {
    SmallVector<OpFoldResult> offs = {at};
    SmallVector<OpFoldResult> sizes = {b.getIndexAttr(n)};
    SmallVector<OpFoldResult> strides = {b.getIndexAttr(1)};
    return memref::SubViewOp::create(b, loc, src, offs, sizes, strides);
  }

  Value dma(Value src, Value dst) {
    return DmaStartOp::create(b, loc, src, dst);
  }
  void wait(Value token) { DmaWaitOp::create(b, loc, token); }
  /// A DMA and its WAIT right after it.
  void copy(Value src, Value dst) { wait(dma(src, dst)); }

  void binary(unsigned which, Value x, Value y, Value o) {
    switch (which % 5) {
    case 0:
      VAddOp::create(b, loc, x, y, o);
      break;
    case 1:
      VSubOp::create(b, loc, x, y, o);
      break;
    case 2:
      VMulOp::create(b, loc, x, y, o);
      break;
    default:
      VMaxOp::create(b, loc, x, y, o);
      break;
    }
  }
  /// A NaN-free unary op: exp, copy, or sqrt(x * x) (two ops).
  void unary(unsigned which, Value x, Value o) {
    switch (which % 3) {
    case 0:
      VExpOp::create(b, loc, x, o);
      break;
    case 1:
      VCopyOp::create(b, loc, x, o);
      break;
    default:
      VMulOp::create(b, loc, x, x, o);
      VSqrtOp::create(b, loc, o, o);
      break;
    }
  }
  void fill(Value o, float v) {
    VFillOp::create(b, loc, o, b.getF32FloatAttr(v));
  }
  void matmul(Value x, Value w, Value acc, bool accumulate) {
    MatmulOp::create(b, loc, x, w, acc, accumulate);
  }
  Value load(Value table, Value at) {
    return LoadOp::create(b, loc, b.getIndexType(), table, ValueRange{at});
  }

  /// scf.for lb..ub step `step` with `inits`; `body` gets the induction
  /// variable and the iter_args and returns the yielded values.
  SmallVector<Value>
  loop(int64_t lb, int64_t ub, int64_t step, ValueRange inits,
       llvm::function_ref<SmallVector<Value>(Value, ValueRange)> body) {
    Value l = c(lb), u = c(ub), s = c(step);
    auto op = scf::ForOp::create(
        b, loc, l, u, s, inits,
        [&](OpBuilder &nested, Location, Value iv, ValueRange args) {
          OpBuilder::InsertionGuard guard(b);
          b.setInsertionPoint(nested.getInsertionBlock(),
                              nested.getInsertionPoint());
          SmallVector<Value> yielded = body(iv, args);
          scf::YieldOp::create(b, loc, yielded);
        });
    return SmallVector<Value>(op.getResults());
  }

  /// A loop over `loop.trip` tiles `loop.stride` elements apart, written in
  /// the drawn style; `body` gets the tile's offset.
  void tileLoop(const TileLoop &t, llvm::function_ref<void(Value)> body) {
    auto none = [] { return SmallVector<Value>(); };
    int64_t trip = t.trip, stride = t.stride;
    switch (t.style) {
    case 0: // The induction variable is the offset (non-unit step).
      loop(0, trip * stride, stride, {}, [&](Value iv, ValueRange) {
        body(iv);
        return none();
      });
      return;
    case 1: // offset = i * stride.
      loop(0, trip, 1, {}, [&](Value iv, ValueRange) {
        body(mul(iv, c(stride)));
        return none();
      });
      return;
    case 2: // The offset advanced by a constant in iter_args.
      loop(0, trip, 1, ValueRange{c(0)}, [&](Value, ValueRange args) {
        body(args[0]);
        return SmallVector<Value>{add(args[0], c(stride))};
      });
      return;
    case 3: { // A non-zero lower bound.
      int64_t lo = 2 * stride;
      loop(lo, lo + trip * stride, stride, {}, [&](Value iv, ValueRange) {
        body(sub(iv, c(lo)));
        return none();
      });
      return;
    }
    default: // Every third tile (step 3 on a tile index).
      loop(0, 3 * trip, 3, {}, [&](Value iv, ValueRange) {
        body(mul(iv, c(stride)));
        return none();
      });
      return;
    }
  }

  /// Sets the function type and the arguments' accel.init attributes.
  void finish() {
    func::ReturnOp::create(b, loc);
    Block &entry = func.getBody().front();
    func.setType(FunctionType::get(&ctx, entry.getArgumentTypes(), {}));
    for (auto [i, init] : llvm::enumerate(inits))
      if (!init.empty())
        func.setArgAttr(unsigned(i), "accel.init", b.getStringAttr(init));
  }

  MLIRContext &ctx;
  OpBuilder b;
  Location loc;
  func::FuncOp func;
  const GenMachine &machine;
  /// The element type of the current statement's tensors: f32 or bf16.
  Type floatType;
  std::vector<std::string> inits;
  uint64_t vmemUsed = 0;
  /// Whether statements may put accel.alloc inside loops.
  bool allocInLoops = false;
};

/// Halves the largest of `dims` (above its minimum) until `bytes()` fits
/// `budget`; false if it cannot.
static bool shrinkToFit(SmallVector<std::pair<int64_t *, int64_t>> dims,
                        llvm::function_ref<uint64_t()> bytes,
                        uint64_t budget) {
  while (bytes() > budget) {
    std::pair<int64_t *, int64_t> *best = nullptr;
    for (auto &d : dims)
      if (*d.first > d.second && (!best || *d.first > *best->first))
        best = &d;
    if (!best)
      return false;
    *best->first = std::max(best->second, *best->first / 2);
  }
  return true;
}

/// What a statement may use.
struct Budget {
  uint64_t vmem;
  int64_t trips;
};

//===----------------------------------------------------------------------===//
// Statements
//===----------------------------------------------------------------------===//

/// Tiled elementwise work over row tiles and/or column bands of a matrix,
/// one or two inputs, an optional second output, buffer reuse, allocations
/// inside the loops, WAITs right after the ISSUE or just before the use.
static std::string emitElementwise(Emitter &e, Rng &r, Budget budget) {
  int64_t tr = r.pick<int64_t>({1, 2, 4, 8, 16});
  int64_t tc = r.pick<int64_t>({8, 16, 32, 64, 128});
  bool twoInputs = r.chance(60);
  bool reuse = twoInputs && r.chance(35);  // one VMEM buffer, two tensors
  bool secondOut = r.chance(40);
  bool broadcast = r.chance(25);           // y is a row-sum column
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
  if (!shrinkToFit({{&tc, 8}, {&tr, 1}},
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
static std::string emitMatmul(Emitter &e, Rng &r, Budget budget) {
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
      e.tileLoop(lm, [&](Value m) {
        rowTile(base ? e.add(base, m) : m);
      });
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
static std::string emitGather(Emitter &e, Rng &r, Budget budget) {
  int64_t cols = r.pick<int64_t>({8, 16, 32, 64, 128});
  int64_t g = r.pick<int64_t>({1, 1, 2, 4});
  int64_t trips = budget.trips;
  int64_t n = drawTrip(r, trips);
  int64_t chunks = r.chance(40) ? std::min<int64_t>(3, drawTrip(r, trips)) : 1;
  int64_t t0 = r.range(0, 5), shift = r.range(0, 7);
  int64_t step = n > 2 && r.chance(30) ? 2 : 1;
  bool useMax = r.chance(30);
  bool rowSums = r.chance(40);
  if (!shrinkToFit({{&cols, 8}, {&g, 1}},
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
static std::string emitScratch(Emitter &e, Rng &r, Budget budget) {
  int64_t tr = r.pick<int64_t>({1, 2, 4, 8});
  int64_t tc = r.pick<int64_t>({8, 16, 32, 64, 128});
  int64_t trips = budget.trips;
  int64_t trip = drawTrip(r, trips);
  bool sameIter = r.chance(50);
  bool reverse = !sameIter && r.chance(50);
  bool reuse = r.chance(50); // reload into the input's buffer
  unsigned op1 = unsigned(r.next()), op2 = unsigned(r.next());
  if (!shrinkToFit({{&tc, 8}, {&tr, 1}},
                   [&] { return (reuse ? 4 : 5) * e.vmemBytes(tr * tc); },
                   budget.vmem))
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
      Value row = reverse ? e.mul(e.sub(e.c(trip - 1), i), e.c(tr))
                          : e.mul(i, e.c(tr));
      consume(row);
      return SmallVector<Value>();
    });
  }
  return llvm::formatv("scratch {0}x{1} tiles, {2} trips{3}{4}", tr, tc, trip,
                       sameIter ? ", same iteration" : ", two loops",
                       reverse ? " reversed" : "")
      .str();
}

/// A decode-style step loop (issue 33): a state of `rows` x N in VMEM,
/// multiplied each step by an N x N weight K tile by K tile (a nested loop
/// reading column views of the state taken in it, or the K tiles written
/// out with views taken before the step loop), squashed by tanh, and copied
/// back into the state at the step's end (a VPU copy or a VMEM-to-VMEM
/// DMA) for the next step to read: a buffer written late in one iteration
/// and read early in the next, through views.
static std::string emitCarriedState(Emitter &e, Rng &r, Budget budget) {
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
static std::string emitWindowViews(Emitter &e, Rng &r, Budget budget) {
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

/// Row softmax over column bands: per row tile (buffers allocated in the
/// outer loop and used in the nested ones), a running max over the bands,
/// then exp(x - max) stored band by band and the row sums.
static std::string emitRowReduce(Emitter &e, Rng &r, Budget budget) {
  int64_t tr = r.pick<int64_t>({1, 2, 4, 8});
  int64_t cb = r.pick<int64_t>({8, 16, 32, 64});
  int64_t trips = budget.trips;
  int64_t tripC = drawTrip(r, trips);
  int64_t tripR = r.chance(60) ? drawTrip(r, trips) : 1;
  bool allocInLoop = r.chance(60) && e.allocInLoops;
  bool normalize = r.chance(40);
  if (!shrinkToFit({{&cb, 8}, {&tr, 1}},
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

} // namespace

//===----------------------------------------------------------------------===//
// Machine
//===----------------------------------------------------------------------===//

GenMachine accel::gen::drawMachine(uint64_t seed) {
  Rng r(streamSeed(seed, ~0ull));
  GenMachine m;
  m.pageBytes = r.pick<uint64_t>({256, 512, 1024});
  m.pagesPerBlock = r.pick<uint64_t>({16, 32, 64});
  uint64_t target = uint64_t(r.range(192, 640)) * 1024;
  m.blocks = std::max<uint64_t>(1, target / (m.pageBytes * m.pagesPerBlock));
  m.vmemBytes = m.blocks * m.pagesPerBlock * m.pageBytes;
  m.maxOutstanding = unsigned(r.range(1, 8));
  m.mxuRows = r.pick<unsigned>({32, 64, 128});
  m.mxuCols = r.pick<unsigned>({32, 64, 128});
  m.mxuDataflow = r.pick<const char *>({"ws", "is", "os"});
  m.mxuOverlap = r.pick<bool>({true, false});
  m.vpuSublanes = r.pick<unsigned>({1, 8});
  m.vpuLanes = r.pick<unsigned>({128, 256, 512, 1024});
  m.vpuDepth = unsigned(r.range(0, 12));
  for (int i = 0; i < 3; ++i) {
    m.baseLatency[i] = unsigned(r.range(0, 500)) * 2 + 1; // odd, 1..1001
    // Odd bandwidths: 37.5 .. 2048 bytes per cycle.
    m.bytesPerCycle[i] =
        r.pick<double>({37.5, 64, 100, 128, 333, 512, 777.25, 1024, 2048});
  }
  return m;
}

std::string GenMachine::toJson(uint64_t seed) const {
  llvm::json::Array links;
  const char *pairs[3][2] = {{"hbm", "vmem"}, {"vmem", "hbm"}, {"vmem", "vmem"}};
  for (int i = 0; i < 3; ++i)
    links.push_back(llvm::json::Object{{"src", pairs[i][0]},
                                       {"dst", pairs[i][1]},
                                       {"base_latency", baseLatency[i]},
                                       {"bytes_per_cycle", bytesPerCycle[i]}});
  llvm::json::Object doc{
      {"name", ("accel-gen-" + llvm::Twine(seed)).str()},
      {"vmem", llvm::json::Object{{"bytes", vmemBytes},
                                  {"page_bytes", pageBytes},
                                  {"blocks", blocks},
                                  {"pages_per_block", pagesPerBlock}}},
      {"mxu", llvm::json::Object{{"rows", mxuRows},
                                 {"cols", mxuCols},
                                 {"dataflow", mxuDataflow},
                                 {"overlap", mxuOverlap}}},
      {"vpu", llvm::json::Object{{"sublanes", vpuSublanes},
                                 {"lanes", vpuLanes},
                                 {"pipeline_depth", vpuDepth}}},
      {"dma", llvm::json::Object{{"max_outstanding", maxOutstanding},
                                 {"links", std::move(links)}}},
      {"sources", llvm::json::Object{{"accel-gen", "random machine for seed " +
                                                       std::to_string(seed)}}}};
  std::string text;
  llvm::raw_string_ostream os(text);
  os << llvm::formatv("{0:2}", llvm::json::Value(std::move(doc))) << "\n";
  return text;
}

//===----------------------------------------------------------------------===//
// Program
//===----------------------------------------------------------------------===//

FailureOr<GeneratedProgram>
accel::gen::generateProgram(MLIRContext &ctx, const GenOptions &options) {
  GeneratedProgram result;
  result.machine = drawMachine(options.seed);
  unsigned size = std::max(1u, options.size);
  Rng plan(streamSeed(options.seed, ~1ull));
  result.numStatements = unsigned(plan.range(2, 2 + size));

  OpBuilder b(&ctx);
  Location loc = UnknownLoc::get(&ctx);
  result.module = ModuleOp::create(loc);
  b.setInsertionPointToEnd(result.module->getBody());
  auto func = func::FuncOp::create(b, loc, "main",
                                   FunctionType::get(&ctx, {}, {}));
  func.addEntryBlock();
  Emitter e(ctx, func, result.machine);
  e.allocInLoops = options.allocInLoops;

  // Each statement: an equal share of half the VMEM, and a trip budget.
  Budget budget{result.machine.vmemBytes / 2 / result.numStatements,
                int64_t(24 * size)};
  using EmitFn = std::string (*)(Emitter &, Rng &, Budget);
  const EmitFn kinds[] = {emitElementwise, emitMatmul, emitGather,
                          emitScratch, emitRowReduce};
  // Drawn from a stream of their own, one statement in four (issue 33's
  // shapes), so the other statements of a seed stay what they were.
  const EmitFn laterKinds[] = {emitCarriedState, emitWindowViews};
  for (unsigned i = 0; i < result.numStatements; ++i) {
    Rng r(streamSeed(options.seed, i));
    unsigned kind = unsigned(r.range(0, std::size(kinds) - 1));
    Rng later(streamSeed(options.seed, 0x200000 + i));
    EmitFn emit = kinds[kind];
    if (later.chance(25))
      emit = laterKinds[later.range(0, std::size(laterKinds) - 1)];
    if (llvm::is_contained(options.drop, i))
      continue;
    // A separate stream, so the statements of a seed are the ones they
    // were before bf16, only their element type drawn anew.
    Rng precision(streamSeed(options.seed, 0x100000 + i));
    bool bf16 = options.bf16 && precision.range(0, 3) == 0;
    e.floatType = bf16 ? Type(b.getBF16Type()) : Type(b.getF32Type());
    uint64_t before = e.vmemUsed;
    std::string what = emit(e, r, budget);
    if (bf16 && !what.empty())
      what += " (bf16)";
    if (what.empty())
      continue; // did not fit the budget (nothing was emitted)
    if (e.vmemUsed - before > budget.vmem)
      return func.emitError() << "accel-gen: statement " << i << " uses "
                              << e.vmemUsed - before
                              << " VMEM bytes, more than its budget of "
                              << budget.vmem;
    result.kept.push_back(i);
    result.summary.push_back(("statement " + llvm::Twine(i) + ": " + what).str());
  }
  e.finish();
  if (failed(verify(*result.module)))
    return failure();
  return result;
}
