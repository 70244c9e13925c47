//===- SinkDmaWait.cpp - Move stalled DMA WAITs later ---------------------===//
//
// The mirror of --accel-hoist-dma (SnR §5.2: a WAIT before the DMA's
// completion stalls; SnR §5.4: the slack a DMA has is what can run
// between its ISSUE and its WAIT): a WAIT moves down its block, past every
// op that may run while the DMA is in flight, to just before the first op
// that uses the DMA's data (or writes its source). Independent work and
// other DMAs' ISSUEs then overlap this DMA's base latency. Legality is the
// same as hoisting's (DmaMotion.h); the metrics only choose which WAITs to
// try.
//
//===----------------------------------------------------------------------===//

#include "DmaMotion.h"
#include "LoweringCheck.h"
#include "accel/Transforms/Passes.h"

namespace accel {
#define GEN_PASS_DEF_ACCELSINKDMAWAIT
#include "accel/Transforms/Passes.h.inc"
} // namespace accel

using namespace mlir;
using namespace accel;
using namespace accel::detail;

namespace {
struct SinkDmaWaitPass
    : public accel::impl::AccelSinkDmaWaitBase<SinkDmaWaitPass>,
      public ReportsChanges {
  using Base::Base;

  void runOnOperation() override {
    resetCounts({"num-sunk"});
    if (warnIfNoMetrics(getOperation(), getArgument(), sinkAll))
      return;
    // Sinking moves no buffer: only the registers are checked.
    LoweringGuard guard(getOperation(), /*vmemCapacity=*/UINT64_MAX,
                        /*vmemPage=*/1);
    sink();
    if (getLastRunCounts()[0].second == 0)
      return;
    if (std::string error = guard.keepIfLowers(); !error.empty()) {
      undoCounts({&numSunk});
      if (emitRemarks)
        getOperation().emitRemark() << "sunk nothing: the program with "
                                       "its WAITs sunk would not lower: "
                                    << error;
    }
  }

  /// Sinks the WAITs of stalled DMAs (every WAIT with `all`).
  void sink() {
    SmallVector<DmaWaitOp> waits;
    getOperation().walk([&](DmaWaitOp w) { waits.push_back(w); });
    Builder b(&getContext());
    for (DmaWaitOp wait : waits) {
      auto dma = wait.getToken().getDefiningOp<DmaStartOp>();
      if (!dma) {
        if (emitRemarks)
          wait.emitRemark("not sunk: its token does not come from an "
                          "accel.dma_start");
        continue;
      }
      if (!sinkAll && !waitIsCritical(dma)) {
        if (emitRemarks)
          wait.emitRemark("not sunk: its DMA's metrics show no stall and "
                          "a slack of at least one transfer");
        continue;
      }
      DmaHoister h(dma);
      Blocker blocker;
      unsigned crossed = 0;
      Operation *after = h.findSinkPoint(wait, blocker, crossed);
      if (after) {
        wait->moveAfter(after);
        bump(numSunk, 0);
        wait->setAttr("accel.sunk", b.getI64IntegerAttr(crossed));
      }
      if (emitRemarks && blocker.op) {
        auto diag = wait.emitRemark()
                    << (crossed ? "sunk past " + std::to_string(crossed) +
                                      " op(s); stopped by "
                                : std::string("not sunk: blocked by "))
                    << blocker.reason;
        diag.attachNote(blocker.op->getLoc()) << "blocking op";
      }
    }
  }
};
} // namespace
