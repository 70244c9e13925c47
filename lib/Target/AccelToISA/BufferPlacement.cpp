//===- BufferPlacement.cpp - Buffers of the accel-to-ISA lowering ---------===//
//
// Where a lowered program's buffers live: the function's arguments and the
// memref.globals it reads in HBM, one after another from 64 KiB (4 KiB
// aligned), and its accel.allocs in VMEM (bump allocation, `vmemAlign`),
// each with the register that holds its address.
//
//===----------------------------------------------------------------------===//

#include "Lowerer.h"
#include "accel/Dialect/Accel/TileShape.h"
#include "accel/Support/CheckedSize.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/APInt.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SmallString.h"

using namespace mlir;
using namespace accel;
using namespace accel::lowering;

/// `a + b` in decimal, exact (also past 2^64), for messages.
static std::string describeSum(uint64_t a, uint64_t b) {
  llvm::APInt sum(65, a);
  sum += llvm::APInt(65, b);
  llvm::SmallString<24> text;
  sum.toStringUnsigned(text, 10);
  return std::string(text);
}

/// The ISA element type of a buffer's element type (f32, bf16 or i32; the
/// verifiers and checkHbmArgument admit no other).
static isa::ElemType getElemType(Type t) {
  if (t.isBF16())
    return isa::ElemType::BF16;
  return t.isSignlessInteger(32) ? isa::ElemType::I32 : isa::ElemType::F32;
}

/// Applies argument `i`'s `accel.init` attribute, if any, to its buffer `b`
/// ("zero": BufferInit::Zero, "iota": BufferInit::Iota, "random": the
/// default). Errors (at `func`): another value, "iota" on bf16 elements.
static LogicalResult setArgumentInit(func::FuncOp func, unsigned i,
                                     isa::Buffer &b) {
  auto init = func.getArgAttrOfType<StringAttr>(i, "accel.init");
  if (!init)
    return success();
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
  return success();
}

/// Places argument `i` of `func` in HBM at `hbmNext` (bytes; advanced past
/// it, 4 KiB aligned) as the buffer `%argI`, and loads its address into a
/// new register at function entry. Errors: an argument checkHbmArgument
/// rejects, one of more than 2^63 - 1 bytes, one past the HBM capacity, no
/// free register.
LogicalResult Lowerer::placeArgument(func::FuncOp func, unsigned i,
                                     uint64_t &hbmNext) {
  BlockArgument arg = func.getArgument(i);
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
  if (failed(setArgumentInit(func, i, b)))
    return failure();
  // The arguments are laid out one after another: their sum may pass
  // 2^64 too.
  std::optional<uint64_t> end =
      checkedAdd(b.base, b.bytes, options.hbmCapacity);
  std::optional<uint64_t> next = end ? checkedAlignTo(*end, 4096) : end;
  if (!next) {
    mlir::emitError(arg.getLoc())
        << "HBM buffers need " << describeSum(b.base, b.bytes)
        << " bytes up to argument " << i << ", more than the HBM capacity of "
        << options.hbmCapacity << " bytes";
    return failure();
  }
  hbmNext = *next;
  program.buffers.push_back(b);
  FailureOr<uint8_t> r = newReg(func);
  if (failed(r))
    return failure();
  regs[arg] = *r;
  (void)emitLi(func, *r, int64_t(b.base));
  return success();
}

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

/// The memref.globals that `func` reads (by memref.get_global), each with
/// its first reader, in the order of the globals in the module: the
/// transforms reorder the readers, not the globals, so every version of a
/// program places its constants at the same addresses. Errors: a
/// get_global naming no memref.global.
static FailureOr<Lowerer::GlobalReaders> getGlobalReaders(func::FuncOp func) {
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
  Lowerer::GlobalReaders globals = readers.takeVector();
  llvm::stable_sort(globals, [&](const auto &a, const auto &b) {
    return order.lookup(a.first) < order.lookup(b.first);
  });
  return globals;
}

/// Places every memref.global that `func` reads (by memref.get_global) in
/// HBM after the arguments, as a buffer named `@SYMBOL`: its initializer as
/// the buffer's data (BufferInit::Data, part of the image), or zeros when
/// `uninitialized`. Errors at the first get_global whose global is missing,
/// external, of a type an HBM argument could not have (checkHbmArgument),
/// or does not fit HBM.
LogicalResult Lowerer::placeGlobals(func::FuncOp func, uint64_t &hbmNext) {
  FailureOr<GlobalReaders> globals = getGlobalReaders(func);
  if (failed(globals))
    return failure();
  for (auto [global, get] : *globals)
    if (failed(placeGlobal(global, get, hbmNext)))
      return failure();
  return success();
}

/// Places `global`, first read by `get`, in HBM at `hbmNext` (bytes;
/// advanced past it, 4 KiB aligned) and records its base for the
/// get_globals. Errors (at `get`): see placeGlobals.
LogicalResult Lowerer::placeGlobal(memref::GlobalOp global,
                                   memref::GetGlobalOp get, uint64_t &hbmNext) {
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
                    << options.hbmCapacity << " bytes up to '@" << get.getName()
                    << "' (" << type << ")";
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
  return success();
}

/// Places `alloc` in VMEM at `vmemNext` (bytes; advanced past it, aligned
/// to `vmemAlign`, or to 2^64 when that passes it). An allocation in the
/// function body (`inBody`) gets its address where it stands (its register
/// is live from there to its last use); one nested in a loop gets it here,
/// once, instead of on every iteration. Errors: past the VMEM capacity, no
/// free register.
LogicalResult Lowerer::placeAllocation(AllocOp alloc, bool inBody,
                                       uint64_t &vmemNext) {
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
    return failure();
  }
  // The next allocation starts past the end (2^64 when the alignment
  // passes it: that one then does not fit).
  vmemNext = next ? *next : UINT64_MAX;
  program.buffers.push_back(b);
  if (inBody) {
    inPlaceBase[alloc] = int64_t(b.base);
    return success();
  }
  FailureOr<uint8_t> r = newReg(alloc);
  if (failed(r))
    return failure();
  regs[alloc.getResult()] = *r;
  (void)emitLi(alloc, *r, int64_t(b.base));
  return success();
}

/// Places every accel.alloc of `func` in VMEM, in walk order, from address
/// 0 (see placeAllocation). Errors: those of placeAllocation.
LogicalResult Lowerer::placeAllocations(func::FuncOp func) {
  uint64_t vmemNext = 0;
  Block *body = &func.getBody().front();
  WalkResult walk = func.walk([&](AllocOp alloc) -> WalkResult {
    if (failed(placeAllocation(alloc, alloc->getBlock() == body, vmemNext)))
      return WalkResult::interrupt();
    return WalkResult::advance();
  });
  return failure(walk.wasInterrupted());
}
