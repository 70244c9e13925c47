//===- LoweringCheck.h - Does a transformed module still lower? -*- C++ -*-===//
//
// Internal to lib/Transforms: a transform that cannot predict the lowering's
// register allocation exactly (--accel-pipeline-dma) tries it on a copy.
//
//===----------------------------------------------------------------------===//

#ifndef ACCEL_LIB_TRANSFORMS_LOWERINGCHECK_H
#define ACCEL_LIB_TRANSFORMS_LOWERINGCHECK_H

#include "mlir/IR/BuiltinOps.h"

#include <cstdint>
#include <string>

namespace accel {
namespace detail {

/// Lowers `module` (lib/Conversion/AccelToISA) with the given VMEM capacity
/// and page (bytes) and at most `scalarRegisters` registers, discarding the
/// program. Returns "" when it lowers, else the first error's message (the
/// diagnostics are caught, not printed).
std::string checkLowers(mlir::ModuleOp module, uint64_t vmemCapacity,
                        uint64_t vmemPage, unsigned scalarRegisters);

} // namespace detail
} // namespace accel

#endif // ACCEL_LIB_TRANSFORMS_LOWERINGCHECK_H
