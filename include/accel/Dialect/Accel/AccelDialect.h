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

/// The program fingerprint metrics.json carries ("program_fingerprint",
/// docs/metrics.md): 16 hex digits of an xxh3 hash over every op of `root`
/// that has an accel.op_id, in id order, of its id, op name and location
/// (file base name, line and column, so a module read back from
/// program.mlir, printed with its locations, or from another directory
/// matches), then of every memref.global: its name, type and a hash of its
/// initial data (the program's constants, which the image carries as HBM
/// data). --accel-attach-metrics compares it with the module's to refuse
/// the metrics of another program.
std::string getProgramFingerprint(mlir::Operation *root);
} // namespace accel

#endif // ACCEL_DIALECT_ACCEL_ACCELDIALECT_H
