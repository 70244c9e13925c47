//===- GatherReads.cpp - Reads no tile DMA makes, as gathers --------------===//
//
// Gathers.h: accel-lower-gathers first turns the reads the tile pipeline
// cannot make with DMAs of subviews (a reversal, a lane stride, a `mod` in
// an indexing map; a slice with a lane stride) into tensor.extract reads
// in a generic's body, which it then lowers as gathers.
//
//===----------------------------------------------------------------------===//

#include "Gathers.h"

#include "mlir/Dialect/Utils/StaticValueUtils.h"

using namespace mlir;
using namespace accel;
using namespace accel::gathers;

/// `expr` as coefficients of the loop indices and a constant (the last
/// entry), or nullopt when it is not linear (mod, floordiv, ceildiv).
static std::optional<SmallVector<int64_t>> getLinearForm(AffineExpr expr,
                                                         unsigned numDims) {
  SmallVector<int64_t> form(numDims + 1, 0);
  if (auto dim = dyn_cast<AffineDimExpr>(expr)) {
    form[dim.getPosition()] = 1;
    return form;
  }
  if (auto constant = dyn_cast<AffineConstantExpr>(expr)) {
    form.back() = constant.getValue();
    return form;
  }
  auto bin = dyn_cast<AffineBinaryOpExpr>(expr);
  if (!bin)
    return std::nullopt;
  std::optional<SmallVector<int64_t>> lhs =
      getLinearForm(bin.getLHS(), numDims);
  std::optional<SmallVector<int64_t>> rhs =
      getLinearForm(bin.getRHS(), numDims);
  if (!lhs || !rhs)
    return std::nullopt;
  if (expr.getKind() == AffineExprKind::Add) {
    for (unsigned k = 0; k <= numDims; ++k)
      form[k] = (*lhs)[k] + (*rhs)[k];
    return form;
  }
  auto factor = dyn_cast<AffineConstantExpr>(bin.getRHS());
  if (expr.getKind() != AffineExprKind::Mul || !factor)
    return std::nullopt;
  for (unsigned k = 0; k <= numDims; ++k)
    form[k] = (*lhs)[k] * factor.getValue();
  return form;
}

/// Whether the tile pipeline reads an operand through `expr` (a result of
/// its indexing map over `numDims` loops) as a subview: linear with
/// non-negative coefficients, and for the last (lane) dimension with a
/// loop of coefficient 1 among them (a DMA moves rows of unit innermost
/// stride) or none. A reversal (`127 - d1`), a lane stride (`2 * d1`), a
/// `mod` are not.
static bool isTileable(AffineExpr expr, unsigned numDims, bool lane) {
  std::optional<SmallVector<int64_t>> form = getLinearForm(expr, numDims);
  if (!form)
    return false;
  ArrayRef<int64_t> coefficients = ArrayRef<int64_t>(*form).drop_back();
  if (llvm::any_of(coefficients, [](int64_t c) { return c < 0; }))
    return false;
  return !lane || llvm::is_contained(coefficients, 1) ||
         llvm::all_of(coefficients, [](int64_t c) { return c == 0; });
}

/// `op` with each float input whose indexing map the tile pipeline cannot
/// read (a reversal `127 - d1`, a lane stride `2 * d1`, a `mod`) read by a
/// tensor.extract in the body at the map's indices instead, which the
/// gather lowering then makes DMAs of; `op` itself when there is none.
linalg::GenericOp gathers::readAsExtracts(IRRewriter &rewriter,
                                          linalg::GenericOp op) {
  SmallVector<unsigned> moved;
  for (OpOperand *in : op.getDpsInputOperands()) {
    AffineMap map = op.getMatchingIndexingMap(in);
    if (!isa<FloatType>(getElementTypeOrSelf(in->get().getType())) ||
        map.getNumResults() == 0)
      continue;
    bool tileable = true;
    for (auto [i, expr] : llvm::enumerate(map.getResults()))
      tileable &=
          isTileable(expr, map.getNumDims(), i + 1 == map.getNumResults());
    if (!tileable)
      moved.push_back(in->getOperandNumber());
  }
  if (moved.empty())
    return op;
  Location loc = op.getLoc();
  Block *body = op.getBody();
  rewriter.setInsertionPointToStart(body);
  SmallVector<Value> loops;
  for (unsigned l = 0; l < op.getNumLoops(); ++l)
    loops.push_back(linalg::IndexOp::create(rewriter, loc, l));
  for (unsigned number : moved) {
    OpOperand &in = op->getOpOperand(number);
    AffineMap map = op.getMatchingIndexingMap(&in);
    SmallVector<Value> indices;
    for (AffineExpr expr : map.getResults()) {
      if (auto dim = dyn_cast<AffineDimExpr>(expr))
        indices.push_back(loops[dim.getPosition()]);
      else
        indices.push_back(applyExpr(rewriter, loc, expr, loops));
    }
    Value read = tensor::ExtractOp::create(rewriter, loc, in.get(), indices);
    rewriter.replaceAllUsesWith(body->getArgument(number), read);
  }
  // The same op without those inputs.
  SmallVector<Value> inputs;
  SmallVector<AffineMap> maps;
  for (OpOperand *in : op.getDpsInputOperands())
    if (!llvm::is_contained(moved, in->getOperandNumber())) {
      inputs.push_back(in->get());
      maps.push_back(op.getMatchingIndexingMap(in));
    }
  for (OpOperand &out : op.getDpsInitsMutable())
    maps.push_back(op.getMatchingIndexingMap(&out));
  rewriter.setInsertionPoint(op);
  auto rebuilt = linalg::GenericOp::create(rewriter, loc, op.getResultTypes(),
                                           inputs, op.getDpsInits(), maps,
                                           op.getIteratorTypesArray());
  rewriter.inlineRegionBefore(op.getRegion(), rebuilt.getRegion(),
                              rebuilt.getRegion().end());
  for (unsigned number : llvm::reverse(moved))
    rebuilt.getBody()->eraseArgument(number);
  rewriter.replaceOp(op, rebuilt.getResults());
  return rebuilt;
}

/// A tensor.extract_slice whose innermost stride is not 1 (`x[:, ::2]`),
/// which no DMA moves, as a generic reading the source through the
/// slice's map (offset + stride * index per dimension), which the gather
/// lowering handles. Rank-reducing and dynamic slices are left as they
/// are.
void gathers::rewriteLaneStridedSlice(IRRewriter &rewriter,
                                      tensor::ExtractSliceOp slice) {
  RankedTensorType type = slice.getType();
  if (slice.getSourceType().getRank() != type.getRank() ||
      !type.hasStaticShape() || !isa<FloatType>(type.getElementType()))
    return;
  std::optional<int64_t> lane =
      getConstantIntValue(slice.getMixedStrides().back());
  if (lane && *lane == 1)
    return;
  MLIRContext *ctx = rewriter.getContext();
  SmallVector<AffineExpr> exprs;
  for (auto [d, offsetAndStride] : llvm::enumerate(
           llvm::zip(slice.getMixedOffsets(), slice.getMixedStrides()))) {
    auto [offsetOfr, strideOfr] = offsetAndStride;
    std::optional<int64_t> offset = getConstantIntValue(offsetOfr);
    std::optional<int64_t> stride = getConstantIntValue(strideOfr);
    if (!offset || !stride)
      return;
    exprs.push_back(getAffineDimExpr(d, ctx) * *stride + *offset);
  }
  unsigned rank = type.getRank();
  rewriter.setInsertionPoint(slice);
  Value init = tensor::EmptyOp::create(rewriter, slice.getLoc(),
                                       type.getShape(), type.getElementType());
  SmallVector<AffineMap> maps = {AffineMap::get(rank, 0, exprs, ctx),
                                 AffineMap::getMultiDimIdentityMap(rank, ctx)};
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  auto copy = linalg::GenericOp::create(
      rewriter, slice.getLoc(), TypeRange{type}, ValueRange{slice.getSource()},
      ValueRange{init}, maps, iterators,
      [](OpBuilder &b, Location loc, ValueRange args) {
        linalg::YieldOp::create(b, loc, args[0]);
      });
  rewriter.replaceOp(slice, copy.getResults());
}
