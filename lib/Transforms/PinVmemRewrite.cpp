//===- PinVmemRewrite.cpp - The rewrites of accel-pin-vmem ----------------===//
//
// pin (PinVmem.h): a pinned DMA leaves its loop for one load before it
// into a resident buffer (or, pinned across an outer loop, for a fill of a
// stack of its loop's tiles before that loop), its readers read the
// resident copy, and the scalar loads of the resident buffer that no
// longer change in the loop move before it.
//
//===----------------------------------------------------------------------===//

#include "PinVmem.h"

#include "mlir/IR/IRMapping.h"

using namespace mlir;
using namespace accel;
using namespace accel::detail;
using namespace accel::detail::pinvmem;

/// Moves the scalar loads of `resident` in `loop`'s body whose indices are
/// defined outside the loop to just before it (nothing in the loop writes a
/// resident buffer, so they read the same value on every iteration), then
/// the pure ops that only use values defined outside the loop by then (the
/// address arithmetic and subviews built from them). A DMA whose source
/// was such a subview no longer changes in the loop, so the next round of
/// the FDO loop can pin it too: SnR's node tables, read through the pinned
/// directories (§5.2.1). Only for loops that run at least once (constant
/// bounds), as the loads then ran anyway.
static void hoistInvariantReads(AllocOp resident, scf::ForOp loop) {
  if (!runsAtLeastOnce(loop))
    return;
  auto outside = [&](Value v) {
    return !loop->isAncestor(v.getParentRegion()->getParentOp());
  };
  SmallVector<Operation *> work;
  for (Operation *user : resident->getUsers())
    if (isa<LoadOp>(user) && user->getBlock() == loop.getBody())
      work.push_back(user);
  while (!work.empty()) {
    Operation *op = work.pop_back_val();
    if (op->getBlock() != loop.getBody() ||
        !llvm::all_of(op->getOperands(), outside))
      continue;
    op->moveBefore(loop);
    for (Operation *user : op->getUsers())
      if (user->getBlock() == loop.getBody() && user->getNumRegions() == 0 &&
          isMemoryEffectFree(user))
        work.push_back(user);
  }
}

namespace {
/// The resident buffer of a stacked pin: `tile`s stacked along the first
/// dimension, tile j (the K loop's iteration lb + j step) at rows j * rows
/// on.
struct Stack {
  Value resident;
  MemRefType tile;
  int64_t rows, lb, step;
  /// Where the slices' index math is (the DMA's location).
  Location loc;

  /// The slice of iteration `iv`, built at `at`: rows (iv - lb) / step *
  /// rows on.
  Value sliceAt(OpBuilder &at, Value iv) const {
    Value j = iv;
    if (lb != 0)
      j = arith::SubIOp::create(at, loc, j,
                                arith::ConstantIndexOp::create(at, loc, lb));
    if (step != 1)
      j = arith::DivUIOp::create(at, loc, j,
                                 arith::ConstantIndexOp::create(at, loc, step));
    Value row = arith::MulIOp::create(
        at, loc, j, arith::ConstantIndexOp::create(at, loc, rows));
    SmallVector<OpFoldResult> offsets(tile.getRank(), at.getIndexAttr(0));
    offsets[0] = row;
    SmallVector<OpFoldResult> sizes, strides;
    for (int64_t n : tile.getShape()) {
      sizes.push_back(at.getIndexAttr(n));
      strides.push_back(at.getIndexAttr(1));
    }
    return memref::SubViewOp::create(at, loc, resident, offsets, sizes,
                                     strides);
  }
};

/// Issues the loads that fill a Stack: copies of a stacked pin's DMA, each
/// after copies of `defs` (its operands' address math, in block order).
struct StackFiller {
  Candidate &c;
  const Stack &stack;
  ArrayRef<Operation *> defs;
  /// The first load issued: it keeps the DMA's op id (metrics follow it).
  DmaStartOp firstLoad;

  /// The load of the K loop's iteration `iv` into its slice, at `in`.
  DmaStartOp issue(OpBuilder &in, Value iv) {
    IRMapping map;
    map.map(c.stackLoop.getInductionVar(), iv);
    for (Operation *op : defs)
      in.clone(*op, map)->removeAttr(AccelDialect::getOpIdAttrName());
    map.map(c.buffer.getResult(), stack.sliceAt(in, iv));
    auto load = cast<DmaStartOp>(in.clone(*c.dma.getOperation(), map));
    load->removeAttr("accel.suggestions");
    load->setAttr("accel.pinned", in.getUnitAttr());
    if (!firstLoad)
      firstLoad = load;
    else
      load->removeAttr(AccelDialect::getOpIdAttrName());
    return load;
  }

  /// The fill, at `b` (before the level): the K loop's DMA once per tile.
  /// Up to kMaxStraightFill tiles it is straight-line code, every ISSUE
  /// before the first WAIT (all tiles in flight together); beyond, a loop
  /// that waits for each tile (a loop the next FDO iteration can pipeline).
  void fill(OpBuilder &b) {
    Location loc = stack.loc;
    int64_t lb = stack.lb, step = stack.step;
    if (c.stack <= kMaxStraightFill) {
      SmallVector<DmaStartOp> loads;
      for (int64_t j = 0; j < c.stack; ++j)
        loads.push_back(
            issue(b, arith::ConstantIndexOp::create(b, loc, lb + j * step)));
      for (DmaStartOp load : loads)
        DmaWaitOp::create(b, c.wait.getLoc(), load.getToken());
      return;
    }
    int64_t ub = lb + c.stack * step;
    Value lbV = arith::ConstantIndexOp::create(b, loc, lb);
    Value ubV = arith::ConstantIndexOp::create(b, loc, ub);
    Value stepV = arith::ConstantIndexOp::create(b, loc, step);
    auto loop = scf::ForOp::create(b, c.stackLoop.getLoc(), lbV, ubV, stepV);
    OpBuilder in = OpBuilder::atBlockBegin(loop.getBody());
    DmaStartOp load = issue(in, loop.getInductionVar());
    DmaWaitOp::create(in, c.wait.getLoc(), load.getToken());
  }
};
} // namespace

/// The pin of a Candidate with a level (analyzeStacked): a resident buffer
/// of `stack` tiles (stacked along the first dimension) made before the
/// level, a copy of the K loop there that loads tile j (K's j-th
/// iteration) into slice j with its own WAIT, and in the K loop the
/// readers read slice j instead of the DMA's buffer.
static void pinStacked(Candidate &c, bool emitRemarks) {
  scf::ForOp k = c.stackLoop, level = c.level;
  if (emitRemarks)
    c.dma.emitRemark() << "pinned across the loop at "
                       << describeLoc(level.getLoc()) << ": the " << c.stack
                       << " tiles of its loop (" << c.bytes
                       << " bytes) are loaded once before it";
  auto tile = cast<MemRefType>(c.buffer.getType());
  SmallVector<int64_t> shape(tile.getShape());
  int64_t rows = shape[0];
  shape[0] *= c.stack;
  OpBuilder b(level);
  auto resident =
      AllocOp::create(b, c.buffer.getLoc(),
                      MemRefType::get(shape, tile.getElementType(), nullptr,
                                      tile.getMemorySpace()));
  resident->setAttr("accel.pinned", b.getUnitAttr());
  Stack stack{resident,
              tile,
              rows,
              *getConstantIntValue(k.getLowerBound()),
              *getConstantIntValue(k.getStep()),
              c.dma.getLoc()};
  SmallVector<Operation *> defs(c.defs.begin(), c.defs.end());
  llvm::sort(defs,
             [](Operation *x, Operation *y) { return x->isBeforeInBlock(y); });
  StackFiller{c, stack, defs, DmaStartOp()}.fill(b);
  // The readers read their iteration's slice.
  OpBuilder at(c.wait);
  Value view = stack.sliceAt(at, k.getInductionVar());
  for (Operation *op : c.readers)
    op->replaceUsesOfWith(c.buffer.getResult(), view);
  c.wait.erase();
  c.dma.erase();
  // The source's address math, now unused in the loop.
  for (Operation *op : llvm::reverse(defs))
    if (op->use_empty())
      op->erase();
}

/// pin() but for the shared buffer, which it leaves in place.
static void pinDma(Candidate &c, bool emitRemarks) {
  if (c.level)
    return pinStacked(c, emitRemarks);
  auto loop = cast<scf::ForOp>(c.dma->getParentOp());
  if (c.resident) {
    // The bytes are resident already: read that copy.
    for (Operation *op : c.readers)
      op->replaceUsesOfWith(c.buffer.getResult(), c.resident.getResult());
    c.wait.erase();
    c.dma.erase();
    hoistInvariantReads(c.resident, loop);
    return;
  }
  // The source view (and chip ids) may be computed in the loop from
  // values defined outside it: that computation moves before the loop.
  llvm::SetVector<Operation *> defs;
  if (areLoopInvariant(getInputsBesidesDst(c.dma), loop, defs)) {
    SmallVector<Operation *> ops(defs.begin(), defs.end());
    llvm::sort(
        ops, [](Operation *x, Operation *y) { return x->isBeforeInBlock(y); });
    for (Operation *op : ops)
      op->moveBefore(loop);
  }
  // The resident buffer, next to the shared one.
  OpBuilder b(c.buffer);
  b.setInsertionPointAfter(c.buffer);
  auto resident = cast<AllocOp>(b.clone(*c.buffer.getOperation()));
  resident->removeAttr(AccelDialect::getOpIdAttrName());
  resident->setAttr("accel.pinned", b.getUnitAttr());
  // One load before the loop.
  b.setInsertionPoint(loop);
  IRMapping map;
  map.map(c.buffer.getResult(), resident.getResult());
  auto load = cast<DmaStartOp>(b.clone(*c.dma.getOperation(), map));
  load->removeAttr("accel.suggestions");
  load->setAttr("accel.pinned", b.getUnitAttr());
  DmaWaitOp::create(b, c.wait.getLoc(), load.getToken());
  // Its readers read the resident copy; the loop's DMA goes.
  for (Operation *op : c.readers)
    op->replaceUsesOfWith(c.buffer.getResult(), resident.getResult());
  c.wait.erase();
  c.dma.erase();
  hoistInvariantReads(resident, loop);
}

bool accel::detail::pinvmem::pin(Candidate &c, bool emitRemarks) {
  AllocOp shared = c.buffer;
  pinDma(c, emitRemarks);
  if (!shared || !shared->use_empty())
    return false;
  shared.erase();
  return true;
}
