//===- PipelineCarried.cpp - Undoing a hand-pipelined loop's prefetch -----===//
//
// Part of --accel-pipeline-dma (PipelineSchedule.h): a loop pipelined by
// hand issues the DMA of iteration i + d in iteration i and carries its
// token in iter_args that shift (`yield %t1, ..., %new`) until the WAIT of
// iteration i + d; a prologue issues the first d DMAs and an epilogue
// WAITs on the last d. Its prefetch distance is the programmer's d, bound
// by the slots they allocated. depipelineCarried rewrites such a loop into
// the plain one it pipelines (each DMA issued where it is waited for), so
// that the pass can pipeline it again at the distance the metrics ask for
// (the ring's slots then get allocations of their own: PipelineSlots.cpp).
//
//===----------------------------------------------------------------------===//

#include "PipelineSchedule.h"

#include "mlir/IR/IRMapping.h"

using namespace mlir;
using namespace accel;
using namespace accel::detail;
using namespace accel::detail::pipeline;

std::optional<int64_t>
accel::detail::pipeline::foldAt(OpFoldResult f, Value bound, int64_t at) {
  if (auto attr = dyn_cast<Attribute>(f))
    return cast<IntegerAttr>(attr).getInt();
  return foldToConstant(cast<Value>(f), bound, at);
}

namespace {

/// The values `root` is computed from inside `loop`'s body (top level):
/// the pure ops (address math, views) in body order. False when one is
/// not pure or is nested, or when a value comes from an iter_arg.
bool collectSlice(Value root, scf::ForOp loop,
                  llvm::SetVector<Operation *> &slice) {
  SmallVector<Value> work = {root};
  while (!work.empty()) {
    Value v = work.pop_back_val();
    if (v == loop.getInductionVar())
      continue;
    if (!loop->isAncestor(v.getParentRegion()->getParentOp()))
      continue; // defined before the loop
    Operation *def = v.getDefiningOp();
    if (!def || def->getBlock() != loop.getBody() || !isPureOp(def))
      return false;
    if (slice.insert(def))
      llvm::append_range(work, def->getOperands());
  }
  SmallVector<Operation *> sorted(slice.begin(), slice.end());
  llvm::sort(sorted,
             [](Operation *a, Operation *b) { return a->isBeforeInBlock(b); });
  slice.clear();
  slice.insert(sorted.begin(), sorted.end());
  return true;
}

/// Whether the view `p` (outside the loop) names the bytes the view `n`
/// (computed in the loop) names in the iteration where `iv` is `at`: the
/// same value defined outside the loop, or subviews of such sources whose
/// offsets, sizes and strides are one value from before the loop or fold
/// to the same constants.
bool sameTile(Value p, Value n, scf::ForOp loop, int64_t at) {
  if (p == n)
    return !loop->isAncestor(n.getParentRegion()->getParentOp());
  auto sp = p.getDefiningOp<memref::SubViewOp>();
  auto sn = n.getDefiningOp<memref::SubViewOp>();
  if (!sp || !sn || sp.getType() != sn.getType() ||
      !sameTile(sp.getSource(), sn.getSource(), loop, at))
    return false;
  Value iv = loop.getInductionVar();
  auto same = [&](ArrayRef<OpFoldResult> a, ArrayRef<OpFoldResult> b) {
    if (a.size() != b.size())
      return false;
    for (auto [x, y] : llvm::zip(a, b)) {
      // One value from before the loop (an enclosing loop's offset).
      if (auto vx = dyn_cast<Value>(x);
          vx && vx == dyn_cast<Value>(y) &&
          !loop->isAncestor(vx.getParentRegion()->getParentOp()))
        continue;
      std::optional<int64_t> vx = foldAt(x), vy = foldAt(y, iv, at);
      if (!vx || !vy || *vx != *vy)
        return false;
    }
    return true;
  };
  return same(sp.getMixedOffsets(), sn.getMixedOffsets()) &&
         same(sp.getMixedSizes(), sn.getMixedSizes()) &&
         same(sp.getMixedStrides(), sn.getMixedStrides());
}

/// Whether access `out` (of an op outside the loop, its views constant)
/// and access `in` (of an op in the loop) may touch one byte in the
/// iteration where `iv` is `at`: both views are then evaluated.
bool mayConflictAt(const MemoryAccess &out, const MemoryAccess &in,
                   scf::ForOp loop, int64_t at) {
  if (!(out.write || in.write) || !mayAlias(out.root, in.root))
    return false;
  auto so = out.view.getDefiningOp<memref::SubViewOp>();
  auto si = in.view.getDefiningOp<memref::SubViewOp>();
  if (!so || !si || so.getSource() != si.getSource())
    return true;
  Value iv = loop.getInductionVar();
  auto offO = so.getMixedOffsets(), offI = si.getMixedOffsets();
  auto sizeO = so.getStaticSizes(), sizeI = si.getStaticSizes();
  auto strideO = so.getStaticStrides(), strideI = si.getStaticStrides();
  for (size_t d = 0; d < offO.size() && d < offI.size(); ++d) {
    if (strideO[d] != 1 || strideI[d] != 1 || ShapedType::isDynamic(sizeO[d]) ||
        ShapedType::isDynamic(sizeI[d]))
      continue;
    std::optional<int64_t> a = foldAt(offO[d], iv, at),
                           b = foldAt(offI[d], iv, at);
    if (a && b && (*b >= *a + sizeO[d] || *a >= *b + sizeI[d]))
      return false;
  }
  return true;
}

} // namespace

std::string accel::detail::pipeline::findCarriedChains(
    scf::ForOp loop, SmallVectorImpl<CarriedChain> &chains) {
  std::optional<int64_t> trips = tripCount(loop);
  if (!trips)
    return "its bounds are not constant";
  Block *body = loop.getBody();
  auto yield = cast<scf::YieldOp>(body->getTerminator());
  unsigned numArgs = loop.getNumRegionIterArgs();
  for (Operation &op : body->without_terminator()) {
    auto wait = dyn_cast<DmaWaitOp>(&op);
    auto arg = wait ? dyn_cast<BlockArgument>(wait.getToken()) : nullptr;
    if (!arg || arg.getOwner() != body || arg.getArgNumber() == 0)
      continue;
    CarriedChain c;
    c.wait = wait;
    // t_0 <- t_1 <- ... <- t_{d-1} <- the ISSUE: each iter_arg yielded
    // the next one, the last one the ISSUE's token.
    unsigned index = arg.getArgNumber() - 1;
    if (!arg.hasOneUse())
      return "the token its WAIT ends is used again";
    while (true) {
      if (c.args.size() > numArgs || llvm::is_contained(c.args, index))
        return "its carried tokens do not form a chain";
      c.args.push_back(index);
      Value next = yield.getOperand(index);
      if (auto issue = next.getDefiningOp<DmaStartOp>()) {
        if (issue->getBlock() != body || !issue->hasOneUse())
          return "a carried DMA's token has other uses";
        c.issue = issue;
        break;
      }
      auto nextArg = dyn_cast<BlockArgument>(next);
      if (!nextArg || nextArg.getOwner() != body ||
          nextArg.getArgNumber() == 0 || !nextArg.hasOneUse())
        return "its carried tokens do not form a chain";
      index = nextArg.getArgNumber() - 1;
    }
    int64_t d = c.args.size();
    if (*trips < d)
      return "it runs fewer iterations than its prefetch distance";
    if (c.issue->getNumOperands() != 2)
      return "a carried DMA signals a semaphore or is remote";
    for (unsigned k = 0; k < d; ++k) {
      unsigned i = c.args[k];
      auto p = loop.getInitArgs()[i].getDefiningOp<DmaStartOp>();
      if (!p || p->getBlock() != loop->getBlock() ||
          !p->isBeforeInBlock(loop) || !p->hasOneUse() ||
          p->getNumOperands() != 2)
        return "a carried token's initial value is not a DMA issued just "
               "for it before the loop";
      c.prologue.push_back(p);
      Value result = loop.getResult(i);
      auto w = result.hasOneUse()
                   ? dyn_cast<DmaWaitOp>(*result.getUsers().begin())
                   : DmaWaitOp();
      if (!w || w->getBlock() != loop->getBlock())
        return "a carried token is not waited for once after the loop";
      c.epilogue.push_back(w);
    }
    chains.push_back(std::move(c));
  }
  return chains.empty() ? "it carries no DMA to a later iteration" : "";
}

/// The shape checkCarriedChain asks of chain `c` of `loop` (lower bound
/// `lb`, `step`): the ISSUE's operands computable where the WAIT is, and
/// after the loop (from the induction variable and values from before the
/// loop); the prologue's DMAs the loop's DMA of iterations -d .. -1.
/// Returns "" or why not.
static std::string checkChainShape(scf::ForOp loop, CarriedChain &c, int64_t lb,
                                   int64_t step) {
  int64_t d = c.args.size();
  llvm::SetVector<Operation *> slice;
  for (Value v : c.issue->getOperands())
    if (!collectSlice(v, loop, slice))
      return "a carried DMA's operands are not address math of the "
             "induction variable";
  for (auto [k, p] : llvm::enumerate(c.prologue)) {
    int64_t at = lb + (int64_t(k) - d) * step;
    if (!sameTile(p.getSrc(), c.issue.getSrc(), loop, at) ||
        !sameTile(p.getDst(), c.issue.getDst(), loop, at))
      return "the DMA issued before the loop for iteration " +
             std::to_string(k) + " is not the loop's DMA of " +
             std::to_string(int64_t(k) - d);
  }
  return "";
}

/// Issuing chain `c`'s DMA where it is waited for shortens its window:
/// every op of `loop` the window loses must be independent of the DMA:
/// the ops after the ISSUE (distance 0), whole iterations (1 .. d - 1) and
/// the ops before the WAIT (d). Returns "" or the dependence.
static std::string checkLoopWindow(scf::ForOp loop, CarriedChain &c) {
  int64_t d = c.args.size();
  MemoryAccess src(c.issue, c.issue.getSrc(), false);
  MemoryAccess dst(c.issue, c.issue.getDst(), true);
  for (Operation &x : loop.getBody()->without_terminator()) {
    SmallVector<MemoryAccess> accesses;
    if (Operation *unknown = collectAccesses(&x, accesses))
      return "an op with unknown memory effects in the loop ('" +
             unknown->getName().getStringRef().str() + "')";
    bool afterIssue = c.issue->isBeforeInBlock(&x);
    bool beforeWait = x.isBeforeInBlock(c.wait);
    for (const MemoryAccess &a : accesses)
      for (const MemoryAccess *mine : {&src, &dst}) {
        if (&x != c.issue.getOperation() && afterIssue && mayConflict(*mine, a))
          return "the DMA's window holds a dependence in its iteration (" +
                 Dependence{*mine, a, 0}.describe() + ")";
        for (int64_t delta = 1; delta <= d; ++delta) {
          if (delta == d && !beforeWait)
            continue;
          if (mayConflictAcross(*mine, a, loop, delta))
            return "the DMA's window holds a dependence (" +
                   Dependence{*mine, a, delta}.describe() + ")";
        }
      }
  }
  return "";
}

/// The windows of chain `c`'s prologue DMAs (the k-th for iteration
/// k - d) that the rewrite removes: the ops after each ISSUE before
/// `loop`, and the loop's iterations before its WAIT (evaluated one by
/// one, lower bound `lb`, `step`). Returns "" or the dependence.
static std::string checkPrologueWindows(scf::ForOp loop, CarriedChain &c,
                                        int64_t lb, int64_t step) {
  Block *body = loop.getBody();
  for (auto [k, p] : llvm::enumerate(c.prologue)) {
    MemoryAccess psrc(p, p.getSrc(), false), pdst(p, p.getDst(), true);
    for (Operation *x = p->getNextNode(); x != loop.getOperation();
         x = x->getNextNode()) {
      SmallVector<MemoryAccess> accesses;
      if (collectAccesses(x, accesses))
        return "an op with unknown memory effects before the loop";
      for (const MemoryAccess &a : accesses)
        if (mayConflict(psrc, a) || mayConflict(pdst, a))
          return "a DMA issued before the loop has a dependence in its "
                 "window (" +
                 Dependence{mayConflict(psrc, a) ? psrc : pdst, a, 0}
                     .describe() +
                 ")";
    }
    for (int64_t j = 0; j <= int64_t(k); ++j) {
      int64_t at = lb + j * step;
      for (Operation &x : body->without_terminator()) {
        if (j == int64_t(k) && !x.isBeforeInBlock(c.wait))
          break;
        SmallVector<MemoryAccess> accesses;
        (void)collectAccesses(&x, accesses);
        for (const MemoryAccess &a : accesses)
          if (mayConflictAt(psrc, a, loop, at) ||
              mayConflictAt(pdst, a, loop, at))
            return "a DMA issued before the loop has a dependence in "
                   "iteration " +
                   std::to_string(j) + " (" + a.describe() + ")";
      }
    }
  }
  return "";
}

/// The epilogue's windows of chain `c`: the DMAs of iterations
/// trips - d .. trips - 1 are issued right after `loop` instead (lower
/// bound `lb`, `step`); the ops between the loop and each one's WAIT must
/// not depend on it. Returns "" or the dependence.
static std::string checkEpilogueWindows(scf::ForOp loop, CarriedChain &c,
                                        int64_t lb, int64_t step) {
  int64_t d = c.args.size();
  MemoryAccess src(c.issue, c.issue.getSrc(), false);
  MemoryAccess dst(c.issue, c.issue.getDst(), true);
  int64_t trips = *tripCount(loop);
  for (auto [k, w] : llvm::enumerate(c.epilogue)) {
    int64_t at = lb + (trips - d + int64_t(k)) * step;
    for (Operation *x = loop->getNextNode(); x && x != w.getOperation();
         x = x->getNextNode()) {
      SmallVector<MemoryAccess> accesses;
      if (collectAccesses(x, accesses))
        return "an op with unknown memory effects after the loop";
      for (const MemoryAccess &a : accesses)
        if (mayConflictAt(a, src, loop, at) || mayConflictAt(a, dst, loop, at))
          return "the DMA of iteration " + std::to_string(trips - d + k) +
                 " has a dependence after the loop, before its WAIT (" +
                 a.describe() + ")";
    }
  }
  return "";
}

std::string accel::detail::pipeline::checkCarriedChain(scf::ForOp loop,
                                                       CarriedChain c) {
  int64_t lb = *getConstantIntValue(loop.getLowerBound());
  int64_t step = *getConstantIntValue(loop.getStep());
  std::string why = checkChainShape(loop, c, lb, step);
  if (why.empty())
    why = checkLoopWindow(loop, c);
  if (why.empty())
    why = checkPrologueWindows(loop, c, lb, step);
  if (why.empty())
    why = checkEpilogueWindows(loop, c, lb, step);
  return why;
}

/// Issues after `loop` (lower bound `lb`, `step`, `trips` trips) the DMAs
/// of chain `c` for iterations trips - d .. trips - 1, each with its
/// operands' address math `slice` cloned for that iteration and without
/// the ISSUE's accel attributes; the epilogue's WAITs wait for them.
static void issueAfterLoop(scf::ForOp loop, CarriedChain &c,
                           const llvm::SetVector<Operation *> &slice,
                           int64_t lb, int64_t step, int64_t trips) {
  Value iv = loop.getInductionVar();
  int64_t d = c.args.size();
  OpBuilder after(loop->getContext());
  after.setInsertionPointAfter(loop);
  for (int64_t k = 0; k < d; ++k) {
    IRMapping map;
    map.map(iv, arith::ConstantIndexOp::create(after, loop.getLoc(),
                                               lb + (trips - d + k) * step)
                    .getResult());
    for (Operation *op : slice)
      after.clone(*op, map);
    Operation *issue = after.clone(*c.issue, map);
    for (NamedAttribute attr : c.issue->getAttrs())
      if (attr.getName().strref().starts_with("accel."))
        issue->removeAttr(attr.getName());
    c.epilogue[k].getTokenMutable().assign(issue->getResult(0));
  }
}

/// Moves chain `c`'s ISSUE to its WAIT in `loop`, its operands those of
/// the iteration d earlier (i - d * `step`: `slice` cloned there), and
/// the WAIT waits for it.
static void moveIssueToWait(scf::ForOp loop, CarriedChain &c,
                            const llvm::SetVector<Operation *> &slice,
                            int64_t step) {
  Value iv = loop.getInductionVar();
  int64_t d = c.args.size();
  OpBuilder in(c.wait);
  IRMapping map;
  map.map(iv, arith::AddIOp::create(
                  in, loop.getLoc(), iv,
                  arith::ConstantIndexOp::create(in, loop.getLoc(), -d * step))
                  .getResult());
  for (Operation *op : slice)
    in.clone(*op, map);
  c.issue->moveBefore(c.wait);
  for (OpOperand &operand : c.issue->getOpOperands())
    operand.set(map.lookupOrDefault(operand.get()));
  c.wait.getTokenMutable().assign(c.issue.getToken());
}

/// Waited for where it is issued, DMA `issue` would stall for its whole
/// latency (accel.dma_cycles, measured: T_b plus transfer, SnR Fig. 4) in
/// every execution; the stalls the profile shows are those of the
/// programmer's distance d. Sets accel.stall_base and
/// accel.stall_transfer (cycles, over all executions) to that, for the
/// pipeliner to choose its distance from.
static void setPlainStalls(DmaStartOp issue) {
  int64_t ex = getMetric(issue, "accel.executions");
  int64_t latency = getMetric(issue, "accel.dma_cycles");
  int64_t transfer =
      std::min(latency, getMetric(issue, "accel.transfer_cycles"));
  if (ex > 0 && latency > 0) {
    Builder attrs(issue->getContext());
    issue->setAttr("accel.stall_base",
                   attrs.getI64IntegerAttr(ex * (latency - transfer)));
    issue->setAttr("accel.stall_transfer",
                   attrs.getI64IntegerAttr(ex * transfer));
  }
}

/// Erases the ops of `dead` (the last first) that are unused, and then
/// the pure ops they used that become unused.
static void eraseUnused(SmallVector<Operation *> &dead) {
  llvm::SmallPtrSet<Operation *, 16> erased;
  while (!dead.empty()) {
    Operation *op = dead.pop_back_val();
    if (erased.contains(op) || !op->use_empty())
      continue;
    llvm::SmallSetVector<Operation *, 4> defs;
    for (Value v : op->getOperands())
      if (Operation *def = v.getDefiningOp(); def && isPureOp(def))
        defs.insert(def);
    erased.insert(op);
    op->erase();
    for (Operation *def : defs)
      if (!erased.contains(def) && def->use_empty())
        dead.push_back(def);
  }
}

scf::ForOp
accel::detail::pipeline::depipelineCarried(scf::ForOp loop,
                                           ArrayRef<CarriedChain> chains) {
  int64_t lb = *getConstantIntValue(loop.getLowerBound());
  int64_t step = *getConstantIntValue(loop.getStep());
  int64_t trips = *tripCount(loop);
  auto yield = cast<scf::YieldOp>(loop.getBody()->getTerminator());
  SmallVector<Operation *> dead;
  for (CarriedChain c : chains) {
    llvm::SetVector<Operation *> slice;
    for (Value v : c.issue->getOperands())
      (void)collectSlice(v, loop, slice);
    issueAfterLoop(loop, c, slice, lb, step, trips);
    moveIssueToWait(loop, c, slice, step);
    setPlainStalls(c.issue);
    for (unsigned i : c.args)
      yield->setOperand(i, loop.getRegionIterArg(i));
    for (Operation *op : llvm::reverse(slice))
      dead.push_back(op);
    for (DmaStartOp p : c.prologue)
      dead.push_back(p);
  }
  scf::ForOp result = dropInvariantIterArgs(loop);
  // The ISSUEs' old operands and the prologue's DMAs (and their address
  // math), now unused.
  eraseUnused(dead);
  return result;
}
