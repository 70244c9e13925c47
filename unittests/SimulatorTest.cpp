//===- SimulatorTest.cpp - Functional and timed ISA simulator -------------===//
//
// Hand-built programs on the simulator: the scalar unit and control flow,
// the MXU and the VPU. DMAs and faults are in SimulatorDmaTest.cpp; the
// timing rules behind the expected values are in SimulatorTestUtils.h.
//
//===----------------------------------------------------------------------===//

#include "SimulatorTestUtils.h"

#include "accel/Support/FloatMax.h"

#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

using namespace accel;
using namespace accel::sim;
using namespace accel::test;
using isa::Inst;
using isa::MemSpace;
using isa::Opcode;

namespace {

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
      li(1, kA),
      li(2, kB),
      li(3, kC),
      li(4, kC + 64),
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

// ISA version 10: the rounding ops, expm1 and copysign on the values where
// they differ (halves, negative zeros, NaN, infinities), each exactly as
// docs/isa.md "Rounding" gives it.
TEST(SimulatorTest, VpuRoundingExpm1AndCopySign) {
  MachineConfig config = MachineConfig::getDefault();
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const std::vector<float> x = {2.5f, -2.5f, 0.5f, -0.5f,
                                1.5f, -0.0f, inf,  nan};
  const uint64_t o = kC;
  isa::Program p = makeProgram({
      li(1, kA),
      li(2, kB),
      li(10, o),
      li(11, o + 32),
      li(12, o + 64),
      li(13, o + 96),
      li(14, o + 128),
      li(15, o + 160),
      vunary(Opcode::VFloor, 10, 1, 1, 8, 8, 8),
      vunary(Opcode::VCeil, 11, 1, 1, 8, 8, 8),
      vunary(Opcode::VRoundEven, 12, 1, 1, 8, 8, 8),
      vunary(Opcode::VRound, 13, 1, 1, 8, 8, 8),
      vunary(Opcode::VExpm1, 14, 1, 1, 8, 8, 8),
      vbinary(Opcode::VCopySign, 15, 2, 1, 1, 8, 8, 8, 8),
      halt(),
  });
  Simulator sim(config, p);
  writeVmem(sim, kA, 1, 8, 8, x);
  writeVmem(sim, kB, 1, 8, 8, {1, 1, 1, 1, 1, 1, 1, 1});
  auto r = sim.run();
  ASSERT_TRUE(bool(r)) << llvm::toString(r.takeError());
  auto bits = [](const std::vector<float> &v) {
    std::vector<uint32_t> out;
    for (float f : v) {
      uint32_t b;
      std::memcpy(&b, &f, 4);
      out.push_back(std::isnan(f) ? 0x7fc00000u : b);
    }
    return out;
  };
  // Compared as bits: -0.0 must be -0.0, and any NaN reads as one.
  EXPECT_EQ(bits(readVmem(sim, o, 1, 8, 8)),
            bits({2, -3, 0, -1, 1, -0.0f, inf, nan}));
  EXPECT_EQ(bits(readVmem(sim, o + 32, 1, 8, 8)),
            bits({3, -2, 1, -0.0f, 2, -0.0f, inf, nan}));
  EXPECT_EQ(bits(readVmem(sim, o + 64, 1, 8, 8)),
            bits({2, -2, 0, -0.0f, 2, -0.0f, inf, nan}));
  EXPECT_EQ(bits(readVmem(sim, o + 96, 1, 8, 8)),
            bits({3, -3, 1, -1, 2, -0.0f, inf, nan}));
  std::vector<float> e = readVmem(sim, o + 128, 1, 8, 8);
  EXPECT_FLOAT_EQ(e[0], std::expm1(2.5f));
  EXPECT_FLOAT_EQ(e[3], std::expm1(-0.5f));
  EXPECT_EQ(bits({e[5], e[6], e[7]}), bits({-0.0f, inf, nan}));
  // copysign(1, x): 1 with each x's sign bit (also -0.0's and NaN's).
  std::vector<float> c = readVmem(sim, o + 160, 1, 8, 8);
  EXPECT_EQ(c, (std::vector<float>{1, -1, 1, -1, 1, -1, 1, 1}));
}

// vpu.transpose (docs/isa.md "Transposes"): out[c][r] = x[r][c], with x
// and out at their own strides; a 2 x 3 tile and back, the second time in
// place over its own input (read in full before the output is written),
// and a NaN's payload kept.
TEST(SimulatorTest, VpuTranspose) {
  MachineConfig config = MachineConfig::getDefault();
  const uint64_t o = kC;
  isa::Program p = makeProgram({
      li(1, kA),
      li(10, o),
      li(11, o + 128),
      vunary(Opcode::VTranspose, 10, 1, 2, 3, 4, 2),  // x 2x3 at stride 4
      vunary(Opcode::VTranspose, 11, 10, 3, 2, 2, 3), // back, dense
      vunary(Opcode::VTranspose, 11, 11, 2, 3, 3, 2), // in place, 3x2 out
      halt(),
  });
  Simulator sim(config, p);
  float nan = std::numeric_limits<float>::quiet_NaN();
  writeVmem(sim, kA, 2, 4, 4, {1, 2, 3, -7, 4, 5, nan, -7});
  auto r = sim.run();
  ASSERT_TRUE(bool(r)) << llvm::toString(r.takeError());
  std::vector<float> t = readVmem(sim, o, 3, 2, 2);
  EXPECT_EQ(t[0], 1.0f);
  EXPECT_EQ(t[1], 4.0f);
  EXPECT_EQ(t[2], 2.0f);
  EXPECT_EQ(t[3], 5.0f);
  EXPECT_EQ(t[4], 3.0f);
  EXPECT_TRUE(std::isnan(t[5]));
  std::vector<float> again = readVmem(sim, o + 128, 3, 2, 2);
  EXPECT_EQ(again[0], 1.0f);
  EXPECT_EQ(again[1], 4.0f);
  EXPECT_EQ(again[2], 2.0f);
  EXPECT_EQ(again[3], 5.0f);
  EXPECT_EQ(again[4], 3.0f);
  EXPECT_TRUE(std::isnan(again[5]));
}

// Masks (ISA version 9): vpu.iota writes the base register plus the row or
// column index; vpu.cmp 1.0 where the predicate holds (oge: false on NaN);
// vpu.select keeps out where the mask is 0 and takes y elsewhere, here a
// column broadcast. Together a causal mask: out[r][c] = c <= r + 1 ? x :
// -inf, on a 3 x 4 tile whose rows start at 1.
TEST(SimulatorTest, VpuIotaCompareSelect) {
  MachineConfig config = MachineConfig::getDefault();
  const uint64_t o = kC;
  isa::Inst cmp = vbinary(Opcode::VCmp, 13, 12, 11, 3, 4, 4, 1, 4);
  cmp.flags = isa::kFlagBroadcast; // y (the row index) is 3 x 1
  cmp.rd = 5;                      // ole: column <= row
  isa::Inst select = vbinary(Opcode::VSelect, 14, 13, 1, 3, 4, 4, 4, 4);
  isa::Inst nanCmp = vbinary(Opcode::VCmp, 15, 1, 1, 3, 4, 4, 4, 4);
  nanCmp.rd = 13; // une: true only on the NaN
  isa::Inst badPredicate = cmp;
  badPredicate.rd = 16;
  isa::Program p = makeProgram({
      li(1, kA),
      li(2, 1), // the rows start at 1
      li(3, 0),
      li(11, o),       // 3 x 1 row index + 1
      li(12, o + 64),  // 3 x 4 column index
      li(13, o + 128), // mask
      li(14, o + 256), // out, filled with -inf first
      li(15, o + 320),
      viota(11, 2, 3, 1, false),
      viota(12, 3, 3, 4, true),
      cmp,
      vfill(14, 3, 4, 4, -std::numeric_limits<float>::infinity()),
      select,
      nanCmp,
      halt(),
  });
  Simulator sim(config, p);
  float nan = std::numeric_limits<float>::quiet_NaN();
  writeVmem(sim, kA, 3, 4, 4, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, nan});
  auto r = sim.run();
  ASSERT_TRUE(bool(r)) << llvm::toString(r.takeError());
  EXPECT_EQ(readVmem(sim, o, 3, 1, 1), (std::vector<float>{1, 2, 3}));
  EXPECT_EQ(readVmem(sim, o + 64, 3, 4, 4),
            (std::vector<float>{0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3}));
  EXPECT_EQ(readVmem(sim, o + 128, 3, 4, 4),
            (std::vector<float>{1, 1, 0, 0, 1, 1, 1, 0, 1, 1, 1, 1}));
  float inf = std::numeric_limits<float>::infinity();
  std::vector<float> out = readVmem(sim, o + 256, 3, 4, 4);
  std::vector<float> want = {1, 2, -inf, -inf, 5, 6, 7, -inf, 9, 10, 11, nan};
  for (size_t k = 0; k < want.size(); ++k)
    if (std::isnan(want[k]))
      EXPECT_TRUE(std::isnan(out[k])) << k;
    else
      EXPECT_EQ(out[k], want[k]) << k;
  EXPECT_EQ(readVmem(sim, o + 320, 3, 4, 4),
            (std::vector<float>{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1}));

  // A predicate past the 16 is a fault at issue, not a silent "true".
  isa::Program bad = makeProgram(
      {li(11, o), li(12, o + 64), li(13, o + 128), badPredicate, halt()});
  Simulator badSim(config, bad);
  auto badRun = badSim.run();
  ASSERT_FALSE(bool(badRun));
  EXPECT_NE(llvm::toString(badRun.takeError())
                .find("vpu.cmp predicate 16 is not one of the 16"),
            std::string::npos);
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

/// Row reductions fold each row left to right (the sum from 0.0, the
/// maximum from the first element), whatever the number of rows: the
/// simulator interleaves blocks of rows, which must give the bits of the
/// one-row-at-a-time fold (19 rows: two blocks of 8 and 3 more).
TEST(SimulatorTest, VpuRowReductionsFoldLeftToRight) {
  MachineConfig config = MachineConfig::getDefault();
  constexpr uint16_t kRows = 19, kCols = 37;
  uint64_t o = kC;
  isa::Program p = makeProgram({
      li(1, kA),
      li(10, o),
      li(11, o + 128),
      li(12, o + 256),
      vunary(Opcode::VRSum, 10, 1, kRows, kCols, kCols, 1),
      vunary(Opcode::VRMax, 11, 1, kRows, kCols, kCols, 1),
      maxNum(vunary(Opcode::VRMax, 12, 1, kRows, kCols, kCols, 1)),
      halt(),
  });
  // Magnitudes far apart (so the order of a sum shows in its bits), and
  // NaNs, infinities and signed zeros.
  std::mt19937 rng(34);
  std::vector<float> x(kRows * kCols);
  for (float &v : x) {
    switch (rng() % 16) {
    case 0:
      v = std::numeric_limits<float>::quiet_NaN();
      break;
    case 1:
      v = -0.0f;
      break;
    case 2:
      v = (rng() % 2 ? 1 : -1) * std::numeric_limits<float>::infinity();
      break;
    default:
      v = std::ldexp(float(int(rng() % 2001) - 1000), int(rng() % 40) - 20);
    }
  }
  // Row 5 without NaN or infinity, so its sum is a number.
  for (uint16_t c = 0; c < kCols; ++c)
    if (!std::isfinite(x[5 * kCols + c]))
      x[5 * kCols + c] = 0.25f * c;
  Simulator sim(config, p);
  writeVmem(sim, kA, kRows, kCols, kCols, x);
  auto r = sim.run();
  ASSERT_TRUE(bool(r)) << llvm::toString(r.takeError());
  std::vector<float> sums = readVmem(sim, o, kRows, 1, 1);
  std::vector<float> maxima = readVmem(sim, o + 128, kRows, 1, 1);
  std::vector<float> maxNums = readVmem(sim, o + 256, kRows, 1, 1);
  auto bits = [](float v) {
    uint32_t b;
    std::memcpy(&b, &v, 4);
    return b;
  };
  for (uint16_t row = 0; row < kRows; ++row) {
    const float *xr = &x[row * kCols];
    float sum = 0.0f, max = xr[0], maxN = xr[0];
    for (uint16_t c = 0; c < kCols; ++c)
      sum += xr[c];
    for (uint16_t c = 1; c < kCols; ++c) {
      max = accel::maximumF(max, xr[c]);
      maxN = accel::maxNumF(maxN, xr[c]);
    }
    EXPECT_EQ(bits(sums[row]), bits(sum)) << "row " << row;
    EXPECT_EQ(bits(maxima[row]), bits(max)) << "row " << row;
    EXPECT_EQ(bits(maxNums[row]), bits(maxN)) << "row " << row;
  }
  EXPECT_TRUE(std::isfinite(sums[5]));
}

/// mxu.matmul adds each element's products in order of k, one row of C
/// after the other: the simulator computes blocks of rows at once, which
/// must give the bits of the row-at-a-time reference below, and falls back
/// to one row at a time when C overlaps A (here C's row i is A's row i + 1,
/// so each row of A but the first is read after the row of C stored over
/// it).
TEST(SimulatorTest, MxuRowsMatchTheRowAtATimeReference) {
  MachineConfig config = MachineConfig::getDefault();
  constexpr uint16_t kM = 7, kN = 9, kK = 11; // a block of 4 and 3 more
  // VMEM as floats: A at kA (kM + 1 rows, stride kK), B at kB, C at kC, the
  // accumulated C at kC + 512.
  std::mt19937 rng(34);
  auto randoms = [&](size_t n) {
    std::vector<float> v(n);
    for (float &x : v)
      x = std::ldexp(float(int(rng() % 2001) - 1000), int(rng() % 30) - 15);
    return v;
  };
  std::vector<float> a = randoms((kM + 1) * kK), b = randoms(kK * kN),
                     c0 = randoms(kM * kN);
  // The reference on a float image of VMEM (addresses in floats).
  std::vector<float> vmem(4096, 0.0f);
  auto put = [&](uint64_t at, const std::vector<float> &v) {
    std::copy(v.begin(), v.end(), vmem.begin() + at / 4);
  };
  put(kA, a);
  put(kB, b);
  put(kC + 512, c0);
  auto reference = [&](uint64_t cAt, uint64_t aAt, uint16_t sa, uint16_t sc,
                       bool accumulate) {
    for (uint64_t i = 0; i < kM; ++i) {
      std::vector<float> acc(kN, 0.0f);
      if (accumulate)
        for (uint64_t j = 0; j < kN; ++j)
          acc[j] = vmem[cAt / 4 + i * sc + j];
      for (uint64_t kk = 0; kk < kK; ++kk)
        for (uint64_t j = 0; j < kN; ++j)
          acc[j] += vmem[aAt / 4 + i * sa + kk] * vmem[kB / 4 + kk * kN + j];
      for (uint64_t j = 0; j < kN; ++j)
        vmem[cAt / 4 + i * sc + j] = acc[j];
    }
  };
  reference(kC, kA, kK, kN, false);
  reference(kC + 512, kA, kK, kN, true);
  reference(kA + kK * 4, kA, kK, kK, false); // C overlaps A
  isa::Program p = makeProgram({
      li(1, kA),
      li(2, kB),
      li(3, kC),
      li(4, kC + 512),
      li(5, kA + kK * 4),
      matmul(3, 1, 2, kM, kN, kK, kK, kN),
      matmul(4, 1, 2, kM, kN, kK, kK, kN, /*acc=*/true),
      matmul(5, 1, 2, kM, kN, kK, kK, kK),
      halt(),
  });
  Simulator sim(config, p);
  writeVmem(sim, kA, kM + 1, kK, kK, a);
  writeVmem(sim, kB, kK, kN, kN, b);
  writeVmem(sim, kC + 512, kM, kN, kN, c0);
  auto r = sim.run();
  ASSERT_TRUE(bool(r)) << llvm::toString(r.takeError());
  auto bits = [](float v) {
    uint32_t x;
    std::memcpy(&x, &v, 4);
    return x;
  };
  // VMEM up to the end of C's block (the buffers span 12 KiB).
  std::vector<float> got = readVmem(sim, 0, 1, kC / 4 + 256, kC / 4 + 256);
  size_t checked = 0;
  for (uint64_t at : {uint64_t(kC), uint64_t(kC + 512), uint64_t(kA + kK * 4)})
    for (uint64_t i = 0; i < kM; ++i)
      for (uint64_t j = 0; j < kN; ++j) {
        uint64_t stride = at < kB ? kK : kN;
        uint64_t f = at / 4 + i * stride + j;
        EXPECT_EQ(bits(got[f]), bits(vmem[f]))
            << "C at " << at << " row " << i << " col " << j;
        ++checked;
      }
  EXPECT_EQ(checked, 3u * kM * kN);
}

/// Wide rows: C is computed 4 rows x 16 columns at a time in registers
/// (multiplyAccumulate), then the columns past the last whole block; every
/// element must still be its products added in order of k, from 0 or (acc)
/// from C: the bits of a scalar reference, for widths with and without a
/// tail and an odd number of rows.
TEST(SimulatorTest, MxuWideRowsMatchTheReference) {
  MachineConfig config = MachineConfig::getDefault();
  std::mt19937 rng(3416);
  for (auto [m, n, k] :
       {std::array<uint16_t, 3>{8, 40, 13}, std::array<uint16_t, 3>{5, 16, 7},
        std::array<uint16_t, 3>{4, 32, 1}, std::array<uint16_t, 3>{9, 47, 5}}) {
    auto randoms = [&](size_t count) {
      std::vector<float> v(count);
      for (float &x : v)
        x = std::ldexp(float(int(rng() % 2001) - 1000), int(rng() % 30) - 15);
      return v;
    };
    std::vector<float> a = randoms(m * k), b = randoms(k * n),
                       c = randoms(m * n);
    for (bool accumulate : {false, true}) {
      isa::Program p = makeProgram({
          li(1, kA),
          li(2, kB),
          li(3, kC),
          matmul(3, 1, 2, m, n, k, k, n, accumulate),
          halt(),
      });
      Simulator sim(config, p);
      writeVmem(sim, kA, m, k, k, a);
      writeVmem(sim, kB, k, n, n, b);
      writeVmem(sim, kC, m, n, n, c);
      auto r = sim.run();
      ASSERT_TRUE(bool(r)) << llvm::toString(r.takeError());
      std::vector<float> got = readVmem(sim, kC, m, n, n);
      for (uint64_t i = 0; i < m; ++i)
        for (uint64_t j = 0; j < n; ++j) {
          float want = accumulate ? c[i * n + j] : 0.0f;
          for (uint64_t kk = 0; kk < k; ++kk)
            want += a[i * k + kk] * b[kk * n + j];
          uint32_t wantBits, gotBits;
          std::memcpy(&wantBits, &want, 4);
          std::memcpy(&gotBits, &got[i * n + j], 4);
          ASSERT_EQ(gotBits, wantBits)
              << m << "x" << n << "x" << k << (accumulate ? " acc" : "")
              << ": C[" << i << "][" << j << "]";
        }
    }
  }
}

TEST(SimulatorTest, VpuLatencyAndBusyStall) {
  MachineConfig config = MachineConfig::getDefault();
  isa::Program p = makeProgram({
      li(1, kA),
      li(2, kB),
      li(3, kC),
      li(4, kC + 64),
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

TEST(SimulatorTest, DataHazardsOfAKeptTileFollowTheOtherOpsTiles) {
  // A loop whose vpu.copy (pc 10) reads C at the same address every
  // iteration, so the issue stage keeps its tiles (and its hazard results)
  // from one iteration to the next, while the matmul before it (pc 9)
  // writes C in even iterations and C + 2048 in odd ones (r3 and r4 swap).
  // The copy must wait for the matmul (a data hazard) exactly in the even
  // ones: a hazard result kept for the matmul's PC instead of its tiles
  // would repeat the first iteration's answer.
  MachineConfig config = MachineConfig::getDefault();
  isa::Program p = makeProgram({
      li(1, kA),
      li(2, kB),
      li(3, kC),                      // the matmul's output, swapped with r4
      li(4, kC + 2048),               //
      li(5, kC),                      // the copy's input
      li(6, kB + 2048),               // the copy's output
      li(7, 0),                       // iteration
      li(8, 6),                       // iterations
      li(9, 1),                       //
      matmul(3, 1, 2, 2, 2, 2, 2, 2), // 9
      vunary(Opcode::VCopy, 6, 5, 2, 2, 2, 2), // 10
      add(10, 3, 0),                           // 11: swap r3 and r4
      add(3, 4, 0),                            // 12
      add(4, 10, 0),                           // 13
      add(7, 7, 9),                            // 14
      blt(7, 8, 9),                            // 15
      halt(),
  });
  Simulator sim(config, p);
  EventLog rec;
  sim.addObserver(&rec);
  auto r = sim.run();
  ASSERT_TRUE(bool(r)) << llvm::toString(r.takeError());
  // Each copy against the matmul just before it: it issues when the
  // matmul's result is written (iterations 0, 2, 4) or hundreds of cycles
  // before (1, 3, 5: it may still wait a few cycles for the previous copy,
  // which writes the same tile).
  std::vector<std::pair<sim::RetireEvent, sim::RetireEvent>> pairs;
  for (size_t i = 1; i < rec.retired.size(); ++i)
    if (rec.retired[i].pc == 10 && rec.retired[i - 1].pc == 9)
      pairs.push_back({rec.retired[i - 1], rec.retired[i]});
  ASSERT_EQ(pairs.size(), 6u);
  for (size_t i = 0; i < pairs.size(); ++i) {
    const auto &[mm, copy] = pairs[i];
    if (i % 2 == 0) {
      EXPECT_EQ(copy.issueCycle, mm.unitEnd) << "iteration " << i;
      EXPECT_EQ(copy.cause, StallCause::DataHazard) << "iteration " << i;
    } else {
      EXPECT_LT(copy.issueCycle + 300, mm.unitEnd) << "iteration " << i;
    }
  }
}

} // namespace
