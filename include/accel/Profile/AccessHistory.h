//===- AccessHistory.h - The last instructions' accesses and their period -===//
//
// The analyzer's maps of the last writer and reader of every byte (the
// dataflow graph's, DataflowBound.h, and the dependency analysis's) cost a
// range lookup or assignment per access, and a loop makes the same accesses
// in every iteration. AccessHistory keeps the byte ranges the last
// instructions read and wrote, and finds where the run repeats itself:
// instruction i has period L when it and each of the L instructions before
// it ran at the same PC and read and wrote the same byte ranges as the
// instruction L before it (its twin). Then, for maps that only
// instructions write (issue 34):
//  - the last writer of a byte i reads is its twin's last writer of that
//    byte moved L later when that was at most L before the twin (the
//    writer's own twin wrote the byte again, and nothing since), else the
//    same instruction (nothing from L before the twin on wrote the byte);
//  - of the assignments a run of such instructions makes, only those of
//    its last L instructions can still show: each earlier one is made again,
//    to the same ranges, exactly L instructions later.
// So a map may skip its lookups and assignments while the period holds and
// catch up with the last L instructions' assignments when it ends.
//
//===----------------------------------------------------------------------===//

#ifndef ACCEL_PROFILE_ACCESSHISTORY_H
#define ACCEL_PROFILE_ACCESSHISTORY_H

#include "accel/Sim/Memory.h"

#include "llvm/ADT/ArrayRef.h"

#include <algorithm>
#include <cstdint>
#include <vector>

namespace accel {
namespace profile {

/// The byte ranges of the last kWindow instructions and the period of the
/// latest (see above). Memory: at most kWindow entries and kRangeWindow
/// ranges (32 bytes each), allocated as the run reaches them, plus 8 bytes
/// per PC of the program.
class AccessHistory {
public:
  /// The longest period found, in instructions (a loop body longer than
  /// this is analyzed one access at a time).
  static constexpr unsigned kMaxPeriod = 1024;
  /// The most ranges (reads and writes) of an instruction that can repeat:
  /// one of more (a tile of many strided rows) has no period.
  static constexpr unsigned kMaxRanges = 16;
  /// Instructions whose ranges stay available (getReads, getWrites).
  static constexpr uint64_t kWindow = 2048;
  static_assert(kWindow >= kMaxPeriod + 2, "a period and its twin fit");
  /// A PC no program has: the instruction never repeats.
  static constexpr uint32_t kNoPc = UINT32_MAX;

  /// For a program of `numPcs` instructions.
  explicit AccessHistory(size_t numPcs) : lastAt(numPcs, 0) {}

  /// Adds the next instruction (index size() before the call): its PC
  /// (kNoPc when it is not the program's own instruction at a PC) and the
  /// ranges it reads and writes. Returns its period L, 1 <= L <=
  /// kMaxPeriod, or 0 when it has none. `sameAsLast`: the caller knows
  /// the ranges are those of the last instruction added at `pc`, which are
  /// then not compared.
  unsigned push(uint32_t pc, llvm::ArrayRef<sim::AddrRange> reads,
                llvm::ArrayRef<sim::AddrRange> writes,
                bool sameAsLast = false) {
    // Inline, the usual case of a loop: the period goes on, and the
    // ranges are those of its twin, the last at `pc` (the caller knows, or
    // there are none); the entry is the twin's (its ranges shared while
    // young enough).
    uint64_t i = count;
    unsigned period = outer.period;
    if (outer.run >= period && period && i >= period && pc < lastAt.size() &&
        lastAt[pc] == i - period + 1 && entries.size() == kWindow) {
      const Entry &twin = entry(i - period);
      bool same = sameAsLast || (reads.empty() && writes.empty() &&
                                 !twin.numReads && !twin.numWrites);
      if (same && twin.kept && rangeEnd - twin.first <= kReuseAge) {
        count = i + 1;
        lastAt[pc] = i + 1;
        ++outer.run;
        entries[i % kWindow] = twin;
        return period;
      }
    }
    return pushAny(pc, reads, writes, sameAsLast);
  }
  /// Instructions added.
  uint64_t size() const { return count; }
  /// The ranges instruction `index` read and wrote: one of the last
  /// kMaxPeriod + 2 added that had at most kMaxRanges ranges (every one
  /// with a period, and its twin).
  llvm::ArrayRef<sim::AddrRange> getReads(uint64_t index) const;
  llvm::ArrayRef<sim::AddrRange> getWrites(uint64_t index) const;

private:
  static constexpr uint64_t kRangeWindow = kWindow * kMaxRanges;
  /// The oldest ranges (in ranges written since) a repeat may share: the
  /// ranges of any of the last kMaxPeriod + 2 instructions are then still
  /// in the ring, since those wrote at most (kMaxPeriod + 2) * kMaxRanges
  /// ranges after them, plus a gap at the ring's end.
  static constexpr uint64_t kReuseAge =
      kRangeWindow - (kMaxPeriod + 3) * kMaxRanges;
  struct Entry {
    uint64_t first = 0; ///< position of its first range in `ranges`
    uint32_t pc = kNoPc;
    uint16_t numReads = 0, numWrites = 0;
    bool kept = false; ///< its ranges are in `ranges` (at most kMaxRanges)
  };
  /// push() for any instruction.
  unsigned pushAny(uint32_t pc, llvm::ArrayRef<sim::AddrRange> reads,
                   llvm::ArrayRef<sim::AddrRange> writes, bool sameAsLast);
  /// Whether instruction `j` (in the window) ran at `pc` with these
  /// ranges.
  bool matches(uint64_t j, uint32_t pc, llvm::ArrayRef<sim::AddrRange> reads,
               llvm::ArrayRef<sim::AddrRange> writes) const;
  const Entry &entry(uint64_t index) const { return entries[index % kWindow]; }
  /// Keeps the ranges of entry `e` (kept): its twin's (UINT64_MAX: none)
  /// when young enough, else a copy of `reads` and `writes`.
  void keepRanges(Entry &e, uint64_t twin, llvm::ArrayRef<sim::AddrRange> reads,
                  llvm::ArrayRef<sim::AddrRange> writes);
  const sim::AddrRange *rangesOf(const Entry &e) const {
    return ranges.data() + e.first % kRangeWindow;
  }

  /// Rings, grown to kWindow and kRangeWindow as the run reaches them.
  /// An entry's ranges never wrap: a gap is left at the end of the ring. A
  /// repeat points at its twin's ranges (kReuseAge), so a loop that
  /// repeats writes no ranges.
  std::vector<Entry> entries;
  std::vector<sim::AddrRange> ranges;
  uint64_t count = 0, rangeEnd = 0;
  /// Per PC, 1 + the index of its last execution (0: none yet).
  std::vector<uint64_t> lastAt;
  /// A period being followed (0: none) and how many instructions in a
  /// row, up to the latest, matched their twins at that distance.
  struct Follow {
    unsigned period = 0;
    uint64_t run = 0;
    /// The period holds for the latest instruction.
    bool holds() const { return run > period; }
  };
  /// Advances `f` by instruction `i`, whose last instruction at its PC
  /// was previous - 1 (previous 0: none): it goes on when `goesOn` and
  /// `i` repeats the instruction a period back, else restarts at the
  /// distance to previous - 1 if `i` repeats that one, else stops. `twin`
  /// becomes the instruction `i` repeats, if any.
  template <typename Repeats>
  static void follow(Follow &f, uint64_t i, uint64_t previous, bool goesOn,
                     uint64_t &twin, Repeats repeats) {
    if (goesOn && repeats(i - f.period)) {
      twin = i - f.period;
      ++f.run;
    } else if (previous && i + 1 - previous <= kMaxPeriod &&
               repeats(previous - 1)) {
      twin = previous - 1;
      f.period = unsigned(i - twin);
      f.run = 1;
    } else {
      f = Follow();
    }
  }
  /// The period from the distance to each PC's last instruction, kept
  /// while it holds: the whole body of a loop (of loops nested in it too).
  Follow outer;
  /// A second one alongside, restarted at that distance also when it is
  /// shorter: a loop nested in one whose body never repeats whole (a DMA
  /// from a moving address in each outer trip) keeps `outer` at the outer
  /// distance, where it never holds, and has its period here. Followed by
  /// pushAny only while `outer` does not hold: valid when `innerAt` is the
  /// index of the instruction being added.
  Follow inner;
  uint64_t innerAt = 0;
};

/// A run of consecutive instructions of one period whose assignments to a
/// map wait (see above): join() adds the next one, and drain() gives the
/// ones whose assignments can still show, the run's last `period`, in
/// order, before anything reads the map.
class DeferredRun {
public:
  bool empty() const { return count == 0; }
  /// Whether instruction `index` of period `period` continues the run (or
  /// starts one).
  bool canJoin(uint64_t index, unsigned period) const {
    return count == 0 || (period == runPeriod && end == index);
  }
  /// Adds instruction `index` (canJoin was true).
  void join(uint64_t index, unsigned period) {
    runPeriod = period;
    end = index + 1;
    ++count;
  }
  /// Adds the `n` instructions up to `end` (exclusive), of period
  /// `period` (canJoin was true for the first).
  void joinMany(uint64_t end, unsigned period, uint64_t n) {
    runPeriod = period;
    this->end = end;
    count += n;
  }
  /// Calls fn(j) for each instruction j of the run whose assignments can
  /// still show, in order; the run is then empty.
  template <typename Fn> void drain(Fn fn) {
    uint64_t n = std::min<uint64_t>(count, runPeriod);
    for (uint64_t j = end - n; j < end; ++j)
      fn(j);
    count = 0;
  }

private:
  uint64_t count = 0, end = 0;
  unsigned runPeriod = 0;
};

} // namespace profile
} // namespace accel

#endif // ACCEL_PROFILE_ACCESSHISTORY_H
