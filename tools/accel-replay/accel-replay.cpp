//===- accel-replay.cpp - Run, analyze and FDO-loop accel programs --------===//
//
//   accel-replay run  FILE.mlir -o DIR     lower, simulate, analyze
//   accel-replay fdo  FILE.mlir -o DIR     run -> attach -> hoist -> re-run
//   accel-replay asm  FILE.mlir [-o F]     assembler listing
//   accel-replay lower FILE.mlir -o F.bin  binary image (docs/isa.md)
//   accel-replay disasm F.bin              listing of an image
//   accel-replay record FILE.mlir --break-at=SPEC --count=N -o T.accel-trace
//   accel-replay replay T.accel-trace -o DIR   timed replay + analysis
//   accel-replay trace-info T.accel-trace
//   accel-replay sweep FILE.mlir|T.accel-trace --set PATH=V1,V2 -o DIR
//
// Exit codes: 0 success; 1 bad input or a simulated fault (for fdo: in the
// unoptimized program); 2 (fdo) an optimized iteration was rejected (a pass
// failed or crashed, the IR did not verify, it faulted, or its results
// differ from iteration 0's): the best earlier program is kept; 2 (sweep)
// some points failed (their rows say why; the others are written).
//
//===----------------------------------------------------------------------===//

#include "accel/Analysis/Analyzer.h"
#include "accel/Analysis/DmaStallAnalysis.h"
#include "accel/Conversion/AccelToISA.h"
#include "accel/Conversion/Frontend.h"
#include "accel/Dialect/Accel/AccelOps.h"
#include "accel/Fdo/FdoLoop.h"
#include "accel/Fdo/NpyIO.h"
#include "accel/Fdo/Sweep.h"
#include "accel/InitAccel.h"
#include "accel/Replay/Recorder.h"
#include "accel/Replay/Replayer.h"
#include "accel/Sim/Device.h"
#include "accel/Sim/Simulator.h"
#include "accel/Support/Json.h"
#include "accel/Support/Nesting.h"
#include "accel/Support/Output.h"
#include "accel/Version.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/WithColor.h"

#include <nlohmann/json.hpp>

#include <optional>

using namespace mlir;
using namespace accel;
using json = nlohmann::json;
namespace cl = llvm::cl;

static cl::SubCommand runCmd("run", "Lower, simulate and analyze a program");
static cl::SubCommand fdoCmd(
    "fdo", "Feedback-directed loop: run, attach the metrics, apply the FDO "
           "passes (pin, parallelize, rename, hoist, sink, pipeline; cse), "
           "re-run while it gets faster");
static cl::SubCommand asmCmd("asm", "Print the assembler listing of a program");
static cl::SubCommand lowerCmd("lower", "Write the binary image of a program");
static cl::SubCommand disasmCmd("disasm", "Print the listing of a binary image");
static cl::SubCommand recordCmd(
    "record", "Record a window of a program's execution into a trace");
static cl::SubCommand replayCmd(
    "replay", "Replay a trace on the timing simulator and analyze it");
static cl::SubCommand plotCmd(
    "plot", "Draw DMA timeline, utilization and VMEM heatmap PNGs of an "
            "output directory (python3-matplotlib)");
static cl::SubCommand traceInfoCmd("trace-info",
                                   "Print a trace's header, sizes and counts");
static cl::SubCommand
    sweepCmd("sweep",
             "Run a program (with FDO) or replay a trace on a grid of machine "
             "configs, in parallel: sweep.csv, sweep.json, sweep.png");

static cl::SubCommand
    configCmd("config",
              "Print the machine config a run would use (the embedded "
              "default, or it merged with --config FILE) as JSON");

static cl::OptionCategory category("accel-replay options");
static cl::opt<std::string> inputFile(cl::Positional, cl::desc("<input>"),
                                      cl::Required, cl::sub(runCmd),
                                      cl::sub(fdoCmd), cl::sub(asmCmd),
                                      cl::sub(lowerCmd), cl::sub(disasmCmd),
                                      cl::sub(recordCmd), cl::sub(replayCmd),
                                      cl::sub(traceInfoCmd), cl::sub(plotCmd),
                                      cl::sub(sweepCmd), cl::cat(category));
static cl::list<std::string> sweepSets(
    "set",
    cl::desc("sweep: a config field and its values, PATH=V1,V2,... (e.g. "
             "vmem.bytes=8Mi,16Mi or dma.links[0].bytes_per_cycle=512,1024; "
             "suffixes Ki Mi Gi Ti). Repeatable: the grid is every "
             "combination"),
    cl::value_desc("PATH=V1,V2"), cl::sub(sweepCmd), cl::cat(category));
static cl::opt<std::string> sweepShard(
    "shard",
    cl::desc("sweep: run only the points p with p mod N = I, for a cluster's "
             "array job (docs/sweep.md); default 0/1, every point"),
    cl::value_desc("I/N"), cl::init("0/1"), cl::sub(sweepCmd),
    cl::cat(category));
static cl::opt<unsigned> sweepJobs(
    "j",
    cl::desc("sweep: points run at once (default 0: every hardware thread)"),
    cl::value_desc("N"), cl::init(0), cl::sub(sweepCmd), cl::cat(category));
static cl::opt<bool> sweepFdo(
    "fdo",
    cl::desc("sweep of a program: also run the FDO loop at every point "
             "(default true)"),
    cl::init(true), cl::sub(sweepCmd), cl::cat(category));
static cl::opt<bool>
    sweepPlot("plot",
              cl::desc("sweep: draw sweep.png with utils/accel-sweep-plot.py "
                       "(python3-matplotlib; default true)"),
              cl::init(true), cl::sub(sweepCmd), cl::cat(category));
static cl::opt<std::string>
    plotChip("chip", cl::desc("plot: the chip of a system to draw (default 0)"),
             cl::value_desc("N"), cl::sub(plotCmd), cl::cat(category));
static cl::opt<std::string>
    plotDmas("dmas",
             cl::desc("plot: the DMAs of dma_timeline.png in issue order, END "
                      "exclusive (default the first 64)"),
             cl::value_desc("FIRST:END"), cl::sub(plotCmd), cl::cat(category));
static cl::opt<std::string>
    outputPath("o",
               cl::desc("Output directory (run, fdo, replay) or file (asm, "
                        "lower, record)"),
               cl::value_desc("path"), cl::sub(runCmd), cl::sub(fdoCmd),
               cl::sub(asmCmd), cl::sub(lowerCmd), cl::sub(disasmCmd),
               cl::sub(recordCmd), cl::sub(replayCmd), cl::sub(sweepCmd),
               cl::sub(configCmd), cl::cat(category));
static cl::opt<std::string>
    configFile("config",
               cl::desc("Machine config JSON overriding the embedded default "
                        "(docs/config.md)"),
               cl::value_desc("file"), cl::sub(runCmd), cl::sub(fdoCmd),
               cl::sub(asmCmd), cl::sub(lowerCmd), cl::sub(recordCmd),
               cl::sub(replayCmd), cl::sub(sweepCmd), cl::sub(configCmd),
               cl::cat(category));
static cl::opt<bool> printDefault(
    "print-default",
    cl::desc("config: print the embedded default config (docs/config.md), "
             "a starting point for an override file"),
    cl::sub(configCmd), cl::cat(category));
static cl::opt<std::string> entryName("entry",
                                      cl::desc("Function to run (default: "
                                               "main, or the only function)"),
                                      cl::sub(runCmd), cl::sub(fdoCmd),
                                      cl::sub(asmCmd), cl::sub(lowerCmd),
                                      cl::sub(recordCmd), cl::sub(sweepCmd),
                                      cl::cat(category));
static cl::opt<unsigned> iterations("iterations",
                                    cl::desc("At most this many FDO "
                                             "iterations after the baseline; "
                                             "the loop stops earlier at the "
                                             "first iteration that is not "
                                             "faster (default 10)"),
                                    cl::init(10), cl::sub(fdoCmd),
                                    cl::sub(sweepCmd), cl::cat(category));
static cl::opt<std::string> fdoPasses(
    "passes",
    cl::desc("Transforms of each FDO iteration, as an MLIR textual pass "
             "pipeline (accel-opt's syntax, e.g. "
             "'accel-hoist-dma,accel-pipeline-dma{max-distance=4},cse'); "
             "default: the passes of --accel-fdo-pipeline with the config's "
             "VMEM capacity"),
    cl::value_desc("pipeline"), cl::sub(fdoCmd), cl::sub(sweepCmd),
    cl::cat(category));
static cl::opt<std::string> fdoTrialPasses(
    "trial-passes",
    cl::desc("Passes tried on each FDO iteration's program, as a textual "
             "pass pipeline: their output is run too and kept only if it is "
             "correct and faster; '' for none (default: 'accel-schedule,cse' "
             "with the default --passes, none with --passes)"),
    cl::value_desc("pipeline"), cl::sub(fdoCmd), cl::sub(sweepCmd),
    cl::cat(category));
static cl::opt<std::string> emitKind(
    "emit",
    cl::desc("What lower writes: 'image' (the binary image, default) or "
             "'accel' (the accel program the frontend makes of a linalg, "
             "tensor or affine input, as MLIR with the op ids metrics.json "
             "names; stdout without -o)"),
    cl::init("image"), cl::value_desc("kind"), cl::sub(lowerCmd),
    cl::cat(category));
static cl::list<std::string> inputTensors(
    "input",
    cl::desc("Initial contents of an HBM argument from a NumPy .npy file "
             "(C order, the argument's shape, dtype float32 or int32; a "
             "bf16 argument reads float32 values, rounded to nearest even, "
             "or its bit patterns as uint16 or ml_dtypes.bfloat16); NAME "
             "is the argument's position N, argN or %argN. Repeatable; "
             "other arguments keep their default initial values"),
    cl::value_desc("NAME=FILE.npy"), cl::sub(runCmd), cl::sub(fdoCmd),
    cl::cat(category));
static cl::opt<std::string> outputTensorDir(
    "output-dir",
    cl::desc("Write every HBM argument's final contents to DIR/argN.npy "
             "(fdo: those of the best iteration's program)"),
    cl::value_desc("dir"), cl::sub(runCmd), cl::sub(fdoCmd),
    cl::cat(category));
static cl::opt<uint64_t> maxInstructions(
    "max-instructions",
    cl::desc("Instruction budget: run stops there and writes the metrics of "
             "what ran, marked truncated; fdo and record fail (default: what "
             "half of the available memory lets the analyses record, "
             "clamped to [2^20, 2^32])"),
    cl::init(0), cl::sub(runCmd), cl::sub(fdoCmd), cl::sub(recordCmd),
    cl::sub(sweepCmd), cl::cat(category));
static cl::opt<uint64_t> bucketCycles(
    "bucket-cycles",
    cl::desc("Time bucket width of the utilization and VMEM analyses "
             "(default: about 200 buckets)"),
    cl::init(0), cl::sub(runCmd), cl::sub(fdoCmd), cl::sub(replayCmd),
    cl::cat(category));
static cl::opt<bool> analyze(
    "analyze",
    cl::desc("Run the analyzer (utilization, VMEM, dependencies, "
             "suggestions, roofline, timeline.json); --analyze=false keeps "
             "only the DMA stall analysis (default true)"),
    cl::init(true), cl::sub(runCmd), cl::sub(replayCmd), cl::cat(category));
static cl::opt<bool> timingOnly(
    "timing-only",
    cl::desc("Replay timing only: skip the MXU/VPU arithmetic (faster); the "
             "window's results are then not checked, and control that "
             "depends on computed values diverges (default false)"),
    cl::init(false), cl::sub(replayCmd), cl::cat(category));
static cl::opt<std::string> breakAt(
    "break-at",
    cl::desc("Start recording at pc:N, op:ID or loc:FILE:LINE (default: the "
             "program entry)"),
    cl::value_desc("spec"), cl::sub(recordCmd), cl::cat(category));
static cl::opt<uint64_t> hitCount("hit",
                                  cl::desc("Break at the K-th arrival at the "
                                           "breakpoint (default 1)"),
                                  cl::init(1), cl::sub(recordCmd),
                                  cl::cat(category));
static cl::opt<bool> compressTrace(
    "compress",
    cl::desc("zstd-compress the trace payload (default true; "
             "--compress=false writes it plain)"),
    cl::init(true), cl::sub(recordCmd), cl::cat(category));
static cl::opt<uint64_t> recordCount(
    "count", cl::desc("Instructions to record (default 1000000)"),
    cl::init(1000000), cl::sub(recordCmd), cl::cat(category));

/// --max-instructions, or the default derived from the available memory.
static uint64_t instructionBudget() {
  return maxInstructions ? uint64_t(maxInstructions)
                         : getDefaultInstructionBudget(analyze);
}

/// Largest values of the count options (so that no vector is sized from a
/// number the user typed).
constexpr uint64_t kMaxRecordCount = 1ull << 28;
constexpr unsigned kMaxIterations = 1000;

/// -o of run, fdo and replay: an output directory (default accel-out).
static std::string outputDirectory() {
  return outputPath.empty() ? std::string("accel-out") : outputPath.getValue();
}

static int fail(const llvm::Twine &msg) {
  llvm::WithColor::error(llvm::errs(), "accel-replay") << msg << "\n";
  return 1;
}

static llvm::Expected<sim::MachineConfig> loadConfig() {
  if (configFile.empty())
    return sim::MachineConfig::getDefault();
  return sim::MachineConfig::fromFile(configFile);
}

static OwningOpRef<ModuleOp> parseInput(MLIRContext &ctx,
                                        llvm::SourceMgr &sourceMgr) {
  std::string err;
  auto file = openInputFile(inputFile, &err);
  if (!file) {
    fail(err);
    return nullptr;
  }
  // MLIR's parser recurses per nesting level: refuse what would overflow
  // its stack.
  if (llvm::Error e = checkMlirNesting(file->getBuffer(), inputFile)) {
    fail(llvm::toString(std::move(e)));
    return nullptr;
  }
  sourceMgr.AddNewSourceBuffer(std::move(file), llvm::SMLoc());
  return parseSourceFile<ModuleOp>(sourceMgr, &ctx);
}

static LogicalResult runPasses(ModuleOp module,
                               llvm::function_ref<void(OpPassManager &)> add) {
  PassManager pm(module.getContext());
  add(pm);
  return pm.run(module);
}

/// The frontend options a machine config implies: VMEM-sized tiles of
/// MXU-shaped blocks (four MXU widths of columns and of reduction depth).
static void setFrontendOptions(FrontendOptions &o,
                               const sim::MachineConfig &config) {
  o.tileCols = 4 * int64_t(config.mxuCols);
  o.tileK = 4 * int64_t(config.mxuRows);
  o.vmemBytes = config.vmemBytes;
}

/// Runs the frontend (--accel-from-linalg with the config's sizes) on a
/// module that is not yet an accel program (linalg, tensors, upstream
/// memory spaces); failure after a diagnostic.
static LogicalResult runFrontend(ModuleOp module,
                                 const sim::MachineConfig &config) {
  if (!needsFrontend(module))
    return success();
  FrontendOptions options;
  setFrontendOptions(options, config);
  return runPasses(module, [&](OpPassManager &pm) {
    buildFrontendPipeline(pm, options);
  });
}

/// A module that asks for a number of chips (`accel.chips`, an integer
/// attribute) runs on that many: `config` gets them (MachineConfig::
/// forProgramChips); failure after an error naming the attribute.
static LogicalResult adoptModuleChips(sim::MachineConfig &config,
                                      ModuleOp module) {
  Attribute attr = module->getAttr("accel.chips");
  if (!attr)
    return success();
  auto chips = dyn_cast<IntegerAttr>(attr);
  if (!chips || chips.getValue().isNegative() ||
      chips.getValue().ugt(sim::Topology::kMaxChips) || chips.getInt() == 0)
    return module.emitError() << "accel.chips must be an integer in [1, "
                              << sim::Topology::kMaxChips << "]";
  auto adopted = config.forProgramChips(unsigned(chips.getInt()));
  if (!adopted)
    return module.emitError() << llvm::toString(adopted.takeError());
  config = std::move(*adopted);
  return success();
}

/// Parses the input, runs the frontend if it needs it and gives every op
/// its stable id; nullptr after a diagnostic on error.
static OwningOpRef<ModuleOp> loadModule(MLIRContext &ctx,
                                        llvm::SourceMgr &sourceMgr,
                                        sim::MachineConfig &config) {
  auto module = parseInput(ctx, sourceMgr);
  if (!module || failed(adoptModuleChips(config, *module)) ||
      failed(runFrontend(*module, config)))
    return nullptr;
  if (failed(runPasses(*module, [](OpPassManager &pm) {
        pm.addPass(createAccelAssignOpIds());
      })))
    return nullptr;
  return module;
}

/// Parses the input, assigns op ids and lowers it; failure after a
/// diagnostic.
static FailureOr<isa::Program> loadAndLower(MLIRContext &ctx,
                                            sim::MachineConfig &config) {
  llvm::SourceMgr sourceMgr;
  SourceMgrDiagnosticHandler handler(sourceMgr, &ctx);
  auto module = loadModule(ctx, sourceMgr, config);
  if (!module)
    return failure();
  return lowerToIsa(*module, getLoweringOptions(config, entryName));
}

/// The run options of the command line, without tensors.
static RunOptions baseRunOptions() {
  RunOptions o;
  o.entry = entryName;
  o.maxInstructions = instructionBudget();
  o.bucketCycles = bucketCycles;
  o.analyze = analyze;
  return o;
}

/// The run options of the command line, with the `--input` tensors read
/// for `module`'s entry function; nullopt after an error message.
static std::optional<RunOptions> runOptions(ModuleOp module) {
  RunOptions o = baseRunOptions();
  o.keepHbm = !outputTensorDir.empty();
  if (inputTensors.empty())
    return o;
  func::FuncOp entry = findEntryFunction(module, entryName);
  if (!entry) {
    fail("--input: the input has no entry function to give tensors to "
         "(--entry)");
    return std::nullopt;
  }
  for (const std::string &spec : inputTensors) {
    auto input = loadHbmInput(entry, spec);
    if (!input) {
      fail(llvm::toString(input.takeError()));
      return std::nullopt;
    }
    if (input->roundedValues)
      llvm::WithColor::warning(llvm::errs(), "accel-replay")
          << input->source << ": " << input->roundedValues << " of "
          << input->bytes.size() / 2
          << " f32 values are not bf16 values; rounded to nearest even\n";
    o.inputs.push_back(std::move(*input));
  }
  return o;
}

static std::optional<sim::MachineConfig> configOrFail() {
  auto config = loadConfig();
  if (!config) {
    fail(llvm::toString(config.takeError()));
    return std::nullopt;
  }
  return std::move(*config);
}

static int cmdRun(MLIRContext &ctx) {
  auto config = configOrFail();
  if (!config)
    return 1;
  llvm::SourceMgr sourceMgr;
  SourceMgrDiagnosticHandler handler(sourceMgr, &ctx);
  auto module = loadModule(ctx, sourceMgr, *config);
  if (!module)
    return 1;
  auto options = runOptions(*module);
  if (!options)
    return 1;
  options->stopAtBudget = true;
  auto r = simulateModule(*module, *config, *options);
  if (!r)
    return fail(llvm::toString(r.takeError()));
  std::string dir = outputDirectory();
  auto staged = StagedDirectory::create(dir);
  if (!staged)
    return fail(llvm::toString(staged.takeError()));
  if (auto e = writeRunOutputs(staged->path(), *r, *module))
    return fail(llvm::toString(std::move(e)));
  if (auto e = staged->commit())
    return fail(llvm::toString(std::move(e)));
  if (!outputTensorDir.empty())
    if (auto e = writeHbmOutputs(outputTensorDir,
                                 findEntryFunction(*module, entryName), *r))
      return fail("--output-dir: " + llvm::toString(std::move(e)));
  analysis::writeReport(r->metrics, llvm::outs());
  llvm::outs() << "\nhbm hash: " << formatHbmHash(r->hbmHash) << "\n";
  llvm::outs() << "wrote " << dir << "/{metrics.json,"
               << (analyze ? "timeline.json," : "")
               << "report.txt,program.lst,program.mlir}";
  if (!outputTensorDir.empty())
    llvm::outs() << " and " << outputTensorDir << "/arg*.npy";
  llvm::outs() << "\n";
  return 0;
}

/// The transforms column: each pass that made changes, by a short name,
/// with its count (its first statistic, Passes.td).
static std::string describeTransforms(const FdoIteration &it) {
  if (it.index == 0)
    return "baseline";
  static const std::pair<const char *, const char *> shortNames[] = {
      {"accel-hoist-dma", "hoist"},     {"accel-parallelize-dma", "par"},
      {"accel-sink-dma-wait", "sink"},  {"accel-pipeline-dma", "pipe"},
      {"accel-pin-vmem", "pin"},        {"accel-rename-vmem", "rename"},
      {"accel-schedule", "sched"}};
  // Counts per short name, in the order the passes first appear.
  std::vector<std::pair<std::string, uint64_t>> counts;
  for (const FdoPassRun &p : it.passes) {
    if (!p.changes || !*p.changes)
      continue;
    std::string name = p.name;
    for (auto [arg, brief] : shortNames)
      if (name == arg)
        name = brief;
    auto found = llvm::find_if(counts, [&](auto &c) { return c.first == name; });
    if (found == counts.end())
      counts.push_back({name, *p.changes});
    else
      found->second += *p.changes;
  }
  if (counts.empty())
    return "none";
  std::string text;
  for (auto &[name, n] : counts)
    text += (text.empty() ? "" : " ") + name + " x" + std::to_string(n);
  return text;
}

static int cmdFdo(MLIRContext &ctx) {
  auto config = configOrFail();
  if (!config)
    return 1;
  llvm::SourceMgr sourceMgr;
  SourceMgrDiagnosticHandler handler(sourceMgr, &ctx);
  auto module = parseInput(ctx, sourceMgr);
  if (!module || failed(adoptModuleChips(*config, *module)) ||
      failed(runFrontend(*module, *config)))
    return 1;
  FdoOptions options;
  options.iterations = iterations;
  options.passPipeline = fdoPasses;
  if (fdoTrialPasses.getNumOccurrences())
    options.trialPipeline = fdoTrialPasses;
  auto run = runOptions(*module);
  if (!run)
    return 1;
  options.run = std::move(*run);
  options.inputName = inputFile;
  // A bad pipeline: one error before anything runs or is written.
  if (auto texts = getFdoPassPipelines(&ctx, options, *config); !texts)
    return fail("--passes: " + llvm::toString(texts.takeError()));
  if (auto texts = getFdoTrialPipelines(&ctx, options); !texts)
    return fail("--trial-passes: " + llvm::toString(texts.takeError()));
  // Every iteration is written beside the output directory and moved into
  // place at the end: a failed or killed loop leaves the previous one.
  std::string outputDir = outputDirectory();
  auto staged = StagedDirectory::create(outputDir);
  if (!staged)
    return fail(llvm::toString(staged.takeError()));
  options.outputDir = staged->path().str();
  // Paths the loop reports (a reproducer) name the final directory.
  auto finalPath = [&](llvm::StringRef p) {
    return p.starts_with(staged->path())
               ? outputDir + p.drop_front(staged->path().size()).str()
               : p.str();
  };
  llvm::outs() << llvm::format("%-4s %12s %12s %10s %10s %7s %10s %-34s %s\n",
                               "iter", "cycles", "dma_stall", "base",
                               "transfer", "mxu%", "vmem_KiB", "transforms",
                               "results");
  options.onIteration = [](const FdoIteration &it) {
    if (it.ran)
      llvm::outs() << llvm::format(
          "%-4u %12llu %12llu %10llu %10llu %6.1f%% %10llu %-34s %s\n",
          it.index, (unsigned long long)it.totalCycles,
          (unsigned long long)(it.dmaStallBaseCycles +
                               it.dmaStallTransferCycles),
          (unsigned long long)it.dmaStallBaseCycles,
          (unsigned long long)it.dmaStallTransferCycles,
          100 * it.mxuUtilization, (unsigned long long)(it.vmemBytes / 1024),
          describeTransforms(it).c_str(),
          !it.resultsMatch                             ? "DIFFER"
          : it.failure && !it.trialPasses.empty() ? "FAILED (trial)"
                                                   : "identical");
    else
      llvm::outs() << llvm::format("%-4u %12s %12s %10s %10s %7s %10s %-34s %s\n",
                                   it.index, "-", "-", "-", "-", "-", "-",
                                   describeTransforms(it).c_str(), "FAILED");
    llvm::outs().flush();
  };
  llvm::Expected<FdoResult> result = runFdoLoop(*module, *config, options);
  if (!result)
    return fail(llvm::toString(result.takeError()));
  const FdoIteration &best = result->iterations[result->bestIteration];
  const FdoIteration &last = result->iterations.back();
  const FdoIteration *failedIt = result->getFailedIteration();
  if (!failedIt && last.index != best.index)
    llvm::outs() << "iteration " << last.index
                 << (last.totalCycles > best.totalCycles ? " is slower than"
                                                         : " is no faster than")
                 << " iteration " << best.index << " (" << last.totalCycles
                 << (last.totalCycles > best.totalCycles ? " > " : " = ")
                 << best.totalCycles << " cycles): stopping; iteration "
                 << best.index << "'s program is the result\n";
  json out = result->toJson(options, *config);
  const json &summary = out["summary"];
  if (auto e = staged->commit())
    return fail(llvm::toString(std::move(e)));
  llvm::SmallString<256> fdoPath(outputDir);
  llvm::sys::path::append(fdoPath, "fdo.json");
  llvm::outs() << llvm::format("\nbest: iteration %u, cycles -%.1f%%, DMA "
                               "stall cycles -%.1f%%, results %s; wrote %s\n",
                               result->bestIteration,
                               100 * summary["cycles_reduction"].get<double>(),
                               100 * summary["dma_stall_reduction"].get<double>(),
                               failedIt && failedIt->failure->kind ==
                                               FdoFailure::Kind::Mismatch
                                   ? "DIFFER (iteration rejected)"
                                   : "identical",
                               std::string(fdoPath).c_str());
  if (summary.contains("latency_lower_bound_cycles"))
    llvm::outs() << llvm::formatv(
        "bounds: {0} cycles (roofline; {1:F2}x), {2} cycles (latency-aware; "
        "{3:F2}x)\n",
        summary["lower_bound_cycles"].get<uint64_t>(),
        summary["best_over_lower_bound"].get<double>(),
        summary["latency_lower_bound_cycles"].get<uint64_t>(),
        summary["best_over_latency_bound"].get<double>());
  if (!outputTensorDir.empty()) {
    // The best program's final HBM arguments: one more run that keeps them.
    RunOptions o = options.run;
    o.keepHbm = true;
    o.analyze = false;
    auto r = simulateModule(*result->bestProgram, *config, o);
    if (!r)
      return fail("--output-dir: " + llvm::toString(r.takeError()));
    if (auto e = writeHbmOutputs(
            outputTensorDir,
            findEntryFunction(*result->bestProgram, entryName), *r))
      return fail("--output-dir: " + llvm::toString(std::move(e)));
    llvm::outs() << "hbm hash: " << formatHbmHash(r->hbmHash) << "; wrote "
                 << outputTensorDir << "/arg*.npy (iteration "
                 << result->bestIteration << ")\n";
  }
  llvm::outs().flush();
  if (failedIt) {
    const FdoFailure &f = *failedIt->failure;
    llvm::WithColor::error(llvm::errs(), "accel-replay")
        << "iteration " << failedIt->index << " rejected: " << f.describe()
        << ": " << f.message
        << (f.reproducer.empty() ? std::string()
                                 : "\nreproducer: " + finalPath(f.reproducer))
        << "\nkept iteration " << result->bestIteration << "'s program ("
        << outputDir << "/best.mlir)\n";
    return 2;
  }
  return 0;
}

/// Writes `text` to -o (atomically), or to stdout without -o or with "-".
static int writeTextOutput(llvm::StringRef text) {
  if (auto e = writeOutput(outputPath.empty() ? std::string("-")
                                              : outputPath.getValue(),
                           text))
    return fail(llvm::toString(std::move(e)));
  return 0;
}

static int cmdAsmOrLower(MLIRContext &ctx, bool binary) {
  auto config = configOrFail();
  if (!config)
    return 1;
  if (binary && emitKind == "accel") {
    // The frontend's output: the accel program with the op ids that run's
    // metrics.json and report.txt name.
    llvm::SourceMgr sourceMgr;
    SourceMgrDiagnosticHandler handler(sourceMgr, &ctx);
    auto module = loadModule(ctx, sourceMgr, *config);
    if (!module)
      return 1;
    std::string text;
    llvm::raw_string_ostream os(text);
    module->print(os, OpPrintingFlags().enableDebugInfo(true, false));
    return writeTextOutput(text);
  }
  if (binary && emitKind != "image")
    return fail("--emit must be 'image' or 'accel', not '" + emitKind + "'");
  FailureOr<isa::Program> program = loadAndLower(ctx, *config);
  if (failed(program))
    return 1;
  if (binary) {
    if (outputPath.empty())
      return fail("lower needs -o FILE (or --emit=accel)");
    std::vector<uint8_t> image = program->toImage();
    if (auto e = writeOutput(outputPath,
                           llvm::StringRef((const char *)image.data(),
                                           image.size())))
      return fail(llvm::toString(std::move(e)));
    return 0;
  }
  std::string text;
  llvm::raw_string_ostream os(text);
  program->printListing(os);
  return writeTextOutput(text);
}

/// Progress on stderr when it is a terminal, quiet otherwise.
static void showProgress(const char *what, uint64_t done, uint64_t total) {
  if (!llvm::sys::Process::StandardErrIsDisplayed())
    return;
  llvm::errs() << llvm::format("\r%s: %3u%% (%llu / %llu instructions)", what,
                               unsigned(total ? 100 * done / total : 100),
                               (unsigned long long)done,
                               (unsigned long long)total);
  if (done >= total)
    llvm::errs() << "\n";
}

static llvm::Expected<replay::Trace> readTrace(llvm::StringRef path) {
  auto buf = llvm::MemoryBuffer::getFile(path, /*IsText=*/false);
  if (!buf)
    return llvm::createStringError("%s: %s", path.str().c_str(),
                                   buf.getError().message().c_str());
  llvm::ArrayRef<uint8_t> bytes(
      reinterpret_cast<const uint8_t *>((*buf)->getBufferStart()),
      (*buf)->getBufferSize());
  auto trace = replay::Trace::deserialize(bytes);
  if (!trace)
    return llvm::createStringError("%s: %s", path.str().c_str(),
                                   llvm::toString(trace.takeError()).c_str());
  return trace;
}

static int cmdRecord(MLIRContext &ctx) {
  auto config = configOrFail();
  if (!config)
    return 1;
  if (outputPath.empty())
    return fail("record needs -o TRACE");
  FailureOr<isa::Program> program = loadAndLower(ctx, *config);
  if (failed(program))
    return 1;
  // A trace holds one chip's state; a chip of a system also needs the
  // remote writes and semaphore signals other chips send it during the
  // window, which the trace format does not carry yet.
  if (config->chips > 1)
    return fail("record: " + inputFile + " runs on a system of " +
                std::to_string(config->chips) +
                " chips; record and replay cover a single chip (use "
                "'accel-replay run' or 'fdo' for a system)");
  sim::Device device(*config, *program);
  if (!breakAt.empty()) {
    auto pc = sim::resolveBreakpoint(*program, breakAt);
    if (!pc)
      return fail(llvm::toString(pc.takeError()));
    device.setBreakpoint(*pc, hitCount);
    if (auto e = device.continueToBreakpoint(instructionBudget()))
      return fail("--break-at=" + breakAt + ": " + llvm::toString(std::move(e)));
  }
  auto trace = replay::record(device, *program, config->jsonText, recordCount,
                              [](uint64_t done, uint64_t total) {
                                showProgress("recording", done, total);
                              });
  if (!trace)
    return fail(llvm::toString(trace.takeError()));
  std::vector<uint8_t> bytes = trace->serialize(compressTrace);
  if (auto e = writeOutput(outputPath, llvm::StringRef((const char *)bytes.data(),
                                                     bytes.size())))
    return fail(llvm::toString(std::move(e)));
  llvm::outs() << "recorded " << trace->pcs.size()
               << " instructions from pc " << trace->startPc
               << " (instruction " << trace->startIndex << " of the run): "
               << trace->registers.size() << " registers and "
               << trace->stateBytes() - trace->registers.size() * 8
               << " memory bytes of initial state, "
               << trace->pendingDmas.size() << " DMAs in flight; wrote "
               << outputPath << " (" << bytes.size() << " bytes)\n";
  return 0;
}

static int cmdReplay() {
  auto trace = readTrace(inputFile);
  if (!trace)
    return fail(llvm::toString(trace.takeError()));
  // --config: the recorded machine with the file's fields changed (the
  // same instructions, new timing; seed 000 §4.2).
  std::vector<std::string> changed;
  llvm::Expected<std::unique_ptr<replay::Replayer>> replayer = nullptr;
  if (configFile.empty()) {
    replayer = replay::Replayer::create(*trace);
  } else {
    auto buf = llvm::MemoryBuffer::getFile(configFile, /*IsText=*/true);
    if (!buf)
      return fail(configFile + ": cannot read: " + buf.getError().message());
    replayer = replay::Replayer::create(*trace, (*buf)->getBuffer(), configFile,
                                        changed);
  }
  if (!replayer)
    return fail(inputFile + ": " + llvm::toString(replayer.takeError()));
  if (!configFile.empty()) {
    llvm::outs() << "replaying on the recorded machine with " << configFile
                 << "'s changes (" << changed.size() << " field"
                 << (changed.size() == 1 ? "" : "s") << "):\n";
    for (const std::string &c : changed)
      llvm::outs() << "  " << c << "\n";
  }
  analysis::DmaStallCollector collector;
  analysis::Analyzer analyzer((*replayer)->getProgram(),
                              (*replayer)->getConfig());
  (*replayer)->addObserver(&collector);
  if (analyze)
    (*replayer)->addObserver(&analyzer);
  if (auto e = (*replayer)->load())
    return fail(inputFile + ": " + llvm::toString(std::move(e)));
  (*replayer)->getSimulator().setTimingOnly(timingOnly);
  auto summary = (*replayer)->run([](uint64_t done, uint64_t total) {
    showProgress("replaying", done, total);
  });
  if (!summary)
    return fail(inputFile + ": " + llvm::toString(summary.takeError()) +
                (timingOnly ? " (a --timing-only replay skips the MXU/VPU "
                              "arithmetic; replay without it if control "
                              "depends on computed values)"
                            : ""));
  if (!timingOnly)
    if (auto e = (*replayer)->checkResults())
      return fail(inputFile + ": " + llvm::toString(std::move(e)));
  uint64_t writtenBytes = 0;
  for (const sim::AddrRange &w : trace->writtenRanges)
    writtenBytes += w.end - w.begin;
  RunResult r;
  r.program = (*replayer)->getProgram();
  r.summary = *summary;
  finishAnalysis(r, (*replayer)->getConfig(), collector, analyzer,
                 baseRunOptions());
  r.metrics["window"] = {{"start_instruction", trace->startIndex},
                         {"start_pc", trace->startPc},
                         {"instructions", trace->pcs.size()}};
  std::string dir = outputDirectory();
  auto staged = StagedDirectory::create(dir);
  if (!staged)
    return fail(llvm::toString(staged.takeError()));
  llvm::SmallString<256> metricsPath(staged->path()),
      reportPath(staged->path()), timelinePath(staged->path());
  llvm::sys::path::append(metricsPath, "metrics.json");
  llvm::sys::path::append(reportPath, "report.txt");
  llvm::sys::path::append(timelinePath, "timeline.json");
  if (!r.timeline.empty())
    if (auto e = writeOutput(timelinePath, r.timeline))
      return fail(llvm::toString(std::move(e)));
  std::string report;
  llvm::raw_string_ostream ros(report);
  analysis::writeReport(r.metrics, ros);
  if (auto e = writeOutput(metricsPath, dumpJson(r.metrics, 2) + "\n"))
    return fail(llvm::toString(std::move(e)));
  if (auto e = writeOutput(reportPath, report))
    return fail(llvm::toString(std::move(e)));
  if (auto e = staged->commit())
    return fail(llvm::toString(std::move(e)));
  llvm::outs() << report << "\nreplayed " << trace->pcs.size()
               << " instructions; PC sequence matches the trace; ";
  if (timingOnly)
    llvm::outs() << "results not checked (--timing-only)";
  else
    llvm::outs() << "results match the recorded run ("
                 << trace->finalRegisters.size() << " registers, "
                 << writtenBytes << " bytes written)";
  llvm::outs() << "; wrote " << dir << "/{"
               << (analyze ? "metrics.json,timeline.json" : "metrics.json")
               << ",report.txt}\n";
  return 0;
}

static int cmdTraceInfo() {
  auto trace = readTrace(inputFile);
  if (!trace)
    return fail(llvm::toString(trace.takeError()));
  uint64_t fileBytes = 0;
  llvm::sys::fs::file_size(inputFile, fileBytes);
  const replay::Trace &t = *trace;
  uint64_t memBytes = t.stateBytes() - t.registers.size() * 8;
  llvm::outs() << "trace:              " << inputFile << "\n"
               << "format version:     " << t.formatVersion << "\n"
               << "ISA version:        " << t.isaVersion << "\n"
               << "payload:            "
               << (t.compressed ? "zstd-compressed" : "plain") << "\n"
               << "program:            " << t.program.name << " ("
               << t.program.code.size() << " instructions, "
               << t.program.buffers.size() << " buffers)\n"
               << "fingerprint:        "
               << (t.program.fingerprint.empty() ? std::string("(none)")
                                                 : t.program.fingerprint)
               << "\n"
               << "window:             " << t.pcs.size()
               << " instructions from pc " << t.startPc << " (instruction "
               << t.startIndex << " of the run)\n"
               << "initial registers:  " << t.registers.size() << "\n"
               << "initial memory:     " << t.memory.size() << " ranges, "
               << memBytes << " bytes\n"
               << "DMAs in flight:     " << t.pendingDmas.size() << "\n"
               << "next DMA id:        " << t.nextDmaId << "\n"
               << "file size:          " << fileBytes << " bytes ("
               << llvm::format("%.2f", t.pcs.empty() ? 0.0
                                                     : double(fileBytes) /
                                                           t.pcs.size())
               << " bytes/instruction)\n"
               << "full-state snapshot: " << t.fullStateBytes << " bytes ("
               << llvm::format("%.1fx", t.stateBytes()
                                            ? double(t.fullStateBytes) /
                                                  t.stateBytes()
                                            : 0.0)
               << " the recorded state)\n";
  return 0;
}

/// A Python with matplotlib for the plot scripts: $ACCEL_PYTHON, Debian's
/// /usr/bin/python3, or the python3 on PATH (the last one found even
/// without matplotlib, so that its error is shown); empty if none.
static std::string findPlotPython() {
  std::vector<std::string> pythons;
  if (const char *env = std::getenv("ACCEL_PYTHON"))
    pythons.push_back(env);
  pythons.push_back("/usr/bin/python3");
  if (auto p = llvm::sys::findProgramByName("python3"))
    pythons.push_back(*p);
  for (const std::string &python : pythons) {
    if (!llvm::sys::fs::can_execute(python))
      continue;
    llvm::StringRef check[] = {python, "-c", "import matplotlib"};
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
static llvm::Expected<std::string> findScript(const char *argv0,
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

/// Runs utils/accel-plot.py (copied next to this executable) with a Python
/// that has matplotlib: $ACCEL_PYTHON, Debian's /usr/bin/python3, or the
/// python3 on PATH.
static int cmdPlot(const char *argv0) {
  auto script = findScript(argv0, "accel-plot.py");
  if (!script)
    return fail(llvm::toString(script.takeError()));
  std::string python = findPlotPython();
  if (python.empty())
    return fail("no python3 found to run " + *script);
  llvm::SmallVector<llvm::StringRef, 7> args = {python, *script, inputFile};
  if (plotChip.getNumOccurrences())
    args.append({"--chip", plotChip});
  if (plotDmas.getNumOccurrences())
    args.append({"--dmas", plotDmas});
  std::string err;
  int rc =
      llvm::sys::ExecuteAndWait(python, args, std::nullopt, {}, 0, 0, &err);
  if (rc < 0)
    return fail("cannot run " + python + ": " + err);
  return rc;
}

static int cmdDisasm() {
  auto buf = llvm::MemoryBuffer::getFile(inputFile, /*IsText=*/false);
  if (!buf)
    return fail(inputFile + ": " + buf.getError().message());
  llvm::ArrayRef<uint8_t> bytes(
      reinterpret_cast<const uint8_t *>((*buf)->getBufferStart()),
      (*buf)->getBufferSize());
  auto program = isa::Program::fromImage(bytes);
  if (!program)
    return fail(inputFile + ": " + llvm::toString(program.takeError()));
  std::string text;
  llvm::raw_string_ostream os(text);
  program->printListing(os);
  return writeTextOutput(text);
}

/// One point of a program sweep: parse, frontend, lower and run `source`
/// on `config` in a context of this thread, then the FDO loop (--fdo).
static SweepRow sweepProgramPoint(const DialectRegistry &registry,
                                  llvm::StringRef source,
                                  sim::MachineConfig config) {
  SweepRow row;
  row.configHash = config.hash();
  MLIRContext ctx(registry, MLIRContext::Threading::DISABLED);
  ctx.loadAllAvailableDialects();
  ctx.printOpOnDiagnostic(false);
  std::string diagnostics;
  llvm::raw_string_ostream os(diagnostics);
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(source, inputFile), llvm::SMLoc());
  SourceMgrDiagnosticHandler handler(sourceMgr, &ctx, os);
  // A point's error is one line: the first diagnostic (which names the
  // location), then the error that stopped it.
  auto failWith = [&](std::string message) {
    std::string first =
        llvm::StringRef(diagnostics).trim().split('\n').first.str();
    row.error = first.empty()     ? message
                : message.empty() ? first
                                  : first + " (" + message + ")";
    return row;
  };
  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(sourceMgr, &ctx);
  if (!module || failed(adoptModuleChips(config, *module)) ||
      failed(runFrontend(*module, config)))
    return failWith("");
  row.configHash = config.hash();
  OwningOpRef<ModuleOp> original = module->clone();
  if (failed(runPasses(*module, [](OpPassManager &pm) {
        pm.addPass(createAccelAssignOpIds());
      })))
    return failWith("");
  RunOptions options = baseRunOptions();
  options.stopAtBudget = false;
  auto r = simulateModule(*module, config, options);
  if (!r)
    return failWith(llvm::toString(r.takeError()));
  fillSweepRow(row, r->metrics);
  if (!sweepFdo)
    return row;
  FdoOptions fdo;
  fdo.iterations = iterations;
  fdo.passPipeline = fdoPasses;
  if (fdoTrialPasses.getNumOccurrences())
    fdo.trialPipeline = fdoTrialPasses;
  fdo.run = baseRunOptions();
  fdo.inputName = inputFile;
  auto result = runFdoLoop(*original, config, fdo);
  if (!result) {
    row.ok = false;
    return failWith("fdo: " + llvm::toString(result.takeError()));
  }
  json summary = result->toJson(fdo, config)["summary"];
  const FdoIteration &best = result->iterations[result->bestIteration];
  const FdoIteration *failedIt = result->getFailedIteration();
  SweepRow::Fdo f;
  f.bestCycles = best.totalCycles;
  f.bestIteration = result->bestIteration;
  f.cyclesReduction = summary["cycles_reduction"].get<double>();
  f.resultsIdentical =
      !failedIt || failedIt->failure->kind != FdoFailure::Kind::Mismatch;
  row.fdo = f;
  return row;
}

/// One point of a trace sweep: the window replayed on `config`, its
/// results checked against the recorded run.
static SweepRow sweepTracePoint(const replay::Trace &trace,
                                sim::MachineConfig config) {
  SweepRow row;
  row.configHash = config.hash();
  auto replayer = replay::Replayer::create(trace, std::move(config));
  if (!replayer) {
    row.error = llvm::toString(replayer.takeError());
    return row;
  }
  analysis::DmaStallCollector collector;
  analysis::Analyzer analyzer((*replayer)->getProgram(),
                              (*replayer)->getConfig());
  (*replayer)->addObserver(&collector);
  (*replayer)->addObserver(&analyzer);
  if (auto e = (*replayer)->load()) {
    row.error = llvm::toString(std::move(e));
    return row;
  }
  auto summary = (*replayer)->run();
  if (!summary) {
    row.error = llvm::toString(summary.takeError());
    return row;
  }
  if (auto e = (*replayer)->checkResults()) {
    row.error = llvm::toString(std::move(e));
    return row;
  }
  RunResult r;
  r.program = (*replayer)->getProgram();
  r.summary = *summary;
  finishAnalysis(r, (*replayer)->getConfig(), collector, analyzer,
                 baseRunOptions());
  fillSweepRow(row, r.metrics);
  return row;
}

/// The sweep's rows as an aligned table (sweep.csv has every column).
static void printSweepTable(const SweepGrid &grid,
                            const std::vector<SweepRow> &rows,
                            llvm::raw_ostream &os) {
  std::vector<std::string> header = {"point"};
  for (const SweepAxis &a : grid.getAxes())
    header.push_back(a.path);
  bool fdo = llvm::any_of(rows, [](const SweepRow &r) { return r.fdo; });
  for (const char *h :
       {"cycles", "dma_stall", "base", "transfer", "mxu%", "vmem_KiB"})
    header.push_back(h);
  if (fdo)
    header.insert(header.end(), {"fdo_cycles", "fdo"});
  std::vector<std::vector<std::string>> table = {header};
  for (const SweepRow &r : rows) {
    std::vector<std::string> line = {std::to_string(r.point)};
    std::vector<unsigned> at = grid.getIndices(r.point);
    for (size_t i = 0; i < at.size(); ++i)
      line.push_back(grid.getAxes()[i].texts[at[i]]);
    if (!r.ok) {
      line.push_back("error: " + r.error);
      table.push_back(line);
      continue;
    }
    line.push_back(std::to_string(r.totalCycles));
    line.push_back(std::to_string(r.dmaStallBase + r.dmaStallTransfer));
    line.push_back(std::to_string(r.dmaStallBase));
    line.push_back(std::to_string(r.dmaStallTransfer));
    line.push_back(llvm::formatv("{0:F1}", 100 * r.mxuUtilization).str());
    line.push_back(std::to_string(r.peakVmemBytes / 1024));
    if (fdo) {
      line.push_back(r.fdo ? std::to_string(r.fdo->bestCycles) : "-");
      // The change in cycles: "-45.6%" faster, "0.0%" none.
      double change = r.fdo ? -100 * r.fdo->cyclesReduction : 0;
      line.push_back(r.fdo ? llvm::formatv("{0}{1:F1}%", change > 0 ? "+" : "",
                                           change == 0 ? 0.0 : change)
                                     .str() +
                                 (r.fdo->resultsIdentical ? "" : " DIFFER")
                           : "-");
    }
    table.push_back(line);
  }
  std::vector<size_t> width(header.size(), 0);
  // A failed point's last cell (its error) spans the rest of the line and
  // widens no column.
  for (const auto &line : table)
    for (size_t i = 0; i < line.size(); ++i)
      if (line.size() == header.size() || i + 1 < line.size())
        width[i] = std::max(width[i], line[i].size());
  for (const auto &line : table) {
    for (size_t i = 0; i < line.size(); ++i) {
      bool last = i + 1 == line.size();
      os << (i ? "  " : "") << line[i];
      if (!last)
        os.indent(width[i] - line[i].size());
    }
    os << "\n";
  }
}

static int cmdSweep(MLIRContext &ctx, const char *argv0) {
  std::vector<SweepAxis> axes;
  for (const std::string &spec : sweepSets) {
    auto axis = parseSweepAxis(spec);
    if (!axis)
      return fail(llvm::toString(axis.takeError()));
    axes.push_back(std::move(*axis));
  }
  auto grid = SweepGrid::create(std::move(axes));
  if (!grid)
    return fail(llvm::toString(grid.takeError()));
  auto shard = parseSweepShard(sweepShard);
  if (!shard)
    return fail(llvm::toString(shard.takeError()));
  auto buf = llvm::MemoryBuffer::getFile(inputFile, /*IsText=*/false);
  if (!buf)
    return fail(inputFile + ": cannot read: " + buf.getError().message());
  llvm::StringRef bytes = (*buf)->getBuffer();
  bool isTrace = bytes.starts_with("ACCELTRC");
  // The base config: the trace's (a replay's machine), else the default,
  // each with --config merged in.
  std::optional<replay::Trace> trace;
  std::string baseText;
  std::string overrideText;
  if (!configFile.empty()) {
    auto cbuf = llvm::MemoryBuffer::getFile(configFile, /*IsText=*/true);
    if (!cbuf)
      return fail(configFile + ": cannot read: " + cbuf.getError().message());
    overrideText = (*cbuf)->getBuffer().str();
  }
  if (isTrace) {
    auto t = readTrace(inputFile);
    if (!t)
      return fail(llvm::toString(t.takeError()));
    trace = std::move(*t);
  } else if (llvm::Error e = checkMlirNesting(bytes, inputFile)) {
    return fail(llvm::toString(std::move(e)));
  }
  auto base = sim::MachineConfig::fromJson(
      overrideText, configFile.empty() ? "<config>" : configFile.getValue(),
      trace ? llvm::StringRef(trace->configJson) : llvm::StringRef());
  if (!base)
    return fail((trace ? inputFile + ": " : std::string()) +
                llvm::toString(base.takeError()));
  // Every point's config first: a bad --set is one error before anything
  // runs.
  std::vector<uint64_t> points;
  for (uint64_t p = 0; p < grid->size(); ++p)
    if (shard->contains(p))
      points.push_back(p);
  std::vector<std::optional<sim::MachineConfig>> configs(grid->size());
  for (uint64_t p : points) {
    auto c = grid->getConfig(p, base->jsonText);
    if (!c)
      return fail(llvm::toString(c.takeError()));
    configs[p] = std::move(*c);
  }
  std::string dir = outputDirectory();
  auto staged = StagedDirectory::create(dir);
  if (!staged)
    return fail(llvm::toString(staged.takeError()));
  unsigned jobs = llvm::hardware_concurrency(sweepJobs).compute_thread_count();
  llvm::errs() << "sweep: " << points.size() << " of " << grid->size()
               << " points (shard " << shard->index << "/" << shard->count
               << ") of " << inputFile << " ("
               << (isTrace    ? "trace: replay"
                   : sweepFdo ? "program: run + fdo"
                              : "program: run")
               << ") on " << std::min<uint64_t>(jobs, points.size())
               << " threads\n";
  const DialectRegistry &registry = ctx.getDialectRegistry();
  std::vector<SweepRow> rows = runSweep(
      *grid, *shard, sweepJobs,
      [&](uint64_t p) {
        return isTrace ? sweepTracePoint(*trace, *configs[p])
                       : sweepProgramPoint(registry, bytes, *configs[p]);
      },
      [&](const SweepRow &r, uint64_t done, uint64_t total) {
        llvm::errs() << "[" << done << "/" << total << "] point " << r.point
                     << " (" << grid->describe(r.point) << "): ";
        if (!r.ok)
          llvm::errs() << "error: " << r.error << "\n";
        else if (r.fdo)
          llvm::errs() << r.totalCycles << " cycles, fdo " << r.fdo->bestCycles
                       << "\n";
        else
          llvm::errs() << r.totalCycles << " cycles\n";
      });
  llvm::SmallString<256> csvPath(staged->path()), jsonPath(staged->path()),
      pngPath(staged->path());
  llvm::sys::path::append(csvPath, "sweep.csv");
  llvm::sys::path::append(jsonPath, "sweep.json");
  llvm::sys::path::append(pngPath, "sweep.png");
  if (auto e = writeOutput(csvPath, writeSweepCsv(*grid, rows)))
    return fail(llvm::toString(std::move(e)));
  json out = writeSweepJson(*grid, *shard, inputFile,
                            isTrace ? "trace" : "program", rows);
  if (auto e = writeOutput(jsonPath, dumpJson(out, 2) + "\n"))
    return fail(llvm::toString(std::move(e)));
  bool plotted = false;
  if (sweepPlot) {
    auto script = findScript(argv0, "accel-sweep-plot.py");
    std::string python = findPlotPython();
    if (!script) {
      llvm::WithColor::warning(llvm::errs(), "accel-replay")
          << "no sweep.png: " << llvm::toString(script.takeError()) << "\n";
    } else if (python.empty()) {
      llvm::WithColor::warning(llvm::errs(), "accel-replay")
          << "no sweep.png: no python3 found\n";
    } else {
      llvm::StringRef args[] = {python, *script, csvPath, "-o", pngPath};
      // Its "wrote" line would name the staging directory: drop stdout.
      std::optional<llvm::StringRef> redirects[] = {
          std::nullopt, llvm::StringRef(""), std::nullopt};
      std::string err;
      int rc = llvm::sys::ExecuteAndWait(python, args, std::nullopt, redirects,
                                         0, 0, &err);
      if (rc != 0)
        llvm::WithColor::warning(llvm::errs(), "accel-replay")
            << "no sweep.png: " << *script << " failed"
            << (err.empty() ? "" : ": " + err) << "\n";
      plotted = rc == 0;
    }
  }
  if (auto e = staged->commit())
    return fail(llvm::toString(std::move(e)));
  uint64_t failures =
      llvm::count_if(rows, [](const SweepRow &r) { return !r.ok; });
  printSweepTable(*grid, rows, llvm::outs());
  llvm::outs() << "\nwrote " << dir << "/{sweep.csv,sweep.json"
               << (plotted ? ",sweep.png" : "")
               << "}: " << rows.size() - failures
               << (rows.size() - failures == 1 ? " point ran" : " points ran");
  if (failures)
    llvm::outs() << ", " << failures << " failed";
  llvm::outs() << "\n";
  return failures ? 2 : 0;
}

/// Range checks of the numeric options; an error message or "".
static std::string checkOptions() {
  if (iterations > kMaxIterations)
    return "--iterations must be at most " + std::to_string(kMaxIterations) +
           " (the loop also stops at the first iteration that is not faster)";
  if (recordCount == 0 || recordCount > kMaxRecordCount)
    return "--count must be in [1, " + std::to_string(kMaxRecordCount) + "]";
  if (hitCount == 0)
    return "--hit must be at least 1";
  return "";
}

/// `config`: the effective config's merged JSON, which is itself a valid
/// config file (its hash is the one report.txt and metrics.json give).
static int cmdConfig() {
  if (printDefault && !configFile.empty())
    return fail("config: --print-default and --config exclude each other");
  auto config = configOrFail();
  if (!config)
    return 1;
  std::string text = config->jsonText;
  if (text.empty() || text.back() != '\n')
    text += '\n';
  return writeTextOutput(text);
}

/// Runs the subcommand the command line names; its exit code.
static int dispatch(MLIRContext &ctx, const char *argv0) {
  if (std::string bad = checkOptions(); !bad.empty())
    return fail(bad);
  if (runCmd)
    return cmdRun(ctx);
  if (fdoCmd)
    return cmdFdo(ctx);
  if (asmCmd)
    return cmdAsmOrLower(ctx, false);
  if (lowerCmd)
    return cmdAsmOrLower(ctx, true);
  if (disasmCmd)
    return cmdDisasm();
  if (recordCmd)
    return cmdRecord(ctx);
  if (replayCmd)
    return cmdReplay();
  if (traceInfoCmd)
    return cmdTraceInfo();
  if (plotCmd)
    return cmdPlot(argv0);
  if (sweepCmd)
    return cmdSweep(ctx, argv0);
  if (configCmd)
    return cmdConfig();
  cl::PrintHelpMessage();
  return 1;
}

namespace accel::test {
/// --accel-test-break (test/lib/TestFdoFailures.cpp), for tests.
void registerTestFdoFailuresPass();
} // namespace accel::test

int main(int argc, char **argv) {
  llvm::InitLLVM y(argc, argv);
  cl::AddExtraVersionPrinter(accel::printVersion);
  cl::HideUnrelatedOptions(category);
  cl::ParseCommandLineOptions(
      argc, argv,
      "accel-replay: lower accel programs to machine code, run them on the "
      "bundled simulator, analyze DMA stalls and close the FDO loop\n");
  DialectRegistry registry;
  // linalg, tensor, bufferization, ...: inputs the frontend converts.
  registerFrontendDialects(registry);
  // For --passes: the accel passes and the upstream clean-ups accel-opt has.
  registerAccelPasses();
  registerAccelFdoPipeline();
  accel::test::registerTestFdoFailuresPass();
  registerCanonicalizerPass();
  registerCSEPass();
  MLIRContext ctx(registry);
  ctx.loadAllAvailableDialects();
  ctx.printOpOnDiagnostic(false);
  int rc = dispatch(ctx, argv[0]);
  // Whatever went to stdout (reports, listings) must have arrived: a full
  // disk or closed pipe is an error, not LLVM's abort at exit.
  llvm::outs().flush();
  if (llvm::outs().has_error()) {
    std::error_code ec = llvm::outs().error();
    llvm::outs().clear_error();
    return fail("cannot write to standard output: " + ec.message());
  }
  return rc;
}
