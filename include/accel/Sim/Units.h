//===- Units.h - The functional units of one accel core ---------*- C++ -*-===//
//
// The hardware units of the simulator, in the manner of llvm-mca's
// HardwareUnits: the scalar unit, the MXU and the VPU each execute their
// instructions on a core's state, and a timing model gives the cycles each
// instruction keeps its unit busy. The issue stage (Simulator::step) decides
// when an instruction may start (hazards, busy units, DMA slots) and charges
// the wait to a cause; the units decide what it does and how long it takes.
// The DMA engine is the fourth unit (DmaEngine.h). The timing classes of
// the opcodes come from Opcodes.def (column Cost), the numbers from the
// machine config (docs/config.md).
//
//===----------------------------------------------------------------------===//

#ifndef ACCEL_SIM_UNITS_H
#define ACCEL_SIM_UNITS_H

#include "accel/ISA/Isa.h"
#include "accel/Sim/MachineConfig.h"
#include "accel/Sim/Memory.h"

#include <array>
#include <cstdint>
#include <vector>

namespace accel {
namespace sim {

/// The architectural state an instruction reads and writes: one core's
/// registers, memory and control. Units execute on it; it outlives them.
struct CoreState {
  Memory &memory;
  std::array<uint64_t, isa::kNumRegs> &regs;
  /// The PC after the instruction (pc + 1 unless a branch is taken).
  uint32_t nextPc = 0;
  /// Set by halt.
  bool halted = false;
};

/// The cycles an instruction keeps its unit busy, from the machine config
/// (docs/config.md; docs/isa.md "Timing"):
///   scalar:  scalar.latency
///   MXU:     getMxuCycles (a systolic array, SCALE-Sim's model)
///   VPU:     vpu.pipeline_depth + ceil(rows / vpu.sublanes) *
///            ceil(cols / vpu.lanes) * cost (one pass per vector register
///            of sublanes x lanes the tile spans), cost =
///            vpu.cost.{simple,div,exp,sqrt,reduce} by the opcode's
///            CostClass
/// An instruction a calibration table of the config covers (docs/config.md,
/// "Calibration") takes the table's cycles instead, at least 1.
/// A DMA's timing is the DMA engine's (SnR Fig. 4). getLatency is
/// virtual so that another model can replace one unit's formula without
/// touching the issue stage.
class TimingModel {
public:
  explicit TimingModel(const MachineConfig &config);
  virtual ~TimingModel();
  /// Busy cycles of `inst` on its unit (0 for DMA instructions).
  virtual uint64_t getLatency(const isa::Inst &inst) const;
  /// The calibration table covering `op` (the config's first), or null.
  const CalibrationEntry *getCalibration(isa::Opcode op) const {
    return calibrated[uint8_t(op)];
  }
  /// The VPU's cycles per lane-pass for a cost class.
  unsigned getVpuCost(isa::CostClass cost) const;

  /// Cycles of C[m x n] (+)= A[m x k] * B[k x n] (m, n, k >= 1) on the
  /// config's R x C systolic MXU (R = mxu.rows, C = mxu.cols), after
  /// SCALE-Sim v2 (Samajdar et al., ISPASS 2020; its systolic_compute_ws/
  /// is/os demand matrices). The stationary operand is cut into `folds`
  /// tiles of at most R x C; each fold first loads its tile (F cycles),
  /// then streams T rows through the array, then skews and drains
  /// (R + C - 2 cycles):
  ///   mxu.dataflow  folds                      T   F
  ///   ws            ceil(k / R) * ceil(n / C)  m   R
  ///   is            ceil(k / R) * ceil(m / C)  n   R
  ///   os            ceil(m / R) * ceil(n / C)  k   0
  /// mxu.overlap false (SCALE-Sim: folds run one after another):
  ///   folds * (F + T + R + C - 2) - 1
  /// mxu.overlap true (double-buffered stationary tiles: fold i+1 loads
  /// while fold i streams, and streams right after it; the skew and drain
  /// are paid once):
  ///   F + (folds - 1) * max(T, F) + T + R + C - 2 - 1
  /// (The -1 is SCALE-Sim's count: its last cycle is numbered from 0.)
  /// At least 1 (a 1 x 1 output-stationary array with k = 1).
  static uint64_t getMxuCycles(const MachineConfig &config, uint64_t m,
                               uint64_t n, uint64_t k);

protected:
  const MachineConfig &config;
  /// By opcode byte: the table replacing its formula, or null.
  std::array<const CalibrationEntry *, 256> calibrated{};
};

/// The scalar unit: register arithmetic, scalar loads from VMEM (the
/// caller checked the address), branches and halt.
class ScalarUnit {
public:
  void execute(const isa::Inst &inst, CoreState &state) const;
};

/// The MXU's arithmetic: C[m x n] (+)= A[m x k] * B[k x n] on VMEM tiles,
/// every product summed in k order into an f32 accumulator (results are
/// bit-identical across runs). A, B and C are each f32 or bf16 (the
/// instruction's kFlagBf16Rs* bits): bf16 inputs are widened exactly (their
/// products are exact in f32), and a bf16 C is widened before accumulating
/// and rounded to nearest even once, after the last product. The caller
/// checked the tiles' bounds.
class MatrixUnit {
public:
  void execute(const isa::Inst &inst, CoreState &state);

private:
  std::vector<float> acc; ///< a block of rows of C, in f32
  /// Per row of a block: a row of a bf16 A or C, widened.
  std::vector<std::vector<float>> aRows;
  std::vector<float> bF32; ///< a bf16 B, widened
};

/// The VPU's arithmetic: elementwise binary (with row or column broadcast),
/// unary, fill and row reductions on VMEM tiles. Every input element is read
/// before any output element is written (docs/isa.md); temporaries are at
/// most an operand's span (plus a row per bf16 operand). Each operand is
/// f32 or bf16 (kFlagBf16Rs*): arithmetic is f32 on exactly widened inputs,
/// and a bf16 output is rounded to nearest even once per element (a
/// reduction's once per row, after the f32 sum). The caller checked the
/// tiles' bounds.
class VectorUnit {
public:
  void execute(const isa::Inst &inst, CoreState &state);

  /// What an instruction's walk over its tiles takes from the instruction
  /// alone, not its registers: shapes, element widths, broadcasts, row
  /// strides in bytes, and whether the tiles are walked as one long row.
  /// Units.cpp's startWalk makes it (getWalkShape).
  struct WalkShape {
    isa::Inst inst; ///< the instruction it describes, every field
    bool valid = false;
    bool reduce = false, transpose = false, binary = false, noInput = false;
    bool bcast = false, rowBcast = false;
    bool xBf16 = false, yBf16 = false, oBf16 = false;
    /// Elementwise over contiguous tiles: one row of rows * cols elements.
    bool flat = false;
    uint64_t rows = 0, cols = 0, outRows = 0, outCols = 0;
    uint64_t xStride = 0, yStride = 0, oStride = 0; ///< bytes between rows
  };
  /// The shape of the last instruction seen at each of 64 slots (by its
  /// address): an op in a loop runs again and again with only its bases
  /// changed (issue 34: making the shape was about a third of the VPU's own
  /// host instructions in a loop of 8x128 ops, callgrind).
  using WalkShapes = std::array<WalkShape, 64>;

private:
  WalkShapes walkShapes;
  std::array<std::vector<uint8_t>, 2> snapshots; ///< of x and y, when needed
  std::array<std::vector<float>, 3> rowBufs;     ///< widened x, y rows; out row
};

} // namespace sim
} // namespace accel

#endif // ACCEL_SIM_UNITS_H
