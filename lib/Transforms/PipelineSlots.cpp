//===- PipelineSlots.cpp - A ring's slot given an allocation of its own ---===//
//
// Part of --accel-pipeline-dma (PipelineSchedule.h): after a loop pipelined
// by hand is rewritten as the plain loop (PipelineCarried.cpp), the slot
// of the ring its DMA loads gets an allocation of its own, so the tile is
// private to an iteration and the pipeliner may keep as many in flight as
// it needs, not the ring's size (privatizeSlots).
//
//===----------------------------------------------------------------------===//

#include "PipelineSchedule.h"

#include "mlir/IR/Verifier.h"

using namespace mlir;
using namespace accel;
using namespace accel::detail;
using namespace accel::detail::pipeline;

namespace {
/// The constant offsets and sizes of a unit-stride subview, or nullopt.
std::optional<std::pair<SmallVector<int64_t>, SmallVector<int64_t>>>
constantRect(memref::SubViewOp view) {
  SmallVector<int64_t> offsets;
  for (OpFoldResult f : view.getMixedOffsets()) {
    std::optional<int64_t> c = foldAt(f);
    if (!c)
      return std::nullopt;
    offsets.push_back(*c);
  }
  if (llvm::any_of(view.getStaticStrides(), [](int64_t s) { return s != 1; }) ||
      llvm::any_of(view.getStaticSizes(), ShapedType::isDynamic))
    return std::nullopt;
  return std::make_pair(offsets, SmallVector<int64_t>(view.getStaticSizes()));
}
} // namespace

/// Whether `rect` (offsets, sizes) lies inside one of `covered`.
static bool insideAny(
    const std::pair<SmallVector<int64_t>, SmallVector<int64_t>> &rect,
    ArrayRef<std::pair<SmallVector<int64_t>, SmallVector<int64_t>>> covered) {
  return llvm::any_of(covered, [&](const auto &c) {
    for (size_t i = 0; i < c.first.size(); ++i)
      if (rect.first[i] < c.first[i] ||
          rect.first[i] + rect.second[i] > c.first[i] + c.second[i])
        return false;
    return true;
  });
}

/// Before `loop` (in an enclosing loop's body: after the previous
/// iteration's loop), nothing may read `ring`: its contents then are the
/// loop's, which the slot of its own no longer holds. Returns "" or why
/// not.
static std::string checkRingBeforeLoop(scf::ForOp loop, Value ring) {
  for (Operation &x : *loop->getBlock()) {
    if (&x == loop.getOperation())
      break;
    SmallVector<MemoryAccess> accesses;
    if (collectAccesses(&x, accesses))
      return "an op with unknown memory effects before the loop";
    for (const MemoryAccess &a : accesses)
      if (!a.write && mayAlias(a.root, ring))
        return "the ring is read before the loop (" + a.describe() + ")";
  }
  return "";
}

/// The views of `ring` in `loop` (into `views`): each must name the slot
/// of `view` (the destination of DMA `issue`) in every iteration, with
/// `view`'s shape, and be used after `wait` (the DMA itself aside).
/// Returns "" or why not.
static std::string collectSlotViews(scf::ForOp loop, DmaStartOp issue,
                                    DmaWaitOp wait, memref::SubViewOp view,
                                    SmallVectorImpl<memref::SubViewOp> &views) {
  Value ring = view.getSource();
  Block *body = loop.getBody();
  for (Operation *user : ring.getUsers()) {
    if (!loop->isAncestor(user)) {
      if (user->getBlock() != loop->getBlock())
        return "the ring is used outside the loop's block";
      continue;
    }
    auto sv = dyn_cast<memref::SubViewOp>(user);
    if (!sv || sv->getBlock() != body ||
        sv.getMixedOffsets().size() != view.getMixedOffsets().size() ||
        sv.getType() != view.getType())
      return "the loop uses the ring other than through views of one shape";
    for (auto [a, b] : llvm::zip(sv.getMixedOffsets(), view.getMixedOffsets()))
      if (!alwaysEqual(a, b))
        return "the loop reads a slot other than the one it loads";
    for (Operation *u : sv->getUsers()) {
      if (u == issue.getOperation())
        continue;
      Operation *h = holderIn(body, u);
      if (!h || isa<memref::SubViewOp>(u) || !wait->isBeforeInBlock(h))
        return "the loop uses the slot before its DMA is waited for";
    }
    views.push_back(sv);
  }
  return "";
}

/// After `loop`: every read of `ring` reads bytes a DMA wrote there after
/// the loop (the epilogue's), so none of the loop's data leaves it.
/// Returns "" or why not.
static std::string checkRingAfterLoop(scf::ForOp loop, Value ring) {
  SmallVector<std::pair<SmallVector<int64_t>, SmallVector<int64_t>>> covered;
  for (Operation *x = loop->getNextNode(); x; x = x->getNextNode()) {
    if (auto w = dyn_cast<DmaWaitOp>(x))
      if (auto d = w.getToken().getDefiningOp<DmaStartOp>())
        if (auto sv = d.getDst().getDefiningOp<memref::SubViewOp>();
            sv && sv.getSource() == ring)
          if (auto rect = constantRect(sv))
            covered.push_back(*rect);
    SmallVector<MemoryAccess> accesses;
    if (collectAccesses(x, accesses))
      return "an op with unknown memory effects after the loop";
    for (const MemoryAccess &a : accesses) {
      if (a.write || !mayAlias(a.root, ring))
        continue;
      auto sv = a.view.getDefiningOp<memref::SubViewOp>();
      auto rect =
          sv && sv.getSource() == ring ? constantRect(sv) : std::nullopt;
      if (!rect || !insideAny(*rect, covered))
        return "the ring is read after the loop before it is written again "
               "(" +
               a.describe() + ")";
    }
  }
  return "";
}

/// Gives the slot `views` of the ring `view` names (in `loop`) one
/// allocation of its own, made after the ring's: of the view's shape
/// when the view's layout is that shape's (rows of the ring's width),
/// else of the ring's, at the slot of the first iteration. Each view is
/// replaced by one of the new allocation. Returns "" or why not (maybe
/// after part of the rewrite).
static std::string giveSlotItsOwn(scf::ForOp loop, memref::SubViewOp view,
                                  ArrayRef<memref::SubViewOp> views) {
  Value ring = view.getSource();
  auto viewType = cast<MemRefType>(view.getType());
  auto ringType = cast<MemRefType>(ring.getType());
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(viewType.getStridesAndOffset(strides, offset)))
    return "the ring's views have no strided layout";
  auto slotType =
      MemRefType::get(viewType.getShape(), viewType.getElementType(), nullptr,
                      viewType.getMemorySpace());
  SmallVector<int64_t> slotStrides;
  int64_t slotOffset;
  (void)slotType.getStridesAndOffset(slotStrides, slotOffset);
  bool own = slotStrides == strides;
  OpBuilder b(ring.getDefiningOp());
  b.setInsertionPointAfter(ring.getDefiningOp());
  Value slot = AllocOp::create(b, ring.getLoc(), own ? slotType : ringType);
  int64_t lb = *getConstantIntValue(loop.getLowerBound());
  for (memref::SubViewOp sv : views) {
    OpBuilder vb(sv);
    SmallVector<OpFoldResult> offsets;
    for (OpFoldResult f : sv.getMixedOffsets()) {
      int64_t at = 0;
      if (!own) {
        std::optional<int64_t> c = foldAt(f, loop.getInductionVar(), lb);
        if (!c)
          return "a slot's offset does not fold in the first iteration";
        at = *c;
      }
      offsets.push_back(
          arith::ConstantIndexOp::create(vb, sv.getLoc(), at).getResult());
    }
    auto fresh =
        memref::SubViewOp::create(vb, sv.getLoc(), viewType, slot, offsets,
                                  sv.getMixedSizes(), sv.getMixedStrides());
    if (failed(mlir::verify(fresh)))
      return "a view of the slot's own buffer would not verify";
    sv.replaceAllUsesWith(fresh.getResult());
    sv.erase();
  }
  return "";
}

std::string accel::detail::pipeline::privatizeSlots(scf::ForOp loop,
                                                    DmaStartOp issue,
                                                    DmaWaitOp wait) {
  auto view = issue.getDst().getDefiningOp<memref::SubViewOp>();
  if (!view || !loop->isAncestor(view))
    return ""; // a buffer of its own: the pipeliner judges it
  Value ring = view.getSource();
  if (!ring.getDefiningOp<AllocOp>())
    return "the DMA's destination is not a view of a VMEM allocation";
  if (std::string why = checkRingBeforeLoop(loop, ring); !why.empty())
    return why;
  SmallVector<memref::SubViewOp> views;
  if (std::string why = collectSlotViews(loop, issue, wait, view, views);
      !why.empty())
    return why;
  if (std::string why = checkRingAfterLoop(loop, ring); !why.empty())
    return why;
  return giveSlotItsOwn(loop, view, views);
}
