//===- AccelDialect.h - accel dialect ---------------------------*- C++ -*-===//

#ifndef ACCEL_DIALECT_ACCEL_ACCELDIALECT_H
#define ACCEL_DIALECT_ACCEL_ACCELDIALECT_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"

#include "accel/Dialect/Accel/AccelDialect.h.inc"
#include "accel/Dialect/Accel/AccelEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "accel/Dialect/Accel/AccelAttrs.h.inc"
#define GET_TYPEDEF_CLASSES
#include "accel/Dialect/Accel/AccelTypes.h.inc"

namespace accel {
/// Memory space of a memref type, or std::nullopt when it carries no
/// #accel.space attribute.
std::optional<MemorySpace> getMemorySpace(mlir::Type type);
} // namespace accel

#endif // ACCEL_DIALECT_ACCEL_ACCELDIALECT_H
