//===- VpuEmitter.cpp - A linalg body's values as VPU sequences -----------===//
//
// VpuEmitter.h: the VPU sequences of an elementwise linalg body over an
// R x C iteration space: temporaries, broadcasts, elementwise ops, index
// values (vpu.iota) and row and column reductions.
//
//===----------------------------------------------------------------------===//

#include "VpuEmitter.h"
#include "accel/Support/BFloat16.h"
#include "accel/Support/FloatMax.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"

using namespace mlir;
using namespace accel;
using namespace accel::linalg_to_accel;

Value VpuEmitter::temporary(int64_t r, int64_t c, Type type) {
  auto space = MemorySpaceAttr::get(rewriter.getContext(), MemorySpace::VMEM);
  auto memref =
      MemRefType::get({r, c}, type, MemRefLayoutAttrInterface(), space);
  return AllocOp::create(rewriter, loc, memref);
}

Value VpuEmitter::temporary(VpuValue::Kind kind, Type type) {
  switch (kind) {
  case VpuValue::Column:
    return temporary(rows, 1, type);
  case VpuValue::Row:
    return temporary(1, cols, type);
  case VpuValue::Element:
    return temporary(1, 1, type);
  default:
    return temporary(rows, cols, type);
  }
}

Value VpuEmitter::as(const VpuValue &v, VpuValue::Kind kind, Value dst) {
  if (v.kind == kind) {
    if (dst && dst != v.buffer)
      VCopyOp::create(rewriter, loc, v.buffer, dst);
    return dst ? dst : v.buffer;
  }
  Value t = dst ? dst : temporary(kind, v.type);
  if (v.kind == VpuValue::Scalar) {
    VFillOp::create(rewriter, loc, t, rewriter.getF32FloatAttr(v.scalar));
    return t;
  }
  if (v.kind == VpuValue::Element) {
    // 0 + the element: into a column by the row broadcast (it is one
    // row of one column), into a row by the column broadcast; a full
    // tile from the column.
    Value from = kind == VpuValue::Tile ? as(v, VpuValue::Column) : v.buffer;
    VFillOp::create(rewriter, loc, t, rewriter.getF32FloatAttr(0.0f));
    VAddOp::create(rewriter, loc, t, from, t);
    return t;
  }
  assert(kind == VpuValue::Tile && "only a full tile broadcasts a buffer");
  // A column or row broadcast into a full tile: 0 + it.
  VFillOp::create(rewriter, loc, t, rewriter.getF32FloatAttr(0.0f));
  VAddOp::create(rewriter, loc, t, v.buffer, t);
  return t;
}

Value VpuEmitter::broadcastOperand(const VpuValue &b, VpuValue::Kind result) {
  bool broadcastable = result == VpuValue::Tile &&
                       (b.kind == VpuValue::Column || b.kind == VpuValue::Row);
  if (broadcastable)
    return b.buffer;
  if ((b.kind == VpuValue::Scalar || b.kind == VpuValue::Element) &&
      result == VpuValue::Tile)
    return as(b, VpuValue::Column); // a filled R x 1 column
  return as(b, result);
}

VpuValue VpuEmitter::emit(VpuKind kind, SmallVector<VpuValue, 2> operands,
                          Type type, Value dst, CmpPredicate predicate) {
  if (kind == VpuKind::Select)
    return emitSelect(operands, type, dst);
  if (kind == VpuKind::Neg) {
    operands.push_back(VpuValue::ofScalar(-1.0f, type));
    kind = VpuKind::Mul;
  }
  bool unary = isUnary(kind);
  VpuValue::Kind result =
      unary ? operands[0].kind : joinKinds(operands[0].kind, operands[1].kind);
  if (result == VpuValue::Scalar) {
    float v = kind == VpuKind::Cmp
                  ? (compareF(unsigned(predicate), operands[0].scalar,
                              operands[1].scalar)
                         ? 1.0f
                         : 0.0f)
                  : foldScalar(kind, operands[0].scalar,
                               unary ? 0.0f : operands[1].scalar);
    VpuValue folded =
        VpuValue::ofScalar(type.isBF16() ? roundToBf16(v) : v, type);
    if (dst)
      as(folded, VpuValue::Tile, dst);
    return dst ? VpuValue::of(VpuValue::Tile, dst) : folded;
  }
  if (dst && result != VpuValue::Tile) {
    // Computed in its own shape, then broadcast into the full tile.
    VpuValue small = emit(kind, operands, type, Value(), predicate);
    as(small, VpuValue::Tile, dst);
    return VpuValue::of(VpuValue::Tile, dst);
  }
  // x must have the result's shape; y may be a column or a row of it.
  if (!unary && (isCommutative(kind) || kind == VpuKind::Cmp) &&
      operands[0].kind != result && operands[1].kind == result) {
    std::swap(operands[0], operands[1]);
    predicate = swapPredicate(predicate);
  }
  Value x = as(operands[0], result);
  Value y;
  if (!unary)
    y = broadcastOperand(operands[1], result);
  Value out = dst ? dst : temporary(result, type);
  if (kind == VpuKind::Cmp)
    VCmpOp::create(rewriter, loc, predicate, x, y, out);
  else
    emitOp(kind, x, y, out);
  return VpuValue::of(result, out);
}

VpuValue VpuEmitter::emitSelect(ArrayRef<VpuValue> operands, Type type,
                                Value dst) {
  const VpuValue &mask = operands[0], &onTrue = operands[1],
                 &onFalse = operands[2];
  VpuValue::Kind result =
      joinKinds(joinKinds(mask.kind, onTrue.kind), onFalse.kind);
  if (result == VpuValue::Scalar) {
    VpuValue folded = mask.scalar != 0.0f ? onTrue : onFalse;
    folded.scalar = type.isBF16() ? roundToBf16(folded.scalar) : folded.scalar;
    folded.type = type;
    if (dst)
      as(folded, VpuValue::Tile, dst);
    return dst ? VpuValue::of(VpuValue::Tile, dst) : folded;
  }
  if (dst && result != VpuValue::Tile) {
    VpuValue small = emitSelect(operands, type, Value());
    as(small, VpuValue::Tile, dst);
    return VpuValue::of(VpuValue::Tile, dst);
  }
  // dst is written before the mask and the true value are read: not when
  // it holds one of them.
  bool clobbers = dst && (mask.buffer == dst || onTrue.buffer == dst);
  Value out = dst && !clobbers ? dst : temporary(result, type);
  as(onFalse, result, out);
  Value m = as(mask, result);
  Value y = broadcastOperand(onTrue, result);
  VSelectOp::create(rewriter, loc, m, y, out);
  if (clobbers) {
    VCopyOp::create(rewriter, loc, out, dst);
    out = dst;
  }
  return VpuValue::of(result, out);
}

VpuValue VpuEmitter::materialize(const IndexExpr &e, Type type) {
  if (e.isConstant())
    return VpuValue::ofScalar(float(e.constant), type);
  auto iota = [&](unsigned axis, Value base) {
    Value t = axis == 0 ? temporary(rows, 1, type) : temporary(1, cols, type);
    VIotaOp::create(rewriter, loc, base, t, /*columns=*/axis == 1);
    return VpuValue::of(axis == 0 ? VpuValue::Column : VpuValue::Row, t);
  };
  if (e.isUniform()) {
    Value t = temporary(1, 1, type);
    VIotaOp::create(rewriter, loc, buildIndexBase(rewriter, loc, e), t,
                    /*columns=*/false);
    return VpuValue::of(VpuValue::Element, t);
  }
  std::optional<VpuValue> value;
  bool baseUsed = false;
  for (unsigned axis : {0u, 1u}) {
    if (e.coef[axis] == 0)
      continue;
    bool carryBase = !baseUsed && e.coef[axis] == 1;
    VpuValue term = iota(
        axis, carryBase ? buildIndexBase(rewriter, loc, e)
                        : arith::ConstantIndexOp::create(rewriter, loc, 0));
    baseUsed |= carryBase;
    if (e.coef[axis] != 1)
      term = emit(VpuKind::Mul,
                  {term, VpuValue::ofScalar(float(e.coef[axis]), type)}, type);
    value = value ? emit(VpuKind::Add, {*value, term}, type) : term;
  }
  if (!baseUsed && !(e.terms.empty() && e.constant == 0)) {
    VpuValue base = e.terms.empty()
                        ? VpuValue::ofScalar(float(e.constant), type)
                        : materialize(
                              [&] {
                                IndexExpr uniform = e;
                                uniform.coef[0] = uniform.coef[1] = 0;
                                return uniform;
                              }(),
                              type);
    value = emit(VpuKind::Add, {*value, base}, type);
  }
  return *value;
}

Value VpuEmitter::rowsOf(Value v, int64_t first, int64_t count) {
  auto type = cast<MemRefType>(v.getType());
  int64_t c = type.getDimSize(1);
  return memref::SubViewOp::create(
      rewriter, loc, v,
      ArrayRef<OpFoldResult>{rewriter.getIndexAttr(first),
                             rewriter.getIndexAttr(0)},
      ArrayRef<OpFoldResult>{rewriter.getIndexAttr(count),
                             rewriter.getIndexAttr(c)},
      ArrayRef<OpFoldResult>{rewriter.getIndexAttr(1),
                             rewriter.getIndexAttr(1)});
}

Value VpuEmitter::emitColumnReduce(VpuKind kind, Value x) {
  auto type = cast<MemRefType>(x.getType());
  if (type.getRank() == 1 || type.getDimSize(0) == 1)
    return x;
  int64_t n = type.getDimSize(0), c = type.getDimSize(1);
  Value cur = x;
  bool owned = false;
  while (n > 1) {
    int64_t half = n / 2, rest = n - half;
    Value dst = owned ? cur : temporary(rest, c, rewriter.getF32Type());
    emitOp(kind, rowsOf(cur, 0, half), rowsOf(cur, rest, half),
           rowsOf(dst, 0, half));
    if (rest > half && !owned)
      VCopyOp::create(rewriter, loc, rowsOf(cur, half, 1),
                      rowsOf(dst, half, 1));
    cur = dst;
    owned = true;
    n = rest;
  }
  return rowsOf(cur, 0, 1);
}

void VpuEmitter::emitReduce(VpuKind kind, Value x, Value out) {
  if (kind == VpuKind::Add)
    VReduceSumOp::create(rewriter, loc, x, out);
  else
    VReduceMaxOp::create(rewriter, loc, x, out,
                         /*ignore_nan=*/kind == VpuKind::MaxNum);
}

void VpuEmitter::emitOp(VpuKind kind, Value x, Value y, Value dst) {
  switch (kind) {
  case VpuKind::Add:
    VAddOp::create(rewriter, loc, x, y, dst);
    return;
  case VpuKind::Sub:
    VSubOp::create(rewriter, loc, x, y, dst);
    return;
  case VpuKind::Mul:
    VMulOp::create(rewriter, loc, x, y, dst);
    return;
  case VpuKind::Div:
    VDivOp::create(rewriter, loc, x, y, dst);
    return;
  case VpuKind::Max:
  case VpuKind::MaxNum:
    VMaxOp::create(rewriter, loc, x, y, dst,
                   /*ignore_nan=*/kind == VpuKind::MaxNum);
    return;
  case VpuKind::Min:
  case VpuKind::MinNum:
    VMinOp::create(rewriter, loc, x, y, dst,
                   /*ignore_nan=*/kind == VpuKind::MinNum);
    return;
  case VpuKind::Exp:
    VExpOp::create(rewriter, loc, x, dst);
    return;
  case VpuKind::Sqrt:
    VSqrtOp::create(rewriter, loc, x, dst);
    return;
  case VpuKind::Rsqrt:
    VRsqrtOp::create(rewriter, loc, x, dst);
    return;
  case VpuKind::Tanh:
    VTanhOp::create(rewriter, loc, x, dst);
    return;
  case VpuKind::Log:
    VLogOp::create(rewriter, loc, x, dst);
    return;
  case VpuKind::Log1p:
    VLog1pOp::create(rewriter, loc, x, dst);
    return;
  case VpuKind::Erf:
    VErfOp::create(rewriter, loc, x, dst);
    return;
  case VpuKind::Abs:
    VAbsOp::create(rewriter, loc, x, dst);
    return;
  case VpuKind::Expm1:
    VExpm1Op::create(rewriter, loc, x, dst);
    return;
  case VpuKind::Floor:
    VFloorOp::create(rewriter, loc, x, dst);
    return;
  case VpuKind::Ceil:
    VCeilOp::create(rewriter, loc, x, dst);
    return;
  case VpuKind::RoundEven:
    VRoundEvenOp::create(rewriter, loc, x, dst);
    return;
  case VpuKind::Round:
    VRoundOp::create(rewriter, loc, x, dst);
    return;
  case VpuKind::CopySign:
    VCopySignOp::create(rewriter, loc, x, y, dst);
    return;
  case VpuKind::Convert:
    VCopyOp::create(rewriter, loc, x, dst);
    return;
  case VpuKind::Neg:
    llvm_unreachable("negf is emitted as a multiplication");
  case VpuKind::Cmp:
  case VpuKind::Select:
    llvm_unreachable("emitted by emit() and emitSelect()");
  }
}
