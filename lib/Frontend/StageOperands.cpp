//===- StageOperands.cpp - HBM operands of linalg ops through VMEM --------===//
//
// Passes.td, accel-stage-operands: every operand of a linalg op that is not
// in VMEM gets a VMEM buffer and copies in and out.
//
//===----------------------------------------------------------------------===//

#include "Contraction.h"
#include "accel/Conversion/MemorySpaces.h"
#include "accel/Frontend/Passes.h"
#include "accel/Support/PassOptions.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/PatternMatch.h"

namespace accel {
#define GEN_PASS_DEF_ACCELSTAGEOPERANDS
#include "accel/Frontend/Passes.h.inc"
} // namespace accel

using namespace mlir;
using namespace accel;

namespace {

struct AccelStageOperandsPass
    : accel::CheckedOptionsPass<
          AccelStageOperandsPass,
          accel::impl::AccelStageOperandsBase<AccelStageOperandsPass>> {
  using CheckedOptionsPass::CheckedOptionsPass;

  /// Space 0 is HBM, not VMEM.
  std::string checkOptions() const { return checkVmemSpaceOption(vmemSpace); }

  /// Replaces contraction `op` (its operands in VMEM) by a linalg.matmul
  /// that reads each transposed operand from a VMEM copy of it in matmul
  /// order, made by a linalg.transpose (accel.vtranspose, docs/isa.md
  /// "Transposes"). The inputs' order follows the roles: A x B.
  void rewriteAsMatmul(IRRewriter &rewriter, linalg::LinalgOp op,
                       const ContractionRoles &roles) {
    Location loc = op.getLoc();
    rewriter.setInsertionPoint(op);
    auto inOrder = [&](unsigned input, bool transposed) -> Value {
      Value v = op.getDpsInputOperand(input)->get();
      if (!transposed)
        return v;
      auto type = cast<MemRefType>(v.getType());
      auto tType = MemRefType::get(
          {type.getDimSize(1), type.getDimSize(0)}, type.getElementType(),
          MemRefLayoutAttrInterface(), type.getMemorySpace());
      Value t = memref::AllocOp::create(rewriter, loc, tType);
      linalg::TransposeOp::create(rewriter, loc, v, t, ArrayRef<int64_t>{1, 0});
      return t;
    };
    Value a = inOrder(roles.aInput, roles.aTransposed);
    Value b = inOrder(roles.bInput, roles.bTransposed);
    auto matmul =
        linalg::MatmulOp::create(rewriter, loc, ValueRange{a, b},
                                 ValueRange{op.getDpsInitOperand(0)->get()});
    rewriter.eraseOp(op);
    makeContiguousB(rewriter, matmul);
  }

  /// Gives matmul `op` a contiguous B: the MXU loads B's rows back to
  /// back, so a strided view of a VMEM buffer (a tile of a wider buffer, a
  /// head's columns) is copied to a VMEM buffer of its own first.
  void makeContiguousB(IRRewriter &rewriter, linalg::MatmulOp op) {
    OpOperand *b = op.getDpsInputOperand(1);
    auto type = dyn_cast<MemRefType>(b->get().getType());
    if (!type || !type.hasStaticShape() || type.getLayout().isIdentity() ||
        type.areTrailingDimsContiguous(type.getRank()))
      return;
    rewriter.setInsertionPoint(op);
    auto vmemType =
        MemRefType::get(type.getShape(), type.getElementType(),
                        MemRefLayoutAttrInterface(), type.getMemorySpace());
    Value buffer = memref::AllocOp::create(rewriter, op.getLoc(), vmemType);
    memref::CopyOp::create(rewriter, op.getLoc(), b->get(), buffer);
    b->set(buffer);
  }

  /// Scalar reads of i32 data in HBM (the indices of a gather, from
  /// accel-lower-gathers) read a VMEM copy instead, which the scalar core
  /// loads (`accel.load`): each buffer is copied once, before the
  /// outermost loop of the function body that reads it.
  void stageIndexLoads(IRRewriter &rewriter) {
    DenseMap<std::pair<Value, Operation *>, Value> copies;
    Block &entry = getOperation().getBody().front();
    getOperation().walk([&](memref::LoadOp load) {
      auto type = load.getMemRefType();
      if (!isInHbm(type) || !type.getElementType().isSignlessInteger(32) ||
          !type.hasStaticShape() || !type.getLayout().isIdentity())
        return; // left for convert-linalg-to-accel to name
      Operation *top = entry.findAncestorOpInBlock(*load);
      if (!top)
        return; // in another block: left for the lowering to name
      Location loc = load.getLoc();
      // Tiles have rank 1 or 2: the leading dimensions of a deeper buffer
      // fold into rows.
      int64_t rank = type.getRank();
      SmallVector<ReassociationIndices> folds;
      if (rank > 2) {
        ReassociationIndices lead;
        for (int64_t d = 0; d + 1 < rank; ++d)
          lead.push_back(d);
        folds = {lead, {rank - 1}};
      }
      Value &buffer = copies[{load.getMemRef(), top}];
      if (!buffer) {
        rewriter.setInsertionPoint(top);
        Value source = load.getMemRef();
        if (!folds.empty())
          source =
              memref::CollapseShapeOp::create(rewriter, loc, source, folds);
        auto sourceType = cast<MemRefType>(source.getType());
        auto vmemType = MemRefType::get(
            sourceType.getShape(), type.getElementType(),
            MemRefLayoutAttrInterface(), rewriter.getI64IntegerAttr(vmemSpace));
        buffer = memref::AllocOp::create(rewriter, loc, vmemType);
        memref::CopyOp::create(rewriter, loc, source, buffer);
      }
      rewriter.setInsertionPoint(load);
      SmallVector<Value> indices = load.getIndices();
      if (!folds.empty()) {
        // The row of the folded leading indices: sum of index * stride.
        AffineExpr row = rewriter.getAffineConstantExpr(0);
        int64_t stride = 1;
        for (int64_t d = rank - 2; d >= 0; --d) {
          row = row + rewriter.getAffineDimExpr(d) * stride;
          stride *= type.getDimSize(d);
        }
        Value r = affine::AffineApplyOp::create(
            rewriter, loc, AffineMap::get(rank - 1, 0, row),
            ArrayRef<Value>(indices).drop_back());
        indices = {r, indices.back()};
      }
      rewriter.replaceOpWithNewOp<memref::LoadOp>(load, buffer, indices);
    });
  }

  /// Whether `op` (not a plain matmul; `roles` its contraction roles, if
  /// any) can be staged: an error at it when it is a contraction the MXU
  /// cannot run or has leading loops left, or an operand's elements are
  /// not f32, bf16 or i32.
  LogicalResult checkStageable(linalg::LinalgOp op, bool plainMatmul,
                               const std::optional<ContractionRoles> &roles) {
    if (op.getNumLoops() == 3 && !plainMatmul && !roles &&
        linalg::isaContractionOpInterface(op)) {
      op.emitError()
          << "cannot stage this contraction: the MXU computes C[m, n] += "
             "A[m, k] * B[k, n], and this op's operands are not two "
             "matrices indexed by (m, k) and (k, n), either in order or "
             "transposed, with the output indexed by (m, n)";
      return failure();
    }
    if (op.getNumLoops() > 2 && !plainMatmul && !roles) {
      op.emitError() << "cannot stage an op with " << op.getNumLoops()
                     << " loops: accel's tiles have rank 1 or 2, and its "
                        "leading loops could not be folded into rows (an "
                        "operand reads them out of order, or one is a "
                        "reduction)";
      return failure();
    }
    for (Value v : op->getOperands()) {
      auto type = dyn_cast<MemRefType>(v.getType());
      if (type && !type.getElementType().isF32() &&
          !type.getElementType().isBF16() &&
          !type.getElementType().isInteger(32)) {
        op.emitError() << "cannot stage " << type
                       << " through VMEM: accel's tiles hold f32 or bf16 "
                          "(or i32 index tables), not "
                       << type.getElementType();
        return failure();
      }
    }
    return success();
  }

  /// Gives each static HBM operand of `op` a VMEM buffer (one per distinct
  /// value, allocated before `op`), copied in before `op` when `op` reads
  /// it and out after `op` when it is an init. A linalg.copy stages its
  /// source only (then it is one DMA out). A cast of a static source to a
  /// dynamic type is read through first.
  void stageOperands(IRRewriter &rewriter, linalg::LinalgOp op) {
    Location loc = op.getLoc();
    DenseMap<Value, Value> staged; // HBM value -> its VMEM buffer
    auto stage = [&](Value v) -> Value {
      auto it = staged.find(v);
      if (it != staged.end())
        return it->second;
      auto type = cast<MemRefType>(v.getType());
      auto vmemType = MemRefType::get(type.getShape(), type.getElementType(),
                                      MemRefLayoutAttrInterface(),
                                      rewriter.getI64IntegerAttr(vmemSpace));
      rewriter.setInsertionPoint(op);
      Value buffer = memref::AllocOp::create(rewriter, loc, vmemType);
      staged[v] = buffer;
      return buffer;
    };
    // Canonicalization leaves a cast to a dynamic type where an op has no
    // cast folding (linalg.reduce after loop peeling): read the static
    // source instead.
    for (OpOperand &operand : op->getOpOperands())
      while (auto cast = operand.get().getDefiningOp<memref::CastOp>()) {
        if (!cast.getSource().getType().hasStaticShape())
          break;
        operand.set(cast.getSource());
      }
    SmallVector<std::pair<Value, Value>> copyOut; // (VMEM, HBM)
    // A copy needs its source in VMEM only: then it is one DMA out.
    bool copyOp = isa<linalg::CopyOp>(op);
    for (OpOperand &operand : op->getOpOperands()) {
      if (copyOp && op.isDpsInit(&operand))
        continue;
      auto type = dyn_cast<MemRefType>(operand.get().getType());
      // Operands in a space with no accel counterpart are left for
      // convert-memory-spaces-to-accel to name.
      if (!type || !isInHbm(type) || !type.hasStaticShape())
        continue;
      Value hbm = operand.get();
      bool isInit = op.isDpsInit(&operand);
      bool reads = !isInit || op.payloadUsesValueFromOperand(&operand);
      bool fresh = !staged.count(hbm);
      Value buffer = stage(hbm);
      if (reads && fresh) {
        rewriter.setInsertionPoint(op);
        memref::CopyOp::create(rewriter, loc, hbm, buffer);
      }
      if (isInit)
        copyOut.push_back({buffer, hbm});
      operand.set(buffer);
    }
    rewriter.setInsertionPointAfter(op);
    for (auto [buffer, hbm] : copyOut)
      memref::CopyOp::create(rewriter, loc, buffer, hbm);
  }

  void runOnOperation() override {
    IRRewriter indexRewriter(&getContext());
    stageIndexLoads(indexRewriter);
    SmallVector<linalg::LinalgOp> ops;
    getOperation().walk([&](linalg::LinalgOp op) {
      if (op.hasPureBufferSemantics())
        ops.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    for (linalg::LinalgOp op : ops) {
      // A contraction not in matmul form (an operand read transposed)
      // becomes one below, once its operands are in VMEM.
      auto matmul = dyn_cast<linalg::MatmulOp>(op.getOperation());
      bool plainMatmul = matmul && !matmul.hasUserDefinedMaps();
      std::optional<ContractionRoles> roles;
      if (!plainMatmul)
        roles = getContractionRoles(op);
      if (failed(checkStageable(op, plainMatmul, roles)))
        return signalPassFailure();
      stageOperands(rewriter, op);
      // (A dynamic operand stays as it is: convert-linalg-to-accel names
      // it.)
      if (plainMatmul)
        makeContiguousB(rewriter, matmul);
      if (roles && llvm::all_of(op->getOperandTypes(), [](Type t) {
            auto memref = dyn_cast<MemRefType>(t);
            return memref && memref.hasStaticShape();
          }))
        rewriteAsMatmul(rewriter, op, *roles);
    }
  }
};

} // namespace
