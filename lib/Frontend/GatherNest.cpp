//===- GatherNest.cpp - The loop nest that fills a gather's tensors -------===//
//
// Gathers.h: accel-lower-gathers fills a tensor for each gathered read and
// mask of a generic in a loop nest in front of it: a DMA per row (along
// the generic's last loop) or per element, at indices the scalar core
// computes (Scalarizer).
//
//===----------------------------------------------------------------------===//

#include "Gathers.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"

using namespace mlir;
using namespace accel;
using namespace accel::gathers;

RankedTensorType gathers::getItemType(linalg::GenericOp op,
                                      const Materialized &item) {
  SmallVector<int64_t> shape = op.getStaticLoopRanges();
  if (item.row && !item.isGather())
    shape.pop_back();
  Type elem = item.isGather() ? item.value.getType()
                              : Float32Type::get(op.getContext());
  return RankedTensorType::get(shape, elem);
}

SmallVector<Value> gathers::createInits(IRRewriter &rewriter, Location loc,
                                        linalg::GenericOp op,
                                        ArrayRef<Materialized> items,
                                        bool inVmem, unsigned vmemSpace) {
  SmallVector<Value> inits;
  for (const Materialized &item : items) {
    RankedTensorType type = getItemType(op, item);
    if (!inVmem) {
      inits.push_back(tensor::EmptyOp::create(rewriter, loc, type.getShape(),
                                              type.getElementType()));
      continue;
    }
    int64_t rank = type.getRank();
    SmallVector<int64_t> flat = {type.getNumElements() / type.getShape().back(),
                                 type.getShape().back()};
    if (rank == 1)
      flat = {type.getShape().back()};
    auto flatType = RankedTensorType::get(flat, type.getElementType());
    auto alloc = bufferization::AllocTensorOp::create(rewriter, loc, flatType,
                                                      ValueRange{});
    alloc.setMemorySpaceAttr(rewriter.getI64IntegerAttr(vmemSpace));
    inits.push_back(alloc);
  }
  return inits;
}

GatherNest::SliceParams GatherNest::getDestination(OpBuilder &b,
                                                   const Materialized &item,
                                                   ArrayRef<Value> loops,
                                                   RankedTensorType intoType) {
  RankedTensorType logical = getItemType(op, item);
  SliceParams slice;
  unsigned rank = slice.rank = logical.getRank();
  for (unsigned d = 0; d < rank; ++d) {
    bool rowDim = item.row && item.isGather() && d == rank - 1;
    slice.offsets.push_back(rowDim ? OpFoldResult(b.getIndexAttr(0))
                                   : OpFoldResult(loops[d]));
    slice.sizes.push_back(b.getIndexAttr(rowDim ? ranges.back() : 1));
    slice.strides.push_back(b.getIndexAttr(1));
  }
  // A flat (2-D) VMEM buffer: the leading offsets linearized.
  if (intoType.getRank() != int64_t(rank)) {
    AffineExpr row = b.getAffineConstantExpr(0);
    int64_t stride = 1;
    for (int64_t d = int64_t(rank) - 2; d >= 0; --d) {
      row = row + b.getAffineDimExpr(d) * stride;
      stride *= logical.getDimSize(d);
    }
    SmallVector<Value> lead(loops.begin(), loops.begin() + rank - 1);
    Value r = affine::AffineApplyOp::create(
        b, loc, AffineMap::get(rank - 1, 0, row), lead);
    slice.offsets = {r, slice.offsets.back()};
    slice.sizes = {b.getIndexAttr(1), slice.sizes.back()};
    slice.strides = {b.getIndexAttr(1), b.getIndexAttr(1)};
    slice.rank = 2;
  }
  return slice;
}

Value GatherNest::extractGathered(OpBuilder &b, const Materialized &item,
                                  tensor::ExtractOp read, ArrayRef<Value> loops,
                                  IRMapping &map) {
  auto srcType = cast<RankedTensorType>(read.getTensor().getType());
  SmallVector<OpFoldResult> srcOffsets, srcSizes, srcStrides;
  for (auto [d, idx] : llvm::enumerate(read.getIndices())) {
    bool rowDim = item.row && d + 1 == read.getIndices().size();
    if (rowDim) {
      srcOffsets.push_back(b.getIndexAttr(0));
    } else {
      FailureOr<Value> v = scalar.eval(op, loops, idx, map);
      if (mlir::failed(v))
        return Value();
      srcOffsets.push_back(*v);
    }
    srcSizes.push_back(b.getIndexAttr(rowDim ? ranges.back() : 1));
    srcStrides.push_back(b.getIndexAttr(1));
  }
  int64_t width = item.row ? ranges.back() : 1;
  if (item.row && !srcType.isDynamicDim(srcType.getRank() - 1) &&
      srcType.getShape().back() < width) {
    scalar.reason = "a row longer than the gathered tensor's";
    return Value();
  }
  SmallVector<int64_t> sliceShape(srcType.getRank(), 1);
  sliceShape.back() = width;
  return tensor::ExtractSliceOp::create(
      b, loc, RankedTensorType::get(sliceShape, srcType.getElementType()),
      read.getTensor(), srcOffsets, srcSizes, srcStrides);
}

Value GatherNest::extractMask(OpBuilder &b, const Materialized &item,
                              ArrayRef<Value> loops, IRMapping &map) {
  FailureOr<Value> bit = scalar.eval(op, loops, item.value, map);
  if (mlir::failed(bit))
    return Value();
  Value at = arith::IndexCastUIOp::create(b, loc, b.getIndexType(), *bit);
  return tensor::ExtractSliceOp::create(
      b, loc, RankedTensorType::get({1}, b.getF32Type()), table01,
      ArrayRef<OpFoldResult>{at}, ArrayRef<OpFoldResult>{b.getIndexAttr(1)},
      ArrayRef<OpFoldResult>{b.getIndexAttr(1)});
}

Value GatherNest::write(OpBuilder &b, unsigned i, ArrayRef<Value> loops,
                        IRMapping &map, Value into) {
  const Materialized &item = items[i];
  SliceParams slice =
      getDestination(b, item, loops, cast<RankedTensorType>(into.getType()));
  Value source;
  if (auto read = item.value.getDefiningOp<tensor::ExtractOp>())
    source = extractGathered(b, item, read, loops, map);
  else
    source = extractMask(b, item, loops, map);
  if (!source) {
    failed = true;
    return into;
  }
  // The slice (unit dimensions, then the row) at the rank of `into`,
  // by folding or adding leading unit dimensions: no rank reduction
  // has to guess which unit dimensions it drops, and the row keeps its
  // unit stride.
  source = withRank(b, loc, source, slice.rank);
  return tensor::InsertSliceOp::create(b, loc, source, into, slice.offsets,
                                       slice.sizes, slice.strides);
}

scf::ValueVector GatherNest::buildBody(OpBuilder &b, ValueRange ivs,
                                       ValueRange args) {
  auto index = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(rewriter, loc, v);
  };
  SmallVector<Value> loops(ivs.begin(), ivs.end());
  loops.push_back(Value()); // the last loop: the row
  IRMapping rowMap;
  SmallVector<Value> results(args.begin(), args.end());
  SmallVector<unsigned> perElement;
  for (unsigned i = 0; i < items.size(); ++i) {
    if (items[i].row)
      results[i] = write(b, i, loops, rowMap, args[i]);
    else
      perElement.push_back(i);
  }
  if (perElement.empty())
    return results;
  SmallVector<Value> innerInits;
  for (unsigned i : perElement)
    innerInits.push_back(results[i]);
  auto inner = innermost = scf::ForOp::create(
      b, loc, index(0), index(ranges.back()), index(1), innerInits,
      [&](OpBuilder &ib, Location, Value iv, ValueRange innerArgs) {
        SmallVector<Value> all = loops;
        all.back() = iv;
        IRMapping elementMap;
        SmallVector<Value> yielded;
        for (auto [k, i] : llvm::enumerate(perElement))
          yielded.push_back(write(ib, i, all, elementMap, innerArgs[k]));
        scf::YieldOp::create(ib, loc, yielded);
      });
  for (auto [k, i] : llvm::enumerate(perElement))
    results[i] = inner.getResult(k);
  return results;
}

scf::LoopNest GatherNest::build(ValueRange inits) {
  auto index = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(rewriter, loc, v);
  };
  SmallVector<Value> lbs, ubs, steps;
  for (unsigned l = 0; l + 1 < op.getNumLoops(); ++l) {
    lbs.push_back(index(0));
    ubs.push_back(index(ranges[l]));
    steps.push_back(index(1));
  }
  return scf::buildLoopNest(rewriter, loc, lbs, ubs, steps, inits,
                            [&](OpBuilder &b, Location, ValueRange ivs,
                                ValueRange args) -> scf::ValueVector {
                              return buildBody(b, ivs, args);
                            });
}
