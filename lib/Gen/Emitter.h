//===- Emitter.h - accel-gen's builder and random stream --------*- C++ -*-===//
//
// Internal to lib/Gen: the random stream, the Emitter (an OpBuilder with
// the buffer, DMA and loop helpers the statements are written with), and
// the statement kinds, defined in Statements.cpp (the first kinds) and
// LoopShapes.cpp (the loop shapes of issue 33). ProgramGenerator.cpp draws
// the machine and the plan and calls them.
//
//===----------------------------------------------------------------------===//

#ifndef ACCEL_LIB_GEN_EMITTER_H
#define ACCEL_LIB_GEN_EMITTER_H

#include "accel/Dialect/Accel/AccelDialect.h"
#include "accel/Dialect/Accel/AccelOps.h"
#include "accel/Gen/ProgramGenerator.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>
#include <string>
#include <vector>

namespace accel {
namespace gen {
namespace detail {

using namespace mlir;

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
inline uint64_t streamSeed(uint64_t seed, uint64_t index) {
  Rng r(seed * 0x2545f4914f6cdd1dULL + index * 0x9e3779b97f4a7c15ULL + 1);
  return r.next();
}

/// Trip counts whose product stays within `budget` (each 1..40).
inline int64_t drawTrip(Rng &r, int64_t &budget) {
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

inline TileLoop drawTileLoop(Rng &r, int64_t trip, int64_t stride) {
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
inline bool shrinkToFit(SmallVector<std::pair<int64_t *, int64_t>> dims,
                        llvm::function_ref<uint64_t()> bytes, uint64_t budget) {
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

/// A statement kind: emits one statement at the end of `e`'s function from
/// the stream `r` within `budget`, and returns the line the header shows
/// for it, or "" when it does not fit the budget (nothing was emitted).
using EmitFn = std::string (*)(Emitter &e, Rng &r, Budget budget);

// Statements.cpp: the first kinds (docs/testing.md's table, rows 1-5).
std::string emitElementwise(Emitter &e, Rng &r, Budget budget);
std::string emitMatmul(Emitter &e, Rng &r, Budget budget);
std::string emitGather(Emitter &e, Rng &r, Budget budget);
std::string emitScratch(Emitter &e, Rng &r, Budget budget);
std::string emitRowReduce(Emitter &e, Rng &r, Budget budget);

// LoopShapes.cpp: issue 33's loop shapes (the table's later rows).
std::string emitCarriedState(Emitter &e, Rng &r, Budget budget);
std::string emitWindowViews(Emitter &e, Rng &r, Budget budget);
std::string emitPingPong(Emitter &e, Rng &r, Budget budget);
std::string emitRing(Emitter &e, Rng &r, Budget budget);
std::string emitRuntimeTrip(Emitter &e, Rng &r, Budget budget);
std::string emitRepeatedLoads(Emitter &e, Rng &r, Budget budget);
std::string emitManyTiles(Emitter &e, Rng &r, Budget budget);

} // namespace detail
} // namespace gen
} // namespace accel

#endif // ACCEL_LIB_GEN_EMITTER_H
