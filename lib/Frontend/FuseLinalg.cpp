//===- FuseLinalg.cpp - matmuls fused into their consumers' tile loops ----===//
//
// Passes.td, accel-fuse-linalg: an elementwise consumer of a matmul is
// tiled and the matmul (with its fill and the elementwise ops between)
// fused into its tile loop, on tensors; the fused intermediates are
// allocated in VMEM.
//
//===----------------------------------------------------------------------===//

#include "accel/Dialect/Accel/TileShape.h"
#include "accel/Frontend/Passes.h"
#include "accel/Support/PassOptions.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace accel {
#define GEN_PASS_DEF_ACCELFUSELINALG
#include "accel/Frontend/Passes.h.inc"
} // namespace accel

using namespace mlir;

namespace {

/// Whether `op` is an elementwise linalg op on tensors with two loops.
bool isElementwise(Operation *op) {
  auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
  return linalgOp && linalgOp.hasPureTensorSemantics() &&
         linalgOp.getNumLoops() == 2 &&
         linalgOp.getNumLoops() == linalgOp.getNumParallelLoops() &&
         !isa<linalg::FillOp, linalg::CopyOp>(op) && op->getNumResults() == 1;
}

/// Whether an input of elementwise `op` is a matmul's result, directly or
/// through elementwise ops used once.
bool readsMatmul(Operation *op) {
  for (Value in : cast<linalg::LinalgOp>(op).getDpsInputs()) {
    Operation *def = in.getDefiningOp();
    if (!def || !in.hasOneUse())
      continue;
    if (isa<linalg::MatmulOp>(def) &&
        cast<linalg::MatmulOp>(def).hasPureTensorSemantics())
      return true;
    if (isElementwise(def) && readsMatmul(def))
      return true;
  }
  return false;
}

struct AccelFuseLinalgPass
    : accel::CheckedOptionsPass<
          AccelFuseLinalgPass,
          accel::impl::AccelFuseLinalgBase<AccelFuseLinalgPass>> {
  using CheckedOptionsPass::CheckedOptionsPass;

  /// Tile sizes are ISA tile dimensions; space 0 is HBM, not VMEM.
  std::string checkOptions() const {
    return accel::firstOptionProblem(
        {accel::checkOptionRange<int64_t>("tile-rows", tileRows, 1,
                                          accel::kMaxTileDim,
                                          "a tile dimension of the ISA"),
         accel::checkOptionRange<int64_t>("tile-cols", tileCols, 1,
                                          accel::kMaxTileDim,
                                          "a tile dimension of the ISA"),
         accel::checkVmemSpaceOption(vmemSpace)});
  }

  /// An elementwise op of more loops that reads a matmul's result through
  /// a tensor.expand_shape (a 1x1 convolution's pixels expanded back to
  /// N x H x W x F before its batchnorm and activation) is collapsed to
  /// the matmul's two dimensions (upstream's fold of the reshape by
  /// collapsing its consumer), so that it can be a root below.
  LogicalResult collapseMatmulConsumers() {
    RewritePatternSet patterns(&getContext());
    linalg::populateFoldReshapeOpsByCollapsingPatterns(
        patterns, [](OpOperand *fused) {
          auto expand = fused->get().getDefiningOp<tensor::ExpandShapeOp>();
          auto consumer = dyn_cast<linalg::GenericOp>(fused->getOwner());
          return expand && consumer && consumer.hasPureTensorSemantics() &&
                 consumer.getNumLoops() == consumer.getNumParallelLoops() &&
                 expand.getSrcType().getRank() == 2 &&
                 isa_and_nonnull<linalg::MatmulOp>(
                     expand.getSrc().getDefiningOp());
        });
    return applyPatternsGreedily(getOperation(), std::move(patterns));
  }

  /// The tile sizes for `root`: tileRows x tileCols, each no larger than
  /// the op; nullopt unless they are whole tiles (a partial last tile
  /// would give the fused intermediates dynamic shapes: such ops are left
  /// to accel-tile-linalg, which peels the remainder).
  std::optional<SmallVector<int64_t>> getWholeTileSizes(TilingInterface root) {
    SmallVector<int64_t> bounds =
        cast<linalg::LinalgOp>(root.getOperation()).getStaticLoopRanges();
    SmallVector<int64_t> sizes = {tileRows, tileCols};
    bool whole = true;
    for (auto [size, bound] : llvm::zip(sizes, bounds)) {
      if (ShapedType::isDynamic(bound) || size <= 0) {
        whole = false;
        break;
      }
      size = std::min(size, bound);
      whole &= bound % size == 0;
    }
    if (!whole)
      return std::nullopt;
    return sizes;
  }

  /// Tiles `root` by `sizes` and fuses into its tile loop the producers
  /// whose whole result goes to it (elementwise ops, matmuls, fills; not
  /// at a matmul's A or B), replacing and erasing `root`. Fails after an
  /// error at `root` when the tiling fails.
  FailureOr<scf::SCFTileAndFuseResult>
  tileAndFuseRoot(IRRewriter &rewriter, TilingInterface root,
                  ArrayRef<int64_t> sizes) {
    scf::SCFTilingOptions tiling;
    tiling.setTileSizes(
        {rewriter.getIndexAttr(sizes[0]), rewriter.getIndexAttr(sizes[1])});
    scf::SCFTileAndFuseOptions options;
    options.setTilingOptions(tiling);
    // A producer is fused when all it computes goes to this root: its
    // users are the root, ops that only feed the root, or the tile
    // loop's slices of it.
    std::function<bool(Operation *, int)> feedsRoot = [&](Operation *op,
                                                          int depth) {
      if (op == root.getOperation())
        return true;
      if (depth > 16)
        return false;
      return llvm::all_of(op->getUsers(), [&](Operation *user) {
        return isa<tensor::ExtractSliceOp>(user) || feedsRoot(user, depth + 1);
      });
    };
    options.setFusionControlFn(
        [&](tensor::ExtractSliceOp slice, OpResult producer, bool isDestination)
            -> std::optional<scf::SCFTileAndFuseOptions::ControlFnResult> {
          // A matmul reads its A and B whole per tile: not fused there.
          for (Operation *user : slice->getUsers())
            if (auto mm = dyn_cast<linalg::MatmulOp>(user))
              if (llvm::is_contained(mm.getDpsInputs(), slice.getResult()))
                return std::nullopt;
          Operation *def = producer.getOwner();
          if (!feedsRoot(def, 0) ||
              !(isElementwise(def) ||
                isa<linalg::MatmulOp, linalg::FillOp>(def)))
            return std::nullopt;
          return scf::SCFTileAndFuseOptions::ControlFnResult{};
        });
    rewriter.setInsertionPoint(root);
    FailureOr<scf::SCFTileAndFuseResult> fused =
        scf::tileConsumerAndFuseProducersUsingSCF(rewriter, root, options);
    if (failed(fused)) {
      root->emitError("cannot tile and fuse this op with its matmul");
      return failure();
    }
    for (OpResult result : root->getResults())
      if (Value replacement = fused->replacements.lookup(result))
        rewriter.replaceAllUsesWith(result, replacement);
    rewriter.eraseOp(root);
    return fused;
  }

  /// The fused ops' own inits (static slices of an empty tensor) hold
  /// tiles that live only in an iteration: each becomes a
  /// bufferization.alloc_tensor in VMEM.
  void allocFusedInitsInVmem(IRRewriter &rewriter,
                             const scf::SCFTileAndFuseResult &fused) {
    for (Operation *op : fused.tiledAndFusedOps.getArrayRef().drop_front()) {
      auto dps = dyn_cast<DestinationStyleOpInterface>(op);
      if (!dps)
        continue;
      for (OpOperand &init : dps.getDpsInitsMutable()) {
        auto slice = init.get().getDefiningOp<tensor::ExtractSliceOp>();
        if (!slice || !slice.getSource().getDefiningOp<tensor::EmptyOp>() ||
            !slice.getType().hasStaticShape())
          continue;
        rewriter.setInsertionPoint(op);
        auto alloc = bufferization::AllocTensorOp::create(
            rewriter, op->getLoc(), slice.getType(), ValueRange{});
        alloc.setMemorySpaceAttr(rewriter.getI64IntegerAttr(vmemSpace));
        init.set(alloc.getResult());
      }
    }
  }

  void runOnOperation() override {
    if (failed(collapseMatmulConsumers()))
      return signalPassFailure();
    // Roots: the last elementwise op of each chain that reads a matmul.
    SmallVector<TilingInterface> roots;
    getOperation().walk([&](Operation *op) {
      if (!isElementwise(op) || !readsMatmul(op))
        return;
      Value result = op->getResult(0);
      bool feedsChain =
          result.hasOneUse() && isElementwise(*result.getUsers().begin());
      if (!feedsChain)
        roots.push_back(cast<TilingInterface>(op));
    });

    IRRewriter rewriter(&getContext());
    for (TilingInterface root : roots) {
      std::optional<SmallVector<int64_t>> sizes = getWholeTileSizes(root);
      if (!sizes)
        continue;
      FailureOr<scf::SCFTileAndFuseResult> fused =
          tileAndFuseRoot(rewriter, root, *sizes);
      if (failed(fused))
        return signalPassFailure();
      allocFusedInitsInVmem(rewriter, *fused);
    }
  }
};

} // namespace
