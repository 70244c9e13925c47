//===- AnalyzerTest.cpp - Analyzer: dependencies and hoist ----------------===//
//
// Unit tests of the analyzer (SnR §5.2-§5.4, Analyzer.h) through
// sim::Simulator runs of hand-written programs: the dynamic dependencies
// it finds and Algorithm 2 (hoist).
//
// The timing and analyzer rules behind the expected values are in
// AnalyzerTestUtils.h.
//
//===----------------------------------------------------------------------===//

#include "AnalyzerTestUtils.h"

using namespace accel;
using namespace accel::profile;
using namespace accel::test;
using isa::MemSpace;

namespace {

// Dependencies through the Analyzer
//===----------------------------------------------------------------------===//

/// The DMA's address registers come from li/addi just before the ISSUE
/// (they bind only in the conservative model); its destination was last
/// read by a vadd three instructions earlier (binds in both models).
TEST(AnalyzerTest, ConservativeVsRelaxedAddressChain) {
  sim::MachineConfig config = configFrom(kConfig, kConfigName);
  isa::Program p = makeProgram({
      {li(3, kB), 1},                        // 0  c0
      {li(4, kC), 1},                        // 1  c1
      {vfill(3, 1, 16, 16, 1.0f), 2},        // 2  c2, VPU [2, 11): b[0,64)
      {vadd(4, 3, 3, 1, 16, 16, 16, 16), 3}, // 3 reads b: hazard -> c11,
                                             //   VPU [11, 20)
      {li(1, kX), 4},                        // 4  c12
      {addi(5, 3, 0), 4},                    // 5  c13: r5 = b
      // 6  x -> b: writes b, which the in-flight vadd reads: issues at 20;
      //    complete 20 + 100 + 1 = 121.
      {dmaIssue(6, 1, 5, MemSpace::HBM, MemSpace::VMEM, 1, 16, 16, 16), 5},
      {dmaWait(6), 6}, // 7  ready 21: stall 99 + 1; at 121
      {halt(), 7},     // 8  c122; total 123
  });
  auto a = analyze(p, config);
  ASSERT_TRUE(a->ok);
  EXPECT_EQ(u64(a->m["total_cycles"]), 123u);
  const std::vector<DmaDependence> &d = a->analyzer->getDependencies().dmas();
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].index, 6u);
  // Of several producers the one whose result is ready last binds.
  // Conservative candidates: li r1 (4, ready 13), addi r5 (5, ready 14),
  // the vadd reading b (3, ready 20), the vfill writing b (2, ready 11):
  // the vadd. Relaxed: li r1 and li r3 -> addi r5 do not bind: the vadd
  // again. Here the models agree (the address math is ready before the
  // destination is free); RelaxedBoundIsWaitOfDmaFeedingSld shows them
  // differ.
  EXPECT_EQ(d[0].conservative, std::optional<uint64_t>(3));
  EXPECT_EQ(d[0].relaxed, std::optional<uint64_t>(3));

  const json &dma = a->m["dmas"][0];
  EXPECT_EQ(u64(dma["issue"]), 20u);
  const json &cons = dma["backtail"]["conservative"];
  const json &rel = dma["backtail"]["relaxed"];
  // Conservative: 6 - 3 - 1 = 2 instructions; the vadd is done at 20, when
  // the ISSUE is: 0 cycles.
  EXPECT_EQ(u64(cons["instructions"]), 2u);
  EXPECT_EQ(u64(cons["cycles"]), 0u);
  EXPECT_EQ(u64(cons["bound"]["index"]), 3u);
  EXPECT_EQ(u64(cons["bound"]["pc"]), 3u);
  EXPECT_EQ(u64(cons["bound"]["op_id"]), 3u);
  // Relaxed: 6 - 3 - 1 = 2 instructions; the vadd is done at 20, when the
  // ISSUE already is: 20 - 20 = 0 cycles.
  EXPECT_EQ(u64(rel["instructions"]), 2u);
  EXPECT_EQ(u64(rel["cycles"]), 0u);
  EXPECT_EQ(u64(rel["bound"]["index"]), 3u);
  EXPECT_EQ(u64(rel["bound"]["op_id"]), 3u);
  EXPECT_EQ(rel["bound"]["op"], "accel.vpu.add");
  EXPECT_EQ(u64(dma["push_limit"]), 0u);
  // Per op: the same (one instance).
  const json &op = a->m["dependencies"]["dma_ops"]["5"];
  EXPECT_EQ(u64(op["conservative"]["cycles"]), 0u);
  EXPECT_EQ(u64(op["relaxed"]["cycles"]), 0u);
  // Stall 100 > push limit 0: no hoist.
  EXPECT_EQ(u64(dma["stall_base"]) + u64(dma["stall_transfer"]), 100u);
  EXPECT_TRUE(suggestionsFor(a->m, "hoist", 5).empty());
}

/// The second DMA's source address comes from an sld of data the first DMA
/// brought into VMEM (through muli/add): the relaxed model binds it at the
/// first DMA's WAIT, the conservative one at the li just before it.
TEST(AnalyzerTest, RelaxedBoundIsWaitOfDmaFeedingSld) {
  sim::MachineConfig config = configFrom(kConfig, kConfigName);
  isa::Program p = makeProgram({
      {li(1, kX), 1},   // 0  c0
      {li(2, kA), 1},   // 1  c1
      {li(9, kIdx), 1}, // 2  c2
      // 3  DMA 0 idx[0..16) -> a at 3: complete 3 + 100 + 1 = 104.
      {dmaIssue(3, 9, 2, MemSpace::HBM, MemSpace::VMEM, 1, 16, 16, 16), 10},
      {dmaWait(3), 11},   // 4  ready 4: stall 99 + 1; at 104
      {sld(4, 2, 8), 12}, // 5  c105: r4 = a[2] = idx[2] = 2
      {rri(isa::Opcode::Muli, 5, 4, 64), 12}, // 6  c106: r5 = 128
      {add(6, 1, 5), 12},                     // 7  c107: r6 = x + 128
      {li(7, kB), 13},                        // 8  c108
      // 9  DMA 1 x[32..48) -> b at 109: complete 109 + 100 + 1 = 210.
      {dmaIssue(8, 6, 7, MemSpace::HBM, MemSpace::VMEM, 1, 16, 16, 16), 14},
      {dmaWait(8), 15}, // 10 ready 110: stall 99 + 1; at 210
      {halt(), 16},     // 11 c211; total 212
  });
  auto a = analyze(p, config);
  ASSERT_TRUE(a->ok);
  EXPECT_EQ(u64(a->m["total_cycles"]), 212u);
  const std::vector<DmaDependence> &d = a->analyzer->getDependencies().dmas();
  ASSERT_EQ(d.size(), 2u);
  // DMA 0: conservative max(li r9 = 2, li r2 = 1) = 2; relaxed: nothing.
  EXPECT_EQ(d[0].index, 3u);
  EXPECT_EQ(d[0].conservative, std::optional<uint64_t>(2));
  EXPECT_EQ(d[0].relaxed, std::nullopt);
  // DMA 1: conservative max(add r6 = 7, li r7 = 8) = 8; relaxed: r6 <- add
  // <- muli <- sld of a[8,12), produced by DMA 0's WAIT (4).
  EXPECT_EQ(d[1].index, 9u);
  EXPECT_EQ(d[1].conservative, std::optional<uint64_t>(8));
  EXPECT_EQ(d[1].relaxed, std::optional<uint64_t>(4));

  // Backtails. DMA 0 relaxed, unbound: 3 instructions, 3 - 0 = 3 cycles.
  const json &d0 = a->m["dmas"][0];
  EXPECT_TRUE(d0["backtail"]["relaxed"]["bound"].is_null());
  EXPECT_EQ(u64(d0["backtail"]["relaxed"]["instructions"]), 3u);
  EXPECT_EQ(u64(d0["backtail"]["relaxed"]["cycles"]), 3u);
  EXPECT_TRUE(d0["push_limit"].is_null());
  // DMA 1 relaxed: 9 - 4 - 1 = 4 instructions, 109 - (104 + 1) = 4 cycles
  // (the WAIT issues at 104, done 105).
  const json &d1 = a->m["dmas"][1];
  EXPECT_EQ(u64(d1["backtail"]["relaxed"]["instructions"]), 4u);
  EXPECT_EQ(u64(d1["backtail"]["relaxed"]["cycles"]), 4u);
  EXPECT_EQ(u64(d1["backtail"]["relaxed"]["bound"]["op_id"]), 11u);
  EXPECT_EQ(u64(d1["backtail"]["conservative"]["cycles"]), 0u);
  EXPECT_EQ(u64(d1["push_limit"]), 4u);

  // Suggestions: DMA 0 (unbounded, stall 100) is hoisted; DMA 1 (push 4 <
  // stall 100) is not; DMA 1 depends on DMA 0's WAIT: no parallelize.
  ASSERT_EQ(a->m["suggestions"].size(), 1u);
  EXPECT_EQ(a->m["suggestions"][0]["kind"], "hoist");
  EXPECT_EQ(u64(a->m["suggestions"][0]["op_id"]), 10u);
  EXPECT_EQ(u64(a->m["suggestions"][0]["expected_cycles_saved"]), 100u);
  EXPECT_EQ(countKind(a->m, "parallelize"), 0u);
}

//===----------------------------------------------------------------------===//
// Algorithm 2: hoist
//===----------------------------------------------------------------------===//

TEST(AnalyzerTest, HoistWhenPushLimitCoversStall) {
  sim::MachineConfig config = configFrom(kConfig, kConfigName);
  // MXU 128 x 128 (ws, overlap), matmul M = N = K = 2: one fold,
  // 128 + 2 + 254 - 1 = 383.
  isa::Program p = makeProgram({
      {li(3, kB), 1},                      // 0  c0
      {li(4, kC), 1},                      // 1  c1
      {vfill(3, 1, 16, 16, 1.0f), 2},      // 2  c2: writes b[0,64)
      {matmul(4, 4, 4, 2, 2, 2, 2, 2), 3}, // 3  c3: MXU [3, 386)
      {matmul(4, 4, 4, 2, 2, 2, 2, 2), 3}, // 4  waits: c386, [386, 769)
      {li(1, kX), 4},                      // 5  c387
      // 6  x -> b at 388: complete 388 + 100 + 1 = 489.
      {dmaIssue(5, 1, 3, MemSpace::HBM, MemSpace::VMEM, 1, 16, 16, 16), 5},
      {dmaWait(5), 6}, // 7  ready 389: stall base 99 + transfer 1 = 100
      {halt(), 7},     // 8  c490; total max(491, 769, 489) = 769
  });
  auto a = analyze(p, config);
  ASSERT_TRUE(a->ok);
  EXPECT_EQ(u64(a->m["total_cycles"]), 769u);
  const json &dma = a->m["dmas"][0];
  EXPECT_EQ(u64(dma["issue"]), 388u);
  EXPECT_EQ(u64(dma["stall_base"]), 99u);
  EXPECT_EQ(u64(dma["stall_transfer"]), 1u);
  // Relaxed: bound by the vfill (index 2, VPU [2, 11)), the last writer of
  // b: 388 - 11 = 377 cycles, 6 - 2 - 1 = 3 instructions.
  // Conservative: the li r1 at 387: 388 - (387 + 1) = 0.
  EXPECT_EQ(u64(dma["push_limit"]), 377u);
  EXPECT_EQ(u64(dma["backtail"]["relaxed"]["bound"]["index"]), 2u);
  EXPECT_EQ(u64(dma["backtail"]["relaxed"]["instructions"]), 3u);
  EXPECT_EQ(u64(dma["backtail"]["conservative"]["bound"]["index"]), 5u);
  EXPECT_EQ(u64(dma["backtail"]["conservative"]["cycles"]), 0u);
  // 377 >= stall 100 and VMEM (32 MiB) is nearly empty: hoist, saving the
  // whole stall.
  std::vector<json> h = suggestionsFor(a->m, "hoist", 5);
  ASSERT_EQ(h.size(), 1u);
  EXPECT_EQ(u64(h[0]["expected_cycles_saved"]), 100u);
  EXPECT_EQ(u64(h[0]["instances"]), 1u);
  EXPECT_EQ(h[0]["loc"], "analyzer.mlir:5:5");
  EXPECT_EQ(a->m["suggestions"].size(), 1u);
}

TEST(AnalyzerTest, NoHoistWhenPushLimitBelowStall) {
  // MXU 4 x 4 (ws, overlap), matmul M = N = K = 2: one fold,
  // 4 + 2 + (4 + 4 - 2) - 1 = 11 cycles.
  sim::MachineConfig config = configFrom(kSmallMxuConfig, kConfigName);
  isa::Program p = makeProgram({
      {li(3, kB), 1},                      // 0  c0
      {li(4, kC), 1},                      // 1  c1
      {matmul(4, 3, 3, 2, 2, 2, 2, 2), 2}, // 2  c2: reads b[0,16), [2, 13)
      {li(1, kX), 3},                      // 3  c3
      // 4  x -> b writes what the matmul reads: hazard until 13;
      //    complete 13 + 100 + 1 = 114.
      {dmaIssue(5, 1, 3, MemSpace::HBM, MemSpace::VMEM, 1, 16, 16, 16), 4},
      {dmaWait(5), 5}, // 5  ready 14: stall 99 + 1 = 100; at 114
      {halt(), 6},     // 6  c115; total 116
  });
  auto a = analyze(p, config);
  ASSERT_TRUE(a->ok);
  EXPECT_EQ(u64(a->m["total_cycles"]), 116u);
  const json &dma = a->m["dmas"][0];
  EXPECT_EQ(u64(dma["issue"]), 13u);
  EXPECT_EQ(u64(dma["stall_base"]) + u64(dma["stall_transfer"]), 100u);
  // Relaxed: the matmul (index 2, MXU [2, 13)) last read b: 13 - 13 = 0
  // cycles, 4 - 2 - 1 = 1 instruction. Conservative: li r1 (3, ready at
  // 4) and the matmul (ready at 13): the matmul, ready last, binds: 0.
  EXPECT_EQ(u64(dma["push_limit"]), 0u);
  EXPECT_EQ(u64(dma["backtail"]["relaxed"]["bound"]["index"]), 2u);
  EXPECT_EQ(dma["backtail"]["relaxed"]["bound"]["op"], "accel.mxu.matmul");
  EXPECT_EQ(u64(dma["backtail"]["relaxed"]["instructions"]), 1u);
  EXPECT_EQ(u64(dma["backtail"]["conservative"]["bound"]["index"]), 2u);
  EXPECT_EQ(u64(dma["backtail"]["conservative"]["cycles"]), 0u);
  // 0 < 100: no hoist (and nothing else to suggest); the refusal is
  // counted for op 4.
  EXPECT_TRUE(suggestionsFor(a->m, "hoist", 4).empty());
  EXPECT_TRUE(a->m["suggestions"].empty());
  const json &refused = a->m["dependencies"]["hoist_refused"]["4"];
  EXPECT_EQ(u64(refused["stalled"]), 1u);
  EXPECT_EQ(u64(refused["push_limit_below_stall"]), 1u);
  EXPECT_EQ(u64(refused["no_contiguous_vmem"]), 0u);
}

/// VMEM of 16 pages of 1024 bytes, all held live by a vfill at cycle 1 and
/// a vrsum at 106 over bytes [64, 16384) (page 0 shares its page with the
/// DMA's destination [0,64), which nothing else touches, so nothing binds
/// the DMA: push limit unbounded). With bucket_cycles 10 the window
/// [max(0, 4 - 100), 4 + 1) is bucket 0, where no page is free.
isa::Program makeFullVmemProgram() {
  isa::Program p = makeProgram({
      {li(7, 64), 1}, // 0  c0
      // 1  c1: one row of 4080 on 8 x 128 registers: 32 passes + 8 = 40:
      //    [1, 41)
      {vfill(7, 1, 4080, 4080, 2.0f), 2},
      {li(1, kX), 3}, // 2  c2
      {li(2, 0), 3},  // 3  c3
      // 4  x -> v[0,64) at 4 (no overlap with the vfill): complete 105.
      {dmaIssue(5, 1, 2, MemSpace::HBM, MemSpace::VMEM, 1, 16, 16, 16), 4},
      {dmaWait(5), 5}, // 5  ready 5: stall 99 + 1 = 100; at 105
      // 6  c106: sum of v[64, 16384) into v[64, 68): 8 + 32 * 2 = 72
      //    cycles, VPU [106, 178).
      {vunary(isa::Opcode::VRSum, 7, 7, 1, 4080, 4080, 1), 6},
      {halt(), 7}, // 7  c107; total max(108, 178, 105) = 178
  });
  p.buffers = {hbmBuffer("x", kX, 4096, kSeed), vmemBuffer("v", 0, 16384)};
  return p;
}

TEST(AnalyzerTest, NoHoistWithoutContiguousFreeVmem) {
  sim::MachineConfig config = configFrom(kSixteenPageConfig, kConfigName);
  isa::Program p = makeFullVmemProgram();
  auto a = analyze(p, config, /*bucketCycles=*/10);
  ASSERT_TRUE(a->ok);
  EXPECT_EQ(u64(a->m["total_cycles"]), 178u);
  const json &dma = a->m["dmas"][0];
  EXPECT_EQ(u64(dma["stall_base"]) + u64(dma["stall_transfer"]), 100u);
  EXPECT_TRUE(dma["push_limit"].is_null()); // nothing binds
  // Every page is live over [1, 106] (written at 1 by the vfill; the DMA's
  // partial write at its transfer start 104 keeps page 0 live; read at
  // 106): buckets 0..10 ([0, 110)) have no free page, buckets 11 to 17
  // ([110, 178)) are all free.
  const json &v = a->m["vmem"];
  EXPECT_EQ(u64(v["pages"]), 16u);
  EXPECT_EQ(u64(v["blocks"]), 4u);
  EXPECT_EQ(u64(v["bucket_cycles"]), 10u);
  ASSERT_EQ(v["largest_free_run_pages"].size(), 18u); // ceil(178 / 10)
  for (size_t k = 0; k < 18; ++k) {
    EXPECT_EQ(u64(v["largest_free_run_pages"][k]), k <= 10 ? 0u : 16u) << k;
    EXPECT_DOUBLE_EQ(v["free_fraction"][k].get<double>(), k <= 10 ? 0.0 : 1.0)
        << k;
  }
  EXPECT_EQ(v["heatmap"][0], (std::vector<uint32_t>{4, 4, 4, 4}));
  EXPECT_EQ(v["heatmap"][12], (std::vector<uint32_t>{0, 0, 0, 0}));
  EXPECT_DOUBLE_EQ(v["min_free_fraction"].get<double>(), 0.0);
  EXPECT_EQ(u64(v["min_largest_free_run_bytes"]), 0u);
  // The DMA's page was first written by the vfill (not a DMA): not wasted.
  EXPECT_EQ(u64(v["wasted_dma_bytes"]), 0u);
  // 0 free pages x 1024 < 64 bytes: no hoist.
  EXPECT_EQ(
      u64(a->m["dependencies"]["hoist_refused"]["4"]["no_contiguous_vmem"]),
      1u);
  EXPECT_TRUE(suggestionsFor(a->m, "hoist", 4).empty());
  EXPECT_TRUE(a->m["suggestions"].empty());
}

TEST(AnalyzerTest, HoistWithContiguousFreeVmem) {
  // The same program with 32 pages (blocks of 8): pages 16..31 stay free.
  sim::MachineConfig config = configFrom(R"json({
    "scalar": { "latency": 1 },
    "vmem": { "bytes": 32768, "page_bytes": 1024, "blocks": 4,
              "pages_per_block": 8 },
    "dma": { "links": [
      { "src": "hbm", "dst": "vmem", "base_latency": 100,
        "bytes_per_cycle": 64 } ] }
  })json",
                                         kConfigName);
  isa::Program p = makeFullVmemProgram();
  auto a = analyze(p, config, /*bucketCycles=*/10);
  ASSERT_TRUE(a->ok);
  const json &v = a->m["vmem"];
  EXPECT_EQ(u64(v["pages"]), 32u);
  EXPECT_EQ(u64(v["largest_free_run_pages"][0]), 16u);
  EXPECT_EQ(v["heatmap"][0], (std::vector<uint32_t>{8, 8, 0, 0}));
  EXPECT_DOUBLE_EQ(v["min_free_fraction"].get<double>(), 0.5);
  EXPECT_EQ(u64(v["min_largest_free_run_bytes"]), 16u * 1024);
  // 16 x 1024 >= 64 and the push limit is unbounded: hoist saving 100.
  std::vector<json> h = suggestionsFor(a->m, "hoist", 4);
  ASSERT_EQ(h.size(), 1u);
  EXPECT_EQ(u64(h[0]["expected_cycles_saved"]), 100u);
}

//===----------------------------------------------------------------------===//

} // namespace
