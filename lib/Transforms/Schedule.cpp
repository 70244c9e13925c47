//===- Schedule.cpp - List-schedule blocks for the in-order core ----------===//
//
// The core issues in program order and blocks on a busy unit, a data hazard
// or a WAIT (docs/isa.md, "Timing"); everything behind the blocked op waits
// with it. After pipelining and unrolling, a block often holds independent
// chains (one tile's VPU ops, the next tile's address math and DMA ISSUEs)
// laid out one after another, so the core stalls behind one chain while the
// other could run. The pass reorders each block by list scheduling (the
// classic compiler technique; in the machine-model style of llvm-mca's
// in-order pipeline) on a model whose costs are the measured ones attached
// by --accel-attach-metrics. Legality is the block's dependence graph: SSA
// uses, and memory conflicts from the ops' effects (a WAIT counts as its
// DMA's accesses), with views disambiguated as in DmaMotion.h.
//
//===----------------------------------------------------------------------===//

#include "DmaMotion.h"
#include "LoweringCheck.h"
#include "accel/Support/PassOptions.h"
#include "accel/Transforms/Passes.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringMap.h"

namespace accel {
#define GEN_PASS_DEF_ACCELSCHEDULE
#include "accel/Transforms/Passes.h.inc"
} // namespace accel

using namespace mlir;
using namespace accel;
using namespace accel::detail;

namespace {

enum class UnitKind { Scalar, Mxu, Vpu };

/// One op of the block, with its model costs (cycles) and dependences.
struct Node {
  Operation *op = nullptr;
  UnitKind unit = UnitKind::Scalar;
  /// Cycles the core spends issuing it (scalar instructions it lowers to).
  int64_t issue = 1;
  /// Cycles its unit is busy (MXU/VPU), or its DMA's ISSUE-to-completion.
  int64_t latency = 0;
  bool isDma = false, isWait = false;
  /// For a WAIT: the node of its DMA in this block (-1: none).
  int dma = -1;
  SmallVector<unsigned> preds, succs;
  /// Longest cost path from this op to the end of the block.
  int64_t priority = 0;
};

/// The unit an op occupies (docs/isa.md): the MXU, the VPU, or the core.
UnitKind unitOf(Operation *op) {
  if (isa<MatmulOp>(op))
    return UnitKind::Mxu;
  if (isa<VAddOp, VSubOp, VMulOp, VDivOp, VMaxOp, VMinOp, VExpOp, VSqrtOp,
          VCopyOp, VRsqrtOp, VTanhOp, VLogOp, VLog1pOp, VErfOp, VAbsOp,
          VReduceSumOp, VReduceMaxOp, VFillOp, VTransposeOp, VCmpOp, VSelectOp,
          VIotaOp, VExpm1Op, VFloorOp, VCeilOp, VRoundEvenOp, VRoundOp,
          VCopySignOp>(op))
    return UnitKind::Vpu;
  return UnitKind::Scalar;
}

/// Per-execution busy cycles from the attached metrics (-1: none).
int64_t measuredBusy(Operation *op) {
  int64_t busy = getMetric(op, "accel.busy_cycles");
  int64_t runs = getMetric(op, "accel.executions");
  if (busy <= 0 || runs <= 0)
    return -1;
  return (busy + runs - 1) / runs;
}

/// Costs for ops the metrics do not cover (clones made by this run's
/// passes): the measured cost of an op of the same name and location (the
/// op it was cloned from), else of the same name.
class CostTable {
public:
  /// The measured costs of `root`'s ops, and the `accel.costs` table that
  /// --accel-attach-metrics put on `module` (null: none).
  CostTable(Operation *root, Operation *module) {
    // Costs by op kind and location recorded by --accel-attach-metrics,
    // for the clones of ops that carried metrics.
    if (auto costs = module
                         ? module->getAttrOfType<DictionaryAttr>("accel.costs")
                         : DictionaryAttr())
      for (NamedAttribute e : costs) {
        auto fields = dyn_cast<DictionaryAttr>(e.getValue());
        if (!fields)
          continue;
        if (auto busy = fields.getAs<IntegerAttr>("busy")) {
          byLoc[e.getName().getValue()] = busy.getInt();
          StringRef name = e.getName().getValue().split('@').first;
          auto &n = byName[name];
          n = std::max(n, busy.getInt());
        }
        if (auto dma = fields.getAs<IntegerAttr>("dma")) {
          dmaByLoc[e.getName().getValue()] = dma.getInt();
          maxDma = std::max(maxDma, dma.getInt());
        }
      }
    root->walk([&](Operation *op) {
      int64_t busy = measuredBusy(op);
      if (busy > 0) {
        byLoc[key(op)] = busy;
        auto &n = byName[op->getName().getStringRef()];
        n = std::max(n, busy);
      }
      int64_t dma = getMetric(op, "accel.dma_cycles");
      if (isa<DmaStartOp>(op) && dma > 0) {
        dmaByLoc[key(op)] = dma;
        maxDma = std::max(maxDma, dma);
      }
    });
  }

  bool empty() const { return byName.empty(); }

  int64_t busy(Operation *op) const {
    int64_t b = measuredBusy(op);
    if (b > 0)
      return b;
    if (auto it = byLoc.find(key(op)); it != byLoc.end())
      return it->second;
    if (auto it = byName.find(op->getName().getStringRef()); it != byName.end())
      return it->second;
    return 1;
  }

  int64_t dmaCycles(Operation *op) const {
    int64_t d = getMetric(op, "accel.dma_cycles");
    if (d > 0)
      return d;
    if (auto it = dmaByLoc.find(key(op)); it != dmaByLoc.end())
      return it->second;
    return maxDma;
  }

private:
  static std::string key(Operation *op) {
    std::string s;
    llvm::raw_string_ostream os(s);
    os << op->getName() << '@' << op->getLoc();
    return s;
  }
  llvm::StringMap<int64_t> byLoc, byName, dmaByLoc;
  int64_t maxDma = 0;
};

/// The list scheduler for one block.
class BlockScheduler {
public:
  BlockScheduler(Block &block, const CostTable &costs, int64_t dmaSlots)
      : block(block), costs(costs), dmaSlots(dmaSlots) {}

  /// Builds the graph; false when the block has nothing to reorder.
  bool build() {
    for (Operation &op : block)
      nodes.push_back(makeNode(&op));
    if (nodes.size() < 3)
      return false;
    for (unsigned i = 0; i < nodes.size(); ++i)
      index[nodes[i].op] = i;
    addSsaEdges();
    addMemoryEdges();
    addOrderEdges();
    computePriorities();
    return true;
  }

  /// The model's cycles for the block in the given order.
  int64_t simulate(ArrayRef<unsigned> order) const {
    State st(nodes.size());
    for (unsigned n : order)
      issue(st, n, earliest(st, n));
    return st.end;
  }

  /// The list schedule: at each step the ready op that can issue first
  /// (ties: the longest path to the end, then program order).
  SmallVector<unsigned> schedule() const {
    State st(nodes.size());
    SmallVector<unsigned> waiting(nodes.size());
    SmallVector<unsigned> ready, order;
    for (unsigned i = 0; i < nodes.size(); ++i) {
      waiting[i] = nodes[i].preds.size();
      if (!waiting[i])
        ready.push_back(i);
    }
    while (!ready.empty()) {
      unsigned bestPos = 0;
      int64_t bestTime = INT64_MAX;
      for (unsigned k = 0; k < ready.size(); ++k) {
        unsigned n = ready[k];
        int64_t t = earliest(st, n);
        unsigned b = ready[bestPos];
        if (t < bestTime ||
            (t == bestTime &&
             (nodes[n].priority > nodes[b].priority ||
              (nodes[n].priority == nodes[b].priority && n < b)))) {
          bestTime = t;
          bestPos = k;
        }
      }
      unsigned n = ready[bestPos];
      ready.erase(ready.begin() + bestPos);
      issue(st, n, bestTime);
      order.push_back(n);
      for (unsigned s : nodes[n].succs)
        if (--waiting[s] == 0)
          ready.push_back(s);
    }
    return order;
  }

  /// Reorders the block (the pass's LoweringGuard undoes it when the
  /// result does not lower).
  void apply(ArrayRef<unsigned> order) {
    for (unsigned n : order)
      nodes[n].op->moveBefore(&block, block.end());
  }

  SmallVector<unsigned> programOrder() const {
    SmallVector<unsigned> order;
    for (unsigned i = 0; i < nodes.size(); ++i)
      order.push_back(i);
    return order;
  }

private:
  struct State {
    explicit State(size_t n) : start(n, 0), done(n, 0) {}
    int64_t core = 0, end = 0, unitFree[3] = {0, 0, 0};
    SmallVector<int64_t> start, done;
    /// Completion cycles of the DMAs in flight (for the slot limit).
    SmallVector<int64_t> inFlight;
  };

  Node makeNode(Operation *op) {
    Node n;
    n.op = op;
    n.unit = unitOf(op);
    n.isDma = isa<DmaStartOp>(op);
    n.isWait = isa<DmaWaitOp>(op);
    if (n.unit == UnitKind::Scalar) {
      n.issue = isa<DmaWaitOp>(op) ? 0 : costs.busy(op);
      if ((isa<arith::ConstantOp>(op) || isLoweredView(op)) &&
          measuredBusy(op) < 0)
        n.issue = 0; // folded into the users' address math when lowered
    } else {
      n.issue = 1;
      n.latency = costs.busy(op);
    }
    if (n.isDma)
      n.latency = costs.dmaCycles(op);
    if (op->getNumRegions() != 0) {
      // A loop or branch: the measured work of its body per execution of
      // the op (once, when the op itself has no count).
      int64_t total = 0;
      op->walk([&](Operation *inner) {
        if (inner != op)
          total += getMetric(inner, "accel.busy_cycles");
      });
      n.issue = std::max<int64_t>(
          1, total / std::max<int64_t>(1, getMetric(op, "accel.executions")));
    }
    return n;
  }

  void addEdge(unsigned from, unsigned to) {
    if (from == to)
      return;
    if (llvm::is_contained(nodes[to].preds, from))
      return;
    nodes[to].preds.push_back(from);
    nodes[from].succs.push_back(to);
  }

  /// The SSA dependences (also of ops nested in a region of a block op),
  /// and each WAIT's Node::dma when its DMA is an op of this block.
  void addSsaEdges() {
    for (unsigned j = 0; j < nodes.size(); ++j) {
      nodes[j].op->walk([&](Operation *inner) {
        for (Value v : inner->getOperands()) {
          Operation *def = v.getDefiningOp();
          if (!def)
            continue;
          Operation *top = block.findAncestorOpInBlock(*def);
          if (top && top != nodes[j].op)
            addEdge(index.lookup(top), j);
        }
      });
      if (nodes[j].isWait)
        if (auto d = dyn_cast<DmaWaitOp>(nodes[j].op)
                         .getToken()
                         .getDefiningOp<DmaStartOp>())
          if (Operation *top = block.findAncestorOpInBlock(*d))
            if (top == d.getOperation())
              nodes[j].dma = index.lookup(top);
    }
  }

  /// The memory dependences: conflicting accesses keep their order; ops
  /// with unknown effects order against every op that touches memory. A
  /// WAIT stands for its DMA's accesses: it is where they are known done.
  void addMemoryEdges() {
    SmallVector<SmallVector<MemoryAccess>> accesses(nodes.size());
    SmallVector<bool> unknown(nodes.size(), false);
    for (unsigned j = 0; j < nodes.size(); ++j)
      unknown[j] = collectAccesses(nodes[j].op, accesses[j],
                                   DmaWindow::IssueAndWait) != nullptr;
    for (unsigned j = 0; j < nodes.size(); ++j) {
      bool jMem = unknown[j] || !accesses[j].empty();
      if (!jMem)
        continue;
      for (unsigned i = 0; i < j; ++i) {
        if (!unknown[i] && accesses[i].empty())
          continue;
        if (unknown[i] || unknown[j] ||
            findDependence(accesses[i], accesses[j]))
          addEdge(i, j);
      }
    }
  }

  /// The orders the machine or the model imposes: the link FIFO order of
  /// DMA ISSUEs, the terminator last, and ops with regions as fences.
  void addOrderEdges() {
    llvm::DenseMap<std::pair<int, int>, int> lastOnLink;
    for (unsigned j = 0; j < nodes.size(); ++j) {
      auto d = dyn_cast<DmaStartOp>(nodes[j].op);
      if (!d)
        continue;
      auto link = std::make_pair(
          int(getMemorySpace(d.getSrc().getType()).value_or(MemorySpace::HBM)),
          int(getMemorySpace(d.getDst().getType()).value_or(MemorySpace::HBM)));
      if (auto it = lastOnLink.find(link); it != lastOnLink.end())
        addEdge(it->second, j);
      lastOnLink[link] = j;
    }
    if (nodes.back().op->hasTrait<OpTrait::IsTerminator>())
      for (unsigned i = 0; i + 1 < nodes.size(); ++i)
        addEdge(i, nodes.size() - 1);
    // An op with regions (a loop) is a fence: the model cannot time what
    // runs inside it (its clones carry no metrics yet), so the ops before
    // it and after it are scheduled apart.
    for (unsigned r = 0; r < nodes.size(); ++r) {
      if (nodes[r].op->getNumRegions() == 0)
        continue;
      for (unsigned i = 0; i < nodes.size(); ++i)
        if (i < r)
          addEdge(i, r);
        else if (i > r)
          addEdge(r, i);
    }
  }

  /// Node::priority of every node: the longest path of costs (cycles) to
  /// the end of the block.
  void computePriorities() {
    for (int j = int(nodes.size()) - 1; j >= 0; --j) {
      Node &n = nodes[j];
      int64_t own = n.isDma
                        ? n.latency
                        : (n.unit == UnitKind::Scalar ? n.issue : n.latency);
      int64_t best = 0;
      for (unsigned s : n.succs)
        best = std::max(best, nodes[s].priority);
      n.priority = own + best;
    }
  }

  /// When node `n` could issue given the state (its operands' readiness,
  /// its unit, DMA slots, or its DMA's completion for a WAIT).
  int64_t earliest(const State &st, unsigned n) const {
    const Node &node = nodes[n];
    int64_t t = st.core;
    for (unsigned p : node.preds)
      t = std::max(t, nodes[p].isDma && !node.isWait ? st.start[p] + 1
                                                     : st.done[p]);
    if (node.unit != UnitKind::Scalar)
      t = std::max(t, st.unitFree[int(node.unit)]);
    if (node.isDma && dmaSlots > 0) {
      // docs/isa.md: while max_outstanding DMAs are outstanding at t, t
      // moves to the next completion.
      SmallVector<int64_t> after;
      for (int64_t c : st.inFlight)
        if (c > t)
          after.push_back(c);
      if (int64_t(after.size()) >= dmaSlots) {
        llvm::sort(after);
        t = after[after.size() - dmaSlots];
      }
    }
    return t;
  }

  void issue(State &st, unsigned n, int64_t t) const {
    const Node &node = nodes[n];
    st.start[n] = t;
    if (node.isDma) {
      llvm::erase_if(st.inFlight, [&](int64_t c) { return c <= t; });
      st.done[n] = t + node.latency;
      st.inFlight.push_back(st.done[n]);
    } else if (node.unit != UnitKind::Scalar) {
      st.done[n] = t + node.latency;
      st.unitFree[int(node.unit)] = st.done[n];
    } else {
      st.done[n] = t + node.issue;
    }
    st.core = t + node.issue;
    st.end = std::max({st.end, st.core, st.done[n]});
  }

  Block &block;
  const CostTable &costs;
  int64_t dmaSlots;
  std::vector<Node> nodes;
  llvm::DenseMap<Operation *, unsigned> index;
};

struct SchedulePass
    : public accel::CheckedOptionsPass<
          SchedulePass, accel::impl::AccelScheduleBase<SchedulePass>>,
      public ReportsChanges {
  using CheckedOptionsPass::CheckedOptionsPass;

  /// An error message for an option outside its range, or "".
  std::string checkOptions() const {
    return checkVmemOptions(vmemCapacity, vmemPage);
  }

  void runOnOperation() override {
    resetCounts({"num-blocks-scheduled"});
    func::FuncOp func = getOperation();
    // --accel-attach-metrics puts the cost table and the DMA slot count on
    // the module; a function pass only reads them (no pass on a function
    // changes its module's attributes).
    Operation *module = func->getParentOp();
    CostTable costs(func, module);
    if (costs.empty()) {
      (void)warnIfNoMetrics(func, getArgument(), /*all=*/false,
                            /*hasAll=*/false);
      return;
    }
    int64_t slots = module ? getMetric(module, "accel.dma_max_outstanding") : 0;
    // Made before the first change (a run that schedules nothing costs no
    // copy and no lowering).
    std::optional<LoweringGuard> guard;
    unsigned scheduled = 0;
    SmallVector<Block *> blocks;
    func.walk([&](Block *b) { blocks.push_back(b); });
    for (Block *b : blocks) {
      // Function bodies only: a loop body's model would miss what the
      // other iterations have in flight (DMAs waited through iter_args).
      if (!isa<FunctionOpInterface>(b->getParentOp()))
        continue;
      BlockScheduler s(*b, costs, slots);
      if (!s.build())
        continue;
      SmallVector<unsigned> order = s.schedule();
      int64_t before = s.simulate(s.programOrder());
      int64_t after = s.simulate(order);
      if (after >= before)
        continue;
      if (emitRemarks)
        b->getParentOp()->emitRemark()
            << "scheduled a block of " << b->getOperations().size()
            << " ops: " << before << " -> " << after << " model cycles";
      if (!guard)
        guard.emplace(func, vmemCapacity, vmemPage);
      s.apply(order);
      ++scheduled;
    }
    if (!guard)
      return;
    if (std::string error = guard->keepIfLowers(); !error.empty()) {
      if (emitRemarks)
        func.emitRemark() << "scheduled nothing: the scheduled program "
                             "would not lower: "
                          << error;
      return;
    }
    bump(numScheduled, 0, scheduled);
  }
};
} // namespace
