//===- Passes.h - conversions into the accel dialect ------------*- C++ -*-===//

#ifndef ACCEL_CONVERSION_PASSES_H
#define ACCEL_CONVERSION_PASSES_H

#include "mlir/Pass/Pass.h"

namespace accel {
#define GEN_PASS_DECL
#include "accel/Conversion/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "accel/Conversion/Passes.h.inc"
} // namespace accel

#endif // ACCEL_CONVERSION_PASSES_H
