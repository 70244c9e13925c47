//===- AnalyzerTestUtils.h - Shared by the analyzer's tests ----*- C++ -*-===//
//
// Helpers of AnalyzerTest.cpp, AnalyzerTrackersTest.cpp and
// AnalyzerSuggestionsTest.cpp: programs with one origin per instruction, the
// configs they run on, and a simulator run with the DMA stall collector and
// the Analyzer attached (SnR, Zarkadas et al., SoCC '25, §5.2-§5.4).
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
//  - MXU latency: the systolic-array model of docs/isa.md "MXU" (SCALE-Sim
//    folds; weight-stationary with double-buffered weights by default);
//  - VPU latency = pipeline_depth (8) + ceil(rows / sublanes) *
//    ceil(cols / lanes) * cost (simple 1, reduce 2; docs/isa.md "VPU");
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

#ifndef ACCEL_UNITTESTS_ANALYZERTESTUTILS_H
#define ACCEL_UNITTESTS_ANALYZERTESTUTILS_H

#include "TestPrograms.h"

#include "accel/Profile/Analyzer.h"
#include "accel/Profile/DmaStallAnalysis.h"
#include "accel/Profile/DmaTable.h"
#include "accel/Sim/Simulator.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <memory>
#include <string>
#include <vector>

namespace accel::test {

using json = nlohmann::json;
using profile::Analyzer;
using profile::AnalyzerOptions;
using profile::buildMetrics;
using profile::DmaStallCollector;

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
inline isa::Program makeProgram(const std::vector<Line> &lines) {
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
  idx.init = isa::BufferInit::Iota;
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

/// kConfig's one hbm->vmem link with a VMEM of 16 pages of 1 KiB (4 blocks
/// of 4): a page is a sixteenth of VMEM in the metrics.
constexpr const char *kSixteenPageConfig = R"json({
  "scalar": { "latency": 1 },
  "vmem": { "bytes": 16384, "page_bytes": 1024, "blocks": 4,
            "pages_per_block": 4 },
  "dma": { "links": [
    { "src": "hbm", "dst": "vmem", "base_latency": 100,
      "bytes_per_cycle": 64 } ] }
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

inline std::unique_ptr<Analysis> analyze(const isa::Program &p,
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
  profile::DmaTable dmas(p, config, a->collector);
  AnalyzerOptions options;
  options.bucketCycles = bucketCycles;
  a->analyzer->addToMetrics(a->m, &dmas, options);
  // metrics.json's "dmas" as the file holds them.
  a->m["dmas"] = dmas.toJson();
  a->ok = true;
  return a;
}

/// The suggestions of `kind` for `op`.
inline std::vector<json> suggestionsFor(const json &m, const std::string &kind,
                                        uint32_t op) {
  std::vector<json> out;
  for (const json &s : m["suggestions"])
    if (s["kind"] == kind && s["op_id"].get<uint32_t>() == op)
      out.push_back(s);
  return out;
}
inline size_t countKind(const json &m, const std::string &kind) {
  size_t n = 0;
  for (const json &s : m["suggestions"])
    n += s["kind"] == kind;
  return n;
}

inline uint64_t u64(const json &j) { return j.get<uint64_t>(); }

} // namespace accel::test

#endif // ACCEL_UNITTESTS_ANALYZERTESTUTILS_H
