//===- PromoteBuffers.cpp - intermediate buffers in VMEM ------------------===//
//
// Passes.td, accel-promote-buffers: after bufferization, an HBM allocation
// that only linalg ops and copies of this function read and write (an
// intermediate result: a norm's squares, attention's scores) is allocated
// in VMEM when it fits the budget, so the op that writes it and the ops
// that read it work on it in place, with no DMA out and back in.
//
//===----------------------------------------------------------------------===//

#include "accel/Conversion/MemorySpaces.h"
#include "accel/Frontend/Passes.h"
#include "accel/Support/PassOptions.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

namespace accel {
#define GEN_PASS_DEF_ACCELPROMOTEBUFFERS
#include "accel/Frontend/Passes.h.inc"
} // namespace accel

using namespace mlir;

namespace {

/// Collects `v` and every view of it (subviews, reshapes, casts) into
/// `values`; fails when a user is anything but such a view, a linalg op on
/// buffers, a `memref.copy` or a `memref.dealloc`: a buffer returned,
/// passed to a call, carried by a loop or read by scalar code stays where
/// it is.
LogicalResult collectViews(Value v, SmallVectorImpl<Value> &values) {
  values.push_back(v);
  for (Operation *user : v.getUsers()) {
    if (isa<memref::SubViewOp, memref::ExpandShapeOp, memref::CollapseShapeOp,
            memref::CastOp>(user)) {
      if (failed(collectViews(user->getResult(0), values)))
        return failure();
      continue;
    }
    auto linalgOp = dyn_cast<linalg::LinalgOp>(user);
    if (linalgOp && linalgOp.hasPureBufferSemantics())
      continue;
    if (isa<memref::CopyOp, memref::DeallocOp>(user))
      continue;
    return failure();
  }
  return success();
}

struct AccelPromoteBuffersPass
    : accel::CheckedOptionsPass<
          AccelPromoteBuffersPass,
          accel::impl::AccelPromoteBuffersBase<AccelPromoteBuffersPass>> {
  using CheckedOptionsPass::CheckedOptionsPass;

  std::string checkOptions() const {
    return accel::firstOptionProblem({accel::checkVmemSpaceOption(vmemSpace),
                                      accel::checkVmemBytesOption(vmemBytes)});
  }

  void runOnOperation() override {
    // The budget: a quarter of VMEM in all, an eighth for one buffer, so
    // the tiles that the ops stage through VMEM still fit beside them.
    uint64_t budget = vmemBytes / 4, used = 0;
    Attribute vmem = IntegerAttr::get(IntegerType::get(&getContext(), 64),
                                      int64_t(vmemSpace));
    getOperation().walk([&](memref::AllocOp alloc) {
      MemRefType type = alloc.getType();
      if (!accel::isInHbm(type) || !type.hasStaticShape() ||
          !type.getLayout().isIdentity() ||
          !(type.getElementType().isF32() || type.getElementType().isBF16()))
        return;
      uint64_t bytes = uint64_t(type.getNumElements()) *
                       (type.getElementType().isBF16() ? 2 : 4);
      if (bytes > vmemBytes / 8 || used + bytes > budget)
        return;
      SmallVector<Value> values;
      if (failed(collectViews(alloc.getResult(), values)))
        return;
      used += bytes;
      // A view has the memory space of what it views: each type changes
      // in the same way.
      for (Value v : values) {
        auto t = cast<MemRefType>(v.getType());
        v.setType(MemRefType::get(t.getShape(), t.getElementType(),
                                  t.getLayout(), vmem));
      }
    });
  }
};

} // namespace
