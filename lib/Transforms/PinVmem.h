//===- PinVmem.h - The pins of accel-pin-vmem -------------------*- C++ -*-===//
//
// What --accel-pin-vmem (PinVmem.cpp) shares with its legality checks
// (PinVmemLegality.cpp) and its rewrites (PinVmemRewrite.cpp): a candidate
// pin, the analysis that finds it or says why there is none, and the
// rewrite that pins it (internal to lib/Transforms).
//
//===----------------------------------------------------------------------===//

#ifndef ACCEL_LIB_TRANSFORMS_PINVMEM_H
#define ACCEL_LIB_TRANSFORMS_PINVMEM_H

#include "DmaMotion.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/BitVector.h"

#include <string>

namespace accel::detail::pinvmem {

/// A DMA that may be pinned, with what its pin rewrites.
struct Candidate {
  DmaStartOp dma;
  DmaWaitOp wait;
  AllocOp buffer;
  SmallVector<Operation *> readers; ///< read the pinned bytes
  int64_t saved = 0, bytes = 0;
  /// A resident buffer already holding the same bytes (an earlier pin of
  /// the same source before the same loop): reused, costing no VMEM.
  AllocOp resident;
  /// A pin across an outer loop (`level`): the DMA's loop (`stackLoop`,
  /// constant bounds, `stack` iterations) indexes its source, and the
  /// resident buffer holds one tile per iteration. Null for a plain pin.
  scf::ForOp level, stackLoop;
  int64_t stack = 0;
  /// The pure ops of stackLoop's body computing the DMA's operands.
  llvm::SetVector<Operation *> defs;
};

/// Most tiles one stacked pin holds (the copy of the K loop before the
/// outer loop runs this many DMAs).
constexpr int64_t kMaxStackedTiles = 64;
/// Most tiles a stacked pin loads with straight-line code (all in flight
/// together) rather than a loop.
constexpr int64_t kMaxStraightFill = 16;

/// `d`'s operands other than its destination: the source view and the
/// chip ids, which must not change in the loop for one load before it to
/// stand for all of its iterations.
SmallVector<Value> getInputsBesidesDst(DmaStartOp d);

/// The legality of pinning a DMA (PinVmemLegality.cpp): the same bytes on
/// every iteration, an unchanged source, a buffer whose readers can read
/// a resident copy instead.
class PinAnalyzer {
public:
  /// `vmemPage`: the VMEM page in bytes (the pass's option; 0 counts as 1),
  /// to which a resident buffer's bytes are rounded up.
  explicit PinAnalyzer(uint64_t vmemPage) : vmemPage(vmemPage) {}

  /// Fills `c` with the candidate pin of `d`, or returns the refusal
  /// reason (a remark's sentence); "" when `d` can be pinned.
  std::string analyze(DmaStartOp d, Candidate &c) const;

private:
  std::string analyzeReuse(DmaStartOp d, scf::ForOp loop, scf::ForOp scope,
                           Candidate &c) const;
  std::string analyzeStacked(DmaStartOp d, scf::ForOp k, Candidate &c) const;
  /// `bytes` rounded up to the VMEM page.
  int64_t paged(uint64_t bytes) const;

  uint64_t vmemPage;
};

/// Pins `c` (a candidate PinAnalyzer::analyze found legal on the current
/// IR; PinVmemRewrite.cpp): its DMA leaves the loop for one load before it
/// into a resident buffer (or a stack of tiles before the outer loop), and
/// its readers read that instead; the buffer it shared, when nothing uses
/// it any more, is erased (returns true then). With `emitRemarks`, a
/// stacked pin says so.
bool pin(Candidate &c, bool emitRemarks);

//===----------------------------------------------------------------------===//
// The VMEM budget shared with accel-pipeline-dma (PinVmemBudget.cpp)
//===----------------------------------------------------------------------===//

/// A loop --accel-pipeline-dma would pipeline, as one item of the budget:
/// pipelining a loop multi-buffers all of its private buffers at once, or
/// refuses the loop, so its copies are kept room for together or not at
/// all.
struct PipelinedLoop {
  /// The VMEM bytes of the copies the pipelining adds for it (page
  /// multiples).
  uint64_t bytes = 0;
  /// Its stalled DMAs whose buffers get copies, with their stall cycles
  /// (what the pipelining hides).
  SmallVector<std::pair<DmaStartOp, int64_t>, 2> dmas;
  /// The sum of the DMAs' stall cycles.
  int64_t stalls() const;
};

/// The loops of `func`, as it is now, that --accel-pipeline-dma would
/// pipeline at `vmemCapacity` (bytes) with its other options at their
/// defaults, in op order: the pass's own driver is run on a copy of the
/// function, so a loop it refuses or unrolls fully keeps no room. A
/// buffer's copies, and the stalls of its DMAs, count towards the
/// innermost loop around its first access in a loop; loops with no
/// stalled DMA on a copied buffer (they hide nothing) are left out.
SmallVector<PipelinedLoop> findPipelinedLoops(mlir::func::FuncOp func,
                                              uint64_t vmemCapacity,
                                              uint64_t vmemPage);

/// A choice of pins (one bit per candidate) and the VMEM bytes the copies
/// of the loops pipelined after them take; `exhausted` when the knapsack's
/// branch-and-bound stopped at its node budget.
struct BudgetChoice {
  llvm::BitVector take;
  uint64_t reserved = 0;
  bool exhausted = false;
};

/// The pins among `dmas` (legal candidates of `func`, with their expected
/// cycles saved `values` and resident bytes `weights`) within `freeBytes`,
/// sharing the budget with the loops --accel-pipeline-dma will pipeline
/// (findPipelinedLoops at `vmemCapacity`, `vmemPage`). First an estimate:
/// for each subset of those loops whose copies fit (every subset of up to
/// 8 loops, else the prefixes in decreasing stall cycles per byte), the
/// pins are the exact knapsack (solveKnapsack) over the bytes left, a pin
/// of a DMA in a kept loop counting only the cycles the pipelining does
/// not hide already (the pipelining hides a kept loop's stall cycles, but
/// of a DMA that can be pinned at most its pin's value: a pin removes the
/// stalls and the transfers too, so it is worth at least as much, and
/// wins a tie). Then the estimate's best plan, the plan keeping no loop
/// and the one keeping the most are measured with the pipelining that
/// would follow their pins (the pass's driver on a copy of the function
/// with the pins applied: pins can shrink a loop's copies or free a shared
/// buffer), and the best measured plan wins. FAST (Zhang et al.,
/// ASPLOS '22) §5.5 states weight pinning as one capacity constraint; the
/// pipelining as part of the same budget is accel's (issue 33).
BudgetChoice choosePinsWithPipelining(mlir::func::FuncOp func,
                                      ArrayRef<DmaStartOp> dmas,
                                      ArrayRef<int64_t> values,
                                      ArrayRef<int64_t> weights,
                                      uint64_t freeBytes, uint64_t vmemCapacity,
                                      uint64_t vmemPage);

} // namespace accel::detail::pinvmem

#endif // ACCEL_LIB_TRANSFORMS_PINVMEM_H
