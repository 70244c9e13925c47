//===- ExpandRank0.cpp - rank-0 tensors as one element of rank 1 ----------===//
//
// Passes.td, accel-expand-rank0: accel's tiles have rank 1 or 2, so every
// rank-0 tensor of a function (an argument, a result, a reduction to a
// scalar, a 0-loop generic) becomes a tensor of one element, `tensor<1xT>`,
// and the ops on it are rewritten to match: maps with no results index the
// one element ((d...) -> (0)), a generic with no loops gets one loop of one
// iteration, and a reduction of its only loop gets a leading parallel loop
// of one iteration (the VPU reduces the rows of a 2-D tile). The function's
// `accel.rank0` attribute lists the HBM arguments (in their order after
// buffer-results-to-out-params: the arguments, then the results) that were
// rank 0, so that .npy files of shape () go in and come out for them.
//
//===----------------------------------------------------------------------===//

#include "accel/Frontend/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/SymbolTable.h"

namespace accel {
#define GEN_PASS_DEF_ACCELEXPANDRANK0
#include "accel/Frontend/Passes.h.inc"
} // namespace accel

using namespace mlir;

namespace {

bool isRank0Tensor(Type t) {
  auto tensor = dyn_cast<RankedTensorType>(t);
  return tensor && tensor.getRank() == 0;
}

/// `tensor<T>` as `tensor<1xT>`; any other type unchanged.
Type expanded(Type t) {
  if (!isRank0Tensor(t))
    return t;
  auto tensor = cast<RankedTensorType>(t);
  return RankedTensorType::get({1}, tensor.getElementType(),
                               tensor.getEncoding());
}

/// The reassociation of a reshape between tensor<1xT> and a tensor of
/// `rank` unit dimensions: one group of them all.
ArrayAttr oneGroup(OpBuilder &b, int64_t rank) {
  return b.getArrayAttr(
      b.getI64ArrayAttr(llvm::to_vector(llvm::seq<int64_t>(0, rank))));
}

/// The generic `op` rebuilt with `maps` and `iterators` (same operands,
/// result types from the inits, region moved).
linalg::GenericOp rebuildGeneric(OpBuilder &b, linalg::GenericOp op,
                                 ArrayRef<AffineMap> maps,
                                 ArrayRef<utils::IteratorType> iterators) {
  b.setInsertionPoint(op);
  SmallVector<Type> resultTypes;
  for (Value init : op.getDpsInits())
    resultTypes.push_back(init.getType());
  auto generic =
      linalg::GenericOp::create(b, op.getLoc(), resultTypes, op.getDpsInputs(),
                                op.getDpsInits(), maps, iterators);
  generic->setDiscardableAttrs(op->getDiscardableAttrDictionary());
  generic.getRegion().takeBody(op.getRegion());
  op->replaceAllUsesWith(generic->getResults());
  op->erase();
  return generic;
}

/// A generic that reads or writes a tensor<1xT> that was rank 0: its maps
/// with no results index element 0; with no loops, it gets one loop of one
/// iteration.
void expandGeneric(OpBuilder &b, linalg::GenericOp op,
                   const llvm::DenseSet<OpOperand *> &wasRank0) {
  MLIRContext *ctx = op.getContext();
  unsigned numLoops = op.getNumLoops();
  bool addLoop = numLoops == 0;
  unsigned newLoops = addLoop ? 1 : numLoops;
  SmallVector<AffineMap> maps;
  for (OpOperand &operand : op->getOpOperands()) {
    AffineMap map = op.getMatchingIndexingMap(&operand);
    if (wasRank0.contains(&operand)) {
      // The one element: the new loop itself when it was added (its
      // extent then comes from this operand), else element 0.
      AffineExpr e =
          addLoop ? getAffineDimExpr(0, ctx) : getAffineConstantExpr(0, ctx);
      maps.push_back(AffineMap::get(newLoops, 0, e));
      continue;
    }
    maps.push_back(AffineMap::get(newLoops, 0, map.getResults(), ctx));
  }
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  if (addLoop)
    iterators.push_back(utils::IteratorType::parallel);
  rebuildGeneric(b, op, maps, iterators);
}

/// A generic whose only loop is a reduction into a one-element output
/// (what a reduction to rank 0 becomes): a leading parallel loop of one
/// iteration, which indexes the output, makes it a row reduction.
void addRowLoop(OpBuilder &b, linalg::GenericOp op) {
  MLIRContext *ctx = op.getContext();
  AffineExpr row = getAffineDimExpr(0, ctx);
  AffineExpr col = getAffineDimExpr(1, ctx);
  SmallVector<AffineMap> maps;
  for (OpOperand &operand : op->getOpOperands()) {
    AffineMap map = op.getMatchingIndexingMap(&operand);
    if (op.isDpsInit(&operand)) {
      maps.push_back(AffineMap::get(2, 0, row));
      continue;
    }
    maps.push_back(map.replaceDimsAndSymbols({col}, {}, 2, 0));
  }
  rebuildGeneric(
      b, op, maps,
      {utils::IteratorType::parallel, utils::IteratorType::reduction});
}

/// Whether `op` reduces its only loop into outputs of one element each.
bool reducesOnlyLoopToOneElement(linalg::GenericOp op) {
  if (op.getNumLoops() != 1 || op.getNumReductionLoops() != 1)
    return false;
  for (OpOperand &init : op.getDpsInitsMutable()) {
    auto type = dyn_cast<RankedTensorType>(init.get().getType());
    AffineMap map = op.getMatchingIndexingMap(&init);
    if (!type || type.getRank() != 1 || type.getDimSize(0) != 1 ||
        map.getNumResults() != 1 || !isa<AffineConstantExpr>(map.getResult(0)))
      return false;
  }
  return true;
}

/// The state of one function's rewrite by the walk of expandFunction: the
/// rank-0 values met so far (their types already changed), the uses that
/// read one, and the generics to rebuild once the walk is done.
struct Rank0Walk {
  explicit Rank0Walk(MLIRContext *ctx) : b(ctx) {}

  OpBuilder b;
  llvm::DenseSet<Value> rank0Values; // before their types changed
  llvm::DenseSet<OpOperand *> wasRank0;
  SmallVector<linalg::GenericOp> generics;
  bool failedOp = false;

  /// Gives the rank-0 arguments of `func` their type tensor<1xT>.
  void expandArguments(func::FuncOp func) {
    for (BlockArgument arg : func.getArguments())
      if (isRank0Tensor(arg.getType())) {
        rank0Values.insert(arg);
        arg.setType(expanded(arg.getType()));
      }
  }

  /// One op of the walk: records its uses of rank-0 values and, when it
  /// has any or a rank-0 result, rewrites it (rewriteOp) and gives its
  /// rank-0 results their type tensor<1xT>. Interrupts (setting
  /// `failedOp`) after an error at an op it cannot rewrite.
  WalkResult visit(Operation *op) {
    if (failedOp)
      return WalkResult::interrupt();
    for (OpOperand &use : op->getOpOperands())
      if (rank0Values.contains(use.get()))
        wasRank0.insert(&use);
    bool hasRank0 = llvm::any_of(op->getResultTypes(), isRank0Tensor) ||
                    llvm::any_of(op->getOpOperands(), [&](OpOperand &use) {
                      return wasRank0.contains(&use);
                    });
    if (!hasRank0)
      return WalkResult::advance();
    if (auto constant = dyn_cast<arith::ConstantOp>(op)) {
      if (expandConstant(constant))
        return WalkResult::advance();
    } else if (failed(rewriteOp(op))) {
      failedOp = true;
      return WalkResult::interrupt();
    }
    for (OpResult result : op->getResults())
      if (isRank0Tensor(result.getType())) {
        rank0Values.insert(result);
        result.setType(expanded(result.getType()));
      }
    return WalkResult::advance();
  }

  /// A dense rank-0 constant as its one element of rank 1; returns whether
  /// `constant` was one.
  bool expandConstant(arith::ConstantOp constant) {
    auto dense = dyn_cast<DenseElementsAttr>(constant.getValue());
    if (!dense || !isRank0Tensor(dense.getType()))
      return false;
    auto shaped = cast<ShapedType>(expanded(dense.getType()));
    constant.setValueAttr(dense.reshape(shaped));
    rank0Values.insert(constant.getResult());
    constant.getResult().setType(shaped);
    return true;
  }

  /// Rewrites `op` (no constant), which reads or makes a rank-0 value, for
  /// its operands and results of one element: a generic is recorded for
  /// later, a tensor.extract reads element 0, a reshape gets one group.
  /// Fails after an error at a call or an op it does not support.
  LogicalResult rewriteOp(Operation *op) {
    if (auto generic = dyn_cast<linalg::GenericOp>(op)) {
      generics.push_back(generic);
    } else if (auto extract = dyn_cast<tensor::ExtractOp>(op)) {
      if (extract.getIndices().empty()) {
        b.setInsertionPoint(extract);
        Value zero = arith::ConstantIndexOp::create(b, extract.getLoc(), 0);
        extract.getIndicesMutable().assign(zero);
      }
    } else if (auto reshape = dyn_cast<tensor::ExpandShapeOp>(op)) {
      // tensor<T> -> tensor<1x...x1xT>: one group of every result dim.
      reshape.setReassociationAttr(
          oneGroup(b, reshape.getResultType().getRank()));
    } else if (auto reshape = dyn_cast<tensor::CollapseShapeOp>(op)) {
      reshape.setReassociationAttr(oneGroup(b, reshape.getSrcType().getRank()));
    } else if (auto call = dyn_cast<func::CallOp>(op)) {
      // The callee's own run of this pass reports it (one error), unless
      // it has no body.
      auto callee = SymbolTable::lookupNearestSymbolFrom<func::FuncOp>(
          call, call.getCalleeAttr());
      if (!callee || callee.isExternal())
        call.emitError() << "a rank-0 tensor passed to or returned by @"
                         << call.getCallee()
                         << ", which has no body: accel's tiles have rank "
                            "1 or 2";
      return failure();
    } else if (!isa<tensor::EmptyOp, linalg::FillOp, func::ReturnOp>(op)) {
      op->emitError() << "'" << op->getName()
                      << "' on a rank-0 tensor: accel's tiles have rank 1 "
                         "or 2, and rank-0 values are supported in "
                         "linalg.generic, linalg.fill, tensor.empty, "
                         "tensor.extract and reshapes only";
      return failure();
    }
    return success();
  }

  /// Rebuilds each recorded generic for its operands that were rank 0
  /// (expandGeneric).
  void expandGenerics() {
    for (linalg::GenericOp generic : generics) {
      llvm::DenseSet<OpOperand *> operands;
      for (OpOperand &use : generic->getOpOperands())
        if (wasRank0.contains(&use))
          operands.insert(&use);
      expandGeneric(b, generic, operands);
    }
  }
};

/// Gives `func` (of former type `type`, which takes or returns a rank-0
/// tensor) its type with each rank-0 tensor as tensor<1xT>, and its
/// `accel.rank0` attribute: the HBM arguments that were rank 0, the
/// arguments, then the results (buffer-results-to-out-params appends one
/// argument per result).
void expandSignature(OpBuilder &b, func::FuncOp func, FunctionType type) {
  SmallVector<int64_t> rank0;
  for (auto [i, t] : llvm::enumerate(type.getInputs()))
    if (isRank0Tensor(t))
      rank0.push_back(int64_t(i));
  for (auto [i, t] : llvm::enumerate(type.getResults()))
    if (isRank0Tensor(t))
      rank0.push_back(int64_t(type.getNumInputs() + i));
  func.setType(FunctionType::get(
      func.getContext(), llvm::map_to_vector(type.getInputs(), expanded),
      llvm::map_to_vector(type.getResults(), expanded)));
  func->setAttr("accel.rank0", b.getDenseI64ArrayAttr(rank0));
}

struct AccelExpandRank0Pass
    : accel::impl::AccelExpandRank0Base<AccelExpandRank0Pass> {
  using Base::Base;

  // A module pass: whether a function is called is a question about the
  // other functions, which a pass on one function may not read while its
  // siblings are rewritten in parallel (a data race that crashed the
  // frontend now and then).
  void runOnOperation() override {
    ModuleOp module = getOperation();
    bool failed = false;
    for (func::FuncOp func : module.getOps<func::FuncOp>())
      if (!func.isExternal() && mlir::failed(expandFunction(func, module)))
        failed = true;
    if (failed)
      signalPassFailure();
  }

  /// Rewrites the rank-0 values of `func` (see Passes.td); one error at the
  /// first op it cannot rewrite.
  LogicalResult expandFunction(func::FuncOp func, ModuleOp module) {
    FunctionType type = func.getFunctionType();
    bool signature = llvm::any_of(type.getInputs(), isRank0Tensor) ||
                     llvm::any_of(type.getResults(), isRank0Tensor);
    if (signature && !SymbolTable::symbolKnownUseEmpty(func, module)) {
      func.emitError() << "@" << func.getSymName()
                       << " takes or returns a rank-0 tensor and is "
                          "called: only an entry function's rank-0 "
                          "arguments and results become one element";
      return failure();
    }

    // Rank-0 values, in the order they are defined; each gets its type
    // tensor<1xT>, and each op using one is rewritten below.
    Rank0Walk state(func.getContext());
    state.expandArguments(func);
    func.walk([&](Operation *op) { return state.visit(op); });
    if (state.failedOp)
      return failure();
    state.expandGenerics();
    // Reductions to one element (rank 0 before) reduce a row.
    SmallVector<linalg::GenericOp> reductions;
    func.walk([&](linalg::GenericOp op) {
      if (op.hasPureTensorSemantics() && reducesOnlyLoopToOneElement(op))
        reductions.push_back(op);
    });
    for (linalg::GenericOp op : reductions)
      addRowLoop(state.b, op);

    if (signature)
      expandSignature(state.b, func, type);
    return success();
  }
};

} // namespace
