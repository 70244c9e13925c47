//===- IndexExpr.h - Integer values of a linalg body, as index math -*- C++
//-*-===//
//
// A linalg.generic body that compares indices (a causal mask: row >= col,
// JAX's iota + compare; torch's triu) computes them with linalg.index and
// integer arith. The VPU computes on f32 tiles: convert-linalg-to-accel
// reads each integer value of the body as an affine function of the
// tile's row and column and of values defined outside the body (the tile
// offsets), and materializes it with vpu.iota only where a float or a
// comparison needs it.
//
//===----------------------------------------------------------------------===//

#ifndef ACCEL_LIB_CONVERSION_LINALGTOACCEL_INDEXEXPR_H
#define ACCEL_LIB_CONVERSION_LINALGTOACCEL_INDEXEXPR_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/Value.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"

#include <cstdint>
#include <string>

namespace accel {

/// coef[0] * row + coef[1] * col + sum(terms) + constant, where row and col
/// index the op's tile (a 1-loop op's loop is its column) and each term is
/// a value defined outside the body (an index or integer, e.g. the tile's
/// offset) times a coefficient.
struct IndexExpr {
  int64_t coef[2] = {0, 0};
  int64_t constant = 0;
  llvm::SmallVector<std::pair<mlir::Value, int64_t>, 2> terms;

  /// Whether it depends on neither the row nor the column.
  bool isUniform() const { return coef[0] == 0 && coef[1] == 0; }
  /// Whether it is `constant` alone.
  bool isConstant() const { return isUniform() && terms.empty(); }
};

/// Whether `op` computes an integer or index value (linalg.index, integer
/// constants, arith integer arithmetic and casts) rather than a float or a
/// mask (an i1 from a comparison).
bool isIndexArithmetic(mlir::Operation *op);

/// The IndexExpr of the integer or index value `v` of the body `body` of an
/// op with `numLoops` (1 or 2) loops; `memo` caches the values seen.
/// Supported: linalg.index, integer constants, values defined outside the
/// body, arith.addi, subi, muli by a constant, and the integer casts
/// (index_cast, index_castui, extsi, extui, trunci: values are assumed not
/// to wrap). Fails with `reason` set (the op that is not supported, a
/// product of two indices, an integer operand of the op, or a coefficient
/// past 64 bits).
mlir::FailureOr<IndexExpr>
analyzeIndexExpr(mlir::Value v, mlir::Block &body, unsigned numLoops,
                 llvm::DenseMap<mlir::Value, IndexExpr> &memo,
                 std::string &reason);

/// sum(e.terms) + e.constant as an index value, built at `b`'s insertion
/// point (which the terms must dominate).
mlir::Value buildIndexBase(mlir::OpBuilder &b, mlir::Location loc,
                           const IndexExpr &e);

} // namespace accel

#endif // ACCEL_LIB_CONVERSION_LINALGTOACCEL_INDEXEXPR_H
