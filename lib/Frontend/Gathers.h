//===- Gathers.h - accel-lower-gathers' scalar code and reads ---*- C++ -*-===//
//
// The parts of accel-lower-gathers (LowerGathers.cpp) that stand alone: the
// scalar code that computes a linalg body's values at given loop indices
// (Scalarizer, GatherScalarizer.cpp), the rewrites that turn reads no DMA
// of a tile makes into gathers (GatherReads.cpp), and the loop nest that
// fills a tensor for each gathered read and mask (GatherNest.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef ACCEL_LIB_FRONTEND_GATHERS_H
#define ACCEL_LIB_FRONTEND_GATHERS_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"

#include <string>

namespace accel::gathers {

/// `expr` (over `loops.size()` loop indices) as an affine.apply of the
/// loop values it uses only; null when one of them is null.
mlir::Value applyExpr(mlir::OpBuilder &b, mlir::Location loc,
                      mlir::AffineExpr expr, llvm::ArrayRef<mlir::Value> loops);

/// Builds scalar code that computes values of linalg bodies at given loop
/// indices: block arguments become reads of their operands, and reads of
/// tensors that elementwise generics (or fills, or splat constants) compute
/// are computed again from those generics' inputs, down to the i32 data
/// the scalar core loads (tensor.extract of a function argument or a
/// constant).
class Scalarizer {
public:
  Scalarizer(mlir::OpBuilder &b, mlir::Location loc) : b(b), loc(loc) {}

  /// The value `v` of `op`'s body when its loops have the values `loops`
  /// (index values; null for a loop the value does not depend on). Fails
  /// with `reason` set when the value cannot be computed by scalar code.
  mlir::FailureOr<mlir::Value> eval(mlir::linalg::GenericOp op,
                                    llvm::ArrayRef<mlir::Value> loops,
                                    mlir::Value v, mlir::IRMapping &map);

  /// The element `t[indices]` as scalar code.
  mlir::FailureOr<mlir::Value> extract(mlir::Value t,
                                       llvm::ArrayRef<mlir::Value> indices);

  /// Loop values for `map`'s results (indices of an operand).
  mlir::FailureOr<llvm::SmallVector<mlir::Value>>
  apply(mlir::AffineMap map, llvm::ArrayRef<mlir::Value> loops);

  /// The first reason a value could not be computed.
  std::string reason;

private:
  /// eval without the cache.
  mlir::FailureOr<mlir::Value> evalUncached(mlir::linalg::GenericOp op,
                                            llvm::ArrayRef<mlir::Value> loops,
                                            mlir::Value v,
                                            mlir::IRMapping &map);

  /// Records `why` as the reason (unless one is recorded) and fails.
  mlir::FailureOr<mlir::Value> fail(const std::string &why);

  /// `t` printed in quotes.
  static std::string typeString(mlir::Type t);

  mlir::OpBuilder &b;
  mlir::Location loc;
};

/// `v` (shape [1, ..., 1, w]) reshaped to rank `rank` ([1, ..., 1, w]) by
/// folding or adding leading unit dimensions.
mlir::Value withRank(mlir::OpBuilder &b, mlir::Location loc, mlir::Value v,
                     unsigned rank);

/// `op` with each float input whose indexing map the tile pipeline cannot
/// read (a reversal `127 - d1`, a lane stride `2 * d1`, a `mod`) read by a
/// tensor.extract in the body at the map's indices instead, which the
/// gather lowering then makes DMAs of; `op` itself when there is none.
mlir::linalg::GenericOp readAsExtracts(mlir::IRRewriter &rewriter,
                                       mlir::linalg::GenericOp op);

/// A tensor.extract_slice whose innermost stride is not 1 (`x[:, ::2]`),
/// which no DMA moves, as a generic reading the source through the
/// slice's map (offset + stride * index per dimension), which the gather
/// lowering handles. Rank-reducing and dynamic slices are left as they
/// are.
void rewriteLaneStridedSlice(mlir::IRRewriter &rewriter,
                             mlir::tensor::ExtractSliceOp slice);

//===----------------------------------------------------------------------===//
// The loop nest (GatherNest.cpp)
//===----------------------------------------------------------------------===//

/// One tensor the loop nest makes for the generic: the elements a gathered
/// read returns, or a mask as 0.0/1.0.
struct Materialized {
  /// The tensor.extract (a gather) or the i1 value (a mask).
  mlir::Value value;
  /// Whether one DMA moves a row along the generic's last loop (else one
  /// element per DMA, inside a loop over the last dimension).
  bool row;
  bool isGather() const {
    return llvm::isa_and_nonnull<mlir::tensor::ExtractOp>(
        value.getDefiningOp());
  }
};

/// The type of the tensor that holds `item` for `op` (of static loop
/// ranges): the loop ranges (but the last for a mask read by rows), of the
/// gathered element type or f32 for a mask.
mlir::RankedTensorType getItemType(mlir::linalg::GenericOp op,
                                   const Materialized &item);

/// The empty tensors the nest fills, one per item of `items`, built at
/// `loc`: with `inVmem`, 2-D buffers (a tile's rank) in memory space
/// `vmemSpace` that the generic views at the items' own ranks; else
/// tensors of those ranks (in HBM).
llvm::SmallVector<mlir::Value> createInits(mlir::IRRewriter &rewriter,
                                           mlir::Location loc,
                                           mlir::linalg::GenericOp op,
                                           llvm::ArrayRef<Materialized> items,
                                           bool inVmem, unsigned vmemSpace);

/// The loop nest of one generic's gathers (accel-lower-gathers): loops
/// over all the generic's loops but the last, in which each item is
/// written a row at a time (a DMA along the last loop), and an innermost
/// loop over the last dimension for the items written one element at a
/// time. Writes that cannot be built set `failed` (and the reason,
/// `scalar.reason`) and leave their tensor as it was.
class GatherNest {
public:
  /// The nest of `items` of `op` (of static loop ranges `ranges`), built
  /// with `rewriter`; `table01` is the tensor [0.0, 1.0], whose elements
  /// the masks' DMAs copy.
  GatherNest(mlir::IRRewriter &rewriter, mlir::linalg::GenericOp op,
             llvm::ArrayRef<Materialized> items, llvm::ArrayRef<int64_t> ranges,
             mlir::Value table01)
      : scalar(rewriter, op.getLoc()), rewriter(rewriter), op(op), items(items),
        ranges(ranges), loc(op.getLoc()), table01(table01) {}

  /// Builds the nest at the rewriter's insertion point, its iter_args
  /// starting at `inits` (one per item); returns it.
  mlir::scf::LoopNest build(mlir::ValueRange inits);

  /// The nest's outermost loop (the innermost loop when the generic has
  /// one loop; null when it has no loop over the last dimension either).
  mlir::Operation *outermost(mlir::scf::LoopNest &nest) {
    return nest.loops.empty() ? innermost.getOperation()
                              : nest.loops.front().getOperation();
  }

  /// Whether a write failed.
  bool failed = false;
  /// Computes the indices and the masks; holds the reason of a failure.
  Scalarizer scalar;

private:
  /// The offsets, sizes and strides of a slice, and the rank they have.
  struct SliceParams {
    llvm::SmallVector<mlir::OpFoldResult> offsets, sizes, strides;
    unsigned rank = 0;
  };

  /// The body of the loops but the last, at the loop values `ivs` with
  /// iter_args `args`: each row item written, then the innermost loop that
  /// writes the others.
  mlir::scf::ValueVector buildBody(mlir::OpBuilder &b, mlir::ValueRange ivs,
                                   mlir::ValueRange args);

  /// Writes item `i` at `loops` into `into` (its tensor so far): a row of
  /// the gathered tensor, or one element (of the gather, or 0.0/1.0 for a
  /// mask). `map` caches the scalar values computed at these loops. Returns
  /// the new tensor (`into` when the write failed).
  mlir::Value write(mlir::OpBuilder &b, unsigned i,
                    llvm::ArrayRef<mlir::Value> loops, mlir::IRMapping &map,
                    mlir::Value into);

  /// Where item `item` at `loops` goes in a tensor of type `intoType`: a
  /// row or an element of the item's tensor, at the leading offsets
  /// linearized into a row of a flat (2-D) VMEM buffer.
  SliceParams getDestination(mlir::OpBuilder &b, const Materialized &item,
                             llvm::ArrayRef<mlir::Value> loops,
                             mlir::RankedTensorType intoType);

  /// The slice of the gathered tensor that `read` reads at `loops` (a row
  /// along the last loop, or one element); null on failure.
  mlir::Value extractGathered(mlir::OpBuilder &b, const Materialized &item,
                              mlir::tensor::ExtractOp read,
                              llvm::ArrayRef<mlir::Value> loops,
                              mlir::IRMapping &map);

  /// The 0.0 or 1.0 of the mask `item` at `loops`, a slice of `table01`;
  /// null on failure.
  mlir::Value extractMask(mlir::OpBuilder &b, const Materialized &item,
                          llvm::ArrayRef<mlir::Value> loops,
                          mlir::IRMapping &map);

  mlir::IRRewriter &rewriter;
  mlir::linalg::GenericOp op;
  llvm::ArrayRef<Materialized> items;
  llvm::ArrayRef<int64_t> ranges;
  mlir::Location loc;
  /// The tensor [0.0, 1.0]: a mask element becomes the DMA of one of the
  /// two.
  mlir::Value table01;
  /// The loop over the last dimension, when there is one.
  mlir::scf::ForOp innermost;
};

} // namespace accel::gathers

#endif // ACCEL_LIB_FRONTEND_GATHERS_H
