//===- PinVmemBudget.cpp - Pins and pipelining in one VMEM budget ---------===//
//
// The VMEM budget accel-pin-vmem shares with accel-pipeline-dma, which
// runs later and multi-buffers the loops it pipelines (PinVmem.h): which
// loops the pipelining would take, with the bytes of their buffers'
// copies (findPipelinedLoops), and the choice of pins and of the loops to
// keep room for (choosePinsWithPipelining).
//
//===----------------------------------------------------------------------===//

#include "LoweringCheck.h"
#include "PinKnapsack.h"
#include "PinVmem.h"
#include "PipelineDriver.h"
#include "accel/Dialect/Accel/TileShape.h"

#include "llvm/ADT/MapVector.h"

using namespace mlir;
using namespace accel;
using namespace accel::detail;
using namespace accel::detail::pinvmem;

int64_t PipelinedLoop::stalls() const {
  int64_t sum = 0;
  for (auto [dma, cycles] : dmas)
    sum += cycles;
  return sum;
}

/// The VMEM buffer a DMA's copies would be of: its destination's
/// allocation, or its source's when only that is in VMEM; null otherwise.
static AllocOp vmemSide(DmaStartOp d) {
  auto inVmem = [](Value v) {
    auto t = dyn_cast<MemRefType>(v.getType());
    return t && getMemorySpace(t) == MemorySpace::VMEM;
  };
  Value side = inVmem(d.getDst())   ? d.getDst()
               : inVmem(d.getSrc()) ? d.getSrc()
                                    : Value();
  return side ? getRoot(side).getDefiningOp<AllocOp>() : AllocOp();
}

/// The number of allocations of each accel.alloc of `func` (in walk order)
/// once --accel-pipeline-dma ran on a copy of it with `vmemCapacity` and
/// `vmemPage` (its other options at their defaults): 1 for a buffer that
/// gets no copy.
static SmallVector<unsigned>
countCopies(func::FuncOp func, uint64_t vmemCapacity, uint64_t vmemPage) {
  OwningOpRef<ModuleOp> copy = cloneIntoModule(func);
  // The copy's allocations, tagged with their walk order; the driver's
  // copies (and a fully unrolled loop's) are clones that keep the tag.
  MLIRContext *ctx = func.getContext();
  StringAttr tag = StringAttr::get(ctx, "accel.pin_budget_probe");
  unsigned n = 0;
  copy->walk([&](AllocOp a) {
    a->setAttr(tag, IntegerAttr::get(IntegerType::get(ctx, 64), n++));
  });
  pipeline::PipelineOptions options;
  options.vmemCapacity = vmemCapacity;
  options.vmemPage = vmemPage;
  pipeline::PipelineDriver driver;
  driver.run(cast<func::FuncOp>(copy->getBody()->front()), options,
             [](unsigned, uint64_t) {});
  SmallVector<unsigned> count(n, 0);
  copy->walk([&](AllocOp a) {
    if (auto id = a->getAttrOfType<IntegerAttr>(tag))
      if (uint64_t(id.getInt()) < count.size())
        ++count[id.getInt()];
  });
  return count;
}

SmallVector<PipelinedLoop> accel::detail::pinvmem::findPipelinedLoops(
    func::FuncOp func, uint64_t vmemCapacity, uint64_t vmemPage) {
  // The innermost loop of each buffer's first access in a loop, and the
  // stalled DMAs in loops by the buffer their copies would be of.
  llvm::MapVector<Operation *, Operation *> loopOf;
  llvm::MapVector<Operation *, SmallVector<DmaStartOp, 1>> stalledOn;
  func.walk([&](Operation *op) {
    auto loop = op->getParentOfType<scf::ForOp>();
    if (!loop)
      return;
    for (Value v : op->getOperands())
      if (auto alloc = getRoot(v).getDefiningOp<AllocOp>())
        loopOf.insert({alloc, loop});
    if (auto d = dyn_cast<DmaStartOp>(op); d && getStallCycles(d) > 0)
      if (AllocOp alloc = vmemSide(d))
        stalledOn[alloc].push_back(d);
  });
  if (stalledOn.empty())
    return {};
  SmallVector<AllocOp> allocs;
  func.walk([&](AllocOp a) { allocs.push_back(a); });
  SmallVector<unsigned> count = countCopies(func, vmemCapacity, vmemPage);
  llvm::MapVector<Operation *, PipelinedLoop> loops;
  uint64_t page = std::max<uint64_t>(vmemPage, 1);
  for (auto [alloc, n] : llvm::zip(allocs, count)) {
    auto at = loopOf.find(alloc.getOperation());
    if (n < 2 || at == loopOf.end())
      continue;
    auto t = getTileShape(alloc.getType(), nullptr, /*allowI32=*/true);
    if (failed(t))
      continue;
    PipelinedLoop &loop = loops[at->second];
    loop.bytes += (n - 1) * llvm::alignTo(uint64_t(t->bytes()), page);
    if (auto it = stalledOn.find(alloc.getOperation()); it != stalledOn.end())
      for (DmaStartOp d : it->second)
        loop.dmas.push_back({d, getStallCycles(d)});
  }
  SmallVector<PipelinedLoop> out;
  for (auto &[loop, need] : loops)
    if (!need.dmas.empty())
      out.push_back(std::move(need));
  return out;
}

/// Most loops whose every subset choosePinsWithPipelining tries; with
/// more, it tries the prefixes of the loops in decreasing stall cycles
/// per byte.
static constexpr unsigned kMaxSubsetLoops = 8;

/// The subsets of `loops` choosePinsWithPipelining tries (indices into
/// `loops`), the empty one first: all of them for up to kMaxSubsetLoops
/// loops, else the prefixes of the loops in decreasing stall cycles per
/// byte.
static SmallVector<SmallVector<unsigned>>
loopSubsets(ArrayRef<PipelinedLoop> loops) {
  SmallVector<SmallVector<unsigned>> subsets;
  if (loops.size() <= kMaxSubsetLoops) {
    for (unsigned mask = 0; mask < (1u << loops.size()); ++mask) {
      SmallVector<unsigned> s;
      for (unsigned l = 0; l < loops.size(); ++l)
        if (mask & (1u << l))
          s.push_back(l);
      subsets.push_back(std::move(s));
    }
  } else {
    SmallVector<unsigned> order(loops.size());
    std::iota(order.begin(), order.end(), 0u);
    llvm::stable_sort(order, [&](unsigned a, unsigned b) {
      return double(loops[a].stalls()) /
                 double(std::max<uint64_t>(loops[a].bytes, 1)) >
             double(loops[b].stalls()) /
                 double(std::max<uint64_t>(loops[b].bytes, 1));
    });
    for (unsigned k = 0; k <= order.size(); ++k)
      subsets.push_back(
          SmallVector<unsigned>(order.begin(), order.begin() + k));
  }
  return subsets;
}

/// The DMAs of `func` in walk order (how a copy's DMAs match them).
static SmallVector<DmaStartOp> dmasOf(func::FuncOp func) {
  SmallVector<DmaStartOp> out;
  func.walk([&](DmaStartOp d) { out.push_back(d); });
  return out;
}

/// What the pins `take` of `dmas` (their expected cycles saved `values`)
/// save with the pipelining that follows them, by the pipelining's own
/// choice: the pins are applied to a copy of `func` (in decreasing value,
/// each checked again, as the pass does), and findPipelinedLoops runs on
/// that copy. The value is the pins' plus the stall cycles of the loops it
/// pipelines then (of a DMA that could be pinned, at most its pin's
/// value); `pinned` is set to the pins' part and `reserved` to those
/// loops' copy bytes. Pins can shrink or remove a loop's copies (a buffer
/// every DMA of which was pinned is freed), which an estimate made before
/// them misses.
static int64_t planValue(func::FuncOp func, ArrayRef<DmaStartOp> dmas,
                         ArrayRef<int64_t> values, const llvm::BitVector &take,
                         uint64_t vmemCapacity, uint64_t vmemPage,
                         int64_t &pinned, uint64_t &reserved) {
  SmallVector<DmaStartOp> all = dmasOf(func);
  OwningOpRef<ModuleOp> copy = cloneIntoModule(func);
  auto copyFunc = cast<func::FuncOp>(copy->getBody()->front());
  SmallVector<DmaStartOp> copyDmas = dmasOf(copyFunc);
  // Candidate i's DMA in the copy, and the value of each copy DMA that is
  // a candidate.
  llvm::DenseMap<Operation *, int64_t> valueOf;
  SmallVector<std::pair<int64_t, DmaStartOp>> pins;
  for (auto [i, d] : llvm::enumerate(dmas)) {
    size_t at = llvm::find(all, d) - all.begin();
    if (at == all.size() || at >= copyDmas.size())
      continue;
    valueOf[copyDmas[at].getOperation()] = values[i];
    if (take.test(i))
      pins.push_back({values[i], copyDmas[at]});
  }
  llvm::stable_sort(
      pins, [](const auto &a, const auto &b) { return a.first > b.first; });
  int64_t value = 0;
  for (auto [saved, d] : pins) {
    Candidate c;
    if (!PinAnalyzer(vmemPage).analyze(d, c).empty())
      continue;
    pin(c, /*emitRemarks=*/false);
    value += saved;
  }
  pinned = value;
  reserved = 0;
  for (const PipelinedLoop &loop :
       findPipelinedLoops(copyFunc, vmemCapacity, vmemPage)) {
    reserved += loop.bytes;
    for (auto [dma, cycles] : loop.dmas) {
      auto it = valueOf.find(DmaStartOp(dma).getOperation());
      value += it == valueOf.end() ? cycles : std::min(cycles, it->second);
    }
  }
  return value;
}

namespace {
/// The estimate of choosePinsWithPipelining: per subset of the loops
/// whose copies fit, its pins (`plans`, in the order of loopSubsets, the
/// empty subset first, with whether the knapsack's search was cut short);
/// `best`, the plan of the largest estimated saving, with the bytes its
/// loops keep; `most`, the index of the plan keeping the most loops.
struct Estimate {
  SmallVector<std::pair<llvm::BitVector, bool>> plans;
  BudgetChoice best;
  size_t most = 0;
};
} // namespace

/// The estimate over `loops` (copies as before any pin) of the pins among
/// `dmas` (values, weights) within `freeBytes`.
static Estimate estimatePlans(ArrayRef<DmaStartOp> dmas,
                              ArrayRef<int64_t> values,
                              ArrayRef<int64_t> weights,
                              ArrayRef<PipelinedLoop> loops,
                              uint64_t freeBytes) {
  Estimate e;
  e.best.take.resize(dmas.size());
  int64_t bestTotal = -1;
  size_t mostLoops = 0;
  SmallVector<int64_t> v(values);
  for (ArrayRef<unsigned> s : loopSubsets(loops)) {
    uint64_t reserved = 0;
    int64_t hidden = 0;
    llvm::DenseMap<Operation *, int64_t> stallOf;
    for (unsigned l : s) {
      reserved += loops[l].bytes;
      for (auto [dma, cycles] : loops[l].dmas)
        stallOf[DmaStartOp(dma).getOperation()] += cycles;
    }
    if (reserved > freeBytes)
      continue;
    // The pipelining hides a kept loop's stalls, but of a DMA that can be
    // pinned no more than the pin saves (the pin removes those stalls and
    // the transfers too); the pin then adds the rest (0 or more: it wins
    // a tie).
    for (unsigned i = 0; i < dmas.size(); ++i) {
      auto it = stallOf.find(DmaStartOp(dmas[i]).getOperation());
      if (it != stallOf.end())
        it->second = std::min(it->second, values[i]);
    }
    for (auto [dma, cycles] : stallOf)
      hidden += cycles;
    for (unsigned i = 0; i < dmas.size(); ++i)
      v[i] = values[i] - stallOf.lookup(DmaStartOp(dmas[i]).getOperation());
    bool exhausted = false;
    llvm::BitVector take =
        solveKnapsack(v, weights, freeBytes - reserved, exhausted);
    int64_t total = hidden;
    for (unsigned i : take.set_bits())
      total += v[i];
    if (total > bestTotal) {
      bestTotal = total;
      e.best = {take, reserved, exhausted};
    }
    if (s.size() >= mostLoops) {
      e.most = e.plans.size();
      mostLoops = s.size();
    }
    e.plans.push_back({take, exhausted});
  }
  return e;
}

BudgetChoice accel::detail::pinvmem::choosePinsWithPipelining(
    func::FuncOp func, ArrayRef<DmaStartOp> dmas, ArrayRef<int64_t> values,
    ArrayRef<int64_t> weights, uint64_t freeBytes, uint64_t vmemCapacity,
    uint64_t vmemPage) {
  SmallVector<PipelinedLoop> loops =
      findPipelinedLoops(func, vmemCapacity, vmemPage);
  Estimate e = estimatePlans(dmas, values, weights, loops, freeBytes);
  if (loops.empty())
    return e.best;
  // The estimate takes each loop's copies as they are before any pin; the
  // plans it weighs most (its best, no loop kept, the most loops kept that
  // fit) are measured with the pipelining that follows their pins
  // (planValue), and the best of those wins (on a tie, the one whose pins
  // save more: a pin removes the transfers too; then the estimate's).
  SmallVector<std::pair<llvm::BitVector, bool>, 3> tried = {
      {e.best.take, e.best.exhausted}, e.plans.front(), e.plans[e.most]};
  int64_t bestValue = -1, bestPinned = -1;
  BudgetChoice chosen = e.best;
  for (auto [k, plan] : llvm::enumerate(tried)) {
    if (llvm::any_of(llvm::ArrayRef(tried).take_front(k),
                     [&](const auto &p) { return p.first == plan.first; }))
      continue;
    uint64_t reserved = 0;
    int64_t pinned = 0;
    int64_t value = planValue(func, dmas, values, plan.first, vmemCapacity,
                              vmemPage, pinned, reserved);
    if (value > bestValue || (value == bestValue && pinned > bestPinned)) {
      bestValue = value;
      bestPinned = pinned;
      chosen = {plan.first, reserved, plan.second};
    }
  }
  return chosen;
}
