//===- PassOptionsTest.cpp - Pass options checked before anything runs ----===//
//
// Issue 31: every option of accel's passes is checked when the pass is
// created from text (lit tests: test/Transforms/pass-options.mlir,
// test/Frontend/options.mlir) and, for a pass built in C++
// from an options struct, when its pass manager starts (Pass::initialize):
// the pass manager fails before any pass runs, with one error naming the
// pass, the option and its range.
//
//===----------------------------------------------------------------------===//

#include "accel/Conversion/Passes.h"
#include "accel/Fdo/FdoLoop.h"
#include "accel/Fdo/Load.h"
#include "accel/Frontend/Frontend.h"
#include "accel/Frontend/Passes.h"
#include "accel/InitAccel.h"
#include "accel/Transforms/Passes.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Pass/PassManager.h"

#include <gtest/gtest.h>

using namespace mlir;
using namespace accel;

namespace {

/// Runs `pm` on a module with one empty function; the error diagnostics
/// (one line each) in `errors`.
LogicalResult runOnEmptyFunction(MLIRContext &ctx, PassManager &pm,
                                 std::string &errors) {
  ScopedDiagnosticHandler handler(&ctx, [&](Diagnostic &d) {
    if (d.getSeverity() == DiagnosticSeverity::Error)
      errors += d.str() + "\n";
    return success();
  });
  OpBuilder b(&ctx);
  OwningOpRef<ModuleOp> module = ModuleOp::create(b.getUnknownLoc());
  b.setInsertionPointToEnd(module->getBody());
  auto func = func::FuncOp::create(b, b.getUnknownLoc(), "main",
                                   b.getFunctionType({}, {}));
  b.setInsertionPointToEnd(func.addEntryBlock());
  func::ReturnOp::create(b, b.getUnknownLoc());
  return pm.run(*module);
}

class PassOptionsTest : public ::testing::Test {
protected:
  PassOptionsTest() {
    DialectRegistry registry;
    registerAccelDialects(registry);
    ctx.appendDialectRegistry(registry);
    ctx.loadAllAvailableDialects();
  }
  MLIRContext ctx;
};

TEST_F(PassOptionsTest, TileSizeOfAStructIsCheckedOnInitialize) {
  AccelTileLinalgOptions o;
  o.tileRows = 0;
  PassManager pm(&ctx);
  pm.addNestedPass<func::FuncOp>(createAccelTileLinalg(o));
  std::string errors;
  EXPECT_TRUE(failed(runOnEmptyFunction(ctx, pm, errors)));
  EXPECT_EQ(errors, "accel-tile-linalg: tile-rows must be in [1, 65535] (a "
                    "tile dimension of the ISA); got 0\n");
}

TEST_F(PassOptionsTest, SolverOfAStructIsCheckedOnInitialize) {
  AccelPinVmemOptions o;
  o.solver = "bogus";
  PassManager pm(&ctx);
  pm.addNestedPass<func::FuncOp>(createAccelPinVmem(o));
  std::string errors;
  EXPECT_TRUE(failed(runOnEmptyFunction(ctx, pm, errors)));
  EXPECT_EQ(errors, "accel-pin-vmem: solver must be 'exact' or 'greedy'; got "
                    "'bogus'\n");
}

TEST_F(PassOptionsTest, VmemCapacityOfTheFdoPipelineIsChecked) {
  FdoPipelineOptions o;
  o.vmemCapacity = 0;
  PassManager pm(&ctx);
  buildAccelFdoPipeline(pm, o);
  std::string errors;
  EXPECT_TRUE(failed(runOnEmptyFunction(ctx, pm, errors)));
  // The first pass of the pipeline names it.
  EXPECT_EQ(errors, "accel-pin-vmem: vmem-capacity must be in [1, "
                    "4294967296]; got 0\n");
}

TEST_F(PassOptionsTest, DefaultsAndLimitsRun) {
  AccelPipelineDmaOptions o;
  o.distance = 1024;
  o.maxDistance = 1024;
  o.vmemCapacity = 1ull << 32;
  o.vmemPage = 1;
  PassManager pm(&ctx);
  pm.addNestedPass<func::FuncOp>(createAccelPipelineDma(o));
  pm.addNestedPass<func::FuncOp>(createAccelTileLinalg());
  std::string errors;
  EXPECT_TRUE(succeeded(runOnEmptyFunction(ctx, pm, errors))) << errors;
  EXPECT_EQ(errors, "");
}

TEST(FrontendOptionsTest, Ranges) {
  FrontendOptions o;
  EXPECT_EQ(checkFrontendOptions(o), "");
  o.tileK = 65536;
  EXPECT_EQ(checkFrontendOptions(o), "tile-k must be in [1, 65535] (a tile "
                                     "dimension of the ISA); got 65536");
  o.tileK = 512;
  o.vmemSpace = 0;
  EXPECT_EQ(checkFrontendOptions(o),
            "vmem-space must be in [1, 4294967295] (space 0 is HBM); got 0");
}

TEST(FrontendOptionsTest, ConfigTilesStayInRange) {
  // An MXU of 65536 columns (the config's limit) asks for 262144-column
  // tiles: the largest the ISA has instead.
  sim::MachineConfig config = sim::MachineConfig::getDefault();
  config.mxuCols = 65536;
  config.mxuRows = 65536;
  FrontendOptions o;
  setFrontendOptions(o, config);
  EXPECT_EQ(int64_t(o.tileCols), 65535);
  EXPECT_EQ(int64_t(o.tileK), 65535);
  EXPECT_EQ(checkFrontendOptions(o), "");
}

TEST_F(PassOptionsTest, FdoPipelineElementsAreNotEmpty) {
  sim::MachineConfig config = sim::MachineConfig::getDefault();
  for (const char *text : {",", "cse,", ",cse", "cse,,cse", " "}) {
    FdoOptions o;
    o.passPipeline = text;
    auto texts = getFdoPassPipelines(&ctx, o, config);
    ASSERT_FALSE(bool(texts)) << text;
    EXPECT_NE(llvm::toString(texts.takeError()).find("is empty"),
              std::string::npos)
        << text;
    o.passPipeline = "";
    o.trialPipeline = text;
    auto trials = getFdoTrialPipelines(&ctx, o);
    ASSERT_FALSE(bool(trials)) << text;
    llvm::consumeError(trials.takeError());
  }
  FdoOptions none;
  none.trialPipeline = "";
  auto trials = getFdoTrialPipelines(&ctx, none);
  ASSERT_TRUE(bool(trials));
  EXPECT_TRUE(trials->empty());
}

} // namespace
