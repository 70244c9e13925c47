//===- AffineFns.cpp - Affine functions of SSA values ---------------------===//
//
// The functions of AffineFns.h; their contracts are documented there.
//
//===----------------------------------------------------------------------===//

#include "AffineFns.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/IR/AffineExprVisitor.h"

namespace accel::affinedma {

AffineFns normalize(AffineMap map, ValueRange values) {
  SmallVector<Value> operands(values);
  affine::fullyComposeAffineMapAndOperands(&map, &operands);
  MLIRContext *ctx = map.getContext();
  AffineFns fns;
  SmallVector<AffineExpr> dims, syms;
  auto bind = [&](Value v) -> AffineExpr {
    if (std::optional<int64_t> c = getConstantIntValue(v))
      return getAffineConstantExpr(*c, ctx);
    auto *it = llvm::find(fns.operands, v);
    if (it == fns.operands.end()) {
      fns.operands.push_back(v);
      it = std::prev(fns.operands.end());
    }
    return getAffineDimExpr(it - fns.operands.begin(), ctx);
  };
  for (unsigned i = 0; i < map.getNumDims(); ++i)
    dims.push_back(bind(operands[i]));
  for (unsigned i = 0; i < map.getNumSymbols(); ++i)
    syms.push_back(bind(operands[map.getNumDims() + i]));
  for (AffineExpr e : map.getResults())
    fns.exprs.push_back(simplifyAffineExpr(e.replaceDimsAndSymbols(dims, syms),
                                           fns.operands.size(), 0));
  return fns;
}

AffineExpr remap(AffineExpr expr, ArrayRef<Value> from,
                 SmallVectorImpl<Value> &into) {
  SmallVector<AffineExpr> dims;
  for (Value v : from) {
    auto *it = llvm::find(into, v);
    if (it == into.end()) {
      into.push_back(v);
      it = std::prev(into.end());
    }
    dims.push_back(getAffineDimExpr(it - into.begin(), expr.getContext()));
  }
  return expr.replaceDims(dims);
}

AffineFns substitute(const AffineFns &fns, Value iv,
                     llvm::function_ref<AffineExpr(AffineExpr)> replacement) {
  AffineFns out = fns;
  auto *it = llvm::find(fns.operands, iv);
  if (it == fns.operands.end())
    return out;
  AffineExpr dim = getAffineDimExpr(it - fns.operands.begin(), iv.getContext());
  for (AffineExpr &e : out.exprs)
    e = simplifyAffineExpr(e.replace(dim, replacement(dim)),
                           out.operands.size(), 0);
  return out;
}

std::optional<IvRange> getIvRange(Value v) {
  affine::AffineForOp loop = affine::getForInductionVarOwner(v);
  if (!loop || !loop.hasConstantBounds())
    return std::nullopt;
  return IvRange{loop.getConstantLowerBound(), loop.getConstantUpperBound(),
                 loop.getStepAsInt()};
}

std::optional<int64_t> evaluate(AffineExpr e, ArrayRef<int64_t> dims) {
  if (auto c = dyn_cast<AffineConstantExpr>(e))
    return c.getValue();
  if (auto d = dyn_cast<AffineDimExpr>(e))
    return dims[d.getPosition()];
  auto bin = dyn_cast<AffineBinaryOpExpr>(e);
  if (!bin)
    return std::nullopt;
  std::optional<int64_t> l = evaluate(bin.getLHS(), dims);
  std::optional<int64_t> r = evaluate(bin.getRHS(), dims);
  if (!l || !r)
    return std::nullopt;
  switch (e.getKind()) {
  case AffineExprKind::Add:
    return *l + *r;
  case AffineExprKind::Mul:
    return *l * *r;
  case AffineExprKind::Mod:
    return *r > 0 ? std::optional<int64_t>(llvm::mod(*l, *r)) : std::nullopt;
  case AffineExprKind::FloorDiv:
    return *r > 0 ? std::optional<int64_t>(llvm::divideFloorSigned(*l, *r))
                  : std::nullopt;
  case AffineExprKind::CeilDiv:
    return *r > 0 ? std::optional<int64_t>(llvm::divideCeilSigned(*l, *r))
                  : std::nullopt;
  default:
    return std::nullopt;
  }
}

bool forEachPoint(AffineExpr e, ArrayRef<Value> operands,
                  llvm::function_ref<bool(ArrayRef<int64_t>)> fn) {
  SmallVector<unsigned> used;
  SmallVector<IvRange> ranges;
  int64_t points = 1;
  for (unsigned i = 0; i < operands.size(); ++i) {
    if (!e.isFunctionOfDim(i))
      continue;
    std::optional<IvRange> range = getIvRange(operands[i]);
    if (!range || range->step <= 0)
      return false;
    int64_t trips = range->ub > range->lb
                        ? llvm::divideCeil(range->ub - range->lb, range->step)
                        : 0;
    if (trips == 0)
      return true; // nothing to check: the code never runs
    points *= trips;
    if (points > kMaxEvaluations)
      return false;
    used.push_back(i);
    ranges.push_back(*range);
  }
  SmallVector<int64_t> values(operands.size(), 0);
  for (auto [i, range] : llvm::zip(used, ranges))
    values[i] = range.lb;
  while (true) {
    if (!fn(values))
      return true;
    unsigned k = 0;
    for (; k < used.size(); ++k) {
      values[used[k]] += ranges[k].step;
      if (values[used[k]] < ranges[k].ub)
        break;
      values[used[k]] = ranges[k].lb;
    }
    if (k == used.size())
      return true;
  }
}

bool provablyEqual(AffineExpr a, AffineExpr b, ArrayRef<Value> operands) {
  AffineExpr diff = simplifyAffineExpr(a - b, operands.size(), 0);
  if (auto c = dyn_cast<AffineConstantExpr>(diff))
    return c.getValue() == 0;
  bool equal = true;
  bool checked = forEachPoint(diff, operands, [&](ArrayRef<int64_t> point) {
    std::optional<int64_t> v = evaluate(diff, point);
    equal = v && *v == 0;
    return equal;
  });
  return checked && equal;
}

bool sameElement(const AffineFns &a, const AffineFns &b) {
  if (a.exprs.size() != b.exprs.size())
    return false;
  SmallVector<Value> operands(a.operands);
  for (auto [ea, eb] : llvm::zip(a.exprs, b.exprs))
    if (!provablyEqual(remap(ea, a.operands, operands),
                       remap(eb, b.operands, operands), operands))
      return false;
  return true;
}

std::optional<int64_t> getMax(AffineExpr e, ArrayRef<Value> operands) {
  std::optional<int64_t> best;
  bool ok = true;
  bool checked = forEachPoint(e, operands, [&](ArrayRef<int64_t> point) {
    std::optional<int64_t> v = evaluate(e, point);
    if (!v)
      return ok = false;
    best = best ? std::max(*best, *v) : *v;
    return true;
  });
  if (!checked || !ok)
    return std::nullopt;
  return best;
}

bool hasDivision(AffineExpr e) {
  bool found = false;
  e.walk([&](AffineExpr sub) {
    found |= sub.getKind() == AffineExprKind::FloorDiv ||
             sub.getKind() == AffineExprKind::CeilDiv ||
             sub.getKind() == AffineExprKind::Mod;
  });
  return found;
}

std::string formatExpr(AffineExpr e) {
  std::string s;
  llvm::raw_string_ostream os(s);
  e.print(os);
  return s;
}

std::string formatFns(const AffineFns &fns) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << "[";
  llvm::interleaveComma(fns.exprs, os);
  os << "]";
  return s;
}

} // namespace accel::affinedma
