//===- Frontend.cpp - the --accel-from-linalg pipeline --------------------===//

#include "accel/Frontend/Frontend.h"
#include "accel/Conversion/Passes.h"
#include "accel/Dialect/Accel/AccelDialect.h"
#include "accel/Dialect/Accel/TileShape.h"
#include "accel/Frontend/Passes.h"
#include "accel/Support/PassOptions.h"

#include "mlir/Conversion/AffineToStandard/AffineToStandard.h"
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Affine/Transforms/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/Transforms/Passes.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;
using namespace accel;

/// The frontend's passes on tensors: inlining, shape binding, the
/// decompositions and folds of linalg ops, fusion, then bufferization into
/// one function whose results are out-parameters.
static void addTensorPasses(OpPassManager &pm, const FrontendOptions &options) {
  // Helpers reached by func.call (JAX's jitted jax.nn.* functions, a
  // module exported without --inline) are inlined into their callers and
  // dropped once unused, so the rest sees one function. No cleanup
  // pipeline runs on the way: the IR is otherwise the user's.
  pm.addPass(createInlinerPass({}, [](OpPassManager &) {}));
  pm.addPass(createSymbolDCEPass());
  // Dynamic dimensions of the arguments from the shapes the tools know (the
  // .npy inputs, --bind), carried through the body.
  AccelBindShapesOptions bind;
  bind.shapes.assign(options.bind.begin(), options.bind.end());
  pm.addPass(createAccelBindShapes(bind));
  AccelDecomposeLinalgOptions decompose;
  decompose.tileRows = options.tileRows;
  decompose.vmemSpace = options.vmemSpace;
  decompose.vmemBytes = options.vmemBytes;
  pm.addNestedPass<func::FuncOp>(createAccelDecomposeLinalg(decompose));
  pm.addNestedPass<func::FuncOp>(createAccelFoldScalars());
  AccelLowerGathersOptions gathers;
  gathers.vmemSpace = options.vmemSpace;
  gathers.vmemBytes = options.vmemBytes;
  pm.addNestedPass<func::FuncOp>(createAccelLowerGathers(gathers));
  pm.addPass(createAccelExpandRank0());
  AccelFuseLinalgOptions fuse;
  fuse.tileRows = options.tileRows;
  fuse.tileCols = options.tileCols;
  fuse.vmemSpace = options.vmemSpace;
  pm.addNestedPass<func::FuncOp>(createAccelFuseLinalg(fuse));
  pm.addNestedPass<func::FuncOp>(createCanonicalizerPass());
  bufferization::OneShotBufferizePassOptions bufferize;
  bufferize.bufferizeFunctionBoundaries = true;
  bufferize.functionBoundaryTypeConversion =
      bufferization::LayoutMapOption::IdentityLayoutMap;
  pm.addPass(bufferization::createOneShotBufferizePass(bufferize));
  // Upstream's buffer-results-to-out-params sees only what it supports.
  pm.addNestedPass<func::FuncOp>(createAccelCheckOutParams());
  bufferization::BufferResultsToOutParamsPassOptions outParams;
  outParams.hoistStaticAllocs = true;
  outParams.modifyPublicFunctions = true;
  pm.addPass(bufferization::createBufferResultsToOutParamsPass(outParams));
  pm.addPass(createCanonicalizerPass());
}

/// The frontend's passes on each function's buffers (`func`, nested in the
/// pipeline): affine loops raised, intermediates promoted to VMEM, linalg
/// ops tiled to VMEM-sized tiles and their operands staged through VMEM.
static void addBufferPasses(OpPassManager &func,
                            const FrontendOptions &options) {
  // Affine loops from upstream's tiling run from an outer IV to a constant
  // past it; normalized (0 to N, step 1) with the index arithmetic folded
  // into the accesses, they are the perfect nests the raise expects.
  func.addPass(affine::createAffineLoopNormalizePass());
  func.addPass(createCanonicalizerPass());
  func.addPass(createAccelRaiseAffineLoops());
  AccelPromoteBuffersOptions promote;
  promote.vmemSpace = options.vmemSpace;
  promote.vmemBytes = options.vmemBytes;
  func.addPass(createAccelPromoteBuffers(promote));
  AccelTileLinalgOptions tile;
  tile.tileRows = options.tileRows;
  tile.tileCols = options.tileCols;
  tile.tileK = options.tileK;
  tile.vmemBytes = options.vmemBytes;
  func.addPass(createAccelTileLinalg(tile));
  // Every partial tile static, also inside another loop's partial last
  // iteration (a shape that neither tile dimension divides).
  SCFForLoopPeelingOptions peeling;
  peeling.skipPartial = false;
  func.addPass(createSCFForLoopPeeling(peeling));
  func.addPass(createCanonicalizerPass());
  func.addPass(createCSEPass()); // one view per tile: one staged buffer
  AccelStageOperandsOptions stage;
  stage.vmemSpace = options.vmemSpace;
  func.addPass(createAccelStageOperands(stage));
}

void accel::buildFrontendPipeline(OpPassManager &pm,
                                  const FrontendOptions &options) {
  addTensorPasses(pm, options);
  addBufferPasses(pm.nest<func::FuncOp>(), options);
  // accel's memory spaces, DMAs and ops; then loop-invariant ops hoisted.
  ConvertMemorySpacesToAccelOptions spaces;
  spaces.vmemSpace = options.vmemSpace;
  pm.addPass(createConvertMemorySpacesToAccel(spaces));
  pm.addPass(createConvertAffineDmaToAccel());
  pm.addPass(createLowerAffinePass());
  pm.addPass(createConvertLinalgToAccel());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  pm.addNestedPass<func::FuncOp>(createAccelHoistInvariantOps());
}

std::string accel::checkFrontendOptions(const FrontendOptions &options) {
  auto tileDim = [](llvm::StringRef name, int64_t value) {
    return checkOptionRange<int64_t>(name, value, 1, kMaxTileDim,
                                     "a tile dimension of the ISA");
  };
  return firstOptionProblem({tileDim("tile-rows", options.tileRows),
                             tileDim("tile-cols", options.tileCols),
                             tileDim("tile-k", options.tileK),
                             checkVmemBytesOption(options.vmemBytes),
                             checkVmemSpaceOption(options.vmemSpace)});
}

void accel::registerFrontendPipeline() {
  // PassPipelineRegistration, with the options checked when they are
  // parsed: a bad value is one error naming it, before anything runs.
  registerPassPipeline(
      "accel-from-linalg",
      "The frontend: linalg on tensors (or buffers), or affine loops with "
      "DMAs, to the simplest correct accel program (inline func.call, bind "
      "dynamic "
      "argument shapes (bind=ARG=D0xD1,...), "
      "decompose softmax and convolutions, "
      "fold scalar and rank-0 constants into the ops that read them, fuse "
      "a matmul into its elementwise consumers' tile loop, bufferize, raise "
      "scalar affine loop nests, allocate intermediates that fit in VMEM "
      "there, tile to VMEM-sized tiles, stage operands "
      "through VMEM, convert DMAs and ops, hoist loop-invariant ops)",
      [](OpPassManager &pm, StringRef text,
         function_ref<LogicalResult(const Twine &)> errorHandler) {
        FrontendOptions options;
        if (failed(options.parseFromString(text)))
          return failure();
        if (std::string problem = checkFrontendOptions(options);
            !problem.empty())
          return errorHandler("accel-from-linalg: " + problem);
        buildFrontendPipeline(pm, options);
        return success();
      },
      [](function_ref<void(const mlir::detail::PassOptions &)> optHandler) {
        optHandler(FrontendOptions());
      });
}

bool accel::needsFrontend(ModuleOp module) {
  auto foreign = [](Type t) {
    if (isa<TensorType>(t))
      return true;
    auto memref = dyn_cast<BaseMemRefType>(t);
    return memref && !isa_and_nonnull<MemorySpaceAttr>(memref.getMemorySpace());
  };
  bool found = false;
  module.walk([&](Operation *op) {
    // Ops of the frontend's input dialects (linalg.softmax is no LinalgOp;
    // affine loops and DMAs may already use accel's spaces).
    if (isa_and_nonnull<linalg::LinalgDialect, affine::AffineDialect,
                        tensor::TensorDialect>(op->getDialect()) ||
        llvm::any_of(op->getResultTypes(), foreign))
      found = true;
    if (auto f = dyn_cast<func::FuncOp>(op))
      found |= llvm::any_of(f.getArgumentTypes(), foreign) ||
               llvm::any_of(f.getResultTypes(), foreign);
    return found ? WalkResult::interrupt() : WalkResult::advance();
  });
  return found;
}
