//===- Tool.h - What the parts of accel-replay share ------------*- C++ -*-===//
//
// accel-replay is one tool in several files (Options.cpp, accel-replay.cpp,
// TraceCommands.cpp, PlotCommand.cpp, SweepCommand.cpp): the command line
// (llvm::cl subcommands and their options) and the helpers every
// subcommand uses. The work itself is in the libraries (lib/Fdo,
// lib/Replay, lib/Profile); this is the command line around it.
//
//===----------------------------------------------------------------------===//

#ifndef ACCEL_TOOLS_ACCEL_REPLAY_TOOL_H
#define ACCEL_TOOLS_ACCEL_REPLAY_TOOL_H

#include "accel/Fdo/FdoLoop.h"
#include "accel/Fdo/Run.h"
#include "accel/ISA/Isa.h"
#include "accel/Replay/Trace.h"
#include "accel/Sim/MachineConfig.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/SourceMgr.h"

#include <chrono>
#include <optional>
#include <string>
#include <vector>

namespace accel::tool {
namespace cl = llvm::cl;

// The subcommands and options (Options.cpp).
extern cl::SubCommand runCmd, fdoCmd, recordCmd, replayCmd, plotCmd,
    traceInfoCmd, sweepCmd, configCmd;
/// The option categories, one per purpose (each a group of --help).
extern cl::OptionCategory outputCategory;
std::vector<const cl::OptionCategory *> getOptionCategories();
extern cl::opt<std::string> inputFile, sweepShard, plotChip, plotDmas,
    outputPath, configFile, entryName, fdoPasses, fdoTrialPasses,
    outputTensorDir, breakAt;
extern cl::list<std::string> sweepSets, inputTensors, bindShapes;
extern cl::opt<bool> sweepFdo, sweepPlot, printDefault, analyze, timingOnly,
    compressTrace;
extern cl::opt<uint64_t> sweepJobs, iterations, maxInstructions, bucketCycles,
    timelineMaxDmas, timelineMaxSlices, hitCount, recordCount;

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
/// The shapes --input's .npy files and --bind give the arguments
/// (accel::getShapeBindings), for the frontend; nullopt after an error.
std::optional<std::vector<std::string>> shapeBindingsOrFail();
/// Writes `text` to -o (atomically), or to stdout without -o or with "-";
/// the exit code.
int writeTextOutput(llvm::StringRef text);
/// The run options of the command line, without tensors.
RunOptions baseRunOptions();
/// The FDO loop's options from the command line (--iterations, --passes,
/// --trial-passes, the input's name) with `run` as each iteration's run.
FdoOptions getFdoOptions(RunOptions run);
/// The input program of run, fdo and record and the machine config it runs
/// on. load() reads --config, parses the input file (accel::parseProgram),
/// adopts its chips and runs the frontend (accel/Fdo/Load.h); while the
/// object lives, diagnostics are printed with their source lines.
class CommandInput {
public:
  explicit CommandInput(mlir::MLIRContext &ctx);
  /// Whether op ids are assigned (accel::assignOpIds): run and record need
  /// them; the FDO loop assigns its own in each iteration.
  enum class OpIds { Assign, Leave };
  /// false after an error message or a diagnostic.
  bool load(OpIds ids);
  /// load, then the lowering of --entry; failure after an error.
  mlir::FailureOr<isa::Program> lower();

  mlir::MLIRContext &ctx;
  llvm::SourceMgr sourceMgr;
  mlir::SourceMgrDiagnosticHandler handler;
  sim::MachineConfig config;
  mlir::OwningOpRef<mlir::ModuleOp> module;
};

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
/// The trace file at `path` ("-": standard input; accel::readInputFile,
/// kind Trace), decoded by decodeTrace; errors name it.
llvm::Expected<replay::Trace> readTrace(llvm::StringRef path);
/// The trace in `bytes`, the contents of `path` (replay::Trace::
/// deserialize); errors name `path`.
llvm::Expected<replay::Trace> decodeTrace(llvm::StringRef path,
                                          llvm::StringRef bytes);
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
