//===- PipelineDriver.h - accel-pipeline-dma's choice of loops --*- C++ -*-===//
//
// The driver of --accel-pipeline-dma (internal to lib/Transforms): which
// loops it tries, in which order, and what it tries when a loop is refused
// as written. The pass (PipelineDma.cpp, whose header explains the method)
// runs it on each function; it is in three files: PipelineDma.cpp (the
// run, and the pipelining of one loop: distances, schedule, rewrite),
// PipelineTrials.cpp (the trials on a copy of the function that must still
// lower, and loops pipelined by hand) and PipelineReshape.cpp (the loops a
// refused loop is reshaped into: unrolled, strip-mined, coalesced).
//
//===----------------------------------------------------------------------===//

#ifndef ACCEL_LIB_TRANSFORMS_PIPELINEDRIVER_H
#define ACCEL_LIB_TRANSFORMS_PIPELINEDRIVER_H

#include "PipelineSchedule.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

#include <functional>

namespace accel::detail::pipeline {

/// The options of --accel-pipeline-dma (Passes.td), as the driver reads
/// them.
struct PipelineOptions {
  bool pipelineAll = false;         ///< `all`: loops without a stall too
  int64_t distance = 0;             ///< prefetch distance; 0: from the metrics
  int64_t maxDistance = 32;         ///< the largest distance from the metrics
  int64_t computeDistance = 1;      ///< stages after a unit op (0 or 1)
  bool asyncCopies = true;          ///< copies for units running on
  bool depipeline = true;           ///< rewrite loops pipelined by hand
  bool unrollRotation = true;       ///< modulo variable expansion
  uint64_t vmemPage = 1024;         ///< VMEM allocation granularity, bytes
  uint64_t vmemCapacity = 33554432; ///< VMEM capacity, bytes
  bool emitRemarks = false;         ///< `remarks`
};

/// The counts the pass reports (its statistics, in declaration order).
enum PipelineCount : unsigned {
  kCountPipelined = 0, ///< loops pipelined
  kCountStages = 1,    ///< their stages, summed
  kCountBuffers = 2,   ///< buffer copies added
  kCountUnrolled = 3,  ///< small nests unrolled fully
};

/// Pipelines the loops of a function (run), with the state the pass keeps
/// between them. The options are its own members, set by run.
class PipelineDriver : public PipelineOptions {
public:
  /// Adds `n` to count `index` (a PipelineCount).
  using CountFn = std::function<void(unsigned index, uint64_t n)>;

  /// Pipelines the loops of `func` with `options` (the function has
  /// metrics, or `all` is set), innermost first; a loop refused as it is
  /// is tried reshaped, else gets a remark (with `remarks`). Reports what
  /// it changed through `count`.
  void run(func::FuncOp func, const PipelineOptions &options, CountFn count);

private:
  //===--------------------------------------------------------------------===//
  // The run and one loop (PipelineDma.cpp)
  //===--------------------------------------------------------------------===//

  /// The loops of the function, innermost first and of sibling loops the
  /// last first, with their `work`, `tripsSeen` and (in the function
  /// body) `nestIterations` read before any loop changes.
  SmallVector<scf::ForOp> collectLoops();

  /// Pipelines `loop`, or else the loops it is reshaped into (a loop
  /// pipelined by hand, flattened, unrolled by its rotation, coalesced or
  /// strip-mined), or else defers its WAITs and emits the remark of why
  /// not. `unrolled` holds the loops to skip; a coalesced nest's fallback
  /// joins it.
  void pipelineOrExplain(scf::ForOp loop, bool lowersNow,
                         llvm::SmallPtrSetImpl<Operation *> &unrolled);

  /// Gives every buffer group of `p` the largest copy count when VMEM has
  /// room and the kernel (`trips` - the last stage) runs long enough for
  /// expandRotation to unroll it: the rotation then has one period, the
  /// unroll factor (copy counts 6 and 7 would need 42).
  void equalizeCopies(Plan &p, uint64_t vmemBytes, int64_t trips) const;

  /// Prefetch distances from the metrics (SnR §5.3.1): a tile's
  /// un-overlapped latency L (the largest stall per execution, T_b plus
  /// transfer) against the time an iteration takes once the DMAs overlap,
  /// P = max(work per iteration, transfer per iteration on the link):
  /// d = ceil(L / P) iterations in flight hide L; likewise ds for stores.
  /// Without metrics: `distance` (or 1) and 1.
  void chooseDistances(const Body &b, scf::ForOp original, Plan &p);

  /// The schedule of `copy` (the working copy of `loop`) with the largest
  /// distances that is legal and fits `limits` (trip count, VMEM): the
  /// distances are lowered until one is. Fills `b` and `p`; returns the
  /// refusal reason or "".
  std::string searchSchedule(scf::ForOp copy, scf::ForOp loop,
                             const ScheduleLimits &limits, Body &b, Plan &p);

  /// Stores whose source carries data across iterations, staged through a
  /// copy of their own (stageStores) in `copy`, when that lets the stores
  /// be waited for later than the schedule `b`, `p` without them does (or
  /// when `why` refused it): the copies cost a VPU op each, so they stay
  /// only when they buy distance. Updates `b`, `p` and `why` to the
  /// schedule kept; the staged buffers join `hoisted`.
  void tryStagedStores(scf::ForOp copy, scf::ForOp loop,
                       const ScheduleLimits &limits, Body &b, Plan &p,
                       std::string &why, SmallVectorImpl<Operation *> &hoisted);

  /// Numbers every value of `func` in walk order (valueOrder).
  void numberValues(FunctionOpInterface func);

  /// Pipelines `loop`, or returns why not (leaving it unchanged).
  std::string pipeline(scf::ForOp loop);

  /// buildPipeline (PipelineRewrite.cpp), then `loop` erased and the
  /// kernel's buffer rotation unrolled (--unroll-rotation).
  LogicalResult transform(scf::ForOp loop, scf::ForOp copy, const Body &b,
                          const Plan &p, int64_t trips);

  //===--------------------------------------------------------------------===//
  // Trials that must still lower (PipelineTrials.cpp)
  //===--------------------------------------------------------------------===//

  /// A copy of the function (alone in a module of its own: the functions
  /// beside it may be changing on other threads) and the copy of `loop` in
  /// it, for a trial.
  std::pair<OwningOpRef<ModuleOp>, scf::ForOp> copyWithLoop(scf::ForOp loop);

  /// Pipelines `loop` after a trial on a copy of its function (alone in a
  /// module of its own: the functions beside it may be changing on other
  /// threads) that must still lower (lib/Target/AccelToISA) within 7/8
  /// of the scalar registers, and within all of them after cse: the
  /// lowering does not spill, and how many registers a schedule needs
  /// depends on every value's lifetime in the prologue, kernel and
  /// epilogue, which the plan's estimate only approximates. A trial that
  /// does not lower is retried with half the largest distance, down to 1;
  /// then the loop is refused with the lowering's message. `lowersNow`:
  /// whether the function lowers before any change (if not, the trial
  /// proves nothing and is skipped).
  std::string pipelineChecked(scf::ForOp loop, bool lowersNow);

  /// "" when the function of `copy` (a module of its own) lowers within
  /// 7/8 of the scalar registers (room for later passes), and within all
  /// of them after cse, which the FDO pipeline runs next: merging equal
  /// constants and address math across a prologue, an unrolled kernel and
  /// an epilogue lengthens live ranges (seed 4017 of the corpus lowered
  /// before cse and needed more than 255 registers after it); else the
  /// lowering's error. `copy` is changed (cse).
  std::string lowersWithMargin(ModuleOp copy);

  /// Pipelines `loop`, a loop pipelined by hand (findCarriedChains), as
  /// the plain loop depipelineCarried makes of it: tried on a copy of the
  /// function first, the rewrite is made only when that copy's loop
  /// pipelines (and lowers with room). Returns "" when `loop` was replaced
  /// and pipelined, else why not (nothing changed).
  std::string depipelineChecked(scf::ForOp loop, bool lowersNow);

  /// `why` (returned), after a remark that `loop`, pipelined by hand, is
  /// not rewritten as the plain loop for that reason.
  std::string refuseDepipeline(scf::ForOp loop, std::string why);

  /// The trial of depipelineChecked on a copy of the function: its `loop`
  /// rewritten as the plain loop, slots privatized, and pipelined with a
  /// load distance of at least `ahead` (the chains' longest), halving the
  /// largest distance while the program does not lower (as
  /// pipelineChecked). Returns "" when it pipelined, else the reason for
  /// the remark.
  std::string trialDepipeline(scf::ForOp loop, size_t ahead, bool lowersNow);

  /// deferWaitsAcrossBackEdge on `loop` (refused), when the function
  /// still lowers with room after it (lowersWithMargin, tried on a copy
  /// first) or did not lower before. `loop` is updated to the new loop.
  SmallVector<std::string> deferChecked(scf::ForOp &loop, bool lowersNow);

  //===--------------------------------------------------------------------===//
  // Loops reshaped when refused as written (PipelineReshape.cpp)
  //===--------------------------------------------------------------------===//

  /// Drops the `work` entries of `root` and the loops in it, before they
  /// are erased (a later loop may be allocated at the same address).
  void forgetLoops(Operation *root);

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
  bool flatten(scf::ForOp loop);

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
  bool unrollSmallNest(scf::ForOp loop, bool lowersNow);

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
                     llvm::function_ref<FailureOr<scf::ForOp>()> build);

  /// Pipelines a loop whose bounds are known only at run time (issue 33,
  /// item 3) by strip-mining it (stripMineLoop) into chunks of T: the
  /// trip count its metrics show per entry (at most kMaxChunk), so the
  /// profiled input runs as one pipelined chunk; 8 without metrics
  /// (`all`). Other inputs run whole chunks pipelined and the rest (fewer
  /// than T) as written. Returns "" when the chunk loop was pipelined,
  /// else why not, with `loop` as it was (its allocations hoisted).
  std::string stripMine(scf::ForOp loop, bool lowersNow);

  /// Pipelines the segments of a ragged nest (issue 33, item 3: a batch of
  /// sequences of run-time lengths packed back to back) as one loop:
  /// coalesceSegments, then stripMine on the coalesced loop, chunks of the
  /// trip count its metrics show over the whole nest. Returns "" when the
  /// chunks were pipelined (`outer` is the nest as written, kept as the
  /// fallback), else why not, with nothing changed; `shaped` tells whether
  /// the loops had the nest's shape (SegmentCoalescing::shaped).
  std::string coalesceAndStripMine(scf::ForOp loop, bool lowersNow,
                                   scf::ForOp &outer, bool &shaped);

  /// Pipelines a loop whose iter_args only rotate (issue 33, item 3:
  /// ping-pong accumulators passed as memref iter_args) by unrolling it
  /// by the rotation's period P first (unrollRotatingLoop, on a copy);
  /// it must run at least 2P times. Returns "" when the unrolled loop was
  /// pipelined, else why not, with `loop` as it was.
  std::string unrollRotating(scf::ForOp loop, bool lowersNow);

  //===--------------------------------------------------------------------===//
  // State
  //===--------------------------------------------------------------------===//

  /// The function being pipelined.
  func::FuncOp function;
  /// Reports the pass's counts (run's `count`).
  CountFn count;

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
};

/// Why a loop is not pipelined as it is: stripMine then tries its chunks.
constexpr const char *kDynamicBounds = "the loop bounds are not constant";
/// Why a loop with iter_args that only rotate is not pipelined as it is:
/// unrollRotating then tries it unrolled.
constexpr const char *kNotInBody =
    "an iter_arg is not computed in the loop body";

/// Cycles of work per iteration of `loop`: accel.busy_cycles summed over
/// the body (nested ops included) divided by the body's executions (the
/// largest accel.executions of a top-level op); 0 without metrics.
int64_t workPerIteration(scf::ForOp loop);

} // namespace accel::detail::pipeline

#endif // ACCEL_LIB_TRANSFORMS_PIPELINEDRIVER_H
