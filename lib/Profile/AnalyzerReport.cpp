//===- AnalyzerReport.cpp - metrics.json sections and suggestions ---------===//
//
// Algorithm 2 of SnR §5.4 (extended): hoist a stalled DMA when its
// relaxed push limit covers its stall and VMEM has a contiguous free run of
// its size over the cycles it would move across; pin a buffer re-DMA'd from
// unchanged source bytes (a capacity-constrained choice, cf. FAST
// §5.5); issue independent DMAs serialized by ISSUE->WAIT->ISSUE together.
// Hoist and parallelize savings count the DMA slots (dma.max_outstanding):
// an ISSUE moved earlier saves only the cycles before it would meet
// max_outstanding DMAs already in flight (docs/analyzer.md).
//
// Size (about 640 lines): the metrics.json sections of one Analyzer
// (backtails, suggestions, roofline, utilization, VMEM), each a function
// reading the same recorded state.
//
//===----------------------------------------------------------------------===//

#include "accel/Profile/Analyzer.h"
#include "accel/Profile/DmaTable.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/MathExtras.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <set>

using namespace accel;
using namespace accel::profile;
using json = nlohmann::json;

static double round4(double v) { return std::round(v * 1e4) / 1e4; }

/// What the sections of addToMetrics share: the time scale, the tracks'
/// names, and what one section computes for a later one (VMEM's buckets
/// and the backtails for the suggestions; the DMA slots' step function).
struct Analyzer::ReportState {
  uint64_t total = 1, bucket = 1, nBuckets = 1;
  std::vector<std::string> trackNames;
  /// ICI tracks this chip's DMAs never entered (left out of the lists).
  std::vector<bool> unusedIciTrack;
  bool unusedIci(size_t t) const {
    return t < unusedIciTrack.size() && unusedIciTrack[t];
  }
  std::vector<VmemTracker::Bucket> vmemBuckets;
  /// Per DMA instance, its backtails in both models.
  struct Inst {
    const Dma *dma;
    /// Cycles the ISSUE could move earlier (relaxed model); nullopt:
    /// unbounded, nothing inside the run binds it (it could move into the
    /// preceding op sequence, before the run or window).
    std::optional<uint64_t> pushLimit;
    /// Whether it has backtails (not in flight at the start of a replay
    /// window, and seen issued), and those in both models.
    bool hasBacktail = false;
    Backtail conservative, relaxed;
  };
  std::vector<Inst> insts;
  /// The number of DMAs in flight, segment k covering [slotTimes[k],
  /// slotTimes[k+1]) with slotCount[k]; dma.max_outstanding.
  std::vector<uint64_t> slotTimes;
  std::vector<unsigned> slotCount;
  unsigned maxOutstanding = 0;

  // How many cycles an ISSUE at `issue` could move earlier, at most `want`,
  // before it meets a cycle at which max_outstanding other DMAs are in
  // flight (it would wait there for a slot, and take a slot another ISSUE
  // may need). Before cycle 0 (outside the run or window) slots count as
  // free, as the push limit does. The ISSUE's own DMA is in flight only
  // from `issue` on, so it is not counted.
  uint64_t slotRoom(uint64_t issue, uint64_t want) const {
    uint64_t from = issue >= want ? issue - want : 0;
    if (issue == 0 || slotTimes.empty() || issue <= slotTimes.front())
      return want;
    // The last segment starting before `issue` covers cycle issue - 1.
    size_t k =
        size_t(std::upper_bound(slotTimes.begin(), slotTimes.end(), issue - 1) -
               slotTimes.begin()) -
        1;
    for (;; --k) {
      if (slotCount[k] >= maxOutstanding) {
        uint64_t end = std::min(issue, slotTimes[k + 1]); // k + 1 exists:
        return issue - std::max(from, end);               // every DMA completes
      }
      if (slotTimes[k] <= from || k == 0)
        return want;
    }
  }
};

/// The source location of the instruction at `pc`, for a suggestion.
static std::string locOf(const isa::Program &program, uint32_t pc) {
  return pc < program.origins.size() ? program.origins[pc].loc : "?";
}

void Analyzer::addToMetrics(json &m, DmaTable *dmaTable,
                            const AnalyzerOptions &options,
                            VmemHeatmap *heatmap) const {
  ReportState s;
  s.total = std::max<uint64_t>(1, totalCycles);
  s.bucket = options.bucketCycles
                 ? options.bucketCycles
                 : std::max<uint64_t>(1, llvm::divideCeil(s.total, 200));
  s.nBuckets = llvm::divideCeil(s.total, s.bucket);
  s.trackNames = {"scalar", "mxu", "vpu"};
  // The chip's links, then the ICI links: those of a system are many, and
  // only the ones this chip's DMAs entered are listed.
  for (unsigned l = 0; l < config.getNumDmaLinks(); ++l)
    s.trackNames.push_back("dma:" + config.getLinkName(l));
  for (size_t t = 0; t < tracks.size(); ++t)
    s.unusedIciTrack.push_back(t >= 3 + config.links.size() &&
                               tracks[t].empty());
  addUtilization(m, s);
  addVmem(m, s, heatmap);
  addDependencies(m, dmaTable, s);
  addSlots(s);
  json suggestions = json::array();
  addHoistSuggestions(m, s, suggestions);
  addPinSuggestions(suggestions);
  addParallelizeSuggestions(s, suggestions);
  std::stable_sort(suggestions.begin(), suggestions.end(),
                   [](const json &a, const json &b) {
                     return a["expected_cycles_saved"].get<uint64_t>() >
                            b["expected_cycles_saved"].get<uint64_t>();
                   });
  m["suggestions"] = std::move(suggestions);
  addRoofline(m, s);
}

void Analyzer::addUtilization(json &m, const ReportState &s) const {
  // --- Utilization: busy fraction per bucket and per op id.
  const std::vector<std::string> &trackNames = s.trackNames;
  uint64_t total = s.total, bucket = s.bucket, nBuckets = s.nBuckets;
  json util = {{"bucket_cycles", bucket}, {"buckets", nBuckets}};
  json perTrack = json::object();
  std::map<uint32_t, std::map<std::string, uint64_t>> perOp;
  for (size_t t = 0; t < tracks.size(); ++t) {
    if (s.unusedIci(t))
      continue;
    std::vector<uint64_t> busy(nBuckets, 0);
    uint64_t sum = 0;
    // Busy cycles per op on this track, summed with a hash lookup per
    // interval (into perOp below, once per op: a lookup in two nested
    // std::maps per interval was most of this function, issue 34).
    llvm::DenseMap<uint32_t, uint64_t> byOp;
    // The bucket of the last cycle looked up: the intervals come in order
    // of start, so the next one's is found by a step or two, not by a
    // 64-bit division per interval.
    uint64_t kAt = 0, kStart = 0;
    auto bucketOf = [&](uint64_t c) {
      if (c < kStart || c - kStart >= 2 * bucket) {
        kAt = c / bucket;
        kStart = kAt * bucket;
      }
      while (c - kStart >= bucket) {
        ++kAt;
        kStart += bucket;
      }
      return std::min(nBuckets - 1, kAt);
    };
    for (const Busy b : tracks[t]) {
      sum += b.length;
      if (t != 0)
        byOp[b.opId] += b.length;
      for (uint64_t c = b.start; c < b.end();) {
        uint64_t k = bucketOf(c);
        uint64_t upto = std::min(b.end(), (k + 1) * bucket);
        if (upto <= c) // past the last bucket: clamp
          upto = b.end();
        busy[k] += upto - c;
        c = upto;
      }
    }
    for (const auto &[op, cycles] : byOp)
      perOp[op][trackNames[t]] += cycles;
    json series = json::array();
    for (uint64_t k = 0; k < nBuckets; ++k) {
      uint64_t width = std::min(bucket, total - std::min(total, k * bucket));
      series.push_back(round4(width ? double(busy[k]) / double(width) : 0));
    }
    perTrack[trackNames[t]] = {{"busy_cycles", sum},
                               {"utilization", round4(double(sum) / total)},
                               {"series", series}};
  }
  for (auto &[op, cycles] : getScalarBusyByOp())
    perOp[op][trackNames[0]] += cycles;
  util["units"] = std::move(perTrack);
  json opsUtil = json::object();
  for (auto &[op, byTrack] : perOp)
    if (op)
      opsUtil[std::to_string(op)] = byTrack;
  util["per_op"] = std::move(opsUtil);
  m["utilization"] = std::move(util);
}

void Analyzer::addVmem(json &m, ReportState &s, VmemHeatmap *heatmap) const {
  // --- VMEM occupancy and fragmentation.
  unsigned blocks = config.vmemBlocks;
  uint64_t total = s.total, bucket = s.bucket;
  s.vmemBuckets = vmem.buckets(bucket, total, blocks);
  const std::vector<VmemTracker::Bucket> &vb = s.vmemBuckets;
  json vj = {{"page_bytes", vmem.getPageBytes()},
             {"pages", vmem.pageCount()},
             {"blocks", blocks},
             {"pages_per_block", config.vmemPagesPerBlock},
             {"bucket_cycles", bucket}};
  json free = json::array(), run = json::array(), heat = json::array();
  if (heatmap)
    heatmap->clear();
  double minFree = 1.0;
  uint64_t minRun = UINT64_MAX, peakPages = 0;
  for (const VmemTracker::Bucket &b : vb) {
    peakPages = std::max(peakPages, b.usedPages);
    free.push_back(round4(b.freeFraction));
    run.push_back(b.largestFreeRun);
    if (heatmap)
      heatmap->push_back(b.blockUsed);
    else
      heat.push_back(b.blockUsed);
    minFree = std::min(minFree, b.freeFraction);
    minRun = std::min(minRun, b.largestFreeRun);
  }
  vj["free_fraction"] = std::move(free);
  vj["largest_free_run_pages"] = std::move(run);
  // SnR Fig. 8a at cycle resolution (docs/metrics.md#vmem).
  VmemTracker::UnusedSeries us = vmem.unused(bucket, total);
  json unusedJson = json::array(), unusedRunJson = json::array();
  for (size_t k = 0; k < us.unusedFraction.size(); ++k) {
    unusedJson.push_back(round4(us.unusedFraction[k]));
    unusedRunJson.push_back(round4(us.largestRunFraction[k]));
  }
  vj["unused_fraction"] = std::move(unusedJson);
  vj["largest_unused_run_fraction"] = std::move(unusedRunJson);
  vj["median_unused_fraction"] = round4(us.medianUnusedFraction);
  vj["median_largest_unused_run_fraction"] =
      round4(us.medianLargestRunFraction);
  if (!heatmap)
    vj["heatmap"] = std::move(heat);
  vj["min_free_fraction"] = round4(minFree);
  vj["peak_used_bytes"] = peakPages * vmem.getPageBytes();
  vj["min_largest_free_run_bytes"] =
      (minRun == UINT64_MAX ? 0 : minRun) * vmem.getPageBytes();
  json wastedJson = json::object();
  uint64_t wastedTotal = 0;
  for (auto [op, bytes] : vmem.wastedBytes()) {
    wastedJson[std::to_string(op)] = bytes;
    wastedTotal += bytes;
  }
  vj["wasted_dma_bytes"] = wastedTotal;
  vj["wasted_dma_bytes_per_op"] = std::move(wastedJson);
  m["vmem"] = std::move(vj);
}

void Analyzer::addDependencies(json &m, DmaTable *table, ReportState &s) const {
  // --- Dependencies and backtails, per DMA instance (joined by index).
  std::map<uint64_t, const DmaDependence *> depByIndex;
  for (const DmaDependence &d : deps.dmas())
    depByIndex[d.index] = &d;
  uint64_t start = cycles.empty() ? 0 : cycles.issue(0);
  auto backtail = [&](uint64_t i, std::optional<uint64_t> bound,
                      DmaDependence::Via via) {
    Backtail b;
    if (bound) {
      b.instructions = i - *bound - 1;
      // The ISSUE could come as soon as the bound's result is there.
      b.cycles =
          cycles.issue(i) - std::min(cycles.issue(i), cycles.done(*bound));
      b.boundIndex = *bound;
      b.boundPc = pcs[*bound];
      b.boundDma = deps.dmaWaitedAt(*bound);
      b.via = via == DmaDependence::Via::Address  ? "address"
              : via == DmaDependence::Via::Source ? "source"
                                                  : "destination";
    } else {
      b.instructions = i;
      b.cycles = cycles.issue(i) - start;
    }
    return b;
  };
  std::vector<ReportState::Inst> &insts = s.insts;
  for (const Dma &d : dmas) {
    ReportState::Inst x{&d, std::nullopt, false, {}, {}};
    auto it = depByIndex.find(d.index);
    if (!d.inFlightAtStart && it != depByIndex.end() &&
        d.index < cycles.size() && d.dst.tile.rows) {
      x.hasBacktail = true;
      x.conservative = backtail(d.index, it->second->conservative,
                                it->second->conservativeVia);
      x.relaxed =
          backtail(d.index, it->second->relaxed, it->second->relaxedVia);
      if (x.relaxed.boundIndex)
        x.pushLimit = x.relaxed.cycles;
      // On metrics.json's "dmas" row of the same id.
      if (table)
        table->setBacktails(d.timing.id, x.conservative, x.relaxed, x.pushLimit,
                            program);
    }
    insts.push_back(std::move(x));
  }
  // Per op id: the smallest backtails over its instances (the first of
  // equal ones).
  std::map<uint32_t, std::pair<const Backtail *, const Backtail *>> minima;
  for (const ReportState::Inst &x : insts) {
    if (!x.hasBacktail)
      continue;
    auto [it, added] = minima.try_emplace(program.origins[x.dma->pc].opId,
                                          &x.conservative, &x.relaxed);
    if (added)
      continue;
    if (x.conservative.cycles < it->second.first->cycles)
      it->second.first = &x.conservative;
    if (x.relaxed.cycles < it->second.second->cycles)
      it->second.second = &x.relaxed;
  }
  json depOps = json::object();
  for (const auto &[id, b] : minima)
    depOps[std::to_string(id)] = {{"conservative", b.first->toJson(program)},
                                  {"relaxed", b.second->toJson(program)}};
  m["dependencies"] = {{"dma_ops", depOps}};
}

void Analyzer::addSlots(ReportState &s) const {
  // --- DMA slot occupancy (dma.max_outstanding): the number of DMAs in
  // flight (issued at or before c, complete after c) as a step function,
  // segment k covering [slotTimes[k], slotTimes[k+1]) with slotCount[k].
  std::vector<std::pair<uint64_t, int>> events;
  for (const Dma &d : dmas)
    if (d.timing.link >= 0 && d.timing.complete > d.timing.issue) {
      events.push_back({d.timing.issue, +1});
      events.push_back({d.timing.complete, -1});
    }
  std::sort(events.begin(), events.end());
  int count = 0;
  for (size_t k = 0; k < events.size();) {
    uint64_t at = events[k].first;
    for (; k < events.size() && events[k].first == at; ++k)
      count += events[k].second;
    s.slotTimes.push_back(at);
    s.slotCount.push_back(unsigned(count));
  }
  s.maxOutstanding = config.maxOutstandingDmas;
}

namespace {
/// A hoist suggestion's op: its stalled instances and why some cannot move.
struct HoistAgg {
  uint32_t pc = 0;
  uint64_t saved = 0, instances = 0, stalled = 0, noPush = 0, noVmem = 0,
           noSlot = 0, slotLimited = 0;
  uint64_t minPush = UINT64_MAX;
  json bound;
};
/// A parallelize suggestion's op: the op it would issue with, and the WAIT
/// that would move up.
struct ParAgg {
  uint32_t pc = 0, withOp = 0;
  std::optional<uint32_t> waitOp, waitFor;
  uint64_t saved = 0, instances = 0, slotLimited = 0;
};
} // namespace

namespace accel::profile {
/// The parts of the analyzer's report sections: the hoist and parallelize
/// suggestions' aggregates, and addRoofline's work per op and region,
/// throughput bound and latency-aware bound.
struct ReportSteps {

  /// Hoist (Algorithm 2): per op id over its stalled instances, which
  /// could be issued earlier: the relaxed push limit covers the stall,
  /// VMEM keeps a contiguous free run of the DMA's size over the cycles it
  /// would move across, and a DMA slot is free (the ISSUE saves only the
  /// cycles it can move before meeting max_outstanding DMAs in flight).
  static std::map<uint32_t, HoistAgg>
  aggregateHoists(const Analyzer &a, const Analyzer::ReportState &s) {
    std::map<uint32_t, HoistAgg> hoist;
    for (const Analyzer::ReportState::Inst &x : s.insts) {
      const Analyzer::Dma &d = *x.dma;
      uint64_t stall = d.stallBase + d.stallTransfer;
      if (!stall || !x.hasBacktail)
        continue;
      HoistAgg &h = hoist[a.program.origins[d.pc].opId];
      h.pc = d.pc;
      ++h.stalled;
      if (x.pushLimit && *x.pushLimit < stall) {
        ++h.noPush;
        continue;
      }
      uint64_t from = d.timing.issue >= stall ? d.timing.issue - stall : 0;
      uint64_t freeRun = VmemTracker::minFreeRun(s.vmemBuckets, s.bucket, from,
                                                 d.timing.issue + 1);
      if (freeRun * a.vmem.getPageBytes() < d.timing.bytes) {
        ++h.noVmem;
        continue;
      }
      uint64_t save = s.slotRoom(d.timing.issue, stall);
      if (save == 0) {
        ++h.noSlot;
        continue;
      }
      h.slotLimited += save < stall;
      ++h.instances;
      h.saved += save;
      if (x.pushLimit && *x.pushLimit < h.minPush) {
        h.minPush = *x.pushLimit;
        h.bound = x.relaxed.toJson(a.program)["bound"];
      }
    }
    return hoist;
  }

  /// For DMA instance `k` of `s.insts`, stalled on base latency, whether
  /// it could be issued together with instance k-1 (d1), and the cycles
  /// that would save (0: it could not); a WAIT of an earlier DMA that would
  /// move up out of the way goes to `waitOp` (its op id) and `waitFor` (its
  /// DMA's op id). `waitIndices` are the WAITs' instruction indices, in
  /// order; `dmaByWait` maps each to its DMA.
  static uint64_t getParallelSaving(const Analyzer &a,
                                    const Analyzer::ReportState &s, size_t k,
                                    llvm::ArrayRef<uint64_t> waitIndices,
                                    const std::map<uint64_t, size_t> &dmaByWait,
                                    std::optional<uint32_t> &waitOp,
                                    std::optional<uint32_t> &waitFor) {
    const Analyzer::Dma &d1 = *s.insts[k - 1].dma, &d2 = *s.insts[k].dma;
    if (d1.inFlightAtStart || d2.inFlightAtStart || !d2.stallBase ||
        !s.insts[k].hasBacktail)
      return 0;
    auto firstWait =
        std::upper_bound(waitIndices.begin(), waitIndices.end(), d1.index);
    if (firstWait == waitIndices.end() || *firstWait >= d2.index)
      return 0; // issued together already
    const Backtail &b = s.insts[k].relaxed;
    if (b.boundIndex && *b.boundIndex >= *firstWait) {
      // Bound after the WAIT: only a WAIT whose DMA was complete (and
      // issued) before d1 can move up out of the way.
      auto it = dmaByWait.find(*b.boundIndex);
      if (it == dmaByWait.end())
        return 0;
      const Analyzer::Dma &p = a.dmas[it->second];
      if (p.inFlightAtStart || p.index >= d1.index ||
          p.timing.complete > d1.timing.issue)
        return 0;
      if (b.boundPc >= a.program.origins.size())
        return 0;
      waitOp = a.program.origins[b.boundPc].opId;
      waitFor = a.program.origins[p.pc].opId;
    }
    // Issued together with d1: the ISSUE moves back to d1's, but no
    // further than the slots allow.
    uint64_t want =
        d2.timing.issue - std::min(d2.timing.issue, d1.timing.issue);
    return std::min(d2.stallBase, s.slotRoom(d2.timing.issue, want));
  }

  /// Parallelize, per op id over its instances (addParallelizeSuggestions).
  static std::map<uint32_t, ParAgg>
  aggregateParallel(const Analyzer &a, const Analyzer::ReportState &s) {
    std::vector<uint64_t> waitIndices;
    std::map<uint64_t, size_t> dmaByWait; // WAIT index -> DMA
    for (size_t k = 0; k < a.dmas.size(); ++k)
      if (a.dmas[k].waitIndex) {
        waitIndices.push_back(*a.dmas[k].waitIndex);
        dmaByWait[*a.dmas[k].waitIndex] = k;
      }
    std::sort(waitIndices.begin(), waitIndices.end());
    std::map<uint32_t, ParAgg> par;
    for (size_t k = 1; k < s.insts.size(); ++k) {
      std::optional<uint32_t> waitOp, waitFor;
      uint64_t save =
          getParallelSaving(a, s, k, waitIndices, dmaByWait, waitOp, waitFor);
      if (save == 0)
        continue;
      const Analyzer::Dma &d1 = *s.insts[k - 1].dma, &d2 = *s.insts[k].dma;
      ParAgg &p = par[a.program.origins[d2.pc].opId];
      p.pc = d2.pc;
      p.withOp = a.program.origins[d1.pc].opId;
      if (waitOp) {
        p.waitOp = waitOp;
        p.waitFor = waitFor;
      }
      p.saved += save;
      p.slotLimited += save < d2.stallBase;
      ++p.instances;
    }
    return par;
  }
  /// A region's FLOPs and bytes, its operational intensity and whether it
  /// is compute- or memory-bound against the machine balance `balance`
  /// (FLOPs per byte).
  static json getRegion(const Analyzer::Work &w, double balance) {
    uint64_t bytes = w.bytesIn + w.bytesOut;
    json j = {
        {"flops", w.flops}, {"bytes_in", w.bytesIn}, {"bytes_out", w.bytesOut}};
    if (bytes) {
      double intensity = double(w.flops) / double(bytes);
      j["operational_intensity"] = round4(intensity);
      j["bound"] = intensity >= balance ? "compute" : "memory";
    } else {
      j["operational_intensity"] = nullptr;
      j["bound"] = w.flops ? "compute" : "none";
    }
    return j;
  }

  /// roofline "ops" and "regions": per op id, and per region (the
  /// function, and each loop with its ops' work and its inner loops').
  static void addWork(const Analyzer &a, json &roofline, double balance) {
    std::map<uint32_t, uint32_t> opLoop, loopParent;
    for (const isa::Origin &o : a.program.origins)
      opLoop[o.opId] = o.loopId;
    for (const isa::LoopInfo &l : a.program.loops)
      loopParent[l.id] = l.parentId;
    std::map<uint32_t, Analyzer::Work> regions; // 0 = the function
    Analyzer::Work all;
    json opsWork = json::object();
    for (auto &[op, w] : a.getWorkByOp()) {
      all.flops += w.flops, all.bytesIn += w.bytesIn,
          all.bytesOut += w.bytesOut;
      if (op && (w.flops || w.bytesIn || w.bytesOut))
        opsWork[std::to_string(op)] = getRegion(w, balance);
      for (uint32_t l = opLoop[op]; l; l = loopParent[l]) {
        Analyzer::Work &r = regions[l];
        r.flops += w.flops, r.bytesIn += w.bytesIn, r.bytesOut += w.bytesOut;
      }
    }
    json regionsJson = json::object();
    regionsJson["function"] = getRegion(all, balance);
    for (const isa::LoopInfo &l : a.program.loops) {
      json r = getRegion(regions[l.id], balance);
      r["loc"] = l.loc;
      r["parent"] = l.parentId;
      regionsJson["loop " + std::to_string(l.id)] = std::move(r);
    }
    roofline["ops"] = std::move(opsWork);
    roofline["regions"] = std::move(regionsJson);
  }

  /// The throughput bound: the busiest unit's or link's busy cycles, or
  /// HBM's, shared by the links that touch it: every byte they put on its
  /// bus (bursts included) at hbm.bytes_per_cycle (docs/isa.md, "DMA:
  /// ISSUE and WAIT"). Fills roofline "required_cycles"; returns the bound
  /// and what sets it.
  static std::pair<uint64_t, std::string>
  addThroughputBound(const Analyzer &a, const Analyzer::ReportState &s,
                     json &roofline) {
    const sim::MachineConfig &config = a.config;
    json perResource = json::object();
    uint64_t bound = 0;
    std::string boundBy = "none";
    for (size_t t = 0; t < a.tracks.size(); ++t) {
      if (s.unusedIci(t))
        continue;
      uint64_t sum = a.tracks[t].getBusyCycles();
      perResource[s.trackNames[t]] = sum;
      if (sum > bound)
        bound = sum, boundBy = s.trackNames[t];
    }
    uint64_t hbmBusBytes = 0;
    for (const Analyzer::Dma &d : a.dmas)
      if (d.timing.link >= 0 && size_t(d.timing.link) < config.links.size() &&
          (config.links[d.timing.link].src == isa::MemSpace::HBM ||
           config.links[d.timing.link].dst == isa::MemSpace::HBM))
        hbmBusBytes += d.timing.busBytes;
    if (hbmBusBytes) {
      uint64_t hbmCycles =
          sim::getTransferCycles(hbmBusBytes, config.hbmMilliBytesPerCycle);
      perResource["hbm"] = hbmCycles;
      if (hbmCycles > bound)
        bound = hbmCycles, boundBy = "hbm";
    }
    roofline["required_cycles"] = std::move(perResource);
    return {bound, boundBy};
  }

  /// The latency-aware bound, at least the throughput bound `bound` (set by
  /// `boundBy`): the dataflow critical path, the DMA slots' bound (at most
  /// dma.max_outstanding DMAs in flight, each for at least its T_b plus
  /// transfer), and each track's single-unit bound with heads and tails
  /// (DataflowBound.h). All hold for any schedule of the same work with the
  /// same true dependences, so the largest is still a lower bound.
  static void addLatencyBound(const Analyzer &a, const Analyzer::ReportState &s,
                              uint64_t bound, const std::string &boundBy,
                              json &roofline) {
    uint64_t criticalPath = a.dataflow.criticalPath();
    uint64_t tight = bound;
    std::string tightBy = boundBy;
    if (criticalPath > tight)
      tight = criticalPath, tightBy = "critical path";
    uint64_t slotBound = a.dataflow.dmaSlotBound(a.config.maxOutstandingDmas);
    if (slotBound > tight)
      tight = slotBound, tightBy = "dma slots";
    json heads = json::object(), tails = json::object(),
         released = json::object();
    std::vector<std::optional<DataflowBound::TrackBound>> trackBound =
        a.dataflow.trackBounds();
    // The dataflow's tracks: the units and links, then the HBM bus.
    std::vector<std::string> boundNames = s.trackNames;
    boundNames.resize(a.tracks.size());
    boundNames.push_back("hbm");
    for (size_t t = 0; t < trackBound.size() && t < boundNames.size(); ++t) {
      if (!trackBound[t])
        continue;
      heads[boundNames[t]] = trackBound[t]->head;
      tails[boundNames[t]] = trackBound[t]->tail;
      released[boundNames[t]] = trackBound[t]->bound;
      if (trackBound[t]->bound > tight)
        tight = trackBound[t]->bound,
        tightBy = boundNames[t] + " with heads and tails";
    }
    roofline["critical_path_cycles"] = criticalPath;
    roofline["dma_slot_bound_cycles"] = slotBound;
    roofline["head_cycles"] = heads;
    roofline["tail_cycles"] = tails;
    roofline["release_bound_cycles"] = released;
    roofline["latency_lower_bound_cycles"] = tight;
    roofline["latency_bound_by"] = tightBy;
    roofline["measured_over_latency_bound"] =
        tight ? round4(double(a.totalCycles) / tight) : 0;
  }
};
} // namespace accel::profile

/// The reason of a hoist suggestion for op aggregate `h`.
static std::string describeHoist(const HoistAgg &h, unsigned maxOutstanding) {
  return std::to_string(h.instances) + " of " + std::to_string(h.stalled) +
         " stalled DMAs of this op could be issued earlier: " +
         (h.bound.is_null()
              ? std::string("in the relaxed model nothing in the run binds "
                            "the ISSUE (its addresses are lightweight scalar "
                            "math), so the push limit is unbounded")
              : "the relaxed push limit (at least " +
                    std::to_string(h.minPush) + " cycles, bound by " +
                    h.bound["op"].get<std::string>() + " at " +
                    h.bound["loc"].get<std::string>() + ") covers the stall") +
         ", and VMEM keeps a contiguous free run of the DMA's size over the "
         "cycles it would move across" +
         (h.slotLimited
              ? "; for " + std::to_string(h.slotLimited) +
                    " of them the saving stops where max_outstanding (" +
                    std::to_string(maxOutstanding) +
                    ") DMAs are already in flight"
              : std::string());
}

void Analyzer::addHoistSuggestions(json &m, const ReportState &s,
                                   json &suggestions) const {
  // Hoist (Algorithm 2): per op id over its stalled instances.
  std::map<uint32_t, HoistAgg> hoist = ReportSteps::aggregateHoists(*this, s);
  json refused = json::object();
  for (auto &[op, h] : hoist)
    if (h.noPush || h.noVmem || h.noSlot)
      refused[std::to_string(op)] = {{"stalled", h.stalled},
                                     {"push_limit_below_stall", h.noPush},
                                     {"no_contiguous_vmem", h.noVmem},
                                     {"no_free_dma_slot", h.noSlot}};
  m["dependencies"]["hoist_refused"] = std::move(refused);
  for (auto &[op, h] : hoist) {
    if (!h.instances)
      continue;
    suggestions.push_back(
        {{"kind", "hoist"},
         {"op_id", op},
         {"loc", locOf(program, h.pc)},
         {"expected_cycles_saved", h.saved},
         {"instances", h.instances},
         {"reason", describeHoist(h, config.maxOutstandingDmas)}});
  }
}

void Analyzer::addPinSuggestions(json &suggestions) const {
  // Pin: re-DMA'd unchanged source bytes; greedy by cycles saved per byte
  // of extra VMEM under the free capacity.
  uint64_t staticVmem = 0;
  for (const isa::Buffer &b : program.buffers)
    if (b.space == isa::MemSpace::VMEM)
      staticVmem = std::max(staticVmem, b.base + b.bytes);
  uint64_t freeCapacity =
      config.vmemBytes > staticVmem ? config.vmemBytes - staticVmem : 0;
  struct PinAgg {
    uint32_t pc = 0;
    uint64_t saved = 0, repeats = 0, bytes = 0;
  };
  std::map<uint32_t, PinAgg> pins;
  std::set<uint32_t> notPinnable;
  for (const Dma &d : dmas) {
    if (!d.previousSame)
      continue;
    uint32_t op = program.origins[d.pc].opId;
    if (d.srcChangedSincePrevious) {
      notPinnable.insert(op);
      continue;
    }
    PinAgg &p = pins[op];
    p.pc = d.pc;
    ++p.repeats;
    p.saved += d.stallBase + d.stallTransfer;
    p.bytes = d.timing.bytes;
  }
  std::vector<std::pair<uint32_t, PinAgg>> cands;
  for (auto &[op, p] : pins)
    if (!notPinnable.count(op) && p.saved)
      cands.push_back({op, p});
  std::sort(cands.begin(), cands.end(), [](const auto &a, const auto &b) {
    return double(a.second.saved) / double(a.second.bytes) >
           double(b.second.saved) / double(b.second.bytes);
  });
  uint64_t used = 0;
  for (auto &[op, p] : cands) {
    // Rule: candidates in decreasing cycles saved per byte; each pinned
    // buffer is budgeted at its size against the VMEM the static allocation
    // leaves free (an upper bound on the extra space pinning may need).
    if (used + p.bytes > freeCapacity)
      continue;
    used += p.bytes;
    suggestions.push_back(
        {{"kind", "pin"},
         {"op_id", op},
         {"loc", locOf(program, p.pc)},
         {"expected_cycles_saved", p.saved},
         {"bytes", p.bytes},
         {"instances", p.repeats},
         {"reason", "the DMA brings the same, unchanged source bytes into the "
                    "same buffer " +
                        std::to_string(p.repeats + 1) +
                        " times; keeping the buffer resident in VMEM (" +
                        std::to_string(p.bytes) +
                        " bytes, within the free capacity) removes the "
                        "repeats and their stalls"}});
  }
}

void Analyzer::addParallelizeSuggestions(const ReportState &s,
                                         json &suggestions) const {
  // Parallelize: a DMA that stalled on base latency although it could have
  // been issued together with the nearest earlier DMA d1: a WAIT (of any
  // DMA) lies between the two ISSUEs, and the DMA's relaxed bound comes
  // before the first such WAIT, or is the WAIT of a DMA P issued before d1
  // that had completed when d1 was issued (that WAIT then moves up, before
  // d1, at no stall: the dependent DMA of a chain joins the group ahead of
  // it, as SnR's setup groups do, §5.2.1).
  std::map<uint32_t, ParAgg> par = ReportSteps::aggregateParallel(*this, s);
  for (auto &[op, p] : par) {
    json s = {{"kind", "parallelize"},
              {"op_id", op},
              {"with_op_id", p.withOp},
              {"loc", locOf(program, p.pc)},
              {"expected_cycles_saved", p.saved},
              {"instances", p.instances}};
    std::string reason =
        "this DMA is issued only after a WAIT that follows the ISSUE of op " +
        std::to_string(p.withOp) + " although it does not need that WAIT";
    if (p.waitOp) {
      s["wait_op_id"] = *p.waitOp;
      reason += " (its data comes from the DMA of op " +
                std::to_string(*p.waitFor) + ", complete before op " +
                std::to_string(p.withOp) + " was issued: its WAIT, op " +
                std::to_string(*p.waitOp) + ", moves up before op " +
                std::to_string(p.withOp) + ")";
    }
    reason += "; issued together, their base latencies would overlap";
    if (p.slotLimited)
      reason += " (for " + std::to_string(p.slotLimited) +
                " of them only partly: max_outstanding (" +
                std::to_string(config.maxOutstandingDmas) +
                ") DMAs are in flight before)";
    s["reason"] = reason;
    suggestions.push_back(std::move(s));
  }
}

void Analyzer::addRoofline(json &m, const ReportState &s) const {
  // --- Computation vs communication, and the roofline bound.
  double peakFlops = 2.0 * config.mxuRows * config.mxuCols; // per cycle
  // HBM's bandwidth (hbm.bytes_per_cycle), and what a load from HBM into
  // VMEM gets at most: the slower of HBM and the hbm->vmem link. The
  // machine balance is taken against the latter.
  double hbmBandwidth =
      double(config.hbmMilliBytesPerCycle) / double(sim::kBandwidthScale);
  int hbmLink = config.findLink(isa::MemSpace::HBM, isa::MemSpace::VMEM);
  double bandwidth =
      hbmLink >= 0 ? std::min(hbmBandwidth, config.links[hbmLink].bytesPerCycle)
                   : hbmBandwidth;
  double balance = peakFlops / bandwidth; // FLOPs per byte
  json roofline = json::object();
  ReportSteps::addWork(*this, roofline, balance);
  auto [bound, boundBy] = ReportSteps::addThroughputBound(*this, s, roofline);
  ReportSteps::addLatencyBound(*this, s, bound, boundBy, roofline);
  roofline["peak_flops_per_cycle"] = peakFlops;
  roofline["hbm_bytes_per_cycle"] = hbmBandwidth;
  roofline["load_bytes_per_cycle"] = bandwidth;
  roofline["machine_balance_flops_per_byte"] = round4(balance);
  roofline["lower_bound_cycles"] = bound;
  roofline["bound_by"] = boundBy;
  roofline["measured_cycles"] = totalCycles;
  roofline["measured_over_bound"] =
      bound ? round4(double(totalCycles) / bound) : 0;
  m["roofline"] = std::move(roofline);
}
