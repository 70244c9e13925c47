//===- ParallelizeDma.cpp - Issue independent DMAs together ---------------===//
//
// Seed 000 §5.2.1: overlap the base latencies of independent DMAs by issuing
// them back to back. Legality comes from DmaMotion.h (shared with
// --accel-hoist-dma); the metrics only choose which DMAs to try.
//
//===----------------------------------------------------------------------===//

#include "DmaMotion.h"
#include "accel/Transforms/Passes.h"

namespace accel {
#define GEN_PASS_DEF_ACCELPARALLELIZEDMA
#include "accel/Transforms/Passes.h.inc"
} // namespace accel

using namespace mlir;
using namespace accel;
using namespace accel::detail;

/// Whether `d` carries a parallelize suggestion.
static bool hasParallelizeHint(DmaStartOp d) {
  auto list = d->getAttrOfType<ArrayAttr>("accel.suggestions");
  if (!list)
    return false;
  for (Attribute a : list)
    if (auto dict = dyn_cast<DictionaryAttr>(a))
      if (auto kind = dict.getAs<StringAttr>("kind"))
        if (kind.getValue() == "parallelize")
          return true;
  return false;
}

namespace {
struct ParallelizeDmaPass
    : public accel::impl::AccelParallelizeDmaBase<ParallelizeDmaPass>,
      public ReportsChanges {
  using Base::Base;

  void runOnOperation() override {
    resetCounts({"num-parallelized"});
    SmallVector<DmaStartOp> dmas;
    getOperation().walk([&](DmaStartOp d) { dmas.push_back(d); });
    Builder b(&getContext());
    for (DmaStartOp d : dmas) {
      if (!parallelizeAll && !hasParallelizeHint(d))
        continue;
      // The preceding ISSUE in the block.
      DmaStartOp previous;
      for (Operation *x = d->getPrevNode(); x && !previous; x = x->getPrevNode())
        previous = dyn_cast<DmaStartOp>(x);
      if (!previous) {
        if (emitRemarks)
          d.emitRemark("not parallelized: no earlier DMA ISSUE in its block");
        continue;
      }
      if (previous->getNextNode() == d.getOperation())
        continue; // already back to back
      // The move is made only when the DMA can reach the preceding ISSUE.
      DmaHoister h(d);
      Blocker blocker;
      unsigned crossed = 0;
      Operation *insertBefore = h.findInsertionPoint(blocker, crossed);
      if (!insertBefore || blocker.op != previous.getOperation()) {
        if (emitRemarks) {
          auto diag = d.emitRemark() << "not parallelized: blocked by "
                                     << blocker.reason;
          if (blocker.op)
            diag.attachNote(blocker.op->getLoc()) << "blocking op";
        }
        continue;
      }
      h.moveGroupBefore(insertBefore);
      bump(numParallelized, 0);
      int64_t prevId = 0;
      if (auto id = previous->getAttrOfType<IntegerAttr>(
              AccelDialect::getOpIdAttrName()))
        prevId = id.getInt();
      d->setAttr("accel.parallelized", b.getI64IntegerAttr(prevId));
    }
  }
};
} // namespace
