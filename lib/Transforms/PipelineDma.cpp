//===- PipelineDma.cpp - Double-buffered DMA software pipelining ----------===//
//
// Hoists each iteration's DMA into the previous iteration (issue 5, item 4;
// seed 000 §5.3.1 "prefetch more aggressively"): a loop
//
//   for k: { t = dma_start src(k) -> B; dma_wait t; rest(k, B) }
//
// with an even constant trip count becomes, with a second buffer B',
//
//   t = dma_start src(lb) -> B; dma_wait t                  // prologue
//   for k = lb to ub - 2*step step 2*step {
//     t' = dma_start src(k + step) -> B'; rest(k, B);  dma_wait t'
//     t  = dma_start src(k + 2*step) -> B; rest(k + step, B'); dma_wait t
//   }
//   t' = dma_start src(ub - step) -> B'; rest(ub - 2*step, B); dma_wait t'
//   rest(ub - step, B')                                     // epilogue
//
// so each tile's transfer overlaps the previous tile's computation. Every
// DMA of the body that loads a whole loop-invariant VMEM buffer gets its own
// second buffer.
//
//===----------------------------------------------------------------------===//

#include "DmaMotion.h"
#include "accel/Dialect/Accel/TileShape.h"
#include "accel/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/IR/IRMapping.h"

namespace accel {
#define GEN_PASS_DEF_ACCELPIPELINEDMA
#include "accel/Transforms/Passes.h.inc"
} // namespace accel

using namespace mlir;
using namespace accel;
using namespace accel::detail;

/// A clone is a new op: it gets its own op id later (--accel-assign-op-ids)
/// and none of the original's metrics.
static void dropAccelAttrs(Operation *root) {
  root->walk([](Operation *op) {
    SmallVector<StringAttr> names;
    for (NamedAttribute a : op->getDiscardableAttrs())
      if (a.getName().getValue().starts_with("accel."))
        names.push_back(a.getName());
    for (StringAttr n : names)
      op->removeDiscardableAttr(n);
  });
}

namespace {
/// One DMA of the body to double-buffer.
struct Stage {
  DmaStartOp dma;
  DmaWaitOp wait;
  AllocOp buffer; ///< B (defined outside the loop)
  AllocOp second; ///< B' (created)
};

struct PipelineDmaPass
    : public accel::impl::AccelPipelineDmaBase<PipelineDmaPass> {
  using Base::Base;

  /// Checks the loop; on success fills `stages`. Returns the refusal reason
  /// or an empty string.
  std::string analyze(scf::ForOp loop, SmallVectorImpl<Stage> &stages) {
    if (loop.getNumRegionIterArgs() != 0)
      return "the loop has iter_args";
    auto lb = getConstantIntValue(loop.getLowerBound());
    auto ub = getConstantIntValue(loop.getUpperBound());
    auto step = getConstantIntValue(loop.getStep());
    if (!lb || !ub || !step || *step <= 0)
      return "the loop bounds are not constant";
    int64_t trips = *ub > *lb ? (*ub - *lb + *step - 1) / *step : 0;
    if (trips < 2 || trips % 2 != 0)
      return "the trip count is not even and at least 2";
    Block *body = loop.getBody();
    bool stalled = pipelineAll;
    for (Operation &op : *body) {
      auto dma = dyn_cast<DmaStartOp>(&op);
      if (!dma)
        continue;
      // Stages: DMAs that load a whole VMEM allocation made outside the
      // loop. Other DMAs (e.g. stores of results) stay in rest(k).
      auto buffer = dma.getDst().getDefiningOp<AllocOp>();
      if (!buffer || loop->isAncestor(buffer))
        continue;
      for (Operation *user : buffer->getUsers())
        if (!loop->isAncestor(user))
          return "a staged buffer is used outside the loop";
      if (!dma.getToken().hasOneUse())
        return "a DMA's token has more than one WAIT";
      auto wait = dyn_cast<DmaWaitOp>(*dma.getToken().getUsers().begin());
      if (!wait || wait->getBlock() != body)
        return "a DMA's WAIT is not in the loop body";
      Value srcRoot = getRoot(dma.getSrc());
      if (loop->isAncestor(srcRoot.getParentRegion()->getParentOp()))
        return "a DMA's source buffer is defined in the loop";
      stages.push_back({dma, wait, buffer, nullptr});
      for (const char *name : {"accel.stall_base", "accel.stall_transfer"})
        if (auto s = dma->getAttrOfType<IntegerAttr>(name))
          stalled |= s.getInt() > 0;
    }
    if (stages.empty())
      return "no DMA of the body loads a whole VMEM allocation made outside "
             "the loop";
    if (!stalled)
      return "its DMAs' metrics show no stall";
    // Memory rules: the loop does not write a staged DMA's source, and
    // nothing accesses a staged buffer before the DMA's WAIT (after it, the
    // tile is the iteration's own: reads and in-place updates are fine, the
    // next tile goes to the other buffer).
    for (Stage &s : stages) {
      Value src = getRoot(s.dma.getSrc());
      bool afterWait = false;
      std::string why;
      for (Operation &top : *body) {
        if (&top == s.wait.getOperation())
          afterWait = true;
        WalkResult r = top.walk([&](Operation *op) {
          if (op == s.dma.getOperation() || isa<DmaWaitOp>(op) ||
              isMemoryEffectFree(op) || isa<AllocOp>(op))
            return WalkResult::advance();
          auto iface = dyn_cast<MemoryEffectOpInterface>(op);
          if (!iface) {
            why = "an op with unknown memory effects in the loop";
            return WalkResult::interrupt();
          }
          SmallVector<MemoryEffects::EffectInstance> effects;
          iface.getEffects(effects);
          for (auto &e : effects) {
            Value v = e.getValue();
            if (!v)
              continue;
            Value root = getRoot(v);
            bool write = isa<MemoryEffects::Write>(e.getEffect());
            if (root == s.buffer.getResult() && !afterWait) {
              why = "a DMA's destination is accessed before its WAIT";
              return WalkResult::interrupt();
            }
            if (root == src && write) {
              why = "the loop writes a DMA's source";
              return WalkResult::interrupt();
            }
          }
          return WalkResult::advance();
        });
        if (r.wasInterrupted())
          return why;
      }
    }
    return "";
  }

  void runOnOperation() override {
    SmallVector<scf::ForOp> loops;
    getOperation().walk([&](scf::ForOp loop) { loops.push_back(loop); });
    for (scf::ForOp loop : loops) {
      SmallVector<Stage> stages;
      std::string why = analyze(loop, stages);
      if (!why.empty()) {
        if (emitRemarks)
          loop.emitRemark() << "not pipelined: " << why;
        continue;
      }
      // VMEM: every allocation of the function plus the second buffers.
      auto func = loop->getParentOfType<FunctionOpInterface>();
      uint64_t bytes = 0, extra = 0;
      func->walk([&](AllocOp a) {
        if (auto t = getTileShape(a.getType(), nullptr, true); succeeded(t))
          bytes += uint64_t(t->bytes());
      });
      for (Stage &s : stages)
        extra += uint64_t(getTileShape(s.buffer.getType(), nullptr, true)->bytes());
      if (bytes + extra > vmemCapacity) {
        if (emitRemarks)
          loop.emitRemark() << "not pipelined: the second buffers ("
                            << extra << " bytes) would exceed the VMEM "
                                        "capacity of "
                            << uint64_t(vmemCapacity) << " bytes";
        continue;
      }
      transform(loop, stages);
      ++numPipelined;
    }
  }

  void transform(scf::ForOp loop, MutableArrayRef<Stage> stages) {
    OpBuilder b(loop);
    Location loc = loop.getLoc();
    // Second buffers, next to the first ones.
    for (Stage &s : stages) {
      OpBuilder ab(s.buffer);
      ab.setInsertionPointAfter(s.buffer);
      s.second = cast<AllocOp>(ab.clone(*s.buffer.getOperation()));
      s.second->removeAttr(AccelDialect::getOpIdAttrName());
    }
    int64_t lb = *getConstantIntValue(loop.getLowerBound());
    int64_t ub = *getConstantIntValue(loop.getUpperBound());
    int64_t step = *getConstantIntValue(loop.getStep());
    int64_t trips = (ub - lb + step - 1) / step;
    int64_t lastPair = lb + (trips - 2) * step; // first iteration of the last pair
    Block *body = loop.getBody();
    Value iv = loop.getInductionVar();
    llvm::DenseSet<Operation *> staged;
    for (Stage &s : stages) {
      staged.insert(s.dma);
      staged.insert(s.wait);
    }
    auto constant = [&](OpBuilder &at, int64_t v) -> Value {
      return arith::ConstantIndexOp::create(at, loc, v);
    };
    // Clones the ops computing each staged DMA's operands (pure, in the
    // body) and the DMAs for iteration `k`, into buffers `useSecond` ? B' :
    // B; returns the new tokens.
    auto issue = [&](OpBuilder &at, Value k, bool useSecond) {
      IRMapping map;
      map.map(iv, k);
      SmallVector<Value> tokens;
      for (Operation &op : *body) {
        if (staged.contains(&op) || op.hasTrait<OpTrait::IsTerminator>())
          continue;
        if (isMemoryEffectFree(&op) && op.getNumRegions() == 0)
          dropAccelAttrs(at.clone(op, map)); // address math
      }
      for (Stage &s : stages) {
        map.map(s.buffer.getResult(),
                useSecond ? s.second.getResult() : s.buffer.getResult());
        auto d = cast<DmaStartOp>(at.clone(*s.dma.getOperation(), map));
        dropAccelAttrs(d);
        tokens.push_back(d.getToken());
      }
      return tokens;
    };
    // Clones rest(k) (the body without the staged DMAs and WAITs) reading
    // B' instead of B when `useSecond`.
    auto rest = [&](OpBuilder &at, Value k, bool useSecond) {
      IRMapping map;
      map.map(iv, k);
      if (useSecond)
        for (Stage &s : stages)
          map.map(s.buffer.getResult(), s.second.getResult());
      for (Operation &op : *body)
        if (!staged.contains(&op) && !op.hasTrait<OpTrait::IsTerminator>())
          dropAccelAttrs(at.clone(op, map));
    };
    auto waitAll = [&](OpBuilder &at, ArrayRef<Value> tokens) {
      for (Value t : tokens)
        DmaWaitOp::create(at, loc, t);
    };

    // Prologue: the first tile, loaded synchronously.
    waitAll(b, issue(b, constant(b, lb), false));
    // The new loop over pairs of iterations.
    auto pairs = scf::ForOp::create(b, loc, constant(b, lb),
                                      constant(b, lastPair),
                                      constant(b, 2 * step));
    // The pair loop is a new loop (new op id), marked as pipelined.
    pairs->setAttr("accel.pipelined", b.getUnitAttr());
    {
      OpBuilder in = OpBuilder::atBlockBegin(pairs.getBody());
      Value k = pairs.getInductionVar();
      Value k1 = arith::AddIOp::create(in, loc, k, constant(in, step));
      Value k2 = arith::AddIOp::create(in, loc, k, constant(in, 2 * step));
      SmallVector<Value> next = issue(in, k1, true);
      rest(in, k, false);
      waitAll(in, next);
      SmallVector<Value> after = issue(in, k2, false);
      rest(in, k1, true);
      waitAll(in, after);
    }
    // Epilogue: the last pair.
    b.setInsertionPointAfter(pairs);
    SmallVector<Value> last = issue(b, constant(b, lastPair + step), true);
    rest(b, constant(b, lastPair), false);
    waitAll(b, last);
    rest(b, constant(b, lastPair + step), true);
    loop.erase();
  }
};
} // namespace
