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

struct AccelFoldScalarsPass
    : accel::impl::AccelFoldScalarsBase<AccelFoldScalarsPass> {
  using Base::Base;

  void runOnOperation() override {
    MLIRContext *context = &getContext();
    RewritePatternSet patterns(context);
    linalg::populateElementwiseOpsFusionPatterns(
        patterns, [](OpOperand *fused) {
          auto producer = fused->get().getDefiningOp<linalg::GenericOp>();
          return readsNoTensor(producer) || hasNoTileType(producer);
        });
    // tensor.extract of a constant (what upstream leaves of a rank-0
    // constant read in a body) folds to the scalar.
    tensor::ExtractOp::getCanonicalizationPatterns(patterns, context);
    linalg::GenericOp::getCanonicalizationPatterns(patterns, context);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};

} // namespace
