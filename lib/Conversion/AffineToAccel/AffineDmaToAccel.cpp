//===- AffineDmaToAccel.cpp - affine DMAs with tags to accel tokens -------===//
//
// Passes.td, convert-affine-dma-to-accel: upstream's element-count DMAs
// become 2-D tile DMAs, tag memrefs become tokens (carried through loops
// when a DMA is waited in a later iteration), and the `mod` slot arithmetic
// of multi-buffering becomes rotating loop values.
//
//===----------------------------------------------------------------------===//

#include "AffineFns.h"
#include "accel/Conversion/MemorySpaces.h"
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
using namespace accel::affinedma;

namespace {

/// Most iterations a DMA may be waited after it starts (tokens carried per
/// DMA through a loop).
constexpr int64_t kMaxDistance = 8;

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
  Value tag;        ///< the tag memref it signals
  AffineFns slot;   ///< the tag element
  Value token;      ///< its accel token
  Location loc;     ///< where it started (for diagnostics)
  Operation *start; ///< the affine.dma_start, while it exists
  bool fromBody;    ///< started in the block being processed
};

struct CarriedDmas;

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
  void yieldCarriedTokens(affine::AffineForOp loop, const CarriedDmas &carried,
                          const DenseMap<Operation *, AffineFns> &carriedSlots,
                          unsigned firstArg, SmallVectorImpl<Pending> &state);

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

/// The positive constant `v`, the `what` (e.g. "stride") of `op`. Errors:
/// another value (accel's DMAs move static tiles).
FailureOr<int64_t> getPositiveConstant(affine::AffineDmaStartOp op, Value v,
                                       StringRef what) {
  std::optional<int64_t> c = getConstantIntValue(v);
  if (!c || *c <= 0)
    return op.emitError() << "needs a positive constant " << what
                          << ": accel's DMAs move static tiles";
  return *c;
}

/// Checks the memrefs `op` copies between: both in accel memory spaces,
/// with static shapes, the identity layout, and one subscript per
/// dimension.
LogicalResult checkDmaMemRefs(affine::AffineDmaStartOp op) {
  auto srcType = cast<MemRefType>(op.getSrcMemRef().getType());
  auto dstType = cast<MemRefType>(op.getDstMemRef().getType());
  if (!getMemorySpace(srcType) || !getMemorySpace(dstType))
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
      return op.emitError() << "indexes its " << what << " " << type << " with "
                            << map.getNumResults()
                            << " subscripts; it has rank " << type.getRank();
  return success();
}

/// The (source, destination) patterns that `op`, moving `num` elements
/// between the memrefs checkDmaMemRefs accepted, may move, in the order to
/// try: the slower memory (HBM) is strided, the faster one contiguous; a
/// contiguous DMA tries rows of either side's width, then one row. Errors:
/// a non-constant stride, a stride within one memory space, chunks that
/// are not whole, non-overlapping rows.
FailureOr<SmallVector<std::pair<Pattern, Pattern>>>
getCandidatePatterns(affine::AffineDmaStartOp op, int64_t num) {
  auto srcType = cast<MemRefType>(op.getSrcMemRef().getType());
  auto dstType = cast<MemRefType>(op.getDstMemRef().getType());
  MemorySpace srcSpace = *getMemorySpace(srcType);
  MemorySpace dstSpace = *getMemorySpace(dstType);
  SmallVector<std::pair<Pattern, Pattern>> candidates;
  if (op.isStrided()) {
    FailureOr<int64_t> stride =
        getPositiveConstant(op, op.getStride(), "stride");
    FailureOr<int64_t> perStride = getPositiveConstant(
        op, op.getNumElementsPerStride(), "elements per stride");
    if (failed(stride) || failed(perStride))
      return failure();
    if (srcSpace == dstSpace)
      return op.emitError("is strided between two memrefs in the same memory "
                          "space: the stride applies to the slower memory");
    if (num % *perStride != 0 || *stride < *perStride)
      return op.emitError()
             << "moves " << num << " elements in chunks of " << *perStride
             << " every " << *stride
             << " elements: accel's tiles need whole, non-overlapping rows";
    Pattern strided{num / *perStride, *perStride, *stride};
    Pattern block{strided.rows, strided.cols, strided.cols};
    bool srcSlow = srcSpace == MemorySpace::HBM;
    candidates.push_back(srcSlow ? std::make_pair(strided, block)
                                 : std::make_pair(block, strided));
    return candidates;
  }
  MemRefType fast = dstSpace == MemorySpace::VMEM ? dstType : srcType;
  MemRefType slow = fast == dstType ? srcType : dstType;
  for (int64_t width : {fast.getShape().back(), slow.getShape().back()})
    if (width < num && num % width == 0) {
      Pattern p{num / width, width, width};
      candidates.push_back({p, p});
    }
  Pattern row{1, num, num};
  candidates.push_back({row, row});
  return candidates;
}

/// Replaces `op` by an accel.dma_start of the first candidate pattern both
/// sides can hold as a tile view, and records it as pending in `state`.
/// Errors: a non-constant or non-positive element count, the checks of
/// checkDmaMemRefs and getCandidatePatterns, a tile past kMaxTileDim, no
/// candidate that fits (with the first reason).
LogicalResult Converter::processStart(affine::AffineDmaStartOp op,
                                      SmallVectorImpl<Pending> &state) {
  FailureOr<int64_t> num =
      getPositiveConstant(op, op.getNumElements(), "element count");
  if (failed(num) || failed(checkDmaMemRefs(op)))
    return failure();
  auto srcType = cast<MemRefType>(op.getSrcMemRef().getType());
  auto dstType = cast<MemRefType>(op.getDstMemRef().getType());
  AffineFns srcIdx = normalize(op.getSrcMap(), op.getSrcIndices());
  AffineFns dstIdx = normalize(op.getDstMap(), op.getDstIndices());
  FailureOr<SmallVector<std::pair<Pattern, Pattern>>> candidates =
      getCandidatePatterns(op, *num);
  if (failed(candidates))
    return failure();
  std::string why;
  for (auto [srcPattern, dstPattern] : *candidates) {
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
      return op.emitError()
             << "moves a " << srcPattern.rows << " x " << srcPattern.cols
             << " tile: the ISA's tile dimensions are at most " << kMaxTileDim;
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

/// The DMAs started in a loop's body and waited in a later iteration.
struct CarriedDmas {
  /// Each such affine.dma_start, in body order, with the most iterations
  /// between it and a wait on its slot (at most kMaxDistance).
  llvm::MapVector<Operation *, int64_t> distance;
  /// The first wait on a DMA of an earlier iteration (for diagnostics).
  Operation *firstWait = nullptr;
  /// The loop's constant IV range, once distance is known to be non-empty.
  std::optional<IvRange> range;
};

/// Which DMAs started in `loop`'s body are waited in a later iteration,
/// and how many iterations later: a wait in iteration i on the slot a start
/// signals in iteration i - d. A wait on a slot signalled in its own
/// iteration carries nothing.
CarriedDmas findCarriedDmas(affine::AffineForOp loop) {
  CarriedDmas carried;
  Value iv = loop.getInductionVar();
  int64_t step = loop.getStepAsInt();
  SmallVector<affine::AffineDmaStartOp> starts;
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
      AffineFns earlier = substitute(
          tagSlot(start), iv, [&](AffineExpr dim) { return dim - d * step; });
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
        carried.distance[start] = std::max(carried.distance.lookup(start), d);
        carried.firstWait = carried.firstWait ? carried.firstWait : wait;
        found = true;
      }
  }
  return carried;
}

/// The initial values of `loop`'s carried tokens: per carried DMA and per
/// iteration k = 1..d before the first, the token of the latest DMA in
/// `state` (the DMAs before the loop) that signals that iteration's slot,
/// removed from `state`. Sets carried.range. Errors (at the first carried
/// wait): a loop without constant bounds, a slot no DMA before the loop
/// signals.
FailureOr<SmallVector<Value>>
takeInitialTokens(affine::AffineForOp loop, CarriedDmas &carried,
                  SmallVectorImpl<Pending> &state) {
  Value iv = loop.getInductionVar();
  int64_t step = loop.getStepAsInt();
  SmallVector<Value> inits;
  if (!carried.distance.empty()) {
    carried.range = getIvRange(iv);
    if (!carried.range)
      return carried.firstWait->emitError()
             << "waits for a DMA started in an earlier iteration of a loop "
                "without constant bounds: accel needs them to carry the "
                "DMA's token";
  }
  for (auto [op, d] : carried.distance) {
    auto start = cast<affine::AffineDmaStartOp>(op);
    for (int64_t k = 1; k <= d; ++k) {
      AffineFns slot = substitute(tagSlot(start), iv, [&](AffineExpr dim) {
        return getAffineConstantExpr(carried.range->lb - k * step,
                                     dim.getContext());
      });
      // The latest such DMA (a slot signalled twice is waited by the
      // first wait on it).
      auto *match = state.end();
      for (auto *it = state.begin(); it != state.end(); ++it)
        if (it->tag == start.getTagMemRef() && sameElement(it->slot, slot))
          match = it;
      if (match == state.end())
        return carried.firstWait->emitError()
               << "waits for the DMA started " << d
               << " iteration(s) earlier, but before the loop no "
                  "affine.dma_start signals tag element "
               << formatFns(slot) << " for its first iteration(s)";
      inits.push_back(match->token);
      state.erase(match);
    }
  }
  return inits;
}

/// What `loop`'s body sees in flight: the DMAs of `state` (not from the
/// body), then per carried DMA and k = 1..d the one started k iterations
/// earlier, as the iter_args from `firstArg` on.
SmallVector<Pending> getBodyState(affine::AffineForOp loop,
                                  const CarriedDmas &carried,
                                  ArrayRef<Pending> state, unsigned firstArg) {
  Value iv = loop.getInductionVar();
  int64_t step = loop.getStepAsInt();
  SmallVector<Pending> body;
  for (const Pending &p : state)
    body.push_back({p.tag, p.slot, p.token, p.loc, p.start, false});
  unsigned arg = firstArg;
  for (auto [op, d] : carried.distance) {
    auto start = cast<affine::AffineDmaStartOp>(op);
    for (int64_t k = 1; k <= d; ++k)
      body.push_back(
          {start.getTagMemRef(),
           substitute(tagSlot(start), iv,
                      [&](AffineExpr dim) { return dim - k * step; }),
           loop.getRegionIterArgs()[arg++], start.getLoc(), nullptr, false});
  }
  return body;
}

/// Each iteration of `loop` yields its carried DMAs' tokens and shifts the
/// older ones (iter_args from `firstArg` on); after the loop the results
/// are the last iterations' DMAs, added to `state` with their slots
/// (`carriedSlots`, by start op) at those iterations.
void Converter::yieldCarriedTokens(
    affine::AffineForOp loop, const CarriedDmas &carried,
    const DenseMap<Operation *, AffineFns> &carriedSlots, unsigned firstArg,
    SmallVectorImpl<Pending> &state) {
  Value iv = loop.getInductionVar();
  int64_t step = loop.getStepAsInt();
  const IvRange &range = *carried.range;
  auto yield = cast<affine::AffineYieldOp>(loop.getBody()->getTerminator());
  int64_t trips =
      range.ub > range.lb ? llvm::divideCeil(range.ub - range.lb, step) : 0;
  int64_t last = range.lb + (trips - 1) * step;
  unsigned arg = firstArg;
  for (auto [op, d] : carried.distance) {
    for (int64_t k = 1; k <= d; ++k) {
      Value yielded =
          k == 1 ? tokens.lookup(op) : Value(loop.getRegionIterArgs()[arg - 1]);
      yield->setOperand(arg, yielded);
      const AffineFns &slot = carriedSlots.find(op)->second;
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
}

/// Converts the DMAs of `loop`'s body with `state` the DMAs in flight
/// before it: DMAs waited in a later iteration carry their tokens through
/// new iter_args (initialized from DMAs before the loop), and the last
/// iterations' ones are in flight after it. Errors: those of
/// takeInitialTokens and of the body, a DMA of the body never waited.
LogicalResult Converter::processLoop(affine::AffineForOp loop,
                                     SmallVectorImpl<Pending> &state) {
  CarriedDmas carried = findCarriedDmas(loop);
  FailureOr<SmallVector<Value>> inits = takeInitialTokens(loop, carried, state);
  if (failed(inits))
    return failure();
  if (!inits->empty()) {
    FailureOr<LoopLikeOpInterface> replaced = loop.replaceWithAdditionalYields(
        rewriter, *inits, /*replaceInitOperandUsesInLoop=*/false,
        [](OpBuilder &, Location, ArrayRef<BlockArgument> args) {
          return SmallVector<Value>(args.begin(), args.end());
        });
    if (failed(replaced))
      return loop.emitError("cannot add the loop's carried DMA tokens");
    loop = cast<affine::AffineForOp>(replaced->getOperation());
  }

  // The body sees the DMAs in flight before it (carried ones as
  // iter_args) and adds its own.
  unsigned firstArg = loop.getNumIterOperands() - inits->size();
  SmallVector<Pending> body = getBodyState(loop, carried, state, firstArg);
  // tagSlot reads the op: note the carried starts' slots before they go.
  DenseMap<Operation *, AffineFns> carriedSlots;
  for (auto [op, d] : carried.distance)
    carriedSlots[op] = tagSlot(cast<affine::AffineDmaStartOp>(op));
  if (failed(processBlock(*loop.getBody(), body)))
    return failure();

  // What the body leaves: its own DMAs must be carried; outer ones it
  // waited are gone.
  for (const Pending &p : body)
    if (p.fromBody && !carried.distance.count(p.start))
      return emitError(p.loc) << "starts a DMA that is never waited in its "
                                 "loop's iteration or a later one";
  llvm::erase_if(state, [&](const Pending &p) {
    return llvm::none_of(body,
                         [&](const Pending &b) { return b.token == p.token; });
  });
  if (!carried.distance.empty())
    yieldCarriedTokens(loop, carried, carriedSlots, firstArg, state);
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
  return rotateModulos(func, rewriter);
}

struct ConvertAffineDmaToAccelPass
    : accel::impl::ConvertAffineDmaToAccelBase<ConvertAffineDmaToAccelPass> {
  void runOnOperation() override {
    // Shapes whose byte size passes 2^63 would wrap in planView.
    if (failed(accel::verifyShapeSizes(getOperation())))
      return signalPassFailure();
    Converter converter(&getContext());
    for (auto func : getOperation().getOps<func::FuncOp>())
      if (failed(converter.convertFunction(func)))
        return signalPassFailure();
  }
};

} // namespace
