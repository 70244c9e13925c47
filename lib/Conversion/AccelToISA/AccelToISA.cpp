//===- AccelToISA.cpp - Lower accel programs to accel machine code --------===//
//
// The lowering of a whole accel program to machine code (docs/isa.md):
// register allocation over a function's blocks, addresses of views, scf.for
// as compare-and-branch loops, and one case per accel op in lowerOp.
//
// Size (about 820 lines): one Lowerer class whose register allocator,
// emitters and per-op cases share its state (registers, live ranges, the
// origin table); it is kept in one file so that each op's case sits beside
// the allocator it relies on, as upstream's single-file LLVM dialect
// translations do.
//
//===----------------------------------------------------------------------===//

#include "accel/Conversion/AccelToISA.h"
#include "accel/Dialect/Accel/AccelOps.h"
#include "accel/Dialect/Accel/TileShape.h"
#include "accel/Support/CheckedSize.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/APInt.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/CheckedArithmetic.h"

#include <bitset>
#include <limits>
#include <map>

#include <cstring>

using namespace mlir;
using namespace accel;
using isa::Inst;
using isa::Opcode;

/// `a + b` in decimal, exact (also past 2^64), for messages.
static std::string describeSum(uint64_t a, uint64_t b) {
  llvm::APInt sum(65, a);
  sum += llvm::APInt(65, b);
  llvm::SmallString<24> text;
  sum.toStringUnsigned(text, 10);
  return std::string(text);
}

std::string accel::formatLocation(Location loc) {
  if (auto flc = loc->findInstanceOf<FileLineColLoc>())
    return (flc.getFilename().getValue() + ":" + Twine(flc.getLine()) + ":" +
            Twine(flc.getColumn()))
        .str();
  return "unknown";
}

/// The ISA element type of a buffer's element type (f32, bf16 or i32; the
/// verifiers and checkHbmArgument admit no other).
static isa::ElemType getElemType(Type t) {
  if (t.isBF16())
    return isa::ElemType::BF16;
  return t.isSignlessInteger(32) ? isa::ElemType::I32 : isa::ElemType::F32;
}

namespace {
class Lowerer {
public:
  Lowerer(const LoweringOptions &options) : options(options) {}
  FailureOr<isa::Program> run(func::FuncOp func);

private:
  LogicalResult lowerBlock(Block &block);
  LogicalResult lowerOp(Operation *op);
  FailureOr<uint8_t> newReg(Operation *op);
  FailureOr<uint8_t> reg(Operation *user, Value v);
  uint32_t emit(Operation *origin, const Inst &inst);
  LogicalResult emitLi(Operation *origin, uint8_t rd, int64_t value);
  void emitMov(Operation *origin, uint8_t rd, uint8_t rs);
  LogicalResult lowerSubview(memref::SubViewOp op);
  FailureOr<uint8_t> emitAddress(Operation *op, Value base,
                                 ArrayRef<OpFoldResult> offsets,
                                 ArrayRef<int64_t> strides);
  LogicalResult lowerFor(scf::ForOp op);
  LogicalResult lowerYield(scf::YieldOp op);
  LogicalResult lowerScalar(Operation *op);
  uint32_t emitBranch(Operation *origin, Opcode opc, uint8_t rs1, uint8_t rs2);
  /// Makes the branch at `pc` jump to the next instruction emitted.
  void patchBranch(uint32_t pc) {
    program.code[pc].setImm(int64_t(program.code.size()));
  }
  LogicalResult placeGlobals(func::FuncOp func, uint64_t &hbmNext);
  template <typename OpTy>
  LogicalResult lowerVpu(OpTy op, Opcode opc, Value x, Value y, Value out);

  /// Register reuse: each value's register returns to the pool after its
  /// last use in lowering order; a use inside a loop that does not contain
  /// the definition keeps the value live to that loop's end (every
  /// iteration reads it), as do the loop's own bounds and induction
  /// variable.
  void numberOps(Block &block);
  unsigned lastUse(Value v);
  void scheduleRelease(Value v);
  void releaseUpTo(unsigned position);
  void releaseReg(uint8_t r) { usedRegs.reset(r); }

  const LoweringOptions &options;
  isa::Program program;
  llvm::DenseMap<Value, uint8_t> regs;
  std::bitset<isa::kNumRegs> usedRegs;
  /// Lowering order: an op's position, and for an op with regions the
  /// position just after its regions.
  llvm::DenseMap<Operation *, unsigned> opPos, endPos;
  unsigned nextPos = 1;
  /// Registers to release once lowering has passed a position.
  std::map<unsigned, SmallVector<uint8_t>> releaseAt;
  /// Op ids of the enclosing scf.for ops, innermost last.
  SmallVector<uint32_t> loopStack;
  /// VMEM base addresses of the allocations in the function body, whose
  /// addresses are loaded where they stand.
  llvm::DenseMap<Operation *, int64_t> inPlaceBase;
  /// HBM base addresses of the memref.globals the function reads, by name.
  llvm::StringMap<int64_t> globalBase;
};
} // namespace

/// The initial contents of `global` (of memref type `type`, whose element
/// type is f32, bf16 or i32) in the little-endian layout of the simulator's
/// memory: `bytes` bytes. Its initializer is a dense elements attribute
/// (splat or not) or a dense_resource blob of exactly that size. Errors
/// (emitted at `user`, the memref.get_global that reads it): an elided or
/// missing blob, a blob of another size, any other attribute.
static FailureOr<std::vector<uint8_t>> getGlobalBytes(memref::GlobalOp global,
                                                      MemRefType type,
                                                      uint64_t bytes,
                                                      Operation *user) {
  Attribute init = global.getInitialValueAttr();
  std::vector<uint8_t> out;
  out.reserve(bytes);
  if (auto dense = dyn_cast<DenseElementsAttr>(init)) {
    Type elem = type.getElementType();
    auto put = [&](uint64_t bits, unsigned size) {
      for (unsigned i = 0; i < size; ++i)
        out.push_back(uint8_t(bits >> (8 * i)));
    };
    if (elem.isSignlessInteger(32)) {
      for (const APInt &v : dense.getValues<APInt>())
        put(v.getZExtValue(), 4);
    } else {
      unsigned size = elem.isBF16() ? 2 : 4;
      for (const APFloat &v : dense.getValues<APFloat>())
        put(v.bitcastToAPInt().getZExtValue(), size);
    }
    if (out.size() == bytes)
      return out;
  } else if (auto resource = dyn_cast<DenseResourceElementsAttr>(init)) {
    AsmResourceBlob *blob = resource.getRawHandle().getBlob();
    if (!blob)
      return user->emitError()
             << "the data of '@" << global.getSymName()
             << "' is not in the file (dense_resource '"
             << resource.getRawHandle().getKey()
             << "' has no blob in the file's dialect_resources section, e.g. "
                "it was elided when printed); print the module with its "
                "resources";
    ArrayRef<char> data = blob->getData();
    if (data.size() == bytes)
      return std::vector<uint8_t>(data.begin(), data.end());
    return user->emitError() << "the data of '@" << global.getSymName()
                             << "' holds " << data.size() << " bytes, not the "
                             << bytes << " of its type " << type;
  }
  return user->emitError() << "the initial value of '@" << global.getSymName()
                           << "' is neither dense elements nor a "
                              "dense_resource blob of its type "
                           << type;
}

/// Places every memref.global that `func` reads (by memref.get_global) in
/// HBM after the arguments, as a buffer named `@SYMBOL`: its initializer as
/// the buffer's data (BufferInit::Data, part of the image), or zeros when
/// `uninitialized`. Errors at the first get_global whose global is missing,
/// external, of a type an HBM argument could not have (checkHbmArgument),
/// or does not fit HBM.
LogicalResult Lowerer::placeGlobals(func::FuncOp func, uint64_t &hbmNext) {
  // The first reader of each global, in the order of the globals in the
  // module: the transforms reorder the readers, not the globals, so every
  // version of a program places its constants at the same addresses.
  llvm::MapVector<memref::GlobalOp, memref::GetGlobalOp> readers;
  WalkResult found = func.walk([&](memref::GetGlobalOp get) -> WalkResult {
    auto global = SymbolTable::lookupNearestSymbolFrom<memref::GlobalOp>(
        get, get.getNameAttr());
    if (!global) {
      get.emitError() << "no memref.global named '@" << get.getName() << "'";
      return failure();
    }
    readers.insert({global, get});
    return WalkResult::advance();
  });
  if (found.wasInterrupted())
    return failure();
  llvm::DenseMap<Operation *, unsigned> order;
  if (auto module = func->getParentOfType<ModuleOp>())
    for (Operation &op : module.getBody()->getOperations())
      order[&op] = order.size();
  auto globals = readers.takeVector();
  llvm::stable_sort(globals, [&](const auto &a, const auto &b) {
    return order.lookup(a.first) < order.lookup(b.first);
  });
  for (auto [global, get] : globals) {
    auto type = global.getType();
    std::string why = checkHbmArgument(type);
    if (!why.empty()) {
      get.emitError() << "'@" << get.getName()
                      << "' must be an f32, bf16 or i32 HBM memref with a "
                         "static shape and the identity layout to be placed "
                         "in HBM (it "
                      << why << ")";
      return failure();
    }
    if (global.isExternal()) {
      get.emitError() << "'@" << get.getName()
                      << "' is an external memref.global (no initializer): "
                         "give it an initial value or 'uninitialized', or "
                         "pass the data as a function argument";
      return failure();
    }
    isa::Buffer b;
    b.name = ("@" + get.getName()).str();
    b.space = isa::MemSpace::HBM;
    b.base = hbmNext;
    b.elemType = getElemType(type.getElementType());
    b.shape.assign(type.getShape().begin(), type.getShape().end());
    std::optional<uint64_t> bytes =
        getCheckedByteSize(type.getShape(), isa::getElemBytes(b.elemType));
    std::optional<uint64_t> end =
        bytes ? checkedAdd(b.base, *bytes, options.hbmCapacity) : bytes;
    std::optional<uint64_t> next = end ? checkedAlignTo(*end, 4096) : end;
    if (!next) {
      get.emitError() << "HBM buffers need more than the HBM capacity of "
                      << options.hbmCapacity << " bytes up to '@"
                      << get.getName() << "' (" << type << ")";
      return failure();
    }
    b.bytes = *bytes;
    if (global.isUninitialized()) {
      b.init = isa::BufferInit::Zero;
    } else {
      FailureOr<std::vector<uint8_t>> data =
          getGlobalBytes(global, type, b.bytes, get);
      if (failed(data))
        return failure();
      b.init = isa::BufferInit::Data;
      b.data = std::make_shared<const std::vector<uint8_t>>(std::move(*data));
    }
    hbmNext = *next;
    globalBase[get.getName()] = int64_t(b.base);
    program.buffers.push_back(std::move(b));
  }
  return success();
}

FailureOr<uint8_t> Lowerer::newReg(Operation *op) {
  unsigned limit = std::min<unsigned>(options.scalarRegisters + 1,
                                      isa::kNumRegs);
  for (unsigned r = 1; r < limit; ++r) // r0 reads as zero
    if (!usedRegs.test(r)) {
      usedRegs.set(r);
      return uint8_t(r);
    }
  op->emitError() << "needs more than " << limit - 1
                  << " scalar registers live at once";
  return failure();
}

void Lowerer::numberOps(Block &block) {
  for (Operation &op : block) {
    opPos[&op] = nextPos++;
    for (Region &region : op.getRegions())
      for (Block &inner : region)
        numberOps(inner);
    if (op.getNumRegions())
      endPos[&op] = nextPos++;
  }
}

unsigned Lowerer::lastUse(Value v) {
  // The region whose every execution sets the value's register: its own,
  // except for accel.alloc, whose address is loaded once at function entry
  // (so a use in any loop keeps it live to that loop's end, even when the
  // alloc sits inside an enclosing loop).
  Operation *scope = v.getParentRegion()->getParentOp();
  if (isa_and_nonnull<AllocOp>(v.getDefiningOp()))
    scope = v.getDefiningOp()->getParentOfType<FunctionOpInterface>();
  unsigned last = 0;
  if (Operation *def = v.getDefiningOp())
    last = opPos.lookup(def);
  else if (auto loop = dyn_cast<scf::ForOp>(scope))
    last = endPos.lookup(loop); // the induction variable
  for (OpOperand &use : v.getUses()) {
    Operation *user = use.getOwner();
    unsigned p = user->getNumRegions() ? endPos.lookup(user) : opPos.lookup(user);
    for (Operation *a = user->getParentOp(); a && !a->isAncestor(scope);
         a = a->getParentOp())
      p = std::max(p, endPos.lookup(a));
    last = std::max(last, p);
  }
  return last;
}

void Lowerer::scheduleRelease(Value v) {
  auto it = regs.find(v);
  if (it != regs.end())
    releaseAt[lastUse(v)].push_back(it->second);
}

void Lowerer::releaseUpTo(unsigned position) {
  while (!releaseAt.empty() && releaseAt.begin()->first <= position) {
    for (uint8_t r : releaseAt.begin()->second)
      releaseReg(r);
    releaseAt.erase(releaseAt.begin());
  }
}

FailureOr<uint8_t> Lowerer::reg(Operation *user, Value v) {
  auto it = regs.find(v);
  if (it == regs.end()) {
    user->emitError() << "operand is defined by an op the accel lowering "
                         "does not support";
    return failure();
  }
  return it->second;
}

uint32_t Lowerer::emit(Operation *origin, const Inst &inst) {
  isa::Origin o;
  if (auto id = origin->getAttrOfType<IntegerAttr>(
          AccelDialect::getOpIdAttrName()))
    o.opId = uint32_t(id.getInt());
  o.opName = origin->getName().getStringRef().str();
  o.loc = formatLocation(origin->getLoc());
  o.loopId = loopStack.empty() ? 0 : loopStack.back();
  program.code.push_back(inst);
  program.origins.push_back(std::move(o));
  return uint32_t(program.code.size() - 1);
}

void Lowerer::emitMov(Operation *origin, uint8_t rd, uint8_t rs) {
  Inst in;
  in.op = Opcode::Mov;
  in.rd = rd;
  in.rs1 = rs;
  emit(origin, in);
}

LogicalResult Lowerer::emitLi(Operation *origin, uint8_t rd, int64_t value) {
  Inst in;
  in.op = Opcode::Li;
  in.rd = rd;
  in.setImm(value);
  emit(origin, in);
  return success();
}

FailureOr<isa::Program> Lowerer::run(func::FuncOp func) {
  program.name = func.getSymName().str();
  Operation *funcOp = func;
  // HBM buffers: the arguments.
  uint64_t hbmNext = 1 << 16; // address 0 stays unmapped
  for (auto [i, arg] : llvm::enumerate(func.getArguments())) {
    std::string why = checkHbmArgument(arg.getType());
    if (!why.empty()) {
      func.emitError() << "argument " << i
                       << " must be an f32, bf16 or i32 HBM memref with a "
                          "static shape and the identity layout (it "
                       << why << ")";
      return failure();
    }
    auto type = cast<MemRefType>(arg.getType());
    isa::Buffer b;
    b.name = "%arg" + std::to_string(i);
    b.space = isa::MemSpace::HBM;
    b.base = hbmNext;
    b.elemType = getElemType(type.getElementType());
    // The dimensions are the user's: their product may pass 2^64.
    std::optional<uint64_t> bytes =
        getCheckedByteSize(type.getShape(), isa::getElemBytes(b.elemType));
    if (!bytes) {
      mlir::emitError(arg.getLoc())
          << "argument " << i << " of type " << type << " holds "
          << describeByteSize(type.getShape(), isa::getElemBytes(b.elemType))
          << ", more than the 2^63 - 1 bytes a buffer can have";
      return failure();
    }
    b.bytes = *bytes;
    b.shape.assign(type.getShape().begin(), type.getShape().end());
    b.seed = uint32_t(i);
    if (auto init = func.getArgAttrOfType<StringAttr>(i, "accel.init")) {
      if (init.getValue() != "zero" && init.getValue() != "random" &&
          init.getValue() != "iota") {
        func.emitError() << "argument " << i
                         << ": accel.init must be \"zero\", \"random\" or "
                            "\"iota\"";
        return failure();
      }
      if (init.getValue() == "iota" && b.elemType == isa::ElemType::BF16) {
        func.emitError() << "argument " << i
                         << ": accel.init = \"iota\" (0, 1, 2, ... as i32) "
                            "needs 32-bit elements, not bf16";
        return failure();
      }
      if (init.getValue() == "zero")
        b.init = isa::BufferInit::Zero;
      else if (init.getValue() == "iota")
        b.init = isa::BufferInit::Iota;
    }
    // The arguments are laid out one after another: their sum may pass
    // 2^64 too.
    std::optional<uint64_t> end =
        checkedAdd(b.base, b.bytes, options.hbmCapacity);
    std::optional<uint64_t> next = end ? checkedAlignTo(*end, 4096) : end;
    if (!next) {
      mlir::emitError(arg.getLoc())
          << "HBM buffers need "
          << describeSum(b.base, b.bytes)
          << " bytes up to argument " << i
          << ", more than the HBM capacity of " << options.hbmCapacity
          << " bytes";
      return failure();
    }
    hbmNext = *next;
    program.buffers.push_back(b);
    FailureOr<uint8_t> r = newReg(funcOp);
    if (failed(r))
      return failure();
    regs[arg] = *r;
    (void)emitLi(funcOp, *r, int64_t(b.base));
  }
  // HBM constants: the globals it reads, after the arguments.
  if (failed(placeGlobals(func, hbmNext)))
    return failure();
  // VMEM buffers: every accel.alloc, statically placed.
  uint64_t vmemNext = 0;
  WalkResult walk = func.walk([&](AllocOp alloc) -> WalkResult {
    auto tile = getTileShape(alloc.getType(), nullptr, /*allowI32=*/true);
    isa::Buffer b;
    b.name = "vmem@" + formatLocation(alloc.getLoc());
    b.space = isa::MemSpace::VMEM;
    b.elemType = getElemType(alloc.getType().getElementType());
    b.base = vmemNext;
    b.bytes = uint64_t(tile->bytes());
    b.shape.assign(alloc.getType().getShape().begin(),
                   alloc.getType().getShape().end());
    std::optional<uint64_t> end =
        checkedAdd(b.base, b.bytes, options.vmemCapacity);
    std::optional<uint64_t> next =
        end ? checkedAlignTo(*end, std::max<uint64_t>(1, options.vmemAlign))
            : end;
    if (!end) {
      alloc.emitError() << "VMEM allocations need "
                        << describeSum(b.base, b.bytes)
                        << " bytes, more than the VMEM capacity of "
                        << options.vmemCapacity << " bytes";
      return WalkResult::interrupt();
    }
    // The next allocation starts past the end (2^64 when the alignment
    // passes it: that one then does not fit).
    vmemNext = next ? *next : UINT64_MAX;
    program.buffers.push_back(b);
    // An allocation in the function body gets its address where it stands
    // (its register is live from there to its last use); one nested in a
    // loop gets it here, once, instead of on every iteration.
    if (alloc->getBlock() == &func.getBody().front()) {
      inPlaceBase[alloc] = int64_t(b.base);
      return WalkResult::advance();
    }
    FailureOr<uint8_t> r = newReg(alloc);
    if (failed(r))
      return WalkResult::interrupt();
    regs[alloc.getResult()] = *r;
    (void)emitLi(alloc, *r, int64_t(b.base));
    return WalkResult::advance();
  });
  if (walk.wasInterrupted())
    return failure();
  numberOps(func.getBody().front());
  for (BlockArgument arg : func.getArguments())
    scheduleRelease(arg);
  func.walk([&](AllocOp alloc) {
    if (!inPlaceBase.count(alloc))
      scheduleRelease(alloc.getResult());
  });
  if (failed(lowerBlock(func.getBody().front())))
    return failure();
  return std::move(program);
}

LogicalResult Lowerer::lowerBlock(Block &block) {
  for (Operation &op : block) {
    if (failed(lowerOp(&op)))
      return failure();
    // Allocations nested in loops were placed (and scheduled) up front.
    if (!llvm::isa<AllocOp>(op) || inPlaceBase.count(&op))
      for (Value result : op.getResults())
        scheduleRelease(result);
    if (auto loop = dyn_cast<scf::ForOp>(op))
      scheduleRelease(loop.getInductionVar());
    releaseUpTo(op.getNumRegions() ? endPos[&op] : opPos[&op]);
  }
  return success();
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
      return overflow("stride " + Twine(strides[i]) + " × " +
                      Twine(elemBytes) + " bytes");
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

LogicalResult Lowerer::lowerFor(scf::ForOp op) {
  FailureOr<uint8_t> lb = reg(op, op.getLowerBound());
  FailureOr<uint8_t> ub = reg(op, op.getUpperBound());
  FailureOr<uint8_t> step = reg(op, op.getStep());
  FailureOr<uint8_t> iv = newReg(op);
  if (failed(lb) || failed(ub) || failed(step) || failed(iv))
    return failure();
  regs[op.getInductionVar()] = *iv;
  // iter_args: each gets a register, set from its init value before the
  // loop and from the yielded value at the end of every iteration (see
  // lowerYield); after the loop it holds the result (so the register
  // lives as long as the result: lowerBlock schedules its release).
  for (auto [init, arg, result] : llvm::zip(
           op.getInitArgs(), op.getRegionIterArgs(), op.getResults())) {
    FailureOr<uint8_t> from = reg(op, init);
    FailureOr<uint8_t> to = newReg(op);
    if (failed(from) || failed(to))
      return failure();
    emitMov(op, *to, *from);
    regs[arg] = *to;
    regs[result] = *to;
  }
  uint32_t loopId = 0;
  if (auto id = op->getAttrOfType<IntegerAttr>(AccelDialect::getOpIdAttrName()))
    loopId = uint32_t(id.getInt());
  program.loops.push_back(
      {loopId, loopStack.empty() ? 0 : loopStack.back(),
       formatLocation(op.getLoc())});
  emitMov(op, *iv, *lb);
  Inst head;
  head.op = Opcode::Bge;
  head.rs1 = *iv;
  head.rs2 = *ub;
  uint32_t headPc = emit(op, head);
  loopStack.push_back(loopId);
  if (failed(lowerBlock(*op.getBody())))
    return failure();
  loopStack.pop_back();
  Inst inc;
  inc.op = Opcode::Add;
  inc.rd = *iv;
  inc.rs1 = *iv;
  inc.rs2 = *step;
  emit(op, inc);
  Inst back;
  back.op = Opcode::Jmp;
  back.setImm(headPc);
  emit(op, back);
  // Branch targets are 32 bits (docs/isa.md, "jmp").
  if (program.code.size() > UINT32_MAX)
    return op.emitError() << "the program needs more than 2^32 - 1 "
                             "instructions; branch targets are 32 bits";
  program.code[headPc].setImm(int64_t(program.code.size()));
  return success();
}

uint32_t Lowerer::emitBranch(Operation *origin, Opcode opc, uint8_t rs1,
                             uint8_t rs2) {
  Inst in;
  in.op = opc;
  in.rs1 = rs1;
  in.rs2 = rs2;
  return emit(origin, in); // the target is patched by patchBranch
}

/// Scalar integer code (a gather's index arithmetic and masks, from
/// accel-lower-gathers) on the 64-bit registers of docs/isa.md "Machine
/// state": integers and indices are held sign-extended, i1 as 0 or 1.
/// An i32 add, sub or mul wraps to 32 bits (sign-extended again) as arith
/// defines; comparisons and select are compare-and-branch sequences
/// (blt/bge); unsigned comparisons compare with the sign bit flipped (an
/// add of 2^63). Errors: bitwise ops on integers wider than i1, unsigned
/// casts from integers wider than i1.
LogicalResult Lowerer::lowerScalar(Operation *op) {
  // Long: one case per arith op the lowering accepts.
  Value result = op->getResult(0);
  SmallVector<uint8_t, 3> in;
  for (Value v : op->getOperands()) {
    FailureOr<uint8_t> r = reg(op, v);
    if (failed(r))
      return failure();
    in.push_back(*r);
  }
  // Temporaries first (the result's register may not alias an operand's
  // while operands are still read: the sequences below write rd early).
  SmallVector<uint8_t, 4> temps;
  auto temp = [&]() -> FailureOr<uint8_t> {
    FailureOr<uint8_t> r = newReg(op);
    if (succeeded(r))
      temps.push_back(*r);
    return r;
  };
  FailureOr<uint8_t> work = temp();
  FailureOr<uint8_t> rdOr = newReg(op);
  if (failed(work) || failed(rdOr))
    return failure();
  uint8_t rd = *rdOr;
  regs[result] = rd;
  auto release = llvm::make_scope_exit([&] {
    for (uint8_t t : temps)
      releaseReg(t);
  });
  auto arith3 = [&](Opcode opc, uint8_t dst, uint8_t a, uint8_t b) {
    Inst i;
    i.op = opc;
    i.rd = dst;
    i.rs1 = a;
    i.rs2 = b;
    emit(op, i);
  };
  // dst = (a < b) as 0/1, signed; `flip` compares with the sign bit
  // flipped (unsigned order).
  auto less = [&](uint8_t dst, uint8_t a, uint8_t b,
                  bool flip) -> LogicalResult {
    if (flip) {
      FailureOr<uint8_t> k = temp(), fa = temp(), fb = temp();
      if (failed(k) || failed(fa) || failed(fb))
        return failure();
      (void)emitLi(op, *k, std::numeric_limits<int64_t>::min());
      arith3(Opcode::Add, *fa, a, *k);
      arith3(Opcode::Add, *fb, b, *k);
      a = *fa;
      b = *fb;
    }
    (void)emitLi(op, dst, 0);
    uint32_t skip = emitBranch(op, Opcode::Bge, a, b);
    (void)emitLi(op, dst, 1);
    patchBranch(skip);
    return success();
  };
  // rd = 1 - src.
  auto negate = [&](uint8_t src) -> LogicalResult {
    FailureOr<uint8_t> one = temp();
    if (failed(one))
      return failure();
    (void)emitLi(op, *one, 1);
    arith3(Opcode::Sub, rd, *one, src);
    return success();
  };
  // rd = cond ? x : y, cond 0 or 1 (rd written last).
  auto select = [&](uint8_t cond, uint8_t x, uint8_t y) -> LogicalResult {
    FailureOr<uint8_t> zero = temp();
    if (failed(zero))
      return failure();
    emitMov(op, *work, y);
    (void)emitLi(op, *zero, 0);
    uint32_t skip = emitBranch(op, Opcode::Bge, *zero, cond);
    emitMov(op, *work, x);
    patchBranch(skip);
    emitMov(op, rd, *work);
    return success();
  };
  // rd = src wrapped to a sign-extended i32 when the result is i32:
  // ((src + 2^31) mod 2^32) - 2^31.
  auto wrap32 = [&](uint8_t src) -> LogicalResult {
    if (!result.getType().isInteger(32)) {
      emitMov(op, rd, src);
      return success();
    }
    FailureOr<uint8_t> k = temp();
    if (failed(k))
      return failure();
    Inst addi;
    addi.op = Opcode::Addi;
    addi.rd = src;
    addi.rs1 = src;
    addi.setImm(int64_t(1) << 31);
    emit(op, addi);
    (void)emitLi(op, *k, int64_t(1) << 32);
    arith3(Opcode::RemU, src, src, *k);
    addi.rd = rd;
    addi.setImm(-(int64_t(1) << 31));
    emit(op, addi);
    return success();
  };
  auto isBit = [](Type t) { return t.isInteger(1); };
  return llvm::TypeSwitch<Operation *, LogicalResult>(op)
      .Case<arith::AddIOp, arith::SubIOp, arith::MulIOp>([&](Operation *) {
        Opcode opc = llvm::isa<arith::AddIOp>(op)   ? Opcode::Add
                     : llvm::isa<arith::SubIOp>(op) ? Opcode::Sub
                                                    : Opcode::Mul;
        arith3(opc, *work, in[0], in[1]);
        return wrap32(*work);
      })
      .Case<arith::CmpIOp>([&](arith::CmpIOp cmp) -> LogicalResult {
        using P = arith::CmpIPredicate;
        uint8_t a = in[0], b = in[1];
        P p = cmp.getPredicate();
        bool flip = p == P::ult || p == P::ugt || p == P::uge || p == P::ule;
        switch (p) {
        case P::slt:
        case P::ult:
          if (failed(less(*work, a, b, flip)))
            return failure();
          emitMov(op, rd, *work);
          return success();
        case P::sgt:
        case P::ugt:
          if (failed(less(*work, b, a, flip)))
            return failure();
          emitMov(op, rd, *work);
          return success();
        case P::sge:
        case P::uge:
          return failed(less(*work, a, b, flip)) ? failure() : negate(*work);
        case P::sle:
        case P::ule:
          return failed(less(*work, b, a, flip)) ? failure() : negate(*work);
        case P::eq:
        case P::ne: {
          // work = (a < b) + (b < a): 0 when equal.
          FailureOr<uint8_t> other = temp();
          if (failed(other) || failed(less(*other, b, a, false)) ||
              failed(less(*work, a, b, false)))
            return failure();
          arith3(Opcode::Add, *work, *work, *other);
          if (p == P::eq)
            return negate(*work);
          emitMov(op, rd, *work);
          return success();
        }
        }
        return cmp.emitError("unknown predicate");
      })
      .Case<arith::SelectOp>([&](auto) { return select(in[0], in[1], in[2]); })
      .Case<arith::MaxSIOp, arith::MinSIOp, arith::MaxUIOp, arith::MinUIOp>(
          [&](Operation *) -> LogicalResult {
            bool flip = llvm::isa<arith::MaxUIOp, arith::MinUIOp>(op);
            bool max = llvm::isa<arith::MaxSIOp, arith::MaxUIOp>(op);
            // c = a < b; max: c ? b : a; min: c ? a : b.
            FailureOr<uint8_t> c = temp();
            if (failed(c) || failed(less(*c, in[0], in[1], flip)))
              return failure();
            return max ? select(*c, in[1], in[0]) : select(*c, in[0], in[1]);
          })
      .Case<arith::AndIOp, arith::OrIOp, arith::XOrIOp>(
          [&](Operation *) -> LogicalResult {
            if (!isBit(result.getType()))
              return op->emitError()
                     << "'" << op->getName()
                     << "' on integers wider than i1 cannot be lowered to the "
                        "accel ISA (it has no bitwise instructions)";
            // and = a*b; or = a+b-a*b; xor = a+b-2*a*b.
            arith3(Opcode::Mul, *work, in[0], in[1]);
            if (llvm::isa<arith::AndIOp>(op)) {
              emitMov(op, rd, *work);
              return success();
            }
            FailureOr<uint8_t> sum = temp();
            if (failed(sum))
              return failure();
            arith3(Opcode::Add, *sum, in[0], in[1]);
            if (llvm::isa<arith::XOrIOp>(op))
              arith3(Opcode::Add, *work, *work, *work);
            arith3(Opcode::Sub, rd, *sum, *work);
            return success();
          })
      .Case<arith::IndexCastOp, arith::ExtSIOp>([&](Operation *) {
        // Values are held sign-extended: a cast keeps the register's value.
        emitMov(op, rd, in[0]);
        return success();
      })
      .Case<arith::IndexCastUIOp, arith::ExtUIOp>(
          [&](Operation *) -> LogicalResult {
            if (!isBit(op->getOperand(0).getType()))
              return op->emitError()
                     << "'" << op->getName()
                     << "' from integers wider than i1 cannot be lowered to "
                        "the accel ISA (registers hold integers sign-extended)";
            emitMov(op, rd, in[0]);
            return success();
          })
      .Default(
          [&](Operation *) { return op->emitError("no scalar lowering"); });
}

/// The yielded values of an scf.for iteration move into the iter_args'
/// registers as a parallel copy, sequentialized: a move goes out once no
/// other pending move still reads its destination, and a cycle (a rotation
/// of buffers, a swap) is broken by saving one destination in a temporary,
/// so n moves cost n instructions plus one per cycle (Boissinot et al.,
/// "Revisiting Out-of-SSA Translation", CGO '09, Algorithm 1).
LogicalResult Lowerer::lowerYield(scf::YieldOp op) {
  auto loop = dyn_cast<scf::ForOp>(op->getParentOp());
  if (!loop || op.getNumOperands() == 0)
    return success();
  // Pending moves dst <- src; destinations (iter_arg registers) are
  // distinct.
  SmallVector<std::pair<uint8_t, uint8_t>> pending;
  for (auto [value, arg] : llvm::zip(op.getOperands(),
                                     loop.getRegionIterArgs())) {
    FailureOr<uint8_t> src = reg(op, value);
    if (failed(src))
      return failure();
    uint8_t dst = regs.lookup(arg);
    if (dst != *src)
      pending.push_back({dst, *src});
  }
  std::optional<uint8_t> temp;
  while (!pending.empty()) {
    auto isRead = [&](uint8_t r) {
      return llvm::any_of(pending, [&](auto &m) { return m.second == r; });
    };
    auto *ready = llvm::find_if(pending, [&](auto &m) {
      return !isRead(m.first);
    });
    if (ready != pending.end()) {
      emitMov(op, ready->first, ready->second);
      pending.erase(ready);
      continue;
    }
    // Every destination is still read: the rest are cycles. Save the first
    // destination and let its readers read the temporary instead.
    if (!temp) {
      FailureOr<uint8_t> t = newReg(op);
      if (failed(t))
        return failure();
      temp = *t;
    }
    uint8_t saved = pending.front().first;
    emitMov(op, *temp, saved);
    for (auto &m : pending)
      if (m.second == saved)
        m.second = *temp;
  }
  if (temp)
    releaseReg(*temp);
  return success();
}

/// Fills the VPU fields of `in` for operand tiles x, y, out.
template <typename OpTy>
LogicalResult Lowerer::lowerVpu(OpTy op, Opcode opc, Value x, Value y,
                                Value out) {
  Inst in;
  in.op = opc;
  TileShape to = *getTileShape(out.getType());
  FailureOr<uint8_t> ro = reg(op, out);
  if (failed(ro))
    return failure();
  in.rs3 = *ro;
  in.s3 = uint16_t(to.rowStride);
  in.a = uint16_t(to.rows);
  in.b = uint16_t(to.cols);
  if (to.isBF16())
    in.flags |= isa::kFlagBf16Rs3;
  if (x) {
    TileShape tx = *getTileShape(x.getType());
    FailureOr<uint8_t> rx = reg(op, x);
    if (failed(rx))
      return failure();
    in.rs1 = *rx;
    in.s1 = uint16_t(tx.rowStride);
    // a x b is x's shape (reductions: out is rows x 1; a transpose's out
    // is cols x rows).
    in.a = uint16_t(tx.rows);
    in.b = uint16_t(tx.cols);
    if (tx.isBF16())
      in.flags |= isa::kFlagBf16Rs1;
  }
  if (y) {
    TileShape ty = *getTileShape(y.getType());
    FailureOr<uint8_t> ry = reg(op, y);
    if (failed(ry))
      return failure();
    in.rs2 = *ry;
    in.s2 = uint16_t(ty.rowStride);
    if (ty.isBF16())
      in.flags |= isa::kFlagBf16Rs2;
    if (ty.cols == 1 && in.b != 1)
      in.flags |= isa::kFlagBroadcast;
    else if (ty.rows == 1 && in.a != 1)
      in.flags |= isa::kFlagBroadcastRow;
  }
  emit(op, in);
  return success();
}

LogicalResult Lowerer::lowerOp(Operation *op) {
  // Long: one case per accel op, each its registers and instruction
  // (docs/isa.md).
  auto binop = [&](Opcode opc) -> LogicalResult {
    FailureOr<uint8_t> a = reg(op, op->getOperand(0));
    FailureOr<uint8_t> b = reg(op, op->getOperand(1));
    FailureOr<uint8_t> rd = newReg(op);
    if (failed(a) || failed(b) || failed(rd))
      return failure();
    Inst in;
    in.op = opc;
    in.rd = *rd;
    in.rs1 = *a;
    in.rs2 = *b;
    emit(op, in);
    regs[op->getResult(0)] = *rd;
    return success();
  };
  return llvm::TypeSwitch<Operation *, LogicalResult>(op)
      .Case<arith::ConstantOp>([&](arith::ConstantOp c) -> LogicalResult {
        auto attr = dyn_cast<IntegerAttr>(c.getValue());
        if (!attr)
          return c.emitError("only integer and index constants can be "
                             "lowered to the accel ISA");
        // li's immediate is 64 bits: a wider value would be truncated.
        if (attr.getValue().getSignificantBits() > 64)
          return c.emitError() << "the constant " << attr
                               << " does not fit li's 64-bit immediate";
        FailureOr<uint8_t> rd = newReg(op);
        if (failed(rd))
          return failure();
        regs[c.getResult()] = *rd;
        // i1 true is 1 (a mask bit), not the sign-extended -1.
        if (attr.getType().isInteger(1))
          return emitLi(op, *rd, attr.getValue().getZExtValue());
        return emitLi(op, *rd, attr.getValue().getSExtValue());
      })
      .Case<arith::AddIOp, arith::SubIOp, arith::MulIOp>(
          [&](Operation *) -> LogicalResult {
            // Index arithmetic (addresses, loop bounds) is one
            // instruction; integer arithmetic wraps (lowerScalar).
            if (!op->getResult(0).getType().isIndex())
              return lowerScalar(op);
            return binop(llvm::isa<arith::AddIOp>(op)   ? Opcode::Add
                         : llvm::isa<arith::SubIOp>(op) ? Opcode::Sub
                                                        : Opcode::Mul);
          })
      .Case<arith::CmpIOp, arith::SelectOp, arith::MaxSIOp, arith::MinSIOp,
            arith::MaxUIOp, arith::MinUIOp, arith::AndIOp, arith::OrIOp,
            arith::XOrIOp, arith::IndexCastOp, arith::IndexCastUIOp,
            arith::ExtSIOp, arith::ExtUIOp>(
          [&](Operation *) { return lowerScalar(op); })
      .Case<arith::DivUIOp>([&](auto) { return binop(Opcode::DivU); })
      .Case<arith::RemUIOp>([&](auto) { return binop(Opcode::RemU); })
      .Case<memref::SubViewOp>(
          [&](memref::SubViewOp sv) { return lowerSubview(sv); })
      .Case<memref::ExpandShapeOp, memref::CollapseShapeOp, memref::CastOp>(
          [&](Operation *view) -> LogicalResult {
            // A reshape or cast keeps the address: a copy of the source's
            // register (registers are released per value, so no aliasing).
            FailureOr<uint8_t> rs = reg(view, view->getOperand(0));
            FailureOr<uint8_t> rd = newReg(view);
            if (failed(rs) || failed(rd))
              return failure();
            emitMov(view, *rd, *rs);
            regs[view->getResult(0)] = *rd;
            return success();
          })
      .Case<scf::ForOp>([&](scf::ForOp f) { return lowerFor(f); })
      .Case<scf::YieldOp>([&](scf::YieldOp y) { return lowerYield(y); })
      .Case<AllocOp>([&](AllocOp alloc) -> LogicalResult {
        auto it = inPlaceBase.find(alloc);
        if (it == inPlaceBase.end())
          return success(); // nested in a loop: placed up front
        FailureOr<uint8_t> r = newReg(alloc);
        if (failed(r))
          return failure();
        regs[alloc.getResult()] = *r;
        return emitLi(alloc, *r, it->second);
      })
      .Case<memref::GetGlobalOp>([&](memref::GetGlobalOp get) -> LogicalResult {
        // Placed by placeGlobals before the code.
        FailureOr<uint8_t> rd = newReg(op);
        if (failed(rd))
          return failure();
        regs[get.getResult()] = *rd;
        return emitLi(op, *rd, globalBase.lookup(get.getName()));
      })
      .Case<func::ReturnOp>([&](auto) -> LogicalResult {
        if (op->getParentOp() != op->getParentOfType<func::FuncOp>())
          return op->emitError("func.return must be in the function body");
        Inst halt;
        halt.op = Opcode::Halt;
        emit(op, halt);
        return success();
      })
      .Case<DmaStartOp>([&](DmaStartOp d) -> LogicalResult {
        TileShape ts = *getTileShape(d.getSrc().getType(), nullptr, true);
        TileShape td = *getTileShape(d.getDst().getType(), nullptr, true);
        FailureOr<uint8_t> rs = reg(op, d.getSrc());
        FailureOr<uint8_t> rdst = reg(op, d.getDst());
        FailureOr<uint8_t> rd = newReg(op);
        if (failed(rs) || failed(rdst) || failed(rd))
          return failure();
        Inst in;
        in.op = Opcode::DmaIssue;
        in.rd = *rd;
        in.rs1 = *rs;
        in.rs2 = *rdst;
        in.flags = uint8_t(ts.space == MemorySpace::VMEM) |
                   uint8_t(td.space == MemorySpace::VMEM) << 1;
        in.a = uint16_t(ts.rows);
        in.b = uint16_t(ts.cols);
        in.s1 = uint16_t(ts.rowStride);
        in.s2 = uint16_t(td.rowStride);
        if (Value chip = d.getRemoteChip()) {
          FailureOr<uint8_t> rc = reg(op, chip);
          if (failed(rc))
            return failure();
          in.rs3 = *rc;
          in.flags |= d.getSrcChip() ? isa::kFlagRemoteSrc
                                     : isa::kFlagRemoteDst;
        }
        if (std::optional<uint32_t> sem = d.getSignal()) {
          in.flags |= isa::kFlagSignal;
          in.s3 = uint16_t(*sem);
        }
        if (ts.isBF16())
          in.flags |= isa::kFlagDma16;
        emit(op, in);
        regs[d.getToken()] = *rd;
        return success();
      })
      .Case<SemWaitOp>([&](SemWaitOp w) -> LogicalResult {
        FailureOr<uint8_t> rc = reg(op, w.getCount());
        if (failed(rc))
          return failure();
        Inst in;
        in.op = Opcode::SemWait;
        in.a = uint16_t(w.getSemaphore());
        in.rs1 = *rc;
        emit(op, in);
        return success();
      })
      .Case<ChipIdOp, ChipCountOp>([&](Operation *chipOp) -> LogicalResult {
        FailureOr<uint8_t> rd = newReg(op);
        if (failed(rd))
          return failure();
        Inst in;
        in.op = llvm::isa<ChipIdOp>(chipOp) ? Opcode::ChipId
                                            : Opcode::ChipCount;
        in.rd = *rd;
        emit(op, in);
        regs[chipOp->getResult(0)] = *rd;
        return success();
      })
      .Case<LoadOp>([&](LoadOp l) -> LogicalResult {
        auto type = cast<MemRefType>(l.getBuffer().getType());
        SmallVector<int64_t> strides;
        int64_t offset;
        if (failed(type.getStridesAndOffset(strides, offset)) ||
            llvm::any_of(strides, ShapedType::isDynamic))
          return l.emitError("cannot lower a load from this layout");
        SmallVector<OpFoldResult> offsets(l.getIndices().begin(),
                                          l.getIndices().end());
        FailureOr<uint8_t> addr =
            emitAddress(op, l.getBuffer(), offsets, strides);
        FailureOr<uint8_t> rd = newReg(op);
        if (failed(addr) || failed(rd))
          return failure();
        Inst ld;
        ld.op = Opcode::Sld;
        ld.rd = *rd;
        ld.rs1 = *addr;
        emit(op, ld);
        releaseReg(*addr);
        regs[l.getResult()] = *rd;
        return success();
      })
      .Case<DmaWaitOp>([&](DmaWaitOp w) -> LogicalResult {
        FailureOr<uint8_t> rt = reg(op, w.getToken());
        if (failed(rt))
          return failure();
        Inst in;
        in.op = Opcode::DmaWait;
        in.rs1 = *rt;
        emit(op, in);
        return success();
      })
      .Case<MatmulOp>([&](MatmulOp m) -> LogicalResult {
        TileShape ta = *getTileShape(m.getA().getType());
        TileShape tb = *getTileShape(m.getB().getType());
        TileShape tc = *getTileShape(m.getC().getType());
        FailureOr<uint8_t> ra = reg(op, m.getA());
        FailureOr<uint8_t> rb = reg(op, m.getB());
        FailureOr<uint8_t> rc = reg(op, m.getC());
        if (failed(ra) || failed(rb) || failed(rc))
          return failure();
        Inst in;
        in.op = Opcode::Matmul;
        in.rs1 = *ra;
        in.rs2 = *rb;
        in.rs3 = *rc;
        in.flags = (m.getAccumulate() ? isa::kFlagAccumulate : 0) |
                   (ta.isBF16() ? isa::kFlagBf16Rs1 : 0) |
                   (tb.isBF16() ? isa::kFlagBf16Rs2 : 0) |
                   (tc.isBF16() ? isa::kFlagBf16Rs3 : 0);
        in.a = uint16_t(ta.rows);
        in.b = uint16_t(tb.cols);
        in.s1 = uint16_t(ta.cols);
        in.s2 = uint16_t(ta.rowStride);
        in.s3 = uint16_t(tc.rowStride);
        emit(op, in);
        return success();
      })
      .Case<VAddOp>([&](VAddOp o) {
        return lowerVpu(o, Opcode::VAdd, o.getX(), o.getY(), o.getOut());
      })
      .Case<VSubOp>([&](VSubOp o) {
        return lowerVpu(o, Opcode::VSub, o.getX(), o.getY(), o.getOut());
      })
      .Case<VMulOp>([&](VMulOp o) {
        return lowerVpu(o, Opcode::VMul, o.getX(), o.getY(), o.getOut());
      })
      .Case<VDivOp>([&](VDivOp o) {
        return lowerVpu(o, Opcode::VDiv, o.getX(), o.getY(), o.getOut());
      })
      .Case<VMaxOp>([&](VMaxOp o) -> LogicalResult {
        if (failed(lowerVpu(o, Opcode::VMax, o.getX(), o.getY(), o.getOut())))
          return failure();
        if (o.getIgnoreNan())
          program.code.back().flags |= isa::kFlagMaxNum;
        return success();
      })
      .Case<VMinOp>([&](VMinOp o) -> LogicalResult {
        if (failed(lowerVpu(o, Opcode::VMin, o.getX(), o.getY(), o.getOut())))
          return failure();
        if (o.getIgnoreNan())
          program.code.back().flags |= isa::kFlagMaxNum;
        return success();
      })
      .Case<VExpOp>([&](VExpOp o) {
        return lowerVpu(o, Opcode::VExp, o.getX(), Value(), o.getOut());
      })
      .Case<VRsqrtOp>([&](VRsqrtOp o) {
        return lowerVpu(o, Opcode::VRsqrt, o.getX(), Value(), o.getOut());
      })
      .Case<VTanhOp>([&](VTanhOp o) {
        return lowerVpu(o, Opcode::VTanh, o.getX(), Value(), o.getOut());
      })
      .Case<VLogOp>([&](VLogOp o) {
        return lowerVpu(o, Opcode::VLog, o.getX(), Value(), o.getOut());
      })
      .Case<VLog1pOp>([&](VLog1pOp o) {
        return lowerVpu(o, Opcode::VLog1p, o.getX(), Value(), o.getOut());
      })
      .Case<VErfOp>([&](VErfOp o) {
        return lowerVpu(o, Opcode::VErf, o.getX(), Value(), o.getOut());
      })
      .Case<VAbsOp>([&](VAbsOp o) {
        return lowerVpu(o, Opcode::VAbs, o.getX(), Value(), o.getOut());
      })
      .Case<VExpm1Op>([&](VExpm1Op o) {
        return lowerVpu(o, Opcode::VExpm1, o.getX(), Value(), o.getOut());
      })
      .Case<VFloorOp>([&](VFloorOp o) {
        return lowerVpu(o, Opcode::VFloor, o.getX(), Value(), o.getOut());
      })
      .Case<VCeilOp>([&](VCeilOp o) {
        return lowerVpu(o, Opcode::VCeil, o.getX(), Value(), o.getOut());
      })
      .Case<VRoundEvenOp>([&](VRoundEvenOp o) {
        return lowerVpu(o, Opcode::VRoundEven, o.getX(), Value(), o.getOut());
      })
      .Case<VRoundOp>([&](VRoundOp o) {
        return lowerVpu(o, Opcode::VRound, o.getX(), Value(), o.getOut());
      })
      .Case<VCopySignOp>([&](VCopySignOp o) {
        return lowerVpu(o, Opcode::VCopySign, o.getX(), o.getY(), o.getOut());
      })
      .Case<VSqrtOp>([&](VSqrtOp o) {
        return lowerVpu(o, Opcode::VSqrt, o.getX(), Value(), o.getOut());
      })
      .Case<VCopyOp>([&](VCopyOp o) {
        return lowerVpu(o, Opcode::VCopy, o.getX(), Value(), o.getOut());
      })
      .Case<VCmpOp>([&](VCmpOp o) -> LogicalResult {
        if (failed(lowerVpu(o, Opcode::VCmp, o.getX(), o.getY(), o.getOut())))
          return failure();
        program.code.back().rd = uint8_t(o.getPredicate());
        return success();
      })
      .Case<VSelectOp>([&](VSelectOp o) {
        return lowerVpu(o, Opcode::VSelect, o.getMask(), o.getY(), o.getOut());
      })
      .Case<VIotaOp>([&](VIotaOp o) -> LogicalResult {
        FailureOr<uint8_t> base = reg(o, o.getBase());
        if (failed(base) ||
            failed(lowerVpu(o, Opcode::VIota, Value(), Value(), o.getOut())))
          return failure();
        program.code.back().rs1 = *base;
        if (o.getColumns())
          program.code.back().flags |= isa::kFlagIotaCols;
        return success();
      })
      .Case<VTransposeOp>([&](VTransposeOp o) {
        return lowerVpu(o, Opcode::VTranspose, o.getX(), Value(), o.getOut());
      })
      .Case<VReduceSumOp>([&](VReduceSumOp o) {
        return lowerVpu(o, Opcode::VRSum, o.getX(), Value(), o.getOut());
      })
      .Case<VReduceMaxOp>([&](VReduceMaxOp o) -> LogicalResult {
        if (failed(lowerVpu(o, Opcode::VRMax, o.getX(), Value(), o.getOut())))
          return failure();
        if (o.getIgnoreNan())
          program.code.back().flags |= isa::kFlagMaxNum;
        return success();
      })
      .Case<VFillOp>([&](VFillOp o) -> LogicalResult {
        if (failed(lowerVpu(o, Opcode::VFill, Value(), Value(), o.getOut())))
          return failure();
        float v = o.getValue().convertToFloat();
        uint32_t bits;
        std::memcpy(&bits, &v, 4);
        program.code.back().s1 = uint16_t(bits);
        program.code.back().s2 = uint16_t(bits >> 16);
        return success();
      })
      .Default([&](Operation *other) -> LogicalResult {
        return other->emitError()
               << "'" << other->getName()
               << "' cannot be lowered to the accel ISA";
      });
}

std::string accel::checkHbmArgument(Type t) {
  // Any rank: an argument is a buffer; the ops' views of it are tiles.
  auto type = dyn_cast<MemRefType>(t);
  if (!type)
    return "is not a memref";
  Type elem = type.getElementType();
  if (!elem.isF32() && !elem.isBF16() && !elem.isSignlessInteger(32))
    return "must have f32, bf16 or i32 elements";
  if (!type.hasStaticShape() || type.getRank() < 1)
    return "must have a static shape of rank 1 or more";
  if (getMemorySpace(type) != MemorySpace::HBM)
    return "must be in #accel.space<hbm>";
  if (!type.getLayout().isIdentity())
    return "must have the identity layout";
  return "";
}

func::FuncOp accel::findEntryFunction(ModuleOp module, llvm::StringRef name) {
  SmallVector<func::FuncOp> funcs;
  for (auto f : module.getOps<func::FuncOp>())
    if (!f.isExternal())
      funcs.push_back(f);
  func::FuncOp entry;
  for (func::FuncOp f : funcs)
    if ((!name.empty() && f.getSymName() == name) ||
        (name.empty() && f.getSymName() == "main"))
      entry = f;
  if (!entry && name.empty() && funcs.size() == 1)
    entry = funcs.front();
  return entry;
}

FailureOr<isa::Program> accel::lowerToIsa(ModuleOp module,
                                          const LoweringOptions &options) {
  func::FuncOp entry = findEntryFunction(module, options.entry);
  if (!entry) {
    size_t numFuncs = llvm::count_if(module.getOps<func::FuncOp>(),
                                     [](func::FuncOp f) { return !f.isExternal(); });
    if (options.entry.empty())
      module.emitError() << "cannot choose an entry function: found "
                         << numFuncs
                         << " functions with bodies and none named 'main'";
    else
      module.emitError() << "no function named '" << options.entry << "'";
    return failure();
  }
  Lowerer lowerer(options);
  FailureOr<isa::Program> program = lowerer.run(entry);
  if (succeeded(program))
    program->fingerprint = getProgramFingerprint(module);
  return program;
}
