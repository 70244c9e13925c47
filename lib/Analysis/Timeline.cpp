//===- Timeline.cpp - timeline.json in the Chrome Trace Event format ------===//
//
// Opens in Perfetto (ui.perfetto.dev) and chrome://tracing. Tracks (tid) of
// process 1: 1 scalar unit (the DMA ISSUE instructions, the instructions
// that bound a backtail, and WAIT stalls split into base-latency and
// transfer parts; other scalar instructions are not drawn), 2 MXU, 3 VPU;
// then one track per DMA link and one for the backtails; each
// DMA is an async slice on its link's track ("DMA <id>") with nested
// "base latency", "queue", "transfer" and "slack" parts; counters carry
// unit utilization, VMEM free space and VMEM unused space per bucket; flow
// arrows join the instruction that bounds each DMA's relaxed backtail to
// its ISSUE (SnR, Zarkadas et al., SoCC '25, Fig. 9, 10). Timestamps are
// microseconds at the config's clock.
//
// A flow's "s" and "f" events carry the category ("dma") and the ts of the
// scalar-track slices they join (the "bound OP" slice and the ISSUE
// slice): Chrome DevTools binds a flow event to the slice with the same
// cat, pid, tid and ts, Perfetto to the slice enclosing it on its track.
//
//===----------------------------------------------------------------------===//

#include "accel/Analysis/Analyzer.h"
#include "accel/Support/Json.h"

#include <nlohmann/json.hpp>

#include <set>

using namespace accel;
using namespace accel::analysis;
using json = nlohmann::json;

void Analyzer::writeTimeline(llvm::raw_ostream &os, const json &m) const {
  writeSystemTimeline(os, {this}, {&m});
}

void analysis::writeSystemTimeline(llvm::raw_ostream &os,
                                   llvm::ArrayRef<const Analyzer *> chips,
                                   llvm::ArrayRef<const json *> metrics) {
  assert(!chips.empty() && chips.size() == metrics.size());
  bool first = true;
  auto emit = [&](const json &e) {
    os << (first ? "\n" : ",\n") << dumpJson(e);
    first = false;
  };
  os << "{\"displayTimeUnit\": \"ns\", \"traceEvents\": [";
  TimelineCoverage coverage;
  for (size_t c = 0; c < chips.size(); ++c) {
    std::string name = "accel: " + chips[c]->program.name;
    if (chips.size() > 1)
      name += " chip " + std::to_string(c);
    chips[c]->writeTimelineEvents(emit, *metrics[c], int(c) + 1, name);
    if (c == 0)
      coverage = chips[c]->getTimelineCoverage();
    else
      coverage.merge(chips[c]->getTimelineCoverage());
  }
  const Analyzer &a = *chips.front();
  os << "\n], \"otherData\": {\"program\": " << dumpJson(json(a.program.name))
     << ", \"clock_ghz\": " << dumpJson(json(a.config.clockGHz))
     << ", \"chips\": " << chips.size()
     << ", \"omitted_unit_slices\": " << coverage.omittedSlices
     << ", \"omitted_dmas\": " << coverage.omittedDmas
     << ", \"complete_until_cycle\": " << coverage.completeUntilCycle << "}}\n";
}

void TimelineCoverage::merge(const TimelineCoverage &other) {
  drawnDmas += other.drawnDmas;
  omittedDmas += other.omittedDmas;
  drawnSlices += other.drawnSlices;
  omittedSlices += other.omittedSlices;
  completeUntilCycle = std::min(completeUntilCycle, other.completeUntilCycle);
  totalCycles = std::max(totalCycles, other.totalCycles);
}

json TimelineCoverage::toJson() const {
  return {{"truncated", isTruncated()},
          {"drawn_dmas", drawnDmas},
          {"omitted_dmas", omittedDmas},
          {"drawn_unit_slices", drawnSlices},
          {"omitted_unit_slices", omittedSlices},
          {"complete_until_cycle", completeUntilCycle}};
}

TimelineCoverage Analyzer::getTimelineCoverage() const {
  TimelineCoverage c;
  c.totalCycles = totalCycles;
  c.completeUntilCycle = totalCycles;
  for (size_t t = 1; t <= 2; ++t) {
    uint64_t n = tracks[t].size();
    c.drawnSlices += std::min(n, TimelineCoverage::kMaxSlices);
    if (n > TimelineCoverage::kMaxSlices) {
      c.omittedSlices += n - TimelineCoverage::kMaxSlices;
      c.completeUntilCycle = std::min(
          c.completeUntilCycle, tracks[t][TimelineCoverage::kMaxSlices].start);
    }
  }
  for (const Dma &d : dmas) {
    if (d.timing.link < 0)
      continue;
    if (c.drawnDmas < TimelineCoverage::kMaxDmas) {
      ++c.drawnDmas;
      continue;
    }
    if (!c.omittedDmas++)
      c.completeUntilCycle = std::min(c.completeUntilCycle, d.timing.issue);
  }
  return c;
}

void Analyzer::writeTimelineEvents(llvm::function_ref<void(const json &)> emit,
                                   const json &m, int pid,
                                   const std::string &processName) const {
  double usPerCycle = 1.0 / (config.clockGHz * 1000.0);
  auto ts = [&](uint64_t cycle) { return double(cycle) * usPerCycle; };
  auto origin = [&](uint32_t pc) -> const isa::Origin * {
    return pc < program.origins.size() ? &program.origins[pc] : nullptr;
  };
  // Long runs: the first kMaxSlices MXU/VPU slices per track and kMaxDmas
  // DMAs of the chip are drawn (TimelineCoverage).
  constexpr size_t kMaxSlices = TimelineCoverage::kMaxSlices,
                   kMaxDmas = TimelineCoverage::kMaxDmas;
  emit({{"name", "process_name"}, {"ph", "M"}, {"pid", pid},
        {"args", {{"name", processName}}}});
  std::vector<std::string> names = {"scalar unit", "MXU", "VPU"};
  // The chip's links, then the ICI links (named only when a DMA of this
  // chip entered them: a system has many).
  std::vector<bool> usedLink(config.getNumDmaLinks());
  for (const Dma &d : dmas)
    if (d.timing.link >= 0)
      usedLink[d.timing.link] = true;
  for (unsigned l = 0; l < config.getNumDmaLinks(); ++l)
    names.push_back("DMA " + config.getLinkName(l));
  names.push_back("DMA backtails (relaxed)");
  const int backtailTid = int(names.size());
  for (size_t t = 0; t < names.size(); ++t) {
    bool iciTrack = t >= 3 + config.links.size() && t + 1 < names.size();
    if (iciTrack && !usedLink[t - 3])
      continue;
    emit({{"name", "thread_name"}, {"ph", "M"}, {"pid", pid},
          {"tid", t + 1}, {"args", {{"name", names[t]}}}});
  }

  // MXU and VPU ops.
  std::map<uint32_t, std::string> opNames;
  for (const isa::Origin &o : program.origins)
    opNames.emplace(o.opId, o.opName);
  for (size_t t = 1; t <= 2; ++t)
    for (size_t k = 0; k < tracks[t].size(); ++k) {
      const Busy &b = tracks[t][k];
      if (k >= kMaxSlices)
        break;
      std::string name = "op " + std::to_string(b.opId);
      auto known = opNames.find(b.opId);
      if (known != opNames.end())
        name = known->second + " (op " + std::to_string(b.opId) + ")";
      emit({{"name", name}, {"cat", t == 1 ? "mxu" : "vpu"}, {"ph", "X"},
            {"ts", ts(b.start)}, {"dur", ts(b.end) - ts(b.start)},
            {"pid", pid}, {"tid", t + 1}, {"args", {{"op_id", b.opId}}}});
    }

  // DMAs: async slices with their parts; ISSUE/WAIT and stalls on the
  // scalar track.
  std::map<uint64_t, const DmaDependence *> depByIndex;
  for (const DmaDependence &d : deps.dmas())
    depByIndex[d.index] = &d;
  uint64_t flowId = 0, drawn = 0;
  std::set<uint64_t> boundSlices; // instructions with a "bound OP" slice
  for (const Dma &d : dmas) {
    if (d.timing.link < 0)
      continue;
    if (drawn++ >= kMaxDmas)
      continue;
    const isa::Origin *o = origin(d.pc);
    std::string loc = o ? o->loc : "";
    uint32_t opId = o ? o->opId : 0;
    int tid = 4 + d.timing.link;
    std::string id = "dma" + std::to_string(d.timing.id);
    json args = {{"dma", d.timing.id}, {"op_id", opId}, {"loc", loc},
                 {"bytes", d.timing.bytes},
                 {"stall_base", d.stallBase},
                 {"stall_transfer", d.stallTransfer}};
    auto async = [&](const char *ph, const std::string &name, uint64_t c) {
      emit({{"name", name}, {"cat", "dma"}, {"ph", ph}, {"id", id},
            {"ts", ts(c)}, {"pid", pid}, {"tid", tid}, {"args", args}});
    };
    uint64_t end = d.timing.complete;
    if (d.waitCycle && *d.waitCycle > end)
      end = *d.waitCycle;
    std::string title = "DMA " + std::to_string(d.timing.id) + " (op " +
                        std::to_string(opId) + ")";
    async("b", title, d.timing.issue);
    async("b", "base latency", d.timing.issue);
    async("e", "base latency", d.timing.baseEnd);
    if (d.timing.transferStart > d.timing.baseEnd) {
      async("b", "queue", d.timing.baseEnd);
      async("e", "queue", d.timing.transferStart);
    }
    async("b", "transfer", d.timing.transferStart);
    async("e", "transfer", d.timing.complete);
    if (d.waitCycle && *d.waitCycle > d.timing.complete) {
      async("b", "slack", d.timing.complete);
      async("e", "slack", *d.waitCycle);
    }
    async("e", title, end);

    // The ISSUE instruction (1 cycle) on the scalar track.
    if (!d.inFlightAtStart && d.index < issueCycles.size()) {
      uint64_t at = issueCycles[d.index];
      emit({{"name", "ISSUE " + title}, {"cat", "dma"}, {"ph", "X"},
            {"ts", ts(at)}, {"dur", usPerCycle}, {"pid", pid}, {"tid", 1},
            {"args", args}});
      // The backtail (SnR Fig. 10): how far back the ISSUE could move in
      // the relaxed model, to the bounding instruction or the start.
      auto dep = depByIndex.find(d.index);
      if (dep != depByIndex.end()) {
        uint64_t from = dep->second->relaxed
                            ? doneCycles[*dep->second->relaxed]
                            : issueCycles.front();
        std::string bid = "backtail" + std::to_string(d.timing.id);
        for (const char *ph : {"b", "e"})
          emit({{"name", "backtail " + title}, {"cat", "backtail"},
                {"ph", ph}, {"id", bid},
                {"ts", ts(ph[0] == 'b' ? std::min(from, at) : at)},
                {"pid", pid}, {"tid", backtailTid}, {"args", args}});
      }
      // Backtail flow: from the bounding instruction's slice (one per
      // instruction, however many ISSUEs it binds) to the ISSUE slice, both
      // on the scalar track with the ISSUE's category, so that viewers
      // bind both ends (see the file comment).
      if (dep != depByIndex.end() && dep->second->relaxed) {
        uint64_t b = *dep->second->relaxed;
        if (boundSlices.insert(b).second) {
          const isa::Origin *bo = origin(pcs[b]);
          emit({{"name", "bound " + (bo ? bo->opName : std::string("?"))},
                {"cat", "dma"},
                {"ph", "X"},
                {"ts", ts(issueCycles[b])},
                {"dur", usPerCycle},
                {"pid", pid},
                {"tid", 1},
                {"args",
                 {{"op_id", bo ? bo->opId : 0}, {"loc", bo ? bo->loc : ""}}}});
        }
        ++flowId;
        emit({{"name", "backtail"},
              {"cat", "dma"},
              {"ph", "s"},
              {"id", flowId},
              {"ts", ts(issueCycles[b])},
              {"pid", pid},
              {"tid", 1}});
        emit({{"name", "backtail"},
              {"cat", "dma"},
              {"ph", "f"},
              {"bp", "e"},
              {"id", flowId},
              {"ts", ts(at)},
              {"pid", pid},
              {"tid", 1}});
      }
    }
    // The WAIT's stall, split per Fig. 4.
    if (d.waitCycle && (d.stallBase || d.stallTransfer)) {
      uint64_t w = *d.waitCycle;
      if (d.stallBase)
        emit({{"name", "stall: base latency"}, {"cat", "stall"}, {"ph", "X"},
              {"ts", ts(w)}, {"dur", ts(w + d.stallBase) - ts(w)},
              {"pid", pid}, {"tid", 1}, {"args", args}});
      if (d.stallTransfer) {
        uint64_t s = w + d.stallBase;
        emit({{"name", "stall: transfer"}, {"cat", "stall"}, {"ph", "X"},
              {"ts", ts(s)}, {"dur", ts(s + d.stallTransfer) - ts(s)},
              {"pid", pid}, {"tid", 1}, {"args", args}});
      }
    }
  }

  // Counters: utilization, VMEM free space and VMEM unused space (SnR
  // Fig. 8a, means over each bucket's cycles) per bucket.
  uint64_t bucket = m["utilization"]["bucket_cycles"].get<uint64_t>();
  const json &units = m["utilization"]["units"];
  const json &vm = m["vmem"];
  for (uint64_t k = 0; k < m["utilization"]["buckets"].get<uint64_t>(); ++k) {
    json u = json::object();
    for (auto it = units.begin(); it != units.end(); ++it)
      u[it.key()] = it.value()["series"][k];
    emit({{"name", "utilization"}, {"ph", "C"}, {"ts", ts(k * bucket)},
          {"pid", pid}, {"args", u}});
    emit({{"name", "VMEM free"}, {"ph", "C"}, {"ts", ts(k * bucket)},
          {"pid", pid},
          {"args", {{"free_fraction", vm["free_fraction"][k]},
                    {"largest_free_run_pages",
                     vm["largest_free_run_pages"][k]}}}});
    if (vm.contains("unused_fraction"))
      emit({{"name", "VMEM unused"},
            {"ph", "C"},
            {"ts", ts(k * bucket)},
            {"pid", pid},
            {"args",
             {{"unused_fraction", vm["unused_fraction"][k]},
              {"largest_unused_run_fraction",
               vm["largest_unused_run_fraction"][k]}}}});
  }
}
