//===- IciNetwork.cpp - Per-hop ICI network with link contention ----------===//

#include "accel/Sim/IciNetwork.h"

#include <algorithm>
#include <cassert>

using namespace accel;
using namespace accel::sim;

IciNetwork::IciNetwork(const MachineConfig &config)
    : hopLatency(config.iciHopLatency),
      milliBytesPerCycle(config.iciMilliBytesPerCycle),
      packetBytes(std::max<uint64_t>(config.iciPacketBytes, 1)),
      switching(config.iciSwitching), links(config.topology.getNumLinks()) {}

void IciNetwork::prune(Link &link, uint64_t now) {
  while (link.head < link.busy.size() && link.busy[link.head].second <= now)
    ++link.head;
  // Compact once the dead prefix is most of the list.
  if (link.head > 64 && link.head * 2 > link.busy.size()) {
    link.busy.erase(link.busy.begin(), link.busy.begin() + link.head);
    link.head = 0;
  }
}

uint64_t IciNetwork::reserve(Link &link, uint64_t from, uint64_t length,
                             size_t &hint) {
  auto &busy = link.busy;
  size_t i = std::max(hint, link.head);
  // The first interval that ends after `from`.
  while (i < busy.size() && busy[i].second <= from)
    ++i;
  uint64_t at = from;
  // Skip intervals that overlap [at, at + length).
  while (i < busy.size() && busy[i].first < at + length) {
    at = std::max(at, busy[i].second);
    ++i;
  }
  hint = i;
  if (length == 0)
    return at;
  // Insert [at, at + length) before index i, merging with neighbours
  // that touch it.
  uint64_t end = at + length;
  bool joinsPrev = i > link.head && busy[i - 1].second == at;
  bool joinsNext = i < busy.size() && busy[i].first == end;
  if (joinsPrev && joinsNext) {
    busy[i - 1].second = busy[i].second;
    busy.erase(busy.begin() + i);
    hint = i - 1;
  } else if (joinsPrev) {
    busy[i - 1].second = end;
    hint = i - 1;
  } else if (joinsNext) {
    busy[i].first = at;
  } else {
    busy.insert(busy.begin() + i, {at, end});
  }
  link.busyCycles += length;
  return at;
}

IciTransfer IciNetwork::send(uint64_t now, uint64_t ready,
                             llvm::ArrayRef<unsigned> route, uint64_t bytes) {
  assert(!route.empty() && "a transfer crosses at least one link");
  assert(ready >= now && "a transfer ready before its issue");
  size_t hops = route.size();
  for (unsigned l : route) {
    prune(links[l], now);
    links[l].bytes += bytes;
  }
  hints.assign(hops, 0);
  previousEnd.assign(hops, 0);
  IciTransfer result;
  uint64_t packets = bytes ? (bytes + packetBytes - 1) / packetBytes : 1;
  uint64_t sent = 0, cumulative = 0;
  for (uint64_t p = 0; p < packets; ++p) {
    uint64_t size = std::min(packetBytes, bytes - sent);
    sent += size;
    uint64_t next = getTransferCycles(sent, milliBytesPerCycle);
    uint64_t serialization = next - cumulative;
    cumulative = next;
    // The packet is at the source from `ready` on; at each hop it may go
    // once it has reached the router (its head with cut-through, all of
    // it with store-and-forward) and the previous packet of this transfer
    // has left that link (packets stay in order).
    uint64_t at = ready;
    for (size_t h = 0; h < hops; ++h) {
      uint64_t from = std::max(at, previousEnd[h]);
      uint64_t start = reserve(links[route[h]], from, serialization, hints[h]);
      previousEnd[h] = start + serialization;
      if (p == 0 && h == 0)
        result.injectStart = start;
      bool last = h + 1 == hops;
      if (last || switching == IciSwitching::StoreAndForward)
        at = start + serialization + hopLatency;
      else
        at = start + hopLatency;
      if (last) {
        if (p == 0)
          result.firstArrival = start + hopLatency;
        result.lastArrival = at;
      }
    }
  }
  return result;
}
