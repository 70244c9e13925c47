//===- CollectivesGather.cpp - all_gather and all_to_all's code -----------===//
//
// emitAllGather and emitAllToAll (Collectives.h): the collectives that
// only move blocks, one function per algorithm (docs/collectives.md).
//
//===----------------------------------------------------------------------===//

#include "Collectives.h"

using namespace mlir;
using namespace accel;
using namespace accel::detail::collectives;

namespace {
/// The code of one all_gather (`in` R x C, `out` (N R) x C) after this
/// chip's own block is copied into `out` (`mine`, block `me`).
struct AllGather {
  Emitter &e;
  Operation *op;
  Value in, out;
  int64_t rows;
  Value me, mine;

  /// Direct: this chip's block to its slot on every other member.
  LogicalResult direct() {
    FailureOr<int32_t> s = e.takeSemaphore(op);
    if (failed(s))
      return failure();
    e.sendToAll([&](Value, Value chip) { return e.send(in, mine, chip, *s); },
                *s, e.n - 1);
    return success();
  }

  /// A ring (`both`: two rings, the first half of each block's rows one
  /// way, the rest the other): N - 1 steps, each forwarding the block
  /// received last.
  LogicalResult ring(bool both) {
    unsigned n = e.n;
    int64_t half = both ? rows / 2 : rows;
    FailureOr<int32_t> up = e.takeSemaphore(op);
    if (failed(up))
      return failure();
    FailureOr<int32_t> down =
        both ? e.takeSemaphore(op) : FailureOr<int32_t>(0);
    if (failed(down))
      return failure();
    Value next = e.chipOf(e.peer(1));
    Value prev = e.chipOf(e.peer(n - 1));
    Value index = me, otherIndex = me;
    for (unsigned s = 0; s + 1 < n; ++s) {
      // Up: the block of chip (me - s), its first half when both ways.
      if (s > 0)
        index = e.step(index, n - 1, n);
      Value blk = e.block(out, index, rows);
      Value part = e.rowsOf(blk, e.b.getIndexAttr(0), half);
      Value t1 = e.send(part, part, next, *up);
      Value t2;
      if (both) {
        if (s > 0)
          otherIndex = e.step(otherIndex, 1, n);
        Value other = e.block(out, otherIndex, rows);
        Value second = e.rowsOf(other, e.b.getIndexAttr(half), rows - half);
        t2 = e.send(second, second, prev, *down);
      }
      e.waitSignals(*up, 1);
      if (both)
        e.waitSignals(*down, 1);
      DmaWaitOp::create(e.b, e.loc, t1);
      if (both)
        DmaWaitOp::create(e.b, e.loc, t2);
    }
    return success();
  }

  /// A 2-D torus (the whole system): a ring along X of the row's blocks,
  /// then a ring along Y of the rows' X blocks each.
  LogicalResult torus2d() {
    auto dims = e.m.topology.getDims();
    unsigned nx = dims[0], ny = dims[1];
    FailureOr<int32_t> sx = e.takeSemaphore(op);
    if (failed(sx))
      return failure();
    FailureOr<int32_t> sy = e.takeSemaphore(op);
    if (failed(sy))
      return failure();
    Value x = e.remc(me, nx);
    Value rowBase = e.sub(me, x); // y * X
    auto along = [&](Value base, Value coord, unsigned size, int64_t k,
                     int64_t stride) {
      // base + ((coord + k) mod size) * stride
      Value shifted = e.addc(coord, k);
      Value c = e.remc(shifted, size);
      Value offset = e.mulc(c, stride);
      return e.add(base, offset);
    };
    // Along X: a ring of the row's blocks.
    Value nextX = along(rowBase, x, nx, 1, 1);
    for (unsigned s = 0; s + 1 < nx; ++s) {
      Value index = along(rowBase, x, nx, nx - s, 1);
      Value blk = e.block(out, index, rows);
      Value t = e.send(blk, blk, nextX, *sx);
      e.waitSignals(*sx, 1);
      DmaWaitOp::create(e.b, e.loc, t);
    }
    // Along Y: a ring of the rows' X blocks each.
    Value y = e.divc(me, nx);
    Value nextY = along(x, y, ny, 1, nx); // chip = y * X + x
    for (unsigned s = 0; s + 1 < ny; ++s) {
      Value shifted = e.addc(y, ny - s);
      Value yb = e.remc(shifted, ny);
      Value group = e.block(out, yb, rows * nx);
      Value t = e.send(group, group, nextY, *sy);
      e.waitSignals(*sy, 1);
      DmaWaitOp::create(e.b, e.loc, t);
    }
    return success();
  }

  /// Recursive doubling (N a power of two): step k sends the 2^k blocks
  /// held, from (me / 2^k) * 2^k, to the partner me ^ 2^k; one semaphore
  /// per step (a partner a step ahead must not satisfy this step's wait).
  LogicalResult recursiveDoubling() {
    for (unsigned k = 1; k < e.n; k *= 2) {
      FailureOr<int32_t> s = e.takeSemaphore(op);
      if (failed(s))
        return failure();
      Value q = e.divc(me, k);
      Value first = e.mulc(q, k);
      Value bit = e.remc(q, 2);
      // partner = me + k - 2 * bit * k
      Value up = e.addc(me, k);
      Value down = e.mulc(bit, 2 * k);
      Value partner = e.sub(up, down);
      Value firstRow = e.mulc(first, rows);
      Value held = e.rowsOf(out, firstRow, rows * k);
      Value t = e.send(held, held, e.chipOf(partner), *s);
      e.waitSignals(*s, 1);
      DmaWaitOp::create(e.b, e.loc, t);
    }
    return success();
  }
};
} // namespace

LogicalResult accel::detail::collectives::emitAllGather(Emitter &e,
                                                        Operation *op,
                                                        StringRef algo,
                                                        Value in, Value out) {
  auto [rows, cols] = shapeOf(in);
  Value me = e.me();
  Value mine = e.block(out, me, rows);
  e.copy(in, mine);
  if (e.n == 1)
    return success();
  AllGather g{e, op, in, out, rows, me, mine};
  if (algo == "direct")
    return g.direct();
  if (algo == "ring" || algo == "bidirectional_ring")
    return g.ring(algo == "bidirectional_ring");
  if (algo == "torus2d")
    return g.torus2d();
  if (algo == "recursive_doubling")
    return g.recursiveDoubling();
  return op->emitOpError() << "algorithm '" << algo
                           << "' is not implemented for all_gather";
}

LogicalResult accel::detail::collectives::emitAllToAll(Emitter &e,
                                                       Operation *op, Value in,
                                                       Value out) {
  unsigned n = e.n;
  auto [total, cols] = shapeOf(in);
  int64_t rows = total / n;
  Value me = e.me();
  Value own = e.block(in, me, rows);
  Value mine = e.block(out, me, rows);
  e.copy(own, mine);
  if (n == 1)
    return success();
  FailureOr<int32_t> s = e.takeSemaphore(op);
  if (failed(s))
    return failure();
  e.sendToAll(
      [&](Value peer, Value chip) {
        Value theirs = e.block(in, peer, rows);
        return e.send(theirs, mine, chip, *s);
      },
      *s, n - 1);
  return success();
}
