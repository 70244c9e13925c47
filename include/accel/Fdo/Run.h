//===- Run.h - Lower, simulate and analyze one accel program ----*- C++ -*-===//
//
// The steps that `accel-replay run` and the FDO loop share: lower a module
// to machine code (lib/Conversion/AccelToISA), run it on the GRM with the
// DMA stall collector and the analyzer attached as performance trackers
// (SnR, Zarkadas et al., SoCC '25, §4.2-4.3), and write the run's outputs.
//
//===----------------------------------------------------------------------===//

#ifndef ACCEL_FDO_RUN_H
#define ACCEL_FDO_RUN_H

#include "accel/Conversion/AccelToISA.h"
#include "accel/ISA/Isa.h"
#include "accel/Sim/MachineConfig.h"
#include "accel/Sim/Simulator.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/Error.h"

#include <nlohmann/json.hpp>

#include <map>
#include <string>
#include <vector>

namespace accel {
namespace analysis {
class Analyzer;
class DmaStallCollector;
} // namespace analysis

/// How a program is run.
struct RunOptions {
  /// Function to run; empty: "main", or the only function.
  std::string entry;
  /// A run that executes more instructions stops with an error.
  uint64_t maxInstructions = 1ull << 32;
  /// Time bucket width (cycles) of the utilization and VMEM analyses; 0:
  /// about 200 buckets.
  uint64_t bucketCycles = 0;
  /// Run the analyzer (utilization, VMEM, dependencies, suggestions,
  /// roofline, timeline); false keeps only the DMA stall analysis.
  bool analyze = true;
};

/// One simulated run and its analysis.
struct RunResult {
  sim::RunSummary summary;
  /// metrics.json (docs/metrics.md).
  nlohmann::json metrics;
  /// timeline.json text (Chrome Trace Event); empty without the analyzer.
  std::string timeline;
  /// The HBM pages the run wrote (final contents), by page address.
  std::map<uint64_t, std::vector<uint8_t>> hbm;
  isa::Program program;
};

/// The lowering options a machine config implies (VMEM and HBM capacity in
/// bytes, VMEM page alignment).
LoweringOptions getLoweringOptions(const sim::MachineConfig &config,
                                   llvm::StringRef entry);

/// Lowers `module` and runs it to its halt on `config`. Errors: "lowering
/// failed" (the diagnostics went to the context's handler), or the
/// simulated fault (naming the PC, instruction and MLIR location).
llvm::Expected<RunResult> simulateModule(mlir::ModuleOp module,
                                         const sim::MachineConfig &config,
                                         const RunOptions &options);

/// Fills `r.metrics` (and, with `options.analyze`, the analyzer's sections
/// and `r.timeline`) from the performance trackers of a finished run or
/// replay of `r.program`; `r.summary` must be set.
void finishAnalysis(RunResult &r, const sim::MachineConfig &config,
                    const analysis::DmaStallCollector &collector,
                    const analysis::Analyzer &analyzer,
                    const RunOptions &options);

/// The VMEM bytes a program's static allocation spans (the end of its
/// highest VMEM buffer).
uint64_t getPeakVmemBytes(const isa::Program &program);

/// Writes `text` to `path` through a temporary file and a rename, so a
/// failed run never leaves a partial file.
llvm::Error writeFileAtomically(llvm::StringRef path, llvm::StringRef text);

/// Writes metrics.json, timeline.json, report.txt, program.lst and
/// program.mlir of `r` (and `module`) into `dir`, creating it.
llvm::Error writeRunOutputs(llvm::StringRef dir, const RunResult &r,
                            mlir::ModuleOp module);

} // namespace accel

#endif // ACCEL_FDO_RUN_H
