//===- MemoryDependence.cpp - Memory dependences between accel ops --------===//
//
// The analysis of include/accel/Analysis/MemoryDependence.h; its
// contracts are documented there.
//
//===----------------------------------------------------------------------===//

#include "accel/Analysis/MemoryDependence.h"

#include "accel/Dialect/Accel/AccelOps.h"
#include "accel/Dialect/Accel/Views.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;

namespace accel {

bool forEachCarriedSource(Value v, llvm::function_ref<bool(Value)> leaf,
                          bool throughViews,
                          llvm::function_ref<void(scf::ForOp)> onLoop) {
  SmallVector<Value> work = {v};
  llvm::SmallPtrSet<Value, 8> seen;
  while (!work.empty()) {
    Value x = work.pop_back_val();
    if (throughViews)
      x = getRoot(x);
    if (!seen.insert(x).second)
      continue;
    scf::ForOp loop;
    unsigned index = 0;
    if (auto arg = dyn_cast<BlockArgument>(x)) {
      loop = dyn_cast_or_null<scf::ForOp>(arg.getOwner()->getParentOp());
      if (loop && arg.getArgNumber() > 0)
        index = arg.getArgNumber() - 1;
      else
        loop = nullptr;
    } else if (auto result = dyn_cast<OpResult>(x)) {
      loop = dyn_cast<scf::ForOp>(result.getOwner());
      index = result.getResultNumber();
    }
    if (!loop) {
      if (!leaf(x))
        return false;
      continue;
    }
    if (onLoop)
      onLoop(loop);
    work.push_back(loop.getInitArgs()[index]);
    work.push_back(loop.getBody()->getTerminator()->getOperand(index));
  }
  return true;
}

bool collectBuffers(Value root, llvm::SmallPtrSetImpl<Value> &out) {
  return forEachCarriedSource(
      root,
      [&](Value v) {
        auto arg = dyn_cast<BlockArgument>(v);
        bool known = v.getDefiningOp<AllocOp>() ||
                     (arg && arg.getOwner()->isEntryBlock() &&
                      isa_and_nonnull<FunctionOpInterface>(
                          arg.getOwner()->getParentOp()));
        if (known)
          out.insert(v);
        return known;
      },
      /*throughViews=*/true);
}

/// An accel.alloc result or a function argument: a root that is its own
/// buffer (collectBuffers), never another one.
static bool isDistinctBuffer(Value v) {
  return v.getDefiningOp<AllocOp>() ||
         (isa<BlockArgument>(v) &&
          isa_and_nonnull<FunctionOpInterface>(
              cast<BlockArgument>(v).getOwner()->getParentOp()));
}

bool mayAlias(Value a, Value b) {
  if (a == b)
    return true;
  if (isDistinctBuffer(a) && isDistinctBuffer(b))
    return false;
  llvm::SmallPtrSet<Value, 8> sa, sb;
  if (!collectBuffers(a, sa) || !collectBuffers(b, sb))
    return true;
  return llvm::any_of(sa, [&](Value v) { return sb.contains(v); });
}

static std::optional<int64_t>
foldToConstant(Value v, Value bound, int64_t boundValue, unsigned depth) {
  if (bound && v == bound)
    return boundValue;
  if (std::optional<int64_t> c = getConstantIntValue(v))
    return c;
  Operation *op = v.getDefiningOp();
  if (!op || depth > 32 || op->getNumResults() != 1 ||
      op->getNumRegions() != 0 || !isMemoryEffectFree(op))
    return std::nullopt;
  SmallVector<Attribute> operands;
  for (Value o : op->getOperands()) {
    std::optional<int64_t> c = foldToConstant(o, bound, boundValue, depth + 1);
    if (!c || !(isa<IndexType>(o.getType()) || o.getType().isInteger()))
      return std::nullopt;
    operands.push_back(IntegerAttr::get(o.getType(), *c));
  }
  SmallVector<OpFoldResult> results;
  if (failed(op->fold(operands, results)) || results.size() != 1)
    return std::nullopt;
  if (auto folded = dyn_cast<Value>(results[0]))
    return folded == v ? std::nullopt
                       : foldToConstant(folded, bound, boundValue, depth + 1);
  if (auto i = dyn_cast_or_null<IntegerAttr>(cast<Attribute>(results[0])))
    if (i.getValue().getSignificantBits() <= 64)
      return i.getValue().getSExtValue();
  return std::nullopt;
}

std::optional<int64_t> foldToConstant(Value v, Value bound,
                                      int64_t boundValue) {
  return foldToConstant(v, bound, boundValue, 0);
}

LinearIndex LinearIndex::of(OpFoldResult ofr, unsigned depth) {
  LinearIndex r;
  if (auto attr = dyn_cast<Attribute>(ofr)) {
    r.constant = cast<IntegerAttr>(attr).getInt();
    return r;
  }
  Value v = cast<Value>(ofr);
  if (auto c = foldToConstant(v)) {
    r.constant = *c;
    return r;
  }
  Operation *def = v.getDefiningOp();
  if (def && depth < 8) {
    if (isa<arith::AddIOp, arith::SubIOp>(def)) {
      LinearIndex a = of(def->getOperand(0), depth + 1);
      LinearIndex b = of(def->getOperand(1), depth + 1);
      int64_t sign = isa<arith::SubIOp>(def) ? -1 : 1;
      for (auto [t, c] : b.terms)
        a.terms[t] += sign * c;
      a.constant += sign * b.constant;
      return a;
    }
    if (isa<arith::MulIOp>(def)) {
      for (unsigned i = 0; i < 2; ++i)
        if (auto c = foldToConstant(def->getOperand(1 - i))) {
          LinearIndex a = of(def->getOperand(i), depth + 1);
          for (auto &[t, coef] : a.terms)
            coef *= *c;
          a.constant *= *c;
          return a;
        }
    }
  }
  r.terms[v] = 1;
  return r;
}

std::optional<int64_t> LinearIndex::distanceTo(const LinearIndex &other) const {
  for (auto [t, c] : terms) {
    auto it = other.terms.find(t);
    if ((it == other.terms.end() ? 0 : it->second) != c)
      return std::nullopt;
  }
  for (auto [t, c] : other.terms)
    if (c != 0 && !terms.count(t))
      return std::nullopt;
  return other.constant - constant;
}

/// The range [lo, hi] of b's offset minus a's offset in one dimension,
/// from their linear forms, or nullopt when it is not bounded.
using OffsetDelta =
    llvm::function_ref<std::optional<std::pair<int64_t, int64_t>>(
        const LinearIndex &, const LinearIndex &)>;

/// Whether `x` is never negative: a constant plus induction variables of
/// scf.for loops with constant non-negative lower bounds and positive
/// steps, each with a positive coefficient, whose value at the lower
/// bounds is not negative. (arith.remui reads its operands as unsigned: a
/// slot formula is congruent across iterations only when no operand wraps.)
static bool isNonNegative(const LinearIndex &x) {
  int64_t least = x.constant;
  for (auto [t, c] : x.terms) {
    if (c == 0)
      continue;
    auto arg = dyn_cast<BlockArgument>(t);
    auto loop =
        arg ? dyn_cast_or_null<scf::ForOp>(arg.getOwner()->getParentOp())
            : scf::ForOp();
    if (!loop || arg != loop.getInductionVar() || c < 0)
      return false;
    std::optional<int64_t> lb = getConstantIntValue(loop.getLowerBound());
    std::optional<int64_t> step = getConstantIntValue(loop.getStep());
    int64_t term;
    if (!lb || !step || *lb < 0 || *step <= 0 ||
        llvm::MulOverflow(c, *lb, term) ||
        llvm::AddOverflow(least, term, least))
      return false;
  }
  return least >= 0;
}

/// An offset S * (x mod K) + rest with K a constant: a ring slot (a
/// hand-pipelined loop's `(i + 2) mod 3` tiles of S rows): the slot term
/// of the offset's linear form and its dividend x. `wraps`: the slot is
/// x mod K only for x >= 0 (arith.remui by a K that is not a power of two
/// reads a negative x as 2^64 + x; arith.remsi gives a negative slot).
struct SlotIndex {
  Value term, dividend;
  int64_t scale = 0, modulus = 0;
  bool wraps = false;
};

/// The one slot term of `li` (arith.remui or remsi by a constant K > 0,
/// or arith.andi with a constant mask K - 1, K a power of two), or
/// nullopt (none, or several).
static std::optional<SlotIndex> slotIndexOf(const LinearIndex &li) {
  std::optional<SlotIndex> out;
  for (auto [t, c] : li.terms) {
    Operation *def = Value(t).getDefiningOp();
    if (!def || c == 0 ||
        !isa<arith::RemUIOp, arith::RemSIOp, arith::AndIOp>(def))
      continue;
    Value dividend = def->getOperand(0);
    std::optional<int64_t> k = foldToConstant(def->getOperand(1));
    bool wraps = true;
    if (isa<arith::AndIOp>(def)) {
      if (!k) { // the mask may come first
        dividend = def->getOperand(1);
        k = foldToConstant(def->getOperand(0));
      }
      if (!k || *k < 0 || *k == INT64_MAX ||
          !llvm::isPowerOf2_64(uint64_t(*k) + 1))
        continue;
      k = *k + 1;
      wraps = false; // the low bits: x mod K for every x
    } else if (k && isa<arith::RemUIOp>(def)) {
      wraps = !llvm::isPowerOf2_64(uint64_t(*k));
    }
    if (!k || *k <= 0 || out)
      return std::nullopt;
    out = SlotIndex{t, dividend, c, *k, wraps};
  }
  return out;
}

/// The values b's offset minus a's can take in one dimension when both are
/// ring slots S * ((x + c) mod K) + rest of the same S and K whose
/// dividends differ by a constant e and rests by a constant r, b taken
/// `ivShift` later in the induction variable `iv` (0: the same
/// iteration): r + S * (e mod K) and r + S * (e mod K - K) (r alone when
/// e mod K is 0: the same slot). Empty when that is not known.
static SmallVector<int64_t, 2> slotDeltas(OpFoldResult a, OpFoldResult b,
                                          Value iv, int64_t ivShift) {
  LinearIndex restA = LinearIndex::of(a), restB = LinearIndex::of(b);
  std::optional<SlotIndex> sa = slotIndexOf(restA), sb = slotIndexOf(restB);
  if (!sa || !sb || sa->scale != sb->scale || sa->modulus != sb->modulus)
    return {};
  restA.terms.erase(sa->term);
  restB.terms.erase(sb->term);
  LinearIndex argA = LinearIndex::of(sa->dividend);
  LinearIndex argB = LinearIndex::of(sb->dividend);
  int64_t k = sa->modulus;
  if ((sa->wraps && !isNonNegative(argA)) ||
      (sb->wraps && !isNonNegative(argB)))
    return {};
  auto shift = [&](LinearIndex &x) {
    auto it = iv ? x.terms.find(iv) : x.terms.end();
    if (it != x.terms.end())
      x.constant += it->second * ivShift;
  };
  shift(argB);
  shift(restB);
  std::optional<int64_t> e = argA.distanceTo(argB);
  std::optional<int64_t> r = restA.distanceTo(restB);
  if (!e || !r)
    return {};
  int64_t slots = ((*e % k) + k) % k;
  if (slots == 0)
    return {*r};
  return {*r + sa->scale * slots, *r + sa->scale * (slots - k)};
}

bool alwaysEqual(OpFoldResult a, OpFoldResult b) {
  if (std::optional<int64_t> d =
          LinearIndex::of(a).distanceTo(LinearIndex::of(b)))
    return *d == 0;
  SmallVector<int64_t, 2> slots = slotDeltas(a, b, Value(), 0);
  return slots.size() == 1 && slots[0] == 0;
}

/// Whether unit-stride subviews `sa` and `sb` of one source are disjoint:
/// in some dimension of unit stride and static sizes, b's offset minus a's
/// (from `delta`, or from slotDeltas for ring slots, b taken `ivShift`
/// later in `iv`) is always at least a's size or at most minus b's size.
static bool disjoint(memref::SubViewOp sa, memref::SubViewOp sb,
                     OffsetDelta delta, Value iv = {}, int64_t ivShift = 0) {
  auto offA = sa.getMixedOffsets(), offB = sb.getMixedOffsets();
  if (offA.size() != offB.size())
    return false;
  auto sizeA = sa.getStaticSizes(), sizeB = sb.getStaticSizes();
  auto strideA = sa.getStaticStrides(), strideB = sb.getStaticStrides();
  for (size_t d = 0; d < offA.size(); ++d) {
    if (strideA[d] != 1 || strideB[d] != 1 || ShapedType::isDynamic(sizeA[d]) ||
        ShapedType::isDynamic(sizeB[d]))
      continue;
    LinearIndex ia = LinearIndex::of(offA[d]), ib = LinearIndex::of(offB[d]);
    auto range = delta(ia, ib);
    if (range && (range->first >= sizeA[d] || -range->second >= sizeB[d]))
      return true;
    SmallVector<int64_t, 2> slots = slotDeltas(offA[d], offB[d], iv, ivShift);
    if (!slots.empty() && llvm::all_of(slots, [&](int64_t x) {
          return x >= sizeA[d] || -x >= sizeB[d];
        }))
      return true;
  }
  return false;
}

bool mayOverlap(Value a, Value b) {
  auto sa = a.getDefiningOp<memref::SubViewOp>();
  auto sb = b.getDefiningOp<memref::SubViewOp>();
  if (!sa || !sb || sa.getSource() != sb.getSource())
    return true;
  return !disjoint(sa, sb, [](const LinearIndex &ia, const LinearIndex &ib) {
    std::optional<int64_t> d = ia.distanceTo(ib);
    return d ? std::optional(std::make_pair(*d, *d)) : std::nullopt;
  });
}

/// Whether memref `v` names the same memory on every iteration of `loop`:
/// it is defined outside the loop, or it is a view op (a chain of them)
/// in the loop whose other operands are defined outside it (a view taken
/// again in the loop, accel-pipeline-dma's sinkViews).
static bool isInvariantIn(Value v, scf::ForOp loop) {
  while (true) {
    Operation *def = v.getDefiningOp();
    if (!loop->isAncestor(v.getParentRegion()->getParentOp()))
      return true;
    Value source = def ? getViewSource(def) : Value();
    if (!source)
      return false;
    for (Value operand : def->getOperands().drop_front())
      if (loop->isAncestor(operand.getParentRegion()->getParentOp()))
        return false;
    v = source;
  }
}

bool mayOverlapAcross(Value a, Value b, scf::ForOp loop, int64_t shift) {
  auto sa = a.getDefiningOp<memref::SubViewOp>();
  auto sb = b.getDefiningOp<memref::SubViewOp>();
  std::optional<int64_t> step = getConstantIntValue(loop.getStep());
  if (!sa || !sb || !step || sa.getSource() != sb.getSource() ||
      !isInvariantIn(sa.getSource(), loop) ||
      sa.getMixedOffsets().size() != sb.getMixedOffsets().size())
    return true;
  Value iv = loop.getInductionVar();
  // The range [lo, hi] of the induction variable of a loop nested in
  // `loop` with constant bounds (it takes independent values in the two
  // iterations compared).
  auto innerRange = [&](Value v) -> std::optional<std::pair<int64_t, int64_t>> {
    auto arg = dyn_cast<BlockArgument>(v);
    auto inner =
        arg ? dyn_cast_or_null<scf::ForOp>(arg.getOwner()->getParentOp())
            : scf::ForOp();
    if (!inner || inner == loop || !loop->isAncestor(inner) ||
        arg != inner.getInductionVar())
      return std::nullopt;
    auto lb = getConstantIntValue(inner.getLowerBound());
    auto ub = getConstantIntValue(inner.getUpperBound());
    auto st = getConstantIntValue(inner.getStep());
    if (!lb || !ub || !st || *st <= 0 || *ub <= *lb)
      return std::nullopt;
    return std::make_pair(*lb, *lb + (*ub - *lb - 1) / *st * *st);
  };
  // Moves the inner induction variables' terms of `x` into [lo, hi]
  // bounds; false when another term varies in the loop.
  auto split = [&](LinearIndex &x, int64_t &lo, int64_t &hi) {
    lo = hi = 0;
    SmallVector<Value> inner;
    for (auto &[t, c] : x.terms) {
      if (t == iv || c == 0 ||
          !loop->isAncestor(Value(t).getParentRegion()->getParentOp()))
        continue;
      auto range = innerRange(t);
      if (!range)
        return false;
      lo += std::min(c * range->first, c * range->second);
      hi += std::max(c * range->first, c * range->second);
      inner.push_back(t);
    }
    for (Value t : inner)
      x.terms.erase(t);
    return true;
  };
  return !disjoint(
      sa, sb,
      [&](const LinearIndex &a,
          const LinearIndex &b) -> std::optional<std::pair<int64_t, int64_t>> {
        LinearIndex ia = a, ib = b;
        int64_t loA, hiA, loB, hiB;
        if (!split(ia, loA, hiA) || !split(ib, loB, hiB))
          return std::nullopt;
        auto it = ib.terms.find(iv);
        if (it != ib.terms.end())
          ib.constant += it->second * shift * *step;
        std::optional<int64_t> delta = ia.distanceTo(ib);
        if (!delta)
          return std::nullopt;
        // b's offset minus a's over the inner loops' values.
        return std::make_pair(*delta + loB - hiA, *delta + hiB - loA);
      },
      iv, shift **step);
}

AccessWalk forEachOwnAccess(Operation *op,
                            llvm::function_ref<bool(Value, bool)> fn) {
  if (op->hasTrait<OpTrait::HasRecursiveMemoryEffects>() ||
      isMemoryEffectFree(op) || isa<AllocOp>(op))
    return AccessWalk::Done;
  if (isa<SemWaitOp>(op)) {
    // The DMAs that signal a semaphore (from this chip or, running the
    // same function, from another) are known done here: their writes.
    auto func = op->getParentOfType<FunctionOpInterface>();
    if (!func)
      return AccessWalk::Unknown;
    // A remote DMA's buffer on the other chip is touched by that chip's
    // protocol, which only the semaphores order: the wait counts as a
    // write of it too, so no remote DMA crosses the wait.
    WalkResult r = func->walk([&](DmaStartOp dma) {
      bool stop = false;
      if (dma.getSignal() || dma.getDstChip())
        stop = !fn(getRoot(dma.getDst()), true);
      if (!stop && dma.getSrcChip())
        stop = !fn(getRoot(dma.getSrc()), true);
      return stop ? WalkResult::interrupt() : WalkResult::advance();
    });
    return r.wasInterrupted() ? AccessWalk::Stopped : AccessWalk::Done;
  }
  auto iface = dyn_cast<MemoryEffectOpInterface>(op);
  if (!iface)
    return AccessWalk::Unknown;
  SmallVector<MemoryEffects::EffectInstance> effects;
  iface.getEffects(effects);
  for (auto &e : effects) {
    if (isa<MemoryEffects::Allocate, MemoryEffects::Free>(e.getEffect()))
      continue;
    if (!e.getValue())
      return AccessWalk::Unknown;
    if (!fn(e.getValue(), isa<MemoryEffects::Write>(e.getEffect())))
      return AccessWalk::Stopped;
  }
  return AccessWalk::Done;
}

std::string describeLoc(Location loc) {
  std::string s;
  llvm::raw_string_ostream os(s);
  if (auto flc = dyn_cast<FileLineColLoc>(loc))
    os << flc.getFilename().getValue() << ":" << flc.getLine() << ":"
       << flc.getColumn();
  else if (auto named = dyn_cast<NameLoc>(loc))
    return describeLoc(named.getChildLoc());
  else if (auto fused = dyn_cast<FusedLoc>(loc);
           fused && !fused.getLocations().empty())
    return describeLoc(fused.getLocations().front());
  else
    os << loc;
  return s;
}

std::string describeBuffer(Value v) {
  std::string s;
  llvm::raw_string_ostream os(s);
  if (Operation *def = v.getDefiningOp(); def && !isa<scf::ForOp>(def))
    os << (isa<AllocOp>(def) ? "the buffer allocated at "
                             : "the memref defined at ")
       << describeLoc(def->getLoc());
  else if (auto arg = dyn_cast<BlockArgument>(v);
           arg &&
           isa_and_nonnull<FunctionOpInterface>(arg.getOwner()->getParentOp()))
    os << "argument " << arg.getArgNumber();
  else
    os << "a buffer carried in a loop's iter_args";
  return s;
}

MemoryAccess::MemoryAccess(Operation *op, Value view, bool write)
    : op(op), view(view), root(getRoot(view)), write(write),
      distinctRoot(isDistinctBuffer(root)) {}

/// "'accel.vadd' at LOC" (for remarks).
static std::string describeOp(Operation *op) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << "'" << op->getName() << "' at " << describeLoc(op->getLoc());
  return s;
}

std::string MemoryAccess::describe() const {
  return std::string(write ? "a write of " : "a read of ") +
         describeBuffer(root) + " by " + describeOp(op);
}

Operation *collectAccesses(Operation *root, SmallVectorImpl<MemoryAccess> &out,
                           DmaWindow window) {
  Operation *unknown = nullptr;
  root->walk([&](Operation *op) {
    if (auto wait = dyn_cast<DmaWaitOp>(op)) {
      if (window == DmaWindow::Issue)
        return WalkResult::advance();
      auto dma = wait.getToken().getDefiningOp<DmaStartOp>();
      if (!dma) {
        unknown = op; // a token through an iter_arg: any DMA
        return WalkResult::interrupt();
      }
      out.emplace_back(op, dma.getSrc(), false);
      out.emplace_back(op, dma.getDst(), true);
      return WalkResult::advance();
    }
    if (auto mm = dyn_cast<MatmulOp>(op)) {
      // C is only written without `accumulate` (the op declares a read
      // either way).
      out.emplace_back(op, mm.getA(), false);
      out.emplace_back(op, mm.getB(), false);
      if (mm.getAccumulate())
        out.emplace_back(op, mm.getC(), false);
      out.emplace_back(op, mm.getC(), true);
      return WalkResult::advance();
    }
    if (forEachOwnAccess(op, [&](Value v, bool write) {
          out.emplace_back(op, v, write);
          return true;
        }) == AccessWalk::Unknown) {
      unknown = op;
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return unknown;
}

StringRef Dependence::kind() const {
  if (from.write && to.write)
    return "output";
  return from.write ? "flow" : "anti";
}

std::string Dependence::describe() const {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << (kind() == "flow" ? "a " : "an ") << kind() << " dependence on "
     << describeBuffer(from.root) << ": " << (from.write ? "written" : "read")
     << " by " << describeOp(from.op) << ", " << (to.write ? "written" : "read")
     << " by " << describeOp(to.op);
  if (distance == 1)
    os << " one iteration later";
  else if (distance > 1)
    os << " " << distance << " iterations later";
  return s;
}

/// Two distinct roots that are each their own buffer (mayAlias's second
/// rule, from the flags the constructor computed).
static bool distinctBuffers(const MemoryAccess &a, const MemoryAccess &b) {
  return a.distinctRoot && b.distinctRoot && a.root != b.root;
}

bool mayConflict(const MemoryAccess &a, const MemoryAccess &b) {
  return (a.write || b.write) && !distinctBuffers(a, b) &&
         mayAlias(a.root, b.root) && mayOverlap(a.view, b.view);
}

bool mayConflictAcross(const MemoryAccess &a, const MemoryAccess &b,
                       scf::ForOp loop, int64_t distance) {
  return (a.write || b.write) && !distinctBuffers(a, b) &&
         mayAlias(a.root, b.root) &&
         mayOverlapAcross(a.view, b.view, loop, distance);
}

std::optional<Dependence> findDependence(ArrayRef<MemoryAccess> earlier,
                                         ArrayRef<MemoryAccess> later) {
  for (const MemoryAccess &a : earlier)
    for (const MemoryAccess &b : later)
      if (mayConflict(a, b))
        return Dependence{a, b, 0};
  return std::nullopt;
}

std::optional<Dependence> findDependenceAcross(ArrayRef<MemoryAccess> earlier,
                                               ArrayRef<MemoryAccess> later,
                                               scf::ForOp loop,
                                               int64_t distance) {
  for (const MemoryAccess &a : earlier)
    for (const MemoryAccess &b : later)
      if (mayConflictAcross(a, b, loop, distance))
        return Dependence{a, b, distance};
  return std::nullopt;
}

} // namespace accel
