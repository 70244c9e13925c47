//===- PipelineLoops.cpp - Loops reshaped so that they can be pipelined ---===//
//
// Part of accel-pipeline-dma (PipelineDma.cpp): rewrites that keep every
// iteration of a loop and its order, so they are legal whatever the body
// does, and turn a loop the schedule refuses into one it takes (issue 33,
// item 3): strip-mining a loop whose bounds are known only at run time into
// chunks of a constant trip count, and unrolling a loop whose iter_args only
// rotate (ping-pong buffers) by the rotation's period; and the working
// copy's normalization (induction iter_args, views taken before the loop).
//
//===----------------------------------------------------------------------===//

#include "PipelineSchedule.h"

#include "accel/Dialect/Accel/AccelDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/Utils/Utils.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"

#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/SmallBitVector.h"

#include <numeric>

using namespace mlir;
using namespace accel;
using namespace accel::detail;
using namespace accel::detail::pipeline;

namespace {
/// Marks the ops of unrolled copy i > 0 while unrollRotatingLoop renames.
constexpr const char *kUnrollCopy = "accel.unroll_copy";
} // namespace

/// How many times `body` ran, as the metrics show: the largest
/// accel.executions of an op without regions in it, or else of the entries
/// of a loop in it; 0 when the metrics do not say.
static int64_t bodyRuns(Block &body);

/// How many times `loop` was entered: its own accel.executions counts its
/// head, run once per iteration and once more at each exit, so the entries
/// are that count less the runs of its body; 0 when the metrics do not
/// say.
static int64_t loopEntries(scf::ForOp loop) {
  int64_t head = getMetric(loop, "accel.executions");
  int64_t body = bodyRuns(*loop.getBody());
  return head > body ? head - body : 0;
}

static int64_t bodyRuns(Block &body) {
  int64_t most = 0;
  for (Operation &op : body) {
    if (op.getNumRegions() == 0)
      most = std::max(most, getMetric(&op, "accel.executions"));
    else if (auto inner = dyn_cast<scf::ForOp>(op))
      most = std::max(most, loopEntries(inner));
  }
  return most;
}

/// loopEntries, or without the loop's own count the runs of the ops beside
/// it (at least 1 in a function body); 0 when the metrics do not say.
static int64_t entriesSeen(scf::ForOp loop) {
  int64_t entries = loopEntries(loop);
  if (!entries) {
    for (Operation &op : *loop->getBlock())
      if (op.getNumRegions() == 0)
        entries = std::max(entries, getMetric(&op, "accel.executions"));
    if (isa<FunctionOpInterface>(loop->getParentOp()))
      entries = std::max<int64_t>(entries, 1);
  }
  return entries;
}

int64_t accel::detail::pipeline::profiledTrips(scf::ForOp loop) {
  int64_t entries = entriesSeen(loop);
  return entries > 0 ? bodyRuns(*loop.getBody()) / entries : 0;
}

void SegmentCoalescing::undo() {
  outer.setUpperBound(upperBound);
  for (auto [o, s] : llvm::zip(outer.getResults(), scalar.getResults()))
    s.replaceAllUsesWith(o);
  for (auto [op, attrs] : strippedAttrs)
    op->setAttrs(attrs);
  SmallVector<Operation *> made;
  Block *block = outer->getBlock();
  for (Operation *op = before ? before->getNextNode() : &block->front();
       op != outer.getOperation(); op = op->getNextNode())
    made.push_back(op);
  for (Operation *op : llvm::reverse(made)) {
    op->dropAllUses();
    op->erase();
  }
}

void SegmentCoalescing::keep() {
  outer->setAttr(kSegmentsFallbackAttr, UnitAttr::get(outer.getContext()));
}

namespace {
/// The nest coalesceSegments rewrites: `inner` in `outer`'s body, running
/// from outer iter_arg `k` to the value the outer loop yields for it, by
/// the constant `step`.
struct SegmentNest {
  scf::ForOp inner, outer;
  unsigned k = 0;
  int64_t step = 1;
};
} // namespace

/// Whether `inner` and the loop around it have the shape of a nest of
/// segments (SegmentNest, filled); returns "" or why not.
static std::string matchSegmentNest(scf::ForOp inner, SegmentNest &nest) {
  auto outer = dyn_cast<scf::ForOp>(inner->getParentOp());
  if (!outer)
    return "it is not nested in an scf.for";
  if (outer->hasAttr(kSegmentsFallbackAttr))
    return "its nest runs only when the segments it was coalesced from do "
           "not continue one another";
  std::optional<int64_t> step = getConstantIntValue(inner.getStep());
  if (!step || *step <= 0)
    return "the step is not a positive constant";
  if (inner.getNumRegionIterArgs())
    return "it has iter_args";
  // The segment's start: outer iter_arg k, which the outer loop yields
  // the segment's end.
  auto start = dyn_cast<BlockArgument>(inner.getLowerBound());
  if (!start || start.getOwner() != outer.getBody() ||
      start.getArgNumber() == 0)
    return "its lower bound is not an iter_arg of the enclosing loop";
  unsigned k = start.getArgNumber() - 1;
  auto yield = cast<scf::YieldOp>(outer.getBody()->getTerminator());
  if (yield.getOperand(k) != inner.getUpperBound())
    return "the enclosing loop does not yield its upper bound as the next "
           "lower bound";
  nest = {inner, outer, k, *step};
  return "";
}

/// Whether the segments of `nest` may run as one loop: the inner body
/// reads nothing of the outer body but through the bounds, and the rest
/// of the outer body is scalar and reads nothing the inner loop writes.
/// Returns "" or why not.
static std::string checkSegmentsIndependent(const SegmentNest &nest) {
  scf::ForOp inner = nest.inner, outer = nest.outer;
  bool reachesOut = false;
  inner.getBody()->walk([&](Operation *op) {
    for (Value v : op->getOperands()) {
      Region *r = v.getParentRegion();
      if (outer->isProperAncestor(r->getParentOp()) ||
          r->getParentOp() == outer.getOperation())
        if (!inner->isAncestor(r->getParentOp()))
          reachesOut = true;
    }
  });
  if (reachesOut)
    return "its body reads a value computed in the enclosing loop";
  SmallVector<MemoryAccess> innerAccesses, restAccesses;
  if (Operation *unknown =
          collectAccesses(inner, innerAccesses, DmaWindow::IssueAndWait))
    return "'" + unknown->getName().getStringRef().str() + "' at " +
           describeLoc(unknown->getLoc()) + " has unknown memory effects";
  for (Operation &op : outer.getBody()->without_terminator()) {
    if (&op == inner.getOperation())
      continue;
    if (op.getNumRegions())
      return "the enclosing loop's body has another op with regions";
    SmallVector<MemoryAccess> accesses;
    if (collectAccesses(&op, accesses, DmaWindow::IssueAndWait))
      return "'" + op.getName().getStringRef().str() + "' at " +
             describeLoc(op.getLoc()) + " has unknown memory effects";
    for (const MemoryAccess &a : accesses)
      if (a.write)
        return "the enclosing loop's body writes memory beside it: " +
               a.describe();
    restAccesses.append(accesses);
  }
  if (std::optional<Dependence> dep =
          findDependence(innerAccesses, restAccesses))
    return "the enclosing loop's body reads what it may write (" +
           dep->describe() + ")";
  return "";
}

/// An index constant `v` built at `b`.
static Value indexConstant(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIndexOp::create(b, loc, v);
}

/// Drops the op id and execution count of `o`.
static void stripCounts(Operation *o) {
  o->removeAttr(AccelDialect::getOpIdAttrName());
  o->removeAttr("accel.executions");
}

/// Builds at `b` the scalar loop of `nest`: the outer loop's body but the
/// inner loop (its ops without ids and counts), computing the segments'
/// bounds, with one more iter_arg (an i1, true at first) that tells
/// whether each segment continues the one before it (hi >= lo, and
/// hi - lo a multiple of the step).
static scf::ForOp buildSegmentsScalarLoop(OpBuilder &b, Location loc,
                                          const SegmentNest &nest) {
  scf::ForOp inner = nest.inner, outer = nest.outer;
  int64_t step = nest.step;
  auto yield = cast<scf::YieldOp>(outer.getBody()->getTerminator());
  SmallVector<Value> inits(outer.getInitArgs());
  inits.push_back(arith::ConstantIntOp::create(b, loc, 1, 1));
  return scf::ForOp::create(
      b, loc, outer.getLowerBound(), outer.getUpperBound(), outer.getStep(),
      inits, [&](OpBuilder &sb, Location, Value iv, ValueRange args) {
        IRMapping map;
        map.map(outer.getInductionVar(), iv);
        map.map(outer.getRegionIterArgs(), args.drop_back());
        for (Operation &op : outer.getBody()->without_terminator())
          if (&op != inner.getOperation())
            stripCounts(sb.clone(op, map));
        Value lo = map.lookupOrDefault(inner.getLowerBound());
        Value hi = map.lookupOrDefault(inner.getUpperBound());
        Value ok =
            arith::CmpIOp::create(sb, loc, arith::CmpIPredicate::sge, hi, lo);
        if (step != 1) {
          Value rem = arith::RemUIOp::create(
              sb, loc, arith::SubIOp::create(sb, loc, hi, lo),
              indexConstant(sb, loc, step));
          ok = arith::AndIOp::create(
              sb, loc, ok,
              arith::CmpIOp::create(sb, loc, arith::CmpIPredicate::eq, rem,
                                    indexConstant(sb, loc, 0)));
        }
        SmallVector<Value> next;
        for (Value v : yield.getOperands())
          next.push_back(map.lookupOrDefault(v));
        next.push_back(arith::AndIOp::create(sb, loc, args.back(), ok));
        scf::YieldOp::create(sb, loc, next);
      });
}

/// Rewrites `nest` (checked) as coalesceSegments describes, filling `out`.
static void coalesce(const SegmentNest &nest, SegmentCoalescing &out) {
  scf::ForOp inner = nest.inner, outer = nest.outer;
  Location loc = inner.getLoc();
  out.outer = outer;
  out.before = outer->getPrevNode();
  out.upperBound = outer.getUpperBound();
  int64_t entries = entriesSeen(outer);
  out.tripsPerEntry = entries > 0 ? bodyRuns(*inner.getBody()) / entries : 0;
  OpBuilder b(outer);
  // The segments' bounds, and whether each continues the one before it.
  out.scalar = buildSegmentsScalarLoop(b, loc, nest);
  Value ok = out.scalar.getResults().back();
  Value first = outer.getInitArgs()[nest.k];
  Value end =
      arith::SelectOp::create(b, loc, ok, out.scalar.getResult(nest.k), first);
  // The step is a constant, maybe defined in the outer body.
  out.loop = scf::ForOp::create(
      b, loc, first, end, indexConstant(b, loc, nest.step), ValueRange{},
      [&](OpBuilder &lb, Location, Value iv, ValueRange) {
        IRMapping map;
        map.map(inner.getInductionVar(), iv);
        for (Operation &op : *inner.getBody())
          lb.clone(op, map);
      });
  // The nest as written runs when a segment does not continue the last.
  outer.setUpperBound(arith::SelectOp::create(b, loc, ok, outer.getLowerBound(),
                                              outer.getUpperBound()));
  for (auto [o, s] : llvm::zip(outer.getResults(), out.scalar.getResults()))
    o.replaceAllUsesWith(s);
  // Its ops keep their metrics per execution but not their counts, and
  // get new ids (the coalesced loop's copies keep the ids).
  inner.getBody()->walk([&](Operation *o) {
    out.strippedAttrs.push_back({o, o->getAttrDictionary()});
    stripCounts(o);
  });
}

std::string accel::detail::pipeline::coalesceSegments(scf::ForOp inner,
                                                      SegmentCoalescing &out) {
  SegmentNest nest;
  if (std::string why = matchSegmentNest(inner, nest); !why.empty())
    return why;
  out.shaped = true;
  if (std::string why = checkSegmentsIndependent(nest); !why.empty())
    return why;
  coalesce(nest, out);
  return "";
}

scf::ForOp accel::detail::pipeline::stripMineLoop(scf::ForOp loop,
                                                  int64_t chunk) {
  Location loc = loop.getLoc();
  int64_t step = *getConstantIntValue(loop.getStep());
  OpBuilder b(loop);
  auto index = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(b, loc, v);
  };
  // n = max(ub - lb, 0) ceildiv step; the chunks end at lb + (n / T) T step.
  Value lb = loop.getLowerBound(), ub = loop.getUpperBound();
  Value zero = index(0);
  Value diff = arith::SubIOp::create(b, loc, ub, lb);
  Value n = arith::MaxSIOp::create(b, loc, diff, zero);
  if (step != 1) {
    Value roundUp = index(step - 1), stepValue = index(step);
    n = arith::DivUIOp::create(
        b, loc, arith::AddIOp::create(b, loc, n, roundUp), stepValue);
  }
  Value chunkValue = index(chunk), spanValue = index(chunk * step);
  Value chunks = arith::DivUIOp::create(b, loc, n, chunkValue);
  Value mainSpan = arith::MulIOp::create(b, loc, chunks, spanValue);
  Value mainUb = arith::AddIOp::create(b, loc, lb, mainSpan);
  auto cloneBody = [&](OpBuilder &nb, Value iv, ValueRange args) {
    IRMapping map;
    map.map(loop.getInductionVar(), iv);
    map.map(loop.getRegionIterArgs(), args);
    for (Operation &op : *loop.getBody())
      nb.clone(op, map);
  };
  scf::ForOp inner;
  auto outer = scf::ForOp::create(
      b, loc, lb, mainUb, spanValue, loop.getInitArgs(),
      [&](OpBuilder &ob, Location, Value c, ValueRange outerArgs) {
        // Unit step: an iter_arg advanced by any constant is then an
        // induction (rewriteInductions).
        Value from = arith::ConstantIndexOp::create(ob, loc, 0);
        Value trips = arith::ConstantIndexOp::create(ob, loc, chunk);
        Value one = arith::ConstantIndexOp::create(ob, loc, 1);
        inner = scf::ForOp::create(
            ob, loc, from, trips, one, outerArgs,
            [&](OpBuilder &ib, Location, Value j, ValueRange innerArgs) {
              Value offset = j;
              if (step != 1)
                offset = arith::MulIOp::create(
                    ib, loc, j, arith::ConstantIndexOp::create(ib, loc, step));
              Value iv = arith::AddIOp::create(ib, loc, c, offset);
              cloneBody(ib, iv, innerArgs);
            });
        scf::YieldOp::create(ob, loc, inner.getResults());
      });
  // The chunk loop is marked: a later FDO iteration that finds its bounds
  // dynamic does not strip-mine it again.
  outer->setAttr(kStripMinedAttr, b.getUnitAttr());
  auto rest =
      scf::ForOp::create(b, loc, mainUb, ub, loop.getStep(), outer.getResults(),
                         [&](OpBuilder &rb, Location, Value iv,
                             ValueRange args) { cloneBody(rb, iv, args); });
  // The rest's ops keep the metrics (per execution they are the body's)
  // but not their counts (the rest may never run), and get new ids when
  // ids are assigned again, as in a flattened loop.
  rest.getBody()->walk([](Operation *o) {
    o->removeAttr(AccelDialect::getOpIdAttrName());
    o->removeAttr("accel.executions");
  });
  for (auto [o, c] : llvm::zip(loop.getResults(), rest.getResults()))
    o.replaceAllUsesWith(c);
  return inner;
}

unsigned accel::detail::pipeline::rotationPeriod(scf::ForOp loop) {
  auto yield = cast<scf::YieldOp>(loop.getBody()->getTerminator());
  unsigned n = loop.getNumRegionIterArgs();
  // perm[i]: the iter_arg iter_arg i takes next (its yielded value), or -1
  // when that value is computed in the body.
  SmallVector<int> perm(n, -1);
  for (unsigned i = 0; i < n; ++i) {
    auto arg = dyn_cast<BlockArgument>(yield.getOperand(i));
    if (arg && arg.getOwner() == loop.getBody() && arg.getArgNumber() > 0)
      perm[i] = int(arg.getArgNumber() - 1);
  }
  // Unrolled by P, iter_arg i is yielded the value its chain reaches in P
  // steps: computed in the body once the chain has left the iter_args (a
  // shift register: a ring's tokens, `yield %next, %new`), or i itself
  // when the chain is a cycle whose length divides P (a rotation: ping-pong
  // buffers, `yield %b, %a`; dropped then, as yielded unchanged).
  unsigned cycles = 1, least = 1;
  bool moves = false;
  for (unsigned i = 0; i < n; ++i) {
    if (perm[i] < 0)
      continue;
    moves = true;
    unsigned hops = 1;
    int j = perm[i];
    for (; j >= 0 && j != int(i); j = perm[j], ++hops)
      if (hops > kMaxRotation)
        return 0; // a cycle that does not come back to i
    if (j < 0)
      least = std::max(least, hops); // computed in the body after `hops`
    else
      cycles = std::lcm(cycles, hops);
    if (cycles > kMaxRotation)
      return 0;
  }
  if (!moves)
    return 0;
  unsigned period = cycles * ((least + cycles - 1) / cycles);
  return period > kMaxRotation ? 0 : period;
}

scf::ForOp accel::detail::pipeline::dropInvariantIterArgs(scf::ForOp loop) {
  auto yield = cast<scf::YieldOp>(loop.getBody()->getTerminator());
  SmallVector<unsigned> kept;
  SmallVector<Value> inits;
  for (auto [i, arg] : llvm::enumerate(loop.getRegionIterArgs()))
    if (yield.getOperand(i) != arg) {
      kept.push_back(i);
      inits.push_back(loop.getInitArgs()[i]);
    }
  if (kept.size() == loop.getNumRegionIterArgs())
    return loop;
  OpBuilder b(loop);
  auto fresh = scf::ForOp::create(b, loop.getLoc(), loop.getLowerBound(),
                                  loop.getUpperBound(), loop.getStep(), inits);
  fresh->setDiscardableAttrs(loop->getDiscardableAttrDictionary());
  Block *body = fresh.getBody();
  if (!body->empty())
    body->getTerminator()->erase(); // the builder's empty yield
  SmallVector<Value> yielded;
  for (unsigned i : kept)
    yielded.push_back(yield.getOperand(i));
  OpBuilder yb(yield);
  scf::YieldOp::create(yb, yield.getLoc(), yielded);
  yield.erase();
  loop.getInductionVar().replaceAllUsesWith(fresh.getInductionVar());
  for (auto [k, i] : llvm::enumerate(kept)) {
    loop.getRegionIterArgs()[i].replaceAllUsesWith(
        fresh.getRegionIterArgs()[k]);
    loop.getResult(i).replaceAllUsesWith(fresh.getResult(k));
  }
  // The dropped ones: their init, in the body and after the loop.
  for (auto [i, arg] : llvm::enumerate(loop.getRegionIterArgs())) {
    arg.replaceAllUsesWith(loop.getInitArgs()[i]);
    loop.getResult(i).replaceAllUsesWith(loop.getInitArgs()[i]);
  }
  body->getOperations().splice(body->end(), loop.getBody()->getOperations());
  loop.erase();
  return fresh;
}

FailureOr<scf::ForOp>
accel::detail::pipeline::unrollRotatingLoop(scf::ForOp loop, unsigned period) {
  // Buffers allocated before the loop and private to an iteration (an
  // input tile DMA'd in and read in the same iteration) get one allocation
  // per unrolled copy, as the pipeliner's multi-buffering would give them:
  // otherwise copy i + 1's DMA into the buffer waits for copy i's last
  // read of it, and the two halves of the unrolled body fall into
  // different stages.
  SmallVector<Value> privates;
  {
    Body b;
    if (collectBody(loop, b).empty()) {
      llvm::SetVector<Value> roots;
      for (auto &accesses : b.accesses)
        for (const MemoryAccess &a : accesses)
          if (auto alloc = a.root.getDefiningOp<AllocOp>();
              alloc && !loop->isAncestor(alloc))
            roots.insert(a.root);
      for (Value root : roots)
        if (isPrivate(b, {root}, loop))
          privates.push_back(root);
    }
  }
  MLIRContext *ctx = loop.getContext();
  FailureOr<UnrolledLoopInfo> unrolled = loopUnrollByFactor(
      loop, period, [&](unsigned i, Operation *op, OpBuilder) {
        if (i == 0)
          return;
        op->walk([&](Operation *o) {
          o->removeAttr(AccelDialect::getOpIdAttrName());
          o->setAttr(kUnrollCopy, IntegerAttr::get(IndexType::get(ctx), i));
        });
      });
  if (failed(unrolled) || !unrolled->mainLoopOp)
    return failure();
  scf::ForOp main = *unrolled->mainLoopOp;
  for (Value root : privates) {
    SmallVector<Value> fresh(period);
    OpBuilder ab(main);
    for (unsigned i = 1; i < period; ++i) {
      Operation *alloc = ab.clone(*root.getDefiningOp());
      alloc->removeAttr(AccelDialect::getOpIdAttrName());
      fresh[i] = alloc->getResult(0);
    }
    for (OpOperand &use : llvm::make_early_inc_range(root.getUses()))
      if (auto i = use.getOwner()->getAttrOfType<IntegerAttr>(kUnrollCopy))
        use.set(fresh[i.getInt()]);
  }
  main->walk([](Operation *o) { o->removeAttr(kUnrollCopy); });
  if (unrolled->epilogueLoopOp)
    unrolled->epilogueLoopOp->walk(
        [](Operation *o) { o->removeAttr(kUnrollCopy); });
  return dropInvariantIterArgs(main);
}

void accel::detail::pipeline::rewriteInductions(scf::ForOp loop) {
  int64_t lb = *getConstantIntValue(loop.getLowerBound());
  int64_t step = *getConstantIntValue(loop.getStep());
  auto yield = cast<scf::YieldOp>(loop.getBody()->getTerminator());
  for (auto [arg, init, next] : llvm::zip(
           loop.getRegionIterArgs(), loop.getInitArgs(), yield.getOperands())) {
    if (!arg.getType().isIndex() || arg.use_empty())
      continue;
    LinearIndex li = LinearIndex::of(next);
    auto it = li.terms.find(arg);
    if (it == li.terms.end() || it->second != 1 ||
        llvm::any_of(li.terms, [&](auto &term) {
          return term.first != arg && term.second != 0;
        }))
      continue;
    std::optional<int64_t> c = li.constant;
    // Only the increment reads it, and only the yield the increment:
    // nothing to gain.
    if (*c % step != 0 ||
        (arg.hasOneUse() && next.getDefiningOp() &&
         *arg.getUsers().begin() == next.getDefiningOp() && next.hasOneUse()))
      continue;
    OpBuilder b = OpBuilder::atBlockBegin(loop.getBody());
    Location loc = loop.getLoc();
    Value t = loop.getInductionVar();
    if (lb != 0)
      t = arith::SubIOp::create(b, loc, t,
                                arith::ConstantIndexOp::create(b, loc, lb));
    if (*c / step != 1)
      t = arith::MulIOp::create(
          b, loc, t, arith::ConstantIndexOp::create(b, loc, *c / step));
    Value off = arith::AddIOp::create(b, loc, init, t);
    arg.replaceAllUsesWith(off);
  }
}

void accel::detail::pipeline::sinkViews(scf::ForOp loop) {
  Block *body = loop.getBody();
  OpBuilder b(body, body->begin());
  DenseMap<Value, Value> sunk;
  std::function<Value(Value)> inside = [&](Value v) -> Value {
    Operation *def = v.getDefiningOp();
    if (!def || loop->isAncestor(def) || !getViewSource(def) ||
        !getRoot(v).getDefiningOp<AllocOp>())
      return v;
    Value &clone = sunk[v];
    if (!clone) {
      Value source = inside(getViewSource(def));
      Operation *c = b.clone(*def);
      c->setOperand(0, source);
      clone = c->getResult(0);
    }
    return clone;
  };
  SmallVector<Operation *> ops;
  body->walk([&](Operation *op) { ops.push_back(op); });
  for (Operation *op : ops)
    for (OpOperand &operand : op->getOpOperands())
      if (isa<BaseMemRefType>(operand.get().getType()))
        operand.set(inside(operand.get()));
}

SmallVector<StagedStore> accel::detail::pipeline::stageStores(scf::ForOp loop) {
  SmallVector<StagedStore> staged;
  Body b;
  if (!collectBody(loop, b).empty())
    return staged;
  Block *body = loop.getBody();
  for (Operation *op : b.ops) {
    auto store = dyn_cast<DmaStartOp>(op);
    if (!store || store.getRemoteChip() || getStallCycles(store) <= 0)
      continue;
    auto srcType = dyn_cast<MemRefType>(store.getSrc().getType());
    auto dstType = dyn_cast<MemRefType>(store.getDst().getType());
    if (!srcType || !dstType || getMemorySpace(srcType) != MemorySpace::VMEM ||
        getMemorySpace(dstType) != MemorySpace::HBM ||
        !isa<FloatType>(srcType.getElementType()))
      continue;
    // Waited in the body: its window ends in the iteration.
    bool waited = llvm::any_of(store.getToken().getUsers(), [&](Operation *u) {
      return isa<DmaWaitOp>(u) && holderIn(body, u);
    });
    Value root = getRoot(store.getSrc());
    auto alloc = root.getDefiningOp<AllocOp>();
    if (!waited || !alloc || loop->isAncestor(alloc) ||
        isPrivate(b, {root}, loop))
      continue;
    OpBuilder ab(loop);
    auto stageType =
        MemRefType::get(srcType.getShape(), srcType.getElementType(),
                        MemRefLayoutAttrInterface(), srcType.getMemorySpace());
    auto stage = AllocOp::create(ab, store.getLoc(), stageType);
    OpBuilder cb(store);
    auto copy = VCopyOp::create(cb, store.getLoc(), store.getSrc(), stage);
    staged.push_back({store, store.getSrc(), copy, stage});
    store.getSrcMutable().assign(stage);
  }
  return staged;
}

void accel::detail::pipeline::unstageStores(ArrayRef<StagedStore> staged) {
  for (const StagedStore &st : llvm::reverse(staged)) {
    cast<DmaStartOp>(st.store).getSrcMutable().assign(st.source);
    st.copy->erase();
    st.buffer->erase();
  }
}
