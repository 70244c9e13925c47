//===- Analyzer.h - Utilization, VMEM, dependencies, suggestions -*- C++
//-*-===//
//
// The analyzer of SnR §4.3 and §5.2-§5.4, run as a performance tracker
// (observer) on a run or a replay:
//   - utilization of each unit (scalar, MXU, VPU, each DMA link) in time
//     buckets and per op id (§5.3.1, Fig. 7);
//   - VMEM page liveness, free fraction and largest contiguous free run per
//     bucket, the unused fraction and largest contiguous unused run per
//     cycle, the block heatmap, and DMA'd pages never read (§5.3.2,
//     Fig. 8);
//   - dynamic dependencies in the conservative and relaxed models, and each
//     DMA's backtail (§5.4, Fig. 9);
//   - suggestions: hoist (Algorithm 2), pin, parallelize (§5.2.1);
//   - computation vs communication per op id and region, and the roofline
//     lower bound on cycles (Kim & Edwards; FAST §4.1).
// The analyses are streaming: each event is processed once, so analysis
// time is linear in the number of instructions.
//
//===----------------------------------------------------------------------===//

#ifndef ACCEL_PROFILE_ANALYZER_H
#define ACCEL_PROFILE_ANALYZER_H

#include "accel/ISA/Isa.h"
#include "accel/Profile/AccessHistory.h"
#include "accel/Profile/DataflowBound.h"
#include "accel/Profile/DmaTable.h"
#include "accel/Profile/RangeMap.h"
#include "accel/Sim/Simulator.h"
#include "accel/Support/BulkVector.h"

#include "llvm/Support/raw_ostream.h"

#include <nlohmann/json_fwd.hpp>

#include <array>
#include <bitset>
#include <map>
#include <optional>
#include <vector>

namespace accel {

class JsonWriter;

namespace profile {

//===----------------------------------------------------------------------===//
// VMEM occupancy (SnR §5.3.2)
//===----------------------------------------------------------------------===//

/// Page-level VMEM liveness. A page is live from a write until its last read
/// before the next write (or the end); a page written and never read before
/// the next write is dead data, and if a DMA wrote it, wasted DMA bytes.
/// Writes by a DMA happen at its transfer start; reads and writes by MXU/VPU
/// at the op's start.
class VmemTracker {
public:
  VmemTracker(uint64_t vmemBytes, uint64_t pageBytes);

  /// Bytes [begin, end) written at `cycle` by op `opId` (`byDma`: a DMA).
  void write(uint64_t begin, uint64_t end, uint64_t cycle, uint32_t opId,
             bool byDma) {
    // Inline, the usual small write: part of one live page, which stays
    // live (the rest of the page still holds data) and counts as read.
    uint64_t page = pageOf(begin);
    if (begin < end && page == pageOf(end - 1) && page < pages) {
      PageState &s = state[page];
      if (s.live &&
          (begin > page * pageBytes || end < (page + 1) * pageBytes)) {
        if (LLVM_UNLIKELY(logging))
          notePages(page, page);
        s.lastRead = std::max(s.lastRead, cycle);
        s.read = true;
        return;
      }
    }
    writeAny(begin, end, cycle, opId, byDma);
  }
  /// Bytes [begin, end) read at `cycle`.
  void read(uint64_t begin, uint64_t end, uint64_t cycle) {
    if (begin >= end)
      return;
    uint64_t first = pageOf(begin), last = pageOf(end - 1);
    if (LLVM_UNLIKELY(logging))
      notePages(first, last);
    for (uint64_t p = first; p <= last && p < pages; ++p) {
      PageState &s = state[p];
      if (!s.live)
        continue; // reading a page nobody wrote (zeros): not live data
      s.lastRead = std::max(s.lastRead, cycle);
      s.lastUse = std::max(s.lastUse, cycle);
      s.read = s.used = true;
    }
  }
  /// Closes every page's lifetime at the end of the run: a live page stays
  /// live until its last read (a page never read again is not live after
  /// it); DMA-written pages never read count as wasted.
  void finish();

  struct Bucket {
    uint64_t start = 0;              ///< first cycle of the bucket
    uint64_t usedPages = 0;          ///< pages live at some cycle of the bucket
    double freeFraction = 0;         ///< 1 - usedPages / pages
    uint64_t largestFreeRun = 0;     ///< longest run of unused pages
    std::vector<uint32_t> blockUsed; ///< used pages per block
  };
  /// Occupancy per bucket of `bucketCycles` over [0, totalCycles), with
  /// `blocks` blocks of pages (SnR: 128 x 256).
  std::vector<Bucket> buckets(uint64_t bucketCycles, uint64_t totalCycles,
                              unsigned blocks) const;
  /// SnR's Fig. 8a (Zarkadas et al., SoCC '25, §5.3.2) at cycle
  /// resolution. A page is *used* at a cycle when it holds live data: the
  /// cycle lies in [write, last read] of one of its lifetimes, counting only
  /// reads by instructions ("a page is counted as used if it is read by an
  /// instruction after being written"). Every other page is *unused*: never
  /// written, written and never read (e.g. transferred and never read), or
  /// past its last read. Unlike `Bucket::freeFraction`, which counts a page
  /// as used for the whole bucket when it is live at any cycle of it (and a
  /// partial overwrite as a read), these are means over each cycle.
  struct UnusedSeries {
    /// Per bucket: the mean over its cycles of the fraction of pages
    /// unused.
    std::vector<double> unusedFraction;
    /// Per bucket: the mean over its cycles of the longest run of
    /// consecutive unused pages, as a fraction of all pages.
    std::vector<double> largestRunFraction;
    /// Over all cycles of the run: the median (lower median, weighted by
    /// cycles) of the unused fraction and of the largest-run fraction.
    double medianUnusedFraction = 0, medianLargestRunFraction = 0;
    /// Cycles whose spans were added from an earlier period's, shifted,
    /// not swept (addRepeatHint): for tests and benchmarks.
    uint64_t skippedCycles = 0;
  };
  /// The unused series over [0, totalCycles) in buckets of `bucketCycles`
  /// cycles (call after finish(), which sorts the lifetimes by start). Time:
  /// linear in the number of page lifetimes times log2 of the page count;
  /// memory beyond the lifetimes: linear in the pages and the buckets. A
  /// loop's steady state (addRepeatHint) is swept for a period or two and
  /// its later periods' spans are added shifted, after a check that costs
  /// a comparison per lifetime (the same numbers either way).
  UnusedSeries unused(uint64_t bucketCycles, uint64_t totalCycles) const;
  /// A hint for unused(): from cycle `from` on, the lifetimes may repeat
  /// every `shift` cycles (a repeat run's first repeated period, see
  /// applyRepeats). unused() checks it against the lifetimes themselves:
  /// at two cycles `shift` apart, the lifetimes live must be the same, each
  /// ending `shift` later or at the same cycle (then not before the
  /// periods skipped end), and each later period's lifetimes the first's,
  /// shifted; a hint that does not hold costs a few comparisons and
  /// changes no number. `shift` 0 is ignored.
  void addRepeatHint(uint64_t from, uint64_t shift) {
    if (shift)
      repeatHints.push_back({from, shift});
  }
  /// Smallest largest-free-run (pages) over the buckets overlapping
  /// [from, to).
  static uint64_t minFreeRun(const std::vector<Bucket> &buckets,
                             uint64_t bucketCycles, uint64_t from, uint64_t to);
  /// DMA-written bytes never read, per op id.
  const std::map<uint32_t, uint64_t> &wastedBytes() const { return wasted; }
  uint64_t pageCount() const { return pages; }
  uint64_t getPageBytes() const { return pageBytes; }
  /// Lifetime entries of repeat runs' middle periods, which are not stored
  /// (applyRepeats; for tests and benchmarks).
  uint64_t getUnstored() const {
    uint64_t n = 0;
    for (const Segment &g : segments)
      n += g.m * g.count;
    return n;
  }
  /// Calls fn(start, end, useEnd, page, pages, used) for each page
  /// lifetime kept, in the order kept (after finish(): the read ones), for
  /// tests that compare two trackers.
  template <typename Fn> void forEachLifetime(Fn fn) const {
    for (EntryCursor c(*this); !c.atEnd(); c.advance()) {
      Interval iv = c.value();
      fn(iv.start, endOf(iv), useEndOf(iv), iv.page, uint32_t(iv.pages),
         bool(iv.used));
    }
    for (const Interval &iv : unmerged)
      fn(iv.start, endOf(iv), useEndOf(iv), iv.page, uint32_t(iv.pages),
         bool(iv.used));
  }

  // Repeat runs (issue 34). A loop whose accesses repeat with its period
  // (AccessHistory) at cycles one fixed shift later each period leaves,
  // once in its steady state, the same lifetimes each period, shifted, and
  // its pages' states shifted (the cycles a period's accesses set move by
  // the shift; the others stay, and lie before the loop's accesses). The
  // Analyzer logs two periods (startLog, closePeriod), and when the second
  // is the first shifted (repeats), passes no accesses of the next periods
  // until the run ends; applyRepeats then makes what they would have: the
  // template's lifetime entries and page states, shifted.

  /// What a period did to the lifetimes (intervals and unmerged): in
  /// order, with the entry or unmerged index it touched.
  struct Mutation;
  /// A logged period: its mutations, the pages its accesses touched, their
  /// states at its end, and the lifetime lists' sizes at its start and end.
  struct PeriodRecord;
  /// Starts logging a period (ends any log).
  void startLog();
  /// Stops logging, dropping the log.
  void stopLog();
  /// The period logged since startLog or the last closePeriod; logging
  /// goes on with the next.
  PeriodRecord closePeriod();
  /// Whether `cur`, the period after `prev` with the same accesses
  /// `shift` cycles later (shift > 0), did to the lifetimes what `prev`
  /// did, `shift` later, and left each page state cycle `shift` later or
  /// unmoved and before `prev.minAt` (so that no later access compares
  /// otherwise with it): then so will every later period whose accesses are
  /// `shift` later again, by induction. Notes in `cur` which page fields
  /// moved.
  bool repeats(const PeriodRecord &prev, PeriodRecord &cur,
               uint64_t shift) const;
  /// Makes what `k` more periods after `tmpl` (which repeats() accepted)
  /// leave, each `shift` cycles after the one before. The entries of the
  /// periods that no later change can reach are not stored but kept as a
  /// segment (the template's entries, shifted): 24 bytes an entry less,
  /// the same lifetimes for every reader.
  void applyRepeats(const PeriodRecord &tmpl, uint64_t shift, uint64_t k);

private:
  struct Interval;
  /// A page's state; all zero bytes is a page never written (`state`
  /// starts so, untouched).
  struct PageState {
    /// lastRead also counts partial overwrites; lastUse only reads.
    uint64_t writeCycle = 0, lastRead = 0, lastUse = 0;
    /// The index in `intervals` of the entry its write took (one per
    /// write).
    uint64_t entry = 0;
    uint32_t writerOp = 0;
    bool live = false, read = false, byDma = false, used = false;
  };
  /// The read lifetimes of `pages` consecutive pages from `page` that
  /// began and ended at the same cycles (24 bytes): the pages of a tile,
  /// written together, read together and overwritten together, are one
  /// entry (issue 34: a lifetime per page was the analyzer's largest
  /// structure).
  struct Interval {
    /// Live over [start, end], the last read at useEnd (meaningful when
    /// `used`; end and useEnd are never before start): endOf and useEndOf.
    /// The two are kept as their distances from start, or, when either is
    /// 2^32 cycles or more (`wide`), as an index into `wideEnds`: 24 bytes.
    uint64_t start;
    uint32_t endDelta, useEndDelta;
    uint32_t page;
    uint32_t pages : 30;
    uint32_t used : 1; ///< some instruction read the lifetime's data
    uint32_t wide : 1;
  };
  static constexpr uint32_t kMaxPagesPerInterval = (1u << 30) - 1;
  /// A lifetime of `pages` pages from `page` (wide ones enter `wideEnds`).
  Interval makeInterval(uint64_t start, uint64_t end, uint64_t useEnd,
                        uint32_t page, uint32_t pages, bool used);
  uint64_t endOf(const Interval &iv) const {
    return iv.wide ? wideEnds[iv.endDelta].first : iv.start + iv.endDelta;
  }
  uint64_t useEndOf(const Interval &iv) const {
    return iv.wide ? wideEnds[iv.endDelta].second : iv.start + iv.useEndDelta;
  }
  /// (end, useEnd) of the wide lifetimes.
  std::vector<std::pair<uint64_t, uint64_t>> wideEnds;
  /// An entry of `intervals` no page has closed into yet (or none will: a
  /// lifetime never read, dropped by finish()).
  static constexpr uint32_t kNoPage = UINT32_MAX;
  /// write() for any write.
  void writeAny(uint64_t begin, uint64_t end, uint64_t cycle, uint32_t opId,
                bool byDma);
  /// Ends `page`'s lifetime: a read one fills or extends the entry its
  /// write took, or, when it does not continue that entry, joins
  /// `unmerged`; an unread one written by a DMA counts as wasted.
  void close(uint32_t page, PageState &s);

  uint64_t pageBytes, pages;
  /// Per page; only the pages a run writes are touched (a small program
  /// on a 32768-page VMEM writes a few hundred).
  ZeroedArray<PageState> state;
  /// The pages [writtenBegin, writtenEnd) hold every page ever written
  /// (empty when none was): finish() closes those, reading no other
  /// page's state.
  uint64_t writtenBegin = UINT64_MAX, writtenEnd = 0;
  /// log2(pageBytes) when it is a power of two (the usual page), else -1.
  int pageShift;
  /// The page holding byte `addr`: a shift for the usual page size, not a
  /// 64-bit division (tens of cycles) per access.
  uint64_t pageOf(uint64_t addr) const {
    return pageShift >= 0 ? addr >> pageShift : addr / pageBytes;
  }
  /// One entry per write that started lifetimes, taken when it began, so
  /// in order of start: the pages it wrote, as they close, if they end at
  /// the same cycles (the usual tile). A BulkVector: it grows in place,
  /// never holding the old and the doubled array at once, as a vector does.
  /// A repeat run's middle periods are not stored: see `segments`.
  BulkVector<Interval> intervals;
  /// Periods of entries a repeat run made that are not stored
  /// (applyRepeats): before entry `at` of `intervals` come `count` periods
  /// of the `m` entries from `tmpl` (its template period's, final), the
  /// first `firstShift` cycles later, each next one `shift` more. In order
  /// of `at`; m and count above 0.
  struct Segment {
    uint64_t at, tmpl, m, count, firstShift, shift;
  };
  std::vector<Segment> segments;
  /// Walks the entries in order: those of `intervals`, with the periods of
  /// `segments` in their places, each as a value (a copyable cursor).
  class EntryCursor {
  public:
    explicit EntryCursor(const VmemTracker &t) : t(&t) { settle(); }
    bool atEnd() const { return !inSegment && at >= t->intervals.size(); }
    Interval value() const {
      if (!inSegment)
        return t->intervals[at];
      const Segment &s = t->segments[seg];
      Interval iv = t->intervals[s.tmpl + k];
      iv.start += s.firstShift + period * s.shift;
      return iv;
    }
    void advance() {
      if (!inSegment) {
        ++at;
      } else if (++k == t->segments[seg].m) {
        k = 0;
        if (++period == t->segments[seg].count) {
          period = 0;
          inSegment = false;
          ++seg;
        }
      }
      settle();
    }

  private:
    /// Enters the segment that starts at `at`, if any.
    void settle() {
      if (!inSegment && seg < t->segments.size() && t->segments[seg].at == at)
        inSegment = true;
    }
    const VmemTracker *t;
    uint64_t at = 0;            ///< the next stored entry
    size_t seg = 0;             ///< the next segment (or the one walked)
    uint64_t period = 0, k = 0; ///< within segment `seg`, when inSegment
    bool inSegment = false;
  };
  /// Stores the entries of every segment in place (for a sort).
  void expandSegments();
  /// Drops the entries no page closed into (finish()), the segments' with
  /// their templates'.
  void dropUnfilled();
  /// The lifetimes that did not continue their write's entry (a tile read
  /// or overwritten in parts), in the order they ended; sorted by start by
  /// finish().
  std::vector<Interval> unmerged;
  std::map<uint32_t, uint64_t> wasted;
  /// addRepeatHint's (from, shift) pairs, in the order added.
  std::vector<std::pair<uint64_t, uint64_t>> repeatHints;

  /// Logging a period (startLog): its mutations and the page spans its
  /// accesses touched.
  bool logging = false;
  std::vector<Mutation> log;
  std::vector<std::pair<uint64_t, uint64_t>> loggedSpans;
  uint64_t logIntervalsBegin = 0, logUnmergedBegin = 0;
  void notePages(uint64_t first, uint64_t last) {
    if (first < pages)
      loggedSpans.push_back({first, std::min(last, pages - 1)});
  }
  /// Logs a mutation (logging).
  void logMutation(uint8_t kind, uint64_t index, const Interval &iv);

public:
  struct Mutation {
    enum Kind : uint8_t {
      PushEntry,      ///< intervals.push_back(iv): a write's entry
      FillEntry,      ///< intervals[index] = iv: its first page closed
      ExtendEntry,    ///< ++intervals[index].pages
      PushUnmerged,   ///< unmerged.push_back(iv)
      ExtendUnmerged, ///< ++unmerged[index].pages
      Other,          ///< anything else (a wide lifetime, wasted bytes)
    };
    uint8_t kind;
    uint64_t index;
    Interval iv;
  };
  struct PeriodRecord {
    std::vector<Mutation> log;
    std::vector<uint32_t> pages;   ///< sorted
    std::vector<PageState> states; ///< per page of `pages`
    /// Per page, which of writeCycle, lastRead, lastUse and entry moved
    /// (bits 0..3; repeats() sets them).
    std::vector<uint8_t> moved;
    uint64_t intervalsBegin = 0, intervalsEnd = 0;
    uint64_t unmergedBegin = 0, unmergedEnd = 0;
    /// The earliest access cycle of the period (the Analyzer's).
    uint64_t minAt = UINT64_MAX;
  };
};

//===----------------------------------------------------------------------===//
// Dynamic dependencies (SnR §5.4)
//===----------------------------------------------------------------------===//

/// What bounds how early a DMA ISSUE could be: the latest instruction it
/// depends on, in two models.
///  - conservative: the producers of its address registers, the last writer
///    of its source bytes, and the last reader or writer of its destination
///    bytes;
///  - relaxed: the same, except that address registers computed by
///    lightweight scalar chains (li/mov/add/sub/mul/addi/muli) do not bind:
///    the chain is followed back to where its data came from: a scalar
///    load (sld) binds at the producer of the bytes it loaded (for DMA'd
///    data, that DMA's WAIT), and a register written by any other
///    instruction (e.g. a DMA id) binds at that instruction.
/// Memory written by a DMA counts as produced by its WAIT; a DMA's source
/// counts as read until its WAIT. Of several producers, the one whose result
/// is ready last binds.
struct DmaDependence {
  /// Which input of the ISSUE its binding instruction feeds.
  enum class Via : uint8_t {
    Address,     ///< an address or chip register (the scalar chain into it)
    Source,      ///< the bytes it reads: their last writer
    Destination, ///< the bytes it writes: their last reader or writer
  };
  uint64_t index = 0; ///< instruction index of the ISSUE
  /// Binding instruction index per model; nullopt: nothing binds (the start
  /// of the run or window).
  std::optional<uint64_t> conservative, relaxed;
  /// The input each model's binding instruction feeds (meaningless when
  /// that model's bound is nullopt). On a tie the address wins, then the
  /// source.
  Via conservativeVia = Via::Address, relaxedVia = Via::Address;
};

/// Per instruction index (in retire order): the cycle it issued and the
/// cycle its result is available, in 8 bytes instead of two 64-bit words
/// (issue 34: the analyzer's memory per instruction). An issue cycle is
/// kept as its low 32 bits, with the high bits recorded where they change
/// (issues come in cycle order, so that is once per 2^32 cycles); the
/// result cycle as its distance from the issue, exactly (a distance that
/// does not fit in 32 bits, or a negative one, is kept on the side).
class InstCycles {
public:
  void push(uint64_t issue, uint64_t done) {
    uint32_t high = uint32_t(issue >> 32);
    if (highs.empty() ? high != 0 : highs.back().second != high)
      highs.push_back({low.size(), high});
    uint64_t delta = done - issue;
    if (done < issue || delta >= kWide) {
      wide[low.size()] = done;
      delta = kWide;
    }
    low.push_back(uint32_t(issue));
    doneDelta.push_back(uint32_t(delta));
  }
  /// Instruction `i`'s issue cycle (i < size()).
  uint64_t issue(size_t i) const {
    if (highs.empty()) // every issue below 2^32 cycles: the usual run
      return low[i];
    // The last change of the high bits at or before i.
    auto it =
        std::upper_bound(highs.begin(), highs.end(), i,
                         [](size_t x, const std::pair<size_t, uint32_t> &h) {
                           return x < h.first;
                         });
    uint64_t high = it == highs.begin() ? 0 : std::prev(it)->second;
    return high << 32 | low[i];
  }
  /// Instruction `i`'s result cycle (MXU/VPU: the op's end; others: the
  /// cycle after issue).
  uint64_t done(size_t i) const {
    return doneDelta[i] == kWide ? wide.find(i)->second
                                 : issue(i) + doneDelta[i];
  }
  size_t size() const { return low.size(); }
  bool empty() const { return low.empty(); }

private:
  static constexpr uint32_t kWide = UINT32_MAX;
  BulkVector<uint32_t> low, doneDelta;
  /// (first index, high 32 bits of its issue cycle), where they change.
  std::vector<std::pair<size_t, uint32_t>> highs;
  std::map<size_t, uint64_t> wide;
};

class DependencyTracker {
public:
  /// Processes instruction `index`. `regReads`/`regWrites` are register
  /// numbers; `reads`/`writes` byte ranges. `dmaId`: for a DMA ISSUE, the
  /// id of the DMA it starts, when known: its first WAIT (dmaWait) marks
  /// its source as read, and its destination as written, by that WAIT. The
  /// ISSUE marks them too, unless `onlyAtWait`: the caller's promise that
  /// the DMA completes by a WAIT and no other way (it signals no semaphore,
  /// whose sem.wait would complete it). Then nothing can see the ISSUE's
  /// marks: until the WAIT, an instruction writing the source or touching
  /// the destination is a data race the simulator faults before it
  /// retires, so they are left out (a strided source is a range per row).
  void instruction(uint64_t index, const isa::Inst &inst,
                   llvm::ArrayRef<uint8_t> regReads,
                   llvm::ArrayRef<uint8_t> regWrites,
                   llvm::ArrayRef<sim::AddrRange> reads,
                   llvm::ArrayRef<sim::AddrRange> writes,
                   const std::optional<uint32_t> &dmaId = std::nullopt,
                   bool onlyAtWait = false, unsigned period = 0);
  /// The accesses of every instruction from now on (instruction i is
  /// `history`'s i), for instruction()'s periods: with a period, an
  /// instruction that looks nothing up (not a DMA ISSUE or an sld) leaves
  /// its reads and writes to catchUp (AccessHistory.h).
  void setHistory(const AccessHistory *h) { history = h; }
  /// instruction() for the usual instruction of a repeating loop, inline:
  /// one of period `period` that writes no register, is no DMA ISSUE, sld
  /// or DMA (`hasDmaId`), and continues the deferred run, has nothing to
  /// look up or pass on, and its marks wait for catchUp. Returns whether
  /// it was that (else nothing is done: call instruction()).
  bool tryDefer(uint64_t index, isa::Opcode op,
                llvm::ArrayRef<uint8_t> regWrites, bool hasDmaId,
                unsigned period) {
    if (!initialized || !period || !history || op == isa::Opcode::DmaIssue ||
        op == isa::Opcode::Sld || hasDmaId || !regWrites.empty() ||
        !deferred.canJoin(index, period))
      return false;
    deferred.join(index, period);
    return true;
  }
  /// The WAIT at `index` completes DMA `dmaId`: its destination bytes now
  /// count as produced by this WAIT, and its source bytes as read until it.
  void dmaWait(uint64_t index, uint32_t dmaId);
  /// Systems: DMA `dmaId` of chip `fromChip` reads (`writes` false) or
  /// writes `ranges` of this chip's memory. This chip learns that it
  /// completed only from the semaphore signal it sends, so its bytes count
  /// as written (or read) by the sem.wait that consumes that signal; until
  /// then they are not tracked (reading them would be a race the simulator
  /// faults).
  void incomingDma(uint32_t fromChip, uint32_t dmaId,
                   llvm::ArrayRef<sim::AddrRange> ranges, bool writes);
  /// The sem.wait at `index` consumed `signals`: the incoming DMAs they
  /// announce are complete, produced (or read) by this instruction.
  void semWait(uint64_t index, llvm::ArrayRef<sim::Signal> signals);
  /// Dependences of every DMA ISSUE, in order.
  const std::vector<DmaDependence> &dmas() const { return dmaDeps; }
  /// The DMA id the WAIT at instruction `index` completed (the first WAIT
  /// on each DMA; later WAITs on it produce nothing), or nullopt when
  /// `index` is no such WAIT. With it a binding WAIT names the DMA an
  /// ISSUE depends on: SnR Fig. 5's setup-group arrows.
  std::optional<uint32_t> dmaWaitedAt(uint64_t index) const {
    auto it = waitDma.find(index);
    if (it == waitDma.end())
      return std::nullopt;
    return it->second;
  }
  /// When set, `ready->done(i)` is the cycle instruction i's result is
  /// available, and of several producers the one ready last binds (else the
  /// latest in program order).
  void setReadyCycles(const InstCycles *cycles) { ready = cycles; }

private:
  static constexpr int64_t kNone = -1;
  const InstCycles *ready = nullptr;
  /// The producer that binds of two (kNone: none).
  int64_t later(int64_t a, int64_t b) const;
  /// Records the DMA ISSUE at `index` writing `writes`: its bounds in both
  /// models from its address registers' producers (`regBound`,
  /// `relaxedRegBound`), its source's (`loadedFrom`) and its destination's
  /// last reader or writer.
  void addDmaDependence(uint64_t index, llvm::ArrayRef<sim::AddrRange> writes,
                        int64_t regBound, int64_t relaxedRegBound,
                        int64_t loadedFrom);
  std::array<int64_t, isa::kNumRegs> lastWriter;
  std::array<int64_t, isa::kNumRegs> relaxedOrigin;
  bool initialized = false;
  /// Last writer and last reader of each byte of every chip's memories.
  MemoryRangeMap<int64_t> memWriter, memReader;
  /// The instructions whose reads and writes are not in the maps yet, and
  /// where their ranges are.
  const AccessHistory *history = nullptr;
  DeferredRun deferred;
  /// Puts the deferred reads and writes into the maps (those that can
  /// still show: DeferredRun::drain).
  void catchUp();
  /// DMA id -> source and destination ranges (until its first WAIT: the
  /// DMA reads its source and writes its destination until then).
  std::map<uint32_t, std::vector<sim::AddrRange>> dmaSrc, dmaDst;
  std::vector<DmaDependence> dmaDeps;
  /// WAIT instruction index -> the DMA id it completed.
  std::map<uint64_t, uint32_t> waitDma;
  /// Incoming DMAs not yet announced by a consumed signal: (chip, DMA id)
  /// -> the ranges of this chip's memory they read and write.
  struct Incoming {
    std::vector<sim::AddrRange> reads, writes;
  };
  std::map<std::pair<uint32_t, uint32_t>, Incoming> incoming;
};

//===----------------------------------------------------------------------===//
// The analyzer
//===----------------------------------------------------------------------===//

/// How much of a run timeline.json draws. Chrome's and Perfetto's viewers
/// slow to a crawl past a few hundred thousand events, so a chip's timeline
/// draws at most `maxSlices` MXU/VPU slices per unit and `maxDmas` DMAs
/// (with their ISSUE, WAIT stall and backtail), the first ones in time; its
/// counters (utilization, VMEM) always cover the whole run. The tools'
/// --timeline-max-slices and --timeline-max-dmas set them.
struct TimelineLimits {
  static constexpr uint64_t kDefaultMaxSlices = 100000, kDefaultMaxDmas = 50000;
  uint64_t maxSlices = kDefaultMaxSlices, maxDmas = kDefaultMaxDmas;
};

/// What timeline.json draws of a run (TimelineLimits).
struct TimelineCoverage {
  uint64_t drawnDmas = 0, omittedDmas = 0;
  uint64_t drawnSlices = 0, omittedSlices = 0;
  /// Every event that starts before this cycle is drawn: the run's total
  /// cycles when nothing is omitted, else the start of the first omitted
  /// slice or DMA.
  uint64_t completeUntilCycle = 0;
  uint64_t totalCycles = 0;

  bool isTruncated() const { return omittedDmas || omittedSlices; }
  /// Adds another chip's (a system's timeline is one file).
  void merge(const TimelineCoverage &other);
  /// metrics.json's "timeline" (docs/metrics.md#timeline).
  nlohmann::json toJson() const;
};

struct AnalyzerOptions {
  /// Width of a time bucket in cycles; 0 chooses about 200 buckets.
  uint64_t bucketCycles = 0;
};

class Analyzer : public sim::Observer {
public:
  /// `program` and `config` must outlive the analyzer.
  Analyzer(const isa::Program &program, const sim::MachineConfig &config);
  /// The dependency analysis and the dataflow bound point at `history`.
  Analyzer(const Analyzer &) = delete;
  Analyzer &operator=(const Analyzer &) = delete;

  void onRetire(const sim::RetireEvent &event) override;
  void onDmaIssue(uint32_t pc, const sim::DmaTiming &dma) override;
  void onDmaInFlight(uint32_t pc, const sim::DmaTiming &dma) override;
  void onDmaWait(const sim::WaitEvent &event) override;
  void onIncomingDma(const sim::IncomingDma &dma) override;
  void onSemWait(const sim::SemWaitEvent &event) override;
  void onHalt(uint64_t totalCycles) override;

  /// Adds "utilization", "vmem", "dependencies", "suggestions" and
  /// "roofline" to a metrics.json built by buildMetrics (docs/metrics.md),
  /// and each DMA's backtails to its row of `dmas` (metrics.json's "dmas",
  /// the table of the same run; null: none). With `heatmap`, "vmem" gets
  /// no "heatmap" member: its rows go to `*heatmap` (writeMetricsJson
  /// writes them in place).
  void addToMetrics(nlohmann::json &metrics, DmaTable *dmas,
                    const AnalyzerOptions &options = {},
                    VmemHeatmap *heatmap = nullptr) const;
  /// A chip of a system: `chips` are the analyzers of every chip (this one
  /// is `chips[self]`). A remote DMA's data then carries its ready time in
  /// the latency-aware bound from one chip's dataflow graph to the other's
  /// (the data a remote write leaves, the source a remote read takes), so
  /// the bound follows chains across chips, such as a ring's steps
  /// (docs/metrics.md#roofline). `chips` must outlive the run.
  void setSystem(llvm::ArrayRef<Analyzer *> chips, unsigned self) {
    peers.assign(chips.begin(), chips.end());
    selfChip = self;
  }
  /// How much of the run the timeline draws (default: TimelineLimits's).
  void setTimelineLimits(const TimelineLimits &l) { limits = l; }
  /// What writeTimeline draws of this run (after onHalt).
  TimelineCoverage getTimelineCoverage() const;
  /// Writes timeline.json in the Chrome Trace Event format (Perfetto);
  /// `metrics` is the result of addToMetrics (its counters are drawn).
  void writeTimeline(llvm::raw_ostream &os,
                     const nlohmann::json &metrics) const;
  /// The events of this chip's timeline as Perfetto process `pid` named
  /// `processName` (TimelineCoverage says which), each written as one JSON
  /// object to the writer `event()` returns, ready for a value.
  void writeTimelineEvents(llvm::function_ref<JsonWriter &()> event,
                           const nlohmann::json &metrics, int pid,
                           const std::string &processName) const;
  friend void
  writeSystemTimeline(llvm::raw_ostream &os,
                      llvm::ArrayRef<const Analyzer *> chips,
                      llvm::ArrayRef<const nlohmann::json *> metrics);

  const VmemTracker &getVmem() const { return vmem; }
  /// Whether the dataflow bound and VMEM may take repeat runs (default:
  /// yes); for tests, which compare the two. Call before the run.
  void setRepeatRuns(bool on) {
    dataflow.setRepeatRuns(on);
    vmemRepeatRuns = on;
  }
  /// Instructions the dataflow bound and VMEM took in repeat runs.
  struct RepeatCounts {
    uint64_t dataflow = 0, vmem = 0;
    /// VMEM lifetime entries of repeat runs not stored (segments).
    uint64_t vmemUnstored = 0;
  };
  RepeatCounts getRepeatCounts() const {
    return {dataflow.getNumRepeated(), vmemRepeated, vmem.getUnstored()};
  }
  const DependencyTracker &getDependencies() const { return deps; }

private:
  friend struct AnalyzerImpl;
  friend class TimelineWriter;
  friend struct RetireSteps;
  friend struct ReportSteps;
  /// addToMetrics's sections (AnalyzerReport.cpp), in the order they run;
  /// ReportState carries what they share.
  struct ReportState;
  void addUtilization(nlohmann::json &m, const ReportState &s) const;
  void addVmem(nlohmann::json &m, ReportState &s, VmemHeatmap *heatmap) const;
  void addDependencies(nlohmann::json &m, DmaTable *table,
                       ReportState &s) const;
  void addSlots(ReportState &s) const;
  void addHoistSuggestions(nlohmann::json &m, const ReportState &s,
                           nlohmann::json &suggestions) const;
  void addPinSuggestions(nlohmann::json &suggestions) const;
  void addParallelizeSuggestions(const ReportState &s,
                                 nlohmann::json &suggestions) const;
  void addRoofline(nlohmann::json &m, const ReportState &s) const;
  const isa::Program &program;
  const sim::MachineConfig &config;
  TimelineLimits limits;
  uint64_t totalCycles = 0;
  uint64_t index = 0; ///< instructions seen

public:
  /// A busy interval on a track (0 scalar, 1 MXU, 2 VPU, 3+ DMA links),
  /// [start, end()) in cycles (16 bytes: one per MXU or VPU op); `opId` is
  /// 0 on the scalar track. An interval longer than 2^32 - 1 cycles is
  /// kept as several.
  struct Busy {
    uint64_t start;
    uint32_t length;
    uint32_t opId;
    uint64_t end() const { return start + length; }
  };
  /// One track's busy intervals, in order of start, each as three LEB128
  /// numbers (3 or 4 bytes for the usual MXU or VPU op; 12 bytes as three
  /// 32-bit fields took a sixth of the analyzer's memory, issue 34): the
  /// distance of its start from the previous interval's end (from 0 for the
  /// first), its length and its op id. A start before the previous end, or
  /// 2^32 - 1 cycles or more after it, is kept in `wideStarts`. The last
  /// interval stays unencoded until the next is added (grow() lengthens
  /// it). Read in order (begin()/end() yield Busy).
  class BusyTrack {
  public:
    /// Appends [start, start + length) of `opId`, or extends the last
    /// interval when it ends at `start` with the same op.
    void add(uint64_t start, uint32_t length, uint32_t opId);
    /// Whether the last interval ends at `start` with `opId` and can grow.
    bool extends(uint64_t start, uint32_t opId) const {
      return count && lastEnd == start && last.opId == opId &&
             last.length < UINT32_MAX;
    }
    /// The last interval's length (not empty()).
    uint32_t lastLength() const { return last.length; }
    /// Adds `add` cycles to the last interval (extends() was true).
    void grow(uint32_t add) {
      last.length += add;
      lastEnd += add;
      busyCycles += add;
    }
    size_t size() const { return count; }
    /// The intervals' lengths summed (cycles), kept as they are added.
    uint64_t getBusyCycles() const { return busyCycles; }
    bool empty() const { return count == 0; }
    /// The start of interval `k` (k < size()): a walk from the first.
    uint64_t startOf(size_t k) const;

    class Iterator {
    public:
      Iterator(const BusyTrack &t, size_t k) : t(&t), k(k) { load(); }
      Busy operator*() const { return cur; }
      Iterator &operator++() {
        prevEnd = cur.end();
        ++k;
        load();
        return *this;
      }
      bool operator!=(const Iterator &o) const { return k != o.k; }

    private:
      void load();
      const BusyTrack *t;
      size_t k;
      size_t pos = 0; ///< the next entry's first byte in t->bytes
      size_t wide = 0;
      uint64_t prevEnd = 0;
      Busy cur{};
    };
    Iterator begin() const { return Iterator(*this, 0); }
    Iterator end() const { return Iterator(*this, count); }

  private:
    struct Entry {
      uint32_t gap; ///< start - previous end, or kWide
      uint32_t length;
      uint32_t opId;
    };
    static constexpr uint32_t kWide = UINT32_MAX;
    /// The intervals before the last, encoded; the last one.
    BulkVector<uint8_t> bytes;
    Entry last{};
    size_t count = 0;
    std::vector<uint64_t> wideStarts;
    uint64_t lastEnd = 0, busyCycles = 0;
  };

private:
  /// Per track (a system's chips have a track per ICI link, mostly empty).
  std::vector<BusyTrack> tracks;
  /// Per instruction index: its issue and result cycles.
  InstCycles cycles;
  BulkVector<uint32_t> pcs; ///< per instruction index

  /// One DMA instance.
  struct Dma {
    sim::DmaTiming timing;
    uint32_t pc = 0;
    uint64_t index = 0; ///< instruction index of the ISSUE
    /// Issued before a replay window: no ISSUE instruction in the run.
    bool inFlightAtStart = false;
    sim::MemOperand src, dst;
    std::optional<uint64_t> waitCycle, waitIndex;
    uint64_t stallBase = 0, stallTransfer = 0;
    bool srcChangedSincePrevious = false;
    /// Index of the previous DMA with the same source and destination.
    std::optional<size_t> previousSame;
  };
  std::vector<Dma> dmas;
  std::map<uint32_t, size_t> dmaById;
  /// (src space, base, rows, cols, stride; dst space, base, stride) -> the
  /// last DMA with these tiles.
  using PinKey = std::tuple<int, uint64_t, uint64_t, uint64_t, uint64_t, int,
                            uint64_t, uint64_t>;
  std::map<PinKey, size_t> lastSame;

  /// Computation and communication (FLOPs, bytes in from and out to HBM).
  struct Work {
    uint64_t flops = 0, bytesIn = 0, bytesOut = 0;
  };
  /// Per PC of the program (summed per op id by getWorkByOp): a flat array
  /// instead of a map lookup per instruction (issue 34).
  std::vector<Work> workByPc;
  /// Work of events whose instruction is not the program's at their PC
  /// (hand-built ones), per op id.
  std::map<uint32_t, Work> otherWork;
  std::map<uint32_t, Work> getWorkByOp() const;
  /// Scalar-unit busy cycles per PC (and of hand-built events per op id):
  /// the scalar track's intervals carry no op, so that the intervals of
  /// back-to-back instructions merge (one per scalar instruction before,
  /// 24 bytes each; issue 34).
  std::vector<uint64_t> scalarBusyByPc;
  std::map<uint32_t, uint64_t> otherScalarBusy;
  std::map<uint32_t, uint64_t> getScalarBusyByOp() const;

  /// What onRetire needs of an instruction that depends on its encoding
  /// only, computed once per PC of the program (issue 34: getAccesses and
  /// the op-id lookup ran for every retired instruction).
  struct PcInfo {
    llvm::SmallVector<uint8_t, 4> regReads, regWrites;
    uint64_t flops = 0;
    uint32_t opId = 0;
    isa::Unit unit = isa::Unit::Scalar;
    /// A branch (its registers control the flow: DataflowBound::Cost).
    bool controls = false;
  };
  std::vector<PcInfo> pcInfo;
  /// The PcInfo of the last instruction that was not the program's own at
  /// its PC (a hand-built event), kept to reuse its storage.
  PcInfo otherPcInfo;
  /// The byte ranges the instruction being retired reads and writes
  /// (onRetire's, kept to reuse their storage).
  llvm::SmallVector<sim::AddrRange, 8> readRanges, writeRanges;
  /// A PC's operand bases and byte ranges at its last retire, for a PC
  /// whose operands differ only in their bases (RetireEvent::fixedShapes)
  /// and have at most kMaxOperands operands and kMaxRanges ranges: a
  /// retire with the same bases has the same ranges (issue 34: no
  /// getRanges, and AccessHistory compares no ranges).
  struct PcRanges {
    static constexpr unsigned kMaxOperands = 4, kMaxRanges = 8;
    uint64_t bases[kMaxOperands];
    sim::AddrRange ranges[kMaxRanges];
    uint8_t numOperands = 0, numReadRanges = 0, numRanges = 0;
    bool valid = false;
  };
  /// Per PC, 1 + its entry in `pcRanges` (0: none yet).
  std::vector<uint32_t> pcRangesSlot;
  std::vector<PcRanges> pcRanges;
  /// PcInfo of an instruction (at a PC of the program, or not).
  PcInfo computePcInfo(const isa::Inst &inst, uint32_t pc) const;

  VmemTracker vmem;
  /// VMEM's repeat runs (VmemTracker::repeats): the period followed, the
  /// first instruction of its current period, the shift of its accesses'
  /// cycles (known once one has VMEM accesses), the two logged periods,
  /// and while a run is on, where it began. `at` holds each of the last
  /// AccessHistory::kWindow instructions' access cycle.
  struct VmemRepeat {
    unsigned period = 0;
    uint64_t periodBegin = 0, shift = 0, minAt = UINT64_MAX;
    bool shiftKnown = false, havePrev = false, active = false;
    uint64_t runBegin = 0;
    VmemTracker::PeriodRecord prev, tmpl;
    std::vector<uint64_t> at = std::vector<uint64_t>(AccessHistory::kWindow);
  } vmemRepeat;
  bool vmemRepeatRuns = true;
  uint64_t vmemRepeated = 0;
  /// Whether instruction `index` (of `period`, accessing VMEM at `at` when
  /// `accessesVmem`; `repeatable`: the program's own instruction, no DMA)
  /// continues VMEM's repeat run, whose accesses then are not passed; and
  /// the streak toward one (VmemRepeat).
  bool vmemRepeats(unsigned period, uint64_t at, bool accessesVmem,
                   bool repeatable) {
    // Inline, the usual case: the run goes on (its accesses `shift` cycles
    // after its twin's).
    VmemRepeat &r = vmemRepeat;
    constexpr uint64_t w = AccessHistory::kWindow;
    if (r.active && repeatable && period == r.period &&
        (!accessesVmem || at == r.at[(index - period) % w] + r.shift)) {
      r.at[index % w] = at;
      return true;
    }
    return vmemRepeatsAny(period, at, accessesVmem, repeatable);
  }
  /// vmemRepeats for any instruction.
  bool vmemRepeatsAny(unsigned period, uint64_t at, bool accessesVmem,
                      bool repeatable);
  /// Ends VMEM's repeat run before instruction `end`: the template's
  /// periods, then the accesses of the instructions of a period begun.
  void endVmemRepeat(uint64_t end);
  /// Stops following a streak toward a VMEM repeat run.
  void dropVmemStreak();
  /// The accesses of the last instructions and their period, which the
  /// dependency analysis and the dataflow bound use to skip their maps'
  /// work while the run repeats itself (AccessHistory.h).
  AccessHistory history;
  DependencyTracker deps;

  /// The latency-aware lower bounds (docs/metrics.md#roofline).
  DataflowBound dataflow;
  /// The analyzers of the system's chips (setSystem), and this chip.
  std::vector<Analyzer *> peers;
  unsigned selfChip = 0;
};

/// Writes timeline.json for the chips of a system (one analyzer and its
/// metrics per chip, in chip order): one Perfetto process per chip (pid
/// chip + 1, named "accel: PROGRAM chip C" when there are several), in the
/// Chrome Trace Event format.
void writeSystemTimeline(llvm::raw_ostream &os,
                         llvm::ArrayRef<const Analyzer *> chips,
                         llvm::ArrayRef<const nlohmann::json *> metrics);

} // namespace profile
} // namespace accel

#endif // ACCEL_PROFILE_ANALYZER_H
