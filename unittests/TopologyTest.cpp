//===- TopologyTest.cpp - ICI links and routes, by hand -------------------===//

#include "accel/Sim/Topology.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

using namespace accel;
using namespace accel::sim;

namespace {

Topology make(TopologyKind kind, unsigned chips, unsigned x = 0, unsigned y = 0,
              unsigned z = 1) {
  auto t = Topology::create(kind, chips, x, y, z);
  EXPECT_TRUE(bool(t)) << (t ? "" : llvm::toString(t.takeError()));
  return t ? std::move(*t) : Topology();
}

/// The chips a route visits after `from`, e.g. {1, 2} for 0->1->2.
std::vector<unsigned> hops(const Topology &t, unsigned from, unsigned to) {
  std::vector<unsigned> chips;
  unsigned at = from;
  for (unsigned link : t.route(from, to)) {
    auto [a, b] = t.getLinkEnds(link);
    EXPECT_EQ(a, at) << "the route's links do not chain";
    chips.push_back(b);
    at = b;
  }
  EXPECT_EQ(at, to);
  return chips;
}

TEST(TopologyTest, RingOfFourGoesTheShorterWay) {
  Topology t = make(TopologyKind::Ring, 4);
  EXPECT_EQ(t.getNumLinks(), 8u); // 4 chips x 2 directions
  EXPECT_EQ(hops(t, 0, 1), (std::vector<unsigned>{1}));
  EXPECT_EQ(hops(t, 0, 3), (std::vector<unsigned>{3}));
  // Two hops either way: ties go up.
  EXPECT_EQ(hops(t, 0, 2), (std::vector<unsigned>{1, 2}));
  EXPECT_EQ(hops(t, 3, 1), (std::vector<unsigned>{0, 1}));
  EXPECT_TRUE(t.route(2, 2).empty());
  EXPECT_EQ(t.getLinkName(unsigned(t.findLink(3, 0))), "ici 3->0");
  EXPECT_EQ(t.findLink(0, 2), -1);
}

TEST(TopologyTest, RingOfTwoHasOneLinkEachWay) {
  Topology t = make(TopologyKind::Ring, 2);
  EXPECT_EQ(t.getNumLinks(), 2u);
  EXPECT_EQ(hops(t, 0, 1), (std::vector<unsigned>{1}));
  EXPECT_EQ(hops(t, 1, 0), (std::vector<unsigned>{0}));
  EXPECT_EQ(make(TopologyKind::Ring, 1).getNumLinks(), 0u);
}

TEST(TopologyTest, TorusRoutesXThenY) {
  // 4 x 2: chip = y * 4 + x.
  Topology t = make(TopologyKind::Torus2D, 8, 4, 2);
  // Each chip: +x and -x (distinct in a dimension of 4), and one link to
  // its y neighbour (+y and -y coincide in a dimension of 2).
  EXPECT_EQ(t.getNumLinks(), 8u * 3);
  // (0,0) -> (2,1): x two hops up (tie), then y: 1, 2, then 6.
  EXPECT_EQ(hops(t, 0, 6), (std::vector<unsigned>{1, 2, 6}));
  // (3,1) -> (0,0): x wraps +1 (3 -> 0), then y: 4, then 0.
  EXPECT_EQ(hops(t, 7, 0), (std::vector<unsigned>{4, 0}));
}

TEST(TopologyTest, Torus3DRoutesXThenYThenZ) {
  // 3 x 3 x 3: chip = (z * 3 + y) * 3 + x, six distinct neighbours each.
  Topology t = make(TopologyKind::Torus3D, 27, 3, 3, 3);
  EXPECT_EQ(t.getNumLinks(), 27u * 6);
  // (0,0,0) -> (2,1,2): x one hop down (wraps to 2: chip 2), y one up
  // (chip 5), z one down (wraps to 2: chip 23).
  EXPECT_EQ(hops(t, 0, 23), (std::vector<unsigned>{2, 5, 23}));
  EXPECT_EQ(hops(t, 23, 23), (std::vector<unsigned>{}));
  // A 2 x 2 x 2 cube: each dimension of 2 has one link each way.
  EXPECT_EQ(make(TopologyKind::Torus3D, 8, 2, 2, 2).getNumLinks(), 8u * 3);
}

TEST(TopologyTest, FullyConnectedIsOneHop) {
  Topology t = make(TopologyKind::FullyConnected, 5);
  EXPECT_EQ(t.getNumLinks(), 20u);
  EXPECT_EQ(hops(t, 4, 1), (std::vector<unsigned>{1}));
}

TEST(TopologyTest, BadShapesAreErrors) {
  auto noChips = Topology::create(TopologyKind::Ring, 0);
  ASSERT_FALSE(bool(noChips));
  EXPECT_EQ(llvm::toString(noChips.takeError()),
            "chips must be in [1, 1024], not 0");
  auto dims = Topology::create(TopologyKind::Torus2D, 8, 3, 2);
  ASSERT_FALSE(bool(dims));
  EXPECT_EQ(llvm::toString(dims.takeError()),
            "ici.dims [3, 2] hold 6 chips, not 8");
  auto cube = Topology::create(TopologyKind::Torus3D, 8, 2, 2, 3);
  ASSERT_FALSE(bool(cube));
  EXPECT_EQ(llvm::toString(cube.takeError()),
            "ici.dims [2, 2, 3] hold 12 chips, not 8");
  EXPECT_EQ(parseTopologyKind("torus2d"), TopologyKind::Torus2D);
  EXPECT_EQ(parseTopologyKind("torus3d"), TopologyKind::Torus3D);
  EXPECT_EQ(parseTopologyKind("mesh"), std::nullopt);
}

} // namespace
