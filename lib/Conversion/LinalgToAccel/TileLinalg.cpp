//===- TileLinalg.cpp - linalg ops on buffers into VMEM-sized tiles -------===//
//
// Passes.td, accel-tile-linalg: upstream's TilingInterface tiling
// (scf::tileUsingSCF) with tile sizes that fit the machine's VMEM.
//
//===----------------------------------------------------------------------===//

#include "Spaces.h"
#include "accel/Conversion/Passes.h"
#include "accel/Dialect/Accel/TileShape.h"
#include "accel/Support/PassOptions.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/Support/MathExtras.h"

namespace accel {
#define GEN_PASS_DEF_ACCELTILELINALG
#include "accel/Conversion/Passes.h.inc"
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
         checkOptionRange<uint64_t>("vmem-bytes", vmemBytes, 1,
                                    kMaxOptionVmemBytes)});
  }

  /// Tile sizes per loop of `op` (0: not tiled), or nullopt to leave it.
  std::optional<SmallVector<int64_t>> getTileSizes(linalg::LinalgOp op) {
    SmallVector<int64_t> ranges = op.getStaticLoopRanges();
    if (ranges.empty() || ranges.size() > 3 ||
        llvm::any_of(ranges, ShapedType::isDynamic))
      return std::nullopt;
    SmallVector<int64_t> want;
    if (isa<linalg::MatmulOp>(op))
      want = {tileRows, tileCols, tileK};
    else if (ranges.size() == 2)
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

  void runOnOperation() override {
    // Shapes whose byte size passes 2^63 would wrap in tileFootprint.
    if (failed(accel::verifyShapeSizes(getOperation())))
      return signalPassFailure();
    // A copy between two memrefs outside VMEM (bufferization's copies of
    // a tensor used twice) becomes a linalg.copy, tiled like the rest.
    IRRewriter rewriter(&getContext());
    SmallVector<memref::CopyOp> copies;
    getOperation().walk([&](memref::CopyOp copy) {
      if (isInHbm(copy.getSource().getType()) &&
          isInHbm(copy.getTarget().getType()) &&
          cast<MemRefType>(copy.getSource().getType()).hasStaticShape())
        copies.push_back(copy);
    });
    for (memref::CopyOp copy : copies) {
      rewriter.setInsertionPoint(copy);
      rewriter.replaceOpWithNewOp<linalg::CopyOp>(copy, copy.getSource(),
                                                  copy.getTarget());
    }

    // Rank > 2: the leading parallel loops fold into rows (upstream's
    // collapseOpIterationDims, on the generic form), when every operand
    // keeps them together and in order.
    SmallVector<linalg::LinalgOp> deep;
    getOperation().walk([&](linalg::LinalgOp op) {
      if (op.hasPureBufferSemantics() && op.getNumLoops() > 2 &&
          !linalg::isaContractionOpInterface(op))
        deep.push_back(op);
    });
    for (linalg::LinalgOp op : deep) {
      unsigned n = op.getNumLoops();
      SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
      ReassociationIndices lead;
      for (unsigned l = 0; l + 1 < n; ++l)
        lead.push_back(l);
      SmallVector<ReassociationIndices> folds = {lead, {int64_t(n - 1)}};
      if (llvm::any_of(lead,
                       [&](int64_t l) {
                         return iterators[l] != utils::IteratorType::parallel;
                       }) ||
          !linalg::areDimSequencesPreserved(op.getIndexingMapsArray(), folds))
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
        return signalPassFailure();
      }
      rewriter.eraseOp(op);
    }
  }
};

} // namespace
