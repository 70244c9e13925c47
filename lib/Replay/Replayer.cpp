//===- Replayer.cpp - Trace-load and timed replay (SnR §4.2) ---------===//

#include "accel/Replay/Replayer.h"

#include "accel/Support/Json.h"

#include "llvm/Support/CRC.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <set>

using namespace accel;
using namespace accel::replay;

/// Why a trace cannot replay on `config`, a system of several chips.
static std::string describeChipsProblem(const sim::MachineConfig &config) {
  return "a trace holds one chip's execution; replay runs on 1 chip, not " +
         std::to_string(config.chips) +
         " (record and replay cover a single chip)";
}

llvm::Expected<std::unique_ptr<Replayer>> Replayer::create(const Trace &trace) {
  auto config = sim::MachineConfig::fromJson(trace.configJson, "trace config");
  if (!config)
    return config.takeError();
  return build(trace, std::move(*config));
}

llvm::Expected<std::unique_ptr<Replayer>>
Replayer::build(const Trace &trace, sim::MachineConfig config) {
  // A trace of a chip alone is one chip's window: replaying it under a
  // system's config would run one chip under the system's hash and timing.
  // A trace of a chip of a system replays that chip on its system's
  // config, the other chips played by the trace.
  if (!trace.system && config.chips != 1)
    return llvm::createStringError("field 'chips': " +
                                   describeChipsProblem(config));
  std::unique_ptr<Replayer> r(new Replayer(trace));
  r->config = std::move(config);
  // Nothing below allocates or indexes by a number of the trace that this
  // has not checked.
  if (llvm::Error e = trace.validate(r->config))
    return std::move(e);
  r->program = trace.program;
  if (trace.system) {
    r->peers = std::make_unique<sim::LoggedPeers>(trace.system->log,
                                                  trace.system->chips);
    r->simulator = std::make_unique<sim::Simulator>(
        r->config, r->program, /*initHbm=*/false, trace.system->chip,
        r->peers.get());
  } else {
    r->simulator = std::make_unique<sim::Simulator>(r->config, r->program,
                                                    /*initHbm=*/false);
  }
  return std::move(r);
}

/// Appends "PATH: A -> B" for each leaf where `a` and `b` differ.
static void diffJson(const nlohmann::json &a, const nlohmann::json &b,
                     const std::string &path, std::vector<std::string> &out) {
  if (a.is_object() && b.is_object()) {
    std::set<std::string> keys;
    for (auto it = a.begin(); it != a.end(); ++it)
      keys.insert(it.key());
    for (auto it = b.begin(); it != b.end(); ++it)
      keys.insert(it.key());
    for (const std::string &k : keys) {
      if (path.empty() && k == "sources")
        continue;
      static const nlohmann::json absent;
      diffJson(a.contains(k) ? a[k] : absent, b.contains(k) ? b[k] : absent,
               path.empty() ? k : path + "." + k, out);
    }
    return;
  }
  if (a.is_array() && b.is_array() && a.size() == b.size()) {
    for (size_t i = 0; i < a.size(); ++i)
      diffJson(a[i], b[i], path + "[" + std::to_string(i) + "]", out);
    return;
  }
  if (a != b)
    out.push_back(path + ": " + dumpJson(a) + " -> " + dumpJson(b));
}

llvm::Expected<std::unique_ptr<Replayer>>
Replayer::create(const Trace &trace, llvm::StringRef overrideText,
                 llvm::StringRef sourceName,
                 std::vector<std::string> &changed) {
  // The other chips' signals, writes and ICI answers in the trace were
  // timed on the recorded machine: another machine would need them
  // re-timed, which only a run of the whole system can do.
  if (trace.system)
    return llvm::createStringError(
        sourceName + ": the trace is chip " +
        std::to_string(trace.system->chip) + " of a system of " +
        std::to_string(trace.system->chips) +
        " chips, which replays on its recorded machine only (the other "
        "chips' signals, writes and ICI transfers were timed on it); run "
        "the system with 'accel-replay run --config' instead");
  auto config =
      sim::MachineConfig::fromJson(overrideText, sourceName, trace.configJson);
  if (!config)
    return config.takeError();
  // The error names the override that asked for the chips.
  if (config->chips != 1)
    return llvm::createStringError(
        sourceName + ": field 'chips': " + describeChipsProblem(*config));
  changed.clear();
  diffJson(nlohmann::json::parse(trace.configJson, nullptr, false),
           nlohmann::json::parse(config->jsonText, nullptr, false), "",
           changed);
  return build(trace, std::move(*config));
}

llvm::Error Replayer::load() {
  sim::Simulator &s = *simulator;
  s.setPc(trace.startPc);
  for (auto [reg, value] : trace.registers) {
    if (reg == 0)
      continue;
    s.installRegister(reg, value);
  }
  for (size_t i = 0; i < trace.memory.size(); ++i) {
    const MemChunk &c = trace.memory[i];
    if (llvm::Error e = s.getMemory().install(c.space, c.addr, c.bytes)) {
      std::string where;
      if (trace.layout.fromFile && i < trace.layout.memory.size())
        where = "memory chunk " + std::to_string(i) + " at byte " +
                std::to_string(trace.layout.memory[i]) + ": ";
      return llvm::createStringError("trace-load: " + where +
                                     llvm::toString(std::move(e)));
    }
  }
  s.reserveDmaIds(trace.nextDmaId);
  if (trace.system) {
    // The chip's timing continues the recorded run's (absolute cycles).
    std::vector<sim::Simulator::PendingDma> pending;
    for (const DmaDescriptor &d : trace.pendingDmas)
      pending.push_back({d.id, d.issuePc, d.src, d.dst});
    s.installTimingState(trace.system->timing, pending);
    return llvm::Error::success();
  }
  for (const DmaDescriptor &d : trace.pendingDmas)
    s.installPendingDma(d.id, d.issuePc, d.src, d.dst);
  return llvm::Error::success();
}

/// "pc P (INST, op ID 'NAME' at LOC)".
static std::string describePc(const isa::Program &program, uint32_t pc) {
  std::string s = "pc " + std::to_string(pc);
  if (pc >= program.code.size())
    return s + " (outside the code)";
  s += " (" + isa::toString(program.code[pc]);
  if (pc < program.origins.size()) {
    const isa::Origin &o = program.origins[pc];
    s += ", op " + std::to_string(o.opId) + " '" + o.opName + "' at " + o.loc;
  }
  return s + ")";
}

llvm::Error Replayer::checkResults() {
  sim::Simulator &s = *simulator;
  for (auto [reg, value] : trace.finalRegisters)
    if (s.getRegister(reg) != value)
      return llvm::createStringError(
          "functional divergence: after the window r%u is 0x%llx but the "
          "recorded run had 0x%llx",
          unsigned(reg), (unsigned long long)s.getRegister(reg),
          (unsigned long long)value);
  // The CRC-32 of the written ranges, read in pieces of at most 64 KiB,
  // once their total is known to be at most what the window wrote (a range
  // the replay did not write would be read, and materialized, in vain).
  if (llvm::Error e = trace.checkWrittenSize())
    return e;
  uint32_t crc = 0;
  uint64_t total = 0;
  std::vector<uint8_t> bytes;
  for (const sim::AddrRange &w : trace.writtenRanges) {
    for (uint64_t at = w.begin; at < w.end;) {
      uint64_t n = std::min<uint64_t>(w.end - at, 64 * 1024);
      bytes.resize(n);
      if (llvm::Error e = s.getMemory().read(w.space, at, n, bytes.data()))
        return e;
      crc = llvm::crc32(crc, bytes);
      at += n;
    }
    total += w.end - w.begin;
  }
  if (crc != trace.writtenCrc)
    return llvm::createStringError(
        "functional divergence: the %llu bytes the window wrote have CRC-32 "
        "0x%08x but the recorded run's have 0x%08x",
        (unsigned long long)total, crc, trace.writtenCrc);
  return llvm::Error::success();
}

llvm::Expected<sim::RunSummary>
Replayer::run(llvm::function_ref<void(uint64_t, uint64_t)> progress) {
  sim::Simulator &s = *simulator;
  uint64_t n = trace.pcs.size();
  // A chip of a system: what the other chips did to it, before the
  // instruction it preceded (validate() checked the events are in order in
  // the window).
  llvm::ArrayRef<sim::ExternalEvent> events;
  if (trace.system)
    events = trace.system->log.events;
  // The trace's PCs in order, run by run (`left` more from `expected`).
  llvm::ArrayRef<PcSequence::Run> runs = trace.pcs.getRuns();
  uint32_t expected = 0;
  uint64_t left = 0;
  for (uint64_t i = 0; i < n; ++i) {
    if (left == 0) {
      expected = runs.front().first;
      left = runs.front().count;
      runs = runs.drop_front();
    }
    for (; !events.empty() && events.front().index == trace.startIndex + i;
         events = events.drop_front())
      if (llvm::Error e = s.applyExternal(events.front()))
        return llvm::createStringError(
            "event " +
            std::to_string(trace.system->log.events.size() - events.size()) +
            " of the trace: " + llvm::toString(std::move(e)));
    if (s.getPc() != expected || s.isHalted()) {
      std::string after =
          i ? "; the previous instruction was " +
                  describePc(program, trace.pcs[i - 1])
            : std::string();
      return llvm::createStringError(
          "PC divergence at instruction %llu of the window: the trace has %s "
          "but the replay %s %s%s",
          (unsigned long long)i, describePc(program, expected).c_str(),
          s.isHalted() ? "halted at" : "is at",
          describePc(program, s.getPc()).c_str(), after.c_str());
    }
    if (llvm::Error e = s.step())
      return std::move(e);
    if (peers && !peers->getError().empty())
      return llvm::createStringError("at instruction %llu of the window: %s",
                                     (unsigned long long)i,
                                     peers->getError().c_str());
    if (progress && (i & 0xffff) == 0xffff)
      progress(i + 1, n);
    ++expected;
    --left;
  }
  if (peers && peers->getAnswered() != trace.system->log.answers.size())
    return llvm::createStringError(
        "the trace answers %zu remote DMAs but the window issued %zu",
        trace.system->log.answers.size(), peers->getAnswered());
  return s.finish();
}
