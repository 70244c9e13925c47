//===- LoweringCheck.h - Does a transformed function still lower? -*- C++
//-*-===//
//
// Internal to lib/Transforms: a transform that cannot predict the lowering's
// register allocation exactly (--accel-pipeline-dma, --accel-rename-vmem,
// --accel-schedule) tries it on a copy.
//
//===----------------------------------------------------------------------===//

#ifndef ACCEL_LIB_TRANSFORMS_LOWERINGCHECK_H
#define ACCEL_LIB_TRANSFORMS_LOWERINGCHECK_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

#include <cstdint>
#include <string>

namespace accel {
namespace detail {

/// Lowers the function `entry` of `module` (lib/Target/AccelToISA) with
/// the given VMEM capacity and page (bytes) and at most `scalarRegisters`
/// registers, discarding the program. Returns "" when it lowers, else the
/// first error's message (the diagnostics are caught, not printed).
std::string checkLowers(mlir::ModuleOp module, llvm::StringRef entry,
                        uint64_t vmemCapacity, uint64_t vmemPage,
                        unsigned scalarRegisters);

/// A module of its own holding a copy of `func`: what a function pass may
/// transform and lower on the side without touching the functions beside
/// `func`, which other threads may be transforming.
mlir::OwningOpRef<mlir::ModuleOp> cloneIntoModule(mlir::func::FuncOp func);

/// checkLowers on a copy of `func` alone (cloneIntoModule). The lowering
/// lowers one function and has no calls, so the other functions of the
/// module do not change the answer.
std::string checkLowers(mlir::func::FuncOp func, uint64_t vmemCapacity,
                        uint64_t vmemPage, unsigned scalarRegisters);

/// Undoes a transform that broke the lowering. The DMA-motion passes
/// (hoist, sink, parallelize, pin) move ISSUEs up and WAITs down, which
/// lengthens the live ranges of tokens and addresses, and the lowering
/// (lib/Target/AccelToISA) does not spill: it refuses a function that
/// needs more than 255 scalar registers at once. A pass makes a guard
/// before it changes `func` (a copy of the function is kept) and asks it at
/// the end whether to keep the result: no transform that is accepted makes
/// a function that lowered one that does not (issue 33, item 6).
class LoweringGuard {
public:
  /// `vmemCapacity` and `vmemPage` in bytes, as the pass's options give
  /// them (a pass that does not change VMEM passes UINT64_MAX and 1).
  LoweringGuard(mlir::func::FuncOp func, uint64_t vmemCapacity,
                uint64_t vmemPage);
  ~LoweringGuard();
  /// "" when the function lowers now (as it is and after cse), or when it did
  /// not lower before the pass either (the pass is then not to blame);
  /// otherwise the function's body is restored to the copy and the lowering's
  /// error is returned, for the pass's remark. Costs one trial lowering, two
  /// when it fails.
  std::string keepIfLowers();

private:
  mlir::func::FuncOp func;
  mlir::OwningOpRef<mlir::ModuleOp> saved;
  uint64_t vmemCapacity, vmemPage;
};

} // namespace detail
} // namespace accel

#endif // ACCEL_LIB_TRANSFORMS_LOWERINGCHECK_H
