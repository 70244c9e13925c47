//===- LowerMemory.cpp - Memory ops in the accel-to-ISA lowering ----------===//
//
// Addresses in the accel-to-ISA lowering: views (memref.subview, reshapes,
// casts) as address arithmetic, accel.alloc and memref.get_global as their
// placed base addresses, and accel.load as a scalar load.
//
//===----------------------------------------------------------------------===//

#include "Lowerer.h"

#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/CheckedArithmetic.h"

using namespace mlir;
using namespace accel;
using namespace accel::lowering;
using isa::Inst;
using isa::Opcode;

/// Lowers the ops that compute or read addresses; std::nullopt for another
/// op.
std::optional<LogicalResult> Lowerer::lowerMemoryOp(Operation *op) {
  return llvm::TypeSwitch<Operation *, std::optional<LogicalResult>>(op)
      .Case<memref::SubViewOp>(
          [&](memref::SubViewOp sv) { return lowerSubview(sv); })
      .Case<memref::ExpandShapeOp, memref::CollapseShapeOp, memref::CastOp>(
          [&](Operation *view) { return lowerViewCopy(view); })
      .Case<AllocOp>([&](AllocOp alloc) { return lowerAlloc(alloc); })
      .Case<memref::GetGlobalOp>(
          [&](memref::GetGlobalOp get) { return lowerGetGlobal(get); })
      .Case<LoadOp>([&](LoadOp load) { return lowerLoad(load); })
      .Default([](Operation *) { return std::nullopt; });
}

/// Emits rd = base + elemBytes * sum(offsets[i] * strides[i]) (bytes, with
/// the element size of `base`'s type), folding constant offsets into one
/// addi. Used by memref.subview and accel.load.
FailureOr<uint8_t> Lowerer::emitAddress(Operation *op, Value base,
                                        ArrayRef<OpFoldResult> offsets,
                                        ArrayRef<int64_t> strides) {
  FailureOr<uint8_t> rb = reg(op, base);
  FailureOr<uint8_t> rd = newReg(op);
  if (failed(rb) || failed(rd))
    return failure();
  emitMov(op, *rd, *rb);
  int64_t staticBytes = 0;
  int64_t elemBytes =
      getElementTypeOrSelf(base.getType()).isBF16() ? 2 : isa::kWordBytes;
  // Strides and offsets are the user's: the byte offset may pass 2^63.
  auto overflow = [&](const Twine &what) {
    op->emitError() << "the byte offset of this address (" << what
                    << ") overflows 64 bits";
    return failure();
  };
  for (auto [i, ofr] : llvm::enumerate(offsets)) {
    std::optional<int64_t> scale = llvm::checkedMul(strides[i], elemBytes);
    if (!scale)
      return overflow("stride " + Twine(strides[i]) + " × " + Twine(elemBytes) +
                      " bytes");
    if (auto attr = dyn_cast<Attribute>(ofr)) {
      int64_t offset = cast<IntegerAttr>(attr).getInt();
      std::optional<int64_t> bytes = llvm::checkedMul(offset, *scale);
      std::optional<int64_t> sum =
          bytes ? llvm::checkedAdd(staticBytes, *bytes) : bytes;
      if (!sum)
        return overflow("offset " + Twine(offset) + " × " + Twine(*scale) +
                        " bytes");
      staticBytes = *sum;
      continue;
    }
    FailureOr<uint8_t> idx = reg(op, cast<Value>(ofr));
    FailureOr<uint8_t> tmp = newReg(op);
    if (failed(idx) || failed(tmp))
      return failure();
    Inst mul;
    mul.op = Opcode::Muli;
    mul.rd = *tmp;
    mul.rs1 = *idx;
    mul.setImm(*scale);
    emit(op, mul);
    Inst add;
    add.op = Opcode::Add;
    add.rd = *rd;
    add.rs1 = *rd;
    add.rs2 = *tmp;
    emit(op, add);
    releaseReg(*tmp);
  }
  if (staticBytes) {
    Inst addi;
    addi.op = Opcode::Addi;
    addi.rd = *rd;
    addi.rs1 = *rd;
    addi.setImm(staticBytes);
    emit(op, addi);
  }
  return rd;
}

/// A subview's address: its source's plus its offsets (emitAddress).
/// Errors: a source with dynamic strides.
LogicalResult Lowerer::lowerSubview(memref::SubViewOp op) {
  auto srcType = cast<MemRefType>(op.getSource().getType());
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(srcType.getStridesAndOffset(strides, offset)) ||
      llvm::any_of(strides, ShapedType::isDynamic))
    return op.emitError("cannot lower a subview of a memref with dynamic "
                        "strides");
  FailureOr<uint8_t> rd =
      emitAddress(op, op.getSource(), op.getMixedOffsets(), strides);
  if (failed(rd))
    return failure();
  regs[op.getResult()] = *rd;
  return success();
}

/// A reshape or cast keeps the address: a copy of the source's register
/// (registers are released per value, so no aliasing).
LogicalResult Lowerer::lowerViewCopy(Operation *view) {
  FailureOr<uint8_t> rs = reg(view, view->getOperand(0));
  FailureOr<uint8_t> rd = newReg(view);
  if (failed(rs) || failed(rd))
    return failure();
  emitMov(view, *rd, *rs);
  regs[view->getResult(0)] = *rd;
  return success();
}

/// An allocation in the function body: li of its VMEM base where it
/// stands; one nested in a loop was placed (and loaded) up front.
LogicalResult Lowerer::lowerAlloc(AllocOp alloc) {
  auto it = inPlaceBase.find(alloc);
  if (it == inPlaceBase.end())
    return success(); // nested in a loop: placed up front
  FailureOr<uint8_t> r = newReg(alloc);
  if (failed(r))
    return failure();
  regs[alloc.getResult()] = *r;
  return emitLi(alloc, *r, it->second);
}

/// li of the global's HBM base (placed by placeGlobals before the code).
LogicalResult Lowerer::lowerGetGlobal(memref::GetGlobalOp get) {
  FailureOr<uint8_t> rd = newReg(get);
  if (failed(rd))
    return failure();
  regs[get.getResult()] = *rd;
  return emitLi(get, *rd, globalBase.lookup(get.getName()));
}

/// A scalar load: the element's address (emitAddress), then sld. Errors:
/// a buffer layout with dynamic strides.
LogicalResult Lowerer::lowerLoad(LoadOp l) {
  auto type = cast<MemRefType>(l.getBuffer().getType());
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(type.getStridesAndOffset(strides, offset)) ||
      llvm::any_of(strides, ShapedType::isDynamic))
    return l.emitError("cannot lower a load from this layout");
  SmallVector<OpFoldResult> offsets(l.getIndices().begin(),
                                    l.getIndices().end());
  FailureOr<uint8_t> addr = emitAddress(l, l.getBuffer(), offsets, strides);
  FailureOr<uint8_t> rd = newReg(l);
  if (failed(addr) || failed(rd))
    return failure();
  Inst ld;
  ld.op = Opcode::Sld;
  ld.rd = *rd;
  ld.rs1 = *addr;
  emit(l, ld);
  releaseReg(*addr);
  regs[l.getResult()] = *rd;
  return success();
}
