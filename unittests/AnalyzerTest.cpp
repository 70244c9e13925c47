//===- AnalyzerTest.cpp - Analyzer: VMEM, dependencies, suggestions
//--------===//
//
// Unit tests of the analyzer of SnR §5.2-§5.4 (Analyzer.h): RangeMap,
// VmemTracker (Fig. 8), DependencyTracker (Fig. 9, conservative vs relaxed),
// and, through sim::Simulator runs of hand-written programs, Algorithm 2
// (hoist), pin, parallelize, the roofline and utilization series.
//
// Timing rules used for the expected values (Simulator.cpp header):
//  - the first instruction issues at cycle 0, each next one at the previous
//    issue + scalar latency (1 here) at best; an instruction that touches
//    VMEM an in-flight MXU/VPU op writes (or writes what it reads) waits for
//    that op's end (data hazard);
//  - DMA: baseEnd = issue + T_b, transferStart = max(baseEnd, link free),
//    complete = transferStart + ceil(bytes / bytes_per_cycle);
//  - WAIT at w (= previous issue + 1): w < baseEnd: stallBase = baseEnd - w,
//    stallTransfer = complete - baseEnd; resumes (issues) at max(w, complete);
//  - MXU latency = ceil(K/R) * ceil(N/C) * (R + M) + C;
//  - VPU latency = pipeline_depth (8) + ceil(rows*cols / lanes (1024)) * cost
//    (simple 1, reduce 2);
//  - total = max(halt issue + 1, units free, DMA drain).
// Analyzer rules (Analyzer.h, AnalyzerReport.cpp):
//  - backtail of a DMA ISSUE at dynamic index i bound by index j:
//    instructions = i - j - 1, cycles = issue(i) - done(j), where done(j)
//    is the end of an MXU/VPU op and issue(j) + 1 otherwise; with no
//    bound: instructions = i, cycles = issue(i) - issue(0);
//  - push_limit = the relaxed backtail's cycles (null when nothing binds);
//  - hoist when stall > 0, push_limit >= stall (or null) and the smallest
//    largest-free-VMEM-run over the buckets overlapping
//    [issue - stall, issue + 1) holds the DMA's bytes.
//
//===----------------------------------------------------------------------===//

#include "accel/Analysis/Analyzer.h"
#include "accel/Analysis/DmaStallAnalysis.h"
#include "accel/Analysis/RangeMap.h"
#include "accel/Sim/Simulator.h"

#include "TestPrograms.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <memory>
#include <string>
#include <vector>

using namespace accel;
using namespace accel::analysis;
using namespace accel::test;
using isa::MemSpace;
using json = nlohmann::json;

namespace {

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

// Address map (besides kX, kA, kB, kC of TestPrograms.h):
constexpr uint64_t kOut = 0x20000; // HBM output, 4 KiB, zeros
constexpr uint64_t kIdx = 0x30000; // HBM iota table: element i holds int i

/// One instruction and the op id of its origin.
struct Line {
  isa::Inst inst;
  uint32_t op;
};

/// A program with one origin per instruction (name from the mnemonic, loc
/// "analyzer.mlir:OP:5") and the buffers x, out, idx (HBM) and a, b, c
/// (VMEM, 4 KiB each).
isa::Program makeProgram(const std::vector<Line> &lines) {
  isa::Program p;
  p.name = "analyzer-test";
  for (const Line &l : lines) {
    p.code.push_back(l.inst);
    isa::Origin o;
    o.opId = l.op;
    o.opName = std::string("accel.") + isa::info(l.inst.op).mnemonic;
    o.loc = "analyzer.mlir:" + std::to_string(l.op) + ":5";
    p.origins.push_back(o);
  }
  isa::Buffer idx = hbmBuffer("idx", kIdx, 4096, 0);
  idx.iota = true;
  p.buffers = {hbmBuffer("x", kX, 4096, kSeed),
               hbmBuffer("out", kOut, 4096, 0, /*zero=*/true),
               idx,
               vmemBuffer("a", kA, 4096),
               vmemBuffer("b", kB, 4096),
               vmemBuffer("c", kC, 4096)};
  return p;
}

constexpr const char *kConfigName = "analyzer-test.json";

constexpr const char *kConfig = kTwoLinkConfig;

/// kConfig with a 4 x 4 MXU.
constexpr const char *kSmallMxuConfig = R"json({
  "scalar": { "latency": 1 },
  "mxu": { "rows": 4, "cols": 4 },
  "dma": { "links": [
    { "src": "hbm", "dst": "vmem", "base_latency": 100, "bytes_per_cycle": 64 },
    { "src": "vmem", "dst": "hbm", "base_latency": 100, "bytes_per_cycle": 64 }
  ] }
})json";

/// A run with the DmaStallCollector and the Analyzer attached, and the
/// metrics of buildMetrics + Analyzer::addToMetrics.
struct Analysis {
  DmaStallCollector collector;
  std::unique_ptr<Analyzer> analyzer;
  sim::RunSummary summary;
  json m;
  bool ok = false;
};

std::unique_ptr<Analysis> analyze(const isa::Program &p,
                                  const sim::MachineConfig &config,
                                  uint64_t bucketCycles = 0) {
  auto a = std::make_unique<Analysis>();
  a->analyzer = std::make_unique<Analyzer>(p, config);
  sim::Simulator sim(config, p);
  sim.addObserver(&a->collector);
  sim.addObserver(a->analyzer.get());
  auto r = sim.run();
  EXPECT_TRUE(bool(r)) << (r ? "" : llvm::toString(r.takeError()));
  if (!r)
    return a;
  a->summary = *r;
  a->m = buildMetrics(p, config, *r, a->collector);
  AnalyzerOptions options;
  options.bucketCycles = bucketCycles;
  a->analyzer->addToMetrics(a->m, options);
  a->ok = true;
  return a;
}

/// The suggestions of `kind` for `op`.
std::vector<json> suggestionsFor(const json &m, const std::string &kind,
                                 uint32_t op) {
  std::vector<json> out;
  for (const json &s : m["suggestions"])
    if (s["kind"] == kind && s["op_id"].get<uint32_t>() == op)
      out.push_back(s);
  return out;
}
size_t countKind(const json &m, const std::string &kind) {
  size_t n = 0;
  for (const json &s : m["suggestions"])
    n += s["kind"] == kind;
  return n;
}

uint64_t u64(const json &j) { return j.get<uint64_t>(); }

/// Values of the ranges of `m` overlapping [b, e), in address order.
std::vector<int64_t> overlaps(const RangeMap<int64_t> &m, uint64_t b,
                              uint64_t e) {
  std::vector<int64_t> out;
  m.forEachOverlap(b, e, [&](int64_t v) { out.push_back(v); });
  return out;
}
using V = std::vector<int64_t>;

sim::AddrRange vmemRange(uint64_t b, uint64_t e) {
  return {MemSpace::VMEM, b, e};
}
sim::AddrRange hbmRange(uint64_t b, uint64_t e) {
  return {MemSpace::HBM, b, e};
}

//===----------------------------------------------------------------------===//
// RangeMap
//===----------------------------------------------------------------------===//

TEST(RangeMapTest, AssignOverwriteSplit) {
  RangeMap<int64_t> m;
  EXPECT_TRUE(m.empty());
  EXPECT_EQ(overlaps(m, 0, 1000), V{});
  m.assign(5, 5, 9);  // empty: no-op
  m.assign(10, 5, 9); // reversed: no-op
  EXPECT_TRUE(m.empty());

  // [0,100)=1, then [20,40)=2 splits it: [0,20)=1 [20,40)=2 [40,100)=1.
  m.assign(0, 100, 1);
  m.assign(20, 40, 2);
  EXPECT_FALSE(m.empty());
  EXPECT_EQ(overlaps(m, 0, 100), (V{1, 2, 1}));
  EXPECT_EQ(overlaps(m, 10, 50), (V{1, 2, 1}));
  EXPECT_EQ(overlaps(m, 19, 20), (V{1})); // last byte of the left part
  EXPECT_EQ(overlaps(m, 20, 21), (V{2})); // first byte of the middle
  EXPECT_EQ(overlaps(m, 39, 40), (V{2}));
  EXPECT_EQ(overlaps(m, 40, 41), (V{1})); // first byte of the right part
  EXPECT_EQ(overlaps(m, 20, 40), (V{2}));
  EXPECT_EQ(overlaps(m, 99, 100), (V{1}));
  EXPECT_EQ(overlaps(m, 100, 200), V{}); // past the end

  // [10,60)=3 overwrites all of 2 and parts of both 1s:
  // [0,10)=1 [10,60)=3 [60,100)=1.
  m.assign(10, 60, 3);
  EXPECT_EQ(overlaps(m, 0, 100), (V{1, 3, 1}));
  EXPECT_EQ(overlaps(m, 9, 10), (V{1}));
  EXPECT_EQ(overlaps(m, 10, 11), (V{3}));
  EXPECT_EQ(overlaps(m, 59, 61), (V{3, 1}));
  // Exactly the same range: replaced, no split: [10,60)=4.
  m.assign(10, 60, 4);
  EXPECT_EQ(overlaps(m, 0, 100), (V{1, 4, 1}));

  // A disjoint range leaves a gap [100,150).
  m.assign(150, 200, 5);
  EXPECT_EQ(overlaps(m, 90, 160), (V{1, 5}));
  EXPECT_EQ(overlaps(m, 100, 150), V{});
  EXPECT_EQ(overlaps(m, 0, 1000), (V{1, 4, 1, 5}));

  // [5,170)=6 covers the gap, 4, the right 1 and the start of 5:
  // [0,5)=1 [5,170)=6 [170,200)=5.
  m.assign(5, 170, 6);
  EXPECT_EQ(overlaps(m, 0, 1000), (V{1, 6, 5}));
  EXPECT_EQ(overlaps(m, 169, 170), (V{6}));
  EXPECT_EQ(overlaps(m, 170, 171), (V{5}));

  // Adjacent: [200,210)=7 right after [170,200)=5.
  m.assign(200, 210, 7);
  EXPECT_EQ(overlaps(m, 199, 201), (V{5, 7}));
  EXPECT_EQ(overlaps(m, 210, 300), V{});

  // Split of the first range only on its left: [0,3)=8 [3,5)=1.
  m.assign(0, 3, 8);
  EXPECT_EQ(overlaps(m, 0, 6), (V{8, 1, 6}));
  EXPECT_EQ(overlaps(m, 0, 1000), (V{8, 1, 6, 5, 7}));
}

//===----------------------------------------------------------------------===//
// VmemTracker
//===----------------------------------------------------------------------===//

/// 16 pages of 1024 bytes. Lifetimes (live over [write, last read]):
///   page 3:     DMA op 7 writes the whole page at 1; a partial write by op 8
///               at 8 keeps it live (and counts as a use)     -> [1, 8]
///   pages 0-1:  DMA op 1 at 2; read [1000, 1100) at 15       -> [2, 15]
///   page 7:     read at 3, never written: no lifetime
///   pages 8-11: DMA op 3 at 5, never read, overwritten by DMA op 4 at 20
///               -> no lifetime, 4 x 1024 = 4096 wasted bytes of op 3;
///               then read at 22                              -> [20, 22]
///   page 5:     non-DMA op 2 at 12; read at 25 and 30        -> [12, 30]
///   page 14:    non-DMA op 5 at 30, never read: no lifetime, not wasted
///   page 15:    DMA op 6 at 35, never read: 1024 wasted bytes of op 6
void fillCraftedPattern(VmemTracker &v) {
  v.write(3072, 4096, 1, 7, true);
  v.write(0, 2048, 2, 1, true);
  v.read(7168, 7200, 3);
  v.write(8192, 12288, 5, 3, true);
  v.write(3072, 3100, 8, 8, false);
  v.write(5120, 6144, 12, 2, false);
  v.read(1000, 1100, 15);
  v.write(8192, 12288, 20, 4, true);
  v.read(8192, 12288, 22);
  v.read(5120, 5124, 25);
  v.read(6000, 6100, 30);
  v.write(14336, 15360, 30, 5, false);
  v.write(15360, 16384, 35, 6, true);
}

TEST(VmemTrackerTest, CraftedPatternBuckets) {
  VmemTracker v(16 * 1024, 1024);
  EXPECT_EQ(v.pageCount(), 16u);
  EXPECT_EQ(v.getPageBytes(), 1024u);
  fillCraftedPattern(v);
  // Before finish, only op 3's overwritten pages are known to be wasted.
  EXPECT_EQ(v.wastedBytes(), (std::map<uint32_t, uint64_t>{{3, 4096}}));
  v.finish();
  // Page 15 (op 6) is closed unread at the end; page 14 (op 5, not a DMA)
  // and the partially rewritten page 3 (op 7) are not wasted.
  EXPECT_EQ(v.wastedBytes(),
            (std::map<uint32_t, uint64_t>{{3, 4096}, {6, 1024}}));

  // Buckets of 10 cycles over [0, 40): 4 buckets; 4 blocks of 4 pages.
  std::vector<VmemTracker::Bucket> b = v.buckets(10, 40, 4);
  ASSERT_EQ(b.size(), 4u);
  // Bucket 0 [0,10): pages 0, 1 ([2,15]) and 3 ([1,8]): 3 used;
  // free 13/16; free runs: page 2 (1), pages 4..15 (12).
  EXPECT_EQ(b[0].start, 0u);
  EXPECT_EQ(b[0].usedPages, 3u);
  EXPECT_DOUBLE_EQ(b[0].freeFraction, 13.0 / 16.0);
  EXPECT_EQ(b[0].largestFreeRun, 12u);
  EXPECT_EQ(b[0].blockUsed, (std::vector<uint32_t>{3, 0, 0, 0}));
  // Bucket 1 [10,20): pages 0, 1 and 5 ([12,30]); runs 2..4 (3), 6..15 (10).
  EXPECT_EQ(b[1].start, 10u);
  EXPECT_EQ(b[1].usedPages, 3u);
  EXPECT_DOUBLE_EQ(b[1].freeFraction, 13.0 / 16.0);
  EXPECT_EQ(b[1].largestFreeRun, 10u);
  EXPECT_EQ(b[1].blockUsed, (std::vector<uint32_t>{2, 1, 0, 0}));
  // Bucket 2 [20,30): page 5 and pages 8..11 ([20,22]): 5 used, free 11/16;
  // runs 0..4 (5), 6..7 (2), 12..15 (4).
  EXPECT_EQ(b[2].start, 20u);
  EXPECT_EQ(b[2].usedPages, 5u);
  EXPECT_DOUBLE_EQ(b[2].freeFraction, 11.0 / 16.0);
  EXPECT_EQ(b[2].largestFreeRun, 5u);
  EXPECT_EQ(b[2].blockUsed, (std::vector<uint32_t>{0, 1, 4, 0}));
  // Bucket 3 [30,40): page 5 only (its last read at 30 starts the bucket);
  // pages 14 and 15 were never read: not live. Runs 0..4 (5), 6..15 (10).
  EXPECT_EQ(b[3].start, 30u);
  EXPECT_EQ(b[3].usedPages, 1u);
  EXPECT_DOUBLE_EQ(b[3].freeFraction, 15.0 / 16.0);
  EXPECT_EQ(b[3].largestFreeRun, 10u);
  EXPECT_EQ(b[3].blockUsed, (std::vector<uint32_t>{0, 1, 0, 0}));

  // Buckets of 20 cycles, 2 blocks of 8 pages.
  // [0,20): pages 0, 1, 3, 5 -> 4 used, blocks {4, 0}; run 6..15 (10).
  // [20,40): pages 5, 8..11 -> 5 used, blocks {1, 4}; runs 0..4 (5) max.
  std::vector<VmemTracker::Bucket> c = v.buckets(20, 40, 2);
  ASSERT_EQ(c.size(), 2u);
  EXPECT_EQ(c[0].usedPages, 4u);
  EXPECT_EQ(c[0].largestFreeRun, 10u);
  EXPECT_EQ(c[0].blockUsed, (std::vector<uint32_t>{4, 0}));
  EXPECT_DOUBLE_EQ(c[0].freeFraction, 12.0 / 16.0);
  EXPECT_EQ(c[1].start, 20u);
  EXPECT_EQ(c[1].usedPages, 5u);
  EXPECT_EQ(c[1].largestFreeRun, 5u);
  EXPECT_EQ(c[1].blockUsed, (std::vector<uint32_t>{1, 4}));
}

TEST(VmemTrackerTest, MinFreeRunOverCycleRange) {
  VmemTracker v(16 * 1024, 1024);
  fillCraftedPattern(v);
  v.finish();
  std::vector<VmemTracker::Bucket> b = v.buckets(10, 40, 4);
  // Largest free runs per bucket: 12, 10, 5, 10.
  EXPECT_EQ(VmemTracker::minFreeRun(b, 10, 0, 40), 5u);  // all: min 5
  EXPECT_EQ(VmemTracker::minFreeRun(b, 10, 0, 10), 12u); // bucket 0 only
  EXPECT_EQ(VmemTracker::minFreeRun(b, 10, 0, 11), 10u); // buckets 0, 1
  EXPECT_EQ(VmemTracker::minFreeRun(b, 10, 9, 10), 12u); // bucket 0
  EXPECT_EQ(VmemTracker::minFreeRun(b, 10, 15, 25), 5u); // buckets 1, 2
  EXPECT_EQ(VmemTracker::minFreeRun(b, 10, 25, 30), 5u); // bucket 2
  EXPECT_EQ(VmemTracker::minFreeRun(b, 10, 30, 31), 10u); // bucket 3
  EXPECT_EQ(VmemTracker::minFreeRun(b, 10, 10, 20), 10u); // bucket 1
  EXPECT_EQ(VmemTracker::minFreeRun({}, 10, 0, 40), 0u);
}

TEST(VmemTrackerTest, NonDmaDeadPageIsNotWasted) {
  VmemTracker v(4 * 1024, 1024);
  // Page 0: written by a VPU op (op 1) and rewritten unread: dead, but not
  // wasted DMA bytes. Page 1: written by DMA op 2, rewritten unread by DMA
  // op 3 (wasted 1024 for op 2), which is then read (not wasted).
  v.write(0, 1024, 0, 1, false);
  v.write(0, 1024, 5, 1, false);
  v.write(1024, 2048, 1, 2, true);
  v.write(1024, 2048, 6, 3, true);
  v.read(1024, 1028, 7);
  v.finish();
  EXPECT_EQ(v.wastedBytes(), (std::map<uint32_t, uint64_t>{{2, 1024}}));
  // Only page 1's second lifetime [6, 7] is live: bucket [0,10) uses 1
  // page; runs: page 0 (1), pages 2..3 (2).
  std::vector<VmemTracker::Bucket> b = v.buckets(10, 10, 1);
  ASSERT_EQ(b.size(), 1u);
  EXPECT_EQ(b[0].usedPages, 1u);
  EXPECT_EQ(b[0].largestFreeRun, 2u);
  EXPECT_EQ(b[0].blockUsed, (std::vector<uint32_t>{1}));
}

//===----------------------------------------------------------------------===//
// DependencyTracker
//===----------------------------------------------------------------------===//

TEST(DependencyTrackerTest, DirectCalls) {
  DependencyTracker t;
  // 0: vfill writes VMEM [0,64) (reads register 2).
  t.instruction(0, vfill(2, 1, 16, 16, 1.0f), {2}, {}, {},
                {vmemRange(0, 64)});
  // 1, 2: li r1, kOut; li r2, 0.
  t.instruction(1, li(1, kOut), {}, {1}, {}, {});
  t.instruction(2, li(2, 0), {}, {2}, {}, {});
  // 3: DMA 0, VMEM [0,64) -> HBM [kOut, kOut+64).
  //    conservative: max(writer r2 = 2, writer r1 = 1, source writer 0) = 2;
  //    relaxed: the li chains do not bind; source writer 0 -> 0.
  t.instruction(3, dmaIssue(5, 2, 1, MemSpace::VMEM, MemSpace::HBM, 1, 16, 16,
                            16),
                {2, 1}, {5}, {vmemRange(0, 64)}, {hbmRange(kOut, kOut + 64)});
  t.noteDmaId(0, {vmemRange(0, 64)}, {hbmRange(kOut, kOut + 64)});
  // 4: WAIT on DMA 0: HBM [kOut, kOut+64) now counts as produced by 4.
  t.dmaWait(4, 0);
  t.instruction(4, dmaWait(5), {5}, {}, {}, {});
  // 5: li r6, kB; 6: addi r7, r1, 32 (a lightweight chain from li r1).
  t.instruction(5, li(6, kB), {}, {6}, {}, {});
  t.instruction(6, addi(7, 1, 32), {1}, {7}, {}, {});
  // 7: DMA 1, HBM [kOut+32, kOut+96) -> VMEM [kB, kB+64): its source
  //    overlaps DMA 0's destination (produced by WAIT 4).
  //    conservative: max(r7 = 6, r6 = 5, 4) = 6; relaxed: max(none, 4) = 4.
  t.instruction(7, dmaIssue(8, 7, 6, MemSpace::HBM, MemSpace::VMEM, 1, 16, 16,
                            16),
                {7, 6}, {8}, {hbmRange(kOut + 32, kOut + 96)},
                {vmemRange(kB, kB + 64)});
  // 8: a second WAIT on DMA 0, and a WAIT on an unknown id: no effect
  //    (the destination stays produced by the first WAIT, 4).
  t.dmaWait(8, 0);
  t.dmaWait(8, 99);
  t.instruction(8, dmaWait(5), {5}, {}, {}, {});
  // 9: DMA, HBM [kOut, kOut+64) -> VMEM [0,64), addresses r1 and r0 (r0
  //    never binds). Source writer 4; destination writer 0, reader 3.
  //    conservative: max(r1 = 1, 4, 0, 3) = 4; relaxed: max(none, 4) = 4.
  t.instruction(9, dmaIssue(9, 1, 0, MemSpace::HBM, MemSpace::VMEM, 1, 16, 16,
                            16),
                {1, 0}, {9}, {hbmRange(kOut, kOut + 64)}, {vmemRange(0, 64)});

  const std::vector<DmaDependence> &d = t.dmas();
  ASSERT_EQ(d.size(), 3u);
  EXPECT_EQ(d[0].index, 3u);
  EXPECT_EQ(d[0].conservative, std::optional<uint64_t>(2));
  EXPECT_EQ(d[0].relaxed, std::optional<uint64_t>(0));
  EXPECT_EQ(d[1].index, 7u);
  EXPECT_EQ(d[1].conservative, std::optional<uint64_t>(6));
  EXPECT_EQ(d[1].relaxed, std::optional<uint64_t>(4));
  EXPECT_EQ(d[2].index, 9u);
  EXPECT_EQ(d[2].conservative, std::optional<uint64_t>(4));
  EXPECT_EQ(d[2].relaxed, std::optional<uint64_t>(4));
  // Which input binds: the li of r2 (address); the vfill's bytes (source);
  // r7's addi (address), WAIT 4's bytes (source); source both times.
  using Via = DmaDependence::Via;
  EXPECT_EQ(d[0].conservativeVia, Via::Address);
  EXPECT_EQ(d[0].relaxedVia, Via::Source);
  EXPECT_EQ(d[1].conservativeVia, Via::Address);
  EXPECT_EQ(d[1].relaxedVia, Via::Source);
  EXPECT_EQ(d[2].conservativeVia, Via::Source);
  EXPECT_EQ(d[2].relaxedVia, Via::Source);
  // Only the first WAIT on DMA 0 completes it.
  EXPECT_EQ(t.dmaWaitedAt(4), std::optional<uint32_t>(0));
  EXPECT_EQ(t.dmaWaitedAt(8), std::nullopt);
  EXPECT_EQ(t.dmaWaitedAt(0), std::nullopt);
}

/// The same address on two chips is two memories: a remote DMA writing
/// chip 1's VMEM [0,64) does not depend on chip 0's readers of its own
/// VMEM [0,64). Its chip register comes from an sld of bytes DMA 0 brought,
/// so the relaxed model binds it at DMA 0's WAIT through the address (the
/// setup-group dependence of SnR §5.2.1, Fig. 5).
TEST(DependencyTrackerTest, ChipsDoNotAliasAndLoadedAddressesBind) {
  DependencyTracker t;
  sim::AddrRange chip0{MemSpace::VMEM, 0, 64, 0};
  sim::AddrRange chip1{MemSpace::VMEM, 0, 64, 1};
  sim::AddrRange table{MemSpace::HBM, kA, kA + 64, 0};
  sim::AddrRange shard{MemSpace::VMEM, 64, 128, 0};
  // 0: DMA 0, HBM table -> chip 0 VMEM [0,64); 1: its WAIT.
  t.instruction(0,
                dmaIssue(5, 1, 0, MemSpace::HBM, MemSpace::VMEM, 1, 16, 16, 16),
                {1}, {5}, {table}, {chip0});
  t.noteDmaId(0, {table}, {chip0});
  t.dmaWait(1, 0);
  t.instruction(1, dmaWait(5), {5}, {}, {}, {});
  // 2: sld r3 <- chip 0 VMEM [0,4): a peer's chip id from the table.
  t.instruction(2, sld(3, 0, 0), {0}, {3}, {{MemSpace::VMEM, 0, 4, 0}}, {});
  // 3: DMA 1, chip 0 VMEM [64,128) -> chip 1 VMEM [0,64), chip from r3.
  t.instruction(
      3, dmaIssue(6, 4, 0, MemSpace::VMEM, MemSpace::VMEM, 1, 16, 16, 16),
      {4, 0, 3}, {6}, {shard}, {chip1});
  t.noteDmaId(1, {shard}, {chip1});
  // 4: DMA 2 overwrites chip 0 VMEM [0,64), which the sld (2) read last.
  t.instruction(4,
                dmaIssue(7, 0, 0, MemSpace::HBM, MemSpace::VMEM, 1, 16, 16, 16),
                {0}, {7}, {table}, {chip0});

  using Via = DmaDependence::Via;
  const std::vector<DmaDependence> &d = t.dmas();
  ASSERT_EQ(d.size(), 3u);
  EXPECT_EQ(d[0].conservative, std::nullopt);
  EXPECT_EQ(d[0].relaxed, std::nullopt);
  // DMA 1: conservative at the sld (writer of r3); relaxed at the WAIT the
  // sld's bytes came from, which completed DMA 0. Had chips aliased, the
  // sld's read of chip 0's [0,4) would bind both at 2 via the destination.
  EXPECT_EQ(d[1].conservative, std::optional<uint64_t>(2));
  EXPECT_EQ(d[1].conservativeVia, Via::Address);
  EXPECT_EQ(d[1].relaxed, std::optional<uint64_t>(1));
  EXPECT_EQ(d[1].relaxedVia, Via::Address);
  EXPECT_EQ(t.dmaWaitedAt(*d[1].relaxed), std::optional<uint32_t>(0));
  // DMA 2: its destination's last reader, the sld, in both models.
  EXPECT_EQ(d[2].conservative, std::optional<uint64_t>(2));
  EXPECT_EQ(d[2].conservativeVia, Via::Destination);
  EXPECT_EQ(d[2].relaxed, std::optional<uint64_t>(2));
  EXPECT_EQ(d[2].relaxedVia, Via::Destination);
}

/// A DMA whose destination is the source of an earlier DMA: the earlier DMA
/// reads its source until it completes (the simulator faults an access to
/// it before its WAIT as a data race), so both models must bind the second
/// ISSUE at the first DMA's WAIT, and the two DMAs are not independent (no
/// "parallelize", no hoist across the WAIT).
TEST(DependencyTrackerTest, DmaOverwritingAnotherDmasSourceBindsAtItsWait) {
  sim::MachineConfig config = configFrom(kConfig, kConfigName);
  isa::Program p = makeProgram({
      {li(1, kX), 1},                  // 0  c0
      {li(2, kA), 1},                  // 1  c1
      {li(3, kOut), 1},                // 2  c2
      {vfill(2, 1, 16, 16, 1.0f), 40}, // 3  c3, VPU [3, 12): a[0,64) = 1
      // 4  DMA 0 a -> out: reads a, which the vfill writes: issues at 12;
      //    complete 12 + 100 + 1 = 113.
      {dmaIssue(5, 2, 3, MemSpace::VMEM, MemSpace::HBM, 1, 16, 16, 16), 41},
      {dmaWait(5), 42}, // 5  ready 13: stall base 99 + transfer 1; at 113
      // 6  DMA 1 x -> a at 114: overwrites DMA 0's source.
      {dmaIssue(6, 1, 2, MemSpace::HBM, MemSpace::VMEM, 1, 16, 16, 16), 43},
      {dmaWait(6), 44}, // 7  ready 115: stall base 99 + transfer 1; at 215
      {halt(), 45},     // 8  c216
  });
  auto a = analyze(p, config);
  ASSERT_TRUE(a->ok);
  EXPECT_EQ(u64(a->m["total_cycles"]), 217u);
  // Evidence that DMA 1 depends on DMA 0's completion: issued before the
  // WAIT at pc 5, the program faults with a data race.
  isa::Program early = p;
  std::swap(early.code[5], early.code[6]);
  std::swap(early.origins[5], early.origins[6]);
  sim::Simulator sim(config, early);
  auto r = sim.run();
  ASSERT_FALSE(bool(r));
  EXPECT_NE(llvm::toString(r.takeError()).find("data race"), std::string::npos);

  const std::vector<DmaDependence> &d = a->analyzer->getDependencies().dmas();
  ASSERT_EQ(d.size(), 2u);
  EXPECT_EQ(d[1].index, 6u);
  EXPECT_TRUE(suggestionsFor(a->m, "parallelize", 43).empty());
  // Destination a: last writer the vfill (3), last reader DMA 0, whose read
  // lasts until its WAIT (5): both models bind at 5.
  EXPECT_EQ(d[1].conservative, std::optional<uint64_t>(5));
  EXPECT_EQ(d[1].relaxed, std::optional<uint64_t>(5));
  EXPECT_TRUE(suggestionsFor(a->m, "parallelize", 43).empty());
  // The WAIT issues at 113 (done 114), DMA 1 at 114: push limit 0 < stall
  // 100: no hoist either.
  EXPECT_EQ(u64(a->m["dmas"][1]["push_limit"]), 0u);
  EXPECT_TRUE(suggestionsFor(a->m, "hoist", 43).empty());
}

//===----------------------------------------------------------------------===//
// Dependencies through the Analyzer
//===----------------------------------------------------------------------===//

/// The DMA's address registers come from li/addi just before the ISSUE
/// (they bind only in the conservative model); its destination was last
/// read by a vadd three instructions earlier (binds in both models).
TEST(AnalyzerTest, ConservativeVsRelaxedAddressChain) {
  sim::MachineConfig config = configFrom(kConfig, kConfigName);
  isa::Program p = makeProgram({
      {li(3, kB), 1},                  // 0  c0
      {li(4, kC), 1},                  // 1  c1
      {vfill(3, 1, 16, 16, 1.0f), 2},  // 2  c2, VPU [2, 11): b[0,64)
      {vadd(4, 3, 3, 1, 16, 16, 16, 16), 3}, // 3 reads b: hazard -> c11,
                                             //   VPU [11, 20)
      {li(1, kX), 4},                  // 4  c12
      {addi(5, 3, 0), 4},              // 5  c13: r5 = b
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
  sim::MachineConfig config = configFrom(R"json({
    "scalar": { "latency": 1 },
    "vmem": { "bytes": 16384, "page_bytes": 1024, "blocks": 4,
              "pages_per_block": 4 },
    "dma": { "links": [
      { "src": "hbm", "dst": "vmem", "base_latency": 100,
        "bytes_per_cycle": 64 } ] }
  })json",
                                         kConfigName);
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
  EXPECT_EQ(u64(a->m["dependencies"]["hoist_refused"]["4"]["no_contiguous_vmem"]),
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
      {dmaWait(5), 11},   // 5  at 5 and 109: stall 99 + 1 = 100 each
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
  // at 105, done 106), the last writer of a: 108 - 106 = 2 cycles < 100. The first is
  // unbound: hoist of op 10 for 1 instance, saving 100.
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
  EXPECT_EQ(u64(a->m["dependencies"]["hoist_refused"]["32"]
                    ["no_free_dma_slot"]),
            1u);
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
  // Peak 2 * 4 * 4 = 32 FLOPs/cycle; HBM 8 B/cycle; balance 32 / 8 = 4.
  EXPECT_DOUBLE_EQ(r["peak_flops_per_cycle"].get<double>(), 32.0);
  EXPECT_DOUBLE_EQ(r["hbm_bytes_per_cycle"].get<double>(), 8.0);
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
