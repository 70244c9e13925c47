//===- AccessHistory.cpp - The last instructions' accesses and their period
//===//

#include "accel/Profile/AccessHistory.h"

#include <algorithm>

using namespace accel;
using namespace accel::profile;

static bool sameRange(const sim::AddrRange &a, const sim::AddrRange &b) {
  return a.begin == b.begin && a.end == b.end && a.space == b.space &&
         a.chip == b.chip;
}

bool AccessHistory::matches(uint64_t j, uint32_t pc,
                            llvm::ArrayRef<sim::AddrRange> reads,
                            llvm::ArrayRef<sim::AddrRange> writes) const {
  const Entry &e = entry(j);
  if (!e.kept || e.pc != pc || e.numReads != reads.size() ||
      e.numWrites != writes.size())
    return false;
  const sim::AddrRange *r = rangesOf(e);
  return std::equal(reads.begin(), reads.end(), r, sameRange) &&
         std::equal(writes.begin(), writes.end(), r + reads.size(), sameRange);
}

unsigned AccessHistory::pushAny(uint32_t pc,
                                llvm::ArrayRef<sim::AddrRange> reads,
                                llvm::ArrayRef<sim::AddrRange> writes,
                                bool sameAsLast) {
  uint64_t i = count++;
  uint64_t previous = pc < lastAt.size() ? lastAt[pc] : 0;
  if (pc < lastAt.size())
    lastAt[pc] = i + 1;
  size_t n = reads.size() + writes.size();
  bool kept = pc != kNoPc && n <= kMaxRanges;
  // The instruction it repeats, if any: the one `period` back, or the
  // last at its PC, which starts a new period.
  uint64_t twin = UINT64_MAX;
  // Whether instruction j (in the window) ran at `pc` with these ranges:
  // known without a comparison for the last one at `pc` (previous - 1),
  // whose entry kept its ranges as this one will (the same count).
  auto repeats = [&](uint64_t j) {
    return sameAsLast && j + 1 == previous ? entry(j).kept
                                           : matches(j, pc, reads, writes);
  };
  if (!kept)
    outer = Follow();
  else
    follow(outer, i, previous, outer.period && i >= outer.period, twin,
           repeats);
  // The inner period: the same, but restarted also when the distance to
  // the last instruction at `pc` is shorter, and followed only while the
  // outer one does not hold (as after push()'s inline path, which leaves
  // it: innerAt).
  bool innerGoesOn = innerAt == i && inner.period && i >= inner.period &&
                     (!previous || i + 1 - previous >= inner.period);
  innerAt = i + 1;
  if (!kept || outer.holds())
    inner = Follow();
  else
    follow(inner, i, previous, innerGoesOn, twin,
           [&, outerTwin = twin](uint64_t j) {
             return j == outerTwin || repeats(j);
           });

  if (entries.size() < kWindow)
    entries.emplace_back();
  Entry &e = entries[i % kWindow];
  e.pc = pc;
  e.kept = kept;
  e.numReads = kept ? uint16_t(reads.size()) : 0;
  e.numWrites = kept ? uint16_t(writes.size()) : 0;
  if (kept)
    keepRanges(e, twin, reads, writes);
  // The instruction and the period before it all matched their twins (at
  // the outer period when it holds: a nested loop's whole body repeats).
  if (outer.holds())
    return outer.period;
  return inner.holds() ? inner.period : 0;
}

void AccessHistory::keepRanges(Entry &e, uint64_t twin,
                               llvm::ArrayRef<sim::AddrRange> reads,
                               llvm::ArrayRef<sim::AddrRange> writes) {
  // A repeat shares its twin's ranges while they are young enough to
  // outlive the window (kReuseAge); the others are copied, in one piece
  // (past the end of the ring, from its start).
  if (twin != UINT64_MAX && rangeEnd - entry(twin).first <= kReuseAge) {
    e.first = entry(twin).first;
    return;
  }
  size_t n = reads.size() + writes.size();
  if (rangeEnd % kRangeWindow + n > kRangeWindow)
    rangeEnd += kRangeWindow - rangeEnd % kRangeWindow;
  e.first = rangeEnd;
  size_t at = size_t(rangeEnd % kRangeWindow);
  if (ranges.size() < at + n)
    ranges.resize(std::min<size_t>(
        kRangeWindow, std::max<size_t>(at + n, 2 * ranges.size())));
  std::copy(reads.begin(), reads.end(), ranges.begin() + at);
  std::copy(writes.begin(), writes.end(), ranges.begin() + at + reads.size());
  rangeEnd += n;
}

llvm::ArrayRef<sim::AddrRange> AccessHistory::getReads(uint64_t index) const {
  const Entry &e = entry(index);
  return {rangesOf(e), e.numReads};
}

llvm::ArrayRef<sim::AddrRange> AccessHistory::getWrites(uint64_t index) const {
  const Entry &e = entry(index);
  return {rangesOf(e) + e.numReads, e.numWrites};
}
