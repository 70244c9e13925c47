//===- Passes.cpp - accel pass pipelines ----------------------------------===//

#include "accel/Transforms/Passes.h"
#include "accel/Support/PassOptions.h"

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

std::vector<std::unique_ptr<Pass>>
accel::createAccelFdoPasses(const FdoPipelineOptions &options) {
  std::vector<std::unique_ptr<Pass>> passes;
  AccelPinVmemOptions pin;
  pin.vmemCapacity = options.vmemCapacity;
  pin.vmemPage = options.vmemPage;
  passes.push_back(createAccelPinVmem(pin));
  passes.push_back(createAccelParallelizeDma());
  AccelRenameVmemOptions rename;
  rename.vmemCapacity = options.vmemCapacity;
  rename.vmemPage = options.vmemPage;
  passes.push_back(createAccelRenameVmem(rename));
  AccelHoistDmaOptions hoist;
  hoist.vmemCapacity = options.vmemCapacity;
  hoist.vmemPage = options.vmemPage;
  passes.push_back(createAccelHoistDma(hoist));
  passes.push_back(createAccelSinkDmaWait());
  AccelPipelineDmaOptions pipeline;
  pipeline.vmemCapacity = options.vmemCapacity;
  pipeline.vmemPage = options.vmemPage;
  passes.push_back(createAccelPipelineDma(pipeline));
  // The moves and clones leave unused address arithmetic and duplicate
  // constants behind; each would still cost an issue slot on the in-order
  // machine (memref.subview lowers to scalar instructions).
  passes.push_back(createCSEPass());
  return passes;
}

void accel::buildAccelFdoPipeline(OpPassManager &pm,
                                  const FdoPipelineOptions &options) {
  // The FDO passes run on each func.func: nested, each in a pass manager
  // of its own, so that the FDO loop can run (and blame) them one by one.
  for (std::unique_ptr<Pass> &pass : createAccelFdoPasses(options)) {
    std::optional<StringRef> anchor = pass->getOpName();
    if (anchor && *anchor != pm.getOpAnchorName())
      pm.nest(*anchor).addPass(std::move(pass));
    else
      pm.addPass(std::move(pass));
  }
}

void accel::registerAccelFdoPipeline() {
  // PassPipelineRegistration, with the options checked when they are
  // parsed: a bad value is one error naming it, before anything runs.
  registerPassPipeline(
      "accel-fdo-pipeline",
      "The feedback-directed transforms: accel-pin-vmem, "
      "accel-parallelize-dma, accel-rename-vmem, accel-hoist-dma, accel-sink-dma-wait, "
      "accel-pipeline-dma (hints from accel-attach-metrics), then cse",
      [](OpPassManager &pm, StringRef text,
         function_ref<LogicalResult(const Twine &)> errorHandler) {
        FdoPipelineOptions options;
        if (failed(options.parseFromString(text)))
          return failure();
        if (std::string problem =
                checkVmemOptions(options.vmemCapacity, options.vmemPage);
            !problem.empty())
          return errorHandler("accel-fdo-pipeline: " + problem);
        buildAccelFdoPipeline(pm, options);
        return success();
      },
      [](function_ref<void(const mlir::detail::PassOptions &)> optHandler) {
        optHandler(FdoPipelineOptions());
      });
}
