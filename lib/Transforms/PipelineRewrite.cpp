//===- PipelineRewrite.cpp - The rewrite of accel-pipeline-dma ------------===//
//
// A loop rewritten as the pipeline of its schedule (PipelineSchedule.cpp):
// stages as attributes, upstream's scf::pipelineForLoop for the prologue,
// kernel and peeled epilogue, the private buffers' copies rotated through
// the kernel's iter_args (as memref::multiBuffer, without the remainder
// instruction the ISA lacks), and modulo variable expansion. The method is
// in PipelineDma.cpp's header.
//
//===----------------------------------------------------------------------===//

#include "PipelineSchedule.h"

#include "mlir/Dialect/SCF/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/Utils/Utils.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/LoopLikeInterface.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include <map>
#include <numeric>

using namespace mlir;
using namespace accel;
using namespace accel::detail;
using namespace accel::detail::pipeline;

/// The stage of an op of the loop being pipelined (removed afterwards).
static constexpr StringLiteral kStageAttr = "accel.pipeline_stage";

/// A clone is a new op: it gets its own op id later (--accel-assign-op-ids)
/// and none of the original's metrics.
static void dropAccelAttrs(Operation *root) {
  root->walk([](Operation *op) {
    SmallVector<StringAttr> names;
    for (NamedAttribute a : op->getDiscardableAttrs())
      if (a.getName().getValue().starts_with("accel.") &&
          a.getName().getValue() != "accel.pipelined" &&
          a.getName().getValue() != kPipelinedKernelAttr)
        names.push_back(a.getName());
    for (StringAttr n : names)
      op->removeDiscardableAttr(n);
  });
}

namespace {
/// An op made by the pipeliner: the part, the iteration (prologue,
/// epilogue) and the stage of the op it copies. `live` turns false when
/// the op is erased (its address may then be reused by another op).
struct Made {
  Operation *op;
  scf::PipeliningOption::PipelinerPart part;
  unsigned iteration;
  bool live = true;
};

/// Records the ops the rewriter creates and erases, and the pipeliner's
/// annotation of each (`made`). An erased op leaves both at once: a
/// later op allocated at its address must not inherit its record (a
/// stale record matched such an op and read a stage attribute it did
/// not have: a crash that depended on the allocator's reuse).
struct Recorder : public RewriterBase::Listener {
  llvm::SetVector<Operation *> created;
  std::vector<Made> made;
  llvm::DenseMap<Operation *, SmallVector<unsigned, 1>> madeAt;

  void annotate(Operation *op, scf::PipeliningOption::PipelinerPart part,
                unsigned iteration) {
    madeAt[op].push_back(made.size());
    made.push_back({op, part, iteration});
  }
  void forget(Operation *op) {
    created.remove(op);
    auto it = madeAt.find(op);
    if (it == madeAt.end())
      return;
    for (unsigned i : it->second)
      made[i].live = false;
    madeAt.erase(it);
  }
  void notifyOperationInserted(Operation *op, OpBuilder::InsertPoint) override {
    created.insert(op);
  }
  void notifyOperationErased(Operation *op) override { forget(op); }
};
} // namespace

/// Folds the arith ops among `ops` whose operands are constants (the
/// pipeliner's iteration arithmetic: arith.divsi, arith.cmpi, arith.select,
/// arith.maxsi, which the ISA lacks), and erases those left unused.
static void foldConstants(llvm::SetVector<Operation *> &ops,
                          llvm::function_ref<void(Operation *)> erasing = {}) {
  SmallVector<Operation *> list(ops.begin(), ops.end());
  for (Operation *op : list) {
    if (op->getName().getDialectNamespace() != "arith" ||
        isa<arith::ConstantOp>(op) || op->getNumResults() != 1)
      continue;
    SmallVector<Attribute> operands;
    for (Value v : op->getOperands()) {
      Attribute a;
      if (!matchPattern(v, m_Constant(&a)))
        break;
      operands.push_back(a);
    }
    SmallVector<OpFoldResult> results;
    if (operands.size() != op->getNumOperands() ||
        failed(op->fold(operands, results)) || results.size() != 1)
      continue;
    Value v = dyn_cast<Value>(results[0]);
    if (!v) {
      OpBuilder b(op);
      Operation *c = op->getDialect()->materializeConstant(
          b, cast<Attribute>(results[0]), op->getResult(0).getType(),
          op->getLoc());
      if (!c)
        continue;
      ops.insert(c);
      v = c->getResult(0);
    }
    op->getResult(0).replaceAllUsesWith(v);
  }
  for (bool changed = true; changed;) {
    changed = false;
    list.assign(ops.begin(), ops.end());
    for (Operation *op : llvm::reverse(list))
      if (op->getName().getDialectNamespace() == "arith" &&
          isOpTriviallyDead(op)) {
        ops.remove(op);
        if (erasing)
          erasing(op);
        op->erase();
        changed = true;
      }
  }
}

/// The stage attribute of `op` (kStageAttr, set by markStages).
static unsigned stageOf(Operation *op) {
  return unsigned(op->getAttrOfType<IntegerAttr>(kStageAttr).getInt());
}

/// Sets the stage of each op of `b` (plan `p`) as kStageAttr, so that it
/// is copied with the op, and gives each pure op a copy for every later
/// stage that uses it (the uses there read the copy). Returns the ops of
/// `body` (the working copy's) in pipeliner order: by stage, then body
/// position.
static SmallVector<Operation *> markStages(Block *body, const Body &b,
                                           const Plan &p) {
  MLIRContext *ctx = body->getParentOp()->getContext();
  for (auto [i, op] : llvm::enumerate(b.ops))
    op->setAttr(kStageAttr,
                IntegerAttr::get(IntegerType::get(ctx, 32), p.stage[i]));
  for (Operation *op : llvm::reverse(b.ops)) {
    if (!isPureOp(op))
      continue;
    std::map<unsigned, Operation *> perStage;
    for (OpOperand &use : llvm::make_early_inc_range(op->getUses())) {
      Operation *h = holderIn(body, use.getOwner());
      if (!h || isa<scf::YieldOp>(h))
        continue;
      unsigned s = stageOf(h);
      if (s == stageOf(op))
        continue;
      Operation *&c = perStage[s];
      if (!c) {
        OpBuilder at(op);
        c = at.clone(*op);
        c->setAttr(kStageAttr, IntegerAttr::get(IntegerType::get(ctx, 32), s));
      }
      use.set(c->getResult(cast<OpResult>(use.get()).getResultNumber()));
    }
  }
  SmallVector<Operation *> order;
  for (Operation &op : body->without_terminator())
    order.push_back(&op);
  llvm::stable_sort(order, [&](Operation *x, Operation *y) {
    return stageOf(x) < stageOf(y);
  });
  return order;
}

/// Runs scf::pipelineForLoop on `copy` with the stages of `order` and a
/// peeled epilogue, through `rewriter` (whose listener is `recorder`);
/// `copy` takes over `loop`'s results first. Then folds the constant
/// iteration arithmetic among the ops made. Returns the kernel loop;
/// failure (the IR unchanged, the stage attributes removed) when the
/// pipeliner refuses the schedule.
static FailureOr<scf::ForOp> runPipeliner(scf::ForOp loop, scf::ForOp copy,
                                          ArrayRef<Operation *> order,
                                          IRRewriter &rewriter,
                                          Recorder &recorder) {
  scf::PipeliningOption options;
  options.getScheduleFn =
      [&](scf::ForOp, std::vector<std::pair<Operation *, unsigned>> &s) {
        for (Operation *op : order)
          s.push_back({op, stageOf(op)});
      };
  options.peelEpilogue = true;
  options.annotateFn =
      [&](Operation *op, scf::PipeliningOption::PipelinerPart part,
          unsigned iteration) { recorder.annotate(op, part, iteration); };
  rewriter.setInsertionPoint(copy);
  // The copy takes over the loop's results.
  loop->replaceAllUsesWith(copy->getResults());
  bool modified = false;
  FailureOr<scf::ForOp> kernel =
      scf::pipelineForLoop(rewriter, copy, options, &modified);
  if (failed(kernel)) {
    copy->replaceAllUsesWith(loop->getResults());
    if (modified) // not with constant bounds and a peeled epilogue
      llvm::report_fatal_error("scf::pipelineForLoop failed after "
                               "modifying the IR");
    copy.getBody()->walk([](Operation *op) { op->removeAttr(kStageAttr); });
    return failure();
  }
  foldConstants(recorder.created, [&](Operation *op) { recorder.forget(op); });
  return kernel;
}

/// Per private buffer (a root of plan `p`): the buffer and its N - 1
/// copies, each a clone of its allocation placed after it (without an op
/// id), in that order.
using BufferSlots = llvm::MapVector<Value, SmallVector<Value>>;

/// Multi-buffering: makes the copies of each private buffer of `p`.
static BufferSlots makeBufferCopies(const Plan &p) {
  BufferSlots slots;
  for (auto [root, n] : p.copies) {
    SmallVector<Value> list = {root};
    OpBuilder ab(root.getDefiningOp());
    ab.setInsertionPointAfter(root.getDefiningOp());
    for (unsigned i = 1; i < n; ++i) {
      Operation *c = ab.clone(*root.getDefiningOp());
      c->removeAttr(AccelDialect::getOpIdAttrName());
      list.push_back(c->getResult(0));
    }
    slots[root] = list;
  }
  return slots;
}

/// Adds to `kernel` (through `rewriter`) an iter_arg per copy of `slots`,
/// rotating: iter_arg r of kernel iteration j holds copy (j + r) mod N.
/// Fills `firstArg` with each buffer's first such iter_arg number and
/// returns the new kernel loop (`kernel` itself when `slots` is empty).
static scf::ForOp addRotation(IRRewriter &rewriter, scf::ForOp kernel,
                              const BufferSlots &slots,
                              llvm::DenseMap<Value, unsigned> &firstArg) {
  if (slots.empty())
    return kernel;
  SmallVector<Value> inits;
  for (auto &[root, list] : slots) {
    firstArg[root] = inits.size();
    inits.append(list.begin(), list.end());
  }
  unsigned base = kernel.getNumRegionIterArgs();
  auto newLoop =
      cast<LoopLikeOpInterface>(kernel.getOperation())
          .replaceWithAdditionalYields(
              rewriter, inits,
              /*replaceInitOperandUsesInLoop=*/false,
              [&](OpBuilder &, Location, ArrayRef<BlockArgument> args) {
                SmallVector<Value> next;
                for (auto &[root, list] : slots) {
                  unsigned f = firstArg[root], n = list.size();
                  for (unsigned r = 0; r < n; ++r)
                    next.push_back(args[f + (r + 1) % n]);
                }
                return next;
              });
  if (failed(newLoop))
    llvm::report_fatal_error("cannot add iter_args to the kernel loop");
  for (auto &[root, f] : firstArg)
    f += base;
  return cast<scf::ForOp>(newLoop->getOperation());
}

/// Makes each op the pipeliner made (still live) use the copy of a
/// private buffer its iteration owns: in the kernel `k`, the rotating
/// iter_arg of its stage (stage s runs iteration j + S - s, S the last
/// stage of `p`); in the prologue and epilogue (iterations known, of
/// `trips`), the copy itself.
static void useBufferCopies(const Recorder &recorder, const BufferSlots &slots,
                            llvm::DenseMap<Value, unsigned> &firstArg,
                            scf::ForOp k, const Plan &p, int64_t trips) {
  for (const Made &m : recorder.made) {
    if (!m.live || !recorder.created.contains(m.op)) // folded away
      continue;
    unsigned s = stageOf(m.op);
    m.op->walk([&](Operation *nested) {
      for (OpOperand &operand : nested->getOpOperands()) {
        auto it = slots.find(operand.get());
        if (it == slots.end())
          continue;
        unsigned n = it->second.size();
        using Part = scf::PipeliningOption::PipelinerPart;
        if (m.part == Part::Kernel) {
          operand.set(k.getRegionIterArgs()[firstArg[operand.get()] +
                                            (p.maxStage - s) % n]);
          continue;
        }
        int64_t iteration = m.part == Part::Prologue
                                ? int64_t(m.iteration) - s
                                : trips - int64_t(s) + m.iteration;
        if (iteration < 0)
          llvm::report_fatal_error(
              "accel-pipeline-dma: negative iteration for a buffer copy");
        operand.set(it->second[iteration % n]);
      }
    });
  }
}

/// Markers (accel-replay counts the DMAs carrying one): one per pipelined
/// loop, `accel.pipelined = id`. Of the copies of a marked DMA (an inner
/// loop's, copied by this one) the first keeps the mark; this loop marks
/// the first unmarked DMA of its prologue (else of any part) with
/// `nextMarker`, which is advanced.
static void placeMarkers(const Recorder &recorder, MLIRContext *ctx,
                         int64_t &nextMarker) {
  llvm::DenseSet<Attribute> kept;
  for (const Made &m : recorder.made) {
    if (!m.live || !recorder.created.contains(m.op))
      continue;
    m.op->walk([&](DmaStartOp d) {
      if (Attribute id = d->getAttr("accel.pipelined"))
        if (!kept.insert(id).second)
          d->removeAttr("accel.pipelined");
    });
  }
  auto mark = [&](bool prologueOnly) {
    for (const Made &m : recorder.made)
      if ((!prologueOnly ||
           m.part == scf::PipeliningOption::PipelinerPart::Prologue) &&
          m.live && recorder.created.contains(m.op) && isa<DmaStartOp>(m.op) &&
          !m.op->hasAttr("accel.pipelined")) {
        m.op->setAttr(
            "accel.pipelined",
            IntegerAttr::get(IntegerType::get(ctx, 64), nextMarker++));
        return true;
      }
    return false;
  };
  if (!mark(true))
    (void)mark(false);
}

FailureOr<scf::ForOp> accel::detail::pipeline::buildPipeline(
    scf::ForOp loop, scf::ForOp copy, const Body &b, const Plan &p,
    int64_t trips, int64_t &nextMarker, unsigned &period) {
  MLIRContext *ctx = copy.getContext();
  SmallVector<Operation *> order = markStages(copy.getBody(), b, p);
  Recorder recorder;
  IRRewriter rewriter(ctx, &recorder);
  FailureOr<scf::ForOp> kernel =
      runPipeliner(loop, copy, order, rewriter, recorder);
  if (failed(kernel))
    return failure();
  BufferSlots slots = makeBufferCopies(p);
  llvm::DenseMap<Value, unsigned> firstArg;
  scf::ForOp k = addRotation(rewriter, *kernel, slots, firstArg);
  useBufferCopies(recorder, slots, firstArg, k, p, trips);
  placeMarkers(recorder, ctx, nextMarker);
  // The copies lose the originals' op ids and metrics.
  for (Operation *op : recorder.created)
    if (op->getBlock()) {
      dropAccelAttrs(op);
      op->walk([](Operation *o) { o->removeAttr(kStageAttr); });
    }
  k->removeAttr(kStageAttr);
  k->setAttr(kPipelinedKernelAttr, UnitAttr::get(ctx));
  period = 1;
  for (auto &[root, list] : slots)
    period = std::lcm(period, unsigned(list.size()));
  return k;
}

void accel::detail::pipeline::expandRotation(scf::ForOp kernel,
                                             unsigned period) {
  std::optional<int64_t> trips = tripCount(kernel);
  if (period < 2 || !trips || *trips < int64_t(period))
    return; // a loop stays (an enclosing loop schedules it as one op)
  // The unrolled body and the remainder (fewer than `period` iterations,
  // unrolled fully below) as straight-line code.
  int64_t ops = 0;
  kernel.getBody()->walk([&](Operation *) { ++ops; });
  int64_t copies = *trips < 2 * int64_t(period) ? *trips : 2 * period - 1;
  if (ops * copies > kMaxUnrolledOps)
    return;
  FailureOr<UnrolledLoopInfo> unrolled = loopUnrollByFactor(
      kernel, period, [](unsigned i, Operation *op, OpBuilder) {
        if (i > 0) // one marker per pipelined loop
          op->walk([](Operation *o) { o->removeAttr("accel.pipelined"); });
      });
  if (failed(unrolled))
    return;
  // The remainder iterations (fewer than the period) as straight-line
  // code too: a rotating loop of a few trips costs its iter_args' setup.
  if (unrolled->epilogueLoopOp)
    (void)loopUnrollFull(*unrolled->epilogueLoopOp);
  SmallVector<Operation *> loops;
  if (unrolled->mainLoopOp)
    loops.push_back(*unrolled->mainLoopOp);
  if (loops.empty())
    return;
  // The unrolled iterations' offsets (iv + i * step) on constants.
  llvm::SetVector<Operation *> body;
  loops[0]->walk([&](Operation *op) {
    if (op != loops[0])
      body.insert(op);
  });
  foldConstants(body);
  MLIRContext *ctx = kernel.getContext();
  RewritePatternSet patterns(ctx);
  scf::ForOp::getCanonicalizationPatterns(patterns, ctx);
  GreedyRewriteConfig config;
  config.setStrictness(GreedyRewriteStrictness::ExistingOps);
  (void)applyOpPatternsGreedily(loops, std::move(patterns), config);
}
