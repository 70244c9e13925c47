//===- CollectivesReduce.cpp - reduce_scatter and all_reduce's code -------===//
//
// emitReduceScatter and emitAllReduce (Collectives.h): the collectives that
// add, one function per algorithm (docs/collectives.md). Every chip adds
// the same blocks in the same order, so every chip's sum is the same to
// the bit.
//
//===----------------------------------------------------------------------===//

#include "Collectives.h"

using namespace mlir;
using namespace accel;
using namespace accel::detail::collectives;

/// out = the sum of the N blocks of `slots` in chip order, ((s0 + s1) +
/// s2) + ..., the same order on every chip, so every chip's sum is the
/// same to the bit.
static void emitSum(Emitter &e, Value slots, unsigned n, int64_t rows,
                    Value out) {
  for (unsigned j = 1; j < n; ++j) {
    Value x = j == 1 ? e.block(slots, int64_t(0), rows) : out;
    Value y = e.block(slots, int64_t(j), rows);
    VAddOp::create(e.b, e.loc, x, y, out);
  }
}

namespace {
/// One ring reduce-scatter among M members, emitted a step at a time (so
/// two rings, one each way, can interleave). Member `index` (a run-time
/// value in [0, M)) holds `in`, M blocks of `blockRows` rows of which the
/// ring reduces the rows [sliceOffset, sliceOffset + sliceRows) of each;
/// it ends with the sum over the members of its own block's slice in
/// `out`. Step s sends the partial sum of block (index - dir (s + 1)) to
/// chip `next` (the member at index + dir) and adds its own part of block
/// (index - dir (s + 2)), which arrives from the member at index - dir.
struct RingReduceScatter {
  Emitter &e;
  Value in, out, index, next;
  unsigned members;
  int64_t blockRows, sliceOffset, sliceRows;
  int dir;
  int32_t semaphore;
  Value recv, part;
  /// The block the next step sends: (index - dir (s + 1)) mod M.
  Value current;

  void allocate(Type elem, int64_t cols) {
    recv = e.alloc(sliceRows * (members - 1), cols, elem);
    if (members > 2)
      part = e.alloc(sliceRows * (members - 2), cols, elem);
  }
  /// The block after `b` in the ring's order: (b - dir) mod M.
  Value after(Value b) {
    return e.step(b, dir > 0 ? int64_t(members) - 1 : 1, members);
  }
  /// The slice of `in`'s block `b`.
  Value inSlice(Value b) {
    Value row = e.mulc(b, blockRows);
    Value first = e.addc(row, sliceOffset);
    return e.rowsOf(in, first, sliceRows);
  }
  /// Sends step s's partial sum; returns the DMA's token.
  Value send(unsigned st) {
    if (st == 0)
      current = after(index);
    Value src =
        st == 0 ? inSlice(current) : e.block(part, int64_t(st - 1), sliceRows);
    Value dst = e.block(recv, int64_t(st), sliceRows);
    return e.send(src, dst, next, semaphore);
  }
  /// Adds what step s received to this member's part of it.
  void add(unsigned st) {
    bool last = st + 2 == members;
    current = after(current);
    Value own = inSlice(current);
    Value dst = last ? out : e.block(part, int64_t(st), sliceRows);
    Value got = e.block(recv, int64_t(st), sliceRows);
    VAddOp::create(e.b, e.loc, got, own, dst);
  }
};

/// The code of one reduce_scatter (`in` (N R) x C, `out` R x C, of `elem`)
/// among more than one chip, after its first semaphore `s` is taken; this
/// chip's own block of `in` is `mine` (block `me`).
struct ReduceScatter {
  Emitter &e;
  Operation *op;
  Value in, out;
  int64_t rows, cols;
  Type elem;
  Value me, mine;
  int32_t s;

  /// Direct: every chip's block of chip p goes to p's slot of its sender;
  /// p adds the N slots in chip order.
  LogicalResult direct() {
    unsigned n = e.n;
    Value slots = e.alloc(rows * n, cols, elem);
    Value slot = e.block(slots, me, rows);
    e.copy(mine, slot);
    e.sendToAll(
        [&](Value peer, Value chip) {
          Value theirs = e.block(in, peer, rows);
          return e.send(theirs, slot, chip, s);
        },
        s, n - 1);
    emitSum(e, slots, n, rows, out);
    return success();
  }

  /// Runs `rings` (of the same member count) step by step together: each
  /// step's sends, then its waits, adds and DMA WAITs.
  void runRings(llvm::MutableArrayRef<RingReduceScatter> rings) {
    for (RingReduceScatter &r : rings)
      r.allocate(elem, cols);
    for (unsigned st = 0; st + 1 < rings.front().members; ++st) {
      SmallVector<Value> tokens;
      for (RingReduceScatter &r : rings)
        tokens.push_back(r.send(st));
      for (RingReduceScatter &r : rings)
        e.waitSignals(r.semaphore, 1);
      for (RingReduceScatter &r : rings)
        r.add(st);
      for (Value t : tokens)
        DmaWaitOp::create(e.b, e.loc, t);
    }
  }

  /// One ring round the group.
  LogicalResult ring() {
    Value next = e.chipOf(e.peer(1));
    RingReduceScatter r{e, in, out, me, next, e.n, rows, 0, rows, +1, s};
    runRings(r);
    return success();
  }

  /// Two rings: the first half of each block's rows round one way, the
  /// rest the other.
  LogicalResult bidirectionalRing() {
    unsigned n = e.n;
    FailureOr<int32_t> s2 = e.takeSemaphore(op);
    if (failed(s2))
      return failure();
    int64_t half = rows / 2;
    Value next = e.chipOf(e.peer(1));
    Value prev = e.chipOf(e.peer(n - 1));
    Value first = e.rowsOf(out, e.b.getIndexAttr(0), half);
    Value second = e.rowsOf(out, e.b.getIndexAttr(half), rows - half);
    RingReduceScatter rings[2] = {
        {e, in, first, me, next, n, rows, 0, half, +1, s},
        {e, in, second, me, prev, n, rows, half, rows - half, -1, *s2}};
    runRings(rings);
    return success();
  }

  /// A 2-D torus (the whole system): a ring along Y of the super-blocks of
  /// X blocks (the row y' of chips owns rows [y' X R, (y' + 1) X R)), then
  /// a ring along X of the blocks of this row's sum: the dual of the
  /// all-gather's X then Y.
  LogicalResult torus2d() {
    auto dims = e.m.topology.getDims();
    unsigned nx = dims[0], ny = dims[1];
    FailureOr<int32_t> s2 = e.takeSemaphore(op);
    if (failed(s2))
      return failure();
    Value x = e.remc(me, nx);
    Value y = e.divc(me, nx);
    auto chipAt = [&](Value xv, Value yv) {
      Value row = e.mulc(yv, nx);
      return e.add(xv, row);
    };
    auto plus1 = [&](Value v, unsigned size) {
      Value next = e.addc(v, 1);
      return e.remc(next, size);
    };
    Value rowSum = e.alloc(rows * nx, cols, elem);
    if (ny > 1) {
      Value yNext = plus1(y, ny);
      Value next = chipAt(x, yNext);
      RingReduceScatter r{e,         in, rowSum,    y,  next, ny,
                          rows * nx, 0,  rows * nx, +1, s};
      runRings(r);
    } else {
      e.copy(in, rowSum);
    }
    if (nx > 1) {
      Value xNext = plus1(x, nx);
      Value next = chipAt(xNext, y);
      RingReduceScatter r{e, rowSum, out, x, next, nx, rows, 0, rows, +1, *s2};
      runRings(r);
    } else {
      e.copy(rowSum, out);
    }
    return success();
  }

  /// Recursive halving (N a power of two): an accumulator starts as `in`;
  /// at step k (from N / 2 down to 1) a chip keeps the half of its range
  /// of 2k blocks that holds its own block, sends the other half of its
  /// accumulator to chip me ^ k, and adds what that chip sends of its
  /// half. One semaphore per step.
  LogicalResult recursiveHalving() {
    unsigned n = e.n;
    Value acc = e.alloc(rows * n, cols, elem);
    e.copy(in, acc);
    Value recv = e.alloc(rows * (n - 1), cols, elem);
    int64_t used = 0;
    bool firstStep = true;
    for (unsigned k = n / 2; k >= 1; k /= 2) {
      FailureOr<int32_t> sk =
          firstStep ? FailureOr<int32_t>(s) : e.takeSemaphore(op);
      firstStep = false;
      if (failed(sk))
        return failure();
      Value q = e.divc(me, k);
      Value bit = e.remc(q, 2);
      Value keep = e.mulc(q, k);
      // The other half starts k blocks up (bit 0) or down (bit 1).
      Value up = e.addc(keep, k);
      Value twice = e.mulc(bit, 2 * k);
      Value give = e.sub(up, twice);
      Value meUp = e.addc(me, k);
      Value partner = e.sub(meUp, twice);
      auto blocks = [&](Value buf, Value first) {
        Value row = e.mulc(first, rows);
        return e.rowsOf(buf, row, rows * k);
      };
      Value slot = e.rowsOf(recv, e.b.getIndexAttr(used * rows), rows * k);
      used += k;
      Value gift = blocks(acc, give);
      Value t = e.send(gift, slot, e.chipOf(partner), *sk);
      e.waitSignals(*sk, 1);
      Value mineNow = blocks(acc, keep);
      VAddOp::create(e.b, e.loc, mineNow, slot, mineNow);
      DmaWaitOp::create(e.b, e.loc, t);
      if (k == 1)
        break;
    }
    Value own = e.block(acc, me, rows);
    e.copy(own, out);
    return success();
  }
};
} // namespace

LogicalResult accel::detail::collectives::emitReduceScatter(
    Emitter &e, Operation *op, StringRef algo, Value in, Value out) {
  auto [rows, cols] = shapeOf(out);
  Type elem = cast<MemRefType>(in.getType()).getElementType();
  Value me = e.me();
  Value mine = e.block(in, me, rows);
  if (e.n == 1) {
    e.copy(mine, out);
    return success();
  }
  FailureOr<int32_t> s = e.takeSemaphore(op);
  if (failed(s))
    return failure();
  ReduceScatter r{e, op, in, out, rows, cols, elem, me, mine, *s};
  if (algo == "direct")
    return r.direct();
  if (algo == "ring")
    return r.ring();
  if (algo == "bidirectional_ring")
    return r.bidirectionalRing();
  if (algo == "torus2d")
    return r.torus2d();
  if (algo == "recursive_doubling")
    return r.recursiveHalving();
  return op->emitOpError() << "algorithm '" << algo
                           << "' is not implemented for reduce_scatter";
}

LogicalResult accel::detail::collectives::emitAllReduce(Emitter &e,
                                                        Operation *op,
                                                        StringRef algo,
                                                        Value in, Value out) {
  unsigned n = e.n;
  auto [rows, cols] = shapeOf(in);
  Type elem = cast<MemRefType>(in.getType()).getElementType();
  if (n == 1) {
    e.copy(in, out);
    return success();
  }
  if (algo == "direct") {
    // Every chip's tile to every chip's slot of its sender, then the N
    // slots added in chip order (the same sum, to the bit, on every chip).
    FailureOr<int32_t> s = e.takeSemaphore(op);
    if (failed(s))
      return failure();
    Value slots = e.alloc(rows * n, cols, elem);
    Value me = e.me();
    Value mine = e.block(slots, me, rows);
    e.copy(in, mine);
    e.sendToAll([&](Value, Value chip) { return e.send(in, mine, chip, *s); },
                *s, n - 1);
    emitSum(e, slots, n, rows, out);
    return success();
  }
  // A reduce-scatter of the rows into this chip's block of `out`, then an
  // all-gather of the blocks.
  int64_t block = rows / n;
  Value piece = e.alloc(block, cols, elem);
  if (failed(emitReduceScatter(e, op, algo, in, piece)))
    return failure();
  return emitAllGather(e, op, algo, piece, out);
}
