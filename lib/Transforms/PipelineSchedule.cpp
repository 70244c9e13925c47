//===- PipelineSchedule.cpp - The schedule of accel-pipeline-dma ----------===//
//
// A candidate loop's body as the schedule sees it (accesses, dependences,
// DMA metrics) and the schedule: a stage per op and the copies of each
// buffer whose lifetime it stretches over several stages. The method and
// its legality rules are in PipelineDma.cpp's header.
//
//===----------------------------------------------------------------------===//

#include "PipelineSchedule.h"

using namespace mlir;
using namespace accel;
using namespace accel::detail;

namespace accel::detail::pipeline {

std::optional<int64_t> tripCount(scf::ForOp loop) {
  auto lb = getConstantIntValue(loop.getLowerBound());
  auto ub = getConstantIntValue(loop.getUpperBound());
  auto step = getConstantIntValue(loop.getStep());
  if (!lb || !ub || !step || *step <= 0)
    return std::nullopt;
  return *ub > *lb ? (*ub - *lb + *step - 1) / *step : 0;
}

bool isPureOp(Operation *op) {
  return op->getNumRegions() == 0 && !isa<DmaWaitOp>(op) &&
         isMemoryEffectFree(op);
}

Operation *holderIn(Block *body, Operation *op) {
  while (op && op->getBlock() != body)
    op = op->getParentOp();
  return op;
}

/// The stages edge kind `kind` spans under plan `p`.
static int64_t weight(const Plan &p, unsigned kind) {
  return kind == 1 ? p.d : kind == 2 ? p.ds : kind == 3 ? p.dc : 0;
}

Unit unitOf(Operation *op) {
  if (isa<MatmulOp>(op))
    return Unit::Mxu;
  if (isa<AccelDialect>(op->getDialect()) &&
      !isa<AllocOp, DmaStartOp, DmaWaitOp, LoadOp>(op))
    return Unit::Vpu;
  return Unit::None;
}

/// Whether some read of `readers` may see a write of `writers` (a flow
/// dependence).
static bool readsWhatWrites(ArrayRef<MemoryAccess> readers,
                            ArrayRef<MemoryAccess> writers) {
  for (const MemoryAccess &r : readers)
    for (const MemoryAccess &w : writers)
      if (!r.write && w.write && mayConflict(w, r))
        return true;
  return false;
}

/// The allocations `root` may stand for, together with every allocation
/// a nested loop of the body rotates with them through its iter_args
/// (the rotating buffers of an inner loop pipelined earlier): one group
/// gets copies together. Empty when a chain reaches an unknown buffer.
static llvm::SmallSetVector<Value, 4> bufferGroup(const Body &b, Value root) {
  llvm::SmallPtrSet<Value, 8> buffers;
  llvm::SmallSetVector<Value, 4> group;
  if (!collectBuffers(root, buffers))
    return group;
  group.insert(buffers.begin(), buffers.end());
  for (bool grew = true; grew;) {
    grew = false;
    for (const SmallVector<MemoryAccess> &list : b.accesses)
      for (const MemoryAccess &a : list) {
        if (a.root.getDefiningOp<AllocOp>() || group.contains(a.root))
          continue;
        llvm::SmallPtrSet<Value, 8> other;
        if (!collectBuffers(a.root, other))
          continue; // an unknown root aliases everything: refused later
        if (llvm::none_of(other, [&](Value v) { return group.contains(v); }))
          continue;
        for (Value v : other)
          grew |= group.insert(v);
      }
  }
  return group;
}

/// Marks MemoryAccess::once: the destination writes that the WAITs of a DMA
/// issued before the loop stand for, when only top-level WAITs of the
/// body use its token there and no other access of the body writes its
/// source or destination.
static void markCopiesBeforeTheLoop(Body &b) {
  llvm::SetVector<DmaStartOp> dmas;
  for (Operation *op : b.ops)
    if (auto wait = dyn_cast<DmaWaitOp>(op))
      if (auto dma = wait.getToken().getDefiningOp<DmaStartOp>();
          dma && !b.loop->isAncestor(dma))
        dmas.insert(dma);
  for (DmaStartOp dma : dmas) {
    llvm::SmallSetVector<unsigned, 4> waits;
    bool ok = true;
    for (Operation *user : dma.getToken().getUsers()) {
      if (!b.loop->isAncestor(user))
        continue;
      ok &= isa<DmaWaitOp>(user) && user->getBlock() == b.loop.getBody();
      if (ok)
        waits.insert(b.index.lookup(user));
    }
    Value src = getRoot(dma.getSrc()), dst = getRoot(dma.getDst());
    for (auto [j, list] : llvm::enumerate(b.accesses))
      for (const MemoryAccess &a : list)
        if (a.write && (mayAlias(a.root, src) || mayAlias(a.root, dst)) &&
            !(waits.contains(j) && a.view == dma.getDst()))
          ok = false;
    if (!ok)
      continue;
    for (unsigned j : waits)
      for (MemoryAccess &a : b.accesses[j])
        if (a.write && a.view == dma.getDst())
          a.once = true;
  }
}

/// Fills the top-level ops of `loop`'s body into `b` (ops, index) and the
/// accesses of each; returns the refusal reason or "".
static std::string collectOps(scf::ForOp loop, Body &b) {
  b.loop = loop;
  Block *body = loop.getBody();
  for (Operation &op : body->without_terminator()) {
    b.index[&op] = b.ops.size();
    b.ops.push_back(&op);
  }
  b.accesses.resize(b.ops.size());
  for (auto [i, op] : llvm::enumerate(b.ops))
    if (Operation *unknown = collectAccesses(op, b.accesses[i]))
      return "an op with unknown memory effects in the loop ('" +
             unknown->getName().getStringRef().str() + "')";
  return "";
}

/// A WAIT `w` at the top level of `b`'s body on a token carried in the
/// loop's iter_arg `arg` (a hand-pipelined ring): its window ends here for
/// every DMA the token may come from, before the loop or issued at the top
/// level of an earlier iteration. Those issued in the body name their
/// buffers in another iteration's terms, so the WAIT stands for their
/// whole buffers. Adds those accesses to `w`; returns the refusal reason
/// or "".
static std::string addCarriedWaitAccesses(Body &b, DmaWaitOp w,
                                          BlockArgument arg) {
  scf::ForOp loop = b.loop;
  Block *body = loop.getBody();
  SmallVector<DmaStartOp> sources;
  bool known = forEachCarriedSource(arg, [&](Value v) {
    auto d = v.getDefiningOp<DmaStartOp>();
    if (!d || (loop->isAncestor(d) && d->getBlock() != body))
      return false;
    sources.push_back(d);
    return true;
  });
  if (!known)
    return "a WAIT on a DMA carried in from an earlier iteration "
           "that is not issued at the top level of the body";
  unsigned h = b.index.lookup(w);
  for (DmaStartOp d : sources) {
    bool inBody = loop->isAncestor(d);
    b.accesses[h].emplace_back(w, inBody ? getRoot(d.getSrc()) : d.getSrc(),
                               false);
    b.accesses[h].emplace_back(w, inBody ? getRoot(d.getDst()) : d.getDst(),
                               true);
  }
  return "";
}

/// The accesses a WAIT `w` in `b`'s body ends the window of, when it
/// waits on a DMA of another iteration or issued before the loop (a DMA
/// of this iteration is handled by addDmaWindows): added to its top-level
/// op. Follows the token out of nested loops' iter_args. Returns the
/// refusal reason or "".
static std::string addWaitAccesses(Body &b, DmaWaitOp w) {
  scf::ForOp loop = b.loop;
  Block *body = loop.getBody();
  Value t = w.getToken();
  while (auto arg = dyn_cast<BlockArgument>(t)) {
    auto inner = dyn_cast<scf::ForOp>(arg.getOwner()->getParentOp());
    if (inner == loop && arg.getArgNumber() > 0 && w->getBlock() == body)
      return addCarriedWaitAccesses(b, w, arg);
    if (!inner || inner == loop || arg.getArgNumber() == 0)
      return "a WAIT on a DMA carried in from an earlier iteration";
    t = inner.getInitArgs()[arg.getArgNumber() - 1];
  }
  if (!loop->isAncestor(t.getDefiningOp())) {
    // A DMA issued before the loop: its window ends at this WAIT's
    // top-level op, which orders the accesses of the buffers after it
    // (the cross-iteration check keeps every stage of later iterations
    // behind it).
    auto dma = t.getDefiningOp<DmaStartOp>();
    if (!dma)
      return "a WAIT on a token that is not a DMA's";
    unsigned h = b.index.lookup(holderIn(body, w));
    b.accesses[h].emplace_back(w, dma.getSrc(), false);
    b.accesses[h].emplace_back(w, dma.getDst(), true);
  }
  return "";
}

/// SSA dependences between the top-level ops of `b` (kind 0), but from a
/// DMA ISSUE (its token: addDmaWindows).
static void addSsaEdges(Body &b) {
  Block *body = b.loop.getBody();
  for (auto [j, op] : llvm::enumerate(b.ops)) {
    op->walk([&](Operation *nested) {
      for (Value v : nested->getOperands()) {
        Operation *def = v.getDefiningOp();
        if (!def || def->getBlock() != body || def == op ||
            isa<DmaStartOp>(def))
          continue;
        b.edges.push_back({b.index.lookup(def), unsigned(j), 0});
      }
    });
  }
}

/// Adds the metrics of `dma` (a `store` into HBM or a load) to `b`: its
/// stall per execution (base + transfer, SnR Fig. 4) to the load or store
/// latency, its transfer per execution to the transfer, in cycles.
static void addDmaMetrics(Body &b, DmaStartOp dma, bool store) {
  int64_t ex = getMetric(dma, "accel.executions");
  if (getStallCycles(dma) > 0)
    b.hasStall = true;
  if (ex > 0) {
    int64_t stall = getStallCycles(dma) / ex;
    (store ? b.storeLatency : b.loadLatency) =
        std::max(store ? b.storeLatency : b.loadLatency, stall);
    b.transfer += getMetric(dma, "accel.stall_transfer") / ex;
  }
}

/// Each top-level DMA's window: an edge (kind 1 into VMEM, 2 into HBM)
/// from its ISSUE to every top-level op using its token, which gets the
/// DMA's accesses; and the DMA's metrics. Returns the refusal reason or
/// "".
static std::string addDmaWindows(Body &b) {
  Block *body = b.loop.getBody();
  for (auto [i, op] : llvm::enumerate(b.ops)) {
    auto dma = dyn_cast<DmaStartOp>(op);
    if (!dma)
      continue;
    Value token = dma.getToken();
    if (token.use_empty())
      return "a DMA is never waited for";
    auto dst = getTileShape(dma.getDst().getType(), nullptr, true);
    bool store = succeeded(dst) && dst->space == MemorySpace::HBM;
    llvm::SmallSetVector<unsigned, 2> users;
    for (Operation *user : token.getUsers()) {
      Operation *h = holderIn(body, user);
      if (!h)
        return "a DMA's token is used outside the loop";
      if (isa<scf::YieldOp>(h)) {
        // Carried to a later iteration, whose WAIT on the iter_arg ends
        // the window (addWaitAccesses); nothing of this iteration waits
        // for it.
        if (user != h)
          return "a DMA's token is carried to the next iteration";
        continue;
      }
      users.insert(b.index.lookup(h));
    }
    for (unsigned j : users) {
      b.edges.push_back({unsigned(i), j, store ? 2u : 1u});
      b.accesses[j].emplace_back(b.ops[j], dma.getSrc(), false);
      b.accesses[j].emplace_back(b.ops[j], dma.getDst(), true);
    }
    addDmaMetrics(b, dma, store);
  }
  return "";
}

/// Memory dependences within an iteration of `b`; a unit op's result
/// read by another unit or a DMA ISSUE is kind 3, the others kind 0.
static void addMemoryEdges(Body &b) {
  for (unsigned j = 0; j < b.ops.size(); ++j)
    for (unsigned i = 0; i < j; ++i)
      if (findDependence(b.accesses[i], b.accesses[j])) {
        Unit ui = unitOf(b.ops[i]), uj = unitOf(b.ops[j]);
        bool crossUnit = ui != Unit::None && ui != uj &&
                         (uj != Unit::None || isa<DmaStartOp>(b.ops[j])) &&
                         readsWhatWrites(b.accesses[j], b.accesses[i]);
        b.edges.push_back({i, j, crossUnit ? 3u : 0u});
      }
}

std::string collectBody(scf::ForOp loop, Body &b) {
  std::string why = collectOps(loop, b);
  if (!why.empty())
    return why;
  // WAITs: on a DMA of this iteration.
  WalkResult r = loop.getBody()->walk([&](DmaWaitOp w) {
    why = addWaitAccesses(b, w);
    return why.empty() ? WalkResult::advance() : WalkResult::interrupt();
  });
  if (r.wasInterrupted())
    return why;
  // SSA dependences, and each top-level DMA's window: from its ISSUE to
  // every top-level op using its token.
  addSsaEdges(b);
  why = addDmaWindows(b);
  if (!why.empty())
    return why;
  markCopiesBeforeTheLoop(b);
  addMemoryEdges(b);
  return "";
}

/// Each op of `b` at the earliest stage its dependences allow under the
/// distances of `p`; then every op but an ISSUE as late as its successors
/// allow (compute next to the WAIT it needs, not a stage early with a
/// buffer more; pure ops at the first stage using them, copied for later
/// ones). Fills p.stage and p.maxStage.
static void assignStages(const Body &b, Plan &p) {
  unsigned n = b.ops.size();
  SmallVector<SmallVector<std::pair<unsigned, unsigned>>> preds(n);
  for (const Body::Edge &e : b.edges)
    preds[e.to].push_back({e.from, e.kind});
  for (unsigned j = 0; j < n; ++j)
    for (auto [i, kind] : preds[j])
      p.stage[j] = std::max<unsigned>(p.stage[j], p.stage[i] + weight(p, kind));
  SmallVector<SmallVector<std::pair<unsigned, unsigned>>> succs(n);
  for (const Body::Edge &e : b.edges)
    succs[e.from].push_back({e.to, e.kind});
  for (unsigned x = n; x-- > 0;) {
    if (isa<DmaStartOp>(b.ops[x]) || succs[x].empty())
      continue;
    unsigned latest = UINT_MAX;
    for (auto [y, kind] : succs[x])
      latest = std::min<unsigned>(latest, p.stage[y] - weight(p, kind));
    p.stage[x] = latest;
  }
  p.maxStage = 0;
  for (unsigned s : p.stage)
    p.maxStage = std::max(p.maxStage, s);
}

/// Whether the stages of `p` make a pipeline of `b` for `trips` trips: a
/// DMA waited for in a later stage, fewer stages than trips, and each
/// iter_arg computed and used in one stage (upstream's loop-carried values
/// of distance 1). Returns the refusal reason or "".
static std::string checkStages(const Body &b, const Plan &p, int64_t trips) {
  if (p.maxStage == 0)
    return "no DMA of the body is waited for in a later stage";
  if (int64_t(p.maxStage) >= trips)
    return "the trip count (" + std::to_string(trips) +
           ") is not larger than the last stage (" +
           std::to_string(p.maxStage) + ")";
  scf::ForOp loop = b.loop;
  Block *body = loop.getBody();
  auto yield = cast<scf::YieldOp>(body->getTerminator());
  for (auto [arg, next] :
       llvm::zip(loop.getRegionIterArgs(), yield.getOperands())) {
    Operation *def = next.getDefiningOp();
    if (!def || def->getBlock() != body)
      return "an iter_arg is not computed in the loop body";
    unsigned sd = p.stage[b.index.lookup(def)];
    for (Operation *user : arg.getUsers()) {
      Operation *h = holderIn(body, user);
      if (h && !isa<scf::YieldOp>(h) && p.stage[b.index.lookup(h)] != sd)
        return "an iter_arg is used in another stage than it is computed "
               "in";
    }
  }
  return "";
}

/// Per op of the body: its position in the kernel's order, (stage, body
/// position).
static SmallVector<unsigned> kernelPositions(const Plan &p) {
  unsigned n = p.stage.size();
  SmallVector<unsigned> pos(n);
  SmallVector<unsigned> order(n);
  for (unsigned i = 0; i < n; ++i)
    order[i] = i;
  llvm::stable_sort(
      order, [&](unsigned x, unsigned y) { return p.stage[x] < p.stage[y]; });
  for (unsigned i = 0; i < n; ++i)
    pos[order[i]] = i;
  return pos;
}

namespace {
/// What the copies of private buffers are decided from (addCopies).
struct CopyContext {
  const Body &b;
  /// The loop being replaced (isPrivate follows the paths after it).
  scf::ForOp outside;
  /// The function's values in program order (buffer groups sorted by it).
  const llvm::DenseMap<Value, unsigned> &valueOrder;
  /// Per buffer: whether its group is private (isPrivate, asked once).
  llvm::DenseMap<Value, bool> privacy{};
};
} // namespace

/// The buffers of accesses `a` and `c` (bufferGroup of each), in program
/// order (the sets are ordered by pointer values), so that the copies, and
/// the kernel's iter_args, come out the same on every run.
static SmallVector<Value> orderedGroup(const CopyContext &cx,
                                       const MemoryAccess &a,
                                       const MemoryAccess &c) {
  llvm::SmallSetVector<Value, 4> set = bufferGroup(cx.b, a.root);
  for (Value v : bufferGroup(cx.b, c.root))
    set.insert(v);
  SmallVector<Value> group(set.begin(), set.end());
  llvm::sort(group, [&](Value x, Value y) {
    return cx.valueOrder.lookup(x) < cx.valueOrder.lookup(y);
  });
  return group;
}

/// Access `a` of iteration k and `c` of iteration k + m, for m in
/// [1, mAsync] (the kernel reorders those up to `mmax`; the others only
/// ask for the optional copy of asyncCopies): when they may conflict,
/// their buffers' group must be private and gets copies enough in `p`
/// (the largest conflicting distance plus one). Returns the refusal
/// reason or "".
static std::string copiesForPair(CopyContext &cx, const MemoryAccess &a,
                                 const MemoryAccess &c, int64_t mmax,
                                 int64_t mAsync, Plan &p) {
  if (!(a.write || c.write) || !mayAlias(a.root, c.root))
    return ""; // never a dependence, at any distance
  // A copy made once before the loop, against a read or itself: no
  // iteration but the first changes the bytes.
  if ((a.write ? a.once : true) && (c.write ? c.once : true))
    return "";
  // The largest distance that conflicts, and the largest within
  // [1, mmax]: the pairs the kernel reorders (the others only ask for
  // the optional copy).
  int64_t need = 0, needReordered = 0;
  for (int64_t m = 1; m <= mAsync; ++m)
    if (mayConflictAcross(a, c, cx.b.loop, m)) {
      need = m;
      if (m <= mmax)
        needReordered = m;
    }
  if (need == 0)
    return "";
  SmallVector<Value> group = orderedGroup(cx, a, c);
  bool isPriv = false;
  if (!group.empty()) { // empty: a chain to an unknown buffer
    auto known = cx.privacy.find(group[0]);
    isPriv = known != cx.privacy.end() ? known->second
                                       : isPrivate(cx.b, group, cx.outside);
  }
  for (Value v : group)
    cx.privacy[v] = isPriv;
  if (!isPriv) {
    if (needReordered == 0)
      return ""; // only the optional copy
    return "a buffer that is not private to an iteration is "
           "accessed in two stages (" +
           Dependence{a, c, needReordered}.describe() + ")";
  }
  for (Value v : group) {
    unsigned &copies = p.copies[v];
    copies = std::max<unsigned>(std::max(copies, 1u), std::max(mmax, need) + 1);
  }
  return "";
}

/// The copies of the private buffers of `p` (stages set): for accesses of
/// iteration k (op x) and k + m (op y) that the kernel would reorder, m in
/// [1, mmax]. With `asyncCopies`, an MXU or VPU op x in a later stage
/// than y also counts as running on past the op after it (the unit works
/// after the core issued it: y of the next kernel iteration would wait
/// for it, a data hazard), which a private buffer avoids with one more
/// copy. Returns the refusal reason or "".
static std::string addCopies(CopyContext &cx, bool asyncCopies, Plan &p) {
  const Body &b = cx.b;
  unsigned n = b.ops.size();
  SmallVector<unsigned> pos = kernelPositions(p);
  for (unsigned x = 0; x < n; ++x)
    for (unsigned y = 0; y < n; ++y) {
      int64_t mmax =
          int64_t(p.stage[x]) - int64_t(p.stage[y]) - (pos[x] < pos[y] ? 1 : 0);
      int64_t mAsync =
          asyncCopies && mmax >= 1 && unitOf(b.ops[x]) != Unit::None ? mmax + 1
                                                                     : mmax;
      if (mAsync < 1)
        continue;
      for (const MemoryAccess &a : b.accesses[x])
        for (const MemoryAccess &c : b.accesses[y])
          if (std::string why = copiesForPair(cx, a, c, mmax, mAsync, p);
              !why.empty())
            return why;
    }
  return "";
}

/// An estimate of the scalar registers the pipeline of `b` under `p`
/// needs: the kernel carries a value in one register per stage it
/// crosses, and each buffer copy takes two (its address, set at function
/// entry, and its rotating iter_arg), on top of `baseRegs` (what is live
/// around the loop).
static int64_t estimateRegisters(const Body &b, const Plan &p,
                                 int64_t baseRegs) {
  scf::ForOp loop = b.loop;
  Block *body = loop.getBody();
  int64_t regs = baseRegs;
  for (unsigned x = 0; x < b.ops.size(); ++x) {
    if (isPureOp(b.ops[x]))
      continue; // copied into each stage that uses it
    for (Value v : b.ops[x]->getResults()) {
      unsigned last = p.stage[x];
      for (Operation *user : v.getUsers())
        if (Operation *h = holderIn(body, user); h && !isa<scf::YieldOp>(h))
          last = std::max(last, p.stage[b.index.lookup(h)]);
      regs += last - p.stage[x];
    }
  }
  for (auto [root, copies] : p.copies)
    regs += 2 * copies;
  return regs;
}

std::string schedule(Body &b, scf::ForOp outside, const ScheduleLimits &limits,
                     const llvm::DenseMap<Value, unsigned> &valueOrder,
                     bool asyncCopies, Plan &p) {
  p.stage.assign(b.ops.size(), 0);
  p.copies.clear();
  p.extraBytes = 0;
  assignStages(b, p);
  if (std::string why = checkStages(b, p, limits.trips); !why.empty())
    return why;
  CopyContext cx{b, outside, valueOrder};
  if (std::string why = addCopies(cx, asyncCopies, p); !why.empty())
    return why;
  p.extraBytes = extraBytesOf(p, limits.vmemPage);
  // A first filter (the lowering check in pipelineChecked decides): the
  // estimate alone must fit the registers.
  int64_t regs = estimateRegisters(b, p, limits.baseRegs);
  if (regs > kScalarRegs)
    return "the schedule would need about " + std::to_string(regs) +
           " scalar registers (the ISA has " + std::to_string(kScalarRegs) +
           ")";
  if (limits.vmemBytes + p.extraBytes > limits.vmemCapacity)
    return "the extra buffers (" + std::to_string(p.extraBytes) +
           " bytes) would exceed the VMEM capacity of " +
           std::to_string(limits.vmemCapacity) + " bytes";
  return "";
}

uint64_t extraBytesOf(const Plan &p, uint64_t vmemPage) {
  uint64_t bytes = 0;
  for (auto [root, copies] : p.copies)
    bytes += uint64_t(copies - 1) *
             llvm::alignTo(
                 uint64_t(getTileShape(root.getType(), nullptr, true)->bytes()),
                 std::max<uint64_t>(vmemPage, 1));
  return bytes;
}

} // namespace accel::detail::pipeline
