//===- AccelDialect.cpp - accel dialect registration ----------------------===//

#include "accel/Dialect/Accel/AccelDialect.h"
#include "accel/Dialect/Accel/AccelOps.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/xxhash.h"

using namespace mlir;
using namespace accel;

#include "accel/Dialect/Accel/AccelDialect.cpp.inc"
#include "accel/Dialect/Accel/AccelEnums.cpp.inc"
#define GET_ATTRDEF_CLASSES
#include "accel/Dialect/Accel/AccelAttrs.cpp.inc"
#define GET_TYPEDEF_CLASSES
#include "accel/Dialect/Accel/AccelTypes.cpp.inc"

void AccelDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "accel/Dialect/Accel/AccelOps.cpp.inc"
      >();
  addTypes<
#define GET_TYPEDEF_LIST
#include "accel/Dialect/Accel/AccelTypes.cpp.inc"
      >();
  addAttributes<
#define GET_ATTRDEF_LIST
#include "accel/Dialect/Accel/AccelAttrs.cpp.inc"
      >();
}

LogicalResult AccelDialect::verifyOperationAttribute(Operation *op,
                                                    NamedAttribute attr) {
  if (attr.getName() != getOpIdAttrName())
    return success();
  return verifyOpId(op, attr.getValue());
}

LogicalResult AccelDialect::verifyOpId(Operation *op, Attribute value) {
  auto id = dyn_cast<IntegerAttr>(value);
  if (!id || !id.getType().isSignlessInteger())
    return op->emitError() << getOpIdAttrName()
                           << " must be an integer, not " << value;
  // The value as a signed number of any width (i1 and i128 included).
  const APInt &v = id.getValue();
  if (v.isNonPositive() || v.getSignificantBits() > 64 ||
      v.getSExtValue() > getMaxOpId()) {
    return op->emitError() << getOpIdAttrName() << " must be in [1, "
                           << getMaxOpId() << "], not "
                           << llvm::toString(v, 10, /*Signed=*/true);
  }
  return success();
}

std::optional<MemorySpace> accel::getMemorySpace(Type type) {
  auto memref = dyn_cast<BaseMemRefType>(type);
  if (!memref)
    return std::nullopt;
  if (auto space = dyn_cast_or_null<MemorySpaceAttr>(memref.getMemorySpace()))
    return space.getValue();
  return std::nullopt;
}

/// A location as the fingerprint sees it: file base names, so the same
/// program read from another directory has the same fingerprint.
static void printLocKey(Location loc, llvm::raw_ostream &os) {
  llvm::TypeSwitch<Location>(loc)
      .Case<FileLineColLoc>([&](FileLineColLoc l) {
        os << llvm::sys::path::filename(l.getFilename().getValue()) << ':'
           << l.getLine() << ':' << l.getColumn();
      })
      .Case<NameLoc>([&](NameLoc l) {
        os << '"' << l.getName().getValue() << "\"(";
        printLocKey(l.getChildLoc(), os);
        os << ')';
      })
      .Case<CallSiteLoc>([&](CallSiteLoc l) {
        os << "callsite(";
        printLocKey(l.getCallee(), os);
        os << " at ";
        printLocKey(l.getCaller(), os);
        os << ')';
      })
      .Case<FusedLoc>([&](FusedLoc l) {
        os << "fused[";
        llvm::interleaveComma(l.getLocations(), os,
                              [&](Location sub) { printLocKey(sub, os); });
        os << ']';
      })
      .Case<UnknownLoc>([&](UnknownLoc) { os << '?'; })
      .Default([&](Location l) { l.print(os); });
}

std::string accel::getProgramFingerprint(Operation *root) {
  std::vector<std::pair<int64_t, std::string>> entries;
  root->walk([&](Operation *op) {
    auto id = op->getAttrOfType<IntegerAttr>(AccelDialect::getOpIdAttrName());
    if (!id || id.getValue().getSignificantBits() > 64)
      return;
    std::string text;
    llvm::raw_string_ostream os(text);
    os << op->getName() << ' ';
    printLocKey(op->getLoc(), os);
    entries.push_back({id.getValue().getSExtValue(), std::move(text)});
  });
  llvm::stable_sort(entries, [](const auto &a, const auto &b) {
    return a.first < b.first;
  });
  std::string all;
  llvm::raw_string_ostream os(all);
  for (const auto &[id, text] : entries)
    os << id << ' ' << text << '\n';
  // The program's constants (memref.global initializers, which become
  // initialized HBM data of the image): name, type and a hash of the data.
  root->walk([&](Operation *op) {
    if (op->getName().getStringRef() != "memref.global")
      return;
    auto name = op->getAttrOfType<StringAttr>("sym_name");
    auto type = op->getAttrOfType<TypeAttr>("type");
    Attribute init = op->getAttr("initial_value");
    if (!name || !type)
      return;
    os << "global @" << name.getValue() << ' ' << type.getValue() << ' ';
    if (auto dense = dyn_cast_or_null<DenseElementsAttr>(init)) {
      os << (dense.isSplat() ? "splat " : "dense ")
         << llvm::format_hex_no_prefix(
                llvm::xxh3_64bits(
                    llvm::ArrayRef<uint8_t>(reinterpret_cast<const uint8_t *>(
                                                dense.getRawData().data()),
                                            dense.getRawData().size())),
                16);
    } else if (auto resource =
                   dyn_cast_or_null<DenseResourceElementsAttr>(init)) {
      AsmResourceBlob *blob = resource.getRawHandle().getBlob();
      ArrayRef<char> data = blob ? blob->getData() : ArrayRef<char>();
      os << "blob " << (blob ? "" : "missing ")
         << llvm::format_hex_no_prefix(
                llvm::xxh3_64bits(llvm::ArrayRef<uint8_t>(
                    reinterpret_cast<const uint8_t *>(data.data()),
                    data.size())),
                16);
    } else if (init) {
      init.print(os);
    }
    os << '\n';
  });
  std::string out;
  llvm::raw_string_ostream(out) << llvm::format_hex_no_prefix(
      llvm::xxh3_64bits(llvm::StringRef(all)), 16);
  return out;
}
