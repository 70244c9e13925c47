//===- RenameVmem.cpp - Split VMEM buffers whose reuse stops DMA motion ---===//
//
// A VMEM buffer that is reused for unrelated data orders the DMAs on it the
// way a reused register orders instructions (write-after-read): a store of
// tile k must be waited for before the buffer is overwritten with tile k+1,
// and a load into it cannot be issued before the last read of the tile it
// replaces. Where such a reuse is what stops --accel-sink-dma-wait or
// --accel-hoist-dma on a DMA whose metrics say it matters, the pass gives
// the new contents a fresh `accel.alloc` (renaming, as a register renamer
// does; SnR §5.3.2 trades VMEM for fewer DMA stalls the same way).
// Legality comes from DmaMotion.h; see Passes.td for the rules.
//
//===----------------------------------------------------------------------===//

#include "DmaMotion.h"
#include "LoweringCheck.h"
#include "accel/Support/PassOptions.h"
#include "accel/Transforms/Passes.h"

#include "mlir/Interfaces/FunctionInterfaces.h"

#include <optional>

namespace accel {
#define GEN_PASS_DEF_ACCELRENAMEVMEM
#include "accel/Transforms/Passes.h.inc"
} // namespace accel

using namespace mlir;
using namespace accel;
using namespace accel::detail;

/// Whether `x` writes all of the buffer `buffer` (an accel.alloc result,
/// named directly, not through a view) and reads none of it: after `x` the
/// buffer's old contents are dead.
static bool overwritesAll(Operation *x, Value buffer) {
  if (x->getNumRegions() != 0)
    return false;
  SmallVector<MemoryAccess> accesses;
  if (collectAccesses(x, accesses))
    return false;
  bool whole = false, other = false;
  for (const MemoryAccess &a : accesses) {
    if (!mayAlias(a.root, buffer))
      continue;
    if (a.write && a.view == buffer)
      whole = true;
    else
      other = true;
  }
  return whole && !other;
}

/// The op of `block` that is or contains `op`; null when `op` is not in it.
static Operation *ancestorIn(Block *block, Operation *op) {
  return block->findAncestorOpInBlock(*op);
}

namespace {
struct RenameVmemPass
    : public accel::CheckedOptionsPass<
          RenameVmemPass, accel::impl::AccelRenameVmemBase<RenameVmemPass>>,
      public ReportsChanges {
  using CheckedOptionsPass::CheckedOptionsPass;

  /// An error message for an option outside its range, or "".
  std::string checkOptions() const {
    return checkVmemOptions(vmemCapacity, vmemPage);
  }

  /// Why `buffer` cannot be renamed from `from` on (empty: it can). The
  /// buffer must be an accel.alloc whose every use is an op (or a
  /// chain of view ops ending in ops) of `from`'s block, which must be a
  /// function body: after it the function returns, so no later code reads
  /// the old buffer. Views made before `from` must not be used after it.
  std::string whyNot(Value buffer, Operation *from) {
    if (!buffer.getDefiningOp<AllocOp>())
      return "its buffer is not an accel.alloc";
    Block *block = from->getBlock();
    if (!isa_and_nonnull<FunctionOpInterface>(block->getParentOp()))
      return "it is not in a function body (a loop may read the old "
             "contents in its next iteration)";
    SmallVector<Value> work = {buffer};
    while (!work.empty()) {
      Value v = work.pop_back_val();
      for (OpOperand &use : v.getUses()) {
        Operation *user = use.getOwner();
        Operation *top = ancestorIn(block, user);
        if (!top)
          return "the buffer is used outside the block";
        if (getViewSource(user) == v) {
          if (top->isBeforeInBlock(from)) {
            for (Operation *u : user->getUsers()) {
              Operation *t = ancestorIn(block, u);
              if (!t || !t->isBeforeInBlock(from))
                return "a view made before the reuse is used after it";
            }
            continue;
          }
          work.push_back(user->getResult(0));
          continue;
        }
        if (user->getNumRegions() != 0 ||
            isa<RegionBranchTerminatorOpInterface>(user) ||
            user->hasTrait<OpTrait::IsTerminator>() ||
            isa<CallOpInterface>(user))
          return "the buffer flows into a region, a call or a terminator";
      }
    }
    return "";
  }

  /// Gives the uses of `buffer` at and after `from` a new allocation,
  /// placed just before `from` (its address is live only from there).
  AllocOp rename(Value buffer, Operation *from) {
    auto alloc = buffer.getDefiningOp<AllocOp>();
    OpBuilder b(from);
    auto fresh = cast<AllocOp>(b.clone(*alloc));
    fresh->removeAttr(AccelDialect::getOpIdAttrName());
    fresh->setAttr("accel.renamed", b.getI64IntegerAttr(renamed + 1));
    Block *block = from->getBlock();
    buffer.replaceUsesWithIf(fresh.getResult(), [&](OpOperand &use) {
      Operation *top = ancestorIn(block, use.getOwner());
      return top && top != fresh && !top->isBeforeInBlock(from);
    });
    return fresh;
  }

  void runOnOperation() override {
    resetCounts({"num-renamed"});
    func::FuncOp func = getOperation();
    if (warnIfNoMetrics(func, getArgument(), /*all=*/false,
                        /*hasAll=*/false))
      return;
    uint64_t page = std::max<uint64_t>(vmemPage, 1);
    uint64_t used = allocatedVmemBytes(func, page);
    renamed = 0;
    // Made before the first rename (a run that renames nothing costs no
    // copy and no lowering).
    std::optional<LoweringGuard> guard;

    auto tryRename = [&](Operation *anchor, Value buffer, Operation *from,
                         StringRef what) {
      std::string why = whyNot(buffer, from);
      uint64_t bytes = 0;
      if (why.empty()) {
        auto t = getTileShape(buffer.getType(), nullptr, /*allowI32=*/true);
        bytes = succeeded(t) ? llvm::alignTo(uint64_t(t->bytes()), page) : 0;
        if (!bytes)
          why = "its buffer has no tile shape";
        else if (used + bytes > vmemCapacity)
          why = "VMEM has no room for another copy (" + std::to_string(used) +
                " of " + std::to_string(uint64_t(vmemCapacity)) +
                " bytes allocated)";
      }
      if (!why.empty()) {
        if (emitRemarks)
          anchor->emitRemark() << "not renamed: " << why;
        return;
      }
      used += bytes;
      if (!guard)
        guard.emplace(func, vmemCapacity, vmemPage);
      rename(buffer, from);
      ++renamed;
      if (emitRemarks)
        from->emitRemark() << "renamed its VMEM buffer (" << bytes
                           << " bytes): " << what;
    };

    // WAITs that would sink but for a reuse of the DMA's source.
    SmallVector<DmaWaitOp> waits;
    func.walk([&](DmaWaitOp w) { waits.push_back(w); });
    for (DmaWaitOp wait : waits) {
      auto dma = wait.getToken().getDefiningOp<DmaStartOp>();
      if (!dma || !waitIsCritical(dma))
        continue;
      DmaHoister h(dma);
      Blocker blocker;
      unsigned crossed = 0;
      h.findSinkPoint(wait, blocker, crossed);
      Value src = getRoot(dma.getSrc());
      if (blocker.op && blocker.op->getBlock() == wait->getBlock() &&
          overwritesAll(blocker.op, src))
        tryRename(wait, src, blocker.op,
                  "the DMA's WAIT may now move past its reuse");
    }
    // Stalled DMAs that would hoist but for the last reads of their
    // destination's old contents.
    SmallVector<DmaStartOp> dmas;
    func.walk([&](DmaStartOp d) { dmas.push_back(d); });
    for (DmaStartOp dma : dmas) {
      if (getStallCycles(dma) <= 0 || !overwritesAll(dma, dma.getDst()))
        continue;
      DmaHoister h(dma);
      Blocker blocker;
      unsigned crossed = 0;
      h.findInsertionPoint(blocker, crossed);
      Value dst = dma.getDst();
      if (!blocker.op)
        continue;
      SmallVector<MemoryAccess> accesses;
      if (collectAccesses(blocker.op, accesses))
        continue; // unknown effects: a new buffer would not help
      if (llvm::any_of(accesses, [&](const MemoryAccess &a) {
            return mayAlias(a.root, dst);
          }))
        tryRename(dma, dst, dma,
                  "the DMA may now be issued before the last reads of the "
                  "tile it replaces");
    }

    // The renamed program must still lower (each allocation's address is a
    // scalar register while it is in use), if the original did.
    if (!guard)
      return;
    if (std::string error = guard->keepIfLowers(); !error.empty()) {
      if (emitRemarks)
        func.emitRemark() << "renamed nothing: the renamed program would "
                             "not lower: "
                          << error;
      return;
    }
    bump(numRenamed, 0, renamed);
  }

  unsigned renamed = 0;
};
} // namespace
