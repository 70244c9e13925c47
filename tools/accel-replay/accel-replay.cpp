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
//
// Exit codes: 0 success; 1 bad input, a simulated fault, or (fdo) results
// that differ from iteration 0.
//
//===----------------------------------------------------------------------===//

#include "accel/Analysis/Analyzer.h"
#include "accel/Analysis/DmaStallAnalysis.h"
#include "accel/Conversion/AccelToISA.h"
#include "accel/Dialect/Accel/AccelOps.h"
#include "accel/InitAccel.h"
#include "accel/Replay/Recorder.h"
#include "accel/Replay/Replayer.h"
#include "accel/Sim/Device.h"
#include "accel/Sim/Simulator.h"

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
    "fdo", "Feedback-directed loop: run, attach metrics, hoist DMAs, re-run");
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

static cl::OptionCategory category("accel-replay options");
static cl::opt<std::string> inputFile(cl::Positional, cl::desc("<input>"),
                                      cl::Required, cl::sub(runCmd),
                                      cl::sub(fdoCmd), cl::sub(asmCmd),
                                      cl::sub(lowerCmd), cl::sub(disasmCmd),
                                      cl::sub(recordCmd), cl::sub(replayCmd),
                                      cl::sub(traceInfoCmd), cl::sub(plotCmd),
                                      cl::cat(category));
static cl::opt<std::string>
    outputPath("o",
               cl::desc("Output directory (run, fdo, replay) or file (asm, "
                        "lower, record)"),
               cl::value_desc("path"), cl::sub(runCmd), cl::sub(fdoCmd),
               cl::sub(asmCmd), cl::sub(lowerCmd), cl::sub(disasmCmd),
               cl::sub(recordCmd), cl::sub(replayCmd), cl::cat(category));
static cl::opt<std::string>
    configFile("config",
               cl::desc("Machine config JSON overriding the embedded default "
                        "(docs/config.md)"),
               cl::value_desc("file"), cl::sub(runCmd), cl::sub(fdoCmd),
               cl::sub(asmCmd), cl::sub(lowerCmd), cl::sub(recordCmd),
               cl::cat(category));
static cl::opt<std::string> entryName("entry",
                                      cl::desc("Function to run (default: "
                                               "main, or the only function)"),
                                      cl::sub(runCmd), cl::sub(fdoCmd),
                                      cl::sub(asmCmd), cl::sub(lowerCmd),
                                      cl::sub(recordCmd), cl::cat(category));
static cl::opt<unsigned> iterations("iterations",
                                    cl::desc("FDO iterations after the "
                                             "baseline (default 2)"),
                                    cl::init(2), cl::sub(fdoCmd),
                                    cl::cat(category));
static cl::opt<std::string> fdoPasses(
    "passes",
    cl::desc("Transforms of each FDO iteration, as an MLIR textual pass "
             "pipeline (accel-opt's syntax, e.g. "
             "'accel-hoist-dma,accel-pipeline-dma{max-group=4},cse'); "
             "default: the passes of --accel-fdo-pipeline with the config's "
             "VMEM capacity"),
    cl::value_desc("pipeline"), cl::sub(fdoCmd), cl::cat(category));
static cl::opt<uint64_t> maxInstructions(
    "max-instructions",
    cl::desc("Stop a run that executes more instructions (default 2^32)"),
    cl::init(1ull << 32), cl::sub(runCmd), cl::sub(fdoCmd), cl::sub(recordCmd),
    cl::cat(category));
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

static int fail(const llvm::Twine &msg) {
  llvm::WithColor::error(llvm::errs(), "accel-replay") << msg << "\n";
  return 1;
}

/// Writes `text` to `path` through a temporary file and a rename, so a
/// failed run never leaves a partial file.
static llvm::Error writeFile(llvm::StringRef path, llvm::StringRef text) {
  return llvm::writeToOutput(path, [&](llvm::raw_ostream &os) {
    os << text;
    return llvm::Error::success();
  });
}

static llvm::Expected<sim::MachineConfig> loadConfig() {
  if (configFile.empty())
    return sim::MachineConfig::getDefault();
  return sim::MachineConfig::fromFile(configFile);
}

namespace {
/// One simulated run and its analysis.
struct RunResult {
  sim::RunSummary summary;
  json metrics;
  std::string timeline; ///< timeline.json text
  std::map<uint64_t, std::vector<uint8_t>> hbm;
  isa::Program program;
};
} // namespace

static OwningOpRef<ModuleOp> parseInput(MLIRContext &ctx,
                                        llvm::SourceMgr &sourceMgr) {
  std::string err;
  auto file = openInputFile(inputFile, &err);
  if (!file) {
    fail(err);
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

/// Parses the input and gives every op its stable id; nullptr after a
/// diagnostic on error.
static OwningOpRef<ModuleOp> loadModule(MLIRContext &ctx,
                                        llvm::SourceMgr &sourceMgr) {
  auto module = parseInput(ctx, sourceMgr);
  if (!module)
    return nullptr;
  if (failed(runPasses(*module, [](OpPassManager &pm) {
        pm.addPass(createAccelAssignOpIds());
      })))
    return nullptr;
  return module;
}

static LoweringOptions loweringOptions(const sim::MachineConfig &config);

/// Parses the input, assigns op ids and lowers it; failure after a
/// diagnostic.
static FailureOr<isa::Program> loadAndLower(MLIRContext &ctx,
                                            const sim::MachineConfig &config) {
  llvm::SourceMgr sourceMgr;
  SourceMgrDiagnosticHandler handler(sourceMgr, &ctx);
  auto module = loadModule(ctx, sourceMgr);
  if (!module)
    return failure();
  return lowerToIsa(*module, loweringOptions(config));
}

static LoweringOptions loweringOptions(const sim::MachineConfig &config) {
  LoweringOptions options;
  options.entry = entryName;
  options.vmemCapacity = config.vmemBytes;
  options.vmemAlign = config.vmemPageBytes;
  options.hbmCapacity = config.hbmBytes;
  return options;
}

/// metrics.json (DMA stalls plus the analyzer's sections) and timeline.json
/// of a finished run or replay.
static void finishAnalysis(RunResult &r, const sim::MachineConfig &config,
                           const analysis::DmaStallCollector &collector,
                           const analysis::Analyzer &analyzer) {
  r.metrics = analysis::buildMetrics(r.program, config, r.summary, collector);
  if (!analyze)
    return;
  analysis::AnalyzerOptions options;
  options.bucketCycles = bucketCycles;
  analyzer.addToMetrics(r.metrics, options);
  llvm::raw_string_ostream os(r.timeline);
  analyzer.writeTimeline(os, r.metrics);
}

static llvm::Expected<RunResult> simulate(ModuleOp module,
                                          const sim::MachineConfig &config) {
  FailureOr<isa::Program> program = lowerToIsa(module, loweringOptions(config));
  if (failed(program))
    return llvm::createStringError("lowering failed");
  RunResult r;
  r.program = std::move(*program);
  sim::Simulator simulator(config, r.program);
  analysis::DmaStallCollector collector;
  analysis::Analyzer analyzer(r.program, config);
  simulator.addObserver(&collector);
  if (analyze)
    simulator.addObserver(&analyzer);
  auto summary = simulator.run(maxInstructions);
  if (!summary)
    return summary.takeError();
  r.summary = *summary;
  finishAnalysis(r, config, collector, analyzer);
  r.hbm = simulator.getMemory().dirtyHbmPages();
  return r;
}

static llvm::Error writeRunOutputs(llvm::StringRef dir, const RunResult &r,
                                   ModuleOp module) {
  if (auto ec = llvm::sys::fs::create_directories(dir))
    return llvm::createStringError("cannot create directory '%s': %s",
                                   dir.str().c_str(), ec.message().c_str());
  auto path = [&](const char *name) {
    llvm::SmallString<256> p(dir);
    llvm::sys::path::append(p, name);
    return std::string(p);
  };
  if (auto e = writeFile(path("metrics.json"), r.metrics.dump(2) + "\n"))
    return e;
  if (!r.timeline.empty()) {
    if (auto e = writeFile(path("timeline.json"), r.timeline))
      return e;
  } else {
    // --analyze=false: no timeline; do not leave an older one behind.
    llvm::sys::fs::remove(path("timeline.json"));
  }
  std::string report, listing, ir;
  llvm::raw_string_ostream ros(report), los(listing), ios(ir);
  analysis::writeReport(r.metrics, ros);
  r.program.printListing(los);
  module.print(ios);
  if (auto e = writeFile(path("report.txt"), report))
    return e;
  if (auto e = writeFile(path("program.lst"), listing))
    return e;
  return writeFile(path("program.mlir"), ir);
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
  auto module = loadModule(ctx, sourceMgr);
  if (!module)
    return 1;
  auto r = simulate(*module, *config);
  if (!r)
    return fail(llvm::toString(r.takeError()));
  std::string dir = outputPath.empty() ? std::string("accel-out") : outputPath.getValue();
  if (auto e = writeRunOutputs(dir, *r, *module))
    return fail(llvm::toString(std::move(e)));
  analysis::writeReport(r->metrics, llvm::outs());
  llvm::outs() << "\nwrote " << dir << "/{metrics.json,"
               << (analyze ? "timeline.json," : "")
               << "report.txt,program.lst,program.mlir}\n";
  return 0;
}

static int cmdFdo(MLIRContext &ctx) {
  auto config = configOrFail();
  if (!config)
    return 1;
  llvm::SourceMgr sourceMgr;
  SourceMgrDiagnosticHandler handler(sourceMgr, &ctx);
  auto module = loadModule(ctx, sourceMgr);
  if (!module)
    return 1;
  std::string dir = outputPath.empty() ? std::string("accel-out") : outputPath.getValue();
  uint64_t vmemBytes = 0;

  // Each pass of the pipeline as its own textual pipeline.
  std::vector<std::string> passTexts;
  {
    OpPassManager pm("builtin.module");
    if (fdoPasses.empty()) {
      FdoPipelineOptions o;
      o.vmemCapacity = config->vmemBytes;
      buildAccelFdoPipeline(pm, o);
    } else {
      std::string err;
      llvm::raw_string_ostream errs(err);
      if (failed(parsePassPipeline(fdoPasses, pm, errs)))
        return fail("--passes: " +
                    llvm::join(llvm::split(llvm::StringRef(err).trim(), "\n\n"),
                               "; "));
    }
    for (Pass &pass : pm.getPasses()) {
      std::string text;
      llvm::raw_string_ostream os(text);
      pass.printAsTextualPipeline(os);
      passTexts.push_back(text);
    }
  }
  llvm::outs() << llvm::format("%-4s %12s %12s %10s %10s %7s %10s %-34s %s\n",
                               "iter", "cycles", "dma_stall", "base",
                               "transfer", "mxu%", "vmem_KiB", "transforms",
                               "results");
  json iterationsJson = json::array();
  std::map<uint64_t, std::vector<uint8_t>> baselineHbm;
  isa::Program baselineProgram;
  bool allMatch = true;
  // The fastest program so far: an iteration that is slower ends the loop
  // (the passes are deterministic, so the next one would repeat it).
  unsigned bestIt = 0;
  uint64_t bestCycles = 0;
  for (unsigned it = 0; it <= iterations; ++it) {
    unsigned hoisted = 0, parallelized = 0, pipelined = 0, pinned = 0,
             sunk = 0;
    json passesRun = json::array();
    if (it > 0) {
      // Feedback: attach the previous run's metrics, then transform.
      module->walk([](Operation *op) {
        op->removeAttr("accel.hoisted");
        op->removeAttr("accel.sunk");
        op->removeAttr("accel.parallelized");
        op->removeAttr("accel.pipelined");
        op->removeAttr("accel.pinned");
        op->removeAttr("accel.suggestions");
        op->removeAttr("accel.backtail");
      });
      const json &prev = iterationsJson.back()["metrics_json"];
      if (failed(attachMetrics(*module, prev)))
        return 1;
      // The passes one at a time, to count each one's moves by the
      // attribute it leaves (a later pass may clone ops).
      for (const std::string &passText : passTexts) {
        std::string name;
        if (failed(runPasses(*module, [&](OpPassManager &pm) {
              // Parsed before: cannot fail here.
              (void)parsePassPipeline(passText, pm);
              // A nested pipeline (func.func(...)) has no argument.
              StringRef arg = pm.begin()->getArgument();
              name = arg.empty() ? passText : arg.str();
            })))
          return 1;
        // Moves of the accel transforms, by the attribute each leaves
        // (other passes: none counted).
        std::optional<unsigned> moves;
        auto count = [&](llvm::function_ref<bool(Operation *)> moved) {
          unsigned n = 0;
          module->walk([&](Operation *op) { n += moved(op); });
          moves = n;
        };
        auto has = [](StringRef attr) {
          return [attr](Operation *op) { return op->hasAttr(attr); };
        };
        auto dmaHas = [](StringRef attr) {
          return [attr](Operation *op) {
            return llvm::isa<accel::DmaStartOp>(op) && op->hasAttr(attr);
          };
        };
        if (name == "accel-pin-vmem")
          count(dmaHas("accel.pinned")), pinned += *moves;
        else if (name == "accel-parallelize-dma")
          count(has("accel.parallelized")), parallelized += *moves;
        else if (name == "accel-hoist-dma")
          count(has("accel.hoisted")), hoisted += *moves;
        else if (name == "accel-sink-dma-wait")
          count(has("accel.sunk")), sunk += *moves;
        else if (name == "accel-pipeline-dma")
          count(dmaHas("accel.pipelined")), pipelined += *moves;
        passesRun.push_back(
            {{"pass", name},
             {"applied", moves ? json(*moves) : json(nullptr)}});
      }
      // New ops (second buffers, cloned DMAs) get op ids.
      if (failed(runPasses(*module, [](OpPassManager &pm) {
            pm.addPass(createAccelAssignOpIds());
          })))
        return 1;
    }
    auto r = simulate(*module, *config);
    if (!r)
      return fail("iteration " + llvm::Twine(it) + ": " +
                  llvm::toString(r.takeError()));
    if (it == 0) {
      baselineHbm = r->hbm;
      baselineProgram = r->program;
    }
    // Peak VMEM: the static allocation of this iteration's program.
    vmemBytes = 0;
    for (const isa::Buffer &b : r->program.buffers)
      if (b.space == isa::MemSpace::VMEM)
        vmemBytes = std::max(vmemBytes, b.base + b.bytes);
    std::optional<uint64_t> diff =
        sim::compareHbm(baselineHbm, r->hbm, baselineProgram.buffers);
    bool match = !diff.has_value();
    allMatch &= match;
    llvm::SmallString<256> iterDir(dir);
    llvm::sys::path::append(iterDir, "iter" + std::to_string(it));
    if (auto e = writeRunOutputs(iterDir, *r, *module))
      return fail(llvm::toString(std::move(e)));

    const json &m = r->metrics;
    uint64_t base = m["dma_stall_cycles"]["base"], transfer =
                                                       m["dma_stall_cycles"]["transfer"];
    double mxu = m["units"]["mxu"]["utilization"];
    std::string transforms =
        it == 0 ? "baseline"
                : "hoist x" + std::to_string(hoisted) +
                      (parallelized ? " par x" + std::to_string(parallelized)
                                    : std::string()) +
                      (sunk ? " sink x" + std::to_string(sunk) : std::string()) +
                      (pipelined ? " pipe x" + std::to_string(pipelined)
                                 : std::string()) +
                      (pinned ? " pin x" + std::to_string(pinned)
                              : std::string());
    llvm::outs() << llvm::format("%-4u %12llu %12llu %10llu %10llu %6.1f%% "
                                 "%10llu %-34s %s\n",
                                 it, (unsigned long long)r->summary.totalCycles,
                                 (unsigned long long)(base + transfer),
                                 (unsigned long long)base,
                                 (unsigned long long)transfer, 100 * mxu,
                                 (unsigned long long)(vmemBytes / 1024),
                                 transforms.c_str(),
                                 match ? "identical" : "DIFFER");
    if (!match)
      llvm::errs() << "iteration " << it
                   << ": final HBM differs from iteration 0 at HBM address 0x"
                   << llvm::utohexstr(*diff) << "\n";
    json row = {{"iteration", it},
                {"total_cycles", r->summary.totalCycles},
                {"instructions", r->summary.instructions},
                {"dma_stall_cycles", base + transfer},
                {"dma_stall_base_cycles", base},
                {"dma_stall_transfer_cycles", transfer},
                {"mxu_utilization", mxu},
                {"vmem_bytes", vmemBytes},
                {"transforms", json::array()},
                {"results_match", match},
                {"metrics", "iter" + std::to_string(it) + "/metrics.json"},
                {"metrics_json", m}};
    row["transforms"] = std::move(passesRun);
    iterationsJson.push_back(std::move(row));
    if (it == 0 || r->summary.totalCycles < bestCycles) {
      bestIt = it;
      bestCycles = r->summary.totalCycles;
    } else if (r->summary.totalCycles > bestCycles) {
      llvm::outs() << "iteration " << it << " is slower than iteration "
                   << bestIt << " (" << r->summary.totalCycles << " > "
                   << bestCycles << " cycles): stopping; iteration "
                   << bestIt << "'s program is the result\n";
      break;
    }
  }
  // fdo.json: drop the embedded metrics (they are in iterN/metrics.json).
  json out = {{"schema", "accel-fdo"},
              {"schema_version", 2},
              {"input", inputFile.getValue()},
              {"config", {{"name", config->name}, {"hash", config->hash()}}},
              {"iterations", json::array()}};
  for (json row : iterationsJson) {
    row.erase("metrics_json");
    out["iterations"].push_back(std::move(row));
  }
  const json &first = out["iterations"].front(),
             &best = out["iterations"][bestIt];
  double c0 = first["total_cycles"], cN = best["total_cycles"];
  double s0 = first["dma_stall_cycles"], sN = best["dma_stall_cycles"];
  out["summary"] = {
      {"best_iteration", bestIt},
      {"cycles_reduction", c0 ? 1.0 - cN / c0 : 0.0},
      {"dma_stall_reduction", s0 ? 1.0 - sN / s0 : 0.0},
      {"results_match", allMatch}};
  // The lower bounds (docs/metrics.md#roofline), each the smaller of
  // iteration 0's and the best program's: a transform such as pinning
  // removes work, so only the smaller one bounds both.
  std::string boundsLine;
  const json &m0 = iterationsJson.front()["metrics_json"],
             &mB = iterationsJson[bestIt]["metrics_json"];
  if (m0.contains("roofline") && mB.contains("roofline")) {
    // The smaller bound and the resource or path that sets it.
    auto smaller = [&](const char *key, const char *byKey) {
      const json &r0 = m0["roofline"], &rB = mB["roofline"];
      const json &r = r0[key].get<uint64_t>() <= rB[key].get<uint64_t>() ? r0
                                                                        : rB;
      return std::make_pair(r[key].get<uint64_t>(),
                            r[byKey].get<std::string>());
    };
    auto [roof, roofBy] = smaller("lower_bound_cycles", "bound_by");
    auto [latency, latencyBy] =
        smaller("latency_lower_bound_cycles", "latency_bound_by");
    auto ratio = [&](uint64_t bound) {
      return bound ? std::round(10000.0 * cN / double(bound)) / 10000.0 : 0.0;
    };
    out["summary"]["lower_bound_cycles"] = roof;
    out["summary"]["bound_by"] = roofBy;
    out["summary"]["best_over_lower_bound"] = ratio(roof);
    out["summary"]["latency_lower_bound_cycles"] = latency;
    out["summary"]["latency_bound_by"] = latencyBy;
    out["summary"]["best_over_latency_bound"] = ratio(latency);
    boundsLine = llvm::formatv("bounds: {0} cycles (roofline; {1:F2}x), {2} "
                               "cycles (latency-aware; {3:F2}x)\n",
                               roof, ratio(roof), latency, ratio(latency))
                     .str();
  }
  llvm::SmallString<256> fdoPath(dir);
  llvm::sys::path::append(fdoPath, "fdo.json");
  if (auto e = writeFile(fdoPath, out.dump(2) + "\n"))
    return fail(llvm::toString(std::move(e)));
  llvm::outs() << llvm::format("\nbest: iteration %u, cycles -%.1f%%, DMA "
                               "stall cycles -%.1f%%, results %s; wrote %s\n",
                               bestIt,
                               100 * out["summary"]["cycles_reduction"].get<double>(),
                               100 * out["summary"]["dma_stall_reduction"].get<double>(),
                               allMatch ? "identical" : "DIFFER",
                               std::string(fdoPath).c_str())
               << boundsLine;
  if (!allMatch)
    return fail("an optimized program's final HBM differs from iteration 0");
  return 0;
}

static int cmdAsmOrLower(MLIRContext &ctx, bool binary) {
  auto config = configOrFail();
  if (!config)
    return 1;
  FailureOr<isa::Program> program = loadAndLower(ctx, *config);
  if (failed(program))
    return 1;
  if (binary) {
    if (outputPath.empty())
      return fail("lower needs -o FILE");
    std::vector<uint8_t> image = program->toImage();
    if (auto e = writeFile(outputPath,
                           llvm::StringRef((const char *)image.data(),
                                           image.size())))
      return fail(llvm::toString(std::move(e)));
    return 0;
  }
  std::string text;
  llvm::raw_string_ostream os(text);
  program->printListing(os);
  if (outputPath.empty() || outputPath == "-") {
    llvm::outs() << text;
    return 0;
  }
  if (auto e = writeFile(outputPath, text))
    return fail(llvm::toString(std::move(e)));
  return 0;
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
  sim::Device device(*config, *program);
  if (!breakAt.empty()) {
    auto pc = sim::resolveBreakpoint(*program, breakAt);
    if (!pc)
      return fail(llvm::toString(pc.takeError()));
    device.setBreakpoint(*pc, hitCount);
    if (auto e = device.continueToBreakpoint(maxInstructions))
      return fail("--break-at=" + breakAt + ": " + llvm::toString(std::move(e)));
  }
  auto trace = replay::record(device, *program, config->jsonText, recordCount,
                              [](uint64_t done, uint64_t total) {
                                showProgress("recording", done, total);
                              });
  if (!trace)
    return fail(llvm::toString(trace.takeError()));
  std::vector<uint8_t> bytes = trace->serialize(compressTrace);
  if (auto e = writeFile(outputPath, llvm::StringRef((const char *)bytes.data(),
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
  auto replayer = replay::Replayer::create(*trace);
  if (!replayer)
    return fail(inputFile + ": " + llvm::toString(replayer.takeError()));
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
  finishAnalysis(r, (*replayer)->getConfig(), collector, analyzer);
  r.metrics["window"] = {{"start_instruction", trace->startIndex},
                         {"start_pc", trace->startPc},
                         {"instructions", trace->pcs.size()}};
  std::string dir = outputPath.empty() ? std::string("accel-out")
                                       : outputPath.getValue();
  if (auto e = llvm::sys::fs::create_directories(dir))
    return fail("cannot create directory '" + dir + "': " + e.message());
  llvm::SmallString<256> metricsPath(dir), reportPath(dir), timelinePath(dir);
  llvm::sys::path::append(metricsPath, "metrics.json");
  llvm::sys::path::append(reportPath, "report.txt");
  llvm::sys::path::append(timelinePath, "timeline.json");
  if (!r.timeline.empty()) {
    if (auto e = writeFile(timelinePath, r.timeline))
      return fail(llvm::toString(std::move(e)));
  } else {
    llvm::sys::fs::remove(timelinePath);
  }
  std::string report;
  llvm::raw_string_ostream ros(report);
  analysis::writeReport(r.metrics, ros);
  if (auto e = writeFile(metricsPath, r.metrics.dump(2) + "\n"))
    return fail(llvm::toString(std::move(e)));
  if (auto e = writeFile(reportPath, report))
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

/// Runs utils/accel-plot.py (copied next to this executable) with a Python
/// that has matplotlib: $ACCEL_PYTHON, Debian's /usr/bin/python3, or the
/// python3 on PATH.
static int cmdPlot(const char *argv0) {
  std::string exe = llvm::sys::fs::getMainExecutable(
      argv0, reinterpret_cast<void *>(&cmdPlot));
  llvm::SmallString<256> script(llvm::sys::path::parent_path(exe));
  llvm::sys::path::append(script, "accel-plot.py");
  if (!llvm::sys::fs::exists(script))
    return fail("cannot find " + script + " (it is copied there by the build)");
  std::vector<std::string> pythons;
  if (const char *env = std::getenv("ACCEL_PYTHON"))
    pythons.push_back(env);
  pythons.push_back("/usr/bin/python3");
  if (auto p = llvm::sys::findProgramByName("python3"))
    pythons.push_back(*p);
  for (const std::string &python : pythons) {
    if (!llvm::sys::fs::can_execute(python))
      continue;
    // Prefer an interpreter that has matplotlib.
    llvm::StringRef check[] = {python, "-c", "import matplotlib"};
    std::optional<llvm::StringRef> quiet[] = {std::nullopt, llvm::StringRef(""),
                                              llvm::StringRef("")};
    if (llvm::sys::ExecuteAndWait(python, check, std::nullopt, quiet) != 0 &&
        &python != &pythons.back())
      continue;
    llvm::StringRef args[] = {python, script, inputFile};
    std::string err;
    int rc = llvm::sys::ExecuteAndWait(python, args, std::nullopt, {}, 0, 0,
                                       &err);
    if (rc < 0)
      return fail("cannot run " + python + ": " + err);
    return rc;
  }
  return fail("no python3 found to run " + script);
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
  program->printListing(llvm::outs());
  return 0;
}

int main(int argc, char **argv) {
  llvm::InitLLVM y(argc, argv);
  cl::HideUnrelatedOptions(category);
  cl::ParseCommandLineOptions(
      argc, argv,
      "accel-replay: lower accel programs to machine code, run them on the "
      "bundled simulator, analyze DMA stalls and close the FDO loop\n");
  DialectRegistry registry;
  registerAccelDialects(registry);
  // For --passes: the accel passes and the upstream clean-ups accel-opt has.
  registerAccelPasses();
  registerAccelFdoPipeline();
  registerCanonicalizerPass();
  registerCSEPass();
  MLIRContext ctx(registry);
  ctx.loadAllAvailableDialects();
  ctx.printOpOnDiagnostic(false);
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
    return cmdPlot(argv[0]);
  cl::PrintHelpMessage();
  return 1;
}
