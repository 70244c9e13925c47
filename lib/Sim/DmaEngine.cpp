//===- DmaEngine.cpp - DMA timing model (SnR §5.2, Fig. 4) -----------===//

#include "accel/Sim/DmaEngine.h"

#include "llvm/ADT/STLExtras.h"

#include <algorithm>
#include <cassert>
#include <cmath>

using namespace accel;
using namespace accel::sim;

DmaEngine::DmaEngine(const MachineConfig &config)
    : config(config), linkFree(config.links.size(), 0),
      linkCalibration(config.links.size(), nullptr) {
  completedBefore.completedBefore = true;
  for (size_t l = 0; l < config.links.size(); ++l) {
    for (const CalibrationEntry &e : config.calibration)
      if (e.opcode == isa::Opcode::DmaIssue && e.link == config.links[l].name) {
        linkCalibration[l] = &e;
        break;
      }
    for (const CalibrationEntry &e : config.calibration)
      if (!linkCalibration[l] && e.opcode == isa::Opcode::DmaIssue &&
          e.link.empty())
        linkCalibration[l] = &e;
  }
}

uint64_t DmaEngine::transferCycles(int link, uint64_t bytes) const {
  return getTransferCycles(bytes, config.links[link].milliBytesPerCycle);
}

void DmaEngine::reserveIds(uint32_t next) {
  assert(sequential.empty() && "reserveIds after the first issue()");
  firstSequentialId = next;
}

const DmaTiming &DmaEngine::get(uint32_t id) const {
  assert(isValid(id) && "get() of a DMA that was not issued");
  if (id >= firstSequentialId)
    return sequential[id - firstSequentialId];
  auto it = early.find(id);
  if (it != early.end())
    return it->second;
  return completedBefore;
}

DmaTiming &DmaEngine::lookup(uint32_t id) {
  if (id >= firstSequentialId) {
    uint64_t index = id - firstSequentialId;
    if (index >= sequential.size())
      sequential.resize(index + 1);
    return sequential[index];
  }
  return early[id];
}

DmaTiming DmaEngine::start(uint64_t cycle, uint64_t bytes, uint32_t id) {
  // Issues come in non-decreasing cycle order, so a DMA complete by now
  // can never be in flight again.
  llvm::erase_if(inFlight,
                 [&](uint32_t id) { return get(id).complete <= cycle; });
  DmaTiming t;
  t.id = id;
  t.bytes = bytes;
  t.busBytes = bytes;
  t.issue = cycle;
  return t;
}

uint32_t DmaEngine::record(const DmaTiming &t) {
  lookup(t.id) = t;
  inFlight.push_back(t.id);
  return t.id;
}

uint64_t accel::sim::getBurstBytes(const TileRef &tile, uint64_t burst) {
  if (tile.rows == 0 || tile.cols == 0 || burst <= 1)
    return tile.rows * tile.rowBytes();
  uint64_t rowBytes = tile.rowBytes();
  uint64_t strideBytes = tile.rowStride * tile.elemBytes;
  // Bursts of [begin, begin + len).
  auto bursts = [&](uint64_t begin, uint64_t len) {
    return (begin + len + burst - 1) / burst - begin / burst;
  };
  if (tile.rows == 1 || strideBytes == rowBytes)
    return bursts(tile.base, tile.rows * rowBytes) * burst;
  if (strideBytes % burst == 0) // every row starts at the same offset
    return tile.rows * bursts(tile.base % burst, rowBytes) * burst;
  uint64_t total = 0;
  for (uint64_t r = 0; r < tile.rows; ++r)
    total += bursts(tile.base + r * strideBytes, rowBytes);
  return total * burst;
}

DmaEngine::Wide DmaEngine::reserveHbm(Wide from, Wide length, Wide now) {
  // Reservations that end before now can never be reached again: every
  // later transfer is ready at or after its ISSUE, at or after now.
  while (!hbmBusy.empty() && hbmBusy.begin()->second <= now)
    hbmBusy.erase(hbmBusy.begin());
  Wide at = from;
  auto it = hbmBusy.upper_bound(at);
  if (it != hbmBusy.begin() && std::prev(it)->second > at)
    at = std::prev(it)->second; // inside a reservation: after it
  for (; it != hbmBusy.end() && it->first < at + length; ++it)
    at = std::max(at, it->second);
  // Insert [at, at + length), merging with touching neighbours.
  Wide end = at + length, begin = at;
  auto next = hbmBusy.lower_bound(begin);
  if (next != hbmBusy.begin() && std::prev(next)->second == begin) {
    --next;
    begin = next->first;
    next = hbmBusy.erase(next);
  }
  if (next != hbmBusy.end() && next->first == end) {
    end = next->second;
    hbmBusy.erase(next);
  }
  if (length)
    hbmBusy[begin] = end;
  return at;
}

uint32_t DmaEngine::issue(uint64_t cycle, int link, uint64_t bytes,
                          std::optional<uint32_t> id, uint64_t busBytes,
                          uint64_t rows) {
  DmaTiming t = start(cycle, bytes, id ? *id : nextId());
  t.busBytes = busBytes ? busBytes : bytes;
  t.link = link;
  const LinkConfig &l = config.links[link];
  uint64_t baseLatency = l.baseLatency;
  uint64_t linkCycles = getTransferCycles(t.busBytes, l.milliBytesPerCycle);
  const CalibrationEntry *calibration = linkCalibration[link];
  if (calibration) {
    std::array<double, kMaxCalibrationKeys> point{};
    for (size_t i = 0; i < calibration->keys.size(); ++i)
      point[i] =
          double(calibration->keys[i] == CalibrationKey::Bytes ? bytes : rows);
    uint64_t latency = calibration->getCycles(
        llvm::ArrayRef(point).take_front(calibration->keys.size()), 0);
    baseLatency = std::min(baseLatency, latency);
    linkCycles = latency - baseLatency;
  }
  t.baseEnd = cycle + baseLatency;
  if (l.src == isa::MemSpace::HBM || l.dst == isa::MemSpace::HBM) {
    // HBM time is reserved exactly, in units of 1 / hbmMilli cycles (one
    // unit moves 1 / kBandwidthScale bytes), in the earliest gap at or
    // after the transfer is ready: DMAs reach HBM in the order their base
    // latencies end, not the order they were issued.
    const Wide milli = config.hbmMilliBytesPerCycle;
    uint64_t ready = std::max(t.baseEnd, linkFree[link]);
    Wide need = Wide(t.busBytes) * kBandwidthScale;
    if (calibration && Wide(linkCycles) * milli < need) {
      // The measured transfer is faster than hbm.bytes_per_cycle allows:
      // the table wins, and HBM is held for the measured time.
      calibration->table->warnOnce(
          LatencyTable::FasterThanHbm,
          "a DMA of " + std::to_string(bytes) + " bytes (" +
              std::to_string(t.busBytes) + " on the bus) transfers in " +
              std::to_string(linkCycles) +
              " cycles, faster than hbm.bytes_per_cycle allows (" +
              std::to_string(
                  getTransferCycles(t.busBytes, config.hbmMilliBytesPerCycle)) +
              "); HBM is held for the measured time (is hbm.bytes_per_cycle "
              "too low?)");
      need = Wide(linkCycles) * milli;
    }
    Wide at = reserveHbm(Wide(ready) * milli, need, Wide(cycle) * milli);
    t.transferStart = uint64_t(at / milli);
    uint64_t hbmDone = uint64_t((at + need + milli - 1) / milli);
    t.complete = std::max(t.transferStart + linkCycles, hbmDone);
  } else {
    t.transferStart = std::max(t.baseEnd, linkFree[link]);
    t.complete = t.transferStart + linkCycles;
  }
  linkFree[link] = t.complete;
  return record(t);
}

uint32_t DmaEngine::issueRemote(uint64_t cycle, int localLink, uint64_t bytes,
                                llvm::ArrayRef<unsigned> route,
                                ChipPeers &peers, uint32_t chip,
                                std::optional<uint32_t> srcHbm,
                                std::optional<uint32_t> dstHbm,
                                uint64_t busBytes) {
  assert(!route.empty() && "a remote DMA crosses at least one ICI link");
  DmaTiming t = start(cycle, bytes, nextId());
  t.busBytes = busBytes ? busBytes : bytes;
  t.link = int(config.links.size() + route.front());
  t.hops = unsigned(route.size());
  uint64_t ready = cycle + config.links[localLink].baseLatency;
  t.baseEnd = ready + t.hops * config.iciHopLatency;
  // The HBM shares are reserved in the chips' HBM like a local DMA's (the
  // system commits chips in cycle order, so no chip asks for HBM time
  // before `cycle` later). The source's is read before the first packet
  // leaves.
  const Wide milli = config.hbmMilliBytesPerCycle;
  Wide need = Wide(t.busBytes) * kBandwidthScale;
  auto reserve = [&](uint32_t c, Wide from) {
    return c == chip
               ? reserveHbm(from, need, Wide(cycle) * milli)
               : peers.reserveHbm(chip, c, from, need, Wide(cycle) * milli);
  };
  uint64_t hbmDone = 0;
  if (srcHbm) {
    Wide at = reserve(*srcHbm, Wide(ready) * milli);
    ready = uint64_t(at / milli);
    hbmDone = uint64_t((at + need + milli - 1) / milli);
  }
  IciTransfer x = peers.send(chip, cycle, ready, route, bytes);
  t.transferStart = std::max(t.baseEnd, x.firstArrival);
  t.complete = std::max(x.lastArrival, hbmDone);
  if (dstHbm) {
    // The destination writes as the packets arrive, its share ending no
    // earlier than the last packet.
    Wide arrive = Wide(x.firstArrival) * milli;
    Wide last = Wide(x.lastArrival) * milli;
    Wide from = std::max(arrive, last > need ? last - need : Wide(0));
    Wide at = reserve(*dstHbm, from);
    t.complete =
        std::max(t.complete, uint64_t((at + need + milli - 1) / milli));
  }
  remoteDrain = std::max(remoteDrain, t.complete);
  return record(t);
}

DmaEngine::State DmaEngine::getState() const {
  State s;
  s.linkFree = linkFree;
  s.remoteDrain = remoteDrain;
  s.hbmBusy.assign(hbmBusy.begin(), hbmBusy.end());
  return s;
}

void DmaEngine::setState(const State &state) {
  assert(state.linkFree.size() == linkFree.size() && "one entry per link");
  linkFree = state.linkFree;
  remoteDrain = state.remoteDrain;
  hbmBusy.clear();
  hbmBusy.insert(state.hbmBusy.begin(), state.hbmBusy.end());
}

void DmaEngine::annotate(uint32_t id, uint32_t chip, uint32_t srcChip,
                         uint32_t dstChip, int semaphore) {
  DmaTiming &t = lookup(id);
  t.chip = chip;
  t.srcChip = srcChip;
  t.dstChip = dstChip;
  t.semaphore = semaphore;
}

WaitOutcome DmaEngine::wait(uint32_t id, uint64_t w) const {
  const DmaTiming &t = get(id);
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
  for (uint32_t id : inFlight) {
    const DmaTiming &t = get(id);
    n += t.issue <= cycle && t.complete > cycle;
  }
  return n;
}

uint64_t DmaEngine::nextCompletionAfter(uint64_t cycle) const {
  uint64_t best = UINT64_MAX;
  for (uint32_t id : inFlight)
    if (uint64_t c = get(id).complete; c > cycle)
      best = std::min(best, c);
  return best;
}

uint64_t DmaEngine::drainCycle() const {
  uint64_t end = remoteDrain;
  for (uint64_t f : linkFree)
    end = std::max(end, f);
  return end;
}
