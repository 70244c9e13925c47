//===- Lowerer.h - The state of one accel-to-ISA lowering -------*- C++ -*-===//
//
// The Lowerer class shared by the files of lib/Target/AccelToISA: the
// program being built, the register allocator (a register per value,
// returned to the pool after the value's last use), the origin table, and
// one member function per family of ops. Internal to this directory.
//
//   AccelToISA.cpp        entry points, the function, its blocks, dispatch
//   BufferPlacement.cpp   HBM arguments and globals, VMEM allocations
//   Registers.cpp         registers, live ranges, instruction emission
//   LowerArith.cpp        arith constants and scalar integer code
//   LowerMemory.cpp       addresses, views, allocations, globals, loads
//   LowerControlFlow.cpp  scf.for, scf.yield, func.return
//   LowerAccelOps.cpp     DMA, semaphores, chips, matmul, VPU ops
//
//===----------------------------------------------------------------------===//

#ifndef ACCEL_LIB_TARGET_ACCELTOISA_LOWERER_H
#define ACCEL_LIB_TARGET_ACCELTOISA_LOWERER_H

#include "accel/Dialect/Accel/AccelOps.h"
#include "accel/Target/AccelToISA.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringMap.h"

#include <bitset>
#include <map>
#include <optional>

namespace accel::lowering {

using namespace mlir;

class Lowerer {
public:
  Lowerer(const LoweringOptions &options) : options(options) {}
  FailureOr<isa::Program> run(func::FuncOp func);

  /// The memref.globals a function reads, each with its first reader.
  using GlobalReaders =
      SmallVector<std::pair<memref::GlobalOp, memref::GetGlobalOp>, 0>;

private:
  // Buffer placement (BufferPlacement.cpp).
  LogicalResult placeArgument(func::FuncOp func, unsigned i, uint64_t &hbmNext);
  LogicalResult placeGlobals(func::FuncOp func, uint64_t &hbmNext);
  LogicalResult placeGlobal(memref::GlobalOp global, memref::GetGlobalOp get,
                            uint64_t &hbmNext);
  LogicalResult placeAllocations(func::FuncOp func);
  LogicalResult placeAllocation(AllocOp alloc, bool inBody, uint64_t &vmemNext);

  // Blocks and dispatch (AccelToISA.cpp).
  LogicalResult lowerBlock(Block &block);
  LogicalResult lowerOp(Operation *op);

  // Registers and emission (Registers.cpp).
  FailureOr<uint8_t> newReg(Operation *op);
  FailureOr<uint8_t> reg(Operation *user, Value v);
  uint32_t emit(Operation *origin, const isa::Inst &inst);
  LogicalResult emitLi(Operation *origin, uint8_t rd, int64_t value);
  void emitMov(Operation *origin, uint8_t rd, uint8_t rs);
  uint32_t emitBranch(Operation *origin, isa::Opcode opc, uint8_t rs1,
                      uint8_t rs2);
  /// Makes the branch at `pc` jump to the next instruction emitted.
  void patchBranch(uint32_t pc) {
    program.code[pc].setImm(int64_t(program.code.size()));
  }

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

  // Op families: each returns std::nullopt for an op outside its family.
  std::optional<LogicalResult> lowerArithOp(Operation *op);
  std::optional<LogicalResult> lowerMemoryOp(Operation *op);
  std::optional<LogicalResult> lowerControlFlowOp(Operation *op);
  std::optional<LogicalResult> lowerDmaOp(Operation *op);
  std::optional<LogicalResult> lowerComputeOp(Operation *op);

  // arith (LowerArith.cpp).
  LogicalResult lowerConstant(arith::ConstantOp op);
  LogicalResult lowerBinary(Operation *op, isa::Opcode opc);
  LogicalResult lowerScalar(Operation *op);
  struct ScalarCode;

  // Memory (LowerMemory.cpp).
  FailureOr<uint8_t> emitAddress(Operation *op, Value base,
                                 ArrayRef<OpFoldResult> offsets,
                                 ArrayRef<int64_t> strides);
  LogicalResult lowerSubview(memref::SubViewOp op);
  LogicalResult lowerViewCopy(Operation *view);
  LogicalResult lowerAlloc(AllocOp alloc);
  LogicalResult lowerGetGlobal(memref::GetGlobalOp get);
  LogicalResult lowerLoad(LoadOp load);

  // Control flow (LowerControlFlow.cpp).
  LogicalResult lowerFor(scf::ForOp op);
  LogicalResult lowerYield(scf::YieldOp op);
  LogicalResult lowerReturn(func::ReturnOp op);

  // DMA, synchronization and compute (LowerAccelOps.cpp).
  LogicalResult lowerDmaStart(DmaStartOp op);
  LogicalResult lowerMatmul(MatmulOp op);
  LogicalResult lowerVpu(Operation *op, isa::Opcode opc, Value x, Value y,
                         Value out);
  std::optional<LogicalResult> lowerVpuOp(Operation *op);

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

} // namespace accel::lowering

#endif // ACCEL_LIB_TARGET_ACCELTOISA_LOWERER_H
