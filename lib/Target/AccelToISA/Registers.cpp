//===- Registers.cpp - Registers of the accel-to-ISA lowering -------------===//
//
// The scalar registers of a lowered program (a register per value, back in
// the pool after the value's last use in lowering order) and the emission
// of instructions with their origins (op id, op name, location, loop).
//
//===----------------------------------------------------------------------===//

#include "Lowerer.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

using namespace mlir;
using namespace accel;
using namespace accel::lowering;
using isa::Inst;
using isa::Opcode;

/// A free register (r1 up to options.scalarRegisters), now in use. Errors
/// (at `op`): none free.
FailureOr<uint8_t> Lowerer::newReg(Operation *op) {
  unsigned limit =
      std::min<unsigned>(options.scalarRegisters + 1, isa::kNumRegs);
  for (unsigned r = 1; r < limit; ++r) // r0 reads as zero
    if (!usedRegs.test(r)) {
      usedRegs.set(r);
      return uint8_t(r);
    }
  op->emitError() << "needs more than " << limit - 1
                  << " scalar registers live at once";
  return failure();
}

/// Numbers the ops of `block` (nested ones included) in lowering order:
/// opPos, and endPos for an op with regions.
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

/// The position after which `v` is no longer read (see the class).
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
    unsigned p =
        user->getNumRegions() ? endPos.lookup(user) : opPos.lookup(user);
    for (Operation *a = user->getParentOp(); a && !a->isAncestor(scope);
         a = a->getParentOp())
      p = std::max(p, endPos.lookup(a));
    last = std::max(last, p);
  }
  return last;
}

/// Schedules the release of `v`'s register, if it has one, at its last
/// use.
void Lowerer::scheduleRelease(Value v) {
  auto it = regs.find(v);
  if (it != regs.end())
    releaseAt[lastUse(v)].push_back(it->second);
}

/// Releases the registers scheduled up to `position`.
void Lowerer::releaseUpTo(unsigned position) {
  while (!releaseAt.empty() && releaseAt.begin()->first <= position) {
    for (uint8_t r : releaseAt.begin()->second)
      releaseReg(r);
    releaseAt.erase(releaseAt.begin());
  }
}

/// The register holding `v`. Errors (at `user`): `v` has none (its
/// definition was not lowered).
FailureOr<uint8_t> Lowerer::reg(Operation *user, Value v) {
  auto it = regs.find(v);
  if (it == regs.end()) {
    user->emitError() << "operand is defined by an op the accel lowering "
                         "does not support";
    return failure();
  }
  return it->second;
}

/// Appends `inst` with the origin of `origin` and the innermost loop;
/// returns its pc.
uint32_t Lowerer::emit(Operation *origin, const Inst &inst) {
  isa::Origin o;
  if (auto id =
          origin->getAttrOfType<IntegerAttr>(AccelDialect::getOpIdAttrName()))
    o.opId = uint32_t(id.getInt());
  o.opName = origin->getName().getStringRef().str();
  o.loc = formatLocation(origin->getLoc());
  o.loopId = loopStack.empty() ? 0 : loopStack.back();
  program.code.push_back(inst);
  program.origins.push_back(std::move(o));
  return uint32_t(program.code.size() - 1);
}

/// Emits rd = rs.
void Lowerer::emitMov(Operation *origin, uint8_t rd, uint8_t rs) {
  Inst in;
  in.op = Opcode::Mov;
  in.rd = rd;
  in.rs1 = rs;
  emit(origin, in);
}

/// Emits rd = value (never fails).
LogicalResult Lowerer::emitLi(Operation *origin, uint8_t rd, int64_t value) {
  Inst in;
  in.op = Opcode::Li;
  in.rd = rd;
  in.setImm(value);
  emit(origin, in);
  return success();
}

/// Emits a branch on rs1 and rs2 whose target patchBranch sets; returns
/// its pc.
uint32_t Lowerer::emitBranch(Operation *origin, Opcode opc, uint8_t rs1,
                             uint8_t rs2) {
  Inst in;
  in.op = opc;
  in.rs1 = rs1;
  in.rs2 = rs2;
  return emit(origin, in); // the target is patched by patchBranch
}
