//===- Device.h - The device and its step-debugger API ----------*- C++ -*-===//
//
// The "production device" of SnR §4.1, played by the functional
// simulator, as a debugger sees it: attach (load a program, stop at pc 0),
// set a breakpoint, continue to it, step one instruction, read a register,
// read memory, fetch an instruction, and read the DMA engine's state. The
// recorder (Algorithm 1) uses nothing else. On a system of several chips
// the debugger attaches to one chip: the others run along (System.h), and
// a step of the chip runs the system until that chip has executed one
// more instruction.
//
//===----------------------------------------------------------------------===//

#ifndef ACCEL_SIM_DEVICE_H
#define ACCEL_SIM_DEVICE_H

#include "accel/Sim/Simulator.h"
#include "accel/Sim/System.h"

#include <memory>

#include <optional>

namespace accel {
namespace sim {

class Device {
public:
  /// Attaches to a device loaded with `program` (HBM initialised from its
  /// buffer table), stopped before the instruction at pc 0. `config` and
  /// `program` must outlive the device. On a config of several chips, the
  /// device is chip `chip` of the system running `program` (the caller
  /// checks that it is below config.chips; another value attaches to chip
  /// 0).
  Device(const MachineConfig &config, const isa::Program &program,
         unsigned chip = 0);

  /// Stops at the `hit`-th arrival (1 = the first) at `pc`, before the
  /// instruction there executes.
  void setBreakpoint(uint32_t pc, uint64_t hit = 1);
  void clearBreakpoint() { breakpoint.reset(); }

  /// Runs until the breakpoint. Errors: a fault of the program; halting
  /// first ("the program halted after N instructions; pc P was reached H of
  /// K times"); more than `maxInstructions` executed. `progress`, if given,
  /// is called every kProgressInterval instructions.
  llvm::Error continueToBreakpoint(uint64_t maxInstructions = 1ull << 32,
                                   ProgressFn progress = nullptr);

  /// Executes one instruction of the chip (on a system, the other chips'
  /// instructions that issue before it too). Errors: a fault of any chip,
  /// a deadlock, or the chip has halted.
  llvm::Error step() {
    atBreakpoint = false;
    return stepChip();
  }

  uint32_t getPc() const { return simulator->getPc(); }
  bool isHalted() const { return simulator->isHalted(); }
  /// Instructions the chip executed since attach.
  uint64_t getInstructionCount() const {
    return simulator->getInstructionCount();
  }
  /// The chip attached to, and the chips of its system (1 alone).
  unsigned getChip() const { return simulator->getChip(); }
  unsigned getNumChips() const { return simulator->getNumChips(); }
  /// The chip's timing state (Simulator::TimingState).
  Simulator::TimingState readTimingState() const {
    return simulator->getTimingState();
  }
  /// On a system: logs what the other chips do to this chip and answer its
  /// remote DMAs from now on (System::setEventLog; `log` gets this chip's
  /// id), or stops with nullptr. No effect on a chip alone.
  void setEventLog(ChipEventLog *log) {
    if (!system)
      return;
    if (log)
      log->chip = simulator->getChip();
    system->setEventLog(log);
  }

  /// Fetches the instruction at `pc` from the code image and decodes it.
  /// Errors: pc outside the code, undecodable bytes.
  llvm::Expected<isa::Inst> readInstruction(uint32_t pc) const;
  uint64_t readRegister(unsigned r) const { return simulator->getRegister(r); }
  /// Reads `n` bytes at `addr`. Errors: the range is not inside one buffer.
  llvm::Error readMemory(isa::MemSpace space, uint64_t addr, uint64_t n,
                         uint8_t *out) {
    return simulator->getMemory().read(space, addr, n, out);
  }
  /// The DMA engine's descriptors of DMAs issued and not yet WAITed.
  const std::vector<Simulator::PendingDma> &readPendingDmas() const {
    return simulator->getPendingDmas();
  }
  /// The id the DMA engine gives the next ISSUE.
  uint32_t readNextDmaId() const { return simulator->getDmaEngine().nextId(); }

private:
  llvm::Error stepChip();
  /// The system (several chips) or the chip alone, and the chip attached.
  std::unique_ptr<System> system;
  std::unique_ptr<Simulator> alone;
  Simulator *simulator = nullptr;
  std::vector<uint8_t> codeImage; ///< the encoded instructions
  struct Breakpoint {
    uint32_t pc;
    uint64_t hit, seen = 0;
  };
  std::optional<Breakpoint> breakpoint;
  /// Stopped at the breakpoint by the last continue: the next continue
  /// steps off it before counting arrivals again.
  bool atBreakpoint = false;
};

/// Resolves a breakpoint spec to a PC through the program's origin table:
///   "pc:N"            instruction N
///   "op:ID"           the first instruction of the op with accel.op_id ID
///   "loc:FILE:LINE"   the first instruction whose origin is at LINE of a
///                     file whose path ends with the path components FILE
/// Errors name the spec and why ("no instruction comes from op id 42").
llvm::Expected<uint32_t> resolveBreakpoint(const isa::Program &program,
                                           llvm::StringRef spec);

} // namespace sim
} // namespace accel

#endif // ACCEL_SIM_DEVICE_H
