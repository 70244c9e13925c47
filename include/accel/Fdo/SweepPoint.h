//===- SweepPoint.h - One point of a config sweep ---------------*- C++ -*-===//
//
// What `accel-replay sweep` does on each point of its grid (docs/sweep.md):
// a program is parsed, converted, lowered and run on the point's machine,
// then optimized by the FDO loop; a trace's window is replayed on it (SnR,
// Zarkadas et al., SoCC '25, §4.2: one recorded run, many machines). Also
// the checks made once before any point runs, and the shard's configs.
//
//===----------------------------------------------------------------------===//

#ifndef ACCEL_FDO_SWEEPPOINT_H
#define ACCEL_FDO_SWEEPPOINT_H

#include "accel/Fdo/FdoLoop.h"
#include "accel/Fdo/Run.h"
#include "accel/Fdo/Sweep.h"

#include "llvm/Support/Error.h"

#include <optional>
#include <string>
#include <vector>

namespace mlir {
class DialectRegistry;
} // namespace mlir

namespace accel {
namespace replay {
struct Trace;
} // namespace replay

/// How every point of a program sweep builds, runs and optimizes the
/// program: the options of `accel-replay run` and `fdo`.
struct SweepProgramOptions {
  /// The input's name in diagnostics and fdo.json.
  std::string inputName;
  /// `--bind NAME=D0xD1x...` specs (getShapeBindings), already checked.
  std::vector<std::string> bindSpecs;
  /// The run of each point (its stopAtBudget is ignored: a point runs to
  /// its halt).
  RunOptions run;
  /// Whether the FDO loop runs after the plain run.
  bool runFdo = true;
  /// The FDO loop's options (iterations, passes, run, inputName).
  FdoOptions fdo;
};

/// One point of a program sweep: parses `source`, converts it (frontend
/// passes, the module's chip count adopted), lowers and runs it on `config`
/// in an MLIRContext of its own built from `registry` (so points may run on
/// several threads), then runs the FDO loop when `options.runFdo`. A
/// failure is the row's error: the first diagnostic (naming the location)
/// and the error that stopped it, "fdo: ..." for the loop's.
SweepRow evaluateProgramPoint(const mlir::DialectRegistry &registry,
                              llvm::StringRef source, sim::MachineConfig config,
                              const SweepProgramOptions &options);

/// One point of a trace sweep: the window of `trace` replayed on `config`
/// with the DMA stall collector and the analyzer attached (`run`'s analyzer
/// options), its results checked against the recorded ones. A failure
/// (the config does not fit the trace, a fault, a result mismatch) is the
/// row's error.
SweepRow evaluateTracePoint(const replay::Trace &trace,
                            sim::MachineConfig config, const RunOptions &run);

/// What a program sweep checks once before any point runs, on the parsed
/// and converted `module` (docs/sweep.md): the entry function `entry`
/// exists and the FDO loop's passes and trial passes parse with valid
/// options on `config`. Each point would otherwise fail alike. Errors:
/// "--entry: ...", "--passes: ...", "--trial-passes: ...".
llvm::Error checkSweepProgram(mlir::ModuleOp module,
                              const sim::MachineConfig &config,
                              const SweepProgramOptions &options);

/// The configs of the points of `grid` that `shard` runs, each `base` with
/// the point's values (SweepGrid::getConfig), indexed by point (nullopt for
/// the other shards' points). Every config is built before any point runs,
/// so a bad --set is one error. With `singleChip` (a trace: one chip's
/// execution), a point of several chips is an error naming it.
llvm::Expected<std::vector<std::optional<sim::MachineConfig>>>
getShardConfigs(const SweepGrid &grid, const SweepShard &shard,
                const sim::MachineConfig &base, bool singleChip);

/// The rows as an aligned table, as `accel-replay sweep` prints them:
/// point, each axis's value, cycles, DMA stall (total, base, transfer),
/// MXU %, peak VMEM in KiB, and with FDO the best cycles and the change
/// ("-45.6%", " DIFFER" when results differed); a failed point's error
/// spans the rest of its line. sweep.csv has every column.
std::string formatSweepTable(const SweepGrid &grid,
                             const std::vector<SweepRow> &rows);

} // namespace accel

#endif // ACCEL_FDO_SWEEPPOINT_H
