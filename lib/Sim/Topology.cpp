//===- Topology.cpp - Inter-chip (ICI) links and routes -------------------===//

#include "accel/Sim/Topology.h"

#include "llvm/ADT/Twine.h"

#include <cassert>

using namespace accel;
using namespace accel::sim;

std::optional<TopologyKind> sim::parseTopologyKind(llvm::StringRef name) {
  if (name == "ring")
    return TopologyKind::Ring;
  if (name == "torus2d")
    return TopologyKind::Torus2D;
  if (name == "torus3d")
    return TopologyKind::Torus3D;
  if (name == "full")
    return TopologyKind::FullyConnected;
  return std::nullopt;
}

llvm::StringRef sim::topologyKindName(TopologyKind kind) {
  switch (kind) {
  case TopologyKind::Ring:
    return "ring";
  case TopologyKind::Torus2D:
    return "torus2d";
  case TopologyKind::Torus3D:
    return "torus3d";
  case TopologyKind::FullyConnected:
    return "full";
  }
  return "?";
}

void Topology::addLink(unsigned from, unsigned to) {
  if (from == to || findLink(from, to) >= 0)
    return; // a neighbour reached both ways round shares the link
  linkIndex[size_t(from) * chips + to] = uint32_t(links.size() + 1);
  links.push_back({from, to});
}

int Topology::findLink(unsigned from, unsigned to) const {
  if (from >= chips || to >= chips)
    return -1;
  return int(linkIndex[size_t(from) * chips + to]) - 1;
}

unsigned Topology::getNumDims(TopologyKind kind) {
  switch (kind) {
  case TopologyKind::Torus2D:
    return 2;
  case TopologyKind::Torus3D:
    return 3;
  default:
    return 0;
  }
}

llvm::Expected<Topology> Topology::create(TopologyKind kind, unsigned chips,
                                          unsigned dimX, unsigned dimY,
                                          unsigned dimZ) {
  if (chips == 0 || chips > kMaxChips)
    return llvm::createStringError(
        "chips must be in [1, " + llvm::Twine(kMaxChips) + "], not " +
        llvm::Twine(chips));
  Topology t;
  t.kind = kind;
  t.chips = chips;
  t.linkIndex.assign(size_t(chips) * chips, 0);
  switch (kind) {
  case TopologyKind::Ring:
    for (unsigned c = 0; c < chips; ++c) {
      t.addLink(c, (c + 1) % chips);
      t.addLink(c, (c + chips - 1) % chips);
    }
    break;
  case TopologyKind::Torus2D:
  case TopologyKind::Torus3D: {
    if (kind == TopologyKind::Torus2D)
      dimZ = 1;
    uint64_t held = uint64_t(dimX) * dimY * dimZ;
    if (held != chips) {
      std::string dims = std::to_string(dimX) + ", " + std::to_string(dimY);
      if (kind == TopologyKind::Torus3D)
        dims += ", " + std::to_string(dimZ);
      return llvm::createStringError("ici.dims [" + dims + "] hold " +
                                     llvm::Twine(held) + " chips, not " +
                                     llvm::Twine(chips));
    }
    t.dimX = dimX;
    t.dimY = dimY;
    t.dimZ = dimZ;
    for (unsigned z = 0; z < dimZ; ++z)
      for (unsigned y = 0; y < dimY; ++y)
        for (unsigned x = 0; x < dimX; ++x) {
          auto at = [&](unsigned x, unsigned y, unsigned z) {
            return (z * dimY + y) * dimX + x;
          };
          unsigned c = at(x, y, z);
          t.addLink(c, at((x + 1) % dimX, y, z));
          t.addLink(c, at((x + dimX - 1) % dimX, y, z));
          t.addLink(c, at(x, (y + 1) % dimY, z));
          t.addLink(c, at(x, (y + dimY - 1) % dimY, z));
          t.addLink(c, at(x, y, (z + 1) % dimZ));
          t.addLink(c, at(x, y, (z + dimZ - 1) % dimZ));
        }
    break;
  }
  case TopologyKind::FullyConnected:
    for (unsigned a = 0; a < chips; ++a)
      for (unsigned b = 0; b < chips; ++b)
        t.addLink(a, b);
    break;
  }
  return t;
}

std::string Topology::getLinkName(unsigned link) const {
  auto [from, to] = links[link];
  return "ici " + std::to_string(from) + "->" + std::to_string(to);
}

int Topology::shorterWay(unsigned a, unsigned b, unsigned n) {
  unsigned up = (b + n - a) % n; // steps going +1
  return up <= n - up ? +1 : -1;
}

llvm::SmallVector<unsigned, 8> Topology::route(unsigned from,
                                               unsigned to) const {
  assert(from < chips && to < chips && "route between unknown chips");
  llvm::SmallVector<unsigned, 8> path;
  auto hop = [&](unsigned a, unsigned b) {
    int l = findLink(a, b);
    assert(l >= 0 && "a route step between chips that are not neighbours");
    path.push_back(unsigned(l));
  };
  switch (kind) {
  case TopologyKind::FullyConnected:
    if (from != to)
      hop(from, to);
    break;
  case TopologyKind::Ring: {
    int dir = shorterWay(from, to, chips);
    for (unsigned c = from; c != to;) {
      unsigned next = (c + chips + dir) % chips;
      hop(c, next);
      c = next;
    }
    break;
  }
  case TopologyKind::Torus2D:
  case TopologyKind::Torus3D: {
    // Dimension order: X, then Y, then Z, each the shorter way round.
    unsigned at[3] = {from % dimX, from / dimX % dimY, from / dimX / dimY};
    unsigned target[3] = {to % dimX, to / dimX % dimY, to / dimX / dimY};
    unsigned size[3] = {dimX, dimY, dimZ};
    auto index = [&](const unsigned *p) {
      return (p[2] * dimY + p[1]) * dimX + p[0];
    };
    for (unsigned d = 0; d < 3; ++d) {
      int dir = shorterWay(at[d], target[d], size[d]);
      while (at[d] != target[d]) {
        unsigned here = index(at);
        at[d] = (at[d] + size[d] + dir) % size[d];
        hop(here, index(at));
      }
    }
    break;
  }
  }
  return path;
}
