//===- DmaMotion.h - Moving DMA ISSUEs earlier, legally ---------*- C++ -*-===//
//
// The legality reasoning shared by --accel-hoist-dma,
// --accel-parallelize-dma and --accel-sink-dma-wait (internal to
// lib/Transforms): which ops may run while a DMA is in flight (a DMA ISSUE
// moving above them, or its WAIT moving below them), and the moves
// themselves. See Passes.td for the rules.
//
//===----------------------------------------------------------------------===//

#ifndef ACCEL_LIB_TRANSFORMS_DMAMOTION_H
#define ACCEL_LIB_TRANSFORMS_DMAMOTION_H

#include "accel/Analysis/MemoryDependence.h"
#include "accel/Dialect/Accel/AccelOps.h"
#include "accel/Dialect/Accel/TileShape.h"
#include "accel/Dialect/Accel/Views.h"
#include "accel/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/SetVector.h"

#include <functional>
#include <string>

namespace accel {
namespace detail {

using namespace mlir;

using accel::getRoot;
using accel::getViewSource;
using accel::isLoweredView;

/// An i64 attribute set by --accel-attach-metrics (or written by hand); 0
/// when absent or not an integer of at most 64 bits, and clamped to
/// [-kMaxMetricValue, kMaxMetricValue] so that sums of a few never
/// overflow.
int64_t getMetric(Operation *op, StringRef name);

/// Whether some op under `root` (or `root`) carries a metric the FDO
/// passes read: set by --accel-attach-metrics, or written by hand.
bool hasAttachedMetrics(Operation *root);

/// The FDO passes act on measured stalls: without metrics (and without
/// their `all` option, `hasAll`) they change nothing. Warns once per
/// function, on `func`, when that is so; returns whether the pass should
/// stop.
bool warnIfNoMetrics(func::FuncOp func, StringRef pass, bool all,
                     bool hasAll = true);

/// Cycles the WAITs of `dma` stalled over all its executions (base +
/// transfer, SnR Fig. 4), from its attached metrics; 0 without them.
int64_t getStallCycles(Operation *dma);

/// Whether the attached metrics make `dma`'s WAIT worth moving down (and
/// its buffers worth renaming): its WAITs stalled, or one came less than a
/// transfer after the completion (`accel.min_slack` <
/// `accel.transfer_cycles`), so any speedup of the work before it turns
/// into a stall that the next FDO iteration would find.
bool waitIsCritical(Operation *dma);

/// Bytes of VMEM the `accel.alloc` ops under `root` take (f32, bf16 or i32
/// tiles), each rounded up to `page` bytes (the machine's VMEM page: the
/// lowering aligns every allocation to it). Lowering places every
/// allocation for the whole function, so this is the function's VMEM
/// footprint whatever the order of its ops.
uint64_t allocatedVmemBytes(Operation *root, uint64_t page = 1);

/// The only user of `dma`'s token when that user is a WAIT; null when the
/// token has no user, several, or a user that is not a WAIT.
DmaWaitOp getOnlyWait(DmaStartOp dma);

/// Whether every user of `value` is inside `op` (nested at any depth).
bool usedOnlyInside(Value value, Operation *op);

/// Whether `loop` has constant bounds and a positive step and runs at least
/// once (so work moved in front of it ran anyway).
bool runsAtLeastOnce(scf::ForOp loop);

/// Adds to `defs` the ops of `loop`'s body (its own block, not nested)
/// that compute `values` through ops free of memory effects and without
/// regions (and accel.alloc ops when `withAllocs`), transitively: what must
/// move with the user of `values` when it leaves the loop.
void collectLoopDefs(ValueRange values, scf::ForOp loop,
                     llvm::SetVector<Operation *> &defs, bool withAllocs);

/// Whether `values` are loop-invariant in `loop`: each defined outside it,
/// or computed only from such values by ops free of memory effects (added
/// to `defs`, to move before the loop with their user). Ops that are not
/// speculatable (e.g. a division) count only when the loop runs at least
/// once, as they then ran anyway; when only such an op stands in the way,
/// `*unsafe` (if given) is set to it.
bool areLoopInvariant(ValueRange values, scf::ForOp loop,
                      llvm::SetVector<Operation *> &defs,
                      Operation **unsafe = nullptr);

/// Why a DMA could not move further.
struct Blocker {
  Operation *op = nullptr;
  std::string reason;
};

class DmaHoister {
public:
  DmaHoister(DmaStartOp dma)
      : dma(dma), srcRead(dma, dma.getSrc(), false),
        dstWrite(dma, dma.getDst(), true) {}

  /// Whether `y` (and everything nested in it) may execute after the DMA
  /// instead of before it. Sets `blocker` when not.
  /// With `leavingLoop`, the DMA is at the top of a loop body and moves in
  /// front of the loop: reads of the destination are fine (the data is then
  /// loaded once and only read) and other ISSUEs in the loop stay behind it
  /// as before, so only their memory effects matter.
  ///
  /// With `sinkingWait`, the DMA's WAIT moves down past `y`: the question is
  /// the same (may `y` run while the DMA is in flight?), but other ISSUEs
  /// keep their order relative to this one, so only their memory effects
  /// matter.
  bool canCross(Operation *y, Blocker &blocker, bool leavingLoop = false,
                bool sinkingWait = false) {
    passing.clear();
    WalkResult r = y->walk([&](Operation *op) {
      if (group.contains(op))
        return WalkResult::advance();
      if (auto wait = dyn_cast<DmaWaitOp>(op)) {
        if (auto other = wait.getToken().getDefiningOp<DmaStartOp>())
          return other == dma || mayOutlive(op, other, blocker, sinkingWait)
                     ? WalkResult::advance()
                     : WalkResult::interrupt();
        // A token carried in scf.for iter_args (a pipelined loop's WAITs,
        // or its epilogue's on the loop's results): the WAIT ends the
        // transfer of any ISSUE the token may come from. Their views were
        // taken in an earlier iteration of the loops that carry the token,
        // so they are compared with the DMA's only when no such loop holds
        // the DMA (its views then name one address on every iteration).
        SmallVector<DmaStartOp> sources;
        bool enclosing = false;
        bool known = forEachCarriedSource(
            wait.getToken(),
            [&](Value v) {
              auto issue = v.getDefiningOp<DmaStartOp>();
              if (!issue || issue == dma)
                return false;
              sources.push_back(issue);
              return true;
            },
            /*throughViews=*/false,
            [&](scf::ForOp loop) { enclosing |= loop->isAncestor(dma); });
        if (!known || enclosing) {
          blocker = {op, "a WAIT on a DMA issued elsewhere"};
          return WalkResult::interrupt();
        }
        for (DmaStartOp other : sources)
          if (!mayOutlive(op, other, blocker, sinkingWait))
            return WalkResult::interrupt();
        return WalkResult::advance();
      }
      if (!leavingLoop && !sinkingWait && !reorderIssues &&
          isa<DmaStartOp>(op) && op != dma.getOperation() &&
          sameLink(cast<DmaStartOp>(op), dma)) {
        if (!mayPass || !mayPass(cast<DmaStartOp>(op))) {
          blocker = {op, "another DMA ISSUE (the link FIFO order is kept)"};
          return WalkResult::interrupt();
        }
        passing.push_back(cast<DmaStartOp>(op));
      }
      AccessWalk walk = forEachOwnAccess(op, [&](Value v, bool write) {
        MemoryAccess access(op, v, write);
        if (write && readsGroupMemory(v)) {
          blocker = {op, "a write to memory its address is loaded from"};
          return false;
        }
        if (auto dep = dependenceWith(access, srcRead, sinkingWait)) {
          blocker = {op,
                     "a write to the DMA's source (" + dep->describe() + ")"};
          return false;
        }
        if (write || !leavingLoop)
          if (auto dep = dependenceWith(access, dstWrite, sinkingWait)) {
            blocker = {op, "an access to the DMA's destination (" +
                               dep->describe() + ")"};
            return false;
          }
        return true;
      });
      if (walk == AccessWalk::Unknown)
        blocker = {op, "an op with unknown memory effects"};
      return walk == AccessWalk::Done ? WalkResult::advance()
                                      : WalkResult::interrupt();
    });
    return !r.wasInterrupted();
  }

  /// Finds how far down its block `wait` (a WAIT of this DMA) may move,
  /// without moving it: returns the op to move it after (nullptr: it
  /// cannot move) and the number of ops that do work it would cross;
  /// `blocker` names what stops it (the block's terminator at the latest).
  /// Allocations are placed before the program runs and other WAITs do no
  /// work, so the WAIT goes just after the last op that does.
  Operation *findSinkPoint(DmaWaitOp wait, Blocker &blocker,
                           unsigned &crossed) {
    Operation *after = nullptr;
    crossed = 0;
    for (Operation *x = wait->getNextNode(); x; x = x->getNextNode()) {
      if (x->hasTrait<OpTrait::IsTerminator>()) {
        blocker = {x, "the end of its block"};
        break;
      }
      if (!canCross(x, blocker, /*leavingLoop=*/false, /*sinkingWait=*/true))
        break;
      if (!isa<AllocOp, DmaWaitOp>(x)) {
        after = x;
        ++crossed;
      }
    }
    return after;
  }

  /// Lets the DMA move above other ISSUEs too (only their memory effects
  /// then stop it): its transfer then goes first in the link's FIFO.
  void setReorderIssues(bool value) { reorderIssues = value; }

  /// Lets the DMA move above an ISSUE on its link when `fn` accepts that
  /// ISSUE (e.g. its slack absorbs this DMA's transfer); the ISSUEs
  /// passed are then listed by passedIssues().
  void setMayPass(std::function<bool(DmaStartOp)> fn) {
    mayPass = std::move(fn);
  }

  /// The ISSUEs on the DMA's link that the last hoistInBlock moved it
  /// above (through setMayPass).
  ArrayRef<DmaStartOp> passedIssues() const { return passed; }

  /// Finds how far up its block the DMA (with the pure ops computing its
  /// operands, collected into the group) may move, without moving anything:
  /// returns the op to insert before (nullptr: it cannot move) and the
  /// number of ops crossed; `blocker` names what stops it.
  Operation *findInsertionPoint(Blocker &blocker, unsigned &crossed) {
    group.clear();
    group.insert(dma);
    groupReads.clear();
    passed.clear();
    Operation *insertBefore = nullptr;
    crossed = 0;
    for (Operation *x = dma->getPrevNode(); x; x = x->getPrevNode()) {
      if (definesGroupOperand(x)) {
        if ((isMemoryEffectFree(x) || isa<AllocOp>(x)) &&
            x->getNumRegions() == 0) {
          group.insert(x);
          continue;
        }
        // A scalar load of an address (a gather's row id read from a DMA'd
        // table) moves too; the ops it then crosses must not write what it
        // reads (nor be the WAIT of a DMA that does).
        if (isa<LoadOp>(x)) {
          group.insert(x);
          groupReads.push_back(cast<LoadOp>(x).getBuffer());
          continue;
        }
        blocker = {x, "the definition of an operand (dominance)"};
        break;
      }
      if (!canCross(x, blocker))
        break;
      passed.append(passing.begin(), passing.end());
      insertBefore = x;
      ++crossed;
    }
    return insertBefore;
  }

  /// Moves the DMA (and the pure ops computing its operands) up within its
  /// block as far as legal. Returns the number of ops crossed.
  unsigned hoistInBlock(Blocker &blocker) {
    unsigned crossed = 0;
    Operation *insertBefore = findInsertionPoint(blocker, crossed);
    if (insertBefore)
      moveGroupBefore(insertBefore);
    return crossed;
  }

  /// Moves the DMA and the ops that moved with it (in their order) before
  /// `where` (e.g. back to where they were).
  void moveGroupBefore(Operation *where) {
    SmallVector<Operation *> ops(group.begin(), group.end());
    llvm::sort(
        ops, [](Operation *a, Operation *b) { return a->isBeforeInBlock(b); });
    for (Operation *op : ops)
      if (op != where)
        op->moveBefore(where);
  }

  /// Moves the ops of the group (as findInsertionPoint last collected it)
  /// that lie below `where` to just before it, in their order; those
  /// above it stay (they still dominate the DMA). `where` must be at or
  /// below the insertion point findInsertionPoint returned.
  void moveGroupUpTo(Operation *where) {
    SmallVector<Operation *> ops(group.begin(), group.end());
    llvm::sort(
        ops, [](Operation *a, Operation *b) { return a->isBeforeInBlock(b); });
    for (Operation *op : ops)
      if (op != where && where->isBeforeInBlock(op))
        op->moveBefore(where);
  }

  /// Whether `op` moves with the DMA (findInsertionPoint's last group).
  bool inGroup(Operation *op) const { return group.contains(op); }

  /// Moves the DMA group out of its enclosing scf.for when legal.
  bool hoistOutOfLoop(Blocker &blocker) {
    auto loop = dyn_cast<scf::ForOp>(dma->getParentOp());
    if (!loop)
      return false;
    // The group must sit at the top of the body and depend on nothing
    // defined inside the loop.
    group.clear();
    group.insert(dma);
    collectLoopDefs(dma->getOperands(), loop, group, /*withAllocs=*/true);
    for (Operation *op : group)
      for (Value v : op->getOperands()) {
        if (group.contains(v.getDefiningOp()))
          continue;
        if (loop->isAncestor(v.getParentRegion()->getParentOp())) {
          blocker = {loop, "an operand that changes in the loop"};
          return false;
        }
      }
    if (!runsAtLeastOnce(loop)) {
      blocker = {loop, "a loop that may run zero times"};
      return false;
    }
    for (Operation &op : *loop.getBody())
      if (!group.contains(&op) && !canCross(&op, blocker, /*leavingLoop=*/true))
        return false;
    SmallVector<Operation *> ops(group.begin(), group.end());
    llvm::sort(
        ops, [](Operation *a, Operation *b) { return a->isBeforeInBlock(b); });
    for (Operation *op : ops)
      op->moveBefore(loop);
    return true;
  }

private:
  /// Whether the DMA may stay in flight across `wait`, the WAIT that ends
  /// `other`'s transfer (another DMA): neither writes what the other uses,
  /// and `other` does not write an address the group loads. Sets `blocker`
  /// when not.
  bool mayOutlive(Operation *wait, DmaStartOp other, Blocker &blocker,
                  bool sinkingWait) {
    if (readsGroupMemory(other.getDst())) {
      blocker = {wait, "the WAIT of a DMA that writes memory its address "
                       "is loaded from"};
      return false;
    }
    MemoryAccess otherRead(wait, other.getSrc(), false);
    MemoryAccess otherWrite(wait, other.getDst(), true);
    if (auto dep = dependenceWith(otherWrite, srcRead, sinkingWait)) {
      blocker = {wait, "the WAIT of a DMA that writes the source (" +
                           dep->describe() + ")"};
      return false;
    }
    std::optional<Dependence> dep =
        dependenceWith(otherWrite, dstWrite, sinkingWait);
    if (!dep)
      dep = dependenceWith(otherRead, dstWrite, sinkingWait);
    if (dep) {
      blocker = {wait, "the WAIT of a DMA that uses the destination (" +
                           dep->describe() + ")"};
      return false;
    }
    return true;
  }

  /// Whether the two DMAs use one link (the same source and destination
  /// memories): only then does their ISSUE order fix their transfer order
  /// (docs/isa.md: one FIFO per link).
  static bool sameLink(DmaStartOp a, DmaStartOp b) {
    return getMemorySpace(a.getSrc().getType()) ==
               getMemorySpace(b.getSrc().getType()) &&
           getMemorySpace(a.getDst().getType()) ==
               getMemorySpace(b.getDst().getType());
  }

  /// Whether `v` may overlap memory a scalar load in the group reads.
  bool readsGroupMemory(Value v) {
    Value root = getRoot(v);
    return llvm::any_of(groupReads, [&](Value r) {
      return mayAlias(root, getRoot(r)) && mayOverlap(v, r);
    });
  }

  bool definesGroupOperand(Operation *x) {
    for (Operation *g : group)
      for (Value v : g->getOperands())
        if (v.getDefiningOp() == x)
          return true;
    return false;
  }
  /// The dependence between `other` (an access of an op the DMA crosses)
  /// and `mine` (the DMA's read of its source or write of its
  /// destination), in program order: when the DMA's WAIT sinks, the DMA
  /// comes first; when its ISSUE hoists, the other op does.
  static std::optional<Dependence> dependenceWith(const MemoryAccess &other,
                                                  const MemoryAccess &mine,
                                                  bool sinkingWait) {
    if (!mayConflict(other, mine))
      return std::nullopt;
    return sinkingWait ? Dependence{mine, other, 0}
                       : Dependence{other, mine, 0};
  }

  DmaStartOp dma;
  /// The DMA's read of its source and write of its destination.
  MemoryAccess srcRead, dstWrite;
  bool reorderIssues = false;
  llvm::SetVector<Operation *> group;
  /// Memrefs read by the scalar loads in the group.
  SmallVector<Value> groupReads;
  std::function<bool(DmaStartOp)> mayPass;
  /// Same-link ISSUEs passed: in the op canCross last looked at, and in
  /// all ops findInsertionPoint crossed.
  SmallVector<DmaStartOp> passing, passed;
};

} // namespace detail
} // namespace accel

#endif // ACCEL_LIB_TRANSFORMS_DMAMOTION_H
