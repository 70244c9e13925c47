//===- ConvertGeneric.cpp - Elementwise linalg ops as VPU sequences -------===//
//
// LinalgToAccel.h, convertGeneric: a linalg op (generic or named) whose
// loops are all parallel, or that reduces rows, columns or both, becomes a
// VPU sequence. The iteration, the output and every operand are checked
// and the body's ops collected (VpuBody.cpp) before anything is
// rewritten, so a refusal leaves the op as it was; then the body is
// emitted (VpuEmitter.h), and a reduction's tile reduced into the output.
//
//===----------------------------------------------------------------------===//

#include "LinalgToAccel.h"
#include "VpuEmitter.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"

#include <cmath>

using namespace mlir;
using namespace accel;
using namespace accel::linalg_to_accel;

namespace {

/// The iteration of a linalg op the VPU runs (checkIteration).
struct Iteration {
  /// 1 or 2.
  unsigned numLoops = 0;
  /// Whether a loop is a reduction (of either form below, or of the last
  /// loop of two into a column).
  bool reduction = false;
  /// A reduction over the first loop into a row (accel-tile-linalg
  /// interchanges a transposed column reduction into this form).
  bool columnReduction = false;
  /// Both loops reduced into one element (jnp.sum(x), a mean's sum).
  bool fullReduction = false;
  /// The R x C iteration space (a 1-loop op is 1 x C).
  int64_t rows = 1, cols = 1;
};

/// What convertGeneric found before rewriting anything: the iteration, the
/// output, the body's operands and the ops that compute the value written
/// (or reduced).
struct GenericPlan {
  Iteration iteration;
  /// The output, classified.
  VpuValue out;
  /// The output's value in the body.
  BlockArgument acc;
  /// The body arguments the body reads (and `acc` when the op reads its
  /// output in place), classified.
  DenseMap<Value, VpuValue> values;
  /// The value written to the output, or the one a reduction combines into
  /// it (x in acc + x).
  Value result;
  /// A reduction's combining op: Add, Max or MaxNum.
  std::optional<VpuKind> combine;
  /// The index values of the body (IndexExpr.h).
  DenseMap<Value, IndexExpr> indexExprs;
  /// The body ops `result` depends on, in order (collectBody).
  SmallVector<Operation *> ops;
};

} // namespace

/// The iteration of `op` when the VPU runs it: one output on buffers, 1 or
/// 2 static loops, all parallel or reducing the last loop of two, the first
/// loop of two (into a row) or both; else the reason not.
static FailureOr<Iteration> checkIteration(linalg::LinalgOp op,
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
  Iteration it;
  unsigned numLoops = it.numLoops = op.getNumLoops();
  if (numLoops > 2 || numLoops < 1) {
    refusal.reason = "it has " + std::to_string(numLoops) +
                     " loops; tiles have rank 1 or 2 (fold leading "
                     "dimensions into rows first)";
    return failure();
  }
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  it.reduction = op.getNumReductionLoops() > 0;
  it.columnReduction = numLoops == 2 &&
                       iterators[0] == utils::IteratorType::reduction &&
                       iterators[1] == utils::IteratorType::parallel;
  it.fullReduction = numLoops == 2 &&
                     iterators[0] == utils::IteratorType::reduction &&
                     iterators[1] == utils::IteratorType::reduction;
  if (it.reduction && !it.columnReduction && !it.fullReduction &&
      (numLoops != 2 || iterators[0] != utils::IteratorType::parallel)) {
    refusal.reason =
        "it reduces " +
        std::string(numLoops == 1 ? "its only loop" : "its first loop") +
        "; the VPU reduces the last dimension of a 2-D tile "
        "only (rows x cols -> rows x 1)";
    return failure();
  }
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  it.rows = numLoops == 2 ? ranges[0] : 1;
  it.cols = ranges.back();
  return it;
}

/// Classifies the output of `op` into `plan.out` and checks that its kind
/// is the one the iteration writes: a full tile, or a reduction's column,
/// row or element; else the reason not.
static LogicalResult classifyOutput(linalg::LinalgOp op, GenericPlan &plan,
                                    Refusal &refusal) {
  const Iteration &it = plan.iteration;
  auto outValue =
      classifyOperand(op, *op.getDpsInitOperand(0), "the output", refusal);
  if (failed(outValue))
    return failure();
  plan.out = *outValue;
  VpuValue::Kind wantOut = it.fullReduction     ? VpuValue::Element
                           : it.columnReduction ? VpuValue::Row
                           : it.reduction       ? VpuValue::Column
                                                : VpuValue::Tile;
  if (outValue->kind == wantOut)
    return success();
  refusal.reason =
      it.fullReduction
          ? "its output is not one element ((i, j) -> (0)); a reduction "
            "over both loops gives one value"
      : it.columnReduction
          ? "its output is not indexed by the columns alone ((i, j) -> "
            "(j)); a reduction over the rows gives one value per column"
      : it.reduction ? "its output is not indexed by the rows alone ((i, j) -> "
                       "(i)); the VPU reduces each row to one value"
                     : "its output is not written in loop order (the output's "
                       "indexing map is not the identity)";
  return failure();
}

/// Classifies each input operand of `op` the body reads into
/// `plan.values` (keyed by its block argument), in operand order; or the
/// reason one cannot be read.
static LogicalResult classifyInputs(linalg::LinalgOp op, GenericPlan &plan,
                                    Refusal &refusal) {
  OpOperand *init = op.getDpsInitOperand(0);
  for (OpOperand &operand : op->getOpOperands()) {
    BlockArgument arg = op.getMatchingBlockArgument(&operand);
    if (!arg || arg.use_empty() || &operand == init)
      continue;
    auto value = classifyOperand(
        op, operand, "operand #" + std::to_string(operand.getOperandNumber()),
        refusal);
    if (failed(value))
      return failure();
    plan.values[arg] = *value;
  }
  return success();
}

/// Sets `plan.result` to the value the body of `op` writes: the yielded
/// value, or for a reduction (acc + x, max(acc, x), with acc the output's
/// value used once) x, and `plan.combine` to the reduction's op; an
/// elementwise op that reads its output reads it in place. Fails with the
/// reason for any other reduction.
static LogicalResult findResult(linalg::LinalgOp op, GenericPlan &plan,
                                Refusal &refusal) {
  Block &body = op->getRegion(0).front();
  BlockArgument acc = plan.acc;
  plan.result = cast<linalg::YieldOp>(body.getTerminator()).getOperand(0);
  if (!plan.iteration.reduction) {
    if (!acc.use_empty())
      plan.values[acc] = plan.out; // out = f(out, ...): read in place
    return success();
  }
  // A reduction combines the output's value with the rest of the body (the
  // elementwise expression reduced along the row).
  Operation *def = plan.result.getDefiningOp();
  std::optional<VpuKind> &combine = plan.combine;
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
  plan.result =
      def->getOperand(0) == acc ? def->getOperand(1) : def->getOperand(0);
  return success();
}

/// Checks everything convertGeneric needs of `op` before it rewrites
/// anything, into `plan`; or the reason `op` cannot be converted.
static LogicalResult planGeneric(linalg::LinalgOp op, GenericPlan &plan,
                                 Refusal &refusal) {
  FailureOr<Iteration> iteration = checkIteration(op, refusal);
  if (failed(iteration))
    return failure();
  plan.iteration = *iteration;
  // Operands, the output included.
  if (failed(classifyOutput(op, plan, refusal)))
    return failure();
  plan.acc = op.getMatchingBlockArgument(op.getDpsInitOperand(0));
  if (failed(classifyInputs(op, plan, refusal)) ||
      failed(findResult(op, plan, refusal)))
    return failure();
  auto ops = collectBody(op->getRegion(0).front(), plan.result, plan.values,
                         plan.iteration.numLoops, plan.indexExprs, refusal);
  if (failed(ops))
    return failure();
  plan.ops = std::move(*ops);
  return success();
}

/// The fill of the output that a reduction of `op` can reduce into
/// directly (findFill: one that just filled it with the identity of
/// `plan.combine`), or null (then the reduction goes into a column it then
/// combines with; always null for an elementwise op).
static Operation *findIdentityFill(linalg::LinalgOp op,
                                   const GenericPlan &plan) {
  if (!plan.iteration.reduction)
    return nullptr;
  auto [fill, value] = findFill(op, op.getDpsInitOperand(0)->get());
  // The identity of the combining op: 0.0 for +, -inf for maximumf,
  // NaN for maxnumf (upstream's linalg.softmax decomposition fills its
  // maxnumf reduction with NaN). vpu.rmax folds a row from its first
  // element, which equals folding it from the identity.
  VpuKind combine = *plan.combine;
  bool isIdentity = combine == VpuKind::MaxNum ? std::isnan(value)
                    : combine == VpuKind::Max  ? isExactly(value, -INFINITY)
                                               : isExactly(value, 0.0f);
  return fill && isIdentity ? fill : nullptr;
}

/// Views each rank-1 column of `plan` (the output and the body's operands)
/// as R x 1 (a memref.expand_shape at `loc`), and the output's value read
/// in place as the viewed output.
static void viewColumns(IRRewriter &rewriter, Location loc, GenericPlan &plan) {
  auto columnView = [&](VpuValue &v) {
    if (!v.needsColumnView)
      return;
    int64_t n = cast<MemRefType>(v.buffer.getType()).getDimSize(0);
    v.buffer = memref::ExpandShapeOp::create(
        rewriter, loc, ArrayRef<int64_t>{n, 1}, v.buffer,
        ArrayRef<ReassociationIndices>{{0, 1}});
    v.needsColumnView = false;
  };
  columnView(plan.out);
  for (auto &entry : plan.values)
    columnView(entry.second);
  if (!plan.iteration.reduction && !plan.acc.use_empty())
    plan.values[plan.acc] = plan.out;
}

/// Copies each input of `op` the body reads transposed into an R x C
/// temporary (accel.vtranspose), in operand order.
static void transposeInputs(IRRewriter &rewriter, VpuEmitter &emitter,
                            linalg::LinalgOp op, GenericPlan &plan) {
  for (OpOperand *input : op.getDpsInputOperands()) { // in operand order
    auto it = plan.values.find(op.getMatchingBlockArgument(input));
    if (it == plan.values.end() || !it->second.needsTranspose)
      continue;
    VpuValue &v = it->second;
    Value t =
        emitter.temporary(plan.iteration.rows, plan.iteration.cols, v.type);
    VTransposeOp::create(rewriter, op.getLoc(), v.buffer, t);
    v.buffer = t;
    v.needsTranspose = false;
  }
}

/// Emits the body of the elementwise op `op` into its output, which holds
/// intermediate tiles too when the op reads nothing that may be (part of)
/// it.
static void emitElementwise(VpuEmitter &emitter, linalg::LinalgOp op,
                            GenericPlan &plan) {
  bool outIsScratch = plan.acc.use_empty();
  for (OpOperand *input : op.getDpsInputOperands())
    if (isa<MemRefType>(input->get().getType()) &&
        mayShareMemory(input->get(), plan.out.buffer))
      outIsScratch = false;
  emitBody(emitter, plan.ops, plan.result, plan.values, plan.indexExprs,
           plan.out.buffer, outIsScratch);
}

/// Emits the reduction of `plan`: the body's elementwise expression as a
/// full tile, reduced along the rows (into a column), the columns (into a
/// row) or both (into an element), then combined with the output, or
/// written over `identityFill` (which is erased).
static void emitReduction(IRRewriter &rewriter, VpuEmitter &emitter,
                          Location loc, GenericPlan &plan,
                          Operation *identityFill) {
  const Iteration &it = plan.iteration;
  VpuKind combine = *plan.combine;
  Value out = plan.out.buffer;
  VpuValue x = emitBody(emitter, plan.ops, plan.result, plan.values,
                        plan.indexExprs, Value(), false);
  Value tile =
      x.kind == VpuValue::Tile ? x.buffer : emitter.as(x, VpuValue::Tile);
  if (it.columnReduction || it.fullReduction) {
    // A full reduction: the rows reduced into a column first.
    Value rowsDone = tile;
    if (it.fullReduction) {
      rowsDone = emitter.temporary(it.rows, 1, rewriter.getF32Type());
      emitter.emitReduce(combine, tile, rowsDone);
    }
    Value row = emitter.emitColumnReduce(combine, rowsDone);
    if (identityFill) {
      VCopyOp::create(rewriter, loc, row, out);
      rewriter.eraseOp(identityFill);
    } else {
      emitter.emitOp(combine, out, row, out);
    }
  } else if (identityFill) {
    emitter.emitReduce(combine, tile, out);
    rewriter.eraseOp(identityFill);
  } else {
    Value partial =
        emitter.temporary(it.rows, 1, getElementTypeOrSelf(out.getType()));
    emitter.emitReduce(combine, tile, partial);
    emitter.emitOp(combine, out, partial, out);
  }
}

LogicalResult linalg_to_accel::convertGeneric(IRRewriter &rewriter,
                                              linalg::LinalgOp op,
                                              Refusal &refusal) {
  GenericPlan plan;
  if (failed(planGeneric(op, plan, refusal)))
    return failure();

  // Rewrite: views of rank-1 columns first.
  rewriter.setInsertionPoint(op);
  Location loc = op.getLoc();
  if (plan.out.needsTranspose) {
    refusal.reason = "it writes its output transposed ((i, j) -> (j, i)); "
                     "write the output in loop order and transpose an input "
                     "instead";
    return failure();
  }
  // A transpose (linalg.transpose, or a generic yielding an operand read
  // transposed): one accel.vtranspose into the output.
  if (auto arg = dyn_cast<BlockArgument>(plan.result);
      arg && !plan.iteration.reduction && plan.values.count(arg) &&
      plan.values[arg].needsTranspose &&
      arg.getOwner() == &op->getRegion(0).front()) {
    VTransposeOp::create(rewriter, loc, plan.values[arg].buffer,
                         plan.out.buffer);
    rewriter.eraseOp(op);
    return success();
  }
  // Both look for the fill before creating any view.
  Operation *identityFill = findIdentityFill(op, plan);
  viewColumns(rewriter, loc, plan);
  VpuEmitter emitter(rewriter, loc, plan.iteration.rows, plan.iteration.cols);
  transposeInputs(rewriter, emitter, op, plan);
  if (!plan.iteration.reduction)
    emitElementwise(emitter, op, plan);
  else
    emitReduction(rewriter, emitter, loc, plan, identityFill);
  rewriter.eraseOp(op);
  return success();
}
