//===- System.h - A system of chips joined by ICI links ---------*- C++ -*-===//
//
// N chips (MachineConfig::chips), each a Simulator with its own HBM, VMEM,
// scalar core, MXU, VPU and DMA engine, running one SPMD program together:
// each finds its chip with chip.id, reaches the others with remote DMAs over
// the ICI links of the config's topology, and synchronises with semaphores
// that a DMA signals on completion and sem.wait waits for (docs/isa.md,
// "Chips"). This is the setting of SnR's All-Gather case study (Zarkadas et
// al., SoCC '25, §5.2.1).
//
// The simulation is deterministic: at every step the chip whose next
// instruction issues earliest goes first, ties to the lower chip id, so
// instructions commit in non-decreasing cycle order across the system and
// each ICI link serves DMAs in issue order. A sem.wait whose signals have
// not all been sent blocks its chip; when every chip that has not halted is
// blocked, the run ends in a deadlock fault naming each chip, PC and
// semaphore.
//
//===----------------------------------------------------------------------===//

#ifndef ACCEL_SIM_SYSTEM_H
#define ACCEL_SIM_SYSTEM_H

#include "accel/Sim/Simulator.h"

#include <memory>
#include <optional>
#include <vector>

namespace accel {
namespace sim {

/// What a system's run did: per chip, and the system's cycles (the last
/// chip's end: every chip halted and every DMA completed).
struct SystemSummary {
  std::vector<RunSummary> chips;
  uint64_t totalCycles = 0;
  uint64_t instructions = 0; ///< over all chips
  bool truncated = false;
};

class System : public ChipPeers {
public:
  /// `config.chips` chips running `program`; both must outlive the system.
  /// `initHbm` as for Simulator; chip c starts its HBM buffers from
  /// isa::getChipSeed(seed, c).
  System(const MachineConfig &config, const isa::Program &program,
         bool initHbm = true);

  const MachineConfig &getConfig() const { return config; }
  Simulator &getChip(unsigned c) { return *chips[c]; }
  const Simulator &getChip(unsigned c) const { return *chips[c]; }
  /// The ICI links of the topology and their reservations.
  IciNetwork &getNetwork() { return network; }
  const IciNetwork &getNetwork() const { return network; }

  /// Runs every chip to its HALT. `maxInstructions` counts the
  /// instructions of all chips; with `stopAtBudget` reaching it ends the
  /// run (truncated) instead of being a fault. Errors: the first fault of
  /// any chip ("fault at chip C pc N ..."), or a deadlock: "deadlock: no
  /// chip can go on: chip C at pc N (...): waits for K signals of
  /// semaphore S and has H; ..." (every blocked chip, then the halted
  /// ones). `progress`, if given, is called every kProgressInterval
  /// instructions (of all chips; the cycle of the chip that went last).
  llvm::Expected<SystemSummary> run(uint64_t maxInstructions = 1ull << 32,
                                    bool stopAtBudget = false,
                                    ProgressFn progress = nullptr);
  /// Commits the instruction that issues first; sets `done` when every chip
  /// has halted (nothing was executed then). Errors as run() (without the
  /// budget), and checkMemory's before the first instruction.
  llvm::Error step(bool &done);
  /// Checks, once, that the simulated memories of all the chips fit the
  /// memory available to the process (sim::checkMemoryFootprint for
  /// getNumChips() chips, plus `extras`). step() calls it without extras
  /// before the first instruction; call it first to count more, or before
  /// installing large contents. Errors: one, "machine config: chips ×
  /// vmem.bytes = ...".
  llvm::Error checkMemory(const FootprintExtras &extras = {});
  /// Ends the run: every chip's finish() at the system's last cycle.
  SystemSummary finish();
  uint64_t getInstructionCount() const { return instCount; }

  /// Logs chip `log->chip`'s exchange with the other chips from now on
  /// (ChipPeers.h): what they do to it, by its instruction count, and what
  /// they answer its remote DMAs. nullptr stops. `log` must outlive the
  /// logging.
  void setEventLog(ChipEventLog *log) { eventLog = log; }

  /// ChipPeers: the live chips and network.
  unsigned getNumChips() const override { return unsigned(chips.size()); }
  bool checksMemory() const override { return true; }
  llvm::Error checkRemoteAccess(const TileRef &tile, bool writes,
                                uint64_t cycle, uint32_t fromChip) override;
  IciTransfer send(uint32_t fromChip, uint64_t cycle, uint64_t ready,
                   llvm::ArrayRef<unsigned> route, uint64_t bytes) override;
  HbmUnits reserveHbm(uint32_t fromChip, uint32_t chip, HbmUnits from,
                      HbmUnits length, HbmUnits now) override;
  void copy(uint32_t fromChip, Memory &own, const TileRef &src,
            const TileRef &dst) override;
  void notifyIncoming(const TileRef &tile, bool writes, uint64_t complete,
                      uint32_t fromChip, uint32_t dmaId, uint32_t pc) override;
  void signal(uint32_t chip, unsigned sem, uint64_t cycle, uint32_t fromChip,
              uint32_t dmaId) override;

private:
  /// An event of the logged chip, stamped with its instruction count.
  ExternalEvent &logEvent(ExternalEvent::Kind kind);
  /// The answer being built for the logged chip's remote DMA.
  RemoteAnswer &pendingAnswer();
  const MachineConfig &config;
  const isa::Program &program;
  std::vector<std::unique_ptr<Simulator>> chips;
  IciNetwork network;
  uint64_t instCount = 0;
  bool truncated = false;
  bool memoryChecked = false;
  ChipEventLog *eventLog = nullptr;
  std::optional<RemoteAnswer> answer;
};

} // namespace sim
} // namespace accel

#endif // ACCEL_SIM_SYSTEM_H
