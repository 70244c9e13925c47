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
  "vpu": { "sublanes": 2, "lanes": 16, "pipeline_depth": 5,
           "cost": { "simple": 1, "div": 2, "exp": 3, "sqrt": 4,
                     "reduce": 6, "transpose": 7 } }
})json";

TEST(UnitsTest, VpuLatencyComesFromTheOpcodesCostClass) {
  MachineConfig config = configFrom(kUnitsConfig, "units.json");
  TimingModel timing(config);
  // A 3 x 20 tile on 2 x 16 registers: ceil(3/2) * ceil(20/16) = 4
  // passes, plus depth 5.
  auto latency = [&](Opcode op) {
    return timing.getLatency(vbinary(op, 3, 1, 2, 3, 20, 20, 20, 20));
  };
  EXPECT_EQ(latency(Opcode::VAdd), 5u + 4 * 1);
  EXPECT_EQ(latency(Opcode::VSub), 5u + 4 * 1);
  EXPECT_EQ(latency(Opcode::VMul), 5u + 4 * 1);
  EXPECT_EQ(latency(Opcode::VMax), 5u + 4 * 1);
  EXPECT_EQ(latency(Opcode::VMin), 5u + 4 * 1);
  EXPECT_EQ(latency(Opcode::VAbs), 5u + 4 * 1);
  EXPECT_EQ(latency(Opcode::VCopy), 5u + 4 * 1);
  EXPECT_EQ(latency(Opcode::VFill), 5u + 4 * 1);
  EXPECT_EQ(latency(Opcode::VDiv), 5u + 4 * 2);
  EXPECT_EQ(latency(Opcode::VExp), 5u + 4 * 3);
  // The transcendental functions share exp's class, rsqrt sqrt's.
  EXPECT_EQ(latency(Opcode::VTanh), 5u + 4 * 3);
  EXPECT_EQ(latency(Opcode::VLog), 5u + 4 * 3);
  EXPECT_EQ(latency(Opcode::VLog1p), 5u + 4 * 3);
  EXPECT_EQ(latency(Opcode::VErf), 5u + 4 * 3);
  EXPECT_EQ(latency(Opcode::VSqrt), 5u + 4 * 4);
  EXPECT_EQ(latency(Opcode::VRsqrt), 5u + 4 * 4);
  EXPECT_EQ(latency(Opcode::VRSum), 5u + 4 * 6);
  EXPECT_EQ(latency(Opcode::VRMax), 5u + 4 * 6);
}

// vpu.transpose takes its own cost class, for the passes of its input or
// of its output (cols x rows), whichever has more: a 3 x 20 tile on 2 x 16
// registers reads ceil(3/2) * ceil(20/16) = 4 passes and writes 20 x 3,
// ceil(20/2) * ceil(3/16) = 10. On the default 8 x 128 register, 128 x 128
// and 128 x 8 read 16 passes, 8 x 128 writes 16 (docs/isa.md, "Transposes").
TEST(UnitsTest, VpuTransposeCountsTheLargerSide) {
  MachineConfig config = configFrom(kUnitsConfig, "units.json");
  TimingModel timing(config);
  EXPECT_EQ(timing.getLatency(vunary(Opcode::VTranspose, 3, 1, 3, 20, 20, 3)),
            5u + 10 * 7);
  EXPECT_EQ(timing.getLatency(vunary(Opcode::VTranspose, 3, 1, 20, 3, 3, 20)),
            5u + 10 * 7);
  // TimingModel keeps a reference to its config: the config outlives it.
  MachineConfig defaultConfig = MachineConfig::getDefault();
  TimingModel defaults(defaultConfig);
  auto transpose = [&](uint16_t rows, uint16_t cols) {
    return defaults.getLatency(
        vunary(Opcode::VTranspose, 3, 1, rows, cols, cols, rows));
  };
  EXPECT_EQ(transpose(128, 128), 8u + 16 * 2);
  EXPECT_EQ(transpose(128, 8), 8u + 16 * 2);
  EXPECT_EQ(transpose(8, 128), 8u + 16 * 2);
  EXPECT_EQ(transpose(8, 8), 8u + 1 * 2);
  EXPECT_EQ(isa::getFlops(vunary(Opcode::VTranspose, 3, 1, 8, 8, 8, 8)), 0u);
}

// The layout counts: on the default 8 x 128 vector register, vexp (cost 4,
// depth 8) of 1024 elements takes one pass as 8 x 128, eight as 1 x 1024
// (one sublane used) and 128 as 1024 x 1 (one lane used).
TEST(UnitsTest, VpuCostFollowsTheRegisterShape) {
  MachineConfig config = MachineConfig::getDefault();
  TimingModel timing(config);
  auto exp = [&](uint16_t rows, uint16_t cols) {
    return timing.getLatency(
        vunary(Opcode::VExp, 3, 1, rows, cols, cols, cols));
  };
  EXPECT_EQ(exp(8, 128), 8u + 1 * 4);
  EXPECT_EQ(exp(1, 1024), 8u + 8 * 4);
  EXPECT_EQ(exp(1024, 1), 8u + 128 * 4);
  EXPECT_EQ(exp(9, 129), 8u + 2 * 2 * 4); // one more row and column
}

TEST(UnitsTest, MxuAndScalarLatency) {
  MachineConfig config = configFrom(kUnitsConfig, "units.json");
  TimingModel timing(config);
  // The default MXU model (ws, overlap) on a 4 x 8 array, m 5, n 20, k 9:
  // folds ceil(9/4) * ceil(20/8) = 9, fill F = 4, T = m = 5, skew and
  // drain 4 + 8 - 2 = 10: 4 + 8 * max(5, 4) + 5 + 10 - 1 = 58.
  EXPECT_EQ(timing.getLatency(matmul(3, 1, 2, 5, 20, 9, 9, 20)), 58u);
  EXPECT_EQ(timing.getLatency(li(1, 7)), 3u);
  EXPECT_EQ(timing.getLatency(halt()), 3u);
  EXPECT_EQ(timing.getLatency(dmaWait(1)), 0u);
}

/// The MXU config of `rows` x `cols` with a dataflow and overlap.
static MachineConfig mxuConfig(unsigned rows, unsigned cols,
                               const char *dataflow, bool overlap) {
  return configFrom(
      (llvm::Twine(R"json({ "mxu": { "rows": )json") + llvm::Twine(rows) +
       ", \"cols\": " + llvm::Twine(cols) + ", \"dataflow\": \"" + dataflow +
       "\", \"overlap\": " + (overlap ? "true" : "false") + " } }")
          .str(),
      "mxu.json");
}

// With overlap false the model is SCALE-Sim v2's (Samajdar et al., ISPASS
// 2020) weight-stationary count, folds * (2R + C + m - 2) - 1, on its
// 128 x 128 array; the three figures SCALE-Sim gives.
TEST(UnitsTest, MxuMatchesScaleSimWeightStationary) {
  MachineConfig c = mxuConfig(128, 128, "ws", false);
  auto cycles = [&](uint64_t m, uint64_t k, uint64_t n) {
    return TimingModel::getMxuCycles(c, m, n, k);
  };
  EXPECT_EQ(cycles(128, 128, 128), 509u);    // 1 x (256 + 128 + 126) - 1
  EXPECT_EQ(cycles(8, 4096, 4096), 399359u); // 1024 x 390 - 1
  EXPECT_EQ(cycles(512, 768, 768), 32183u);  // 36 x 894 - 1
  // K and N not multiples of the array: partial folds are padded, so each
  // of ceil(200/128) * ceil(300/128) = 6 folds takes 128 + 100 + 254.
  EXPECT_EQ(cycles(100, 200, 300), 6u * 482 - 1);
  // One column of outputs (n = 1) still takes a whole fold.
  EXPECT_EQ(cycles(1, 1, 1), 128u + 1 + 254 - 1);
  // The default, overlap true (docs/isa.md's table): the same one-fold
  // shape, then loads hidden behind streams of 512 rows, and decode's m 8
  // bound by the 128-cycle loads.
  MachineConfig d = MachineConfig::getDefault();
  EXPECT_EQ(TimingModel::getMxuCycles(d, 128, 128, 128), 509u);
  EXPECT_EQ(TimingModel::getMxuCycles(d, 512, 768, 768),
            128u + 35 * 512 + 512 + 254 - 1); // 18813
  EXPECT_EQ(TimingModel::getMxuCycles(d, 8, 4096, 4096),
            128u + 1023 * 128 + 8 + 254 - 1); // 131333
}

// The three dataflows, without and with overlap, by hand on a 4 x 8 array
// (R 4, C 8, skew and drain R + C - 2 = 10) for m 5, n 20, k 9.
TEST(UnitsTest, MxuDataflowsAndOverlapByHand) {
  auto cycles = [](const char *dataflow, bool overlap) {
    return TimingModel::getMxuCycles(mxuConfig(4, 8, dataflow, overlap), 5, 20,
                                     9);
  };
  // ws: folds ceil(9/4) * ceil(20/8) = 9, T = m = 5, F = 4.
  EXPECT_EQ(cycles("ws", false), 9u * (4 + 5 + 10) - 1);  // 170
  EXPECT_EQ(cycles("ws", true), 4u + 8 * 5 + 5 + 10 - 1); // 58
  // is: folds ceil(9/4) * ceil(5/8) = 3, T = n = 20, F = 4.
  EXPECT_EQ(cycles("is", false), 3u * (4 + 20 + 10) - 1);   // 101
  EXPECT_EQ(cycles("is", true), 4u + 2 * 20 + 20 + 10 - 1); // 73
  // os: folds ceil(5/4) * ceil(20/8) = 6, T = k = 9, nothing to fill.
  EXPECT_EQ(cycles("os", false), 6u * (0 + 9 + 10) - 1);  // 113
  EXPECT_EQ(cycles("os", true), 0u + 5 * 9 + 9 + 10 - 1); // 63
  // Overlap when loading a tile (F = 4) takes longer than streaming one
  // (T = m = 2): every fold after the first waits for its load.
  MachineConfig ws = mxuConfig(4, 8, "ws", true);
  EXPECT_EQ(TimingModel::getMxuCycles(ws, 2, 20, 9), 4u + 8 * 4 + 2 + 10 - 1);
  // One fold: overlap changes nothing.
  EXPECT_EQ(TimingModel::getMxuCycles(ws, 2, 8, 4),
            TimingModel::getMxuCycles(mxuConfig(4, 8, "ws", false), 2, 8, 4));
  // A 1 x 1 output-stationary array with k = 1 still takes a cycle.
  EXPECT_EQ(TimingModel::getMxuCycles(mxuConfig(1, 1, "os", false), 1, 1, 1),
            1u);
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

// The VPU keeps each instruction's shape by the instruction's address
// (VectorUnit::WalkShape); one Inst object rewritten between executes (as
// a caller building instructions on the stack does) must be decoded
// again. 2 x 4 f32 tiles: x = 1..8 at 0, y = 10, 20 (one per row) at 64,
// out at 128; the same `in` first adds x and x (8 columns flat: 2, 4, ...,
// 16), then adds y broadcast along each row, then sums rows.
TEST(UnitsTest, VpuDecodesARewrittenInstructionAgain) {
  Memory mem(4096, {vmemBuffer("v", 0, 4096)});
  ASSERT_FALSE(bool(mem.allocateVmem()));
  float *v = reinterpret_cast<float *>(mem.vmemBytePtr(0));
  for (int i = 0; i < 8; ++i)
    v[i] = float(i + 1);
  v[16] = 10;
  v[17] = 20;
  std::array<uint64_t, isa::kNumRegs> regs{};
  regs[1] = 0;
  regs[2] = 64;
  regs[3] = 128;
  CoreState state{mem, regs, 0};
  VectorUnit vpu;
  const float *out = v + 32;
  isa::Inst in = vbinary(Opcode::VAdd, 3, 1, 1, 2, 4, 4, 4, 4);
  vpu.execute(in, state);
  for (int i = 0; i < 8; ++i)
    EXPECT_EQ(out[i], 2.0f * float(i + 1)) << i;
  in = vbinary(Opcode::VAdd, 3, 1, 2, 2, 4, 4, 1, 4, /*bcast=*/true);
  vpu.execute(in, state);
  for (int i = 0; i < 8; ++i)
    EXPECT_EQ(out[i], float(i + 1) + (i < 4 ? 10.0f : 20.0f)) << i;
  in = vunary(Opcode::VRSum, 3, 1, 2, 4, 4, 1);
  vpu.execute(in, state);
  EXPECT_EQ(out[0], 1.0f + 2 + 3 + 4);
  EXPECT_EQ(out[1], 5.0f + 6 + 7 + 8);
  // And the first again, from the same address.
  in = vbinary(Opcode::VAdd, 3, 1, 1, 2, 4, 4, 4, 4);
  vpu.execute(in, state);
  EXPECT_EQ(out[7], 16.0f);
}

} // namespace
