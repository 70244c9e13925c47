//===- AccelToISA.h - Lower accel/arith/scf/memref to machine code -*- C++
//-*-===//

#ifndef ACCEL_TARGET_ACCELTOISA_H
#define ACCEL_TARGET_ACCELTOISA_H

#include "accel/ISA/Isa.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/LLVM.h"

namespace accel {

struct LoweringOptions {
  /// Function to lower; empty: "main" if present, else the only function.
  std::string entry;
  /// VMEM capacity in bytes; allocations beyond it are an error.
  uint64_t vmemCapacity = 32ull << 20;
  /// HBM capacity in bytes; argument buffers beyond it are an error.
  uint64_t hbmCapacity = 32ull << 30;
  /// VMEM allocation alignment in bytes (the VMEM page size).
  uint64_t vmemAlign = 1024;
  /// Scalar registers the program may use (r1 up to this one); a value
  /// needing more is an error. The ISA has isa::kNumRegs - 1; a transform
  /// checking that its output still lowers may ask for fewer, to leave
  /// room for later passes.
  unsigned scalarRegisters = isa::kNumRegs - 1;
};

/// Why `type` cannot be an argument (an HBM buffer) of the function
/// `lowerToIsa` lowers ("must have f32, bf16 or i32 elements", ...), or
/// empty when it can: a static, identity-layout f32, bf16 or i32 memref of
/// any rank in #accel.space<hbm>.
std::string checkHbmArgument(mlir::Type type);

/// The function `lowerToIsa` lowers: the one named `name`, or with an empty
/// `name` the one named "main", or else the only function with a body;
/// null when there is none.
mlir::func::FuncOp findEntryFunction(mlir::ModuleOp module,
                                     llvm::StringRef name);

/// Lowers the entry function of `module` to an isa::Program.
///
/// Supported: func.func with HBM memref arguments (f32, static shape,
/// identity layout; each becomes an HBM buffer initialised by
/// isa::initValue(argument index, element), or zeros with the argument
/// attribute `accel.init = "zero"`); accel ops; the views memref.subview,
/// memref.expand_shape, memref.collapse_shape and memref.cast (address
/// arithmetic);
/// arith.constant/addi/subi/muli on index or integer values; scf.for without
/// iter_args (lowered to a real loop: bge/add/jmp); func.return (halt).
/// VMEM allocations get static addresses (bump allocation, `vmemAlign`).
/// Every instruction gets an origin: the `accel.op_id` of the op that
/// produced it (0 if none) and its location.
///
/// Errors are emitted as diagnostics on the offending op (unsupported op,
/// VMEM or HBM capacity exceeded, more than 255 scalar values: every scalar
/// SSA value gets its own register, none is reused) and return failure.
mlir::FailureOr<isa::Program> lowerToIsa(mlir::ModuleOp module,
                                         const LoweringOptions &options);

/// "file:line:col" of the first file location inside `loc`, or "unknown".
std::string formatLocation(mlir::Location loc);

} // namespace accel

#endif // ACCEL_TARGET_ACCELTOISA_H
