//===- AccelToISA.cpp - Lower accel programs to accel machine code --------===//
//
// The lowering of a whole accel program to machine code (docs/isa.md): the
// entry points, the function's buffers, registers and blocks, and the
// dispatch of each op to the lowering of its family. The Lowerer class is
// declared in Lowerer.h, which lists the files holding its parts.
//
//===----------------------------------------------------------------------===//

#include "Lowerer.h"

#include "mlir/IR/BuiltinAttributes.h"

using namespace mlir;
using namespace accel;
using namespace accel::lowering;

std::string accel::formatLocation(Location loc) {
  if (auto flc = loc->findInstanceOf<FileLineColLoc>())
    return (flc.getFilename().getValue() + ":" + Twine(flc.getLine()) + ":" +
            Twine(flc.getColumn()))
        .str();
  return "unknown";
}

/// Lowers `func`: places its HBM arguments, the globals it reads and its
/// VMEM allocations (each loaded into a register up front unless loaded
/// where it stands), numbers its ops for register reuse, then lowers its
/// body. Errors: those of the placement and of each op's lowering.
FailureOr<isa::Program> Lowerer::run(func::FuncOp func) {
  program.name = func.getSymName().str();
  // HBM buffers: the arguments.
  uint64_t hbmNext = 1 << 16; // address 0 stays unmapped
  for (unsigned i = 0, e = func.getNumArguments(); i < e; ++i)
    if (failed(placeArgument(func, i, hbmNext)))
      return failure();
  // HBM constants: the globals it reads, after the arguments.
  if (failed(placeGlobals(func, hbmNext)))
    return failure();
  // VMEM buffers: every accel.alloc, statically placed.
  if (failed(placeAllocations(func)))
    return failure();
  numberOps(func.getBody().front());
  for (BlockArgument arg : func.getArguments())
    scheduleRelease(arg);
  func.walk([&](AllocOp alloc) {
    if (!inPlaceBase.count(alloc))
      scheduleRelease(alloc.getResult());
  });
  if (failed(lowerBlock(func.getBody().front())))
    return failure();
  return std::move(program);
}

LogicalResult Lowerer::lowerBlock(Block &block) {
  for (Operation &op : block) {
    if (failed(lowerOp(&op)))
      return failure();
    // Allocations nested in loops were placed (and scheduled) up front.
    if (!llvm::isa<AllocOp>(op) || inPlaceBase.count(&op))
      for (Value result : op.getResults())
        scheduleRelease(result);
    if (auto loop = dyn_cast<scf::ForOp>(op))
      scheduleRelease(loop.getInductionVar());
    releaseUpTo(op.getNumRegions() ? endPos[&op] : opPos[&op]);
  }
  return success();
}

/// Lowers `op` by the lowering of its family (docs/isa.md); each family
/// answers std::nullopt for an op it does not know. Errors: an op no family
/// knows, and those of the family's lowering.
LogicalResult Lowerer::lowerOp(Operation *op) {
  std::optional<LogicalResult> result = lowerArithOp(op);
  if (!result)
    result = lowerMemoryOp(op);
  if (!result)
    result = lowerControlFlowOp(op);
  if (!result)
    result = lowerDmaOp(op);
  if (!result)
    result = lowerComputeOp(op);
  if (result)
    return *result;
  return op->emitError() << "'" << op->getName()
                         << "' cannot be lowered to the accel ISA";
}

std::string accel::checkHbmArgument(Type t) {
  // Any rank: an argument is a buffer; the ops' views of it are tiles.
  auto type = dyn_cast<MemRefType>(t);
  if (!type)
    return "is not a memref";
  Type elem = type.getElementType();
  if (!elem.isF32() && !elem.isBF16() && !elem.isSignlessInteger(32))
    return "must have f32, bf16 or i32 elements";
  if (!type.hasStaticShape() || type.getRank() < 1)
    return "must have a static shape of rank 1 or more";
  if (getMemorySpace(type) != MemorySpace::HBM)
    return "must be in #accel.space<hbm>";
  if (!type.getLayout().isIdentity())
    return "must have the identity layout";
  return "";
}

func::FuncOp accel::findEntryFunction(ModuleOp module, llvm::StringRef name) {
  SmallVector<func::FuncOp> funcs;
  for (auto f : module.getOps<func::FuncOp>())
    if (!f.isExternal())
      funcs.push_back(f);
  func::FuncOp entry;
  for (func::FuncOp f : funcs)
    if ((!name.empty() && f.getSymName() == name) ||
        (name.empty() && f.getSymName() == "main"))
      entry = f;
  if (!entry && name.empty() && funcs.size() == 1)
    entry = funcs.front();
  return entry;
}

FailureOr<isa::Program> accel::lowerToIsa(ModuleOp module,
                                          const LoweringOptions &options) {
  func::FuncOp entry = findEntryFunction(module, options.entry);
  if (!entry) {
    size_t numFuncs =
        llvm::count_if(module.getOps<func::FuncOp>(),
                       [](func::FuncOp f) { return !f.isExternal(); });
    if (options.entry.empty())
      module.emitError() << "cannot choose an entry function: found "
                         << numFuncs
                         << " functions with bodies and none named 'main'";
    else
      module.emitError() << "no function named '" << options.entry << "'";
    return failure();
  }
  Lowerer lowerer(options);
  FailureOr<isa::Program> program = lowerer.run(entry);
  if (succeeded(program))
    program->fingerprint = getProgramFingerprint(module);
  return program;
}
