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
// The pass is in four files: this one (choosing the loops, the distances
// from the metrics, the trials that must still lower), PipelineSchedule.cpp
// (the body's dependences and the schedule), PipelinePrivacy.cpp (private
// buffers) and PipelineRewrite.cpp (the pipeliner, multi-buffering, modulo
// variable expansion); PipelineSchedule.h declares what they share.
//
//===----------------------------------------------------------------------===//

#include "LoweringCheck.h"
#include "PipelineSchedule.h"
#include "accel/Support/PassOptions.h"
#include "accel/Transforms/Passes.h"

#include "mlir/Dialect/SCF/Utils/Utils.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/SmallBitVector.h"
#include "llvm/Support/CheckedArithmetic.h"

#include "mlir/IR/Dominance.h"
#include "mlir/IR/Iterators.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/LoopLikeInterface.h"
#include "mlir/Transforms/CSE.h"
#include <numeric>

namespace accel {
#define GEN_PASS_DEF_ACCELPIPELINEDMA
#include "accel/Transforms/Passes.h.inc"
} // namespace accel

using namespace mlir;
using namespace accel;
using namespace accel::detail;
using namespace accel::detail::pipeline;

/// Cycles of work per iteration of `loop`: accel.busy_cycles summed over
/// the body (nested ops included) divided by the body's executions (the
/// largest accel.executions of a top-level op); 0 without metrics.
static int64_t workPerIteration(scf::ForOp loop) {
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
/// Why a loop is not pipelined as it is: stripMine then tries its chunks.
constexpr const char *kDynamicBounds = "the loop bounds are not constant";
/// Why a loop with iter_args that only rotate is not pipelined as it is:
/// unrollRotating then tries it unrolled.
constexpr const char *kNotInBody =
    "an iter_arg is not computed in the loop body";

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

  /// Work per iteration of every loop, read before any loop changes (the
  /// clones of an inner loop lose its metrics).
  llvm::DenseMap<Operation *, int64_t> work;
  /// Per loop in the function body: the iterations its whole nest ran (the
  /// largest accel.executions of an op in it; a nested op runs once per
  /// iteration of every loop around it), read before any loop changes.
  llvm::DenseMap<Operation *, int64_t> nestIterations;
  /// Per loop: its trip count per entry in the profile (profiledTrips),
  /// read before any loop changes (a rewritten inner loop has no metrics).
  llvm::DenseMap<Operation *, int64_t> tripsSeen;
  /// The next `accel.pipelined` id.
  int64_t nextMarker = 0;
  /// Every value of the function being pipelined (operation results, then
  /// block arguments) numbered in walk order: a deterministic order for
  /// sets of buffers.
  llvm::DenseMap<Value, unsigned> valueOrder;
  /// The largest distance the current attempt may choose.
  int64_t distanceCap = INT64_MAX;
  /// The smallest load distance chosen from the metrics: a loop pipelined
  /// by hand keeps at least its programmer's distance (depipelineChecked).
  int64_t distanceFloor = 1;
  /// Set while pipelining a copy of the module for the lowering check:
  /// statistics are not counted.
  bool trial = false;

  /// Gives every buffer group of `p` the largest copy count when VMEM has
  /// room and the kernel (`trips` - the last stage) runs long enough for
  /// expandRotation to unroll it: the rotation then has one period, the
  /// unroll factor (copy counts 6 and 7 would need 42).
  void equalizeCopies(Plan &p, uint64_t vmemBytes, int64_t trips) const {
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

  /// Prefetch distances from the metrics (SnR §5.3.1): a tile's
  /// un-overlapped latency L (the largest stall per execution, T_b plus
  /// transfer) against the time an iteration takes once the DMAs overlap,
  /// P = max(work per iteration, transfer per iteration on the link):
  /// d = ceil(L / P) iterations in flight hide L; likewise ds for stores.
  /// Without metrics: `distance` (or 1) and 1.
  void chooseDistances(const Body &b, scf::ForOp original, Plan &p) {
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

  void runOnOperation() override {
    resetCounts({"num-pipelined", "num-stages", "num-buffers", "num-unrolled"});
    if (warnIfNoMetrics(getOperation(), getArgument(), pipelineAll))
      return;
    nextMarker = 0;
    nestIterations.clear();
    tripsSeen.clear();
    getOperation().walk([&](DmaStartOp d) {
      if (auto id = d->getAttrOfType<IntegerAttr>("accel.pipelined"))
        nextMarker = std::max(nextMarker, id.getInt() + 1);
    });
    // Bounds that fold to constants (an inner loop's `i + 1` once its
    // outer loop was unrolled) become constants: the loop's trip count is
    // then known, as for a loop written with constant bounds.
    getOperation().walk([&](scf::ForOp loop) {
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
    // A loop of no iteration (a pipelined loop's kernel when the prologue
    // and epilogue ran every trip) is dropped: its results are its inits.
    SmallVector<scf::ForOp> empty;
    getOperation().walk([&](scf::ForOp loop) {
      if (tripCount(loop) == 0)
        empty.push_back(loop);
    });
    for (scf::ForOp loop : empty) {
      loop.replaceAllUsesWith(loop.getInitArgs());
      loop->erase();
    }
    // A loop of one iteration (a peeled K loop's remainder) is inlined
    // first (upstream's promoteIfSingleIteration): its DMAs then become
    // ops of the enclosing body, which can be scheduled.
    SmallVector<scf::ForOp> single;
    getOperation().walk([&](scf::ForOp loop) {
      if (tripCount(loop) == 1)
        single.push_back(loop);
    });
    IRRewriter rewriter(&getContext());
    for (scf::ForOp loop : single)
      (void)cast<LoopLikeOpInterface>(loop.getOperation())
          .promoteIfSingleIteration(rewriter);
    // Innermost first, and of sibling loops the last first: an
    // allocation's address register is live from function entry to its
    // last use, so the copies a later loop adds weigh on the registers of
    // every loop before it, and are counted when that loop is planned.
    SmallVector<scf::ForOp> loops;
    getOperation()->walk<WalkOrder::PostOrder, ReverseIterator>(
        [&](scf::ForOp loop) {
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
    bool lowersNow =
        checkLowers(getOperation(), vmemCapacity, vmemPage, kScalarRegs)
            .empty();
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
    for (scf::ForOp loop : loops) {
      if (unrolled.contains(loop.getOperation()))
        continue;
      // A loop pipelined by hand is first tried as the plain loop it
      // pipelines, at the distance the metrics ask for.
      if (depipeline && depipelineChecked(loop, lowersNow).empty())
        continue;
      std::string why = pipelineChecked(loop, lowersNow);
      if (why.empty())
        continue;
      if (StringRef(why).starts_with("the trip count") && flatten(loop))
        continue; // its enclosing loop schedules the iterations' DMAs
      if (why == kNotInBody) {
        std::string unrollWhy = unrollRotating(loop, lowersNow);
        if (unrollWhy.empty())
          continue; // unrolled so that its iter_args stop rotating
        why += "; " + unrollWhy;
      }
      if (why == kDynamicBounds) {
        scf::ForOp outer;
        bool shaped = false;
        std::string segmentsWhy =
            coalesceAndStripMine(loop, lowersNow, outer, shaped);
        if (segmentsWhy.empty()) {
          unrolled.insert(outer); // the fallback nest stays as written
          continue;
        }
        if (shaped && emitRemarks)
          loop.emitRemark() << "not coalesced with the segments of its "
                               "enclosing loop: "
                            << segmentsWhy;
        std::string chunkWhy = stripMine(loop, lowersNow);
        if (chunkWhy.empty())
          continue; // its chunks of a constant trip count are pipelined
        why += "; " + chunkWhy;
      }
      SmallVector<std::string> deferred = deferChecked(loop, lowersNow);
      if (emitRemarks) {
        InFlightDiagnostic remark = loop.emitRemark()
                                    << "not pipelined: " << why;
        for (const std::string &d : deferred)
          remark << "; deferred across the back edge: " << d;
      }
    }
  }

  /// A copy of the function (alone in a module of its own: the functions
  /// beside it may be changing on other threads) and the copy of `loop` in
  /// it, for a trial.
  std::pair<OwningOpRef<ModuleOp>, scf::ForOp> copyWithLoop(scf::ForOp loop) {
    func::FuncOp func = getOperation();
    unsigned index = 0, at = 0;
    func.walk([&](scf::ForOp l) {
      if (l == loop)
        at = index;
      ++index;
    });
    OwningOpRef<ModuleOp> copy = cloneIntoModule(func);
    scf::ForOp copyLoop;
    index = 0;
    copy->walk([&](scf::ForOp l) {
      if (index++ == at)
        copyLoop = l;
    });
    return {std::move(copy), copyLoop};
  }

  /// Pipelines `loop`, a loop pipelined by hand (findCarriedChains), as
  /// the plain loop depipelineCarried makes of it: tried on a copy of the
  /// function first, the rewrite is made only when that copy's loop
  /// pipelines (and lowers with room). Returns "" when `loop` was replaced
  /// and pipelined, else why not (nothing changed).
  std::string depipelineChecked(scf::ForOp loop, bool lowersNow) {
    SmallVector<CarriedChain> chains;
    std::string why = findCarriedChains(loop, chains);
    if (!why.empty())
      return why; // not pipelined by hand: nothing to say
    // A loop this pass pipelined (in an earlier FDO iteration) already has
    // the distances its metrics asked for; re-pipelining it from scratch
    // loses its tuning (the Llama MLP: 1.6% slower).
    if (loop->hasAttr(kPipelinedKernelAttr))
      return "pipelined by this pass";
    auto refuse = [&](std::string why) {
      if (emitRemarks)
        loop.emitRemark() << "pipelined by hand, not rewritten as the "
                             "plain loop: "
                          << why;
      return why;
    };
    for (const CarriedChain &c : chains)
      if (why.empty())
        why = checkCarriedChain(loop, c);
    if (!why.empty())
      return refuse(why);
    size_t ahead = 0;
    for (const CarriedChain &c : chains)
      ahead = std::max(ahead, c.args.size());
    // The trial halves the largest distance while the plain loop's
    // pipelined program does not lower (registers), as pipelineChecked.
    for (int64_t cap = std::max<int64_t>(1, maxDistance);; cap /= 2) {
      auto [copy, copyLoop] = copyWithLoop(loop);
      SmallVector<CarriedChain> copyChains;
      if (!findCarriedChains(copyLoop, copyChains).empty())
        return refuse("its copy differs");
      scf::ForOp plain = depipelineCarried(copyLoop, copyChains);
      for (const CarriedChain &c : copyChains)
        if (why.empty())
          why = privatizeSlots(plain, c.issue, c.wait);
      if (!why.empty())
        return refuse("as a plain loop, " + why);
      work[plain.getOperation()] = workPerIteration(plain);
      int64_t marker = nextMarker;
      trial = true;
      distanceCap = cap;
      distanceFloor = int64_t(ahead);
      why = pipeline(plain);
      distanceFloor = 1;
      trial = false;
      nextMarker = marker;
      work.erase(plain.getOperation());
      if (!why.empty())
        return refuse("as a plain loop, " + why);
      if (!lowersNow)
        break;
      std::string error = lowersWithMargin(*copy);
      if (error.empty())
        break;
      if (cap <= 1)
        return refuse("as a plain loop, the pipelined program would not "
                      "lower: " +
                      error);
    }
    Location loc = loop.getLoc();
    forgetLoops(loop);
    scf::ForOp plain = depipelineCarried(loop, chains);
    for (const CarriedChain &c : chains)
      (void)privatizeSlots(plain, c.issue, c.wait); // as on the copy
    work[plain.getOperation()] = workPerIteration(plain);
    tripsSeen[plain.getOperation()] = profiledTrips(plain);
    distanceFloor = int64_t(ahead);
    why = pipelineChecked(plain, lowersNow);
    distanceFloor = 1;
    if (emitRemarks) {
      InFlightDiagnostic remark =
          mlir::emitRemark(loc)
          << "pipelined by hand (DMAs issued " << ahead
          << " iteration(s) ahead), rewritten as the plain loop";
      if (why.empty())
        remark << " and pipelined";
      else
        remark << ", not pipelined: " << why;
    }
    return "";
  }

  /// deferWaitsAcrossBackEdge on `loop` (refused), when the function
  /// still lowers with room after it (lowersWithMargin, tried on a copy
  /// first) or did not lower before. `loop` is updated to the new loop.
  SmallVector<std::string> deferChecked(scf::ForOp &loop, bool lowersNow) {
    if (lowersNow) {
      auto [copy, trialLoop] = copyWithLoop(loop);
      if (deferWaitsAcrossBackEdge(trialLoop).empty() ||
          !lowersWithMargin(*copy).empty())
        return {};
    }
    forgetLoops(loop);
    return deferWaitsAcrossBackEdge(loop);
  }

  /// Drops the `work` entries of `root` and the loops in it, before they
  /// are erased (a later loop may be allocated at the same address).
  void forgetLoops(Operation *root) {
    root->walk([&](scf::ForOp l) { work.erase(l.getOperation()); });
  }

  /// Fully unrolls `loop`, a loop with DMAs refused for its trip count
  /// (at most kFlattenTrips iterations, fewer than its stages), into the
  /// body of an enclosing scf.for, which is pipelined after it and can
  /// then overlap those DMAs across its own iterations (a 2-trip loop over
  /// the column tiles of a row band inside a loop over the bands). The
  /// loop's allocations are hoisted first (each has one static address, so
  /// the unrolled iterations keep sharing it). The first iteration keeps
  /// the op ids; the others keep the metrics (per execution they are the
  /// same) and get new ids when ids are assigned again. False (nothing
  /// changed) when there is no enclosing loop or the unrolled body would
  /// exceed kMaxUnrolledOps ops.
  bool flatten(scf::ForOp loop) {
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

  /// Fully unrolls `loop` and its nested loops of constant trip counts
  /// (unrollNest), a loop nest in the function body with a constant trip
  /// count whose DMAs stall and whose metrics show at most
  /// kSmallNest iterations in all (nestIterations: read before any loop
  /// changes), when the function still lowers after it: so few
  /// iterations pipeline poorly (the prologue and epilogue are most of
  /// the run), while as straight-line code the DMA-motion passes of the
  /// next FDO iteration (rename, hoist, sink, parallelize) issue every
  /// load early and wait for every store late. The iterations after the
  /// first lose their op ids (as in `flatten`). Not with `all` (no
  /// metrics to say the DMAs stall). True when it was unrolled.
  bool unrollSmallNest(scf::ForOp loop, bool lowersNow) {
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
      OwningOpRef<ModuleOp> copy = cloneIntoModule(getOperation());
      scf::ForOp twin;
      unsigned index = 0, at = 0;
      getOperation().walk([&](scf::ForOp l) {
        if (l == loop)
          at = index;
        ++index;
      });
      index = 0;
      copy->walk([&](scf::ForOp l) {
        if (index++ == at)
          twin = l;
      });
      if (!twin || failed(unrollNest(twin)) || !lowersWithMargin(*copy).empty())
        return false;
    }
    Location loc = loop.getLoc();
    forgetLoops(loop);
    if (failed(unrollNest(loop)))
      return false;
    bump(numUnrolled, 3);
    if (emitRemarks)
      mlir::emitRemark(loc) << "unrolled fully: " << iterations
                            << " iterations in all are too few to pipeline; "
                               "the DMA-motion passes schedule them as "
                               "straight-line code";
    return true;
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

  /// Replaces `loop` by the loop `build` makes in front of it (one that
  /// keeps every iteration and its order: strip-mined, unrolled), whose
  /// uses of `loop`'s results `build` has redirected, and pipelines that
  /// loop (a loop whose iter_args only rotate is unrolled first). Returns
  /// "" when it was pipelined (`loop` is gone), else why not, with the
  /// function as it was: `loop` back in its place with its uses, and all
  /// that `build` made erased. `loop` leaves the function while its
  /// replacement is tried: a trial lowers the whole function. Ops `build`
  /// makes must lie between `loop`'s neighbours (hoist anything `loop`
  /// keeps using before calling).
  std::string
  replaceAndPipeline(scf::ForOp loop, bool lowersNow,
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

  /// Pipelines a loop whose bounds are known only at run time (issue 33,
  /// item 3) by strip-mining it (stripMineLoop) into chunks of T: the
  /// trip count its metrics show per entry (at most kMaxChunk), so the
  /// profiled input runs as one pipelined chunk; 8 without metrics
  /// (`all`). Other inputs run whole chunks pipelined and the rest (fewer
  /// than T) as written. Returns "" when the chunk loop was pipelined,
  /// else why not, with `loop` as it was (its allocations hoisted).
  std::string stripMine(scf::ForOp loop, bool lowersNow) {
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

  /// Pipelines the segments of a ragged nest (issue 33, item 3: a batch of
  /// sequences of run-time lengths packed back to back) as one loop:
  /// coalesceSegments, then stripMine on the coalesced loop, chunks of the
  /// trip count its metrics show over the whole nest. Returns "" when the
  /// chunks were pipelined (`outer` is the nest as written, kept as the
  /// fallback), else why not, with nothing changed; `shaped` tells whether
  /// the loops had the nest's shape (SegmentCoalescing::shaped).
  std::string coalesceAndStripMine(scf::ForOp loop, bool lowersNow,
                                   scf::ForOp &outer, bool &shaped) {
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

  /// Pipelines a loop whose iter_args only rotate (issue 33, item 3:
  /// ping-pong accumulators passed as memref iter_args) by unrolling it
  /// by the rotation's period P first (unrollRotatingLoop, on a copy);
  /// it must run at least 2P times. Returns "" when the unrolled loop was
  /// pipelined, else why not, with `loop` as it was.
  std::string unrollRotating(scf::ForOp loop, bool lowersNow) {
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

  /// Pipelines `loop`, or returns why not (leaving it unchanged).
  std::string pipeline(scf::ForOp loop) {
    std::optional<int64_t> trips = tripCount(loop);
    if (!trips)
      return kDynamicBounds;
    if (*trips < 2)
      return "the trip count is less than 2";
    auto func = loop->getParentOfType<FunctionOpInterface>();
    uint64_t vmemBytes = allocatedVmemBytes(func, vmemPage);
    // Registers live around the loop: every allocation's address, each
    // enclosing loop's (and this loop's) bounds, step, induction variable
    // and iter_args, and a margin for the body's temporaries.
    int64_t baseRegs = 16;
    func->walk([&](AllocOp) { ++baseRegs; });
    for (Operation *l = loop; l; l = l->getParentOfType<scf::ForOp>())
      baseRegs += 4 + cast<scf::ForOp>(l).getNumRegionIterArgs();
    // Work on a copy: normalized (allocations of the body hoisted, they
    // get a static address anyway; induction iter_args rewritten), then
    // either pipelined in place of `loop` or erased.
    OpBuilder builder(loop);
    auto copy = cast<scf::ForOp>(builder.clone(*loop));
    SmallVector<Operation *> hoisted;
    copy.getBody()->walk([&](AllocOp op) { hoisted.push_back(op); });
    for (Operation *op : hoisted)
      op->moveBefore(copy);
    sinkViews(copy);
    rewriteInductions(copy);
    valueOrder.clear();
    for (BlockArgument arg : func.getArguments())
      valueOrder[arg] = valueOrder.size();
    func->walk([&](Operation *op) {
      for (Value v : op->getResults())
        valueOrder[v] = valueOrder.size();
    });
    auto discard = [&](std::string why) {
      copy.erase();
      for (Operation *op : hoisted)
        op->erase();
      return why;
    };
    ScheduleLimits limits{*trips, vmemBytes, vmemCapacity, vmemPage, baseRegs};
    // The schedule with the largest distances that is legal and fits
    // (trip count, VMEM): the distances are lowered until one is.
    auto search = [&](Body &b, Plan &p) -> std::string {
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
    };
    Body b;
    Plan p;
    std::string why = search(b, p);
    // Stores whose source carries data across iterations, staged through
    // a copy of their own (stageStores), when that lets the stores be
    // waited for later than the schedule without them does: the copies
    // cost a VPU op each, so they stay only when they buy distance.
    Plan wanted;
    if (!b.ops.empty())
      chooseDistances(b, loop, wanted);
    if (!why.empty() || p.ds < wanted.ds) {
      SmallVector<StagedStore> staged = stageStores(copy);
      if (!staged.empty()) {
        Body sb;
        Plan sp;
        std::string stagedWhy = search(sb, sp);
        if (stagedWhy.empty() && (!why.empty() || sp.ds > p.ds)) {
          b = std::move(sb);
          p = std::move(sp);
          why.clear();
          for (StagedStore &st : staged)
            hoisted.push_back(st.buffer);
        } else {
          unstageStores(staged);
          if (why.empty()) { // the unstaged schedule, on the restored body
            Body rb;
            Plan rp;
            why = search(rb, rp);
            b = std::move(rb);
            p = std::move(rp);
          }
        }
      }
    }
    if (!why.empty())
      return discard(why);
    if (unrollRotation)
      equalizeCopies(p, vmemBytes, *trips);
    if (failed(transform(loop, copy, b, p, *trips)))
      return discard("scf::pipelineForLoop refused the schedule");
    if (!trial) {
      bump(numPipelined, 0);
      bump(numStages, 1, p.maxStage + 1);
      for (auto [root, n] : p.copies)
        bump(numBuffers, 2, n - 1);
    }
    return "";
  }

  /// Pipelines `loop` after a trial on a copy of its function (alone in a
  /// module of its own: the functions beside it may be changing on other
  /// threads) that must still lower (lib/Conversion/AccelToISA) within 7/8
  /// of the scalar registers, and within all of them after cse: the
  /// lowering does not spill, and how many registers a schedule needs
  /// depends on every value's lifetime in the prologue, kernel and
  /// epilogue, which the plan's estimate only approximates. A trial that
  /// does not lower is retried with half the largest distance, down to 1;
  /// then the loop is refused with the lowering's message. `lowersNow`:
  /// whether the function lowers before any change (if not, the trial
  /// proves nothing and is skipped).
  std::string pipelineChecked(scf::ForOp loop, bool lowersNow) {
    distanceCap = INT64_MAX;
    if (!lowersNow)
      return pipeline(loop);
    func::FuncOp func = getOperation();
    SmallVector<Operation *> originals;
    func.walk([&](scf::ForOp l) { originals.push_back(l); });
    unsigned index =
        llvm::find(originals, loop.getOperation()) - originals.begin();
    for (int64_t cap = std::max<int64_t>(1, maxDistance);; cap /= 2) {
      distanceCap = cap;
      OwningOpRef<ModuleOp> copy = cloneIntoModule(func);
      SmallVector<scf::ForOp> copies;
      copy->walk([&](scf::ForOp l) { copies.push_back(l); });
      for (auto [o, c] : llvm::zip(originals, copies))
        if (work.count(o))
          work[c.getOperation()] = work.lookup(o);
      int64_t marker = nextMarker;
      trial = true;
      std::string why = pipeline(copies[index]);
      trial = false;
      nextMarker = marker;
      std::string error;
      if (why.empty())
        error = lowersWithMargin(*copy);
      for (scf::ForOp c : copies)
        work.erase(c.getOperation());
      copy = nullptr;
      if (!why.empty())
        return why; // refused on its own: the real loop would be too
      if (error.empty())
        return pipeline(loop);
      if (cap <= 1)
        return "the pipelined program would not lower: " + error;
    }
  }

  /// "" when the function of `copy` (a module of its own) lowers within
  /// 7/8 of the scalar registers (room for later passes), and within all
  /// of them after cse, which the FDO pipeline runs next: merging equal
  /// constants and address math across a prologue, an unrolled kernel and
  /// an epilogue lengthens live ranges (seed 4017 of the corpus lowered
  /// before cse and needed more than 255 registers after it); else the
  /// lowering's error. `copy` is changed (cse).
  std::string lowersWithMargin(ModuleOp copy) {
    StringRef name = getOperation().getSymName();
    std::string error =
        checkLowers(copy, name, vmemCapacity, vmemPage, kScalarRegs * 7 / 8);
    if (!error.empty())
      return error;
    IRRewriter cseRewriter(copy.getContext());
    DominanceInfo dominance(copy);
    eliminateCommonSubExpressions(cseRewriter, dominance, copy);
    return checkLowers(copy, name, vmemCapacity, vmemPage, kScalarRegs);
  }

  /// buildPipeline (PipelineRewrite.cpp), then `loop` erased and the
  /// kernel's buffer rotation unrolled (--unroll-rotation).
  LogicalResult transform(scf::ForOp loop, scf::ForOp copy, const Body &b,
                          const Plan &p, int64_t trips) {
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
};
} // namespace
