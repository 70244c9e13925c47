//===- SystemAnalysis.cpp - What a system of chips did, as a whole --------===//

#include "accel/Profile/SystemAnalysis.h"
#include "accel/Profile/DmaTable.h"
#include "accel/Sim/System.h"

#include <nlohmann/json.hpp>

#include <algorithm>

using namespace accel;
using namespace accel::profile;
using json = nlohmann::json;

void SemWaitLog::onSemWait(const sim::SemWaitEvent &event) {
  Entry e;
  e.pc = event.pc;
  e.semaphore = event.semaphore;
  e.consumed.assign(event.consumed.begin(), event.consumed.end());
  entries.push_back(std::move(e));
  pending = true;
}

void SemWaitLog::onRetire(const sim::RetireEvent &event) {
  if (!pending)
    return;
  pending = false;
  Entry &e = entries.back();
  e.resume = event.issueCycle;
  e.ready = event.issueCycle - event.stallCycles;
}

json SemWaitLog::toJson() const {
  json list = json::array();
  for (const Entry &e : entries) {
    json signals = json::array();
    for (const sim::Signal &s : e.consumed)
      signals.push_back(
          {{"chip", s.chip}, {"dma", s.dmaId}, {"cycle", s.cycle}});
    list.push_back({{"pc", e.pc},
                    {"semaphore", e.semaphore},
                    {"ready", e.ready},
                    {"resume", e.resume},
                    {"signals", std::move(signals)}});
  }
  return list;
}

namespace {
/// Per ICI link, the least time any packet crossing it needs before it can
/// reach it (T_b + the hops before it) and after it (the hops from it on);
/// UINT64_MAX for a link no DMA of the list crossed.
struct LinkHeadsTails {
  std::vector<uint64_t> minHead, minTail;
};

/// The ICI links' busy cycles and the link bound (the largest head + busy
/// + tail), and the busiest link.
struct LinkBound {
  json links = json::object();
  uint64_t busiest = 0, bound = 0;
  int busiestLink = -1, boundLink = -1;
};

/// The chips' bounds from their metrics' roofline sections: the largest
/// latency-aware bound and the largest throughput bound (the roofline).
struct ChipBound {
  uint64_t bound = 0, roofline = 0;
  int boundChip = -1;
  std::string rooflineBy;
};
} // namespace

/// The heads and tails of every link from metrics.json's remote DMAs
/// (those with "hops").
static LinkHeadsTails getLinkHeadsTails(const sim::MachineConfig &config,
                                        const DmaTable &dmas) {
  const sim::Topology &topology = config.topology;
  unsigned numLinks = topology.getNumLinks();
  LinkHeadsTails ht{std::vector<uint64_t>(numLinks, UINT64_MAX),
                    std::vector<uint64_t>(numLinks, UINT64_MAX)};
  uint64_t hop = config.iciHopLatency;
  for (const DmaRow &row : dmas.getRows()) {
    const sim::DmaTiming &d = row.record.timing;
    if (d.srcChip == d.dstChip)
      continue;
    auto route = topology.route(d.srcChip, d.dstChip);
    uint64_t issue = d.issue;
    uint64_t baseEnd = d.baseEnd;
    uint64_t tb = baseEnd - issue - route.size() * hop;
    for (size_t i = 0; i < route.size(); ++i) {
      unsigned l = route[i];
      ht.minHead[l] = std::min(ht.minHead[l], tb + i * hop);
      ht.minTail[l] = std::min(ht.minTail[l], (route.size() - i) * hop);
    }
  }
  return ht;
}

/// Each link that carried bytes: its bytes and busy cycles, and the link
/// bound. A link that carried bytes was crossed by a DMA of the list,
/// unless the run was a replay window; then it counts its busy time alone.
static LinkBound getLinkBound(const sim::System &system,
                              const LinkHeadsTails &ht) {
  const sim::IciNetwork &network = system.getNetwork();
  const sim::Topology &topology = system.getConfig().topology;
  LinkBound lb;
  for (unsigned l = 0; l < topology.getNumLinks(); ++l) {
    uint64_t busy = network.getBusyCycles(l);
    uint64_t bytes = network.getBytes(l);
    if (!bytes)
      continue;
    lb.links[topology.getLinkName(l)] = {{"bytes", bytes},
                                         {"busy_cycles", busy}};
    if (busy > lb.busiest || lb.busiestLink < 0) {
      lb.busiest = busy;
      lb.busiestLink = int(l);
    }
    uint64_t head = ht.minHead[l] == UINT64_MAX ? 0 : ht.minHead[l];
    uint64_t tail = ht.minTail[l] == UINT64_MAX ? 0 : ht.minTail[l];
    if (head + busy + tail > lb.bound || lb.boundLink < 0) {
      lb.bound = head + busy + tail;
      lb.boundLink = int(l);
    }
  }
  return lb;
}

/// The chips' bounds; the roofline starts at the busiest link's cycles
/// (named `busiestName`).
static ChipBound getChipBound(const std::vector<json> &chipMetrics,
                              uint64_t busiest, std::string busiestName) {
  ChipBound cb;
  cb.roofline = busiest;
  cb.rooflineBy = std::move(busiestName);
  for (size_t c = 0; c < chipMetrics.size(); ++c) {
    auto it = chipMetrics[c].find("roofline");
    if (it == chipMetrics[c].end())
      continue;
    const json &chip = *it;
    uint64_t throughput = chip.value("lower_bound_cycles", uint64_t(0));
    if (throughput > cb.roofline) {
      cb.roofline = throughput;
      cb.rooflineBy = "chip " + std::to_string(c) + " " +
                      chip.value("bound_by", std::string("none"));
    }
    uint64_t b = chip.value("latency_lower_bound_cycles", throughput);
    if (b > cb.bound || cb.boundChip < 0) {
      cb.bound = b;
      cb.boundChip = int(c);
    }
  }
  return cb;
}

json profile::buildSystemMetrics(const sim::System &system,
                                 uint64_t totalCycles, const DmaTable &dmas,
                                 const std::vector<json> &chipMetrics) {
  const sim::MachineConfig &config = system.getConfig();
  const sim::Topology &topology = config.topology;
  LinkBound lb = getLinkBound(system, getLinkHeadsTails(config, dmas));
  ChipBound cb = getChipBound(
      chipMetrics, lb.busiest,
      lb.busiestLink < 0 ? "none" : topology.getLinkName(lb.busiestLink));
  json ici = {{"packet_bytes", config.iciPacketBytes},
              {"switching", sim::iciSwitchingName(config.iciSwitching)},
              {"hop_latency", config.iciHopLatency},
              {"bytes_per_cycle", config.iciBytesPerCycle},
              {"links", std::move(lb.links)},
              {"busiest_link",
               lb.busiestLink < 0 ? json(nullptr)
                                  : json(topology.getLinkName(lb.busiestLink))},
              {"busiest_link_busy_cycles", lb.busiest}};
  llvm::SmallVector<unsigned, 3> dims = topology.getDims();
  uint64_t bound = std::max(lb.bound, cb.bound);
  std::string boundBy = "none";
  if (bound && lb.bound >= cb.bound)
    boundBy = topology.getLinkName(unsigned(lb.boundLink));
  else if (bound)
    boundBy = "chip " + std::to_string(cb.boundChip);
  json b = {{"roofline_cycles", cb.roofline},
            {"roofline_by", cb.rooflineBy},
            {"link_bound_cycles", lb.bound},
            {"chip_bound_cycles", cb.bound},
            {"lower_bound_cycles", bound},
            {"bound_by", boundBy},
            {"measured_cycles", totalCycles},
            {"measured_over_bound",
             bound ? std::round(double(totalCycles) / double(bound) * 1e4) / 1e4
                   : 0.0}};
  return {{"chips", system.getNumChips()},
          {"topology", sim::topologyKindName(topology.getKind())},
          {"dims", json(std::vector<unsigned>(dims.begin(), dims.end()))},
          {"ici_links", topology.getNumLinks()},
          {"ici", std::move(ici)},
          {"bound", std::move(b)}};
}
