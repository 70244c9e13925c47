//===- SweepCommand.cpp - accel-replay sweep ------------------------------===//
//
// Runs a program (with the FDO loop) or replays a trace on every point of
// a grid of machine configs, in parallel (lib/Fdo/Sweep.cpp;
// docs/sweep.md), and writes sweep.csv, sweep.json and sweep.png.
//
//===----------------------------------------------------------------------===//

#include "Tool.h"

#include "accel/Analysis/Analyzer.h"
#include "accel/Analysis/DmaStallAnalysis.h"
#include "accel/Conversion/AccelToISA.h"
#include "accel/Fdo/FdoLoop.h"
#include "accel/Fdo/Load.h"
#include "accel/Fdo/NpyIO.h"
#include "accel/Fdo/Sweep.h"
#include "accel/Replay/Replayer.h"
#include "accel/Support/Input.h"
#include "accel/Support/Json.h"
#include "accel/Support/Nesting.h"
#include "accel/Support/Output.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/Threading.h"
#include "llvm/Support/WithColor.h"

#include <nlohmann/json.hpp>

using namespace mlir;
using namespace accel;
using namespace accel::tool;
using json = nlohmann::json;

namespace accel::tool {

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
  // (--bind was checked by checkSweepProgram.)
  std::vector<std::string> shapes(bindShapes.begin(), bindShapes.end());
  auto bind = getShapeBindings({}, shapes);
  if (!bind)
    return failWith(llvm::toString(bind.takeError()));
  if (!module || failed(adoptModuleChips(config, *module)) ||
      failed(runFrontend(*module, config, *bind)))
    return failWith("");
  row.configHash = config.hash();
  OwningOpRef<ModuleOp> original = module->clone();
  if (failed(assignOpIds(*module)))
    return failWith("");
  RunOptions options = baseRunOptions();
  options.stopAtBudget = false;
  auto r = simulateModule(*module, config, options);
  if (!r)
    return failWith(llvm::toString(r.takeError()));
  fillSweepRow(row, *r->metrics);
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
  auto timeline = std::make_shared<RunTimeline>(
      (*replayer)->getProgram(), (*replayer)->getConfig(), 1, baseRunOptions());
  (*replayer)->addObserver(&collector);
  (*replayer)->addObserver(&timeline->getAnalyzer(0));
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
  finishAnalysis(r, (*replayer)->getConfig(), collector, timeline, 0,
                 baseRunOptions());
  fillSweepRow(row, *r.metrics);
  return row;
}

/// What a program sweep checks once, before any point runs (docs/sweep.md):
/// the program parses and the frontend converts it (on `config`, the first
/// point's machine), the entry function exists, and --passes and
/// --trial-passes parse with valid options. Each point would otherwise fail
/// alike, as a row of errors; here it is one error (with its location),
/// exit 1, and nothing is written. The exit code, 0 when all is well.
static int checkSweepProgram(MLIRContext &ctx, llvm::StringRef source,
                             sim::MachineConfig config) {
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(source, inputFile), llvm::SMLoc());
  SourceMgrDiagnosticHandler handler(sourceMgr, &ctx);
  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(sourceMgr, &ctx);
  std::optional<std::vector<std::string>> bind = shapeBindingsOrFail();
  if (!module || !bind || failed(adoptModuleChips(config, *module)) ||
      failed(runFrontend(*module, config, *bind)))
    return 1;
  if (!findEntryFunction(*module, entryName)) {
    if (!entryName.empty())
      return fail("--entry: " + inputFile + " has no function named '" +
                  entryName + "'");
    return fail(inputFile +
                ": cannot choose an entry function: no function is named "
                "'main' and there is not exactly one function with a body "
                "(--entry)");
  }
  FdoOptions fdo;
  fdo.passPipeline = fdoPasses;
  if (fdoTrialPasses.getNumOccurrences())
    fdo.trialPipeline = fdoTrialPasses;
  if (auto texts = getFdoPassPipelines(&ctx, fdo, config); !texts)
    return fail("--passes: " + llvm::toString(texts.takeError()));
  if (auto texts = getFdoTrialPipelines(&ctx, fdo); !texts)
    return fail("--trial-passes: " + llvm::toString(texts.takeError()));
  return 0;
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

int cmdSweep(MLIRContext &ctx, const char *argv0) {
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
  // A program or a trace: read with a trace's limits, then a program's.
  auto buf = readInputFile(inputFile, InputKind::Trace);
  if (!buf)
    return fail(inputFile +
                ": cannot read: " + llvm::toString(buf.takeError()));
  llvm::StringRef bytes = (*buf)->getBuffer();
  bool isTrace = bytes.starts_with("ACCELTRC");
  uint64_t programLimit = getInputLimits(InputKind::Program).fileBytes;
  if (!isTrace && bytes.size() > programLimit)
    return fail(inputFile + ": cannot read: input is larger than the " +
                formatByteLimit(programLimit) + " limit for " +
                getInputKindName(InputKind::Program));
  // The base config: the trace's (a replay's machine), else the default,
  // each with --config merged in.
  std::optional<replay::Trace> trace;
  std::string baseText;
  std::string overrideText;
  if (!configFile.empty()) {
    auto cbuf = readInputFile(configFile, InputKind::Json);
    if (!cbuf)
      return fail(configFile +
                  ": cannot read: " + llvm::toString(cbuf.takeError()));
    overrideText = (*cbuf)->getBuffer().str();
  }
  if (isTrace) {
    auto t = decodeTrace(inputFile, bytes);
    if (!t)
      return fail(llvm::toString(t.takeError()));
    trace = std::move(*t);
    // The other chips' part of a chip-of-a-system trace was timed on the
    // recorded machine: a sweep would re-time one side only.
    if (trace->system)
      return fail(inputFile + ": the trace is chip " +
                  std::to_string(trace->system->chip) + " of a system of " +
                  std::to_string(trace->system->chips) +
                  " chips, which replays on its recorded machine only; "
                  "sweep the program (accel-replay sweep PROGRAM.mlir) "
                  "instead");
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
  // The program, its entry and the passes: once, before any point. A trace
  // of a chip alone is its window: a point of several chips is a bad grid.
  if (!isTrace)
    if (int rc = checkSweepProgram(
            ctx, bytes, points.empty() ? *base : *configs[points.front()]))
      return rc;
  if (isTrace)
    for (uint64_t p : points)
      if (configs[p]->chips != 1)
        return fail("point " + std::to_string(p) + " (" + grid->describe(p) +
                    "): field 'chips': a trace holds one chip's execution; "
                    "it replays on 1 chip, not " +
                    std::to_string(configs[p]->chips));
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
  Progress progress("accel-replay sweep");
  std::vector<SweepRow> rows = runSweep(
      *grid, *shard, sweepJobs,
      [&](uint64_t p) {
        return isTrace ? sweepTracePoint(*trace, *configs[p])
                       : sweepProgramPoint(registry, bytes, *configs[p]);
      },
      [&](const SweepRow &r, uint64_t done, uint64_t total) {
        // The last point to finish: "[3/12] point 5 (vmem.bytes=16Mi):
        // 5900993 cycles, fdo 3213012".
        progress.update(
            [&] {
              std::string text = "[" + std::to_string(done) + "/" +
                                 std::to_string(total) + "] point " +
                                 std::to_string(r.point) + " (" +
                                 grid->describe(r.point) + "): ";
              if (!r.ok)
                return text + "error";
              text += std::to_string(r.totalCycles) + " cycles";
              if (r.fdo)
                text += ", fdo " + std::to_string(r.fdo->bestCycles);
              return text;
            },
            done == total);
      });
  llvm::SmallString<256> csvPath(staged->path()), jsonPath(staged->path()),
      pngPath(staged->path());
  llvm::sys::path::append(csvPath, "sweep.csv");
  llvm::sys::path::append(jsonPath, "sweep.json");
  llvm::sys::path::append(pngPath, "sweep.png");
  if (auto e = writeOutput(csvPath, writeSweepCsv(*grid, rows)))
    return fail(staged->toTargetPaths(llvm::toString(std::move(e))));
  json out = writeSweepJson(*grid, *shard, inputFile,
                            isTrace ? "trace" : "program", rows);
  if (auto e = writeJsonFile(jsonPath, out))
    return fail(staged->toTargetPaths(llvm::toString(std::move(e))));
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
  progress.finish(
      std::to_string(rows.size()) + " point" + (rows.size() == 1 ? "" : "s") +
      (failures ? " (" + std::to_string(failures) + " failed)"
                : std::string()) +
      " on " + std::to_string(std::min<uint64_t>(jobs, points.size())) +
      " threads");
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
} // namespace accel::tool
