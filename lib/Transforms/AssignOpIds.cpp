//===- AssignOpIds.cpp - Stable op ids for metrics feedback ---------------===//

#include "accel/Dialect/Accel/AccelOps.h"
#include "accel/Transforms/Passes.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/ADT/DenseMap.h"

namespace accel {
#define GEN_PASS_DEF_ACCELASSIGNOPIDS
#include "accel/Transforms/Passes.h.inc"
} // namespace accel

using namespace mlir;
using namespace accel;

namespace {
struct AssignOpIdsPass
    : public accel::impl::AccelAssignOpIdsBase<AssignOpIdsPass> {
  void runOnOperation() override {
    StringRef name = AccelDialect::getOpIdAttrName();
    auto wantsId = [](Operation *op) {
      return isa<AccelDialect>(op->getDialect()) || isa<scf::ForOp>(op);
    };
    int64_t maxId = 0;
    llvm::DenseMap<int64_t, Operation *> seen;
    bool bad = false;
    getOperation().walk<WalkOrder::PreOrder>([&](Operation *op) {
      auto id = op->getAttrOfType<IntegerAttr>(name);
      if (!id)
        return;
      // The dialect's attribute verifier checks this on parsed IR; a pass
      // may run on IR built in memory.
      if (failed(AccelDialect::verifyOpId(op, id))) {
        bad = true;
        return;
      }
      auto [it, inserted] = seen.try_emplace(id.getInt(), op);
      if (!inserted) {
        op->emitError() << "duplicate accel.op_id " << id.getInt();
        it->second->emitRemark() << "first use of accel.op_id " << id.getInt();
        bad = true;
      }
      maxId = std::max(maxId, id.getInt());
    });
    if (bad)
      return signalPassFailure();
    Builder b(&getContext());
    getOperation().walk<WalkOrder::PreOrder>([&](Operation *op) {
      if (bad || !wantsId(op) || op->hasAttr(name))
        return;
      if (maxId >= AccelDialect::getMaxOpId()) {
        op->emitError() << "no accel.op_id left: the module already uses "
                        << AccelDialect::getMaxOpId();
        bad = true;
        return;
      }
      op->setAttr(name, b.getI64IntegerAttr(++maxId));
    });
    if (bad)
      return signalPassFailure();
  }
};
} // namespace
