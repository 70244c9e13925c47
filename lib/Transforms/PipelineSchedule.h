//===- PipelineSchedule.h - accel-pipeline-dma internals --------*- C++ -*-===//
//
// The parts of --accel-pipeline-dma (PipelineDma.cpp, whose header explains
// the method; internal to lib/Transforms): the body of a candidate loop as
// the schedule sees it and the schedule itself (PipelineSchedule.cpp), the
// check that a buffer is private to an iteration (PipelinePrivacy.cpp), and
// the rewrite by upstream's scf::pipelineForLoop with multi-buffering and
// modulo variable expansion (PipelineRewrite.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef ACCEL_LIB_TRANSFORMS_PIPELINESCHEDULE_H
#define ACCEL_LIB_TRANSFORMS_PIPELINESCHEDULE_H

#include "DmaMotion.h"

#include "llvm/ADT/MapVector.h"

namespace accel::detail::pipeline {

/// Scalar registers a program may use (accel::isa::kNumRegs, less r0; the
/// ISA header is not included here: its namespace `isa` would shadow
/// llvm::isa).
constexpr int64_t kScalarRegs = 255;

/// The most ops a loop unrolled by the pass (expandRotation, flatten)
/// may have.
constexpr int64_t kMaxUnrolledOps = 2048;

/// The trip count of `loop` when its bounds and step are constants (a
/// positive step), else nullopt.
std::optional<int64_t> tripCount(scf::ForOp loop);

/// Ops that only compute a value (address math): copied into every stage
/// that uses them.
bool isPureOp(Operation *op);

/// The top-level op of `body` that contains `op`, or null.
Operation *holderIn(Block *body, Operation *op);

/// The body of a candidate loop, as the schedule sees it.
struct Body {
  scf::ForOp loop;
  SmallVector<Operation *> ops; ///< top level, without the terminator
  llvm::DenseMap<Operation *, unsigned> index;
  /// Per op: its accesses, and those of the DMAs it WAITs for (the end of
  /// their window).
  SmallVector<SmallVector<MemoryAccess>> accesses;
  /// Dependences from -> to (from < to); kind 0: same stage allowed;
  /// 1: a DMA into VMEM, ISSUE -> WAIT (d stages); 2: into HBM (ds stages);
  /// 3: an MXU or VPU op's result read on another unit or by a DMA ISSUE
  /// (dc stages: the reader would otherwise wait for the unit, idle
  /// behind it, in the in-order core).
  struct Edge {
    unsigned from, to, kind;
  };
  SmallVector<Edge> edges;
  bool hasStall = false;
  int64_t loadLatency = 0, storeLatency = 0, transfer = 0;
};

/// The decision for one loop.
struct Plan {
  int64_t d = 1, ds = 1;
  /// Stages between a unit op (MXU, VPU) and a reader of its result on
  /// another unit or a DMA ISSUE: 0 or 1.
  int64_t dc = 1;
  SmallVector<unsigned> stage; ///< per op of Body::ops
  unsigned maxStage = 0;
  llvm::MapVector<Value, unsigned> copies; ///< buffer -> N (N > 1)
  uint64_t extraBytes = 0;
};

/// The functional unit a top-level op of the body runs on.
enum class Unit { None, Mxu, Vpu };
Unit unitOf(Operation *op);

/// Fills `b` for `loop` (the working copy: allocations hoisted, induction
/// iter_args rewritten): its top-level ops, their accesses, the
/// dependences between them and the DMA metrics; returns the refusal
/// reason or "".
std::string collectBody(scf::ForOp loop, Body &b);

/// What a schedule must fit in.
struct ScheduleLimits {
  int64_t trips;         ///< the loop's trip count
  uint64_t vmemBytes;    ///< VMEM the function allocates now, in bytes
  uint64_t vmemCapacity; ///< VMEM capacity in bytes
  uint64_t vmemPage;     ///< VMEM allocation granularity in bytes
  int64_t baseRegs;      ///< scalar registers live around the loop
};

/// The schedule of `b` for the distances of `p` (its stages, and the
/// copies of each private buffer), filled into `p`; returns the refusal
/// reason or "". `outside`: the loop being replaced (the privacy check
/// follows the paths after it). `valueOrder` numbers the function's values
/// in program order, so that buffer groups come out the same on every run.
/// With `asyncCopies`, an MXU or VPU op in a later stage than an access of
/// a later iteration gets one more copy of its private buffers.
std::string schedule(Body &b, scf::ForOp outside, const ScheduleLimits &limits,
                     const llvm::DenseMap<Value, unsigned> &valueOrder,
                     bool asyncCopies, Plan &p);

/// The VMEM the copies of plan `p` add, in bytes, each copy rounded up to
/// `vmemPage`.
uint64_t extraBytesOf(const Plan &p, uint64_t vmemPage);

/// Whether the buffers of `group` may get a copy per iteration of the
/// loop: VMEM allocations made outside the loop whose contents neither
/// enter nor leave an iteration. Entering: every read of a member in an
/// iteration reads bytes written earlier in the same iteration, by a
/// whole-buffer write or by subview writes whose rectangles cover the
/// read (SymbolicRun over the body). Leaving: the loop's last
/// contents are dead after `outside` (the loop being replaced; see
/// deadAfter), so the program may use the buffers before and after the
/// loop for other tensors.
bool isPrivate(const Body &b, ArrayRef<Value> group, scf::ForOp outside);

/// Rewrites `loop` as the pipeline of plan `p` built on `copy` (its working
/// copy, `b` its body): stages as attributes, scf::pipelineForLoop with a
/// peeled epilogue, the copies of each private buffer rotated through the
/// kernel's iter_args, one `accel.pipelined` marker (numbered from
/// `nextMarker`, which is advanced) and the copies' op ids and metrics
/// dropped. `loop`'s results are replaced; the caller erases it. Returns
/// the kernel loop and sets `period` to its rotation's period; failure
/// (the IR unchanged) when scf::pipelineForLoop refuses the schedule.
FailureOr<scf::ForOp> buildPipeline(scf::ForOp loop, scf::ForOp copy,
                                    const Body &b, const Plan &p, int64_t trips,
                                    int64_t &nextMarker, unsigned &period);

/// Modulo variable expansion of a kernel whose buffer iter_args rotate
/// with period `period`: unrolled by the period (scf's
/// loopUnrollByFactor; the remainder iterations, fewer than the period,
/// unrolled after it), the
/// rotation yields each buffer back to its own iter_arg, which scf.for's
/// canonicalization then folds into the copy it starts with. Each unrolled
/// body addresses its copies directly: the rotation cost one register
/// move per copy and iteration (the ISA has no remainder instruction to
/// index copy k mod N). Skipped when the kernel runs fewer than `period`
/// times, or the unrolled body and the remainder (up to 2 * `period` - 1
/// iterations as straight-line code) would exceed kMaxUnrolledOps ops. A
/// kernel of fewer than 2 * `period` trips becomes straight-line code (a
/// loop enclosing it then sees those iterations as ops of its own body);
/// the rotation's moves cost more (a 9-copy halo window: 1.23x -> 1.03x of
/// its bound).
void expandRotation(scf::ForOp kernel, unsigned period);

//===----------------------------------------------------------------------===//
// Loops reshaped so that they can be pipelined (PipelineLoops.cpp). Each
// keeps every iteration and its order, so it is legal whatever the body
// does (issue 33, item 3).
//===----------------------------------------------------------------------===//

/// Marks the loop over the chunks of a strip-mined loop (unit attribute).
constexpr const char *kStripMinedAttr = "accel.strip_mined";

/// Marks the kernel loop buildPipeline made (unit attribute; it stays
/// through later FDO iterations and on the loop's copies): a loop
/// pipelined by this pass is not rewritten as a plain loop again
/// (depipelineCarried).
constexpr const char *kPipelinedKernelAttr = "accel.pipelined_kernel";

/// The longest rotation of iter_args unrollRotatingLoop unrolls.
constexpr unsigned kMaxRotation = 8;

/// The trip count per entry of `loop` that its metrics show: the runs of
/// its body (the largest accel.executions of an op without regions in it,
/// or of the entries of a loop nested in it) over the loop's entries (its
/// own accel.executions counts its head: once per iteration and once per
/// exit; without it, the runs of the ops beside it, 1 in the function
/// body); 0 when the metrics do not say.
int64_t profiledTrips(scf::ForOp loop);

/// Strip-mines `loop` (a constant positive step; bounds of any kind) into
/// chunks of `chunk` iterations, built in front of it:
///
///   n = max(ub - lb, 0) ceildiv step
///   scf.for %c = lb to lb + (n / T) * T * step step T * step {   // marked
///     scf.for %j = 0 to T step 1 { body(%c + %j * step) }
///   }
///   scf.for %i = lb + (n / T) * T * step to ub step step { body(%i) }
///
/// iter_args threaded through all three; the uses of `loop`'s results
/// read the last loop's. `loop` is left in place, unused (the caller
/// erases it or restores its uses). The body's allocations must have been
/// hoisted out of `loop` (each has one static address). The rest's ops
/// lose their op ids and execution counts. Returns the chunk loop.
scf::ForOp stripMineLoop(scf::ForOp loop, int64_t chunk);

/// Marks the outer loop of a nest coalesced by coalesceSegments: it is the
/// nest as written, run only when the segments do not continue one another
/// (unit attribute; it is not coalesced again).
constexpr const char *kSegmentsFallbackAttr = "accel.segments_fallback";

/// A nest rewritten by coalesceSegments, for the caller to keep or undo.
struct SegmentCoalescing {
  /// The nest's outer loop, left in place as the fallback (its upper bound
  /// guarded to run no iteration when the segments are contiguous).
  scf::ForOp outer;
  /// The one loop over the whole range, built in front of `outer`.
  scf::ForOp loop;
  /// The trip count per entry of `loop` that the metrics of the inner loop
  /// and of `outer` show (0 when they do not say).
  int64_t tripsPerEntry = 0;
  /// Puts the nest back as it was (the ops made before `outer` erased).
  /// `loop` must be in its place again (or erased) when this is called.
  void undo();
  /// Makes the rewrite final: `outer` is marked kSegmentsFallbackAttr.
  void keep();

  /// Whether the loops have the nest's shape (whatever the legality
  /// checks said): a refusal is then worth a remark.
  bool shaped = false;

  Operation *before = nullptr;
  Value upperBound;
  scf::ForOp scalar;
  SmallVector<std::pair<Operation *, DictionaryAttr>> strippedAttrs;
};

/// Coalesces a nest that walks consecutive segments of one range (a ragged
/// batch: the outer loop carries the row where the next segment starts in
/// iter_arg k, the inner loop `inner` runs from it to a bound computed in
/// the outer body, and that bound is what the outer loop yields for k) into
/// one loop over the whole range, keeping every inner iteration and its
/// order:
///
///   %r:n+1 = scf.for %b ... iter_args(..., %ok = true) {   // scalar only
///     <the outer body but `inner`>
///     %ok' = %ok && hi >= lo && (hi - lo) % step == 0
///   }
///   scf.for %i = init_k to select(%ok, %r#k, init_k) step step { body }
///   <the nest as written, its upper bound select(%ok, lb, ub)>
///
/// The outer loop's results read the scalar loop's. Legal when `inner` has
/// a constant positive step and no iter_args, its body reads no value of
/// the outer body but through its bounds, and the rest of the outer body
/// is scalar (ops without regions that only read memory: index math,
/// accel.load) and reads nothing `inner` may write (shared memory
/// dependence analysis): those reads move before the inner iterations of
/// earlier segments. Returns "" and fills `out` when the nest was
/// rewritten, else why not (nothing changed).
std::string coalesceSegments(scf::ForOp inner, SegmentCoalescing &out);

/// A DMA a hand-pipelined loop issues d iterations before it waits for
/// it: its token is carried in d iter_args that shift (t_0 is waited for,
/// t_k is yielded as t_(k-1), the ISSUE's token as t_(d-1)); a DMA issued
/// before the loop starts each, and a WAIT after the loop ends each
/// result.
struct CarriedChain {
  DmaStartOp issue;                 ///< in the body
  DmaWaitOp wait;                   ///< the body's WAIT on t_0
  SmallVector<unsigned> args;       ///< iter_arg numbers of t_0 .. t_(d-1)
  SmallVector<DmaStartOp> prologue; ///< the initial values' DMAs
  SmallVector<DmaWaitOp> epilogue;  ///< the WAITs on the results
};

/// The carried chains of `loop` (constant bounds): "" when it has some
/// and every token carried to a WAIT in the body forms one, else why not.
std::string findCarriedChains(scf::ForOp loop,
                              SmallVectorImpl<CarriedChain> &chains);

/// Whether depipelineCarried may rewrite chain `c` of `loop`: "" or why
/// not. The ISSUE's operands must be address math of the induction
/// variable; the prologue's DMAs the loop's DMA of iterations -d .. -1
/// (their views fold to the same constants); and each DMA's window, which
/// the rewrite shortens to nothing, free of dependences with the DMA (the
/// shared memory dependence analysis, ring slots `(i + c) mod K`
/// included), so no op changes order with respect to it.
std::string checkCarriedChain(scf::ForOp loop, CarriedChain c);

/// Rewrites each chain (checked by checkCarriedChain) as the plain loop:
/// the ISSUE moves to its WAIT with the operands of the iteration d
/// earlier, the prologue's DMAs go, and the DMAs the epilogue waits for
/// are issued after the loop (for iterations trips - d .. trips - 1).
/// Returns the loop without the chains' iter_args (`loop` is erased).
scf::ForOp depipelineCarried(scf::ForOp loop, ArrayRef<CarriedChain> chains);

/// The constant value of `f` (an offset, size or stride), with `bound`
/// (an induction variable, when given) taken as `at`; nullopt when it
/// does not fold (foldToConstant).
std::optional<int64_t> foldAt(OpFoldResult f, Value bound = {}, int64_t at = 0);

/// After depipelineCarried (PipelineSlots.cpp): gives the slot of a ring (a
/// VMEM allocation whose views `(i + c) mod K` the chain's DMA loads and the
/// loop reads) an allocation of its own in `loop`, so the tile is private to an
/// iteration and the pipeliner may keep as many in flight as it needs, not
/// K. Legal when every view of the ring in the loop names the DMA's slot
/// in every iteration (alwaysEqual) and is used after `wait`, every read
/// of the ring after the loop reads bytes a DMA wrote after the loop (the
/// epilogue's), and nothing before the loop in its block reads the ring
/// (in an enclosing loop, the ring's contents then are the previous
/// iteration's). Returns "" when done or nothing is needed (the DMA's
/// destination is not a view of a ring), else why not; a refusal may come
/// after part of the rewrite (callers try it on a copy first).
std::string privatizeSlots(scf::ForOp loop, DmaStartOp issue, DmaWaitOp wait);

/// The factor P by which to unroll `loop` so that no iter_arg is yielded
/// another iter_arg: iter_args yielded iter_args either rotate (ping-pong
/// buffers `yield %b, %a`: P a multiple of each cycle's length, and the
/// iter_args are then yielded unchanged) or shift (a hand-pipelined ring's
/// tokens `yield %next, %new`: P at least the chain's length, and the
/// iter_args are then yielded values computed in the body). 0 when no
/// iter_arg is yielded another, or P would exceed kMaxRotation.
unsigned rotationPeriod(scf::ForOp loop);

/// `loop` without the iter_args it yields unchanged: each reads its init
/// value instead, and so does each use of its result. Returns the new loop
/// (`loop` is erased), or `loop` when every iter_arg changes.
scf::ForOp dropInvariantIterArgs(scf::ForOp loop);

/// Unrolls `loop`, whose iter_args rotate with period `period`
/// (rotationPeriod), by the period (upstream's loopUnrollByFactor: the
/// trips % period left over in a loop after it), so that each copy names
/// its buffers directly and the rotation yields every iter_arg unchanged;
/// they are dropped (dropInvariantIterArgs). Buffers allocated before the
/// loop and private to an iteration (isPrivate) get one allocation per
/// copy, so the copies' DMAs into them do not wait for each other's reads.
/// Returns the unrolled main loop; failure (nothing changed) when the loop
/// cannot be unrolled.
FailureOr<scf::ForOp> unrollRotatingLoop(scf::ForOp loop, unsigned period);

/// Defers the WAITs of stalled DMAs (waitIsCritical) that can sink to the
/// end of `loop`'s body into the next iteration (DeferWaits.cpp): each
/// then waits, on a token carried in a new iter_arg, just before the first
/// op of the next iteration that may depend on the DMA (shared memory
/// dependence analysis, distance 1; at the latest the DMA's next ISSUE),
/// the first iteration is peeled to give the carried token its init, and
/// the last iteration's DMA is waited for after the loop. `loop` must have
/// a constant trip count of at least 2. `loop` is updated to the new loop;
/// returns one sentence per deferred WAIT (empty: nothing changed).
SmallVector<std::string> deferWaitsAcrossBackEdge(scf::ForOp &loop);

/// Rewrites the induction iter_args of `loop` (off' = off + c: the
/// yielded value is linear in the iter_arg with coefficient 1 through
/// arith.addi/subi/muli by constants, c a multiple of the step, so an
/// offset counting down works too) as off = init + (c / step) (iv - lb)
/// wherever they are read, the increment included: the loop-carried
/// dependence then no longer ties the address math to one stage, and
/// each stage computes its own offsets. The iter_arg itself stays,
/// unread.
void rewriteInductions(scf::ForOp loop);

/// Clones into the top of `loop`'s body every view of an allocation
/// (a chain of view ops) that is taken outside the loop and used in it,
/// and makes the uses in the loop read the clone: multi-buffering
/// replaces the allocation where the loop's ops name it, so a view taken
/// before the loop would keep every iteration on the first copy (issue
/// 33, miscompile 2). The clones are pure; the schedule places them like
/// the body's own views.
void sinkViews(scf::ForOp loop);

/// A store staged by stageStores: the DMA, the source it read, the VPU
/// copy made before it and the buffer the copy writes.
struct StagedStore {
  Operation *store;
  Value source;
  Operation *copy;
  Operation *buffer;
};

/// Stages the stores of `loop`'s body whose VMEM source carries data from
/// one iteration to the next (not private: an accumulator, a state): a
/// VPU copy of the source into a fresh buffer (allocated before the loop)
/// right before the store, and the store reads that. The fresh buffer is
/// private, so the pipeliner can multi-buffer it and wait for the store ds
/// iterations later, where the source itself would have to be waited for
/// before the next iteration writes it. Only stores whose metrics show a
/// stall, waited in the body, of float data. Returns what it staged.
SmallVector<StagedStore> stageStores(scf::ForOp loop);

/// Undoes stageStores: each store reads its source again, and the copies
/// and buffers are erased.
void unstageStores(ArrayRef<StagedStore> staged);

} // namespace accel::detail::pipeline

#endif // ACCEL_LIB_TRANSFORMS_PIPELINESCHEDULE_H
