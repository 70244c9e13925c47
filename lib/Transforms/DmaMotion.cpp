//===- DmaMotion.cpp - Moving DMA ISSUEs earlier, legally -----------------===//
//
// The functions of DmaMotion.h (the legality reasoning shared by the DMA
// motion passes and --accel-pipeline-dma); their contracts are documented
// there.
//
//===----------------------------------------------------------------------===//

#include "DmaMotion.h"

#include "mlir/IR/Diagnostics.h"

namespace accel {
namespace detail {

LinearIndex LinearIndex::of(OpFoldResult ofr, unsigned depth) {
  LinearIndex r;
  if (auto attr = dyn_cast<Attribute>(ofr)) {
    r.constant = cast<IntegerAttr>(attr).getInt();
    return r;
  }
  Value v = cast<Value>(ofr);
  if (auto c = getConstantIntValue(v)) {
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
        if (auto c = getConstantIntValue(def->getOperand(1 - i))) {
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

bool collectBuffers(Value root, llvm::SmallPtrSetImpl<Value> &out) {
  SmallVector<Value> work = {root};
  llvm::SmallPtrSet<Value, 8> seen;
  while (!work.empty()) {
    Value v = getRoot(work.pop_back_val());
    if (!seen.insert(v).second)
      continue;
    scf::ForOp loop;
    unsigned index = 0;
    if (auto arg = dyn_cast<BlockArgument>(v)) {
      Operation *owner = arg.getOwner()->getParentOp();
      if (isa_and_nonnull<FunctionOpInterface>(owner) &&
          arg.getOwner()->isEntryBlock()) {
        out.insert(v);
        continue;
      }
      loop = dyn_cast_or_null<scf::ForOp>(owner);
      if (!loop || arg.getArgNumber() == 0)
        return false;
      index = arg.getArgNumber() - 1;
    } else if (auto result = dyn_cast<OpResult>(v)) {
      if (isa<AllocOp>(result.getOwner())) {
        out.insert(v);
        continue;
      }
      loop = dyn_cast<scf::ForOp>(result.getOwner());
      if (!loop)
        return false;
      index = result.getResultNumber();
    }
    work.push_back(loop.getInitArgs()[index]);
    work.push_back(loop.getBody()->getTerminator()->getOperand(index));
  }
  return true;
}

bool mayAlias(Value a, Value b) {
  if (a == b)
    return true;
  auto plain = [](Value v) {
    return v.getDefiningOp<AllocOp>() ||
           (isa<BlockArgument>(v) &&
            isa_and_nonnull<FunctionOpInterface>(
                cast<BlockArgument>(v).getOwner()->getParentOp()));
  };
  if (plain(a) && plain(b))
    return false;
  llvm::SmallPtrSet<Value, 8> sa, sb;
  if (!collectBuffers(a, sa) || !collectBuffers(b, sb))
    return true;
  return llvm::any_of(sa, [&](Value v) { return sb.contains(v); });
}

AccessWalk forEachOwnAccess(Operation *op,
                            llvm::function_ref<bool(Value, bool)> fn) {
  if (op->hasTrait<OpTrait::HasRecursiveMemoryEffects>() ||
      isMemoryEffectFree(op) || isa<AllocOp>(op))
    return AccessWalk::Done;
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

int64_t getMetric(Operation *op, StringRef name) {
  auto a = op->getAttrOfType<IntegerAttr>(name);
  if (!a || a.getValue().getSignificantBits() > 64)
    return 0;
  return std::clamp<int64_t>(a.getValue().getSExtValue(), -kMaxMetricValue,
                             kMaxMetricValue);
}

bool hasAttachedMetrics(Operation *root) {
  static constexpr llvm::StringLiteral kMetrics[] = {
      "accel.executions",      "accel.stall_base", "accel.stall_transfer",
      "accel.slack",           "accel.min_slack",  "accel.stall_slots",
      "accel.transfer_cycles", "accel.dma_cycles", "accel.busy_cycles",
      "accel.backtail",        "accel.costs",      "accel.suggestions"};
  return root
      ->walk([](Operation *op) {
        for (llvm::StringLiteral name : kMetrics)
          if (op->hasAttr(name))
            return WalkResult::interrupt();
        return WalkResult::advance();
      })
      .wasInterrupted();
}

bool warnIfNoMetrics(func::FuncOp func, StringRef pass, bool all, bool hasAll) {
  if (all || hasAttachedMetrics(func))
    return false;
  InFlightDiagnostic w = func.emitWarning()
                         << pass << ": no op of function '" << func.getSymName()
                         << "' carries metrics, so nothing changes; run "
                            "--accel-attach-metrics=metrics.json first (the "
                            "metrics.json of accel-replay run)";
  if (hasAll)
    w << ", or pass all=true";
  return true;
}

int64_t getStallCycles(Operation *dma) {
  return getMetric(dma, "accel.stall_base") +
         getMetric(dma, "accel.stall_transfer");
}

bool waitIsCritical(Operation *dma) {
  if (getStallCycles(dma) > 0)
    return true;
  return dma->hasAttr("accel.min_slack") &&
         getMetric(dma, "accel.min_slack") <
             getMetric(dma, "accel.transfer_cycles");
}

uint64_t allocatedVmemBytes(Operation *root, uint64_t page) {
  uint64_t bytes = 0;
  root->walk([&](AllocOp a) {
    if (auto t = getTileShape(a.getType(), nullptr, /*allowI32=*/true);
        succeeded(t))
      bytes += llvm::alignTo(uint64_t(t->bytes()), std::max<uint64_t>(page, 1));
  });
  return bytes;
}

DmaWaitOp getOnlyWait(DmaStartOp dma) {
  Value token = dma.getToken();
  if (!token.hasOneUse())
    return nullptr;
  return dyn_cast<DmaWaitOp>(*token.getUsers().begin());
}

bool usedOnlyInside(Value value, Operation *op) {
  return llvm::all_of(value.getUsers(),
                      [&](Operation *user) { return op->isAncestor(user); });
}

bool mayOverlap(Value a, Value b) {
  auto sa = a.getDefiningOp<memref::SubViewOp>();
  auto sb = b.getDefiningOp<memref::SubViewOp>();
  if (!sa || !sb || sa.getSource() != sb.getSource() ||
      sa.getMixedOffsets().size() != sb.getMixedOffsets().size())
    return true;
  auto offA = sa.getMixedOffsets(), offB = sb.getMixedOffsets();
  auto sizeA = sa.getStaticSizes(), sizeB = sb.getStaticSizes();
  auto strideA = sa.getStaticStrides(), strideB = sb.getStaticStrides();
  for (size_t d = 0; d < offA.size(); ++d) {
    if (strideA[d] != 1 || strideB[d] != 1 || ShapedType::isDynamic(sizeA[d]) ||
        ShapedType::isDynamic(sizeB[d]))
      continue;
    std::optional<int64_t> delta =
        LinearIndex::of(offA[d]).distanceTo(LinearIndex::of(offB[d]));
    if (delta && (*delta >= sizeA[d] || -*delta >= sizeB[d]))
      return false;
  }
  return true;
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
  auto offA = sa.getMixedOffsets(), offB = sb.getMixedOffsets();
  auto sizeA = sa.getStaticSizes(), sizeB = sb.getStaticSizes();
  auto strideA = sa.getStaticStrides(), strideB = sb.getStaticStrides();
  for (size_t d = 0; d < offA.size(); ++d) {
    if (strideA[d] != 1 || strideB[d] != 1 || ShapedType::isDynamic(sizeA[d]) ||
        ShapedType::isDynamic(sizeB[d]))
      continue;
    LinearIndex ia = LinearIndex::of(offA[d]), ib = LinearIndex::of(offB[d]);
    int64_t loA, hiA, loB, hiB;
    if (!split(ia, loA, hiA) || !split(ib, loB, hiB))
      continue;
    auto it = ib.terms.find(iv);
    if (it != ib.terms.end())
      ib.constant += it->second * shift * *step;
    std::optional<int64_t> delta = ia.distanceTo(ib);
    // b's offset minus a's lies in [*delta + loB - hiA, *delta + hiB - loA].
    if (delta &&
        (*delta + loB - hiA >= sizeA[d] || -(*delta + hiB - loA) >= sizeB[d]))
      return false;
  }
  return true;
}

bool runsAtLeastOnce(scf::ForOp loop) {
  auto lb = getConstantIntValue(loop.getLowerBound());
  auto ub = getConstantIntValue(loop.getUpperBound());
  auto step = getConstantIntValue(loop.getStep());
  return lb && ub && step && *step > 0 && *ub > *lb;
}

void collectLoopDefs(ValueRange values, scf::ForOp loop,
                     llvm::SetVector<Operation *> &defs, bool withAllocs) {
  for (Value v : values) {
    Operation *def = v.getDefiningOp();
    if (def && def->getBlock() == loop.getBody() &&
        (isMemoryEffectFree(def) || (withAllocs && isa<AllocOp>(def))) &&
        def->getNumRegions() == 0 && defs.insert(def))
      collectLoopDefs(def->getOperands(), loop, defs, withAllocs);
  }
}

bool areLoopInvariant(ValueRange values, scf::ForOp loop,
                      llvm::SetVector<Operation *> &defs, Operation **unsafe) {
  collectLoopDefs(values, loop, defs, /*withAllocs=*/false);
  auto invariant = [&](Value v) {
    return !loop->isAncestor(v.getParentRegion()->getParentOp()) ||
           defs.contains(v.getDefiningOp());
  };
  if (!llvm::all_of(values, invariant))
    return false;
  for (Operation *def : defs)
    if (!llvm::all_of(def->getOperands(), invariant))
      return false;
  if (!runsAtLeastOnce(loop))
    for (Operation *def : defs)
      if (!isPure(def)) {
        if (unsafe)
          *unsafe = def;
        return false;
      }
  return true;
}

} // namespace detail
} // namespace accel
