//===- Run.cpp - Lower, simulate and analyze one accel program ------------===//

#include "accel/Fdo/Run.h"
#include "accel/Support/Json.h"
#include "accel/Support/Output.h"
#include "accel/Analysis/Analyzer.h"
#include "accel/Analysis/DmaStallAnalysis.h"
#include "accel/Dialect/Accel/AccelDialect.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
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
  uint64_t available = 0;
  if (auto buf = llvm::MemoryBuffer::getFileAsStream("/proc/meminfo")) {
    for (llvm::StringRef line : llvm::split((*buf)->getBuffer(), '\n')) {
      uint64_t kib = 0;
      if (line.consume_front("MemAvailable:") &&
          !line.trim().split(' ').first.getAsInteger(10, kib))
        available = kib * 1024;
    }
  }
  if (available == 0) {
    long pages = ::sysconf(_SC_AVPHYS_PAGES), size = ::sysconf(_SC_PAGESIZE);
    if (pages > 0 && size > 0)
      available = uint64_t(pages) * uint64_t(size);
  }
  uint64_t perInstruction =
      analyze ? kAnalyzerBytesPerInstruction : kCollectorBytesPerInstruction;
  return std::clamp<uint64_t>(available / 2 / perInstruction, 1ull << 20,
                              1ull << 32);
}

std::string accel::formatHbmHash(uint64_t hash) {
  std::string text;
  llvm::raw_string_ostream(text) << llvm::format("0x%016llx",
                                                 (unsigned long long)hash);
  return text;
}

llvm::Expected<RunResult>
accel::simulateModule(ModuleOp module, const sim::MachineConfig &config,
                      const RunOptions &options) {
  FailureOr<isa::Program> program =
      lowerToIsa(module, getLoweringOptions(config, options.entry));
  if (failed(program))
    return llvm::createStringError("lowering failed");
  RunResult r;
  r.program = std::move(*program);
  sim::Simulator simulator(config, r.program);
  for (const HbmInput &input : options.inputs) {
    std::string name = "%arg" + std::to_string(input.argIndex);
    auto buffer = llvm::find_if(r.program.buffers, [&](const isa::Buffer &b) {
      return b.space == isa::MemSpace::HBM && b.name == name;
    });
    if (buffer == r.program.buffers.end())
      return llvm::createStringError("%s: the program has no HBM argument %s",
                                     input.source.c_str(), name.c_str());
    if (buffer->bytes != input.bytes.size())
      return llvm::createStringError(
          "%s: %zu bytes for %s, which has %llu", input.source.c_str(),
          input.bytes.size(), name.c_str(), (unsigned long long)buffer->bytes);
    if (auto e = simulator.getMemory().install(isa::MemSpace::HBM,
                                               buffer->base, input.bytes))
      return std::move(e);
  }
  analysis::DmaStallCollector collector;
  analysis::Analyzer analyzer(r.program, config);
  simulator.addObserver(&collector);
  if (options.analyze)
    simulator.addObserver(&analyzer);
  auto summary = simulator.run(options.maxInstructions, options.stopAtBudget);
  if (!summary)
    return summary.takeError();
  r.summary = *summary;
  finishAnalysis(r, config, collector, analyzer, options);
  r.hbm = simulator.getMemory().dirtyHbmPages();
  // The final HBM contents: one hash per buffer, then the hash of those.
  std::vector<uint64_t> hashes;
  std::vector<uint8_t> bytes;
  for (const isa::Buffer &b : r.program.buffers) {
    if (b.space != isa::MemSpace::HBM)
      continue;
    bytes.resize(b.bytes);
    simulator.getMemory().readHbm(b.base, bytes.data(), b.bytes);
    hashes.push_back(llvm::xxh3_64bits(bytes));
    if (options.keepHbm)
      r.hbmBuffers.push_back(bytes);
  }
  r.hbmHash = llvm::xxh3_64bits(llvm::ArrayRef<uint8_t>(
      reinterpret_cast<const uint8_t *>(hashes.data()), hashes.size() * 8));
  r.metrics["hbm_hash"] = formatHbmHash(r.hbmHash);
  if (r.summary.truncated)
    r.metrics["truncated"] = {{"reason", "instruction budget"},
                              {"max_instructions", options.maxInstructions}};
  return r;
}

void accel::finishAnalysis(RunResult &r, const sim::MachineConfig &config,
                           const analysis::DmaStallCollector &collector,
                           const analysis::Analyzer &analyzer,
                           const RunOptions &options) {
  r.metrics = analysis::buildMetrics(r.program, config, r.summary, collector);
  if (!options.analyze)
    return;
  analysis::AnalyzerOptions analyzerOptions;
  analyzerOptions.bucketCycles = options.bucketCycles;
  analyzer.addToMetrics(r.metrics, analyzerOptions);
  llvm::raw_string_ostream os(r.timeline);
  analyzer.writeTimeline(os, r.metrics);
}

uint64_t accel::getPeakVmemBytes(const isa::Program &program) {
  uint64_t bytes = 0;
  for (const isa::Buffer &b : program.buffers)
    if (b.space == isa::MemSpace::VMEM)
      bytes = std::max(bytes, b.base + b.bytes);
  return bytes;
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
  if (auto e =
          writeOutput(path("metrics.json"), dumpJson(r.metrics, 2) + "\n"))
    return e;
  if (!r.timeline.empty())
    if (auto e = writeOutput(path("timeline.json"), r.timeline))
      return e;
  std::string report, listing, ir;
  llvm::raw_string_ostream ros(report), los(listing), ios(ir);
  analysis::writeReport(r.metrics, ros);
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
