//===- LinalgToAccel.cpp - linalg/memref ops on tiles to accel ops --------===//
//
// The last conversion of a frontend pipeline (Passes.td,
// convert-linalg-to-accel): copies become DMAs, fills and elementwise
// linalg ops become VPU sequences, matmuls become MXU ops. Each op is
// checked completely before anything is rewritten, so a refusal leaves the
// op as it was and names the reason at its location.
//
// Size (about 920 lines): copies, fills and matmuls take 240 lines; the
// rest turns a linalg.generic body into a VPU sequence (classify each
// operand, collect and fold the body, emit it), one algorithm whose parts
// share the VpuValue and VpuEmitter types.
//
//===----------------------------------------------------------------------===//

#include "IndexExpr.h"
#include "accel/Conversion/Passes.h"
#include "accel/Dialect/Accel/AccelOps.h"
#include "accel/Dialect/Accel/TileShape.h"
#include "accel/Dialect/Accel/Views.h"
#include "accel/Support/BFloat16.h"
#include "accel/Support/FloatMax.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/MapVector.h"
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
    if (isa<MemRefType>(v.getType()) && !getMemorySpace(v.getType()))
      refusal.reason += " (upstream's memory spaces map to accel's with "
                        "--convert-memory-spaces-to-accel; --accel-from-linalg "
                        "runs the whole frontend)";
    return failure();
  }
  return tile;
}

/// Like getTile, and the tile must be an f32 or bf16 tile in VMEM (an
/// operand of the MXU or the VPU).
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

/// The value of the f32 or bf16 constant `v`, if it is one (a bf16 is
/// exact in f32); an i1 constant (a mask) is 1.0 or 0.0.
std::optional<float> getConstantFloat(Value v) {
  if (v.getType().isSignlessInteger(1)) {
    IntegerAttr mask;
    if (!matchPattern(v, m_Constant(&mask)))
      return std::nullopt;
    return mask.getValue().isZero() ? 0.0f : 1.0f;
  }
  APFloat value(0.0f);
  if (!(v.getType().isF32() || v.getType().isBF16()) ||
      !matchPattern(v, m_ConstantFloat(&value)))
    return std::nullopt;
  bool lost;
  value.convert(APFloat::IEEEsingle(), APFloat::rmNearestTiesToEven, &lost);
  return value.convertToFloat();
}

/// Whether memrefs `a` and `b` may share memory. They do not only when
/// their roots (through the lowered views) are distinct, each an
/// allocation or a function argument, and not both arguments (arguments
/// may alias each other); any other root (a loop's iter_arg, an unknown
/// view) may be anything.
bool mayShareMemory(Value a, Value b) {
  Value ra = getRoot(a), rb = getRoot(b);
  auto isAlloc = [](Value r) {
    return isa_and_nonnull<AllocOp, memref::AllocOp>(r.getDefiningOp());
  };
  auto isFuncArg = [](Value r) {
    auto arg = dyn_cast<BlockArgument>(r);
    return arg && isa<FunctionOpInterface>(arg.getOwner()->getParentOp());
  };
  auto known = [&](Value r) { return isAlloc(r) || isFuncArg(r); };
  return ra == rb || !known(ra) || !known(rb) ||
         (isFuncArg(ra) && isFuncArg(rb));
}

//===----------------------------------------------------------------------===//
// Copies and fills
//===----------------------------------------------------------------------===//

/// memref.copy / linalg.copy `src` -> `dst`: a DMA and its WAIT.
/// The semaphore the DMAs of a gather nest signal (accel-lower-gathers):
/// the last of the 256, which the collectives of the examples leave free.
constexpr uint32_t kGatherSemaphore = 255;

/// The outermost loop of a gather nest (marked `accel.gather` by
/// accel-lower-gathers) around `op`, or null.
scf::ForOp getGatherLoop(Operation *op) {
  for (auto loop = op->getParentOfType<scf::ForOp>(); loop;
       loop = loop->getParentOfType<scf::ForOp>())
    if (loop->hasAttr("accel.gather"))
      return loop;
  return nullptr;
}

/// A copy between HBM and VMEM (either way, of equal tiles) as a DMA and
/// its WAIT; inside a gather nest (getGatherLoop) as a DMA that signals
/// kGatherSemaphore instead, which the nest waits for once after its end.
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
  if (s->elem != d->elem || s->rows != d->rows || s->cols != d->cols) {
    refusal.reason = "the source and destination tiles differ in shape or "
                     "element type";
    return failure();
  }
  rewriter.setInsertionPoint(op);
  Location loc = op->getLoc();
  if (getGatherLoop(op)) {
    DmaStartOp::create(rewriter, loc, TokenType::get(rewriter.getContext()),
                       src, dst, Value(), Value(),
                       rewriter.getI32IntegerAttr(kGatherSemaphore));
    rewriter.eraseOp(op);
    return success();
  }
  Value token = DmaStartOp::create(rewriter, loc, src, dst);
  DmaWaitOp::create(rewriter, loc, token);
  rewriter.eraseOp(op);
  return success();
}

/// linalg.fill of a VMEM tile with an f32 or bf16 constant: accel.vfill.
LogicalResult convertFill(IRRewriter &rewriter, linalg::FillOp op,
                          Refusal &refusal) {
  Value out = op.getDpsInitOperand(0)->get();
  if (failed(getVmemTile(out, "the output", refusal)))
    return failure();
  std::optional<float> value =
      getConstantFloat(op.getDpsInputOperand(0)->get());
  if (!value) {
    refusal.reason = "the fill value is not an f32 or bf16 constant";
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

/// The fill (a linalg.fill, or the accel.vfill it was converted to) that
/// last wrote `buffer` before `op`, when nothing between them touches memory
/// (so nothing else reads the filled value), and its value; else null.
std::pair<Operation *, float> findFill(Operation *op, Value buffer) {
  for (Operation *prev = op->getPrevNode(); prev; prev = prev->getPrevNode()) {
    std::optional<float> value;
    if (auto fill = dyn_cast<linalg::FillOp>(prev);
        fill && fill.getDpsInitOperand(0)->get() == buffer)
      value = getConstantFloat(fill.getDpsInputOperand(0)->get());
    else if (auto vfill = dyn_cast<VFillOp>(prev);
             vfill && vfill.getOut() == buffer)
      value = vfill.getValue().convertToFloat();
    else if (isMemoryEffectFree(prev))
      continue;
    else
      return {nullptr, 0.0f};
    if (!value)
      return {nullptr, 0.0f};
    return {prev, *value};
  }
  return {nullptr, 0.0f};
}

/// Whether `value` is `identity` exactly (bit for bit: +0.0 is not -0.0).
bool isExactly(float value, float identity) {
  return value == identity && std::signbit(value) == std::signbit(identity);
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
  auto [fill, value] = findFill(op, c);
  Operation *zero = fill && isExactly(value, 0.0f) ? fill : nullptr;
  rewriter.setInsertionPoint(op);
  MatmulOp::create(rewriter, op.getLoc(), a, b, c, /*accumulate=*/!zero);
  rewriter.eraseOp(op);
  if (zero)
    rewriter.eraseOp(zero);
  return success();
}

//===----------------------------------------------------------------------===//
// Elementwise ops and row reductions
//===----------------------------------------------------------------------===//

/// A value of the body of a linalg op over an R x C iteration space (rows
/// i, columns j; a 1-loop op is 1 x C), as the VPU sees it.
struct VpuValue {
  enum Kind {
    Scalar,  ///< the same constant everywhere
    Element, ///< the same value everywhere, from a 1-element buffer (a
             ///< rank-0 value of the program, accel-expand-rank0)
    Column,  ///< one value per row: an R x 1 buffer (broadcast along j)
    Row,     ///< one value per column: a 1 x C buffer (broadcast along i)
    Tile,    ///< an R x C buffer
  } kind = Scalar;
  Value buffer;
  float scalar = 0;
  /// The element type: f32 or bf16 (a buffer's, or a constant's).
  Type type;
  /// A rank-1 buffer of R elements read as a column: viewed as R x 1 (a
  /// memref.expand_shape) when the op is rewritten.
  bool needsColumnView = false;
  /// A C x R buffer the op reads transposed ((i, j) -> (j, i)): copied
  /// transposed into an R x C temporary (accel.vtranspose) when the op is
  /// rewritten.
  bool needsTranspose = false;

  static VpuValue ofScalar(float f, Type type) {
    return {Scalar, Value(), f, type, false, false};
  }
  static VpuValue of(Kind kind, Value buffer) {
    return {kind,  buffer, 0.0f, getElementTypeOrSelf(buffer.getType()),
            false, false};
  }
};

/// The kind of the result of an elementwise op on operands of kinds `a` and
/// `b`: a column and a row make a full tile.
VpuValue::Kind joinKinds(VpuValue::Kind a, VpuValue::Kind b) {
  if (a == b || b == VpuValue::Scalar)
    return a;
  if (a == VpuValue::Scalar)
    return b;
  // One element broadcasts to anything.
  if (b == VpuValue::Element)
    return a;
  if (a == VpuValue::Element)
    return b;
  return VpuValue::Tile; // Tile with anything, or Column with Row
}

/// The body op kinds the VPU has.
/// Max is arith.maximumf (NaN propagates), MaxNum arith.maxnumf (NaN is
/// ignored): vpu.max without and with its maxnum flag (docs/isa.md, "NaN").
/// Convert is arith.extf (bf16 -> f32, exact) or arith.truncf (f32 ->
/// bf16, to nearest even): a vpu.copy between tiles of the two types.
enum class VpuKind {
  Add,
  Sub,
  Mul,
  Div,
  Max,
  MaxNum,
  Min,
  MinNum,
  Exp,
  Sqrt,
  Rsqrt,
  Tanh,
  Log,
  Log1p,
  Erf,
  Abs,
  Expm1,
  Floor,
  Ceil,
  RoundEven,
  Round,
  CopySign,
  Neg,
  Convert,
  Cmp,   ///< arith.cmpf: a 1.0 / 0.0 mask (vpu.cmp)
  Select ///< arith.select on a mask (vpu.select)
};

/// Whether `t` is an element type of accel's VPU tiles.
bool isVpuFloat(Type t) { return t.isF32() || t.isBF16(); }

/// Whether `op` converts a mask (an i1 the VPU holds as 1.0 / 0.0) to a
/// float: arith.uitofp or arith.sitofp from i1 to f32 or bf16.
bool isMaskToFloat(Operation *op) {
  return isa<arith::SIToFPOp, arith::UIToFPOp>(op) &&
         op->getOperand(0).getType().isSignlessInteger(1) &&
         isVpuFloat(op->getResult(0).getType());
}

std::optional<VpuKind> getVpuKind(Operation *op) {
  return llvm::TypeSwitch<Operation *, std::optional<VpuKind>>(op)
      .Case<arith::AddFOp>([](auto) { return VpuKind::Add; })
      .Case<arith::SubFOp>([](auto) { return VpuKind::Sub; })
      .Case<arith::MulFOp>([](auto) { return VpuKind::Mul; })
      .Case<arith::DivFOp>([](auto) { return VpuKind::Div; })
      .Case<arith::MaximumFOp>([](auto) { return VpuKind::Max; })
      .Case<arith::MaxNumFOp>([](auto) { return VpuKind::MaxNum; })
      .Case<arith::MinimumFOp>([](auto) { return VpuKind::Min; })
      .Case<arith::MinNumFOp>([](auto) { return VpuKind::MinNum; })
      .Case<math::ExpOp>([](auto) { return VpuKind::Exp; })
      .Case<math::SqrtOp>([](auto) { return VpuKind::Sqrt; })
      .Case<math::RsqrtOp>([](auto) { return VpuKind::Rsqrt; })
      .Case<math::TanhOp>([](auto) { return VpuKind::Tanh; })
      .Case<math::LogOp>([](auto) { return VpuKind::Log; })
      .Case<math::Log1pOp>([](auto) { return VpuKind::Log1p; })
      .Case<math::ErfOp>([](auto) { return VpuKind::Erf; })
      .Case<math::AbsFOp>([](auto) { return VpuKind::Abs; })
      .Case<math::ExpM1Op>([](auto) { return VpuKind::Expm1; })
      .Case<math::FloorOp>([](auto) { return VpuKind::Floor; })
      .Case<math::CeilOp>([](auto) { return VpuKind::Ceil; })
      .Case<math::RoundEvenOp>([](auto) { return VpuKind::RoundEven; })
      .Case<math::RoundOp>([](auto) { return VpuKind::Round; })
      .Case<math::CopySignOp>([](auto) { return VpuKind::CopySign; })
      .Case<arith::NegFOp>([](auto) { return VpuKind::Neg; })
      .Case<arith::CmpFOp>([](arith::CmpFOp cmp) -> std::optional<VpuKind> {
        if (!isVpuFloat(cmp.getLhs().getType()))
          return std::nullopt;
        return VpuKind::Cmp;
      })
      .Case<arith::SelectOp>([](arith::SelectOp sel) -> std::optional<VpuKind> {
        if (!isVpuFloat(sel.getType()) && !sel.getType().isSignlessInteger(1))
          return std::nullopt;
        return VpuKind::Select;
      })
      // Masks combine as 0.0 / 1.0 values: and is a product, or a maximum.
      .Case<arith::AndIOp>([](arith::AndIOp op) -> std::optional<VpuKind> {
        if (!op.getType().isSignlessInteger(1))
          return std::nullopt;
        return VpuKind::Mul;
      })
      .Case<arith::OrIOp>([](arith::OrIOp op) -> std::optional<VpuKind> {
        if (!op.getType().isSignlessInteger(1))
          return std::nullopt;
        return VpuKind::Max;
      })
      .Case<arith::ExtFOp, arith::TruncFOp>(
          [](Operation *cvt) -> std::optional<VpuKind> {
            // Only f32 <-> bf16, rounded to nearest even (the default).
            auto trunc = dyn_cast<arith::TruncFOp>(cvt);
            if (!isVpuFloat(cvt->getOperand(0).getType()) ||
                !isVpuFloat(cvt->getResult(0).getType()) ||
                (trunc && trunc.getRoundingmode() &&
                 *trunc.getRoundingmode() !=
                     arith::RoundingMode::to_nearest_even))
              return std::nullopt;
            return VpuKind::Convert;
          })
      .Default([](Operation *) { return std::nullopt; });
}

bool isCommutative(VpuKind k) {
  return k == VpuKind::Add || k == VpuKind::Mul || k == VpuKind::Max ||
         k == VpuKind::MaxNum || k == VpuKind::Min || k == VpuKind::MinNum;
}

bool isUnary(VpuKind k) {
  switch (k) {
  case VpuKind::Exp:
  case VpuKind::Sqrt:
  case VpuKind::Rsqrt:
  case VpuKind::Tanh:
  case VpuKind::Log:
  case VpuKind::Log1p:
  case VpuKind::Erf:
  case VpuKind::Abs:
  case VpuKind::Expm1:
  case VpuKind::Floor:
  case VpuKind::Ceil:
  case VpuKind::RoundEven:
  case VpuKind::Round:
  case VpuKind::Neg:
  case VpuKind::Convert:
    return true;
  default:
    return false;
  }
}

/// The predicate that holds for (y, x) where `p` holds for (x, y).
CmpPredicate swapPredicate(CmpPredicate p) {
  switch (p) {
  case CmpPredicate::OGT:
    return CmpPredicate::OLT;
  case CmpPredicate::OLT:
    return CmpPredicate::OGT;
  case CmpPredicate::OGE:
    return CmpPredicate::OLE;
  case CmpPredicate::OLE:
    return CmpPredicate::OGE;
  case CmpPredicate::UGT:
    return CmpPredicate::ULT;
  case CmpPredicate::ULT:
    return CmpPredicate::UGT;
  case CmpPredicate::UGE:
    return CmpPredicate::ULE;
  case CmpPredicate::ULE:
    return CmpPredicate::UGE;
  default: // symmetric
    return p;
  }
}

/// arith.cmpi's signed and equality predicates as comparisons of the f32
/// values (exact integers below 2^24); nullopt for the unsigned ones.
std::optional<CmpPredicate> getFloatPredicate(arith::CmpIPredicate p) {
  switch (p) {
  case arith::CmpIPredicate::eq:
    return CmpPredicate::OEQ;
  case arith::CmpIPredicate::ne:
    return CmpPredicate::ONE;
  case arith::CmpIPredicate::slt:
    return CmpPredicate::OLT;
  case arith::CmpIPredicate::sle:
    return CmpPredicate::OLE;
  case arith::CmpIPredicate::sgt:
    return CmpPredicate::OGT;
  case arith::CmpIPredicate::sge:
    return CmpPredicate::OGE;
  default:
    return std::nullopt;
  }
}

/// `kind` applied to constants, as the simulator computes it in f32 (a
/// bf16 result is rounded by the caller). Cmp and Select fold in emit().
float foldScalar(VpuKind kind, float x, float y) {
  switch (kind) {
  case VpuKind::Add:
    return x + y;
  case VpuKind::Sub:
    return x - y;
  case VpuKind::Mul:
    return x * y;
  case VpuKind::Div:
    return x / y;
  case VpuKind::Max:
    return accel::maximumF(x, y);
  case VpuKind::MaxNum:
    return accel::maxNumF(x, y);
  case VpuKind::Min:
    return accel::minimumF(x, y);
  case VpuKind::MinNum:
    return accel::minNumF(x, y);
  case VpuKind::Exp:
    return accel::expF(x);
  case VpuKind::Sqrt:
    return std::sqrt(x);
  case VpuKind::Rsqrt:
    return accel::rsqrtF(x);
  case VpuKind::Tanh:
    return accel::tanhF(x);
  case VpuKind::Log:
    return accel::logF(x);
  case VpuKind::Log1p:
    return accel::log1pF(x);
  case VpuKind::Erf:
    return accel::erfF(x);
  case VpuKind::Abs:
    return accel::absF(x);
  case VpuKind::Expm1:
    return accel::expm1F(x);
  case VpuKind::Floor:
    return accel::floorF(x);
  case VpuKind::Ceil:
    return accel::ceilF(x);
  case VpuKind::RoundEven:
    return accel::roundEvenF(x);
  case VpuKind::Round:
    return accel::roundF(x);
  case VpuKind::CopySign:
    return accel::copySignF(x, y);
  case VpuKind::Neg:
    return x * -1.0f;
  case VpuKind::Convert:
    return x;
  case VpuKind::Cmp:
  case VpuKind::Select:
    break;
  }
  llvm_unreachable("unknown VPU kind");
}

/// Emits VPU sequences over an R x C iteration space: temporaries are
/// accel.alloc buffers of their value's element type (so a bf16 value of
/// the body is rounded where linalg rounds it), broadcasts use the VPU's
/// column (R x 1) and row (1 x C) operand forms, other shapes are
/// materialized.
class VpuEmitter {
public:
  VpuEmitter(IRRewriter &rewriter, Location loc, int64_t rows, int64_t cols)
      : rewriter(rewriter), loc(loc), rows(rows), cols(cols) {}

  /// A fresh VMEM buffer of `r` x `c` elements of `type` (f32 or bf16).
  Value temporary(int64_t r, int64_t c, Type type) {
    auto space = MemorySpaceAttr::get(rewriter.getContext(), MemorySpace::VMEM);
    auto memref =
        MemRefType::get({r, c}, type, MemRefLayoutAttrInterface(), space);
    return AllocOp::create(rewriter, loc, memref);
  }

  /// A fresh buffer of the shape of `kind` (a scalar has none).
  Value temporary(VpuValue::Kind kind, Type type) {
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

  /// `v` as a buffer of the shape of `kind`, which `v` broadcasts to; built
  /// in `dst` when given (and then always written there).
  Value as(const VpuValue &v, VpuValue::Kind kind, Value dst = {}) {
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

  /// Emits `kind` on `operands` into `dst` (null: a new temporary; else a
  /// full tile of element type `type`) and returns the result, of element
  /// type `type`.
  VpuValue emit(VpuKind kind, SmallVector<VpuValue, 2> operands, Type type,
                Value dst = {},
                CmpPredicate predicate = CmpPredicate::AlwaysFalse) {
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
    if (!unary) {
      const VpuValue &b = operands[1];
      bool broadcastable = result == VpuValue::Tile &&
                           (b.kind == VpuValue::Column || b.kind == VpuValue::Row);
      y = broadcastable ? b.buffer
          : (b.kind == VpuValue::Scalar || b.kind == VpuValue::Element) &&
                  result == VpuValue::Tile
              ? as(b, VpuValue::Column) // a filled R x 1 column
              : as(b, result);
    }
    Value out = dst ? dst : temporary(result, type);
    if (kind == VpuKind::Cmp)
      VCmpOp::create(rewriter, loc, predicate, x, y, out);
    else
      emitOp(kind, x, y, out);
    return VpuValue::of(result, out);
  }

  /// arith.select: operands (mask, on true, on false). out = the false
  /// value, then vpu.select writes the true one where the mask is set.
  VpuValue emitSelect(ArrayRef<VpuValue> operands, Type type, Value dst) {
    const VpuValue &mask = operands[0], &onTrue = operands[1],
                   &onFalse = operands[2];
    VpuValue::Kind result =
        joinKinds(joinKinds(mask.kind, onTrue.kind), onFalse.kind);
    if (result == VpuValue::Scalar) {
      VpuValue folded = mask.scalar != 0.0f ? onTrue : onFalse;
      folded.scalar =
          type.isBF16() ? roundToBf16(folded.scalar) : folded.scalar;
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
    bool broadcastable =
        result == VpuValue::Tile &&
        (onTrue.kind == VpuValue::Column || onTrue.kind == VpuValue::Row);
    Value y = broadcastable ? onTrue.buffer
              : (onTrue.kind == VpuValue::Scalar ||
                 onTrue.kind == VpuValue::Element) &&
                      result == VpuValue::Tile
                  ? as(onTrue, VpuValue::Column)
                  : as(onTrue, result);
    VSelectOp::create(rewriter, loc, m, y, out);
    if (clobbers) {
      VCopyOp::create(rewriter, loc, out, dst);
      out = dst;
    }
    return VpuValue::of(result, out);
  }

  /// The integer value `e` (IndexExpr.h) as f32 values of `type`: a scalar
  /// when constant, else vpu.iota along the row (a column R x 1) and the
  /// column (a row 1 x C) — a full tile when it depends on both — with the
  /// uniform part (the tile offsets) as the iota's base where a
  /// coefficient is 1.
  VpuValue materialize(const IndexExpr &e, Type type) {
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
        term =
            emit(VpuKind::Mul,
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

  /// Rows [first, first + count) of the 2-D buffer `v` (a subview).
  Value rowsOf(Value v, int64_t first, int64_t count) {
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

  /// The column reduction `kind` (Add, Max, MaxNum) of the R x C tile `x`
  /// (a reduction over its first dimension): a 1 x C row, by halving — the
  /// lower half of the rows combined with the upper half into an f32
  /// temporary (the middle row of an odd count copied), then halving that
  /// in place — in ceil(log2 R) VPU ops over R x C elements in all. The
  /// order of the additions is the tree's (deterministic; not NumPy's).
  Value emitColumnReduce(VpuKind kind, Value x) {
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

  /// Emits the row reduction `kind` (Add: sum, Max) of the R x C tile `x`
  /// into the R x 1 column `out`.
  void emitReduce(VpuKind kind, Value x, Value out) {
    if (kind == VpuKind::Add)
      VReduceSumOp::create(rewriter, loc, x, out);
    else
      VReduceMaxOp::create(rewriter, loc, x, out,
                           /*ignore_nan=*/kind == VpuKind::MaxNum);
  }

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

private:
  IRRewriter &rewriter;
  Location loc;
  int64_t rows, cols;
};

/// How `operand` of the 1- or 2-loop op `op` is read: a full tile, a column
/// (indexed by i only), a row (indexed by j only) or a scalar constant; or
/// the reason it cannot be read by the VPU.
FailureOr<VpuValue> classifyOperand(linalg::LinalgOp op, OpOperand &operand,
                                    StringRef role, Refusal &refusal) {
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
  AffineMap map = op.getMatchingIndexingMap(&operand);
  // The loop each operand dimension follows; -1 for a constant 0 index of a
  // dimension of size 1.
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

/// The body ops `result` depends on, in order, checked to be VPU ops on
/// `values` (operands), constants and earlier results; or the reason not.
FailureOr<SmallVector<Operation *>>
collectBody(Block &body, Value result, const DenseMap<Value, VpuValue> &values,
            unsigned numLoops, DenseMap<Value, IndexExpr> &indexExprs,
            Refusal &refusal) {
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
  auto known = [&](Value v) {
    return values.count(v) || getConstantFloat(v) ||
           live.contains(v.getDefiningOp());
  };
  auto analyze = [&](Value v) {
    return succeeded(
        analyzeIndexExpr(v, body, numLoops, indexExprs, refusal.reason));
  };
  for (Operation *bodyOp : ops) {
    if (bodyOp->getNumResults() == 1 && getConstantFloat(bodyOp->getResult(0)))
      continue;
    // Index arithmetic (IndexExpr.h): read where a comparison or a
    // conversion to float uses it.
    if (isIndexArithmetic(bodyOp)) {
      if (!analyze(bodyOp->getResult(0)))
        return failure();
      continue;
    }
    if (auto cmp = dyn_cast<arith::CmpIOp>(bodyOp)) {
      if (!getFloatPredicate(cmp.getPredicate())) {
        refusal.reason =
            "its body compares integers unsigned ('" +
            arith::stringifyCmpIPredicate(cmp.getPredicate()).str() +
            "'); the VPU compares index values as signed f32";
        return failure();
      }
      if (!analyze(cmp.getLhs()) || !analyze(cmp.getRhs()))
        return failure();
      continue;
    }
    if (isa<arith::SIToFPOp, arith::UIToFPOp>(bodyOp) &&
        isVpuFloat(bodyOp->getResult(0).getType())) {
      // A mask as a number (stablehlo's sign: uitofp of x != 0) is the
      // mask's own 1.0 / 0.0.
      if (isMaskToFloat(bodyOp))
        continue;
      if (!analyze(bodyOp->getOperand(0)))
        return failure();
      continue;
    }
    if (!getVpuKind(bodyOp)) {
      refusal.reason = "its body has '" +
                       bodyOp->getName().getStringRef().str() +
                       "', which has no VPU counterpart (the VPU adds, "
                       "subtracts, multiplies, divides, takes the maximum "
                       "and minimum, exp, expm1, log, log1p, sqrt, rsqrt, "
                       "tanh, erf, abs, copysign, floor, ceil, round and "
                       "roundeven, and negates f32 and bf16, converts "
                       "between them to nearest even, compares and selects, "
                       "and reads linalg.index)";
      return failure();
    }
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
  }
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
  return ops;
}

/// The kind of the result of `kind` on `operands`.
VpuValue::Kind resultKind(VpuKind kind, ArrayRef<VpuValue> operands) {
  if (isUnary(kind))
    return operands[0].kind;
  VpuValue::Kind k = joinKinds(operands[0].kind, operands[1].kind);
  return kind == VpuKind::Select ? joinKinds(k, operands[2].kind) : k;
}

/// Emits `ops` (from collectBody) and returns the value of `result`;
/// `result`'s op writes into `dst` when given (a full tile). With
/// `dstIsScratch` (the op reads no buffer that may alias `dst`), full-tile
/// intermediate results are also written to `dst` while the value it holds
/// has no later use, instead of to temporaries.
VpuValue emitBody(VpuEmitter &emitter, ArrayRef<Operation *> ops, Value result,
                  DenseMap<Value, VpuValue> &values,
                  const DenseMap<Value, IndexExpr> &indexExprs, Value dst,
                  bool dstIsScratch) {
  Type f32 = Float32Type::get(result.getContext());
  auto lookup = [&](Value v) {
    auto it = values.find(v);
    if (it != values.end())
      return it->second;
    // A constant, checked by collectBody.
    return VpuValue::ofScalar(*getConstantFloat(v), v.getType());
  };
  DenseMap<Value, unsigned> usesLeft;
  for (Operation *bodyOp : ops)
    for (Value v : bodyOp->getOperands())
      ++usesLeft[v];
  Value inDst; // the body value dst holds, if any
  for (Operation *bodyOp : ops) {
    if (isIndexArithmetic(bodyOp))
      continue; // read by the comparisons and conversions below
    if (auto cmp = dyn_cast<arith::CmpIOp>(bodyOp)) {
      // A mask of 1.0 / 0.0 (f32) from the two index values as f32.
      VpuValue lhs = emitter.materialize(indexExprs.at(cmp.getLhs()), f32);
      VpuValue rhs = emitter.materialize(indexExprs.at(cmp.getRhs()), f32);
      values[cmp] = emitter.emit(VpuKind::Cmp, {lhs, rhs}, f32, Value(),
                                 *getFloatPredicate(cmp.getPredicate()));
      continue;
    }
    if (isMaskToFloat(bodyOp)) {
      // 1.0 / 0.0 as the result type (uitofp), or -1.0 / 0.0 (sitofp: i1
      // true is -1). A value of its own, not the mask's tile, which the
      // in-place reuse of dst tracks by value.
      Value r = bodyOp->getResult(0);
      VpuValue mask = lookup(bodyOp->getOperand(0));
      values[r] = emitter.emit(isa<arith::SIToFPOp>(bodyOp) ? VpuKind::Neg
                                                            : VpuKind::Convert,
                               {mask}, r.getType());
      continue;
    }
    if (isa<arith::SIToFPOp, arith::UIToFPOp>(bodyOp)) {
      Value r = bodyOp->getResult(0);
      values[r] = emitter.materialize(indexExprs.at(bodyOp->getOperand(0)),
                                      r.getType());
      continue;
    }
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

/// A linalg op (generic or named) whose loops are all parallel, or whose
/// last loop of two is a reduction with acc + x or max(acc, x): a VPU
/// sequence (and vreduce_sum / vreduce_max for the reduction).
LogicalResult convertGeneric(IRRewriter &rewriter, linalg::LinalgOp op,
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
  if (llvm::any_of(op.getStaticLoopRanges(), ShapedType::isDynamic)) {
    refusal.reason = "its loop bounds are dynamic; tiles have static shapes";
    return failure();
  }
  unsigned numLoops = op.getNumLoops();
  if (numLoops > 2 || numLoops < 1) {
    refusal.reason = "it has " + std::to_string(numLoops) +
                     " loops; tiles have rank 1 or 2 (fold leading "
                     "dimensions into rows first)";
    return failure();
  }
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  bool reduction = op.getNumReductionLoops() > 0;
  // A reduction over the first loop into a row (accel-tile-linalg
  // interchanges a transposed column reduction into this form).
  bool columnReduction = numLoops == 2 &&
                         iterators[0] == utils::IteratorType::reduction &&
                         iterators[1] == utils::IteratorType::parallel;
  // Both loops reduced into one element (jnp.sum(x), a mean's sum).
  bool fullReduction = numLoops == 2 &&
                       iterators[0] == utils::IteratorType::reduction &&
                       iterators[1] == utils::IteratorType::reduction;
  if (reduction && !columnReduction && !fullReduction &&
      (numLoops != 2 || iterators[0] != utils::IteratorType::parallel)) {
    refusal.reason = "it reduces " +
                     std::string(numLoops == 1 ? "its only loop"
                                               : "its first loop") +
                     "; the VPU reduces the last dimension of a 2-D tile "
                     "only (rows x cols -> rows x 1)";
    return failure();
  }
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  int64_t rows = numLoops == 2 ? ranges[0] : 1, cols = ranges.back();

  // Operands, the output included.
  DenseMap<Value, VpuValue> values;
  OpOperand *init = op.getDpsInitOperand(0);
  auto outValue = classifyOperand(op, *init, "the output", refusal);
  if (failed(outValue))
    return failure();
  VpuValue::Kind wantOut = fullReduction     ? VpuValue::Element
                           : columnReduction ? VpuValue::Row
                           : reduction       ? VpuValue::Column
                                             : VpuValue::Tile;
  if (outValue->kind != wantOut) {
    refusal.reason =
        fullReduction
            ? "its output is not one element ((i, j) -> (0)); a reduction "
              "over both loops gives one value"
        : columnReduction
            ? "its output is not indexed by the columns alone ((i, j) -> "
              "(j)); a reduction over the rows gives one value per column"
        : reduction ? "its output is not indexed by the rows alone ((i, j) -> "
                      "(i)); the VPU reduces each row to one value"
                    : "its output is not written in loop order (the output's "
                      "indexing map is not the identity)";
    return failure();
  }
  Block &body = op->getRegion(0).front();
  BlockArgument acc = op.getMatchingBlockArgument(init);
  for (OpOperand &operand : op->getOpOperands()) {
    BlockArgument arg = op.getMatchingBlockArgument(&operand);
    if (!arg || arg.use_empty() || &operand == init)
      continue;
    auto value = classifyOperand(
        op, operand, "operand #" + std::to_string(operand.getOperandNumber()),
        refusal);
    if (failed(value))
      return failure();
    values[arg] = *value;
  }

  Value result = cast<linalg::YieldOp>(body.getTerminator()).getOperand(0);
  // A reduction combines the output's value with the rest of the body (the
  // elementwise expression reduced along the row).
  std::optional<VpuKind> combine;
  if (reduction) {
    Operation *def = result.getDefiningOp();
    combine = def && def->getBlock() == &body ? getVpuKind(def) : std::nullopt;
    if (!combine ||
        (*combine != VpuKind::Add && *combine != VpuKind::Max &&
         *combine != VpuKind::MaxNum) ||
        !llvm::is_contained(def->getOperands(), acc) || !acc.hasOneUse() ||
        def->getOperand(0) == def->getOperand(1)) {
      refusal.reason = "its reduction is not acc + x or max(acc, x) with acc "
                       "the output's value used once (the VPU reduces rows "
                       "by sum or maximum)";
      return failure();
    }
    result = def->getOperand(0) == acc ? def->getOperand(1)
                                       : def->getOperand(0);
  } else if (!acc.use_empty()) {
    values[acc] = *outValue; // out = f(out, ...): read in place
  }
  DenseMap<Value, IndexExpr> indexExprs;
  auto ops = collectBody(body, result, values, numLoops, indexExprs, refusal);
  if (failed(ops))
    return failure();

  // Rewrite: views of rank-1 columns first.
  rewriter.setInsertionPoint(op);
  Location loc = op.getLoc();
  auto columnView = [&](VpuValue &v) {
    if (!v.needsColumnView)
      return;
    int64_t n = cast<MemRefType>(v.buffer.getType()).getDimSize(0);
    v.buffer = memref::ExpandShapeOp::create(
        rewriter, loc, ArrayRef<int64_t>{n, 1}, v.buffer,
        ArrayRef<ReassociationIndices>{{0, 1}});
    v.needsColumnView = false;
  };
  Value outOriginal = init->get();
  if (outValue->needsTranspose) {
    refusal.reason = "it writes its output transposed ((i, j) -> (j, i)); "
                     "write the output in loop order and transpose an input "
                     "instead";
    return failure();
  }
  // A transpose (linalg.transpose, or a generic yielding an operand read
  // transposed): one accel.vtranspose into the output.
  if (auto arg = dyn_cast<BlockArgument>(result);
      arg && !reduction && values.count(arg) && values[arg].needsTranspose &&
      arg.getOwner() == &body) {
    VTransposeOp::create(rewriter, loc, values[arg].buffer, outValue->buffer);
    rewriter.eraseOp(op);
    return success();
  }
  // A reduction into a buffer just filled with its identity reduces into it
  // directly (the fill is dropped); otherwise into a column it then
  // combines with. Both look before creating any view.
  Operation *identityFill = nullptr;
  if (reduction) {
    auto [fill, value] = findFill(op, outOriginal);
    // The identity of the combining op: 0.0 for +, -inf for maximumf,
    // NaN for maxnumf (upstream's linalg.softmax decomposition fills its
    // maxnumf reduction with NaN). vpu.rmax folds a row from its first
    // element, which equals folding it from the identity.
    bool isIdentity = *combine == VpuKind::MaxNum ? std::isnan(value)
                      : *combine == VpuKind::Max  ? isExactly(value, -INFINITY)
                                                  : isExactly(value, 0.0f);
    if (fill && isIdentity)
      identityFill = fill;
  }
  columnView(*outValue);
  for (auto &entry : values)
    columnView(entry.second);
  if (!reduction && !acc.use_empty())
    values[acc] = *outValue;

  VpuEmitter emitter(rewriter, loc, rows, cols);
  for (OpOperand *input : op.getDpsInputOperands()) { // in operand order
    auto it = values.find(op.getMatchingBlockArgument(input));
    if (it == values.end() || !it->second.needsTranspose)
      continue;
    VpuValue &v = it->second;
    Value t = emitter.temporary(rows, cols, v.type);
    VTransposeOp::create(rewriter, loc, v.buffer, t);
    v.buffer = t;
    v.needsTranspose = false;
  }
  if (!reduction) {
    // The output is scratch space for intermediate tiles when the op reads
    // nothing that may be (part of) it.
    bool outIsScratch = acc.use_empty();
    for (OpOperand *input : op.getDpsInputOperands())
      if (isa<MemRefType>(input->get().getType()) &&
          mayShareMemory(input->get(), outValue->buffer))
        outIsScratch = false;
    emitBody(emitter, *ops, result, values, indexExprs, outValue->buffer,
             outIsScratch);
  } else {
    // The elementwise expression as a full tile, then its row reduction.
    VpuValue x =
        emitBody(emitter, *ops, result, values, indexExprs, Value(), false);
    Value tile = x.kind == VpuValue::Tile ? x.buffer
                                          : emitter.as(x, VpuValue::Tile);
    if (columnReduction || fullReduction) {
      // A full reduction: the rows reduced into a column first.
      Value rowsDone = tile;
      if (fullReduction) {
        rowsDone = emitter.temporary(rows, 1, rewriter.getF32Type());
        emitter.emitReduce(*combine, tile, rowsDone);
      }
      Value row = emitter.emitColumnReduce(*combine, rowsDone);
      if (identityFill) {
        VCopyOp::create(rewriter, loc, row, outValue->buffer);
        rewriter.eraseOp(identityFill);
      } else {
        emitter.emitOp(*combine, outValue->buffer, row, outValue->buffer);
      }
    } else if (identityFill) {
      emitter.emitReduce(*combine, tile, outValue->buffer);
      rewriter.eraseOp(identityFill);
    } else {
      Value partial = emitter.temporary(
          rows, 1, getElementTypeOrSelf(outValue->buffer.getType()));
      emitter.emitReduce(*combine, tile, partial);
      emitter.emitOp(*combine, outValue->buffer, partial, outValue->buffer);
    }
  }
  rewriter.eraseOp(op);
  return success();
}

struct ConvertLinalgToAccelPass
    : accel::impl::ConvertLinalgToAccelBase<ConvertLinalgToAccelPass> {
  void runOnOperation() override {
    // Shapes whose byte size passes 2^63 would wrap in the tile arithmetic.
    if (failed(accel::verifyShapeSizes(getOperation())))
      return signalPassFailure();
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
                return convertGeneric(rewriter, linalgOp, refusal);
              });
      if (mlir::failed(converted)) {
        op->emitError() << "cannot convert '" << op->getName()
                        << "' to accel: " << refusal.reason;
        failed = true;
      }
    }
    // Each gather nest waits once after its end for every DMA it issued:
    // the trip counts of the loops around each DMA up to the nest's
    // (constant: the nest's loops run over static shapes).
    llvm::MapVector<Operation *, int64_t> gatherDmas;
    getOperation()->walk([&](DmaStartOp dma) {
      scf::ForOp nest = getGatherLoop(dma);
      if (!nest || !dma.getSignal())
        return;
      int64_t count = 1;
      for (auto loop = dma->getParentOfType<scf::ForOp>();;
           loop = loop->getParentOfType<scf::ForOp>()) {
        std::optional<APInt> trips = loop.getStaticTripCount();
        if (!trips) {
          count = -1;
          break;
        }
        count *= trips->getSExtValue();
        if (loop == nest)
          break;
      }
      int64_t &total = gatherDmas[nest];
      total = (count < 0 || total < 0) ? -1 : total + count;
    });
    for (auto [nest, count] : gatherDmas) {
      if (count < 0) {
        nest->emitError("cannot convert this gather's loops to accel: a "
                        "trip count is not constant");
        failed = true;
        continue;
      }
      rewriter.setInsertionPointAfter(nest);
      Value n = arith::ConstantIndexOp::create(rewriter, nest->getLoc(), count);
      SemWaitOp::create(rewriter, nest->getLoc(), kGatherSemaphore, n);
    }
    // Scalar reads of i32 data in VMEM (a gather's indices, staged by
    // accel-stage-operands) are the scalar core's loads.
    SmallVector<memref::LoadOp> indexLoads;
    getOperation()->walk([&](memref::LoadOp load) {
      auto type = load.getMemRefType();
      auto space = dyn_cast_or_null<MemorySpaceAttr>(type.getMemorySpace());
      if (space && space.getValue() == MemorySpace::VMEM &&
          type.getElementType().isSignlessInteger(32))
        indexLoads.push_back(load);
    });
    for (memref::LoadOp load : indexLoads) {
      rewriter.setInsertionPoint(load);
      Value word =
          LoadOp::create(rewriter, load.getLoc(), rewriter.getIndexType(),
                         load.getMemRef(), load.getIndices());
      rewriter.replaceOpWithNewOp<arith::IndexCastOp>(load, load.getType(),
                                                      word);
    }
    // Scalar float memory accesses (a loop nest no pattern raised to tile
    // ops) have no unit to run on: one error, at the first.
    getOperation()->walk([&](Operation *op) {
      if (!isa<memref::LoadOp, memref::StoreOp, affine::AffineLoadOp,
               affine::AffineStoreOp>(op))
        return WalkResult::advance();
      Value memref = isa<memref::LoadOp, affine::AffineLoadOp>(op)
                         ? op->getOperand(0)
                         : op->getOperand(1);
      if (!isVpuFloat(cast<MemRefType>(memref.getType()).getElementType()))
        return WalkResult::advance();
      op->emitError() << "cannot convert '" << op->getName()
                      << "' to accel: a scalar float access (a loop nest over "
                         "elements); accel computes on tiles: write the "
                         "computation as linalg ops (linalg.generic, "
                         "linalg.matmul, ...)";
      failed = true;
      return WalkResult::interrupt();
    });
    if (failed) {
      signalPassFailure();
      return;
    }
    // The float constants the converted ops used have no ISA counterpart
    // (the values live in the VPU ops' attributes now).
    getOperation()->walk([&](arith::ConstantOp c) {
      if (isa<FloatType>(c.getType()) && c->use_empty())
        rewriter.eraseOp(c);
    });
  }
};

} // namespace
