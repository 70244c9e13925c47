//===- FoldScalars.cpp - scalar and splat constants into linalg bodies ----===//
//
// Passes.td, accel-fold-scalars: a scalar, splat or rank-0 constant read by
// a linalg.generic becomes an arith.constant in its body, and a generic
// that then reads no tensor (a broadcast of constants) is fused into its
// consumers. Both are upstream's patterns (linalg's elementwise-op fusion
// set: FoldScalarOrSplatConstant, FoldFillWithGenericOp, FuseElementwiseOps
// and the removal of unused operands), with fusion restricted to producers
// that read no tensor, so that no computation is duplicated and the
// structure the later steps tile (matmul chains, reductions) is kept, and
// to producers of masks and other tensors no VMEM tile can hold (i1), which
// are computed again in each consumer's body instead.
//
//===----------------------------------------------------------------------===//

#include "accel/Frontend/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace accel {
#define GEN_PASS_DEF_ACCELFOLDSCALARS
#include "accel/Frontend/Passes.h.inc"
} // namespace accel

using namespace mlir;

namespace {

/// Whether `producer` computes its result from constants (and its loop
/// indices) alone: a generic on tensors with no inputs whose body does not
/// read its outputs' values. Fusing it into a consumer recomputes only
/// constants, never loads.
bool readsNoTensor(linalg::GenericOp producer) {
  if (!producer || !producer.hasPureTensorSemantics() ||
      producer.getNumDpsInputs() != 0)
    return false;
  for (OpOperand &init : producer.getDpsInitsMutable())
    if (producer.payloadUsesValueFromOperand(&init))
      return false;
  return true;
}

/// Whether `value`, a result of a generic on tensors, has elements no VMEM
/// tile can hold (a mask of i1 from a comparison, an i8 or index tensor):
/// it cannot go through memory between two ops, so it is computed in its
/// consumers' bodies (elementwise producers only: upstream's fusion checks
/// that). Only that result counts: a producer that also makes an f32 result
/// (upstream's fusion keeps a mask still read elsewhere as a second result
/// of its reader, a select) is not computed again in each reader of that
/// result.
bool hasNoTileType(Value value) {
  auto producer = value.getDefiningOp<linalg::GenericOp>();
  if (!producer || !producer.hasPureTensorSemantics())
    return false;
  Type elem = cast<ShapedType>(value.getType()).getElementType();
  return !elem.isF32() && !elem.isBF16() && !elem.isSignlessInteger(32);
}

/// Whether `op` is a generic on tensors whose loops are all parallel (an
/// elementwise op, a broadcast, a transpose-free copy).
bool isAllParallel(linalg::GenericOp op) {
  return op && op.hasPureTensorSemantics() &&
         op.getNumLoops() == op.getNumParallelLoops();
}

/// Whether `producer` only moves its input (its body yields an input
/// argument: a broadcast or a reshape-like copy). Fusing it recomputes
/// nothing: each consumer reads the input through the composed map.
bool onlyMovesInput(linalg::GenericOp producer) {
  auto yield = cast<linalg::YieldOp>(producer.getBody()->getTerminator());
  return producer.getNumDpsInputs() == 1 && yield.getNumOperands() == 1 &&
         yield.getOperand(0) == producer.getBody()->getArgument(0);
}

/// Whether `producer` is a transpose of leading dimensions: it only moves
/// its input, through a permutation (every dimension kept, none broadcast)
/// that keeps the last dimension (the lanes) last, into an output indexed
/// by the identity (attention's heads split out of the rows or put back).
/// A transpose that moves the lanes is left to the steps that transpose
/// tiles (accel-decompose-linalg, accel-stage-operands).
bool isTranspose(linalg::GenericOp producer) {
  if (!isAllParallel(producer) || !onlyMovesInput(producer) ||
      producer->getNumResults() != 1)
    return false;
  AffineMap in = producer.getIndexingMapsArray()[0],
            out = producer.getIndexingMapsArray()[1];
  unsigned last = in.getNumDims() - 1;
  return in.isPermutation() && !in.isIdentity() && out.isIdentity() &&
         in.getResult(last) == getAffineDimExpr(last, in.getContext());
}

/// Whether the elementwise `producer` of `fused` (an operand of an
/// elementwise consumer) is fused into that consumer: when it reads no
/// tensor or makes a tensor no VMEM tile holds (above), when it only
/// moves its input (a broadcast) and every reader is elementwise, or when
/// the consumer is its only reader (a chain of elementwise ops: the
/// intermediate would otherwise go through HBM, and no work is repeated).
/// Contractions and reductions are not consumers here: their structure is what
/// the later steps tile.
bool fuseIntoConsumer(OpOperand *fused) {
  auto producer = fused->get().getDefiningOp<linalg::GenericOp>();
  if (readsNoTensor(producer) || hasNoTileType(fused->get()))
    return true;
  auto consumer = dyn_cast<linalg::GenericOp>(fused->getOwner());
  // A transpose (a copy through a permutation, attention's heads split out
  // of the rows) is read in place by any generic, contractions included:
  // the reader's map composes with the permutation, and the tiles then
  // read strided rows instead of a transposed copy going through HBM.
  if (isTranspose(producer) && consumer && consumer.hasPureTensorSemantics() &&
      llvm::all_of(producer->getResult(0).getUsers(), [](Operation *user) {
        auto generic = dyn_cast<linalg::GenericOp>(user);
        return generic && generic.hasPureTensorSemantics();
      }))
    return true;
  if (!isAllParallel(producer) || !isAllParallel(consumer) ||
      producer->getNumResults() != 1 ||
      producer.payloadUsesValueFromOperand(producer.getDpsInitOperand(0)))
    return false;
  // Upstream's fusion keeps a result still read elsewhere (or one whose
  // body reads its init, an accumulation) as a second output of the
  // fused op, which nothing after this step converts: a
  // broadcast is fused only when every reader is an elementwise generic,
  // each then fusing it in turn.
  Value result = producer->getResult(0);
  if (result.hasOneUse())
    return true;
  return onlyMovesInput(producer) &&
         llvm::all_of(result.getUsers(), [](Operation *user) {
           return isAllParallel(dyn_cast<linalg::GenericOp>(user));
         });
}

/// A contraction (or any linalg op on tensors) whose only reader is a
/// transpose writes in the transpose's layout instead: `producer` becomes a
/// generic whose output map is the inverse of the transpose's permutation
/// composed with its own, into a tensor of the transpose's shape (filled
/// like its init when its body reads the init, which must then be a fill
/// of an empty tensor); the transpose's result is replaced.
/// Attention's heads put back ((h, s, d) -> (s, h, d) after the per-head
/// P @ V) are then written by the matmuls as strided rows, not copied
/// through HBM. Returns whether it rewrote.
bool writeInTransposedLayout(IRRewriter &rewriter,
                             linalg::GenericOp transpose) {
  if (!isTranspose(transpose))
    return false;
  Value source = transpose.getDpsInputs()[0];
  auto producer = source.getDefiningOp<linalg::LinalgOp>();
  if (!producer || !source.hasOneUse() || producer->getNumResults() != 1 ||
      !producer.hasPureTensorSemantics() ||
      isa<linalg::FillOp, linalg::CopyOp>(producer.getOperation()))
    return false;
  OpOperand *init = producer.getDpsInitOperand(0);
  auto fill = init->get().getDefiningOp<linalg::FillOp>();
  bool readsInit = producer.payloadUsesValueFromOperand(init);
  if (readsInit &&
      (!fill || !fill.getOutputs()[0].getDefiningOp<tensor::EmptyOp>()))
    return false;
  auto type = cast<RankedTensorType>(transpose->getResult(0).getType());
  rewriter.setInsertionPoint(producer);
  Value newInit = tensor::EmptyOp::create(
      rewriter, producer.getLoc(), type.getShape(), type.getElementType());
  if (readsInit)
    newInit = linalg::FillOp::create(rewriter, fill.getLoc(),
                                     fill.getInputs()[0], newInit)
                  .getResult(0);
  rewriter.setInsertionPoint(producer);
  FailureOr<linalg::GenericOp> generic =
      isa<linalg::GenericOp>(producer.getOperation())
          ? FailureOr<linalg::GenericOp>(
                cast<linalg::GenericOp>(producer.getOperation()))
          : linalg::generalizeNamedOp(rewriter, producer);
  if (failed(generic))
    return false;
  SmallVector<AffineMap> maps = generic->getIndexingMapsArray();
  AffineMap permutation = transpose.getIndexingMapsArray()[0];
  maps.back() = inversePermutation(permutation).compose(maps.back());
  auto rewritten = linalg::GenericOp::create(
      rewriter, generic->getLoc(), TypeRange{newInit.getType()},
      generic->getDpsInputs(), ValueRange{newInit}, maps,
      generic->getIteratorTypesArray());
  rewritten.getRegion().takeBody(generic->getRegion());
  rewriter.replaceOp(transpose, rewritten.getResult(0));
  rewriter.eraseOp(*generic);
  return true;
}

/// A generic's input that is a tensor.expand_shape adding unit dimensions
/// (JAX's batchnorm scale: 64 -> 1x1x1x64, read through (d0, 0, 0, d3))
/// is read from the expand's source instead, through a map without the
/// unit dimensions' results, when each of those reads index 0 (a constant
/// 0 or a loop of one iteration). The map is then a projected permutation
/// ((d3)), which the later reshape folds and tiles handle. Returns whether
/// `op` changed.
bool readUnexpanded(linalg::GenericOp op) {
  if (!op.hasPureTensorSemantics())
    return false;
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  bool changed = false;
  for (OpOperand *input : op.getDpsInputOperands()) {
    auto expand = input->get().getDefiningOp<tensor::ExpandShapeOp>();
    if (!expand || !expand.getResultType().hasStaticShape())
      continue;
    ArrayRef<int64_t> shape = expand.getResultType().getShape();
    AffineMap map = op.getMatchingIndexingMap(input);
    auto readsZero = [&](AffineExpr e) {
      if (auto c = dyn_cast<AffineConstantExpr>(e))
        return c.getValue() == 0;
      auto d = dyn_cast<AffineDimExpr>(e);
      return d && ranges[d.getPosition()] == 1;
    };
    // Per group of the reassociation: the one dimension that is not a
    // unit one gives the source dimension's index (a group of unit
    // dimensions: any of them, all reading 0).
    SmallVector<AffineExpr> results;
    bool ok = true;
    for (ReassociationIndices group : expand.getReassociationIndices()) {
      std::optional<int64_t> kept;
      for (int64_t d : group) {
        if (shape[d] != 1) {
          if (kept)
            ok = false;
          kept = d;
        } else if (!readsZero(map.getResult(d))) {
          ok = false;
        }
      }
      results.push_back(map.getResult(kept.value_or(group.front())));
    }
    if (!ok)
      continue;
    SmallVector<AffineMap> maps = op.getIndexingMapsArray();
    maps[input->getOperandNumber()] =
        AffineMap::get(map.getNumDims(), 0, results, op.getContext());
    op->setOperand(input->getOperandNumber(), expand.getSrc());
    op.setIndexingMapsAttr(
        ArrayAttr::get(op.getContext(),
                       llvm::map_to_vector(maps, [](AffineMap m) -> Attribute {
                         return AffineMapAttr::get(m);
                       })));
    changed = true;
  }
  return changed;
}

struct AccelFoldScalarsPass
    : accel::impl::AccelFoldScalarsBase<AccelFoldScalarsPass> {
  using Base::Base;

  void runOnOperation() override {
    MLIRContext *context = &getContext();
    IRRewriter rewriter(context);
    // A batch matmul reading a transpose becomes a generic, which can then
    // read it in place (fuseIntoConsumer).
    SmallVector<linalg::BatchMatmulOp> readers;
    getOperation().walk([&](linalg::BatchMatmulOp op) {
      if (op.hasPureTensorSemantics() &&
          llvm::any_of(op.getDpsInputs(), [](Value v) {
            return isTranspose(v.getDefiningOp<linalg::GenericOp>());
          }))
        readers.push_back(op);
    });
    for (linalg::BatchMatmulOp op : readers) {
      rewriter.setInsertionPoint(op);
      if (succeeded(linalg::generalizeNamedOp(rewriter, op)))
        continue;
    }
    getOperation().walk([](linalg::GenericOp op) { (void)readUnexpanded(op); });
    SmallVector<linalg::GenericOp> transposes;
    getOperation().walk([&](linalg::GenericOp op) {
      if (isTranspose(op))
        transposes.push_back(op);
    });
    for (linalg::GenericOp op : transposes)
      (void)writeInTransposedLayout(rewriter, op);

    RewritePatternSet patterns(context);
    linalg::populateElementwiseOpsFusionPatterns(patterns, fuseIntoConsumer);
    // tensor.extract of a constant (what upstream leaves of a rank-0
    // constant read in a body) folds to the scalar.
    tensor::ExtractOp::getCanonicalizationPatterns(patterns, context);
    linalg::GenericOp::getCanonicalizationPatterns(patterns, context);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};

} // namespace
