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

/// Lowers the function `entry` of `module` (lib/Conversion/AccelToISA) with
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

} // namespace detail
} // namespace accel

#endif // ACCEL_LIB_TRANSFORMS_LOWERINGCHECK_H
