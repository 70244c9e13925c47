//===- LowerAccelOps.cpp - accel ops in the accel-to-ISA lowering ---------===//
//
// The accel ops, each one instruction with its registers and fields
// (docs/isa.md): DMA issue and wait, semaphore waits, the chip id and
// count, matmul, and the VPU ops on tiles.
//
//===----------------------------------------------------------------------===//

#include "Lowerer.h"
#include "accel/Dialect/Accel/TileShape.h"

#include "llvm/ADT/TypeSwitch.h"

#include <cstring>

using namespace mlir;
using namespace accel;
using namespace accel::lowering;
using isa::Inst;
using isa::Opcode;

/// Lowers the DMA and synchronization ops (dma_start, dma_wait, sem_wait,
/// chip_id, chip_count); std::nullopt for another op.
std::optional<LogicalResult> Lowerer::lowerDmaOp(Operation *op) {
  return llvm::TypeSwitch<Operation *, std::optional<LogicalResult>>(op)
      .Case<DmaStartOp>([&](DmaStartOp d) { return lowerDmaStart(d); })
      .Case<DmaWaitOp>([&](DmaWaitOp w) -> LogicalResult {
        FailureOr<uint8_t> rt = reg(op, w.getToken());
        if (failed(rt))
          return failure();
        Inst in;
        in.op = Opcode::DmaWait;
        in.rs1 = *rt;
        emit(op, in);
        return success();
      })
      .Case<SemWaitOp>([&](SemWaitOp w) -> LogicalResult {
        FailureOr<uint8_t> rc = reg(op, w.getCount());
        if (failed(rc))
          return failure();
        Inst in;
        in.op = Opcode::SemWait;
        in.a = uint16_t(w.getSemaphore());
        in.rs1 = *rc;
        emit(op, in);
        return success();
      })
      .Case<ChipIdOp, ChipCountOp>([&](Operation *chipOp) -> LogicalResult {
        FailureOr<uint8_t> rd = newReg(op);
        if (failed(rd))
          return failure();
        Inst in;
        in.op =
            llvm::isa<ChipIdOp>(chipOp) ? Opcode::ChipId : Opcode::ChipCount;
        in.rd = *rd;
        emit(op, in);
        regs[chipOp->getResult(0)] = *rd;
        return success();
      })
      .Default([](Operation *) { return std::nullopt; });
}

/// dma_issue: source and destination addresses, spaces, tile shape and
/// strides, the remote chip and semaphore to signal if any; the token is
/// the new register `rd`.
LogicalResult Lowerer::lowerDmaStart(DmaStartOp d) {
  TileShape ts = *getTileShape(d.getSrc().getType(), nullptr, true);
  TileShape td = *getTileShape(d.getDst().getType(), nullptr, true);
  FailureOr<uint8_t> rs = reg(d, d.getSrc());
  FailureOr<uint8_t> rdst = reg(d, d.getDst());
  FailureOr<uint8_t> rd = newReg(d);
  if (failed(rs) || failed(rdst) || failed(rd))
    return failure();
  Inst in;
  in.op = Opcode::DmaIssue;
  in.rd = *rd;
  in.rs1 = *rs;
  in.rs2 = *rdst;
  in.flags = uint8_t(ts.space == MemorySpace::VMEM) |
             uint8_t(td.space == MemorySpace::VMEM) << 1;
  in.a = uint16_t(ts.rows);
  in.b = uint16_t(ts.cols);
  in.s1 = uint16_t(ts.rowStride);
  in.s2 = uint16_t(td.rowStride);
  if (Value chip = d.getRemoteChip()) {
    FailureOr<uint8_t> rc = reg(d, chip);
    if (failed(rc))
      return failure();
    in.rs3 = *rc;
    in.flags |= d.getSrcChip() ? isa::kFlagRemoteSrc : isa::kFlagRemoteDst;
  }
  if (std::optional<uint32_t> sem = d.getSignal()) {
    in.flags |= isa::kFlagSignal;
    in.s3 = uint16_t(*sem);
  }
  if (ts.isBF16())
    in.flags |= isa::kFlagDma16;
  emit(d, in);
  regs[d.getToken()] = *rd;
  return success();
}

/// Lowers matmul and the VPU ops; std::nullopt for another op.
std::optional<LogicalResult> Lowerer::lowerComputeOp(Operation *op) {
  if (auto m = dyn_cast<MatmulOp>(op))
    return lowerMatmul(m);
  return lowerVpuOp(op);
}

/// matmul c (+)= a x b: the three tiles' registers, precisions, the shape
/// (a rows, b cols, a cols) and row strides.
LogicalResult Lowerer::lowerMatmul(MatmulOp m) {
  TileShape ta = *getTileShape(m.getA().getType());
  TileShape tb = *getTileShape(m.getB().getType());
  TileShape tc = *getTileShape(m.getC().getType());
  FailureOr<uint8_t> ra = reg(m, m.getA());
  FailureOr<uint8_t> rb = reg(m, m.getB());
  FailureOr<uint8_t> rc = reg(m, m.getC());
  if (failed(ra) || failed(rb) || failed(rc))
    return failure();
  Inst in;
  in.op = Opcode::Matmul;
  in.rs1 = *ra;
  in.rs2 = *rb;
  in.rs3 = *rc;
  in.flags = (m.getAccumulate() ? isa::kFlagAccumulate : 0) |
             (ta.isBF16() ? isa::kFlagBf16Rs1 : 0) |
             (tb.isBF16() ? isa::kFlagBf16Rs2 : 0) |
             (tc.isBF16() ? isa::kFlagBf16Rs3 : 0);
  in.a = uint16_t(ta.rows);
  in.b = uint16_t(tb.cols);
  in.s1 = uint16_t(ta.cols);
  in.s2 = uint16_t(ta.rowStride);
  in.s3 = uint16_t(tc.rowStride);
  emit(m, in);
  return success();
}

/// Emits the VPU instruction `opc` for operand tiles x, y (either may be
/// null) and out: registers, row strides, shape (x's, else out's),
/// precisions and broadcasts of y.
LogicalResult Lowerer::lowerVpu(Operation *op, Opcode opc, Value x, Value y,
                                Value out) {
  Inst in;
  in.op = opc;
  TileShape to = *getTileShape(out.getType());
  FailureOr<uint8_t> ro = reg(op, out);
  if (failed(ro))
    return failure();
  in.rs3 = *ro;
  in.s3 = uint16_t(to.rowStride);
  in.a = uint16_t(to.rows);
  in.b = uint16_t(to.cols);
  if (to.isBF16())
    in.flags |= isa::kFlagBf16Rs3;
  if (x) {
    TileShape tx = *getTileShape(x.getType());
    FailureOr<uint8_t> rx = reg(op, x);
    if (failed(rx))
      return failure();
    in.rs1 = *rx;
    in.s1 = uint16_t(tx.rowStride);
    // a x b is x's shape (reductions: out is rows x 1; a transpose's out
    // is cols x rows).
    in.a = uint16_t(tx.rows);
    in.b = uint16_t(tx.cols);
    if (tx.isBF16())
      in.flags |= isa::kFlagBf16Rs1;
  }
  if (y) {
    TileShape ty = *getTileShape(y.getType());
    FailureOr<uint8_t> ry = reg(op, y);
    if (failed(ry))
      return failure();
    in.rs2 = *ry;
    in.s2 = uint16_t(ty.rowStride);
    if (ty.isBF16())
      in.flags |= isa::kFlagBf16Rs2;
    if (ty.cols == 1 && in.b != 1)
      in.flags |= isa::kFlagBroadcast;
    else if (ty.rows == 1 && in.a != 1)
      in.flags |= isa::kFlagBroadcastRow;
  }
  emit(op, in);
  return success();
}

/// The instruction of a VPU op whose operands are x (and y) and out, in
/// the generic cases of lowerVpuOp.
static Opcode getVpuOpcode(Operation *op) {
  return llvm::TypeSwitch<Operation *, Opcode>(op)
      .Case<VAddOp>([](auto) { return Opcode::VAdd; })
      .Case<VSubOp>([](auto) { return Opcode::VSub; })
      .Case<VMulOp>([](auto) { return Opcode::VMul; })
      .Case<VDivOp>([](auto) { return Opcode::VDiv; })
      .Case<VMaxOp>([](auto) { return Opcode::VMax; })
      .Case<VMinOp>([](auto) { return Opcode::VMin; })
      .Case<VCopySignOp>([](auto) { return Opcode::VCopySign; })
      .Case<VExpOp>([](auto) { return Opcode::VExp; })
      .Case<VRsqrtOp>([](auto) { return Opcode::VRsqrt; })
      .Case<VTanhOp>([](auto) { return Opcode::VTanh; })
      .Case<VLogOp>([](auto) { return Opcode::VLog; })
      .Case<VLog1pOp>([](auto) { return Opcode::VLog1p; })
      .Case<VErfOp>([](auto) { return Opcode::VErf; })
      .Case<VAbsOp>([](auto) { return Opcode::VAbs; })
      .Case<VExpm1Op>([](auto) { return Opcode::VExpm1; })
      .Case<VFloorOp>([](auto) { return Opcode::VFloor; })
      .Case<VCeilOp>([](auto) { return Opcode::VCeil; })
      .Case<VRoundEvenOp>([](auto) { return Opcode::VRoundEven; })
      .Case<VRoundOp>([](auto) { return Opcode::VRound; })
      .Case<VSqrtOp>([](auto) { return Opcode::VSqrt; })
      .Case<VCopyOp>([](auto) { return Opcode::VCopy; })
      .Case<VTransposeOp>([](auto) { return Opcode::VTranspose; })
      .Case<VReduceSumOp>([](auto) { return Opcode::VRSum; })
      .Default([](Operation *) -> Opcode {
        llvm_unreachable("not a VPU op of getVpuOpcode");
      });
}

/// Lowers the VPU ops: binary (x, y -> out), unary (x -> out) and
/// reductions by lowerVpu, then the fields some set afterwards (max/min
/// NaN handling, the compare predicate, iota's base and direction, fill's
/// value); std::nullopt for another op.
std::optional<LogicalResult> Lowerer::lowerVpuOp(Operation *op) {
  return llvm::TypeSwitch<Operation *, std::optional<LogicalResult>>(op)
      .Case<VAddOp, VSubOp, VMulOp, VDivOp, VCopySignOp>([&](auto o) {
        return lowerVpu(o, getVpuOpcode(o), o.getX(), o.getY(), o.getOut());
      })
      .Case<VExpOp, VRsqrtOp, VTanhOp, VLogOp, VLog1pOp, VErfOp, VAbsOp,
            VExpm1Op, VFloorOp, VCeilOp, VRoundEvenOp, VRoundOp, VSqrtOp,
            VCopyOp, VTransposeOp, VReduceSumOp>([&](auto o) {
        return lowerVpu(o, getVpuOpcode(o), o.getX(), Value(), o.getOut());
      })
      .Case<VMaxOp, VMinOp>([&](auto o) -> LogicalResult {
        if (failed(
                lowerVpu(o, getVpuOpcode(o), o.getX(), o.getY(), o.getOut())))
          return failure();
        if (o.getIgnoreNan())
          program.code.back().flags |= isa::kFlagMaxNum;
        return success();
      })
      .Case<VReduceMaxOp>([&](VReduceMaxOp o) -> LogicalResult {
        if (failed(lowerVpu(o, Opcode::VRMax, o.getX(), Value(), o.getOut())))
          return failure();
        if (o.getIgnoreNan())
          program.code.back().flags |= isa::kFlagMaxNum;
        return success();
      })
      .Case<VCmpOp>([&](VCmpOp o) -> LogicalResult {
        if (failed(lowerVpu(o, Opcode::VCmp, o.getX(), o.getY(), o.getOut())))
          return failure();
        program.code.back().rd = uint8_t(o.getPredicate());
        return success();
      })
      .Case<VSelectOp>([&](VSelectOp o) {
        return lowerVpu(o, Opcode::VSelect, o.getMask(), o.getY(), o.getOut());
      })
      .Case<VIotaOp>([&](VIotaOp o) -> LogicalResult {
        FailureOr<uint8_t> base = reg(o, o.getBase());
        if (failed(base) ||
            failed(lowerVpu(o, Opcode::VIota, Value(), Value(), o.getOut())))
          return failure();
        program.code.back().rs1 = *base;
        if (o.getColumns())
          program.code.back().flags |= isa::kFlagIotaCols;
        return success();
      })
      .Case<VFillOp>([&](VFillOp o) -> LogicalResult {
        if (failed(lowerVpu(o, Opcode::VFill, Value(), Value(), o.getOut())))
          return failure();
        float v = o.getValue().convertToFloat();
        uint32_t bits;
        std::memcpy(&bits, &v, 4);
        program.code.back().s1 = uint16_t(bits);
        program.code.back().s2 = uint16_t(bits >> 16);
        return success();
      })
      .Default([](Operation *) { return std::nullopt; });
}
