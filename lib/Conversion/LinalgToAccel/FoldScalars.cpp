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

#include "accel/Conversion/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace accel {
#define GEN_PASS_DEF_ACCELFOLDSCALARS
#include "accel/Conversion/Passes.h.inc"
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

/// Whether `producer` makes a tensor whose elements no VMEM tile can hold
/// (a mask of i1 from a comparison, an i8 or index tensor): it cannot go
/// through memory between two ops, so it is computed in its consumers'
/// bodies (elementwise producers only: upstream's fusion checks that).
bool hasNoTileType(linalg::GenericOp producer) {
  if (!producer || !producer.hasPureTensorSemantics())
    return false;
  return llvm::any_of(producer->getResultTypes(), [](Type t) {
    Type elem = cast<ShapedType>(t).getElementType();
    return !elem.isF32() && !elem.isBF16() && !elem.isSignlessInteger(32);
  });
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
  if (readsNoTensor(producer) || hasNoTileType(producer))
    return true;
  auto consumer = dyn_cast<linalg::GenericOp>(fused->getOwner());
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

struct AccelFoldScalarsPass
    : accel::impl::AccelFoldScalarsBase<AccelFoldScalarsPass> {
  using Base::Base;

  void runOnOperation() override {
    MLIRContext *context = &getContext();
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
