//===- IciNetwork.h - Per-hop ICI network with link contention --*- C++ -*-===//
//
// The inter-chip interconnect of a system as a packet network (issue 35):
// a remote DMA is cut into packets of `ici.packet_bytes`; each packet
// crosses the directed links of its route one after the other, a link
// carries one packet at a time at `ici.bytes_per_cycle`, and each hop adds
// `ici.hop_latency` cycles (wire and router). With virtual cut-through a
// packet goes on to the next link once its head has arrived; with
// store-and-forward once all of it has (Dally and Towles, Principles and
// Practices of Interconnection Networks, 2004, ch. 13). Routers buffer a
// whole blocked packet, so a packet waiting for a busy link holds no other
// link (no back-pressure beyond the link it waits for).
//
// Each link keeps its reservations as a sorted list of busy intervals; a
// packet takes the earliest gap long enough at or after it reaches the
// link. The DMAs are sent in issue order, so a link arbitrates oldest
// first (age-based arbitration, as in Abts and Weisser, "Age-based packet
// arbitration in large-radix k-ary n-cubes", SC '07): a packet yields only
// to packets of DMAs issued before its own, and uses the gaps they leave.
// That is what lets a DMA's timing be fixed when it is issued, so a WAIT
// knows it (DESIGN §2). bench/collectives/network_model.py simulates the
// same network event by event, independently, with oldest-first or FIFO
// arbitration (bench/collectives/RESULTS.md).
//
//===----------------------------------------------------------------------===//

#ifndef ACCEL_SIM_ICINETWORK_H
#define ACCEL_SIM_ICINETWORK_H

#include "accel/Sim/MachineConfig.h"

#include "llvm/ADT/ArrayRef.h"

#include <cstdint>
#include <utility>
#include <vector>

namespace accel {
namespace sim {

/// When the packets of one transfer cross the network, in cycles.
struct IciTransfer {
  /// The first packet starts on the route's first link.
  uint64_t injectStart = 0;
  /// The first packet's head reaches the destination chip.
  uint64_t firstArrival = 0;
  /// The last packet has wholly arrived: the transfer's completion.
  uint64_t lastArrival = 0;
};

/// The ICI links of a system and their reservations (see the file comment).
/// Transfers must be sent in non-decreasing `now` order (the system
/// commits instructions in cycle order), each ready at or after its `now`.
class IciNetwork {
public:
  /// A network of `config.topology`'s links, with the config's packet
  /// size, per-hop latency, link bandwidth and switching.
  explicit IciNetwork(const MachineConfig &config);

  /// Sends `bytes` (> 0) along `route` (directed link ids, non-empty),
  /// the first packet ready to enter the first link at `ready` (>= now).
  /// `now` is the cycle of the issue: reservations that end by it are
  /// dropped. Packet j of n = ceil(bytes / packet_bytes) holds each link
  /// for c(j+1) - c(j) cycles, c(j) = ceil(min(j * packet_bytes, bytes) /
  /// bytes_per_cycle), so a lone transfer over k hops with cut-through
  /// completes exactly at ready + k * hop_latency + ceil(bytes /
  /// bytes_per_cycle); with store-and-forward each hop after the first
  /// adds the last packet's serialization. The packets of one transfer
  /// stay in order on every link.
  IciTransfer send(uint64_t now, uint64_t ready, llvm::ArrayRef<unsigned> route,
                   uint64_t bytes);

  /// Cycles link `link` has been reserved for, summed over every transfer.
  uint64_t getBusyCycles(unsigned link) const { return links[link].busyCycles; }
  /// Bytes that crossed link `link`.
  uint64_t getBytes(unsigned link) const { return links[link].bytes; }
  unsigned getNumLinks() const { return unsigned(links.size()); }

private:
  struct Link {
    /// Busy intervals [start, end), sorted, disjoint and not touching,
    /// from `head` on (those before it have ended).
    std::vector<std::pair<uint64_t, uint64_t>> busy;
    size_t head = 0;
    uint64_t busyCycles = 0, bytes = 0;
  };
  /// Drops the intervals of `link` that end by `now`.
  static void prune(Link &link, uint64_t now);
  /// Reserves `length` cycles of `link` in the earliest gap at or after
  /// `from`; returns the start. `hint` is an index into `busy` at or
  /// before the gap (updated), so a transfer's packets search forward.
  static uint64_t reserve(Link &link, uint64_t from, uint64_t length,
                          size_t &hint);

  uint64_t hopLatency, milliBytesPerCycle, packetBytes;
  IciSwitching switching;
  std::vector<Link> links;
  /// Per hop of the transfer being sent: the search hint and where its
  /// previous packet ended on that link (reused between sends).
  std::vector<size_t> hints;
  std::vector<uint64_t> previousEnd;
};

} // namespace sim
} // namespace accel

#endif // ACCEL_SIM_ICINETWORK_H
