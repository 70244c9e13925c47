//===- RecorderTest.cpp - Algorithm 1: minimal-state recording ------------===//
//
// SnR §4.1, Algorithm 1: the recorder saves a register or memory range
// only if a traced instruction reads it before any traced instruction wrote
// it, and saves it once. Each test writes out the exact expected set with the
// reason each entry is a first-read-before-write, and checks that nothing
// else is saved.
//
//===----------------------------------------------------------------------===//

#include "accel/Replay/Recorder.h"
#include "accel/Sim/Device.h"

#include "TestPrograms.h"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

using namespace accel;
using namespace accel::sim;
using namespace accel::test;
using accel::replay::MemChunk;
using accel::replay::Trace;
using isa::MemSpace;

namespace {

// The program under test is makeLoopProgram() (TestPrograms.h).

using RegList = std::vector<std::pair<uint8_t, uint64_t>>;

/// A chunk written out by hand: space, address and the bytes.
struct Chunk {
  MemSpace space;
  uint64_t addr;
  std::vector<uint8_t> bytes;
};

/// Checks trace.memory against `expected`, in order, chunk by chunk.
void expectMemory(const Trace &trace, const std::vector<Chunk> &expected) {
  ASSERT_EQ(trace.memory.size(), expected.size());
  for (size_t i = 0; i < expected.size(); ++i) {
    SCOPED_TRACE("memory chunk " + std::to_string(i));
    EXPECT_EQ(trace.memory[i].space, expected[i].space);
    EXPECT_EQ(trace.memory[i].addr, expected[i].addr);
    EXPECT_EQ(trace.memory[i].bytes, expected[i].bytes);
  }
}

/// Every saved chunk holds what `device` (stopped where the window began)
/// holds at that address.
void expectChunksMatchDevice(const Trace &trace, Device &device) {
  for (const MemChunk &c : trace.memory) {
    SCOPED_TRACE("chunk at " + std::to_string(c.addr));
    EXPECT_EQ(readMem(device, c.space, c.addr, c.bytes.size()), c.bytes);
  }
  for (auto [reg, value] : trace.registers)
    EXPECT_EQ(device.readRegister(reg), value) << "r" << unsigned(reg);
}

/// Records the retired PCs of a full run.
struct PcLog : Observer {
  std::vector<uint32_t> pcs;
  void onRetire(const RetireEvent &e) override { pcs.push_back(e.pc); }
};

std::vector<uint32_t> range(uint32_t first, uint32_t last) {
  std::vector<uint32_t> v;
  for (uint32_t pc = first; pc <= last; ++pc)
    v.push_back(pc);
  return v;
}
std::vector<uint32_t>
concat(std::initializer_list<std::vector<uint32_t>> parts) {
  std::vector<uint32_t> v;
  for (const auto &p : parts)
    v.insert(v.end(), p.begin(), p.end());
  return v;
}

class RecorderTest : public ::testing::Test {
protected:
  MachineConfig config = makeLoopConfig("recorder-test.json");
  isa::Program program = makeLoopProgram();

  Trace recordFrom(uint32_t pc, uint64_t hit, uint64_t count, Device &device) {
    return recordAt(device, program, config, pc, hit, count);
  }
};

//===----------------------------------------------------------------------===//
// A window from the middle: pc 10 to the halt
//===----------------------------------------------------------------------===//

TEST_F(RecorderTest, WindowFromMiddleSavesExactlyTheFirstReads) {
  Device device(config, program);
  Trace trace = recordFrom(10, 1, /*count=*/1000, device);

  EXPECT_EQ(trace.startIndex, 10u); // pcs 0..9 ran before the window
  EXPECT_EQ(trace.startPc, 10u);
  EXPECT_EQ(trace.nextDmaId, 0u); // no DMA issued before the window
  EXPECT_TRUE(trace.pendingDmas.empty());
  EXPECT_EQ(trace.configJson, config.jsonText);
  EXPECT_EQ(trace.formatVersion, replay::kTraceFormatVersion);
  EXPECT_EQ(trace.isaVersion, isa::kIsaVersion);
  ASSERT_EQ(trace.program.code.size(), program.code.size());
  for (size_t pc = 0; pc < program.code.size(); ++pc)
    EXPECT_EQ(isa::encode(trace.program.code[pc]),
              isa::encode(program.code[pc]));

  // Registers, in the order the window first reads them:
  //  r4 = 8192   pc 11 vpu.fill reads its output address r4 (set at pc 3);
  //  r3 = 4096   pc 14 add r17, r3, r0 (set at pc 2; r0 is never saved);
  //  r7 = 64     pc 15 mul r10, r6, r7 (r6 was written at pc 10: not saved);
  //  r1 = X      pc 16 add r11, r1, r10 (r10 written at pc 15);
  //  r2 = 0      pc 17 add r12, r2, r10;
  //  r15 = 5120  pc 20 vpu.add reads its output address r15 (set at pc 7;
  //              its x address r12 was written at pc 17, y is r3: saved);
  //  r5 = 2      pc 23 blt r6, r5.
  // Not saved: r9 (pre-window 77, overwritten at pc 12 before pc 13 reads
  // it), r6 (pc 10 writes it first), r10..r13, r16, r17 (written first),
  // r0 (always zero).
  EXPECT_EQ(
      trace.registers,
      (RegList{
          {4, kC}, {3, kB}, {7, 64}, {1, kX}, {2, kA}, {15, 5120}, {5, 2}}));

  // Memory, in the order the window first reads it:
  //  1. HBM [X, X+64): pc 18 (i = 0) DMA source x[0..16); never written.
  //  2. VMEM [4096, 4128): pc 20 (i = 0) y operand, 1x8 of b, written by
  //     pc 8 before the window (1.5). The x operand [0, 32) was written by
  //     the DMA at pc 18 in the window: not saved. In iteration 1 y is read
  //     again and the matmul reads its first 16 bytes as B: saved once.
  //  3. VMEM [8200, 8208): pc 21 (i = 0) accumulates into C = [8192, 8208),
  //     whose first 8 bytes pc 11 wrote in the window: only the gap, which
  //     holds pc 9's 0.25, 0.25. A (rows [5120, 5128) and [5136, 5144)) was
  //     written by pc 20 in the window.
  //  4. HBM [X+64, X+128): pc 18 (i = 1) DMA source x[16..32). It adjoins
  //     chunk 1 but is read later, so it is its own chunk. Iteration 1's
  //     vpu.add reads [64, 96), written by that iteration's DMA.
  expectMemory(trace,
               {{MemSpace::HBM, kX, initBytes(0, 16)},
                {MemSpace::VMEM, kB, floatBytes(std::vector<float>(8, 1.5f))},
                {MemSpace::VMEM, kC + 8, floatBytes({0.25f, 0.25f})},
                {MemSpace::HBM, kX + 64, initBytes(16, 16)}});

  // 7 registers x 8 + 64 + 32 + 8 + 64 bytes.
  EXPECT_EQ(trace.stateBytes(), 7u * 8 + 64 + 32 + 8 + 64);
  // Full state: 256 registers x 8, HBM x (4096), VMEM up to 12288.
  EXPECT_EQ(trace.fullStateBytes, 256u * 8 + 4096 + 12288);

  // The window ran to the halt: pcs 10..14, the loop twice, then pc 24.
  EXPECT_EQ(trace.pcs,
            concat({range(10, 14), range(15, 23), range(15, 23), {24}}));
  EXPECT_EQ(trace.pcs.back(), 24u);
  EXPECT_TRUE(device.isHalted());
  EXPECT_EQ(device.getInstructionCount(), 34u);

  // The saved values are what the device held when the window began.
  Device at(config, program);
  at.setBreakpoint(10);
  ASSERT_FALSE(bool(at.continueToBreakpoint()));
  expectChunksMatchDevice(trace, at);
}

TEST_F(RecorderTest, PcsEqualTheExecutedSequence) {
  // The full run's PCs, from an observer of an independent simulator.
  Simulator sim(config, program);
  PcLog log;
  sim.addObserver(&log);
  auto r = sim.run();
  ASSERT_TRUE(bool(r)) << llvm::toString(r.takeError());
  ASSERT_EQ(log.pcs.size(), 34u);

  struct Case {
    uint32_t pc;
    uint64_t hit, count;
    uint64_t start, length; // index of the window in the full run
  } cases[] = {
      {10, 1, 1000, 10, 24}, // to the halt
      {15, 2, 7, 24, 7},     // inside iteration 1
      {23, 1, 4, 23, 4},     // across the taken branch: 23, 15, 16, 17
      {24, 1, 5, 33, 1},     // the halt alone: recording stops after it
  };
  for (const Case &c : cases) {
    SCOPED_TRACE("pc " + std::to_string(c.pc) + " hit " +
                 std::to_string(c.hit));
    Device device(config, program);
    Trace trace = recordFrom(c.pc, c.hit, c.count, device);
    EXPECT_EQ(trace.startIndex, c.start);
    EXPECT_EQ(trace.pcs,
              std::vector<uint32_t>(log.pcs.begin() + c.start,
                                    log.pcs.begin() + c.start + c.length));
    EXPECT_EQ(device.getInstructionCount(), c.start + c.length);
  }
  // The hand-written sequence of the third case.
  Device device(config, program);
  Trace trace = recordFrom(23, 1, 4, device);
  EXPECT_EQ(trace.pcs, (std::vector<uint32_t>{23, 15, 16, 17}));
}

TEST_F(RecorderTest, CountLimitsTheWindow) {
  Device device(config, program);
  Trace trace = recordFrom(10, 1, /*count=*/3, device);
  EXPECT_EQ(trace.pcs, (std::vector<uint32_t>{10, 11, 12}));
  // li r6 reads nothing, vpu.fill reads r4 (its output address) and writes
  // VMEM only, li r9 reads nothing.
  EXPECT_EQ(trace.registers, (RegList{{4, kC}}));
  EXPECT_TRUE(trace.memory.empty());
  // The device stopped after the window, before pc 13.
  EXPECT_EQ(device.getPc(), 13u);
  EXPECT_EQ(device.getInstructionCount(), 13u);
  EXPECT_FALSE(device.isHalted());
}

TEST_F(RecorderTest, WholeProgramSavesOnlyTheHbmInputs) {
  // From attach everything except the HBM input x is produced by the
  // program itself: every register is written (li) before it is read, the
  // vpu.add's y and the matmul's C were filled at pcs 8, 9, 11.
  Device device(config, program);
  auto trace = replay::record(device, program, config.jsonText, 1000);
  ASSERT_TRUE(bool(trace)) << llvm::toString(trace.takeError());
  EXPECT_EQ(trace->startIndex, 0u);
  EXPECT_EQ(trace->startPc, 0u);
  EXPECT_TRUE(trace->registers.empty());
  expectMemory(*trace, {{MemSpace::HBM, kX, initBytes(0, 16)},
                        {MemSpace::HBM, kX + 64, initBytes(16, 16)}});
  EXPECT_EQ(trace->pcs.size(), 34u);
}

TEST_F(RecorderTest, RecordingAHaltedDeviceTracesNothing) {
  Device device(config, program);
  ASSERT_FALSE(bool(device.continueToBreakpoint()));
  ASSERT_TRUE(device.isHalted());
  auto trace = replay::record(device, program, config.jsonText, 10);
  ASSERT_TRUE(bool(trace)) << llvm::toString(trace.takeError());
  EXPECT_EQ(trace->startIndex, 34u);
  EXPECT_EQ(trace->startPc, 24u);
  EXPECT_EQ(trace->nextDmaId, 2u);
  EXPECT_TRUE(trace->pcs.empty());
  EXPECT_TRUE(trace->registers.empty());
  EXPECT_TRUE(trace->memory.empty());
}

//===----------------------------------------------------------------------===//
// A window that starts with a DMA in flight
//===----------------------------------------------------------------------===//

TEST_F(RecorderTest, WindowStartingWithDmaInFlight) {
  // Second arrival at the dma.wait: iteration 1's DMA (id 1, pc 18) was
  // issued and is not WAITed yet.
  Device device(config, program);
  Trace trace = recordFrom(19, 2, 1000, device);
  EXPECT_EQ(trace.startIndex, 28u);
  EXPECT_EQ(trace.startPc, 19u);
  EXPECT_EQ(trace.nextDmaId, 2u); // ids 0 and 1 were issued
  ASSERT_EQ(trace.pendingDmas.size(), 1u);
  const replay::DmaDescriptor &d = trace.pendingDmas[0];
  EXPECT_EQ(d.id, 1u);
  EXPECT_EQ(d.issuePc, 18u);
  // x[16..32): HBM 1x16, stride 16, at X + 64 -> VMEM 1x16 at 64.
  EXPECT_EQ(d.src.space, MemSpace::HBM);
  EXPECT_EQ(d.src.base, kX + 64);
  EXPECT_EQ(d.src.rows, 1u);
  EXPECT_EQ(d.src.cols, 16u);
  EXPECT_EQ(d.src.rowStride, 16u);
  EXPECT_EQ(d.dst.space, MemSpace::VMEM);
  EXPECT_EQ(d.dst.base, kA + 64);
  EXPECT_EQ(d.dst.rows, 1u);
  EXPECT_EQ(d.dst.cols, 16u);
  EXPECT_EQ(d.dst.rowStride, 16u);

  EXPECT_EQ(trace.pcs, (std::vector<uint32_t>{19, 20, 21, 22, 23, 24}));

  // Registers:
  //  r13 = 1     pc 19 dma.wait reads the DMA id (written at pc 18, before
  //              the window);
  //  r12 = 64, r3 = 4096, r15 = 5120   pc 20 vpu.add: x, y, out addresses;
  //  r17 = 4096, r4 = 8192             pc 21 matmul: B and C addresses (A's
  //              r15 is already saved);
  //  r6 = 1      pc 22 addi r6, r6, 1;
  //  r5 = 2      pc 23 blt r6, r5 (r6 is now written).
  EXPECT_EQ(trace.registers, (RegList{{13, 1},
                                      {12, kA + 64},
                                      {3, kB},
                                      {15, 5120},
                                      {17, kB},
                                      {4, kC},
                                      {6, 1},
                                      {5, 2}}));

  // Memory:
  //  1. VMEM [64, 96): pc 20's x operand. The in-flight DMA wrote it before
  //     the window (the functional model copies at ISSUE): x[16..24).
  //  2. VMEM [4096, 4128): pc 20's y operand (1.5 from pc 8).
  //  3. VMEM [8192, 8208): pc 21 accumulates into C, as iteration 0 left
  //     it. A [5120, ...) was written by pc 20; B [4096, 4112) is inside
  //     chunk 2.
  expectMemory(trace,
               {{MemSpace::VMEM, kA + 64, initBytes(16, 8)},
                {MemSpace::VMEM, kB, floatBytes(std::vector<float>(8, 1.5f))},
                {MemSpace::VMEM, kC, floatBytes(cAfter(0))}});

  Device at(config, program);
  at.setBreakpoint(19, 2);
  ASSERT_FALSE(bool(at.continueToBreakpoint()));
  expectChunksMatchDevice(trace, at);
}

//===----------------------------------------------------------------------===//
// Strided tiles and scalar loads
//===----------------------------------------------------------------------===//

TEST_F(RecorderTest, StridedTileSavesOnlyTheGapsOfEachRow) {
  isa::Program p = makeLoopProgram();
  p.origins.clear();
  p.code = {
      li(1, kA),               // 0
      li(2, kB),               // 1
      vfill(1, 4, 8, 8, 2.0f), // 2  VMEM [0, 128) = 2.0
      sld(3, 1, 36),           // 3  r3 = i32 at VMEM [36, 40)
      vcopy(2, 1, 2, 4, 8, 4), // 4  b[0..8) = rows 0, 1 of a (4 of 8)
      halt(),                  // 5
  };
  Device device(config, p);
  device.setBreakpoint(3);
  ASSERT_FALSE(bool(device.continueToBreakpoint()));
  auto trace = replay::record(device, p, config.jsonText, 100);
  ASSERT_TRUE(bool(trace)) << llvm::toString(trace.takeError());
  EXPECT_EQ(trace->pcs, (std::vector<uint32_t>{3, 4, 5}));
  // r1: the sld's base (pc 3); r2: the vpu.copy's output address (pc 4).
  // r3 is only written.
  EXPECT_EQ(trace->registers, (RegList{{1, kA}, {2, kB}}));
  // pc 3 reads the 4 bytes [36, 40). pc 4 reads a 2x4 tile with row stride
  // 8 elements: rows [0, 16) and [32, 48), one range each. Row 0 is new;
  // of row 1, [36, 40) is already saved, leaving [32, 36) and [40, 48).
  // The output [4096, 4128) is only written.
  expectMemory(*trace,
               {{MemSpace::VMEM, 36, floatBytes({2.0f})},
                {MemSpace::VMEM, 0, floatBytes(std::vector<float>(4, 2.0f))},
                {MemSpace::VMEM, 32, floatBytes({2.0f})},
                {MemSpace::VMEM, 40, floatBytes({2.0f, 2.0f})}});
  // The f32 2.0 is 0x40000000 as an i32.
  EXPECT_EQ(device.readRegister(3), 0x40000000u);
}

TEST_F(RecorderTest, ReadAfterOwnWriteOfOtherRowsIsNotSaved) {
  // A window that writes a strided tile and then reads a dense tile that
  // covers the written rows and the gaps between them: only the gaps are
  // saved.
  isa::Program p = makeLoopProgram();
  p.origins.clear();
  p.code = {
      li(1, kA),                  // 0
      li(2, kB),                  // 1
      vfill(1, 1, 16, 16, 3.0f),  // 2  VMEM [0, 64) = 3.0 (pre-window)
      vfill(1, 2, 2, 8, 5.0f),    // 3  rows [0, 8) and [32, 40) = 5.0
      vcopy(2, 1, 1, 12, 12, 12), // 4  reads [0, 48)
      halt(),                     // 5
  };
  Device device(config, p);
  device.setBreakpoint(3);
  ASSERT_FALSE(bool(device.continueToBreakpoint()));
  auto trace = replay::record(device, p, config.jsonText, 100);
  ASSERT_TRUE(bool(trace)) << llvm::toString(trace.takeError());
  // r1 is read first by pc 3 (fill output address), r2 by pc 4.
  EXPECT_EQ(trace->registers, (RegList{{1, kA}, {2, kB}}));
  // pc 4 reads [0, 48); pc 3 wrote [0, 8) and [32, 40): the gaps [8, 32)
  // and [40, 48) hold pc 2's 3.0.
  expectMemory(*trace,
               {{MemSpace::VMEM, 8, floatBytes(std::vector<float>(6, 3.0f))},
                {MemSpace::VMEM, 40, floatBytes({3.0f, 3.0f})}});
}

//===----------------------------------------------------------------------===//
// Errors and progress
//===----------------------------------------------------------------------===//

TEST_F(RecorderTest, DeviceFaultIsReported) {
  isa::Program p = makeLoopProgram();
  p.origins.clear();
  p.code = {li(1, 7), dmaWait(1), halt()};
  Device device(config, p);
  auto trace = replay::record(device, p, config.jsonText, 10);
  ASSERT_FALSE(bool(trace));
  EXPECT_EQ(llvm::toString(trace.takeError()),
            "fault at pc 1 (dma.wait r1): WAIT on DMA id 7, which was never "
            "issued");
}

TEST_F(RecorderTest, ProgressEvery65536Instructions) {
  // 2 + 2 x 100000 + 1 instructions; record 150000 of them from attach.
  isa::Program p = makeLoopProgram();
  p.origins.clear();
  p.code = {li(1, 0), li(2, 100000), addi(1, 1, 1), blt(1, 2, 2), halt()};
  Device device(config, p);
  std::vector<std::pair<uint64_t, uint64_t>> calls;
  auto trace = replay::record(device, p, config.jsonText, 150000,
                              [&](uint64_t done, uint64_t total) {
                                calls.push_back({done, total});
                              });
  ASSERT_TRUE(bool(trace)) << llvm::toString(trace.takeError());
  EXPECT_EQ(trace->pcs.size(), 150000u);
  // After instructions 65536 and 131072 (2 x 65536 < 150000 < 3 x 65536).
  EXPECT_EQ(calls, (std::vector<std::pair<uint64_t, uint64_t>>{
                       {65536, 150000}, {131072, 150000}}));
  // Nothing is read before it is written from attach.
  EXPECT_TRUE(trace->registers.empty());
  EXPECT_TRUE(trace->memory.empty());
}

} // namespace
