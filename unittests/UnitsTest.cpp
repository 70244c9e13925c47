//===- UnitsTest.cpp - Timing classes and unit latencies ------------------===//
//
// The per-opcode facts of Opcodes.def (cost class, FLOPs, scalar
// arithmetic) and the latencies TimingModel derives from them and the
// machine config, checked by hand.
//
//===----------------------------------------------------------------------===//

#include "accel/Sim/Units.h"

#include "TestPrograms.h"

#include <gtest/gtest.h>

using namespace accel;
using namespace accel::sim;
using namespace accel::test;
using isa::Opcode;

namespace {

// Distinct VPU costs, so a wrong cost class shows as a wrong latency.
constexpr const char *kUnitsConfig = R"json({
  "scalar": { "latency": 3 },
  "mxu": { "rows": 4, "cols": 8 },
  "vpu": { "lanes": 16, "pipeline_depth": 5,
           "cost": { "simple": 1, "div": 2, "exp": 3, "sqrt": 4,
                     "reduce": 6 } }
})json";

TEST(UnitsTest, VpuLatencyComesFromTheOpcodesCostClass) {
  MachineConfig config = configFrom(kUnitsConfig, "units.json");
  TimingModel timing(config);
  // A 3 x 20 tile: ceil(60 / 16) = 4 lane-passes, plus depth 5.
  auto latency = [&](Opcode op) {
    return timing.getLatency(vbinary(op, 3, 1, 2, 3, 20, 20, 20, 20));
  };
  EXPECT_EQ(latency(Opcode::VAdd), 5u + 4 * 1);
  EXPECT_EQ(latency(Opcode::VSub), 5u + 4 * 1);
  EXPECT_EQ(latency(Opcode::VMul), 5u + 4 * 1);
  EXPECT_EQ(latency(Opcode::VMax), 5u + 4 * 1);
  EXPECT_EQ(latency(Opcode::VCopy), 5u + 4 * 1);
  EXPECT_EQ(latency(Opcode::VFill), 5u + 4 * 1);
  EXPECT_EQ(latency(Opcode::VDiv), 5u + 4 * 2);
  EXPECT_EQ(latency(Opcode::VExp), 5u + 4 * 3);
  EXPECT_EQ(latency(Opcode::VSqrt), 5u + 4 * 4);
  EXPECT_EQ(latency(Opcode::VRSum), 5u + 4 * 6);
  EXPECT_EQ(latency(Opcode::VRMax), 5u + 4 * 6);
}

TEST(UnitsTest, MxuAndScalarLatency) {
  MachineConfig config = configFrom(kUnitsConfig, "units.json");
  TimingModel timing(config);
  // m 5, n 20, k 9 on a 4 x 8 array: ceil(9/4) * ceil(20/8) = 3 * 3 = 9
  // passes of (4 + 5) cycles, then 8 to drain: 89.
  EXPECT_EQ(timing.getLatency(matmul(3, 1, 2, 5, 20, 9, 9, 20)), 89u);
  EXPECT_EQ(timing.getLatency(li(1, 7)), 3u);
  EXPECT_EQ(timing.getLatency(halt()), 3u);
  EXPECT_EQ(timing.getLatency(dmaWait(1)), 0u);
}

TEST(UnitsTest, FlopsAndScalarArithmeticFromTheTable) {
  EXPECT_EQ(isa::getFlops(matmul(3, 1, 2, 5, 20, 9, 9, 20)), 2u * 5 * 20 * 9);
  EXPECT_EQ(isa::getFlops(vbinary(Opcode::VAdd, 3, 1, 2, 3, 20, 20, 20, 20)),
            60u);
  EXPECT_EQ(isa::getFlops(vunary(Opcode::VRSum, 3, 1, 3, 20, 20, 1)), 60u);
  EXPECT_EQ(isa::getFlops(vcopy(3, 1, 3, 20, 20, 20)), 0u);
  EXPECT_EQ(isa::getFlops(vfill(3, 3, 20, 20, 1.0f)), 0u);
  EXPECT_EQ(isa::getFlops(li(1, 7)), 0u);
  for (Opcode op : {Opcode::Li, Opcode::Mov, Opcode::Add, Opcode::Sub,
                    Opcode::Mul, Opcode::Addi, Opcode::Muli})
    EXPECT_TRUE(isa::isScalarArithmetic(op)) << isa::info(op).mnemonic;
  for (Opcode op : {Opcode::Nop, Opcode::Halt, Opcode::Sld, Opcode::Blt,
                    Opcode::Bge, Opcode::Jmp, Opcode::DmaIssue,
                    Opcode::Matmul, Opcode::VAdd})
    EXPECT_FALSE(isa::isScalarArithmetic(op)) << isa::info(op).mnemonic;
}

} // namespace
