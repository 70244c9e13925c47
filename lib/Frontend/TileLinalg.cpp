//===- TileLinalg.cpp - linalg ops on buffers into VMEM-sized tiles -------===//
//
// Passes.td, accel-tile-linalg: upstream's TilingInterface tiling
// (scf::tileUsingSCF) with tile sizes that fit the machine's VMEM.
//
//===----------------------------------------------------------------------===//

#include "Contraction.h"
#include "accel/Conversion/MemorySpaces.h"
#include "accel/Dialect/Accel/TileShape.h"
#include "accel/Frontend/Passes.h"
#include "accel/Support/PassOptions.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/ADT/SmallBitVector.h"
#include "llvm/Support/MathExtras.h"

namespace accel {
#define GEN_PASS_DEF_ACCELTILELINALG
#include "accel/Frontend/Passes.h.inc"
} // namespace accel

using namespace mlir;
using namespace accel;

namespace {

/// Bytes of VMEM the operand tiles of `op` take with `tile` sizes per loop
/// (0: the whole loop range `ranges`): each operand's tile is the product
/// of the sizes of the loops its indexing map reads, times its element
/// size (2 bytes for bf16, else 4). Saturates at 2^64 - 1 (whole loop
/// ranges are the user's dimensions: their product may pass it).
uint64_t tileFootprint(linalg::LinalgOp op, ArrayRef<int64_t> ranges,
                       ArrayRef<int64_t> tile) {
  uint64_t bytes = 0;
  for (OpOperand &operand : op->getOpOperands()) {
    if (!isa<ShapedType>(operand.get().getType()))
      continue;
    uint64_t elements = 1;
    for (AffineExpr e : op.getMatchingIndexingMap(&operand).getResults())
      if (auto d = dyn_cast<AffineDimExpr>(e)) {
        unsigned l = d.getPosition();
        elements = llvm::SaturatingMultiply(
            elements, uint64_t(tile[l] ? tile[l] : ranges[l]));
      }
    Type elem = getElementTypeOrSelf(operand.get().getType());
    bytes = llvm::SaturatingAdd(
        bytes,
        llvm::SaturatingMultiply(elements, uint64_t(elem.isBF16() ? 2 : 4)));
  }
  return bytes;
}

/// How dropUnitLoops views one operand: the results of its map that stay,
/// the sizes of the dimensions they index (memref operands only), and
/// whether it needs a rank-reducing subview (a dimension went).
struct OperandDropPlan {
  SmallVector<AffineExpr> kept;
  SmallVector<int64_t> keptShape;
  bool reduce = false;
};

/// The plan for `operand` of `generic` without the loops `drop` (the same
/// loops set in `dropped`): a dimension indexed by a dropped loop alone
/// goes, and so do unit dimensions indexed by 0 while more than two are
/// left. Failure when a dropped loop indexes a dimension other than alone
/// (d0 + d1) or a dimension it indexes is not of size 1.
FailureOr<OperandDropPlan>
planOperandDrop(linalg::GenericOp generic, OpOperand &operand,
                const llvm::SmallDenseSet<unsigned> &drop,
                const llvm::SmallBitVector &dropped) {
  AffineMap map = generic.getMatchingIndexingMap(&operand);
  auto type = dyn_cast<MemRefType>(operand.get().getType());
  OperandDropPlan plan;
  for (auto [k, e] : llvm::enumerate(map.getResults())) {
    auto d = dyn_cast<AffineDimExpr>(e);
    if (d && dropped.test(d.getPosition())) {
      if (!type || type.getDimSize(k) != 1)
        return failure();
      plan.reduce = true;
      continue;
    }
    for (unsigned l : drop)
      if (e.isFunctionOfDim(l))
        return failure();
    plan.kept.push_back(e);
    if (type)
      plan.keptShape.push_back(type.getDimSize(k));
  }
  // Dimensions of size 1 indexed by 0 (a broadcast, (d0, 0, 0, d3))
  // go too while more than two are left: a tile has two.
  for (size_t k = 0; type && plan.kept.size() > 2 && k < plan.kept.size();) {
    auto c = dyn_cast<AffineConstantExpr>(plan.kept[k]);
    if (c && c.getValue() == 0 && plan.keptShape[k] == 1) {
      plan.kept.erase(plan.kept.begin() + k);
      plan.keptShape.erase(plan.keptShape.begin() + k);
      plan.reduce = true;
      continue;
    }
    ++k;
  }
  return plan;
}

/// Memref `v` as `plan` views it: when the plan drops dimensions, a
/// rank-reducing memref.subview of the whole of `v` (created at the
/// rewriter's insertion point, at `loc`) of shape `plan.keptShape`; else
/// `v` itself.
Value viewAsPlanned(IRRewriter &rewriter, Location loc, Value v,
                    const OperandDropPlan &plan) {
  if (!plan.reduce)
    return v;
  auto type = cast<MemRefType>(v.getType());
  SmallVector<int64_t> offsets(type.getRank(), 0), strides(type.getRank(), 1);
  auto reduced = memref::SubViewOp::inferRankReducedResultType(
      plan.keptShape, type, offsets, type.getShape(), strides);
  return memref::SubViewOp::create(
      rewriter, loc, cast<MemRefType>(reduced), v,
      getAsIndexOpFoldResult(rewriter.getContext(), offsets),
      getAsIndexOpFoldResult(rewriter.getContext(), type.getShape()),
      getAsIndexOpFoldResult(rewriter.getContext(), strides));
}

/// Renumbers the linalg.index ops in `generic`'s body after its loops
/// `dropped` went: the index of a dropped loop (one iteration: tiling
/// added its offset outside the index) becomes the constant 0, the others
/// count the loops kept.
void renumberIndices(IRRewriter &rewriter, linalg::GenericOp generic,
                     const llvm::SmallBitVector &dropped) {
  SmallVector<linalg::IndexOp> indices;
  generic.getRegion().walk([&](linalg::IndexOp op) { indices.push_back(op); });
  for (linalg::IndexOp index : indices) {
    unsigned d = index.getDim();
    rewriter.setInsertionPoint(index);
    if (dropped.test(d)) {
      rewriter.replaceOpWithNewOp<arith::ConstantIndexOp>(index, 0);
      continue;
    }
    unsigned before = 0;
    for (unsigned l = 0; l < d; ++l)
      before += dropped.test(l);
    rewriter.modifyOpInPlace(index, [&] { index.setDim(d - before); });
  }
}

/// The loops of `op` (of static loop ranges `ranges`) that
/// tileLeadingLoops tiles by 1, or nullopt when it does not apply: a
/// contraction's batch loops and all but the last of its M and N loops
/// (nullopt when it has no M, N or single K loop, or is a plain matmul);
/// for any other op, every loop but the last and the rows' loop.
std::optional<llvm::SmallDenseSet<unsigned>>
getLeadingLoops(linalg::LinalgOp op, ArrayRef<int64_t> ranges) {
  unsigned n = op.getNumLoops();
  llvm::SmallDenseSet<unsigned> lead;
  if (linalg::isaContractionOpInterface(op)) {
    FailureOr<linalg::ContractionDimensions> dims =
        linalg::inferContractionDims(op);
    // Batch loops, and all but the last of several M or N loops (a
    // convolution tap's (n, oh, ow) x (f), accel-decompose-linalg), run
    // one iteration at a time around the matmul of the last ones.
    if (failed(dims) || dims->m.empty() || dims->n.empty() ||
        dims->k.size() != 1 ||
        (dims->batch.empty() && dims->m.size() == 1 && dims->n.size() == 1))
      return std::nullopt;
    lead.insert(dims->batch.begin(), dims->batch.end());
    lead.insert(dims->m.begin(), dims->m.end() - 1);
    lead.insert(dims->n.begin(), dims->n.end() - 1);
    return lead;
  }
  // The tiles' rows are the longest parallel loop but the last (the
  // lanes), not necessarily the one before it: a copy that moves heads
  // ((h, s, d) -> (s, h, d), attention's heads put back) is then 4
  // tiles of s x d, not 64 of h x d, each a DMA in and out.
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  auto parallel = [&](unsigned l) {
    return iterators[l] == utils::IteratorType::parallel;
  };
  unsigned rows = n - 2;
  if (parallel(rows))
    for (unsigned l = 0; l + 2 < n; ++l)
      if (parallel(l) && ranges[l] > ranges[rows])
        rows = l;
  for (unsigned l = 0; l + 1 < n; ++l)
    if (l != rows)
      lead.insert(l);
  return lead;
}

/// Replaces `generic` by a linalg.matmul, which the MXU runs, when it is
/// one in matmul form: three loops, (m, k) x (k, n) -> (m, n) and a
/// multiply-add body (isaContractionOpInterface). A contraction with a
/// transposed operand stays a generic; accel-stage-operands transposes
/// that operand's tiles in VMEM.
void restoreMatmul(IRRewriter &rewriter, linalg::GenericOp generic) {
  if (generic.getNumLoops() != 3 || !linalg::isaContractionOpInterface(generic))
    return;
  MLIRContext *ctx = rewriter.getContext();
  AffineExpr m = getAffineDimExpr(0, ctx), n = getAffineDimExpr(1, ctx),
             k = getAffineDimExpr(2, ctx);
  SmallVector<AffineMap> matmulMaps = {AffineMap::get(3, 0, {m, k}, ctx),
                                       AffineMap::get(3, 0, {k, n}, ctx),
                                       AffineMap::get(3, 0, {m, n}, ctx)};
  if (generic.getIndexingMapsArray() != matmulMaps ||
      generic.getNumDpsInputs() != 2 || generic.getNumDpsInits() != 1)
    return;
  rewriter.setInsertionPoint(generic);
  linalg::MatmulOp::create(rewriter, generic.getLoc(), generic.getDpsInputs(),
                           generic.getDpsInits());
  rewriter.eraseOp(generic);
}

/// How to fold the loops of `op` (on buffers, more than two loops, not a
/// contraction) into two, for collapseOpIterationDims: the leading loops
/// into rows; failing that, when an operand reads neither of the last two
/// loops, the trailing loops into lanes. Empty when neither applies or the
/// op must keep its loops (it reads linalg.index, or a map is not a
/// projected permutation).
SmallVector<ReassociationIndices> getLoopFolds(linalg::LinalgOp op) {
  unsigned n = op.getNumLoops();
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  // Upstream's collapse handles projected permutations only: a map
  // with a constant result ((d0, d1, 0), a broadcast of a unit
  // dimension) makes an invalid collapse_shape; such ops get loops
  // around 2-D tiles below.
  // An op that reads linalg.index keeps its loops: a collapsed index
  // would be a division and a remainder of the folded one, which the
  // VPU's iota cannot give (IndexExpr.h).
  if (op.hasIndexSemantics() ||
      llvm::any_of(op.getIndexingMapsArray(),
                   [](AffineMap map) { return !map.isProjectedPermutation(); }))
    return {};
  auto parallel = [&](ArrayRef<int64_t> loops) {
    return llvm::all_of(loops, [&](int64_t l) {
      return iterators[l] == utils::IteratorType::parallel;
    });
  };
  // The leading loops into rows; failing that, when an operand reads
  // neither of the last two loops (it would be a rank-0 tile of the
  // loops around 2-D tiles below), the trailing loops into lanes from
  // the last that keeps every operand in order, the loops before them
  // left for loops around 2-D tiles (an NCHW bias read by (d1):
  // (d0, d1, d2 * d3), the bias a column of each tile). Otherwise the
  // tiles stay over the last two loops (a mask broadcast over heads).
  SmallVector<ReassociationIndices> folds;
  ReassociationIndices lead;
  for (unsigned l = 0; l + 1 < n; ++l)
    lead.push_back(l);
  if (parallel(lead) &&
      linalg::areDimSequencesPreserved(op.getIndexingMapsArray(),
                                       {lead, {int64_t(n - 1)}}))
    folds = {lead, {int64_t(n - 1)}};
  bool rank0Tile = llvm::any_of(op.getIndexingMapsArray(), [&](AffineMap m) {
    return m.getNumResults() > 0 && !m.isFunctionOfDim(n - 1) &&
           !m.isFunctionOfDim(n - 2);
  });
  for (unsigned k = 1; rank0Tile && folds.empty() && k + 1 < n; ++k) {
    SmallVector<ReassociationIndices> trailing;
    for (unsigned l = 0; l < k; ++l)
      trailing.push_back({int64_t(l)});
    ReassociationIndices tail;
    for (unsigned l = k; l < n; ++l)
      tail.push_back(l);
    trailing.push_back(tail);
    if (parallel(tail) &&
        linalg::areDimSequencesPreserved(op.getIndexingMapsArray(), trailing))
      folds = trailing;
  }
  return folds;
}

struct AccelTileLinalgPass
    : accel::CheckedOptionsPass<
          AccelTileLinalgPass,
          accel::impl::AccelTileLinalgBase<AccelTileLinalgPass>> {
  using CheckedOptionsPass::CheckedOptionsPass;

  /// The tile sizes are ISA tile dimensions and the VMEM capacity a
  /// config's: a value outside them is an error, not tiling turned off.
  std::string checkOptions() const {
    return firstOptionProblem(
        {checkOptionRange<int64_t>("tile-rows", tileRows, 1, kMaxTileDim,
                                   "a tile dimension of the ISA"),
         checkOptionRange<int64_t>("tile-cols", tileCols, 1, kMaxTileDim,
                                   "a tile dimension of the ISA"),
         checkOptionRange<int64_t>("tile-k", tileK, 1, kMaxTileDim,
                                   "a tile dimension of the ISA"),
         checkVmemBytesOption(vmemBytes)});
  }

  /// Tile sizes per loop of `op` (0: not tiled), or nullopt to leave it.
  std::optional<SmallVector<int64_t>> getTileSizes(linalg::LinalgOp op) {
    SmallVector<int64_t> ranges = op.getStaticLoopRanges();
    if (ranges.empty() || ranges.size() > 3 ||
        llvm::any_of(ranges, ShapedType::isDynamic))
      return std::nullopt;
    SmallVector<int64_t> want;
    if (std::optional<ContractionRoles> roles = getContractionRoles(op)) {
      // linalg.matmul, or a contraction reading an operand transposed.
      want.assign(3, 0);
      want[roles->m] = tileRows;
      want[roles->n] = tileCols;
      want[roles->k] = tileK;
    } else if (ranges.size() == 2)
      want = {tileRows, tileCols};
    else if (ranges.size() == 1)
      want = {tileCols};
    else
      return std::nullopt;
    SmallVector<int64_t> tile(ranges.size(), 0);
    for (size_t l = 0; l < ranges.size(); ++l)
      if (want[l] > 0 && ranges[l] > want[l])
        tile[l] = want[l];
    // Shrink the largest tile dimension until a quarter of VMEM holds it.
    while (tileFootprint(op, ranges, tile) > vmemBytes / 4) {
      size_t largest = 0;
      int64_t size = 0;
      for (size_t l = 0; l < ranges.size(); ++l) {
        int64_t s = tile[l] ? tile[l] : ranges[l];
        if (s > size)
          largest = l, size = s;
      }
      if (size <= 1)
        break;
      tile[largest] = std::max<int64_t>(1, size / 2);
    }
    if (llvm::all_of(tile, [](int64_t t) { return t == 0; }))
      return std::nullopt;
    return tile;
  }

  /// Whether `op` has two loops, (parallel, reduction), and reads every
  /// input transposed ((d0, d1) -> (d1, d0)) or along d0 only, and writes
  /// along d0: a reduction over the first dimension of its inputs, whose
  /// loops interchanged read them in order.
  static bool readsFirstDimReduced(linalg::GenericOp op) {
    if (op.getNumLoops() != 2 ||
        op.getIteratorTypesArray() !=
            SmallVector<utils::IteratorType>{utils::IteratorType::parallel,
                                             utils::IteratorType::reduction})
      return false;
    MLIRContext *ctx = op.getContext();
    AffineExpr d0 = getAffineDimExpr(0, ctx), d1 = getAffineDimExpr(1, ctx);
    AffineMap transposed = AffineMap::get(2, 0, {d1, d0}, ctx);
    AffineMap alongD0 = AffineMap::get(2, 0, {d0}, ctx);
    bool anyTransposed = false;
    for (OpOperand &operand : op->getOpOperands()) {
      if (!isa<ShapedType>(operand.get().getType()))
        continue;
      AffineMap map = op.getMatchingIndexingMap(&operand);
      if (op.isDpsInit(&operand)) {
        if (map != alongD0)
          return false;
        continue;
      }
      if (map == transposed)
        anyTransposed = true;
      else if (map != alongD0)
        return false;
    }
    return anyTransposed;
  }

  /// `generic` (on buffers) without its loops `drop`, each of one
  /// iteration: every operand indexed by one of them is viewed without that
  /// dimension (a rank-reducing memref.subview), and the maps and iterators
  /// lose it. Failure (nothing created) when a dropped loop indexes an
  /// operand other than alone in a dimension (d0 + d1) or a dimension is
  /// not of size 1.
  FailureOr<linalg::GenericOp>
  dropUnitLoops(IRRewriter &rewriter, linalg::GenericOp generic,
                const llvm::SmallDenseSet<unsigned> &drop) {
    unsigned n = generic.getNumLoops();
    llvm::SmallBitVector dropped(n);
    for (unsigned l : drop)
      dropped.set(l);
    SmallVector<OperandDropPlan> plans;
    for (OpOperand &operand : generic->getOpOperands()) {
      FailureOr<OperandDropPlan> plan =
          planOperandDrop(generic, operand, drop, dropped);
      if (failed(plan))
        return failure();
      plans.push_back(std::move(*plan));
    }
    Location loc = generic.getLoc();
    SmallVector<Value> operands;
    SmallVector<AffineMap> maps;
    for (auto [operand, plan] : llvm::zip(generic->getOpOperands(), plans)) {
      operands.push_back(viewAsPlanned(rewriter, loc, operand.get(), plan));
      maps.push_back(compressDims(
          AffineMap::get(n, 0, plan.kept, rewriter.getContext()), dropped));
    }
    SmallVector<utils::IteratorType> iterators;
    for (auto [l, it] : llvm::enumerate(generic.getIteratorTypesArray()))
      if (!dropped.test(l))
        iterators.push_back(it);
    unsigned numInputs = generic.getNumDpsInputs();
    auto result = linalg::GenericOp::create(
        rewriter, loc, TypeRange{}, ArrayRef(operands).take_front(numInputs),
        ArrayRef(operands).drop_front(numInputs), maps, iterators);
    result.getRegion().takeBody(generic.getRegion());
    renumberIndices(rewriter, result, dropped);
    return result;
  }

  /// `op`, with more loops than a tile has dimensions and leading loops
  /// that do not fold into rows, as a loop nest of one iteration per
  /// leading index around an op on 2-D tiles: the batch dimensions of a
  /// contraction (linalg::inferContractionDims), or of any other op every
  /// loop but the last and its longest parallel loop before it, are tiled
  /// by 1 (scf::tileUsingSCF), and the unit
  /// dimensions this leaves are dropped (dropUnitLoops, rank-reducing
  /// subviews); a contraction left with three loops in matmul form becomes
  /// linalg.matmul again. An op this does
  /// not apply to is left as it is (accel-stage-operands then refuses it
  /// with its reason); a tiling that fails is an error at the op.
  LogicalResult tileLeadingLoops(IRRewriter &rewriter, linalg::LinalgOp op) {
    unsigned n = op.getNumLoops();
    SmallVector<int64_t> ranges = op.getStaticLoopRanges();
    if (llvm::any_of(ranges, ShapedType::isDynamic))
      return success();
    std::optional<llvm::SmallDenseSet<unsigned>> lead =
        getLeadingLoops(op, ranges);
    if (!lead)
      return success();
    rewriter.setInsertionPoint(op);
    linalg::GenericOp generic = dyn_cast<linalg::GenericOp>(op.getOperation());
    if (!generic) {
      FailureOr<linalg::GenericOp> g = linalg::generalizeNamedOp(rewriter, op);
      if (failed(g))
        return success();
      generic = *g;
    }
    SmallVector<OpFoldResult> sizes;
    for (unsigned l = 0; l < n; ++l)
      sizes.push_back(rewriter.getIndexAttr(lead->contains(l) ? 1 : 0));
    scf::SCFTilingOptions options;
    options.setTileSizes(sizes);
    FailureOr<scf::SCFTilingResult> tiled = scf::tileUsingSCF(
        rewriter, cast<TilingInterface>(generic.getOperation()), options);
    if (failed(tiled) || tiled->tiledOps.size() != 1) {
      generic.emitError("cannot tile the leading loops of this op by one");
      return failure();
    }
    rewriter.eraseOp(generic);
    auto inner = dyn_cast<linalg::GenericOp>(tiled->tiledOps.front());
    if (!inner)
      return success();
    rewriter.setInsertionPoint(inner);
    FailureOr<linalg::GenericOp> dropped =
        dropUnitLoops(rewriter, inner, *lead);
    if (failed(dropped))
      return success();
    rewriter.eraseOp(inner);
    restoreMatmul(rewriter, *dropped);
    return success();
  }

  /// A copy between two memrefs outside VMEM (bufferization's copies of a
  /// tensor used twice), or of more than two dimensions (a result in a
  /// VMEM buffer, accel-promote-buffers, copied to its output argument),
  /// becomes a linalg.copy, tiled like the rest.
  void copiesToLinalg(IRRewriter &rewriter) {
    SmallVector<memref::CopyOp> copies;
    getOperation().walk([&](memref::CopyOp copy) {
      auto type = cast<MemRefType>(copy.getSource().getType());
      if (type.hasStaticShape() &&
          ((isInHbm(type) && isInHbm(copy.getTarget().getType())) ||
           type.getRank() > 2))
        copies.push_back(copy);
    });
    for (memref::CopyOp copy : copies) {
      rewriter.setInsertionPoint(copy);
      rewriter.replaceOpWithNewOp<linalg::CopyOp>(copy, copy.getSource(),
                                                  copy.getTarget());
    }
  }

  /// Rank > 2: the leading parallel loops of an op on buffers (not a
  /// contraction) fold into rows (upstream's collapseOpIterationDims, on
  /// the generic form), when every operand keeps them together and in
  /// order; or its trailing loops into lanes (getLoopFolds).
  void foldDeepLoops(IRRewriter &rewriter) {
    SmallVector<linalg::LinalgOp> deep;
    getOperation().walk([&](linalg::LinalgOp op) {
      if (op.hasPureBufferSemantics() && op.getNumLoops() > 2 &&
          !linalg::isaContractionOpInterface(op))
        deep.push_back(op);
    });
    for (linalg::LinalgOp op : deep) {
      SmallVector<ReassociationIndices> folds = getLoopFolds(op);
      if (folds.empty())
        continue;
      rewriter.setInsertionPoint(op);
      linalg::LinalgOp generic = op;
      if (!isa<linalg::GenericOp, linalg::CopyOp>(op)) {
        FailureOr<linalg::GenericOp> g =
            linalg::generalizeNamedOp(rewriter, op);
        if (failed(g))
          continue;
        generic = *g;
      }
      FailureOr<linalg::CollapseResult> collapsed =
          linalg::collapseOpIterationDims(generic, folds, rewriter);
      if (succeeded(collapsed))
        rewriter.eraseOp(generic);
    }
  }

  /// What did not fold: loops around 2-D tiles (batch dimensions, heads,
  /// transposes of leading dimensions), tileLeadingLoops on each op on
  /// buffers with more loops than a tile (or a matmul) has. Failure after
  /// the error at the first op whose tiling fails.
  LogicalResult tileBatchedOps(IRRewriter &rewriter) {
    SmallVector<linalg::LinalgOp> batched;
    getOperation().walk([&](linalg::LinalgOp op) {
      if (op.hasPureBufferSemantics() &&
          op.getNumLoops() > (linalg::isaContractionOpInterface(op) ? 3 : 2))
        batched.push_back(op);
    });
    for (linalg::LinalgOp op : batched)
      if (failed(tileLeadingLoops(rewriter, op)))
        return failure();
    return success();
  }

  /// A reduction over the first dimension of its input, as the StableHLO
  /// conversion writes it (the input read transposed, (d0, d1) -> (d1,
  /// d0), the reduced loop last): the loops interchanged, so the input is
  /// read in order and the reduction runs over the rows of its tiles
  /// (the conversion's column reduction).
  void interchangeColumnReductions(IRRewriter &rewriter) {
    SmallVector<linalg::GenericOp> columnReductions;
    getOperation().walk([&](linalg::GenericOp op) {
      if (op.hasPureBufferSemantics() && readsFirstDimReduced(op))
        columnReductions.push_back(op);
    });
    for (linalg::GenericOp op : columnReductions) {
      rewriter.setInsertionPoint(op);
      (void)linalg::interchangeGenericOp(rewriter, op, {1, 0});
    }
  }

  /// Tiles every linalg op on buffers into VMEM-sized tiles (getTileSizes,
  /// scf::tileUsingSCF). Failure after the error at the first op whose
  /// tiling fails.
  LogicalResult tileIntoVmem(IRRewriter &rewriter) {
    SmallVector<linalg::LinalgOp> ops;
    getOperation().walk([&](linalg::LinalgOp op) {
      if (op.hasPureBufferSemantics())
        ops.push_back(op);
    });
    for (linalg::LinalgOp op : ops) {
      std::optional<SmallVector<int64_t>> sizes = getTileSizes(op);
      if (!sizes)
        continue;
      SmallVector<OpFoldResult> tileSizes;
      for (int64_t s : *sizes)
        tileSizes.push_back(rewriter.getIndexAttr(s));
      scf::SCFTilingOptions options;
      options.setTileSizes(tileSizes);
      rewriter.setInsertionPoint(op);
      FailureOr<scf::SCFTilingResult> tiled = scf::tileUsingSCF(
          rewriter, cast<TilingInterface>(op.getOperation()), options);
      if (failed(tiled)) {
        op.emitError("cannot tile this op into VMEM-sized tiles");
        return failure();
      }
      rewriter.eraseOp(op);
    }
    return success();
  }

  void runOnOperation() override {
    // Shapes whose byte size passes 2^63 would wrap in tileFootprint.
    if (failed(accel::verifyShapeSizes(getOperation())))
      return signalPassFailure();
    IRRewriter rewriter(&getContext());
    copiesToLinalg(rewriter);
    foldDeepLoops(rewriter);
    if (failed(tileBatchedOps(rewriter)))
      return signalPassFailure();
    interchangeColumnReductions(rewriter);
    if (failed(tileIntoVmem(rewriter)))
      return signalPassFailure();
  }
};

} // namespace
