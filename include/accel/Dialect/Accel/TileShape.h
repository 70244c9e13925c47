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

/// The element type of a tile: f32 or bf16 (tensor data), or i32 (index
/// tables).
enum class TileElem { F32, BF16, I32 };

/// A memref seen as a 2-D tile: rows x cols elements, rows `rowStride`
/// elements apart. Rank-1 memrefs are one row.
struct TileShape {
  int64_t rows = 0, cols = 0, rowStride = 0;
  MemorySpace space = MemorySpace::HBM;
  TileElem elem = TileElem::F32;
  bool isI32() const { return elem == TileElem::I32; }
  bool isBF16() const { return elem == TileElem::BF16; }
  /// Bytes per element: 2 for bf16, else 4.
  int64_t elemBytes() const { return isBF16() ? 2 : 4; }
  /// Bytes of the elements (rows * cols * elemBytes()).
  int64_t bytes() const { return rows * cols * elemBytes(); }
};

/// Returns the tile view of `type`, or failure with the reason in `why`
/// ("must have f32 or bf16 elements", ...). With `allowI32`, i32 elements
/// are accepted too (buffers and DMAs of index tables).
mlir::FailureOr<TileShape> getTileShape(mlir::Type type,
                                        std::string *why = nullptr,
                                        bool allowI32 = false);

/// Bytes per element of a memref or tensor element type: an integer or
/// float's bit width rounded up to bytes, 8 for index, 1 for anything else
/// (a lower bound: sizes computed with it are checked, not used).
uint64_t getElementBytes(mlir::Type elem);

/// Checks that every statically shaped memref or tensor under `root` (block
/// arguments, e.g. function arguments, and op results) is at most
/// kMaxByteSize bytes (accel/Support/CheckedSize.h): the dimensions are the
/// user's and their product may pass 2^64, which the size arithmetic of the
/// frontend and the lowering would wrap. Emits one located error per such
/// value, at its location ("argument 0 of type memref<...> holds 4294967296
/// × 4294967296 × 4 bytes = 73786976294838206464 bytes (2^66), more than
/// the 2^63 - 1 bytes a buffer can have") and fails if there was one.
mlir::LogicalResult verifyShapeSizes(mlir::Operation *root);

} // namespace accel

#endif // ACCEL_DIALECT_ACCEL_TILESHAPE_H
