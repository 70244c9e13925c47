//===- LinalgToAccel.cpp - linalg/memref ops on tiles to accel ops --------===//
//
// The last conversion of a frontend pipeline (Passes.td,
// convert-linalg-to-accel): copies become DMAs, fills and elementwise
// linalg ops become VPU sequences, matmuls become MXU ops. Each op is
// checked completely before anything is rewritten, so a refusal leaves the
// op as it was and names the reason at its location.
//
// This file has the operand checks the conversions share (LinalgToAccel.h),
// copies, fills, matmuls and the pass; elementwise ops and reductions are
// ConvertGeneric.cpp's, on VpuBody.cpp, VpuEmitter.cpp and VpuKinds.cpp.
//
//===----------------------------------------------------------------------===//

#include "LinalgToAccel.h"
#include "VpuEmitter.h"
#include "accel/Conversion/Passes.h"
#include "accel/Dialect/Accel/AccelOps.h"
#include "accel/Dialect/Accel/TileShape.h"
#include "accel/Dialect/Accel/Views.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
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
using namespace accel::linalg_to_accel;

//===----------------------------------------------------------------------===//
// Operands
//===----------------------------------------------------------------------===//

FailureOr<TileShape> linalg_to_accel::getTile(Value v, StringRef role,
                                              Refusal &refusal, bool allowI32) {
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
FailureOr<TileShape> linalg_to_accel::getVmemTile(Value v, StringRef role,
                                                  Refusal &refusal) {
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
std::optional<float> linalg_to_accel::getConstantFloat(Value v) {
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
bool linalg_to_accel::mayShareMemory(Value a, Value b) {
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
static constexpr uint32_t kGatherSemaphore = 255;

/// The outermost loop of a gather nest (marked `accel.gather` by
/// accel-lower-gathers) around `op`, or null.
static scf::ForOp getGatherLoop(Operation *op) {
  for (auto loop = op->getParentOfType<scf::ForOp>(); loop;
       loop = loop->getParentOfType<scf::ForOp>())
    if (loop->hasAttr("accel.gather"))
      return loop;
  return nullptr;
}

/// A copy between HBM and VMEM (either way, of equal tiles) as a DMA and
/// its WAIT; inside a gather nest (getGatherLoop) as a DMA that signals
/// kGatherSemaphore instead, which the nest waits for once after its end.
static LogicalResult convertCopy(IRRewriter &rewriter, Operation *op, Value src,
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
static LogicalResult convertFill(IRRewriter &rewriter, linalg::FillOp op,
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
std::pair<Operation *, float> linalg_to_accel::findFill(Operation *op,
                                                        Value buffer) {
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
bool linalg_to_accel::isExactly(float value, float identity) {
  return value == identity && std::signbit(value) == std::signbit(identity);
}

/// linalg.matmul (C += A * B) on VMEM tiles: accel.matmul.
static LogicalResult convertMatmul(IRRewriter &rewriter, linalg::MatmulOp op,
                                   Refusal &refusal) {
  if (op.hasUserDefinedMaps()) {
    refusal.reason = "its indexing maps transpose or broadcast an operand; "
                     "the MXU multiplies row-major A (MxK) by B (KxN)";
    return failure();
  }
  Value a = op.getDpsInputOperand(0)->get(),
        b = op.getDpsInputOperand(1)->get(), c = op.getDpsInitOperand(0)->get();
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
// The pass
//===----------------------------------------------------------------------===//

/// Converts `op` (a copy, a fill, a matmul or another linalg op) to accel
/// ops; on failure `op` is left as it was and `refusal` holds the reason.
static LogicalResult convertOp(IRRewriter &rewriter, Operation *op,
                               Refusal &refusal) {
  return llvm::TypeSwitch<Operation *, LogicalResult>(op)
      .Case<memref::CopyOp>([&](memref::CopyOp copy) {
        return convertCopy(rewriter, copy, copy.getSource(), copy.getTarget(),
                           refusal);
      })
      .Case<linalg::CopyOp>([&](linalg::CopyOp copy) {
        return convertCopy(rewriter, copy, copy.getDpsInputOperand(0)->get(),
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
}

/// How many DMAs the signalling DMA `dma` of the gather nest `nest` issues:
/// the trip counts of the loops around it up to the nest's, multiplied;
/// -1 when one is not constant.
static int64_t countGatherDmas(DmaStartOp dma, scf::ForOp nest) {
  int64_t count = 1;
  for (auto loop = dma->getParentOfType<scf::ForOp>();;
       loop = loop->getParentOfType<scf::ForOp>()) {
    std::optional<APInt> trips = loop.getStaticTripCount();
    if (!trips)
      return -1;
    count *= trips->getSExtValue();
    if (loop == nest)
      return count;
  }
}

namespace {

struct ConvertLinalgToAccelPass
    : accel::impl::ConvertLinalgToAccelBase<ConvertLinalgToAccelPass> {
  /// Converts each copy and linalg op, in walk order; each refusal is an
  /// error at its op. Returns whether one failed.
  bool convertOps(IRRewriter &rewriter) {
    SmallVector<Operation *> candidates;
    getOperation()->walk([&](Operation *op) {
      if (isa<memref::CopyOp, linalg::LinalgOp>(op))
        candidates.push_back(op);
    });
    bool failed = false;
    for (Operation *op : candidates) {
      if (!op->getBlock())
        continue; // erased (a fill folded into its matmul)
      Refusal refusal;
      if (mlir::failed(convertOp(rewriter, op, refusal))) {
        op->emitError() << "cannot convert '" << op->getName()
                        << "' to accel: " << refusal.reason;
        failed = true;
      }
    }
    return failed;
  }

  /// Each gather nest waits once after its end for every DMA it issued:
  /// the trip counts of the loops around each DMA up to the nest's
  /// (constant: the nest's loops run over static shapes). Returns whether
  /// a count was not constant (an error at the nest).
  bool waitForGatherDmas(IRRewriter &rewriter) {
    llvm::MapVector<Operation *, int64_t> gatherDmas;
    getOperation()->walk([&](DmaStartOp dma) {
      scf::ForOp nest = getGatherLoop(dma);
      if (!nest || !dma.getSignal())
        return;
      int64_t count = countGatherDmas(dma, nest);
      int64_t &total = gatherDmas[nest];
      total = (count < 0 || total < 0) ? -1 : total + count;
    });
    bool failed = false;
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
    return failed;
  }

  /// Scalar reads of i32 data in VMEM (a gather's indices, staged by
  /// accel-stage-operands) are the scalar core's loads.
  void convertIndexLoads(IRRewriter &rewriter) {
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
  }

  /// Scalar float memory accesses (a loop nest no pattern raised to tile
  /// ops) have no unit to run on: one error, at the first. Returns whether
  /// there was one.
  bool findScalarFloatAccess() {
    bool failed = false;
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
    return failed;
  }

  void runOnOperation() override {
    // Shapes whose byte size passes 2^63 would wrap in the tile arithmetic.
    if (failed(accel::verifyShapeSizes(getOperation())))
      return signalPassFailure();
    IRRewriter rewriter(&getContext());
    bool failed = convertOps(rewriter);
    failed |= waitForGatherDmas(rewriter);
    convertIndexLoads(rewriter);
    failed |= findScalarFloatAccess();
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
