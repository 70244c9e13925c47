//===- HoistDma.cpp - Move stalled DMA ISSUEs earlier ---------------------===//
//
// SnR §5.3.1 (prefetch the weights of a matmul chain earlier) and §5.4
// (Algorithm 2: hoist a DMA by its push limit). Legality is proved here on
// the IR; the metrics only choose which DMAs to try.
//
//===----------------------------------------------------------------------===//

#include "DmaMotion.h"
#include "LoweringCheck.h"
#include "accel/Dialect/Accel/AccelOps.h"
#include "accel/Dialect/Accel/TileShape.h"
#include "accel/Support/PassOptions.h"
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

namespace {
using namespace accel::detail;

struct HoistDmaPass
    : public accel::CheckedOptionsPass<
          HoistDmaPass, accel::impl::AccelHoistDmaBase<HoistDmaPass>>,
      public ReportsChanges {
  using CheckedOptionsPass::CheckedOptionsPass;

  /// An error message for an option outside its range, or "".
  std::string checkOptions() const {
    return checkVmemOptions(vmemCapacity, vmemPage);
  }

  void runOnOperation() override {
    resetCounts({"num-hoisted", "num-hoisted-out-of-loops"});
    func::FuncOp func = getOperation();
    if (warnIfNoMetrics(func, getArgument(), hoistAll))
      return;
    LoweringGuard guard(func, vmemCapacity, vmemPage);
    hoist(func);
    if (getLastRunCounts()[0].second == 0)
      return;
    if (std::string error = guard.keepIfLowers(); !error.empty()) {
      undoCounts({&numHoisted, &numHoistedOutOfLoops});
      if (emitRemarks)
        func.emitRemark() << "hoisted nothing: the hoisted program would "
                             "not lower: "
                          << error;
    }
  }

  /// Hoists the stalled DMAs of `func` (every DMA with `all`).
  void hoist(func::FuncOp func) {
    // VMEM: allocations are static for the whole function (see Passes.td).
    uint64_t vmemBytes = allocatedVmemBytes(func, vmemPage);
    bool vmemFits = vmemBytes <= vmemCapacity;

    SmallVector<DmaStartOp> dmas;
    func.walk([&](DmaStartOp d) { dmas.push_back(d); });
    // Slack left to each ISSUE for DMAs hoisted above it on its link: each
    // such DMA's transfer then goes first and delays it by that transfer.
    llvm::DenseMap<Operation *, int64_t> slackLeft;
    for (DmaStartOp d : dmas)
      if (d->hasAttr("accel.min_slack") && getStallCycles(d) == 0)
        slackLeft[d] = getMetric(d, "accel.min_slack");
    Builder b(&getContext());
    for (DmaStartOp d : dmas) {
      if (!hoistAll) {
        if (getStallCycles(d) <= 0) {
          if (emitRemarks)
            d.emitRemark("not hoisted: its metrics show no stall");
          continue;
        }
      }
      if (!vmemFits) {
        if (emitRemarks)
          d.emitRemark() << "not hoisted: VMEM allocations (" << vmemBytes
                         << " bytes) exceed the capacity of "
                         << uint64_t(vmemCapacity) << " bytes";
        continue;
      }
      DmaHoister h(d);
      int64_t transfer = getMetric(d, "accel.transfer_cycles");
      if (transfer > 0)
        h.setMayPass([&](DmaStartOp other) {
          auto it = slackLeft.find(other);
          return it != slackLeft.end() && it->second >= transfer;
        });
      if (auto t = getTileShape(d.getDst().getType(), nullptr, true);
          succeeded(t) && uint64_t(t->bytes()) <= reorderBytes)
        h.setReorderIssues(true);
      Blocker blocker;
      unsigned crossed = 0;
      bool leftLoop = false;
      while (true) {
        crossed += h.hoistInBlock(blocker);
        for (DmaStartOp other : h.passedIssues())
          slackLeft[other] -= transfer;
        if (blocker.op)
          break; // something in this block stops it
        Blocker loopBlocker;
        if (!h.hoistOutOfLoop(loopBlocker)) {
          blocker = loopBlocker;
          break;
        }
        leftLoop = true;
        bump(numHoistedOutOfLoops, 1);
        ++crossed;
      }
      if (crossed) {
        bump(numHoisted, 0);
        d->setAttr("accel.hoisted", b.getI64IntegerAttr(crossed));
      }
      if (emitRemarks && crossed && !blocker.op)
        d.emitRemark() << "hoisted across " << crossed << " op(s)"
                       << (leftLoop ? " and out of a loop" : "")
                       << " to the top of its block";
      if (emitRemarks && blocker.op) {
        auto diag = d.emitRemark()
                    << (crossed ? "hoisted across " + std::to_string(crossed) +
                                      " op(s)" +
                                      (leftLoop ? " and out of a loop" : "") +
                                      "; stopped by "
                                : std::string("not hoisted: blocked by "))
                    << blocker.reason;
        diag.attachNote(blocker.op->getLoc()) << "blocking op";
      }
    }
  }
};
} // namespace
