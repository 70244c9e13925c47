//===- Collectives.h - Collectives to remote DMAs ---------------*- C++ -*-===//
//
// What --accel-lower-collectives (LowerCollectives.cpp) shares with its
// cost model (CollectivesCost.cpp) and its code for each collective
// (CollectivesGather.cpp, CollectivesReduce.cpp): the machine and group a
// collective runs on, and the Emitter that builds its straight-line code
// (internal to lib/Transforms). docs/collectives.md has the algorithms and
// the cost model.
//
//===----------------------------------------------------------------------===//

#ifndef ACCEL_LIB_TRANSFORMS_COLLECTIVES_H
#define ACCEL_LIB_TRANSFORMS_COLLECTIVES_H

#include "accel/Dialect/Accel/AccelDialect.h"
#include "accel/Dialect/Accel/AccelOps.h"
#include "accel/Sim/Topology.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Builders.h"

#include "llvm/ADT/DenseMap.h"

#include <deque>
#include <vector>

namespace accel::detail::collectives {

using namespace mlir;

/// What the cost model knows of the machine (docs/collectives.md).
struct Machine {
  unsigned chips = 1;
  sim::Topology topology;
  uint64_t hopLatency = 0, baseLatency = 0;
  double bytesPerCycle = 1;
};

/// The chips a collective runs among (docs/collectives.md, "Groups"): the
/// system's chips are partitioned into groups of `size` chips, each
/// `stride` apart; chip c is member (c / stride) mod size of the group
/// whose first member is c - that * stride. The whole system is one group
/// of `chips` with stride 1.
struct Group {
  unsigned size = 1, stride = 1;
  bool whole = true;
  /// The chip distance between members r and r + k (mod the system).
  unsigned offset(const Machine &m, unsigned k) const {
    return unsigned((uint64_t(k) * stride) % m.chips);
  }
};

enum class Kind { AllGather, ReduceScatter, AllReduce, AllToAll };

/// An algorithm that applies to a collective, with its estimate (cycles).
struct Candidate {
  StringRef name;
  uint64_t cycles;
};

/// The algorithms that apply to a collective of `kind` moving blocks of
/// `blockBytes` (an all-reduce: `tileBytes`, its whole tile, of `rows`
/// rows, and blocks of a reduce-scatter's), with their estimates, cheapest
/// first (CollectivesCost.cpp).
std::vector<Candidate> estimate(const Machine &m, const Group &g, Kind kind,
                                int64_t rows, int64_t cols, uint64_t blockBytes,
                                uint64_t tileBytes);

/// Emits one collective (see the file comment), at the builder's point.
class Emitter {
public:
  Emitter(OpBuilder &b, Location loc, const Machine &m, const Group &g,
          llvm::SmallVectorImpl<int32_t> &freeSemaphores)
      : b(b), loc(loc), m(m), g(g), n(g.size), freeSemaphores(freeSemaphores) {}

  /// A semaphore nothing else uses, or failure.
  FailureOr<int32_t> takeSemaphore(Operation *op) {
    if (freeSemaphores.empty())
      return op->emitOpError("needs a semaphore, but all 256 are in use");
    int32_t s = freeSemaphores.back();
    freeSemaphores.pop_back();
    return s;
  }

  /// An index constant, one per value (the code is straight-line, so the
  /// first dominates every later use).
  Value cst(int64_t v) {
    Value &c = constants[v];
    if (!c)
      c = arith::ConstantIndexOp::create(b, loc, v).getResult();
    return c;
  }
  /// This chip's rank in its group (its chip id when the group is the
  /// whole system).
  Value me() {
    if (!chipId)
      chipId = ChipIdOp::create(b, loc, b.getIndexType()).getResult();
    if (g.whole)
      return chipId;
    if (!rank) {
      // rank = (c / stride) mod size; the group's first chip = c - rank *
      // stride.
      Value q = g.stride == 1 ? chipId : divc(chipId, g.stride);
      rank = remc(q, g.size);
      Value back = g.stride == 1 ? rank : mulc(rank, g.stride);
      groupBase = sub(chipId, back);
    }
    return rank;
  }
  /// The chip id of the member of rank `index` of this chip's group.
  Value chipOf(Value index) {
    if (g.whole)
      return index;
    me();
    Value offset = g.stride == 1 ? index : mulc(index, g.stride);
    return add(groupBase, offset);
  }
  // Index arithmetic, each op built after its operands (C++ leaves the
  // order of a call's arguments unspecified, and the IR must not depend on
  // the compiler: utils/check-eval-order.py). Callers pass at most one
  // argument that builds IR.
  Value addc(Value a, int64_t k) {
    Value c = cst(k);
    return arith::AddIOp::create(b, loc, a, c);
  }
  Value mulc(Value a, int64_t k) {
    Value c = cst(k);
    return arith::MulIOp::create(b, loc, a, c);
  }
  Value remc(Value a, int64_t k) {
    Value c = cst(k);
    return arith::RemUIOp::create(b, loc, a, c);
  }
  Value divc(Value a, int64_t k) {
    Value c = cst(k);
    return arith::DivUIOp::create(b, loc, a, c);
  }
  Value sub(Value a, Value c) { return arith::SubIOp::create(b, loc, a, c); }
  Value add(Value a, Value c) { return arith::AddIOp::create(b, loc, a, c); }
  /// The rank (me + k) mod N, for 0 <= k < 2N.
  Value peer(int64_t k) { return step(me(), k, n); }
  /// (v + k) mod `size`: the next index round a ring. Steps of a collective
  /// derive each index from the previous one (a few constants live across
  /// the collective, not one per step: the lowering has 255 registers).
  Value step(Value v, int64_t k, int64_t size) {
    Value sum = addc(v, k);
    return remc(sum, size);
  }
  /// Sends to the N - 1 other members in the shift order (me + 1, me + 2,
  /// ...): `sendTo(rank, chip)` issues one and returns its token. At most
  /// kWindow are left unWAITed at a time (the oldest is WAITed before the
  /// next is issued past it), then `semaphore` waits for `signals`, and the
  /// rest are WAITed.
  void sendToAll(llvm::function_ref<Value(Value, Value)> sendTo,
                 int32_t semaphore, int64_t signals) {
    constexpr size_t kWindow = 32;
    std::deque<Value> tokens;
    Value p = me();
    for (unsigned k = 1; k < n; ++k) {
      p = step(p, 1, n);
      Value chip = chipOf(p);
      tokens.push_back(sendTo(p, chip));
      if (tokens.size() > kWindow) {
        DmaWaitOp::create(b, loc, tokens.front());
        tokens.pop_front();
      }
    }
    waitSignals(semaphore, signals);
    for (Value t : tokens)
      DmaWaitOp::create(b, loc, t);
  }
  /// `rows` rows of `buf` from row `first`.
  Value rowsOf(Value buf, OpFoldResult first, int64_t rows) {
    auto type = cast<MemRefType>(buf.getType());
    SmallVector<OpFoldResult> offsets = {first, b.getIndexAttr(0)};
    SmallVector<OpFoldResult> sizes = {b.getIndexAttr(rows),
                                       b.getIndexAttr(type.getDimSize(1))};
    SmallVector<OpFoldResult> strides = {b.getIndexAttr(1), b.getIndexAttr(1)};
    return memref::SubViewOp::create(b, loc, buf, offsets, sizes, strides);
  }
  Value block(Value buf, Value index, int64_t rows) {
    Value first = mulc(index, rows);
    return rowsOf(buf, first, rows);
  }
  /// Block `index` (a constant) of `rows` rows.
  Value block(Value buf, int64_t index, int64_t rows) {
    return rowsOf(buf, b.getIndexAttr(index * rows), rows);
  }
  Value send(Value src, Value dst, Value chip, int32_t semaphore) {
    return DmaStartOp::create(b, loc, TokenType::get(b.getContext()), src, dst,
                              Value(), chip, b.getI32IntegerAttr(semaphore))
        .getResult();
  }
  void copy(Value src, Value dst) {
    Value t = DmaStartOp::create(b, loc, src, dst).getResult();
    DmaWaitOp::create(b, loc, t);
  }
  void waitSignals(int32_t semaphore, int64_t count) {
    Value c = cst(count);
    SemWaitOp::create(b, loc, semaphore, c);
  }
  Value alloc(int64_t rows, int64_t cols, Type elem) {
    auto vmem = MemorySpaceAttr::get(b.getContext(), MemorySpace::VMEM);
    return AllocOp::create(
        b, loc,
        MemRefType::get({rows, cols}, elem, MemRefLayoutAttrInterface(), vmem));
  }

  OpBuilder &b;
  Location loc;
  const Machine &m;
  const Group &g;
  /// The group's size: the N of every algorithm.
  unsigned n;
  llvm::SmallVectorImpl<int32_t> &freeSemaphores;
  Value chipId, rank, groupBase;
  llvm::DenseMap<int64_t, Value> constants;
};

/// Rows and columns of a 2-D VMEM tile.
inline std::pair<int64_t, int64_t> shapeOf(Value v) {
  auto t = cast<MemRefType>(v.getType());
  return {t.getDimSize(0), t.getDimSize(1)};
}

// The code of each collective with algorithm `algo` (one Candidate's
// name), at the Emitter's point; errors (no free semaphore, an algorithm
// not implemented) are reported on `op`.

/// all_gather: `in` R x C, `out` (N R) x C (CollectivesGather.cpp).
LogicalResult emitAllGather(Emitter &e, Operation *op, StringRef algo, Value in,
                            Value out);
/// all_to_all: `in` and `out` (N R) x C, always direct
/// (CollectivesGather.cpp).
LogicalResult emitAllToAll(Emitter &e, Operation *op, Value in, Value out);
/// reduce_scatter: `in` (N R) x C, `out` R x C (CollectivesReduce.cpp).
LogicalResult emitReduceScatter(Emitter &e, Operation *op, StringRef algo,
                                Value in, Value out);
/// all_reduce: `in` and `out` R x C (CollectivesReduce.cpp).
LogicalResult emitAllReduce(Emitter &e, Operation *op, StringRef algo, Value in,
                            Value out);

} // namespace accel::detail::collectives

#endif // ACCEL_LIB_TRANSFORMS_COLLECTIVES_H
