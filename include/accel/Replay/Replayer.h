//===- Replayer.h - Trace-load and timed replay with PC check ---*- C++ -*-===//

#ifndef ACCEL_REPLAY_REPLAYER_H
#define ACCEL_REPLAY_REPLAYER_H

#include "accel/Replay/Trace.h"
#include "accel/Sim/Simulator.h"

#include "llvm/ADT/STLFunctionalExtras.h"

#include <memory>
#include <string>
#include <vector>

namespace accel {
namespace replay {

/// A trace loaded into the timing simulator (SnR §4.2): one trace-load
/// step installs the recorded registers, memory and in-flight DMAs into a
/// simulator whose memory otherwise starts as zeros; run() then executes the
/// window, checking before each instruction that the PC equals the recorded
/// one. A trace of one chip of a system (format version 4) replays that
/// chip alone: the trace-load also installs its timing state, so cycles
/// are the recorded run's, and run() applies what the other chips did to it
/// before the instruction each preceded, and answers its remote DMAs from
/// the trace (ChipPeers.h).
class Replayer {
public:
  /// Builds the config and program from the trace and checks the trace
  /// against them (Trace::validate) before allocating anything. `trace`
  /// must outlive the replayer. Errors: a config the build rejects
  /// ("trace config: ..."), a trace that does not fit its program or
  /// config ("invalid trace at byte N: ...").
  static llvm::Expected<std::unique_ptr<Replayer>> create(const Trace &trace);
  /// The same on a modified machine (SnR §4.2: the same instructions,
  /// new timing): the trace's config with the JSON object `overrideText`
  /// merged into it field by field (`sourceName` names it in errors). The
  /// program, its buffers and the recorded state must still fit the
  /// machine (Trace::validate). `changed` receives one "FIELD: OLD -> NEW"
  /// per leaf field that differs from the recorded config ("sources"
  /// left out), in field order. Errors: as create(), the config
  /// errors of MachineConfig::fromJson naming `sourceName`, and a config of
  /// more than one chip ("SOURCE: field 'chips': ..."; a trace is one
  /// chip's), and any override of a trace of a chip of a system ("SOURCE:
  /// the trace is chip C of a system of N chips, which replays on its
  /// recorded machine only ...").
  static llvm::Expected<std::unique_ptr<Replayer>>
  create(const Trace &trace, llvm::StringRef overrideText,
         llvm::StringRef sourceName, std::vector<std::string> &changed);

  /// The same on the whole machine `config` (a sweep point's): the trace's
  /// own config is not used. Errors: as create(), and a config of more
  /// than one chip ("field 'chips': ...").
  static llvm::Expected<std::unique_ptr<Replayer>>
  create(const Trace &trace, sim::MachineConfig config) {
    return build(trace, std::move(config));
  }

  /// Observers (the performance tracker) must be added before load().
  void addObserver(sim::Observer *observer) { simulator->addObserver(observer); }
  /// The trace-load step. Errors: recorded memory outside every buffer
  /// ("trace-load: memory chunk I at byte N: no buffer holds vmem [B, E)").
  llvm::Error load();
  /// Replays the window. Errors: a fault, a trace whose answers to the
  /// window's remote DMAs run out or are left over ("the trace answers N
  /// remote DMAs but the window issued M"), or the first divergence: "PC
  /// divergence at instruction I of the window: the trace has pc P (INST,
  /// op ID at LOC) but the replay is at pc Q (INST, op ID at LOC); the
  /// previous instruction was pc R (...)" (typically the branch that went
  /// the other way).
  llvm::Expected<sim::RunSummary>
  run(llvm::function_ref<void(uint64_t, uint64_t)> progress = nullptr);

  /// After run(): compares the window's results with the recorded run's
  /// (every register the window wrote, and the CRC-32 of every byte range
  /// it wrote). Errors: "functional divergence: after the window r5 is
  /// 0x... but the recorded run had 0x..." or "... the N bytes the window
  /// wrote have CRC-32 0x... but the recorded run's have 0x...", or
  /// written ranges larger than the window can write
  /// (Trace::checkWrittenSize).
  llvm::Error checkResults();

  const sim::MachineConfig &getConfig() const { return config; }
  const isa::Program &getProgram() const { return program; }
  sim::Simulator &getSimulator() { return *simulator; }

private:
  Replayer(const Trace &trace) : trace(trace) {}
  /// Checks the trace against `config` and builds the simulator.
  static llvm::Expected<std::unique_ptr<Replayer>>
  build(const Trace &trace, sim::MachineConfig config);
  const Trace &trace;
  sim::MachineConfig config;
  isa::Program program;
  /// A chip of a system: the other chips, played by the trace.
  std::unique_ptr<sim::LoggedPeers> peers;
  std::unique_ptr<sim::Simulator> simulator;
};

} // namespace replay
} // namespace accel

#endif // ACCEL_REPLAY_REPLAYER_H
