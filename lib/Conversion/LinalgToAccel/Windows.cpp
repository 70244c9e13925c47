//===- Windows.cpp - Convolution and pooling windows as tap sums ----------===//
//
// Windows.h; Passes.td, accel-decompose-linalg: a window op is a sum over
// its kernel taps of the input pixels each tap reads; with stride 1 the
// pixels are flattened rows of each image (built in VMEM when it fits) and
// the sum runs in tiles of whole output rows with a VMEM accumulator.
//
//===----------------------------------------------------------------------===//

#include "Windows.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "llvm/ADT/SmallBitVector.h"

using namespace mlir;
using namespace accel;

namespace {

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

/// One tap of a window: `combine(pixels, tap, acc)` elementwise over
/// `ins` (the pixels, then the tap's weights when `hasTap`) into `acc`, a
/// linalg.generic with `maps` and `iterators`; returns its result.
Value emitTapOp(OpBuilder &b, Location loc, ValueRange ins, Value acc,
                ArrayRef<AffineMap> maps,
                ArrayRef<utils::IteratorType> iterators, TapCombiner combine,
                bool hasTap) {
  return linalg::GenericOp::create(
             b, loc, TypeRange{acc.getType()}, ins, ValueRange{acc}, maps,
             iterators,
             [&](OpBuilder &bb, Location l, ValueRange args) {
               Value tap = hasTap ? args[1] : Value();
               linalg::YieldOp::create(
                   bb, l, combine(bb, l, args[0], tap, args.back()));
             })
      .getResult(0);
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

/// Image `image` of `input` (N x H x W x C, static) as its H*W rows of C
/// in a new VMEM tensor of `rowsType` (rows x C, rows >= H*W; memory space
/// `vmemSpace`). When `input` is a tensor.pad with a constant value and
/// static pads that leave N and C alone (the frontend's halo), the tensor
/// is filled with that value and the unpadded rows go in at their places
/// (one copy per input row, or one for the whole image when W is not
/// padded), so the padded image never exists in HBM; otherwise the rows
/// are copied as they are (one copy) and any rows past them are zero.
Value emitImageInVmem(OpBuilder &b, Location loc, Value input, Value image,
                      RankedTensorType rowsType, unsigned vmemSpace) {
  auto inputType = cast<RankedTensorType>(input.getType());
  int64_t wp = inputType.getDimSize(2), c = inputType.getDimSize(3);
  Type elem = inputType.getElementType();
  auto alloc =
      bufferization::AllocTensorOp::create(b, loc, rowsType, ValueRange{});
  alloc.setMemorySpaceAttr(b.getI64IntegerAttr(vmemSpace));
  Value source = input, padValue;
  int64_t lowH = 0, lowW = 0;
  if (auto pad = input.getDefiningOp<tensor::PadOp>()) {
    // Static pads of 0 or more (tensor.pad also takes negative ones, a
    // crop, which this does not place).
    SmallVector<int64_t> low, high;
    auto staticPads = [](ArrayRef<OpFoldResult> pads,
                         SmallVector<int64_t> &out) {
      for (OpFoldResult v : pads) {
        std::optional<int64_t> size = getConstantIntValue(v);
        if (!size || *size < 0)
          return false;
        out.push_back(*size);
      }
      return true;
    };
    bool constant = pad.getConstantPaddingValue() &&
                    staticPads(pad.getMixedLowPad(), low) &&
                    staticPads(pad.getMixedHighPad(), high);
    if (constant && low[0] == 0 && high[0] == 0 && low[3] == 0 &&
        high[3] == 0 && pad.getSourceType().hasStaticShape()) {
      source = pad.getSource();
      padValue = pad.getConstantPaddingValue();
      lowH = low[1];
      lowW = low[2];
    }
  }
  if (!padValue)
    padValue =
        arith::ConstantOp::create(b, loc, cast<TypedAttr>(b.getZeroAttr(elem)));
  Value rows =
      linalg::FillOp::create(b, loc, padValue, alloc.getResult()).getResult(0);
  auto sourceType = cast<RankedTensorType>(source.getType());
  int64_t h = sourceType.getDimSize(1), w = sourceType.getDimSize(2);
  auto one = b.getIndexAttr(1), zero = b.getIndexAttr(0);
  SmallVector<OpFoldResult> ones4 = {one, one, one, one}, ones2 = {one, one};
  // Rows [h0, h0 + count) of the source image, each w x c, as count*w rows.
  auto copyRows = [&](int64_t h0, int64_t count, int64_t at) {
    auto pieceType = RankedTensorType::get({1, count, w, c}, elem);
    Value piece = tensor::ExtractSliceOp::create(
        b, loc, pieceType, source,
        ArrayRef<OpFoldResult>{image, b.getIndexAttr(h0), zero, zero},
        ArrayRef<OpFoldResult>{one, b.getIndexAttr(count), b.getIndexAttr(w),
                               b.getIndexAttr(c)},
        ones4);
    Value flatPiece = tensor::CollapseShapeOp::create(
        b, loc, RankedTensorType::get({count * w, c}, elem), piece,
        ArrayRef<ReassociationIndices>{{0, 1, 2}, {3}});
    rows = tensor::InsertSliceOp::create(
        b, loc, flatPiece, rows,
        ArrayRef<OpFoldResult>{b.getIndexAttr(at), zero},
        ArrayRef<OpFoldResult>{b.getIndexAttr(count * w), b.getIndexAttr(c)},
        ones2);
  };
  if (w == wp)
    copyRows(0, h, lowH * wp);
  else
    for (int64_t r = 0; r < h; ++r)
      copyRows(r, 1, (r + lowH) * wp + lowW);
  return rows;
}

/// The pixel rows (rows x C) of one image of a flattened input, built at
/// the builder's insertion point inside the loop over images.
using ImageRows = function_ref<Value(OpBuilder &, Location, Value image)>;

/// The taps of emitTapReduce in tiles of whole output rows, for each image
/// n (its pixel rows `imageRows(n)`: H*W (+ extra) x C, the image in VMEM
/// or a slice of the flattened input in HBM). With `flat` (stride 1), an
/// output row is W accumulator rows (OW wanted, W - OW read across the
/// row's end) and a tile of R = `tiling.rows` / W output rows takes one op
/// per tap over its R*W contiguous pixel rows from oh0*W + the tap's
/// offset; otherwise an output row is OW accumulator rows, a tile one
/// output row, and each tap reads that row's pixels (image row oh*sh +
/// i*dh, every sw-th pixel from j*dw) as strided rows. The accumulator
/// tile is in VMEM (a `bufferization.alloc_tensor` in `tiling.vmemSpace`):
/// it starts at `fillValue`, or at zero with the init's rows of OW copied
/// in, takes every tap in turn (`combine`), and its output rows' OW
/// columns are copied into the N x OH x OW x F result. So a convolution's
/// accumulator leaves VMEM once per tile instead of going through HBM once
/// per tap, its matmuls run back to back, and the result is as dense as
/// `init`. `maps` and `iterators` are over (n, oh, ow, rest...). Returns
/// the result, or null (nothing created) when `tiling.vmemSpace` is 0, an
/// output row is longer than a tile, or a tile's accumulator, pixels and
/// tap take more than a quarter of VMEM.
// Long: the tile's IR (init rows in, taps, rows out) and the loops over
// images and tiles share its index arithmetic; split, they would pass a
// dozen values between them.
Value emitTapTiles(IRRewriter &rewriter, Location loc, Type inElem,
                   ImageRows imageRows, Value init, Value fillValue,
                   const ConvWindow &window, int64_t w, int64_t c,
                   function_ref<Value(int64_t, int64_t)> tapOf,
                   ArrayRef<AffineMap> maps,
                   ArrayRef<utils::IteratorType> iterators, TapCombiner combine,
                   const TapTiling &tiling, bool flat) {
  auto initType = cast<RankedTensorType>(init.getType());
  Type outElem = initType.getElementType();
  int64_t f = initType.getDimSize(3);
  // Flat (stride 1): an output row is W rows of the accumulator (OW
  // wanted), and a tap reads the tile's rows as one contiguous run.
  // Otherwise an output row is OW rows, and a tap reads each output row's
  // pixels, every stride-th.
  int64_t pitch = flat ? w : window.ow;
  int64_t perTile = std::min(tiling.rows / pitch, window.oh);
  // Strided, each output row is an op per tap: one row per tile keeps a
  // tile's straight-line code (and the scalar registers its views take,
  // which the lowering does not spill) as short as a stride-1 tile's.
  if (!flat)
    perTile = std::min<int64_t>(perTile, 1);
  auto bytes = [](Type t) -> uint64_t { return t.isBF16() ? 2 : 4; };
  uint64_t size = uint64_t(std::max<int64_t>(perTile, 0)) * pitch;
  uint64_t footprint = size * f * bytes(outElem) + size * c * bytes(inElem) +
                       uint64_t(c) * f * 4;
  if (tiling.vmemSpace == 0 || perTile < 1 || footprint > tiling.vmemBytes / 4)
    return Value();
  // Each map over (n, oh, ow, rest) as one over (m, rest): m is the
  // flattened (oh, ow) for stride 1, ow otherwise.
  unsigned gone = flat ? 2 : 1;
  llvm::SmallBitVector dropped(maps.front().getNumDims());
  dropped.set(0);
  dropped.set(gone);
  SmallVector<AffineMap> tileMaps;
  for (AffineMap map : maps) {
    SmallVector<AffineExpr> results;
    for (AffineExpr e : map.getResults())
      if (!e.isFunctionOfDim(0) && !e.isFunctionOfDim(gone))
        results.push_back(e);
    tileMaps.push_back(compressDims(
        AffineMap::get(map.getNumDims(), 0, results, rewriter.getContext()),
        dropped));
  }
  SmallVector<utils::IteratorType> tileIterators;
  for (auto [l, it] : llvm::enumerate(iterators))
    if (!dropped.test(l))
      tileIterators.push_back(it);
  auto one = rewriter.getIndexAttr(1), zero = rewriter.getIndexAttr(0);
  Value zeroValue = arith::ConstantOp::create(
      rewriter, loc, cast<TypedAttr>(rewriter.getZeroAttr(outElem)));
  // The tile of `count` output rows from `oh0` of `image` into `out` (the
  // N x OH x OW x F result so far); returns the new result.
  auto emitTile = [&](OpBuilder &b, Location l, Value image, Value pixels,
                      Value oh0, int64_t count, Value out) -> Value {
    int64_t tileRows = count * pitch;
    auto tileType = RankedTensorType::get({tileRows, f}, outElem);
    auto rowType = RankedTensorType::get({window.ow, f}, outElem);
    auto alloc =
        bufferization::AllocTensorOp::create(b, l, tileType, ValueRange{});
    alloc.setMemorySpaceAttr(b.getI64IntegerAttr(tiling.vmemSpace));
    Value tile = linalg::FillOp::create(b, l, fillValue ? fillValue : zeroValue,
                                        alloc.getResult())
                     .getResult(0);
    // Output row r of the tile: rows [r*pitch, r*pitch + OW) of the
    // accumulator, [image, oh0 + r, 0:OW, :] of the init and of the result.
    auto outputRow = [&](int64_t r) -> SmallVector<OpFoldResult> {
      Value offset = arith::ConstantIndexOp::create(b, l, r);
      Value oh = arith::AddIOp::create(b, l, oh0, offset);
      return {image, oh, zero, zero};
    };
    SmallVector<OpFoldResult> rowSizes = {one, one, b.getIndexAttr(window.ow),
                                          b.getIndexAttr(f)};
    SmallVector<OpFoldResult> ones4 = {one, one, one, one}, ones2 = {one, one};
    auto tileRow = [&](int64_t r) -> SmallVector<OpFoldResult> {
      return {b.getIndexAttr(r * pitch), zero};
    };
    SmallVector<OpFoldResult> tileRowSizes = {b.getIndexAttr(window.ow),
                                              b.getIndexAttr(f)};
    if (!fillValue)
      for (int64_t r = 0; r < count; ++r) {
        Value rowOfInit = tensor::ExtractSliceOp::create(
            b, l, rowType, init, outputRow(r), rowSizes, ones4);
        tile = tensor::InsertSliceOp::create(b, l, rowOfInit, tile, tileRow(r),
                                             tileRowSizes, ones2);
      }
    // Combines one tap's pixels (`rows` rows from `start`, every `step`-th)
    // into rows [at, at + rows) of the tile.
    auto combineTap = [&](int64_t i, int64_t j, Value start, int64_t rows,
                          int64_t step, int64_t at) {
      auto pixelsType = RankedTensorType::get({rows, c}, inElem);
      SmallVector<Value> ins = {tensor::ExtractSliceOp::create(
          b, l, pixelsType, pixels, ArrayRef<OpFoldResult>{start, zero},
          ArrayRef<OpFoldResult>{b.getIndexAttr(rows), b.getIndexAttr(c)},
          ArrayRef<OpFoldResult>{b.getIndexAttr(step), one})};
      if (tapOf)
        ins.push_back(tapOf(i, j));
      auto partType = RankedTensorType::get({rows, f}, outElem);
      bool whole = rows == tileRows;
      SmallVector<OpFoldResult> partAt = {b.getIndexAttr(at), zero};
      SmallVector<OpFoldResult> partSizes = {b.getIndexAttr(rows),
                                             b.getIndexAttr(f)};
      Value part = whole ? tile
                         : tensor::ExtractSliceOp::create(
                               b, l, partType, tile, partAt, partSizes, ones2)
                               .getResult();
      Value combined = emitTapOp(b, l, ins, part, tileMaps, tileIterators,
                                 combine, bool(tapOf));
      tile = whole ? combined
                   : tensor::InsertSliceOp::create(b, l, combined, tile, partAt,
                                                   partSizes, ones2)
                         .getResult();
    };
    Value width = arith::ConstantIndexOp::create(b, l, w);
    Value m0 = arith::MulIOp::create(b, l, oh0, width);
    for (int64_t i = 0; i < window.kh; ++i)
      for (int64_t j = 0; j < window.kw; ++j) {
        if (flat) {
          // The tile's rows from oh0*W + the tap's offset, contiguous.
          int64_t offset = i * window.dilation[0] * w + j * window.dilation[1];
          Value shift = arith::ConstantIndexOp::create(b, l, offset);
          Value start = arith::AddIOp::create(b, l, m0, shift);
          combineTap(i, j, start, tileRows, 1, 0);
          continue;
        }
        // Output row oh reads image row oh*sh + i*dh, pixels from j*dw on,
        // every sw-th.
        Value strideH = arith::ConstantIndexOp::create(b, l, window.stride[0]);
        Value rowShift =
            arith::ConstantIndexOp::create(b, l, i * window.dilation[0]);
        Value pixelShift =
            arith::ConstantIndexOp::create(b, l, j * window.dilation[1]);
        for (int64_t r = 0; r < count; ++r) {
          Value offset = arith::ConstantIndexOp::create(b, l, r);
          Value oh = arith::AddIOp::create(b, l, oh0, offset);
          Value scaled = arith::MulIOp::create(b, l, oh, strideH);
          Value imageRow = arith::AddIOp::create(b, l, scaled, rowShift);
          Value rowStart = arith::MulIOp::create(b, l, imageRow, width);
          Value start = arith::AddIOp::create(b, l, rowStart, pixelShift);
          combineTap(i, j, start, window.ow, window.stride[1], r * pitch);
        }
      }
    for (int64_t r = 0; r < count; ++r) {
      Value rowOfTile = tensor::ExtractSliceOp::create(
          b, l, rowType, tile, tileRow(r), tileRowSizes, ones2);
      SmallVector<OpFoldResult> at = outputRow(r);
      Value dst = tensor::ExtractSliceOp::create(b, l, rowType, out, at,
                                                 rowSizes, ones4);
      Value copied = linalg::CopyOp::create(b, l, rowOfTile, dst).getResult(0);
      out =
          tensor::InsertSliceOp::create(b, l, copied, out, at, rowSizes, ones4);
    }
    return out;
  };
  int64_t whole = window.oh / perTile, rest = window.oh % perTile;
  // Constants made one by one: the order of IR built in arguments is
  // unspecified (utils/check-eval-order.py).
  Value zeroIndex = arith::ConstantIndexOp::create(rewriter, loc, 0);
  Value oneIndex = arith::ConstantIndexOp::create(rewriter, loc, 1);
  Value images = arith::ConstantIndexOp::create(rewriter, loc, window.n);
  Value wholeRows =
      arith::ConstantIndexOp::create(rewriter, loc, whole * perTile);
  Value step = arith::ConstantIndexOp::create(rewriter, loc, perTile);
  Value out0 =
      tensor::EmptyOp::create(rewriter, loc, initType.getShape(), outElem);
  auto loop = scf::ForOp::create(
      rewriter, loc, zeroIndex, images, oneIndex, ValueRange{out0},
      [&](OpBuilder &b, Location l, Value image, ValueRange iter) {
        Value pixels = imageRows(b, l, image);
        auto tiles = scf::ForOp::create(
            b, l, zeroIndex, wholeRows, step, ValueRange{iter[0]},
            [&](OpBuilder &bb, Location ll, Value oh0, ValueRange it) {
              scf::YieldOp::create(
                  bb, ll, emitTile(bb, ll, image, pixels, oh0, perTile, it[0]));
            });
        Value out = tiles.getResult(0);
        if (rest)
          out = emitTile(b, l, image, pixels, wholeRows, rest, out);
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
// Long: the input growth, the map rewriting and both forms (tiles or one
// op per tap) share the flattened shapes computed at its top.
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
