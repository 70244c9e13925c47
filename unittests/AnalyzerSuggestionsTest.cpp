//===- AnalyzerSuggestionsTest.cpp - Analyzer: pin, parallelize, roofline -===//
//
// Unit tests of the analyzer's other suggestions and summaries (Analyzer.h)
// through sim::Simulator runs of hand-written programs: pin, parallelize,
// the DMA-slot bound (dma.max_outstanding), the roofline and the
// utilization series.
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

// Pin
//===----------------------------------------------------------------------===//

TEST(AnalyzerTest, PinUnchangedSource) {
  sim::MachineConfig config = configFrom(kConfig, kConfigName);
  isa::Program p = makeProgram({
      {li(1, kX), 1}, // 0
      {li(2, kA), 1}, // 1
      {li(6, 0), 1},  // 2  i = 0
      {li(7, 2), 1},  // 3  n = 2
      // 4  x[0..16) -> a[0,64): at 4 (complete 105) and at 108 (complete
      //    209).
      {dmaIssue(5, 1, 2, MemSpace::HBM, MemSpace::VMEM, 1, 16, 16, 16), 10},
      {dmaWait(5), 11},    // 5  at 5 and 109: stall 99 + 1 = 100 each
      {addi(6, 6, 1), 12}, // 6
      {blt(6, 7, 4), 12},  // 7
      {halt(), 13},        // 8  c212; total 213
  });
  auto a = analyze(p, config);
  ASSERT_TRUE(a->ok);
  EXPECT_EQ(u64(a->m["total_cycles"]), 213u);
  ASSERT_EQ(a->m["dmas"].size(), 2u);
  EXPECT_EQ(u64(a->m["dmas"][1]["issue"]), 108u);
  // The repeat brings the same unchanged 64 bytes into a: pin, saving the
  // repeat's stall (100).
  std::vector<json> pin = suggestionsFor(a->m, "pin", 10);
  ASSERT_EQ(pin.size(), 1u);
  EXPECT_EQ(u64(pin[0]["expected_cycles_saved"]), 100u);
  EXPECT_EQ(u64(pin[0]["bytes"]), 64u);
  EXPECT_EQ(u64(pin[0]["instances"]), 1u);
  // The second DMA's relaxed bound is the first's WAIT (index 5, issues
  // at 105, done 106), the last writer of a: 108 - 106 = 2 cycles < 100. The
  // first is unbound: hoist of op 10 for 1 instance, saving 100.
  EXPECT_EQ(u64(a->m["dmas"][1]["push_limit"]), 2u);
  std::vector<json> h = suggestionsFor(a->m, "hoist", 10);
  ASSERT_EQ(h.size(), 1u);
  EXPECT_EQ(u64(h[0]["instances"]), 1u);
  EXPECT_EQ(u64(h[0]["expected_cycles_saved"]), 100u);
  // The repeat depends on the first DMA's completion: no parallelize.
  EXPECT_EQ(countKind(a->m, "parallelize"), 0u);
}

TEST(AnalyzerTest, NoPinWhenSourceRewritten) {
  sim::MachineConfig config = configFrom(kConfig, kConfigName);
  isa::Program p = makeProgram({
      {li(1, kX), 1}, // 0
      {li(2, kA), 1}, // 1
      {li(3, kB), 1}, // 2
      {li(6, 0), 1},  // 3
      {li(7, 2), 1},  // 4
      // 5  x[0..16) -> a
      {dmaIssue(5, 1, 2, MemSpace::HBM, MemSpace::VMEM, 1, 16, 16, 16), 10},
      {dmaWait(5), 11}, // 6
      // 7  b -> x[0..16): the next iteration's source bytes change
      {dmaIssue(8, 3, 1, MemSpace::VMEM, MemSpace::HBM, 1, 16, 16, 16), 14},
      {dmaWait(8), 15},    // 8
      {addi(6, 6, 1), 12}, // 9
      {blt(6, 7, 5), 12},  // 10
      {halt(), 13},        // 11
  });
  auto a = analyze(p, config);
  ASSERT_TRUE(a->ok);
  ASSERT_EQ(a->m["dmas"].size(), 4u);
  // Both loads stall (T_b = 100), so only the rewrite prevents the pin.
  EXPECT_GT(u64(a->m["dmas"][2]["stall_base"]), 0u);
  EXPECT_TRUE(suggestionsFor(a->m, "pin", 10).empty());
}

/// Two DMAs with the same source base, destination and size but different
/// source strides read different bytes: keeping the first's data resident
/// would not give the second's.
TEST(AnalyzerTest, PinRequiresSameSourceBytes) {
  sim::MachineConfig config = configFrom(kConfig, kConfigName);
  isa::Program p = makeProgram({
      {li(1, kX), 1}, // 0
      {li(2, kA), 1}, // 1
      // 2  x[0..16) -> a[0,64)
      {dmaIssue(5, 1, 2, MemSpace::HBM, MemSpace::VMEM, 1, 16, 16, 16), 50},
      {dmaWait(5), 51}, // 3
      // 4  x[0..8) and x[16..24) -> a[0,64): 64 bytes, same bases
      {dmaIssue(6, 1, 2, MemSpace::HBM, MemSpace::VMEM, 2, 8, 16, 8), 52},
      {dmaWait(6), 53}, // 5
      {halt(), 54},     // 6
  });
  auto a = analyze(p, config);
  ASSERT_TRUE(a->ok);
  ASSERT_EQ(a->m["dmas"].size(), 2u);
  EXPECT_GT(u64(a->m["dmas"][1]["stall_base"]), 0u);
  EXPECT_TRUE(suggestionsFor(a->m, "pin", 52).empty());
}

//===----------------------------------------------------------------------===//
// Parallelize
//===----------------------------------------------------------------------===//

/// Two independent DMAs, A and B, each waited for right after its ISSUE
/// (with enough DMA slots, B's ISSUE could move up to A's).
static isa::Program makeSerializedDmas() {
  return makeProgram({
      {li(1, kX), 1},      // 0  c0
      {li(2, kA), 1},      // 1  c1
      {li(3, kX + 64), 1}, // 2  c2
      {li(4, kB), 1},      // 3  c3
      // 4  A: x[0..16) -> a at 4, complete 105
      {dmaIssue(5, 1, 2, MemSpace::HBM, MemSpace::VMEM, 1, 16, 16, 16), 20},
      {dmaWait(5), 21}, // 5  ready 5: stall 99 + 1; at 105
      // 6  B: x[16..32) -> b at 106 (with one slot: free since 105), base
      //    end 206, complete 207
      {dmaIssue(6, 3, 4, MemSpace::HBM, MemSpace::VMEM, 1, 16, 16, 16), 22},
      {dmaWait(6), 23}, // 7  ready 107: stall base 99 + transfer 1; at 207
      {halt(), 24},     // 8  c208; total 209
  });
}

TEST(AnalyzerTest, ParallelizeIndependentDmas) {
  sim::MachineConfig config = configFrom(kConfig, kConfigName);
  isa::Program p = makeSerializedDmas();
  auto a = analyze(p, config);
  ASSERT_TRUE(a->ok);
  EXPECT_EQ(u64(a->m["total_cycles"]), 209u);
  EXPECT_EQ(u64(a->m["dmas"][1]["stall_base"]), 99u);
  // B is bound by nothing (li addresses, untouched source and destination),
  // so it does not depend on A's WAIT: parallelize B with A, saving B's
  // base-latency stall (99).
  std::vector<json> par = suggestionsFor(a->m, "parallelize", 22);
  ASSERT_EQ(par.size(), 1u);
  EXPECT_EQ(u64(par[0]["with_op_id"]), 20u);
  EXPECT_EQ(u64(par[0]["expected_cycles_saved"]), 99u);
  EXPECT_EQ(u64(par[0]["instances"]), 1u);
  EXPECT_EQ(countKind(a->m, "parallelize"), 1u);
  // Both DMAs are unbound with stall 100: two hoists; sorted by cycles
  // saved, the hoists (100) come before the parallelize (99).
  EXPECT_EQ(suggestionsFor(a->m, "hoist", 20).size(), 1u);
  EXPECT_EQ(suggestionsFor(a->m, "hoist", 22).size(), 1u);
  ASSERT_EQ(a->m["suggestions"].size(), 3u);
  EXPECT_EQ(a->m["suggestions"][2]["kind"], "parallelize");
}

/// A chain as in SnR's setup groups (§5.2.1): tables P and Q issued
/// together, X's row read from P, Y's from Q; Q's WAIT sits after X's
/// WAIT, so Y pays its base latency alone although Q was long complete.
TEST(AnalyzerTest, ParallelizeChainMovesTheWait) {
  sim::MachineConfig config = configFrom(kConfig, kConfigName);
  isa::Program p = makeProgram({
      {li(1, kX), 1},         // 0  c0
      {li(2, kA), 1},         // 1  c1
      {li(9, kIdx), 1},       // 2  c2
      {li(10, kB), 1},        // 3  c3
      {li(11, kIdx + 64), 1}, // 4  c4
      // 5  P: idx[0..16) -> a at 5: base end 105, complete 106.
      {dmaIssue(3, 9, 2, MemSpace::HBM, MemSpace::VMEM, 1, 16, 16, 16), 40},
      // 6  Q: idx[16..32) -> b at 6: base end 106, complete 107.
      {dmaIssue(8, 11, 10, MemSpace::HBM, MemSpace::VMEM, 1, 16, 16, 16), 41},
      {dmaWait(3), 42},                       // 7  stall 98 + 1; at 106
      {sld(4, 2, 8), 43},                     // 8  c107: r4 = idx[2] = 2
      {rri(isa::Opcode::Muli, 5, 4, 64), 43}, // 9  c108: r5 = 128
      {add(6, 1, 5), 43},                     // 10 c109: r6 = x + 128
      {li(7, kC), 43},                        // 11 c110
      // 12 X: x[32..48) -> c at 111: base end 211, complete 212.
      {dmaIssue(12, 6, 7, MemSpace::HBM, MemSpace::VMEM, 1, 16, 16, 16), 44},
      {dmaWait(12), 45},    // 13 c112: stall 99 + 1; at 212
      {dmaWait(8), 46},     // 14 c213: Q complete since 107, no stall
      {sld(13, 10, 4), 47}, // 15 c214: r13 = idx[17]
      {rri(isa::Opcode::Muli, 14, 13, 64), 47}, // 16 c215: r14 = 1088
      {add(15, 1, 14), 47},                     // 17 c216
      {li(16, kC + 256), 47},                   // 18 c217
      // 19 Y: x[272..288) -> c + 256 at 218: base end 318, complete 319.
      {dmaIssue(17, 15, 16, MemSpace::HBM, MemSpace::VMEM, 1, 16, 16, 16), 48},
      {dmaWait(17), 49}, // 20 c219: stall 99 + 1; at 319
      {halt(), 50},      // 21 c320; total 321
  });
  auto a = analyze(p, config);
  ASSERT_TRUE(a->ok);
  EXPECT_EQ(u64(a->m["total_cycles"]), 321u);
  EXPECT_EQ(u64(a->m["dmas"][3]["issue"]), 218u);
  EXPECT_EQ(u64(a->m["dmas"][3]["stall_base"]), 99u);
  // Y's relaxed bound is Q's WAIT (index 14, after X's WAIT at 13), but Q
  // completed at 107, before X's ISSUE at 111: parallelize Y with X, moving
  // Q's WAIT (op 46) up before X; saved min(99, 218 - 111) = 99.
  std::vector<json> par = suggestionsFor(a->m, "parallelize", 48);
  ASSERT_EQ(par.size(), 1u);
  EXPECT_EQ(u64(par[0]["with_op_id"]), 44u);
  EXPECT_EQ(u64(par[0]["wait_op_id"]), 46u);
  EXPECT_EQ(u64(par[0]["expected_cycles_saved"]), 99u);
  EXPECT_NE(par[0]["reason"].get<std::string>().find(
                "its data comes from the DMA of op 41, complete before op 44 "
                "was issued: its WAIT, op 46, moves up before op 44"),
            std::string::npos)
      << par[0]["reason"];
  // X really needs P, which completes (106) after Q's ISSUE (6); Q was
  // issued with P already: neither is suggested.
  EXPECT_EQ(countKind(a->m, "parallelize"), 1u);
}

//===----------------------------------------------------------------------===//
// DMA slots (dma.max_outstanding)
//===----------------------------------------------------------------------===//

/// kConfig with `slots` DMA slots.
std::string slotConfig(unsigned slots) {
  return R"json({
    "scalar": { "latency": 1 },
    "dma": { "max_outstanding": )json" +
         std::to_string(slots) + R"json(, "links": [
      { "src": "hbm", "dst": "vmem", "base_latency": 100, "bytes_per_cycle": 64 },
      { "src": "vmem", "dst": "hbm", "base_latency": 100, "bytes_per_cycle": 64 }
    ] }
  })json";
}

TEST(AnalyzerTest, SlotStallIsReportedAndHoistIntoFullSlotsRefused) {
  sim::MachineConfig config = configFrom(slotConfig(2), kConfigName);
  isa::Program p = makeProgram({
      {li(1, kX), 1}, // 0  c0
      {li(2, kA), 1}, // 1  c1
      {li(3, kB), 1}, // 2  c2
      {li(4, kC), 1}, // 3  c3
      // 4  A: x -> a (64 bytes) at 4: base end 104, complete 105.
      {dmaIssue(5, 1, 2, MemSpace::HBM, MemSpace::VMEM, 1, 16, 16, 16), 30},
      // 5  B: x -> b at 5: base end 105, link free at 105, complete 106.
      {dmaIssue(6, 1, 3, MemSpace::HBM, MemSpace::VMEM, 1, 16, 16, 16), 31},
      // 6  C: x -> c, ready 6 with both slots taken until A completes at
      //    105: 99 cycles of dma_slots; base end 205, complete 206.
      {dmaIssue(7, 1, 4, MemSpace::HBM, MemSpace::VMEM, 1, 16, 16, 16), 32},
      {dmaWait(5), 33}, // 7  ready 106 >= 105: slack 1
      {dmaWait(6), 34}, // 8  ready 107 >= 106: slack 1
      {dmaWait(7), 35}, // 9  ready 108: stall base 205 - 108 = 97 + 1
      {halt(), 36},     // 10 c207; total 208
  });
  auto a = analyze(p, config);
  ASSERT_TRUE(a->ok);
  EXPECT_EQ(u64(a->m["total_cycles"]), 208u);
  EXPECT_EQ(u64(a->m["stall_cycles"]["dma_slots"]), 99u);
  EXPECT_EQ(u64(a->m["dma_slots"]["max_outstanding"]), 2u);
  EXPECT_EQ(u64(a->m["dma_slots"]["stall_cycles"]), 99u);
  EXPECT_EQ(u64(a->m["dma_slots"]["stalled_issues"]), 1u);
  const json &c = a->m["ops"]["32"];
  EXPECT_EQ(u64(c["stall_slots"]), 99u);
  EXPECT_EQ(u64(c["slot_stalled_issues"]), 1u);
  EXPECT_EQ(u64(c["stall_cycles"]["dma_slots"]), 99u);
  EXPECT_EQ(u64(c["stall_base"]), 97u);
  EXPECT_EQ(u64(c["stall_transfer"]), 1u);
  EXPECT_EQ(u64(a->m["ops"]["30"]["stall_slots"]), 0u);
  EXPECT_EQ(u64(a->m["dmas"][2]["issue"]), 105u);
  // C's WAIT stalled 98; its push limit is unbounded and VMEM is free, so
  // Algorithm 2 alone would hoist it to 105 - 98 = 7. Over [7, 105) A and
  // B hold both slots: the ISSUE cannot move at all, so no hoist.
  EXPECT_TRUE(suggestionsFor(a->m, "hoist", 32).empty());
  EXPECT_EQ(
      u64(a->m["dependencies"]["hoist_refused"]["32"]["no_free_dma_slot"]), 1u);
  EXPECT_EQ(a->m["suggestions"].size(), 0u);

  std::string report;
  llvm::raw_string_ostream os(report);
  writeReport(a->m, os);
  EXPECT_NE(report.find("DMA slot stalls:     99 (47.6% of the run): ISSUEs "
                        "waiting for a free DMA slot, max_outstanding = 2"),
            std::string::npos)
      << report;
  EXPECT_NE(report.find("op 32 accel.dma.issue at analyzer.mlir:32:5: 1 of 1 "
                        "ISSUE(s) waited 99 cycles for a free DMA slot"),
            std::string::npos)
      << report;
}

// ParallelizeIndependentDmas on one DMA slot: A holds the only slot over
// [4, 105), so B (issued at 106) can move back only to 105.
TEST(AnalyzerTest, SlotLimitCapsParallelizeAndHoist) {
  sim::MachineConfig config = configFrom(slotConfig(1), kConfigName);
  isa::Program p = makeSerializedDmas();
  auto a = analyze(p, config);
  ASSERT_TRUE(a->ok);
  EXPECT_EQ(u64(a->m["total_cycles"]), 209u);
  EXPECT_EQ(u64(a->m["stall_cycles"]["dma_slots"]), 0u);
  // With 64 slots this saves 99 (ParallelizeIndependentDmas); here B moves
  // from 106 back to 105 at most: 1 cycle.
  std::vector<json> par = suggestionsFor(a->m, "parallelize", 22);
  ASSERT_EQ(par.size(), 1u);
  EXPECT_EQ(u64(par[0]["expected_cycles_saved"]), 1u);
  // Hoists: A (nothing in flight before it) saves its whole stall, 100; B
  // only 106 - 105 = 1 of its 100.
  std::vector<json> hA = suggestionsFor(a->m, "hoist", 20);
  std::vector<json> hB = suggestionsFor(a->m, "hoist", 22);
  ASSERT_EQ(hA.size(), 1u);
  ASSERT_EQ(hB.size(), 1u);
  EXPECT_EQ(u64(hA[0]["expected_cycles_saved"]), 100u);
  EXPECT_EQ(u64(hB[0]["expected_cycles_saved"]), 1u);
}

//===----------------------------------------------------------------------===//
// Roofline and utilization
//===----------------------------------------------------------------------===//

TEST(AnalyzerTest, Roofline) {
  // MXU 4 x 4; links at 8 bytes/cycle.
  sim::MachineConfig config = configFrom(R"json({
    "scalar": { "latency": 1 },
    "mxu": { "rows": 4, "cols": 4 },
    "dma": { "links": [
      { "src": "hbm", "dst": "vmem", "base_latency": 100, "bytes_per_cycle": 8 },
      { "src": "vmem", "dst": "hbm", "base_latency": 100, "bytes_per_cycle": 8 }
    ] }
  })json",
                                         kConfigName);
  // C[8x4] = A[8x8] * B[8x4]: M = 8, N = 4, K = 8.
  isa::Program p = makeProgram({
      {li(1, kX), 1},       // 0  c0
      {li(2, kA), 1},       // 1  c1
      {li(3, kX + 256), 1}, // 2  c2
      {li(4, kB), 1},       // 3  c3
      {li(5, kC), 1},       // 4  c4
      {li(6, kOut), 1},     // 5  c5
      // 6  A: 8x8 = 256 bytes at 6: base end 106, transfer 256/8 = 32:
      //    link [106, 138)
      {dmaIssue(7, 1, 2, MemSpace::HBM, MemSpace::VMEM, 8, 8, 8, 8), 30},
      // 7  B: 8x4 = 128 bytes at 7: base end 107, link free at 138:
      //    [138, 154)
      {dmaIssue(8, 3, 4, MemSpace::HBM, MemSpace::VMEM, 8, 4, 4, 4), 31},
      {dmaWait(7), 34}, // 8  ready 8: resumes 138
      {dmaWait(8), 34}, // 9  ready 139: resumes 154
      // 10 c155: folds ceil(8/4) * ceil(4/4) = 2 (ws, overlap):
      //    4 + 1 * max(8, 4) + 8 + (4 + 4 - 2) - 1 = 25: MXU [155, 180)
      {matmul(5, 2, 4, 8, 4, 8, 8, 4), 32},
      // 11 C -> out, 128 bytes: reads what the matmul writes: at 180;
      //    base end 280, link [280, 296)
      {dmaIssue(9, 5, 6, MemSpace::VMEM, MemSpace::HBM, 8, 4, 4, 4), 33},
      {dmaWait(9), 34}, // 12 ready 181: resumes 296
      {halt(), 35},     // 13 c297; total max(298, 180, 296) = 298
  });
  auto a = analyze(p, config);
  ASSERT_TRUE(a->ok);
  EXPECT_EQ(u64(a->m["total_cycles"]), 298u);
  const json &r = a->m["roofline"];
  // Peak 2 * 4 * 4 = 32 FLOPs/cycle; HBM the default 1142.857 B/cycle,
  // the hbm->vmem link 8: loads get 8 B/cycle; balance 32 / 8 = 4.
  EXPECT_DOUBLE_EQ(r["peak_flops_per_cycle"].get<double>(), 32.0);
  EXPECT_DOUBLE_EQ(r["hbm_bytes_per_cycle"].get<double>(), 1142.857);
  EXPECT_DOUBLE_EQ(r["load_bytes_per_cycle"].get<double>(), 8.0);
  EXPECT_DOUBLE_EQ(r["machine_balance_flops_per_byte"].get<double>(), 4.0);
  // Busy cycles per track: scalar 6 li [0, 6) + halt [297, 298) = 7;
  // MXU 25; hbm->vmem 32 + 16 = 48; vmem->hbm 128 / 8 = 16; VPU 0.
  const json &req = r["required_cycles"];
  EXPECT_EQ(u64(req["scalar"]), 7u);
  EXPECT_EQ(u64(req["mxu"]), 25u);
  EXPECT_EQ(u64(req["vpu"]), 0u);
  EXPECT_EQ(u64(req["dma:hbm->vmem"]), 48u);
  EXPECT_EQ(u64(req["dma:vmem->hbm"]), 16u);
  EXPECT_EQ(u64(r["lower_bound_cycles"]), 48u);
  EXPECT_EQ(r["bound_by"], "dma:hbm->vmem");
  EXPECT_EQ(u64(r["measured_cycles"]), 298u);
  // 298 / 48 = 6.208333... -> 6.2083.
  EXPECT_DOUBLE_EQ(r["measured_over_bound"].get<double>(), 6.2083);
  // Dataflow (true dependences, unlimited units, scalar work free): A is
  // ready at 0 + T_b 100 + 256/8 = 132, B at 100 + 16 = 116; the matmul
  // starts at max(132, 116) and ends at 132 + 25 = 157; the store ends at
  // 157 + 100 + 16 = 273: the critical path.
  EXPECT_EQ(u64(r["critical_path_cycles"]), 273u);
  // Heads: the load link's first transfer can start at 0 + 100 (then 48
  // busy: 148), the MXU at 132 (157), the store link at 257 (273).
  const json &heads = r["head_cycles"];
  EXPECT_EQ(u64(heads["dma:hbm->vmem"]), 100u);
  EXPECT_EQ(u64(heads["mxu"]), 132u);
  EXPECT_EQ(u64(heads["dma:vmem->hbm"]), 257u);
  EXPECT_FALSE(heads.contains("vpu")); // no VPU work
  // Tails: after A's or B's transfer, the matmul (25) and the store
  // (100 + 16) still follow: 141; after the matmul, 116; after the store, 0.
  const json &tails = r["tail_cycles"];
  EXPECT_EQ(u64(tails["dma:hbm->vmem"]), 141u);
  EXPECT_EQ(u64(tails["mxu"]), 116u);
  EXPECT_EQ(u64(tails["dma:vmem->hbm"]), 0u);
  // One release date per track here, so each track's bound is head + busy
  // + smallest tail: 100 + 48 + 141 = 289 (the load link must carry both
  // loads, and whichever ends last still needs the matmul and the store),
  // 132 + 25 + 116 = 273, 257 + 16 + 0 = 273.
  const json &rel = r["release_bound_cycles"];
  EXPECT_EQ(u64(rel["dma:hbm->vmem"]), 289u);
  EXPECT_EQ(u64(rel["mxu"]), 273u);
  EXPECT_EQ(u64(rel["dma:vmem->hbm"]), 273u);
  EXPECT_EQ(u64(r["latency_lower_bound_cycles"]), 289u);
  EXPECT_EQ(r["latency_bound_by"], "dma:hbm->vmem with heads and tails");
  // 298 / 289 = 1.03114... -> 1.0311.
  EXPECT_DOUBLE_EQ(r["measured_over_latency_bound"].get<double>(), 1.0311);
  // Per op: matmul 2 * M * N * K = 2 * 8 * 4 * 8 = 512 FLOPs and no bytes;
  // the loads 256 and 128 bytes in, the store 128 bytes out.
  const json &ops = r["ops"];
  EXPECT_EQ(ops.size(), 4u); // ops 1, 34, 35 move nothing
  EXPECT_EQ(u64(ops["32"]["flops"]), 512u);
  EXPECT_EQ(u64(ops["32"]["bytes_in"]), 0u);
  EXPECT_EQ(u64(ops["32"]["bytes_out"]), 0u);
  EXPECT_TRUE(ops["32"]["operational_intensity"].is_null());
  EXPECT_EQ(ops["32"]["bound"], "compute");
  EXPECT_EQ(u64(ops["30"]["flops"]), 0u);
  EXPECT_EQ(u64(ops["30"]["bytes_in"]), 256u);
  EXPECT_EQ(u64(ops["30"]["bytes_out"]), 0u);
  EXPECT_EQ(ops["30"]["bound"], "memory");
  EXPECT_EQ(u64(ops["31"]["bytes_in"]), 128u);
  EXPECT_EQ(u64(ops["33"]["bytes_in"]), 0u);
  EXPECT_EQ(u64(ops["33"]["bytes_out"]), 128u);
  // The function: 512 FLOPs over 384 + 128 = 512 bytes: intensity 1 < 4.
  const json &fn = r["regions"]["function"];
  EXPECT_EQ(u64(fn["flops"]), 512u);
  EXPECT_EQ(u64(fn["bytes_in"]), 384u);
  EXPECT_EQ(u64(fn["bytes_out"]), 128u);
  EXPECT_DOUBLE_EQ(fn["operational_intensity"].get<double>(), 1.0);
  EXPECT_EQ(fn["bound"], "memory");
}

TEST(AnalyzerTest, ReleaseDateBound) {
  // VPU: 1 x 8 registers, 2 cycles of pipeline, 1 pass per row of 8; the
  // load link: T_b 100, 8 bytes/cycle.
  sim::MachineConfig config = configFrom(R"json({
    "scalar": { "latency": 1 },
    "vpu": { "sublanes": 1, "lanes": 8, "pipeline_depth": 2 },
    "dma": { "links": [
      { "src": "hbm", "dst": "vmem", "base_latency": 100, "bytes_per_cycle": 8 },
      { "src": "vmem", "dst": "hbm", "base_latency": 100, "bytes_per_cycle": 8 }
    ] }
  })json",
                                         kConfigName);
  isa::Program p = makeProgram({
      {li(1, kX), 1},
      {li(2, kA), 1},
      {li(3, kB), 1},
      {li(4, kC), 1},
      // An 8x8 fill of C, free of dependences: released at 0, busy
      // 2 + 8 rows x 1 = 10 cycles.
      {vfill(4, 8, 8, 8, 1.0f), 2},
      // x -> A, 256 bytes: ready at 0 + 100 + 32 = 132.
      {dmaIssue(5, 1, 2, MemSpace::HBM, MemSpace::VMEM, 8, 8, 8, 8), 3},
      {dmaWait(5), 4},
      // Two 8x8 adds reading A, independent of each other: both released
      // at 132, 10 cycles each.
      {vadd(3, 2, 2, 8, 8, 8, 8, 8), 5},
      {vadd(4, 2, 2, 8, 8, 8, 8, 8), 6},
      {halt(), 7},
  });
  auto a = analyze(p, config);
  ASSERT_TRUE(a->ok);
  const json &r = a->m["roofline"];
  EXPECT_EQ(u64(r["required_cycles"]["vpu"]), 30u);
  // The critical path: 132 + 10 (the adds do not depend on each other).
  EXPECT_EQ(u64(r["critical_path_cycles"]), 142u);
  // Head + busy would give 0 + 30; with release dates, the two adds need
  // 20 cycles of the one VPU after 132: max(0 + 30, 132 + 20) = 152.
  EXPECT_EQ(u64(r["head_cycles"]["vpu"]), 0u);
  EXPECT_EQ(u64(r["release_bound_cycles"]["vpu"]), 152u);
  EXPECT_EQ(u64(r["latency_lower_bound_cycles"]), 152u);
  // Nothing reads what the VPU writes: every tail is 0.
  EXPECT_EQ(u64(r["tail_cycles"]["vpu"]), 0u);
  EXPECT_EQ(r["latency_bound_by"], "vpu with heads and tails");
}

TEST(AnalyzerTest, UtilizationSeries) {
  sim::MachineConfig config = configFrom(R"json({
    "scalar": { "latency": 1 },
    "mxu": { "rows": 4, "cols": 4 },
    "dma": { "links": [
      { "src": "hbm", "dst": "vmem", "base_latency": 100,
        "bytes_per_cycle": 64 } ] }
  })json",
                                         kConfigName);
  isa::Program p = makeProgram({
      {li(3, kB), 1}, // 0  c0
      {li(4, kC), 1}, // 1  c1
      // 2  c2: M = 8, N = 4, K = 8 on 4 x 4 (ws, overlap; 2 folds):
      //    4 + 8 + 8 + 6 - 1 = 25: MXU [2, 27)
      {matmul(4, 3, 3, 8, 4, 8, 8, 4), 2},
      {li(1, kX), 3}, // 3  c3
      {li(2, kA), 3}, // 4  c4
      // 5  c5: base end 105, link [105, 106)
      {dmaIssue(5, 1, 2, MemSpace::HBM, MemSpace::VMEM, 1, 16, 16, 16), 4},
      {dmaWait(5), 5}, // 6  ready 6: resumes 106
      {halt(), 6},     // 7  c107; total max(108, 27, 106) = 108
  });
  auto a = analyze(p, config, /*bucketCycles=*/20);
  ASSERT_TRUE(a->ok);
  EXPECT_EQ(u64(a->m["total_cycles"]), 108u);
  const json &u = a->m["utilization"];
  EXPECT_EQ(u64(u["bucket_cycles"]), 20u);
  EXPECT_EQ(u64(u["buckets"]), 6u); // ceil(108 / 20)
  // MXU [2, 27): bucket [0,20) 18/20 = 0.9, [20,40) 7/20 = 0.35, then 0;
  // the last bucket [100,108) is 8 wide.
  const json &mxu = u["units"]["mxu"];
  EXPECT_EQ(u64(mxu["busy_cycles"]), 25u);
  EXPECT_DOUBLE_EQ(mxu["utilization"].get<double>(), 0.2315); // 25/108
  std::vector<double> expectMxu = {0.9, 0.35, 0, 0, 0, 0};
  ASSERT_EQ(mxu["series"].size(), 6u);
  for (size_t k = 0; k < 6; ++k)
    EXPECT_DOUBLE_EQ(mxu["series"][k].get<double>(), expectMxu[k]) << k;
  // Scalar: [0, 2) op 1, [3, 5) op 3, halt [107, 108): 4/20 = 0.2 in the
  // first bucket, 1/8 = 0.125 in the last.
  const json &scalar = u["units"]["scalar"];
  EXPECT_EQ(u64(scalar["busy_cycles"]), 5u);
  std::vector<double> expectScalar = {0.2, 0, 0, 0, 0, 0.125};
  for (size_t k = 0; k < 6; ++k)
    EXPECT_DOUBLE_EQ(scalar["series"][k].get<double>(), expectScalar[k]) << k;
  // Link [105, 106): 1/8 of the last bucket.
  const json &link = u["units"]["dma:hbm->vmem"];
  EXPECT_EQ(u64(link["busy_cycles"]), 1u);
  EXPECT_DOUBLE_EQ(link["series"][5].get<double>(), 0.125);
  EXPECT_DOUBLE_EQ(link["series"][0].get<double>(), 0.0);
  // Per op: the matmul's 25 MXU cycles, the DMA's 1 link cycle.
  EXPECT_EQ(u64(u["per_op"]["2"]["mxu"]), 25u);
  EXPECT_EQ(u64(u["per_op"]["4"]["dma:hbm->vmem"]), 1u);
  EXPECT_EQ(u64(u["per_op"]["1"]["scalar"]), 2u);
  EXPECT_EQ(u64(u["per_op"]["3"]["scalar"]), 2u);
}

} // namespace
