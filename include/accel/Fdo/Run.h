//===- Run.h - Lower, simulate and analyze one accel program ----*- C++ -*-===//
//
// The steps that `accel-replay run` and the FDO loop share: lower a module
// to machine code (lib/Target/AccelToISA), run it on the GRM with the
// DMA stall collector and the analyzer attached as performance trackers
// (SnR, Zarkadas et al., SoCC '25, §4.2-4.3), and write the run's outputs.
//
//===----------------------------------------------------------------------===//

#ifndef ACCEL_FDO_RUN_H
#define ACCEL_FDO_RUN_H

#include "accel/ISA/Isa.h"
#include "accel/Profile/DmaTable.h"
#include "accel/Sim/MachineConfig.h"
#include "accel/Sim/Simulator.h"
#include "accel/Target/AccelToISA.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/Error.h"

#include <nlohmann/json_fwd.hpp>

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace accel {
namespace replay {
class Replayer;
} // namespace replay
namespace profile {
class Analyzer;
class DmaStallCollector;
} // namespace profile

/// Initial contents of one HBM argument (from `--input`, NpyIO.h).
struct HbmInput {
  /// Position of the argument in the entry function (its buffer "%argN").
  unsigned argIndex = 0;
  /// Where the contents came from (for messages).
  std::string source;
  /// Row-major contents, little-endian f32, bf16 or i32: the argument's
  /// bytes.
  std::vector<uint8_t> bytes;
  /// For a bf16 argument read from an f32 file: how many of its values were
  /// not bf16 values and were rounded to nearest even (0 otherwise).
  uint64_t roundedValues = 0;
};

/// Bytes of memory the analyses hold per simulated instruction, measured
/// (bench/RESULTS.md, "Instruction budget"): about 0.9-1.6 KiB with the
/// analyzer, a few hundred bytes without.
constexpr uint64_t kAnalyzerBytesPerInstruction = 2048;
constexpr uint64_t kCollectorBytesPerInstruction = 512;
/// Bytes the trackers and a chip's metrics hold per chip whatever the
/// program, and the analyzer per VMEM page (vmem.bytes / vmem.page_bytes),
/// measured with 1024 chips (issue 31): about 470 KiB and 43 bytes with the
/// analyzer, 230 KiB without. The footprint check (sim::checkMemoryFootprint)
/// counts them per chip.
constexpr uint64_t kAnalyzerBytesPerChip = 512 * 1024;
constexpr uint64_t kAnalyzerBytesPerVmemPage = 64;
constexpr uint64_t kCollectorBytesPerChip = 256 * 1024;

/// The range of the default instruction budget. The floor is low: under a
/// tight memory limit a short run is better than an abort.
constexpr uint64_t kMinInstructionBudget = 1ull << 16;
constexpr uint64_t kMaxInstructionBudget = 1ull << 32;

/// The default instruction budget: as many instructions as half of the
/// memory available to this process now (accel::availableMemoryBytes: the
/// least of MemAvailable, RLIMIT_AS and RLIMIT_DATA less what the process
/// uses, and its cgroup's limit less the cgroup's usage) can record at the
/// bytes per instruction above, clamped to [kMinInstructionBudget,
/// kMaxInstructionBudget]. A run that reaches it stops
/// (RunOptions::stopAtBudget) instead of growing until an allocation fails.
uint64_t getDefaultInstructionBudget(bool analyze);
/// The same for `availableBytes` bytes of available memory (pure).
uint64_t getDefaultInstructionBudget(bool analyze, uint64_t availableBytes);

/// profile::TimelineLimits's defaults (checked in Run.cpp), here without
/// the analyzer's header.
constexpr uint64_t kDefaultTimelineMaxSlices = 100000,
                   kDefaultTimelineMaxDmas = 50000;

/// How a program is run.
struct RunOptions {
  /// Function to run; empty: "main", or the only function.
  std::string entry;
  /// A run that executes more instructions stops: with an error, or with
  /// `stopAtBudget` as a truncated run (metrics of what ran, marked
  /// "truncated").
  uint64_t maxInstructions = 1ull << 32;
  bool stopAtBudget = false;
  /// Time bucket width (cycles) of the utilization and VMEM analyses; 0:
  /// about 200 buckets.
  uint64_t bucketCycles = 0;
  /// Run the analyzer (utilization, VMEM, dependencies, suggestions,
  /// roofline, timeline); false keeps only the DMA stall analysis.
  bool analyze = true;
  /// At most this many MXU/VPU slices per unit and DMAs per chip are drawn
  /// in timeline.json (profile::TimelineLimits).
  uint64_t timelineMaxSlices = kDefaultTimelineMaxSlices,
           timelineMaxDmas = kDefaultTimelineMaxDmas;
  /// Initial contents of HBM arguments, replacing the default initial
  /// values (isa::initValue); each must have its argument's size.
  std::vector<HbmInput> inputs;
  /// Keep the final contents of every HBM buffer (RunResult::hbmBuffers).
  bool keepHbm = false;
  /// Progress of a long run, for a tool's progress line: called with the
  /// step "simulating" every sim::kProgressInterval instructions (the
  /// instructions executed so far, over all chips, and the cycle reached),
  /// then once with "analyzing" (the trackers' results and the timeline)
  /// and the run's totals. Empty: not called.
  std::function<void(llvm::StringRef step, uint64_t instructions,
                     uint64_t cycle)>
      onProgress;
};

/// What timeline.json is written from once a run has finished: the run's
/// analyzers (one per chip), the program and machine config they refer to
/// (copies: the timeline may outlive the run's own), and the part of each
/// chip's metrics the timeline draws (its utilization and VMEM counters).
/// A run keeps this instead of the text (tens of MB for the Llama MLP):
/// the text is written straight to its file when the run's outputs are
/// written, and never for a run whose outputs are not kept (an fdo trial
/// that lost, a sweep point; issue 34). Holds the analyzers' memory (about
/// 125 bytes per instruction, bench/RESULTS.md) until destroyed.
class RunTimeline {
public:
  /// Analyzers for `chips` chips running `program` on `config`, drawing as
  /// much as `options` says (RunOptions::timelineMaxSlices, ...).
  RunTimeline(const isa::Program &program, const sim::MachineConfig &config,
              unsigned chips, const RunOptions &options);
  ~RunTimeline();
  RunTimeline(const RunTimeline &) = delete;
  RunTimeline &operator=(const RunTimeline &) = delete;

  /// Chip `chip`'s analyzer, to attach to its simulator or replayer.
  profile::Analyzer &getAnalyzer(unsigned chip);
  const profile::Analyzer &getAnalyzer(unsigned chip) const;
  unsigned getNumChips() const { return unsigned(analyzers.size()); }
  /// Keeps what the timeline draws of chip `chip`'s finished metrics
  /// (Analyzer::addToMetrics's result).
  void setMetrics(unsigned chip, const nlohmann::json &metrics);
  /// Writes timeline.json (Chrome Trace Event format, Perfetto; one process
  /// per chip, profile::writeSystemTimeline). Every setMetrics must have
  /// been called.
  void write(llvm::raw_ostream &os) const;

private:
  isa::Program program;
  sim::MachineConfig config;
  std::vector<std::unique_ptr<profile::Analyzer>> analyzers;
  std::vector<nlohmann::json> metrics;
};

/// A new, empty metrics document (a JSON null, as a default-constructed
/// nlohmann::json): what a RunResult or an FDO iteration holds before its
/// run is analyzed. Defined out of line so that this header needs only
/// nlohmann/json_fwd.hpp.
std::shared_ptr<nlohmann::json> makeEmptyMetrics();

/// One simulated run and its analysis.
struct RunResult {
  sim::RunSummary summary;
  /// metrics.json (docs/metrics.md) but for its "dmas"; never null. Shared
  /// by the copies of a result and by the fdo iteration that ran it.
  std::shared_ptr<nlohmann::json> metrics = makeEmptyMetrics();
  /// metrics.json's "dmas", held as rows (profile::DmaTable; 95% of a
  /// Llama MLP run's metrics) and written in place by writeMetricsFile;
  /// null before the run is analyzed. Shared like `metrics`.
  std::shared_ptr<profile::DmaTable> dmas;
  /// metrics.json's "vmem" "heatmap", held as rows (profile::VmemHeatmap)
  /// and written in place by writeMetricsFile; null when `metrics` holds
  /// it (a chip of a system) or without the analyzer. Shared like `metrics`.
  std::shared_ptr<const profile::VmemHeatmap> vmemHeatmap;
  /// What timeline.json is written from (RunTimeline::write); null without
  /// the analyzer. Reset it to free the analyzers' memory early.
  std::shared_ptr<const RunTimeline> timeline;
  /// The HBM pages the run wrote (final contents), by page address; shared
  /// by the copies of a result (never null after a run).
  std::shared_ptr<const std::map<uint64_t, std::vector<uint8_t>>> hbm;
  /// xxh3-64 over the final contents of every HBM buffer, in buffer order
  /// (each buffer's hash, then the hash of those): equal for two programs
  /// whose HBM arguments end equal. Also metrics.json's "hbm_hash".
  uint64_t hbmHash = 0;
  /// With RunOptions::keepHbm: final contents of each HBM buffer, in the
  /// order of program.buffers' HBM entries.
  std::vector<std::vector<uint8_t>> hbmBuffers;
  /// With RunOptions::keepHbm on a system: chip c's (c >= 1) at [c - 1].
  std::vector<std::vector<std::vector<uint8_t>>> chipHbmBuffers;
  isa::Program program;
};

/// The lowering options a machine config implies (VMEM and HBM capacity in
/// bytes, VMEM page alignment).
LoweringOptions getLoweringOptions(const sim::MachineConfig &config,
                                   llvm::StringRef entry);

/// `hash` as metrics.json's "hbm_hash" writes it: "0x" and 16 hex digits.
std::string formatHbmHash(uint64_t hash);

/// Lowers `module` and runs it to its halt on `config`, with the HBM
/// arguments of `options.inputs` installed first. Errors: "lowering
/// failed" (the diagnostics went to the context's handler), an input that
/// names no HBM argument or has another size, or the simulated fault
/// (naming the PC, instruction and MLIR location).
llvm::Expected<RunResult> simulateModule(mlir::ModuleOp module,
                                         const sim::MachineConfig &config,
                                         const RunOptions &options);

/// The lowering step of simulateModule: `module`'s function `entry` (empty:
/// "main", or the only function) as machine code for `config`. Errors:
/// "lowering failed" (the diagnostics went to the context's handler).
llvm::Expected<isa::Program> lowerModule(mlir::ModuleOp module,
                                         const sim::MachineConfig &config,
                                         llvm::StringRef entry);

/// The simulation step of simulateModule: runs a lowered program. Errors
/// as simulateModule's, but for lowering.
llvm::Expected<RunResult> simulateProgram(isa::Program program,
                                          const sim::MachineConfig &config,
                                          const RunOptions &options);

/// Fills `r.metrics` (and, with `options.analyze`, the analyzer's sections
/// and `r.timeline`) from the performance trackers of a finished run or
/// replay of `r.program`: the collector and chip `chip`'s analyzer of
/// `timeline` (which must have observed the run when `options.analyze`);
/// `r.summary` must be set.
void finishAnalysis(RunResult &r, const sim::MachineConfig &config,
                    const profile::DmaStallCollector &collector,
                    const std::shared_ptr<RunTimeline> &timeline, unsigned chip,
                    const RunOptions &options);

/// How replayWindow runs a trace's window.
struct ReplayWindowOptions {
  /// Attach the analyzer (metrics.json's analyzer sections, timeline.json).
  bool analyze = true;
  /// Skip the MXU/VPU arithmetic (Simulator::setTimingOnly); the results
  /// are then not checked.
  bool timingOnly = false;
  /// Called with the instructions replayed and the window's total.
  llvm::function_ref<void(uint64_t done, uint64_t total)> onProgress = nullptr;
  /// Called when the replay has ended, before the results are checked and
  /// analyzed.
  llvm::function_ref<void()> onAnalyze = nullptr;
};

/// Replays the window of `replayer` (created, nothing loaded yet) with the
/// DMA stall collector and, with `window.analyze`, the analyzer attached
/// as performance trackers (SnR, Zarkadas et al., SoCC '25, §4.2), checks
/// its results against the recorded run (unless timing-only), and fills
/// the result's metrics (finishAnalysis with `options`). Errors: the load's
/// (the trace does not fit the machine), the replay's (a fault, a PC
/// sequence that leaves the trace's; with timingOnly, a hint that control
/// may depend on the skipped arithmetic), the results' mismatch.
llvm::Expected<RunResult> replayWindow(replay::Replayer &replayer,
                                       const RunOptions &options,
                                       const ReplayWindowOptions &window);

/// The VMEM bytes a program's static allocation spans (the end of its
/// highest VMEM buffer).
uint64_t getPeakVmemBytes(const isa::Program &program);

/// Writes timeline.json of `r` to `path` (writeOutput: staged, replaced
/// whole); nothing without a timeline.
llvm::Error writeTimelineFile(llvm::StringRef path, const RunResult &r);

/// Writes metrics.json of `r` (its metrics with its DMA table as "dmas",
/// profile::writeMetricsJson) to `path` (writeOutput: staged, replaced
/// whole; "-" is stdout).
llvm::Error writeMetricsFile(llvm::StringRef path, const RunResult &r);

/// Writes metrics.json, timeline.json, report.txt, program.lst and
/// program.mlir of `r` (and `module`) into `dir`, creating it.
llvm::Error writeRunOutputs(llvm::StringRef dir, const RunResult &r,
                            mlir::ModuleOp module);

} // namespace accel

#endif // ACCEL_FDO_RUN_H
