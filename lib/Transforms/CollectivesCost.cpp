//===- CollectivesCost.cpp - The cost model of the collectives ------------===//
//
// estimate (Collectives.h): the alpha-beta estimate of each algorithm that
// applies to a collective (docs/collectives.md, "Cost model"), from which
// --accel-lower-collectives picks the cheapest.
//
//===----------------------------------------------------------------------===//

#include "Collectives.h"

#include <cmath>
#include <map>

using namespace mlir;
using namespace accel;
using namespace accel::detail::collectives;

namespace {
/// One message pattern of a step: every chip sends `bytes` to its peer at
/// `offset` (chip 0's peer; the pattern is the same from every chip).
struct Flow {
  unsigned peerOfZero;
  uint64_t bytes;
};
} // namespace

/// The alpha-beta estimate of one step in which every chip sends `flows`:
/// base latency + the longest route's hops x hop latency + the bytes of the
/// most loaded link / bandwidth. Rings and tori look the same from every
/// chip (dimension-order routes are translations of chip 0's), so a link's
/// load is what chip 0's routes put on the links of its direction.
static uint64_t estimateStep(const Machine &m, llvm::ArrayRef<Flow> flows) {
  const sim::Topology &t = m.topology;
  llvm::SmallVector<unsigned, 3> dims = t.getDims();
  if (dims.empty())
    dims = {m.chips};
  auto direction = [&](unsigned link) {
    auto [a, b] = t.getLinkEnds(link);
    if (t.getKind() == sim::TopologyKind::FullyConnected)
      return uint64_t(b + m.chips - a) % m.chips;
    uint64_t key = 0;
    for (unsigned d : dims) {
      key = key * 4096 + (b % d + d - a % d) % d;
      a /= d;
      b /= d;
    }
    return key;
  };
  std::map<uint64_t, uint64_t> load;
  uint64_t hops = 0;
  for (const Flow &f : flows) {
    auto route = t.route(0, f.peerOfZero);
    hops = std::max<uint64_t>(hops, route.size());
    for (unsigned l : route)
      load[direction(l)] += f.bytes;
  }
  uint64_t most = 0;
  for (auto &[dir, bytes] : load)
    most = std::max(most, bytes);
  return m.baseLatency + hops * m.hopLatency +
         uint64_t(std::ceil(double(most) / m.bytesPerCycle));
}

/// The VPU cycles of one add of an R x C tile (8 x 128 per pass).
static uint64_t addCycles(int64_t rows, int64_t cols) {
  return uint64_t((rows + 7) / 8) * uint64_t((cols + 127) / 128);
}

static bool isPowerOfTwo(unsigned n) { return n && !(n & (n - 1)); }

/// The chips' offsets along torus dimension `d` (+1 and -1), as chip 0's
/// peers.
static unsigned torusPeer(const Machine &m, unsigned dim, bool up) {
  auto dims = m.topology.getDims();
  unsigned stride = 1;
  for (unsigned i = 0; i < dim; ++i)
    stride *= dims[i];
  return (up ? 1 : dims[dim] - 1) * stride;
}

/// The cycles of the direct algorithm's one step: every member sends
/// `bytes` to each other member of `g`.
static uint64_t directCycles(const Machine &m, const Group &g, uint64_t bytes) {
  SmallVector<Flow> flows;
  for (unsigned k = 1; k < g.size; ++k)
    flows.push_back({g.offset(m, k), bytes});
  return estimateStep(m, flows);
}

/// The communication cycles of the gather family's algorithm `algo` (ring,
/// bidirectional_ring, torus2d or recursive_doubling) among `g` for blocks
/// of `bytes`; a reduce-scatter moves the same (mirrored), plus its adds.
static uint64_t gatherCycles(const Machine &m, const Group &g, StringRef algo,
                             uint64_t bytes) {
  unsigned n = g.size;
  // Member r's peer at rank r + k, as chip 0's peer.
  auto at = [&](unsigned k) { return g.offset(m, k); };
  if (algo == "ring")
    return (n - 1) * estimateStep(m, {{at(1), bytes}});
  if (algo == "bidirectional_ring")
    return (n - 1) * estimateStep(m, {{at(1), bytes / 2},
                                      {at(n - 1), bytes - bytes / 2}});
  if (algo == "torus2d") {
    auto dims = m.topology.getDims();
    return (dims[0] - 1) * estimateStep(m, {{torusPeer(m, 0, true), bytes}}) +
           (dims[1] - 1) *
               estimateStep(m, {{torusPeer(m, 1, true), bytes * dims[0]}});
  }
  uint64_t c = 0; // recursive doubling / halving
  for (unsigned k = 1; k < n; k *= 2)
    c += estimateStep(m, {{at(k), bytes * k}});
  return c;
}

/// Which of the gather family apply among `g` to blocks of `blockRows`
/// rows (the torus's dimensions are the whole system's).
static SmallVector<StringRef> gatherFamily(const Machine &m, const Group &g,
                                           int64_t blockRows) {
  bool torus = m.topology.getKind() == sim::TopologyKind::Torus2D && g.whole;
  SmallVector<StringRef> names = {"ring"};
  if (blockRows % 2 == 0)
    names.push_back("bidirectional_ring");
  if (torus)
    names.push_back("torus2d");
  if (isPowerOfTwo(g.size))
    names.push_back("recursive_doubling");
  return names;
}

std::vector<Candidate>
accel::detail::collectives::estimate(const Machine &m, const Group &g,
                                     Kind kind, int64_t rows, int64_t cols,
                                     uint64_t blockBytes, uint64_t tileBytes) {
  unsigned n = g.size;
  std::vector<Candidate> out;
  switch (kind) {
  case Kind::AllToAll:
  case Kind::AllGather: {
    out.push_back({"direct", directCycles(m, g, blockBytes)});
    if (kind == Kind::AllGather)
      for (StringRef a : gatherFamily(m, g, rows))
        out.push_back({a, gatherCycles(m, g, a, blockBytes)});
    break;
  }
  case Kind::ReduceScatter: {
    uint64_t add = addCycles(rows, cols);
    out.push_back({"direct", directCycles(m, g, blockBytes) + (n - 1) * add});
    for (StringRef a : gatherFamily(m, g, rows))
      out.push_back({a, gatherCycles(m, g, a, blockBytes) + (n - 1) * add});
    break;
  }
  case Kind::AllReduce: {
    // Direct: every chip's whole tile to every chip, N - 1 adds of it.
    out.push_back({"direct", directCycles(m, g, tileBytes) +
                                 (n - 1) * addCycles(rows, cols)});
    // A reduce-scatter then an all-gather of N blocks of the tile.
    if (rows % n == 0)
      for (StringRef a : gatherFamily(m, g, rows / n))
        out.push_back({a, 2 * gatherCycles(m, g, a, blockBytes) +
                              (n - 1) * addCycles(rows / n, cols)});
    break;
  }
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const Candidate &a, const Candidate &b) {
                     return a.cycles < b.cycles;
                   });
  return out;
}
