//===- VpuEmitter.h - A linalg body's values as VPU sequences ---*- C++ -*-===//
//
// convert-linalg-to-accel's view of an elementwise linalg body: the shape
// each value has on the VPU (VpuValue), the body ops the VPU has (VpuKind,
// VpuKinds.cpp), the emitter of VPU sequences over an R x C iteration
// space (VpuEmitter, VpuEmitter.cpp), and the checks and emission of a
// body (VpuBody.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef ACCEL_LIB_CONVERSION_LINALGTOACCEL_VPUEMITTER_H
#define ACCEL_LIB_CONVERSION_LINALGTOACCEL_VPUEMITTER_H

#include "IndexExpr.h"
#include "LinalgToAccel.h"
#include "accel/Dialect/Accel/AccelOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/PatternMatch.h"

#include <optional>

namespace accel::linalg_to_accel {

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
  mlir::Value buffer;
  float scalar = 0;
  /// The element type: f32 or bf16 (a buffer's, or a constant's).
  mlir::Type type;
  /// A rank-1 buffer of R elements read as a column: viewed as R x 1 (a
  /// memref.expand_shape) when the op is rewritten.
  bool needsColumnView = false;
  /// A C x R buffer the op reads transposed ((i, j) -> (j, i)): copied
  /// transposed into an R x C temporary (accel.vtranspose) when the op is
  /// rewritten.
  bool needsTranspose = false;

  static VpuValue ofScalar(float f, mlir::Type type) {
    return {Scalar, mlir::Value(), f, type, false, false};
  }
  static VpuValue of(Kind kind, mlir::Value buffer) {
    return {kind,  buffer, 0.0f, mlir::getElementTypeOrSelf(buffer.getType()),
            false, false};
  }
};

/// The kind of the result of an elementwise op on operands of kinds `a` and
/// `b`: a column and a row make a full tile.
VpuValue::Kind joinKinds(VpuValue::Kind a, VpuValue::Kind b);

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
inline bool isVpuFloat(mlir::Type t) { return t.isF32() || t.isBF16(); }

/// Whether `op` converts a mask (an i1 the VPU holds as 1.0 / 0.0) to a
/// float: arith.uitofp or arith.sitofp from i1 to f32 or bf16.
bool isMaskToFloat(mlir::Operation *op);

/// The VPU kind of the body op `op` (arith and math ops on f32 or bf16,
/// and/or of masks, f32 <-> bf16 conversions), or nullopt when the VPU has
/// no counterpart.
std::optional<VpuKind> getVpuKind(mlir::Operation *op);

/// Whether `k` is commutative (add, mul, and the maxima and minima).
bool isCommutative(VpuKind k);

/// Whether `k` takes one operand.
bool isUnary(VpuKind k);

/// The predicate that holds for (y, x) where `p` holds for (x, y).
CmpPredicate swapPredicate(CmpPredicate p);

/// arith.cmpi's signed and equality predicates as comparisons of the f32
/// values (exact integers below 2^24); nullopt for the unsigned ones.
std::optional<CmpPredicate> getFloatPredicate(mlir::arith::CmpIPredicate p);

/// `kind` applied to constants, as the simulator computes it in f32 (a
/// bf16 result is rounded by the caller). Cmp and Select fold in emit().
float foldScalar(VpuKind kind, float x, float y);

/// Emits VPU sequences over an R x C iteration space: temporaries are
/// accel.alloc buffers of their value's element type (so a bf16 value of
/// the body is rounded where linalg rounds it), broadcasts use the VPU's
/// column (R x 1) and row (1 x C) operand forms, other shapes are
/// materialized.
class VpuEmitter {
public:
  VpuEmitter(mlir::IRRewriter &rewriter, mlir::Location loc, int64_t rows,
             int64_t cols)
      : rewriter(rewriter), loc(loc), rows(rows), cols(cols) {}

  /// A fresh VMEM buffer of `r` x `c` elements of `type` (f32 or bf16).
  mlir::Value temporary(int64_t r, int64_t c, mlir::Type type);

  /// A fresh buffer of the shape of `kind` (a scalar has none).
  mlir::Value temporary(VpuValue::Kind kind, mlir::Type type);

  /// `v` as a buffer of the shape of `kind`, which `v` broadcasts to; built
  /// in `dst` when given (and then always written there).
  mlir::Value as(const VpuValue &v, VpuValue::Kind kind, mlir::Value dst = {});

  /// Emits `kind` on `operands` into `dst` (null: a new temporary; else a
  /// full tile of element type `type`) and returns the result, of element
  /// type `type`.
  VpuValue emit(VpuKind kind, llvm::SmallVector<VpuValue, 2> operands,
                mlir::Type type, mlir::Value dst = {},
                CmpPredicate predicate = CmpPredicate::AlwaysFalse);

  /// arith.select: operands (mask, on true, on false). out = the false
  /// value, then vpu.select writes the true one where the mask is set.
  VpuValue emitSelect(llvm::ArrayRef<VpuValue> operands, mlir::Type type,
                      mlir::Value dst);

  /// The integer value `e` (IndexExpr.h) as f32 values of `type`: a scalar
  /// when constant, else vpu.iota along the row (a column R x 1) and the
  /// column (a row 1 x C) — a full tile when it depends on both — with the
  /// uniform part (the tile offsets) as the iota's base where a
  /// coefficient is 1.
  VpuValue materialize(const IndexExpr &e, mlir::Type type);

  /// Rows [first, first + count) of the 2-D buffer `v` (a subview).
  mlir::Value rowsOf(mlir::Value v, int64_t first, int64_t count);

  /// The column reduction `kind` (Add, Max, MaxNum) of the R x C tile `x`
  /// (a reduction over its first dimension): a 1 x C row, by halving — the
  /// lower half of the rows combined with the upper half into an f32
  /// temporary (the middle row of an odd count copied), then halving that
  /// in place — in ceil(log2 R) VPU ops over R x C elements in all. The
  /// order of the additions is the tree's (deterministic; not NumPy's).
  mlir::Value emitColumnReduce(VpuKind kind, mlir::Value x);

  /// Emits the row reduction `kind` (Add: sum, Max) of the R x C tile `x`
  /// into the R x 1 column `out`.
  void emitReduce(VpuKind kind, mlir::Value x, mlir::Value out);

  /// Emits the VPU op of `kind` (not Neg, Cmp or Select) on `x` (and `y`
  /// for a binary kind) into `dst`.
  void emitOp(VpuKind kind, mlir::Value x, mlir::Value y, mlir::Value dst);

private:
  /// `b` as the second operand of an op whose result has the shape of
  /// `result`: a column or a row as it is (the VPU broadcasts it into a
  /// full tile), a scalar or an element as a filled column, else `b` in
  /// the result's shape.
  mlir::Value broadcastOperand(const VpuValue &b, VpuValue::Kind result);

  mlir::IRRewriter &rewriter;
  mlir::Location loc;
  int64_t rows, cols;
};

//===----------------------------------------------------------------------===//
// A linalg op's body (VpuBody.cpp)
//===----------------------------------------------------------------------===//

/// How `operand` of the 1- or 2-loop op `op` is read: a full tile, a column
/// (indexed by i only), a row (indexed by j only) or a scalar constant; or
/// the reason (naming the operand as `role`) it cannot be read by the VPU.
mlir::FailureOr<VpuValue> classifyOperand(mlir::linalg::LinalgOp op,
                                          mlir::OpOperand &operand,
                                          llvm::StringRef role,
                                          Refusal &refusal);

/// The body ops `result` depends on, in order, checked to be VPU ops on
/// `values` (operands), constants and earlier results; or the reason not.
/// The integer values the comparisons and conversions of the body of an op
/// with `numLoops` loops read are analyzed into `indexExprs`.
mlir::FailureOr<llvm::SmallVector<mlir::Operation *>> collectBody(
    mlir::Block &body, mlir::Value result,
    const llvm::DenseMap<mlir::Value, VpuValue> &values, unsigned numLoops,
    llvm::DenseMap<mlir::Value, IndexExpr> &indexExprs, Refusal &refusal);

/// Emits `ops` (from collectBody) and returns the value of `result`;
/// `result`'s op writes into `dst` when given (a full tile). With
/// `dstIsScratch` (the op reads no buffer that may alias `dst`), full-tile
/// intermediate results are also written to `dst` while the value it holds
/// has no later use, instead of to temporaries. `values` holds the
/// operands' values and receives the body's.
VpuValue emitBody(VpuEmitter &emitter, llvm::ArrayRef<mlir::Operation *> ops,
                  mlir::Value result,
                  llvm::DenseMap<mlir::Value, VpuValue> &values,
                  const llvm::DenseMap<mlir::Value, IndexExpr> &indexExprs,
                  mlir::Value dst, bool dstIsScratch);

} // namespace accel::linalg_to_accel

#endif // ACCEL_LIB_CONVERSION_LINALGTOACCEL_VPUEMITTER_H
