//===- Run.cpp - Lower, simulate and analyze one accel program ------------===//

#include "accel/Fdo/Run.h"
#include "accel/Dialect/Accel/AccelDialect.h"
#include "accel/Profile/Analyzer.h"
#include "accel/Profile/DmaStallAnalysis.h"
#include "accel/Profile/DmaTable.h"
#include "accel/Profile/SystemAnalysis.h"
#include "accel/Replay/Replayer.h"
#include "accel/Sim/System.h"
#include "accel/Support/Json.h"
#include "accel/Support/Output.h"
#include "accel/Support/SystemMemory.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/xxhash.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <unistd.h>

using namespace mlir;
using namespace accel;
using json = nlohmann::json;

std::shared_ptr<nlohmann::json> accel::makeEmptyMetrics() {
  return std::make_shared<nlohmann::json>();
}

LoweringOptions accel::getLoweringOptions(const sim::MachineConfig &config,
                                          llvm::StringRef entry) {
  LoweringOptions options;
  options.entry = entry.str();
  options.vmemCapacity = config.vmemBytes;
  options.vmemAlign = config.vmemPageBytes;
  options.hbmCapacity = config.hbmBytes;
  return options;
}

uint64_t accel::getDefaultInstructionBudget(bool analyze) {
  return getDefaultInstructionBudget(analyze, availableMemoryBytes());
}

uint64_t accel::getDefaultInstructionBudget(bool analyze,
                                            uint64_t availableBytes) {
  uint64_t perInstruction =
      analyze ? kAnalyzerBytesPerInstruction : kCollectorBytesPerInstruction;
  return std::clamp<uint64_t>(availableBytes / 2 / perInstruction,
                              kMinInstructionBudget, kMaxInstructionBudget);
}

std::string accel::formatHbmHash(uint64_t hash) {
  std::string text;
  llvm::raw_string_ostream(text) << llvm::format("0x%016llx",
                                                 (unsigned long long)hash);
  return text;
}

/// What a run holds beside the simulated memories (sim::FootprintExtras):
/// per chip, its trackers (kAnalyzerBytesPerChip and
/// kAnalyzerBytesPerVmemPage, or kCollectorBytesPerChip); once, the copy of
/// the largest HBM buffer that hashHbm hashes, chip 0's written HBM pages
/// (RunResult::hbm) and, with `keepHbm`, a copy of every HBM buffer
/// (RunResult::hbmBuffers). Saturated. What the trackers record per
/// instruction is the instruction budget's share (getDefaultInstructionBudget).
static sim::FootprintExtras getRunExtras(const isa::Program &program,
                                         const sim::MachineConfig &config,
                                         const RunOptions &options) {
  sim::FootprintExtras x;
  uint64_t pages =
      config.vmemBytes / std::max<uint64_t>(1, config.vmemPageBytes);
  x.perChip = options.analyze
                  ? llvm::SaturatingAdd(
                        kAnalyzerBytesPerChip,
                        llvm::SaturatingMultiply(pages,
                                                 kAnalyzerBytesPerVmemPage))
                  : kCollectorBytesPerChip;
  x.perChipWhat = options.analyze ? "the analyses (their VMEM page tables)"
                                  : "the DMA stall analysis";
  uint64_t largest = 0, all = 0;
  for (const isa::Buffer &b : program.buffers)
    if (b.space == isa::MemSpace::HBM) {
      largest = std::max(largest, b.bytes);
      all = llvm::SaturatingAdd(all, b.bytes);
    }
  x.once = llvm::SaturatingAdd(largest, sim::getHbmPageBytes(program.buffers));
  if (options.keepHbm)
    x.once = llvm::SaturatingAdd(x.once, all);
  x.onceWhat = "copies of the results";
  return x;
}

/// Installs the `--input` contents into `memory` (one chip's).
static llvm::Error installInputs(sim::Memory &memory,
                                 const isa::Program &program,
                                 const RunOptions &options) {
  for (const HbmInput &input : options.inputs) {
    std::string name = "%arg" + std::to_string(input.argIndex);
    auto buffer = llvm::find_if(program.buffers, [&](const isa::Buffer &b) {
      return b.space == isa::MemSpace::HBM && b.name == name;
    });
    if (buffer == program.buffers.end())
      return llvm::createStringError("%s: the program has no HBM argument %s",
                                     input.source.c_str(), name.c_str());
    if (buffer->bytes != input.bytes.size())
      return llvm::createStringError(
          "%s: %zu bytes for %s, which has %llu", input.source.c_str(),
          input.bytes.size(), name.c_str(), (unsigned long long)buffer->bytes);
    if (auto e = memory.install(isa::MemSpace::HBM, buffer->base, input.bytes))
      return e;
  }
  return llvm::Error::success();
}

/// The hash of one chip's final HBM buffers (RunResult::hbmHash); with
/// `keep`, their contents go to `buffers`.
static uint64_t hashHbm(sim::Memory &memory, const isa::Program &program,
                        std::vector<std::vector<uint8_t>> *buffers,
                        nlohmann::json *perBuffer = nullptr) {
  std::vector<uint64_t> hashes;
  std::vector<uint8_t> bytes;
  for (const isa::Buffer &b : program.buffers) {
    if (b.space != isa::MemSpace::HBM)
      continue;
    if (buffers) {
      bytes.resize(b.bytes);
      memory.readHbm(b.base, bytes.data(), b.bytes);
      hashes.push_back(llvm::xxh3_64bits(bytes));
      buffers->push_back(bytes);
    } else {
      hashes.push_back(memory.hashHbm(b.base, b.bytes));
    }
    if (perBuffer)
      (*perBuffer)[b.name] = formatHbmHash(hashes.back());
  }
  return llvm::xxh3_64bits(llvm::ArrayRef<uint8_t>(
      reinterpret_cast<const uint8_t *>(hashes.data()), hashes.size() * 8));
}

/// Runs a chip's Simulator or a System to its end (or options'
/// instruction budget), reporting "simulating" progress on the way and
/// "analyzing" once it ended, through options.onProgress when set. Returns
/// the runner's summary or its error (a fault, an exhausted budget).
template <typename Runner>
static auto runWithProgress(Runner &runner, const RunOptions &options) {
  auto simulating = [&](uint64_t instructions, uint64_t cycle) {
    options.onProgress("simulating", instructions, cycle);
  };
  auto summary =
      runner.run(options.maxInstructions, options.stopAtBudget,
                 options.onProgress ? sim::ProgressFn(simulating) : nullptr);
  if (summary && options.onProgress)
    options.onProgress("analyzing", summary->instructions,
                       summary->totalCycles);
  return summary;
}

namespace {
/// The performance trackers of each chip of a system run.
struct SystemTrackers {
  std::vector<std::unique_ptr<profile::DmaStallCollector>> collectors;
  std::vector<profile::SemWaitLog> semWaits;
  std::shared_ptr<RunTimeline> timeline;
};
} // namespace

/// Installs the inputs on every chip of `system` and attaches its trackers
/// (the collector, the semaphore wait log and, with options.analyze, the
/// analyzer). Errors: installInputs's.
static llvm::Error attachSystemTrackers(sim::System &system, const RunResult &r,
                                        const sim::MachineConfig &config,
                                        const RunOptions &options,
                                        SystemTrackers &t) {
  unsigned n = system.getNumChips();
  t.semWaits.resize(n);
  t.timeline = std::make_shared<RunTimeline>(r.program, config, n, options);
  for (unsigned c = 0; c < n; ++c) {
    sim::Simulator &chip = system.getChip(c);
    if (auto e = installInputs(chip.getMemory(), r.program, options))
      return e;
    t.collectors.push_back(std::make_unique<profile::DmaStallCollector>());
    chip.addObserver(t.collectors.back().get());
    chip.addObserver(&t.semWaits[c]);
    if (options.analyze)
      chip.addObserver(&t.timeline->getAnalyzer(c));
  }
  return llvm::Error::success();
}

/// Each chip's metrics, as a run of one chip would write them, with its
/// HBM hashes (per buffer too: an All-Gather's output must be equal on
/// every chip, its inputs not), end cycle and semaphore waits; each chip's
/// hash into `chipHashes`, and with options.keepHbm its final HBM buffers
/// into `r`.
static std::vector<nlohmann::json>
getChipMetrics(sim::System &system, const sim::SystemSummary &summary,
               const sim::MachineConfig &config, const RunOptions &options,
               const SystemTrackers &t, RunResult &r,
               std::vector<uint64_t> &chipHashes) {
  unsigned n = system.getNumChips();
  std::vector<nlohmann::json> chipMetrics(n);
  for (unsigned c = 0; c < n; ++c) {
    RunResult one;
    one.program = r.program;
    one.summary = summary.chips[c];
    finishAnalysis(one, config, *t.collectors[c], t.timeline, c, options);
    // A chip's DMAs and heatmap as trees: the system's metrics hold the
    // chips' whole.
    (*one.metrics)["dmas"] = one.dmas->toJson();
    if (one.vmemHeatmap)
      (*one.metrics)["vmem"]["heatmap"] =
          profile::heatmapToJson(*one.vmemHeatmap);
    nlohmann::json perBuffer = nlohmann::json::object();
    if (c == 1 && options.keepHbm)
      r.chipHbmBuffers.resize(n - 1);
    std::vector<std::vector<uint8_t>> *kept = !options.keepHbm ? nullptr
                                              : c == 0
                                                  ? &r.hbmBuffers
                                                  : &r.chipHbmBuffers[c - 1];
    uint64_t hash =
        hashHbm(system.getChip(c).getMemory(), r.program, kept, &perBuffer);
    chipHashes.push_back(hash);
    (*one.metrics)["chip"] = c;
    (*one.metrics)["hbm_hash"] = formatHbmHash(hash);
    (*one.metrics)["hbm_buffer_hashes"] = std::move(perBuffer);
    (*one.metrics)["end_cycle"] = system.getChip(c).getEndCycle();
    (*one.metrics)["sem_waits"] = t.semWaits[c].toJson();
    chipMetrics[c] = std::move(*one.metrics);
  }
  return chipMetrics;
}

/// The system's summary: stalls and instructions summed over the chips,
/// units busy for the mean of the chips, cycles to the last chip's end;
/// the chips' DMA records merged into `all`.
static sim::RunSummary sumChips(const sim::SystemSummary &summary,
                                const SystemTrackers &t,
                                profile::DmaStallCollector &all) {
  size_t n = summary.chips.size();
  sim::RunSummary total;
  total.totalCycles = summary.totalCycles;
  total.truncated = summary.truncated;
  for (size_t c = 0; c < n; ++c) {
    all.merge(*t.collectors[c]);
    const sim::RunSummary &s = summary.chips[c];
    total.instructions += s.instructions;
    for (size_t k = 0; k < s.stallCycles.size(); ++k)
      total.stallCycles[k] += s.stallCycles[k];
    for (size_t k = 0; k < s.unitBusyCycles.size(); ++k)
      total.unitBusyCycles[k] += s.unitBusyCycles[k];
  }
  for (uint64_t &busy : total.unitBusyCycles)
    busy /= n;
  return total;
}

/// With the analyzer: chip 0's analyzer sections in the system's metrics
/// (every chip's are under "chips"), the timeline and its coverage.
static void addSystemAnalysis(RunResult &r,
                              const std::vector<nlohmann::json> &chipMetrics,
                              const SystemTrackers &t, unsigned n) {
  for (const char *key :
       {"utilization", "vmem", "dependencies", "suggestions", "roofline"})
    if (chipMetrics[0].contains(key))
      (*r.metrics)[key] = chipMetrics[0][key];
  r.timeline = t.timeline;
  profile::TimelineCoverage coverage =
      t.timeline->getAnalyzer(0).getTimelineCoverage();
  for (unsigned c = 1; c < n; ++c)
    coverage.merge(t.timeline->getAnalyzer(c).getTimelineCoverage());
  (*r.metrics)["timeline"] = coverage.toJson();
}

/// simulateModule on a system of config.chips chips (System.h): every chip
/// gets its own trackers; metrics.json sums them (docs/metrics.md,
/// "Systems of chips") and lists each chip's under "chips".
static llvm::Expected<RunResult>
simulateSystem(RunResult r, const sim::MachineConfig &config,
               const RunOptions &options) {
  sim::System system(config, r.program);
  // Before anything is allocated for the chips' memories.
  if (auto e = system.checkMemory(getRunExtras(r.program, config, options)))
    return std::move(e);
  unsigned n = system.getNumChips();
  SystemTrackers t;
  if (auto e = attachSystemTrackers(system, r, config, options, t))
    return std::move(e);
  auto summary = runWithProgress(system, options);
  if (!summary)
    return summary.takeError();
  std::vector<uint64_t> chipHashes;
  std::vector<nlohmann::json> chipMetrics =
      getChipMetrics(system, *summary, config, options, t, r, chipHashes);
  profile::DmaStallCollector all;
  r.summary = sumChips(*summary, t, all);
  *r.metrics = profile::buildMetrics(r.program, config, r.summary, all);
  r.dmas = std::make_shared<profile::DmaTable>(r.program, config, all);
  if (options.analyze)
    addSystemAnalysis(r, chipMetrics, t, n);
  (*r.metrics)["system"] = profile::buildSystemMetrics(
      system, summary->totalCycles, *r.dmas, chipMetrics);
  r.hbm = std::make_shared<const std::map<uint64_t, std::vector<uint8_t>>>(
      system.getChip(0).getMemory().dirtyHbmPages());
  r.hbmHash = llvm::xxh3_64bits(llvm::ArrayRef<uint8_t>(
      reinterpret_cast<const uint8_t *>(chipHashes.data()),
      chipHashes.size() * 8));
  (*r.metrics)["hbm_hash"] = formatHbmHash(r.hbmHash);
  if (r.summary.truncated)
    (*r.metrics)["truncated"] = {{"reason", "instruction budget"},
                                 {"max_instructions", options.maxInstructions}};
  (*r.metrics)["chips"] = std::move(chipMetrics);
  return r;
}

llvm::Expected<RunResult>
accel::simulateModule(ModuleOp module, const sim::MachineConfig &config,
                      const RunOptions &options) {
  llvm::Expected<isa::Program> program =
      lowerModule(module, config, options.entry);
  if (!program)
    return program.takeError();
  return simulateProgram(std::move(*program), config, options);
}

llvm::Expected<isa::Program>
accel::lowerModule(ModuleOp module, const sim::MachineConfig &config,
                   llvm::StringRef entry) {
  FailureOr<isa::Program> program =
      lowerToIsa(module, getLoweringOptions(config, entry));
  if (failed(program))
    return llvm::createStringError("lowering failed");
  return std::move(*program);
}

llvm::Expected<RunResult>
accel::simulateProgram(isa::Program program, const sim::MachineConfig &config,
                       const RunOptions &options) {
  RunResult r;
  r.program = std::move(program);
  if (config.chips > 1)
    return simulateSystem(std::move(r), config, options);
  sim::Simulator simulator(config, r.program);
  // Before anything is allocated for the memories.
  if (auto e =
          simulator.checkMemory(getRunExtras(r.program, config, options)))
    return std::move(e);
  if (auto e = installInputs(simulator.getMemory(), r.program, options))
    return std::move(e);
  profile::DmaStallCollector collector;
  auto timeline = std::make_shared<RunTimeline>(r.program, config, 1, options);
  simulator.addObserver(&collector);
  if (options.analyze)
    simulator.addObserver(&timeline->getAnalyzer(0));
  auto summary = runWithProgress(simulator, options);
  if (!summary)
    return summary.takeError();
  r.summary = *summary;
  finishAnalysis(r, config, collector, timeline, 0, options);
  r.hbm = std::make_shared<const std::map<uint64_t, std::vector<uint8_t>>>(
      simulator.getMemory().dirtyHbmPages());
  // The final HBM contents: one hash per buffer, then the hash of those.
  r.hbmHash = hashHbm(simulator.getMemory(), r.program,
                      options.keepHbm ? &r.hbmBuffers : nullptr);
  (*r.metrics)["hbm_hash"] = formatHbmHash(r.hbmHash);
  if (r.summary.truncated)
    (*r.metrics)["truncated"] = {{"reason", "instruction budget"},
                                 {"max_instructions", options.maxInstructions}};
  return r;
}

static_assert(kDefaultTimelineMaxSlices ==
                      profile::TimelineLimits::kDefaultMaxSlices &&
                  kDefaultTimelineMaxDmas ==
                      profile::TimelineLimits::kDefaultMaxDmas,
              "RunOptions's timeline limits are TimelineLimits's defaults");

RunTimeline::RunTimeline(const isa::Program &program,
                         const sim::MachineConfig &config, unsigned chips,
                         const RunOptions &options)
    : program(program), config(config), metrics(chips) {
  profile::TimelineLimits limits;
  limits.maxSlices = options.timelineMaxSlices;
  limits.maxDmas = options.timelineMaxDmas;
  for (unsigned c = 0; c < chips; ++c) {
    analyzers.push_back(
        std::make_unique<profile::Analyzer>(this->program, this->config));
    analyzers.back()->setTimelineLimits(limits);
  }
  // The chips' latency-aware bounds follow data from chip to chip.
  if (chips > 1) {
    std::vector<profile::Analyzer *> all;
    for (auto &a : analyzers)
      all.push_back(a.get());
    for (unsigned c = 0; c < chips; ++c)
      analyzers[c]->setSystem(all, c);
  }
}

RunTimeline::~RunTimeline() = default;

profile::Analyzer &RunTimeline::getAnalyzer(unsigned chip) {
  return *analyzers[chip];
}

const profile::Analyzer &RunTimeline::getAnalyzer(unsigned chip) const {
  return *analyzers[chip];
}

void RunTimeline::setMetrics(unsigned chip, const nlohmann::json &m) {
  // What Analyzer::writeTimelineEvents reads: the counters. The VMEM
  // heatmap is not among them: finishAnalysis keeps its rows beside the
  // tree (RunResult::vmemHeatmap).
  json kept = json::object();
  for (const char *key : {"utilization", "vmem"})
    if (m.contains(key))
      kept[key] = m[key];
  metrics[chip] = std::move(kept);
}

void RunTimeline::write(llvm::raw_ostream &os) const {
  std::vector<const profile::Analyzer *> chips;
  std::vector<const json *> chipMetrics;
  for (size_t c = 0; c < analyzers.size(); ++c) {
    chips.push_back(analyzers[c].get());
    chipMetrics.push_back(&metrics[c]);
  }
  profile::writeSystemTimeline(os, chips, chipMetrics);
}

void accel::finishAnalysis(RunResult &r, const sim::MachineConfig &config,
                           const profile::DmaStallCollector &collector,
                           const std::shared_ptr<RunTimeline> &timeline,
                           unsigned chip, const RunOptions &options) {
  *r.metrics = profile::buildMetrics(r.program, config, r.summary, collector);
  r.dmas = std::make_shared<profile::DmaTable>(r.program, config, collector);
  if (!options.analyze)
    return;
  const profile::Analyzer &analyzer = timeline->getAnalyzer(chip);
  profile::AnalyzerOptions analyzerOptions;
  analyzerOptions.bucketCycles = options.bucketCycles;
  auto heatmap = std::make_shared<profile::VmemHeatmap>();
  analyzer.addToMetrics(*r.metrics, r.dmas.get(), analyzerOptions,
                        heatmap.get());
  r.vmemHeatmap = std::move(heatmap);
  timeline->setMetrics(chip, *r.metrics);
  r.timeline = timeline;
  (*r.metrics)["timeline"] = analyzer.getTimelineCoverage().toJson();
}

llvm::Error accel::writeTimelineFile(llvm::StringRef path, const RunResult &r) {
  if (!r.timeline)
    return llvm::Error::success();
  return writeOutput(path, [&](llvm::raw_ostream &os) {
    r.timeline->write(os);
    return llvm::Error::success();
  });
}

uint64_t accel::getPeakVmemBytes(const isa::Program &program) {
  uint64_t bytes = 0;
  for (const isa::Buffer &b : program.buffers)
    if (b.space == isa::MemSpace::VMEM)
      bytes = std::max(bytes, llvm::SaturatingAdd(b.base, b.bytes));
  return bytes;
}

llvm::Error accel::writeMetricsFile(llvm::StringRef path, const RunResult &r) {
  return writeOutput(path, [&](llvm::raw_ostream &os) {
    profile::writeMetricsJson(os, *r.metrics, r.dmas.get(),
                              r.vmemHeatmap.get());
    return llvm::Error::success();
  });
}

llvm::Error accel::writeRunOutputs(llvm::StringRef dir, const RunResult &r,
                                   ModuleOp module) {
  if (auto ec = llvm::sys::fs::create_directories(dir))
    return llvm::createStringError("cannot create directory '%s': %s",
                                   dir.str().c_str(), ec.message().c_str());
  auto path = [&](const char *name) {
    llvm::SmallString<256> p(dir);
    llvm::sys::path::append(p, name);
    return std::string(p);
  };
  if (auto e = writeMetricsFile(path("metrics.json"), r))
    return e;
  if (auto e = writeTimelineFile(path("timeline.json"), r))
    return e;
  std::string report, listing, ir;
  llvm::raw_string_ostream ros(report), los(listing), ios(ir);
  profile::writeReport(*r.metrics, ros);
  r.program.printListing(los);
  // With locations: the module read back from program.mlir has the op
  // locations, and so the program fingerprint, of the one that ran.
  module.print(ios, OpPrintingFlags().enableDebugInfo(true, /*prettyForm=*/false));
  if (auto e = writeOutput(path("report.txt"), report))
    return e;
  if (auto e = writeOutput(path("program.lst"), listing))
    return e;
  return writeOutput(path("program.mlir"), ir);
}

llvm::Expected<RunResult>
accel::replayWindow(replay::Replayer &replayer, const RunOptions &options,
                    const ReplayWindowOptions &window) {
  profile::DmaStallCollector collector;
  auto timeline = std::make_shared<RunTimeline>(
      replayer.getProgram(), replayer.getConfig(), 1, options);
  replayer.addObserver(&collector);
  if (window.analyze)
    replayer.addObserver(&timeline->getAnalyzer(0));
  if (auto e = replayer.load())
    return std::move(e);
  replayer.getSimulator().setTimingOnly(window.timingOnly);
  auto summary = replayer.run(window.onProgress);
  if (window.onAnalyze)
    window.onAnalyze();
  if (!summary) {
    if (!window.timingOnly)
      return summary.takeError();
    return llvm::createStringError(
        llvm::toString(summary.takeError()) +
        " (a --timing-only replay skips the MXU/VPU arithmetic; replay "
        "without it if control depends on computed values)");
  }
  if (!window.timingOnly)
    if (auto e = replayer.checkResults())
      return std::move(e);
  RunResult r;
  r.program = replayer.getProgram();
  r.summary = *summary;
  finishAnalysis(r, replayer.getConfig(), collector, timeline, 0, options);
  return r;
}
