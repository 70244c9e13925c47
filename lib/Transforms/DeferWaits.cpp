//===- DeferWaits.cpp - WAITs deferred across a loop's back edge ----------===//
//
// When accel-pipeline-dma refuses a loop (a hand-pipelined ring whose WAITs
// are carried in from earlier iterations, a buffer shared by every
// iteration), a stalled DMA whose WAIT can sink to the end of the body
// still ends every iteration with a stall: the store of a result tile is
// waited for before the next iteration starts. deferWaitsAcrossBackEdge
// moves such a WAIT into the next iteration, just before the first op
// that may touch the bytes the DMA reads or writes (by the shared memory
// dependence analysis, at distance 1), with the token carried in a new
// iter_arg; the first iteration is peeled so that every iteration of the
// loop has a token to wait for, and the last iteration's DMA is waited for
// after the loop. The next iteration's loads and compute up to that op
// then overlap the transfer.
//
//===----------------------------------------------------------------------===//

#include "PipelineSchedule.h"

#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;
using namespace accel;
using namespace accel::detail;

namespace accel::detail::pipeline {

/// The DMAs whose token `token` may be (forEachCarriedSource): false when
/// a chain reaches a value that is not a DMA's token.
static bool traceToken(Value token, SmallVectorImpl<DmaStartOp> &dmas) {
  return forEachCarriedSource(token, [&](Value v) {
    auto dma = v.getDefiningOp<DmaStartOp>();
    if (dma)
      dmas.push_back(dma);
    return bool(dma);
  });
}

/// Whether `x` (an op of `loop`'s body, in iteration k + 1) may touch the
/// bytes that `dma` (in iteration k) reads or writes: a flow, anti or
/// output dependence at distance 1. A WAIT stands for the accesses of the
/// DMAs its token may come from (compared by buffer only: their views
/// belong to other iterations).
static bool dependsOnPrevious(Operation *x, DmaStartOp dma, scf::ForOp loop) {
  MemoryAccess mine[] = {MemoryAccess(dma, dma.getSrc(), false),
                         MemoryAccess(dma, dma.getDst(), true)};
  bool depends = false;
  x->walk([&](Operation *op) {
    if (auto wait = dyn_cast<DmaWaitOp>(op)) {
      SmallVector<DmaStartOp> sources;
      if (!traceToken(wait.getToken(), sources)) {
        depends = true;
        return WalkResult::interrupt();
      }
      for (DmaStartOp s : sources)
        for (const MemoryAccess &a : {MemoryAccess(s, s.getSrc(), false),
                                      MemoryAccess(s, s.getDst(), true)})
          for (const MemoryAccess &m : mine)
            depends |= (a.write || m.write) && mayAlias(a.root, m.root);
      return depends ? WalkResult::interrupt() : WalkResult::advance();
    }
    AccessWalk walk = forEachOwnAccess(op, [&](Value v, bool write) {
      MemoryAccess a(op, v, write);
      for (const MemoryAccess &m : mine)
        depends |= mayConflictAcross(m, a, loop, 1);
      return !depends;
    });
    depends |= walk == AccessWalk::Unknown;
    return depends ? WalkResult::interrupt() : WalkResult::advance();
  });
  return depends;
}

/// The op of `loop`'s body before which the WAIT of `dma` (issued in the
/// previous iteration) must come: the first op that depends on it, or
/// `dma` itself (the WAIT never passes the DMA's next ISSUE).
static Operation *deferPoint(DmaStartOp dma, scf::ForOp loop) {
  for (Operation &x : loop.getBody()->without_terminator()) {
    if (&x == dma.getOperation() || dependsOnPrevious(&x, dma, loop))
      return &x;
  }
  return dma;
}

namespace {
/// A WAIT to defer into the next iteration: the WAIT, its DMA, and the op
/// of the loop body before which it is to wait (deferPoint).
struct Deferral {
  DmaWaitOp wait;
  DmaStartOp dma;
  Operation *before = nullptr;
};
} // namespace

/// The first WAIT of `loop`'s body that can be deferred: of a critical DMA
/// of the body whose token it alone uses, free to sink to the end of the
/// body, whose defer point is not the body's first op. Null `wait`: none.
static Deferral findDeferral(scf::ForOp loop) {
  Block *body = loop.getBody();
  for (Operation &op : body->without_terminator()) {
    auto w = dyn_cast<DmaWaitOp>(&op);
    auto d = w ? w.getToken().getDefiningOp<DmaStartOp>() : DmaStartOp();
    if (!d || d->getBlock() != body || !d.getToken().hasOneUse() ||
        !waitIsCritical(d))
      continue;
    // It must be free to sink to the end of the body.
    DmaHoister h(d);
    Blocker blocker;
    unsigned crossed = 0;
    h.findSinkPoint(w, blocker, crossed);
    if (!blocker.op || blocker.op != body->getTerminator())
      continue;
    Operation *point = deferPoint(d, loop);
    // Deferred to the top of the next iteration, it would stall there
    // just as at the end of this one.
    if (point == &body->front())
      continue;
    return {w, d, point};
  }
  return {};
}

/// Peels the first iteration of `loop` (constant bounds): its body is
/// cloned before the loop with the induction variable at the lower bound
/// and the iter_args at their inits (the clones lose their op ids; the
/// loop's ops keep them), the loop's inits become the peeled yields and its
/// lower bound moves one step up. Returns the peeled copy of `wait`.
static DmaWaitOp peelFirstIteration(IRRewriter &rewriter, scf::ForOp loop,
                                    DmaWaitOp wait) {
  Block *body = loop.getBody();
  int64_t lb = *getConstantIntValue(loop.getLowerBound());
  int64_t step = *getConstantIntValue(loop.getStep());
  rewriter.setInsertionPoint(loop);
  IRMapping map;
  map.map(loop.getInductionVar(),
          arith::ConstantIndexOp::create(rewriter, loop.getLoc(), lb));
  for (auto [arg, init] :
       llvm::zip(loop.getRegionIterArgs(), loop.getInitArgs()))
    map.map(arg, init);
  DmaWaitOp firstWait;
  for (Operation &op : body->without_terminator()) {
    Operation *clone = rewriter.clone(op, map);
    clone->walk([](Operation *inner) {
      inner->removeAttr(AccelDialect::getOpIdAttrName());
    });
    if (&op == wait.getOperation())
      firstWait = cast<DmaWaitOp>(clone);
  }
  SmallVector<Value> inits;
  for (Value v : body->getTerminator()->getOperands())
    inits.push_back(map.lookupOrDefault(v));
  loop.getInitArgsMutable().assign(inits);
  loop.getLowerBoundMutable().assign(
      arith::ConstantIndexOp::create(rewriter, loop.getLoc(), lb + step));
  return firstWait;
}

/// Defers `d.wait` across `loop`'s back edge: the first iteration peeled
/// (its WAIT's token becomes the init of a new iter_arg carrying the DMA's
/// token), the WAIT moved before `d.before` on the carried token, and the
/// last iteration's DMA waited for after the loop. `loop` is updated to the
/// new loop. Failure (not expected: scf.for always grows) leaves the peel.
static LogicalResult deferWait(scf::ForOp &loop, Deferral d) {
  IRRewriter rewriter(loop.getContext());
  DmaWaitOp firstWait = peelFirstIteration(rewriter, loop, d.wait);
  Value firstToken = firstWait.getToken();
  firstWait->erase();
  FailureOr<LoopLikeOpInterface> grown =
      cast<LoopLikeOpInterface>(loop.getOperation())
          .replaceWithAdditionalYields(
              rewriter, ValueRange{firstToken},
              /*replaceInitOperandUsesInLoop=*/false,
              [&](OpBuilder &, Location, ArrayRef<BlockArgument>) {
                return SmallVector<Value>{d.dma.getToken()};
              });
  if (failed(grown))
    return failure();
  loop = cast<scf::ForOp>(grown->getOperation());
  d.wait.getTokenMutable().assign(loop.getRegionIterArgs().back());
  d.wait->moveBefore(d.before);
  OpBuilder after(loop->getContext());
  after.setInsertionPointAfter(loop);
  DmaWaitOp::create(after, d.wait.getLoc(), loop.getResults().back());
  return success();
}

SmallVector<std::string> deferWaitsAcrossBackEdge(scf::ForOp &loop) {
  SmallVector<std::string> done;
  // One WAIT at a time: each deferral peels an iteration and makes a new
  // loop.
  for (bool changed = true; changed;) {
    changed = false;
    std::optional<int64_t> trips = tripCount(loop);
    if (!trips || *trips < 2)
      break;
    Deferral d = findDeferral(loop);
    if (!d.wait)
      break;
    if (failed(deferWait(loop, d)))
      break;
    std::string s;
    llvm::raw_string_ostream os(s);
    os << "the WAIT at " << describeLoc(d.wait.getLoc())
       << " waits in the next iteration, before '" << d.before->getName()
       << "' at " << describeLoc(d.before->getLoc());
    done.push_back(s);
    changed = true;
  }
  return done;
}

} // namespace accel::detail::pipeline
