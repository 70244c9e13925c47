//===- LinalgToAccel.cpp - linalg/memref ops on tiles to accel ops --------===//
//
// The last conversion of a frontend pipeline (Passes.td,
// convert-linalg-to-accel): copies become DMAs, fills and elementwise
// linalg ops become VPU sequences, matmuls become MXU ops. Each op is
// checked completely before anything is rewritten, so a refusal leaves the
// op as it was and names the reason at its location.
//
//===----------------------------------------------------------------------===//

#include "accel/Conversion/Passes.h"
#include "accel/Dialect/Accel/AccelOps.h"
#include "accel/Dialect/Accel/TileShape.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/TypeSwitch.h"

#include <cmath>

namespace accel {
#define GEN_PASS_DEF_CONVERTLINALGTOACCEL
#include "accel/Conversion/Passes.h.inc"
} // namespace accel

using namespace mlir;
using namespace accel;

namespace {

/// A refusal: the reason, completed by the caller into "cannot convert
/// 'OP' to accel: REASON".
struct Refusal {
  std::string reason;
};

/// The tile view of `v` for op conversion, or the reason it is not one.
/// `role` names the operand in the reason ("the source", "operand #1").
FailureOr<TileShape> getTile(Value v, StringRef role, Refusal &refusal,
                             bool allowI32 = false) {
  if (isa<RankedTensorType, UnrankedTensorType>(v.getType())) {
    refusal.reason = (role + " is a tensor; bufferize first "
                             "(--one-shot-bufferize)")
                         .str();
    return failure();
  }
  std::string why;
  auto tile = getTileShape(v.getType(), &why, allowI32);
  if (failed(tile)) {
    refusal.reason = (role + " " + why).str();
    return failure();
  }
  return tile;
}

/// Like getTile, and the tile must be an f32 tile in VMEM (an operand of
/// the MXU or the VPU).
FailureOr<TileShape> getVmemTile(Value v, StringRef role, Refusal &refusal) {
  auto tile = getTile(v, role, refusal);
  if (failed(tile))
    return failure();
  if (tile->space != MemorySpace::VMEM) {
    refusal.reason = (role + " is in HBM; the MXU and the VPU read VMEM "
                             "only: copy it to a VMEM buffer first")
                         .str();
    return failure();
  }
  return tile;
}

/// The f32 constant `v` holds, if it is one.
std::optional<float> getConstantF32(Value v) {
  APFloat value(0.0f);
  if (!v.getType().isF32() || !matchPattern(v, m_ConstantFloat(&value)))
    return std::nullopt;
  return value.convertToFloat();
}

//===----------------------------------------------------------------------===//
// Copies and fills
//===----------------------------------------------------------------------===//

/// memref.copy / linalg.copy `src` -> `dst`: a DMA and its WAIT.
LogicalResult convertCopy(IRRewriter &rewriter, Operation *op, Value src,
                          Value dst, Refusal &refusal) {
  auto s = getTile(src, "the source", refusal, /*allowI32=*/true);
  if (failed(s))
    return failure();
  auto d = getTile(dst, "the destination", refusal, /*allowI32=*/true);
  if (failed(d))
    return failure();
  if (s->space == MemorySpace::HBM && d->space == MemorySpace::HBM) {
    refusal.reason = "it copies HBM to HBM, which no DMA link does; stage the "
                     "data through a VMEM buffer";
    return failure();
  }
  if (s->isI32 != d->isI32 || s->rows != d->rows || s->cols != d->cols) {
    refusal.reason = "the source and destination tiles differ in shape or "
                     "element type";
    return failure();
  }
  rewriter.setInsertionPoint(op);
  Location loc = op->getLoc();
  Value token =
      DmaStartOp::create(rewriter, loc, TokenType::get(op->getContext()), src,
                         dst);
  DmaWaitOp::create(rewriter, loc, token);
  rewriter.eraseOp(op);
  return success();
}

/// linalg.fill of a VMEM tile with an f32 constant: accel.vfill.
LogicalResult convertFill(IRRewriter &rewriter, linalg::FillOp op,
                          Refusal &refusal) {
  Value out = op.getDpsInitOperand(0)->get();
  if (failed(getVmemTile(out, "the output", refusal)))
    return failure();
  std::optional<float> value = getConstantF32(op.getDpsInputOperand(0)->get());
  if (!value) {
    refusal.reason = "the fill value is not an f32 constant";
    return failure();
  }
  rewriter.setInsertionPoint(op);
  VFillOp::create(rewriter, op.getLoc(), out, rewriter.getF32FloatAttr(*value));
  rewriter.eraseOp(op);
  return success();
}

//===----------------------------------------------------------------------===//
// Matmul
//===----------------------------------------------------------------------===//

/// The fill with 0.0 (a linalg.fill, or the accel.vfill it was converted
/// to) that last wrote `c` before `op`, when nothing between them touches
/// memory (so nothing else reads the zeros); else null.
Operation *findZeroFill(Operation *op, Value c) {
  for (Operation *prev = op->getPrevNode(); prev; prev = prev->getPrevNode()) {
    std::optional<float> value;
    if (auto fill = dyn_cast<linalg::FillOp>(prev);
        fill && fill.getDpsInitOperand(0)->get() == c)
      value = getConstantF32(fill.getDpsInputOperand(0)->get());
    else if (auto vfill = dyn_cast<VFillOp>(prev); vfill && vfill.getOut() == c)
      value = vfill.getValue().convertToFloat();
    else if (isMemoryEffectFree(prev))
      continue;
    else
      return nullptr;
    return value && *value == 0.0f && !std::signbit(*value) ? prev : nullptr;
  }
  return nullptr;
}

/// linalg.matmul (C += A * B) on VMEM tiles: accel.matmul.
LogicalResult convertMatmul(IRRewriter &rewriter, linalg::MatmulOp op,
                            Refusal &refusal) {
  if (op.hasUserDefinedMaps()) {
    refusal.reason = "its indexing maps transpose or broadcast an operand; "
                     "the MXU multiplies row-major A (MxK) by B (KxN)";
    return failure();
  }
  Value a = op.getDpsInputOperand(0)->get(), b = op.getDpsInputOperand(1)->get(),
        c = op.getDpsInitOperand(0)->get();
  auto ta = getVmemTile(a, "A", refusal);
  if (failed(ta))
    return failure();
  auto tb = getVmemTile(b, "B", refusal);
  if (failed(tb))
    return failure();
  auto tc = getVmemTile(c, "C", refusal);
  if (failed(tc))
    return failure();
  if (tb->rowStride != tb->cols) {
    refusal.reason = "B is a strided view (row stride " +
                     std::to_string(tb->rowStride) + ", " +
                     std::to_string(tb->cols) +
                     " columns); the MXU loads B contiguously: copy it to a "
                     "VMEM buffer of its own";
    return failure();
  }
  Operation *zero = findZeroFill(op, c);
  rewriter.setInsertionPoint(op);
  MatmulOp::create(rewriter, op.getLoc(), a, b, c, /*accumulate=*/!zero);
  rewriter.eraseOp(op);
  if (zero)
    rewriter.eraseOp(zero);
  return success();
}

//===----------------------------------------------------------------------===//
// Elementwise ops
//===----------------------------------------------------------------------===//

/// A value of the body of an elementwise op, as the VPU sees it.
struct VpuValue {
  enum Kind { Tile, Column, Scalar } kind = Scalar;
  /// Tile (the output's shape) or Column (R x 1, broadcast along rows).
  Value buffer;
  /// Scalar: an f32 constant.
  float scalar = 0;
};

/// The body op kinds the VPU has, and whether each is commutative.
enum class VpuKind { Add, Sub, Mul, Div, Max, Exp, Sqrt, Neg };

std::optional<VpuKind> getVpuKind(Operation *op) {
  return llvm::TypeSwitch<Operation *, std::optional<VpuKind>>(op)
      .Case<arith::AddFOp>([](auto) { return VpuKind::Add; })
      .Case<arith::SubFOp>([](auto) { return VpuKind::Sub; })
      .Case<arith::MulFOp>([](auto) { return VpuKind::Mul; })
      .Case<arith::DivFOp>([](auto) { return VpuKind::Div; })
      .Case<arith::MaximumFOp, arith::MaxNumFOp>(
          [](auto) { return VpuKind::Max; })
      .Case<math::ExpOp>([](auto) { return VpuKind::Exp; })
      .Case<math::SqrtOp>([](auto) { return VpuKind::Sqrt; })
      .Case<arith::NegFOp>([](auto) { return VpuKind::Neg; })
      .Default([](Operation *) { return std::nullopt; });
}

bool isCommutative(VpuKind k) {
  return k == VpuKind::Add || k == VpuKind::Mul || k == VpuKind::Max;
}

/// Emits the VPU sequence of one elementwise op: R x C output `out`.
class VpuEmitter {
public:
  VpuEmitter(IRRewriter &rewriter, Location loc, Value out, int64_t rows,
             int64_t cols)
      : rewriter(rewriter), loc(loc), out(out), rows(rows), cols(cols) {}

  /// A fresh VMEM buffer of `r` x `c` f32.
  Value temporary(int64_t r, int64_t c) {
    auto space = MemorySpaceAttr::get(rewriter.getContext(), MemorySpace::VMEM);
    auto type = MemRefType::get({r, c}, rewriter.getF32Type(),
                                MemRefLayoutAttrInterface(), space);
    return AllocOp::create(rewriter, loc, type);
  }

  /// `v` as an R x 1 column buffer.
  Value column(const VpuValue &v) {
    if (v.kind == VpuValue::Column)
      return v.buffer;
    assert(v.kind == VpuValue::Scalar && "a tile is not a column");
    Value t = temporary(rows, 1);
    VFillOp::create(rewriter, loc, t, rewriter.getF32FloatAttr(v.scalar));
    return t;
  }

  /// `v` as a full R x C buffer, written into `dst` if it must be built
  /// (null: a new temporary).
  Value full(const VpuValue &v, Value dst = {}) {
    if (v.kind == VpuValue::Tile) {
      if (dst && dst != v.buffer)
        VCopyOp::create(rewriter, loc, v.buffer, dst);
      return dst ? dst : v.buffer;
    }
    Value t = dst ? dst : temporary(rows, cols);
    if (v.kind == VpuValue::Scalar) {
      VFillOp::create(rewriter, loc, t, rewriter.getF32FloatAttr(v.scalar));
      return t;
    }
    // A column broadcast along the rows: 0 + column.
    VFillOp::create(rewriter, loc, t, rewriter.getF32FloatAttr(0.0f));
    VAddOp::create(rewriter, loc, t, v.buffer, t);
    return t;
  }

  /// Emits `kind` on `operands`; the result goes to `out` when `last`.
  VpuValue emit(VpuKind kind, SmallVector<VpuValue, 2> operands, bool last) {
    if (kind == VpuKind::Neg) {
      VpuValue minusOne;
      minusOne.scalar = -1.0f;
      operands.push_back(minusOne);
      kind = VpuKind::Mul;
    }
    bool unary = kind == VpuKind::Exp || kind == VpuKind::Sqrt;
    auto isFull = [](const VpuValue &v) { return v.kind == VpuValue::Tile; };
    bool anyFull = llvm::any_of(operands, isFull);
    if (!unary && isCommutative(kind) && !isFull(operands[0]) &&
        isFull(operands[1]))
      std::swap(operands[0], operands[1]);
    // The result's shape: a column when no operand is a full tile.
    int64_t resultCols = anyFull ? cols : 1;
    Value dst = last ? Value() : temporary(rows, resultCols);
    Value x = anyFull ? full(operands[0]) : column(operands[0]);
    if (last && !anyFull) {
      // Computed as a column, then broadcast into the output.
      Value col = temporary(rows, 1);
      emitOp(kind, x, unary ? Value() : column(operands[1]), col);
      VpuValue c;
      c.kind = VpuValue::Column;
      c.buffer = col;
      full(c, out);
      return {VpuValue::Tile, out, 0};
    }
    if (last)
      dst = out;
    Value y;
    if (!unary)
      y = isFull(operands[1]) ? operands[1].buffer : column(operands[1]);
    emitOp(kind, x, y, dst);
    return {anyFull ? VpuValue::Tile : VpuValue::Column, dst, 0};
  }

  /// Writes `v` to the output (the body yields an operand or a constant).
  void emitCopyToOutput(const VpuValue &v) { full(v, out); }

private:
  void emitOp(VpuKind kind, Value x, Value y, Value dst) {
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
      VMaxOp::create(rewriter, loc, x, y, dst);
      return;
    case VpuKind::Exp:
      VExpOp::create(rewriter, loc, x, dst);
      return;
    case VpuKind::Sqrt:
      VSqrtOp::create(rewriter, loc, x, dst);
      return;
    case VpuKind::Neg:
      llvm_unreachable("negf is emitted as a multiplication");
    }
  }

  IRRewriter &rewriter;
  Location loc;
  Value out;
  int64_t rows, cols;
};

/// An elementwise linalg op (generic or named): a VPU sequence.
LogicalResult convertElementwise(IRRewriter &rewriter, linalg::LinalgOp op,
                                 Refusal &refusal) {
  if (op.getNumDpsInits() != 1) {
    refusal.reason = "it has " + std::to_string(op.getNumDpsInits()) +
                     " outputs; one is supported";
    return failure();
  }
  if (!op.hasPureBufferSemantics()) {
    refusal.reason = "it works on tensors; bufferize first "
                     "(--one-shot-bufferize)";
    return failure();
  }
  if (op.getNumReductionLoops() > 0) {
    refusal.reason = "it has a reduction loop; only elementwise ops (all "
                     "loops parallel) are converted";
    return failure();
  }
  if (op.getNumLoops() > 2 || op.getNumLoops() < 1) {
    refusal.reason = "it has " + std::to_string(op.getNumLoops()) +
                     " loops; tiles have rank 1 or 2";
    return failure();
  }
  OpOperand *init = op.getDpsInitOperand(0);
  Value out = init->get();
  auto outTile = getVmemTile(out, "the output", refusal);
  if (failed(outTile))
    return failure();
  if (!op.getMatchingIndexingMap(init).isIdentity()) {
    refusal.reason = "its output is not written in loop order (the output's "
                     "indexing map is not the identity)";
    return failure();
  }
  int64_t rows = outTile->rows, cols = outTile->cols;
  MLIRContext *ctx = op->getContext();

  // Operands.
  DenseMap<Value, VpuValue> values;
  for (OpOperand &operand : op->getOpOperands()) {
    BlockArgument arg = op.getMatchingBlockArgument(&operand);
    if (!arg || arg.use_empty())
      continue;
    std::string role = "operand #" + std::to_string(operand.getOperandNumber());
    Value v = operand.get();
    if (!isa<ShapedType>(v.getType())) {
      std::optional<float> c = getConstantF32(v);
      if (!c) {
        refusal.reason = role + " is a scalar that is not an f32 constant";
        return failure();
      }
      values[arg] = {VpuValue::Scalar, Value(), *c};
      continue;
    }
    auto tile = getVmemTile(v, role, refusal);
    if (failed(tile))
      return failure();
    AffineMap map = op.getMatchingIndexingMap(&operand);
    if (map.isIdentity() && tile->rows == rows && tile->cols == cols) {
      values[arg] = {VpuValue::Tile, v, 0};
      continue;
    }
    // (i, j) -> (i, 0) on an R x 1 tile: a column broadcast along the rows.
    AffineExpr d0 = getAffineDimExpr(0, ctx);
    if (op.getNumLoops() == 2 && map.getNumResults() == 2 &&
        map.getResult(0) == d0 &&
        map.getResult(1) == getAffineConstantExpr(0, ctx) &&
        tile->rows == rows && tile->cols == 1) {
      values[arg] = {VpuValue::Column, v, 0};
      continue;
    }
    if (op.getNumLoops() == 2 && map.getNumResults() >= 1 &&
        llvm::all_of(map.getResults(), [&](AffineExpr e) {
          return e == getAffineDimExpr(1, ctx) || isa<AffineConstantExpr>(e);
        })) {
      refusal.reason = role + " is broadcast along the columns ((i, j) -> " +
                       "(j)); the VPU broadcasts only R x 1 columns along "
                       "the rows";
      return failure();
    }
    std::string text;
    llvm::raw_string_ostream os(text);
    os << map;
    refusal.reason = role + "'s indexing map " + text +
                     " is neither the identity on the output's shape nor a "
                     "column broadcast (i, j) -> (i, 0)";
    return failure();
  }

  // The body ops the yielded value depends on, in order.
  Block &body = op->getRegion(0).front();
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  Value result = yield.getOperand(0);
  llvm::SmallPtrSet<Operation *, 8> live;
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

  // Check every body op before emitting anything.
  auto lookup = [&](Value v) -> std::optional<VpuValue> {
    auto it = values.find(v);
    if (it != values.end())
      return it->second;
    if (std::optional<float> c = getConstantF32(v))
      return VpuValue{VpuValue::Scalar, Value(), *c};
    return std::nullopt;
  };
  for (Operation *bodyOp : ops) {
    if (getConstantF32(bodyOp->getNumResults() ? bodyOp->getResult(0)
                                               : Value()))
      continue;
    if (getVpuKind(bodyOp)) {
      // Each operand: an op operand, a constant or an earlier result.
      for (Value v : bodyOp->getOperands()) {
        if (lookup(v) || live.contains(v.getDefiningOp()))
          continue;
        refusal.reason = "its body uses a value defined outside it that is "
                         "not a constant (the VPU ops take f32 constants "
                         "only)";
        return failure();
      }
      continue;
    }
    refusal.reason = "its body has '" +
                     bodyOp->getName().getStringRef().str() +
                     "', which has no VPU counterpart (the VPU adds, "
                     "subtracts, multiplies, divides, takes the maximum, "
                     "exp, sqrt and negates f32)";
    return failure();
  }
  if (!lookup(result) && !live.contains(result.getDefiningOp())) {
    refusal.reason = "it yields a value that is neither an operand, a "
                     "constant nor computed in its body";
    return failure();
  }

  rewriter.setInsertionPoint(op);
  VpuEmitter emitter(rewriter, op.getLoc(), out, rows, cols);
  Operation *lastCompute = nullptr;
  for (Operation *bodyOp : ops)
    if (getVpuKind(bodyOp))
      lastCompute = bodyOp;
  for (Operation *bodyOp : ops) {
    std::optional<VpuKind> kind = getVpuKind(bodyOp);
    if (!kind)
      continue; // a constant: looked up where it is used
    SmallVector<VpuValue, 2> operands;
    for (Value v : bodyOp->getOperands()) {
      // Checked above: an operand, a constant or an earlier result.
      operands.push_back(*lookup(v));
    }
    values[bodyOp->getResult(0)] =
        emitter.emit(*kind, operands, bodyOp == lastCompute &&
                                          bodyOp->getResult(0) == result);
  }
  if (!lastCompute || lastCompute->getResult(0) != result)
    emitter.emitCopyToOutput(*lookup(result));
  rewriter.eraseOp(op);
  return success();
}

struct ConvertLinalgToAccelPass
    : accel::impl::ConvertLinalgToAccelBase<ConvertLinalgToAccelPass> {
  void runOnOperation() override {
    SmallVector<Operation *> candidates;
    getOperation()->walk([&](Operation *op) {
      if (isa<memref::CopyOp, linalg::LinalgOp>(op))
        candidates.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    bool failed = false;
    for (Operation *op : candidates) {
      if (!op->getBlock())
        continue; // erased (a fill folded into its matmul)
      Refusal refusal;
      LogicalResult converted =
          llvm::TypeSwitch<Operation *, LogicalResult>(op)
              .Case<memref::CopyOp>([&](memref::CopyOp copy) {
                return convertCopy(rewriter, copy, copy.getSource(),
                                   copy.getTarget(), refusal);
              })
              .Case<linalg::CopyOp>([&](linalg::CopyOp copy) {
                return convertCopy(rewriter, copy,
                                   copy.getDpsInputOperand(0)->get(),
                                   copy.getDpsInitOperand(0)->get(), refusal);
              })
              .Case<linalg::FillOp>([&](linalg::FillOp fill) {
                return convertFill(rewriter, fill, refusal);
              })
              .Case<linalg::MatmulOp>([&](linalg::MatmulOp mm) {
                return convertMatmul(rewriter, mm, refusal);
              })
              .Case<linalg::LinalgOp>([&](linalg::LinalgOp linalgOp) {
                return convertElementwise(rewriter, linalgOp, refusal);
              });
      if (mlir::failed(converted)) {
        op->emitError() << "cannot convert '" << op->getName()
                        << "' to accel: " << refusal.reason;
        failed = true;
      }
    }
    if (failed) {
      signalPassFailure();
      return;
    }
    // The f32 constants the converted ops used have no ISA counterpart
    // (the values live in the VPU ops' attributes now).
    getOperation()->walk([&](arith::ConstantOp c) {
      if (isa<FloatType>(c.getType()) && c->use_empty())
        rewriter.eraseOp(c);
    });
  }
};

} // namespace
