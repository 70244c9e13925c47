//===- AccelDialect.cpp - accel dialect registration ----------------------===//

#include "accel/Dialect/Accel/AccelDialect.h"
#include "accel/Dialect/Accel/AccelOps.h"

#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

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

std::optional<MemorySpace> accel::getMemorySpace(Type type) {
  auto memref = dyn_cast<BaseMemRefType>(type);
  if (!memref)
    return std::nullopt;
  if (auto space = dyn_cast_or_null<MemorySpaceAttr>(memref.getMemorySpace()))
    return space.getValue();
  return std::nullopt;
}
