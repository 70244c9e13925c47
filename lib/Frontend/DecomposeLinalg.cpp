//===- DecomposeLinalg.cpp - aggregate linalg ops into their parts --------===//
//
// Passes.td, accel-decompose-linalg: ops with upstream's
// AggregatedOpInterface (linalg.softmax) become the ops they are made of.
//
//===----------------------------------------------------------------------===//

#include "Windows.h"
#include "accel/Dialect/Accel/TileShape.h"
#include "accel/Frontend/Passes.h"
#include "accel/Support/PassOptions.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"

#include <array>
#include <optional>

namespace accel {
#define GEN_PASS_DEF_ACCELDECOMPOSELINALG
#include "accel/Frontend/Passes.h.inc"
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
  auto types = accel::getStaticConvTypes(conv);
  if (!types)
    return false;
  auto [input, filter, init] = *types;
  if (filter.getDimSize(0) != 1 || filter.getDimSize(1) != 1 ||
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

/// A contraction with a vector operand as a matmul on the MXU
/// (`linalg.matvec`: A (M x K) times x (K) is A times x as K x 1;
/// `linalg.vecmat`: x (K) as 1 x K times A (K x N); `linalg.dot`: x as
/// 1 x K times y as K x 1 into a 1 x 1 result, rank 0 again after), the
/// vectors and the init reshaped (tensor.expand_shape) and the result
/// collapsed back. On float tensors of static shapes; returns whether `op`
/// was rewritten.
bool rewriteVectorContractionAsMatmul(IRRewriter &rewriter,
                                      linalg::LinalgOp op) {
  if (!op.hasPureTensorSemantics() || op->getNumResults() != 1)
    return false;
  for (Value v : op->getOperands()) {
    auto t = dyn_cast<RankedTensorType>(v.getType());
    if (!t || !t.hasStaticShape() || !isa<FloatType>(t.getElementType()))
      return false;
  }
  Location loc = op.getLoc();
  rewriter.setInsertionPoint(op);
  Value a = op.getDpsInputs()[0], b = op.getDpsInputs()[1];
  Value init = op.getDpsInits()[0];
  auto vecType = [](Value v, bool column) {
    auto t = cast<RankedTensorType>(v.getType());
    int64_t n = t.getRank() ? t.getDimSize(0) : 1;
    return RankedTensorType::get(column ? ArrayRef<int64_t>{n, 1}
                                        : ArrayRef<int64_t>{1, n},
                                 t.getElementType());
  };
  // A vector as a column (K x 1) or a row (1 x K); a rank-0 init as 1 x 1.
  auto expand = [&](Value v, bool column) -> Value {
    auto t = cast<RankedTensorType>(v.getType());
    SmallVector<ReassociationIndices> groups;
    if (t.getRank())
      groups.push_back({0, 1});
    return tensor::ExpandShapeOp::create(rewriter, loc, vecType(v, column), v,
                                         groups);
  };
  Value lhs, rhs, acc;
  if (isa<linalg::MatvecOp>(op)) {
    lhs = a, rhs = expand(b, true), acc = expand(init, true);
  } else if (isa<linalg::VecmatOp>(op)) {
    lhs = expand(a, false), rhs = b, acc = expand(init, false);
  } else if (isa<linalg::DotOp>(op)) {
    lhs = expand(a, false), rhs = expand(b, true), acc = expand(init, true);
  } else {
    return false;
  }
  Value product = linalg::MatmulOp::create(rewriter, loc, ValueRange{lhs, rhs},
                                           ValueRange{acc})
                      .getResult(0);
  auto initType = cast<RankedTensorType>(init.getType());
  SmallVector<ReassociationIndices> groups;
  if (initType.getRank())
    groups.push_back({0, 1});
  rewriter.replaceOp(op, tensor::CollapseShapeOp::create(
                             rewriter, loc, initType, product, groups));
  return true;
}

/// `v` (a static tensor) permuted: result dimension i is `v`'s dimension
/// `perm[i]` (a linalg.transpose).
Value transposed(OpBuilder &b, Location loc, Value v, ArrayRef<int64_t> perm) {
  auto type = cast<RankedTensorType>(v.getType());
  SmallVector<int64_t> shape;
  for (int64_t p : perm)
    shape.push_back(type.getDimSize(p));
  Value init = tensor::EmptyOp::create(b, loc, shape, type.getElementType());
  return linalg::TransposeOp::create(b, loc, v, init, perm).getResult()[0];
}

/// A convolution or pooling window on NCHW (torch-mlir's form:
/// `linalg.conv_2d_nchw_fchw`, `linalg.pooling_nchw_max` / `_sum`) as the
/// NHWC op between transposes: the input and init to NHWC, the filter (FCHW)
/// to HWCF, the result back to NCHW. The NHWC op is then decomposed like any
/// other (a sum of shifted matmuls, shifted maxima or sums), and each
/// transpose runs as 2-D transposes (rewriteLaneTranspose). On static float
/// tensors; returns the NHWC op, or null when `op` was left as it is.
template <typename NhwcOp, typename NchwOp>
Operation *rewriteNchwAsNhwc(IRRewriter &rewriter, NchwOp op,
                             bool filterIsFchw) {
  auto types = accel::getStaticConvTypes(op);
  if (!types || !llvm::all_of(op->getOperandTypes(), [](Type t) {
        return isa<FloatType>(getElementTypeOrSelf(t));
      }))
    return nullptr;
  Location loc = op.getLoc();
  rewriter.setInsertionPoint(op);
  const SmallVector<int64_t> toNhwc = {0, 2, 3, 1}, toNchw = {0, 3, 1, 2},
                             toHwcf = {2, 3, 1, 0};
  Value input = transposed(rewriter, loc, op.getInputs()[0], toNhwc);
  // A pooling window is only a shape: [KH, KW] either way.
  Value filter = filterIsFchw
                     ? transposed(rewriter, loc, op.getInputs()[1], toHwcf)
                     : op.getInputs()[1];
  Value init = transposed(rewriter, loc, op.getOutputs()[0], toNhwc);
  auto nhwc = NhwcOp::create(rewriter, loc, TypeRange{init.getType()},
                             ValueRange{input, filter}, ValueRange{init},
                             op.getStridesAttr(), op.getDilationsAttr());
  rewriter.replaceOp(op, transposed(rewriter, loc, nhwc.getResult(0), toNchw));
  return nhwc;
}

/// A transpose of rank 3 or more that moves the lane (last) dimension
/// (NCHW to NHWC, torch's permute) as 2-D transposes in a loop nest: for
/// every index of the dimensions other than the input's last and the one
/// that becomes the output's last, the [A x L] slice of the input (rows
/// strided, lanes contiguous: one DMA) is transposed on the VPU to the
/// output's [L x A] slice. No other shape is staged: a tile has rank 2.
/// On static tensors; returns whether `op` was rewritten.
bool rewriteLaneTranspose(IRRewriter &rewriter, linalg::TransposeOp op) {
  if (!op.hasPureTensorSemantics())
    return false;
  auto inType = dyn_cast<RankedTensorType>(op.getInput().getType());
  auto outType = dyn_cast<RankedTensorType>(op.getInit().getType());
  ArrayRef<int64_t> perm = op.getPermutation();
  int64_t rank = perm.size();
  if (!inType || !outType || !inType.hasStaticShape() || rank < 3 ||
      perm.back() == rank - 1)
    return false;
  int64_t a = perm.back(); // the input dimension that becomes the lanes
  int64_t b = llvm::find(perm, rank - 1) - perm.begin(); // where lanes go
  Location loc = op.getLoc();
  rewriter.setInsertionPoint(op);
  auto index = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(rewriter, loc, v);
  };
  // Loops over the input dimensions other than a and the last.
  SmallVector<int64_t> looped;
  SmallVector<Value> lbs, ubs, steps;
  for (int64_t d = 0; d < rank - 1; ++d)
    if (d != a) {
      looped.push_back(d);
      lbs.push_back(index(0));
      ubs.push_back(index(inType.getDimSize(d)));
      steps.push_back(index(1));
    }
  int64_t rows = inType.getDimSize(a), lanes = inType.getDimSize(rank - 1);
  Type elem = inType.getElementType();
  scf::LoopNest nest = scf::buildLoopNest(
      rewriter, loc, lbs, ubs, steps, ValueRange{op.getInit()},
      [&](OpBuilder &nb, Location, ValueRange ivs,
          ValueRange args) -> scf::ValueVector {
        // Input index of each dimension: a loop, or 0 for a and the last.
        SmallVector<OpFoldResult> inOffsets(rank, nb.getIndexAttr(0));
        SmallVector<OpFoldResult> inSizes(rank, nb.getIndexAttr(1));
        SmallVector<OpFoldResult> ones(rank, nb.getIndexAttr(1));
        for (auto [k, d] : llvm::enumerate(looped))
          inOffsets[d] = ivs[k];
        inSizes[a] = nb.getIndexAttr(rows);
        inSizes[rank - 1] = nb.getIndexAttr(lanes);
        SmallVector<int64_t> inShape(rank, 1);
        inShape[a] = rows;
        inShape[rank - 1] = lanes;
        Value slice = tensor::ExtractSliceOp::create(
            nb, loc, RankedTensorType::get(inShape, elem), op.getInput(),
            inOffsets, inSizes, ones);
        // Unit dimensions folded without a rank-reducing slice (which
        // would have to guess which unit dimensions it drops).
        auto groups = [&](int64_t split) {
          SmallVector<ReassociationIndices> g(2);
          for (int64_t d = 0; d < rank; ++d)
            g[d <= split ? 0 : 1].push_back(d);
          return g;
        };
        Value tile = tensor::CollapseShapeOp::create(nb, loc, slice, groups(a));
        Value t = transposed(nb, loc, tile, {1, 0});
        // The output slice: dimension b holds the lanes, the last the rows.
        SmallVector<int64_t> outShape(rank, 1);
        outShape[b] = lanes;
        outShape[rank - 1] = rows;
        Value wide = tensor::ExpandShapeOp::create(
            nb, loc, RankedTensorType::get(outShape, elem), t, groups(b));
        SmallVector<OpFoldResult> outOffsets(rank, nb.getIndexAttr(0));
        SmallVector<OpFoldResult> outSizes(rank, nb.getIndexAttr(1));
        for (int64_t d = 0; d < rank; ++d)
          if (d != b && d != rank - 1)
            outOffsets[d] = inOffsets[perm[d]];
        outSizes[b] = nb.getIndexAttr(lanes);
        outSizes[rank - 1] = nb.getIndexAttr(rows);
        return {tensor::InsertSliceOp::create(nb, loc, wide, args[0],
                                              outOffsets, outSizes, ones)};
      });
  rewriter.replaceOp(op, nest.results);
  return true;
}

struct AccelDecomposeLinalgPass
    : accel::CheckedOptionsPass<
          AccelDecomposeLinalgPass,
          accel::impl::AccelDecomposeLinalgBase<AccelDecomposeLinalgPass>> {
  using CheckedOptionsPass::CheckedOptionsPass;

  /// The tile rows are an ISA tile dimension; VMEM a config's capacity.
  std::string checkOptions() const {
    return accel::firstOptionProblem(
        {accel::checkOptionRange<int64_t>("tile-rows", tileRows, 1,
                                          accel::kMaxTileDim,
                                          "a tile dimension of the ISA"),
         accel::checkVmemBytesOption(vmemBytes)});
  }

  /// A negative pad (tensor.pad's crop) is refused at the pad: no step
  /// after this places it (bufferization writes the source at a negative
  /// offset). Fails after the error at the first one.
  LogicalResult refuseNegativePads() {
    WalkResult negative = getOperation().walk([](tensor::PadOp pad) {
      for (OpFoldResult v : llvm::concat<const OpFoldResult>(
               pad.getMixedLowPad(), pad.getMixedHighPad()))
        if (std::optional<int64_t> size = getConstantIntValue(v);
            size && *size < 0) {
          pad.emitError() << "cannot convert a 'tensor.pad' with a negative "
                             "pad ("
                          << *size
                          << ", a crop) to accel: write "
                             "the crop as a 'tensor.extract_slice'";
          return WalkResult::interrupt();
        }
      return WalkResult::advance();
    });
    return failure(negative.wasInterrupted());
  }

  /// A loop over zero iterations (a convolution over zero channels, an
  /// empty batch): no element of the result is computed, so the result is
  /// the init the op writes into (on buffers, the op does nothing and
  /// goes).
  void dropEmptyOps(IRRewriter &rewriter) {
    SmallVector<linalg::LinalgOp> empty;
    getOperation().walk([&](linalg::LinalgOp op) {
      if (llvm::is_contained(op.getStaticLoopRanges(), 0))
        empty.push_back(op);
    });
    for (linalg::LinalgOp op : empty) {
      if (op.hasPureTensorSemantics())
        rewriter.replaceOp(op, op.getDpsInits());
      else if (op.hasPureBufferSemantics())
        rewriter.eraseOp(op);
    }
  }

  /// NCHW convolutions and poolings (torch-mlir) as NHWC between
  /// transposes.
  void rewriteNchwOps(IRRewriter &rewriter) {
    SmallVector<Operation *> nchw;
    getOperation().walk([&](Operation *op) {
      if (isa<linalg::Conv2DNchwFchwOp, linalg::PoolingNchwMaxOp,
              linalg::PoolingNchwSumOp>(op))
        nchw.push_back(op);
    });
    for (Operation *op : nchw) {
      if (auto c = dyn_cast<linalg::Conv2DNchwFchwOp>(op))
        rewriteNchwAsNhwc<linalg::Conv2DNhwcHwcfOp>(rewriter, c, true);
      else if (auto p = dyn_cast<linalg::PoolingNchwMaxOp>(op))
        rewriteNchwAsNhwc<linalg::PoolingNhwcMaxOp>(rewriter, p, false);
      else if (auto p = dyn_cast<linalg::PoolingNchwSumOp>(op))
        rewriteNchwAsNhwc<linalg::PoolingNhwcSumOp>(rewriter, p, false);
    }
  }

  /// Float NHWC convolutions as a matmul (1x1) or shifted matmuls, then
  /// depthwise convolutions as shifted products, each tiled by `tiling`.
  void rewriteConvolutions(IRRewriter &rewriter,
                           const accel::TapTiling &tiling) {
    SmallVector<linalg::Conv2DNhwcHwcfOp> convs;
    getOperation().walk(
        [&](linalg::Conv2DNhwcHwcfOp c) { convs.push_back(c); });
    for (linalg::Conv2DNhwcHwcfOp conv : convs) {
      auto floats = [](Value v) {
        return isa<FloatType>(getElementTypeOrSelf(v.getType()));
      };
      if (!llvm::all_of(conv->getOperands(), floats))
        continue; // integer convolutions: refused later at the op
      if (!rewriteConv1x1AsMatmul(rewriter, conv))
        (void)accel::rewriteConvAsShiftedMatmuls(rewriter, conv, tiling);
    }
    SmallVector<linalg::DepthwiseConv2DNhwcHwcOp> depthwise;
    getOperation().walk(
        [&](linalg::DepthwiseConv2DNhwcHwcOp c) { depthwise.push_back(c); });
    for (linalg::DepthwiseConv2DNhwcHwcOp conv : depthwise)
      (void)accel::rewriteDepthwiseAsShiftedProducts(rewriter, conv, tiling);
  }

  /// Matrix-vector, vector-matrix and dot products as matmuls; NHWC
  /// poolings as shifted reductions (tiled by `tiling`); then transposes
  /// that move the lanes (the frontend's, and those above) as 2-D ones.
  void rewriteVectorOpsPoolsAndTransposes(IRRewriter &rewriter,
                                          const accel::TapTiling &tiling) {
    SmallVector<linalg::LinalgOp> vectorContractions;
    getOperation().walk([&](linalg::LinalgOp op) {
      if (isa<linalg::MatvecOp, linalg::VecmatOp, linalg::DotOp>(op))
        vectorContractions.push_back(op);
    });
    for (linalg::LinalgOp op : vectorContractions)
      (void)rewriteVectorContractionAsMatmul(rewriter, op);
    SmallVector<Operation *> pools;
    getOperation().walk([&](Operation *op) {
      if (isa<linalg::PoolingNhwcMaxOp, linalg::PoolingNhwcMinOp,
              linalg::PoolingNhwcSumOp>(op))
        pools.push_back(op);
    });
    for (Operation *op : pools)
      (void)accel::rewritePoolingAsShiftedReduce(rewriter, op, tiling);
    SmallVector<linalg::TransposeOp> transposes;
    getOperation().walk(
        [&](linalg::TransposeOp t) { transposes.push_back(t); });
    for (linalg::TransposeOp t : transposes)
      (void)rewriteLaneTranspose(rewriter, t);
  }

  /// Decomposes the aggregated ops (upstream's AggregatedOpInterface) until
  /// none is left: decompositions may build further aggregates. Fails after
  /// the error at the first one that cannot be decomposed.
  LogicalResult decomposeAggregates(IRRewriter &rewriter) {
    while (true) {
      SmallVector<linalg::AggregatedOpInterface> ops;
      getOperation().walk(
          [&](linalg::AggregatedOpInterface op) { ops.push_back(op); });
      if (ops.empty())
        return success();
      for (linalg::AggregatedOpInterface op : ops) {
        // Upstream's decomposition sees only what it supports.
        if (std::string problem = getDecompositionProblem(op);
            !problem.empty()) {
          op->emitError() << problem;
          return failure();
        }
        rewriter.setInsertionPoint(op);
        FailureOr<SmallVector<Value>> parts = op.decomposeOperation(rewriter);
        if (failed(parts) || parts->size() != op->getNumResults()) {
          op->emitError() << "cannot decompose '" << op->getName()
                          << "' into linalg ops accel can convert";
          return failure();
        }
        rewriter.replaceOp(op, *parts);
      }
    }
  }

  void runOnOperation() override {
    if (failed(refuseNegativePads()))
      return signalPassFailure();
    IRRewriter rewriter(&getContext());
    dropEmptyOps(rewriter);
    accel::TapTiling tiling;
    tiling.rows = tileRows;
    tiling.vmemSpace = vmemSpace;
    tiling.vmemBytes = vmemBytes;
    rewriteNchwOps(rewriter);
    rewriteConvolutions(rewriter, tiling);
    rewriteVectorOpsPoolsAndTransposes(rewriter, tiling);
    if (failed(decomposeAggregates(rewriter)))
      return signalPassFailure();
    useNegInfForMaxNum(getOperation());
  }
};
} // namespace
