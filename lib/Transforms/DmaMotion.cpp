//===- DmaMotion.cpp - Moving DMA ISSUEs earlier, legally -----------------===//
//
// The functions of DmaMotion.h (the legality reasoning shared by the DMA
// motion passes and --accel-pipeline-dma); their contracts are documented
// there.
//
//===----------------------------------------------------------------------===//

#include "DmaMotion.h"

#include "mlir/IR/Diagnostics.h"

namespace accel {
namespace detail {

int64_t getMetric(Operation *op, StringRef name) {
  auto a = op->getAttrOfType<IntegerAttr>(name);
  if (!a || a.getValue().getSignificantBits() > 64)
    return 0;
  return std::clamp<int64_t>(a.getValue().getSExtValue(), -kMaxMetricValue,
                             kMaxMetricValue);
}

bool hasAttachedMetrics(Operation *root) {
  static constexpr llvm::StringLiteral kMetrics[] = {
      "accel.executions",      "accel.stall_base", "accel.stall_transfer",
      "accel.slack",           "accel.min_slack",  "accel.stall_slots",
      "accel.transfer_cycles", "accel.dma_cycles", "accel.busy_cycles",
      "accel.backtail",        "accel.costs",      "accel.suggestions"};
  return root
      ->walk([](Operation *op) {
        for (llvm::StringLiteral name : kMetrics)
          if (op->hasAttr(name))
            return WalkResult::interrupt();
        return WalkResult::advance();
      })
      .wasInterrupted();
}

bool warnIfNoMetrics(func::FuncOp func, StringRef pass, bool all, bool hasAll) {
  if (all || hasAttachedMetrics(func))
    return false;
  InFlightDiagnostic w = func.emitWarning()
                         << pass << ": no op of function '" << func.getSymName()
                         << "' carries metrics, so nothing changes; run "
                            "--accel-attach-metrics=metrics.json first (the "
                            "metrics.json of accel-replay run)";
  if (hasAll)
    w << ", or pass all=true";
  return true;
}

int64_t getStallCycles(Operation *dma) {
  return getMetric(dma, "accel.stall_base") +
         getMetric(dma, "accel.stall_transfer");
}

bool waitIsCritical(Operation *dma) {
  if (getStallCycles(dma) > 0)
    return true;
  return dma->hasAttr("accel.min_slack") &&
         getMetric(dma, "accel.min_slack") <
             getMetric(dma, "accel.transfer_cycles");
}

uint64_t allocatedVmemBytes(Operation *root, uint64_t page) {
  uint64_t bytes = 0;
  root->walk([&](AllocOp a) {
    if (auto t = getTileShape(a.getType(), nullptr, /*allowI32=*/true);
        succeeded(t))
      bytes += llvm::alignTo(uint64_t(t->bytes()), std::max<uint64_t>(page, 1));
  });
  return bytes;
}

DmaWaitOp getOnlyWait(DmaStartOp dma) {
  Value token = dma.getToken();
  if (!token.hasOneUse())
    return nullptr;
  return dyn_cast<DmaWaitOp>(*token.getUsers().begin());
}

bool usedOnlyInside(Value value, Operation *op) {
  return llvm::all_of(value.getUsers(),
                      [&](Operation *user) { return op->isAncestor(user); });
}

bool runsAtLeastOnce(scf::ForOp loop) {
  auto lb = getConstantIntValue(loop.getLowerBound());
  auto ub = getConstantIntValue(loop.getUpperBound());
  auto step = getConstantIntValue(loop.getStep());
  return lb && ub && step && *step > 0 && *ub > *lb;
}

void collectLoopDefs(ValueRange values, scf::ForOp loop,
                     llvm::SetVector<Operation *> &defs, bool withAllocs) {
  for (Value v : values) {
    Operation *def = v.getDefiningOp();
    if (def && def->getBlock() == loop.getBody() &&
        (isMemoryEffectFree(def) || (withAllocs && isa<AllocOp>(def))) &&
        def->getNumRegions() == 0 && defs.insert(def))
      collectLoopDefs(def->getOperands(), loop, defs, withAllocs);
  }
}

bool areLoopInvariant(ValueRange values, scf::ForOp loop,
                      llvm::SetVector<Operation *> &defs, Operation **unsafe) {
  collectLoopDefs(values, loop, defs, /*withAllocs=*/false);
  auto invariant = [&](Value v) {
    return !loop->isAncestor(v.getParentRegion()->getParentOp()) ||
           defs.contains(v.getDefiningOp());
  };
  if (!llvm::all_of(values, invariant))
    return false;
  for (Operation *def : defs)
    if (!llvm::all_of(def->getOperands(), invariant))
      return false;
  if (!runsAtLeastOnce(loop))
    for (Operation *def : defs)
      if (!isPure(def)) {
        if (unsafe)
          *unsafe = def;
        return false;
      }
  return true;
}

} // namespace detail
} // namespace accel
