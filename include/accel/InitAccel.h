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
  registry
      .insert<AccelDialect, mlir::func::FuncDialect, mlir::arith::ArithDialect,
              mlir::scf::SCFDialect, mlir::memref::MemRefDialect>();
}

/// Loads the dialects of registerAccelDialects into \p ctx, the ones that
/// accel's own code builds ops of outside a pass (lowering, the FDO loop,
/// the frontend's module set-up). Every other registered dialect (linalg,
/// tensor, affine, transform, ...) loads when the parser meets it or a pass
/// that declares it as a dependent dialect runs, as in mlir-opt. Loading
/// all of them up front cost every start of accel-replay 16 ms and 280 page
/// faults (`accel-replay config`: 29 -> 13 ms, 741 -> 461 faults, 2-vCPU
/// AMD EPYC, 2026-12-02), a tenth of the test suite's accel-replay time.
inline void loadAccelDialects(mlir::MLIRContext &ctx) {
  ctx.loadDialect<AccelDialect, mlir::func::FuncDialect,
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
