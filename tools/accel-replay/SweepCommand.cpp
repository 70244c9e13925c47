//===- SweepCommand.cpp - accel-replay sweep ------------------------------===//
//
// Runs a program (with the FDO loop) or replays a trace on every point of
// a grid of machine configs, in parallel, and writes sweep.csv, sweep.json
// and sweep.png (docs/sweep.md). What a point does is lib/Fdo/SweepPoint.cpp;
// the grid, the shards and the files are lib/Fdo/Sweep.cpp; this file reads
// the command line and the input, stages the outputs and reports.
//
//===----------------------------------------------------------------------===//

#include "Tool.h"

#include "accel/Fdo/Load.h"
#include "accel/Fdo/Sweep.h"
#include "accel/Fdo/SweepPoint.h"
#include "accel/Support/Input.h"
#include "accel/Support/Json.h"
#include "accel/Support/Nesting.h"
#include "accel/Support/Output.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/Parser/Parser.h"
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

/// The options every point of a program sweep shares, from the command
/// line (run's and fdo's options).
static SweepProgramOptions getSweepProgramOptions() {
  SweepProgramOptions o;
  o.inputName = inputFile;
  o.bindSpecs.assign(bindShapes.begin(), bindShapes.end());
  o.run = baseRunOptions();
  o.runFdo = sweepFdo;
  o.fdo = getFdoOptions(baseRunOptions());
  return o;
}

/// What a program sweep checks once, before any point runs (docs/sweep.md):
/// the program parses and the frontend converts it (on `config`, the first
/// point's machine), then checkSweepProgram. Each point would otherwise fail
/// alike, as a row of errors; here it is one error (with its location),
/// exit 1, and nothing is written. The exit code, 0 when all is well.
static int checkProgramOnce(MLIRContext &ctx, llvm::StringRef source,
                            sim::MachineConfig config,
                            const SweepProgramOptions &options) {
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(source, inputFile), llvm::SMLoc());
  SourceMgrDiagnosticHandler handler(sourceMgr, &ctx);
  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(sourceMgr, &ctx);
  std::optional<std::vector<std::string>> bind = shapeBindingsOrFail();
  if (!module || !bind || failed(adoptModuleChips(config, *module)) ||
      failed(runFrontend(*module, config, *bind)))
    return 1;
  if (auto e = checkSweepProgram(*module, config, options))
    return fail(llvm::toString(std::move(e)));
  return 0;
}

namespace {
/// The input of a sweep: a trace (read with a trace's limits) or a
/// program's text (then held to a program's).
struct SweepInput {
  std::unique_ptr<llvm::MemoryBuffer> buffer;
  std::optional<replay::Trace> trace;
  llvm::StringRef getBytes() const { return buffer->getBuffer(); }
  bool isTrace() const { return trace.has_value(); }
};
} // namespace

/// Reads --input and --config, and the base config of every point: the
/// trace's (a replay's machine), else the default, each with --config
/// merged in. Returns the exit code (0 when all is well); errors are
/// printed.
static int readSweepInput(SweepInput &in,
                          std::optional<sim::MachineConfig> &base) {
  auto buf = readInputFile(inputFile, InputKind::Trace);
  if (!buf)
    return fail(inputFile +
                ": cannot read: " + llvm::toString(buf.takeError()));
  in.buffer = std::move(*buf);
  llvm::StringRef bytes = in.getBytes();
  bool isTrace = bytes.starts_with("ACCELTRC");
  uint64_t programLimit = getInputLimits(InputKind::Program).fileBytes;
  if (!isTrace && bytes.size() > programLimit)
    return fail(inputFile + ": cannot read: input is larger than the " +
                formatByteLimit(programLimit) + " limit for " +
                getInputKindName(InputKind::Program));
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
    in.trace = std::move(*t);
    // The other chips' part of a chip-of-a-system trace was timed on the
    // recorded machine: a sweep would re-time one side only.
    if (in.trace->system)
      return fail(inputFile + ": the trace is chip " +
                  std::to_string(in.trace->system->chip) + " of a system of " +
                  std::to_string(in.trace->system->chips) +
                  " chips, which replays on its recorded machine only; "
                  "sweep the program (accel-replay sweep PROGRAM.mlir) "
                  "instead");
  } else if (llvm::Error e = checkMlirNesting(bytes, inputFile)) {
    return fail(llvm::toString(std::move(e)));
  }
  auto config = sim::MachineConfig::fromJson(
      overrideText, configFile.empty() ? "<config>" : configFile.getValue(),
      in.trace ? llvm::StringRef(in.trace->configJson) : llvm::StringRef());
  if (!config)
    return fail((in.trace ? inputFile + ": " : std::string()) +
                llvm::toString(config.takeError()));
  base = std::move(*config);
  return 0;
}

/// Draws `pngPath` from `csvPath` with utils/accel-sweep-plot.py (found
/// next to `argv0`); whether it was drawn. A missing script or python3,
/// or a failed script, is a warning: the other outputs stand.
static bool plotSweep(const char *argv0, llvm::StringRef csvPath,
                      llvm::StringRef pngPath) {
  auto script = findScript(argv0, "accel-sweep-plot.py");
  std::string python = findPlotPython();
  if (!script) {
    llvm::WithColor::warning(llvm::errs(), "accel-replay")
        << "no sweep.png: " << llvm::toString(script.takeError()) << "\n";
    return false;
  }
  if (python.empty()) {
    llvm::WithColor::warning(llvm::errs(), "accel-replay")
        << "no sweep.png: no python3 found\n";
    return false;
  }
  llvm::StringRef args[] = {python, *script, csvPath, "-o", pngPath};
  // Its "wrote" line would name the staging directory: drop stdout.
  std::optional<llvm::StringRef> redirects[] = {
      std::nullopt, llvm::StringRef(""), std::nullopt};
  std::string err;
  int rc = llvm::sys::ExecuteAndWait(python, args, std::nullopt, redirects, 0,
                                     0, &err);
  if (rc != 0)
    llvm::WithColor::warning(llvm::errs(), "accel-replay")
        << "no sweep.png: " << *script << " failed"
        << (err.empty() ? "" : ": " + err) << "\n";
  return rc == 0;
}

/// Writes sweep.csv, sweep.json and (with --plot) sweep.png into the
/// staged directory `staged` and commits it. Returns the exit code;
/// `plotted` says whether sweep.png was drawn.
static int writeSweepOutputs(StagedDirectory &staged, const char *argv0,
                             const SweepGrid &grid, const SweepShard &shard,
                             bool isTrace, const std::vector<SweepRow> &rows,
                             bool &plotted) {
  llvm::SmallString<256> csvPath(staged.path()), jsonPath(staged.path()),
      pngPath(staged.path());
  llvm::sys::path::append(csvPath, "sweep.csv");
  llvm::sys::path::append(jsonPath, "sweep.json");
  llvm::sys::path::append(pngPath, "sweep.png");
  if (auto e = writeOutput(csvPath, writeSweepCsv(grid, rows)))
    return fail(staged.toTargetPaths(llvm::toString(std::move(e))));
  json out = writeSweepJson(grid, shard, inputFile,
                            isTrace ? "trace" : "program", rows);
  if (auto e = writeJsonFile(jsonPath, out))
    return fail(staged.toTargetPaths(llvm::toString(std::move(e))));
  plotted = sweepPlot && plotSweep(argv0, csvPath, pngPath);
  if (auto e = staged.commit())
    return fail(llvm::toString(std::move(e)));
  return 0;
}

/// The progress line's text for the last point to finish: "[3/12] point 5
/// (vmem.bytes=16Mi): 5900993 cycles, fdo 3213012".
static std::string describeFinishedPoint(const SweepGrid &grid,
                                         const SweepRow &r, uint64_t done,
                                         uint64_t total) {
  std::string text = "[" + std::to_string(done) + "/" + std::to_string(total) +
                     "] point " + std::to_string(r.point) + " (" +
                     grid.describe(r.point) + "): ";
  if (!r.ok)
    return text + "error";
  text += std::to_string(r.totalCycles) + " cycles";
  if (r.fdo)
    text += ", fdo " + std::to_string(r.fdo->bestCycles);
  return text;
}

/// The closing lines: the progress summary on stderr, the table and the
/// files written on stdout. The exit code: 2 when a point failed.
static int reportSweep(Progress &progress, const SweepGrid &grid,
                       const std::vector<SweepRow> &rows, unsigned threads,
                       llvm::StringRef dir, bool plotted) {
  uint64_t failures =
      llvm::count_if(rows, [](const SweepRow &r) { return !r.ok; });
  progress.finish(std::to_string(rows.size()) + " point" +
                  (rows.size() == 1 ? "" : "s") +
                  (failures ? " (" + std::to_string(failures) + " failed)"
                            : std::string()) +
                  " on " + std::to_string(threads) + " threads");
  llvm::outs() << formatSweepTable(grid, rows);
  llvm::outs() << "\nwrote " << dir << "/{sweep.csv,sweep.json"
               << (plotted ? ",sweep.png" : "")
               << "}: " << rows.size() - failures
               << (rows.size() - failures == 1 ? " point ran" : " points ran");
  if (failures)
    llvm::outs() << ", " << failures << " failed";
  llvm::outs() << "\n";
  return failures ? 2 : 0;
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
  SweepInput in;
  std::optional<sim::MachineConfig> base;
  if (int rc = readSweepInput(in, base))
    return rc;
  auto configs = getShardConfigs(*grid, *shard, *base, in.isTrace());
  if (!configs)
    return fail(llvm::toString(configs.takeError()));
  std::vector<uint64_t> points;
  for (uint64_t p = 0; p < grid->size(); ++p)
    if (shard->contains(p))
      points.push_back(p);
  // The program, its entry and the passes: once, before any point.
  SweepProgramOptions options = getSweepProgramOptions();
  if (!in.isTrace())
    if (int rc = checkProgramOnce(
            ctx, in.getBytes(),
            points.empty() ? *base : *(*configs)[points.front()], options))
      return rc;
  std::string dir = outputDirectory();
  auto staged = StagedDirectory::create(dir);
  if (!staged)
    return fail(llvm::toString(staged.takeError()));
  unsigned jobs = llvm::hardware_concurrency(sweepJobs).compute_thread_count();
  unsigned threads = std::min<uint64_t>(jobs, points.size());
  llvm::errs() << "sweep: " << points.size() << " of " << grid->size()
               << " points (shard " << shard->index << "/" << shard->count
               << ") of " << inputFile << " ("
               << (in.isTrace() ? "trace: replay"
                   : sweepFdo   ? "program: run + fdo"
                                : "program: run")
               << ") on " << threads << " threads\n";
  const DialectRegistry &registry = ctx.getDialectRegistry();
  Progress progress("accel-replay sweep");
  std::vector<SweepRow> rows = runSweep(
      *grid, *shard, sweepJobs,
      [&](uint64_t p) {
        return in.isTrace() ? evaluateTracePoint(*in.trace, *(*configs)[p],
                                                 baseRunOptions())
                            : evaluateProgramPoint(registry, in.getBytes(),
                                                   *(*configs)[p], options);
      },
      [&](const SweepRow &r, uint64_t done, uint64_t total) {
        progress.update(
            [&] { return describeFinishedPoint(*grid, r, done, total); },
            done == total);
      });
  bool plotted = false;
  if (int rc = writeSweepOutputs(*staged, argv0, *grid, *shard, in.isTrace(),
                                 rows, plotted))
    return rc;
  return reportSweep(progress, *grid, rows, threads, dir, plotted);
}
} // namespace accel::tool
