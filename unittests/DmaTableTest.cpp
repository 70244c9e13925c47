//===- DmaTableTest.cpp - metrics.json "dmas" written from rows -----------===//
//
// DmaTable replaced the JSON tree of metrics.json's "dmas" (issue 34). These
// tests give rows every optional field (a WAIT or none, a semaphore, a
// remote DMA on a system, backtails with and without a bound, a push limit
// or null) and check each entry against the one written out by hand from
// docs/metrics.md, and that writeMetricsJson puts the array where a tree
// holding it would have dumped it.
//
//===----------------------------------------------------------------------===//

#include "TestPrograms.h"

#include "accel/Profile/DmaTable.h"
#include "accel/Support/Json.h"
#include "accel/Support/JsonWriter.h"

#include "gtest/gtest.h"

#include <nlohmann/json.hpp>

using namespace accel;
using namespace accel::test;
using json = nlohmann::json;

namespace {

/// Four instructions with origins; the location of PC 1 needs escaping.
isa::Program makeProgram() {
  isa::Program p;
  p.name = "dma-table";
  const char *locs[] = {"a.mlir:1:1", "a.mlir:2:3 \"quoted\"", "a.mlir:3:5",
                        "a.mlir:4:7"};
  const char *ops[] = {"accel.alloc", "accel.dma_start", "arith.addi",
                       "accel.dma_wait"};
  for (uint32_t pc = 0; pc < 4; ++pc)
    p.origins.push_back(isa::Origin{10 + pc, ops[pc], locs[pc], 0});
  return p;
}

sim::DmaTiming timing(uint32_t id, int link, uint64_t issue) {
  sim::DmaTiming t;
  t.id = id;
  t.link = link;
  t.bytes = 256;
  t.busBytes = 256;
  t.issue = issue;
  t.baseEnd = issue + 100;
  t.transferStart = issue + 104;
  t.complete = issue + 108;
  return t;
}

sim::WaitEvent wait(uint32_t id, uint64_t cycle, uint64_t stallBase,
                    uint64_t stallTransfer) {
  sim::WaitEvent e;
  e.pc = 3;
  e.dmaId = id;
  e.cycle = cycle;
  e.outcome.stallBase = stallBase;
  e.outcome.stallTransfer = stallTransfer;
  return e;
}

std::string written(const profile::DmaTable &table, int indent) {
  std::string out;
  llvm::raw_string_ostream os(out);
  JsonWriter w(os, indent);
  table.write(w);
  EXPECT_TRUE(w.isComplete());
  return out;
}

TEST(DmaTableTest, RowsAreTheEntriesOfMetricsJson) {
  isa::Program p = makeProgram();
  sim::MachineConfig config = configFrom(kTwoLinkConfig, "dma-table.json");
  profile::DmaStallCollector collector;
  collector.onDmaIssue(1, timing(0, 0, 10));
  collector.onDmaIssue(1, timing(1, -1, 0)); // completed before a window
  sim::DmaTiming signalled = timing(2, 1, 50);
  signalled.semaphore = 3;
  collector.onDmaIssue(1, signalled);
  collector.onDmaWait(wait(0, 60, 50, 8));
  profile::DmaTable table(p, config, collector);
  ASSERT_EQ(table.size(), 2u);

  profile::Backtail conservative, relaxed;
  conservative.instructions = 5;
  conservative.cycles = 7;
  conservative.boundIndex = 4;
  conservative.boundPc = 2;
  conservative.boundDma = 9;
  conservative.via = "source";
  relaxed.instructions = 8;
  relaxed.cycles = 12;
  table.setBacktails(0, conservative, relaxed, std::nullopt, p);
  table.setBacktails(1, relaxed, relaxed, 99, p); // not listed: ignored
  std::string loc1 = "a.mlir:2:3 \"quoted\"";
  json expected = json::array(
      {{{"backtail",
         {{"conservative",
           {{"bound",
             {{"dma", 9},
              {"index", 4},
              {"loc", "a.mlir:3:5"},
              {"op", "arith.addi"},
              {"op_id", 12},
              {"pc", 2}}},
            {"cycles", 7},
            {"instructions", 5},
            {"via", "source"}}},
          {"relaxed",
           {{"bound", nullptr}, {"cycles", 12}, {"instructions", 8}}}}},
        {"base_end", 110},
        {"bytes", 256},
        {"complete", 118},
        {"id", 0},
        {"issue", 10},
        {"link", "hbm->vmem"},
        {"loc", loc1},
        {"op_id", 11},
        {"pc", 1},
        {"push_limit", nullptr},
        {"slack", 0},
        {"stall_base", 50},
        {"stall_transfer", 8},
        {"transfer_start", 114},
        {"wait", 60},
        {"wait_op_id", 13}},
       {{"base_end", 150},
        {"bytes", 256},
        {"complete", 158},
        {"id", 2},
        {"issue", 50},
        {"link", "vmem->hbm"},
        {"loc", loc1},
        {"op_id", 11},
        {"pc", 1},
        {"signal", 3},
        {"slack", 0},
        {"stall_base", 0},
        {"stall_transfer", 0},
        {"transfer_start", 154},
        {"wait", nullptr}}});
  EXPECT_EQ(table.toJson(), expected);
  for (int indent : {-1, 2})
    EXPECT_EQ(written(table, indent), dumpJson(expected, indent)) << indent;
  // A push limit is written as its cycles.
  table.setBacktails(0, conservative, conservative, 7, p);
  EXPECT_EQ(table.toJson()[0]["push_limit"], 7);
  EXPECT_EQ(table.toJson()[0]["backtail"]["relaxed"]["via"], "source");
  // The tree form of a backtail is the row's.
  EXPECT_EQ(conservative.toJson(p), expected[0]["backtail"]["conservative"]);
}

TEST(DmaTableTest, SystemRowsNameTheirChipsAndHops) {
  isa::Program p = makeProgram();
  sim::MachineConfig config = configFrom(kTwoLinkConfig, "dma-table.json");
  config.chips = 2;
  profile::DmaStallCollector collector;
  sim::DmaTiming remote = timing(4, 0, 0);
  remote.chip = 1;
  remote.srcChip = 1;
  remote.dstChip = 0;
  remote.hops = 1;
  collector.onDmaIssue(1, remote);
  profile::DmaTable table(p, config, collector);
  json row = table.toJson()[0];
  EXPECT_EQ(row["chip"], 1);
  EXPECT_EQ(row["src_chip"], 1);
  EXPECT_EQ(row["dst_chip"], 0);
  EXPECT_EQ(row["hops"], 1);
  EXPECT_EQ(row.size(), 18u);
  EXPECT_EQ(written(table, 2), dumpJson(table.toJson(), 2));
}

// metrics.json: the tree's members with "dmas" at its place in key order
// (first, between others, last), as one tree holding both dumps it.
TEST(DmaTableTest, MetricsJsonPutsDmasInKeyOrder) {
  isa::Program p = makeProgram();
  sim::MachineConfig config = configFrom(kTwoLinkConfig, "dma-table.json");
  profile::DmaStallCollector collector;
  collector.onDmaIssue(1, timing(0, 0, 10));
  collector.onDmaIssue(1, timing(1, 0, 20));
  profile::DmaTable table(p, config, collector);
  std::vector<json> trees = {
      {{"config", {{"name", "x"}}},
       {"dma_slots", {{"max", 2}}},
       {"hbm_hash", "0x1"},
       {"ops", json::object()},
       {"z", {1, 2}}},
      {{"a", 1}, {"dma_stall_cycles", {{"base", 3}}}},
      {{"hbm_hash", "0x1"}, {"units", {{"mxu", {{"busy", 0.5}}}}}},
      json::object()};
  for (const json &tree : trees) {
    std::string out;
    llvm::raw_string_ostream os(out);
    profile::writeMetricsJson(os, tree, &table);
    json whole = tree;
    whole["dmas"] = table.toJson();
    EXPECT_EQ(out, dumpJson(whole, 2) + "\n") << dumpJson(tree);
  }
  // Without a table: the tree alone.
  std::string out;
  llvm::raw_string_ostream os(out);
  profile::writeMetricsJson(os, trees[0], nullptr);
  EXPECT_EQ(out, dumpJson(trees[0], 2) + "\n");
}

// The VMEM heatmap kept as rows: written as the "heatmap" member of
// "vmem" at its place in key order, with or without a DMA table, as one
// tree holding it dumps (an empty heatmap and empty rows too).
TEST(DmaTableTest, MetricsJsonPutsTheHeatmapInVmem) {
  isa::Program p = makeProgram();
  sim::MachineConfig config = configFrom(kTwoLinkConfig, "dma-table.json");
  profile::DmaStallCollector collector;
  collector.onDmaIssue(1, timing(0, 0, 10));
  profile::DmaTable table(p, config, collector);
  std::vector<json> trees = {
      {{"a", 1},
       {"vmem", {{"blocks", 2}, {"free_fraction", {1.0, 0.5}}, {"pages", 8}}},
       {"z", 2}},
      {{"vmem", {{"blocks", 2}}}},                // every key before it
      {{"vmem", {{"median", 0.5}, {"peak", 3}}}}, // every key after it
      {{"vmem", json::object()}}};
  std::vector<profile::VmemHeatmap> heatmaps = {
      {{0, 3}, {4294967295u, 1}}, {}, {{}, {7}}};
  for (const json &tree : trees)
    for (const profile::VmemHeatmap &heat : heatmaps)
      for (bool withDmas : {false, true}) {
        std::string out;
        llvm::raw_string_ostream os(out);
        profile::writeMetricsJson(os, tree, withDmas ? &table : nullptr, &heat);
        json whole = tree;
        whole["vmem"]["heatmap"] = profile::heatmapToJson(heat);
        if (withDmas)
          whole["dmas"] = table.toJson();
        EXPECT_EQ(out, dumpJson(whole, 2) + "\n") << dumpJson(tree);
      }
}

} // namespace
