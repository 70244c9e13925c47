//===- SystemAnalysis.cpp - What a system of chips did, as a whole --------===//

#include "accel/Analysis/SystemAnalysis.h"
#include "accel/Sim/System.h"

#include <nlohmann/json.hpp>

#include <algorithm>

using namespace accel;
using namespace accel::analysis;
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

json analysis::buildSystemMetrics(const sim::System &system,
                                  uint64_t totalCycles, const json &dmas,
                                  const std::vector<json> &chipMetrics) {
  const sim::MachineConfig &config = system.getConfig();
  const sim::IciNetwork &network = system.getNetwork();
  const sim::Topology &topology = config.topology;
  unsigned numLinks = topology.getNumLinks();

  // Per link, the least time any packet crossing it needs before it can
  // reach it (T_b + the hops before it) and after it (the hops from it on).
  std::vector<uint64_t> minHead(numLinks, UINT64_MAX),
      minTail(numLinks, UINT64_MAX);
  uint64_t hop = config.iciHopLatency;
  for (const json &d : dmas) {
    auto hops = d.find("hops");
    if (hops == d.end())
      continue;
    unsigned src = d.at("src_chip").get<unsigned>();
    unsigned dst = d.at("dst_chip").get<unsigned>();
    auto route = topology.route(src, dst);
    uint64_t issue = d.at("issue").get<uint64_t>();
    uint64_t baseEnd = d.at("base_end").get<uint64_t>();
    uint64_t tb = baseEnd - issue - route.size() * hop;
    for (size_t i = 0; i < route.size(); ++i) {
      unsigned l = route[i];
      minHead[l] = std::min(minHead[l], tb + i * hop);
      minTail[l] = std::min(minTail[l], (route.size() - i) * hop);
    }
  }

  json links = json::object();
  uint64_t busiest = 0, linkBound = 0;
  int busiestLink = -1, boundLink = -1;
  for (unsigned l = 0; l < numLinks; ++l) {
    uint64_t busy = network.getBusyCycles(l);
    uint64_t bytes = network.getBytes(l);
    if (!bytes)
      continue;
    links[topology.getLinkName(l)] = {{"bytes", bytes}, {"busy_cycles", busy}};
    if (busy > busiest || busiestLink < 0) {
      busiest = busy;
      busiestLink = int(l);
    }
    // A link that carried bytes was crossed by a DMA of the list, unless
    // the run was a replay window; then it counts its busy time alone.
    uint64_t head = minHead[l] == UINT64_MAX ? 0 : minHead[l];
    uint64_t tail = minTail[l] == UINT64_MAX ? 0 : minTail[l];
    if (head + busy + tail > linkBound || boundLink < 0) {
      linkBound = head + busy + tail;
      boundLink = int(l);
    }
  }

  uint64_t chipBound = 0, roofline = busiest;
  int boundChip = -1;
  std::string rooflineBy =
      busiestLink < 0 ? "none" : topology.getLinkName(busiestLink);
  for (size_t c = 0; c < chipMetrics.size(); ++c) {
    auto it = chipMetrics[c].find("roofline");
    if (it == chipMetrics[c].end())
      continue;
    const json &chip = *it;
    uint64_t throughput = chip.value("lower_bound_cycles", uint64_t(0));
    if (throughput > roofline) {
      roofline = throughput;
      rooflineBy = "chip " + std::to_string(c) + " " +
                   chip.value("bound_by", std::string("none"));
    }
    uint64_t b = chip.value("latency_lower_bound_cycles", throughput);
    if (b > chipBound || boundChip < 0) {
      chipBound = b;
      boundChip = int(c);
    }
  }

  json ici = {{"packet_bytes", config.iciPacketBytes},
              {"switching", sim::iciSwitchingName(config.iciSwitching)},
              {"hop_latency", config.iciHopLatency},
              {"bytes_per_cycle", config.iciBytesPerCycle},
              {"links", std::move(links)},
              {"busiest_link", busiestLink < 0
                                   ? json(nullptr)
                                   : json(topology.getLinkName(busiestLink))},
              {"busiest_link_busy_cycles", busiest}};
  llvm::SmallVector<unsigned, 3> dims = topology.getDims();
  uint64_t bound = std::max(linkBound, chipBound);
  std::string boundBy = "none";
  if (bound && linkBound >= chipBound)
    boundBy = topology.getLinkName(unsigned(boundLink));
  else if (bound)
    boundBy = "chip " + std::to_string(boundChip);
  json b = {{"roofline_cycles", roofline},
            {"roofline_by", rooflineBy},
            {"link_bound_cycles", linkBound},
            {"chip_bound_cycles", chipBound},
            {"lower_bound_cycles", bound},
            {"bound_by", boundBy},
            {"measured_cycles", totalCycles},
            {"measured_over_bound",
             bound ? std::round(double(totalCycles) / double(bound) * 1e4) / 1e4
                   : 0.0}};
  return {{"chips", system.getNumChips()},
          {"topology", sim::topologyKindName(topology.getKind())},
          {"dims", json(std::vector<unsigned>(dims.begin(), dims.end()))},
          {"ici_links", numLinks},
          {"ici", std::move(ici)},
          {"bound", std::move(b)}};
}
