//===- CheckOutParams.cpp - what buffer-results-to-out-params takes -------===//
//
// Passes.td, accel-check-out-params: upstream's
// buffer-results-to-out-params with hoist-static-allocs erases a returned
// static allocation when it makes it an output argument, so the same
// allocation returned twice is a use after free there. The frontend
// refuses such a return first, with a located error.
//
//===----------------------------------------------------------------------===//

#include "accel/Frontend/Passes.h"

#include "mlir/Dialect/Bufferization/IR/AllocationOpInterface.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/DenseMap.h"

namespace accel {
#define GEN_PASS_DEF_ACCELCHECKOUTPARAMS
#include "accel/Frontend/Passes.h.inc"
} // namespace accel

using namespace mlir;

namespace {

/// Whether upstream's hoisting takes the returned buffer `v`: a static
/// memref made by an allocation op (it then replaces the allocation by the
/// output argument and erases it).
bool isHoistedAllocation(Value v) {
  auto type = dyn_cast<MemRefType>(v.getType());
  return type && type.hasStaticShape() &&
         isa_and_nonnull<bufferization::AllocationOpInterface>(
             v.getDefiningOp());
}

struct AccelCheckOutParamsPass
    : accel::impl::AccelCheckOutParamsBase<AccelCheckOutParamsPass> {
  void runOnOperation() override {
    WalkResult result = getOperation().walk([](func::ReturnOp ret) {
      llvm::DenseMap<Value, unsigned> first;
      for (auto [index, v] : llvm::enumerate(ret.getOperands())) {
        if (!isHoistedAllocation(v))
          continue;
        auto [it, inserted] = first.try_emplace(v, unsigned(index));
        if (inserted)
          continue;
        ret.emitError() << "returns the same buffer as results " << it->second
                        << " and " << index
                        << ": each result becomes its own output argument, "
                           "and one allocation cannot be two (return it "
                           "once, or return a copy)";
        return WalkResult::interrupt();
      }
      return WalkResult::advance();
    });
    if (result.wasInterrupted())
      signalPassFailure();
  }
};

} // namespace
