//===- Windows.cpp - Convolution and pooling windows as tap sums ----------===//
//
// Windows.h; Passes.td, accel-decompose-linalg: a window op is a sum over
// its kernel taps of the input pixels each tap reads; with stride 1 the
// pixels are flattened rows of each image (built in VMEM when it fits) and
// the sum runs in tiles of whole output rows with a VMEM accumulator
// (TapTiles.cpp).
//
//===----------------------------------------------------------------------===//

#include "Windows.h"
#include "TapTiles.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "llvm/ADT/SmallBitVector.h"

using namespace mlir;
using namespace accel;
using namespace accel::windows;

namespace {

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

/// Whether emitTapReduce computes `window` over flattened rows: stride 1 in
/// both dimensions, and an output at least half as wide as the input
/// (padding columns computed and dropped cost less than a tap op per
/// output row; see emitFlatTapReduce), none of its sizes 0.
bool usesFlatRows(const ConvWindow &window, RankedTensorType input) {
  return window.stride[0] == 1 && window.stride[1] == 1 && window.n > 0 &&
         window.oh > 0 && window.ow > 0 && input.getDimSize(3) > 0 &&
         input.getDimSize(2) <= 2 * window.ow;
}

/// Whether each image of `input` (N x H x W x C) fits an eighth of VMEM as
/// its H*W rows, and `window` has no size 0: the strided form of
/// emitTapReduce reads its taps from that image (emitTapTiles).
bool fitsImageInVmem(const ConvWindow &window, RankedTensorType input,
                     const TapTiling &tiling) {
  uint64_t bytes = input.getElementType().isBF16() ? 2 : 4;
  return tiling.vmemSpace != 0 && window.n > 0 && window.oh > 0 &&
         window.ow > 0 && input.getDimSize(3) > 0 &&
         uint64_t(input.getDimSize(1)) * input.getDimSize(2) *
                 input.getDimSize(3) * bytes <=
             tiling.vmemBytes / 8;
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

/// `input` (N x H x W x C) grown at the end of H by the rows the last tap
/// of `window` reads past its end over flattened rows (zeros; padAtEnd),
/// or `input` itself when it reads none; null when a pad is dynamic.
Value growForFlatTaps(IRRewriter &rewriter, Location loc, Value input,
                      const ConvWindow &window) {
  auto inputType = cast<RankedTensorType>(input.getType());
  int64_t w = inputType.getDimSize(2), rows = window.oh * w;
  int64_t last = (window.kh - 1) * window.dilation[0] * w +
                 (window.kw - 1) * window.dilation[1] + rows;
  int64_t have = inputType.getDimSize(1) * w;
  if (last <= have)
    return input;
  return padAtEnd(rewriter, loc, input, 1, llvm::divideCeil(last - have, w),
                  rewriter.getZeroAttr(inputType.getElementType()));
}

/// emitFlatTapReduce without tiles: the accumulator as N x OH*W x F rows
/// (`init` widened to W columns, the W - OW extra ones at the fill's value
/// `fillValue` or zero), one op per tap over N x OH*W x C contiguous rows
/// of `flat` (the input as N x H*W x C; images `w` pixels wide, of `c`
/// channels) with `flatMaps` and `flatIterators`, and the N x OH x OW x F
/// result sliced out of it. Returns it, or null when a pad is dynamic.
Value emitFlatTaps(IRRewriter &rewriter, Location loc, Value flat, Value init,
                   Value fillValue, const ConvWindow &window, int64_t w,
                   int64_t c, TapOf tapOf, ArrayRef<AffineMap> flatMaps,
                   ArrayRef<utils::IteratorType> flatIterators,
                   TapCombiner combine) {
  auto initType = cast<RankedTensorType>(init.getType());
  Type inElem = getElementTypeOrSelf(flat.getType()),
       outElem = initType.getElementType();
  int64_t rows = window.oh * w, f = initType.getDimSize(3);
  SmallVector<ReassociationIndices> hw = {{0}, {1, 2}, {3}};
  // The accumulator: OH x W rows; the W - OW extra columns start at the
  // fill's value or zero.
  auto accType = RankedTensorType::get({window.n, rows, f}, outElem);
  Value acc;
  if (fillValue) {
    Value empty =
        tensor::EmptyOp::create(rewriter, loc, accType.getShape(), outElem);
    acc = linalg::FillOp::create(rewriter, loc, fillValue, empty).getResult(0);
  } else {
    Value wide = padAtEnd(rewriter, loc, init, 2, w - window.ow,
                          rewriter.getZeroAttr(outElem));
    if (!wide)
      return Value();
    acc = tensor::CollapseShapeOp::create(rewriter, loc, wide, hw);
  }
  auto pixelsType = RankedTensorType::get({window.n, rows, c}, inElem);
  auto idx = [&](int64_t v) { return rewriter.getIndexAttr(v); };
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
      acc = emitTapOp(rewriter, loc, ins, acc, flatMaps, flatIterators, combine,
                      bool(tapOf));
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
/// emitTapReduce and lose ow. The taps run in tiles of output rows
/// (emitTapTiles) when they fit VMEM, else one op each (emitFlatTaps).
/// Returns the N x OH x OW x ... result (a slice of the N x OH x W x ...
/// one), or null when a pad is dynamic.
Value emitFlatTapReduce(IRRewriter &rewriter, Location loc, Value input,
                        Value init, const ConvWindow &window, int64_t c,
                        TapOf tapOf, ArrayRef<AffineMap> maps,
                        ArrayRef<utils::IteratorType> iterators,
                        TapCombiner combine, const TapTiling &tiling) {
  input = growForFlatTaps(rewriter, loc, input, window);
  if (!input)
    return Value();
  auto inputType = cast<RankedTensorType>(input.getType());
  Type inElem = inputType.getElementType();
  int64_t w = inputType.getDimSize(2);
  SmallVector<ReassociationIndices> hw = {{0}, {1, 2}, {3}};
  Value flat = tensor::CollapseShapeOp::create(rewriter, loc, input, hw);
  // Each map over (n, oh, ow, rest) as one over (n, m, rest).
  llvm::SmallBitVector ow(maps.front().getNumDims());
  ow.set(2);
  SmallVector<AffineMap> flatMaps = dropLoops(maps, ow, rewriter.getContext());
  SmallVector<utils::IteratorType> flatIterators(iterators);
  flatIterators.erase(flatIterators.begin() + 2);
  Value fillValue;
  if (auto fill = init.getDefiningOp<linalg::FillOp>())
    fillValue = fill.getInputs()[0];
  // Each image's rows: in VMEM, built there from the unpadded input, when
  // they take at most an eighth of it (no padded copy in HBM, and the taps
  // read VMEM); else a slice of the padded input in HBM.
  int64_t imageRowCount = inputType.getDimSize(1) * w;
  auto bytes = [](Type t) -> uint64_t { return t.isBF16() ? 2 : 4; };
  bool inVmem =
      tiling.vmemSpace != 0 &&
      uint64_t(imageRowCount) * c * bytes(inElem) <= tiling.vmemBytes / 8;
  auto imageRows = [&](OpBuilder &b, Location l, Value image) -> Value {
    auto rowsType = RankedTensorType::get({imageRowCount, c}, inElem);
    auto one = b.getIndexAttr(1), zero = b.getIndexAttr(0);
    if (!inVmem)
      return tensor::ExtractSliceOp::create(
          b, l, rowsType, flat, ArrayRef<OpFoldResult>{image, zero, zero},
          ArrayRef<OpFoldResult>{one, b.getIndexAttr(imageRowCount),
                                 b.getIndexAttr(c)},
          ArrayRef<OpFoldResult>{one, one, one});
    return emitImageInVmem(b, l, input, image, rowsType, tiling.vmemSpace);
  };
  if (Value tiled =
          emitTapTiles(rewriter, loc, inElem, imageRows, init, fillValue,
                       window, w, c, tapOf, maps, iterators, combine, tiling,
                       /*flat=*/true))
    return tiled;
  return emitFlatTaps(rewriter, loc, flat, init, fillValue, window, w, c, tapOf,
                      flatMaps, flatIterators, combine);
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
  auto inputType = cast<RankedTensorType>(input.getType());
  if (usesFlatRows(window, inputType)) {
    if (Value flat = emitFlatTapReduce(rewriter, loc, input, init, window, c,
                                       tapOf, maps, iterators, combine, tiling))
      return flat;
  } else if (fitsImageInVmem(window, inputType, tiling)) {
    // Strided (or an output too narrow for flat rows): the image in VMEM,
    // each output row's taps read from it.
    int64_t w = inputType.getDimSize(2);
    auto rowsType = RankedTensorType::get({inputType.getDimSize(1) * w, c},
                                          inputType.getElementType());
    auto imageRows = [&](OpBuilder &b, Location l, Value image) -> Value {
      return emitImageInVmem(b, l, input, image, rowsType, tiling.vmemSpace);
    };
    Value fillValue;
    if (auto fill = init.getDefiningOp<linalg::FillOp>())
      fillValue = fill.getInputs()[0];
    if (Value tiled = emitTapTiles(rewriter, loc, inputType.getElementType(),
                                   imageRows, init, fillValue, window, w, c,
                                   tapOf, maps, iterators, combine, tiling,
                                   /*flat=*/false))
      return tiled;
  }
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
      acc = emitTapOp(rewriter, loc, ins, acc, maps, iterators, combine,
                      bool(tapOf));
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

/// A float pooling window on NHWC (`linalg.pooling_nhwc_max`, `_min`,
/// `_sum`: jax.lax.reduce_window, flax's max_pool and avg_pool; any
/// strides and dilations, static shapes, on tensors) as a reduction of
/// shifted inputs on the VPU, one elementwise maximum, minimum or sum per
/// window tap (emitTapReduce), like a depthwise convolution without
/// weights. `combine` is the pooling's: arith.maximumf, arith.minimumf or
/// arith.addf (pixels narrower than the output widened). Returns whether
/// `pool` was rewritten.
template <typename PoolOp>
bool rewritePooling(IRRewriter &rewriter, PoolOp pool, TapCombiner combine,
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

} // namespace

/// A 2-D convolution (`linalg.conv_2d_nhwc_hwcf`, any strides and
/// dilations, static shapes, on tensors) as a sum of shifted matmuls: for
/// each kernel tap (kh, kw), the input pixels it reads (N x OH x OW x C)
/// times the tap's C x F filter, accumulated into the output
/// (emitTapReduce). Each tap is a contraction whose M loops are (n, oh, ow):
/// accel-tile-linalg runs n and oh as loops of one iteration around an
/// OW x C by C x F matmul on the MXU. Returns whether `conv` was rewritten
/// (not when a type is not static or a tap would read past the input).
bool accel::rewriteConvAsShiftedMatmuls(IRRewriter &rewriter,
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
bool accel::rewriteDepthwiseAsShiftedProducts(
    IRRewriter &rewriter, linalg::DepthwiseConv2DNhwcHwcOp conv,
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

bool accel::rewritePoolingAsShiftedReduce(IRRewriter &rewriter, Operation *pool,
                                          const TapTiling &tiling) {
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
  if (auto p = dyn_cast<linalg::PoolingNhwcMaxOp>(pool))
    return rewritePooling(rewriter, p, maxOf, tiling);
  if (auto p = dyn_cast<linalg::PoolingNhwcMinOp>(pool))
    return rewritePooling(rewriter, p, minOf, tiling);
  if (auto p = dyn_cast<linalg::PoolingNhwcSumOp>(pool))
    return rewritePooling(rewriter, p, sumOf, tiling);
  return false;
}
