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
      if (id.getInt() <= 0) {
        op->emitError() << "accel.op_id must be positive, not " << id.getInt();
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
      if (wantsId(op) && !op->hasAttr(name))
        op->setAttr(name, b.getI64IntegerAttr(++maxId));
    });
  }
};
} // namespace
