//===- DeviceTest.cpp - The step-debugger API of the device ---------------===//
//
// The device of SnR §4.1 as the recorder sees it: attach, breakpoints
// with hit counts, continue, step, and the read-only probes (registers,
// memory, instructions, DMA engine state), plus resolveBreakpoint.
//
// Programs are built by hand; every expected value is derived in the
// comments from the program text and docs/isa.md.
//
//===----------------------------------------------------------------------===//

#include "accel/Sim/Device.h"

#include "TestPrograms.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

using namespace accel;
using namespace accel::sim;
using namespace accel::test;
using isa::MemSpace;
using isa::Opcode;

namespace {

// The program under test is makeLoopProgram() (TestPrograms.h).

class DeviceTest : public ::testing::Test {
protected:
  MachineConfig config = makeLoopConfig("device-test.json");
  isa::Program program = makeLoopProgram();
};

//===----------------------------------------------------------------------===//
// attach, breakpoints, continue, step
//===----------------------------------------------------------------------===//

TEST_F(DeviceTest, AttachStopsAtPcZero) {
  ASSERT_EQ(program.code.size(), 25u);
  ASSERT_EQ(program.origins.size(), 25u);
  Device device(config, program);
  EXPECT_EQ(device.getPc(), 0u);
  EXPECT_EQ(device.getInstructionCount(), 0u);
  EXPECT_FALSE(device.isHalted());
  // Nothing has executed: li r1 at pc 0 has not written r1 yet.
  EXPECT_EQ(device.readRegister(1), 0u);
  EXPECT_TRUE(device.readPendingDmas().empty());
  EXPECT_EQ(device.readNextDmaId(), 0u);
}

TEST_F(DeviceTest, BreakpointFirstArrival) {
  Device device(config, program);
  device.setBreakpoint(15); // hit defaults to 1
  ASSERT_FALSE(bool(device.continueToBreakpoint()));
  // Stopped before the first execution of pc 15: pcs 0..14 ran.
  EXPECT_EQ(device.getPc(), 15u);
  EXPECT_EQ(device.getInstructionCount(), 15u);
  EXPECT_EQ(device.readRegister(6), 0u);  // i = 0 (pc 10)
  EXPECT_EQ(device.readRegister(16), 6u); // 3 + 3 (pcs 12, 13)
  EXPECT_EQ(device.readRegister(17), kB); // B + r0 (pc 14)
  EXPECT_EQ(device.readRegister(9), 3u);  // pc 12 overwrote 77
  EXPECT_EQ(device.readRegister(10), 0u); // pc 15 (mul) has not run
  EXPECT_FALSE(device.isHalted());
}

TEST_F(DeviceTest, BreakpointHitCount) {
  Device device(config, program);
  device.setBreakpoint(15, /*hit=*/2);
  ASSERT_FALSE(bool(device.continueToBreakpoint()));
  // The second arrival at pc 15 is the start of iteration 1: 15 instructions
  // before the loop + 9 of iteration 0 = 24 executed; i = 1.
  EXPECT_EQ(device.getPc(), 15u);
  EXPECT_EQ(device.getInstructionCount(), 24u);
  EXPECT_EQ(device.readRegister(6), 1u);
  // Iteration 0's values: r10 = 0 * 64, r11 = X + 0, r13 = DMA id 0.
  EXPECT_EQ(device.readRegister(10), 0u);
  EXPECT_EQ(device.readRegister(11), kX);
  EXPECT_EQ(device.readRegister(13), 0u);
  EXPECT_EQ(device.readNextDmaId(), 1u);

  // The same on the dma.wait: second arrival after 15 + 9 + 4 = 28.
  Device device2(config, program);
  device2.setBreakpoint(19, 2);
  ASSERT_FALSE(bool(device2.continueToBreakpoint()));
  EXPECT_EQ(device2.getPc(), 19u);
  EXPECT_EQ(device2.getInstructionCount(), 28u);
  EXPECT_EQ(device2.readRegister(6), 1u);
  EXPECT_EQ(device2.readRegister(10), 64u);     // 1 * 64
  EXPECT_EQ(device2.readRegister(11), kX + 64); // X + 64
  EXPECT_EQ(device2.readRegister(12), kA + 64); // A + 64
  EXPECT_EQ(device2.readRegister(13), 1u);      // second DMA id
}

TEST_F(DeviceTest, BreakpointHitZeroMeansFirst) {
  Device device(config, program);
  device.setBreakpoint(19, /*hit=*/0);
  ASSERT_FALSE(bool(device.continueToBreakpoint()));
  EXPECT_EQ(device.getPc(), 19u);
  EXPECT_EQ(device.getInstructionCount(), 19u);
}

TEST_F(DeviceTest, BreakpointAtCurrentPcStopsImmediately) {
  // The first arrival at pc 0 is the attach point itself.
  Device device(config, program);
  device.setBreakpoint(0);
  ASSERT_FALSE(bool(device.continueToBreakpoint()));
  EXPECT_EQ(device.getPc(), 0u);
  EXPECT_EQ(device.getInstructionCount(), 0u);
}

TEST_F(DeviceTest, StepExecutesExactlyOneInstruction) {
  Device device(config, program);
  ASSERT_FALSE(bool(device.step()));
  EXPECT_EQ(device.getPc(), 1u);
  EXPECT_EQ(device.getInstructionCount(), 1u);
  EXPECT_EQ(device.readRegister(1), kX); // li r1 ran
  EXPECT_EQ(device.readRegister(3), 0u); // li r3 (pc 2) did not

  // A taken branch: stop on the blt of iteration 0 (first arrival at pc 23,
  // after 15 + 8 = 23 instructions); i = 1 < 2, so it goes back to 15.
  Device loop(config, program);
  loop.setBreakpoint(23);
  ASSERT_FALSE(bool(loop.continueToBreakpoint()));
  EXPECT_EQ(loop.getInstructionCount(), 23u);
  ASSERT_FALSE(bool(loop.step()));
  EXPECT_EQ(loop.getPc(), 15u);
  EXPECT_EQ(loop.getInstructionCount(), 24u);

  // The step on the mul of iteration 1 writes r10 = 1 * 64 and nothing
  // else visible: r11 still holds iteration 0's X + 0.
  ASSERT_FALSE(bool(loop.step()));
  EXPECT_EQ(loop.getPc(), 16u);
  EXPECT_EQ(loop.getInstructionCount(), 25u);
  EXPECT_EQ(loop.readRegister(10), 64u);
  EXPECT_EQ(loop.readRegister(11), kX);
}

TEST_F(DeviceTest, StepThroughHalt) {
  Device device(config, program);
  // The blt of iteration 1 is the second arrival at pc 23: after 32
  // instructions; i = 2 is not < 2, so it falls through to the halt.
  device.setBreakpoint(23, 2);
  ASSERT_FALSE(bool(device.continueToBreakpoint()));
  EXPECT_EQ(device.getInstructionCount(), 32u);
  ASSERT_FALSE(bool(device.step()));
  EXPECT_EQ(device.getPc(), 24u);
  EXPECT_FALSE(device.isHalted());
  // The halt executes (34 instructions) and the pc stays on it.
  ASSERT_FALSE(bool(device.step()));
  EXPECT_TRUE(device.isHalted());
  EXPECT_EQ(device.getPc(), 24u);
  EXPECT_EQ(device.getInstructionCount(), 34u);
  EXPECT_EQ(errorOf(device.step()), "the program has halted");
  EXPECT_EQ(device.getInstructionCount(), 34u);
}

TEST_F(DeviceTest, ContinueWithoutBreakpointRunsToHalt) {
  Device device(config, program);
  ASSERT_FALSE(bool(device.continueToBreakpoint()));
  EXPECT_TRUE(device.isHalted());
  EXPECT_EQ(device.getInstructionCount(), 34u);
  EXPECT_EQ(device.readRegister(6), 2u);

  // clearBreakpoint forgets an earlier breakpoint.
  Device cleared(config, program);
  cleared.setBreakpoint(19);
  cleared.clearBreakpoint();
  ASSERT_FALSE(bool(cleared.continueToBreakpoint()));
  EXPECT_TRUE(cleared.isHalted());
  EXPECT_EQ(cleared.getInstructionCount(), 34u);
}

TEST_F(DeviceTest, HaltBeforeBreakpoint) {
  Device device(config, program);
  // pc 15 is reached only twice (iterations 0 and 1).
  device.setBreakpoint(15, 3);
  EXPECT_EQ(errorOf(device.continueToBreakpoint()),
            "the program halted after 34 instructions; pc 15 was reached 2 "
            "of 3 times");
  EXPECT_TRUE(device.isHalted());

  // A pc past the end of the code is never reached.
  Device never(config, program);
  never.setBreakpoint(100);
  EXPECT_EQ(errorOf(never.continueToBreakpoint()),
            "the program halted after 34 instructions; pc 100 was reached 0 "
            "of 1 times");
}

TEST_F(DeviceTest, InstructionBudget) {
  Device device(config, program);
  device.setBreakpoint(24);
  EXPECT_EQ(errorOf(device.continueToBreakpoint(/*maxInstructions=*/5)),
            "no breakpoint hit within 5 instructions");
  // Exactly 5 instructions executed: stopped before pc 5.
  EXPECT_EQ(device.getInstructionCount(), 5u);
  EXPECT_EQ(device.getPc(), 5u);

  // A breakpoint reached after exactly the budget is a hit, not an error.
  Device exact(config, program);
  exact.setBreakpoint(5);
  ASSERT_FALSE(bool(exact.continueToBreakpoint(5)));
  EXPECT_EQ(exact.getInstructionCount(), 5u);
  EXPECT_EQ(exact.getPc(), 5u);
}

TEST_F(DeviceTest, ContinueReportsFault) {
  isa::Program p = makeLoopProgram();
  p.code = {li(1, 7), dmaWait(1), halt()};
  p.origins.clear();
  Device device(config, p);
  device.setBreakpoint(2);
  EXPECT_EQ(errorOf(device.continueToBreakpoint()),
            "fault at pc 1 (dma.wait r1): WAIT on DMA id 7, which was never "
            "issued");
  EXPECT_EQ(device.getPc(), 1u);
  EXPECT_EQ(device.getInstructionCount(), 1u);
}

//===----------------------------------------------------------------------===//
// Probes
//===----------------------------------------------------------------------===//

TEST_F(DeviceTest, ReadMemoryHbmInitialValues) {
  Device device(config, program);
  // HBM x holds initValue(7, i) at X + 4 i from attach on.
  EXPECT_EQ(readMem(device, MemSpace::HBM, kX, 64), initBytes(0, 16));
  // The last element of x: X + 4092 is element 1023.
  EXPECT_EQ(readMem(device, MemSpace::HBM, kX + 4092, 4), initBytes(1023, 1));
  // An unaligned read inside the buffer returns the raw bytes: bytes 2..5
  // are the upper half of element 0 and the lower half of element 1.
  std::vector<uint8_t> two = initBytes(0, 2);
  EXPECT_EQ(readMem(device, MemSpace::HBM, kX + 2, 4),
            std::vector<uint8_t>(two.begin() + 2, two.begin() + 6));
  // VMEM starts as zeros.
  EXPECT_EQ(readMem(device, MemSpace::VMEM, kA, 64),
            std::vector<uint8_t>(64, 0));
}

TEST_F(DeviceTest, ReadMemoryVmemAfterDma) {
  Device device(config, program);
  // First arrival at the dma.wait: the DMA of iteration 0 (pc 18) copied
  // x[0..16) to VMEM [0, 64) at ISSUE; the vfills at pcs 8, 9, 11 ran.
  device.setBreakpoint(19);
  ASSERT_FALSE(bool(device.continueToBreakpoint()));
  EXPECT_EQ(readMem(device, MemSpace::VMEM, kA, 64), initBytes(0, 16));
  // [64, 68) is not written yet.
  EXPECT_EQ(readMem(device, MemSpace::VMEM, kA + 64, 4),
            std::vector<uint8_t>(4, 0));
  EXPECT_EQ(readMem(device, MemSpace::VMEM, kB, 32),
            floatBytes(std::vector<float>(8, 1.5f)));
  // C: pc 9 wrote 0.25 to [8192, 8208), pc 11 then 4.0 to [8192, 8200).
  EXPECT_EQ(readMem(device, MemSpace::VMEM, kC, 16),
            floatBytes({4.0f, 4.0f, 0.25f, 0.25f}));

  // Second arrival: x[16..32) is at VMEM [64, 128).
  Device second(config, program);
  second.setBreakpoint(19, 2);
  ASSERT_FALSE(bool(second.continueToBreakpoint()));
  EXPECT_EQ(readMem(second, MemSpace::VMEM, kA + 64, 64), initBytes(16, 16));
}

TEST_F(DeviceTest, ReadMemoryOutsideBuffers) {
  Device device(config, program);
  std::vector<uint8_t> buf(16);
  // Past the last VMEM buffer c = [8192, 12288).
  EXPECT_EQ(errorOf(device.readMemory(MemSpace::VMEM, 12288, 4, buf.data())),
            "no buffer holds vmem [12288, 12292)");
  // Straddles a and b, which are adjacent: a debugger may read across
  // buffers (coalesced ranges of a trace do).
  EXPECT_EQ(errorOf(device.readMemory(MemSpace::VMEM, 4092, 8, buf.data())),
            "<success>");
  // Past the end of x = [65536, 69632).
  EXPECT_EQ(errorOf(device.readMemory(MemSpace::HBM, kX + 4092, 8, buf.data())),
            "no buffer holds hbm [69628, 69636)");
  // VMEM address 0x10000 is not x: spaces are separate.
  EXPECT_EQ(errorOf(device.readMemory(MemSpace::VMEM, kX, 4, buf.data())),
            "no buffer holds vmem [65536, 65540)");
  // HBM 0 holds no buffer either.
  EXPECT_EQ(errorOf(device.readMemory(MemSpace::HBM, 0, 4, buf.data())),
            "no buffer holds hbm [0, 4)");
}

TEST_F(DeviceTest, ReadInstruction) {
  Device device(config, program);
  for (uint32_t pc = 0; pc < program.code.size(); ++pc) {
    SCOPED_TRACE("pc " + std::to_string(pc));
    auto inst = device.readInstruction(pc);
    ASSERT_TRUE(bool(inst)) << llvm::toString(inst.takeError());
    EXPECT_EQ(isa::encode(*inst), isa::encode(program.code[pc]));
    EXPECT_EQ(isa::toString(*inst), isa::toString(program.code[pc]));
  }
  // Spot checks against the program text.
  auto dma = device.readInstruction(18);
  ASSERT_TRUE(bool(dma));
  EXPECT_EQ(isa::toString(*dma),
            "dma.issue r13, r11, r12, hbm->vmem, 1x16, s=16,16");
  auto last = device.readInstruction(24);
  ASSERT_TRUE(bool(last));
  EXPECT_EQ(last->op, Opcode::Halt);

  EXPECT_EQ(errorOf(device.readInstruction(25)),
            "pc 25 is outside the code (25 instructions)");
  EXPECT_EQ(errorOf(device.readInstruction(0xffffffffu)),
            "pc 4294967295 is outside the code (25 instructions)");
}

TEST_F(DeviceTest, PendingDmasUntilWait) {
  Device device(config, program);
  device.setBreakpoint(19);
  ASSERT_FALSE(bool(device.continueToBreakpoint()));
  // The ISSUE at pc 18 (iteration 0) is pending: id 0, src x[0..16) = HBM
  // 1x16 stride 16 at X, dst VMEM 1x16 stride 16 at A.
  ASSERT_EQ(device.readPendingDmas().size(), 1u);
  {
    const Simulator::PendingDma &p = device.readPendingDmas()[0];
    EXPECT_EQ(p.id, 0u);
    EXPECT_EQ(p.pc, 18u);
    EXPECT_EQ(p.src.space, MemSpace::HBM);
    EXPECT_EQ(p.src.base, kX);
    EXPECT_EQ(p.src.rows, 1u);
    EXPECT_EQ(p.src.cols, 16u);
    EXPECT_EQ(p.src.rowStride, 16u);
    EXPECT_EQ(p.dst.space, MemSpace::VMEM);
    EXPECT_EQ(p.dst.base, kA);
    EXPECT_EQ(p.dst.rows, 1u);
    EXPECT_EQ(p.dst.cols, 16u);
    EXPECT_EQ(p.dst.rowStride, 16u);
  }
  EXPECT_EQ(device.readNextDmaId(), 1u);
  // The WAIT retires it; the next id stays 1.
  ASSERT_FALSE(bool(device.step()));
  EXPECT_TRUE(device.readPendingDmas().empty());
  EXPECT_EQ(device.readNextDmaId(), 1u);

  // Iteration 1: id 1, X + 64 -> A + 64.
  device.setBreakpoint(19, 1);
  // We are at pc 20 now; the next arrival at pc 19 is iteration 1's.
  ASSERT_FALSE(bool(device.continueToBreakpoint()));
  EXPECT_EQ(device.getInstructionCount(), 28u);
  ASSERT_EQ(device.readPendingDmas().size(), 1u);
  {
    const Simulator::PendingDma &p = device.readPendingDmas()[0];
    EXPECT_EQ(p.id, 1u);
    EXPECT_EQ(p.pc, 18u);
    EXPECT_EQ(p.src.base, kX + 64);
    EXPECT_EQ(p.dst.base, kA + 64);
  }
  EXPECT_EQ(device.readNextDmaId(), 2u);
  ASSERT_FALSE(bool(device.step()));
  EXPECT_TRUE(device.readPendingDmas().empty());
}

//===----------------------------------------------------------------------===//
// resolveBreakpoint
//===----------------------------------------------------------------------===//

TEST_F(DeviceTest, ResolvePc) {
  auto pc = resolveBreakpoint(program, "pc:7");
  ASSERT_TRUE(bool(pc)) << llvm::toString(pc.takeError());
  EXPECT_EQ(*pc, 7u);
  auto first = resolveBreakpoint(program, "pc:0");
  ASSERT_TRUE(bool(first));
  EXPECT_EQ(*first, 0u);
  auto last = resolveBreakpoint(program, "pc:24");
  ASSERT_TRUE(bool(last));
  EXPECT_EQ(*last, 24u);
}

TEST_F(DeviceTest, ResolveOp) {
  // op 13 (accel.for) spans pcs 22 and 23: its first pc.
  auto pc = resolveBreakpoint(program, "op:13");
  ASSERT_TRUE(bool(pc)) << llvm::toString(pc.takeError());
  EXPECT_EQ(*pc, 22u);
  // op 8 spans 15..17; op 2 spans 6..7; op 1 spans 0..5.
  auto op8 = resolveBreakpoint(program, "op:8");
  ASSERT_TRUE(bool(op8));
  EXPECT_EQ(*op8, 15u);
  auto op2 = resolveBreakpoint(program, "op:2");
  ASSERT_TRUE(bool(op2));
  EXPECT_EQ(*op2, 6u);
  auto op1 = resolveBreakpoint(program, "op:1");
  ASSERT_TRUE(bool(op1));
  EXPECT_EQ(*op1, 0u);
}

TEST_F(DeviceTest, ResolveLoc) {
  struct Case {
    const char *spec;
    uint32_t pc;
  } cases[] = {
      // Line 16 is at pc 20 in inc/helpers.mlir and at pc 21 in
      // src/model.mlir: the file suffix selects.
      {"loc:model.mlir:16", 21},
      {"loc:src/model.mlir:16", 21},
      {"loc:helpers.mlir:16", 20},
      // Line 3 is op 1 at pcs 0..5; line 11 is op 13 at pcs 22..23 (not
      // line 1, and not 12 which comes before it).
      {"loc:model.mlir:3", 0},
      {"loc:model.mlir:11", 22},
      {"loc:model.mlir:12", 15},
      {"loc:model.mlir:18", 24},
  };
  for (const Case &c : cases) {
    SCOPED_TRACE(c.spec);
    auto pc = resolveBreakpoint(program, c.spec);
    ASSERT_TRUE(bool(pc)) << llvm::toString(pc.takeError());
    EXPECT_EQ(*pc, c.pc);
  }
}

TEST_F(DeviceTest, ResolveErrors) {
  struct Case {
    const char *spec;
    const char *error;
  } cases[] = {
      // Syntax.
      {"pc:x", "bad breakpoint 'pc:x': expected pc:N"},
      {"pc:", "bad breakpoint 'pc:': expected pc:N"},
      {"pc:-1", "bad breakpoint 'pc:-1': expected pc:N"},
      {"pc:4294967296", "bad breakpoint 'pc:4294967296': expected pc:N"},
      {"op:abc", "bad breakpoint 'op:abc': expected op:ID with a positive op "
                 "id"},
      {"op:0", "bad breakpoint 'op:0': expected op:ID with a positive op id"},
      {"loc:model.mlir", "bad breakpoint 'loc:model.mlir': expected "
                         "loc:FILE:LINE"},
      {"loc::16", "bad breakpoint 'loc::16': expected loc:FILE:LINE"},
      {"loc:model.mlir:x", "bad breakpoint 'loc:model.mlir:x': expected "
                           "loc:FILE:LINE"},
      // pc out of range: the program has 25 instructions (0..24).
      {"pc:25", "bad breakpoint 'pc:25': the program has 25 instructions"},
      {"pc:1000", "bad breakpoint 'pc:1000': the program has 25 "
                  "instructions"},
      // Unknown op id.
      {"op:42", "bad breakpoint 'op:42': no instruction comes from op id 42"},
      {"op:15", "bad breakpoint 'op:15': no instruction comes from op id 15"},
      // Unknown location: no line 1 (must not match 11..18), no such file,
      // no line 16 in a file ending in other.mlir.
      {"loc:model.mlir:1", "bad breakpoint 'loc:model.mlir:1': no instruction "
                           "comes from line 1 of a file ending in "
                           "'model.mlir'"},
      {"loc:other.mlir:16", "bad breakpoint 'loc:other.mlir:16': no "
                            "instruction comes from line 16 of a file ending "
                            "in 'other.mlir'"},
      // Line 9 of helpers.mlir does not exist (9 is pc 20's column).
      {"loc:helpers.mlir:9", "bad breakpoint 'loc:helpers.mlir:9': no "
                             "instruction comes from line 9 of a file ending "
                             "in 'helpers.mlir'"},
      // Unknown kind.
      {"line:3", "bad breakpoint 'line:3': expected pc:N, op:ID or "
                 "loc:FILE:LINE"},
      {"7", "bad breakpoint '7': expected pc:N, op:ID or loc:FILE:LINE"},
      {"", "bad breakpoint '': expected pc:N, op:ID or loc:FILE:LINE"},
  };
  for (const Case &c : cases) {
    SCOPED_TRACE(c.spec);
    EXPECT_EQ(errorOf(resolveBreakpoint(program, c.spec)), c.error);
  }
}

TEST_F(DeviceTest, ResolvedBreakpointStopsThere) {
  // loc:model.mlir:16 is the matmul (pc 21); its second arrival follows 15
  // + 9 + 6 = 30 instructions.
  auto pc = resolveBreakpoint(program, "loc:model.mlir:16");
  ASSERT_TRUE(bool(pc)) << llvm::toString(pc.takeError());
  Device device(config, program);
  device.setBreakpoint(*pc, 2);
  ASSERT_FALSE(bool(device.continueToBreakpoint()));
  EXPECT_EQ(device.getPc(), 21u);
  EXPECT_EQ(device.getInstructionCount(), 30u);
}

} // namespace
