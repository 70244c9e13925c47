//===- SimulatorDmaTest.cpp - DMAs and faults of the ISA simulator -------===//
//
// Hand-built programs on the simulator: DMA timing and data (the Fig. 4
// stall split of SnR, Zarkadas et al., SoCC '25), and the faults a program
// can raise. The timing rules behind the expected values are in
// SimulatorTestUtils.h.
//
//===----------------------------------------------------------------------===//

#include "SimulatorTestUtils.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
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
      li(1, kX),
      li(2, kA),
      li(5, kB),
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
      li(1, kX),
      li(2, kA),
      li(5, kB),
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
      li(1, kX),
      li(2, kA),
      li(5, kB),
      li(6, kOut),
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

/// Local DMAs that signal a semaphore of their own chip (a gather's rows,
/// accel-lower-gathers) are waited for by one sem.wait: it resumes at the
/// last signal it consumes, and each DMA whose signal it consumed is no
/// longer pending, so its destination may be read (docs/isa.md, "DMA
/// synchronization"). A DMA whose signal is not consumed stays pending.
TEST(SimulatorTest, SemWaitEndsLocalDmasItConsumes) {
  MachineConfig config = configFrom(kDmaConfig, kConfigName);
  auto signalled = [](uint8_t rd, uint8_t rsDst) {
    Inst i =
        dmaIssue(rd, 1, rsDst, MemSpace::HBM, MemSpace::VMEM, 1, 64, 64, 64);
    i.flags |= isa::kFlagSignal;
    i.s3 = 3;
    return i;
  };
  auto program = [&](int64_t count) {
    return makeProgram({
        li(1, kX),
        li(2, kA),
        li(5, kB),
        li(7, count),
        li(8, kC),
        // 5: 256 bytes: baseEnd 105, complete 109.
        signalled(3, 2),
        // 6: baseEnd 106; the link's FIFO: transfer from 109, complete 113.
        signalled(4, 5),
        // 7: ready 7, resumes at the count-th signal.
        semWait(3, 7),
        // c = a + b.
        vbinary(Opcode::VAdd, 8, 2, 5, 1, 64, 64, 64, 64),
        halt(),
    });
  };
  {
    isa::Program p = program(2);
    Simulator sim(config, p);
    EventLog rec;
    sim.addObserver(&rec);
    auto r = sim.run();
    ASSERT_TRUE(bool(r)) << llvm::toString(r.takeError());
    ASSERT_EQ(rec.retired.size(), 10u);
    EXPECT_EQ(rec.retired[7].issueCycle, 113u);
    EXPECT_EQ(stall(*r, StallCause::SemWait), 113u - 7);
    std::vector<float> c = readVmem(sim, kC, 1, 64, 64);
    for (uint64_t i = 0; i < 64; ++i)
      ASSERT_EQ(c[i], 2 * isa::initValue(kSeed, i)) << i;
  }
  {
    // One signal consumed: the second DMA is still pending at the read.
    isa::Program p = program(1);
    Simulator sim(config, p);
    auto r = sim.run();
    ASSERT_FALSE(bool(r));
    std::string message = llvm::toString(r.takeError());
    EXPECT_NE(message.find("data race"), std::string::npos) << message;
    EXPECT_NE(message.find("DMA 1"), std::string::npos) << message;
  }
}

//===----------------------------------------------------------------------===//
// Faults
//===----------------------------------------------------------------------===//

bool startsWith(const std::string &s, const std::string &prefix) {
  return s.rfind(prefix, 0) == 0;
}

TEST(SimulatorTest, FaultRaceOnALaterIssueWithTheSameTiles) {
  // A loop whose vpu.add (pc 7) has the same operands every iteration (the
  // issue stage keeps its tiles for the next issue), followed by a DMA into
  // one of them that nothing WAITs for: the second add races with it,
  // whether it reads (a) or writes (c) the DMA's destination.
  MachineConfig config = configFrom(kDmaConfig, kConfigName);
  for (bool writes : {false, true}) {
    isa::Program p = makeProgram({
        li(1, kX),
        li(2, kA),
        li(5, kB),
        li(8, kC),
        li(7, 0),
        li(9, 1),
        li(10, 3),
        vadd(8, 2, 5, 1, 64, 64, 64, 64),                             // 7
        dmaIssue(3, 1, writes ? 8 : 2, MemSpace::HBM, MemSpace::VMEM, // 8
                 1, 64, 64, 64),
        add(7, 7, 9),  // 9
        blt(7, 10, 7), // 10
        halt(),
    });
    Simulator sim(config, p);
    EventLog rec;
    sim.addObserver(&rec);
    std::string msg = faultOf(sim.run());
    EXPECT_TRUE(startsWith(msg, "fault at pc 7 ")) << msg;
    EXPECT_NE(msg.find(writes ? "data race: writes VMEM [8192, 8448)"
                              : "data race: reads VMEM [0, 256)"),
              std::string::npos)
        << msg;
    unsigned adds = 0;
    for (const auto &e : rec.retired)
      adds += e.pc == 7;
    EXPECT_EQ(adds, 1u) << msg;
  }
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
    // In a loop, the same PC in bounds first, then not: its second issue
    // is checked again (the checks are skipped only while the address
    // registers keep their values).
    isa::Program p =
        makeProgram({li(1, 0), li(2, 3000000), vfill(1, 2, 2, 2, 0.0f),
                     addi(1, 1, 1000000), blt(1, 2, 2), halt()});
    Simulator sim(config, p);
    std::string msg = faultOf(sim.run());
    EXPECT_TRUE(startsWith(msg, "fault at pc 2 ")) << msg;
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
  // The bounds check remembers, per instruction and operand, the bounds of
  // the buffer it found last time. One vpu.fill (pc 2) steps 2048 bytes per iteration
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
