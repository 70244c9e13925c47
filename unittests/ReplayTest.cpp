//===- ReplayTest.cpp - The replayer -------------------------------------===//
//
// The replayer of SnR (Zarkadas et al., SoCC '25) §4.2 (the trace file
// is TraceFileTest.cpp's): after the trace-load step the window replays
// with the same functional results and PC sequence as the full run; when it
// starts with no DMA in flight and every unit idle, with the same timing
// relative to its first instruction; and a PC that differs from the
// recorded one is reported as a divergence.
//
// Timing facts used below (Simulator.cpp header, docs/isa.md "Timing"),
// config: scalar latency 1, hbm->vmem T_b = 100 and 64 B/cycle, default MXU
// 128 x 128 (weight-stationary, double-buffered), VPU registers of 8 x 128,
// pipeline depth 8, simple cost 1:
//  - 64-byte DMA: complete = issue + 100 + 1;
//  - vpu.fill / vpu.add of a tile within one register: 8 + 1 = 9 cycles;
//  - 2x2x2 matmul: F + T + R + C - 3 = 128 + 2 + 128 + 128 - 3 = 383 cycles
//    (docs/isa.md "MXU").
//
//===----------------------------------------------------------------------===//

#include "accel/Replay/Recorder.h"
#include "accel/Replay/Replayer.h"
#include "accel/Replay/Trace.h"
#include "accel/Sim/Device.h"

#include "TestPrograms.h"

#include "llvm/Support/CRC.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <iterator>
#include <string>
#include <utility>
#include <vector>

using namespace accel;
using namespace accel::sim;
using namespace accel::test;
using accel::replay::DmaDescriptor;
using accel::replay::MemChunk;
using accel::replay::Replayer;
using accel::replay::Trace;
using isa::Buffer;
using isa::MemSpace;

namespace {

// The program under test is makeLoopProgram() (TestPrograms.h).

/// The source name of this file's config in errors.
constexpr const char *kConfigName = "replay-test.json";

class ReplayTest : public ::testing::Test {
protected:
  MachineConfig config = makeLoopConfig(kConfigName);
  isa::Program program = makeLoopProgram();

  /// Records `count` instructions from the `hit`-th arrival at `pc`.
  Trace recordWindow(uint32_t pc, uint64_t hit, uint64_t count) {
    Device device(config, program);
    return recordAt(device, program, config, pc, hit, count);
  }

  /// A device that ran the full program to the same point and then
  /// executed the window (`count` steps).
  void runReference(Device &device, uint32_t pc, uint64_t hit, uint64_t count) {
    device.setBreakpoint(pc, hit);
    llvm::Error e = device.continueToBreakpoint();
    ASSERT_FALSE(bool(e)) << llvm::toString(std::move(e));
    for (uint64_t i = 0; i < count; ++i) {
      llvm::Error s = device.step();
      ASSERT_FALSE(bool(s)) << llvm::toString(std::move(s));
    }
  }

  /// The events of a full run.
  EventLog fullRun() {
    EventLog events;
    Simulator sim(config, program);
    sim.addObserver(&events);
    auto r = sim.run();
    EXPECT_TRUE(bool(r)) << llvm::toString(r.takeError());
    return events;
  }
};

std::unique_ptr<Replayer> loadReplayer(const Trace &trace,
                                       Observer *observer = nullptr) {
  auto r = Replayer::create(trace);
  EXPECT_TRUE(bool(r)) << llvm::toString(r.takeError());
  if (!r)
    return nullptr;
  if (observer)
    (*r)->addObserver(observer);
  llvm::Error e = (*r)->load();
  EXPECT_FALSE(bool(e)) << llvm::toString(std::move(e));
  return std::move(*r);
}

std::vector<uint8_t> readSim(Simulator &sim, MemSpace space, uint64_t addr,
                             uint64_t n) {
  std::vector<uint8_t> out(n, 0xee);
  llvm::Error e = sim.getMemory().read(space, addr, n, out.data());
  EXPECT_FALSE(bool(e)) << llvm::toString(std::move(e));
  return out;
}

//===----------------------------------------------------------------------===//
// Replayer: creation and trace-load errors
//===----------------------------------------------------------------------===//

TEST_F(ReplayTest, CreateRejectsBadConfig) {
  Trace t = recordWindow(15, 2, 9);
  t.configJson = "[1]";
  EXPECT_EQ(errorOf(Replayer::create(t)),
            "trace config: byte 0: the config must be a JSON object");
}

TEST_F(ReplayTest, LoadRejectsMemoryOutsideBuffers) {
  Trace t = recordWindow(15, 2, 9);
  t.memory.push_back({MemSpace::VMEM, 20000, {1, 2, 3, 4}});
  auto r = Replayer::create(t);
  ASSERT_TRUE(bool(r)) << llvm::toString(r.takeError());
  EXPECT_EQ(errorOf((*r)->load()),
            "trace-load: no buffer holds vmem [20000, 20004)");
}

//===----------------------------------------------------------------------===//
// (a) Functional equality
//===----------------------------------------------------------------------===//

TEST_F(ReplayTest, WindowReproducesTheFullRunFunctionally) {
  // Iteration 1 of the loop: pcs 15..23, instructions 24..32 of the run.
  const uint64_t count = 9;
  Trace trace = recordWindow(15, 2, count);
  ASSERT_EQ(trace.pcs,
            (std::vector<uint32_t>{15, 16, 17, 18, 19, 20, 21, 22, 23}));
  ASSERT_EQ(trace.startIndex, 24u);
  EventLog replayEvents;
  auto replayer = loadReplayer(trace, &replayEvents);
  ASSERT_TRUE(replayer);
  auto summary = replayer->run();
  ASSERT_TRUE(bool(summary)) << llvm::toString(summary.takeError());
  EXPECT_EQ(summary->instructions, count);
  Simulator &sim = replayer->getSimulator();
  // i = 2 after pc 22 and 2 < 2 is false: both stop on the halt's pc.
  EXPECT_EQ(sim.getPc(), 24u);
  EXPECT_FALSE(sim.isHalted());
  Device reference(config, program);
  runReference(reference, 15, 2, count);
  EXPECT_EQ(reference.getPc(), 24u);
  EXPECT_EQ(reference.getInstructionCount(), 33u);

  // Registers the window wrote, with their hand-derived values:
  //  r10 = 1 * 64 (pc 15), r11 = X + 64 (pc 16), r12 = A + 64 (pc 17),
  //  r13 = 1, the second DMA id (pc 18), r6 = 2 (pc 22).
  struct Reg {
    unsigned r;
    uint64_t value;
  } written[] = {{10, 64}, {11, kX + 64}, {12, kA + 64}, {13, 1}, {6, 2}};
  for (const Reg &w : written) {
    SCOPED_TRACE("r" + std::to_string(w.r));
    EXPECT_EQ(reference.readRegister(w.r), w.value);
    EXPECT_EQ(sim.getRegister(w.r), w.value);
  }

  // Memory the window wrote:
  //  VMEM [64, 128): the DMA of pc 18, x[16..32);
  //  VMEM [5120, 5152): pc 20, out[j] = x[16 + j] + 1.5;
  //  VMEM [8192, 8208): pc 21, C after both iterations.
  std::vector<float> out;
  for (int j = 0; j < 8; ++j)
    out.push_back(vaddOut(1, j));
  struct Range {
    uint64_t addr;
    std::vector<uint8_t> bytes;
  } ranges[] = {{kA + 64, initBytes(16, 16)},
                {5120, floatBytes(out)},
                {kC, floatBytes(cAfter(1))}};
  for (const Range &w : ranges) {
    SCOPED_TRACE("VMEM " + std::to_string(w.addr));
    EXPECT_EQ(readMem(reference, MemSpace::VMEM, w.addr, w.bytes.size()),
              w.bytes);
    EXPECT_EQ(readSim(sim, MemSpace::VMEM, w.addr, w.bytes.size()), w.bytes);
  }

  // Minimal state: r16 (written at pc 13, never read by the window) is not
  // in the trace, so the replay holds 0 where the device holds 6.
  EXPECT_EQ(reference.readRegister(16), 6u);
  EXPECT_EQ(sim.getRegister(16), 0u);

  // Per instruction: the replay retires the same PCs as instructions
  // 24..32 of a full run.
  EventLog full = fullRun();
  ASSERT_EQ(full.retired.size(), 34u);
  ASSERT_EQ(replayEvents.retired.size(), count);
  for (uint64_t i = 0; i < count; ++i) {
    SCOPED_TRACE("window instruction " + std::to_string(i));
    EXPECT_EQ(replayEvents.retired[i].pc, full.retired[24 + i].pc);
    EXPECT_EQ(replayEvents.retired[i].pc, trace.pcs[i]);
    EXPECT_EQ(replayEvents.retired[i].index, i);
  }
}

/// Runs both loaded replayers and expects the same timing: total and stall
/// cycles, and every instruction's PC, issue cycle and stall.
static void expectSameTiming(Replayer &ra, const EventLog &a, Replayer &rb,
                             const EventLog &b) {
  auto sa = ra.run();
  auto sb = rb.run();
  ASSERT_TRUE(bool(sa)) << llvm::toString(sa.takeError());
  ASSERT_TRUE(bool(sb)) << llvm::toString(sb.takeError());
  EXPECT_EQ(sa->totalCycles, sb->totalCycles);
  EXPECT_EQ(sa->stallCycles, sb->stallCycles);
  ASSERT_EQ(a.retired.size(), b.retired.size());
  for (size_t i = 0; i < a.retired.size(); ++i) {
    EXPECT_EQ(a.retired[i].pc, b.retired[i].pc);
    EXPECT_EQ(a.retired[i].issueCycle, b.retired[i].issueCycle);
    EXPECT_EQ(a.retired[i].stallCycles, b.retired[i].stallCycles);
  }
}

TEST_F(ReplayTest, DeserializedTraceReplaysLikeTheOriginal) {
  Trace trace = recordWindow(20, 1, 1000);
  auto back = Trace::deserialize(trace.serialize());
  ASSERT_TRUE(bool(back)) << llvm::toString(back.takeError());
  EventLog a, b;
  auto ra = loadReplayer(trace, &a);
  auto rb = loadReplayer(*back, &b);
  ASSERT_TRUE(ra && rb);
  expectSameTiming(*ra, a, *rb, b);
  EXPECT_EQ(readSim(ra->getSimulator(), MemSpace::VMEM, kC, 16),
            readSim(rb->getSimulator(), MemSpace::VMEM, kC, 16));
}

TEST_F(ReplayTest, TimingOnlyReplayKeepsTheTiming) {
  // The same window replayed twice, the second time without the MXU/VPU
  // arithmetic: every instruction issues at the same cycle with the same
  // stall, the totals agree, and only the computed data differs (C, the
  // VPU's and MXU's output, stays as the trace-load left it).
  Trace trace = recordWindow(20, 1, 1000);
  EventLog a, b;
  auto ra = loadReplayer(trace, &a);
  auto rb = loadReplayer(trace, &b);
  ASSERT_TRUE(ra && rb);
  rb->getSimulator().setTimingOnly(true);
  expectSameTiming(*ra, a, *rb, b);
  EXPECT_FALSE(bool(ra->checkResults()));
  EXPECT_NE(readSim(ra->getSimulator(), MemSpace::VMEM, kC, 16),
            readSim(rb->getSimulator(), MemSpace::VMEM, kC, 16));
}

//===----------------------------------------------------------------------===//
// (b) Timing equality
//===----------------------------------------------------------------------===//

TEST_F(ReplayTest, WindowStartingIdleReproducesTheTiming) {
  // Full-run timeline up to the window (absolute cycles):
  //   pcs 0..7 at 0..7; pc 8 vfill [8, 17); pc 9 vfill waits for the VPU
  //   (stall 8) [17, 26); pc 10 at 18; pc 11 vfill waits for pc 9 (writes
  //   the same C bytes) [26, 35); pcs 12..17 at 27..32; pc 18 ISSUE at 33,
  //   complete 134; pc 19 WAIT ready 34, resumes at 134.
  // The window starts at the first arrival at pc 20 (instruction 20), ready
  // at 135: no DMA in flight (DMA 0 complete and WAITed), the VPU free
  // since 35, the MXU never used. Its instructions (absolute issue, stall,
  // cause):
  //   20 vpu.add     135    0  -           VPU busy [135, 144)
  //   21 matmul      144    8  data_hazard A = [5120, 5144) is vpu.add's
  //                                         output; MXU [144, 527) (m 2,
  //                                         one fold: 128 + 2 + 254 - 1)
  //   22 addi        145; 23 blt 146; 15 147; 16 148; 17 149
  //   18 dma.issue   150                    base end 250, complete 251
  //   19 dma.wait    251  100  dma_wait_base (ready 151: 99 + 1)
  //   20 vpu.add     527  275  data_hazard its output overlaps the A the
  //                                         matmul (until 527) reads
  //   21 matmul      536    8  data_hazard A is vpu.add's output (until
  //                                         536); MXU [536, 919)
  //   22 addi 537; 23 blt 538 (falls through); 24 halt 539.
  // Total: max(539 + 1, MXU 919, VPU 536, DMA 251) = 919. The replay starts
  // its window at cycle 0, so it must see every issue 135 cycles earlier.
  struct Expect {
    uint32_t pc;
    uint64_t rel, stall;
    StallCause cause;
  } expected[] = {
      {20, 0, 0, StallCause::None},
      {21, 9, 8, StallCause::DataHazard},
      {22, 10, 0, StallCause::None},
      {23, 11, 0, StallCause::None},
      {15, 12, 0, StallCause::None},
      {16, 13, 0, StallCause::None},
      {17, 14, 0, StallCause::None},
      {18, 15, 0, StallCause::None},
      {19, 116, 100, StallCause::DmaWaitBase},
      {20, 392, 275, StallCause::DataHazard},
      {21, 401, 8, StallCause::DataHazard},
      {22, 402, 0, StallCause::None},
      {23, 403, 0, StallCause::None},
      {24, 404, 0, StallCause::None},
  };
  const size_t n = std::size(expected);

  Trace trace = recordWindow(20, 1, 1000);
  ASSERT_EQ(trace.startIndex, 20u);
  ASSERT_EQ(trace.pcs.size(), n);
  EXPECT_TRUE(trace.pendingDmas.empty());
  EXPECT_EQ(trace.nextDmaId, 1u);

  EventLog full = fullRun();
  ASSERT_EQ(full.retired.size(), 34u);
  ASSERT_EQ(full.halts.size(), 1u);
  EXPECT_EQ(full.halts[0], 919u);
  const uint64_t base = full.retired[20].issueCycle;
  EXPECT_EQ(base, 135u);

  EventLog rep;
  auto replayer = loadReplayer(trace, &rep);
  ASSERT_TRUE(replayer);
  auto summary = replayer->run();
  ASSERT_TRUE(bool(summary)) << llvm::toString(summary.takeError());
  ASSERT_EQ(rep.retired.size(), n);
  const uint64_t repBase = rep.retired[0].issueCycle;
  EXPECT_EQ(repBase, 0u);

  for (size_t i = 0; i < n; ++i) {
    SCOPED_TRACE("window instruction " + std::to_string(i) + " (pc " +
                 std::to_string(expected[i].pc) + ")");
    const RetireEvent &f = full.retired[20 + i];
    const RetireEvent &r = rep.retired[i];
    EXPECT_EQ(f.pc, expected[i].pc);
    EXPECT_EQ(r.pc, expected[i].pc);
    EXPECT_EQ(f.issueCycle - base, expected[i].rel);
    EXPECT_EQ(r.issueCycle - repBase, expected[i].rel);
    EXPECT_EQ(f.stallCycles, expected[i].stall);
    EXPECT_EQ(r.stallCycles, expected[i].stall);
    EXPECT_EQ(f.cause, expected[i].cause);
    EXPECT_EQ(r.cause, expected[i].cause);
    EXPECT_EQ(r.unitEnd - r.unitStart, f.unitEnd - f.unitStart);
  }
  // The WAIT of the window: same split in both runs.
  ASSERT_EQ(full.waits.size(), 2u);
  ASSERT_EQ(rep.waits.size(), 1u);
  EXPECT_EQ(rep.waits[0].dmaId, 1u);
  EXPECT_EQ(full.waits[1].dmaId, 1u);
  EXPECT_EQ(rep.waits[0].outcome.stallBase, 99u);
  EXPECT_EQ(full.waits[1].outcome.stallBase, 99u);
  EXPECT_EQ(rep.waits[0].outcome.stallTransfer, 1u);
  EXPECT_EQ(full.waits[1].outcome.stallTransfer, 1u);
  // The replay ends 919 - 135 cycles after its first issue.
  EXPECT_EQ(summary->totalCycles, 919u - 135u);
  EXPECT_EQ(summary->stallCycles[size_t(StallCause::DataHazard)], 8u + 275 + 8);
  EXPECT_EQ(summary->stallCycles[size_t(StallCause::DmaWaitBase)], 99u);
  EXPECT_EQ(summary->stallCycles[size_t(StallCause::DmaWaitTransfer)], 1u);
}

//===----------------------------------------------------------------------===//
// (c) A window that starts with a DMA in flight
//===----------------------------------------------------------------------===//

TEST_F(ReplayTest, WindowStartingWithDmaInFlight) {
  // The second arrival at the WAIT (instruction 28): DMA 1 (pc 18) is in
  // flight.
  Trace trace = recordWindow(19, 2, 1000);
  ASSERT_EQ(trace.pendingDmas.size(), 1u);
  ASSERT_EQ(trace.pcs, (std::vector<uint32_t>{19, 20, 21, 22, 23, 24}));
  EventLog rep;
  auto replayer = loadReplayer(trace, &rep);
  ASSERT_TRUE(replayer);
  // The trace-load step issues the in-flight DMA at cycle 0 of the window:
  // 64 bytes, base end 0 + 100, complete 100 + 1.
  ASSERT_EQ(rep.issued.size(), 1u);
  EXPECT_EQ(rep.issued[0].first, 18u);
  EXPECT_EQ(rep.issued[0].second.id, 1u);
  EXPECT_EQ(rep.issued[0].second.bytes, 64u);
  EXPECT_EQ(rep.issued[0].second.issue, 0u);
  EXPECT_EQ(rep.issued[0].second.baseEnd, 100u);
  EXPECT_EQ(rep.issued[0].second.complete, 101u);

  auto summary = replayer->run();
  ASSERT_TRUE(bool(summary)) << llvm::toString(summary.takeError());
  EXPECT_EQ(summary->instructions, 6u);
  // The WAIT is the window's first instruction, ready at 0: 100 cycles of
  // base latency and 1 of transfer; it issues at 101.
  ASSERT_EQ(rep.waits.size(), 1u);
  EXPECT_EQ(rep.waits[0].pc, 19u);
  EXPECT_EQ(rep.waits[0].dmaId, 1u);
  EXPECT_EQ(rep.waits[0].cycle, 0u);
  EXPECT_EQ(rep.waits[0].outcome.stallBase, 100u);
  EXPECT_EQ(rep.waits[0].outcome.stallTransfer, 1u);
  EXPECT_EQ(rep.waits[0].outcome.slack, 0u);
  EXPECT_EQ(rep.waits[0].outcome.resume, 101u);
  ASSERT_EQ(rep.retired.size(), 6u);
  EXPECT_EQ(rep.retired[0].pc, 19u);
  EXPECT_EQ(rep.retired[0].issueCycle, 101u);
  EXPECT_EQ(rep.retired[0].stallCycles, 101u);
  EXPECT_EQ(rep.retired[0].cause, StallCause::DmaWaitBase);
  EXPECT_TRUE(replayer->getSimulator().getPendingDmas().empty());
  EXPECT_TRUE(replayer->getSimulator().isHalted());

  // Functionally the same end state as the full run.
  Device reference(config, program);
  ASSERT_FALSE(bool(reference.continueToBreakpoint()));
  Simulator &sim = replayer->getSimulator();
  EXPECT_EQ(readSim(sim, MemSpace::VMEM, kC, 16), floatBytes(cAfter(1)));
  EXPECT_EQ(readMem(reference, MemSpace::VMEM, kC, 16), floatBytes(cAfter(1)));
  EXPECT_EQ(sim.getRegister(6), 2u);
  EXPECT_EQ(reference.readRegister(6), 2u);
}

//===----------------------------------------------------------------------===//
// (d) PC divergence
//===----------------------------------------------------------------------===//

TEST_F(ReplayTest, ModifiedPcSequenceIsADivergence) {
  Trace trace = recordWindow(15, 2, 9); // pcs 15..23
  trace.pcs.set(3, 22);                 // the replay will be at 18
  auto replayer = loadReplayer(trace);
  ASSERT_TRUE(replayer);
  std::string msg = errorOf(replayer->run());
  EXPECT_EQ(msg,
            "PC divergence at instruction 3 of the window: the trace has pc 22 "
            "(addi r6, r6, 1, op 13 'accel.for' at src/model.mlir:11:5) but "
            "the replay is at pc 18 (dma.issue r13, r11, r12, hbm->vmem, "
            "1x16, s=16,16, op 9 'accel.dma_start' at src/model.mlir:13:7); "
            "the previous instruction was pc 17 (add r12, r2, r10, op 8 "
            "'accel.index' at src/model.mlir:12:7)");
  EXPECT_EQ(msg.rfind("PC divergence at instruction 3 of the window", 0), 0u);
  // It stopped before executing the diverging instruction.
  EXPECT_EQ(replayer->getSimulator().getInstructionCount(), 3u);

  // At the first instruction there is no previous one.
  Trace first = recordWindow(15, 2, 9);
  first.pcs.set(0, 16);
  auto r0 = loadReplayer(first);
  ASSERT_TRUE(r0);
  EXPECT_EQ(errorOf(r0->run()),
            "PC divergence at instruction 0 of the window: the trace has pc 16 "
            "(add r11, r1, r10, op 8 'accel.index' at src/model.mlir:12:7) "
            "but the replay is at pc 15 (mul r10, r6, r7, op 8 'accel.index' "
            "at src/model.mlir:12:7)");
}

TEST_F(ReplayTest, BranchGoingTheOtherWayIsADivergence) {
  // Window from the first arrival at pc 20 to the halt: 20, 21, 22, 23,
  // 15..23, 24. Saving the loop bound r5 as 3 instead of 2 makes iteration
  // 1's blt (i = 2 < 3) jump back to 15 where the trace has the halt
  // (instruction 13).
  Trace trace = recordWindow(20, 1, 1000);
  ASSERT_EQ(trace.pcs.size(), 14u);
  bool patched = false;
  for (auto &[reg, value] : trace.registers)
    if (reg == 5) {
      ASSERT_EQ(value, 2u);
      value = 3;
      patched = true;
    }
  ASSERT_TRUE(patched);
  auto replayer = loadReplayer(trace);
  ASSERT_TRUE(replayer);
  EXPECT_EQ(errorOf(replayer->run()),
            "PC divergence at instruction 13 of the window: the trace has pc "
            "24 (halt, op 14 'accel.halt' at src/model.mlir:18:3) but the "
            "replay is at pc 15 (mul r10, r6, r7, op 8 'accel.index' at "
            "src/model.mlir:12:7); the previous instruction was pc 23 (blt "
            "r6, r5, @15, op 13 'accel.for' at src/model.mlir:11:5)");
}

TEST_F(ReplayTest, PcsPastTheHaltAreADivergence) {
  Trace trace = recordWindow(20, 1, 1000);
  ASSERT_EQ(trace.pcs.back(), 24u);
  trace.pcs.push_back(24); // instruction 14, after the halt
  auto replayer = loadReplayer(trace);
  ASSERT_TRUE(replayer);
  EXPECT_EQ(errorOf(replayer->run()),
            "PC divergence at instruction 14 of the window: the trace has pc "
            "24 (halt, op 14 'accel.halt' at src/model.mlir:18:3) but the "
            "replay halted at pc 24 (halt, op 14 'accel.halt' at "
            "src/model.mlir:18:3); the previous instruction was pc 24 (halt, "
            "op 14 'accel.halt' at src/model.mlir:18:3)");
}

//===----------------------------------------------------------------------===//
// A WAIT in the window on a DMA WAITed before it
//===----------------------------------------------------------------------===//

TEST_F(ReplayTest, WaitAgainOnDmaCompletedBeforeWindow) {
  // docs/isa.md: a DMA is pending "until the first WAIT on its id"; a second
  // WAIT on a valid id is legal (the full run accepts it, with slack).
  isa::Program p = makeLoopProgram();
  p.origins.clear();
  p.code = {
      li(1, kX),                                                       // 0
      li(2, kA),                                                       // 1
      dmaIssue(3, 1, 2, MemSpace::HBM, MemSpace::VMEM, 1, 16, 16, 16), // 2
      dmaWait(3),                                                      // 3
      addi(4, 3, 5),                                                   // 4
      dmaWait(3),                                                      // 5
      halt(),                                                          // 6
  };
  // Full run: ISSUE at 2 completes at 103; the first WAIT resumes at 103,
  // addi at 104, the second WAIT is ready at 105: slack 2, no stall.
  Simulator full(config, p);
  EventLog fe;
  full.addObserver(&fe);
  auto fr = full.run();
  ASSERT_TRUE(bool(fr)) << llvm::toString(fr.takeError());
  ASSERT_EQ(fe.waits.size(), 2u);
  EXPECT_EQ(fe.waits[1].outcome.slack, 2u);

  Device device(config, p);
  device.setBreakpoint(4);
  ASSERT_FALSE(bool(device.continueToBreakpoint()));
  auto trace = replay::record(device, p, config.jsonText, 100);
  ASSERT_TRUE(bool(trace)) << llvm::toString(trace.takeError());
  // r3 = 0 (the DMA id) is read by the addi first; DMA 0 is not pending.
  EXPECT_EQ(trace->registers,
            (std::vector<std::pair<uint8_t, uint64_t>>{{3, 0}}));
  EXPECT_TRUE(trace->pendingDmas.empty());
  EXPECT_EQ(trace->nextDmaId, 1u);

  auto replayer = Replayer::create(*trace);
  ASSERT_TRUE(bool(replayer)) << llvm::toString(replayer.takeError());
  EventLog re;
  (*replayer)->addObserver(&re);
  ASSERT_FALSE(bool((*replayer)->load()));
  auto rr = (*replayer)->run();
  ASSERT_TRUE(bool(rr)) << llvm::toString(rr.takeError());
  // The DMA completed before the window: the WAIT does not stall.
  ASSERT_EQ(re.retired.size(), 3u);
  EXPECT_EQ(re.retired[1].pc, 5u);
  EXPECT_EQ(re.retired[1].stallCycles, 0u);
  EXPECT_EQ(re.retired[1].cause, StallCause::None);
}

} // namespace
