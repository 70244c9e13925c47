//===- GatherScalarizer.cpp - A linalg body's values as scalar code -------===//
//
// Gathers.h: accel-lower-gathers computes the indices of a gather (and the
// masks it selects with) in scalar code at the loop indices of a loop
// nest, from the i32 data the scalar core loads.
//
//===----------------------------------------------------------------------===//

#include "Gathers.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/SmallBitVector.h"

using namespace mlir;
using namespace accel;
using namespace accel::gathers;

Value gathers::applyExpr(OpBuilder &b, Location loc, AffineExpr expr,
                         ArrayRef<Value> loops) {
  AffineMap map = AffineMap::get(loops.size(), 0, expr);
  llvm::SmallBitVector unused = getUnusedDimsBitVector({map});
  SmallVector<Value> operands;
  for (auto [d, value] : llvm::enumerate(loops))
    if (!unused.test(d)) {
      if (!value)
        return Value();
      operands.push_back(value);
    }
  return affine::AffineApplyOp::create(b, loc, compressDims(map, unused),
                                       operands);
}

FailureOr<Value> Scalarizer::eval(linalg::GenericOp op, ArrayRef<Value> loops,
                                  Value v, IRMapping &map) {
  if (Value known = map.lookupOrNull(v))
    return known;
  FailureOr<Value> result = evalUncached(op, loops, v, map);
  if (succeeded(result))
    map.map(v, *result);
  return result;
}

FailureOr<Value> Scalarizer::extract(Value t, ArrayRef<Value> indices) {
  auto type = cast<RankedTensorType>(t.getType());
  Operation *def = t.getDefiningOp();
  if (auto producer = dyn_cast_or_null<linalg::GenericOp>(def);
      producer && producer.hasPureTensorSemantics()) {
    AffineMap map = producer.getIndexingMapMatchingResult(cast<OpResult>(t));
    SmallVector<Value> loops(producer.getNumLoops());
    for (auto [pos, expr] : llvm::enumerate(map.getResults())) {
      auto dim = dyn_cast<AffineDimExpr>(expr);
      if (!dim)
        return fail("a value read from a tensor made by a generic whose "
                    "output map is not a permutation");
      loops[dim.getPosition()] = indices[pos];
    }
    SmallVector<int64_t> ranges = producer.getStaticLoopRanges();
    for (auto [l, value] : llvm::enumerate(loops))
      if (!value) {
        // A reduction over one element (a frontend's reduce over a unit
        // dimension) is its body applied once.
        if (ranges[l] != 1)
          return fail("a value read from a reduction over " +
                      std::to_string(ranges[l]) + " elements");
        value = arith::ConstantIndexOp::create(b, loc, 0);
      }
    IRMapping inner;
    Value yielded = producer.getBody()->getTerminator()->getOperand(
        cast<OpResult>(t).getResultNumber());
    return eval(producer, loops, yielded, inner);
  }
  if (auto fill = dyn_cast_or_null<linalg::FillOp>(def))
    return fill.getInputs()[0];
  DenseElementsAttr dense;
  if (matchPattern(t, m_Constant(&dense)) && dense.isSplat())
    return arith::ConstantOp::create(
               b, loc, cast<TypedAttr>(dense.getSplatValue<Attribute>()))
        .getResult();
  if (!type.getElementType().isSignlessInteger(32))
    return fail("the scalar core reads i32 data only, and this reads " +
                typeString(type));
  return tensor::ExtractOp::create(b, loc, t, indices).getResult();
}

FailureOr<SmallVector<Value>> Scalarizer::apply(AffineMap map,
                                                ArrayRef<Value> loops) {
  SmallVector<Value> out;
  for (AffineExpr expr : map.getResults()) {
    if (auto dim = dyn_cast<AffineDimExpr>(expr)) {
      if (!loops[dim.getPosition()]) {
        (void)fail("an index that depends on the innermost loop");
        return failure();
      }
      out.push_back(loops[dim.getPosition()]);
    } else if (auto c = dyn_cast<AffineConstantExpr>(expr)) {
      out.push_back(arith::ConstantIndexOp::create(b, loc, c.getValue()));
    } else {
      Value v = applyExpr(b, loc, expr, loops);
      if (!v) {
        (void)fail("an index that depends on the innermost loop");
        return failure();
      }
      out.push_back(v);
    }
  }
  return out;
}

FailureOr<Value> Scalarizer::evalUncached(linalg::GenericOp op,
                                          ArrayRef<Value> loops, Value v,
                                          IRMapping &map) {
  if (auto arg = dyn_cast<BlockArgument>(v)) {
    if (arg.getOwner() != op.getBody())
      return v;
    OpOperand *operand = op.getMatchingOpOperand(arg);
    FailureOr<SmallVector<Value>> indices =
        apply(op.getMatchingIndexingMap(operand), loops);
    if (failed(indices))
      return failure();
    if (cast<ShapedType>(operand->get().getType()).getRank() == 0)
      return fail("a rank-0 tensor read by scalar code");
    return extract(operand->get(), *indices);
  }
  Operation *def = v.getDefiningOp();
  if (!op->isProperAncestor(def))
    return v;
  if (auto index = dyn_cast<linalg::IndexOp>(def)) {
    if (!loops[index.getDim()])
      return fail("an index that depends on the innermost loop");
    return loops[index.getDim()];
  }
  if (auto read = dyn_cast<tensor::ExtractOp>(def)) {
    SmallVector<Value> indices;
    for (Value index : read.getIndices()) {
      FailureOr<Value> i = eval(op, loops, index, map);
      if (failed(i))
        return failure();
      indices.push_back(*i);
    }
    return extract(read.getTensor(), indices);
  }
  if (def->getNumRegions() || def->getNumResults() != 1 ||
      !isMemoryEffectFree(def))
    return fail("'" + def->getName().getStringRef().str() +
                "' in an index computation");
  for (Value operand : def->getOperands())
    if (failed(eval(op, loops, operand, map)))
      return failure();
  Operation *clone = b.clone(*def, map);
  return clone->getResult(0);
}

FailureOr<Value> Scalarizer::fail(const std::string &why) {
  if (reason.empty())
    reason = why;
  return failure();
}

std::string Scalarizer::typeString(Type t) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << "'" << t << "'";
  return s;
}

Value gathers::withRank(OpBuilder &b, Location loc, Value v, unsigned rank) {
  auto type = cast<RankedTensorType>(v.getType());
  unsigned from = type.getRank();
  if (from == rank)
    return v;
  unsigned wide = std::max(from, rank), narrow = std::min(from, rank);
  SmallVector<ReassociationIndices> groups(1);
  for (unsigned d = 0; d <= wide - narrow; ++d)
    groups[0].push_back(d);
  for (unsigned d = wide - narrow + 1; d < wide; ++d)
    groups.push_back({int64_t(d)});
  SmallVector<int64_t> shape(rank, 1);
  shape.back() = type.getShape().back();
  auto target = RankedTensorType::get(shape, type.getElementType());
  if (from > rank)
    return tensor::CollapseShapeOp::create(b, loc, target, v, groups);
  return tensor::ExpandShapeOp::create(b, loc, target, v, groups);
}
