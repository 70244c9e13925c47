//===- LinalgToAccel.h - convert-linalg-to-accel's shared parts -*- C++ -*-===//
//
// The operand checks the op conversions of convert-linalg-to-accel share
// (LinalgToAccel.cpp: copies, fills, matmuls and the pass) and the
// conversion of elementwise linalg ops and row reductions to VPU sequences
// (ConvertGeneric.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef ACCEL_LIB_CONVERSION_LINALGTOACCEL_LINALGTOACCEL_H
#define ACCEL_LIB_CONVERSION_LINALGTOACCEL_LINALGTOACCEL_H

#include "accel/Dialect/Accel/TileShape.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/PatternMatch.h"

#include <optional>
#include <string>
#include <utility>

namespace accel::linalg_to_accel {

/// A refusal: the reason, completed by the caller into "cannot convert
/// 'OP' to accel: REASON".
struct Refusal {
  std::string reason;
};

/// The tile view of `v` for op conversion, or the reason it is not one.
/// `role` names the operand in the reason ("the source", "operand #1").
mlir::FailureOr<TileShape> getTile(mlir::Value v, llvm::StringRef role,
                                   Refusal &refusal, bool allowI32 = false);

/// Like getTile, and the tile must be an f32 or bf16 tile in VMEM (an
/// operand of the MXU or the VPU).
mlir::FailureOr<TileShape> getVmemTile(mlir::Value v, llvm::StringRef role,
                                       Refusal &refusal);

/// The value of the f32 or bf16 constant `v`, if it is one (a bf16 is
/// exact in f32); an i1 constant (a mask) is 1.0 or 0.0.
std::optional<float> getConstantFloat(mlir::Value v);

/// Whether memrefs `a` and `b` may share memory. They do not only when
/// their roots (through the lowered views) are distinct, each an
/// allocation or a function argument, and not both arguments (arguments
/// may alias each other); any other root (a loop's iter_arg, an unknown
/// view) may be anything.
bool mayShareMemory(mlir::Value a, mlir::Value b);

/// The fill (a linalg.fill, or the accel.vfill it was converted to) that
/// last wrote `buffer` before `op`, when nothing between them touches memory
/// (so nothing else reads the filled value), and its value; else null.
std::pair<mlir::Operation *, float> findFill(mlir::Operation *op,
                                             mlir::Value buffer);

/// Whether `value` is `identity` exactly (bit for bit: +0.0 is not -0.0).
bool isExactly(float value, float identity);

/// A linalg op (generic or named) whose loops are all parallel, or whose
/// last loop of two is a reduction with acc + x or max(acc, x): a VPU
/// sequence (and vreduce_sum / vreduce_max for the reduction). On failure
/// nothing is rewritten and `refusal` holds the reason.
mlir::LogicalResult convertGeneric(mlir::IRRewriter &rewriter,
                                   mlir::linalg::LinalgOp op, Refusal &refusal);

} // namespace accel::linalg_to_accel

#endif // ACCEL_LIB_CONVERSION_LINALGTOACCEL_LINALGTOACCEL_H
