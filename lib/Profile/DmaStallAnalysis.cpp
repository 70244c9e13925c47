//===- DmaStallAnalysis.cpp - DMA stall split and metrics.json ------------===//

#include "accel/Profile/DmaStallAnalysis.h"

#include "llvm/Support/Format.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <map>

using namespace accel;
using namespace accel::profile;
using json = nlohmann::json;

void DmaStallCollector::onDmaIssue(uint32_t pc, const sim::DmaTiming &dma) {
  // Ids come in order, except a replay's DMAs in flight, which come first
  // with smaller ids of their own: insert in id order.
  auto it = records.end();
  if (!records.empty() && records.back().timing.id >= dma.id)
    it = std::lower_bound(
        records.begin(), records.end(), dma.id,
        [](const DmaRecord &r, uint32_t id) { return r.timing.id < id; });
  if (it == records.end() || it->timing.id != dma.id)
    it = records.insert(it, DmaRecord());
  it->timing = dma;
  it->issuePc = pc;
}

DmaRecord *DmaStallCollector::find(uint32_t id) {
  auto it = std::lower_bound(
      records.begin(), records.end(), id,
      [](const DmaRecord &r, uint32_t id) { return r.timing.id < id; });
  return it != records.end() && it->timing.id == id ? &*it : nullptr;
}

void DmaStallCollector::onDmaWait(const sim::WaitEvent &event) {
  DmaRecord *r = find(event.dmaId);
  if (!r)
    return; // a DMA the collector never saw issued
  if (r->waitCycle)
    return; // the first WAIT decides the split
  r->waitCycle = event.cycle;
  r->waitPc = event.pc;
  r->stallBase = event.outcome.stallBase;
  r->stallTransfer = event.outcome.stallTransfer;
  r->slack = event.outcome.slack;
}

void DmaStallCollector::merge(const DmaStallCollector &other) {
  records.insert(records.end(), other.records.begin(), other.records.end());
  if (perPc.size() < other.perPc.size())
    perPc.resize(other.perPc.size());
  for (size_t pc = 0; pc < other.perPc.size(); ++pc) {
    perPc[pc].executions += other.perPc[pc].executions;
    perPc[pc].slotWaits += other.perPc[pc].slotWaits;
    for (size_t c = 0; c < size_t(sim::StallCause::NumCauses); ++c)
      perPc[pc].stall[c] += other.perPc[pc].stall[c];
  }
}

void DmaStallCollector::onRetire(const sim::RetireEvent &event) {
  if (perPc.size() <= event.pc)
    perPc.resize(event.pc + 1);
  PcStats &s = perPc[event.pc];
  ++s.executions;
  if (event.inst->op == isa::Opcode::DmaWait)
    return; // charged per DMA (base / transfer) below
  s.stall[size_t(event.cause)] += event.stallCycles;
  if (event.cause == sim::StallCause::DmaSlots && event.stallCycles)
    ++s.slotWaits;
}

static double ratio(uint64_t a, uint64_t b) { return b ? double(a) / b : 0.0; }

/// metrics.json "config": the machine's name and hash, and which latencies
/// are measured rather than modelled (docs/config.md, "Calibration").
static json getConfigJson(const sim::MachineConfig &config) {
  json c = {{"name", config.name}, {"hash", config.hash()}};
  if (config.calibration.empty())
    return c;
  json tables = json::array();
  for (const sim::CalibrationEntry &e : config.calibration) {
    json keys = json::array();
    for (sim::CalibrationKey k : e.keys)
      keys.push_back(std::string(sim::calibrationKeyName(k)));
    tables.push_back({{"instruction", e.instruction},
                      {"link", e.link},
                      {"file", e.file},
                      {"keys", keys},
                      {"points", e.table->size()}});
  }
  c["calibration"] = tables;
  return c;
}

/// metrics.json "stall_cycles", "dma_stall_cycles" (SnR Fig. 4's split)
/// and "dma_slots" (ISSUEs that waited for one of the max_outstanding DMA
/// slots), into `m`.
static void addStalls(json &m, const sim::MachineConfig &config,
                      const sim::RunSummary &summary,
                      const DmaStallCollector &collector) {
  json causes = json::object();
  for (size_t c = 1; c < size_t(sim::StallCause::NumCauses); ++c)
    causes[std::string(sim::stallCauseName(sim::StallCause(c)))] =
        summary.stallCycles[c];
  m["stall_cycles"] = causes;
  uint64_t base = summary.stallCycles[size_t(sim::StallCause::DmaWaitBase)];
  uint64_t transfer =
      summary.stallCycles[size_t(sim::StallCause::DmaWaitTransfer)];
  m["dma_stall_cycles"] = {
      {"base", base}, {"transfer", transfer}, {"total", base + transfer}};
  uint64_t slotIssues = 0;
  for (const DmaStallCollector::PcStats &ps : collector.pcStats())
    slotIssues += ps.slotWaits;
  m["dma_slots"] = {
      {"max_outstanding", config.maxOutstandingDmas},
      {"stall_cycles", summary.stallCycles[size_t(sim::StallCause::DmaSlots)]},
      {"stalled_issues", slotIssues}};
}

/// metrics.json "units": each unit's busy cycles and utilization.
static json getUnitsJson(const sim::RunSummary &summary) {
  json units = json::object();
  for (isa::Unit u : {isa::Unit::Scalar, isa::Unit::Mxu, isa::Unit::Vpu}) {
    uint64_t busy = summary.unitBusyCycles[size_t(u)];
    units[std::string(isa::unitName(u))] = {
        {"busy_cycles", busy},
        {"utilization", ratio(busy, summary.totalCycles)}};
  }
  return units;
}

/// metrics.json "links": a chip's own links, then the ICI links its DMAs
/// crossed (a remote DMA holds every ICI link of its route while it
/// transfers), each with its DMAs, bytes and busy cycles.
static json getLinksJson(const sim::MachineConfig &config,
                         const sim::RunSummary &summary,
                         const DmaStallCollector &collector) {
  std::vector<uint64_t> linkBytes(config.getNumDmaLinks()),
      linkBusy(config.getNumDmaLinks()), linkCount(config.getNumDmaLinks());
  for (const DmaRecord &r : collector.dmas()) {
    if (r.timing.link < 0)
      continue; // an id not issued in this run (replay windows)
    auto charge = [&](size_t l) {
      linkBytes[l] += r.timing.bytes;
      linkBusy[l] += r.timing.complete - r.timing.transferStart;
      ++linkCount[l];
    };
    if (r.timing.srcChip == r.timing.dstChip) {
      charge(size_t(r.timing.link));
      continue;
    }
    for (unsigned l : config.topology.route(r.timing.srcChip, r.timing.dstChip))
      charge(config.links.size() + l);
  }
  json links = json::object();
  for (size_t l = 0; l < config.links.size(); ++l)
    links[config.links[l].name] = {
        {"dmas", linkCount[l]},
        {"bytes", linkBytes[l]},
        {"busy_cycles", linkBusy[l]},
        {"utilization", ratio(linkBusy[l], summary.totalCycles)},
        {"base_latency", config.links[l].baseLatency},
        {"bytes_per_cycle", config.links[l].bytesPerCycle}};
  for (size_t l = config.links.size(); l < linkCount.size(); ++l)
    if (linkCount[l])
      links[config.getLinkName(unsigned(l))] = {
          {"dmas", linkCount[l]},
          {"bytes", linkBytes[l]},
          {"busy_cycles", linkBusy[l]},
          {"utilization", ratio(linkBusy[l], summary.totalCycles)},
          {"hop_latency", config.iciHopLatency},
          {"bytes_per_cycle", config.iciBytesPerCycle}};
  return links;
}

namespace {
/// One op's totals over its instructions and DMAs (metrics.json "ops").
struct OpAgg {
  std::string name, loc;
  uint64_t executions = 0, dmas = 0, bytes = 0, stallBase = 0,
           stallTransfer = 0, slack = 0, waited = 0, slotWaits = 0;
  uint64_t minSlack = UINT64_MAX;
  uint64_t stall[size_t(sim::StallCause::NumCauses)] = {};
};
} // namespace

/// Each op's totals by op id: its instructions' executions and stalls,
/// then its DMAs' bytes and stall split.
static std::map<uint32_t, OpAgg>
aggregateOps(const isa::Program &program, const DmaStallCollector &collector) {
  std::map<uint32_t, OpAgg> ops;
  const auto &pcs = collector.pcStats();
  for (size_t pc = 0; pc < pcs.size() && pc < program.origins.size(); ++pc) {
    const isa::Origin &o = program.origins[pc];
    if (!o.opId || !pcs[pc].executions)
      continue;
    OpAgg &a = ops[o.opId];
    a.name = o.opName;
    a.loc = o.loc;
    a.executions = std::max(a.executions, pcs[pc].executions);
    for (size_t c = 0; c < size_t(sim::StallCause::NumCauses); ++c)
      a.stall[c] += pcs[pc].stall[c];
    a.slotWaits += pcs[pc].slotWaits;
  }
  for (const DmaRecord &r : collector.dmas()) {
    if (r.timing.link < 0)
      continue;
    const isa::Origin &o = program.origins[r.issuePc];
    OpAgg &a = ops[o.opId];
    a.name = o.opName; // also for DMAs issued before a replay window
    a.loc = o.loc;
    ++a.dmas;
    a.bytes += r.timing.bytes;
    a.stallBase += r.stallBase;
    a.stallTransfer += r.stallTransfer;
    a.slack += r.slack;
    if (r.waitCycle) {
      ++a.waited;
      a.minSlack = std::min(a.minSlack, r.slack);
    }
  }
  return ops;
}

/// metrics.json "ops": per op id (0, no op, omitted).
static json getOpsJson(const std::map<uint32_t, OpAgg> &ops) {
  json opsJson = json::object();
  for (const auto &[id, a] : ops) {
    if (!id)
      continue;
    json o = {{"name", a.name}, {"loc", a.loc}, {"executions", a.executions}};
    if (a.dmas) {
      o["dmas"] = a.dmas;
      o["bytes"] = a.bytes;
      o["stall_base"] = a.stallBase;
      o["stall_transfer"] = a.stallTransfer;
      o["stall"] = a.stallBase + a.stallTransfer;
      o["slack"] = a.slack;
      o["min_slack"] = a.waited ? a.minSlack : 0;
      o["stall_slots"] = a.stall[size_t(sim::StallCause::DmaSlots)];
      o["slot_stalled_issues"] = a.slotWaits;
    }
    json st = json::object();
    for (size_t c = 1; c < size_t(sim::StallCause::NumCauses); ++c)
      if (a.stall[c])
        st[std::string(sim::stallCauseName(sim::StallCause(c)))] = a.stall[c];
    if (!st.empty())
      o["stall_cycles"] = st;
    opsJson[std::to_string(id)] = std::move(o);
  }
  return opsJson;
}

json profile::buildMetrics(const isa::Program &program,
                           const sim::MachineConfig &config,
                           const sim::RunSummary &summary,
                           const DmaStallCollector &collector) {
  json m;
  m["schema"] = "accel-metrics";
  m["schema_version"] = kMetricsSchemaVersion;
  m["isa_version"] = program.isaVersion;
  m["program"] = program.name;
  if (!program.fingerprint.empty())
    m["program_fingerprint"] = program.fingerprint;
  m["config"] = getConfigJson(config);
  m["total_cycles"] = summary.totalCycles;
  m["instructions"] = summary.instructions;
  addStalls(m, config, summary, collector);
  m["units"] = getUnitsJson(summary);
  m["links"] = getLinksJson(config, summary, collector);
  m["ops"] = getOpsJson(aggregateOps(program, collector));
  return m;
}

namespace {
/// What the sections of report.txt share: the run's cycles, and on a
/// system the chips, whose stalls are shares of the chip-cycles.
struct ReportScale {
  uint64_t total = 0, numChips = 1, chipCycles = 0, maxOutstanding = 0;
  const json *chips = nullptr;
  std::string ofRun;
};
/// An op of metrics.json "ops", by id.
struct Row {
  std::string id;
  const json *op;
};

/// The header: program, machine, totals, truncation, DMA stalls.
void writeReportHeader(const json &m, llvm::raw_ostream &os,
                       const ReportScale &r) {
  uint64_t total = r.total, chipCycles = r.chipCycles, numChips = r.numChips;
  const json *chips = r.chips;
  const std::string &ofRun = r.ofRun;
  uint64_t base = m["dma_stall_cycles"]["base"].get<uint64_t>();
  uint64_t transfer = m["dma_stall_cycles"]["transfer"].get<uint64_t>();
  os << "accel report for '" << m["program"].get<std::string>() << "' on "
     << m["config"]["name"].get<std::string>();
  if (chips && m.contains("system"))
    os << ", " << numChips << " chips ("
       << m["system"]["topology"].get<std::string>() << ", "
       << m["system"]["ici_links"].get<uint64_t>() << " ICI links)";
  os << "\n";
  if (m["config"].contains("calibration"))
    for (const json &t : m["config"]["calibration"]) {
      std::string link = t["link"].get<std::string>();
      os << "  calibrated:          " << t["instruction"].get<std::string>()
         << (link.empty() ? "" : " " + link) << " from "
         << t["file"].get<std::string>() << " (" << t["points"].get<uint64_t>()
         << " measured points)\n";
    }
  os << "  total cycles:        " << total;
  if (chips)
    os << " (the last chip's end; " << chipCycles << " chip-cycles)";
  os << "\n";
  os << "  instructions:        " << m["instructions"].get<uint64_t>()
     << (chips ? " (all chips)" : "") << "\n";
  if (m.contains("truncated"))
    os << "  TRUNCATED: the run reached its instruction budget of "
       << m["truncated"]["max_instructions"].get<uint64_t>()
       << " (--max-instructions) before halt; every number below covers "
          "only the instructions that ran\n";
  if (m.contains("timeline") && m["timeline"]["truncated"].get<bool>()) {
    const json &t = m["timeline"];
    uint64_t until = t["complete_until_cycle"].get<uint64_t>();
    uint64_t dmas = t["drawn_dmas"].get<uint64_t>(),
             slices = t["drawn_unit_slices"].get<uint64_t>();
    uint64_t omittedDmas = t["omitted_dmas"].get<uint64_t>(),
             omittedSlices = t["omitted_unit_slices"].get<uint64_t>();
    // Rounded down: 99.99% complete is not "100.0%".
    os << "  timeline.json:       TRUNCATED: complete up to cycle " << until
       << " of " << total << " ("
       << llvm::format("%.1f", std::floor(1000.0 * ratio(until, total)) / 10.0)
       << "%); it draws the first " << dmas << " of " << dmas + omittedDmas
       << " DMAs";
    if (slices + omittedSlices)
      os << " and " << slices << " of " << slices + omittedSlices
         << " MXU/VPU slices";
    os << " (trace viewers slow down past that); its counters and the "
          "numbers here cover the whole run\n";
  }
  os << "  DMA stall cycles:    " << base + transfer << " ("
     << llvm::format("%.1f", 100.0 * ratio(base + transfer, chipCycles))
     << ofRun << "): " << base << " waiting on base latency, " << transfer
     << " waiting on transfer latency\n";
}

/// The other stall causes and the units' utilization.
void writeReportCauses(const json &m, llvm::raw_ostream &os,
                       const ReportScale &r) {
  // Every other cause the simulator records (SnR §4.2: stalls by
  // cause), and the DMA slots in the paper's words.
  uint64_t chipCycles = r.chipCycles;
  const json *chips = r.chips;
  const std::string &ofRun = r.ofRun;
  const json &causes = m["stall_cycles"];
  uint64_t slots = causes.value("dma_slots", uint64_t(0));
  uint64_t maxOutstanding = r.maxOutstanding;
  os << "  DMA slot stalls:     " << slots << " ("
     << llvm::format("%.1f", 100.0 * ratio(slots, chipCycles)) << ofRun
     << "): ISSUEs waiting for a free DMA slot, max_outstanding = "
     << maxOutstanding << " DMAs in flight\n";
  os << "  other stalls:        mxu_busy "
     << causes.value("mxu_busy", uint64_t(0)) << ", vpu_busy "
     << causes.value("vpu_busy", uint64_t(0)) << ", data_hazard "
     << causes.value("data_hazard", uint64_t(0));
  if (chips || causes.value("sem_wait", uint64_t(0)))
    os << ", sem_wait " << causes.value("sem_wait", uint64_t(0))
       << " (WAITs for remote DMAs' signals)";
  os << "\n";
  for (const char *u : {"mxu", "vpu", "scalar"})
    os << llvm::format("  %-6s utilization:  %.1f%%%s\n", u,
                       100.0 * m["units"][u]["utilization"].get<double>(),
                       chips ? " (mean over the chips)" : "");
}

/// A system's network and bound lines.
void writeReportSystem(const json &m, llvm::raw_ostream &os,
                       const ReportScale &r) {
  // The network and the system-wide bound (docs/metrics.md, "Systems of
  // chips").
  uint64_t total = r.total;
  if (auto sys = m.find("system"); sys != m.end() && sys->contains("ici")) {
    const json &ici = (*sys)["ici"];
    if (!ici["busiest_link"].is_null()) {
      uint64_t busy = ici["busiest_link_busy_cycles"].get<uint64_t>();
      os << "  ICI:                 busiest link "
         << ici["busiest_link"].get<std::string>() << " busy " << busy
         << " cycles (" << llvm::format("%.1f", 100.0 * ratio(busy, total))
         << "% of the run); " << ici["packet_bytes"].get<uint64_t>()
         << "-byte packets, " << ici["switching"].get<std::string>() << "\n";
    }
    const json &b = (*sys)["bound"];
    os << "  system bound:        " << b["lower_bound_cycles"].get<uint64_t>()
       << " cycles (bound by " << b["bound_by"].get<std::string>() << "; links "
       << b["link_bound_cycles"].get<uint64_t>() << ", chips "
       << b["chip_bound_cycles"].get<uint64_t>() << "): measured / bound "
       << llvm::format("%.2f", b["measured_over_bound"].get<double>()) << "\n";
  }
}

/// A system's chips, one line each (the topN that stalled most past 16).
void writeReportChips(llvm::raw_ostream &os, const ReportScale &r,
                      unsigned topN) {
  // Each chip in a line: where the system's cycles went.
  uint64_t total = r.total;
  const json *chips = r.chips;
  if (chips) {
    // Up to 16 chips all, in chip order; more: the topN that stalled most
    // (DMA and sem_wait), most first.
    std::vector<const json *> list;
    for (const json &c : *chips)
      list.push_back(&c);
    auto stalled = [](const json *c) {
      return (*c)["dma_stall_cycles"]["base"].get<uint64_t>() +
             (*c)["dma_stall_cycles"]["transfer"].get<uint64_t>() +
             (*c)["stall_cycles"].value("sem_wait", uint64_t(0));
    };
    bool cut = list.size() > 16;
    if (cut) {
      std::stable_sort(list.begin(), list.end(),
                       [&](const json *a, const json *b) {
                         return stalled(a) > stalled(b);
                       });
      list.resize(std::min<size_t>(list.size(), std::max(topN, 1u)));
    }
    os << "\nChips (each runs to the system's end, " << total << " cycles"
       << (cut ? "; the " + std::to_string(list.size()) +
                     " that stalled most (DMA and sem_wait)"
               : std::string())
       << "):\n";
    for (const json *cp : list) {
      const json &c = *cp;
      uint64_t cb = c["dma_stall_cycles"]["base"].get<uint64_t>();
      uint64_t ct = c["dma_stall_cycles"]["transfer"].get<uint64_t>();
      uint64_t sem = c["stall_cycles"].value("sem_wait", uint64_t(0));
      os << "  chip " << c["chip"].get<uint64_t>() << ": "
         << c["instructions"].get<uint64_t>() << " instructions, DMA stall "
         << cb + ct << " cycles ("
         << llvm::format("%.1f", 100.0 * ratio(cb + ct, total))
         << "% of its cycles; base " << cb << ", transfer " << ct
         << "), sem_wait " << sem << " ("
         << llvm::format("%.1f", 100.0 * ratio(sem, total)) << "%)";
      // Its most stalled DMA op.
      const json *worst = nullptr;
      std::string worstId;
      for (auto it = c["ops"].begin(); it != c["ops"].end(); ++it)
        if (it->value("stall", uint64_t(0)) > 0 &&
            (!worst || (*it)["stall"].get<uint64_t>() >
                           (*worst)["stall"].get<uint64_t>())) {
          worst = &*it;
          worstId = it.key();
        }
      if (worst)
        os << "; most stalled: op " << worstId << " at "
           << (*worst)["loc"].get<std::string>() << " ("
           << (*worst)["stall"].get<uint64_t>() << " cycles)";
      os << "\n";
    }
    if (cut)
      os << "  ... " << chips->size() - list.size()
         << " more in metrics.json chips[]\n";
  }
}

/// The topN most stalled DMA ops, with what to do about each.
void writeReportStalledOps(const json &m, llvm::raw_ostream &os,
                           const ReportScale &r, unsigned topN) {
  const json *chips = r.chips;
  std::vector<Row> rows;
  for (auto it = m["ops"].begin(); it != m["ops"].end(); ++it)
    if (it->contains("stall") && (*it)["stall"].get<uint64_t>() > 0)
      rows.push_back({it.key(), &*it});
  std::sort(rows.begin(), rows.end(), [](const Row &a, const Row &b) {
    return (*a.op)["stall"].get<uint64_t>() > (*b.op)["stall"].get<uint64_t>();
  });
  os << "\nTop stalled DMAs" << (chips ? " (summed over the chips)" : "")
     << " (SnR, Zarkadas et al., SoCC '25, §5.2: a WAIT before the base "
        "latency is fulfilled stalls on base latency, then on transfer "
        "latency):\n";
  if (rows.empty())
    os << "  none: every WAIT found its DMA complete\n";
  for (size_t i = 0; i < rows.size() && i < topN; ++i) {
    const json &o = *rows[i].op;
    uint64_t sb = o["stall_base"].get<uint64_t>();
    uint64_t stt = o["stall_transfer"].get<uint64_t>();
    os << "  op " << rows[i].id << " " << o["name"].get<std::string>() << " at "
       << o["loc"].get<std::string>() << ": " << o["dmas"].get<uint64_t>()
       << " DMA(s), " << o["bytes"].get<uint64_t>() << " bytes, stalled "
       << sb + stt << " cycles (base " << sb << ", transfer " << stt << ")";
    if (sb > stt && o.value("stall_slots", uint64_t(0)) > 0)
      os << " - the WAIT comes before the base latency is fulfilled, but "
            "the ISSUE already waited "
         << o["stall_slots"].get<uint64_t>()
         << " cycles for a DMA slot: issuing earlier cannot help while "
            "max_outstanding DMAs are in flight";
    else if (sb > stt)
      os << " - the WAIT comes before the base latency is fulfilled; issue "
            "the DMA earlier (hoist) or together with others";
    else
      os << " - the stall is mostly transfer latency; the link is the "
            "bottleneck";
    os << "\n";
  }
}

/// The ops whose ISSUEs waited for a DMA slot.
void writeReportSlotWaits(const json &m, llvm::raw_ostream &os,
                          const ReportScale &r, unsigned topN) {
  // ISSUEs that waited for a DMA slot.
  uint64_t maxOutstanding = r.maxOutstanding;
  std::vector<Row> slotRows;
  for (auto it = m["ops"].begin(); it != m["ops"].end(); ++it)
    if (it->value("stall_slots", uint64_t(0)) > 0)
      slotRows.push_back({it.key(), &*it});
  std::stable_sort(slotRows.begin(), slotRows.end(),
                   [](const Row &a, const Row &b) {
                     return (*a.op)["stall_slots"].get<uint64_t>() >
                            (*b.op)["stall_slots"].get<uint64_t>();
                   });
  if (!slotRows.empty()) {
    os << "\nDMA ISSUEs that waited for a free DMA slot (max_outstanding = "
       << maxOutstanding << " DMAs in flight; an ISSUE waits until one of "
       << "them completes):\n";
    for (size_t i = 0; i < slotRows.size() && i < topN; ++i) {
      const json &o = *slotRows[i].op;
      os << "  op " << slotRows[i].id << " " << o["name"].get<std::string>()
         << " at " << o["loc"].get<std::string>() << ": "
         << o["slot_stalled_issues"].get<uint64_t>() << " of "
         << o["dmas"].get<uint64_t>() << " ISSUE(s) waited "
         << o["stall_slots"].get<uint64_t>()
         << " cycles for a free DMA slot - issuing earlier cannot help "
            "while the slots are full\n";
    }
  }
}

/// The analyzer's sections (Analyzer::addToMetrics), when present.
void writeReportAnalyzer(const json &m, llvm::raw_ostream &os,
                         const ReportScale &r, unsigned topN) {
  // The analyzer's sections (Analyzer::addToMetrics), when present.
  const json *chips = r.chips;
  if (m.contains("suggestions")) {
    const json &s = m["suggestions"];
    os << "\nSuggestions (SnR Algorithm 2, extended)"
       << (chips ? ", from chip 0's run (every chip's are in metrics.json "
                   "chips[])"
                 : "")
       << ": " << s.size() << "\n";
    for (size_t i = 0; i < s.size() && i < topN; ++i)
      os << "  " << s[i]["kind"].get<std::string>() << " op "
         << s[i]["op_id"].get<uint64_t>() << " at "
         << s[i]["loc"].get<std::string>() << ": saves ~"
         << s[i]["expected_cycles_saved"].get<uint64_t>() << " cycles - "
         << s[i]["reason"].get<std::string>() << "\n";
    if (s.size() > topN)
      os << "  ... " << s.size() - topN << " more in metrics.json\n";
  }
  if (m.contains("vmem")) {
    const json &v = m["vmem"];
    if (chips)
      os << "\nChip 0:";
    os << llvm::format(
        "\nVMEM (SnR §5.3.2): at least %.1f%% free at "
        "all times; the largest contiguous free run never "
        "fell below %llu bytes; %llu DMA'd bytes were never "
        "read\n",
        100.0 * v["min_free_fraction"].get<double>(),
        (unsigned long long)v["min_largest_free_run_bytes"].get<uint64_t>(),
        (unsigned long long)v["wasted_dma_bytes"].get<uint64_t>());
  }
  if (m.contains("roofline")) {
    const json &r = m["roofline"];
    os << "\nRoofline: the program needs at least "
       << r["lower_bound_cycles"].get<uint64_t>() << " cycles (bound by "
       << r["bound_by"].get<std::string>() << "); it took "
       << r["measured_cycles"].get<uint64_t>()
       << llvm::format(" (%.2fx the bound); ",
                       r["measured_over_bound"].get<double>())
       << "the whole function is "
       << r["regions"]["function"]["bound"].get<std::string>()
       << "-bound on this config\n";
    if (r.contains("latency_lower_bound_cycles"))
      os << "Counting latency (the dataflow critical path, and each unit's "
            "work between its heads and tails), at least "
         << r["latency_lower_bound_cycles"].get<uint64_t>() << " cycles ("
         << r["latency_bound_by"].get<std::string>()
         << llvm::format("; %.2fx)\n",
                         r["measured_over_latency_bound"].get<double>());
  }
}
} // namespace

void profile::writeReport(const json &m, llvm::raw_ostream &os, unsigned topN) {
  ReportScale r;
  r.total = m["total_cycles"].get<uint64_t>();
  // A system of chips: stalls are summed over the chips, so they are
  // shares of the chip-cycles (chips x cycles), not of the run.
  r.chips =
      m.contains("chips") && m["chips"].is_array() && m["chips"].size() > 1
          ? &m["chips"]
          : nullptr;
  r.numChips = r.chips ? r.chips->size() : 1;
  r.chipCycles = r.total * r.numChips;
  r.ofRun = r.chips
                ? "% of the " + std::to_string(r.chipCycles) + " chip-cycles"
                : "% of the run";
  r.maxOutstanding = m.contains("dma_slots")
                         ? m["dma_slots"]["max_outstanding"].get<uint64_t>()
                         : 0;
  writeReportHeader(m, os, r);
  writeReportCauses(m, os, r);
  writeReportSystem(m, os, r);
  writeReportChips(os, r, topN);
  writeReportStalledOps(m, os, r, topN);
  writeReportSlotWaits(m, os, r, topN);
  writeReportAnalyzer(m, os, r, topN);
}
