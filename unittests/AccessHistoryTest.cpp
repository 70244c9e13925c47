//===- AccessHistoryTest.cpp - Periods of a run and the maps that use them ===//
//
// AccessHistory's periods on hand-built runs, and the two analyses that use
// them (AccessHistory.h): DataflowBound and DependencyTracker fed the same
// random loops with and without periods must agree on every number, however
// the loops are disturbed (a range that moves, an extra instruction, a write
// from another chip).
//
//===----------------------------------------------------------------------===//

#include "TestPrograms.h"

#include "accel/Profile/AccessHistory.h"
#include "accel/Profile/Analyzer.h"
#include "accel/Profile/DataflowBound.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <set>
#include <tuple>

using namespace accel;
using namespace accel::profile;
using isa::MemSpace;
using sim::AddrRange;
using namespace accel::test;

namespace {

AddrRange vm(uint64_t b, uint64_t e) { return {MemSpace::VMEM, b, e, 0}; }

/// `ranges` as comparable values (AddrRange has no ==).
std::vector<std::tuple<int, uint64_t, uint64_t, uint32_t>>
fields(llvm::ArrayRef<AddrRange> ranges) {
  std::vector<std::tuple<int, uint64_t, uint64_t, uint32_t>> out;
  for (const AddrRange &r : ranges)
    out.emplace_back(int(r.space), r.begin, r.end, r.chip);
  return out;
}

/// Pushes instruction `pc` reading [pc*64, pc*64+64) and writing the next
/// 64 bytes; returns its period.
unsigned pushPc(AccessHistory &h, uint32_t pc, uint64_t shift = 0) {
  AddrRange r = vm(pc * 64 + shift, pc * 64 + 64 + shift);
  AddrRange w = vm(pc * 64 + 64, pc * 64 + 128);
  return h.push(pc, {r}, {w});
}

TEST(AccessHistoryTest, APeriodHoldsOnceTheInstructionsBeforeItRepeat) {
  AccessHistory h(8);
  // PCs 0 1 2 0 1 2 ...: instruction 3 is the first to match its twin (0),
  // and instruction 6 the first with it and the 3 before it matching.
  std::vector<unsigned> got;
  for (int i = 0; i < 9; ++i)
    got.push_back(pushPc(h, uint32_t(i % 3)));
  EXPECT_EQ(got, (std::vector<unsigned>{0, 0, 0, 0, 0, 0, 3, 3, 3}));
  EXPECT_EQ(h.size(), 9u);
  // Instruction 9 reads other bytes: no period until 3 + 1 more match.
  EXPECT_EQ(pushPc(h, 0, 8), 0u);
  got.clear();
  for (int i = 10; i < 18; ++i)
    got.push_back(pushPc(h, uint32_t(i % 3)));
  // 10, 11 match (period 3); 12 does not (9 read other bytes); 13..15
  // match, 16 has the 3 before it matching too.
  EXPECT_EQ(got, (std::vector<unsigned>{0, 0, 0, 0, 0, 0, 3, 3}));
}

TEST(AccessHistoryTest, SameAsLastChangesNoPeriod) {
  // A caller that knows an instruction's ranges are its PC's last ones
  // (Analyzer::PcRanges) gets the periods and the kept ranges a comparison
  // would give, also where the twin is not that last instruction (a PC
  // twice in a loop body, e.g. x x y x x y x x x: the last x's twin is a
  // y), and past the first turn of the ring, where push() takes its
  // inline path (choice 2: an instruction without ranges).
  uint64_t withPeriod = 0;
  for (uint64_t seed = 1; seed <= 40; ++seed) {
    std::mt19937_64 rng(seed);
    unsigned bodySize = 1 + unsigned(rng() % 6);
    std::vector<std::pair<uint32_t, uint64_t>> body; // PC, range choice
    for (unsigned k = 0; k < bodySize; ++k)
      body.push_back({uint32_t(rng() % 3), rng() % 3});
    AccessHistory plain(3), told(3);
    std::vector<uint64_t> lastChoice(3, UINT64_MAX);
    for (unsigned i = 0; i < 3 * AccessHistory::kWindow; ++i) {
      auto [pc, choice] = body[i % bodySize];
      if (rng() % 64 == 0)
        choice = rng() % 3;
      std::vector<AddrRange> ranges;
      if (choice < 2)
        ranges.push_back(vm(choice * 64, choice * 64 + 32));
      bool same = lastChoice[pc] == choice;
      lastChoice[pc] = choice;
      unsigned period = plain.push(pc, ranges, ranges);
      ASSERT_EQ(period, told.push(pc, ranges, ranges, same))
          << "seed " << seed << " instruction " << i;
      withPeriod += period != 0;
      ASSERT_EQ(fields(plain.getReads(i)), fields(told.getReads(i)))
          << "seed " << seed << " instruction " << i;
      ASSERT_EQ(fields(plain.getWrites(i)), fields(told.getWrites(i)))
          << "seed " << seed << " instruction " << i;
    }
  }
  EXPECT_GT(withPeriod, 40 * AccessHistory::kWindow); // mostly periods
}

TEST(AccessHistoryTest, AnInnerLoopDoesNotHideTheOuterPeriod) {
  AccessHistory h(8);
  // a b b' c, with the inner loop's two b's at different addresses.
  unsigned last = 0;
  for (int it = 0; it < 4; ++it) {
    pushPc(h, 0);
    pushPc(h, 1);
    pushPc(h, 1, 4);
    last = pushPc(h, 2);
  }
  EXPECT_EQ(last, 4u);
}

TEST(AccessHistoryTest, AnInnerLoopUnderAMovingOuterOneHasItsPeriod) {
  // for o: { a (reads a moving HBM row), b, for k < 10: { c d e } }: the
  // outer body never repeats whole, so its distance (32) never becomes a
  // period, yet the inner loop's 3 does, once 3 + 1 match at 3
  // (there were none before: every inner instruction matched its twin 32
  // back, which hid the nearer one).
  AccessHistory h(8);
  std::vector<unsigned> got;
  for (uint64_t o = 0; o < 6; ++o) {
    EXPECT_EQ(h.push(0, {{MemSpace::HBM, o * 64, o * 64 + 64, 0}}, {}), 0u);
    EXPECT_EQ(h.push(1, {}, {}), 0u);
    for (int k = 0; k < 10; ++k) {
      got.push_back(h.push(2, {}, {}));
      got.push_back(pushPc(h, 3));
      got.push_back(h.push(4, {}, {}));
    }
  }
  // Each later outer trip: c d e (matching at 5, from the last trip's
  // end), c d e (at 3), then period 3 from the 7th.
  for (size_t t = 1; t < 6; ++t)
    for (size_t k = 0; k < 30; ++k)
      EXPECT_EQ(got[t * 30 + k], k < 6 ? 0u : 3u) << t << " " << k;
}

TEST(AccessHistoryTest, ManyRangesOrAnUnknownPcHaveNoPeriod) {
  AccessHistory h(4);
  std::vector<AddrRange> rows;
  for (unsigned r = 0; r <= AccessHistory::kMaxRanges; ++r)
    rows.push_back(vm(r * 256, r * 256 + 16));
  for (int i = 0; i < 10; ++i)
    EXPECT_EQ(h.push(0, rows, {}), 0u) << i;
  for (int i = 0; i < 10; ++i)
    EXPECT_EQ(h.push(AccessHistory::kNoPc, {vm(0, 4)}, {}), 0u) << i;
  // A loop of one instruction.
  std::vector<unsigned> got;
  for (int i = 0; i < 3; ++i)
    got.push_back(h.push(1, {vm(0, 4)}, {vm(8, 12)}));
  EXPECT_EQ(got, (std::vector<unsigned>{0, 0, 1}));
}

TEST(AccessHistoryTest, KeepsTheRangesOfTheLastInstructions) {
  AccessHistory h(AccessHistory::kMaxPeriod + 1);
  // Long stretches that repeat (sharing their twins' ranges) between
  // others that do not, over many turns of the rings.
  std::mt19937_64 rng(7);
  std::vector<std::pair<std::vector<AddrRange>, std::vector<AddrRange>>> all;
  uint64_t n = 40 * AccessHistory::kWindow;
  for (uint64_t i = 0; i < n; ++i) {
    uint32_t pc = uint32_t(i % 5);
    bool repeat = (i / 3000) % 2 == 0;
    uint64_t base = repeat ? pc * 64 : rng() % 100000;
    std::vector<AddrRange> reads, writes;
    for (unsigned k = 0; k < 1 + rng() % 8; ++k)
      reads.push_back(vm(base + k * 8, base + k * 8 + 4));
    if (repeat)
      reads.resize(2);
    writes.push_back(vm(base + 4, base + 8));
    h.push(pc, reads, writes);
    all.push_back({reads, writes});
    if (i % 997 == 0 || i + 1 == n)
      for (uint64_t j = i + 1 - std::min<uint64_t>(i + 1, 1026); j <= i; ++j) {
        auto same = [](llvm::ArrayRef<AddrRange> a,
                       const std::vector<AddrRange> &b) {
          return a.size() == b.size() &&
                 std::equal(a.begin(), a.end(), b.begin(),
                            [](const AddrRange &x, const AddrRange &y) {
                              return x.begin == y.begin && x.end == y.end;
                            });
        };
        ASSERT_TRUE(same(h.getReads(j), all[j].first)) << i << " " << j;
        ASSERT_TRUE(same(h.getWrites(j), all[j].second)) << i << " " << j;
      }
  }
}

//===----------------------------------------------------------------------===//
// Random loops: with and without periods, the same numbers
//===----------------------------------------------------------------------===//

/// An instruction of a random loop body.
struct RandomInst {
  uint32_t pc;
  std::vector<uint8_t> regReads, regWrites;
  std::vector<AddrRange> reads, writes;
  DataflowBound::Cost cost;
  isa::Inst inst;
  bool isDma = false;
};

/// A random range of a small address space of two memories (`slots` 8-byte
/// slots each), so that accesses overlap often and partly.
AddrRange randomRange(std::mt19937_64 &rng, uint64_t slots = 64) {
  uint64_t b = (rng() % slots) * 8, len = 8 * (1 + rng() % 12);
  return {rng() % 4 ? MemSpace::VMEM : MemSpace::HBM, b, b + len, 0};
}

RandomInst randomInst(std::mt19937_64 &rng, uint32_t pc, uint64_t slots) {
  RandomInst r;
  r.pc = pc;
  for (unsigned k = rng() % 3; k > 0; --k)
    r.regReads.push_back(uint8_t(rng() % 8));
  if (rng() % 2)
    r.regWrites.push_back(uint8_t(1 + rng() % 7));
  for (unsigned k = rng() % 4; k > 0; --k)
    r.reads.push_back(randomRange(rng, slots));
  for (unsigned k = rng() % 3; k > 0; --k)
    r.writes.push_back(randomRange(rng, slots));
  switch (rng() % 5) {
  case 0: // a DMA: T_b, then its transfer on a link
    r.cost = {1 + int(rng() % 2), 20 + rng() % 50, 1 + rng() % 30, true, true};
    r.isDma = !r.reads.empty() && !r.writes.empty();
    r.inst = dmaIssue(uint8_t(r.regWrites.empty() ? 9 : r.regWrites[0]), 1, 2,
                      MemSpace::HBM, MemSpace::VMEM, 1, 16, 16, 16);
    break;
  case 1: // a VPU op
    r.cost = {0, 0, 1 + rng() % 40, false};
    r.inst = vfill(2, 1, 16, 16, 1.0f);
    break;
  case 2: // a branch
    r.cost.controls = true;
    r.inst = blt(1, 2, 0);
    break;
  case 3: // a scalar load
    r.inst = sld(3, 1, 0);
    break;
  default:
    r.inst = addi(3, 1, 4);
    break;
  }
  return r;
}

/// A loop of `bodySize` random instructions run `trips` times, each
/// instruction replaced by a random one with probability 1/`noise`; its
/// ranges in `slots` 8-byte slots.
std::vector<RandomInst> randomRun(std::mt19937_64 &rng, unsigned bodySize,
                                  unsigned trips, unsigned noise,
                                  uint64_t slots = 64) {
  std::vector<RandomInst> body;
  for (unsigned k = 0; k < bodySize; ++k)
    body.push_back(randomInst(rng, k, slots));
  std::vector<RandomInst> run;
  for (unsigned t = 0; t < trips; ++t)
    for (const RandomInst &in : body)
      run.push_back(
          rng() % noise ? in : randomInst(rng, uint32_t(rng() % 40), slots));
  return run;
}

std::set<int64_t> lastWriters(DataflowBound &g, const AddrRange &r) {
  std::set<int64_t> s;
  g.forEachLastWriter(r, [&](int64_t i) { s.insert(i); });
  return s;
}

/// Expects `a` and `b`, fed the same instructions, to be the same graph with
/// the same bounds, edge for edge.
void expectSameGraph(const DataflowBound &a, const DataflowBound &b,
                     uint64_t seed) {
  EXPECT_EQ(a.criticalPath(), b.criticalPath()) << seed;
  EXPECT_EQ(a.dmaSlotBound(2), b.dmaSlotBound(2)) << seed;
  auto x = a.trackBounds(), y = b.trackBounds();
  ASSERT_EQ(x.size(), y.size());
  for (size_t t = 0; t < x.size(); ++t) {
    ASSERT_EQ(bool(x[t]), bool(y[t])) << seed;
    if (x[t]) {
      EXPECT_EQ(x[t]->head, y[t]->head) << seed << " track " << t;
      EXPECT_EQ(x[t]->tail, y[t]->tail) << seed << " track " << t;
      EXPECT_EQ(x[t]->bound, y[t]->bound) << seed << " track " << t;
    }
  }
  using Edge = std::tuple<uint64_t, uint64_t, bool>;
  std::vector<Edge> edgesA, edgesB;
  a.forEachEdge([&](uint64_t i, uint64_t p, bool atStart) {
    edgesA.emplace_back(i, p, atStart);
  });
  b.forEachEdge([&](uint64_t i, uint64_t p, bool atStart) {
    edgesB.emplace_back(i, p, atStart);
  });
  EXPECT_EQ(edgesA, edgesB) << seed;
  // Every path length, extrapolated or not (which no bound above may
  // show: a tail only counts where it is the smallest after its head).
  EXPECT_EQ(a.getPathLengths(), b.getPathLengths()) << seed;
}

TEST(AccessHistoryTest, DataflowBoundIsTheSameWithPeriods) {
  unsigned seedsWithPeriods = 0, seedsSharing = 0;
  for (uint64_t seed = 1; seed <= 60; ++seed) {
    std::mt19937_64 rng(seed);
    unsigned bodySize = 1 + unsigned(rng() % 12);
    std::vector<RandomInst> run = randomRun(
        rng, bodySize, 20 + unsigned(rng() % 60), 10 + unsigned(rng() % 300));
    AccessHistory history(64);
    DataflowBound plain(4, 3, 2), periodic(4, 3, 2);
    periodic.setHistory(&history);
    unsigned withPeriod = 0;
    for (size_t i = 0; i < run.size(); ++i) {
      const RandomInst &in = run[i];
      unsigned period = history.push(in.pc, in.reads, in.writes);
      withPeriod += period != 0;
      plain.add(in.regReads, in.regWrites, in.reads, in.writes, in.cost);
      periodic.add(in.regReads, in.regWrites, in.reads, in.writes, in.cost,
                   period);
      ASSERT_EQ(plain.getLastFinish(), periodic.getLastFinish())
          << "seed " << seed << " instruction " << i;
      if (rng() % 50 == 0) {
        AddrRange r = randomRange(rng);
        ASSERT_EQ(lastWriters(plain, r), lastWriters(periodic, r))
            << "seed " << seed << " instruction " << i;
      }
      if (rng() % 400 == 0) { // another chip writes
        AddrRange r = randomRange(rng);
        plain.addExternalWrite(r, i * 3);
        periodic.addExternalWrite(r, i * 3);
      }
    }
    expectSameGraph(plain, periodic, seed);
    for (int k = 0; k < 20; ++k) {
      AddrRange r = randomRange(rng);
      EXPECT_EQ(lastWriters(plain, r), lastWriters(periodic, r)) << seed;
    }
    // The same graph, edge for edge, though most of the periodic one's
    // instructions took their twin's edge bytes (shareEdges).
    EXPECT_EQ(plain.getNumShared(), 0u);
    seedsWithPeriods += withPeriod != 0;
    seedsSharing += periodic.getNumShared() != 0;
  }
  // Nearly every run used periods and shared edge bytes (all 60 do; else
  // this tests nothing).
  EXPECT_GE(seedsWithPeriods, 55u);
  EXPECT_GE(seedsSharing, 55u);
}

TEST(AccessHistoryTest, RepeatRunsGiveTheSameGraph) {
  // Long loops without DMAs, so that DataflowBound's repeat runs (add()
  // appending only starts and durations, the rest made when the run ends)
  // cover most instructions; now and then an instruction of its own (which
  // ends a run), a query of the last writers (which makes the run's state)
  // or another chip's write. With runs, without them and without periods,
  // the same graph and numbers.
  unsigned seedsRepeating = 0;
  uint64_t total = 0, repeated = 0, extrapolated = 0;
  for (uint64_t seed = 1; seed <= 40; ++seed) {
    std::mt19937_64 rng(seed * 7919);
    unsigned bodySize = 1 + unsigned(rng() % 12);
    std::vector<RandomInst> body;
    for (unsigned k = 0; k < bodySize; ++k) {
      RandomInst in = randomInst(rng, k, 64);
      while (in.cost.holdsDmaSlot)
        in = randomInst(rng, k, 64);
      body.push_back(in);
    }
    unsigned trips = 500 + unsigned(rng() % 2500);
    unsigned noise = 200 + unsigned(rng() % 3000);
    AccessHistory history(128);
    DataflowBound plain(4, 3, 2), runs(4, 3, 2), noRuns(4, 3, 2);
    runs.setHistory(&history);
    noRuns.setHistory(&history);
    noRuns.setRepeatRuns(false);
    uint64_t i = 0;
    for (unsigned t = 0; t < trips; ++t)
      for (const RandomInst &b : body) {
        RandomInst in = b;
        if (rng() % noise == 0) // at a PC of its own: no program's twin
          in = randomInst(rng, 64 + uint32_t(rng() % 64), 64);
        unsigned period = history.push(in.pc, in.reads, in.writes);
        for (DataflowBound *g : {&plain, &runs, &noRuns})
          g->add(in.regReads, in.regWrites, in.reads, in.writes, in.cost,
                 g == &plain ? 0 : period);
        ASSERT_EQ(plain.getLastFinish(), runs.getLastFinish())
            << "seed " << seed << " instruction " << i;
        if (rng() % 997 == 0) {
          AddrRange r = randomRange(rng);
          ASSERT_EQ(lastWriters(plain, r), lastWriters(runs, r))
              << "seed " << seed << " instruction " << i;
          ASSERT_EQ(runs.getReady(r), plain.getReady(r)) << seed << " " << i;
        }
        if (rng() % 5003 == 0) { // another chip writes
          AddrRange r = randomRange(rng);
          for (DataflowBound *g : {&plain, &runs, &noRuns})
            g->addExternalWrite(r, i * 3);
        }
        ++i;
      }
    expectSameGraph(plain, runs, seed);
    expectSameGraph(plain, noRuns, seed);
    EXPECT_EQ(runs.getNumShared(), noRuns.getNumShared()) << seed;
    EXPECT_EQ(noRuns.getNumRepeated(), 0u);
    EXPECT_EQ(noRuns.getNumExtrapolated(), 0u);
    EXPECT_LE(runs.getNumExtrapolated(), runs.getNumRepeated());
    total += i;
    repeated += runs.getNumRepeated();
    extrapolated += runs.getNumExtrapolated();
    seedsRepeating += runs.getNumRepeated() > i / 2;
  }
  // Many loops ran mostly in repeat runs (else this tests little; 12 of
  // the 40 and 30% of all instructions when written: the others have
  // inputs that bind unevenly, or too many producers to share a twin's),
  // and the backward pass extrapolated many of those (trackBounds, in
  // expectSameGraph; 21% when written: a body with an instruction whose
  // result nothing reads is left to the full pass).
  EXPECT_GE(seedsRepeating, 8u);
  EXPECT_GE(repeated * 4, total);
  EXPECT_GE(extrapolated * 5, repeated);
}

TEST(AccessHistoryTest, AFarProducerBeforeALoopLetsItShareEdges) {
  // A value made 3000 instructions into the run (a DMA's tile, say) and
  // read by every trip of a loop after it: its distance grows each trip
  // but stays below its index, so without the period it would be written
  // as a distance that no copy a period later can share; with it, as the
  // producer's index (pushEdges), so the loop's instructions share their
  // twins' edge bytes and then run as a repeat run. The same graph as
  // without periods.
  AccessHistory history(16);
  DataflowBound plain(4, 3, 1), periodic(4, 3, 1);
  periodic.setHistory(&history);
  auto add = [&](uint32_t pc, std::vector<uint8_t> regReads,
                 std::vector<uint8_t> regWrites, std::vector<AddrRange> reads,
                 std::vector<AddrRange> writes, DataflowBound::Cost cost) {
    unsigned period = history.push(pc, reads, writes);
    plain.add(regReads, regWrites, reads, writes, cost);
    periodic.add(regReads, regWrites, reads, writes, cost, period);
  };
  for (int k = 0; k < 3000; ++k) // unrelated scalar work
    add(AccessHistory::kNoPc, {}, {5}, {}, {}, {});
  add(10, {}, {}, {}, {vm(0, 64)}, {0, 0, 30}); // the tile
  for (int t = 0; t < 200; ++t) {
    add(11, {}, {}, {vm(0, 64)}, {vm(64, 128)}, {0, 0, 4}); // reads it
    add(12, {}, {}, {vm(64, 128), vm(128, 192)}, {vm(128, 192)},
        {0, 0, 6});                // accumulates
    add(13, {1}, {1}, {}, {}, {}); // the counter
  }
  expectSameGraph(plain, periodic, 0);
  EXPECT_GE(periodic.getNumShared(), 580u);
  EXPECT_GE(periodic.getNumRepeated(), 560u);
}

TEST(AccessHistoryTest, DependenciesAreTheSameWithPeriods) {
  unsigned seedsWithPeriods = 0;
  for (uint64_t seed = 1; seed <= 60; ++seed) {
    std::mt19937_64 rng(seed);
    // Fewer overlaps than above: the DMAs' bounds are the maxima of the
    // last readers and writers of their bytes, which a lost assignment
    // changes only where no later instruction touched those bytes.
    std::vector<RandomInst> loop =
        randomRun(rng, 2 + unsigned(rng() % 10), 30 + unsigned(rng() % 50),
                  20 + unsigned(rng() % 300), 1024);
    // Now and then a DMA over a wide stretch of both memories, as a probe
    // of the last readers and writers (it breaks the period).
    std::vector<RandomInst> run;
    for (const RandomInst &in : loop) {
      if (rng() % 25 == 0) {
        RandomInst probe = randomInst(rng, 63, 1024);
        uint64_t b = (rng() % 512) * 8;
        probe.reads = {{MemSpace::HBM, b, b + 4096, 0}};
        probe.writes = {{MemSpace::VMEM, b, b + 4096, 0}};
        probe.isDma = true;
        probe.inst =
            dmaIssue(9, 1, 2, MemSpace::HBM, MemSpace::VMEM, 1, 16, 16, 16);
        run.push_back(probe);
      }
      run.push_back(in);
    }
    AccessHistory history(64);
    unsigned withPeriod = 0;
    DependencyTracker plain, periodic;
    periodic.setHistory(&history);
    uint32_t nextDma = 0;
    std::vector<uint32_t> open;
    for (size_t i = 0; i < run.size(); ++i) {
      const RandomInst &in = run[i];
      unsigned period = history.push(in.pc, in.reads, in.writes);
      withPeriod += period != 0;
      std::optional<uint32_t> dmaId;
      bool onlyAtWait = false;
      std::vector<uint8_t> regReads = in.regReads;
      if (in.isDma) {
        // Its addresses from register 0, which never binds: its bounds
        // are those of the bytes it reads and writes.
        regReads.clear();
        dmaId = nextDma++;
        onlyAtWait = rng() % 2;
        open.push_back(*dmaId);
      } else if (!open.empty() && rng() % 3 == 0) {
        // The WAIT of an earlier DMA retires here.
        size_t k = rng() % open.size();
        plain.dmaWait(i, open[k]);
        periodic.dmaWait(i, open[k]);
        open.erase(open.begin() + long(k));
      }
      plain.instruction(i, in.inst, regReads, in.regWrites, in.reads, in.writes,
                        dmaId, onlyAtWait);
      periodic.instruction(i, in.inst, regReads, in.regWrites, in.reads,
                           in.writes, dmaId, onlyAtWait, period);
    }
    const std::vector<DmaDependence> &a = plain.dmas(), &b = periodic.dmas();
    ASSERT_EQ(a.size(), b.size()) << seed;
    for (size_t k = 0; k < a.size(); ++k) {
      EXPECT_EQ(a[k].index, b[k].index) << seed << " DMA " << k;
      EXPECT_EQ(a[k].conservative, b[k].conservative) << seed << " DMA " << k;
      EXPECT_EQ(a[k].relaxed, b[k].relaxed) << seed << " DMA " << k;
      EXPECT_EQ(a[k].conservativeVia, b[k].conservativeVia) << seed;
      EXPECT_EQ(a[k].relaxedVia, b[k].relaxedVia) << seed;
    }
    seedsWithPeriods += withPeriod != 0;
  }
  EXPECT_GE(seedsWithPeriods, 55u);
}

} // namespace
