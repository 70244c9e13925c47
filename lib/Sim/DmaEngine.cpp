//===- DmaEngine.cpp - DMA timing model (seed 000 §5.2, Fig. 4) -----------===//

#include "accel/Sim/DmaEngine.h"

#include "llvm/ADT/STLExtras.h"

#include <algorithm>
#include <cmath>

using namespace accel;
using namespace accel::sim;

DmaEngine::DmaEngine(const MachineConfig &config)
    : config(config), linkFree(config.links.size(), 0) {}

uint64_t DmaEngine::transferCycles(int link, uint64_t bytes) const {
  return uint64_t(std::ceil(double(bytes) / config.links[link].bytesPerCycle));
}

void DmaEngine::reserveIds(uint32_t next) {
  DmaTiming done;
  done.completedBefore = true;
  while (dmas.size() < next) {
    done.id = uint32_t(dmas.size());
    dmas.push_back(done);
  }
}

uint32_t DmaEngine::issue(uint64_t cycle, int link, uint64_t bytes,
                          std::optional<uint32_t> id) {
  // Issues come in non-decreasing cycle order, so a DMA complete by now
  // can never be in flight again.
  llvm::erase_if(inFlight,
                 [&](uint32_t id) { return dmas[id].complete <= cycle; });
  DmaTiming t;
  t.id = id ? *id : uint32_t(dmas.size());
  t.link = link;
  t.bytes = bytes;
  t.issue = cycle;
  t.baseEnd = cycle + config.links[link].baseLatency;
  t.transferStart = std::max(t.baseEnd, linkFree[link]);
  t.complete = t.transferStart + transferCycles(link, bytes);
  linkFree[link] = t.complete;
  if (t.id >= dmas.size())
    dmas.resize(t.id + 1);
  dmas[t.id] = t;
  inFlight.push_back(t.id);
  return t.id;
}

WaitOutcome DmaEngine::wait(uint32_t id, uint64_t w) const {
  const DmaTiming &t = dmas[id];
  WaitOutcome o;
  if (w < t.baseEnd) {
    o.stallBase = t.baseEnd - w;
    o.stallTransfer = t.complete - t.baseEnd;
  } else if (w < t.complete) {
    o.stallTransfer = t.complete - w;
  } else {
    o.slack = w - t.complete;
  }
  o.resume = std::max(w, t.complete);
  return o;
}

unsigned DmaEngine::outstandingAt(uint64_t cycle) const {
  unsigned n = 0;
  for (uint32_t id : inFlight)
    n += dmas[id].issue <= cycle && dmas[id].complete > cycle;
  return n;
}

uint64_t DmaEngine::nextCompletionAfter(uint64_t cycle) const {
  uint64_t best = UINT64_MAX;
  for (uint32_t id : inFlight)
    if (dmas[id].complete > cycle)
      best = std::min(best, dmas[id].complete);
  return best;
}

uint64_t DmaEngine::drainCycle() const {
  uint64_t end = 0;
  for (uint64_t f : linkFree)
    end = std::max(end, f);
  return end;
}
