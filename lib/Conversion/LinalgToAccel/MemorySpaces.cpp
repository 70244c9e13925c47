//===- MemorySpaces.cpp - Upstream memory spaces to accel's ---------------===//
//
// Passes.td, convert-memory-spaces-to-accel: the unnumbered (or 0) space is
// HBM, one numbered space is VMEM; VMEM allocations become accel.alloc.
//
//===----------------------------------------------------------------------===//

#include "accel/Conversion/MemorySpaces.h"
#include "accel/Conversion/Passes.h"
#include "accel/Dialect/Accel/AccelOps.h"
#include "accel/Dialect/Accel/TileShape.h"
#include "accel/Support/PassOptions.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/AttrTypeSubElements.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

namespace accel {
#define GEN_PASS_DEF_CONVERTMEMORYSPACESTOACCEL
#include "accel/Conversion/Passes.h.inc"
} // namespace accel

using namespace mlir;
using namespace accel;

namespace {
struct ConvertMemorySpacesToAccelPass
    : accel::CheckedOptionsPass<ConvertMemorySpacesToAccelPass,
                                accel::impl::ConvertMemorySpacesToAccelBase<
                                    ConvertMemorySpacesToAccelPass>> {
  using CheckedOptionsPass::CheckedOptionsPass;

  /// Space 0 is HBM, not VMEM.
  std::string checkOptions() const { return checkVmemSpaceOption(vmemSpace); }

  /// The accel space of `space` (a memref's memory space attribute), or
  /// nullopt for one this pass does not map.
  std::optional<MemorySpace> mapSpace(Attribute space) const {
    return mapMemorySpace(space, vmemSpace);
  }

  /// Every memory space must map: reports the first op that holds one that
  /// does not (in its result, signature, or block argument types), and
  /// fails then.
  LogicalResult checkSpacesMap(ModuleOp module) {
    bool bad = false;
    module.walk([&](Operation *op) {
      auto check = [&](Type t) {
        auto memref = dyn_cast<BaseMemRefType>(t);
        if (!memref || mapSpace(memref.getMemorySpace()))
          return true;
        op->emitError() << "memory space " << memref.getMemorySpace()
                        << " has no accel counterpart (no space or 0 is HBM, "
                        << unsigned(vmemSpace) << " is VMEM: --vmem-space)";
        return false;
      };
      for (Type t : op->getResultTypes())
        if (!check(t))
          return bad = true, WalkResult::interrupt();
      // Signatures too: a declaration has no block arguments to check.
      if (auto func = dyn_cast<FunctionOpInterface>(op))
        for (Type t : llvm::concat<const Type>(func.getArgumentTypes(),
                                               func.getResultTypes()))
          if (!check(t))
            return bad = true, WalkResult::interrupt();
      for (Region &region : op->getRegions())
        for (Block &block : region)
          for (Type t : block.getArgumentTypes())
            if (!check(t))
              return bad = true, WalkResult::interrupt();
      return WalkResult::advance();
    });
    return failure(bad);
  }

  /// HBM temporaries (bufferization's allocations of intermediate
  /// tensors) become arguments: accel's HBM buffers are the entry
  /// function's arguments. Each new argument (appended, `accel.init` =
  /// "zero", `accel.temporary`) replaces its allocation, whose deallocs
  /// go. Fails after an error at the first allocation that cannot become
  /// one (not static, identity-laid-out, in an uncalled func.func).
  LogicalResult hbmAllocsToArguments(IRRewriter &rewriter, ModuleOp module) {
    SmallVector<memref::AllocOp> hbmAllocs;
    module.walk([&](memref::AllocOp alloc) {
      if (mapSpace(alloc.getType().getMemorySpace()) == MemorySpace::HBM &&
          !isAffineDmaTag(alloc))
        hbmAllocs.push_back(alloc);
    });
    for (memref::AllocOp alloc : hbmAllocs) {
      auto func = alloc->getParentOfType<func::FuncOp>();
      MemRefType type = alloc.getType();
      if (!func || !type.hasStaticShape() || !type.getLayout().isIdentity()) {
        alloc.emitError() << "an HBM allocation of " << type
                          << " cannot become an argument (it needs a static "
                             "shape, the identity layout and an enclosing "
                             "func.func)";
        return failure();
      }
      if (!SymbolTable::symbolKnownUseEmpty(func, module)) {
        alloc.emitError() << "an HBM allocation in @" << func.getSymName()
                          << ", which is called: only an entry function's "
                             "temporaries can become arguments";
        return failure();
      }
      unsigned index = func.getNumArguments();
      NamedAttrList attrs;
      attrs.set("accel.init", rewriter.getStringAttr("zero"));
      attrs.set("accel.temporary", rewriter.getUnitAttr());
      if (failed(func.insertArgument(
              index, type, attrs.getDictionary(&getContext()), alloc.getLoc())))
        return failure();
      for (Operation *user : llvm::make_early_inc_range(alloc->getUsers()))
        if (isa<memref::DeallocOp>(user))
          rewriter.eraseOp(user);
      rewriter.replaceOp(alloc, func.getArgument(index));
    }
    return success();
  }

  /// Every memref type in `module` (attributes included) with a space this
  /// pass maps gets accel's MemorySpaceAttr for it.
  void retagMemorySpaces(ModuleOp module) {
    MLIRContext *ctx = &getContext();
    AttrTypeReplacer replacer;
    replacer.addReplacement([&](MemRefType type) -> std::optional<Type> {
      std::optional<MemorySpace> space = mapSpace(type.getMemorySpace());
      if (!space || isa_and_nonnull<MemorySpaceAttr>(type.getMemorySpace()))
        return std::nullopt;
      return MemRefType::get(type.getShape(), type.getElementType(),
                             type.getLayout(),
                             MemorySpaceAttr::get(ctx, *space));
    });
    replacer.recursivelyReplaceElementsIn(module, /*replaceAttrs=*/true,
                                          /*replaceLocs=*/false,
                                          /*replaceTypes=*/true);
  }

  /// VMEM allocations are static: each becomes an accel.alloc, never freed
  /// (its deallocs go). Fails after an error at the first one that cannot
  /// (not static or identity-laid-out, or rank 0).
  LogicalResult vmemAllocsToAccel(IRRewriter &rewriter, ModuleOp module) {
    SmallVector<memref::AllocOp> allocs;
    module.walk([&](memref::AllocOp alloc) {
      if (getMemorySpace(alloc.getType()) == MemorySpace::VMEM &&
          !isAffineDmaTag(alloc))
        allocs.push_back(alloc);
    });
    for (memref::AllocOp alloc : allocs) {
      MemRefType type = alloc.getType();
      if (!type.hasStaticShape() || !type.getLayout().isIdentity()) {
        alloc.emitError() << "a VMEM allocation of " << type
                          << " cannot be static (accel.alloc needs a static "
                             "shape and the identity layout)";
        return failure();
      }
      if (type.getRank() == 0) {
        // A scalar this op computes (a reduction to rank 0, a 0-loop
        // generic) or reads (a rank-0 argument staged for it): constants
        // were folded by accel-fold-scalars.
        alloc.emitError()
            << "cannot hold a rank-0 value (" << type
            << ") in VMEM for this op: accel's tiles have rank 1 or 2, and "
               "only rank-0 constants are supported (they fold into the ops "
               "that read them); pass or compute the value as a 1-element "
               "tensor (tensor<1xf32>) instead";
        return failure();
      }
      for (Operation *user : llvm::make_early_inc_range(alloc->getUsers()))
        if (isa<memref::DeallocOp>(user))
          rewriter.eraseOp(user);
      replaceWithAccelAlloc(rewriter, alloc);
    }
    return success();
  }

  /// Replaces static VMEM allocation `alloc` (rank >= 1, identity layout)
  /// by an accel.alloc: of its own type at rank 1 or 2; else of its
  /// leading dimensions folded into rows, expanded back to its shape.
  static void replaceWithAccelAlloc(IRRewriter &rewriter,
                                    memref::AllocOp alloc) {
    MemRefType type = alloc.getType();
    rewriter.setInsertionPoint(alloc);
    if (type.getRank() <= 2) {
      rewriter.replaceOp(alloc,
                         AllocOp::create(rewriter, alloc.getLoc(), type));
      return;
    }
    // accel.alloc is a 1-D or 2-D tile: allocate the leading dimensions
    // as rows and view them with their shape again (a multi-buffer of
    // 2-D slots, e.g. upstream's double buffers of 2 x R x C).
    ArrayRef<int64_t> shape = type.getShape();
    int64_t rows = 1;
    for (int64_t d : shape.drop_back())
      rows *= d;
    auto flat =
        MemRefType::get({rows, shape.back()}, type.getElementType(),
                        MemRefLayoutAttrInterface(), type.getMemorySpace());
    Value buffer = AllocOp::create(rewriter, alloc.getLoc(), flat);
    SmallVector<ReassociationIndices> groups(1);
    for (int64_t d = 0; d + 1 < type.getRank(); ++d)
      groups[0].push_back(d);
    groups.push_back({type.getRank() - 1});
    rewriter.replaceOpWithNewOp<memref::ExpandShapeOp>(alloc, type, buffer,
                                                       groups);
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    // Shapes whose byte size passes 2^63, at the values the user wrote
    // (before an HBM allocation becomes an argument).
    if (failed(accel::verifyShapeSizes(module)))
      return signalPassFailure();
    if (failed(checkSpacesMap(module)))
      return signalPassFailure();
    IRRewriter rewriter(&getContext());
    if (failed(hbmAllocsToArguments(rewriter, module)))
      return signalPassFailure();
    retagMemorySpaces(module);
    if (failed(vmemAllocsToAccel(rewriter, module)))
      return signalPassFailure();
  }
};
} // namespace
