//===- IciNetworkTest.cpp - Per-hop ICI contention by hand ----------------===//
//
// IciNetwork (include/accel/Sim/IciNetwork.h) on small rings, every number
// worked out by hand: 256-byte packets at 16 B/cycle take 16 cycles per
// link, and each hop adds 50 cycles.
//
//===----------------------------------------------------------------------===//

#include "accel/Sim/IciNetwork.h"

#include "gtest/gtest.h"

using namespace accel;
using namespace accel::sim;

namespace {

MachineConfig ring(unsigned chips, const std::string &ici = "") {
  auto c = MachineConfig::fromJson(
      R"({"chips": )" + std::to_string(chips) +
          R"(, "ici": {"topology": "ring", "hop_latency": 50,
                       "bytes_per_cycle": 16)" +
          ici + "}}",
      "ici-test.json");
  EXPECT_TRUE(bool(c)) << (c ? "" : llvm::toString(c.takeError()));
  return c ? std::move(*c) : MachineConfig::getDefault();
}

// A lone transfer crossing k hops with cut-through: its packets pipeline
// through the routers, so it completes at ready + k * 50 + 1024 / 16 (the
// same as an unloaded circuit); with store-and-forward each hop after the
// first also waits for a whole packet: + (k - 1) * 16.
TEST(IciNetworkTest, AFlowCrossingKHops) {
  for (unsigned k = 1; k <= 4; ++k) {
    SCOPED_TRACE("hops " + std::to_string(k));
    MachineConfig config = ring(8);
    IciNetwork net(config);
    auto route = config.topology.route(0, k);
    ASSERT_EQ(route.size(), k);
    IciTransfer t = net.send(0, 10, route, 1024);
    EXPECT_EQ(t.injectStart, 10u);
    EXPECT_EQ(t.firstArrival, 10u + 50 * k);
    EXPECT_EQ(t.lastArrival, 10u + 50 * k + 64);
    for (unsigned l : route) {
      EXPECT_EQ(net.getBusyCycles(l), 64u);
      EXPECT_EQ(net.getBytes(l), 1024u);
    }

    MachineConfig sf = ring(8, R"(, "switching": "store_and_forward")");
    IciNetwork snf(sf);
    IciTransfer s = snf.send(0, 10, route, 1024);
    EXPECT_EQ(s.firstArrival, 10u + 50 * k + 16 * (k - 1));
    EXPECT_EQ(s.lastArrival, 10u + 50 * k + 64 + 16 * (k - 1));
  }
}

// The serialization of a transfer that is not a whole number of packets
// or cycles: 1000 bytes at 16 B/cycle in packets of 256, 256, 256, 232
// take cumulative ceil(256 j / 16) = 16, 32, 48, then ceil(1000 / 16) =
// 63: the whole transfer is exactly ceil(bytes / bandwidth).
TEST(IciNetworkTest, TheLastPacketIsShort) {
  MachineConfig config = ring(4);
  IciNetwork net(config);
  IciTransfer t = net.send(0, 0, config.topology.route(0, 1), 1000);
  EXPECT_EQ(t.lastArrival, 50u + 63);
  EXPECT_EQ(net.getBusyCycles(unsigned(config.topology.findLink(0, 1))), 63u);
}

// Two flows sharing a link. On a 4-chip ring chip 0 sends 1 KiB to chip 2
// (0->1->2) and chip 1 sends 1 KiB to chip 2 (1->2), both ready at 0.
// The first's packets cross 0->1 over 0..64 and reach chip 1's router at
// 50, 66, 82, 98, but 1->2 already carries the second flow's packets over
// 0..64: they cross it at 64, 80, 96, 112 and arrive at 64 + 16 + 50 = 130
// .. 112 + 16 + 50 = 178. The shared link is busy 128 cycles in all.
TEST(IciNetworkTest, TwoFlowsSharingALink) {
  MachineConfig config = ring(4);
  IciNetwork net(config);
  IciTransfer b = net.send(0, 0, config.topology.route(1, 2), 1024);
  IciTransfer a = net.send(0, 0, config.topology.route(0, 2), 1024);
  EXPECT_EQ(b.lastArrival, 64u + 50);
  EXPECT_EQ(a.injectStart, 0u);
  EXPECT_EQ(a.firstArrival, 64u + 50);
  EXPECT_EQ(a.lastArrival, 178u);
  unsigned shared = unsigned(config.topology.findLink(1, 2));
  EXPECT_EQ(net.getBusyCycles(shared), 128u);
  EXPECT_EQ(net.getBytes(shared), 2048u);
}

// A later transfer uses the gaps an earlier one leaves. Chip 0 sends 512
// B to chip 2 ready at 0: 0->1 over 0..32, 1->2 over 50..82. Then chip 1
// sends 256 B to chip 2 ready at 10: 1->2 is free over 10..50, long
// enough for its one packet (16 cycles): it goes at 10, arriving at 76,
// ahead of the earlier transfer's packets, which it does not delay.
TEST(IciNetworkTest, ALaterTransferFillsAGap) {
  MachineConfig config = ring(4);
  IciNetwork net(config);
  IciTransfer a = net.send(0, 0, config.topology.route(0, 2), 512);
  IciTransfer b = net.send(5, 10, config.topology.route(1, 2), 256);
  EXPECT_EQ(a.lastArrival, 50u + 16 + 16 + 50);
  EXPECT_EQ(b.injectStart, 10u);
  EXPECT_EQ(b.lastArrival, 10u + 16 + 50);
  // Another 256 B from chip 1 ready at 40 does not fit before 50 (it
  // would end at 56): it waits for the gap after the first transfer's
  // packets, 82.
  IciTransfer c = net.send(6, 40, config.topology.route(1, 2), 256);
  EXPECT_EQ(c.injectStart, 82u);
}

// Opposite directions of a cable are separate links: a send 0->1 and one
// 1->0 at the same time do not contend.
TEST(IciNetworkTest, LinksAreBidirectional) {
  MachineConfig config = ring(2);
  IciNetwork net(config);
  IciTransfer a = net.send(0, 0, config.topology.route(0, 1), 1024);
  IciTransfer b = net.send(0, 0, config.topology.route(1, 0), 1024);
  EXPECT_EQ(a.lastArrival, 114u);
  EXPECT_EQ(b.lastArrival, 114u);
}

} // namespace
