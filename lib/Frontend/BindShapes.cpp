//===- BindShapes.cpp - dynamic argument shapes from given shapes ---------===//
//
// Passes.td, accel-bind-shapes: a public function's arguments with dynamic
// dimensions (or no rank) take the static shapes the tools give (the .npy
// files of --input, --bind); a cast back to the old type takes their uses,
// and the canonicalization patterns of the loaded dialects carry the
// static shapes through the body. Results returned through a cast from a
// static type return that type. Functions without dynamic arguments or
// casts to less static types are left as they are.
//
//===----------------------------------------------------------------------===//

#include "accel/Frontend/Passes.h"
#include "accel/Support/CheckedSize.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/MemRef/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/ADT/StringExtras.h"

#include <map>

namespace accel {
#define GEN_PASS_DEF_ACCELBINDSHAPES
#include "accel/Frontend/Passes.h.inc"
} // namespace accel

using namespace mlir;

namespace {

/// "16x128" for {16, 128}, "()" for rank 0.
std::string formatShape(ArrayRef<int64_t> shape) {
  if (shape.empty())
    return "()";
  std::string out;
  llvm::raw_string_ostream os(out);
  llvm::interleave(
      shape, os,
      [&](int64_t d) {
        if (ShapedType::isDynamic(d))
          os << '?';
        else
          os << d;
      },
      "x");
  return out;
}

/// Parses "ARG=D0xD1x..." ("ARG=()" for rank 0) into `shapes`; a message
/// naming the entry when it is malformed or gives ARG twice.
std::string parseBinding(StringRef entry,
                         std::map<unsigned, SmallVector<int64_t>> &shapes) {
  auto [arg, dims] = entry.split('=');
  unsigned index;
  if (arg.trim().getAsInteger(10, index) || dims.trim().empty())
    return "'" + entry.str() +
           "' is not ARG=D0xD1x... (an argument position and its shape, "
           "e.g. 0=16x128, or 0=() for rank 0)";
  SmallVector<int64_t> shape;
  dims = dims.trim();
  if (dims != "()") {
    SmallVector<StringRef> parts;
    dims.split(parts, 'x');
    for (StringRef part : parts) {
      int64_t d;
      if (part.trim().getAsInteger(10, d) || d < 0)
        return "'" + entry.str() + "': '" + part.str() +
               "' is not a dimension (a non-negative integer)";
      shape.push_back(d);
    }
  }
  if (!shapes.emplace(index, std::move(shape)).second)
    return "'" + entry.str() + "': argument " + std::to_string(index) +
           " is given twice";
  return "";
}

/// The static type `shape` gives the shaped type `type` (a ranked or
/// unranked tensor or memref), or a message why it cannot: another rank,
/// or a dimension other than a static one of `type`.
FailureOr<Type> bindType(Type type, ArrayRef<int64_t> shape, std::string &why) {
  auto shaped = cast<ShapedType>(type);
  if (shaped.hasRank()) {
    if (shaped.getRank() != int64_t(shape.size())) {
      why = "has rank " + std::to_string(shaped.getRank()) + ", not the " +
            std::to_string(shape.size()) + " of the shape given for it, " +
            formatShape(shape);
      return failure();
    }
    for (auto [i, d] : llvm::enumerate(shaped.getShape()))
      if (!ShapedType::isDynamic(d) && d != shape[i]) {
        why = "has dimension " + std::to_string(i) + " of size " +
              std::to_string(d) + ", but the shape given for it is " +
              formatShape(shape);
        return failure();
      }
  }
  if (auto tensor = dyn_cast<RankedTensorType>(type))
    return Type(RankedTensorType::get(shape, tensor.getElementType(),
                                      tensor.getEncoding()));
  if (isa<UnrankedTensorType>(type))
    return Type(RankedTensorType::get(shape, shaped.getElementType()));
  if (auto memref = dyn_cast<MemRefType>(type)) {
    if (!memref.getLayout().isIdentity()) {
      why = "has a layout other than the identity, which a static shape "
            "does not determine";
      return failure();
    }
    return Type(MemRefType::get(shape, memref.getElementType(), AffineMap(),
                                memref.getMemorySpace()));
  }
  auto memref = cast<UnrankedMemRefType>(type);
  return Type(MemRefType::get(shape, memref.getElementType(), AffineMap(),
                              memref.getMemorySpace()));
}

bool isDynamic(Type t) {
  auto shaped = dyn_cast<ShapedType>(t);
  return shaped && (isa<TensorType, BaseMemRefType>(t)) &&
         !shaped.hasStaticShape();
}

/// Whether `func` casts a value to a type with dynamic dimensions or no
/// rank, which canonicalization may fold away.
bool hasCastToDynamic(func::FuncOp func) {
  return func
      .walk([](Operation *op) {
        if (isa<tensor::CastOp, memref::CastOp>(op) &&
            isDynamic(op->getResult(0).getType()))
          return WalkResult::interrupt();
        return WalkResult::advance();
      })
      .wasInterrupted();
}

struct AccelBindShapesPass
    : accel::impl::AccelBindShapesBase<AccelBindShapesPass> {
  using AccelBindShapesBase::AccelBindShapesBase;

  void runOnOperation() override {
    std::map<unsigned, SmallVector<int64_t>> given;
    for (const std::string &entry : shapes) {
      std::string why = parseBinding(entry, given);
      if (!why.empty()) {
        getOperation().emitError() << "accel-bind-shapes: " << why;
        return signalPassFailure();
      }
    }
    for (auto func : getOperation().getOps<func::FuncOp>()) {
      if (func.isExternal() || func.isPrivate())
        continue;
      bool bound = false;
      if (failed(bindArguments(func, given, bound)))
        return signalPassFailure();
      if (!bound && !hasCastToDynamic(func))
        continue;
      if (failed(propagate(func, bound)))
        return signalPassFailure();
      refineResults(func);
    }
  }

  /// Gives each dynamic argument of `func` its shape from `given`; `bound`
  /// is set when one changed.
  LogicalResult
  bindArguments(func::FuncOp func,
                const std::map<unsigned, SmallVector<int64_t>> &given,
                bool &bound) {
    OpBuilder b(func.getBody());
    SmallVector<Type> inputs(func.getArgumentTypes());
    for (BlockArgument arg : func.getArguments()) {
      Type old = arg.getType();
      if (!isDynamic(old))
        continue;
      unsigned i = arg.getArgNumber();
      auto it = given.find(i);
      if (it == given.end()) {
        auto shaped = cast<ShapedType>(old);
        InFlightDiagnostic diag = func.emitError();
        diag << "argument " << i << " (" << old << ") has ";
        if (!shaped.hasRank()) {
          diag << "no rank";
        } else {
          auto dyn = llvm::find_if(shaped.getShape(), ShapedType::isDynamic);
          diag << "a dynamic dimension " << (dyn - shaped.getShape().begin());
        }
        std::string example =
            shaped.hasRank() ? formatShape(shaped.getShape()) : "D0xD1";
        std::replace(example.begin(), example.end(), '?', 'N');
        diag << " and nothing fixes it: give its contents (accel-replay "
                "--input "
             << i << "=FILE.npy) or its shape (--bind " << i << "=" << example
             << ")";
        return failure();
      }
      std::string why;
      FailureOr<Type> type = bindType(old, it->second, why);
      if (failed(type))
        return func.emitError()
               << "argument " << i << " (" << old << ") " << why;
      // Before any pass does arithmetic on it.
      unsigned elemBytes =
          (cast<ShapedType>(old).getElementTypeBitWidth() + 7) / 8;
      if (!accel::getCheckedByteSize(it->second, elemBytes))
        return func.emitError()
               << "the shape given for argument " << i << ", "
               << formatShape(it->second) << ", holds "
               << accel::describeByteSize(it->second, elemBytes)
               << ", more than the 2^63 - 1 bytes a buffer can have";
      arg.setType(*type);
      inputs[i] = *type;
      Operation *cast =
          isa<TensorType>(old)
              ? tensor::CastOp::create(b, arg.getLoc(), old, arg).getOperation()
              : memref::CastOp::create(b, arg.getLoc(), old, arg)
                    .getOperation();
      arg.replaceAllUsesExcept(cast->getResult(0), cast);
      bound = true;
    }
    func.setType(
        FunctionType::get(func.getContext(), inputs, func.getResultTypes()));
    return success();
  }

  /// The canonicalization patterns of every loaded dialect and registered
  /// op, and tensor.dim of an op's result resolved from its operands, on
  /// `func`. Shapes that disagree in the body (two arguments whose bound
  /// sizes an op needs equal) leave an op its verifier refuses: that error,
  /// with a note naming the shapes given, and failure.
  LogicalResult propagate(func::FuncOp func, bool bound) {
    MLIRContext *ctx = func.getContext();
    RewritePatternSet patterns(ctx);
    for (Dialect *dialect : ctx->getLoadedDialects())
      dialect->getCanonicalizationPatterns(patterns);
    for (RegisteredOperationName op : ctx->getRegisteredOperations())
      op.getCanonicalizationPatterns(patterns, ctx);
    memref::populateResolveRankedShapedTypeResultDimsPatterns(patterns);
    (void)applyPatternsGreedily(func.getOperation(), std::move(patterns));
    std::optional<Diagnostic> first;
    LogicalResult verified = success();
    {
      ScopedDiagnosticHandler capture(ctx, [&](Diagnostic &d) {
        if (!first && d.getSeverity() == DiagnosticSeverity::Error)
          first.emplace(std::move(d));
        return success();
      });
      verified = verify(func);
    }
    if (succeeded(verified))
      return success();
    InFlightDiagnostic diag =
        emitError(first ? first->getLocation() : func.getLoc());
    diag << (first ? first->str() : std::string("the function is invalid"));
    if (bound) {
      std::string given;
      llvm::raw_string_ostream os(given);
      llvm::interleaveComma(func.getArgumentTypes(), os);
      diag.attachNote(func.getLoc())
          << "with the argument shapes given (" << given
          << "): they disagree here; check the shapes of --input and --bind";
    }
    return failure();
  }

  /// A result returned through a cast from a more static type returns that
  /// type.
  void refineResults(func::FuncOp func) {
    SmallVector<Type> results(func.getResultTypes());
    func.walk([&](func::ReturnOp ret) {
      for (OpOperand &operand : ret->getOpOperands()) {
        Operation *def = operand.get().getDefiningOp();
        if (!isa_and_nonnull<tensor::CastOp, memref::CastOp>(def))
          continue;
        Value source = def->getOperand(0);
        if (isDynamic(source.getType()))
          continue;
        operand.set(source);
        results[operand.getOperandNumber()] = source.getType();
        if (def->use_empty())
          def->erase();
      }
    });
    func.setType(
        FunctionType::get(func.getContext(), func.getArgumentTypes(), results));
  }
};

} // namespace
