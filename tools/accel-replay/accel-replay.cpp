//===- accel-replay.cpp - Run, analyze and FDO-loop accel programs --------===//
//
//   accel-replay run  FILE.mlir -o DIR     lower, simulate, analyze
//   accel-replay fdo  FILE.mlir -o DIR     run -> attach -> transform -> re-run
//   accel-replay record FILE.mlir --break-at=SPEC --count=N -o T.accel-trace
//   accel-replay replay T.accel-trace -o DIR   timed replay + analysis
//   accel-replay trace-info T.accel-trace
//   accel-replay plot DIR                  the figures of an output directory
//   accel-replay sweep FILE.mlir|T.accel-trace --set PATH=V1,V2 -o DIR
//   accel-replay config [--config FILE]    the machine config a run uses
//
// The translations (assembler listing, binary image, disassembly) are
// accel-translate's.
//
// Exit codes: 0 success; 1 bad input or a simulated fault (for fdo: in the
// unoptimized program); 2 (fdo) an optimized iteration was rejected (a pass
// failed or crashed, the IR did not verify, it faulted, or its results
// differ from iteration 0's): the best earlier program is kept, or
// iteration 0 reached --max-instructions (its truncated metrics are
// written; no optimized iteration runs); 2 (sweep) some points failed
// (their rows say why; the others are written).
//
//===----------------------------------------------------------------------===//

#include "Tool.h"

#include "accel/Fdo/FdoLoop.h"
#include "accel/Fdo/Load.h"
#include "accel/Fdo/NpyIO.h"
#include "accel/InitAccel.h"
#include "accel/Profile/DmaStallAnalysis.h"
#include "accel/Support/Json.h"
#include "accel/Support/Output.h"
#include "accel/Target/AccelToISA.h"
#include "accel/Transforms/Passes.h"
#include "accel/Version.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/WithColor.h"

#include <nlohmann/json.hpp>

using namespace mlir;
using namespace accel;
using namespace accel::tool;
using json = nlohmann::json;

namespace cl = llvm::cl;

namespace accel::tool {

/// Largest values of the count options (so that no vector is sized from a
/// number the user typed).
constexpr uint64_t kMaxRecordCount = 1ull << 28;
constexpr uint64_t kMaxIterations = 1000;
/// Threads of a sweep (-j; 0: every hardware thread).
constexpr uint64_t kMaxSweepJobs = 1024;
/// Instructions and cycles the options may name: the largest count a
/// metrics.json carries (kMaxMetricValue, 2^48).
constexpr uint64_t kMaxOptionCount = uint64_t(kMaxMetricValue);

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
  // One --input per argument, whatever its name (N, argN, %argN): a second
  // one would silently replace the first. Checked before any file is read.
  llvm::DenseMap<unsigned, const std::string *> given;
  for (const std::string &spec : inputTensors) {
    auto index = parseArgumentName(entry, llvm::StringRef(spec).split('=').first);
    if (!index) {
      llvm::consumeError(index.takeError()); // loadHbmInput names it below
      continue;
    }
    auto [it, inserted] = given.try_emplace(*index, &spec);
    if (!inserted) {
      fail("--input '" + *it->second + "' and --input '" + spec +
           "' both give argument " + llvm::Twine(*index) + " (%arg" +
           llvm::Twine(*index) + ") of @" + entry.getSymName() +
           ": give each argument once");
      return std::nullopt;
    }
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

int cmdRun(MLIRContext &ctx) {
  CommandInput input(ctx);
  if (!input.load(CommandInput::OpIds::Assign))
    return 1;
  auto options = runOptions(*input.module);
  if (!options)
    return 1;
  options->stopAtBudget = true;
  // -o and --output-dir are checked (and -o staged) before the run, written
  // after it, and committed together when both are written
  // (docs/output.md): a failure leaves both as they were.
  std::string dir = outputDirectory();
  if (!outputTensorDir.empty())
    if (auto e = checkOutputDirectory(outputTensorDir))
      return fail("--output-dir: " + llvm::toString(std::move(e)));
  auto staged = StagedDirectory::create(dir);
  if (!staged)
    return fail(llvm::toString(staged.takeError()));
  Progress progress("accel-replay run");
  options->onProgress = progress.runCallback();
  auto r = simulateModule(*input.module, input.config, *options);
  if (!r)
    return fail(llvm::toString(r.takeError()));
  progress.update([] { return std::string("writing the outputs"); }, true);
  if (auto e = writeRunOutputs(staged->path(), *r, *input.module))
    return fail(staged->toTargetPaths(llvm::toString(std::move(e))));
  StagedFiles tensors;
  if (!outputTensorDir.empty())
    if (auto e = writeHbmOutputs(outputTensorDir,
                                 findEntryFunction(*input.module, entryName),
                                 *r, &tensors))
      return fail("--output-dir: " + llvm::toString(std::move(e)));
  if (auto e = staged->commit())
    return fail(llvm::toString(std::move(e)));
  if (auto e = tensors.commit())
    return fail("--output-dir: " + llvm::toString(std::move(e)));
  progress.finish(
      formatCount(r->summary.instructions) + " instructions, " +
      formatCount(r->summary.totalCycles) +
      (analyze ? " cycles simulated and analyzed" : " cycles simulated") +
      (r->summary.truncated ? ", stopped at the instruction budget (truncated)"
                            : ""));
  profile::writeReport(*r->metrics, llvm::outs());
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
      {"accel-hoist-dma", "hoist"},    {"accel-parallelize-dma", "par"},
      {"accel-sink-dma-wait", "sink"}, {"accel-pipeline-dma", "pipe"},
      {"accel-pin-vmem", "pin"},       {"accel-rename-vmem", "rename"},
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
    auto found =
        llvm::find_if(counts, [&](auto &c) { return c.first == name; });
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

/// One stdout line naming the iterations whose timeline.json draws only
/// the start of the run (TimelineCoverage); nothing if none.
static void printTimelineTruncation(llvm::ArrayRef<FdoIteration> iterations) {
  std::string list;
  for (const FdoIteration &it : iterations) {
    if (!it.metrics->contains("timeline") ||
        !(*it.metrics)["timeline"]["truncated"].get<bool>())
      continue;
    uint64_t until = (*it.metrics)["timeline"]["complete_until_cycle"];
    list +=
        llvm::formatv("{0}iteration {1} up to cycle {2} of {3} ({4:F1}%)",
                      list.empty() ? "" : ", ", it.index, until, it.totalCycles,
                      it.totalCycles ? 100.0 * until / it.totalCycles : 0)
            .str();
  }
  if (!list.empty())
    llvm::outs() << "timeline.json is complete only for " << list
                 << " (report.txt says what it draws)\n";
}

/// One row of fdo's table: an iteration's cycles, stalls, MXU use, VMEM,
/// transforms and whether its results match.
static void printIterationRow(const FdoIteration &it) {
  if (it.ran)
    llvm::outs() << llvm::format(
        "%-4u %12llu %12llu %10llu %10llu %6.1f%% %10llu %-34s %s\n", it.index,
        (unsigned long long)it.totalCycles,
        (unsigned long long)(it.dmaStallBaseCycles + it.dmaStallTransferCycles),
        (unsigned long long)it.dmaStallBaseCycles,
        (unsigned long long)it.dmaStallTransferCycles, 100 * it.mxuUtilization,
        (unsigned long long)(it.vmemBytes / 1024),
        describeTransforms(it).c_str(),
        !it.resultsMatch                        ? "DIFFER"
        : it.failure && !it.trialPasses.empty() ? "FAILED (trial)"
        : it.truncated                          ? "TRUNCATED"
                                                : "identical");
  else
    llvm::outs() << llvm::format("%-4u %12s %12s %10s %10s %7s %10s %-34s %s\n",
                                 it.index, "-", "-", "-", "-", "-", "-",
                                 describeTransforms(it).c_str(), "FAILED");
  llvm::outs().flush();
}

/// What fdo prints when its loop ends: a truncated iteration 0, what the
/// timelines left out, and why the loop stopped.
static void printFdoOutcome(const FdoResult &result) {
  const FdoIteration &best = result.iterations[result.bestIteration];
  const FdoIteration &last = result.iterations.back();
  const FdoIteration *failedIt = result.getFailedIteration();
  const FdoIteration &first = result.iterations.front();
  if (first.truncated)
    llvm::outs()
        << "iteration 0 reached the instruction budget of "
        << (*first.metrics)["truncated"]["max_instructions"].get<uint64_t>()
        << " (--max-instructions) before its halt: its metrics "
           "cover the instructions that ran and are marked "
           "truncated; no optimized iteration ran, as FDO "
           "compares the results of complete runs\n";
  printTimelineTruncation(result.iterations);
  if (!failedIt && last.index != best.index)
    llvm::outs() << "iteration " << last.index
                 << (last.totalCycles > best.totalCycles ? " is slower than"
                                                         : " is no faster than")
                 << " iteration " << best.index << " (" << last.totalCycles
                 << (last.totalCycles > best.totalCycles ? " > " : " = ")
                 << best.totalCycles << " cycles): stopping; iteration "
                 << best.index << "'s program is the result\n";
}

/// --output-dir for fdo: the best program's final HBM arguments, from one
/// more run that keeps them, staged in `tensors` (committed with -o).
/// Returns the line to print. Errors: the run's, or writing the .npy files.
static llvm::Expected<std::string>
stageBestOutputs(const FdoResult &result, const sim::MachineConfig &config,
                 const RunOptions &run, StagedFiles &tensors) {
  RunOptions o = run;
  o.keepHbm = true;
  o.analyze = false;
  auto r = simulateModule(*result.bestProgram, config, o);
  if (!r)
    return r.takeError();
  if (auto e = writeHbmOutputs(
          outputTensorDir, findEntryFunction(*result.bestProgram, entryName),
          *r, &tensors))
    return std::move(e);
  return "hbm hash: " + formatHbmHash(r->hbmHash) + "; wrote " +
         outputTensorDir + "/arg*.npy (iteration " +
         std::to_string(result.bestIteration) + ")\n";
}

/// What fdo's progress line shows: the step of the iteration running, and
/// the runs and instructions counted for the closing summary.
namespace {
struct FdoProgress {
  Progress line{"accel-replay fdo"};
  std::string where;
  unsigned runs = 0;
  uint64_t simulated = 0;
};
} // namespace

/// Connects the loop's callbacks in `options` to `p`: the progress line
/// ("iteration 2: trial: simulating: N instructions, C cycles") and a row
/// of the table per iteration.
static void attachFdoProgress(FdoOptions &options, FdoProgress &p) {
  options.onStep = [&p](unsigned index, llvm::StringRef step) {
    p.where = "iteration " + std::to_string(index) + ": " +
              (step.starts_with("trial") ? "trial: " : "");
    if (step.ends_with("running"))
      ++p.runs;
    p.line.update(
        [&] {
          return "iteration " + std::to_string(index) + ": " + step.str();
        },
        true);
  };
  options.run.onProgress = [&p, lastStep = std::string()](
                               llvm::StringRef step, uint64_t instructions,
                               uint64_t cycle) mutable {
    bool changed = step != lastStep;
    lastStep = step.str();
    if (step == "analyzing")
      p.simulated += instructions;
    p.line.update(
        [&] {
          return p.where + step.str() + ": " + formatCount(instructions) +
                 " instructions, " + formatCount(cycle) + " cycles";
        },
        changed);
  };
  options.onIteration = [&p](const FdoIteration &it) {
    p.line.clear();
    printIterationRow(it);
  };
}

/// The closing lines on stdout: the best iteration, its reductions and
/// fdo.json's path; the bounds when the analyzer computed them.
static void printFdoBest(const FdoResult &result, const json &summary,
                         llvm::StringRef outputDir) {
  const FdoIteration *failedIt = result.getFailedIteration();
  llvm::SmallString<256> fdoPath(outputDir);
  llvm::sys::path::append(fdoPath, "fdo.json");
  llvm::outs() << llvm::format(
      "\nbest: iteration %u, cycles -%.1f%%, DMA "
      "stall cycles -%.1f%%, results %s; wrote %s\n",
      result.bestIteration, 100 * summary["cycles_reduction"].get<double>(),
      100 * summary["dma_stall_reduction"].get<double>(),
      failedIt && failedIt->failure->kind == FdoFailure::Kind::Mismatch
          ? "DIFFER (iteration rejected)"
      : result.iterations.front().truncated
          ? "not compared (iteration 0 truncated)"
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
}

/// fdo's exit code: 2 when an iteration was rejected (its failure on
/// stderr, with the reproducer's final path) or iteration 0 was truncated,
/// else 0.
static int reportFdoExit(const FdoResult &result, llvm::StringRef outputDir,
                         const StagedDirectory &staged) {
  const FdoIteration *failedIt = result.getFailedIteration();
  if (result.iterations.front().truncated && !failedIt)
    return 2;
  if (!failedIt)
    return 0;
  const FdoFailure &f = *failedIt->failure;
  llvm::WithColor::error(llvm::errs(), "accel-replay")
      << "iteration " << failedIt->index << " rejected: " << f.describe()
      << ": " << f.message
      << (f.reproducer.empty()
              ? std::string()
              : "\nreproducer: " + staged.toTargetPaths(f.reproducer))
      << "\nkept iteration " << result.bestIteration << "'s program ("
      << outputDir << "/best.mlir)\n";
  return 2;
}

int cmdFdo(MLIRContext &ctx) {
  // Registered for fdo so that the mistake gets its own message, not LLVM's
  // nearest option.
  if (!analyze)
    return fail("--analyze=false: fdo analyzes every run, since its passes "
                "read the analyzer's metrics (the DMA stalls, suggestions "
                "and costs); --analyze=false is for run and replay");
  CommandInput input(ctx);
  if (!input.load(CommandInput::OpIds::Leave))
    return 1;
  auto run = runOptions(*input.module);
  if (!run)
    return 1;
  FdoOptions options = getFdoOptions(std::move(*run));
  // A bad pipeline: one error before anything runs or is written.
  if (auto e = checkFdoPipelines(&ctx, options, input.config))
    return fail(llvm::toString(std::move(e)));
  // Every iteration is written beside the output directory and moved into
  // place at the end, with --output-dir's files: a failed or killed loop
  // leaves the previous ones (docs/output.md).
  std::string outputDir = outputDirectory();
  if (!outputTensorDir.empty())
    if (auto e = checkOutputDirectory(outputTensorDir))
      return fail("--output-dir: " + llvm::toString(std::move(e)));
  auto staged = StagedDirectory::create(outputDir);
  if (!staged)
    return fail(llvm::toString(staged.takeError()));
  options.outputDir = staged->path().str();
  llvm::outs() << llvm::format("%-4s %12s %12s %10s %10s %7s %10s %-34s %s\n",
                               "iter", "cycles", "dma_stall", "base",
                               "transfer", "mxu%", "vmem_KiB", "transforms",
                               "results");
  llvm::outs().flush();
  FdoProgress progress;
  attachFdoProgress(options, progress);
  llvm::Expected<FdoResult> result =
      runFdoLoop(*input.module, input.config, options);
  // Paths the loop reports (a reproducer) name the final directory.
  if (!result)
    return fail(staged->toTargetPaths(llvm::toString(result.takeError())));
  progress.line.finish(
      std::to_string(result->iterations.size()) + " iteration" +
      (result->iterations.size() == 1 ? "" : "s") + ", " +
      std::to_string(progress.runs) + " run" + (progress.runs == 1 ? "" : "s") +
      ", " + formatCount(progress.simulated) +
      " instructions simulated and analyzed");
  json out = result->toJson(options, input.config);
  printFdoOutcome(*result);
  // --output-dir: the best program's final HBM arguments, from one more run
  // that keeps them; staged, and committed with -o.
  StagedFiles tensors;
  std::string tensorsLine;
  if (!outputTensorDir.empty()) {
    auto line = stageBestOutputs(*result, input.config, options.run, tensors);
    if (!line)
      return fail("--output-dir: " + llvm::toString(line.takeError()));
    tensorsLine = *line;
  }
  if (auto e = staged->commit())
    return fail(llvm::toString(std::move(e)));
  if (auto e = tensors.commit())
    return fail("--output-dir: " + llvm::toString(std::move(e)));
  printFdoBest(*result, out["summary"], outputDir);
  llvm::outs() << tensorsLine;
  llvm::outs().flush();
  return reportFdoExit(*result, outputDir, *staged);
}

/// Range checks of the numeric options; an error message or "".
static std::string checkOptions() {
  // "OPTION must be in [LO, HI] (WHY); got V" for a value out of range.
  auto range = [](llvm::StringRef name, const cl::opt<uint64_t> &opt,
                  uint64_t lo, uint64_t hi, llvm::StringRef why) {
    uint64_t v = opt;
    if (v >= lo && v <= hi)
      return std::string();
    return (name + " must be in [" + llvm::Twine(lo) + ", " +
            llvm::Twine(hi) + "] (" + why + "); got " + llvm::Twine(v))
        .str();
  };
  for (const std::string &bad :
       {range("--iterations", iterations, 0, kMaxIterations,
              "the loop also stops at the first iteration that is not "
              "faster"),
        range("-j", sweepJobs, 0, kMaxSweepJobs,
              "threads; 0: every hardware thread"),
        range("--max-instructions", maxInstructions, 0, kMaxOptionCount,
              "0: what the available memory allows"),
        range("--bucket-cycles", bucketCycles, 0, kMaxOptionCount,
              "0: about 200 buckets"),
        range("--timeline-max-dmas", timelineMaxDmas, 0, kMaxOptionCount,
              "DMAs drawn per chip"),
        range("--timeline-max-slices", timelineMaxSlices, 0, kMaxOptionCount,
              "MXU or VPU slices drawn per chip"),
        range("--count", recordCount, 1, kMaxRecordCount, "instructions"),
        range("--hit", hitCount, 1, kMaxOptionCount,
              "arrivals at the breakpoint")})
    if (!bad.empty())
      return bad;
  return "";
}

/// `config`: the effective config's merged JSON, which is itself a valid
/// config file (its hash is the one report.txt and metrics.json give).
int cmdConfig() {
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

} // namespace accel::tool

namespace accel::test {
/// --accel-test-break (test/lib/TestFdoFailures.cpp), for tests.
void registerTestFdoFailuresPass();
} // namespace accel::test

int main(int argc, char **argv) {
  llvm::InitLLVM y(argc, argv);
  accel::initToolOutputs("accel-replay");
  cl::AddExtraVersionPrinter(accel::printVersion);
  cl::HideUnrelatedOptions(getOptionCategories());
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
  loadAccelDialects(ctx);
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
