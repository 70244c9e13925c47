//===- ProgramGenerator.h - Random accel programs for testing ---*- C++ -*-===//
//
// A generator of random, valid-by-construction accel programs and machine
// configs, for differential testing of the FDO transforms (docs/testing.md).
// A program is a plan of top-level statements (tiled elementwise loops,
// tiled matmuls, gathers through accel.load, HBM scratch round trips, row
// reductions), each drawn from its own random stream seeded by (seed,
// statement index): dropping statements leaves the others unchanged, which
// is what test-case reduction (--drop) needs.
//
//===----------------------------------------------------------------------===//

#ifndef ACCEL_GEN_PROGRAMGENERATOR_H
#define ACCEL_GEN_PROGRAMGENERATOR_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "mlir/Support/LLVM.h"

#include "llvm/ADT/SmallVector.h"

#include <cstdint>
#include <string>

namespace mlir {
class MLIRContext;
} // namespace mlir

namespace accel::gen {

/// What to generate.
struct GenOptions {
  /// Every random choice derives from this seed.
  uint64_t seed = 0;
  /// Scales the number of statements and their loop trip counts (>= 1).
  unsigned size = 2;
  /// Indices of top-level statements of the plan to leave out.
  llvm::SmallVector<unsigned> drop;
  /// Put some accel.alloc ops inside loops, as upstream copy generation
  /// does.
  bool allocInLoops = true;
  /// Make about a quarter of the statements bf16 (their HBM and VMEM
  /// tensors, accumulators included) instead of f32.
  bool bf16 = true;
};

/// The machine a generated program targets (a subset of the config fields;
/// docs/config.md).
struct GenMachine {
  uint64_t vmemBytes = 0;
  uint64_t pageBytes = 0;
  uint64_t blocks = 0;
  uint64_t pagesPerBlock = 0;
  unsigned maxOutstanding = 1;
  unsigned mxuRows = 128, mxuCols = 128;
  const char *mxuDataflow = "ws"; ///< "ws", "is" or "os"
  bool mxuOverlap = true;
  unsigned vpuSublanes = 8, vpuLanes = 128, vpuDepth = 8;
  /// Links hbm->vmem, vmem->hbm, vmem->vmem.
  unsigned baseLatency[3] = {500, 500, 100};
  double bytesPerCycle[3] = {1024, 1024, 2048};

  /// The config as a JSON merge patch for `accel-replay --config`.
  std::string toJson(uint64_t seed) const;
};

/// A generated program.
struct GeneratedProgram {
  mlir::OwningOpRef<mlir::ModuleOp> module;
  GenMachine machine;
  /// Statements of the plan (before dropping) and those emitted.
  unsigned numStatements = 0;
  /// Whether the statements share 7/8 of VMEM rather than half (one seed
  /// in five), leaving the transforms little room for extra buffers.
  bool vmemTight = false;
  llvm::SmallVector<unsigned> kept;
  /// One line per kept statement: its index and what it is.
  llvm::SmallVector<std::string> summary;
};

/// Draws the machine config of `seed`.
GenMachine drawMachine(uint64_t seed);

/// Generates the program of `options` (the context must have the accel
/// dialects loaded) and runs the verifier on it; failure after a
/// diagnostic (a generator bug).
mlir::FailureOr<GeneratedProgram> generateProgram(mlir::MLIRContext &ctx,
                                                  const GenOptions &options);

} // namespace accel::gen

#endif // ACCEL_GEN_PROGRAMGENERATOR_H
