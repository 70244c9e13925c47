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

#include "accel/Profile/Analyzer.h"
#include "accel/Support/Json.h"
#include "accel/Support/JsonWriter.h"

#include "llvm/ADT/SmallString.h"

#include <nlohmann/json.hpp>

#include <map>
#include <optional>
#include <set>

using namespace accel;
using namespace accel::profile;
using json = nlohmann::json;

void Analyzer::writeTimeline(llvm::raw_ostream &os, const json &m) const {
  writeSystemTimeline(os, {this}, {&m});
}

void profile::writeSystemTimeline(llvm::raw_ostream &os,
                                  llvm::ArrayRef<const Analyzer *> chips,
                                  llvm::ArrayRef<const json *> metrics) {
  assert(!chips.empty() && chips.size() == metrics.size());
  bool first = true;
  JsonWriter writer(os);
  auto event = [&]() -> JsonWriter & {
    assert(writer.isComplete() && "the previous event is not complete");
    os << (first ? "\n" : ",\n");
    first = false;
    return writer;
  };
  os << "{\"displayTimeUnit\": \"ns\", \"traceEvents\": [";
  TimelineCoverage coverage;
  for (size_t c = 0; c < chips.size(); ++c) {
    std::string name = "accel: " + chips[c]->program.name;
    if (chips.size() > 1)
      name += " chip " + std::to_string(c);
    chips[c]->writeTimelineEvents(event, *metrics[c], int(c) + 1, name);
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
    c.drawnSlices += std::min(n, limits.maxSlices);
    if (n > limits.maxSlices) {
      c.omittedSlices += n - limits.maxSlices;
      c.completeUntilCycle =
          std::min(c.completeUntilCycle, tracks[t].startOf(limits.maxSlices));
    }
  }
  for (const Dma &d : dmas) {
    if (d.timing.link < 0)
      continue;
    if (c.drawnDmas < limits.maxDmas) {
      ++c.drawnDmas;
      continue;
    }
    if (!c.omittedDmas++)
      c.completeUntilCycle = std::min(c.completeUntilCycle, d.timing.issue);
  }
  return c;
}

namespace accel::profile {
/// Writes one chip's timeline events (Analyzer::writeTimelineEvents): the
/// process and track names, the MXU/VPU slices, each DMA with its parts,
/// ISSUE, backtail and WAIT stall, and the per-bucket counters. Each event
/// is written as dumpJson would write it as a JSON object: its keys in
/// sorted order (JsonWriter).
class TimelineWriter {
public:
  TimelineWriter(const Analyzer &a, llvm::function_ref<JsonWriter &()> event,
                 int pid)
      : a(a), event(event), pid(pid),
        usPerCycle(1.0 / (a.config.clockGHz * 1000.0)) {}

  void writeNames(const std::string &processName);
  void writeOpSlices();
  void writeDmas();
  void writeCounters(const json &m);

private:
  /// A cycle as a timestamp (microseconds at the config's clock).
  double ts(uint64_t cycle) const { return double(cycle) * usPerCycle; }
  const isa::Origin *origin(uint32_t pc) const {
    return pc < a.program.origins.size() ? &a.program.origins[pc] : nullptr;
  }
  /// One "M" event naming the process (tid 0) or track `tid`.
  void writeName(const char *kind, const std::string &name,
                 std::optional<uint64_t> tid);
  void writeDma(const Analyzer::Dma &d);
  void writeDmaParts(const Analyzer::Dma &d, const std::string &title);
  void writeBacktail(const Analyzer::Dma &d, const std::string &title,
                     uint64_t at);
  void writeBoundFlow(uint64_t bound, uint64_t at);
  /// Writes the async event {"args":ARGS,"cat":CAT,"id":ID,"name":NAME,
  /// "ph":PH,"pid":P,"tid":TID,"ts":TS} at `cycle`, where ARGS is `args`,
  /// JSON text (argsText): assembled as text, as JsonWriter would write it
  /// member by member (the DMAs' dozen events each were most of
  /// timeline.json's time on the Llama MLP, issue 34).
  void writeAsync(llvm::StringRef args, llvm::StringRef cat, llvm::StringRef id,
                  llvm::StringRef name, const char *ph, int tid,
                  uint64_t cycle);

  const Analyzer &a;
  llvm::function_ref<JsonWriter &()> event;
  const int pid;
  const double usPerCycle;
  /// The track of the backtails (after the DMA links'); set by writeNames.
  int backtailTid = 0;
  /// The DMA dependences by instruction index; set by writeDmas.
  std::map<uint64_t, const DmaDependence *> depByIndex;
  /// Instructions with a "bound OP" slice drawn, and the last flow's id.
  std::set<uint64_t> boundSlices;
  uint64_t flowId = 0;
  /// The current DMA's arguments, written once for its events.
  std::string argsText;
  /// writeAsync's text, and the texts of recent timestamps (a DMA's part
  /// ends where the next begins).
  llvm::SmallString<256> eventText;
  DoubleTextCache times;
};
} // namespace accel::profile

void TimelineWriter::writeName(const char *kind, const std::string &name,
                               std::optional<uint64_t> tid) {
  JsonWriter &w = event()
                      .beginObject()
                      .key("args")
                      .beginObject()
                      .member("name", name)
                      .endObject()
                      .member("name", kind)
                      .member("ph", "M")
                      .member("pid", pid);
  if (tid)
    w.member("tid", *tid);
  w.endObject();
}

/// The process's name, then its tracks': the scalar unit, MXU, VPU, the
/// chip's DMA links, the ICI links (named only when a DMA of this chip
/// entered them: a system has many) and the backtails.
void TimelineWriter::writeNames(const std::string &processName) {
  const sim::MachineConfig &config = a.config;
  writeName("process_name", processName, std::nullopt);
  std::vector<std::string> names = {"scalar unit", "MXU", "VPU"};
  std::vector<bool> usedLink(config.getNumDmaLinks());
  for (const Analyzer::Dma &d : a.dmas)
    if (d.timing.link >= 0)
      usedLink[d.timing.link] = true;
  for (unsigned l = 0; l < config.getNumDmaLinks(); ++l)
    names.push_back("DMA " + config.getLinkName(l));
  names.push_back("DMA backtails (relaxed)");
  backtailTid = int(names.size());
  for (size_t t = 0; t < names.size(); ++t) {
    bool iciTrack = t >= 3 + config.links.size() && t + 1 < names.size();
    if (iciTrack && !usedLink[t - 3])
      continue;
    writeName("thread_name", names[t], uint64_t(t + 1));
  }
}

/// MXU and VPU ops: the first maxSlices slices of each track
/// (TimelineLimits).
void TimelineWriter::writeOpSlices() {
  // Each op's slice name, made once ("NAME (op N)", or "op N" for an op
  // the program's origins do not name): slices are many, ops few.
  std::map<uint32_t, std::string> names;
  for (const isa::Origin &o : a.program.origins)
    names.try_emplace(o.opId,
                      o.opName + " (op " + std::to_string(o.opId) + ")");
  auto nameOf = [&](uint32_t opId) -> const std::string & {
    auto [it, fresh] = names.try_emplace(opId);
    if (fresh)
      it->second = "op " + std::to_string(opId);
    return it->second;
  };
  // A slice is
  //   {"args":{"op_id":N},"cat":C,"dur":D,"name":S,"ph":"X","pid":P,
  //    "tid":T,"ts":TS}
  // (the members in nlohmann::json's order, as JsonWriter would write
  // them), assembled as text: its two times are the only parts that are
  // not the same for all the slices of an op on a unit, and writing each
  // slice member by member was more than half of timeline.json's time
  // (issue 34).
  struct SliceText {
    std::string head; ///< up to "dur":
    std::string mid;  ///< from the name up to "ts":
  };
  std::map<std::pair<uint32_t, size_t>, SliceText> texts;
  llvm::SmallString<256> text;
  DoubleTextCache durations; // a loop's slices repeat a few durations
  for (size_t t = 1; t <= 2; ++t) {
    size_t k = 0;
    for (const Analyzer::Busy b : a.tracks[t]) {
      if (k++ >= a.limits.maxSlices)
        break;
      auto [it, fresh] = texts.try_emplace({b.opId, t});
      SliceText &st = it->second;
      if (fresh) {
        st.head = "{\"args\":{\"op_id\":" + std::to_string(b.opId) +
                  "},\"cat\":" + (t == 1 ? "\"mxu\"" : "\"vpu\"") + ",\"dur\":";
        st.mid = ",\"name\":" + dumpJson(json(nameOf(b.opId))) +
                 ",\"ph\":\"X\",\"pid\":" + std::to_string(pid) +
                 ",\"tid\":" + std::to_string(t + 1) + ",\"ts\":";
      }
      text.assign(st.head.begin(), st.head.end());
      durations.append(ts(b.end()) - ts(b.start), text);
      text.append(st.mid.begin(), st.mid.end());
      JsonWriter::appendDouble(ts(b.start), text);
      text.push_back('}');
      event().rawValue(text);
    }
  }
}

/// The DMAs, the first maxDmas of the chip: async slices with their parts;
/// ISSUE/WAIT and stalls on the scalar track.
void TimelineWriter::writeDmas() {
  for (const DmaDependence &d : a.deps.dmas())
    depByIndex[d.index] = &d;
  uint64_t drawn = 0;
  for (const Analyzer::Dma &d : a.dmas) {
    if (d.timing.link < 0)
      continue;
    if (drawn++ >= a.limits.maxDmas)
      continue;
    writeDma(d);
  }
}

/// One DMA: its async slice and parts on its link's track, its ISSUE (and
/// backtail) and its WAIT's stall on the scalar track.
void TimelineWriter::writeDma(const Analyzer::Dma &d) {
  const isa::Origin *o = origin(d.pc);
  std::string loc = o ? o->loc : "";
  uint32_t opId = o ? o->opId : 0;
  // The DMA's arguments, on each of its events: written once.
  argsText.clear();
  {
    llvm::raw_string_ostream argsOs(argsText);
    JsonWriter(argsOs)
        .beginObject()
        .member("bytes", d.timing.bytes)
        .member("dma", d.timing.id)
        .member("loc", loc)
        .member("op_id", opId)
        .member("stall_base", d.stallBase)
        .member("stall_transfer", d.stallTransfer)
        .endObject();
  }
  auto args = [&](JsonWriter &w) -> JsonWriter & {
    return w.key("args").rawValue(argsText);
  };
  std::string title = "DMA " + std::to_string(d.timing.id) + " (op " +
                      std::to_string(opId) + ")";
  writeDmaParts(d, title);

  // A complete slice with the DMA's arguments on the scalar track.
  auto slice = [&](const std::string &name, const char *cat, double start,
                   double dur) {
    JsonWriter &w = event().beginObject();
    args(w)
        .member("cat", cat)
        .member("dur", dur)
        .member("name", name)
        .member("ph", "X")
        .member("pid", pid)
        .member("tid", 1)
        .member("ts", start)
        .endObject();
  };
  // The ISSUE instruction (1 cycle) on the scalar track.
  if (!d.inFlightAtStart && d.index < a.cycles.size()) {
    uint64_t at = a.cycles.issue(d.index);
    slice("ISSUE " + title, "dma", ts(at), usPerCycle);
    writeBacktail(d, title, at);
  }
  // The WAIT's stall, split per Fig. 4.
  if (d.waitCycle && (d.stallBase || d.stallTransfer)) {
    uint64_t w = *d.waitCycle;
    if (d.stallBase)
      slice("stall: base latency", "stall", ts(w), ts(w + d.stallBase) - ts(w));
    if (d.stallTransfer) {
      uint64_t s = w + d.stallBase;
      slice("stall: transfer", "stall", ts(s), ts(s + d.stallTransfer) - ts(s));
    }
  }
}

/// The DMA's async slice on its link's track and its parts: base
/// latency, queue (waiting for the link), transfer and slack (until its
/// WAIT).
void TimelineWriter::writeDmaParts(const Analyzer::Dma &d,
                                   const std::string &title) {
  int tid = 4 + d.timing.link;
  std::string id = "dma" + std::to_string(d.timing.id);
  auto async = [&](const char *ph, const std::string &name, uint64_t c) {
    writeAsync(argsText, "dma", id, name, ph, tid, c);
  };
  uint64_t end = d.timing.complete;
  if (d.waitCycle && *d.waitCycle > end)
    end = *d.waitCycle;
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
}

/// The backtail of DMA `d` whose ISSUE is at cycle `at` (SnR Fig. 10): how
/// far back the ISSUE could move in the relaxed model, to the bounding
/// instruction or the start, on the backtail track; and the flow from the
/// bounding instruction to the ISSUE.
void TimelineWriter::writeBacktail(const Analyzer::Dma &d,
                                   const std::string &title, uint64_t at) {
  auto dep = depByIndex.find(d.index);
  if (dep == depByIndex.end())
    return;
  uint64_t from = dep->second->relaxed ? a.cycles.done(*dep->second->relaxed)
                                       : a.cycles.issue(0);
  std::string bid = "backtail" + std::to_string(d.timing.id);
  std::string name = "backtail " + title;
  writeAsync(argsText, "backtail", bid, name, "b", backtailTid,
             std::min(from, at));
  writeAsync(argsText, "backtail", bid, name, "e", backtailTid, at);
  if (dep->second->relaxed)
    writeBoundFlow(*dep->second->relaxed, at);
}

void TimelineWriter::writeAsync(llvm::StringRef args, llvm::StringRef cat,
                                llvm::StringRef id, llvm::StringRef name,
                                const char *ph, int tid, uint64_t cycle) {
  auto append = [&](llvm::StringRef t) {
    eventText.append(t.begin(), t.end());
  };
  eventText.clear();
  append("{\"args\":");
  append(args);
  append(",\"cat\":");
  JsonWriter::appendString(cat, eventText);
  append(",\"id\":");
  JsonWriter::appendString(id, eventText);
  append(",\"name\":");
  JsonWriter::appendString(name, eventText);
  append(",\"ph\":");
  JsonWriter::appendString(ph, eventText);
  append(",\"pid\":");
  append(std::to_string(pid));
  append(",\"tid\":");
  append(std::to_string(tid));
  append(",\"ts\":");
  times.append(ts(cycle), eventText);
  eventText.push_back('}');
  event().rawValue(eventText);
}

/// Backtail flow: from the bounding instruction `bound`'s slice (one per
/// instruction, however many ISSUEs it binds) to the ISSUE slice at cycle
/// `at`, both on the scalar track with the ISSUE's category, so that
/// viewers bind both ends (see the file comment).
void TimelineWriter::writeBoundFlow(uint64_t bound, uint64_t at) {
  uint64_t b = bound;
  if (boundSlices.insert(b).second) {
    const isa::Origin *bo = origin(a.pcs[b]);
    event()
        .beginObject()
        .key("args")
        .beginObject()
        .member("loc", bo ? bo->loc : std::string())
        .member("op_id", bo ? bo->opId : 0)
        .endObject()
        .member("cat", "dma")
        .member("dur", usPerCycle)
        .member("name", "bound " + (bo ? bo->opName : std::string("?")))
        .member("ph", "X")
        .member("pid", pid)
        .member("tid", 1)
        .member("ts", ts(a.cycles.issue(b)))
        .endObject();
  }
  ++flowId;
  event()
      .beginObject()
      .member("cat", "dma")
      .member("id", flowId)
      .member("name", "backtail")
      .member("ph", "s")
      .member("pid", pid)
      .member("tid", 1)
      .member("ts", ts(a.cycles.issue(b)))
      .endObject();
  event()
      .beginObject()
      .member("bp", "e")
      .member("cat", "dma")
      .member("id", flowId)
      .member("name", "backtail")
      .member("ph", "f")
      .member("pid", pid)
      .member("tid", 1)
      .member("ts", ts(at))
      .endObject();
}

/// Counters: utilization, VMEM free space and VMEM unused space (SnR
/// Fig. 8a, means over each bucket's cycles) per bucket of metrics `m`.
void TimelineWriter::writeCounters(const json &m) {
  uint64_t bucket = m["utilization"]["bucket_cycles"].get<uint64_t>();
  const json &units = m["utilization"]["units"];
  const json &vm = m["vmem"];
  for (uint64_t k = 0; k < m["utilization"]["buckets"].get<uint64_t>(); ++k) {
    JsonWriter &u = event().beginObject().key("args").beginObject();
    for (auto it = units.begin(); it != units.end(); ++it)
      u.member(it.key(), it.value()["series"][k]);
    u.endObject()
        .member("name", "utilization")
        .member("ph", "C")
        .member("pid", pid)
        .member("ts", ts(k * bucket))
        .endObject();
    event()
        .beginObject()
        .key("args")
        .beginObject()
        .member("free_fraction", vm["free_fraction"][k])
        .member("largest_free_run_pages", vm["largest_free_run_pages"][k])
        .endObject()
        .member("name", "VMEM free")
        .member("ph", "C")
        .member("pid", pid)
        .member("ts", ts(k * bucket))
        .endObject();
    if (vm.contains("unused_fraction"))
      event()
          .beginObject()
          .key("args")
          .beginObject()
          .member("largest_unused_run_fraction",
                  vm["largest_unused_run_fraction"][k])
          .member("unused_fraction", vm["unused_fraction"][k])
          .endObject()
          .member("name", "VMEM unused")
          .member("ph", "C")
          .member("pid", pid)
          .member("ts", ts(k * bucket))
          .endObject();
  }
}

void Analyzer::writeTimelineEvents(llvm::function_ref<JsonWriter &()> event,
                                   const json &m, int pid,
                                   const std::string &processName) const {
  // Long runs: the first maxSlices MXU/VPU slices per track and maxDmas
  // DMAs of the chip are drawn (TimelineLimits, TimelineCoverage).
  TimelineWriter w(*this, event, pid);
  w.writeNames(processName);
  w.writeOpSlices();
  w.writeDmas();
  w.writeCounters(m);
}
