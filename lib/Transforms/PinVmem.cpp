//===- PinVmem.cpp - Keep re-DMA'd unchanged data resident in VMEM --------===//
//
// SnR §5.2.1 (pinning the node addresses of All-Gather in VMEM) and
// FAST §5.5 (weight pinning as a capacity-constrained choice): a DMA in
// a loop that brings the same, unchanged bytes on every iteration into a
// buffer that other data also passes through becomes one load, before the
// loop, into a dedicated resident buffer; the ops that read those bytes
// read the resident buffer instead.
//
// A DMA whose source changes with its loop's induction variable only (a
// weight tile k of an inner K loop, the same tiles in every iteration of
// the loop around it) is pinned across the outer loop instead: one
// resident buffer holds a stack of the K loop's tiles, filled by a copy of
// the K loop before the outer loop, and each K iteration reads its tile of
// the stack.
//
// Size (about 750 lines): one pass: the legality of pinning a DMA (same
// bytes, unchanged source, buffer reuse), the capacity-constrained choice
// among candidates (the knapsack is in PinKnapsack.cpp), and the rewrites
// with the loop-invariant reads they expose; the legality uses the shared
// memory dependence analysis (MemoryDependence.h) like the other passes.
//
//===----------------------------------------------------------------------===//

#include "DmaMotion.h"
#include "LoweringCheck.h"
#include "PinKnapsack.h"
#include "accel/Dialect/Accel/TileShape.h"
#include "accel/Support/PassOptions.h"
#include "accel/Transforms/Passes.h"

#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/BitVector.h"
#include "llvm/ADT/MapVector.h"

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
  /// A pin across an outer loop (`level`): the DMA's loop (`stackLoop`,
  /// constant bounds, `stack` iterations) indexes its source, and the
  /// resident buffer holds one tile per iteration. Null for a plain pin.
  scf::ForOp level, stackLoop;
  int64_t stack = 0;
  /// The pure ops of stackLoop's body computing the DMA's operands.
  llvm::SetVector<Operation *> defs;
};

/// Most tiles one stacked pin holds (the copy of the K loop before the
/// outer loop runs this many DMAs).
constexpr int64_t kMaxStackedTiles = 64;
/// Most tiles a stacked pin loads with straight-line code (all in flight
/// together) rather than a loop.
constexpr int64_t kMaxStraightFill = 16;

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
    if (!areLoopInvariant(getInputsBesidesDst(d), loop, defs, &unsafe)) {
      if (unsafe)
        return "its source is computed in the loop by " +
               unsafe->getName().getStringRef().str() +
               ", which may not run before a loop that may run zero times";
      std::string why = analyzeStacked(d, loop, c);
      if (why.empty())
        return "";
      return "its source changes in the loop; " + why;
    }
    return analyzeReuse(d, loop, loop, c);
  }

  /// The rest of analyze for `d` in `loop`, whose bytes stay unchanged
  /// throughout `scope` (`loop` or a loop around it): the destination is a
  /// whole allocation made outside `loop` and used only in it, nothing in
  /// `scope` writes the source, and the readers of the bytes read the
  /// buffer itself between the WAIT and its next write.
  std::string analyzeReuse(DmaStartOp d, scf::ForOp loop, scf::ForOp scope,
                           Candidate &c) {
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
    // The loop (the scope) must not write the source.
    for (Operation &op : scope.getBody()->without_terminator()) {
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

  /// The candidate for a pin of `d` across a loop around its loop `k`
  /// (Candidate::level), or the refusal reason: `k` has constant bounds
  /// and at most kMaxStackedTiles iterations, and `d`'s source is computed
  /// from `k`'s induction variable and values defined outside the level by
  /// pure ops of `k`'s body. The level is the outermost such loop in which
  /// nothing writes the source (analyzeReuse with that scope).
  std::string analyzeStacked(DmaStartOp d, scf::ForOp k, Candidate &c) {
    std::optional<int64_t> trips =
        k.getStaticTripCount()
            ? std::optional<int64_t>(k.getStaticTripCount()->getZExtValue())
            : std::nullopt;
    auto tile = dyn_cast<MemRefType>(d.getDst().getType());
    if (!trips || *trips <= 0 || !getConstantIntValue(k.getLowerBound()) ||
        !getConstantIntValue(k.getStep()))
      return "no outer loop: its loop's bounds are not constants";
    if (*trips > kMaxStackedTiles)
      return "no outer loop: its loop has more than " +
             std::to_string(kMaxStackedTiles) + " iterations";
    if (!tile || tile.getRank() < 1 || tile.getRank() > 2 ||
        !tile.hasStaticShape())
      return "no outer loop: its destination is not a 1-D or 2-D tile";
    llvm::SetVector<Operation *> defs;
    SmallVector<Value> inputs = getInputsBesidesDst(d);
    collectLoopDefs(inputs, k, defs, /*withAllocs=*/false);
    if (!llvm::all_of(defs, [](Operation *op) { return isPure(op); }))
      return "no outer loop: its source is computed by an op that may not "
             "run again before the loop";
    Value iv = k.getInductionVar();
    // Whether every value `d`'s operands come from is k's induction
    // variable, computed in `defs`, or defined outside `level`.
    auto indexedOnlyByK = [&](scf::ForOp level) {
      auto ok = [&](Value v) {
        return v == iv || defs.contains(v.getDefiningOp()) ||
               !level->isAncestor(v.getParentRegion()->getParentOp());
      };
      if (!llvm::all_of(inputs, ok))
        return false;
      for (Operation *def : defs)
        if (!llvm::all_of(def->getOperands(), ok))
          return false;
      return true;
    };
    SmallVector<scf::ForOp> levels; // innermost first
    for (Operation *p = k->getParentOp(); p && !isa<FunctionOpInterface>(p);
         p = p->getParentOp()) {
      auto level = dyn_cast<scf::ForOp>(p);
      if (!level)
        continue;
      if (!indexedOnlyByK(level))
        break;
      levels.push_back(level);
    }
    if (levels.empty())
      return "no outer loop keeps it unchanged";
    // The stack is filled on every entry of its level: inside another loop
    // it would be filled again for each of that loop's iterations, a
    // serial head each time for tiles reused only within one of them.
    if (levels.back()->getParentOfType<scf::ForOp>())
      return "no outer loop: the outermost loop that keeps it unchanged "
             "(at " +
             describeLoc(levels.back().getLoc()) +
             ") is itself in a loop that changes it";
    std::string why;
    for (scf::ForOp level : llvm::reverse(levels)) {
      Candidate s;
      why = analyzeReuse(d, k, level, s);
      if (!why.empty())
        continue;
      s.level = level;
      s.stackLoop = k;
      s.stack = *trips;
      s.defs = std::move(defs);
      s.resident = nullptr;
      s.bytes = int64_t(llvm::alignTo(
          uint64_t(*trips) *
              uint64_t(
                  getTileShape(s.buffer.getType(), nullptr, true)->bytes()),
          std::max<uint64_t>(vmemPage, 1)));
      c = std::move(s);
      return "";
    }
    return "not across the loop around it either: " + why;
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
    uint64_t reserved = 0; // bytes kept for pipelining, last round
    for (auto &[func, pending] : byFunc) {
      for (;;) {
        uint64_t used = allocatedVmemBytes(func, vmemPage);
        uint64_t freeBytes = used < vmemCapacity ? vmemCapacity - used : 0;
        SmallVector<Hint *> legal;
        SmallVector<int64_t> values, weights;
        SmallVector<int> groups;
        for (Hint &h : pending) {
          Candidate c;
          if (!analyze(h.dma, c).empty())
            continue;
          legal.push_back(&h);
          values.push_back(h.saved);
          weights.push_back(std::max<int64_t>(0, c.bytes - freedBytes(c)));
          groups.push_back(-1);
        }
        // The same budget holds the second copy that --accel-pipeline-dma
        // needs to double-buffer each stalled DMA's VMEM buffer in a loop:
        // one item per buffer (its stall cycles against its bytes), in one
        // group with the pin of the only stalled DMA on it (pinned, the
        // DMA leaves the loop and needs no copy; and the pin is worth at
        // least the copy: it removes the stalls the copy would hide, and
        // the transfers too, so the copy is counted at most the pin's
        // value, and the pin wins a tie).
        SmallVector<DoubleBuffer> needs = doubleBufferNeeds(func);
        for (auto [k, need] : llvm::enumerate(needs)) {
          values.push_back(need.stalls);
          weights.push_back(int64_t(need.bytes));
          groups.push_back(-1);
          if (need.dmas.size() != 1)
            continue;
          for (auto [j, h] : llvm::enumerate(legal))
            if (h->dma == need.dmas.front()) {
              groups[j] = int(k);
              groups.back() = int(k);
              values.back() = std::min(values.back(), values[j]);
            }
        }
        bool exhausted = false;
        llvm::BitVector take =
            solveKnapsack(values, weights, freeBytes, exhausted, groups);
        reserved = 0;
        for (auto [k, need] : llvm::enumerate(needs))
          if (take.test(legal.size() + k))
            reserved += need.bytes;
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
        else if (reserved)
          h.dma.emitRemark()
              << "not pinned: its " << c.bytes
              << " bytes do not fit the VMEM capacity of "
              << uint64_t(vmemCapacity) << " bytes with the " << reserved
              << " bytes kept for the second copies of the buffers "
                 "pipelining double-buffers (they hide more stall cycles)";
        else
          h.dma.emitRemark() << "not pinned: its " << c.bytes
                             << " bytes do not fit the VMEM capacity of "
                             << uint64_t(vmemCapacity) << " bytes";
      }
    }
  }

  /// The bytes pinning `c` frees: its buffer's (page-rounded), when only
  /// the DMA and the readers it redirects use it (pin then erases it),
  /// else 0.
  int64_t freedBytes(Candidate &c) const {
    if (!c.buffer || !llvm::all_of(c.buffer->getUsers(), [&](Operation *u) {
          return u == c.dma.getOperation() || llvm::is_contained(c.readers, u);
        }))
      return 0;
    auto t = getTileShape(c.buffer.getType(), nullptr, /*allowI32=*/true);
    if (failed(t))
      return 0;
    return int64_t(
        llvm::alignTo(uint64_t(t->bytes()), std::max<uint64_t>(vmemPage, 1)));
  }

  /// A VMEM buffer that --accel-pipeline-dma would double-buffer: the
  /// buffer (an accel.alloc) a stalled DMA in a loop loads into or stores
  /// from, its bytes (a page multiple: the second copy), and the stall
  /// cycles of its DMAs (what pipelining can hide).
  struct DoubleBuffer {
    AllocOp buffer;
    uint64_t bytes = 0;
    int64_t stalls = 0;
    SmallVector<DmaStartOp, 1> dmas;
  };

  /// The DoubleBuffer of each VMEM buffer of `func` that a stalled DMA in
  /// an scf.for accesses (its destination, or its source when only that
  /// is in VMEM), in op order of their first DMAs.
  SmallVector<DoubleBuffer> doubleBufferNeeds(Operation *func) {
    llvm::MapVector<Operation *, DoubleBuffer> needs;
    func->walk([&](DmaStartOp d) {
      int64_t stalls = getStallCycles(d);
      if (stalls <= 0 || !d->getParentOfType<scf::ForOp>())
        return;
      auto inVmem = [](Value v) {
        auto t = dyn_cast<MemRefType>(v.getType());
        return t && getMemorySpace(t) == MemorySpace::VMEM;
      };
      Value side = inVmem(d.getDst())   ? d.getDst()
                   : inVmem(d.getSrc()) ? d.getSrc()
                                        : Value();
      auto alloc = side ? getRoot(side).getDefiningOp<AllocOp>() : AllocOp();
      if (!alloc)
        return;
      auto t = getTileShape(alloc.getType(), nullptr, /*allowI32=*/true);
      if (failed(t))
        return;
      DoubleBuffer &need = needs[alloc];
      need.buffer = alloc;
      need.bytes =
          llvm::alignTo(uint64_t(t->bytes()), std::max<uint64_t>(vmemPage, 1));
      need.stalls += stalls;
      need.dmas.push_back(d);
    });
    SmallVector<DoubleBuffer> out;
    for (auto &[op, need] : needs)
      out.push_back(std::move(need));
    return out;
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
    if (c.level)
      return pinStacked(c);
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

  /// The pin of a Candidate with a level (analyzeStacked): a resident
  /// buffer of `stack` tiles (stacked along the first dimension) made
  /// before the level, a copy of the K loop there that loads tile j (K's
  /// j-th iteration) into slice j with its own WAIT, and in the K loop the
  /// readers read slice j instead of the DMA's buffer.
  void pinStacked(Candidate &c) {
    scf::ForOp k = c.stackLoop, level = c.level;
    if (emitRemarks)
      c.dma.emitRemark() << "pinned across the loop at "
                         << describeLoc(level.getLoc()) << ": the " << c.stack
                         << " tiles of its loop (" << c.bytes
                         << " bytes) are loaded once before it";
    auto tile = cast<MemRefType>(c.buffer.getType());
    SmallVector<int64_t> shape(tile.getShape());
    int64_t rows = shape[0];
    shape[0] *= c.stack;
    Location loc = c.dma.getLoc();
    OpBuilder b(level);
    auto resident =
        AllocOp::create(b, c.buffer.getLoc(),
                        MemRefType::get(shape, tile.getElementType(), nullptr,
                                        tile.getMemorySpace()));
    resident->setAttr("accel.pinned", b.getUnitAttr());
    int64_t lb = *getConstantIntValue(k.getLowerBound());
    int64_t step = *getConstantIntValue(k.getStep());
    int64_t ub = lb + c.stack * step;
    // The slice of iteration `iv`: rows (iv - lb) / step * rows on.
    auto sliceAt = [&](OpBuilder &at, Value iv) -> Value {
      Value j = iv;
      if (lb != 0)
        j = arith::SubIOp::create(at, loc, j,
                                  arith::ConstantIndexOp::create(at, loc, lb));
      if (step != 1)
        j = arith::DivUIOp::create(
            at, loc, j, arith::ConstantIndexOp::create(at, loc, step));
      Value row = arith::MulIOp::create(
          at, loc, j, arith::ConstantIndexOp::create(at, loc, rows));
      SmallVector<OpFoldResult> offsets(tile.getRank(), at.getIndexAttr(0));
      offsets[0] = row;
      SmallVector<OpFoldResult> sizes, strides;
      for (int64_t n : tile.getShape()) {
        sizes.push_back(at.getIndexAttr(n));
        strides.push_back(at.getIndexAttr(1));
      }
      return memref::SubViewOp::create(at, loc, resident, offsets, sizes,
                                       strides);
    };
    // The fill, before the level: the K loop's DMA once per tile. Up to
    // kMaxStraightFill tiles it is straight-line code, every ISSUE before
    // the first WAIT (all tiles in flight together); beyond, a loop that
    // waits for each tile (a loop the next FDO iteration can pipeline).
    SmallVector<Operation *> defs(c.defs.begin(), c.defs.end());
    llvm::sort(
        defs, [](Operation *x, Operation *y) { return x->isBeforeInBlock(y); });
    DmaStartOp firstLoad;
    auto issue = [&](OpBuilder &in, Value iv) {
      IRMapping map;
      map.map(k.getInductionVar(), iv);
      for (Operation *op : defs)
        in.clone(*op, map)->removeAttr(AccelDialect::getOpIdAttrName());
      map.map(c.buffer.getResult(), sliceAt(in, iv));
      auto load = cast<DmaStartOp>(in.clone(*c.dma.getOperation(), map));
      load->removeAttr("accel.suggestions");
      load->setAttr("accel.pinned", in.getUnitAttr());
      // The DMA's op id stays with its first copy (metrics follow it).
      if (!firstLoad)
        firstLoad = load;
      else
        load->removeAttr(AccelDialect::getOpIdAttrName());
      return load;
    };
    if (c.stack <= kMaxStraightFill) {
      SmallVector<DmaStartOp> loads;
      for (int64_t j = 0; j < c.stack; ++j)
        loads.push_back(
            issue(b, arith::ConstantIndexOp::create(b, loc, lb + j * step)));
      for (DmaStartOp load : loads)
        DmaWaitOp::create(b, c.wait.getLoc(), load.getToken());
    } else {
      Value lbV = arith::ConstantIndexOp::create(b, loc, lb);
      Value ubV = arith::ConstantIndexOp::create(b, loc, ub);
      Value stepV = arith::ConstantIndexOp::create(b, loc, step);
      auto fill = scf::ForOp::create(b, k.getLoc(), lbV, ubV, stepV);
      OpBuilder in = OpBuilder::atBlockBegin(fill.getBody());
      DmaStartOp load = issue(in, fill.getInductionVar());
      DmaWaitOp::create(in, c.wait.getLoc(), load.getToken());
    }
    // The readers read their iteration's slice.
    OpBuilder at(c.wait);
    Value view = sliceAt(at, k.getInductionVar());
    for (Operation *op : c.readers)
      op->replaceUsesOfWith(c.buffer.getResult(), view);
    c.wait.erase();
    c.dma.erase();
    // The source's address math, now unused in the loop.
    for (Operation *op : llvm::reverse(defs))
      if (op->use_empty())
        op->erase();
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
