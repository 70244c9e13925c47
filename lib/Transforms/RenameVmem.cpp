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
#include "PipelineSchedule.h"
#include "accel/Support/PassOptions.h"
#include "accel/Transforms/Passes.h"

#include "mlir/IR/Verifier.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/MapVector.h"

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
/// One part of a buffer splitByViews splits: the constant offsets and
/// static sizes of a box of it (elements, per dimension) and the views that
/// name exactly that box.
struct ViewPart {
  SmallVector<int64_t> offsets, sizes;
  SmallVector<memref::SubViewOp> views;
};

/// What one run of the pass tracks across its renames: the VMEM page and
/// the bytes allocated (page-rounded), and the guard made before the first
/// change.
struct RunState {
  uint64_t page = 1, used = 0;
  std::optional<LoweringGuard> guard;
};
} // namespace

/// The box `view` (a view of a buffer of `rank` dimensions) names: its
/// offsets (constant after folding, >= 0) and sizes (static, > 0). False
/// when it has other offsets or sizes, a stride other than 1 or another
/// rank, or a user with regions, a view, a terminator or a call.
static bool getConstantBox(memref::SubViewOp view, int64_t rank,
                           SmallVectorImpl<int64_t> &offsets,
                           SmallVectorImpl<int64_t> &sizes) {
  for (OpFoldResult o : view.getMixedOffsets()) {
    std::optional<int64_t> c = getConstantIntValue(o);
    if (!c)
      c = foldToConstant(cast<Value>(o));
    if (!c || *c < 0)
      return false;
    offsets.push_back(*c);
  }
  for (OpFoldResult z : view.getMixedSizes()) {
    std::optional<int64_t> c = getConstantIntValue(z);
    if (!c || *c <= 0)
      return false;
    sizes.push_back(*c);
  }
  if (!llvm::all_of(view.getMixedStrides(), [](OpFoldResult st) {
        return getConstantIntValue(st) == 1;
      }))
    return false;
  // Rank-reducing views would change the users' types beyond layout.
  if (view.getType().getRank() != rank)
    return false;
  for (Operation *u : view->getUsers())
    if (u->getNumRegions() || getViewSource(u) ||
        u->hasTrait<OpTrait::IsTerminator>() || isa<CallOpInterface>(u))
      return false;
  return true;
}

/// The parts of `alloc` (splitByViews), in the order of their first views.
/// False when a use of `alloc` is not a view with a constant box
/// (getConstantBox) or two boxes overlap without being the same.
static bool collectViewParts(AllocOp alloc, SmallVectorImpl<ViewPart> &parts) {
  for (Operation *user : alloc->getUsers()) {
    auto view = dyn_cast<memref::SubViewOp>(user);
    if (!view || view.getSource() != alloc.getResult())
      return false;
    SmallVector<int64_t> offsets, sizes;
    if (!getConstantBox(view, alloc.getType().getRank(), offsets, sizes))
      return false;
    auto same = llvm::find_if(parts, [&](const ViewPart &p) {
      return p.offsets == offsets && p.sizes == sizes;
    });
    if (same != parts.end()) {
      same->views.push_back(view);
      continue;
    }
    for (const ViewPart &p : parts) {
      bool overlap = true;
      for (size_t d = 0; d < offsets.size(); ++d)
        overlap &= offsets[d] < p.offsets[d] + p.sizes[d] &&
                   p.offsets[d] < offsets[d] + sizes[d];
      if (overlap)
        return false;
    }
    parts.push_back({offsets, sizes, {view}});
  }
  return true;
}

/// The VMEM bytes of a buffer of `type`, rounded up to `page`; std::nullopt
/// when it has no tile shape.
static std::optional<uint64_t> pagedBytes(MemRefType type, uint64_t page) {
  auto t = getTileShape(type, nullptr, /*allowI32=*/true);
  if (failed(t))
    return std::nullopt;
  return llvm::alignTo(uint64_t(t->bytes()), page);
}

/// Replaces `alloc` by one new allocation per part (of the matching type
/// of `types`), made where it was, which the uses of the part's views use
/// instead; the views and `alloc` are erased. When a user no longer
/// verifies, everything is undone and false returned.
static bool replaceByParts(AllocOp alloc, ArrayRef<ViewPart> parts,
                           ArrayRef<MemRefType> types) {
  OpBuilder b(alloc);
  SmallVector<std::pair<OpOperand *, Value>> undo;
  SmallVector<AllocOp> made;
  bool ok = true;
  for (auto [p, t] : llvm::zip(parts, types)) {
    auto fresh = AllocOp::create(b, alloc.getLoc(), t);
    made.push_back(fresh);
    for (memref::SubViewOp view : p.views)
      for (OpOperand &use : llvm::make_early_inc_range(view->getUses())) {
        undo.push_back({&use, view.getResult()});
        use.set(fresh);
        ok &= succeeded(mlir::verify(use.getOwner()));
      }
  }
  if (!ok) {
    for (auto [use, old] : undo)
      use->set(old);
    for (AllocOp fresh : made)
      fresh->erase();
    return false;
  }
  for (const ViewPart &p : parts)
    for (memref::SubViewOp view : p.views)
      view->erase();
  alloc->erase();
  return true;
}

/// The last op before `x` in its block that accesses `root` (an op of
/// unknown effects counts), or null.
static Operation *lastAccessBefore(Operation *x, Value root) {
  for (Operation *op = x->getPrevNode(); op; op = op->getPrevNode()) {
    SmallVector<MemoryAccess> prior;
    if (collectAccesses(op, prior, DmaWindow::IssueAndWait))
      return op;
    if (llvm::any_of(prior, [&](const MemoryAccess &a) {
          return mayAlias(a.root, root);
        }))
      return op;
  }
  return nullptr;
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
  /// the old buffer. A view made before `from` and used after it is taken
  /// again from the new buffer (redirectFrom).
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
          // A view made before `from` and used after it is taken again
          // (redirectFrom): its uses are checked as the buffer's.
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

  /// Splits `alloc` into one allocation per distinct view when every use
  /// is a unit-stride memref.subview with constant offsets (after folding:
  /// a fully unrolled ring's slots, (i + 2) mod 3 with i known) and static
  /// sizes, any two of them the same bytes or disjoint, each used by ops
  /// without regions that are not views, terminators or calls: the parts
  /// then are independent buffers, as a scalar replacement of an aggregate
  /// makes them, and each can be renamed alone. The new allocations take
  /// the original's place, the views' uses read them. Returns how many
  /// were made (0: nothing changed). VMEM: the parts, each rounded up to a
  /// page, must fit where the original was (`st.used` is updated).
  /// `st.guard` is made before the first change.
  unsigned splitByViews(AllocOp alloc, RunState &st) {
    SmallVector<ViewPart> parts;
    if (!collectViewParts(alloc, parts) || parts.size() < 2)
      return 0;
    llvm::sort(parts, [](const ViewPart &a, const ViewPart &b) {
      return a.offsets < b.offsets;
    });
    MemRefType type = alloc.getType();
    uint64_t after = 0;
    SmallVector<MemRefType> types;
    for (const ViewPart &p : parts) {
      types.push_back(MemRefType::get(p.sizes, type.getElementType(),
                                      MemRefLayoutAttrInterface(),
                                      type.getMemorySpace()));
      std::optional<uint64_t> bytes = pagedBytes(types.back(), st.page);
      if (!bytes)
        return 0;
      after += *bytes;
    }
    std::optional<uint64_t> before = pagedBytes(type, st.page);
    if (!before)
      return 0;
    if (st.used - *before + after > vmemCapacity)
      return 0;
    // The users must still verify with the part's identity layout.
    if (!st.guard)
      st.guard.emplace(getOperation(), vmemCapacity, vmemPage);
    if (!replaceByParts(alloc, parts, types))
      return 0;
    st.used = st.used - *before + after;
    return unsigned(parts.size());
  }

  /// An accel.alloc of `buffer`'s type, made before `from` in its block
  /// (a function body), other than `buffer`, that no op accesses at or
  /// after `from`: the WAIT of a DMA counts as its access, an op of
  /// unknown effects as an access of every buffer, and the buffer may not
  /// flow anywhere but into the ops of the block (whyNot). Of several, the
  /// one last accessed earliest. Null when there is none.
  AllocOp deadBuffer(Value buffer, Operation *from) {
    Block *block = from->getBlock();
    llvm::MapVector<Operation *, Operation *> last; // alloc -> last access
    for (Operation &op : *block) {
      if (auto a = dyn_cast<AllocOp>(op))
        if (a.getResult() != buffer && a.getType() == buffer.getType() &&
            a->isBeforeInBlock(from))
          last[a] = nullptr;
    }
    if (last.empty())
      return AllocOp();
    for (Operation &op : *block) {
      SmallVector<MemoryAccess> accesses;
      bool unknown =
          collectAccesses(&op, accesses, DmaWindow::IssueAndWait) != nullptr;
      for (auto &[a, at] : last)
        if (unknown || llvm::any_of(accesses, [&](const MemoryAccess &m) {
              return mayAlias(m.root, a->getResult(0));
            }))
          at = &op;
    }
    AllocOp best;
    Operation *bestAt = nullptr;
    for (auto [a, at] : last) {
      if (at && !at->isBeforeInBlock(from))
        continue;
      if (!whyNot(a->getResult(0), from).empty())
        continue;
      if (!best || (at && bestAt && at->isBeforeInBlock(bestAt)) ||
          (!at && bestAt)) {
        best = cast<AllocOp>(a);
        bestAt = at;
      }
    }
    return best;
  }

  /// Gives the uses of `buffer` at and after `from` a new allocation,
  /// placed just before `from` (its address is live only from there).
  AllocOp rename(Value buffer, Operation *from) {
    auto alloc = buffer.getDefiningOp<AllocOp>();
    OpBuilder b(from);
    auto fresh = cast<AllocOp>(b.clone(*alloc));
    fresh->removeAttr(AccelDialect::getOpIdAttrName());
    fresh->setAttr("accel.renamed", b.getI64IntegerAttr(renamed + 1));
    redirectFrom(buffer, fresh.getResult(), from);
    return fresh;
  }

  /// Makes the uses of `buffer` at and after `from` (ops of `from`'s block,
  /// or nested in them) use `replacement`, defined before `from`. A view of
  /// `buffer` made before `from` and used after it (CSE merges the equal
  /// views of unrolled iterations) is cloned just before `from` with the
  /// replacement as its source, and its later uses read the clone; views
  /// of views alike.
  void redirectFrom(Value buffer, Value replacement, Operation *from) {
    Block *block = from->getBlock();
    Operation *def = replacement.getDefiningOp();
    for (OpOperand &use : llvm::make_early_inc_range(buffer.getUses())) {
      Operation *user = use.getOwner();
      Operation *top = ancestorIn(block, user);
      if (!top || top == def)
        continue;
      if (!top->isBeforeInBlock(from)) {
        use.set(replacement);
        continue;
      }
      if (getViewSource(user) != buffer)
        continue;
      Value view = user->getResult(0);
      bool usedAfter = llvm::any_of(view.getUsers(), [&](Operation *u) {
        Operation *t = ancestorIn(block, u);
        return t && !t->isBeforeInBlock(from);
      });
      bool viewsOfIt = llvm::any_of(view.getUsers(), [&](Operation *u) {
        return getViewSource(u) == view;
      });
      if (!usedAfter && !viewsOfIt)
        continue;
      OpBuilder b(from);
      Operation *clone = b.clone(*user);
      clone->setOperand(use.getOperandNumber(), replacement);
      redirectFrom(view, clone->getResult(0), from);
      if (clone->use_empty())
        clone->erase();
    }
  }

  void runOnOperation() override {
    resetCounts({"num-renamed", "num-split"});
    func::FuncOp func = getOperation();
    if (warnIfNoMetrics(func, getArgument(), /*all=*/false,
                        /*hasAll=*/false))
      return;
    RunState st;
    st.page = std::max<uint64_t>(vmemPage, 1);
    st.used = allocatedVmemBytes(func, st.page);
    renamed = 0;
    split = 0;
    // st.guard is made before the first change (a run that changes nothing
    // costs no copy and no lowering).
    splitViewedBuffers(st);
    renameForWaits(st);
    renameForHoists(st);
    renameForUnits(st);

    // The renamed program must still lower (each allocation's address is a
    // scalar register while it is in use), if the original did.
    if (!st.guard)
      return;
    if (std::string error = st.guard->keepIfLowers(); !error.empty()) {
      if (emitRemarks)
        func.emitRemark() << "renamed nothing: the renamed program would "
                             "not lower: "
                          << error;
      return;
    }
    bump(numRenamed, 0, renamed);
    bump(numSplit, 1, split);
  }

  /// Buffers whose constant views (a fully unrolled ring's slots) hold the
  /// data of a stalled DMA or of one whose WAIT is critical: split into
  /// one buffer per view (splitByViews), so that each can be renamed alone.
  void splitViewedBuffers(RunState &st) {
    llvm::SetVector<Operation *> splittable;
    getOperation().walk([&](DmaStartOp dma) {
      bool hoist = getStallCycles(dma) > 0, sink = waitIsCritical(dma);
      for (auto [view, wanted] :
           {std::pair{dma.getDst(), hoist}, std::pair{dma.getSrc(), sink}})
        if (wanted && view != getRoot(view))
          if (auto alloc = getRoot(view).getDefiningOp<AllocOp>())
            splittable.insert(alloc);
    });
    for (Operation *op : splittable) {
      auto alloc = cast<AllocOp>(op);
      Location loc = alloc.getLoc();
      if (unsigned n = splitByViews(alloc, st)) {
        ++split;
        if (emitRemarks)
          mlir::emitRemark(loc)
              << "split into " << n
              << " VMEM buffers, one per constant view, so that each may be "
                 "renamed";
      }
    }
  }

  /// Renames `buffer` from `from` on (for `anchor`'s sake; `what` says what
  /// it gains, for the remark): a new allocation when VMEM has room, else
  /// a dead buffer of the same type (deadBuffer); a remark says why not
  /// when neither can serve. Updates st.used and makes st.guard.
  void tryRename(Operation *anchor, Value buffer, Operation *from,
                 StringRef what, RunState &st) {
    std::string why = whyNot(buffer, from);
    uint64_t bytes = 0;
    if (why.empty()) {
      auto t = getTileShape(buffer.getType(), nullptr, /*allowI32=*/true);
      bytes = succeeded(t) ? llvm::alignTo(uint64_t(t->bytes()), st.page) : 0;
      if (!bytes)
        why = "its buffer has no tile shape";
      else if (st.used + bytes > vmemCapacity)
        why = "VMEM has no room for another copy (" + std::to_string(st.used) +
              " of " + std::to_string(uint64_t(vmemCapacity)) +
              " bytes allocated)";
    }
    // Without room, a buffer of the same type that nothing accesses from
    // `from` on (a register allocator's free register) serves instead.
    AllocOp dead;
    if (!why.empty() && bytes && whyNot(buffer, from).empty())
      dead = deadBuffer(buffer, from);
    if (!why.empty() && !dead) {
      if (emitRemarks)
        anchor->emitRemark() << "not renamed: " << why;
      return;
    }
    if (!st.guard)
      st.guard.emplace(getOperation(), vmemCapacity, vmemPage);
    if (dead) {
      ++renamed;
      redirectFrom(buffer, dead.getResult(), from);
      if (emitRemarks)
        from->emitRemark() << "renamed its VMEM buffer to the one allocated "
                              "at "
                           << describeLoc(dead.getLoc())
                           << ", which nothing accesses from here on (VMEM "
                              "has no room for another copy): "
                           << what;
      return;
    }
    st.used += bytes;
    rename(buffer, from);
    ++renamed;
    if (emitRemarks)
      from->emitRemark() << "renamed its VMEM buffer (" << bytes
                         << " bytes): " << what;
  }

  /// WAITs that would sink but for a reuse of the DMA's source.
  void renameForWaits(RunState &st) {
    SmallVector<DmaWaitOp> waits;
    getOperation().walk([&](DmaWaitOp w) { waits.push_back(w); });
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
                  "the DMA's WAIT may now move past its reuse", st);
    }
  }

  /// Stalled DMAs that would hoist but for the last reads of their
  /// destination's old contents.
  void renameForHoists(RunState &st) {
    SmallVector<DmaStartOp> dmas;
    getOperation().walk([&](DmaStartOp d) { dmas.push_back(d); });
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
                  "tile it replaces",
                  st);
    }
  }

  /// MXU or VPU ops that overwrite a buffer whose old contents the other
  /// unit reads last (the scores of the next block of an attention loop,
  /// computed on the MXU into the buffer the VPU's softmax of this block
  /// still reads): renamed, the list scheduler may run the two units at
  /// once. Straight-line code of a function body only (a loop's next
  /// iteration may read the old contents).
  void renameForUnits(RunState &st) {
    SmallVector<Operation *> computes;
    for (Operation &op : getOperation().getBody().front())
      if (pipeline::unitOf(&op) != pipeline::Unit::None &&
          getMetric(&op, "accel.busy_cycles") > 0)
        computes.push_back(&op);
    for (Operation *x : computes) {
      pipeline::Unit unit = pipeline::unitOf(x);
      SmallVector<MemoryAccess> accesses;
      if (collectAccesses(x, accesses))
        continue;
      for (const MemoryAccess &w : accesses) {
        if (!w.write || w.view != w.root || !overwritesAll(x, w.root))
          continue;
        // The last op before x that accesses the buffer: a reader on the
        // other unit.
        Operation *last = lastAccessBefore(x, w.root);
        pipeline::Unit other = last ? pipeline::unitOf(last) : unit;
        if (other == pipeline::Unit::None || other == unit)
          continue;
        tryRename(x, w.root, x,
                  "the op may now run on its unit while the other unit "
                  "still reads the old contents",
                  st);
        break;
      }
    }
  }

  unsigned renamed = 0, split = 0;
};
} // namespace
