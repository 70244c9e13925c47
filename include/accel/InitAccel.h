//===- InitAccel.h - Register the accel dialects and passes -----*- C++ -*-===//

#ifndef ACCEL_INITACCEL_H
#define ACCEL_INITACCEL_H

#include "accel/Dialect/Accel/AccelDialect.h"
#include "accel/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/DialectRegistry.h"

namespace accel {
/// The dialects accel programs use: accel, func, arith, scf, memref.
inline void registerAccelDialects(mlir::DialectRegistry &registry) {
  registry.insert<AccelDialect, mlir::func::FuncDialect,
                  mlir::arith::ArithDialect, mlir::scf::SCFDialect,
                  mlir::memref::MemRefDialect>();
}

/// Registers, besides registerAccelDialects, the upstream dialects that
/// programs from upstream frontends use (affine, linalg, tensor,
/// bufferization, math, transform, ub) with the external interface models
/// their passes need (one-shot bufferization, tiling, value bounds) and the
/// transform dialect extensions of these dialects. In lib/Init (AccelInit).
void registerFrontendDialects(mlir::DialectRegistry &registry);

/// Registers the upstream passes a frontend pipeline runs: affine
/// (affine-data-copy-generate, affine-pipeline-data-transfer, ...),
/// bufferization (one-shot-bufferize, buffer-results-to-out-params), linalg,
/// memref, scf (scf-forall-to-for), tensor, the transform interpreter,
/// lower-affine and the generic transforms (canonicalize, cse, ...). Not for
/// the plugin: stock mlir-opt registers them already.
void registerFrontendPasses();
} // namespace accel

#endif // ACCEL_INITACCEL_H
