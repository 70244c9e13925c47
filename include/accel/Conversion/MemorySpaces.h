//===- MemorySpaces.h - Upstream memory spaces as accel's -------*- C++ -*-===//
//
// The one mapping --convert-memory-spaces-to-accel and the frontend passes
// (lib/Frontend) share: no memory space, space 0 and
// #accel.space<hbm> are HBM; the numbered VMEM space and
// #accel.space<vmem> are VMEM; anything else has no accel counterpart.
//
//===----------------------------------------------------------------------===//

#ifndef ACCEL_CONVERSION_MEMORYSPACES_H
#define ACCEL_CONVERSION_MEMORYSPACES_H

#include "accel/Dialect/Accel/AccelDialect.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"

#include <optional>

namespace accel {

/// The accel space of memory space attribute `space` when `vmemSpace` is
/// the numbered space that is VMEM; nullopt for a space with no accel
/// counterpart.
inline std::optional<MemorySpace> mapMemorySpace(mlir::Attribute space,
                                                 unsigned vmemSpace) {
  if (!space)
    return MemorySpace::HBM;
  if (auto accelSpace = mlir::dyn_cast<MemorySpaceAttr>(space))
    return accelSpace.getValue();
  if (auto number = mlir::dyn_cast<mlir::IntegerAttr>(space)) {
    if (number.getValue().isZero())
      return MemorySpace::HBM;
    if (number.getValue() == vmemSpace)
      return MemorySpace::VMEM;
  }
  return std::nullopt;
}

/// Whether memref type `type` is in HBM (which space is VMEM does not
/// matter for that).
inline bool isInHbm(mlir::Type type) {
  auto memref = mlir::dyn_cast<mlir::BaseMemRefType>(type);
  return memref && mapMemorySpace(memref.getMemorySpace(), /*vmemSpace=*/0) ==
                       MemorySpace::HBM;
}

/// Whether memref `v` is only the tag of affine DMAs (the tag operand of
/// `affine.dma_start` / `affine.dma_wait`, or freed): synchronization state
/// that --convert-affine-dma-to-accel replaces with tokens, not data.
inline bool isAffineDmaTag(mlir::Value v) {
  bool tags = false;
  for (mlir::OpOperand &use : v.getUses()) {
    mlir::Operation *user = use.getOwner();
    if (auto start = mlir::dyn_cast<mlir::affine::AffineDmaStartOp>(user)) {
      if (use.getOperandNumber() != start.getTagMemRefOperandIndex())
        return false;
    } else if (mlir::isa<mlir::affine::AffineDmaWaitOp>(user)) {
      if (use.getOperandNumber() != 0)
        return false;
    } else if (!mlir::isa<mlir::memref::DeallocOp>(user)) {
      return false;
    }
    tags |= !mlir::isa<mlir::memref::DeallocOp>(user);
  }
  return tags;
}

} // namespace accel

#endif // ACCEL_CONVERSION_MEMORYSPACES_H
