//===- CalibrationTest.cpp - Measured latency tables ----------------------===//
//
// LatencyTable's interpolation (1-D, 2-D, 3-D) and extrapolation, its cache
// and its one warning per table; a config's tables replacing TimingModel's
// and DmaEngine's formulas, with unit conversion; all values by hand
// (docs/config.md, "Calibration").
//
//===----------------------------------------------------------------------===//

#include "accel/Sim/Calibration.h"
#include "accel/Sim/DmaEngine.h"
#include "accel/Sim/MachineConfig.h"
#include "accel/Sim/Units.h"

#include "TestPrograms.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

using namespace accel;
using namespace accel::sim;
using namespace accel::test;

namespace {

/// A CSV file with `text`, removed with the fixture. Each test writes its
/// own file: the cache is per path.
class CalibrationTest : public ::testing::Test {
protected:
  std::string writeCsv(llvm::StringRef text) {
    llvm::SmallString<128> path;
    int fd;
    EXPECT_FALSE(
        llvm::sys::fs::createTemporaryFile("calibration", "csv", fd, path));
    {
      llvm::raw_fd_ostream os(fd, /*shouldClose=*/true);
      os << text;
    }
    files.push_back(path.str().str());
    return files.back();
  }
  void SetUp() override {
    previous = setCalibrationWarningHandler(
        [this](llvm::StringRef m) { warnings.push_back(m.str()); });
  }
  void TearDown() override {
    setCalibrationWarningHandler(previous);
    for (const std::string &f : files)
      llvm::sys::fs::remove(f);
  }
  std::shared_ptr<const LatencyTable> load(const std::string &path,
                                           std::vector<std::string> keys,
                                           llvm::StringRef time) {
    auto t = LatencyTable::load(path, keys, time);
    if (!t) {
      ADD_FAILURE() << llvm::toString(t.takeError());
      return nullptr;
    }
    return *t;
  }
  std::vector<std::string> files;
  std::vector<std::string> warnings;
  CalibrationWarningHandler previous;
};

TEST_F(CalibrationTest, OneKeyInterpolatesAndExtendsLinearly) {
  // Unsorted rows, an extra column and a comment line.
  auto t = load(writeCsv("# bytes -> cycles\n"
                         "bytes,extra,cycles\n"
                         "4096,x,300\n"
                         "1024,y,100\n"
                         "2048,z,150\n"),
                {"bytes"}, "cycles");
  ASSERT_TRUE(t);
  EXPECT_EQ(t->size(), 3u);
  EXPECT_DOUBLE_EQ(t->lookup({1024}), 100);
  EXPECT_DOUBLE_EQ(t->lookup({1536}), 125); // halfway on [1024, 2048]
  EXPECT_DOUBLE_EQ(t->lookup({3072}), 225); // halfway on [2048, 4096]
  EXPECT_TRUE(warnings.empty());
  // Past the grid, each end's segment extended: 300 + 4096 * 150 / 2048
  // above, 100 - 1024 * 50 / 1024 below.
  EXPECT_DOUBLE_EQ(t->lookup({8192}), 600);
  EXPECT_DOUBLE_EQ(t->lookup({0}), 50);
  EXPECT_DOUBLE_EQ(t->lookup({16384}), 1200); // still extrapolating
  ASSERT_EQ(warnings.size(), 1u) << "one warning per table";
  EXPECT_NE(warnings[0].find("bytes=8192 is past the measured grid (bytes "
                             "from 1024 to 4096)"),
            std::string::npos)
      << warnings[0];
}

TEST_F(CalibrationTest, TwoKeysAreBilinear) {
  auto t = load(writeCsv("m,n,us\n"
                         "8,128,1\n"
                         "8,256,3\n"
                         "16,128,5\n"
                         "16,256,11\n"),
                {"m", "n"}, "us");
  ASSERT_TRUE(t);
  // At (12, 192): the four corners weighted 1/4 each.
  EXPECT_DOUBLE_EQ(t->lookup({12, 192}), (1 + 3 + 5 + 11) / 4.0);
  // At (10, 160): weights (3/4, 1/4) on m and (3/4, 1/4) on n.
  double m8 = 1 + (3 - 1) * 0.25, m16 = 5 + (11 - 5) * 0.25;
  EXPECT_DOUBLE_EQ(t->lookup({10, 160}), m8 + (m16 - m8) * 0.25);
  // Keys in another order than the file's columns.
  auto swapped = load(files.back(), {"n", "m"}, "us");
  ASSERT_TRUE(swapped);
  EXPECT_DOUBLE_EQ(swapped->lookup({160, 10}), t->lookup({10, 160}));
  EXPECT_TRUE(warnings.empty());
}

TEST_F(CalibrationTest, ThreeKeysAreTrilinear) {
  // time = m + 10 n + 100 k on the corners: trilinear reproduces it.
  std::string csv = "m,n,k,t\n";
  for (int m : {1, 3})
    for (int n : {2, 6})
      for (int k : {4, 8})
        csv += std::to_string(m) + "," + std::to_string(n) + "," +
               std::to_string(k) + "," + std::to_string(m + 10 * n + 100 * k) +
               "\n";
  auto t = load(writeCsv(csv), {"m", "n", "k"}, "t");
  ASSERT_TRUE(t);
  EXPECT_DOUBLE_EQ(t->lookup({2, 3, 5}), 2 + 30 + 500);
  EXPECT_DOUBLE_EQ(t->lookup({5, 3, 5}), 5 + 30 + 500); // extrapolated m
  EXPECT_EQ(warnings.size(), 1u);
}

TEST_F(CalibrationTest, TablesAreCachedPerProcess) {
  std::string path = writeCsv("rows,t\n1,1\n2,2\n");
  auto a = load(path, {"rows"}, "t");
  auto b = load(path, {"rows"}, "t");
  EXPECT_EQ(a.get(), b.get());
  // The cache is what makes the warning once per process: after one
  // extrapolation, the second handle is silent.
  a->lookup({3});
  b->lookup({4});
  EXPECT_EQ(warnings.size(), 1u);
}

TEST_F(CalibrationTest, BadTablesAreOneErrorEach) {
  auto error = [&](llvm::StringRef csv, std::vector<std::string> keys) {
    auto t = LatencyTable::load(writeCsv(csv), keys, "t");
    if (t)
      return std::string("loaded");
    std::string e = llvm::toString(t.takeError());
    return e.substr(files.back().size() + 2); // drop "PATH: "
  };
  EXPECT_EQ(error("m,x\n1,2\n2,3\n", {"m"}),
            "line 1: no column 't' in the header");
  EXPECT_EQ(error("m,n,t\n1,1,1\n1,2,1\n2,1,1\n", {"m", "n"}),
            "no row for m=2, n=2: the table must measure every combination "
            "of its keys' values (a full grid)");
  EXPECT_EQ(error("m,t\n1,1\n2,1\n1,5\n", {"m"}),
            "line 4: m=1 is measured twice (each point of the grid needs "
            "exactly one row; does the time depend on a column missing from "
            "\"keys\"?)");
  EXPECT_EQ(error("m,t\n1,1\n2,inf\n", {"m"}),
            "line 3: column 't': 'inf' is not a number");
  EXPECT_EQ(error("m,t\n-1,1\n2,1\n", {"m"}),
            "line 2: column 'm': -1 is not an integer in [0, 2^48] (keys are "
            "instruction dimensions)");
  EXPECT_EQ(error("m,t\n1,1\n", {"m"}),
            "column 'm' has one value (1): a key needs at least two measured "
            "values to interpolate; drop it from \"keys\" instead");
  EXPECT_EQ(error("m,t\n1\n", {"m"}),
            "line 2: fewer fields than the header has columns");
  EXPECT_EQ(error("", {"m"}), "no header row (the file is empty)");
  auto missing = LatencyTable::load("/nonexistent/t.csv", {"m"}, "t");
  ASSERT_FALSE(missing);
  EXPECT_EQ(llvm::toString(missing.takeError()),
            "/nonexistent/t.csv: cannot read: No such file or directory");
}

/// A config with `calibration` (JSON array text) and clock 2 GHz.
static MachineConfig calibratedConfig(const std::string &calibration) {
  auto c = MachineConfig::fromJson(R"({"clock_ghz": 2, "calibration": )" +
                                       calibration + "}",
                                   "calibration-test.json");
  if (!c) {
    ADD_FAILURE() << llvm::toString(c.takeError());
    return MachineConfig::getDefault();
  }
  return std::move(*c);
}

TEST_F(CalibrationTest, TableReplacesTheVpuFormulaInCycles) {
  // vpu.exp measured in microseconds at 2 GHz: 2000 cycles per us.
  std::string csv = writeCsv("rows,cols,time_us\n"
                             "8,128,0.001\n8,1024,0.004\n"
                             "64,128,0.002\n64,1024,0.010\n");
  // vpu.sqrt in cycles, 1-D on cols: 10 at 100, 110 at 200.
  std::string sqrt = writeCsv("cols,cycles\n100,10\n200,110\n");
  MachineConfig c = calibratedConfig(
      R"([{"instruction": "vpu.exp", "file": ")" + csv +
      R"(", "keys": ["rows", "cols"], "time": "time_us", "unit": "us"},
          {"instruction": "vpu.sqrt", "file": ")" +
      sqrt + R"(", "keys": ["cols"], "time": "cycles", "unit": "cycles"}])");
  TimingModel timing(c);
  ASSERT_NE(timing.getCalibration(isa::Opcode::VExp), nullptr);
  EXPECT_EQ(timing.getCalibration(isa::Opcode::VAdd), nullptr);
  // (8, 128): 0.001 us = 2 cycles; (64, 1024): 20 cycles; (36, 576):
  // the four corners at 1/4: 0.00425 us = 8.5 -> 9 cycles (rounded).
  EXPECT_EQ(
      timing.getLatency(vunary(isa::Opcode::VExp, 1, 2, 8, 128, 128, 128)), 2u);
  EXPECT_EQ(
      timing.getLatency(vunary(isa::Opcode::VExp, 1, 2, 64, 1024, 1024, 1024)),
      20u);
  EXPECT_EQ(
      timing.getLatency(vunary(isa::Opcode::VExp, 1, 2, 36, 576, 576, 576)),
      9u);
  // vpu.add keeps the formula: depth 8 + 1 pass x cost 1.
  EXPECT_EQ(timing.getLatency(vadd(1, 2, 3, 8, 128, 128, 128, 128)), 9u);
  // vpu.sqrt on 8 x 150: 60 cycles, whatever the rows. Extrapolated to
  // cols = 50: 10 - 50 = -40, clamped to 1 cycle (one warning).
  EXPECT_EQ(
      timing.getLatency(vunary(isa::Opcode::VSqrt, 1, 2, 8, 150, 150, 150)),
      60u);
  EXPECT_TRUE(warnings.empty());
  EXPECT_EQ(timing.getLatency(vunary(isa::Opcode::VSqrt, 1, 2, 8, 50, 50, 50)),
            1u);
  EXPECT_EQ(warnings.size(), 1u);
}

TEST_F(CalibrationTest, DmaTableGivesALoneDmaItsMeasuredLatency) {
  // hbm->vmem measured in ns at 2 GHz: 1 KiB in 400 ns = 800 cycles,
  // 2 KiB in 500 ns = 1000 cycles. The link's base latency is 500.
  std::string csv = writeCsv("bytes,ns\n1024,400\n2048,500\n");
  MachineConfig c = calibratedConfig(
      R"([{"instruction": "dma.issue", "link": "hbm->vmem", "file": ")" + csv +
      R"(", "keys": ["bytes"], "time": "ns", "unit": "ns"}])");
  int load = c.findLink(isa::MemSpace::HBM, isa::MemSpace::VMEM);
  int store = c.findLink(isa::MemSpace::VMEM, isa::MemSpace::HBM);
  DmaEngine dma(c);
  // 1536 bytes: 450 ns = 900 cycles; base 500, transfer 400.
  uint32_t a = dma.issue(10, load, 1536);
  EXPECT_EQ(dma.get(a).baseEnd, 510u);
  EXPECT_EQ(dma.get(a).transferStart, 510u);
  EXPECT_EQ(dma.get(a).complete, 910u);
  // The link is still a FIFO: a second DMA at 10 waits for it.
  uint32_t b = dma.issue(10, load, 1024); // 800 cycles: 500 + 300
  EXPECT_EQ(dma.get(b).transferStart, 910u);
  EXPECT_EQ(dma.get(b).complete, 1210u);
  // vmem->hbm has no table: the formula (500 + ceil(1024 / 1024)).
  uint32_t s = dma.issue(2000, store, 1024);
  EXPECT_EQ(dma.get(s).complete, 2501u);
  // A measured latency below the base latency: all of it is base latency.
  std::string fast = writeCsv("bytes,cycles\n0,20\n1024,30\n");
  MachineConfig f = calibratedConfig(
      R"([{"instruction": "dma.issue", "file": ")" + fast +
      R"(", "keys": ["bytes"], "time": "cycles", "unit": "cycles"}])");
  DmaEngine fd(f);
  uint32_t x = fd.issue(0, load, 512); // 25 cycles, all base latency
  EXPECT_EQ(fd.get(x).baseEnd, 25u);
  EXPECT_EQ(fd.get(x).complete, 25u);
  // A table without a link covers every local link.
  uint32_t y = fd.issue(100, store, 1024); // 30 cycles
  EXPECT_EQ(fd.get(y).complete, 130u);
}

TEST_F(CalibrationTest, DmaFasterThanHbmIsWarnedOnce) {
  // 64 KiB in 10 cycles of transfer: faster than HBM's 1142.857 B/cycle
  // (58 cycles). The table wins; one warning names the clash.
  std::string csv = writeCsv("bytes,cycles\n0,500\n65536,510\n");
  MachineConfig c = calibratedConfig(
      R"([{"instruction": "dma.issue", "link": "hbm->vmem", "file": ")" + csv +
      R"(", "keys": ["bytes"], "time": "cycles", "unit": "cycles"}])");
  DmaEngine dma(c);
  int load = c.findLink(isa::MemSpace::HBM, isa::MemSpace::VMEM);
  uint32_t a = dma.issue(0, load, 65536);
  EXPECT_EQ(dma.get(a).complete, 510u);
  dma.issue(1000, load, 65536);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("faster than hbm.bytes_per_cycle allows (58)"),
            std::string::npos)
      << warnings[0];
}

} // namespace
