//===- Options.cpp - accel-replay's command line and shared helpers -------===//
//
// The subcommands and their options (each option lists the subcommands it
// belongs to, so that each subcommand's --help shows only its own), and
// the helpers of Tool.h.
//
//===----------------------------------------------------------------------===//

#include "Tool.h"

#include "accel/Fdo/Load.h"
#include "accel/Fdo/NpyIO.h"
#include "accel/Replay/Trace.h"
#include "accel/Support/Input.h"
#include "accel/Support/Output.h"
#include "accel/Target/AccelToISA.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/WithColor.h"

using namespace mlir;
using namespace accel;

namespace accel::tool {

cl::SubCommand runCmd("run", "Lower, simulate and analyze a program");
cl::SubCommand
    fdoCmd("fdo",
           "Feedback-directed loop: run, attach the metrics, apply the FDO "
           "passes (pin, parallelize, rename, hoist, sink, pipeline; cse), "
           "re-run while it gets faster");
cl::SubCommand
    recordCmd("record",
              "Record a window of a program's execution into a trace");
cl::SubCommand
    replayCmd("replay",
              "Replay a trace on the timing simulator and analyze it");
cl::SubCommand
    plotCmd("plot",
            "Draw DMA timeline, utilization and VMEM heatmap PNGs of an "
            "output directory (python3-matplotlib)");
cl::SubCommand traceInfoCmd("trace-info",
                            "Print a trace's header, sizes and counts");
cl::SubCommand
    sweepCmd("sweep",
             "Run a program (with FDO) or replay a trace on a grid of machine "
             "configs, in parallel: sweep.csv, sweep.json, sweep.png");

cl::SubCommand
    configCmd("config",
              "Print the machine config a run would use (the embedded "
              "default, or it merged with --config FILE) as JSON");

// Options by purpose, each category a group of --help.
cl::OptionCategory
    inputCategory("Input and machine",
                  "The program, its inputs and the machine it runs on");
cl::OptionCategory outputCategory("Output", "What is written, and where");
cl::OptionCategory
    analysisCategory("Analysis",
                     "What the analyzer records and the timeline draws");
cl::OptionCategory
    fdoCategory("FDO loop",
                "The feedback-directed loop's iterations and passes");
cl::OptionCategory recordCategory("Record, replay and plot",
                                  "Windows of a run, their traces, and plots");
cl::OptionCategory sweepCategory("Sweep",
                                 "The grid of machines a sweep runs, and how");

std::vector<const cl::OptionCategory *> getOptionCategories() {
  return {&inputCategory, &outputCategory, &analysisCategory,
          &fdoCategory,   &recordCategory, &sweepCategory};
}
cl::opt<std::string> inputFile(cl::Positional, cl::desc("<input>"),
                               cl::Required, cl::sub(runCmd), cl::sub(fdoCmd),
                               cl::sub(recordCmd), cl::sub(replayCmd),
                               cl::sub(traceInfoCmd), cl::sub(plotCmd),
                               cl::sub(sweepCmd), cl::cat(inputCategory));
cl::list<std::string> sweepSets(
    "set",
    cl::desc("sweep: a config field and its values, PATH=V1,V2,... (e.g. "
             "vmem.bytes=8Mi,16Mi or dma.links[0].bytes_per_cycle=512,1024; "
             "suffixes Ki Mi Gi Ti). Repeatable: the grid is every "
             "combination"),
    cl::value_desc("PATH=V1,V2"), cl::sub(sweepCmd), cl::cat(sweepCategory));
cl::opt<std::string> sweepShard(
    "shard",
    cl::desc("sweep: run only the points p with p mod N = I, for a cluster's "
             "array job (docs/sweep.md); default 0/1, every point"),
    cl::value_desc("I/N"), cl::init("0/1"), cl::sub(sweepCmd),
    cl::cat(sweepCategory));
// The counts are 64-bit options (a value past 2^32 is not wrapped by
// llvm::cl's unsigned parser) checked against their ranges before any
// subcommand runs (checkOptions in accel-replay.cpp).
cl::opt<uint64_t> sweepJobs(
    "j",
    cl::desc("sweep: points run at once (default 0: every hardware thread)"),
    cl::value_desc("N"), cl::init(0), cl::sub(sweepCmd),
    cl::cat(sweepCategory));
cl::opt<bool> sweepFdo(
    "fdo",
    cl::desc("sweep of a program: also run the FDO loop at every point "
             "(default true)"),
    cl::init(true), cl::sub(sweepCmd), cl::cat(sweepCategory));
cl::opt<bool>
    sweepPlot("plot",
              cl::desc("sweep: draw sweep.png with utils/accel-sweep-plot.py "
                       "(python3-matplotlib; default true)"),
              cl::init(true), cl::sub(sweepCmd), cl::cat(sweepCategory));
cl::opt<std::string>
    plotChip("chip",
             cl::desc("plot: the chip of a system to draw; record: the chip "
                      "of a system to record, the others running along "
                      "(default 0)"),
             cl::value_desc("N"), cl::sub(plotCmd), cl::sub(recordCmd),
             cl::cat(recordCategory));
cl::opt<std::string>
    plotDmas("dmas",
             cl::desc("plot: the DMAs of dma_timeline.png in issue order, END "
                      "exclusive (default the first 64)"),
             cl::value_desc("FIRST:END"), cl::sub(plotCmd),
             cl::cat(sweepCategory));
cl::opt<std::string>
    outputPath("o",
               cl::desc("Output directory (run, fdo, replay, sweep) or file "
                        "(record, config)"),
               cl::value_desc("path"), cl::sub(runCmd), cl::sub(fdoCmd),
               cl::sub(recordCmd), cl::sub(replayCmd), cl::sub(sweepCmd),
               cl::sub(configCmd), cl::cat(outputCategory));
cl::opt<std::string>
    configFile("config",
               cl::desc("Machine config JSON overriding the embedded default "
                        "(docs/config.md)"),
               cl::value_desc("file"), cl::sub(runCmd), cl::sub(fdoCmd),
               cl::sub(recordCmd), cl::sub(replayCmd), cl::sub(sweepCmd),
               cl::sub(configCmd), cl::cat(inputCategory));
cl::opt<bool> printDefault(
    "print-default",
    cl::desc("config: print the embedded default config (docs/config.md), "
             "a starting point for an override file"),
    cl::sub(configCmd), cl::cat(inputCategory));
cl::opt<std::string> entryName("entry",
                               cl::desc("Function to run (default: "
                                        "main, or the only function)"),
                               cl::sub(runCmd), cl::sub(fdoCmd),
                               cl::sub(recordCmd), cl::sub(sweepCmd),
                               cl::cat(inputCategory));
cl::opt<uint64_t> iterations("iterations",
                             cl::desc("At most this many FDO "
                                      "iterations after the baseline; "
                                      "the loop stops earlier at the "
                                      "first iteration that is not "
                                      "faster (default 10)"),
                             cl::init(10), cl::sub(fdoCmd), cl::sub(sweepCmd),
                             cl::cat(fdoCategory));
cl::opt<std::string> fdoPasses(
    "passes",
    cl::desc("Transforms of each FDO iteration, as an MLIR textual pass "
             "pipeline (accel-opt's syntax, e.g. "
             "'accel-hoist-dma,accel-pipeline-dma{max-distance=4},cse'); "
             "default: the passes of --accel-fdo-pipeline with the config's "
             "VMEM capacity"),
    cl::value_desc("pipeline"), cl::sub(fdoCmd), cl::sub(sweepCmd),
    cl::cat(fdoCategory));
cl::opt<std::string> fdoTrialPasses(
    "trial-passes",
    cl::desc("Passes tried on each FDO iteration's program, as a textual "
             "pass pipeline: their output is run too and kept only if it is "
             "correct and faster; '' for none (default: 'accel-schedule,cse' "
             "with the default --passes, none with --passes)"),
    cl::value_desc("pipeline"), cl::sub(fdoCmd), cl::sub(sweepCmd),
    cl::cat(fdoCategory));
cl::list<std::string> inputTensors(
    "input",
    cl::desc("Initial contents of an HBM argument from a NumPy .npy file "
             "(C order, the argument's shape, dtype float32 or int32; a "
             "bf16 argument reads float32 values, rounded to nearest even, "
             "or its bit patterns as uint16 or ml_dtypes.bfloat16); NAME "
             "is the argument's position N, argN or %argN. Repeatable; "
             "other arguments keep their default initial values"),
    cl::value_desc("NAME=FILE.npy"), cl::sub(runCmd), cl::sub(fdoCmd),
    cl::cat(inputCategory));
cl::list<std::string> bindShapes(
    "bind",
    cl::desc("The shape of an argument with dynamic dimensions (or no rank), "
             "as NAME=D0xD1x... (NAME: N, argN or %argN; 0=() for rank 0). "
             "An --input's .npy gives its argument's shape already; "
             "repeatable"),
    cl::value_desc("NAME=SHAPE"), cl::sub(runCmd), cl::sub(fdoCmd),
    cl::sub(recordCmd), cl::sub(sweepCmd), cl::cat(inputCategory));
cl::opt<std::string> outputTensorDir(
    "output-dir",
    cl::desc("Write every HBM argument's final contents to DIR/argN.npy "
             "(fdo: those of the best iteration's program)"),
    cl::value_desc("dir"), cl::sub(runCmd), cl::sub(fdoCmd),
    cl::cat(outputCategory));
cl::opt<uint64_t> maxInstructions(
    "max-instructions",
    cl::desc("Instruction budget: run, and fdo's iteration 0, stop there "
             "and write the metrics of what ran, marked truncated (fdo then "
             "runs no optimized iteration); an optimized iteration that "
             "goes past it is rejected; record fails if the breakpoint is "
             "not reached within it (default: what half of the memory "
             "available to the process (MemAvailable, ulimit -v, the "
             "cgroup's limit) lets the analyses record, clamped to "
             "[2^16, 2^32])"),
    cl::init(0), cl::sub(runCmd), cl::sub(fdoCmd), cl::sub(recordCmd),
    cl::sub(sweepCmd), cl::cat(inputCategory));
cl::opt<uint64_t> bucketCycles(
    "bucket-cycles",
    cl::desc("Time bucket width of the utilization and VMEM analyses "
             "(default: about 200 buckets)"),
    cl::init(0), cl::sub(runCmd), cl::sub(fdoCmd), cl::sub(replayCmd),
    cl::cat(analysisCategory));
cl::opt<uint64_t> timelineMaxDmas(
    "timeline-max-dmas",
    cl::desc("timeline.json draws at most the first N DMAs of each chip "
             "(trace viewers slow down past a few hundred thousand events; "
             "metrics.json \"timeline\" says what was left out; default "
             "50000)"),
    cl::value_desc("N"), cl::init(kDefaultTimelineMaxDmas), cl::sub(runCmd),
    cl::sub(fdoCmd), cl::sub(replayCmd), cl::cat(analysisCategory));
cl::opt<uint64_t> timelineMaxSlices(
    "timeline-max-slices",
    cl::desc("timeline.json draws at most the first N MXU and N VPU slices "
             "of each chip (default 100000)"),
    cl::value_desc("N"), cl::init(kDefaultTimelineMaxSlices), cl::sub(runCmd),
    cl::sub(fdoCmd), cl::sub(replayCmd), cl::cat(analysisCategory));
cl::opt<bool> analyze(
    "analyze",
    cl::desc("Run the analyzer (utilization, VMEM, dependencies, "
             "suggestions, roofline, timeline.json); --analyze=false keeps "
             "only the DMA stall analysis (run and replay; fdo always "
             "analyzes) (default true)"),
    cl::init(true), cl::sub(runCmd), cl::sub(replayCmd), cl::sub(fdoCmd),
    cl::cat(analysisCategory));
cl::opt<bool> timingOnly(
    "timing-only",
    cl::desc("Replay timing only: skip the MXU/VPU arithmetic (faster); the "
             "window's results are then not checked, and control that "
             "depends on computed values diverges (default false)"),
    cl::init(false), cl::sub(replayCmd), cl::cat(analysisCategory));
cl::opt<std::string> breakAt(
    "break-at",
    cl::desc("Start recording at pc:N, op:ID or loc:FILE:LINE (default: the "
             "program entry)"),
    cl::value_desc("spec"), cl::sub(recordCmd), cl::cat(recordCategory));
cl::opt<uint64_t> hitCount("hit",
                           cl::desc("Break at the K-th arrival at the "
                                    "breakpoint (default 1)"),
                           cl::init(1), cl::sub(recordCmd),
                           cl::cat(recordCategory));
cl::opt<bool>
    compressTrace("compress",
                  cl::desc("zstd-compress the trace payload (default true; "
                           "--compress=false writes it plain)"),
                  cl::init(true), cl::sub(recordCmd), cl::cat(outputCategory));
cl::opt<uint64_t>
    recordCount("count", cl::desc("Instructions to record (default 1000000)"),
                cl::init(1000000), cl::sub(recordCmd), cl::cat(recordCategory));

/// --max-instructions, or the default derived from the available memory.
uint64_t instructionBudget() {
  return maxInstructions ? uint64_t(maxInstructions)
                         : getDefaultInstructionBudget(analyze);
}

/// -o of run, fdo and replay: an output directory (default accel-out).
std::string outputDirectory() {
  return outputPath.empty() ? std::string("accel-out") : outputPath.getValue();
}

int fail(const llvm::Twine &msg) {
  endProgressLine();
  llvm::WithColor::error(llvm::errs(), "accel-replay") << msg << "\n";
  return 1;
}

CommandInput::CommandInput(MLIRContext &ctx)
    : ctx(ctx), handler(sourceMgr, &ctx) {}

bool CommandInput::load(OpIds ids) {
  auto loaded = configOrFail();
  if (!loaded)
    return false;
  config = std::move(*loaded);
  // Bounded: /dev/zero or a never-ending pipe is an error, not a hang.
  auto file = readInputFile(inputFile, InputKind::Program);
  if (!file) {
    fail("cannot open input file '" + inputFile +
         "': " + llvm::toString(file.takeError()));
    return false;
  }
  if (llvm::Error e = parseProgram(ctx, sourceMgr, std::move(*file), module)) {
    fail(llvm::toString(std::move(e)));
    return false;
  }
  if (!module)
    return false;
  std::optional<std::vector<std::string>> bind = shapeBindingsOrFail();
  if (!bind || failed(adoptModuleChips(config, *module)) ||
      failed(runFrontend(*module, config, *bind)))
    return false;
  return ids == OpIds::Leave || succeeded(assignOpIds(*module));
}

FailureOr<isa::Program> CommandInput::lower() {
  if (!load(OpIds::Assign))
    return failure();
  return lowerToIsa(*module, getLoweringOptions(config, entryName));
}

std::optional<std::vector<std::string>> shapeBindingsOrFail() {
  // (record and sweep have no --input.)
  std::vector<std::string> inputs(inputTensors.begin(), inputTensors.end());
  std::vector<std::string> shapes(bindShapes.begin(), bindShapes.end());
  auto bind = getShapeBindings(inputs, shapes);
  if (!bind) {
    fail(llvm::toString(bind.takeError()));
    return std::nullopt;
  }
  return std::move(*bind);
}

std::optional<sim::MachineConfig> configOrFail() {
  auto config = loadMachineConfig(configFile);
  if (!config) {
    fail(llvm::toString(config.takeError()));
    return std::nullopt;
  }
  return std::move(*config);
}

/// The run options of the command line, without tensors.
RunOptions baseRunOptions() {
  RunOptions o;
  o.entry = entryName;
  o.maxInstructions = instructionBudget();
  o.bucketCycles = bucketCycles;
  o.analyze = analyze;
  o.timelineMaxDmas = timelineMaxDmas;
  o.timelineMaxSlices = timelineMaxSlices;
  return o;
}

FdoOptions getFdoOptions(RunOptions run) {
  FdoOptions o;
  o.iterations = iterations;
  o.passPipeline = fdoPasses;
  if (fdoTrialPasses.getNumOccurrences())
    o.trialPipeline = fdoTrialPasses;
  o.run = std::move(run);
  o.inputName = inputFile;
  return o;
}

/// Writes `text` to -o (atomically), or to stdout without -o or with "-".
int writeTextOutput(llvm::StringRef text) {
  if (auto e = writeOutput(
          outputPath.empty() ? std::string("-") : outputPath.getValue(), text))
    return fail(llvm::toString(std::move(e)));
  return 0;
}

llvm::Expected<replay::Trace> readTrace(llvm::StringRef path) {
  auto buf = readInputFile(path, InputKind::Trace);
  if (!buf)
    return llvm::createStringError("%s: %s", path.str().c_str(),
                                   llvm::toString(buf.takeError()).c_str());
  return decodeTrace(path, (*buf)->getBuffer());
}

llvm::Expected<replay::Trace> decodeTrace(llvm::StringRef path,
                                          llvm::StringRef contents) {
  llvm::ArrayRef<uint8_t> bytes(
      reinterpret_cast<const uint8_t *>(contents.data()), contents.size());
  auto trace = replay::Trace::deserialize(bytes);
  if (!trace)
    return llvm::createStringError("%s: %s", path.str().c_str(),
                                   llvm::toString(trace.takeError()).c_str());
  return trace;
}

/// A Python with matplotlib for the plot scripts: $ACCEL_PYTHON, Debian's
/// /usr/bin/python3, or the python3 on PATH (the last one found even
/// without matplotlib, so that its error is shown); empty if none. A
/// candidate is asked whether it can find the package, not to import it
/// (0.04 s against 0.3 s a candidate; the script reports a broken one).
std::string findPlotPython() {
  std::vector<std::string> pythons;
  if (const char *env = std::getenv("ACCEL_PYTHON"))
    pythons.push_back(env);
  pythons.push_back("/usr/bin/python3");
  if (auto p = llvm::sys::findProgramByName("python3"))
    pythons.push_back(*p);
  for (const std::string &python : pythons) {
    if (!llvm::sys::fs::can_execute(python))
      continue;
    llvm::StringRef check[] = {
        python, "-c",
        "import importlib.util, sys; "
        "sys.exit(importlib.util.find_spec('matplotlib') is None)"};
    std::optional<llvm::StringRef> quiet[] = {std::nullopt, llvm::StringRef(""),
                                              llvm::StringRef("")};
    if (llvm::sys::ExecuteAndWait(python, check, std::nullopt, quiet) == 0 ||
        &python == &pythons.back())
      return python;
  }
  return "";
}

/// The script `name` copied next to this executable by the build, or an
/// error naming where it was looked for.
llvm::Expected<std::string> findScript(const char *argv0,
                                       llvm::StringRef name) {
  std::string exe = llvm::sys::fs::getMainExecutable(
      argv0, reinterpret_cast<void *>(&findScript));
  llvm::SmallString<256> script(llvm::sys::path::parent_path(exe));
  llvm::sys::path::append(script, name);
  if (!llvm::sys::fs::exists(script))
    return llvm::createStringError("cannot find " + script.str().str() +
                                   " (it is copied there by the build)");
  return script.str().str();
}

} // namespace accel::tool
