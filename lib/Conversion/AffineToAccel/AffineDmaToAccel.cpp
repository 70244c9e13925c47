//===- AffineDmaToAccel.cpp - affine DMAs with tags to accel tokens -------===//
//
// Passes.td, convert-affine-dma-to-accel: upstream's element-count DMAs
// become 2-D tile DMAs, tag memrefs become tokens (carried through loops
// when a DMA is waited in a later iteration), and the `mod` slot arithmetic
// of multi-buffering becomes rotating loop values.
//
//===----------------------------------------------------------------------===//

#include "../LinalgToAccel/Spaces.h"
#include "accel/Conversion/Passes.h"
#include "accel/Dialect/Accel/AccelOps.h"
#include "accel/Dialect/Accel/TileShape.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/AffineExprVisitor.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/Support/MathExtras.h"

#include <numeric>

namespace accel {
#define GEN_PASS_DEF_CONVERTAFFINEDMATOACCEL
#include "accel/Conversion/Passes.h.inc"
} // namespace accel

using namespace mlir;
using namespace accel;

namespace {

/// Most iterations a DMA may be waited after it starts (tokens carried per
/// DMA through a loop).
constexpr int64_t kMaxDistance = 8;
/// Most points evaluated to prove two index functions equal.
constexpr int64_t kMaxEvaluations = 1 << 16;
/// Longest period of a rotated `mod` slot value.
constexpr int64_t kMaxPeriod = 16;

//===----------------------------------------------------------------------===//
// Affine functions of SSA values
//===----------------------------------------------------------------------===//

/// Affine functions of SSA values: one expression per result over dims that
/// are `operands` (no symbols), with the affine.apply ops that produce the
/// operands composed in and constant operands folded.
struct AffineFns {
  SmallVector<AffineExpr> exprs;
  SmallVector<Value> operands;
};

/// The results of `map` applied to `operands` as AffineFns.
AffineFns normalize(AffineMap map, ValueRange values) {
  SmallVector<Value> operands(values);
  affine::fullyComposeAffineMapAndOperands(&map, &operands);
  MLIRContext *ctx = map.getContext();
  AffineFns fns;
  SmallVector<AffineExpr> dims, syms;
  auto bind = [&](Value v) -> AffineExpr {
    if (std::optional<int64_t> c = getConstantIntValue(v))
      return getAffineConstantExpr(*c, ctx);
    auto *it = llvm::find(fns.operands, v);
    if (it == fns.operands.end()) {
      fns.operands.push_back(v);
      it = std::prev(fns.operands.end());
    }
    return getAffineDimExpr(it - fns.operands.begin(), ctx);
  };
  for (unsigned i = 0; i < map.getNumDims(); ++i)
    dims.push_back(bind(operands[i]));
  for (unsigned i = 0; i < map.getNumSymbols(); ++i)
    syms.push_back(bind(operands[map.getNumDims() + i]));
  for (AffineExpr e : map.getResults())
    fns.exprs.push_back(simplifyAffineExpr(e.replaceDimsAndSymbols(dims, syms),
                                           fns.operands.size(), 0));
  return fns;
}

/// `expr` (over `from`'s operands) rewritten over `into`'s operands,
/// appending the ones `into` lacks.
AffineExpr remap(AffineExpr expr, ArrayRef<Value> from,
                 SmallVectorImpl<Value> &into) {
  SmallVector<AffineExpr> dims;
  for (Value v : from) {
    auto *it = llvm::find(into, v);
    if (it == into.end()) {
      into.push_back(v);
      it = std::prev(into.end());
    }
    dims.push_back(getAffineDimExpr(it - into.begin(), expr.getContext()));
  }
  return expr.replaceDims(dims);
}

/// `fns` with loop IV `iv` replaced by `replacement`, an expression of the
/// dim that is `iv` (e.g. `d - 2`) or a constant.
AffineFns substitute(const AffineFns &fns, Value iv,
                     llvm::function_ref<AffineExpr(AffineExpr)> replacement) {
  AffineFns out = fns;
  auto *it = llvm::find(fns.operands, iv);
  if (it == fns.operands.end())
    return out;
  AffineExpr dim = getAffineDimExpr(it - fns.operands.begin(),
                                    iv.getContext());
  for (AffineExpr &e : out.exprs)
    e = simplifyAffineExpr(e.replace(dim, replacement(dim)),
                           out.operands.size(), 0);
  return out;
}

/// The constant range of a loop IV.
struct IvRange {
  int64_t lb, ub, step;
};

/// The range of `v` when it is the IV of an affine.for with constant bounds.
std::optional<IvRange> getIvRange(Value v) {
  affine::AffineForOp loop = affine::getForInductionVarOwner(v);
  if (!loop || !loop.hasConstantBounds())
    return std::nullopt;
  return IvRange{loop.getConstantLowerBound(), loop.getConstantUpperBound(),
                 loop.getStepAsInt()};
}

/// Evaluates `e` with dim i set to `dims[i]`; nullopt for symbols or a
/// division by a non-positive value.
std::optional<int64_t> evaluate(AffineExpr e, ArrayRef<int64_t> dims) {
  if (auto c = dyn_cast<AffineConstantExpr>(e))
    return c.getValue();
  if (auto d = dyn_cast<AffineDimExpr>(e))
    return dims[d.getPosition()];
  auto bin = dyn_cast<AffineBinaryOpExpr>(e);
  if (!bin)
    return std::nullopt;
  std::optional<int64_t> l = evaluate(bin.getLHS(), dims);
  std::optional<int64_t> r = evaluate(bin.getRHS(), dims);
  if (!l || !r)
    return std::nullopt;
  switch (e.getKind()) {
  case AffineExprKind::Add:
    return *l + *r;
  case AffineExprKind::Mul:
    return *l * *r;
  case AffineExprKind::Mod:
    return *r > 0 ? std::optional<int64_t>(llvm::mod(*l, *r)) : std::nullopt;
  case AffineExprKind::FloorDiv:
    return *r > 0 ? std::optional<int64_t>(llvm::divideFloorSigned(*l, *r))
                  : std::nullopt;
  case AffineExprKind::CeilDiv:
    return *r > 0 ? std::optional<int64_t>(llvm::divideCeilSigned(*l, *r))
                  : std::nullopt;
  default:
    return std::nullopt;
  }
}

/// Calls `fn` with the values of `operands` at every point of the ranges
/// of the loop IVs that `e` uses, until `fn` returns false. Returns false
/// when `e` uses an operand that is not such an IV, or the space has more
/// than kMaxEvaluations points.
bool forEachPoint(AffineExpr e, ArrayRef<Value> operands,
                  llvm::function_ref<bool(ArrayRef<int64_t>)> fn) {
  SmallVector<unsigned> used;
  SmallVector<IvRange> ranges;
  int64_t points = 1;
  for (unsigned i = 0; i < operands.size(); ++i) {
    if (!e.isFunctionOfDim(i))
      continue;
    std::optional<IvRange> range = getIvRange(operands[i]);
    if (!range || range->step <= 0)
      return false;
    int64_t trips = range->ub > range->lb
                        ? llvm::divideCeil(range->ub - range->lb, range->step)
                        : 0;
    if (trips == 0)
      return true; // nothing to check: the code never runs
    points *= trips;
    if (points > kMaxEvaluations)
      return false;
    used.push_back(i);
    ranges.push_back(*range);
  }
  SmallVector<int64_t> values(operands.size(), 0);
  for (auto [i, range] : llvm::zip(used, ranges))
    values[i] = range.lb;
  while (true) {
    if (!fn(values))
      return true;
    unsigned k = 0;
    for (; k < used.size(); ++k) {
      values[used[k]] += ranges[k].step;
      if (values[used[k]] < ranges[k].ub)
        break;
      values[used[k]] = ranges[k].lb;
    }
    if (k == used.size())
      return true;
  }
}

/// Whether `a` and `b` (over the same operands) are provably equal: their
/// difference simplifies to 0, or is 0 at every point of the loops it
/// depends on.
bool provablyEqual(AffineExpr a, AffineExpr b, ArrayRef<Value> operands) {
  AffineExpr diff = simplifyAffineExpr(a - b, operands.size(), 0);
  if (auto c = dyn_cast<AffineConstantExpr>(diff))
    return c.getValue() == 0;
  bool equal = true;
  bool checked = forEachPoint(diff, operands, [&](ArrayRef<int64_t> point) {
    std::optional<int64_t> v = evaluate(diff, point);
    equal = v && *v == 0;
    return equal;
  });
  return checked && equal;
}

/// Whether the index functions `a` and `b` are provably the same element.
bool sameElement(const AffineFns &a, const AffineFns &b) {
  if (a.exprs.size() != b.exprs.size())
    return false;
  SmallVector<Value> operands(a.operands);
  for (auto [ea, eb] : llvm::zip(a.exprs, b.exprs))
    if (!provablyEqual(remap(ea, a.operands, operands),
                       remap(eb, b.operands, operands), operands))
      return false;
  return true;
}

/// The largest value of `e` over the loops it depends on, when it depends
/// only on loop IVs with constant ranges.
std::optional<int64_t> getMax(AffineExpr e, ArrayRef<Value> operands) {
  std::optional<int64_t> best;
  bool ok = true;
  bool checked = forEachPoint(e, operands, [&](ArrayRef<int64_t> point) {
    std::optional<int64_t> v = evaluate(e, point);
    if (!v)
      return ok = false;
    best = best ? std::max(*best, *v) : *v;
    return true;
  });
  if (!checked || !ok)
    return std::nullopt;
  return best;
}

/// Whether `e` divides (floordiv, ceildiv, mod): accel's scalar core
/// multiplies and adds only.
bool hasDivision(AffineExpr e) {
  bool found = false;
  e.walk([&](AffineExpr sub) {
    found |= sub.getKind() == AffineExprKind::FloorDiv ||
             sub.getKind() == AffineExprKind::CeilDiv ||
             sub.getKind() == AffineExprKind::Mod;
  });
  return found;
}

std::string formatExpr(AffineExpr e) {
  std::string s;
  llvm::raw_string_ostream os(s);
  e.print(os);
  return s;
}

std::string formatFns(const AffineFns &fns) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << "[";
  llvm::interleaveComma(fns.exprs, os);
  os << "]";
  return s;
}

//===----------------------------------------------------------------------===//
// DMA sides as 2-D tiles
//===----------------------------------------------------------------------===//

/// A transfer pattern: `rows` chunks of `cols` contiguous elements, the
/// chunks `pitch` elements apart (pitch == cols: one contiguous block).
struct Pattern {
  int64_t rows, cols, pitch;
};

/// How one side of a DMA becomes a 2-D (or 1-D) view: the memref's
/// dimensions [split, rank) form a row of `rowElems` elements (collapsed
/// when more than one), the leading ones the rows; or, with `reshape`, the
/// whole contiguous memref is re-rowed into rows of `cols` elements.
struct ViewPlan {
  int64_t split = 0;
  int64_t rowElems = 0;
  int64_t rowStep = 1; ///< memref rows between the tile's rows
  bool reshape = false;
  AffineExpr row, col; ///< the first element, over the index operands
};

/// Plans the view of memref `type`, indexed by `idx`, that moves `p`.
FailureOr<ViewPlan> planView(MemRefType type, const AffineFns &idx, Pattern p,
                             std::string &why) {
  ArrayRef<int64_t> shape = type.getShape();
  int64_t rank = type.getRank();
  MLIRContext *ctx = type.getContext();
  unsigned numOps = idx.operands.size();
  // Row-major linear index of dims [from, to) within those dims.
  auto linear = [&](int64_t from, int64_t to) {
    AffineExpr e = getAffineConstantExpr(0, ctx);
    for (int64_t d = from; d < to; ++d)
      e = e * shape[d] + idx.exprs[d];
    return simplifyAffineExpr(e, numOps, 0);
  };
  // Whether `cols` elements from `col` provably stay in a row of `limit`
  // (unknown starts are trusted: the ISA addresses them linearly anyway).
  auto fits = [&](AffineExpr col, int64_t limit) {
    std::optional<int64_t> max = getMax(col, idx.operands);
    return !max || (*max >= 0 && *max + p.cols <= limit);
  };
  for (int64_t split = rank - 1; split >= 0; --split) {
    int64_t rowElems = 1;
    for (int64_t d = split; d < rank; ++d)
      rowElems *= shape[d];
    AffineExpr col = linear(split, rank);
    if (!fits(col, rowElems))
      continue;
    ViewPlan plan;
    plan.split = split;
    plan.rowElems = rowElems;
    plan.col = col;
    plan.row = linear(0, split);
    if (p.rows == 1)
      return plan;
    if (split == 0 || p.pitch % rowElems != 0)
      continue;
    plan.rowStep = p.pitch / rowElems;
    return plan;
  }
  if (p.pitch == p.cols) {
    int64_t total = type.getNumElements();
    AffineExpr all = linear(0, rank);
    AffineExpr col = simplifyAffineExpr(all % p.cols, numOps, 0);
    AffineExpr row = simplifyAffineExpr(all.floorDiv(p.cols), numOps, 0);
    auto zero = dyn_cast<AffineConstantExpr>(col);
    if (total % p.cols == 0 && zero && zero.getValue() == 0) {
      ViewPlan plan;
      plan.reshape = true;
      plan.row = row;
      plan.col = col;
      return plan;
    }
  }
  llvm::raw_string_ostream os(why);
  os << type << " at " << formatFns(idx) << " cannot hold " << p.rows
     << " row(s) of " << p.cols << " element(s)";
  if (p.rows > 1 && p.pitch != p.cols)
    os << " " << p.pitch << " elements apart";
  os << " as a tile";
  return failure();
}

/// Builds the view `plan` describes of `memref` (indexed by `idx`) for `p`.
Value buildView(OpBuilder &b, Location loc, Value memref, const AffineFns &idx,
                const ViewPlan &plan, Pattern p) {
  auto type = cast<MemRefType>(memref.getType());
  int64_t rank = type.getRank();
  SmallVector<OpFoldResult> operands = getAsOpFoldResult(idx.operands);
  auto apply = [&](AffineExpr e) {
    return affine::makeComposedFoldedAffineApply(
        b, loc, AffineMap::get(idx.operands.size(), 0, e), operands);
  };
  auto collapse = [&](SmallVector<ReassociationIndices> groups) -> Value {
    if (groups.size() == size_t(rank))
      return memref;
    return memref::CollapseShapeOp::create(b, loc, memref, groups);
  };
  auto group = [](int64_t from, int64_t to) {
    ReassociationIndices g;
    for (int64_t d = from; d < to; ++d)
      g.push_back(d);
    return g;
  };
  OpFoldResult one = b.getIndexAttr(1);
  if (plan.reshape) {
    Value flat = collapse({group(0, rank)});
    int64_t total = type.getNumElements();
    Value rowed = memref::ExpandShapeOp::create(
        b, loc, SmallVector<int64_t>{total / p.cols, p.cols}, flat,
        SmallVector<ReassociationIndices>{{0, 1}});
    return memref::SubViewOp::create(
        b, loc, rowed, {apply(plan.row), b.getIndexAttr(0)},
        {b.getIndexAttr(p.rows), b.getIndexAttr(p.cols)}, {one, one});
  }
  if (plan.split == 0) {
    if (rank == 1 && p.cols == type.getDimSize(0))
      if (auto c = dyn_cast<AffineConstantExpr>(plan.col); c && !c.getValue())
        return memref;
    Value flat = collapse({group(0, rank)});
    return memref::SubViewOp::create(b, loc, flat, {apply(plan.col)},
                                     {b.getIndexAttr(p.cols)}, {one});
  }
  // The whole of a 2-D memref is the memref itself (no view to see through).
  auto isZero = [](AffineExpr e) {
    auto c = dyn_cast<AffineConstantExpr>(e);
    return c && c.getValue() == 0;
  };
  if (rank == 2 && plan.split == 1 && isZero(plan.row) && isZero(plan.col) &&
      p.rows == type.getDimSize(0) && p.cols == type.getDimSize(1) &&
      plan.rowStep == 1)
    return memref;
  Value rowed = collapse({group(0, plan.split), group(plan.split, rank)});
  return memref::SubViewOp::create(
      b, loc, rowed, {apply(plan.row), apply(plan.col)},
      {b.getIndexAttr(p.rows), b.getIndexAttr(p.cols)},
      {b.getIndexAttr(plan.rowStep), one});
}

//===----------------------------------------------------------------------===//
// Tags to tokens
//===----------------------------------------------------------------------===//

/// A DMA that has started and not yet been waited.
struct Pending {
  Value tag;           ///< the tag memref it signals
  AffineFns slot;      ///< the tag element
  Value token;         ///< its accel token
  Location loc;        ///< where it started (for diagnostics)
  Operation *start;    ///< the affine.dma_start, while it exists
  bool fromBody;       ///< started in the block being processed
};

class Converter {
public:
  explicit Converter(MLIRContext *ctx) : rewriter(ctx) {}

  LogicalResult convertFunction(func::FuncOp func);

private:
  LogicalResult processBlock(Block &block, SmallVectorImpl<Pending> &state);
  LogicalResult processStart(affine::AffineDmaStartOp op,
                             SmallVectorImpl<Pending> &state);
  LogicalResult processWait(affine::AffineDmaWaitOp op,
                            SmallVectorImpl<Pending> &state);
  LogicalResult processLoop(affine::AffineForOp loop,
                            SmallVectorImpl<Pending> &state);
  LogicalResult rotateModulos(func::FuncOp func);

  IRRewriter rewriter;
  /// The token of each converted affine.dma_start.
  DenseMap<Operation *, Value> tokens;
  /// The converted affine DMA ops, erased once the function is done (until
  /// then they name the DMAs in the maps above).
  SmallVector<Operation *> converted;
  /// The tag memrefs, erased when nothing else uses them.
  SetVector<Value> tags;
};

AffineFns tagSlot(affine::AffineDmaStartOp op) {
  return normalize(op.getTagMap(), op.getTagIndices());
}
AffineFns tagSlot(affine::AffineDmaWaitOp op) {
  return normalize(op.getTagMap(), op.getTagIndices());
}

bool containsDma(Operation *op) {
  return op
      ->walk([](Operation *inner) {
        return isa<affine::AffineDmaStartOp, affine::AffineDmaWaitOp>(inner)
                   ? WalkResult::interrupt()
                   : WalkResult::advance();
      })
      .wasInterrupted();
}

LogicalResult Converter::processStart(affine::AffineDmaStartOp op,
                                      SmallVectorImpl<Pending> &state) {
  auto constant = [&](Value v, StringRef what) -> FailureOr<int64_t> {
    std::optional<int64_t> c = getConstantIntValue(v);
    if (!c || *c <= 0)
      return op.emitError() << "needs a positive constant " << what
                            << ": accel's DMAs move static tiles";
    return *c;
  };
  FailureOr<int64_t> num = constant(op.getNumElements(), "element count");
  if (failed(num))
    return failure();
  auto srcType = cast<MemRefType>(op.getSrcMemRef().getType());
  auto dstType = cast<MemRefType>(op.getDstMemRef().getType());
  std::optional<MemorySpace> srcSpace = getMemorySpace(srcType);
  std::optional<MemorySpace> dstSpace = getMemorySpace(dstType);
  if (!srcSpace || !dstSpace)
    return op.emitError("copies between memrefs without accel memory spaces: "
                        "run --convert-memory-spaces-to-accel first");
  for (MemRefType t : {srcType, dstType})
    if (!t.hasStaticShape() || !t.getLayout().isIdentity() || t.getRank() < 1)
      return op.emitError() << "copies " << t
                            << ": accel's DMAs need static shapes and the "
                               "identity layout";
  // The parser accepts a subscript list of another length than the rank
  // (`%m[0 - 0]` on a 2-D memref is one subscript); the planner indexes one
  // subscript per dimension.
  for (auto [what, map, type] :
       {std::make_tuple("source", op.getSrcMap(), srcType),
        std::make_tuple("destination", op.getDstMap(), dstType)})
    if (int64_t(map.getNumResults()) != type.getRank())
      return op.emitError()
             << "indexes its " << what << " " << type << " with "
             << map.getNumResults() << " subscripts; it has rank "
             << type.getRank();
  AffineFns srcIdx = normalize(op.getSrcMap(), op.getSrcIndices());
  AffineFns dstIdx = normalize(op.getDstMap(), op.getDstIndices());

  // The patterns each side moves: the slower memory (HBM) is strided, the
  // faster one contiguous; a contiguous DMA tries rows of either side's
  // width, then one row.
  SmallVector<std::pair<Pattern, Pattern>> candidates;
  if (op.isStrided()) {
    FailureOr<int64_t> stride = constant(op.getStride(), "stride");
    FailureOr<int64_t> perStride =
        constant(op.getNumElementsPerStride(), "elements per stride");
    if (failed(stride) || failed(perStride))
      return failure();
    if (*srcSpace == *dstSpace)
      return op.emitError("is strided between two memrefs in the same memory "
                          "space: the stride applies to the slower memory");
    if (*num % *perStride != 0 || *stride < *perStride)
      return op.emitError()
             << "moves " << *num << " elements in chunks of " << *perStride
             << " every " << *stride
             << " elements: accel's tiles need whole, non-overlapping rows";
    Pattern strided{*num / *perStride, *perStride, *stride};
    Pattern block{strided.rows, strided.cols, strided.cols};
    bool srcSlow = *srcSpace == MemorySpace::HBM;
    candidates.push_back(srcSlow ? std::make_pair(strided, block)
                                 : std::make_pair(block, strided));
  } else {
    MemRefType fast = *dstSpace == MemorySpace::VMEM ? dstType : srcType;
    MemRefType slow = fast == dstType ? srcType : dstType;
    for (int64_t width : {fast.getShape().back(), slow.getShape().back()})
      if (width < *num && *num % width == 0) {
        Pattern p{*num / width, width, width};
        candidates.push_back({p, p});
      }
    Pattern row{1, *num, *num};
    candidates.push_back({row, row});
  }
  std::string why;
  for (auto [srcPattern, dstPattern] : candidates) {
    std::string srcWhy, dstWhy;
    FailureOr<ViewPlan> srcPlan = planView(srcType, srcIdx, srcPattern, srcWhy);
    FailureOr<ViewPlan> dstPlan = planView(dstType, dstIdx, dstPattern, dstWhy);
    if (failed(srcPlan) || failed(dstPlan)) {
      if (why.empty())
        why = failed(srcPlan) ? "the source " + srcWhy
                              : "the destination " + dstWhy;
      continue;
    }
    if (srcPattern.rows > kMaxTileDim || srcPattern.cols > kMaxTileDim)
      return op.emitError() << "moves a " << srcPattern.rows << " x "
                            << srcPattern.cols
                            << " tile: the ISA's tile dimensions are at most "
                            << kMaxTileDim;
    rewriter.setInsertionPoint(op);
    Location loc = op.getLoc();
    Value src = buildView(rewriter, loc, op.getSrcMemRef(), srcIdx, *srcPlan,
                          srcPattern);
    Value dst = buildView(rewriter, loc, op.getDstMemRef(), dstIdx, *dstPlan,
                          dstPattern);
    auto start = DmaStartOp::create(rewriter, loc, src, dst);
    tokens[op] = start.getToken();
    state.push_back({op.getTagMemRef(), tagSlot(op), start.getToken(), loc,
                     op.getOperation(), /*fromBody=*/true});
    converted.push_back(op);
    tags.insert(op.getTagMemRef());
    return success();
  }
  return op.emitError() << "cannot be a tile DMA: " << why;
}

LogicalResult Converter::processWait(affine::AffineDmaWaitOp op,
                                     SmallVectorImpl<Pending> &state) {
  AffineFns slot = tagSlot(op);
  SmallVector<Value> waited;
  llvm::erase_if(state, [&](const Pending &p) {
    if (p.tag != op.getTagMemRef() || !sameElement(p.slot, slot))
      return false;
    waited.push_back(p.token);
    return true;
  });
  if (waited.empty())
    return op.emitError() << "waits on tag element " << formatFns(slot)
                          << " but no affine.dma_start signals it before "
                             "(in this iteration, or in an earlier one "
                             "through the loop's tag slots)";
  rewriter.setInsertionPoint(op);
  for (Value token : waited)
    DmaWaitOp::create(rewriter, op.getLoc(), token);
  converted.push_back(op);
  tags.insert(op.getTagMemRef());
  return success();
}

LogicalResult Converter::processBlock(Block &block,
                                      SmallVectorImpl<Pending> &state) {
  for (Operation &op : llvm::make_early_inc_range(block)) {
    if (auto start = dyn_cast<affine::AffineDmaStartOp>(op)) {
      if (failed(processStart(start, state)))
        return failure();
    } else if (auto wait = dyn_cast<affine::AffineDmaWaitOp>(op)) {
      if (failed(processWait(wait, state)))
        return failure();
    } else if (auto loop = dyn_cast<affine::AffineForOp>(op)) {
      if (containsDma(loop) && failed(processLoop(loop, state)))
        return failure();
    } else if (op.getNumRegions() && containsDma(&op)) {
      return op.emitError()
             << "holds affine DMAs: accel pairs them with their waits along "
                "straight-line code and affine.for loops only, not inside '"
             << op.getName() << "'";
    }
  }
  return success();
}

LogicalResult Converter::processLoop(affine::AffineForOp loop,
                                     SmallVectorImpl<Pending> &state) {
  // Which DMAs started in the body are waited in a later iteration, and
  // how many iterations later: a wait in iteration i on the slot a start
  // signals in iteration i - d.
  Value iv = loop.getInductionVar();
  int64_t step = loop.getStepAsInt();
  SmallVector<affine::AffineDmaStartOp> starts;
  llvm::MapVector<Operation *, int64_t> distance;
  Operation *firstCarriedWait = nullptr;
  for (Operation &op : *loop.getBody()) {
    if (auto start = dyn_cast<affine::AffineDmaStartOp>(op)) {
      starts.push_back(start);
      continue;
    }
    auto wait = dyn_cast<affine::AffineDmaWaitOp>(op);
    if (!wait)
      continue;
    AffineFns slot = tagSlot(wait);
    auto signals = [&](affine::AffineDmaStartOp start, int64_t d) {
      if (start.getTagMemRef() != wait.getTagMemRef())
        return false;
      AffineFns earlier = substitute(tagSlot(start), iv, [&](AffineExpr dim) {
        return dim - d * step;
      });
      return sameElement(earlier, slot);
    };
    if (llvm::any_of(starts, [&](auto s) { return signals(s, 0); }))
      continue;
    bool found = false;
    for (int64_t d = 1; d <= kMaxDistance && !found; ++d)
      for (Operation &other : *loop.getBody()) {
        auto start = dyn_cast<affine::AffineDmaStartOp>(other);
        if (!start || !signals(start, d))
          continue;
        distance[start] = std::max(distance.lookup(start), d);
        firstCarriedWait = firstCarriedWait ? firstCarriedWait : wait;
        found = true;
      }
  }

  // Carried tokens start from the DMAs before the loop that signal the
  // slots of the iterations before the first.
  SmallVector<Value> inits;
  std::optional<IvRange> range;
  if (!distance.empty()) {
    range = getIvRange(iv);
    if (!range)
      return firstCarriedWait->emitError()
             << "waits for a DMA started in an earlier iteration of a loop "
                "without constant bounds: accel needs them to carry the "
                "DMA's token";
  }
  for (auto [op, d] : distance) {
    auto start = cast<affine::AffineDmaStartOp>(op);
    for (int64_t k = 1; k <= d; ++k) {
      AffineFns slot = substitute(tagSlot(start), iv, [&](AffineExpr dim) {
        return getAffineConstantExpr(range->lb - k * step, dim.getContext());
      });
      // The latest such DMA (a slot signalled twice is waited by the
      // first wait on it).
      auto *match = state.end();
      for (auto *it = state.begin(); it != state.end(); ++it)
        if (it->tag == start.getTagMemRef() && sameElement(it->slot, slot))
          match = it;
      if (match == state.end())
        return firstCarriedWait->emitError()
               << "waits for the DMA started " << d
               << " iteration(s) earlier, but before the loop no "
                  "affine.dma_start signals tag element "
               << formatFns(slot) << " for its first iteration(s)";
      inits.push_back(match->token);
      state.erase(match);
    }
  }
  if (!inits.empty()) {
    FailureOr<LoopLikeOpInterface> replaced = loop.replaceWithAdditionalYields(
        rewriter, inits, /*replaceInitOperandUsesInLoop=*/false,
        [](OpBuilder &, Location, ArrayRef<BlockArgument> args) {
          return SmallVector<Value>(args.begin(), args.end());
        });
    if (failed(replaced))
      return loop.emitError("cannot add the loop's carried DMA tokens");
    loop = cast<affine::AffineForOp>(replaced->getOperation());
    iv = loop.getInductionVar();
  }

  // The body sees the DMAs in flight before it (carried ones as
  // iter_args) and adds its own.
  SmallVector<Pending> body;
  for (const Pending &p : state)
    body.push_back({p.tag, p.slot, p.token, p.loc, p.start, false});
  unsigned firstArg = loop.getNumIterOperands() - inits.size();
  unsigned arg = firstArg;
  for (auto [op, d] : distance) {
    auto start = cast<affine::AffineDmaStartOp>(op);
    for (int64_t k = 1; k <= d; ++k)
      body.push_back({start.getTagMemRef(),
                      substitute(tagSlot(start), iv,
                                 [&](AffineExpr dim) { return dim - k * step; }),
                      loop.getRegionIterArgs()[arg++], start.getLoc(), nullptr,
                      false});
  }
  // tagSlot reads the op: note the carried starts' slots before they go.
  DenseMap<Operation *, AffineFns> carriedSlots;
  for (auto [op, d] : distance)
    carriedSlots[op] = tagSlot(cast<affine::AffineDmaStartOp>(op));
  if (failed(processBlock(*loop.getBody(), body)))
    return failure();

  // What the body leaves: its own DMAs must be carried; outer ones it
  // waited are gone.
  for (const Pending &p : body)
    if (p.fromBody && !distance.count(p.start))
      return emitError(p.loc) << "starts a DMA that is never waited in its "
                                 "loop's iteration or a later one";
  llvm::erase_if(state, [&](const Pending &p) {
    return llvm::none_of(body,
                         [&](const Pending &b) { return b.token == p.token; });
  });
  if (distance.empty())
    return success();

  // Each iteration yields its DMA's token and shifts the older ones; after
  // the loop the results are the last iterations' DMAs.
  auto yield = cast<affine::AffineYieldOp>(loop.getBody()->getTerminator());
  int64_t trips = range->ub > range->lb
                      ? llvm::divideCeil(range->ub - range->lb, step)
                      : 0;
  int64_t last = range->lb + (trips - 1) * step;
  arg = firstArg;
  for (auto [op, d] : distance) {
    for (int64_t k = 1; k <= d; ++k) {
      Value yielded = k == 1 ? tokens.lookup(op)
                             : Value(loop.getRegionIterArgs()[arg - 1]);
      yield->setOperand(arg, yielded);
      const AffineFns &slot = carriedSlots[op];
      state.push_back({cast<affine::AffineDmaStartOp>(op).getTagMemRef(),
                       substitute(slot, iv,
                                  [&](AffineExpr dim) {
                                    return getAffineConstantExpr(
                                        last - (k - 1) * step,
                                        dim.getContext());
                                  }),
                       loop.getResult(arg), loop.getLoc(), nullptr,
                       /*fromBody=*/true});
      ++arg;
    }
  }
  return success();
}

LogicalResult Converter::convertFunction(func::FuncOp func) {
  if (func.isExternal())
    return success();
  SmallVector<Pending> state;
  if (failed(processBlock(func.getBody().front(), state)))
    return failure();
  for (const Pending &p : state)
    return emitError(p.loc) << "starts a DMA that is never waited";
  for (Operation *op : converted)
    rewriter.eraseOp(op);
  converted.clear();
  tokens.clear();
  SetVector<Value> functionTags = std::move(tags);
  tags.clear();
  for (Value tag : functionTags) {
    Operation *def = tag.getDefiningOp();
    if (!isa_and_nonnull<memref::AllocOp, memref::AllocaOp>(def) ||
        !llvm::all_of(tag.getUsers(),
                      [](Operation *u) { return isa<memref::DeallocOp>(u); }))
      continue;
    for (Operation *user : llvm::make_early_inc_range(tag.getUsers()))
      rewriter.eraseOp(user);
    rewriter.eraseOp(def);
  }
  return rotateModulos(func);
}

//===----------------------------------------------------------------------===//
// Slot arithmetic as rotating values
//===----------------------------------------------------------------------===//

/// The part of an index computation that divides, as a function `expr` of
/// one loop IV (dim 0): it repeats every `period` iterations, up by
/// `drift` (`(iv mod 2) * 4096` has period 2 and drift 0, `iv floordiv 2`
/// period 2 and drift 1).
struct Periodic {
  AffineExpr expr;
  int64_t period = 1, drift = 0;
};

/// Splits `e` (over `operands`) into the terms that divide, summed per
/// loop IV in `parts`, and returns the rest; or an error at `op` for
/// division the rotation cannot express.
static FailureOr<AffineExpr>
splitPeriodic(Operation *op, AffineExpr e, ArrayRef<Value> operands,
              llvm::MapVector<Value, AffineExpr> &parts) {
  SmallVector<AffineExpr> terms;
  std::function<void(AffineExpr)> flatten = [&](AffineExpr t) {
    if (t.getKind() == AffineExprKind::Add) {
      auto add = cast<AffineBinaryOpExpr>(t);
      flatten(add.getLHS());
      flatten(add.getRHS());
    } else {
      terms.push_back(t);
    }
  };
  flatten(e);
  MLIRContext *ctx = e.getContext();
  auto dimsOf = [&](AffineExpr term) {
    SmallVector<unsigned> dims;
    for (unsigned i = 0; i < operands.size(); ++i)
      if (term.isFunctionOfDim(i))
        dims.push_back(i);
    return dims;
  };
  // The IVs that are divided; every term of one of them alone goes with
  // its divisions (`d0 - (d0 floordiv 2) * 2` is `d0 mod 2`, which
  // repeats).
  llvm::SmallDenseSet<unsigned> divided;
  for (AffineExpr term : terms) {
    if (!hasDivision(term))
      continue;
    SmallVector<unsigned> dims = dimsOf(term);
    affine::AffineForOp loop;
    if (dims.size() == 1)
      loop = affine::getForInductionVarOwner(operands[dims[0]]);
    if (!loop || !loop.hasConstantLowerBound())
      return op->emitError()
             << "computes " << formatExpr(term)
             << ": accel's scalar core has no division; only division of "
                "one affine.for IV (with a constant lower bound) can become "
                "a rotating loop value";
    divided.insert(dims[0]);
  }
  AffineExpr rest = getAffineConstantExpr(0, ctx);
  for (AffineExpr term : terms) {
    SmallVector<unsigned> dims = dimsOf(term);
    if (dims.size() != 1 || !divided.contains(dims[0])) {
      rest = rest + term;
      continue;
    }
    // Over the IV alone (dim 0).
    SmallVector<AffineExpr> only(operands.size(),
                                 getAffineConstantExpr(0, ctx));
    only[dims[0]] = getAffineDimExpr(0, ctx);
    AffineExpr &part = parts[operands[dims[0]]];
    part = (part ? part : getAffineConstantExpr(0, ctx)) +
           term.replaceDims(only);
  }
  for (auto &entry : parts)
    entry.second = simplifyAffineExpr(entry.second, 1, 0);
  return simplifyAffineExpr(rest, operands.size(), 0);
}

/// The period and drift of `expr` (of dim 0) over `loop`'s iterations.
static FailureOr<Periodic> findPeriod(Operation *op, AffineExpr expr,
                                      affine::AffineForOp loop) {
  int64_t step = loop.getStepAsInt();
  Value iv = loop.getInductionVar();
  for (int64_t period = 1; period <= kMaxPeriod; ++period) {
    AffineExpr d0 = getAffineDimExpr(0, expr.getContext());
    AffineExpr diff = simplifyAffineExpr(
        expr.replace(d0, d0 + period * step) - expr, 1, 0);
    if (auto c = dyn_cast<AffineConstantExpr>(diff))
      return Periodic{expr, period, c.getValue()};
    // Not constant by simplification: check at every iteration.
    std::optional<int64_t> drift;
    bool constant = true;
    bool checked = forEachPoint(diff, {iv}, [&](ArrayRef<int64_t> point) {
      std::optional<int64_t> v = evaluate(diff, point);
      constant = v && (!drift || *drift == *v);
      drift = v;
      return constant;
    });
    if (checked && constant && drift)
      return Periodic{expr, period, *drift};
  }
  return op->emitError() << "computes " << formatExpr(expr)
                         << " of a loop IV: accel's scalar core has no "
                            "division, and its values do not repeat within "
                         << kMaxPeriod << " iterations";
}

LogicalResult Converter::rotateModulos(func::FuncOp func) {
  // Index computations nothing reads any more (upstream's pipelining
  // leaves some; the tag indices went with the tags) need no values.
  bool erased = true;
  while (erased) {
    erased = false;
    func.walk([&](affine::AffineApplyOp apply) {
      if (apply->use_empty()) {
        rewriter.eraseOp(apply);
        erased = true;
      }
    });
  }

  // Which loops need which periodic values.
  llvm::MapVector<Operation *, SmallVector<Periodic>> wanted;
  SmallVector<affine::AffineApplyOp> applies;
  WalkResult walk = func.walk([&](affine::AffineApplyOp apply) {
    AffineFns fns = normalize(apply.getAffineMap(), apply.getMapOperands());
    llvm::MapVector<Value, AffineExpr> parts;
    if (failed(splitPeriodic(apply, fns.exprs[0], fns.operands, parts)))
      return WalkResult::interrupt();
    if (parts.empty())
      return WalkResult::advance();
    applies.push_back(apply);
    for (auto &[iv, expr] : parts) {
      affine::AffineForOp loop = affine::getForInductionVarOwner(iv);
      SmallVector<Periodic> &list = wanted[loop];
      if (llvm::any_of(list, [&](const Periodic &p) { return p.expr == expr; }))
        continue;
      FailureOr<Periodic> periodic = findPeriod(apply, expr, loop);
      if (failed(periodic))
        return WalkResult::interrupt();
      list.push_back(*periodic);
    }
    return WalkResult::advance();
  });
  if (walk.wasInterrupted())
    return failure();

  // Each loop carries, per periodic value, its values in the next `period`
  // iterations and rotates them (adding the drift to the one that comes
  // round again); one that never changes is a constant.
  DenseMap<Value, SmallVector<std::pair<AffineExpr, Value>>> values; // by IV
  for (auto &[op, list] : wanted) {
    auto loop = cast<affine::AffineForOp>(op);
    int64_t lb = loop.getConstantLowerBound();
    int64_t step = loop.getStepAsInt();
    rewriter.setInsertionPoint(loop);
    SmallVector<Value> carried;
    SmallVector<std::pair<AffineExpr, Value>> fixed;
    SmallVector<const Periodic *> rotated;
    for (const Periodic &p : list) {
      auto at = [&](int64_t j) {
        return arith::ConstantIndexOp::create(
            rewriter, loop.getLoc(),
            *evaluate(p.expr, {lb + j * step}));
      };
      if (p.period == 1 && p.drift == 0) {
        fixed.push_back({p.expr, at(0)});
        continue;
      }
      for (int64_t j = 0; j < p.period; ++j)
        carried.push_back(at(j));
      rotated.push_back(&p);
    }
    Value iv = loop.getInductionVar();
    if (!carried.empty()) {
      FailureOr<LoopLikeOpInterface> replaced =
          loop.replaceWithAdditionalYields(
              rewriter, carried, /*replaceInitOperandUsesInLoop=*/false,
              [&](OpBuilder &b, Location loc, ArrayRef<BlockArgument> args) {
                SmallVector<Value> yields;
                unsigned first = 0;
                for (const Periodic *p : rotated) {
                  for (int64_t j = 1; j < p->period; ++j)
                    yields.push_back(args[first + j]);
                  Value again = args[first];
                  if (p->drift != 0)
                    again = arith::AddIOp::create(
                        b, loc, again,
                        arith::ConstantIndexOp::create(b, loc, p->drift));
                  yields.push_back(again);
                  first += p->period;
                }
                return yields;
              });
      if (failed(replaced))
        return loop.emitError("cannot add the loop's rotating index values");
      loop = cast<affine::AffineForOp>(replaced->getOperation());
      iv = loop.getInductionVar();
      unsigned arg = loop.getNumIterOperands() - carried.size();
      for (const Periodic *p : rotated) {
        values[iv].push_back({p->expr, loop.getRegionIterArgs()[arg]});
        arg += p->period;
      }
    }
    llvm::append_range(values[iv], fixed);
  }

  // Each index computation reads the rotating values instead of dividing.
  for (affine::AffineApplyOp apply : applies) {
    AffineFns fns = normalize(apply.getAffineMap(), apply.getMapOperands());
    llvm::MapVector<Value, AffineExpr> parts;
    FailureOr<AffineExpr> rest =
        splitPeriodic(apply, fns.exprs[0], fns.operands, parts);
    if (failed(rest))
      return failure();
    AffineExpr e = *rest;
    SmallVector<Value> operands = fns.operands;
    for (auto &[iv, expr] : parts) {
      for (auto &[key, value] : values[iv])
        if (key == expr)
          operands.push_back(value);
      e = e + getAffineDimExpr(operands.size() - 1, apply.getContext());
    }
    rewriter.setInsertionPoint(apply);
    rewriter.replaceOpWithNewOp<affine::AffineApplyOp>(
        apply, AffineMap::get(operands.size(), 0, e), operands);
  }
  return success();
}

struct ConvertAffineDmaToAccelPass
    : accel::impl::ConvertAffineDmaToAccelBase<ConvertAffineDmaToAccelPass> {
  void runOnOperation() override {
    Converter converter(&getContext());
    for (auto func : getOperation().getOps<func::FuncOp>())
      if (failed(converter.convertFunction(func)))
        return signalPassFailure();
  }
};

} // namespace
