//===- LowerGathers.cpp - data-dependent reads as scalar code and DMAs ----===//
//
// Passes.td, accel-lower-gathers: a linalg.generic whose body reads a
// tensor at indices computed from data (an embedding lookup, a gather) or
// selects with a mask computed from integer data gets those values from a
// loop nest of scalar code and DMAs in front of it, and becomes an
// elementwise generic the VPU runs.
//
//===----------------------------------------------------------------------===//

#include "Gathers.h"
#include "accel/Frontend/Passes.h"
#include "accel/Support/PassOptions.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace accel {
#define GEN_PASS_DEF_ACCELLOWERGATHERS
#include "accel/Frontend/Passes.h.inc"
} // namespace accel

using namespace mlir;
using namespace accel::gathers;

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

} // namespace

/// The inputs and indexing maps of the generic that replaces `op`: its
/// inputs, then the tensors the nest made (`results`, one per item of
/// `items`; a flat VMEM buffer viewed at the item's rank again), read at
/// the loop indices (but the last for a mask read by rows).
static void getLoweredInputs(IRRewriter &rewriter, linalg::GenericOp op,
                             ArrayRef<Materialized> items, ValueRange results,
                             SmallVector<Value> &inputs,
                             SmallVector<AffineMap> &maps) {
  Location loc = op.getLoc();
  unsigned n = op.getNumLoops();
  llvm::append_range(inputs, op.getDpsInputs());
  for (OpOperand *in : op.getDpsInputOperands())
    maps.push_back(op.getMatchingIndexingMap(in));
  MLIRContext *ctx = op.getContext();
  for (auto [i, item] : llvm::enumerate(items)) {
    // A flat VMEM buffer viewed at the item's rank again.
    Value result = results[i];
    RankedTensorType logical = getItemType(op, item);
    if (cast<RankedTensorType>(result.getType()).getRank() !=
        logical.getRank()) {
      SmallVector<ReassociationIndices> groups(2);
      for (int64_t d = 0; d + 1 < logical.getRank(); ++d)
        groups[0].push_back(d);
      groups[1].push_back(logical.getRank() - 1);
      result =
          tensor::ExpandShapeOp::create(rewriter, loc, logical, result, groups);
    }
    inputs.push_back(result);
    AffineMap map = AffineMap::getMultiDimIdentityMap(n, ctx);
    if (getItemType(op, item).getRank() < int64_t(n))
      map = map.getMajorSubMap(n - 1);
    maps.push_back(map);
  }
  for (OpOperand &out : op.getDpsInitsMutable())
    maps.push_back(op.getMatchingIndexingMap(&out));
}

/// Makes the body `body` of the lowered generic read the items from its
/// block arguments, inserted from position `at` on: a gathered element
/// directly, a mask as its 0.0/1.0 value != 0 (for the float ops only).
static void readItemsFromArguments(IRRewriter &rewriter, Location loc,
                                   linalg::GenericOp op, Block *body,
                                   unsigned at, ArrayRef<Materialized> items) {
  rewriter.setInsertionPointToStart(body);
  Value zero =
      arith::ConstantOp::create(rewriter, loc, rewriter.getF32FloatAttr(0.0f));
  for (auto [i, item] : llvm::enumerate(items)) {
    BlockArgument arg = body->insertArgument(
        at + i, getItemType(op, item).getElementType(), loc);
    if (item.isGather()) {
      rewriter.replaceAllUsesWith(item.value, arg);
      continue;
    }
    // The mask again, from its 0.0/1.0 tile, for the float ops only.
    Value mask = arith::CmpFOp::create(rewriter, loc, arith::CmpFPredicate::UNE,
                                       arg, zero);
    rewriter.replaceUsesWithIf(item.value, mask, [&](OpOperand &use) {
      return llvm::any_of(use.getOwner()->getResultTypes(),
                          [](Type t) { return isa<FloatType>(t); });
    });
  }
}

/// Erases the memory-effect-free ops of `body` (but its terminator) that
/// nothing uses, until none is left: the scalar computations the lowered
/// body no longer needs.
static void eraseUnusedBodyOps(IRRewriter &rewriter, Block *body) {
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
}

/// Replaces `op` by the generic that reads the tensors the nest made
/// (`results`, one per item of `items`) instead of computing the items.
static void replaceWithLowered(IRRewriter &rewriter, linalg::GenericOp op,
                               ArrayRef<Materialized> items,
                               ValueRange results) {
  Location loc = op.getLoc();
  SmallVector<Value> inputs;
  SmallVector<AffineMap> maps;
  getLoweredInputs(rewriter, op, items, results, inputs, maps);
  auto lowered = linalg::GenericOp::create(rewriter, loc, op.getResultTypes(),
                                           inputs, op.getDpsInits(), maps,
                                           op.getIteratorTypesArray());
  rewriter.inlineRegionBefore(op.getRegion(), lowered.getRegion(),
                              lowered.getRegion().end());
  Block *body = lowered.getBody();
  readItemsFromArguments(rewriter, loc, op, body, op.getNumDpsInputs(), items);
  rewriter.replaceOp(op, lowered.getResults());
  // The scalar computations the body no longer needs.
  eraseUnusedBodyOps(rewriter, body);
}

namespace {

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

  /// Whether the tensors that hold `items` for `op` fit a quarter of VMEM:
  /// then they are in VMEM (and their copies overlap:
  /// convert-linalg-to-accel), else in HBM.
  bool fitsVmem(linalg::GenericOp op, ArrayRef<Materialized> items) {
    uint64_t bytes = 0;
    for (const Materialized &item : items) {
      RankedTensorType type = getItemType(op, item);
      bytes +=
          type.getNumElements() * ((type.getElementTypeBitWidth() + 7) / 8);
    }
    return bytes <= vmemBytes / 4;
  }

  /// Lowers the gathers and masks of `op` (plan): a loop nest in front of
  /// it fills a tensor for each, and a generic that reads them replaces
  /// it. Fails with an error at `op`.
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
    bool inVmem = fitsVmem(op, *items);
    SmallVector<Value> inits =
        createInits(rewriter, loc, op, *items, inVmem, vmemSpace);
    GatherNest builder(rewriter, op, *items, ranges, table01);
    scf::LoopNest nest = builder.build(inits);
    if (builder.failed)
      return op.emitError()
             << "cannot lower this gather: " << builder.scalar.reason;
    if (inVmem)
      if (Operation *outer = builder.outermost(nest))
        outer->setAttr(kGatherAttr, rewriter.getUnitAttr());
    // The generic reads the materialized tensors instead.
    replaceWithLowered(rewriter, op, *items, nest.results);
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
