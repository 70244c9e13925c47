//===- TileShape.h - 2-D tile view of an accel memref -----------*- C++ -*-===//

#ifndef ACCEL_DIALECT_ACCEL_TILESHAPE_H
#define ACCEL_DIALECT_ACCEL_TILESHAPE_H

#include "accel/Dialect/Accel/AccelDialect.h"
#include "mlir/Support/LLVM.h"

#include <string>

namespace accel {

/// Largest tile dimension or row stride, in elements, that the ISA encodes
/// (16-bit fields; docs/isa.md).
constexpr int64_t kMaxTileDim = 65535;

/// A memref seen as a 2-D tile of f32: rows x cols elements, rows
/// `rowStride` elements apart. Rank-1 memrefs are one row.
struct TileShape {
  int64_t rows = 0, cols = 0, rowStride = 0;
  MemorySpace space = MemorySpace::HBM;
  int64_t bytes() const { return rows * cols * 4; }
};

/// Returns the tile view of `type`, or failure with the reason in `why`
/// ("must have f32 elements", ...).
mlir::FailureOr<TileShape> getTileShape(mlir::Type type,
                                        std::string *why = nullptr);

} // namespace accel

#endif // ACCEL_DIALECT_ACCEL_TILESHAPE_H
