//===- LowerGathers.cpp - data-dependent reads as scalar code and DMAs ----===//
//
// Passes.td, accel-lower-gathers: a linalg.generic whose body reads a
// tensor at indices computed from data (an embedding lookup, a gather) or
// selects with a mask computed from integer data gets those values from a
// loop nest of scalar code and DMAs in front of it, and becomes an
// elementwise generic the VPU runs.
//
//===----------------------------------------------------------------------===//

#include "accel/Conversion/Passes.h"
#include "accel/Support/PassOptions.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/ADT/SmallBitVector.h"

namespace accel {
#define GEN_PASS_DEF_ACCELLOWERGATHERS
#include "accel/Conversion/Passes.h.inc"
} // namespace accel

using namespace mlir;

namespace {

/// Marks the outermost loop of a gather nest whose copies fill VMEM.
constexpr llvm::StringLiteral kGatherAttr = "accel.gather";

/// How a value of a generic's body can be computed.
enum class Source {
  /// Defined outside the body (constants) or from the loop indices only.
  Uniform,
  /// From float operands: the VPU computes it.
  Vector,
  /// From integer data (an i32 operand, a tensor.extract): the scalar core
  /// computes it, element by element.
  Scalar,
  /// Both: no unit can compute it.
  Mixed,
};

Source join(Source a, Source b) {
  if (a == b || b == Source::Uniform)
    return a;
  if (a == Source::Uniform)
    return b;
  return Source::Mixed;
}

/// Classifies the values of one generic's body, and whether each depends
/// on the generic's last loop.
class BodyInfo {
public:
  explicit BodyInfo(linalg::GenericOp op) : op(op) {}

  Source source(Value v) { return get(v).first; }
  bool usesLastLoop(Value v) { return get(v).second; }

private:
  std::pair<Source, bool> get(Value v) {
    auto it = memo.find(v);
    if (it != memo.end())
      return it->second;
    std::pair<Source, bool> result{Source::Uniform, false};
    unsigned last = op.getNumLoops() - 1;
    if (auto arg = dyn_cast<BlockArgument>(v)) {
      if (arg.getOwner() == op.getBody()) {
        OpOperand *operand = op.getMatchingOpOperand(arg);
        bool isFloat = isa<FloatType>(arg.getType());
        result.first = isFloat ? Source::Vector : Source::Scalar;
        result.second =
            op.getMatchingIndexingMap(operand).isFunctionOfDim(last);
      }
    } else if (Operation *def = v.getDefiningOp();
               def && op->isProperAncestor(def)) {
      if (auto index = dyn_cast<linalg::IndexOp>(def)) {
        result.second = index.getDim() == last;
      } else if (auto extract = dyn_cast<tensor::ExtractOp>(def)) {
        // A read at computed indices: a scalar load or a gathered element.
        result.first = Source::Scalar;
        for (Value index : extract.getIndices())
          result.second |= usesLastLoop(index);
      } else {
        bool isFloat = llvm::any_of(def->getResultTypes(),
                                    [](Type t) { return isa<FloatType>(t); });
        for (Value operand : def->getOperands()) {
          auto [s, l] = get(operand);
          result.first = join(result.first, s);
          result.second |= l;
        }
        // Float arithmetic on values the scalar core made: the VPU reads
        // them from the tiles this pass materializes.
        if (isFloat && result.first == Source::Scalar)
          result.first = Source::Mixed;
      }
    }
    memo[v] = result;
    return result;
  }

  linalg::GenericOp op;
  DenseMap<Value, std::pair<Source, bool>> memo;
};

/// `expr` (over `loops.size()` loop indices) as an affine.apply of the
/// loop values it uses only; null when one of them is null.
Value applyExpr(OpBuilder &b, Location loc, AffineExpr expr,
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

/// Builds scalar code that computes values of linalg bodies at given loop
/// indices: block arguments become reads of their operands, and reads of
/// tensors that elementwise generics (or fills, or splat constants) compute
/// are computed again from those generics' inputs, down to the i32 data
/// the scalar core loads (tensor.extract of a function argument or a
/// constant).
class Scalarizer {
public:
  Scalarizer(OpBuilder &b, Location loc) : b(b), loc(loc) {}

  /// The value `v` of `op`'s body when its loops have the values `loops`
  /// (index values; null for a loop the value does not depend on). Fails
  /// with `reason` set when the value cannot be computed by scalar code.
  FailureOr<Value> eval(linalg::GenericOp op, ArrayRef<Value> loops, Value v,
                        IRMapping &map) {
    if (Value known = map.lookupOrNull(v))
      return known;
    FailureOr<Value> result = evalUncached(op, loops, v, map);
    if (succeeded(result))
      map.map(v, *result);
    return result;
  }

  /// The element `t[indices]` as scalar code.
  FailureOr<Value> extract(Value t, ArrayRef<Value> indices) {
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

  /// Loop values for `map`'s results (indices of an operand).
  FailureOr<SmallVector<Value>> apply(AffineMap map, ArrayRef<Value> loops) {
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

  std::string reason;

private:
  FailureOr<Value> evalUncached(linalg::GenericOp op, ArrayRef<Value> loops,
                                Value v, IRMapping &map) {
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

  FailureOr<Value> fail(const std::string &why) {
    if (reason.empty())
      reason = why;
    return failure();
  }

  static std::string typeString(Type t) {
    std::string s;
    llvm::raw_string_ostream os(s);
    os << "'" << t << "'";
    return s;
  }

  OpBuilder &b;
  Location loc;
};

/// `v` (shape [1, ..., 1, w]) reshaped to rank `rank` ([1, ..., 1, w]) by
/// folding or adding leading unit dimensions.
Value withRank(OpBuilder &b, Location loc, Value v, unsigned rank) {
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

/// One tensor the loop nest makes for the generic: the elements a gathered
/// read returns, or a mask as 0.0/1.0.
struct Materialized {
  /// The tensor.extract (a gather) or the i1 value (a mask).
  Value value;
  /// Whether one DMA moves a row along the generic's last loop (else one
  /// element per DMA, inside a loop over the last dimension).
  bool row;
  bool isGather() const {
    return isa_and_nonnull<tensor::ExtractOp>(value.getDefiningOp());
  }
};

/// `expr` as coefficients of the loop indices and a constant (the last
/// entry), or nullopt when it is not linear (mod, floordiv, ceildiv).
std::optional<SmallVector<int64_t>> getLinearForm(AffineExpr expr,
                                                  unsigned numDims) {
  SmallVector<int64_t> form(numDims + 1, 0);
  if (auto dim = dyn_cast<AffineDimExpr>(expr)) {
    form[dim.getPosition()] = 1;
    return form;
  }
  if (auto constant = dyn_cast<AffineConstantExpr>(expr)) {
    form.back() = constant.getValue();
    return form;
  }
  auto bin = dyn_cast<AffineBinaryOpExpr>(expr);
  if (!bin)
    return std::nullopt;
  std::optional<SmallVector<int64_t>> lhs =
      getLinearForm(bin.getLHS(), numDims);
  std::optional<SmallVector<int64_t>> rhs =
      getLinearForm(bin.getRHS(), numDims);
  if (!lhs || !rhs)
    return std::nullopt;
  if (expr.getKind() == AffineExprKind::Add) {
    for (unsigned k = 0; k <= numDims; ++k)
      form[k] = (*lhs)[k] + (*rhs)[k];
    return form;
  }
  auto factor = dyn_cast<AffineConstantExpr>(bin.getRHS());
  if (expr.getKind() != AffineExprKind::Mul || !factor)
    return std::nullopt;
  for (unsigned k = 0; k <= numDims; ++k)
    form[k] = (*lhs)[k] * factor.getValue();
  return form;
}

/// Whether the tile pipeline reads an operand through `expr` (a result of
/// its indexing map over `numDims` loops) as a subview: linear with
/// non-negative coefficients, and for the last (lane) dimension with a
/// loop of coefficient 1 among them (a DMA moves rows of unit innermost
/// stride) or none. A reversal (`127 - d1`), a lane stride (`2 * d1`), a
/// `mod` are not.
bool isTileable(AffineExpr expr, unsigned numDims, bool lane) {
  std::optional<SmallVector<int64_t>> form = getLinearForm(expr, numDims);
  if (!form)
    return false;
  ArrayRef<int64_t> coefficients = ArrayRef<int64_t>(*form).drop_back();
  if (llvm::any_of(coefficients, [](int64_t c) { return c < 0; }))
    return false;
  return !lane || llvm::is_contained(coefficients, 1) ||
         llvm::all_of(coefficients, [](int64_t c) { return c == 0; });
}

/// `op` with each float input whose indexing map the tile pipeline cannot
/// read (a reversal `127 - d1`, a lane stride `2 * d1`, a `mod`) read by a
/// tensor.extract in the body at the map's indices instead, which the
/// gather lowering then makes DMAs of; `op` itself when there is none.
linalg::GenericOp readAsExtracts(IRRewriter &rewriter, linalg::GenericOp op) {
  SmallVector<unsigned> moved;
  for (OpOperand *in : op.getDpsInputOperands()) {
    AffineMap map = op.getMatchingIndexingMap(in);
    if (!isa<FloatType>(getElementTypeOrSelf(in->get().getType())) ||
        map.getNumResults() == 0)
      continue;
    bool tileable = true;
    for (auto [i, expr] : llvm::enumerate(map.getResults()))
      tileable &=
          isTileable(expr, map.getNumDims(), i + 1 == map.getNumResults());
    if (!tileable)
      moved.push_back(in->getOperandNumber());
  }
  if (moved.empty())
    return op;
  Location loc = op.getLoc();
  Block *body = op.getBody();
  rewriter.setInsertionPointToStart(body);
  SmallVector<Value> loops;
  for (unsigned l = 0; l < op.getNumLoops(); ++l)
    loops.push_back(linalg::IndexOp::create(rewriter, loc, l));
  for (unsigned number : moved) {
    OpOperand &in = op->getOpOperand(number);
    AffineMap map = op.getMatchingIndexingMap(&in);
    SmallVector<Value> indices;
    for (AffineExpr expr : map.getResults()) {
      if (auto dim = dyn_cast<AffineDimExpr>(expr))
        indices.push_back(loops[dim.getPosition()]);
      else
        indices.push_back(applyExpr(rewriter, loc, expr, loops));
    }
    Value read = tensor::ExtractOp::create(rewriter, loc, in.get(), indices);
    rewriter.replaceAllUsesWith(body->getArgument(number), read);
  }
  // The same op without those inputs.
  SmallVector<Value> inputs;
  SmallVector<AffineMap> maps;
  for (OpOperand *in : op.getDpsInputOperands())
    if (!llvm::is_contained(moved, in->getOperandNumber())) {
      inputs.push_back(in->get());
      maps.push_back(op.getMatchingIndexingMap(in));
    }
  for (OpOperand &out : op.getDpsInitsMutable())
    maps.push_back(op.getMatchingIndexingMap(&out));
  rewriter.setInsertionPoint(op);
  auto rebuilt = linalg::GenericOp::create(rewriter, loc, op.getResultTypes(),
                                           inputs, op.getDpsInits(), maps,
                                           op.getIteratorTypesArray());
  rewriter.inlineRegionBefore(op.getRegion(), rebuilt.getRegion(),
                              rebuilt.getRegion().end());
  for (unsigned number : llvm::reverse(moved))
    rebuilt.getBody()->eraseArgument(number);
  rewriter.replaceOp(op, rebuilt.getResults());
  return rebuilt;
}

/// A tensor.extract_slice whose innermost stride is not 1 (`x[:, ::2]`),
/// which no DMA moves, as a generic reading the source through the
/// slice's map (offset + stride * index per dimension), which the gather
/// lowering handles. Rank-reducing and dynamic slices are left as they
/// are.
void rewriteLaneStridedSlice(IRRewriter &rewriter,
                             tensor::ExtractSliceOp slice) {
  RankedTensorType type = slice.getType();
  if (slice.getSourceType().getRank() != type.getRank() ||
      !type.hasStaticShape() || !isa<FloatType>(type.getElementType()))
    return;
  std::optional<int64_t> lane =
      getConstantIntValue(slice.getMixedStrides().back());
  if (lane && *lane == 1)
    return;
  MLIRContext *ctx = rewriter.getContext();
  SmallVector<AffineExpr> exprs;
  for (auto [d, offsetAndStride] : llvm::enumerate(
           llvm::zip(slice.getMixedOffsets(), slice.getMixedStrides()))) {
    auto [offsetOfr, strideOfr] = offsetAndStride;
    std::optional<int64_t> offset = getConstantIntValue(offsetOfr);
    std::optional<int64_t> stride = getConstantIntValue(strideOfr);
    if (!offset || !stride)
      return;
    exprs.push_back(getAffineDimExpr(d, ctx) * *stride + *offset);
  }
  unsigned rank = type.getRank();
  rewriter.setInsertionPoint(slice);
  Value init = tensor::EmptyOp::create(rewriter, slice.getLoc(),
                                       type.getShape(), type.getElementType());
  SmallVector<AffineMap> maps = {AffineMap::get(rank, 0, exprs, ctx),
                                 AffineMap::getMultiDimIdentityMap(rank, ctx)};
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  auto copy = linalg::GenericOp::create(
      rewriter, slice.getLoc(), TypeRange{type}, ValueRange{slice.getSource()},
      ValueRange{init}, maps, iterators,
      [](OpBuilder &b, Location loc, ValueRange args) {
        linalg::YieldOp::create(b, loc, args[0]);
      });
  rewriter.replaceOp(slice, copy.getResults());
}

struct AccelLowerGathersPass
    : accel::CheckedOptionsPass<
          AccelLowerGathersPass,
          accel::impl::AccelLowerGathersBase<AccelLowerGathersPass>> {
  using CheckedOptionsPass::CheckedOptionsPass;

  std::string checkOptions() const {
    return accel::firstOptionProblem({accel::checkVmemSpaceOption(vmemSpace),
                                      accel::checkVmemBytesOption(vmemBytes)});
  }

  /// What `op` needs materialized, or failure with an error at `op`.
  FailureOr<SmallVector<Materialized>> plan(linalg::GenericOp op) {
    SmallVector<Materialized> items;
    BodyInfo info(op);
    unsigned last = op.getNumLoops() - 1;
    bool failed = false;
    op.getBody()->walk(
        [&](Operation *inner) {
          if (auto read = dyn_cast<tensor::ExtractOp>(inner)) {
            // Every float read in the body is a gather: at computed
            // indices, or at the loop indices through a map no subview
            // expresses. (An i32 read is an index, computed by the scalar
            // code.)
            if (!isa<FloatType>(read.getType()) || read.getIndices().empty())
              return;
            if (llvm::any_of(read.getIndices(), [&](Value i) {
                  return info.source(i) == Source::Vector ||
                         info.source(i) == Source::Mixed;
                })) {
              op.emitError() << "cannot lower this gather: an index of its "
                                "tensor.extract is computed from float values; "
                                "compute indices from integer data";
              failed = true;
              return;
            }
            ValueRange indices = read.getIndices();
            auto lastIndex = indices.back().getDefiningOp<linalg::IndexOp>();
            bool row = op.getNumLoops() > 1 && lastIndex &&
                       lastIndex.getDim() == last &&
                       llvm::none_of(indices.drop_back(), [&](Value i) {
                         return info.usesLastLoop(i);
                       });
            items.push_back({read.getResult(), row});
            return;
          }
          // An integer or i1 value a float op reads (a mask selecting between
          // floats, a mask converted to 0.0/1.0).
          for (Value operand : inner->getOperands()) {
            if (isa<FloatType>(operand.getType()) ||
                llvm::none_of(inner->getResultTypes(),
                              [](Type t) { return isa<FloatType>(t); }))
              continue;
            if (isa<linalg::YieldOp>(inner))
              continue;
            Source s = info.source(operand);
            if (s == Source::Uniform || s == Source::Vector)
              continue;
            if (s == Source::Mixed || !operand.getType().isSignlessInteger(1)) {
              op.emitError()
                  << "cannot compute '" << inner->getName()
                  << "' on the VPU: its operand of type " << operand.getType()
                  << " is computed from integer data, which the VPU does not "
                     "hold (only i1 masks made by the scalar core are "
                     "supported)";
              failed = true;
              return;
            }
            if (llvm::any_of(items, [&](const Materialized &m) {
                  return m.value == operand;
                }))
              continue;
            items.push_back(
                {operand, op.getNumLoops() > 1 && !info.usesLastLoop(operand)});
          }
        });
    if (failed)
      return failure();
    return items;
  }

  /// The type of the tensor that holds `item` for `op`.
  RankedTensorType typeOf(linalg::GenericOp op, const Materialized &item) {
    SmallVector<int64_t> shape = op.getStaticLoopRanges();
    if (item.row && !item.isGather())
      shape.pop_back();
    Type elem = item.isGather() ? item.value.getType()
                                : Float32Type::get(op.getContext());
    return RankedTensorType::get(shape, elem);
  }

  LogicalResult lower(IRRewriter &rewriter, linalg::GenericOp op) {
    FailureOr<SmallVector<Materialized>> items = plan(op);
    if (failed(items))
      return failure();
    if (items->empty())
      return success();
    // getStaticLoopRanges composes the inverse of the indexing maps, which
    // is null when they do not determine every loop (an output map with a
    // constant result): upstream crashes on it.
    if (!op.getShapesToLoopsMap())
      return op.emitError() << "cannot lower a gather whose indexing maps do "
                               "not determine its loop bounds";
    SmallVector<int64_t> ranges = op.getStaticLoopRanges();
    if (llvm::any_of(ranges, ShapedType::isDynamic))
      return op.emitError() << "cannot lower a gather with dynamic loop "
                               "bounds; pass the shapes (--bind)";
    Location loc = op.getLoc();
    unsigned n = op.getNumLoops();
    rewriter.setInsertionPoint(op);
    // 0.0 and 1.0: a mask element becomes the DMA of one of the two.
    Value table01 = arith::ConstantOp::create(
        rewriter, loc,
        DenseElementsAttr::get(
            RankedTensorType::get({2}, rewriter.getF32Type()),
            ArrayRef<float>{0.0f, 1.0f}));
    // The tensors the nest fills: in VMEM when they fit a quarter of it
    // (their copies then overlap: convert-linalg-to-accel), 2-D buffers
    // (a tile's rank) viewed at their own rank; else in HBM.
    uint64_t bytes = 0;
    for (const Materialized &item : *items) {
      RankedTensorType type = typeOf(op, item);
      bytes +=
          type.getNumElements() * ((type.getElementTypeBitWidth() + 7) / 8);
    }
    bool inVmem = bytes <= vmemBytes / 4;
    SmallVector<Value> inits;
    for (const Materialized &item : *items) {
      RankedTensorType type = typeOf(op, item);
      if (!inVmem) {
        inits.push_back(tensor::EmptyOp::create(rewriter, loc, type.getShape(),
                                                type.getElementType()));
        continue;
      }
      int64_t rank = type.getRank();
      SmallVector<int64_t> flat = {type.getNumElements() /
                                       type.getShape().back(),
                                   type.getShape().back()};
      if (rank == 1)
        flat = {type.getShape().back()};
      auto flatType = RankedTensorType::get(flat, type.getElementType());
      auto alloc = bufferization::AllocTensorOp::create(rewriter, loc, flatType,
                                                        ValueRange{});
      alloc.setMemorySpaceAttr(rewriter.getI64IntegerAttr(vmemSpace));
      inits.push_back(alloc);
    }
    auto index = [&](int64_t v) -> Value {
      return arith::ConstantIndexOp::create(rewriter, loc, v);
    };
    SmallVector<Value> lbs, ubs, steps;
    for (unsigned l = 0; l + 1 < n; ++l) {
      lbs.push_back(index(0));
      ubs.push_back(index(ranges[l]));
      steps.push_back(index(1));
    }
    Scalarizer scalar(rewriter, loc);
    bool failed = false;
    // The loop over the last dimension, when there is one.
    scf::ForOp innermost;
    // Writes item `i` at `ivs` into `into`: a row of the gathered tensor,
    // or one element (of the gather, or 0.0/1.0 for a mask).
    auto write = [&](OpBuilder &b, unsigned i, ArrayRef<Value> loops,
                     IRMapping &map, Value into) -> Value {
      const Materialized &item = (*items)[i];
      auto intoType = cast<RankedTensorType>(into.getType());
      RankedTensorType logical = typeOf(op, item);
      unsigned rank = logical.getRank();
      SmallVector<OpFoldResult> offsets, sizes, strides;
      for (unsigned d = 0; d < rank; ++d) {
        bool rowDim = item.row && item.isGather() && d == rank - 1;
        offsets.push_back(rowDim ? OpFoldResult(b.getIndexAttr(0))
                                 : OpFoldResult(loops[d]));
        sizes.push_back(b.getIndexAttr(rowDim ? ranges.back() : 1));
        strides.push_back(b.getIndexAttr(1));
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
        offsets = {r, offsets.back()};
        sizes = {b.getIndexAttr(1), sizes.back()};
        strides = {b.getIndexAttr(1), b.getIndexAttr(1)};
        rank = 2;
      }
      Value source;
      int64_t width = 1;
      if (auto read = item.value.getDefiningOp<tensor::ExtractOp>()) {
        auto srcType = cast<RankedTensorType>(read.getTensor().getType());
        SmallVector<OpFoldResult> srcOffsets, srcSizes, srcStrides;
        for (auto [d, idx] : llvm::enumerate(read.getIndices())) {
          bool rowDim = item.row && d + 1 == read.getIndices().size();
          if (rowDim) {
            srcOffsets.push_back(b.getIndexAttr(0));
          } else {
            FailureOr<Value> v = scalar.eval(op, loops, idx, map);
            if (mlir::failed(v)) {
              failed = true;
              return into;
            }
            srcOffsets.push_back(*v);
          }
          srcSizes.push_back(b.getIndexAttr(rowDim ? ranges.back() : 1));
          srcStrides.push_back(b.getIndexAttr(1));
        }
        width = item.row ? ranges.back() : 1;
        if (item.row && !srcType.isDynamicDim(srcType.getRank() - 1) &&
            srcType.getShape().back() < width) {
          failed = true;
          scalar.reason = "a row longer than the gathered tensor's";
          return into;
        }
        SmallVector<int64_t> sliceShape(srcType.getRank(), 1);
        sliceShape.back() = width;
        source = tensor::ExtractSliceOp::create(
            b, loc, RankedTensorType::get(sliceShape, srcType.getElementType()),
            read.getTensor(), srcOffsets, srcSizes, srcStrides);
      } else {
        FailureOr<Value> bit = scalar.eval(op, loops, item.value, map);
        if (mlir::failed(bit)) {
          failed = true;
          return into;
        }
        Value at = arith::IndexCastUIOp::create(b, loc, b.getIndexType(), *bit);
        source = tensor::ExtractSliceOp::create(
            b, loc, RankedTensorType::get({1}, b.getF32Type()), table01,
            ArrayRef<OpFoldResult>{at},
            ArrayRef<OpFoldResult>{b.getIndexAttr(1)},
            ArrayRef<OpFoldResult>{b.getIndexAttr(1)});
      }
      // The slice (unit dimensions, then the row) at the rank of `into`,
      // by folding or adding leading unit dimensions: no rank reduction
      // has to guess which unit dimensions it drops, and the row keeps its
      // unit stride.
      source = withRank(b, loc, source, rank);
      return tensor::InsertSliceOp::create(b, loc, source, into, offsets, sizes,
                                           strides);
    };
    scf::LoopNest nest = scf::buildLoopNest(
        rewriter, loc, lbs, ubs, steps, inits,
        [&](OpBuilder &b, Location, ValueRange ivs,
            ValueRange args) -> scf::ValueVector {
          SmallVector<Value> loops(ivs.begin(), ivs.end());
          loops.push_back(Value()); // the last loop: the row
          IRMapping rowMap;
          SmallVector<Value> results(args.begin(), args.end());
          SmallVector<unsigned> perElement;
          for (unsigned i = 0; i < items->size(); ++i) {
            if ((*items)[i].row)
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
                  yielded.push_back(
                      write(ib, i, all, elementMap, innerArgs[k]));
                scf::YieldOp::create(ib, loc, yielded);
              });
          for (auto [k, i] : llvm::enumerate(perElement))
            results[i] = inner.getResult(k);
          return results;
        });
    if (failed)
      return op.emitError() << "cannot lower this gather: " << scalar.reason;
    if (inVmem) {
      Operation *outer = nest.loops.empty() ? innermost.getOperation()
                                            : nest.loops.front().getOperation();
      if (outer)
        outer->setAttr(kGatherAttr, rewriter.getUnitAttr());
    }

    // The generic reads the materialized tensors instead.
    SmallVector<Value> inputs = op.getDpsInputs();
    SmallVector<AffineMap> maps;
    for (OpOperand *in : op.getDpsInputOperands())
      maps.push_back(op.getMatchingIndexingMap(in));
    MLIRContext *ctx = op.getContext();
    for (auto [i, item] : llvm::enumerate(*items)) {
      // A flat VMEM buffer viewed at the item's rank again.
      Value result = nest.results[i];
      RankedTensorType logical = typeOf(op, item);
      if (cast<RankedTensorType>(result.getType()).getRank() !=
          logical.getRank()) {
        SmallVector<ReassociationIndices> groups(2);
        for (int64_t d = 0; d + 1 < logical.getRank(); ++d)
          groups[0].push_back(d);
        groups[1].push_back(logical.getRank() - 1);
        result = tensor::ExpandShapeOp::create(rewriter, loc, logical, result,
                                               groups);
      }
      inputs.push_back(result);
      AffineMap map = AffineMap::getMultiDimIdentityMap(n, ctx);
      if (typeOf(op, item).getRank() < int64_t(n))
        map = map.getMajorSubMap(n - 1);
      maps.push_back(map);
    }
    for (OpOperand &out : op.getDpsInitsMutable())
      maps.push_back(op.getMatchingIndexingMap(&out));
    auto lowered = linalg::GenericOp::create(rewriter, loc, op.getResultTypes(),
                                             inputs, op.getDpsInits(), maps,
                                             op.getIteratorTypesArray());
    rewriter.inlineRegionBefore(op.getRegion(), lowered.getRegion(),
                                lowered.getRegion().end());
    Block *body = lowered.getBody();
    unsigned at = op.getNumDpsInputs();
    rewriter.setInsertionPointToStart(body);
    Value zero = arith::ConstantOp::create(rewriter, loc,
                                           rewriter.getF32FloatAttr(0.0f));
    for (auto [i, item] : llvm::enumerate(*items)) {
      BlockArgument arg =
          body->insertArgument(at + i, typeOf(op, item).getElementType(), loc);
      if (item.isGather()) {
        rewriter.replaceAllUsesWith(item.value, arg);
        continue;
      }
      // The mask again, from its 0.0/1.0 tile, for the float ops only.
      Value mask = arith::CmpFOp::create(rewriter, loc,
                                         arith::CmpFPredicate::UNE, arg, zero);
      rewriter.replaceUsesWithIf(item.value, mask, [&](OpOperand &use) {
        return llvm::any_of(use.getOwner()->getResultTypes(),
                            [](Type t) { return isa<FloatType>(t); });
      });
    }
    rewriter.replaceOp(op, lowered.getResults());
    // The scalar computations the body no longer needs.
    bool erased = true;
    while (erased) {
      erased = false;
      for (Operation &inner : llvm::make_early_inc_range(llvm::reverse(*body)))
        if (&inner != body->getTerminator() && inner.use_empty() &&
            isMemoryEffectFree(&inner)) {
          rewriter.eraseOp(&inner);
          erased = true;
        }
    }
    return success();
  }

  void runOnOperation() override {
    IRRewriter rewriter(&getContext());
    SmallVector<tensor::ExtractSliceOp> slices;
    getOperation().walk(
        [&](tensor::ExtractSliceOp slice) { slices.push_back(slice); });
    for (tensor::ExtractSliceOp slice : slices)
      rewriteLaneStridedSlice(rewriter, slice);
    SmallVector<linalg::GenericOp> ops;
    getOperation().walk([&](linalg::GenericOp op) {
      if (op.hasPureTensorSemantics() && op.getNumLoops() > 0 &&
          op.getNumParallelLoops() == op.getNumLoops())
        ops.push_back(op);
    });
    for (linalg::GenericOp op : ops)
      if (failed(lower(rewriter, readAsExtracts(rewriter, op))))
        return signalPassFailure();
    // Inputs the lowered generics no longer read (the mask they were
    // given) and the producers nothing reads any more.
    RewritePatternSet patterns(&getContext());
    linalg::populateEraseUnusedOperandsAndResultsPatterns(patterns);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};

} // namespace
