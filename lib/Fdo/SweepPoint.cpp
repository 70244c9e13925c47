//===- SweepPoint.cpp - One point of a config sweep -----------------------===//
//
// A program point (parse, convert, lower, run, FDO) and a trace point (the
// window replayed) of `accel-replay sweep`, the checks made once before
// any point runs, and the table the command prints (docs/sweep.md).
//
//===----------------------------------------------------------------------===//

#include "accel/Fdo/SweepPoint.h"
#include "accel/Fdo/Load.h"
#include "accel/Fdo/NpyIO.h"
#include "accel/InitAccel.h"
#include "accel/Replay/Replayer.h"
#include "accel/Target/AccelToISA.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"

#include <nlohmann/json.hpp>

using namespace mlir;
using namespace accel;
using json = nlohmann::json;

/// The FDO columns of a program point's row from the loop's result.
static SweepRow::Fdo getFdoColumns(const FdoResult &result,
                                   const FdoOptions &fdo,
                                   const sim::MachineConfig &config) {
  json summary = result.toJson(fdo, config)["summary"];
  const FdoIteration &best = result.iterations[result.bestIteration];
  const FdoIteration *failedIt = result.getFailedIteration();
  SweepRow::Fdo f;
  f.bestCycles = best.totalCycles;
  f.bestIteration = result.bestIteration;
  f.cyclesReduction = summary["cycles_reduction"].get<double>();
  f.resultsIdentical =
      !failedIt || failedIt->failure->kind != FdoFailure::Kind::Mismatch;
  return f;
}

SweepRow accel::evaluateProgramPoint(const DialectRegistry &registry,
                                     llvm::StringRef source,
                                     sim::MachineConfig config,
                                     const SweepProgramOptions &options) {
  SweepRow row;
  row.configHash = config.hash();
  MLIRContext ctx(registry, MLIRContext::Threading::DISABLED);
  loadAccelDialects(ctx);
  ctx.printOpOnDiagnostic(false);
  std::string diagnostics;
  llvm::raw_string_ostream os(diagnostics);
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(source, options.inputName),
      llvm::SMLoc());
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
  auto bind = getShapeBindings({}, options.bindSpecs);
  if (!bind)
    return failWith(llvm::toString(bind.takeError()));
  if (!module || failed(adoptModuleChips(config, *module)) ||
      failed(runFrontend(*module, config, *bind)))
    return failWith("");
  row.configHash = config.hash();
  OwningOpRef<ModuleOp> original = module->clone();
  if (failed(assignOpIds(*module)))
    return failWith("");
  RunOptions run = options.run;
  run.stopAtBudget = false;
  auto r = simulateModule(*module, config, run);
  if (!r)
    return failWith(llvm::toString(r.takeError()));
  fillSweepRow(row, *r->metrics);
  if (!options.runFdo)
    return row;
  auto result = runFdoLoop(*original, config, options.fdo);
  if (!result) {
    row.ok = false;
    return failWith("fdo: " + llvm::toString(result.takeError()));
  }
  row.fdo = getFdoColumns(*result, options.fdo, config);
  return row;
}

SweepRow accel::evaluateTracePoint(const replay::Trace &trace,
                                   sim::MachineConfig config,
                                   const RunOptions &run) {
  SweepRow row;
  row.configHash = config.hash();
  auto replayer = replay::Replayer::create(trace, std::move(config));
  if (!replayer) {
    row.error = llvm::toString(replayer.takeError());
    return row;
  }
  auto r = replayWindow(**replayer, run, ReplayWindowOptions());
  if (!r) {
    row.error = llvm::toString(r.takeError());
    return row;
  }
  fillSweepRow(row, *r->metrics);
  return row;
}

llvm::Error accel::checkSweepProgram(ModuleOp module,
                                     const sim::MachineConfig &config,
                                     const SweepProgramOptions &options) {
  llvm::StringRef entry = options.run.entry;
  if (!findEntryFunction(module, entry)) {
    if (!entry.empty())
      return llvm::createStringError("--entry: " + options.inputName +
                                     " has no function named '" + entry + "'");
    return llvm::createStringError(
        options.inputName +
        ": cannot choose an entry function: no function is named "
        "'main' and there is not exactly one function with a body "
        "(--entry)");
  }
  return checkFdoPipelines(module.getContext(), options.fdo, config);
}

llvm::Expected<std::vector<std::optional<sim::MachineConfig>>>
accel::getShardConfigs(const SweepGrid &grid, const SweepShard &shard,
                       const sim::MachineConfig &base, bool singleChip) {
  std::vector<std::optional<sim::MachineConfig>> configs(grid.size());
  for (uint64_t p = 0; p < grid.size(); ++p) {
    if (!shard.contains(p))
      continue;
    auto c = grid.getConfig(p, base.jsonText);
    if (!c)
      return c.takeError();
    configs[p] = std::move(*c);
  }
  if (singleChip)
    for (uint64_t p = 0; p < grid.size(); ++p)
      if (configs[p] && configs[p]->chips != 1)
        return llvm::createStringError(
            "point " + std::to_string(p) + " (" + grid.describe(p) +
            "): field 'chips': a trace holds one chip's execution; it "
            "replays on 1 chip, not " +
            std::to_string(configs[p]->chips));
  return configs;
}

/// The table's cells of one row (formatSweepTable).
static std::vector<std::string> getTableLine(const SweepGrid &grid,
                                             const SweepRow &r, bool fdo) {
  std::vector<std::string> line = {std::to_string(r.point)};
  std::vector<unsigned> at = grid.getIndices(r.point);
  for (size_t i = 0; i < at.size(); ++i)
    line.push_back(grid.getAxes()[i].texts[at[i]]);
  if (!r.ok) {
    line.push_back("error: " + r.error);
    return line;
  }
  line.push_back(std::to_string(r.totalCycles));
  line.push_back(std::to_string(r.dmaStallBase + r.dmaStallTransfer));
  line.push_back(std::to_string(r.dmaStallBase));
  line.push_back(std::to_string(r.dmaStallTransfer));
  line.push_back(llvm::formatv("{0:F1}", 100 * r.mxuUtilization).str());
  line.push_back(std::to_string(r.peakVmemBytes / 1024));
  if (!fdo)
    return line;
  line.push_back(r.fdo ? std::to_string(r.fdo->bestCycles) : "-");
  // The change in cycles: "-45.6%" faster, "0.0%" none.
  double change = r.fdo ? -100 * r.fdo->cyclesReduction : 0;
  line.push_back(r.fdo ? llvm::formatv("{0}{1:F1}%", change > 0 ? "+" : "",
                                       change == 0 ? 0.0 : change)
                                 .str() +
                             (r.fdo->resultsIdentical ? "" : " DIFFER")
                       : "-");
  return line;
}

std::string accel::formatSweepTable(const SweepGrid &grid,
                                    const std::vector<SweepRow> &rows) {
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
  for (const SweepRow &r : rows)
    table.push_back(getTableLine(grid, r, fdo));
  std::vector<size_t> width(header.size(), 0);
  // A failed point's last cell (its error) spans the rest of the line and
  // widens no column.
  for (const auto &line : table)
    for (size_t i = 0; i < line.size(); ++i)
      if (line.size() == header.size() || i + 1 < line.size())
        width[i] = std::max(width[i], line[i].size());
  std::string text;
  llvm::raw_string_ostream os(text);
  for (const auto &line : table) {
    for (size_t i = 0; i < line.size(); ++i) {
      bool last = i + 1 == line.size();
      os << (i ? "  " : "") << line[i];
      if (!last)
        os.indent(width[i] - line[i].size());
    }
    os << "\n";
  }
  return text;
}
