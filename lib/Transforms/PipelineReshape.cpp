//===- PipelineReshape.cpp - Refused loops reshaped, then pipelined -------===//
//
// Part of --accel-pipeline-dma (PipelineDriver.h): what the pass tries
// when a loop is refused as it is. A loop of a few trips is flattened into
// its enclosing loop's body, a small nest unrolled fully (straight-line
// code for the DMA-motion passes); a loop whose bounds are known only at
// run time is strip-mined into chunks of a constant trip count, or first
// coalesced with the segments of a ragged nest; a loop whose iter_args
// only rotate is unrolled by the rotation's period. The rewrites
// themselves are in PipelineLoops.cpp.
//
//===----------------------------------------------------------------------===//

#include "PipelineDriver.h"

#include "mlir/Dialect/SCF/Utils/Utils.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/LoopLikeInterface.h"
#include "llvm/Support/CheckedArithmetic.h"

using namespace mlir;
using namespace accel;
using namespace accel::detail;
using namespace accel::detail::pipeline;

void PipelineDriver::forgetLoops(Operation *root) {
  root->walk([&](scf::ForOp l) { work.erase(l.getOperation()); });
}

/// Unrolls `loop` (constant trip count) completely into its block; its
/// allocations are hoisted first, the iterations after the first lose
/// their op ids.
static LogicalResult unrollFully(scf::ForOp loop) {
  std::optional<int64_t> trips = tripCount(loop);
  if (!trips)
    return failure();
  SmallVector<AllocOp> allocs;
  loop.getBody()->walk([&](AllocOp a) { allocs.push_back(a); });
  for (AllocOp a : allocs)
    a->moveBefore(loop);
  FailureOr<UnrolledLoopInfo> unrolled = loopUnrollByFactor(
      loop, *trips, [](unsigned i, Operation *op, OpBuilder) {
        if (i > 0)
          op->walk([](Operation *o) {
            o->removeAttr(AccelDialect::getOpIdAttrName());
            o->removeAttr("accel.pipelined");
          });
      });
  if (failed(unrolled))
    return failure();
  if (unrolled->mainLoopOp) {
    IRRewriter rewriter(unrolled->mainLoopOp->getContext());
    (void)cast<LoopLikeOpInterface>(unrolled->mainLoopOp->getOperation())
        .promoteIfSingleIteration(rewriter);
  }
  return success();
}

/// Unrolls `loop` and every loop nested in it with a constant trip
/// count, innermost first (unrollFully); fails, before any change, when
/// `loop`'s own trip count is not constant.
static LogicalResult unrollNest(scf::ForOp loop) {
  if (!tripCount(loop))
    return failure();
  SmallVector<scf::ForOp> inner;
  loop.getBody()->walk([&](scf::ForOp l) { inner.push_back(l); });
  for (scf::ForOp l : inner) // post-order: innermost first
    if (tripCount(l))
      (void)unrollFully(l);
  return unrollFully(loop);
}

bool PipelineDriver::flatten(scf::ForOp loop) {
  static constexpr int64_t kFlattenTrips = 4;
  std::optional<int64_t> trips = tripCount(loop);
  if (!trips || *trips < 2 || *trips > kFlattenTrips ||
      !loop->getParentOfType<scf::ForOp>())
    return false;
  int64_t ops = 0;
  bool dma = false;
  loop.getBody()->walk([&](Operation *op) {
    ++ops;
    dma |= isa<DmaStartOp>(op);
  });
  if (!dma || ops * *trips > kMaxUnrolledOps)
    return false;
  forgetLoops(loop);
  // Fails before any change to the loop (constant index bounds).
  return succeeded(unrollFully(loop));
}

bool PipelineDriver::unrollSmallNest(scf::ForOp loop, bool lowersNow) {
  static constexpr int64_t kSmallNest = 8;
  if (pipelineAll || !isa<FunctionOpInterface>(loop->getParentOp()))
    return false;
  std::optional<int64_t> trips = tripCount(loop);
  int64_t iterations = nestIterations.lookup(loop);
  if (!trips || *trips < 2 || iterations < 1 || iterations > kSmallNest)
    return false;
  int64_t ops = 0;
  bool stall = false;
  loop.getBody()->walk([&](Operation *op) {
    ++ops;
    if (auto d = dyn_cast<DmaStartOp>(op))
      stall |= getStallCycles(d) > 0;
  });
  if (!stall || ops * iterations > kMaxUnrolledOps)
    return false;
  if (lowersNow) {
    auto [copy, twin] = copyWithLoop(loop);
    if (!twin || failed(unrollNest(twin)) || !lowersWithMargin(*copy).empty())
      return false;
  }
  Location loc = loop.getLoc();
  forgetLoops(loop);
  if (failed(unrollNest(loop)))
    return false;
  count(kCountUnrolled, 1);
  if (emitRemarks)
    mlir::emitRemark(loc) << "unrolled fully: " << iterations
                          << " iterations in all are too few to pipeline; "
                             "the DMA-motion passes schedule them as "
                             "straight-line code";
  return true;
}

std::string PipelineDriver::replaceAndPipeline(
    scf::ForOp loop, bool lowersNow,
    llvm::function_ref<FailureOr<scf::ForOp>()> build) {
  Operation *before = loop->getPrevNode(), *after = loop->getNextNode();
  SmallVector<std::tuple<Operation *, unsigned, unsigned>> uses;
  for (auto [i, result] : llvm::enumerate(loop.getResults()))
    for (OpOperand &use : result.getUses())
      uses.push_back({use.getOwner(), use.getOperandNumber(), unsigned(i)});
  auto restore = [&](std::string why) {
    if (!loop->getBlock()) {
      Block *block = after->getBlock();
      Operation *first = before ? before->getNextNode() : &block->front();
      block->getOperations().insert(Block::iterator(first), loop);
    }
    for (auto [owner, operand, i] : uses)
      owner->setOperand(operand, loop->getResult(i));
    SmallVector<Operation *> made;
    for (Operation *op = loop->getNextNode(); op != after;
         op = op->getNextNode())
      made.push_back(op);
    for (Operation *op = before ? before->getNextNode()
                                : &loop->getBlock()->front();
         op != loop.getOperation(); op = op->getNextNode())
      made.push_back(op);
    for (Operation *op : llvm::reverse(made)) {
      forgetLoops(op);
      op->dropAllUses();
      op->erase();
    }
    return why;
  };
  FailureOr<scf::ForOp> target = build();
  if (failed(target))
    return restore("it could not be rewritten");
  forgetLoops(loop);
  loop->remove();
  work[*target] = workPerIteration(*target);
  std::string why = pipelineChecked(*target, lowersNow);
  if (why == kNotInBody)
    why = unrollRotating(*target, lowersNow);
  if (!why.empty())
    return restore(why);
  loop->destroy();
  return "";
}

std::string PipelineDriver::stripMine(scf::ForOp loop, bool lowersNow) {
  static constexpr int64_t kMaxChunk = 4096;
  if (loop->hasAttr(kStripMinedAttr))
    return "it is the chunk loop of a strip-mined loop";
  std::optional<int64_t> step = getConstantIntValue(loop.getStep());
  if (!step || *step <= 0)
    return "the step is not a constant";
  int64_t chunk = pipelineAll ? 8 : 0;
  auto seen = tripsSeen.find(loop);
  if (int64_t profiled =
          seen != tripsSeen.end() ? seen->second : profiledTrips(loop))
    chunk = std::min(profiled, kMaxChunk);
  if (chunk < 2)
    return chunk ? "its metrics show fewer than 2 iterations per entry"
                 : "its metrics do not show its trip count";
  if (!llvm::checkedMul(chunk, *step))
    return "a chunk's span overflows";
  SmallVector<AllocOp> allocs;
  loop.getBody()->walk([&](AllocOp a) { allocs.push_back(a); });
  for (AllocOp a : allocs)
    a->moveBefore(loop);
  Location loc = loop.getLoc();
  std::string why = replaceAndPipeline(loop, lowersNow, [&] {
    return FailureOr<scf::ForOp>(stripMineLoop(loop, chunk));
  });
  if (!why.empty())
    return "a chunk of " + std::to_string(chunk) +
           " iterations was not pipelined: " + why;
  if (emitRemarks)
    mlir::emitRemark(loc) << "strip-mined into chunks of " << chunk
                          << " iterations (its bounds are known at run "
                             "time only); each chunk is pipelined";
  return "";
}

std::string PipelineDriver::coalesceAndStripMine(scf::ForOp loop,
                                                 bool lowersNow,
                                                 scf::ForOp &outer,
                                                 bool &shaped) {
  SegmentCoalescing c;
  std::string why = coalesceSegments(loop, c);
  shaped = c.shaped;
  if (!why.empty())
    return why;
  Location outerLoc = c.outer.getLoc();
  tripsSeen[c.loop] = c.tripsPerEntry;
  why = stripMine(c.loop, lowersNow);
  tripsSeen.erase(c.loop);
  if (!why.empty()) {
    forgetLoops(c.loop);
    c.undo();
    return why;
  }
  c.keep();
  outer = c.outer;
  if (emitRemarks)
    mlir::emitRemark(loop.getLoc())
        << "coalesced with the segments of the loop at "
        << describeLoc(outerLoc)
        << " into one loop (each segment starts where the last ended, "
           "checked at run time; the nest runs as written when one does "
           "not)";
  return "";
}

std::string PipelineDriver::unrollRotating(scf::ForOp loop, bool lowersNow) {
  unsigned period = rotationPeriod(loop);
  if (!period)
    return "its iter_args do not only rotate";
  std::optional<int64_t> trips = tripCount(loop);
  if (!trips || *trips < 2 * int64_t(period))
    return "it has fewer than two periods of its iter_args' rotation";
  Location loc = loop.getLoc();
  std::string why = replaceAndPipeline(loop, lowersNow, [&] {
    OpBuilder b(loop);
    auto copy = cast<scf::ForOp>(b.clone(*loop));
    for (auto [o, c] : llvm::zip(loop.getResults(), copy.getResults()))
      o.replaceAllUsesWith(c);
    return unrollRotatingLoop(copy, period);
  });
  if (!why.empty())
    return "unrolled by its rotation's period " + std::to_string(period) +
           ", it was not pipelined: " + why;
  if (emitRemarks)
    mlir::emitRemark(loc) << "unrolled by " << period
                          << ", the period of its rotating or shifting "
                             "iter_args, and pipelined";
  return "";
}
