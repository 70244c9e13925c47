//===- SimulatorTest.cpp - Functional and timed ISA simulator -------------===//
//
// Programs are built by hand. Timing rules used for the expected values
// (Simulator.cpp header, docs/isa.md "Timing"):
//  - the first instruction issues at cycle 0, each next one at the previous
//    issue + scalar latency at best;
//  - a WAIT resumes at max(ready, complete) with the Fig. 4 stall split;
//  - MXU latency = ceil(K/R) * ceil(N/C) * (R + M) + C;
//  - VPU latency = pipeline_depth + ceil(rows*cols / lanes) * cost;
//  - total = max(halt issue + 1, units free, DMA drain).
//
//===----------------------------------------------------------------------===//

#include "accel/Sim/Simulator.h"

#include "TestPrograms.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include <cmath>
#include <string>
#include <vector>

using namespace accel;
using namespace accel::sim;
using namespace accel::test;
using isa::Inst;
using isa::MemSpace;
using isa::Opcode;

namespace {

// Address map of most tests: HBM input x (4 KiB, seed kSeed) at kX, VMEM
// a, b, c (4 KiB each) at kA, kB, kC (TestPrograms.h), and:
constexpr uint64_t kOut = 0x20000; // HBM output, 4 KiB, zeros

isa::Program makeProgram(std::vector<Inst> code) {
  isa::Program p;
  p.name = "test";
  p.code = std::move(code);
  p.buffers = {hbmBuffer("x", kX, 4096, kSeed),
               hbmBuffer("out", kOut, 4096, 0, /*zero=*/true),
               vmemBuffer("a", kA, 4096), vmemBuffer("b", kB, 4096),
               vmemBuffer("c", kC, 4096)};
  return p;
}

/// The source name of this file's configs in errors.
constexpr const char *kConfigName = "sim-test.json";

constexpr const char *kDmaConfig = kTwoLinkConfig;

void writeVmem(Simulator &sim, uint64_t base, uint64_t rows, uint64_t cols,
               uint64_t stride, const std::vector<float> &values) {
  ASSERT_EQ(values.size(), rows * cols);
  sim.getMemory().writeTile({MemSpace::VMEM, base, rows, cols, stride},
                            values.data());
}
std::vector<float> readTile(Simulator &sim, MemSpace space, uint64_t base,
                            uint64_t rows, uint64_t cols, uint64_t stride) {
  std::vector<float> out(rows * cols);
  sim.getMemory().readTile({space, base, rows, cols, stride}, out.data());
  return out;
}
std::vector<float> readVmem(Simulator &sim, uint64_t base, uint64_t rows,
                            uint64_t cols, uint64_t stride) {
  return readTile(sim, MemSpace::VMEM, base, rows, cols, stride);
}

std::string faultOf(llvm::Expected<RunSummary> r) {
  if (r)
    return "<no fault>";
  return llvm::toString(r.takeError());
}

uint64_t stall(const RunSummary &s, StallCause c) {
  return s.stallCycles[size_t(c)];
}

//===----------------------------------------------------------------------===//
// Scalar unit and control flow
//===----------------------------------------------------------------------===//

TEST(SimulatorTest, ScalarArithmetic) {
  MachineConfig config = MachineConfig::getDefault();
  isa::Program p = makeProgram({
      li(1, 6),
      li(2, -4),
      rrr(Opcode::Mul, 3, 1, 2),   // 6 * -4 = -24
      rrr(Opcode::Sub, 4, 1, 2),   // 6 - -4 = 10
      rri(Opcode::Muli, 5, 1, 7),  // 6 * 7 = 42
      rri(Opcode::Addi, 6, 2, -3), // -4 + -3 = -7
      rrr(Opcode::Mov, 7, 3, 0),   // -24
      add(8, 1, 4),                // 6 + 10 = 16
      li(0, 99),                   // r0 stays 0
      add(9, 0, 1),                // 0 + 6 = 6
      halt(),
  });
  Simulator sim(config, p);
  auto r = sim.run();
  ASSERT_TRUE(bool(r)) << llvm::toString(r.takeError());
  EXPECT_EQ(int64_t(sim.getRegister(1)), 6);
  EXPECT_EQ(int64_t(sim.getRegister(2)), -4);
  EXPECT_EQ(int64_t(sim.getRegister(3)), -24);
  EXPECT_EQ(int64_t(sim.getRegister(4)), 10);
  EXPECT_EQ(int64_t(sim.getRegister(5)), 42);
  EXPECT_EQ(int64_t(sim.getRegister(6)), -7);
  EXPECT_EQ(int64_t(sim.getRegister(7)), -24);
  EXPECT_EQ(int64_t(sim.getRegister(8)), 16);
  EXPECT_EQ(sim.getRegister(0), 0u);
  EXPECT_EQ(int64_t(sim.getRegister(9)), 6);
  // 11 scalar instructions at cycles 0..10; halt at 10, total 10 + 1.
  EXPECT_EQ(r->instructions, 11u);
  EXPECT_EQ(r->totalCycles, 11u);
  EXPECT_EQ(r->unitBusyCycles[size_t(isa::Unit::Scalar)], 11u);
}

TEST(SimulatorTest, BltLoopRunsFiveTimes) {
  MachineConfig config = MachineConfig::getDefault();
  isa::Program p = makeProgram({
      li(1, 0),       // 0: i = 0
      li(2, 5),       // 1: n = 5
      li(3, 1),       // 2: one
      li(4, 0),       // 3: acc = 0
      add(1, 1, 3),   // 4: i += 1
      addi(4, 4, 10), // 5: acc += 10
      blt(1, 2, 4),   // 6: if i < n goto 4
      halt(),         // 7
  });
  Simulator sim(config, p);
  EventLog rec;
  sim.addObserver(&rec);
  auto r = sim.run();
  ASSERT_TRUE(bool(r)) << llvm::toString(r.takeError());
  EXPECT_EQ(sim.getRegister(1), 5u);
  EXPECT_EQ(sim.getRegister(4), 50u); // 5 iterations x 10
  // 4 setup + 5 x 3 body + halt = 20 instructions, one per cycle.
  EXPECT_EQ(r->instructions, 20u);
  EXPECT_EQ(r->totalCycles, 20u); // halt issues at 19
  ASSERT_EQ(rec.retired.size(), 20u);
  EXPECT_EQ(rec.retired[7].pc, 4u); // the second iteration starts at pc 4
  EXPECT_EQ(rec.retired[19].pc, 7u);
  EXPECT_EQ(rec.retired[19].issueCycle, 19u);
  ASSERT_EQ(rec.halts.size(), 1u);
  EXPECT_EQ(rec.halts[0], 20u);
}

TEST(SimulatorTest, BgeJmpLoop) {
  MachineConfig config = MachineConfig::getDefault();
  isa::Program p = makeProgram({
      li(1, 0),      // 0
      li(2, 3),      // 1
      bge(1, 2, 5),  // 2: exit when i >= 3
      addi(1, 1, 1), // 3
      jmp(2),        // 4
      halt(),        // 5
  });
  Simulator sim(config, p);
  auto r = sim.run();
  ASSERT_TRUE(bool(r)) << llvm::toString(r.takeError());
  EXPECT_EQ(sim.getRegister(1), 3u);
  // 2 + 3 x (bge, addi, jmp) + final bge + halt = 13.
  EXPECT_EQ(r->instructions, 13u);
  EXPECT_EQ(r->totalCycles, 13u);
}

TEST(SimulatorTest, BranchesCompareSigned) {
  MachineConfig config = MachineConfig::getDefault();
  isa::Program p = makeProgram({
      li(1, -1),    // 0
      li(2, 1),     // 1
      blt(1, 2, 4), // 2: -1 < 1 (signed): taken
      li(3, 111),   // 3: skipped
      halt(),       // 4
  });
  Simulator sim(config, p);
  auto r = sim.run();
  ASSERT_TRUE(bool(r)) << llvm::toString(r.takeError());
  EXPECT_EQ(sim.getRegister(3), 0u);
  EXPECT_EQ(r->instructions, 4u);
}

//===----------------------------------------------------------------------===//
// MXU
//===----------------------------------------------------------------------===//

TEST(SimulatorTest, Matmul2x2) {
  MachineConfig config = MachineConfig::getDefault();
  isa::Program p = makeProgram({
      li(1, kA),
      li(2, kB),
      li(3, kC),
      // A is 2x2 stored with row stride 4, C is written with row stride 3.
      matmul(3, 1, 2, /*m=*/2, /*n=*/2, /*k=*/2, /*sa=*/4, /*sc=*/3),
      halt(),
  });
  Simulator sim(config, p);
  writeVmem(sim, kA, 2, 4, 4, {1, 2, -100, -100, 3, 4, -100, -100});
  writeVmem(sim, kB, 2, 2, 2, {5, 6, 7, 8});
  writeVmem(sim, kC, 2, 3, 3, {-1, -1, -1, -1, -1, -1});
  auto r = sim.run();
  ASSERT_TRUE(bool(r)) << llvm::toString(r.takeError());
  // [1 2; 3 4] * [5 6; 7 8] = [1*5+2*7 1*6+2*8; 3*5+4*7 3*6+4*8]
  //                         = [19 22; 43 50]
  EXPECT_EQ(readVmem(sim, kC, 2, 2, 3), (std::vector<float>{19, 22, 43, 50}));
  // The padding column of C (stride 3) is untouched.
  EXPECT_EQ(readVmem(sim, kC + 8, 2, 1, 3), (std::vector<float>{-1, -1}));
  // li at 0, 1, 2; matmul at 3 with latency (default ws, overlap; one
  // fold) 128 + 2 + (128 + 128 - 2) - 1 = 383, so the MXU is busy until
  // 386; halt at 4. total = max(4 + 1, 386) = 386.
  EXPECT_EQ(r->totalCycles, 386u);
  EXPECT_EQ(r->unitBusyCycles[size_t(isa::Unit::Mxu)], 383u);
}

TEST(SimulatorTest, MatmulAccumulate) {
  MachineConfig config = MachineConfig::getDefault();
  isa::Program p = makeProgram({
      li(1, kA),
      li(2, kB),
      li(3, kC),
      matmul(3, 1, 2, 2, 2, 2, 2, 2, /*acc=*/true),
      halt(),
  });
  Simulator sim(config, p);
  writeVmem(sim, kA, 2, 2, 2, {1, 2, 3, 4});
  writeVmem(sim, kB, 2, 2, 2, {5, 6, 7, 8});
  writeVmem(sim, kC, 2, 2, 2, {1, 10, 100, 1000});
  auto r = sim.run();
  ASSERT_TRUE(bool(r)) << llvm::toString(r.takeError());
  // C + [19 22; 43 50] = [20 32; 143 1050]
  EXPECT_EQ(readVmem(sim, kC, 2, 2, 2),
            (std::vector<float>{20, 32, 143, 1050}));
}

TEST(SimulatorTest, MatmulLatencyFormula) {
  MachineConfig config = MachineConfig::getDefault(); // 128 x 128 MXU
  struct Case {
    uint16_t m, n, k;
    uint64_t latency;
  } cases[] = {
      // The default MXU: weight-stationary with overlap (docs/isa.md):
      // folds = ceil(K/128) * ceil(N/128), latency =
      // 128 + (folds - 1) * max(M, 128) + M + 254 - 1
      {2, 2, 2, 383},        // 1 fold: 128 + 2 + 253
      {128, 128, 128, 509},  // 1 fold: 128 + 128 + 253
      {5, 130, 200, 770},    // 4 folds: 128 + 3 * 128 + 5 + 253
      {1, 256, 129, 766},    // 4 folds: 128 + 3 * 128 + 1 + 253
      {300, 1, 1, 681},      // 1 fold: 128 + 300 + 253
      {3, 129, 384, 1024},   // 6 folds: 128 + 5 * 128 + 3 + 253
      {200, 256, 256, 1181}, // 4 folds: 128 + 3 * 200 + 200 + 253
  };
  for (const Case &c : cases) {
    SCOPED_TRACE("m=" + std::to_string(c.m) + " n=" + std::to_string(c.n) +
                 " k=" + std::to_string(c.k));
    uint64_t aBytes = uint64_t(c.m) * c.k * 4;
    uint64_t bBytes = uint64_t(c.k) * c.n * 4;
    uint64_t cBytes = uint64_t(c.m) * c.n * 4;
    isa::Program p;
    p.name = "mxu";
    p.buffers = {vmemBuffer("A", 0, aBytes), vmemBuffer("B", aBytes, bBytes),
                 vmemBuffer("C", aBytes + bBytes, cBytes)};
    p.code = {li(1, 0), li(2, int64_t(aBytes)), li(3, int64_t(aBytes + bBytes)),
              matmul(3, 1, 2, c.m, c.n, c.k, c.k, c.n), halt()};
    Simulator sim(config, p);
    EventLog rec;
    sim.addObserver(&rec);
    auto r = sim.run();
    ASSERT_TRUE(bool(r)) << llvm::toString(r.takeError());
    ASSERT_EQ(rec.retired.size(), 5u);
    EXPECT_EQ(rec.retired[3].issueCycle, 3u);
    EXPECT_EQ(rec.retired[3].unitStart, 3u);
    EXPECT_EQ(rec.retired[3].unitEnd, 3u + c.latency);
    EXPECT_EQ(r->unitBusyCycles[size_t(isa::Unit::Mxu)], c.latency);
    // Matmul at 3, halt at 4: total = max(5, 3 + latency).
    EXPECT_EQ(r->totalCycles, 3u + c.latency);
  }
}

TEST(SimulatorTest, MxuBusyStall) {
  MachineConfig config = MachineConfig::getDefault();
  isa::Program p = makeProgram({
      li(1, kA), li(2, kB), li(3, kC), li(4, kC + 64),
      matmul(3, 1, 2, 2, 2, 2, 2, 2), // 4: [4, 4 + 383 = 387)
      matmul(4, 1, 2, 2, 2, 2, 2, 2), // ready 5, MXU busy until 387
      halt(),                         // ready 388
  });
  Simulator sim(config, p);
  auto r = sim.run();
  ASSERT_TRUE(bool(r)) << llvm::toString(r.takeError());
  // Second matmul: stall 387 - 5 = 382, runs [387, 770).
  EXPECT_EQ(stall(*r, StallCause::MxuBusy), 382u);
  EXPECT_EQ(stall(*r, StallCause::DataHazard), 0u);
  EXPECT_EQ(r->totalCycles, 770u);
}

//===----------------------------------------------------------------------===//
// VPU
//===----------------------------------------------------------------------===//

/// `i` with the row broadcast flag (y is 1 x cols) instead of any other.
static isa::Inst rowBroadcast(isa::Inst i) {
  i.flags = isa::kFlagBroadcastRow;
  return i;
}

TEST(SimulatorTest, VpuElementwise) {
  MachineConfig config = MachineConfig::getDefault();
  // x at kA (2x3, stride 3), y at kB (2x3, stride 4), outputs in c.
  const uint64_t o = kC;
  isa::Program p = makeProgram({
      li(1, kA),
      li(2, kB),
      li(10, o),
      li(11, o + 64),
      li(12, o + 128),
      li(13, o + 192),
      li(14, o + 256),
      li(15, o + 320),
      li(16, o + 384),
      vbinary(Opcode::VAdd, 10, 1, 2, 2, 3, 3, 4, 3),
      vbinary(Opcode::VSub, 11, 1, 2, 2, 3, 3, 4, 3),
      vbinary(Opcode::VMul, 12, 1, 2, 2, 3, 3, 4, 3),
      vbinary(Opcode::VDiv, 13, 2, 1, 2, 3, 4, 3, 3),
      vbinary(Opcode::VMax, 14, 1, 2, 2, 3, 3, 4, 3),
      // Broadcast: y is rows x 1 (the first column of y, stride 4).
      vbinary(Opcode::VMul, 15, 1, 2, 2, 3, 3, 4, 3, /*bcast=*/true),
      vunary(Opcode::VCopy, 16, 1, 2, 3, 3, 3),
      // Row broadcast: y is 1 x cols (the second row of y, [2 -5 12]).
      li(17, kB + 16),
      li(18, o + 448),
      rowBroadcast(vbinary(Opcode::VSub, 18, 1, 17, 2, 3, 3, 4, 3)),
      halt(),
  });
  Simulator sim(config, p);
  writeVmem(sim, kA, 2, 3, 3, {1, -2, 3, 4, 5, -6});
  writeVmem(sim, kB, 2, 4, 4, {10, 20, 30, 0, 2, -5, 12, 0});
  auto r = sim.run();
  ASSERT_TRUE(bool(r)) << llvm::toString(r.takeError());
  // x = [1 -2 3; 4 5 -6], y = [10 20 30; 2 -5 12]
  EXPECT_EQ(readVmem(sim, o, 2, 3, 3),
            (std::vector<float>{11, 18, 33, 6, 0, 6}));
  EXPECT_EQ(readVmem(sim, o + 64, 2, 3, 3),
            (std::vector<float>{-9, -22, -27, 2, 10, -18}));
  EXPECT_EQ(readVmem(sim, o + 128, 2, 3, 3),
            (std::vector<float>{10, -40, 90, 8, -25, -72}));
  // y / x = [10/1 20/-2 30/3; 2/4 -5/5 12/-6]
  EXPECT_EQ(readVmem(sim, o + 192, 2, 3, 3),
            (std::vector<float>{10, -10, 10, 0.5f, -1, -2}));
  EXPECT_EQ(readVmem(sim, o + 256, 2, 3, 3),
            (std::vector<float>{10, 20, 30, 4, 5, 12}));
  // x * [10; 2] = [10 -20 30; 8 10 -12]
  EXPECT_EQ(readVmem(sim, o + 320, 2, 3, 3),
            (std::vector<float>{10, -20, 30, 8, 10, -12}));
  EXPECT_EQ(readVmem(sim, o + 384, 2, 3, 3),
            (std::vector<float>{1, -2, 3, 4, 5, -6}));
  // x - [2 -5 12] per row = [-1 3 -9; 2 10 -18]
  EXPECT_EQ(readVmem(sim, o + 448, 2, 3, 3),
            (std::vector<float>{-1, 3, -9, 2, 10, -18}));
}

TEST(SimulatorTest, VpuUnaryFillAndReductions) {
  MachineConfig config = MachineConfig::getDefault();
  const uint64_t o = kC;
  isa::Program p = makeProgram({
      li(1, kA),
      li(2, kB),
      li(10, o),
      li(11, o + 64),
      li(12, o + 128),
      li(13, o + 192),
      li(14, o + 256),
      vfill(10, 2, 3, 4, 2.5f),                 // 2x3 at stride 4
      vunary(Opcode::VSqrt, 11, 2, 1, 4, 4, 4), // sqrt of y row 0
      vunary(Opcode::VExp, 12, 2, 1, 2, 4, 2),  // exp of y[0][0..1]
      vunary(Opcode::VRSum, 13, 1, 2, 3, 3, 1), // row sums, dense out
      vunary(Opcode::VRMax, 14, 1, 2, 3, 3, 2), // row max, out stride 2
      halt(),
  });
  Simulator sim(config, p);
  writeVmem(sim, kA, 2, 3, 3, {1, -2, 3, -4, -5, -6});
  writeVmem(sim, kB, 1, 4, 4, {0, 1, 4, 9});
  // Sentinels around the outputs.
  writeVmem(sim, o, 2, 4, 4, {-7, -7, -7, -7, -7, -7, -7, -7});
  writeVmem(sim, o + 256, 2, 2, 2, {-7, -7, -7, -7});
  auto r = sim.run();
  ASSERT_TRUE(bool(r)) << llvm::toString(r.takeError());
  // Fill writes 2.5 in the 2x3 tile, the 4th column keeps its value.
  EXPECT_EQ(readVmem(sim, o, 2, 4, 4),
            (std::vector<float>{2.5f, 2.5f, 2.5f, -7, 2.5f, 2.5f, 2.5f, -7}));
  EXPECT_EQ(readVmem(sim, o + 64, 1, 4, 4), (std::vector<float>{0, 1, 2, 3}));
  std::vector<float> e = readVmem(sim, o + 128, 1, 2, 2);
  EXPECT_EQ(e[0], 1.0f);              // exp(0)
  EXPECT_FLOAT_EQ(e[1], 2.71828183f); // exp(1)
  // Row sums: 1 - 2 + 3 = 2, -4 - 5 - 6 = -15.
  EXPECT_EQ(readVmem(sim, o + 192, 2, 1, 1), (std::vector<float>{2, -15}));
  // Row max: 3 and -4 (all-negative row), written at stride 2.
  EXPECT_EQ(readVmem(sim, o + 256, 2, 2, 2),
            (std::vector<float>{3, -7, -4, -7}));
}

/// `i` with the maxnum flag (vpu.max / vpu.rmax ignore NaN).
static isa::Inst maxNum(isa::Inst i) {
  i.flags |= isa::kFlagMaxNum;
  return i;
}

// docs/isa.md "NaN": vpu.max is IEEE 754-2019 maximum (NaN in either
// position gives NaN; -0 < +0), with the maxnum flag IEEE 754-2008 maxNum
// (NaN ignored unless both are); vpu.rmax folds each row from its first
// element with the same operation. Checked against the definitions, both
// operand orders.
TEST(SimulatorTest, MaxAndRowMaxNanSemantics) {
  MachineConfig config = MachineConfig::getDefault();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const uint64_t o = kC;
  isa::Program p = makeProgram({
      li(1, kA),
      li(2, kB),
      li(10, o),
      li(11, o + 64),
      li(12, o + 128),
      li(13, o + 192),
      vbinary(Opcode::VMax, 10, 1, 2, 1, 4, 4, 4, 4),         // max(x, y)
      vbinary(Opcode::VMax, 11, 2, 1, 1, 4, 4, 4, 4),         // max(y, x)
      maxNum(vbinary(Opcode::VMax, 12, 1, 2, 1, 4, 4, 4, 4)), // maxNum(x, y)
      maxNum(vbinary(Opcode::VMax, 13, 2, 1, 1, 4, 4, 4, 4)), // maxNum(y, x)
      halt(),
  });
  Simulator sim(config, p);
  // Pairs: (NaN, 1), (2, NaN), (-0, +0), (NaN, NaN).
  writeVmem(sim, kA, 1, 4, 4, {nan, 2, -0.0f, nan});
  writeVmem(sim, kB, 1, 4, 4, {1, nan, 0.0f, nan});
  auto r = sim.run();
  ASSERT_TRUE(bool(r)) << llvm::toString(r.takeError());
  for (uint64_t out : {o, o + 64}) {
    std::vector<float> v = readVmem(sim, out, 1, 4, 4);
    EXPECT_TRUE(std::isnan(v[0]));
    EXPECT_TRUE(std::isnan(v[1]));
    EXPECT_EQ(v[2], 0.0f);
    EXPECT_FALSE(std::signbit(v[2])); // +0 either way round
    EXPECT_TRUE(std::isnan(v[3]));
  }
  for (uint64_t out : {o + 128, o + 192}) {
    std::vector<float> v = readVmem(sim, out, 1, 4, 4);
    EXPECT_EQ(v[0], 1.0f);
    EXPECT_EQ(v[1], 2.0f);
    EXPECT_FALSE(std::signbit(v[2]));
    EXPECT_TRUE(std::isnan(v[3]));
  }

  // Rows: (3, NaN, 5), (NaN, NaN, NaN), (-0, -2, +0).
  isa::Program q = makeProgram({
      li(1, kA),
      li(10, o),
      li(11, o + 64),
      vunary(Opcode::VRMax, 10, 1, 3, 3, 3, 1),
      maxNum(vunary(Opcode::VRMax, 11, 1, 3, 3, 3, 1)),
      halt(),
  });
  Simulator sim2(config, q);
  writeVmem(sim2, kA, 3, 3, 3, {3, nan, 5, nan, nan, nan, -0.0f, -2, 0.0f});
  auto r2 = sim2.run();
  ASSERT_TRUE(bool(r2)) << llvm::toString(r2.takeError());
  std::vector<float> m = readVmem(sim2, o, 3, 1, 1);
  EXPECT_TRUE(std::isnan(m[0])); // a NaN in the row
  EXPECT_TRUE(std::isnan(m[1]));
  EXPECT_EQ(m[2], 0.0f);
  EXPECT_FALSE(std::signbit(m[2]));
  std::vector<float> n = readVmem(sim2, o + 64, 3, 1, 1);
  EXPECT_EQ(n[0], 5.0f);         // NaN skipped
  EXPECT_TRUE(std::isnan(n[1])); // only NaNs
  EXPECT_FALSE(std::signbit(n[2]));
  EXPECT_EQ(isa::toString(q.code[4]), "vpu.rmax r11, r1, 3x3, s=3,1 maxnum");
}

TEST(SimulatorTest, VpuLatencyAndBusyStall) {
  MachineConfig config = MachineConfig::getDefault();
  isa::Program p = makeProgram({
      li(1, kA), li(2, kB), li(3, kC), li(4, kC + 64),
      // 4: 8 + ceil(6/1024) * 1 = 9 cycles: VPU busy [4, 13).
      vbinary(Opcode::VAdd, 3, 1, 2, 2, 3, 3, 3, 3),
      // Own output, so only the unit is contended: ready 5, VPU busy
      // until 13: stall 8; 8 + ceil(6/1024) * 4 = 12 cycles: [13, 25).
      vbinary(Opcode::VDiv, 4, 1, 2, 2, 3, 3, 3, 3),
      halt(), // ready 14; total = max(14 + 1, 25) = 25
  });
  Simulator sim(config, p);
  EventLog rec;
  sim.addObserver(&rec);
  auto r = sim.run();
  ASSERT_TRUE(bool(r)) << llvm::toString(r.takeError());
  ASSERT_EQ(rec.retired.size(), 7u);
  EXPECT_EQ(rec.retired[4].unitStart, 4u);
  EXPECT_EQ(rec.retired[4].unitEnd, 13u);
  EXPECT_EQ(rec.retired[5].issueCycle, 13u);
  EXPECT_EQ(rec.retired[5].stallCycles, 8u);
  EXPECT_EQ(rec.retired[5].cause, StallCause::VpuBusy);
  EXPECT_EQ(rec.retired[5].unitEnd, 25u);
  EXPECT_EQ(rec.retired[6].issueCycle, 14u);
  EXPECT_EQ(stall(*r, StallCause::VpuBusy), 8u);
  EXPECT_EQ(r->unitBusyCycles[size_t(isa::Unit::Vpu)], 21u); // 9 + 12
  EXPECT_EQ(r->totalCycles, 25u);
}

TEST(SimulatorTest, VpuLatencyScalesWithLanePasses) {
  MachineConfig config = MachineConfig::getDefault();
  // 16 x 128 = 2048 elements = 2 passes of 1024 lanes.
  isa::Program p;
  p.name = "vpu";
  p.buffers = {vmemBuffer("x", 0, 8192), vmemBuffer("y", 8192, 8192)};
  p.code = {li(1, 0), li(2, 8192),
            vunary(Opcode::VExp, 2, 1, 16, 128, 128, 128), // 8 + 2*4 = 16
            vunary(Opcode::VRSum, 2, 1, 16, 128, 128, 1),  // 8 + 2*2 = 12
            halt()};
  Simulator sim(config, p);
  EventLog rec;
  sim.addObserver(&rec);
  auto r = sim.run();
  ASSERT_TRUE(bool(r)) << llvm::toString(r.takeError());
  ASSERT_EQ(rec.retired.size(), 5u);
  // exp at 2: [2, 18). rsum ready 3, VPU busy until 18 (it also overwrites
  // y, which exp writes: both causes end at 18, the unit is checked first).
  EXPECT_EQ(rec.retired[2].unitEnd, 18u);
  EXPECT_EQ(rec.retired[3].issueCycle, 18u);
  EXPECT_EQ(rec.retired[3].unitEnd, 30u);
  EXPECT_EQ(r->totalCycles, 30u);
}

TEST(SimulatorTest, DataHazardOnMatmulResult) {
  MachineConfig config = MachineConfig::getDefault();
  isa::Program p = makeProgram({
      li(1, kA),
      li(2, kB),
      li(3, kC),
      li(4, kC + 64),
      matmul(3, 1, 2, 2, 2, 2, 2, 2),          // 4: writes C until 387
      vunary(Opcode::VCopy, 4, 3, 2, 2, 2, 2), // reads C: ready 5
      halt(),
  });
  Simulator sim(config, p);
  writeVmem(sim, kA, 2, 2, 2, {1, 2, 3, 4});
  writeVmem(sim, kB, 2, 2, 2, {5, 6, 7, 8});
  auto r = sim.run();
  ASSERT_TRUE(bool(r)) << llvm::toString(r.takeError());
  // Copy waits 387 - 5 = 382 cycles for the MXU result, runs [387, 396).
  EXPECT_EQ(stall(*r, StallCause::DataHazard), 382u);
  EXPECT_EQ(stall(*r, StallCause::VpuBusy), 0u);
  EXPECT_EQ(r->totalCycles, 396u);
  EXPECT_EQ(readVmem(sim, kC + 64, 2, 2, 2),
            (std::vector<float>{19, 22, 43, 50}));
}

//===----------------------------------------------------------------------===//
// DMA
//===----------------------------------------------------------------------===//

TEST(SimulatorTest, DmaIssueWaitTiming) {
  MachineConfig config = configFrom(kDmaConfig, kConfigName);
  isa::Program p = makeProgram({
      li(1, kX),
      li(2, kA),
      dmaIssue(3, 1, 2, MemSpace::HBM, MemSpace::VMEM, 1, 64, 64, 64),
      dmaWait(3),
      halt(),
  });
  Simulator sim(config, p);
  EventLog rec;
  sim.addObserver(&rec);
  auto r = sim.run();
  ASSERT_TRUE(bool(r)) << llvm::toString(r.takeError());
  // li at 0, li at 1, ISSUE at 2 of 1 x 64 x 4 = 256 bytes:
  //   baseEnd 2 + 100 = 102, transfer 256 / 64 = 4, complete 106.
  // WAIT ready at 3 < 102: stallBase 102 - 3 = 99, stallTransfer
  //   106 - 102 = 4, resumes at 106.
  // halt ready 107; total = max(107 + 1, 106) = 108.
  EXPECT_EQ(r->instructions, 5u);
  EXPECT_EQ(r->totalCycles, 108u);
  EXPECT_EQ(stall(*r, StallCause::DmaWaitBase), 99u);
  EXPECT_EQ(stall(*r, StallCause::DmaWaitTransfer), 4u);
  EXPECT_EQ(stall(*r, StallCause::DmaSlots), 0u);
  EXPECT_EQ(r->unitBusyCycles[size_t(isa::Unit::Dma)], 4u);
  EXPECT_EQ(sim.getRegister(3), 0u); // the first DMA id

  ASSERT_EQ(rec.issued.size(), 1u);
  EXPECT_EQ(rec.issued[0].second.issue, 2u);
  EXPECT_EQ(rec.issued[0].second.bytes, 256u);
  EXPECT_EQ(rec.issued[0].second.baseEnd, 102u);
  EXPECT_EQ(rec.issued[0].second.complete, 106u);
  ASSERT_EQ(rec.waits.size(), 1u);
  EXPECT_EQ(rec.waits[0].pc, 3u);
  EXPECT_EQ(rec.waits[0].cycle, 3u);
  EXPECT_EQ(rec.waits[0].outcome.resume, 106u);
  ASSERT_EQ(rec.retired.size(), 5u);
  EXPECT_EQ(rec.retired[3].issueCycle, 106u);
  EXPECT_EQ(rec.retired[3].stallCycles, 103u);
  EXPECT_EQ(rec.retired[3].cause, StallCause::DmaWaitBase);
  EXPECT_EQ(rec.retired[4].issueCycle, 107u);

  // Functional effect: VMEM a holds the first 64 elements of x.
  std::vector<float> a = readVmem(sim, kA, 1, 64, 64);
  for (uint64_t i = 0; i < 64; ++i)
    ASSERT_EQ(a[i], isa::initValue(kSeed, i)) << i;
}

// The three WAIT positions of Fig. 4, moved by padding with nops.
TEST(SimulatorTest, DmaWaitPositions) {
  MachineConfig config = configFrom(kDmaConfig, kConfigName);
  // ISSUE at 2: baseEnd 102, complete 106 (as above). With N nops at
  // 3 .. N+2 the WAIT is ready at w = N + 3.
  struct Case {
    unsigned nops;
    uint64_t stallBase, stallTransfer, slack, total;
  } cases[] = {
      // w = 3:   base 102 - 3 = 99, transfer 4; halt at 107, total 108.
      {0, 99, 4, 0, 108},
      // w = 101: base 1, transfer 4.
      {98, 1, 4, 0, 108},
      // w = 102 == baseEnd: base 0, transfer 106 - 102 = 4.
      {99, 0, 4, 0, 108},
      // w = 104: transfer 106 - 104 = 2.
      {101, 0, 2, 0, 108},
      // w = 105: transfer 1.
      {102, 0, 1, 0, 108},
      // w = 106 == complete: no stall, slack 0; halt at 107, total 108.
      {103, 0, 0, 0, 108},
      // w = 113: slack 113 - 106 = 7; halt at 114, total 115.
      {110, 0, 0, 7, 115},
  };
  for (const Case &c : cases) {
    SCOPED_TRACE("nops = " + std::to_string(c.nops));
    std::vector<Inst> code = {
        li(1, kX), li(2, kA),
        dmaIssue(3, 1, 2, MemSpace::HBM, MemSpace::VMEM, 1, 64, 64, 64)};
    code.insert(code.end(), c.nops, nop());
    code.push_back(dmaWait(3));
    code.push_back(halt());
    isa::Program p = makeProgram(code);
    Simulator sim(config, p);
    EventLog rec;
    sim.addObserver(&rec);
    auto r = sim.run();
    ASSERT_TRUE(bool(r)) << llvm::toString(r.takeError());
    EXPECT_EQ(r->instructions, 5u + c.nops);
    EXPECT_EQ(stall(*r, StallCause::DmaWaitBase), c.stallBase);
    EXPECT_EQ(stall(*r, StallCause::DmaWaitTransfer), c.stallTransfer);
    EXPECT_EQ(r->totalCycles, c.total);
    ASSERT_EQ(rec.waits.size(), 1u);
    EXPECT_EQ(rec.waits[0].cycle, c.nops + 3u);
    EXPECT_EQ(rec.waits[0].outcome.stallBase, c.stallBase);
    EXPECT_EQ(rec.waits[0].outcome.stallTransfer, c.stallTransfer);
    EXPECT_EQ(rec.waits[0].outcome.slack, c.slack);
  }
}

TEST(SimulatorTest, TotalIncludesDmaDrain) {
  MachineConfig config = configFrom(kDmaConfig, kConfigName);
  isa::Program p = makeProgram({
      li(1, kX),
      li(2, kA),
      dmaIssue(3, 1, 2, MemSpace::HBM, MemSpace::VMEM, 1, 64, 64, 64),
      halt(),
  });
  Simulator sim(config, p);
  auto r = sim.run();
  ASSERT_TRUE(bool(r)) << llvm::toString(r.takeError());
  // ISSUE at 2 completes at 106; halt at 3: total = max(4, 106) = 106.
  EXPECT_EQ(r->totalCycles, 106u);
  EXPECT_EQ(stall(*r, StallCause::DmaWaitBase), 0u);
}

TEST(SimulatorTest, DmaFifoOnOneLink) {
  MachineConfig config = configFrom(kDmaConfig, kConfigName);
  isa::Program p = makeProgram({
      li(1, kX), li(2, kA), li(5, kB),
      // 3: baseEnd 103, complete 107.
      dmaIssue(3, 1, 2, MemSpace::HBM, MemSpace::VMEM, 1, 64, 64, 64),
      // 4: baseEnd 104 (in parallel), start max(104, 107) = 107, done 111.
      dmaIssue(4, 1, 5, MemSpace::HBM, MemSpace::VMEM, 1, 64, 64, 64),
      // w = 5: base 103 - 5 = 98, transfer 107 - 103 = 4; resume 107.
      dmaWait(3),
      // w = 108: 104 <= 108 < 111: transfer 111 - 108 = 3; resume 111.
      dmaWait(4),
      halt(), // 112; total 113
  });
  Simulator sim(config, p);
  auto r = sim.run();
  ASSERT_TRUE(bool(r)) << llvm::toString(r.takeError());
  EXPECT_EQ(sim.getRegister(3), 0u);
  EXPECT_EQ(sim.getRegister(4), 1u);
  EXPECT_EQ(stall(*r, StallCause::DmaWaitBase), 98u);
  EXPECT_EQ(stall(*r, StallCause::DmaWaitTransfer), 7u);
  EXPECT_EQ(r->totalCycles, 113u);
  const DmaEngine &dma = sim.getDmaEngine();
  ASSERT_EQ(dma.numIssued(), 2u);
  EXPECT_EQ(dma.get(1).transferStart, 107u);
  EXPECT_EQ(dma.get(1).complete, 111u);
}

TEST(SimulatorTest, DmaSlotsStall) {
  MachineConfig config = configFrom(R"json({
    "dma": { "max_outstanding": 1, "links": [
      { "src": "hbm", "dst": "vmem", "base_latency": 100,
        "bytes_per_cycle": 64 } ] }
  })json",
                                    kConfigName);
  isa::Program p = makeProgram({
      li(1, kX), li(2, kA), li(5, kB),
      // 3: baseEnd 103, complete 107.
      dmaIssue(3, 1, 2, MemSpace::HBM, MemSpace::VMEM, 1, 64, 64, 64),
      // ready 4, one DMA outstanding until 107: stall 103 (dma_slots);
      // issues at 107: baseEnd 207, complete 211.
      dmaIssue(4, 1, 5, MemSpace::HBM, MemSpace::VMEM, 1, 64, 64, 64),
      // w = 108 >= 107: slack 1.
      dmaWait(3),
      // w = 109: base 207 - 109 = 98, transfer 4; resume 211.
      dmaWait(4),
      halt(), // 212; total 213
  });
  Simulator sim(config, p);
  auto r = sim.run();
  ASSERT_TRUE(bool(r)) << llvm::toString(r.takeError());
  EXPECT_EQ(stall(*r, StallCause::DmaSlots), 103u);
  EXPECT_EQ(stall(*r, StallCause::DmaWaitBase), 98u);
  EXPECT_EQ(stall(*r, StallCause::DmaWaitTransfer), 4u);
  EXPECT_EQ(r->totalCycles, 213u);
}

TEST(SimulatorTest, DmaRoundTripThroughVpu) {
  MachineConfig config = configFrom(kDmaConfig, kConfigName);
  isa::Program p = makeProgram({
      li(1, kX), li(2, kA), li(5, kB), li(6, kOut),
      // 4: 2 x 32 tile of x (row stride 64) -> a (dense): 256 bytes,
      //    baseEnd 104, complete 108.
      dmaIssue(3, 1, 2, MemSpace::HBM, MemSpace::VMEM, 2, 32, 64, 32),
      // w = 5: base 99, transfer 4, resume 108.
      dmaWait(3),
      // 109: b = a + a, 8 + ceil(64/1024) = 9 cycles: [109, 118).
      vbinary(Opcode::VAdd, 5, 2, 2, 2, 32, 32, 32, 32),
      // ready 110, reads b while the VPU writes it: data hazard until
      // 118 (stall 8). b -> out (row stride 40 = 160 bytes): baseEnd 218;
      // HBM moves whole 64-byte bursts: row 0 [0, 128) of out takes 2,
      // row 1 [160, 288) 3 (bursts 2..4), 320 bytes: complete 218 + 5.
      dmaIssue(4, 5, 6, MemSpace::VMEM, MemSpace::HBM, 2, 32, 32, 40),
      // w = 119: base 99, transfer 5, resume 223.
      dmaWait(4),
      halt(), // 224; total 225
  });
  Simulator sim(config, p);
  auto r = sim.run();
  ASSERT_TRUE(bool(r)) << llvm::toString(r.takeError());
  EXPECT_EQ(r->instructions, 10u);
  EXPECT_EQ(stall(*r, StallCause::DmaWaitBase), 198u);
  EXPECT_EQ(stall(*r, StallCause::DmaWaitTransfer), 4u + 5);
  EXPECT_EQ(stall(*r, StallCause::DataHazard), 8u);
  EXPECT_EQ(r->totalCycles, 225u);

  // out[r * 40 + c] = 2 * x[r * 64 + c] for r < 2, c < 32.
  std::vector<float> out = readTile(sim, MemSpace::HBM, kOut, 2, 40, 40);
  for (uint64_t c = 0; c < 32; ++c) {
    EXPECT_EQ(out[c], 2 * isa::initValue(kSeed, c)) << c;
    EXPECT_EQ(out[40 + c], 2 * isa::initValue(kSeed, 64 + c)) << c;
  }
  // The gaps between the rows and the rest of the zero-initialised output
  // are still zero.
  for (uint64_t c = 32; c < 40; ++c) {
    EXPECT_EQ(out[c], 0.0f) << c;
    EXPECT_EQ(out[40 + c], 0.0f) << c;
  }
  // Exactly one HBM page was written.
  auto dirty = sim.getMemory().dirtyHbmPages();
  ASSERT_EQ(dirty.size(), 1u);
  EXPECT_EQ(dirty.begin()->first, kOut);
}

//===----------------------------------------------------------------------===//
// Faults
//===----------------------------------------------------------------------===//

bool startsWith(const std::string &s, const std::string &prefix) {
  return s.rfind(prefix, 0) == 0;
}

TEST(SimulatorTest, FaultVmemOutOfBounds) {
  MachineConfig config = MachineConfig::getDefault();
  {
    // Not inside any buffer.
    isa::Program p =
        makeProgram({li(1, 1000000), vfill(1, 2, 2, 2, 0.0f), halt()});
    Simulator sim(config, p);
    std::string msg = faultOf(sim.run());
    EXPECT_TRUE(startsWith(msg, "fault at pc 1 (vpu.fill r1, 2x2, s=2, 0)"))
        << msg;
    EXPECT_NE(msg.find("VMEM access out of bounds"), std::string::npos) << msg;
    // [1000000, 1000000 + 2 * 2 * 4)
    EXPECT_NE(msg.find("[1000000, 1000016)"), std::string::npos) << msg;
  }
  {
    // Straddles the end of buffer a = [0, 4096): [4088, 4104).
    isa::Program p =
        makeProgram({li(1, 4088), vfill(1, 2, 2, 2, 1.0f), halt()});
    Simulator sim(config, p);
    std::string msg = faultOf(sim.run());
    EXPECT_TRUE(startsWith(msg, "fault at pc 1 ")) << msg;
    EXPECT_NE(msg.find("VMEM access out of bounds"), std::string::npos) << msg;
  }
  {
    // A matmul operand past the end: B 2x2 at 4092.
    isa::Program p = makeProgram({li(1, kA), li(2, 4092), li(3, kC),
                                  matmul(3, 1, 2, 2, 2, 2, 2, 2), halt()});
    Simulator sim(config, p);
    std::string msg = faultOf(sim.run());
    EXPECT_TRUE(startsWith(msg, "fault at pc 3 ")) << msg;
    EXPECT_NE(msg.find("VMEM access out of bounds"), std::string::npos) << msg;
  }
  {
    // A DMA destination past the end of VMEM buffer c.
    isa::Program p = makeProgram(
        {li(1, kX), li(2, kC + 4000),
         dmaIssue(3, 1, 2, MemSpace::HBM, MemSpace::VMEM, 1, 64, 64, 64),
         halt()});
    Simulator sim(config, p);
    std::string msg = faultOf(sim.run());
    EXPECT_TRUE(startsWith(msg, "fault at pc 2 ")) << msg;
    EXPECT_NE(msg.find("VMEM access out of bounds"), std::string::npos) << msg;
  }
  {
    // An HBM source outside every buffer.
    isa::Program p = makeProgram(
        {li(1, 0x90000), li(2, kA),
         dmaIssue(3, 1, 2, MemSpace::HBM, MemSpace::VMEM, 1, 64, 64, 64),
         halt()});
    Simulator sim(config, p);
    std::string msg = faultOf(sim.run());
    EXPECT_TRUE(startsWith(msg, "fault at pc 2 ")) << msg;
    EXPECT_NE(msg.find("HBM access out of bounds"), std::string::npos) << msg;
  }
}

TEST(SimulatorTest, FaultOutOfBoundsAfterInBoundsRunsOfTheSamePc) {
  // The bounds check remembers, per instruction and operand, the buffer it
  // found last time. One vpu.fill (pc 2) steps 2048 bytes per iteration
  // through a = [0, 4096), b = [4096, 8192) and c = [8192, 12288): each
  // remembered buffer stops holding the tile, the search finds the next
  // one, and the 7th fill, at [12288, 12304) past the end of c, faults.
  MachineConfig config = MachineConfig::getDefault();
  isa::Program p = makeProgram({
      li(1, 0),                // 0: address
      li(2, 2048),             // 1: step
      vfill(1, 2, 2, 2, 1.0f), // 2: 16 bytes at r1
      add(1, 1, 2),            // 3: r1 += 2048
      jmp(2),                  // 4
  });
  Simulator sim(config, p);
  EventLog rec;
  sim.addObserver(&rec);
  // A budget, so that a check that stopped faulting ends the loop too.
  std::string msg = faultOf(sim.run(/*maxInstructions=*/100));
  EXPECT_TRUE(startsWith(msg, "fault at pc 2 (vpu.fill r1, 2x2, s=2, ")) << msg;
  EXPECT_NE(msg.find("VMEM access out of bounds"), std::string::npos) << msg;
  EXPECT_NE(msg.find("[12288, 12304)"), std::string::npos) << msg;
  // Six fills retired, at 0, 2048, ..., 10240, in all three buffers.
  unsigned fills = 0;
  for (const auto &e : rec.retired)
    fills += e.pc == 2;
  EXPECT_EQ(fills, 6u);
}

TEST(SimulatorTest, FaultWaitOnUnissuedDma) {
  MachineConfig config = MachineConfig::getDefault();
  isa::Program p = makeProgram({li(1, 7), dmaWait(1), halt()});
  p.origins = {{11, "accel.const", "w.mlir:3:3"},
               {12, "accel.dma_wait", "w.mlir:4:3"},
               {13, "accel.halt", "w.mlir:5:3"}};
  Simulator sim(config, p);
  std::string msg = faultOf(sim.run());
  EXPECT_TRUE(startsWith(msg, "fault at pc 1 (dma.wait r1), op 12 ")) << msg;
  EXPECT_NE(msg.find("w.mlir:4:3"), std::string::npos) << msg;
  const std::string tail = ": WAIT on DMA id 7, which was never issued";
  ASSERT_GE(msg.size(), tail.size());
  EXPECT_EQ(msg.substr(msg.size() - tail.size()), tail) << msg;

  // Id 0 before any ISSUE (r0 reads as zero).
  isa::Program p0 = makeProgram({dmaWait(0), halt()});
  Simulator sim0(config, p0);
  EXPECT_EQ(faultOf(sim0.run()),
            "fault at pc 0 (dma.wait r0): WAIT on DMA id 0, which was never "
            "issued");
}

TEST(SimulatorTest, FaultPcOffTheEnd) {
  MachineConfig config = MachineConfig::getDefault();
  {
    isa::Program p = makeProgram({li(1, 1), li(2, 2)});
    Simulator sim(config, p);
    std::string msg = faultOf(sim.run());
    EXPECT_TRUE(startsWith(msg, "fault at pc 2")) << msg;
    EXPECT_NE(msg.find("no halt"), std::string::npos) << msg;
    EXPECT_EQ(sim.getRegister(2), 2u); // both instructions ran
  }
  {
    isa::Program p = makeProgram({jmp(100), halt()});
    Simulator sim(config, p);
    std::string msg = faultOf(sim.run());
    EXPECT_TRUE(startsWith(msg, "fault at pc 100")) << msg;
  }
}

TEST(SimulatorTest, FaultInstructionBudget) {
  MachineConfig config = MachineConfig::getDefault();
  {
    isa::Program p = makeProgram({jmp(0)});
    Simulator sim(config, p);
    std::string msg = faultOf(sim.run(/*maxInstructions=*/10));
    EXPECT_TRUE(startsWith(msg, "fault at pc 0 (jmp @0)")) << msg;
    EXPECT_NE(msg.find("budget of 10 exceeded"), std::string::npos) << msg;
  }
  {
    // An endless counting loop: pc 0 li, then addi / jmp forever. After 7
    // instructions (li, then 3 x (addi, jmp)) the next one is the addi at
    // pc 1 and r1 = 3.
    isa::Program p = makeProgram({li(1, 0), addi(1, 1, 1), jmp(1)});
    Simulator sim(config, p);
    std::string msg = faultOf(sim.run(7));
    EXPECT_TRUE(startsWith(msg, "fault at pc 1 (addi r1, r1, 1)")) << msg;
    EXPECT_EQ(sim.getRegister(1), 3u);
  }
  {
    // The 20-instruction Blt loop fits a budget of 20 exactly, not of 19.
    std::vector<Inst> code = {li(1, 0),     li(2, 5),     li(3, 1),
                              li(4, 0),     add(1, 1, 3), addi(4, 4, 10),
                              blt(1, 2, 4), halt()};
    isa::Program p = makeProgram(code);
    Simulator ok(config, p);
    auto r = ok.run(20);
    ASSERT_TRUE(bool(r)) << llvm::toString(r.takeError());
    EXPECT_EQ(r->instructions, 20u);
    Simulator tight(config, p);
    std::string msg = faultOf(tight.run(19));
    EXPECT_TRUE(startsWith(msg, "fault at pc 7 (halt)")) << msg;
  }
}

TEST(SimulatorTest, FaultMissingLink) {
  MachineConfig config = configFrom(R"json({"dma": {"links": [
      { "src": "hbm", "dst": "vmem", "base_latency": 1,
        "bytes_per_cycle": 1 } ]}})json",
                                    kConfigName);
  isa::Program p = makeProgram(
      {li(1, kA), li(2, kOut),
       dmaIssue(3, 1, 2, MemSpace::VMEM, MemSpace::HBM, 1, 4, 4, 4), halt()});
  Simulator sim(config, p);
  std::string msg = faultOf(sim.run());
  EXPECT_TRUE(startsWith(msg, "fault at pc 2 ")) << msg;
  EXPECT_NE(msg.find("no DMA link vmem->hbm"), std::string::npos) << msg;
}

} // namespace

// Issue 12 (found by fuzz-trace): a scalar load or tile whose address is not
// a multiple of 4 was a misaligned f32/i32 access (undefined behaviour); it
// is a fault naming the operand.
TEST(SimulatorTest, FaultMisalignedAccess) {
  MachineConfig config = MachineConfig::getDefault();
  isa::Program p = makeProgram({li(1, 2), sld(2, 1, 0), halt()});
  isa::Buffer v;
  v.name = "v";
  v.space = MemSpace::VMEM;
  v.base = 0;
  v.bytes = 4096;
  p.buffers.push_back(v);
  Simulator sim(config, p);
  std::string msg = faultOf(sim.run());
  EXPECT_NE(msg.find("VMEM access misaligned: scalar load at byte address 2, "
                     "which is not a multiple of 4"),
            std::string::npos)
      << msg;
}

// Issue 12: the VPU and DMA read every input element before writing any
// output (docs/isa.md), with temporaries no larger than an operand's span.
// Random tiles of one small VMEM buffer, with strides 0, below the width
// and above it, overlapping each other or not, against a model that reads
// a copy of memory and then writes the output rows in order.
TEST(SimulatorTest, TileOpsReadEveryInputBeforeWriting) {
  MachineConfig config = MachineConfig::getDefault(); // has vmem->vmem
  constexpr uint64_t kWords = 256;
  uint64_t state = 12345;
  auto next = [&](uint64_t n) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return (state >> 33) % n;
  };
  struct Tile {
    uint64_t base, rows, cols, stride; // base and stride in words
    uint64_t at(uint64_t r, uint64_t c) const { return base + r * stride + c; }
  };
  // A tile of `rows` x `cols` with a random stride and base inside the
  // buffer.
  auto tileOf = [&](uint64_t rows, uint64_t cols) {
    uint64_t stride = next(4) == 0 ? 0 : next(2 * cols + 2);
    uint64_t span = (rows - 1) * stride + cols;
    return Tile{next(kWords - span + 1), rows, cols, stride};
  };
  enum Kind { Add, AddBcast, AddRowBcast, Sub, Copy, RSum, Fill, Dma };
  for (int trial = 0; trial < 4000; ++trial) {
    SCOPED_TRACE("trial " + std::to_string(trial));
    Kind kind = Kind(next(8));
    uint64_t rows = 1 + next(6), cols = 1 + next(6);
    bool reduce = kind == RSum;
    Tile x = tileOf(rows, cols);
    Tile y = tileOf(kind == AddBcast      ? rows
                    : kind == AddRowBcast ? 1
                                          : rows,
                    kind == AddBcast ? 1 : cols);
    Tile out = tileOf(rows, reduce ? 1 : cols);
    // Often the output is the input itself (in place) or a shifted copy.
    if (next(3) == 0 && !reduce)
      out = x;
    std::vector<float> mem(kWords);
    for (uint64_t i = 0; i < kWords; ++i)
      mem[i] = float(i + 1) * 0.5f;
    std::vector<float> want = mem;
    for (uint64_t r = 0; r < rows; ++r) {
      if (reduce) {
        float v = 0;
        for (uint64_t c = 0; c < cols; ++c)
          v += mem[x.at(r, c)];
        want[out.at(r, 0)] = v;
        continue;
      }
      for (uint64_t c = 0; c < cols; ++c) {
        float xv = mem[x.at(r, c)], v = 0;
        switch (kind) {
        case Add:
          v = xv + mem[y.at(r, c)];
          break;
        case AddBcast:
          v = xv + mem[y.at(r, 0)];
          break;
        case AddRowBcast:
          v = xv + mem[y.at(0, c)];
          break;
        case Sub:
          v = xv - mem[y.at(r, c)];
          break;
        case Fill:
          v = 7.25f;
          break;
        default: // Copy, Dma
          v = xv;
        }
        want[out.at(r, c)] = v;
      }
    }
    Inst op;
    uint16_t r16 = uint16_t(rows), c16 = uint16_t(cols);
    uint16_t sx = uint16_t(x.stride), sy = uint16_t(y.stride),
             so = uint16_t(out.stride);
    switch (kind) {
    case Add:
    case AddRowBcast:
      op = vbinary(Opcode::VAdd, 3, 1, 2, r16, c16, sx, sy, so);
      if (kind == AddRowBcast)
        op = rowBroadcast(op);
      break;
    case AddBcast:
      op = vbinary(Opcode::VAdd, 3, 1, 2, r16, c16, sx, sy, so,
                   /*bcast=*/true);
      break;
    case Sub:
      op = vbinary(Opcode::VSub, 3, 1, 2, r16, c16, sx, sy, so);
      break;
    case Copy:
      op = vcopy(3, 1, r16, c16, sx, so);
      break;
    case RSum:
      op = vunary(Opcode::VRSum, 3, 1, r16, c16, sx, so);
      break;
    case Fill:
      op = vfill(3, r16, c16, so, 7.25f);
      break;
    case Dma:
      op = dmaIssue(4, 1, 3, MemSpace::VMEM, MemSpace::VMEM, r16, c16, sx, so);
      break;
    }
    isa::Program p;
    p.name = "tiles";
    p.code = {li(1, int64_t(x.base * 4)), li(2, int64_t(y.base * 4)),
              li(3, int64_t(out.base * 4)), op};
    if (kind == Dma)
      p.code.push_back(dmaWait(4));
    p.code.push_back(halt());
    p.buffers = {vmemBuffer("v", 0, kWords * 4)};
    Simulator sim(config, p);
    writeVmem(sim, 0, 1, kWords, kWords, mem);
    auto r = sim.run();
    ASSERT_TRUE(bool(r)) << llvm::toString(r.takeError());
    ASSERT_EQ(readVmem(sim, 0, 1, kWords, kWords), want)
        << "kind " << kind << ", " << rows << "x" << cols << ", x at " << x.base
        << " stride " << x.stride << ", y at " << y.base << " stride "
        << y.stride << ", out at " << out.base << " stride " << out.stride;
  }
}

// Issue 12: a buffer table that does not fit the machine is a fault before
// the first instruction, also for a program that did not come through the
// lowering or a reader that checks it.
TEST(SimulatorTest, FaultBufferTableLargerThanTheMachine) {
  MachineConfig config = MachineConfig::getDefault();
  isa::Program p;
  p.name = "big";
  p.code = {halt()};
  p.buffers = {vmemBuffer("v", 0, config.vmemBytes + 4096)};
  Simulator sim(config, p);
  std::string msg = faultOf(sim.run());
  EXPECT_NE(msg.find("fault at pc 0 (halt)"), std::string::npos) << msg;
  EXPECT_NE(msg.find("does not fit the config's vmem.bytes"), std::string::npos)
      << msg;
  EXPECT_EQ(sim.getInstructionCount(), 0u);
}
