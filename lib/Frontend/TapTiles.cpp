//===- TapTiles.cpp - A window's taps in tiles of output rows -------------===//
//
// TapTiles.h: the taps of a convolution or pooling window (Windows.cpp) in
// tiles of whole output rows whose accumulator stays in VMEM across the
// taps, each image's pixel rows in VMEM or HBM; one tap's op; an image's
// pixel rows built in VMEM from the unpadded input.
//
//===----------------------------------------------------------------------===//

#include "TapTiles.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

using namespace mlir;
using namespace accel;
using namespace accel::windows;

Value windows::emitTapOp(OpBuilder &b, Location loc, ValueRange ins, Value acc,
                         ArrayRef<AffineMap> maps,
                         ArrayRef<utils::IteratorType> iterators,
                         TapCombiner combine, bool hasTap) {
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

Value windows::emitImageInVmem(OpBuilder &b, Location loc, Value input,
                               Value image, RankedTensorType rowsType,
                               unsigned vmemSpace) {
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

SmallVector<AffineMap> windows::dropLoops(ArrayRef<AffineMap> maps,
                                          const llvm::SmallBitVector &loops,
                                          MLIRContext *ctx) {
  SmallVector<AffineMap> result;
  for (AffineMap map : maps) {
    SmallVector<AffineExpr> results;
    for (AffineExpr e : map.getResults())
      if (llvm::none_of(loops.set_bits(),
                        [&](unsigned l) { return e.isFunctionOfDim(l); }))
        results.push_back(e);
    result.push_back(
        compressDims(AffineMap::get(map.getNumDims(), 0, results, ctx), loops));
  }
  return result;
}

namespace {

/// What the tiles of emitTapTiles share: the element types, the init and
/// the accumulator's start (`fillValue`, or `zeroValue` with the init's
/// rows copied in), the window, the image's width `w` and channels `c`,
/// the output's channels `f`, the accumulator rows of an output row
/// (`pitch`), the taps' weights, the tap op's maps and iterators over (m,
/// rest...), and the form (`flat`: stride 1).
struct TapTileParams {
  Type inElem, outElem;
  Value init, fillValue, zeroValue;
  const ConvWindow &window;
  int64_t w, c, f, pitch;
  TapOf tapOf;
  ArrayRef<AffineMap> tileMaps;
  ArrayRef<utils::IteratorType> tileIterators;
  TapCombiner combine;
  unsigned vmemSpace;
  bool flat;
};

/// One tile of emitTapTiles: `count` output rows from `oh0` of image
/// `image` (whose pixel rows are `pixels`), built with `b` at `l`. Its
/// accumulator (`tile`, rows x F) takes the taps in turn, then its output
/// rows are copied into the result.
class TapTile {
public:
  TapTile(const TapTileParams &p, OpBuilder &b, Location l, Value image,
          Value pixels, Value oh0, int64_t count)
      : p(p), b(b), l(l), image(image), pixels(pixels), oh0(oh0), count(count),
        tileRows(count * p.pitch),
        rowType(RankedTensorType::get({p.window.ow, p.f}, p.outElem)),
        one(b.getIndexAttr(1)), zero(b.getIndexAttr(0)) {}

  /// Emits the tile into `out` (the N x OH x OW x F result so far);
  /// returns the new result.
  Value emit(Value out);

private:
  /// Creates the VMEM accumulator, filled with the fill's value, or with
  /// zero and the init's output rows.
  void startAccumulator();
  /// Combines each tap into the accumulator: one op over the tile's
  /// contiguous rows per tap (flat), else one per tap and output row.
  void combineTaps();
  /// Combines one tap (i, j)'s pixels (`rows` rows from `start`, every
  /// `step`-th) into rows [at, at + rows) of the tile.
  void combineTap(int64_t i, int64_t j, Value start, int64_t rows, int64_t step,
                  int64_t at);
  /// Copies the OW columns of each output row of the tile into `out`;
  /// returns the new result.
  Value copyOut(Value out);

  /// Output row r of the tile in the init and the result: [image, oh0 + r,
  /// 0:OW, :] (its offsets; creates the row's index).
  SmallVector<OpFoldResult> outputRow(int64_t r) {
    Value offset = arith::ConstantIndexOp::create(b, l, r);
    Value oh = arith::AddIOp::create(b, l, oh0, offset);
    return {image, oh, zero, zero};
  }
  /// Output row r of the tile in the accumulator: rows [r*pitch, r*pitch +
  /// OW) (their offsets).
  SmallVector<OpFoldResult> tileRow(int64_t r) {
    return {b.getIndexAttr(r * p.pitch), zero};
  }
  /// The sizes of an output row in the init and the result (1 x 1 x OW x
  /// F), and in the tile (OW x F).
  SmallVector<OpFoldResult> rowSizes() {
    return {one, one, b.getIndexAttr(p.window.ow), b.getIndexAttr(p.f)};
  }
  SmallVector<OpFoldResult> tileRowSizes() {
    return {b.getIndexAttr(p.window.ow), b.getIndexAttr(p.f)};
  }
  SmallVector<OpFoldResult> ones4() { return {one, one, one, one}; }
  SmallVector<OpFoldResult> ones2() { return {one, one}; }

  const TapTileParams &p;
  OpBuilder &b;
  Location l;
  Value image, pixels, oh0;
  int64_t count, tileRows;
  RankedTensorType rowType;
  OpFoldResult one, zero;
  /// The accumulator so far.
  Value tile;
};

} // namespace

void TapTile::startAccumulator() {
  auto tileType = RankedTensorType::get({tileRows, p.f}, p.outElem);
  auto alloc =
      bufferization::AllocTensorOp::create(b, l, tileType, ValueRange{});
  alloc.setMemorySpaceAttr(b.getI64IntegerAttr(p.vmemSpace));
  tile = linalg::FillOp::create(b, l, p.fillValue ? p.fillValue : p.zeroValue,
                                alloc.getResult())
             .getResult(0);
  if (!p.fillValue)
    for (int64_t r = 0; r < count; ++r) {
      Value rowOfInit = tensor::ExtractSliceOp::create(
          b, l, rowType, p.init, outputRow(r), rowSizes(), ones4());
      tile = tensor::InsertSliceOp::create(b, l, rowOfInit, tile, tileRow(r),
                                           tileRowSizes(), ones2());
    }
}

void TapTile::combineTap(int64_t i, int64_t j, Value start, int64_t rows,
                         int64_t step, int64_t at) {
  auto pixelsType = RankedTensorType::get({rows, p.c}, p.inElem);
  SmallVector<Value> ins = {tensor::ExtractSliceOp::create(
      b, l, pixelsType, pixels, ArrayRef<OpFoldResult>{start, zero},
      ArrayRef<OpFoldResult>{b.getIndexAttr(rows), b.getIndexAttr(p.c)},
      ArrayRef<OpFoldResult>{b.getIndexAttr(step), one})};
  if (p.tapOf)
    ins.push_back(p.tapOf(i, j));
  auto partType = RankedTensorType::get({rows, p.f}, p.outElem);
  bool whole = rows == tileRows;
  SmallVector<OpFoldResult> partAt = {b.getIndexAttr(at), zero};
  SmallVector<OpFoldResult> partSizes = {b.getIndexAttr(rows),
                                         b.getIndexAttr(p.f)};
  Value part = whole ? tile
                     : tensor::ExtractSliceOp::create(
                           b, l, partType, tile, partAt, partSizes, ones2())
                           .getResult();
  Value combined = emitTapOp(b, l, ins, part, p.tileMaps, p.tileIterators,
                             p.combine, bool(p.tapOf));
  tile = whole ? combined
               : tensor::InsertSliceOp::create(b, l, combined, tile, partAt,
                                               partSizes, ones2())
                     .getResult();
}

void TapTile::combineTaps() {
  const ConvWindow &window = p.window;
  Value width = arith::ConstantIndexOp::create(b, l, p.w);
  Value m0 = arith::MulIOp::create(b, l, oh0, width);
  for (int64_t i = 0; i < window.kh; ++i)
    for (int64_t j = 0; j < window.kw; ++j) {
      if (p.flat) {
        // The tile's rows from oh0*W + the tap's offset, contiguous.
        int64_t offset = i * window.dilation[0] * p.w + j * window.dilation[1];
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
        combineTap(i, j, start, window.ow, window.stride[1], r * p.pitch);
      }
    }
}

Value TapTile::copyOut(Value out) {
  for (int64_t r = 0; r < count; ++r) {
    Value rowOfTile = tensor::ExtractSliceOp::create(
        b, l, rowType, tile, tileRow(r), tileRowSizes(), ones2());
    SmallVector<OpFoldResult> at = outputRow(r);
    Value dst = tensor::ExtractSliceOp::create(b, l, rowType, out, at,
                                               rowSizes(), ones4());
    Value copied = linalg::CopyOp::create(b, l, rowOfTile, dst).getResult(0);
    out = tensor::InsertSliceOp::create(b, l, copied, out, at, rowSizes(),
                                        ones4());
  }
  return out;
}

Value TapTile::emit(Value out) {
  startAccumulator();
  combineTaps();
  return copyOut(out);
}

/// The output rows of a tile of emitTapTiles (`pitch` accumulator rows
/// each): as many as `tiling.rows` holds, at most OH, and one when not
/// `flat`; or 0 when `tiling.vmemSpace` is 0, an output row is longer than
/// a tile, or a tile's accumulator (F channels of `outElem`), pixels (C of
/// `inElem`) and tap (C x F f32) take more than a quarter of VMEM.
static int64_t getTileOutputRows(const ConvWindow &window, int64_t pitch,
                                 int64_t c, int64_t f, Type inElem,
                                 Type outElem, const TapTiling &tiling,
                                 bool flat) {
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
    return 0;
  return perTile;
}

/// The loops of emitTapTiles: over the images, and in each over its tiles
/// of `perTile` output rows (a last, shorter tile after the loop when OH
/// is not a multiple), into a new N x OH x OW x F tensor of `initType`;
/// returns the result.
static Value emitTileLoops(IRRewriter &rewriter, Location loc,
                           const TapTileParams &p, RankedTensorType initType,
                           ImageRows imageRows, int64_t perTile) {
  const ConvWindow &window = p.window;
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
      tensor::EmptyOp::create(rewriter, loc, initType.getShape(), p.outElem);
  auto loop = scf::ForOp::create(
      rewriter, loc, zeroIndex, images, oneIndex, ValueRange{out0},
      [&](OpBuilder &b, Location l, Value image, ValueRange iter) {
        Value pixels = imageRows(b, l, image);
        auto tiles = scf::ForOp::create(
            b, l, zeroIndex, wholeRows, step, ValueRange{iter[0]},
            [&](OpBuilder &bb, Location ll, Value oh0, ValueRange it) {
              TapTile tile(p, bb, ll, image, pixels, oh0, perTile);
              scf::YieldOp::create(bb, ll, tile.emit(it[0]));
            });
        Value out = tiles.getResult(0);
        if (rest)
          out = TapTile(p, b, l, image, pixels, wholeRows, rest).emit(out);
        scf::YieldOp::create(b, l, out);
      });
  return loop.getResult(0);
}

Value windows::emitTapTiles(IRRewriter &rewriter, Location loc, Type inElem,
                            ImageRows imageRows, Value init, Value fillValue,
                            const ConvWindow &window, int64_t w, int64_t c,
                            TapOf tapOf, ArrayRef<AffineMap> maps,
                            ArrayRef<utils::IteratorType> iterators,
                            TapCombiner combine, const TapTiling &tiling,
                            bool flat) {
  auto initType = cast<RankedTensorType>(init.getType());
  Type outElem = initType.getElementType();
  int64_t f = initType.getDimSize(3);
  // Flat (stride 1): an output row is W rows of the accumulator (OW
  // wanted), and a tap reads the tile's rows as one contiguous run.
  // Otherwise an output row is OW rows, and a tap reads each output row's
  // pixels, every stride-th.
  int64_t pitch = flat ? w : window.ow;
  int64_t perTile =
      getTileOutputRows(window, pitch, c, f, inElem, outElem, tiling, flat);
  if (perTile == 0)
    return Value();
  // Each map over (n, oh, ow, rest) as one over (m, rest): m is the
  // flattened (oh, ow) for stride 1, ow otherwise.
  unsigned gone = flat ? 2 : 1;
  llvm::SmallBitVector dropped(maps.front().getNumDims());
  dropped.set(0);
  dropped.set(gone);
  SmallVector<AffineMap> tileMaps =
      dropLoops(maps, dropped, rewriter.getContext());
  SmallVector<utils::IteratorType> tileIterators;
  for (auto [l, it] : llvm::enumerate(iterators))
    if (!dropped.test(l))
      tileIterators.push_back(it);
  Value zeroValue = arith::ConstantOp::create(
      rewriter, loc, cast<TypedAttr>(rewriter.getZeroAttr(outElem)));
  TapTileParams params{inElem,
                       outElem,
                       init,
                       fillValue,
                       zeroValue,
                       window,
                       w,
                       c,
                       f,
                       pitch,
                       tapOf,
                       tileMaps,
                       tileIterators,
                       combine,
                       tiling.vmemSpace,
                       flat};
  return emitTileLoops(rewriter, loc, params, initType, imageRows, perTile);
}
