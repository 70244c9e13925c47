//===- PipelineDma.cpp - Multi-buffered DMA software pipelining -----------===//
//
// Hoists each iteration's DMA into earlier iterations (issue 5, item 4;
// seed 000 §5.3.1 "prefetch more aggressively"). With groups of G tiles and
// 2G buffers (sets A = B_0..B_{G-1} and A' = B_G..B_{2G-1}), a loop
//
//   for k: { t = dma_start src(k) -> B; dma_wait t; rest(k, B) }
//
// with N = trips / G groups (here a multiple of G iterations, N even)
// becomes
//
//   t_j = dma_start src(lb + j) -> A_j (j < G)                  // prologue
//   n_j = dma_start src(lb + G + j) -> A'_j                     // first half,
//   dma_wait t_j; rest(lb + j, A_j) (for each j); dma_wait n_j  // peeled
//   for k = lb + G to ub - G step 2G {
//     m_j = dma_start src(k + G + j) -> A_j; rest(k + j, A'_j); dma_wait m_j
//     n_j = dma_start src(k + 2G + j) -> A'_j; rest(k + G + j, A_j); dma_wait n_j
//   }
//   rest(ub - G + j, A'_j)                                       // epilogue
//
// (steps of 1 shown), so a group's transfers, issued together, overlap each
// other's base latency and the other group's G iterations of work. G = 1 is
// double buffering. With N odd, one more half (from A') follows the loop
// and the epilogue computes from A. The r = trips mod G leftover
// iterations come first: their tiles load into A' together with the first
// group, and they run while that group arrives. G
// comes from the metrics (see Passes.td). Every DMA of the body that loads
// a whole loop-invariant VMEM buffer gets its own 2G buffers.
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
    : public accel::impl::AccelPipelineDmaBase<PipelineDmaPass>,
      public ReportsChanges {
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
    if (trips < 2)
      return "the trip count is less than 2";
    Block *body = loop.getBody();
    // Stages: DMAs at the top of the body that load a whole VMEM allocation
    // made outside the loop and meet the rules below. Other DMAs (stores of
    // results, later loads into a buffer already used in the iteration)
    // stay in rest(k).
    std::string firstReason;
    bool candidates = false;
    for (Operation &op : *body) {
      auto dma = dyn_cast<DmaStartOp>(&op);
      if (!dma)
        continue;
      auto buffer = dma.getDst().getDefiningOp<AllocOp>();
      if (!buffer || loop->isAncestor(buffer))
        continue;
      candidates = true;
      std::string why = checkStage(loop, dma, buffer);
      if (!why.empty()) {
        if (firstReason.empty())
          firstReason = why;
        continue;
      }
      stages.push_back({dma, getOnlyWait(dma), buffer, nullptr});
    }
    if (!candidates)
      return "no DMA of the body loads a whole VMEM allocation made outside "
             "the loop";
    if (stages.empty())
      return firstReason;
    if (!pipelineAll && llvm::none_of(stages, [](Stage s) {
          return getStallCycles(s.dma) > 0;
        }))
      return "its DMAs' metrics show no stall";
    return "";
  }

  /// Why DMA `dma` into `buffer` cannot be a stage of `loop`, or "". The
  /// buffer is used only in the loop; the DMA has one WAIT, in the body; its
  /// source is defined outside the loop and never written in it; and
  /// nothing accesses the buffer before the WAIT (after it, the tile is the
  /// iteration's own: reads and in-place updates are fine, the next tile
  /// goes to another buffer).
  static std::string checkStage(scf::ForOp loop, DmaStartOp dma,
                                AllocOp buffer) {
    Block *body = loop.getBody();
    if (!usedOnlyInside(buffer.getResult(), loop))
      return "a staged buffer is used outside the loop";
    if (!dma.getToken().hasOneUse())
      return "a DMA's token has more than one WAIT";
    DmaWaitOp wait = getOnlyWait(dma);
    if (!wait || wait->getBlock() != body)
      return "a DMA's WAIT is not in the loop body";
    Value src = getRoot(dma.getSrc());
    if (loop->isAncestor(src.getParentRegion()->getParentOp()))
      return "a DMA's source buffer is defined in the loop";
    bool afterWait = false;
    std::string why;
    for (Operation &top : *body) {
      if (&top == wait.getOperation())
        afterWait = true;
      WalkResult r = top.walk([&](Operation *op) {
        // Ops with recursive effects (a nested scf.for) have their nested
        // ops walked too.
        if (op == dma.getOperation() || isa<DmaWaitOp>(op) ||
            op->hasTrait<OpTrait::HasRecursiveMemoryEffects>() ||
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
          if (root == buffer.getResult() && !afterWait) {
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
    return "";
  }

  /// The number of tiles per group (G). With metrics (iteration 0's
  /// accel.stall_* and accel.busy_cycles): L = one tile's un-overlapped
  /// latency (the largest stall per execution among the stages), X = the
  /// transfer part of every stage's tile per iteration, W = the work per
  /// iteration. A group's tiles, issued together, arrive L + (G-1) X after
  /// their ISSUE while the other group works G W, so the estimated stall is
  ///   L + r X + ((trips - r) / G - 1) max(0, L + (G-1) X - G W)
  /// with L for the prologue and r X for the r = trips mod G leftover
  /// tiles, which load with the first group, just before it on the link;
  /// plus S per group and per leftover iteration when the body stores
  /// from a staged buffer (S: that store's stall per execution; its buffer
  /// is reloaded by the next group, so a group's last store stays exposed);
  /// the G in [1, max-group] with the smallest estimate wins (the smaller
  /// G on a tie). Without metrics: `group`, or 1.
  int64_t chooseGroup(scf::ForOp loop, ArrayRef<Stage> stages,
                      int64_t trips) {
    if (group > 0)
      return group;
    int64_t latency = 0, transfer = 0, executions = 0;
    for (const Stage &s : stages) {
      int64_t ex = getMetric(s.dma, "accel.executions");
      if (ex <= 0)
        continue;
      latency = std::max(latency, getStallCycles(s.dma) / ex);
      transfer += getMetric(s.dma, "accel.stall_transfer") / ex;
      executions = std::max(executions, ex);
    }
    int64_t busy = 0;
    loop.getBody()->walk(
        [&](Operation *op) { busy += getMetric(op, "accel.busy_cycles"); });
    if (!latency || !executions || !busy)
      return 1;
    // Stores from a staged buffer (a result written back in place): the
    // buffer is reloaded one group later, so each group's last store stays
    // exposed, S cycles (its stall per execution in iteration 0).
    int64_t storeLatency = 0;
    for (Operation &op : *loop.getBody()) {
      auto d = dyn_cast<DmaStartOp>(&op);
      if (!d || llvm::any_of(stages, [&](const Stage &s) { return s.dma == d; }))
        continue;
      Value src = getRoot(d.getSrc());
      int64_t ex = getMetric(d, "accel.executions");
      if (ex <= 0 || llvm::none_of(stages, [&](Stage s) {
            return s.buffer.getResult() == src;
          }))
        continue;
      storeLatency = std::max(storeLatency, getStallCycles(d) / ex);
    }
    int64_t work = std::max<int64_t>(1, busy / executions); // per iteration
    int64_t bestG = 1, bestStall = INT64_MAX;
    for (int64_t g = 1; g <= maxGroup && 2 * g <= trips; ++g) {
      int64_t r = trips % g;
      int64_t perGroup =
          std::max<int64_t>(0, latency + (g - 1) * transfer - g * work);
      // The leftover tiles load with the first group, just before it on
      // the link.
      int64_t stall = r * (transfer + storeLatency) + latency +
                      ((trips - r) / g - 1) * perGroup +
                      (trips - r) / g * storeLatency;
      if (stall < bestStall)
        bestStall = stall, bestG = g;
    }
    return bestG;
  }

  void runOnOperation() override {
    resetCounts({"num-pipelined"});
    if (group < 0 || maxGroup < 1) {
      getOperation().emitError()
          << "accel-pipeline-dma: group must be >= 0 (0: from the metrics) "
             "and max-group >= 1; got group="
          << int64_t(group) << " max-group=" << int64_t(maxGroup);
      return signalPassFailure();
    }
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
      int64_t trips = *tripCount(loop);
      // VMEM: every allocation of the function plus the new buffers.
      auto func = loop->getParentOfType<FunctionOpInterface>();
      uint64_t bytes = allocatedVmemBytes(func), perSet = 0;
      for (Stage &s : stages)
        perSet += uint64_t(getTileShape(s.buffer.getType(), nullptr, true)->bytes());
      // The largest group up to the wanted one that fits the trip count
      // (two groups) and VMEM (2G buffers per stage).
      int64_t g = std::min(chooseGroup(loop, stages, trips), trips / 2);
      while (g > 1 && bytes + (2 * g - 1) * perSet > vmemCapacity)
        --g;
      if (bytes + perSet > vmemCapacity) {
        if (emitRemarks)
          loop.emitRemark() << "not pipelined: the second buffers ("
                            << perSet << " bytes) would exceed the VMEM "
                                         "capacity of "
                            << uint64_t(vmemCapacity) << " bytes";
        continue;
      }
      transform(loop, stages, g);
      bump(numPipelined, 0);
    }
  }

  static std::optional<int64_t> tripCount(scf::ForOp loop) {
    auto lb = getConstantIntValue(loop.getLowerBound());
    auto ub = getConstantIntValue(loop.getUpperBound());
    auto step = getConstantIntValue(loop.getStep());
    if (!lb || !ub || !step || *step <= 0)
      return std::nullopt;
    return *ub > *lb ? (*ub - *lb + *step - 1) / *step : 0;
  }

  /// Rewrites `loop` with groups of `g` tiles (see the file comment).
  void transform(scf::ForOp loop, MutableArrayRef<Stage> stages, int64_t g) {
    OpBuilder b(loop);
    Location loc = loop.getLoc();
    int64_t lb = *getConstantIntValue(loop.getLowerBound());
    int64_t step = *getConstantIntValue(loop.getStep());
    int64_t trips = *tripCount(loop);
    // The ops made here: each lowers to instructions, so those left unused
    // (the address math of a staged DMA cloned into rest(k), the
    // computation's in issue(k), an iteration index nothing reads) are
    // erased at the end.
    SmallVector<Operation *> clones;
    auto constant = [&](OpBuilder &at, int64_t v) -> Value {
      auto c = arith::ConstantIndexOp::create(at, loc, v);
      clones.push_back(c);
      return c;
    };
    // The trips mod g iterations that do not fill a group come first: their
    // tiles load into the second set (unused until the first half issues
    // into it) together with the first group.
    int64_t remainder = trips % g;
    bool foldRemainder = remainder != 0;
    int64_t remainderLb = lb;
    lb += remainder * step;
    trips -= remainder;
    int64_t groups = trips / g; // at least 2: g <= trips / 2
    // Buffers: stage s uses bufs[s][0..2g): set A = [0, g), set A' = [g, 2g).
    SmallVector<SmallVector<Value>> bufs;
    for (Stage &s : stages) {
      SmallVector<Value> list = {s.buffer.getResult()};
      OpBuilder ab(s.buffer);
      ab.setInsertionPointAfter(s.buffer);
      for (int64_t i = 1; i < 2 * g; ++i) {
        auto copy = cast<AllocOp>(ab.clone(*s.buffer.getOperation()));
        copy->removeAttr(AccelDialect::getOpIdAttrName());
        list.push_back(copy.getResult());
      }
      bufs.push_back(list);
    }
    Block *body = loop.getBody();
    Value iv = loop.getInductionVar();
    llvm::DenseSet<Operation *> staged;
    for (Stage &s : stages) {
      staged.insert(s.dma);
      staged.insert(s.wait);
    }
    auto mapBuffers = [&](IRMapping &map, int64_t slot) {
      for (auto [s, stage] : llvm::enumerate(stages))
        map.map(stage.buffer.getResult(), bufs[s][slot]);
    };
    // Clones the ops computing each staged DMA's operands (pure, in the
    // body) and the DMAs for iteration `k` into buffer `slot`; appends the
    // new tokens.
    auto issue = [&](OpBuilder &at, Value k, int64_t slot,
                     SmallVectorImpl<Value> &tokens) {
      IRMapping map;
      map.map(iv, k);
      for (Operation &op : *body) {
        if (staged.contains(&op) || op.hasTrait<OpTrait::IsTerminator>())
          continue;
        if (isMemoryEffectFree(&op) && op.getNumRegions() == 0)
          clones.push_back(at.clone(op, map)); // address math
      }
      mapBuffers(map, slot);
      for (Stage &s : stages) {
        auto d = cast<DmaStartOp>(at.clone(*s.dma.getOperation(), map));
        dropAccelAttrs(d);
        tokens.push_back(d.getToken());
      }
    };
    // Clones rest(k) (the body without the staged DMAs and WAITs) reading
    // buffer `slot`.
    auto rest = [&](OpBuilder &at, Value k, int64_t slot) {
      IRMapping map;
      map.map(iv, k);
      mapBuffers(map, slot);
      for (Operation &op : *body)
        if (!staged.contains(&op) && !op.hasTrait<OpTrait::IsTerminator>())
          clones.push_back(at.clone(op, map));
    };
    auto waitAll = [&](OpBuilder &at, ArrayRef<Value> tokens) {
      for (Value t : tokens)
        DmaWaitOp::create(at, loc, t);
    };
    auto at = [&](OpBuilder &in, Value base, int64_t i) -> Value {
      if (i == 0)
        return base;
      auto add = arith::AddIOp::create(in, loc, base, constant(in, i * step));
      clones.push_back(add);
      return add;
    };
    // One half: issue the next group into `nextSet`, compute this group
    // from `set`, wait for the next group.
    auto half = [&](OpBuilder &in, Value k, int64_t set, int64_t nextSet,
                    int64_t nextOffset) {
      SmallVector<Value> next;
      for (int64_t j = 0; j < g; ++j)
        issue(in, at(in, k, nextOffset + j), nextSet * g + j, next);
      for (int64_t j = 0; j < g; ++j)
        rest(in, at(in, k, j), set * g + j);
      waitAll(in, next);
    };

    // Prologue: the folded remainder's tiles and the first group, loaded
    // together; the remainder's iterations run while the group arrives.
    SmallVector<Value> early, first;
    if (foldRemainder)
      for (int64_t i = 0; i < remainder; ++i)
        issue(b, constant(b, remainderLb + i * step), g + i, early);
    for (int64_t j = 0; j < g; ++j)
      issue(b, constant(b, lb + j * step), j, first);
    // The prologue's first DMA marks the transformed loop (with two groups
    // in all, no loop over pairs remains).
    (early.empty() ? first : early)
        .front()
        .getDefiningOp()
        ->setAttr("accel.pipelined", b.getUnitAttr());
    if (foldRemainder) {
      waitAll(b, early);
      for (int64_t i = 0; i < remainder; ++i)
        rest(b, constant(b, remainderLb + i * step), g + i);
    }
    // The first half, peeled so that each first-group tile is waited for
    // just before its own iteration: work starts when the first tile
    // arrives, not the whole group.
    {
      SmallVector<Value> next;
      for (int64_t j = 0; j < g; ++j)
        issue(b, constant(b, lb + (g + j) * step), g + j, next);
      size_t perTile = stages.size(); // issue() adds one token per stage
      for (int64_t j = 0; j < g; ++j) {
        waitAll(b, ArrayRef<Value>(first).slice(j * perTile, perTile));
        rest(b, constant(b, lb + j * step), j);
      }
      waitAll(b, next);
    }
    // Groups 1 .. groups-2 are computed by the halves after the peeled one:
    // group i from set i mod 2, each half issuing group i+1 into the other.
    int64_t pairs = (groups - 2) / 2;
    if (pairs > 0) {
      // The loop over pairs of groups, rotated by the peeled half (first
      // the set A', then A), marked as pipelined (a new loop: new op id).
      auto loopOver = scf::ForOp::create(
          b, loc, constant(b, lb + g * step),
          constant(b, lb + (1 + 2 * pairs) * g * step),
          constant(b, 2 * g * step));
      loopOver->setAttr("accel.pipelined", b.getUnitAttr());
      OpBuilder in = OpBuilder::atBlockBegin(loopOver.getBody());
      Value k = loopOver.getInductionVar();
      half(in, k, 1, 0, g);
      Value kg = at(in, k, g);
      half(in, kg, 0, 1, g);
    }
    if ((groups - 2) % 2) // an odd number of groups: one more half, from A'
      half(b, constant(b, lb + (1 + 2 * pairs) * g * step), 1, 0, g);
    // Epilogue: the last group (it loads nothing more).
    int64_t lastSet = (groups - 1) % 2;
    Value lastG = constant(b, lb + (groups - 1) * g * step);
    for (int64_t j = 0; j < g; ++j)
      rest(b, at(b, lastG, j), lastSet * g + j);
    loop.erase();
    for (Operation *op : llvm::reverse(clones)) {
      if (isOpTriviallyDead(op))
        op->erase();
      else
        dropAccelAttrs(op);
    }
  }
};
} // namespace
