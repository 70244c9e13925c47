//===- AffineFns.h - Affine functions of SSA values --------------*- C++
//-*-===//
//
// Index functions of upstream affine DMAs as affine expressions over SSA
// values, and what convert-affine-dma-to-accel proves with them: equality
// (by simplification, or by evaluation over constant loop ranges), maxima,
// and division. Internal to lib/Conversion/AffineToAccel.
//
//===----------------------------------------------------------------------===//

#ifndef ACCEL_LIB_CONVERSION_AFFINETOACCEL_AFFINEFNS_H
#define ACCEL_LIB_CONVERSION_AFFINETOACCEL_AFFINEFNS_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/AffineExpr.h"
#include "mlir/IR/AffineMap.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/Value.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallVector.h"

#include <optional>
#include <string>

namespace accel::affinedma {

using namespace mlir;

/// Most points evaluated to prove two index functions equal.
constexpr int64_t kMaxEvaluations = 1 << 16;

/// Affine functions of SSA values: one expression per result over dims that
/// are `operands` (no symbols), with the affine.apply ops that produce the
/// operands composed in and constant operands folded.
struct AffineFns {
  SmallVector<AffineExpr> exprs;
  SmallVector<Value> operands;
};

/// The results of `map` applied to `operands` as AffineFns.
AffineFns normalize(AffineMap map, ValueRange values);

/// `expr` (over `from`'s operands) rewritten over `into`'s operands,
/// appending the ones `into` lacks.
AffineExpr remap(AffineExpr expr, ArrayRef<Value> from,
                 SmallVectorImpl<Value> &into);

/// `fns` with loop IV `iv` replaced by `replacement`, an expression of the
/// dim that is `iv` (e.g. `d - 2`) or a constant.
AffineFns substitute(const AffineFns &fns, Value iv,
                     llvm::function_ref<AffineExpr(AffineExpr)> replacement);

/// The constant range of a loop IV.
struct IvRange {
  int64_t lb, ub, step;
};

/// The range of `v` when it is the IV of an affine.for with constant bounds.
std::optional<IvRange> getIvRange(Value v);

/// Evaluates `e` with dim i set to `dims[i]`; nullopt for symbols or a
/// division by a non-positive value.
std::optional<int64_t> evaluate(AffineExpr e, ArrayRef<int64_t> dims);

/// Calls `fn` with the values of `operands` at every point of the ranges
/// of the loop IVs that `e` uses, until `fn` returns false. Returns false
/// when `e` uses an operand that is not such an IV, or the space has more
/// than kMaxEvaluations points.
bool forEachPoint(AffineExpr e, ArrayRef<Value> operands,
                  llvm::function_ref<bool(ArrayRef<int64_t>)> fn);

/// Whether `a` and `b` (over the same operands) are provably equal: their
/// difference simplifies to 0, or is 0 at every point of the loops it
/// depends on.
bool provablyEqual(AffineExpr a, AffineExpr b, ArrayRef<Value> operands);

/// Whether the index functions `a` and `b` are provably the same element.
bool sameElement(const AffineFns &a, const AffineFns &b);

/// The largest value of `e` over the loops it depends on, when it depends
/// only on loop IVs with constant ranges.
std::optional<int64_t> getMax(AffineExpr e, ArrayRef<Value> operands);

/// Whether `e` divides (floordiv, ceildiv, mod): accel's scalar core
/// multiplies and adds only.
bool hasDivision(AffineExpr e);

std::string formatExpr(AffineExpr e);

std::string formatFns(const AffineFns &fns);

/// Rewrites the affine.apply ops of `func` whose results divide (`mod`,
/// `floordiv` of a loop IV: the slot arithmetic of multi-buffering) as
/// values rotated through their loop's iter_args, with `rewriter`; an error
/// at the op when the values do not repeat within 16 iterations or the
/// division cannot be expressed so (SlotRotation.cpp).
LogicalResult rotateModulos(func::FuncOp func, RewriterBase &rewriter);

} // namespace accel::affinedma

#endif // ACCEL_LIB_CONVERSION_AFFINETOACCEL_AFFINEFNS_H
