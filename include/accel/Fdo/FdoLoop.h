//===- FdoLoop.h - The feedback-directed optimization loop ------*- C++ -*-===//
//
// The FDO loop of SnR (Zarkadas et al., SoCC '25, §5.3) as a library: run a
// program on the GRM, attach the metrics to its ops, transform it with a
// pass pipeline (verifying the IR after every pass), re-lower, re-run,
// compare the final HBM with iteration 0's bit for bit, and keep the
// fastest correct program. `accel-replay fdo` and the differential tester
// (bench/fuzz_fdo.py) call it; tools only parse options and print.
//
//===----------------------------------------------------------------------===//

#ifndef ACCEL_FDO_FDOLOOP_H
#define ACCEL_FDO_FDOLOOP_H

#include "accel/Fdo/Run.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/Support/Error.h"

#include <nlohmann/json_fwd.hpp>

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace accel {

/// Options of the FDO loop.
struct FdoOptions {
  /// At most this many optimized iterations after the baseline (iteration
  /// 0); the loop ends earlier at the first iteration that is not faster
  /// than the best so far.
  unsigned iterations = 10;
  /// The transforms of each iteration as an MLIR textual pass pipeline on
  /// builtin.module (accel-opt's syntax), nested implicitly as mlir-opt's
  /// command line does: "accel-hoist-dma,cse" runs accel-hoist-dma on each
  /// func.func and cse on the module; empty: the passes of
  /// --accel-fdo-pipeline with the config's VMEM capacity.
  std::string passPipeline;
  /// Passes tried on each iteration's transformed program (a textual
  /// pipeline, as passPipeline): the candidate they produce is lowered and
  /// run too, and replaces the iteration's program only if it is correct
  /// and faster. For transforms whose cost model can be wrong (the list
  /// scheduler's): the measurement decides. nullopt: --accel-schedule when
  /// passPipeline is empty (the default FDO pipeline), else none; "": none.
  std::optional<std::string> trialPipeline;
  /// How each program is run.
  RunOptions run;
  /// Directory for iterN/{metrics.json,...}, best.mlir and fdo.json; empty:
  /// nothing is written.
  std::string outputDir;
  /// The input's name, recorded in fdo.json.
  std::string inputName;
  /// Called after each iteration (ran or failed), e.g. to print its row.
  std::function<void(const struct FdoIteration &)> onIteration;
  /// Called as each iteration starts a step, for a progress line:
  /// "transforming" (the passes), "running" (lower, simulate, analyze:
  /// run.onProgress follows) or "unchanged: reusing the run of the same
  /// program" (the passes changed nothing lowering reads: the best
  /// program's run, or the iteration's for its trial, stands for this one,
  /// as the simulator is deterministic), and "trial: transforming",
  /// "trial: running" for the trial passes' candidate.
  std::function<void(unsigned iteration, llvm::StringRef step)> onStep;
};

/// One pass of an iteration's pipeline and what it reported.
struct FdoPassRun {
  /// The pass argument (e.g. "accel-hoist-dma"), or the textual pipeline
  /// of a nested one (e.g. "func.func(cse)").
  std::string name;
  /// The counts an accel pass reports of its run (its Passes.td
  /// statistics, through accel::ReportsChanges), in declaration order;
  /// empty for other passes.
  std::vector<std::pair<std::string, uint64_t>> statistics;
  /// The pass's first statistic: by the convention of Passes.td, the number
  /// of changes it made (DMAs hoisted, loops pipelined, ...); nullopt for a
  /// pass without statistics.
  std::optional<uint64_t> changes;
};

/// Why an optimized iteration was rejected.
struct FdoFailure {
  enum class Kind {
    Pass,     ///< a pass signalled failure or emitted an error
    Crash,    ///< a pass or the verifier crashed (signal caught)
    Verify,   ///< the IR did not verify after a pass
    Lower,    ///< lowering to machine code failed
    Fault,    ///< the simulated program faulted
    Mismatch, ///< the final HBM differs from iteration 0's
  };
  Kind kind;
  /// The pass after which it happened (Pass, Crash, Verify); else empty.
  std::string pass;
  /// The diagnostics, the fault text, or the first differing address.
  std::string message;
  /// Where the IR the failing pass received was written (Pass, Crash,
  /// Verify, with an output directory); else empty.
  std::string reproducer;

  /// What happened, in words: "the IR did not verify after pass 'X'".
  std::string describe() const;
  /// "pass", "crash", "verify", "lower", "fault" or "mismatch".
  static llvm::StringRef getKindName(Kind kind);
};

/// One iteration of the loop.
struct FdoIteration {
  unsigned index = 0;
  /// The passes run before this iteration's program was lowered (none for
  /// iteration 0), in order; with the trial passes at the end when their
  /// candidate was kept.
  std::vector<FdoPassRun> passes;
  /// The trial (FdoOptions::trialPipeline) of this iteration, if one ran:
  /// its passes, its candidate's cycles (0 if it did not run) and whether
  /// the candidate replaced the iteration's program.
  std::vector<FdoPassRun> trialPasses;
  uint64_t trialCycles = 0;
  bool trialKept = false;
  /// Set when the iteration was rejected; the fields below are then only
  /// valid if `ran`.
  std::optional<FdoFailure> failure;
  /// Whether the program ran (to its halt, or to the instruction budget:
  /// `truncated`).
  bool ran = false;
  /// Iteration 0 reached the instruction budget (RunOptions::
  /// maxInstructions) before its halt: its numbers and metrics cover the
  /// instructions that ran (metrics "truncated") and the loop stops, as
  /// results cannot be compared with those of a partial run.
  bool truncated = false;
  uint64_t totalCycles = 0, instructions = 0;
  uint64_t dmaStallBaseCycles = 0, dmaStallTransferCycles = 0;
  double mxuUtilization = 0;
  /// The VMEM its static allocation spans, bytes.
  uint64_t vmemBytes = 0;
  bool resultsMatch = false;
  /// The run's metrics.json but for its "dmas" (shared with the run);
  /// never null.
  std::shared_ptr<const nlohmann::json> metrics = makeEmptyMetrics();
  /// The run's "dmas" (RunResult::dmas); null until it ran.
  std::shared_ptr<const profile::DmaTable> dmas;
};

/// The outcome of the loop.
struct FdoResult {
  std::vector<FdoIteration> iterations;
  /// The fastest iteration whose program verified, ran and matched
  /// iteration 0 (ties: the earlier one).
  unsigned bestIteration = 0;
  /// That iteration's program.
  mlir::OwningOpRef<mlir::ModuleOp> bestProgram;

  /// The rejected iteration, if any (the loop stops at the first).
  const FdoIteration *getFailedIteration() const;
  /// fdo.json (schema "accel-fdo", docs/metrics.md#fdojson), with the
  /// summary's lower bounds taken from iteration 0 and the best iteration.
  nlohmann::json toJson(const FdoOptions &options,
                        const sim::MachineConfig &config) const;
};

/// The pass pipelines of one FDO iteration, one textual pipeline per pass
/// of `options.passPipeline` (or of the default FDO pipeline): a function
/// pass comes as "func.func(PASS)", a group the user nested stays one
/// element ("func.func(A,B)"). Errors name
/// the problem ("--passes: ..." style, from MLIR's pipeline parser): an
/// empty element (",", "a,,b", a trailing comma, only blanks), an unknown
/// pass, or an option value a pass refuses (its name, the option and the
/// values it accepts; each accel pass checks its options when parsed).
llvm::Expected<std::vector<std::string>>
getFdoPassPipelines(mlir::MLIRContext *context, const FdoOptions &options,
                    const sim::MachineConfig &config);

/// The trial passes of one FDO iteration (FdoOptions::trialPipeline, or
/// its default), one textual pipeline per pass; empty for none. Errors as
/// getFdoPassPipelines.
llvm::Expected<std::vector<std::string>>
getFdoTrialPipelines(mlir::MLIRContext *context, const FdoOptions &options);

/// Both checks of a command that runs the loop, made once before anything
/// runs or is written: getFdoPassPipelines on `config` and
/// getFdoTrialPipelines. Errors are theirs, prefixed with the option that
/// gave the pipeline: "--passes: ..." or "--trial-passes: ...".
llvm::Error checkFdoPipelines(mlir::MLIRContext *context,
                              const FdoOptions &options,
                              const sim::MachineConfig &config);

/// Runs the loop on `module` (given op ids first, --accel-assign-op-ids;
/// `module` itself is otherwise left as it is: each iteration transforms a
/// copy). Iteration i > 0 attaches iteration i-1's metrics, runs the passes
/// one at a time, verifies the IR after each, assigns ids to new ops,
/// lowers, runs and compares; then runs the trial passes on a copy the same
/// way and keeps whichever of the two programs is faster (a trial that
/// fails in any of these steps rejects the iteration, as a failing pass
/// does). The loop ends after `options.iterations`, at
/// the first iteration that is not faster than the best so far (the
/// passes are deterministic: another iteration would repeat it), or at the
/// first rejected iteration (FdoResult::getFailedIteration): the best
/// earlier program is kept. Iteration 0 runs to the instruction budget at
/// most (FdoIteration::truncated: the loop ends after it); an optimized
/// iteration that goes past it faults (it is rejected).
///
/// Errors (bad input, nothing kept): the pipeline does not parse, the
/// module does not verify, iteration 0 fails to lower or faults, or an
/// output file cannot be written.
llvm::Expected<FdoResult> runFdoLoop(mlir::ModuleOp module,
                                     const sim::MachineConfig &config,
                                     const FdoOptions &options);

} // namespace accel

#endif // ACCEL_FDO_FDOLOOP_H
