//===- SweepTest.cpp - Config sweep grids ---------------------------------===//
//
// The --set grammar, the grid's point order, each point's config (with
// vmem.blocks following vmem.bytes), shards, the thread pool's row order
// and the CSV quoting of accel::runSweep and friends (docs/sweep.md).
//
//===----------------------------------------------------------------------===//

#include "accel/Fdo/Sweep.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <set>

using namespace accel;
using json = nlohmann::json;

namespace {

SweepAxis axis(llvm::StringRef spec) {
  auto a = parseSweepAxis(spec);
  if (!a) {
    ADD_FAILURE() << llvm::toString(a.takeError());
    return {};
  }
  return std::move(*a);
}

std::string axisError(llvm::StringRef spec) {
  auto a = parseSweepAxis(spec);
  return a ? "parsed" : llvm::toString(a.takeError());
}

TEST(SweepTest, ValuesAreTyped) {
  SweepAxis a = axis("vmem.bytes=8Mi,1Ki,3,2.5,true,ws");
  EXPECT_EQ(a.path, "vmem.bytes");
  ASSERT_EQ(a.values.size(), 6u);
  EXPECT_EQ(a.values[0], json(8u << 20));
  EXPECT_EQ(a.values[1], json(1024u));
  EXPECT_TRUE(a.values[2].is_number_unsigned());
  EXPECT_EQ(a.values[3], json(2.5));
  EXPECT_EQ(a.values[4], json(true));
  EXPECT_EQ(a.values[5], json("ws"));
  EXPECT_EQ(a.texts[0], "8Mi");
  EXPECT_EQ(axis(" dma.links[2].base_latency = 1, 2 ").path,
            "dma.links[2].base_latency");
}

TEST(SweepTest, BadSetsAreOneErrorEach) {
  EXPECT_EQ(axisError("vmem.bytes"),
            "--set 'vmem.bytes': expected PATH=V1,V2,... (e.g. "
            "vmem.bytes=8Mi,16Mi)");
  EXPECT_EQ(axisError("vmem..bytes=1"),
            "--set 'vmem..bytes=1': 'vmem..bytes' is not a config field path "
            "such as vmem.bytes or dma.links[0].bytes_per_cycle");
  EXPECT_EQ(axisError("dma.links[x].src=hbm"),
            "--set 'dma.links[x].src=hbm': 'dma.links[x].src' is not a config "
            "field path such as vmem.bytes or dma.links[0].bytes_per_cycle");
  EXPECT_EQ(axisError("mxu.rows=1,,2"),
            "--set 'mxu.rows=1,,2': an empty value");
  EXPECT_EQ(axisError("mxu.rows=1Ki,1024"),
            "--set 'mxu.rows=1Ki,1024': the value 1024 is listed twice");
}

TEST(SweepTest, LastAxisVariesFastest) {
  auto grid = SweepGrid::create(
      {axis("vmem.bytes=8Mi,16Mi,32Mi"), axis("mxu.dataflow=ws,os")});
  ASSERT_TRUE(bool(grid));
  EXPECT_EQ(grid->size(), 6u);
  EXPECT_EQ(grid->getIndices(3), (std::vector<unsigned>{1, 1}));
  EXPECT_EQ(grid->getIndices(4), (std::vector<unsigned>{2, 0}));
  EXPECT_EQ(grid->describe(5), "vmem.bytes=32Mi mxu.dataflow=os");
  auto twice = SweepGrid::create({axis("mxu.rows=1,2"), axis("mxu.rows=3")});
  ASSERT_FALSE(bool(twice));
  EXPECT_EQ(llvm::toString(twice.takeError()),
            "--set mxu.rows is given twice: list its values in one --set");
}

TEST(SweepTest, PointConfigsSetTheirFields) {
  auto grid = SweepGrid::create({axis("vmem.bytes=8Mi,16Mi"),
                                 axis("dma.links[1].bytes_per_cycle=512.5")});
  ASSERT_TRUE(bool(grid));
  std::string base = sim::MachineConfig::getDefault().jsonText;
  auto c = grid->getConfig(1, base);
  ASSERT_TRUE(bool(c)) << llvm::toString(c.takeError());
  EXPECT_EQ(c->vmemBytes, 16u << 20);
  // 16 MiB / (256 pages x 1 KiB): 64 blocks, set because vmem.bytes was
  // swept alone.
  EXPECT_EQ(c->vmemBlocks, 64u);
  EXPECT_EQ(c->links[1].milliBytesPerCycle, 512500u);
  EXPECT_EQ(c->links[0].milliBytesPerCycle, 1024000u); // untouched
  // A field the config does not have, and a value it rejects.
  auto typo = SweepGrid::create({axis("vmem.byte=1")});
  auto e = typo->getConfig(0, base);
  ASSERT_FALSE(bool(e));
  EXPECT_EQ(llvm::toString(e.takeError()),
            "point 0 (vmem.byte=1): the config has no field 'vmem.byte'");
  auto odd = SweepGrid::create({axis("vmem.bytes=100Ki")});
  auto e2 = odd->getConfig(0, base);
  ASSERT_FALSE(bool(e2));
  EXPECT_EQ(llvm::toString(e2.takeError()),
            "point 0 (vmem.bytes=100Ki): vmem.bytes 102400 is not a whole "
            "number of blocks of 262144 bytes (vmem.pages_per_block x "
            "vmem.page_bytes); set vmem.blocks too");
}

TEST(SweepTest, ShardsPartitionTheGrid) {
  auto s = parseSweepShard("2/3");
  ASSERT_TRUE(bool(s));
  EXPECT_TRUE(s->contains(5));
  EXPECT_FALSE(s->contains(6));
  for (const char *bad : {"3/3", "1", "a/2", "0/0", "1/70000"}) {
    auto b = parseSweepShard(bad);
    EXPECT_FALSE(bool(b)) << bad;
    if (!b)
      llvm::consumeError(b.takeError());
  }
}

TEST(SweepTest, RowsComeBackInPointOrderFromThreads) {
  auto grid = SweepGrid::create({axis("mxu.rows=1,2,3,4,5,6,7,8,9,10,11")});
  ASSERT_TRUE(bool(grid));
  SweepShard odd{1, 2};
  std::set<uint64_t> seen;
  std::vector<SweepRow> rows = runSweep(
      *grid, odd, 4,
      [](uint64_t p) {
        SweepRow r;
        r.ok = true;
        r.totalCycles = 100 * p;
        return r;
      },
      [&](const SweepRow &r, uint64_t done, uint64_t total) {
        seen.insert(r.point); // serialized: no lock needed here
        EXPECT_EQ(total, 5u);
        EXPECT_LE(done, total);
      });
  ASSERT_EQ(rows.size(), 5u);
  for (size_t i = 0; i < rows.size(); ++i) {
    EXPECT_EQ(rows[i].point, 2 * i + 1);
    EXPECT_EQ(rows[i].totalCycles, 100 * (2 * i + 1));
  }
  EXPECT_EQ(seen.size(), 5u);
}

TEST(SweepTest, CsvQuotesErrors) {
  auto grid = SweepGrid::create({axis("mxu.dataflow=ws,os")});
  SweepRow ok;
  ok.ok = true;
  ok.point = 0;
  ok.totalCycles = 7;
  ok.dmaStallBase = 2;
  ok.dmaStallTransfer = 3;
  ok.configHash = "abc";
  SweepRow bad;
  bad.point = 1;
  bad.error = "x.mlir:1:2: error: a \"quoted\", comma";
  std::string csv = writeSweepCsv(*grid, {ok, bad});
  EXPECT_EQ(csv, "point,mxu.dataflow,status,total_cycles,dma_stall_base,"
                 "dma_stall_transfer,dma_stall_total,mxu_utilization,"
                 "vpu_utilization,peak_vmem_bytes,config_hash,error\n"
                 "0,ws,ok,7,2,3,5,0.0000,0.0000,0,abc,\n"
                 "1,os,error,,,,,,,,,\"x.mlir:1:2: error: a \"\"quoted\"\", "
                 "comma\"\n");
}

} // namespace
