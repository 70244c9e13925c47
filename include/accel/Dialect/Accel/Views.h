//===- Views.h - The memref view ops accel programs use ---------*- C++ -*-===//
//
// The view ops the accel ISA lowers to address arithmetic on their source
// (docs/isa.md, "Lowering"), and the buffer a view chain ends in. Shared by
// the transforms' alias reasoning and the linalg conversion.
//
//===----------------------------------------------------------------------===//

#ifndef ACCEL_DIALECT_ACCEL_VIEWS_H
#define ACCEL_DIALECT_ACCEL_VIEWS_H

#include "mlir/Dialect/MemRef/IR/MemRef.h"

namespace accel {

/// Whether `op` is a view op the accel ISA lowers (to address arithmetic
/// on its source): memref.subview, memref.cast, memref.expand_shape and
/// memref.collapse_shape.
inline bool isLoweredView(mlir::Operation *op) {
  return mlir::isa<mlir::memref::SubViewOp, mlir::memref::CastOp,
                   mlir::memref::ExpandShapeOp, mlir::memref::CollapseShapeOp>(
      op);
}

/// The memref `op` views, when it is a lowered view op (isLoweredView);
/// else null.
inline mlir::Value getViewSource(mlir::Operation *op) {
  return isLoweredView(op) ? op->getOperand(0) : mlir::Value();
}

/// The buffer a memref value views: follows the lowered view ops back to an
/// allocation, a block argument or another op's result.
inline mlir::Value getRoot(mlir::Value v) {
  while (mlir::Operation *def = v.getDefiningOp()) {
    mlir::Value source = getViewSource(def);
    if (!source)
      break;
    v = source;
  }
  return v;
}

} // namespace accel

#endif // ACCEL_DIALECT_ACCEL_VIEWS_H
