//===- Load.cpp - Read a program as the accel tools do --------------------===//

#include "accel/Fdo/Load.h"
#include "accel/Dialect/Accel/AccelOps.h"
#include "accel/Dialect/Accel/TileShape.h"

#include "accel/Sim/Topology.h"
#include "accel/Support/Nesting.h"
#include "accel/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"

using namespace mlir;
using namespace accel;

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
  if (needsFrontend(module)) {
    // Before any pass does arithmetic on them: shapes whose byte size
    // passes 2^63 are one located error each.
    if (failed(verifyShapeSizes(module)))
      return failure();
    FrontendOptions options;
    setFrontendOptions(options, config);
    options.bind = bind;
    PassManager pm(module.getContext());
    buildFrontendPipeline(pm, options);
    if (failed(pm.run(module)))
      return failure();
  }
  return lowerCollectives(module, config);
}

LogicalResult accel::assignOpIds(ModuleOp module) {
  PassManager pm(module.getContext());
  pm.addPass(createAccelAssignOpIds());
  return pm.run(module);
}

LogicalResult accel::lowerCollectives(ModuleOp module,
                                      const sim::MachineConfig &config) {
  bool any = false;
  module.walk([&](Operation *op) {
    any |= llvm::isa<AllGatherOp, ReduceScatterOp, AllReduceOp, AllToAllOp,
                     accel::SendOp, RecvOp>(op);
  });
  if (!any)
    return success();
  AccelLowerCollectivesOptions options;
  options.chips = config.chips;
  options.topology = sim::topologyKindName(config.topology.getKind()).str();
  for (unsigned d : config.topology.getDims())
    options.dims.push_back(d);
  options.hopLatency = config.iciHopLatency;
  options.bytesPerCycle = config.iciBytesPerCycle;
  int link = config.findLink(isa::MemSpace::VMEM, isa::MemSpace::VMEM);
  options.baseLatency = link >= 0 ? config.links[link].baseLatency : 0;
  PassManager pm(module.getContext());
  pm.addNestedPass<func::FuncOp>(createAccelLowerCollectives(options));
  return pm.run(module);
}

LogicalResult accel::prepareProgram(ModuleOp module,
                                    sim::MachineConfig &config) {
  if (failed(adoptModuleChips(config, module)) ||
      failed(runFrontend(module, config)))
    return failure();
  return assignOpIds(module);
}
