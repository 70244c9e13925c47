//===- DataflowBoundTest.cpp - Latency-aware lower bounds -----------------===//
//
// Hand-built dataflow graphs for DataflowBound (docs/metrics.md#roofline):
// the critical path, and each track's bound with heads and tails,
// max over r of r + (busy cycles with head >= r) + (smallest tail among
// them). Tracks here: 0 the VPU, 1 the load link, 2 the store link.
//
//===----------------------------------------------------------------------===//

#include "accel/Profile/DataflowBound.h"

#include <gtest/gtest.h>

#include <random>

using namespace accel;
using namespace accel::profile;
using sim::AddrRange;

namespace {

constexpr int kVpu = 0, kLoad = 1, kStore = 2;

AddrRange hbm(uint64_t b, uint64_t e) {
  return AddrRange{isa::MemSpace::HBM, b, e};
}
AddrRange vmem(uint64_t b, uint64_t e) {
  return AddrRange{isa::MemSpace::VMEM, b, e};
}
DataflowBound::Cost dma(int track, uint64_t baseLatency, uint64_t transfer) {
  return {track, baseLatency, transfer, /*regsAtStart=*/true,
          /*holdsDmaSlot=*/true};
}
DataflowBound::Cost vpu(uint64_t busy) { return {kVpu, 0, busy, false}; }

/// One tile of a layer-norm-like kernel: load HBM [src, src+64) to VMEM
/// [buf, buf+64) (T_b 100, transfer 10), a VPU op on it (20), and the store
/// of the result to HBM [dst, dst+64) (T_b 100, transfer 10).
void addTile(DataflowBound &g, uint64_t src, uint64_t buf, uint64_t dst) {
  g.add({}, {}, {hbm(src, src + 64)}, {vmem(buf, buf + 64)},
        dma(kLoad, 100, 10));
  g.add({}, {}, {vmem(buf, buf + 64)}, {vmem(buf, buf + 64)}, vpu(20));
  g.add({}, {}, {vmem(buf, buf + 64)}, {hbm(dst, dst + 64)},
        dma(kStore, 100, 10));
}

TEST(DataflowBoundTest, TailsAddTheStoreAfterTheLastComputation) {
  DataflowBound g(3);
  addTile(g, 0, 0, 1000);
  addTile(g, 64, 64, 1064);
  // Each tile: 110 to load, 20 to compute, 110 to store.
  EXPECT_EQ(g.criticalPath(), 240u);
  auto b = g.trackBounds();
  ASSERT_EQ(b.size(), 3u);
  // The VPU: both ops released at 110, 40 busy cycles, and the one done
  // last still needs its store (110): 110 + 40 + 110 = 260, more than the
  // critical path; without tails it would be 150.
  ASSERT_TRUE(b[kVpu]);
  EXPECT_EQ(b[kVpu]->head, 110u);
  EXPECT_EQ(b[kVpu]->tail, 110u);
  EXPECT_EQ(b[kVpu]->bound, 260u);
  // The load link: transfers released at 100, 20 busy; each is followed by
  // its tile's VPU op and store (130): 100 + 20 + 130 = 250.
  ASSERT_TRUE(b[kLoad]);
  EXPECT_EQ(b[kLoad]->tail, 130u);
  EXPECT_EQ(b[kLoad]->bound, 250u);
  // The store link: released at 230, 20 busy, no tail.
  ASSERT_TRUE(b[kStore]);
  EXPECT_EQ(b[kStore]->head, 230u);
  EXPECT_EQ(b[kStore]->tail, 0u);
  EXPECT_EQ(b[kStore]->bound, 250u);
}

TEST(DataflowBoundTest, BranchesOrderTheWorkAfterThem) {
  // A table load (T_b 100, transfer 10) into VMEM [0, 4), a scalar load of
  // the trip count from it into register 5, the loop's branch on it (free,
  // but at 110: the count is there then), and a tile load whose address
  // does not depend on the table. Without the branch the tile load could
  // start at 0 (critical path 110); after it, no earlier than 110: 220.
  DataflowBound g(3);
  g.add({}, {}, {hbm(0, 4)}, {vmem(0, 4)}, dma(kLoad, 100, 10));
  g.add({}, {5}, {vmem(0, 4)}, {}, DataflowBound::Cost{});
  DataflowBound::Cost branch;
  branch.controls = true;
  g.add({5, 6}, {}, {}, {}, branch);
  g.add({}, {}, {hbm(64, 128)}, {vmem(64, 128)}, dma(kLoad, 100, 10));
  EXPECT_EQ(g.criticalPath(), 220u);
  auto b = g.trackBounds();
  ASSERT_TRUE(b[kLoad]);
  EXPECT_EQ(b[kLoad]->bound, 220u);
  // An unconditional one (no `controls`) orders nothing.
  DataflowBound h(3);
  h.add({}, {}, {hbm(0, 4)}, {vmem(0, 4)}, dma(kLoad, 100, 10));
  h.add({}, {5}, {vmem(0, 4)}, {}, DataflowBound::Cost{});
  h.add({}, {}, {hbm(64, 128)}, {vmem(64, 128)}, dma(kLoad, 100, 10));
  EXPECT_EQ(h.criticalPath(), 110u);
}

TEST(DataflowBoundTest, DmaSlotsBoundIndependentDmas) {
  // Ten independent loads (T_b 100, transfer 10): the critical path is one
  // DMA (110), but with two slots at most two are in flight at a time, each
  // for 110 cycles: ceil(10 * 110 / 2) = 550; with one slot, 1100; with
  // three, ceil(1100 / 3) = 367. The VPU op holds no slot.
  DataflowBound g(3);
  for (uint64_t i = 0; i < 10; ++i)
    g.add({}, {}, {hbm(64 * i, 64 * i + 64)}, {vmem(64 * i, 64 * i + 64)},
          dma(kLoad, 100, 10));
  g.add({}, {}, {vmem(0, 64)}, {vmem(0, 64)}, vpu(20));
  EXPECT_EQ(g.criticalPath(), 130u);
  EXPECT_EQ(g.dmaSlotBound(2), 550u);
  EXPECT_EQ(g.dmaSlotBound(1), 1100u);
  EXPECT_EQ(g.dmaSlotBound(3), 367u);
  EXPECT_EQ(g.dmaSlotBound(0), 0u);
}

TEST(DataflowBoundTest, ARegisterResultAtStartAddsNoLatency) {
  DataflowBound g(3);
  // A DMA writes register 5 (its id) at its start; a VPU op that reads
  // register 5 (say, for an address) may start at 0, and the DMA's
  // completion (110) is not on its path.
  g.add({}, {5}, {hbm(0, 64)}, {vmem(0, 64)}, dma(kLoad, 100, 10));
  g.add({5}, {}, {vmem(512, 576)}, {vmem(512, 576)}, vpu(20));
  EXPECT_EQ(g.criticalPath(), 110u);
  auto b = g.trackBounds();
  EXPECT_EQ(b[kVpu]->head, 0u);
  EXPECT_EQ(b[kVpu]->bound, 20u);
  // The DMA's tail: the VPU op follows its start, not its end, so 0.
  EXPECT_EQ(b[kLoad]->tail, 0u);
  EXPECT_EQ(b[kLoad]->bound, 110u);
  EXPECT_FALSE(b[kStore]); // no work
}

TEST(DataflowBoundTest, TheSuffixOfReleaseDatesThatBinds) {
  DataflowBound g(3);
  // VPU op A at 0 (busy 50) whose result nothing reads: tail 0. Then two
  // tiles, each VPU op released at 110 with its store (110) as tail.
  g.add({}, {}, {}, {vmem(4096, 4160)}, vpu(50));
  addTile(g, 0, 0, 1000);
  addTile(g, 64, 64, 1064);
  EXPECT_EQ(g.criticalPath(), 240u);
  auto b = g.trackBounds();
  // From r = 0 the set holds A, whose tail is 0: 0 + 90 + 0 = 90. From
  // r = 110 only the tiles' ops: 110 + 40 + 110 = 260, which binds.
  EXPECT_EQ(b[kVpu]->head, 0u);
  EXPECT_EQ(b[kVpu]->tail, 0u);
  EXPECT_EQ(b[kVpu]->bound, 260u);
}

TEST(DataflowBoundTest, FarReleaseDatesAreRoundedDown) {
  DataflowBound g(3);
  // A load whose transfer is released at 2^20 + 7: over 65536 release
  // bins, so release dates are rounded down to multiples of 32 (2^20 + 7
  // -> 2^20): the bound is 7 cycles weaker, never larger than exact.
  g.add({}, {}, {hbm(0, 64)}, {vmem(0, 64)}, dma(kLoad, (1u << 20) + 7, 5));
  EXPECT_EQ(g.criticalPath(), (1u << 20) + 12u);
  auto b = g.trackBounds();
  EXPECT_EQ(b[kLoad]->head, (1u << 20) + 7u); // heads are exact
  EXPECT_EQ(b[kLoad]->bound, (1u << 20) + 5u);
}

TEST(DataflowBoundTest, PathsPastTwoToThe32CyclesKeepTheirLength) {
  // A load (T_b 100, transfer 10), two VPU ops of 3e9 cycles each on its
  // tile, and the store (T_b 100, transfer 10): the path from the load's
  // end is 6e9 + 110 cycles, past what 4 bytes hold, so the backward pass
  // keeps 8-byte lengths (the critical path is past 2^32 cycles).
  constexpr uint64_t kLong = 3000000000;
  DataflowBound g(3);
  g.add({}, {}, {hbm(0, 64)}, {vmem(0, 64)}, dma(kLoad, 100, 10));
  g.add({}, {}, {vmem(0, 64)}, {vmem(0, 64)}, vpu(kLong));
  g.add({}, {}, {vmem(0, 64)}, {vmem(0, 64)}, vpu(kLong));
  g.add({}, {}, {vmem(0, 64)}, {hbm(1000, 1064)}, dma(kStore, 100, 10));
  EXPECT_EQ(g.criticalPath(), 2 * kLong + 220);
  auto b = g.trackBounds();
  ASSERT_TRUE(b[kLoad] && b[kVpu] && b[kStore]);
  // Release dates up to 6e9 + 210 fall into 65536 bins of 2^17 cycles, so
  // each is rounded down to a multiple of 2^17 (as in
  // FarReleaseDatesAreRoundedDown); the tails are exact.
  // The load: 10 busy from 100 (bin 0), then both ops and the store.
  EXPECT_EQ(b[kLoad]->tail, 2 * kLong + 110);
  EXPECT_EQ(b[kLoad]->bound, 10 + 2 * kLong + 110);
  // The VPU: both ops from 110 (bin 0), then the store (110).
  EXPECT_EQ(b[kVpu]->head, 110u);
  EXPECT_EQ(b[kVpu]->tail, 110u);
  EXPECT_EQ(b[kVpu]->bound, 2 * kLong + 110);
  // The store: released at 2 * kLong + 210, rounded down, and 10 busy.
  EXPECT_EQ(b[kStore]->head, 2 * kLong + 210);
  EXPECT_EQ(b[kStore]->bound, (2 * kLong + 210) / (1u << 17) * (1u << 17) + 10);
}

TEST(DataflowBoundTest, TheCoreIssuesOneInstructionAtATime) {
  // Track 1 is the core: every instruction takes issueCycles there.
  constexpr int kCore = 1;
  DataflowBound g(2, kCore, /*issueCycles=*/1);
  // Five independent scalar instructions (free in the model): released at
  // 0, one cycle each, the last followed by nothing: 0 + 5 + 0 = 5.
  for (int i = 0; i < 5; ++i)
    g.add({}, {uint8_t(i + 1)}, {}, {}, DataflowBound::Cost{});
  auto b = g.trackBounds();
  ASSERT_TRUE(b[kCore]);
  EXPECT_EQ(b[kCore]->head, 0u);
  EXPECT_EQ(b[kCore]->bound, 5u);
  EXPECT_EQ(g.criticalPath(), 0u); // without the core, nothing bounds them

  // Two cycles per issue: issued at 0, 2, 4, 6, 8, and the run ends one
  // cycle after the last issue: 0 + 5 * 2 + 0 - (2 - 1) = 9.
  DataflowBound slow(2, kCore, /*issueCycles=*/2);
  for (int i = 0; i < 5; ++i)
    slow.add({}, {uint8_t(i + 1)}, {}, {}, DataflowBound::Cost{});
  EXPECT_EQ(slow.trackBounds()[kCore]->bound, 9u);
}

TEST(DataflowBoundTest, AnInstructionAfterAUnitWaitsForItsResult) {
  constexpr int kCore = 1;
  DataflowBound g(2, kCore, /*issueCycles=*/1);
  // A VPU op writing VMEM (busy 20), then a scalar instruction reading it:
  // the second is released at 20 and ends the run: 20 + 1 + 0 = 21.
  g.add({}, {}, {}, {vmem(0, 64)}, vpu(20));
  g.add({}, {1}, {vmem(0, 64)}, {}, DataflowBound::Cost{});
  auto b = g.trackBounds();
  EXPECT_EQ(b[kCore]->head, 0u);
  EXPECT_EQ(b[kCore]->bound, 21u);
  EXPECT_EQ(b[kVpu]->bound, 20u);
}

TEST(DataflowBoundTest, TransfersShareASecondTrack) {
  // Two loads on links 1 and 2 (T_b 100, 10 cycles each), whose bytes
  // also cross a shared bus (track 3) for 8 cycles each: every link is
  // done at 110, but the bus moves both from 100 on: 100 + 16 = 116.
  constexpr int kBus = 3;
  DataflowBound g(4);
  DataflowBound::Cost a = dma(kLoad, 100, 10), c = dma(kStore, 100, 10);
  a.track2 = c.track2 = kBus;
  a.busy2 = c.busy2 = 8;
  g.add({}, {}, {hbm(0, 64)}, {vmem(0, 64)}, a);
  g.add({}, {}, {hbm(64, 128)}, {vmem(64, 128)}, c);
  EXPECT_EQ(g.criticalPath(), 110u);
  auto b = g.trackBounds();
  EXPECT_EQ(b[kLoad]->bound, 110u);
  EXPECT_EQ(b[kStore]->bound, 110u);
  ASSERT_TRUE(b[kBus]);
  EXPECT_EQ(b[kBus]->head, 100u);
  EXPECT_EQ(b[kBus]->bound, 116u);
}

} // namespace

namespace {
// Edges are stored as the distance back to the producer in 1 to 5 bytes.
// Five VPU ops (busy 1, at 0) each have one reader 1, 63, 64, 2^20 and
// 2^21 + 5 instructions later, on the store track (busy 500), which also
// reads register 9, the id of a DMA (T_b 100, transfer 10) ready at its
// start. The VPU's bound needs every writer's tail (its reader: 500), the
// load link's the DMA's tail through the at-start edge; a misread edge
// changes them.
TEST(DataflowBoundTest, DistantProducersKeepTheirTails) {
  DataflowBound g(3);
  uint64_t index = 0;
  g.add({}, {9}, {}, {vmem(0, 4)}, dma(kLoad, 100, 10));
  ++index;
  std::vector<uint64_t> gaps = {1, 63, 64, uint64_t(1) << 20,
                                (uint64_t(1) << 21) + 5};
  uint64_t buf = 64;
  for (uint64_t gap : gaps) {
    g.add({}, {}, {}, {vmem(buf, buf + 4)}, vpu(1));
    for (uint64_t k = 1; k < gap; ++k) // free scalar instructions
      g.add({}, {}, {}, {}, DataflowBound::Cost{});
    g.add({9}, {}, {vmem(buf, buf + 4)}, {},
          DataflowBound::Cost{kStore, 0, 500, false});
    buf += 64;
  }
  auto b = g.trackBounds();
  // Writers released at 0, 5 busy cycles, each followed by 500: 505 (5
  // with a writer's edge lost).
  ASSERT_TRUE(b[kVpu]);
  EXPECT_EQ(b[kVpu]->tail, 500u);
  EXPECT_EQ(b[kVpu]->bound, 505u);
  // The DMA's id is ready at its start (lag 0): its longest path is
  // max(110, 500), so its transfer (100 + 10) is followed by 390: 500
  // (610 if the at-start flag were lost, 110 without the edge).
  ASSERT_TRUE(b[kLoad]);
  EXPECT_EQ(b[kLoad]->tail, 390u);
  EXPECT_EQ(b[kLoad]->bound, 500u);
  // Readers start at 1: 501.
  EXPECT_EQ(g.criticalPath(), 501u);
}
// Every length of edge (1 to 5 bytes, each length's smallest and largest
// number) and random ones, written one after another and read back from
// the end.
TEST(DataflowBoundTest, EdgesDecodeBackToTheNumbersEncoded) {
  std::vector<uint64_t> values;
  for (unsigned groups = 1; groups <= 5; ++groups) {
    uint64_t lo = groups == 1 ? 0 : uint64_t(1) << (7 * (groups - 1));
    uint64_t hi = (uint64_t(1) << (7 * groups)) - 1;
    values.insert(values.end(), {lo, hi, lo + 1, hi - 1});
  }
  std::mt19937_64 rng(34);
  for (int k = 0; k < 20000; ++k) {
    unsigned shift = 29 + unsigned(rng() % 35); // below 2^35, all sizes
    values.push_back(rng() >> shift);
  }
  std::vector<uint8_t> buf(values.size() * 5 + 8);
  size_t size = 0;
  for (uint64_t v : values) {
    unsigned n = DataflowBound::encodeEdge(v, buf.data() + size);
    unsigned want = 1;
    while (want < 5 && v >> (7 * want))
      ++want;
    ASSERT_EQ(n, want) << "bytes of " << v;
    for (unsigned i = 0; i < n; ++i) // 0x80 on all but the last byte
      ASSERT_EQ(bool(buf[size + i] & 0x80), i + 1 < n) << v;
    size += n;
  }
  size_t pos = size;
  for (size_t k = values.size(); k-- > 0;)
    ASSERT_EQ(DataflowBound::decodeEdge(buf.data(), pos), values[k])
        << "edge " << k;
  EXPECT_EQ(pos, 0u);
}

} // namespace
