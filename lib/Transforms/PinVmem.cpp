//===- PinVmem.cpp - Keep re-DMA'd unchanged data resident in VMEM --------===//
//
// Seed 000 §5.2.1 (pinning the node addresses of All-Gather in VMEM) and
// seed 003 §5.5 (weight pinning as a capacity-constrained choice): a DMA in
// a loop that brings the same, unchanged bytes on every iteration into a
// buffer that other data also passes through becomes one load, before the
// loop, into a dedicated resident buffer; the ops that read those bytes
// read the resident buffer instead.
//
//===----------------------------------------------------------------------===//

#include "DmaMotion.h"
#include "accel/Dialect/Accel/TileShape.h"
#include "accel/Transforms/Passes.h"

#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

namespace accel {
#define GEN_PASS_DEF_ACCELPINVMEM
#include "accel/Transforms/Passes.h.inc"
} // namespace accel

using namespace mlir;
using namespace accel;
using namespace accel::detail;

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
              best = std::max<int64_t>(best, std::max<int64_t>(1, saved.getInt()));
  return best;
}

namespace {
struct Candidate {
  DmaStartOp dma;
  DmaWaitOp wait;
  AllocOp buffer;
  SmallVector<Operation *> readers; ///< read the pinned bytes
  int64_t saved = 0, bytes = 0;
};

struct PinVmemPass : public accel::impl::AccelPinVmemBase<PinVmemPass> {
  using Base::Base;

  /// Whether `op` (or an op nested in it) reads or writes `buffer`; sets
  /// `read` / `write` for the kinds of access.
  static bool touches(Operation *op, Value buffer, bool &read, bool &write) {
    bool any = false;
    op->walk([&](Operation *inner) {
      auto iface = dyn_cast<MemoryEffectOpInterface>(inner);
      if (!iface)
        return;
      SmallVector<MemoryEffects::EffectInstance> effects;
      iface.getEffects(effects);
      for (auto &e : effects)
        if (e.getValue() && getRoot(e.getValue()) == buffer) {
          any = true;
          write |= isa<MemoryEffects::Write>(e.getEffect());
          read |= isa<MemoryEffects::Read>(e.getEffect());
        }
    });
    return any;
  }

  /// The candidate for `d`, or the refusal reason.
  std::string analyze(DmaStartOp d, Candidate &c) {
    auto loop = dyn_cast<scf::ForOp>(d->getParentOp());
    if (!loop)
      return "the DMA is not directly in a loop";
    if (loop->isAncestor(d.getSrc().getParentRegion()->getParentOp()))
      return "its source changes in the loop";
    Value src = getRoot(d.getSrc());
    auto buffer = d.getDst().getDefiningOp<AllocOp>();
    if (!buffer || loop->isAncestor(buffer))
      return "its destination is not a whole VMEM allocation made outside "
             "the loop";
    for (Operation *user : buffer->getUsers())
      if (!loop->isAncestor(user))
        return "its destination is used outside the loop";
    if (!d.getToken().hasOneUse())
      return "its token has more than one WAIT";
    auto wait = dyn_cast<DmaWaitOp>(*d.getToken().getUsers().begin());
    if (!wait || wait->getBlock() != d->getBlock() ||
        !d->isBeforeInBlock(wait))
      return "its WAIT is not after it in the loop body";
    // The loop must not write the source.
    bool srcWritten = false;
    loop.getBody()->walk([&](Operation *op) {
      bool read = false, write = false;
      if (op != d.getOperation() && touches(op, src, read, write) && write)
        srcWritten = true;
    });
    if (srcWritten)
      return "the loop writes its source";
    // Readers of the pinned bytes: after the WAIT, up to the next write of
    // the buffer. Reads before D in the body see the previous iteration's
    // last data: fine if another write follows D's range, not if D's data
    // is the last the buffer holds.
    Value b = buffer.getResult();
    bool seenDma = false, inRange = false, done = false, readBefore = false;
    for (Operation &op : *loop.getBody()) {
      if (&op == d.getOperation()) {
        seenDma = true;
        continue;
      }
      if (&op == wait.getOperation()) {
        inRange = true;
        continue;
      }
      if (op.hasTrait<OpTrait::IsTerminator>())
        continue;
      bool read = false, write = false;
      if (!touches(&op, b, read, write))
        continue;
      if (!seenDma) {
        readBefore |= read;
        continue;
      }
      if (!inRange)
        return "its destination is accessed before its WAIT";
      if (done)
        continue; // other data in the buffer
      if (write) {
        if (read)
          return "an op updates the bytes it brings in place";
        done = true;
        continue;
      }
      if (op.getNumRegions() != 0 ||
          llvm::none_of(op.getOperands(), [&](Value v) { return v == b; }) ||
          llvm::any_of(op.getOperands(),
                       [&](Value v) { return v != b && getRoot(v) == b; }))
        return "an op reads its destination through a view or a region";
      c.readers.push_back(&op);
    }
    if (readBefore && !done)
      return "the loop reads its destination before the DMA, where it still "
             "holds the previous iteration's copy";
    if (c.readers.empty())
      return "nothing reads the bytes it brings";
    c.dma = d;
    c.wait = wait;
    c.buffer = buffer;
    c.bytes = getTileShape(buffer.getType(), nullptr, true)->bytes();
    return "";
  }

  void runOnOperation() override {
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
      if (!used.count(func)) {
        uint64_t bytes = 0;
        func->walk([&](AllocOp a) {
          if (auto t = getTileShape(a.getType(), nullptr, true); succeeded(t))
            bytes += uint64_t(t->bytes());
        });
        used[func] = bytes;
      }
      if (used[func] + uint64_t(c.bytes) > vmemCapacity) {
        if (emitRemarks)
          c.dma.emitRemark() << "not pinned: its " << c.bytes
                             << " bytes do not fit the VMEM capacity of "
                             << uint64_t(vmemCapacity) << " bytes";
        continue;
      }
      used[func] += uint64_t(c.bytes);
      AllocOp shared = c.buffer;
      pin(c);
      ++numPinned;
      // A shared buffer nothing uses any more is freed.
      if (shared->use_empty()) {
        used[func] -= uint64_t(c.bytes);
        shared.erase();
      }
    }
  }

  void pin(Candidate &c) {
    // The resident buffer, next to the shared one.
    OpBuilder b(c.buffer);
    b.setInsertionPointAfter(c.buffer);
    auto resident = cast<AllocOp>(b.clone(*c.buffer.getOperation()));
    resident->removeAttr(AccelDialect::getOpIdAttrName());
    resident->setAttr("accel.pinned", b.getUnitAttr());
    // One load before the loop.
    auto loop = cast<scf::ForOp>(c.dma->getParentOp());
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
  }
};
} // namespace
