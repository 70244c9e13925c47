//===- Access.h - What an instruction reads and writes ----------*- C++ -*-===//
//
// One description of every instruction's operands, by format (Opcodes.def):
// the registers it reads and writes, and the memory tiles it reads and
// writes given the register values that hold their addresses. The simulator
// uses it for bounds checks, data hazards and race detection; the recorder
// (SnR §4.1, Algorithm 1) for deciding what minimal state to save.
//
//===----------------------------------------------------------------------===//

#ifndef ACCEL_SIM_ACCESS_H
#define ACCEL_SIM_ACCESS_H

#include "accel/ISA/Isa.h"
#include "accel/Sim/Memory.h"

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallVector.h"

namespace accel {
namespace sim {

/// A memory operand: the tile and its role ("DMA source", "MXU operand A",
/// ...) for diagnostics.
struct MemOperand {
  TileRef tile;
  const char *role = "";
};

/// Registers and memory tiles one instruction reads and writes.
struct InstAccess {
  llvm::SmallVector<uint8_t, 4> regReads, regWrites;
  llvm::SmallVector<MemOperand, 3> memReads, memWrites;
};

/// The accesses of `inst` executed on chip `chip`; `readReg(r)` gives the
/// value of register r (the address registers of memory operands, and the
/// remote chip of a dma.issue, are read through it). Tiles are on `chip`
/// except a remote DMA's source or destination, on the chip in rs3
/// (UINT32_MAX when rs3 holds a larger value). Register r0 appears like any
/// other; it always reads as zero.
InstAccess getAccesses(const isa::Inst &inst,
                       llvm::function_ref<uint64_t(unsigned)> readReg,
                       uint32_t chip = 0);
/// The same into `out` (its lists cleared first): no new lists per
/// instruction on the simulator's hot path.
void getAccesses(const isa::Inst &inst,
                 llvm::function_ref<uint64_t(unsigned)> readReg, uint32_t chip,
                 InstAccess &out);

/// A memory operand as a function of the registers: its tile is
/// `operand.tile` with the value of register `baseReg` added to its base
/// (when `hasBaseReg`).
struct OperandTemplate {
  MemOperand operand;
  bool hasBaseReg = false;
  uint8_t baseReg = 0;
};

/// The memory operands of `inst` executed on chip `chip` as templates
/// (reads, then writes, appended to `out`; `numReads` and `numWrites` set),
/// so that a simulator decodes an instruction once and computes its tiles
/// with one addition per operand (issue 34, item 4). Derived from
/// getAccesses, evaluated with every register 0 and with register r at
/// (r + 1) * 2^40: each tile must differ between the two only in its base,
/// by a multiple of 2^40 that names one register. Returns false (and
/// appends nothing) when an operand depends on the registers otherwise: a
/// remote DMA, whose chip is a register's value.
bool getAccessTemplates(const isa::Inst &inst, uint32_t chip,
                        llvm::SmallVectorImpl<OperandTemplate> &out,
                        unsigned &numReads, unsigned &numWrites);

/// Calls `fn(range)` for each contiguous byte range of `tile` (one per row,
/// or one for the whole tile when its rows are adjacent). Inline: the
/// analyzer calls it for every operand of every instruction.
template <typename Fn> void forEachRange(const TileRef &tile, Fn fn) {
  if (tile.rows == 0 || tile.cols == 0)
    return;
  if (tile.rowStride == tile.cols || tile.rows == 1) {
    fn(tile.span());
    return;
  }
  for (uint64_t r = 0; r < tile.rows; ++r) {
    uint64_t begin = tile.rowAddr(r);
    fn(AddrRange{tile.space, begin, begin + tile.rowBytes(), tile.chip});
  }
}

} // namespace sim
} // namespace accel

#endif // ACCEL_SIM_ACCESS_H
