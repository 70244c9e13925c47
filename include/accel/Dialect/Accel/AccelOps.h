//===- AccelOps.h - accel dialect operations --------------------*- C++ -*-===//

#ifndef ACCEL_DIALECT_ACCEL_ACCELOPS_H
#define ACCEL_DIALECT_ACCEL_ACCELOPS_H

#include "accel/Dialect/Accel/AccelDialect.h"
#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#define GET_OP_CLASSES
#include "accel/Dialect/Accel/AccelOps.h.inc"

#endif // ACCEL_DIALECT_ACCEL_ACCELOPS_H
