//===- Passes.h - accel's frontend passes -----------------------*- C++ -*-===//
//
// The frontend passes of Passes.td: the steps that bring a linalg, tensor
// or memref program to what the conversions into accel accept.
//
//===----------------------------------------------------------------------===//

#ifndef ACCEL_FRONTEND_PASSES_H
#define ACCEL_FRONTEND_PASSES_H

#include "mlir/Pass/Pass.h"

namespace accel {
#define GEN_PASS_DECL
#include "accel/Frontend/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "accel/Frontend/Passes.h.inc"
} // namespace accel

#endif // ACCEL_FRONTEND_PASSES_H
