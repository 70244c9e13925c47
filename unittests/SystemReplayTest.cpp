//===- SystemReplayTest.cpp - Record and replay one chip of a system ------===//
//
// One chip of a system recorded with the step-debugger API (the others
// running along) and replayed alone (issue 35, item 5): the trace carries
// the chip's timing state at the window's start and what the other chips
// did to it during the window (remote writes, HBM reservations, semaphore
// signals, incoming DMAs) and answered its remote DMAs (ICI transfers,
// their HBM time, the bytes of remote reads), so the replay is PC-exact and
// cycle-exact: every instruction issues at the cycle, with the stall and
// cause, it had in the full run of the system.
//
//===----------------------------------------------------------------------===//

#include "accel/Replay/Recorder.h"
#include "accel/Replay/Replayer.h"
#include "accel/Replay/Trace.h"
#include "accel/Sim/Device.h"
#include "accel/Sim/System.h"

#include "TestPrograms.h"

#include <gtest/gtest.h>

using namespace accel;
using namespace accel::sim;
using namespace accel::test;
using accel::replay::Replayer;
using accel::replay::Trace;
using isa::MemSpace;

namespace {

constexpr unsigned kChips = 4;
constexpr uint64_t kIn = 0x10000;  // HBM in: 1 KiB per chip
constexpr uint64_t kRecv = 0;      // VMEM: one 1 KiB slot per round and chip
constexpr uint64_t kLocal = 16384; // VMEM: what a chip reads from the previous
constexpr uint64_t kSum = 17408;   // VMEM: its local copy, then the sum
constexpr int64_t kRounds = 3;

/// A ring of 4 chips whose HBM moves 16 B/cycle, so that remote DMAs and
/// local loads contend for it; ICI 32 B/cycle, 40 cycles per hop.
MachineConfig ringConfig() {
  return configFrom(R"json({
    "scalar": { "latency": 1 },
    "hbm": { "bytes_per_cycle": 16 },
    "dma": { "links": [
      { "src": "hbm", "dst": "vmem", "base_latency": 60, "bytes_per_cycle": 64 },
      { "src": "vmem", "dst": "vmem", "base_latency": 20, "bytes_per_cycle": 64 }
    ] },
    "chips": 4,
    "ici": { "topology": "ring", "hop_latency": 40, "bytes_per_cycle": 32 }
  })json",
                    "system-replay-test.json");
}

/// Each of kRounds rounds, on every chip: write its input into the next
/// chip's slot for (round, chip) (signal 0 there), read the previous chip's
/// input into kLocal (signal 1 here), load its own input into kSum, wait
/// for both semaphores and the DMAs, then kSum = the slot the previous chip
/// wrote + kLocal on the VPU.
isa::Program ringProgram() {
  isa::Program p;
  p.name = "ring";
  p.code = {
      chipId(1),                             // 0: r1 = chip
      li(2, 1),                              // 1
      add(3, 1, 2),                          // 2: r3 = chip + 1
      li(8, kChips),                         // 3
      blt(3, 8, 6),                          // 4
      li(3, 0),                              // 5: r3 = next chip
      add(11, 1, 8),                         // 6
      addi(11, 11, -1),                      // 7
      rrr(isa::Opcode::RemU, 11, 11, 8),     // 8: r11 = previous chip
      li(12, 0),                             // 9: round
      li(13, kRounds),                       // 10
      li(4, kIn),                            // 11: loop head
      rri(isa::Opcode::Muli, 5, 12, kChips), // 12
      add(5, 5, 1),                          // 13
      rri(isa::Opcode::Muli, 5, 5, 1024),    // 14: my slot on the next chip
      remoteDma(6, 4, 5, 3, /*remoteDst=*/true, MemSpace::HBM, MemSpace::VMEM,
                16, 16, /*signal=*/0), // 15
      li(14, kLocal),                  // 16
      remoteDma(7, 4, 14, 11, /*remoteDst=*/false, MemSpace::HBM,
                MemSpace::VMEM, 16, 16, /*signal=*/1),                   // 17
      li(15, kSum),                                                      // 18
      dmaIssue(9, 4, 15, MemSpace::HBM, MemSpace::VMEM, 16, 16, 16, 16), // 19
      semWait(0, 2),                                                     // 20
      semWait(1, 2),                                                     // 21
      dmaWait(6),                                                        // 22
      dmaWait(7),                                                        // 23
      dmaWait(9),                                                        // 24
      rri(isa::Opcode::Muli, 16, 12, kChips),                            // 25
      add(16, 16, 11),                                                   // 26
      rri(isa::Opcode::Muli, 16, 16, 1024), // 27: its slot
      vadd(15, 16, 14, 16, 16, 16, 16, 16), // 28
      addi(12, 12, 1),                      // 29
      blt(12, 13, 11),                      // 30
      halt(),                               // 31
  };
  for (uint32_t pc = 0; pc < p.code.size(); ++pc)
    p.origins.push_back(isa::Origin{
        pc + 1, "ring.op", "ring.mlir:" + std::to_string(pc + 1) + ":1"});
  p.buffers = {hbmBuffer("in", kIn, 1024, 3),
               vmemBuffer("recv", kRecv, 1024 * kChips * kRounds),
               vmemBuffer("local", kLocal, 1024),
               vmemBuffer("sum", kSum, 1024)};
  return p;
}

class SystemReplayTest : public ::testing::Test {
protected:
  MachineConfig config = ringConfig();
  isa::Program program = ringProgram();
  /// The full run: every chip's retired instructions and DMA issues.
  EventLog full[kChips];

  void SetUp() override {
    System system(config, program);
    for (unsigned c = 0; c < kChips; ++c)
      system.getChip(c).addObserver(&full[c]);
    auto r = system.run();
    ASSERT_TRUE(bool(r)) << errorOf(r.takeError());
  }

  /// Records chip `chip` from the `hit`-th arrival at `pc`, through the
  /// file format.
  Trace recordChip(unsigned chip, uint32_t pc, uint64_t hit, uint64_t count) {
    Device device(config, program, chip);
    Trace t = recordAt(device, program, config, pc, hit, count);
    auto back = Trace::deserialize(t.serialize(/*compress=*/false));
    EXPECT_TRUE(bool(back)) << errorOf(back.takeError());
    return back ? std::move(*back) : Trace();
  }
};

} // namespace

// Every chip, windows from the start, from each round's head and from a
// sem.wait with DMAs in flight: the replay retires the same instructions at
// the same cycles, with the same stalls and causes, and issues the same
// DMAs with the same timing as the full run; its results match.
TEST_F(SystemReplayTest, EveryChipEveryWindowIsCycleExact) {
  struct Window {
    uint32_t pc;
    uint64_t hit, count;
  };
  const Window windows[] = {
      {0, 1, 1000}, {11, 2, 1000}, {11, 3, 9}, {20, 2, 1000}, {22, 3, 5}};
  for (unsigned c = 0; c < kChips; ++c)
    for (const Window &w : windows) {
      SCOPED_TRACE("chip " + std::to_string(c) + " from pc " +
                   std::to_string(w.pc) + " hit " + std::to_string(w.hit));
      Trace t = recordChip(c, w.pc, w.hit, w.count);
      ASSERT_TRUE(t.system.has_value());
      EXPECT_EQ(t.formatVersion, replay::kSystemTraceFormatVersion);
      EXPECT_EQ(t.system->chip, c);
      EXPECT_EQ(t.system->chips, kChips);
      auto replayer = Replayer::create(t);
      ASSERT_TRUE(bool(replayer)) << errorOf(replayer.takeError());
      EventLog log;
      (*replayer)->addObserver(&log);
      ASSERT_FALSE(bool((*replayer)->load()));
      auto s = (*replayer)->run();
      ASSERT_TRUE(bool(s)) << errorOf(s.takeError());
      EXPECT_FALSE(bool((*replayer)->checkResults()));
      ASSERT_EQ(log.retired.size(), t.pcs.size());
      ASSERT_LE(t.startIndex + t.pcs.size(), full[c].retired.size());
      for (size_t i = 0; i < log.retired.size(); ++i) {
        const RetireEvent &a = log.retired[i];
        const RetireEvent &b = full[c].retired[t.startIndex + i];
        ASSERT_EQ(a.pc, b.pc) << "instruction " << i;
        ASSERT_EQ(a.issueCycle, b.issueCycle) << "instruction " << i;
        ASSERT_EQ(a.stallCycles, b.stallCycles) << "instruction " << i;
        ASSERT_EQ(a.cause, b.cause) << "instruction " << i;
        ASSERT_EQ(a.unitEnd, b.unitEnd) << "instruction " << i;
      }
      // The DMAs the window issued, and those in flight at its start.
      for (const auto &[pc, timing] : log.issued) {
        auto it = llvm::find_if(full[c].issued, [&](const auto &e) {
          return e.second.id == timing.id;
        });
        ASSERT_NE(it, full[c].issued.end());
        EXPECT_EQ(pc, it->first);
        EXPECT_EQ(timing.issue, it->second.issue);
        EXPECT_EQ(timing.baseEnd, it->second.baseEnd);
        EXPECT_EQ(timing.transferStart, it->second.transferStart);
        EXPECT_EQ(timing.complete, it->second.complete);
        EXPECT_EQ(timing.dstChip, it->second.dstChip);
      }
    }
}

// The window has something to carry: from the start, chip 2 receives one
// write and one signal per round from chip 1, its reads of chip 1's input
// are answered with chip 1's bytes (which differ from its own), and HBM
// reservations of the chips that read its input reach it.
TEST_F(SystemReplayTest, TheTraceCarriesTheOtherChips) {
  Trace t = recordChip(2, 0, 1, 1000);
  ASSERT_TRUE(t.system.has_value());
  unsigned writes = 0, signals = 0, hbm = 0, incomingWrites = 0,
           incomingReads = 0;
  for (const ExternalEvent &e : t.system->log.events) {
    writes += e.kind == ExternalEvent::Kind::MemWrite;
    hbm += e.kind == ExternalEvent::Kind::HbmReserve;
    if (e.kind == ExternalEvent::Kind::Signal) {
      ++signals;
      EXPECT_EQ(e.fromChip, 1u);
      EXPECT_EQ(e.semaphore, 0u);
    }
    if (e.kind == ExternalEvent::Kind::Incoming) {
      // Chip 1 writes a slot here; chip 3 reads the input here.
      EXPECT_EQ(e.fromChip, e.writes ? 1u : 3u);
      (e.writes ? incomingWrites : incomingReads) += 1;
    }
  }
  EXPECT_EQ(writes, unsigned(kRounds));
  EXPECT_EQ(signals, unsigned(kRounds));
  EXPECT_EQ(incomingWrites, unsigned(kRounds));
  EXPECT_EQ(incomingReads, unsigned(kRounds));
  EXPECT_EQ(hbm, unsigned(kRounds)); // chip 3 reads chip 2's input
  // Two remote DMAs a round: the write to chip 3, the read of chip 1.
  ASSERT_EQ(t.system->log.answers.size(), 2u * kRounds);
  const RemoteAnswer &read = t.system->log.answers[1];
  ASSERT_EQ(read.readBytes.size(), 1024u);
  EXPECT_TRUE(read.hasPeerHbm);
  EXPECT_TRUE(t.system->log.answers[0].readBytes.empty());
  std::vector<uint8_t> own(1024);
  Device device(config, program, 2);
  ASSERT_FALSE(bool(device.readMemory(MemSpace::HBM, kIn, 1024, own.data())));
  EXPECT_NE(read.readBytes, own);
}

// A trace whose answers run out, or are left over, is an error of the
// replay, not a silent difference; a machine override is refused.
TEST_F(SystemReplayTest, MissingAnswersAndOverridesAreErrors) {
  Trace t = recordChip(1, 0, 1, 1000);
  ASSERT_TRUE(t.system.has_value());
  Trace fewer = t;
  fewer.system->log.answers.pop_back();
  auto r = Replayer::create(fewer);
  ASSERT_TRUE(bool(r)) << errorOf(r.takeError());
  ASSERT_FALSE(bool((*r)->load()));
  auto s = (*r)->run();
  ASSERT_FALSE(bool(s));
  EXPECT_NE(errorOf(s.takeError())
                .find("the window issues more remote DMAs "
                      "than the 5 the trace answers"),
            std::string::npos);

  Trace more = t;
  more.system->log.answers.push_back(more.system->log.answers.back());
  auto r2 = Replayer::create(more);
  ASSERT_TRUE(bool(r2));
  ASSERT_FALSE(bool((*r2)->load()));
  auto s2 = (*r2)->run();
  ASSERT_FALSE(bool(s2));
  EXPECT_EQ(errorOf(s2.takeError()),
            "the trace answers 7 remote DMAs but the window issued 6");

  // Answer 1 is the first remote read (of chip 0's input: 16 x 16 f32,
  // HBM there).
  auto replayError = [&](const Trace &bad) {
    auto r = Replayer::create(bad);
    EXPECT_TRUE(bool(r));
    if (!r)
      return std::string();
    EXPECT_FALSE(bool((*r)->load()));
    auto s = (*r)->run();
    return s ? std::string() : errorOf(s.takeError());
  };
  Trace shortRead = t;
  shortRead.system->log.answers[1].readBytes.pop_back();
  EXPECT_NE(replayError(shortRead).find(
                "the trace's answer to remote DMA 1 of the window holds 1023 "
                "bytes for a tile of 16 x 16 4-byte elements"),
            std::string::npos);
  Trace noHbm = t;
  noHbm.system->log.answers[1].hasPeerHbm = false;
  EXPECT_NE(replayError(noHbm).find(
                "remote DMA 1 of the window uses another chip's HBM but the "
                "trace has no HBM time for it"),
            std::string::npos);

  std::vector<std::string> changed;
  auto r3 =
      Replayer::create(t, R"({"scalar": {"latency": 2}})", "new.json", changed);
  ASSERT_FALSE(bool(r3));
  EXPECT_NE(errorOf(r3.takeError())
                .find("new.json: the trace is chip 1 of a system of 4 chips, "
                      "which replays on its recorded machine only"),
            std::string::npos);
}

// The system section is checked before anything is allocated by it: a
// config of another number of chips, an event outside the window or on
// another chip, a write whose bytes do not fill its tile, a cycle past
// 2^48 (so that no sum of cycles wraps), DMA timings that do not match the
// DMAs in flight.
TEST_F(SystemReplayTest, TheSystemSectionIsValidated) {
  // From a sem.wait, with the round's three DMAs in flight.
  Trace t = recordChip(3, 20, 2, 1000);
  ASSERT_TRUE(t.system.has_value());
  ASSERT_FALSE(t.system->log.events.empty());
  ASSERT_EQ(t.system->timing.pendingTimings.size(), 3u);
  auto expectInvalid = [&](const Trace &bad, llvm::StringRef what) {
    llvm::Error e = bad.validate(config);
    ASSERT_TRUE(bool(e)) << what.str();
    EXPECT_NE(errorOf(std::move(e)).find(what.str()), std::string::npos)
        << what.str();
  };
  EXPECT_FALSE(bool(t.validate(config)));
  Trace chips = t;
  chips.system->chips = 8;
  expectInvalid(chips, "the window is chip 3 of 8 chips but the machine "
                       "config has 4");
  Trace late = t;
  late.system->log.events.back().index = t.startIndex + t.pcs.size();
  expectInvalid(late, "not in order in the window");
  Trace early = t;
  early.system->log.events.front().index = t.startIndex - 1;
  expectInvalid(early, "not in order in the window");
  for (ExternalEvent &e : t.system->log.events)
    if (e.kind == ExternalEvent::Kind::MemWrite) {
      Trace other = t, shortWrite = t;
      size_t i = &e - t.system->log.events.data();
      other.system->log.events[i].tile.chip = 0;
      expectInvalid(other, "is on chip 0; the window is chip 3's");
      shortWrite.system->log.events[i].bytes.pop_back();
      expectInvalid(shortWrite, "writes 1023 bytes to a tile of 1024");
      break;
    }
  Trace lateIssue = t;
  lateIssue.system->timing.lastIssue = replay::kMaxTraceCycle + 1;
  expectInvalid(lateIssue, "the chip's timing state is past cycle 2^48");
  Trace lateAnswer = t;
  ASSERT_FALSE(lateAnswer.system->log.answers.empty());
  lateAnswer.system->log.answers[0].transfer.lastArrival = UINT64_MAX;
  expectInvalid(lateAnswer, "answer 0 is past cycle 2^48");
  Trace timings = t;
  timings.system->timing.pendingTimings.pop_back();
  expectInvalid(timings, "the system section has 2 DMA timings for 3 DMAs "
                         "in flight");
  Trace order = t;
  order.system->timing.pendingTimings[0].complete =
      order.system->timing.pendingTimings[0].issue - 1;
  expectInvalid(order, "DMA timing 0 (id");
}
