//===- Topology.h - Inter-chip (ICI) links and routes -----------*- C++ -*-===//
//
// The chips of a system and the directed ICI links between them (issue 13):
// a ring, a 2-D torus or a fully connected system, and the route a remote
// DMA takes, as the list of directed links it crosses. Each directed link is
// a FIFO of its own in the DMA timing model (SnR §5.2, Fig. 4, with
// the ICI's per-hop latency as the base latency and its bandwidth as the
// transfer rate).
//
//===----------------------------------------------------------------------===//

#ifndef ACCEL_SIM_TOPOLOGY_H
#define ACCEL_SIM_TOPOLOGY_H

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace accel {
namespace sim {

enum class TopologyKind : uint8_t { Ring, Torus2D, Torus3D, FullyConnected };

/// "ring", "torus2d", "torus3d", "full"; std::nullopt for another name.
std::optional<TopologyKind> parseTopologyKind(llvm::StringRef name);
llvm::StringRef topologyKindName(TopologyKind kind);

/// Chips 0..N-1 and the directed links between neighbours.
///  - Ring: chip i is joined to i+1 and i-1 (mod N), one link each way.
///  - Torus2D: chips in an X x Y grid (chip = y * X + x), each joined to its
///    +x, -x, +y and -y neighbours with wrap-around.
///  - Torus3D: an X x Y x Z grid (chip = (z * Y + y) * X + x), each joined
///    to its six neighbours with wrap-around (TPU v4's topology, Jouppi et
///    al., ISCA 2023).
///  - FullyConnected: a link from every chip to every other.
/// Neighbours that coincide (a ring of 2, a torus dimension of 2) share one
/// link each way. Routes are minimal and deterministic: on a ring the
/// shorter way round, ties going up (+1); on a torus X first, then Y (the
/// dimension-order routing of TPU tori), each the shorter way, ties going
/// up; direct when fully connected. Every link is one direction of a
/// bidirectional ICI cable: the opposite direction is a link of its own.
class Topology {
public:
  /// A system of one chip (no links).
  Topology() = default;
  /// Errors: no chips, more than kMaxChips, a torus whose dims do not
  /// multiply to `chips` ("ici.dims [X, Y] hold X*Y chips, not N").
  /// `dimZ` is read for a Torus3D only.
  static llvm::Expected<Topology> create(TopologyKind kind, unsigned chips,
                                         unsigned dimX = 0, unsigned dimY = 0,
                                         unsigned dimZ = 1);
  /// The number of `ici.dims` a topology takes: 2 (torus2d), 3 (torus3d)
  /// or 0.
  static unsigned getNumDims(TopologyKind kind);
  /// The most chips a system may have.
  static constexpr unsigned kMaxChips = 1024;

  TopologyKind getKind() const { return kind; }
  unsigned getNumChips() const { return chips; }
  /// The torus's dims ([X, Y] or [X, Y, Z]); empty for another topology.
  llvm::SmallVector<unsigned, 3> getDims() const {
    if (kind == TopologyKind::Torus2D)
      return {dimX, dimY};
    if (kind == TopologyKind::Torus3D)
      return {dimX, dimY, dimZ};
    return {};
  }
  /// Number of directed links.
  unsigned getNumLinks() const { return unsigned(links.size()); }
  /// The chips at the ends of directed link `link`: {from, to}.
  std::pair<unsigned, unsigned> getLinkEnds(unsigned link) const {
    return links[link];
  }
  /// "ici 3->4".
  std::string getLinkName(unsigned link) const;
  /// The directed links from chip `from` to chip `to`, in order; empty when
  /// they are the same chip. Both must be below getNumChips().
  llvm::SmallVector<unsigned, 8> route(unsigned from, unsigned to) const;
  /// The directed link from `from` to its neighbour `to`, or -1.
  int findLink(unsigned from, unsigned to) const;

private:
  void addLink(unsigned from, unsigned to);
  /// Steps of the shorter way from a to b around a cycle of n: + or -.
  static int shorterWay(unsigned a, unsigned b, unsigned n);

  TopologyKind kind = TopologyKind::FullyConnected;
  unsigned chips = 1, dimX = 1, dimY = 1, dimZ = 1;
  std::vector<std::pair<unsigned, unsigned>> links;
  /// from * chips + to -> link id + 1 (0: none). Chips are few (kMaxChips).
  std::vector<uint32_t> linkIndex;
};

} // namespace sim
} // namespace accel

#endif // ACCEL_SIM_TOPOLOGY_H
