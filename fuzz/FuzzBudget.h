//===- FuzzBudget.h - The work bound of the fuzz harnesses -------*- C++
//-*-===//
//
// A harness bounds its simulator runs by instructions and by work: one
// instruction of the ISA may touch far more elements than the machine's
// VMEM holds (a 65535 x 65535 vpu.sub with stride 0 reads one row over and
// over), so an instruction budget alone does not keep a run short. A run is
// stopped, as a clean rejection, before the instruction that would take
// its work past kMaxWork. This is a limit of the harness, not of the
// simulator: such programs are valid and `accel-replay run` runs them.
//
//===----------------------------------------------------------------------===//

#ifndef ACCEL_FUZZ_FUZZBUDGET_H
#define ACCEL_FUZZ_FUZZBUDGET_H

#include "accel/ISA/Isa.h"
#include "accel/Sim/Simulator.h"

#include "llvm/Support/Error.h"

#include <cstdint>

namespace accel::fuzz {

/// Elements a run may touch: about a second under ASan and UBSan.
constexpr uint64_t kMaxWork = 1ull << 23;

/// The elements `inst` touches (docs/isa.md, "Formats"): rows * cols (fields
/// a and b) for a DMA or VPU instruction, m * k * n (a, b, s1) for an MXU
/// matmul, and 1 for a scalar instruction.
inline uint64_t getWork(const isa::Inst &inst) {
  switch (isa::info(inst.op).unit) {
  case isa::Unit::Scalar:
    return 1;
  case isa::Unit::Mxu:
    return uint64_t(inst.a) * inst.b * inst.s1 + 1;
  case isa::Unit::Dma:
  case isa::Unit::Vpu:
    return uint64_t(inst.a) * inst.b + 1;
  }
  return 1;
}

/// Steps `simulator` over `program` until HALT, a fault, `maxInstructions`
/// or the work bound; a fault is consumed (a clean rejection). Returns
/// whether the program ran to HALT, so a caller can go on with finish().
inline bool runBounded(sim::Simulator &simulator, const isa::Program &program,
                       uint64_t maxInstructions) {
  uint64_t work = 0;
  for (uint64_t n = 0; !simulator.isHalted(); ++n) {
    uint32_t pc = simulator.getPc();
    if (n >= maxInstructions)
      return false;
    if (pc < program.code.size()) {
      work += getWork(program.code[pc]);
      if (work > kMaxWork)
        return false;
    }
    if (llvm::Error e = simulator.step()) {
      llvm::consumeError(std::move(e));
      return false;
    }
  }
  return true;
}

} // namespace accel::fuzz

#endif // ACCEL_FUZZ_FUZZBUDGET_H
