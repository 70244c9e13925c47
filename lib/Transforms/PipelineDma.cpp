//===- PipelineDma.cpp - Software-pipelined DMAs on scf::pipelineForLoop --===//
//
// Overlaps each iteration's DMAs with the work of earlier iterations (issue
// 5 item 4, issue 10 item 2; SnR §5.3.1 "prefetch more aggressively").
// accel's own code chooses the schedule (a stage per op) and proves it
// legal; upstream's scf::pipelineForLoop builds the prologue, the kernel
// loop and the peeled epilogue; the buffers whose lifetime the schedule
// stretches over several stages are then multi-buffered.
//
// Schedule. Each op of the body gets the earliest stage its dependences
// allow, where the edge from a DMA ISSUE to the op that WAITs for it weighs
// `d` stages (prefetch distance) for a DMA into VMEM and `ds` stages for a
// DMA into HBM (a store: its WAIT moves ds iterations later), and every
// other dependence (SSA, or two accesses of overlapping memory, one a write;
// a DMA accesses its source and destination from its ISSUE to its WAIT)
// weighs 0. So a load's ISSUE (with its address math) is at stage 0, its
// WAIT and the compute at stage d, a store of the result at stage d and its
// WAIT at d + ds, and a dependent chain (a table DMA, its WAIT, an
// accel.load of an offset, the row DMA at that offset, its WAIT, the
// compute) steps through stages 0, d, 2d. Pure ops go to the earliest stage
// that uses them, with a copy for every later stage that does, so that
// only tokens and loaded values cross stages (as iter_args of the kernel).
//
// Legality. Within an iteration the stages never reverse a dependence. The
// kernel runs stage s of iteration k + S - s together (S: the last stage),
// in the order of (stage, body position); an access x of iteration k and a
// conflicting access y of iteration k + m keep their order for every
// m >= 1 unless y is in an earlier stage than x. Such pairs are fine when
// the two iterations' views are provably disjoint (offsets linear in the
// induction variable), or when the buffer is private to each iteration (a
// VMEM allocation whose contents neither enter an iteration, every read
// following writes of the bytes it reads in the same iteration, nor leave
// the loop, every path after it writing the buffer before reading it):
// it then gets N copies, N the largest iteration distance m at which a
// pair would conflict, plus one. Anything else is refused with a remark.
//
// Multi-buffering follows memref::multiBuffer (N copies, iteration k uses
// copy k mod N), except that the ISA has no division or remainder: the
// prologue and the epilogue (iterations known at compile time) use the
// copies directly, and the kernel rotates the N copies through iter_args.
// The kernel is then unrolled by the rotation's period (modulo variable
// expansion), so each copy of the body names its buffers directly and the
// rotation's register moves go away.
//
// The pass is in several files: this one (the pass, the order of the
// loops, the distances from the metrics), PipelineTrials.cpp (the trials
// that must still lower, loops pipelined by hand) and PipelineReshape.cpp
// (the loops a refused loop is reshaped into), which PipelineDriver.h
// declares; PipelineSchedule.cpp (the body's dependences and the
// schedule), PipelinePrivacy.cpp (private buffers), PipelineRewrite.cpp
// (the pipeliner, multi-buffering, modulo variable expansion),
// PipelineLoops.cpp and PipelineCarried.cpp (the reshaping rewrites);
// PipelineSchedule.h declares what they share.
//
//===----------------------------------------------------------------------===//

#include "LoweringCheck.h"
#include "PipelineDriver.h"
#include "accel/Support/PassOptions.h"
#include "accel/Transforms/Passes.h"

#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Iterators.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/LoopLikeInterface.h"

#include <array>

namespace accel {
#define GEN_PASS_DEF_ACCELPIPELINEDMA
#include "accel/Transforms/Passes.h.inc"
} // namespace accel

using namespace mlir;
using namespace accel;
using namespace accel::detail;
using namespace accel::detail::pipeline;

int64_t accel::detail::pipeline::workPerIteration(scf::ForOp loop) {
  int64_t busy = 0, executions = 0;
  loop.getBody()->walk(
      [&](Operation *op) { busy += getMetric(op, "accel.busy_cycles"); });
  for (Operation &op : *loop.getBody())
    executions = std::max(executions, getMetric(&op, "accel.executions"));
  return executions > 0 ? busy / executions : 0;
}

namespace {
/// Largest prefetch distance the options may ask for (iterations in
/// flight; each needs its own copy of the loop's VMEM tiles).
constexpr int64_t kMaxPrefetchDistance = 1024;

struct PipelineDmaPass
    : public accel::CheckedOptionsPass<
          PipelineDmaPass, accel::impl::AccelPipelineDmaBase<PipelineDmaPass>>,
      public ReportsChanges {
  using CheckedOptionsPass::CheckedOptionsPass;

  /// An error message for an option outside its range, or "".
  std::string checkOptions() const {
    return firstOptionProblem(
        {checkOptionRange<int64_t>("distance", distance, 0,
                                   kMaxPrefetchDistance,
                                   "iterations in flight; 0: from the metrics"),
         checkOptionRange<int64_t>("max-distance", maxDistance, 1,
                                   kMaxPrefetchDistance,
                                   "iterations in flight"),
         checkOptionRange<int64_t>("compute-distance", computeDistance, 0, 1),
         checkVmemOptions(vmemCapacity, vmemPage)});
  }

  /// The pipelining of the loops, with the state it keeps between runs.
  PipelineDriver driver;

  void runOnOperation() override {
    resetCounts({"num-pipelined", "num-stages", "num-buffers", "num-unrolled"});
    if (warnIfNoMetrics(getOperation(), getArgument(), pipelineAll))
      return;
    PipelineOptions options;
    options.pipelineAll = pipelineAll;
    options.distance = distance;
    options.maxDistance = maxDistance;
    options.computeDistance = computeDistance;
    options.asyncCopies = asyncCopies;
    options.depipeline = depipeline;
    options.unrollRotation = unrollRotation;
    options.vmemPage = vmemPage;
    options.vmemCapacity = vmemCapacity;
    options.emitRemarks = emitRemarks;
    // In the order of PipelineCount.
    std::array<Statistic *, 4> stats = {&numPipelined, &numStages, &numBuffers,
                                        &numUnrolled};
    // Each rewrite the driver makes is tried on a copy first (it must
    // still lower, as it is and after cse), but the loops it normalizes
    // before planning are not (constant bounds, single iterations
    // inlined), nor the sum of its rewrites: cse then merges an inlined
    // body's constants and address math with the function's, which keeps
    // them live across the whole function (fuzz_fdo seed 74513: more than
    // 255 registers). The guard makes the promise of issue 33 item 6 hold
    // for the whole pass: a function that lowered still does.
    LoweringGuard guard(getOperation(), vmemCapacity, vmemPage);
    driver.run(getOperation(), options, [this, stats](unsigned i, uint64_t n) {
      bump(*stats[i], i, n);
    });
    if (std::string error = guard.keepIfLowers(); !error.empty()) {
      undoCounts({&numPipelined, &numStages, &numBuffers, &numUnrolled});
      if (emitRemarks)
        getOperation().emitRemark()
            << "pipelined nothing: the function as this pass rewrote it "
               "would not lower: "
            << error;
    }
  }
};
} // namespace

/// Bounds of the loops in `func` that fold to constants (an inner loop's
/// `i + 1` once its outer loop was unrolled) become constants: the loop's
/// trip count is then known, as for a loop written with constant bounds.
static void foldConstantBounds(func::FuncOp func) {
  func.walk([&](scf::ForOp loop) {
    for (OpOperand *bound :
         {&loop.getLowerBoundMutable(), &loop.getUpperBoundMutable(),
          &loop.getStepMutable()}) {
      if (getConstantIntValue(bound->get()))
        continue;
      if (std::optional<int64_t> c = foldToConstant(bound->get())) {
        OpBuilder b(loop);
        bound->set(arith::ConstantOp::create(
            b, loop.getLoc(), b.getIntegerAttr(bound->get().getType(), *c)));
      }
    }
  });
}

/// Drops the loops of `func` of no iteration (a pipelined loop's kernel
/// when the prologue and epilogue ran every trip): their results are
/// their inits.
static void dropEmptyLoops(func::FuncOp func) {
  SmallVector<scf::ForOp> empty;
  func.walk([&](scf::ForOp loop) {
    if (tripCount(loop) == 0)
      empty.push_back(loop);
  });
  for (scf::ForOp loop : empty) {
    loop.replaceAllUsesWith(loop.getInitArgs());
    loop->erase();
  }
}

/// Inlines the loops of `func` of one iteration (a peeled K loop's
/// remainder; upstream's promoteIfSingleIteration): their DMAs then become
/// ops of the enclosing body, which can be scheduled.
static void inlineSingleIterations(func::FuncOp func) {
  SmallVector<scf::ForOp> single;
  func.walk([&](scf::ForOp loop) {
    if (tripCount(loop) == 1)
      single.push_back(loop);
  });
  IRRewriter rewriter(func.getContext());
  for (scf::ForOp loop : single)
    (void)cast<LoopLikeOpInterface>(loop.getOperation())
        .promoteIfSingleIteration(rewriter);
}

void PipelineDriver::run(func::FuncOp func, const PipelineOptions &options,
                         CountFn countFn) {
  static_cast<PipelineOptions &>(*this) = options;
  function = func;
  count = std::move(countFn);
  nextMarker = 0;
  nestIterations.clear();
  tripsSeen.clear();
  func.walk([&](DmaStartOp d) {
    if (auto id = d->getAttrOfType<IntegerAttr>("accel.pipelined"))
      nextMarker = std::max(nextMarker, id.getInt() + 1);
  });
  foldConstantBounds(func);
  dropEmptyLoops(func);
  inlineSingleIterations(func);
  SmallVector<scf::ForOp> loops = collectLoops();
  bool lowersNow =
      checkLowers(func, vmemCapacity, vmemPage, kScalarRegs).empty();
  // Small nests first, before their inner loops are pipelined (the
  // pipelined copies carry no metrics): straight-line code for the
  // DMA-motion passes. Their loops leave the list.
  llvm::SmallPtrSet<Operation *, 8> unrolled;
  for (scf::ForOp loop : loops) {
    if (!isa<FunctionOpInterface>(loop->getParentOp()))
      continue;
    SmallVector<Operation *> nest;
    loop->walk([&](scf::ForOp l) { nest.push_back(l); });
    if (!unrollSmallNest(loop, lowersNow))
      continue;
    unrolled.insert(nest.begin(), nest.end());
  }
  for (scf::ForOp loop : loops)
    if (!unrolled.contains(loop.getOperation()))
      pipelineOrExplain(loop, lowersNow, unrolled);
}

SmallVector<scf::ForOp> PipelineDriver::collectLoops() {
  // Innermost first, and of sibling loops the last first: an
  // allocation's address register is live from function entry to its
  // last use, so the copies a later loop adds weigh on the registers of
  // every loop before it, and are counted when that loop is planned.
  SmallVector<scf::ForOp> loops;
  function->walk<WalkOrder::PostOrder, ReverseIterator>([&](scf::ForOp loop) {
    loops.push_back(loop);
    work[loop] = workPerIteration(loop);
    tripsSeen[loop] = profiledTrips(loop);
    if (!isa<FunctionOpInterface>(loop->getParentOp()))
      return;
    int64_t most = 0;
    loop.getBody()->walk([&](Operation *op) {
      if (op->getNumRegions() == 0)
        most = std::max(most, getMetric(op, "accel.executions"));
    });
    nestIterations[loop] = most;
  });
  return loops;
}

void PipelineDriver::pipelineOrExplain(
    scf::ForOp loop, bool lowersNow,
    llvm::SmallPtrSetImpl<Operation *> &unrolled) {
  // A loop pipelined by hand is first tried as the plain loop it
  // pipelines, at the distance the metrics ask for.
  if (depipeline && depipelineChecked(loop, lowersNow).empty())
    return;
  std::string why = pipelineChecked(loop, lowersNow);
  if (why.empty())
    return;
  if (StringRef(why).starts_with("the trip count") && flatten(loop))
    return; // its enclosing loop schedules the iterations' DMAs
  if (why == kNotInBody) {
    std::string unrollWhy = unrollRotating(loop, lowersNow);
    if (unrollWhy.empty())
      return; // unrolled so that its iter_args stop rotating
    why += "; " + unrollWhy;
  }
  if (why == kDynamicBounds) {
    scf::ForOp outer;
    bool shaped = false;
    std::string segmentsWhy =
        coalesceAndStripMine(loop, lowersNow, outer, shaped);
    if (segmentsWhy.empty()) {
      unrolled.insert(outer); // the fallback nest stays as written
      return;
    }
    if (shaped && emitRemarks)
      loop.emitRemark() << "not coalesced with the segments of its "
                           "enclosing loop: "
                        << segmentsWhy;
    std::string chunkWhy = stripMine(loop, lowersNow);
    if (chunkWhy.empty())
      return; // its chunks of a constant trip count are pipelined
    why += "; " + chunkWhy;
  }
  SmallVector<std::string> deferred = deferChecked(loop, lowersNow);
  if (emitRemarks) {
    InFlightDiagnostic remark = loop.emitRemark() << "not pipelined: " << why;
    for (const std::string &d : deferred)
      remark << "; deferred across the back edge: " << d;
  }
}

void PipelineDriver::equalizeCopies(Plan &p, uint64_t vmemBytes,
                                    int64_t trips) const {
  unsigned most = 1;
  for (auto [root, n] : p.copies)
    most = std::max(most, n);
  if (trips - int64_t(p.maxStage) < int64_t(most))
    return; // too few kernel trips to unroll (expandRotation)
  Plan wide = p;
  for (auto &[root, n] : wide.copies)
    n = most;
  wide.extraBytes = extraBytesOf(wide, vmemPage);
  if (vmemBytes + wide.extraBytes <= vmemCapacity)
    p = std::move(wide);
}

void PipelineDriver::chooseDistances(const Body &b, scf::ForOp original,
                                     Plan &p) {
  int64_t w = work.lookup(original.getOperation());
  int64_t period = std::max<int64_t>({w, b.transfer, 1});
  auto ceilDiv = [](int64_t x, int64_t y) { return (x + y - 1) / y; };
  int64_t cap =
      std::max<int64_t>(1, std::min<int64_t>(maxDistance, distanceCap));
  p.d = distance > 0 ? std::min<int64_t>(distance, cap)
        : w > 0 && b.loadLatency > 0
            ? std::clamp<int64_t>(ceilDiv(b.loadLatency, period), 1, cap)
            : 1;
  if (distance == 0)
    p.d = std::max(p.d, std::min(distanceFloor, cap));
  p.ds = w > 0 && b.storeLatency > 0
             ? std::clamp<int64_t>(ceilDiv(b.storeLatency, period), 1, cap)
             : 1;
}

std::string PipelineDriver::searchSchedule(scf::ForOp copy, scf::ForOp loop,
                                           const ScheduleLimits &limits,
                                           Body &b, Plan &p) {
  std::string why = collectBody(copy, b);
  if (!why.empty())
    return why;
  if (!pipelineAll && !b.hasStall)
    return "its DMAs' metrics show no stall";
  chooseDistances(b, loop, p);
  p.dc = computeDistance;
  while (true) {
    // First with the copies that keep async units from stalling the
    // core, then without them, before shorter distances.
    if (asyncCopies) {
      why = schedule(b, loop, limits, valueOrder, true, p);
      if (why.empty())
        break;
    }
    why = schedule(b, loop, limits, valueOrder, false, p);
    if (why.empty() || why == kNotInBody)
      break; // rotating iter_args: no distance helps (unrollRotating)
    if (p.dc > 0)
      --p.dc;
    else if (p.d > 1 && p.d >= p.ds)
      --p.d;
    else if (p.ds > 0) // at 0, a store is waited for where it is issued
      --p.ds;
    else
      break;
  }
  return why;
}

void PipelineDriver::tryStagedStores(scf::ForOp copy, scf::ForOp loop,
                                     const ScheduleLimits &limits, Body &b,
                                     Plan &p, std::string &why,
                                     SmallVectorImpl<Operation *> &hoisted) {
  Plan wanted;
  if (!b.ops.empty())
    chooseDistances(b, loop, wanted);
  if (why.empty() && p.ds >= wanted.ds)
    return;
  SmallVector<StagedStore> staged = stageStores(copy);
  if (staged.empty())
    return;
  Body sb;
  Plan sp;
  std::string stagedWhy = searchSchedule(copy, loop, limits, sb, sp);
  if (stagedWhy.empty() && (!why.empty() || sp.ds > p.ds)) {
    b = std::move(sb);
    p = std::move(sp);
    why.clear();
    for (StagedStore &st : staged)
      hoisted.push_back(st.buffer);
    return;
  }
  unstageStores(staged);
  if (why.empty()) { // the unstaged schedule, on the restored body
    Body rb;
    Plan rp;
    why = searchSchedule(copy, loop, limits, rb, rp);
    b = std::move(rb);
    p = std::move(rp);
  }
}

void PipelineDriver::numberValues(FunctionOpInterface func) {
  valueOrder.clear();
  for (BlockArgument arg : func.getArguments())
    valueOrder[arg] = valueOrder.size();
  func->walk([&](Operation *op) {
    for (Value v : op->getResults())
      valueOrder[v] = valueOrder.size();
  });
}

/// Scalar registers live around `loop` (in `func`): every allocation's
/// address, each enclosing loop's (and this loop's) bounds, step,
/// induction variable and iter_args, and a margin of 16 for the body's
/// temporaries.
static int64_t registersAround(FunctionOpInterface func, scf::ForOp loop) {
  int64_t baseRegs = 16;
  func->walk([&](AllocOp) { ++baseRegs; });
  for (Operation *l = loop; l; l = l->getParentOfType<scf::ForOp>())
    baseRegs += 4 + cast<scf::ForOp>(l).getNumRegionIterArgs();
  return baseRegs;
}

/// The working copy of `loop`, cloned in front of it and normalized: the
/// allocations of its body hoisted before it (into `hoisted`; they get a
/// static address anyway), the views it uses taken in it (sinkViews), its
/// induction iter_args rewritten. It is then either pipelined in place of
/// `loop` or erased (discardCopy).
static scf::ForOp makeWorkingCopy(scf::ForOp loop,
                                  SmallVectorImpl<Operation *> &hoisted) {
  OpBuilder builder(loop);
  auto copy = cast<scf::ForOp>(builder.clone(*loop));
  copy.getBody()->walk([&](AllocOp op) { hoisted.push_back(op); });
  for (Operation *op : hoisted)
    op->moveBefore(copy);
  sinkViews(copy);
  rewriteInductions(copy);
  return copy;
}

/// Erases the working copy `copy` and the allocations hoisted from it
/// (`hoisted`); returns `why`.
static std::string discardCopy(scf::ForOp copy, ArrayRef<Operation *> hoisted,
                               std::string why) {
  copy.erase();
  for (Operation *op : hoisted)
    op->erase();
  return why;
}

std::string PipelineDriver::pipeline(scf::ForOp loop) {
  std::optional<int64_t> trips = tripCount(loop);
  if (!trips)
    return kDynamicBounds;
  if (*trips < 2)
    return "the trip count is less than 2";
  auto func = loop->getParentOfType<FunctionOpInterface>();
  uint64_t vmemBytes = allocatedVmemBytes(func, vmemPage);
  int64_t baseRegs = registersAround(func, loop);
  SmallVector<Operation *> hoisted;
  scf::ForOp copy = makeWorkingCopy(loop, hoisted);
  numberValues(func);
  ScheduleLimits limits{*trips, vmemBytes, vmemCapacity, vmemPage, baseRegs};
  Body b;
  Plan p;
  std::string why = searchSchedule(copy, loop, limits, b, p);
  tryStagedStores(copy, loop, limits, b, p, why, hoisted);
  if (!why.empty())
    return discardCopy(copy, hoisted, why);
  if (unrollRotation)
    equalizeCopies(p, vmemBytes, *trips);
  if (failed(transform(loop, copy, b, p, *trips)))
    return discardCopy(copy, hoisted,
                       "scf::pipelineForLoop refused the schedule");
  if (!trial) {
    count(kCountPipelined, 1);
    count(kCountStages, p.maxStage + 1);
    for (auto [root, n] : p.copies)
      count(kCountBuffers, n - 1);
  }
  return "";
}

LogicalResult PipelineDriver::transform(scf::ForOp loop, scf::ForOp copy,
                                        const Body &b, const Plan &p,
                                        int64_t trips) {
  unsigned period = 1;
  FailureOr<scf::ForOp> kernel =
      buildPipeline(loop, copy, b, p, trips, nextMarker, period);
  if (failed(kernel))
    return failure();
  forgetLoops(loop);
  loop.erase();
  if (unrollRotation)
    expandRotation(*kernel, period);
  return success();
}
