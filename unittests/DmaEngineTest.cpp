//===- DmaEngineTest.cpp - DMA timing model (SnR Fig. 4) -------------===//
//
// Every expected cycle below is computed by hand from the link parameters of
// the override config (not from the default config), with the arithmetic in
// the comments:
//   link 0: hbm->vmem, T_b = 100 cycles, 64 B/cycle
//   link 1: vmem->hbm, T_b =  50 cycles, 32 B/cycle
//
//===----------------------------------------------------------------------===//

#include "accel/Sim/DmaEngine.h"

#include <gtest/gtest.h>

#include <cstdint>

using namespace accel;
using namespace accel::sim;

namespace {

constexpr const char *kTwoLinks = R"json({
  "dma": {
    "links": [
      { "src": "hbm",  "dst": "vmem", "base_latency": 100,
        "bytes_per_cycle": 64 },
      { "src": "vmem", "dst": "hbm",  "base_latency": 50,
        "bytes_per_cycle": 32 }
    ]
  }
})json";

class DmaEngineTest : public ::testing::Test {
protected:
  void SetUp() override {
    auto c = MachineConfig::fromJson(kTwoLinks, "dma-test.json");
    ASSERT_TRUE(bool(c)) << llvm::toString(c.takeError());
    config = std::move(*c);
    ASSERT_EQ(config.links.size(), 2u);
    load = config.findLink(isa::MemSpace::HBM, isa::MemSpace::VMEM);
    store = config.findLink(isa::MemSpace::VMEM, isa::MemSpace::HBM);
    ASSERT_EQ(load, 0);
    ASSERT_EQ(store, 1);
    ASSERT_EQ(config.links[0].baseLatency, 100u);
    ASSERT_EQ(config.links[0].bytesPerCycle, 64.0);
    ASSERT_EQ(config.links[1].baseLatency, 50u);
    ASSERT_EQ(config.links[1].bytesPerCycle, 32.0);
  }

  // The engine keeps a reference to the config: the fixture owns both.
  MachineConfig config;
  int load = -1, store = -1;
};

// (a) The base latency is constant and non-accumulative: every DMA pays T_b
// of its own link from its own issue cycle, in parallel with the others.
TEST_F(DmaEngineTest, BaseLatenciesRunInParallelAcrossLinks) {
  DmaEngine dma(config);
  uint32_t a = dma.issue(/*cycle=*/0, load, /*bytes=*/64);
  uint32_t b = dma.issue(/*cycle=*/1, store, /*bytes=*/64);
  EXPECT_EQ(a, 0u);
  EXPECT_EQ(b, 1u);

  const DmaTiming &ta = dma.get(a);
  EXPECT_EQ(ta.id, 0u);
  EXPECT_EQ(ta.link, load);
  EXPECT_EQ(ta.bytes, 64u);
  EXPECT_EQ(ta.issue, 0u);
  EXPECT_EQ(ta.baseEnd, 100u);       // 0 + 100
  EXPECT_EQ(ta.transferStart, 100u); // link 0 idle: max(100, 0)
  EXPECT_EQ(ta.complete, 101u);      // 100 + ceil(64 / 64) = 100 + 1

  const DmaTiming &tb = dma.get(b);
  EXPECT_EQ(tb.id, 1u);
  EXPECT_EQ(tb.link, store);
  EXPECT_EQ(tb.issue, 1u);
  EXPECT_EQ(tb.baseEnd, 51u);       // 1 + 50, not 100 + 50
  EXPECT_EQ(tb.transferStart, 51u); // link 1 idle
  EXPECT_EQ(tb.complete, 53u);      // 51 + ceil(64 / 32) = 51 + 2
}

TEST_F(DmaEngineTest, BaseLatenciesRunInParallelOnOneLink) {
  DmaEngine dma(config);
  dma.issue(0, load, 64);
  dma.issue(1, load, 64);
  // Non-accumulative: the second base latency ends at 1 + 100 = 101, not at
  // 0 + 100 + 100 = 200.
  EXPECT_EQ(dma.get(0).baseEnd, 100u);
  EXPECT_EQ(dma.get(1).baseEnd, 101u);
  // #0 transfers [100, 101); #1 is ready at 101 and the link frees at 101.
  EXPECT_EQ(dma.get(0).complete, 101u);
  EXPECT_EQ(dma.get(1).transferStart, 101u); // max(101, 101)
  EXPECT_EQ(dma.get(1).complete, 102u);      // 101 + 1
}

// (b) A link moves one transfer at a time, in FIFO (= issue) order.
TEST_F(DmaEngineTest, LinkFifoSerializesTransfers) {
  DmaEngine dma(config);
  // 640 bytes at 64 B/cycle = 10 transfer cycles each.
  dma.issue(0, load, 640);
  dma.issue(1, load, 640);
  dma.issue(2, load, 640);

  // #0: baseEnd 0+100 = 100, start max(100, 0) = 100, complete 100+10 = 110.
  EXPECT_EQ(dma.get(0).baseEnd, 100u);
  EXPECT_EQ(dma.get(0).transferStart, 100u);
  EXPECT_EQ(dma.get(0).complete, 110u);
  // #1: baseEnd 1+100 = 101, start max(101, 110) = 110, complete 120.
  EXPECT_EQ(dma.get(1).baseEnd, 101u);
  EXPECT_EQ(dma.get(1).transferStart, 110u);
  EXPECT_EQ(dma.get(1).complete, 120u);
  // #2: baseEnd 2+100 = 102, start max(102, 120) = 120, complete 130.
  EXPECT_EQ(dma.get(2).baseEnd, 102u);
  EXPECT_EQ(dma.get(2).transferStart, 120u);
  EXPECT_EQ(dma.get(2).complete, 130u);

  EXPECT_EQ(dma.get(1).transferStart, dma.get(0).complete);
  EXPECT_EQ(dma.get(2).transferStart, dma.get(1).complete);
  EXPECT_EQ(dma.drainCycle(), 130u);
  EXPECT_EQ(dma.numIssued(), 3u);
}

// (c) Different links have separate FIFOs and transfer concurrently.
TEST_F(DmaEngineTest, TwoLinksTransferInParallel) {
  DmaEngine dma(config);
  // Link 0: 6400 B / 64 = 100 cycles. baseEnd 0+100 = 100, complete 200.
  uint32_t a = dma.issue(0, load, 6400);
  // Link 1: 3200 B / 32 = 100 cycles. baseEnd 0+50 = 50, complete 150.
  uint32_t b = dma.issue(0, store, 3200);
  // A second DMA on link 1 queues behind b only, not behind a:
  // baseEnd 10+50 = 60, start max(60, 150) = 150, complete 150 + 320/32 = 160.
  uint32_t c = dma.issue(10, store, 320);

  EXPECT_EQ(dma.get(a).transferStart, 100u);
  EXPECT_EQ(dma.get(a).complete, 200u);
  EXPECT_EQ(dma.get(b).transferStart, 50u);
  EXPECT_EQ(dma.get(b).complete, 150u);
  EXPECT_EQ(dma.get(c).baseEnd, 60u);
  EXPECT_EQ(dma.get(c).transferStart, 150u);
  EXPECT_EQ(dma.get(c).complete, 160u);

  // The transfer intervals [100, 200) and [50, 150) overlap in [100, 150).
  EXPECT_LT(dma.get(a).transferStart, dma.get(b).complete);
  EXPECT_LT(dma.get(b).transferStart, dma.get(a).complete);
  // Serialised on one link they would have needed 100 + 100 + 10 cycles of
  // transfer after cycle 50; in parallel everything is done at 200.
  EXPECT_EQ(dma.drainCycle(), 200u);
}

// (d) WAIT at cycle w on a DMA with baseEnd 110 and complete 120 (Fig. 4).
TEST_F(DmaEngineTest, WaitSplitsStallPerFig4) {
  DmaEngine dma(config);
  // Issue at 10: baseEnd 10+100 = 110, transfer 640/64 = 10, complete 120.
  uint32_t id = dma.issue(10, load, 640);
  ASSERT_EQ(dma.get(id).baseEnd, 110u);
  ASSERT_EQ(dma.get(id).complete, 120u);

  struct Case {
    uint64_t w, stallBase, stallTransfer, slack, resume;
  } cases[] = {
      // Before baseEnd: stallBase = 110 - w, stallTransfer = 120 - 110 = 10.
      {10, 100, 10, 0, 120}, // WAIT right at the ISSUE cycle
      {40, 70, 10, 0, 120},  // 110 - 40 = 70
      {109, 1, 10, 0, 120},  // last cycle before baseEnd
      // Between: only stallTransfer = 120 - w.
      {110, 0, 10, 0, 120}, // boundary w == baseEnd: 120 - 110
      {115, 0, 5, 0, 120},  // 120 - 115
      {119, 0, 1, 0, 120},  // 120 - 119
      // After: no stall, slack = w - 120.
      {120, 0, 0, 0, 120},  // boundary w == complete: slack 0
      {150, 0, 0, 30, 150}, // 150 - 120
  };
  for (const Case &c : cases) {
    SCOPED_TRACE("w = " + std::to_string(c.w));
    WaitOutcome o = dma.wait(id, c.w);
    EXPECT_EQ(o.stallBase, c.stallBase);
    EXPECT_EQ(o.stallTransfer, c.stallTransfer);
    EXPECT_EQ(o.slack, c.slack);
    EXPECT_EQ(o.resume, c.resume);
  }
}

// Queueing behind another DMA on the link counts as transfer latency.
TEST_F(DmaEngineTest, WaitCountsQueueingAsTransfer) {
  DmaEngine dma(config);
  dma.issue(0, load, 640); // baseEnd 100, complete 110
  uint32_t id = dma.issue(1, load, 640);
  // #1: baseEnd 101, start max(101, 110) = 110, complete 120.
  ASSERT_EQ(dma.get(id).complete, 120u);

  // w = 50 < 101: stallBase = 101 - 50 = 51, stallTransfer = 120 - 101 = 19
  // (9 cycles queued behind #0 + 10 cycles of own transfer).
  WaitOutcome early = dma.wait(id, 50);
  EXPECT_EQ(early.stallBase, 51u);
  EXPECT_EQ(early.stallTransfer, 19u);
  EXPECT_EQ(early.slack, 0u);
  EXPECT_EQ(early.resume, 120u);

  // w = 105, while still queued: stallTransfer = 120 - 105 = 15.
  WaitOutcome queued = dma.wait(id, 105);
  EXPECT_EQ(queued.stallBase, 0u);
  EXPECT_EQ(queued.stallTransfer, 15u);
  EXPECT_EQ(queued.resume, 120u);
}

// (e) Transfer time is ceil(bytes / bytes_per_cycle).
TEST_F(DmaEngineTest, TransferCyclesRoundUp) {
  DmaEngine dma(config);
  EXPECT_EQ(dma.transferCycles(load, 0), 0u);
  EXPECT_EQ(dma.transferCycles(load, 1), 1u);   // ceil(1/64)
  EXPECT_EQ(dma.transferCycles(load, 64), 1u);  // 64/64
  EXPECT_EQ(dma.transferCycles(load, 65), 2u);  // ceil(65/64)
  EXPECT_EQ(dma.transferCycles(load, 128), 2u); // 128/64
  EXPECT_EQ(dma.transferCycles(load, 129), 3u); // ceil(129/64)
  EXPECT_EQ(dma.transferCycles(store, 32), 1u); // 32/32
  EXPECT_EQ(dma.transferCycles(store, 33), 2u); // ceil(33/32)
  EXPECT_EQ(dma.transferCycles(store, 65), 3u); // ceil(65/32)

  // The rounded value is what an ISSUE uses: 0 + 100 + ceil(65/64) = 102.
  uint32_t id = dma.issue(0, load, 65);
  EXPECT_EQ(dma.get(id).complete, 102u);
}

// Fractional bandwidths are exact to 0.001 B/cycle and transfer times are
// one integer rounding: 6100 bytes at 6.1 B/cycle take 1000 cycles (a
// division in doubles, 6100 / 6.1 = 1000.0000000000001, rounded up to
// 1001), 6101 bytes 1001; 0.0015 B/cycle is kept as 0.002.
TEST(DmaEngineFractionTest, FractionalBandwidthIsExact) {
  auto c = MachineConfig::fromJson(R"json({
    "dma": { "links": [
      { "src": "hbm", "dst": "vmem", "base_latency": 0, "bytes_per_cycle": 6.1 },
      { "src": "vmem", "dst": "hbm", "base_latency": 0, "bytes_per_cycle": 0.0015 }
    ] },
    "ici": { "bytes_per_cycle": 0.3 }
  })json",
                                   "frac.json");
  ASSERT_TRUE(bool(c)) << llvm::toString(c.takeError());
  EXPECT_EQ(c->links[0].milliBytesPerCycle, 6100u);
  EXPECT_EQ(c->links[1].milliBytesPerCycle, 2u);
  EXPECT_EQ(c->iciMilliBytesPerCycle, 300u);
  DmaEngine dma(*c);
  EXPECT_EQ(dma.transferCycles(0, 6100), 1000u);
  EXPECT_EQ(dma.transferCycles(0, 6101), 1001u);
  EXPECT_EQ(dma.transferCycles(1, 1), 500u); // 1 / 0.002
  EXPECT_EQ(getTransferCycles(3, 300), 10u); // 3 B at 0.3 B/cycle
  EXPECT_EQ(getTransferCycles(4, 300), 14u); // ceil(13.33...)
}

// (f) In-flight bookkeeping.
TEST_F(DmaEngineTest, OutstandingNextCompletionAndDrain) {
  DmaEngine dma(config);
  EXPECT_EQ(dma.drainCycle(), 0u);
  EXPECT_EQ(dma.outstandingAt(0), 0u);
  EXPECT_EQ(dma.nextCompletionAfter(0), UINT64_MAX);
  EXPECT_FALSE(dma.isValid(0));

  // #0 at 0 on link 0, 640 B: baseEnd 100, complete 100 + 10 = 110.
  dma.issue(0, load, 640);
  // #1 at 5 on link 1, 320 B: baseEnd 55, complete 55 + 320/32 = 65.
  dma.issue(5, store, 320);
  // #2 at 20 on link 0, 64 B: baseEnd 120, start max(120, 110) = 120,
  // complete 121.
  dma.issue(20, load, 64);
  ASSERT_EQ(dma.get(0).complete, 110u);
  ASSERT_EQ(dma.get(1).complete, 65u);
  ASSERT_EQ(dma.get(2).complete, 121u);

  // A DMA is outstanding at c when issue <= c < complete.
  EXPECT_EQ(dma.outstandingAt(0), 1u); // #0 (not #1, issued at 5)
  EXPECT_EQ(dma.outstandingAt(4), 1u);
  EXPECT_EQ(dma.outstandingAt(5), 2u);  // #0, #1
  EXPECT_EQ(dma.outstandingAt(20), 3u); // #0, #1, #2
  EXPECT_EQ(dma.outstandingAt(64), 3u);
  EXPECT_EQ(dma.outstandingAt(65), 2u); // #1 completed at 65
  EXPECT_EQ(dma.outstandingAt(109), 2u);
  EXPECT_EQ(dma.outstandingAt(110), 1u); // #0 completed at 110
  EXPECT_EQ(dma.outstandingAt(120), 1u);
  EXPECT_EQ(dma.outstandingAt(121), 0u); // #2 completed at 121

  // Strictly after.
  EXPECT_EQ(dma.nextCompletionAfter(20), 65u);
  EXPECT_EQ(dma.nextCompletionAfter(64), 65u);
  EXPECT_EQ(dma.nextCompletionAfter(65), 110u);
  EXPECT_EQ(dma.nextCompletionAfter(110), 121u);
  EXPECT_EQ(dma.nextCompletionAfter(121), UINT64_MAX);
  EXPECT_EQ(dma.drainCycle(), 121u); // max(110, 121) over the links

  // A later ISSUE at 200 (everything earlier has completed):
  // #3 on link 1, 32 B: baseEnd 250, complete 251.
  uint32_t id = dma.issue(200, store, 32);
  EXPECT_EQ(id, 3u);
  EXPECT_EQ(dma.get(id).complete, 251u);
  EXPECT_EQ(dma.outstandingAt(200), 1u);
  EXPECT_EQ(dma.nextCompletionAfter(200), 251u);
  EXPECT_EQ(dma.drainCycle(), 251u);
  // Completed DMAs stay queryable.
  EXPECT_TRUE(dma.isValid(0));
  EXPECT_TRUE(dma.isValid(3));
  EXPECT_FALSE(dma.isValid(4));
  EXPECT_EQ(dma.get(0).complete, 110u);
  EXPECT_EQ(dma.numIssued(), 4u);
}

// Issue 12: a replay window continues the recorded run's DMA numbering.
// Reserving 2^31 ids costs no memory per id: the reserved ones read as
// completed before the window, the DMAs in flight keep their ids, and new
// ones are numbered from the reserved next id.
TEST_F(DmaEngineTest, ReservedIdsAreSparse) {
  DmaEngine dma(config);
  const uint32_t next = 1u << 31;
  dma.reserveIds(next);
  EXPECT_EQ(dma.nextId(), next);
  EXPECT_EQ(dma.numIssued(), 0u);
  // A DMA in flight when the window began, with its own id.
  EXPECT_EQ(dma.issue(0, load, 640, next - 5), next - 5);
  // New DMAs: 640 B at 10 on the load link (T_b 100, 64 B/cycle) waits for
  // the first one's transfer, [100, 110): transfer [110, 120).
  uint32_t a = dma.issue(10, load, 640);
  EXPECT_EQ(a, next);
  EXPECT_EQ(dma.get(a).transferStart, 110u);
  EXPECT_EQ(dma.get(a).complete, 120u);
  EXPECT_EQ(dma.issue(11, store, 32), next + 1);
  EXPECT_EQ(dma.nextId(), next + 2);
  EXPECT_EQ(dma.numIssued(), 3u);
  // Validity: reserved ids (issued before the window), the one in flight,
  // the new ones; not the next id nor beyond.
  EXPECT_TRUE(dma.isValid(0));
  EXPECT_TRUE(dma.isValid(next - 1));
  EXPECT_TRUE(dma.isValid(next - 5));
  EXPECT_TRUE(dma.isValid(next + 1));
  EXPECT_FALSE(dma.isValid(next + 2));
  EXPECT_FALSE(dma.isValid(UINT32_MAX));
  // A reserved id completed before the window: a WAIT on it never stalls.
  EXPECT_TRUE(dma.get(7).completedBefore);
  WaitOutcome w = dma.wait(7, 3);
  EXPECT_EQ(w.stallBase + w.stallTransfer, 0u);
  EXPECT_EQ(w.resume, 3u);
  // The one in flight: issued at 0, base end 100, complete 110.
  EXPECT_EQ(dma.get(next - 5).complete, 110u);
  EXPECT_EQ(dma.wait(next - 5, 50).stallBase, 50u);
  EXPECT_EQ(dma.outstandingAt(11), 3u);
}

} // namespace

//===----------------------------------------------------------------------===//
// HBM shared by the links, and bursts (issue 14)
//===----------------------------------------------------------------------===//

namespace {
/// Loads and stores at 1024 B/cycle each, HBM 1000 B/cycle, T_b 10 on
/// both, 64-byte bursts.
MachineConfig hbmConfig() {
  auto c = MachineConfig::fromJson(R"json({
    "hbm": { "bytes_per_cycle": 1000 },
    "dma": { "burst_bytes": 64, "links": [
      { "src": "hbm", "dst": "vmem", "base_latency": 10, "bytes_per_cycle": 1024 },
      { "src": "vmem", "dst": "hbm", "base_latency": 10, "bytes_per_cycle": 1024 },
      { "src": "vmem", "dst": "vmem", "base_latency": 10, "bytes_per_cycle": 1024 }
    ] }
  })json",
                                   "hbm.json");
  EXPECT_TRUE(bool(c)) << llvm::toString(c.takeError());
  return std::move(*c);
}
} // namespace

// A copy: a load and a store of 10000 bytes issued together. Alone each
// would take ceil(10000 / 1024) = 10 cycles, but HBM moves 1000 B/cycle:
// the load holds HBM [10, 20), the store takes the next 10 cycles of it,
// [20, 30); a VMEM-local copy at the same time does not touch HBM.
TEST(DmaEngineHbmTest, LoadAndStoreShareHbmByHand) {
  MachineConfig c = hbmConfig();
  DmaEngine dma(c);
  uint32_t load = dma.issue(0, 0, 10000);
  uint32_t store = dma.issue(0, 1, 10000);
  uint32_t local = dma.issue(0, 2, 10000);
  EXPECT_EQ(dma.get(load).transferStart, 10u);
  EXPECT_EQ(dma.get(load).complete, 20u); // max(10 + 10, HBM done 20)
  EXPECT_EQ(dma.get(store).transferStart, 20u);
  EXPECT_EQ(dma.get(store).complete, 30u);
  EXPECT_EQ(dma.get(local).transferStart, 10u);
  EXPECT_EQ(dma.get(local).complete, 20u);
  // HBM time is exact: 500 bytes take half a cycle of it, so a second
  // 500-byte load starts in the same cycle as the first and both complete
  // in the cycle after (ceil(1.0)); link 0 is a FIFO: the next waits for it.
  DmaEngine d2(c);
  uint32_t a = d2.issue(0, 1, 500);
  uint32_t b = d2.issue(0, 0, 500);
  EXPECT_EQ(d2.get(a).transferStart, 10u);
  EXPECT_EQ(d2.get(a).complete, 11u);
  EXPECT_EQ(d2.get(b).transferStart, 10u); // HBM free from 10.5
  EXPECT_EQ(d2.get(b).complete, 11u);      // HBM done at 11.0
}

// A DMA whose base latency ends first reaches HBM first, even when it was
// issued later: the store issued at 5 with T_b 10 transfers at 15, before
// a load issued at 0 on a link with T_b 100.
TEST(DmaEngineHbmTest, HbmServesInArrivalOrder) {
  auto c = MachineConfig::fromJson(R"json({
    "hbm": { "bytes_per_cycle": 1000 },
    "dma": { "links": [
      { "src": "hbm", "dst": "vmem", "base_latency": 100, "bytes_per_cycle": 1000 },
      { "src": "vmem", "dst": "hbm", "base_latency": 10, "bytes_per_cycle": 1000 }
    ] }
  })json",
                                   "order.json");
  ASSERT_TRUE(bool(c)) << llvm::toString(c.takeError());
  DmaEngine dma(*c);
  uint32_t load = dma.issue(0, 0, 50000);  // ready at 100, 50 cycles
  uint32_t store = dma.issue(5, 1, 20000); // ready at 15, 20 cycles
  EXPECT_EQ(dma.get(store).transferStart, 15u);
  EXPECT_EQ(dma.get(store).complete, 35u);
  EXPECT_EQ(dma.get(load).transferStart, 100u);
  EXPECT_EQ(dma.get(load).complete, 150u);
  // A store ready at 120 finds HBM busy until 150.
  uint32_t late = dma.issue(110, 1, 1000);
  EXPECT_EQ(dma.get(late).transferStart, 150u);
  EXPECT_EQ(dma.get(late).complete, 151u);
}

// A stream of loads and stores of every size never moves more than
// hbm.bytes_per_cycle: the bytes over the span from the first transfer's
// start to the last completion.
TEST(DmaEngineHbmTest, CopyStreamStaysUnderHbmBandwidth) {
  MachineConfig c = hbmConfig();
  DmaEngine dma(c);
  uint64_t total = 0, first = UINT64_MAX, last = 0;
  for (uint64_t i = 0; i < 200; ++i) {
    uint64_t bytes = 64 * (1 + (i * 37) % 300);
    uint32_t id = dma.issue(i * 3, int(i % 2), bytes);
    total += bytes;
    first = std::min(first, dma.get(id).transferStart);
    last = std::max(last, dma.get(id).complete);
  }
  EXPECT_LE(double(total) / double(last - first), 1000.0);
  // And it is HBM, not the links (2048 B/cycle together), that binds.
  EXPECT_GT(double(total) / double(last - first), 900.0);
}

// Bursts: the HBM side moves whole 64-byte bursts, each row its own.
TEST(DmaEngineHbmTest, BurstBytesByHand) {
  auto tile = [](uint64_t base, uint64_t rows, uint64_t cols, uint64_t stride) {
    return TileRef{isa::MemSpace::HBM, base, rows, cols, stride};
  };
  // Contiguous 8 x 128 f32 at an aligned base: exactly its 4096 bytes.
  EXPECT_EQ(getBurstBytes(tile(0, 8, 128, 128), 64), 4096u);
  // The same 16 bytes off a burst boundary: one more burst.
  EXPECT_EQ(getBurstBytes(tile(16, 8, 128, 128), 64), 4096u + 64);
  // 32-byte rows (8 f32) at a 4 KiB stride: a whole burst each, twice the
  // bytes of the same rows packed together (4 bursts).
  EXPECT_EQ(getBurstBytes(tile(0, 8, 8, 1024), 64), 8u * 64);
  EXPECT_EQ(getBurstBytes(tile(0, 8, 8, 8), 64), 4u * 64);
  // Rows of 128 bytes at a 160-byte stride (not a burst multiple): rows
  // start at 0, 160, 320: bursts 0-1, 2-4, 5-6: 7 bursts.
  EXPECT_EQ(getBurstBytes(tile(0, 3, 32, 40), 64), 7u * 64);
  // A burst of 1 byte: the bytes themselves.
  EXPECT_EQ(getBurstBytes(tile(3, 3, 32, 40), 1), 3u * 128);
  // Through the engine: the strided rows take twice the cycles on a
  // 64 B/cycle link.
  auto c = MachineConfig::fromJson(R"json({
    "hbm": { "bytes_per_cycle": 100000 },
    "dma": { "links": [
      { "src": "hbm", "dst": "vmem", "base_latency": 0, "bytes_per_cycle": 64 } ] }
  })json",
                                   "burst.json");
  ASSERT_TRUE(bool(c)) << llvm::toString(c.takeError());
  DmaEngine dma(*c);
  uint32_t strided = dma.issue(0, 0, 256, std::nullopt,
                               getBurstBytes(tile(0, 8, 8, 1024), 64));
  uint32_t packed =
      dma.issue(100, 0, 256, std::nullopt, getBurstBytes(tile(0, 8, 8, 8), 64));
  EXPECT_EQ(dma.get(strided).complete - dma.get(strided).transferStart, 8u);
  EXPECT_EQ(dma.get(packed).complete - dma.get(packed).transferStart, 4u);
  EXPECT_EQ(dma.get(strided).busBytes, 512u);
}
