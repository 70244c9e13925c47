//===- DecomposeLinalg.cpp - aggregate linalg ops into their parts --------===//
//
// Passes.td, accel-decompose-linalg: ops with upstream's
// AggregatedOpInterface (linalg.softmax) become the ops they are made of.
//
//===----------------------------------------------------------------------===//

#include "accel/Conversion/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"

namespace accel {
#define GEN_PASS_DEF_ACCELDECOMPOSELINALG
#include "accel/Conversion/Passes.h.inc"
} // namespace accel

using namespace mlir;

namespace {

/// Whether `use` is the init of a linalg op that reduces into it with
/// `arith.maxnumf` (the yielded value is maxnumf of the init's value).
bool isMaxNumInit(OpOperand &use) {
  auto op = dyn_cast<linalg::LinalgOp>(use.getOwner());
  if (!op || !op.isDpsInit(&use) || op.getNumReductionLoops() == 0)
    return false;
  OpResult result = op.getTiedOpResult(&use);
  Block *body = op.getBlock();
  Value yielded = body->getTerminator()->getOperand(result.getResultNumber());
  auto max = yielded.getDefiningOp<arith::MaxNumFOp>();
  return max && llvm::is_contained(max->getOperands(),
                                   op.getMatchingBlockArgument(&use));
}

/// A fill with NaN that only starts maxnumf reductions (upstream's softmax
/// decomposition writes one: NaN is maxnumf's identity) fills -inf, the
/// identity accel's VPU max reduction has; the two differ only on rows
/// that are all NaN.
void useNegInfForMaxNum(func::FuncOp func) {
  func.walk([&](linalg::FillOp fill) {
    APFloat value(0.0f);
    auto type = dyn_cast<FloatType>(fill.value().getType());
    if (!matchPattern(fill.value(), m_ConstantFloat(&value)) ||
        !value.isNaN() || !type || fill->getNumResults() != 1 ||
        !llvm::all_of(fill->getResult(0).getUses(), isMaxNumInit))
      return;
    OpBuilder b(fill);
    Value negInf = arith::ConstantOp::create(
        b, fill.getLoc(),
        b.getFloatAttr(type, APFloat::getInf(type.getFloatSemantics(),
                                             /*Negative=*/true)));
    fill->setOperand(0, negInf);
  });
}

/// Why upstream's decomposeOperation cannot take `op`, or "". Softmax's
/// decomposition builds a floating-point identity (-inf or NaN for the max
/// reduction) of the element type and tensor.empty results: on integer,
/// index, complex or vector elements it crashes, and on buffers it has no
/// result to give.
std::string getDecompositionProblem(linalg::AggregatedOpInterface op) {
  std::string text;
  llvm::raw_string_ostream os(text);
  auto dps = dyn_cast<DestinationStyleOpInterface>(op.getOperation());
  if (!dps || !dps.hasPureTensorSemantics()) {
    os << "'" << op->getName()
       << "' on buffers: only its form on tensors is decomposed (write it on "
          "tensors, before bufferization)";
    return text;
  }
  for (Value v : op->getOperands()) {
    auto shaped = dyn_cast<ShapedType>(v.getType());
    if (!shaped) {
      os << "'" << op->getName() << "' on " << v.getType()
         << ": only ranked tensor operands are supported";
      return text;
    }
    Type elem = shaped.getElementType();
    if (isa<linalg::SoftmaxOp>(op) && !isa<FloatType>(elem)) {
      os << "'" << op->getName() << "' on " << elem
         << " elements: only floating-point softmax is supported";
      return text;
    }
  }
  return text;
}

/// A 1x1 convolution (`linalg.conv_2d_nhwc_hwcf` with a 1 x 1 kernel,
/// strides and dilations 1, static shapes, on tensors) is a matmul of the
/// pixels by the filter: (N*H*W) x C times C x F, with the input, the
/// filter and the init collapsed (tensor.collapse_shape) and the result
/// expanded back. Returns whether `conv` was rewritten.
bool rewriteConv1x1AsMatmul(IRRewriter &rewriter,
                            linalg::Conv2DNhwcHwcfOp conv) {
  if (!conv.hasPureTensorSemantics())
    return false;
  auto input = dyn_cast<RankedTensorType>(conv.getInputs()[0].getType());
  auto filter = dyn_cast<RankedTensorType>(conv.getInputs()[1].getType());
  auto init = dyn_cast<RankedTensorType>(conv.getOutputs()[0].getType());
  if (!input || !filter || !init || !input.hasStaticShape() ||
      !filter.hasStaticShape() || !init.hasStaticShape() ||
      filter.getDimSize(0) != 1 || filter.getDimSize(1) != 1 ||
      input.getShape().take_front(3) != init.getShape().take_front(3))
    return false;
  auto allOnes = [](DenseIntElementsAttr attr) {
    return !attr || llvm::all_of(attr.getValues<APInt>(),
                                 [](const APInt &v) { return v == 1; });
  };
  if (!allOnes(conv.getStrides()) || !allOnes(conv.getDilations()))
    return false;
  Location loc = conv.getLoc();
  rewriter.setInsertionPoint(conv);
  SmallVector<ReassociationIndices> pixels = {{0, 1, 2}, {3}};
  SmallVector<ReassociationIndices> taps = {{0, 1, 2}, {3}};
  Value a = tensor::CollapseShapeOp::create(rewriter, loc, conv.getInputs()[0],
                                            pixels);
  Value b =
      tensor::CollapseShapeOp::create(rewriter, loc, conv.getInputs()[1], taps);
  Value c = tensor::CollapseShapeOp::create(rewriter, loc, conv.getOutputs()[0],
                                            pixels);
  Value product =
      linalg::MatmulOp::create(rewriter, loc, ValueRange{a, b}, ValueRange{c})
          .getResult(0);
  Value result =
      tensor::ExpandShapeOp::create(rewriter, loc, init, product, pixels);
  rewriter.replaceOp(conv, result);
  return true;
}

struct AccelDecomposeLinalgPass
    : accel::impl::AccelDecomposeLinalgBase<AccelDecomposeLinalgPass> {
  void runOnOperation() override {
    IRRewriter rewriter(&getContext());
    SmallVector<linalg::Conv2DNhwcHwcfOp> convs;
    getOperation().walk(
        [&](linalg::Conv2DNhwcHwcfOp c) { convs.push_back(c); });
    for (linalg::Conv2DNhwcHwcfOp conv : convs)
      (void)rewriteConv1x1AsMatmul(rewriter, conv);
    // Decompositions may build further aggregates: until none is left.
    while (true) {
      SmallVector<linalg::AggregatedOpInterface> ops;
      getOperation().walk(
          [&](linalg::AggregatedOpInterface op) { ops.push_back(op); });
      if (ops.empty())
        return useNegInfForMaxNum(getOperation());
      for (linalg::AggregatedOpInterface op : ops) {
        // Upstream's decomposition sees only what it supports.
        if (std::string problem = getDecompositionProblem(op);
            !problem.empty()) {
          op->emitError() << problem;
          return signalPassFailure();
        }
        rewriter.setInsertionPoint(op);
        FailureOr<SmallVector<Value>> parts =
            op.decomposeOperation(rewriter);
        if (failed(parts) || parts->size() != op->getNumResults()) {
          op->emitError() << "cannot decompose '" << op->getName()
                          << "' into linalg ops accel can convert";
          return signalPassFailure();
        }
        rewriter.replaceOp(op, *parts);
      }
    }
  }
};
} // namespace
