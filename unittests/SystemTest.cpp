//===- SystemTest.cpp - Chips, remote DMAs, semaphores, deadlocks ---------===//
//
// The timing of remote DMAs by hand (docs/config.md, "ICI"): base latency of
// the link of their spaces plus the hop latency per ICI link, then bytes /
// ICI bandwidth once every link of the route is free, each directed link a
// FIFO; semaphores signalled on completion; the deterministic order of the
// chips; and the faults (deadlock, a chip that does not exist, a race with
// another chip's DMA).
//
//===----------------------------------------------------------------------===//

#include "TestPrograms.h"

#include "accel/Profile/Analyzer.h"
#include "accel/Profile/DmaStallAnalysis.h"
#include "accel/Sim/System.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

using namespace accel;
using namespace accel::sim;
using namespace accel::test;
using isa::MemSpace;

namespace {

/// hbm->vmem and vmem->vmem links with T_b = 100; ICI: 50 cycles per hop,
/// 16 B/cycle. `chips` chips on a ring; `extra` adds fields (JSON members
/// followed by a comma).
MachineConfig ringConfig(unsigned chips, const std::string &extra = "") {
  return configFrom(R"json({
    "scalar": { "latency": 1 },)json" +
                        extra + R"json(
    "dma": { "links": [
      { "src": "hbm", "dst": "vmem", "base_latency": 100, "bytes_per_cycle": 64 },
      { "src": "vmem", "dst": "vmem", "base_latency": 100, "bytes_per_cycle": 64 }
    ] },
    "chips": )json" + std::to_string(chips) +
                        R"json(,
    "ici": { "topology": "ring", "hop_latency": 50, "bytes_per_cycle": 16 }
  })json",
                    "system-test.json");
}

constexpr uint64_t kIn = 0x10000; // HBM in: 1 KiB, seed 3
constexpr uint64_t kRecv = 0;     // VMEM recv: 4 KiB (one 1 KiB slot per chip)
constexpr uint64_t kLocal = 4096; // VMEM local: 1 KiB

isa::Program program(std::vector<isa::Inst> code) {
  isa::Program p;
  p.name = "system";
  p.code = std::move(code);
  p.buffers = {hbmBuffer("in", kIn, 1024, 3), vmemBuffer("recv", kRecv, 4096),
               vmemBuffer("local", kLocal, 1024)};
  return p;
}

/// Records every retired instruction with its chip.
struct Retired : Observer {
  std::vector<RetireEvent> events;
  void onRetire(const RetireEvent &e) override { events.push_back(e); }
};

float hbmAt(Simulator &chip, uint64_t addr) {
  float v;
  chip.getMemory().readHbm(addr, &v, 4);
  return v;
}

float vmemAt(Simulator &chip, uint64_t addr) {
  return *chip.getMemory().vmemPtr(addr);
}

} // namespace

// Each chip of a 2-chip ring sends its 1 KiB input to the other's VMEM slot
// and waits for the other's with a semaphore. By hand (both chips run the
// same cycles): pcs 0-4 issue at 0-4, the dma.issue at 5; base latency 100
// (hbm->vmem) + 1 hop x 50 = 150, so its base ends at 155; 1024 B / 16
// B/cycle = 64 cycles on link 0->1 (chip 0's) or 1->0 (chip 1's), separate
// FIFOs, so both complete at 219 and signal semaphore 0 there. The sem.wait
// (pc 7, ready at 7) stalls 212 cycles; the dma.wait at 220 finds its DMA
// complete; halt at 221, so the system ends at 222.
TEST(SystemTest, RemoteDmaOnATwoChipRingByHand) {
  MachineConfig config = ringConfig(2);
  isa::Program p = program({
      chipId(1),                      // 0: r1 = chip
      li(2, 1),                       // 1
      rrr(isa::Opcode::Sub, 3, 2, 1), // 2: r3 = 1 - chip: the other chip
      li(4, kIn),                     // 3
      // 4: r5 = recv + 1024 * chip: this chip's slot on the other one.
      rri(isa::Opcode::Muli, 5, 1, 1024),
      remoteDma(6, 4, 5, 3, /*remoteDst=*/true, MemSpace::HBM, MemSpace::VMEM,
                16, 16, /*signal=*/0), // 5
      li(7, 1),                        // 6
      semWait(0, 7),                   // 7
      dmaWait(6),                      // 8
      halt(),                          // 9
  });
  System system(config, p);
  Retired log[2];
  for (unsigned c = 0; c < 2; ++c)
    system.getChip(c).addObserver(&log[c]);
  auto r = system.run();
  ASSERT_TRUE(bool(r)) << errorOf(r.takeError());
  EXPECT_EQ(r->totalCycles, 222u);
  EXPECT_EQ(r->instructions, 20u);
  for (unsigned c = 0; c < 2; ++c) {
    SCOPED_TRACE("chip " + std::to_string(c));
    const DmaTiming &t = system.getChip(c).getDmaEngine().get(0);
    EXPECT_EQ(t.issue, 5u);
    EXPECT_EQ(t.hops, 1u);
    EXPECT_EQ(t.baseEnd, 155u);
    EXPECT_EQ(t.transferStart, 155u);
    EXPECT_EQ(t.complete, 219u);
    EXPECT_EQ(t.srcChip, c);
    EXPECT_EQ(t.dstChip, 1 - c);
    EXPECT_EQ(t.semaphore, 0);
    EXPECT_EQ(config.getLinkName(t.link), c == 0 ? "ici 0->1" : "ici 1->0");
    ASSERT_EQ(log[c].events.size(), 10u);
    EXPECT_EQ(log[c].events[7].issueCycle, 219u);
    EXPECT_EQ(log[c].events[7].stallCycles, 212u);
    EXPECT_EQ(log[c].events[7].cause, StallCause::SemWait);
    EXPECT_EQ(r->chips[c].stallCycles[size_t(StallCause::SemWait)], 212u);
    EXPECT_EQ(r->chips[c].totalCycles, 222u);
  }
  // The data: chip c's slot on the other chip holds chip c's input, and
  // the chips' inputs differ (isa::getChipSeed).
  for (unsigned c = 0; c < 2; ++c)
    for (uint64_t i = 0; i < 256; i += 51)
      EXPECT_EQ(vmemAt(system.getChip(1 - c), kRecv + 1024 * c + 4 * i),
                hbmAt(system.getChip(c), kIn + 4 * i));
  EXPECT_NE(hbmAt(system.getChip(0), kIn), hbmAt(system.getChip(1), kIn));
  EXPECT_EQ(hbmAt(system.getChip(0), kIn), isa::initValue(3, 0));
}

// A remote DMA draws on the HBM of the chip its HBM side is on, shared with
// that chip's local DMAs (docs/config.md, "HBM"). HBM here moves 8 B/cycle.
// Each chip of a 2-chip ring first loads 1 KiB from its HBM locally (issue
// 5, base end 105, HBM busy 1024 / 8 = 128 cycles: 105..233, complete 233),
// then (a) sends 1 KiB of its HBM to the other chip's VMEM, or (b) reads 1
// KiB of the other chip's HBM into its own VMEM, whose local load holds it
// the same way. The remote DMA: issue 7, base end 7 + 100 + 50 = 157, the
// ICI link is free but the HBM it reads is busy until 233: it holds that
// HBM 233..361, its four 256-byte packets leave from 233 (16 cycles each
// at 16 B/cycle) and the first arrives at 233 + 50 = 283 (its transfer
// start), the last at 233 + 64 + 50 = 347; it completes when both are
// done, at 361 (221 if HBM were not shared).
TEST(SystemTest, RemoteDmaSharesTheHbmOfItsHbmSide) {
  for (bool remoteDst : {true, false}) {
    SCOPED_TRACE(remoteDst ? "send from local HBM" : "read remote HBM");
    MachineConfig config =
        ringConfig(2, R"json("hbm": { "bytes_per_cycle": 8 },)json");
    isa::Program p = program({
        chipId(1),                      // 0
        li(2, 1),                       // 1
        rrr(isa::Opcode::Sub, 3, 2, 1), // 2: r3 = the other chip
        li(4, kIn),                     // 3
        li(8, kLocal),                  // 4
        dmaIssue(9, 4, 8, MemSpace::HBM, MemSpace::VMEM, 16, 16, 16,
                 16),                       // 5: local load
        rri(isa::Opcode::Muli, 5, 1, 1024), // 6: r5 = recv + 1024 * chip
        remoteDma(6, 4, 5, 3, remoteDst, MemSpace::HBM, MemSpace::VMEM, 16,
                  16), // 7
        dmaWait(6),    // 8
        dmaWait(9),    // 9
        halt(),        // 10
    });
    System system(config, p);
    auto r = system.run();
    ASSERT_TRUE(bool(r)) << errorOf(r.takeError());
    for (unsigned c = 0; c < 2; ++c) {
      SCOPED_TRACE("chip " + std::to_string(c));
      const DmaEngine &dma = system.getChip(c).getDmaEngine();
      EXPECT_EQ(dma.get(0).complete, 233u);
      const DmaTiming &t = dma.get(1);
      EXPECT_EQ(t.baseEnd, 157u);
      EXPECT_EQ(t.transferStart, 283u);
      EXPECT_EQ(t.complete, 361u);
      EXPECT_EQ(t.busBytes, 1024u);
    }
  }
}

// On a 4-chip ring chip 0 sends 1 KiB to chip 1 (1 hop: 0->1), then to
// chip 2 (2 hops, 0->1->2: a tie goes up), then to chip 3 (1 hop the other
// way: 0->3). Each DMA is four 256-byte packets of 16 cycles each at 16
// B/cycle (IciNetwork). The second DMA's packets queue behind the first's
// on link 0->1; each goes on to 1->2 once its head has reached chip 1's
// router (cut-through, 50 cycles per hop):
//   first:  issue 5, ready 105: 0->1 over 105..169, arrives 169 + 50 = 219
//   second: issue 6, ready 106 (base end 6 + 100 + 2 x 50 = 206), but 0->1
//           is busy until 169: its packets cross 0->1 at 169, 185, 201,
//           217, and 1->2 at 219, 235, 251, 267; the first arrives at 269,
//           the last at 267 + 16 + 50 = 333 (circuit switching, holding
//           both links, gave 283)
//   third:  issue 7, base end 157, link 0->3 free: 107..171, arrives 221
TEST(SystemTest, IciLinksCarryOnePacketAtATimeOnAFourChipRing) {
  MachineConfig config = ringConfig(4);
  isa::Program p = program({
      chipId(1),     // 0
      li(2, 1),      // 1
      bge(1, 2, 13), // 2: chips 1-3 halt
      li(3, 2),      // 3: r3 = 2
      li(4, 3),      // 4: r4 = 3
      remoteDma(10, 0, 0, 2, true, MemSpace::VMEM, MemSpace::VMEM, 16, 16),
      remoteDma(11, 0, 0, 3, true, MemSpace::VMEM, MemSpace::VMEM, 16, 16),
      remoteDma(12, 0, 0, 4, true, MemSpace::VMEM, MemSpace::VMEM, 16, 16),
      dmaWait(10), // 8
      dmaWait(11), // 9
      dmaWait(12), // 10
      nop(),       // 11
      nop(),       // 12
      halt(),      // 13
  });
  System system(config, p);
  auto r = system.run();
  ASSERT_TRUE(bool(r)) << errorOf(r.takeError());
  const DmaEngine &dma = system.getChip(0).getDmaEngine();
  ASSERT_EQ(dma.numIssued(), 3u);
  EXPECT_EQ(dma.get(0).complete, 219u);
  EXPECT_EQ(dma.get(1).hops, 2u);
  EXPECT_EQ(dma.get(1).baseEnd, 206u);
  EXPECT_EQ(dma.get(1).transferStart, 269u);
  EXPECT_EQ(dma.get(1).complete, 333u);
  EXPECT_EQ(config.getLinkName(dma.get(2).link), "ici 0->3");
  EXPECT_EQ(dma.get(2).baseEnd, 157u);
  EXPECT_EQ(dma.get(2).complete, 221u);
  // The first WAIT (pc 8, ready at 8) stalls 155 - 8 in the base latency
  // and 64 in the transfer; the second (ready at 220) 333 - 220 in its
  // transfer; the third finds its DMA complete. The system ends after the
  // two nops and the halt that follow.
  EXPECT_EQ(r->chips[0].stallCycles[size_t(StallCause::DmaWaitBase)],
            155u - 8u);
  EXPECT_EQ(r->chips[0].stallCycles[size_t(StallCause::DmaWaitTransfer)],
            64u + (333u - 220u));
  EXPECT_EQ(r->totalCycles, 333u + 1 + 1 + 1 + 1 + 1);
}

// A DMA between two spaces of one chip on a system of several moves on its
// local link: no ICI, no hop latency.
TEST(SystemTest, ADmaToItsOwnChipStaysLocal) {
  MachineConfig config = ringConfig(2);
  isa::Program p = program(
      {chipId(1), li(4, kIn), li(5, kLocal),
       remoteDma(6, 4, 5, 1, true, MemSpace::HBM, MemSpace::VMEM, 16, 16),
       dmaWait(6), halt()});
  System system(config, p);
  auto r = system.run();
  ASSERT_TRUE(bool(r)) << errorOf(r.takeError());
  const DmaTiming &t = system.getChip(1).getDmaEngine().get(0);
  EXPECT_EQ(t.hops, 0u);
  EXPECT_EQ(config.getLinkName(t.link), "hbm->vmem");
  EXPECT_EQ(t.complete, 3u + 100u + 1024u / 64u);
}

// A remote read: chip 1 pulls chip 0's input into its own VMEM.
TEST(SystemTest, RemoteSourceIsRead) {
  MachineConfig config = ringConfig(2);
  isa::Program p =
      program({chipId(1), li(2, 1), bge(1, 2, 5), halt(), nop(),
               // 5 (chip 1 only): from chip 0's HBM in to its own VMEM local.
               li(3, 0), li(4, kIn), li(5, kLocal),
               remoteDma(6, 4, 5, 3, /*remoteDst=*/false, MemSpace::HBM,
                         MemSpace::VMEM, 16, 16),
               dmaWait(6), halt()});
  System system(config, p);
  auto r = system.run();
  ASSERT_TRUE(bool(r)) << errorOf(r.takeError());
  const DmaTiming &t = system.getChip(1).getDmaEngine().get(0);
  EXPECT_EQ(t.srcChip, 0u);
  EXPECT_EQ(t.dstChip, 1u);
  EXPECT_EQ(config.getLinkName(t.link), "ici 0->1");
  EXPECT_EQ(vmemAt(system.getChip(1), kLocal + 40),
            hbmAt(system.getChip(0), kIn + 40));
}

// Every chip waits for a signal nobody sends: the run ends in one error
// that names every chip, its PC and what it waits for.
TEST(SystemTest, DeadlockNamesEveryChip) {
  MachineConfig config = ringConfig(3);
  isa::Program p = program(
      {chipId(1), li(2, 2), bge(1, 2, 5), li(3, 1), semWait(4, 3), halt()});
  System system(config, p);
  auto r = system.run();
  ASSERT_FALSE(bool(r));
  EXPECT_EQ(errorOf(r.takeError()),
            "deadlock: no chip can go on; chip 0 at pc 4 (sem.wait sem4, r3): "
            "waits for 1 signals of semaphore 4 and has 0; chip 1 at pc 4 "
            "(sem.wait sem4, r3): waits for 1 signals of semaphore 4 and has "
            "0; halted: chip 2");
}

// One chip alone: a sem.wait that nothing will signal is a fault, not a
// hang.
TEST(SystemTest, DeadlockOfAChipAlone) {
  MachineConfig config = ringConfig(1);
  isa::Program p = program({li(3, 2), semWait(0, 3), halt()});
  Simulator sim(config, p);
  auto r = sim.run();
  ASSERT_FALSE(bool(r));
  EXPECT_EQ(errorOf(r.takeError()),
            "fault at pc 1 (sem.wait sem0, r3): deadlock: chip 0 at pc 1 "
            "(sem.wait sem0, r3): waits for 2 signals of semaphore 0 and has "
            "0, and no other chip can signal it");
}

// A chip signals itself: a local DMA's completion feeds its own semaphore.
TEST(SystemTest, LocalSignal) {
  MachineConfig config = ringConfig(1);
  isa::Inst dma =
      dmaIssue(6, 4, 5, MemSpace::HBM, MemSpace::VMEM, 16, 16, 16, 16);
  dma.flags |= isa::kFlagSignal;
  dma.s3 = 9;
  isa::Program p = program({li(4, kIn), li(5, kLocal), dma, li(3, 1),
                            semWait(9, 3), dmaWait(6), halt()});
  Simulator sim(config, p);
  Retired log;
  sim.addObserver(&log);
  auto r = sim.run();
  ASSERT_TRUE(bool(r)) << errorOf(r.takeError());
  // Issue at 2, complete at 2 + 100 + 16 = 118: the sem.wait resumes then.
  EXPECT_EQ(log.events[4].issueCycle, 118u);
  EXPECT_EQ(log.events[4].cause, StallCause::SemWait);
}

TEST(SystemTest, RemoteChipMustExist) {
  MachineConfig config = ringConfig(2);
  isa::Program p = program(
      {li(3, 5),
       remoteDma(6, 0, 0, 3, true, MemSpace::VMEM, MemSpace::VMEM, 1, 1),
       halt()});
  System system(config, p);
  auto r = system.run();
  ASSERT_FALSE(bool(r));
  EXPECT_EQ(errorOf(r.takeError()),
            "fault at chip 0 pc 1 (dma.issue r6, r0, r0, vmem->vmem@r3, 1x1, "
            "s=1,1): remote DMA to chip 5 (r3), but the system has 2 chips");
  // A chip alone has one chip.
  Simulator alone(config, p);
  auto a = alone.run();
  ASSERT_FALSE(bool(a));
  EXPECT_NE(errorOf(a.takeError()).find("but the system has 1 chip"),
            std::string::npos);
}

TEST(SystemTest, SemaphoreIndexIsChecked) {
  MachineConfig config = ringConfig(1);
  isa::Program p = program({li(3, 1), semWait(256, 3), halt()});
  Simulator sim(config, p);
  auto r = sim.run();
  ASSERT_FALSE(bool(r));
  EXPECT_EQ(errorOf(r.takeError()),
            "fault at pc 1 (sem.wait sem256, r3): semaphore 256 out of range "
            "(a chip has 256)");
}

// Chip 1 reads the slot chip 0 is writing into before the DMA completes
// (it does not wait on the semaphore): a race, named with both chips.
TEST(SystemTest, ReadingWhatAnIncomingDmaWritesIsARace) {
  MachineConfig config = ringConfig(2);
  isa::Program p = program(
      {chipId(1), li(2, 1), bge(1, 2, 6), // chip 1 goes to 6
       li(4, kIn),                        // 3
       remoteDma(6, 4, 0, 2, true, MemSpace::HBM, MemSpace::VMEM, 16, 16),
       halt(), // 5
       // 6-11 at cycles 3-8: chip 1 gets past chip 0's ISSUE (cycle 4).
       nop(), nop(), nop(), nop(), nop(), nop(), li(7, kLocal), // 12 at cycle 9
       vcopy(7, 0, 16, 16, 16, 16), // 13 at 10: reads recv[0, 1024)
       halt()});
  System system(config, p);
  auto r = system.run();
  ASSERT_FALSE(bool(r));
  EXPECT_EQ(errorOf(r.takeError()),
            "fault at chip 1 pc 13 (vpu.copy r7, r0, 16x16, s=16,16): data "
            "race: reads VMEM [0, 1024) at cycle 10, which DMA 0 of chip 0 "
            "(issued at pc 4) writes until cycle 218");
}

// Chip 0's remote DMA writes chip 1's VMEM while chip 1's own DMA still
// writes it (issued at cycle 4, not yet waited for), then reads it: both
// races name the two chips and the pending DMA.
TEST(SystemTest, RemoteDmaIntoBytesAPendingDmaUsesIsARace) {
  MachineConfig config = ringConfig(2);
  auto run = [&](isa::Inst chip1Dma) {
    isa::Program p = program(
        {chipId(1), li(2, 1), bge(1, 2, 8), // chip 1 goes to 8
         li(4, kIn), nop(), nop(),          // chip 0: 3-5 at cycles 3-5
         // 6 at cycle 6: chip 0's HBM in -> chip 1's VMEM recv[0, 1024).
         remoteDma(6, 4, 0, 2, true, MemSpace::HBM, MemSpace::VMEM, 16, 16),
         halt(), li(4, kIn), li(5, kLocal), // chip 1: 8, 9 at cycles 3, 4
         chip1Dma,                          // 10 at cycle 5
         nop(), nop(), dmaWait(6), halt()});
    System system(config, p);
    auto r = system.run();
    return r ? std::string("no fault") : errorOf(r.takeError());
  };
  // Chip 1's DMA writes recv[0, 1024) (HBM in -> recv).
  EXPECT_EQ(
      run(dmaIssue(6, 4, 0, MemSpace::HBM, MemSpace::VMEM, 16, 16, 16, 16)),
      "fault at chip 0 pc 6 (dma.issue r6, r4, r0, hbm->vmem@r2, "
      "16x16, s=16,16): data race: a DMA of chip 0 writes chip 1's "
      "VMEM [0, 1024), which DMA 0 of chip 1 (issued at pc 10) writes "
      "before its WAIT");
  // Chip 1's DMA reads recv[0, 1024) (recv -> local).
  EXPECT_EQ(
      run(dmaIssue(6, 0, 5, MemSpace::VMEM, MemSpace::VMEM, 16, 16, 16, 16)),
      "fault at chip 0 pc 6 (dma.issue r6, r4, r0, hbm->vmem@r2, "
      "16x16, s=16,16): data race: a DMA of chip 0 writes chip 1's "
      "VMEM [0, 1024), which DMA 0 of chip 1 (issued at pc 10) reads "
      "before its WAIT");
}

// The analyzer of a chip sees the bytes another chip's DMA writes into it
// as produced by the sem.wait that consumed that DMA's signal: chip c
// copies the slot the other chip filled, and in the relaxed model that
// copy is bound at the sem.wait (index 7) through its source; without
// the incoming DMA nothing on chip c wrote those bytes and the copy
// would seem free to move to the top of the run. Memory is per chip, so
// chip c's own accesses to the same VMEM addresses on the other chip do
// not bind it.
TEST(SystemTest, CopyOfReceivedBytesIsBoundAtTheSemWait) {
  MachineConfig config = ringConfig(2);
  isa::Program p = program({
      chipId(1),                          // 0: r1 = chip
      li(2, 1),                           // 1
      rrr(isa::Opcode::Sub, 3, 2, 1),     // 2: r3 = the other chip
      li(4, kIn),                         // 3
      rri(isa::Opcode::Muli, 5, 1, 1024), // 4: this chip's slot there
      remoteDma(6, 4, 5, 3, /*remoteDst=*/true, MemSpace::HBM, MemSpace::VMEM,
                16, 16, /*signal=*/0),    // 5: DMA 0
      li(7, 1),                           // 6
      semWait(0, 7),                      // 7: consumes the other chip's signal
      dmaWait(6),                         // 8
      rri(isa::Opcode::Muli, 8, 3, 1024), // 9: the slot the other filled
      li(10, kLocal),                     // 10
      dmaIssue(9, 8, 10, MemSpace::VMEM, MemSpace::VMEM, 16, 16, 16,
               16), // 11: DMA 1, that slot -> VMEM local
      dmaWait(9),   // 12
      halt(),       // 13
  });
  System system(config, p);
  std::vector<std::unique_ptr<profile::Analyzer>> analyzers;
  for (unsigned c = 0; c < 2; ++c) {
    analyzers.push_back(std::make_unique<profile::Analyzer>(p, config));
    system.getChip(c).addObserver(analyzers.back().get());
  }
  auto r = system.run();
  ASSERT_TRUE(bool(r)) << errorOf(r.takeError());
  using Via = profile::DmaDependence::Via;
  for (unsigned c = 0; c < 2; ++c) {
    SCOPED_TRACE("chip " + std::to_string(c));
    const auto &d = analyzers[c]->getDependencies().dmas();
    ASSERT_EQ(d.size(), 2u);
    EXPECT_EQ(d[1].index, 11u);
    EXPECT_EQ(d[1].relaxed, std::optional<uint64_t>(7));
    EXPECT_EQ(d[1].relaxedVia, Via::Source);
    // Conservative: the li that wrote r10 (the latest of 9, 10 and 7).
    EXPECT_EQ(d[1].conservative, std::optional<uint64_t>(10));
    EXPECT_EQ(d[1].conservativeVia, Via::Address);
  }
}

// Two runs of one system give the same cycles, chip for chip.
TEST(SystemTest, Deterministic) {
  MachineConfig config = ringConfig(4);
  isa::Program p = program(
      {chipId(1), li(2, 1), add(3, 1, 2), li(8, 4),
       // r3 = (chip + 1) mod 4: the next chip.
       blt(3, 8, 6), li(3, 0), li(4, kIn), rri(isa::Opcode::Muli, 5, 1, 1024),
       remoteDma(6, 4, 5, 3, true, MemSpace::HBM, MemSpace::VMEM, 16, 16, 1),
       semWait(1, 2), dmaWait(6), halt()});
  auto once = [&] {
    System system(config, p);
    auto r = system.run();
    EXPECT_TRUE(bool(r));
    std::vector<uint64_t> cycles;
    if (r)
      for (const RunSummary &c : r->chips)
        cycles.push_back(c.stallCycles[size_t(StallCause::SemWait)]);
    return cycles;
  };
  std::vector<uint64_t> a = once(), b = once();
  EXPECT_EQ(a, b);
  ASSERT_EQ(a.size(), 4u);
}

// divu / remu (SPMD peer arithmetic): values, and a zero divisor is a
// fault, not a trap of the simulator.
TEST(SystemTest, UnsignedDivisionAndRemainder) {
  MachineConfig config = ringConfig(1);
  isa::Program ok = program({li(1, 17), li(2, 5),
                             rrr(isa::Opcode::DivU, 3, 1, 2),
                             rrr(isa::Opcode::RemU, 4, 1, 2), halt()});
  Simulator sim(config, ok);
  auto r = sim.run();
  ASSERT_TRUE(bool(r)) << errorOf(r.takeError());
  EXPECT_EQ(sim.getRegister(3), 3u);
  EXPECT_EQ(sim.getRegister(4), 2u);
  isa::Program bad =
      program({li(1, 17), rrr(isa::Opcode::RemU, 4, 1, 2), halt()});
  Simulator zero(config, bad);
  auto z = zero.run();
  ASSERT_FALSE(bool(z));
  EXPECT_EQ(errorOf(z.takeError()),
            "fault at pc 1 (remu r4, r1, r2): division by zero (r2 is 0)");
}

// The latency-aware bound follows data from chip to chip (docs/metrics.md,
// roofline): chip 0 sends 1 KiB of HBM to chip 1's VMEM, chip 1 forwards
// it back into chip 0's VMEM, and chip 0 copies it locally. By hand, in
// the dataflow model (scalar work free; a remote DMA its unloaded latency
// base_end - issue = T_b 100 + 1 hop x 50 = 150, plus 1024 B / 16 B/cycle
// = 64 on an idle ICI link; the local copy 100 + 1024 / 64 = 16): chip 0's
// send ends at 214; chip 1's forward reads what it wrote, so it starts at
// 214 and ends at 428; chip 0's copy reads what that wrote: 428 + 116 =
// 544, chip 0's critical path. Without the chips joined, chip 0's copy
// would read "a value from before" and its critical path would be 214.
TEST(SystemTest, CriticalPathFollowsDataAcrossChips) {
  MachineConfig config = ringConfig(2);
  isa::Program p = program({
      chipId(1), // 0: r1 = chip
      li(2, 1),  // 1
      li(4, kIn), li(5, kRecv), li(7, kRecv + 1024), li(8, kLocal), // 2-5
      bge(1, 2, 13), // 6: chip 1 goes to 13
      // Chip 0.
      li(3, 1), // 7: the peer
      remoteDma(6, 4, 5, 3, /*remoteDst=*/true, MemSpace::HBM, MemSpace::VMEM,
                16, 16, /*signal=*/0), // 8: HBM in -> chip 1's recv
      semWait(0, 2),                   // 9: the block is back
      dmaWait(6),                      // 10
      dmaIssue(9, 7, 8, MemSpace::VMEM, MemSpace::VMEM, 16, 16, 16,
               16), // 11: recv + 1024 -> local
      jmp(18),      // 12
      // Chip 1.
      semWait(0, 2), // 13: chip 0's block has arrived
      li(3, 0),      // 14
      remoteDma(6, 5, 7, 3, /*remoteDst=*/true, MemSpace::VMEM, MemSpace::VMEM,
                16, 16, /*signal=*/0), // 15: -> chip 0
      dmaWait(6),                      // 16
      halt(),                          // 17
      dmaWait(9),                      // 18 (chip 0)
      halt(),                          // 19
  });
  // buildMetrics names each DMA's origin.
  for (uint32_t pc = 0; pc < p.code.size(); ++pc)
    p.origins.push_back({pc + 1, "op", "chain.mlir:" + std::to_string(pc)});
  System system(config, p);
  profile::DmaStallCollector collectors[2];
  std::vector<std::unique_ptr<profile::Analyzer>> analyzers;
  std::vector<profile::Analyzer *> all;
  for (unsigned c = 0; c < 2; ++c) {
    analyzers.push_back(std::make_unique<profile::Analyzer>(p, config));
    all.push_back(analyzers.back().get());
    system.getChip(c).addObserver(&collectors[c]);
    system.getChip(c).addObserver(analyzers.back().get());
  }
  for (unsigned c = 0; c < 2; ++c)
    analyzers[c]->setSystem(all, c);
  auto r = system.run();
  ASSERT_TRUE(bool(r)) << errorOf(r.takeError());
  uint64_t critical[2];
  for (unsigned c = 0; c < 2; ++c) {
    nlohmann::json m =
        profile::buildMetrics(p, config, r->chips[c], collectors[c]);
    analyzers[c]->addToMetrics(m, nullptr);
    critical[c] = m["roofline"]["critical_path_cycles"].get<uint64_t>();
    EXPECT_LE(critical[c], r->totalCycles);
  }
  EXPECT_EQ(critical[1], 428u);
  EXPECT_EQ(critical[0], 544u);
}
