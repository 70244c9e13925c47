//===- VpuBody.cpp - A linalg body's operands and ops for the VPU ---------===//
//
// VpuEmitter.h: how the VPU reads each operand of a linalg op (a tile, a
// column, a row, an element, a constant), which body ops the value it
// writes depends on and whether the VPU has them, and the VPU sequence of
// those ops.
//
//===----------------------------------------------------------------------===//

#include "VpuEmitter.h"

using namespace mlir;
using namespace accel;
using namespace accel::linalg_to_accel;

/// The loop each dimension of `operand` (of memref type `type`) of `op`
/// follows: the loop's position, or -1 for a constant 0 index of a
/// dimension of size 1; or the reason (naming `role`) when its indexing map
/// indexes a dimension by anything else.
static FailureOr<SmallVector<int64_t, 2>>
getFollowedLoops(linalg::LinalgOp op, OpOperand &operand, MemRefType type,
                 StringRef role, Refusal &refusal) {
  AffineMap map = op.getMatchingIndexingMap(&operand);
  SmallVector<int64_t, 2> follows;
  for (auto [k, e] : llvm::enumerate(map.getResults())) {
    if (auto d = dyn_cast<AffineDimExpr>(e)) {
      follows.push_back(d.getPosition());
      continue;
    }
    auto c = dyn_cast<AffineConstantExpr>(e);
    if (c && c.getValue() == 0 && type.getDimSize(k) == 1) {
      follows.push_back(-1);
      continue;
    }
    std::string text;
    llvm::raw_string_ostream os(text);
    os << map;
    refusal.reason = (role + "'s indexing map " + text +
                      " indexes a dimension by neither a loop index nor 0")
                         .str();
    return failure();
  }
  return follows;
}

FailureOr<VpuValue> linalg_to_accel::classifyOperand(linalg::LinalgOp op,
                                                     OpOperand &operand,
                                                     StringRef role,
                                                     Refusal &refusal) {
  Value v = operand.get();
  if (!isa<ShapedType>(v.getType())) {
    std::optional<float> c = getConstantFloat(v);
    if (!c) {
      refusal.reason =
          (role + " is a scalar that is not an f32 or bf16 constant").str();
      return failure();
    }
    return VpuValue::ofScalar(*c, v.getType());
  }
  if (failed(getVmemTile(v, role, refusal)))
    return failure();
  auto type = cast<MemRefType>(v.getType());
  FailureOr<SmallVector<int64_t, 2>> followed =
      getFollowedLoops(op, operand, type, role, refusal);
  if (failed(followed))
    return failure();
  ArrayRef<int64_t> follows = *followed;
  SmallVector<int64_t, 2> loops;
  for (int64_t f : follows)
    if (f >= 0)
      loops.push_back(f);
  unsigned numLoops = op.getNumLoops();
  bool rank1 = type.getRank() == 1;
  auto transposed = [&]() -> FailureOr<VpuValue> {
    refusal.reason = (role + " is a vector read along the other loop than "
                             "its own dimension (its indexing map swaps "
                             "rows and columns); write it as a 2-D operand "
                             "read in loop order")
                         .str();
    return failure();
  };
  if (numLoops == 1) {
    if (loops.size() == 1 && follows.back() == 0)
      return VpuValue::of(VpuValue::Tile, v);
    if (loops.size() == 1)
      return transposed();
  } else if (loops.size() == 2) {
    if (follows[0] == 0 && follows[1] == 1)
      return VpuValue::of(VpuValue::Tile, v);
    // (i, j) -> (j, i): the VPU transposes it first (docs/isa.md,
    // "Transposes").
    VpuValue t = VpuValue::of(VpuValue::Tile, v);
    t.needsTranspose = true;
    return t;
  } else if (loops.size() == 1 && loops[0] == 0) {
    // Indexed by the row i: R x 1, or R elements viewed as R x 1.
    if (follows[0] != 0)
      return transposed();
    VpuValue col = VpuValue::of(VpuValue::Column, v);
    col.needsColumnView = rank1;
    return col;
  } else if (loops.size() == 1) {
    // Indexed by the column j: 1 x C, or C elements (one row).
    if (follows.back() != 1)
      return transposed();
    return VpuValue::of(VpuValue::Row, v);
  }
  // One element read by every iteration (every dimension has size 1): a
  // value the VPU broadcasts.
  return VpuValue::of(VpuValue::Element, v);
}

namespace {

/// The checks of collectBody on the body `body` of an op with `numLoops`
/// loops whose classified operands are `values`: which ops the result
/// depends on (`live`), and whether each is a VPU op on known values or
/// index arithmetic (analyzed into `indexExprs`). Failures set `refusal`.
struct BodyChecker {
  Block &body;
  const DenseMap<Value, VpuValue> &values;
  unsigned numLoops;
  DenseMap<Value, IndexExpr> &indexExprs;
  Refusal &refusal;
  llvm::SmallPtrSet<Operation *, 8> live;

  /// The body ops `result` depends on, in body order (recorded in `live`).
  SmallVector<Operation *> collectLive(Value result);
  /// Whether `v` is an operand, a float constant or a live op's result.
  bool known(Value v) const {
    return values.count(v) || getConstantFloat(v) ||
           live.contains(v.getDefiningOp());
  }
  /// Whether the integer value `v` is index arithmetic IndexExpr reads.
  bool analyze(Value v) {
    return succeeded(
        analyzeIndexExpr(v, body, numLoops, indexExprs, refusal.reason));
  }
  /// Checks one live op: a float constant, index arithmetic, a comparison
  /// of indices, a conversion to float, or a VPU op on known values.
  LogicalResult checkOp(Operation *bodyOp);
  /// Checks that each operand of the VPU op `bodyOp` is known.
  LogicalResult checkOperands(Operation *bodyOp);
  /// Checks that `result` is known and an f32 or bf16 value.
  LogicalResult checkResult(Value result);
};

} // namespace

SmallVector<Operation *> BodyChecker::collectLive(Value result) {
  SmallVector<Value> worklist{result};
  while (!worklist.empty()) {
    Value v = worklist.pop_back_val();
    Operation *def = v.getDefiningOp();
    if (!def || def->getBlock() != &body || !live.insert(def).second)
      continue;
    llvm::append_range(worklist, def->getOperands());
  }
  SmallVector<Operation *> ops;
  for (Operation &bodyOp : body.without_terminator())
    if (live.contains(&bodyOp))
      ops.push_back(&bodyOp);
  return ops;
}

LogicalResult BodyChecker::checkOp(Operation *bodyOp) {
  if (bodyOp->getNumResults() == 1 && getConstantFloat(bodyOp->getResult(0)))
    return success();
  // Index arithmetic (IndexExpr.h): read where a comparison or a
  // conversion to float uses it.
  if (isIndexArithmetic(bodyOp))
    return success(analyze(bodyOp->getResult(0)));
  if (auto cmp = dyn_cast<arith::CmpIOp>(bodyOp)) {
    if (!getFloatPredicate(cmp.getPredicate())) {
      refusal.reason = "its body compares integers unsigned ('" +
                       arith::stringifyCmpIPredicate(cmp.getPredicate()).str() +
                       "'); the VPU compares index values as signed f32";
      return failure();
    }
    return success(analyze(cmp.getLhs()) && analyze(cmp.getRhs()));
  }
  if (isa<arith::SIToFPOp, arith::UIToFPOp>(bodyOp) &&
      isVpuFloat(bodyOp->getResult(0).getType())) {
    // A mask as a number (stablehlo's sign: uitofp of x != 0) is the
    // mask's own 1.0 / 0.0.
    if (isMaskToFloat(bodyOp))
      return success();
    return success(analyze(bodyOp->getOperand(0)));
  }
  if (!getVpuKind(bodyOp)) {
    refusal.reason = "its body has '" + bodyOp->getName().getStringRef().str() +
                     "', which has no VPU counterpart (the VPU adds, "
                     "subtracts, multiplies, divides, takes the maximum "
                     "and minimum, exp, expm1, log, log1p, sqrt, rsqrt, "
                     "tanh, erf, abs, copysign, floor, ceil, round and "
                     "roundeven, and negates f32 and bf16, converts "
                     "between them to nearest even, compares and selects, "
                     "and reads linalg.index)";
    return failure();
  }
  return checkOperands(bodyOp);
}

LogicalResult BodyChecker::checkOperands(Operation *bodyOp) {
  for (Value v : bodyOp->getOperands()) {
    if (known(v))
      continue;
    if (isa<BlockArgument>(v) && cast<BlockArgument>(v).getOwner() == &body)
      refusal.reason = "its body reads the output's value, which a "
                       "reduction may only combine into (acc + x, max(acc, "
                       "x))";
    else
      refusal.reason = "its body uses a value defined outside it that is "
                       "not a constant (the VPU ops take f32 and bf16 "
                       "constants only)";
    return failure();
  }
  return success();
}

LogicalResult BodyChecker::checkResult(Value result) {
  if (!known(result)) {
    refusal.reason = "it yields a value that is neither an operand, a "
                     "constant nor computed in its body";
    return failure();
  }
  if (!isVpuFloat(result.getType())) {
    refusal.reason = "it yields a " + [&] {
      std::string t;
      llvm::raw_string_ostream os(t);
      os << result.getType();
      return t;
    }() + "; accel's tiles hold f32 or bf16 values";
    return failure();
  }
  return success();
}

FailureOr<SmallVector<Operation *>> linalg_to_accel::collectBody(
    Block &body, Value result, const DenseMap<Value, VpuValue> &values,
    unsigned numLoops, DenseMap<Value, IndexExpr> &indexExprs,
    Refusal &refusal) {
  BodyChecker check{body, values, numLoops, indexExprs, refusal, {}};
  SmallVector<Operation *> ops = check.collectLive(result);
  for (Operation *bodyOp : ops)
    if (failed(check.checkOp(bodyOp)))
      return failure();
  if (failed(check.checkResult(result)))
    return failure();
  return ops;
}

//===----------------------------------------------------------------------===//
// Emission
//===----------------------------------------------------------------------===//

/// The kind of the result of `kind` on `operands`.
static VpuValue::Kind resultKind(VpuKind kind, ArrayRef<VpuValue> operands) {
  if (isUnary(kind))
    return operands[0].kind;
  VpuValue::Kind k = joinKinds(operands[0].kind, operands[1].kind);
  return kind == VpuKind::Select ? joinKinds(k, operands[2].kind) : k;
}

/// The value of `v` in a body: its entry in `values`, or the constant it is
/// (checked by collectBody).
static VpuValue lookupValue(const DenseMap<Value, VpuValue> &values, Value v) {
  auto it = values.find(v);
  if (it != values.end())
    return it->second;
  // A constant, checked by collectBody.
  return VpuValue::ofScalar(*getConstantFloat(v), v.getType());
}

/// Emits the body op `bodyOp` into `values` when it turns index values
/// (`indexExprs`) or a mask into VPU values: arith.cmpi of two index values,
/// a mask or an index value converted to float. Returns whether it was one.
static bool emitIndexOrMaskOp(VpuEmitter &emitter, Operation *bodyOp,
                              DenseMap<Value, VpuValue> &values,
                              const DenseMap<Value, IndexExpr> &indexExprs) {
  Type f32 = Float32Type::get(bodyOp->getContext());
  if (auto cmp = dyn_cast<arith::CmpIOp>(bodyOp)) {
    // A mask of 1.0 / 0.0 (f32) from the two index values as f32.
    VpuValue lhs = emitter.materialize(indexExprs.at(cmp.getLhs()), f32);
    VpuValue rhs = emitter.materialize(indexExprs.at(cmp.getRhs()), f32);
    values[cmp] = emitter.emit(VpuKind::Cmp, {lhs, rhs}, f32, Value(),
                               *getFloatPredicate(cmp.getPredicate()));
    return true;
  }
  if (isMaskToFloat(bodyOp)) {
    // 1.0 / 0.0 as the result type (uitofp), or -1.0 / 0.0 (sitofp: i1
    // true is -1). A value of its own, not the mask's tile, which the
    // in-place reuse of dst tracks by value.
    Value r = bodyOp->getResult(0);
    VpuValue mask = lookupValue(values, bodyOp->getOperand(0));
    values[r] = emitter.emit(isa<arith::SIToFPOp>(bodyOp) ? VpuKind::Neg
                                                          : VpuKind::Convert,
                             {mask}, r.getType());
    return true;
  }
  if (isa<arith::SIToFPOp, arith::UIToFPOp>(bodyOp)) {
    Value r = bodyOp->getResult(0);
    values[r] =
        emitter.materialize(indexExprs.at(bodyOp->getOperand(0)), r.getType());
    return true;
  }
  return false;
}

VpuValue linalg_to_accel::emitBody(VpuEmitter &emitter,
                                   ArrayRef<Operation *> ops, Value result,
                                   DenseMap<Value, VpuValue> &values,
                                   const DenseMap<Value, IndexExpr> &indexExprs,
                                   Value dst, bool dstIsScratch) {
  Type f32 = Float32Type::get(result.getContext());
  auto lookup = [&](Value v) { return lookupValue(values, v); };
  DenseMap<Value, unsigned> usesLeft;
  for (Operation *bodyOp : ops)
    for (Value v : bodyOp->getOperands())
      ++usesLeft[v];
  Value inDst; // the body value dst holds, if any
  for (Operation *bodyOp : ops) {
    if (isIndexArithmetic(bodyOp))
      continue; // read by the comparisons and conversions below
    if (emitIndexOrMaskOp(emitter, bodyOp, values, indexExprs))
      continue;
    std::optional<VpuKind> kind = getVpuKind(bodyOp);
    if (!kind)
      continue; // a constant: looked up where it is used
    SmallVector<VpuValue, 2> operands;
    for (Value v : bodyOp->getOperands())
      operands.push_back(lookup(v));
    Value r = bodyOp->getResult(0);
    // A mask (i1) is held as f32 1.0 / 0.0.
    Type type = isVpuFloat(r.getType()) ? r.getType() : f32;
    CmpPredicate predicate = CmpPredicate::AlwaysFalse;
    if (auto cmp = dyn_cast<arith::CmpFOp>(bodyOp))
      predicate = CmpPredicate(uint32_t(cmp.getPredicate()));
    Value to;
    if (r == result)
      to = dst;
    else if (dst && dstIsScratch &&
             r.getType() == getElementTypeOrSelf(dst.getType()) &&
             resultKind(*kind, operands) == VpuValue::Tile &&
             (!inDst || usesLeft.lookup(inDst) == 0 ||
              (usesLeft.lookup(inDst) == 1 &&
               llvm::is_contained(bodyOp->getOperands(), inDst))))
      to = dst; // in place: the op reads all of it before writing
    values[r] = emitter.emit(*kind, operands, type, to, predicate);
    if (to)
      inDst = r;
    for (Value v : bodyOp->getOperands())
      --usesLeft[v];
  }
  VpuValue r = lookup(result);
  if (dst && r.buffer != dst)
    r = VpuValue::of(VpuValue::Tile, emitter.as(r, VpuValue::Tile, dst));
  return r;
}
