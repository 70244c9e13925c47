//===- Passes.h - accel passes ----------------------------------*- C++ -*-===//

#ifndef ACCEL_TRANSFORMS_PASSES_H
#define ACCEL_TRANSFORMS_PASSES_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassOptions.h"

#include <nlohmann/json_fwd.hpp>

#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

namespace accel {

/// What an accel transform pass changed in its last run, readable in any
/// LLVM build: the passes' ODS statistics are llvm::Statistic, which counts
/// only in builds with statistics enabled (not Debian's release build). A
/// pass derives from this beside its ODS base and reports each statistic
/// through bump(); the FDO loop (include/accel/Fdo/FdoLoop.h) reads the
/// counts after each run through a PassInstrumentation.
class ReportsChanges {
public:
  virtual ~ReportsChanges() = default;
  /// Each statistic's name (as in Passes.td) and value in the last run, in
  /// declaration order; by convention the first counts the changes made
  /// (DMAs hoisted, loops pipelined, ...).
  const std::vector<std::pair<std::string, uint64_t>> &
  getLastRunCounts() const {
    return lastRun;
  }

protected:
  /// Starts a run: every named count at 0.
  void resetCounts(std::initializer_list<const char *> names) {
    lastRun.clear();
    for (const char *name : names)
      lastRun.push_back({name, 0});
  }
  /// Adds `n` to the ODS statistic `stat` and to count `index` of this run.
  void bump(mlir::Pass::Statistic &stat, unsigned index, uint64_t n = 1) {
    stat += n;
    if (index < lastRun.size())
      lastRun[index].second += n;
  }

  /// Takes back this run's counts when the run was undone: `stats[i]` is
  /// the ODS statistic of count i; each loses what bump added, and every
  /// count of the run is 0 again.
  void undoCounts(std::initializer_list<mlir::Pass::Statistic *> stats) {
    unsigned i = 0;
    for (mlir::Pass::Statistic *stat : stats) {
      if (i < lastRun.size())
        *stat -= lastRun[i].second;
      ++i;
    }
    for (auto &count : lastRun)
      count.second = 0;
  }

private:
  std::vector<std::pair<std::string, uint64_t>> lastRun;
};

#define GEN_PASS_DECL
#include "accel/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "accel/Transforms/Passes.h.inc"

/// Options of the FDO pipeline.
struct FdoPipelineOptions
    : public mlir::PassPipelineOptions<FdoPipelineOptions> {
  Option<uint64_t> vmemCapacity{*this, "vmem-capacity",
                                llvm::cl::desc("VMEM capacity in bytes"),
                                llvm::cl::init(33554432)};
  Option<uint64_t> vmemPage{
      *this, "vmem-page",
      llvm::cl::desc("VMEM allocation granularity in bytes"),
      llvm::cl::init(1024)};
};

/// The feedback-directed transforms, in order: --accel-pin-vmem (keep
/// re-DMA'd unchanged data resident), --accel-parallelize-dma (pair
/// independent DMAs the analyzer named), --accel-hoist-dma (move stalled
/// ISSUEs earlier and out of loops), --accel-sink-dma-wait (move stalled
/// WAITs down to the first use of the data), then --accel-pipeline-dma
/// (prefetch later iterations' tiles into extra buffers), and last --cse
/// (the moves and clones leave unused address arithmetic behind, which
/// would still cost issue slots). Each accel pass reads the attributes of
/// --accel-attach-metrics as hints and proves legality itself. The accel
/// passes run on each func.func: on a `builtin.module` pass manager each is
/// added in a `func.func(...)` pass manager of its own (cse stays on the
/// module).
void buildAccelFdoPipeline(mlir::OpPassManager &pm,
                           const FdoPipelineOptions &options);
/// The passes of the FDO pipeline, in order (what buildAccelFdoPipeline
/// adds, before nesting), for drivers that run them one at a time.
std::vector<std::unique_ptr<mlir::Pass>>
createAccelFdoPasses(const FdoPipelineOptions &options);
/// Registers --accel-fdo-pipeline.
void registerAccelFdoPipeline();

/// The largest count or cycle value a metrics.json may give (2^48, about
/// three days at 1 GHz): larger ones are an error, so passes that add a few
/// metrics never overflow int64_t.
constexpr int64_t kMaxMetricValue = int64_t(1) << 48;

/// A DMA of metrics.json's "dmas" as attachMetrics reads it: its op id and
/// the cycles of its ISSUE, transfer start and completion.
struct DmaTimes {
  int64_t opId = 0, issue = 0, transferStart = 0, complete = 0;
};

/// Attaches the per-op entries of a parsed metrics.json to `module` (see the
/// accel-attach-metrics pass). `dmas`, when given, are its "dmas" held
/// apart from the tree (a run's metrics in memory keep them as a table,
/// issue 34); null: read from `metrics`. Returns the number of ops that got
/// metrics; stale ids (no op carries them, or an op of another name does) and
/// missing ids are reported as one warning each. Fails, after one error at
/// the module's location, when `metrics` is not of the schema version this
/// build reads, a field it uses has the wrong type or an out-of-range value
/// (the error names the field), or its "program_fingerprint" is not the
/// module's (getProgramFingerprint); with `force`, a differing fingerprint
/// is one warning instead.
mlir::FailureOr<unsigned>
attachMetrics(mlir::ModuleOp module, const nlohmann::json &metrics,
              unsigned *numStale = nullptr, bool force = false,
              const std::vector<DmaTimes> *dmas = nullptr);

} // namespace accel

#endif // ACCEL_TRANSFORMS_PASSES_H
