//===- LowerArith.cpp - arith ops in the accel-to-ISA lowering ------------===//
//
// arith constants, index arithmetic (one instruction each), and the scalar
// integer code of gathers (accel-lower-gathers): wrapping i32 arithmetic,
// comparisons, selects, minima and maxima, i1 logic and casts, as
// compare-and-branch sequences on the 64-bit registers of docs/isa.md.
//
//===----------------------------------------------------------------------===//

#include "Lowerer.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/TypeSwitch.h"

#include <limits>

using namespace mlir;
using namespace accel;
using namespace accel::lowering;
using isa::Inst;
using isa::Opcode;

/// Lowers the arith ops: constants, index add/sub/mul, divui and remui as
/// one instruction, the rest by lowerScalar; std::nullopt for another op.
std::optional<LogicalResult> Lowerer::lowerArithOp(Operation *op) {
  return llvm::TypeSwitch<Operation *, std::optional<LogicalResult>>(op)
      .Case<arith::ConstantOp>(
          [&](arith::ConstantOp c) { return lowerConstant(c); })
      .Case<arith::AddIOp, arith::SubIOp, arith::MulIOp>(
          [&](Operation *) -> LogicalResult {
            // Index arithmetic (addresses, loop bounds) is one
            // instruction; integer arithmetic wraps (lowerScalar).
            if (!op->getResult(0).getType().isIndex())
              return lowerScalar(op);
            return lowerBinary(op, llvm::isa<arith::AddIOp>(op) ? Opcode::Add
                                   : llvm::isa<arith::SubIOp>(op)
                                       ? Opcode::Sub
                                       : Opcode::Mul);
          })
      .Case<arith::CmpIOp, arith::SelectOp, arith::MaxSIOp, arith::MinSIOp,
            arith::MaxUIOp, arith::MinUIOp, arith::AndIOp, arith::OrIOp,
            arith::XOrIOp, arith::IndexCastOp, arith::IndexCastUIOp,
            arith::ExtSIOp, arith::ExtUIOp>(
          [&](Operation *) { return lowerScalar(op); })
      .Case<arith::DivUIOp>([&](auto) { return lowerBinary(op, Opcode::DivU); })
      .Case<arith::RemUIOp>([&](auto) { return lowerBinary(op, Opcode::RemU); })
      .Default([](Operation *) { return std::nullopt; });
}

/// Lowers an integer or index constant to li into a new register (i1 true
/// as 1). Errors: a float constant, one wider than li's 64-bit immediate.
LogicalResult Lowerer::lowerConstant(arith::ConstantOp c) {
  auto attr = dyn_cast<IntegerAttr>(c.getValue());
  if (!attr)
    return c.emitError("only integer and index constants can be "
                       "lowered to the accel ISA");
  // li's immediate is 64 bits: a wider value would be truncated.
  if (attr.getValue().getSignificantBits() > 64)
    return c.emitError() << "the constant " << attr
                         << " does not fit li's 64-bit immediate";
  FailureOr<uint8_t> rd = newReg(c);
  if (failed(rd))
    return failure();
  regs[c.getResult()] = *rd;
  // i1 true is 1 (a mask bit), not the sign-extended -1.
  if (attr.getType().isInteger(1))
    return emitLi(c, *rd, attr.getValue().getZExtValue());
  return emitLi(c, *rd, attr.getValue().getSExtValue());
}

/// Lowers a two-operand op to `opc` rd, a, b with rd a new register.
LogicalResult Lowerer::lowerBinary(Operation *op, Opcode opc) {
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
}

/// The code of one scalar op (lowerScalar): its operands' registers `in`,
/// its result's register `rd`, a work register, the temporaries (released
/// when lowerScalar returns), and the sequences its cases share.
struct Lowerer::ScalarCode {
  ScalarCode(Lowerer &lowerer, Operation *op)
      : lowerer(lowerer), op(op), result(op->getResult(0)) {}

  Lowerer &lowerer;
  Operation *op;
  Value result;
  SmallVector<uint8_t, 3> in;
  SmallVector<uint8_t, 4> temps;
  uint8_t work = 0, rd = 0;

  /// A new register, released with the others when the op is done.
  FailureOr<uint8_t> temp() {
    FailureOr<uint8_t> r = lowerer.newReg(op);
    if (succeeded(r))
      temps.push_back(*r);
    return r;
  }
  void arith3(Opcode opc, uint8_t dst, uint8_t a, uint8_t b) {
    Inst i;
    i.op = opc;
    i.rd = dst;
    i.rs1 = a;
    i.rs2 = b;
    lowerer.emit(op, i);
  }
  LogicalResult less(uint8_t dst, uint8_t a, uint8_t b, bool flip);
  LogicalResult negate(uint8_t src);
  LogicalResult select(uint8_t cond, uint8_t x, uint8_t y);
  LogicalResult wrap32(uint8_t src);

  LogicalResult lowerWrapping();
  LogicalResult lowerCmp(arith::CmpIOp cmp);
  LogicalResult lowerMinMax();
  LogicalResult lowerLogic();
  LogicalResult lowerUnsignedCast();
};

/// dst = (a < b) as 0/1, signed; `flip` compares with the sign bit flipped
/// (unsigned order).
LogicalResult Lowerer::ScalarCode::less(uint8_t dst, uint8_t a, uint8_t b,
                                        bool flip) {
  if (flip) {
    FailureOr<uint8_t> k = temp(), fa = temp(), fb = temp();
    if (failed(k) || failed(fa) || failed(fb))
      return failure();
    (void)lowerer.emitLi(op, *k, std::numeric_limits<int64_t>::min());
    arith3(Opcode::Add, *fa, a, *k);
    arith3(Opcode::Add, *fb, b, *k);
    a = *fa;
    b = *fb;
  }
  (void)lowerer.emitLi(op, dst, 0);
  uint32_t skip = lowerer.emitBranch(op, Opcode::Bge, a, b);
  (void)lowerer.emitLi(op, dst, 1);
  lowerer.patchBranch(skip);
  return success();
}

/// rd = 1 - src.
LogicalResult Lowerer::ScalarCode::negate(uint8_t src) {
  FailureOr<uint8_t> one = temp();
  if (failed(one))
    return failure();
  (void)lowerer.emitLi(op, *one, 1);
  arith3(Opcode::Sub, rd, *one, src);
  return success();
}

/// rd = cond ? x : y, cond 0 or 1 (rd written last).
LogicalResult Lowerer::ScalarCode::select(uint8_t cond, uint8_t x, uint8_t y) {
  FailureOr<uint8_t> zero = temp();
  if (failed(zero))
    return failure();
  lowerer.emitMov(op, work, y);
  (void)lowerer.emitLi(op, *zero, 0);
  uint32_t skip = lowerer.emitBranch(op, Opcode::Bge, *zero, cond);
  lowerer.emitMov(op, work, x);
  lowerer.patchBranch(skip);
  lowerer.emitMov(op, rd, work);
  return success();
}

/// rd = src wrapped to a sign-extended i32 when the result is i32:
/// ((src + 2^31) mod 2^32) - 2^31 (src is overwritten); else rd = src.
LogicalResult Lowerer::ScalarCode::wrap32(uint8_t src) {
  if (!result.getType().isInteger(32)) {
    lowerer.emitMov(op, rd, src);
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
  lowerer.emit(op, addi);
  (void)lowerer.emitLi(op, *k, int64_t(1) << 32);
  arith3(Opcode::RemU, src, src, *k);
  addi.rd = rd;
  addi.setImm(-(int64_t(1) << 31));
  lowerer.emit(op, addi);
  return success();
}

/// Integer addi, subi, muli: the 64-bit result, wrapped for i32.
LogicalResult Lowerer::ScalarCode::lowerWrapping() {
  Opcode opc = llvm::isa<arith::AddIOp>(op)   ? Opcode::Add
               : llvm::isa<arith::SubIOp>(op) ? Opcode::Sub
                                              : Opcode::Mul;
  arith3(opc, work, in[0], in[1]);
  return wrap32(work);
}

/// cmpi: one or two `less` sequences, negated for >=, <= and ==.
LogicalResult Lowerer::ScalarCode::lowerCmp(arith::CmpIOp cmp) {
  using P = arith::CmpIPredicate;
  uint8_t a = in[0], b = in[1];
  P p = cmp.getPredicate();
  bool flip = p == P::ult || p == P::ugt || p == P::uge || p == P::ule;
  switch (p) {
  case P::slt:
  case P::ult:
    if (failed(less(work, a, b, flip)))
      return failure();
    lowerer.emitMov(op, rd, work);
    return success();
  case P::sgt:
  case P::ugt:
    if (failed(less(work, b, a, flip)))
      return failure();
    lowerer.emitMov(op, rd, work);
    return success();
  case P::sge:
  case P::uge:
    return failed(less(work, a, b, flip)) ? failure() : negate(work);
  case P::sle:
  case P::ule:
    return failed(less(work, b, a, flip)) ? failure() : negate(work);
  case P::eq:
  case P::ne: {
    // work = (a < b) + (b < a): 0 when equal.
    FailureOr<uint8_t> other = temp();
    if (failed(other) || failed(less(*other, b, a, false)) ||
        failed(less(work, a, b, false)))
      return failure();
    arith3(Opcode::Add, work, work, *other);
    if (p == P::eq)
      return negate(work);
    lowerer.emitMov(op, rd, work);
    return success();
  }
  }
  return cmp.emitError("unknown predicate");
}

/// maxsi, minsi, maxui, minui: c = a < b; max: c ? b : a; min: c ? a : b.
LogicalResult Lowerer::ScalarCode::lowerMinMax() {
  bool flip = llvm::isa<arith::MaxUIOp, arith::MinUIOp>(op);
  bool max = llvm::isa<arith::MaxSIOp, arith::MaxUIOp>(op);
  FailureOr<uint8_t> c = temp();
  if (failed(c) || failed(less(*c, in[0], in[1], flip)))
    return failure();
  return max ? select(*c, in[1], in[0]) : select(*c, in[0], in[1]);
}

/// andi, ori, xori on i1: and = a*b; or = a+b-a*b; xor = a+b-2*a*b.
/// Errors: wider integers (the ISA has no bitwise instructions).
LogicalResult Lowerer::ScalarCode::lowerLogic() {
  if (!result.getType().isInteger(1))
    return op->emitError()
           << "'" << op->getName()
           << "' on integers wider than i1 cannot be lowered to the "
              "accel ISA (it has no bitwise instructions)";
  arith3(Opcode::Mul, work, in[0], in[1]);
  if (llvm::isa<arith::AndIOp>(op)) {
    lowerer.emitMov(op, rd, work);
    return success();
  }
  FailureOr<uint8_t> sum = temp();
  if (failed(sum))
    return failure();
  arith3(Opcode::Add, *sum, in[0], in[1]);
  if (llvm::isa<arith::XOrIOp>(op))
    arith3(Opcode::Add, work, work, work);
  arith3(Opcode::Sub, rd, *sum, work);
  return success();
}

/// index_castui, extui from i1: a copy (0 or 1 either way). Errors: wider
/// sources (registers hold integers sign-extended).
LogicalResult Lowerer::ScalarCode::lowerUnsignedCast() {
  if (!op->getOperand(0).getType().isInteger(1))
    return op->emitError()
           << "'" << op->getName()
           << "' from integers wider than i1 cannot be lowered to "
              "the accel ISA (registers hold integers sign-extended)";
  lowerer.emitMov(op, rd, in[0]);
  return success();
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
  ScalarCode code(*this, op);
  for (Value v : op->getOperands()) {
    FailureOr<uint8_t> r = reg(op, v);
    if (failed(r))
      return failure();
    code.in.push_back(*r);
  }
  // Temporaries first (the result's register may not alias an operand's
  // while operands are still read: the sequences write rd early).
  FailureOr<uint8_t> work = code.temp();
  FailureOr<uint8_t> rd = newReg(op);
  if (failed(work) || failed(rd))
    return failure();
  code.work = *work;
  code.rd = *rd;
  regs[code.result] = *rd;
  llvm::scope_exit release([&] {
    for (uint8_t t : code.temps)
      releaseReg(t);
  });
  return llvm::TypeSwitch<Operation *, LogicalResult>(op)
      .Case<arith::AddIOp, arith::SubIOp, arith::MulIOp>(
          [&](Operation *) { return code.lowerWrapping(); })
      .Case<arith::CmpIOp>(
          [&](arith::CmpIOp cmp) { return code.lowerCmp(cmp); })
      .Case<arith::SelectOp>(
          [&](auto) { return code.select(code.in[0], code.in[1], code.in[2]); })
      .Case<arith::MaxSIOp, arith::MinSIOp, arith::MaxUIOp, arith::MinUIOp>(
          [&](Operation *) { return code.lowerMinMax(); })
      .Case<arith::AndIOp, arith::OrIOp, arith::XOrIOp>(
          [&](Operation *) { return code.lowerLogic(); })
      .Case<arith::IndexCastOp, arith::ExtSIOp>([&](Operation *) {
        // Values are held sign-extended: a cast keeps the register's value.
        emitMov(op, *rd, code.in[0]);
        return success();
      })
      .Case<arith::IndexCastUIOp, arith::ExtUIOp>(
          [&](Operation *) { return code.lowerUnsignedCast(); })
      .Default(
          [&](Operation *) { return op->emitError("no scalar lowering"); });
}
