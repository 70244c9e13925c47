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
/// its readers read that instead. With `emitRemarks`, a stacked pin says
/// so.
void pin(Candidate &c, bool emitRemarks);

} // namespace accel::detail::pinvmem

#endif // ACCEL_LIB_TRANSFORMS_PINVMEM_H
