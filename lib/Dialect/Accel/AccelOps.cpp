//===- AccelOps.cpp - accel op verifiers ----------------------------------===//
//
// Verifiers give one located diagnostic per problem. The tile rules (static
// shape, rank 1 or 2, f32 or bf16, an #accel.space, static strides with unit
// innermost stride, row stride within the ISA's 16-bit field) are what
// lowering to the ISA needs (docs/isa.md).
//
//===----------------------------------------------------------------------===//

#include "accel/Dialect/Accel/AccelOps.h"
#include "accel/Dialect/Accel/TileShape.h"
#include "accel/Support/CheckedSize.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/TypeUtilities.h"
#include "llvm/ADT/DenseSet.h"

using namespace mlir;
using namespace accel;

FailureOr<TileShape> accel::getTileShape(Type type, std::string *why,
                                         bool allowI32) {
  auto fail = [&](const Twine &msg) -> FailureOr<TileShape> {
    if (why)
      *why = msg.str();
    return failure();
  };
  auto memref = dyn_cast<MemRefType>(type);
  if (!memref)
    return fail("must be a ranked memref");
  if (!memref.hasStaticShape())
    return fail("must have a static shape");
  if (memref.getRank() < 1 || memref.getRank() > 2)
    return fail("must have rank 1 or 2");
  Type elem = memref.getElementType();
  bool isI32 = elem.isSignlessInteger(32);
  if (!elem.isF32() && !elem.isBF16() && !(allowI32 && isI32))
    return fail(allowI32 ? "must have f32, bf16 or i32 elements"
                         : "must have f32 or bf16 elements");
  auto space = getMemorySpace(memref);
  if (!space)
    return fail("must be in memory space #accel.space<hbm> or "
                "#accel.space<vmem>");
  SmallVector<int64_t> strides;
  int64_t offset = 0;
  if (memref.getLayout().isIdentity() &&
      llvm::all_of(memref.getShape(), [](int64_t d) { return d > 0; })) {
    // Row-major, as getStridesAndOffset derives an identity layout's
    // strides (suffix products of the sizes) without its affine-map
    // analysis: about 10 K host instructions a call, and the verifier
    // asks for every tile operand after each pass.
    strides.assign(memref.getRank(), 1);
    if (memref.getRank() == 2)
      strides[0] = memref.getDimSize(1);
  } else if (failed(memref.getStridesAndOffset(strides, offset)) ||
             llvm::any_of(strides, ShapedType::isDynamic)) {
    return fail("must have static strides");
  }
  if (strides.back() != 1)
    return fail("must have unit innermost stride");
  TileShape t;
  t.space = *space;
  t.elem = isI32           ? TileElem::I32
           : elem.isBF16() ? TileElem::BF16
                           : TileElem::F32;
  if (memref.getRank() == 1) {
    t.rows = 1;
    t.cols = memref.getDimSize(0);
    t.rowStride = t.cols;
  } else {
    t.rows = memref.getDimSize(0);
    t.cols = memref.getDimSize(1);
    t.rowStride = strides[0];
  }
  if (t.rows < 1 || t.cols < 1)
    return fail("must not be empty");
  if (t.rowStride < t.cols)
    return fail("must have a row stride of at least its column count (rows "
                "must not overlap)");
  if (!ShapedType::isDynamic(offset) && offset < 0)
    return fail("must not have a negative offset");
  if (t.rows > kMaxTileDim || t.cols > kMaxTileDim ||
      t.rowStride > kMaxTileDim)
    return fail("has a dimension or row stride above " + Twine(kMaxTileDim) +
                " elements, the ISA limit");
  return t;
}

uint64_t accel::getElementBytes(Type elem) {
  if (elem.isIndex())
    return 8;
  if (elem.isIntOrFloat())
    return std::max(1u, (elem.getIntOrFloatBitWidth() + 7) / 8);
  return 1;
}

LogicalResult accel::verifyShapeSizes(Operation *root) {
  bool ok = true;
  // Emits the error for `v` (named `what`) when its size does not fit.
  auto check = [&](Value v, const Twine &what) {
    auto shaped = dyn_cast<ShapedType>(v.getType());
    if (!shaped || !isa<MemRefType, RankedTensorType>(shaped) ||
        !shaped.hasStaticShape())
      return;
    uint64_t elemBytes = getElementBytes(shaped.getElementType());
    if (getCheckedByteSize(shaped.getShape(), elemBytes))
      return;
    mlir::emitError(v.getLoc())
        << what << " of type " << shaped << " holds "
        << describeByteSize(shaped.getShape(), elemBytes)
        << ", more than the 2^63 - 1 bytes a buffer can have";
    ok = false;
  };
  // Pre-order: a function's arguments before the ops of its body.
  root->walk<WalkOrder::PreOrder>([&](Operation *op) {
    for (Region &region : op->getRegions())
      for (Block &block : region)
        for (BlockArgument arg : block.getArguments())
          check(arg, "argument " + Twine(arg.getArgNumber()));
    for (OpResult result : op->getResults())
      check(result, "result " + Twine(result.getResultNumber()) + " of '" +
                        op->getName().getStringRef() + "'");
  });
  return success(ok);
}

/// Verifies operand `v` of `op` as a tile, optionally in a required space.
static FailureOr<TileShape> verifyTile(Operation *op, Value v, StringRef name,
                                       std::optional<MemorySpace> required,
                                       bool allowI32 = false) {
  std::string why;
  auto tile = getTileShape(v.getType(), &why, allowI32);
  if (failed(tile)) {
    op->emitOpError() << "operand '" << name << "' " << why;
    return failure();
  }
  if (required && tile->space != *required) {
    op->emitOpError() << "operand '" << name << "' must be in "
                      << stringifyMemorySpace(*required) << ", not "
                      << stringifyMemorySpace(tile->space);
    return failure();
  }
  return tile;
}

LogicalResult AllocOp::verify() {
  auto type = getBuffer().getType();
  auto memref = dyn_cast<MemRefType>(type);
  if (!memref || !memref.getLayout().isIdentity())
    return emitOpError("result must have the identity layout");
  // Its size first, exactly: the dimensions are the user's, and their
  // product may pass 2^64 (and wrap to a small number).
  uint64_t elemBytes = getElementBytes(memref.getElementType());
  if (memref.hasStaticShape() &&
      !getCheckedByteSize(memref.getShape(), elemBytes))
    return emitOpError() << "result " << memref << " holds "
                         << describeByteSize(memref.getShape(), elemBytes)
                         << ", more than the 2^63 - 1 bytes a buffer can have";
  auto tile = verifyTile(*this, getBuffer(), "result", MemorySpace::VMEM,
                         /*allowI32=*/true);
  return success(succeeded(tile));
}

LogicalResult DmaStartOp::verify() {
  auto src = verifyTile(*this, getSrc(), "src", std::nullopt, true);
  if (failed(src))
    return failure();
  auto dst = verifyTile(*this, getDst(), "dst", std::nullopt, true);
  if (failed(dst))
    return failure();
  if (src->elem != dst->elem)
    return emitOpError() << "src and dst element types differ ("
                         << getElementTypeOrSelf(getSrc().getType()) << " vs "
                         << getElementTypeOrSelf(getDst().getType())
                         << "): a DMA copies bytes, convert with accel.vcopy";
  if (src->rows != dst->rows || src->cols != dst->cols)
    return emitOpError() << "src shape " << src->rows << "x" << src->cols
                         << " differs from dst shape " << dst->rows << "x"
                         << dst->cols;
  if (src->space == MemorySpace::HBM && dst->space == MemorySpace::HBM)
    return emitOpError("HBM to HBM copies are not supported; one side must "
                       "be in VMEM");
  if (getSrcChip() && getDstChip())
    return emitOpError("takes src_chip or dst_chip, not both: one side of a "
                       "DMA is on the issuing chip");
  return success();
}

/// The collectives' shared checks: VMEM tiles of one element type and
/// column count, `out` rows = `in` rows times `outPerIn` (0: a whole
/// multiple) or `in` rows = `out` rows times a whole multiple
/// (`inMultiple`), and a known algorithm.
static LogicalResult verifyCollective(Operation *op, Value in, Value out,
                                      std::optional<StringRef> algorithm,
                                      bool outIsMultiple, bool inIsMultiple,
                                      bool sums) {
  // Groups: a matrix of distinct chip ids (that they partition the system
  // into progressions is checked where the chip count is known, by the
  // lowering).
  if (auto groups = op->getAttrOfType<DenseIntElementsAttr>("groups")) {
    auto type = cast<ShapedType>(groups.getType());
    if (type.getRank() != 2 || type.getNumElements() == 0)
      return op->emitOpError(
          "groups must be a non-empty 2-D tensor: one row of chip ids per "
          "group");
    llvm::SmallDenseSet<int64_t, 16> seen;
    for (const APInt &v : groups.getValues<APInt>()) {
      int64_t chip = v.getSExtValue();
      if (chip < 0)
        return op->emitOpError() << "groups name chip " << chip;
      if (!seen.insert(chip).second)
        return op->emitOpError()
               << "groups name chip " << chip << " more than once";
    }
  }
  auto a = verifyTile(op, in, "in", MemorySpace::VMEM);
  if (failed(a))
    return failure();
  auto b = verifyTile(op, out, "out", MemorySpace::VMEM);
  if (failed(b))
    return failure();
  if (getElementTypeOrSelf(in.getType()) != getElementTypeOrSelf(out.getType()))
    return op->emitOpError("in and out must have one element type");
  if (sums && !getElementTypeOrSelf(in.getType()).isF32())
    return op->emitOpError("sums f32 tiles only");
  if (a->cols != b->cols)
    return op->emitOpError()
           << "in has " << a->cols << " columns but out " << b->cols;
  if (outIsMultiple && (a->rows == 0 || b->rows % a->rows))
    return op->emitOpError()
           << "out's " << b->rows << " rows must be a multiple of in's "
           << a->rows << " (one block per chip)";
  if (inIsMultiple && (b->rows == 0 || a->rows % b->rows))
    return op->emitOpError()
           << "in's " << a->rows << " rows must be a multiple of out's "
           << b->rows << " (one block per chip)";
  if (!outIsMultiple && !inIsMultiple && a->rows != b->rows)
    return op->emitOpError() << "in and out must have one shape";
  if (algorithm && !llvm::is_contained(
                       std::initializer_list<StringRef>{
                           "direct", "ring", "bidirectional_ring", "torus2d",
                           "recursive_doubling"},
                       *algorithm))
    return op->emitOpError()
           << "unknown algorithm '" << *algorithm
           << "': expected direct, ring, bidirectional_ring, torus2d or "
              "recursive_doubling";
  return success();
}

LogicalResult AllGatherOp::verify() {
  return verifyCollective(*this, getIn(), getOut(), getAlgorithm(), true, false,
                          false);
}

LogicalResult ReduceScatterOp::verify() {
  return verifyCollective(*this, getIn(), getOut(), getAlgorithm(), false, true,
                          true);
}

LogicalResult AllReduceOp::verify() {
  return verifyCollective(*this, getIn(), getOut(), getAlgorithm(), false,
                          false, true);
}

LogicalResult AllToAllOp::verify() {
  return verifyCollective(*this, getIn(), getOut(), getAlgorithm(), false,
                          false, false);
}

LogicalResult SendOp::verify() {
  auto src = verifyTile(*this, getSrc(), "src", MemorySpace::VMEM);
  if (failed(src))
    return failure();
  auto dst = verifyTile(*this, getDst(), "dst", MemorySpace::VMEM);
  if (failed(dst))
    return failure();
  if (src->rows != dst->rows || src->cols != dst->cols ||
      src->elem != dst->elem)
    return emitOpError("src and dst must have one shape and element type");
  return success();
}

LogicalResult MatmulOp::verify() {
  auto a = verifyTile(*this, getA(), "a", MemorySpace::VMEM);
  if (failed(a))
    return failure();
  auto b = verifyTile(*this, getB(), "b", MemorySpace::VMEM);
  if (failed(b))
    return failure();
  auto c = verifyTile(*this, getC(), "c", MemorySpace::VMEM);
  if (failed(c))
    return failure();
  if (a->cols != b->rows)
    return emitOpError() << "contraction mismatch: a is " << a->rows << "x"
                         << a->cols << " but b is " << b->rows << "x"
                         << b->cols;
  if (c->rows != a->rows || c->cols != b->cols)
    return emitOpError() << "c must be " << a->rows << "x" << b->cols
                         << ", not " << c->rows << "x" << c->cols;
  if (b->rowStride != b->cols)
    return emitOpError("operand 'b' must be contiguous (row stride equal to "
                       "its column count)");
  return success();
}

/// An elementwise VPU op on VMEM tiles: `x` (named `xName`) and `out` of one
/// shape, `y` that shape or a column (Rx1) or row (1xC) broadcast of it.
static LogicalResult verifyElementwise(Operation *op, Value x, StringRef xName,
                                       Value y, Value out) {
  auto tx = verifyTile(op, x, xName, MemorySpace::VMEM);
  if (failed(tx))
    return failure();
  auto ty = verifyTile(op, y, "y", MemorySpace::VMEM);
  if (failed(ty))
    return failure();
  auto to = verifyTile(op, out, "out", MemorySpace::VMEM);
  if (failed(to))
    return failure();
  if (tx->rows != to->rows || tx->cols != to->cols)
    return op->emitOpError() << xName << " is " << tx->rows << "x" << tx->cols
                             << " but out is " << to->rows << "x" << to->cols;
  bool same = ty->rows == tx->rows && ty->cols == tx->cols;
  bool bcast = ty->rows == tx->rows && ty->cols == 1;
  bool rowBcast = ty->rows == 1 && ty->cols == tx->cols;
  if (!same && !bcast && !rowBcast)
    return op->emitOpError()
           << "y must be " << tx->rows << "x" << tx->cols << ", " << tx->rows
           << "x1 (column broadcast) or 1x" << tx->cols
           << " (row broadcast), not " << ty->rows << "x" << ty->cols;
  return success();
}

template <typename OpTy> static LogicalResult verifyBinary(OpTy op) {
  return verifyElementwise(op, op.getX(), "x", op.getY(), op.getOut());
}

template <typename OpTy>
static LogicalResult verifyUnary(OpTy op, bool reduce) {
  auto x = verifyTile(op, op.getX(), "x", MemorySpace::VMEM);
  if (failed(x))
    return failure();
  auto out = verifyTile(op, op.getOut(), "out", MemorySpace::VMEM);
  if (failed(out))
    return failure();
  int64_t wantCols = reduce ? 1 : x->cols;
  if (out->rows != x->rows || out->cols != wantCols)
    return op.emitOpError() << "out must be " << x->rows << "x" << wantCols
                            << ", not " << out->rows << "x" << out->cols;
  return success();
}

LogicalResult VAddOp::verify() { return verifyBinary(*this); }
LogicalResult VSubOp::verify() { return verifyBinary(*this); }
LogicalResult VMulOp::verify() { return verifyBinary(*this); }
LogicalResult VDivOp::verify() { return verifyBinary(*this); }
LogicalResult VCopySignOp::verify() { return verifyBinary(*this); }
LogicalResult VMaxOp::verify() { return verifyBinary(*this); }
LogicalResult VMinOp::verify() { return verifyBinary(*this); }
LogicalResult VExpOp::verify() { return verifyUnary(*this, false); }
LogicalResult VSqrtOp::verify() { return verifyUnary(*this, false); }
LogicalResult VCopyOp::verify() { return verifyUnary(*this, false); }
LogicalResult VRsqrtOp::verify() { return verifyUnary(*this, false); }
LogicalResult VTanhOp::verify() { return verifyUnary(*this, false); }
LogicalResult VLogOp::verify() { return verifyUnary(*this, false); }
LogicalResult VLog1pOp::verify() { return verifyUnary(*this, false); }
LogicalResult VErfOp::verify() { return verifyUnary(*this, false); }
LogicalResult VAbsOp::verify() { return verifyUnary(*this, false); }
LogicalResult VExpm1Op::verify() { return verifyUnary(*this, false); }
LogicalResult VFloorOp::verify() { return verifyUnary(*this, false); }
LogicalResult VCeilOp::verify() { return verifyUnary(*this, false); }
LogicalResult VRoundEvenOp::verify() { return verifyUnary(*this, false); }
LogicalResult VRoundOp::verify() { return verifyUnary(*this, false); }
LogicalResult VReduceSumOp::verify() { return verifyUnary(*this, true); }
LogicalResult VReduceMaxOp::verify() { return verifyUnary(*this, true); }

LogicalResult VCmpOp::verify() { return verifyBinary(*this); }

LogicalResult VSelectOp::verify() {
  return verifyElementwise(*this, getMask(), "mask", getY(), getOut());
}

LogicalResult VIotaOp::verify() {
  return success(
      succeeded(verifyTile(*this, getOut(), "out", MemorySpace::VMEM)));
}

LogicalResult VTransposeOp::verify() {
  auto x = verifyTile(*this, getX(), "x", MemorySpace::VMEM);
  if (failed(x))
    return failure();
  auto out = verifyTile(*this, getOut(), "out", MemorySpace::VMEM);
  if (failed(out))
    return failure();
  if (out->rows != x->cols || out->cols != x->rows)
    return emitOpError() << "out must be " << x->cols << "x" << x->rows
                         << " (x transposed), not " << out->rows << "x"
                         << out->cols;
  return success();
}

LogicalResult LoadOp::verify() {
  auto memref = cast<MemRefType>(getBuffer().getType());
  if (memref.getRank() != int64_t(getIndices().size()))
    return emitOpError() << "expects " << memref.getRank()
                         << " indices, one per dimension, not "
                         << getIndices().size();
  auto tile = verifyTile(*this, getBuffer(), "buffer", MemorySpace::VMEM,
                         /*allowI32=*/true);
  if (failed(tile))
    return failure();
  if (!tile->isI32())
    return emitOpError("operand 'buffer' must have i32 elements");
  return success();
}

LogicalResult VFillOp::verify() {
  return success(
      succeeded(verifyTile(*this, getOut(), "out", MemorySpace::VMEM)));
}

#define GET_OP_CLASSES
#include "accel/Dialect/Accel/AccelOps.cpp.inc"
