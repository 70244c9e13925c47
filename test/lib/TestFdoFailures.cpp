//===- TestFdoFailures.cpp - A pass that breaks programs on purpose -------===//
//
// --accel-test-break{mode=...} damages the program in one of the ways a
// faulty transform can, so that tests can check how the FDO loop
// (include/accel/Fdo/FdoLoop.h) rejects each: `invalid` leaves IR that
// does not verify, `error` emits an error and fails, `crash` raises
// SIGSEGV, `wrong` changes the data a store writes to HBM (the results then
// differ), `fault` adds a VMEM load out of bounds (the simulated program
// faults). With `skip=N` the pass leaves the program alone the first N
// times it runs on it (counted in the module attribute
// `accel.test_break_runs`), so a test can let earlier FDO iterations
// succeed. For tests only: tools register it next to the real passes.
//
//===----------------------------------------------------------------------===//

#include "accel/Dialect/Accel/AccelOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassRegistry.h"

#include <csignal>

using namespace mlir;
using namespace accel;

namespace {
struct TestBreakPass
    : public PassWrapper<TestBreakPass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(TestBreakPass)

  TestBreakPass() = default;
  TestBreakPass(const TestBreakPass &other) : PassWrapper(other) {}

  StringRef getArgument() const final { return "accel-test-break"; }
  StringRef getDescription() const final {
    return "(tests) Break the program on purpose: invalid IR, a pass error, "
           "a crash, wrong results or a simulated fault";
  }
  void getDependentDialects(DialectRegistry &registry) const override {
    registry.insert<AccelDialect, arith::ArithDialect>();
  }

  Option<std::string> mode{*this, "mode",
                           llvm::cl::desc("invalid, error, crash, wrong or "
                                          "fault"),
                           llvm::cl::init("invalid")};
  Option<unsigned> skip{*this, "skip",
                        llvm::cl::desc("Runs to leave the program alone"),
                        llvm::cl::init(0)};

  void runOnOperation() override {
    ModuleOp module = getOperation();
    Builder attrs(module.getContext());
    auto runs = module->getAttrOfType<IntegerAttr>("accel.test_break_runs");
    int64_t n = runs ? runs.getInt() : 0;
    module->setAttr("accel.test_break_runs", attrs.getI64IntegerAttr(n + 1));
    if (n < int64_t(skip))
      return;
    func::FuncOp func;
    module.walk([&](func::FuncOp f) {
      if (!func)
        func = f;
    });
    if (!func || func.getBody().empty())
      return;
    OpBuilder b = OpBuilder::atBlockBegin(&func.getBody().front());
    Location loc = func.getLoc();
    auto vmem = MemorySpaceAttr::get(module.getContext(), MemorySpace::VMEM);
    auto hbm = MemorySpaceAttr::get(module.getContext(), MemorySpace::HBM);
    if (mode == "invalid") {
      // An allocation in HBM: accel.alloc's verifier rejects it.
      AllocOp::create(b, loc,
                      MemRefType::get({8, 128}, b.getF32Type(),
                                      MemRefLayoutAttrInterface(), hbm));
    } else if (mode == "error") {
      func.emitError("accel-test-break: failing on purpose");
      signalPassFailure();
    } else if (mode == "crash") {
      std::raise(SIGSEGV);
    } else if (mode == "wrong") {
      // Overwrite the source of the last store to HBM just before it.
      DmaStartOp store;
      func.walk([&](DmaStartOp d) {
        auto space = dyn_cast_or_null<MemorySpaceAttr>(
            cast<MemRefType>(d.getDst().getType()).getMemorySpace());
        if (space && space.getValue() == MemorySpace::HBM)
          store = d;
      });
      if (!store)
        return;
      OpBuilder at(store);
      VFillOp::create(at, store.getLoc(), store.getSrc(),
                      at.getF32FloatAttr(7.0f));
    } else if (mode == "fault") {
      // A scalar load 2^20 elements past a 16-element VMEM buffer.
      auto table =
          AllocOp::create(b, loc,
                          MemRefType::get({16}, b.getI32Type(),
                                          MemRefLayoutAttrInterface(), vmem));
      Value far = arith::ConstantIndexOp::create(b, loc, 1 << 20);
      LoadOp::create(b, loc, b.getIndexType(), table.getResult(),
                     ValueRange{far});
    } else {
      module.emitError() << "accel-test-break: unknown mode '" << mode << "'";
      signalPassFailure();
    }
  }
};
} // namespace

namespace accel {
namespace test {
void registerTestFdoFailuresPass() { PassRegistration<TestBreakPass>(); }
} // namespace test
} // namespace accel
