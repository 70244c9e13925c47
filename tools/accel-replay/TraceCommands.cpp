//===- TraceCommands.cpp - accel-replay record, replay and trace-info -----===//
//
// Record a window of a run into a trace with minimal state, replay it on
// the timing simulator with the performance trackers attached, and
// describe a trace (SnR, Zarkadas et al., SoCC '25, §4.1-4.2;
// docs/trace-format.md).
//
//===----------------------------------------------------------------------===//

#include "Tool.h"

#include "accel/Profile/DmaStallAnalysis.h"
#include "accel/Replay/Recorder.h"
#include "accel/Replay/Replayer.h"
#include "accel/Sim/Device.h"
#include "accel/Support/Input.h"
#include "accel/Support/Json.h"
#include "accel/Support/Output.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"

#include <nlohmann/json.hpp>

using namespace mlir;
using namespace accel;
using namespace accel::tool;
using json = nlohmann::json;

namespace accel::tool {

/// The chip to record (--chip; 0 without it) of a system of
/// `config.chips`; nullopt after an error naming the chips there are.
static std::optional<unsigned>
getRecordedChip(const sim::MachineConfig &config) {
  unsigned chip = 0;
  if (plotChip.getNumOccurrences()) {
    if (llvm::StringRef(plotChip).getAsInteger(10, chip) ||
        chip >= config.chips) {
      fail("--chip=" + plotChip + ": " + inputFile + " runs on " +
           std::to_string(config.chips) + " chip" +
           (config.chips == 1 ? "" : "s") + " (chips 0 to " +
           std::to_string(config.chips - 1) + ")");
      return std::nullopt;
    }
  }
  return chip;
}

/// Runs `device` to --break-at's instruction (its --hit-count'th
/// execution), within --max-instructions. Returns the exit code.
static int runToBreakpoint(sim::Device &device, const isa::Program &program,
                           Progress &progress) {
  auto pc = sim::resolveBreakpoint(program, breakAt);
  if (!pc)
    return fail(llvm::toString(pc.takeError()));
  device.setBreakpoint(*pc, hitCount);
  if (auto e = device.continueToBreakpoint(
          instructionBudget(), [&](uint64_t instructions, uint64_t cycle) {
            progress.update([&] {
              return "running to --break-at=" + breakAt + ": " +
                     formatCount(instructions) + " instructions, " +
                     formatCount(cycle) + " cycles";
            });
          })) {
    std::string msg = llvm::toString(std::move(e));
    if (llvm::StringRef(msg).starts_with("no breakpoint hit within"))
      msg += " (--max-instructions)";
    return fail("--break-at=" + breakAt + ": " + msg);
  }
  return 0;
}

int cmdRecord(MLIRContext &ctx) {
  if (outputPath.empty())
    return fail("record needs -o TRACE");
  CommandInput input(ctx);
  FailureOr<isa::Program> program = input.lower();
  if (failed(program))
    return 1;
  const sim::MachineConfig *config = &input.config;
  // On a system, the chip to record (--chip); the others run along and
  // the trace carries what they do to it (format version 4).
  std::optional<unsigned> chip = getRecordedChip(*config);
  if (!chip)
    return 1;
  sim::Device device(*config, *program, *chip);
  Progress progress("accel-replay record");
  if (!breakAt.empty())
    if (int rc = runToBreakpoint(device, *program, progress))
      return rc;
  uint64_t before = device.getInstructionCount();
  auto trace = replay::record(
      device, *program, config->jsonText, recordCount,
      [&](uint64_t done, uint64_t total) {
        progress.update([&] {
          return llvm::formatv("recording: {0}% ({1} of {2} instructions)",
                               total ? 100 * done / total : 100,
                               formatCount(done), formatCount(total))
              .str();
        });
      });
  progress.endLine();
  if (!trace)
    return fail(llvm::toString(trace.takeError()));
  std::vector<uint8_t> bytes = trace->serialize(compressTrace);
  if (auto e =
          writeOutput(outputPath, llvm::StringRef((const char *)bytes.data(),
                                                  bytes.size())))
    return fail(llvm::toString(std::move(e)));
  progress.finish(
      formatCount(trace->pcs.size()) + " instructions recorded" +
      (before ? " after " + formatCount(before) + " run to the breakpoint"
              : ""));
  llvm::outs() << "recorded "
               << (trace->system ? "chip " + std::to_string(*chip) + " of " +
                                       std::to_string(config->chips) + ": "
                                 : std::string())
               << trace->pcs.size() << " instructions from pc "
               << trace->startPc << " (instruction " << trace->startIndex
               << " of the run): " << trace->registers.size()
               << " registers and "
               << trace->stateBytes() - trace->registers.size() * 8
               << " memory bytes of initial state, "
               << trace->pendingDmas.size() << " DMAs in flight";
  if (trace->system)
    llvm::outs() << ", " << trace->system->log.events.size()
                 << " events from the other chips, "
                 << trace->system->log.answers.size()
                 << " remote DMAs answered";
  llvm::outs() << "; wrote " << outputPath << " (" << bytes.size()
               << " bytes)\n";
  return 0;
}

/// The replayer of --input's trace: on the recorded machine, or with
/// --config's fields changed (the same instructions, new timing; SnR
/// §4.2), whose changes are listed on stdout. Errors are printed.
static std::unique_ptr<replay::Replayer>
createReplayer(const replay::Trace &trace) {
  std::vector<std::string> changed;
  llvm::Expected<std::unique_ptr<replay::Replayer>> replayer = nullptr;
  if (configFile.empty()) {
    replayer = replay::Replayer::create(trace);
  } else {
    auto buf = readInputFile(configFile, InputKind::Json);
    if (!buf) {
      fail(configFile + ": cannot read: " + llvm::toString(buf.takeError()));
      return nullptr;
    }
    replayer = replay::Replayer::create(trace, (*buf)->getBuffer(), configFile,
                                        changed);
  }
  if (!replayer) {
    fail(inputFile + ": " + llvm::toString(replayer.takeError()));
    return nullptr;
  }
  if (!configFile.empty()) {
    llvm::outs() << "replaying on the recorded machine with " << configFile
                 << "'s changes (" << changed.size() << " field"
                 << (changed.size() == 1 ? "" : "s") << "):\n";
    for (const std::string &c : changed)
      llvm::outs() << "  " << c << "\n";
  }
  return std::move(*replayer);
}

/// Writes metrics.json, timeline.json and report.txt of a replay into -o
/// (staged, replaced whole); `report` receives report.txt's text. Returns
/// the exit code.
static int writeReplayOutputs(const RunResult &r, llvm::StringRef dir,
                              std::string &report) {
  auto staged = StagedDirectory::create(dir);
  if (!staged)
    return fail(llvm::toString(staged.takeError()));
  llvm::SmallString<256> metricsPath(staged->path()),
      reportPath(staged->path()), timelinePath(staged->path());
  llvm::sys::path::append(metricsPath, "metrics.json");
  llvm::sys::path::append(reportPath, "report.txt");
  llvm::sys::path::append(timelinePath, "timeline.json");
  if (auto e = writeTimelineFile(timelinePath, r))
    return fail(staged->toTargetPaths(llvm::toString(std::move(e))));
  llvm::raw_string_ostream ros(report);
  profile::writeReport(*r.metrics, ros);
  if (auto e = writeMetricsFile(metricsPath, r))
    return fail(staged->toTargetPaths(llvm::toString(std::move(e))));
  if (auto e = writeOutput(reportPath, report))
    return fail(staged->toTargetPaths(llvm::toString(std::move(e))));
  if (auto e = staged->commit())
    return fail(llvm::toString(std::move(e)));
  return 0;
}

int cmdReplay() {
  auto trace = readTrace(inputFile);
  if (!trace)
    return fail(llvm::toString(trace.takeError()));
  std::unique_ptr<replay::Replayer> replayer = createReplayer(*trace);
  if (!replayer)
    return 1;
  Progress progress("accel-replay replay");
  ReplayWindowOptions window;
  window.analyze = analyze;
  window.timingOnly = timingOnly;
  auto onProgress = [&](uint64_t done, uint64_t total) {
    progress.update([&] {
      return llvm::formatv("replaying: {0}% ({1} of {2} instructions)",
                           total ? 100 * done / total : 100, formatCount(done),
                           formatCount(total))
          .str();
    });
  };
  window.onProgress = onProgress;
  auto onAnalyze = [&] {
    progress.update([] { return std::string("analyzing"); }, true);
  };
  window.onAnalyze = onAnalyze;
  auto r = replayWindow(*replayer, baseRunOptions(), window);
  if (!r)
    return fail(inputFile + ": " + llvm::toString(r.takeError()));
  (*r->metrics)["window"] = {{"start_instruction", trace->startIndex},
                             {"start_pc", trace->startPc},
                             {"instructions", trace->pcs.size()}};
  std::string dir = outputDirectory();
  std::string report;
  if (int rc = writeReplayOutputs(*r, dir, report))
    return rc;
  progress.finish(formatCount(trace->pcs.size()) +
                  " instructions replayed and analyzed");
  uint64_t writtenBytes = 0;
  for (const sim::AddrRange &w : trace->writtenRanges)
    writtenBytes += w.end - w.begin;
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

int cmdTraceInfo() {
  // Read here rather than by readTrace: the size of what was read (a file
  // or standard input).
  auto buf = readInputFile(inputFile, InputKind::Trace);
  if (!buf)
    return fail(inputFile + ": " + llvm::toString(buf.takeError()));
  uint64_t fileBytes = (*buf)->getBufferSize();
  auto trace = decodeTrace(inputFile, (*buf)->getBuffer());
  if (!trace)
    return fail(llvm::toString(trace.takeError()));
  const replay::Trace &t = *trace;
  uint64_t memBytes = t.stateBytes() - t.registers.size() * 8;
  llvm::outs()
      << "trace:              " << inputFile << "\n"
      << "format version:     " << t.formatVersion << "\n"
      << "ISA version:        " << t.isaVersion << "\n"
      << "payload:            " << (t.compressed ? "zstd-compressed" : "plain")
      << "\n"
      << "program:            " << t.program.name << " ("
      << t.program.code.size() << " instructions, " << t.program.buffers.size()
      << " buffers)\n"
      << "fingerprint:        "
      << (t.program.fingerprint.empty() ? std::string("(none)")
                                        : t.program.fingerprint)
      << "\n"
      << "system:             "
      << (t.system ? "chip " + std::to_string(t.system->chip) + " of " +
                         std::to_string(t.system->chips) + " (" +
                         std::to_string(t.system->log.events.size()) +
                         " events from the other chips, " +
                         std::to_string(t.system->log.answers.size()) +
                         " remote DMAs answered)"
                   : std::string("none (a chip alone)"))
      << "\n"
      << "window:             " << t.pcs.size() << " instructions from pc "
      << t.startPc << " (instruction " << t.startIndex << " of the run)\n"
      << "initial registers:  " << t.registers.size() << "\n"
      << "initial memory:     " << t.memory.size() << " ranges, " << memBytes
      << " bytes\n"
      << "DMAs in flight:     " << t.pendingDmas.size() << "\n"
      << "next DMA id:        " << t.nextDmaId << "\n"
      << "file size:          " << fileBytes << " bytes ("
      << llvm::format("%.2f",
                      t.pcs.empty() ? 0.0 : double(fileBytes) / t.pcs.size())
      << " bytes/instruction)\n"
      << "full-state snapshot: " << t.fullStateBytes << " bytes ("
      << llvm::format("%.1fx", t.stateBytes()
                                   ? double(t.fullStateBytes) / t.stateBytes()
                                   : 0.0)
      << " the recorded state)\n";
  return 0;
}
} // namespace accel::tool
