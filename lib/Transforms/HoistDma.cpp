//===- HoistDma.cpp - Move stalled DMA ISSUEs earlier ---------------------===//
//
// Seed 000 §5.3.1 (prefetch the weights of a matmul chain earlier) and §5.4
// (Algorithm 2: hoist a DMA by its push limit). Legality is proved here on
// the IR; the metrics only choose which DMAs to try.
//
//===----------------------------------------------------------------------===//

#include "accel/Dialect/Accel/AccelOps.h"
#include "accel/Dialect/Accel/TileShape.h"
#include "accel/Transforms/Passes.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/SetVector.h"

namespace accel {
#define GEN_PASS_DEF_ACCELHOISTDMA
#include "accel/Transforms/Passes.h.inc"
} // namespace accel

using namespace mlir;
using namespace accel;

/// The buffer a memref value views: follows memref.subview / memref.cast.
static Value getRoot(Value v) {
  while (Operation *def = v.getDefiningOp()) {
    if (auto sv = dyn_cast<memref::SubViewOp>(def))
      v = sv.getSource();
    else if (auto c = dyn_cast<memref::CastOp>(def))
      v = c.getSource();
    else
      break;
  }
  return v;
}

namespace {
/// Why a DMA could not move further.
struct Blocker {
  Operation *op = nullptr;
  std::string reason;
};

class DmaHoister {
public:
  DmaHoister(DmaStartOp dma) : dma(dma) {
    src = getRoot(dma.getSrc());
    dst = getRoot(dma.getDst());
  }

  /// Whether `y` (and everything nested in it) may execute after the DMA
  /// instead of before it. Sets `blocker` when not.
  /// With `leavingLoop`, the DMA is at the top of a loop body and moves in
  /// front of the loop: reads of the destination are fine (the data is then
  /// loaded once and only read) and other ISSUEs in the loop stay behind it
  /// as before, so only their memory effects matter.
  bool canCross(Operation *y, Blocker &blocker, bool leavingLoop = false) {
    WalkResult r = y->walk([&](Operation *op) {
      if (group.contains(op))
        return WalkResult::advance();
      if (auto wait = dyn_cast<DmaWaitOp>(op)) {
        auto other = wait.getToken().getDefiningOp<DmaStartOp>();
        if (!other) {
          blocker = {op, "a WAIT on a DMA issued elsewhere"};
          return WalkResult::interrupt();
        }
        if (other == dma)
          return WalkResult::advance();
        Value os = getRoot(other.getSrc()), od = getRoot(other.getDst());
        if (od == src) {
          blocker = {op, "the WAIT of a DMA that writes the source"};
          return WalkResult::interrupt();
        }
        if (od == dst || os == dst) {
          blocker = {op, "the WAIT of a DMA that uses the destination"};
          return WalkResult::interrupt();
        }
        return WalkResult::advance();
      }
      if (!leavingLoop && isa<DmaStartOp>(op) && op != dma.getOperation()) {
        blocker = {op, "another DMA ISSUE (the link FIFO order is kept)"};
        return WalkResult::interrupt();
      }
      if (op->hasTrait<OpTrait::HasRecursiveMemoryEffects>() ||
          isMemoryEffectFree(op) || isa<AllocOp>(op))
        return WalkResult::advance();
      auto iface = dyn_cast<MemoryEffectOpInterface>(op);
      if (!iface) {
        blocker = {op, "an op with unknown memory effects"};
        return WalkResult::interrupt();
      }
      SmallVector<MemoryEffects::EffectInstance> effects;
      iface.getEffects(effects);
      for (auto &e : effects) {
        if (isa<MemoryEffects::Allocate, MemoryEffects::Free>(e.getEffect()))
          continue;
        Value v = e.getValue();
        if (!v) {
          blocker = {op, "an op with unknown memory effects"};
          return WalkResult::interrupt();
        }
        Value root = getRoot(v);
        bool write = isa<MemoryEffects::Write>(e.getEffect());
        if (write && root == src) {
          blocker = {op, "a write to the DMA's source"};
          return WalkResult::interrupt();
        }
        if (root == dst && (write || !leavingLoop)) {
          blocker = {op, "an access to the DMA's destination"};
          return WalkResult::interrupt();
        }
      }
      return WalkResult::advance();
    });
    return !r.wasInterrupted();
  }

  /// Moves the DMA (and the pure ops computing its operands) up within its
  /// block as far as legal. Returns the number of ops crossed.
  unsigned hoistInBlock(Blocker &blocker) {
    group.clear();
    group.insert(dma);
    Operation *insertBefore = dma;
    unsigned crossed = 0;
    for (Operation *x = dma->getPrevNode(); x; x = x->getPrevNode()) {
      if (definesGroupOperand(x)) {
        if ((isMemoryEffectFree(x) || isa<AllocOp>(x)) &&
            x->getNumRegions() == 0) {
          group.insert(x);
          continue;
        }
        blocker = {x, "the definition of an operand (dominance)"};
        break;
      }
      if (!canCross(x, blocker))
        break;
      insertBefore = x;
      ++crossed;
    }
    if (!crossed)
      return 0;
    // Move the group in its original order.
    SmallVector<Operation *> ops(group.begin(), group.end());
    llvm::sort(ops, [](Operation *a, Operation *b) {
      return a->isBeforeInBlock(b);
    });
    for (Operation *op : ops)
      op->moveBefore(insertBefore);
    return crossed;
  }

  /// Moves the DMA group out of its enclosing scf.for when legal.
  bool hoistOutOfLoop(Blocker &blocker) {
    auto loop = dyn_cast<scf::ForOp>(dma->getParentOp());
    if (!loop)
      return false;
    // The group must sit at the top of the body and depend on nothing
    // defined inside the loop.
    group.clear();
    group.insert(dma);
    collectPureOperandDefs(dma, loop);
    for (Operation *op : group)
      for (Value v : op->getOperands()) {
        if (group.contains(v.getDefiningOp()))
          continue;
        if (loop->isAncestor(v.getParentRegion()->getParentOp())) {
          blocker = {loop, "an operand that changes in the loop"};
          return false;
        }
      }
    auto lb = getConstantIntValue(loop.getLowerBound());
    auto ub = getConstantIntValue(loop.getUpperBound());
    auto step = getConstantIntValue(loop.getStep());
    if (!lb || !ub || !step || *step <= 0 || *ub <= *lb) {
      blocker = {loop, "a loop that may run zero times"};
      return false;
    }
    for (Operation &op : *loop.getBody())
      if (!group.contains(&op) &&
          !canCross(&op, blocker, /*leavingLoop=*/true))
        return false;
    SmallVector<Operation *> ops(group.begin(), group.end());
    llvm::sort(ops, [](Operation *a, Operation *b) {
      return a->isBeforeInBlock(b);
    });
    for (Operation *op : ops)
      op->moveBefore(loop);
    return true;
  }

private:
  bool definesGroupOperand(Operation *x) {
    for (Operation *g : group)
      for (Value v : g->getOperands())
        if (v.getDefiningOp() == x)
          return true;
    return false;
  }
  void collectPureOperandDefs(Operation *op, scf::ForOp loop) {
    for (Value v : op->getOperands()) {
      Operation *def = v.getDefiningOp();
      if (def && def->getBlock() == loop.getBody() &&
          (isMemoryEffectFree(def) || isa<AllocOp>(def)) &&
          def->getNumRegions() == 0 && group.insert(def))
        collectPureOperandDefs(def, loop);
    }
  }

  DmaStartOp dma;
  Value src, dst;
  llvm::SetVector<Operation *> group;
};

struct HoistDmaPass : public accel::impl::AccelHoistDmaBase<HoistDmaPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    // VMEM: allocations are static for the whole function (see Passes.td).
    uint64_t vmemBytes = 0;
    module.walk([&](AllocOp a) {
      if (auto t = getTileShape(a.getType()); succeeded(t))
        vmemBytes += uint64_t(t->bytes());
    });
    bool vmemFits = vmemBytes <= vmemCapacity;

    SmallVector<DmaStartOp> dmas;
    module.walk([&](DmaStartOp d) { dmas.push_back(d); });
    Builder b(&getContext());
    for (DmaStartOp d : dmas) {
      if (!hoistAll) {
        auto sb = d->getAttrOfType<IntegerAttr>("accel.stall_base");
        auto st = d->getAttrOfType<IntegerAttr>("accel.stall_transfer");
        int64_t stall = (sb ? sb.getInt() : 0) + (st ? st.getInt() : 0);
        if (stall <= 0) {
          if (emitRemarks)
            d.emitRemark("not hoisted: its metrics show no stall");
          continue;
        }
      }
      if (!vmemFits) {
        if (emitRemarks)
          d.emitRemark() << "not hoisted: VMEM allocations (" << vmemBytes
                         << " bytes) exceed the capacity of " << uint64_t(vmemCapacity)
                         << " bytes";
        continue;
      }
      DmaHoister h(d);
      Blocker blocker;
      unsigned crossed = 0;
      bool leftLoop = false;
      while (true) {
        crossed += h.hoistInBlock(blocker);
        if (blocker.op)
          break; // something in this block stops it
        Blocker loopBlocker;
        if (!h.hoistOutOfLoop(loopBlocker)) {
          blocker = loopBlocker;
          break;
        }
        leftLoop = true;
        ++numHoistedOutOfLoops;
        ++crossed;
      }
      if (crossed) {
        ++numHoisted;
        d->setAttr("accel.hoisted", b.getI64IntegerAttr(crossed));
      }
      if (emitRemarks && crossed && !blocker.op)
        d.emitRemark() << "hoisted across " << crossed << " op(s)"
                       << (leftLoop ? " and out of a loop" : "")
                       << " to the top of its block";
      if (emitRemarks && blocker.op) {
        auto diag = d.emitRemark()
                    << (crossed ? "hoisted across " + std::to_string(crossed) +
                                      " op(s)" + (leftLoop ? " and out of a loop" : "") +
                                      "; stopped by "
                                : std::string("not hoisted: blocked by "))
                    << blocker.reason;
        diag.attachNote(blocker.op->getLoc()) << "blocking op";
      }
    }
  }
};
} // namespace
