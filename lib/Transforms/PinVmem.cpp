//===- PinVmem.cpp - Keep re-DMA'd unchanged data resident in VMEM --------===//
//
// SnR §5.2.1 (pinning the node addresses of All-Gather in VMEM) and
// FAST §5.5 (weight pinning as a capacity-constrained choice): a DMA in
// a loop that brings the same, unchanged bytes on every iteration into a
// buffer that other data also passes through becomes one load, before the
// loop, into a dedicated resident buffer; the ops that read those bytes
// read the resident buffer instead.
//
// Size (about 680 lines): one pass: the legality of pinning a DMA (same
// bytes, unchanged source, buffer reuse), the capacity-constrained choice
// among candidates, and the rewrite with the loop-invariant reads it
// exposes; the legality uses DmaMotion.h like the other DMA passes.
//
//===----------------------------------------------------------------------===//

#include "DmaMotion.h"
#include "LoweringCheck.h"
#include "accel/Dialect/Accel/TileShape.h"
#include "accel/Support/PassOptions.h"
#include "accel/Transforms/Passes.h"

#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/BitVector.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/Support/MathExtras.h"

#include <functional>
#include <limits>
#include <numeric>

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
              best =
                  std::max<int64_t>(best, std::max<int64_t>(1, saved.getInt()));
  return best;
}

/// Largest dynamic-programming table solveKnapsack fills: items x
/// (capacity units + 1) cells (one bit each for the choice) and a row of
/// capacity units + 1 best values (8 bytes each).
static constexpr uint64_t kMaxDpCells = 50'000'000;
static constexpr uint64_t kMaxDpRow = uint64_t(1) << 23;
/// Node budget of the branch-and-bound (never reached on the suite).
static constexpr uint64_t kMaxBranchNodes = uint64_t(1) << 26;

/// Whether item `a` saves more cycles per byte than item `b`; on a tie,
/// the earlier item (op order) first.
static bool denser(ArrayRef<int64_t> values, ArrayRef<int64_t> weights,
                   unsigned a, unsigned b) {
  // values[a] / weights[a] > values[b] / weights[b], without division.
  int64_t lhs, rhs;
  if (!llvm::MulOverflow(values[a], weights[b], lhs) &&
      !llvm::MulOverflow(values[b], weights[a], rhs)) {
    if (lhs != rhs)
      return lhs > rhs;
  } else {
    double da = double(values[a]) / double(std::max<int64_t>(weights[a], 1));
    double db = double(values[b]) / double(std::max<int64_t>(weights[b], 1));
    if (da != db)
      return da > db;
  }
  return a < b;
}

/// Solves the pin choice exactly: the 0/1 knapsack
///
///   maximize  sum of values[i]  (expected cycles saved, cycles)
///   such that sum of weights[i] <= capacity  (resident buffer bytes against
///             the VMEM the function's allocations leave free, bytes)
///
/// over the items chosen, each taken at most once. This is FAST §5.5's
/// weight pinning as a capacity-constrained choice (FAST states it as
/// an ILP). Returns one bit per item. The result is deterministic: the
/// dynamic program returns, among optimal choices, the one taking the
/// earliest items (op order); the branch-and-bound the first optimum it
/// meets in decreasing value per byte (ties in op order).
///
/// Method: dynamic programming over the capacity, counted in units of the
/// GCD of the weights and the capacity (exact: every reachable total is a
/// multiple of the GCD; resident buffers are whole tiles, so the unit is
/// usually kilobytes). When that table would exceed kMaxDpCells cells (or
/// a row kMaxDpRow units), a depth-first branch-and-bound over the items
/// in decreasing value per byte, pruned by the fractional (LP relaxation)
/// bound, which is exact too; its first leaf is the greedy choice, so if
/// it ever stops at kMaxBranchNodes (`exhausted`), the choice is still no
/// worse than greedy.
///
/// Written here rather than calling an ILP solver: the problem is one
/// knapsack constraint over a few dozen candidates; GLPK (Debian's
/// libglpk-dev) is GPL, which we do not link into accel-opt, and CBC
/// (coinor-libcbc-dev, EPL) would add a large C++ dependency for it.
static llvm::BitVector solveKnapsack(ArrayRef<int64_t> values,
                                     ArrayRef<int64_t> weights,
                                     uint64_t capacity, bool &exhausted) {
  unsigned n = values.size();
  llvm::BitVector take(n);
  exhausted = false;
  // Items that fit on their own; all of them if they fit together.
  SmallVector<unsigned> items;
  uint64_t total = 0, unit = capacity;
  for (unsigned i = 0; i < n; ++i) {
    if (weights[i] < 0 || uint64_t(weights[i]) > capacity)
      continue;
    items.push_back(i);
    total += uint64_t(weights[i]);
    unit = std::gcd(unit, uint64_t(weights[i]));
  }
  if (total <= capacity) {
    for (unsigned i : items)
      take.set(i);
    return take;
  }
  if (unit == 0)
    unit = 1;
  uint64_t width = capacity / unit + 1;
  uint64_t m = items.size();
  if (width <= kMaxDpRow && m * width <= kMaxDpCells) {
    // best[c]: the most cycles the items from k on save within c units;
    // chosen[k * width + c]: taking item k is optimal there. Items are
    // added from the last, so the walk back from the first takes the
    // earliest items on a tie.
    SmallVector<int64_t> best(width, 0);
    llvm::BitVector chosen(m * width);
    for (uint64_t k = m; k-- > 0;) {
      uint64_t w = uint64_t(weights[items[k]]) / unit;
      int64_t v = values[items[k]];
      for (uint64_t c = width; c-- > w;)
        if (best[c - w] + v >= best[c]) {
          best[c] = best[c - w] + v;
          chosen.set(k * width + c);
        }
    }
    uint64_t c = width - 1;
    for (uint64_t k = 0; k < m; ++k)
      if (chosen.test(k * width + c)) {
        take.set(items[k]);
        c -= uint64_t(weights[items[k]]) / unit;
      }
    return take;
  }
  // Branch-and-bound, densest first.
  llvm::stable_sort(items, [&](unsigned a, unsigned b) {
    return denser(values, weights, a, b);
  });
  // Integer floor of the LP bound: value + the items from k on that fit
  // whole, in order, + the fraction of the first that does not.
  auto bound = [&](unsigned k, uint64_t room, int64_t value) {
    for (; k < m; ++k) {
      uint64_t w = uint64_t(weights[items[k]]);
      int64_t v = values[items[k]];
      if (w > room) {
        int64_t part;
        if (llvm::MulOverflow(v, int64_t(room), part))
          return std::numeric_limits<int64_t>::max();
        return value + part / int64_t(w);
      }
      room -= w;
      value += v;
    }
    return value;
  };
  llvm::BitVector current(n), bestSet(n);
  int64_t bestValue = -1;
  uint64_t nodes = 0;
  std::function<void(unsigned, uint64_t, int64_t)> visit =
      [&](unsigned k, uint64_t room, int64_t value) {
        if (exhausted)
          return;
        if (++nodes > kMaxBranchNodes) {
          exhausted = true;
          return;
        }
        if (k == m) {
          if (value > bestValue) {
            bestValue = value;
            bestSet = current;
          }
          return;
        }
        if (bound(k, room, value) <= bestValue)
          return;
        unsigned i = items[k];
        if (uint64_t(weights[i]) <= room) {
          current.set(i);
          visit(k + 1, room - uint64_t(weights[i]), value + values[i]);
          current.reset(i);
        }
        visit(k + 1, room, value);
      };
  visit(0, capacity, 0);
  return bestSet;
}

namespace {
struct Candidate {
  DmaStartOp dma;
  DmaWaitOp wait;
  AllocOp buffer;
  SmallVector<Operation *> readers; ///< read the pinned bytes
  int64_t saved = 0, bytes = 0;
  /// A resident buffer already holding the same bytes (an earlier pin of
  /// the same source before the same loop): reused, costing no VMEM.
  AllocOp resident;
};

struct PinVmemPass
    : public accel::CheckedOptionsPass<
          PinVmemPass, accel::impl::AccelPinVmemBase<PinVmemPass>>,
      public ReportsChanges {
  using CheckedOptionsPass::CheckedOptionsPass;

  /// An error message for an option outside its range (or an unknown
  /// solver), or "".
  std::string checkOptions() const {
    if (solver != "exact" && solver != "greedy")
      return "solver must be 'exact' or 'greedy'; got '" + solver + "'";
    return checkVmemOptions(vmemCapacity, vmemPage);
  }

  /// Whether `op` (or an op nested in it) may read or write `buffer` (a
  /// root), by the shared dependence analysis; sets `read` / `write` for
  /// the kinds of access, and `writer` (when given) to a write. An op with
  /// unknown memory effects may do both.
  static bool touches(Operation *op, Value buffer, bool &read, bool &write,
                      MemoryAccess *writer = nullptr) {
    SmallVector<MemoryAccess> accesses;
    if (Operation *unknown = collectAccesses(op, accesses)) {
      read = write = true;
      if (writer)
        *writer = MemoryAccess(unknown, buffer, true);
      return true;
    }
    bool any = false;
    for (const MemoryAccess &a : accesses)
      if (mayAlias(a.root, buffer)) {
        any = true;
        read |= !a.write;
        if (a.write && writer && !write)
          *writer = a;
        write |= a.write;
      }
    return any;
  }

  /// `d`'s operands other than its destination: the source view and the
  /// chip ids, which must not change in the loop for one load before it
  /// to stand for all of its iterations.
  static SmallVector<Value> getInputsBesidesDst(DmaStartOp d) {
    SmallVector<Value> inputs;
    for (Value v : d->getOperands())
      if (v != d.getDst())
        inputs.push_back(v);
    return inputs;
  }

  /// The candidate for `d`, or the refusal reason.
  std::string analyze(DmaStartOp d, Candidate &c) {
    auto loop = dyn_cast<scf::ForOp>(d->getParentOp());
    if (!loop)
      return "the DMA is not directly in a loop";
    llvm::SetVector<Operation *> defs;
    Operation *unsafe = nullptr;
    if (!areLoopInvariant(getInputsBesidesDst(d), loop, defs, &unsafe))
      return unsafe ? "its source is computed in the loop by " +
                          unsafe->getName().getStringRef().str() +
                          ", which may not run before a loop that may run "
                          "zero times"
                    : std::string("its source changes in the loop");
    Value src = getRoot(d.getSrc());
    auto buffer = d.getDst().getDefiningOp<AllocOp>();
    if (!buffer || loop->isAncestor(buffer))
      return "its destination is not a whole VMEM allocation made outside "
             "the loop";
    if (!usedOnlyInside(buffer.getResult(), loop))
      return "its destination is used outside the loop";
    if (!d.getToken().hasOneUse())
      return "its token has more than one WAIT";
    DmaWaitOp wait = getOnlyWait(d);
    if (!wait || wait->getBlock() != d->getBlock() || !d->isBeforeInBlock(wait))
      return "its WAIT is not after it in the loop body";
    // The loop must not write the source.
    for (Operation &op : loop.getBody()->without_terminator()) {
      bool read = false, write = false;
      MemoryAccess writer;
      if (&op != d.getOperation() && touches(&op, src, read, write, &writer) &&
          write)
        return "the loop writes its source (" + writer.describe() + ")";
    }
    // Readers of the pinned bytes: after the WAIT, up to the next write of
    // the buffer. Reads before D in the body see the previous iteration's
    // last data: fine if another write follows D's range, not if D's data
    // is the last the buffer holds.
    Value b = buffer.getResult();
    bool seenDma = false, inRange = false, done = false, readBefore = false;
    // Before D: once another DMA has filled the whole buffer in this
    // iteration, later reads see that DMA's bytes, not D's from the last
    // iteration.
    bool refilledBefore = false;
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
        readBefore |= read && !refilledBefore;
        if (auto other = dyn_cast<DmaStartOp>(&op))
          refilledBefore |= other.getDst() == b;
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
          llvm::any_of(op.getOperands(), [&](Value v) {
            return v != b && isa<MemRefType>(v.getType()) &&
                   mayAlias(getRoot(v), b);
          }))
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
    c.bytes = int64_t(llvm::alignTo(
        uint64_t(getTileShape(buffer.getType(), nullptr, true)->bytes()),
        std::max<uint64_t>(vmemPage, 1)));
    c.resident = findResidentCopy(d, loop);
    if (c.resident)
      c.bytes = 0;
    return "";
  }

  /// Whether `a` and `b` hold the same value: the same SSA value, or
  /// results of equivalent ops (locations and discardable attributes
  /// ignored) without regions whose operands hold the same values, each op
  /// free of memory effects or a scalar load of a resident buffer (written
  /// only by its pinned load, before the loops that read it).
  static bool sameValue(Value a, Value b, unsigned depth = 0) {
    if (a == b)
      return true;
    Operation *x = a.getDefiningOp(), *y = b.getDefiningOp();
    if (!x || !y || depth > 8 || x->getNumRegions() || y->getNumRegions() ||
        cast<OpResult>(a).getResultNumber() !=
            cast<OpResult>(b).getResultNumber())
      return false;
    auto plain = [](Operation *op) {
      if (isMemoryEffectFree(op))
        return true;
      auto load = dyn_cast<LoadOp>(op);
      auto buffer =
          load ? load.getBuffer().getDefiningOp<AllocOp>() : AllocOp();
      return buffer && getResidentLoad(buffer);
    };
    if (!plain(x) || !plain(y))
      return false;
    return OperationEquivalence::isEquivalentTo(
        x, y,
        [&](Value l, Value r) { return success(sameValue(l, r, depth + 1)); },
        nullptr,
        OperationEquivalence::IgnoreLocations |
            OperationEquivalence::IgnoreDiscardableAttrs);
  }

  /// The DMA that fills `buffer` when it is a resident buffer: marked
  /// `accel.pinned` and written only by that one `accel.pinned` DMA (its
  /// whole destination), with every other user reading it directly
  /// (no view, no write; so it holds one value for the rest of the program
  /// once that DMA is waited for). Null otherwise.
  static DmaStartOp getResidentLoad(AllocOp buffer) {
    if (!buffer->hasAttr("accel.pinned"))
      return nullptr;
    Value b = buffer.getResult();
    DmaStartOp load;
    for (OpOperand &use : buffer->getUses()) {
      Operation *user = use.getOwner();
      auto dma = dyn_cast<DmaStartOp>(user);
      if (dma && dma.getDst() == b && !load && dma->hasAttr("accel.pinned") &&
          dma.getSrc() != b) {
        load = dma;
        continue;
      }
      bool writes = false;
      AccessWalk walk = forEachOwnAccess(user, [&](Value v, bool write) {
        writes |= write && v == b;
        return !writes;
      });
      if (walk != AccessWalk::Done || user->getNumRegions() ||
          isLoweredView(user) ||
          llvm::any_of(user->getResultTypes(),
                       [](Type t) { return isa<MemRefType>(t); }))
        return nullptr;
    }
    return load;
  }

  /// The resident buffer of an earlier pin before `loop` (in its block)
  /// that loaded the same bytes `d` would: an `accel.pinned` DMA into an
  /// `accel.pinned` allocation of `d`'s destination type, from a source
  /// holding the same value, with no op between it and the loop that may
  /// write that source.
  static AllocOp findResidentCopy(DmaStartOp d, scf::ForOp loop) {
    Value srcRoot = getRoot(d.getSrc());
    for (Operation *x = loop->getPrevNode(); x; x = x->getPrevNode()) {
      auto load = dyn_cast<DmaStartOp>(x);
      auto resident = load ? load.getDst().getDefiningOp<AllocOp>() : AllocOp();
      if (load && resident && getResidentLoad(resident) == load &&
          resident.getType() == d.getDst().getType() &&
          sameValue(load.getSrc(), d.getSrc()))
        return resident;
      bool read = false, write = false;
      if (!isa<DmaStartOp, DmaWaitOp>(x) && touches(x, srcRoot, read, write) &&
          write)
        return nullptr;
      if (auto other = dyn_cast<DmaStartOp>(x))
        if (mayAlias(getRoot(other.getDst()), srcRoot))
          return nullptr;
    }
    return nullptr;
  }

  void runOnOperation() override {
    resetCounts({"num-pinned", "total-cycles-saved", "pinned-bytes"});
    if (warnIfNoMetrics(getOperation(), getArgument(), pinAll))
      return;
    LoweringGuard guard(getOperation(), vmemCapacity, vmemPage);
    // The solver is 'exact' or 'greedy' (checkOptions, before any run).
    if (solver == "greedy")
      runGreedy();
    else
      runExact();
    if (getLastRunCounts()[0].second == 0)
      return;
    if (std::string error = guard.keepIfLowers(); !error.empty()) {
      undoCounts({&numPinned, &cyclesSaved, &bytesPinned});
      if (emitRemarks)
        getOperation().emitRemark()
            << "pinned nothing: the pinned program would not lower: " << error;
    }
  }

  /// `solver=exact`: per function, the pins that maximize the sum of
  /// expected cycles saved with the resident buffers' bytes within the
  /// VMEM the function's allocations leave free (solveKnapsack). Pinning
  /// can make another DMA legal (its shared buffer loses a reader before
  /// it, as in a buffer several weight tiles stream through) and can free
  /// the shared buffer, so the choice is made in rounds: each round
  /// analyzes the remaining DMAs on the current IR, solves the knapsack
  /// over the legal ones with the capacity now free, and pins the chosen
  /// ones; the rounds stop when one pins nothing.
  void runExact() {
    struct Hint {
      DmaStartOp dma;
      int64_t saved;
      bool pinned = false;
    };
    // In op order per function (the solver's tie-break).
    llvm::MapVector<Operation *, SmallVector<Hint>> byFunc;
    getOperation().walk([&](DmaStartOp d) {
      int64_t saved = pinHint(d);
      if (!saved && !pinAll)
        return;
      auto func = d->getParentOfType<FunctionOpInterface>();
      byFunc[func].push_back({d, std::max<int64_t>(saved, 1)});
    });
    for (auto &[func, pending] : byFunc) {
      for (;;) {
        uint64_t used = allocatedVmemBytes(func, vmemPage);
        uint64_t freeBytes = used < vmemCapacity ? vmemCapacity - used : 0;
        SmallVector<Hint *> legal;
        SmallVector<int64_t> values, weights;
        for (Hint &h : pending) {
          Candidate c;
          if (!analyze(h.dma, c).empty())
            continue;
          legal.push_back(&h);
          values.push_back(h.saved);
          weights.push_back(c.bytes);
        }
        bool exhausted = false;
        llvm::BitVector take =
            solveKnapsack(values, weights, freeBytes, exhausted);
        if (exhausted && emitRemarks)
          func->emitRemark()
              << "pin choice: the branch-and-bound stopped at its node "
                 "budget; the best choice found so far is used";
        // Pin the chosen DMAs in op order, each analyzed again on the IR
        // the pins before it left (pins only remove accesses to shared
        // buffers, so a legal DMA stays legal; checked anyway).
        unsigned pinnedNow = 0;
        for (auto [k, h] : llvm::enumerate(legal)) {
          Candidate c;
          if (!take.test(k) || !analyze(h->dma, c).empty())
            continue;
          AllocOp shared = c.buffer;
          pin(c);
          h->pinned = true;
          ++pinnedNow;
          bump(numPinned, 0);
          bump(cyclesSaved, 1, uint64_t(h->saved));
          bump(bytesPinned, 2, uint64_t(c.bytes));
          // A shared buffer nothing uses any more is freed.
          if (shared->use_empty())
            shared.erase();
        }
        llvm::erase_if(pending, [](const Hint &h) { return h.pinned; });
        if (!pinnedNow || pending.empty())
          break;
      }
      if (!emitRemarks)
        continue;
      // The rest: refused by the checks, or legal but left out. An optimal
      // choice leaves out no candidate that still fits in what the pins
      // left free, so the latter do not fit the capacity.
      for (Hint &h : pending) {
        Candidate c;
        std::string why = analyze(h.dma, c);
        if (!why.empty())
          h.dma.emitRemark() << "not pinned: " << why;
        else
          h.dma.emitRemark() << "not pinned: its " << c.bytes
                             << " bytes do not fit the VMEM capacity of "
                             << uint64_t(vmemCapacity) << " bytes";
      }
    }
  }

  /// `solver=greedy`: candidates in decreasing expected cycles saved per
  /// byte, each taken when it still fits (the rule before the exact
  /// solver; kept for comparison, see bench/fdo/pin_gap.py).
  void runGreedy() {
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
      if (!used.count(func))
        used[func] = allocatedVmemBytes(func, vmemPage);
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
      bump(numPinned, 0);
      bump(cyclesSaved, 1, uint64_t(h.saved));
      bump(bytesPinned, 2, uint64_t(c.bytes));
      // A shared buffer nothing uses any more is freed.
      if (shared->use_empty()) {
        used[func] -= uint64_t(c.bytes);
        shared.erase();
      }
    }
  }

  void pin(Candidate &c) {
    auto loop = cast<scf::ForOp>(c.dma->getParentOp());
    if (c.resident) {
      // The bytes are resident already: read that copy.
      for (Operation *op : c.readers)
        op->replaceUsesOfWith(c.buffer.getResult(), c.resident.getResult());
      c.wait.erase();
      c.dma.erase();
      hoistInvariantReads(c.resident, loop);
      return;
    }
    // The source view (and chip ids) may be computed in the loop from
    // values defined outside it: that computation moves before the loop.
    llvm::SetVector<Operation *> defs;
    if (areLoopInvariant(getInputsBesidesDst(c.dma), loop, defs)) {
      SmallVector<Operation *> ops(defs.begin(), defs.end());
      llvm::sort(ops, [](Operation *x, Operation *y) {
        return x->isBeforeInBlock(y);
      });
      for (Operation *op : ops)
        op->moveBefore(loop);
    }
    // The resident buffer, next to the shared one.
    OpBuilder b(c.buffer);
    b.setInsertionPointAfter(c.buffer);
    auto resident = cast<AllocOp>(b.clone(*c.buffer.getOperation()));
    resident->removeAttr(AccelDialect::getOpIdAttrName());
    resident->setAttr("accel.pinned", b.getUnitAttr());
    // One load before the loop.
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
    hoistInvariantReads(resident, loop);
  }

  /// Moves the scalar loads of `resident` in `loop`'s body whose indices
  /// are defined outside the loop to just before it (nothing in the loop
  /// writes a resident buffer, so they read the same value on every
  /// iteration), then the pure ops that only use values defined outside
  /// the loop by then (the address arithmetic and subviews built from
  /// them). A DMA whose source was such a subview no longer changes in the
  /// loop, so the next round of the FDO loop can pin it too: SnR's node
  /// tables, read through the pinned directories (§5.2.1). Only for loops
  /// that run at least once (constant bounds), as the loads then ran anyway.
  static void hoistInvariantReads(AllocOp resident, scf::ForOp loop) {
    if (!runsAtLeastOnce(loop))
      return;
    auto outside = [&](Value v) {
      return !loop->isAncestor(v.getParentRegion()->getParentOp());
    };
    SmallVector<Operation *> work;
    for (Operation *user : resident->getUsers())
      if (isa<LoadOp>(user) && user->getBlock() == loop.getBody())
        work.push_back(user);
    while (!work.empty()) {
      Operation *op = work.pop_back_val();
      if (op->getBlock() != loop.getBody() ||
          !llvm::all_of(op->getOperands(), outside))
        continue;
      op->moveBefore(loop);
      for (Operation *user : op->getUsers())
        if (user->getBlock() == loop.getBody() && user->getNumRegions() == 0 &&
            isMemoryEffectFree(user))
          work.push_back(user);
    }
  }
};
} // namespace
