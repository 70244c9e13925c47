//===- LowerControlFlow.cpp - Control flow in the accel-to-ISA lowering ---===//
//
// scf.for as a compare-and-branch loop (bge at the head, add and jmp at the
// end) with its iter_args in registers, scf.yield as a sequentialized
// parallel copy into them, and func.return as halt.
//
//===----------------------------------------------------------------------===//

#include "Lowerer.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace accel;
using namespace accel::lowering;
using isa::Inst;
using isa::Opcode;

/// Lowers scf.for, scf.yield and func.return; std::nullopt for another op.
std::optional<LogicalResult> Lowerer::lowerControlFlowOp(Operation *op) {
  return llvm::TypeSwitch<Operation *, std::optional<LogicalResult>>(op)
      .Case<scf::ForOp>([&](scf::ForOp f) { return lowerFor(f); })
      .Case<scf::YieldOp>([&](scf::YieldOp y) { return lowerYield(y); })
      .Case<func::ReturnOp>([&](func::ReturnOp r) { return lowerReturn(r); })
      .Default([](Operation *) { return std::nullopt; });
}

/// The loop: iter_args set from their inits, iv = lb, `bge iv, ub` to the
/// end, the body, `add iv, iv, step`, `jmp` to the head. Records the loop
/// (op id, parent loop, location) in the program. Errors: a program past
/// 2^32 - 1 instructions (branch targets are 32 bits), those of the body.
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
  for (auto [init, arg, result] :
       llvm::zip(op.getInitArgs(), op.getRegionIterArgs(), op.getResults())) {
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
  program.loops.push_back({loopId, loopStack.empty() ? 0 : loopStack.back(),
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
  for (auto [value, arg] :
       llvm::zip(op.getOperands(), loop.getRegionIterArgs())) {
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
    auto *ready =
        llvm::find_if(pending, [&](auto &m) { return !isRead(m.first); });
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

/// halt. Errors: a return outside the function body.
LogicalResult Lowerer::lowerReturn(func::ReturnOp op) {
  if (op->getParentOp() != op->getParentOfType<func::FuncOp>())
    return op->emitError("func.return must be in the function body");
  Inst halt;
  halt.op = Opcode::Halt;
  emit(op, halt);
  return success();
}
