//===- PinVmem.cpp - Keep re-DMA'd unchanged data resident in VMEM --------===//
//
// SnR §5.2.1 (pinning the node addresses of All-Gather in VMEM) and
// FAST §5.5 (weight pinning as a capacity-constrained choice): a DMA in
// a loop that brings the same, unchanged bytes on every iteration into a
// buffer that other data also passes through becomes one load, before the
// loop, into a dedicated resident buffer; the ops that read those bytes
// read the resident buffer instead.
//
// A DMA whose source changes with its loop's induction variable only (a
// weight tile k of an inner K loop, the same tiles in every iteration of
// the loop around it) is pinned across the outer loop instead: one
// resident buffer holds a stack of the K loop's tiles, filled by a copy of
// the K loop before the outer loop, and each K iteration reads its tile of
// the stack.
//
// This file holds the pass and its capacity-constrained choice among the
// candidates (the knapsack is in PinKnapsack.cpp); the legality of pinning
// a DMA (same bytes, unchanged source, buffer reuse) is in
// PinVmemLegality.cpp, the rewrites with the loop-invariant reads they
// expose in PinVmemRewrite.cpp (PinVmem.h between them).
//
//===----------------------------------------------------------------------===//

#include "PinVmem.h"
#include "LoweringCheck.h"
#include "accel/Dialect/Accel/TileShape.h"
#include "accel/Support/PassOptions.h"
#include "accel/Transforms/Passes.h"

#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/MapVector.h"

namespace accel {
#define GEN_PASS_DEF_ACCELPINVMEM
#include "accel/Transforms/Passes.h.inc"
} // namespace accel

using namespace mlir;
using namespace accel;
using namespace accel::detail;
using namespace accel::detail::pinvmem;

/// Expected cycles saved by pinning `d`: the largest `pin` suggestion on
/// it, or 0.
static int64_t pinHint(DmaStartOp d) {
  int64_t best = 0;
  if (auto list = d->getAttrOfType<ArrayAttr>("accel.suggestions"))
    for (Attribute a : list)
      if (auto dict = dyn_cast<DictionaryAttr>(a))
        if (auto kind = dict.getAs<StringAttr>("kind"))
          if (kind.getValue() == "pin")
            if (auto saved = dict.getAs<IntegerAttr>("expected_cycles_saved"))
              best =
                  std::max<int64_t>(best, std::max<int64_t>(1, saved.getInt()));
  return best;
}

namespace {
struct PinVmemPass
    : public accel::CheckedOptionsPass<
          PinVmemPass, accel::impl::AccelPinVmemBase<PinVmemPass>>,
      public ReportsChanges {
  using CheckedOptionsPass::CheckedOptionsPass;

  /// An error message for an option outside its range (or an unknown
  /// solver), or "".
  std::string checkOptions() const {
    if (solver != "exact" && solver != "greedy")
      return "solver must be 'exact' or 'greedy'; got '" + solver + "'";
    return checkVmemOptions(vmemCapacity, vmemPage);
  }

  /// The candidate pin of `d` on the current IR, or the refusal reason
  /// (PinAnalyzer::analyze).
  std::string analyze(DmaStartOp d, Candidate &c) const {
    return PinAnalyzer(vmemPage).analyze(d, c);
  }

  void runOnOperation() override {
    resetCounts({"num-pinned", "total-cycles-saved", "pinned-bytes"});
    if (warnIfNoMetrics(getOperation(), getArgument(), pinAll))
      return;
    LoweringGuard guard(getOperation(), vmemCapacity, vmemPage);
    // The solver is 'exact' or 'greedy' (checkOptions, before any run).
    if (solver == "greedy")
      runGreedy();
    else
      runExact();
    if (getLastRunCounts()[0].second == 0)
      return;
    if (std::string error = guard.keepIfLowers(); !error.empty()) {
      undoCounts({&numPinned, &cyclesSaved, &bytesPinned});
      if (emitRemarks)
        getOperation().emitRemark()
            << "pinned nothing: the pinned program would not lower: " << error;
    }
  }

  /// `solver=exact`: per function, the pins that maximize the sum of
  /// expected cycles saved with the resident buffers' bytes within the
  /// VMEM the function's allocations leave free (solveKnapsack). Pinning
  /// can make another DMA legal (its shared buffer loses a reader before
  /// it, as in a buffer several weight tiles stream through) and can free
  /// the shared buffer, so the choice is made in rounds: each round
  /// analyzes the remaining DMAs on the current IR, solves the knapsack
  /// over the legal ones with the capacity now free, and pins the chosen
  /// ones; the rounds stop when one pins nothing.
  void runExact() {
    // In op order per function (the solver's tie-break).
    llvm::MapVector<Operation *, SmallVector<ExactHint>> byFunc;
    getOperation().walk([&](DmaStartOp d) {
      int64_t saved = pinHint(d);
      if (!saved && !pinAll)
        return;
      auto func = d->getParentOfType<FunctionOpInterface>();
      byFunc[func].push_back({d, std::max<int64_t>(saved, 1)});
    });
    uint64_t reserved = 0; // bytes kept for pipelining, last round
    for (auto &[func, pending] : byFunc) {
      for (;;) {
        unsigned pinnedNow = pinRound(func, pending, reserved);
        llvm::erase_if(pending, [](const ExactHint &h) { return h.pinned; });
        if (!pinnedNow || pending.empty())
          break;
      }
      if (emitRemarks)
        remarkNotPinned(pending, reserved);
    }
  }

  /// A DMA with a pin hint for runExact: its expected cycles saved, and
  /// whether a round has pinned it.
  struct ExactHint {
    DmaStartOp dma;
    int64_t saved;
    bool pinned = false;
  };

  /// One round of runExact for `func`: chooses among the DMAs of
  /// `pending` legal now, with the VMEM now free, the pins and the loops
  /// --accel-pipeline-dma will need room for (choosePinsWithPipelining),
  /// and pins the chosen ones (marking them pinned). Sets `reserved` to the
  /// bytes kept for pipelining's copies. Returns how many were pinned.
  unsigned pinRound(Operation *func, SmallVectorImpl<ExactHint> &pending,
                    uint64_t &reserved) {
    uint64_t used = allocatedVmemBytes(func, vmemPage);
    uint64_t freeBytes = used < vmemCapacity ? vmemCapacity - used : 0;
    SmallVector<ExactHint *> legal;
    SmallVector<DmaStartOp> dmas;
    SmallVector<int64_t> values, weights;
    for (ExactHint &h : pending) {
      Candidate c;
      if (!analyze(h.dma, c).empty())
        continue;
      legal.push_back(&h);
      dmas.push_back(h.dma);
      values.push_back(h.saved);
      weights.push_back(std::max<int64_t>(0, c.bytes - freedBytes(c)));
    }
    reserved = 0;
    if (legal.empty())
      return 0;
    BudgetChoice choice =
        choosePinsWithPipelining(cast<func::FuncOp>(func), dmas, values,
                                 weights, freeBytes, vmemCapacity, vmemPage);
    reserved = choice.reserved;
    if (choice.exhausted && emitRemarks)
      func->emitRemark() << "pin choice: the branch-and-bound stopped at its "
                            "node budget; the best choice found so far is "
                            "used";
    // Pin the chosen DMAs, each analyzed again on the IR the pins before
    // it left: a pin can make another chosen DMA illegal (it moves a
    // DMA's access out of the loop, where it may now conflict), so they
    // are pinned in decreasing expected cycles saved (op order on a tie)
    // and one refused now stays pending for the next round.
    SmallVector<ExactHint *> chosen;
    for (auto [k, h] : llvm::enumerate(legal))
      if (choice.take.test(k))
        chosen.push_back(h);
    llvm::stable_sort(chosen, [](const ExactHint *a, const ExactHint *b) {
      return a->saved > b->saved;
    });
    unsigned pinnedNow = 0;
    for (ExactHint *h : chosen) {
      Candidate c;
      if (!analyze(h->dma, c).empty())
        continue;
      pin(c, emitRemarks);
      h->pinned = true;
      ++pinnedNow;
      bump(numPinned, 0);
      bump(cyclesSaved, 1, uint64_t(h->saved));
      bump(bytesPinned, 2, uint64_t(c.bytes));
    }
    return pinnedNow;
  }

  /// A remark for each DMA of `pending` the rounds left: refused by the
  /// checks, or legal but left out. An optimal choice leaves out no
  /// candidate that still fits in what the pins left free, so the latter
  /// do not fit the capacity (with the `reserved` bytes of the last round).
  void remarkNotPinned(ArrayRef<ExactHint> pending, uint64_t reserved) {
    for (const ExactHint &h : pending) {
      Candidate c;
      std::string why = analyze(h.dma, c);
      DmaStartOp dma = h.dma;
      if (!why.empty())
        dma.emitRemark() << "not pinned: " << why;
      else if (reserved)
        dma.emitRemark()
            << "not pinned: its " << c.bytes
            << " bytes do not fit the VMEM capacity of "
            << uint64_t(vmemCapacity) << " bytes with the " << reserved
            << " bytes kept for the buffer copies of the loops "
               "--accel-pipeline-dma pipelines (they hide more stall cycles)";
      else
        dma.emitRemark() << "not pinned: its " << c.bytes
                         << " bytes do not fit the VMEM capacity of "
                         << uint64_t(vmemCapacity) << " bytes";
    }
  }

  /// The bytes pinning `c` frees: its buffer's (page-rounded), when only
  /// the DMA and the readers it redirects use it (pin then erases it),
  /// else 0.
  int64_t freedBytes(Candidate &c) const {
    if (!c.buffer || !llvm::all_of(c.buffer->getUsers(), [&](Operation *u) {
          return u == c.dma.getOperation() || llvm::is_contained(c.readers, u);
        }))
      return 0;
    auto t = getTileShape(c.buffer.getType(), nullptr, /*allowI32=*/true);
    if (failed(t))
      return 0;
    return int64_t(
        llvm::alignTo(uint64_t(t->bytes()), std::max<uint64_t>(vmemPage, 1)));
  }

  /// `solver=greedy`: candidates in decreasing expected cycles saved per
  /// byte, each taken when it still fits (the rule before the exact
  /// solver; kept for comparison, see bench/fdo/pin_gap.py).
  void runGreedy() {
    // Candidates in decreasing expected cycles saved per byte; each is
    // analyzed on the IR as the pins before it left it.
    struct Hint {
      DmaStartOp dma;
      int64_t saved, bytes;
    };
    SmallVector<Hint> hints;
    getOperation().walk([&](DmaStartOp d) {
      int64_t saved = pinHint(d);
      if (!saved && !pinAll)
        return;
      int64_t bytes = 1;
      if (auto t = getTileShape(d.getDst().getType(), nullptr, true);
          succeeded(t))
        bytes = std::max<int64_t>(1, t->bytes());
      hints.push_back({d, std::max<int64_t>(saved, 1), bytes});
    });
    llvm::stable_sort(hints, [](const Hint &a, const Hint &b) {
      return double(a.saved) / double(a.bytes) >
             double(b.saved) / double(b.bytes);
    });
    llvm::DenseMap<Operation *, uint64_t> used; // VMEM per function
    for (Hint &h : hints) {
      Candidate c;
      std::string why = analyze(h.dma, c);
      if (!why.empty()) {
        if (emitRemarks)
          h.dma.emitRemark() << "not pinned: " << why;
        continue;
      }
      auto func = c.dma->getParentOfType<FunctionOpInterface>();
      if (!used.count(func))
        used[func] = allocatedVmemBytes(func, vmemPage);
      if (used[func] + uint64_t(c.bytes) > vmemCapacity) {
        if (emitRemarks)
          c.dma.emitRemark() << "not pinned: its " << c.bytes
                             << " bytes do not fit the VMEM capacity of "
                             << uint64_t(vmemCapacity) << " bytes";
        continue;
      }
      bool freedShared = pin(c, emitRemarks);
      used[func] += freedShared ? 0 : uint64_t(c.bytes);
      bump(numPinned, 0);
      bump(cyclesSaved, 1, uint64_t(h.saved));
      bump(bytesPinned, 2, uint64_t(c.bytes));
    }
  }
};
} // namespace
