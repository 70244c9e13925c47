//===- Tool.h - What the parts of accel-replay share ------------*- C++ -*-===//
//
// accel-replay is one tool in several files (Options.cpp, accel-replay.cpp,
// TraceCommands.cpp, PlotCommand.cpp, SweepCommand.cpp): the command line
// (llvm::cl subcommands and their options) and the helpers every
// subcommand uses. The work itself is in the libraries (lib/Fdo,
// lib/Replay, lib/Analysis); this is the command line around it.
//
//===----------------------------------------------------------------------===//

#ifndef ACCEL_TOOLS_ACCEL_REPLAY_TOOL_H
#define ACCEL_TOOLS_ACCEL_REPLAY_TOOL_H

#include "accel/Fdo/Run.h"
#include "accel/ISA/Isa.h"
#include "accel/Replay/Trace.h"
#include "accel/Sim/MachineConfig.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/SourceMgr.h"

#include <chrono>
#include <optional>
#include <string>

namespace accel::tool {
namespace cl = llvm::cl;

// The subcommands and options (Options.cpp).
extern cl::SubCommand runCmd;
extern cl::SubCommand fdoCmd;
extern cl::SubCommand recordCmd;
extern cl::SubCommand replayCmd;
extern cl::SubCommand plotCmd;
extern cl::SubCommand traceInfoCmd;
extern cl::SubCommand sweepCmd;
extern cl::SubCommand configCmd;
extern cl::OptionCategory category;
extern cl::opt<std::string> inputFile;
extern cl::list<std::string> sweepSets;
extern cl::opt<std::string> sweepShard;
extern cl::opt<unsigned> sweepJobs;
extern cl::opt<bool> sweepFdo;
extern cl::opt<bool> sweepPlot;
extern cl::opt<std::string> plotChip;
extern cl::opt<std::string> plotDmas;
extern cl::opt<std::string> outputPath;
extern cl::opt<std::string> configFile;
extern cl::opt<bool> printDefault;
extern cl::opt<std::string> entryName;
extern cl::opt<unsigned> iterations;
extern cl::opt<std::string> fdoPasses;
extern cl::opt<std::string> fdoTrialPasses;
extern cl::list<std::string> inputTensors;
extern cl::opt<std::string> outputTensorDir;
extern cl::opt<uint64_t> maxInstructions;
extern cl::opt<uint64_t> bucketCycles;
extern cl::opt<bool> analyze;
extern cl::opt<bool> timingOnly;
extern cl::opt<std::string> breakAt;
extern cl::opt<uint64_t> hitCount;
extern cl::opt<bool> compressTrace;
extern cl::opt<uint64_t> recordCount;

/// Prints "accel-replay: error: MSG" on stderr; returns 1 (the exit code of
/// bad input).
int fail(const llvm::Twine &msg);
/// -o of run, fdo, replay and sweep: an output directory (default
/// accel-out).
std::string outputDirectory();
/// --max-instructions, or the default derived from the available memory
/// (getDefaultInstructionBudget).
uint64_t instructionBudget();
/// The machine config of --config (accel::loadMachineConfig); nullopt
/// after an error message.
std::optional<sim::MachineConfig> configOrFail();
/// Writes `text` to -o (atomically), or to stdout without -o or with "-";
/// the exit code.
int writeTextOutput(llvm::StringRef text);
/// The run options of the command line, without tensors.
RunOptions baseRunOptions();
/// Reads and parses the input file (accel::parseProgram); nullptr after an
/// error message or a diagnostic.
mlir::OwningOpRef<mlir::ModuleOp> parseInput(mlir::MLIRContext &ctx,
                                             llvm::SourceMgr &sourceMgr);
/// parseInput, then accel::prepareProgram (chips, frontend, op ids);
/// nullptr after a diagnostic.
mlir::OwningOpRef<mlir::ModuleOp> loadModule(mlir::MLIRContext &ctx,
                                             llvm::SourceMgr &sourceMgr,
                                             sim::MachineConfig &config);
/// loadModule, then the lowering of --entry; failure after a diagnostic.
mlir::FailureOr<isa::Program> loadAndLower(mlir::MLIRContext &ctx,
                                           sim::MachineConfig &config);

// Progress of long commands (Progress.cpp).
enum class ProgressMode { Auto, Always, Never };
extern cl::opt<ProgressMode> progressMode;

/// Ends the progress line of the running command, if one is open (fail()
/// calls it, so that an error starts its own line).
void endProgressLine();

/// `n` for a progress line: as it is below 10000, else "12.3 K", "4.5 M",
/// "1.23 G".
std::string formatCount(uint64_t n);

/// Progress of one command on stderr, by --progress: on a terminal a line
/// "accel-replay run: TEXT (S s)" redrawn in place at most ten times a
/// second, then replaced by the summary; otherwise only the summary line,
/// "accel-replay run: SUMMARY in S s". With --progress=auto (the default)
/// neither shows for a command that ends within a second.
class Progress {
public:
  /// `command`: the line's prefix, e.g. "accel-replay run".
  explicit Progress(llvm::StringRef command);
  /// Ends a line left open (a command that failed), so that an error
  /// message starts its own line.
  ~Progress();
  /// The current state; `text` is called only when the line is redrawn:
  /// at most every 0.1 s, or at once with `force` (a new step).
  void update(llvm::function_ref<std::string()> text, bool force = false);
  /// RunOptions::onProgress for this line: "PREFIXsimulating: N
  /// instructions, C cycles", redrawn at once when the step changes.
  std::function<void(llvm::StringRef, uint64_t, uint64_t)>
  runCallback(std::string prefix = "");
  /// The summary line (" in S s" is appended).
  void finish(const llvm::Twine &summary);
  /// Ends a line left open without a summary.
  void endLine();
  /// Erases a line left open, so that stdout can print a line in its
  /// place (the next update redraws it).
  void clear();
  double getElapsedSeconds() const;

private:
  using Clock = std::chrono::steady_clock;
  bool isShown(double elapsed) const;
  std::string command;
  Clock::time_point start, lastDraw;
  bool terminal;
  bool open = false;
};
/// The trace file at `path` (replay::Trace::deserialize); errors name it.
llvm::Expected<replay::Trace> readTrace(llvm::StringRef path);
/// A Python with matplotlib for the plot scripts; empty if none.
std::string findPlotPython();
/// The script `name` copied next to this executable by the build.
llvm::Expected<std::string> findScript(const char *argv0, llvm::StringRef name);

// The subcommands; each returns the exit code.
int cmdRun(mlir::MLIRContext &ctx);
int cmdFdo(mlir::MLIRContext &ctx);
int cmdRecord(mlir::MLIRContext &ctx);
int cmdReplay();
int cmdTraceInfo();
int cmdPlot(const char *argv0);
int cmdSweep(mlir::MLIRContext &ctx, const char *argv0);
int cmdConfig();

} // namespace accel::tool

#endif // ACCEL_TOOLS_ACCEL_REPLAY_TOOL_H
