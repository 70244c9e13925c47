//===- RaiseAffineLoops.cpp - scalar affine loop nests to linalg ops ------===//
//
// Passes.td, accel-raise-affine-loops: a perfect nest of affine.for loops
// whose innermost body loads scalars, computes with arith/math ops and
// stores one element becomes one linalg.generic on memref.subview views of
// the buffers it touches, specialized to a named op where upstream can.
//
//===----------------------------------------------------------------------===//

#include "accel/Conversion/Passes.h"
#include "accel/Dialect/Accel/TileShape.h"
#include "accel/Support/ThreadDiagnostics.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Affine/LoopUtils.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"

namespace accel {
#define GEN_PASS_DEF_ACCELRAISEAFFINELOOPS
#include "accel/Conversion/Passes.h.inc"
} // namespace accel

using namespace mlir;

namespace {

/// One index of an access: the loop of the nest it moves with, if any, and
/// the part that is invariant in the nest (over the access's map inputs).
struct IndexPart {
  std::optional<unsigned> loop;
  AffineExpr offset;
};

/// A load or store of the nest: its memref, its map fully composed with its
/// operands, and each index split into loop and offset.
struct Access {
  Value memref;
  AffineMap map;
  SmallVector<Value> operands;
  SmallVector<IndexPart> indices;

  /// Whether `other` reads or writes the same elements at every iteration.
  bool isSameAs(const Access &other) const {
    return memref == other.memref && map == other.map &&
           operands == other.operands;
  }
};

/// Everything the rewrite of one nest needs, gathered before any change.
struct NestPlan {
  SmallVector<affine::AffineForOp> loops;
  SmallVector<int64_t> lowerBounds;
  SmallVector<int64_t> tripCounts;
  /// The generic's dimension of each loop of the nest.
  SmallVector<unsigned> loopDims;
  unsigned numParallel = 0;
  /// The distinct accesses the loads read, the generic's inputs.
  SmallVector<Access> inputs;
  Access output;
  /// Each load of an input and the position of its input.
  SmallVector<std::pair<affine::AffineLoadOp, unsigned>> inputLoads;
  /// The loads of the stored element: the output's current value.
  SmallVector<affine::AffineLoadOp> outputLoads;
  affine::AffineStoreOp store;
};

/// Emits the error of a nest that cannot be raised at its outermost loop.
LogicalResult refuse(affine::AffineForOp outer, const Twine &reason) {
  return outer.emitError() << "cannot raise this loop nest to a linalg op: "
                           << reason;
}

/// Whether `op` is an affine.load or an affine.store.
bool isAffineAccess(Operation *op) {
  return isa<affine::AffineLoadOp, affine::AffineStoreOp>(op);
}

/// Whether an op of `block` outside the affine.for loops it holds is an
/// affine.load or affine.store.
bool accessesOutsideLoops(Block &block) {
  for (Operation &op : block) {
    WalkResult result = op.walk<WalkOrder::PreOrder>([](Operation *nested) {
      if (isa<affine::AffineForOp>(nested))
        return WalkResult::skip();
      return isAffineAccess(nested) ? WalkResult::interrupt()
                                    : WalkResult::advance();
    });
    if (result.wasInterrupted())
      return true;
  }
  return false;
}

/// Splits `expr`, one result of an access map, into the loop of the nest it
/// moves with and the invariant rest. `loopOfInput` gives the loop of each
/// map input (dims, then symbols) that is an induction variable of the nest.
/// On failure, `reason` says why the index does not fit.
FailureOr<IndexPart> splitIndex(AffineExpr expr, unsigned numDims,
                                ArrayRef<std::optional<unsigned>> loopOfInput,
                                StringRef &reason) {
  std::optional<unsigned> loop;
  if (auto dim = dyn_cast<AffineDimExpr>(expr))
    loop = loopOfInput[dim.getPosition()];
  else if (auto sym = dyn_cast<AffineSymbolExpr>(expr))
    loop = loopOfInput[numDims + sym.getPosition()];
  if (loop)
    return IndexPart{loop, getAffineConstantExpr(0, expr.getContext())};
  auto binary = dyn_cast<AffineBinaryOpExpr>(expr);
  if (!binary)
    return IndexPart{std::nullopt, expr};
  FailureOr<IndexPart> lhs =
      splitIndex(binary.getLHS(), numDims, loopOfInput, reason);
  if (failed(lhs))
    return failure();
  FailureOr<IndexPart> rhs =
      splitIndex(binary.getRHS(), numDims, loopOfInput, reason);
  if (failed(rhs))
    return failure();
  if (!lhs->loop && !rhs->loop)
    return IndexPart{std::nullopt, expr};
  if (expr.getKind() == AffineExprKind::Mul) {
    reason = "an index multiplies a loop index by a coefficient other than 1";
    return failure();
  }
  if (expr.getKind() != AffineExprKind::Add) {
    reason = "an index takes a loop index into a mod, floordiv or ceildiv";
    return failure();
  }
  if (lhs->loop && rhs->loop) {
    reason = "an index adds up loop indices of the nest";
    return failure();
  }
  return IndexPart{lhs->loop ? lhs->loop : rhs->loop,
                   lhs->offset + rhs->offset};
}

/// Analyzes the access of `memref` at `map` applied to `operands` (a store's
/// when `isStore`) in the nest whose induction variables are the keys of
/// `loopOfIv`.
FailureOr<Access> analyzeAccess(affine::AffineForOp outer, Value memref,
                                AffineMap map, ValueRange operands,
                                bool isStore,
                                const DenseMap<Value, unsigned> &loopOfIv) {
  if (!cast<MemRefType>(memref.getType()).isStrided())
    return refuse(outer, "a buffer has a layout that is not strided");
  Access access{memref, map, llvm::to_vector(operands), {}};
  affine::fullyComposeAffineMapAndOperands(&access.map, &access.operands);

  SmallVector<std::optional<unsigned>> loopOfInput;
  for (Value operand : access.operands) {
    auto it = loopOfIv.find(operand);
    if (it != loopOfIv.end())
      loopOfInput.push_back(it->second);
    else if (!outer.isDefinedOutsideOfLoop(operand))
      return refuse(outer, "an index is computed inside the nest");
    else
      loopOfInput.push_back(std::nullopt);
  }
  llvm::SmallBitVector usedLoops(loopOfIv.size());
  for (AffineExpr expr : access.map.getResults()) {
    StringRef reason;
    FailureOr<IndexPart> part =
        splitIndex(expr, access.map.getNumDims(), loopOfInput, reason);
    if (failed(part))
      return refuse(outer, reason);
    if (part->loop) {
      if (usedLoops.test(*part->loop))
        return refuse(outer, "a loop index indexes two dimensions of one "
                             "access");
      usedLoops.set(*part->loop);
    }
    access.indices.push_back(*part);
  }
  if (usedLoops.none())
    return refuse(outer, Twine(isStore ? "it writes" : "it reads") +
                             " a single element of a buffer (no loop index "
                             "indexes it); accel has no one-element operands");
  return access;
}

/// Checks that `value`, an operand of the computation of the innermost body
/// `body`, is computed in the body or is a constant.
LogicalResult checkScalar(affine::AffineForOp outer, Block *body, Value value) {
  if (value.getParentBlock() == body && !isa<BlockArgument>(value))
    return success();
  if (value.getDefiningOp<arith::ConstantOp>())
    return success();
  if (isa<BlockArgument>(value) && !outer.isDefinedOutsideOfLoop(value))
    return refuse(outer, "it uses a loop index as a scalar");
  return refuse(outer, "it computes with a scalar defined outside the nest");
}

/// Whether `value`, computed in the innermost body, depends on `load`.
bool dependsOn(Value value, affine::AffineLoadOp load) {
  SmallVector<Value> worklist{value};
  DenseSet<Value> seen;
  while (!worklist.empty()) {
    Value v = worklist.pop_back_val();
    if (v == load.getResult())
      return true;
    Operation *def = v.getDefiningOp();
    if (!def || isa<affine::AffineLoadOp>(def) || !seen.insert(v).second)
      continue;
    llvm::append_range(worklist, def->getOperands());
  }
  return false;
}

/// Checks the loops of the nest `plan.loops` (constant bounds, step 1, no
/// iter_args, at least one iteration), records their lower bounds and
/// trip counts in `plan`, and the nest position of each induction variable
/// in `loopOfIv`. Errors at the outermost loop.
LogicalResult analyzeLoops(NestPlan &plan,
                           DenseMap<Value, unsigned> &loopOfIv) {
  affine::AffineForOp outer = plan.loops.front();
  for (unsigned i = 0; i < plan.loops.size(); ++i) {
    affine::AffineForOp loop = plan.loops[i];
    if (!loop.hasConstantLowerBound())
      return refuse(outer, "a loop has a non-constant lower bound");
    if (!loop.hasConstantUpperBound())
      return refuse(outer, "a loop has a non-constant upper bound");
    if (loop.getStepAsInt() != 1)
      return refuse(outer, "a loop has step " + Twine(loop.getStepAsInt()) +
                               "; only step 1 is supported");
    if (loop.getNumIterOperands() != 0)
      return refuse(outer, "a loop carries a value (iter_args)");
    // An empty loop would become a linalg op with an empty dimension,
    // which upstream tiling does not take (it crashed on one).
    if (loop.getConstantUpperBound() <= loop.getConstantLowerBound())
      return refuse(outer, "a loop runs no iterations (upper bound " +
                               Twine(loop.getConstantUpperBound()) +
                               " is not above lower bound " +
                               Twine(loop.getConstantLowerBound()) + ")");
    plan.lowerBounds.push_back(loop.getConstantLowerBound());
    plan.tripCounts.push_back(loop.getConstantUpperBound() -
                              loop.getConstantLowerBound());
    loopOfIv[loop.getInductionVar()] = i;
  }
  return success();
}

/// Sorts the ops of the innermost body into its loads (`loads`), its one
/// store (`plan.store`) and its arith and math ops (`computeOps`). Errors:
/// a load of the stored buffer after the store, a second store or none,
/// memref.load or memref.store, any other op.
LogicalResult sortBody(NestPlan &plan,
                       SmallVectorImpl<affine::AffineLoadOp> &loads,
                       SmallVectorImpl<Operation *> &computeOps) {
  affine::AffineForOp outer = plan.loops.front();
  for (Operation &op : plan.loops.back().getBody()->without_terminator()) {
    if (auto load = dyn_cast<affine::AffineLoadOp>(op)) {
      if (plan.store && load.getMemRef() == plan.store.getMemRef())
        return refuse(outer, "it reads the buffer it writes after the store");
      loads.push_back(load);
      continue;
    }
    if (auto store = dyn_cast<affine::AffineStoreOp>(op)) {
      if (plan.store)
        return refuse(outer, "it stores more than once; exactly one "
                             "affine.store is supported");
      plan.store = store;
      continue;
    }
    if (isa<memref::LoadOp, memref::StoreOp>(op))
      return refuse(outer, "it accesses memory with '" +
                               op.getName().getStringRef() +
                               "'; use affine.load and affine.store");
    if (!isa<arith::ArithDialect, math::MathDialect>(op.getDialect()))
      return refuse(outer, "it holds '" + op.getName().getStringRef() +
                               "', which is not an affine.load, an "
                               "affine.store or an arith or math op");
    computeOps.push_back(&op);
  }
  if (!plan.store)
    return refuse(outer, "it has no affine.store");
  return success();
}

/// Numbers the generic's loops in `plan.loopDims`: the store's dimensions
/// in order (`plan.numParallel` of them), then the reductions in nest
/// order. Returns which loops of the nest are parallel.
llvm::SmallBitVector assignLoopDims(NestPlan &plan) {
  unsigned numLoops = plan.loops.size();
  plan.loopDims.assign(numLoops, 0);
  llvm::SmallBitVector parallel(numLoops);
  for (const IndexPart &index : plan.output.indices)
    if (index.loop) {
      plan.loopDims[*index.loop] = plan.numParallel++;
      parallel.set(*index.loop);
    }
  unsigned nextDim = plan.numParallel;
  for (unsigned i = 0; i < numLoops; ++i)
    if (!parallel.test(i))
      plan.loopDims[i] = nextDim++;
  return parallel;
}

/// Analyzes `loads`: each reads the stored element (`plan.outputLoads`) or
/// an input (`plan.inputs`, one per distinct access, and
/// `plan.inputLoads`); sets in `usedLoops` the loops their indices use.
/// Errors: those of analyzeAccess, a read of the output buffer at other
/// elements.
LogicalResult analyzeLoads(NestPlan &plan, ArrayRef<affine::AffineLoadOp> loads,
                           const DenseMap<Value, unsigned> &loopOfIv,
                           llvm::SmallBitVector &usedLoops) {
  affine::AffineForOp outer = plan.loops.front();
  for (affine::AffineLoadOp load : loads) {
    FailureOr<Access> access =
        analyzeAccess(outer, load.getMemRef(), load.getAffineMap(),
                      load.getMapOperands(), /*isStore=*/false, loopOfIv);
    if (failed(access))
      return failure();
    for (const IndexPart &index : access->indices)
      if (index.loop)
        usedLoops.set(*index.loop);
    if (access->isSameAs(plan.output)) {
      plan.outputLoads.push_back(load);
      continue;
    }
    if (access->memref == plan.output.memref)
      return refuse(outer, "it reads the buffer it writes at other elements");
    auto *it = llvm::find_if(plan.inputs, [&](const Access &input) {
      return input.isSameAs(*access);
    });
    plan.inputLoads.emplace_back(load, it - plan.inputs.begin());
    if (it == plan.inputs.end())
      plan.inputs.push_back(std::move(*access));
  }
  return success();
}

/// Checks the computation: its operands (`computeOps`' and the stored
/// value) are computed in the body or constants, every loop indexes some
/// access (`usedLoops`), and a nest with reduction loops accumulates (the
/// stored value depends on a load of the stored element).
LogicalResult checkComputation(const NestPlan &plan,
                               ArrayRef<Operation *> computeOps,
                               const llvm::SmallBitVector &usedLoops) {
  affine::AffineForOp outer = plan.loops.front();
  affine::AffineForOp innermost = plan.loops.back();
  affine::AffineStoreOp store = plan.store;
  Block *body = innermost.getBody();
  for (Operation *op : computeOps)
    for (Value operand : op->getOperands())
      if (failed(checkScalar(outer, body, operand)))
        return failure();
  if (failed(checkScalar(outer, body, store.getValueToStore())))
    return failure();
  if (!usedLoops.all())
    return refuse(outer, "a loop's index indexes no access");
  if (plan.numParallel != plan.loops.size() &&
      llvm::none_of(plan.outputLoads, [&](affine::AffineLoadOp load) {
        return dependsOn(store.getValueToStore(), load);
      }))
    return refuse(outer, "it overwrites its output in a reduction loop (the "
                         "stored value does not depend on the value loaded "
                         "from the stored element)");
  return success();
}

/// Checks that every access stays inside its memref where the bounds are
/// known (a constant offset): the views the raise builds are subviews, and
/// an out-of-bounds subview has no type (the op would index outside the
/// buffer anyway).
LogicalResult checkAccessBounds(const NestPlan &plan) {
  SmallVector<const Access *> accesses;
  for (const Access &input : plan.inputs)
    accesses.push_back(&input);
  accesses.push_back(&plan.output);
  for (const Access *access : accesses)
    for (auto [d, index] : llvm::enumerate(access->indices)) {
      AffineExpr offset = index.offset;
      int64_t size = 1;
      if (index.loop) {
        offset = offset + plan.lowerBounds[*index.loop];
        size = plan.tripCounts[*index.loop];
      }
      auto c = dyn_cast<AffineConstantExpr>(offset);
      int64_t dim = cast<MemRefType>(access->memref.getType()).getDimSize(d);
      if (c && (c.getValue() < 0 || size > dim || c.getValue() > dim - size))
        return refuse(plan.loops.front(),
                      "an access indexes [" + Twine(c.getValue()) + ", " +
                          Twine(c.getValue() + size) + ") of dimension " +
                          Twine(d) + " of size " + Twine(dim) +
                          ", outside its memref");
    }
  return success();
}

/// Analyzes the perfect nest `loops` and returns how to raise it, or emits
/// the reason it cannot be raised at its outermost loop.
FailureOr<NestPlan> analyzeNest(ArrayRef<affine::AffineForOp> loops) {
  affine::AffineForOp outer = loops.front();
  NestPlan plan;
  plan.loops.assign(loops.begin(), loops.end());
  DenseMap<Value, unsigned> loopOfIv;
  if (failed(analyzeLoops(plan, loopOfIv)))
    return failure();
  SmallVector<affine::AffineLoadOp> loads;
  SmallVector<Operation *> computeOps;
  if (failed(sortBody(plan, loads, computeOps)))
    return failure();
  FailureOr<Access> output =
      analyzeAccess(outer, plan.store.getMemRef(), plan.store.getAffineMap(),
                    plan.store.getMapOperands(), /*isStore=*/true, loopOfIv);
  if (failed(output))
    return failure();
  plan.output = std::move(*output);
  llvm::SmallBitVector usedLoops = assignLoopDims(plan);
  if (failed(analyzeLoads(plan, loads, loopOfIv, usedLoops)))
    return failure();
  // Checked after the accesses, so that index arithmetic in the body is
  // reported as such.
  if (failed(checkComputation(plan, computeOps, usedLoops)) ||
      failed(checkAccessBounds(plan)))
    return failure();
  return plan;
}

/// The view of `access`'s memref that the nest walks: at each dimension,
/// offset the invariant part of the index plus the lower bound of its loop
/// and size the trip count of the loop; dimensions that no loop indexes are
/// dropped. The memref itself when the view is all of it.
Value buildView(OpBuilder &b, Location loc, const NestPlan &plan,
                const Access &access) {
  auto type = cast<MemRefType>(access.memref.getType());
  SmallVector<OpFoldResult> operands = getAsOpFoldResult(access.operands);
  SmallVector<OpFoldResult> offsets, sizes;
  SmallVector<int64_t> shape;
  for (const IndexPart &index : access.indices) {
    AffineExpr offset = index.offset;
    int64_t size = 1;
    if (index.loop) {
      offset = offset + plan.lowerBounds[*index.loop];
      size = plan.tripCounts[*index.loop];
      shape.push_back(size);
    }
    offsets.push_back(affine::makeComposedFoldedAffineApply(
        b, loc,
        AffineMap::get(access.map.getNumDims(), access.map.getNumSymbols(),
                       offset),
        operands));
    sizes.push_back(b.getIndexAttr(size));
  }
  if (ArrayRef<int64_t>(shape) == type.getShape() &&
      llvm::all_of(offsets, isZeroInteger))
    return access.memref;
  // The rank-reduced type keeps the strides of the dimensions the loops
  // index: inferRankReducedResultType may drop a different unit dimension.
  SmallVector<OpFoldResult> strides(type.getRank(), b.getIndexAttr(1));
  auto layout = cast<StridedLayoutAttr>(
      memref::SubViewOp::inferResultType(type, offsets, sizes, strides)
          .getLayout());
  SmallVector<int64_t> viewStrides;
  for (auto [index, stride] : llvm::zip(access.indices, layout.getStrides()))
    if (index.loop)
      viewStrides.push_back(stride);
  auto viewType = MemRefType::get(
      shape, type.getElementType(),
      StridedLayoutAttr::get(b.getContext(), layout.getOffset(), viewStrides),
      type.getMemorySpace());
  return memref::SubViewOp::create(b, loc, viewType, access.memref, offsets,
                                   sizes, strides);
}

/// The indexing map of `access` in the generic of `plan`.
AffineMap getIndexingMap(MLIRContext *ctx, const NestPlan &plan,
                         const Access &access) {
  SmallVector<AffineExpr> results;
  for (const IndexPart &index : access.indices)
    if (index.loop)
      results.push_back(getAffineDimExpr(plan.loopDims[*index.loop], ctx));
  return AffineMap::get(plan.loops.size(), 0, results, ctx);
}

/// Replaces the nest of `plan` by a linalg.generic on views of its buffers,
/// specialized to a named op where upstream can.
void raiseNest(RewriterBase &rewriter, NestPlan &plan) {
  affine::AffineForOp outer = plan.loops.front();
  Location loc = outer.getLoc();
  MLIRContext *ctx = rewriter.getContext();
  rewriter.setInsertionPoint(outer);

  SmallVector<Value> inputs;
  SmallVector<AffineMap> maps;
  for (const Access &input : plan.inputs) {
    inputs.push_back(buildView(rewriter, loc, plan, input));
    maps.push_back(getIndexingMap(ctx, plan, input));
  }
  Value output = buildView(rewriter, loc, plan, plan.output);
  maps.push_back(getIndexingMap(ctx, plan, plan.output));
  SmallVector<utils::IteratorType> iterators(plan.loops.size(),
                                             utils::IteratorType::reduction);
  std::fill_n(iterators.begin(), plan.numParallel,
              utils::IteratorType::parallel);

  Block *body = plan.loops.back().getBody();
  auto buildBody = [&](OpBuilder &b, Location loc, ValueRange args) {
    IRMapping mapping;
    for (auto [load, input] : plan.inputLoads)
      mapping.map(load.getResult(), args[input]);
    for (affine::AffineLoadOp load : plan.outputLoads)
      mapping.map(load.getResult(), args.back());
    // Constants defined outside the nest are cloned into the body.
    auto mapConstants = [&](ValueRange values) {
      for (Value v : values)
        if (!mapping.contains(v) && v.getParentBlock() != body)
          mapping.map(v, b.clone(*v.getDefiningOp())->getResult(0));
    };
    for (Operation &op : body->without_terminator()) {
      if (isAffineAccess(&op))
        continue;
      mapConstants(op.getOperands());
      b.clone(op, mapping);
    }
    Value stored = plan.store.getValueToStore();
    mapConstants(stored);
    linalg::YieldOp::create(b, loc, mapping.lookup(stored));
  };
  auto generic = linalg::GenericOp::create(rewriter, loc, TypeRange{}, inputs,
                                           output, maps, iterators, buildBody);
  rewriter.eraseOp(outer);
  (void)linalg::specializeGenericOp(rewriter, generic);
}

struct AccelRaiseAffineLoopsPass
    : accel::impl::AccelRaiseAffineLoopsBase<AccelRaiseAffineLoopsPass> {
  using Base::Base;

  void runOnOperation() override {
    // Shapes whose byte size passes 2^63 would wrap below.
    if (failed(accel::verifyShapeSizes(getOperation())))
      return signalPassFailure();
    SmallVector<NestPlan, 1> plans;
    bool failedAny = false;
    getOperation().walk<WalkOrder::PreOrder>([&](affine::AffineForOp loop) {
      WalkResult touchesMemory = loop.walk([](Operation *op) {
        return isAffineAccess(op) ? WalkResult::interrupt()
                                  : WalkResult::advance();
      });
      if (!touchesMemory.wasInterrupted())
        return WalkResult::skip();
      SmallVector<affine::AffineForOp> loops;
      affine::getPerfectlyNestedLoops(loops, loop);
      Block *body = loops.back().getBody();
      WalkResult holdsLoop = body->walk(
          [](affine::AffineForOp) { return WalkResult::interrupt(); });
      if (holdsLoop.wasInterrupted()) {
        // Recurse into the loops of a tile loop; loads and stores next to
        // them cannot be raised.
        if (!accessesOutsideLoops(*body))
          return WalkResult::advance();
        (void)refuse(loop, "it is not perfectly nested (the loads and "
                           "stores must all be in the innermost loop)");
        failedAny = true;
        return WalkResult::skip();
      }
      // The largest inner part of the nest that raises: the outer loops of
      // a tiled nest index with their tile size (`%i * 32 + %ii`), so the
      // tile loops stay loops around the raised op on each tile.
      for (size_t first = 0; first < loops.size(); ++first) {
        // Silences this thread's diagnostics only: the pass runs on other
        // functions beside.
        accel::ThreadDiagnosticHandler quiet(
            &getContext(), [](Diagnostic &) { return success(); });
        FailureOr<NestPlan> plan =
            analyzeNest(ArrayRef(loops).drop_front(first));
        if (succeeded(plan)) {
          plans.push_back(std::move(*plan));
          return WalkResult::skip();
        }
      }
      // None does: the whole nest's reason.
      (void)analyzeNest(loops);
      failedAny = true;
      return WalkResult::skip();
    });
    if (failedAny)
      return signalPassFailure();

    IRRewriter rewriter(&getContext());
    for (NestPlan &plan : plans)
      raiseNest(rewriter, plan);
  }
};

} // namespace
