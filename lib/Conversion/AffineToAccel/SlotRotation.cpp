//===- SlotRotation.cpp - Multi-buffer slot arithmetic as rotating values -===//
//
// The last step of convert-affine-dma-to-accel (Passes.td): the `mod` and
// `floordiv` slot arithmetic that multi-buffered affine loops use (e.g.
// `(iv mod 2) * 4096`) becomes values rotated through the loop's iter_args,
// as accel's scalar core has no division.
//
//===----------------------------------------------------------------------===//

#include "AffineFns.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/LoopLikeInterface.h"
#include "llvm/ADT/MapVector.h"

#include <functional>
#include <numeric>

using namespace mlir;
using namespace accel::affinedma;

/// Longest period of a rotated `mod` slot value.
static constexpr int64_t kMaxPeriod = 16;

namespace {
/// The part of an index computation that divides, as a function `expr` of
/// one loop IV (dim 0): it repeats every `period` iterations, up by
/// `drift` (`(iv mod 2) * 4096` has period 2 and drift 0, `iv floordiv 2`
/// period 2 and drift 1).
struct Periodic {
  AffineExpr expr;
  int64_t period = 1, drift = 0;
};

} // namespace

/// Splits `e` (over `operands`) into the terms that divide, summed per
/// loop IV in `parts`, and returns the rest; or an error at `op` for
/// division the rotation cannot express.
static FailureOr<AffineExpr>
splitPeriodic(Operation *op, AffineExpr e, ArrayRef<Value> operands,
              llvm::MapVector<Value, AffineExpr> &parts) {
  SmallVector<AffineExpr> terms;
  std::function<void(AffineExpr)> flatten = [&](AffineExpr t) {
    if (t.getKind() == AffineExprKind::Add) {
      auto add = cast<AffineBinaryOpExpr>(t);
      flatten(add.getLHS());
      flatten(add.getRHS());
    } else {
      terms.push_back(t);
    }
  };
  flatten(e);
  MLIRContext *ctx = e.getContext();
  auto dimsOf = [&](AffineExpr term) {
    SmallVector<unsigned> dims;
    for (unsigned i = 0; i < operands.size(); ++i)
      if (term.isFunctionOfDim(i))
        dims.push_back(i);
    return dims;
  };
  // The IVs that are divided; every term of one of them alone goes with
  // its divisions (`d0 - (d0 floordiv 2) * 2` is `d0 mod 2`, which
  // repeats).
  llvm::SmallDenseSet<unsigned> divided;
  for (AffineExpr term : terms) {
    if (!hasDivision(term))
      continue;
    SmallVector<unsigned> dims = dimsOf(term);
    affine::AffineForOp loop;
    if (dims.size() == 1)
      loop = affine::getForInductionVarOwner(operands[dims[0]]);
    if (!loop || !loop.hasConstantLowerBound())
      return op->emitError()
             << "computes " << formatExpr(term)
             << ": accel's scalar core has no division; only division of "
                "one affine.for IV (with a constant lower bound) can become "
                "a rotating loop value";
    divided.insert(dims[0]);
  }
  AffineExpr rest = getAffineConstantExpr(0, ctx);
  for (AffineExpr term : terms) {
    SmallVector<unsigned> dims = dimsOf(term);
    if (dims.size() != 1 || !divided.contains(dims[0])) {
      rest = rest + term;
      continue;
    }
    // Over the IV alone (dim 0).
    SmallVector<AffineExpr> only(operands.size(),
                                 getAffineConstantExpr(0, ctx));
    only[dims[0]] = getAffineDimExpr(0, ctx);
    AffineExpr &part = parts[operands[dims[0]]];
    part =
        (part ? part : getAffineConstantExpr(0, ctx)) + term.replaceDims(only);
  }
  for (auto &entry : parts)
    entry.second = simplifyAffineExpr(entry.second, 1, 0);
  return simplifyAffineExpr(rest, operands.size(), 0);
}

/// The period and drift of `expr` (of dim 0) over `loop`'s iterations.
static FailureOr<Periodic> findPeriod(Operation *op, AffineExpr expr,
                                      affine::AffineForOp loop) {
  int64_t step = loop.getStepAsInt();
  Value iv = loop.getInductionVar();
  for (int64_t period = 1; period <= kMaxPeriod; ++period) {
    AffineExpr d0 = getAffineDimExpr(0, expr.getContext());
    AffineExpr diff =
        simplifyAffineExpr(expr.replace(d0, d0 + period * step) - expr, 1, 0);
    if (auto c = dyn_cast<AffineConstantExpr>(diff))
      return Periodic{expr, period, c.getValue()};
    // Not constant by simplification: check at every iteration.
    std::optional<int64_t> drift;
    bool constant = true;
    bool checked = forEachPoint(diff, {iv}, [&](ArrayRef<int64_t> point) {
      std::optional<int64_t> v = evaluate(diff, point);
      constant = v && (!drift || *drift == *v);
      drift = v;
      return constant;
    });
    if (checked && constant && drift)
      return Periodic{expr, period, *drift};
  }
  return op->emitError() << "computes " << formatExpr(expr)
                         << " of a loop IV: accel's scalar core has no "
                            "division, and its values do not repeat within "
                         << kMaxPeriod << " iterations";
}

/// Erases the affine.apply ops of `func` nothing reads, until none is left
/// (upstream's pipelining leaves some; the tag indices went with the
/// tags): they need no values.
static void eraseDeadApplies(func::FuncOp func, RewriterBase &rewriter) {
  bool erased = true;
  while (erased) {
    erased = false;
    func.walk([&](affine::AffineApplyOp apply) {
      if (apply->use_empty()) {
        rewriter.eraseOp(apply);
        erased = true;
      }
    });
  }
}

/// The periodic values of each loop (by its op), in the order the applies
/// of `func` first need them, and those applies (in `applies`). Errors: the
/// division splitPeriodic or findPeriod cannot express.
static FailureOr<llvm::MapVector<Operation *, SmallVector<Periodic>>>
findPeriodicValues(func::FuncOp func,
                   SmallVectorImpl<affine::AffineApplyOp> &applies) {
  llvm::MapVector<Operation *, SmallVector<Periodic>> wanted;
  WalkResult walk = func.walk([&](affine::AffineApplyOp apply) {
    AffineFns fns = normalize(apply.getAffineMap(), apply.getMapOperands());
    llvm::MapVector<Value, AffineExpr> parts;
    if (failed(splitPeriodic(apply, fns.exprs[0], fns.operands, parts)))
      return WalkResult::interrupt();
    if (parts.empty())
      return WalkResult::advance();
    applies.push_back(apply);
    for (auto &[iv, expr] : parts) {
      affine::AffineForOp loop = affine::getForInductionVarOwner(iv);
      SmallVector<Periodic> &list = wanted[loop];
      if (llvm::any_of(list, [&](const Periodic &p) { return p.expr == expr; }))
        continue;
      FailureOr<Periodic> periodic = findPeriod(apply, expr, loop);
      if (failed(periodic))
        return WalkResult::interrupt();
      list.push_back(*periodic);
    }
    return WalkResult::advance();
  });
  if (walk.wasInterrupted())
    return failure();
  return wanted;
}

/// The values a loop yields for its `rotated` periodic values, whose
/// `period` values each are the iter_args `args` in order: each shifts by
/// one, and the first comes round again (plus its drift) as the last.
static SmallVector<Value> rotateYields(OpBuilder &b, Location loc,
                                       ArrayRef<BlockArgument> args,
                                       ArrayRef<const Periodic *> rotated) {
  SmallVector<Value> yields;
  unsigned first = 0;
  for (const Periodic *p : rotated) {
    for (int64_t j = 1; j < p->period; ++j)
      yields.push_back(args[first + j]);
    Value again = args[first];
    if (p->drift != 0)
      again = arith::AddIOp::create(
          b, loc, again, arith::ConstantIndexOp::create(b, loc, p->drift));
    yields.push_back(again);
    first += p->period;
  }
  return yields;
}

/// The value of each periodic expression in a loop, by the loop's IV.
using LoopValues = DenseMap<Value, SmallVector<std::pair<AffineExpr, Value>>>;

/// Makes `loop` carry, per periodic value of `list`, its values in the next
/// `period` iterations as iter_args and rotate them (adding the drift to
/// the one that comes round again); one that never changes is a constant
/// before the loop. Adds each value to `values` under the (new) loop's IV.
/// Errors: iter_args that cannot be added.
static LogicalResult carryPeriodicValues(RewriterBase &rewriter,
                                         affine::AffineForOp loop,
                                         ArrayRef<Periodic> list,
                                         LoopValues &values) {
  int64_t lb = loop.getConstantLowerBound();
  int64_t step = loop.getStepAsInt();
  rewriter.setInsertionPoint(loop);
  SmallVector<Value> carried;
  SmallVector<std::pair<AffineExpr, Value>> fixed;
  SmallVector<const Periodic *> rotated;
  for (const Periodic &p : list) {
    auto at = [&](int64_t j) {
      return arith::ConstantIndexOp::create(rewriter, loop.getLoc(),
                                            *evaluate(p.expr, {lb + j * step}));
    };
    if (p.period == 1 && p.drift == 0) {
      fixed.push_back({p.expr, at(0)});
      continue;
    }
    for (int64_t j = 0; j < p.period; ++j)
      carried.push_back(at(j));
    rotated.push_back(&p);
  }
  Value iv = loop.getInductionVar();
  if (!carried.empty()) {
    FailureOr<LoopLikeOpInterface> replaced = loop.replaceWithAdditionalYields(
        rewriter, carried, /*replaceInitOperandUsesInLoop=*/false,
        [&](OpBuilder &b, Location loc, ArrayRef<BlockArgument> args) {
          return rotateYields(b, loc, args, rotated);
        });
    if (failed(replaced))
      return loop.emitError("cannot add the loop's rotating index values");
    loop = cast<affine::AffineForOp>(replaced->getOperation());
    iv = loop.getInductionVar();
    unsigned arg = loop.getNumIterOperands() - carried.size();
    for (const Periodic *p : rotated) {
      values[iv].push_back({p->expr, loop.getRegionIterArgs()[arg]});
      arg += p->period;
    }
  }
  llvm::append_range(values[iv], fixed);
  return success();
}

/// Rewrites `apply` to read the rotating values of `values` instead of
/// dividing. Errors: those of splitPeriodic (none the first split found).
static LogicalResult readPeriodicValues(affine::AffineApplyOp apply,
                                        LoopValues &values,
                                        RewriterBase &rewriter) {
  AffineFns fns = normalize(apply.getAffineMap(), apply.getMapOperands());
  llvm::MapVector<Value, AffineExpr> parts;
  FailureOr<AffineExpr> rest =
      splitPeriodic(apply, fns.exprs[0], fns.operands, parts);
  if (failed(rest))
    return failure();
  AffineExpr e = *rest;
  SmallVector<Value> operands = fns.operands;
  for (auto &[iv, expr] : parts) {
    for (auto &[key, value] : values[iv])
      if (key == expr)
        operands.push_back(value);
    e = e + getAffineDimExpr(operands.size() - 1, apply.getContext());
  }
  rewriter.setInsertionPoint(apply);
  rewriter.replaceOpWithNewOp<affine::AffineApplyOp>(
      apply, AffineMap::get(operands.size(), 0, e), operands);
  return success();
}

LogicalResult accel::affinedma::rotateModulos(func::FuncOp func,
                                              RewriterBase &rewriter) {
  eraseDeadApplies(func, rewriter);
  // Which loops need which periodic values.
  SmallVector<affine::AffineApplyOp> applies;
  FailureOr<llvm::MapVector<Operation *, SmallVector<Periodic>>> wanted =
      findPeriodicValues(func, applies);
  if (failed(wanted))
    return failure();
  LoopValues values;
  for (auto &[op, list] : *wanted)
    if (failed(carryPeriodicValues(rewriter, cast<affine::AffineForOp>(op),
                                   list, values)))
      return failure();
  // Each index computation reads the rotating values instead of dividing.
  for (affine::AffineApplyOp apply : applies)
    if (failed(readPeriodicValues(apply, values, rewriter)))
      return failure();
  return success();
}
