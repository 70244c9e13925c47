//===- DecomposeLinalg.cpp - aggregate linalg ops into their parts --------===//
//
// Passes.td, accel-decompose-linalg: ops with upstream's
// AggregatedOpInterface (linalg.softmax) become the ops they are made of.
//
//===----------------------------------------------------------------------===//

#include "accel/Conversion/Passes.h"
#include "accel/Dialect/Accel/TileShape.h"
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
#include "llvm/ADT/SmallBitVector.h"

#include <array>
#include <optional>

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
/// The input, filter and init types of `conv` when it works on tensors of
/// static shapes; nullopt otherwise.
template <typename ConvOp>
std::optional<std::array<RankedTensorType, 3>> getStaticConvTypes(ConvOp conv) {
  if (!conv.hasPureTensorSemantics())
    return std::nullopt;
  std::array<RankedTensorType, 3> types = {
      dyn_cast<RankedTensorType>(conv.getInputs()[0].getType()),
      dyn_cast<RankedTensorType>(conv.getInputs()[1].getType()),
      dyn_cast<RankedTensorType>(conv.getOutputs()[0].getType())};
  for (RankedTensorType t : types)
    if (!t || !t.hasStaticShape())
      return std::nullopt;
  return types;
}

bool rewriteConv1x1AsMatmul(IRRewriter &rewriter,
                            linalg::Conv2DNhwcHwcfOp conv) {
  auto types = getStaticConvTypes(conv);
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

/// A 2-D convolution's window: strides and dilations (1 when absent), and
/// its kernel and output sizes.
struct ConvWindow {
  int64_t stride[2] = {1, 1}, dilation[2] = {1, 1};
  int64_t kh = 0, kw = 0, n = 0, oh = 0, ow = 0;
};

/// The window of a convolution on NHWC `input` with a kh x kw kernel and an
/// N x OH x OW x ... `init`, when every tap's pixels lie in the input (the
/// verifier checks the shapes' consistency, not this) and the strides and
/// dilations are positive; nullopt otherwise.
std::optional<ConvWindow> getConvWindow(DenseIntElementsAttr strides,
                                        DenseIntElementsAttr dilations,
                                        RankedTensorType input, int64_t kh,
                                        int64_t kw, RankedTensorType init) {
  ConvWindow w;
  for (auto [attr, out] : {std::make_pair(strides, w.stride),
                           std::make_pair(dilations, w.dilation)})
    if (attr)
      for (auto [i, v] : llvm::enumerate(attr.getValues<APInt>()))
        if (i < 2)
          out[i] = v.getSExtValue();
  w.kh = kh, w.kw = kw;
  w.n = init.getDimSize(0), w.oh = init.getDimSize(1),
  w.ow = init.getDimSize(2);
  for (int d = 0; d < 2; ++d)
    if (w.stride[d] < 1 || w.dilation[d] < 1)
      return std::nullopt;
  if ((kh - 1) * w.dilation[0] + (w.oh - 1) * w.stride[0] >=
          input.getDimSize(1) ||
      (kw - 1) * w.dilation[1] + (w.ow - 1) * w.stride[1] >=
          input.getDimSize(2))
    return std::nullopt;
  return w;
}

/// Combines one tap's input pixel (and its weight, null for a pooling
/// window) into the accumulator, in a linalg.generic body; returns the new
/// accumulator value.
using TapCombiner = function_ref<Value(OpBuilder &, Location, Value pixel,
                                       Value tap, Value acc)>;

/// How emitFlatTapReduce cuts its rows: tiles of `rows` output rows whose
/// accumulator stays in VMEM (memory space `vmemSpace`) across the taps,
/// when the tiles take at most a quarter of `vmemBytes`; the pass's
/// tile-rows, vmem-space and vmem-bytes options.
struct TapTiling {
  int64_t rows = 128;
  unsigned vmemSpace = 1;
  uint64_t vmemBytes = 32 << 20;
};

/// Whether emitTapReduce computes `window` over flattened rows: stride 1 in
/// both dimensions, and an output at least half as wide as the input
/// (padding columns computed and dropped cost less than a tap op per
/// output row; see emitFlatTapReduce).
bool usesFlatRows(const ConvWindow &window, RankedTensorType input) {
  return window.stride[0] == 1 && window.stride[1] == 1 &&
         input.getDimSize(2) <= 2 * window.ow;
}

/// `v` (a static tensor) with its dimension `dim` grown by `extra` at the
/// end, filled with `pad` (a tensor.pad); when `v` is itself a tensor.pad
/// with a constant value used once (the frontend's SAME halo), that pad
/// grows instead, so no second copy is made.
Value padAtEnd(IRRewriter &rewriter, Location loc, Value v, int64_t dim,
               int64_t extra, Attribute padValue) {
  auto type = cast<RankedTensorType>(v.getType());
  SmallVector<int64_t> shape(type.getShape());
  shape[dim] += extra;
  auto resultType = RankedTensorType::get(shape, type.getElementType());
  auto zero = rewriter.getIndexAttr(0);
  SmallVector<OpFoldResult> low(type.getRank(), zero),
      high(type.getRank(), zero);
  Value source = v, value;
  if (auto pad = v.getDefiningOp<tensor::PadOp>();
      pad && v.hasOneUse() && pad.getConstantPaddingValue() &&
      !pad.getNofold()) {
    source = pad.getSource();
    value = pad.getConstantPaddingValue();
    low = pad.getMixedLowPad();
    high = pad.getMixedHighPad();
  } else {
    value = arith::ConstantOp::create(rewriter, loc, cast<TypedAttr>(padValue));
  }
  std::optional<int64_t> h = getConstantIntValue(high[dim]);
  if (!h)
    return Value();
  high[dim] = rewriter.getIndexAttr(*h + extra);
  return tensor::PadOp::create(rewriter, loc, resultType, source, low, high,
                               value);
}

/// The taps of emitFlatTapReduce in tiles: for each image n and each
/// `tiling.rows` rows from m0 (and a last, shorter tile), an accumulator
/// tile in VMEM (a `bufferization.alloc_tensor` in `tiling.vmemSpace`)
/// starts at `fillValue` or (without one) at the rows of `acc` (of
/// `accType`, N x rows x F), takes
/// every tap in turn (`combine` over the pixel rows m0 + the tap's offset of
/// `flat`, N x rows' x C), and is copied into the result once. So a
/// convolution's accumulator goes to HBM once per tile instead of once
/// per tap, and its matmuls run back to back. `maps` and `iterators` are
/// over (n, m, rest...) and lose n. Returns the N x rows x F result, or
/// null (nothing created) when `tiling.vmemSpace` is 0 or a tile's
/// accumulator, pixels and tap take more than a quarter of VMEM.
Value emitTapTiles(IRRewriter &rewriter, Location loc, Value flat,
                   RankedTensorType accType, Value acc, Value fillValue,
                   const ConvWindow &window, int64_t w, int64_t c,
                   function_ref<Value(int64_t, int64_t)> tapOf,
                   ArrayRef<AffineMap> maps,
                   ArrayRef<utils::IteratorType> iterators, TapCombiner combine,
                   const TapTiling &tiling) {
  Type inElem = getElementTypeOrSelf(flat.getType()),
       outElem = accType.getElementType();
  int64_t rows = accType.getDimSize(1), f = accType.getDimSize(2);
  int64_t size = std::min(tiling.rows, rows);
  auto bytes = [](Type t) -> uint64_t { return t.isBF16() ? 2 : 4; };
  uint64_t footprint = uint64_t(size) * f * bytes(outElem) +
                       uint64_t(size) * c * bytes(inElem) + uint64_t(c) * f * 4;
  if (tiling.vmemSpace == 0 || size < 1 || footprint > tiling.vmemBytes / 4)
    return Value();
  llvm::SmallBitVector n(maps.front().getNumDims());
  n.set(0);
  SmallVector<AffineMap> tileMaps;
  for (AffineMap map : maps) {
    SmallVector<AffineExpr> results;
    for (AffineExpr e : map.getResults())
      if (!e.isFunctionOfDim(0))
        results.push_back(e);
    tileMaps.push_back(compressDims(
        AffineMap::get(map.getNumDims(), 0, results, rewriter.getContext()),
        n));
  }
  SmallVector<utils::IteratorType> tileIterators(iterators.drop_front());
  auto one = rewriter.getIndexAttr(1), zero = rewriter.getIndexAttr(0);
  // One tile of `rows` rows at (image, m0) into `out`; returns the new out.
  auto emitTile = [&](OpBuilder &b, Location l, Value image, Value m0,
                      int64_t tileRows, Value out) -> Value {
    auto tileType = RankedTensorType::get({tileRows, f}, outElem);
    auto alloc =
        bufferization::AllocTensorOp::create(b, l, tileType, ValueRange{});
    alloc.setMemorySpaceAttr(b.getI64IntegerAttr(tiling.vmemSpace));
    SmallVector<OpFoldResult> at = {image, m0, zero};
    SmallVector<OpFoldResult> sizes = {one, b.getIndexAttr(tileRows),
                                       b.getIndexAttr(f)};
    SmallVector<OpFoldResult> ones = {one, one, one};
    Value tile;
    if (fillValue) {
      tile = linalg::FillOp::create(b, l, fillValue, alloc.getResult())
                 .getResult(0);
    } else {
      Value rowsOfInit =
          tensor::ExtractSliceOp::create(b, l, tileType, acc, at, sizes, ones);
      tile = linalg::CopyOp::create(b, l, rowsOfInit, alloc.getResult())
                 .getResult(0);
    }
    auto pixelsType = RankedTensorType::get({tileRows, c}, inElem);
    for (int64_t i = 0; i < window.kh; ++i)
      for (int64_t j = 0; j < window.kw; ++j) {
        int64_t offset = i * window.dilation[0] * w + j * window.dilation[1];
        Value row = arith::AddIOp::create(
            b, l, m0, arith::ConstantIndexOp::create(b, l, offset));
        SmallVector<Value> ins = {tensor::ExtractSliceOp::create(
            b, l, pixelsType, flat, ArrayRef<OpFoldResult>{image, row, zero},
            ArrayRef<OpFoldResult>{one, b.getIndexAttr(tileRows),
                                   b.getIndexAttr(c)},
            ones)};
        if (tapOf)
          ins.push_back(tapOf(i, j));
        tile = linalg::GenericOp::create(
                   b, l, TypeRange{tileType}, ins, ValueRange{tile}, tileMaps,
                   tileIterators,
                   [&](OpBuilder &bb, Location ll, ValueRange args) {
                     Value tap = tapOf ? args[1] : Value();
                     linalg::YieldOp::create(
                         bb, ll, combine(bb, ll, args[0], tap, args.back()));
                   })
                   .getResult(0);
      }
    Value dst =
        tensor::ExtractSliceOp::create(b, l, tileType, out, at, sizes, ones);
    Value copied = linalg::CopyOp::create(b, l, tile, dst).getResult(0);
    return tensor::InsertSliceOp::create(b, l, copied, out, at, sizes, ones);
  };
  int64_t whole = rows / size, rest = rows % size;
  // Constants made one by one: the order of IR built in arguments is
  // unspecified (utils/check-eval-order.py).
  Value zeroIndex = arith::ConstantIndexOp::create(rewriter, loc, 0);
  Value oneIndex = arith::ConstantIndexOp::create(rewriter, loc, 1);
  Value images = arith::ConstantIndexOp::create(rewriter, loc, window.n);
  Value wholeRows = arith::ConstantIndexOp::create(rewriter, loc, whole * size);
  Value step = arith::ConstantIndexOp::create(rewriter, loc, size);
  Value out0 =
      tensor::EmptyOp::create(rewriter, loc, accType.getShape(), outElem);
  auto loop = scf::ForOp::create(
      rewriter, loc, zeroIndex, images, oneIndex, ValueRange{out0},
      [&](OpBuilder &b, Location l, Value image, ValueRange iter) {
        auto tiles = scf::ForOp::create(
            b, l, zeroIndex, wholeRows, step, ValueRange{iter[0]},
            [&](OpBuilder &bb, Location ll, Value m0, ValueRange it) {
              scf::YieldOp::create(bb, ll,
                                   emitTile(bb, ll, image, m0, size, it[0]));
            });
        Value out = tiles.getResult(0);
        if (rest)
          out = emitTile(b, l, image, wholeRows, rest, out);
        scf::YieldOp::create(b, l, out);
      });
  return loop.getResult(0);
}

/// emitTapReduce for a window of stride 1 (usesFlatRows): each image's
/// H x W x C pixels are viewed as H*W rows of C, and the output as OH x W
/// rows (W, the input's width: the OW columns wanted and W - OW columns
/// that read across the row's end, computed and dropped). A tap (i, j)
/// then reads the OH*W contiguous rows from i*dh*W + j*dw on: one
/// N x (OH*W) x C op per tap instead of one per output row, so a
/// convolution's tap is one tall matmul (OH*W rows of the MXU's stream)
/// rather than OH short ones that each pay the array's fill and drain
/// (docs/isa.md, MXU). The input grows by the rows the last tap reads past
/// its end (zeros; padAtEnd); `maps` are over (n, oh, ow, ...) as for
/// emitTapReduce and lose ow. Returns the N x OH x OW x ... result (a
/// slice of the N x OH x W x ... one), or null when a pad is dynamic.
Value emitFlatTapReduce(IRRewriter &rewriter, Location loc, Value input,
                        Value init, const ConvWindow &window, int64_t c,
                        function_ref<Value(int64_t, int64_t)> tapOf,
                        ArrayRef<AffineMap> maps,
                        ArrayRef<utils::IteratorType> iterators,
                        TapCombiner combine, const TapTiling &tiling) {
  auto inputType = cast<RankedTensorType>(input.getType());
  auto initType = cast<RankedTensorType>(init.getType());
  Type inElem = inputType.getElementType(), outElem = initType.getElementType();
  int64_t w = inputType.getDimSize(2), rows = window.oh * w,
          f = initType.getDimSize(3);
  int64_t last = (window.kh - 1) * window.dilation[0] * w +
                 (window.kw - 1) * window.dilation[1] + rows;
  int64_t have = inputType.getDimSize(1) * w;
  if (last > have) {
    input = padAtEnd(rewriter, loc, input, 1, llvm::divideCeil(last - have, w),
                     rewriter.getZeroAttr(inElem));
    if (!input)
      return Value();
    inputType = cast<RankedTensorType>(input.getType());
  }
  SmallVector<ReassociationIndices> hw = {{0}, {1, 2}, {3}};
  Value flat = tensor::CollapseShapeOp::create(rewriter, loc, input, hw);
  // The accumulator: OH x W rows; the W - OW extra columns start at the
  // fill's value or zero.
  auto accType = RankedTensorType::get({window.n, rows, f}, outElem);
  Value acc, fillValue;
  if (auto fill = init.getDefiningOp<linalg::FillOp>()) {
    fillValue = fill.getInputs()[0];
  } else {
    Value wide = padAtEnd(rewriter, loc, init, 2, w - window.ow,
                          rewriter.getZeroAttr(outElem));
    if (!wide)
      return Value();
    acc = tensor::CollapseShapeOp::create(rewriter, loc, wide, hw);
  }
  // Each map over (n, oh, ow, rest) as one over (n, m, rest).
  llvm::SmallBitVector ow(maps.front().getNumDims());
  ow.set(2);
  SmallVector<AffineMap> flatMaps;
  for (AffineMap map : maps) {
    SmallVector<AffineExpr> results;
    for (AffineExpr e : map.getResults())
      if (!e.isFunctionOfDim(2))
        results.push_back(e);
    flatMaps.push_back(compressDims(
        AffineMap::get(map.getNumDims(), 0, results, rewriter.getContext()),
        ow));
  }
  SmallVector<utils::IteratorType> flatIterators(iterators);
  flatIterators.erase(flatIterators.begin() + 2);
  auto pixelsType = RankedTensorType::get({window.n, rows, c}, inElem);
  auto idx = [&](int64_t v) { return rewriter.getIndexAttr(v); };
  if (Value tiled =
          emitTapTiles(rewriter, loc, flat, accType, acc, fillValue, window, w,
                       c, tapOf, flatMaps, flatIterators, combine, tiling)) {
    acc = tiled;
  } else {
    if (fillValue) {
      Value empty =
          tensor::EmptyOp::create(rewriter, loc, accType.getShape(), outElem);
      acc =
          linalg::FillOp::create(rewriter, loc, fillValue, empty).getResult(0);
    }
    for (int64_t i = 0; i < window.kh; ++i)
      for (int64_t j = 0; j < window.kw; ++j) {
        int64_t offset = i * window.dilation[0] * w + j * window.dilation[1];
        SmallVector<Value> ins = {tensor::ExtractSliceOp::create(
            rewriter, loc, pixelsType, flat,
            ArrayRef<OpFoldResult>{idx(0), idx(offset), idx(0)},
            ArrayRef<OpFoldResult>{idx(window.n), idx(rows), idx(c)},
            ArrayRef<OpFoldResult>{idx(1), idx(1), idx(1)})};
        if (tapOf)
          ins.push_back(tapOf(i, j));
        acc =
            linalg::GenericOp::create(
                rewriter, loc, TypeRange{accType}, ins, ValueRange{acc},
                flatMaps, flatIterators,
                [&](OpBuilder &b, Location l, ValueRange args) {
                  Value tap = tapOf ? args[1] : Value();
                  linalg::YieldOp::create(
                      b, l, combine(b, l, args[0], tap, args.back()));
                })
                .getResult(0);
      }
  }
  Value wide = tensor::ExpandShapeOp::create(
      rewriter, loc,
      RankedTensorType::get({window.n, window.oh, w, f}, outElem), acc, hw);
  return tensor::ExtractSliceOp::create(
      rewriter, loc, initType, wide,
      ArrayRef<OpFoldResult>{idx(0), idx(0), idx(0), idx(0)},
      ArrayRef<OpFoldResult>{idx(window.n), idx(window.oh), idx(window.ow),
                             idx(f)},
      ArrayRef<OpFoldResult>{idx(1), idx(1), idx(1), idx(1)});
}

/// The reduction over the kernel taps (kh, kw) of `window` into `init`, one
/// linalg.generic per tap, each accumulating into the previous one's
/// result with `combine`: `acc = combine(pixels, tap, acc)`, with `pixels`
/// the N x OH x OW x C input pixels the tap reads (a strided
/// tensor.extract_slice of `input`) and `tap` = tapOf(kh, kw) (no tap
/// operand without tapOf); `maps` and `iterators` are the generic's,
/// operands (pixels[, tap], acc). Returns the last result. A window of
/// stride 1 is computed over flattened rows (emitFlatTapReduce).
Value emitTapReduce(IRRewriter &rewriter, Location loc, Value input, Value init,
                    const ConvWindow &window, int64_t c,
                    function_ref<Value(int64_t, int64_t)> tapOf,
                    ArrayRef<AffineMap> maps,
                    ArrayRef<utils::IteratorType> iterators,
                    TapCombiner combine, const TapTiling &tiling) {
  if (usesFlatRows(window, cast<RankedTensorType>(input.getType())))
    if (Value flat = emitFlatTapReduce(rewriter, loc, input, init, window, c,
                                       tapOf, maps, iterators, combine, tiling))
      return flat;
  auto initType = cast<RankedTensorType>(init.getType());
  auto pixelsType =
      RankedTensorType::get({window.n, window.oh, window.ow, c},
                            getElementTypeOrSelf(input.getType()));
  auto idx = [&](int64_t v) { return rewriter.getIndexAttr(v); };
  Value acc = init;
  for (int64_t i = 0; i < window.kh; ++i)
    for (int64_t j = 0; j < window.kw; ++j) {
      SmallVector<Value> ins = {tensor::ExtractSliceOp::create(
          rewriter, loc, pixelsType, input,
          ArrayRef<OpFoldResult>{idx(0), idx(i * window.dilation[0]),
                                 idx(j * window.dilation[1]), idx(0)},
          ArrayRef<OpFoldResult>{idx(window.n), idx(window.oh), idx(window.ow),
                                 idx(c)},
          ArrayRef<OpFoldResult>{idx(1), idx(window.stride[0]),
                                 idx(window.stride[1]), idx(1)})};
      if (tapOf)
        ins.push_back(tapOf(i, j));
      acc = linalg::GenericOp::create(
                rewriter, loc, TypeRange{initType}, ins, ValueRange{acc}, maps,
                iterators,
                [&](OpBuilder &b, Location l, ValueRange args) {
                  Value tap = tapOf ? args[1] : Value();
                  linalg::YieldOp::create(
                      b, l, combine(b, l, args[0], tap, args.back()));
                })
                .getResult(0);
    }
  return acc;
}

/// `v` as `type`, widened (arith.extf) when it is a narrower float.
Value widenTo(OpBuilder &b, Location loc, Type type, Value v) {
  return v.getType() == type
             ? v
             : arith::ExtFOp::create(b, loc, type, v).getResult();
}

/// The convolutions' combiner: acc += pixel * tap, operands narrower than
/// the accumulator widened.
Value multiplyAdd(OpBuilder &b, Location loc, Value pixel, Value tap,
                  Value acc) {
  Type type = acc.getType();
  Value product = arith::MulFOp::create(b, loc, widenTo(b, loc, type, pixel),
                                        widenTo(b, loc, type, tap));
  return arith::AddFOp::create(b, loc, acc, product);
}

/// A 2-D convolution (`linalg.conv_2d_nhwc_hwcf`, any strides and
/// dilations, static shapes, on tensors) as a sum of shifted matmuls: for
/// each kernel tap (kh, kw), the input pixels it reads (N x OH x OW x C)
/// times the tap's C x F filter, accumulated into the output
/// (emitTapReduce). Each tap is a contraction whose M loops are (n, oh, ow):
/// accel-tile-linalg runs n and oh as loops of one iteration around an
/// OW x C by C x F matmul on the MXU. Returns whether `conv` was rewritten
/// (not when a type is not static or a tap would read past the input).
bool rewriteConvAsShiftedMatmuls(IRRewriter &rewriter,
                                 linalg::Conv2DNhwcHwcfOp conv,
                                 const TapTiling &tiling) {
  auto types = getStaticConvTypes(conv);
  if (!types)
    return false;
  auto [input, filter, init] = *types;
  int64_t c = filter.getDimSize(2), f = filter.getDimSize(3);
  std::optional<ConvWindow> window =
      getConvWindow(conv.getStrides(), conv.getDilations(), input,
                    filter.getDimSize(0), filter.getDimSize(1), init);
  if (!window)
    return false;
  MLIRContext *ctx = rewriter.getContext();
  rewriter.setInsertionPoint(conv);
  AffineExpr dn, doh, dow, df, dc;
  bindDims(ctx, dn, doh, dow, df, dc);
  SmallVector<AffineMap> maps = {AffineMap::get(5, 0, {dn, doh, dow, dc}, ctx),
                                 AffineMap::get(5, 0, {dc, df}, ctx),
                                 AffineMap::get(5, 0, {dn, doh, dow, df}, ctx)};
  SmallVector<utils::IteratorType> iterators(4, utils::IteratorType::parallel);
  iterators.push_back(utils::IteratorType::reduction);
  auto tapType = RankedTensorType::get({c, f}, filter.getElementType());
  auto idx = [&](int64_t v) { return rewriter.getIndexAttr(v); };
  Location loc = conv.getLoc();
  auto tapOf = [&](int64_t i, int64_t j) -> Value {
    return tensor::ExtractSliceOp::create(
        rewriter, loc, tapType, conv.getInputs()[1],
        ArrayRef<OpFoldResult>{idx(i), idx(j), idx(0), idx(0)},
        ArrayRef<OpFoldResult>{idx(1), idx(1), idx(c), idx(f)},
        ArrayRef<OpFoldResult>{idx(1), idx(1), idx(1), idx(1)});
  };
  rewriter.replaceOp(conv,
                     emitTapReduce(rewriter, loc, conv.getInputs()[0],
                                   conv.getOutputs()[0], *window, c, tapOf,
                                   maps, iterators, multiplyAdd, tiling));
  return true;
}

/// A depthwise convolution (`linalg.depthwise_conv_2d_nhwc_hwc`, any
/// strides and dilations, static shapes, on float tensors) as a sum of
/// shifted elementwise products on the VPU: for each kernel tap, the input
/// pixels it reads times the tap's C weights (a row broadcast along the
/// pixels), added into the output (emitTapReduce). Returns whether `conv` was
/// rewritten.
bool rewriteDepthwiseAsShiftedProducts(IRRewriter &rewriter,
                                       linalg::DepthwiseConv2DNhwcHwcOp conv,
                                       const TapTiling &tiling) {
  auto types = getStaticConvTypes(conv);
  if (!types)
    return false;
  auto [input, filter, init] = *types;
  if (!isa<FloatType>(init.getElementType()))
    return false;
  int64_t c = init.getDimSize(3);
  std::optional<ConvWindow> window =
      getConvWindow(conv.getStrides(), conv.getDilations(), input,
                    filter.getDimSize(0), filter.getDimSize(1), init);
  if (!window)
    return false;
  MLIRContext *ctx = rewriter.getContext();
  rewriter.setInsertionPoint(conv);
  AffineExpr dn, doh, dow, dc;
  bindDims(ctx, dn, doh, dow, dc);
  SmallVector<AffineMap> maps = {AffineMap::get(4, 0, {dn, doh, dow, dc}, ctx),
                                 AffineMap::get(4, 0, {dc}, ctx),
                                 AffineMap::get(4, 0, {dn, doh, dow, dc}, ctx)};
  SmallVector<utils::IteratorType> iterators(4, utils::IteratorType::parallel);
  auto tapType = RankedTensorType::get({c}, filter.getElementType());
  auto idx = [&](int64_t v) { return rewriter.getIndexAttr(v); };
  Location loc = conv.getLoc();
  auto tapOf = [&](int64_t i, int64_t j) -> Value {
    return tensor::ExtractSliceOp::create(
        rewriter, loc, tapType, conv.getInputs()[1],
        ArrayRef<OpFoldResult>{idx(i), idx(j), idx(0)},
        ArrayRef<OpFoldResult>{idx(1), idx(1), idx(c)},
        ArrayRef<OpFoldResult>{idx(1), idx(1), idx(1)});
  };
  rewriter.replaceOp(conv,
                     emitTapReduce(rewriter, loc, conv.getInputs()[0],
                                   conv.getOutputs()[0], *window, c, tapOf,
                                   maps, iterators, multiplyAdd, tiling));
  return true;
}

/// A float pooling window on NHWC (`linalg.pooling_nhwc_max`, `_min`,
/// `_sum`: jax.lax.reduce_window, flax's max_pool and avg_pool; any
/// strides and dilations, static shapes, on tensors) as a reduction of
/// shifted inputs on the VPU, one elementwise maximum, minimum or sum per
/// window tap (emitTapReduce), like a depthwise convolution without
/// weights. `combine` is the pooling's: arith.maximumf, arith.minimumf or
/// arith.addf (pixels narrower than the output widened). Returns whether
/// `pool` was rewritten.
template <typename PoolOp>
bool rewritePoolingAsShiftedReduce(IRRewriter &rewriter, PoolOp pool,
                                   TapCombiner combine,
                                   const TapTiling &tiling) {
  auto types = getStaticConvTypes(pool);
  if (!types)
    return false;
  auto [input, window, init] = *types;
  if (!isa<FloatType>(init.getElementType()) ||
      !isa<FloatType>(input.getElementType()))
    return false;
  int64_t c = init.getDimSize(3);
  std::optional<ConvWindow> w =
      getConvWindow(pool.getStrides(), pool.getDilations(), input,
                    window.getDimSize(0), window.getDimSize(1), init);
  if (!w)
    return false;
  rewriter.setInsertionPoint(pool);
  AffineMap id = rewriter.getMultiDimIdentityMap(4);
  SmallVector<AffineMap> maps = {id, id};
  SmallVector<utils::IteratorType> iterators(4, utils::IteratorType::parallel);
  rewriter.replaceOp(pool,
                     emitTapReduce(rewriter, pool.getLoc(), pool.getInputs()[0],
                                   pool.getOutputs()[0], *w, c, nullptr, maps,
                                   iterators, combine, tiling));
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
  auto types = getStaticConvTypes(op);
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
         accel::checkOptionRange<uint64_t>("vmem-bytes", vmemBytes, 1,
                                           accel::kMaxOptionVmemBytes)});
  }

  void runOnOperation() override {
    IRRewriter rewriter(&getContext());
    TapTiling tiling;
    tiling.rows = tileRows;
    tiling.vmemSpace = vmemSpace;
    tiling.vmemBytes = vmemBytes;
    // NCHW (torch-mlir) as NHWC between transposes.
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
        (void)rewriteConvAsShiftedMatmuls(rewriter, conv, tiling);
    }
    SmallVector<linalg::DepthwiseConv2DNhwcHwcOp> depthwise;
    getOperation().walk(
        [&](linalg::DepthwiseConv2DNhwcHwcOp c) { depthwise.push_back(c); });
    for (linalg::DepthwiseConv2DNhwcHwcOp conv : depthwise)
      (void)rewriteDepthwiseAsShiftedProducts(rewriter, conv, tiling);
    auto combineWith = [](auto make) {
      return [make](OpBuilder &b, Location loc, Value pixel, Value,
                    Value acc) -> Value {
        return make(b, loc, acc, widenTo(b, loc, acc.getType(), pixel));
      };
    };
    auto maxOf = combineWith([](OpBuilder &b, Location l, Value x, Value y) {
      return arith::MaximumFOp::create(b, l, x, y).getResult();
    });
    auto minOf = combineWith([](OpBuilder &b, Location l, Value x, Value y) {
      return arith::MinimumFOp::create(b, l, x, y).getResult();
    });
    auto sumOf = combineWith([](OpBuilder &b, Location l, Value x, Value y) {
      return arith::AddFOp::create(b, l, x, y).getResult();
    });
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
    for (Operation *op : pools) {
      if (auto p = dyn_cast<linalg::PoolingNhwcMaxOp>(op))
        (void)rewritePoolingAsShiftedReduce(rewriter, p, maxOf, tiling);
      else if (auto p = dyn_cast<linalg::PoolingNhwcMinOp>(op))
        (void)rewritePoolingAsShiftedReduce(rewriter, p, minOf, tiling);
      else if (auto p = dyn_cast<linalg::PoolingNhwcSumOp>(op))
        (void)rewritePoolingAsShiftedReduce(rewriter, p, sumOf, tiling);
    }
    // Transposes that move the lanes (the frontend's, and those above).
    SmallVector<linalg::TransposeOp> transposes;
    getOperation().walk(
        [&](linalg::TransposeOp t) { transposes.push_back(t); });
    for (linalg::TransposeOp t : transposes)
      (void)rewriteLaneTranspose(rewriter, t);
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
