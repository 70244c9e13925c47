//===- Load.cpp - Read a program as the accel tools do --------------------===//

#include "accel/Fdo/Load.h"
#include "accel/Dialect/Accel/TileShape.h"

#include "accel/Sim/Topology.h"
#include "accel/Support/Nesting.h"
#include "accel/Transforms/Passes.h"

#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"

using namespace mlir;

llvm::Expected<accel::sim::MachineConfig>
accel::loadMachineConfig(llvm::StringRef path) {
  if (path.empty())
    return sim::MachineConfig::getDefault();
  return sim::MachineConfig::fromFile(path);
}

llvm::Error accel::parseProgram(MLIRContext &context,
                                llvm::SourceMgr &sourceMgr,
                                std::unique_ptr<llvm::MemoryBuffer> buffer,
                                OwningOpRef<ModuleOp> &module) {
  sourceMgr.AddNewSourceBuffer(std::move(buffer), llvm::SMLoc());
  return parseProgram(context, sourceMgr, module);
}

llvm::Error accel::parseProgram(MLIRContext &context,
                                llvm::SourceMgr &sourceMgr,
                                OwningOpRef<ModuleOp> &module) {
  module = nullptr;
  const llvm::MemoryBuffer *buffer =
      sourceMgr.getMemoryBuffer(sourceMgr.getMainFileID());
  // MLIR's parser recurses per nesting level: refuse what would overflow
  // its stack.
  if (llvm::Error e =
          checkMlirNesting(buffer->getBuffer(), buffer->getBufferIdentifier()))
    return e;
  module = parseSourceFile<ModuleOp>(sourceMgr, &context);
  return llvm::Error::success();
}

void accel::setFrontendOptions(FrontendOptions &o,
                               const sim::MachineConfig &config) {
  // At most the ISA's largest tile dimension (the passes' option range):
  // an MXU of more than kMaxTileDim / 4 columns gets the largest tiles.
  o.tileCols = std::min<int64_t>(4 * int64_t(config.mxuCols), kMaxTileDim);
  o.tileK = std::min<int64_t>(4 * int64_t(config.mxuRows), kMaxTileDim);
  o.vmemBytes = config.vmemBytes;
}

LogicalResult accel::adoptModuleChips(sim::MachineConfig &config,
                                      ModuleOp module) {
  Attribute attr = module->getAttr("accel.chips");
  if (!attr)
    return success();
  auto chips = dyn_cast<IntegerAttr>(attr);
  if (!chips || chips.getValue().isNegative() ||
      chips.getValue().ugt(sim::Topology::kMaxChips) || chips.getInt() == 0)
    return module.emitError() << "accel.chips must be an integer in [1, "
                              << sim::Topology::kMaxChips << "]";
  auto adopted = config.forProgramChips(unsigned(chips.getInt()));
  if (!adopted)
    return module.emitError() << llvm::toString(adopted.takeError());
  config = std::move(*adopted);
  return success();
}

LogicalResult accel::runFrontend(ModuleOp module,
                                 const sim::MachineConfig &config,
                                 llvm::ArrayRef<std::string> bind) {
  if (!needsFrontend(module))
    return success();
  // Before any pass does arithmetic on them: shapes whose byte size
  // passes 2^63 are one located error each.
  if (failed(verifyShapeSizes(module)))
    return failure();
  FrontendOptions options;
  setFrontendOptions(options, config);
  options.bind = bind;
  PassManager pm(module.getContext());
  buildFrontendPipeline(pm, options);
  return pm.run(module);
}

LogicalResult accel::assignOpIds(ModuleOp module) {
  PassManager pm(module.getContext());
  pm.addPass(createAccelAssignOpIds());
  return pm.run(module);
}

LogicalResult accel::prepareProgram(ModuleOp module,
                                    sim::MachineConfig &config) {
  if (failed(adoptModuleChips(config, module)) ||
      failed(runFrontend(module, config)))
    return failure();
  return assignOpIds(module);
}
