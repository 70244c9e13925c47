//===- ParallelizeDma.cpp - Issue independent DMAs together ---------------===//
//
// SnR (Zarkadas et al., SoCC '25) §5.2.1: overlap the base latencies of
// independent DMAs by issuing them back to back. Legality comes from
// DmaMotion.h (shared with --accel-hoist-dma); the metrics choose which DMAs
// to move, whether one may pass other ISSUEs of its link, and which WAIT
// moves up out of a dependent DMA's way.
//
//===----------------------------------------------------------------------===//

#include "DmaMotion.h"
#include "LoweringCheck.h"
#include "accel/Transforms/Passes.h"

namespace accel {
#define GEN_PASS_DEF_ACCELPARALLELIZEDMA
#include "accel/Transforms/Passes.h.inc"
} // namespace accel

using namespace mlir;
using namespace accel;
using namespace accel::detail;

namespace {
/// A `parallelize` entry of `accel.suggestions` (docs/metrics.md): the op
/// id of the DMA to issue with, and of a WAIT that must move up before it
/// (-1: none).
struct ParallelizeHint {
  int64_t withOp = -1, waitOp = -1;
};
} // namespace

static std::optional<ParallelizeHint> getParallelizeHint(DmaStartOp d) {
  auto list = d->getAttrOfType<ArrayAttr>("accel.suggestions");
  if (!list)
    return std::nullopt;
  for (Attribute a : list) {
    auto dict = dyn_cast<DictionaryAttr>(a);
    auto kind = dict ? dict.getAs<StringAttr>("kind") : StringAttr();
    if (!kind || kind.getValue() != "parallelize")
      continue;
    ParallelizeHint h;
    if (auto w = dict.getAs<IntegerAttr>("with_op_id"))
      h.withOp = w.getInt();
    if (auto w = dict.getAs<IntegerAttr>("wait_op_id"))
      h.waitOp = w.getInt();
    return h;
  }
  return std::nullopt;
}

/// The op with `accel.op_id` == `id` among the ops before `op` in its block.
static Operation *findAbove(Operation *op, int64_t id) {
  if (id < 0)
    return nullptr;
  for (Operation *x = op->getPrevNode(); x; x = x->getPrevNode())
    if (auto a = x->getAttrOfType<IntegerAttr>(AccelDialect::getOpIdAttrName()))
      if (a.getInt() == id)
        return x;
  return nullptr;
}

/// Whether the metrics let `d` pass other ISSUEs of its link: its WAITs
/// stalled on base latency for at least its transfer per execution, so
/// issuing it earlier hides up to that stall, while the DMAs it passes
/// wait at most its transfer longer (one FIFO per link, docs/isa.md).
static bool mayPassIssues(DmaStartOp d) {
  int64_t count = std::max<int64_t>(1, getMetric(d, "accel.dma_count"));
  int64_t base = getMetric(d, "accel.stall_base") / count;
  return base > 0 && getMetric(d, "accel.transfer_cycles") <= base;
}

namespace {
/// Where a DMA would go: right after the run of ISSUEs that starts at
/// `anchor`, the highest ISSUE of its block it can reach.
struct Placement {
  Operation *anchor = nullptr;
  Operation *insertBefore = nullptr;
  Blocker blocker;
};

struct ParallelizeDmaPass
    : public accel::impl::AccelParallelizeDmaBase<ParallelizeDmaPass>,
      public ReportsChanges {
  using Base::Base;

  /// Finds where `h`'s DMA `d` would go without moving it: the highest
  /// ISSUE it can cross or that stops it (the FIFO rule) in its block is
  /// the anchor; the DMA goes after the ISSUEs that follow the anchor back
  /// to back (pure ops and scalar loads between them allowed), so a group
  /// issued together stays in its order.
  static Placement place(DmaStartOp d, DmaHoister &h) {
    Placement p;
    unsigned crossed = 0;
    Operation *top = h.findInsertionPoint(p.blocker, crossed);
    if (p.blocker.op && isa<DmaStartOp>(p.blocker.op) &&
        p.blocker.op->getBlock() == d->getBlock())
      p.anchor = p.blocker.op;
    for (Operation *x = top; !p.anchor && x && x != d.getOperation();
         x = x->getNextNode())
      if (isa<DmaStartOp>(x))
        p.anchor = x;
    if (!p.anchor)
      return p;
    Operation *runEnd = p.anchor;
    for (Operation *x = p.anchor->getNextNode(); x != d.getOperation();
         x = x->getNextNode()) {
      if (isa<DmaStartOp>(x))
        runEnd = x;
      else if (x->getNumRegions() != 0 ||
               !(isMemoryEffectFree(x) || isa<LoadOp, AllocOp>(x)))
        break;
    }
    p.insertBefore = runEnd->getNextNode();
    while (p.insertBefore != d.getOperation() && h.inGroup(p.insertBefore))
      p.insertBefore = p.insertBefore->getNextNode();
    return p;
  }

  void runOnOperation() override {
    resetCounts({"num-parallelized", "num-waits-moved"});
    if (warnIfNoMetrics(getOperation(), getArgument(), parallelizeAll))
      return;
    // Moving DMAs moves no buffer: only the registers are checked.
    LoweringGuard guard(getOperation(), /*vmemCapacity=*/UINT64_MAX,
                        /*vmemPage=*/1);
    parallelize();
    if (getLastRunCounts()[0].second == 0)
      return;
    if (std::string error = guard.keepIfLowers(); !error.empty()) {
      undoCounts({&numParallelized, &numWaitsMoved});
      if (emitRemarks)
        getOperation().emitRemark() << "parallelized nothing: the "
                                       "parallelized program would not "
                                       "lower: "
                                    << error;
    }
  }

  /// Moves each DMA the analyzer named up to its partner's ISSUE (every
  /// DMA that can move with `all`).
  void parallelize() {
    SmallVector<DmaStartOp> dmas;
    getOperation().walk([&](DmaStartOp d) { dmas.push_back(d); });
    Builder b(&getContext());
    for (DmaStartOp d : dmas) {
      std::optional<ParallelizeHint> hint = getParallelizeHint(d);
      if (!parallelizeAll && !hint)
        continue;
      DmaHoister h(d);
      h.setReorderIssues(hint && mayPassIssues(d));
      // A WAIT the analyzer found out of the way of this DMA's data (its
      // DMA had completed when the with-op was issued) moves up before the
      // with-op first; back again if that does not let the DMA reach it.
      Operation *withOp = hint ? findAbove(d, hint->withOp) : nullptr;
      Operation *wait = hint ? findAbove(d, hint->waitOp) : nullptr;
      Operation *waitNext = nullptr;
      if (withOp && wait && isa<DmaWaitOp>(wait) &&
          withOp->isBeforeInBlock(wait)) {
        Operation *issue = cast<DmaWaitOp>(wait).getToken().getDefiningOp();
        if (!issue || issue->getBlock() != d->getBlock() ||
            issue->isBeforeInBlock(withOp)) {
          waitNext = wait->getNextNode();
          wait->moveBefore(withOp);
        }
      }
      Placement p = place(d, h);
      if (waitNext && (!p.anchor || withOp->isBeforeInBlock(p.anchor))) {
        // What stops the DMA beyond the WAIT is what the remark names.
        Blocker beyond = p.blocker;
        wait->moveBefore(waitNext);
        waitNext = nullptr;
        p = place(d, h);
        if (!p.anchor && beyond.op)
          p.blocker = beyond;
      }
      if (!p.anchor) {
        if (emitRemarks) {
          auto diag =
              p.blocker.op
                  ? d.emitRemark()
                        << "not parallelized: blocked by " << p.blocker.reason
                  : d.emitRemark()
                        << "not parallelized: no earlier DMA ISSUE in its "
                           "block";
          if (p.blocker.op)
            diag.attachNote(p.blocker.op->getLoc()) << "blocking op";
        }
        continue;
      }
      // Already right after its run: nothing to move.
      if (p.insertBefore == d.getOperation()) {
        if (waitNext)
          wait->moveBefore(waitNext);
        continue;
      }
      if (waitNext)
        bump(numWaitsMoved, 1);
      h.moveGroupUpTo(p.insertBefore);
      bump(numParallelized, 0);
      int64_t anchorId = 0;
      if (auto id = p.anchor->getAttrOfType<IntegerAttr>(
              AccelDialect::getOpIdAttrName()))
        anchorId = id.getInt();
      d->setAttr("accel.parallelized", b.getI64IntegerAttr(anchorId));
    }
  }
};
} // namespace
