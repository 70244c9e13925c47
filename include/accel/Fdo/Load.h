//===- Load.h - Read a program as the accel tools do ------------*- C++ -*-===//
//
// The steps from a file to an accel program that accel-replay (run, fdo,
// record, sweep) and accel-translate share: read and parse the MLIR input
// (refusing nesting deep enough to overflow the parser), adopt the number
// of chips it asks for, run the frontend on linalg, tensor or affine input
// with the machine config's tile sizes, and give every op its stable id.
//
//===----------------------------------------------------------------------===//

#ifndef ACCEL_FDO_LOAD_H
#define ACCEL_FDO_LOAD_H

#include "accel/Frontend/Frontend.h"
#include "accel/Sim/MachineConfig.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/SourceMgr.h"

namespace accel {

/// The machine config of the command line: the embedded default, merged
/// with the override file `path` when it is not empty (docs/config.md).
/// Errors: the file cannot be read, or a field is wrong (named by its JSON
/// path).
llvm::Expected<sim::MachineConfig> loadMachineConfig(llvm::StringRef path);

/// Adds the MLIR text of `buffer` to `sourceMgr` and parses it into
/// `module`, which is null after a diagnostic (through the context's
/// handler: give it one on `sourceMgr` for file:line:col). Errors, before
/// parsing: nesting deep enough to overflow MLIR's recursive parser
/// (accel/Support/Nesting.h), named by the buffer's identifier.
llvm::Error parseProgram(mlir::MLIRContext &context, llvm::SourceMgr &sourceMgr,
                         std::unique_ptr<llvm::MemoryBuffer> buffer,
                         mlir::OwningOpRef<mlir::ModuleOp> &module);
/// The same on the main buffer already in `sourceMgr` (a translation's
/// input).
llvm::Error parseProgram(mlir::MLIRContext &context, llvm::SourceMgr &sourceMgr,
                         mlir::OwningOpRef<mlir::ModuleOp> &module);

/// Sets the frontend options a machine config implies: VMEM-sized tiles
/// (config.vmemBytes) of MXU-shaped blocks (four MXU widths of columns and
/// of reduction depth, at most the ISA's kMaxTileDim).
void setFrontendOptions(FrontendOptions &options,
                        const sim::MachineConfig &config);

/// A module that asks for a number of chips (`accel.chips`, an integer in
/// [1, Topology::kMaxChips]) runs on that many: `config` gets them
/// (MachineConfig::forProgramChips). Failure after an error on the module
/// naming the attribute.
mlir::LogicalResult adoptModuleChips(sim::MachineConfig &config,
                                     mlir::ModuleOp module);

/// The frontend (--accel-from-linalg with setFrontendOptions(config)) on a
/// module that is not yet an accel program (linalg, tensors, affine loops,
/// upstream memory spaces), then lowerCollectives (on an accel program only
/// that). Failure after a
/// diagnostic; first, one located error for each memref or tensor whose
/// byte size passes 2^63 - 1 (accel::verifyShapeSizes). `bind` gives
/// arguments with dynamic dimensions their shapes (FrontendOptions::bind,
/// "ARG=D0xD1x...", e.g. from getShapeBindings).
mlir::LogicalResult runFrontend(mlir::ModuleOp module,
                                const sim::MachineConfig &config,
                                llvm::ArrayRef<std::string> bind = {});

/// --accel-assign-op-ids on `module`: every op gets its stable id. Failure
/// after a diagnostic.
mlir::LogicalResult assignOpIds(mlir::ModuleOp module);

/// Lowers the collectives of `module` (accel.all_gather, ..., send, recv)
/// with --accel-lower-collectives for `config`'s chips, topology and ICI
/// (docs/collectives.md); nothing when there are none. Errors are emitted
/// on the ops.
mlir::LogicalResult lowerCollectives(mlir::ModuleOp module,
                                     const sim::MachineConfig &config);

/// adoptModuleChips, runFrontend, then assignOpIds: the program
/// that run, fdo and record lower, with the op ids that metrics.json and
/// report.txt name. Failure after a diagnostic.
mlir::LogicalResult prepareProgram(mlir::ModuleOp module,
                                   sim::MachineConfig &config);

} // namespace accel

#endif // ACCEL_FDO_LOAD_H
