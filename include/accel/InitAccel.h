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
} // namespace accel

#endif // ACCEL_INITACCEL_H
