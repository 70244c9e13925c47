//===- Frontend.h - linalg / tensor programs to accel programs --*- C++ -*-===//
//
// The frontend pipeline (--accel-from-linalg): upstream bufferization, then
// accel's frontend passes (Passes.td here) and the conversions into the
// accel dialect (include/accel/Conversion/Passes.td), giving the
// simplest correct synchronous accel program; scheduling is left to the
// FDO passes.
//
//===----------------------------------------------------------------------===//

#ifndef ACCEL_FRONTEND_FRONTEND_H
#define ACCEL_FRONTEND_FRONTEND_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"

namespace accel {

/// Options of --accel-from-linalg. The tile sizes and the VMEM budget come
/// from the machine config when a tool builds the pipeline
/// (getFrontendOptions in accel/Fdo/Run.h); these defaults are the default
/// config's.
struct FrontendOptions : public mlir::PassPipelineOptions<FrontendOptions> {
  Option<int64_t> tileRows{*this, "tile-rows",
                           llvm::cl::desc("Output rows per tile"),
                           llvm::cl::init(128)};
  Option<int64_t> tileCols{*this, "tile-cols",
                           llvm::cl::desc("Output columns per tile"),
                           llvm::cl::init(512)};
  Option<int64_t> tileK{*this, "tile-k",
                        llvm::cl::desc("Matmul reduction depth per tile"),
                        llvm::cl::init(512)};
  Option<uint64_t> vmemBytes{
      *this, "vmem-bytes",
      llvm::cl::desc("VMEM capacity in bytes (one op's tiles take at most a "
                     "quarter)"),
      llvm::cl::init(33554432)};
  Option<unsigned> vmemSpace{
      *this, "vmem-space",
      llvm::cl::desc("The numbered memory space that is VMEM in the input"),
      llvm::cl::init(1)};
  ListOption<std::string> bind{
      *this, "bind",
      llvm::cl::desc("Static shapes of arguments with dynamic dimensions, "
                     "as ARG=D0xD1x... (accel-bind-shapes)")};
};

/// Adds the frontend to `pm` (anchored on builtin.module): the inliner,
/// symbol-dce, accel-bind-shapes (the `bind` shapes), accel-decompose-linalg
/// and accel-fuse-linalg, canonicalize, one-shot-bufferize (function
/// boundaries, identity layouts), accel-check-out-params,
/// buffer-results-to-out-params, canonicalize, then on each function
/// affine-loop-normalize, canonicalize, accel-raise-affine-loops,
/// accel-tile-linalg, scf-for-loop-peeling, canonicalize, cse and
/// accel-stage-operands, then convert-memory-spaces-to-accel,
/// convert-affine-dma-to-accel, lower-affine, convert-linalg-to-accel,
/// canonicalize and cse. Each upstream step gets only what it supports:
/// the accel passes before it refuse the rest with a located error.
void buildFrontendPipeline(mlir::OpPassManager &pm,
                           const FrontendOptions &options);

/// Why `options` cannot configure the frontend (a tile size outside
/// [1, kMaxTileDim], a VMEM size outside [1, 2^32], VMEM space 0), as
/// "OPTION must be in [LO, HI] ...; got V"; "" when they can. The passes
/// check their own options again when a pass manager starts.
std::string checkFrontendOptions(const FrontendOptions &options);

/// Registers --accel-from-linalg; its options are checked
/// (checkFrontendOptions) when they are parsed.
void registerFrontendPipeline();

/// Whether `module` is not yet an accel program: a function has a tensor
/// or a memref outside accel's memory spaces in its signature, or the
/// module holds a tensor value or a linalg, tensor or affine op (affine
/// loops and DMAs may already use accel's memory spaces).
bool needsFrontend(mlir::ModuleOp module);

} // namespace accel

#endif // ACCEL_FRONTEND_FRONTEND_H
