//===- Passes.cpp - accel pass pipelines ----------------------------------===//

#include "accel/Transforms/Passes.h"

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"

using namespace mlir;

void accel::buildAccelFdoPipeline(OpPassManager &pm,
                                  const FdoPipelineOptions &options) {
  pm.addPass(createAccelParallelizeDma());
  AccelHoistDmaOptions hoist;
  hoist.vmemCapacity = options.vmemCapacity;
  pm.addPass(createAccelHoistDma(hoist));
}

void accel::registerAccelFdoPipeline() {
  PassPipelineRegistration<FdoPipelineOptions>(
      "accel-fdo-pipeline",
      "The feedback-directed transforms: accel-parallelize-dma, then "
      "accel-hoist-dma (hints from accel-attach-metrics)",
      buildAccelFdoPipeline);
}
